"""The workload's numbers, computed once per sizing run (plain floats: no pydantic in the hot loop)."""

from __future__ import annotations

from procure.models.project import SizingSettings, Workload

from .compute import attention_flops_per_token, attention_rate, flops_per_token, gemm_flops_per_token
from .constants import (
    BATCH_LAW_COEFFICIENT,
    BATCH_LAW_EXPONENT,
    BF16_BYTES,
    CHECKPOINT_BYTES_PER_PARAM,
    FP8_GRAD_BYTES,
    FP8_OPTIMIZER_BYTES,
    GLOBAL_BATCH_TOKENS,
    NF4_BITS_PER_PARAM,
    OPTIMIZER_BYTES,
)
from .memory import activation_coefficient, breakdown, is_gated, memory_parts
from .results import MemoryBreakdown, Parallelism

#: The strategy search space: tensor-parallel degrees and micro-batch sizes tried per shape; pipeline
#: degrees; expert-parallel degrees (MoE models with an expert layout only).
TP_DEGREES = (1, 2, 4, 8, 16, 32, 64)  # above 8 only inside a rack-scale GPU-link domain (shapes.scale_up_gpus)
MICRO_BATCHES = (1, 2, 4, 8)
ZERO_STAGES = (0, 1, 2, 3)
PP_DEGREES = (1, 2, 4, 8, 16)
EP_DEGREES = (1, 2, 4, 8, 16, 32, 64)
#: Context-parallel degrees, tried only on a shape where no layout fits without them (as the low-memory
#: optimizers) and only while each GPU keeps at least CP_MIN_TOKENS of the sequence: ring attention hides
#: its key/value exchange behind the attention of a long enough chunk (Megatron-Core context parallelism
#: is for long-context training; assumption, not fitted). A pinned context_parallel is taken as given.
CP_DEGREES = (1, 2, 4, 8, 16, 32)
CP_MIN_TOKENS = 4096


class Profile:
    """P, N, A params; L, h, a, V, s shapes; byte and FLOP counts; see memory.py for the symbols."""

    __slots__ = (
        "name",
        "method",
        "adapter",
        "P",
        "N",
        "A",
        "L",
        "h",
        "a",
        "V",
        "s",
        "base_bytes",
        "trainable",
        "largest",
        "act_coef",
        "flops_tok",
        "flops_tok_ckpt",
        "D",
        "global_tokens",
        "ckpt_bytes",
        "dataset_tb",
        "kept",
        "mfu",
        "allowed",
        "gemm_tok",
        "gemm_tok_ckpt",
        "att_tok",
        "att_tok_ckpt",
        "P_ne",
        "P_e",
        "frac_ne",
        "trainable_ne",
        "trainable_e",
        "k",
        "E",
        "L_moe",
        "route_limit",
        "shared_tok",
        "f_e",
        "pinned_schedule",
        "moe",
        "expert_layout",
        "fp8",
        "precision",
        "wb",
        "gb",
        "ob",
        "effective_time",
        "checkpoint_hours",
        "att_rate",
        "att_matrix",
        "loss",
        "act_offload",
        "quantize_on_load",
        "pin",
    )

    name: str
    method: str
    adapter: bool
    P: float
    N: float
    A: float
    L: int
    h: int
    a: int
    V: int
    s: int
    base_bytes: float
    trainable: float
    largest: float
    act_coef: float
    flops_tok: float
    flops_tok_ckpt: float
    D: float
    global_tokens: float
    ckpt_bytes: float
    dataset_tb: float
    kept: int
    mfu: float | None
    allowed: set[str] | None
    gemm_tok: float
    gemm_tok_ckpt: float
    att_tok: float
    att_tok_ckpt: float
    P_ne: float
    P_e: float
    frac_ne: float
    trainable_ne: float
    trainable_e: float
    k: int
    E: int
    L_moe: int
    route_limit: int | None
    shared_tok: float
    f_e: float
    pinned_schedule: str | None
    moe: bool
    expert_layout: bool
    fp8: bool
    precision: str
    wb: float
    gb: float
    ob: float
    effective_time: float | None
    checkpoint_hours: float
    att_rate: float
    att_matrix: float
    loss: str
    act_offload: bool
    quantize_on_load: str
    pin: dict

    def choices(self, key: str, searched) -> tuple:
        """The values of layout key ``key`` to try: the workload's pinned value, else ``searched``."""
        value = self.pin.get(key)
        return (value,) if value is not None else tuple(searched)


def adapter_params(workload: Workload) -> float:
    """LoRA parameters: r·(d_in + d_out) on q, k, v, o, gate, up, down of every layer."""
    m = workload.model
    h, f, r = m.hidden_size, m.ffn_hidden_size, workload.lora_rank
    kv_width = h * (m.kv_heads or m.heads) / m.heads
    per_layer = r * ((h + h) + 2 * (h + kv_width) + (h + h))  # q, k, v, o
    per_layer += r * (3 * (h + f) if is_gated(h, f) else 2 * (h + f))  # gate/up/down or fc1/fc2
    return per_layer * m.layers


def trainable_params(workload: Workload) -> float:
    """The parameters a job trains and checkpoints: the adapter's for LoRA/QLoRA, else the whole model's."""
    return adapter_params(workload) if workload.method in ("lora", "qlora") else workload.model.params


def checkpoint_bytes(workload: Workload) -> float:
    """One checkpoint of the trainable state: CHECKPOINT_BYTES_PER_PARAM × trainable parameters (the bytes
    fit.nvme_reason reserves and the cost model's storage and egress price)."""
    return CHECKPOINT_BYTES_PER_PARAM * trainable_params(workload)


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
    p.expert_layout = m.has_expert_layout
    p.moe = m.is_moe
    p.P_e = m.expert_params if p.expert_layout else 0.0
    p.P_ne = p.P - p.P_e
    p.frac_ne = p.P_ne / p.P
    p.trainable_e = 0.0 if p.adapter else p.P_e
    p.trainable_ne = p.trainable - p.trainable_e
    p.k = m.experts_per_token or 0
    p.E = m.experts or 0
    p.L_moe = m.moe_layers
    p.route_limit = m.routing_group_limit
    p.f_e = float(m.expert_ffn_hidden_size or 0)  # a routed expert's FFN width (compute.expert_gemm_factor)
    # shared experts' FLOPs per token over all MoE layers: 6 × 3·h·f_e × shared (gated MLP, fwd + bwd)
    p.shared_tok = 18.0 * m.hidden_size * (m.expert_ffn_hidden_size or 0) * (m.shared_experts or 0) * p.L_moe
    p.precision = w.precision
    p.fp8 = w.precision == "fp8"
    p.wb = BF16_BYTES
    p.gb = FP8_GRAD_BYTES if p.fp8 else BF16_BYTES
    p.ob = FP8_OPTIMIZER_BYTES if p.fp8 else OPTIMIZER_BYTES
    p.effective_time = w.effective_time  # None: the goodput model (goodput.py)
    p.checkpoint_hours = w.checkpoint_every_hours  # the restart loss per interruption (goodput.py)
    p.largest = max(m.vocab_size * m.hidden_size, m.hidden_size * m.ffn_hidden_size, m.hidden_size**2)
    p.act_coef = activation_coefficient(w)
    p.att_rate = attention_rate(w.flash_attention)
    # without fused attention the s×s scores, softmax and dropout mask are stored: 5·a·s/h per sbh (Korthikanti Table 2)
    p.att_matrix = 0.0 if w.flash_attention else 5.0 * m.heads * w.seq_len / m.hidden_size
    p.flops_tok = flops_per_token(p, False, w.method)
    p.flops_tok_ckpt = flops_per_token(p, True, w.method)
    p.gemm_tok = gemm_flops_per_token(p, False, w.method)
    p.gemm_tok_ckpt = gemm_flops_per_token(p, True, w.method)
    p.att_tok = attention_flops_per_token(p, False, w.method)
    p.att_tok_ckpt = attention_flops_per_token(p, True, w.method)
    p.D = w.tokens_b * 1e9
    p.global_tokens = global_batch_tokens(w, settings, p.flops_tok * p.D)
    p.ckpt_bytes = checkpoint_bytes(w)
    p.dataset_tb = w.dataset_tb
    p.kept = w.checkpoints_kept
    p.mfu = w.mfu
    p.allowed = set(w.allowed_gpus) if w.allowed_gpus else None
    p.loss = w.loss
    p.act_offload = w.activation_offload
    p.quantize_on_load = w.quantize_on_load
    p.pin = w.layout.pinned() if w.layout is not None else {}
    # the layout's pipeline_schedule when the workload pins one: DualPipe is sized only then (search._layouts)
    p.pinned_schedule = p.pin.get("pipeline_schedule")
    return p


def global_batch_tokens(w: Workload, settings: SizingSettings | None, total_flops: float) -> float:
    """Tokens per optimizer step: the workload's ``global_batch_tokens``, else the project's
    ``sizing.global_batch_tokens_m``, else for pretraining the DeepSeek LLM batch-size law
    B = 0.292·C^0.3271 tokens (C = training FLOPs; arXiv:2401.02954 §3.1) but at least
    GLOBAL_BATCH_TOKENS["pretrain"], and for fine-tuning GLOBAL_BATCH_TOKENS[method]."""
    if w.global_batch_tokens is not None:
        return float(w.global_batch_tokens)
    if settings is not None and settings.global_batch_tokens_m:
        return settings.global_batch_tokens_m * 1e6
    if w.method == "pretrain":
        return max(GLOBAL_BATCH_TOKENS["pretrain"], BATCH_LAW_COEFFICIENT * total_flops**BATCH_LAW_EXPONENT)
    return GLOBAL_BATCH_TOKENS[w.method]


def training_flops(workload: Workload, checkpointing: bool) -> float:
    """Total training FLOPs (see compute.py)."""
    p = profile(workload)
    return (p.flops_tok_ckpt if checkpointing else p.flops_tok) * p.D


def memory_breakdown(workload: Workload, strategy: Parallelism, gpus: int) -> MemoryBreakdown:
    """Per-GPU memory (GB) of ``workload`` under ``strategy`` on ``gpus`` GPUs."""
    p = profile(workload)
    return breakdown(memory_parts(p, strategy, gpus))
