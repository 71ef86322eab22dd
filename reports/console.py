"""Console output (rich): the plan per workload, capacity bought and rented, the cost breakdown, the
four strategies side by side, runner-ups, and — when nothing can be placed — the reasons."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape as esc
from rich.table import Table

from procure.models.units import day_date
from procure.solver.costs import CATEGORIES, Objective

from .headline import (
    OBJECTIVE_SHORT,
    SAVING_HEADER,
    STRATEGY_LABEL,
    WHY_LABEL,
    amount_unit,
    comparisons,
    mode_label,
    money,
    npv_timing_note,
    objective_phrase,
    peaks,
    range_lines,
    recommendation,
    saving_text,
    set_aside_headline,
    signed_money,
    spot_risk,
    stale_text,
    status_label,
)
from .i18n import EN, N_, Lang
from .tables import held_window, shape_text

if TYPE_CHECKING:
    from procure.solver.plan import Plan
    from procure.solver.result import Result

__all__ = ["CATEGORY_LABEL", "STRATEGY_LABEL", "money", "print_offers", "print_result", "recommendation"]

CATEGORY_LABEL = {
    "capex": N_("capex (purchases)"),
    "residual_value": N_("residual value"),
    "maintenance": N_("maintenance"),
    "colocation": N_("colocation"),
    "energy": N_("energy"),
    "rent": N_("rent"),
    "setup": N_("setup fees"),
    "cloud": N_("cloud"),
    "interest": N_("loan interest"),
    "network": N_("network fabric (capex)"),
    "fixed": N_("fixed charges"),
    "storage": N_("storage"),
    "egress": N_("data egress"),
    "staff": N_("operations staff"),
    "carbon": N_("carbon price"),
}


def print_offers(console: Console, offers, catalog) -> None:
    t = Table(title=f"{len(offers)} offers", show_lines=False)
    for col in (
        "id",
        "vendor",
        "mode",
        "region",
        "GPU × n",
        "fabric",
        "RAM GB",
        "NVMe TB",
        "max nodes",
        "lead d",
        "price",
        "quoted",
    ):
        t.add_column(col, overflow="fold")
    for o in offers:
        cur = f" {o.currency}" if o.currency else ""
        if o.mode == "buy":
            price = (
                "; ".join(f"{p:,.0f}" + (f" from {n}" if len(o.buy_tiers) > 1 or n > 1 else "") for n, p in o.buy_tiers)
                + f"{cur} /node"
            )
        elif o.mode == "rent":
            price = (
                "; ".join(f"{p:,.0f}" + (f" ({m} mo)" if o.term_prices else "") for m, p in o.rent_tiers)
                + f"{cur} /node-month"
            )
        else:
            price = f"{o.price_per_node_hour:,.2f}{cur} /node-hour" + (" spot" if o.spot else "")
            if o.committed:
                price += f", {o.commitment_months}-month term" + (
                    f" + {o.upfront_per_node:,.0f} upfront" if o.upfront_per_node else ""
                )
        fabric = o.inter_node + (f" ×{o.inter_node_rails}" if o.inter_node_rails > 1 else "")
        t.add_row(
            esc(o.id),
            esc(o.vendor),
            o.mode,
            esc(o.region),
            f"{o.gpu} × {o.gpus_per_node}",
            fabric,
            f"{o.ram_gb:g}",
            f"{o.nvme_tb:g}",
            str(o.max_nodes),
            str(o.lead_time_days),
            price,
            o.quoted_on.isoformat(),
        )
    console.print(t)
    console.print(f"catalog: {esc(', '.join(str(f) for f in catalog.files))}")


def _table(
    console: Console, title: str, columns: list[tuple[str, str]], rows: list[list[str]], drop: tuple[str, ...] = ()
) -> Table:
    """A table that never cuts a number or a date: ``columns`` are (header, kind) with kind ``num``
    (numbers, dates: never wrapped or cut), ``text`` (folds onto more lines) or ``short``. When even
    that does not fit the console, the text columns named in ``drop`` are left out, in that order."""
    width = console.size.width
    keep = list(range(len(columns)))

    def need(idx: list[int]) -> int:
        total = 1
        for i in idx:
            head, kind = columns[i]
            head_width = max(len(line) for line in head.split("\n"))  # a header may take two lines
            content = max([len(r[i]) for r in rows] + [head_width if kind == "num" else 4])
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
            t.add_column(
                head,
                justify="right" if kind == "num" else "left",
                no_wrap=True,
                min_width=max(len(r[i]) for r in rows) if rows else None,
            )
    for r in rows:
        t.add_row(*[r[i] for i in keep])
    return t


def print_result(console: Console, result: Result, inputs=(), tr: Lang = EN) -> None:
    p = result.project
    h = result.hybrid
    console.print(
        tr(
            "[bold]{name}[/bold] — {n} workload(s), {offers} offers, horizon {months} months from {start}",
            name=esc(p.name),
            n=result.n_jobs,
            offers=len(result.offers),
            months=p.horizon_months,
            start=tr.date(p.start_date),
        ),
        soft_wrap=True,
    )
    _print_set_aside(console, result, tr)
    if h.plan is None:
        _print_no_plan(console, result, tr)
        return
    plan = h.plan
    _print_status(console, result, tr)
    for line in range_lines(result, tr):
        console.print(esc(line), soft_wrap=True)
    _print_assignments(console, result, plan, tr)
    if plan.purchases or plan.rentals or any(pk.mode == "cloud" for pk in peaks(result)):
        _print_capacity(console, result, plan, tr)
    _print_breakdown(console, result, plan, tr)
    _print_strategies(console, result, tr)
    from .finance_report import finance_lines

    for line in finance_lines(result, tr):
        console.print(esc(line), soft_wrap=True)
    from .emissions_report import print_emissions

    print_emissions(console, result, tr)
    _print_runner_ups(console, result, tr)
    n_rej = len(result.rejections)
    if n_rej:
        console.print(
            tr(
                "{n} (workload, offer) pairs were rejected; see the JSON `rejected` list or the workbook's Options sheet for each reason.",
                n=n_rej,
            ),
            soft_wrap=True,
        )


def _print_no_plan(console: Console, result: Result, tr: Lang) -> None:
    """No plan: why each workload cannot be placed, then the strategies."""
    h = result.hybrid
    # a solver that never started (the time left could not build the model) did not fail to find a plan
    never_ran = h.status == "no_solution" and h.solve is not None and h.solve.seconds == 0 and not h.solve.heuristic
    label = (
        tr("INFEASIBLE")
        if h.status == "infeasible"
        else tr("NO SOLUTION: --time-limit ran out before the solver started")
        if never_ran
        else tr("NO SOLUTION within the time limit")
    )
    console.print(f"[red bold]{label}[/red bold]")
    for w, reasons in h.reasons.items():
        console.print(f"  [bold]{esc(w)}[/bold]:")
        for r in reasons:
            console.print(f"    - {esc(tr.say(r))}", soft_wrap=True)
    if never_ran:
        console.print(
            tr(
                "  the model was too large to build and solve in the time left, so it was not solved; raise --time-limit"
            ),
            soft_wrap=True,
        )
    elif h.status == "no_solution":
        console.print(tr("  the solver found no plan before --time-limit; raise --time-limit and run again"))
    _print_strategies(console, result, tr)


def _print_status(console: Console, result: Result, tr: Lang) -> None:
    """The solve's status and gap, the objective, the recommendation and its warnings."""
    h = result.hybrid
    info = h.solve
    gap = tr(", proven gap {gap:.4%}", gap=info.gap) if info and info.gap is not None else ""
    if info and info.heuristic:
        gap = tr(", heuristic plan (greedy, or the weekly stage's): the solver found none in its time share") + (
            tr(", gap unknown") if info.gap is None else tr(", gap ≤ {gap:.2%} to its bound", gap=info.gap)
        )
    console.print(
        tr(
            "status: [bold]{status}[/bold] ({solver}{gap}, {seconds:.2f} s); plan verified independently",
            status=status_label(h.status, tr),
            solver=info.name if info else "",
            gap=gap,
            seconds=info.seconds if info else 0.0,
        ),
        soft_wrap=True,
    )
    console.print(
        tr(
            "objective: {phrase}; strategies are compared on {short}",
            phrase=objective_phrase(result, tr),
            short=tr(OBJECTIVE_SHORT[result.objective]),
        ),
        soft_wrap=True,
    )
    console.print(
        tr("[bold green]Recommendation:[/bold green] {text}", text=esc(recommendation(result, tr))), soft_wrap=True
    )
    if info is not None and info.objective_off is not None:  # reading.agreed: the solver's slip, not the model's
        said = tr(
            "the solver's objective was {amount} off its own solution's value at the model's prices, which are the "
            "ledger's: the plan's cost is its ledger's, and it is not called optimal",
            amount=tr.money(abs(info.objective_off), result.project.currency),
        )
        console.print(f"[yellow bold]![/yellow bold] {esc(said)}", soft_wrap=True)
    risk = spot_risk(result, tr)
    if risk:
        console.print(f"[yellow bold]![/yellow bold] {esc(risk.text)}", soft_wrap=True)
    for note in (stale_text(result, tr), npv_timing_note(result, tr)):
        if note:
            console.print(f"[yellow bold]![/yellow bold] {esc(note)}", soft_wrap=True)


def _print_assignments(console: Console, result: Result, plan: Plan, tr: Lang) -> None:
    """The plan per workload: where, when, its slack to the deadline and its cost."""
    p = result.project
    rows = []
    for a in plan.assignments:
        strat = a.strategy.label() if a.strategy is not None and hasattr(a.strategy, "label") else ""
        rows.append(
            [
                esc(a.workload),
                esc(a.offer_id),
                esc(a.vendor),
                mode_label(a.mode, tr),
                shape_text(a.gpu, a.gpus, a.nodes, tr),
                strat,
                tr.date(day_date(p.start_date, a.start_day)),
                tr.date(day_date(p.start_date, a.end_day)),
                tr.date(day_date(p.start_date, a.deadline_day)),
                f"{a.slack_days:.1f}",
                tr.number(a.gpu_hours),
                tr.money(a.cost),
            ]
        )
    cols = [
        (tr("workload"), "text"),
        (tr("offer"), "text"),
        (tr("vendor"), "text"),
        (tr("mode"), "short"),
        (tr("GPU × count"), "text"),
        (tr("strategy"), "text"),
        (tr("start"), "num"),
        (tr("end"), "num"),
        (tr("deadline"), "num"),
        (tr("slack d"), "num"),
        (tr("GPU-hours"), "num"),
        (tr("cost ({unit})", unit=tr.unit(p.currency)), "num"),
    ]
    console.print(
        _table(
            console,
            tr("Plan per workload"),
            cols,
            rows,
            drop=(tr("vendor"), tr("strategy"), tr("GPU × count"), tr("mode"), tr("offer")),
        )
    )


def _print_capacity(console: Console, result: Result, plan: Plan, tr: Lang) -> None:
    """The capacity bought and rented, then the most nodes held at once per offer."""
    p = result.project
    rows = []
    for pur in plan.purchases:
        lo, hi = held_window(result, pur.offer_id)  # owned: their from–until window; bought: delivery to the end
        rows.append(
            [
                tr("owned (committed)") if pur.committed else mode_label("buy", tr),
                esc(pur.offer_id),
                str(pur.nodes),
                tr.date(day_date(p.start_date, lo)) + ("" if pur.committed else tr(" (delivery)")),
                tr("{months} (owned)", months=f"{p.calendar.months_held(lo, hi) if hi > lo else 0.0:.3g}"),
                tr.money(pur.cost),
            ]
        )
    for r in plan.rentals:
        o = result.offers[r.offer_id]
        what = (
            tr("reserved")
            if o.mode == "cloud"
            else (tr("rent, {n}+ month term", n=r.term_months) if r.term_months is not None else mode_label("rent", tr))
        )
        if r.committed:  # signed before the plan (project commitments)
            what = tr("{what} (committed)", what=what)
        rows.append(
            [
                what,
                esc(r.offer_id),
                str(r.nodes),
                tr.date(day_date(p.start_date, r.start_day)),
                str(r.months),
                tr.money(r.cost),
            ]
        )
    if rows:
        console.print(
            _table(
                console,
                tr("Capacity"),
                [
                    (tr("what"), "short"),
                    (tr("offer"), "text"),
                    (tr("nodes"), "num"),
                    (tr("from"), "num"),
                    (tr("months"), "num"),
                    (tr("cost ({unit})", unit=tr.unit(p.currency)), "num"),
                ],
                rows,
            )
        )
    prow = [
        [
            mode_label(pk.mode, tr) + (tr(" (spot)") if pk.spot else "") + (tr(" (reserved)") if pk.reserved else ""),
            esc(pk.offer_id),
            str(pk.peak_nodes),
            f"{tr.number(pk.amount)} {amount_unit(pk.amount_unit, tr)}",
        ]
        for pk in peaks(result)
    ]
    console.print(
        _table(
            console,
            tr("Peak capacity: most nodes held at once per offer"),
            [(tr("mode"), "short"), (tr("offer"), "text"), (tr("peak nodes"), "num"), (tr("used"), "num")],
            prow,
        )
    )


def _print_breakdown(console: Console, result: Result, plan: Plan, tr: Lang) -> None:
    """The cost per category, the total cost of ownership and, when discounted, the NPV."""
    p = result.project
    t = Table(title=tr("Cost breakdown ({unit})", unit=tr.unit(p.currency)))
    t.add_column(tr("category"), overflow="fold")
    t.add_column(tr("amount"), justify="right", no_wrap=True)
    for c in CATEGORIES:
        if abs(plan.breakdown.get(c, 0.0)) > 0.005:
            t.add_row(tr(CATEGORY_LABEL[c]), tr.money(plan.breakdown[c]))
    t.add_row(tr("[bold]total cost of ownership[/bold]"), f"[bold]{tr.money(plan.total_cost)}[/bold]")
    if p.discount_rate > 0:
        t.add_row(tr("net present value at {rate:.1%}/year", rate=p.discount_rate), tr.money(plan.npv_cost))
    console.print(t)


def _print_runner_ups(console: Console, result: Result, tr: Lang) -> None:
    """The runner-up offers per workload, each with the whole plan re-solved on it, or why none were costed."""
    if result.runner_ups_skipped:
        skipped = tr("runner-ups not costed: no time was left within --time-limit; raise --time-limit to cost them")
        console.print("[yellow bold]![/yellow bold] " + skipped, soft_wrap=True)
    if not result.runner_ups:
        return
    from .tables import runner_up_rows  # tables imports this module's labels

    short = tr(OBJECTIVE_SHORT[result.objective])
    rows = []
    for r in runner_up_rows(result, tr):
        if result.runner_ups_skipped and r["plan_cost"] is None:
            continue  # not costed for want of time: the warning above says so; a row of dashes says nothing
        if r["vs_chosen"] is None:
            extra = "—"
        else:
            bound = "≤ " if r["status"] not in (None, "optimal") else ""
            extra = bound + signed_money(r["vs_chosen"], tr)
        why = f"{tr(WHY_LABEL[r['why']])}: {esc(r['reason'])}"
        rows.append(
            [
                esc(r["workload"]),
                esc(r["offer"]),
                mode_label(r["mode"], tr),
                r["shape"],
                tr.money(r["plan_cost"]),
                extra,
                why,
            ]
        )
    if not rows:
        return
    cols = [
        (tr("workload"), "text"),
        (tr("instead on"), "text"),
        (tr("mode"), "short"),
        (tr("GPU × count"), "text"),
        (tr("plan {short}", short=short), "num"),
        (tr("vs chosen"), "num"),
        (tr("why not"), "text"),
    ]
    console.print(
        _table(
            console,
            tr(
                "Runner-up offers per workload: the whole plan re-solved with the workload held to that offer ({short}, "
                "{unit})",
                short=short,
                unit=tr.unit(result.project.currency),
            ),
            cols,
            rows,
            drop=(tr("why not"), tr("GPU × count"), tr("mode")),
        )
    )


def _print_set_aside(console: Console, result: Result, tr: Lang = EN) -> None:
    """A partial plan's headline, then each job set aside with every reason."""
    head = set_aside_headline(result, tr)
    if not head:
        return
    console.print(f"[yellow bold]![/yellow bold] [bold]{esc(head)}[/bold]", soft_wrap=True)
    for x in result.set_aside:
        console.print(tr("  set aside: [bold]{workload}[/bold]", workload=esc(x.workload)), soft_wrap=True)
        for line in x.reasons:
            console.print(f"    - {esc(tr.say(line))}", soft_wrap=True)
    console.print(tr("  the other jobs are planned below; --all-or-nothing plans every job or none"), soft_wrap=True)


def _print_strategies(console: Console, result: Result, tr: Lang = EN) -> None:
    from .tables import strategy_quality  # tables imports this module's labels

    if len(result.strategies) <= 1:
        return
    p = result.project
    obj, other = result.objective, str(Objective(result.objective).other)
    rows = []
    for c in comparisons(result, tr):
        s = result.strategies[c.name]
        if c.status == "excluded":
            rows.append([c.label, tr("excluded by you"), "—", "—", "—", "allowed_modes"])
            continue
        diff = saving_text(c, tr)
        gap = f"{c.gap:.2%}" if c.gap is not None else ""
        why = ""
        if s.plan is None and s.reasons:
            first_w, rs = next(iter(s.reasons.items()))
            why = esc(f"{first_w}: {tr.say(rs[0])}")
        status = status_label(c.status, tr) + (tr(", gap {gap}", gap=gap) if c.status == "feasible" else "")
        if s.solve is not None and s.solve.heuristic:
            status = f"{status_label(c.status, tr)} ({strategy_quality(s, tr)})"
        rows.append([c.label, status, tr.money(c.cost, p.currency), diff, tr.money(c.other, p.currency), why])
    cols = [
        (tr("strategy"), "short"),
        (tr("status"), "text"),
        (tr(OBJECTIVE_SHORT[obj]), "num"),
        (tr(SAVING_HEADER, short=tr(OBJECTIVE_SHORT[obj])), "num"),
        (tr(OBJECTIVE_SHORT[other]), "num"),
        (tr("why not"), "text"),
    ]
    if not any(r[-1] for r in rows):
        cols, rows = cols[:-1], [r[:-1] for r in rows]
    console.print(
        _table(
            console,
            tr(
                "Strategies compared on {obj} (minimized), {other} beside it",
                obj=tr(OBJECTIVE_SHORT[obj]),
                other=tr(OBJECTIVE_SHORT[other]),
            ),
            cols,
            rows,
            drop=(tr("why not"),),
        )
    )
