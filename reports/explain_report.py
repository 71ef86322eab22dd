"""``procure explain``: why not offer X for job W, side by side — the chosen plan and the plan re-solved with
W held to X, cost category by category, the reason it lost, and its break-even price. Console and JSON."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape as esc
from rich.table import Table

from procure.models.units import day_date
from procure.solver.costs import CATEGORIES
from procure.solver.reasons import node_count

from .analysis_console import break_even_sentence
from .console import CATEGORY_LABEL
from .headline import OBJECTIVE_SHORT, WHY_LABEL, set_aside_headline, signed_money, status_label
from .i18n import EN, Lang
from .tables import explained_reason, explanation_row, rounded

_r = rounded


def _where(project, plan, workload: str, tr: Lang) -> str:
    a = next((x for x in plan.assignments if x.workload == workload), None) if plan is not None else None
    if a is None:
        return "—"
    return tr(
        "{count} on {offer}, {start} → {end}",
        count=tr.say(node_count(a.nodes, a.gpus, a.gpu)),
        offer=a.offer_id,
        start=tr.date(day_date(project.start_date, a.start_day)),
        end=tr.date(day_date(project.start_date, a.end_day)),
    )


def print_explained(console: Console, explained, tr: Lang = EN) -> None:
    """Each explanation: the two plans side by side per cost category, then why it lost and its break-even price."""
    result = explained.result
    p = result.project
    cur = p.currency
    head = set_aside_headline(result, tr)
    if head:
        console.print(f"[yellow bold]![/yellow bold] {esc(head)}", soft_wrap=True)
    short = tr(OBJECTIVE_SHORT[result.objective])
    for e in explained.explanations:
        console.print(
            tr(
                "[bold]Why not {offer} for {workload}?[/bold] The recommended plan runs it on {chosen}.",
                offer=esc(e.offer_id),
                workload=esc(e.workload),
                chosen=esc(e.chosen_offer),
            ),
            soft_wrap=True,
        )
        if e.categories:
            t = Table(
                title=tr(
                    "The whole plan, as recommended and with {workload} held to {offer} ({unit})",
                    workload=esc(e.workload),
                    offer=esc(e.offer_id),
                    unit=tr.unit(cur),
                )
            )
            # the category and the difference keep their width; the two plans' "where it runs" (nodes, GPUs,
            # offer, dates) wraps in its cell rather than squeezing the others out
            t.add_column(tr("category"), overflow="fold", min_width=12)
            for label in (tr("recommended plan"), tr("held to {offer}", offer=esc(e.offer_id))):
                t.add_column(label, justify="right", overflow="fold")
            t.add_column(tr("difference"), justify="right", no_wrap=True)
            t.add_row(
                tr("where it runs"),
                esc(_where(p, result.plan, e.workload, tr)),
                esc(_where(p, e.held_plan, e.workload, tr)),
                "",
            )
            for c in CATEGORIES:
                if c in e.categories:
                    a, b = e.categories[c]
                    t.add_row(tr(CATEGORY_LABEL[c]), tr.money(a), tr.money(b), _signed(b - a, tr))
            t.add_row(
                tr("[bold]total cost of ownership[/bold]"),
                tr.money(result.plan.total_cost),
                tr.money(e.held_plan.total_cost),
                _signed(e.held_plan.total_cost - result.plan.total_cost, tr),
            )
            if result.objective != "tco":
                t.add_row(
                    tr("{short} (minimized)", short=short),
                    tr.money(e.chosen_cost),
                    tr.money(e.held_cost),
                    _signed(e.extra_cost, tr),
                )
            console.print(t)
        status = (
            tr(" (held re-solve: {status})", status=status_label(e.status, tr))
            if e.status and str(e.status) != "optimal"
            else ""
        )
        console.print(
            tr(
                "  why not: [bold]{why}[/bold] — {reason}{status}",
                why=tr(WHY_LABEL[str(e.why)]),
                reason=esc(explained_reason(e, tr)),
                status=status,
            ),
            soft_wrap=True,
        )
        if e.break_even is not None:
            text = break_even_sentence(e.break_even, cur, tr)
            console.print(tr("  break-even: {text}", text=esc(text)), soft_wrap=True)
    more = getattr(explained, "more", 0)
    if more:
        console.print(
            tr(
                "{n} more job(s) could use {offer}, where it comes less close; name one with --workload",
                n=more,
                offer=esc(explained.offer_id),
            ),
            soft_wrap=True,
        )
    if not explained.explanations:
        console.print(
            tr(
                "no plan ({status}): nothing to compare against; the reasons are above",
                status=status_label(result.status, tr),
            )
        )


def _signed(x: float | None, tr: Lang) -> str:
    return signed_money(x, tr)


def _plan_json(project, plan) -> dict | None:
    if plan is None:
        return None
    return {
        "total_cost": _r(plan.total_cost),
        "npv_cost": _r(plan.npv_cost),
        "cost_breakdown": {c: _r(plan.breakdown.get(c, 0.0)) for c in CATEGORIES},
        "purchases": [
            {"offer": x.offer_id, "nodes": x.nodes, "price_per_node": _r(x.price_per_node), "cost": _r(x.cost)}
            for x in plan.purchases
        ],
        "rentals": [
            {
                "offer": r.offer_id,
                "nodes": r.nodes,
                "start_month": r.start_month,
                "months": r.months,
                "term_months": r.term_months,
                "price_per_node_month": _r(r.price_per_node_month),
                "cost": _r(r.cost),
            }
            for r in plan.rentals
        ],
        "assignments": [
            {
                "workload": a.workload,
                "offer": a.offer_id,
                "mode": a.mode,
                "nodes": a.nodes,
                "gpus": a.gpus,
                "start_day": _r(a.start_day, 3),
                "end_day": _r(a.end_day, 3),
                "hours": a.hours,
                "cost": _r(a.cost),
            }
            for a in plan.assignments
        ],
    }


def explained_to_json(explained) -> dict:
    """The JSON of ``procure explain`` (documented in the README)."""
    result = explained.result
    p = result.project
    out = {
        "offer": explained.offer_id,
        "status": str(result.status),
        "objective": result.objective,
        "currency": p.currency,
        "headline": set_aside_headline(result) or None,
        "set_aside": [x.workload for x in result.set_aside],
        "chosen_plan": _plan_json(p, result.plan),
        "explanations": [],
        "more_jobs": getattr(explained, "more", 0),
    }
    for e in explained.explanations:
        row = explanation_row(e, p.currency)
        be = e.break_even
        out["explanations"].append(
            {
                "workload": e.workload,
                "offer": e.offer_id,
                "mode": e.mode,
                "chosen_offer": e.chosen_offer,
                "why": str(e.why),
                "reason": e.reason,
                "status": str(e.status) if e.status else None,
                "chosen_cost": _r(e.chosen_cost),
                "held_cost": _r(e.held_cost),
                "vs_chosen": _r(e.extra_cost),
                "categories": {
                    c: {"chosen": _r(a), "held": _r(b), "difference": _r(b - a)} for c, (a, b) in e.categories.items()
                },
                "held_plan": _plan_json(p, e.held_plan),
                "break_even": None
                if be is None
                else {
                    "price": be.break_even,
                    "field": be.field,
                    "current": be.current,
                    "currency": row["break_even_currency"],
                    "reporting_price": _r(be.reporting(be.break_even)),
                    "reporting_current": _r(be.reporting(be.current)),
                    "reason": be.reason,
                    "text": row["break_even_text"],
                },
            }
        )
    return out
