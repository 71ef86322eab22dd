"""A scenario: today's inputs with some drivers moved, and the base (today's) inputs it is applied to.

Sizing is never repeated. Prices, the electricity price, resale values and the discount rate do not
change what fits or how long it runs. Tokens scale FLOPs and so hours linearly (hours = FLOPs /
throughput, FLOPs = per-token FLOPs × tokens; the optimizer step and its communication are per token
too), and the ``mfu`` driver is defined as a factor on achieved throughput, so every shape's hours are

    hours' = hours × tokens_factor ÷ mfu_factor

derived from the base sizing rather than re-sized. (A real MFU change would leave communication time
as it is and move the scaling efficiency slightly; the driver does not model that — docs/analysis.md.)

The verifier keeps its independent view: a scenario's resizer re-sizes the shape on the base inputs
(memoised: fit does not depend on the drivers) and applies the same factor.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from procure.fileio.limits import MAX_PRICE
from procure.models.analysis import DRIVERS, MAX_FACTOR, MAX_TAX_RATE, PATH_SLOPE, SLIP, check_value, neutral
from procure.models.offer import Offer
from procure.models.project import Project
from procure.models.tax import tax_rules
from procure.solver import holdings
from procure.solver.costs import Objective

#: The price field each mode's offers are priced by (the field break-even searches on).
PRICE_FIELD: dict[str, str] = {"buy": "price_per_node", "rent": "price_per_node_month", "cloud": "price_per_node_hour"}
#: The offer fields the drivers of the costs beyond the servers scale (the ``staff`` driver scales the project's staff).
EXTRA_FIELDS: dict[str, tuple[str, ...]] = {
    "network": ("network_per_node", "fixed_cost"),
    "storage": ("storage_per_tb_month", "egress_per_tb"),
}


class ScenarioOutOfRange(ValueError):
    """A scenario moves a driver outside its allowed range (``models.analysis``: a factor from 0 to
    ``MAX_FACTOR``, the slip within ±``MAX_SLIP_DAYS`` days; an offer's price from 0 to ``MAX_PRICE`` ×
    ``MAX_FACTOR``), or one of its figures is not a finite number. Within the ranges every figure stays finite;
    a scenario outside them would only fail as ±inf or nan, so the analysis stops with this message instead of
    counting it as a failed scenario."""


def finite(s: Scenario, what: str, value: float) -> float:
    """``value`` (scenario ``s``'s figure ``what``) when it is a finite number, else ``ScenarioOutOfRange``."""
    if math.isfinite(value):
        return value
    raise ScenarioOutOfRange(f"scenario {s.label} ({s.said()}): {what} is {value!r}, not a finite number")


def check_scenario(s: Scenario) -> None:
    """``ScenarioOutOfRange`` unless every driver and offer price of ``s`` lies within its allowed range."""
    for d, v in s.factors:
        try:
            if not math.isfinite(v):
                raise ValueError(f"{d} is {v!r}, not a finite number")
            check_value(d, v, "value")
        except ValueError as exc:
            raise ScenarioOutOfRange(f"scenario {s.label}: {exc}") from None
    top = MAX_PRICE * MAX_FACTOR
    for oid, p in s.offer_prices:
        if not (math.isfinite(p) and 0 <= p <= top):
            raise ScenarioOutOfRange(
                f"scenario {s.label}: the price of offer {oid} at {p!r} is outside 0 to {top:g} "
                f"({MAX_FACTOR:g} × the largest price a quote may have)"
            )


@dataclass(frozen=True)
class Scenario:
    """Drivers moved from today's value (factors; 1.0 = today), the deadline slip in days, and absolute
    prices of single offers (the break-even search). ``label`` names it in tables."""

    label: str = "base"
    factors: tuple[tuple[str, float], ...] = ()  # (driver, factor or days) — a tuple so it hashes and pickles
    offer_prices: tuple[tuple[str, float], ...] = ()  # (offer id, price in its mode's price field)

    @classmethod
    def of(
        cls, label: str, values: dict[str, float] | None = None, offer_prices: dict[str, float] | None = None
    ) -> Scenario:
        unknown = set(values or {}) - set(DRIVERS)
        if unknown:
            raise ValueError(f"unknown driver(s) {sorted(unknown)}; known: {', '.join(DRIVERS)}")
        return cls(label, tuple(sorted((values or {}).items())), tuple(sorted((offer_prices or {}).items())))

    def value(self, driver: str) -> float:
        """The driver's value in this scenario (1.0, or 0 days for the slip, when not moved)."""
        return dict(self.factors).get(driver, neutral(driver))

    @property
    def hours_factor(self) -> float:
        return self.value("tokens") / self.value("mfu")

    def values(self) -> dict[str, float]:
        return {d: self.value(d) for d in DRIVERS}

    def said(self) -> str:
        """What the scenario moves, in a message: "price_cloud 1.2, tokens 0.9; offer x at 3.5"."""
        moved = ", ".join(f"{d} {v:g}" for d, v in self.factors) or "nothing moved"
        prices = ", ".join(f"offer {o} at {v:g}" for o, v in self.offer_prices)
        return moved + (f"; {prices}" if prices else "")


def reference_price(offer: Offer) -> float:
    """The offer's price in its mode's price field; for term or volume tiers, the first tier's price."""
    flat = getattr(offer, PRICE_FIELD[offer.mode])
    if flat is not None:
        return float(flat)
    tiers = offer.rent_tiers if offer.mode == "rent" else offer.buy_tiers
    return float(tiers[0][1])


def _priced(offer: Offer, price: float) -> dict[str, Any]:
    """The update that sets the offer's reference price to ``price``; tiers keep their ratios to the first."""
    field_ = PRICE_FIELD[offer.mode]
    if getattr(offer, field_) is not None:
        return {field_: price}
    f = price / reference_price(offer)
    if offer.term_prices:
        return {
            "term_prices": [
                t.model_copy(update={"price_per_node_month": t.price_per_node_month * f}) for t in offer.term_prices
            ]
        }
    return {
        "volume_prices": [
            t.model_copy(update={"price_per_node": t.price_per_node * f}) for t in offer.volume_prices or []
        ]
    }


#: the book life a scenario may give (``depreciation_life``): a month at least (a life of no time has no
#: monthly charge), 50 years at most (the longest ``depreciation_years`` a project or an offer may have)
MIN_LIFE_YEARS, MAX_LIFE_YEARS = 1 / 12, 50.0


def life(years: float, k: float, least: float = MIN_LIFE_YEARS) -> float:
    """A depreciation life of ``years`` × ``k`` (the ``depreciation_life`` driver), within [``least``,
    ``MAX_LIFE_YEARS``]."""
    return min(MAX_LIFE_YEARS, max(least, years * k))


def scaled_offer(offer: Offer, s: Scenario) -> Offer:
    """The offer under the scenario: its mode's price level, an absolute price, the residual factor, its own
    depreciation life. A tiered quote (term or volume tiers) moves as a whole: every tier by the same factor."""
    update: dict[str, Any] = {}
    price = dict(s.offer_prices).get(offer.id, reference_price(offer))
    k = s.value(f"price_{offer.mode}")
    if k != 1.0 or offer.id in dict(s.offer_prices):
        update.update(_priced(offer, price * k))
    if offer.mode == "buy" and s.value("residual_value") != 1.0:
        update["residual_value_pct"] = min(1.0, offer.residual * s.value("residual_value"))
    if offer.depreciation_years is not None and s.value("depreciation_life") != 1.0:
        update["depreciation_years"] = life(offer.depreciation_years, s.value("depreciation_life"))
    for driver, fields in EXTRA_FIELDS.items():
        k = s.value(driver)
        if k != 1.0:
            update.update({f: getattr(offer, f) * k for f in fields if getattr(offer, f) is not None})
    # model_copy skips validation on purpose: a break-even price may be 0, which a quote may not
    return offer.model_copy(update=update) if update else offer


def straight_tax_rule(project: Project):
    """The straight-line tax rule whose life the ``depreciation_life`` driver moves: the project's rule, or the
    straight line its one-off rule falls back to; None without a tax section or for a rule of fixed shares."""
    if project.tax is None:
        return None
    rule = project.tax.rule
    straight = rule if rule.kind == "straight_line" else tax_rules().get(rule.otherwise or "")
    return straight if straight is not None and straight.kind == "straight_line" else None


def scaled_tax(project: Project, s: Scenario) -> dict[str, Any]:
    """The update of the project's tax section under the scenario: the income tax rate × ``tax_rate`` (at most
    ``MAX_TAX_RATE``), the tax life of a straight-line rule × ``depreciation_life`` (the rule's, or the straight
    line a one-off rule falls back to; never below the rule's minimum life, which is the law's). A rule whose
    shares are fixed (MACRS) keeps them. {} without a tax section or when neither driver moves."""
    tax = project.tax
    if tax is None:
        return {}
    update: dict[str, Any] = {}
    if s.value("tax_rate") != 1.0:
        update["income_tax_rate"] = min(MAX_TAX_RATE, tax.income_tax_rate * s.value("tax_rate"))
    k = s.value("depreciation_life")
    straight = straight_tax_rule(project)
    if k != 1.0 and straight is not None:
        update["life_years"] = life(tax.straight_life_years(straight), k, max(MIN_LIFE_YEARS, straight.min_life_years))
    return {"tax": tax.model_copy(update=update)} if update else {}


def scaled_project(project: Project, s: Scenario) -> Project:
    """The project under the scenario: electricity, discount rate, exchange rates, income tax, depreciation life,
    the resale value of owned servers, tokens and deadlines; a scenario that moves the hours checks deadlines at
    them (deadline_confidence 0.5)."""
    update: dict[str, Any] = {}
    if s.value("fx_rate") != 1.0 and project.fx_rates:
        # every foreign currency's value in the project currency: a quote, a signed rate, a tax cap in it
        update["fx_rates"] = {c: r * s.value("fx_rate") for c, r in project.fx_rates.items()}
        if project.fx_paths:  # a dated path moves with the rates: every step by the same factor
            update["fx_paths"] = {
                c: [st.model_copy(update={"rate": st.rate * s.value("fx_rate")}) for st in steps]
                for c, steps in project.fx_paths.items()
            }
    update.update(scaled_tax(project, s))
    if s.value("depreciation_life") != 1.0:
        update["depreciation_years"] = life(project.depreciation_years, s.value("depreciation_life"))
    if s.value("residual_value") != 1.0 and any(o.residual_value for o in project.owned):
        update["owned"] = [
            o.model_copy(update={"residual_value": o.residual_value * s.value("residual_value")})
            if o.residual_value
            else o
            for o in project.owned
        ]
    if s.value("electricity") != 1.0:
        update["electricity_price_per_kwh"] = project.electricity_price_per_kwh * s.value("electricity")
    if s.value("staff") != 1.0 and project.staff is not None:
        update["staff"] = project.staff.model_copy(
            update={"cost_per_fte_year": project.staff.cost_per_fte_year * s.value("staff")}
        )
    if s.value(PATH_SLOPE) != 0.0:
        update["price_paths"] = sloped_paths(project, s.value(PATH_SLOPE))
    if s.value("discount_rate") != 1.0:
        update["discount_rate"] = min(0.99, project.discount_rate * s.value("discount_rate"))
    if s.hours_factor != 1.0:
        # the scenario states the hours: deadlines are checked at them, not at a quantile of the band
        # around them (deadline_confidence 0.5, the band's median)
        update["deadline_confidence"] = 0.5
    tokens, slip = s.value("tokens"), int(round(s.value(SLIP)))
    if tokens != 1.0 or slip:
        update["workloads"] = [scaled_workload(project, w, tokens, slip) for w in project.workloads]
    return project.model_copy(update=update) if update else project


def sloped_paths(project: Project, slope: float) -> list:
    """The project's price paths with ``slope`` percentage points a year added (models.analysis, price_path_slope):
    an annual path's annual_pct + slope; an explicit path's index(m) × (1 + slope/100)^(m/12) for every month of
    the horizon; a mode without a path gets a flat one moved by the slope (annual_pct = slope)."""
    from procure.models.paths import PATH_MODES, PricePath

    out = []
    for path in project.price_paths:
        if path.annual_pct is not None:
            out.append(path.model_copy(update={"annual_pct": max(-99.0, path.annual_pct + slope)}))
        else:
            g = 1.0 + slope / 100.0
            months = range(max(project.horizon_months, len(path.monthly or ())))
            out.append(path.model_copy(update={"monthly": [path.index(m) * g ** (m / 12.0) for m in months]}))
    general = {p.mode for p in project.price_paths if p.gpu is None and p.offer is None}
    out += [PricePath(mode=m, annual_pct=slope) for m in PATH_MODES if m not in general]
    return out


def scaled_workload(project: Project, w, tokens: float, slip: int):
    """tokens × factor; the deadline moved by ``slip`` days but kept after the earliest start and
    within the horizon (a deadline cannot move outside the window the plan is costed over)."""
    update: dict[str, Any] = {}
    if tokens != 1.0:
        update["tokens_b"] = w.tokens_b * tokens
    if slip:
        update["deadline_days"] = min(project.horizon_days, max(w.earliest_start_days + 1, w.deadline_days + slip))
    return w.model_copy(update=update) if update else w


def scaled_sizings(sizings: list, project: Project, hours_factor: float) -> list:
    """The base sizings with the scenario's workloads and hours (hours × factor); nothing re-sized."""
    by_name = {w.name: w for w in project.workloads}
    out = []
    for sz in sizings:
        cands = sz.candidates
        if hours_factor != 1.0:
            cands = [scaled_candidate(c, hours_factor) for c in cands]
        out.append(dataclasses.replace(sz, workload=by_name[sz.workload.name], candidates=cands))
    return out


def scaled_candidate(c, factor: float):
    """A sized shape with hours (and GPU-hours, when stored) × factor."""
    if c.hours is None or factor == 1.0:
        return c
    update = {"hours": c.hours * factor}
    if "gpu_hours" in {f.name for f in dataclasses.fields(c)} and c.gpu_hours is not None:
        update["gpu_hours"] = c.gpu_hours * factor
    return dataclasses.replace(c, **update)


@dataclass
class Baseline:
    """Today's inputs: the project, its offers and their sizing, the base resizer (``solver.planner.Resizer``
    for real projects) and the solver settings every re-solve uses."""

    project: Project
    offers: list[Offer]
    sizings: list
    resize: Callable
    solver: str = "cbc"
    time_limit: float | None = None
    gap: float = 1e-6
    objective: Objective = Objective.TCO
    #: wall-clock time (``time.time()``, comparable across worker processes) by which every solve must end:
    #: ``solve --analyze`` bounds the whole analysis by its --time-limit; None: no bound beyond ``time_limit``
    deadline: float | None = None
    #: re-solves try the LP first (``fast.lp_first``); False: every re-solve on the reference path
    fast: bool = True
    _resized: dict = field(default_factory=dict, repr=False)

    def solve_time_limit(self) -> float | None:
        """Seconds for the next solve: ``time_limit``, cut to what is left before ``deadline``."""
        if self.deadline is None:
            return self.time_limit
        left = max(1e-3, self.deadline - time.time())
        return left if self.time_limit is None else min(self.time_limit, left)

    def base_resize(self, workload, offer: Offer, nodes: int):
        """The base shape, sized once per (workload, offer, nodes): the drivers never change fit."""
        key = (workload.name, offer.id, nodes)
        if key not in self._resized:
            w0 = next(w for w in self.project.workloads if w.name == workload.name)
            o0 = next(o for o in self.offers if o.id == offer.id)
            self._resized[key] = self.resize(w0, o0, nodes)
        return self._resized[key]

    def apply(self, s: Scenario) -> Applied:
        check_scenario(s)  # within the ranges every figure it makes stays finite
        # what is already held is as signed: commitments keep their rates, owned servers their terms
        project = holdings.as_signed(scaled_project(self.project, s), self.offers)
        offers = {o.id: o if holdings.owned_entry(project, o.id) else scaled_offer(o, s) for o in self.offers}
        h = s.hours_factor
        sizings = scaled_sizings(self.sizings, project, h)

        def resize(workload, offer, nodes):
            c = self.base_resize(workload, offer, nodes)
            return None if c is None else scaled_candidate(c, h)

        return Applied(s, project, offers, sizings, resize)

    def metric(self, plan) -> float:
        """What the analysis compares: the objective's figure of a plan (TCO, or NPV with ``npv``)."""
        return Objective(self.objective).of(plan)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_resized"] = {}
        return state


@dataclass
class Applied:
    scenario: Scenario
    project: Project
    offers: dict[str, Offer]
    sizings: list
    resize: Callable
