"""What sizing returns: a strategy, a per-GPU memory breakdown, one verdict per shape."""

from __future__ import annotations

from dataclasses import dataclass, field

from procure.models.project import Workload
from procure.solver.reasons import Reason, render

#: Pipeline schedules: "1f1b" (PipeDream-Flush), "interleaved" (Megatron virtual stages), "zb1p"
#: (zero bubble, DeepSeek-V2), "dualpipe" (DeepSeek-V3); "" when there is no pipeline.
SCHEDULES = ("1f1b", "interleaved", "zb1p", "dualpipe")


@dataclass(frozen=True)
class Strategy:
    """How one job is laid out: ZeRO stage, tensor / pipeline / expert parallel degrees, activation
    checkpointing, micro-batch (sequences), precision, and the pipeline schedule (with its virtual
    stages per GPU for "interleaved")."""

    zero_stage: int
    tensor_parallel: int
    checkpointing: bool
    micro_batch: int
    pipeline_parallel: int = 1
    expert_parallel: int = 1
    precision: str = "bf16"
    schedule: str = ""
    virtual_stages: int = 1

    def label(self) -> str:
        dp = f"ZeRO-{self.zero_stage}" if self.zero_stage else "DP"
        ck = "ckpt" if self.checkpointing else "no ckpt"
        parts = [dp, f"TP{self.tensor_parallel}"]
        if self.pipeline_parallel > 1:
            sched = f"interleaved×{self.virtual_stages}" if self.schedule == "interleaved" else self.schedule
            parts.append(f"PP{self.pipeline_parallel} {sched}")
        if self.expert_parallel > 1:
            parts.append(f"EP{self.expert_parallel}")
        parts += [ck, f"mb {self.micro_batch}"]
        if self.precision != "bf16":
            parts.append(self.precision)
        return ", ".join(parts)


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
    """One shape (offer × node count) of one workload: its strategy, memory, hours and verdict."""

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
