"""Price paths and FX paths (``workload.yaml``: ``price_paths``, ``fx_paths``): prices that move over the horizon.

A price path is an index by project month m (m = 0 is the start) that multiplies the quoted prices of one mode,
optionally only of one GPU or one offer (the most specific path that matches an offer wins: offer, then GPU, then
the mode alone):

    annual_pct: a         index(m) = (1 + a/100)^(m/12)      (−20: prices fall 20 % a year, compounded monthly)
    monthly: [i0, i1, …]  index(m) = i_m; the last value holds after the list ends

Modes: ``buy`` (the purchase price, paid at delivery), ``rent`` (a contract's rate, fixed at the month it starts),
``cloud`` (on-demand and spot hours in the month they run; a reserved term's rate fixed at its start) and
``energy`` (the electricity of bought and owned servers, in the month it is drawn). How each amount takes its
index is stated with the money rules, in ``solver.costs`` ("Price and FX paths").

An FX path gives the value of one unit of a quoted currency (as ``fx_rates`` does) from a date on: the rate of a
step is in force from the project month that holds its ``from`` date until the next step; before the first step
the project's ``fx_rates`` rate holds. Every amount in that currency converts at the rate of the month it is paid.
"""

from __future__ import annotations

import math

from pydantic import ConfigDict, Field, field_validator, model_validator

from procure.common.text import clean_name
from procure.fileio.limits import MAX_PRICE

from .validation import Date, InputModel

#: the modes a price path indexes
PATH_MODES: tuple[str, ...] = ("rent", "buy", "cloud", "energy")
#: the most months an explicit path may list (the longest horizon) and the most paths or FX steps a project may give
MAX_PATH_MONTHS = 120
MAX_PATHS = 100
#: an index value (or an annual change) beyond these is a typo, not a forecast
MAX_INDEX = 100.0
MAX_ANNUAL_PCT = 1000.0


class PricePath(InputModel):
    """One price path (module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: str = Field(description="rent | buy | cloud | energy: the prices it indexes")
    gpu: str | None = Field(default=None, max_length=80, description="only offers of this GPU")
    offer: str | None = Field(default=None, min_length=1, max_length=80, description="only this offer (its id)")
    annual_pct: float | None = Field(
        default=None,
        gt=-100,
        le=MAX_ANNUAL_PCT,
        description="change per year in percent (−20: prices fall 20 % a year): index(m) = (1 + pct/100)^(m/12)",
    )
    monthly: list[float] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_PATH_MONTHS,
        description="the index of each project month from the start (1 = today's quote); the last value holds after it",
    )
    source: str | None = Field(default=None, min_length=1, max_length=2000, description="where the path comes from")

    @field_validator("mode", mode="before")
    @classmethod
    def _mode(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() in PATH_MODES:
            return value.strip().lower()
        raise ValueError(f"mode must be one of {', '.join(PATH_MODES)} (got {value!r})")

    @field_validator("gpu", mode="before")
    @classmethod
    def _gpu(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        from .gpu import gpu_table

        table = gpu_table()
        gid = table.resolve(clean_name(value, "gpu"))
        if gid is None:
            raise ValueError(table.unknown_message(value))
        return gid

    @field_validator("monthly")
    @classmethod
    def _monthly(cls, value: list[float] | None) -> list[float] | None:
        if value is None:
            return value
        bad = [i for i, v in enumerate(value) if not math.isfinite(v) or v <= 0 or v > MAX_INDEX]
        if bad:
            raise ValueError(
                f"monthly[{bad[0]}] is {value[bad[0]]!r}: every index must be a number > 0 and at most {MAX_INDEX:g} "
                "(1 = today's quote)"
            )
        return value

    @model_validator(mode="after")
    def _one_kind(self) -> PricePath:
        if (self.annual_pct is None) == (self.monthly is None):
            raise ValueError("give either annual_pct (change per year, %) or monthly (an index per month), not both")
        return self

    def index(self, month: int) -> float:
        """index(m) of project month ``month`` (module docstring)."""
        if self.monthly is not None:
            return float(self.monthly[min(max(month, 0), len(self.monthly) - 1)])
        assert self.annual_pct is not None
        return (1.0 + self.annual_pct / 100.0) ** (max(month, 0) / 12.0)

    @property
    def specificity(self) -> int:
        """2: one offer; 1: one GPU; 0: the whole mode (the most specific matching path wins)."""
        return 2 if self.offer is not None else 1 if self.gpu is not None else 0

    @property
    def label(self) -> str:
        """The path as the reports name it: ``rent``, ``rent H100-SXM-80GB``, ``rent offer a1``."""
        what = f" offer {self.offer}" if self.offer else f" {self.gpu}" if self.gpu else ""
        return f"{self.mode}{what}"


class FxStep(InputModel):
    """One step of an FX path: the value of one unit of the currency, in force from ``from`` on."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    from_: Date = Field(alias="from", description="the date the rate takes effect (its project month on)")
    rate: float = Field(gt=0, le=MAX_PRICE, description="value of one unit of the currency in the reporting currency")


def check_fx_steps(code: str, steps: list[FxStep]) -> list[str]:
    """Problems of one currency's FX path: empty, too long, or dates not in increasing order."""
    if not steps:
        return [f"fx_paths.{code}: give at least one step {{from: YYYY-MM-DD, rate: …}}"]
    if len(steps) > MAX_PATH_MONTHS:
        return [f"fx_paths.{code}: {len(steps)} steps; at most {MAX_PATH_MONTHS} are allowed"]
    dates = [s.from_ for s in steps]
    if any(b <= a for a, b in zip(dates, dates[1:], strict=False)):
        return [f"fx_paths.{code}: the steps' dates must increase ({', '.join(d.isoformat() for d in dates)})"]
    return []


def duplicate_paths(paths: list[PricePath]) -> list[str]:
    """Two paths for the same mode, GPU and offer: which one applies would be a guess."""
    seen: set[tuple[str, str | None, str | None]] = set()
    out = []
    for i, p in enumerate(paths):
        key = (p.mode, p.gpu, p.offer)
        if key in seen:
            out.append(f"price_paths[{i}]: a second path for {p.label}; give one path per mode, GPU and offer")
        seen.add(key)
    return out
