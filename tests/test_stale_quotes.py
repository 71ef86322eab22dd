"""Stale prices (``stale_quote_days``): which offers of a plan need a fresh quote.

A quote goes stale; an invoice does not. Servers already owned and commitments already signed are paid at the
price paid or signed, so the plan warns only about money it would spend anew at a quoted price.
"""

from __future__ import annotations

from procure.reports.headline import stale_offers, stale_text
from procure.solver import holdings

from helpers import offer, project, solve_fixed, workload

OLD = "2025-01-01"  # 730 days (365 + 365: neither 2025 nor 2026 is a leap year) before the projects' start 2027-01-01: stale under the default 180 days


def _owned(hours):
    """Two owned nodes of a buy offer quoted on OLD, a cloud offer quoted recently, one job."""
    b = offer(id="dgx", mode="buy", quoted_on=OLD)
    c = offer(id="cloud", mode="cloud", price_per_node_hour=30.0)
    p = project([workload(name="j", deadline_days=60)], owned=[{"offer": "dgx", "nodes": 2}])
    return p, solve_fixed(p, holdings.with_owned(p, [b, c]), hours)


def test_servers_already_owned_ask_for_no_fresh_quote():
    p, res = _owned({("j", "dgx.owned", 2): 720, ("j", "cloud", 2): 720})
    assert p.stale_quote_days == 180
    (a,) = res.plan.assignments
    assert a.offer_id == "dgx.owned"  # the job runs on the owned nodes, nothing is bought
    assert [x.committed for x in res.plan.purchases] == [True]
    assert stale_offers(res) == [] and stale_text(res) == ""


def test_the_same_offer_bought_anew_still_asks_for_a_fresh_quote():
    # the job can only run on two new nodes of the offer (no hours on the owned ones): the plan buys them at the
    # price quoted on 2025-01-01, 730 days (2025-01-01 .. 2027-01-01) before the start
    _, res = _owned({("j", "dgx", 2): 720})
    assert {(x.offer_id, x.committed) for x in res.plan.purchases} == {("dgx.owned", True), ("dgx", False)}
    st = stale_offers(res)
    assert [(s.offer_id, str(s.quoted_on), s.days_before_start) for s in st] == [("dgx", OLD, 730)]
    assert "dgx.owned" not in stale_text(res)


def _signed(hours, **rent):
    r = offer(id="r", mode="rent", price_per_node_month=14_000, min_term_months=1, quoted_on=OLD, **rent)
    c = offer(id="cloud", mode="cloud", price_per_node_hour=30.0)
    p = project(
        [workload(name="j", deadline_days=60)],
        commitments=[{"offer": "r", "nodes": 1, "start_date": "2027-01-01", "months": 6}],
        period_days=1,
    )
    return solve_fixed(p, [r, c], hours)


def test_a_signed_commitment_asks_for_no_fresh_quote():
    res = _signed({("j", "r", 1): 20 * 24, ("j", "cloud", 1): 20 * 24})
    (a,) = res.plan.assignments
    assert a.offer_id == "r" and [x.committed for x in res.plan.rentals] == [True]
    assert stale_offers(res) == []


def test_new_contracts_of_a_signed_offer_still_ask_for_a_fresh_quote():
    # the job needs two nodes for 20 days; one is signed, the second is a new one-month contract at the quoted rate
    res = _signed({("j", "r", 2): 20 * 24}, max_nodes=2)
    assert sorted((x.committed, x.nodes) for x in res.plan.rentals) == [(False, 1), (True, 1)]
    assert [s.offer_id for s in stale_offers(res)] == ["r"]


def test_a_reserved_cloud_term_already_signed_asks_for_no_fresh_quote():
    rc = offer(id="rsv", mode="cloud", price_per_node_hour=20.0, commitment_months=12, max_nodes=4, quoted_on=OLD)
    c = offer(id="cloud", mode="cloud", price_per_node_hour=30.0)
    p = project(
        [workload(name="j", deadline_days=60)],
        commitments=[{"offer": "rsv", "nodes": 2, "start_date": "2027-01-01", "months": 12}],
    )
    res = solve_fixed(p, [rc, c], {("j", "rsv", 2): 100, ("j", "cloud", 2): 100})
    assert res.plan.assignments[0].offer_id == "rsv"
    assert stale_offers(res) == []


def test_an_old_cloud_quote_the_plan_pays_by_the_hour_is_still_flagged():
    c = offer(id="old-cloud", mode="cloud", quoted_on=OLD)
    p = project([workload(name="j", deadline_days=30)])
    res = solve_fixed(p, [c], {("j", "old-cloud", 1): 100})
    assert [s.offer_id for s in stale_offers(res)] == ["old-cloud"]
