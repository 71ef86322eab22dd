"""The rental contracts' integrality gate (solver/milp/gate.py): S/E/T continuous with the gate gives the same
optimum as the landed formulation with S/E/T integer, on the examples, seeded random instances and perturbed
(Monte-Carlo-like) programmes, and its two repair steps each end in integral contracts at that optimum."""

from __future__ import annotations

import random

import pytest

from bench.generate import generate
from procure.models.project import load_project
from procure.offers.catalog import load_catalog
from procure.solver import planner
from procure.solver.enums import Objective, SolveStatus, Strategy
from procure.solver.milp import Builder, extract, gate as gate_mod, solve
from procure.solver.milp.gate import GateReport, fractional_contracts, integral_contracts
from procure.solver.options import build_options
from procure.solver.plan import build_plan
from procure.solver.sizing import size_project
from procure.solver.verify import verify_plan

from helpers import EXAMPLES, ROOT, fixed_sizings, offer, project, workload

MODES = {Strategy.HYBRID: None, Strategy.RENT: ("rent",)}


def _both(project, offers, sizings, resize, name: Strategy):
    """The strategy solved with S/E/T integer and with the gate: (integer result, gated result, gate report)."""
    modes = MODES[name] or tuple(project.allowed_modes)
    by_id = {o.id: o for o in offers}
    kw = dict(resize=resize, solver="cbc", gap=1e-6, objective=Objective.TCO)
    whole = planner.run_strategy(project, by_id, sizings, name, modes, contracts_integer=True, **kw)
    report = GateReport()
    gated = planner.run_strategy(project, by_id, sizings, name, modes, gate=report, **kw)
    return whole, gated, report


def _assert_same_optimum(whole, gated):
    assert whole.status == gated.status
    if whole.plan is None:
        return
    assert whole.status == SolveStatus.OPTIMAL
    assert gated.solve.objective == pytest.approx(whole.solve.objective, rel=1e-6)
    assert gated.plan.total_cost == pytest.approx(whole.plan.total_cost, rel=1e-6)
    # every contract of the gated plan is whole: nodes and months are integers the verifier re-costed
    assert all(isinstance(r.nodes, int) and r.nodes > 0 for r in gated.plan.rentals)


def _example(name: str):
    project, _ = load_project(ROOT / "examples" / name)
    holds = project.owned or project.commitments
    offers = load_catalog([ROOT / "examples" / f for f in project.offers] if holds else None).offers
    offers = planner.holdings.with_owned(project, offers)
    return project, offers


#: examples whose four solves (two strategies, two formulations) take over 5 s on two cores
SLOW_EXAMPLES = {"negotiated-quotes.yaml", "programme-12-months.yaml", "full-67b-60days.yaml"}


@pytest.mark.parametrize(
    "example", [pytest.param(e.name, marks=[pytest.mark.slow] if e.name in SLOW_EXAMPLES else []) for e in EXAMPLES]
)
def test_the_gate_and_integer_contracts_give_the_same_optimum_on_the_examples(example):
    project, offers = _example(example)
    sizings = size_project(project, offers)
    for name in (Strategy.RENT, Strategy.HYBRID):
        if name.value != "hybrid" and name.value not in project.allowed_modes:
            continue
        whole, gated, _report = _both(project, offers, sizings, planner.Resizer(project), name)
        _assert_same_optimum(whole, gated)


def tiered_instance(seed: int):
    """A seeded instance on a weekly grid with several contract phases (releases off the month), term-tiered
    rents with setup fees, a reserved cloud term, an on-demand cloud and a purchase: (project, offers, hours)."""
    rng = random.Random(seed)
    offers = [
        offer(
            id=f"r{k}",
            mode="rent",
            price_per_node_month=None,
            min_term_months=None,
            term_prices=[
                {"min_term_months": 1, "price_per_node_month": rng.randint(8, 14) * 1000},
                {"min_term_months": rng.choice([2, 3]), "price_per_node_month": rng.randint(5, 7) * 1000},
            ],
            setup_fee_per_node=rng.choice([0, 1500]),
            lead_time_days=rng.choice([0, 10]),
            max_nodes=rng.choice([2, 3]),
        )
        for k in range(2)
    ]
    offers.append(
        offer(id="rsv", mode="cloud", price_per_node_hour=rng.randint(8, 12), commitment_months=2, max_nodes=2)
    )
    offers.append(offer(id="od", mode="cloud", price_per_node_hour=rng.randint(25, 40), max_nodes=4))
    offers.append(offer(id="b", mode="buy", price_per_node=rng.randint(60, 120) * 1000, max_nodes=2))
    jobs = []
    for k in range(rng.choice([3, 4])):
        release = rng.choice([0, 9, 23, 40, 61])
        jobs.append(workload(name=f"w{k}", earliest_start_days=release, deadline_days=release + rng.choice([42, 70])))
    hours = {}
    for w in jobs:
        base = rng.randint(6, 40) * 24
        for o in offers:
            for n in (1, 2):
                if n <= o.max_nodes:
                    hours[(w["name"], o.id, n)] = base / (n * 0.9) if n > 1 else base
    return project(jobs, horizon_months=6, period_days=7), offers, hours


@pytest.mark.parametrize("seed", [pytest.param(s, marks=[pytest.mark.slow] if s == 10 else []) for s in range(12)])
def test_the_gate_and_integer_contracts_give_the_same_optimum_on_seeded_tiered_instances(seed):
    p, offers, hours = tiered_instance(seed)
    sizings, resize = fixed_sizings(p, offers, hours)
    for name in (Strategy.HYBRID, Strategy.RENT):
        whole, gated, _report = _both(p, offers, sizings, resize, name)
        _assert_same_optimum(whole, gated)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_the_gate_and_integer_contracts_give_the_same_optimum_on_generated_instances(seed):
    """bench.generate's S instances: catalog shapes, real sizing, perturbed prices and terms."""
    p, offers = generate("S", seed)
    sizings = size_project(p, offers)
    for name in (Strategy.HYBRID, Strategy.RENT):
        whole, gated, _report = _both(p, offers, sizings, planner.Resizer(p), name)
        _assert_same_optimum(whole, gated)


@pytest.mark.slow
@pytest.mark.parametrize("scenario", range(3))
def test_the_gate_and_integer_contracts_give_the_same_optimum_on_perturbed_programmes(scenario):
    """A Monte-Carlo-like draw of the 12-month programme: each job's tokens and each rent price scaled by a
    seeded factor (hours from 0.85× to 1.3×, prices ±15%), solved rent-only both ways."""
    project, offers = _example("programme-12-months.yaml")
    rng = random.Random(4200 + scenario)
    workloads = [w.model_copy(update={"tokens_b": w.tokens_b * rng.uniform(0.85, 1.3)}) for w in project.workloads]
    project = project.model_copy(update={"workloads": workloads})
    priced = []
    for o in offers:
        if o.mode == "rent" and o.price_per_node_month:
            o = o.model_copy(update={"price_per_node_month": o.price_per_node_month * rng.uniform(0.85, 1.15)})
        priced.append(o)
    sizings = size_project(project, priced)
    whole, gated, _report = _both(project, priced, sizings, planner.Resizer(project), Strategy.RENT)
    _assert_same_optimum(whole, gated)


def _solved_rent_model(seed: int = 3):
    """A seeded instance with term tiers, rent-only, solved with continuous contracts (not yet gated)."""
    p, offers, hours = tiered_instance(seed)
    sizings, resize = fixed_sizings(p, offers, hours)
    by_id = {o.id: o for o in offers}
    options, _rej, _every = build_options(p, by_id, sizings, ("rent",))
    assert all(options.values()) and any(o.contracted for o in offers)
    builder = Builder(p, options, by_id, contracts_integer=False)
    model = builder.build()
    info = solve(model, "cbc", None, 1e-6)
    assert info.status == SolveStatus.OPTIMAL
    return p, by_id, resize, builder, model, info


def _reference(p, by_id, options_of):
    builder = Builder(p, options_of, by_id, contracts_integer=True)
    model = builder.build()
    return solve(model, "cbc", None, 1e-6)


def _plan_of(model, p, by_id, resize):
    decisions, purchases, contracts = extract(model, p, by_id)
    plan = build_plan(p, by_id, decisions, purchases, contracts)
    verify_plan(p, by_id, plan, resize, ("rent",))
    return plan


def test_a_fractional_contract_is_repaired_by_the_rental_lp_with_the_choices_fixed():
    p, by_id, resize, builder, model, info = _solved_rent_model()
    ref = _reference(p, by_id, builder.options)
    # spread one held contract over two months: the same choices, contract counts no vertex has
    held = [k for k, v in model.S.items() if (v.varValue or 0) >= 1]
    assert held, "the instance rents something"
    oid, L, ph, mm = held[0]
    model.S[(oid, L, ph, mm)].varValue -= 0.5
    assert fractional_contracts(model) == 1
    report = GateReport()
    got = integral_contracts(builder, model, info, "cbc", 1e-6, report=report)
    assert (report.path, report.fractional) == ("lp", 1)
    assert fractional_contracts(model) == 0
    assert got.status == SolveStatus.OPTIMAL
    assert got.objective == pytest.approx(ref.objective, rel=1e-6)
    assert _plan_of(model, p, by_id, resize).total_cost == pytest.approx(ref.objective, rel=1e-6)


def test_contracts_still_fractional_after_the_lp_are_solved_again_with_s_e_t_integer(monkeypatch):
    p, by_id, resize, builder, model, info = _solved_rent_model()
    ref = _reference(p, by_id, builder.options)
    seen = iter([3, 3])  # fractional after the solve and after the x-fixed LP; then the real count
    real = gate_mod.fractional_contracts
    monkeypatch.setattr(gate_mod, "fractional_contracts", lambda m: next(seen, None) or real(m))
    report = GateReport()
    got = integral_contracts(builder, model, info, "cbc", 1e-6, report=report)
    assert report.path == "integer"
    assert builder.contracts_integer and all(v.cat == "Integer" for v in model.S.values())
    assert real(model) == 0
    assert got.status == SolveStatus.OPTIMAL
    assert got.objective == pytest.approx(ref.objective, rel=1e-6)
    assert _plan_of(model, p, by_id, resize).total_cost == pytest.approx(ref.objective, rel=1e-6)


def test_thinned_starts_keep_contract_days_weekly_days_the_warm_start_and_short_jobs():
    from procure.solver.options import LONG_JOB_DAYS, STRIDE_DAYS, thin_starts
    from procure.solver.planner import _fit_to_budget

    o = offer(id="r", mode="rent", price_per_node_month=9000, min_term_months=1, lead_time_days=10, max_nodes=2)
    p = project(
        [workload(name="long", deadline_days=300), workload(name="short", deadline_days=300)],
        period_days=1,
        horizon_months=12,
    )
    sizings, _resize = fixed_sizings(p, [o], {("long", "r", 1): 24 * 100.0, ("short", "r", 1): 24 * 5.0})
    options, _rej, _every = build_options(p, {"r": o}, sizings)
    (long_opt,), (short_opt,) = options["long"], options["short"]
    assert long_opt.wall_days >= LONG_JOB_DAYS > short_opt.wall_days
    warm_start = long_opt.starts[5]
    got = thin_starts(p, options, {long_opt.key: {warm_start}})
    assert got["short"] == [short_opt]  # a short job keeps every start
    kept = got["long"][0].starts
    assert set(kept) < set(long_opt.starts) and len(kept) < len(long_opt.starts) / 3
    assert {long_opt.starts[0], long_opt.starts[-1], warm_start} <= set(kept)
    contract_days = {round(10 + k * 365 / 12) for k in range(12)}  # the lattice of the offer's delivery, day 10
    for s in long_opt.starts:
        on_lattice = any(abs(s - d) < 0.5 for d in contract_days) and abs((s - 10) % (365 / 12)) < 1e-6
        if s % STRIDE_DAYS == 0 or on_lattice:
            assert s in kept
    # the planner thins only when the full grid's root LP would outlast what is left
    assert _fit_to_budget(p, options, None, None)[2] is False
    assert _fit_to_budget(p, options, None, 1e6)[2] is False
    thinned, columns, flag = _fit_to_budget(p, options, None, 0.01)
    assert flag and columns == sum(len(x.starts) for opts in thinned.values() for x in opts)
