"""Operational emissions in the reports: the JSON's ``emissions_tco2e``, a console line and table, and the
workbook's blocks on the Summary and Costs sheets (``solver.emissions`` computes them)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from procure.solver.emissions import MEASURED, PlanEmissions, plan_emissions
from procure.solver.result import Result

from .i18n import EN, Lang


def _r(x: float | None, nd: int = 6) -> float | None:
    """Rounded for the JSON: tonnes to the gram (6 decimals), kWh to the Wh (3)."""
    return None if x is None else round(x, nd)


def of_plan(result: Result) -> PlanEmissions | None:
    return plan_emissions(result.project, result.offers, result.plan)


def of_strategies(result: Result) -> dict[str, PlanEmissions | None]:
    return {name: plan_emissions(result.project, result.offers, s.plan) for name, s in result.strategies.items()}


def emissions_json(result: Result) -> dict[str, Any]:
    """``emissions_tco2e`` and ``emissions{kwh, tco2e, kwh_without_intensity, estimated, by_offer[]}`` of the
    recommended plan, and ``emissions_tco2e`` per strategy (``strategies`` key → value)."""
    e = of_plan(result)
    doc: dict[str, Any] = {
        "emissions_tco2e": _r(e.tco2e) if e else None,
        "emissions_kwh": _r(e.kwh, 3) if e else None,
        "emissions": None,
    }
    if e is not None:
        doc["emissions"] = {
            "kwh": _r(e.kwh, 3),
            "tco2e": _r(e.tco2e),
            "kwh_without_intensity": _r(e.kwh_unrated, 3),
            "estimated": e.estimated,
            "scope": "operational (electricity); embodied emissions not counted",
            "by_offer": [
                {
                    "offer": r.offer_id,
                    "mode": r.mode,
                    "region": r.region,
                    "kwh": _r(r.kwh, 3),
                    "g_per_kwh": r.g_per_kwh,
                    "tco2e": _r(r.tco2e),
                    "energy_basis": r.basis,
                    "intensity_source": r.source,
                }
                for r in e.rows
            ],
        }
    doc["strategies"] = {n: (_r(s.tco2e) if s else None) for n, s in of_strategies(result).items()}
    doc["carbon_price"] = carbon_price_json(result)
    return doc


def carbon_priced(plan) -> tuple[float, float]:
    """(tCO2e priced, carbon cost) of a plan, read from its ledger's carbon entries (kWh × g/kWh / 10^6)."""
    entries = [e for e in plan.ledger.entries if e.kind == "carbon"]
    return sum((e.quantity or 0.0) * (e.rate or 0.0) / 1e6 for e in entries), sum(e.amount for e in entries)


def carbon_price_json(result: Result) -> dict[str, Any] | None:
    """``carbon_price{per_t, currency, change_pct_per_year, by_year[], tco2e, cost, strategies{}}``: the price per
    tonne of each project year (in its currency), the tonnes it charged and their cost in the recommended plan
    (reporting currency) and each strategy's carbon cost; None without a carbon price."""
    p = result.project
    if not p.carbon_priced:
        return None
    years = (p.horizon_months + 11) // 12
    doc: dict[str, Any] = {
        "per_t": p.carbon_price_per_t,
        "currency": p.carbon_price_currency or p.currency,
        "change_pct_per_year": p.carbon_price_change_pct_per_year,
        "by_year": [round(p.carbon_price_in_year(y), 6) for y in range(years)],
        "tco2e": None,
        "cost": None,
        "strategies": {},
    }
    if result.plan is not None:
        t, cost = carbon_priced(result.plan)
        doc["tco2e"], doc["cost"] = _r(t), round(cost, 2)
    for name, s in result.strategies.items():
        doc["strategies"][name] = round(carbon_priced(s.plan)[1], 2) if s.plan is not None else None
    return doc


def carbon_text(result: Result, tr: Lang = EN) -> str | None:
    """The console's line on the carbon price: the price, its path and what it adds to the plan."""
    p, plan = result.project, result.plan
    if not p.carbon_priced or plan is None:
        return None
    t, cost = carbon_priced(plan)
    years = (p.horizon_months + 11) // 12
    prices = " → ".join(f"{p.carbon_price_in_year(y):,.2f}" for y in range(years))
    return tr(
        "Carbon price: {prices} {cur}/tCO2e by project year; {t} tCO2e priced, {cost} {rep} of the TCO",
        prices=prices,
        cur=p.carbon_price_currency or p.currency,
        t=_fig(t),
        cost=f"{cost:,.2f}",
        rep=p.currency,
    )


def _fig(x: float) -> str:
    """A figure at a precision that shows it: 1,234; 12.3; 0.123."""
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:,.1f}" if abs(x) >= 1 else f"{x:.3f}"


def emissions_text(e: PlanEmissions, tr: Lang = EN) -> str:
    text = tr(
        "Operational emissions: {t} tCO2e from {mwh} MWh of electricity × the grid intensity of each offer's region",
        t=_fig(e.tco2e),
        mwh=_fig(e.kwh / 1000),
    )
    if e.kwh_unrated:
        text += tr(" ({mwh} MWh in regions without a figure not counted)", mwh=_fig(e.kwh_unrated / 1000))
    if e.estimated:
        text += tr("; rented and cloud servers' power estimated from their GPUs")
    return text


def print_emissions(console: Console, result: Result, tr: Lang = EN) -> None:
    """One line for the plan, then the strategies' emissions side by side."""
    e = of_plan(result)
    if e is None or not e.rows:
        return
    console.print(emissions_text(e, tr), soft_wrap=True, markup=False)
    carbon = carbon_text(result, tr)
    if carbon:
        console.print(carbon, soft_wrap=True, markup=False)
    per = {n: s for n, s in of_strategies(result).items() if s is not None}
    if len(per) <= 1:
        return
    t = Table(title=tr("Operational emissions by strategy"))
    t.add_column(tr("strategy"))
    t.add_column("tCO2e", justify="right", no_wrap=True)
    t.add_column("MWh", justify="right", no_wrap=True)
    from .headline import comparisons

    for c in comparisons(result, tr):
        s = per.get(c.name)
        if s is not None:
            t.add_row(c.label, _fig(s.tco2e), _fig(s.kwh / 1000))
    console.print(t)


# --- workbook ------------------------------------------------------------------------------------------


def write_costs_block(ws, result: Result, tr: Lang = EN) -> None:
    """Below the Costs sheet: per offer kWh × gCO2e/kWh = tCO2e, as live formulas, and their total."""
    from .xlsx.style import BOLD, SECTION_FONT, formula, header, put

    e = of_plan(result)
    if e is None or not e.rows:
        return
    row = ws.max_row + 3
    put(ws, row, 1, tr("Operational emissions (electricity × grid intensity)"), font=SECTION_FONT)
    row += 1
    header(ws, row, [tr("offer"), tr("grid region"), "kWh", "gCO2e/kWh", "tCO2e", tr("energy"), tr("source")])
    first = row + 1
    for r in e.rows:
        row += 1
        put(ws, row, 1, r.offer_id)
        put(ws, row, 2, r.region)
        put(ws, row, 3, r.kwh, "#,##0.0")  # the full value: the total and the tCO2e are computed from it
        if r.g_per_kwh is None:
            put(ws, row, 4, "—")
            put(ws, row, 5, "—")
        else:
            put(ws, row, 4, r.g_per_kwh, "#,##0")
            formula(ws, row, 5, f"=C{row}*D{row}/1000000", "#,##0.000", value=r.tco2e)
        put(ws, row, 6, tr("cost model") if r.basis == MEASURED else tr("estimated from the GPUs"))
        put(ws, row, 7, r.source)
    row += 1
    put(ws, row, 1, tr("total"), font=BOLD)
    formula(ws, row, 3, f"=SUM(C{first}:C{row - 1})", "#,##0.0", font=BOLD, value=e.kwh)
    formula(ws, row, 5, f"=SUM(E{first}:E{row - 1})", "#,##0.000", font=BOLD, value=e.tco2e)


def write_summary_block(ws, result: Result, tr: Lang = EN) -> None:
    """At the foot of the Summary: the plan's emissions, then each strategy's."""
    from .headline import comparisons
    from .xlsx.style import BOLD, SECTION_FONT, header, put

    e = of_plan(result)
    if e is None or not e.rows:
        return
    row = ws.max_row + 2
    put(ws, row, 1, tr("Operational emissions"), font=SECTION_FONT)
    row += 1
    put(ws, row, 1, emissions_text(e, tr))
    row += 1
    header(ws, row, [tr("strategy"), "tCO2e", "MWh"])
    per = of_strategies(result)
    for c in comparisons(result, tr):
        s = per.get(c.name)
        row += 1
        put(ws, row, 1, c.label, font=BOLD if c.name == "hybrid" else None)
        if s is None:
            put(ws, row, 2, "—")
            put(ws, row, 3, "—")
        else:
            put(ws, row, 2, round(s.tco2e, 3), "#,##0.000")
            put(ws, row, 3, round(s.kwh / 1000, 3), "#,##0.000")
