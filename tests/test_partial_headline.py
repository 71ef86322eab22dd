"""The headline of a partial plan: the rule that removed the most offers first, and for the deadline the
fastest shape of all — what a renegotiated deadline has to allow — not the first offer met; the Summary
says the planned jobs meet their deadlines and how many were set aside, not "all met".

Hand-worked case: job ``a`` (100 h) runs on the cloud offer ``slow``; job ``b`` is due day 10 and every
shape misses it: 1 node of ``slow`` takes 1,884 h = 78.5 days, 16 nodes of ``fast`` 254.4 h = 10.6 days,
2 nodes of ``ws`` (a workstation) 40 days."""

from __future__ import annotations

import io

import openpyxl

from procure.reports.headline import set_aside_headline
from procure.reports.xlsx.workbook import workbook_bytes

from helpers import offer, project, solve_fixed, workload


def _partial():
    p = project([workload(name="a", deadline_days=60), workload(name="b", deadline_days=10)])
    offers = [
        offer(id="slow", mode="cloud", price_per_node_hour=20.0),
        offer(id="ws", mode="cloud", price_per_node_hour=5.0, max_nodes=2),
        offer(id="fast", mode="cloud", price_per_node_hour=90.0, max_nodes=16),
    ]
    hours = {("a", "slow", 1): 100.0, ("b", "slow", 1): 1884.0, ("b", "ws", 2): 960.0, ("b", "fast", 16): 254.4}
    return solve_fixed(p, offers, hours, compare=False, all_or_nothing=False)


def test_the_headline_leads_with_the_dominant_cause_and_the_fastest_option():
    res = _partial()
    assert [x.workload for x in res.set_aside] == ["b"]
    head = set_aside_headline(res)
    assert head.startswith("1 of 2 jobs planned; b cannot run on these offers (deadline (3 offers): ")
    assert "the fastest, 16 node(s) of fast in 10.6 days" in head  # nodes, never a bare count
    assert "78.5" not in head and " are " not in head  # neither the slowest offer nor a broken clause


def test_the_summary_says_the_planned_jobs_meet_their_deadlines_and_one_is_set_aside():
    res = _partial()
    ws = openpyxl.load_workbook(io.BytesIO(workbook_bytes(res, [])))["Summary"]
    texts = [str(c.value) for row in ws.iter_rows() for c in row if c.value is not None]
    assert "all planned jobs meet their deadlines; 1 set aside" in texts
    assert "all met" not in texts
