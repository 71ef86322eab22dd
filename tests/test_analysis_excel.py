"""The analysis sheets, recalculated in LibreOffice: their formulas (PERCENTILE, COUNTIF, COUNTIFS,
differences) agree with the analysis computed in Python (numpy), and nothing evaluates to an error."""

from __future__ import annotations

import shutil
import zipfile

import openpyxl
import pytest
from typer.testing import CliRunner

from procure.cli import app
from procure.reports.xlsx.analysis import build_analysis_workbook
from procure.solver.enums import STRATEGIES

from helpers import CATALOG, UNCERTAIN, WORKLOAD, analysis_case as case, analysis_run as run, recalculated

SOFFICE = shutil.which("soffice")

pytestmark = [
    pytest.mark.soffice,
    pytest.mark.xdist_group("analysis_excel"),  # the module fixture is built once, on one worker
    pytest.mark.skipif(
        SOFFICE is None, reason="LibreOffice (soffice) is not installed: cannot recalculate the workbook's formulas"
    ),
]


def recalc(path, tmp_path_factory):
    """LibreOffice opens the workbook, computes every formula and saves it again."""
    return recalculated(path, tmp_path_factory.mktemp("recalc"))


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    p, offers, hours = case({**UNCERTAIN, "sensitivity": {"price_cloud": {"low": 0.8, "high": 1.2}}})
    a = run(p, offers, hours, monte_carlo=25, sensitivity=True, break_even=True)
    path = tmp_path_factory.mktemp("analysis") / "analysis.xlsx"
    build_analysis_workbook(a).save(path)  # no cached results: LibreOffice must compute every formula itself
    return a, openpyxl.load_workbook(recalc(path, tmp_path_factory), data_only=True)


def rows_of(ws, first: int):
    r = first
    while ws.cell(r, 1).value not in (None, ""):
        yield r
        r += 1


def test_sheets_and_no_errors(analysed):
    _a, wb = analysed
    assert wb.sheetnames == ["Sensitivity", "Break-even", "Uncertainty", "Scenarios"]
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                assert not (isinstance(c.value, str) and c.value.startswith(("#", "Err:"))), (
                    f"{ws.title}!{c.coordinate} = {c.value}"
                )


def test_uncertainty_formulas_agree_with_the_analysis(analysed):
    a, wb = analysed
    ws = wb["Uncertainty"]
    s = a.summary
    for i, name in enumerate(STRATEGIES):
        r = 5 + i
        v = s.strategies[name]
        for k, q in enumerate(("p10", "p50", "p90")):
            assert ws.cell(r, 2 + k).value == pytest.approx(v[q], rel=1e-9), (name, q)
        if name == "hybrid":  # a tie counts for the single mode: the note under the table gives the mixing share
            assert ws.cell(r, 5).value == "—"
        else:
            assert ws.cell(r, 5).value == pytest.approx(v["win_probability"]), name
        assert ws.cell(r, 6).value == v["plans"]
    mean_row = next(r for r in range(1, 100) if ws.cell(r, 1).value == "mean")
    assert ws.cell(mean_row, 2).value == pytest.approx(s.regret_mean, abs=1e-6)
    assert ws.cell(mean_row + 1, 2).value == pytest.approx(s.regret_p90, abs=1e-6)
    # every histogram counts every scenario with a plan exactly once
    top = next(r for r in range(1, 100) if ws.cell(r, 1).value == "histogram data") + 1
    for k, name in enumerate(STRATEGIES):
        col = 3 + 4 * k
        counts = [ws.cell(top + 2 + b, col).value for b in range(12)]
        if s.strategies[name]["plans"]:
            assert sum(counts) == s.strategies[name]["plans"], name


def test_sensitivity_and_break_even_formulas(analysed):
    a, wb = analysed
    ws = wb["Sensitivity"]
    base = ws["E4"].value
    assert base == pytest.approx(43_200)
    for r in rows_of(ws, 7):
        lo, hi = ws.cell(r, 5).value, ws.cell(r, 6).value
        assert ws.cell(r, 7).value == pytest.approx(lo - base)
        assert ws.cell(r, 9).value == pytest.approx(abs(hi - lo))
    cloud = next(r for r in rows_of(ws, 7) if ws.cell(r, 1).value == "price_cloud")
    # the tornado re-costs today's plan (the cloud at 43,200): at ×1.2 it costs 51,840 and still runs as decided;
    # re-optimized there, buying b wins at 100,000 × (1 − 0.5) = 50,000: the decision changes at the high end
    # (column M) and stands at the low one (34,560 on the cloud, column L); the optimum columns J and K
    assert ws.cell(cloud, 8).value == pytest.approx(51_840 - 43_200)
    assert ws.cell(cloud, 10).value == pytest.approx(34_560) and ws.cell(cloud, 11).value == pytest.approx(50_000)
    assert ws.cell(cloud, 12).value == "stands" and ws.cell(cloud, 13).value == "changes: buy"
    be = wb["Break-even"]
    b_row = next(r for r in rows_of(be, 5) if be.cell(r, 1).value == "b")
    assert be.cell(b_row, 7).value == pytest.approx(86_400, abs=0.01)
    assert be.cell(b_row, 8).value == pytest.approx(86_400 / 100_000 - 1, abs=1e-6)


def test_solve_analyze_adds_the_sheets_to_the_approval_workbook(tmp_path):
    (tmp_path / "o.yaml").write_text(CATALOG.format(price=30.0))
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(catalog="o.yaml"))
    out = tmp_path / "report.xlsx"
    res = CliRunner().invoke(app, ["solve", str(tmp_path / "w.yaml"), "--out", str(out), "--analyze", "--workers", "1"])
    assert res.exit_code == 0, res.output
    wb = openpyxl.load_workbook(out)
    assert wb.sheetnames[:7] == ["Summary", "Plan", "Costs", "Cash flow", "P&L", "Options", "Assumptions"]
    assert wb.sheetnames[7:] == ["Sensitivity", "Break-even"]  # no analysis.uncertainty: no Monte Carlo sheets
    with zipfile.ZipFile(out) as z:  # openpyxl does not read charts back: look at the chart parts themselves
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    assert any('<barDir val="bar"' in c for c in charts)  # the tornado: horizontal bars
    assert "Sensitivity: today's plan's TCO with one driver moved" in " ".join(res.output.split())
