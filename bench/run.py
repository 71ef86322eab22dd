"""Planner benchmark: build and solve seeded random instances of sizes S, M, L, XL and print a table.

    python -m bench.run --sizes S,M,L,XL [--solver cbc|highs] [--json FILE] [--time-limit 120] [--gap 0.01]
    python -m bench.run --case daily|weekly|xl [--time-limit 120] [--no-reduce] [--json FILE]

``--case`` runs a whole ``procure solve`` as the command line does (one wall-clock budget for sizing
and all four strategies, hybrid first) and prints one row per strategy: model build s, solve s,
status, proven gap, TCO and the solver child's peak memory, with the whole run's wall time and the
process's peak RSS. ``daily`` is the 38-job, 3-year programme of bench/daily.py on a daily grid,
``weekly`` the same on a weekly grid, ``xl`` the XL random instance (weekly).

Per size: variables, constraints, model build seconds, solve seconds, status, proven gap, TCO, the
greedy (analyst's) TCO and the saving, and the peak resident memory of the process.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from bench.generate import SIZES, generate


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def cpu_s() -> float:
    """CPU seconds of this process and its solver children so far."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def run_one(size: str, solver: str, time_limit: float, gap: float, seed: int = 0, contracts: str = "gate") -> dict:
    """One size: ``contracts`` ``gate`` (S/E/T continuous, milp/gate.py, as the planner solves) or ``integer``."""
    from procure.solver.greedy import greedy_plan
    from procure.solver.milp import Builder, extract, solve
    from procure.solver.milp.gate import GateReport, integral_contracts
    from procure.solver.options import build_options
    from procure.solver.plan import build_plan
    from procure.solver.planner import Resizer
    from procure.solver.sizing import size_project
    from procure.solver.verify import verify_plan

    project, offers = generate(size, seed)
    by_id = {o.id: o for o in offers}
    t0 = time.perf_counter()
    sizings = size_project(project, offers)
    t1 = time.perf_counter()
    options, _rej, _every = build_options(project, by_id, sizings)
    greedy = greedy_plan(project, by_id, options)
    builder = Builder(project, options, by_id, warm_start=greedy, contracts_integer=contracts == "integer")
    model = builder.build()
    t2 = time.perf_counter()
    c2 = cpu_s()
    info = solve(model, solver, time_limit, gap)
    report = GateReport()
    info = integral_contracts(builder, model, info, solver, gap, report=report)
    solve_cpu = cpu_s() - c2
    tco = None
    if info.status.has_plan:
        decisions, purchases, signed = extract(model, project, by_id)  # ``contracts`` names the option
        plan = build_plan(project, by_id, decisions, purchases, signed)
        verify_plan(project, by_id, plan, Resizer(project))
        tco = plan.total_cost
    n_w, n_o, n_p = SIZES[size]
    return {
        "size": size,
        "workloads": n_w,
        "offers": n_o,
        "periods": n_p,
        "variables": info.variables,
        "constraints": info.constraints,
        "sizing_s": round(t1 - t0, 3),
        "build_s": round(t2 - t1, 3),
        "solve_s": round(info.seconds, 3),
        "solve_cpu_s": round(solve_cpu, 2),
        "contracts": contracts,
        "gate": f"{report.path} ({report.fractional} fractional)",
        "status": info.status,
        "gap": info.gap,
        "tco": None if tco is None else round(tco, 2),
        "greedy_tco": None if greedy is None else round(greedy.total_cost, 2),
        "saving_pct": None
        if (greedy is None or tco is None)
        else round((greedy.total_cost - tco) / greedy.total_cost * 100, 2),
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }


def children_peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0  # the largest solver child so far


def run_case(case: str, time_limit: float | None, solver: str, reduce: bool | None = None) -> dict:
    """A whole planning run within one budget, as ``procure solve`` does; a row per strategy."""
    from procure.common.runtime import Budget, guarded_run
    from procure.solver import planner

    if case in ("daily", "weekly"):
        from bench.daily import programme

        project, offers = programme(1 if case == "daily" else 7)
    else:
        project, offers = generate("XL", 0)
    rows: list[dict] = []

    class Recorder:  # the planner's progress hooks: note each strategy as it ends
        def sizing_started(self, *a):
            pass

        def strategy_started(self, *a):
            pass

        def solver_progress(self, *a):
            pass

        def strategy_done(self, s):
            info = s.solve
            rows.append(
                {
                    "strategy": str(s.name),
                    "status": str(s.status),
                    "heuristic": bool(info and info.heuristic),
                    "build_s": round(s.build_seconds, 2),
                    "solve_s": round(info.seconds, 2) if info else None,
                    "variables": info.variables if info else None,
                    "constraints": info.constraints if info else None,
                    "gap": s.gap,
                    "tco": None if s.plan is None else round(s.plan.total_cost, 2),
                    "solver_peak_rss_mb": round(children_peak_rss_mb(), 1),
                }
            )

    t0 = time.perf_counter()
    budget = Budget(time_limit)
    with guarded_run():
        planner.plan_project(project, offers, solver=solver, budget=budget, progress=Recorder(), reduce=reduce)
    wall = time.perf_counter() - t0
    return {
        "case": case,
        "workloads": len(project.workloads),
        "offers": len(offers),
        "period_days": project.period_days,
        "time_limit": time_limit,
        "wall_s": round(wall, 2),
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "strategies": rows,
    }


def print_case(console, res: dict) -> None:
    from rich.table import Table

    t = Table(
        title=f"{res['case']}: {res['workloads']} workloads × {res['offers']} offers, {res['period_days']}-day grid, "
        f"--time-limit {res['time_limit']}: {res['wall_s']:.1f} s wall, peak RSS {res['peak_rss_mb']:.0f} MB"
    )
    cols = ("strategy", "build_s", "solve_s", "variables", "constraints", "status", "gap", "tco", "solver_peak_rss_mb")
    for k in cols:
        t.add_column(k, justify="left" if k in ("strategy", "status") else "right")
    for r in res["strategies"]:
        status = r["status"] + (" (heuristic)" if r["heuristic"] else "")
        gap = "—" if r["gap"] is None else f"{r['gap']:.2%}"
        t.add_row(
            *[
                status
                if k == "status"
                else gap
                if k == "gap"
                else ("—" if r[k] is None else f"{r[k]:,}" if isinstance(r[k], (int, float)) else str(r[k]))
                for k in cols
            ]
        )
    console.print(t)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--case",
        choices=["daily", "weekly", "xl"],
        help="a whole solve of this case within --time-limit (all four strategies)",
    )
    ap.add_argument(
        "--no-reduce",
        action="store_true",
        help="with --case: build the model without the exact start/row reduction (on by default below a 7-day grid)",
    )
    ap.add_argument("--sizes", default="S,M,L,XL")
    ap.add_argument("--solver", default="cbc", choices=["cbc", "highs"])
    ap.add_argument("--json", dest="json_out")
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--gap", type=float, default=None, help="relative gap; default: 1e-6 for S/M/L, 0.01 for XL")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--contracts",
        default="gate",
        help="gate: S/E/T continuous behind milp/gate.py (as the planner solves); integer: S/E/T integer; "
        "integer,gate: both, one after the other, per size",
    )
    args = ap.parse_args(argv)
    from rich.console import Console
    from rich.table import Table

    console = Console(width=200)
    if args.case:
        res = run_case(args.case, args.time_limit or None, args.solver, reduce=False if args.no_reduce else None)
        print_case(console, res)
        if args.json_out:
            Path(args.json_out).write_text(json.dumps(res, indent=2))
        return 0
    rows = []
    for size in [s.strip().upper() for s in args.sizes.split(",") if s.strip()]:
        if size not in SIZES:
            console.print(f"unknown size {size!r}; allowed: {', '.join(SIZES)}")
            return 1
        gap = args.gap if args.gap is not None else (0.01 if size == "XL" else 1e-6)
        for contracts in args.contracts.split(","):
            row = run_one(size, args.solver, args.time_limit, gap, args.seed, contracts)
            rows.append(row)
            t = Table(
                title=f"size {size}: {row['workloads']} workloads × {row['offers']} offers × {row['periods']} periods "
                f"({args.solver}, contracts {contracts})"
            )
            for k in (
                "variables",
                "constraints",
                "sizing_s",
                "build_s",
                "solve_s",
                "solve_cpu_s",
                "gate",
                "status",
                "gap",
                "tco",
                "greedy_tco",
                "saving_pct",
                "peak_rss_mb",
            ):
                t.add_column(k, justify="right")
            fmt = lambda v: "—" if v is None else (f"{v:,.2f}" if isinstance(v, float) else str(v))  # noqa: E731
            t.add_row(
                *[
                    fmt(row[k]) if k != "gap" else ("—" if row[k] is None else f"{row[k]:.4%}")
                    for k in (
                        "variables",
                        "constraints",
                        "sizing_s",
                        "build_s",
                        "solve_s",
                        "solve_cpu_s",
                        "gate",
                        "status",
                        "gap",
                        "tco",
                        "greedy_tco",
                        "saving_pct",
                        "peak_rss_mb",
                    )
                ]
            )
            console.print(t)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
