"""The analysis sheets (``procure analyze --out``, ``procure solve --out --analyze``).

    Sensitivity  the tornado: a native bar chart of each driver's low and high end against today's
                 optimum, and its table (differences and swing are formulas over the table's cells).
    Break-even   every losing offer and strategy: today's price, the break-even price, the change
                 (a formula), and why when no price wins.
    Uncertainty  per strategy P10/P50/P90 and the probability of being cheapest — PERCENTILE and
                 COUNTIF formulas over the Scenarios sheet — the regret of the decided plan, and a
                 histogram per strategy (COUNTIFS over the same columns).
    Scenarios    one row per Monte Carlo scenario, written from the analysis' DataFrame: the drivers'
                 values, each strategy's optimum, the cheapest strategy, the decided plan's cost, regret.

Every figure a formula can compute is a formula, so the sheets recalculate (and stay consistent) in
Excel and LibreOffice.
"""

from __future__ import annotations

import math

import numpy as np
from openpyxl import Workbook
from openpyxl.chart import BarChart, Reference, Series
from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.worksheet import Worksheet

from procure.analysis.montecarlo import distributions
from procure.models.analysis import DRIVERS
from procure.solver.costs import Objective
from procure.solver.enums import STRATEGIES

from ..analysis_console import DECISION_LABEL, mixing_text, reach_note, sampled_text
from ..console import STRATEGY_LABEL
from ..headline import mode_label, status_label
from ..i18n import EN, N_, Lang
from .style import (
    BOLD,
    NOTE_FONT,
    PCT_FMT,
    SIGNED_PCT_FMT,
    TITLE_FONT,
    WRAP,
    align_top,
    formula,
    header,
    money_width,
    print_setup,
    put,
    quote,
    signed_amount,
    signed_pct_formula,
    signed_pct_value,
    widths,
    zeroed_amount_formula,
)

BINS = 12
CHART_ROWS = 15  # rows between two histogram charts (6.5 cm high)
COLORS = {"hybrid": "00B050", "buy": "ED7D31", "rent": "2E75B6", "cloud": "7F7F7F"}


#: the analysis sheets, in the reader's language where they are created
ANALYSIS_SHEETS = (N_("Sensitivity"), N_("Break-even"), N_("Scenarios"), N_("Uncertainty"), N_("Analysis"))


def add_analysis_sheets(wb: Workbook, a, tr: Lang = EN) -> list[str]:
    """Append the sheets of the analyses that ran to ``wb``; returns their titles."""
    added = []
    if a.sensitivity is not None:
        write_sensitivity(wb.create_sheet(tr("Sensitivity")), a, tr)
        added.append(tr("Sensitivity"))
    if a.break_even is not None:
        write_break_even(wb.create_sheet(tr("Break-even")), a, tr)
        added.append(tr("Break-even"))
    if a.monte_carlo is not None:
        scen = wb.create_sheet(tr("Scenarios"))
        cols = write_scenarios(scen, a, tr)
        unc = wb.create_sheet(tr("Uncertainty"), index=wb.sheetnames.index(tr("Scenarios")))
        write_uncertainty(unc, a, cols, tr)
        added += [tr("Uncertainty"), tr("Scenarios")]
    return added


def build_analysis_workbook(a, tr: Lang = EN) -> Workbook:
    wb = Workbook()
    wb.remove(wb.active)
    add_analysis_sheets(wb, a, tr)
    if not wb.sheetnames:
        ws = wb.create_sheet(tr("Analysis"))
        put(ws, 1, 1, tr("no analysis was requested"))
    return wb


def analysis_workbook_bytes(a, tr: Lang = EN) -> bytes:
    """The analysis workbook as bytes, every formula with its cached result."""
    from .workbook import finish

    return finish(build_analysis_workbook(a, tr), tr)


def _blank(x):
    """A formula's cached result: the number, or the empty text the formula shows when there is none."""
    return "" if x is None else x


def _metric_name(a) -> str:
    return a.inputs.objective.upper()


# --- Sensitivity -----------------------------------------------------------------------------------


def _modes(modes, tr: Lang) -> str:
    """Modes joined as the analysis shows them (buy+cloud), or 'no plan'."""
    return "+".join(mode_label(x, tr) for x in modes) if modes is not None else tr("no plan")


def _decision(b, end: str, tr: Lang) -> str:
    """Whether today's decision stands at a tornado end, or the modes of the plan that wins there."""
    state = b.decision(end)
    if state != "changes":
        return tr(DECISION_LABEL[state])
    return tr("changes: {modes}", modes=_modes(b.optimum_modes(end), tr))


def write_sensitivity(ws: Worksheet, a, tr: Lang = EN) -> None:
    cur, m = a.currency, tr(_metric_name(a))
    money = tr.money_fmt(cur)
    put(ws, 1, 1, tr("Sensitivity — today's plan's {m} with one driver moved", m=m), font=TITLE_FONT)
    put(
        ws,
        2,
        1,
        tr(
            "Each driver is moved alone to its low and high value (analysis.sensitivity in the workload file) and today's "
            "plan is re-costed there, as decided (re-optimized where it no longer runs as decided): the bars. The free "
            "plan is also re-optimized at each end: the decision changes where it costs less than today's plan there, "
            "and the optimum columns show what wins. Where between today and the end: the Break-even sheet."
        ),
        font=NOTE_FONT,
    )
    put(ws, 4, 1, tr("today's optimum ({m})", m=m), font=BOLD)
    put(ws, 4, 5, a.inputs.metric(a.base.plan), money, font=BOLD)
    base_ref = "$E$4"
    put(ws, 4, 6, tr("modes: ") + " + ".join(mode_label(x, tr) for x in sorted(a.base.plan.modes())))
    hdr = 6
    # the after-tax NPV of today's plan at each end, where the project has a tax section: what a tax driver moves
    # on a pre-tax objective (``Bar.reach``); the note says what such a bar moves instead of the figure minimized
    taxed = any(b.after_tax(e) is not None for b in a.sensitivity for e in ("low", "high"))
    header(
        ws,
        hdr,
        tr.each("driver", "what it moves", "low", "high")
        + [tr("{m} at low", m=m), tr("{m} at high", m=m)]
        + tr.each("low − today", "high − today", "swing")
        + [tr("optimum {m} at low", m=m), tr("optimum {m} at high", m=m)]
        + tr.each("decision at low", "decision at high")
        + (tr.each("after-tax NPV at low", "after-tax NPV at high") if taxed else [])
        + [tr("note")],
        height=30,
    )
    note_col = 16 if taxed else 14
    r = hdr + 1
    for b in a.sensitivity:
        what, unit = DRIVERS[b.driver]
        put(ws, r, 1, b.driver)
        put(ws, r, 2, tr(what))
        fmt = "+0;-0;0" if unit == "days" else '+0.0"%/yr";-0.0"%/yr";0' if unit == "%/year" else "0.00×"
        put(ws, r, 3, b.low_value, fmt)
        put(ws, r, 4, b.high_value, fmt)
        lo, hi = b.measure("low"), b.measure("high")
        put(ws, r, 5, lo, money)
        put(ws, r, 6, hi, money)
        base = a.inputs.metric(a.base.plan)
        for col, src, x in ((7, "E", lo), (8, "F", hi)):
            expr = zeroed_amount_formula(f"{src}{r}-{base_ref}")
            formula(
                ws,
                r,
                col,
                f'=IF(ISNUMBER({src}{r}),{expr},"")',
                money,
                value="" if x is None else signed_amount(x - base),
            )
        formula(
            ws,
            r,
            9,
            f'=IF(AND(ISNUMBER(E{r}),ISNUMBER(F{r})),ABS(F{r}-E{r}),"")',
            money,
            value="" if lo is None or hi is None else abs(hi - lo),
        )
        for col, end in ((10, "low"), (11, "high")):
            put(ws, r, col, b.optimum(end), money)
        for col, end in ((12, "low"), (13, "high")):
            changes = b.changes(end)
            put(ws, r, col, _decision(b, end, tr), font=BOLD if changes else None)
        if taxed:
            put(ws, r, 14, b.after_tax("low"), money)
            put(ws, r, 15, b.after_tax("high"), money)
        note = reach_note(b, m, cur, tr) or (
            tr("nothing in these inputs for it to move") if b.reach == "nothing" else ""
        )
        if note:
            put(ws, r, note_col, note, font=NOTE_FONT)
        r += 1
    last = r - 1
    shown = [a.inputs.metric(a.base.plan)]
    for b in a.sensitivity:
        shown += [x for e in ("low", "high") for x in (b.measure(e), b.optimum(e), b.after_tax(e))]
    mw = money_width(shown, cur)  # the widest amount in bold, with Calibri's metrics, never ###
    widths(
        ws,
        {"A": 20, "B": 34, "C": 8, "D": 8}
        | {c: max(15, mw) for c in ("EFGHIJKNO" if taxed else "EFGHIJK")}
        | {"L": 22, "M": 22, get_column_letter(note_col): 60},
    )
    chart = BarChart()
    chart.type = "bar"  # horizontal bars: a tornado
    chart.grouping = "clustered"
    chart.overlap = 100
    chart.gapWidth = 40
    chart.title = tr("Tornado: change of today's plan's {m} against today ({unit})", m=m, unit=tr.unit(cur))
    for col, title, color in ((7, tr("low end"), "2E75B6"), (8, tr("high end"), "ED7D31")):
        s = Series(Reference(ws, min_col=col, min_row=hdr + 1, max_row=last), title=title)
        s.graphicalProperties.solidFill = color
        s.graphicalProperties.line.noFill = True
        chart.series.append(s)
    chart.set_categories(Reference(ws, min_col=1, min_row=hdr + 1, max_row=last))
    chart.x_axis.scaling.orientation = "maxMin"  # widest swing on top
    chart.x_axis.delete = False
    chart.y_axis.delete = False
    chart.y_axis.numFmt = tr.amount_fmt("#,##0")
    chart.y_axis.majorGridlines = None
    chart.x_axis.tickLblPos = "low"  # driver names at the left edge, clear of the bars
    chart.legend.position = "b"
    chart.height, chart.width = 9.5, 22.0
    ws.add_chart(chart, f"A{last + 3}")
    print_setup(ws, f"{hdr}:{hdr}")


# --- Break-even ------------------------------------------------------------------------------------


def write_break_even(ws: Worksheet, a, tr: Lang = EN) -> None:
    """One row per losing offer and strategy. An offer's today and break-even are its price as quoted, each
    cell formatted in the currency it is quoted in; when any offer is quoted in another currency than the
    report's, two more columns give both prices converted into it (× the fx rate, a formula)."""
    cur = a.currency
    converted = [b for b in a.break_even if b.kind == "offer" and b.converted(cur)]
    put(ws, 1, 1, tr("Break-even prices — at what price would a losing offer or strategy win?"), font=TITLE_FONT)
    put(
        ws,
        2,
        1,
        tr(
            "Searched on the offer's own price field, re-optimizing the whole plan at each step. At or below the break-even "
            "price the offer (or strategy) is in an optimal plan. Strategies: the price level of every offer of that mode "
            "(100% = today). Empty break-even: no price from 0 to today's wins; the reason says why."
        ),
        font=NOTE_FONT,
    )
    if converted:
        put(
            ws,
            3,
            1,
            tr(
                "Today and break-even are as quoted, in the offer's own currency; the last two columns convert them into {cur} "
                "at the project's fx_rates.",
                cur=tr.cur(cur),
            ),
            font=NOTE_FONT,
        )
    hdr = 4
    heads = tr.each(
        "offer / strategy",
        "mode",
        "vendor",
        "GPU × per node",
        "price field",
        "today",
        "break-even",
        "change",
        "re-solves",
        "reason",
    )
    if converted:
        heads += [
            tr("today in {cur}", cur=tr.cur(cur)),
            tr("break-even in {cur}", cur=tr.cur(cur)),
        ]
    header(ws, hdr, heads, height=30)
    r = hdr + 1
    for b in a.break_even:
        strat = b.kind in ("strategy", "driver")
        quoted = b.currency or cur
        fmt = (PCT_FMT if b.kind == "strategy" else "0.00##") if strat else tr.money_fmt(quoted, cents=True)
        put(ws, r, 1, tr(b.subject) if strat else b.subject, font=BOLD if strat else None)
        put(ws, r, 2, mode_label(b.mode, tr))
        put(ws, r, 3, b.vendor)
        put(ws, r, 4, b.label)
        put(ws, r, 5, b.field)
        put(ws, r, 6, b.current, fmt)
        put(ws, r, 7, b.break_even, fmt)
        formula(
            ws,
            r,
            8,
            f'=IF(ISNUMBER(G{r}),{signed_pct_formula(f"G{r}/F{r}-1")},"")',
            SIGNED_PCT_FMT,
            value="" if b.break_even is None else signed_pct_value(b.break_even / b.current - 1),
        )
        put(ws, r, 9, b.solves)
        put(ws, r, 10, tr.say(b.reason), align=WRAP)
        if converted and not strat:
            money = tr.money_fmt(cur, cents=True)
            formula(ws, r, 11, f"=F{r}*{b.fx!r}", money, value=b.reporting(b.current))
            formula(
                ws,
                r,
                12,
                f'=IF(ISNUMBER(G{r}),G{r}*{b.fx!r},"")',
                money,
                value="" if b.break_even is None else b.reporting(b.break_even),
            )
        # LibreOffice does not grow a row for wrapped text on its own: ~95 characters fit a line of column J
        ws.row_dimensions[r].height = 13.5 * max(1, math.ceil(len(b.reason) / 95))
        align_top(ws, r, 10)
        r += 1
    cols = {"A": 34, "B": 7, "C": 16, "D": 18, "E": 22, "F": 17, "G": 17, "H": 8, "I": 9, "J": 90}
    if converted:
        cols |= {"K": 18, "L": 18}
    widths(ws, cols)
    ws.freeze_panes = ws.cell(row=hdr + 1, column=2)
    print_setup(ws, f"{hdr}:{hdr}")


# --- Scenarios and Uncertainty ---------------------------------------------------------------------


def write_scenarios(ws: Worksheet, a, tr: Lang = EN) -> dict[str, str]:
    """One row per Monte Carlo scenario, from the DataFrame; returns column letters by content."""
    df = a.scenarios_frame()
    mc = df[df["analysis"] == "monte_carlo"]
    metric = "npv_cost" if Objective(a.inputs.objective).discounted else "total_cost"
    wide = mc.pivot(index="scenario", columns="strategy", values=metric)
    status = mc.pivot(index="scenario", columns="strategy", values="status")
    free = mc[mc["strategy"] == "hybrid"].set_index("scenario")
    cheapest = mc[mc["cheapest"]].set_index("scenario")["strategy"]
    drawn = distributions(a.base.project.analysis)
    drivers = [d for d in DRIVERS if d in drawn]
    cols = [
        "scenario",
        *drivers,
        *(f"{s} {_metric_name(a)}" for s in STRATEGIES),
        "cheapest",
        "decided plan re-costed",
        "regret",
        *(f"{s} status" for s in STRATEGIES),
        "note",
    ]
    shown = [
        tr("scenario"),
        *drivers,
        *(tr("{strategy} {m}", strategy=tr(STRATEGY_LABEL[s]), m=tr(_metric_name(a))) for s in STRATEGIES),
        *tr.each("cheapest", "decided plan re-costed", "regret"),
        *(tr("{strategy} status", strategy=tr(STRATEGY_LABEL[s])) for s in STRATEGIES),
        tr("note"),
    ]
    header(ws, 1, shown if not tr.en else cols, height=30)
    money = tr.money_fmt(a.currency)
    for i, scen in enumerate(free.index, start=2):
        row = free.loc[scen]
        put(ws, i, 1, scen)
        c = 2
        for d in drivers:
            put(ws, i, c, float(row[d]), "0.000" if DRIVERS[d][1] == "factor" else "0")
            c += 1
        for s in STRATEGIES:
            v = wide.loc[scen].get(s)
            put(ws, i, c, None if v is None or np.isnan(v) else float(v), money)
            c += 1
        put(ws, i, c, cheapest.get(scen))
        put(ws, i, c + 1, None if np.isnan(row["decided_cost"]) else float(row["decided_cost"]), money)
        put(ws, i, c + 2, None if row["regret"] is None or np.isnan(row["regret"]) else float(row["regret"]), money)
        c += 3
        for s in STRATEGIES:
            put(ws, i, c, status_label(status.loc[scen].get(s), tr))
            c += 1
        put(ws, i, c, row["detail"] or "")
    n_last = 1 + len(free.index)
    letter = {name: get_column_letter(k) for k, name in enumerate(cols, start=1)}
    out: dict[str, str] = {s: letter[f"{s} {_metric_name(a)}"] for s in STRATEGIES}
    out.update(
        cheapest=letter["cheapest"], regret=letter["regret"], decided=letter["decided plan re-costed"], last=str(n_last)
    )
    for k in range(1, len(cols) + 1):
        ws.column_dimensions[get_column_letter(k)].width = 13
    ws.freeze_panes = "B2"
    return out


def write_uncertainty(ws: Worksheet, a, cols: dict[str, str], tr: Lang = EN) -> None:
    s = a.summary
    cur, m = a.currency, tr(_metric_name(a))
    money = tr.money_fmt(cur)
    last = cols["last"]
    scenarios = quote(tr("Scenarios"))

    def rng(col: str) -> str:
        return f"{scenarios}!${col}$2:${col}${last}"

    if s.committed:
        title = tr(
            "Uncertainty — {n} scenarios drawn from analysis.uncertainty, the committed cost of today's plan of each strategy",
            n=s.scenarios,
        )
        note = tr(
            "P10/P50/P90: the committed plan's total not exceeded in 10/50/90% of the scenarios: today's plan signed and "
            "lived through each scenario, re-costed as decided where it runs, with the optimal recourse where it breaks. "
            "Cheapest in: the share of scenarios in which that strategy's committed plan is the cheapest."
        )
    else:
        title = tr(
            "Uncertainty — {n} scenarios drawn from analysis.uncertainty, every strategy re-optimized in each",
            n=s.scenarios,
        )
        note = tr(
            "P10/P50/P90: the optimal total not exceeded in 10/50/90% of the scenarios. Cheapest in: the share of scenarios "
            "in which that strategy is the cheapest. Regret: today's plan kept as decided — re-costed, not re-optimized — "
            "minus each scenario's optimum."
        )
    put(ws, 1, 1, title, font=TITLE_FONT)
    put(ws, 2, 1, note, font=NOTE_FONT)
    hdr = 4
    header(
        ws,
        hdr,
        [tr("strategy"), f"P10 {m}", f"P50 {m}", f"P90 {m}", tr("cheapest in"), tr("scenarios with a plan")],
        height=30,
    )
    for i, name in enumerate(STRATEGIES):
        r = hdr + 1 + i
        col = cols[name]
        put(ws, r, 1, tr(STRATEGY_LABEL.get(name, name)), font=BOLD if name == "hybrid" else None)
        v = s.strategies[name]
        for k, q in enumerate((0.1, 0.5, 0.9)):
            formula(
                ws,
                r,
                2 + k,
                f'=IF(COUNT({rng(col)})>0,PERCENTILE({rng(col)},{q}),"")',
                money,
                value=_blank(v[("p10", "p50", "p90")[k]]),
            )
        if name == "hybrid":  # a tie with a single mode counts for it: the note under the table gives the mixing share
            put(ws, r, 5, "—", align=Alignment(horizontal="right"))
        else:
            formula(
                ws,
                r,
                5,
                f'=IF(COUNT({rng(cols["hybrid"])})>0,COUNTIF({rng(cols["cheapest"])},"{name}")/COUNT({rng(cols["hybrid"])}),"")',
                PCT_FMT,
                value=_blank(v["win_probability"]),
            )
        formula(ws, r, 6, f"=COUNT({rng(col)})", value=v["plans"])
        if s.committed:
            put(ws, r, 7, _blank(v.get("runs_as_decided")), PCT_FMT)
            put(ws, r, 8, _blank(v.get("recourse_mean")), money)
            w = v.get("value_of_waiting")
            put(ws, r, 9, _blank(w["low"] if w else None), money)
            put(ws, r, 10, _blank(w["high"] if w else None), money)
    if s.committed:
        header(
            ws,
            hdr,
            tr.each(
                "runs as decided", "mean cost with recourse", "value of waiting, at least", "value of waiting, at most"
            ),
            col=7,
            height=30,
        )
    missing = tr("Value of waiting: {why}", why=tr(s.bounds_missing)) if s.committed and s.bounds_missing else ""
    for k, note in enumerate((mixing_text(s, tr), sampled_text(a, tr), missing)):  # how to read it
        if note:
            put(ws, hdr + len(STRATEGIES) + 1 + k, 1, note, font=NOTE_FONT)
    r = hdr + len(STRATEGIES) + 4
    put(ws, r, 1, tr("regret of today's plan, as decided"), font=BOLD)
    put(ws, r + 1, 1, tr("mean"))
    formula(
        ws,
        r + 1,
        2,
        f'=IF(COUNT({rng(cols["regret"])})>0,AVERAGE({rng(cols["regret"])}),"")',
        money,
        value=_blank(s.regret_mean),
    )
    put(ws, r + 2, 1, "P90")
    formula(
        ws,
        r + 2,
        2,
        f'=IF(COUNT({rng(cols["regret"])})>0,PERCENTILE({rng(cols["regret"])},0.9),"")',
        money,
        value=_blank(s.regret_p90),
    )
    put(ws, r + 3, 1, tr("scenarios with a regret figure"))
    formula(ws, r + 3, 2, f"=COUNT({rng(cols['regret'])})", value=s.regret_scenarios)
    put(ws, r + 4, 1, tr("cannot run as decided"))
    put(ws, r + 4, 2, s.decided_infeasible)
    put(ws, r + 5, 1, tr("scenarios without a free plan"))
    put(ws, r + 5, 2, s.failed)
    widths(ws, {"A": 30, "B": 16, "C": 16, "D": 16, "E": 15, "F": 15})
    for k in range(7, 17):
        ws.column_dimensions[get_column_letter(k)].width = 14
    # histograms (charts in a 2 × 2 grid below the table, their data below the charts): bins per strategy
    # from its own range, counts by COUNTIFS over the Scenarios sheet
    chart_row = r + 7
    top = chart_row + 2 * CHART_ROWS + 2
    put(ws, top - 1, 1, tr("histogram data"), font=BOLD)
    values = {
        name: [
            o.strategies[name].total_cost if a.inputs.objective == "tco" else o.strategies[name].npv_cost
            for o in a.monte_carlo
            if name in o.strategies and o.strategies[name].ok
        ]
        for name in STRATEGIES
    }
    for k, name in enumerate(STRATEGIES):
        vals = values[name]
        c0 = 1 + 4 * k
        put(ws, top, c0, tr(STRATEGY_LABEL.get(name, name)), font=BOLD)
        header(ws, top + 1, tr.each("from", "to", "scenarios"), col=c0)
        if not vals:
            put(ws, top + 2, c0, tr("no plan in any scenario"))
            continue
        lo, hi = min(vals), max(vals)
        if hi - lo < 1e-6 * max(1.0, abs(hi)):
            lo, hi = lo - 0.5, hi + 0.5
        edges = np.linspace(lo, hi, BINS + 1)
        col = cols[name]
        for b in range(BINS):
            rr = top + 2 + b
            put(ws, rr, c0, float(edges[b]), money)
            put(ws, rr, c0 + 1, float(edges[b + 1]), money)
            # the last bin includes its upper edge (the maximum)
            op = "<=" if b == BINS - 1 else "<"
            L, H = get_column_letter(c0), get_column_letter(c0 + 1)
            inside = [x for x in vals if x >= edges[b] and (x <= edges[b + 1] if b == BINS - 1 else x < edges[b + 1])]
            formula(ws, rr, c0 + 2, f'=COUNTIFS({rng(col)},">="&{L}{rr},{rng(col)},"{op}"&{H}{rr})', value=len(inside))
        chart = BarChart()
        chart.type = "col"
        chart.gapWidth = 10
        chart.title = tr(
            "{strategy}: optimal {m} ({unit})", strategy=tr(STRATEGY_LABEL.get(name, name)), m=m, unit=tr.unit(cur)
        )
        ser = Series(Reference(ws, min_col=c0 + 2, min_row=top + 2, max_row=top + 1 + BINS), title=tr("scenarios"))
        ser.graphicalProperties.solidFill = COLORS[name]
        chart.series.append(ser)
        chart.set_categories(Reference(ws, min_col=c0, min_row=top + 2, max_row=top + 1 + BINS))
        chart.x_axis.number_format = '#,##0,"k"'
        chart.x_axis.delete = False
        chart.y_axis.delete = False
        chart.y_axis.title = tr("scenarios")
        chart.legend = None
        chart.height, chart.width = 6.5, 12.5
        ws.add_chart(chart, f"{'A' if k % 2 == 0 else 'E'}{chart_row + CHART_ROWS * (k // 2)}")
    print_setup(ws)
