"""What sizing returns: a strategy, a per-GPU memory breakdown, one verdict per shape."""

from __future__ import annotations

from dataclasses import dataclass, field

from procure.models.project import Workload
from procure.solver.reasons import Reason, render


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
