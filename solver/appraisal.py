"""The figures of an approval meeting, read from verified plans: after-tax cash flows per strategy, and buying
against the best strategy that does not buy (IRR, payback, net advantage to leasing, break-even utilisation).

Every amount comes from a plan's ledger (its pre-tax entries and its income tax, ``solver.costs`` "Income tax");
the rules that turn them into figures are in ``solver.costs`` ("appraisal"). Shown only when the project has a
``tax`` section (``income_tax_rate: 0%`` gives the same figures before tax).

    after-tax cost(m)   the plan's cash out in month m plus its income tax (negative: saved)
    npv                 Σ after-tax cost(m) / (1 + r_m)^(m+1), r = costs.after_tax_rate (hurdle, wacc, discount rate)
    incremental(m)      after-tax cost(m) of the alternative − of buying: the cash buying saves (negative while it
                        costs more, e.g. the month the servers are paid)
    IRR                 the monthly rate at which Σ incremental(m)/(1+IRR)^m = 0 (Excel IRR; pyxirr), annualised
                        (1 + IRR)^12 − 1; none when the incremental flows never change sign
    payback             months until the cumulative incremental flow stays ≥ 0 (costs.payback_months); discounted:
                        the same on the flows discounted at r
    NAL                 net advantage to leasing = PV(buy) − PV(alternative): the debt-like after-tax flows (the price
                        and its loan, rent and setup, every tax shield: costs.DEBT_LIKE) discounted at the after-tax
                        cost of debt r_d·(1 − t) (cost_of_debt; without it r, and said so), the rest (the salvage —
                        resale and the tax on its gain — and the costs of use) at r (REFERENCE.md "Lease vs buy");
                        > 0: leasing is cheaper
    break-even          scale the project's work by k with the servers bought fixed: buying costs F + k·V (V: the
    utilisation         after-tax PV of the jobs' own costs on them, busy energy, storage, egress; F: the rest) and
                        the alternative k·A (priced per unit of work at today's plan). Buying wins for k > F/(A − V),
                        i.e. from a utilisation of u·F/(A − V), u = the GPU-hours the jobs use over the GPU-hours the
                        servers bought are held
"""

from __future__ import annotations

from dataclasses import dataclass

from procure.models.project import Project
from procure.models.units import HOURS_PER_DAY

from . import costs
from .plan import Plan
from .result import Result


@dataclass(frozen=True)
class AfterTax:
    """One plan after income tax."""

    npv: float
    total: float  # undiscounted
    tax_saved: float  # −Σ tax: the income tax the plan's deductions save within the horizon (net of tax on sales)
    depreciation_shield: float  # −Σ the depreciation part: t × tax depreciation within the horizon
    by_month: tuple[float, ...]  # after-tax cash out per month
    salvage: tuple[float, ...]  # the resale credited and the tax on the sale, per month (part of by_month)
    debt_like: tuple[float, ...]  # the flows of costs.DEBT_LIKE and the tax shields, per month (part of by_month)


@dataclass(frozen=True)
class BuyCase:
    """Buying against the best strategy that does not buy."""

    buy: str
    against: str
    incremental: tuple[float, ...]
    irr_monthly: float | None
    irr: float | None
    payback_months: float | None
    discounted_payback_months: float | None
    npv_saving: float  # PV of the incremental flows at the after-tax rate (> 0: buying is cheaper)
    nal: float  # net advantage to leasing (> 0: the alternative is cheaper)
    nal_rate: float  # the annual rate the NAL discounts lease payments and tax shields at
    nal_rate_is_debt: bool  # True: r_d·(1 − t) from cost_of_debt; False: no cost_of_debt, the after-tax NPV's rate
    utilisation: float | None  # GPU-hours used / GPU-hours held of the servers bought
    break_even_utilisation: float | None
    sign_changes: int = 0  # of the incremental flows: more than one, several IRRs may exist


@dataclass(frozen=True)
class Rates:
    """The rates the after-tax figures use (solver.costs): the income tax rate, the after-tax NPV's annual rate and
    its monthly one, and the incremental borrowing rate of the leases."""

    income_tax: float
    after_tax: float
    after_tax_monthly: float
    borrowing: float


def rates(project: Project) -> Rates:
    r = costs.after_tax_rate(project)
    return Rates(costs.income_tax_rate(project), r, costs.monthly_rate(r), costs.incremental_borrowing_rate(project))


def after_tax(plan: Plan) -> AfterTax | None:
    book = plan.ledger
    if not book.taxed:
        return None
    sale = book.tax_by_month("sale")
    flows = book.flows()
    resale, debt = [0.0] * book.n_months, [0.0] * book.n_months
    for m, v in flows.get("residual_value", {}).items():
        resale[m] += v
    for c in costs.DEBT_LIKE:
        for m, v in flows.get(c, {}).items():
            debt[m] += v
    for part in costs.DEBT_LIKE_TAX:
        for m, v in enumerate(book.tax_by_month(part)):
            debt[m] += v
    return AfterTax(
        book.after_tax_present_value(),
        book.after_tax_total(),
        -book.tax_total(),
        -book.tax_total("depreciation"),
        tuple(book.after_tax_by_month()),
        tuple(a + b for a, b in zip(resale, sale, strict=True)),
        tuple(debt),
    )


def plans(result: Result) -> dict[str, Plan]:
    """Every strategy's verified plan by name (the hybrid's as "hybrid")."""
    plans = {str(k): s.plan for k, s in result.strategies.items() if s.plan is not None}
    if result.hybrid.plan is not None:
        plans.setdefault("hybrid", result.hybrid.plan)
    return plans


def buy_case(result: Result) -> BuyCase | None:
    """Buying (the buy strategy's plan) against the best strategy that does not buy (``investment``)."""
    return investment(result, "buy")


def investment(result: Result, name: str) -> BuyCase | None:
    """Strategy ``name``'s plan, which buys servers, against the strategy that buys none with the lowest after-tax
    NPV; None without a tax section, when the plan buys nothing, or without such an alternative."""
    p = result.project
    if p.tax is None:
        return None
    by_name = plans(result)
    buy = by_name.get(name)
    if buy is None or not _buys(buy):
        return None
    others = {k: pl for k, pl in by_name.items() if k != name and not _buys(pl)}
    if not others:
        return None
    taxed = {k: after_tax(pl) for k, pl in others.items()}
    against = min(taxed, key=lambda k: taxed[k].npv)  # type: ignore[union-attr]
    a, b = taxed[against], after_tax(buy)
    assert a is not None and b is not None
    inc = tuple(x - y for x, y in zip(a.by_month, b.by_month, strict=True))
    irr_m = costs.irr_monthly(inc)
    factors = costs.after_tax_factors(p)
    rate = costs.after_tax_rate(p)
    t = costs.income_tax_rate(p)
    debt = p.cost_of_debt * (1.0 - t) if p.cost_of_debt is not None else rate
    f_debt = costs.rate_factors(debt, p.horizon_months)
    nal = sum(
        (b.debt_like[m] - a.debt_like[m]) * f_debt[m]
        + (b.by_month[m] - b.debt_like[m] - a.by_month[m] + a.debt_like[m]) * factors[m]
        for m in range(p.horizon_months)
    )
    used, held = _gpu_hours(buy, result)
    variable = sum(
        v * (1.0 - t) * factors[m] for e in buy.ledger.entries if e.key.startswith("job") for m, v in e.amounts
    )
    fixed = b.npv - variable
    u = used / held if held else None
    be = u * fixed / (a.npv - variable) if u is not None and a.npv > variable else None
    return BuyCase(
        name,
        against,
        inc,
        irr_m,
        costs.annual_rate(irr_m) if irr_m is not None else None,
        costs.payback_months(inc),
        costs.payback_months(inc, factors),
        sum(v * f for v, f in zip(inc, factors, strict=True)),
        nal,
        debt,
        p.cost_of_debt is not None,
        u,
        be,
        costs.sign_changes(inc),
    )


def _buys(plan: Plan) -> bool:
    return any(pu.nodes and not pu.committed for pu in plan.purchases)


def _gpu_hours(plan: Plan, result: Result) -> tuple[float, float]:
    """(GPU-hours the jobs use on servers bought, GPU-hours those servers are held within the horizon)."""
    bought = {pu.offer_id: pu.nodes for pu in plan.purchases if not pu.committed and pu.nodes}
    used = sum(a.gpus * a.hours for a in plan.assignments if a.offer_id in bought)
    held = sum(
        n * result.offers[oid].gpus_per_node * costs.owned_days(result.offers[oid], result.project) * HOURS_PER_DAY
        for oid, n in bought.items()
    )
    return used, held
