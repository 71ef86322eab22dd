"""Compute and communication: FLOPs per token, MFU, and the time of one optimizer step.

FLOPs per token (Kaplan et al. 2020; PaLM, Chowdhery et al. 2022, App. B; Narayanan et al. 2021,
Megatron): dense 6·N (forward 2N, backward 4N) plus causal attention 6·L·s·h: QKᵀ and AV are 12·L·s·h
forward and backward over the full s×s square (PaLM's convention), and a causal mask leaves half of it,
which a causal FlashAttention kernel skips block by block (Dao 2023, FlashAttention-2,
arXiv:2307.08691 §3.1.1, causal masking; its benchmarks count causal FLOPs as half). Eager attention
computes the whole square and then masks it (``attention_rate``). Published MFU tables that count 12·L·s·h (Megatron-LM, LLM Foundry) are converted with
``attention_flops_per_token(..., causal=False)``. Adapter methods skip the base's weight-gradient GEMMs:
4·N + 6·A (+ the same attention term). Checkpointing adds one forward: +2·N + 2·L·s·h. QLoRA multiplies
the total by QLORA_DEQUANT_OVERHEAD (NF4 → bf16 dequantization before every base GEMM). Total =
per-token FLOPs × D, D = tokens_b·1e9. MFU (the one definition the output uses): these model FLOPs per
token (no recomputation) × tokens/s ÷ dense BF16 peak.

Step time (``step_time``; every constant with its source in constants.yaml): with d = G/(t·pp)
data-parallel replicas and m = ceil(B / (d·s·b)) micro-batches per replica per optimizer step of B tokens
(the workload's global_batch_tokens, the project's, or the DeepSeek LLM batch law for pretraining),

* compute = (GEMM FLOPs × moe_gemm_stretch / gemm_speed + attention FLOPs / ATTENTION_RELATIVE_EFFICIENCY)
  × B / (G · bf16 peak · MFU) × ceil(L/pp)·pp/L (the slowest pipeline stage); gemm_speed > 1 only for FP8;
  moe_gemm_stretch > 1 only for mixture-of-experts models whose routed-expert GEMMs are small against the
  GPU's ridge point (``expert_gemm_factor``);
* + pipeline bubble (``bubble_fraction``: 1F1B, interleaved, ZB1P, DualPipe) and point-to-point sends;
* + exposed data-parallel gradient traffic (``allreduce_s``, hierarchical ring over the GPU link and the
  GPU's share of the node fabric; ZeRO-1 once per step, ZeRO-2 (m+1)/2, ZeRO-3 1.5·m, ZeRO §7) minus
  COMM_OVERLAP of it hidden behind compute (PyTorch DDP, Li et al. 2020; FSDP prefetch);
* + tensor-parallel all-reduces (4, or 6 with checkpointing, of 2·s·b·h bytes per layer per micro-batch;
  Megatron-LM, Shoeybi et al. 2019 §3), TP_COMM_OVERLAP of them hidden (Megatron-Core --tp-comm-overlap);
* + expert all-to-all (``a2a_s``), hidden (DUALPIPE_A2A_OVERLAP) only under the DualPipe schedule, which
  a layout gets only when it pins it; else only behind the shared experts' compute;
* + with ZeRO-Offload, the gradient and weight copies over PCIe and the CPU's Adam step (``offload_s``).

efficiency = compute / step time; in-step hours = steps × step time; wall-clock hours add the whole-run
losses (``goodput.wall_hours``: overhead, interruptions growing with the GPU count, a one-off start).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from procure.models.gpu import GPU

from .constants import (
    ATTENTION_RELATIVE_EFFICIENCY,
    BF16_BYTES,
    COMM_OVERLAP,
    CPU_ADAM_BYTES_PER_PARAM,
    DUALPIPE_A2A_OVERLAP,
    FLASH_ATTENTION_SPEEDUP,
    FP8_GEMM_EFFICIENCY,
    FP8_GEMM_EFFICIENCY_CDNA3,
    MFU_ADAPTER_FACTOR,
    MFU_BY_ARCHITECTURE,
    MFU_CONSUMER,
    MFU_GROUP,
    MFU_HIDDEN_HALF,
    MFU_MAX,
    MFU_REFERENCE_HIDDEN,
    MOE_MFU_FACTOR,
    QLORA_DEQUANT_OVERHEAD,
    TP_COMM_OVERLAP,
)
from .goodput import wall_hours
from .memory import trainable_shard

if TYPE_CHECKING:
    from .profile import Profile


def flops_per_token(p: Profile, ckpt: bool, method: str, causal: bool = True) -> float:
    """Training FLOPs per token (see the module docstring); ``causal=False`` counts attention over the
    full s×s square, the convention of published MFU tables (Megatron-LM, LLM Foundry, PaLM)."""
    att = attention_flops_per_token(p, ckpt, method, causal)
    return gemm_flops_per_token(p, ckpt, method) + att


def attention_flops_per_token(p: Profile, ckpt: bool, method: str, causal: bool = True) -> float:
    """Causal attention: half of 12·L·s·h (QKᵀ and AV, forward and backward), the blocks above the
    diagonal skipped (FlashAttention-2, arXiv:2307.08691 §3.1.1); 12·L·s·h with ``causal=False``;
    + 1/3 with checkpointing (one more forward); × QLoRA dequantization."""
    att = (6.0 if causal else 12.0) * p.L * p.s * p.h
    if ckpt:
        att += att / 3.0
    return att * (QLORA_DEQUANT_OVERHEAD if method == "qlora" else 1.0)


def gemm_flops_per_token(p: Profile, ckpt: bool, method: str) -> float:
    """The weight matrix multiplies: 6·N (4·N + 6·A for adapters), + 2·N with checkpointing."""
    per = 4.0 * p.N + 6.0 * p.A if method in ("lora", "qlora") else 6.0 * p.N
    if ckpt:
        per += 2.0 * p.N
    return per * (QLORA_DEQUANT_OVERHEAD if method == "qlora" else 1.0)


def _family(gpu: GPU) -> str:
    return "consumer" if gpu.form_factor == "consumer" else gpu.architecture


def hidden_factor(gpu: GPU, hidden: int | None) -> float:
    """The hidden-size factor on MFU: (1 + h½/MFU_REFERENCE_HIDDEN) / (1 + h½/h), 1 at the reference
    hidden size 8192, below it for narrower models, above it for wider ones. GEMM FLOPs per token grow as
    h², the memory- and latency-bound work around them (norms, activations, rotary, softmax, small
    collectives) about as h, so a step takes h²·(1 + h½/h) GEMM-time units; h½ = MFU_HIDDEN_HALF_<FAMILY>,
    fitted on published whole runs (constants.yaml). ``default_mfu`` caps the product at MFU_MAX."""
    half = MFU_HIDDEN_HALF[_family(gpu)]
    if hidden is None or half <= 0:
        return 1.0
    return (1.0 + half / MFU_REFERENCE_HIDDEN) / (1.0 + half / hidden)


def default_mfu(gpu: GPU, method: str, moe: bool = False, hidden: int | None = None) -> float:
    """In-step rate of the step's matrix multiplies as a fraction of dense BF16 peak, by GPU architecture
    family (MFU_AMPERE, MFU_ADA, MFU_HOPPER, MFU_BLACKWELL, MFU_CDNA3; GeForce cards MFU_CONSUMER) at hidden
    size 8192, × the hidden-size factor (``hidden_factor``), at most MFU_MAX; mixture-of-experts models ×
    MOE_MFU_FACTOR (routing, token permutation, load imbalance; the routed experts' small GEMMs are timed
    apart, ``expert_gemm_factor``); adapters × MFU_ADAPTER_FACTOR. Not the MFU a run reports (that is
    model FLOPs × tokens/s ÷ peak, shapes.in_step_rates): this is the speed of the GEMMs alone, before
    attention, communication and the pipeline bubble. Each value and its source are in constants.yaml."""
    base = MFU_CONSUMER if gpu.form_factor == "consumer" else MFU_BY_ARCHITECTURE[gpu.architecture]
    base = min(MFU_MAX[_family(gpu)], base * hidden_factor(gpu, hidden))
    if moe:
        base *= MOE_MFU_FACTOR
    return base * (MFU_ADAPTER_FACTOR if method in ("lora", "qlora") else 1.0)


def mfu_basis(gpu: GPU, method: str, moe: bool = False) -> str:
    """The constants ``default_mfu`` multiplies, by name (their sources are in constants.yaml and on the
    workbook's Assumptions sheet), e.g. "MFU_AMPERE", "MFU_HOPPER × hidden-size factor
    (MFU_HIDDEN_HALF_HOPPER)" or "MFU_HOPPER × hidden-size factor (…) × MOE_MFU_FACTOR"."""
    names = ["MFU_CONSUMER" if gpu.form_factor == "consumer" else f"MFU_{gpu.architecture.upper()}"]
    if MFU_HIDDEN_HALF[_family(gpu)] > 0:
        names.append(f"hidden-size factor (MFU_HIDDEN_HALF_{MFU_GROUP[_family(gpu)]})")
    if method in ("lora", "qlora"):
        names.append("MFU_ADAPTER_FACTOR")
    if moe:
        names.append("MOE_MFU_FACTOR")
    return " × ".join(names)


def gemm_intensity(n: float, k: float, m: float) -> float:
    """FLOP per byte of an (n × k) · (k × m) matrix multiply in 16-bit: 2·n·k·m FLOPs over 2 B × (n·k + k·m
    + n·m) of inputs and output read or written once (the roofline's arithmetic intensity; Williams et al.
    2009, Roofline, CACM 52(4))."""
    return n * k * m / (n * k + k * m + n * m)


#: The reference GEMM the MFU_<FAMILY> constants are read at: the FFN of a hidden-8192 model (ffn 28,672, as
#: Llama 2/3 70B) on a micro-batch of 4,096 tokens (the Megatron-Core 70B benchmark, REFERENCE-RUNS C18):
#: about 2,493 FLOP/byte.
REFERENCE_GEMM_INTENSITY = gemm_intensity(4096.0, 8192.0, 28672.0)


def expert_gemm_factor(p: Profile, mb: int, ep: int, sh: Shape) -> float:
    """Speed of the routed experts' GEMMs against the reference dense GEMM, from the roofline with compute
    and memory traffic not overlapped (time = FLOPs / peak + bytes / HBM bandwidth, so a GEMM of intensity
    I runs at 1 / (1 + R/I) of peak, R = peak ÷ HBM bandwidth, the GPU's ridge point): (1 + R/I_ref) /
    (1 + R/I_e), at most 1. Each expert multiplies n = s·b·k·ep/E tokens (a micro-batch's tokens, k
    experts each, gathered from the ep ranks of its expert-parallel group) by its h × f_e matrices, so
    fine-grained experts (small f_e, many E) on few GPUs fall below the ridge and run slower, on any GPU
    whose FLOP rate grew faster than its memory bandwidth."""
    if not (p.L_moe and p.E and p.k and p.f_e):
        return 1.0
    n = p.s * mb * p.k * max(1, ep) / p.E
    ridge = sh.peak / sh.hbm_bw
    return min(1.0, (1.0 + ridge / REFERENCE_GEMM_INTENSITY) / (1.0 + ridge / gemm_intensity(n, p.h, p.f_e)))


def moe_gemm_stretch(p: Profile, mb: int, ep: int, sh: Shape) -> float:
    """How much longer the step's GEMMs take because the routed experts run at ``expert_gemm_factor``: 1 +
    share × (1/factor − 1), share = the routed experts' part of the model's GEMM FLOPs, 18·h·f_e·k·L_moe
    (a gated MLP of three h × f_e matrices per active expert, forward and backward) over 6·N."""
    if not (p.L_moe and p.E and p.k and p.f_e):
        return 1.0
    share = min(1.0, 18.0 * p.h * p.f_e * p.k * p.L_moe / (6.0 * p.N))
    return 1.0 + share * (1.0 / expert_gemm_factor(p, mb, ep, sh) - 1.0)


def attention_rate(flash: bool) -> float:
    """Causal attention FLOP rate relative to the GEMM rate: ATTENTION_RELATIVE_EFFICIENCY with fused (flash)
    kernels; without them (the workload's ``flash_attention: false``) FLASH_ATTENTION_SPEEDUP times less,
    and half again, since eager attention computes the whole s×s square before masking it while the
    attention FLOPs count its causal half."""
    if flash:
        return ATTENTION_RELATIVE_EFFICIENCY
    return ATTENTION_RELATIVE_EFFICIENCY / FLASH_ATTENTION_SPEEDUP / 2.0


def fp8_gemm_speedup(gpu: GPU) -> float:
    """How much faster an FP8 GEMM runs than a BF16 one: fp8/bf16 dense peak × FP8_GEMM_EFFICIENCY
    (FP8_GEMM_EFFICIENCY_CDNA3 on AMD CDNA3, from its measured FP8 training speed); never below 1: a
    framework falls back to BF16 where FP8 would be slower."""
    if gpu.fp8_dense_tflops is None:
        return 1.0
    eff = FP8_GEMM_EFFICIENCY_CDNA3 if gpu.architecture in ("cdna3", "cdna4") else FP8_GEMM_EFFICIENCY
    return max(1.0, gpu.fp8_dense_tflops / gpu.bf16_dense_tflops * eff)


class Shape:
    """One cluster shape as the step-time model sees it (bytes/s, FLOP/s, bytes). ``bw_inter`` is the
    node's fabric (all its GPUs share it); ``gemm_speed`` the GEMM speed-up of the precision."""

    __slots__ = (
        "gpus",
        "gpn",
        "nodes",
        "bw_intra",
        "bw_inter",
        "peak",
        "mfu",
        "mem_cap",
        "max_tp",
        "gemm_speed",
        "pcie",
        "host_bw",
        "hbm_bw",
    )

    gpus: int
    gpn: int
    nodes: int
    bw_intra: float
    bw_inter: float
    peak: float
    mfu: float
    mem_cap: float
    max_tp: int
    gemm_speed: float
    pcie: float  # achieved host link per GPU per direction, bytes/s
    host_bw: float  # the node's host memory bandwidth, bytes/s
    hbm_bw: float  # the GPU's memory bandwidth, bytes/s (the ridge point of ``expert_gemm_factor``)


def allreduce_s(nbytes: float, n: int, local: int, sh: Shape) -> float:
    """Seconds for a hierarchical ring all-reduce of ``nbytes`` per GPU among ``n`` ranks, ``local`` of
    them inside one node: 2(l−1)/l·B over the GPU link, then each GPU's B/l shard in a ring over the
    n/l nodes, 2(k−1)/k·(B/l) at the GPU's share of the node fabric (bw_inter / gpn)."""
    if n <= 1:
        return 0.0
    local = max(1, min(local, n))
    sec = 2.0 * (local - 1) / local * nbytes / sh.bw_intra if local > 1 else 0.0
    k = n / local
    if k > 1:
        sec += 2.0 * (k - 1) / k * (nbytes / local) / (sh.bw_inter / sh.gpn)
    return sec


def bubble_fraction(pp: int, m: int, schedule: str, v: int) -> float:
    """Pipeline bubble as a fraction of the ideal step compute, m micro-batches per replica per step.

    1F1B (pp−1)/m and interleaved (pp−1)/(v·m) (Narayanan et al. 2021, arXiv:2104.04473 §2.2);
    zero-bubble ZB1P (pp−1)(F + B − 2W) and DualPipe (pp/2−1)(F&B + B − 3W) per DeepSeek-V3 Table 2
    (Qi et al. 2023, arXiv:2401.10241), with F = 1, B = 2, W = 1 (weight gradients are half the backward)
    and F&B = F + B: (pp − 1)/(3m) and 2·(pp/2 − 1)/(3m)."""
    if pp <= 1:
        return 0.0
    if schedule == "interleaved":
        return (pp - 1) / (v * m)
    if schedule == "dualpipe":
        return 2.0 * (pp / 2 - 1) / (3.0 * m)
    if schedule == "zb1p":
        return (pp - 1) / (3.0 * m)
    return (pp - 1) / m


def a2a_s(p: Profile, tokens: float, t: int, pp: int, ep: int, sh: Shape, fp8: bool) -> float:
    """Seconds of expert all-to-all per step on one GPU: dispatch + combine, forward and backward.

    Per token and MoE layer a copy of the hidden vector goes to each GPU holding one of its experts,
    c = min(k, ep) copies: dispatch 1 byte/value in FP8 (DeepSeek-V3 §3.3) or 2, combine and the two
    backward passes 2 each. Inter-node: the fraction (n_ep − 1)/n_ep of the copies leave the node, where
    n_ep is the nodes the EP group spans; with group-limited routing (routing_group_limit M) a token is
    sent once per node and reaches at most M nodes, then forwarded over NVLink (DeepSeek-V3 §3.2.2).
    IB and NVLink work in parallel: time = max(inter bytes / GPU's fabric share, intra bytes / link)."""
    if ep <= 1 or p.L_moe == 0:
        return 0.0
    per_copy = p.h * ((1.0 if fp8 else 2.0) + 2.0 + 2.0 + 2.0)
    local = max(1, min(ep, sh.gpn // t))
    n_ep = max(1, ep // local)
    c = min(p.k, ep)
    remote = (n_ep - 1) / n_ep
    inter_copies = (min(p.route_limit, n_ep) if p.route_limit else c) * remote if n_ep > 1 else 0.0
    intra_copies = c if local > 1 else 0.0
    layers = -(-p.L_moe // pp)
    per_token = max(
        inter_copies * per_copy / (sh.bw_inter / sh.gpn) if inter_copies else 0.0, intra_copies * per_copy / sh.bw_intra
    )
    return tokens * layers * per_token


def offload_s(p: Profile, zero: int, t: int, pp: int, sh: Shape) -> float:
    """Seconds ZeRO-Offload adds to one optimizer step (Ren et al. 2021, arXiv:2101.06840 §4): each GPU
    sends its shard's bf16 gradients to the host and receives the updated bf16 weights, 2 B/param each
    way over its PCIe link at PCIE_ACHIEVED_FRACTION of pcie_gbs/2, and the CPU runs Adam over the
    node's shards at CPU_ADAM_BYTES_PER_PARAM of host memory traffic per param against the node's host
    memory bandwidth. Counted as exposed: DeepSpeed's overlap of the gradient copy with the backward pass
    and its optional one-step-delayed update are not modelled (a conservative estimate)."""
    d = max(1, sh.gpus // (t * pp))
    n = trainable_shard(p, zero, t, pp, d)
    return 2.0 * BF16_BYTES * n / sh.pcie + CPU_ADAM_BYTES_PER_PARAM * n * sh.gpn / sh.host_bw


def step_time(
    p: Profile,
    zero: int,
    t: int,
    pp: int,
    ep: int,
    ckpt: bool,
    mb: int,
    schedule: str,
    v: int,
    sh: Shape,
    offload: bool = False,
) -> tuple[float, float] | None:
    """(hours, efficiency) of the whole job, or None when this micro-batch would inflate the global batch.

    d = G/(t·pp) replicas; m = ceil(B / (d·s·b)) micro-batches per replica per step. Per step:
    compute = (GEMM FLOPs / gemm_speed + attention FLOPs / ATTENTION_RELATIVE_EFFICIENCY) × step tokens /
    (G·peak·MFU) × ceil(L/pp)·pp/L
    (the slowest stage); + bubble; + exposed DP, TP and expert all-to-all communication; + pipeline
    point-to-point sends, m·v × 2 × 2·s·b·h/t bytes per GPU, over the GPU link on one node, else over the
    GPU's share of the node fabric (the slowest boundary crosses nodes); not overlapped.
    ZeRO-Offload (``offload``) adds ``offload_s``.
    efficiency = compute / step time (the scaling efficiency); hours = ``goodput.wall_hours`` of steps × step
    time."""
    d = sh.gpus // (t * pp)
    micro_tokens = d * p.s * mb
    if mb > 1 and micro_tokens > max(p.global_tokens, d * p.s):
        return None
    step_tokens = max(p.global_tokens, micro_tokens)
    m = max(1, math.ceil(step_tokens / micro_tokens - 1e-9))  # micro-batches per replica per step
    fp8 = p.fp8
    gemm = (p.gemm_tok_ckpt if ckpt else p.gemm_tok) * moe_gemm_stretch(p, mb, ep, sh) / (sh.gemm_speed if fp8 else 1.0)
    att = (p.att_tok_ckpt if ckpt else p.att_tok) / p.att_rate
    rate = sh.gpus * sh.peak * sh.mfu
    compute = (gemm + att) * step_tokens / rate
    stage_layers = -(-p.L // pp)
    slow = compute * stage_layers * pp / p.L
    bubble = slow * bubble_fraction(pp, m, schedule, v)
    dp = 0.0
    if d > 1:
        tpl = max(1, sh.gpn // t)
        ar = allreduce_s(BF16_BYTES * p.trainable_ne / (t * pp), d, tpl, sh)
        if p.trainable_e:
            de = d // ep
            ar += allreduce_s(BF16_BYTES * p.trainable_e / (t * pp * ep), de, max(1, tpl // ep), sh)
        if zero <= 1:
            dp = ar
        elif zero == 2:
            dp = 0.5 * (m + 1) * ar
        else:
            dp = 1.5 * m * ar
            if p.adapter:
                dp += m * allreduce_s(p.base_bytes / (t * pp), d, tpl, sh)
    tp = 0.0
    if t > 1:
        tp = m * stage_layers * (6 if ckpt else 4) * 2.0 * (t - 1) / t * BF16_BYTES * p.s * mb * p.h / sh.bw_intra
    p2p = 0.0
    if pp > 1:  # activations forward and their gradients backward across each stage boundary
        link = sh.bw_intra if sh.nodes == 1 else sh.bw_inter / sh.gpn  # the slowest boundary crosses nodes
        p2p = m * v * 2.0 * BF16_BYTES * p.s * mb * p.h / t / link  # interleaving sends v times as often
    a2a = 0.0
    if ep > 1:
        tokens = step_tokens / d
        a2a = a2a_s(p, tokens, t, pp, ep, sh, fp8)
        if schedule == "dualpipe":  # only where the layout pins it (search._layouts)
            hidden = DUALPIPE_A2A_OVERLAP * a2a
        else:  # the shared experts' compute runs while tokens travel (DeepSeek-V2 §3.2.3)
            shared = p.shared_tok * (4.0 / 3.0 if ckpt else 1.0) / (sh.gemm_speed if fp8 else 1.0)
            hidden = min(a2a, shared * tokens * (-(-p.L_moe // pp)) / p.L_moe / (sh.peak * sh.mfu)) if p.L_moe else 0.0
        a2a -= hidden
    exposed = dp - COMM_OVERLAP * min(dp, slow) + (1.0 - TP_COMM_OVERLAP) * tp + p2p + a2a
    if offload:
        exposed += offload_s(p, zero, t, pp, sh)
    total = slow + bubble + exposed
    eff = compute / total
    hours = wall_hours(total * (p.D / step_tokens) / 3600.0, sh.gpus, p.effective_time, p.checkpoint_hours)
    return hours, eff
