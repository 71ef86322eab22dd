"""What the organisation already has and may use: owned servers, signed commitments, quotas and offer windows
(solver.holdings). Every expected figure is worked by hand from the documented rules (docs/quotes.md)."""

from __future__ import annotations

import datetime as dt

import pytest
from dateutil.relativedelta import relativedelta

from procure.common.errors import InputError
from procure.models.project import Staff
from procure.solver import holdings
from procure.solver.plan import Decision, build_plan
from procure.solver.verify import VerificationError, verify_plan

from helpers import offer, project, solve_fixed, workload

# a bought H100 node by hand (helpers.offer): 250,000, 5 %/year maintenance, 1,300 colocation a month, 10.2 kW,
# idle at 15 % and busy at 75 % of it, PUE 1.3, 0.12 per kWh; a 12-month horizon is 365 days
MAINT_YEAR = 250_000 * 0.05
COLO_MONTH = 1300
COLO_YEAR = COLO_MONTH * 12
IDLE_YEAR = 10.2 * 0.15 * 24 * 365 * 1.3 * 0.12
BUSY_HOUR = 10.2 * (0.75 - 0.15) * 1.3 * 0.12  # per node-hour above idle


def _owned_case(nodes=2, deadline=60, **kw):
    b = offer(id="dgx", mode="buy")
    c = offer(id="cloud", mode="cloud", price_per_node_hour=30.0)
    jobs = [workload(name="j", deadline_days=deadline)]
    p = project(jobs, horizon_months=12, owned=[{"offer": "dgx", "nodes": nodes, **kw}])
    offers = holdings.with_owned(p, [b, c])
    hours = {("j", "dgx.owned", 2): 720, ("j", "cloud", 2): 720, ("j", "dgx", 2): 720}
    return p, offers, hours


def test_a_job_runs_on_owned_nodes_and_nothing_is_bought():
    p, offers, hours = _owned_case()
    res = solve_fixed(p, offers, hours)
    assert res.status == "optimal"
    (a,) = res.plan.assignments
    assert a.offer_id == "dgx.owned"
    (buy,) = res.plan.purchases
    assert (buy.offer_id, buy.nodes, buy.committed) == ("dgx.owned", 2, True)
    # by hand: no capex; two nodes' running costs for the year, and the job's busy energy (2 nodes × 720 h)
    committed = 2 * (MAINT_YEAR + COLO_YEAR + IDLE_YEAR)
    assert res.plan.breakdown["capex"] == 0
    assert res.plan.total_cost == pytest.approx(committed + 2 * 720 * BUSY_HOUR)


def test_owned_nodes_are_paid_for_even_when_no_job_uses_them():
    # cloud at 1 per node-hour (1,440) beats the busy energy? no: busy energy is 1,374.8 — so make cloud cheaper
    p, offers, hours = _owned_case()
    offers = [o if o.id != "cloud" else o.model_copy(update={"price_per_node_hour": 0.5}) for o in offers]
    res = solve_fixed(p, offers, hours)
    assert res.plan.assignments[0].offer_id == "cloud"
    committed = 2 * (MAINT_YEAR + COLO_YEAR + IDLE_YEAR)
    assert res.plan.total_cost == pytest.approx(committed + 2 * 720 * 0.5)
    assert [(x.offer_id, x.nodes) for x in res.plan.purchases] == [("dgx.owned", 2)]


def test_owned_window_and_residual_value():
    # owned from day 31 (2027-02-01) until day 212 (2027-08-01): 181 days; 10,000 back per node at the end
    p, offers, hours = _owned_case(
        deadline=200, **{"from": "2027-02-01", "until": "2027-08-01", "residual_value": 10_000}
    )
    res = solve_fixed(p, offers, hours)
    (a,) = res.plan.assignments
    assert a.offer_id == "dgx.owned" and a.start_day >= 31 and a.end_day <= 212
    days = 181
    # maintenance and idle energy by the day; colocation per calendar month held: February to July, 6 months
    per_node = (MAINT_YEAR + IDLE_YEAR) * days / 365 + COLO_MONTH * 6 - 10_000
    assert res.plan.total_cost == pytest.approx(2 * per_node + 2 * 720 * BUSY_HOUR)


def _rent_commitment(start="2027-01-01", months=6, **kw):
    r = offer(id="r", mode="rent", price_per_node_month=14_000, min_term_months=1, lead_time_days=30, **kw)
    c = offer(id="cloud", mode="cloud", price_per_node_hour=30.0)
    p = project(
        [workload(name="j", deadline_days=60)],
        commitments=[{"offer": "r", "nodes": 1, "start_date": start, "months": months}],
        period_days=1,
    )
    return p, [r, c], {("j", "r", 1): 20 * 24, ("j", "cloud", 1): 20 * 24}


def test_a_signed_rental_is_used_first_and_reported_as_committed():
    p, offers, hours = _rent_commitment()
    res = solve_fixed(p, offers, hours)
    assert res.status == "optimal"
    (a,) = res.plan.assignments
    # the commitment needs no delivery: the job starts on day 0 on it, though new contracts wait 30 days
    assert a.offer_id == "r" and a.start_day == 0
    (rent,) = res.plan.rentals
    assert (rent.nodes, rent.months, rent.committed) == (1, 6, True)
    assert res.plan.total_cost == pytest.approx(6 * 14_000)


def test_a_commitment_from_mid_month_begins_on_its_own_day_and_is_cut_at_the_horizon():
    # signed on 2027-09-11 (day 253) for 12 months: its lattice begins 10 days into month 8; months 8..11
    # lie in the 12-month horizon, four payments of 14,000
    p, offers, hours = _rent_commitment(start="2027-09-11", months=12)
    res = solve_fixed(p, offers, hours)
    committed = [r for r in res.plan.rentals if r.committed]
    assert [(r.start_month, r.months) for r in committed] == [(8, 4)]
    assert committed[0].start_day == pytest.approx(253.0)
    # the job is due by day 60: a new one-month contract from delivery (day 30, 14,000) beats 14,400 of cloud
    (a,) = res.plan.assignments
    assert (a.offer_id, a.start_day) == ("r", 30)
    assert [(r.start_day, r.months) for r in res.plan.rentals if not r.committed] == [(30, 1)]
    assert res.plan.total_cost == pytest.approx(4 * 14_000 + 14_000)


def test_a_reserved_cloud_commitment_is_capacity_at_no_extra_price():
    rc = offer(id="rsv", mode="cloud", price_per_node_hour=20.0, commitment_months=12, max_nodes=4)
    c = offer(id="cloud", mode="cloud", price_per_node_hour=30.0)
    p = project(
        [workload(name="j", deadline_days=60)],
        commitments=[{"offer": "rsv", "nodes": 2, "start_date": "2027-01-01", "months": 12}],
    )
    res = solve_fixed(p, [rc, c], {("j", "rsv", 2): 100, ("j", "cloud", 2): 100})
    assert res.plan.assignments[0].offer_id == "rsv"
    assert res.plan.total_cost == pytest.approx(2 * 12 * 20.0 * 730)


def _quota_case(deadline: int, **quota):
    east = offer(id="aws-east", vendor="AWS", mode="cloud", region="us-east", price_per_node_hour=30.0)
    west = offer(id="aws-west", vendor="AWS", mode="cloud", region="us-west", price_per_node_hour=30.0)
    other = offer(id="other", vendor="Other", mode="cloud", price_per_node_hour=45.0)
    jobs = [workload(name="a", deadline_days=deadline), workload(name="b", deadline_days=deadline)]
    p = project(jobs, period_days=5, quotas=[{"vendor": "aws", "max_gpus": 32, **quota}])
    hours = {(w, o, 4): 240 for w in "ab" for o in ("aws-east", "aws-west", "other")}
    return p, [east, west, other], hours


def _peak_gpus(plan, offers_matching) -> int:
    points = {a.start_day for a in plan.assignments}
    return max(
        sum(a.gpus for a in plan.assignments if a.offer_id in offers_matching and a.start_day <= t < a.end_day)
        for t in points
    )


def test_a_quota_across_two_regions_is_never_exceeded():
    # two 4-node jobs of 10 days each, due by day 20: without the quota both run at once on AWS (64 GPUs);
    # under 32 GPUs they run one after the other (days 0-10 and 10-20) at the same price
    p, offers, hours = _quota_case(20)
    res = solve_fixed(p, offers, hours)
    assert res.status == "optimal"
    assert {a.offer_id for a in res.plan.assignments} <= {"aws-east", "aws-west"}
    assert _peak_gpus(res.plan, {"aws-east", "aws-west"}) == 32
    assert res.plan.total_cost == pytest.approx(2 * 4 * 240 * 30.0)
    free = solve_fixed(p.model_copy(update={"quotas": []}), offers, hours)
    assert _peak_gpus(free.plan, {"aws-east", "aws-west"}) == 64


def test_a_quota_sends_the_second_job_elsewhere_when_both_must_run_at_once():
    p, offers, hours = _quota_case(12)
    res = solve_fixed(p, offers, hours)
    assert sorted(a.offer_id for a in res.plan.assignments)[-1] == "other"
    assert res.plan.total_cost == pytest.approx(4 * 240 * 30.0 + 4 * 240 * 45.0)


def test_a_shape_larger_than_a_quota_is_rejected_naming_the_quota():
    p, offers, hours = _quota_case(20, max_gpus=16)
    res = solve_fixed(p, offers, hours)
    assert {a.offer_id for a in res.plan.assignments} == {"other"}
    rules = {(r.offer_id, str(r.rule)) for r in res.rejections}
    assert ("aws-east", "quota") in rules and ("aws-west", "quota") in rules
    assert any("quota" in r.reason and "16 GPUs" in r.reason for r in res.rejections)


def test_the_verifier_refuses_a_plan_over_a_quota():
    p, offers, hours = _quota_case(20)
    by_id = {o.id: o for o in offers}
    both = [Decision(w, "aws-east" if w == "a" else "aws-west", 4, 32, 240, 0.0) for w in "ab"]
    plan = build_plan(p, by_id, both, {}, [])
    with pytest.raises(VerificationError, match="quota: 64 GPUs"):
        verify_plan(p, by_id, plan)


def _window_case(deadline: int):
    block = offer(
        id="block", mode="cloud", price_per_node_hour=10.0, available_from="2027-04-01", available_until="2027-07-01"
    )
    c = offer(id="cloud", mode="cloud", price_per_node_hour=30.0)
    p = project([workload(name="j", deadline_days=deadline)], period_days=1)
    return p, [block, c], {("j", "block", 1): 240, ("j", "cloud", 1): 240}


def test_a_q2_capacity_block_is_used_only_inside_its_window():
    # the block opens on day 90 (2027-04-01) and closes on day 181 (2027-07-01)
    p, offers, hours = _window_case(300)
    res = solve_fixed(p, offers, hours)
    (a,) = res.plan.assignments
    assert a.offer_id == "block"
    assert 90 <= a.start_day and a.end_day <= 181
    assert res.plan.total_cost == pytest.approx(2400.0)


def test_a_job_due_before_the_window_opens_is_told_why_the_block_is_out():
    p, offers, hours = _window_case(60)
    res = solve_fixed(p, offers, hours)
    assert res.plan.assignments[0].offer_id == "cloud"
    (r,) = [r for r in res.rejections if r.offer_id == "block"]
    assert str(r.rule) == "offer_window" and "window" in r.reason


def test_the_verifier_refuses_a_job_outside_an_offer_window():
    p, offers, hours = _window_case(300)
    by_id = {o.id: o for o in offers}
    plan = build_plan(p, by_id, [Decision("j", "block", 1, 8, 240, 175.0)], {}, [])
    with pytest.raises(VerificationError, match="offer_window"):
        verify_plan(p, by_id, plan)


def test_no_new_contract_begins_before_a_rent_offer_window():
    r = offer(id="r", mode="rent", price_per_node_month=14_000, min_term_months=1, available_from="2027-03-01")
    p = project([workload(name="j", deadline_days=200)], period_days=1)
    res = solve_fixed(p, [r], {("j", "r", 1): 240})
    (rent,) = res.plan.rentals
    assert rent.start_day >= 59 - 1e-9  # 2027-03-01 is day 59


# --- priority: required ---------------------------------------------------------------------------------


def _budget_programme(budget: float):
    # on one cloud offer at 30 per node-hour: the pretraining costs 2 × 200 × 30 = 12,000, each fine-tune
    # 1 × 100 × 30 = 3,000
    c = offer(id="c", mode="cloud", price_per_node_hour=30.0)
    jobs = [
        workload(name="pretrain", deadline_days=60, priority="required"),
        workload(name="ft-a", deadline_days=60),
        workload(name="ft-b", deadline_days=60),
    ]
    p = project(jobs, budget_tco=budget)
    hours = {("pretrain", "c", 2): 200, ("ft-a", "c", 1): 100, ("ft-b", "c", 1): 100}
    return p, [c], hours


def test_under_a_budget_the_required_pretraining_is_kept_and_optional_jobs_set_aside():
    # 15,000 covers pretrain + one fine-tune (15,000), or both fine-tunes (6,000): the most jobs would be the
    # two fine-tunes, but the pretraining is required, so one fine-tune is set aside
    p, offers, hours = _budget_programme(15_000)
    res = solve_fixed(p, offers, hours, all_or_nothing=False)
    planned = sorted(a.workload for a in res.plan.assignments)
    assert planned in (["ft-a", "pretrain"], ["ft-b", "pretrain"])
    assert [x.workload for x in res.set_aside] in (["ft-b"], ["ft-a"])
    assert res.plan.total_cost == pytest.approx(15_000)
    # without the priority the rule keeps the most jobs: the two fine-tunes
    free = p.model_copy(update={"workloads": [w.model_copy(update={"priority": "optional"}) for w in p.workloads]})
    res = solve_fixed(free, offers, hours, all_or_nothing=False)
    assert sorted(a.workload for a in res.plan.assignments) == ["ft-a", "ft-b"]


def test_when_the_required_jobs_alone_cannot_be_planned_there_is_no_plan():
    p, offers, hours = _budget_programme(10_000)  # the pretraining alone costs 12,000
    res = solve_fixed(p, offers, hours, all_or_nothing=False)
    assert res.plan is None and res.hybrid.status == "infeasible"
    assert "(budget)" in res.hybrid.reasons


def test_a_required_job_no_offer_can_run_is_not_set_aside():
    p, offers, hours = _budget_programme(100_000)
    hours = {k: v for k, v in hours.items() if k[0] != "pretrain"}  # no shape of the pretraining fits
    res = solve_fixed(p, offers, hours, all_or_nothing=False)
    assert res.plan is None and not res.set_aside


# --- the example -----------------------------------------------------------------------------------------


def test_the_existing_capacity_example_uses_what_is_already_paid_for(tmp_path):
    import json

    from helpers import ROOT, cli

    js = tmp_path / "ex.json"
    res = cli("solve", ROOT / "examples" / "existing-capacity.yaml", "--runner-ups", "0", "--json", js)
    assert res.exit_code == 0, res.output
    j = json.loads(js.read_text())
    on = {a["workload"]: a["offer"] for a in j["assignments"]}
    assert on["pretrain-7b"] == on["sprint-a"] == "lab-hgx-h100.owned"
    assert on["sprint-b"] == "metal-h100-monthly" and on["pretrain-q2"] == "block-h200-q2"
    # nothing new is bought or rented: every purchase and rental is the owned servers or the signed rental
    # the owned servers are listed as owned, not as purchases at their original price (was in "purchases")
    assert j["purchases"] == []
    assert [(x["offer"], x["nodes"], x["committed"]) for x in j["owned"]] == [("lab-hgx-h100.owned", 4, True)]
    assert [(x["offer"], x["nodes"], x["months"], x["committed"]) for x in j["rentals"]] == [
        ("metal-h100-monthly", 2, 6, True)
    ]
    # the signed rental: 2 nodes × 6 months × 16,000, part of the committed money
    assert j["rentals"][0]["cost"] == pytest.approx(192_000)
    assert j["committed_cost"] >= 192_000
    # the Q2 block (2027-04-01 to 2027-06-30: days 87 to 177) is used inside its window
    (q2,) = [a for a in j["assignments"] if a["workload"] == "pretrain-q2"]
    assert 87 <= q2["start_day"] and q2["end_day"] <= 177
    # the AWS quota: no AWS H100 at all in this plan (cheaper capacity is already held), so at most 32
    assert not any(a["offer"].startswith("aws-") for a in j["assignments"])


# --- brute force over small random instances --------------------------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_owned_commitments_quotas_and_windows_by_brute_force(seed):
    import random

    from helpers import holdings_min_cost

    rng = random.Random(seed)
    period, months = 5, 3
    horizon = (dt.date(2027, 4, 1) - dt.date(2027, 1, 1)).days  # three calendar months from 2027-01-01: 90 days
    own_n, com_n, com_m = rng.choice([1, 2]), rng.choice([0, 1, 2]), rng.choice([1, 2, 3, 6])
    com_day = rng.choice([0, 30])  # signed on the project start, or on 2027-01-31
    win = sorted(rng.sample([0, 10, 20, 30, 45, 60, 75], 2))
    q = rng.choice([24, 32, 40, 48])
    b = offer(id="own", mode="buy")
    term = rng.choice([1, 4])  # a 4-month minimum term is longer than the 3-month horizon: only signed nodes
    r = offer(id="r", mode="rent", price_per_node_month=14_000, min_term_months=term, lead_time_days=365)
    ca = offer(id="ca", vendor="AWS", mode="cloud", price_per_node_hour=30.0)
    cb = offer(
        id="cb", vendor="Blocks", mode="cloud", gpu="H200-SXM-141GB", price_per_node_hour=20.0,
        available_from=(dt.date(2027, 1, 1) + dt.timedelta(days=win[0])).isoformat(),
        available_until=(dt.date(2027, 1, 1) + dt.timedelta(days=win[1])).isoformat(),
    )  # fmt: skip
    jobs, spec, choices = [], [], {}
    for k in range(2):
        release = rng.choice([0, 5, 10, 20])
        due = release + rng.choice([20, 30, 45, 60])
        units = rng.choice([1, 2])  # 1 node takes 10·units days, 2 nodes 5·units days
        name = f"j{k}"
        jobs.append(workload(name=name, earliest_start_days=release, deadline_days=due))
        spec.append((name, release, due))
        choices[name] = []
        for n in rng.choice([(1, 2), (2,)]):  # a job that needs 2 nodes cannot use 1 owned or signed node
            h = 240 * units / n * 1.0
            wall = h / 24
            for oid, cost in (("own.owned", n * h * BUSY_HOUR), ("r", 0.0), ("ca", n * h * 30.0), ("cb", n * h * 20.0)):
                choices[name].append((oid, n, wall, cost))
    p = project(
        jobs,
        horizon_months=months,
        period_days=period,
        owned=[{"offer": "own", "nodes": own_n}],
        commitments=[
            {
                "offer": "r",
                "nodes": com_n,
                "start_date": dt.date(2027, 1, 1) + dt.timedelta(days=com_day),
                "months": com_m,
            }
        ]
        if com_n
        else [],
        quotas=[{"gpu": "H100", "max_gpus": q}],
    )
    offers = holdings.with_owned(p, [b, r, ca, cb])
    hours = {(name, oid, n): wall * 24 for name in choices for oid, n, wall, _c in choices[name]}
    signed_gpus = 8 * own_n + (8 * com_n if com_n else 0)  # both held at once from the commitment's first day
    if signed_gpus > q:  # what is already held breaks the quota: an input error, before any solve
        with pytest.raises(InputError, match="alone hold"):
            solve_fixed(p, offers, hours)
        return
    res = solve_fixed(p, offers, hours)
    held_days = horizon
    held = (MAINT_YEAR + IDLE_YEAR) * held_days / 365 + COLO_MONTH * months  # colocation per calendar month
    committed = own_n * held + com_n * min(com_m, months) * 14_000
    # a signed contract holds its nodes to the same day com_m months on (the month's last day when it is shorter)
    signed_on = dt.date(2027, 1, 1) + dt.timedelta(days=com_day)
    ends = (signed_on + relativedelta(months=com_m) - dt.date(2027, 1, 1)).days
    signed = {"r": (com_n, float(com_day), min(horizon, ends))} if com_n else {}
    if not com_n:
        choices = {k: [c for c in v if c[0] != "r"] for k, v in choices.items()}
    best = holdings_min_cost(
        spec,
        choices,
        {"own.owned": (own_n, 0.0, horizon)},
        signed,
        (q, {"own.owned": 8, "r": 8, "ca": 8}),
        {"cb": (float(win[0]), float(win[1]))},
        period,
        horizon,
    )
    if best == float("inf"):
        assert res.plan is None
        return
    assert res.status == "optimal"
    assert res.plan.total_cost == pytest.approx(committed + best, rel=1e-6, abs=0.02)


# --- input: catalogs and the workload file ---------------------------------------------------------------


def test_offer_windows_read_from_a_csv_catalog_and_refused_when_empty(tmp_path):
    from procure.common.errors import InputError as Bad
    from procure.offers.catalog import load_catalog

    from helpers import write_csv

    row = offer(id="blk", mode="cloud").model_dump(mode="json", exclude_none=True)
    row.update(available_from="2027-04-01", available_until="2027-06-30")
    cat = load_catalog([write_csv(tmp_path / "c.csv", [row])])
    (o,) = cat.offers
    assert (o.available_from.isoformat(), o.available_until.isoformat()) == ("2027-04-01", "2027-06-30")
    row.update(available_until="2027-03-01")
    with pytest.raises(Bad, match="available_until 2027-03-01 must come after available_from 2027-04-01"):
        load_catalog([write_csv(tmp_path / "bad.csv", [row])])


def test_owned_servers_naming_a_missing_or_cloud_offer_are_an_input_error(tmp_path):
    import yaml

    from helpers import ROOT, cli

    data = yaml.safe_load((ROOT / "examples" / "existing-capacity.yaml").read_text())
    data["offers"] = [str(ROOT / "examples" / "existing-capacity-offers.yaml")]
    data["owned"] = [{"offer": "no-such-offer", "nodes": 2}]
    data["commitments"] = [{"offer": "aws-p5-us-east-1", "nodes": 1, "start_date": "2027-01-04", "months": 3}]
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump(data))
    res = cli("solve", path, "--runner-ups", "0", "--out", tmp_path / "x.xlsx")
    assert res.exit_code == 1, res.output
    flat = " ".join(res.output.split())
    assert "owned[0].offer" in flat and "no offer 'no-such-offer'" in flat
    assert "commitments[0].offer" in flat and "a commitment names a rent or reserved cloud offer" in flat
    assert not (tmp_path / "x.xlsx").exists()


def test_a_commitment_before_the_project_start_is_accepted_and_one_that_ended_is_refused():
    # was refused ("give the project start and the months left"); the issue asks to accept it: 3 months signed
    # 2026-12-01 pay on 2026-12-01, 2027-01-01 and 2027-02-01, so one month is behind the start and two are left,
    # the first on the start day (month 0, 0 days after its 1st)
    p = project([workload()], commitments=[{"offer": "r", "nodes": 1, "start_date": "2026-12-01", "months": 3}])
    (c,) = holdings.committed_contracts(p)
    assert (c.start_month, c.months) == (0, 2) and c.phase_days == 0.0
    with pytest.raises(ValueError, match="ended before the project start_date"):
        project([workload()], commitments=[{"offer": "r", "nodes": 1, "start_date": "2026-09-01", "months": 3}])


def test_compare_names_the_holdings_and_windows_that_changed():
    from procure.analysis.compare import input_diff

    a = project([workload()], quotas=[{"vendor": "AWS", "max_gpus": 32}], owned=[{"offer": "b", "nodes": 4}])
    b = a.model_copy(
        update={
            "quotas": [a.quotas[0].model_copy(update={"max_gpus": 64})],
            "owned": [a.owned[0].model_copy(update={"from_": dt.date(2027, 2, 1)})],
        }
    )
    o1 = offer(id="blk", mode="cloud", available_from="2027-04-01")
    o2 = o1.model_copy(update={"available_from": dt.date(2027, 5, 1)})
    changes = {(c.section, c.subject, c.field): c.values for c in input_diff([a, b], [[o1], [o2]])}
    assert changes[("project", "", "quotas")] == ["vendor=AWS, max_gpus=32", "vendor=AWS, max_gpus=64"]
    assert changes[("project", "", "owned")] == ["offer=b, nodes=4", "offer=b, nodes=4, from=2027-02-01"]
    assert changes[("offer", "blk", "available_from")] == ["2027-04-01", "2027-05-01"]


def test_explain_names_the_quota_and_the_window():
    from procure.solver.explain import Why, explain

    p, offers, hours = _quota_case(20, max_gpus=16)
    res = solve_fixed(p, offers, hours, compare=True)
    e = explain(res, "a", "aws-east")
    assert e.why is Why.QUOTA and "exceed the quota of vendor=aws: 16 GPUs" in e.reason
    p, offers, hours = _window_case(60)
    res = solve_fixed(p, offers, hours, compare=True)
    e = explain(res, "j", "block")
    assert e.why is Why.WINDOW and "available_from 2027-04-01" in e.reason


def test_the_greedy_plan_keeps_the_quota_and_uses_owned_nodes_first():
    from procure.solver.greedy import greedy_plan
    from procure.solver.options import build_options

    from helpers import fixed_sizings

    p, offers, hours = _quota_case(20)
    sizings, resize = fixed_sizings(p, offers, hours)
    by_id = {o.id: o for o in offers}
    plan = greedy_plan(p, by_id, build_options(p, by_id, sizings)[0])
    verify_plan(p, by_id, plan, resize)  # its quota rule included
    assert _peak_gpus(plan, {"aws-east", "aws-west"}) <= 32
    p, offers, hours = _owned_case()
    sizings, resize = fixed_sizings(p, offers, hours)
    by_id = {o.id: o for o in offers}
    plan = greedy_plan(p, by_id, build_options(p, by_id, sizings)[0])
    verify_plan(p, by_id, plan, resize)
    assert [a.offer_id for a in plan.assignments] == ["dgx.owned"]
    assert [(x.offer_id, x.nodes) for x in plan.purchases] == [("dgx.owned", 2)]


def test_an_analysis_that_moves_prices_leaves_what_is_signed_as_signed():
    from helpers import analysis_run

    # the job runs on the signed rental (6 × 14,000 = 84,000): moving rent prices by ±20 % does not move the
    # commitment, and the job stays on it
    p, offers, hours = _rent_commitment()
    a = analysis_run(p, offers, hours, sensitivity=True)
    bars = {b.driver: b for b in a.sensitivity}
    for driver in ("price_rent", "price_cloud"):
        assert bars[driver].tco("low") == pytest.approx(6 * 14_000)
        assert bars[driver].tco("high") == pytest.approx(6 * 14_000)


def test_a_rented_node_counts_against_a_quota_for_its_whole_contract_even_when_idle():
    # a: 1 node for 10 days (240 h), b: 2 nodes for 5 days (120 h each), released day 12, due day 24.
    # Rent 5,000 a node-month (max 1 node), matched cloud 30 and unmatched H200 cloud 45 per node-hour.
    r = offer(id="r", mode="rent", price_per_node_month=5_000, min_term_months=1, max_nodes=1)
    c = offer(id="c", mode="cloud", price_per_node_hour=30.0)
    other = offer(id="other", mode="cloud", gpu="H200-SXM-141GB", price_per_node_hour=45.0)
    jobs = [workload(name="a", deadline_days=20), workload(name="b", earliest_start_days=12, deadline_days=24)]
    hours = {("a", "r", 1): 240, ("a", "c", 1): 240, ("a", "other", 1): 240}
    hours |= {("b", "c", 2): 120, ("b", "other", 2): 120}
    free = project(jobs, period_days=1)
    # without a quota: a on the rented node (5,000), b on the cloud (2 × 120 × 30 = 7,200)
    assert solve_fixed(free, [r, c, other], hours).plan.total_cost == pytest.approx(12_200)
    # at 16 H100 GPUs: the rented node is held to day 30.4, so b's 16 cloud GPUs would make 24; the cheapest
    # plan moves a to the cloud (7,200 + 7,200 = 14,400 < 5,000 + b on the H200 at 10,800)
    capped = free.model_copy(update={"quotas": [holdings_quota(gpu="H100", max_gpus=16)]})
    res = solve_fixed(capped, [r, c, other], hours)
    assert res.plan.total_cost == pytest.approx(14_400)
    assert not res.plan.rentals and {a.offer_id for a in res.plan.assignments} == {"c"}


def test_owned_nodes_count_against_a_quota_and_force_a_smaller_cloud_shape():
    # 2 owned H100 nodes (16 GPUs held all year) and a quota of 40 H100 GPUs: a cloud job of 4 nodes (32 GPUs)
    # would make 48, so it runs on 2 nodes (16), for the same bill (4 × 100 h = 2 × 200 h at 30 per node-hour)
    b = offer(id="dgx", mode="buy")
    c = offer(id="c", mode="cloud", price_per_node_hour=30.0)
    jobs = [workload(name="j", deadline_days=60)]
    p = project(jobs, owned=[{"offer": "dgx", "nodes": 2}])
    offers = holdings.with_owned(p, [b, c])
    hours = {("j", "c", 4): 100, ("j", "c", 2): 200}
    free = solve_fixed(p, offers, hours)
    assert free.plan.assignments[0].nodes == 4  # the earliest end among equal costs
    capped = solve_fixed(p.model_copy(update={"quotas": [holdings_quota(gpu="H100", max_gpus=40)]}), offers, hours)
    (a,) = capped.plan.assignments
    assert (a.offer_id, a.nodes) == ("c", 2)
    assert capped.plan.total_cost == pytest.approx(free.plan.total_cost)


def holdings_quota(**kw):
    from procure.models.holdings import Quota

    return Quota.model_validate(kw)


def test_the_command_exits_2_when_the_required_jobs_alone_exceed_the_budget(tmp_path):
    from helpers import CATALOG, cli

    (tmp_path / "c.yaml").write_text(CATALOG.format(price=30.0))
    (tmp_path / "w.yaml").write_text(
        "name: t\nstart_date: 2027-01-04\nhorizon_months: 12\nbudget_tco: 10\noffers: [c.yaml]\nworkloads:\n"
        "  - {name: pt, model: llama-2-7b, method: full, tokens_b: 2, deadline_days: 30, priority: required}\n"
        "  - {name: ft, model: llama-2-7b, method: full, tokens_b: 1, deadline_days: 30}\n"
    )
    res = cli("solve", tmp_path / "w.yaml", "--runner-ups", "0", "--no-compare")
    assert res.exit_code == 2, res.output
    assert "budget" in " ".join(res.output.split())


def test_a_quota_no_plan_can_keep_is_named_in_the_reasons():
    # both 4-node jobs must run at once (due day 12) and only the AWS offers can run them: 64 GPUs at once
    p, offers, hours = _quota_case(12)
    hours = {k: v for k, v in hours.items() if k[1] != "other"}
    res = solve_fixed(p, offers[:2], hours)
    assert res.plan is None
    (lines,) = res.hybrid.reasons.values()
    # the quota binds (without it the jobs fit the offers' max_nodes), so it is named first, with the nodes it
    # allows on each offer (was "… within the offers' max_nodes and the quotas (vendor=aws: 32 GPUs) …")
    text = " ".join(str(x) for x in lines)
    assert text.startswith("the quotas leave too few GPUs at once: vendor=aws: 32 GPUs (4 nodes of aws-east")


def test_offer_windows_read_from_an_xlsx_catalog_as_date_cells(tmp_path):
    import openpyxl

    from procure.offers.catalog import load_catalog

    row = offer(id="blk", mode="cloud").model_dump(mode="json", exclude_none=True)
    row.update(available_from=dt.date(2027, 4, 1), available_until="2027-06-30")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(list(row))
    ws.append(list(row.values()))
    wb.save(tmp_path / "c.xlsx")
    (o,) = load_catalog([tmp_path / "c.xlsx"]).offers
    assert (o.available_from, o.available_until) == (dt.date(2027, 4, 1), dt.date(2027, 6, 30))


def test_a_catalog_offer_with_the_id_owned_servers_get_is_refused():
    from procure.common.errors import InputError as Bad

    b = offer(id="dgx", mode="buy")
    clash = offer(id="dgx.owned", mode="buy")
    p = project([workload()], owned=[{"offer": "dgx", "nodes": 1}])
    with pytest.raises(Bad, match="already have an offer dgx.owned"):
        solve_fixed(p, [b, clash], {("job", "dgx", 1): 100})


def test_a_quota_matches_by_case_free_vendor_an_area_for_region_and_a_gpu_alias():
    from procure.models.holdings import Quota

    east = offer(id="e", vendor="AWS", mode="cloud", region="us-east")
    eu = offer(id="f", vendor="AWS", mode="cloud", region="eu-west")
    q = Quota.model_validate({"vendor": "aws", "region": "us", "gpu": "H100", "max_gpus": 32})
    assert holdings.matches(q, east) and not holdings.matches(q, eu)
    assert not holdings.matches(Quota.model_validate({"mode": "rent", "max_gpus": 8}), east)


def test_a_signed_36_month_reservation_is_usable_in_a_12_month_horizon():
    # the offer's term (36 months) is longer than the horizon, so no new reservation can be signed; the one
    # signed is usable, and its 12 months in the horizon are paid: 2 nodes × 12 × 20 × 730
    rc = offer(id="rsv", mode="cloud", price_per_node_hour=20.0, commitment_months=36, max_nodes=4)
    c = offer(id="cloud", mode="cloud", price_per_node_hour=30.0)
    p = project(
        [workload(name="j", deadline_days=60)],
        commitments=[{"offer": "rsv", "nodes": 2, "start_date": "2027-01-01", "months": 36}],
    )
    res = solve_fixed(p, [rc, c], {("j", "rsv", 2): 100, ("j", "cloud", 2): 100})
    assert res.plan.assignments[0].offer_id == "rsv"
    (r,) = res.plan.rentals
    assert (r.months, r.term_months, r.committed) == (12, 36, True)
    assert res.plan.total_cost == pytest.approx(2 * 12 * 20.0 * 730)


def test_staff_of_a_signed_rental_no_job_uses_is_committed_idle_not_lost():
    # staff covers rent; the signed rental (months 8..11, 4 × 14,000) is held whatever the plan does, and the
    # job (due day 60) runs on cloud at 10 per node-hour (480 h = 4,800). One FTE runs the one rented node for
    # the 4 months it is held: 4 × 120,000 / 12 = 40,000. No job is on a staffed mode, so that staff is part of
    # what is committed and unused, not a cost left out of the per-workload costs.
    p, offers, hours = _rent_commitment(start="2027-09-11", months=12)
    offers = [o if o.id != "cloud" else o.model_copy(update={"price_per_node_hour": 10.0}) for o in offers]
    p = p.model_copy(
        update={"staff": Staff.model_validate({"nodes_per_fte": 16, "cost_per_fte_year": 120_000, "modes": ["rent"]})}
    )
    res = solve_fixed(p, offers, hours)
    assert res.status == "optimal" and res.plan is not None
    (a,) = res.plan.assignments
    assert a.offer_id == "cloud" and a.cost == pytest.approx(480 * 10.0)
    assert res.plan.total_cost == pytest.approx(4 * 14_000 + 4_800 + 40_000)
    assert res.plan.committed_idle == pytest.approx(4 * 14_000 + 40_000)


# --- messages a new user meets --------------------------------------------------------------------------


def _warnings(p, offers):
    return " ".join(m for _f, m in holdings.holding_warnings(p, {o.id: o for o in offers}))


def test_a_quota_that_matches_no_offer_is_warned_with_a_did_you_mean():
    offers = [offer(id="aws-p5", vendor="AWS"), offer(id="gcp-a3", vendor="Google Cloud", region="us-central")]
    p = project([workload()], quotas=[{"vendor": "AWZ", "max_gpus": 32}])
    text = _warnings(p, offers)
    assert "quotas[0]" in " ".join(f for f, _m in holdings.holding_warnings(p, {o.id: o for o in offers}))
    assert "AWZ" in text and "matches no offer" in text and "did you mean 'AWS'" in text
    p = project([workload()], quotas=[{"region": "us-centrl", "max_gpus": 32}])
    assert "did you mean 'us-central'" in _warnings(p, offers)
    p = project([workload()], quotas=[{"vendor": "AWS", "max_gpus": 32}])
    assert _warnings(p, offers) == ""


def test_an_unknown_offer_id_in_holdings_gets_a_did_you_mean():
    offers = [offer(id="dgx-h100", mode="buy"), offer(id="rent-h100", mode="rent")]
    p = project([workload()], owned=[{"offer": "dgx-h10", "nodes": 1}])
    (msg,) = [m for _f, m in holdings.holding_problems(p, {o.id: o for o in offers})]
    assert "dgx-h10" in msg and "did you mean 'dgx-h100'" in msg


def test_a_residual_value_above_the_servers_price_is_warned():
    own = offer(id="dgx", mode="buy")  # 250,000 per node
    p = project([workload()], owned=[{"offer": "dgx", "nodes": 2, "residual_value": 9_250_000}])
    text = _warnings(p, [own])
    assert "9,250,000" in text and "37" in text and "250,000" in text
    p = project([workload()], owned=[{"offer": "dgx", "nodes": 2, "residual_value": 60_000}])
    assert _warnings(p, [own]) == ""


def test_deadline_confidence_takes_a_percentage_like_the_other_percent_fields():
    assert project([workload()], deadline_confidence="90%").deadline_confidence == pytest.approx(0.9)
    with pytest.raises(ValueError, match="deadline_confidence"):
        project([workload()], deadline_confidence="100%")


def test_a_difference_under_one_percent_is_not_printed_as_zero():
    from procure.reports.headline import share_text

    assert share_text(0.004) == "0.4%" and share_text(0.21) == "21%" and share_text(0.0001) == "< 0.1%"
    assert share_text(0.0096) == "1%"


def test_a_commitment_signed_before_the_project_start_runs_its_months_left_on_its_own_day():
    # signed 2026-11-16 for 6 months, project from 2027-01-01: its payments fall on the 16th of each month,
    # 2026-11-16 and 2026-12-16 before the start; 4 are left, the first on 2027-01-16 (month 0, 15 days after
    # its 1st)
    p, offers, hours = _rent_commitment(start="2026-11-16", months=6)
    (c,) = holdings.committed_contracts(p)
    assert (c.start_month, c.months, c.term_months) == (0, 4, 6)
    assert c.phase_days == 15.0
    res = solve_fixed(p, offers, hours)
    assert res.status == "optimal"
    assert [(r.months, r.committed) for r in res.plan.rentals if r.committed] == [(4, True)]
    with pytest.raises(ValueError, match="ended"):
        _rent_commitment(start="2026-01-01", months=6)


def test_the_summary_says_how_a_financed_purchase_is_paid():
    from procure.reports.xlsx.summary import capex_payment_text

    fin = offer(
        id="fin", mode="buy", financing={"down_payment_pct": 0.2, "months": 36, "annual_rate": 0.06}, max_nodes=2
    )
    p = project([workload(name="j", deadline_days=200)])
    res = solve_fixed(p, [fin], {("j", "fin", 1): 3000.0})
    text = capex_payment_text(res)
    assert "paid on delivery" not in text and "20% down" in text and "36 monthly instalments" in text
    cash = offer(id="cash", mode="buy")
    res = solve_fixed(p, [cash], {("j", "cash", 1): 3000.0})
    assert capex_payment_text(res) == "server purchases and their network fabric, paid on delivery"


def test_owned_servers_show_their_own_window_and_are_not_listed_as_purchases():
    import io

    from rich.console import Console

    from procure.reports.console import print_result
    from procure.reports.json_report import result_to_json
    from procure.reports.tables import capacity_rows

    # owned until 2027-06-30: days 0 to 180 of a plan from 2027-01-01, January to May and 29 of June's 30 days:
    # 5 + 29/30 = 5.97 calendar months
    p, offers, hours = _owned_case(until="2027-06-30", deadline=60)
    res = solve_fixed(p, offers, hours)
    (cap,) = capacity_rows(res)
    assert (cap["from_day"], cap["to_day"], cap["owned"]) == (0.0, 180.0, True)
    out = io.StringIO()
    print_result(Console(file=out, width=200), res)
    (line,) = [ln for ln in out.getvalue().splitlines() if "dgx.owned" in ln and "owned (committed)" in ln]
    assert "5.97 (owned)" in line and "12 (owned)" not in line
    j = result_to_json(res, [])
    assert j["purchases"] == []
    (own,) = j["owned"]
    assert (own["offer"], own["nodes"], own["from_day"], own["until_day"]) == ("dgx.owned", 2, 0.0, 180.0)
    assert "price_per_node" not in own


def test_an_infeasible_plan_under_a_quota_names_the_quota_first_with_the_shape_it_allows():
    # two jobs at once, each on 2 nodes × 8 GPUs of the cloud offer (16 per offer, not binding): the quota of
    # 16 GPUs on that vendor lets only 2 nodes run at once, so one job misses its deadline
    c = offer(id="cloud", mode="cloud", vendor="AWS", price_per_node_hour=30.0, max_nodes=16)
    jobs = [workload(name="a", deadline_days=10), workload(name="b", deadline_days=10)]
    p = project(jobs, quotas=[{"vendor": "AWS", "max_gpus": 16}], period_days=1)
    hours = {("a", "cloud", 2): 200.0, ("b", "cloud", 2): 200.0}
    res = solve_fixed(p, [c], hours, all_or_nothing=True)
    assert res.plan is None
    (head, *_rest) = [str(x) for x in res.hybrid.reasons["(capacity)"]]
    assert head.index("quota") < head.index("max_nodes") if "max_nodes" in head else "quota" in head
    assert "vendor=aws" in head.lower() and "2 nodes of cloud" in head
