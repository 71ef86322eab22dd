"""Planner test fixtures: workloads with hours fixed by hand (a stand-in for the sizing engine), so the
optimal answers can be worked out on paper; and an independent brute force for random instances."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import cache

from procure.solver import costs
from procure.solver.options import Grid, allowed_starts
from procure.solver.planner import plan_from_sizings


@dataclass
class FixedCandidate:
    workload: str
    offer_id: str
    gpu: str
    nodes: int
    gpus: int
    hours: float
    fits: bool = True
    reason: str | None = None
    strategy: object = None
    per_gpu_memory_gb: float | None = None
    efficiency: float | None = None
    memory: object = None

    @property
    def gpu_hours(self) -> float:
        return self.hours * self.gpus


@dataclass
class FixedSizing:
    workload: object
    candidates: list = field(default_factory=list)
    total_flops: float = 0.0


def fixed_sizings(project, offers, hours: dict[tuple[str, str, int], float]):
    """hours[(workload, offer_id, nodes)] = compute hours on that shape."""
    by_name = {w.name: w for w in project.workloads}
    out = {w.name: FixedSizing(w) for w in project.workloads}
    offer_by_id = {o.id: o for o in offers}
    for (w, oid, n), h in hours.items():
        o = offer_by_id[oid]
        out[w].candidates.append(FixedCandidate(w, oid, o.gpu, n, n * o.gpus_per_node, h))
    table = {(w, oid, n): h for (w, oid, n), h in hours.items()}

    def resize(workload, offer, nodes):
        h = table.get((workload.name, offer.id, nodes))
        return None if h is None else FixedCandidate(workload.name, offer.id, offer.gpu, nodes, nodes * offer.gpus_per_node, h)

    assert set(out) == set(by_name)
    return list(out.values()), resize


def solve_fixed(project, offers, hours, **kw):
    sizings, resize = fixed_sizings(project, offers, hours)
    kw.setdefault("n_runner_ups", 0)  # the runner-up re-solves are tested on their own
    return plan_from_sizings(project, offers, sizings, resize, **kw)


# --- brute force -----------------------------------------------------------------------------------

def rental_min_cost(need: tuple[int, ...], price: float, setup: float, term: int) -> float:
    """Cheapest whole-month contracts (each ≥ ``term`` months, all ended by the horizon) covering ``need[m]``
    nodes in every month m — by dynamic programming over the ages of the open contracts.

    State before month m: ages[a] = open contracts that have run a+1 months (a < term−1); the last slot
    holds those that have run ≥ term months and may end."""
    M, top = len(need), max(need) if need else 0

    @cache
    def best(m: int, ages: tuple[int, ...]) -> float:
        if m == M:
            return 0.0 if sum(ages[:-1]) == 0 else math.inf
        result = math.inf
        for end in range(ages[-1] + 1):
            kept = list(ages)
            kept[-1] -= end
            active = sum(kept)
            for new in range(max(0, need[m] - active), max(0, top - active) + 1):
                nxt = [0] * term
                nxt[0] += new
                for a in range(term):
                    nxt[min(a + 1, term - 1)] += kept[a]
                result = min(result, (active + new) * price + new * setup + best(m + 1, tuple(nxt)))
        return result

    return best(0, tuple([0] * term))


def contracts_min_cost(need: tuple[int, ...], terms: tuple[tuple[int, float, float, bool], ...], cap: int) -> float:
    """Cheapest contracts covering ``need[m]`` nodes in every month m with at most ``cap`` under contract at once,
    for an offer that sells ``terms`` = (months, price per node-month, setup per node, open-ended): an open-ended
    term runs any length from its months, every other term exactly its months; all end within the horizon.
    By dynamic programming over the months.

    State before month m: ages[a] = open-term contracts that have run a+1 months (the last slot: those that may
    end), and ahead[j] = nodes already committed by fixed-term contracts for month m + j."""
    M = len(need)
    open_terms = [t for t in terms if t[3]]
    fixed = [t for t in terms if not t[3]]
    L0, p0, f0 = (open_terms[0][0], open_terms[0][1], open_terms[0][2]) if open_terms else (1, 0.0, 0.0)
    span = max([t[0] for t in fixed], default=1)

    @cache
    def best(m: int, ages: tuple[int, ...], ahead: tuple[int, ...]) -> float:
        if m == M:
            return 0.0 if sum(ages[:-1]) == 0 else math.inf
        result = math.inf
        usable = [t for t in fixed if m + t[0] <= M]
        for end in range(ages[-1] + 1):
            kept = list(ages)
            kept[-1] -= end
            active = sum(kept)
            for signs in itertools.product(range(cap + 1), repeat=len(usable)):
                base = active + ahead[0] + sum(signs)
                if base > cap:
                    continue
                top = cap - base if open_terms else 0
                for new in range(max(0, need[m] - base), top + 1):
                    nxt_ages = [0] * L0
                    nxt_ages[0] += new
                    for a in range(L0):
                        nxt_ages[min(a + 1, L0 - 1)] += kept[a]
                    nxt_ahead = list(ahead[1:]) + [0]
                    for (L, _p, _f, _o), c in zip(usable, signs, strict=True):
                        for j in range(L - 1):
                            nxt_ahead[j] += c
                    here = (active + new) * p0 + new * f0 + sum(c * (L * p + f) for (L, p, f, _o), c in zip(usable, signs, strict=True))
                    result = min(result, here + best(m + 1, tuple(nxt_ages), tuple(nxt_ahead)))
        return result

    return best(0, tuple([0] * L0), tuple([0] * span))


def brute_force_tco(project, offers, hours) -> float:
    """Enumerate every shape and start of every workload; cost capacity exactly; return the least TCO."""
    grid = Grid.of(project)
    offer_by_id = {o.id: o for o in offers}
    per_w = []
    for w in project.workloads:
        choices = []
        for (wn, oid, n), h in hours.items():
            if wn != w.name:
                continue
            o = offer_by_id[oid]
            if o.mode not in project.allowed_modes:
                continue
            wall_days = costs.wall_hours(o, h) / 24.0
            starts, _ = allowed_starts(project, grid, w, o, wall_days)
            for s in starts:
                choices.append((o, n, h, s, wall_days))
        per_w.append(choices)
    best = math.inf
    for combo in itertools.product(*per_w):
        total = 0.0
        usage: dict[tuple[str, int], int] = {}
        intervals: dict[str, list[tuple[float, float, int]]] = {}
        for o, n, h, s, wall_days in combo:
            total += costs.total(costs.job_flows(o, project, n, h, grid.start_day(s)))
            for t in grid.busy_periods(s, wall_days):
                usage[(o.id, t)] = usage.get((o.id, t), 0) + n
            intervals.setdefault(o.id, []).append((grid.start_day(s), grid.start_day(s) + wall_days, n))
        ok = True
        for oid in {k[0] for k in usage}:
            o = offer_by_id[oid]
            per_t = {t: u for (x, t), u in usage.items() if x == oid}
            if o.mode == "buy":
                nodes = max(per_t.values())
                if nodes > o.max_nodes:
                    ok = False
                    break
                total += nodes * costs.total(costs.purchase_flows(o, project))
            elif o.contracted:
                need = [0] * grid.n_months  # most nodes running at once in each month, from the real intervals
                jobs = intervals[oid]
                for m in range(grid.n_months):
                    lo, hi = m * 365 / 12, (m + 1) * 365 / 12
                    for point in {lo} | {a for a, _b, _n in jobs if lo <= a < hi}:
                        need[m] = max(need[m], sum(n for a, b, n in jobs if a <= point < b))
                if max(need) > o.max_nodes:
                    ok = False
                    break
                if o.mode == "rent" and not o.term_prices:
                    total += rental_min_cost(tuple(need), o.price_per_node_month, o.setup_fee, o.min_term)
                else:  # term tiers or a reserved cloud term (prices in the project currency in these tests)
                    terms = tuple((t.months, t.price, t.setup, t.open_ended) for t in costs.contract_terms(o))
                    total += contracts_min_cost(tuple(need), terms, o.max_nodes)
            else:
                if max(per_t.values()) > o.max_nodes:
                    ok = False
                    break
        if ok and total < best:
            best = total
    if project.budget is not None and best > project.budget:
        return math.inf
    return best
