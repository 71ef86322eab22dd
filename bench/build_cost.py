"""What writing the model costs: CPU seconds and peak memory of ``Builder.build`` for the hybrid model of the daily
programme (bench/daily.py) and of the XL random instance, on the ``tco`` and ``npv`` objectives, with and without a
``budget_cash`` (whose rows read every column's cash flows by month from the coefficient table).

    python -m bench.build_cost [--cases daily,xl] [--repeat 3] [--json FILE]

(a case is ``daily`` or a size of bench/generate.py: S, M, L, XL)

Each case sizes once, builds the options once, then builds the model ``--repeat`` times and keeps the least CPU
seconds (process time: on a shared machine wall time measures the neighbours). Compare two commits paired, A/B/A/B,
one at a time (docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc


def _inputs(case: str):
    from bench.daily import programme
    from bench.generate import generate

    return programme(1) if case == "daily" else generate(case.upper())


def measure(case: str, objective: str, cash: bool, repeat: int) -> dict:
    from procure.solver.milp import Builder
    from procure.solver.options import build_options
    from procure.solver.sizing import size_project

    project, offer_list = _inputs(case)
    if cash:
        project = project.model_copy(update={"budget_cash": 1e12})
    offers = {o.id: o for o in offer_list}
    options, _rejected, _every = build_options(project, offers, size_project(project, offer_list))

    def build():
        return Builder(project, options, offers, objective, contracts_integer=False).build()

    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        columns = len(build().columns)
        best = min(best, time.process_time() - t)
    tracemalloc.start()  # one more build, traced: its peak (tracing slows it, so it is not timed)
    build()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"case": case, "objective": objective, "budget_cash": cash, "columns": columns,
            "build_cpu_s": round(best, 3), "peak_mb": round(peak / 2**20, 1)}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="daily,xl")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    rows = [
        measure(case, objective, cash, args.repeat)
        for case in args.cases.split(",")
        for objective, cash in (("tco", False), ("npv", False), ("tco", True))
    ]
    for r in rows:
        print(
            f"{r['case']:6} {r['objective']:4} cash={'yes' if r['budget_cash'] else 'no ':3} "
            f"{r['columns']:>8,} columns  build {r['build_cpu_s']:7.3f} CPU s  peak {r['peak_mb']:8.1f} MB"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
