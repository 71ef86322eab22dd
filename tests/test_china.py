"""A team in mainland China and the bundled catalog: hourly capacity on the China side of the border.

Finding 11 of the approval review: the bundled catalog had no hourly offer reachable from a mainland
team without a premium line, so a two-week LoRA of a 7B model planned from Shanghai was infeasible
(and with three weeks it rented a whole H800 server for a month). The catalog now carries Alibaba
Cloud pay-as-you-go A100 instances in China (Shanghai). Expected values below are worked by hand
from the published CNY list prices, the stated exchange rate and the job's FLOPs.
"""

from __future__ import annotations

import pytest

from procure.offers.catalog import load_catalog
from procure.solver.planner import plan_project
from procure.solver.reasons import Rule

from helpers import project, workload

#: CNY per USD used by the rows: Federal Reserve G.5A, 2023 annual average (the quotes are from 2023-06).
CNY_PER_USD = 7.0809

#: offer id -> (CNY per node-hour as published, GPUs per node)
MAINLAND_HOURLY = {
    "alibaba-gn7e-1x-a100-80gb-cn-shanghai": (34.74, 1),  # ecs.gn7e-c16g1.4xlarge
    "alibaba-gn7e-8x-a100-80gb-cn-shanghai": (277.93, 8),  # ecs.gn7e-c16g1.32xlarge
}


def _lora_7b_shanghai(deadline_days: int):
    return project(
        [
            workload(
                name="lora7b",
                model="deepseek-llm-7b",
                method="lora",
                tokens_b=0.3,
                seq_len=2048,
                lora_rank=64,
                deadline_days=deadline_days,
            )
        ],
        start_date="2026-12-01",
        period_days=1,
        team_region="shanghai",
    )


@pytest.mark.parametrize("offer_id", sorted(MAINLAND_HOURLY))
def test_mainland_hourly_rows_validate_and_say_where_the_price_comes_from(offer_id):
    cny, gpus = MAINLAND_HOURLY[offer_id]
    o = next(x for x in load_catalog().offers if x.id == offer_id)  # load_catalog validates every row
    assert o.mode == "cloud" and o.area == "cn" and o.network_line == "standard" and o.spot is False
    assert o.gpu == "A100-SXM-80GB" and o.gpus_per_node == gpus
    # hand-worked: 34.74 / 7.0809 = 4.9061 -> 4.91; 277.93 / 7.0809 = 39.2507 -> 39.25 (USD per node-hour)
    assert o.price_per_node_hour == pytest.approx(cny / CNY_PER_USD, abs=0.005)
    assert o.price_per_node_hour == {1: 4.91, 8: 39.25}[gpus]
    assert str(o.quoted_on) == "2023-06-01"
    for needle in (f"¥{cny}", "7.0809", "federalreserve.gov", "arthurchiao", "ESTIMATE", "NOT in this price"):
        assert needle in o.source, needle


def test_two_week_lora_of_a_7b_model_from_shanghai_runs_on_a_mainland_cloud():
    offers = load_catalog().offers
    result = plan_project(_lora_7b_shanghai(14), offers, compare=False, n_runner_ups=0)
    assert result.plan is not None, [(r.offer_id, r.rule) for r in result.rejections]
    (a,) = result.plan.assignments
    assert a.offer_id in MAINLAND_HOURLY
    o = next(x for x in offers if x.id == a.offer_id)

    # GPU-hours, by hand: LoRA skips the base weight gradients, 4·N FLOPs per token (adapters negligible)
    # + attention 12·L·s·h = 12·30·2048·4096 = 3.020e9; N = 6.910e9 -> 3.066e10 FLOPs/token;
    # × 0.3e9 tokens = 9.20e18 FLOPs. At the A100's 312 TFLOP/s bf16 peak that is 8.19 GPU-hours at 100 % MFU;
    # a plausible fine-tuning MFU is 30–60 %, i.e. 13.7–27.3 GPU-hours.
    flops = (4 * 6.910e9 + 12 * 30 * 2048 * 4096) * 0.3e9
    ideal_gpu_hours = flops / 312e12 / 3600
    assert ideal_gpu_hours == pytest.approx(8.19, abs=0.01)
    gpu_hours = a.gpus * a.hours
    assert ideal_gpu_hours / 0.60 <= gpu_hours <= ideal_gpu_hours / 0.30

    # Cost = node-hours × the row's hourly price (on-demand: no spot overhead); at about 4.91 USD per A100-hour
    # the job costs 13.7–27.3 × 4.906 ≈ 67–134 USD, not the ~39 k USD month of H800 rental it cost before.
    assert a.cost == pytest.approx(a.nodes * a.hours * o.price_per_node_hour, rel=1e-3)
    per_gpu_hour = MAINLAND_HOURLY[a.offer_id][0] / MAINLAND_HOURLY[a.offer_id][1] / CNY_PER_USD
    assert a.cost == pytest.approx(gpu_hours * per_gpu_hour, rel=2e-3)
    assert 67 <= result.plan.total_cost <= 134
    assert result.plan.total_cost == pytest.approx(a.cost, abs=0.01)


def test_without_the_mainland_hourly_rows_the_same_job_is_infeasible():
    """The finding as it was: every other hourly offer is abroad on a standard line, every mainland row is
    monthly or a purchase with a lead time."""
    offers = [o for o in load_catalog().offers if o.id not in MAINLAND_HOURLY]
    result = plan_project(_lora_7b_shanghai(14), offers, compare=False, n_runner_ups=0)
    assert result.plan is None
    assert any(r.rule is Rule.REGION for r in result.rejections)
    assert all(r.rule is not Rule.REGION for r in result.rejections if r.offer_id.endswith("cn-east"))
