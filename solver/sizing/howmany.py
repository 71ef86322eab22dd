"""How many GPUs of one kind a job needs (``procure size W --gpu H100-SXM-80GB`` without ``--gpus``).

Sized on reference nodes (``reference.reference_offer``): one box of 1, 2, 4, … GPUs below the GPU's
node size, then 1, 2, 3, 4, 6, 8, … full nodes (``shapes.node_counts``) up to MAX_GPUS. Answers:

* the fewest GPUs that fit (GPU memory with the safety margin, host RAM, every fit rule), with the
  fastest layout there;
* the fewest GPUs whose hours finish by the deadline: (deadline_days − min_slack_days −
  earliest_start_days) × 24 h, the planner's window;
* on the fewest-GPUs shape, beside the fastest layout, the smallest-memory one
  (``search.leanest_strategy``: activation checkpointing, micro-batch 1, the most sharding), which is
  what "a 7B QLoRA needs about 8 GB" quotes: a checkpointed layout, slower by the recomputation.
"""

from __future__ import annotations

from procure.models.gpu import gpu_table
from procure.models.project import SizingSettings, Workload

from .memory import breakdown
from .profile import profile
from .reference import reference_offer
from .results import Candidate, GpuCount
from .search import leanest_strategy
from .shapes import _shape, node_counts, size_workload, workload_mfu

#: The most GPUs sized when asked how many (16,384: the largest published training runs, Llama 3 405B).
MAX_GPUS = 16_384


def _counts(gpn: int) -> list[int]:
    """GPU counts in one box below a node (1, 2, 4, …) — the full-node counts come from node_counts."""
    out, n = [], 1
    while n < gpn:
        out.append(n)
        n *= 2
    return out


def how_many(
    workload: Workload, gpu: str, settings: SizingSettings, team_area: str | None, deadline_hours: float
) -> tuple[list[Candidate], GpuCount]:
    """Every shape sized (fewest GPUs first) and the answer for ``gpu``."""
    table = gpu_table()
    gid = table.resolve(gpu) or gpu
    nodes_offer, cap = reference_offer(gid, MAX_GPUS)  # full reference nodes, up to MAX_GPUS
    shapes: list[Candidate] = []
    for n in _counts(nodes_offer.gpus_per_node):
        box, _one = reference_offer(gid, n)
        shapes += [c for c in size_workload(workload, [box], settings, team_area).candidates if c.nodes == 1]
    counts = set(node_counts(cap))
    shapes += [c for c in size_workload(workload, [nodes_offer], settings, team_area).candidates if c.nodes in counts]
    shapes.sort(key=lambda c: c.gpus)
    fits = [c for c in shapes if c.fits]
    fewest = fits[0] if fits else None
    in_time = [c for c in fits if c.hours is not None and c.hours <= deadline_hours + 1e-9]
    by_deadline = in_time[0] if in_time else None
    leanest = leanest_memory = None
    if fewest is not None and fewest.strategy is not None:
        g = table[gid]
        offer, _k = reference_offer(gid, fewest.gpus)
        sh = _shape(g, offer, fewest.nodes, workload_mfu(workload, g))
        found = leanest_strategy(profile(workload, settings), sh, fewest.strategy.optimizer, fewest.strategy.offload)
        if found is not None:
            leanest, parts = found
            leanest_memory = breakdown(parts)
    answer = GpuCount(
        gpu=gid,
        deadline_hours=deadline_hours,
        tried_up_to=shapes[-1].gpus if shapes else 0,
        fewest=fewest,
        by_deadline=by_deadline,
        leanest=leanest,
        leanest_memory=leanest_memory,
    )
    return shapes, answer
