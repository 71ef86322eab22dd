"""The plan as JSON — a contract other tools read (field names documented in the README)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procure.solver.result import Result

from procure.solver.costs import CATEGORIES
from procure.solver.sizing.band import hours_band

from . import assumption_rows, lines, tables
from .finance_report import finance_json, plan_after_tax
from .headline import (
    assumed_mfu,
    comparisons,
    peaks,
    plan_range,
    recommendation,
    set_aside_headline,
    set_aside_rows,
    spot_risk,
    stale_offers,
    stale_text,
)
from .tables import held_window, rounded

_r = rounded


def _range(result: Result) -> dict | None:
    """The recommended plan's range (analysis/plan_risk.py) and what its deadlines and hours rest on."""
    r = plan_range(result)
    if r is None:
        return None
    return {
        "tco_p50": _r(r.tco_p50),
        "tco_p90": _r(r.tco_p90),
        "runs_as_decided_probability": round(r.runs_as_decided, 3),
        "method": r.method,
        "hours_band": r.band,
        "deadline_confidence": result.project.deadline_confidence,
        "below_confidence": [{"workload": w, "confidence": round(c, 3)} for w, c in r.unsure],
        "mfu_assumptions": [{"gpu": g, "constant": c} for g, c in assumed_mfu(result)],
    }


def result_to_json(result: Result, inputs=()) -> dict:
    """The JSON document; ``inputs``: the input files, hashed as in the Assumptions sheet."""
    p, h = result.project, result.hybrid
    plan = h.plan
    info = h.solve
    out: dict = {
        "status": h.status,
        "currency": p.currency,
        "objective": result.objective,
        "total_cost": _r(plan.total_cost) if plan else None,
        "npv_cost": _r(plan.npv_cost) if plan else None,
        "cost_breakdown": {c: _r(plan.breakdown.get(c, 0.0)) for c in CATEGORIES} if plan else None,
        "purchases": [],
        "owned": [],
        "rentals": [],
        "charges": [],
        "assignments": [],
        "pnl": [],
        "strategies": {},
        "rejected": [
            {"workload": r.workload, "offer": r.offer_id, "reason": r.reason, "rule": str(r.rule)}
            for r in result.rejections
        ],
        "infeasible": h.reasons,
        "solver": {
            "name": info.name if info else None,
            "status": info.status if info else h.status,
            "seconds": _r(info.seconds, 3) if info else None,
            "gap": info.gap if info else None,
            "heuristic": bool(info and info.heuristic),
        },
    }
    out["range"] = _range(result) if plan else None
    out["after_tax"] = plan_after_tax(result, "hybrid", plan)
    out.update(finance_json(result))
    if plan:
        out["purchases"] = [
            {
                "offer": x.offer_id,
                "nodes": x.nodes,
                "price_per_node": _r(x.price_per_node),
                "cost": _r(x.cost),
                "committed": x.committed,
            }
            for x in plan.purchases
            if not x.committed
        ]
        # servers already owned: no price is paid for them; their window and what they cost to run in it
        out["owned"] = [
            {
                "offer": x.offer_id,
                "nodes": x.nodes,
                "from_day": _r(window[0], 3),
                "until_day": _r(window[1], 3),
                "cost": _r(x.cost),
                "committed": True,
            }
            for x in plan.purchases
            if x.committed
            for window in [held_window(result, x.offer_id)]
        ]
        out["rentals"] = [
            {
                "offer": r.offer_id,
                "nodes": r.nodes,
                "start_day": _r(r.start_day, 3),
                "months": r.months,
                "term_months": r.term_months if r.term_months is not None else result.offers[r.offer_id].min_term,
                "price_per_node_month": _r(r.price_per_node_month),
                "cost": _r(r.cost),
                "committed": r.committed,
            }
            for r in plan.rentals
        ]
        # owned servers' running costs and signed commitments: owed whatever the plan does
        out["committed_cost"] = _r(plan.committed_cost)
        # fixed charges (one per offer used) and the operations staff: costs of no purchase, rental or job
        out["charges"] = [
            {
                "kind": ch.kind,
                "offer": ch.offer_id,
                "cost": _r(ch.cost),
                **({"ftes": ch.ftes, "months": ch.months, "peak_nodes": ch.nodes} if ch.kind == "staff" else {}),
            }
            for ch in plan.charges
        ]
        out["pnl"] = [
            {
                "year": y.year,
                "fiscal_year": y.label,
                "months": [y.months[0] + 1, y.months[1]],
                "from": tables.month_start(p, y.months[0]).isoformat(),
                "depreciation": _r(y.depreciation),
                "operating": _r(y.operating),
                "interest": _r(y.interest),
                "disposal_gain": _r(y.disposal_gain),
            }
            for y in plan.pnl
        ]
        slack = {w.name: result.project.slack_for(w) for w in result.project.workloads}
        out["assignments"] = [
            {
                "workload": a.workload,
                "offer": a.offer_id,
                "mode": a.mode,
                "gpu": a.gpu,
                "nodes": a.nodes,
                "gpus": a.gpus,
                "start_day": _r(a.start_day, 3),
                "end_day": _r(a.end_day, 3),
                "deadline_day": a.deadline_day,
                "slack_days": _r(a.slack_days, 3),
                "min_slack_days": slack.get(a.workload),
                "hours": _r(a.hours, 3),
                "hours_p10": _r(hours_band(a.hours)[0], 3),
                "hours_p90": _r(hours_band(a.hours)[1], 3),
                "gpu_hours": _r(a.gpu_hours, 3),
                "cost": _r(a.cost),
            }
            for a in plan.assignments
        ]
    for c in comparisons(result):
        s = result.strategies[c.name]
        out["strategies"][c.name] = {
            "status": s.status,
            "total_cost": _r(s.total_cost),
            "npv_cost": _r(s.plan.npv_cost) if s.plan else None,
            "gap": s.solve.gap if s.solve else None,
            "vs_recommended": _r(c.diff),
            "bound": c.bound or None,
            "note": "excluded by you (allowed_modes)" if s.status == "excluded" else None,
            "after_tax": plan_after_tax(result, c.name, s.plan),
        }
    out["peak_nodes"] = [
        {
            "offer": pk.offer_id,
            "mode": pk.mode,
            "spot": pk.spot,
            "peak_nodes": pk.peak_nodes,
            "used": _r(pk.amount, 3),
            "used_unit": pk.amount_unit,
        }
        for pk in peaks(result)
    ]
    risk = spot_risk(result)
    out["spot_fallback"] = (
        None
        if risk is None
        else {
            "offers": risk.offers,
            "status": risk.fallback_status,
            "cost": _r(risk.fallback_cost),
            "total_cost": _r(risk.fallback_tco),
            "extra": _r(risk.extra),
        }
    )
    out["stale_offers"] = [
        {"offer": s.offer_id, "quoted_on": s.quoted_on.isoformat(), "days_before_start": s.days_before_start}
        for s in stale_offers(result)
    ]
    out["runner_ups"] = {w: [] for w in result.runner_ups}
    for r in tables.runner_up_rows(result):
        out["runner_ups"][r["workload"]].append(_runner_up_json(r))
    out["runner_ups_skipped"] = result.runner_ups_skipped or None
    extras = workbook_extras(result, inputs)
    for a, more in zip(out["assignments"], extras.pop("_assignment_extras", []), strict=True):
        a.update(more)
    out.update(extras)
    from .emissions_report import emissions_json  # operational emissions (solver.emissions)

    em = emissions_json(result)
    out["emissions_tco2e"], out["emissions_kwh"], out["emissions"] = (
        em["emissions_tco2e"],
        em["emissions_kwh"],
        em["emissions"],
    )
    for name, tco2e in em["strategies"].items():
        if name in out["strategies"]:
            out["strategies"][name]["emissions_tco2e"] = tco2e
    out["carbon_price"] = em["carbon_price"]  # the project's carbon price and what it charges (None without one)
    return out


def _runner_up_json(r: dict) -> dict:
    costed = r["plan_cost"] is not None
    return {
        "offer": r["offer"],
        "plan_cost": _r(r["plan_cost"]),
        "vs_chosen": _r(r["vs_chosen"]),
        "status": r["status"] or None,
        "costed_on": r["offer"] if costed else None,
        "note": r["note"] or None,
        "basis": "whole plan re-solved with the workload on this offer",
        "why": r["why"],
        "reason": r["reason"],
        "vs_chosen_by_category": {c: _r(r[f"diff_{c}"]) for c in CATEGORIES} if costed else None,
    }


def _line_item(i) -> dict:
    return {
        "category": i.category,
        "item": i.item,
        "offer": i.ref,
        "nodes": i.nodes,
        "quantity": i.quantity,
        "quantity_unit": i.quantity_unit,
        "unit_price": i.unit_price,
        "price_unit": i.price_unit,
        "rate": i.rate,
        "rate_unit": i.rate_unit,
        "amount": _r(i.amount),
        "how": i.how,
    }


def _cash_flow(result: Result) -> list[dict]:
    """The Cash flow sheet: one row per project month, each cost category, total, cumulative, discount factor."""

    p, plan = result.project, result.planned()
    totals = plan.ledger.by_month()
    cum = plan.ledger.cumulative()
    df = plan.ledger.discount_factors
    return [
        {
            "month": m + 1,
            "month_start": tables.month_start(p, m).isoformat(),
            **{c: _r(plan.flows.get(c, {}).get(m, 0.0)) for c in CATEGORIES},
            "total": _r(totals[m]),
            "cumulative": _r(cum[m]),
            "discount_factor": round(df[m], 8),
        }
        for m in range(p.horizon_months)
    ]


def _option(r: dict) -> dict:
    return {
        "workload": r["workload"],
        "offer": r["offer"],
        "mode": r["mode"],
        "nodes": r["nodes"],
        "gpus": r["gpus"],
        "strategy": r["strategy"],
        "days": _r(r["days"], 3),
        "hours": _r(r["hours"], 3),
        "standalone_cost": _r(r["standalone_cost"]),
        "vs_chosen": _r(r["vs_chosen"]),
        "chosen": r["chosen"],
    }


def _assumptions(result: Result, inputs) -> list[dict]:
    """The Assumptions sheet's entries; the JSON is deterministic, so without the run's clock and solve seconds."""
    import datetime as dt

    out = []
    for title, cols, rows in assumption_rows.assumption_sections(result, inputs, dt.datetime.now()):
        for r in rows:
            if r[0] == "run at":
                continue
            detail = {
                c: _plain(v) for c, v in zip(cols[2:], r[2:], strict=False) if v not in (None, "") and c != "seconds"
            }
            value = _plain(r[1]) if len(r) > 1 else None
            out.append({"section": title, "item": _plain(r[0]), "value": value, "detail": detail})
    return out


def workbook_extras(result: Result, inputs=()) -> dict:
    """What the workbook shows beyond the plan's figures above: the headline and the set-aside jobs,
    the recommendation sentence, the break-even month and the notes (Summary), every line item (Costs),
    the month-by-month cash flow (Cash flow), every feasible shape (Options), and the Assumptions."""
    plan = result.plan
    month, be_text = tables.break_even(result)
    out: dict = {
        "headline": set_aside_headline(result) or None,
        "set_aside": [{k: v for k, v in r.items() if k != "cause_text"} for r in set_aside_rows(result)],
        "recommendation": recommendation(result),
        "break_even_month": None if month is None else month + 1,
        "break_even_text": be_text or None,
        "stale_prices_text": stale_text(result) or None,
        "line_items": [],
        "cash_flow": [],
        "options": [_option(r) for r in tables.option_rows(result)],
        "assumptions": _assumptions(result, inputs),
    }
    if plan is not None:
        out["line_items"] = [_line_item(i) for i in lines.line_items(result)]
        out["cash_flow"] = _cash_flow(result)
        out["_assignment_extras"] = [
            {
                "vendor": a.vendor,
                "strategy": row["strategy"],
                "slack_days": _r(a.slack_days, 3),
                "efficiency": a.efficiency,
                "per_gpu_memory_gb": _r(a.per_gpu_memory_gb, 3),
            }
            for a, row in zip(plan.assignments, tables.plan_rows(result), strict=True)
        ]
    return out


def _plain(v):
    """A JSON value: dates as ISO 8601, everything else as is (numbers, text)."""
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return v if isinstance(v, (int, float, str, bool)) or v is None else str(v)
