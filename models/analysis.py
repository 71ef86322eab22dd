"""``analysis:`` in workload.yaml — the ranges of the sensitivity study and the distributions of the
Monte Carlo study (``procure analyze``).

A *driver* is one input the analysis moves. Every driver but the slip is a factor on today's value
(1.0 = as quoted); the slip is a number of days added to every workload's deadline:

    price_buy / price_rent / price_cloud   factor on the price field of every offer of that mode
                                           (price_per_node, price_per_node_month, price_per_node_hour)
    electricity                            factor on electricity_price_per_kwh
    residual_value                         factor on every buy offer's residual_value_pct (capped at 1)
    discount_rate                          factor on the annual discount rate (moves only the NPV)
    mfu                                    factor on achieved throughput: every shape's hours ÷ factor
    tokens                                 factor on every workload's tokens_b: hours × factor
    staff                                  factor on the project's staff cost_per_fte_year
    network                                factor on every offer's network_per_node and fixed_cost (the fabric)
    storage                                factor on every offer's storage_per_tb_month and egress_per_tb
    deadline_slip_days                     days added to every deadline (negative: due sooner)
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

#: Driver name → (what it moves, unit of its values). The order is the tornado's and the JSON's.
DRIVERS: dict[str, tuple[str, str]] = {
    "price_buy": ("purchase price of every buy offer", "factor"),
    "price_rent": ("monthly price of every rent offer", "factor"),
    "price_cloud": ("hourly price of every cloud offer", "factor"),
    "electricity": ("electricity price", "factor"),
    "residual_value": ("resale value of bought servers", "factor"),
    "discount_rate": ("discount rate (NPV only)", "factor"),
    "mfu": ("achieved throughput (MFU): hours ÷ factor", "factor"),
    "tokens": ("tokens of every workload: hours × factor", "factor"),
    "staff": ("cost of an operations FTE", "factor"),
    "network": ("network fabric: network per node and fixed charges", "factor"),
    "storage": ("storage and egress prices", "factor"),
    "deadline_slip_days": ("days added to every deadline", "days"),
}
SLIP = "deadline_slip_days"
#: the most Monte Carlo scenarios one analysis draws (analysis.scenarios and --monte-carlo alike): each is an
#: object held in memory before the first solve
MAX_SCENARIOS = 100_000
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
    "deadline_slip_days",
]


def _check_value(driver: str, value: float, what: str) -> None:
    if driver == SLIP:
        return
    if driver in ("mfu", "tokens") and value <= 0:
        raise ValueError(f"{driver}: {what} {value:g} must be a factor above 0 (1 = as planned)")
    if value < 0:
        raise ValueError(f"{driver}: {what} {value:g} must be a factor of at least 0 (1 = today's value)")


class Range(BaseModel):
    """The two ends a sensitivity driver is moved to: factors on today's value, or days for the slip."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    low: float
    high: float

    @model_validator(mode="after")
    def _order(self) -> Range:
        if not self.low < self.high:
            raise ValueError(f"low ({self.low:g}) must be below high ({self.high:g})")
        return self


def _default_ranges() -> dict[str, Range]:
    return {d: (Range(low=-30, high=30) if d == SLIP else Range(low=0.8, high=1.2)) for d in DRIVERS}


class Triangular(BaseModel):
    """Triangular distribution: least, most likely and greatest value."""

    model_config = ConfigDict(extra="forbid", frozen=True)

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


class Normal(BaseModel):
    """Normal distribution truncated to [low, high] (draws outside are drawn again)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

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


class AnalysisSettings(BaseModel):
    """What ``procure analyze`` moves and how far. Every field has a default; a workload file needs no
    ``analysis:`` section unless it wants the Monte Carlo study or other ranges."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sensitivity: dict[DriverName, Range] = Field(
        default_factory=dict, description="low/high per driver; unnamed drivers use ±20% (slip ±30 days)"
    )
    uncertainty: dict[DriverName, Distribution | None] = Field(
        default_factory=dict,
        description="a distribution per uncertain driver; the others stay at today's value, except mfu, which is drawn within the calibrated band of hours unless declared (null: hold it at today's value)",
    )
    scenarios: int = Field(default=200, gt=0, le=MAX_SCENARIOS, description="Monte Carlo scenarios drawn")
    seed: int = Field(
        default=0, ge=0, description="seed of the Monte Carlo draws: the same seed draws the same scenarios"
    )

    @model_validator(mode="after")
    def _values(self) -> AnalysisSettings:
        for d, r in self.sensitivity.items():
            _check_value(d, r.low, "low")
            _check_value(d, r.high, "high")
        for d, dist in self.uncertainty.items():
            if dist is None:
                continue
            lo, _hi = dist.bounds
            _check_value(d, lo, "low")
        dr = self.sensitivity.get("discount_rate")
        if dr is not None and dr.high <= 0:
            raise ValueError("discount_rate: high must be above 0")
        return self

    def ranges(self) -> dict[str, Range]:
        """Every driver's range: the configured one, else the default (±20%; slip ±30 days)."""
        out = _default_ranges()
        out.update(self.sensitivity.items())  # keys are DriverName literals; the result is keyed by str
        return out
