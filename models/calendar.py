"""The project's calendar: its months are calendar months.

Day 0 is the project's ``start_date``; a day is a (fractional) number of days from it. Month m (0-based) is the
calendar month m months after the start's, so month 0 is the start's own calendar month, of which the project
holds [start, the first of the next month) — a partial month when the project does not start on the 1st.
The horizon is ``horizon_months`` months: it ends on the first of the calendar month ``horizon_months`` after
the start's (a project of 36 months starting 2027-01-04 ends on 2030-01-01, 1,093 days later).

A price per month covers a calendar month; over part of one it is prorated by days, the convention of monthly
invoices that begin or end mid-month (colocation, staff, storage per TB-month, and month 0 when it is partial):

    prorated amount in month m = monthly price × days held in m / days in m's calendar month

A rental contract's months are its own, anniversary months from the day it begins (a vendor bills a monthly
contract from its start date): the contract that begins on the d-th of a month has its j-th month begin on the
d-th of the month j months later, or the month's last day when it is shorter (2027-01-31 → 2027-02-28 →
2027-03-31, the ``relativedelta`` rule of python-dateutil and of Excel's ``EDATE``). Its *phase* is how many days
after the 1st of a calendar month it begins (0 ≤ phase < 31): a contract on phase φ that begins in month m pays
its j-th month in month m + j, whatever the months' lengths.
"""

from __future__ import annotations

import datetime as dt
import functools
import math

TOL = 1e-6  # days: a boundary this close to a day is that day
MAX_MONTH_DAYS = 31  # the longest calendar month


def add_months(day: dt.date, months: int) -> dt.date:
    """The date ``months`` calendar months after ``day`` (before it if negative), clamped to the month's last
    day (Excel's ``EDATE``)."""
    k = day.year * 12 + day.month - 1 + months
    year, month = divmod(k, 12)
    return dt.date(year, month + 1, min(day.day, days_in_month(year, month + 1)))


def days_in_month(year: int, month: int) -> int:
    nxt = dt.date(year + month // 12, month % 12 + 1, 1)
    return (nxt - dt.date(year, month, 1)).days


@functools.lru_cache(maxsize=64)
def calendar(start: dt.date) -> Calendar:
    """The calendar of a project that starts on ``start`` (one object per start date)."""
    return Calendar(start)


class Calendar:
    """Days ↔ calendar months of a project starting on ``start`` (module docstring)."""

    def __init__(self, start: dt.date) -> None:
        self.start = start
        self._first: dict[int, int] = {}

    def __repr__(self) -> str:
        return f"Calendar({self.start.isoformat()})"

    def month_first(self, m: int) -> dt.date:
        """The 1st of calendar month ``m`` (month 0: the start's month; its 1st may be before the start)."""
        return add_months(self.start.replace(day=1), m)

    def first_day(self, m: int) -> int:
        """The day the calendar month ``m`` begins on (≤ 0 for month 0: the 1st of the start's month)."""
        got = self._first.get(m)
        if got is None:
            got = self._first[m] = (self.month_first(m) - self.start).days
        return got

    def bucket_start(self, m: int) -> int:
        """The first day of month ``m`` that lies in the project (day 0 for month 0)."""
        return max(0, self.first_day(m)) if m >= 0 else self.first_day(m)

    def month_days(self, m: int) -> int:
        """Days in calendar month ``m`` (28 to 31)."""
        return self.first_day(m + 1) - self.first_day(m)

    def end_day(self, months: int) -> int:
        """The day a horizon of ``months`` months ends: the 1st of the month ``months`` after the start's."""
        return self.first_day(months)

    def month_of(self, day: float) -> int:
        """The month (0-based; negative before the start's month) that contains ``day``."""
        d = self.start + dt.timedelta(days=math.floor(day + 1e-9))
        return (d.year - self.start.year) * 12 + d.month - self.start.month

    def date(self, day: float) -> dt.date:
        """The calendar date of ``day`` (a fractional day is in its date)."""
        return self.start + dt.timedelta(days=math.floor(day + 1e-9))

    # --- anniversary months of contracts ----------------------------------------------------------

    def anniversary(self, phase: float, m: int) -> float:
        """The day a contract month on ``phase`` begins in calendar month ``m``: φ days after its 1st, or its last
        day when the month is shorter (whole days of φ clamp; a fraction of a day is kept)."""
        whole = math.floor(phase + 1e-9)
        last = self.month_days(m) - 1
        return self.first_day(m) + (phase if whole <= last else last + (phase - whole))

    def phase_of(self, day: float) -> float:
        """The phase of ``day``: days after the 1st of its calendar month, in [0, 31)."""
        ph = day - self.first_day(self.month_of(day))
        return 0.0 if ph < TOL else ph

    def lattice_month(self, phase: float, day: float) -> int:
        """The month m whose contract month on ``phase`` contains ``day`` (it begins at ``anniversary(phase, m)``
        ≤ day < ``anniversary(phase, m + 1)``)."""
        m = self.month_of(day)
        while self.anniversary(phase, m) > day + 1e-9:
            m -= 1
        while self.anniversary(phase, m + 1) <= day + 1e-9:
            m += 1
        return m

    def months_until(self, phase: float, month: int, day: float) -> int:
        """The fewest contract months on ``phase`` from month ``month`` that reach ``day``."""
        k = 0
        while self.anniversary(phase, month + k) < day - TOL:
            k += 1
        return k

    # --- amounts over the months -----------------------------------------------------------------

    def overlaps(self, lo: float, hi: float) -> dict[int, float]:
        """Days of [lo, hi) in each month it touches."""
        out: dict[int, float] = {}
        m = self.month_of(lo)
        while True:
            a, b = max(lo, self.first_day(m)), min(hi, self.first_day(m + 1))
            if b > a:
                out[m] = b - a
            if self.first_day(m + 1) >= hi:
                return out
            m += 1

    def months_held(self, lo: float, hi: float) -> float:
        """Calendar months held over [lo, hi): Σ_m days held in m / days in m (a whole month counts 1)."""
        return sum(days / self.month_days(m) for m, days in self.overlaps(lo, hi).items())

    def prorate(self, per_month: float, lo: float, hi: float) -> dict[int, float]:
        """A price per month over [lo, hi), by month: per_month × days held in m / days in m."""
        return {m: per_month * days / self.month_days(m) for m, days in self.overlaps(lo, hi).items()}
