"""``procure explain``: why not offer X for job W, on the quick-start programme, one offer of each mode.

The arithmetic is checked from the plans' lines, not from the explanation's own figures: each category of
both plans is recomputed from its purchases, rentals and cloud jobs with the offers' quoted prices, and
the difference must be held − chosen per category, summing to the total difference."""

from __future__ import annotations

import csv
import json

import pytest

from procure.offers.catalog import load_catalog

from helpers import ROOT, cli

#: the module fixture is built once, on one worker
pytestmark = pytest.mark.xdist_group("explain")

PROGRAMME = ROOT / "examples" / "programme-12-months.yaml"
CENT = 0.05


@pytest.fixture(scope="module")
def catalog():
    return {o.id: o for o in load_catalog(None).offers}


def _capex(plan, offers) -> float:
    """Σ purchases nodes × the price per node (the bundled catalog has no volume tiers, duty or VAT)."""
    return sum(x["nodes"] * offers[x["offer"]].price_per_node for x in plan["purchases"])


def _rent(plan, offers) -> float:
    """Σ rentals nodes × months × the quoted price per node-month (the bundled catalog quotes one flat rate)."""
    return sum(
        r["nodes"] * r["months"] * offers[r["offer"]].price_per_node_month
        for r in plan["rentals"]
        if offers[r["offer"]].mode == "rent"
    )


def _setup(plan, offers) -> float:
    return sum(
        r["nodes"] * offers[r["offer"]].setup_fee_per_node for r in plan["rentals"] if offers[r["offer"]].mode == "rent"
    )


def _cloud(plan, offers) -> float:
    """Σ cloud jobs nodes × wall hours × price per node-hour (on demand: the wall hours are the compute hours)."""
    return sum(
        a["nodes"] * a["hours"] * offers[a["offer"]].price_per_node_hour
        for a in plan["assignments"]
        if a["mode"] == "cloud"
    )


@pytest.mark.slow  # re-solves the 12-month programme and searches a break-even: 5-7 s each
@pytest.mark.parametrize(
    "offer_id, mode, category, recompute",
    [
        ("buy-hgx-h100-8gpu-us-east", "buy", "capex", _capex),
        # the rented A100s: the pretraining runs on rented H100s (test_explain_the_chosen_offer_says_it_is_chosen)
        ("rent-8x-a100-80gb-sxm-us-east", "rent", "rent", _rent),
        ("aws-p5-48xlarge-us-east-1", "cloud", "cloud", _cloud),
    ],
    ids=["buy", "rent", "cloud"],
)
def test_explain_answers_for_an_offer_of_each_mode(tmp_path, catalog, offer_id, mode, category, recompute):
    js, table = tmp_path / "why.json", tmp_path / "why.csv"
    res = cli("explain", PROGRAMME, "--offer", offer_id, "--workload", "pretrain-7b", "--json", js, "--csv", table)
    assert res.exit_code == 0, res.output
    flat = " ".join(res.output.split())
    assert f"Why not {offer_id} for pretrain-7b?" in flat and "why not: price" in flat and "break-even:" in flat
    doc = json.loads(js.read_text())
    [e] = doc["explanations"]
    assert catalog[offer_id].mode == mode == e["mode"] and e["why"] == "price"
    chosen, held = doc["chosen_plan"], e["held_plan"]
    # the job runs on the offer in the held plan, and elsewhere in the recommended one
    assert next(a["offer"] for a in held["assignments"] if a["workload"] == "pretrain-7b") == offer_id
    assert e["chosen_offer"] != offer_id
    # the category of this mode, recomputed from each plan's lines
    want_chosen, want_held = recompute(chosen, catalog), recompute(held, catalog)
    assert e["categories"][category]["chosen"] == pytest.approx(want_chosen, abs=CENT)
    assert e["categories"][category]["held"] == pytest.approx(want_held, abs=CENT)
    assert e["categories"][category]["difference"] == pytest.approx(want_held - want_chosen, abs=2 * CENT)
    assert want_held > 0  # the held plan does use the offer's mode
    # every category: difference = held − chosen, and they add up to the total difference (TCO minimized)
    for c, v in e["categories"].items():
        assert v["difference"] == pytest.approx(v["held"] - v["chosen"], abs=2 * CENT), c
        assert v["chosen"] == pytest.approx(chosen["cost_breakdown"][c], abs=CENT) and v["held"] == pytest.approx(
            held["cost_breakdown"][c], abs=CENT
        )
    assert e["vs_chosen"] == pytest.approx(e["held_cost"] - e["chosen_cost"], abs=2 * CENT)
    assert sum(v["difference"] for v in e["categories"].values()) == pytest.approx(e["vs_chosen"], abs=0.5)
    assert e["held_cost"] == pytest.approx(held["total_cost"], abs=CENT) and e["chosen_cost"] == pytest.approx(
        chosen["total_cost"], abs=CENT
    )
    assert e["vs_chosen"] > 0  # the recommended plan is the optimum: holding the job elsewhere cannot be cheaper
    # the same answer in the CSV table
    with open(table, newline="", encoding="utf-8") as fh:
        [row] = list(csv.DictReader(fh))
    assert row["offer"] == offer_id and row["why"] == "price"
    assert float(row[f"diff_{category}"]) == pytest.approx(want_held - want_chosen, abs=2 * CENT)
    # a break-even price below today's, or the reason there is none
    be = e["break_even"]
    assert be["current"] == pytest.approx(
        {
            "buy": catalog[offer_id].price_per_node,
            "rent": catalog[offer_id].price_per_node_month,
            "cloud": catalog[offer_id].price_per_node_hour,
        }[mode]
    )
    assert (be["price"] is not None and be["price"] < be["current"]) or be["reason"]


def test_explain_bad_offer_or_workload_is_exit_1_with_the_allowed_values():
    res = cli("explain", PROGRAMME, "--offer", "rent-8x-h100-sxm-us-eats")
    assert res.exit_code == 1
    flat = " ".join(res.output.split())
    assert (
        "unknown offer 'rent-8x-h100-sxm-us-eats'" in flat
        and "did you mean" in flat.lower()
        and "aws-p5-48xlarge-us-east-1" in flat
    )
    res = cli("explain", PROGRAMME, "--offer", "aws-p5-48xlarge-us-east-1", "--workload", "pretrain-8b")
    assert res.exit_code == 1
    flat = " ".join(res.output.split())
    assert "unknown workload 'pretrain-8b'" in flat and "finetune-month-12" in flat


@pytest.mark.slow  # six held re-solves of the 12-month programme and their break-evens: about 10 s
def test_explain_without_workload_answers_for_the_six_closest_jobs_and_counts_the_rest(tmp_path):
    # the eight monthly fine-tunes (months 5 to 12) can each run on RunPod's H100 nodes: the answer is for six
    # of them, and says how many more there are, instead of refusing with every name
    js = tmp_path / "e.json"
    res = cli("explain", PROGRAMME, "--offer", "runpod-8x-h100-sxm", "--json", js)
    assert res.exit_code == 0, res.output
    doc = json.loads(js.read_text())
    months = {f"finetune-month-{m:02d}" for m in range(5, 13)}
    got = [e["workload"] for e in doc["explanations"]]
    assert len(got) == 6 and set(got) <= months and doc["more_jobs"] == 2
    assert all(e["vs_chosen"] >= 0 and e["break_even"]["text"] for e in doc["explanations"])
    flat = " ".join(res.output.split())
    assert "2 more job(s) could use runpod-8x-h100-sxm" in flat and "name one with --workload" in flat


def test_explain_the_chosen_offer_says_it_is_chosen():
    # the 7B pretraining runs on rented H100s: an H100 trains a 7B 2.3x as fast as an A100 in step
    # (docs/sizing.md), while its node-month costs 1.58x as much
    res = cli("explain", PROGRAMME, "--offer", "rent-8x-h100-sxm-us-east", "--workload", "pretrain-7b", "--json", "-")
    assert res.exit_code == 0
    doc = json.loads(res.stdout[res.stdout.index("{") :])
    [e] = doc["explanations"]
    assert e["why"] == "chosen" and e["vs_chosen"] == 0 and "already uses it" in e["break_even"]["reason"]


def test_runner_ups_skipped_for_the_time_limit_say_so():
    from procure.common.runtime import Budget
    from procure.solver.planner import runner_ups, skipped_note

    from helpers import offer, project, solve_fixed, workload

    p = project([workload(name="a", deadline_days=60)])
    offers = [
        offer(id="c1", mode="cloud", price_per_node_hour=30.0),
        offer(id="c2", mode="cloud", price_per_node_hour=40.0),
    ]
    hours = {("a", "c1", 1): 100.0, ("a", "c2", 1): 100.0}
    res = solve_fixed(p, offers, hours, compare=False)
    assert res.plan.assignments[0].offer_id == "c1" and skipped_note(res.runner_ups) == ""
    # a budget with less than RUNNER_UP_MIN_SECONDS left: the runner-up is listed, not costed, and the note says why
    from helpers import fixed_sizings

    sizings, resize = fixed_sizings(p, offers, hours)
    ups = runner_ups(
        p, res.offers, sizings, res.hybrid, "tco", n=1, budget=Budget(1e-3), resize=resize, solver="cbc", gap=1e-6
    )
    [up] = ups["a"]
    assert up.option.offer_id == "c2" and up.plan_cost is None and "no time was left within --time-limit" in up.note
    assert "runner-ups not costed" in skipped_note(ups)
