"""In ``--lang zh-CN`` the sentences procure writes itself are Chinese: the rejection reasons, the runner-up
and "why not" reasons, the parallel strategies, the sizing settings' meanings and the constants' units —
rendered from the translation catalogue through their structured form (``solver.reasons.Msg``), their
amounts in the reader's unit. What the inputs say (ids, GPU and vendor names, models, sources) and the
citations in a "source" column are quoted as written."""

from __future__ import annotations

import re

import openpyxl
import pytest

from procure.reports.i18n import Lang

from helpers import EXAMPLES, cli

ZH = Lang("zh-CN", currency="USD")
WAN = Lang("zh-CN", "wan", currency="USD")
#: three English words in a row (letters only, joined by spaces): a sentence, not an id, a path or a formula
ENGLISH = re.compile(r"(?<![\w/.-])[A-Za-z][a-z]+(?: [A-Za-z][a-z]+){2,}(?![\w/.-])")


def _input_strings(path) -> list[str]:
    """Every text the workload and its offers give: ids, names, vendors, regions, sources, models."""
    from procure import app as use

    inputs = use.load_inputs(path, None)
    out: set[str] = set()
    models = [*inputs.catalog.offers, inputs.project, *inputs.project.workloads]
    for m in models:
        for _k, v in m:
            if isinstance(v, str) and len(v) > 2:
                out.add(v)
    for w in inputs.project.workloads:
        out |= {str(getattr(w.model, k, "")) for k in ("id", "name", "source", "hf_id") if getattr(w.model, k, None)}
    return sorted(out, key=len, reverse=True)


def english_sentences(book, allowed: list[str]) -> list[tuple[str, str, str]]:
    """(sheet, cell, text) of every cell with an English sentence procure wrote: the inputs' own strings
    removed first, a "source" column's citations and command lines skipped."""
    source = ZH("source")
    out = []
    for ws in book.worksheets:
        source_cols: set[int] = set()
        for row in ws.iter_rows():
            texts = [c for c in row if isinstance(c.value, str) and c.value.strip()]
            if not texts:
                source_cols = set()  # a new section
                continue
            source_cols |= {c.column for c in texts if c.value == source}
            for c in texts:
                t = c.value
                if c.column in source_cols or t.startswith("=") or "procure " in t:
                    continue
                for a in allowed:
                    t = t.replace(a, " ")
                if ENGLISH.search(t):
                    out.append((ws.title, c.coordinate, c.value[:120]))
    return out


@pytest.mark.slow  # solves every example in Chinese: about a minute
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_a_chinese_workbook_of_every_example_has_no_english_sentence_procure_wrote(example, tmp_path):
    out = tmp_path / "zh.xlsx"
    res = cli("solve", example, "--lang", "zh-CN", "--out", out)
    assert res.exit_code in (0, 5), res.output
    allowed = _input_strings(example)
    left = english_sentences(openpyxl.load_workbook(out), allowed)
    assert not left, left[:15]
    # the console too, the lines that name files written aside
    said = [ln for ln in res.output.splitlines() if str(out) not in ln and "procure " not in ln]
    for a in allowed:
        said = [ln.replace(a, " ") for ln in said]
    assert not [ln for ln in said if ENGLISH.search(ln)], [ln for ln in said if ENGLISH.search(ln)][:10]


def test_the_rejections_and_runner_ups_of_a_small_plan_read_in_chinese():
    """The same check, fast, on a small fixed plan with rejections and runner-ups (no sizing engine)."""
    import io

    from procure.reports.xlsx.workbook import workbook_bytes

    from helpers import offer, project, solve_fixed, workload

    p = project([workload(name="a", deadline_days=60), workload(name="b", deadline_days=10)])
    offers = [
        offer(id="slow", mode="cloud", price_per_node_hour=20.0),
        offer(id="fast", mode="cloud", price_per_node_hour=90.0, max_nodes=16),
    ]
    hours = {("a", "slow", 1): 100.0, ("a", "fast", 1): 90.0, ("b", "slow", 1): 1884.0, ("b", "fast", 16): 254.4}
    res = solve_fixed(p, offers, hours, compare=True, all_or_nothing=False, n_runner_ups=1)
    book = openpyxl.load_workbook(io.BytesIO(workbook_bytes(res, [], ZH)))
    options = book[ZH("Options")]
    texts = [str(c.value) for row in options.iter_rows() for c in row if isinstance(c.value, str)]
    assert any("个节点需" in t and "截止日第 10 天" in t for t in texts)  # b's deadline rejection, in Chinese
    assert any("限定使用该报价时，整体方案成本多" in t for t in texts)  # a's runner-up, in Chinese
    allowed = ["slow", "fast", "Test Vendor", "test fixture", "H100-SXM-80GB"]
    assert [x for x in english_sentences(book, allowed) if x[0] == ZH("Options")] == []


def test_amounts_in_a_sentence_follow_the_reader_s_unit():
    from procure.solver.explain import _price_reason

    _why, msg = _price_reason(1_275_150.0, 1_000_000.0, {"cloud": (0.0, 442_769.0), "rent": (167_619.0, 0.0)}, "USD")
    assert str(msg) == "held to it, the whole plan costs 275,150 USD more (cloud +442,769, rent -167,619)"
    zh = ZH.say(msg)
    assert "275,150 美元" in zh and "+442,769" in zh and "held to it" not in zh
    wan = WAN.say(msg)
    assert "27.5 万美元" in wan and "+44.3 万" in wan  # 275,150 / 10,000 and 442,769 / 10,000, one decimal
    # an amount that 万 would round to 0.0 is said in whole units
    _why, small = _price_reason(1_000_120.0, 1_000_000.0, {"cloud": (0.0, 120.0)}, "USD")
    assert WAN.say(small) == "限定使用该报价时，整体方案成本多 120 美元（云 +120 美元）"


def test_a_job_a_budget_sets_aside_reads_in_chinese():
    # three cloud jobs at 30 per node-hour: 100 h, 200 h, 300 h cost 3,000, 6,000 and 9,000; a TCO budget of 12,500
    # covers two of them at most, so the most expensive is set aside — with the budget's reason, in Chinese
    from procure.reports.headline import set_aside_headline, set_aside_rows

    from helpers import offer, project, solve_fixed, workload

    cloud = offer(id="c", mode="cloud", price_per_node_hour=30.0)
    jobs = [workload(name=n, deadline_days=60) for n in ("a", "b", "c")]
    p = project(jobs, budget_tco=12_500)
    hours = {("a", "c", 1): 100.0, ("b", "c", 1): 200.0, ("c", "c", 1): 300.0}
    res = solve_fixed(p, [cloud], hours, compare=False, all_or_nothing=False)
    assert [x.workload for x in res.set_aside] == ["c"]
    head = set_aside_headline(res, ZH)
    assert "budget_tco 12,500 美元 最多覆盖 3 个训练任务中的 2 个" in head, head
    [row] = set_aside_rows(res, ZH)
    said = [row["summary"], *row["reasons"]]
    assert not [t for t in said if ENGLISH.search(t.replace("budget_tco", " "))], said
    assert "budget_tco 12,500 USD covers 2 of the 3 jobs at most" in set_aside_headline(res)  # English as before
