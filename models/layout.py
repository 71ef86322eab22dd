"""A job's pinned layout and the training-stack knobs that change its memory (``workload.yaml``).

``layout:`` takes the keys of the sizing JSON's ``strategy`` as an engineer copies them from a framework
config (Megatron-LM / NeMo, DeepSpeed, TorchTitan); every key left out is searched. The checks here
need only the job itself (the model's heads, layers, experts; the method; the sequence length); whether
a layout divides a cluster shape is said per shape by the sizing (``solver.sizing.fit.layout_reasons``).

Stack knobs (each default is named in ``procure size``'s output):

* ``loss``: ``full`` (default) holds the whole logits tensor as the Hugging Face Transformers loop does
  — bf16 logits, their fp32 upcast and its fp32 gradient; ``chunked``: a fused / chunked cross-entropy
  (Liger Kernel's fused linear cross-entropy, Unsloth, Megatron-Core's fused loss) never holds it.
* ``activation_offload``: the stored activation checkpoints live in host RAM (the GPU keeps the
  working set); default false.
* ``quantize_on_load`` (QLoRA): ``gpu`` (default; transformers + bitsandbytes quantize each weight as it
  reaches the GPU, so loading peaks above the NF4 step) or ``cpu`` (quantized before it moves).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from .validation import InputModel

#: Pipeline schedules a layout may name (as solver.sizing.results.SCHEDULES).
SCHEDULES = ("1f1b", "interleaved", "zb1p", "dualpipe")
#: The most GPUs one parallel degree may span (a rack-scale NVLink domain is 72; CloudMatrix 384).
MAX_DEGREE = 1024

Loss = Literal["full", "chunked"]
QuantizeOnLoad = Literal["gpu", "cpu"]
#: the defaults of the stack knobs, as the output names them
LOSS_DEFAULT: Loss = "full"
QUANTIZE_ON_LOAD_DEFAULT: QuantizeOnLoad = "gpu"

LAYOUT_DOC = (
    "pin the job's layout with the keys of the sizing JSON's strategy (zero_stage, tensor_parallel, "
    "sequence_parallel, context_parallel, pipeline_parallel, pipeline_schedule, virtual_stages, "
    "expert_parallel, micro_batch, checkpointing, optimizer, offload); keys left out are searched"
)
LOSS_DOC = (
    "full: the whole logits tensor in bf16 + its fp32 upcast + fp32 gradient (Hugging Face Transformers); "
    "chunked: a fused/chunked cross-entropy that never holds it (Liger Kernel, Unsloth, Megatron fused loss)"
)
ACTIVATION_OFFLOAD_DOC = "true: the stored activation checkpoints are kept in host RAM (counted in the node's RAM)"
QUANTIZE_ON_LOAD_DOC = (
    "QLoRA only: gpu (transformers + bitsandbytes quantize on the GPU; loading peaks at the NF4 base + one bf16 "
    "checkpoint shard) or cpu (quantized before it moves to the GPU)"
)


class Layout(InputModel):
    """The pinned keys of a job's layout (None: searched)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    zero_stage: Literal[0, 1, 2, 3] | None = None
    tensor_parallel: int | None = Field(default=None, ge=1, le=MAX_DEGREE)
    sequence_parallel: bool | None = None
    context_parallel: int | None = Field(default=None, ge=1, le=MAX_DEGREE)
    pipeline_parallel: int | None = Field(default=None, ge=1, le=MAX_DEGREE)
    pipeline_schedule: Literal["1f1b", "interleaved", "zb1p", "dualpipe"] | None = None
    virtual_stages: int | None = Field(default=None, ge=1, le=64)
    expert_parallel: int | None = Field(default=None, ge=1, le=MAX_DEGREE)
    micro_batch: int | None = Field(default=None, ge=1, le=1024)
    checkpointing: bool | None = None
    optimizer: Literal["adam", "adam8bit"] | None = None
    offload: bool | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Layout:
        problems = layout_problems(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    def pinned(self) -> dict[str, Any]:
        """The keys the workload states."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


def layout_problems(lay: Layout) -> list[str]:
    """Combinations no framework runs, or that procure does not model, each with what is allowed."""
    out = []
    t, pp = lay.tensor_parallel, lay.pipeline_parallel
    if lay.sequence_parallel and t == 1:
        out.append("sequence_parallel: true needs tensor_parallel > 1 (it shards along the tensor-parallel group)")
    if lay.pipeline_schedule is not None and pp == 1:
        out.append(f"pipeline_schedule {lay.pipeline_schedule} needs pipeline_parallel > 1")
    if lay.virtual_stages is not None and lay.virtual_stages > 1 and lay.pipeline_schedule not in (None, "interleaved"):
        out.append(
            f"virtual_stages {lay.virtual_stages} belongs to the interleaved schedule; pipeline_schedule is "
            f"{lay.pipeline_schedule} (use interleaved, or virtual_stages 1)"
        )
    if lay.pipeline_schedule == "interleaved" and lay.virtual_stages == 1:
        out.append("the interleaved schedule needs virtual_stages ≥ 2")
    if lay.zero_stage in (2, 3) and ((pp or 1) > 1 or (lay.expert_parallel or 1) > 1):
        out.append(
            f"zero_stage {lay.zero_stage} is not combined with pipeline or expert parallelism (DeepSpeed does not; "
            "Megatron's distributed optimizer is ZeRO-1): use zero_stage 0 or 1"
        )
    if lay.offload:
        if lay.zero_stage in (0, 1):
            out.append(
                f"offload: true runs with ZeRO-2 or ZeRO-3 (DeepSpeed ZeRO-Offload); zero_stage is {lay.zero_stage}"
            )
        if (pp or 1) > 1 or (lay.expert_parallel or 1) > 1:
            out.append("offload: true runs with plain data parallelism: pipeline_parallel and expert_parallel 1")
    return out


def check_layout(lay: Layout | None, job: dict[str, Any]) -> Layout | None:
    """The pinned layout against the job (``job``: the workload's fields validated so far): tensor
    parallelism divides the heads, pipeline stages ≤ layers, expert parallelism needs experts and divides
    them, context parallelism divides the sequence in 2·cp chunks, the interleaved schedule has a layer
    per virtual stage, adapters are not expert-parallel, and the optimizer variants the sizing models."""
    if lay is None:
        return None
    m = job.get("model")
    if m is None:
        return lay  # the model's own error is reported
    out = []
    method, precision, seq = job.get("method"), job.get("precision", "bf16"), job.get("seq_len", 4096)
    if lay.tensor_parallel and m.heads % lay.tensor_parallel:
        out.append(f"tensor_parallel {lay.tensor_parallel} does not divide the model's {m.heads} attention heads")
    if lay.pipeline_parallel and lay.pipeline_parallel > m.layers:
        out.append(f"pipeline_parallel {lay.pipeline_parallel} exceeds the model's {m.layers} layers")
    if lay.pipeline_parallel and lay.virtual_stages and lay.virtual_stages > 1:
        if -(-m.layers // lay.pipeline_parallel) < lay.virtual_stages:
            out.append(
                f"virtual_stages {lay.virtual_stages} needs at least one layer per virtual stage: "
                f"{m.layers} layers / pipeline_parallel {lay.pipeline_parallel}"
            )
    ep = lay.expert_parallel or 1
    if ep > 1:
        if not m.has_expert_layout:
            out.append(
                f"expert_parallel {ep} needs a mixture-of-experts model with experts, experts_per_token "
                "and expert_ffn_hidden_size"
            )
        elif (m.experts or 0) % ep:
            out.append(f"expert_parallel {ep} does not divide the model's {m.experts} experts")
        if method in ("lora", "qlora"):
            out.append(f"expert_parallel {ep}: adapters (method {method}) are sized without expert parallelism")
    cp = lay.context_parallel or 1
    if cp > 1 and seq % (2 * cp):
        out.append(
            f"context_parallel {cp} splits the sequence into 2·{cp} = {2 * cp} chunks (Megatron's load-balanced "
            f"causal split); seq_len {seq} is not a multiple of {2 * cp}"
        )
    if precision == "fp8" and (lay.optimizer == "adam8bit" or lay.offload):
        out.append("precision fp8 keeps DeepSeek-V3's optimizer state: optimizer adam and offload false")
    if lay.offload and method in ("lora", "qlora"):
        out.append(f"offload: true (ZeRO-Offload) is sized for full training and pretraining, not method {method}")
    if out:
        raise ValueError("layout: " + "; ".join(out))
    return lay
