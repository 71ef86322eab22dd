"""Memory per GPU: model state, activations and overhead, in bytes (reported in GB = 10^9 bytes).

GPU capacity: the datasheet figure (``GPU.memory_gb``, e.g. "80 GB") is a binary capacity — HBM/GDDR
stacks come in powers of two, and the driver reports e.g. 81,559 MiB for an "80 GB" H100 and 24,564 MiB
for a "24 GB" RTX 4090 — so the usable capacity is ``memory_gb × 2^30 × USABLE_FRACTION`` bytes.
CUDA context, communication buffers and allocator fragmentation are charged against it as ``overhead``.

Symbols: P total params, N active params per token (MoE), A adapter params, L layers, h hidden size,
a heads, kv KV heads, f FFN width one token activates, V vocab, s sequence length, b micro-batch,
t tensor-parallel degree, pp pipeline degree, ep expert-parallel degree, N_d = GPUs / (t·pp)
data-parallel degree.

Layout: a GPU holds (P − P_e)/(t·pp) + P_e/(t·pp·ep) parameters (P_e the routed experts); ZeRO shards
the non-expert state over N_d and the expert state over N_d/ep (``state_bytes``). precision fp8 follows
DeepSeek-V3 (arXiv:2412.19437 §3.3): bf16 working weights, fp32 gradients, fp32 master + bf16 Adam
moments (2 + 4 + 8 B/param). Activations are those of the micro-batches in flight (``inflight_factor``).
The bullets below are the single-stage, bf16 case.

* full / pretrain, mixed-precision Adam: 16 B/param = 2 bf16 weights + 2 bf16 grads + 12 fp32
  master/m/v (Rajbhandari et al. 2020, ZeRO, arXiv:1910.02054 §3.1). TP divides P first, then ZeRO
  shards over N_d: DP 16P; ZeRO-1 4P + 12P/N_d; ZeRO-2 2P + 14P/N_d; ZeRO-3 16P/N_d (ZeRO §5, Fig. 1).
* ZeRO-3 additionally holds the largest gathered parameter: 4·LL bytes (DeepSpeed
  ``estimate_zero3_model_states_mem_needs``), LL = max(V·h, h·f, h·h)/t; counted under ``weights``.
* lora: frozen bf16 base 2 B/param (sharded only by ZeRO-3) + adapters of rank r on q, k, v, o
  (k/v output width kv·h/a) and gate, up, down: r·(d_in + d_out) per adapted linear per layer
  (Hu et al. 2021, LoRA, arXiv:2106.09685), each adapter param 16 B (bf16 weight + bf16 grad + 12 B
  Adam), sharded like full training.
* qlora: NF4 base 4 bit + 0.127 bit/param of double-quantized constants (8/64 + 32/(64·256);
  Dettmers et al. 2023, QLoRA, arXiv:2305.14314 §3) for every linear weight; the embedding and the
  untied LM head (2·V·h params) stay bf16; adapters as lora.
* MoE: weights/grads/optimizer use total params P; activations and FLOPs use active params N and f.
* Activations per layer, 16-bit, fused/flash attention so the 5·a·s/h attention-matrix term of
  Korthikanti et al. 2022 (arXiv:2205.05198, Table 2) is dropped (workloads with flash_attention: false
  keep it, divided by t under TP): s·b·h·c with
  c = 4 (two norms) + 11 (attention; its K and V share 4 scales by kv/a for GQA) + MLP, where the MLP
  is 3 + 4·f/h for a GELU MLP (= 19 at f = 4h, reproducing Korthikanti's 34) and 3 + 6·f/h for a
  gated (SwiGLU) MLP, which stores gate, up and their product (assumed whenever f ≠ 4h; every modern
  preset is gated). Korthikanti Table 2 per layer, c = 34 (with the attention matrix 5·a·s/h):
  TP without sequence parallelism s·b·h·(10 + 24/t + 5·a·s/(h·t)) — the 10 of the norms and dropouts
  is replicated, here s·b·h·(10 + (c − 10)/t); TP with sequence parallelism (SP, Megatron's
  --sequence-parallel, the default here whenever t > 1) s·b·h·(34/t + 5·a·s/(h·t)), here s·b·h·c/t.
  Context parallelism cp (Megatron --context-parallel-size; ring attention) gives each GPU s/cp of the
  sequence: s → s/cp in every s·b·h term (the attention matrix of its queries against all s keys keeps
  its 5·a·s/h per s·b·h). Full recompute ("checkpointing"): the layer input, 2·s·b·h per layer
  (Korthikanti Table 2), stored as the framework shards it: ÷ t with SP (the input lives in the
  sequence-parallel region; without SP Megatron keeps it whole on every TP rank unless
  --distribute-saved-activations), ÷ cp; plus one layer's full activations as the working set.
  Logits for the loss (``logits_bytes``, ÷ t: vocab-parallel; ÷ cp): ``loss: full`` s·b·V·LOGITS_FULL_BYTES
  (bf16 logits + fp32 upcast + fp32 gradient, Hugging Face Transformers), ``loss: chunked``
  s·b·h·LOGITS_CHUNK_BYTES (one chunk of a fused cross-entropy).
  ``activation_offload``: the stored activations go to host RAM (``activation_host_bytes``); the GPU
  keeps the working set and two stored layers in transit (one copied out while the next is copied in).
  lora/qlora keep the same activations (the base is frozen, but input gradients still flow through
  every layer, so the same tensors are saved).
* overhead = CUDA context (CUDA_CONTEXT_BYTES) + a gradient communication bucket when G > 1
  (min(COMM_BUCKET_BYTES, this GPU's unsharded gradient bytes); DeepSpeed reduce_bucket_size 5e8
  elements, EleutherAI cookbook ``calc_transformer_mem.py``) + FRAGMENTATION × everything else.
* Low-memory optimizers (tried by the search only on a shape where plain Adam fits no layout): 8-bit Adam keeps 4 + 1 + 1 = 6 B/param of optimizer state (bitsandbytes, Dettmers et al.
  2022, arXiv:2110.02861); ZeRO-Offload (Ren et al. 2021, arXiv:2101.06840) keeps only the bf16 weights
  and one gradient bucket on the GPU, and OFFLOAD_HOST_BYTES × OFFLOAD_BUFFER_FACTOR = 16 × 1.5 B per
  param of the GPU's shard in host RAM (DeepSpeed's estimator); its step-time cost is in compute.py.
* Host RAM (fit.py): the node's checkpoint staging (``checkpoint_stage_bytes``: the trainable state,
  the adapter alone for lora/qlora) + the offloaded state (``offload_host_bytes``) + offloaded
  activations (``activation_host_bytes``).
* QLoRA load peak (``load_peak_bytes``, ``quantize_on_load: gpu``): a loader that quantizes each weight
  on the GPU (transformers + bitsandbytes) holds the NF4 base done so far and the bf16 checkpoint shard
  being quantized: CUDA context + the GPU's NF4 base + min(LOAD_SHARD_BYTES, 2 B × its params); the
  step's memory is compared with max(step, load peak).
* Fits: usable = datasheet GiB × USABLE_FRACTION × (1 − FIT_MARGIN), a 4 % safety margin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from procure.models.gpu import GPU
from procure.models.project import Workload
from procure.models.units import GB, GIB

from .constants import (
    ADAM8BIT_OPTIMIZER_BYTES,
    BF16_BYTES,
    COMM_BUCKET_BYTES,
    CUDA_CONTEXT_BYTES,
    DUALPIPE_PARAM_COPIES,
    FIT_MARGIN,
    FRAGMENTATION,
    LOAD_SHARD_BYTES,
    LOGITS_CHUNK_BYTES,
    LOGITS_FULL_BYTES,
    OFFLOAD_BUFFER_FACTOR,
    OFFLOAD_HOST_BYTES,
    OPTIMIZER_BYTES,
    USABLE_FRACTION,
    ZERO3_GATHER_BYTES_PER_PARAM,
)
from .results import MemoryBreakdown, Parallelism

if TYPE_CHECKING:
    from .profile import Profile


def usable_memory_gb(gpu: GPU) -> float:
    """Usable GPU memory in GB: memory_gb GiB × USABLE_FRACTION × (1 − FIT_MARGIN)."""
    return gpu.memory_gb * GIB * USABLE_FRACTION * (1.0 - FIT_MARGIN) / GB


def is_gated(hidden: int, ffn: int) -> bool:
    """GELU MLPs use f = 4h; every other width is taken as a gated (SwiGLU) MLP."""
    return ffn != 4 * hidden


def activation_coefficient(workload: Workload) -> float:
    """c in s·b·h·c bytes per layer (no TP, flash attention, no recompute); 34 for a GPT layer.

    precision fp8 follows the DeepSeek-V3 recipe (arXiv:2412.19437 §3.2.3, §3.3): the inputs of the
    linear layers are cached in FP8 (1 byte instead of 2: the QKV, output-projection and first MLP
    inputs 2 + 2 + 2 and the second MLP input 2·f/h halve, −(3 + f/h)), and both RMSNorms are recomputed
    in the backward pass (their 4 disappear)."""
    m = workload.model
    h, f = m.hidden_size, m.ffn_hidden_size
    kv_ratio = (m.kv_heads or m.heads) / m.heads
    attention = 4 + 11 - 4 * (1 - kv_ratio)
    mlp = 3 + (6 if is_gated(h, f) else 4) * f / h
    c = attention + mlp
    if getattr(workload, "precision", "bf16") == "fp8":
        c -= (3 + f / h) + 4
    return c


def zero_shard(weights: float, grads: float, optimizer: float, stage: int, dp: int) -> tuple[float, float, float]:
    """ZeRO partitioning over ``dp`` data-parallel ranks (Rajbhandari et al. 2020, §5): stage 1 shards
    the optimizer state, stage 2 also the gradients, stage 3 also the weights."""
    if stage >= 1:
        optimizer /= dp
    if stage >= 2:
        grads /= dp
    if stage >= 3:
        weights /= dp
    return weights, grads, optimizer


def inflight_factor(pp: int, schedule: str, v: int) -> float:
    """Layers' worth of activations the busiest (first) pipeline stage holds, per model layer.

    1F1B: the first stage keeps pp micro-batches of its L/pp layers = L layers (Narayanan et al. 2021,
    arXiv:2104.04473 §2.2); interleaved with v virtual stages: L·(1 + (pp−1)/(pp·v)) (Korthikanti et al.
    2022, arXiv:2205.05198 §4.2.3); DualPipe: pp+1 micro-batches (DeepSeek-V3 Table 2)."""
    if pp <= 1:
        return 1.0
    if schedule == "interleaved":
        return 1.0 + (pp - 1) / (pp * v)
    if schedule == "dualpipe":
        return (pp + 1) / pp
    return 1.0


def optimizer_bytes(p: Profile, optim: str) -> float:
    """Optimizer state per trainable param on the GPU: 12 B fp32 master + Adam m, v (8 B under fp8:
    DeepSeek-V3's bf16 moments), or ADAM8BIT_OPTIMIZER_BYTES for 8-bit Adam."""
    if optim == "adam8bit":
        return ADAM8BIT_OPTIMIZER_BYTES
    return OPTIMIZER_BYTES if p.adapter else p.ob


def state_bytes(
    p: Profile,
    zero: int,
    t: int,
    pp: int,
    ep: int,
    d: int,
    copies: float = 1.0,
    optim: str = "adam",
    offload: bool = False,
) -> tuple[float, float, float]:
    """(weights, gradients, optimizer) bytes per GPU.

    The GPU holds 1/(t·pp) of the non-expert params and 1/(t·pp·ep) of the routed experts. ZeRO shards
    the non-expert state over the d data-parallel ranks and the expert state over the d/ep ranks that
    hold the same experts. ``copies``: parameter copies the schedule keeps (DualPipe 2). ``optim``:
    the optimizer's state format (``optimizer_bytes``). ``offload`` (ZeRO-Offload): the optimizer state
    lives in host RAM and the gradients stream to it bucket by bucket, so the GPU keeps only the bf16
    weights (DeepSpeed's estimator: 2P per GPU for ZeRO-2 with offload_optimizer=cpu)."""
    de = max(1, d // ep)
    ne = p.P_ne / (t * pp)
    ex = p.P_e / (t * pp * ep)
    gather = ZERO3_GATHER_BYTES_PER_PARAM * p.largest / t if zero >= 3 else 0.0
    ob = optimizer_bytes(p, optim)
    if p.adapter:
        base_ne = p.base_bytes * p.frac_ne / (t * pp)
        base_ex = p.base_bytes * (1.0 - p.frac_ne) / (t * pp * ep)
        if zero >= 3:  # the frozen base is sharded only by ZeRO-3
            base_ne, base_ex = base_ne / d, base_ex / de
        a = p.A / (t * pp)
        aw, ag, ao = zero_shard(p.wb * a, p.wb * a, ob * a, zero, d)
        if offload:
            ag, ao = 0.0, 0.0
        return (base_ne + base_ex) * copies + gather + aw, ag, ao
    wn, gn, on = zero_shard(p.wb * ne, p.gb * ne, ob * ne, zero, d)
    we, ge, oe = zero_shard(p.wb * ex, p.gb * ex, ob * ex, zero, de)
    if offload:
        gn = ge = on = oe = 0.0
    return (wn + we) * copies + gather, gn + ge, on + oe


def trainable_shard(p: Profile, zero: int, t: int, pp: int, d: int) -> float:
    """Trainable params whose optimizer state one GPU owns: trainable/(t·pp), /d once ZeRO shards it."""
    n = p.trainable / (t * pp)
    return n / d if zero >= 1 else n


def offload_host_bytes(p: Profile, st: Parallelism, gpus: int) -> float:
    """Host RAM one GPU's offloaded state takes: OFFLOAD_HOST_BYTES (fp32 master, m, v, gradients) ×
    OFFLOAD_BUFFER_FACTOR per param of its shard; 0 without offload."""
    if not st.offload:
        return 0.0
    d = max(1, gpus // (st.tensor_parallel * st.pipeline_parallel))
    return (
        OFFLOAD_HOST_BYTES
        * OFFLOAD_BUFFER_FACTOR
        * trainable_shard(p, st.zero_stage, st.tensor_parallel, st.pipeline_parallel, d)
    )


def checkpoint_stage_bytes(p: Profile, st: Parallelism, gpus: int) -> float:
    """Bytes of one GPU's share of a checkpoint that asynchronous checkpointing stages in host RAM: the
    trainable state on the GPU — weights + optimizer state of its shard for full training, only the
    adapter's weights + optimizer state for lora/qlora (the frozen base is never saved). Offloaded state
    is already in host RAM and is not staged again."""
    t, pp = st.tensor_parallel, st.pipeline_parallel
    d = max(1, gpus // (t * pp))
    if p.adapter:
        a = p.A / (t * pp)
        aw, _ag, ao = zero_shard(p.wb * a, 0.0, optimizer_bytes(p, st.optimizer) * a, st.zero_stage, d)
        return aw + (0.0 if st.offload else ao)
    copies = DUALPIPE_PARAM_COPIES if st.schedule == "dualpipe" else 1.0
    w, _g, o = state_bytes(p, st.zero_stage, t, pp, st.expert_parallel, d, copies, st.optimizer, st.offload)
    return w + o


def layer_activation_bytes(p: Profile, t: int, mb: int, sp: bool | None = None, cp: int = 1) -> float:
    """One layer's saved activations for one micro-batch (Korthikanti Table 2): s·b·h·(10 + (c − 10 + m)/t)
    without sequence parallelism, s·b·h·(c + m)/t with it (``sp``; None: on when t > 1), m = 5·a·s/h the
    stored attention matrix when the workload has no fused (flash) attention; s → s/cp under context
    parallelism."""
    sp = t > 1 if sp is None else sp
    sbh = p.s / cp * mb * p.h
    if sp:
        return sbh * (p.act_coef + p.att_matrix) / t
    return sbh * (10.0 + (p.act_coef - 10.0 + p.att_matrix) / t)


def logits_bytes(p: Profile, t: int, mb: int, cp: int = 1) -> float:
    """The loss's logits for one micro-batch, vocab-parallel (÷ t), s/cp tokens: ``loss: full`` holds
    s·b·V·LOGITS_FULL_BYTES, ``loss: chunked`` one chunk of s·b·h·LOGITS_CHUNK_BYTES."""
    tokens = p.s / cp * mb
    if p.loss == "chunked":
        return tokens * p.h * LOGITS_CHUNK_BYTES / t
    return tokens * p.V * LOGITS_FULL_BYTES / t


def _activation_split(
    p: Profile, t: int, ckpt: bool, mb: int, pp: int, schedule: str, v: int, sp: bool | None, cp: int
) -> tuple[float, float]:
    """(bytes on the busiest GPU, bytes it keeps in host RAM under ``activation_offload``)."""
    sp = t > 1 if sp is None else sp
    layer = layer_activation_bytes(p, t, mb, sp, cp)
    stored_layers = -(-p.L // pp) * pp * inflight_factor(pp, schedule, v)  # layers' worth held at once
    # full recompute keeps each layer's input, sharded by SP over t and by CP over cp
    unit = 2.0 * p.s / cp * mb * p.h / (t if sp else 1) if ckpt else layer
    working = layer if ckpt else 0.0
    stored = stored_layers * unit
    logits = logits_bytes(p, t, mb, cp)
    if p.act_offload:
        in_transit = min(stored, 2.0 * unit)
        return working + in_transit + logits, stored - in_transit
    return working + stored + logits, 0.0


def activation_bytes(
    p: Profile,
    t: int,
    ckpt: bool,
    mb: int,
    pp: int = 1,
    schedule: str = "",
    v: int = 1,
    sp: bool | None = None,
    cp: int = 1,
) -> float:
    """Activation bytes on the busiest GPU (see the module docstring and ``inflight_factor``)."""
    return _activation_split(p, t, ckpt, mb, pp, schedule, v, sp, cp)[0]


def activation_host_bytes(p: Profile, st: Parallelism) -> float:
    """Host RAM one GPU's offloaded activations take (``activation_offload``; 0 otherwise)."""
    return _activation_split(
        p,
        st.tensor_parallel,
        st.checkpointing,
        st.micro_batch,
        st.pipeline_parallel,
        st.schedule,
        st.virtual_stages,
        st.sequence_parallel,
        st.context_parallel,
    )[1]


def load_peak_bytes(p: Profile, t: int, pp: int) -> float:
    """QLoRA with ``quantize_on_load: gpu``: the CUDA context + the GPU's shard of the quantized base
    (NF4 + bf16 embeddings) + one checkpoint shard file in bf16 as it is quantized, min(LOAD_SHARD_BYTES,
    2 B × the GPU's params); 0 otherwise (see the module docstring)."""
    if p.method != "qlora" or p.quantize_on_load != "gpu":
        return 0.0
    return CUDA_CONTEXT_BYTES + p.base_bytes / (t * pp) + min(LOAD_SHARD_BYTES, BF16_BYTES * p.P / (t * pp))


def comm_bucket_bytes(p: Profile, t: int, gpus: int, pp: int = 1, offload: bool = False) -> float:
    """The gradient-reduction bucket: min(COMM_BUCKET_BYTES, this GPU's gradient bytes); 0 on one GPU
    unless the gradients are offloaded (they leave the GPU through the same bucket)."""
    return min(COMM_BUCKET_BYTES, BF16_BYTES * p.trainable / (t * pp)) if gpus > 1 or offload else 0.0


def total_bytes(fixed: float, activations: float) -> float:
    """Per-GPU total: CUDA context + (1 + FRAGMENTATION) × (model state + bucket + activations)."""
    return CUDA_CONTEXT_BYTES + (1.0 + FRAGMENTATION) * (fixed + activations)


def memory_parts(p: Profile, st: Parallelism, gpus: int) -> tuple[float, float, float, float, float]:
    """(weights, grads, optimizer, activations, overhead) bytes per GPU under strategy ``st``."""
    t, pp, ep = st.tensor_parallel, st.pipeline_parallel, st.expert_parallel
    d = max(1, gpus // (t * pp))
    copies = DUALPIPE_PARAM_COPIES if st.schedule == "dualpipe" else 1.0
    w, g, o = state_bytes(p, st.zero_stage, t, pp, ep, d, copies, st.optimizer, st.offload)
    act = activation_bytes(
        p,
        t,
        st.checkpointing,
        st.micro_batch,
        pp,
        st.schedule,
        st.virtual_stages,
        st.sequence_parallel,
        st.context_parallel,
    )
    bucket = comm_bucket_bytes(p, t, gpus, pp, st.offload)
    overhead = CUDA_CONTEXT_BYTES + bucket + FRAGMENTATION * (w + g + o + act + bucket)
    return w, g, o, act, overhead


def breakdown(parts: tuple[float, ...]) -> MemoryBreakdown:
    """Bytes → a MemoryBreakdown in GB."""
    return MemoryBreakdown(*(x / GB for x in parts))


def zero_model_state_gb(params: float, stage: int, dp: int) -> float:
    """Mixed-precision Adam model state per GPU (ZeRO paper §5): 16P, 4P+12P/N_d, 2P+14P/N_d, 16P/N_d."""
    return params * sum(zero_shard(float(BF16_BYTES), float(BF16_BYTES), float(OPTIMIZER_BYTES), stage, dp)) / GB
