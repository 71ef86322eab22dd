"""Quota rows of the MILP (solver.holdings): the GPUs in use at once across the offers a quota matches.

    quota[q,t,c]:  Σ_{buy o held in piece c} g_o·b[o] + Σ_{contracted o} g_o·R[o, months of c] (commitments
                   included) + Σ_{cloud jobs busy in period t} GPUs·x  ≤ max_gpus_q
for every piece c of every period t (the period split where a contract month of a matched contracted offer
ends). Owned nodes count inside their window, bought nodes from delivery (b[o] when the piece touches it).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pulp

from .. import costs, holdings, lattice

if TYPE_CHECKING:
    from .formulation import Builder


def add_quota_rows(b: Builder) -> None:
    """quota[q,t,c]: GPUs in use on the offers quota q matches, in piece c of period t, ≤ max_gpus
    (solver.holdings: bought and owned nodes held, contracted nodes under contract, cloud nodes busy).

    The pieces split period t where a contract month of any matched contracted offer ends (lattice.pieces
    over all their phases), so each contracted offer is in one lattice month of each phase there; a cloud
    job counts in every piece of a period it touches, as in cloud_cap."""
    m, grid, P = b.m, b.grid, b.grid.period_days
    busy: dict[tuple[str, int], dict] = {}  # (cloud offer, period) -> {x: GPUs}
    for (w, i, s), v in m.x.items():
        opt = b.options[w][i]
        if opt.mode == "cloud" and not opt.offer.contracted:
            for oid, t, _mm in b._footprint[(w, i, s)][0]:
                busy.setdefault((oid, t), {})[v] = opt.gpus
    for qi, q in enumerate(b.project.quotas):
        matched = [oid for oid in sorted(b.offers) if holdings.matches(q, b.offers[oid])]
        contracted = [
            oid for oid in matched if oid in b.phases and (oid in b.committed or (b._tiers_of(oid) or b._terms_of(oid)))
        ]
        phases = tuple(sorted({ph for oid in contracted for ph in b.phases[oid]}))
        for t in range(grid.n_periods):
            for lo, hi, _months in lattice.pieces(
                b.project.calendar, phases, t * P, min((t + 1) * P, costs.horizon_end_day(b.project))
            ):
                expr = _quota_use(b, matched, contracted, t, (lo, hi), busy)
                if expr.keys() or expr.constant > q.max_gpus:
                    m.prob += (expr <= q.max_gpus, b.names.row("quota", qi, t, int(lo * 1000)))


def _quota_use(b: Builder, matched: list[str], contracted: list[str], t: int, piece, busy) -> pulp.LpAffineExpression:
    """GPUs in use on ``matched`` offers in ``piece`` (lo, hi) of period t, as add_quotas counts them: a
    bought or owned node if it is held at any time in the piece."""
    lo, hi = piece
    day = (lo + hi) / 2
    expr = pulp.LpAffineExpression()
    for oid in matched:
        o = b.offers[oid]
        g = o.gpus_per_node
        if oid in b.m.b:
            span = holdings.owned_window(b.project, oid) or (float(o.lead_time_days), math.inf)
            if span[0] < hi - lattice.TOL and lo < span[1] - lattice.TOL:
                expr += g * b.m.b[oid]
        elif oid in contracted:
            months = tuple(lattice.lattice_month(b.project.calendar, ph, day) for ph in b.phases[oid])
            expr += g * b.rented(oid, months)
        elif (oid, t) in busy:
            expr += pulp.LpAffineExpression(busy[(oid, t)])
    return expr
