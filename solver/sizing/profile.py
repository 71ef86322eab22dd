"""The workload's numbers, computed once per sizing run (plain floats: no pydantic in the hot loop)."""

from __future__ import annotations

from procure.models.project import SizingSettings, Workload

from .compute import flops_per_token
from .constants import BF16_BYTES, CHECKPOINT_BYTES_PER_PARAM, GLOBAL_BATCH_TOKENS, NF4_BITS_PER_PARAM
from .memory import activation_bytes, activation_coefficient, breakdown, is_gated, memory_parts
from .results import MemoryBreakdown, Strategy

#: The strategy search space: tensor-parallel degrees and micro-batch sizes tried per shape.
TP_DEGREES = (1, 2, 4, 8)
MICRO_BATCHES = (1, 2, 4, 8)
ZERO_STAGES = (0, 1, 2, 3)


class Profile:
    """P, N, A params; L, h, a, V, s shapes; byte and FLOP counts; see memory.py for the symbols."""

    __slots__ = (
        "name", "method", "adapter", "P", "N", "A", "L", "h", "a", "V", "s", "base_bytes", "trainable",
        "largest", "act_coef", "flops_tok", "flops_tok_ckpt", "D", "global_tokens", "ckpt_bytes",
        "dataset_tb", "kept", "mfu", "allowed", "act_table",
    )


def adapter_params(workload: Workload) -> float:
    """LoRA parameters: r·(d_in + d_out) on q, k, v, o, gate, up, down of every layer."""
    m = workload.model
    h, f, r = m.hidden_size, m.ffn_hidden_size, workload.lora_rank
    kv_width = h * (m.kv_heads or m.heads) / m.heads
    per_layer = r * ((h + h) + 2 * (h + kv_width) + (h + h))  # q, k, v, o
    per_layer += r * (3 * (h + f) if is_gated(h, f) else 2 * (h + f))  # gate/up/down or fc1/fc2
    return per_layer * m.layers


def profile(w: Workload, settings: SizingSettings | None = None) -> Profile:
    m = w.model
    p = Profile()
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
    p.flops_tok = flops_per_token(p, False, w.method)
    p.flops_tok_ckpt = flops_per_token(p, True, w.method)
    p.D = w.tokens_b * 1e9
    gb = settings.global_batch_tokens_m * 1e6 if settings and settings.global_batch_tokens_m else GLOBAL_BATCH_TOKENS[w.method]
    p.global_tokens = gb
    p.ckpt_bytes = CHECKPOINT_BYTES_PER_PARAM * (p.A if p.adapter else p.P)
    p.dataset_tb = w.dataset_tb
    p.kept = w.checkpoints_kept
    p.mfu = w.mfu
    p.allowed = set(w.allowed_gpus) if w.allowed_gpus else None
    p.act_table = {(t, ck, mb): activation_bytes(p, t, ck, mb) for t in TP_DEGREES for ck in (False, True) for mb in MICRO_BATCHES}
    return p


def training_flops(workload: Workload, checkpointing: bool) -> float:
    """Total training FLOPs (see compute.py)."""
    p = profile(workload)
    return (p.flops_tok_ckpt if checkpointing else p.flops_tok) * p.D


def memory_breakdown(workload: Workload, strategy: Strategy, gpus: int) -> MemoryBreakdown:
    """Per-GPU memory (GB) of ``workload`` under ``strategy`` on ``gpus`` GPUs."""
    p = profile(workload)
    return breakdown(memory_parts(p, strategy.zero_stage, strategy.tensor_parallel, strategy.checkpointing, strategy.micro_batch, gpus))
