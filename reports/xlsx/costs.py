"""Costs sheet: every line item of the chosen plan as quantity × unit price FORMULAS.

Unit prices and quantities are input cells; category subtotals and the grand total are SUMs. The sheet
names what other sheets use: ``total_cost`` (the grand total), ``cat_<category>`` (each category's
total), ``cm_<key>`` (the cost-model parameters) and one name per line item's amount (``LineItem.key``
→ name, recorded in ``Names.item_amount``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procure.solver.result import Result

from openpyxl.styles import Alignment
from openpyxl.worksheet.worksheet import Worksheet

from procure.solver.costs import CATEGORIES

from ..console import CATEGORY_LABEL
from ..i18n import EN, Lang, Ns
from ..lines import LineItem, cost_parameters
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
    define,
    formula,
    header,
    money_width,
    name_for,
    print_setup,
    put,
    widths,
)

COST_COLS = Ns(
    "category",
    "line item",
    "offer",
    "nodes",
    "quantity",
    "quantity unit",
    "unit price",
    "price unit",
    "rate",
    "rate unit",
    "amount",
    "how it is computed",
)


def param_name(key: str) -> str:
    """The defined name of a cost-model parameter cell (``kwh`` → ``cm_kwh``)."""
    return f"cm_{key}"


def write_costs(ws: Worksheet, result: Result, items: list[LineItem], names: Names, tr: Lang = EN) -> None:
    p = result.project
    cur = p.currency
    put(ws, 1, 1, tr("Cost line items of the recommended plan ({unit})", unit=tr.unit(cur)), font=TITLE_FONT)
    params = cost_parameters(p, [result.offers[i.ref] for i in items if i.ref in result.offers], tr)
    param_cell = {key: param_name(key) for key, *_rest in params}
    param_value = {key: value for key, _label, value, *_rest in params}
    by_key = {it.key: it for it in items}
    field_of = {"D": "nodes", "E": "quantity", "G": "unit_price", "I": "rate"}
    header(ws, 3, tr.each(*COST_COLS), height=30)
    ws.freeze_panes = "A4"
    row = 4
    pos: dict[str, int] = {}
    subtotal: dict[str, str] = {}
    cat_total: dict[str, float] = {}
    money_c = tr.money_fmt(cur, cents=True)
    for cat in CATEGORIES:
        mine = [i for i in items if i.category == cat]
        if not mine:
            continue
        put(ws, row, 1, tr(CATEGORY_LABEL[cat]), font=SECTION_FONT)
        row += 1
        first = row
        for it in mine:
            pos[it.key] = row
            put(ws, row, 1, tr(cat))
            put(ws, row, 2, it.item)
            put(ws, row, 3, it.ref)
            cells = {
                "D": (it.nodes, INT_FMT),
                "E": (it.quantity, "#,##0.000"),
                "G": (it.unit_price, "#,##0.00##"),
                "I": (it.rate, "0.0###"),
            }
            for letter, (value, fmt) in cells.items():
                col = ord(letter) - 64
                link = it.links.get(letter)
                if link and link.startswith("@"):
                    formula(ws, row, col, f"={param_cell[link[1:]]}", fmt, value=param_value[link[1:]])
                elif link and link in pos:
                    formula(ws, row, col, f"=${letter}${pos[link]}", fmt, value=getattr(by_key[link], field_of[letter]))
                elif value is not None:
                    as_input(put(ws, row, col, value, fmt))
            for col, unit in ((6, it.quantity_unit), (8, it.price_unit), (10, it.rate_unit)):
                put(ws, row, col, unit, align=Alignment(indent=1))
            expr = it.expr.format(D=f"D{row}", E=f"E{row}", G=f"G{row}", I=f"I{row}", **param_cell)
            formula(ws, row, 11, "=" + expr, money_c, value=it.amount)
            put(ws, row, 12, it.how, font=NOTE_FONT, align=Alignment(indent=1))
            names.item_amount[it.key] = define(ws, name_for("item", it.key, len(names.item_amount)), "K", row)
            row += 1
        put(ws, row, 2, tr("total {category}", category=tr(CATEGORY_LABEL[cat])), font=BOLD)
        cat_total[cat] = sum(i.amount for i in mine)
        c = formula(
            ws, row, 11, f"=SUM(K{first}:K{row - 1})", money_c, font=BOLD, fill=TOTAL_FILL, value=cat_total[cat]
        )
        c.border = TOP_RULE
        subtotal[cat] = f"K{row}"
        row += 2
    # totals by category
    put(ws, row, 1, tr("Totals by category"), font=SECTION_FONT)
    row += 1
    first = row
    for cat in CATEGORIES:
        put(ws, row, 1, tr(cat))
        put(ws, row, 2, tr(CATEGORY_LABEL[cat]))
        formula(ws, row, 11, f"={subtotal[cat]}" if cat in subtotal else "=0", money_c, value=cat_total.get(cat, 0.0))
        names.category_total[cat] = define(ws, f"cat_{cat}", "K", row)
        row += 1
    put(ws, row, 1, tr("total"), font=BOLD)
    put(ws, row, 2, tr("total cost of ownership over {months} months", months=p.horizon_months), font=BOLD)
    c = formula(
        ws, row, 11, f"=SUM(K{first}:K{row - 1})", money_c, font=BOLD, fill=TOTAL_FILL, value=sum(cat_total.values())
    )
    c.border = TOP_RULE
    names.grand_total = define(ws, "total_cost", "K", row)
    row += 2
    # the cost-model parameters, which the energy lines above use by name
    put(ws, row, 1, tr("Cost-model parameters"), font=SECTION_FONT)
    first_param = row + 1
    for j, (key, label, value, unit, fmt) in enumerate(params):
        r = row + 1 + j
        put(ws, r, 2, label)
        if key == "dpm":
            formula(ws, r, 3, f"={param_cell['dpy']}/12", fmt, value=param_value["dpy"] / 12)
        else:
            as_input(put(ws, r, 3, value, fmt))
        put(ws, r, 4, unit, align=Alignment(indent=1))
        define(ws, param_cell[key], "C", r)
    put(
        ws,
        2,
        1,
        tr(
            "Blue-on-yellow cells are inputs: change a quantity or a price and every total, the cash flow and the summary "
            "follow. Energy lines use the cost-model parameters in rows {first}–{last}.",
            first=first_param,
            last=first_param + len(params) - 1,
        ),
        font=NOTE_FONT,
    )
    amounts = [it.amount for it in items] + list(cat_total.values()) + [sum(cat_total.values())]
    prices = [it.unit_price for it in items if it.unit_price is not None]
    widths(
        ws,
        {
            "A": 15,
            "B": 40,
            "C": 30,
            "D": 8,
            "E": 13,
            "F": 15,
            "G": max(13, len(f"{max(prices, default=0):,.2f}") + 3),
            "H": 16,
            # the rate column (format 0.0###): a fraction or a count of days, "356.2032" needs 8 characters
            "I": max(9, _rate_width(ws)),
            "J": 20,
            "K": max(16, money_width(amounts, cur, cents=True)),
            "L": 58,
        },
    )
    print_setup(ws, "3:3")


def _rate_width(ws: Worksheet) -> float:
    """Column I's width: its widest number as ``0.0###`` shows it, plus three characters of margin."""
    widest = 0
    for (cell,) in ws.iter_rows(min_col=9, max_col=9):
        v = cell.value
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            text = f"{v:.4f}".rstrip("0")
            widest = max(widest, len(text + "0" if text.endswith(".") else text))
    return widest + 3
