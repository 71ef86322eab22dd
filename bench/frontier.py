"""What the cost–time frontier costs to trace (``procure frontier``): wall and CPU seconds of the whole command,
its points and the solves behind them.

Runs the command line in a child process (interpreter start-up, loading, sizing, every point, the outputs) and
prints, per run, the wall time, the CPU seconds of the child and its solver processes, the load average, and
the points (completion day, TCO):

    python -m bench.frontier                                           # the 12-month example, 8 points
    python -m bench.frontier --jobs pretrain-7b --runs 2
    python -m bench.frontier --workload examples/small-lab.yaml --points 4
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_once(workload: Path, points: int, jobs: str | None, folder: Path) -> dict:
    out = folder / "frontier.json"
    cmd = [sys.executable, "-m", "procure", "frontier", str(workload), "--points", str(points), "--json", str(out)]
    cmd += ["--quiet", "--time-limit", "0"] + (["--jobs", jobs] if jobs else [])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"procure frontier exited {proc.returncode}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    pts = json.loads(out.read_text())["points"]
    return {"wall": wall, "cpu": cpu, "load": load, "points": [(p["completion_day"], p["total_cost"]) for p in pts]}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", type=Path, default=ROOT / "examples" / "programme-12-months.yaml")
    ap.add_argument("--points", type=int, default=8)
    ap.add_argument("--jobs", default=None)
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args(argv)
    print(
        f"procure frontier {args.workload.name} --points {args.points}" + (f" --jobs {args.jobs}" if args.jobs else "")
    )
    print(f"{'run':>3} {'wall s':>8} {'CPU s':>8} {'load':>5} {'points':>6}  completion day → TCO")
    for k in range(args.runs):
        with tempfile.TemporaryDirectory() as d:
            r = run_once(args.workload, args.points, args.jobs, Path(d))
        curve = ", ".join(f"{day:.1f} → {cost:,.0f}" for day, cost in r["points"])
        print(f"{k + 1:>3} {r['wall']:>8.1f} {r['cpu']:>8.1f} {r['load']:>5.1f} {len(r['points']):>6}  {curve}")


if __name__ == "__main__":
    main()
