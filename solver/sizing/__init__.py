"""Sizing: from a training job to GPU memory, FLOPs, hours and fit on every cluster shape.

Rooms (each module's docstring states its formulas and sources; docs/sizing.md collects them):

- ``constants``  — every sizing constant with value, unit and source (``constants.yaml``).
- ``memory``     — bytes per GPU: model state under ZeRO/TP, activations, overhead.
- ``compute``    — FLOPs per token, MFU, and the step time with its communication.
- ``profile``    — a workload's numbers, computed once; the strategy search space.
- ``search``     — the fastest strategy that fits one shape.
- ``fit``        — the fit rules and the wording of their reasons.
- ``shapes``     — every offer × node count of a workload; ``size_workload`` / ``size_project``.
- ``reference``  — reference nodes, for sizing without a real offer.
- ``results``    — Parallelism, MemoryBreakdown, Candidate, WorkloadSizing.

Units: memory is reported in GB = 10^9 bytes everywhere (breakdowns, reasons, JSON).
"""

from .compute import default_mfu, flops_per_token
from .constants import constant_rows
from .memory import activation_coefficient, usable_memory_gb, zero_model_state_gb, zero_shard
from .profile import adapter_params, memory_breakdown, training_flops
from .reference import is_reference, reference_offer
from .results import Candidate, MemoryBreakdown, Parallelism, WorkloadSizing
from .shapes import evaluate_strategy, node_counts, size_project, size_workload

__all__ = [
    "Candidate",
    "MemoryBreakdown",
    "Parallelism",
    "WorkloadSizing",
    "activation_coefficient",
    "adapter_params",
    "constant_rows",
    "default_mfu",
    "evaluate_strategy",
    "flops_per_token",
    "is_reference",
    "memory_breakdown",
    "node_counts",
    "reference_offer",
    "size_project",
    "size_workload",
    "training_flops",
    "usable_memory_gb",
    "zero_model_state_gb",
    "zero_shard",
]
