"""Format-neutral tables of a result: the rows that the console, the CSV files and the Excel workbook share.

Nothing here knows a file format: each function returns plain rows (dicts or lists of values, dates as
``datetime.date``, money unrounded). ``reports.csv_report`` writes them as CSV, ``reports.xlsx`` lays them
out as sheets. Every amount comes from the cost model (``solver.costs``) and the result objects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procure.solver.result import Result

import datetime as dt
import hashlib
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from procure.models import units
from procure.models.units import DAYS_PER_MONTH, DAYS_PER_YEAR, HOURS_PER_DAY
from procure.solver import costs
from procure.solver.costs import CATEGORIES
from procure.solver.enums import STRATEGIES
from procure.solver.options import cheapest_first
from procure.solver.sizing.band import hours_band

from .headline import STRATEGY_LABEL, comparisons, mode_label, status_label
from .i18n import EN, Lang

#: Text that a spreadsheet would read as a formula (or that CSV injection abuses).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


@dataclass
class LineItem:
    """One cost line of the chosen plan: ``amount`` is the cost model's figure, ``expr`` the formula
    that reproduces it from the row's cells ({D} nodes, {E} quantity, {G} unit price, {I} rate) and the
    cost-model parameters ({kwh} {pue} {busy} {idle} {dpy} {dpm} {hpd})."""

    key: str
    category: str
    item: str
    ref: str
    nodes: float | None  # None where the line has no node count (a fixed charge)
    quantity: float | None
    quantity_unit: str
    unit_price: float | None
    price_unit: str
    rate: float | None
    rate_unit: str
    amount: float
    how: str
    expr: str
    months: dict[int, float]  # fraction of ``amount`` in each project month
    links: dict[str, str] = field(default_factory=dict)  # column letter -> key of the item (or @param) it reuses


#: Cost-model parameters the Costs sheet holds as input cells: key -> (label, value, unit, number format).
def cost_parameters(project, offers=(), tr: Lang = EN) -> list[tuple[str, str, Any, str, str]]:
    rows = [
        ("kwh", tr("electricity price"), project.electricity_price_per_kwh, f"{project.currency}/kWh", "0.0000"),
        ("pue", tr("power usage effectiveness (PUE)"), project.pue, tr("facility kWh / IT kWh"), "0.00"),
        (
            "busy",
            tr("busy power fraction (training draw / max power)"),
            costs.BUSY_POWER_FRACTION,
            tr("fraction of max kW"),
            "0.00",
        ),
        (
            "idle",
            tr("idle power fraction (owned, not training)"),
            costs.IDLE_POWER_FRACTION,
            tr("fraction of max kW"),
            "0.00",
        ),
        ("dpy", tr("days per year"), DAYS_PER_YEAR, tr("days"), "0"),
        ("dpm", tr("days per month (365/12)"), DAYS_PER_MONTH, tr("days"), "0.0000"),
        ("hpd", tr("hours per day"), HOURS_PER_DAY, tr("hours"), "0"),
    ]
    # one exchange-rate cell per quoted currency other than the reporting one
    for code in sorted({o.currency for o in offers if o.currency and o.currency != project.currency}):
        rows.append(
            (
                fx_key(code),
                tr(
                    "exchange rate: 1 {code} in {cur} ({date}, {source})",
                    code=code,
                    cur=project.currency,
                    date=project.fx_rates_date,
                    source=project.fx_rates_source,
                ),
                project.fx_rates[code],
                f"{project.currency}/{code}",
                "0.0000",
            )
        )
    return rows


def fx_key(code: str) -> str:
    return f"fx_{code}"


def _fx(o, project) -> str:
    """The factor a quoted amount of ``o`` is multiplied by in a formula ('' in the reporting currency)."""
    return "" if o.currency in (None, project.currency) else f"*{{{fx_key(o.currency)}}}"


def _quoted(o, project) -> str:
    """The currency a quoted amount of ``o`` is written in."""
    return o.currency or project.currency


def _fractions(per_month: dict[int, float], fallback: dict[int, float]) -> dict[int, float]:
    """Where the cost model puts an amount, as fractions of it (``fallback`` when it is zero)."""
    tot = sum(per_month.values())
    if abs(tot) < 1e-12:
        return dict(fallback)
    return {m: v / tot for m, v in per_month.items() if v != 0.0}


def _purchase_items(result: Result, pur, tr: Lang = EN) -> list[LineItem]:
    """Capex (price, import duty, non-recoverable VAT), residual, maintenance, colocation, idle energy and
    loan interest of one purchase. Prices stand in the quoted currency; the formula converts them."""
    if pur.committed:  # owned servers: their running costs only, marked committed
        from .committed import owned_items

        return owned_items(result, pur, tr)
    p = result.project
    o = result.offers[pur.offer_id]
    cur, q = p.currency, _quoted(o, p)
    fx = _fx(o, p)
    n, n_months = pur.nodes, p.horizon_months
    flows = costs.scale(costs.purchase_flows(o, p, n), n)
    hit = costs.buy_tier(o, n)
    if hit is None:  # the planner never buys below the first tier; a plan that does is not costable
        raise ValueError(f"{o.id}: {n} node(s) bought is below the first volume tier ({o.buy_tiers[0][0]} nodes)")
    quoted_price = hit[1]
    days = costs.owned_days(o, p)
    lead = float(o.lead_time_days)
    end = costs.horizon_end_day(p)
    spread1 = costs.spread(1.0, lead, end, n_months)
    tot = {c: costs.total({c: flows.get(c, {})}) for c in CATEGORIES}
    k = f"buy:{o.id}"
    capex_at = _fractions(flows["capex"], {costs.delivery_month(o, p): 1.0})
    tier = tr(" (volume tier from {n} nodes)", n=hit[0]) if o.volume_prices else ""
    duty, vat = costs.duty_rate(o), costs.vat_cost_rate(o, p)
    parts = costs.landed_parts(o, p, n)
    price_amount = parts["price"]
    items = [
        LineItem(
            f"{k}:capex",
            "capex",
            tr("purchase price{tier}", tier=tier),
            o.id,
            n,
            None,
            "",
            quoted_price,
            tr("{cur}/node", cur=q),
            None,
            "",
            price_amount,
            tr("nodes × price per node") + (tr(" × {cur} rate", cur=q) if fx else ""),
            "{D}*{G}" + fx,
            capex_at,
        )
    ]
    if duty:
        items.append(
            LineItem(
                f"{k}:duty",
                "capex",
                tr("import duty"),
                o.id,
                n,
                None,
                "",
                quoted_price,
                tr("{cur}/node", cur=q),
                duty,
                tr("of price"),
                parts["duty"],
                tr("nodes × price × import duty %"),
                "{D}*{G}" + fx + "*{I}",
                capex_at,
                {"D": f"{k}:capex", "G": f"{k}:capex"},
            )
        )
    if vat:
        items.append(
            LineItem(
                f"{k}:vat",
                "capex",
                tr("VAT (not recoverable) on price plus duty"),
                o.id,
                n,
                1.0 + duty,
                tr("1 + import duty"),
                quoted_price,
                tr("{cur}/node", cur=q),
                vat,
                tr("VAT"),
                parts["vat"],
                tr("nodes × price × (1 + duty) × VAT %"),
                "{D}*{G}" + fx + "*{E}*{I}",
                capex_at,
                {"D": f"{k}:capex", "G": f"{k}:capex"},
            )
        )
    if o.network:
        items.append(
            LineItem(
                f"{k}:network",
                "network",
                tr("network fabric (leaf ports, optics, cables)"),
                o.id,
                n,
                None,
                "",
                o.network,
                tr("{cur}/node", cur=q),
                None,
                "",
                tot["network"],
                tr("nodes × network per node") + (tr(" × {cur} rate", cur=q) if fx else ""),
                "{D}*{G}" + fx,
                _fractions(flows["network"], {costs.delivery_month(o, p): 1.0}),
                {"D": f"{k}:capex"},
            )
        )
    items.append(
        LineItem(
            f"{k}:residual",
            "residual_value",
            tr("residual (resale) value at the horizon end"),
            o.id,
            n,
            None,
            "",
            quoted_price,
            tr("{cur}/node", cur=q),
            o.residual,
            tr("of price"),
            tot["residual_value"],
            tr("− nodes × price × residual %"),
            "-{D}*{G}" + fx + "*{I}",
            _fractions(flows["residual_value"], {n_months - 1: 1.0}),
            {"D": f"{k}:capex", "G": f"{k}:capex"},
        )
    )
    items.append(
        LineItem(
            f"{k}:maintenance",
            "maintenance",
            tr("maintenance over the owned days"),
            o.id,
            n,
            days,
            tr("owned days"),
            quoted_price,
            tr("{cur}/node", cur=q),
            o.maintenance,
            tr("of price per year"),
            tot["maintenance"],
            tr("nodes × price × maintenance %/yr × owned days / 365"),
            "{D}*{G}" + fx + "*{I}*{E}/{dpy}",
            _fractions(flows["maintenance"], spread1),
            {"D": f"{k}:capex", "G": f"{k}:capex"},
        )
    )
    items.append(
        LineItem(
            f"{k}:colocation",
            "colocation",
            tr("colocation over the owned days"),
            o.id,
            n,
            days,
            tr("owned days"),
            o.colocation,
            tr("{cur}/node-month", cur=q),
            None,
            "",
            tot["colocation"],
            tr("nodes × colocation per node-month × owned days / (365/12)"),
            "{D}*{G}" + fx + "*{E}/{dpm}",
            _fractions(flows["colocation"], spread1),
            {"D": f"{k}:capex"},
        )
    )
    items.append(
        LineItem(
            f"{k}:idle",
            "energy",
            tr("idle energy over the owned days"),
            o.id,
            n,
            days,
            tr("owned days"),
            p.electricity_price_per_kwh,
            f"{cur}/kWh",
            o.power_kw_per_node,
            tr("kW max per node"),
            tot["energy"],
            tr("nodes × kW × idle fraction × owned days × 24 h × PUE × price/kWh"),
            "{D}*{I}*{idle}*{E}*{hpd}*{pue}*{G}",
            _fractions(flows["energy"], spread1),
            {"D": f"{k}:capex", "G": "@kwh"},
        )
    )
    fin = costs.financing_of(o, p)
    if fin is not None:
        landed = costs.unit_price(o, p, n) * costs.landed_factor(o, p)
        loan = landed * (1.0 - fin.down_payment_pct)
        paid = sum(
            1
            for _m, _part, interest in costs.loan_schedule(loan, fin, costs.delivery_month(o, p), n_months)
            if interest
        )
        expr = f"-CUMIPMT({{I}}/12,{fin.months},{{D}}*{{G}},1,{{E}},0)" if paid and fin.annual_rate > 0 else "0*{D}"
        items.append(
            LineItem(
                f"{k}:interest",
                "interest",
                tr(
                    "loan interest: {months} monthly instalments, {down:.0%} down",
                    months=fin.months,
                    down=fin.down_payment_pct,
                ),
                o.id,
                n,
                float(paid),
                tr("instalments in the horizon"),
                loan,
                tr("{cur}/node financed", cur=cur),
                fin.annual_rate,
                tr("annual rate"),
                tot["interest"],
                tr("Σ interest of the annuity instalments paid within the horizon (CUMIPMT); principal is in capex"),
                expr,
                _fractions(flows["interest"], {n_months - 1: 1.0}),
                {"D": f"{k}:capex"},
            )
        )
    return items


def line_items(result: Result, tr: Lang = EN) -> list[LineItem]:
    """Every cost line of the chosen plan, each from the cost model's own functions."""
    plan, p = result.plan, result.project
    if plan is None:
        return []
    cur = p.currency
    n_months = p.horizon_months
    items: list[LineItem] = []
    kw_key: dict[str, str] = {}
    for pur in plan.purchases:
        items += _purchase_items(result, pur, tr)
        kw_key[pur.offer_id] = f"buy:{pur.offer_id}:idle"
    price_key: dict[str, str] = {}
    for i, d in enumerate(plan.decisions):
        o = result.offers[d.offer_id]
        if o.mode == "buy":
            amount = costs.busy_energy_cost(o, p, d.nodes, d.hours)
            jf = costs.job_flows(o, p, d.nodes, d.hours, d.start_day)
            end = costs.job_end_day(o, d.start_day, d.hours)
            links = {"G": "@kwh"}
            if o.id in kw_key:
                links["I"] = kw_key[o.id]
            items.append(
                LineItem(
                    f"job{i}:energy",
                    "energy",
                    tr("busy energy of {workload}", workload=d.workload),
                    o.id,
                    d.nodes,
                    d.hours,
                    tr("training hours"),
                    p.electricity_price_per_kwh,
                    f"{cur}/kWh",
                    o.power_kw_per_node,
                    tr("kW max per node"),
                    amount,
                    tr("nodes × kW × (busy − idle fraction) × hours × PUE × price/kWh"),
                    "{D}*{I}*({busy}-{idle})*{E}*{pue}*{G}",
                    _fractions(jf.get("energy", {}), costs.spread(1.0, d.start_day, end, n_months)),
                    links,
                )
            )
        elif o.mode == "cloud" and not o.committed:
            amount = costs.cloud_cost(o, p, d.nodes, d.hours)
            jf = costs.job_flows(o, p, d.nodes, d.hours, d.start_day)
            end = costs.job_end_day(o, d.start_day, d.hours)
            links = {}
            if o.id in price_key:
                links = {"G": price_key[o.id], "I": price_key[o.id]}
            else:
                price_key[o.id] = f"job{i}:cloud"
            items.append(
                LineItem(
                    f"job{i}:cloud",
                    "cloud",
                    tr("cloud bill of {workload}", workload=d.workload),
                    o.id,
                    d.nodes,
                    d.hours,
                    tr("compute hours"),
                    o.price_per_node_hour,
                    tr("{cur}/node-hour", cur=_quoted(o, p)),
                    o.hour_overhead,
                    tr("spot overhead (extra hours)"),
                    amount,
                    tr("nodes × hours × (1 + spot overhead) × price per node-hour"),
                    "{D}*{E}*(1+{I})*{G}" + _fx(o, p),
                    _fractions(jf.get("cloud", {}), costs.spread(1.0, d.start_day, end, n_months)),
                    links,
                )
            )
    items += _data_items(result, tr)
    rent_price: dict[tuple[str, int | None], str] = {}
    for j, r in enumerate(plan.rentals):
        o = result.offers[r.offer_id]
        c = r.contract
        f = costs.rental_flows(o, c, p)
        term = costs.term_of(o, c)
        if term is None:  # rental_flows already rejects such a contract; this names it for the reader
            raise ValueError(f"{o.id}: a {r.months}-month rental matches none of the offer's terms")
        k = f"rent{j}"
        first = rent_price.setdefault((o.id, r.term_months), k)
        q, fx = _quoted(o, p), _fx(o, p)
        uniform = {m: 1.0 / r.months for m in range(r.start_month, r.start_month + r.months)}
        months = tr("months {first}–{last}", first=r.start_month + 1, last=r.start_month + r.months)
        if r.phase_days:  # a contract runs whole months from its own start, not from a project month
            months = tr("{months}, from {date}", months=months, date=tr.date(day_date(p, r.start_day)))
        if r.committed:  # signed before the plan (project commitments)
            months = tr("{months}, committed", months=months)
        if o.mode == "cloud":  # a reserved term: the committed hourly rate for every hour, plus the upfront fee
            links = {} if first == k else {"G": f"{first}:rent"}
            monthly = r.nodes * r.months * costs.rental_month_cost(o, p, term)
            items.append(
                LineItem(
                    f"{k}:rent",
                    "cloud",
                    tr("reserved term of {n} months, {months}", n=o.commitment_months, months=months),
                    o.id,
                    r.nodes,
                    float(r.months),
                    tr("months"),
                    o.price_per_node_hour,
                    tr("{cur}/node-hour", cur=q),
                    None,
                    "",
                    monthly,
                    tr("nodes × months × committed price per node-hour × 730 h (owed whether used or not)"),
                    "{D}*{E}*{G}*{hpd}*{dpm}" + fx,
                    uniform,
                    links,
                )
            )
            if term.setup:
                links = {"D": f"{k}:rent"} | ({} if first == k else {"G": f"{first}:setup"})
                items.append(
                    LineItem(
                        f"{k}:setup",
                        "cloud",
                        tr("reserved term upfront, month {m}", m=r.start_month + 1),
                        o.id,
                        r.nodes,
                        None,
                        "",
                        term.setup,
                        tr("{cur}/node", cur=q),
                        None,
                        "",
                        r.nodes * costs.rental_setup_cost(o, p, term),
                        tr("nodes × upfront per node"),
                        "{D}*{G}" + fx,
                        {r.start_month: 1.0},
                        links,
                    )
                )
            continue
        links = {} if first == k else {"G": f"{first}:rent"}
        tier = tr(", {n}+ month term", n=term.months) if o.term_prices else ""
        items.append(
            LineItem(
                f"{k}:rent",
                "rent",
                tr("rent, {months}{tier}", months=months, tier=tier),
                o.id,
                r.nodes,
                float(r.months),
                tr("months"),
                term.price,
                tr("{cur}/node-month", cur=q),
                None,
                "",
                costs.total({"rent": f["rent"]}),
                tr("nodes × months × price per node-month (the term's tier)"),
                "{D}*{E}*{G}" + fx,
                _fractions(f["rent"], uniform),
                links,
            )
        )
        links = {"D": f"{k}:rent"}
        if first != k:
            links["G"] = f"{first}:setup"
        items.append(
            LineItem(
                f"{k}:setup",
                "setup",
                tr("setup fee, month {m}", m=r.start_month + 1),
                o.id,
                r.nodes,
                None,
                "",
                term.setup,
                tr("{cur}/node", cur=q),
                None,
                "",
                costs.total({"setup": f["setup"]}),
                tr("nodes × setup fee per node"),
                "{D}*{G}" + fx,
                _fractions(f["setup"], {r.start_month: 1.0}),
                links,
            )
        )
    return items + _charge_items(result, tr)


def _data_items(result: Result, tr: Lang = EN) -> list[LineItem]:
    """Storage and egress of every job (costs.storage_cost, costs.egress_cost), priced in the offer's currency."""
    plan, p = result.planned(), result.project
    items: list[LineItem] = []
    for i, d in enumerate(plan.decisions):
        o = result.offers[d.offer_id]
        data = costs.data_of(p, d.workload)
        end = costs.job_end_day(o, d.start_day, d.hours)
        q, fx = _quoted(o, p), _fx(o, p)
        jf = costs.job_flows(o, p, d.nodes, d.hours, d.start_day, data)
        if o.storage:
            items.append(
                LineItem(
                    f"job{i}:storage",
                    "storage",
                    tr("storage of {workload}: dataset + {n} checkpoint(s)", workload=d.workload, n=data.kept),
                    o.id,
                    d.nodes,
                    data.held_tb,
                    "TB",
                    o.storage,
                    tr("{cur}/TB-month", cur=q),
                    end - d.start_day,
                    tr("days on the offer"),
                    costs.total({"storage": jf["storage"]}),
                    tr("TB held × price per TB-month × days / (365/12)"),
                    "{E}*{G}" + fx + "*{I}/{dpm}",
                    _fractions(jf["storage"], costs.spread(1.0, d.start_day, end, p.horizon_months)),
                )
            )
        if o.egress:
            what = tr("final checkpoint + dataset") if data.dataset_moves_on else tr("final checkpoint")
            items.append(
                LineItem(
                    f"job{i}:egress",
                    "egress",
                    tr("egress of {workload}: {what}", workload=d.workload, what=what),
                    o.id,
                    d.nodes,
                    data.egress_tb,
                    "TB",
                    o.egress,
                    tr("{cur}/TB", cur=q),
                    None,
                    "",
                    costs.total({"egress": jf["egress"]}),
                    tr("TB moved out × price per TB"),
                    "{E}*{G}" + fx,
                    _fractions(jf["egress"], {min(costs.month_of(end), p.horizon_months - 1): 1.0}),
                )
            )
    return items


def _charge_items(result: Result, tr: Lang = EN) -> list[LineItem]:
    """The plan's fixed charges (one per offer used) and its operations staff (plan.charges)."""
    plan, p = result.planned(), result.project
    items: list[LineItem] = []
    for ch in plan.charges:
        if ch.kind == "fixed" and ch.offer_id is not None:
            o = result.offers[ch.offer_id]
            items.append(
                LineItem(
                    f"fixed:{o.id}",
                    "fixed",
                    tr("fixed charge (paid once if any node is used)"),
                    o.id,
                    None,  # one charge whatever the node count: no node count to show
                    1.0,
                    tr("charge"),
                    o.fixed,
                    tr("{cur}/charge", cur=_quoted(o, p)),
                    None,
                    "",
                    ch.cost,
                    tr("1 × fixed cost, whatever the node count"),
                    "{E}*{G}" + _fx(o, p),
                    _fractions(ch.flows["fixed"], {costs.fixed_charge_month(o, p): 1.0}),
                )
            )
        elif ch.kind == "staff" and p.staff is not None:
            modes = ", ".join(costs.staff_modes(p))
            items.append(
                LineItem(
                    "staff",
                    "staff",
                    tr(
                        "operations staff: ⌈peak nodes / {n} per FTE⌉ FTEs ({modes})",
                        n=p.staff.nodes_per_fte,
                        modes=modes,
                    ),
                    tr("project"),
                    ch.nodes,
                    float(ch.ftes),
                    "FTE",
                    p.staff.cost_per_fte_year,
                    tr("{cur}/FTE-year", cur=p.currency),
                    float(ch.months),
                    tr("months held"),
                    ch.cost,
                    tr("FTEs × cost per FTE-year × months held / 12"),
                    "{E}*{G}*{I}/12",
                    _fractions(ch.flows["staff"], {0: 1.0}),
                )
            )
    return items


def month_start(project, m: int) -> dt.date:
    """First calendar day of project month ``m`` (months are 365/12 days from start_date)."""
    return project.start_date + dt.timedelta(days=math.floor(m * DAYS_PER_MONTH + 1e-9))


def day_date(project, day: float) -> dt.date:
    """The calendar date of project day ``day``."""
    return units.day_date(project.start_date, day)


def rounded(x: float | None, nd: int = 2) -> float | None:
    """``x`` rounded for a report (None stays None)."""
    return None if x is None else round(float(x), nd)


def monthly_totals(plan, n_months: int) -> list[float]:
    out = [0.0] * n_months
    for per in plan.flows.values():
        for m, v in per.items():
            out[m] += v
    return out


cumulative = costs.running_total


def strategy_quality(s, tr: Lang = EN) -> str:
    """How sure a strategy's cost is: "" when proven optimal, else the proven gap, "heuristic" for the
    greedy plan, and the bound as "≥ cost" where only that is known."""
    info = s.solve
    if s.plan is None or info is None:
        if info is not None and info.bound is not None and s.status == "no_solution":
            return tr("no plan in time; its optimum is ≥ {bound}", bound=tr.number(info.bound))
        return ""
    if info.heuristic:
        return tr("heuristic, gap unknown") if info.gap is None else tr("heuristic, gap ≤ {gap:.1%}", gap=info.gap)
    if s.status == "optimal" or info.gap is None or info.gap <= 1e-6:
        return ""
    tco_objective = info.objective is not None and abs(info.objective - s.plan.total_cost) <= 0.01 + 1e-6 * abs(
        s.plan.total_cost
    )
    bound = (
        tr("; its optimum is ≥ {bound}", bound=tr.number(s.plan.total_cost * (1 - info.gap))) if tco_objective else ""
    )
    return tr("stopped at its time share: proven gap {gap:.1%}{bound}", gap=info.gap, bound=bound)


def strategy_note(s, tr: Lang = EN) -> str:
    if s.status == "excluded":
        return tr("excluded by you (allowed_modes)")
    if s.plan is not None:
        # a gap already shows in the status; a heuristic plan says so here
        return strategy_quality(s, tr) if s.solve is not None and s.solve.heuristic else ""
    if s.status == "no_solution":
        return tr("no plan found within the time limit")
    if not s.reasons:
        return status_label(s.status, tr)
    w, rs = next(iter(s.reasons.items()))
    return f"{w}: {tr.say(rs[0])}" if rs else w


def strategy_rows(result: Result, tr: Lang = EN) -> list[dict]:
    """The strategies side by side, compared on the minimized objective (``cost``) with the other
    beside it; differences are against the recommended (hybrid) plan; ``bound`` 'at most' where a
    comparator's solve stopped at a gap."""
    rows = []
    for c in comparisons(result, tr):
        s = result.strategies[c.name]
        rows.append(
            {
                "strategy": c.label,
                "name": c.name,
                "status": str(s.status),
                "objective": result.objective,
                "cost": c.cost,
                "other_cost": c.other,
                "total_cost": s.plan.total_cost if s.plan else None,
                "npv_cost": s.plan.npv_cost if s.plan else None,
                "vs_recommended": c.diff,
                "vs_recommended_pct": (
                    c.diff / (c.cost - c.diff)
                    if c.diff is not None and c.cost is not None and c.cost - c.diff
                    else None
                ),
                "bound": c.bound,
                "gap": c.gap,
                "modes": ", ".join(sorted(s.plan.modes())) if s.plan else "",
                "note": strategy_note(s, tr),
            }
        )
    return rows


def break_even(result: Result, tr: Lang = EN) -> tuple[int | None, str]:
    """The month from which buy-only's cumulative cash out stays at or below the best non-buy strategy's
    (as solved: the strategies' plans, not an edited workbook)."""
    st = result.strategies
    n = result.project.horizon_months
    buy = st.get("buy")
    others = [st[k] for k in ("rent", "cloud") if k in st and st[k].plan is not None]
    if buy is None:
        return None, ""
    if buy.status == "excluded":
        return None, tr("Buying is excluded by you (allowed_modes), so there is no break-even month for buying.")
    if buy.plan is None:
        return None, tr(
            "Buying alone cannot run every workload (see the strategies above), so there is no break-even month for buying."
        )
    if not others:
        if all(st[k].status == "excluded" for k in ("rent", "cloud") if k in st):
            return None, tr(
                "Renting and the cloud are excluded by you (allowed_modes), so buying has nothing to break even with."
            )
        return None, tr(
            "Neither renting nor the cloud alone can run the workloads, so buying has nothing to break even with."
        )
    best = min(others, key=lambda s: s.plan.total_cost if s.plan is not None else math.inf)  # others all have plans
    label = tr(STRATEGY_LABEL[best.name])
    cb = cumulative(monthly_totals(buy.plan, n))
    co = cumulative(monthly_totals(best.plan, n))
    tol = 0.005
    cur = result.project.currency
    if cb[-1] > co[-1] + tol:
        return None, tr(
            "No break-even: buying never becomes cheaper than {label} within the {n}-month horizon; "
            "by its end buy only has cost {amount} more.",
            label=label,
            n=n,
            amount=tr.money(cb[-1] - co[-1], cur),
        )
    m = n - 1
    while m > 0 and cb[m - 1] <= co[m - 1] + tol:
        m -= 1
    when = tr.month(month_start(result.project, m))
    tail = tr(" (only once the servers' residual value is counted at the horizon end)") if m == n - 1 and n > 1 else ""
    return m, tr(
        "Break-even: from month {m} ({when}) on, buying has cost less in total than {label}{tail}; by the horizon end it saves {amount}.",
        m=m + 1,
        when=when,
        label=label,
        tail=tail,
        amount=tr.money(co[-1] - cb[-1], cur),
    )


def _mfu_source(w, gpu, tr: Lang = EN) -> str:
    """Where a chosen shape's MFU comes from: the workload's override, or the sizing constants it is built of."""
    if w.mfu is not None:
        return tr("workload mfu")
    from procure.solver.sizing.compute import mfu_basis

    return tr("{constants} (Sizing constants below)", constants=mfu_basis(gpu, w.method, w.model.is_moe))


def _strategy_label(strategy) -> str:
    return strategy.label() if strategy is not None and hasattr(strategy, "label") else ""


def _strategy_message(strategy):
    """The parallel strategy as a sentence the workbook renders in the reader's language (None: none)."""
    return strategy.message() if strategy is not None and hasattr(strategy, "message") else None


def strategy_text(row: dict, tr: Lang) -> str:
    """A plan or option row's parallel strategy in the reader's language."""
    m = row.get("strategy_message")
    return tr.say(m) if m is not None else row.get("strategy", "")


def plan_rows(result: Result) -> list[dict]:
    p, plan = result.project, result.plan
    rows = []
    for a in plan.assignments if plan else []:
        rows.append(
            {
                "workload": a.workload,
                "offer": a.offer_id,
                "vendor": a.vendor,
                "mode": a.mode,
                "gpu": a.gpu,
                "gpus": a.gpus,
                "nodes": a.nodes,
                "strategy": _strategy_label(a.strategy),
                "strategy_message": _strategy_message(a.strategy),
                "start": day_date(p, a.start_day),
                "end": day_date(p, a.end_day),
                "deadline": day_date(p, a.deadline_day),
                "slack_days": a.slack_days,
                "start_day": a.start_day,
                "end_day": a.end_day,
                "deadline_day": a.deadline_day,
                "wall_hours": a.hours,
                "gpu_hours": a.gpu_hours,
                "cost": a.cost,
            }
        )
    return rows


def capacity_rows(result: Result, tr: Lang = EN) -> list[dict]:
    p, plan = result.project, result.plan
    rows = []
    for pur in plan.purchases if plan else []:
        o = result.offers[pur.offer_id]
        rows.append(
            {
                "what": "buy",
                "offer": o.id,
                "vendor": o.vendor,
                "nodes": pur.nodes,
                "from_day": float(o.lead_time_days),
                "to_day": costs.horizon_end_day(p),
                "from": day_date(p, o.lead_time_days),
                "months": None,
                "cost": pur.cost,
            }
        )
    for r in plan.rentals if plan else []:
        o = result.offers[r.offer_id]
        label = (
            tr("reserved {n}-month term", n=r.months)
            if o.mode == "cloud"
            else (tr("rent, {n}+ month term", n=r.term_months) if r.term_months is not None else mode_label("rent", tr))
        )
        rows.append(
            {
                "what": "rent",
                "label": label,
                "offer": o.id,
                "vendor": o.vendor,
                "nodes": r.nodes,
                "from_day": r.start_day,
                "to_day": r.end_day,
                "from": day_date(p, r.start_day),
                "months": r.months,
                "cost": r.cost,
            }
        )
    return rows


def option_rows(result: Result) -> list[dict]:
    """One row per deadline-feasible (workload, offer, nodes), with the difference to the chosen shape."""
    chosen = {a.workload: (a.offer_id, a.nodes) for a in result.plan.assignments} if result.plan else {}
    rows = []
    for w in result.project.workloads:
        opts = cheapest_first(result.every_option.get(w.name, []))
        pick = chosen.get(w.name)
        base = next((o.standalone_cost for o in opts if (o.offer_id, o.nodes) == pick), None)
        for o in opts:
            c = o.candidate
            rows.append(
                {
                    "workload": w.name,
                    "offer": o.offer_id,
                    "vendor": o.offer.vendor,
                    "mode": o.mode,
                    "gpu": o.offer.gpu,
                    "nodes": o.nodes,
                    "gpus": o.gpus,
                    "strategy": _strategy_label(c.strategy if c else None),
                    "strategy_message": _strategy_message(c.strategy if c else None),
                    "days": o.wall_days,
                    "hours": o.hours,
                    "gpu_hours": o.gpus * o.hours,
                    "efficiency": c.efficiency if c else None,
                    "standalone_cost": o.standalone_cost,
                    "vs_chosen": o.standalone_cost - base if base is not None else None,
                    "chosen": (o.offer_id, o.nodes) == pick,
                }
            )
    return rows


def explained_reason(e, tr: Lang = EN) -> str:
    """An explanation's reason in the reader's language: its sentence, or its rejection's reasons."""
    m = getattr(e, "message", None)
    if m is None:
        return e.reason
    return tr.says(m) if isinstance(m, tuple) else tr.say(m)


def explanation_row(e, currency: str = "", tr: Lang = EN) -> dict:
    """One ``solver.explain.Explanation`` as a row: the costs, the reason (in the reader's language), and
    held − chosen per cost category."""
    row = {
        "workload": e.workload,
        "offer": e.offer_id,
        "mode": e.mode,
        "chosen_offer": e.chosen_offer,
        "status": str(e.status) if e.status else "",
        "chosen_cost": e.chosen_cost,
        "held_cost": e.held_cost,
        "vs_chosen": e.extra_cost,
        "why": str(e.why),
        "reason": explained_reason(e, tr),
    }
    for c in CATEGORIES:
        row[f"diff_{c}"] = e.difference(c) if e.categories else None
    be = e.break_even
    row["break_even"] = getattr(be, "break_even", None)
    row["break_even_field"] = getattr(be, "field", None)
    row["break_even_current"] = getattr(be, "current", None)
    row["break_even_text"] = be.sentence(currency) if be is not None else ""
    return row


def runner_up_rows(result: Result, tr: Lang = EN) -> list[dict]:
    """Every runner-up as an explanation row (``explanation_row``), with its shape in the re-solved plan."""
    from procure.solver.explain import from_runner_up

    plan, base = result.plan, result.objective_cost
    if plan is None or base is None:
        return []
    chosen = {a.workload: a.offer_id for a in plan.assignments}
    rows = []
    for w, ups in result.runner_ups.items():
        for r in ups:
            row = explanation_row(from_runner_up(result, w, r, base, chosen.get(w, "")), result.project.currency, tr)
            a = r.assignment
            row.update(
                {
                    "vendor": r.option.offer.vendor,
                    "gpu": a.gpu if a else r.option.offer.gpu,
                    "nodes": a.nodes if a else None,
                    "gpus": a.gpus if a else None,
                    "shape": f"{a.gpu} × {a.gpus}" if a else "",
                    "plan_cost": r.plan_cost,
                    "note": tr.say(r.note_message) if r.note_message is not None else (r.note or ""),
                }
            )
            rows.append(row)
    return rows


def rejection_rows(result: Result, tr: Lang = EN) -> list[dict]:
    """One row per rejected (workload, offer): the reason in the reader's language (``Lang.says``)."""
    rows = []
    for r in result.rejections:
        o = result.offers.get(r.offer_id)
        rows.append(
            {
                "workload": r.workload,
                "offer": r.offer_id,
                "vendor": o.vendor if o else "",
                "mode": o.mode if o else "",
                "gpu": o.gpu if o else "",
                "reason": tr.says(r.reasons),
            }
        )
    return rows


def sha256_of(path) -> str:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    return h.hexdigest()


def _fmt_value(v: Any) -> Any:
    if isinstance(v, (tuple, list)):
        return ", ".join(str(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{k}: {x}" for k, x in v.items())
    return v


def used_offers(result: Result) -> list:
    """Offers in any strategy's plan, the recommended plan's first."""
    ids: list[str] = []
    plans = [result.plan] + [s.plan for s in result.strategies.values()]
    for plan in plans:
        if plan is None:
            continue
        for oid in (
            [a.offer_id for a in plan.assignments]
            + [x.offer_id for x in plan.purchases]
            + [r.offer_id for r in plan.rentals]
        ):
            if oid not in ids:
                ids.append(oid)
    return [result.offers[i] for i in ids]


PRICE_FIELDS = (
    "currency",
    "price_per_node",
    "volume_prices",
    "power_kw_per_node",
    "residual_value_pct",
    "maintenance_pct_per_year",
    "colocation_per_node_month",
    "financing",
    "depreciation_years",
    "import_duty_pct",
    "vat_pct",
    "price_per_node_month",
    "term_prices",
    "setup_fee_per_node",
    "min_term_months",
    "price_per_node_hour",
    "spot",
    "spot_overhead_pct",
    "commitment_months",
    "upfront_per_node",
)


def _price_text(v: Any) -> Any:
    """Tier lists and the loan as one readable cell; plain values unchanged."""
    if isinstance(v, list):
        return "; ".join(
            ":".join(f"{x:g}" if isinstance(x, (int, float)) else str(x) for x in t.model_dump().values()) for t in v
        )
    if hasattr(v, "model_dump"):
        return ", ".join(f"{k}={x:g}" if isinstance(x, (int, float)) else f"{k}={x}" for k, x in v.model_dump().items())
    return v


def pnl_rows(result: Result) -> list[list[Any]]:
    """[year, depreciation, operating, interest, disposal gain, P&L cost] per project year of the chosen plan."""
    plan = result.plan
    if plan is None:
        return []
    return [[y.year, y.depreciation, y.operating, y.interest, y.disposal_gain, y.cost] for y in plan.pnl]


#: one section of the Assumptions sheet: (title, column headers, rows)
Section = tuple[str, list[str], list[list[Any]]]


def assumption_sections(result: Result, inputs: Iterable, now: dt.datetime, tr: Lang = EN) -> list[Section]:
    """(section title, column headers, rows) — everything the figures rest on."""
    p = result.project
    offers = used_offers(result)
    return [
        _project_section(result, tr),
        _workloads_section(result, tr),
        _models_section(result, tr),
        _sizing_section(result, tr),
        *([_chosen_shapes_section(result, tr)] if result.plan else []),
        *_settings_sections(p, tr),
        _gpu_section(offers, tr),
        _prices_section(offers, tr),
        _cost_model_section(tr),
        _solver_section(result, tr),
        _run_section(inputs, now, tr),
    ]


def _project_section(result: Result, tr: Lang) -> Section:
    """The project's settings, and the reader's where they apply."""
    p = result.project
    none = tr("none")
    cap_unit = p.currency
    proj: list[list[Any]]
    proj = [
        [tr("project"), p.name, ""],
        [tr("currency"), p.currency, ""],
        [tr("start date (day 0)"), p.start_date, ""],
        [tr("horizon"), p.horizon_months, tr("months")],
        [tr("planning period"), p.period_days, tr("days")],
        [
            tr("discount rate"),
            p.discount_rate,
            tr("per year (NPV: monthly rate (1+r)^(1/12)−1, end-of-month cash flows)"),
        ],
        [
            tr("budget_tco (cap on total cost of ownership)"),
            p.budget_tco if p.budget_tco is not None else none,
            cap_unit if p.budget_tco is not None else "",
        ],
        [
            tr("budget_cash (cap on peak cumulative cash out)"),
            p.budget_cash if p.budget_cash is not None else none,
            cap_unit if p.budget_cash is not None else "",
        ],
        [
            tr("budget_capex (cap on purchases)"),
            p.budget_capex if p.budget_capex is not None else none,
            cap_unit if p.budget_capex is not None else "",
        ],
        [tr("stale quote limit"), p.stale_quote_days, tr("days before the start date")],
        [tr("electricity price"), p.electricity_price_per_kwh, f"{p.currency}/kWh"],
        [tr("PUE"), p.pue, ""],
        [tr("team region"), p.team_region or tr("not set"), ""],
        [tr("allowed modes"), ", ".join(mode_label(m, tr) for m in p.allowed_modes), ""],
        *[
            [
                tr("exchange rate {code}", code=code),
                rate,
                tr(
                    "{cur} per {code}; {date}; {source}",
                    cur=p.currency,
                    code=code,
                    date=p.fx_rates_date,
                    source=p.fx_rates_source,
                ),
            ]
            for code, rate in sorted(p.fx_rates.items())
        ],
        [
            tr("financing (project default)"),
            _price_text(p.financing) if p.financing else tr("none: purchases paid on delivery"),
            "",
        ],
        [tr("depreciation"), p.depreciation_years, tr("years, straight line (P&L sheet)")],
        [tr("VAT recoverable"), tr("yes") if p.vat_recoverable else tr("no"), tr("no: vat_pct of purchases is a cost")],
        [
            tr("schedule buffer"),
            p.min_slack_days,
            tr("days every job finishes before its deadline at least (min_slack_days; a workload may set its own)"),
        ],
        [tr("objective"), result.objective, tr("tco: total cost of ownership; npv: discounted")],
    ]
    if not tr.en:  # the reader's settings, shown where they apply
        proj += [
            [tr("language"), tr.code, ""],
            [tr("amounts shown in"), tr.unit(p.currency), tr("number formats: every cell keeps its full value")],
        ]
    return (tr("Project"), [tr("parameter"), tr("value"), tr("unit / note")], proj)


def _workloads_section(result: Result, tr: Lang) -> Section:
    """One row per workload, as the workload file gives it (a partial plan lists the set-aside jobs too)."""
    p = result.project
    wl_cols = tr.each(
        "name",
        "model",
        "method",
        "tokens (billions)",
        "sequence length",
        "LoRA rank",
        "earliest start day",
        "deadline day",
        "min slack (days)",
        "dataset TB",
        "checkpoint every h",
        "checkpoints kept",
        "MFU override",
        "allowed GPUs",
    )
    wl_rows = [
        [
            w.name,
            w.model.label,
            w.method,
            w.tokens_b,
            w.seq_len,
            w.lora_rank,
            w.earliest_start_days,
            w.deadline_days,
            p.slack_for(w),
            w.dataset_tb,
            w.checkpoint_every_hours,
            w.checkpoints_kept,
            w.mfu if w.mfu is not None else tr("default"),
            ", ".join(w.allowed_gpus or []) or tr("any"),
        ]
        for w in (result.programme or p).workloads
    ]
    return (tr("Workloads"), wl_cols, wl_rows)


def _models_section(result: Result, tr: Lang) -> Section:
    """The architecture of each model, once (of every job, set aside or planned)."""
    every = (result.programme or result.project).workloads
    model_rows = []
    seen = set()
    for w in every:
        m = w.model
        if m.label in seen:
            continue
        seen.add(m.label)
        model_rows.append(
            [
                m.label,
                m.params_b,
                m.active_params_b or m.params_b,
                m.layers,
                m.hidden_size,
                m.heads,
                m.kv_heads or m.heads,
                m.ffn_hidden_size,
                m.vocab_size,
                m.source or "",
            ]
        )
    return (
        tr("Models"),
        tr.each(
            "model",
            "params (B)",
            "active params (B)",
            "layers",
            "hidden",
            "heads",
            "KV heads",
            "FFN width",
            "vocab",
            "source",
        ),
        model_rows,
    )


def _sizing_section(result: Result, tr: Lang) -> Section:
    """Per workload: FLOPs, unsharded memory, shapes that fit and were rejected."""
    sz_rows = []
    for sz in result.sizings:
        mem = getattr(sz, "memory_gb", None)
        sz_rows.append(
            [
                sz.workload.name,
                getattr(sz, "total_flops", None),
                getattr(mem, "total", None) if mem is not None else None,
                sum(1 for c in sz.candidates if c.fits),
                sum(1 for c in sz.candidates if not c.fits),
            ]
        )
    return (
        tr("Sizing per workload"),
        tr.each(
            "workload", "training FLOPs", "memory on one GPU, unsharded (GB)", "shapes that fit", "shapes rejected"
        ),
        sz_rows,
    )


def _chosen_shapes_section(result: Result, tr: Lang) -> Section:
    """The shape each workload runs on in the plan, with its MFU and hours band."""
    from procure.models.gpu import gpu_table
    from procure.solver.sizing.goodput import goodput_of

    p = result.project
    table = gpu_table()
    run_rows = []
    sized = {d.workload: d.hours for d in result.plan.decisions} if result.plan is not None else {}
    for a in result.plan.assignments if result.plan is not None else []:
        w = next(x for x in p.workloads if x.name == a.workload)
        mfu = a.mfu if a.mfu is not None else w.mfu  # the MFU the shape was sized with
        p10, p90 = hours_band(a.hours)
        good = goodput_of(sized.get(a.workload), a.gpus, w.effective_time)
        run_rows.append(
            [
                a.workload,
                a.offer_id,
                tr.say(a.strategy.message()) if hasattr(a.strategy, "message") else _strategy_label(a.strategy),
                mfu,
                _mfu_source(w, table[a.gpu], tr),
                a.efficiency,
                good,
                a.per_gpu_memory_gb,
                a.hours,
                p10,
                p90,
            ]
        )
    return (
        tr("Sizing of the chosen shapes"),
        tr.each(
            "workload",
            "offer",
            "strategy",
            "MFU",
            "MFU from",
            "scaling efficiency",
            "goodput",
            "memory per GPU (GB)",
            "wall hours",
            "hours P10",
            "hours P90",
        ),
        run_rows,
    )


def _settings_sections(p, tr: Lang) -> list[Section]:
    """The project's sizing settings and the sizing constants, each with its meaning or source."""
    settings = (
        tr("Sizing settings (project.sizing)"),
        [tr("setting"), tr("value"), tr("meaning")],
        [
            [k, _fmt_value(getattr(p.sizing, k)), tr(f.description) if f.description else ""]
            for k, f in type(p.sizing).model_fields.items()
        ],
    )
    from procure.solver.sizing.constants import constant_rows

    # the unit says what the constant is, in the reader's language; its source is a citation, quoted as written
    const_rows = [[name, _fmt_value(value), tr(unit), source] for name, value, unit, source in constant_rows()]
    constants = (
        tr("Sizing constants (solver/sizing/constants.yaml)"),
        [tr("constant"), tr("value"), tr("unit"), tr("source")],
        const_rows,
    )
    return [settings, constants]


def _gpu_section(offers, tr: Lang) -> Section:
    """The datasheet of each GPU in the offers of the plans."""
    from procure.models.gpu import gpu_table

    table = gpu_table()
    gpu_ids = list(dict.fromkeys(o.gpu for o in offers))
    gpu_rows = []
    for gid in gpu_ids:
        g = table[gid]
        gpu_rows.append(
            [
                g.id,
                g.architecture,
                g.memory_gb,
                g.capacity_gb,
                g.memory_bandwidth_gbs,
                g.bf16_dense_tflops,
                g.gpu_link_gbs,
                g.pcie_gbs,
                g.tdp_w,
                g.source,
            ]
        )
    gpu_cols = tr.each(
        "GPU",
        "architecture",
        "memory (datasheet GiB)",
        "memory GB",
        "memory GB/s",
        "BF16 dense TFLOP/s",
        "GPU link GB/s",
        "PCIe GB/s",
        "TDP W",
        "source",
    )
    return (tr("GPU specs (GPUs of the offers in the plans)"), gpu_cols, gpu_rows)


def _prices_section(offers, tr: Lang) -> Section:
    """Every price field of every offer in a plan, with its source and date."""
    price_rows = []
    for o in offers:
        for f in PRICE_FIELDS:
            v = getattr(o, f)
            if v is not None:
                price_rows.append([o.id, o.vendor, mode_label(o.mode, tr), f, _price_text(v), o.source, o.quoted_on])
        price_rows.append(
            [o.id, o.vendor, mode_label(o.mode, tr), "lead_time_days", o.lead_time_days, o.source, o.quoted_on]
        )
    return (
        tr("Prices used (offers in any strategy's plan)"),
        tr.each("offer", "vendor", "mode", "field", "value", "source", "quoted on"),
        price_rows,
    )


def _cost_model_section(tr: Lang) -> Section:
    """The constants of the cost model (solver/costs.py) and its timing rules."""
    return (
        tr("Cost model"),
        [tr("parameter"), tr("value"), tr("note")],
        [
            [tr("busy power fraction"), costs.BUSY_POWER_FRACTION, tr("average training draw / max node power")],
            [
                tr("idle power fraction"),
                costs.IDLE_POWER_FRACTION,
                tr("draw of an owned node that is not training / max power"),
            ],
            [tr("days per month"), DAYS_PER_MONTH, tr("365/12; month m covers days [m·365/12, (m+1)·365/12)")],
            [tr("hours per month"), DAYS_PER_MONTH * HOURS_PER_DAY, "730"],
            [
                tr("purchase timing"),
                "",
                tr("ordered day 0, paid and delivered after the lead time, owned to the horizon end"),
            ],
            [tr("rental timing"), "", tr("whole project months; setup fee in the first month")],
        ],
    )


def _solver_section(result: Result, tr: Lang) -> Section:
    """Per strategy: the solver, its status, gap, time and model size."""
    solver_rows = []
    for name in STRATEGIES:
        s = result.strategies.get(name)
        if s is None:
            continue
        i = s.solve
        solver_rows.append(
            [
                tr(STRATEGY_LABEL[name]),
                i.name if i else "",
                i.version if i else "",
                status_label(i.status if i else s.status, tr),
                i.gap if i and i.gap is not None else "",
                round(i.seconds, 2) if i else "",
                getattr(i, "variables", "") if i else "",
                getattr(i, "constraints", "") if i else "",
            ]
        )
    return (
        tr("Solver"),
        tr.each("strategy", "solver", "version", "status", "gap", "seconds", "variables", "constraints"),
        solver_rows,
    )


def _run_section(inputs: Iterable, now: dt.datetime, tr: Lang) -> Section:
    """This run: the version, the time, and the SHA-256 of every input file."""
    from procure import __version__

    run = [
        [tr("procure version"), __version__, ""],
        [tr("run at"), now.replace(microsecond=0).isoformat(), tr("local time")],
    ]
    for path in inputs:
        run.append([tr("input {name}", name=Path(path).name), sha256_of(path), "SHA-256"])
    return (tr("This run"), [tr("item"), tr("value"), tr("note")], run)
