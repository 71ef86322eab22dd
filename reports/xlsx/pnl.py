"""P&L sheet: the plan as the income statement sees it, per project year, beside the cash view.

    P&L cost(year) = depreciation + operating costs + interest − gain on disposal

Depreciation is straight line over the purchase's ``depreciation_years`` from its delivery month, on the
capitalised cost (price, import duty, non-recoverable VAT, network fabric: the purchase's capex and network
lines on the Costs sheet); operating costs (maintenance, colocation, energy, rent, setup, cloud, fixed
charges, storage, egress, staff) and interest are the Cash flow
sheet's category rows summed over the year's months; the gain on disposal (resale value − book value at
the horizon end) falls in the last year. Over the horizon the P&L costs add up to the total cost of
ownership, which the sheet checks against ``total_cost``. Formulas equal the ledger's ``pnl_years`` (solver.ledger).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procure.solver.result import Result


from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from ..i18n import EN, Lang, Ns
from .names import Names
from .style import (
    BOLD,
    INT_FMT,
    NOTE_FONT,
    SECTION_FONT,
    TITLE_FONT,
    TOP_RULE,
    TOTAL_FILL,
    as_input,
    formula,
    header,
    money_width,
    print_setup,
    put,
    widths,
)

PNL_COLS = Ns(
    "year",
    "months",
    "depreciation",
    "operating costs",
    "interest",
    "gain on disposal",
    "P&L cost",
    "cash out (Cash flow sheet)",
)


def write_pnl(ws: Worksheet, result: Result, names: Names, tr: Lang = EN) -> None:
    p, plan = result.project, result.planned()
    spans = [line.months for line in plan.pnl]  # the fiscal years' months (solver.ledger, costs.fiscal_years)
    years = len(spans)
    money = tr.money_fmt(p.currency, cents=True)
    L = get_column_letter
    put(
        ws,
        1,
        1,
        tr(
            "P&L view by fiscal year ({unit}): depreciation of bought servers vs operating costs",
            unit=tr.unit(p.currency),
        ),
        font=TITLE_FONT,
    )
    put(
        ws,
        2,
        1,
        tr(
            "Depreciation: straight line from delivery over depreciation_years on price + import duty + non-recoverable VAT + network fabric (IAS 16). "
            "Operating costs and interest come from the Cash flow sheet. Gain on disposal = resale value − book value at the horizon end."
        ),
        font=NOTE_FONT,
    )
    header(ws, 4, tr.each(*PNL_COLS), height=30)
    year_row0 = 5
    total_row = year_row0 + years
    # the depreciation block (one row per purchase) sits below the yearly table
    block0 = total_row + 5
    purchases = plan.purchases
    put(ws, block0 - 1, 1, tr("Depreciation of each purchase"), font=SECTION_FONT)
    dep_cols0 = 7  # first year column of the block
    header(
        ws,
        block0,
        tr.each("offer", "nodes", "capitalised cost", "life (years)", "per month", "delivery month")
        + [line.label for line in plan.pnl]
        + tr.each("book value at the end", "resale value", "gain on disposal"),
        height=30,
    )
    book_col, resale_col, gain_col = dep_cols0 + years, dep_cols0 + years + 1, dep_cols0 + years + 2
    for j, pur in enumerate(purchases):
        r = block0 + 1 + j
        o = result.offers[pur.offer_id]
        k = f"own:{o.id}" if pur.committed else f"buy:{o.id}"  # owned servers: nothing capitalised
        parts = [
            names.item_amount[key]
            for key in (f"{k}:capex", f"{k}:duty", f"{k}:vat", f"{k}:network")
            if key in names.item_amount
        ]
        book = plan.ledger.book(o.id)
        landed = book.capitalised  # price, duty, VAT and network of the nodes bought
        years_life = book.years
        per_month = dict(book.depreciation)  # the nodes bought, per month within the horizon
        monthly = landed / book.life_months
        put(ws, r, 1, o.id)
        put(ws, r, 2, pur.nodes, INT_FMT)
        formula(ws, r, 3, "=" + ("+".join(parts) or "0"), money, value=landed)
        as_input(put(ws, r, 4, years_life, "0.0#"))
        formula(ws, r, 5, f"=C{r}/ROUND(12*D{r},0)", money, value=monthly)
        put(ws, r, 6, book.delivery_month + 1, INT_FMT)
        depreciated = 0.0
        for y in range(years):
            months = range(*spans[y])
            count = sum(1 for m in months if m in per_month)
            amount = sum(per_month.get(m, 0.0) for m in months)
            depreciated += amount
            formula(ws, r, dep_cols0 + y, f"=E{r}*{count}" if count else "=0", money, value=amount)
        resale = book.resale
        formula(
            ws,
            r,
            book_col,
            f"=C{r}-SUM({L(dep_cols0)}{r}:{L(dep_cols0 + years - 1)}{r})",
            money,
            value=landed - depreciated,
        )
        sold = names.item_amount.get(f"{k}:residual")
        formula(ws, r, resale_col, f"=-{sold}" if sold else "=0", money, value=resale)
        formula(ws, r, gain_col, f"={L(resale_col)}{r}-{L(book_col)}{r}", money, value=resale - (landed - depreciated))
    last_block = block0 + max(len(purchases), 1)
    by_month = plan.ledger.by_month()
    cash_by_year = [sum(by_month[lo:hi]) for lo, hi in spans]
    for y, line in enumerate(plan.pnl):
        r = year_row0 + y
        months = range(*spans[y])
        put(ws, r, 1, line.label)
        put(ws, r, 2, f"{months.start + 1}–{months.stop}")
        col = L(dep_cols0 + y)
        formula(
            ws,
            r,
            3,
            f"=SUM({col}{block0 + 1}:{col}{last_block})" if purchases else "=0",
            money,
            value=line.depreciation,
        )
        operating, interest, cash = names.year_blocks[y]
        formula(ws, r, 4, f"=SUM({operating})", money, value=line.operating)
        formula(ws, r, 5, f"=SUM({interest})", money, value=line.interest)
        if y == years - 1 and purchases:
            formula(
                ws, r, 6, f"=SUM({L(gain_col)}{block0 + 1}:{L(gain_col)}{last_block})", money, value=line.disposal_gain
            )
        else:
            formula(ws, r, 6, "=0", money, value=0.0)
        formula(ws, r, 7, f"=C{r}+D{r}+E{r}-F{r}", money, font=BOLD, value=line.cost)
        formula(ws, r, 8, f"=SUM({cash})", money, value=cash_by_year[y])
    put(ws, total_row, 1, tr("total"), font=BOLD)
    totals = [
        sum(y.depreciation for y in plan.pnl),
        sum(y.operating for y in plan.pnl),
        sum(y.interest for y in plan.pnl),
        sum(y.disposal_gain for y in plan.pnl),
        sum(y.cost for y in plan.pnl),
        sum(cash_by_year),
    ]
    for col, value in zip(range(3, 9), totals, strict=True):
        c = formula(
            ws,
            total_row,
            col,
            f"=SUM({L(col)}{year_row0}:{L(col)}{total_row - 1})",
            money,
            font=BOLD,
            fill=TOTAL_FILL,
            value=value,
        )
        c.border = TOP_RULE
    put(ws, total_row + 1, 1, tr("check: P&L total − total cost of ownership (0 when the views agree)"))
    formula(ws, total_row + 1, 7, f"=G{total_row}-{names.grand_total}", money, value=totals[4] - plan.total_cost)
    # every money column wide enough for the largest amount on the sheet (no ### when printed)
    shown = [
        *totals,
        *cash_by_year,
        *(v for y in plan.pnl for v in (y.depreciation, y.operating, y.interest, y.disposal_gain, y.cost)),
        *(plan.ledger.book(x.offer_id).capitalised for x in purchases),
    ]
    w = max(16.0, money_width(shown, p.currency, cents=True))
    widths(ws, {"A": 30, "B": 10, **{L(c): w for c in range(3, 9)}})
    for y in range(years + 3):
        ws.column_dimensions[L(dep_cols0 + y)].width = max(ws.column_dimensions[L(dep_cols0 + y)].width or 0, w)
    print_setup(ws, "4:4")
