"""The GPU table a 2027 buyer prices (issue 51, part 6): the new rows with their datasheet figures, L20 FP8,
the huawei vendor, and rack-scale GPU-link domains (GB200/GB300 NVL72, CloudMatrix 384) that let tensor and
expert parallelism span several nodes at the GPU link while an 8-GPU HGX node stays the bound elsewhere.

Every expected figure is written from the cited public source with the arithmetic spelled out, not read back
from the table."""

from __future__ import annotations

import json

import pytest

from procure.common.errors import InputError
from procure.models.gpu import gpu_table, load_gpu_table
from procure.offers.price_band import band
from procure.solver.sizing.compute import a2a_s
from procure.solver.sizing.fit import precision_reason
from procure.solver.sizing.profile import profile
from procure.solver.sizing.reference import reference_offer
from procure.solver.sizing.results import Parallelism
from procure.solver.sizing.search import _layouts
from procure.solver.sizing.shapes import _shape, evaluate_strategy, scale_up_gpus, size_workload

from helpers import ROOT, cli, project, workload

# id: (vendor, architecture, memory GB, bandwidth GB/s, dense BF16, dense FP8 or None, GPU link GB/s, TDP W,
#      GPUs per node, scale-up domain or None) — each figure from the row's cited source, derivations written out
NEW_ROWS = {
    # HGX B300: 36 PF BF16 / 72 PF FP8 with sparsity for 8 GPUs; 270 GB as MLPerf v6.0 names the part; 1.1 kW
    "B300-SXM-270GB": ("nvidia", "blackwell", 270, 8000, 36_000 / 8 / 2, 72_000 / 8 / 2, 1800, 1100, 8, None),
    # GB200 NVL72: 13.4 TB and 576 TB/s per 72 GPUs; 720 PF FP8 sparse per rack; 1,200 W; trays of 4
    "GB200-NVL72-186GB": ("nvidia", "blackwell", 186, 576_000 / 72, 2500, 720_000 / 72 / 2, 1800, 1200, 4, 72),
    # GB300 NVL72: 279 GB, 8 TB/s, 360 PF FP8 dense per rack, 1.4 kW; trays of 4
    "GB300-NVL72-279GB": ("nvidia", "blackwell", 279, 8000, 2500, 360_000 / 72, 1800, 1400, 4, 72),
    # RTX 5090: FP16 838 sparse with FP16 accumulate -> /2 sparsity /2 FP32 accumulate; 575 W; PCIe 5.0 only
    "RTX-5090-32GB": ("nvidia", "blackwell_rtx", 32, 1792, 838 / 2 / 2, 838 / 2, 128, 575, 8, None),
    # RTX PRO 6000 Server Edition: 4,000 AI TOPS = FP4 sparse -> FP8 dense /4, BF16 dense /8; 600 W
    "RTX-PRO-6000-96GB": ("nvidia", "blackwell_rtx", 96, 1597, 4000 / 8, 4000 / 4, 128, 600, 8, None),
    # MI350X: 256 CUs x 4,096 BF16 (8,192 FP8) FLOP/clk x 2.2 GHz; 7 IF links x 153.6 GB/s; 1,000 W
    "MI350X-288GB": (
        "amd",
        "cdna4",
        288,
        8000,
        256 * 4096 * 2.2e9 / 1e12,
        256 * 8192 * 2.2e9 / 1e12,
        7 * 153.6,
        1000,
        8,
        None,
    ),
    # MI355X: the same at 2.4 GHz; 1,400 W
    "MI355X-288GB": (
        "amd",
        "cdna4",
        288,
        8000,
        256 * 4096 * 2.4e9 / 1e12,
        256 * 8192 * 2.4e9 / 1e12,
        7 * 153.6,
        1400,
        8,
        None,
    ),
    # Ascend 910B: 64 GB, half the 910C's 3.2 TB/s, ~320 TFLOP/s (estimate), HCCS 392 GB/s, no FP8
    "ASCEND-910B-64GB": ("huawei", "davinci", 64, 3200 / 2, 320, None, 392, 400, 8, None),
    # Ascend 910C: 128 GB, 3.2 TB/s, 780 TFLOP/s BF16, 784 GB/s, CloudMatrix 384 = 48 nodes of 8
    "ASCEND-910C-128GB": ("huawei", "davinci", 128, 3200, 780, None, 784, 750, 8, 48 * 8),
    # H20 141 GB: the H20's compute (148 / 296) on the H200's HBM3e (4.8 TB/s, estimate)
    "H20-141GB": ("nvidia", "hopper", 141, 4800, 148, 296, 900, 400, 8, None),
    # H200 NVL: 1,671 BF16 / 3,341 FP8 with sparsity; 600 W; NVLink bridge 900 GB/s
    "H200-NVL-141GB": ("nvidia", "hopper", 141, 4800, 1671 / 2, 3341 / 2, 900, 600, 8, None),
    # L4: 242 BF16 / 485 FP8 with sparsity; 300 GB/s; 72 W
    "L4-24GB": ("nvidia", "ada", 24, 300, 242 / 2, 485 / 2, 64, 72, 8, None),
    # A10G: 24 GB, 600 GB/s, 70 TFLOP/s dense (estimate), Ampere: no FP8; 300 W
    "A10G-24GB": ("nvidia", "ampere", 24, 600, 70, None, 64, 300, 8, None),
}


@pytest.mark.parametrize("gid", sorted(NEW_ROWS))
def test_each_new_gpu_has_its_cited_figures(gid):
    vendor, arch, mem, bw, bf16, fp8, link, tdp, gpn, domain = NEW_ROWS[gid]
    g = gpu_table()[gid]
    assert (g.vendor, g.architecture) == (vendor, arch)
    assert g.memory_gb == pytest.approx(mem)
    assert g.memory_bandwidth_gbs == pytest.approx(bw)
    assert g.bf16_dense_tflops == pytest.approx(bf16, abs=0.1)
    assert g.fp8_dense_tflops == (None if fp8 is None else pytest.approx(fp8, abs=0.1))
    assert g.gpu_link_gbs == pytest.approx(link)
    assert g.tdp_w == tdp
    assert (g.default_gpus_per_node, g.scale_up_domain_gpus) == (gpn, domain)
    # every row says where its figures come from, with a dated public source or the datasheet it names
    assert "read 2026-12-06" in g.source or "datasheet" in g.source
    if fp8 is not None:
        assert g.fp8_source


def test_the_common_names_resolve_to_the_new_rows():
    t = gpu_table()
    assert t.resolve("B300") == "B300-SXM-270GB"
    assert t.resolve("GB200 NVL72") == "GB200-NVL72-186GB"
    assert t.resolve("gb300") == "GB300-NVL72-279GB"
    assert t.resolve("RTX 5090") == "RTX-5090-32GB"
    assert t.resolve("RTX PRO 6000 Blackwell") == "RTX-PRO-6000-96GB"
    assert t.resolve("MI355X") == "MI355X-288GB"
    assert t.resolve("Ascend 910B") == "ASCEND-910B-64GB"
    assert t.resolve("CloudMatrix384") == "ASCEND-910C-128GB"
    assert t.resolve("H200 NVL") == "H200-NVL-141GB"
    assert t.resolve("L4") == "L4-24GB"
    assert t.resolve("A10G") == "A10G-24GB"
    # the bare H20 stays the 96 GB part; the 141 GB part needs its own name
    assert t.resolve("H20") == "H20-96GB"
    assert t.resolve("H20-141GB") == "H20-141GB"


def test_mi325x_is_sized_apart_from_mi300x():
    """AMD: MI325X 256 GB HBM3E at 6.0 TB/s and about 1,000 W against MI300X 192 GB at 5.3 TB/s and 750 W;
    the same CDNA3 compute (1,307.4 TFLOP/s BF16 dense)."""
    t = gpu_table()
    a, b = t["MI300X-192GB"], t["MI325X-256GB"]
    assert (a.memory_gb, a.memory_bandwidth_gbs, a.tdp_w) == (192, 5300, 750)
    assert (b.memory_gb, b.memory_bandwidth_gbs, b.tdp_w) == (256, 6000, 1000)
    assert a.bf16_dense_tflops == b.bf16_dense_tflops == 1307.4


# --- L20 FP8 ------------------------------------------------------------------------------------


def test_l20_runs_fp8_at_its_int8_rate():
    """Ada's FP8 tensor rate equals its INT8 rate; the L20's source gives INT8 239 TOPS dense, twice its
    BF16 119 TFLOP/s (2 x 119 = 238, the INT8 figure rounded up). On main the row had no FP8 figure and fp8 was refused."""
    g = gpu_table()["L20-48GB"]
    assert g.fp8_dense_tflops == 239
    pr = project([workload(model="llama-2-7b", method="full", precision="fp8")])
    assert precision_reason(profile(pr.workloads[0], pr.sizing), g) is None


def test_an_ampere_or_ascend_card_still_refuses_fp8():
    pr = project([workload(model="llama-2-7b", method="full", precision="fp8")])
    p = profile(pr.workloads[0], pr.sizing)
    for gid in ("A10G-24GB", "ASCEND-910B-64GB"):
        reason = precision_reason(p, gpu_table()[gid])
        assert reason is not None and "no FP8 tensor cores" in str(reason.message)


# --- vendors ------------------------------------------------------------------------------------


def test_the_huawei_vendor_loads():
    huawei = sorted(g.id for g in gpu_table() if g.vendor == "huawei")
    assert huawei == ["ASCEND-910B-64GB", "ASCEND-910C-128GB"]


def _table_with(tmp_path, old: str, new: str):
    text = (ROOT / "models" / "data" / "gpus.yaml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "gpus.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def test_a_bad_vendor_is_refused_with_file_line_field_and_the_allowed_values(tmp_path):
    path = _table_with(tmp_path, "vendor: huawei", "vendor: intel")
    with pytest.raises(InputError) as exc:
        load_gpu_table(path)
    msg = str(exc.value)
    line = next(i for i, s in enumerate(path.read_text().splitlines(), 1) if "vendor: intel" in s)
    assert f"{path}:{line}" in msg
    assert "vendor" in msg and "'intel'" in msg
    assert "'nvidia'" in msg and "'amd'" in msg and "'huawei'" in msg


def test_a_domain_that_splits_a_node_is_refused(tmp_path):
    path = _table_with(tmp_path, "scale_up_domain_gpus: 72", "scale_up_domain_gpus: 70")
    with pytest.raises(InputError) as exc:
        load_gpu_table(path)
    assert "scale_up_domain_gpus 70 must be a whole number of nodes of default_gpus_per_node 4" in str(exc.value)


# --- rack-scale domains -------------------------------------------------------------------------


def _ref_shape(gid: str, gpus: int):
    o, nodes = reference_offer(gid, gpus)
    g = gpu_table()[gid]
    return g, o, nodes, _shape(g, o, nodes, 0.5)


def test_a_domain_groups_whole_nodes_that_divide_the_job():
    g, o, _n, _sh = _ref_shape("GB200-NVL72-186GB", 64)
    assert o.gpus_per_node == 4  # a GB200 NVL72 compute tray
    # 16 trays = 64 GPUs fit one 72-GPU rack; 18 trays = the whole rack
    assert scale_up_gpus(g, o, 16) == 64
    assert scale_up_gpus(g, o, 18) == 72
    # 24 trays (96 GPUs) cannot sit in one rack: two even groups of 12 trays = 48 GPUs
    assert scale_up_gpus(g, o, 24) == 48
    # 19 trays (prime): no even split within 18 trays -> each tray alone
    assert scale_up_gpus(g, o, 19) == 4
    # an HGX B200 node is its own domain
    b, ob, _n, _sh = _ref_shape("B200-SXM-180GB", 64)
    assert scale_up_gpus(b, ob, 8) == 8
    # CloudMatrix 384: 48 nodes of 8 Ascend 910C in one domain
    c, oc, nodes, _sh = _ref_shape("ASCEND-910C-128GB", 384)
    assert (nodes, scale_up_gpus(c, oc, nodes)) == (48, 384)


def test_tensor_parallel_spans_trays_of_an_nvl72_rack_but_not_hgx_nodes():
    """Llama 2 70B (64 heads) on 64 GPUs: on GB200 NVL72 (16 trays of 4 in one NVLink domain) the search tries
    TP 16, 32 and 64; on HGX B200 (8 nodes of 8) TP stops at the node's 8."""
    pr = project([workload(model="llama-2-70b", method="pretrain", tokens_b=10)])
    p = profile(pr.workloads[0], pr.sizing)
    _g, _o, _n, gb200 = _ref_shape("GB200-NVL72-186GB", 64)
    _g, _o, _n, b200 = _ref_shape("B200-SXM-180GB", 64)
    assert sorted({lay[0] for lay in _layouts(p, gb200)}) == [1, 2, 4, 8, 16, 32, 64]
    assert sorted({lay[0] for lay in _layouts(p, b200)}) == [1, 2, 4, 8]
    # a TP16 layout is timed on GB200 (TP traffic over NVLink) and refused on HGX B200
    wl = pr.workloads[0]
    st = Parallelism(zero_stage=1, tensor_parallel=16, checkpointing=True, micro_batch=1, pipeline_parallel=1)
    o, nodes = reference_offer("GB200-NVL72-186GB", 64)
    hours, _eff, _mem = evaluate_strategy(wl, o, nodes, st, pr.sizing)
    assert hours > 0
    o, nodes = reference_offer("B200-SXM-180GB", 64)
    with pytest.raises(ValueError, match="per GPU-link domain"):
        evaluate_strategy(wl, o, nodes, st, pr.sizing)


def test_a_pinned_tensor_parallel_is_checked_against_the_gpu_link_domain():
    """A workload that pins TP16 (Llama 2 70B, 64 heads) on 64 GPUs: on GB200 NVL72 the 16 trays of 4 are one
    64-GPU NVLink domain (scale_up_gpus), so TP16 is a placement and the layout is sized as pinned; on HGX
    B200 the domain is the 8-GPU node, and the refusal names that domain. Pinning TP16 with PP3 on the
    NVL72 shape fails only on the product, 16 × 3 = 48 not dividing 64: TP16 itself divides the 64-GPU
    domain, so the reason must not call it larger than a 4-GPU tray."""
    settings = project([workload(model="llama-2-70b", method="pretrain", tokens_b=10)]).sizing

    def sized(gid: str, layout: dict):
        pr = project([workload(model="llama-2-70b", method="pretrain", tokens_b=10, layout=layout)])
        o, nodes = reference_offer(gid, 64)
        (c,) = [c for c in size_workload(pr.workloads[0], [o], settings, None).candidates if c.gpus == 64]
        return c

    nvl = sized("GB200-NVL72-186GB", {"tensor_parallel": 16})
    assert nvl.fits, nvl.reason
    assert nvl.strategy.tensor_parallel == 16
    hgx = sized("B200-SXM-180GB", {"tensor_parallel": 16})
    assert not hgx.fits
    assert "tensor_parallel 16 must divide the 8 GPUs of a GPU-link domain" in hgx.reason
    odd = sized("GB200-NVL72-186GB", {"tensor_parallel": 16, "pipeline_parallel": 3})
    assert not odd.fits
    assert "tensor_parallel 16 × context_parallel 1 × pipeline_parallel 3 = 48 does not divide 64 GPUs" in odd.reason
    assert "must divide the" not in odd.reason


def test_expert_parallel_16_runs_on_nvlink_inside_nvl72_and_over_the_fabric_across_hgx_nodes():
    """DeepSeek-V2-Lite (h 2048, top-6 of 64 experts, 26 MoE layers), EP16, TP1, PP1, on 64 GPUs, per token and
    MoE layer: c = min(6, 16) = 6 copies of h values, 1 (FP8) or 2 bytes dispatch + 2 combine + 2 + 2 backward
    = 8 bytes in bf16, so 6 x 2048 x 8 bytes.

    GB200 NVL72: all 16 EP ranks inside the 64-GPU NVLink domain -> every copy at the GPU link, 1,800 / 2 =
    900 GB/s per direction. HGX B200: 16 ranks span two 8-GPU nodes -> half of the copies (3) leave the node,
    at the GPU's share of NDR: 8 rails x 400 Gb/s / 8 bits / 8 GPUs = 50 GB/s, slower than the NVLink part."""
    pr = project([workload(model="deepseek-v2-lite", method="pretrain", tokens_b=10)])
    p = profile(pr.workloads[0], pr.sizing)
    tokens = 1e6
    per_copy = 2048 * 8
    _g, _o, _n, gb200 = _ref_shape("GB200-NVL72-186GB", 64)
    nvlink = tokens * 26 * 6 * per_copy / 900e9
    assert a2a_s(p, tokens, 1, 1, 16, gb200, False) == pytest.approx(nvlink)
    _g, _o, _n, b200 = _ref_shape("B200-SXM-180GB", 64)
    fabric = tokens * 26 * 3 * per_copy / 50e9
    assert a2a_s(p, tokens, 1, 1, 16, b200, False) == pytest.approx(fabric)
    assert fabric == pytest.approx(9 * nvlink)  # (3 / 50) / (6 / 900) = 9: EP across HGX nodes is 9x slower
    # and the search offers EP 16, 32 and 64 on the NVL72 shape
    assert {16, 32, 64} <= {lay[2] for lay in _layouts(p, gb200)}


# --- the CLI and the price band -----------------------------------------------------------------


def test_procure_size_lists_every_new_gpu(tmp_path):
    wl = tmp_path / "w.yaml"
    wl.write_text(
        "name: p\nstart_date: 2027-01-01\nhorizon_months: 12\nworkloads:\n"
        "  - {name: ft, model: llama-2-7b, method: lora, tokens_b: 0.1, deadline_days: 60}\n",
        encoding="utf-8",
    )
    res = cli("size", wl, "--gpu", ",".join(sorted(NEW_ROWS)), "--gpus", "8", "--json", "-")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    seen = {c["gpu"] for w in data["workloads"] for c in w["candidates"]}
    assert seen == set(NEW_ROWS)


#: dated public prices (2026-12) per GPU-hour: node price / GPUs per node
PUBLIC_PRICES = {
    "B300-SXM-270GB": [142.416 / 8, 120.0 / 8],  # AWS p6-b300.48xlarge; OCI BM.GPU.B300
    "RTX-PRO-6000-96GB": [36.0 / 8, 33.14432 / 8],  # OCI bare metal; AWS g7e.48xlarge
    "MI355X-288GB": [68.80 / 8],  # OCI
    "RTX-5090-32GB": [0.48, 4.53 / 8],  # vast.ai 1x, 8x
    "GB200-NVL72-186GB": [64.0 / 4],  # OCI 4-GPU
    "GB300-NVL72-279GB": [72.0 / 4],  # OCI 4-GPU
}


@pytest.mark.parametrize("gid", sorted(NEW_ROWS))
def test_the_price_band_covers_the_new_rows(gid):
    """reference per GPU-hour = 1.6 x dense BF16 PFLOP/s + 0.005 x memory GB; the band is 1/8 to 20 x that.
    A B300: 1.6 x 2.25 + 0.005 x 270 = 4.95 an hour; AWS's 17.80 is 3.6 x."""
    _v, _a, mem, _bw, bf16, *_rest = NEW_ROWS[gid]
    ref = 1.6 * bf16 / 1000 + 0.005 * mem
    b = band(gid, "hour")
    assert b.reference == pytest.approx(ref, rel=1e-3)
    for price in PUBLIC_PRICES.get(gid, []):
        assert b.floor <= price <= b.ceiling, (gid, price, b.floor, b.ceiling)


def test_mfu_davinci_reproduces_pangu_ultra_moe_published_mfu():
    # MFU_DAVINCI is derived from one published Ascend run: Pangu Ultra MoE at 30.0 % MFU on 6K Ascend NPUs
    # (arXiv:2505.04519). The model as the paper gives it: 718B total / 39B active, 61 layers, the first 3
    # dense, hidden 7,680, 256 routed experts of FFN 2,048, 8 per token, 1 shared. By hand, the routed experts
    # are 58 × 256 × 3 × 7,680 × 2,048 = 700.62e9 params and the rest 718e9 − that = 17.38e9, so the active
    # count is 17.38e9 + 58 × 8 × 3 × 7,680 × 2,048 = 39.28e9 (the published 39B). Sized as pre-training at
    # sequence 4,096 on 6,144 × 910B (768 reference nodes) with the engine's own layout, the engine's one MFU
    # (model FLOPs with causal attention × tokens/s ÷ dense BF16 peak, in step) must be the published 30.0 %.
    from procure.models.project import SizingSettings, Workload
    from procure.solver.sizing import size_workload

    routed = 58 * 256 * 3 * 7680 * 2048
    assert routed == pytest.approx(700.62e9, rel=1e-4)
    assert 718e9 - routed + 58 * 8 * 3 * 7680 * 2048 == pytest.approx(39.28e9, rel=1e-3)
    model = dict(
        params_b=718,
        active_params_b=39,
        layers=61,
        hidden_size=7680,
        heads=128,
        kv_heads=128,
        ffn_hidden_size=18432,
        vocab_size=153376,
        experts=256,
        experts_per_token=8,
        shared_experts=1,
        expert_ffn_hidden_size=2048,
        dense_layers=3,
        dense_ffn_hidden_size=18432,
    )
    w = Workload.model_validate(
        dict(name="pangu", model=model, method="pretrain", tokens_b=10000, seq_len=4096, deadline_days=10000)
    )
    ref, nodes = reference_offer("ASCEND-910B-64GB", 6144)
    assert nodes == 768
    (c,) = [
        c for c in size_workload(w, [ref], SizingSettings(max_nodes_per_job=10000), None).candidates if c.nodes == nodes
    ]
    assert c.fits, c.reason
    assert c.in_step_mfu == pytest.approx(0.300, abs=0.005)
