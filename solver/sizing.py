"""Sizing: from a training job to GPU memory, FLOPs, hours and fit on every cluster shape.

A *shape* is one offer × a node count. For every shape the engine picks the fastest parallel /
memory-saving strategy that fits in GPU memory (ties → less memory), estimates wall-clock hours,
and runs the fit checks. Every rejected shape keeps a sentence saying why.

Units: memory is reported in GB = 10^9 bytes everywhere (breakdowns, reasons, JSON). GPU capacity:
the datasheet figure (``GPU.memory_gb``, e.g. "80 GB") is a binary capacity — HBM/GDDR stacks come in
powers of two, and the driver reports e.g. 81,559 MiB for an "80 GB" H100 and 24,564 MiB for a
"24 GB" RTX 4090 — so the usable capacity is ``memory_gb × 2^30 × USABLE_FRACTION`` bytes (the driver's
total is 99.5–99.9 % of the nominal GiB). CUDA context, communication buffers and allocator
fragmentation are then charged against it as ``overhead``.

Symbols: P total params, N active params per token (MoE), A adapter params, D tokens, L layers,
h hidden size, a heads, kv KV heads, f FFN width one token activates, V vocab, s sequence length,
b micro-batch, t tensor-parallel degree, N_d = GPUs / t data-parallel degree, G GPUs.

Memory per GPU (bytes)
----------------------
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
  Korthikanti et al. 2022 (arXiv:2205.05198, Table 2) is dropped: s·b·h·c with
  c = 4 (two norms) + 11 (attention; its K and V share 4 scales by kv/a for GQA) + MLP, where the MLP
  is 3 + 4·f/h for a GELU MLP (= 19 at f = 4h, reproducing Korthikanti's 34) and 3 + 6·f/h for a
  gated (SwiGLU) MLP, which stores gate, up and their product (assumed whenever f ≠ 4h; every modern
  preset is gated). With TP (selective recompute, no sequence parallelism): s·b·h·(10 + (c − 10)/t)
  (Korthikanti: 10 + 24/t at c = 34). Full recompute ("checkpointing"): 2·s·b·h per layer (the layer
  input; Korthikanti Table 2) plus one layer's full activations as the working set.
  Logits for the loss: s·b·V·(2 + 4)/t (bf16 logits + fp32 copy for the cross-entropy).
  lora/qlora keep the same activations (the base is frozen, but input gradients still flow through
  every layer, so the same tensors are saved).
* overhead = CUDA context (CUDA_CONTEXT_BYTES) + a gradient communication bucket when G > 1
  (min(COMM_BUCKET_BYTES, this GPU's unsharded gradient bytes); DeepSpeed reduce_bucket_size 5e8
  elements, EleutherAI cookbook ``calc_transformer_mem.py``) + FRAGMENTATION × everything else.

FLOPs
-----
Per token (Kaplan et al. 2020; PaLM, Chowdhery et al. 2022, App. B; Narayanan et al. 2021, Megatron):
dense 6·N (forward 2N, backward 4N) plus attention 12·L·s·h (QKᵀ and AV, forward 4·L·s·h, backward
twice that; PaLM's MFU convention, no causal-mask discount). Adapter methods skip the base's
weight-gradient GEMMs: 4·N + 6·A (+ the same attention term). Checkpointing adds one forward:
+2·N + 4·L·s·h. QLoRA multiplies the total by QLORA_DEQUANT_OVERHEAD (NF4 → bf16 dequantization
before every base GEMM). Total = per-token FLOPs × D, D = tokens_b·1e9.

Time and scaling efficiency
---------------------------
hours = FLOPs / (G · bf16_dense_tflops·1e12 · MFU · efficiency) / 3600, MFU from ``default_mfu`` or
``workload.mfu``. efficiency = compute / (compute + exposed communication) per optimizer step:

* step: global batch B_g tokens (GLOBAL_BATCH_TOKENS per method, or ``SizingSettings.
  global_batch_tokens_m``), at least one sequence per data-parallel rank (when N_d·s > B_g the global
  batch grows to N_d·s); k = ceil(B_g / (N_d·s·b)) micro-steps. A micro-batch that would push the step beyond
  max(B_g, N_d·s) tokens is not considered.
* gradient all-reduce of W bytes (bf16 grads of the trainable params), ring 2(n−1)/n·W, hierarchical:
  inside the node over the GPU link (nvswitch/nvlink: gpu_link_gbs/2 per direction; pcie: pcie_gbs/2;
  a 2-way bridge only links pairs, so a larger server of bridged PCIe cards counts as pcie) among the
  node's gpn/t ranks of one DP group, then across nodes 2(n−1)/n·W over the node's fabric
  fabric_gbps/8 GB/s shared by its GPUs. Volume per step: DP and ZeRO-1 once; ZeRO-2 a reduce-scatter
  every micro-step plus one all-gather ((k+1)/2 all-reduces); ZeRO-3 two all-gathers and one
  reduce-scatter every micro-step (1.5·k; ZeRO §7). lora/qlora reduce only adapter gradients, and
  under ZeRO-3 also gather the frozen base each micro-step (1·k all-reduce-equivalents of it).
* tensor parallel: 4 all-reduces of 2·s·b·h bytes per layer per micro-batch (2 forward, 2 backward;
  Megatron-LM, Shoeybi et al. 2019 §3), 6 with checkpointing (the recomputed forward), inside the node;
  not overlapped (they sit on the critical path).
* exposed DP communication = comm − COMM_OVERLAP · min(comm, compute): bucketed gradient reduction
  overlaps the backward pass (PyTorch DDP, Li et al. 2020, VLDB).

Fit checks per shape: memory (fastest fitting strategy), host RAM ≥ host_ram_ratio × node GPU memory,
NVMe ≥ dataset_tb/nodes (the dataset is assumed sharded across nodes) + checkpoints_kept × checkpoint
size/nodes (full/pretrain: 14 B/param = bf16 weights + fp32 master/m/v, sharded across nodes;
lora/qlora: 14 B per adapter param), CPU cores per GPU, inter-node fabric for nodes > 1, efficiency
≥ min_efficiency, allowed_gpus, and the mainland-China border rule for the network line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from procure.models.gpu import GPU, gpu_table
from procure.models.offer import Offer
from procure.models.project import Project, SizingSettings, Workload
from procure.solver.reasons import Reason, Rule, render

# --- constants (each with its source) -------------------------------------------------------------

GB = 1e9
TB = 1e12
GIB = 2.0**30

#: Driver-reported capacity / nominal GiB: 81,559 MiB of 81,920 for an "80 GB" H100 (99.56 %),
#: 24,564 MiB of 24,576 for a "24 GB" RTX 4090 (99.95 %) — nvidia-smi totals. Conservative end.
USABLE_FRACTION = 0.995

BF16_BYTES = 2
#: ZeRO paper §3.1: fp32 master weights (4) + Adam momentum (4) + variance (4).
OPTIMIZER_BYTES = 12
#: Adapter params: bf16 weight + bf16 grad + 12 B fp32 master/Adam = 16 B (same accounting as ZeRO).
ADAPTER_STATE_BYTES = 16
#: NF4 with double quantization: 4 bits + 8/64 + 32/(64·256) = 4.127 bits per param (QLoRA §3).
NF4_BITS_PER_PARAM = 4.0 + 8.0 / 64 + 32.0 / (64 * 256)
#: DeepSpeed estimate_zero3_model_states_mem_needs: 4 · largest layer's params.
ZERO3_GATHER_BYTES_PER_PARAM = 4
#: Checkpoint size for full/pretrain: bf16 weights + fp32 master/m/v.
CHECKPOINT_BYTES_PER_PARAM = BF16_BYTES + OPTIMIZER_BYTES

#: CUDA context + cuBLAS/NCCL workspaces: ~0.5–1 GB per process in practice (PyTorch); middle value.
CUDA_CONTEXT_BYTES = 0.75 * GB
#: Gradient reduction bucket: DeepSpeed reduce_bucket_size default 5e8 elements, bf16 (EleutherAI
#: cookbook calc_transformer_mem.py counts the same 5e8·2 bytes).
COMM_BUCKET_BYTES = 5e8 * BF16_BYTES
#: PyTorch caching-allocator fragmentation, charged on everything else.
FRAGMENTATION = 0.10

#: Fraction of data-parallel communication hidden behind the backward pass (bucketed overlap, PyTorch
#: DDP paper Li et al. 2020; the usual 0.5–0.7 range; middle value).
COMM_OVERLAP = 0.6
#: Tensor-parallel all-reduces are on the critical path (Megatron): none hidden.
TP_COMM_OVERLAP = 0.0

#: QLoRA runs slower than LoRA by dequantizing NF4 → bf16 before each base GEMM. S. Raschka,
#: "Practical Tips for Finetuning LLMs Using LoRA" (2023, Lit-GPT, 7B on A100): QLoRA +39 % runtime
#: for 33 % less memory. Applied as an effective-FLOPs multiplier.
QLORA_DEQUANT_OVERHEAD = 1.39

#: Tokens per optimizer step by method: Llama 2 pretraining used 4M (Touvron et al. 2023, §2.2);
#: fine-tuning runs use smaller batches (full 1M, adapters 0.25M: assumptions, overridable).
GLOBAL_BATCH_TOKENS: dict[str, float] = {"pretrain": 4e6, "full": 1e6, "lora": 0.25e6, "qlora": 0.25e6}

#: Default MFU (PaLM convention: 6N + 12·L·s·h FLOPs per token; dense BF16 peak), by GPU class.
#: Ampere-class (peak ≤ 500 TFLOP/s): calibrated on Llama 2 7B/13B/70B (model card GPU-hours) and
#: MPT-7B, which imply 0.39–0.46 effective PaLM-convention MFU including their scaling losses.
#: Hopper/Blackwell/MI300-class (peak > 500): Llama 3 (Dubey et al. 2024, Table 4) reports 38–43 %
#: BF16 MFU on 8K–16K H100s; 0.40. Consumer cards: 0.40 (assumption: no public large-run MFU; small
#: memory forces small micro-batches; the 4090 peak used is already the FP32-accumulate rate).
MFU_AMPERE_CLASS = 0.45
MFU_HOPPER_CLASS = 0.40
MFU_CONSUMER = 0.40
HOPPER_CLASS_MIN_TFLOPS = 500.0
#: Adapter methods run the same base GEMMs plus skinny rank-r ones and extra elementwise kernels;
#: assumed 0.8 of the full-training MFU (no calibration source).
MFU_ADAPTER_FACTOR = 0.8

ZERO_STAGES = (0, 1, 2, 3)
TP_DEGREES = (1, 2, 4, 8)
MICRO_BATCHES = (1, 2, 4, 8)

REFERENCE_SOURCE = "reference node (not a price)"
REFERENCE_PRICE_PER_NODE_HOUR = 1.0  # nominal, so a reference offer validates; never a real price

_REL_TIE = 1e-9


# --- public types -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Strategy:
    zero_stage: int
    tensor_parallel: int
    checkpointing: bool
    micro_batch: int

    def label(self) -> str:
        dp = f"ZeRO-{self.zero_stage}" if self.zero_stage else "DP"
        ck = "ckpt" if self.checkpointing else "no ckpt"
        return f"{dp}, TP{self.tensor_parallel}, {ck}, mb {self.micro_batch}"


@dataclass(frozen=True)
class MemoryBreakdown:
    """GB (10^9 bytes) per GPU."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    overhead: float

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations + self.overhead

    @property
    def model_state(self) -> float:
        return self.weights + self.gradients + self.optimizer


@dataclass(frozen=True)
class Candidate:
    workload: str
    offer_id: str
    gpu: str
    nodes: int
    gpus: int
    strategy: Strategy | None
    per_gpu_memory_gb: float | None
    memory: MemoryBreakdown | None
    fits: bool
    reasons: tuple[Reason, ...]
    hours: float | None
    gpu_hours: float | None
    efficiency: float | None

    @property
    def reason(self) -> str | None:
        """Why the shape does not fit, as one sentence (None when it fits)."""
        return render(self.reasons) if self.reasons else None


@dataclass(frozen=True)
class WorkloadSizing:
    workload: Workload
    total_flops: float
    memory_gb: MemoryBreakdown
    candidates: list[Candidate] = field(default_factory=list)

    def feasible(self) -> list[Candidate]:
        return [c for c in self.candidates if c.fits]


# --- the workload's numbers, computed once (plain floats: no pydantic in the hot loop) --------------


class _Profile:
    __slots__ = (
        "name", "method", "adapter", "P", "N", "A", "L", "h", "a", "V", "s", "base_bytes", "trainable",
        "largest", "act_coef", "flops_tok", "flops_tok_ckpt", "D", "global_tokens", "ckpt_bytes",
        "dataset_tb", "kept", "mfu", "allowed", "act_table",
    )


def _is_gated(hidden: int, ffn: int) -> bool:
    """GELU MLPs use f = 4h; every other width is taken as a gated (SwiGLU) MLP."""
    return ffn != 4 * hidden


def adapter_params(workload: Workload) -> float:
    """LoRA parameters: r·(d_in + d_out) on q, k, v, o, gate, up, down of every layer."""
    m = workload.model
    h, f, r = m.hidden_size, m.ffn_hidden_size, workload.lora_rank
    kv_width = h * (m.kv_heads or m.heads) / m.heads
    per_layer = r * ((h + h) + 2 * (h + kv_width) + (h + h))  # q, k, v, o
    per_layer += r * (3 * (h + f) if _is_gated(h, f) else 2 * (h + f))  # gate/up/down or fc1/fc2
    return per_layer * m.layers


def activation_coefficient(workload: Workload) -> float:
    """c in s·b·h·c bytes per layer (no TP, flash attention, no recompute); 34 for a GPT layer."""
    m = workload.model
    h, f = m.hidden_size, m.ffn_hidden_size
    kv_ratio = (m.kv_heads or m.heads) / m.heads
    attention = 4 + 11 - 4 * (1 - kv_ratio)
    mlp = 3 + (6 if _is_gated(h, f) else 4) * f / h
    return attention + mlp


def _flops_per_token(p: "_Profile", ckpt: bool, method: str) -> float:
    att = 12.0 * p.L * p.s * p.h
    if method in ("lora", "qlora"):
        per = 4.0 * p.N + 6.0 * p.A + att
    else:
        per = 6.0 * p.N + att
    if ckpt:
        per += 2.0 * p.N + att / 3.0
    if method == "qlora":
        per *= QLORA_DEQUANT_OVERHEAD
    return per


def _profile(w: Workload, settings: SizingSettings | None = None) -> _Profile:
    m = w.model
    p = _Profile()
    p.name = w.name
    p.method = w.method
    p.adapter = w.method in ("lora", "qlora")
    p.P = m.params
    p.N = m.active_params
    p.L, p.h, p.a, p.V, p.s = m.layers, m.hidden_size, m.heads, m.vocab_size, w.seq_len
    p.A = adapter_params(w) if p.adapter else 0.0
    if w.method == "qlora":
        emb = min(2.0 * m.vocab_size * m.hidden_size, p.P)
        p.base_bytes = (p.P - emb) * NF4_BITS_PER_PARAM / 8 + emb * BF16_BYTES
    else:
        p.base_bytes = BF16_BYTES * p.P
    p.trainable = p.A if p.adapter else p.P
    p.largest = max(m.vocab_size * m.hidden_size, m.hidden_size * m.ffn_hidden_size, m.hidden_size**2)
    p.act_coef = activation_coefficient(w)
    p.flops_tok = _flops_per_token(p, False, w.method)
    p.flops_tok_ckpt = _flops_per_token(p, True, w.method)
    p.D = w.tokens_b * 1e9
    gb = settings.global_batch_tokens_m * 1e6 if settings and settings.global_batch_tokens_m else GLOBAL_BATCH_TOKENS[w.method]
    p.global_tokens = gb
    p.ckpt_bytes = CHECKPOINT_BYTES_PER_PARAM * (p.A if p.adapter else p.P)
    p.dataset_tb = w.dataset_tb
    p.kept = w.checkpoints_kept
    p.mfu = w.mfu
    p.allowed = set(w.allowed_gpus) if w.allowed_gpus else None
    p.act_table = _act_table(p)
    return p


def training_flops(workload: Workload, checkpointing: bool) -> float:
    """Total training FLOPs (see the module docstring)."""
    p = _profile(workload)
    return (p.flops_tok_ckpt if checkpointing else p.flops_tok) * p.D


def default_mfu(gpu: GPU, method: str) -> float:
    if gpu.form_factor == "consumer":
        base = MFU_CONSUMER
    elif gpu.bf16_dense_tflops > HOPPER_CLASS_MIN_TFLOPS:
        base = MFU_HOPPER_CLASS
    else:
        base = MFU_AMPERE_CLASS
    return base * (MFU_ADAPTER_FACTOR if method in ("lora", "qlora") else 1.0)


def usable_memory_gb(gpu: GPU) -> float:
    return gpu.memory_gb * GIB * USABLE_FRACTION / GB


# --- memory ---------------------------------------------------------------------------------------


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


def _state_bytes(p: _Profile, zero: int, t: int, nd: int) -> tuple[float, float, float]:
    """(weights, gradients, optimizer) bytes per GPU."""
    gather = ZERO3_GATHER_BYTES_PER_PARAM * p.largest / t if zero >= 3 else 0.0
    if p.adapter:
        aw, ag, ao = zero_shard(BF16_BYTES * p.A / t, BF16_BYTES * p.A / t, OPTIMIZER_BYTES * p.A / t, zero, nd)
        base = p.base_bytes / t / (nd if zero >= 3 else 1)  # the frozen base is sharded only by ZeRO-3
        return base + gather + aw, ag, ao
    w, g, o = zero_shard(BF16_BYTES * p.P / t, BF16_BYTES * p.P / t, OPTIMIZER_BYTES * p.P / t, zero, nd)
    return w + gather, g, o


def _activation_bytes(p: _Profile, t: int, ckpt: bool, mb: int) -> float:
    sbh = p.s * mb * p.h
    layer = sbh * (10.0 + (p.act_coef - 10.0) / t)
    logits = p.s * mb * p.V * (BF16_BYTES + 4) / t
    if ckpt:
        return p.L * 2.0 * sbh + layer + logits
    return p.L * layer + logits


def _memory(p: _Profile, zero: int, t: int, ckpt: bool, mb: int, gpus: int) -> tuple[float, float, float, float, float]:
    """(weights, grads, optimizer, activations, overhead) bytes per GPU."""
    nd = gpus // t
    w, g, o = _state_bytes(p, zero, t, nd)
    act = _activation_bytes(p, t, ckpt, mb)
    bucket = min(COMM_BUCKET_BYTES, BF16_BYTES * p.trainable / t) if gpus > 1 else 0.0
    overhead = CUDA_CONTEXT_BYTES + bucket + FRAGMENTATION * (w + g + o + act + bucket)
    return w, g, o, act, overhead


def _breakdown(parts: tuple[float, ...]) -> MemoryBreakdown:
    return MemoryBreakdown(*(x / GB for x in parts))


def memory_breakdown(workload: Workload, strategy: Strategy, gpus: int) -> MemoryBreakdown:
    """Per-GPU memory (GB) of ``workload`` under ``strategy`` on ``gpus`` GPUs."""
    p = _profile(workload)
    return _breakdown(_memory(p, strategy.zero_stage, strategy.tensor_parallel, strategy.checkpointing, strategy.micro_batch, gpus))


def zero_model_state_gb(params: float, stage: int, dp: int) -> float:
    """Mixed-precision Adam model state per GPU (ZeRO paper §5): 16P, 4P+12P/N_d, 2P+14P/N_d, 16P/N_d."""
    return params * sum(zero_shard(float(BF16_BYTES), float(BF16_BYTES), float(OPTIMIZER_BYTES), stage, dp)) / GB


# --- time -----------------------------------------------------------------------------------------


class _Shape:
    __slots__ = ("gpus", "gpn", "nodes", "bw_intra", "bw_inter", "peak", "mfu", "mem_cap", "max_tp")


def _allreduce_s(bytes_full: float, t: int, sh: _Shape) -> float:
    """Seconds for a hierarchical ring all-reduce of ``bytes_full`` (the whole model's gradient bytes,
    split over t TP shards) among the data-parallel ranks."""
    per_rank = bytes_full / t
    local = sh.gpn // t  # DP ranks of one group inside a node
    sec = 0.0
    if local > 1:
        sec += 2.0 * (local - 1) / local * per_rank / sh.bw_intra
    if sh.nodes > 1:
        sec += 2.0 * (sh.nodes - 1) / sh.nodes * bytes_full / sh.bw_inter
    return sec


def _step_time(p: _Profile, zero: int, t: int, ckpt: bool, mb: int, sh: _Shape, ar: float, base_ar: float) -> tuple[float, float] | None:
    """(hours, efficiency), or None when this micro-batch would inflate the global batch.
    ``ar``/``base_ar``: seconds of one all-reduce of the trainable gradients / the frozen base."""
    nd = sh.gpus // t
    micro_tokens = nd * p.s * mb
    if mb > 1 and micro_tokens > max(p.global_tokens, nd * p.s):
        return None
    step_tokens = max(p.global_tokens, micro_tokens)
    k = max(1, math.ceil(step_tokens / micro_tokens - 1e-9))  # micro-steps per optimizer step
    flops_tok = p.flops_tok_ckpt if ckpt else p.flops_tok
    rate = sh.gpus * sh.peak * sh.mfu
    compute = flops_tok * step_tokens / rate
    dp = 0.0
    if nd > 1:
        if zero <= 1:
            dp = ar
        elif zero == 2:
            dp = 0.5 * (k + 1) * ar
        else:
            dp = 1.5 * k * ar + (k * base_ar if p.adapter else 0.0)
    tp = 0.0
    if t > 1:
        tp = k * p.L * (6 if ckpt else 4) * 2.0 * (t - 1) / t * BF16_BYTES * p.s * mb * p.h / sh.bw_intra
    exposed = dp - COMM_OVERLAP * min(dp, compute) + (1.0 - TP_COMM_OVERLAP) * tp
    eff = compute / (compute + exposed)
    return flops_tok * p.D / (rate * eff) / 3600.0, eff


def _act_table(p: _Profile) -> dict[tuple[int, bool, int], float]:
    return {(t, ck, mb): _activation_bytes(p, t, ck, mb) for t in TP_DEGREES for ck in (False, True) for mb in MICRO_BATCHES}


def _best_strategy(p: _Profile, sh: _Shape):
    """Fastest strategy that fits (ties → less memory): (strategy, parts, hours, eff); when none fits,
    (None, parts, leanest strategy, None).

    Branch and bound: hours ≥ FLOPs / (G·peak·MFU) (efficiency ≤ 1), so checkpointing strategies are
    only tried when no strategy without it beats their bound. Plain DP is skipped when it has
    something to shard (ZeRO-1 has the same traffic and needs less memory)."""
    acts = p.act_table
    cap = sh.mem_cap
    rate = sh.gpus * sh.peak * sh.mfu
    tps = [t for t in TP_DEGREES if t <= sh.max_tp and not sh.gpn % t and not p.a % t and not sh.gpus % t]
    ar = {t: _allreduce_s(BF16_BYTES * p.trainable, t, sh) for t in tps}
    base_ar = {t: _allreduce_s(p.base_bytes, t, sh) for t in tps} if p.adapter else dict.fromkeys(tps, 0.0)
    best_h = math.inf
    best = None  # (mem, strategy, eff)
    for ckpt in (False, True):
        bound = (p.flops_tok_ckpt if ckpt else p.flops_tok) * p.D / rate / 3600.0
        if bound > best_h * (1 + _REL_TIE):
            break
        for t in tps:
            nd = sh.gpus // t
            bucket = min(COMM_BUCKET_BYTES, BF16_BYTES * p.trainable / t) if sh.gpus > 1 else 0.0
            for zero in ((1, 2, 3) if nd > 1 else (0,)):
                w, g, o = _state_bytes(p, zero, t, nd)
                fixed = w + g + o + bucket
                for mb in MICRO_BATCHES:
                    mem = CUDA_CONTEXT_BYTES + (1.0 + FRAGMENTATION) * (fixed + acts[t, ckpt, mb])
                    if mem > cap:
                        break  # larger micro-batches only need more
                    timed = _step_time(p, zero, t, ckpt, mb, sh, ar[t], base_ar[t])
                    if timed is None:
                        break
                    hours, eff = timed
                    if hours < best_h * (1 - _REL_TIE) or (hours <= best_h * (1 + _REL_TIE) and mem < best[0]):
                        best_h, best = hours, (mem, Strategy(zero, t, ckpt, mb), eff)
    if best is not None:
        st = best[1]
        return st, _memory(p, st.zero_stage, st.tensor_parallel, True if st.checkpointing else False, st.micro_batch, sh.gpus), best_h, best[2]
    # nothing fits: the leanest strategy (checkpointing, micro-batch 1, most sharding)
    least = None
    for t in tps:
        nd = sh.gpus // t
        for zero in ((1, 2, 3) if nd > 1 else (0,)):
            parts = _memory(p, zero, t, True, 1, sh.gpus)
            mem = sum(parts)
            if least is None or mem < least[0]:
                least = (mem, Strategy(zero, t, True, 1), parts)
    return None, least[2], least[1], None


# --- offers and shapes ----------------------------------------------------------------------------


def node_counts(cap: int) -> list[int]:
    """1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, ... (powers of two and 3·2^k) up to ``cap``."""
    out, k = [], 1
    while k <= cap:
        out.append(k)
        if 3 * k // 2 <= cap and k >= 2:
            out.append(3 * k // 2)
        k *= 2
    return sorted(set(out))


def _intra_bw(gpu: GPU, offer_intra: str, gpn: int) -> float:
    """GB/s per direction between GPUs of one node."""
    if offer_intra == "pcie":
        return gpu.pcie_gbs / 2
    if offer_intra == "nvlink" and gpu.form_factor in ("pcie", "consumer") and gpn > 2:
        return gpu.pcie_gbs / 2  # bridges link pairs only; the ring crosses PCIe
    return gpu.gpu_link_gbs / 2


def reference_offer(gpu_id: str, total_gpus: int) -> tuple[Offer, int]:
    """A reference node of that GPU and the node count holding ``total_gpus`` GPUs.

    SXM/OAM: 8 per node on the baseboard fabric (NVSwitch for SXM), InfiniBand NDR with one 400G rail
    per GPU. PCIe/consumer: the GPU table's usual server. Host RAM 2× the node's GPU memory, 16 CPU
    cores per GPU and 30 TB NVMe (DGX H100-like), so only GPU memory and interconnect decide."""
    table = gpu_table()
    gid = table.resolve(gpu_id)
    if gid is None:
        raise ValueError(table.unknown_message(gpu_id))
    g = table[gid]
    if g.form_factor in ("sxm", "oam"):
        gpn, intra, inter, rails = 8, ("nvswitch" if g.form_factor == "sxm" else g.default_intra_node), "ib-ndr", 8
    else:
        gpn, intra, inter, rails = g.default_gpus_per_node, g.default_intra_node, g.default_inter_node, 1
    if total_gpus < gpn:  # a smaller box holding exactly the GPUs asked for
        gpn = max(1, total_gpus)
        rails = min(rails, gpn)
    nodes = max(1, math.ceil(total_gpus / gpn))
    offer = Offer.model_validate(
        {
            "id": f"reference-{gid}",
            "vendor": "reference",
            "mode": "cloud",
            "region": "any",
            "gpu": gid,
            "gpus_per_node": gpn,
            "intra_node": intra,
            "inter_node": inter,
            "inter_node_rails": rails,
            "ram_gb": 2.0 * gpn * g.memory_gb,
            "nvme_tb": 30.0,
            "cpu_cores": 16 * gpn,
            "max_nodes": nodes,
            "price_per_node_hour": REFERENCE_PRICE_PER_NODE_HOUR,
            "source": REFERENCE_SOURCE,
            "quoted_on": "2026-01-01",
        }
    )
    return offer, nodes


def is_reference(offer: Offer) -> bool:
    return offer.source == REFERENCE_SOURCE


def _region_reason(offer: Offer, team_area: str | None, settings: SizingSettings) -> Reason | None:
    if not team_area or is_reference(offer):
        return None
    area = offer.area
    if area == team_area or (area == "cn") == (team_area == "cn"):
        return None
    if offer.network_line in {x.strip().lower() for x in settings.premium_lines}:
        return None
    return Reason(Rule.REGION, (
        f"team in {team_area} and offer in {offer.region} are on opposite sides of the mainland-China border; "
        f"network line '{offer.network_line}' is not a premium line ({', '.join(settings.premium_lines)})"
    ))


def _fmt(x: float) -> str:
    return f"{x:.3g}" if x < 10 else f"{x:,.0f}"


# --- sizing ---------------------------------------------------------------------------------------


def size_workload(workload: Workload, offers: list[Offer], settings: SizingSettings, team_area: str | None, gpus=None) -> WorkloadSizing:
    """Every shape (offer × node count) of ``workload`` with its fit verdict, strategy and hours."""
    table = gpus if gpus is not None else gpu_table()
    p = _profile(workload, settings)
    total_flops = p.flops_tok * p.D
    unsharded = _breakdown(_memory(p, 0, 1, False, 1, 1))
    candidates: list[Candidate] = []
    cache: dict[tuple, tuple] = {}
    for offer in offers:
        g: GPU = table[offer.gpu]
        gpn = offer.gpus_per_node
        ref = is_reference(offer)
        cap = offer.max_nodes if ref else min(offer.max_nodes, settings.max_nodes_per_job)
        counts = node_counts(cap)
        if ref and cap not in counts:
            counts.append(cap)
        # offer-level reasons
        offer_reasons: list[Reason] = []
        if p.allowed is not None and offer.gpu not in p.allowed:
            offer_reasons.append(Reason(Rule.GPU_NOT_ALLOWED, f"{offer.gpu} is not in the workload's allowed_gpus ({', '.join(sorted(p.allowed))})"))
        region = _region_reason(offer, team_area, settings)
        if region:
            offer_reasons.append(region)
        node_gpu_gb = gpn * g.memory_gb
        need_ram = settings.host_ram_ratio * node_gpu_gb
        if offer.ram_gb < need_ram - 1e-9:
            offer_reasons.append(Reason(Rule.HOST_RAM,
                f"host RAM {_fmt(offer.ram_gb)} GB < {settings.host_ram_ratio:g} × the node's {_fmt(node_gpu_gb)} GB of GPU memory = {_fmt(need_ram)} GB"
            ))
        cores_per_gpu = offer.cpu_cores / gpn
        if cores_per_gpu < settings.cpu_cores_per_gpu - 1e-9:
            offer_reasons.append(Reason(Rule.CPU_CORES,
                f"{cores_per_gpu:.3g} CPU cores per GPU ({offer.cpu_cores} cores / {gpn} GPU{'s' if gpn > 1 else ''}) < {settings.cpu_cores_per_gpu:g} required"
            ))
        bw_intra = _intra_bw(g, offer.intra_node, gpn)
        fabric = offer.fabric_gbps
        mfu = workload.mfu if workload.mfu is not None else default_mfu(g, workload.method)
        mem_cap = usable_memory_gb(g) * GB
        for nodes in counts:
            n_gpus = nodes * gpn
            reasons = list(offer_reasons)
            if nodes > 1 and fabric < settings.min_inter_node_gbps - 1e-9:
                have = "no inter-node fabric" if offer.inter_node == "none" else f"{offer.inter_node} ({fabric:g} Gb/s per node)"
                reasons.append(Reason(Rule.FABRIC, f"multi-node needs ≥{settings.min_inter_node_gbps:g} Gb/s fabric; offer has {have}"))
            key = (g.id, gpn, nodes, bw_intra, fabric, mfu)
            hit = cache.get(key)
            if hit is None:
                sh = _Shape()
                sh.gpus, sh.gpn, sh.nodes = n_gpus, gpn, nodes
                sh.bw_intra = bw_intra * GB  # bytes/s
                sh.bw_inter = fabric / 8.0 * GB if fabric > 0 else 1.0  # bytes/s per node
                sh.peak = g.bf16_dense_tflops * 1e12
                sh.mfu = mfu
                sh.mem_cap = mem_cap
                sh.max_tp = gpn
                st, parts, third, eff0 = _best_strategy(p, sh)
                hit = (st, _breakdown(parts), third, eff0)
                cache[key] = hit
            strategy, mem, third, eff = hit
            hours = gpu_hours = None
            if strategy is None:
                least: Strategy = third
                ck = "checkpointing" if least.checkpointing else "no checkpointing"
                if n_gpus // least.tensor_parallel > 1:
                    how = f"ZeRO-{least.zero_stage}, TP{least.tensor_parallel}, {ck} and micro-batch {least.micro_batch} on {n_gpus} GPUs"
                elif least.tensor_parallel > 1:
                    how = f"TP{least.tensor_parallel} over all {n_gpus} GPUs, {ck} and micro-batch {least.micro_batch}"
                else:
                    how = f"{ck} and micro-batch {least.micro_batch} on one GPU"
                reasons.insert(
                    len(offer_reasons),
                    Reason(Rule.GPU_MEMORY, f"needs {mem.total:.1f} GB per GPU even with {how}; {g.id} has {mem_cap / GB:.1f} GB usable ({g.memory_gb:g} GB datasheet)"),
                )
            else:
                hours = third
                gpu_hours = hours * n_gpus
                if eff < settings.min_efficiency - 1e-12:
                    link = offer.intra_node + (f" inside, {offer.inter_node} between nodes" if nodes > 1 else " inside the node")
                    reasons.append(Reason(Rule.INTERCONNECT_BOUND,
                        f"interconnect-bound: scaling efficiency {eff:.2f} < {settings.min_efficiency:g} on {nodes} × {gpn} × {g.id} ({link})"
                    ))
            need_tb = (p.dataset_tb + p.kept * p.ckpt_bytes / TB) / nodes
            if offer.nvme_tb < need_tb - 1e-9:
                reasons.append(Reason(Rule.NVME,
                    f"needs {need_tb:.3g} TB of NVMe per node (dataset {p.dataset_tb:g} TB + {p.kept} checkpoint(s) of "
                    f"{p.ckpt_bytes / TB:.3g} TB, sharded over {nodes} node(s)); offer has {offer.nvme_tb:g} TB"
                ))
            fits = not reasons
            candidates.append(
                Candidate(
                    workload=p.name,
                    offer_id=offer.id,
                    gpu=g.id,
                    nodes=nodes,
                    gpus=n_gpus,
                    strategy=strategy,
                    per_gpu_memory_gb=mem.total,
                    memory=mem,
                    fits=fits,
                    reasons=tuple(reasons),
                    hours=hours,
                    gpu_hours=gpu_hours,
                    efficiency=eff,
                )
            )
    return WorkloadSizing(workload=workload, total_flops=total_flops, memory_gb=unsharded, candidates=candidates)


def size_project(project: Project, offers: list[Offer]) -> list[WorkloadSizing]:
    table = gpu_table()
    return [size_workload(w, offers, project.sizing, project.team_area, table) for w in project.workloads]


def evaluate_strategy(workload: Workload, offer: Offer, nodes: int, strategy: Strategy, settings: SizingSettings | None = None, gpus=None) -> tuple[float, float, MemoryBreakdown]:
    """(hours, efficiency, per-GPU memory) of ``workload`` on ``nodes`` nodes of ``offer`` under a
    fixed ``strategy`` — no fit checks; for what-if questions and tests."""
    table = gpus if gpus is not None else gpu_table()
    g: GPU = table[offer.gpu]
    p = _profile(workload, settings)
    sh = _Shape()
    sh.gpus, sh.gpn, sh.nodes = nodes * offer.gpus_per_node, offer.gpus_per_node, nodes
    sh.bw_intra = _intra_bw(g, offer.intra_node, offer.gpus_per_node) * GB
    sh.bw_inter = offer.fabric_gbps / 8.0 * GB if offer.fabric_gbps > 0 else 1.0
    sh.peak = g.bf16_dense_tflops * 1e12
    sh.mfu = workload.mfu if workload.mfu is not None else default_mfu(g, workload.method)
    sh.mem_cap = usable_memory_gb(g) * GB
    sh.max_tp = offer.gpus_per_node
    t = strategy.tensor_parallel
    if sh.gpus % t or sh.gpn % t:
        raise ValueError(f"TP{t} does not divide {sh.gpus} GPUs / {sh.gpn} per node")
    ar = _allreduce_s(BF16_BYTES * p.trainable, t, sh)
    base_ar = _allreduce_s(p.base_bytes, t, sh) if p.adapter else 0.0
    timed = _step_time(p, strategy.zero_stage, t, strategy.checkpointing, strategy.micro_batch, sh, ar, base_ar)
    if timed is None:
        raise ValueError(f"micro-batch {strategy.micro_batch} would exceed the global batch on {sh.gpus} GPUs")
    mem = _breakdown(_memory(p, strategy.zero_stage, t, strategy.checkpointing, strategy.micro_batch, sh.gpus))
    return timed[0], timed[1], mem
