"""The schedule buffer ``min_slack_days``: every plan ends at least that many days before each deadline.

Hours per shape are fixed by hand (a stand-in for the sizing engine); the arithmetic is in each test.
"""

from __future__ import annotations

import json

import pytest

from procure.solver.verify import VerificationError, verify_plan

from helpers import ROOT, cli, offer, project, solve_fixed

EXAMPLES = ROOT / "examples"


def pretrain(name="pretrain", deadline=200, **kw):
    return dict(name=name, model="llama-2-7b", method="pretrain", tokens_b=100, deadline_days=deadline, **kw)


def test_npv_pretraining_no_longer_ends_at_the_deadline():
    # One cloud node, 4,005.6 h = 166.9 days; deadline day 200 on a one-day grid. Under npv a cost paid
    # later is worth less, so the job starts as late as allowed: start ≤ 200 − 166.9 = 33.1 → day 33,
    # ending day 199.9 — 0.1 day before the deadline.
    hours = {("pretrain", "c", 1): 4005.6}
    offers = [offer(mode="cloud", id="c", price_per_node_hour=30)]
    base = project([pretrain()], period_days=1, discount_rate=0.08)
    a = solve_fixed(base, offers, hours, objective="npv").plan.assignments[0]
    assert a.start_day == 33 and a.end_day == pytest.approx(199.9)
    assert a.slack_days == pytest.approx(0.1)
    # min_slack_days 7: it must end by day 193, so start ≤ 193 − 166.9 = 26.1 → day 26, ending 192.9 (7.1 days early)
    buffered = project([pretrain()], period_days=1, discount_rate=0.08, min_slack_days=7)
    a = solve_fixed(buffered, offers, hours, objective="npv").plan.assignments[0]
    assert a.start_day == 26 and a.end_day == pytest.approx(192.9)
    assert a.slack_days >= 7


def test_a_workload_override_wins_over_the_project_default():
    # project default 30 days, the workload's own 0: the npv start is as late as without any buffer (day 33)
    hours = {("pretrain", "c", 1): 4005.6}
    p = project([pretrain(min_slack_days=0)], period_days=1, discount_rate=0.08, min_slack_days=30)
    a = solve_fixed(p, [offer(mode="cloud", id="c")], hours, objective="npv").plan.assignments[0]
    assert a.start_day == 33


def test_the_buffer_forces_a_bigger_shape_and_names_the_setting():
    # Cloud at 10 per node-hour, deadline day 30, one-day grid.
    #   1 node: 600 h = 25 days, cost 600 × 10 = 6,000;  2 nodes: 312 h = 13 days, cost 2 × 312 × 10 = 6,240.
    # Without a buffer 1 node wins (6,000). With min_slack_days 10 the job must end by day 30 − 10 = 20:
    # 1 node ends day 25 > 20, so 2 nodes (ending day 13) at 6,240.
    # A second offer "slow" has only a 1-node shape (25 days): it is rejected, the reason naming the buffer.
    offers = [
        offer(mode="cloud", id="c", price_per_node_hour=10),
        offer(mode="cloud", id="slow", price_per_node_hour=1),
    ]
    hours = {("job", "c", 1): 600, ("job", "c", 2): 312, ("job", "slow", 1): 600}
    wl = dict(name="job", model="llama-2-7b", method="full", tokens_b=1, deadline_days=30)
    plain = solve_fixed(project([wl], period_days=1), offers[:1], {k: v for k, v in hours.items() if k[1] == "c"})
    assert plain.plan.total_cost == pytest.approx(6_000) and plain.plan.assignments[0].nodes == 1
    res = solve_fixed(project([wl], period_days=1, min_slack_days=10), offers, hours)
    a = res.plan.assignments[0]
    assert (a.offer_id, a.nodes) == ("c", 2) and res.plan.total_cost == pytest.approx(6_240)
    assert a.end_day == pytest.approx(13) and a.slack_days == pytest.approx(17)
    slow = [r for r in res.rejections if r.offer_id == "slow"]
    assert len(slow) == 1
    assert "finishes day 25.0 > day 20 (deadline day 30 − min_slack_days 10)" in slow[0].reason


def test_the_verifier_refuses_a_plan_inside_the_buffer():
    # the 1-node plan above (ends day 25) checked against a 10-day buffer: 5 days early is not 10
    offers = [offer(mode="cloud", id="c", price_per_node_hour=10)]
    wl = dict(name="job", model="llama-2-7b", method="full", tokens_b=1, deadline_days=30)
    res = solve_fixed(project([wl], period_days=1), offers, {("job", "c", 1): 600})
    strict = project([wl], period_days=1, min_slack_days=10)
    broken = r"slack: 'job' ends day 25.00, 5.00 days before its deadline day 30; min_slack_days is 10"
    with pytest.raises(VerificationError, match=broken):
        verify_plan(strict, {o.id: o for o in offers}, res.plan)
    # and the same plan passes with a 5-day buffer (exactly 5 days early)
    verify_plan(project([wl], period_days=1, min_slack_days=5), {o.id: o for o in offers}, res.plan)


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("project", -1, "min_slack_days: Input should be greater than or equal to 0"),
        ("workload", -2, "workloads[0].min_slack_days: Input should be greater than or equal to 0"),
        ("workload", 60, "min_slack_days (60) leaves no time to run job: it must finish by day 60 − 60 = 0"),
        ("project", 75, "the project's min_slack_days (75) leaves no time to run job"),
    ],
)
def test_a_bad_buffer_is_bad_input(tmp_path, where, value, message):
    wl = {"name": "job", "model": "llama-2-7b", "method": "full", "tokens_b": 1, "deadline_days": 60}
    doc = {"name": "p", "start_date": "2027-01-01", "horizon_months": 12, "workloads": [wl]}
    (doc if where == "project" else wl)["min_slack_days"] = value
    path = tmp_path / "w.yaml"
    path.write_text(json.dumps(doc))
    res = cli("size", str(path))
    assert res.exit_code == 1, res.output
    assert message in res.output


def test_solve_reports_the_slack_of_each_job_in_json(tmp_path):
    # the negotiated-quotes example with a 30-day buffer: every job ends ≥ 30 days before its deadline,
    # and the JSON says how many days each has and the buffer it was held to
    text = (EXAMPLES / "negotiated-quotes.yaml").read_text()
    path = tmp_path / "w.yaml"
    path.write_text(text.replace("pue: 1.25\n", "pue: 1.25\nmin_slack_days: 30\n"))
    (tmp_path / "negotiated-quotes-offers.yaml").write_text((EXAMPLES / "negotiated-quotes-offers.yaml").read_text())
    out = tmp_path / "plan.json"
    res = cli(
        "solve", str(path), "--objective", "npv", "--no-compare", "--runner-ups", "0", "--quiet", "--json", str(out)
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text())
    assert len(doc["assignments"]) == 5
    for a in doc["assignments"]:
        assert a["min_slack_days"] == 30
        assert a["slack_days"] == pytest.approx(a["deadline_day"] - a["end_day"], abs=1e-3)
        assert a["slack_days"] >= 30 - 1e-6
