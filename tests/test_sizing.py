"""Sizing engine against PUBLISHED references (sources in comments), plus the fit-check rules.

Every calibration number asserted here comes from a paper, a model card or a published tool's output,
never from this code.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from procure.models.gpu import gpu_table
from procure.models.offer import Offer
from procure.models.project import SizingSettings, Workload
from procure.models.units import GB, GIB
from procure.reports.sizing_report import print_sizing, sizing_to_json
from procure.solver.sizing import (
    Parallelism,
    evaluate_strategy,
    memory_breakdown,
    reference_offer,
    size_workload,
    training_flops,
    zero_model_state_gb,
)
from procure.solver.sizing.constants import constant

SETTINGS = SizingSettings()


def workload(model="llama-2-7b", method="full", tokens_b=1.0, seq_len=4096, **kw) -> Workload:
    data = dict(
        name=kw.pop("name", "job"), model=model, method=method, tokens_b=tokens_b, seq_len=seq_len, deadline_days=1000
    )
    data.update(kw)
    return Workload.model_validate(data)


def offer(**kw) -> Offer:
    data = dict(
        id="test-offer",
        vendor="test",
        mode="cloud",
        region="us-east",
        gpu="H100-SXM-80GB",
        gpus_per_node=8,
        intra_node="nvswitch",
        inter_node="ib-ndr",
        inter_node_rails=8,
        ram_gb=2048,
        nvme_tb=30,
        cpu_cores=112,
        network_line="standard",
        max_nodes=64,
        price_per_node_hour=30.0,
        source="test fixture",
        quoted_on="2026-01-01",
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
    m = memory_breakdown(workload(model=spec), Parallelism(stage, 1, True, 1), 64)
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
    m = memory_breakdown(workload(model=model), Parallelism(stage, 1, False, 1), 8)
    ours_gib = m.model_state * GB / GIB
    ref = DEEPSPEED_8GPU_GIB[model][stage]
    assert ours_gib == pytest.approx(ref, rel=0.15)
    assert ours_gib < ref  # the difference has a known sign: 16 vs 18 B/param


def test_korthikanti_activation_worked_example():
    # Korthikanti et al. 2022 Table 2, Llama-2-7B, s = 4096, b = 1: 34·sbh per layer without the
    # attention-matrix term = 17 GiB over 32 layers; full recompute 2·sbh·L = 1 GiB (REFERENCE 1d).
    w = workload(model="llama-2-7b")
    no_ckpt = memory_breakdown(w, Parallelism(0, 1, False, 1), 1).activations * GB / GIB
    ckpt = memory_breakdown(w, Parallelism(0, 1, True, 1), 1).activations * GB / GIB
    # loss: full (the default) holds s·V logits at 10 B each: bf16 2 + fp32 upcast 4 + fp32 gradient 4
    # (was 6 B, bf16 + fp32 copy, which no stack holds: chunked stacks hold none, Hugging Face 10 B)
    logits_gib = 4096 * 32000 * 10 / GIB
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


def test_mpt7b_gpu_hours_within_30_percent_on_a_reference_node():
    # MosaicML MPT-7B announcement / model card: 1T tokens, 440 A100-40GB, 9.5 days (≈100,320 GPU-h);
    # 2048 context; GPT-style MLP (ffn 4h), vocab 50,432, 32 layers, d_model 4096, 6.7B params.
    mpt = dict(params_b=6.7, layers=32, hidden_size=4096, heads=32, ffn_hidden_size=16384, vocab_size=50432)
    c = on_reference(workload(model=mpt, method="pretrain", tokens_b=1000, seq_len=2048), "A100-SXM-40GB", 440)
    assert c.fits, c.reason
    assert c.gpus == 440
    # The MFU curve is fitted to the median of all comparable whole runs, on which MPT-7B lands at −24 % with
    # its RoCE fabric (docs/sizing.md, calibration table; tests/test_calibration.py holds it within ±25 %);
    # on the reference node's faster NDR fabric a little less communication is exposed: within ±30 %.
    assert c.gpu_hours == pytest.approx(440 * 9.5 * 24, rel=0.30)


# --- the seeds' table ------------------------------------------------------------------------------
# Seed articles: "7B/8B LoRA/QLoRA: ~24 GB, one 24 GB+ card (e.g. RTX 4090)"; QLoRA brings 7B down to
# "about 8 GB"; "7B full fine-tune: 60–80 GB, 2–3 × 40 GB+ cards, NVLink required"; "67B: ~300 GB,
# 4–8 × 80 GB cards", i.e. more than one 8-GPU node once activations and overhead are counted.


def test_seed_7b_qlora_fits_one_24gb_card():
    c = on_reference(workload(model="deepseek-llm-7b", method="qlora"), "RTX-4090-24GB", 1)
    assert c.gpus == 1 and c.fits, c.reason
    assert c.per_gpu_memory_gb <= 24


def test_seed_7b_full_finetune_needs_several_nvlinked_gpus_or_offload():
    # On one 24/40 GB card a 7B full fine-tune fits GPU memory only by moving the optimizer to the CPU:
    # plain Adam's 16 B/param is 110 GB before activations; 8-bit Adam's 10 B/param is 69 GB. The
    # offloaded state then needs 16 × 1.5 = 24 B/param of host RAM, 24 × 6.91e9 = 166 GB, which the
    # one-GPU reference box (host RAM 2 × its GPU memory: 48 / 80 GB) does not have: refused for host
    # RAM, not called a fit; a 256 GB host holds it.
    w = workload(model="deepseek-llm-7b", method="full")
    for gpu in ("RTX-4090-24GB", "A100-SXM-40GB"):
        c = on_reference(w, gpu, 1)
        assert not c.fits and c.strategy.offload
        assert "ZeRO-Offload" in c.strategy.label() and "host RAM" in c.reason, c.reason
        box = offer(gpu=gpu, gpus_per_node=1, ram_gb=256, cpu_cores=16, max_nodes=1, intra_node="pcie")
        big = shape(size_workload(w, [box], SETTINGS, None), 1)
        assert big.fits and big.strategy.offload, big.reason
    c = on_reference(w, "A100-SXM-40GB", 8)
    assert c.fits, c.reason
    assert c.strategy.zero_stage >= 1 or c.strategy.tensor_parallel > 1


def test_seed_67b_full_training_needs_more_than_one_node():
    # One 8 × H100 node holds the 67B only with the optimizer offloaded to host RAM: 16 × 1.5 B/param ×
    # 67.4B = 1,618 GB offloaded, which a 1 TB node cannot hold.
    w = workload(model="deepseek-llm-67b", method="pretrain", tokens_b=100)
    sizing = size_workload(w, [offer()], SETTINGS, None)
    assert shape(sizing, 1).fits and shape(sizing, 1).strategy.offload
    small = size_workload(w, [offer(ram_gb=1024)], SETTINGS, None)
    assert not shape(small, 1).fits
    assert "host RAM" in shape(small, 1).reason and "ZeRO-Offload" in shape(small, 1).reason
    for nodes in (2, 3, 4, 8):
        assert shape(sizing, nodes).fits, shape(sizing, nodes).reason


# --- fit checks: one passing and one failing shape each ----------------------------------------------


def test_host_ram_ratio_when_the_project_sets_it():
    w = workload()
    ratio = SizingSettings(host_ram_ratio=1.5)
    # 8 × 80 GB × 1.5 = 960 GB
    bad = shape(size_workload(w, [offer(ram_gb=900)], ratio, None), 1)
    good = shape(size_workload(w, [offer(ram_gb=960)], ratio, None), 1)
    assert not bad.fits and "host RAM" in bad.reason
    assert good.fits, good.reason


def test_host_ram_follows_what_the_job_keeps_in_host_memory():
    # Per node: 16 GB system + per GPU 8 GB (training process, data loaders, pinned buffers) + the GPU's
    # checkpoint shard staged in CPU memory (weights + optimizer). A 7B QLoRA stages a few hundred MB, so one
    # RTX 4090 with 32 GB of RAM is enough (16 + 8 + 0.4 ≈ 25 GB); the old 1.5 × GPU-memory rule asked 36 GB.
    q = shape(
        size_workload(
            workload(model="deepseek-llm-7b", method="qlora", seq_len=2048),
            [offer(gpu="RTX-4090-24GB", gpus_per_node=1, intra_node="pcie", inter_node="none", ram_gb=32, cpu_cores=4)],
            SETTINGS,
            None,
        ),
        1,
    )
    assert q.fits, q.reason
    # A full fine-tune stages its whole model state: the rule moves with it.
    full = shape(size_workload(workload(model="llama-2-7b", method="full"), [offer()], SETTINGS, None), 1)
    need = 16 + 8 * (8 + full.memory.weights + full.memory.optimizer)
    assert need > 100
    short = shape(
        size_workload(workload(model="llama-2-7b", method="full"), [offer(ram_gb=need - 1)], SETTINGS, None), 1
    )
    enough = shape(
        size_workload(workload(model="llama-2-7b", method="full"), [offer(ram_gb=need + 1)], SETTINGS, None), 1
    )
    assert not short.fits and "host RAM" in short.reason and "stage a checkpoint" in short.reason
    assert enough.fits, enough.reason


# Reasonable jobs, from the seeds' table: a 7B QLoRA and LoRA, a 7B full fine-tune, a 70B LoRA, a 7B and a
# 70B pretraining run, each with a deadline a buyer would give it.
REASONABLE_JOBS = [
    dict(
        name="qlora-7b",
        model="deepseek-llm-7b",
        method="qlora",
        tokens_b=0.3,
        seq_len=2048,
        deadline_days=30,
        dataset_tb=0.01,
    ),
    dict(name="lora-7b", model="llama-2-7b", method="lora", tokens_b=1, deadline_days=30, dataset_tb=0.01),
    dict(name="full-7b", model="deepseek-llm-7b", method="full", tokens_b=2, deadline_days=30, dataset_tb=0.05),
    dict(name="lora-70b", model="llama-2-70b", method="lora", tokens_b=1, deadline_days=60, dataset_tb=0.05),
    dict(name="pretrain-7b", model="llama-2-7b", method="pretrain", tokens_b=200, deadline_days=90, dataset_tb=1),
    dict(
        name="pretrain-70b",
        model="llama-3.1-70b",
        method="pretrain",
        tokens_b=1000,
        seq_len=8192,
        deadline_days=180,
        dataset_tb=5,
    ),
]


def test_every_bundled_offer_is_chosen_able():
    # Each bundled offer must fit, and finish by the deadline, for at least one reasonable job; the old
    # 1.5 × GPU-memory RAM rule rejected the DGX B200 and 8× MI300X for every job, and RAM and CPU rules
    # meant for 8-GPU servers rejected the single-RTX-4090 clouds for a 7B QLoRA.
    from procure.offers.catalog import load_catalog

    jobs = [Workload.model_validate(j) for j in REASONABLE_JOBS]
    for o in load_catalog().offers:
        ok = [
            w.name
            for w in jobs
            for c in size_workload(w, [o], SETTINGS, None).candidates
            if c.fits and c.hours <= w.deadline_days * 24
        ]
        assert ok, o.id
    for oid in ("buy-dgx-b200-us-east", "buy-8x-mi300x-us-east", "vastai-1x-rtx-4090", "runpod-1x-rtx-4090"):
        assert any(o.id == oid for o in load_catalog().offers), oid  # the offers the issue names are still bundled


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
    # One core per GPU for its training process plus two data-loader workers: 3 per GPU by default.
    w = workload()
    bad = shape(size_workload(w, [offer(cpu_cores=16)], SETTINGS, None), 1)
    good = shape(size_workload(w, [offer(cpu_cores=24)], SETTINGS, None), 1)
    assert not bad.fits and "CPU cores per GPU" in bad.reason and "< 3 required" in bad.reason
    assert good.fits, good.reason
    strict = shape(size_workload(w, [offer(cpu_cores=24)], SizingSettings(cpu_cores_per_gpu=4), None), 1)
    assert not strict.fits and "< 4 required" in strict.reason


def test_multi_node_needs_fabric():
    w = workload(model="llama-2-13b", method="full")
    slow = size_workload(w, [offer(inter_node="eth-25g", inter_node_rails=1)], SETTINGS, None)
    assert shape(slow, 1).fits, shape(slow, 1).reason  # one node never crosses the fabric
    assert not shape(slow, 2).fits
    assert "multi-node needs ≥100 Gb/s fabric (sizing.min_inter_node_gbps); offer has eth-25g" in shape(slow, 2).reason
    fast = size_workload(w, [offer()], SETTINGS, None)
    assert shape(fast, 2).fits, shape(fast, 2).reason


def test_interconnect_bound_pcie_cluster():
    # Seeds: PCIe-linked consumer cards and 10/25 GbE between servers are a severe bottleneck. With
    # pipeline parallelism only activations cross the slow fabric (2·s·b·h/t bytes per micro-batch and
    # boundary), so the job still runs, but less efficiently than on 100 GbE; a stricter efficiency bar
    # rejects the 25 GbE cluster as interconnect-bound and keeps the 100 GbE one.
    # The bar is a setting, not an estimate: a fixed figure moves whenever the step's compute or memory
    # model does (a faster step exposes the same traffic more), so it sits at what the 100 GbE cluster
    # reaches and the test checks the order of the two clusters, which the traffic alone decides.
    w = workload(model="llama-2-70b", method="lora")
    box = dict(gpu="RTX-4090-24GB", intra_node="pcie", inter_node_rails=1, ram_gb=512, nvme_tb=8, cpu_cores=64)
    free = SizingSettings(min_inter_node_gbps=0, min_efficiency=0.01)  # isolate the efficiency rule
    ok = shape(size_workload(w, [offer(inter_node="eth-100g", **box)], free, None), 4)
    # the bar: what the 100 GbE cluster reaches, so the less efficient 25 GbE cluster falls below it
    settings = SizingSettings(min_inter_node_gbps=0, min_efficiency=ok.efficiency - 1e-6)
    slow = shape(size_workload(w, [offer(inter_node="eth-25g", **box)], settings, None), 4)
    ok = shape(size_workload(w, [offer(inter_node="eth-100g", **box)], settings, None), 4)
    assert slow.strategy.pipeline_parallel > 1  # pipelining keeps gradient traffic off the 25 GbE links
    assert slow.efficiency < ok.efficiency and slow.hours > ok.hours
    assert not slow.fits and "interconnect-bound" in slow.reason
    assert slow.efficiency < settings.min_efficiency
    assert ok.fits, ok.reason
    # with default settings the fabric rule fires too
    both = shape(size_workload(w, [offer(inter_node="eth-25g", **box)], SETTINGS, None), 4)
    assert "fabric" in both.reason


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
    h0, _, m0 = evaluate_strategy(w, ref, 1, Parallelism(3, 1, False, 1))
    h1, _, m1 = evaluate_strategy(w, ref, 1, Parallelism(3, 1, True, 1))
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
    sizings = [
        size_workload(
            workload(model="llama-2-7b", method="qlora"),
            [offer(), offer(id="slow", inter_node="eth-25g", inter_node_rails=1)],
            SETTINGS,
            None,
        )
    ]
    data = sizing_to_json(sizings)
    (wl,) = data["workloads"]
    assert set(wl) == {"name", "total_flops", "memory_gb", "stack", "candidates"}
    # the stack's memory knobs with the defaults taken, and the fit margin (issue 51)
    assert wl["stack"] == {
        "loss": "full",
        "activation_offload": False,
        "quantize_on_load": "gpu",
        "fit_margin": 0.04,
        "pinned_layout": None,
    }
    assert set(wl["memory_gb"]) == {"weights", "gradients", "optimizer", "activations", "overhead", "load_peak"}
    cand = wl["candidates"][0]
    assert set(cand) == {
        "gpu",
        "gpus",
        "nodes",
        "offer",
        "strategy",
        "per_gpu_memory_gb",
        "memory_gb",
        "fits",
        "reason",
        "hours",
        "hours_p10",
        "hours_p90",
        "gpu_hours",
        "efficiency",
        "mfu",
        "matmul_rate",
        "tokens_per_gpu_s",
        "goodput",
        "execution_factor",
        "relative_speed",
        "host_ram_gb",
        "band_note",
    }
    # the factors of the hours, calibrated apart: in-step MFU (from benchmarks), whole-run goodput (executed
    # step hours ÷ wall hours) and the execution factor (the median whole run, the same for every GPU)
    from procure.solver.sizing.constants import constant
    from procure.solver.sizing.goodput import in_step_hours

    if cand["fits"]:
        assert 0 < cand["mfu"] < 1
        assert cand["goodput"] == pytest.approx(
            in_step_hours(cand["hours"], cand["gpus"], None, execution=1.0) / cand["hours"], abs=1e-3
        )
        assert cand["execution_factor"] == constant("EXECUTION_FACTOR")
        # tokens/s per GPU in step: the job's tokens over the in-step GPU-seconds (goodput and execution out)
        in_step = in_step_hours(cand["hours"], cand["gpus"], None)
        assert cand["tokens_per_gpu_s"] == pytest.approx(1e9 / (in_step * 3600 * cand["gpus"]), rel=2e-3)
        # one MFU (issue 51): the model's FLOPs per token (6·N + causal attention 6·L·s·h, no recomputation)
        # × tokens/s per GPU ÷ the GPU's dense BF16 peak; the GEMM-rate constant is named apart
        from procure.solver.sizing.profile import profile

        p = profile(workload(model="llama-2-7b", method="qlora"))
        peak = gpu_table()[cand["gpu"]].bf16_dense_tflops * 1e12
        assert cand["mfu"] == pytest.approx(p.flops_tok * cand["tokens_per_gpu_s"] / peak, rel=2e-3)
        assert 0 < cand["matmul_rate"] < 1
    assert set(cand["strategy"]) == {
        "zero_stage",
        "tensor_parallel",
        "checkpointing",
        "micro_batch",
        "pipeline_parallel",
        "expert_parallel",
        "precision",
        "pipeline_schedule",
        "virtual_stages",
        "optimizer",
        "offload",
        "sequence_parallel",
        "context_parallel",
    }
    parts = dict(cand["memory_gb"])
    peak = parts.pop("load_peak")  # QLoRA quantizing on the GPU: what must fit is the larger of step and load
    assert max(sum(parts.values()), peak) == pytest.approx(cand["per_gpu_memory_gb"], abs=0.01)
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


# --- sizing at scale: precision, MoE layout, pipeline, long context ---------------------------------


def test_fp8_needs_fp8_tensor_cores():
    w = workload(model="llama-2-7b", method="pretrain", precision="fp8")
    a100 = shape(size_workload(w, [offer(gpu="A100-SXM-80GB")], SETTINGS, None), 1)
    h100 = shape(size_workload(w, [offer()], SETTINGS, None), 1)
    assert not a100.fits and any(r.rule == "precision" for r in a100.reasons)
    assert h100.fits, h100.reason
    bf16 = shape(size_workload(workload(model="llama-2-7b", method="pretrain"), [offer()], SETTINGS, None), 1)
    # FP8 speeds up the matrix multiplies only (attention and communication stay): faster, but < 2×
    assert bf16.hours / 2 < h100.hours < bf16.hours


def test_fp8_for_adapters_where_the_gpu_has_fp8():
    # The rule (issue 51): FP8 is not only a full-training recipe. NVIDIA's NeMo 24.12 performance summary
    # runs LoRA of Llama 2 7B/13B/70B in FP8 on DGX-H100, so a LoRA or QLoRA workload may ask for fp8; what
    # refuses it is a GPU without FP8 tensor cores (the GPU table's fp8_dense_tflops: 1,979 on H100, none on
    # A100), with the same precision rule as for pretraining.
    for method in ("lora", "qlora"):
        w = workload(model="llama-2-7b", method=method, precision="fp8")
        assert w.precision == "fp8"
        a100 = shape(size_workload(w, [offer(gpu="A100-SXM-80GB")], SETTINGS, None), 1)
        h100 = shape(size_workload(w, [offer()], SETTINGS, None), 1)
        assert not a100.fits and [r.rule for r in a100.reasons if r.rule == "precision"]
        assert "A100-SXM-80GB has no FP8 tensor cores" in a100.reason
        assert h100.fits, h100.reason
        assert h100.strategy.precision == "fp8"


def test_moe_layout_fields_go_together():
    spec = dict(
        params_b=16,
        active_params_b=3,
        layers=28,
        hidden_size=2048,
        heads=16,
        ffn_hidden_size=11264,
        vocab_size=102400,
        experts=64,
    )
    with pytest.raises(ValueError, match="experts_per_token"):
        workload(model=spec)


def test_deepseek_presets_carry_their_expert_layout():
    # config.json of deepseek-ai/DeepSeek-V3: 61 layers, first_k_dense_replace 3, 256 routed experts,
    # 8 per token, 1 shared, moe_intermediate_size 2048; routed params 58 × 256 × 3 × 7168 × 2048.
    m = workload(model="deepseek-v3").model
    assert (m.experts, m.experts_per_token, m.shared_experts, m.expert_ffn_hidden_size, m.dense_layers) == (
        256,
        8,
        1,
        2048,
        3,
    )
    assert m.expert_params == 58 * 256 * 3 * 7168 * 2048
    # active = everything but the routed experts + 8/256 of them ≈ the published 37B (within 2 %)
    assert (m.params - m.expert_params * (1 - 8 / 256)) / 1e9 == pytest.approx(37, rel=0.02)
    v2 = workload(model="deepseek-v2").model
    assert (v2.experts, v2.experts_per_token, v2.shared_experts, v2.routing_group_limit) == (160, 6, 2, 3)


def test_moe_full_finetune_uses_expert_parallelism():
    # The issue: a DeepSeek-V2 full fine-tune was only ever sized as ZeRO-3 over all 236B parameters.
    w = workload(model="deepseek-v2", method="full", tokens_b=10)
    ref, nodes = reference_offer("H800-SXM-80GB", 256)
    (c,) = [c for c in size_workload(w, [ref], SETTINGS, None).candidates if c.nodes == nodes]
    assert c.fits, c.reason
    assert c.strategy.expert_parallel > 1


def test_effective_time_scales_wall_hours():
    ref, nodes = reference_offer("H100-SXM-80GB", 64)
    st = Parallelism(1, 1, False, 1)
    h90, _, _ = evaluate_strategy(workload(method="pretrain", effective_time=0.9), ref, nodes, st)
    h45, _, _ = evaluate_strategy(workload(method="pretrain", effective_time=0.45), ref, nodes, st)
    assert h45 == pytest.approx(2 * h90, rel=1e-9)


def test_default_pretraining_batch_follows_the_deepseek_law():
    # DeepSeek LLM (arXiv:2401.02954 §3.1): B_opt = 0.2920 · C^0.3271 tokens. For DeepSeek-V3 on 14.8T
    # tokens, C = (6 · 37.5e9 + 12 · 61 · 4096 · 7168) FLOPs/token × 14.8e12 ≈ 3.65e24 → B ≈ 31.7M tokens
    # (the report ramps to 15,360 × 4,096 = 62.9M; same order).
    from procure.solver.sizing.profile import profile

    p = profile(workload(model="deepseek-v3", method="pretrain", tokens_b=14_800))
    c = p.flops_tok * 14.8e12
    assert p.global_tokens == pytest.approx(0.2920 * c**0.3271, rel=1e-9)
    assert 25e6 < p.global_tokens < 65e6


def test_pipeline_parallel_memory_follows_the_stage():
    # 1F1B: a GPU holds 1/pp of the weights; its first stage keeps pp micro-batches of L/pp layers in
    # flight, i.e. the activations of all L layers (Narayanan et al. 2021 §2.2) — pipelining does not
    # cut activation memory; interleaving with v virtual stages adds (pp − 1)/(pp·v) of it (Korthikanti §4.2.3).
    w = workload(model="llama-2-70b", method="pretrain")
    flat = memory_breakdown(w, Parallelism(1, 8, False, 1), 64)
    piped = memory_breakdown(w, Parallelism(1, 8, False, 1, pipeline_parallel=8, schedule="1f1b"), 64)
    inter = memory_breakdown(
        w, Parallelism(1, 8, False, 1, pipeline_parallel=8, schedule="interleaved", virtual_stages=2), 64
    )
    assert piped.weights == pytest.approx(flat.weights / 8, rel=1e-9)
    assert piped.activations == pytest.approx(flat.activations, rel=1e-9)
    logits = 4096 * 32000 * 10 / 8 / GB  # loss: full, 10 B per logit, vocab-parallel over TP8
    assert inter.activations - logits == pytest.approx((flat.activations - logits) * (1 + 7 / 16), rel=1e-9)


def test_long_context_is_rejected_honestly():
    w = workload(model="llama-2-7b", method="full", seq_len=1_048_576)
    c = shape(size_workload(w, [offer()], SETTINGS, None), 1)
    assert not c.fits and "context parallelism" in c.reason


def test_inline_moe_without_layout_warns_and_is_sized_as_before(tmp_path):
    from procure.models.project import load_project

    path = tmp_path / "w.yaml"
    path.write_text(
        "name: x\nworkloads:\n  - name: moe\n    model: {params_b: 16, active_params_b: 3, layers: 28, hidden_size: 2048,"
        " heads: 16, ffn_hidden_size: 11264, vocab_size: 102400}\n    method: full\n    tokens_b: 1\n    deadline_days: 30\n"
    )
    project, warnings = load_project(path)
    assert any(w.warning and "expert parallelism" in w.message for w in warnings)
    c = shape(size_workload(project.workloads[0], [offer()], SETTINGS, None), 2)
    assert c.strategy is None or c.strategy.expert_parallel == 1


# --- offload and low-memory optimizers -----------------------------------------------------------------
# Llama-2-7B preset: P = 6.738e9 params. RTX 4090 datasheet: PCIe 4.0 x16, 64 GB/s both ways = 32 GB/s per
# direction; 75 % achieved (DeepSpeed issue #1137: 12 of 16 GB/s) = 24 GB/s. Desktop host: dual-channel
# DDR5-5600 = 2 × 8 B × 5.6 GT/s = 89.6 GB/s.

P7 = 6.738e9


def test_7b_full_finetune_on_one_4090_needs_zero_offload_and_the_host_ram_for_it(tmp_path):
    import json

    from typer.testing import CliRunner

    from procure.cli import app

    path = tmp_path / "ft.yaml"
    path.write_text(
        "name: ft\nworkloads:\n  - name: ft-7b\n    model: llama-2-7b\n    method: full\n    tokens_b: 0.1\n"
        "    seq_len: 2048\n    deadline_days: 60\n"
    )
    res = CliRunner().invoke(app, ["size", str(path), "--gpu", "RTX-4090-24GB", "--gpus", "1", "--json", "-"])
    assert res.exit_code == 0, res.output
    (c,) = json.loads(res.output)["workloads"][0]["candidates"]
    # the reference box of one 4090 has 2 × 24 = 48 GB of host RAM: the offload layout is refused for it
    assert not c["fits"] and c["strategy"]["offload"] is True
    assert "host RAM 48 GB <" in c["reason"] and "ZeRO-Offload" in c["reason"]
    # on the GPU only the bf16 weights stay: 2 B × P; gradients and optimizer state are on the host
    assert c["memory_gb"]["weights"] == pytest.approx(2 * P7 / GB, rel=1e-6)
    assert c["memory_gb"]["gradients"] == 0 and c["memory_gb"]["optimizer"] == 0
    # host RAM: 16 GB system + 8 GB per GPU + the staged bf16 weights 2P + offloaded 16 B × 1.5 × P
    assert c["host_ram_gb"] == pytest.approx(16 + 8 + (2 + 24) * P7 / GB, rel=1e-6)
    table = CliRunner().invoke(app, ["size", str(path), "--gpu", "RTX-4090-24GB", "--gpus", "1"])
    assert "ZeRO-" in table.output and "host RAM" in table.output  # the console shows host RAM per node


def test_offload_step_costs_the_modelled_pcie_and_cpu_time():
    # Same strategy with and without offload on one 4090 (without offload it would not fit: this is the
    # hypothetical card that fits without offload). Per optimizer step the offload adds bf16 gradients down
    # and bf16 weights up, 2 × 2 B × P / 24 GB/s = 1.123 s, and the CPU Adam pass, 30 B × P / 89.6 GB/s =
    # 2.256 s. Steps = 0.1e9 tokens / 1e6 tokens per step (full fine-tuning batch) = 100; the goodput model's
    # wall hours per in-step hour on one GPU: 1 + 0.05 overhead + 1 × 2.195e-5 interruptions × (4 h / 2 + 0.1 h)
    # (a checkpoint every 4 h, the default), ÷ the execution factor.
    w = workload(model="llama-2-7b", method="full", tokens_b=0.1, seq_len=2048)
    ref, nodes = reference_offer("RTX-4090-24GB", 1)
    plain = Parallelism(2, 1, True, 1)
    off = Parallelism(2, 1, True, 1, optimizer="adam", offload=True)
    h0, _, _ = evaluate_strategy(w, ref, nodes, plain)
    h1, _, _ = evaluate_strategy(w, ref, nodes, off)
    per_step = 4 * P7 / 24e9 + 30 * P7 / 89.6e9
    e = constant("EXECUTION_FACTOR")
    assert h1 - h0 == pytest.approx(100 * per_step * (1.05 + 2.195e-5 * 2.1) / e / 3600, rel=1e-6)
    assert h1 > h0


def test_eight_bit_adam_state_and_the_plainer_optimizer_wins_when_both_fit():
    # 8-bit Adam: 4 B fp32 master + 1 + 1 B moments = 6 B/param (bitsandbytes); on one GPU nothing is sharded.
    w = workload(model="llama-2-7b", method="full", seq_len=2048)
    m = memory_breakdown(w, Parallelism(0, 1, True, 1, optimizer="adam8bit"), 1)
    assert m.optimizer == pytest.approx(6 * P7 / GB, rel=1e-6)
    assert m.weights == pytest.approx(2 * P7 / GB, rel=1e-6) and m.gradients == pytest.approx(2 * P7 / GB, rel=1e-6)
    # where plain Adam fits (8 × H100, ZeRO), neither 8-bit Adam nor offload is picked
    c = on_reference(w, "H100-SXM-80GB", 8)
    assert c.fits and c.strategy.optimizer == "adam" and not c.strategy.offload
    # one H100: plain Adam's 16 B/param (108 GB) cannot fit 85.5 GB, 8-bit Adam's 10 B/param (67 GB) can,
    # so 8-bit Adam is picked before offload
    one = on_reference(w, "H100-SXM-80GB", 1)
    assert one.fits and one.strategy.optimizer == "adam8bit" and not one.strategy.offload


def test_7b_lora_fits_a_4090_box_with_32_gb_of_host_ram():
    # Llama-2-7B LoRA r=16 on q, k, v, o, gate, up, down: per layer 4 × (4096 + 4096) + 3 × (4096 + 11008)
    # = 78,080 × 16 = 1,249,280; × 32 layers = 39,976,960 adapter params (REFERENCE 1g: 40.0M). The
    # checkpoint staged in host RAM is the adapter's bf16 weights + fp32 master/Adam, 14 B per adapter param
    # = 0.56 GB, not the 13.5 GB frozen base: 16 + 8 + 0.56 = 24.56 GB ≤ 32 GB.
    a = 39_976_960
    box = offer(
        id="box-4090",
        gpu="RTX-4090-24GB",
        gpus_per_node=1,
        intra_node="pcie",
        inter_node="none",
        inter_node_rails=1,
        ram_gb=32,
        nvme_tb=1,
        cpu_cores=8,
        max_nodes=1,
        price_per_node_hour=0.5,
    )
    w = workload(model="llama-2-7b", method="lora", seq_len=2048)
    c = shape(size_workload(w, [box], SETTINGS, None), 1)
    assert c.fits, c.reason
    assert c.host_ram_gb == pytest.approx(16 + 8 + 14 * a / GB, rel=1e-6)
    # NVMe: 2 checkpoints of 14 B × A, far below the box's 1 TB
    small = box.model_copy(update={"ram_gb": 24})
    c2 = shape(size_workload(w, [small], SETTINGS, None), 1)
    assert not c2.fits and "host RAM" in c2.reason


# --- achieved efficiency per GPU family ------------------------------------------------------------------


def test_mi300x_gets_its_measured_speed_not_its_datasheet_ratio():
    # A one-GPU job has no communication, so hours ∝ 1 / (peak × MFU). Datasheets alone would make MI300X
    # 1,307.4 / 989.4 = 1.32× faster than H100. The published BF16 measurement (H200, H100's compute, trains
    # an 8B model 1.32–1.40× faster than MI300X; REFERENCE 5b) is what the CDNA3 MFU carries: MI300X hours
    # ≈ 1.36 × H100 hours in step (the job's one-off JOB_STARTUP_HOURS of 0.5 is the same on both), whatever
    # value MFU_HOPPER is fitted to: MFU_CDNA3 is derived from it (test_derived_mfu_constants_follow_their_fit).
    w = workload(model="llama-2-7b", method="lora", tokens_b=0.01, seq_len=2048)
    h100 = on_reference(w, "H100-SXM-80GB", 1)
    mi = on_reference(w, "MI300X-192GB", 1)
    assert (mi.hours - 0.5) / (h100.hours - 0.5) == pytest.approx(1.36, rel=0.02)
    from procure.solver.sizing.compute import mfu_basis

    assert mfu_basis(gpu_table()["MI300X-192GB"], "full") == "MFU_CDNA3 × hidden-size factor (MFU_HIDDEN_HALF_HOPPER)"


def test_derived_mfu_constants_follow_their_fit():
    # constants.yaml derives these from the fitted families, so a refit of MFU_AMPERE or MFU_HOPPER must
    # carry over (a merge once left MFU_CDNA3 on the Hopper value before the refit, 0.541 instead of 0.515).
    c = {n: constant(n) for n in ("MFU_AMPERE", "MFU_HOPPER", "MFU_ADA", "MFU_BLACKWELL", "MFU_BLACKWELL_RTX")}
    c |= {n: constant(n) for n in ("MFU_CDNA3", "MFU_CDNA4", "FP8_GEMM_EFFICIENCY", "FP8_GEMM_EFFICIENCY_CDNA3")}
    # assumptions "taken equal to the fitted value" of the nearest measured family
    assert c["MFU_ADA"] == c["MFU_AMPERE"]
    assert c["MFU_BLACKWELL"] == c["MFU_BLACKWELL_RTX"] == c["MFU_HOPPER"]
    assert c["MFU_CDNA4"] == c["MFU_CDNA3"]
    # MI300X (1,307.4 TFLOP/s BF16) runs 1 / 1.36 of an H200's (989.4) speed in BF16 (REFERENCE 5b):
    # MFU_CDNA3 = MFU_HOPPER × 989.4 / 1.36 / 1,307.4, to the table's three decimals
    assert c["MFU_CDNA3"] == pytest.approx(c["MFU_HOPPER"] * 989.4 / 1.36 / 1307.4, abs=5e-4)
    # FP8 (ROCm/TransformerEngine issue #79, Llama-3-8B FSDP on 8 GPUs): 474 TFLOP/s per MI300X against
    # 897.56 per H200, 0.528. The FP8/BF16 peak ratios are 2,614.9 / 1,307.4 = 2 and 1,979 / 989.4 = 2, so
    # the engine's FP8 GEMM rates are MFU × peak × 2 × the family's FP8 efficiency; their ratio must be the
    # measured one (the hidden-size factor is the same on both sides).
    mi = c["MFU_CDNA3"] * 1307.4 * 2 * c["FP8_GEMM_EFFICIENCY_CDNA3"]
    h200 = c["MFU_HOPPER"] * 989.4 * 2 * c["FP8_GEMM_EFFICIENCY"]
    assert mi / h200 == pytest.approx(474 / 897.56, rel=0.01)


def test_no_flash_attention_stores_the_attention_matrix():
    # Korthikanti et al. 2022 Table 2: without fused attention a layer also keeps 5·a·s/h × s·b·h bytes.
    # Llama-2-7B, s = 2048, b = 1, no TP: 5 × 32 × 2048 / 4096 = 80 → 80 × 2048 × 4096 B = 0.671 GB per layer.
    flash = memory_breakdown(workload(seq_len=2048), Parallelism(0, 1, False, 1), 1)
    eager = memory_breakdown(workload(seq_len=2048, flash_attention=False), Parallelism(0, 1, False, 1), 1)
    assert eager.activations - flash.activations == pytest.approx(32 * 80 * 2048 * 4096 / GB, rel=1e-9)


def test_a100_alias_warns_that_it_chose_80gb_sxm(tmp_path):
    from typer.testing import CliRunner

    from procure.cli import app

    path = tmp_path / "w.yaml"
    path.write_text(
        "name: w\nworkloads:\n  - name: j\n    model: llama-2-7b\n    method: lora\n    tokens_b: 0.1\n    deadline_days: 30\n"
    )
    res = CliRunner().invoke(app, ["size", str(path), "--gpu", "a100", "--gpus", "8"])
    assert res.exit_code == 0, res.output
    assert "A100-SXM-80GB" in res.output and "A100-SXM-40GB" in res.output
    assert gpu_table().alias_note("A100-SXM-80GB") is None
    assert gpu_table().resolve("A800") == "A800-SXM-80GB"


def test_hours_band_in_the_json():
    from procure.solver.sizing.constants import constant

    w = workload(model="llama-2-7b", method="lora", tokens_b=50, seq_len=2048)
    c = sizing_to_json([size_workload(w, [reference_offer("H100-SXM-80GB", 8)[0]], SETTINGS, None)])["workloads"][0][
        "candidates"
    ][-1]
    assert c["hours_p10"] == pytest.approx(c["hours"] * constant("HOURS_BAND_P10"), rel=1e-3)
    assert c["hours_p90"] == pytest.approx(c["hours"] * constant("HOURS_BAND_P90"), rel=1e-3)
    assert c["hours_p10"] < c["hours"] < c["hours_p90"]


def test_a100_in_a_catalog_and_in_allowed_gpus_warns(tmp_path):
    from procure.models.project import load_project
    from procure.offers.catalog import load_catalog

    cat = tmp_path / "offers.yaml"
    cat.write_text(
        "offers:\n  - {id: a, vendor: v, mode: cloud, region: us-east, gpu: A100, gpus_per_node: 8, intra_node: nvswitch, "
        "inter_node: ib-hdr, inter_node_rails: 8, ram_gb: 1024, nvme_tb: 10, cpu_cores: 64, max_nodes: 2, "
        "price_per_node_hour: 20, source: q, quoted_on: 2026-11-01}\n"
    )
    (w,) = [x for x in load_catalog([cat]).warnings if x.field == "gpu"]
    assert "A100-SXM-80GB" in w.message and w.warning
    proj = tmp_path / "w.yaml"
    proj.write_text(
        "name: w\nworkloads:\n  - {name: j, model: llama-2-7b, method: lora, tokens_b: 1, deadline_days: 30, allowed_gpus: [a100, H200-SXM-141GB]}\n"
    )
    _p, warnings = load_project(proj)
    assert [x.field for x in warnings] == ["workloads[0].allowed_gpus[0]"]
