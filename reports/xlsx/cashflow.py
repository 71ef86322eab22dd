"""Cash flow sheet: months as columns; each line item's monthly share = its Costs total (by name) × the
fraction the cost model places in that month; category, total and cumulative rows; the NPV (named
``npv_cost``); the cumulative cash out of every strategy (the Summary's line chart)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from procure.solver.costs import CATEGORIES, OPERATING
from procure.solver.enums import STRATEGIES

from ..console import CATEGORY_LABEL, STRATEGY_LABEL
from ..i18n import EN, Lang
from ..lines import LineItem
from ..tables import break_even, month_start
from .names import Names
from .style import (
    BOLD,
    CENTER,
    HEADER_FILL,
    HEADER_FONT,
    INT_FMT,
    NOTE_FONT,
    PCT_FMT,
    SECTION_FONT,
    TITLE_FONT,
    TOP_RULE,
    TOTAL_FILL,
    as_input,
    define,
    define_block,
    formula,
    header,
    money_width,
    print_setup,
    put,
    widths,
)

if TYPE_CHECKING:
    from procure.solver.result import Result


def write_cash_flow(ws: Worksheet, result: Result, items: list[LineItem], names: Names, tr: Lang = EN) -> None:
    p, plan = result.project, result.plan
    if plan is None:
        raise ValueError("the Cash flow sheet needs a plan")
    n = p.horizon_months
    c0 = names.first_month_col  # column D
    last_col = c0 + n - 1
    L = get_column_letter
    _write_month_header(ws, result, names, tr)
    money = tr.amount_fmt(INT_FMT)
    totals = plan.ledger.by_month()
    cum = plan.ledger.cumulative()
    # category rows: labelled now, their SUMIFs filled in once the line-item block below has its rows
    cat_row0 = 5
    for j, cat in enumerate(CATEGORIES):
        put(ws, cat_row0 + j, 1, tr(CATEGORY_LABEL[cat]))
        put(ws, cat_row0 + j, 2, tr(cat))  # the category rows SUMIF the line items by this cell
        names.category_rows[cat] = cat_row0 + j
    total_row = cat_row0 + len(CATEGORIES)
    names.cash_total_row = total_row
    cum_row = total_row + 1
    put(ws, total_row, 1, tr("total cash out"), font=BOLD)
    for col in range(3, last_col + 1):
        v = sum(totals) if col == 3 else totals[col - c0]
        formula(
            ws,
            total_row,
            col,
            f"=SUM({L(col)}{cat_row0}:{L(col)}{total_row - 1})",
            money,
            font=BOLD,
            fill=TOTAL_FILL,
            value=v,
        ).border = TOP_RULE
    put(ws, cum_row, 1, tr("cumulative cash out"), font=BOLD)
    for m in range(n):
        col = c0 + m
        prev = f"{L(col - 1)}{cum_row}+" if m > 0 else ""
        formula(ws, cum_row, col, f"={prev}{L(col)}{total_row}", money, font=BOLD, value=cum[m])
    names.cumulative = define(ws, "cumulative_cash_out", c0, cum_row, last_col=last_col)
    row, npv = _write_npv(ws, result, totals, names, cum_row + 2, tr)
    row = _write_strategy_rows(ws, result, names, cum, cum_row, row, tr)
    # line items
    row += 2
    header(ws, row, tr.each("line item", "category", "total") + [tr("M{m}", m=m + 1) for m in range(n)])
    first_item = row + 1
    _write_line_items(ws, items, names, first_item, c0, money, tr)
    last_item = max(first_item + len(items) - 1, first_item)
    _write_instalments(ws, result, items, first_item, last_item + 2, c0, tr)
    _fill_category_rows(ws, items, cat_row0, first_item, last_item, n, c0, money)
    widths(ws, {"A": 44, "B": 15, "C": max(14, money_width([sum(totals), npv, *cum], p.currency))})
    # the month header in bold ("31 Dec 26", "2026年12月") needs 12.5 characters with Calibri's metrics (10 printed ###)
    month_w = max(12.5, money_width([*totals, *cum, *(it.amount for it in items)], "", bold=True))
    _define_year_blocks(ws, names, [line.months for line in plan.pnl] if plan else [], n, c0, total_row)
    for m in range(n):
        ws.column_dimensions[L(c0 + m)].width = month_w
    print_setup(ws, "3:4")
    # a year of months per printed page, labels repeated, rather than 36+ unreadable columns on one
    ws.page_setup.fitToWidth = max(1, math.ceil(n / 12))
    ws.print_title_cols = "A:C"


def _write_month_header(ws: Worksheet, result: Result, names: Names, tr: Lang) -> None:
    """The title, the note on how months are placed, and the month columns' headers (rows 1 to 4)."""
    p = result.project
    c0 = names.first_month_col
    put(
        ws,
        1,
        1,
        tr("Cash flow by month ({unit}, cash out positive; residual value negative)", unit=tr.unit(p.currency)),
        font=TITLE_FONT,
    )
    put(
        ws,
        2,
        1,
        tr(
            "Each line item's month = its total on the Costs sheet × the fraction the cost model places in that month; "
            "months are calendar months, the first from the start date."
        ),
        font=NOTE_FONT,
    )
    header(ws, 3, ["", tr("category"), tr("total")])
    put(ws, 4, 1, tr("month starting"), font=BOLD)
    for m in range(p.horizon_months):
        col = c0 + m
        put(ws, 3, col, tr("M{m}", m=m + 1), font=HEADER_FONT, fill=HEADER_FILL, align=CENTER)
        put(ws, 4, col, month_start(p, m), tr.month_fmt, font=BOLD, align=CENTER)
    names.month_header_row = 4
    ws.freeze_panes = ws.cell(row=5, column=c0)


def _write_npv(
    ws: Worksheet, result: Result, totals: list[float], names: Names, row: int, tr: Lang
) -> tuple[int, float]:
    """The discount rate, the monthly rate and the NPV (named ``npv_cost``); returns the next row and the NPV."""
    p = result.project
    L = get_column_letter
    c0, last_col, total_row = names.first_month_col, names.first_month_col + p.horizon_months - 1, names.cash_total_row
    # always present (at a 0% rate the NPV equals the total), so `npv_cost` is there for every project
    put(ws, row, 1, tr("annual discount rate"))
    as_input(put(ws, row, 3, p.discount_rate, PCT_FMT))
    put(ws, row + 1, 1, tr("monthly rate (1+r)^(1/12)−1"))
    mrate = result.planned().ledger.monthly_rate
    formula(ws, row + 1, 3, f"=(1+C{row})^(1/12)-1", "0.0000%", value=mrate)
    put(ws, row + 2, 1, tr("net present value (end of month)"), font=BOLD)
    npv = result.planned().ledger.present_value()  # the spreadsheet NPV(): end-of-period flows
    formula(
        ws,
        row + 2,
        3,
        f"=NPV(C{row + 1},{L(c0)}{total_row}:{L(last_col)}{total_row})",
        tr.money_fmt(p.currency),
        font=BOLD,
        fill=TOTAL_FILL,
        value=npv,
    )
    names.npv = define(ws, "npv_cost", "C", row + 2)
    return row + 3, npv


def _write_strategy_rows(
    ws: Worksheet, result: Result, names: Names, cum: list[float], cum_row: int, row: int, tr: Lang
) -> int:
    """The cumulative cash out of every strategy with a plan (the Summary's line chart) and buying's
    break-even month; returns the next row."""
    n = result.project.horizon_months
    c0 = names.first_month_col
    L = get_column_letter
    money = tr.amount_fmt(INT_FMT)
    strat_names = [s for s in STRATEGIES if s in result.strategies and result.strategies[s].plan is not None]
    row += 1
    put(ws, row, 1, tr("Cumulative cash out by strategy"), font=SECTION_FONT)
    row += 1
    for name in strat_names:
        s = result.strategies[name]
        put(ws, row, 1, tr(STRATEGY_LABEL[name]) + (tr(" — recommended") if name == "hybrid" else ""))
        if name == "hybrid":
            for m in range(n):
                formula(ws, row, c0 + m, f"={L(c0 + m)}{cum_row}", money, value=cum[m])
        else:
            assert s.plan is not None  # only strategies with a plan get a row
            for m, v in enumerate(s.plan.ledger.cumulative()):
                put(ws, row, c0 + m, v, money)
        names.strategy_rows[name] = row
        row += 1
    be_month, _ = break_even(result)
    if be_month is not None:
        put(ws, row, 1, tr("break-even month (buy only)"))
        buy = result.strategies["buy"].plan
        assert buy is not None  # a break-even month exists only when buying has a plan
        buy_cum = buy.ledger.cumulative()
        put(ws, row, c0 + be_month, buy_cum[be_month], money)
        names.break_even_row = row
        row += 1
    return row


def _write_line_items(
    ws: Worksheet, items: list[LineItem], names: Names, first_item: int, c0: int, money: str, tr: Lang
) -> None:
    """One row per line item: its Costs total (by name) and its share in each month."""
    for k, it in enumerate(items):
        r = first_item + k
        put(ws, r, 1, f"{it.item} — {it.ref}" if it.ref not in it.item else it.item)
        put(ws, r, 2, tr(it.category))
        formula(ws, r, 3, f"={names.item_amount[it.key]}", money, value=it.amount)
        for m, frac in sorted(it.months.items()):
            f = "" if frac == 1.0 else f"*{frac!r}"
            formula(ws, r, c0 + m, f"=$C{r}{f}", money, value=it.amount * frac)


def _fill_category_rows(
    ws: Worksheet, items: list[LineItem], cat_row0: int, first_item: int, last_item: int, n: int, c0: int, money: str
) -> None:
    """The category rows sum the line-item block, now that its rows are known."""
    L = get_column_letter
    rng_cat = f"$B${first_item}:$B${last_item}"
    for j, cat in enumerate(CATEGORIES):
        r = cat_row0 + j
        per_month = [sum(it.amount * it.months.get(m, 0.0) for it in items if it.category == cat) for m in range(n)]
        for m in range(n):
            col = L(c0 + m)
            formula(
                ws,
                r,
                c0 + m,
                f"=SUMIF({rng_cat},$B{r},{col}${first_item}:{col}${last_item})",
                money,
                value=per_month[m],
            )
        formula(ws, r, 3, f"=SUM({L(c0)}{r}:{L(c0 + n - 1)}{r})", money, value=sum(per_month))


def _define_year_blocks(
    ws: Worksheet, names: Names, spans: list[tuple[int, int]], n: int, c0: int, total_row: int
) -> None:
    """Per fiscal year (its months, ``spans``), the blocks the P&L sheet sums: operating categories, interest,
    total cash out."""
    ops = [names.category_rows[c] for c in OPERATING]
    for y, (first, stop) in enumerate(spans):
        lo, hi = c0 + first, c0 + stop - 1
        names.year_blocks[y] = (
            define_block(ws, f"cf_operating_y{y + 1}", lo, min(ops), hi, max(ops)),
            define_block(
                ws, f"cf_interest_y{y + 1}", lo, names.category_rows["interest"], hi, names.category_rows["interest"]
            ),
            define_block(ws, f"cf_total_y{y + 1}", lo, total_row, hi, total_row),
        )
    # the whole horizon, month by month (the Lease vs buy sheet reads a month's column with INDEX)
    last = c0 + n - 1
    names.cf_operating = define_block(ws, "cf_operating", c0, min(ops), last, max(ops))
    names.cf_interest = define_block(
        ws, "cf_interest", c0, names.category_rows["interest"], last, names.category_rows["interest"]
    )
    names.cf_total = define_block(ws, "cf_total", c0, total_row, last, total_row)


def _write_instalments(
    ws: Worksheet, result: Result, items: list[LineItem], first_item: int, row: int, c0: int, tr: Lang = EN
) -> None:
    """Below the line items, one row per financed purchase: its monthly loan instalments (the capex lines'
    months after delivery plus the interest line), so the board sees the payments the loan commits to.
    Informational: no category, so the category rows above do not count it twice."""
    L = get_column_letter
    n = result.project.horizon_months
    at = {it.key: first_item + k for k, it in enumerate(items)}
    for pur in result.planned().purchases:
        k = f"buy:{pur.offer_id}"
        if f"{k}:interest" not in at:
            continue
        o = result.offers[pur.offer_id]
        parts = [at[key] for key in (f"{k}:capex", f"{k}:duty", f"{k}:vat", f"{k}:interest") if key in at]
        put(ws, row, 1, tr("loan instalments (principal + interest) — {offer}", offer=o.id), font=BOLD)
        book = result.planned().ledger
        d = book.book(o.id).delivery_month
        by_month = book.paid_by_month(f"{k}:", ("capex", "interest"))
        paid = {m: by_month[m] for m in range(d + 1, n)}
        for m in range(d + 1, n):
            col = L(c0 + m)
            formula(ws, row, c0 + m, "=" + "+".join(f"{col}{r}" for r in parts), tr.amount_fmt(INT_FMT), value=paid[m])
        formula(
            ws, row, 3, f"=SUM({L(c0)}{row}:{L(c0 + n - 1)}{row})", tr.amount_fmt(INT_FMT), value=sum(paid.values())
        )
        row += 1
