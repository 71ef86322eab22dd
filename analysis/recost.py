"""The decided plan under a scenario: re-costed, NOT re-optimized. One re-cost, used by the solve's risk line
(analysis/plan_risk.py), the Monte Carlo's first step (the policy, analysis/engine.py), the tornado
(analysis/sensitivity.py) and the regret table.

What is decided today stays: every workload keeps its offer and node count, purchases keep their node
counts, rental contracts keep their months and term. What the scenario changes flows through the cost model:
prices, electricity, resale value, the costs beyond the servers, and the hours (× tokens ÷ MFU factor).

How the decided plan runs when the hours move (the policy "keep what you signed, extend where a job overruns"):

* **A job starts when its nodes are free.** Jobs of one offer are taken in the order the plan starts them; a
  job keeps its start day unless the jobs before it on the same nodes now run past it, and then starts as
  soon as the nodes it needs are free (the nodes bought of a buy offer; for a rented or reserved offer, the
  nodes the plan held for the job). A minutes-long overlap is a later start, not a failure. Cloud jobs
  (on-demand or spot) each get their own nodes and keep their start.
* **A rented job that runs past its contract extends that contract** (a contract of the offer that ended
  before the day it lacks, by whole months of its own, at its signed term; no new setup fee). A commitment
  signed before the plan is never extended.
* **It runs as decided** when every job still meets its deadline and the capacity it uses is capacity the
  plan holds (bought, contracted, or a contract of the plan extended). Two things do not: a missed deadline
  (the verifier's ``deadline`` / ``release`` / ``window`` rules), and capacity the plan does not hold (a
  new contract, or more nodes than were bought). The schedule buffer (``min_slack_days``) is a planning
  margin: a job that ends inside it still meets its deadline, so the realized plan is checked without it.

The result is verified like any plan (``solver.verify.verify_plan``) before its cost is used; where new
capacity is needed, the plan with a new contract signed from the day it lacks is priced and verified too
(a known feasible plan: recourse by rule), but it does not run as decided.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from dataclasses import dataclass

from procure.solver import costs, holdings
from procure.solver.costs import RentalContract
from procure.solver.plan import Decision, Plan, build_plan
from procure.solver.verify import VerificationError, verify_plan

from .scenario import Applied

#: two jobs "overlap" on a node only when they share more than this much of a day (the verifier's tolerance)
DAY_TOL = 1e-6


@dataclass(frozen=True)
class AsDecided:
    """The decided plan re-costed under a scenario.

    ``plan``: the re-costed plan when the verifier passed it (None when it did not); ``broken``: why it does
    not run as decided ([] when it does); ``shifted``: jobs that start later because the jobs before them on
    the same nodes run late; ``extended``: contracts of the plan run longer; ``signed``: new contracts needed."""

    plan: Plan | None
    broken: tuple[str, ...] = ()
    shifted: int = 0
    extended: int = 0
    signed: int = 0
    priced: Plan | None = None  # the re-costed plan, verified or not (the risk line's cost where a deadline is missed)

    @property
    def runs(self) -> bool:
        """It runs as decided: verified, every deadline met, on capacity the plan holds."""
        return self.plan is not None and not self.broken


def as_decided(plan: Plan, a: Applied, hours_factor: float, modes, resize=None) -> AsDecided:
    """The decided plan under the scenario ``a`` with every job's hours × ``hours_factor`` (module docstring).
    ``resize``: the verifier's own shapes (None: the shapes were re-sized when the plan was first verified)."""
    decisions = [dataclasses.replace(d, hours=d.hours * hours_factor) for d in plan.decisions]
    purchases = {p.offer_id: p.nodes for p in plan.purchases}
    contracts = [r.contract for r in plan.rentals]  # each at the term tier it was signed at
    shifted = 0
    if hours_factor != 1.0:
        decisions, shifted = _start_when_free(decisions, purchases, contracts, a)
        contracts, extended, signed = extend_rentals(contracts, decisions, a)
    else:
        extended, signed = 0, []
    out = build_plan(a.project, a.offers, decisions, purchases, contracts)
    try:
        verify_plan(realized(a.project), a.offers, out, resize, modes)
    except VerificationError as exc:
        return AsDecided(None, tuple(exc.violations), shifted, extended, len(signed), out)
    return AsDecided(out, tuple(signed), shifted, extended, len(signed), out)


def decided_under(plan: Plan, a: Applied, hours_factor: float, modes) -> tuple[Plan | None, list[str]]:
    """(the decided plan re-costed under the scenario, why it does not run as decided): the plan is None only
    when no re-costed plan passes the verifier; one that needs a new contract is returned with the reason."""
    got = as_decided(plan, a, hours_factor, modes, a.resize)
    return got.plan, list(got.broken)


def realized(project):
    """The project as the realized plan is checked: its deadlines, without the planning buffer (min_slack_days)."""
    if not project.min_slack_days and all(not w.min_slack_days for w in project.workloads):
        return project
    return project.model_copy(
        update={
            "min_slack_days": 0.0,
            "workloads": [w.model_copy(update={"min_slack_days": None}) for w in project.workloads],
        }
    )


def _held_for(d: Decision, offer, purchases: dict[str, int], contracts: list[RentalContract], a: Applied) -> float:
    """The nodes of ``d``'s offer the plan holds for ``d`` (and the jobs beside it): bought, or under contract at
    its decided start; a cloud job's nodes are its own (infinite)."""
    if offer.mode == "buy":
        owned = holdings.owned_entry(a.project, offer.id)
        return float(purchases.get(offer.id, 0) + (owned.nodes if owned is not None else 0))
    if offer.mode == "rent" or offer.commitment_months is not None:
        mid = d.start_day + DAY_TOL
        return float(
            sum(c.nodes for c in contracts if c.offer_id == offer.id and c.start_day <= mid < c.end_day) or d.nodes
        )
    return math.inf


def _start_when_free(decisions: list[Decision], purchases, contracts, a: Applied) -> tuple[list[Decision], int]:
    """Each job at its decided start, or later when the jobs before it on the same nodes still hold them."""
    order = sorted(range(len(decisions)), key=lambda i: (decisions[i].start_day, decisions[i].workload))
    placed: dict[str, list[tuple[float, float, int]]] = defaultdict(list)  # offer -> (start, end, nodes)
    out = list(decisions)
    shifted = 0
    for i in order:
        d = decisions[i]
        o = a.offers[d.offer_id]
        cap = _held_for(d, o, purchases, contracts, a)
        dur = costs.job_end_day(o, 0.0, d.hours)
        start = d.start_day
        if math.isfinite(cap):
            busy = placed[o.id]
            for t in sorted({start} | {e for _s, e, _n in busy if e > start}):
                if _fits(busy, t, t + dur, d.nodes, cap):
                    start = t
                    break
            else:  # never free: keep the decided start, the verifier names what breaks
                start = d.start_day
            busy.append((start, start + dur, d.nodes))
        if start > d.start_day + DAY_TOL:
            shifted += 1
            out[i] = dataclasses.replace(d, start_day=start)
    return out, shifted


def _fits(busy: list[tuple[float, float, int]], lo: float, hi: float, nodes: int, cap: float) -> bool:
    """``nodes`` more fit beside ``busy`` on every day of [lo, hi) (overlaps shorter than DAY_TOL ignored)."""
    points = sorted({lo} | {s for s, _e, _n in busy if lo < s < hi})
    for p in points:
        use = sum(n for s, e, n in busy if s <= p + DAY_TOL and e > p + DAY_TOL)
        if use + nodes > cap:
            return False
    return True


def extend_rentals(
    contracts: list[RentalContract], decisions, a: Applied
) -> tuple[list[RentalContract], int, list[str]]:
    """Cover every day a rented job now runs (module docstring), on the contracts' own months: (the contracts,
    how many were extended, a line per new contract signed: capacity the plan does not hold)."""
    jobs: dict[str, list[tuple[float, float, int]]] = defaultdict(list)
    for d in decisions:
        o = a.offers[d.offer_id]
        if o.mode == "rent":
            jobs[o.id].append((d.start_day, costs.job_end_day(o, d.start_day, d.hours), d.nodes))
    out = [c for c in contracts if c.offer_id not in jobs]
    extended = 0
    signed: list[str] = []
    for oid, intervals in jobs.items():
        mine = [c for c in contracts if c.offer_id == oid]
        points = sorted(
            {s for s, _e, _n in intervals}
            | {e for _s, e, _n in intervals}
            | {d for c in mine for d in (c.start_day, c.end_day)}
        )
        for lo, hi in zip(points, points[1:], strict=False):
            if hi - lo <= 1e-9:
                continue
            mid = (lo + hi) / 2
            use = sum(n for s, e, n in intervals if s <= mid < e)
            if use:
                n_ext, new = _cover(mine, oid, use, lo, hi, a)
                extended += n_ext
                signed += new
        out += mine
    return out, extended, signed


def _cover(mine: list[RentalContract], oid: str, use: int, lo: float, hi: float, a: Applied) -> tuple[int, list[str]]:
    """Hold ``use`` nodes of ``oid`` over [lo, hi): extend the contracts that ended last (a rent contract of any
    term tier, a minimum length, can run longer at its rate), else sign new ones from ``lo``."""
    mid, M, cal = (lo + hi) / 2, a.project.horizon_months, a.project.calendar
    extended = 0
    signed: list[str] = []
    while True:
        short = use - sum(c.nodes for c in mine if c.start_day <= mid < c.end_day)
        if short <= 0:
            return extended, signed
        # a commitment is as signed: it is never extended (solver.holdings)
        ended = [c for c in mine if c.end_day <= mid and a.offers[oid].mode == "rent" and not c.committed]
        if ended:
            c = max(ended, key=lambda c: (c.end_day, c.nodes))
            take = min(short, c.nodes)
            mine.remove(c)
            if c.nodes > take:
                mine.append(dataclasses.replace(c, nodes=c.nodes - take))
            # whole months of its own, paid within the horizon: what lies beyond is left for the verifier to name
            months = min(cal.months_until(c.phase_days, c.start_month, hi), M - c.start_month)
            mine.append(dataclasses.replace(c, nodes=take, months=max(c.months, months)))
            extended += 1
            if months <= c.months:
                return extended, signed
        else:
            term = a.offers[oid].min_term
            new = costs.contract_at(oid, short, lo, term, cal)
            new = dataclasses.replace(new, months=max(term, cal.months_until(new.phase_days, new.start_month, hi)))
            if new.start_month + term > M:
                return extended, signed  # no contract of the offer can begin here and end within the horizon
            new = dataclasses.replace(new, months=min(new.months, M - new.start_month))
            mine.append(new)
            signed.append(
                f"capacity: {short} more node(s) of {oid} from day {lo:.1f} (a new contract; the plan does not hold them)"
            )
            if not new.start_day <= mid < new.end_day:
                return extended, signed
