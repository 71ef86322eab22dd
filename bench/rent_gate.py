"""The rent re-solve before and after the contracts' integrality gate, paired on the same models.

Monte Carlo scenarios of ``examples/programme-12-months.yaml`` (``analysis.montecarlo.draw`` of the
programme's analysis settings, as ``procure analyze --monte-carlo 200`` draws them), the rent-only strategy
re-solved from today's plan re-costed under the scenario (the analysis' warm start). Each model is solved
by CBC with procure's options, alternating in one run (A/B/A/B…, ``--rounds`` times):

- ``integer``: S/E/T integer, the landed formulation;
- ``gate``: S/E/T continuous, then ``milp/gate.py`` (x-fixed rental LP, else S/E/T integer).

It prints, per scenario, the CPU seconds (this process and its CBC children: model build and solve) of
each variant's round, their optima (equal to 1e-6, or the row says so), the gate's path and the load::

    python -m bench.rent_gate [--scenarios 0,1,2,4,5,6] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from bench.solve_breakdown import cpu, programme_context

VARIANTS = ("integer", "gate")


def solve_variant(ctx, a, warm_plan, variant: str):
    """(CPU s, objective, gate path) of one rent re-solve of scenario inputs ``a``."""
    from procure.solver.milp import Builder, solve
    from procure.solver.milp.gate import GateReport, integral_contracts
    from procure.solver.options import build_options

    options, _rej, _every = build_options(a.project, a.offers, a.sizings, ("rent",))
    c = cpu()
    builder = Builder(a.project, options, a.offers, warm_start=warm_plan, contracts_integer=variant == "integer")
    model = builder.build()
    info = solve(model, "cbc", None, 1e-6)
    report = GateReport()
    if variant != "integer":
        info = integral_contracts(builder, model, info, "cbc", 1e-6, report=report)
    spent = cpu() - c
    path = "-" if variant == "integer" else f"{report.path} ({report.fractional} frac.)"
    return spent, info.objective, path, len(model.columns), len(model.prob.constraints)


def main(argv=None) -> int:
    from procure.analysis import montecarlo as mc
    from procure.analysis.recost import decided_under

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenarios", default="0,1,2,4,5,6", help="indices into the 200-scenario draw")
    ap.add_argument("--draw", type=int, default=200, help="scenarios drawn (a scenario depends on this count)")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    variants = VARIANTS
    project, _base, ctx = programme_context()
    drawn = mc.draw(project.analysis, args.draw)
    plan = ctx.base_plans["rent"]
    print(f"load average at start: {os.getloadavg()[0]:.1f}; CPU s per rent re-solve (build + CBC + gate)")
    print(f"| j | cols × rows | {' | '.join(variants)} | optima | gate path |")
    print("|---:|---|" + "---:|" * len(variants) + "---|---|")
    per: dict[str, list[float]] = {v: [] for v in variants}
    ratios = []
    t0 = time.perf_counter()
    for j in (int(x) for x in args.scenarios.split(",")):
        s = drawn[j]
        a = ctx.inputs.apply(s)
        warm = decided_under(plan, a, s.hours_factor, ctx.modes["rent"])[0]
        runs: dict[str, list[float]] = {v: [] for v in variants}
        objs: dict[str, float | None] = {}
        paths = set()
        size = ""
        for _ in range(args.rounds):
            for v in variants:
                spent, obj, path, cols, rows = solve_variant(ctx, a, warm, v)
                runs[v].append(spent)
                objs[v] = obj
                size = f"{cols:,} × {rows:,}"
                if v != "integer":
                    paths.add(f"{v}: {path}")
        med = {v: statistics.median(runs[v]) for v in variants}
        for v in variants:
            per[v].append(med[v])
        ratios.append(med["integer"] / max(med["gate"], 1e-9))
        ref = objs["integer"]
        same = all(
            o is not None and ref is not None and abs(o - ref) <= 1e-6 * max(1.0, abs(ref)) for o in objs.values()
        )
        cells = " | ".join("/".join(f"{x:.2f}" for x in runs[v]) for v in variants)
        optimum = f"{ref:,.2f} equal" if same else "DIFFER " + ", ".join(f"{k} {o}" for k, o in objs.items())
        print(f"| {j} | {size} | {cells} | {optimum} | {'; '.join(sorted(paths))} |", flush=True)
    wall = time.perf_counter() - t0
    sums = ", ".join(f"{v} {sum(per[v]):.1f}" for v in variants)
    print(f"sum of per-model medians, CPU s: {sums}; integer/gate per model: median ×{statistics.median(ratios):.2f}")
    print(
        f"range ×{min(ratios):.2f}–×{max(ratios):.2f}; {wall:.0f} s wall; load average at end {os.getloadavg()[0]:.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
