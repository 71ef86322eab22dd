"""The explain use case: why an offer lost for a job — the plan re-solved with the job held to it, both
plans per cost category, the structured reason and the offer's break-even (solver.explain), and the
outputs it writes."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from procure.common.errors import InputError, Problem
from procure.fileio.outputs import Outputs
from procure.solver.enums import Objective

if TYPE_CHECKING:  # heavy imports stay out of `procure --help`
    from procure.solver.result import Result


from procure.app import Inputs, check_json_output, solve

#: ``procure explain`` without --workload explains every job that could use the offer, up to this many
EXPLAIN_MAX_JOBS = 6


@dataclass
class Explained:
    """``procure explain``'s answer: the recommended plan, and one explanation per job asked about."""

    result: Result
    offer_id: str
    explanations: list = field(default_factory=list)  # solver.explain.Explanation
    more: int = 0  # jobs that could use the offer beyond the ones explained (those where it comes closest)


def _allowed(kind: str, value: str, choices: list[str]) -> str:
    from procure.common.errors import did_you_mean
    from procure.common.text import echo

    return f"unknown {kind} {echo(value)}{did_you_mean(value, choices)}; allowed: {', '.join(choices)}"


def check_explain_args(inputs: Inputs, offer_id: str, workload: str | None) -> None:
    """A bad --offer or --workload is bad input (exit 1), named with every allowed value."""
    from procure.solver.holdings import owned_ids

    ids = [o.id for o in inputs.catalog.offers] + owned_ids(inputs.project)  # owned servers are offers too
    problems = []
    if offer_id not in ids:
        problems.append(Problem("command line", "--offer", _allowed("offer", offer_id, ids)))
    names = [w.name for w in inputs.project.workloads]
    if workload is not None and workload not in names:
        problems.append(Problem("command line", "--workload", _allowed("workload", workload, names)))
    if problems:
        raise InputError(problems)


def explain(
    inputs: Inputs,
    offer_id: str,
    workload: str | None = None,
    *,
    solver: str = "cbc",
    gap: float = 1e-6,
    objective: Objective = Objective.TCO,
    time_limit: float | None = None,
) -> Explained:
    """Why not ``offer_id`` (for ``workload``, or each job that could use it): the plan is solved, then
    re-solved with the job held to the offer (``solver.explain``), and the offer's break-even price is
    searched (``analysis.break_even``) when the plan does not use it."""
    from procure.analysis import break_even as be
    from procure.solver.explain import candidates, explain as why_not

    check_explain_args(inputs, offer_id, workload)
    result = solve(
        inputs, solver=solver, gap=gap, objective=objective, compare=False, n_runner_ups=0, time_limit=time_limit
    )
    out = Explained(result, offer_id)
    if result.plan is None:
        return out
    planned = [w.name for w in result.project.workloads]
    if workload is not None and workload not in planned:
        why = (
            f"{workload!r} is set aside in this plan (it cannot run on these offers); "
            f"explain one of the planned jobs: {', '.join(planned)}"
        )
        raise InputError([Problem("command line", "--workload", why)])
    jobs = [workload] if workload is not None else candidates(result, offer_id) or planned
    if len(jobs) > EXPLAIN_MAX_JOBS:
        out.more = len(jobs) - EXPLAIN_MAX_JOBS
        jobs = closest_jobs(result, offer_id, jobs)[:EXPLAIN_MAX_JOBS]
    out.explanations = [why_not(result, w, offer_id, solver=solver, gap=gap) for w in jobs]
    ctx = _break_even_context(result, solver, gap, objective)
    for e in out.explanations:
        e.break_even = be.explain_break_even(result, offer_id, e.workload, ctx)
    return out


def closest_jobs(result: Result, offer_id: str, jobs: list[str]) -> list[str]:
    """``jobs`` ordered by how close the offer comes for each: its cheapest shape run alone, less what the
    recommended plan spends on the job (the smallest gap first; the file's order breaks ties)."""
    spent = {a.workload: a.cost for a in result.plan.assignments} if result.plan else {}

    def gap(w: str) -> float:
        own = [o.standalone_cost for o in result.every_option.get(w, []) if o.offer_id == offer_id]
        return (min(own) - spent.get(w, 0.0)) if own else math.inf

    order = {w: i for i, w in enumerate(jobs)}
    return sorted(jobs, key=lambda w: (gap(w), order[w]))


def _break_even_context(result: Result, solver: str, gap: float, objective: Objective):
    """The analysis context the break-even searches re-solve in: the recommended plan's inputs."""
    from procure.analysis.engine import Context
    from procure.analysis.scenario import Baseline
    from procure.solver.planner import Resizer

    baseline = Baseline(
        result.project,
        list(result.offers.values()),
        result.sizings,
        Resizer(result.project),
        solver,
        None,
        gap,
        objective,
    )
    return Context.of(baseline, result)


def check_explain_outputs(json_out: str | None, csv_out: Path | None) -> Outputs:
    """``explain --json FILE`` (``-``: stdout) and ``--csv FILE``, checked before any solving."""
    outputs = check_json_output(json_out)
    if csv_out is not None:
        if Path(csv_out).suffix.lower() != ".csv":
            raise InputError([Problem(str(csv_out), "--csv", "the explanation table must end in .csv")])
        outputs.add(csv_out, "--csv")
    return outputs


def write_explain_outputs(
    explained: Explained, outputs: Outputs, json_out: str | None, csv_out: Path | None, tr=None
) -> list[str]:
    """The declared JSON and CSV files, all or none; a line per file written."""
    from procure.reports.csv_report import explain_csv
    from procure.reports.i18n import EN
    from procure.reports.tables import explanation_row

    tr = tr or EN
    written = []
    for t in outputs.targets:
        if t.what == "--json":
            outputs.put(t, explain_json(explained).encode("utf-8"))
        elif t.what == "--csv":
            cur = explained.result.project.currency
            outputs.put(t, explain_csv([explanation_row(e, cur) for e in explained.explanations], tr))
        written.append(tr("wrote {path}", path=t.path))
    outputs.commit()
    return written


def explain_json(explained: Explained) -> str:
    from procure.reports.explain_report import explained_to_json

    return json.dumps(explained_to_json(explained), indent=2)
