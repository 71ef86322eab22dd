"""Unit conversions, defined once.

The project's months are calendar months (models.calendar). DAYS_PER_MONTH = 365/12 (30.4167 d, 730 h) is the
mean month, the convention cloud providers use to quote monthly prices from hourly ones (AWS: "730 hours in a
month"): a reserved term's monthly payment is its hourly rate × 730 h.
"""

from __future__ import annotations

import datetime as dt
import math

DAYS_PER_YEAR = 365.0
MONTHS_PER_YEAR = 12
DAYS_PER_MONTH = DAYS_PER_YEAR / MONTHS_PER_YEAR
HOURS_PER_DAY = 24.0
HOURS_PER_MONTH = DAYS_PER_MONTH * HOURS_PER_DAY  # 730
GB = 1e9
GIB = 2.0**30
TB = 1e12


def day_date(start: dt.date, day: float) -> dt.date:
    """The calendar date of project day ``day`` (day 0 is ``start``; a fractional day is in its date)."""
    return start + dt.timedelta(days=math.floor(day + 1e-9))
