"""Analysis benchmark: the tornado, break-even prices and the Monte Carlo study on the 12-month
programme example, with 1 and with N worker processes.

    python -m bench.analysis [--workers 1,2] [--scenarios 200] [--parts tornado,break-even,monte-carlo]
                             [--solver cbc] [--json FILE] [--reference]

Per part and worker count: wall seconds, CPU seconds (this process, its workers and their CBC
processes), MILP solves, solves per second, the answers by path (LP alone, reference MILP, kept;
``--reference``: every re-solve on the reference path, as before the LP-first path); then the speedup of the largest worker count over one
worker. The base plan and sizing are computed once and shared. On a shared machine the wall time
grows with the other load; CPU seconds ÷ cores is what the same run needs on an idle machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "programme-12-months.yaml"
GOALS = {"tornado": 5.0, "break-even": 10.0, "monte-carlo": 30.0}  # seconds, 2 cores (issue 33)


def cpu_seconds() -> float:
    """User + system CPU of this process and of every child it has waited for (workers, CBC)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def run(parts: list[str], workers: list[int], scenarios: int, solver: str, fast: bool = True) -> list[dict]:
    from procure.analysis import analyze
    from procure.models.project import load_project
    from procure.offers.catalog import load_catalog
    from procure.solver.planner import Resizer, plan_from_sizings
    from procure.solver.sizing import size_project

    project, _ = load_project(EXAMPLE)
    offers = load_catalog(None).offers
    sizings = size_project(project, offers)
    base = plan_from_sizings(project, offers, sizings, Resizer(project), solver=solver, n_runner_ups=0)
    rows = []
    for n in workers:
        for part in parts:
            t0, c0 = time.perf_counter(), cpu_seconds()
            a = analyze(
                project,
                offers,
                sizings=sizings,
                base=base,
                solver=solver,
                workers=n,
                break_even=part == "break-even",
                sensitivity=part == "tornado",
                monte_carlo=scenarios if part == "monte-carlo" else None,
                fast=fast,
            )
            wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
            key = {"tornado": "sensitivity", "break-even": "break_even", "monte-carlo": "monte_carlo"}[part]
            solves = a.solves.get(key, 0)
            paths = a.solved_by.get(key, {})
            rows.append(
                dict(
                    part=part,
                    workers=n,
                    seconds=round(wall, 2),
                    cpu_seconds=round(cpu, 2),
                    solves=solves,
                    solves_per_s=round(solves / wall, 2),
                    goal_s=GOALS[part],
                    load=round(os.getloadavg()[0], 1),
                    solved_by=paths,
                )
            )
            print(
                f"{part:12s} workers={n}  {wall:7.1f} s wall  {cpu:7.1f} s CPU  {solves:5d} solves  {solves / wall:6.2f} solves/s"
                f"  (goal ≤ {GOALS[part]:.0f} s; load {os.getloadavg()[0]:.1f})  answered by {paths}",
                flush=True,
            )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--scenarios", type=int, default=200)
    ap.add_argument("--parts", default="tornado,break-even,monte-carlo")
    ap.add_argument("--solver", default="cbc")
    ap.add_argument("--json")
    ap.add_argument("--reference", action="store_true", help="every re-solve on the reference path (no LP first)")
    args = ap.parse_args()
    workers = [int(x) for x in args.workers.split(",")]
    parts = args.parts.split(",")
    print(f"{EXAMPLE.name}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, solver {args.solver}")
    rows = run(parts, workers, args.scenarios, args.solver, fast=not args.reference)
    if len(workers) > 1:
        lo, hi = min(workers), max(workers)
        for part in parts:
            a = next(r for r in rows if r["part"] == part and r["workers"] == lo)
            b = next(r for r in rows if r["part"] == part and r["workers"] == hi)
            print(f"{part:12s} speedup of {hi} workers over {lo}: ×{a['seconds'] / b['seconds']:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
