"""The rent-only LP bound on the daily programme, with and without the rent_whole rows.

The LP relaxation of the rent-only model may rent a fraction of a node for a short job over part of a
minimum term; the rent_whole rows (one per job and offer: the job alone holds n whole node-contracts of
at least the shortest term) cut that off. This prints the LP bound of both, the best integer plan found
within ``--time-limit`` (CBC, as ``procure solve`` runs it) and the gap each bound leaves::

    python -m bench.rent_bound [--period-days 1] [--time-limit 120]
"""

from __future__ import annotations

import argparse
import time

import pulp

from procure.solver.greedy import greedy_plan
from procure.solver.milp import Builder, solve
from procure.solver.options import build_options
from procure.solver.sizing import size_project

from .daily import programme


def lp_bound(model) -> tuple[float, float]:
    """(LP optimum, seconds) of the model with every variable continuous (HiGHS)."""
    for v in model.prob.variables():
        v.cat = pulp.LpContinuous
    t = time.perf_counter()
    model.prob.solve(pulp.HiGHS(msg=False))
    return pulp.value(model.prob.objective), time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--period-days", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=120.0)
    args = ap.parse_args(argv)
    project, offer_list = programme(args.period_days)
    offers = {o.id: o for o in offer_list}
    options, _rej, _every = build_options(project, offers, size_project(project, offer_list), ("rent",))
    warm = greedy_plan(project, offers, options)

    def build(whole: bool):
        model = Builder(project, options, offers, warm_start=warm).build()
        if not whole:
            for name in [n for n in model.prob.constraints if n.startswith("rent_whole")]:
                del model.prob.constraints[name]
        return model

    with_rows = build(True)
    n_whole = sum(1 for n in with_rows.prob.constraints if n.startswith("rent_whole"))
    info = solve(with_rows, "cbc", args.time_limit, 1e-6)
    best = info.objective
    print(
        f"rent-only, daily programme ({len(project.workloads)} jobs, {args.period_days}-day grid): best integer plan {best:,.0f} "
        f"({info.status}, CBC {info.seconds:.1f} s, its bound {info.bound or float('nan'):,.0f})"
    )
    for label, whole in (("without rent_whole", False), (f"with rent_whole ({n_whole} rows)", True)):
        bound, seconds = lp_bound(build(whole))
        gap = (best - bound) / best if best else float("nan")
        print(f"  LP bound {label:32} {bound:>14,.0f}   gap to the best plan {gap:7.2%}   ({seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
