"""The analysis' LP-first re-solve (analysis/fast.py) against the reference path (planner.run_strategy, CBC).

Every answer the LP path gives must equal the reference optimum on the objective (both TCO and NPV, to
1e-6 relative) and pass the verifier; anything it cannot prove must come back from the reference path,
saying so (``solved_by``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bench.generate import generate
from procure.analysis import engine, fast
from procure.analysis.engine import Context, solve_scenario
from procure.analysis.recost import decided_under
from procure.analysis.scenario import Baseline, Scenario
from procure.models.project import load_project
from procure.offers.catalog import load_catalog
from procure.solver.costs import Objective
from procure.solver.enums import SolveStatus, Strategy
from procure.solver.planner import Resizer, plan_from_sizings
from procure.solver.sizing import size_project
from procure.solver.verify import VerificationError, verify_plan

pytest.importorskip("highspy")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

#: scenarios moving prices only (the structure stays) and moving the hours and deadlines (it does not)
SCENARIOS = [
    Scenario.of("prices", {"price_buy": 1.15, "price_rent": 0.85, "price_cloud": 1.1, "electricity": 1.3}),
    Scenario.of("slower", {"mfu": 0.85, "tokens": 1.1}),
    Scenario.of("faster", {"mfu": 1.1, "tokens": 0.9, "price_cloud": 0.8}),
]


def _context(project, offers, objective: str) -> Context:
    sizings = size_project(project, offers)
    resize = Resizer(project)
    base = plan_from_sizings(project, offers, sizings, resize, compare=True, n_runner_ups=0, objective=objective)
    if base.set_aside:  # a partial plan: the scenarios plan the jobs it planned (as analysis.analyze does)
        project, sizings, resize = base.project, base.sizings, Resizer(base.project)
    return Context.of(Baseline(project, list(offers), sizings, resize, objective=objective), base)


def _compare(ctx: Context, scenarios, reduced: bool = False) -> dict[str, int]:
    """Each strategy of each scenario by the LP path and by the reference path: the same optimum on the
    objective, every LP plan verified again here. Returns how many each path answered, and fell back."""
    counts = {fast.LP: 0, "fallback": 0}
    value = Objective(ctx.inputs.objective).of
    for s in scenarios:
        a = ctx.inputs.apply(s)
        for name in ctx.base_plans:
            if ctx.statuses.get(name) == "excluded":
                continue
            base = ctx.base_plans.get(name)
            warm = decided_under(base, a, s.hours_factor, ctx.modes[name])[0] if base is not None else None
            answered = fast.lp_first(
                a.project,
                a.offers,
                a.sizings,
                Strategy(name),
                ctx.modes[name],
                resize=a.resize,
                objective=ctx.inputs.objective,
                gap=ctx.inputs.gap,
                warm=warm,
                reduced=reduced,
            )
            ref = engine._reference(ctx, a, name, warm)
            if answered is None:
                counts["fallback"] += 1
                continue
            got, path = answered
            counts[path] = counts.get(path, 0) + 1
            assert ref.status == SolveStatus.OPTIMAL, (s.label, name, ref.detail)
            assert got.status == SolveStatus.OPTIMAL
            verify_plan(a.project, a.offers, got.plan, a.resize, ctx.modes[name])  # raises on a broken rule
            mine, theirs = value(got.plan), value(ref.plan)
            assert mine == pytest.approx(theirs, rel=1e-6, abs=1e-6), (s.label, name)
            # the solver's word agrees with the cost model's cost of the plan (reading.agreed)
            assert got.solve.objective == pytest.approx(mine, rel=1e-6, abs=1e-6)
    return counts


@pytest.mark.parametrize("objective", ["tco", "npv"])
@pytest.mark.parametrize("example", ["qlora-7b-week.yaml", "small-lab.yaml"])
def test_the_lp_path_equals_the_reference_on_the_examples(example, objective):
    project, _ = load_project(EXAMPLES / example)
    offers = project_offers(project, example)
    counts = _compare(_context(project, offers, objective), SCENARIOS)
    assert counts["lp"] >= 1  # the path is taken at all


@pytest.mark.parametrize("objective", ["tco", "npv"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_lp_path_equals_the_reference_on_seeded_random_instances(seed, objective):
    project, offers = generate("S", seed)
    _compare(_context(project, offers, objective), SCENARIOS)


@pytest.mark.slow
@pytest.mark.parametrize("objective", ["tco", "npv"])
def test_the_lp_path_equals_the_reference_on_the_programme(objective):
    from procure.analysis import montecarlo as mc

    project, _ = load_project(EXAMPLES / "programme-12-months.yaml")
    ctx = _context(project, load_catalog().offers, objective)
    counts = _compare(ctx, SCENARIOS[:1] + mc.draw(project.analysis, 2, seed=7))
    assert counts["lp"] >= 4


def project_offers(project, example: str):
    """The example's own catalog (``offers:`` in the workload file), else the bundled one."""
    paths = [EXAMPLES / p for p in (project.offers or [])]
    return load_catalog(paths or None).offers


def _programme_like():
    from tests.helpers import analysis_case, fixed_sizings

    p, offers, hours = analysis_case()
    sizings, resize = fixed_sizings(p, offers, hours)
    base = plan_from_sizings(p, offers, sizings, resize, compare=True, n_runner_ups=0)
    return Context.of(Baseline(p, offers, sizings, resize), base)


def test_every_answer_says_which_path_gave_it():
    ctx = _programme_like()
    out = solve_scenario(ctx, Scenario.of("dear", {"price_cloud": 0.7, "tokens": 1.05}))
    paths = {name: s.solved_by for name, s in out.strategies.items()}
    assert set(paths.values()) <= {fast.LP, fast.REFERENCE, fast.KEPT}
    assert fast.LP in paths.values()
    reference = solve_scenario(replace(ctx, inputs=replace(ctx.inputs, fast=False)), out.scenario)
    for name, s in out.strategies.items():
        assert reference.strategies[name].solved_by in (fast.REFERENCE, fast.KEPT)
        assert s.total_cost == pytest.approx(reference.strategies[name].total_cost, rel=1e-6)


def test_without_highspy_every_re_solve_takes_the_reference_path(monkeypatch):
    monkeypatch.setattr(fast, "available", lambda: False)
    ctx = _programme_like()
    out = solve_scenario(ctx, Scenario.of("dear", {"price_cloud": 0.7}))
    assert {s.solved_by for s in out.strategies.values()} <= {fast.REFERENCE, fast.KEPT}
    assert fast.REFERENCE in {s.solved_by for s in out.strategies.values()}


def test_a_plan_the_verifier_rejects_is_never_the_lp_paths_answer(monkeypatch):
    def refuse(*_a, **_k):
        raise VerificationError(["a rule the test breaks"])

    ctx = _programme_like()
    figures: dict = {}
    a = ctx.inputs.apply(Scenario.of("dear", {"price_cloud": 0.7}))
    # the LP path's plans (read through solver.reading, or today's plan kept) are refused; the reference path's not
    monkeypatch.setattr(fast, "verify_plan", refuse)
    monkeypatch.setattr(fast, "read_plan", refuse)
    got = fast.lp_first(
        a.project,
        a.offers,
        a.sizings,
        Strategy.HYBRID,
        ctx.modes["hybrid"],
        resize=a.resize,
        objective="tco",
        gap=1e-6,
        figures=figures,
    )
    assert got is None and figures["why"].startswith("verifier")
    out = solve_scenario(ctx, Scenario.of("dear", {"price_cloud": 0.7}))
    assert out.strategies["hybrid"].solved_by == fast.REFERENCE
    assert out.strategies["hybrid"].ok


def test_an_lp_that_is_not_solved_falls_back_to_the_reference_path(monkeypatch):
    real = fast.solve_lp

    def unsolved(name, model, time_limit, figures):
        return fast.Relaxation(real(name, model, time_limit, figures).arrays)  # as if HiGHS had stopped

    monkeypatch.setattr(fast, "solve_lp", unsolved)
    ctx = _programme_like()
    out = solve_scenario(ctx, Scenario.of("dear", {"price_cloud": 0.7}))
    assert out.strategies["hybrid"].solved_by == fast.REFERENCE
    assert out.strategies["hybrid"].ok


@pytest.mark.parametrize("objective", ["tco", "npv"])
def test_the_reduced_milp_equals_the_reference(monkeypatch, objective):
    """A fractional LP's path: columns fixed by reduced cost against today's plan re-costed, CBC on the rest
    (here every LP is made to look fractional, so that the reduced path answers every strategy)."""
    real = fast.solve_lp

    def fractional(name, model, time_limit, figures):
        lp = real(name, model, time_limit, figures)
        lp.integral = False
        return lp

    monkeypatch.setattr(fast, "solve_lp", fractional)
    project, offers = generate("S", 1)
    counts = _compare(_context(project, offers, objective), SCENARIOS, reduced=True)
    assert counts.get(fast.REDUCED, 0) >= 1 and counts[fast.LP] == 0


def test_reduced_cost_fixing_only_fixes_columns_dearer_than_the_room():
    """Hand-made relaxation: value 100, a known plan at 110 (room 10): the column with reduced cost 12 at its
    lower bound is fixed, those with 5 (within the room) or at a fractional value are not."""
    import numpy as np
    import pulp

    cols = [pulp.LpVariable(f"v{k}", 0, 1, cat=pulp.LpBinary) for k in range(4)]
    cols.append(pulp.LpVariable("n", 0, 5, cat=pulp.LpInteger))
    integer = np.array([True] * 5)
    lower, upper = np.zeros(5), np.array([1, 1, 1, 1, 5.0])
    lp = fast.Relaxation((cols, lower, upper, np.zeros(5), integer), optimal=True, value=100.0)
    lp.x = np.array([0.0, 0.0, 0.4, 1.0, 5.0])
    lp.reduced = np.array([12.0, 5.0, 12.0, -3.0, -11.0])
    assert fast.fix_by_reduced_cost(lp, 110.0) == 2
    assert (cols[0].lowBound, cols[0].upBound) == (0, 0)  # fixed at 0
    assert cols[1].upBound == 1 and cols[2].upBound == 1 and cols[3].lowBound == 0
    assert (cols[4].lowBound, cols[4].upBound) == (5, 5)  # at its upper bound, reduced cost -11: fixed there
