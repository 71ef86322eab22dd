r"""Contract months: where a rental's own months lie on the project's days.

A rental contract (and a reserved cloud term) runs whole months from its own start (costs.RentalContract):
anniversary months, a contract that begins on the d-th of a month holds its nodes until the d-th of the month
its j months later (models.calendar). The optimizer counts contracts per month (formulation.py, S/E and T), so
it needs a lattice of months on which contracts begin. One lattice per *phase* φ ∈ [0, 31), the days after
the 1st of a calendar month: its month m is [a(φ, m), a(φ, m+1)) with a(φ, m) = ``Calendar.anniversary`` (the
1st of calendar month m plus φ days, clamped to the month's last day). A contract on phase φ that begins in
lattice month m pays its j-th month in project month m + j, so every phase shares the project months' prices
and discount factors.

Which phases an offer gets (``contract_phases``): the first planning period at or after the offer's lead
time (delivery), and the first period at or after each job's release on it — the days a contract
should begin so that no month is paid before a job can use it. A day whose lattice would begin less than
one period after a lattice already chosen (modulo a month) adds nothing: that lattice has a day at most
one period before it. At most MAX_PHASES, earliest first.
A contract may begin on a lattice day only if that day is not before the offer's lead time
(``may_start``). A job that starts between two lattice days is covered by the contract of the latest
one before it.

Where the capacity rows are (``pieces``): a planning period splits at every month boundary of every
phase inside it; in each piece every phase is in one lattice month, so the nodes a piece can use are
Σ_φ R[φ, month of the piece on φ].
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable

from procure.models.calendar import Calendar
from procure.models.offer import Offer
from procure.models.project import Project
from procure.models.units import DAYS_PER_MONTH

MAX_PHASES = 6
TOL = 1e-6  # days: boundaries this close to a period edge are the edge


def phase_of(cal: Calendar, day: float) -> float:
    """The phase of the lattice on which ``day`` is a month boundary: days after the 1st of its month, in [0, 31)."""
    return cal.phase_of(day)


def contract_phases(project: Project, offer: Offer) -> tuple[float, ...]:
    """The phases (days into a project month) on which contracts of ``offer`` may begin, ascending: those of
    its commitments (solver.holdings) first, then the planned ones."""
    from . import holdings

    releases = tuple(sorted({float(w.earliest_start_days) for w in project.workloads}))
    planned = _phases(project.calendar, project.period_days, holdings.contract_from_day(project, offer), releases)
    signed = [c.phase_days for c in holdings.commitments_of(project, offer.id)]
    out: list[float] = []
    for ph in [*signed, *planned]:
        if all(abs(ph - q) > TOL for q in out):
            out.append(ph)
    return tuple(sorted(out))


@functools.lru_cache(maxsize=4096)
def _phases(cal: Calendar, period_days: int, lead: float, releases: tuple[float, ...]) -> tuple[float, ...]:
    def first(day: float) -> float:
        return math.ceil(day / period_days - 1e-9) * period_days

    days = [first(lead)] + [first(max(lead, r)) for r in releases]
    out: list[float] = []
    for d in days:
        ph = phase_of(cal, d)
        # a lattice that begins less than one period earlier in the month serves this day already (months
        # taken at their mean length: this only chooses which lattices to offer the optimizer)
        if all((ph - q) % DAYS_PER_MONTH >= period_days - TOL for q in out):
            out.append(ph)
        if len(out) == MAX_PHASES:
            break
    return tuple(sorted(out))


def lattice_month(cal: Calendar, phase: float, day: float) -> int:
    """The month of the lattice of ``phase`` that contains ``day`` (−1 before its first month)."""
    return cal.lattice_month(phase, day)


def month_start(cal: Calendar, phase: float, month: int) -> float:
    """The day lattice month ``month`` of ``phase`` begins."""
    return cal.anniversary(phase, month)


def may_start(cal: Calendar, offer: Offer, phase: float, month: int, first_day: float | None = None) -> bool:
    """A contract of ``offer`` may begin in lattice month ``month`` of ``phase``: not before delivery (or
    ``first_day``, holdings.contract_from_day: not before the offer's window either)."""
    first = float(offer.lead_time_days) if first_day is None else first_day
    return month >= 0 and month_start(cal, phase, month) >= first - TOL


def pieces(
    cal: Calendar, phases: tuple[float, ...], lo: float, hi: float
) -> list[tuple[float, float, tuple[int, ...]]]:
    """[lo, hi) split at every month boundary of every phase inside it: (start, end, the lattice month of
    each phase there). A boundary within TOL of lo or hi is taken as lo or hi."""
    cuts = {lo, hi}
    for ph in phases:
        m = lattice_month(cal, ph, lo) + 1
        while True:
            b = month_start(cal, ph, m)
            if b >= hi - TOL:
                break
            if b > lo + TOL:
                cuts.add(b)
            m += 1
    edges = sorted(cuts)
    out = []
    for a, b in zip(edges, edges[1:], strict=False):
        mid = (a + b) / 2
        out.append((a, b, tuple(lattice_month(cal, ph, mid) for ph in phases)))
    return out


def covering_start(cal: Calendar, offer: Offer, phase: float, day: float, first_day: float | None = None) -> int | None:
    """The latest lattice month of ``phase`` beginning at or before ``day`` that a contract may begin in."""
    m = lattice_month(cal, phase, day + TOL)
    return m if may_start(cal, offer, phase, m, first_day) else None


def months_touched(cal: Calendar, phase: float, start_day: float, end_day: float) -> range:
    """The lattice months of ``phase`` that [start_day, end_day) touches."""
    first = lattice_month(cal, phase, start_day + TOL)
    last = lattice_month(cal, phase, max(start_day, end_day - TOL))
    return range(first, last + 1)


def peak_overlap(intervals: Iterable[tuple[float, float, int]], lo: float, hi: float) -> int:
    """The most nodes of ``intervals`` (start, end, nodes) held at once within [lo, hi)."""
    events = sorted({lo, *(s for s, _e, _n in intervals if lo < s < hi)})
    best = 0
    for t in events:
        probe = t + TOL
        best = max(best, sum(n for s, e, n in intervals if s <= probe < e))
    return best
