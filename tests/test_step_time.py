"""Step time (issue 51, parts 3, 7, 8): causal attention FLOPs, FP8 for adapters, MoE expert GEMMs on the
roofline, DualPipe only when pinned, and the band's coverage of whole runs. Every expected value is worked
out by hand in the test."""

from __future__ import annotations

import math

import pytest

from procure.models.gpu import gpu_table
from procure.models.project import SizingSettings, Workload
from procure.solver.sizing import Parallelism, evaluate_strategy, reference_offer
from procure.solver.sizing.compute import (
    attention_flops_per_token,
    expert_gemm_factor,
    flops_per_token,
    gemm_intensity,
)
from procure.solver.sizing.profile import profile
from procure.solver.sizing.search import _layouts
from procure.solver.sizing.shapes import _shape, size_workload, workload_mfu


def workload(model="llama-2-7b", method="pretrain", seq_len=4096, **kw) -> Workload:
    data = dict(name="job", model=model, method=method, tokens_b=1.0, seq_len=seq_len, deadline_days=1000)
    data.update(kw)
    return Workload.model_validate(data)


def test_causal_attention_flops_worked_by_hand():
    # Llama 2 7B: L = 32 layers, h = 4096, at s = 32,768 tokens. QKᵀ and AV over the full square are
    # 12·L·s·h = 12 × 32 × 32,768 × 4,096 = 51,539,607,552 FLOPs per token (forward and backward); a causal
    # mask leaves half: 25,769,803,776. Checkpointing recomputes the forward (a third): 34,359,738,368.
    p = profile(workload(seq_len=32768))
    assert attention_flops_per_token(p, False, "pretrain", causal=False) == 51_539_607_552
    assert attention_flops_per_token(p, False, "pretrain") == 25_769_803_776
    assert attention_flops_per_token(p, True, "pretrain") == 34_359_738_368
    # model FLOPs per token = 6·N + the causal half (N = the preset's active parameters)
    assert flops_per_token(p, False, "pretrain") == pytest.approx(6 * p.N + 25_769_803_776)


def test_long_context_step_is_shorter_with_causal_attention():
    # The attention share of a 32K-token step halves its FLOPs: at the same layout, the step runs on
    # (8·N + 32·L·s·h/3 / r) GEMM-equivalent FLOPs with checkpointing (r = ATTENTION_RELATIVE_EFFICIENCY),
    # so a Llama 2 7B SFT at 32K on 8 H100 is at least a third faster than non-causal 12·L·s·h at r would be.
    w = workload(method="full", seq_len=32768)
    p = profile(w)
    from procure.solver.sizing.constants import ATTENTION_RELATIVE_EFFICIENCY as r

    causal = p.gemm_tok_ckpt + p.att_tok_ckpt / r
    square = p.gemm_tok_ckpt + 2 * p.att_tok_ckpt / r
    assert square / causal > 1.3


def test_fp8_is_accepted_for_lora_and_qlora():
    for method in ("lora", "qlora"):
        assert workload(method=method, precision="fp8").precision == "fp8"


def test_fp8_lora_step_uses_the_fp8_gemm_rate():
    # The same LoRA job on 8 H100, bf16 then fp8: the GEMM part of the compute shrinks by gemm_speed =
    # 1979 / 989.4 × FP8_GEMM_EFFICIENCY (datasheet FP8 and BF16 dense), so the fp8 step is shorter.
    ref, nodes = reference_offer("H100-SXM-80GB", 8)
    st = Parallelism(zero_stage=1, tensor_parallel=1, checkpointing=False, micro_batch=1)
    bf16, _e, _m = evaluate_strategy(workload(method="lora"), ref, nodes, st)
    st8 = Parallelism(zero_stage=1, tensor_parallel=1, checkpointing=False, micro_batch=1, precision="fp8")
    fp8, _e, _m = evaluate_strategy(workload(method="lora", precision="fp8"), ref, nodes, st8)
    assert fp8 < bf16 * 0.9


def test_expert_gemm_roofline_by_hand():
    # gemm_intensity(n, k, m) = n·k·m / (n·k + k·m + n·m): 4096 × 8192 × 28672 / (4096·8192 + 8192·28672 +
    # 4096·28672) = 962,072,674,304 / 385,875,968 = 2493.2 FLOP/byte (the reference dense GEMM).
    assert gemm_intensity(4096, 8192, 28672) == pytest.approx(962_072_674_304 / 385_875_968)
    # DeepSeek-V2 on H800 (peak 989.4 TFLOP/s, HBM 3,350 GB/s: ridge R = 295.3), seq 4096, mb 1, EP8,
    # k = 6 of E = 160 experts of width 1536, h = 5120: n = 4096·6·8/160 = 1228.8 tokens per expert,
    # I = 1228.8·5120·1536 / (1228.8·5120 + 5120·1536 + 1228.8·1536) = 602.1; factor = (1 + R/2493.2) /
    # (1 + R/602.1) = 1.1185 / 1.4905 = 0.750.
    w = workload(model="deepseek-v2")
    g = gpu_table()["H800-SXM-80GB"]
    ref, nodes = reference_offer("H800-SXM-80GB", 64)
    sh = _shape(g, ref, nodes, workload_mfu(w, g))
    p = profile(w)
    ridge = g.bf16_dense_tflops * 1e12 / (g.memory_bandwidth_gbs * 1e9)
    n = 4096 * 6 * 8 / 160
    i_e = n * 5120 * 1536 / (n * 5120 + 5120 * 1536 + n * 1536)
    expected = (1 + ridge / gemm_intensity(4096, 8192, 28672)) / (1 + ridge / i_e)
    assert expert_gemm_factor(p, 1, 8, sh) == pytest.approx(expected)
    assert 0.70 < expected < 0.80
    # without expert parallelism each expert sees 8× fewer tokens: slower still
    assert expert_gemm_factor(p, 1, 1, sh) < expert_gemm_factor(p, 1, 8, sh)


def _v2_shape():
    w = workload(model="deepseek-v2", tokens_b=10)
    g = gpu_table()["H800-SXM-80GB"]
    ref, nodes = reference_offer("H800-SXM-80GB", 64)
    return w, g, ref, nodes, _shape(g, ref, nodes, workload_mfu(w, g))


def test_dualpipe_is_not_offered_by_default():
    w, _g, _ref, _nodes, sh = _v2_shape()
    p = profile(w)
    layouts = _layouts(p, sh)
    assert any(lay[2] > 1 and lay[1] % 2 == 0 for lay in layouts)  # expert-parallel, even pipelines exist
    assert not [lay for lay in layouts if lay[3] == "dualpipe"]


def test_dualpipe_is_offered_when_pinned():
    w, _g, _ref, _nodes, sh = _v2_shape()
    p = profile(w)
    p.pinned_schedule = "dualpipe"  # what a workload's layout: pipeline_schedule: dualpipe sets
    assert [lay for lay in _layouts(p, sh) if lay[3] == "dualpipe"]


def test_a_workload_that_pins_dualpipe_is_sized_with_it():
    # layout: pipeline_schedule: dualpipe (models.layout) sets Profile.pinned_schedule, the switch
    # search._layouts reads; with only the schedule pinned the search still picks the pipeline and expert
    # degrees, among the even pipelines with ep > 1 that DualPipe runs on (DeepSeek-V3 §3.2.1).
    w = workload(model="deepseek-v2", tokens_b=10, layout={"pipeline_schedule": "dualpipe"})
    assert profile(w).pinned_schedule == "dualpipe"
    ref, _nodes = reference_offer("H800-SXM-80GB", 64)
    (c,) = [c for c in size_workload(w, [ref], SizingSettings(), None).candidates if c.gpus == 64]
    assert c.fits, c.reason
    st = c.strategy
    assert st.schedule == "dualpipe" and st.pipeline_parallel % 2 == 0 and st.expert_parallel > 1


def test_dualpipe_hides_the_all_to_all_only_when_it_is_the_schedule():
    # The same EP8 × PP16 layout under ZB1P and under DualPipe (constructed directly, as a pinned layout
    # would be): DualPipe's bubble 2(pp/2 − 1)/(3m) is smaller than ZB1P's (pp − 1)/(3m) and it hides the
    # all-to-all (DUALPIPE_A2A_OVERLAP), so it is faster; ZB1P exposes the all-to-all beyond the shared
    # experts' compute.
    w, _g, ref, nodes, _sh = _v2_shape()
    common = dict(zero_stage=1, tensor_parallel=1, checkpointing=False, micro_batch=1, pipeline_parallel=2)
    zb, _e, _m = evaluate_strategy(w, ref, nodes, Parallelism(**common, expert_parallel=8, schedule="zb1p"))
    dp, _e, _m = evaluate_strategy(w, ref, nodes, Parallelism(**common, expert_parallel=8, schedule="dualpipe"))
    assert dp < zb


def test_band_coverage_counted_by_hand():
    # Five runs' leave-one-out errors (estimate/published − 1) and so r = published/estimate = 1/(1 + e):
    # e = −0.20, −0.05, 0.0, +0.10, +0.50 → r = 1.25, 1.0526, 1, 0.9091, 0.6667. ln r = 0.2231, 0.0513, 0,
    # −0.0953, −0.4055; median m = 0; deviations above: 0.2231, 0.0513 → σ_hi = √((0.0498 + 0.0026)/2) =
    # 0.1619; below: −0.0953, −0.4055 → σ_lo = √((0.0091 + 0.1644)/2) = 0.2945. t(0.9, 4) ≈ 1.533 and
    # √(1 + 1/5) = 1.0954: k = 1.679. P10 = e^(−1.679 × 0.2945) = 0.610, P90 = e^(1.679 × 0.1619) = 1.312.
    # Inside [0.610, 1.312]: 1.25, 1.0526, 1, 0.9091, 0.6667 → 5 of 5.
    from bench.calibration import Loo, band_coverage, band_from

    rows = [Loo(None, e, e, True) for e in (-0.20, -0.05, 0.0, 0.10, 0.50)]
    q10, q50, q90 = band_from(rows)
    logs = [math.log(1 / (1 + e)) for e in (-0.20, -0.05, 0.0, 0.10, 0.50)]
    hi = math.sqrt((logs[0] ** 2 + logs[1] ** 2) / 2)
    lo = math.sqrt((logs[3] ** 2 + logs[4] ** 2) / 2)
    z = 1.2815515655446004
    t = z + (z**3 + z) / 16 + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * 16)
    k = t * math.sqrt(1.2)
    assert q50 == pytest.approx(1.0)
    assert q10 == pytest.approx(math.exp(-k * lo)) and q10 == pytest.approx(0.610, abs=0.002)
    assert q90 == pytest.approx(math.exp(k * hi)) and q90 == pytest.approx(1.312, abs=0.002)
    assert band_coverage(rows, q10, q90) == (5, 5)
    # a run 2× over its estimate (r = 0.5) falls outside
    assert band_coverage([*rows, Loo(None, 1.0, 1.0, True)], q10, q90) == (5, 6)


def test_the_band_holds_at_least_80_percent_of_the_whole_runs():
    from bench.calibration import band_coverage, leave_one_out_errors
    from procure.solver.sizing.constants import constant

    rows = leave_one_out_errors()
    hit, n = band_coverage(rows, constant("HOURS_BAND_P10"), constant("HOURS_BAND_P90"))
    assert n >= 17 and hit / n >= 0.8


def test_band_says_when_a_stack_era_is_outside_its_evidence():
    from procure.solver.sizing.band import evidence_note

    assert evidence_note("ampere") is None and evidence_note("hopper") is None  # A100, H100/H800 runs
    assert "blackwell" in str(evidence_note("blackwell"))
    assert "fused attention" in str(evidence_note("hopper", flash_attention=False))


def test_the_sizing_console_and_json_say_when_a_gpu_is_outside_the_band_evidence(tmp_path):
    # issue 51 §7: a B200 job's band is carried over from the Ampere/Hopper whole runs, an H100 job's is not
    import json

    from typer.testing import CliRunner

    from procure.cli import app

    path = tmp_path / "p.yaml"
    path.write_text(
        "name: p\nworkloads:\n  - name: pre\n    model: llama-2-7b\n    method: pretrain\n    tokens_b: 200\n"
        "    seq_len: 4096\n    deadline_days: 300\n"
    )
    args = ["size", str(path), "--gpu", "B200-SXM-180GB,H100-SXM-80GB", "--gpus", "64"]
    res = CliRunner().invoke(app, [*args, "--json", "-"])
    assert res.exit_code == 0, res.output
    notes = {c["gpu"]: c["band_note"] for c in json.loads(res.output)["workloads"][0]["candidates"]}
    assert notes["H100-SXM-80GB"] is None
    assert "no published whole run on blackwell GPUs" in notes["B200-SXM-180GB"]
    text = " ".join(CliRunner().invoke(app, args, env={"COLUMNS": "200"}).output.split())
    assert "P10–P90 h on B200-SXM-180GB: no published whole run on blackwell GPUs" in text
    assert "P10–P90 h on H100-SXM-80GB" not in text
