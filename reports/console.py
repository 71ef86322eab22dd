"""Console output (rich): the plan per workload, capacity bought and rented, the cost breakdown, the
four strategies side by side, runner-ups, and — when nothing can be placed — the reasons."""

from __future__ import annotations

import datetime as dt

from rich.console import Console
from rich.markup import escape as esc
from rich.table import Table

from procure.solver.costs import CATEGORIES
from procure.models.units import day_date
from procure.solver.enums import STRATEGIES

STRATEGY_LABEL = {"hybrid": "hybrid (free)", "buy": "buy only", "rent": "rent only", "cloud": "cloud only"}
CATEGORY_LABEL = {
    "capex": "capex (purchases)", "residual_value": "residual value", "maintenance": "maintenance", "colocation": "colocation",
    "energy": "energy", "rent": "rent", "setup": "setup fees", "cloud": "cloud", "interest": "loan interest",
}


def money(x: float | None, currency: str = "") -> str:
    if x is None:
        return "—"
    s = f"{x:,.0f}"
    return f"{s} {currency}".strip()


def print_offers(console: Console, offers, catalog) -> None:
    t = Table(title=f"{len(offers)} offers", show_lines=False)
    for col in ("id", "vendor", "mode", "region", "GPU × n", "fabric", "RAM GB", "NVMe TB", "max nodes", "lead d", "price", "quoted"):
        t.add_column(col, overflow="fold")
    for o in offers:
        cur = f" {o.currency}" if o.currency else ""
        if o.mode == "buy":
            price = "; ".join(f"{p:,.0f}" + (f" from {n}" if len(o.buy_tiers) > 1 or n > 1 else "") for n, p in o.buy_tiers) + f"{cur} /node"
        elif o.mode == "rent":
            price = "; ".join(f"{p:,.0f}" + (f" ({m} mo)" if o.term_prices else "") for m, p in o.rent_tiers) + f"{cur} /node-month"
        else:
            price = f"{o.price_per_node_hour:,.2f}{cur} /node-hour" + (" spot" if o.spot else "")
            if o.committed:
                price += f", {o.commitment_months}-month term" + (f" + {o.upfront_per_node:,.0f} upfront" if o.upfront_per_node else "")
        fabric = o.inter_node + (f" ×{o.inter_node_rails}" if o.inter_node_rails > 1 else "")
        t.add_row(esc(o.id), esc(o.vendor), o.mode, esc(o.region), f"{o.gpu} × {o.gpus_per_node}", fabric, f"{o.ram_gb:g}", f"{o.nvme_tb:g}",
                  str(o.max_nodes), str(o.lead_time_days), price, o.quoted_on.isoformat())
    console.print(t)
    console.print(f"catalog: {esc(', '.join(str(f) for f in catalog.files))}")


def recommendation(result) -> str:
    """One sentence: what to do, what it costs, and how much less than the single-mode alternatives."""
    plan, p = result.plan, result.project
    if plan is None:
        return "No plan: see the reasons below."
    parts = []
    for pur in plan.purchases:
        o = result.offers[pur.offer_id]
        parts.append(f"buy {pur.nodes} × {o.label} nodes from {o.vendor}")
    rent_nodes: dict[str, tuple[int, int]] = {}
    for r in plan.rentals:
        n, m = rent_nodes.get(r.offer_id, (0, 0))
        rent_nodes[r.offer_id] = (max(n, r.nodes), m + r.months * r.nodes)
    for oid, (n, node_months) in rent_nodes.items():
        o = result.offers[oid]
        parts.append(f"rent {n} × {o.label} nodes from {o.vendor} ({node_months} node-months)")
    cloud: dict[str, float] = {}
    for a in plan.assignments:
        if a.mode == "cloud":
            cloud[a.offer_id] = cloud.get(a.offer_id, 0.0) + a.nodes * a.hours
    for oid, nh in cloud.items():
        o = result.offers[oid]
        parts.append(f"use {o.vendor} {o.label} cloud nodes ({nh:,.0f} node-hours)")
    what = "; ".join(parts)
    what = what[0].upper() + what[1:]
    cmp = []
    for name in ("buy", "rent", "cloud"):
        s = result.strategies.get(name)
        if s is None:
            continue
        if s.plan is None:
            cmp.append(f"{name} only is infeasible")
        elif s.plan.total_cost > plan.total_cost * (1 + 1e-9):
            pct = (s.plan.total_cost - plan.total_cost) / s.plan.total_cost * 100
            cmp.append(f"{pct:.0f}% less than {name} only")
        elif abs(s.plan.total_cost - plan.total_cost) <= 1e-6 * max(1.0, plan.total_cost):
            cmp.append(f"same as {name} only")
    tail = f" ({', '.join(cmp)})" if cmp else ""
    return f"{what}: {money(plan.total_cost, p.currency)} total cost of ownership over {p.horizon_months} months{tail}."


def print_result(console: Console, result, inputs=()) -> None:
    p = result.project
    h = result.hybrid
    console.print(f"[bold]{esc(p.name)}[/bold] — {len(p.workloads)} workload(s), {len(result.offers)} offers, horizon {p.horizon_months} months from {p.start_date}")
    if h.plan is None:
        label = "INFEASIBLE" if h.status == "infeasible" else "NO SOLUTION within the time limit"
        console.print(f"[red bold]{label}[/red bold]")
        for w, reasons in h.reasons.items():
            console.print(f"  [bold]{esc(w)}[/bold]:")
            for r in reasons:
                console.print(f"    - {esc(r)}", soft_wrap=True)
        if h.status == "no_solution":
            console.print("  the solver found no plan before --time-limit; raise --time-limit and run again")
        _print_strategies(console, result)
        return
    plan = h.plan
    info = h.solve
    gap = f", proven gap {info.gap:.4%}" if info and info.gap is not None else ""
    console.print(f"status: [bold]{h.status}[/bold] ({info.name if info else ''}{gap}, {info.seconds:.2f} s); plan verified independently")
    console.print(f"[bold green]Recommendation:[/bold green] {esc(recommendation(result))}", soft_wrap=True)

    t = Table(title="Plan per workload")
    for col in ("workload", "offer", "vendor", "mode", "GPU × count", "strategy", "start", "end", "deadline", "slack d", "GPU-hours", "cost"):
        t.add_column(col, justify="right" if col in ("slack d", "GPU-hours", "cost") else "left")
    for a in plan.assignments:
        strat = a.strategy.label() if a.strategy is not None and hasattr(a.strategy, "label") else ""
        t.add_row(esc(a.workload), esc(a.offer_id), esc(a.vendor), a.mode, f"{a.gpu} × {a.gpus} ({a.nodes} node{'s' if a.nodes > 1 else ''})", strat,
                  day_date(p.start_date, a.start_day).isoformat(), day_date(p.start_date, a.end_day).isoformat(), day_date(p.start_date, a.deadline_day).isoformat(),
                  f"{a.slack_days:.1f}", f"{a.gpu_hours:,.0f}", money(a.cost))
    console.print(t)

    if plan.purchases or plan.rentals:
        t = Table(title="Capacity")
        for col in ("what", "offer", "nodes", "from", "months", "cost"):
            t.add_column(col, justify="right" if col in ("nodes", "months", "cost") else "left")
        for pur in plan.purchases:
            o = result.offers[pur.offer_id]
            t.add_row("buy", esc(pur.offer_id), str(pur.nodes), day_date(p.start_date, o.lead_time_days).isoformat() + " (delivery)", f"{p.horizon_months} (owned)", money(pur.cost))
        for r in plan.rentals:
            o = result.offers[r.offer_id]
            what = "reserved" if o.mode == "cloud" else ("rent, fixed term" if r.term_months is not None else "rent")
            t.add_row(what, esc(r.offer_id), str(r.nodes), day_date(p.start_date, r.start_day).isoformat(), str(r.months), money(r.cost))
        console.print(t)

    t = Table(title=f"Cost breakdown ({p.currency})")
    t.add_column("category")
    t.add_column("amount", justify="right")
    for c in CATEGORIES:
        if abs(plan.breakdown.get(c, 0.0)) > 0.005:
            t.add_row(CATEGORY_LABEL[c], money(plan.breakdown[c]))
    t.add_row("[bold]total cost of ownership[/bold]", f"[bold]{money(plan.total_cost)}[/bold]")
    if p.discount_rate > 0:
        t.add_row(f"net present value at {p.discount_rate:.1%}/year", money(plan.npv_cost))
    console.print(t)
    _print_strategies(console, result)

    if result.runner_ups:
        t = Table(title="Runner-up options per workload (stand-alone cost of the job on that shape vs the chosen shape)")
        for col in ("workload", "option", "mode", "GPU × count", "days", "stand-alone cost", "more than chosen"):
            t.add_column(col, justify="right" if col in ("days", "stand-alone cost", "more than chosen") else "left")
        for w, rows in result.runner_ups.items():
            for r in rows:
                o = r.option
                t.add_row(esc(w), esc(o.offer_id), o.mode, f"{o.offer.gpu} × {o.gpus}", f"{o.wall_days:.1f}", money(o.standalone_cost), ("+" if r.extra_cost >= 0 else "") + money(r.extra_cost))
        console.print(t)
    n_rej = len(result.rejections)
    if n_rej:
        console.print(f"{n_rej} (workload, offer) pairs were rejected; see the JSON `rejected` list or the workbook's Options sheet for each reason.")


def _print_strategies(console: Console, result) -> None:
    if len(result.strategies) <= 1:
        return
    p = result.project
    base = result.plan.total_cost if result.plan else None
    t = Table(title="Strategies: buy vs rent vs cloud")
    for col in ("strategy", "status", "total cost", "vs hybrid"):
        t.add_column(col, justify="right" if col in ("total cost", "vs hybrid") else "left")
    for name in STRATEGIES:
        s = result.strategies.get(name)
        if s is None:
            continue
        diff = "—"
        if s.plan is not None and base is not None:
            d = s.plan.total_cost - base
            diff = ("+" if d >= 0 else "") + money(d) + (f" ({d / base:+.0%})" if base else "")
        why = ""
        if s.plan is None and s.reasons:
            first_w, rs = next(iter(s.reasons.items()))
            why = esc(f" — {first_w}: {rs[0]}")
        t.add_row(STRATEGY_LABEL[name], s.status + why, money(s.total_cost, p.currency), diff)
    console.print(t)
