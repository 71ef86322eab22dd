r"""Exact reduction of the time-indexed model: fewer start columns and capacity rows, same optimum.

On a fine grid most starts of a job are interchangeable: what a start changes is only which capacity
rows the job enters. Three rules, applied until nothing changes (each keeps every plan's cost and the
LP relaxation's bound, so the gap proven on the reduced model is the gap of the full model):

1. **Rows one workload alone can touch** are dropped. For a buy or rent offer the job cut
   (``buy_job[o,w]``, ``rent_job[o,m,w]``) sums the same workload's columns over *all* its starts
   against the same capacity, so it implies the row, in the LP too; a cloud row with one workload
   cannot bind (an option's nodes never exceed ``max_nodes``), and neither can one whose workloads'
   largest options sum to at most ``max_nodes``.
2. **Dominated rows** are dropped: a row whose columns all appear in the previous period's row of
   the same offer (and month, for rentals) with the same coefficients and right-hand side is implied
   by it. Jobs are busy over contiguous periods, so this is a row at which no kept column starts.
3. **Equivalent starts** are merged: two starts of one option that enter the same kept rows (and, for
   a rental, the same months, hence the same ``rent_job`` rows), at the same cost, are the same
   column; the earliest is kept. The undiscounted cost of a job does not depend on its start, so
   under ``tco`` every start qualifies; under ``npv`` only starts with equal present values merge.

Why this is exact: a plan of the full model, with each start replaced by its representative, enters
the same kept rows with the same coefficients, meets the dropped rows (they are implied), and costs
the same; a plan of the reduced model is a plan of the full model. The same holds for fractional
(LP) solutions, so the root bound does not change either.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Key = tuple[str, int, int]  # (offer, period, month or −1): one capacity row
Col = tuple[str, int, int]  # (workload, option index, start period)


@dataclass
class Reduction:
    starts: dict[tuple[str, int], list[int]] = field(default_factory=dict)  # kept starts per (workload, option)
    representative: dict[Col, int] = field(default_factory=dict)  # every start -> the kept start it merges into
    rows: set[Key] = field(default_factory=set)  # capacity rows kept
    columns_before: int = 0
    rows_before: int = 0


def reduce_model(footprints: dict[Col, tuple[list[Key], tuple, int]], cloud_caps: dict[str, int],
                 exact_cost: dict[Col, float] | None = None, rounds: int = 4) -> Reduction:
    """``footprints[(w, i, s)] = (capacity row keys, extra signature (months of a rental), nodes)``;
    ``cloud_caps[offer]`` = max_nodes of each capped cloud offer; ``exact_cost`` (for ``npv``) the
    objective coefficient of each column, which must be equal for two starts to merge."""
    red = Reduction(columns_before=len(footprints))
    # rule 1: rows more than one workload can touch (cloud: whose largest options can exceed the cap)
    touch: dict[Key, dict[str, int]] = {}
    for (w, _i, _s), (keys, _extra, nodes) in footprints.items():
        for k in keys:
            per = touch.setdefault(k, {})
            if nodes > per.get(w, 0):
                per[w] = nodes
    red.rows_before = len(touch)
    rows = {k for k, per in touch.items() if len(per) > 1 and (k[0] not in cloud_caps or sum(per.values()) > cloud_caps[k[0]])}
    live = dict.fromkeys(footprints)  # the columns still in the model, in order
    rep: dict[Col, Col] = {c: c for c in footprints}
    for _ in range(rounds):
        # rule 3: merge the starts of one option with equal signatures
        groups: dict[tuple, Col] = {}
        merged = 0
        for col in list(live):
            keys, extra, _n = footprints[col]
            sig = (col[0], col[1], tuple(k for k in keys if k in rows), extra,
                   None if exact_cost is None else exact_cost[col])
            first = groups.setdefault(sig, col)
            if first is not col:
                rep[col] = first
                del live[col]
                merged += 1
        # rule 2: drop a row whose live columns all sit in the previous period's row (same offer, month)
        members: dict[Key, set[Col]] = {}
        for col in live:
            for k in footprints[col][0]:
                if k in rows:
                    members.setdefault(k, set()).add(col)
        dropped = 0
        for k in sorted(members, key=lambda k: (k[0], k[2], k[1])):
            prev = (k[0], k[1] - 1, k[2])
            if prev in members and members[k] <= members[prev]:
                rows.discard(k)
                dropped += 1
        rows &= set(members)
        if not merged and not dropped:
            break
    for col in footprints:  # follow merges to the final representative
        r = rep[col]
        while rep[r] is not r:
            r = rep[r]
        red.representative[col] = r[2]
    for (w, i, s) in live:
        red.starts.setdefault((w, i), []).append(s)
    red.rows = rows
    return red
