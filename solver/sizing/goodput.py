"""Whole-run goodput: the fraction of a job's wall-clock time that trains (docs/sizing.md, "Time").

The engine's step model gives the in-step hours H (every optimizer step back to back). A whole run
takes longer: evaluation, checkpoint stalls and the batch ramp-up cost a fixed share of the steps,
every interruption (a failed GPU, host or link, and the restart from the last checkpoint) costs the
cluster RESTART_LOSS_HOURS, and each job pays a one-off start and finish. With G GPUs:

    wall = H · (1 + GOODPUT_OVERHEAD + G · GPU_INTERRUPTION_RATE · RESTART_LOSS_HOURS) + JOB_STARTUP_HOURS

Interruptions arrive in proportion to GPU-hours (Llama 3, arXiv:2407.21783 §3.3.4 Table 5: 466
interruptions in 54 days on 16,384 H100), so the loss grows with the cluster; the one-off term makes
short jobs lose a larger share. RESTART_LOSS_HOURS is set so that Llama 3's cluster gets its published
90 % effective training time. A workload's ``effective_time`` replaces the whole model: wall = H / it.
"""

from __future__ import annotations

from .constants import GOODPUT_OVERHEAD, GPU_INTERRUPTION_RATE, JOB_STARTUP_HOURS, RESTART_LOSS_HOURS


def loss_factor(gpus: int) -> float:
    """Wall-clock hours per in-step hour on ``gpus`` GPUs, before the one-off start: 1 + overhead +
    interruptions × restart loss."""
    return 1.0 + GOODPUT_OVERHEAD + gpus * GPU_INTERRUPTION_RATE * RESTART_LOSS_HOURS


def wall_hours(in_step: float, gpus: int, effective_time: float | None) -> float:
    """Wall-clock hours of a job whose steps take ``in_step`` hours back to back on ``gpus`` GPUs."""
    if effective_time is not None:
        return in_step / effective_time
    return in_step * loss_factor(gpus) + JOB_STARTUP_HOURS


def in_step_hours(wall: float, gpus: int, effective_time: float | None) -> float:
    """The inverse of ``wall_hours``: the in-step hours inside ``wall`` hours."""
    if effective_time is not None:
        return wall * effective_time
    return max(0.0, wall - JOB_STARTUP_HOURS) / loss_factor(gpus)


def goodput(in_step: float, gpus: int, effective_time: float | None) -> float:
    """The fraction of the wall-clock time that trains: in-step ÷ wall."""
    wall = wall_hours(in_step, gpus, effective_time)
    return in_step / wall if wall > 0 else 1.0


def goodput_of(wall: float | None, gpus: int, effective_time: float | None) -> float | None:
    """The goodput of a job that takes ``wall`` hours on ``gpus`` GPUs: its in-step hours ÷ ``wall``."""
    if wall is None or wall <= 0:
        return None
    return in_step_hours(wall, gpus, effective_time) / wall
