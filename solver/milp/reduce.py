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


def reduce_model(
    footprints: dict[Col, tuple[list[Key], tuple, int]],
    cloud_caps: dict[str, int],
    exact_cost: dict[Col, float] | None = None,
    rounds: int = 2,
) -> Reduction:
    """``footprints[(w, i, s)] = (capacity row keys, first period's keys first; extra signature (the
    months of a rental); nodes)``; ``cloud_caps[offer]`` = max_nodes of each capped cloud offer;
    ``exact_cost`` (for ``npv``) the objective coefficient of each column, equal for starts that merge.

    A column's rows are contiguous in (period, month) order (a job is busy over consecutive periods;
    only its last period may lack a month), so the kept rows it enters are fixed by the first and the
    last of them: that pair is its signature. Rule 2 is applied through its equivalent: the columns of row (o, t, m) not in row (o, t−1, m) are
    the ones that start in period t, since a job is busy over contiguous periods."""
    red = Reduction(columns_before=len(footprints))
    touch = _rows_touched(footprints)
    red.rows_before = len(touch)
    # rule 1: rows more than one workload can touch (cloud: whose largest options can exceed the cap)
    rows = {
        k
        for k, per in touch.items()
        if len(per) > 1 and (k[0] not in cloud_caps or sum(per.values()) > cloud_caps[k[0]])
    }
    live = dict.fromkeys(footprints)  # the columns still in the model, in order
    rep: dict[Col, Col] = {c: c for c in footprints}
    for _ in range(rounds):
        merged = _merge_starts(footprints, rows, live, rep, exact_cost)
        drop = _unstarted_rows(footprints, rows, live)
        rows -= drop
        if not merged and not drop:
            break
    for col in footprints:  # follow merges to the final representative
        r = rep[col]
        while rep[r] is not r:
            r = rep[r]
        red.representative[col] = r[2]
    for w, i, s in live:
        red.starts.setdefault((w, i), []).append(s)
    red.rows = rows
    return red


def _rows_touched(footprints: dict[Col, tuple[list[Key], tuple, int]]) -> dict[Key, dict[str, int]]:
    """Per capacity row, the most nodes each workload can put on it: per option the union of its
    starts' rows, built in C (set.update), then counted per workload."""
    by_option: dict[tuple[str, int], tuple[set[Key], int]] = {}
    for (w, i, _s), (keys, _extra, nodes) in footprints.items():
        entry = by_option.get((w, i))
        if entry is None:
            by_option[(w, i)] = (set(keys), nodes)
        else:
            entry[0].update(keys)
    touch: dict[Key, dict[str, int]] = {}
    for (w, _i), (union, nodes) in by_option.items():
        for k in union:
            per = touch.get(k)
            if per is None:
                touch[k] = {w: nodes}
            elif nodes > per.get(w, 0):
                per[w] = nodes
    return touch


def _merge_starts(
    footprints: dict[Col, tuple[list[Key], tuple, int]],
    rows: set[Key],
    live: dict[Col, None],
    rep: dict[Col, Col],
    exact_cost: dict[Col, float] | None,
) -> int:
    """Rule 3: merge the starts of one option that enter the same kept rows (``live`` loses the merged
    columns, ``rep`` points each at the first of its group); returns how many were merged."""
    groups: dict[tuple, Col] = {}
    merged = 0
    for col in list(live):
        keys, extra, _n = footprints[col]
        sig = (col[0], col[1], _kept_ends(keys, rows), extra, None if exact_cost is None else exact_cost[col])
        first = groups.setdefault(sig, col)
        if first is not col:
            rep[col] = first
            del live[col]
            merged += 1
    return merged


def _unstarted_rows(
    footprints: dict[Col, tuple[list[Key], tuple, int]], rows: set[Key], live: dict[Col, None]
) -> set[Key]:
    """Rule 2: the rows (o, t, m) to drop — row (o, t−1, m) is kept and no live column starts in t with it."""
    starting: set[Key] = set()
    for col in live:
        keys = footprints[col][0]
        t0 = keys[0][1] if keys else None
        for k in keys:
            if k[1] != t0:
                break
            starting.add(k)
    return {k for k in rows if (k[0], k[1] - 1, k[2]) in rows and k not in starting}


def _kept_ends(keys: list[Key], rows: set[Key]) -> tuple[Key, Key] | None:
    """The first and last of ``keys`` that are kept rows (None if none is)."""
    first = next((k for k in keys if k in rows), None)
    if first is None:
        return None
    return first, next(k for k in reversed(keys) if k in rows)
