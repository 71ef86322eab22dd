"""How closely ``procure solve --time-limit S`` keeps to S seconds, counted as a user counts them.

Writes a seeded instance of 40 workloads × 150 offers (``bench.generate``, a year of weekly periods)
as a workload file and a catalog, then runs the whole command line in a child process for each limit
and prints the wall time from before the process starts until it has exited (interpreter start-up,
imports, loading, sizing, every strategy, the comparisons, the outputs).

    python -m bench.time_limit                       # limits 5, 10, 30 s, three runs each
    python -m bench.time_limit --limits 5 --runs 5 --out r.xlsx       # with the workbook too
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

from bench.generate import SIZES, generate

SIZE = "TL"
SIZES.setdefault(SIZE, (40, 150, 52))


def write_instance(folder: Path, seed: int = 0) -> tuple[Path, Path]:
    """The instance as ``workload.yaml`` and ``offers.json`` (a YAML catalog: JSON is YAML)."""
    project, offers = generate(SIZE, seed)
    doc = project.model_dump(mode="json", exclude_defaults=True, exclude={"workloads"})
    doc["workloads"] = [
        dict(w.model_dump(mode="json", exclude_defaults=True), model=w.model.id) for w in project.workloads
    ]
    workload = folder / "workload.yaml"
    workload.write_text(json.dumps(doc, indent=1))
    catalog = folder / "offers.yaml"
    catalog.write_text(json.dumps({"offers": [o.model_dump(mode="json", exclude_none=True) for o in offers]}, indent=1))
    return workload, catalog


def _children_cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def run(workload: Path, catalog: Path, limit: float, out: str | None) -> tuple[float, int, float]:
    """(wall s, exit code, CPU s of the command and its solver children)."""
    cmd = [
        sys.executable,
        "-m",
        "procure",
        "solve",
        str(workload),
        "--offers",
        str(catalog),
        "--time-limit",
        str(limit),
        "--quiet",
        "--json",
        str(workload.parent / "plan.json"),
    ]
    if out:
        cmd += ["--out", str(workload.parent / out)]
    start, cpu = time.monotonic(), _children_cpu()
    res = subprocess.run(cmd, capture_output=True, env=dict(os.environ, COLUMNS="160"))
    wall = time.monotonic() - start
    if res.returncode not in (0, 2, 3):
        sys.stderr.write(res.stderr.decode("utf-8", "replace")[-3000:])
    return wall, res.returncode, _children_cpu() - cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limits", default="5,10,30", help="comma-separated --time-limit values, seconds")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--out",
        default="",
        help="also write the workbook to this file name (default: the console report and --json only)",
    )
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="procure-bench-") as folder:
        workload, catalog = write_instance(Path(folder), args.seed)
        print(
            f"instance: {SIZES[SIZE][0]} workloads × {SIZES[SIZE][1]} offers, seed {args.seed}; whole command, wall seconds"
        )
        print("| --time-limit s | runs: wall s (exit code) | CPU s | worst | over the limit | load average |")
        print("|---:|---|---|---:|---:|---:|")
        for limit in (float(x) for x in args.limits.split(",")):
            got = [run(workload, catalog, limit, args.out or None) for _ in range(args.runs)]
            worst = max(w for w, _, _ in got)
            runs = " / ".join(f"{w:.2f} ({rc})" for w, rc, _ in got)
            cpus = " / ".join(f"{c:.2f}" for _, _, c in got)
            print(
                f"| {limit:g} | {runs} | {cpus} | {worst:.2f} | {100 * (worst - limit) / limit:+.0f}% "
                f"| {os.getloadavg()[0]:.1f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
