"""What the organisation already has and may use: owned servers, signed contracts, quotas.

Field names are the user-facing contract (README, docs/quotes.md "What you already have"):

- ``owned: [{offer, nodes, from?, until?, residual_value?}]``: servers already bought. ``offer`` names a buy
  offer that describes them; they cost no capex and no financing, pay their running costs (maintenance,
  colocation, idle energy, staff where it applies) from ``from`` (default: the project start) to ``until``
  (default: the horizon end) whatever the plan does, and bring ``residual_value`` per node at the end of that
  window only if it is given.
- ``commitments: [{offer, nodes, start_date, months}]``: rentals and reserved cloud terms already signed, on a
  rent or reserved cloud offer. Their payments are owed whatever the plan does; jobs use the capacity inside
  its window at no extra price. ``price_per_node_month`` is the rate signed (default: the offer's rate for the
  signed length); an analysis that moves prices leaves it as signed. A commitment that began before the
  project start keeps its own payment day: the months paid before the start are behind it, the months left
  are in the plan (``months_before_start``).
- ``quotas: [{vendor?, region?, gpu?, mode?, max_gpus}]``: at most ``max_gpus`` GPUs in use at once across the
  offers that match every field given (solver.holdings says what "in use" is per mode).
How the solver uses them: solver/holdings.py.
"""

from __future__ import annotations

import datetime as dt

from pydantic import Field, field_validator

from procure.common.text import echo
from procure.fileio.limits import MAX_COUNT, MAX_MONTHS, MAX_PRICE

from .gpu import gpu_table
from .offer import Mode
from .validation import Date, InputModel

OFFER_ID = r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$"


class Owned(InputModel):
    offer: str = Field(min_length=1, max_length=80, pattern=OFFER_ID, description="the buy offer the servers are")
    nodes: int = Field(gt=0, le=MAX_COUNT)
    from_: Date | None = Field(default=None, alias="from", description="first day they can be used; default: day 0")
    until: Date | None = Field(default=None, description="the day they leave; default: the horizon end")
    residual_value: float | None = Field(
        default=None, ge=0, le=MAX_PRICE, description="resale value per node at the end of the window"
    )


class Commitment(InputModel):
    offer: str = Field(min_length=1, max_length=80, pattern=OFFER_ID, description="a rent or reserved cloud offer")
    nodes: int = Field(gt=0, le=MAX_COUNT)
    start_date: Date
    months: int = Field(gt=0, le=MAX_MONTHS)
    price_per_node_month: float | None = Field(
        default=None,
        gt=0,
        le=MAX_PRICE,
        description="the rate signed, per node-month in the offer's currency; default: the offer's rate for the signed length",
    )


class Quota(InputModel):
    vendor: str | None = Field(default=None, min_length=1, max_length=200)
    region: str | None = Field(default=None, min_length=1, max_length=80)
    gpu: str | None = None
    mode: Mode | None = None
    max_gpus: int = Field(ge=0, le=MAX_COUNT)

    @field_validator("gpu", mode="before")
    @classmethod
    def _canonical_gpu(cls, value: object) -> object:
        if value is None:
            return value
        table = gpu_table()
        text = value if isinstance(value, str) else echo(value)
        gid = table.resolve(text)
        if gid is None:
            raise ValueError(table.unknown_message(text))
        return gid

    @field_validator("region", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @property
    def label(self) -> str:
        """The quota as a person names it: ``vendor=aws, gpu=H100-SXM-80GB: 32 GPUs``."""
        parts = [
            f"{k}={v}"
            for k, v in (("vendor", self.vendor), ("region", self.region), ("gpu", self.gpu), ("mode", self.mode))
            if v
        ]
        return f"{', '.join(parts) or 'every offer'}: {self.max_gpus} GPUs"


def months_before_start(signed: dt.date, start: dt.date) -> int:
    """The months of a contract signed on ``signed`` that were paid before the project ``start``: its payments
    fall on its anniversary days (models.calendar.add_months), those before ``start`` are behind it."""
    from .calendar import add_months

    k = max(0, (start.year - signed.year) * 12 + start.month - signed.month)
    while k > 0 and add_months(signed, k - 1) >= start:
        k -= 1
    while add_months(signed, k) < start:
        k += 1
    return k
