"""What sizing returns: a strategy, a per-GPU memory breakdown, one verdict per shape."""

from __future__ import annotations

from dataclasses import dataclass, field

from procure.models.project import Workload
from procure.solver.reasons import Reason, render

from .band import hours_band

#: Pipeline schedules: "1f1b" (PipeDream-Flush), "interleaved" (Megatron virtual stages), "zb1p"
#: (zero bubble, DeepSeek-V2), "dualpipe" (DeepSeek-V3); "" when there is no pipeline.
SCHEDULES = ("1f1b", "interleaved", "zb1p", "dualpipe")


@dataclass(frozen=True)
class Parallelism:
    """How one job is laid out: ZeRO stage, tensor / pipeline / expert parallel degrees, activation
    checkpointing, micro-batch (sequences), precision, the pipeline schedule (with its virtual
    stages per GPU for "interleaved"), the optimizer's state format and whether it is offloaded to the
    CPU (ZeRO-Offload)."""

    zero_stage: int
    tensor_parallel: int
    checkpointing: bool
    micro_batch: int
    pipeline_parallel: int = 1
    expert_parallel: int = 1
    precision: str = "bf16"
    schedule: str = ""
    virtual_stages: int = 1
    optimizer: str = "adam"  # "adam" (fp32 states) | "adam8bit" (bitsandbytes 8-bit states)
    offload: bool = False  # ZeRO-Offload: optimizer states and the optimizer step on the CPU
    # Megatron's --sequence-parallel: None means on whenever tensor_parallel > 1 (it costs no extra traffic:
    # the all-reduce becomes a reduce-scatter + all-gather of the same volume; Korthikanti et al. 2022 §4.2.2)
    sequence_parallel: bool | None = None
    context_parallel: int = 1  # the sequence split over this many GPUs (Megatron --context-parallel-size)

    def __post_init__(self) -> None:
        if self.sequence_parallel is None:
            object.__setattr__(self, "sequence_parallel", self.tensor_parallel > 1)

    def label(self) -> str:
        return str(self.message())

    def message(self):
        """The label as clauses a report renders in the reader's language (``reports.i18n.Lang.say``):
        "ZeRO-1, TP1, no ckpt, mb 1"."""
        from procure.solver.reasons import say

        dp = f"ZeRO-{self.zero_stage}" if self.zero_stage else "DP"
        parts: list = [dp, f"TP{self.tensor_parallel}"]
        if self.tensor_parallel > 1 and not self.sequence_parallel:
            parts.append(say("no SP"))
        if self.context_parallel > 1:
            parts.append(f"CP{self.context_parallel}")
        if self.pipeline_parallel > 1:
            sched = say("interleaved×{k}", k=self.virtual_stages) if self.schedule == "interleaved" else self.schedule
            parts.append(say("PP{pp} {schedule}", pp=self.pipeline_parallel, schedule=sched))
        if self.expert_parallel > 1:
            parts.append(f"EP{self.expert_parallel}")
        parts += [say("ckpt") if self.checkpointing else say("no ckpt"), say("mb {n}", n=self.micro_batch)]
        if self.precision != "bf16":
            parts.append(self.precision)
        if self.optimizer == "adam8bit":
            parts.append(say("8-bit Adam"))
        if self.offload:
            parts.append(say("ZeRO-Offload (optimizer on CPU)"))
        return say("{parts}", parts=tuple(parts))


@dataclass(frozen=True)
class MemoryBreakdown:
    """GB (10^9 bytes) per GPU."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    overhead: float
    load_peak: float = 0.0  # QLoRA quantizing on the GPU: the peak while loading (memory.load_peak_bytes)

    @property
    def step(self) -> float:
        """The training step's memory: the five parts."""
        return self.weights + self.gradients + self.optimizer + self.activations + self.overhead

    @property
    def total(self) -> float:
        """What must fit: the step, or the loading peak when it is higher."""
        return max(self.step, self.load_peak)

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
    strategy: Parallelism | None
    per_gpu_memory_gb: float | None
    memory: MemoryBreakdown | None
    fits: bool
    reasons: tuple[Reason, ...]
    hours: float | None
    gpu_hours: float | None
    efficiency: float | None
    host_ram_gb: float | None = None  # host RAM one node needs (fit.host_ram_need_gb)
    mfu: float | None = None  # the MFU constant the step's matrix multiplies run at (shapes.workload_mfu)
    in_step_mfu: float | None = None  # achieved in step, published convention (shapes.in_step_rates)
    tokens_per_gpu_s: float | None = None  # in step, per GPU (shapes.in_step_rates)

    @property
    def hours_p10(self) -> float | None:
        """The calibrated P10 of ``hours`` (band.hours_band)."""
        return hours_band(self.hours)[0]

    @property
    def hours_p90(self) -> float | None:
        """The calibrated P90 of ``hours`` (band.hours_band)."""
        return hours_band(self.hours)[1]

    @property
    def reason(self) -> str | None:
        """Why the shape does not fit, as one sentence (None when it fits)."""
        return render(self.reasons) if self.reasons else None


@dataclass(frozen=True)
class GpuCount:
    """How many GPUs of one kind a job needs (solver.sizing.howmany): the fewest that fit, the fewest that
    finish by the deadline, and on the fewest the smallest-memory layout beside the fastest."""

    gpu: str
    deadline_hours: float  # hours from earliest start to the deadline less the schedule buffer
    tried_up_to: int  # the most GPUs sized
    fewest: Candidate | None
    by_deadline: Candidate | None
    leanest: Parallelism | None = None
    leanest_memory: MemoryBreakdown | None = None


@dataclass(frozen=True)
class WorkloadSizing:
    workload: Workload
    total_flops: float
    memory_gb: MemoryBreakdown
    candidates: list[Candidate] = field(default_factory=list)
    gpu_counts: tuple[GpuCount, ...] = ()  # ``procure size --gpu`` without --gpus (solver.sizing.howmany)

    def feasible(self) -> list[Candidate]:
        return [c for c in self.candidates if c.fits]
