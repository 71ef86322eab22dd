"""Summary sheet: the recommendation, key figures, the four strategies side by side, TCO and
cumulative-cash-out charts with the break-even month of buying, and the deadlines.

Its figures are formulas over the names the Costs and Cash flow sheets define (``total_cost``,
``npv_cost``, ``cat_<category>``), so they follow an edited input."""

from __future__ import annotations

from typing import TYPE_CHECKING

from openpyxl.styles import Alignment, Font
from openpyxl.worksheet.pagebreak import Break
from openpyxl.worksheet.worksheet import Worksheet

from procure.solver import appraisal
from procure.solver.costs import CAPITALISED, CATEGORIES, Objective

from ..headline import (
    OBJECTIVE_SHORT,
    comparisons,
    npv_timing_note,
    objective_phrase,
    range_lines,
    set_aside_headline,
    set_aside_rows,
    spot_risk,
    stale_text,
    status_label,
    what_to_do,
)
from ..i18n import EN, N_, Lang
from ..tables import break_even, day_date
from .names import Names
from .style import (
    BAD_FONT,
    BOLD,
    NOTE_FONT,
    NUM_FMT,
    SECTION_FONT,
    TITLE_FONT,
    TOTAL_FILL,
    fit_row,
    formula,
    header,
    money_width,
    print_setup,
    put,
    widths,
)
from .summary_parts import NOTE_ALIGN, NOTE_W, TOP_WRAP, _live, _money_expr, _render, _Sheet
from .summary_strategies import (
    _bar_chart,
    _line_chart,
    _write_flag,
    _write_recommendation,
    _write_strategies,
)

if TYPE_CHECKING:
    from procure.solver.result import Result


#: the live recommendation sentence (cost and comparisons), and the warning that appears when an edit
#: makes an as-solved strategy cheaper than the recommended plan
REC_ROW, FLAG_ROW = 6, 7


def write_summary(ws: Worksheet, result: Result, names: Names, inputs=(), tr: Lang = EN) -> None:
    p, plan = result.project, result.plan
    if plan is None:
        raise ValueError("the Summary needs a plan")
    obj = result.objective
    sh = _Sheet(
        ws,
        result,
        plan,
        names,
        tr,
        p.currency,
        tr.money_fmt(p.currency),
        obj,
        str(Objective(obj).other),
        live={"tco": names.grand_total, "npv": names.npv, "after_tax_npv": names.after_tax_npv},
        now={"tco": plan.total_cost, "npv": _sheet_npv(result), "after_tax_npv": plan.after_tax_npv or 0.0},
    )
    row = _write_head(sh)
    peak_cash = plan.ledger.peak_cash_out()
    row = _write_key_figures(sh, row, peak_cash)
    row = _write_deadline_figure(sh, row)
    cmps = comparisons(result, tr)
    row, first_strat, solved_rows = _write_strategies(sh, row, cmps)
    last_strat = row - 1
    _write_recommendation(sh, REC_ROW, cmps, solved_rows)
    row = _write_flag(sh, row, FLAG_ROW, solved_rows, inputs)
    be_month, be_text = break_even(result, tr)
    if be_text:
        text = tr(
            "As solved: {text} (the strategies' own plans; edits on the Costs sheet change only the recommended plan — re-solve to update)",
            text=be_text,
        )
        put(ws, row, 1, text, font=BOLD, align=TOP_WRAP)
        ws.merge_cells(start_row=row, start_column=1, end_row=row, end_column=8)
        fit_row(ws, row, text, 34 + 16 + NOTE_W)
        row += 1
    # charts, side by side
    row += 1
    ws.add_chart(_bar_chart(sh, first_strat, last_strat), f"A{row}")
    if names.strategy_rows:
        ws.add_chart(_line_chart(sh, be_month), f"D{row}")
    row += 16
    row = _write_deadlines(sh, row)
    row = _write_set_aside(ws, result, row + 1, tr)
    ws.freeze_panes = "A4"
    bd = plan.breakdown
    money_vals = [
        plan.total_cost,
        sh.now["npv"],
        peak_cash,
        *bd.values(),
        *(c.cost or 0 for c in cmps),
        *(c.other or 0 for c in cmps),
        *p.budgets.values(),
    ]
    mw = max(16, money_width(money_vals, sh.cur))
    widths(
        ws,
        {
            "A": 34,
            "B": mw,
            "C": max(16, money_width(money_vals, sh.cur) + 2),
            "D": 15,
            "E": mw,
            "F": 21,
            "G": 12,
            "H": 40,
        },
    )
    print_setup(ws)


def _merge_note(ws: Worksheet, r: int, text: str) -> None:
    ws.merge_cells(start_row=r, start_column=3, end_row=r, end_column=8)
    fit_row(ws, r, text, NOTE_W)


def _write_head(sh: _Sheet) -> int:
    """The title, the solve in a sentence, what to do, the rows kept for the live recommendation and
    its edit warning, and the warnings; returns the next free row."""
    ws, result, tr, p = sh.ws, sh.result, sh.tr, sh.result.project
    put(ws, 1, 1, tr("{name} — GPU compute procurement", name=p.name), font=TITLE_FONT)
    info = result.hybrid.solve
    gap = tr(", gap {gap:.2%}", gap=info.gap) if info and info.gap is not None else ""
    sub = tr(
        "{n} workload(s), {offers} offers compared, horizon {months} months from {start}; solver status: {status} ({solver}{gap}); "
        "plan verified independently. Objective: {phrase}; strategies are compared on {obj}, {other} beside it.",
        n=result.n_jobs,
        offers=len(result.offers),
        months=p.horizon_months,
        start=tr.date(p.start_date),
        status=status_label(result.status, tr),
        solver=info.name if info else "",
        gap=gap,
        phrase=objective_phrase(result, tr),
        obj=tr(OBJECTIVE_SHORT[sh.obj]),
        other=tr(OBJECTIVE_SHORT[sh.other]),
    )
    put(ws, 2, 1, sub, font=NOTE_FONT, align=TOP_WRAP)
    ws.merge_cells(start_row=2, start_column=1, end_row=2, end_column=8)
    fit_row(ws, 2, sub, 34 + NOTE_W + 16)
    put(ws, 4, 1, tr("Recommendation"), font=SECTION_FONT)
    what = what_to_do(result, tr)
    put(ws, 5, 1, what + tr(":"), font=Font(bold=True, size=12), align=TOP_WRAP)
    ws.merge_cells(start_row=5, start_column=1, end_row=5, end_column=8)
    fit_row(ws, 5, what, (34 + 16 + NOTE_W) / 1.2, line_pt=16)
    for r in (REC_ROW, FLAG_ROW):  # filled in once the strategy rows exist
        ws.merge_cells(start_row=r, start_column=1, end_row=r, end_column=8)
    row = 8
    risk = spot_risk(result, tr)
    for text in (
        set_aside_headline(result, tr),
        risk.text if risk else "",
        stale_text(result, tr),
        npv_timing_note(result, tr),
    ):
        if text:
            put(ws, row, 1, text, font=BAD_FONT, align=TOP_WRAP)
            ws.merge_cells(start_row=row, start_column=1, end_row=row, end_column=8)
            fit_row(ws, row, text, 34 + 16 + NOTE_W)
            row += 1
    # the range: TCO P50 / P90 and the probability the plan runs as decided (analysis/plan_risk.py), the
    # deadline confidence, and a GPU whose MFU is an assumption, one line each
    for i, text in enumerate(range_lines(result, tr)):
        put(ws, row, 1, text, font=BOLD if i == 0 else NOTE_FONT, align=TOP_WRAP)
        ws.merge_cells(start_row=row, start_column=1, end_row=row, end_column=8)
        fit_row(ws, row, text, 34 + 16 + NOTE_W)
        row += 1
    return row + 1


FIGURE_LABEL = {
    "Total cost of ownership": N_("Total cost of ownership"),
    "Net present value of the costs": N_("Net present value of the costs"),
    "After-tax net present value": N_("After-tax net present value"),
    "Capex (purchases)": N_("Capex (purchases)"),
    "Residual value": N_("Residual value"),
    "Opex": N_("Opex"),
    "Peak cash out": N_("Peak cash out"),
    "Committed": N_("Committed"),
}


def _figures(sh: _Sheet, peak_cash: float) -> list[tuple[str, str, float, str, bool]]:
    """The key figures: (label, formula, value as solved, note, whether it is the minimized one)."""
    tr, names, p, bd, obj = sh.tr, sh.names, sh.result.project, sh.plan.breakdown, sh.obj
    opex = [c for c in CATEGORIES if c not in (*CAPITALISED, "residual_value")]
    minimized = tr(" (minimized)")
    figures = [
        (
            "Total cost of ownership",
            f"={names.grand_total}",
            sh.plan.total_cost,
            tr(
                "over {months} months, undiscounted; the sum of every line item on the Costs sheet",
                months=p.horizon_months,
            )
            + (minimized if obj == "tco" else ""),
            obj == "tco",
        ),
    ]
    if p.discount_rate > 0 or obj == "npv":
        figures.append(
            (
                "Net present value of the costs",
                f"={names.npv}",
                sh.now["npv"],
                tr("discounted at {rate:.1%} a year, end-of-month cash flows (Cash flow sheet)", rate=p.discount_rate)
                + (minimized if obj == "npv" else ""),
                obj == "npv",
            )
        )
    if p.tax is not None and names.after_tax_npv:
        figures.append(
            (
                "After-tax net present value",
                f"={names.after_tax_npv}",
                sh.now["after_tax_npv"],
                tr(
                    "after income tax ({rule}, {tax:.1%}), discounted at {rate:.1%} a year (Lease vs buy sheet)",
                    rule=p.tax.depreciation,
                    tax=p.tax.income_tax_rate,
                    rate=appraisal.rates(p).after_tax,
                )
                + (minimized if obj == "after_tax_npv" else ""),
                obj == "after_tax_npv",
            )
        )
    figures += [
        (
            "Capex (purchases)",
            f"={names.category_total['capex']}+{names.category_total['network']}",
            bd.get("capex", 0.0) + bd.get("network", 0.0),
            capex_payment_text(sh.result, tr),
            False,
        ),
        (
            "Residual value",
            f"={names.category_total['residual_value']}",
            bd.get("residual_value", 0.0),
            tr("resale value of the bought servers at the horizon end (negative = money back)"),
            False,
        ),
        (
            "Opex",
            "=" + "+".join(names.category_total[c] for c in opex),
            sum(bd.get(c, 0.0) for c in opex),
            tr(
                "maintenance, colocation, energy, rent, setup fees, cloud, fixed charges, storage, egress, staff and interest"
            ),
            False,
        ),
        (
            "Peak cash out",
            f"=MAX(0,MAX({names.cumulative}))",
            peak_cash,
            tr("the highest month-end total of money spent so far (Cash flow sheet): what has to be financed"),
            False,
        ),
    ]
    if sh.plan.committed_flows:  # owned servers and signed contracts: part of the total, not a decision
        figures.append(
            (
                "Committed",
                _committed_formula(sh),
                sh.plan.committed_cost,
                tr(
                    "of the total: owned servers' running costs and contracts already signed, owed whatever the plan does"
                ),
                False,
            )
        )
    return figures


def capex_payment_text(result: Result, tr: Lang = EN) -> str:
    """How the plan's purchases are paid: on delivery, or (a financed offer, its ledger's interest line) part
    down and the rest in monthly instalments."""
    plan = result.plan
    loans = [e for e in plan.ledger.entries if e.kind == "interest"] if plan is not None else []
    if not loans:
        return tr("server purchases and their network fabric, paid on delivery")
    bought = {e.offer for e in plan.ledger.entries if e.kind == "price"} if plan is not None else set()
    terms = "; ".join(
        tr(
            "{offer}: {down:.0%} down on delivery, the rest in {months} monthly instalments",
            offer=e.offer,
            down=e.down_payment or 0.0,
            months=e.term_months or 0,
        )
        for e in loans
    )
    rest = tr("; the other purchases paid on delivery") if bought - {e.offer for e in loans} else ""
    return tr("server purchases and their network fabric, financed: {terms}{rest}", terms=terms, rest=rest)


def _committed_formula(sh: _Sheet) -> str:
    """The sum of the Costs sheet's committed lines: the ledger's committed entries (owned servers' running
    costs, signed commitments)."""
    items = sh.names.item_amount
    cells = [items[e.key] for e in sh.plan.ledger.entries if e.committed and e.key in items]
    return "=" + "+".join(cells) if cells else f"={sh.plan.committed_cost:.2f}"


def _write_key_figures(sh: _Sheet, row: int, peak_cash: float) -> int:
    """The key figures, then each budget checked live against its figure; returns the next free row."""
    ws, tr = sh.ws, sh.tr
    put(ws, row, 1, tr("Key figures"), font=SECTION_FONT)
    row += 1
    header(ws, row, tr.each("figure", "amount", "note"))
    _merge_note(ws, row, "")
    row += 1
    fig_row: dict[str, int] = {}
    for label, f, value, note, strong in _figures(sh, peak_cash):
        put(ws, row, 1, tr(FIGURE_LABEL[label]), font=BOLD if strong else None, align=Alignment(vertical="top"))
        formula(ws, row, 2, f, sh.mfmt, font=BOLD if strong else None, fill=TOTAL_FILL if strong else None, value=value)
        put(ws, row, 3, note, font=NOTE_FONT, align=NOTE_ALIGN)
        _merge_note(ws, row, note)
        fig_row[label] = row
        row += 1
    return _write_budgets(sh, row, fig_row, peak_cash)


def _write_budgets(sh: _Sheet, row: int, fig_row: dict[str, int], peak_cash: float) -> int:
    """The caps the plan was solved under, checked live against the figures above; returns the next free row."""
    ws, tr, cur, plan = sh.ws, sh.tr, sh.cur, sh.plan
    # what each cap measures, as the solver and the verifier measure it: budget_capex caps the servers'
    # purchase prices alone (costs.capex), not their network fabric, which the Capex figure adds
    measure = {
        "tco": (f"B{fig_row['Total cost of ownership']}", plan.total_cost),
        "cash": (f"B{fig_row['Peak cash out']}", peak_cash),
        "capex": (sh.names.category_total["capex"], plan.breakdown.get("capex", 0.0)),
    }
    for kind, cap in sh.result.project.budgets.items():
        ref, value = measure[kind]
        put(ws, row, 1, f"budget_{kind}")
        put(ws, row, 2, cap, sh.mfmt)
        spare = _render(_live(tr("within: {amount} to spare"), amount=_money_expr(f"B{row}-{ref}", cur, tr)))
        over = _render(_live(tr("OVER by {amount}"), amount=_money_expr(f"{ref}-B{row}", cur, tr)))
        ok = f"IF({ref}<=B{row}*(1+1E-9),{spare},{over})"
        text = (
            tr("within: {amount} to spare", amount=tr.money(cap - value, cur))
            if value <= cap * (1 + 1e-9)
            else tr("OVER by {amount}", amount=tr.money(value - cap, cur))
        )
        formula(ws, row, 3, "=" + ok, value=text)
        ws.merge_cells(start_row=row, start_column=3, end_row=row, end_column=8)
        row += 1
    return row


def _deadline_verdict(late: int, aside: int, tr) -> str:
    """ "all met", "N LATE", or with jobs set aside "all planned jobs meet their deadlines; 1 set aside"."""
    if late:
        return tr("{n} LATE", n=late)
    if aside:
        return tr("all planned jobs meet their deadlines; {n} set aside", n=aside)
    return tr("all met")


def _write_deadline_figure(sh: _Sheet, row: int) -> int:
    """The key figures' deadline line: all met or how many late, and the tightest workload."""
    ws, tr, plan, p = sh.ws, sh.tr, sh.plan, sh.result.project
    late = [a for a in plan.assignments if a.slack_days < -1e-9]
    tight = min(plan.assignments, key=lambda a: a.slack_days)
    put(ws, row, 1, tr("Deadlines"), align=Alignment(vertical="top"))
    put(
        ws,
        row,
        2,
        _deadline_verdict(len(late), len(sh.result.set_aside), tr),
        font=None if not late else BAD_FONT,
        align=Alignment(horizontal="right", vertical="top"),
    )
    note = tr(
        "{n} workload(s); the tightest, {workload}, finishes {end} with {slack:.1f} days to spare (deadline {deadline}); each below",
        n=len(plan.assignments),
        workload=tight.workload,
        end=tr.date(day_date(p, tight.end_day)),
        slack=tight.slack_days,
        deadline=tr.date(day_date(p, tight.deadline_day)),
    )
    put(ws, row, 3, note, font=NOTE_FONT, align=NOTE_ALIGN)
    _merge_note(ws, row, note)
    return row + 2


def _write_deadlines(sh: _Sheet, row: int) -> int:
    """Each workload's finish, deadline and slack, on a page of their own; returns the next free row."""
    ws, tr, p = sh.ws, sh.tr, sh.result.project
    ws.row_breaks.append(Break(id=row - 1))
    put(ws, row, 1, tr("Deadlines"), font=SECTION_FONT)
    row += 1
    header(ws, row, tr.each("workload", "finishes", "deadline", "slack (days)", "on time"))
    row += 1
    for a in sh.plan.assignments:
        put(ws, row, 1, a.workload)
        put(ws, row, 2, day_date(p, a.end_day), tr.date_fmt)
        put(ws, row, 3, day_date(p, a.deadline_day), tr.date_fmt)
        put(ws, row, 4, a.slack_days, NUM_FMT)
        ok = a.slack_days >= -1e-9
        put(
            ws,
            row,
            5,
            tr("yes") if ok else tr("NO"),
            font=None if ok else BAD_FONT,
            align=Alignment(horizontal="right"),
        )
        row += 1
    return row


def _write_set_aside(ws: Worksheet, result: Result, row: int, tr: Lang) -> int:
    """The jobs a partial plan set aside, each with its cause and every reason; returns the next row."""
    rows = set_aside_rows(result, tr)
    if not rows:
        return row
    put(ws, row, 1, tr("Set aside: jobs not in this plan"), font=SECTION_FONT)
    row += 1
    header(ws, row, tr.each("workload", "cause", "reasons"))
    ws.merge_cells(start_row=row, start_column=3, end_row=row, end_column=8)
    row += 1
    for r in rows:
        text = "\n".join([r["summary"], *r["reasons"]])
        put(ws, row, 1, r["workload"], font=BAD_FONT, align=Alignment(vertical="top"))
        put(ws, row, 2, r["cause_text"], align=Alignment(wrap_text=True, vertical="top"))
        put(ws, row, 3, text, font=NOTE_FONT, align=Alignment(wrap_text=True, vertical="top"))
        ws.merge_cells(start_row=row, start_column=3, end_row=row, end_column=8)
        fit_row(ws, row, text, 16 + 15 + 16 + 21 + 12 + 40)
        row += 1
    return row


def _sheet_npv(result: Result) -> float:
    """The NPV as the Cash flow sheet computes it (spreadsheet NPV(): end-of-month flows): the ledger's."""
    return result.planned().ledger.present_value()
