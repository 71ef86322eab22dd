"""Console output of ``procure analyze``: the break-even prices (top 5), the tornado table, and the
Monte Carlo percentiles, win probabilities and regret."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape as esc
from rich.table import Table

from procure.models.analysis import DRIVERS

from .console import STRATEGY_LABEL, money

TOP = 5


def _value(driver: str, v: float) -> str:
    return f"{v:+g} d" if DRIVERS[driver][1] == "days" else f"×{v:g}"


def print_analysis(console: Console, a, top: int = TOP) -> None:
    cur = a.currency
    base = a.base
    if base.plan is None:
        console.print(f"today's inputs have no plan ({base.status}); nothing to analyse", markup=False)
        return
    console.print(f"today's optimum: {money(a.inputs.metric(base.plan), cur)} ({a.inputs.objective.upper()}), modes {' + '.join(sorted(base.plan.modes()))}", markup=False)
    if a.break_even is not None:
        # nearest to winning first: the smallest price cut that makes it the optimum
        priced = sorted((b for b in a.break_even if b.break_even is not None), key=lambda b: abs(b.change_pct or 0.0))
        console.print(f"\n[b]Break-even prices[/b] — {len(priced)} of {len(a.break_even)} losing offers/strategies can win on price; the {min(top, len(priced))} nearest:")
        for b in priced[:top]:
            console.print(f"  • {esc(b.sentence(cur))}", soft_wrap=True)
        blocked = [b for b in a.break_even if b.break_even is None]
        if blocked:
            console.print(f"  {len(blocked)} cannot win at any price from 0 to today's (the reasons are in the JSON and the Break-even sheet).", markup=False)
    if a.sensitivity is not None:
        t = Table(title=f"Sensitivity: optimal {a.inputs.objective.upper()} with one driver moved (re-optimized at each end)")
        for col in ("driver", "low", "high", f"{a.inputs.objective.upper()} at low", "at high", "modes at low", "modes at high", "flips"):
            t.add_column(col, justify="right" if col.startswith(("TCO", "NPV", "at")) else "left")
        for b in a.sensitivity:
            lo, hi = b.measure("low"), b.measure("high")
            t.add_row(b.driver, _value(b.driver, b.low_value), _value(b.driver, b.high_value), money(lo, cur) if lo is not None else "no plan",
                      money(hi, cur) if hi is not None else "no plan", "+".join(b.modes("low") or ("—",)), "+".join(b.modes("high") or ("—",)),
                      "[b]yes[/b]" if b.flips else "no")
        console.print(t)
    if a.summary is not None:
        s = a.summary
        t = Table(title=f"Uncertainty: {s.scenarios} scenarios, every strategy re-optimized in each ({s.failed} without a plan)")
        for col in ("strategy", "P10", "P50", "P90", "cheapest in", "plans"):
            t.add_column(col, justify="left" if col == "strategy" else "right")
        for k, v in s.strategies.items():
            wp = v["win_probability"]
            t.add_row(STRATEGY_LABEL.get(k, k), money(v["p10"], cur), money(v["p50"], cur), money(v["p90"], cur), "—" if wp is None else f"{wp:.0%}", str(v["plans"]))
        console.print(t)
        if s.regret_mean is not None:
            console.print(f"Regret of today's plan kept as decided (re-costed, not re-optimized) against each scenario's optimum: mean {money(s.regret_mean, cur)}, "
                          f"P90 {money(s.regret_p90, cur)} over {s.regret_scenarios} scenarios", markup=False, soft_wrap=True)
        if s.decided_infeasible:
            console.print(f"In {s.decided_infeasible} scenario(s) today's plan cannot run as decided (a deadline or shared nodes); they have no regret figure.", markup=False, soft_wrap=True)
        for sc, st, why in s.failures[:5]:
            console.print(f"  ! {sc} {st}: {esc(why)}", soft_wrap=True)
    timing = ", ".join(f"{k} {v:.1f} s" for k, v in a.seconds.items())
    console.print(f"\n{sum(a.solves.values())} solves on {a.workers} worker(s): {timing}", markup=False)


def print_comparison(console: Console, files: list[str], rows, currency: str) -> None:
    """Each file a column, then the difference of each later file against the first; changed rows marked."""
    t = Table(title=f"Comparison against {files[0]} ({currency}); * marks what differs")
    t.add_column("", style="bold")
    t.add_column("figure")
    for f in files:
        t.add_column(f, justify="right", overflow="fold")
    for f in files[1:]:
        t.add_column(f"Δ {f}", justify="right", overflow="fold")
    section = None
    for r in rows:
        diffs = r.differences()
        cells = [money(v) if r.numeric else ("—" if v is None else esc(str(v))) for v in r.values]
        dcells = [("" if d is None else f"{d:+,.0f}") if r.numeric else ("" if v == r.values[0] else "changed") for d, v in zip(diffs[1:], r.values[1:], strict=True)]
        t.add_row(r.section if r.section != section else "", ("* " if r.changed else "  ") + r.label, *cells, *dcells)
        section = r.section
    console.print(t)
