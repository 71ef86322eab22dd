"""The reader's language: every label has a translation, the zh-CN approval pack reads in Chinese,
recalculates to the English totals, prints with its glyphs, and English stays the text in the code."""

from __future__ import annotations

import ast
import csv
import datetime as dt
import io
import json
import re
import shutil
import subprocess
from collections import Counter

import openpyxl
import pytest
from rich.console import Console

from procure.reports import i18n
from procure.reports.assumption_rows import PRICE_FIELDS
from procure.reports.console import print_result
from procure.reports.csv_report import tables
from procure.reports.i18n import EN, Lang, catalogue
from procure.reports.xlsx.workbook import SHEETS, workbook_bytes
from procure.solver.planner import plan_project

from helpers import ROOT, cli, offer, project, recalculating_profile, workload

SOFFICE = shutil.which("soffice")
needs_soffice = pytest.mark.skipif(
    SOFFICE is None, reason="LibreOffice (soffice) is not installed: cannot recalculate or print the workbook"
)

#: the module's solve and workbooks are built once, on one worker
pytestmark = pytest.mark.xdist_group("i18n")
CJK = re.compile(r"[\u4e00-\u9fff]")
ZH = Lang("zh-CN", currency="CNY")
WAN = Lang("zh-CN", "wan", currency="CNY")


# --- the catalogue ----------------------------------------------------------------------------------


def _strings(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.IfExp):
        yield from _strings(node.body)
        yield from _strings(node.orelse)


def labels_in_code() -> dict[str, str]:
    """Every label the reports (and the lines the use cases print) pass through the catalogue: the first argument of ``tr(...)``, every
    argument of ``N_``/``Ns``/``tr.each``, and every sentence the solver and the analyses write with ``say(...)``
    (``solver.reasons.Msg``, rendered by ``Lang.say``) — msgid -> where it is."""
    found: dict[str, str] = {}
    solver = [*sorted((ROOT / "solver").rglob("*.py")), *sorted((ROOT / "analysis").rglob("*.py"))]
    for path in [
        *sorted((ROOT / "reports").rglob("*.py")),
        ROOT / "procure" / "app.py",
        ROOT / "procure" / "progress.py",
        *solver,
    ]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in ("tr", "say"):
                args = node.args[:1]
            elif name in ("N_", "Ns") or (name == "each" and isinstance(f, ast.Attribute)):
                args = node.args
            elif (
                name == "p"
                and isinstance(f, ast.Attribute)
                and len(node.args) >= 2
                and isinstance(node.args[0], ast.Constant)
            ):
                for s in _strings(node.args[1]):  # a label with its context (msgctxt)
                    found.setdefault(f"{node.args[0].value}\x04{s}", f"{path.relative_to(ROOT)}:{node.lineno}")
                continue
            else:
                continue
            for a in args:
                for s in _strings(a):
                    found.setdefault(s, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_the_extractor_finds_the_labels_of_every_report():
    found = labels_in_code()
    assert len(found) > 400
    for label in (
        "Summary",
        "Cash flow",
        "Recommendation",
        "hybrid (free)",
        "capex (purchases)",
        "Plan per workload",
        "recommended_saves_pct",
    ):
        assert label in found, label


def test_every_label_has_a_chinese_translation():
    cat = catalogue("zh-CN")
    missing = {k: where for k, where in labels_in_code().items() if not cat.get(k, "").strip()}
    assert not missing, f"{len(missing)} label(s) without a zh-CN translation in reports/locale/zh_CN.po: {missing}"


def test_translations_keep_every_placeholder_and_its_format():
    token = re.compile(r"\{[^{}]*\}")
    bad = {k: v for k, v in catalogue("zh-CN").items() if Counter(token.findall(k)) != Counter(token.findall(v))}
    assert not bad


def test_translations_use_the_finance_terms_of_the_glossary():
    cat = catalogue("zh-CN")
    terms = {
        "TCO": "总拥有成本",
        "NPV": "净现值",
        "capex (purchases)": "资本支出",
        "Opex": "运营支出",
        "depreciation": "折旧",
        "residual value": "残值",
        "buy only": "自建/购买",
        "rent only": "裸金属租赁",
        "on-demand cloud": "按需云",
        "SPOT cloud": "竞价实例",
    }
    for en, zh in terms.items():
        assert zh in cat[en], (en, cat[en])
    glossary = (ROOT / "docs" / "glossary-zh.md").read_text(encoding="utf-8")
    for zh in terms.values():
        assert zh in glossary


# --- English is the text in the code; zh-CN follows the locale -----------------------------------------


def test_english_is_the_message_id_itself():
    assert EN("{n} workload(s)", n=3) == "3 workload(s)"
    assert EN("Summary") == "Summary"
    for x in (0.0, 999.5, 1234567.891, -48_200.0):
        assert EN.money(x, "USD") == f"{x:,.0f} USD"
    assert EN.money(None) == "—"
    assert EN.money_fmt("USD") == '#,##0 "USD"_);-#,##0 "USD"_);0 "USD"_)'
    assert EN.date(dt.date(2027, 1, 4)) == "2027-01-04"


def test_chinese_numbers_dates_and_currency_names():
    assert ZH.date(dt.date(2027, 1, 4)) == "2027年1月4日"
    assert ZH.month(dt.date(2027, 3, 1)) == "2027年3月"
    assert ZH.money(1_234_567.4, "CNY") == "1,234,567 元"
    assert ZH.cur("USD") == "美元" and ZH.cur("EUR") == "欧元"
    assert WAN.money(12_345_678, "CNY") == "1,234.6 万元"
    assert WAN.unit("USD") == "万美元"


def test_wan_is_a_number_format_not_a_rounded_value():
    """Excel and LibreOffice show 12,345,678 in ``0\\.0,"万元"`` as 1234.6万元: ÷1,000 by the comma, then a literal point."""
    fmt = WAN.money_fmt("CNY")
    assert fmt.startswith('0\\.0,"万元"')
    assert WAN.amount_fmt("#,##0") == "0\\.0,"


def test_unknown_language_or_amounts_are_refused():
    with pytest.raises(ValueError, match="zh-CN"):
        Lang("fr")
    with pytest.raises(ValueError, match="wan"):
        Lang("en", "lakh")
    assert i18n.normalize("zh_cn") == "zh-CN" and i18n.normalize("ZH") == "zh-CN" and i18n.normalize("fr") is None


# --- a plan with every mode, rendered in Chinese --------------------------------------------------------

OFFERS = [
    offer(id="buy-h100", vendor="自建机房", mode="buy", lead_time_days=30, max_nodes=4),
    offer(
        id="rent-h100",
        vendor="上海裸金属",
        mode="rent",
        price_per_node_month=90_000,
        setup_fee_per_node=5000,
        min_term_months=2,
    ),
    offer(
        id="cloud-h100",
        vendor="云厂商",
        mode="cloud",
        price_per_node_hour=640.0,
        spot=True,
        spot_overhead_pct=0.15,
        max_nodes=4,
    ),
]


@pytest.fixture(scope="module")
def result():
    p = project(
        [
            workload(name="pretrain", method="pretrain", tokens_b=3000, earliest_start_days=35, deadline_days=700),
            workload(name="ft-early", tokens_b=2, deadline_days=30),
            workload(name="ft-late", tokens_b=20, earliest_start_days=300, deadline_days=400),
        ],
        currency="CNY",
        horizon_months=24,
        discount_rate=0.06,
        language="zh-CN",
    )
    r = plan_project(p, OFFERS)
    assert r.plan is not None
    assert {"buy", "cloud"} <= set(r.plan.modes())
    return r


@pytest.fixture(scope="module")
def books(result, tmp_path_factory):
    folder = tmp_path_factory.mktemp("i18n")
    out = {}
    for name, tr in (("en", Lang(currency="CNY")), ("zh", ZH), ("wan", WAN)):
        out[name] = folder / f"{name}.xlsx"
        out[name].write_bytes(workbook_bytes(result, (), tr))
    return out


def test_rendering_in_chinese_misses_no_label(result, books):
    i18n.MISSING.clear()
    console = Console(file=io.StringIO(), width=200)
    print_result(console, result, tr=ZH)
    tables(result, tr=WAN)
    workbook_bytes(result, (), WAN)
    assert not i18n.MISSING, sorted(i18n.MISSING)
    text = console.file.getvalue()
    for phrase in ("建议", "总拥有成本", "各训练任务的计划", "成本构成"):
        assert phrase in text


def test_english_rendering_is_the_default(result):
    plain, told = Console(file=io.StringIO(), width=200), Console(file=io.StringIO(), width=200)
    print_result(plain, result)
    print_result(told, result, tr=EN)
    assert plain.file.getvalue() == told.file.getvalue()
    assert tables(result, now=dt.datetime(2027, 1, 1)) == tables(result, now=dt.datetime(2027, 1, 1), tr=EN)


def test_every_sheet_reads_in_chinese(books):
    wb = openpyxl.load_workbook(books["zh"])
    assert wb.sheetnames == [ZH(s) for s in SHEETS]
    assert all(CJK.search(name) for name in wb.sheetnames)
    cat = catalogue("zh-CN")
    # labels whose Chinese differs from the English; the offers' field names on the Assumptions sheet are data
    english = {k for k in labels_in_code() if cat.get(k) != k} - {*PRICE_FIELDS, "lead_time_days", "; ", ", ", ":"}
    for ws in wb.worksheets:
        assert CJK.search(str(ws["A1"].value)), ws.title  # the title
        left = [
            (c.coordinate, c.value)
            for row in ws.iter_rows()
            for c in row
            if isinstance(c.value, str) and c.value in english
        ]
        assert not left, (ws.title, left[:10])
    header = [c.value for c in wb[ZH("Plan")][3]]
    assert "训练任务" in header and "成本（元）" in header


def test_the_chinese_workbook_names_a_font_with_cjk_glyphs(books):
    wb = openpyxl.load_workbook(books["zh"])
    ws = wb[ZH("Summary")]
    assert ws["A1"].font.name == "Noto Sans CJK SC" and ws["A1"].font.b
    assert {c.font.name for row in ws.iter_rows() for c in row if c.value is not None} == {"Noto Sans CJK SC"}


def test_csv_header_rows_in_chinese_and_values_unchanged(result):
    now = dt.datetime(2027, 1, 1)
    en, zh = tables(result, now=now), tables(result, now=now, tr=ZH)
    assert en.keys() == zh.keys()
    plan_en = list(csv.reader(io.StringIO(en["plan.csv"].decode())))
    plan_zh = list(csv.reader(io.StringIO(zh["plan.csv"].decode())))
    assert plan_en[0][0] == "workload" and plan_zh[0][0] == "训练任务"
    assert [r[-1] for r in plan_en[1:]] == [r[-1] for r in plan_zh[1:]]  # the costs, unrounded
    for name, data in zh.items():
        head = next(csv.reader(io.StringIO(data.decode())))
        assert all(CJK.search(h) or h in ("gpu", "GPU") for h in head), (name, head)


# --- LibreOffice: recalculation and print ------------------------------------------------------------------


def _soffice(paths, fmt, out, profile):
    subprocess.run(
        [
            SOFFICE,
            f"-env:UserInstallation={recalculating_profile(profile)}",
            "--headless",
            "--calc",
            "--convert-to",
            fmt,
            "--outdir",
            str(out),
            *map(str, paths),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )


def _named(wb, name):
    ((sheet, coord),) = list(wb.defined_names[name].destinations)
    return wb[sheet][coord.replace("$", "")].value


@pytest.mark.soffice
@needs_soffice
def test_the_chinese_workbooks_recalculate_to_the_english_totals(result, books, tmp_path_factory):
    out, profile = tmp_path_factory.mktemp("recalc"), tmp_path_factory.mktemp("lo-profile")
    _soffice(books.values(), "xlsx", out, profile)
    recalc = {k: openpyxl.load_workbook(out / p.name, data_only=True) for k, p in books.items()}
    names = ["total_cost", "npv_cost", *(f"cat_{c}" for c in result.plan.breakdown)]
    for name in names:
        en = _named(recalc["en"], name)
        assert _named(recalc["zh"], name) == pytest.approx(en, abs=0.01), name
        assert _named(recalc["wan"], name) == pytest.approx(en, abs=0.01), (
            name
        )  # 万 is a format: the cells keep full values
    assert _named(recalc["en"], "total_cost") == pytest.approx(result.plan.total_cost, abs=0.01)
    # the live sentence recalculates to what was cached
    zh = recalc["zh"][ZH("Summary")]["A6"].value
    assert zh == openpyxl.load_workbook(books["zh"], data_only=True)[ZH("Summary")]["A6"].value
    assert CJK.search(zh)


@pytest.mark.soffice
@needs_soffice
def test_the_printed_chinese_workbook_has_every_glyph(result, books, tmp_path_factory):
    if shutil.which("pdffonts") is None or shutil.which("pdftotext") is None:
        pytest.skip("pdffonts/pdftotext (poppler-utils) are not installed")
    out, profile = tmp_path_factory.mktemp("pdf"), tmp_path_factory.mktemp("lo-profile-pdf")
    _soffice([books["zh"], books["wan"]], "pdf", out, profile)
    for name in ("zh", "wan"):
        pdf = out / f"{name}.pdf"
        fonts = subprocess.run(["pdffonts", str(pdf)], check=True, capture_output=True, text=True).stdout.splitlines()[
            2:
        ]
        assert fonts, "no fonts in the PDF"
        assert any("NotoSansCJK" in f or "NotoSerifCJK" in f for f in fonts), fonts
        for line in fonts:  # every font embedded, none a substitute without glyphs
            assert " yes " in line.split("  ", 1)[-1], line
        text = subprocess.run(
            ["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True, text=True
        ).stdout
        assert "\ufffd" not in text and "□" not in text
        for phrase in ("建议", "关键数字", "总拥有成本", "各训练任务的计划", "自建机房", "上海裸金属"):
            assert phrase in text, phrase
    wan = subprocess.run(
        ["pdftotext", "-layout", str(out / "wan.pdf"), "-"], check=True, capture_output=True, text=True
    ).stdout
    total = result.plan.total_cost / 10_000
    assert f"{total:.1f}万元" in wan, f"{total:.1f}万元"


# --- the command line --------------------------------------------------------------------------------------


SMALL = """name: small
currency: CNY
fx_rates: {USD: 7.1}
fx_rates_date: 2026-11-30
fx_rates_source: test rate for the bundled USD catalog
start_date: 2027-01-01
horizon_months: 6
workloads:
  - {name: job, model: llama-2-7b, method: lora, tokens_b: 0.2, deadline_days: 30}
"""


@pytest.mark.parametrize("command", ["solve", "analyze"])
def test_an_unknown_lang_is_bad_input(command, tmp_path):
    wl = tmp_path / "w.yaml"
    wl.write_text(SMALL)
    res = cli(command, wl, "--lang", "fr")
    assert res.exit_code == 1
    assert "--lang" in res.output and "zh-CN" in res.output
    res = cli(command, wl, "--amounts-in", "lakh")
    assert res.exit_code == 1 and "--amounts-in" in res.output and "wan" in res.output


def test_compare_refuses_an_unknown_lang(tmp_path):
    wl = tmp_path / "w.yaml"
    wl.write_text(SMALL)
    res = cli("compare", wl, wl, "--lang", "klingon")
    assert res.exit_code == 1 and "--lang" in res.output


@pytest.mark.parametrize("line,field", [("language: fr", "language"), ("amounts_in: lakh", "amounts_in")])
def test_a_bad_language_setting_in_the_workload_is_bad_input(line, field, tmp_path):
    wl = tmp_path / "w.yaml"
    wl.write_text(SMALL + line + "\n")
    res = cli("solve", wl)
    assert res.exit_code == 1
    assert "w.yaml:10" in res.output and f"{field}: got" in res.output and "allowed" in res.output


def test_solve_in_chinese_keeps_the_json_english(tmp_path):
    wl = tmp_path / "w.yaml"
    wl.write_text(SMALL + "language: zh-CN\namounts_in: wan\n")
    zh = cli(
        "solve", wl, "--json", tmp_path / "zh.json", "--csv", tmp_path / "csv", "--no-compare", "--runner-ups", "0"
    )
    assert zh.exit_code == 0, zh.output
    assert "建议" in zh.output and "万元" in zh.output
    en = cli(
        "solve",
        wl,
        "--lang",
        "en",
        "--amounts-in",
        "unit",
        "--json",
        tmp_path / "en.json",
        "--no-compare",
        "--runner-ups",
        "0",
    )
    assert en.exit_code == 0 and "Recommendation" in en.output and "建议" not in en.output

    def keys(x, at=""):
        if isinstance(x, dict):
            return {at + k for k in x} | {k2 for k, v in x.items() for k2 in keys(v, at + k + ".")}
        if isinstance(x, list):
            return set().union(*(keys(v, at) for v in x)) if x else set()
        return set()

    doc_zh, doc_en = json.loads((tmp_path / "zh.json").read_text()), json.loads((tmp_path / "en.json").read_text())
    assert keys(doc_zh) == keys(doc_en)
    assert not CJK.search(json.dumps(doc_zh, ensure_ascii=False))
    head = (tmp_path / "csv" / "plan.csv").read_text(encoding="utf-8").splitlines()[0]
    assert head.startswith('"训练任务"')


def test_the_workbook_file_may_have_a_chinese_name(tmp_path):
    wl = tmp_path / "w.yaml"
    wl.write_text(SMALL)
    out = tmp_path / "报告.xlsx"
    res = cli("solve", wl, "--lang", "zh-CN", "--out", out, "--no-compare", "--runner-ups", "0")
    assert res.exit_code == 0, res.output
    assert openpyxl.load_workbook(out).sheetnames[0] == "摘要"


def test_po_file_is_packaged():
    assert (ROOT / "reports" / "locale" / "zh_CN.po").exists()
    text = (ROOT / "pyproject.toml").read_text()
    assert '"procure.reports" = ["locale/*.po"]' in text and "babel>=" in text


def test_catalogue_reads_the_shipped_file():
    # one entry checked against the file itself, not the loader
    po = (ROOT / "reports" / "locale" / "zh_CN.po").read_text(encoding="utf-8")
    m = re.search(r'msgid "Recommendation"\nmsgstr "([^"]+)"', po)
    assert m and catalogue("zh-CN")["Recommendation"] == m.group(1)


# --- the analysis sheets, console and CSV tables -------------------------------------------------------


def test_the_analysis_in_chinese_misses_no_label(tmp_path):
    from procure.reports.analysis_console import print_analysis
    from procure.reports.xlsx.analysis import build_analysis_workbook

    from helpers import UNCERTAIN, analysis_case, analysis_run

    p, offers, hours = analysis_case(dict(UNCERTAIN, scenarios=8))
    a = analysis_run(p, offers, hours, break_even=True, sensitivity=True, monte_carlo=8)
    i18n.MISSING.clear()
    console = Console(file=io.StringIO(), width=200)
    print_analysis(console, a, tr=ZH)
    wb = build_analysis_workbook(a, ZH)
    assert wb.sheetnames == ["敏感性分析", "盈亏平衡", "不确定性", "情景"]
    for ws in wb.worksheets:
        assert CJK.search(str(ws["A1"].value)), ws.title
    # the CSV tables are the analysis' DataFrames: their header rows in Chinese
    from procure import app as use

    planned = use.check_analyze_outputs(None, None, tmp_path / "csv")
    use.write_analysis_outputs(a, planned, ZH)
    assert not i18n.MISSING, sorted(i18n.MISSING)
    for name in use.ANALYSIS_CSV:
        head = next(csv.reader(io.StringIO((tmp_path / "csv" / name).read_text(encoding="utf-8"))))
        assert all(CJK.search(h) or h in ("MFU", "GPU") for h in head), (name, head)
    assert "盈亏平衡价格" in console.file.getvalue()


def test_the_catalogue_marks_every_cost_category_the_cost_model_has():
    """cash_flow.csv's column names are marked for translation one by one; a category added to the cost
    model and not marked there would reach the CSV untranslated."""
    from procure.reports.csv_report import _CATEGORY_IDS
    from procure.solver.costs import CATEGORIES

    assert tuple(_CATEGORY_IDS) == CATEGORIES
