"""Decision analytics on top of the planner (``procure analyze``): break-even prices (re-optimized with the
same MILP), the tornado (today's plan re-costed at each driver's ends), and the Monte Carlo study (today's plan
signed and lived through each scenario, with recourse where it breaks; or, on request, re-optimized in
hindsight).

    from procure.analysis import analyze
    a = analyze(project, offers, monte_carlo=200, workers=2)
    df = a.scenarios_frame()          # one row per scenario and strategy (pandas)
    df.groupby("strategy").total_cost.describe()

- ``scenario``    — a scenario (drivers moved from today's value) applied to today's inputs; sizing reused.
- ``recost``      — the decided plan re-costed (not re-optimized) under a scenario.
- ``recourse``    — the committed plan's optimal recourse, and the hindsight LP bound.
- ``engine``      — every strategy evaluated or re-solved under a scenario; parallel over processes or a Dask cluster.
- ``break_even``  — break-even prices of losing offers and losing single-mode strategies.
- ``sensitivity`` — the tornado: each driver at its low and high value.
- ``montecarlo``  — scenarios drawn from distributions; the committed plan's P10/P50/P90, recourse, the value
  of waiting (or hindsight optima, win probabilities, regret).
- ``compare``     — two or more workload files side by side.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from procure.models.analysis import DRIVERS
from procure.models.offer import MODES, Offer
from procure.models.project import Project
from procure.solver import holdings
from procure.solver.costs import Objective
from procure.solver.planner import Resizer, plan_from_sizings
from procure.solver.reasons import say
from procure.solver.result import Result

from . import break_even as be, fast, montecarlo as mc, sensitivity as sens
from .engine import (
    MC_MODES,
    Context,
    OutOfTime,
    Runner,
    ScenarioOutcome,
    default_workers,
    evaluate_scenario,
    inert_drivers,
    recost_scenario,
    solve_scenario,
)
from .scenario import Baseline, Scenario

__all__ = ["Analysis", "analyze", "Scenario", "Baseline", "Context", "Runner", "default_workers"]


@dataclass
class Analysis:
    base: Result
    inputs: Baseline
    break_even: list[be.BreakEven] | None = None
    sensitivity: list[sens.Bar] | None = None
    monte_carlo: list[ScenarioOutcome] | None = None
    summary: mc.Summary | None = None
    seconds: dict[str, float] = field(default_factory=dict)  # per analysis, wall clock
    solves: dict[str, int] = field(default_factory=dict)  # MILP solves per analysis
    #: per analysis, its answers by the path that gave them: {"lp": n, "reference": n, "kept": n} (fast.py)
    solved_by: dict[str, dict[str, int]] = field(default_factory=dict)
    workers: int = 1
    #: the analyses not done because the deadline passed first (``solve --analyze --time-limit``), in run order
    skipped: list[str] = field(default_factory=list)
    #: what the Monte Carlo measured (montecarlo.py): ``policy``, ``recourse`` or ``hindsight``
    monte_carlo_mode: str = "policy"

    @property
    def currency(self) -> str:
        return self.base.project.currency

    # --- pandas ----------------------------------------------------------------------------------
    def scenarios_frame(self):
        """One row per (scenario, strategy) of the sensitivity and Monte Carlo runs, failures included."""
        import pandas as pd

        rows = []
        hindsight = self.monte_carlo_mode == "hindsight"
        for kind, outcomes in (
            ("sensitivity", [o for b in (self.sensitivity or []) for o in (b.low, b.high)]),
            ("monte_carlo", self.monte_carlo or []),
        ):
            for o in outcomes:
                win = mc.winner(o, self.inputs.objective)
                values = o.scenario.values()
                for name, s in o.strategies.items():
                    free = name == "hybrid"
                    metric = Objective(self.inputs.objective).of(s) if s.ok else None
                    rows.append(
                        {
                            "analysis": kind,
                            "scenario": o.scenario.label,
                            "strategy": name,
                            "status": s.status,
                            "total_cost": s.total_cost,
                            "npv_cost": s.npv_cost,
                            "after_tax_npv": s.after_tax_npv if s.ok else None,
                            "modes": "+".join(s.modes),
                            "offers": " ".join(s.offers),
                            "cheapest": win == name,
                            "re_solved": s.solved,
                            "solved_by": s.solved_by,
                            "decided_cost": o.decided_cost if free else None,
                            # against a scenario's hindsight optimum: only the hindsight Monte Carlo solves it
                            "regret": mc.regret(o, metric) if free and hindsight and kind == "monte_carlo" else None,
                            "detail": s.detail or (o.decided_detail if free and o.decided_cost is None else ""),
                            **values,
                        }
                    )
        cols = [
            "analysis",
            "scenario",
            "strategy",
            "status",
            "total_cost",
            "npv_cost",
            "after_tax_npv",
            "modes",
            "offers",
            "cheapest",
            "re_solved",
            "solved_by",
            "decided_cost",
            "regret",
            "detail",
            *DRIVERS,
        ]
        return pd.DataFrame(rows, columns=cols)

    def break_even_frame(self):
        import pandas as pd

        rows = [
            {
                "offer": b.subject,
                "kind": b.kind,
                "mode": b.mode,
                "field": b.field,
                "current": b.current,
                "break_even": b.break_even,
                "change_pct": b.change_pct,
                # an offer's prices are as quoted, in ``currency``; reporting_* are the same in the project's
                "currency": (b.currency or None) if b.kind == "offer" else None,
                "reporting_current": b.reporting(b.current) if b.kind == "offer" else None,
                "reporting_break_even": b.reporting(b.break_even) if b.kind == "offer" else None,
                "reason": b.reason,
                "solves": b.solves,
            }
            for b in (self.break_even or [])
        ]
        cols = ["offer", "kind", "mode", "field", "current", "break_even", "change_pct", "currency"]
        return pd.DataFrame(rows, columns=[*cols, "reporting_current", "reporting_break_even", "reason", "solves"])

    def sensitivity_frame(self):
        import pandas as pd

        rows = []
        for b in self.sensitivity or []:
            rows.append(
                {
                    "driver": b.driver,
                    "low_value": b.low_value,
                    "high_value": b.high_value,
                    "low_tco": b.tco("low"),
                    "high_tco": b.tco("high"),
                    "low_npv": b.npv("low"),
                    "high_npv": b.npv("high"),
                    "low_after_tax_npv": b.after_tax("low"),
                    "high_after_tax_npv": b.after_tax("high"),
                    "reach": b.reach,
                    "low_modes": "+".join(b.modes("low") or ()),
                    "high_modes": "+".join(b.modes("high") or ()),
                    "flips": b.flips,
                    # the free plan re-optimized at each end, beside today's plan re-costed there
                    **{f"{e}_optimum": b.optimum(e) for e in ("low", "high")},
                    **{f"{e}_optimum_modes": "+".join(b.optimum_modes(e) or ()) for e in ("low", "high")},
                    **{f"{e}_decision_changes": b.changes(e) for e in ("low", "high")},
                    **{f"{e}_{s}": b.tco(e, s) for s in MODES for e in ("low", "high")},
                }
            )
        return pd.DataFrame(rows)


def analyze(
    project: Project,
    offers: list[Offer],
    *,
    break_even: bool = True,
    sensitivity: bool = True,
    monte_carlo: int | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    solver: str = "cbc",
    time_limit: float | None = None,
    gap: float = 1e-6,
    objective: Objective = Objective.TCO,
    progress=None,
    sizings=None,
    resize=None,
    base: Result | None = None,
    seed: int | None = None,
    deadline: float | None = None,
    fast: bool = True,
    monte_carlo_mode: str = "policy",
    bounds: int | None = None,
) -> Analysis:
    """Plan today's inputs (all four strategies), then run the requested analyses on top of that plan.

    ``sizings``/``resize`` default to the sizing engine's (tests pass fixed ones); ``base`` may be a
    result already planned from exactly these inputs (``procure solve --analyze``). ``monte_carlo``:
    the number of scenarios (None: no Monte Carlo). ``progress``: a rich Progress to report into.
    ``deadline`` (``time.time()``): every solve ends by then; an analysis not finished by then is
    dropped and named in ``skipped`` (one analysis' figures are never half from a cut run).
    ``fast``: re-solves try the LP first (``fast.lp_first``); False: all on the reference path.
    ``monte_carlo_mode``: ``policy`` (the committed plan, recourse where it breaks), ``recourse`` (the optimal
    recourse in every scenario) or ``hindsight`` (every strategy re-optimized, to ``gap``); ``bounds``: the
    scenarios whose hindsight optimum is bracketed for the value of waiting (default ``BOUNDS``, at most all).
    """
    if monte_carlo_mode not in MC_MODES:
        raise ValueError(f"monte_carlo_mode {monte_carlo_mode!r}: one of {', '.join(MC_MODES)}")
    offers = holdings.with_owned(project, list(offers))  # owned servers are an offer of their own
    project = holdings.as_signed(project, offers)  # commitments at their signed rates in every scenario
    if sizings is None:
        from procure.solver.sizing import size_project

        sizings = size_project(project, offers)
    resize = resize or Resizer(project)
    inputs = Baseline(project, list(offers), sizings, resize, solver, time_limit, gap, objective, deadline, fast)
    t0 = time.perf_counter()
    if base is None:
        base = plan_from_sizings(
            project,
            offers,
            sizings,
            resize,
            solver=solver,
            time_limit=time_limit,
            gap=gap,
            objective=objective,
            compare=True,
            n_runner_ups=0,
        )
    if base.set_aside:  # a partial plan: every scenario plans the jobs it planned
        inputs = Baseline(
            base.project,
            list(offers),
            base.sizings,
            Resizer(base.project),
            solver,
            time_limit,
            gap,
            objective,
            deadline,
            fast,
        )
    if base.plan is not None and base.risk is None:
        from .plan_risk import plan_risk

        base.risk = plan_risk(base)
    out = Analysis(base, inputs, seconds={"base": time.perf_counter() - t0}, solves={"base": len(base.strategies)})
    out.monte_carlo_mode = monte_carlo_mode
    if base.plan is None:
        return out
    ctx = Context.of(inputs, base)
    with Runner(ctx, workers, scheduler, progress) as runner:
        out.workers = runner.workers
        if sensitivity:
            _stage(out, "sensitivity", lambda: _sensitivity(out, runner))
        if break_even:
            _stage(out, "break_even", lambda: _break_even_stage(out, runner))
        if monte_carlo:
            _stage(out, "monte_carlo", lambda: _monte_carlo(out, runner, monte_carlo, seed, bounds))
    return out


def _stage(out: Analysis, name: str, run) -> None:
    """Run one analysis and time it; past the deadline it is skipped (named in ``out.skipped``)."""
    t = time.perf_counter()
    try:
        run()
    except OutOfTime:
        out.skipped.append(name)
        return
    out.seconds[name] = time.perf_counter() - t


def _sensitivity(out: Analysis, runner: Runner) -> None:
    analysis = out.inputs.project.analysis
    modes = tuple(sorted(out.base.plan.modes())) if out.base.plan is not None else ()
    outcomes = runner.map(_tornado_task, sens.scenarios(analysis), "sensitivity")
    reaches = {d: sens.reach(runner.ctx, d) for d in DRIVERS}
    out.sensitivity = sens.bars(analysis, outcomes, modes, out.inputs.objective, reaches)
    out.solves["sensitivity"] = _solves(outcomes)
    out.solved_by["sensitivity"] = _paths(outcomes)


def _break_even_stage(out: Analysis, runner: Runner) -> None:
    out.break_even = _break_even(out.base, runner)
    out.solves["break_even"] = sum(b.solves for b in out.break_even)
    out.solved_by["break_even"] = _tally(b.solved_by for b in out.break_even)


#: scenarios whose hindsight optimum is bracketed (an LP per strategy each) for the value of waiting, by default
BOUNDS = 20
#: said in place of the value of waiting where its LP bounds cannot be computed
MISSING_HIGHS = (
    "not computed: its bounds are LP relaxations solved by HiGHS, and highspy is not installed (pip install highspy)"
)


def _monte_carlo(out: Analysis, runner: Runner, n: int, seed: int | None, bounds: int | None = None) -> None:
    """Draw, evaluate and reduce the scenarios as they come (``mc.Stream``: bounded memory)."""
    mode = out.monte_carlo_mode
    draws = mc.draw(out.inputs.project.analysis, n, seed)
    k = 0 if mode == "hindsight" else min(n, BOUNDS if bounds is None else bounds)
    today = {name: (out.inputs.metric(p) if p is not None else None) for name, p in runner.ctx.base_plans.items()}
    stream = mc.Stream(out.inputs.objective, mode, today, out.inputs.gap)
    items = ((s, mode, j < k) for j, s in enumerate(draws))
    solves, paths = 0, dict[str, int]()
    for o in runner.imap(_mc_task, items, "Monte Carlo", total=len(draws)):
        stream.add(o)
        solves += sum(s.solved for s in o.strategies.values())
        for s in o.strategies.values():
            if s.solved_by:
                paths[s.solved_by] = paths.get(s.solved_by, 0) + 1
    out.monte_carlo = stream.kept
    out.summary = stream.summary()
    if k and not fast.available():
        out.summary.bounds_missing = MISSING_HIGHS
    out.solves["monte_carlo"] = solves
    out.solved_by["monte_carlo"] = dict(sorted(paths.items()))


def _mc_task(ctx: Context, item: tuple[Scenario, str, bool]) -> ScenarioOutcome:
    scenario, mode, bounds = item
    return evaluate_scenario(ctx, scenario, mode, bounds)


def _answers(o: ScenarioOutcome):
    """The outcomes of one scenario: each strategy's, and the tornado's re-optimized free strategy where it is a
    solve of its own (not the strategy's own re-optimization)."""
    yield from o.strategies.values()
    if o.optimum is not None and all(o.optimum is not s for s in o.strategies.values()):
        yield o.optimum


def _solves(outcomes: list[ScenarioOutcome]) -> int:
    """MILP solves run (a strategy whose plan provably did not change is kept, not solved)."""
    return sum(s.solved for o in outcomes for s in _answers(o))


def _paths(outcomes: list[ScenarioOutcome]) -> dict[str, int]:
    """(scenario, strategy) answers by the path that gave them (fast.LP, fast.REFERENCE, fast.KEPT)."""
    return _tally({s.solved_by: 1} for o in outcomes for s in _answers(o) if s.solved_by)


def _tally(counts) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in counts:
        for k, n in c.items():
            out[k] = out.get(k, 0) + n
    return dict(sorted(out.items()))


def _scenario_task(ctx: Context, scenario: Scenario) -> ScenarioOutcome:
    return solve_scenario(ctx, scenario)


def _tornado_task(ctx: Context, scenario: Scenario) -> ScenarioOutcome:
    return recost_scenario(ctx, scenario)


def _break_even_task(ctx: Context, item: tuple[str, str]) -> be.BreakEven:
    kind, key = item
    search = {"driver": be.driver_break_even, "strategy": be.strategy_break_even}.get(kind, be.offer_break_even)
    return be.with_paths(search, ctx, key)


def _break_even(base: Result, runner: Runner) -> list[be.BreakEven]:
    """Losing single-mode strategies, then every offer the plan does not use (by rule when no shape of
    it can run any workload, else by re-solving)."""
    tol = 1e-6
    if base.plan is None:
        raise ValueError("break-even analysis needs a feasible recommended plan")
    best = base.plan.total_cost
    tasks: list[tuple[str, str]] = []
    for mode in MODES:
        s = base.strategies.get(mode)
        if s is not None and s.plan is not None and s.plan.total_cost > best * (1 + tol) + 0.01:
            tasks.append(("strategy", mode))
    inert = inert_drivers(runner.ctx)
    tasks += [("driver", d) for d in ("staff", "network", "storage") if d not in inert]
    ruled = be.offers_without_options(base)
    results: dict[tuple[str, str], be.BreakEven] = {}
    for oid in be.losing_offers(base):
        if base.offers[oid].mode not in base.hybrid.modes:
            results[("offer", oid)] = be.rule_break_even(
                base, oid, say("{mode} is not in allowed_modes", mode=base.offers[oid].mode)
            )
        elif oid in ruled:
            results[("offer", oid)] = be.rule_break_even(base, oid, ruled[oid])
        else:
            tasks.append(("offer", oid))
    for item, res in zip(tasks, runner.map(_break_even_task, tasks, "break-even"), strict=True):
        results[item] = res
    strategies = [results[t] for t in tasks if t[0] in ("strategy", "driver")]
    offers = sorted((r for k, r in results.items() if k[0] == "offer"), key=_closeness)
    return strategies + offers


def _closeness(b: be.BreakEven):
    """Offers nearest to winning first; those no price makes win last."""
    return (b.change_pct is None, -(b.change_pct if b.change_pct is not None else 0.0), b.subject)
