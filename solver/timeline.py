"""When things happen on the project's calendar: the horizon's end day, the month a day falls in, an amount
spread over the months of a span of days, and the wall-clock hours and end day of a job (spot capacity
loses spot_overhead_pct of its hours to interruptions)."""

from __future__ import annotations

from procure.models.offer import Offer
from procure.models.project import Project
from procure.models.units import HOURS_PER_DAY


def horizon_end_day(project: Project) -> float:
    """H: the horizon's end in days, the 1st of the month ``horizon_months`` after the start's (models.calendar)."""
    return float(project.horizon_days)


def month_of(project: Project, day: float) -> int:
    """The 0-based calendar month of the project that contains ``day``."""
    return project.calendar.month_of(day)


def clamp_month(project: Project, day: float) -> int:
    """The month of ``day`` within the horizon (a day at or after its end is in its last month)."""
    return max(0, min(project.calendar.month_of(day), project.horizon_months - 1))


def _within(project: Project, parts: dict[int, float]) -> dict[int, float]:
    out: dict[int, float] = {}
    for m, v in parts.items():
        key = max(0, min(m, project.horizon_months - 1))
        out[key] = out.get(key, 0.0) + v
    return out


def spread(project: Project, amount: float, start_day: float, end_day: float) -> dict[int, float]:
    """Split ``amount`` over the calendar months in proportion to the days of [start_day, end_day) in each (an
    empty span puts it in the month of ``start_day``; days past the horizon fall in its last month)."""
    if end_day <= start_day:
        return {clamp_month(project, start_day): amount}
    length = end_day - start_day
    return _within(project, {m: amount * d / length for m, d in project.calendar.overlaps(start_day, end_day).items()})


def prorate(project: Project, per_month: float, start_day: float, end_day: float) -> dict[int, float]:
    """A price per month over [start_day, end_day), by calendar month: per_month × days held in m / days in m."""
    if end_day <= start_day:
        return {}
    return _within(project, project.calendar.prorate(per_month, start_day, end_day))


def month_share(project: Project, month: int) -> float:
    """The share of calendar month ``month`` inside the project: 1, but for a month 0 that begins after its 1st."""
    cal = project.calendar
    return (cal.first_day(month + 1) - cal.bucket_start(month)) / cal.month_days(month)


def months_held(project: Project, start_day: float, end_day: float) -> float:
    """Calendar months held over [start_day, end_day), partial months by days (models.calendar)."""
    return project.calendar.months_held(start_day, end_day) if end_day > start_day else 0.0


def wall_hours(offer: Offer, hours: float) -> float:
    """Hours a job occupies (and pays for) its nodes: spot capacity loses ``spot_overhead_pct`` to interruptions."""
    return hours * (1.0 + offer.hour_overhead)


def job_end_day(offer: Offer, start_day: float, hours: float) -> float:
    return start_day + wall_hours(offer, hours) / HOURS_PER_DAY
