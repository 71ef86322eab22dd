"""Costs beyond the servers: fixed charges, network fabric, storage, egress and operations staff.

Hours per shape are fixed (a stand-in for the sizing engine) so every figure is worked out by hand from
the offer fields; the arithmetic is in each test. A month is 365/12 = 30.4167 days. One checkpoint of
llama-2-7b (full training) is CHECKPOINT_BYTES_PER_PARAM = 14 bytes × 6.738e9 parameters = 94.332 GB =
0.094332 TB (solver/sizing/constants.yaml; the NVMe fit check reserves the same bytes).
"""

from __future__ import annotations

import dataclasses
import math
import random

import pytest

from procure.solver.verify import VerificationError, verify_plan

from helpers import brute_force_tco, cli, offer, project, solve_fixed

CKPT_TB = 14 * 6.738e9 / 1e12  # 0.094332 TB


def wl(name, deadline, earliest=0, **kw):
    return dict(
        name=name,
        model="llama-2-7b",
        method="full",
        tokens_b=1,
        deadline_days=deadline,
        earliest_start_days=earliest,
        **kw,
    )


def bare_buy(**kw):
    """A buy offer with nothing but its price: no resale, maintenance or colocation (electricity is 0 in these projects)."""
    base = dict(
        mode="buy",
        id="b",
        price_per_node=1_000,
        residual_value_pct=0,
        maintenance_pct_per_year=0,
        colocation_per_node_month=0,
    )
    return offer(**{**base, **kw})


# --- fixed charge -------------------------------------------------------------------------------------


@pytest.mark.parametrize("nodes", [2, 32])
def test_fixed_charge_is_the_same_for_2_and_32_nodes(nodes):
    # One job that runs only on `nodes` nodes of a buy offer at 1,000 per node, fixed_cost 50,000 (a spine):
    # 2 nodes: 2 × 1,000 + 50,000 = 52,000;  32 nodes: 32 × 1,000 + 50,000 = 82,000. The fixed line is 50,000 in both.
    p = project([wl("a", 60)], electricity_price_per_kwh=0)
    b = bare_buy(max_nodes=32, fixed_cost=50_000)
    res = solve_fixed(p, [b], {("a", "b", nodes): 100}, compare=False)
    assert res.status == "optimal"
    assert res.plan.breakdown["fixed"] == pytest.approx(50_000)
    assert res.plan.total_cost == pytest.approx(nodes * 1_000 + 50_000)
    (charge,) = res.plan.charges
    assert (charge.kind, charge.offer_id, charge.cost) == ("fixed", "b", pytest.approx(50_000))


def test_fixed_charge_is_paid_once_by_two_jobs_and_decides_between_offers():
    # Two 100-hour jobs, each on 1 node. Cloud c1: 10/h, fixed 5,000 (onboarding) → 2 × 1,000 + 5,000 = 7,000 for both jobs.
    # Cloud c2: 30/h, no fixed cost → 3,000 per job. Alone, one job costs 6,000 on c1 and 3,000 on c2; the pair costs
    # 7,000 on c1 (the charge once) against 6,000 on c2, so c2 wins; mixing (1,000 + 5,000 + 3,000 = 9,000) loses.
    p = project([wl("a", 30), wl("b", 30)], electricity_price_per_kwh=0)
    c1 = offer(mode="cloud", id="c1", price_per_node_hour=10, fixed_cost=5_000)
    c2 = offer(mode="cloud", id="c2", price_per_node_hour=30)
    hours = {(w, o, 1): 100 for w in "ab" for o in ("c1", "c2")}
    res = solve_fixed(p, [c1, c2], hours, compare=False)
    assert res.plan.total_cost == pytest.approx(6_000)
    assert {a.offer_id for a in res.plan.assignments} == {"c2"}
    # at fixed 3,000 the pair costs 2,000 + 3,000 = 5,000 on c1 < 6,000: both jobs go there and the charge is paid once
    res = solve_fixed(
        p, [offer(mode="cloud", id="c1", price_per_node_hour=10, fixed_cost=3_000), c2], hours, compare=False
    )
    assert res.plan.total_cost == pytest.approx(5_000)
    assert res.plan.breakdown["fixed"] == pytest.approx(3_000)
    assert sum(a.cost for a in res.plan.assignments) == pytest.approx(5_000)


def test_fixed_charge_of_a_rent_offer_is_paid_in_its_first_usable_month():
    # Rent 10,000/node-month, lead time 35 days (first usable month ⌊35 / 30.42⌋ = 1), fixed_cost 4,000:
    # one 20-day job from day 35 (the weekly grid's first start ≥ 35 is day 35) → 1 month of rent + 4,000 in month 1.
    p = project([wl("a", 80)], electricity_price_per_kwh=0)
    r = offer(mode="rent", id="r", price_per_node_month=10_000, lead_time_days=35, fixed_cost=4_000)
    res = solve_fixed(p, [r], {("a", "r", 1): 480}, compare=False)
    assert res.plan.total_cost == pytest.approx(14_000)
    assert res.plan.flows["fixed"] == {1: pytest.approx(4_000)}


# --- network, storage, egress ---------------------------------------------------------------------------


def test_network_is_capex_paid_on_delivery_and_depreciated_with_the_servers():
    # 2 nodes at 1,000 with network_per_node 20,000, depreciated over 1 year, horizon 12 months, no resale:
    # network 2 × 20,000 = 40,000 in the delivery month 0; depreciation (2 × 1,000 + 40,000) / 12 = 3,500 a month,
    # 42,000 in year 1 = the TCO; nothing is left on the books, so no loss on disposal.
    p = project([wl("a", 60)], electricity_price_per_kwh=0, depreciation_years=1)
    res = solve_fixed(p, [bare_buy(network_per_node=20_000)], {("a", "b", 2): 100}, compare=False)
    assert res.plan.breakdown["network"] == pytest.approx(40_000)
    assert res.plan.flows["network"] == {0: pytest.approx(40_000)}
    (year,) = res.plan.pnl
    assert year.depreciation == pytest.approx(42_000)
    assert year.disposal_gain == pytest.approx(0.0)
    assert res.plan.total_cost == pytest.approx(42_000)


def test_network_left_on_the_books_is_a_loss_on_disposal():
    # Depreciated over 2 years within a 12-month horizon: half of 2 × (1,000 + 20,000) = 21,000 is depreciated in year 1;
    # the resale value is 0, so the gain on disposal is 0 − 21,000 = −21,000 and the P&L still adds up to 42,000.
    p = project([wl("a", 60)], electricity_price_per_kwh=0, depreciation_years=2)
    res = solve_fixed(p, [bare_buy(network_per_node=20_000)], {("a", "b", 2): 100}, compare=False)
    (year,) = res.plan.pnl
    assert year.depreciation == pytest.approx(21_000)
    assert year.disposal_gain == pytest.approx(-21_000)
    assert year.cost == pytest.approx(42_000)


def test_storage_and_egress_of_a_cloud_job():
    # 100 h on 1 node at 10/h = 1,000. Dataset 1 TB, 2 checkpoints kept of 0.094332 TB: 1.188664 TB held for
    # 100/24 = 4.1667 days of January's 31 at 20 per TB-month → 1.188664 × 20 × 4.1667 / 31 = 3.1953.
    # Egress at 90/TB: the final checkpoint 0.094332 TB, and the dataset (dataset_moves_on) 1 TB → 1.094332 × 90 = 98.49.
    p = project([wl("a", 30, dataset_tb=1.0, checkpoints_kept=2, dataset_moves_on=True)], electricity_price_per_kwh=0)
    c = offer(mode="cloud", id="c", price_per_node_hour=10, storage_per_tb_month=20, egress_per_tb=90)
    res = solve_fixed(p, [c], {("a", "c", 1): 100}, compare=False)
    held = 1.0 + 2 * CKPT_TB
    storage = held * 20 * (100 / 24) / 31
    egress = (CKPT_TB + 1.0) * 90
    assert storage == pytest.approx(3.1953, abs=1e-4) and egress == pytest.approx(98.49, abs=0.01)
    assert res.plan.breakdown["storage"] == pytest.approx(storage)
    assert res.plan.breakdown["egress"] == pytest.approx(egress)
    assert res.plan.total_cost == pytest.approx(1_000 + storage + egress)
    # without dataset_moves_on only the final checkpoint leaves: 0.094332 × 90 = 8.49
    p = project([wl("a", 30, dataset_tb=1.0, checkpoints_kept=2)], electricity_price_per_kwh=0)
    assert solve_fixed(p, [c], {("a", "c", 1): 100}, compare=False).plan.breakdown["egress"] == pytest.approx(
        CKPT_TB * 90
    )


# --- staff -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("nodes", "ftes"), [(64, 1), (65, 2)])
def test_staff_step_65_nodes_at_64_per_fte_is_2_ftes(nodes, ftes):
    # ⌈64 / 64⌉ = 1 FTE, ⌈65 / 64⌉ = 2 FTEs, at 120,000 a year = 10,000 a month, for the 12 months the nodes are owned
    # (delivered day 0, held to the horizon end): 64 nodes → 120,000; 65 nodes → 240,000 (on top of 1,000 per node).
    staff = {"nodes_per_fte": 64, "cost_per_fte_year": 120_000}
    p = project([wl("a", 60)], electricity_price_per_kwh=0, staff=staff)
    res = solve_fixed(p, [bare_buy(max_nodes=65)], {("a", "b", nodes): 100}, compare=False)
    assert res.plan.breakdown["staff"] == pytest.approx(ftes * 10_000 * 12)
    assert res.plan.total_cost == pytest.approx(nodes * 1_000 + ftes * 120_000)
    (charge,) = res.plan.charges
    assert (charge.ftes, charge.months, charge.nodes) == (ftes, 12, nodes)


def test_staff_of_bought_nodes_starts_in_the_delivery_month():
    # Lead time 61 days → delivered in month ⌊61 / 30.4167⌋ = 2 and held in months 2–11: 10 months × 10,000 = 100,000.
    p = project([wl("a", 120)], electricity_price_per_kwh=0, staff={"nodes_per_fte": 64, "cost_per_fte_year": 120_000})
    res = solve_fixed(p, [bare_buy(lead_time_days=61)], {("a", "b", 1): 100}, compare=False)
    assert res.plan.flows["staff"] == {m: pytest.approx(10_000) for m in range(2, 12)}


def test_staff_of_rented_nodes_is_paid_from_the_first_to_the_last_month_held():
    # staff modes [rent], 1 node per FTE at 12,000 a year (1,000 a month). Two 10-day jobs on 1 rented node: one in
    # month 0, one released on day 160 (month ⌊160 / 30.4167⌋ = 5). Rent 2 × 5,000; the staff is paid for months 0–5,
    # the gap included: 6 × 1,000 = 6,000 → 16,000.
    staff = {"nodes_per_fte": 1, "cost_per_fte_year": 12_000, "modes": ["rent"]}
    p = project([wl("a", 30), wl("b", 175, 160)], electricity_price_per_kwh=0, staff=staff)
    r = offer(mode="rent", id="r", price_per_node_month=5_000)
    res = solve_fixed(p, [r], {("a", "r", 1): 240, ("b", "r", 1): 240}, compare=False)
    assert res.plan.breakdown["rent"] == pytest.approx(10_000)
    assert res.plan.flows["staff"] == {m: pytest.approx(1_000) for m in range(6)}
    assert res.plan.total_cost == pytest.approx(16_000)


def test_staff_counts_the_peak_of_all_staffed_modes():
    # staff modes [buy, rent], 2 nodes per FTE at 12,000 a year. Job a needs 2 bought nodes (held months 0–11);
    # job b, months 0–1, runs on 1 rented node: the peak is 3 nodes → ⌈3 / 2⌉ = 2 FTEs for months 0–11 = 24,000.
    # Buy 2 × 1,000 + rent 2 months × 5,000 = 12,000 → 36,000. (Renting b's node instead of buying it: the
    # planner could also buy a third node for 1,000 — cheaper — so the test offers b no buy option.)
    staff = {"nodes_per_fte": 2, "cost_per_fte_year": 12_000, "modes": ["buy", "rent"]}
    p = project([wl("a", 60), wl("b", 40)], electricity_price_per_kwh=0, staff=staff)
    r = offer(mode="rent", id="r", price_per_node_month=5_000)
    res = solve_fixed(p, [bare_buy(), r], {("a", "b", 2): 100, ("b", "r", 1): 900}, compare=False)
    (charge,) = res.plan.charges
    assert (charge.ftes, charge.months, charge.nodes) == (2, 12, 3)
    assert res.plan.total_cost == pytest.approx(36_000)


# --- fabric and staff flip buy to rent --------------------------------------------------------------


def test_fabric_and_staff_flip_the_recommendation_from_buy_to_rent():
    # One job on 2 nodes for 120 days (2,880 h; months 0–3, day 120 < 121.7), horizon 12 months.
    # Buy: 2 × 100,000 with 50% resale = 100,000.            Rent: 2 nodes × 4 months × 20,000 = 160,000.  → buy.
    # Fabric alone: + fixed_cost 30,000 (spine) + 2 × 10,000 network = 150,000 < 160,000                  → buy.
    # Staff alone: + ⌈2 / 64⌉ = 1 FTE × 48,000 a year × 12 months held = 48,000 → 148,000 < 160,000      → buy.
    # Both: 100,000 + 50,000 + 48,000 = 198,000 > 160,000                                                → rent.
    def solve(fabric: bool, staff: bool):
        extra = dict(fixed_cost=30_000, network_per_node=10_000) if fabric else {}
        b = offer(
            mode="buy",
            id="b",
            price_per_node=100_000,
            residual_value_pct=0.5,
            maintenance_pct_per_year=0,
            colocation_per_node_month=0,
            **extra,
        )
        r = offer(mode="rent", id="r", price_per_node_month=20_000)
        kw = dict(staff={"nodes_per_fte": 64, "cost_per_fte_year": 48_000}) if staff else {}
        p = project([wl("a", 125)], electricity_price_per_kwh=0, **kw)
        return solve_fixed(p, [b, r], {("a", "b", 2): 2880, ("a", "r", 2): 2880}, compare=True)

    for fabric, staff, mode, total in (
        (False, False, "buy", 100_000),
        (True, False, "buy", 150_000),
        (False, True, "buy", 148_000),
        (True, True, "rent", 160_000),
    ):
        res = solve(fabric, staff)
        assert res.plan.modes() == {mode}, (fabric, staff)
        assert res.plan.total_cost == pytest.approx(total), (fabric, staff)
    assert res.strategies["buy"].total_cost == pytest.approx(198_000)


# --- the verifier recomputes them --------------------------------------------------------------------


def test_verifier_rejects_a_plan_without_its_fixed_charge_or_staff():
    p = project([wl("a", 60)], electricity_price_per_kwh=0, staff={"nodes_per_fte": 64, "cost_per_fte_year": 120_000})
    b = bare_buy(fixed_cost=50_000)
    res = solve_fixed(p, [b], {("a", "b", 2): 100}, compare=False)
    verify_plan(p, {"b": b}, res.plan)
    for kind, key in (("fixed", "fixed:b"), ("staff", "staff")):
        book = res.plan.ledger
        entries = tuple(e for e in book.entries if e.kind != kind)
        assert len(entries) == len(book.entries) - 1
        broken = dataclasses.replace(
            res.plan,
            ledger=dataclasses.replace(book, entries=entries),
            charges=[c for c in res.plan.charges if c.kind != kind],
        )
        assert broken.total_cost < res.plan.total_cost
        with pytest.raises(VerificationError, match=f"ledger: entry {key} .* is missing from the plan"):
            verify_plan(p, {"b": b}, broken)


# --- against the brute force -------------------------------------------------------------------------


def extras_instance(seed: int):
    """A random instance whose offers carry fixed charges, network, storage and egress, with staff on bought nodes."""
    rng = random.Random(seed)
    workloads = []
    for k in range(2):
        e = rng.choice([0, 14, 28])
        workloads.append(
            wl(
                f"w{k}",
                e + rng.choice([28, 42, 56]),
                e,
                dataset_tb=rng.choice([0.5, 2.0]),
                dataset_moves_on=rng.random() < 0.5,
            )
        )
    offers = []
    for k in range(rng.randint(3, 5)):
        mode = rng.choice(["buy", "rent", "cloud"])
        kw = dict(
            mode=mode,
            id=f"o{k}",
            max_nodes=rng.choice([1, 2, 3]),
            lead_time_days=rng.choice([0, 0, 40]),
            fixed_cost=rng.choice([0, 3_000, 20_000]),
            storage_per_tb_month=rng.choice([0, 23]),
            egress_per_tb=rng.choice([0, 90]),
        )
        if mode == "buy":
            kw.update(
                price_per_node=rng.randint(20, 80) * 1000,
                residual_value_pct=rng.choice([0, 0.4]),
                maintenance_pct_per_year=0.05,
                colocation_per_node_month=rng.choice([0, 500]),
                network_per_node=rng.choice([0, 15_000]),
            )
        elif mode == "rent":
            kw.update(
                price_per_node_month=rng.randint(5, 20) * 1000,
                setup_fee_per_node=rng.choice([0, 2000]),
                min_term_months=rng.choice([1, 2]),
            )
        else:
            kw.update(price_per_node_hour=rng.randint(10, 40), spot=False)
        offers.append(offer(**kw))
    hours = {}
    for w in workloads:
        for o in offers:
            if rng.random() < 0.8:
                base = rng.randint(5, 30) * 24
                for n in (1, 2):
                    if n <= o.max_nodes:
                        hours[(w["name"], o.id, n)] = base / (n * rng.choice([0.8, 1.0])) if n > 1 else base
    staff = {"nodes_per_fte": rng.choice([1, 2, 3]), "cost_per_fte_year": rng.choice([24_000, 120_000])}
    p = project(
        workloads,
        horizon_months=4,
        period_days=14,
        electricity_price_per_kwh=0.1,
        pue=1.2,
        staff=staff if seed % 3 else None,
    )
    return p, offers, hours


@pytest.mark.parametrize("seed", range(40))
def test_milp_matches_brute_force_with_fixed_charges_and_staff(seed):
    p, offers, hours = extras_instance(seed)
    brute = brute_force_tco(p, offers, hours)
    res = solve_fixed(p, offers, hours, compare=False)
    if brute == math.inf:
        assert res.status == "infeasible"
    else:
        assert res.status == "optimal"
        assert res.plan.total_cost == pytest.approx(brute, rel=1e-6)


def test_random_instances_exercise_the_fixed_charge_and_staff():
    """The brute-force instances do reach plans that pay a fixed charge and staff (else the test above proves little)."""
    kinds = set()
    for seed in range(40):
        res = solve_fixed(*extras_instance(seed), compare=False)
        if res.plan is not None:
            kinds |= {c.kind for c in res.plan.charges} | {
                c for c in ("network", "storage", "egress") if res.plan.breakdown[c]
            }
    assert kinds == {"fixed", "staff", "network", "storage", "egress"}


# --- bad input --------------------------------------------------------------------------------------


def test_bad_values_are_input_errors(tmp_path):
    offers = tmp_path / "offers.yaml"
    offers.write_text(
        "offers:\n"
        "  - {id: c, vendor: V, mode: cloud, region: us-east, gpu: H100, gpus_per_node: 8, intra_node: nvswitch, ram_gb: 2048,\n"
        "     nvme_tb: 30, cpu_cores: 112, price_per_node_hour: 30, fixed_cost: -5, network_per_node: 100, source: q, quoted_on: 2026-11-01}\n",
        encoding="utf-8",
    )
    work = tmp_path / "w.yaml"
    work.write_text(
        f"name: t\noffers: [{offers.name}]\nstaff: {{nodes_per_fte: 0, cost_per_fte_year: 1000, modes: [cloud]}}\n"
        "workloads:\n  - {name: a, model: llama-2-7b, method: full, tokens_b: 1, deadline_days: 30}\n",
        encoding="utf-8",
    )
    r = cli("solve", str(work))
    assert r.exit_code == 1, r.output
    assert "staff" in r.output and "nodes_per_fte" in r.output and "cloud capacity is run by the provider" in r.output
    work.write_text(
        f"name: t\noffers: [{offers.name}]\nworkloads:\n  - {{name: a, model: llama-2-7b, method: full, tokens_b: 1, deadline_days: 30}}\n",
        encoding="utf-8",
    )
    r = cli("solve", str(work))
    assert r.exit_code == 1, r.output
    assert "offers.yaml:3" in r.output and "fixed_cost: Input should be greater than or equal to 0 (got -5)" in r.output
    offers.write_text(offers.read_text(encoding="utf-8").replace("fixed_cost: -5", "fixed_cost: 5"), encoding="utf-8")
    r = cli("solve", str(work))
    assert r.exit_code == 1, r.output
    assert "network_per_node is a buy price field and does not belong to a cloud offer" in r.output
    assert "nothing was written" in r.output


# --- the tornado's staff, network and storage drivers -------------------------------------------------


def test_tornado_moves_staff_network_and_storage():
    # One 90-day job (2,160 h on one node), 12 months, electricity 0 (helpers.analysis_case's arithmetic), default ranges ×0.8 … ×1.2.
    # cloud c: 2,160 × 20 = 43,200 + storage of 0.1 TB + 2 × 0.094332 TB = 0.288664 TB × 10/TB-month × 90 / 30.4167 = 8.5413
    #          → 43,208.66 (today's optimum);
    # buy b:   60,000 × (1 − 0.5) = 30,000 + fixed 5,000 + network 1,000 + staff ⌈1 / 8⌉ = 1 FTE × 8,000 × 12 / 12 = 44,000.
    # The tornado re-costs today's plan (the cloud) at each end: staff and network are not in it, so both ends stay
    # 43,208.66 and nothing is re-optimized; storage is: 43,200 + 8.5413 × 0.8 / × 1.2. Whether another plan wins
    # at an end is the break-even's question (below); re-solved by hand here, staff ×0.8 makes buying the optimum:
    # 30,000 + 6,000 + 6,400 = 42,400 < 43,208.66, network ×0.8 (fixed and network): 30,000 + 4,800 + 8,000 = 42,800.
    from helpers import analysis_run

    def case(fte_year=8_000, network=1_000, fixed=5_000):
        p = project(
            [wl("job", 120)], electricity_price_per_kwh=0, staff={"nodes_per_fte": 8, "cost_per_fte_year": fte_year}
        )
        offers = [
            offer(mode="cloud", id="c", price_per_node_hour=20, storage_per_tb_month=10),
            bare_buy(price_per_node=60_000, residual_value_pct=0.5, fixed_cost=fixed, network_per_node=network),
        ]
        return p, offers, {("job", o.id, 1): 2160.0 for o in offers}

    storage = (0.1 + 2 * CKPT_TB) * 10 * 3  # 90 days from 2027-01-01: January, February, March, 3 whole months
    a = analysis_run(*case(), sensitivity=True)
    assert a.base.plan.total_cost == pytest.approx(43_200 + storage)
    bars = {b.driver: b for b in a.sensitivity}
    for driver in ("staff", "network"):
        for end in ("low", "high"):
            assert bars[driver].tco(end) == pytest.approx(43_200 + storage)
            assert not bars[driver].reoptimized(end)
        # re-optimized at the ends: ×1.2 the cloud stays cheapest; ×0.8 buying wins (by hand above), so the
        # decision changes and flips to buy at the low end, the bar showing both figures
        assert not bars[driver].changes("high")
        assert bars[driver].optimum("high") == pytest.approx(43_200 + storage)
        assert bars[driver].changes("low") and bars[driver].optimum_modes("low") == ("buy",) and bars[driver].flips
    assert bars["staff"].optimum("low") == pytest.approx(42_400)
    assert bars["network"].optimum("low") == pytest.approx(42_800)
    assert bars["storage"].tco("low") == pytest.approx(43_200 + 0.8 * storage)
    assert bars["storage"].tco("high") == pytest.approx(43_200 + 1.2 * storage)
    assert not bars["storage"].flips and not bars["storage"].changes("low") and not bars["storage"].changes("high")
    cheaper_staff = solve_fixed(*case(fte_year=6_400))
    assert cheaper_staff.plan.total_cost == pytest.approx(42_400) and [
        a.offer_id for a in cheaper_staff.plan.assignments
    ] == ["b"]
    cheaper_fabric = solve_fixed(*case(network=800, fixed=4_000))  # the driver scales both fabric charges
    assert cheaper_fabric.plan.total_cost == pytest.approx(42_800) and [
        a.offer_id for a in cheaper_fabric.plan.assignments
    ] == ["b"]


def test_break_even_of_the_staff_and_fabric_costs():
    # The tornado case above: today the cloud wins at 43,208.66; buying costs 30,000 + 6,000 fabric + 8,000 staff = 44,000.
    # Staff at factor k: 36,000 + 8,000·k ≤ 43,208.66 ⇔ k ≤ 0.9011 → a plan that pays staff (buying) wins at or below ×0.9010.
    # Fabric at factor k: 38,000 + 6,000·k ≤ 43,208.66 ⇔ k ≤ 0.8681. Storage is paid by today's plan (the cloud):
    # the cloud at 43,200 + 8.6599·k stays below buying (44,000) up to k = 93.2, beyond the ×10 searched.
    from helpers import analysis_run

    p = project([wl("job", 120)], electricity_price_per_kwh=0, staff={"nodes_per_fte": 8, "cost_per_fte_year": 8_000})
    offers = [
        offer(mode="cloud", id="c", price_per_node_hour=20, storage_per_tb_month=10),
        bare_buy(price_per_node=60_000, residual_value_pct=0.5, fixed_cost=5_000, network_per_node=1_000),
    ]
    hours = {("job", o.id, 1): 2160.0 for o in offers}
    storage = (0.1 + 2 * CKPT_TB) * 10 * 3  # 90 days from 2027-01-01: January, February, March, 3 whole months
    a = analysis_run(p, offers, hours, break_even=True)
    got = {b.subject: b for b in a.break_even if b.kind == "driver"}
    assert got["staff"].break_even == pytest.approx(math.floor((43_200 + storage - 36_000) / 8_000 * 1e4) / 1e4)
    assert got["network"].break_even == pytest.approx(math.floor((43_200 + storage - 38_000) / 6_000 * 1e4) / 1e4)
    assert got["storage"].break_even == pytest.approx(10.0)
    assert "stay optimal up to ×10" in got["storage"].reason


# --- the same columns in CSV and XLSX quotes --------------------------------------------------------


def test_csv_and_xlsx_quotes_carry_the_new_columns_and_name_the_bad_row(tmp_path):
    import openpyxl

    from procure.common.errors import InputError
    from procure.offers.catalog import load_catalog

    from helpers import GOOD_ROW, write_csv

    row = dict(GOOD_ROW, fixed_cost=2500, storage_per_tb_month="23", egress_per_tb=90)
    buy = dict(
        GOOD_ROW,
        id="b-8xh100",
        mode="buy",
        price_per_node_month="",
        setup_fee_per_node="",
        min_term_months="",
        price_per_node=273000,
        power_kw_per_node=10.2,
        network_per_node=15100,
        fixed_cost=60000,
    )
    write_csv(tmp_path / "q.csv", [row, buy])
    wb = openpyxl.Workbook()
    cols = list(dict.fromkeys([*row, *buy]))
    wb.active.append(cols)
    for r in (row, buy):
        wb.active.append([r.get(c) if r.get(c) != "" else None for c in cols])
    wb.save(tmp_path / "q.xlsx")
    for name in ("q.csv", "q.xlsx"):
        by_id = load_catalog([tmp_path / name]).by_id()
        r, b = by_id["v-8xh100"], by_id["b-8xh100"]
        assert (r.fixed_cost, r.storage_per_tb_month, r.egress_per_tb) == (2500, 23, 90), name
        assert (b.network_per_node, b.fixed_cost) == (15100, 60000), name
    bad = dict(row, network_per_node=100, storage_per_tb_month=-1)
    write_csv(tmp_path / "bad.csv", [row, bad])
    with pytest.raises(InputError) as exc:
        load_catalog([tmp_path / "bad.csv"])
    got = {(p.row, p.field) for p in exc.value.problems}
    assert (3, "storage_per_tb_month") in got, got


def test_the_decided_plan_is_re_costed_with_its_staff_and_fabric():
    # The flip case with staff and no fabric: buying costs 100,000 + 1 FTE × 48,000 = 148,000 and wins. Re-costed (not
    # re-optimized) at staff × 2 the decision costs 100,000 + 96,000 = 196,000; re-solved, renting wins at 160,000.
    from procure.analysis import Context
    from procure.analysis.engine import solve_scenario
    from procure.analysis.scenario import Scenario

    from helpers import analysis_run

    b = offer(
        mode="buy",
        id="b",
        price_per_node=100_000,
        residual_value_pct=0.5,
        maintenance_pct_per_year=0,
        colocation_per_node_month=0,
    )
    r = offer(mode="rent", id="r", price_per_node_month=20_000)
    p = project([wl("a", 125)], electricity_price_per_kwh=0, staff={"nodes_per_fte": 64, "cost_per_fte_year": 48_000})
    hours = {("a", "b", 2): 2880, ("a", "r", 2): 2880}
    a = analysis_run(p, [b, r], hours)
    assert a.base.plan.total_cost == pytest.approx(148_000)
    out = solve_scenario(Context.of(a.inputs, a.base), Scenario.of("staff x2", {"staff": 2.0}))
    assert out.decided_cost == pytest.approx(196_000)
    assert out.strategies["hybrid"].total_cost == pytest.approx(160_000)
