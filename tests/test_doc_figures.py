"""Every figure the README and docs quote from the examples, checked by solving the examples.

The figures are read from the documents' own text (each check names the sentence it reads, a pattern
with one number in it), so a change to the examples or the cost model is answered by updating the
documents alone; a sentence rephrased so its pattern no longer matches fails too, naming it. What each
figure is (a total, a strategy's total, a category, a break-even) is computed here from the solve's
JSON; a figure the documents round is compared at their precision."""

from __future__ import annotations

import json
import re

import pytest

from helpers import ROOT, cli

README = ROOT / "README.md"
QUOTES = ROOT / "docs" / "quotes.md"
ANALYSIS = ROOT / "docs" / "analysis.md"
EX = ROOT / "examples"
NUM = r"(?P<x>[+−-]?[\d,]+(?:\.\d+)?)"


def _pct(a: float, b: float) -> float:
    """a against b in percent (a 25% saving: −25)."""
    return (a / b - 1.0) * 100.0


def _tco(j):
    return j["total_cost"]


def _strategy(name):
    def total(j):
        return j["strategies"][name]["total_cost"]

    total.strategy = name  # type: ignore[attr-defined]
    return total


def _proven(j, name) -> tuple[float, float]:
    """(lowest, highest) total a strategy's solve allows: its cost when proven optimal; when it stopped at its
    share of the time limit ("feasible" with a gap), anything from its proven bound, cost × (1 − gap), to the
    plan it found, since a faster machine gets further. The documents quote the proven optimum there."""
    st = j["strategies"][name]
    cost = st["total_cost"]
    if st["status"] == "optimal" or not st.get("gap"):
        return cost, cost
    return cost * (1.0 - st["gap"]), cost


# (document, sentence pattern with one number, the run it reads, what the number is)
CHECKS = [
    (README, rf"— {NUM} USD total cost of ownership over 36 months", "programme", _tco),
    (README, rf"\(NPV {NUM} USD\s+at 8%\)", "programme", lambda j: j["npv_cost"]),
    (README, rf"{NUM}% less than renting only", "programme", lambda j: -_pct(j["total_cost"], _strategy("rent")(j))),
    (README, rf"less than renting only \({NUM}\)", "programme", _strategy("rent")),
    (README, rf"{NUM}% less than cloud only", "programme", lambda j: -_pct(j["total_cost"], _strategy("cloud")(j))),
    (README, rf"less than cloud only \({NUM}\)", "programme", _strategy("cloud")),
    (README, rf"{NUM}% less than\s+buying", "programme", lambda j: -_pct(j["total_cost"], _strategy("buy")(j))),
    (README, rf"less than\s+buying \({NUM}\)", "programme", _strategy("buy")),
    # after tax (docs/finance.md): the JSON's after_tax and lease_vs_buy
    (README, rf"monthly\): NPV {NUM} USD at 9.0% a year", "programme", lambda j: j["after_tax"]["npv"]),
    (README, rf"at 9.0% a year, {NUM} USD undiscounted", "programme", lambda j: j["after_tax"]["total"]),
    (README, rf"the plan's deductions save {NUM} USD of tax", "programme", lambda j: j["after_tax"]["tax_shield"]),
    (README, rf"buying costs {NUM} USD more after-tax NPV", "programme", lambda j: -j["lease_vs_buy"]["npv_saving"]),
    (README, rf"more after-tax NPV; IRR {NUM}% a year", "programme", lambda j: 100 * j["lease_vs_buy"]["irr"]),
    (
        README,
        rf"net advantage to leasing {NUM} USD \(at 9.00%,",
        "programme",
        lambda j: j["lease_vs_buy"]["net_advantage_to_leasing"],
    ),
    (
        README,
        rf"buying wins from a utilisation of {NUM}%",
        "programme",
        lambda j: 100 * j["lease_vs_buy"]["break_even_utilisation"],
    ),
    (README, rf"utilisation of \d+% \(today {NUM}%\)", "programme", lambda j: 100 * j["lease_vs_buy"]["utilisation"]),
    (README, rf"\*\*spot\*\* nodes? at {NUM} USD", "67b", _tco),
    (README, rf"\({NUM} USD of it AWS's internet egress", "67b", lambda j: j["cost_breakdown"]["egress"]),
    (README, rf"on-demand fallback, {NUM} USD", "67b", lambda j: j["spot_fallback"]["total_cost"]),
    (README, rf"\d+ × 8×H100 bought, {NUM} USD", "buy-only", _tco),
    (README, rf"same totals as the English workbook \({NUM} USD\)", "quotes", _tco),
    (README, rf"one A6000 server \({NUM} USD over 24 months\)", "lab", _tco),
    (README, rf"category: cloud \+{NUM}", "explain", lambda e: e["categories"]["cloud"]["difference"]),
    (README, rf"rent {NUM}, the whole plan", "explain", lambda e: e["categories"]["rent"]["difference"]),
    (README, rf"the whole plan \+{NUM} USD \(price\)", "explain", lambda e: e["vs_chosen"]),
    (
        README,
        rf"cloud hours from AWS \(aws-p5-48xlarge-us-east-1\) at or below {NUM} USD",
        "explain",
        lambda e: e["break_even"]["price"],
    ),
    (README, rf"per node-hour \(today {NUM} USD,", "explain", lambda e: e["break_even"]["current"]),
    (
        README,
        rf"per node-hour \(today [\d.,]+ USD, {NUM}%\)",
        "explain",
        lambda e: _pct(e["break_even"]["price"], e["break_even"]["current"]),
    ),
    (ANALYSIS, rf"its optimum is now {NUM} USD", "programme", _tco),
    (QUOTES, rf"\| recommended \(hybrid\) TCO \| [\d,]+ USD \| {NUM} USD", "quotes", _tco),
    (QUOTES, rf"\| recommended NPV at 8% \| [\d,]+ USD \| {NUM} USD", "quotes", lambda j: j["npv_cost"]),
    (QUOTES, rf"\| rent only \| [\d,]+ USD \| {NUM} USD", "quotes", _strategy("rent")),
    (QUOTES, rf"\| cloud only \| [\d,]+ USD \| {NUM} USD", "quotes", _strategy("cloud")),
    (QUOTES, rf"\| buy only \| [\d,]+ USD \| {NUM} USD", "quotes", _strategy("buy")),
    # the same offers with flat prices (``_flat_quotes``)
    (QUOTES, rf"\| recommended \(hybrid\) TCO \| {NUM} USD", "flat", _tco),
    (QUOTES, rf"\| recommended NPV at 8% \| {NUM} USD", "flat", lambda j: j["npv_cost"]),
    (QUOTES, rf"\| rent only \| {NUM} USD", "flat", _strategy("rent")),
    (QUOTES, rf"\| cloud only \| {NUM} USD", "flat", _strategy("cloud")),
    (QUOTES, rf"\| buy only \| {NUM} USD", "flat", _strategy("buy")),
]
# the percent beside each figure of the quotes column: quotes against flat prices
VERSUS = [
    (rf"\| recommended \(hybrid\) TCO \| [\d,]+ USD \| [\d,]+ USD \({NUM}%", _tco),
    (rf"\| recommended NPV at 8% \| [\d,]+ USD \| [\d,]+ USD \({NUM}%", lambda j: j["npv_cost"]),
    (rf"\| rent only \| [\d,]+ USD \| [\d,]+ USD \({NUM}%", _strategy("rent")),
    (rf"\| cloud only \| [\d,]+ USD \| [\d,]+ USD \({NUM}%", _strategy("cloud")),
    (rf"\| buy only \| [\d,]+ USD \| [\d,]+ USD \({NUM}%", _strategy("buy")),
]

#: the solves are the session's cached ones (tests/solved.py): on the worker that holds them
pytestmark = pytest.mark.xdist_group("solved")

RUNS = {
    "programme": ("solve", EX / "programme-12-months.yaml"),
    "67b": ("solve", EX / "full-67b-60days.yaml"),
    "buy-only": ("solve", ROOT / "docs" / "programme-buy-only.yaml"),
    "quotes": ("solve", EX / "negotiated-quotes.yaml"),
    "lab": ("solve", EX / "small-lab.yaml"),
    "flat": ("solve", None),  # negotiated-quotes with flat prices, written by the fixture
    "explain": (
        "explain",
        EX / "programme-12-months.yaml",
        "--offer",
        "aws-p5-48xlarge-us-east-1",
        "--workload",
        "pretrain-7b",
    ),
}


def _flat_quotes(d):
    """docs/quotes.md's "same offers with flat prices": the 1-month rate, the 1-node price, paid in cash, no
    reservation (the committed-use offer left out; its on-demand twin stays)."""
    import shutil

    import yaml

    doc = yaml.safe_load((EX / "negotiated-quotes-offers.yaml").read_text(encoding="utf-8"))
    flat = []
    for o in doc["offers"]:
        if o.get("commitment_months"):
            continue
        if "term_prices" in o:
            o["price_per_node_month"] = o.pop("term_prices")[0]["price_per_node_month"]
            o["min_term_months"] = 1
        if "volume_prices" in o:
            o["price_per_node"] = o.pop("volume_prices")[0]["price_per_node"]
        o.pop("financing", None)
        flat.append(o)
    doc["offers"] = flat
    (d / "negotiated-quotes-offers.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    shutil.copy(EX / "negotiated-quotes.yaml", d / "negotiated-quotes.yaml")
    return d / "negotiated-quotes.yaml"


@pytest.fixture(scope="module")
def runs(tmp_path_factory, solved):
    """Each example solved (the session's cached solve, tests/solved.py: every strategy, no runner-ups) or
    explained once, its JSON, on demand."""
    d = tmp_path_factory.mktemp("figures")
    cache: dict[str, dict] = {}

    def get(key: str) -> dict:
        if key not in cache:
            command, path, *rest = RUNS[key]
            if path is None:
                path = _flat_quotes(d)
            if command == "solve":
                run = solved(path)
                assert run.exit_code in (0, 5), run.output
                cache[key] = run.doc
            else:
                out = d / f"{key}.json"
                res = cli(command, path, *rest, "--json", out)
                assert res.exit_code in (0, 5), res.output
                cache[key] = json.loads(out.read_text())["explanations"][0]
        return cache[key]

    return get


def _number(text: str) -> tuple[float, int]:
    """A quoted figure and its decimals: "−167,628" → (−167628, 0); "20.83" → (20.83, 2)."""
    t = text.replace("−", "-").replace(",", "").lstrip("+")
    return float(t), len(t.split(".", 1)[1]) if "." in t else 0


@pytest.mark.slow  # solves five examples and explains one: about 40 s
@pytest.mark.parametrize("doc, pattern, run, what", CHECKS, ids=[f"{c[0].name}:{c[1][:40]}" for c in CHECKS])
def test_every_figure_the_docs_quote_is_what_the_example_solves_to(runs, doc, pattern, run, what):
    text = " ".join(doc.read_text(encoding="utf-8").split())
    m = re.search(" ".join(pattern.split()), text)
    assert m, f"{doc.name}: no sentence matches {pattern!r}; update the check with the sentence"
    quoted, decimals = _number(m.group("x"))
    tol = 10**-decimals * 0.51
    if hasattr(what, "strategy"):  # a strategy's total: exact when proven, within its proven range when not
        lo, hi = _proven(runs(run), what.strategy)
        assert lo - tol <= quoted <= hi + tol, (
            f"{doc.name} quotes {m.group('x')} ({pattern!r}); the example's {what.strategy} only is {lo:,.0f}–{hi:,.0f}"
        )
        return
    actual = what(runs(run))
    assert round(actual, decimals) == pytest.approx(quoted, abs=tol), (
        f"{doc.name} quotes {m.group('x')} ({pattern!r}); the example gives {actual:,.{decimals}f}"
    )


@pytest.mark.slow  # the negotiated quotes, as received and with flat prices: about 30 s
@pytest.mark.parametrize("pattern, what", VERSUS, ids=[p[4:30] for p, _w in VERSUS])
def test_the_quotes_against_flat_prices_percent_is_what_the_two_solves_give(runs, pattern, what):
    text = " ".join(QUOTES.read_text(encoding="utf-8").split())
    m = re.search(pattern, text)
    assert m, f"quotes.md: no sentence matches {pattern!r}"
    quoted, decimals = _number(m.group("x"))
    tol = 10**-decimals * 0.51
    if hasattr(what, "strategy"):  # either solve may have stopped at its time limit: the percent's proven range
        (q_lo, q_hi), (f_lo, f_hi) = _proven(runs("quotes"), what.strategy), _proven(runs("flat"), what.strategy)
        lo, hi = _pct(q_lo, f_hi), _pct(q_hi, f_lo)
        assert lo - tol <= quoted <= hi + tol, (m.group(0), lo, hi)
        return
    actual = _pct(what(runs("quotes")), what(runs("flat")))
    assert round(actual, decimals) == pytest.approx(quoted, abs=tol), (m.group(0), actual)
