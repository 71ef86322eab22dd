"""The Excel workbook for the approval meeting: a live model of the chosen plan, not a picture of it.

Sheets
    Summary      the recommendation, key figures, the four strategies side by side, TCO and
                 cumulative-cash-out charts with the break-even month of buying.
    Plan         per workload: where, how, when (real dates) and at what cost; a month-by-month
                 timeline of the jobs and of the capacity bought or rented.
    Costs        every line item of the chosen plan as quantity × unit price FORMULAS; unit prices and
                 quantities are input cells; category subtotals and the grand total are SUMs.
    Cash flow    months as columns; each line item's monthly share = its Costs total × the fraction
                 the cost model places in that month; category, total and cumulative rows; NPV.
    Options      every deadline-feasible shape of every workload with its stand-alone cost, and every
                 rejected (workload, offer) with the reason.
    Assumptions  inputs, sizing parameters, GPU specs, prices with source and date, the cost-model
                 constants, the solver, the tool version, the run time and a SHA-256 of each input file.

Every number comes from the cost model (``solver.costs``) and the result objects: the line items'
quantities are the cost model's (owned days, wall hours, contract months), so the formulas reproduce
``plan.breakdown`` / ``plan.total_cost`` / ``plan.npv_cost`` to the cent, and stay live when a
price is edited. Text from inputs is always written as text, never as a formula. The file is built
in memory and replaces the target atomically.

The table builders (``line_items``, ``strategy_rows``, ``plan_rows``, …) are shared with the CSV report.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any, Iterable

from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.chart import BarChart, LineChart, Reference, Series
from openpyxl.chart.label import DataLabelList
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.pagebreak import Break
from openpyxl.worksheet.worksheet import Worksheet

from procure.models.fileio import atomic_write
from procure.models.units import DAYS_PER_MONTH, DAYS_PER_YEAR, HOURS_PER_DAY
from procure.solver import costs
from procure.solver.costs import CATEGORIES, RentalContract

from .console import CATEGORY_LABEL, STRATEGY_LABEL, recommendation

# --- styles ----------------------------------------------------------------------------------------

INPUT_FONT = Font(color="0000FF")
INPUT_FILL = PatternFill("solid", fgColor="FFF2CC")
HEADER_FONT = Font(bold=True, color="FFFFFF")
HEADER_FILL = PatternFill("solid", fgColor="1F4E78")
SECTION_FONT = Font(bold=True, size=12, color="1F4E78")
TITLE_FONT = Font(bold=True, size=14)
BOLD = Font(bold=True)
NOTE_FONT = Font(italic=True, color="595959")
TOTAL_FILL = PatternFill("solid", fgColor="DDEBF7")
CHOSEN_FILL = PatternFill("solid", fgColor="E2EFDA")
BAD_FONT = Font(color="C00000")
MODE_FILL = {
    "buy": PatternFill("solid", fgColor="F4B183"),
    "rent": PatternFill("solid", fgColor="9DC3E6"),
    "cloud": PatternFill("solid", fgColor="A9D18E"),
}
CAPACITY_FILL = {"buy": PatternFill("solid", fgColor="FBE5D6"), "rent": PatternFill("solid", fgColor="DEEBF7")}
THIN = Side(style="thin", color="BFBFBF")
TOP_RULE = Border(top=Side(style="thin", color="000000"))
WRAP = Alignment(wrap_text=True, vertical="top")
CENTER = Alignment(horizontal="center", vertical="center")

DATE_FMT = "yyyy-mm-dd"
MONTH_FMT = "d mmm yy"
INT_FMT = "#,##0"
NUM_FMT = "#,##0.0"
CENTS_FMT = "#,##0.00"
PCT_FMT = "0.0%"

#: Text that a spreadsheet would read as a formula (or that CSV injection abuses).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

SHEETS = ("Summary", "Plan", "Costs", "Cash flow", "Options", "Assumptions")


def money_fmt(currency: str, cents: bool = False) -> str:
    body = "#,##0.00" if cents else "#,##0"
    return f'{body} "{currency}"_);-{body} "{currency}"_);0 "{currency}"_)'


# --- shared tables (also written as CSV) ------------------------------------------------------------


@dataclass
class LineItem:
    """One cost line of the chosen plan: ``amount`` is the cost model's figure, ``expr`` the formula
    that reproduces it from the row's cells ({D} nodes, {E} quantity, {G} unit price, {I} rate) and the
    cost-model parameters ({kwh} {pue} {busy} {idle} {dpy} {dpm} {hpd})."""

    key: str
    category: str
    item: str
    ref: str
    nodes: float
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
def cost_parameters(project) -> list[tuple[str, str, Any, str, str]]:
    return [
        ("kwh", "electricity price", project.electricity_price_per_kwh, f"{project.currency}/kWh", "0.0000"),
        ("pue", "power usage effectiveness (PUE)", project.pue, "facility kWh / IT kWh", "0.00"),
        ("busy", "busy power fraction (training draw / max power)", costs.BUSY_POWER_FRACTION, "fraction of max kW", "0.00"),
        ("idle", "idle power fraction (owned, not training)", costs.IDLE_POWER_FRACTION, "fraction of max kW", "0.00"),
        ("dpy", "days per year", DAYS_PER_YEAR, "days", "0"),
        ("dpm", "days per month (365/12)", DAYS_PER_MONTH, "days", "0.0000"),
        ("hpd", "hours per day", HOURS_PER_DAY, "hours", "0"),
    ]


def _fractions(per_month: dict[int, float], fallback: dict[int, float]) -> dict[int, float]:
    """Where the cost model puts an amount, as fractions of it (``fallback`` when it is zero)."""
    tot = sum(per_month.values())
    if abs(tot) < 1e-12:
        return dict(fallback)
    return {m: v / tot for m, v in per_month.items() if v != 0.0}


def line_items(result) -> list[LineItem]:
    """Every cost line of the chosen plan, each from the cost model's own functions."""
    plan, p = result.plan, result.project
    if plan is None:
        return []
    cur = p.currency
    n_months = p.horizon_months
    items: list[LineItem] = []
    kw_key: dict[str, str] = {}
    for pur in plan.purchases:
        o = result.offers[pur.offer_id]
        n = pur.nodes
        one = costs.purchase_flows(o, p)
        flows = costs.scale(one, n)
        days = costs.owned_days(o, p)
        lead = float(o.lead_time_days)
        end = costs.horizon_end_day(p)
        spread1 = costs.spread(1.0, lead, end, n_months)
        tot = {c: costs.total({c: flows.get(c, {})}) for c in CATEGORIES}
        k = f"buy:{o.id}"
        items.append(LineItem(
            f"{k}:capex", "capex", "purchase price", o.id, n, None, "", o.price_per_node, f"{cur}/node", None, "",
            tot["capex"], "nodes × price per node", "{D}*{G}", _fractions(flows["capex"], {min(costs.month_of(lead), n_months - 1): 1.0}),
        ))
        items.append(LineItem(
            f"{k}:residual", "residual_value", "residual (resale) value at the horizon end", o.id, n, None, "", o.price_per_node, f"{cur}/node",
            o.residual, "of price", tot["residual_value"], "− nodes × price × residual %", "-{D}*{G}*{I}",
            _fractions(flows["residual_value"], {n_months - 1: 1.0}), {"D": f"{k}:capex", "G": f"{k}:capex"},
        ))
        items.append(LineItem(
            f"{k}:maintenance", "maintenance", "maintenance over the owned days", o.id, n, days, "owned days", o.price_per_node, f"{cur}/node",
            o.maintenance, "of price per year", tot["maintenance"], "nodes × price × maintenance %/yr × owned days / 365",
            "{D}*{G}*{I}*{E}/{dpy}", _fractions(flows["maintenance"], spread1), {"D": f"{k}:capex", "G": f"{k}:capex"},
        ))
        items.append(LineItem(
            f"{k}:colocation", "colocation", "colocation over the owned days", o.id, n, days, "owned days", o.colocation, f"{cur}/node-month",
            None, "", tot["colocation"], "nodes × colocation per node-month × owned days / (365/12)", "{D}*{G}*{E}/{dpm}",
            _fractions(flows["colocation"], spread1), {"D": f"{k}:capex"},
        ))
        items.append(LineItem(
            f"{k}:idle", "energy", "idle energy over the owned days", o.id, n, days, "owned days", p.electricity_price_per_kwh, f"{cur}/kWh",
            o.power_kw_per_node, "kW max per node", tot["energy"], "nodes × kW × idle fraction × owned days × 24 h × PUE × price/kWh",
            "{D}*{I}*{idle}*{E}*{hpd}*{pue}*{G}", _fractions(flows["energy"], spread1), {"D": f"{k}:capex", "G": "@kwh"},
        ))
        kw_key[o.id] = f"{k}:idle"
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
            items.append(LineItem(
                f"job{i}:energy", "energy", f"busy energy of {d.workload}", o.id, d.nodes, d.hours, "training hours", p.electricity_price_per_kwh,
                f"{cur}/kWh", o.power_kw_per_node, "kW max per node", amount,
                "nodes × kW × (busy − idle fraction) × hours × PUE × price/kWh", "{D}*{I}*({busy}-{idle})*{E}*{pue}*{G}",
                _fractions(jf.get("energy", {}), costs.spread(1.0, d.start_day, end, n_months)), links,
            ))
        elif o.mode == "cloud":
            amount = costs.cloud_cost(o, p, d.nodes, d.hours)
            jf = costs.job_flows(o, p, d.nodes, d.hours, d.start_day)
            end = costs.job_end_day(o, d.start_day, d.hours)
            links = {}
            if o.id in price_key:
                links = {"G": price_key[o.id], "I": price_key[o.id]}
            else:
                price_key[o.id] = f"job{i}:cloud"
            items.append(LineItem(
                f"job{i}:cloud", "cloud", f"cloud bill of {d.workload}", o.id, d.nodes, d.hours, "compute hours", o.price_per_node_hour,
                f"{cur}/node-hour", o.hour_overhead, "spot overhead (extra hours)", amount,
                "nodes × hours × (1 + spot overhead) × price per node-hour", "{D}*{E}*(1+{I})*{G}",
                _fractions(jf.get("cloud", {}), costs.spread(1.0, d.start_day, end, n_months)), links,
            ))
    rent_price: dict[str, str] = {}
    for j, r in enumerate(plan.rentals):
        o = result.offers[r.offer_id]
        f = costs.rental_flows(o, RentalContract(o.id, r.nodes, r.start_month, r.months, r.term_months), p)
        k = f"rent{j}"
        first = rent_price.setdefault(o.id, k)
        links = {} if first == k else {"G": f"{first}:rent"}
        items.append(LineItem(
            f"{k}:rent", "rent", f"rent, months {r.start_month + 1}–{r.start_month + r.months}", o.id, r.nodes, float(r.months), "months",
            o.price_per_node_month, f"{cur}/node-month", None, "", costs.total({"rent": f["rent"]}), "nodes × months × price per node-month",
            "{D}*{E}*{G}", _fractions(f["rent"], {m: 1.0 / r.months for m in range(r.start_month, r.start_month + r.months)}), links,
        ))
        links = {"D": f"{k}:rent"}
        if first != k:
            links["G"] = f"{first}:setup"
        items.append(LineItem(
            f"{k}:setup", "setup", f"setup fee, month {r.start_month + 1}", o.id, r.nodes, None, "", o.setup_fee, f"{cur}/node", None, "",
            costs.total({"setup": f["setup"]}), "nodes × setup fee per node", "{D}*{G}", _fractions(f["setup"], {r.start_month: 1.0}), links,
        ))
    return items


def month_start(project, m: int) -> dt.date:
    """First calendar day of project month ``m`` (months are 365/12 days from start_date)."""
    return project.start_date + dt.timedelta(days=math.floor(m * DAYS_PER_MONTH + 1e-9))


def day_date(project, day: float) -> dt.date:
    return project.start_date + dt.timedelta(days=math.floor(day + 1e-9))


def monthly_totals(plan, n_months: int) -> list[float]:
    out = [0.0] * n_months
    for per in plan.flows.values():
        for m, v in per.items():
            out[m] += v
    return out


def cumulative(values: Iterable[float]) -> list[float]:
    out, acc = [], 0.0
    for v in values:
        acc += v
        out.append(acc)
    return out


def strategy_note(s) -> str:
    if s.plan is not None:
        return ""
    if s.status == "no_solution":
        return "no plan found within the time limit"
    if not s.reasons:
        return s.status
    w, rs = next(iter(s.reasons.items()))
    return f"{w}: {rs[0]}" if rs else w


def strategy_rows(result) -> list[dict]:
    """The strategies side by side; differences are against the recommended (hybrid) plan."""
    base = result.plan.total_cost if result.plan else None
    rows = []
    for name in ("hybrid", "buy", "rent", "cloud"):
        s = result.strategies.get(name)
        if s is None:
            continue
        tco = s.plan.total_cost if s.plan else None
        diff = tco - base if tco is not None and base is not None else None
        rows.append({
            "strategy": STRATEGY_LABEL[name], "name": name, "status": s.status, "total_cost": tco,
            "npv_cost": s.plan.npv_cost if s.plan else None, "vs_recommended": diff,
            "vs_recommended_pct": diff / base if diff is not None and base else None,
            "modes": ", ".join(sorted(s.plan.modes())) if s.plan else "", "note": strategy_note(s),
        })
    return rows


def break_even(result) -> tuple[int | None, str]:
    """The month from which buy-only's cumulative cash out stays at or below the best non-buy strategy's."""
    st = result.strategies
    n = result.project.horizon_months
    buy = st.get("buy")
    others = [st[k] for k in ("rent", "cloud") if k in st and st[k].plan is not None]
    if buy is None:
        return None, ""
    if buy.plan is None:
        return None, "Buying alone cannot run every workload (see the strategies above), so there is no break-even month for buying."
    if not others:
        return None, "Neither renting nor the cloud alone can run the workloads, so buying has nothing to break even with."
    best = min(others, key=lambda s: s.plan.total_cost)
    label = STRATEGY_LABEL[best.name]
    cb = cumulative(monthly_totals(buy.plan, n))
    co = cumulative(monthly_totals(best.plan, n))
    tol = 0.005
    cur = result.project.currency
    if cb[-1] > co[-1] + tol:
        return None, (f"No break-even: buying never becomes cheaper than {label} within the {n}-month horizon; "
                      f"by its end buy only has cost {cb[-1] - co[-1]:,.0f} {cur} more.")
    m = n - 1
    while m > 0 and cb[m - 1] <= co[m - 1] + tol:
        m -= 1
    when = month_start(result.project, m).strftime("%b %Y")
    tail = " (only once the servers' residual value is counted at the horizon end)" if m == n - 1 and n > 1 else ""
    return m, (f"Break-even: from month {m + 1} ({when}) on, buying has cost less in total than {label}{tail}; "
               f"by the horizon end it saves {co[-1] - cb[-1]:,.0f} {cur}.")


def _strategy_label(strategy) -> str:
    return strategy.label() if strategy is not None and hasattr(strategy, "label") else ""


def plan_rows(result) -> list[dict]:
    p, plan = result.project, result.plan
    rows = []
    for a in plan.assignments if plan else []:
        rows.append({
            "workload": a.workload, "offer": a.offer_id, "vendor": a.vendor, "mode": a.mode, "gpu": a.gpu, "gpus": a.gpus, "nodes": a.nodes,
            "strategy": _strategy_label(a.strategy), "start": day_date(p, a.start_day), "end": day_date(p, a.end_day),
            "deadline": day_date(p, a.deadline_day), "slack_days": a.slack_days, "start_day": a.start_day, "end_day": a.end_day,
            "deadline_day": a.deadline_day, "wall_hours": a.hours, "gpu_hours": a.gpu_hours, "cost": a.cost,
        })
    return rows


def capacity_rows(result) -> list[dict]:
    p, plan = result.project, result.plan
    rows = []
    for pur in plan.purchases if plan else []:
        o = result.offers[pur.offer_id]
        rows.append({"what": "buy", "offer": o.id, "vendor": o.vendor, "nodes": pur.nodes, "from_day": float(o.lead_time_days),
                     "to_day": costs.horizon_end_day(p), "from": day_date(p, o.lead_time_days), "months": None, "cost": pur.cost})
    for r in plan.rentals if plan else []:
        o = result.offers[r.offer_id]
        rows.append({"what": "rent", "offer": o.id, "vendor": o.vendor, "nodes": r.nodes, "from_day": r.start_day,
                     "to_day": (r.start_month + r.months) * DAYS_PER_MONTH, "from": month_start(p, r.start_month), "months": r.months, "cost": r.cost})
    return rows


def option_rows(result) -> list[dict]:
    """One row per deadline-feasible (workload, offer, nodes), with the difference to the chosen shape."""
    chosen = {a.workload: (a.offer_id, a.nodes) for a in result.plan.assignments} if result.plan else {}
    rows = []
    for w in result.project.workloads:
        opts = result.every_option.get(w.name, [])
        pick = chosen.get(w.name)
        base = next((o.standalone_cost for o in opts if (o.offer_id, o.nodes) == pick), None)
        for o in opts:
            c = o.candidate
            rows.append({
                "workload": w.name, "offer": o.offer_id, "vendor": o.offer.vendor, "mode": o.mode, "gpu": o.offer.gpu, "nodes": o.nodes,
                "gpus": o.gpus, "strategy": _strategy_label(getattr(c, "strategy", None)), "days": o.wall_days, "hours": o.hours,
                "gpu_hours": o.gpus * o.hours, "efficiency": getattr(c, "efficiency", None), "standalone_cost": o.standalone_cost,
                "vs_chosen": o.standalone_cost - base if base is not None else None, "chosen": (o.offer_id, o.nodes) == pick,
            })
    return rows


def rejection_rows(result) -> list[dict]:
    rows = []
    for r in result.rejections:
        o = result.offers.get(r.offer_id)
        rows.append({"workload": r.workload, "offer": r.offer_id, "vendor": o.vendor if o else "", "mode": o.mode if o else "",
                     "gpu": o.gpu if o else "", "reason": r.reason})
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


def used_offers(result) -> list:
    """Offers in any strategy's plan, the recommended plan's first."""
    ids: list[str] = []
    plans = [result.plan] + [s.plan for s in result.strategies.values()]
    for plan in plans:
        if plan is None:
            continue
        for oid in [a.offer_id for a in plan.assignments] + [x.offer_id for x in plan.purchases] + [r.offer_id for r in plan.rentals]:
            if oid not in ids:
                ids.append(oid)
    return [result.offers[i] for i in ids]


PRICE_FIELDS = ("price_per_node", "power_kw_per_node", "residual_value_pct", "maintenance_pct_per_year", "colocation_per_node_month",
                "price_per_node_month", "setup_fee_per_node", "min_term_months", "price_per_node_hour", "spot", "spot_overhead_pct")


def assumption_sections(result, inputs: Iterable, now: dt.datetime) -> list[tuple[str, list[str], list[list[Any]]]]:
    """(section title, column headers, rows) — everything the figures rest on."""
    from procure.models.gpu import gpu_table

    p = result.project
    out: list[tuple[str, list[str], list[list[Any]]]] = []
    proj = [
        ["project", p.name, ""], ["currency", p.currency, ""], ["start date (day 0)", p.start_date, ""],
        ["horizon", p.horizon_months, "months"], ["planning period", p.period_days, "days"],
        ["discount rate", p.discount_rate, "per year (NPV: monthly rate (1+r)^(1/12)−1, end-of-month cash flows)"],
        ["budget", p.budget if p.budget is not None else "none", p.currency if p.budget is not None else ""],
        ["electricity price", p.electricity_price_per_kwh, f"{p.currency}/kWh"], ["PUE", p.pue, ""],
        ["team region", p.team_region or "not set", ""], ["allowed modes", ", ".join(p.allowed_modes), ""],
        ["objective", result.objective, "tco: total cost of ownership; npv: discounted"],
    ]
    out.append(("Project", ["parameter", "value", "unit / note"], proj))
    wl_cols = ["name", "model", "method", "tokens (billions)", "sequence length", "LoRA rank", "earliest start day", "deadline day",
               "dataset TB", "checkpoint every h", "checkpoints kept", "MFU override", "allowed GPUs"]
    wl_rows = [[w.name, w.model.label, w.method, w.tokens_b, w.seq_len, w.lora_rank, w.earliest_start_days, w.deadline_days, w.dataset_tb,
                w.checkpoint_every_hours, w.checkpoints_kept, w.mfu if w.mfu is not None else "default", ", ".join(w.allowed_gpus or []) or "any"]
               for w in p.workloads]
    out.append(("Workloads", wl_cols, wl_rows))
    model_rows = []
    seen = set()
    for w in p.workloads:
        m = w.model
        if m.label in seen:
            continue
        seen.add(m.label)
        model_rows.append([m.label, m.params_b, m.active_params_b or m.params_b, m.layers, m.hidden_size, m.heads, m.kv_heads or m.heads,
                           m.ffn_hidden_size, m.vocab_size, m.source or ""])
    out.append(("Models", ["model", "params (B)", "active params (B)", "layers", "hidden", "heads", "KV heads", "FFN width", "vocab", "source"], model_rows))
    sz_rows = []
    for sz in result.sizings:
        mem = getattr(sz, "memory_gb", None)
        sz_rows.append([sz.workload.name, getattr(sz, "total_flops", None), getattr(mem, "total", None) if mem is not None else None,
                        sum(1 for c in sz.candidates if c.fits), sum(1 for c in sz.candidates if not c.fits)])
    out.append(("Sizing per workload", ["workload", "training FLOPs", "memory on one GPU, unsharded (GB)", "shapes that fit", "shapes rejected"], sz_rows))
    if result.plan:
        table = gpu_table()
        run_rows = []
        for a in result.plan.assignments:
            w = next(x for x in p.workloads if x.name == a.workload)
            mfu = w.mfu
            if mfu is None:
                try:
                    from procure.solver.sizing import default_mfu

                    mfu = default_mfu(table[a.gpu], w.method)
                except (ImportError, KeyError):
                    mfu = None
            run_rows.append([a.workload, a.offer_id, _strategy_label(a.strategy), mfu, a.efficiency, a.per_gpu_memory_gb, a.hours])
        out.append(("Sizing of the chosen shapes", ["workload", "offer", "strategy", "MFU", "scaling efficiency", "memory per GPU (GB)", "wall hours"], run_rows))
    out.append(("Sizing settings (project.sizing)", ["setting", "value", "meaning"],
                [[k, _fmt_value(getattr(p.sizing, k)), (f.description or "")] for k, f in type(p.sizing).model_fields.items()]))
    try:
        from procure.solver import sizing as sizing_mod

        const_rows = [[k, _fmt_value(v), ""] for k, v in vars(sizing_mod).items()
                      if k.isupper() and not k.startswith("_") and isinstance(v, (int, float, tuple, dict)) and not isinstance(v, bool)]
    except ImportError:
        const_rows = []
    out.append(("Sizing constants (solver.sizing; sources in its documentation)", ["constant", "value", ""], const_rows))
    offers = used_offers(result)
    table = gpu_table()
    gpu_ids = list(dict.fromkeys(o.gpu for o in offers))
    gpu_rows = []
    for gid in gpu_ids:
        g = table[gid]
        gpu_rows.append([g.id, g.memory_gb, g.memory_bandwidth_gbs, g.bf16_dense_tflops, g.gpu_link_gbs, g.pcie_gbs, g.tdp_w, g.source])
    out.append(("GPU specs (GPUs of the offers in the plans)", ["GPU", "memory GB", "memory GB/s", "BF16 dense TFLOP/s", "GPU link GB/s", "PCIe GB/s", "TDP W", "source"], gpu_rows))
    price_rows = []
    for o in offers:
        for f in PRICE_FIELDS:
            v = getattr(o, f)
            if v is not None:
                price_rows.append([o.id, o.vendor, o.mode, f, v, o.source, o.quoted_on])
        price_rows.append([o.id, o.vendor, o.mode, "lead_time_days", o.lead_time_days, o.source, o.quoted_on])
    out.append(("Prices used (offers in any strategy's plan)", ["offer", "vendor", "mode", "field", "value", "source", "quoted on"], price_rows))
    out.append(("Cost model", ["parameter", "value", "note"], [
        ["busy power fraction", costs.BUSY_POWER_FRACTION, "average training draw / max node power"],
        ["idle power fraction", costs.IDLE_POWER_FRACTION, "draw of an owned node that is not training / max power"],
        ["days per month", DAYS_PER_MONTH, "365/12; month m covers days [m·365/12, (m+1)·365/12)"],
        ["hours per month", DAYS_PER_MONTH * HOURS_PER_DAY, "730"],
        ["purchase timing", "", "ordered day 0, paid and delivered after the lead time, owned to the horizon end"],
        ["rental timing", "", "whole project months; setup fee in the first month"],
    ]))
    solver_rows = []
    for name in ("hybrid", "buy", "rent", "cloud"):
        s = result.strategies.get(name)
        if s is None:
            continue
        i = s.solve
        solver_rows.append([STRATEGY_LABEL[name], i.name if i else "", i.version if i else "", i.status if i else s.status,
                            i.gap if i and i.gap is not None else "", i.seconds if i else "", getattr(i, "variables", "") if i else "",
                            getattr(i, "constraints", "") if i else ""])
    out.append(("Solver", ["strategy", "solver", "version", "status", "gap", "seconds", "variables", "constraints"], solver_rows))
    from procure import __version__

    run = [["procure version", __version__, ""], ["run at", now.replace(microsecond=0).isoformat(), "local time"]]
    for path in inputs:
        run.append([f"input {Path(path).name}", sha256_of(path), "SHA-256"])
    out.append(("This run", ["item", "value", "note"], run))
    return out


# --- workbook helpers ------------------------------------------------------------------------------


def _style(c, fmt: str | None, font: Font | None, fill: PatternFill | None, align: Alignment | None = None):
    if fmt:
        c.number_format = fmt
    if font:
        c.font = font
    if fill:
        c.fill = fill
    if align:
        c.alignment = align
    return c


def put(ws: Worksheet, row: int, col: int, value: Any, fmt: str | None = None, font: Font | None = None,
        fill: PatternFill | None = None, align: Alignment | None = None):
    """Write a value; text is always text (never a formula), whatever it starts with."""
    c = ws.cell(row=row, column=col)
    if isinstance(value, dt.datetime):
        value = value.replace(tzinfo=None)
    if isinstance(value, str):
        value = ILLEGAL_CHARACTERS_RE.sub("?", value)  # control characters cannot be stored in xlsx
    c.value = value
    if isinstance(value, str):
        c.data_type = "s"
    return _style(c, fmt, font, fill, align)


def formula(ws: Worksheet, row: int, col: int, text: str, fmt: str | None = None, font: Font | None = None,
            fill: PatternFill | None = None):
    """Write one of our own formulas (never text from the inputs: that goes through ``put``)."""
    if not text.startswith("="):
        raise ValueError(f"not a formula: {text[:40]!r}")
    return _style(ws.cell(row=row, column=col, value=text), fmt, font, fill)


def as_input(cell) -> None:
    cell.font = INPUT_FONT
    cell.fill = INPUT_FILL


def header(ws: Worksheet, row: int, labels: list[str], col: int = 1, height: float | None = None) -> None:
    for i, label in enumerate(labels):
        put(ws, row, col + i, label, font=HEADER_FONT, fill=HEADER_FILL, align=Alignment(wrap_text=True, vertical="center"))
    if height:
        ws.row_dimensions[row].height = height


def _align_top(ws: Worksheet, row: int, n_cols: int) -> None:
    """Top-align a row whose one wrapped cell makes it tall, so its cells read as one line."""
    for col in range(1, n_cols + 1):
        c = ws.cell(row=row, column=col)
        a = c.alignment
        c.alignment = Alignment(horizontal=a.horizontal, vertical="top", wrap_text=a.wrap_text, indent=a.indent)


def widths(ws: Worksheet, cols: dict[str, float]) -> None:
    for letter, w in cols.items():
        ws.column_dimensions[letter].width = w


def print_setup(ws: Worksheet, title_rows: str | None = None) -> None:
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.print_options.gridLines = False
    ws.page_margins.left = ws.page_margins.right = 0.4
    ws.page_margins.top = ws.page_margins.bottom = 0.5
    if title_rows:
        ws.print_title_rows = title_rows


def abs_ref(sheet: str, col: int | str, row: int) -> str:
    letter = col if isinstance(col, str) else get_column_letter(col)
    return f"{quote(sheet)}!${letter}${row}"


def quote(sheet: str) -> str:
    return f"'{sheet}'" if " " in sheet or "-" in sheet else sheet


# --- the workbook ----------------------------------------------------------------------------------


@dataclass
class Refs:
    """Cells other sheets refer to."""

    category_total: dict[str, str] = field(default_factory=dict)  # category -> Costs cell
    grand_total: str = ""
    item_amount: dict[str, str] = field(default_factory=dict)  # line item key -> Costs!K cell (unqualified: K12)
    npv: str = ""
    monthly_rate: str = ""
    total_row: int = 0
    cumulative_row: int = 0
    month_header_row: int = 0
    first_month_col: int = 4
    strategy_rows: dict[str, int] = field(default_factory=dict)  # Cash flow rows of cumulative cash out by strategy
    break_even_row: int | None = None


def build_workbook(result, inputs: Iterable = (), now: dt.datetime | None = None) -> Workbook:
    if result.plan is None:
        raise ValueError("the workbook needs a plan; infeasible results are reported on the console and in JSON")
    now = now or dt.datetime.now()
    wb = Workbook()
    sheets = {name: (wb.active if i == 0 else wb.create_sheet()) for i, name in enumerate(SHEETS)}
    for name, ws in sheets.items():
        ws.title = name
    refs = Refs()
    items = line_items(result)
    write_costs(sheets["Costs"], result, items, refs)
    write_cash_flow(sheets["Cash flow"], result, items, refs)
    write_summary(sheets["Summary"], result, refs)
    write_plan(sheets["Plan"], result)
    write_options(sheets["Options"], result)
    write_assumptions(sheets["Assumptions"], result, inputs, now)
    wb.defined_names["total_cost"] = DefinedName("total_cost", attr_text=refs.grand_total)
    wb.defined_names["npv_cost"] = DefinedName("npv_cost", attr_text=refs.npv)
    wb.active = 0
    return wb


def write_workbook(result, path, inputs: Iterable = ()) -> None:
    """Write the approval workbook to ``path`` atomically (complete file or nothing)."""
    wb = build_workbook(result, list(inputs))
    buf = BytesIO()
    wb.save(buf)
    atomic_write(path, buf.getvalue())


# --- Costs -----------------------------------------------------------------------------------------

COST_COLS = ["category", "line item", "offer", "nodes", "quantity", "quantity unit", "unit price", "price unit", "rate",
             "rate unit", "amount", "how it is computed"]


def write_costs(ws: Worksheet, result, items: list[LineItem], refs: Refs) -> None:
    p = result.project
    cur = p.currency
    put(ws, 1, 1, f"Cost line items of the recommended plan ({cur})", font=TITLE_FONT)
    params = cost_parameters(p)
    n_items = len(items)
    # layout: line items by category with subtotals, then totals by category, then the parameters
    rows_needed = sum(1 for c in CATEGORIES if any(i.category == c for i in items)) * 3 + n_items
    param_row0 = 4 + rows_needed + 1 + len(CATEGORIES) + 2
    param_cell = {key: f"$C${param_row0 + 1 + j}" for j, (key, *_rest) in enumerate(params)}
    put(ws, 2, 1, f"Blue-on-yellow cells are inputs: change a quantity or a price and every total, the cash flow and the summary "
                  f"follow. Energy lines use the cost-model parameters in rows {param_row0 + 1}–{param_row0 + len(params)}.", font=NOTE_FONT)
    header(ws, 3, COST_COLS, height=30)
    ws.freeze_panes = "A4"
    row = 4
    pos: dict[str, int] = {}
    subtotal: dict[str, str] = {}
    money_c = money_fmt(cur, cents=True)
    for cat in CATEGORIES:
        mine = [i for i in items if i.category == cat]
        if not mine:
            continue
        put(ws, row, 1, CATEGORY_LABEL[cat], font=SECTION_FONT)
        row += 1
        first = row
        for it in mine:
            pos[it.key] = row
            put(ws, row, 1, cat)
            put(ws, row, 2, it.item)
            put(ws, row, 3, it.ref)
            cells = {"D": (it.nodes, INT_FMT), "E": (it.quantity, "#,##0.000"), "G": (it.unit_price, "#,##0.00##"),
                     "I": (it.rate, "0.0###")}
            for letter, (value, fmt) in cells.items():
                col = ord(letter) - 64
                link = it.links.get(letter)
                if link and link.startswith("@"):
                    formula(ws, row, col, f"={param_cell[link[1:]]}", fmt)
                elif link and link in pos:
                    formula(ws, row, col, f"=${letter}${pos[link]}", fmt)
                elif value is not None:
                    as_input(put(ws, row, col, value, fmt))
            for col, unit in ((6, it.quantity_unit), (8, it.price_unit), (10, it.rate_unit)):
                put(ws, row, col, unit, align=Alignment(indent=1))
            expr = it.expr.format(D=f"D{row}", E=f"E{row}", G=f"G{row}", I=f"I{row}", **param_cell)
            formula(ws, row, 11, "=" + expr, money_c)
            put(ws, row, 12, it.how, font=NOTE_FONT, align=Alignment(indent=1))
            refs.item_amount[it.key] = f"K{row}"
            row += 1
        put(ws, row, 2, f"total {CATEGORY_LABEL[cat]}", font=BOLD)
        c = formula(ws, row, 11, f"=SUM(K{first}:K{row - 1})", money_c, font=BOLD, fill=TOTAL_FILL)
        c.border = TOP_RULE
        subtotal[cat] = f"K{row}"
        row += 2
    # totals by category
    put(ws, row, 1, "Totals by category", font=SECTION_FONT)
    row += 1
    first = row
    for cat in CATEGORIES:
        put(ws, row, 1, cat)
        put(ws, row, 2, CATEGORY_LABEL[cat])
        formula(ws, row, 11, f"={subtotal[cat]}" if cat in subtotal else "=0", money_c)
        refs.category_total[cat] = abs_ref("Costs", "K", row)
        row += 1
    put(ws, row, 1, "total", font=BOLD)
    put(ws, row, 2, f"total cost of ownership over {p.horizon_months} months", font=BOLD)
    c = formula(ws, row, 11, f"=SUM(K{first}:K{row - 1})", money_c, font=BOLD, fill=TOTAL_FILL)
    c.border = TOP_RULE
    refs.grand_total = abs_ref("Costs", "K", row)
    row += 2
    # parameters (their rows were reserved above)
    row = max(row, param_row0)
    put(ws, row, 1, "Cost-model parameters", font=SECTION_FONT)
    for j, (key, label, value, unit, fmt) in enumerate(params):
        r = row + 1 + j
        put(ws, r, 2, label)
        if key == "dpm":
            formula(ws, r, 3, f"={param_cell['dpy']}/12", fmt)
        else:
            as_input(put(ws, r, 3, value, fmt))
        put(ws, r, 4, unit, align=Alignment(indent=1))
    if row != param_row0:  # the reserved rows moved: the formulas above would point elsewhere
        raise RuntimeError("Costs sheet layout: parameter rows moved")
    widths(ws, {"A": 15, "B": 40, "C": 30, "D": 8, "E": 13, "F": 15, "G": 13, "H": 16, "I": 9, "J": 20, "K": 16, "L": 58})
    print_setup(ws, "3:3")


# --- Cash flow -------------------------------------------------------------------------------------


def write_cash_flow(ws: Worksheet, result, items: list[LineItem], refs: Refs) -> None:
    p = result.project
    n = p.horizon_months
    c0 = refs.first_month_col  # column D
    last_col = c0 + n - 1
    L = get_column_letter
    put(ws, 1, 1, f"Cash flow by month ({p.currency}, cash out positive; residual value negative)", font=TITLE_FONT)
    put(ws, 2, 1, "Each line item's month = its total on the Costs sheet × the fraction the cost model places in that month; "
                  "months are 365/12 days from the start date.", font=NOTE_FONT)
    header(ws, 3, ["", "category", "total"])
    put(ws, 4, 1, "month starting", font=BOLD)
    for m in range(n):
        col = c0 + m
        put(ws, 3, col, f"M{m + 1}", font=HEADER_FONT, fill=HEADER_FILL, align=CENTER)
        put(ws, 4, col, month_start(p, m), MONTH_FMT, font=BOLD, align=CENTER)
    refs.month_header_row = 4
    ws.freeze_panes = ws.cell(row=5, column=c0)
    money = INT_FMT
    # line-item block position (after categories, totals, NPV and strategy rows)
    cat_row0 = 5
    total_row = cat_row0 + len(CATEGORIES)
    cum_row = total_row + 1
    row = cum_row + 2
    npv_rows = 3 if p.discount_rate > 0 else 0
    strat_names = [s for s in ("hybrid", "buy", "rent", "cloud") if s in result.strategies and result.strategies[s].plan is not None]
    strat_row0 = row + npv_rows + 1
    be_month, _ = break_even(result)
    n_strat_rows = len(strat_names) + (1 if be_month is not None else 0)
    items_row0 = strat_row0 + 1 + n_strat_rows + 2
    first_item, last_item = items_row0 + 1, items_row0 + len(items)
    rng_cat = f"$B${first_item}:$B${max(last_item, first_item)}"
    for j, cat in enumerate(CATEGORIES):
        r = cat_row0 + j
        put(ws, r, 1, CATEGORY_LABEL[cat])
        put(ws, r, 2, cat)
        for m in range(n):
            col = L(c0 + m)
            formula(ws, r, c0 + m, f'=SUMIF({rng_cat},$B{r},{col}${first_item}:{col}${max(last_item, first_item)})', money)
        formula(ws, r, 3, f"=SUM({L(c0)}{r}:{L(last_col)}{r})", money)
    put(ws, total_row, 1, "total cash out", font=BOLD)
    for col in range(3, last_col + 1):
        formula(ws, total_row, col, f"=SUM({L(col)}{cat_row0}:{L(col)}{total_row - 1})", money, font=BOLD, fill=TOTAL_FILL).border = TOP_RULE
    put(ws, cum_row, 1, "cumulative cash out", font=BOLD)
    for m in range(n):
        col = c0 + m
        prev = f"{L(col - 1)}{cum_row}+" if m > 0 else ""
        formula(ws, cum_row, col, f"={prev}{L(col)}{total_row}", money, font=BOLD)
    refs.total_row, refs.cumulative_row = total_row, cum_row
    # always present (at a 0% rate the NPV equals the total), so `npv_cost` is there for every project
    put(ws, row, 1, "annual discount rate")
    as_input(put(ws, row, 3, p.discount_rate, PCT_FMT))
    put(ws, row + 1, 1, "monthly rate (1+r)^(1/12)−1")
    formula(ws, row + 1, 3, f"=(1+C{row})^(1/12)-1", "0.0000%")
    put(ws, row + 2, 1, "net present value (end of month)", font=BOLD)
    formula(ws, row + 2, 3, f"=NPV(C{row + 1},{L(c0)}{total_row}:{L(last_col)}{total_row})", money_fmt(p.currency), font=BOLD, fill=TOTAL_FILL)
    refs.npv = abs_ref("Cash flow", "C", row + 2)
    refs.monthly_rate = abs_ref("Cash flow", "C", row + 1)
    # cumulative cash out by strategy (the Summary's line chart)
    put(ws, strat_row0, 1, "Cumulative cash out by strategy", font=SECTION_FONT)
    r = strat_row0 + 1
    for name in strat_names:
        s = result.strategies[name]
        label = STRATEGY_LABEL[name] + (" — recommended" if name == "hybrid" else "")
        put(ws, r, 1, label)
        if name == "hybrid":
            for m in range(n):
                formula(ws, r, c0 + m, f"={L(c0 + m)}{cum_row}", money)
        else:
            for m, v in enumerate(cumulative(monthly_totals(s.plan, n))):
                put(ws, r, c0 + m, v, money)
        refs.strategy_rows[name] = r
        r += 1
    if be_month is not None:
        put(ws, r, 1, "break-even month (buy only)")
        buy_cum = cumulative(monthly_totals(result.strategies["buy"].plan, n))
        put(ws, r, c0 + be_month, buy_cum[be_month], money)
        refs.break_even_row = r
    # line items
    header(ws, items_row0, ["line item", "category", "total"] + [f"M{m + 1}" for m in range(n)])
    for k, it in enumerate(items):
        r = first_item + k
        put(ws, r, 1, f"{it.item} — {it.ref}" if it.ref not in it.item else it.item)
        put(ws, r, 2, it.category)
        formula(ws, r, 3, f"=Costs!{refs.item_amount[it.key]}", money)
        for m, frac in sorted(it.months.items()):
            f = "" if frac == 1.0 else f"*{frac!r}"
            formula(ws, r, c0 + m, f"=$C{r}{f}", money)
    widths(ws, {"A": 44, "B": 15, "C": 14})
    for m in range(n):
        ws.column_dimensions[L(c0 + m)].width = 10
    print_setup(ws, "3:4")
    # a year of months per printed page, labels repeated, rather than 36+ unreadable columns on one
    ws.page_setup.fitToWidth = max(1, math.ceil(n / 12))
    ws.print_title_cols = "A:C"


# --- Summary ---------------------------------------------------------------------------------------


def write_summary(ws: Worksheet, result, refs: Refs) -> None:
    p, plan = result.project, result.plan
    cur = p.currency
    mfmt = money_fmt(cur)
    note_align = Alignment(indent=1, vertical="top")
    put(ws, 1, 1, f"{p.name} — GPU compute procurement", font=TITLE_FONT)
    info = result.hybrid.solve
    gap = f", gap {info.gap:.2%}" if info and info.gap is not None else ""
    put(ws, 2, 1, f"{len(p.workloads)} workload(s), {len(result.offers)} offers compared, horizon {p.horizon_months} months from "
                  f"{p.start_date.isoformat()}; solver status: {result.status} ({info.name if info else ''}{gap}); plan verified independently.",
        font=NOTE_FONT)
    put(ws, 4, 1, "Recommendation", font=SECTION_FONT)
    put(ws, 5, 1, recommendation(result), font=Font(bold=True, size=12), align=Alignment(wrap_text=True, vertical="top"))
    ws.merge_cells(start_row=5, start_column=1, end_row=5, end_column=8)
    ws.row_dimensions[5].height = 36
    # key figures
    row = 7
    put(ws, row, 1, "Key figures", font=SECTION_FONT)
    row += 1
    header(ws, row, ["figure", "amount", "note"])

    def merge_note(r: int) -> None:
        ws.merge_cells(start_row=r, start_column=3, end_row=r, end_column=8)

    merge_note(row)
    row += 1
    opex = [c for c in CATEGORIES if c not in ("capex", "residual_value")]
    figures = [
        ("Total cost of ownership", f"={refs.grand_total}", f"over {p.horizon_months} months, undiscounted; the sum of every line item on the Costs sheet", True),
    ]
    if p.discount_rate > 0:
        figures.append(("Net present value of the costs", f"={refs.npv}", f"discounted at {p.discount_rate:.1%} a year, end-of-month cash flows (Cash flow sheet)", False))
    figures += [
        ("Capex (purchases)", f"={refs.category_total['capex']}", "server purchases, paid on delivery", False),
        ("Residual value", f"={refs.category_total['residual_value']}", "resale value of the bought servers at the horizon end (negative = money back)", False),
        ("Opex", "=" + "+".join(refs.category_total[c] for c in opex), "maintenance, colocation, energy, rent, setup fees and cloud", False),
    ]
    for label, f, note, strong in figures:
        put(ws, row, 1, label, font=BOLD if strong else None)
        formula(ws, row, 2, f, mfmt, font=BOLD if strong else None, fill=TOTAL_FILL if strong else None)
        put(ws, row, 3, note, font=NOTE_FONT, align=note_align)
        merge_note(row)
        row += 1
    late = [a for a in plan.assignments if a.slack_days < -1e-9]
    tight = min(plan.assignments, key=lambda a: a.slack_days)
    put(ws, row, 1, "Deadlines")
    put(ws, row, 2, "all met" if not late else f"{len(late)} LATE", font=None if not late else BAD_FONT, align=Alignment(horizontal="right"))
    put(ws, row, 3, f"{len(plan.assignments)} workload(s); the tightest, {tight.workload}, finishes {day_date(p, tight.end_day).isoformat()} "
                    f"with {tight.slack_days:.1f} days to spare (deadline {day_date(p, tight.deadline_day).isoformat()}); each below",
        font=NOTE_FONT, align=note_align)
    merge_note(row)
    row += 2
    # strategies
    put(ws, row, 1, "Strategies: buy vs rent vs cloud", font=SECTION_FONT)
    row += 1
    header(ws, row, ["strategy", "total cost", "vs recommended", "vs rec. %", "NPV", "status", "modes used", "why not possible"])
    row += 1
    srows = strategy_rows(result)
    first_strat = row
    hybrid_row = None
    for s in srows:
        rec = s["name"] == "hybrid"
        fill = CHOSEN_FILL if rec else None
        put(ws, row, 1, s["strategy"], font=BOLD if rec else None, fill=fill)
        if s["total_cost"] is None:
            put(ws, row, 2, "infeasible" if s["status"] == "infeasible" else "no plan", font=BAD_FONT, align=Alignment(horizontal="right"))
            for col in (3, 4, 5):
                put(ws, row, col, "—", align=Alignment(horizontal="center"))
        else:
            if rec:
                formula(ws, row, 2, f"={refs.grand_total}", mfmt, font=BOLD, fill=fill)
                hybrid_row = row
            else:
                put(ws, row, 2, s["total_cost"], mfmt)
            base = f"$B${hybrid_row or first_strat}"
            formula(ws, row, 3, f"=B{row}-{base}", f'+#,##0 "{cur}";-#,##0 "{cur}";0', fill=fill)
            formula(ws, row, 4, f"=IF({base}=0,0,(B{row}-{base})/{base})", "+0%;-0%;0%", fill=fill)
            if rec and p.discount_rate > 0:
                formula(ws, row, 5, f"={refs.npv}", mfmt, fill=fill)
            else:
                put(ws, row, 5, s["npv_cost"], mfmt, fill=fill)
        put(ws, row, 6, s["status"] + (", recommended" if rec else ""), font=BOLD if rec else None, fill=fill, align=Alignment(indent=1))
        put(ws, row, 7, s["modes"], fill=fill)
        put(ws, row, 8, s["note"], font=NOTE_FONT, align=WRAP)
        if s["note"]:
            ws.row_dimensions[row].height = 13 * min(5, 1 + len(s["note"]) // 48)
        _align_top(ws, row, 8)
        row += 1
    last_strat = row - 1
    be_month, be_text = break_even(result)
    if be_text:
        put(ws, row, 1, be_text, font=BOLD, align=Alignment(wrap_text=True, vertical="top"))
        ws.merge_cells(start_row=row, start_column=1, end_row=row, end_column=8)
        ws.row_dimensions[row].height = 30
        row += 1
    # charts, side by side
    row += 1
    chart_h = 7.6
    bar = BarChart()
    bar.type = "col"
    bar.title = f"Total cost of ownership ({cur})"
    bar.y_axis.numFmt = "#,##0"
    bar.y_axis.scaling.min = 0
    bar.legend = None
    bar.add_data(Reference(ws, min_col=2, min_row=first_strat, max_row=last_strat), titles_from_data=False)
    bar.set_categories(Reference(ws, min_col=1, min_row=first_strat, max_row=last_strat))
    bar.series[0].graphicalProperties.solidFill = "2E75B6"
    bar.dataLabels = DataLabelList()
    bar.dataLabels.showVal = True
    for flag in ("showSerName", "showCatName", "showLegendKey", "showPercent", "showLeaderLines"):
        setattr(bar.dataLabels, flag, False)
    bar.dataLabels.numFmt = "#,##0"
    bar.height, bar.width = chart_h, 12.0
    bar.x_axis.delete = False
    bar.y_axis.delete = False
    ws.add_chart(bar, f"A{row}")
    cf = ws.parent["Cash flow"]
    n = p.horizon_months
    if refs.strategy_rows:
        line = LineChart()
        line.title = f"Cumulative cash out by strategy ({cur})"
        line.y_axis.numFmt = "#,##0"
        line.x_axis.number_format = "mmm yy"
        line.x_axis.tickLblSkip = max(1, math.ceil(n / 8))
        line.x_axis.tickMarkSkip = max(1, math.ceil(n / 8))
        colors = {"hybrid": "00B050", "buy": "ED7D31", "rent": "2E75B6", "cloud": "7F7F7F"}
        c0, c1 = refs.first_month_col, refs.first_month_col + n - 1
        for name, r in refs.strategy_rows.items():
            label = "hybrid (recommended)" if name == "hybrid" else STRATEGY_LABEL[name]
            ser = Series(Reference(cf, min_col=c0, max_col=c1, min_row=r), title=label)
            ser.graphicalProperties.line.solidFill = colors[name]
            ser.graphicalProperties.line.width = 38100 if name == "hybrid" else 22225
            if name == "hybrid":
                ser.graphicalProperties.line.dashStyle = "sysDash"
            ser.smooth = False
            ser.marker.symbol = "none"
            line.series.append(ser)
        if refs.break_even_row is not None:
            ser = Series(Reference(cf, min_col=c0, max_col=c1, min_row=refs.break_even_row), title=f"break-even, month {be_month + 1}")
            ser.marker.symbol = "diamond"
            ser.marker.size = 12
            ser.marker.graphicalProperties.solidFill = "C00000"
            ser.marker.graphicalProperties.line.solidFill = "C00000"
            ser.graphicalProperties.line.noFill = True
            line.series.append(ser)
        line.set_categories(Reference(cf, min_col=c0, max_col=c1, min_row=refs.month_header_row))
        line.legend.position = "r"
        line.height, line.width = chart_h, 18.5
        line.x_axis.delete = False
        line.y_axis.delete = False
        ws.add_chart(line, f"D{row}")
    row += 16
    # deadlines, on the next page
    ws.row_breaks.append(Break(id=row - 1))
    put(ws, row, 1, "Deadlines", font=SECTION_FONT)
    row += 1
    header(ws, row, ["workload", "finishes", "deadline", "slack (days)", "on time"])
    row += 1
    for a in plan.assignments:
        put(ws, row, 1, a.workload)
        put(ws, row, 2, day_date(p, a.end_day), DATE_FMT)
        put(ws, row, 3, day_date(p, a.deadline_day), DATE_FMT)
        put(ws, row, 4, a.slack_days, NUM_FMT)
        ok = a.slack_days >= -1e-9
        put(ws, row, 5, "yes" if ok else "NO", font=None if ok else BAD_FONT, align=Alignment(horizontal="right"))
        row += 1
    ws.freeze_panes = "A4"
    widths(ws, {"A": 34, "B": 16, "C": 16, "D": 15, "E": 16, "F": 21, "G": 12, "H": 40})
    print_setup(ws)


# --- Plan ------------------------------------------------------------------------------------------


def write_plan(ws: Worksheet, result) -> None:
    p, plan = result.project, result.plan
    cur = p.currency
    put(ws, 1, 1, f"Plan per workload — {p.name}", font=TITLE_FONT)
    put(ws, 2, 1, f"Dates count from {p.start_date.isoformat()} (day 0). Cost = the job's own cost (cloud bill or busy energy) plus its "
                  f"node-hour share of the capacity bought or rented on that offer.", font=NOTE_FONT)
    cols = ["workload", "offer", "vendor", "mode", "GPU", "GPUs", "nodes", "strategy", "start", "end", "deadline", "slack (days)",
            "GPU-hours", f"cost ({cur})"]
    header(ws, 3, cols, height=30)
    ws.freeze_panes = "B4"
    row = 4
    for r in plan_rows(result):
        vals = [r["workload"], r["offer"], r["vendor"], r["mode"], r["gpu"], r["gpus"], r["nodes"], r["strategy"], r["start"], r["end"],
                r["deadline"], r["slack_days"], r["gpu_hours"], r["cost"]]
        fmts = [None, None, None, None, None, INT_FMT, INT_FMT, None, DATE_FMT, DATE_FMT, DATE_FMT, NUM_FMT, INT_FMT, INT_FMT]
        for j, (v, f) in enumerate(zip(vals, fmts)):
            put(ws, row, j + 1, v, f, align=Alignment(wrap_text=True, vertical="top", horizontal="center") if j in (5, 6) else WRAP)
        put(ws, row, 4, r["mode"], fill=MODE_FILL.get(r["mode"]))
        ws.row_dimensions[row].height = 26
        row += 1
    last = row - 1
    put(ws, row, 1, "total", font=BOLD)
    formula(ws, row, 13, f"=SUM(M4:M{last})", INT_FMT, font=BOLD, fill=TOTAL_FILL)
    formula(ws, row, 14, f"=SUM(N4:N{last})", INT_FMT, font=BOLD, fill=TOTAL_FILL)
    row += 2
    caps = capacity_rows(result)
    if caps:
        put(ws, row, 1, "Capacity bought and rented", font=SECTION_FONT)
        row += 1
        header(ws, row, ["what", "offer", "vendor", "nodes", "from", "until", "months", f"cost ({cur})"])
        row += 1
        for c in caps:
            put(ws, row, 1, "buy (own)" if c["what"] == "buy" else "rent", fill=MODE_FILL.get(c["what"]))
            put(ws, row, 2, c["offer"], align=WRAP)
            put(ws, row, 3, c["vendor"], align=WRAP)
            put(ws, row, 4, c["nodes"], INT_FMT, align=Alignment(horizontal="center", vertical="top"))
            put(ws, row, 5, c["from"], DATE_FMT)
            put(ws, row, 6, day_date(p, c["to_day"]), DATE_FMT)
            put(ws, row, 7, (c["to_day"] - c["from_day"]) / DAYS_PER_MONTH, NUM_FMT)
            put(ws, row, 8, c["cost"], INT_FMT)
            ws.row_dimensions[row].height = 26
            _align_top(ws, row, 8)
            row += 1
        row += 1
    # timeline: months down, one column per workload and per capacity block (fits under the table)
    ends = [a.deadline_day for a in plan.assignments] + [c["to_day"] - 1e-6 for c in caps if c["what"] == "rent"]
    last_m = min(p.horizon_months - 1, costs.month_of(max(ends))) if ends else 0
    put(ws, row, 1, "Timeline by month: days of work in each month, coloured by mode; ◆ = the workload's deadline month", font=SECTION_FONT)
    row += 1
    cols_t = [a.workload for a in plan.assignments] + [f"{c['what']} {c['nodes']} × {c['offer']}" for c in caps]
    header(ws, row, ["month starting"] + cols_t, height=42)
    ws.row_dimensions[row].height = 42
    row += 1
    border = Border(left=THIN, right=THIN, top=THIN, bottom=THIN)
    for m in range(last_m + 1):
        lo, hi = m * DAYS_PER_MONTH, (m + 1) * DAYS_PER_MONTH
        put(ws, row, 1, month_start(p, m), DATE_FMT, font=BOLD, align=Alignment(horizontal="left"))
        for j, a in enumerate(plan.assignments):
            days = max(0.0, min(hi, a.end_day) - max(lo, a.start_day))
            running = days > 0 or (a.start_day == a.end_day and lo <= a.start_day < hi)
            text = (f"{days:.1f} d" if days < 9.95 else f"{days:.0f} d") if running else ""
            if m == costs.month_of(a.deadline_day):
                text = (text + " ◆").strip()
            c = put(ws, row, 2 + j, text, fill=MODE_FILL[a.mode] if running else None, align=CENTER)
            c.border = border
        for j, c in enumerate(caps):
            col = 2 + len(plan.assignments) + j
            held = min(hi, c["to_day"]) - max(lo, c["from_day"]) > 1e-6
            cell = put(ws, row, col, f"{c['nodes']} node{'s' if c['nodes'] > 1 else ''}" if held else "",
                       fill=CAPACITY_FILL[c["what"]] if held else None, align=CENTER)
            cell.border = border
        row += 1
    row += 1
    put(ws, row, 1, "Legend:", font=BOLD)
    for j, (label, fill) in enumerate([("buy job", MODE_FILL["buy"]), ("rent job", MODE_FILL["rent"]), ("cloud job", MODE_FILL["cloud"]),
                                       ("nodes owned", CAPACITY_FILL["buy"]), ("nodes rented", CAPACITY_FILL["rent"])]):
        put(ws, row, 2 + j, label, fill=fill, align=CENTER)
    widths(ws, {"A": 22, "B": 16, "C": 14, "D": 12, "E": 16, "F": 12, "G": 12, "H": 16, "I": 12, "J": 12, "K": 12, "L": 12, "M": 12, "N": 13})
    for j in range(13, len(cols_t) + 1):
        ws.column_dimensions[get_column_letter(2 + j)].width = 12
    print_setup(ws)


# --- Options ---------------------------------------------------------------------------------------


def write_options(ws: Worksheet, result) -> None:
    cur = result.project.currency
    put(ws, 1, 1, "Every shape considered", font=TITLE_FONT)
    put(ws, 2, 1, "Feasible shapes: the job alone on that shape, starting as early as allowed (stand-alone cost), against the chosen "
                  "shape. Below: each (workload, offer) that cannot run the job, with the reason.", font=NOTE_FONT)
    cols = ["workload", "offer", "vendor", "mode", "GPU", "nodes", "GPUs", "strategy", "days on the nodes", "compute hours", "GPU-hours",
            "scaling efficiency", f"stand-alone cost ({cur})", f"vs chosen ({cur})", "chosen"]
    header(ws, 3, cols, height=30)
    ws.freeze_panes = "B4"
    row = 4
    for r in option_rows(result):
        fill = CHOSEN_FILL if r["chosen"] else None
        vals = [r["workload"], r["offer"], r["vendor"], r["mode"], r["gpu"], r["nodes"], r["gpus"], r["strategy"], r["days"], r["hours"],
                r["gpu_hours"], r["efficiency"], r["standalone_cost"], r["vs_chosen"], "chosen" if r["chosen"] else ""]
        fmts = [None, None, None, None, None, INT_FMT, INT_FMT, None, NUM_FMT, NUM_FMT, INT_FMT, "0.00", INT_FMT, "+#,##0;-#,##0;0", None]
        for j, (v, f) in enumerate(zip(vals, fmts)):
            put(ws, row, j + 1, v, f, fill=fill)
        row += 1
    row += 1
    put(ws, row, 1, "Rejected (workload, offer) pairs", font=SECTION_FONT)
    row += 1
    header(ws, row, ["workload", "offer", "vendor", "mode", "GPU", "reason"])
    ws.merge_cells(start_row=row, start_column=6, end_row=row, end_column=15)
    row += 1
    for r in rejection_rows(result):
        for j, key in enumerate(("workload", "offer", "vendor", "mode", "gpu")):
            put(ws, row, j + 1, r[key])
        put(ws, row, 6, r["reason"], align=WRAP)
        ws.merge_cells(start_row=row, start_column=6, end_row=row, end_column=15)
        ws.row_dimensions[row].height = 15 * max(1, math.ceil(len(r["reason"]) / 150))
        row += 1
    widths(ws, {"A": 20, "B": 32, "C": 12, "D": 7, "E": 16, "F": 7, "G": 7, "H": 26, "I": 10, "J": 10, "K": 11, "L": 10, "M": 14, "N": 12, "O": 9})
    print_setup(ws, "3:3")


# --- Assumptions -----------------------------------------------------------------------------------


def write_assumptions(ws: Worksheet, result, inputs: Iterable, now: dt.datetime) -> None:
    put(ws, 1, 1, "Assumptions and provenance", font=TITLE_FONT)
    put(ws, 2, 1, "What every figure rests on: inputs, sizing rules, hardware data, prices with their source and date, the solver and this run.",
        font=NOTE_FONT)
    row = 4
    for title, cols, rows in assumption_sections(result, inputs, now):
        put(ws, row, 1, title, font=SECTION_FONT)
        row += 1
        header(ws, row, cols)
        row += 1
        for r in rows:
            for j, v in enumerate(r):
                fmt = DATE_FMT if isinstance(v, dt.date) else ("#,##0.####" if isinstance(v, float) and abs(v) < 1e6 else
                                                             ("0.00E+00" if isinstance(v, float) else None))
                put(ws, row, j + 1, v, fmt, align=WRAP if isinstance(v, str) and len(v) > 40 else None)
            row += 1
        row += 1
    widths(ws, {"A": 30, "B": 24, "C": 40, "D": 24, "E": 16, "F": 40, "G": 14, "H": 14, "I": 12, "J": 40, "K": 14, "L": 14, "M": 16})
    print_setup(ws)
