"""Sizing engine against PUBLISHED references (sources in comments), plus the fit-check rules.

Every calibration number asserted here comes from a paper, a model card or a published tool's output,
never from this code.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from procure.models.offer import Offer
from procure.models.project import SizingSettings, Workload
from procure.models.units import GB, GIB
from procure.reports.sizing_report import print_sizing, sizing_to_json
from procure.solver.sizing import (
    Strategy,
    evaluate_strategy,
    memory_breakdown,
    reference_offer,
    size_workload,
    training_flops,
    zero_model_state_gb,
)

SETTINGS = SizingSettings()


def workload(model="llama-2-7b", method="full", tokens_b=1.0, seq_len=4096, **kw) -> Workload:
    data = dict(name=kw.pop("name", "job"), model=model, method=method, tokens_b=tokens_b, seq_len=seq_len, deadline_days=1000)
    data.update(kw)
    return Workload.model_validate(data)


def offer(**kw) -> Offer:
    data = dict(
        id="test-offer", vendor="test", mode="cloud", region="us-east", gpu="H100-SXM-80GB", gpus_per_node=8,
        intra_node="nvswitch", inter_node="ib-ndr", inter_node_rails=8, ram_gb=2048, nvme_tb=30, cpu_cores=112,
        network_line="standard", max_nodes=64, price_per_node_hour=30.0, source="test fixture", quoted_on="2026-01-01",
    )
    data.update(kw)
    return Offer.model_validate(data)


def shape(sizing, nodes: int):
    (c,) = [c for c in sizing.candidates if c.nodes == nodes]
    return c


def on_reference(w: Workload, gpu: str, total_gpus: int, settings: SizingSettings = SETTINGS):
    ref, nodes = reference_offer(gpu, total_gpus)
    return shape(size_workload(w, [ref], settings, None), nodes)


# --- memory: ZeRO paper -------------------------------------------------------------------------

# Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) Fig. 1 / §5: 7.5B params, N_d = 64, K = 12:
# DDP 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB (figures printed to 0.1 GB).
ZERO_PAPER = {0: 120.0, 1: 31.4, 2: 16.6, 3: 1.9}


@pytest.mark.parametrize("stage", [0, 1, 2, 3])
def test_zero_paper_model_states(stage):
    ours = zero_model_state_gb(7.5e9, stage, 64)
    ref = ZERO_PAPER[stage]
    assert abs(ours - ref) <= max(0.01 * ref, 0.05)  # within 1 %, or the paper's 0.1 GB rounding


@pytest.mark.parametrize("stage", [0, 1, 2])
def test_engine_model_state_matches_zero_paper(stage):
    # The same accounting through the engine (a 7.5B dense model; ZeRO-3 adds the gathered layer).
    spec = dict(params_b=7.5, layers=32, hidden_size=4096, heads=32, ffn_hidden_size=16384, vocab_size=50000)
    m = memory_breakdown(workload(model=spec), Strategy(stage, 1, True, 1), 64)
    assert m.model_state == pytest.approx(ZERO_PAPER[stage], rel=0.01)


# --- memory: DeepSpeed estimators -----------------------------------------------------------------

# deepspeed 0.19.8 estimate_zero2/zero3_model_states_mem_needs_all_cold, Llama-2 from meta-device HF
# configs, 8 GPUs on one node, GiB (REFERENCE table 1a). DeepSpeed counts 18 B/param (bf16 + fp32
# grads); we count 16 (ZeRO paper), so ours are ~11 % lower; docs/sizing.md explains.
DEEPSPEED_8GPU_GIB = {
    "llama-2-7b": {2: 26.67, 3: 14.61},
    "llama-2-13b": {2: 51.52, 3: 27.88},
    "llama-2-70b": {2: 273.02, 3: 145.52},
}


@pytest.mark.parametrize("model", sorted(DEEPSPEED_8GPU_GIB))
@pytest.mark.parametrize("stage", [2, 3])
def test_deepspeed_estimators_within_15_percent(model, stage):
    m = memory_breakdown(workload(model=model), Strategy(stage, 1, False, 1), 8)
    ours_gib = m.model_state * GB / GIB
    ref = DEEPSPEED_8GPU_GIB[model][stage]
    assert ours_gib == pytest.approx(ref, rel=0.15)
    assert ours_gib < ref  # the difference has a known sign: 16 vs 18 B/param


def test_korthikanti_activation_worked_example():
    # Korthikanti et al. 2022 Table 2, Llama-2-7B, s = 4096, b = 1: 34·sbh per layer without the
    # attention-matrix term = 17 GiB over 32 layers; full recompute 2·sbh·L = 1 GiB (REFERENCE 1d).
    w = workload(model="llama-2-7b")
    no_ckpt = memory_breakdown(w, Strategy(0, 1, False, 1), 1).activations * GB / GIB
    ckpt = memory_breakdown(w, Strategy(0, 1, True, 1), 1).activations * GB / GIB
    logits_gib = 4096 * 32000 * 6 / GIB
    assert no_ckpt - logits_gib == pytest.approx(17.0, rel=0.05)
    one_layer = 34 * 4096 * 4096 / GIB
    assert ckpt - logits_gib - one_layer == pytest.approx(1.0, rel=0.05)


# --- compute: published GPU-hours ------------------------------------------------------------------

# Llama 2 model card (meta-llama/llama-models models/llama2/MODEL_CARD.md): 2.0T tokens, A100-80GB,
# 184,320 / 368,640 / 1,720,320 GPU-hours; Touvron et al. 2023: 4M-token batches, 4k context.
LLAMA2_GPU_HOURS = {"llama-2-7b": 184_320, "llama-2-13b": 368_640, "llama-2-70b": 1_720_320}


@pytest.mark.parametrize("model", sorted(LLAMA2_GPU_HOURS))
def test_llama2_gpu_hours_within_20_percent(model):
    c = on_reference(workload(model=model, method="pretrain", tokens_b=2000), "A100-SXM-80GB", 2048)
    assert c.fits, c.reason
    assert c.gpus == 2048
    assert c.gpu_hours == pytest.approx(LLAMA2_GPU_HOURS[model], rel=0.20)


def test_mpt7b_gpu_hours_within_20_percent():
    # MosaicML MPT-7B announcement / model card: 1T tokens, 440 A100-40GB, 9.5 days (≈100,320 GPU-h);
    # 2048 context; GPT-style MLP (ffn 4h), vocab 50,432, 32 layers, d_model 4096, 6.7B params.
    mpt = dict(params_b=6.7, layers=32, hidden_size=4096, heads=32, ffn_hidden_size=16384, vocab_size=50432)
    c = on_reference(workload(model=mpt, method="pretrain", tokens_b=1000, seq_len=2048), "A100-SXM-40GB", 440)
    assert c.fits, c.reason
    assert c.gpus == 440
    assert c.gpu_hours == pytest.approx(440 * 9.5 * 24, rel=0.20)


# --- the seeds' table ------------------------------------------------------------------------------
# Seed articles: "7B/8B LoRA/QLoRA: ~24 GB, one 24 GB+ card (e.g. RTX 4090)"; QLoRA brings 7B down to
# "about 8 GB"; "7B full fine-tune: 60–80 GB, 2–3 × 40 GB+ cards, NVLink required"; "67B: ~300 GB,
# 4–8 × 80 GB cards", i.e. more than one 8-GPU node once activations and overhead are counted.


def test_seed_7b_qlora_fits_one_24gb_card():
    c = on_reference(workload(model="deepseek-llm-7b", method="qlora"), "RTX-4090-24GB", 1)
    assert c.gpus == 1 and c.fits, c.reason
    assert c.per_gpu_memory_gb <= 24


def test_seed_7b_full_finetune_needs_several_nvlinked_gpus():
    w = workload(model="deepseek-llm-7b", method="full")
    for gpu in ("RTX-4090-24GB", "A100-SXM-40GB"):
        c = on_reference(w, gpu, 1)
        assert not c.fits and "needs" in c.reason and "GB per GPU" in c.reason
    c = on_reference(w, "A100-SXM-40GB", 8)
    assert c.fits, c.reason
    assert c.strategy.zero_stage >= 1 or c.strategy.tensor_parallel > 1


def test_seed_67b_full_training_needs_more_than_one_node():
    w = workload(model="deepseek-llm-67b", method="pretrain", tokens_b=100)
    sizing = size_workload(w, [offer()], SETTINGS, None)
    assert not shape(sizing, 1).fits
    assert "GB per GPU" in shape(sizing, 1).reason
    for nodes in (2, 3, 4, 8):
        assert shape(sizing, nodes).fits, shape(sizing, nodes).reason


# --- fit checks: one passing and one failing shape each ----------------------------------------------


def test_host_ram_ratio():
    w = workload()
    # 8 × 80 GB × 1.5 = 960 GB
    bad = shape(size_workload(w, [offer(ram_gb=900)], SETTINGS, None), 1)
    good = shape(size_workload(w, [offer(ram_gb=960)], SETTINGS, None), 1)
    assert not bad.fits and "host RAM" in bad.reason
    assert good.fits, good.reason


def test_nvme_dataset_sharded_over_nodes():
    w = workload(model="llama-2-7b", method="lora", dataset_tb=10.0)
    sizing = size_workload(w, [offer(nvme_tb=4.0)], SETTINGS, None)
    assert not shape(sizing, 1).fits and "NVMe" in shape(sizing, 1).reason
    assert shape(sizing, 4).fits, shape(sizing, 4).reason


def test_nvme_counts_retained_checkpoints():
    # 70B full: 14 B/param (bf16 weights + fp32 master/m/v) × 69e9 ≈ 0.97 TB per checkpoint; 3 kept
    # ≈ 2.9 TB, sharded over the nodes: 1.45 TB per node on 2 nodes, 0.72 TB on 4.
    w = workload(model="llama-2-70b", method="full", dataset_tb=0.0, checkpoints_kept=3)
    sizing = size_workload(w, [offer(nvme_tb=1.0)], SETTINGS, None)
    two = shape(sizing, 2)
    assert not two.fits and "checkpoint" in two.reason and "NVMe" in two.reason
    assert shape(sizing, 4).fits, shape(sizing, 4).reason


def test_cpu_cores_per_gpu():
    w = workload()
    bad = shape(size_workload(w, [offer(cpu_cores=24)], SETTINGS, None), 1)
    good = shape(size_workload(w, [offer(cpu_cores=32)], SETTINGS, None), 1)
    assert not bad.fits and "CPU cores per GPU" in bad.reason
    assert good.fits, good.reason


def test_multi_node_needs_fabric():
    w = workload(model="llama-2-13b", method="full")
    slow = size_workload(w, [offer(inter_node="eth-25g", inter_node_rails=1)], SETTINGS, None)
    assert shape(slow, 1).fits, shape(slow, 1).reason  # one node never crosses the fabric
    assert not shape(slow, 2).fits
    assert "multi-node needs ≥100 Gb/s fabric; offer has eth-25g" in shape(slow, 2).reason
    fast = size_workload(w, [offer()], SETTINGS, None)
    assert shape(fast, 2).fits, shape(fast, 2).reason


def test_interconnect_bound_pcie_cluster():
    # Seeds: PCIe-linked consumer cards and 10/25 GbE between servers are a severe bottleneck.
    w = workload(model="llama-2-70b", method="lora")
    box = dict(gpu="RTX-4090-24GB", intra_node="pcie", inter_node_rails=1, ram_gb=512, nvme_tb=8, cpu_cores=64)
    settings = SizingSettings(min_inter_node_gbps=0)  # isolate the efficiency rule
    slow = shape(size_workload(w, [offer(inter_node="eth-25g", **box)], settings, None), 4)
    assert not slow.fits and "interconnect-bound" in slow.reason
    assert slow.efficiency < settings.min_efficiency
    ok = shape(size_workload(w, [offer(inter_node="eth-100g", **box)], settings, None), 4)
    assert ok.fits, ok.reason
    # with default settings the fabric rule fires too
    both = shape(size_workload(w, [offer(inter_node="eth-25g", **box)], SETTINGS, None), 4)
    assert "interconnect-bound" in both.reason and "fabric" in both.reason


def test_region_network_line_across_mainland_border():
    w = workload()
    hk_std = offer(id="hk-std", region="ap-hk", network_line="standard")
    hk_gia = offer(id="hk-gia", region="ap-hk", network_line="cn2-gia")
    sizing = size_workload(w, [hk_std, hk_gia], SETTINGS, "cn")
    std = [c for c in sizing.candidates if c.offer_id == "hk-std"]
    gia = [c for c in sizing.candidates if c.offer_id == "hk-gia"]
    assert std and all(not c.fits and "mainland-China border" in c.reason and "standard" in c.reason for c in std)
    assert [c for c in gia if c.nodes == 1][0].fits
    # no border crossed: a standard line is fine
    assert shape(size_workload(w, [offer(region="cn-east")], SETTINGS, "cn"), 1).fits
    assert shape(size_workload(w, [offer(region="eu-west")], SETTINGS, "us"), 1).fits


def test_allowed_gpus():
    w = workload(allowed_gpus=["H100"])
    sizing = size_workload(w, [offer(id="a100", gpu="A100-SXM-80GB"), offer(id="h100")], SETTINGS, None)
    a100 = [c for c in sizing.candidates if c.offer_id == "a100"]
    h100 = [c for c in sizing.candidates if c.offer_id == "h100"]
    assert all(not c.fits and "allowed_gpus" in c.reason for c in a100)
    assert any(c.fits for c in h100)


def test_max_nodes_caps_shapes_and_reference_ignores_job_cap():
    w = workload()
    sizing = size_workload(w, [offer(max_nodes=10)], SettingsCap := SizingSettings(max_nodes_per_job=6), None)
    assert [c.nodes for c in sizing.candidates] == [1, 2, 3, 4, 6]
    ref, nodes = reference_offer("A100-SXM-80GB", 2048)
    assert nodes == 256 and ref.id == "reference-A100-SXM-80GB"
    assert 256 in [c.nodes for c in size_workload(w, [ref], SettingsCap, None).candidates]


# --- checkpointing ---------------------------------------------------------------------------------


def test_checkpointing_trades_activations_for_a_third_more_compute():
    # Korthikanti et al. 2022: full recompute stores 2sbh per layer and re-runs the forward pass,
    # ≈ +2ND on top of 6ND (≈ +33 %).
    w = workload(model="llama-2-7b", method="pretrain")
    ratio = training_flops(w, True) / training_flops(w, False)
    assert ratio == pytest.approx(4 / 3, rel=0.02)
    ref, _ = reference_offer("H100-SXM-80GB", 8)
    h0, _, m0 = evaluate_strategy(w, ref, 1, Strategy(3, 1, False, 1))
    h1, _, m1 = evaluate_strategy(w, ref, 1, Strategy(3, 1, True, 1))
    assert m1.activations < m0.activations / 5
    assert h1 / h0 == pytest.approx(4 / 3, rel=0.05)


def test_adapter_and_qlora_flops():
    # LoRA skips the base weight-gradient GEMMs (≈ 4ND instead of 6ND); QLoRA adds dequantization.
    full = training_flops(workload(method="full"), False)
    lora = training_flops(workload(method="lora"), False)
    qlora = training_flops(workload(method="qlora"), False)
    assert 0.6 < lora / full < 0.75
    assert 1.3 <= qlora / lora <= 1.5


# --- reports ----------------------------------------------------------------------------------------


def test_json_contract_and_console():
    sizings = [size_workload(workload(model="llama-2-7b", method="qlora"), [offer(), offer(id="slow", inter_node="eth-25g", inter_node_rails=1)], SETTINGS, None)]
    data = sizing_to_json(sizings)
    (wl,) = data["workloads"]
    assert set(wl) == {"name", "total_flops", "memory_gb", "candidates"}
    assert set(wl["memory_gb"]) == {"weights", "gradients", "optimizer", "activations", "overhead"}
    cand = wl["candidates"][0]
    assert set(cand) == {"gpu", "gpus", "nodes", "offer", "strategy", "per_gpu_memory_gb", "fits", "reason", "hours", "gpu_hours", "efficiency"}
    assert set(cand["strategy"]) == {"zero_stage", "tensor_parallel", "checkpointing", "micro_batch"}
    buf = io.StringIO()
    print_sizing(Console(file=buf, width=160), sizings)
    text = buf.getvalue()
    assert "job" in text and "fits" in text and "fabric" in text


def test_qlora_65b_fits_one_48gb_gpu():
    # Dettmers et al. 2023 (QLoRA, arXiv:2305.14314) abstract: a 65B model fine-tunes on one 48 GB GPU.
    # LLaMA-65B shape (Touvron et al. 2023): 80 layers, d 8192, 64 heads, ffn 22016, vocab 32000.
    # Default rank 16; at the paper's r = 64 we count 53.7 GB (16 B per adapter param, no paged
    # optimizer) — docs/sizing.md discusses the gap.
    llama65 = dict(params_b=65.2, layers=80, hidden_size=8192, heads=64, ffn_hidden_size=22016, vocab_size=32000)
    c = on_reference(workload(model=llama65, method="qlora", seq_len=512), "RTX-A6000-48GB", 1)
    assert c.fits, c.reason


def test_sizing_constants_carry_unit_and_source():
    # The Assumptions sheet lists these rows; units of measure (GB, TB) are not sizing constants.
    from procure.solver.sizing import constant_rows

    rows = constant_rows()
    names = [r[0] for r in rows]
    assert len(names) == len(set(names))
    assert "GB" not in names and "TB" not in names and "GIB" not in names
    for name, value, unit, source in rows:
        assert isinstance(value, (int, float)) and unit and len(source) > 10, name
    # the ZeRO accounting: 2 B bf16 weights + 12 B fp32 master/m/v per checkpointed param
    by = {r[0]: r[1] for r in rows}
    assert by["CHECKPOINT_BYTES_PER_PARAM"] == by["BF16_BYTES"] + by["OPTIMIZER_BYTES"] == 14
