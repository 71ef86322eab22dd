"""Where the CPU time of one analysis re-solve goes, stage by stage.

Monte Carlo scenarios of ``examples/programme-12-months.yaml`` (as ``procure analyze`` draws them), each
strategy re-solved the way the analysis does it — options, model build, solve, extraction, costing and
verification — with the stages timed in CPU milliseconds (this process and its solver children)::

    python -m bench.solve_breakdown [--scenarios 10] [--solver highs|cbc] [--path reference|fast|both] [--reduced]

It prints the mean CPU ms per solve of each stage and the total. ``--path fast`` times the analysis' own
re-solve instead (``analysis/fast.py``): options, model build, the export to arrays, the LP in HiGHS, the
reduced MILP where the LP is fractional, extraction and checks, and the reference re-solve
(``planner.run_strategy``) of what the fast path could not prove; then how many each path answered.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path


def programme_context():
    """(project, base result, analysis context) of ``examples/programme-12-months.yaml`` on the bundled catalog:
    today's plan of every strategy, as ``procure analyze`` starts from it."""
    from procure.analysis.engine import Context
    from procure.analysis.scenario import Baseline
    from procure.models.project import load_project
    from procure.offers.catalog import load_catalog
    from procure.solver.planner import Resizer, plan_from_sizings
    from procure.solver.sizing import size_project

    project, _ = load_project(Path(__file__).resolve().parent.parent / "examples" / "programme-12-months.yaml")
    offer_list = load_catalog().offers
    sizings = size_project(project, offer_list)
    resize = Resizer(project)
    base = plan_from_sizings(project, offer_list, sizings, resize, compare=True, n_runner_ups=0)
    return project, base, Context.of(Baseline(project, list(offer_list), sizings, resize), base)


def cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv=None) -> int:
    from procure.analysis import montecarlo as mc
    from procure.analysis.recost import decided_under
    from procure.solver.enums import SolveStatus
    from procure.solver.milp import Builder, extract, solve
    from procure.solver.options import build_options
    from procure.solver.plan import build_plan
    from procure.solver.verify import verify_plan

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenarios", type=int, default=10)
    ap.add_argument("--solver", default="highs")
    ap.add_argument("--path", default="reference", choices=["reference", "fast", "both"])
    ap.add_argument("--reduced", action="store_true", help="fast path: a fractional LP fixes columns, CBC the rest")
    args = ap.parse_args(argv)
    project, base, ctx = programme_context()
    if args.path in ("fast", "both"):
        fast_breakdown(project, ctx, args.scenarios, args.reduced)
    if args.path == "fast":
        return 0
    stages = {
        "options": 0.0,
        "warm start (re-costed base plan)": 0.0,
        "model build": 0.0,
        "solve": 0.0,
        "extract, cost, verify": 0.0,
    }
    solves = 0
    t0 = time.perf_counter()
    for s in mc.draw(project.analysis, args.scenarios):
        a = ctx.inputs.apply(s)
        for name, plan in ctx.base_plans.items():
            if plan is None or base.strategies[name].status == SolveStatus.EXCLUDED:
                continue
            c = cpu()
            options, _rej, _every = build_options(a.project, a.offers, a.sizings, ctx.modes[name])
            stages["options"] += cpu() - c
            if any(not opts for opts in options.values()):
                continue
            c = cpu()
            warm, _broken = decided_under(plan, a, s.hours_factor, ctx.modes[name])
            stages["warm start (re-costed base plan)"] += cpu() - c
            c = cpu()
            model = Builder(a.project, options, a.offers, warm_start=warm).build()
            stages["model build"] += cpu() - c
            c = cpu()
            info = solve(model, args.solver, None, 1e-6)
            stages["solve"] += cpu() - c
            c = cpu()
            if info.status.has_plan:
                decisions, purchases, contracts = extract(model, a.project, a.offers)
                verify_plan(
                    a.project,
                    a.offers,
                    build_plan(a.project, a.offers, decisions, purchases, contracts),
                    a.resize,
                    ctx.modes[name],
                )
            stages["extract, cost, verify"] += cpu() - c
            solves += 1
    wall = time.perf_counter() - t0
    print(f"{solves} re-solves ({args.scenarios} scenarios), solver {args.solver}, {wall:.1f} s wall")
    for k, v in stages.items():
        print(f"  {k:34} {1000 * v / max(solves, 1):7.0f} CPU ms per solve")
    print(f"  {'total':34} {1000 * sum(stages.values()) / max(solves, 1):7.0f} CPU ms per solve")
    return 0


def fast_breakdown(project, ctx, scenarios: int, reduced: bool = False) -> None:
    """The analysis' re-solve (``engine.solve_strategy``: LP first, reduced MILP, reference) by stage."""
    from procure.analysis import engine, fast, montecarlo as mc
    from procure.analysis.recost import decided_under
    from procure.solver.enums import SolveStatus, Strategy

    stages = dict.fromkeys(["options", "model build", "export to arrays", "LP (HiGHS)", "reduced MILP (CBC)"], 0.0)
    stages["extract, cost, verify"] = stages["reference re-solve (fallback)"] = 0.0
    paths: dict[str, int] = {}
    solves = 0
    t0 = time.perf_counter()
    for s in mc.draw(project.analysis, scenarios):
        a = ctx.inputs.apply(s)
        for name, plan in ctx.base_plans.items():
            if plan is None or ctx.statuses.get(name) == SolveStatus.EXCLUDED:
                continue
            warm = decided_under(plan, a, s.hours_factor, ctx.modes[name])[0]
            fig: dict = {}
            c = cpu()
            got = fast.lp_first(
                a.project,
                a.offers,
                a.sizings,
                Strategy(name),
                ctx.modes[name],
                resize=a.resize,
                objective=ctx.inputs.objective,
                gap=ctx.inputs.gap,
                warm=warm,
                reduced=reduced,
                figures=fig,
            )
            spent = cpu() - c
            # the figures are wall seconds of this process; the reduced MILP's CBC child is CPU of its own
            parts = {
                "options": fig.get("options_s", 0.0),
                "model build": fig.get("build_s", 0.0),
                "export to arrays": fig.get("export_s", 0.0),
                "LP (HiGHS)": fig.get("lp_s", 0.0),
                "extract, cost, verify": fig.get("check_s", 0.0),
            }
            for k, v in parts.items():
                stages[k] += v
            stages["reduced MILP (CBC)"] += max(0.0, spent - sum(parts.values())) if "mip_s" in fig else 0.0
            path = got[1] if got is not None else fast.REFERENCE
            if got is None:
                c = cpu()
                engine._reference(ctx, a, name, warm)
                stages["reference re-solve (fallback)"] += cpu() - c
            paths[path] = paths.get(path, 0) + 1
            solves += 1
    wall = time.perf_counter() - t0
    print(f"fast path: {solves} re-solves ({scenarios} scenarios), {wall:.1f} s wall")
    for k, v in stages.items():
        print(f"  {k:34} {1000 * v / max(solves, 1):7.0f} CPU ms per solve")
    print(f"  {'total':34} {1000 * sum(stages.values()) / max(solves, 1):7.0f} CPU ms per solve")
    print("  answered by: " + ", ".join(f"{k} {n} ({100 * n / max(solves, 1):.0f}%)" for k, n in sorted(paths.items())))


if __name__ == "__main__":
    raise SystemExit(main())
