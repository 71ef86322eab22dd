"""Format-neutral tables of a result: the rows that the console, the CSV files and the Excel workbook share.

Nothing here knows a file format: each function returns plain rows (dicts or lists of values, dates as
``datetime.date``, money unrounded). ``reports.csv_report`` writes them as CSV, ``reports.xlsx`` lays them
out as sheets. Every amount is read from the result objects and the plan's ledger (``solver.ledger``); the
cost lines are ``reports.lines``, the Assumptions sheet's sections ``reports.assumption_rows``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procure.solver.result import Result

import datetime as dt
import math
from typing import Any

from procure.common.text import FORMULA_PREFIXES as _FORMULA_PREFIXES
from procure.models import units
from procure.solver.costs import CATEGORIES
from procure.solver.options import cheapest_first

from .headline import STRATEGY_LABEL, comparisons, mode_label, status_label
from .i18n import EN, Lang

#: Text that a spreadsheet would read as a formula (or that CSV injection abuses): written once, in common.text.
FORMULA_PREFIXES = _FORMULA_PREFIXES


def month_start(project, m: int) -> dt.date:
    """The first day of project month ``m`` in the project: the 1st of its calendar month (month 0: the start
    date, models.calendar)."""
    cal = project.calendar
    return cal.date(cal.bucket_start(m))


def billing_month(project, m: int) -> dt.date:
    """The 1st of project month ``m``'s calendar month (before the start date for a partial month 0)."""
    return project.calendar.month_first(m)


def day_date(project, day: float) -> dt.date:
    """The calendar date of project day ``day``."""
    return units.day_date(project.start_date, day)


def rounded(x: float | None, nd: int = 2) -> float | None:
    """``x`` rounded for a report (None stays None)."""
    return None if x is None else round(float(x), nd)


def strategy_quality(s, tr: Lang = EN) -> str:
    """How sure a strategy's cost is: "" when proven optimal, else the proven gap, "heuristic" for the
    greedy plan, and the bound as "≥ cost" where only that is known."""
    info = s.solve
    if s.plan is None or info is None:
        if info is not None and info.bound is not None and s.status == "no_solution":
            return tr("no plan in time; its optimum is ≥ {bound}", bound=tr.number(info.bound))
        return ""
    if info.heuristic:
        return tr("heuristic, gap unknown") if info.gap is None else tr("heuristic, gap ≤ {gap:.1%}", gap=info.gap)
    if s.status == "optimal" or info.gap is None or info.gap <= 1e-6:
        return ""
    tco_objective = info.objective is not None and abs(info.objective - s.plan.total_cost) <= 0.01 + 1e-6 * abs(
        s.plan.total_cost
    )
    bound = (
        tr("; its optimum is ≥ {bound}", bound=tr.number(s.plan.total_cost * (1 - info.gap))) if tco_objective else ""
    )
    return tr("stopped at its time share: proven gap {gap:.1%}{bound}", gap=info.gap, bound=bound)


def strategy_note(s, tr: Lang = EN) -> str:
    if s.status == "excluded":
        return tr("excluded by you (allowed_modes)")
    if s.plan is not None:
        # a gap already shows in the status; a heuristic plan says so here
        return strategy_quality(s, tr) if s.solve is not None and s.solve.heuristic else ""
    if s.status == "no_solution":
        return tr("no plan found within the time limit")
    if not s.reasons:
        return status_label(s.status, tr)
    w, rs = next(iter(s.reasons.items()))
    return f"{w}: {tr.say(rs[0])}" if rs else w


def strategy_rows(result: Result, tr: Lang = EN) -> list[dict]:
    """The strategies side by side, compared on the minimized objective (``cost``) with the other
    beside it; differences are against the recommended (hybrid) plan; ``bound`` 'at most' where a
    comparator's solve stopped at a gap."""
    rows = []
    for c in comparisons(result, tr):
        s = result.strategies[c.name]
        rows.append(
            {
                "strategy": c.label,
                "name": c.name,
                "status": str(s.status),
                "objective": result.objective,
                "cost": c.cost,
                "other_cost": c.other,
                "total_cost": s.plan.total_cost if s.plan else None,
                "npv_cost": s.plan.npv_cost if s.plan else None,
                "vs_recommended": c.diff,
                # what the recommended plan saves, as a share of this strategy's cost: the base of "26% less
                # than rent only" in the recommendation, the console's and the Summary's column
                "recommended_saves_pct": c.pct if c.diff is not None else None,
                "bound": c.bound,
                "gap": c.gap,
                "modes": ", ".join(sorted(s.plan.modes())) if s.plan else "",
                "note": strategy_note(s, tr),
            }
        )
    return rows


def break_even(result: Result, tr: Lang = EN) -> tuple[int | None, str]:
    """The month from which buy-only's cumulative cash out stays at or below the best non-buy strategy's
    (as solved: the strategies' plans, not an edited workbook)."""
    st = result.strategies
    n = result.project.horizon_months
    buy = st.get("buy")
    others = [st[k] for k in ("rent", "cloud") if k in st and st[k].plan is not None]
    if buy is None:
        return None, ""
    if buy.status == "excluded":
        return None, tr("Buying is excluded by you (allowed_modes), so there is no break-even month for buying.")
    if buy.plan is None:
        return None, tr(
            "Buying alone cannot run every workload (see the strategies above), so there is no break-even month for buying."
        )
    if not others:
        if all(st[k].status == "excluded" for k in ("rent", "cloud") if k in st):
            return None, tr(
                "Renting and the cloud are excluded by you (allowed_modes), so buying has nothing to break even with."
            )
        return None, tr(
            "Neither renting nor the cloud alone can run the workloads, so buying has nothing to break even with."
        )
    best = min(others, key=lambda s: s.plan.total_cost if s.plan is not None else math.inf)  # others all have plans
    label = tr(STRATEGY_LABEL[best.name])
    assert buy.plan is not None and best.plan is not None  # both have plans (checked above)
    cb = buy.plan.ledger.cumulative()
    co = best.plan.ledger.cumulative()
    tol = 0.005
    cur = result.project.currency
    if cb[-1] > co[-1] + tol:
        return None, tr(
            "No break-even: buying never becomes cheaper than {label} within the {n}-month horizon; "
            "by its end buy only has cost {amount} more.",
            label=label,
            n=n,
            amount=tr.money(cb[-1] - co[-1], cur),
        )
    m = n - 1
    while m > 0 and cb[m - 1] <= co[m - 1] + tol:
        m -= 1
    when = tr.month(month_start(result.project, m))
    tail = tr(" (only once the servers' residual value is counted at the horizon end)") if m == n - 1 and n > 1 else ""
    return m, tr(
        "Break-even: from month {m} ({when}) on, buying has cost less in total than {label}{tail}; by the horizon end it saves {amount}.",
        m=m + 1,
        when=when,
        label=label,
        tail=tail,
        amount=tr.money(co[-1] - cb[-1], cur),
    )


def _mfu_source(w, gpu, tr: Lang = EN) -> str:
    """Where a chosen shape's MFU comes from: the workload's override, or the sizing constants it is built of."""
    if w.mfu is not None:
        return tr("workload mfu")
    from procure.solver.sizing.compute import mfu_basis

    return tr("{constants} (Sizing constants below)", constants=mfu_basis(gpu, w.method, w.model.is_moe))


def _strategy_label(strategy) -> str:
    return strategy.label() if strategy is not None and hasattr(strategy, "label") else ""


def _strategy_message(strategy):
    """The parallel strategy as a sentence the workbook renders in the reader's language (None: none)."""
    return strategy.message() if strategy is not None and hasattr(strategy, "message") else None


def strategy_text(row: dict, tr: Lang) -> str:
    """A plan or option row's parallel strategy in the reader's language."""
    m = row.get("strategy_message")
    return tr.say(m) if m is not None else row.get("strategy", "")


def plan_rows(result: Result) -> list[dict]:
    p, plan = result.project, result.plan
    rows = []
    for a in plan.assignments if plan else []:
        rows.append(
            {
                "workload": a.workload,
                "offer": a.offer_id,
                "vendor": a.vendor,
                "mode": a.mode,
                "gpu": a.gpu,
                "gpus": a.gpus,
                "nodes": a.nodes,
                "strategy": _strategy_label(a.strategy),
                "strategy_message": _strategy_message(a.strategy),
                "start": day_date(p, a.start_day),
                "end": day_date(p, a.end_day),
                "deadline": day_date(p, a.deadline_day),
                "slack_days": a.slack_days,
                "start_day": a.start_day,
                "end_day": a.end_day,
                "deadline_day": a.deadline_day,
                "wall_hours": a.hours,
                "gpu_hours": a.gpu_hours,
                "cost": a.cost,
            }
        )
    return rows


def held_window(result: Result, offer_id: str) -> tuple[float, float]:
    """(first day, last day) a purchase's nodes are held: owned servers their ``from``–``until`` window
    (solver.holdings.owned_window), bought ones from delivery to the horizon end."""
    from procure.solver import holdings

    window = holdings.owned_window(result.project, offer_id)
    if window is not None:
        return window
    return float(result.offers[offer_id].lead_time_days), result.planned().ledger.end_day


def capacity_rows(result: Result, tr: Lang = EN) -> list[dict]:
    p, plan = result.project, result.plan
    rows = []
    for pur in plan.purchases if plan else []:
        o = result.offers[pur.offer_id]
        lo, hi = held_window(result, pur.offer_id)
        rows.append(
            {
                "what": "buy",
                "owned": pur.committed,
                "offer": o.id,
                "vendor": o.vendor,
                "nodes": pur.nodes,
                "from_day": lo,
                "to_day": hi,
                "from": day_date(p, lo),
                "months": p.calendar.months_held(lo, hi) if hi > lo else 0.0,
                "cost": pur.cost,
            }
        )
    for r in plan.rentals if plan else []:
        o = result.offers[r.offer_id]
        label = (
            tr("reserved {n}-month term", n=r.months)
            if o.mode == "cloud"
            else (tr("rent, {n}+ month term", n=r.term_months) if r.term_months is not None else mode_label("rent", tr))
        )
        rows.append(
            {
                "what": "rent",
                "label": label,
                "offer": o.id,
                "vendor": o.vendor,
                "nodes": r.nodes,
                "from_day": r.start_day,
                "to_day": r.end_day,
                "from": day_date(p, r.start_day),
                "months": r.months,
                "cost": r.cost,
            }
        )
    return rows


def option_rows(result: Result) -> list[dict]:
    """One row per deadline-feasible (workload, offer, nodes), with the difference to the chosen shape."""
    chosen = {a.workload: (a.offer_id, a.nodes) for a in result.plan.assignments} if result.plan else {}
    rows = []
    for w in result.project.workloads:
        opts = cheapest_first(result.every_option.get(w.name, []))
        pick = chosen.get(w.name)
        base = next((o.standalone_cost for o in opts if (o.offer_id, o.nodes) == pick), None)
        for o in opts:
            c = o.candidate
            rows.append(
                {
                    "workload": w.name,
                    "offer": o.offer_id,
                    "vendor": o.offer.vendor,
                    "mode": o.mode,
                    "gpu": o.offer.gpu,
                    "nodes": o.nodes,
                    "gpus": o.gpus,
                    "strategy": _strategy_label(c.strategy if c else None),
                    "strategy_message": _strategy_message(c.strategy if c else None),
                    "days": o.wall_days,
                    "hours": o.hours,
                    "gpu_hours": o.gpus * o.hours,
                    "efficiency": c.efficiency if c else None,
                    "standalone_cost": o.standalone_cost,
                    "vs_chosen": o.standalone_cost - base if base is not None else None,
                    "chosen": (o.offer_id, o.nodes) == pick,
                }
            )
    return rows


def explained_reason(e, tr: Lang = EN) -> str:
    """An explanation's reason in the reader's language: its sentence, or its rejection's reasons."""
    m = getattr(e, "message", None)
    if m is None:
        return e.reason
    return tr.says(m) if isinstance(m, tuple) else tr.say(m)


def explanation_row(e, currency: str = "", tr: Lang = EN) -> dict:
    """One ``solver.explain.Explanation`` as a row: the costs, the reason (in the reader's language), and
    held − chosen per cost category."""
    row = {
        "workload": e.workload,
        "offer": e.offer_id,
        "mode": e.mode,
        "chosen_offer": e.chosen_offer,
        "status": str(e.status) if e.status else "",
        "chosen_cost": e.chosen_cost,
        "held_cost": e.held_cost,
        "vs_chosen": e.extra_cost,
        "why": str(e.why),
        "reason": explained_reason(e, tr),
    }
    for c in CATEGORIES:
        row[f"diff_{c}"] = e.difference(c) if e.categories else None
    from .analysis_console import break_even_sentence  # it imports the console, which imports this module

    be = e.break_even
    row["break_even"] = getattr(be, "break_even", None)
    row["break_even_field"] = getattr(be, "field", None)
    row["break_even_current"] = getattr(be, "current", None)  # both as quoted: in break_even_currency
    row["break_even_currency"] = (getattr(be, "currency", "") or currency) if be is not None else ""
    row["break_even_text"] = break_even_sentence(be, currency, tr) if be is not None else ""
    return row


def shape_text(gpu: str, gpus: int, nodes: int, tr: Lang = EN) -> str:
    """ "H100-SXM-80GB × 16 (2 nodes)": the GPUs and the nodes they are in, as the plan table shows them."""
    count = tr("{n} nodes", n=nodes) if nodes > 1 else tr("{n} node", n=nodes)
    return f"{gpu} × {gpus} ({count})"


def runner_up_rows(result: Result, tr: Lang = EN) -> list[dict]:
    """Every runner-up as an explanation row (``explanation_row``), with its shape in the re-solved plan."""
    from procure.solver.explain import from_runner_up

    plan, base = result.plan, result.objective_cost
    if plan is None or base is None:
        return []
    chosen = {a.workload: a.offer_id for a in plan.assignments}
    rows = []
    for w, ups in result.runner_ups.items():
        for r in ups:
            row = explanation_row(from_runner_up(result, w, r, base, chosen.get(w, "")), result.project.currency, tr)
            a = r.assignment
            row.update(
                {
                    "vendor": r.option.offer.vendor,
                    "gpu": a.gpu if a else r.option.offer.gpu,
                    "nodes": a.nodes if a else None,
                    "gpus": a.gpus if a else None,
                    "shape": shape_text(a.gpu, a.gpus, a.nodes, tr) if a else "",
                    "plan_cost": r.plan_cost,
                    "note": tr.say(r.note_message) if r.note_message is not None else (r.note or ""),
                }
            )
            rows.append(row)
    return rows


def rejection_rows(result: Result, tr: Lang = EN) -> list[dict]:
    """One row per rejected (workload, offer): the reason in the reader's language (``Lang.says``)."""
    rows = []
    for r in result.rejections:
        o = result.offers.get(r.offer_id)
        rows.append(
            {
                "workload": r.workload,
                "offer": r.offer_id,
                "vendor": o.vendor if o else "",
                "mode": o.mode if o else "",
                "gpu": o.gpu if o else "",
                "reason": tr.says(r.reasons),
            }
        )
    return rows


def pnl_rows(result: Result) -> list[list[Any]]:
    """[year, depreciation, operating, interest, disposal gain, P&L cost] per project year of the chosen plan."""
    plan = result.plan
    if plan is None:
        return []
    return [[y.year, y.depreciation, y.operating, y.interest, y.disposal_gain, y.cost] for y in plan.pnl]


#: one section of the Assumptions sheet: (title, column headers, rows)
