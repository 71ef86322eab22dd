"""Summary sheet: the recommendation, key figures, the four strategies side by side, TCO and
cumulative-cash-out charts with the break-even month of buying, and the deadlines.

Its figures are formulas over the names the Costs and Cash flow sheets define (``total_cost``,
``npv_cost``, ``cat_<category>``), so they follow an edited input."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from openpyxl.chart import BarChart, LineChart, Reference, Series
from openpyxl.chart.label import DataLabelList
from openpyxl.styles import Alignment, Font
from openpyxl.worksheet.pagebreak import Break
from openpyxl.worksheet.worksheet import Worksheet

from procure.solver import costs
from procure.solver.costs import CAPITALISED, CATEGORIES, Objective

from ..headline import (
    OBJECTIVE_SHORT,
    STRATEGY_LABEL,
    Comparison,
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
from ..tables import break_even, cumulative, day_date, monthly_totals, strategy_note
from .names import Names
from .style import (
    BAD_FONT,
    BOLD,
    CHOSEN_FILL,
    NOTE_FONT,
    NUM_FMT,
    SECTION_FONT,
    TITLE_FONT,
    TOTAL_FILL,
    WRAP,
    align_top,
    fit_row,
    formula,
    header,
    money_width,
    print_setup,
    put,
    widths,
)

if TYPE_CHECKING:
    from procure.solver.plan import Plan
    from procure.solver.result import Result

#: the title of the Summary's bar chart, per objective
CHART_TITLE = {
    "tco": N_("Total cost of ownership by strategy ({unit})"),
    "npv": N_("Net present value by strategy ({unit})"),
}


def _excel_text(s: str) -> str:
    """Our own text as a formula string literal (quotes doubled)."""
    return '"' + s.replace('"', '""') + '"'


#: a formula's text expression as tokens: (True, words) a string literal, (False, text) an expression,
#: STOP the end of a part (a literal after it starts a string of its own)
Token = tuple[bool, str] | None
STOP: Token = None


def _live(template: str, **parts: list[Token]) -> list[Token]:
    """The tokens of a label whose ``{placeholders}`` are formula expressions (``"{pct} less TCO"`` →
    ``TEXT(…)&" less TCO"``); the label's own words are string literals, joined to a literal that ends
    the part before them."""
    out: list[Token] = []
    for i, x in enumerate(re.split(r"\{(\w+)\}", template)):
        if i % 2:
            out.extend(parts[x])
        elif x:
            last = out[-1] if out else STOP
            if last is not None and last[0]:
                out[-1] = (True, last[1] + x)
            else:
                out.append((True, x))
    return out


def _render(tokens: list[Token]) -> str:
    """The formula text of tokens (``""`` for none)."""
    return "&".join(_excel_text(t[1]) if t[0] else t[1] for t in tokens if t is not None) or '""'


def _money_expr(ref: str, cur: str, tr: Lang) -> list[Token]:
    """The tokens showing the amount ``ref`` as ``tr.money`` does: ``TEXT(x,"#,##0")&" USD"``, or in 万."""
    if tr.wan:
        return [(False, f'TEXT({ref}/10000,"#,##0.0")'), (True, " " + tr.unit(cur))]
    return [(False, f'TEXT({ref},"#,##0")'), (True, " " + tr.cur(cur))]


#: the width of columns C..H, where notes are merged
NOTE_W = 16 + 15 + 16 + 21 + 12 + 40
NOTE_ALIGN = Alignment(indent=1, vertical="top", wrap_text=True)
#: the live recommendation sentence (cost and comparisons), and the warning that appears when an edit
#: makes an as-solved strategy cheaper than the recommended plan
REC_ROW, FLAG_ROW = 6, 7
TOP_WRAP = Alignment(wrap_text=True, vertical="top")


@dataclass
class _Sheet:
    """What every section of the Summary writes with."""

    ws: Worksheet
    result: Result
    plan: Plan
    names: Names
    tr: Lang
    cur: str
    mfmt: str
    obj: str
    other: str
    live: dict[str, str]  # the recommended plan's costs by objective, following every edit
    now: dict[str, float]  # the same, as solved


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
        live={"tco": names.grand_total, "npv": names.npv},
        now={"tco": plan.total_cost, "npv": _sheet_npv(result)},
    )
    row = _write_head(sh)
    peak_cash = max([0.0, *cumulative(monthly_totals(plan, p.horizon_months))])
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
    discounted = Objective(obj).discounted
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
    if p.discount_rate > 0 or discounted:
        figures.append(
            (
                "Net present value of the costs",
                f"={names.npv}",
                sh.now["npv"],
                tr("discounted at {rate:.1%} a year, end-of-month cash flows (Cash flow sheet)", rate=p.discount_rate)
                + (minimized if discounted else ""),
                discounted,
            )
        )
    figures += [
        (
            "Capex (purchases)",
            f"={names.category_total['capex']}+{names.category_total['network']}",
            bd.get("capex", 0.0) + bd.get("network", 0.0),
            tr("server purchases and their network fabric, paid on delivery"),
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


def _committed_formula(sh: _Sheet) -> str:
    """The sum of the Costs sheet's committed lines: the owned servers' and the commitments' (their keys,
    reports/committed.py and tables.line_items)."""
    cells = [ref for key, ref in sh.names.item_amount.items() if key.startswith("own:")]
    for j, r in enumerate(sh.plan.rentals):
        if r.committed:
            cells += [sh.names.item_amount[k] for k in (f"rent{j}:rent", f"rent{j}:setup") if k in sh.names.item_amount]
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


def _write_strategies(sh: _Sheet, row: int, cmps: list[Comparison]) -> tuple[int, int, dict[str, int]]:
    """The strategies on the minimized objective; the recommended row is live, the others as solved.
    Returns the next free row, the first strategy row and the rows of the as-solved strategies."""
    ws, tr = sh.ws, sh.tr
    short, other_short = tr(OBJECTIVE_SHORT[sh.obj]), tr(OBJECTIVE_SHORT[sh.other])
    put(ws, row, 1, tr("Strategies: buy vs rent vs cloud, compared on {short}", short=short), font=SECTION_FONT)
    row += 1
    header(
        ws,
        row,
        [
            tr("strategy"),
            tr("{short} (minimized)", short=short),
            tr("vs recommended"),
            tr("vs rec. %"),
            other_short,
            tr("status"),
            tr("figures"),
            tr("why not possible / note"),
        ],
        height=30,
    )
    row += 1
    first_strat = row
    solved_rows: dict[str, int] = {}
    for c in cmps:
        rec = c.name == "hybrid"
        fill = CHOSEN_FILL if rec else None
        put(ws, row, 1, c.label, font=BOLD if rec else None, fill=fill)
        if c.status == "excluded" or c.cost is None:
            no_plan = status_label("infeasible", tr) if c.status == "infeasible" else tr("no plan")
            text, font = (tr("excluded by you"), NOTE_FONT) if c.status == "excluded" else (no_plan, BAD_FONT)
            put(ws, row, 2, text, font=font, align=Alignment(horizontal="right"))
            for col in (3, 4, 5):
                put(ws, row, col, "—", align=Alignment(horizontal="center"))
        else:
            if not rec:
                solved_rows[c.name] = row
            _write_strategy_cost(sh, row, c, c.cost, first_strat)
        _write_strategy_status(sh, row, c)
        row += 1
    return row, first_strat, solved_rows


def _write_strategy_cost(sh: _Sheet, row: int, c: Comparison, cost: float, hybrid_row: int) -> None:
    """A strategy's cost on the objective and beside it, and its difference to the recommended plan."""
    ws, tr, cur, mfmt, obj, other = sh.ws, sh.tr, sh.cur, sh.mfmt, sh.obj, sh.other
    rec = c.name == "hybrid"
    fill = CHOSEN_FILL if rec else None
    rec_cost = sh.now[obj]
    if rec:
        formula(ws, row, 2, f"={sh.live[obj]}", mfmt, font=BOLD, fill=fill, value=rec_cost)
        formula(ws, row, 5, f"={sh.live[other]}", mfmt, fill=fill, value=sh.now[other])
    else:
        put(ws, row, 2, cost, mfmt)
        put(ws, row, 5, c.other, mfmt)
    base = f"$B${hybrid_row}"
    bound = '"≤ "&' if c.bound else ""
    fmt_d = f'+#,##0 "{cur}";-#,##0 "{cur}";0' if tr.en and not tr.wan else _signed_fmt(tr.money_fmt(cur))
    if c.bound and tr.wan:
        formula(
            ws,
            row,
            3,
            f'={bound}TEXT((B{row}-{base})/10000,"+0.0;-0.0;0")&" {tr.unit(cur)}"',
            fill=fill,
            value=f"≤ {(cost - rec_cost) / 10_000:+.1f} {tr.unit(cur)}",
        )
    elif c.bound:
        formula(
            ws,
            row,
            3,
            f'={bound}TEXT(B{row}-{base},"+#,##0;-#,##0;0")&" {tr.cur(cur)}"',
            fill=fill,
            value=f"≤ {_signed(cost - rec_cost)} {tr.cur(cur)}",
        )
    else:
        formula(ws, row, 3, f"=B{row}-{base}", fmt_d, fill=fill, value=cost - rec_cost)
    formula(
        ws,
        row,
        4,
        f"=IF({base}=0,0,(B{row}-{base})/{base})",
        "+0%;-0%;0%",
        fill=fill,
        value=(cost - rec_cost) / rec_cost if rec_cost else 0,
    )


def _write_strategy_status(sh: _Sheet, row: int, c: Comparison) -> None:
    """A strategy's status, whether its figures are live or as solved, and its note."""
    ws, tr = sh.ws, sh.tr
    rec = c.name == "hybrid"
    fill = CHOSEN_FILL if rec else None
    status = tr("recommended") if rec else status_label(c.status, tr)
    if c.status == "feasible" and c.gap is not None:
        status += tr(", gap {gap:.1%}", gap=c.gap)
    put(
        ws,
        row,
        6,
        status,
        font=BOLD if rec else None,
        fill=fill,
        align=Alignment(indent=1, wrap_text=True, vertical="top"),
    )
    put(
        ws,
        row,
        7,
        tr("live") if rec else ("—" if c.cost is None else tr("as solved")),
        fill=fill,
        font=BOLD if rec else None,
    )
    note = strategy_note(sh.result.strategies[c.name], tr)
    if c.bound:
        note = (
            tr(
                "solve stopped at a {gap:.1%} gap: its best plan may be up to that much cheaper, so the difference is an upper bound",
                gap=c.gap,
            )
            if c.gap is not None
            else tr("solve stopped early: the difference is an upper bound")
        )
    put(ws, row, 8, note, font=NOTE_FONT, align=WRAP)
    if note:
        fit_row(ws, row, note, 40)
    align_top(ws, row, 8)


def _comparison_parts(sh: _Sheet, cmps: list[Comparison], solved_rows: dict[str, int]) -> tuple[list[Token], list[str]]:
    """The recommendation's comparisons with the other strategies: live formula tokens for the as-solved
    rows, and the text each shows for the plan as solved."""
    tr, live, obj = sh.tr, sh.live, sh.obj
    short = tr(OBJECTIVE_SHORT[obj])
    parts: list[Token] = []
    cached = []
    for c in cmps:
        if c.name == "hybrid" or c.text == "":
            continue
        if parts:
            parts.append((True, tr(", ")))
        if c.name not in solved_rows or c.cost is None:  # a solved row always has a cost
            parts += [(True, c.text), STOP]
            cached.append(c.text)
            continue
        r = solved_rows[c.name]
        lab = c.label
        same = _excel_text(tr("same {short} as {label}", short=short, label=lab))
        less_t = (
            tr("at most {pct} less {short} than {label}") if c.bound else tr("{pct} less {short} than {label}")
        ).format(pct="{pct}", short=short, label=lab)
        more_t = tr("{pct} more {short} than {label} as solved").format(pct="{pct}", short=short, label=lab)
        less_tokens = _live(less_t, pct=[(False, f'TEXT(($B${r}-{live[obj]})/$B${r},"0%")')])
        if less_tokens and less_tokens[0] is not None and not less_tokens[0][0]:
            less_tokens.insert(0, (True, ""))  # the formula has always begun with the (empty) bound's literal
        less = _render(less_tokens)
        more = _render(_live(more_t, pct=[(False, f'TEXT(({live[obj]}-$B${r})/{live[obj]},"0%")')]))
        parts += [
            (
                False,
                f"IF(ABS($B${r}-{live[obj]})<=1E-6*MAX(1,{live[obj]}),{same},IF($B${r}>{live[obj]},{less},{more}))",
            ),
            STOP,
        ]
        cached.append(
            _cmp_text(
                sh.now[obj],
                c.cost,
                same_t=tr("same {short} as {label}", short=short, label=lab),
                less_t=less_t,
                more_t=more_t,
            )
        )
    return parts, cached


def _write_recommendation(sh: _Sheet, rec_row: int, cmps: list[Comparison], solved_rows: dict[str, int]) -> None:
    """The live recommendation sentence: cost on the objective and the comparison with the as-solved strategies."""
    ws, tr, cur, live, now = sh.ws, sh.tr, sh.cur, sh.live, sh.now
    parts, cached = _comparison_parts(sh, cmps, solved_rows)
    if Objective(sh.obj).discounted:
        cost_t = tr("{npv} net present value (minimized; {tco} total cost of ownership)")
        head = _live(cost_t, npv=_money_expr(live["npv"], cur, tr), tco=_money_expr(live["tco"], cur, tr))
        head_v = cost_t.format(npv=tr.money(now["npv"], cur), tco=tr.money(now["tco"], cur))
    else:
        cost_t = tr("{tco} total cost of ownership (minimized)")
        head = _live(cost_t, tco=_money_expr(live["tco"], cur, tr))
        head_v = cost_t.format(tco=tr.money(now["tco"], cur))
    tail_t = tr(" ({list})")
    tail = _live(tail_t, list=parts) if parts else [STOP]
    sentence_t = tr("{cost} over {months} months{tail}.").format(
        cost="{cost}", months=sh.result.project.horizon_months, tail="{tail}"
    )
    sentence = "=" + _render(_live(sentence_t, cost=head, tail=tail))
    value = sentence_t.format(cost=head_v, tail=tail_t.format(list=tr(", ").join(cached)) if cached else "")
    formula(ws, rec_row, 1, sentence, font=Font(bold=True, size=12), value=value)
    ws.cell(rec_row, 1).alignment = Alignment(wrap_text=True, vertical="top")
    fit_row(ws, rec_row, value, (34 + 16 + NOTE_W) / 1.2, line_pt=16)


def _write_flag(sh: _Sheet, row: int, flag_row: int, solved_rows: dict[str, int], inputs) -> int:
    """The flag: an edit that makes an as-solved strategy cheaper than the recommended plan, with the
    command that re-solves; returns the next free row."""
    if not solved_rows:
        return row
    ws, tr = sh.ws, sh.tr
    cmd = "procure solve " + " ".join(_input_names(inputs)) + " --out <workbook.xlsx>"
    cheapest = "MIN(" + ",".join(f"$B${r}" for r in solved_rows.values()) + ")"
    put(ws, row, 1, tr("Re-solve after editing inputs: {cmd}", cmd=cmd), font=NOTE_FONT, align=TOP_WRAP)
    ws.merge_cells(start_row=row, start_column=1, end_row=row, end_column=8)
    cmd_cell = f"$A${row}"
    warn = tr(
        "After your edits the recommended plan costs more than a strategy as solved: the figures marked as solved do not follow edits. "
    )
    flag = f'=IF({sh.live[sh.obj]}>{cheapest}*(1+1E-9),{_excel_text(warn)}&{cmd_cell},"")'
    formula(ws, flag_row, 1, flag, font=Font(bold=True, color="C00000"), value="")
    ws.cell(flag_row, 1).alignment = Alignment(wrap_text=True, vertical="top")
    return row + 1


CHART_H = 7.6


def _bar_chart(sh: _Sheet, first_strat: int, last_strat: int) -> BarChart:
    """The strategies' cost on the objective, one bar each."""
    tr = sh.tr
    bar = BarChart()
    bar.type = "col"
    bar.title = tr(CHART_TITLE[sh.obj], unit=tr.unit(sh.cur))
    bar.y_axis.numFmt = tr.amount_fmt("#,##0")
    bar.y_axis.scaling.min = 0
    bar.legend = None
    bar.add_data(Reference(sh.ws, min_col=2, min_row=first_strat, max_row=last_strat), titles_from_data=False)
    bar.set_categories(Reference(sh.ws, min_col=1, min_row=first_strat, max_row=last_strat))
    bar.series[0].graphicalProperties.solidFill = "2E75B6"
    bar.dataLabels = DataLabelList()
    bar.dataLabels.showVal = True
    for flag in ("showSerName", "showCatName", "showLegendKey", "showPercent", "showLeaderLines"):
        setattr(bar.dataLabels, flag, False)
    bar.dataLabels.numFmt = tr.amount_fmt("#,##0")
    bar.height, bar.width = CHART_H, 12.0
    bar.x_axis.delete = False
    bar.y_axis.delete = False
    return bar


def _line_chart(sh: _Sheet, be_month: int | None) -> LineChart:
    """Each strategy's cumulative cash out (the Cash flow sheet's rows), and buying's break-even month."""
    tr, names = sh.tr, sh.names
    cf = sh.ws.parent[names.sheet.get("Cash flow", "Cash flow")]
    n = sh.result.project.horizon_months
    line = LineChart()
    line.title = tr("Cumulative cash out by strategy ({unit})", unit=tr.unit(sh.cur))
    line.y_axis.numFmt = tr.amount_fmt("#,##0")
    line.x_axis.number_format = tr.chart_month_fmt
    line.x_axis.tickLblSkip = max(1, math.ceil(n / 8))
    line.x_axis.tickMarkSkip = max(1, math.ceil(n / 8))
    colors = {"hybrid": "00B050", "buy": "ED7D31", "rent": "2E75B6", "cloud": "7F7F7F"}
    c0, c1 = names.first_month_col, names.first_month_col + n - 1
    for name, r in names.strategy_rows.items():
        label = tr("hybrid (recommended)") if name == "hybrid" else tr(STRATEGY_LABEL[name])
        ser = Series(Reference(cf, min_col=c0, max_col=c1, min_row=r), title=label)
        ser.graphicalProperties.line.solidFill = colors[name]
        ser.graphicalProperties.line.width = 38100 if name == "hybrid" else 22225
        if name == "hybrid":
            ser.graphicalProperties.line.dashStyle = "sysDash"
        ser.smooth = False
        ser.marker.symbol = "none"
        line.series.append(ser)
    if names.break_even_row is not None and be_month is not None:  # both come from break_even(result)
        ser = Series(
            Reference(cf, min_col=c0, max_col=c1, min_row=names.break_even_row),
            title=tr("break-even, month {m}", m=be_month + 1),
        )
        ser.marker.symbol = "diamond"
        ser.marker.size = 12
        ser.marker.graphicalProperties.solidFill = "C00000"
        ser.marker.graphicalProperties.line.solidFill = "C00000"
        ser.graphicalProperties.line.noFill = True
        line.series.append(ser)
    line.set_categories(Reference(cf, min_col=c0, max_col=c1, min_row=names.month_header_row))
    line.legend.position = "r"
    line.height, line.width = CHART_H, 18.5
    line.x_axis.delete = False
    line.y_axis.delete = False
    return line


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


def _signed(x: float) -> str:
    return f"{x:+,.0f}" if round(x) != 0 else "0"


def _signed_fmt(fmt: str) -> str:
    """A money format with an explicit + on positive amounts (the 'vs recommended' column)."""
    pos, *rest = fmt.split(";")
    return ";".join(["+" + pos, *rest])


def _cmp_text(rec: float, cost: float, same_t: str, less_t: str, more_t: str) -> str:
    """What the live comparison formula shows for the plan as solved (the formula's cached value)."""
    if abs(cost - rec) <= 1e-6 * max(1.0, rec):
        return same_t
    if cost > rec:
        return less_t.format(pct=f"{(cost - rec) / cost:.0%}")
    return more_t.format(pct=f"{(rec - cost) / rec:.0%}")


def _sheet_npv(result: Result) -> float:
    """The NPV as the Cash flow sheet computes it (spreadsheet NPV(): end-of-month flows)."""
    p = result.project
    return costs.present_value_of_months(monthly_totals(result.plan, p.horizon_months), p)


def _input_names(inputs) -> list[str]:
    from pathlib import Path

    names = [Path(x).name for x in inputs][:1]
    return names or ["<workload.yaml>"]
