"""Format-neutral tables of a result: the rows that the console, the CSV files and the Excel workbook share.

Nothing here knows a file format: each function returns plain rows (dicts or lists of values, dates as
``datetime.date``, money unrounded). ``reports.csv_report`` writes them as CSV, ``reports.xlsx`` lays them
out as sheets. Every amount comes from the cost model (``solver.costs``) and the result objects.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from procure.models.units import DAYS_PER_MONTH, DAYS_PER_YEAR, HOURS_PER_DAY
from procure.solver import costs
from procure.solver.costs import CATEGORIES, RentalContract

from .console import STRATEGY_LABEL

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
    from procure.solver.sizing.constants import constant_rows

    const_rows = [[name, _fmt_value(value), unit, source] for name, value, unit, source in constant_rows()]
    out.append(("Sizing constants (solver/sizing/constants.yaml)", ["constant", "value", "unit", "source"], const_rows))
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
