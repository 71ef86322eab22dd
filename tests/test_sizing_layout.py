"""Issue 51: memory per layout from first principles (tensor, sequence and context parallelism; stored
checkpoints as the framework shards them), a pinned layout, host RAM as a fit rule, and "how many GPUs".

Every expected number is worked by hand in the test from the paper's formula or the datasheet."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from procure.cli import app
from procure.models.project import SizingSettings, Workload
from procure.models.units import GB, GIB
from procure.solver.sizing import Parallelism, memory_breakdown, reference_offer, size_workload
from procure.solver.sizing.memory import layer_activation_bytes
from procure.solver.sizing.profile import profile

SETTINGS = SizingSettings()

# GPT-3 175B's shape (Korthikanti et al. 2022, arXiv:2205.05198, Table 3): h 12288, a 96, L 96, GELU
# MLP f = 4h (so c = 34, the paper's coefficient), V 51200; s 2048, b 1, t 8.
GPT3 = dict(params_b=175, layers=96, hidden_size=12288, heads=96, ffn_hidden_size=4 * 12288, vocab_size=51200)


def workload(model="llama-2-7b", method="full", tokens_b=1.0, seq_len=4096, **kw) -> Workload:
    data = dict(name="job", model=model, method=method, tokens_b=tokens_b, seq_len=seq_len, deadline_days=1000)
    data.update(kw)
    return Workload.model_validate(data)


def test_korthikanti_table_2_with_and_without_sequence_parallelism():
    # Table 2, per layer, with the attention matrix (no flash attention) and tensor parallel t:
    #   TP without SP: s·b·h·(10 + 24/t + 5·a·s/(h·t));   TP with SP: s·b·h·(34/t + 5·a·s/(h·t)).
    # s·b·h = 2048 × 1 × 12288 = 25,165,824; 5·a·s/(h·t) = 5 × 96 × 2048 / (12288 × 8) = 10.
    # Without SP: 10 + 24/8 + 10 = 23 → 578,813,952 B; with SP: 34/8 + 10 = 14.25 → 358,612,992 B.
    p = profile(workload(model=GPT3, method="pretrain", seq_len=2048, flash_attention=False))
    assert p.act_coef == pytest.approx(34.0)
    assert layer_activation_bytes(p, 8, 1, sp=False) == pytest.approx(25_165_824 * 23, rel=1e-12)
    assert layer_activation_bytes(p, 8, 1, sp=True) == pytest.approx(25_165_824 * 14.25, rel=1e-12)
    # with flash attention (the default) the 5·a·s/(h·t) term is not stored: 10 + 24/8 = 13 and 34/8 = 4.25
    q = profile(workload(model=GPT3, method="pretrain", seq_len=2048))
    assert layer_activation_bytes(q, 8, 1, sp=False) == pytest.approx(25_165_824 * 13, rel=1e-12)
    assert layer_activation_bytes(q, 8, 1, sp=True) == pytest.approx(25_165_824 * 4.25, rel=1e-12)
    # SP is the default under TP (Megatron --sequence-parallel); with t = 1 there is nothing to shard: 34
    assert layer_activation_bytes(q, 8, 1) == layer_activation_bytes(q, 8, 1, sp=True)
    assert layer_activation_bytes(q, 1, 1) == pytest.approx(25_165_824 * 34, rel=1e-12)
    # context parallelism cp = 2 gives each GPU s/2 = 1024 tokens: half of the SP figure
    assert layer_activation_bytes(q, 8, 1, sp=True, cp=2) == pytest.approx(25_165_824 / 2 * 4.25, rel=1e-12)


def test_stored_checkpoints_are_sharded_by_sequence_and_context_parallelism():
    # Full recompute keeps each layer's input, 2·s·b·h bytes (Table 2), ÷ t with SP (the input lives in the
    # sequence-parallel region), whole on every TP rank without SP; ÷ cp. GPT-3 shape, 96 layers, t = 8, one
    # GPU per TP group (gpus = 8), flash attention, loss: full logits s·V·10/t = 2048 × 51200 × 10 / 8.
    w = workload(model=GPT3, method="pretrain", seq_len=2048)
    sbh = 2048 * 12288
    logits = 2048 * 51200 * 10 / 8
    sp = memory_breakdown(w, Parallelism(1, 8, True, 1), 8).activations * GB
    no_sp = memory_breakdown(w, Parallelism(1, 8, True, 1, sequence_parallel=False), 8).activations * GB
    # 96 checkpoints + one layer's working set (4.25 resp. 13 s·b·h) + logits
    assert sp == pytest.approx(96 * 2 * sbh / 8 + 4.25 * sbh + logits, rel=1e-9)
    assert no_sp == pytest.approx(96 * 2 * sbh + 13 * sbh + logits, rel=1e-9)
    cp2 = memory_breakdown(w, Parallelism(1, 8, True, 1, context_parallel=2), 16).activations * GB
    assert cp2 == pytest.approx((96 * 2 * sbh / 8 + 4.25 * sbh + logits) / 2, rel=1e-9)


def test_the_loss_and_activation_offload_knobs():
    # Llama-2-7B, s 4096, one GPU, no TP: logits s·V = 4096 × 32000 = 131,072,000 values.
    # loss: full holds 10 B each (bf16 2 + fp32 upcast 4 + fp32 gradient 4); loss: chunked one chunk of as
    # many values as the hidden states, 6 B × s·h = 6 × 4096 × 4096.
    full = memory_breakdown(workload(), Parallelism(0, 1, True, 1), 1).activations * GB
    chunked = memory_breakdown(workload(loss="chunked"), Parallelism(0, 1, True, 1), 1).activations * GB
    assert full - chunked == pytest.approx(4096 * 32000 * 10 - 6 * 4096 * 4096, rel=1e-9)
    # activation_offload: the 32 checkpoints (2·s·h each) go to host RAM except two in transit
    off = memory_breakdown(workload(activation_offload=True), Parallelism(0, 1, True, 1), 1).activations * GB
    assert full - off == pytest.approx(30 * 2 * 4096 * 4096, rel=1e-9)


def test_qlora_quantized_on_the_gpu_peaks_at_the_nf4_base_plus_one_bf16_shard():
    # Llama-2-7B QLoRA on one GPU: the NF4 base (4.127 bit/param on the linear weights, the embedding and
    # the LM head 2·V·h in bf16) + one 5 GB checkpoint shard in bf16 + the 0.75 GB CUDA context.
    P, emb = 6.738e9, 2 * 32000 * 4096
    p = profile(workload(method="qlora"))
    base = (P - emb) * 4.126953125 / 8 + emb * 2
    assert p.P == pytest.approx(P, rel=1e-3)
    c = size_workload(workload(method="qlora"), [reference_offer("RTX-4090-24GB", 1)[0]], SETTINGS, None)
    m = c.candidates[0].memory
    assert m.load_peak == pytest.approx((0.75e9 + (p.P - emb) * 4.126953125 / 8 + emb * 2 + 5e9) / GB, rel=1e-9)
    assert m.load_peak == pytest.approx((0.75e9 + base + 5e9) / GB, rel=2e-3)
    on_cpu = size_workload(
        workload(method="qlora", quantize_on_load="cpu"), [reference_offer("RTX-4090-24GB", 1)[0]], SETTINGS, None
    )
    assert on_cpu.candidates[0].memory.load_peak == 0


def test_a_pinned_layout_is_sized_as_written():
    # Llama-2-7B full fine-tune pinned at ZeRO-1, TP2 (SP by default), checkpointing, micro-batch 1 on one
    # 8 × H100 node: d = 8 / 2 = 4. P = 6.738e9, L 32, h 4096, V 32000, s 4096,
    # c = 4 + 11 + 3 + 6 × 11008 / 4096 = 34.125.
    lay = dict(zero_stage=1, tensor_parallel=2, checkpointing=True, micro_batch=1)
    w = workload(layout=lay)
    c = size_workload(w, [reference_offer("H100-SXM-80GB", 8)[0]], SETTINGS, None)
    (one,) = [x for x in c.candidates if x.gpus == 8]
    st = one.strategy
    assert (st.zero_stage, st.tensor_parallel, st.checkpointing, st.micro_batch) == (1, 2, True, 1)
    assert st.sequence_parallel and st.pipeline_parallel == 1
    P = profile(w).P
    weights, grads, optim = 2 * P / 2, 2 * P / 2, 12 * P / 2 / 4
    sbh = 4096 * 4096
    acts = 32 * 2 * sbh / 2 + 34.125 * sbh / 2 + 4096 * 32000 * 10 / 2
    bucket = min(1e9, 2 * P / 2)
    total = 0.75e9 + 1.1 * (weights + grads + optim + acts + bucket)
    assert one.memory.weights == pytest.approx(weights / GB, rel=1e-9)
    assert one.memory.optimizer == pytest.approx(optim / GB, rel=1e-9)
    assert one.memory.activations == pytest.approx(acts / GB, rel=1e-9)
    assert one.per_gpu_memory_gb == pytest.approx(total / GB, rel=1e-9)
    # 80 GiB × 0.995 × (1 − 0.04) = 82.06 GB usable after the safety margin
    assert one.fits and one.per_gpu_memory_gb < 80 * GIB * 0.995 * 0.96 / GB


def test_a_published_tensor_and_sequence_parallel_layout_fits():
    # NVIDIA's Llama-3-70B pretraining layout on 64 H100 (NeMo performance tables): TP4, PP4 interleaved with
    # 5 virtual stages, CP2, micro-batch 1, seq 8192, no recompute. Per GPU: s/cp = 4096 tokens; SP over t 4;
    # c = 4 + 11 − 4 × (1 − 8/64) + 3 + 6 × 28672/8192 = 35.5; per layer 4096 × 8192 × 35.5 / 4 = 297.8 MB;
    # the first stage keeps 80 layers × (1 + 3/(4 × 5)) = 92 layers' worth = 27.40 GB; logits
    # 4096 × 128256 × 10 / 4 = 1.31 GB; weights and gradients 2 × 70.554e9 / 16 = 8.82 GB each; optimizer
    # 12 × 70.554e9 / 16 / (64/16 = 4 ranks: DP 2 × CP 2) = 13.23 GB; bucket 1 GB. Total
    # 0.75 + 1.1 × 60.58 = 67.4 GB < 82.06 usable. Without SP and CP (the old formula) one layer alone was
    # 8192 × 8192 × (10 + 25.5/4) = 1.10 GB, 101 GB for 92 layers: rejected.
    lay = dict(
        tensor_parallel=4,
        pipeline_parallel=4,
        pipeline_schedule="interleaved",
        virtual_stages=5,
        context_parallel=2,
        micro_batch=1,
        checkpointing=False,
        zero_stage=1,
    )
    w = workload(model="llama-3.1-70b", method="pretrain", tokens_b=100, seq_len=8192, layout=lay)
    sz = size_workload(w, [reference_offer("H100-SXM-80GB", 64)[0]], SETTINGS, None)
    (c,) = [x for x in sz.candidates if x.gpus == 64]
    assert c.fits, c.reason
    sbh = 4096 * 8192
    acts = 80 * (1 + 3 / 20) * sbh * 35.5 / 4 + 4096 * 128256 * 10 / 4
    assert c.memory.activations == pytest.approx(acts / GB, rel=1e-9)
    P = 70.554e9
    fixed = 2 * P / 16 + 2 * P / 16 + 12 * P / 16 / 4 + 1e9
    assert c.per_gpu_memory_gb == pytest.approx((0.75e9 + 1.1 * (fixed + acts)) / GB, rel=1e-3)
    # the same pin on 8 GPUs cannot be placed: 4 × 2 × 4 = 32 does not divide 8
    (small,) = [x for x in sz.candidates if x.gpus == 8]
    assert not small.fits and "32 does not divide 8 GPUs" in small.reason


def test_a_pinned_layout_that_overflows_says_so():
    # Llama-3.1-70B full fine-tune pinned at TP1, PP1, ZeRO-1, plain Adam, no checkpointing, on 8 H100: ZeRO-1 alone
    # is 4 × 70.554e9 + 12 × 70.554e9 / 8 = 388 GB per GPU before activations.
    pin = dict(
        tensor_parallel=1, pipeline_parallel=1, checkpointing=False, zero_stage=1, optimizer="adam", offload=False
    )
    w = workload(model="llama-3.1-70b", layout=pin)
    sz = size_workload(w, [reference_offer("H100-SXM-80GB", 8)[0]], SETTINGS, None)
    (c,) = [x for x in sz.candidates if x.gpus == 8]
    assert not c.fits and "pinned layout" in c.reason and "GB usable" in c.reason and "safety margin" in c.reason
    assert c.per_gpu_memory_gb > (4 * 70.554e9 + 12 * 70.554e9 / 8) / GB


def test_an_offload_layout_needs_host_ram_a_server_has():
    # The review's case: DeepSeek-V2 (236B) pretraining on 16 H100 fits GPU memory only with ZeRO-Offload,
    # which keeps 16 × 1.5 = 24 B per param of each GPU's shard in host RAM: 24 × 236e9 / 16 = 354 GB per
    # GPU, 8 × 354 = 2,832 GB per node, beyond the 2 TB (2,048 GB) of an 8-GPU HGX reference node.
    w = workload(model="deepseek-v2", method="pretrain", tokens_b=8100)
    ref, nodes = reference_offer("H100-SXM-80GB", 16)
    assert ref.ram_gb == 2048
    (c,) = [x for x in size_workload(w, [ref], SETTINGS, None).candidates if x.nodes == nodes]
    assert c.strategy is not None and c.strategy.offload
    assert not c.fits and "host RAM 2,048 GB <" in c.reason and "ZeRO-Offload" in c.reason
    P = profile(w).P
    assert c.host_ram_gb > 16 + 8 * (8 + 24 * P / 16 / GB)


def _write(tmp_path, body: str):
    path = tmp_path / "w.yaml"
    path.write_text(
        "name: x\nworkloads:\n  - name: ft\n    model: llama-2-7b\n    method: full\n    tokens_b: 10\n"
        "    deadline_days: 7\n" + body
    )
    return path


@pytest.mark.parametrize(
    "body, field, words",
    [
        ("    layout: {tensor_parallel: 3}\n", "layout", "does not divide the model's 32 attention heads"),
        ("    layout: {pipeline_parallel: 64}\n", "layout", "exceeds the model's 32 layers"),
        ("    layout: {zero_stage: 4}\n", "layout.zero_stage", "0, 1, 2 or 3"),
        ("    layout: {tensor_parallel: 1, sequence_parallel: true}\n", "layout", "needs tensor_parallel > 1"),
        ("    layout: {expert_parallel: 2}\n", "layout", "mixture-of-experts"),
        ("    layout: {pipeline_schedule: dualpipe, pipeline_parallel: 1}\n", "layout", "needs pipeline_parallel > 1"),
        ("    layout: {zero_stage: 3, pipeline_parallel: 2}\n", "layout", "zero_stage 3 is not combined"),
        ("    layout: {context_parallel: 3}\n", "layout", "not a multiple of 6"),
        ("    layout: {tensor_paralel: 2}\n", "layout.tensor_paralel", "tensor_parallel"),
        ("    loss: fused\n", "loss", "'full' or 'chunked'"),
    ],
)
def test_a_bad_layout_is_bad_input(tmp_path, body, field, words):
    res = CliRunner().invoke(app, ["size", str(_write(tmp_path, body)), "--gpu", "H100", "--gpus", "8"])
    assert res.exit_code == 1, res.output
    assert "Traceback" not in res.output
    flat = " ".join(res.output.split())
    assert "w.yaml" in flat and field in flat and words in flat, flat


def test_how_many_gpus_for_a_7b_full_fine_tune_on_a100_40gb(tmp_path):
    # Llama-2-7B, P = 6.738e9, full fine-tune, 10B tokens, deadline 7 days = 168 h. A100-SXM-40GB usable:
    # 40 GiB × 0.995 × 0.96 = 41.03 GB.
    # 1 GPU: plain Adam 16 B × P = 107.8 GB, 8-bit Adam 10 B × P = 67.4 GB: neither fits; ZeRO-Offload keeps
    #   2 B × P = 13.5 GB on the GPU but 16 + 8 + (2 + 24) × 6.738 = 199 GB of host RAM, and the one-GPU
    #   reference box has 2 × 40 = 80 GB: refused.
    # 2 GPUs: plain Adam's state is 16 × P / 2 = 53.9 GB per GPU however it is split (ZeRO-3 or TP2): no;
    #   8-bit Adam's 10 × P / 2 = 33.7 GB + checkpointed activations fits: the fewest is 2 GPUs, 8-bit Adam.
    path = _write(tmp_path, "")
    res = CliRunner().invoke(app, ["size", str(path), "--gpu", "A100-SXM-40GB", "--json", "-"])
    assert res.exit_code == 0, res.output
    (answer,) = json.loads(res.output)["workloads"][0]["gpu_counts"]
    fewest = answer["fewest_gpus"]
    assert fewest["gpus"] == 2 and fewest["fits"]
    assert fewest["strategy"]["optimizer"] == "adam8bit"
    assert 10 * 6.738e9 / 2 / GB < fewest["per_gpu_memory_gb"] <= 40 * GIB * 0.995 * 0.96 / GB
    # by the deadline: the fewest GPUs whose hours fit in 168 h; the count before it does not
    assert answer["deadline_hours"] == 168
    late = answer["by_deadline"]
    assert late["fits"] and late["hours"] <= 168 and late["gpus"] > 2
    # the smallest-memory layout on the fewest GPUs, named beside the fastest: checkpointed
    lean = answer["smallest_memory"]
    assert lean["gpus"] == 2 and lean["strategy"]["checkpointing"] is True
    assert lean["per_gpu_memory_gb"] <= fewest["per_gpu_memory_gb"] + 1e-9
    text = CliRunner().invoke(app, ["size", str(path), "--gpu", "A100-SXM-40GB"]).output
    flat = " ".join(text.split())
    assert "the fewest that fit are 2 GPUs" in flat and "by the deadline (168 h)" in flat
    assert "smallest memory on 2 GPUs" in flat and "activation checkpointing" in flat


def test_how_many_shapes_smaller_than_the_deadline_answer_are_late(tmp_path):
    from procure.solver.sizing.howmany import how_many

    w = workload(tokens_b=10, deadline_days=7)
    shapes, answer = how_many(w, "A100-SXM-40GB", SETTINGS, None, 168.0)
    fitting = [c for c in shapes if c.fits and c.gpus < answer.by_deadline.gpus]
    assert fitting and all(c.hours > 168 for c in fitting)


def test_gpus_without_gpu_is_refused(tmp_path):
    res = CliRunner().invoke(app, ["size", str(_write(tmp_path, "")), "--gpus", "8"])
    assert res.exit_code == 1 and "--gpu" in res.output
