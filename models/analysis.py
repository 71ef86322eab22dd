"""``analysis:`` in workload.yaml — the ranges of the sensitivity study and the distributions of the
Monte Carlo study (``procure analyze``).

A *driver* is one input the analysis moves. Every driver but the slip is a factor on today's value
(1.0 = as quoted); the slip is a number of days added to every workload's deadline:

    price_buy / price_rent / price_cloud   factor on the price field of every offer of that mode
                                           (price_per_node, price_per_node_month, price_per_node_hour)
    electricity                            factor on electricity_price_per_kwh
    residual_value                         factor on every buy offer's residual_value_pct (capped at 1) and on
                                           every owned entry's residual_value
    discount_rate                          factor on the annual discount rate (moves only the NPV)
    mfu                                    factor on achieved throughput: every shape's hours ÷ factor
    tokens                                 factor on every workload's tokens_b: hours × factor
    staff                                  factor on the project's staff cost_per_fte_year
    network                                factor on every offer's network_per_node and fixed_cost (the fabric)
    storage                                factor on every offer's storage_per_tb_month and egress_per_tb
    fx_rate                                factor on every rate of fx_rates: the value of each foreign currency
                                           in the project currency (above 0)
    tax_rate                               factor on tax.income_tax_rate (capped at 0.99; moves only the
                                           after-tax figures)
    depreciation_life                      factor on the book life (depreciation_years, the project's and every
                                           buy offer's; at most 50 years, at least a month) and on the tax life
                                           of a straight-line tax rule (tax.life_years, else the rule's default;
                                           never below the rule's minimum); above 0. It moves no cash flow: the
                                           P&L and, through the tax life, the after-tax figures
    deadline_slip_days                     days added to every deadline (negative: due sooner)
    price_path_slope                       percentage points a year added to the annual change of every mode's
                                           price path (rent, buy, cloud, energy; a mode without a path has a flat
                                           one, index 1): index(m) × (1 + slope/100)^(m/12) (models.paths)
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from procure.fileio.limits import MAX_DAYS

from .validation import InputModel

#: Driver name → (what it moves, unit of its values). The order is the tornado's and the JSON's.
#: A new driver is: an entry here and in ``DriverName``; what it moves, in analysis/scenario.py (``scaled_offer``,
#: ``scaled_project``); the MILPs it touches, in analysis/engine.py (``MODE_DRIVERS``, ``OBJECTIVE_DRIVERS`` or
#: ``EVERY_MODE``; ``DEARER`` only where moving it up can only raise coefficients; ``inert_drivers`` when inputs
#: can leave it nothing to move); its label and its name as a CSV column in reports/locale/zh_CN.po; its row
#: in docs/analysis.md. tests/test_analysis_drivers.py checks the lists agree.
DRIVERS: dict[str, tuple[str, str]] = {
    "price_buy": ("purchase price of every buy offer", "factor"),
    "price_rent": ("monthly price of every rent offer", "factor"),
    "price_cloud": ("hourly price of every cloud offer", "factor"),
    "electricity": ("electricity price", "factor"),
    "residual_value": ("resale value of bought and owned servers", "factor"),
    "discount_rate": ("discount rate (NPV only)", "factor"),
    "mfu": ("achieved throughput (MFU): hours ÷ factor", "factor"),
    "tokens": ("tokens of every workload: hours × factor", "factor"),
    "staff": ("cost of an operations FTE", "factor"),
    "network": ("network fabric: network per node and fixed charges", "factor"),
    "storage": ("storage and egress prices", "factor"),
    "fx_rate": ("value of every foreign currency in the project currency (fx_rates)", "factor"),
    "tax_rate": ("income tax rate (after-tax figures only)", "factor"),
    "depreciation_life": ("depreciation life: the book life, and the tax life of a straight-line rule", "factor"),
    "deadline_slip_days": ("days added to every deadline", "days"),
    "price_path_slope": ("slope of every price path, percentage points a year (flat paths included)", "%/year"),
}
SLIP = "deadline_slip_days"
#: factor drivers whose value must be above 0 (the others may be 0): no throughput, no tokens, a currency worth
#: nothing or a depreciation life of no time is no scenario of this project
POSITIVE: frozenset[str] = frozenset({"mfu", "tokens", "fx_rate", "depreciation_life"})
#: drivers that move no cash flow before tax: the TCO and the NPV stay as they are, the after-tax figures (and the
#: depreciation life, the P&L) move (analysis/sensitivity.py ``reach``)
NO_PRE_TAX_CASH: frozenset[str] = frozenset({"tax_rate", "depreciation_life"})
#: the highest income tax rate a scenario reaches (``tax_rate``; the tax section's own bound is below 1)
MAX_TAX_RATE = 0.99

PATH_SLOPE = "price_path_slope"
#: the price paths' slope lies within these (%/year): −90 % a year leaves a tenth of a price after a year; +100 %
#: doubles it. Beyond them a value is a typo, not a forecast
SLOPE_RANGE = (-90.0, 100.0)


def neutral(driver: str) -> float:
    """A driver's value that moves nothing: 0 for the additive ones (the slip, the paths' slope), else a factor 1."""
    return 0.0 if driver in (SLIP, PATH_SLOPE) else 1.0


#: the most Monte Carlo scenarios one analysis draws (analysis.scenarios and --monte-carlo alike): each is an
#: object held in memory before the first solve
MAX_SCENARIOS = 100_000
#: the largest factor a driver may take (and the largest standard deviation of a factor): a hundred times today's
#: price, throughput or tokens is a different programme, not an uncertainty about this one, and a larger value is
#: most often a percentage typed for a factor (120 for 1.2); it keeps every moved cost finite (prices are at most
#: 10^12, so a moved price stays below 10^14)
MAX_FACTOR = 100.0
#: the most days the slip may move a deadline either way (and the largest standard deviation of the slip): the
#: longest deadline a workload may have (fileio.limits.MAX_DAYS, a hundred years)
MAX_SLIP_DAYS = MAX_DAYS
#: the largest seed (numpy's generators take any whole number ≥ 0; a 64-bit one is more than enough)
MAX_SEED = 2**63 - 1
DriverName = Literal[
    "price_buy",
    "price_rent",
    "price_cloud",
    "electricity",
    "residual_value",
    "discount_rate",
    "mfu",
    "tokens",
    "staff",
    "network",
    "storage",
    "fx_rate",
    "tax_rate",
    "depreciation_life",
    "deadline_slip_days",
    "price_path_slope",
]


def check_value(driver: str, value: float, what: str) -> None:
    """A driver's value (``what``: low, mode, high, mean) within its allowed range: a factor from 0 (above 0 for
    the ``POSITIVE`` drivers) to ``MAX_FACTOR``; the slip within ±``MAX_SLIP_DAYS`` days."""
    if driver == SLIP:
        if not -MAX_SLIP_DAYS <= value <= MAX_SLIP_DAYS:
            raise ValueError(
                f"{driver}.{what}: {value:g} days is outside the allowed range -{MAX_SLIP_DAYS:,} to {MAX_SLIP_DAYS:,} "
                "days (a deadline moves at most a hundred years either way)"
            )
        return
    if driver == PATH_SLOPE:
        lo, hi = SLOPE_RANGE
        if not lo <= value <= hi:
            raise ValueError(
                f"{driver}.{what}: {value:g} %/year is outside the allowed range {lo:g} to +{hi:g} %/year "
                "(percentage points a year added to every price path)"
            )
        return
    if driver in POSITIVE and value <= 0:
        raise ValueError(f"{driver}.{what}: {value:g} must be a factor above 0 (1 = as planned)")
    if value < 0:
        raise ValueError(f"{driver}.{what}: {value:g} must be a factor of at least 0 (1 = today's value)")
    if value > MAX_FACTOR:
        raise ValueError(
            f"{driver}.{what}: {value:g} is above {MAX_FACTOR:g}; a factor lies from 0 to {MAX_FACTOR:g} "
            "(1 = today's value, 1.2 = 20% more: write a percentage as its factor)"
        )


def _check_spread(driver: str, sd: float) -> None:
    """A normal distribution's standard deviation at most the driver's range (``MAX_FACTOR``, ``MAX_SLIP_DAYS``)."""
    top = MAX_SLIP_DAYS if driver == SLIP else SLOPE_RANGE[1] if driver == PATH_SLOPE else MAX_FACTOR
    if sd > top:
        unit = " days" if driver == SLIP else ""
        raise ValueError(f"{driver}.sd: {sd:g}{unit} is above {top:,g}{unit}, the allowed range of the driver's values")


class Range(InputModel):
    """The two ends a sensitivity driver is moved to: factors on today's value, or days for the slip."""

    low: float
    high: float

    @model_validator(mode="after")
    def _order(self) -> Range:
        if not self.low < self.high:
            raise ValueError(f"low ({self.low:g}) must be below high ({self.high:g})")
        return self


def _default_ranges() -> dict[str, Range]:
    special = {SLIP: Range(low=-30, high=30), PATH_SLOPE: Range(low=-10, high=10)}
    return {d: special.get(d, Range(low=0.8, high=1.2)) for d in DRIVERS}


class Triangular(InputModel):
    """Triangular distribution: least, most likely and greatest value."""

    dist: Literal["triangular"]
    low: float
    mode: float
    high: float

    @model_validator(mode="after")
    def _order(self) -> Triangular:
        if not (self.low <= self.mode <= self.high and self.low < self.high):
            raise ValueError(
                f"need low <= mode <= high and low < high (got {self.low:g}, {self.mode:g}, {self.high:g})"
            )
        return self

    @property
    def bounds(self) -> tuple[float, float]:
        return self.low, self.high


class Normal(InputModel):
    """Normal distribution truncated to [low, high] (draws outside are drawn again)."""

    dist: Literal["normal"]
    mean: float
    sd: float = Field(gt=0, description="standard deviation, in the driver's unit")
    low: float
    high: float

    @model_validator(mode="after")
    def _order(self) -> Normal:
        if not self.low < self.high:
            raise ValueError(f"low ({self.low:g}) must be below high ({self.high:g})")
        if not self.low <= self.mean <= self.high:
            raise ValueError(f"mean ({self.mean:g}) must lie within [low, high] = [{self.low:g}, {self.high:g}]")
        return self

    @property
    def bounds(self) -> tuple[float, float]:
        return self.low, self.high


Distribution = Annotated[Triangular | Normal, Field(discriminator="dist")]


class AnalysisSettings(InputModel):
    """What ``procure analyze`` moves and how far. Every field has a default; a workload file needs no
    ``analysis:`` section unless it wants the Monte Carlo study or other ranges."""

    sensitivity: dict[DriverName, Range] = Field(
        default_factory=dict, description="low/high per driver; unnamed drivers use ±20% (slip ±30 days)"
    )
    uncertainty: dict[DriverName, Distribution | None] = Field(
        default_factory=dict,
        description="a distribution per uncertain driver; the others stay at today's value, except mfu, which is drawn within the calibrated band of hours unless declared (null: hold it at today's value)",
    )
    scenarios: int = Field(default=200, gt=0, le=MAX_SCENARIOS, description="Monte Carlo scenarios drawn")
    seed: int = Field(
        default=0,
        ge=0,
        le=MAX_SEED,
        description="seed of the Monte Carlo draws (a whole number, never true/false): the same seed draws the same scenarios",
    )

    @field_validator("sensitivity")
    @classmethod
    def _ranges_within_bounds(cls, sensitivity: dict[str, Range]) -> dict[str, Range]:
        for d, r in sensitivity.items():
            check_value(d, r.low, "low")
            check_value(d, r.high, "high")
        return sensitivity

    @field_validator("uncertainty")
    @classmethod
    def _distributions_within_bounds(cls, uncertainty: dict[str, Triangular | Normal | None]) -> dict:
        for d, dist in uncertainty.items():
            if dist is None:
                continue
            lo, hi = dist.bounds  # mode and mean lie between them (the distribution's own check)
            check_value(d, lo, "low")
            check_value(d, hi, "high")
            if isinstance(dist, Normal):
                _check_spread(d, dist.sd)
        return uncertainty

    @model_validator(mode="after")
    def _values(self) -> AnalysisSettings:
        dr = self.sensitivity.get("discount_rate")
        if dr is not None and dr.high <= 0:
            raise ValueError("discount_rate: high must be above 0")
        return self

    def declared(self) -> dict[str, tuple[float, float, str]]:
        """The drivers declared in ``sensitivity`` or ``uncertainty`` (a distribution, not null): their lowest and
        highest value, and where the highest is written (``sensitivity.tax_rate.high``)."""
        out: dict[str, tuple[float, float, str]] = {}
        for d, r in self.sensitivity.items():
            out[d] = (r.low, r.high, f"sensitivity.{d}.high")
        for d, dist in self.uncertainty.items():
            if dist is None:
                continue
            lo, hi = dist.bounds
            if d not in out or hi > out[d][1]:
                out[d] = (min(lo, out[d][0]) if d in out else lo, hi, f"uncertainty.{d}.high")
        return out

    def check_project(self, tax_rate: float | None, fx_rates: dict[str, float], currency: str) -> None:
        """The declared drivers that the project gives nothing to move, or that would move its tax rate to
        ``MAX_TAX_RATE`` or above (``tax_rate``: the project's income_tax_rate, None without a tax section).
        The ranges left to their default move nothing there, and the report says so (analysis/sensitivity.py)."""
        declared = self.declared()
        if "tax_rate" in declared:
            where = declared["tax_rate"][2].rsplit(".", 1)[0]
            if tax_rate is None:
                raise ValueError(
                    f"{where}: the project has no tax section, so there is no income tax rate to move; add "
                    "tax: {income_tax_rate: …, depreciation: …} or remove the driver"
                )
            high, at = declared["tax_rate"][1], declared["tax_rate"][2]
            if tax_rate * high > MAX_TAX_RATE:  # so tax_rate > 0
                raise ValueError(
                    f"{at}: ×{high:g} of the income tax rate {tax_rate:.4g} is {tax_rate * high:.4g}, above "
                    f"{MAX_TAX_RATE:g}; with this tax rate the factor goes up to ×{MAX_TAX_RATE / tax_rate:.4g}"
                )
        if "fx_rate" in declared and not fx_rates:
            where = declared["fx_rate"][2].rsplit(".", 1)[0]
            raise ValueError(
                f"{where}: the project has no fx_rates (every amount is in {currency}), so there is no exchange rate "
                "to move; add fx_rates for the currencies the offers are quoted in, or remove the driver"
            )

    def ranges(self) -> dict[str, Range]:
        """Every driver's range: the configured one, else the default (±20%; slip ±30 days)."""
        out = _default_ranges()
        out.update(self.sensitivity.items())  # keys are DriverName literals; the result is keyed by str
        return out
