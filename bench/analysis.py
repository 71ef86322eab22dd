"""Analysis benchmark: the tornado, break-even prices and the Monte Carlo study on the 12-month
programme example, with 1 and with N worker processes.

    python -m bench.analysis [--workers 1,2] [--scenarios 200] [--parts tornado,break-even,monte-carlo]
                             [--mode policy|recourse|hindsight] [--bounds K]
                             [--solver cbc] [--json FILE] [--reference]
    python -m bench.analysis --cli [--scenarios 200] [--workers 2]   # the whole command, as a user runs it:
        procure analyze examples/programme-12-months.yaml --break-even --sensitivity --monte-carlo N

``--mode``: what the Monte Carlo measures (procure.analysis.montecarlo): the committed plan with recourse where it
breaks (``policy``, the default), the optimal recourse everywhere, or hindsight re-optimizations. Each row also
gives the peak resident memory (the largest of this process and its workers, MB): with streamed outcomes it
stays flat as the scenarios grow.

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


def peak_rss_mb() -> float:
    """The peak resident memory of this process and of the largest child it has waited for, MB (Linux: KiB)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return max(me.ru_maxrss, kids.ru_maxrss) / 1024


def run(
    parts: list[str],
    workers: list[int],
    scenarios: int,
    solver: str,
    fast: bool = True,
    mode: str = "policy",
    bounds: int | None = None,
    example: Path = EXAMPLE,
) -> list[dict]:
    from procure.analysis import analyze
    from procure.models.project import load_project
    from procure.offers.catalog import load_catalog
    from procure.solver.planner import Resizer, plan_from_sizings
    from procure.solver.sizing import size_project

    project, _ = load_project(example)
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
                monte_carlo_mode=mode,
                bounds=bounds,
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
                    mode=mode if part == "monte-carlo" else None,
                    scenarios=scenarios if part == "monte-carlo" else None,
                    peak_rss_mb=round(peak_rss_mb(), 1),
                )
            )
            print(
                f"{part:12s} workers={n}  {wall:7.1f} s wall  {cpu:7.1f} s CPU  {solves:5d} solves  {solves / wall:6.2f} solves/s"
                f"  (goal ≤ {GOALS[part]:.0f} s; load {os.getloadavg()[0]:.1f}; peak RSS {peak_rss_mb():.0f} MB)"
                f"  answered by {paths}",
                flush=True,
            )
    return rows


def cli(scenarios: int, workers: int) -> dict:
    """The whole ``procure analyze … --break-even --sensitivity --monte-carlo N`` as a user runs it: wall and CPU
    seconds of the command and every process it starts, and the load it ran under."""
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "procure", "analyze", str(EXAMPLE), "--break-even", "--sensitivity"]
    cmd += ["--monte-carlo", str(scenarios), "--workers", str(workers)]
    load0 = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), cpu_seconds()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    timing = [line for line in done.stdout.splitlines() if "solves on" in line or " s, " in line]
    row = dict(
        command=" ".join(["procure", *cmd[3:]]).replace(str(EXAMPLE), "examples/" + EXAMPLE.name),
        exit=done.returncode,
        seconds=round(wall, 1),
        cpu_seconds=round(cpu, 1),
        load=[round(load0, 1), round(os.getloadavg()[0], 1)],
        peak_rss_mb=round(peak_rss_mb(), 1),
        timing=timing[-1] if timing else done.stderr[-400:],
    )
    print(json.dumps(row, indent=1), flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--scenarios", type=int, default=200)
    ap.add_argument("--parts", default="tornado,break-even,monte-carlo")
    ap.add_argument("--solver", default="cbc")
    ap.add_argument("--json")
    ap.add_argument("--reference", action="store_true", help="every re-solve on the reference path (no LP first)")
    ap.add_argument("--mode", default="policy", choices=("policy", "recourse", "hindsight"))
    ap.add_argument("--bounds", type=int, default=None, help="scenarios bracketed for the value of waiting")
    ap.add_argument("--cli", action="store_true", help="time the whole procure analyze command instead")
    ap.add_argument("--example", type=Path, default=EXAMPLE, help="the workload file (default: the 12-month programme)")
    args = ap.parse_args()
    if args.cli:
        row = cli(args.scenarios, int(args.workers.split(",")[-1]))
        if args.json:
            Path(args.json).write_text(json.dumps(row, indent=2))
        return
    workers = [int(x) for x in args.workers.split(",")]
    parts = args.parts.split(",")
    print(f"{args.example.name}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, solver {args.solver}")
    rows = run(parts, workers, args.scenarios, args.solver, not args.reference, args.mode, args.bounds, args.example)
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
