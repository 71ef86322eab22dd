"""The after-tax figures for the approval meeting (solver.appraisal) as JSON and console lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from procure.solver import appraisal

from .headline import STRATEGY_LABEL
from .i18n import EN, N_, Lang
from .tables import rounded

if TYPE_CHECKING:
    from procure.solver.plan import Plan
    from procure.solver.result import Result


def _r(x: float | None, nd: int = 2) -> float | None:
    """Rounded for the JSON, never a signed zero."""
    v = rounded(x, nd)
    return None if v is None else v + 0.0


NO_IRR = N_("no IRR: the incremental cash flows never change sign")
NO_IRR_FOUND = N_("no IRR: no rate makes the incremental cash flows' NPV zero")
SEVERAL_IRR = N_("the incremental cash flows change sign more than once: there may be several IRRs; judge by the NPV")
UNREACHABLE = N_("buying would need a utilisation of {be:.0%}: more than the servers can give (today {u:.0%})")
NAL_DEBT = N_("after-tax cost of debt")
NAL_FALLBACK = N_("the after-tax NPV's rate: no cost_of_debt given")


def irr_note(case: appraisal.BuyCase) -> str | None:
    """Why an IRR is missing, or that it may not be the only one (Descartes: one per sign change at most)."""
    if case.irr is None:
        return NO_IRR if case.sign_changes == 0 else NO_IRR_FOUND
    return SEVERAL_IRR if case.sign_changes > 1 else None


def break_even_text(case: appraisal.BuyCase, tr: Lang) -> str:
    u = case.utilisation or 0.0
    if case.break_even_utilisation is None:
        return tr("buying never wins on utilisation alone")
    if case.break_even_utilisation > 1.0:
        return tr(UNREACHABLE, be=case.break_even_utilisation, u=u)
    return tr("buying wins from a utilisation of {be:.0%} (today {u:.0%})", be=case.break_even_utilisation, u=u)


NO_PAYBACK = N_("not within the horizon")
NOT_AN_INVESTMENT = N_("buys no servers: no investment to pay back")


def _rate(x: float | None, nd: int = 6) -> float | None:
    return None if x is None else round(x, nd)


def plan_after_tax(result: Result, name: str, plan: Plan | None) -> dict | None:
    """``after_tax`` of one strategy's plan: npv, total, tax_shield, depreciation_tax_shield, and, for a plan that
    buys servers, irr, payback_months, discounted_payback_months against the best strategy that buys none."""
    if plan is None or result.project.tax is None:
        return None
    at = appraisal.after_tax(plan)
    assert at is not None
    case = appraisal.investment(result, name)
    return {
        "npv": _r(at.npv),
        "total": _r(at.total),
        "tax_shield": _r(at.tax_saved),
        "depreciation_tax_shield": _r(at.depreciation_shield),
        "against": case.against if case else None,
        "irr": _rate(case.irr) if case else None,
        "irr_monthly": _rate(case.irr_monthly) if case else None,
        "payback_months": _r(case.payback_months) if case else None,
        "discounted_payback_months": _r(case.discounted_payback_months) if case else None,
        "note": None if case else NOT_AN_INVESTMENT,
    }


def finance_json(result: Result) -> dict:
    """The top-level finance fields: ``tax`` (the settings used), ``lease_vs_buy`` (buying against the best
    strategy that buys none) and ``leases`` (the recommended plan's contracts on the balance sheet)."""
    p = result.project
    out: dict = {"tax": None, "lease_vs_buy": None, "leases": [], "ebitda": [], "income_tax": []}
    plan = result.plan
    if p.tax is not None:
        out["tax"] = {
            "income_tax_rate": p.tax.income_tax_rate,
            "depreciation": p.tax.depreciation,
            "life_years": p.tax.life_years,
            "losses_usable": p.tax.losses_usable,
            "after_tax_rate": appraisal.rates(p).after_tax,
            "timing": "monthly",
            "source": p.tax.rule.source.strip(),
        }
        case = appraisal.buy_case(result)
        if case is not None:
            out["lease_vs_buy"] = {
                "buy": case.buy,
                "against": case.against,
                "npv_saving": _r(case.npv_saving),
                "irr": _rate(case.irr),
                "irr_monthly": _rate(case.irr_monthly),
                "irr_note": irr_note(case),
                "sign_changes": case.sign_changes,
                "payback_months": _r(case.payback_months),
                "discounted_payback_months": _r(case.discounted_payback_months),
                "net_advantage_to_leasing": _r(case.nal),
                "nal_rate": _rate(case.nal_rate),
                "nal_rate_is_cost_of_debt": case.nal_rate_is_debt,
                "utilisation": _rate(case.utilisation),
                "break_even_utilisation": _rate(case.break_even_utilisation),
                "incremental": [_r(v) for v in case.incremental],
            }
    if plan is not None:
        ibr = appraisal.rates(p).borrowing
        for j, lb in plan.ledger.leases:
            out["leases"].append(
                {
                    "contract": j,
                    "first_month": lb.first_month + 1,
                    "months": len(lb.depreciation),
                    "incremental_borrowing_rate": ibr,
                    "liability": _r(lb.liability),
                    "right_of_use_asset": _r(lb.asset),
                    "interest": _r(sum(lb.interest.values())),
                    "depreciation": _r(sum(lb.depreciation.values())),
                    "opening_liability": _r(lb.liability_before(0)),
                    "closing_liability": _r(lb.liability_before(p.horizon_months)),
                    "right_of_use_at_horizon_end": _r(lb.asset_after(p.horizon_months - 1)),
                }
            )
        if p.tax is not None:
            out["income_tax"] = [
                {
                    "year": y + 1,
                    "fiscal_year": py.label,
                    "pnl_cost": _r(py.cost),
                    "tax_expense": _r(current + deferred),
                    "current": _r(current),
                    "deferred": _r(deferred),
                    "after_tax_pnl_cost": _r(py.cost + current + deferred),
                }
                for y, ((current, deferred), py) in enumerate(zip(plan.ledger.tax_years(), plan.pnl, strict=True))
            ]
        for y, ((rent, dep, interest), py) in enumerate(zip(plan.ledger.lease_years(), plan.pnl, strict=True)):
            out["ebitda"].append(
                {
                    "year": y + 1,
                    "fiscal_year": py.label,
                    "operating_costs": _r(py.operating),
                    "operating_costs_ifrs16": _r(py.operating - rent),
                    "lease_depreciation": _r(dep),
                    "lease_interest": _r(interest),
                }
            )
    return out


def finance_lines(result: Result, tr: Lang = EN) -> list[str]:
    """The console's after-tax lines (none without a tax section)."""
    p, plan = result.project, result.plan
    if p.tax is None or plan is None:
        return []
    at = appraisal.after_tax(plan)
    assert at is not None
    cur = p.currency
    lines = [
        tr(
            "After tax ({rule}, income tax {tax:.1%}, {timing}): NPV {npv} at {rate:.1%} a year, {total} undiscounted; "
            "the plan's deductions save {saved} of tax",
            rule=p.tax.depreciation,
            tax=p.tax.income_tax_rate,
            timing=tr("monthly"),
            npv=tr.money(at.npv, cur),
            rate=appraisal.rates(p).after_tax,
            total=tr.money(at.total, cur),
            saved=tr.money(at.tax_saved, cur),
        )
    ]
    case = appraisal.buy_case(result)
    if case is not None:
        note = irr_note(case)
        irr = tr("IRR {irr:.1%} a year", irr=case.irr) if case.irr is not None else tr(note or NO_IRR)
        if case.irr is not None and note:
            irr += f" ({tr(note)})"
        pay = (
            tr(
                "payback {m:.1f} months (discounted {d})",
                m=case.payback_months,
                d=_months(case.discounted_payback_months, tr),
            )
            if case.payback_months is not None
            else tr("payback {none}", none=tr(NO_PAYBACK))
        )
        be = break_even_text(case, tr)
        saving = (
            tr("buying saves {amount} of after-tax NPV", amount=tr.money(case.npv_saving, cur))
            if case.npv_saving >= 0
            else tr("buying costs {amount} more after-tax NPV", amount=tr.money(-case.npv_saving, cur))
        )
        lines.append(
            tr(
                "Buy against {against}: {saving}; {irr}; {pay}; net advantage to leasing {nal} (at {rate:.2%}, {what}); {be}",
                against=tr(STRATEGY_LABEL.get(case.against, case.against)),
                saving=saving,
                irr=irr,
                pay=pay,
                nal=tr.money(case.nal, cur),
                rate=case.nal_rate,
                what=tr(NAL_DEBT if case.nal_rate_is_debt else NAL_FALLBACK),
                be=be,
            )
        )
    if plan.ledger.leases:
        liability = sum(lb.liability for _j, lb in plan.ledger.leases)
        lines.append(
            tr(
                "Leases on the balance sheet (IFRS 16): {n} contract(s) longer than 12 months, lease liability {liab} at "
                "commencement ({rate:.1%} incremental borrowing rate)",
                n=len(plan.ledger.leases),
                liab=tr.money(liability, cur),
                rate=appraisal.rates(p).borrowing,
            )
        )
    return lines


def _months(v: float | None, tr: Lang) -> str:
    return tr(NO_PAYBACK) if v is None else tr("{m:.1f} months", m=v)
