"""Operational emissions: a plan's energy (kWh) × the grid intensity of each offer's region, worked by hand."""

from __future__ import annotations

import json

import pytest

from procure.models.grid import grid_table, intensity_of
from procure.reports.emissions_report import emissions_json
from procure.solver.emissions import plan_emissions

from helpers import ROOT, cli, offer, project, solve_fixed, workload


def _one_job(o, hours=100.0, nodes=1, **kw):
    p = project([workload(name="a", deadline_days=60)], pue=1.25, electricity_price_per_kwh=0.10, **kw)
    res = solve_fixed(p, [o], {("a", o.id, nodes): hours}, compare=False)
    assert res.plan is not None
    return res


def test_bought_servers_emit_their_cost_model_energy_times_the_grid():
    res = _one_job(offer(id="b", mode="buy", power_kw_per_node=10.2, region="us-east"))
    e = plan_emissions(res.project, res.offers, res.plan)
    # idle: 10.2 kW × 0.15 × 8,760 h (12 months owned) × PUE 1.25 = 16,753.5 kWh
    # the job above idle: 10.2 kW × (0.75 − 0.15) × 100 h × 1.25 = 765 kWh
    assert e.kwh == pytest.approx(16_753.5 + 765)
    # the same energy the cost model priced: energy cost / 0.10 per kWh
    assert res.plan.breakdown["energy"] / 0.10 == pytest.approx(e.kwh)
    # United States, Ember 2023: 369 g/kWh → 17,518.5 × 369 / 10^6 t
    assert e.tco2e == pytest.approx(17_518.5 * 369 / 1e6) and not e.estimated
    doc = emissions_json(res)
    assert doc["emissions_tco2e"] == pytest.approx(6.464_326_5, abs=1e-6) and doc["emissions_kwh"] == 17_518.5


def test_cloud_hours_emit_at_the_estimated_power():
    res = _one_job(offer(id="c", region="eu-north"), hours=50.0, nodes=2)
    e = plan_emissions(res.project, res.offers, res.plan)
    # 8 × H100 at 700 W ÷ (5.6 / 10.2) = 10.2 kW; 2 nodes × 10.2 × 0.75 × 50 h × 1.25 = 956.25 kWh
    assert e.kwh == pytest.approx(956.25) and e.estimated
    # eu-north: mean of Sweden 41, Norway 30, Finland 79, Iceland 28 = 44.5 → 45 g/kWh
    assert e.tco2e == pytest.approx(956.25 * 45 / 1e6)


def test_a_region_without_a_figure_reports_its_energy_not_a_guess():
    res = _one_job(offer(id="h", region="ap-hk"), hours=10.0)
    e = plan_emissions(res.project, res.offers, res.plan)
    assert e.tco2e == 0 and e.kwh_unrated == pytest.approx(e.kwh) and e.kwh > 0
    assert intensity_of("ap-hk") is None and intensity_of("us-west").g_per_kwh == 369


def test_every_intensity_has_a_source_and_year_and_the_region_means_add_up():
    table = grid_table()
    assert all(r.source and 2015 <= r.year <= 2030 for r in table.values())
    assert table["eu-west"].g_per_kwh == round((282 + 238 + 56 + 268) / 4)
    assert table["eu-central"].g_per_kwh == round((381 + 46 + 662) / 3)


def test_json_console_and_workbook_show_the_emissions(tmp_path):
    js, book = tmp_path / "plan.json", tmp_path / "plan.xlsx"
    res = cli(
        "solve", ROOT / "examples" / "qlora-7b-week.yaml", "--json", js, "--out", book, "--quiet", "--runner-ups", "0"
    )
    assert res.exit_code == 0, res.output
    assert "Operational emissions:" in res.output and "Operational emissions by" in res.output
    doc = json.loads(js.read_text())
    by_offer = doc["emissions"]["by_offer"]
    assert doc["emissions_tco2e"] == pytest.approx(sum(r["tco2e"] or 0 for r in by_offer), abs=1e-3)
    for r in by_offer:
        if r["g_per_kwh"] is not None:
            assert r["tco2e"] == pytest.approx(r["kwh"] * r["g_per_kwh"] / 1e6, abs=1e-3)
    assert doc["strategies"]["hybrid"]["emissions_tco2e"] == doc["emissions_tco2e"]
    import openpyxl

    wb = openpyxl.load_workbook(book)
    summary = [c.value for row in wb["Summary"].iter_rows() for c in row if isinstance(c.value, str)]
    costs = [c.value for row in wb["Costs"].iter_rows() for c in row if isinstance(c.value, str)]
    assert "Operational emissions" in summary and any(str(v).startswith("=C") for v in costs)
