"""The planner on tiny cases whose optimum is worked out by hand, and against a brute force.

Hours per shape are fixed in the tests (a stand-in for the sizing engine) so every expected figure can
be derived on paper from the offer prices; the arithmetic is in each test.
"""

from __future__ import annotations

import json

import pytest

from procure.solver import costs
from procure.solver.plan import build_plan
from procure.solver.verify import VerificationError, verify_plan

import oracle_answers
from helpers import EXAMPLES, fixed_sizings, offer, project, solve_fixed, workload
from oracle_answers import random_instance


def wl(name, deadline, earliest=0):
    return dict(
        name=name, model="llama-2-7b", method="full", tokens_b=1, deadline_days=deadline, earliest_start_days=earliest
    )


def test_short_job_is_cheapest_on_cloud():
    # 10 h on one node: cloud 10 h × 30/h = 300; renting costs ≥ one month (14,000); buying 250,000 less resale.
    p = project([wl("a", 30)], electricity_price_per_kwh=0)
    offers = [
        offer(mode="cloud", id="c", price_per_node_hour=30),
        offer(mode="rent", id="r"),
        offer(mode="buy", id="b"),
    ]
    res = solve_fixed(p, offers, {("a", "c", 1): 10, ("a", "r", 1): 10, ("a", "b", 1): 10})
    assert res.status == "optimal"
    assert res.plan.total_cost == pytest.approx(300.0)
    assert [a.offer_id for a in res.plan.assignments] == ["c"]
    assert res.plan.breakdown["cloud"] == pytest.approx(300.0)


def test_three_jobs_share_purchased_servers_so_buying_wins():
    # Three 90-day jobs on 2 nodes, one after another. Buying 2 nodes at 100,000 with 50% resale and no
    # running costs: 2 × 100,000 × (1 − 0.5) = 100,000 for all three. Cloud: 3 × 2 × 2,160 h × 20 = 259,200.
    # Renting at 20,000/node-month needs ≥ 3 months per job: ≥ 3 × 2 × 3 × 20,000 = 360,000.
    p = project([wl("a", 95), wl("b", 195, 100), wl("c", 295, 200)], electricity_price_per_kwh=0)
    buy = offer(
        mode="buy",
        id="b",
        price_per_node=100_000,
        residual_value_pct=0.5,
        maintenance_pct_per_year=0,
        colocation_per_node_month=0,
    )
    cloud = offer(mode="cloud", id="c", price_per_node_hour=20)
    rent = offer(mode="rent", id="r", price_per_node_month=20_000)
    hours = {(w, o, 2): 2160 for w in "abc" for o in "bcr"}
    res = solve_fixed(p, [buy, cloud, rent], hours, compare=True)
    assert res.plan.total_cost == pytest.approx(100_000)
    assert [(x.offer_id, x.nodes) for x in res.plan.purchases] == [("b", 2)]
    assert res.strategies["cloud"].total_cost == pytest.approx(259_200)
    assert res.strategies["rent"].total_cost >= 360_000 - 1e-6
    # the buy capacity is shared: each job's allocated cost is a third (equal node-hours)
    assert [a.cost for a in res.plan.assignments] == pytest.approx([100_000 / 3] * 3)


def test_lead_time_forces_renting():
    # 20-day job due day 30. Buying costs only 10,000 × (1 − 0.9) = 1,000 but delivery takes 60 days.
    # Rent (lead 3 days → first weekly start day 7, ends day 27, inside month 0): 1 × 5,000.
    # Cloud: 480 h × 20 = 9,600.
    p = project([wl("a", 30)], electricity_price_per_kwh=0)
    buy = offer(
        mode="buy",
        id="b",
        price_per_node=10_000,
        residual_value_pct=0.9,
        maintenance_pct_per_year=0,
        colocation_per_node_month=0,
        lead_time_days=60,
    )
    rent = offer(mode="rent", id="r", price_per_node_month=5_000, lead_time_days=3)
    cloud = offer(mode="cloud", id="c", price_per_node_hour=20)
    res = solve_fixed(p, [buy, rent, cloud], {("a", o, 1): 480 for o in "brc"})
    assert res.plan.total_cost == pytest.approx(5_000)
    a = res.plan.assignments[0]
    assert (a.offer_id, a.start_day) == ("r", 7)
    assert [(r.nodes, r.start_month, r.months) for r in res.plan.rentals] == [(1, 0, 1)]
    assert any(r.offer_id == "b" and "lead time 60" in r.reason for r in res.rejections)


def test_minimum_rental_term_makes_cloud_cheaper():
    # 10-day job: a 3-month minimum term costs 3 × 5,000 = 15,000; cloud 240 h × 40 = 9,600.
    p = project([wl("a", 30)])
    cloud = offer(mode="cloud", id="c", price_per_node_hour=40)
    hours = {("a", "c", 1): 240, ("a", "r", 1): 240}
    res = solve_fixed(
        p, [offer(mode="rent", id="r", price_per_node_month=5_000, min_term_months=3), cloud], hours, compare=True
    )
    assert res.plan.total_cost == pytest.approx(9_600) and res.plan.assignments[0].mode == "cloud"
    assert res.strategies["rent"].total_cost == pytest.approx(15_000)
    # with a one-month term renting wins: 5,000
    res1 = solve_fixed(
        p, [offer(mode="rent", id="r", price_per_node_month=5_000, min_term_months=1), cloud], hours, compare=True
    )
    assert res1.plan.total_cost == pytest.approx(5_000)


def test_budget_makes_it_infeasible_with_the_shortfall():
    p = project([wl("a", 30)], budget=100)
    res = solve_fixed(p, [offer(mode="cloud", id="c", price_per_node_hour=30)], {("a", "c", 1): 10}, compare=False)
    assert res.status == "infeasible" and res.plan is None
    text = " ".join(r for rs in res.hybrid.reasons.values() for r in rs)
    assert "total cost of ownership is 300" in text and "short by 200" in text


def test_deadline_infeasibility_names_the_finish_day():
    # 41 days of work at the earliest start day 0 cannot meet day 30.
    p = project([wl("a", 30)])
    res = solve_fixed(p, [offer(mode="cloud", id="c")], {("a", "c", 1): 41 * 24}, compare=False)
    assert res.status == "infeasible"
    text = " ".join(res.hybrid.reasons["a"])
    assert "finishes day 41.0 > deadline day 30" in text


def test_capacity_is_shared_over_time_not_double_counted():
    # Two 14-day jobs on the same bought offer, windows that allow running one after the other: 1 node suffices.
    p = project([wl("a", 40), wl("b", 40)], electricity_price_per_kwh=0)
    buy = offer(
        mode="buy",
        id="b",
        price_per_node=50_000,
        residual_value_pct=0,
        maintenance_pct_per_year=0,
        colocation_per_node_month=0,
    )
    res = solve_fixed(p, [buy], {("a", "b", 1): 14 * 24, ("b", "b", 1): 14 * 24}, compare=False)
    assert res.plan.total_cost == pytest.approx(50_000)
    a, b = res.plan.assignments
    assert a.end_day <= b.start_day + 1e-9 or b.end_day <= a.start_day + 1e-9


def test_energy_of_bought_nodes_follows_the_cost_model():
    # One node, 100 h busy, 10 kW max, PUE 1.5, 0.2/kWh: busy draw above idle 10 × (0.75 − 0.15) × 100 × 1.5 × 0.2 = 180.
    p = project([wl("a", 30)], electricity_price_per_kwh=0.2, pue=1.5, horizon_months=12)
    buy = offer(
        mode="buy",
        id="b",
        price_per_node=1000,
        power_kw_per_node=10,
        residual_value_pct=0,
        maintenance_pct_per_year=0,
        colocation_per_node_month=0,
    )
    res = solve_fixed(p, [buy], {("a", "b", 1): 100}, compare=False)
    idle = 10 * 0.15 * costs.horizon_end_day(p) * 24 * 1.5 * 0.2  # owned all year (lead time 0)
    assert res.plan.breakdown["energy"] == pytest.approx(180 + idle)
    assert res.plan.total_cost == pytest.approx(1000 + 180 + idle)


def test_verifier_rejects_a_plan_that_breaks_a_rule():
    p = project([wl("a", 30)], electricity_price_per_kwh=0)
    offers = [offer(mode="buy", id="b", price_per_node=1000)]
    res = solve_fixed(p, offers, {("a", "b", 1): 100}, compare=False)
    plan = res.plan
    by_id = {o.id: o for o in offers}
    # remove the purchase: the job now runs on nodes nobody bought
    broken = build_plan(p, by_id, plan.decisions, {}, [])
    _, resize = fixed_sizings(p, offers, {("a", "b", 1): 100})
    with pytest.raises(VerificationError, match="capacity"):
        verify_plan(p, by_id, broken, resize)
    # a start after the deadline
    late = build_plan(
        p, by_id, [plan.decisions[0].__class__(**{**plan.decisions[0].__dict__, "start_day": 28.0})], {"b": 1}, []
    )
    with pytest.raises(VerificationError, match="deadline"):
        verify_plan(p, by_id, late, resize)


def test_json_totals_add_up_and_output_is_deterministic():
    from procure.reports.json_report import result_to_json

    p = project([wl("a", 95), wl("b", 195, 100)], electricity_price_per_kwh=0.1)
    offers = [
        offer(mode="buy", id="b", price_per_node=100_000),
        offer(mode="cloud", id="c", price_per_node_hour=20),
        offer(mode="rent", id="r", price_per_node_month=20_000, setup_fee_per_node=1000),
    ]
    hours = {(w, o, n): 1000 / n for w in "ab" for o in "bcr" for n in (1, 2)}
    j1 = result_to_json(solve_fixed(p, offers, hours, compare=True))
    j2 = result_to_json(solve_fixed(p, offers, hours, compare=True))
    for j in (j1, j2):
        j["solver"]["seconds"] = None
    assert json.dumps(j1, sort_keys=True) == json.dumps(j2, sort_keys=True)
    total = j1["total_cost"]
    assert sum(j1["cost_breakdown"].values()) == pytest.approx(total, abs=0.05)
    lines = (
        sum(x["cost"] for x in j1["purchases"])
        + sum(x["cost"] for x in j1["rentals"])
        + sum(a["cost"] for a in j1["assignments"] if a["mode"] == "cloud")
    )
    assert lines == pytest.approx(total, abs=0.05)
    assert sum(a["cost"] for a in j1["assignments"]) == pytest.approx(total, abs=0.05)
    assert set(j1["strategies"]) == {"hybrid", "buy", "rent", "cloud"}


# --- seeded brute force ------------------------------------------------------------------------------


def _assert_milp_matches_brute_force(seed, tiers=False):
    """The MILP's optimum equals the brute force's answer on this instance, stored by ``tests/oracle_answers.py``
    for the instance's fingerprint (the slow tests below recompute every tenth one)."""
    p, offers, hours = random_instance(seed, tiers=tiers)
    stored = oracle_answers.load()["answers"][oracle_answers.case_id(seed, tiers)]
    assert stored["fingerprint"] == oracle_answers.fingerprint(p, offers, hours), (
        "the instance changed since the oracle's answers were stored: run python tests/oracle_answers.py"
    )
    res = solve_fixed(p, offers, hours, compare=False)
    if stored["tco"] is None:
        assert res.status == "infeasible"
    else:
        assert res.status == "optimal"
        assert res.plan.total_cost == pytest.approx(stored["tco"], rel=1e-6)


@pytest.mark.parametrize("seed", range(120))
def test_milp_matches_brute_force(seed):
    _assert_milp_matches_brute_force(seed)


@pytest.mark.parametrize("seed", range(80))
def test_milp_matches_brute_force_with_term_tiers_and_reserved_cloud(seed):
    """Term-tiered rents (each tier a minimum length) and reserved cloud terms (exact lengths): the MILP's optimum
    equals the brute force's, whose contract costs come from an independent dynamic program."""
    _assert_milp_matches_brute_force(1000 + seed, tiers=True)


@pytest.mark.slow  # the oracle enumerates every shape and start: seconds per case
@pytest.mark.parametrize("case", oracle_answers.CASES[::10], ids=lambda c: oracle_answers.case_id(*c))
def test_the_stored_oracle_answers_are_the_oracles(case):
    """Every tenth stored answer recomputed by the brute force as it is now: the file holds the oracle's answers,
    not the solver's, on the same instances."""
    assert oracle_answers.compute(case) == oracle_answers.load()["answers"][oracle_answers.case_id(*case)]


@pytest.mark.slow  # with the recomputation above: the file is checked where the oracle runs
def test_the_stored_oracle_answers_come_from_the_oracle_as_it_is_now():
    assert oracle_answers.load()["oracle_sha256"] == oracle_answers.oracle_sha256(), (
        "the brute force (tests/helpers.py) or random_instance changed since its answers were stored: "
        "run python tests/oracle_answers.py and commit tests/data/brute_force.json"
    )
    assert set(oracle_answers.load()["answers"]) == {oracle_answers.case_id(*c) for c in oracle_answers.CASES}


# --- a second solver ---------------------------------------------------------------------------------

highspy = pytest.importorskip("highspy", reason="HiGHS (highspy) is a dependency; this environment lacks it")


@pytest.mark.parametrize("seed", [*range(0, 120, 4), *range(1000, 1080, 4)])
def test_cbc_and_highs_agree_on_random_instances(seed):
    # seeds from 1000: term-tiered rents and reserved cloud (random_instance with tiers)
    p, offers, hours = random_instance(seed, tiers=seed >= 1000)
    a = solve_fixed(p, offers, hours, compare=False, solver="cbc")
    b = solve_fixed(p, offers, hours, compare=False, solver="highs")
    assert a.status == b.status
    if a.plan is not None:
        assert a.plan.total_cost == pytest.approx(b.plan.total_cost, rel=1e-6)
        for res in (a, b):  # optimal only when the solver's objective is the cost model's cost of its plan
            assert res.hybrid.solve.objective == pytest.approx(res.plan.total_cost, rel=1e-6)


#: examples whose HiGHS solve (every strategy) takes over 5 s on two cores
SLOW_SOLVER_EXAMPLES = {"negotiated-quotes.yaml", "programme-12-months.yaml"}


@pytest.mark.xdist_group("solved")  # the CBC half is the session's cached solve (tests/solved.py)
@pytest.mark.parametrize(
    "example",
    [pytest.param(e.name, marks=[pytest.mark.slow] if e.name in SLOW_SOLVER_EXAMPLES else []) for e in EXAMPLES],
)
def test_cbc_and_highs_agree_on_the_examples(example, solved):
    """Each example as ``procure solve`` plans it (its own offers, else the bundled catalog; every strategy, no
    runner-ups: only the strategies are compared) with CBC, the cached solve, and again with HiGHS."""
    from procure.solver.planner import plan_project

    cbc = solved(next(e for e in EXAMPLES if e.name == example))
    a = cbc.result
    b = plan_project(cbc.inputs.project, cbc.inputs.catalog.offers, solver="highs", n_runner_ups=0)
    for name in ("hybrid", "buy", "rent", "cloud"):
        sa, sb = a.strategies[name], b.strategies[name]
        assert sa.status == sb.status, name
        if sa.plan is not None:
            assert sa.plan.total_cost == pytest.approx(sb.plan.total_cost, rel=1e-6), name


def test_rental_pays_only_the_months_the_job_really_runs():
    # A 29-day job from day 0 ends on day 29, inside month 0 (days 0–30.4), although its last weekly
    # period (days 28–35) reaches into month 1: one month of rent, 5,000 — not two.
    p = project([wl("a", 60)])
    res = solve_fixed(
        p, [offer(mode="rent", id="r", price_per_node_month=5_000)], {("a", "r", 1): 29 * 24}, compare=False
    )
    assert res.plan.total_cost == pytest.approx(5_000)
    assert [(r.start_month, r.months) for r in res.plan.rentals] == [(0, 1)]


@pytest.mark.parametrize("seed", range(0, 120, 6))
def test_greedy_baseline_is_verified_and_never_beats_the_optimum(seed):
    from procure.solver.greedy import greedy_plan
    from procure.solver.options import build_options

    p, offers, hours = random_instance(seed)
    sizings, resize = fixed_sizings(p, offers, hours)
    by_id = {o.id: o for o in offers}
    options, _, _ = build_options(p, by_id, sizings)
    greedy = greedy_plan(p, by_id, options)
    res = solve_fixed(p, offers, hours, compare=False)
    if greedy is not None:
        verify_plan(p, by_id, greedy, resize)
        assert res.plan is not None and res.plan.total_cost <= greedy.total_cost * (1 + 1e-9)


def test_idle_capacity_is_trimmed_and_never_passes_verification():
    # A solve stopped early may buy nodes no job uses: such a plan is valid but wasteful. The planner
    # drops that capacity, and the verifier refuses a plan that still carries it.
    from procure.solver.reading import trim_idle_capacity

    p = project([wl("a", 30)], electricity_price_per_kwh=0)
    offers = [offer(mode="cloud", id="c", price_per_node_hour=30), offer(mode="buy", id="b", price_per_node=1000)]
    res = solve_fixed(p, offers, {("a", "c", 1): 10}, compare=False)
    by_id = {o.id: o for o in offers}
    _, resize = fixed_sizings(p, offers, {("a", "c", 1): 10})
    padded = build_plan(p, by_id, res.plan.decisions, {"b": 2}, [])
    with pytest.raises(VerificationError, match="idle"):
        verify_plan(p, by_id, padded, resize)
    purchases, contracts = trim_idle_capacity(res.plan.decisions, {"b": 2}, [])
    assert purchases == {} and contracts == []


def test_npv_objective_delays_uncapped_cloud_work_to_its_latest_start():
    # With a 50% discount rate, a cloud bill paid later is worth less today; the job can start as late as
    # day 294 (weekly grid: 294 + 100/24 = 298.2) and still finish before day 300.
    p = project([wl("a", 300)], discount_rate=0.5)
    res = solve_fixed(
        p, [offer(mode="cloud", id="c", price_per_node_hour=30)], {("a", "c", 1): 100}, compare=False, objective="npv"
    )
    assert res.plan.assignments[0].start_day == 294
    tco = solve_fixed(p, [offer(mode="cloud", id="c", price_per_node_hour=30)], {("a", "c", 1): 100}, compare=False)
    assert tco.plan.assignments[0].start_day == 0 and tco.plan.total_cost == pytest.approx(res.plan.total_cost)
    assert res.plan.npv_cost < tco.plan.npv_cost


def test_in_process_highs_accepts_an_integral_lp_and_branches_on_a_fractional_one():
    # a single 100-hour cloud job: the LP optimum is integral (2,000 at 20/h), accepted as the optimum;
    # three 20-day jobs on a 6-month-minimum rental without the rent_whole rows: the LP is fractional
    # (22,500, see test_rent_bound), and branching reaches the optimum of one node for 6 months, 60,000
    from procure.solver.enums import SolveStatus
    from procure.solver.milp import Builder, solve
    from procure.solver.options import build_options

    def model(p, offers, hours, drop=""):
        sizings, _resize = fixed_sizings(p, offers, hours)
        options, _rej, _every = build_options(
            p, {o.id: o for o in offers}, sizings, tuple(sorted({o.mode for o in offers}))
        )
        m = Builder(p, options, {o.id: o for o in offers}).build()
        for name in [n for n in m.prob.constraints if drop and n.startswith(drop)]:
            del m.prob.constraints[name]
        return m

    cloud = model(
        project([wl("a", 20)], electricity_price_per_kwh=0),
        [offer(mode="cloud", id="c", price_per_node_hour=20)],
        {("a", "c", 1): 100},
    )
    info = solve(cloud, "highs")
    assert (
        info.status == SolveStatus.OPTIMAL and info.objective == pytest.approx(2_000) and info.gap == pytest.approx(0)
    )
    jobs = [dict(name=f"j{k}", model="llama-2-7b", method="full", tokens_b=1, deadline_days=180) for k in range(3)]
    rent = model(
        project(jobs, horizon_months=12, electricity_price_per_kwh=0),
        [offer(mode="rent", id="r", price_per_node_month=10_000, min_term_months=6, max_nodes=4)],
        {(f"j{k}", "r", 1): 480 for k in range(3)},
        drop="rent_whole",
    )
    info = solve(rent, "highs")
    assert info.status == SolveStatus.OPTIMAL and info.objective == pytest.approx(60_000)


def test_the_resizer_pickles_for_analysis_workers_and_sizes_the_same_shape():
    """The verifier's resizer is sent to worker processes, so it must pickle; its cache stays behind
    (each process sizes a pair once), and the shape it gives after the trip is the one it gave before."""
    import pickle

    from procure.solver.planner import Resizer

    p = project([workload()])
    o = offer()
    resizer = Resizer(p)
    before = resizer(p.workloads[0], o, 1)
    assert before is not None and before.fits
    trip = pickle.loads(pickle.dumps(resizer))
    assert trip._sized == {}  # the cache did not travel
    after = trip(p.workloads[0], o, 1)
    assert (after.hours, after.strategy, after.per_gpu_memory_gb) == (
        before.hours,
        before.strategy,
        before.per_gpu_memory_gb,
    )
    assert trip(p.workloads[0], o, 10_000) is None  # a node count never tried has no shape
