"""Lease vs buy sheet (only with the project's ``tax``): the recommended plan after income tax, buying against the best
strategy that buys none, and the leases on the balance sheet. Written before the Summary, which shows its
after-tax NPV (named ``after_tax_npv``).

    cash out before tax      = the Cash flow sheet's total row, month by month (live)
    tax on deductible costs  = −t × (the Cash flow's operating category rows + interest)          (live in t and prices)
    tax depreciation         = the rule's deduction of the servers bought, per month (solver.costs "Income tax"),
                               shield −t × it
    taxable gain on the sale = resale − basis not yet deducted, taxed t × it
    income tax               = the three added; cash out after tax = before + income tax
    after-tax NPV            = NPV((1 + r)^(1/12) − 1, cash out after tax), r the after-tax rate (hurdle, wacc, discount)

Buy against the alternative (as solved, from the strategies' own plans): the incremental flow = the alternative's
after-tax cash out − buying's; its IRR (Excel ``IRR``, monthly, annualised (1 + IRR)^12 − 1), NPV and cumulative.
Leases: ``PV`` of each lease's payments at the monthly incremental borrowing rate, the right-of-use asset (+ the
setup fee), interest and depreciation; EBITDA's operating costs with and without them per project year.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from procure.models.units import MONTHS_PER_YEAR
from procure.solver import appraisal
from procure.solver.costs import DEDUCTIBLE, OPERATING

from ..finance_report import NAL_DEBT, NAL_FALLBACK, break_even_text, irr_note
from ..headline import STRATEGY_LABEL
from ..i18n import EN, N_, Lang
from ..tables import month_start
from .names import Names
from .style import (
    BOLD,
    HEADER_FILL,
    HEADER_FONT,
    INT_FMT,
    NOTE_FONT,
    PCT_FMT,
    SECTION_FONT,
    TITLE_FONT,
    TOTAL_FILL,
    WRAP,
    as_input,
    define,
    fit_row,
    formula,
    header,
    merge_in_row,
    money_width,
    print_setup,
    put,
    widths,
)

if TYPE_CHECKING:
    from procure.solver.result import Result

SHEET = N_("Lease vs buy")
C0 = 4  # column of month 1


def write_lease_vs_buy(ws: Worksheet, result: Result, names: Names, tr: Lang = EN) -> None:
    p, plan = result.project, result.planned()
    tax = p.tax
    if tax is None:
        raise ValueError("the Lease vs buy sheet needs the project's tax section")
    L = get_column_letter
    n = p.horizon_months
    last = C0 + n - 1
    money = tr.amount_fmt(INT_FMT)
    book = plan.ledger
    put(ws, 1, 1, tr("Lease vs buy: after income tax"), font=TITLE_FONT)
    title = tax.rule.title if tr.en or not tax.rule.title_zh else tax.rule.title_zh
    note = tr(
        "Income tax saved month by month against the company's other taxable income (monthly timing); servers "
        "deducted by the rule {rule}: {title}.",
        rule=tax.depreciation,
        title=title,
    )
    put(ws, 2, 1, note, font=NOTE_FONT, align=WRAP)
    merge_in_row(ws, 2, 1, C0 + 9)
    fit_row(ws, 2, note, 58 + 4 + 16 + 10 * 12)
    put(ws, 3, 1, tr("source"), font=BOLD)
    source = tax.rule.source.strip()
    put(ws, 4, 1, source, font=NOTE_FONT, align=WRAP)
    merge_in_row(ws, 4, 1, C0 + 9)
    fit_row(ws, 4, source, 58 + 4 + 16 + 10 * 12)
    # the rates, as inputs
    put(ws, 6, 1, tr("income tax rate"))
    as_input(put(ws, 6, 3, appraisal.rates(p).income_tax, PCT_FMT))
    t = "$C$6"
    put(ws, 7, 1, tr("after-tax discount rate (hurdle rate, else wacc, else discount rate)"))
    as_input(put(ws, 7, 3, appraisal.rates(p).after_tax, PCT_FMT))
    put(ws, 8, 1, tr("monthly rate (1+r)^(1/12)−1"))
    r_m = appraisal.rates(p).after_tax_monthly
    formula(ws, 8, 3, "=(1+C7)^(1/12)-1", "0.0000%", value=r_m)
    rate = "$C$8"
    # months
    row = 10
    header(ws, row, [tr("after tax"), "", tr("total")], col=1)
    for m in range(n):
        put(ws, row, C0 + m, month_start(p, m), "yyyy-mm", font=HEADER_FONT, fill=HEADER_FILL)
    before, ded_row, dep_row, shield_row, gain_row, sale_row, tax_row, after_row = range(row + 1, row + 9)
    ded = book.tax_by_month("deductions")
    dep_shield = book.tax_by_month("depreciation")
    sale = book.tax_by_month("sale")
    rate_t = appraisal.rates(p).income_tax
    totals = book.by_month()
    rows = {
        before: (tr("cash out before tax (Cash flow sheet)"), totals),
        ded_row: (tr("income tax on the deductible costs (−t × operating costs and interest)"), ded),
        dep_row: (tr("tax depreciation of the servers bought"), [(-v / rate_t if rate_t else 0.0) for v in dep_shield]),
        shield_row: (tr("its tax shield (−t × tax depreciation)"), dep_shield),
        gain_row: (
            tr("taxable gain on the sale (resale − basis not yet deducted)"),
            [(v / rate_t if rate_t else 0.0) for v in sale],
        ),
        sale_row: (tr("income tax on the sale (t × gain)"), sale),
        tax_row: (tr("income tax (negative: saved)"), book.tax_by_month()),
        after_row: (tr("cash out after tax"), book.after_tax_by_month()),
    }
    # the deductible categories are the Cash flow's operating block and its interest row (costs.DEDUCTIBLE)
    assert set(DEDUCTIBLE) == {*OPERATING, "interest"}
    for r, (label, values) in rows.items():
        bold = r in (tax_row, after_row)
        put(ws, r, 1, label, font=BOLD if bold else None)
        formula(ws, r, 3, f"=SUM({L(C0)}{r}:{L(last)}{r})", money, font=BOLD if bold else None, value=sum(values))
        for m in range(n):
            col = L(C0 + m)
            if r == before:
                text = f"=INDEX({names.cf_total},1,{m + 1})"
            elif r == ded_row:
                text = f"=-{t}*(SUM(INDEX({names.cf_operating},0,{m + 1}))+INDEX({names.cf_interest},1,{m + 1}))"
            elif r == shield_row:
                text = f"=-{t}*{col}{dep_row}"
            elif r == sale_row:
                text = f"={t}*{col}{gain_row}"
            elif r == tax_row:
                text = f"={col}{ded_row}+{col}{shield_row}+{col}{sale_row}"
            elif r == after_row:
                text = f"={col}{before}+{col}{tax_row}"
            else:  # the rule's schedule and the gain: as priced (solver.costs), inputs of the live rows
                put(ws, r, C0 + m, values[m], money)
                continue
            formula(ws, r, C0 + m, text, money, font=BOLD if bold else None, value=values[m])
    row = after_row + 1
    put(ws, row, 1, tr("after-tax net present value (end of month)"), font=BOLD)
    at_npv = book.after_tax_present_value()
    formula(
        ws, row, 3, f"=NPV({rate},{L(C0)}{after_row}:{L(last)}{after_row})", tr.money_fmt(p.currency),
        font=BOLD, fill=TOTAL_FILL, value=at_npv,
    )  # fmt: skip
    names.after_tax_npv = define(ws, "after_tax_npv", "C", row)
    row = _write_tax_years(ws, result, row + 2, t, tax_row, money, tr)
    row = _write_buy_case(ws, result, row + 1, rate, money, tr)
    row = _write_leases(ws, result, names, row + 1, money, tr)
    # columns wide enough for every amount they show (bold, signed), so nothing prints as ###
    case = appraisal.buy_case(result)
    shown = [v for _label, values in rows.values() for v in values] + [at_npv]
    if case is not None:
        shown += [*case.incremental, sum(case.incremental), case.npv_saving, case.nal]
        plans = appraisal.plans(result)
        for name in (case.buy, case.against):
            got = appraisal.after_tax(plans[name])
            if got is not None:
                shown += [*got.by_month, sum(got.by_month)]
    month_w = max(12.0, money_width([v for v in shown if abs(v) < 1e15], p.currency))
    total_w = max(16.0, money_width(shown, p.currency) + 4)
    widths(ws, {"A": 72, "B": 4, "C": total_w, **{L(C0 + m): month_w for m in range(n)}})
    ws.freeze_panes = ws.cell(row=11, column=C0)
    print_setup(ws, "10:10")
    ws.page_setup.fitToWidth = max(1, math.ceil(n / 12))  # a year of months a page, as the Cash flow sheet
    ws.print_title_cols = "A:C"


def _write_tax_years(ws: Worksheet, result: Result, row: int, t: str, tax_row: int, money: str, tr: Lang) -> int:
    """The P&L after income tax per project year: the tax expense on the book P&L (−t × P&L cost), the current tax
    (the year's months of the income tax row) and the deferred tax between them (IAS 12); the next row."""
    plan = result.planned()
    L = get_column_letter
    put(
        ws,
        row,
        1,
        tr("P&L after income tax (book depreciation against the tax rule: deferred tax, IAS 12)"),
        font=SECTION_FONT,
    )
    row += 1
    header(ws, row, [tr("year"), "", tr("P&L cost"), tr("tax expense (−t × P&L cost)"), tr("current tax"),
                     tr("deferred tax"), tr("P&L cost after tax")], height=48)  # fmt: skip
    row += 1
    for (current, deferred), py in zip(plan.ledger.tax_years(), plan.pnl, strict=True):
        lo, hi = C0 + py.months[0], C0 + py.months[1] - 1
        put(ws, row, 1, py.label)
        put(ws, row, 3, py.cost, money)
        formula(ws, row, 4, f"=-{t}*C{row}", money, value=current + deferred)
        formula(ws, row, 5, f"=SUM({L(lo)}{tax_row}:{L(hi)}{tax_row})", money, value=current)
        formula(ws, row, 6, f"=D{row}-E{row}", money, value=deferred)
        formula(ws, row, 7, f"=C{row}+D{row}", money, value=py.cost + current + deferred)
        row += 1
    put(ws, row, 1, tr("the deferred tax reverses by the sale: over the horizon it adds up to 0"), font=NOTE_FONT)
    return row + 1


def _write_buy_case(ws: Worksheet, result: Result, row: int, rate: str, money: str, tr: Lang) -> int:
    """Buying against the best strategy that buys none: flows as solved, IRR, NPV and payback; the next row."""
    case = appraisal.buy_case(result)
    put(ws, row, 1, tr("Buy against the best strategy that buys no servers (as solved)"), font=SECTION_FONT)
    row += 1
    if case is None:
        put(ws, row, 1, tr("no comparison: the buy strategy has no plan, or every other strategy buys servers too"))
        return row + 1
    p = result.project
    plans = appraisal.plans(result)
    buy_at, alt_at = appraisal.after_tax(plans[case.buy]), appraisal.after_tax(plans[case.against])
    assert buy_at is not None and alt_at is not None
    L = get_column_letter
    n = p.horizon_months
    last = C0 + n - 1
    buy_row, alt_row, inc_row, cum_row = row, row + 1, row + 2, row + 3
    against = tr(STRATEGY_LABEL.get(case.against, case.against))
    labels = {
        buy_row: (tr("buy only: cash out after tax"), buy_at.by_month),
        alt_row: (tr("{name}: cash out after tax", name=against), alt_at.by_month),
    }
    for r, (label, values) in labels.items():
        put(ws, r, 1, label)
        formula(ws, r, 3, f"=SUM({L(C0)}{r}:{L(last)}{r})", money, value=sum(values))
        for m in range(n):
            put(ws, r, C0 + m, values[m], money)
    put(ws, inc_row, 1, tr("incremental cash flow of buying (what buying saves)"), font=BOLD)
    put(ws, cum_row, 1, tr("cumulative"))
    cum = 0.0
    for m in range(n):
        col = L(C0 + m)
        formula(ws, inc_row, C0 + m, f"={col}{alt_row}-{col}{buy_row}", money, font=BOLD, value=case.incremental[m])
        cum += case.incremental[m]
        prev = f"{L(C0 + m - 1)}{cum_row}+" if m else ""
        formula(ws, cum_row, C0 + m, f"={prev}{col}{inc_row}", money, value=cum)
    formula(ws, inc_row, 3, f"=SUM({L(C0)}{inc_row}:{L(last)}{inc_row})", money, font=BOLD, value=sum(case.incremental))
    span = f"{L(C0)}{inc_row}:{L(last)}{inc_row}"
    row = cum_row + 2
    figures: list[tuple[str, str, float | None, str]] = [
        (
            tr("NPV of buying's saving at the after-tax rate"),
            f"=NPV({rate},{span})",
            case.npv_saving,
            tr.money_fmt(p.currency),
        ),
    ]
    if case.irr_monthly is not None:
        figures += [
            (
                tr("IRR a month (Excel IRR)"),
                f"=IRR({span},{round(case.irr_monthly, 2)!r})",
                case.irr_monthly,
                "0.0000%",
            ),
            (tr("IRR a year, (1 + IRR)^12 − 1"), f"=(1+C{row + 1})^12-1", case.irr, "0.00%"),
        ]
    for k, (label, text, value, fmt) in enumerate(figures):
        put(ws, row + k, 1, label, font=BOLD)
        formula(ws, row + k, 3, text, fmt, font=BOLD, value=value)
    if case.irr_monthly is not None:
        define(ws, "buy_irr_monthly", "C", row + 1)
    row += len(figures)
    note = irr_note(case)
    if note:
        put(ws, row, 1, tr(note))
        row += 1
    horizon, never = tr("not within the horizon"), tr("buying never wins on utilisation alone")
    what = tr(NAL_DEBT if case.nal_rate_is_debt else NAL_FALLBACK)
    as_solved: list[tuple[str, float | None, str, str]] = [
        (tr("payback, months (static)"), case.payback_months, "0.0", horizon),
        (tr("payback, months (discounted)"), case.discounted_payback_months, "0.0", horizon),
        (tr("net advantage to leasing (> 0: leasing is cheaper)"), case.nal, tr.money_fmt(p.currency), "—"),
        (tr("its rate for lease payments and tax shields: {what}", what=what), case.nal_rate, PCT_FMT, "—"),
        (tr("utilisation of the servers bought (GPU-hours used / held)"), case.utilisation, PCT_FMT, "—"),
        (tr("break-even utilisation: buying wins from"), case.break_even_utilisation, PCT_FMT, never),
    ]
    for label, value, fmt, none in as_solved:
        put(ws, row, 1, label)
        put(ws, row, 3, value if value is not None else none, fmt if value is not None else None)
        row += 1
    if case.break_even_utilisation is not None and case.break_even_utilisation > 1.0:
        put(ws, row, 1, break_even_text(case, tr), font=NOTE_FONT)
        row += 1
    put(
        ws,
        row,
        1,
        tr("payback, NAL and break-even utilisation are as solved; docs/finance.md states each formula"),
        font=NOTE_FONT,
    )
    return row + 1


def _write_leases(ws: Worksheet, result: Result, names: Names, row: int, money: str, tr: Lang) -> int:
    """The leases on the balance sheet (IFRS 16) and EBITDA's operating costs with and without them."""
    p, plan = result.project, result.planned()
    put(
        ws,
        row,
        1,
        tr("Leases on the balance sheet (IFRS 16 / CAS 21): contracts longer than 12 months"),
        font=SECTION_FONT,
    )
    row += 1
    ibr = appraisal.rates(p).borrowing
    put(ws, row, 1, tr("incremental borrowing rate (a year)"))
    as_input(put(ws, row, 3, ibr, PCT_FMT))
    ibr_cell = f"$C${row}"
    row += 1
    if not plan.ledger.leases:
        put(ws, row, 1, tr("none: no contract of a lease offer runs more than 12 months"))
        row += 1
    else:
        header(ws, row, [tr("contract"), "", tr("payment a month"), tr("months"), tr("setup fee"), tr("lease liability"),
                         tr("right-of-use asset"), tr("interest"), tr("depreciation a month")], height=48)  # fmt: skip
        row += 1
        for j, lb in plan.ledger.leases:
            months = len(lb.depreciation)
            pay = next(iter(v for m, v in sorted(lb.rent.items()) if m != lb.first_month), lb.rent[lb.first_month])
            setup = lb.asset - lb.liability
            put(ws, row, 1, f"rent{j}")
            put(ws, row, 3, pay, money)
            put(ws, row, 4, months)
            put(ws, row, 5, setup, money)
            formula(ws, row, 6, f"=PV((1+{ibr_cell})^(1/12)-1,D{row},-C{row})", money, value=lb.liability)
            formula(ws, row, 7, f"=F{row}+E{row}", money, value=lb.asset)
            formula(ws, row, 8, f"=C{row}*D{row}-F{row}", money, value=sum(lb.interest.values()))
            formula(ws, row, 9, f"=G{row}/D{row}", money, value=lb.asset / months)
            row += 1
    row += 1
    header(ws, row, [tr("year"), "", tr("operating costs (rent booked as cost)"), tr("lease rent moved out"),
                     tr("operating costs with leases on the balance sheet"), tr("right-of-use depreciation"),
                     tr("lease interest")], height=62)  # fmt: skip
    row += 1
    for y, ((rent, dep, interest), py) in enumerate(zip(plan.ledger.lease_years(), plan.pnl, strict=True)):
        put(ws, row, 1, py.label)
        block = names.year_blocks.get(y)
        if block:
            formula(ws, row, 3, f"=SUM({block[0]})", money, value=py.operating)
        else:
            put(ws, row, 3, py.operating, money)
        put(ws, row, 4, rent, money)
        formula(ws, row, 5, f"=C{row}-D{row}", money, value=py.operating - rent)
        put(ws, row, 6, dep, money)
        put(ws, row, 7, interest, money)
        row += 1
    put(ws, row, 1, tr("EBITDA carries operating costs only: leases on the balance sheet move their rent below it, "
                       "into depreciation and interest"), font=NOTE_FONT)  # fmt: skip
    return row + 1


__all__ = ["SHEET", "MONTHS_PER_YEAR", "write_lease_vs_buy"]
