"""What thinning the daily model's start columns costs in optimality (options.thin_starts).

The daily programme of bench/daily.py (38 jobs, 3 years, ``period_days: 1``), one strategy (default rent
only, the hardest), on the bundled catalog:

- the full grid's and the thinned model's columns and rows, and their LP relaxations (HiGHS, in process,
  CPU seconds): the full LP is a lower bound on every plan of the daily grid;
- the thinned model solved by CBC within ``--seconds`` wall (greedy warm start, contracts behind the gate),
  its plan verified: its cost against the full LP bound is at most what thinning (and the time limit) cost.

    python -m bench.daily_thin [--modes rent] [--seconds 60]
"""

from __future__ import annotations

import argparse
import os

from bench.solve_breakdown import cpu


def lp_value(model) -> tuple[float, float]:
    """(LP relaxation's optimum, CPU s) of the model, every column continuous."""
    import highspy

    from procure.solver.milp.inprocess import _arrays, highs_lp

    c = cpu()
    lp = highs_lp(_arrays(model))
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.passModel(lp)
    h.run()
    return float(h.getInfo().objective_function_value) + model.offset, cpu() - c


def main(argv=None) -> int:
    from bench.daily import programme
    from procure.solver.greedy import greedy_plan
    from procure.solver.milp import Builder, extract, solve
    from procure.solver.milp.gate import GateReport, integral_contracts
    from procure.solver.options import build_options, thin_starts
    from procure.solver.plan import build_plan
    from procure.solver.planner import Resizer, _starts_of
    from procure.solver.sizing import size_project
    from procure.solver.verify import verify_plan

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--modes", default="rent")
    ap.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args(argv)
    modes = tuple(args.modes.split(","))
    project, offers = programme(1)
    by_id = {o.id: o for o in offers}
    sizings = size_project(project, offers)
    options, _rej, _every = build_options(project, by_id, sizings, modes)
    warm = greedy_plan(project, by_id, options)
    thinned = thin_starts(project, options, _starts_of(warm, project))
    print(f"daily programme, modes {modes}; load average {os.getloadavg()[0]:.1f}")
    print(f"greedy plan: {warm.total_cost:,.0f}" if warm else "greedy plan: none")
    models = {}
    for label, opts in (("full grid", options), ("thinned", thinned)):
        c = cpu()
        builder = Builder(project, opts, by_id, warm_start=warm, contracts_integer=False)
        model = builder.build()
        build = cpu() - c
        value, lp_s = lp_value(model)
        models[label] = (builder, model, value)
        starts = sum(len(o.starts) for os_ in opts.values() for o in os_)
        print(
            f"{label}: {starts:,} starts, {len(model.columns):,} columns × {len(model.prob.constraints):,} rows; "
            f"build {build:.1f} CPU s; LP {value:,.0f} in {lp_s:.1f} CPU s",
            flush=True,
        )
    builder, model, thin_lp = models["thinned"]
    full_lp = models["full grid"][2]
    c = cpu()
    info = solve(model, "cbc", args.seconds, 1e-6)
    report = GateReport()
    info = integral_contracts(builder, model, info, "cbc", 1e-6, report=report)
    spent = cpu() - c
    if not info.status.has_plan:
        print(f"thinned MILP: {info.status} in {spent:.1f} CPU s ({args.seconds:g} s wall limit)")
        return 0
    decisions, purchases, contracts = extract(model, project, by_id)
    plan = build_plan(project, by_id, decisions, purchases, contracts)
    verify_plan(project, by_id, plan, Resizer(project), modes)
    cost = plan.total_cost
    print(
        f"thinned MILP ({args.seconds:g} s wall, {spent:.1f} CPU s, gate {report.path}, {report.fractional} fractional): "
        f"{info.status}, plan {cost:,.0f} verified; its own bound {info.bound or float('nan'):,.0f}"
    )
    print(
        f"plan vs the full grid's LP bound: +{100 * (cost - full_lp) / cost:.2f}% (at most what thinning and the "
        f"limit cost); thinned LP vs full LP: +{100 * (thin_lp - full_lp) / max(full_lp, 1e-9):.2f}%"
    )
    if warm:
        print(f"greedy plan vs the full grid's LP bound: +{100 * (warm.total_cost - full_lp) / warm.total_cost:.2f}%")
    print(f"load average at end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
