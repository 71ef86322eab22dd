"""The analysis as JSON (a contract other tools read; ``procure analyze --json``):

base{status, total_cost, npv_cost, modes}
break_even[]{offer, kind, mode, field, current, break_even, change_pct, currency, reporting_current,
             reporting_break_even, reason}
    (break_even null when no price in [0, current] wins; a strategy's current is 1.0 = today's price level;
    an offer's current and break_even are as quoted, in ``currency``, and reporting_* are the same converted
    into the reporting currency at fx_rates; null for a strategy or a driver)
sensitivity[]{driver, low_value, high_value, low_tco, high_tco, low_modes, high_modes, flips, low_reoptimized,
              high_reoptimized, low_optimum, high_optimum, low_optimum_modes, high_optimum_modes,
              low_decision_changes, high_decision_changes, reach, low_after_tax_npv, high_after_tax_npv}
    (low_tco/high_tco: today's plan re-costed at the end; low_optimum/high_optimum: the free strategy re-optimized
    there, on the objective minimized; decision_changes: the optimum there is cheaper than today's plan, or today's
    plan does not run there; flips: where it changes, the winning plan uses other modes; reach: what the driver
    can move in these inputs: objective (the figure minimized), after_tax (only the after-tax NPV: a tax driver on a
    pre-tax objective), pnl (only the P&L: the book depreciation life) or nothing; low/high_after_tax_npv: today's
    plan's after-tax NPV at the end, null without the project's tax section)
uncertainty{..., value_of_waiting_missing}  (why the value of waiting was not computed, or null)
uncertainty{scenarios, failed, strategies{hybrid|buy|rent|cloud}{p10, p50, p90, win_probability, plans},
            regret{mean, p90, scenarios, decided_infeasible}, failures[]{scenario, strategy, reason}}
runs{seconds{...}, solves{...}, solved_by{analysis{lp, reference, kept}}, workers}
    (solved_by: each analysis' answers by the path that gave them: the LP alone, the reference MILP, or
    today's plan kept because provably unchanged)
"""

from __future__ import annotations

from procure.solver.enums import STRATEGIES


def _r(x, nd: int = 2):
    return None if x is None else round(float(x), nd)


def analysis_to_json(a) -> dict:
    base = a.base
    out: dict = {
        "currency": base.project.currency,
        "objective": a.inputs.objective,
        "base": {
            "status": str(base.status),
            "total_cost": _r(base.plan.total_cost) if base.plan else None,
            "npv_cost": _r(base.plan.npv_cost) if base.plan else None,
            "modes": sorted(base.plan.modes()) if base.plan else [],
        },
    }
    if getattr(a, "skipped", None):  # analyses the time limit left no time for (solve --analyze --time-limit)
        out["skipped"] = list(a.skipped)
    if a.break_even is not None:
        out["break_even"] = [
            {
                "offer": b.subject,
                "kind": b.kind,
                "mode": str(b.mode),
                "field": b.field,
                "current": _r(b.current, 4),
                "break_even": _r(b.break_even, 4),
                "change_pct": _r(b.change_pct, 2),
                "currency": (b.currency or None) if b.kind == "offer" else None,
                "reporting_current": _r(b.reporting(b.current)) if b.kind == "offer" else None,
                "reporting_break_even": _r(b.reporting(b.break_even)) if b.kind == "offer" else None,
                "reason": b.reason,
            }
            for b in a.break_even
        ]
    if a.sensitivity is not None:
        out["sensitivity"] = [
            {
                "driver": b.driver,
                "low_value": b.low_value,
                "high_value": b.high_value,
                "low_tco": _r(b.tco("low")),
                "high_tco": _r(b.tco("high")),
                "low_modes": list(b.modes("low")) if b.modes("low") is not None else None,
                "high_modes": list(b.modes("high")) if b.modes("high") is not None else None,
                "flips": b.flips,
                "low_reoptimized": b.reoptimized("low"),
                "high_reoptimized": b.reoptimized("high"),
                # the free strategy re-optimized at each end: whether today's decision is still the cheapest
                "low_optimum": _r(b.optimum("low")),
                "high_optimum": _r(b.optimum("high")),
                "low_optimum_modes": list(m) if (m := b.optimum_modes("low")) is not None else None,
                "high_optimum_modes": list(m) if (m := b.optimum_modes("high")) is not None else None,
                "low_decision_changes": b.changes("low"),
                "high_decision_changes": b.changes("high"),
                "reach": b.reach,
                "low_after_tax_npv": _r(b.after_tax("low")),
                "high_after_tax_npv": _r(b.after_tax("high")),
            }
            for b in a.sensitivity
        ]
    if a.summary is not None:
        s = a.summary
        out["uncertainty"] = {
            # policy / recourse: the committed plan's cost ("here and now"); hindsight: re-optimized optima
            "mode": s.mode,
            "figures": "committed plan" if s.committed else "hindsight optimum",
            "gap": s.gap,
            "scenarios": s.scenarios,
            "failed": s.failed,
            "strategies": {k: _strategy_json(s, v) for k, v in s.strategies.items() if k in STRATEGIES},
            "regret": {
                "mean": _r(s.regret_mean),
                "p90": _r(s.regret_p90),
                "scenarios": s.regret_scenarios,
                "decided_infeasible": s.decided_infeasible,
            },
            "failures": [{"scenario": sc, "strategy": st, "reason": why} for sc, st, why in s.failures],
            "failures_total": s.failures_total,
            "value_of_waiting_missing": s.bounds_missing,
        }
    out["runs"] = {
        "seconds": {k: _r(v, 3) for k, v in a.seconds.items()},
        "solves": dict(a.solves),
        "solved_by": {k: dict(v) for k, v in getattr(a, "solved_by", {}).items()},
        "workers": a.workers,
    }
    return out


def _strategy_json(s, v: dict) -> dict:
    """One strategy's Monte Carlo figures; a committed plan's also say how often it needed recourse, how likely it
    is to cost less than each other strategy's, and the value of waiting as an interval (labelled)."""
    out = {
        "p10": _r(v["p10"]),
        "p50": _r(v["p50"]),
        "p90": _r(v["p90"]),
        "win_probability": _r(v["win_probability"], 4),
        "plans": v["plans"],
        "solved_by": dict(v.get("solved_by", {})),
    }
    if s.committed:
        w = v.get("value_of_waiting")
        out.update(
            {
                "runs_as_decided_probability": _r(v.get("runs_as_decided"), 4),
                "recourse_share": _r(v.get("recourse_share"), 4),
                "recourse_scenarios": v.get("recourse_scenarios", 0),
                "recourse_mean_cost": _r(v.get("recourse_mean")),
                "recourse_mean_above_today": _r(v.get("recourse_extra")),
                "cheaper_than": {str(k): _r(p, 4) for k, p in (v.get("cheaper") or {}).items()},
                "value_of_waiting": None
                if not w
                else {
                    "low": _r(w["low"]),
                    "high": _r(w["high"]),
                    "scenarios": w["scenarios"],
                    "label": "value of waiting: what knowing each scenario in advance would save on average (the "
                    "committed plan's mean cost less the mean cost of the best plan in hindsight), bracketed per "
                    "scenario by its LP relaxation and the best plan known",
                },
            }
        )
    return out
