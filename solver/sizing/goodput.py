"""Whole-run losses: goodput and the execution factor (docs/sizing.md, "Time").

The engine's step model gives the in-step hours H: every optimizer step back to back, at the speed a
tuned open stack reaches on the published benchmarks (compute.py). A whole run takes longer, for two
reasons kept apart:

* **goodput**, the share of the wall time that trains, from the run's own mechanics: evaluation,
  checkpoint stalls and the batch ramp-up cost a fixed share of the steps (GOODPUT_OVERHEAD); every
  interruption (a failed GPU, host or link) costs the cluster the work since the last checkpoint, half
  the checkpoint interval on average, plus the detection, restart and reload (RESTART_RELOAD_HOURS);
  interruptions arrive in proportion to GPU-hours (Llama 3, arXiv:2407.21783 §3.3.4 Table 5: 466 in
  54 days on 16,384 H100), so that loss grows with the cluster; each job pays a one-off start and finish
  (JOB_STARTUP_HOURS), which makes short jobs lose a larger share;
* the **execution factor** E, common to every GPU: the rest of the gap between published whole-run hours
  and the in-step hours of the same run on its published layout (a team's software stack, kernels,
  batch and parallelism choices, loss spikes and rollbacks, its accounting). EXECUTION_FACTOR is its
  median over the comparable published runs (bench/calibration.py), so the estimate is the P50; its
  spread is the uncertainty band (band.py): a slower team, not a slower GPU.

With G GPUs and a checkpoint every c hours:

    wall = H / E · (1 + GOODPUT_OVERHEAD + G · GPU_INTERRUPTION_RATE · (c/2 + RESTART_RELOAD_HOURS))
           + JOB_STARTUP_HOURS

A workload's ``effective_time`` replaces the goodput model (wall = H / E / effective_time); the
execution factor stays.
"""

from __future__ import annotations

from .constants import (
    EXECUTION_FACTOR,
    GOODPUT_OVERHEAD,
    GPU_INTERRUPTION_RATE,
    JOB_STARTUP_HOURS,
    RESTART_RELOAD_HOURS,
)

#: The workload default of ``checkpoint_every_hours`` (models/project.py), for callers without a workload.
DEFAULT_CHECKPOINT_HOURS = 4.0


def restart_loss_hours(checkpoint_hours: float) -> float:
    """Cluster wall-clock hours one interruption costs: on average half the checkpoint interval of work
    is redone, plus detection, restart and the checkpoint reload (RESTART_RELOAD_HOURS)."""
    return checkpoint_hours / 2.0 + RESTART_RELOAD_HOURS


def loss_factor(gpus: int, checkpoint_hours: float = DEFAULT_CHECKPOINT_HOURS) -> float:
    """Wall-clock hours per executed step-hour on ``gpus`` GPUs, before the one-off start: 1 + overhead +
    interruptions × restart loss."""
    return 1.0 + GOODPUT_OVERHEAD + gpus * GPU_INTERRUPTION_RATE * restart_loss_hours(checkpoint_hours)


def wall_hours(
    in_step: float,
    gpus: int,
    effective_time: float | None,
    checkpoint_hours: float = DEFAULT_CHECKPOINT_HOURS,
    execution: float = EXECUTION_FACTOR,
) -> float:
    """Wall-clock hours of a job whose steps take ``in_step`` hours back to back on ``gpus`` GPUs, run by a
    team at execution factor ``execution`` (the calibrated median by default)."""
    executed = in_step / execution
    if effective_time is not None:
        return executed / effective_time
    return executed * loss_factor(gpus, checkpoint_hours) + JOB_STARTUP_HOURS


def in_step_hours(
    wall: float,
    gpus: int,
    effective_time: float | None,
    checkpoint_hours: float = DEFAULT_CHECKPOINT_HOURS,
    execution: float = EXECUTION_FACTOR,
) -> float:
    """The inverse of ``wall_hours``: the in-step hours inside ``wall`` hours."""
    if effective_time is not None:
        return wall * effective_time * execution
    return max(0.0, wall - JOB_STARTUP_HOURS) / loss_factor(gpus, checkpoint_hours) * execution


def goodput(
    in_step: float, gpus: int, effective_time: float | None, checkpoint_hours: float = DEFAULT_CHECKPOINT_HOURS
) -> float:
    """The fraction of the wall-clock time that trains, the execution factor left out: executed step
    hours ÷ wall."""
    wall = wall_hours(in_step, gpus, effective_time, checkpoint_hours, execution=1.0)
    return in_step / wall if wall > 0 else 1.0


def goodput_of(
    wall: float | None, gpus: int, effective_time: float | None, checkpoint_hours: float = DEFAULT_CHECKPOINT_HOURS
) -> float | None:
    """The goodput of a job that takes ``wall`` hours on ``gpus`` GPUs (execution factor left out)."""
    if wall is None or wall <= 0:
        return None
    return in_step_hours(wall, gpus, effective_time, checkpoint_hours, execution=1.0) / wall
