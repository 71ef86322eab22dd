"""Income tax as data: the project's ``tax`` section and the tax depreciation rules it names.

The rules live in ``models/data/tax_rules.yaml`` with their sources (mainland China's straight line and one-off
deduction, US MACRS 5-year and bonus depreciation, a plain straight line); what they do to the money is priced in
``solver/costs.py`` ("Income tax"). A rule is picked by name:

    tax:
      income_tax_rate: 25%
      depreciation: cn-one-off      # or cn-straight-line, us-macrs-5, us-bonus-100, straight-line
      life_years: 3                 # for the straight-line rules (at least the rule's minimum)
"""

from __future__ import annotations

import datetime as dt
import functools
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from procure.fileio.yamlio import load_yaml

from .money import Pct
from .validation import InputModel

RULES_FILE = Path(__file__).parent / "data" / "tax_rules.yaml"


class TaxRule(BaseModel):
    """One tax depreciation rule (the data file's header says what each kind does)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    kind: Literal["straight_line", "one_off", "table"]
    title: str
    source: str
    title_zh: str | None = None  # the title in Simplified Chinese, for the zh-CN reports
    start: Literal["same_month", "next_month"] = "same_month"
    min_life_years: float = 0.0
    default_life_years: float | None = None
    cap_per_unit: float | None = None
    cap_currency: str | None = None
    placed_from: dt.date | None = None
    placed_until: dt.date | None = None
    otherwise: str | None = None
    percent: tuple[float, ...] = ()
    convention: Literal["half_year"] | None = None

    @model_validator(mode="after")
    def _shape(self) -> TaxRule:
        if self.kind == "table" and abs(sum(self.percent) - 100.0) > 1e-9:
            raise ValueError(f"tax rule {self.name}: its percent add up to {sum(self.percent)}, not 100")
        if self.kind == "one_off" and (self.otherwise is None or self.placed_from is None or self.placed_until is None):
            raise ValueError(f"tax rule {self.name}: a one_off rule needs placed_from, placed_until and otherwise")
        return self


@functools.cache
def tax_rules() -> dict[str, TaxRule]:
    """The bundled rules by name (read once)."""
    raw, _lines = load_yaml(RULES_FILE, "tax rules")
    rules = {name: TaxRule(name=name, **body) for name, body in raw.items()}
    for r in rules.values():
        if r.otherwise is not None and (r.otherwise not in rules or rules[r.otherwise].kind == "one_off"):
            raise ValueError(
                f"tax rule {r.name}: otherwise names {r.otherwise!r}, which is not a straight-line or table rule"
            )
    return rules


class TaxSettings(InputModel):
    """The project's income tax (``solver.costs``, "Income tax"): the rate, the tax depreciation rule of bought
    servers, its life for the straight-line rules, and whether the project's tax losses are used at once."""

    income_tax_rate: Pct = Field(ge=0, lt=1, description="income tax rate: 25% in mainland China, 21% US federal")
    depreciation: str = Field(
        default="straight-line",
        min_length=1,
        max_length=40,
        description="tax depreciation of bought servers: " + ", ".join(sorted(tax_rules())),
    )
    life_years: float | None = Field(
        default=None, gt=0, le=50, description="tax life of the straight-line rules, years (default: the rule's)"
    )
    losses_usable: bool = Field(
        default=True,
        description="true: the company has other taxable income, so every deduction saves tax in the month it is "
        "booked; false: the project's deductions save no tax within the horizon (carried forward beyond it)",
    )
    source: str | None = Field(default=None, min_length=1, max_length=2000, description="where the rate comes from")

    @model_validator(mode="after")
    def _rule(self) -> TaxSettings:
        rules = tax_rules()
        rule = rules.get(self.depreciation)
        if rule is None:
            raise ValueError(
                f"tax.depreciation {self.depreciation!r} is not a known rule; allowed: {', '.join(sorted(rules))}"
            )
        straight = rule if rule.kind == "straight_line" else rules.get(rule.otherwise or "")
        if self.life_years is not None:
            if straight is None or straight.kind != "straight_line":
                raise ValueError(
                    f"tax.life_years does not go with {rule.name}: its shares per year are fixed ({rule.title})"
                )
            if self.life_years < straight.min_life_years:
                raise ValueError(
                    f"tax.life_years {self.life_years:g} is below the minimum of {straight.name}, "
                    f"{straight.min_life_years:g} years ({straight.source.strip()})"
                )
        return self

    @property
    def rule(self) -> TaxRule:
        return tax_rules()[self.depreciation]

    def straight_life_years(self, rule: TaxRule) -> float:
        """The life a straight-line ``rule`` uses: the project's life_years, else the rule's default."""
        return self.life_years if self.life_years is not None else (rule.default_life_years or 5.0)
