"""Contracts as signed on the daily programme: model size and build time, and what each strategy reaches.

Prints, for the daily programme (``bench/daily.py``) and each strategy named: the columns and rows of its model,
the build seconds (CPU seconds beside wall), the root LP bound (HiGHS, every column continuous, when installed)
and the verified plan that ``run_strategy`` reaches within ``--time-limit``, with its proven gap::

    python -m bench.contracts [--period-days 1] [--time-limit 60] [--modes rent] [--modes buy,rent,cloud]
"""

from __future__ import annotations

import argparse
import os
import time

import pulp

from procure.common.runtime import Budget
from procure.solver import planner
from procure.solver.enums import Strategy
from procure.solver.greedy import greedy_plan
from procure.solver.milp import Builder
from procure.solver.options import build_options
from procure.solver.sizing import size_project

from .daily import programme


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def lp_bound(model) -> float | None:
    """The LP optimum of ``model`` with every column continuous (HiGHS; None where it is not installed)."""
    try:
        solver = pulp.HiGHS(msg=False)
        if not solver.available():
            return None
    except Exception:
        return None
    for v in model.prob.variables():
        v.cat = pulp.LpContinuous
    model.prob.solve(solver)
    return pulp.value(model.prob.objective)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--period-days", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--modes", action="append", help="comma-separated modes, once per strategy (default: rent)")
    args = ap.parse_args(argv)
    base, offer_list = programme(args.period_days)
    offers = {o.id: o for o in offer_list}
    sizings = size_project(base, offer_list)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for spec in args.modes or ["rent"]:
        modes = tuple(m.strip() for m in spec.split(","))
        project = base.model_copy(update={"allowed_modes": list(modes)})
        options, _rej, _every = build_options(project, offers, sizings, modes)
        wall, cpu = time.perf_counter(), _cpu()
        model = Builder(project, options, offers, warm_start=greedy_plan(project, offers, options)).build()
        wall, cpu = time.perf_counter() - wall, _cpu() - cpu
        bound = lp_bound(model)
        res = planner.run_strategy(
            project,
            offers,
            sizings,
            Strategy.HYBRID,
            modes,
            resize=planner.Resizer(project),
            solver="cbc",
            gap=1e-6,
            objective="tco",
            budget=Budget(args.time_limit),
        )
        got = res.plan.total_cost if res.plan is not None else None
        gap = res.solve.gap if res.solve is not None else None
        print(
            f"{'+'.join(modes):>16}: {len(model.columns):,} columns, {len(model.prob.constraints):,} rows, "
            f"build {wall:.1f} s wall / {cpu:.1f} s CPU; root LP {bound if bound is None else f'{bound:,.0f}'}; "
            f"in {args.time_limit:g} s: {res.status.value} "
            f"{got if got is None else f'{got:,.0f}'} (gap {'—' if gap is None else f'{gap:.2%}'})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
