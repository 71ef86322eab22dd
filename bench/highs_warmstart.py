"""Does HiGHS, given a MIP start through PuLP, ever call a plan optimal that is not?

Two studies, each model solved to a relative gap of 1e-6 and every solution re-costed by the cost model:

- ``--case random`` (default): seeded random instances (``bench.generate``, sized by the real engine), each
  strategy (hybrid, buy, rent, cloud) solved by HiGHS through PuLP with the greedy plan as MIP start, the
  same without a start, procure's in-process HiGHS (LP first, no start) and CBC;
- ``--case programme``: the Monte Carlo re-solves of ``examples/programme-12-months.yaml`` as ``procure
  analyze`` runs them — warm-started from each strategy's base plan re-costed under the scenario — with
  the same four solvers.

A row is printed for every solve called optimal whose plan costs more than the best of the three (relative
excess over 1e-6), and for every solve whose reported objective differs from its plan's recomputed cost.
The last line counts them::

    python -m bench.highs_warmstart [--case random|programme] [--seeds 20] [--size S] [--scenarios 20]
"""

from __future__ import annotations

import argparse
import os
import sys

import pulp

from procure.solver.enums import SolveStatus, Strategy
from procure.solver.greedy import greedy_plan
from procure.solver.milp import Builder, extract, solve
from procure.solver.options import build_options
from procure.solver.plan import build_plan
from procure.solver.sizing import size_project

from .generate import generate

MODES = {
    Strategy.HYBRID: ("buy", "rent", "cloud"),
    Strategy.BUY: ("buy",),
    Strategy.RENT: ("rent",),
    Strategy.CLOUD: ("cloud",),
}
REL = 1e-6
WAYS = (
    ("pulp-highs+start", "pulp-highs", True),
    ("pulp-highs", "pulp-highs", False),
    ("highs", "highs", False),
    ("cbc", "cbc", False),
)


class Tally:
    def __init__(self) -> None:
        self.models = self.false_optimal = self.mismatched = 0

    def check(self, label: str, runs: dict[str, tuple[str, float | None, float | None]]) -> None:
        """runs: way -> (status, reported objective, recomputed cost of its plan)."""
        self.models += 1
        best = min((r[2] for r in runs.values() if r[2] is not None), default=None)
        for way, (status, reported, cost) in runs.items():
            if cost is None or best is None:
                continue
            if reported is not None and abs(reported - cost) > REL * max(1.0, abs(cost)):
                self.mismatched += 1
                print(f"{label} {way:11} {status:8} reports {reported:,.2f} but its plan costs {cost:,.2f}")
            if status == "optimal" and cost > best * (1 + REL) + 1e-6:
                self.false_optimal += 1
                print(
                    f"{label} {way:11} optimal at {cost:,.2f}, {100 * (cost / best - 1):.3f}% above the best plan found ({best:,.2f})"
                )

    def line(self) -> str:
        return (
            f"{self.models} models x {len(WAYS)} solves: {self.false_optimal} called optimal above the best plan, "
            f"{self.mismatched} objectives that differ from the plan's cost"
        )


def _solve(project, offers, options, warm, solver: str, start: bool) -> tuple[str, float | None, float | None]:
    model = Builder(project, options, offers, warm_start=warm if start or solver == "cbc" else None).build()
    with _quiet():
        if solver == "pulp-highs":  # PuLP's HiGHS interface, which passes the start as a MIP start
            model.prob.solve(pulp.HiGHS(msg=False, gapRel=REL, warmStart=start))
            ok = model.prob.sol_status in (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible)
            status = (
                "optimal"
                if model.prob.sol_status == pulp.LpSolutionOptimal
                else ("feasible" if ok else pulp.LpStatus[model.prob.status])
            )
            reported = pulp.value(model.prob.objective) if ok else None
        else:
            info = solve(model, solver, None, REL)
            status, reported, ok = str(info.status), info.objective, info.status.has_plan
    if not ok:
        return status, None, None
    decisions, purchases, contracts = extract(model, project, offers)
    return status, reported, build_plan(project, offers, decisions, purchases, contracts).total_cost


class _quiet:
    """HiGHS prints its banner on file descriptor 1 whatever PuLP's msg says."""

    def __enter__(self):
        sys.stdout.flush()
        self.saved = os.dup(1)
        self.null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(self.null, 1)

    def __exit__(self, *exc):
        os.dup2(self.saved, 1)
        os.close(self.saved)
        os.close(self.null)


def random_case(tally: Tally, seeds: int, size: str) -> None:
    for seed in range(seeds):
        project, offer_list = generate(size, seed)
        offers = {o.id: o for o in offer_list}
        sizings = size_project(project, offer_list)
        for name, modes in MODES.items():
            options, _rej, _every = build_options(project, offers, sizings, modes)
            if any(not opts for opts in options.values()):
                continue
            warm = greedy_plan(project, offers, options)
            tally.check(
                f"seed {seed} {name:6}",
                {way: _solve(project, offers, options, warm, solver, start) for way, solver, start in WAYS},
            )


def programme_case(tally: Tally, scenarios: int) -> None:
    from procure.analysis import montecarlo as mc
    from procure.analysis.recost import decided_under

    from .solve_breakdown import programme_context

    project, base, ctx = programme_context()
    for s in mc.draw(project.analysis, scenarios):
        a = ctx.inputs.apply(s)
        for name in MODES:
            plan = ctx.base_plans.get(name)
            if plan is None or base.strategies[name].status == SolveStatus.EXCLUDED:
                continue
            warm, _broken = decided_under(plan, a, s.hours_factor, ctx.modes[name])
            options, _rej, _every = build_options(a.project, a.offers, a.sizings, ctx.modes[name])
            if any(not opts for opts in options.values()):
                continue
            tally.check(
                f"{s.label} {name:6}",
                {way: _solve(a.project, a.offers, options, warm, solver, start) for way, solver, start in WAYS},
            )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", choices=("random", "programme"), default="random")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--size", default="S")
    ap.add_argument("--scenarios", type=int, default=20)
    args = ap.parse_args(argv)
    tally = Tally()
    if args.case == "random":
        random_case(tally, args.seeds, args.size)
    else:
        programme_case(tally, args.scenarios)
    print(tally.line())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
