"""What one job keeps on the offer it runs on and moves out at its end (TB, from the sizing): its dataset and
the checkpoints of its trainable state. The cost model prices them (costs.storage_cost, costs.egress_cost)."""

from __future__ import annotations

from dataclasses import dataclass

from procure.models import units
from procure.models.project import Project, Workload
from procure.solver.sizing.profile import checkpoint_bytes


@dataclass(frozen=True)
class JobData:
    """What one job keeps on the offer it runs on and moves out at its end, TB (from the sizing)."""

    dataset_tb: float = 0.0
    checkpoint_tb: float = 0.0  # one checkpoint of the trainable state
    kept: int = 1  # checkpoints kept on the offer
    dataset_moves_on: bool = False

    @property
    def held_tb(self) -> float:
        """TB stored while the job runs: the dataset and the kept checkpoints."""
        return self.dataset_tb + self.kept * self.checkpoint_tb

    @property
    def egress_tb(self) -> float:
        """TB moved out at the end: the final checkpoint, and the dataset when it moves on."""
        return self.checkpoint_tb + (self.dataset_tb if self.dataset_moves_on else 0.0)


def job_data(workload: Workload) -> JobData:
    """The TB the sizing reserves for a workload (fit.nvme_reason): its dataset and checkpoints of
    CHECKPOINT_BYTES_PER_PARAM × trainable parameters (the adapter's for LoRA/QLoRA)."""
    return JobData(
        workload.dataset_tb,
        checkpoint_bytes(workload) / units.TB,
        workload.checkpoints_kept,
        workload.dataset_moves_on,
    )


def data_of(project: Project, workload: str) -> JobData:
    """``job_data`` of the project's workload named ``workload``."""
    for w in project.workloads:
        if w.name == workload:
            return job_data(w)
    raise KeyError(f"no workload {workload!r} in the project")
