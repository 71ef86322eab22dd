"""The verifier's income tax check: a plan's tax entries derived by the verifier's own small rules.

The plan's ledger prices its income tax with ``solver.costs`` ("Income tax"). This module does not call it. From
the entries the verifier derived from the quotes (solver.verify_money), the servers it saw bought or owned, the
project's ``tax`` section and the rule's data (models/data/tax_rules.yaml: its rates, lives, caps, dates and
shares are inputs, like a quote), it states again:

    deductible     operating costs and interest save t × their amount in the month they are paid
    basis          a purchase's capitalised cost (landed price and network); owned servers 0
    put in use     the delivery month d; a rule's dates compare the day month d begins on (its calendar month's
                   1st; month 0: the start date)
    straight line  basis / round(12·life) a month from d (d + 1 when the rule starts the month after)
    one-off        the whole basis in d (d + 1 when the rule starts the month after), inside the dates and under
                   the cap per server (cap × the fx rate of its currency); else the rule it names
    table          share k of the basis in the k-th tax year from d's (years begin in fiscal_year_start_month),
                   evenly over its months held; half of it in the year of the sale before the table ends, none
                   when bought and sold in one tax year
    sale           t × (proceeds − basis not yet deducted) in the month sold
    after-tax NPV  (pre-tax + tax) per month, discounted at hurdle_rate, else wacc, else discount_rate,
                   (1 + r)^(1/12) − 1 a month, end-of-month

and the plan's tax by part and month, and its after-tax NPV, must match.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Mapping, Sequence

from procure.models.offer import Offer
from procure.models.project import Project
from procure.models.tax import tax_rules

from .ledger import Entry
from .plan import Plan

_DEDUCTIBLE = (
    "maintenance",
    "colocation",
    "energy",
    "rent",
    "setup",
    "cloud",
    "fixed",
    "storage",
    "egress",
    "staff",
    "carbon",
    "interest",
)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def _begins(p: Project, m: int) -> dt.date:
    """The day month m begins: the 1st of the calendar month m after the start's (month 0: the start date)."""
    if m <= 0:
        return p.start_date
    y, mo = divmod(p.start_date.year * 12 + p.start_date.month - 1 + m, 12)
    return dt.date(y, mo + 1, 1)


def _year(p: Project, m: int) -> int:
    d = _begins(p, m)
    months = d.year * 12 + d.month - p.fiscal_year_start_month
    return months // 12


def _schedule(p: Project, basis: float, units: int, d: int, sold: int) -> dict[int, float]:
    assert p.tax is not None
    rules = tax_rules()
    rule = rules[p.tax.depreciation]
    if rule.kind == "one_off":
        cap = rule.cap_per_unit * p.fx_rate(rule.cap_currency) if rule.cap_per_unit is not None else None
        placed = _begins(p, d)
        inside = rule.placed_from <= placed <= rule.placed_until if rule.placed_from and rule.placed_until else False
        last = min(sold, p.horizon_months - 1)
        if inside and (cap is None or basis / units <= cap):
            when = d + 1 if rule.start == "next_month" else d
            return {when: basis} if when <= last else {}
        rule = rules[rule.otherwise or ""]
    last = min(sold, p.horizon_months - 1)
    out: dict[int, float] = {}
    if rule.kind == "straight_line":
        years = p.tax.life_years if p.tax.life_years is not None else rule.default_life_years
        n = max(1, round(12 * (years or 5.0)))
        first = d + 1 if rule.start == "next_month" else d
        for m in range(first, first + n):
            if m <= last:
                out[m] = basis / n
        return out
    y0, ysale = _year(p, d), _year(p, last)
    if y0 == ysale:  # bought and sold in one tax year: no depreciation
        return {}
    for k, pct in enumerate(rule.percent):
        if y0 + k > ysale:
            break
        share = pct / 100
        if y0 + k == ysale and rule.convention == "half_year" and k + 1 < len(rule.percent):
            share = share / 2
        held = [m for m in range(d, last + 1) if _year(p, m) == y0 + k]
        for m in held:
            out[m] = out.get(m, 0.0) + basis * share / len(held)
    return out


def tax_problems(
    project: Project, plan: Plan, want: Sequence[Entry], assets: Sequence[tuple[float, int, int, int, float]]
) -> list[str]:
    """What in the plan's income tax and after-tax NPV differs from the amounts derived here."""
    p, M = project, project.horizon_months
    tax = p.tax
    assert tax is not None
    t = tax.income_tax_rate if tax.losses_usable else 0.0
    derived = {"deductions": [0.0] * M, "depreciation": [0.0] * M, "sale": [0.0] * M}
    pre = [0.0] * M
    for e in want:
        for m, v in e.amounts:
            pre[m] += v
            if e.category in _DEDUCTIBLE:
                derived["deductions"][m] -= t * v
    for basis, units, d, sold, proceeds in assets:
        dep = _schedule(p, basis, units, d, sold) if basis else {}
        for m, v in dep.items():
            derived["depreciation"][m] -= t * v
        derived["sale"][sold] += t * (proceeds - basis + sum(dep.values()))
    bad: list[str] = []
    book = plan.ledger
    if not book.taxed:
        return ["tax: the project has a tax section but the plan's ledger carries no income tax"]
    for part, months in derived.items():
        said = book.tax_by_month(part)
        for m in range(M):
            if not _close(said[m], months[m]):
                bad.append(
                    f"tax: {part} in month {m + 1} is {said[m]:,.2f} in the plan, {months[m]:,.2f} from the quotes "
                    f"and the {tax.depreciation} rule"
                )
                break
    rate = next((r for r in (p.hurdle_rate, p.wacc) if r is not None), p.discount_rate)
    r_m = (1 + rate) ** (1 / 12) - 1
    after = sum((pre[m] + sum(v[m] for v in derived.values())) / (1 + r_m) ** (m + 1) for m in range(M))
    if plan.after_tax_npv is None or not _close(plan.after_tax_npv, after):
        bad.append(f"tax: after-tax NPV {plan.after_tax_npv}, discounted from the quotes {after:,.2f}")
    return bad


def lease_problems(project: Project, offers: Mapping[str, Offer], plan: Plan, want: Sequence[Entry]) -> list[str]:
    """The plan's leases on the balance sheet against the verifier's own derivation: every contract of a lease offer
    (``lease``; by default rent) signed for more than 12 months, its payment (its first rent entry derived from the
    quotes) for the signed months from its commencement (a commitment signed before the start began that many months
    before it), L = payment · (1 − (1 + i)^−n) / i at i = (1 + IBR)^(1/12) − 1, the asset L + its setup fee, the
    interest n · payment − L over the lease, depreciation asset / n a month."""
    from .ledger import contract_order

    p = project
    ibr = next(
        (r for r in (p.incremental_borrowing_rate, p.cost_of_debt) if r is not None),
        p.financing.annual_rate if p.financing is not None else None,
    )
    if ibr is None:
        ibr = next((r for r in (p.hurdle_rate, p.wacc) if r is not None), p.discount_rate)
    i = (1 + ibr) ** (1 / 12) - 1
    entries = {e.key: e for e in want}
    signed_before = {}
    for signed in p.commitments:
        # one payment on the same day of every month from the day it was signed (the month's last day when it is
        # shorter): those before the start are behind it
        key = (signed.offer, signed.nodes, signed.months)
        behind, due = 0, signed.start_date
        while due < p.start_date:
            behind += 1
            y, mo = divmod(signed.start_date.year * 12 + signed.start_date.month - 1 + behind, 12)
            due = dt.date(y, mo + 1, min(signed.start_date.day, calendar.monthrange(y, mo + 1)[1]))
        signed_before[key] = behind
    booked = dict(plan.ledger.leases)
    bad: list[str] = []
    for j, c in enumerate(contract_order(r.contract for r in plan.rentals)):
        o = offers.get(c.offer_id)
        lease = o.lease if o is not None and o.lease is not None else (o is not None and o.mode == "rent")
        n = (c.term_months or c.months) if c.committed else c.months
        if not lease or n <= 12:
            if j in booked:
                bad.append(f"lease: rent{j} is booked as a lease, but it is no lease of more than 12 months")
            continue
        rent, setup = entries.get(f"rent{j}:rent"), entries.get(f"rent{j}:setup")
        if rent is None or not rent.amounts:
            continue
        pay = rent.amounts[0][1]
        L = pay * (1 - (1 + i) ** -n) / i if i else pay * n
        asset = L + (setup.amount if setup else 0.0)
        first = c.start_month - (signed_before.get((c.offer_id, c.nodes, n), 0) if c.committed else 0)
        lb = booked.get(j)
        if lb is None:
            bad.append(f"lease: rent{j} ({n} months of a lease offer) is not on the balance sheet")
            continue
        said = (lb.first_month, lb.liability, lb.asset, sum(lb.interest.values()), len(lb.depreciation))
        derived = (first, L, asset, n * pay - L, n)
        if (
            said[0] != derived[0]
            or said[4] != derived[4]
            or not all(_close(a, b) for a, b in zip(said[1:4], derived[1:4], strict=True))
        ):
            bad.append(
                f"lease: rent{j} is booked from month {said[0] + 1} over {said[4]} months, liability {said[1]:,.2f}, "
                f"asset {said[2]:,.2f}, interest {said[3]:,.2f}; from the quotes from month {first + 1} over {n}, "
                f"{L:,.2f}, {asset:,.2f}, {n * pay - L:,.2f}"
            )
        elif any(not _close(v, asset / n) for v in lb.depreciation.values()):
            bad.append(f"lease: rent{j}'s right-of-use depreciation is not {asset / n:,.2f} a month")
    return bad
