"""The Summary's comparison of the four strategies: one row per strategy (its cost as a live formula, its
status and note), the live recommendation sentence, the flag raised when an edit makes another strategy
cheaper, and the two charts (cost by strategy, cumulative cash out with buying's break-even month)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from openpyxl.chart import BarChart, LineChart, Reference, Series
from openpyxl.chart.label import DataLabelList
from openpyxl.styles import Alignment, Font

from procure.solver.costs import Objective

from ..headline import (
    OBJECTIVE_SHORT,
    STRATEGY_LABEL,
    Comparison,
    share_text,
    status_label,
)
from ..i18n import N_
from ..tables import strategy_note
from .style import (
    BAD_FONT,
    BOLD,
    CHOSEN_FILL,
    NOTE_FONT,
    SECTION_FONT,
    WRAP,
    align_top,
    fit_row,
    formula,
    header,
    put,
    signed_pct_formula,
    signed_pct_value,
)
from .summary_parts import NOTE_W, STOP, TOP_WRAP, Token, _excel_text, _live, _money_expr, _render, _Sheet

if TYPE_CHECKING:
    pass


#: the share the recommended plan saves against a strategy: no sign (the header says which way), "0%" for a tie
SAVING_PCT_FMT = "0%;-0%;0%"

#: the title of the Summary's bar chart, per objective
CHART_TITLE = {
    "tco": N_("Total cost of ownership by strategy ({unit})"),
    "npv": N_("Net present value by strategy ({unit})"),
    "after_tax_npv": N_("After-tax net present value by strategy ({unit})"),
}


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
            tr("recommended saves"),
            tr("% of its {short}", short=short),
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
    else:  # what the recommended plan saves against this strategy; 0 when it would show as nothing
        saved = cost - rec_cost
        formula(
            ws,
            row,
            3,
            f"=IF(ABS(B{row}-{base})<0.5,0,B{row}-{base})",
            fmt_d,
            fill=fill,
            value=0.0 if abs(saved) < 0.5 else saved,
        )
    # the same saving as a share of this strategy's cost: the base of "26% less TCO than rent only" above
    formula(
        ws,
        row,
        4,
        f"=IF(B{row}=0,0,{signed_pct_formula(f'(B{row}-{base})/B{row}')})",
        SAVING_PCT_FMT,
        fill=fill,
        value=signed_pct_value((cost - rec_cost) / cost) if cost else 0,
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
        less_tokens = _live(less_t, pct=[(False, _share_formula(f"($B${r}-{live[obj]})/$B${r}"))])
        if less_tokens and less_tokens[0] is not None and not less_tokens[0][0]:
            less_tokens.insert(0, (True, ""))  # the formula has always begun with the (empty) bound's literal
        less = _render(less_tokens)
        more = _render(_live(more_t, pct=[(False, _share_formula(f"({live[obj]}-$B${r})/$B${r}"))]))
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
    if Objective(sh.obj) is Objective.AFTER_TAX_NPV:
        cost_t = tr("{npv} after-tax net present value (minimized; {tco} total cost of ownership before tax)")
        head = _live(cost_t, npv=_money_expr(live["after_tax_npv"], cur, tr), tco=_money_expr(live["tco"], cur, tr))
        head_v = cost_t.format(npv=tr.money(now["after_tax_npv"], cur), tco=tr.money(now["tco"], cur))
    elif Objective(sh.obj).discounted:
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


def _signed(x: float) -> str:
    return f"{x:+,.0f}" if round(x) != 0 else "0"


def _signed_fmt(fmt: str) -> str:
    """A money format with an explicit + on positive amounts (the 'vs recommended' column)."""
    pos, *rest = fmt.split(";")
    return ";".join(["+" + pos, *rest])


def _share_formula(fraction: str) -> str:
    """``headline.share_text`` as a formula over the expression ``fraction``: whole percents from 1%, one
    decimal below it, "< 0.1%" below that — so the live sentence never says "0% less" of a real difference."""
    return (
        f'IF(ROUND(({fraction})*100,0)>=1,TEXT({fraction},"0%"),'
        f'IF(({fraction})>=0.00095,TEXT({fraction},"0.0%"),"< 0.1%"))'
    )


def _cmp_text(rec: float, cost: float, same_t: str, less_t: str, more_t: str) -> str:
    """What the live comparison formula shows for the plan as solved (the formula's cached value)."""
    if abs(cost - rec) <= 1e-6 * max(1.0, rec):
        return same_t
    if cost > rec:
        return less_t.format(pct=share_text((cost - rec) / cost))
    return more_t.format(pct=share_text((rec - cost) / cost))


def _input_names(inputs) -> list[str]:
    from pathlib import Path

    names = [Path(x).name for x in inputs][:1]
    return names or ["<workload.yaml>"]
