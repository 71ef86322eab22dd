"""The cost–time frontier as people read it (``procure frontier``, ``procure solve --frontier``): one sentence
per point ("finishing 41 days sooner costs 58,200 USD: …"), the console table and the JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape as esc
from rich.table import Table

from procure.models.units import day_date

from .headline import status_label
from .i18n import EN, Lang

if TYPE_CHECKING:
    from procure.analysis.carbon_frontier import CarbonFrontier, CarbonPoint
    from procure.analysis.frontier import Frontier, FrontierPoint


def sooner(f: Frontier, p: FrontierPoint) -> tuple[float, float]:
    """(days sooner than the cheapest plan, extra cost on the objective) of a point."""
    first = f.cheapest
    return first.completion_day - p.completion_day, f.cost(p) - f.cost(first)


def point_sentence(f: Frontier, p: FrontierPoint, tr: Lang = EN) -> str:
    """ "finishing 41.0 days sooner costs 58,200 USD: pretrain-7b: rent 16 × H100 … instead of …" (the
    first change; the cheapest plan says what it is)."""
    cur = f.project.currency
    if p is f.cheapest:
        return tr(
            "the cheapest plan: done by day {day} ({date}) at {conf:.0%} confidence",
            day=f"{p.completion_day:.1f}",
            date=tr.date(day_date(f.project.start_date, p.completion_day)),
            conf=f.project.deadline_confidence,
        )
    days, extra = sooner(f, p)
    what = tr("; ").join(tr.say(c.text) for c in p.changes) if p.changes else tr("the same offers, started sooner")
    return tr(
        "finishing {days} days sooner costs {amount}: {what}",
        days=f"{days:.1f}",
        amount=tr.money(extra, cur),
        what=what,
    )


def print_frontier(console: Console, f: Frontier, tr: Lang = EN) -> None:
    """The frontier as a table (one row per point, cheapest first) and its notes."""
    cur = f.project.currency
    jobs = ", ".join(f.jobs)
    console.print(
        tr(
            "[bold]What sooner costs[/bold] — completion of {jobs} at {conf:.0%} confidence against {m}",
            jobs=esc(jobs),
            conf=f.project.deadline_confidence,
            m=f.objective.short,
        ),
        soft_wrap=True,
    )
    t = Table(show_lines=False)
    for label in ("#", tr("done by (day)"), tr("date"), tr("median end (day)"), f.objective.short, tr("extra")):
        t.add_column(label, justify="right")
    t.add_column(tr("status"))
    t.add_column(tr("what changed"))
    for k, p in enumerate(f.points):
        days, extra = sooner(f, p)
        status = status_label(p.status, tr) + (f" ({p.gap:.2%})" if p.gap else "")
        t.add_row(
            str(k + 1),
            f"{p.completion_day:.1f}",
            tr.date(day_date(f.project.start_date, p.completion_day)),
            f"{p.median_end_day:.1f}",
            tr.money(f.cost(p), cur),
            tr.money(extra, cur) if k else "",
            esc(status),
            esc(tr("; ").join(tr.say(c.text) for c in p.changes)) if k else tr("the cheapest plan"),
        )
    console.print(t)
    for p in f.points[1:]:
        console.print(esc(point_sentence(f, p, tr)), soft_wrap=True)
    if f.note:
        console.print(esc(tr.say(f.note)), soft_wrap=True)
    if f.dropped:
        console.print(esc(dropped_sentence(f, tr)), soft_wrap=True)


def dropped_sentence(f: Frontier, tr: Lang = EN) -> str:
    return tr(
        "{n} point(s) solved only to a gap cost no less than a plan that ends sooner: left out of the frontier",
        n=f.dropped,
    )


def frontier_to_json(f: Frontier) -> dict:
    """The frontier as data: each point's plan summary (its full plan is what ``procure solve`` writes)."""
    out = []
    for p in f.points:
        days, extra = sooner(f, p)
        out.append(
            {
                "completion_day": round(p.completion_day, 4),
                "completion_date": day_date(f.project.start_date, p.completion_day).isoformat(),
                "median_end_day": round(p.median_end_day, 4),
                "target_day": p.target_day,
                "total_cost": round(p.total_cost, 2),
                "npv_cost": round(p.npv_cost, 2),
                "days_sooner": round(days, 4),
                "extra_cost": round(extra, 2),
                "status": str(p.status),
                "gap": p.gap,
                "sentence": point_sentence(f, p),
                "changes": [{"workload": c.workload, "text": str(c.text)} for c in p.changes],
                "assignments": [
                    {
                        "workload": a.workload,
                        "offer_id": a.offer_id,
                        "mode": a.mode,
                        "gpu": a.gpu,
                        "nodes": a.nodes,
                        "start_day": a.start_day,
                        "end_day": a.end_day,
                    }
                    for a in p.plan.assignments
                ],
            }
        )
    return {
        "jobs": list(f.jobs),
        "objective": str(f.objective),
        "currency": f.project.currency,
        "deadline_confidence": f.project.deadline_confidence,
        "lower_bound_day": round(f.lower_bound_day, 4),
        "fastest_proven": f.fastest_proven,
        "note": str(f.note),
        "dropped_points": f.dropped,
        "points": out,
    }


# --- the cost–emissions frontier (procure frontier --carbon) ---------------------------------------------------


def cleaner(f: CarbonFrontier, p: CarbonPoint) -> tuple[float, float]:
    """(tCO2e less than the cheapest plan, extra TCO) of a point."""
    first = f.cheapest
    return first.tco2e - p.tco2e, p.cost - first.cost


def carbon_sentence(f: CarbonFrontier, p: CarbonPoint, tr: Lang = EN) -> str:
    """ "emitting 12.4 tCO2e less costs 3,100 USD (250 USD a tonne avoided); the cheapest plan from 150 USD/tCO2e" """
    cur = f.project.currency
    high = tr.money(p.high, cur) if p.high is not None else tr("any higher price")
    if p is f.cheapest:
        return tr(
            "the cheapest plan: {t} tCO2e at {cost}; the cheapest up to a carbon price of {high}/tCO2e",
            t=f"{p.tco2e:,.3f}",
            cost=tr.money(p.cost, cur),
            high=high,
        )
    less, extra = cleaner(f, p)
    return tr(
        "emitting {t} tCO2e less costs {amount} ({per} a tonne avoided); the cheapest plan for carbon prices from "
        "{low} to {high} per tCO2e",
        t=f"{less:,.3f}",
        amount=tr.money(extra, cur),
        per=tr.money(extra / less if less else 0.0, cur),
        low=tr.money(p.low, cur),
        high=high,
    )


def _placed(p: CarbonPoint) -> str:
    return "; ".join(f"{a.workload}: {a.nodes} × {a.offer_id}" for a in p.plan.assignments)


def print_carbon_frontier(console: Console, f: CarbonFrontier, tr: Lang = EN) -> None:
    """The cost–emissions frontier as a table (one row per point, cheapest first) and its notes."""
    cur = f.project.currency
    console.print(tr("[bold]What cleaner costs[/bold] — TCO without a carbon price against operational tCO2e"))
    t = Table(show_lines=False)
    for label in ("#", "tCO2e", "TCO", tr("extra"), tr("per tonne avoided"), tr("carbon prices (per tCO2e)")):
        t.add_column(label, justify="right")
    t.add_column(tr("where the jobs run"))
    for k, p in enumerate(f.points):
        less, extra = cleaner(f, p)
        high = tr.money(p.high, cur) if p.high is not None else "∞"
        t.add_row(
            str(k + 1),
            f"{p.tco2e:,.3f}",
            tr.money(p.cost, cur),
            tr.money(extra, cur) if k else "",
            tr.money(extra / less, cur) if k and less else "",
            f"{tr.money(p.low, cur)} – {high}",
            esc(_placed(p)),
        )
    console.print(t)
    for p in f.points:
        console.print(esc(carbon_sentence(f, p, tr)), soft_wrap=True)
    if f.note:
        console.print(esc(tr.say(f.note)), soft_wrap=True)
    if f.dropped:
        console.print(
            esc(
                tr("{n} point(s) solved only to a gap cost no less than a plan that emits less: left out", n=f.dropped)
            ),
            soft_wrap=True,
        )


def carbon_frontier_to_json(f: CarbonFrontier) -> dict:
    """The cost–emissions frontier as data: per point its TCO without a carbon price, its tCO2e, the carbon prices
    it is the cheapest plan at, and where its jobs run."""
    out = []
    for p in f.points:
        less, extra = cleaner(f, p)
        out.append(
            {
                "tco2e": round(p.tco2e, 6),
                "total_cost": round(p.cost, 2),
                "tco2e_avoided": round(less, 6),
                "extra_cost": round(extra, 2),
                "cost_per_tco2e_avoided": round(extra / less, 2) if less > 0 else None,
                "solved_at_carbon_price": round(p.price, 6),
                "carbon_price_from": round(p.low, 6),
                "carbon_price_to": round(p.high, 6) if p.high is not None else None,
                "status": str(p.result.status),
                "sentence": carbon_sentence(f, p),
                "assignments": [
                    {
                        "workload": a.workload,
                        "offer_id": a.offer_id,
                        "mode": a.mode,
                        "nodes": a.nodes,
                        "start_day": a.start_day,
                        "end_day": a.end_day,
                    }  # fmt: skip
                    for a in p.plan.assignments
                ],
            }
        )
    return {
        "kind": "carbon",
        "objective": "tco",
        "currency": f.project.currency,
        "solves": f.solves,
        "note": str(f.note),
        "dropped_points": f.dropped,
        "points": out,
    }
