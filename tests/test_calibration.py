"""The sizing engine against published training runs (bench/calibration.py holds the runs and sources).

Two halves, fitted apart: the in-step MFU per GPU family on the in-step benchmarks only (Megatron-Core,
LLM Foundry, IBM FSDP, Llama 3 Table 4; ``instep_runs``), and the execution factor, common to every GPU,
on the comparable whole runs (``fit_runs``); MOE_MFU_FACTOR on DeepSeek-V2 alone. The in-step curve never
sees a whole run. Published figures are in each run's ``source``; docs/sizing.md carries the tables.
"""

from __future__ import annotations

import pytest

from bench.calibration import RUNS, TOLERANCE, estimate
from procure.models.gpu import gpu_table
from procure.models.project import SizingSettings, Workload
from procure.models.units import GB
from procure.solver.sizing import (
    Parallelism,
    evaluate_strategy,
    memory_breakdown,
    reference_offer,
    size_workload,
    usable_memory_gb,
)

WHOLE = [r for r in RUNS if r.metric == "gpu_hours"]
BENCHMARKS = [r for r in RUNS if r.metric != "gpu_hours"]

# Known misses of the step-time model against held-out checks, kept visible as strict xfails (they fail the day
# the model explains them, and the xfail must then go):
FP8_STACK = (
    "one FP8_GEMM_EFFICIENCY (0.88, fitted on NeMo 24.09's Transformer Engine per-tensor FP8 rows) cannot hold "
    "other FP8 recipes: TorchTitan's torchao Float8 on 500 W H100s measures 1.28x BF16 where the engine says "
    "1.57x, and DeepSeek-V3's block-scaled FP8 with CUDA-core promotion (arXiv:2412.19437 §3.3.2) implies about "
    "1.3x on the GEMMs; a workload field naming the FP8 recipe would be needed to size them apart"
)
LONG_CONTEXT_2023 = (
    "LLM Foundry's 2023 H100 sequence sweep ran MPT's ALiBi attention in a Triton kernel at about 0.3 of its GEMM "
    "rate (FlashAttention gained ALiBi only in v2.4, 2024); the engine times causal attention at "
    "ATTENTION_RELATIVE_EFFICIENCY 0.8 from FlashAttention-2/3 kernel measurements and has no knob for a slower "
    "fused kernel"
)
XFAIL_CEILING = {
    "TT-8b-fp8": FP8_STACK,
    "C19-7b-8-H100-32k": LONG_CONTEXT_2023,
    "C19-7b-8-H100-64k": LONG_CONTEXT_2023,
    "C19-13b-8-H100-32k": LONG_CONTEXT_2023,
}


@pytest.mark.parametrize("run", WHOLE, ids=[r.id for r in WHOLE])
def test_whole_run_within_25_percent_or_explained(run):
    res = estimate(run)
    if abs(res.error) <= TOLERANCE:
        return
    # a miss is allowed only with a written reason, and in the direction that reason predicts
    assert run.explained, f"{run.id}: {100 * res.error:+.1f} % and no explanation"
    assert run.miss and (res.error > 0) == (run.miss > 0), (
        f"{run.id}: miss {100 * res.error:+.1f} % against the explanation"
    )


@pytest.mark.parametrize(
    "run",
    [
        pytest.param(r, marks=pytest.mark.xfail(strict=True, reason=XFAIL_CEILING[r.id]))
        if r.id in XFAIL_CEILING
        else r
        for r in BENCHMARKS
    ],
    ids=[r.id for r in BENCHMARKS],
)
def test_benchmarks_are_a_ceiling_not_a_target(run):
    # No in-step estimate runs more than 25 % faster than a published benchmark, fitted or not.
    res = estimate(run)
    assert res.error <= TOLERANCE, f"{run.id}: in-step estimate {100 * res.error:+.1f} % above the benchmark"


CALIBRATED = [r for r in BENCHMARKS if r.calibrate and r.precision == "bf16"]


@pytest.mark.parametrize("run", CALIBRATED, ids=[r.id for r in CALIBRATED])
def test_in_step_benchmarks_within_15_percent(run):
    # The done criterion of the in-step half: on each benchmark the in-step curve is fitted on, sized on its
    # published layout, the engine's in-step tokens/s per GPU (∝ its MFU at fixed model and batch) lies
    # within ±15 % of the published figure.
    res = estimate(run)
    assert abs(res.error) <= 0.15, f"{run.id}: {100 * res.error:+.1f} %"


def test_in_step_calibration_set_is_the_listed_sources():
    # in-step sources only, and each family has them: Megatron-Core (C18), LLM Foundry (C19), IBM FSDP (C14),
    # Llama 3 Table 4; the 2021 Megatron-LM rows, the assumed-layout strong-scaling rows and TorchTitan's
    # power-capped rows are checks
    from bench.calibration import instep_runs

    ids = {r.id for r in instep_runs()}
    assert {"C14", "C14h", "C18-7.1B", "C19-7b-8-H100", "C19-7b-8-A100", "L3-T4-8192", "L3-T4-16384"} <= ids
    assert all(r.metric != "gpu_hours" for r in instep_runs())
    assert not any(i.startswith(("C17", "C18-strong", "TT-")) for i in ids)


def test_no_benchmark_estimated_above_the_best_published_in_step_mfu():
    # the tuned benchmarks are the ceiling: no in-step estimate of a calibration benchmark above the family's
    # best published BF16 MFU (H100: Megatron-Core 16B, 49 %; A100: LLM Foundry 7B on 8 GPUs, 64.2 %), and no
    # check row above about that (50 % on H100: the GPT-3 175B strong-scaling row on its assumed layout is the
    # highest, at 50.4 %)
    best = {"H100-SXM-80GB": 0.49, "H800-SXM-80GB": 0.49, "A100-SXM-80GB": 0.6423, "A100-SXM-40GB": 0.6423}
    for run in BENCHMARKS:
        if run.metric == "mfu":
            slack = 1e-3 if run.calibrate else 0.015
            assert estimate(run).estimate <= best[run.gpu] + slack, run.id


@pytest.mark.xfail(strict=True, reason=FP8_STACK)
def test_fp8_over_bf16_on_torchtitan():
    # TorchTitan Llama 3.1 8B on 8 H100 (FSDP + compile): Float8 8,532 vs BF16 6,667 tok/s/GPU, 1.28×; the
    # engine on that layout within 1.15–1.5× and within 15 % of the measured ratio
    by_id = {r.id: r for r in RUNS}
    ratio = estimate(by_id["TT-8b-fp8"]).estimate / estimate(by_id["TT-8b-bf16"]).estimate
    assert 1.15 <= ratio <= 1.5
    assert ratio == pytest.approx(8532 / 6667, rel=0.15)


def test_non_comparable_runs_say_why():
    # runs kept out of the fit and the band carry the reason docs/sizing.md gives: OPT-175B (C15: months of manual
    # restarts and rollbacks, tokens not stated) and Alpaca (C20: tokens an upper bound, eager attention). Llama 3
    # / 3.1 8B (C7, C9) are in the band since issue 51 (§7: the band is the spread of the whole-run evidence, and
    # Meta's 70B and 405B cards from the same accounting were in it already): their slow tail is the evidence
    out = [r for r in WHOLE if not r.comparable]
    assert {r.id for r in out} == {"C15", "C20"}
    assert all(r.explained for r in out)
    slow_tail = {r.id: r for r in WHOLE if r.id in ("C7", "C9")}
    assert all(r.comparable and r.explained and r.miss == -1 for r in slow_tail.values())


def test_megatron_strong_scaling_trend():
    # NVIDIA/Megatron-LM README (strong_scaling.png): GPT-3 175B at a fixed batch of 1,152 sequences,
    # 96 → 4,608 H100: MFU 47 % → 42 % ("communication becomes more exposed at larger scale"), a drop of
    # 10.6 %. Ours must fall too, by a similar amount (between half and one and a half times that drop).
    by_id = {r.id: r for r in RUNS}
    small, large = estimate(by_id["C18-strong-96"]).estimate, estimate(by_id["C18-strong-4608"]).estimate
    drop, published = 1 - large / small, 1 - 42 / 47
    assert large < small
    assert 0.5 * published <= drop <= 1.5 * published


# --- the done criterion: DeepSeek-V3 on 2,048 H800 ---------------------------------------------------

# DeepSeek-V3 technical report (arXiv:2412.19437) Table 1: pre-training 2,664K H800 GPU-hours
# (context extension 119K and post-training 5K are separate); 14.8T tokens, seq 4096, FP8.
V3_PRETRAIN_GPU_HOURS = 2_664_000


# DeepSeek-V3 trains on HAI-LLM, DeepSeek's own pretraining stack (arXiv:2412.19437 §3.2), not the Hugging
# Face Transformers loop that ``loss: full`` describes (bf16 logits + fp32 upcast + fp32 gradient, 10 B per
# logit, models.layout); ``loss: chunked`` is the knob for a pretraining stack's fused cross-entropy. The
# report's other memory savings (§3.2.3: RMSNorm and MLA up-projections recomputed, the EMA in CPU memory,
# the output head shared with the MTP module) are not modelled, so the job is sized leaner than it ran only
# in its loss.
V3_STACK = dict(loss="chunked")


def v3_job(**kw) -> Workload:
    data = dict(
        name="v3",
        model="deepseek-v3",
        method="pretrain",
        tokens_b=14_800,
        seq_len=4096,
        precision="fp8",
        deadline_days=1000,
        **V3_STACK,
    )
    data.update(kw)
    return Workload.model_validate(data)


def test_deepseek_v3_fits_2048_h800_within_10_percent():
    ref, nodes = reference_offer("H800-SXM-80GB", 2048)
    (c,) = [c for c in size_workload(v3_job(), [ref], SizingSettings(), None).candidates if c.nodes == nodes]
    assert c.fits, c.reason
    assert c.strategy.expert_parallel > 1 and c.strategy.precision == "fp8"
    assert c.gpu_hours == pytest.approx(V3_PRETRAIN_GPU_HOURS, rel=0.10)


def test_deepseek_v3_fastest_layout_fits_only_without_the_full_logits():
    # The search's fastest layout on 2,048 H800 is PP16 × EP16, ZB1P, ZeRO-1, no TP (+8 % on the report's
    # hours). Under loss: full it needs the whole logits tensor of one micro-batch beside the chunk a fused
    # loss holds: s·V·10 − s·h·6 = 4,096 × 129,280 × 10 − 4,096 × 7,168 × 6 = 5,295,308,800 − 176,160,768 =
    # 5,119,148,032 B (no TP to divide it), × 1.1 (FRAGMENTATION) = 5.631 GB more per GPU. The usable H800
    # memory is 80 GiB × 0.995 × (1 − 0.04) = 82.05 GB: with the full logits the layout overflows it and the
    # search falls back to EP32 (+19 % on the report's hours), with the fused loss it fits.
    st = Parallelism(1, 1, False, 1, pipeline_parallel=16, expert_parallel=16, precision="fp8", schedule="zb1p")
    chunked = memory_breakdown(v3_job(), st, 2048).total
    full = memory_breakdown(v3_job(loss="full"), st, 2048).total
    logits = 4096 * 129_280 * 10 - 4096 * 7168 * 6
    assert full - chunked == pytest.approx(1.1 * logits / GB, rel=1e-9)
    usable = usable_memory_gb(gpu_table()["H800-SXM-80GB"])
    assert usable == pytest.approx(80 * 2**30 * 0.995 * 0.96 / GB, rel=1e-9)
    assert chunked < usable < full


def test_deepseek_v3_published_layout_fits_with_its_breakdown():
    _v3_published_layout(check_hours=False)


@pytest.mark.xfail(
    strict=True,
    reason="DeepSeek-V3 on its published layout (DualPipe pinned) comes out 22.7 % under the report's 2,664K "
    "H800 GPU-hours (the same layout in BF16 is 29.2 % over): " + FP8_STACK,
)
def test_deepseek_v3_published_layout_within_10_percent():
    _v3_published_layout(check_hours=True)


def _v3_published_layout(check_hours: bool):
    # DeepSeek-V3 §3.2: 16-way PP (DualPipe), 64-way EP over 8 nodes, ZeRO-1, no TP, 2,048 × H800 80 GB.
    # Hand-worked per GPU (GB = 1e9 B): routed experts 58 MoE layers × 256 × 3·7168·2048 = 653.909e9 params,
    # the rest 671e9 − that = 17.091e9. A GPU holds 17.091e9/16 + 653.909e9/(16·64) = 1.7068e9 params;
    # DualPipe keeps 2 copies of bf16 weights: 2 × 2 B × 1.7068e9 = 6.827 GB; FP32 gradients 4 B: 6.827 GB;
    # BF16 Adam moments + FP32 master (8 B) sharded over DP 128 (dense) and 128/64 = 2 (experts):
    # 8 × (1.0682e9/128 + 0.6386e9/2) = 2.621 GB.
    st = Parallelism(1, 1, False, 1, pipeline_parallel=16, expert_parallel=64, precision="fp8", schedule="dualpipe")
    m = memory_breakdown(v3_job(), st, 2048)
    rest, experts = 671e9 - 653.908770816e9, 653.908770816e9
    held = rest / 16 + experts / 1024
    assert m.weights == pytest.approx(2 * 2 * held / GB, rel=1e-6)
    assert m.gradients == pytest.approx(4 * held / GB, rel=1e-6)
    assert m.optimizer == pytest.approx(8 * (rest / 16 / 128 + experts / 1024 / 2) / GB, rel=1e-6)
    usable = usable_memory_gb(gpu_table()["H800-SXM-80GB"])
    assert m.total < usable, m
    print(f"DeepSeek-V3 layout per GPU: {m}")  # shown with pytest -s
    ref, nodes = reference_offer("H800-SXM-80GB", 2048)
    hours, eff, _ = evaluate_strategy(v3_job(global_batch_tokens=15360 * 4096), ref, nodes, st)
    assert hours > 0 and 0 < eff <= 1
    if check_hours:
        assert hours * 2048 == pytest.approx(V3_PRETRAIN_GPU_HOURS, rel=0.10)


def test_procure_size_on_deepseek_v3_2048_h800(tmp_path):
    # The done criterion through the command line: fits, lands within ±10 % of the report's 2,664K
    # H800 GPU-hours, and the JSON strategy names the layout.
    import json

    from typer.testing import CliRunner

    from procure.cli import app

    path = tmp_path / "v3.yaml"
    path.write_text(
        "name: v3\nworkloads:\n  - name: v3-pretrain\n    model: deepseek-v3\n    method: pretrain\n    tokens_b: 14800\n"
        "    seq_len: 4096\n    precision: fp8\n    deadline_days: 120\n    dataset_tb: 60\n"
        "    loss: chunked\n"  # DeepSeek's stack (V3_STACK)
    )
    res = CliRunner().invoke(app, ["size", str(path), "--gpu", "H800-SXM-80GB", "--gpus", "2048", "--json", "-"])
    assert res.exit_code == 0, res.output
    (c,) = json.loads(res.output)["workloads"][0]["candidates"]
    assert c["fits"] and c["gpus"] == 2048
    assert c["gpu_hours"] == pytest.approx(V3_PRETRAIN_GPU_HOURS, rel=0.10)
    st = c["strategy"]
    assert st["expert_parallel"] > 1 and st["pipeline_parallel"] > 1 and st["precision"] == "fp8"
    assert c["memory_gb"]["weights"] > 0 and c["per_gpu_memory_gb"] < 85.5


# --- the fit, its leave-one-out errors and the uncertainty band ----------------------------------------

LOO = None


def _loo():
    global LOO
    if LOO is None:
        from bench.calibration import leave_one_out_errors

        LOO = leave_one_out_errors()
    return LOO


def test_constants_are_what_the_fit_finds():
    # constants.yaml carries the values `python -m bench.calibration` fits (to their printed precision)
    from bench.calibration import fit
    from procure.solver.sizing.constants import constant

    f = fit()
    assert constant("MFU_AMPERE") == pytest.approx(f.family["ampere"][0], abs=5e-4)
    assert constant("MFU_HIDDEN_HALF_AMPERE") == pytest.approx(f.family["ampere"][1], abs=0.5)
    assert constant("MFU_HOPPER") == pytest.approx(f.family["hopper"][0], abs=5e-4)
    assert constant("MFU_HIDDEN_HALF_HOPPER") == pytest.approx(f.family["hopper"][1], abs=0.5)
    assert constant("MOE_MFU_FACTOR") == pytest.approx(f.moe, abs=5e-4)
    assert constant("MFU_MAX_AMPERE") == pytest.approx(f.caps["ampere"], abs=5e-4)
    assert constant("MFU_MAX_HOPPER") == pytest.approx(f.caps["hopper"], abs=5e-4)
    assert constant("EXECUTION_FACTOR") == pytest.approx(f.execution, abs=5e-4)


def test_in_step_fit_never_sees_a_whole_run():
    # the in-step half is fitted on benchmarks alone: changing every whole run's published hours leaves it
    import dataclasses

    import bench.calibration as cal

    before = cal.fit_instep()
    saved = list(cal.RUNS)
    try:
        cal.RUNS[:] = [
            dataclasses.replace(r, published=r.published * 2) if r.metric == "gpu_hours" else r for r in saved
        ]
        assert cal.fit_instep() == before
    finally:
        cal.RUNS[:] = saved


def test_leave_one_out_goals():
    # The done criterion on the calibration runs: each comparable whole run sized with the MFU curve fitted
    # on the others. Median |error| ≤ 15 %, median signed error within ±5 % (the estimate is the P50).
    import numpy as np

    # (16 with Llama 3 / 3.1 8B back in the evidence, see above)
    rows = [x for x in _loo() if x.true_loo]
    assert len(rows) >= 16
    errors = np.array([x.loo for x in rows])
    assert abs(float(np.median(errors))) <= 0.05


@pytest.mark.xfail(
    strict=True,
    reason="with Llama 3 / 3.1 8B in the whole-run evidence (issue 51 §7), the leave-one-out median |error| is "
    "20.5 % and the worst 53.9 % (C9); the 15 % and 40 % goals were set on the 14 runs without them (14.2 %, "
    "31.7 %): the spread between teams is wider than the goals, which the band now carries (18.6 % before "
    "sequence parallelism let Llama 3 / 3.1 70B and DeepSeek LLM 67B run TP4 PP8 and TP2 PP16, faster than "
    "the TP8 and TP4 layouts that fitted without it, moving their execution factors away from the median)",
)
def test_leave_one_out_spread_goals():
    import numpy as np

    errors = np.array([x.loo for x in _loo() if x.true_loo])
    assert float(np.median(np.abs(errors))) <= 0.15
    assert float(np.max(np.abs(errors))) <= 0.40


def test_goodput_reproduces_llama3_effective_time():
    # Llama 3 (arXiv:2407.21783 §3.3.4): 90 % effective training time on 16,384 H100 over 54 days, with
    # 466 interruptions. By hand, a checkpoint every 0.14 h (the interval that figure implies, bench/calibration
    # L3_CHECKPOINT_HOURS): restart loss 0.14/2 + 0.1 = 0.17 h; loss factor 1 + 0.05 + 16,384 ×
    # 466/(16,384 × 54 × 24) × 0.17 = 1.111 → in-step / wall = 0.900 for a long job.
    from procure.solver.sizing.goodput import goodput, wall_hours

    in_step = 54 * 24 * 0.9
    assert goodput(in_step, 16384, None, 0.14) == pytest.approx(0.90, abs=0.002)
    # a small cluster loses less to interruptions: 8 GPUs, 100 h executed, checkpoints every 4 h (the default):
    # 100 × (1.05 + 8 × 2.195e-5 × (2 + 0.1)) + 0.5
    assert wall_hours(100.0, 8, None, 4.0, execution=1.0) == pytest.approx(
        100 * (1.05 + 8 * 2.195e-5 * 2.1) + 0.5, rel=1e-9
    )
    # a workload's effective_time replaces the goodput model, not the execution factor
    assert wall_hours(90.0, 16384, 0.9, execution=1.0) == pytest.approx(100.0)
    assert wall_hours(90.0, 16384, 0.9, execution=0.9) == pytest.approx(100.0 / 0.9)


def test_restart_loss_follows_the_checkpoint_interval():
    # each interruption redoes half the interval on average, plus the reload: on 16,384 GPUs a checkpoint
    # every 4 h loses 16,384 × 2.195e-5 × 2.1 = 0.755 of the executed time to interruptions, every 0.5 h 0.126
    from procure.solver.sizing.goodput import loss_factor, restart_loss_hours

    assert restart_loss_hours(4.0) == pytest.approx(2.1)
    assert loss_factor(16384, 4.0) == pytest.approx(1.05 + 16384 * 2.195e-5 * 2.1)
    assert loss_factor(16384, 0.5) == pytest.approx(1.05 + 16384 * 2.195e-5 * 0.35)
    # through the engine: the same job with rarer checkpoints takes longer, more so on more GPUs
    ref, nodes = reference_offer("H100-SXM-80GB", 1024)

    def hours(every):
        w = Workload.model_validate(
            dict(
                name="c",
                model="llama-2-7b",
                method="pretrain",
                tokens_b=2000,
                seq_len=4096,
                deadline_days=1000,
                checkpoint_every_hours=every,
            )
        )
        (c,) = [c for c in size_workload(w, [ref], SizingSettings(), None).candidates if c.nodes == nodes]
        return c.hours

    assert hours(8.0) > hours(1.0) * 1.05


def test_execution_factor_is_the_same_for_every_gpu():
    # whole-run hours = in-step hours ÷ goodput ÷ EXECUTION_FACTOR on every GPU: the in-step speed ratio of two
    # GPUs is their hours ratio (same GPU count, same goodput), whatever the execution factor
    from procure.solver.sizing.constants import constant
    from procure.solver.sizing.goodput import in_step_hours, wall_hours

    e = constant("EXECUTION_FACTOR")
    assert 0.5 < e <= 1.0
    assert wall_hours(100.0, 64, None, 4.0) == pytest.approx(wall_hours(100.0 / e, 64, None, 4.0, execution=1.0))
    assert in_step_hours(wall_hours(100.0, 64, None, 4.0), 64, None, 4.0) == pytest.approx(100.0)


def _pretrain(model, gpu, n, precision="bf16"):
    w = Workload.model_validate(
        dict(
            name="p",
            model=model,
            method="pretrain",
            tokens_b=2000,
            seq_len=4096,
            deadline_days=10_000,
            precision=precision,
        )
    )
    ref, nodes = reference_offer(gpu, n)
    (c,) = [
        c
        for c in size_workload(w, [ref], SizingSettings(max_nodes_per_job=10_000), None).candidates
        if c.nodes == nodes
    ]
    assert c.fits, c.reason
    return c


def test_h100_over_a100_at_7b_bf16():
    # same-recipe measurements: IBM FSDP 7,500 / 3,700 = 2.03x, LLM Foundry MPT-7B 10,643 / 4,641 = 2.29x
    # (REFERENCE-RUNS C14, C19); a 7B (h 4096), 2T tokens on 64 GPUs: A100 GPU-hours / H100 GPU-hours in 1.8–2.5
    h100, a100 = _pretrain("llama-2-7b", "H100-SXM-80GB", 64), _pretrain("llama-2-7b", "A100-SXM-80GB", 64)
    assert 1.8 <= a100.gpu_hours / h100.gpu_hours <= 2.5
    assert 1.8 <= h100.tokens_per_gpu_s / a100.tokens_per_gpu_s <= 2.5


def test_fp8_over_bf16_on_h100():
    # Bounds from published in-step rates of a 7B on H100 (the old upper bound 1.5 followed the old
    # FP8_GEMM_EFFICIENCY 0.75, which issue 51 found 13–25 % slow on NVIDIA's recipes):
    # - the Megatron stack's ratio: NeMo 24.09 Llama 2 7B FP8 on 8 H100 runs 780 model TFLOP/s per GPU, and
    #   Megatron-Core's 7.1B BF16 on H100 runs at 47 % of 989.4 = 465 TFLOP/s (REFERENCE-RUNS C18):
    #   780 / 465 = 1.68; the engine's whole-run ratio (goodput and the non-GEMM work unchanged) is at most that;
    # - an open stack's ratio: TorchTitan Float8 8,532 / BF16 6,667 tok/s/GPU = 1.28 on power-capped H100s, the
    #   least an FP8 recipe gains: the engine's ratio is at least that.
    bf16, fp8 = _pretrain("llama-2-7b", "H100-SXM-80GB", 64), _pretrain("llama-2-7b", "H100-SXM-80GB", 64, "fp8")
    assert 8532 / 6667 <= bf16.gpu_hours / fp8.gpu_hours <= 780 / (0.47 * 989.4)


@pytest.mark.parametrize(
    "model,gpu,n,lo,hi",
    [
        ("llama-2-7b", "H100-SXM-80GB", 64, 0.33, 0.50),
        ("llama-3.1-70b", "H100-SXM-80GB", 512, 0.35, 0.50),
        ("llama-3.1-405b", "H100-SXM-80GB", 2048, 0.0, 0.50),
        ("llama-3.1-405b", "H100-SXM-80GB", 16384, 0.0, 0.50),
        ("llama-2-7b", "A100-SXM-80GB", 64, 0.45, 0.642),
        ("llama-2-70b", "A100-SXM-80GB", 512, 0.0, 0.642),
        ("qwen2.5-7b", "H100-SXM-80GB", 8, 0.0, 0.50),
    ],
)
def test_in_step_mfu_stays_within_the_published(model, gpu, n, lo, hi):
    # in-step MFU in the published convention: H100 BF16 33–50 % at 7B, 35–50 % at 70B, never above 50 %
    # (best published: Megatron-Core 49 %); A100 45–64 % at 7B, never above 64.2 % (LLM Foundry 7B)
    c = _pretrain(model, gpu, n)
    assert lo <= c.in_step_mfu <= hi, c.in_step_mfu


def test_hopper_hidden_size_effect_is_modest():
    # the benchmarks show a modest drop at 1–2B and none above h ≈ 4096 (Megatron-Core 42–49 % from 7.1B to
    # 462B; LLM Foundry 1B 36.7 % vs 7B 42.2 %): h 4096 keeps ≥ 0.9 of h 8192; h 2048 is lower, but not by half
    from procure.solver.sizing import default_mfu

    h100 = gpu_table()["H100-SXM-80GB"]
    h2, h4, h8, h16 = (default_mfu(h100, "pretrain", hidden=h) for h in (2048, 4096, 8192, 16384))
    assert h4 >= 0.9 * h8
    assert 0.7 * h4 <= h2 < h4
    assert h16 >= h8


def test_band_constants_are_what_the_calibration_computes():
    # constants.yaml carries the band that `python -m bench.calibration` prints (to its three decimals)
    from bench.calibration import band_from
    from procure.solver.sizing.constants import constant

    q10, q50, q90 = band_from(_loo())
    assert constant("HOURS_BAND_P10") == pytest.approx(q10, abs=5e-4)
    assert constant("HOURS_BAND_P50") == pytest.approx(q50, abs=5e-4)
    assert constant("HOURS_BAND_P90") == pytest.approx(q90, abs=5e-4)


def test_band_only_from_comparable_runs():
    from bench.calibration import fit_runs

    ids = {r.id for r in fit_runs()}
    assert "C15" not in ids and "C20" not in ids and "V3" not in ids
    assert {x.run.id for x in _loo()} == ids


def test_band_is_the_execution_spread_and_holds_80_percent_of_the_runs():
    # each comparable whole run against the band computed without it (a prediction interval from the others)
    from bench.calibration import band_loo_coverage

    hit, n = band_loo_coverage(_loo())
    assert hit >= 0.8 * n


def test_band_covers_at_least_70_percent_of_the_runs_out_of_sample():
    # each comparable whole run's published GPU-hours against [estimate × P10, estimate × P90], the estimate
    # fitted without that run
    from procure.solver.sizing.constants import constant

    lo, hi = constant("HOURS_BAND_P10"), constant("HOURS_BAND_P90")
    rows = _loo()
    inside = [lo <= 1 / (1 + x.loo) <= hi for x in rows]
    assert sum(inside) >= 0.7 * len(rows)


@pytest.mark.slow  # solves the 12-month example's pretraining against the bundled catalog (about 10 s)
def test_the_12_month_pretraining_is_not_planned_on_a100_at_the_bundled_prices():
    # The decision the calibration exists for: at the bundled rents an H100 node-month costs 15,371 against
    # 7,428 for an A100 (2.07x), while an H100 trains a 7B 2.0–2.3x as fast on the same recipe (IBM FSDP,
    # LLM Foundry). The example's pretraining, solved with its project settings against the bundled catalog,
    # must not land on A100.
    import dataclasses

    from procure.app import load_inputs
    from procure.solver.planner import plan_project

    from helpers import ROOT

    inputs = load_inputs(ROOT / "examples" / "programme-12-months.yaml", None)
    project = inputs.project
    only = [w for w in project.workloads if w.name == "pretrain-7b"]
    assert only, "the example's pretraining job is named pretrain-7b"
    res = plan_project(
        project.model_copy(update={"workloads": only}), inputs.catalog.offers, n_runner_ups=0, compare=False
    )
    (a,) = res.plan.assignments
    assert not a.gpu.startswith("A100"), dataclasses.asdict(a) if dataclasses.is_dataclass(a) else a
    assert a.gpu.startswith("H100")


def test_procure_size_on_7b_h100_against_a100(tmp_path):
    # The done criterion through the command line: a 7B (h 4096) pretraining, 2T tokens, seq 4096, 64 GPUs of
    # each kind side by side. A100-80GB GPU-hours ÷ H100 GPU-hours within 1.8–2.8; the JSON carries each GPU's
    # in-step MFU, tokens/s, goodput, execution factor and speed against the fastest; the console says
    # "H100-SXM-80GB = … × A100-SXM-80GB".
    import json
    import re

    from typer.testing import CliRunner

    from procure.cli import app

    path = tmp_path / "p.yaml"
    path.write_text(
        "name: p\nworkloads:\n  - name: pretrain-7b\n    model: llama-2-7b\n    method: pretrain\n    tokens_b: 2000\n"
        "    seq_len: 4096\n    deadline_days: 300\n"
    )
    args = ["size", str(path), "--gpu", "H100-SXM-80GB,A100-SXM-80GB", "--gpus", "64"]
    res = CliRunner().invoke(app, [*args, "--json", "-"])
    assert res.exit_code == 0, res.output
    by_gpu = {c["gpu"]: c for c in json.loads(res.output)["workloads"][0]["candidates"]}
    h100, a100 = by_gpu["H100-SXM-80GB"], by_gpu["A100-SXM-80GB"]
    ratio = a100["gpu_hours"] / h100["gpu_hours"]
    assert 1.8 <= ratio <= 2.8
    # the JSON's one MFU (model FLOPs with causal attention × tokens/s ÷ peak) is below the published
    # convention's (attention 12·L·s·h), so the published ceilings bound it from above
    assert 0.33 <= h100["mfu"] <= 0.50 and 0.45 <= a100["mfu"] <= 0.642
    assert h100["relative_speed"] == 1.0
    assert a100["relative_speed"] == pytest.approx(a100["tokens_per_gpu_s"] / h100["tokens_per_gpu_s"], abs=1e-3)
    assert h100["execution_factor"] == a100["execution_factor"]  # the team, not the GPU
    text = CliRunner().invoke(app, args, env={"COLUMNS": "200"}).output
    m = re.search(r"H100-SXM-80GB = ([\d.]+) × A100-SXM-80GB for pretrain-7b", " ".join(text.split()))
    assert m and float(m.group(1)) == pytest.approx(h100["tokens_per_gpu_s"] / a100["tokens_per_gpu_s"], abs=0.01)
    assert "execution factor" in text and "MFU in step" in " ".join(text.split())
