"""Deadlines held at ``deadline_confidence``: a job's deadline is checked against its hours at that quantile
of the calibrated band, its cost at the median (the estimate). Hours per shape are fixed by hand; the
band's quantile is worked out here from the constants with the normal distribution, not by the code
under test.
"""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import pytest

from procure.models.project import Project
from procure.solver.sizing.constants import constant

from helpers import cli, offer, project, solve_fixed


def p80() -> float:
    # two-piece lognormal through the band: above the median ln r has σ = ln(P90/P50) / z(0.9)
    sigma = math.log(constant("HOURS_BAND_P90") / constant("HOURS_BAND_P50")) / NormalDist().inv_cdf(0.9)
    return math.exp(NormalDist().inv_cdf(0.8) * sigma)


def confidence(multiplier: float) -> float:
    sigma = math.log(constant("HOURS_BAND_P90") / constant("HOURS_BAND_P50")) / NormalDist().inv_cdf(0.9)
    return NormalDist().cdf(math.log(multiplier) / sigma)


JOB = dict(name="job", model="llama-2-7b", method="full", tokens_b=1, deadline_days=21)
# slow: 480 h = 20 days at 10 per node-hour = 4,800; fast: 240 h = 10 days at 25 = 6,000
OFFERS = [
    offer(mode="cloud", id="slow", price_per_node_hour=10),
    offer(mode="cloud", id="fast", price_per_node_hour=25),
]
HOURS = {("job", "slow", 1): 480.0, ("job", "fast", 1): 240.0}


def test_the_band_quantile_used_here_is_worked_out_by_hand():
    # P90/P50 = 1.743 / 1.000 (HOURS_BAND_P90 / P50, the leave-one-out band of python -m bench.calibration
    # over the 17 comparable whole runs, Llama 3 / 3.1 8B included, on the step time with sequence
    # parallelism; docs/sizing.md, Uncertainty band): z(0.9) = 1.28155, z(0.8) = 0.84162;
    # σ = ln(1.743) / 1.28155 = 0.55561 / 1.28155 = 0.43354; P80 = exp(0.84162 × 0.43354) = exp(0.36488) = 1.4403
    assert constant("HOURS_BAND_P90") == 1.743 and constant("HOURS_BAND_P50") == 1.0
    assert p80() == pytest.approx(1.4403, abs=2e-4)


def test_a_job_whose_median_fits_but_p80_does_not_moves_to_the_faster_shape():
    # slow ends day 20 at the median hours (≤ 21) but day 20 × 1.4403 = 28.81 at P80 (> 21); fast ends day
    # 10 × 1.4403 = 14.40 at P80. At 0.5 the cheaper slow shape wins (4,800); at 0.8 only fast may run (6,000).
    assert 20 <= 21 < 20 * p80() and 10 * p80() <= 21
    median = solve_fixed(project([JOB], period_days=1, deadline_confidence=0.5), OFFERS, HOURS)
    assert median.plan.assignments[0].offer_id == "slow" and median.plan.total_cost == pytest.approx(4_800)
    sure = solve_fixed(project([JOB], period_days=1, deadline_confidence=0.8), OFFERS, HOURS)
    (a,) = sure.plan.assignments
    assert a.offer_id == "fast" and sure.plan.total_cost == pytest.approx(6_000)
    # the cost stays at the median hours: 240 h × 25, not 240 × 1.4403 × 25
    assert a.hours == pytest.approx(240)
    # the slow shape is rejected, saying the confidence it reaches: P(hours ≤ 21/20 × estimate)
    (rej,) = [r for r in sure.rejections if r.offer_id == "slow"]
    assert f"with {100 * confidence(21 / 20):.0f} % confidence only" in rej.reason
    assert "deadline_confidence 0.8" in rej.reason


def test_a_job_that_only_reaches_a_lower_confidence_is_planned_and_says_so():
    # only the slow offer: no shape meets the deadline at P80, so the job is planned at the confidence it
    # reaches from day 0, Φ(ln(21/20) / σ) = Φ(0.04879 / 0.43354) = Φ(0.11254) = 54 %, and the reports say so
    # instead of dropping it
    from procure.app import with_risk

    # the solve works the range out once (procure.app.with_risk); the reports only read it
    res = with_risk(
        solve_fixed(
            project([JOB], period_days=1, deadline_confidence=0.8),
            OFFERS[:1],
            {("job", "slow", 1): 480.0},
            compare=True,
        )
    )
    (a,) = res.plan.assignments
    assert a.offer_id == "slow" and a.start_day == 0 and a.end_day == pytest.approx(20)
    from procure.reports.headline import plan_range, range_lines
    from procure.reports.json_report import result_to_json

    r = plan_range(res)
    (only,) = r.unsure
    assert only[0] == "job" and only[1] == pytest.approx(confidence(21 / 20), abs=1e-9)
    text = "\n".join(range_lines(res))
    assert f"job meets its deadline with only {confidence(21 / 20):.0%} confidence" in text
    doc = result_to_json(res)
    assert doc["range"]["below_confidence"] == [{"workload": "job", "confidence": round(confidence(21 / 20), 3)}]
    assert doc["range"]["deadline_confidence"] == 0.8


def test_the_verifier_holds_the_confidence():
    # the fast plan at 0.8 passes; the same job forced onto a start where its P80 end misses the deadline
    # while another start would meet it is refused
    from procure.solver.plan import build_plan
    from procure.solver.verify import VerificationError, verify_plan

    p = project([JOB], period_days=1, deadline_confidence=0.8)
    res = solve_fixed(p, OFFERS, HOURS)
    by_id = {o.id: o for o in OFFERS}
    verify_plan(p, by_id, res.plan)
    (d,) = res.plan.decisions
    import dataclasses

    late = dataclasses.replace(d, start_day=10.0)  # ends day 20 ≤ 21, but 10 + 10 × 1.4403 = 24.40 > 21
    bad = build_plan(p, by_id, [late], {}, [])
    with pytest.raises(VerificationError, match=r"confidence: 'job' ends day 24\.40 at its P80 hours"):
        verify_plan(p, by_id, bad)


@pytest.mark.parametrize(("value", "message"), [(0.49, "greater than or equal to 0.5"), (1.0, "less than 1")])
def test_deadline_confidence_is_validated(tmp_path, value, message):
    doc = {"name": "p", "start_date": "2027-01-01", "horizon_months": 12, "workloads": [JOB]}
    assert Project.model_validate(doc).deadline_confidence == 0.8  # the default
    assert Project.model_validate({**doc, "deadline_confidence": 0.5}).deadline_confidence == 0.5
    path = tmp_path / "w.yaml"
    path.write_text(json.dumps({**doc, "deadline_confidence": value}))
    res = cli("solve", str(path), "--out", str(tmp_path / "plan.xlsx"))
    assert res.exit_code == 1
    assert f"deadline_confidence: Input should be {message}" in res.output
    assert "Traceback" not in res.output and not (tmp_path / "plan.xlsx").exists()


def test_the_plans_range_is_its_cost_at_the_band_and_the_chance_it_still_fits():
    # one cloud job, 480 h = 20 days from day 0, deadline 21, 10 per node-hour: TCO 4,800 at the median; at
    # the P90 hours × P90/P50 (1.35) the bill is 4,800 × 1.35 (cloud is billed by the hour); the plan runs
    # as decided while 20 × r ≤ 21, i.e. with probability Φ(ln 1.05 / σ) (to the bisection's 0.001)
    from procure.analysis.plan_risk import plan_risk

    res = solve_fixed(
        project([JOB], period_days=1, deadline_confidence=0.5), OFFERS[:1], {("job", "slow", 1): 480.0}, compare=True
    )
    risk = plan_risk(res)
    assert risk.tco_p50 == pytest.approx(4_800)
    assert risk.tco_p90 == pytest.approx(4_800 * constant("HOURS_BAND_P90") / constant("HOURS_BAND_P50"), rel=1e-6)
    assert risk.runs_as_decided == pytest.approx(confidence(21 / 20), abs=1.5e-3)
