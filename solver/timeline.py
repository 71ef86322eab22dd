"""When things happen on the project's calendar: the horizon's end day, the month a day falls in, an amount
spread over the months of a span of days, and the wall-clock hours and end day of a job (spot capacity
loses spot_overhead_pct of its hours to interruptions)."""

from __future__ import annotations

from procure.models import units
from procure.models.offer import Offer
from procure.models.project import Project
from procure.models.units import DAYS_PER_MONTH, HOURS_PER_DAY


def horizon_end_day(project: Project) -> float:
    """H: the horizon end in (fractional) days."""
    return project.horizon_months * DAYS_PER_MONTH


month_of = units.day_to_month  # 0-based project month that contains a day


def spread(amount: float, start_day: float, end_day: float, n_months: int) -> dict[int, float]:
    """Split ``amount`` over months in proportion to the days of [start_day, end_day) in each."""
    out: dict[int, float] = {}
    if end_day <= start_day:
        out[min(month_of(start_day), n_months - 1)] = amount
        return out
    length = end_day - start_day
    m = month_of(start_day)
    while True:
        lo = max(start_day, m * DAYS_PER_MONTH)
        hi = min(end_day, (m + 1) * DAYS_PER_MONTH)
        if hi > lo:
            key = min(m, n_months - 1)
            out[key] = out.get(key, 0.0) + amount * (hi - lo) / length
        if (m + 1) * DAYS_PER_MONTH >= end_day:
            break
        m += 1
    return out


def wall_hours(offer: Offer, hours: float) -> float:
    """Hours a job occupies (and pays for) its nodes: spot capacity loses ``spot_overhead_pct`` to interruptions."""
    return hours * (1.0 + offer.hour_overhead)


def job_end_day(offer: Offer, start_day: float, hours: float) -> float:
    return start_day + wall_hours(offer, hours) / HOURS_PER_DAY
