"""The plan as JSON — a contract other tools read (field names documented in the README)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procure.solver.result import Result

from procure.solver.costs import CATEGORIES
from procure.solver.sizing.band import hours_band

from .headline import comparisons, peaks, spot_risk, stale_offers
from .tables import rounded

_r = rounded


def result_to_json(result: Result) -> dict:
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
        "rentals": [],
        "assignments": [],
        "pnl": [],
        "strategies": {},
        "rejected": [{"workload": r.workload, "offer": r.offer_id, "reason": r.reason, "rule": str(r.rule)} for r in result.rejections],
        "infeasible": h.reasons,
        "solver": {
            "name": info.name if info else None,
            "status": info.status if info else h.status,
            "seconds": _r(info.seconds, 3) if info else None,
            "gap": info.gap if info else None,
            "heuristic": bool(info and info.heuristic),
        },
    }
    if plan:
        out["purchases"] = [{"offer": x.offer_id, "nodes": x.nodes, "price_per_node": _r(x.price_per_node), "cost": _r(x.cost)} for x in plan.purchases]
        out["rentals"] = [{"offer": r.offer_id, "nodes": r.nodes, "start_day": _r(r.start_day, 3), "months": r.months,
                           "term_months": r.term_months if r.term_months is not None else result.offers[r.offer_id].min_term,
                           "price_per_node_month": _r(r.price_per_node_month), "cost": _r(r.cost)} for r in plan.rentals]
        out["pnl"] = [{"year": y.year, "depreciation": _r(y.depreciation), "operating": _r(y.operating), "interest": _r(y.interest),
                       "disposal_gain": _r(y.disposal_gain)} for y in plan.pnl]
        out["assignments"] = [
            {
                "workload": a.workload, "offer": a.offer_id, "mode": a.mode, "gpu": a.gpu, "nodes": a.nodes, "gpus": a.gpus,
                "start_day": _r(a.start_day, 3), "end_day": _r(a.end_day, 3), "deadline_day": a.deadline_day,
                "hours": _r(a.hours, 3), "hours_p10": _r(hours_band(a.hours)[0], 3), "hours_p90": _r(hours_band(a.hours)[1], 3),
                "gpu_hours": _r(a.gpu_hours, 3), "cost": _r(a.cost),
            }
            for a in plan.assignments
        ]
    for c in comparisons(result):
        s = result.strategies[c.name]
        out["strategies"][c.name] = {
            "status": s.status, "total_cost": _r(s.total_cost), "npv_cost": _r(s.plan.npv_cost) if s.plan else None,
            "gap": s.solve.gap if s.solve else None, "vs_recommended": _r(c.diff), "bound": c.bound or None,
            "note": "excluded by you (allowed_modes)" if s.status == "excluded" else None,
        }
    out["peak_nodes"] = [{"offer": pk.offer_id, "mode": pk.mode, "spot": pk.spot, "peak_nodes": pk.peak_nodes, "used": _r(pk.amount, 3),
                          "used_unit": pk.amount_unit} for pk in peaks(result)]
    risk = spot_risk(result)
    out["spot_fallback"] = None if risk is None else {"offers": risk.offers, "status": risk.fallback_status, "cost": _r(risk.fallback_cost),
                                                      "total_cost": _r(risk.fallback_tco), "extra": _r(risk.extra)}
    out["stale_offers"] = [{"offer": s.offer_id, "quoted_on": s.quoted_on.isoformat(), "days_before_start": s.days_before_start}
                           for s in stale_offers(result)]
    out["runner_ups"] = {w: [{"offer": r.option.offer_id, "plan_cost": _r(r.plan_cost), "vs_chosen": _r(r.extra_cost), "status": r.status,
                              "costed_on": r.assignment.offer_id if r.solved and r.assignment else None, "note": r.note,
                              "basis": "whole plan re-solved with the workload on this offer"} for r in ups]
                         for w, ups in result.runner_ups.items()}
    return out
