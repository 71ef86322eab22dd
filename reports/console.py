"""Console output (rich): the plan per workload, capacity bought and rented, the cost breakdown, the
four strategies side by side, runner-ups, and — when nothing can be placed — the reasons."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape as esc
from rich.table import Table

from procure.models.units import day_date
from procure.solver.costs import CATEGORIES, Objective

from .headline import (
    OBJECTIVE_SHORT,
    STRATEGY_LABEL,
    comparisons,
    money,
    npv_timing_note,
    objective_phrase,
    peaks,
    recommendation,
    spot_risk,
    stale_text,
)

__all__ = ["CATEGORY_LABEL", "STRATEGY_LABEL", "money", "print_offers", "print_result", "recommendation"]

CATEGORY_LABEL = {
    "capex": "capex (purchases)", "residual_value": "residual value", "maintenance": "maintenance", "colocation": "colocation",
    "energy": "energy", "rent": "rent", "setup": "setup fees", "cloud": "cloud", "interest": "loan interest",
}


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


def _table(console: Console, title: str, columns: list[tuple[str, str]], rows: list[list[str]], drop: tuple[str, ...] = ()) -> Table:
    """A table that never cuts a number or a date: ``columns`` are (header, kind) with kind ``num``
    (numbers, dates: never wrapped or cut), ``text`` (folds onto more lines) or ``short``. When even
    that does not fit the console, the text columns named in ``drop`` are left out, in that order."""
    width = console.size.width
    keep = list(range(len(columns)))

    def need(idx: list[int]) -> int:
        total = 1
        for i in idx:
            head, kind = columns[i]
            content = max([len(r[i]) for r in rows] + [len(head) if kind == "num" else 4])
            total += (content if kind in ("num", "short") else min(content, 10)) + 3
        return total

    for name in drop:
        if need(keep) <= width:
            break
        keep = [i for i in keep if columns[i][0] != name]
    t = Table(title=title)
    for i in keep:
        head, kind = columns[i]
        if kind == "text":
            t.add_column(head, overflow="fold")
        else:
            t.add_column(head, justify="right" if kind == "num" else "left", no_wrap=True, min_width=max(len(r[i]) for r in rows) if rows else None)
    for r in rows:
        t.add_row(*[r[i] for i in keep])
    return t


def print_result(console: Console, result, inputs=()) -> None:
    p = result.project
    h = result.hybrid
    console.print(f"[bold]{esc(p.name)}[/bold] — {len(p.workloads)} workload(s), {len(result.offers)} offers, horizon {p.horizon_months} months from {p.start_date}", soft_wrap=True)
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
    if info and info.heuristic:
        gap = ", heuristic plan (greedy, or the weekly stage's): the solver found none in its time share" + (", gap unknown" if info.gap is None else f", gap ≤ {info.gap:.2%} to its bound")
    console.print(f"status: [bold]{h.status}[/bold] ({info.name if info else ''}{gap}, {info.seconds:.2f} s); plan verified independently", soft_wrap=True)
    console.print(f"objective: {objective_phrase(result)}; strategies are compared on {OBJECTIVE_SHORT[result.objective]}", soft_wrap=True)
    console.print(f"[bold green]Recommendation:[/bold green] {esc(recommendation(result))}", soft_wrap=True)
    risk = spot_risk(result)
    if risk:
        console.print(f"[yellow bold]![/yellow bold] {esc(risk.text)}", soft_wrap=True)
    for note in (stale_text(result), npv_timing_note(result)):
        if note:
            console.print(f"[yellow bold]![/yellow bold] {esc(note)}", soft_wrap=True)

    rows = []
    for a in plan.assignments:
        strat = a.strategy.label() if a.strategy is not None and hasattr(a.strategy, "label") else ""
        rows.append([esc(a.workload), esc(a.offer_id), esc(a.vendor), str(a.mode), f"{a.gpu} × {a.gpus} ({a.nodes} node{'s' if a.nodes > 1 else ''})", strat,
                     day_date(p.start_date, a.start_day).isoformat(), day_date(p.start_date, a.end_day).isoformat(), day_date(p.start_date, a.deadline_day).isoformat(),
                     f"{a.slack_days:.1f}", f"{a.gpu_hours:,.0f}", money(a.cost)])
    cols = [("workload", "text"), ("offer", "text"), ("vendor", "text"), ("mode", "short"), ("GPU × count", "text"), ("strategy", "text"),
            ("start", "num"), ("end", "num"), ("deadline", "num"), ("slack d", "num"), ("GPU-hours", "num"), ("cost", "num")]
    console.print(_table(console, "Plan per workload", cols, rows, drop=("vendor", "strategy", "GPU × count", "mode", "offer")))

    if plan.purchases or plan.rentals or any(pk.mode == "cloud" for pk in peaks(result)):
        rows = []
        for pur in plan.purchases:
            o = result.offers[pur.offer_id]
            rows.append(["buy", esc(pur.offer_id), str(pur.nodes), day_date(p.start_date, o.lead_time_days).isoformat() + " (delivery)", f"{p.horizon_months} (owned)", money(pur.cost)])
        for r in plan.rentals:
            o = result.offers[r.offer_id]
            what = "reserved" if o.mode == "cloud" else (f"rent, {r.term_months}+ month term" if r.term_months is not None else "rent")
            rows.append([what, esc(r.offer_id), str(r.nodes), day_date(p.start_date, r.start_day).isoformat(), str(r.months), money(r.cost)])
        if rows:
            console.print(_table(console, "Capacity", [("what", "short"), ("offer", "text"), ("nodes", "num"), ("from", "num"), ("months", "num"),
                                                       ("cost", "num")], rows))
        prow = [[pk.mode + (" (spot)" if pk.spot else ""), esc(pk.offer_id), str(pk.peak_nodes), f"{pk.amount:,.0f} {pk.amount_unit}"] for pk in peaks(result)]
        console.print(_table(console, "Peak capacity: most nodes held at once per offer", [("mode", "short"), ("offer", "text"), ("peak nodes", "num"),
                                                                                           ("used", "num")], prow))

    t = Table(title=f"Cost breakdown ({p.currency})")
    t.add_column("category", overflow="fold")
    t.add_column("amount", justify="right", no_wrap=True)
    for c in CATEGORIES:
        if abs(plan.breakdown.get(c, 0.0)) > 0.005:
            t.add_row(CATEGORY_LABEL[c], money(plan.breakdown[c]))
    t.add_row("[bold]total cost of ownership[/bold]", f"[bold]{money(plan.total_cost)}[/bold]")
    if p.discount_rate > 0:
        t.add_row(f"net present value at {p.discount_rate:.1%}/year", money(plan.npv_cost))
    console.print(t)
    _print_strategies(console, result)

    if result.runner_ups:
        short = OBJECTIVE_SHORT[result.objective]
        rows = []
        for w, ups in result.runner_ups.items():
            for r in ups:
                o = r.option
                if r.extra_cost is None:
                    extra = r.note or "no plan"
                else:
                    bound = "≤ " if r.status not in (None, "optimal") else ""
                    extra = bound + ("+" if r.extra_cost >= 0 else "") + money(r.extra_cost)
                shape = f"{r.assignment.gpu} × {r.assignment.gpus}" if r.assignment else ""
                rows.append([esc(w), esc(o.offer_id), str(o.mode), shape, money(r.plan_cost), extra])
        cols = [("workload", "text"), ("instead on", "text"), ("mode", "short"), ("GPU × count", "text"), (f"plan {short}", "num"), ("vs chosen", "num")]
        console.print(_table(console, f"Runner-up offers per workload: the whole plan re-solved with the workload held to that offer ({short})",
                             cols, rows, drop=("GPU × count", "mode")))
    n_rej = len(result.rejections)
    if n_rej:
        console.print(f"{n_rej} (workload, offer) pairs were rejected; see the JSON `rejected` list or the workbook's Options sheet for each reason.", soft_wrap=True)


def _print_strategies(console: Console, result) -> None:
    from .tables import strategy_quality  # tables imports this module's labels

    if len(result.strategies) <= 1:
        return
    p = result.project
    obj, other = result.objective, str(Objective(result.objective).other)
    rows = []
    for c in comparisons(result):
        s = result.strategies[c.name]
        if c.status == "excluded":
            rows.append([c.label, "excluded by you", "—", "—", "—", "allowed_modes"])
            continue
        diff = "—"
        if c.diff is not None and c.cost is not None:  # a diff is only set with a cost
            base = c.cost - c.diff
            diff = ("≤ " if c.bound else "") + ("+" if c.diff >= 0 else "") + money(c.diff) + (f" ({c.diff / base:+.0%})" if base else "")
        gap = f"{c.gap:.2%}" if c.gap is not None else ""
        why = ""
        if s.plan is None and s.reasons:
            first_w, rs = next(iter(s.reasons.items()))
            why = esc(f"{first_w}: {rs[0]}")
        status = str(c.status) + (f", gap {gap}" if c.status == "feasible" else "")
        if s.solve is not None and s.solve.heuristic:
            status = f"{c.status} ({strategy_quality(s)})"
        rows.append([c.label, status, money(c.cost, p.currency), diff, money(c.other, p.currency), why])
    cols = [("strategy", "short"), ("status", "text"), (OBJECTIVE_SHORT[obj], "num"), ("vs recommended", "num"), (OBJECTIVE_SHORT[other], "num"),
            ("why not", "text")]
    if not any(r[-1] for r in rows):
        cols, rows = cols[:-1], [r[:-1] for r in rows]
    console.print(_table(console, f"Strategies compared on {OBJECTIVE_SHORT[obj]} (minimized), {OBJECTIVE_SHORT[other]} beside it", cols, rows, drop=("why not",)))
