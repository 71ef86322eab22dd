"""Compute and communication: FLOPs per token, MFU, and the time of one optimizer step.

FLOPs per token (Kaplan et al. 2020; PaLM, Chowdhery et al. 2022, App. B; Narayanan et al. 2021,
Megatron): dense 6·N (forward 2N, backward 4N) plus attention 12·L·s·h (QKᵀ and AV, forward 4·L·s·h,
backward twice that; PaLM's MFU convention, no causal-mask discount). Adapter methods skip the base's
weight-gradient GEMMs: 4·N + 6·A (+ the same attention term). Checkpointing adds one forward:
+2·N + 4·L·s·h. QLoRA multiplies the total by QLORA_DEQUANT_OVERHEAD (NF4 → bf16 dequantization
before every base GEMM). Total = per-token FLOPs × D, D = tokens_b·1e9.

hours = FLOPs / (G · bf16_dense_tflops·1e12 · MFU · efficiency) / 3600, MFU from ``default_mfu`` or
``workload.mfu``. efficiency = compute / (compute + exposed communication) per optimizer step:

* step: global batch B_g tokens (GLOBAL_BATCH_TOKENS per method, or ``SizingSettings.
  global_batch_tokens_m``), at least one sequence per data-parallel rank (when N_d·s > B_g the global
  batch grows to N_d·s); k = ceil(B_g / (N_d·s·b)) micro-steps. A micro-batch that would push the step
  beyond max(B_g, N_d·s) tokens is not considered.
* gradient all-reduce of W bytes (bf16 grads of the trainable params), ring 2(n−1)/n·W, hierarchical:
  inside the node over the GPU link among the node's gpn/t ranks of one DP group, then across nodes
  2(n−1)/n·W over the node's fabric fabric_gbps/8 GB/s shared by its GPUs. Volume per step: DP and
  ZeRO-1 once; ZeRO-2 a reduce-scatter every micro-step plus one all-gather ((k+1)/2 all-reduces);
  ZeRO-3 two all-gathers and one reduce-scatter every micro-step (1.5·k; ZeRO §7). lora/qlora reduce
  only adapter gradients, and under ZeRO-3 also gather the frozen base each micro-step (1·k
  all-reduce-equivalents of it).
* tensor parallel: 4 all-reduces of 2·s·b·h bytes per layer per micro-batch (2 forward, 2 backward;
  Megatron-LM, Shoeybi et al. 2019 §3), 6 with checkpointing (the recomputed forward), inside the
  node; not overlapped (they sit on the critical path).
* exposed DP communication = comm − COMM_OVERLAP · min(comm, compute): bucketed gradient reduction
  overlaps the backward pass (PyTorch DDP, Li et al. 2020, VLDB).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from procure.models.gpu import GPU

from .constants import (
    BF16_BYTES,
    COMM_OVERLAP,
    HOPPER_CLASS_MIN_TFLOPS,
    MFU_ADAPTER_FACTOR,
    MFU_AMPERE_CLASS,
    MFU_CONSUMER,
    MFU_HOPPER_CLASS,
    QLORA_DEQUANT_OVERHEAD,
    TP_COMM_OVERLAP,
)

if TYPE_CHECKING:
    from .profile import Profile


def flops_per_token(p: Profile, ckpt: bool, method: str) -> float:
    """Training FLOPs per token (see the module docstring)."""
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


def default_mfu(gpu: GPU, method: str) -> float:
    """Model FLOPs utilization by GPU class (constants MFU_*), × MFU_ADAPTER_FACTOR for adapters."""
    if gpu.form_factor == "consumer":
        base = MFU_CONSUMER
    elif gpu.bf16_dense_tflops > HOPPER_CLASS_MIN_TFLOPS:
        base = MFU_HOPPER_CLASS
    else:
        base = MFU_AMPERE_CLASS
    return base * (MFU_ADAPTER_FACTOR if method in ("lora", "qlora") else 1.0)


class Shape:
    """One cluster shape as the step-time model sees it (bytes/s, FLOP/s, bytes)."""

    __slots__ = ("gpus", "gpn", "nodes", "bw_intra", "bw_inter", "peak", "mfu", "mem_cap", "max_tp")


def allreduce_s(bytes_full: float, t: int, sh: Shape) -> float:
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


def step_time(p: Profile, zero: int, t: int, ckpt: bool, mb: int, sh: Shape, ar: float, base_ar: float) -> tuple[float, float] | None:
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
