"""The frontier use case (``procure frontier``, ``procure solve --frontier N``): what finishing sooner costs,
as verified plans from the cheapest to the fastest (analysis.frontier), and the outputs it writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from procure.app import Inputs, SolveOutputs, _declare_workbook, declare_json
from procure.common.errors import InputError, Problem
from procure.fileio.outputs import Outputs
from procure.solver.enums import Objective

if TYPE_CHECKING:
    from procure.analysis.frontier import Frontier
    from procure.solver.result import Result


def parse_jobs(text: str | None) -> list[str] | None:
    """``--jobs a,b``: the names, each once, or None for every job; an empty name is bad input."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise InputError([Problem("command line", "--jobs", f"{text!r}: give job names separated by commas")])
    return list(dict.fromkeys(names))


def check_frontier_outputs(out: Path | None, json_out: str | None) -> SolveOutputs:
    """Fail before any solving when an output cannot be written (``--json -``: stdout)."""
    planned = SolveOutputs(Outputs())
    _declare_workbook(planned, out)
    declare_json(planned, json_out)
    return planned


def frontier(
    inputs: Inputs,
    *,
    jobs: list[str] | None = None,
    points: int = 8,
    solver: str = "cbc",
    gap: float = 1e-6,
    objective: Objective = Objective.TCO,
    budget=None,
    base: Result | None = None,
    progress=None,
) -> Frontier:
    """Trace the frontier on the inputs; with ``base`` (a solved ``Result``) its plan is the first point."""
    from procure.analysis.frontier import MAX_POINTS, check_jobs, plan_frontier, trace
    from procure.common.runtime import scratch_dir
    from procure.solver.planner import Resizer

    if not 2 <= points <= MAX_POINTS:
        raise InputError([Problem("command line", "--points", f"{points} points: give 2 to {MAX_POINTS}")])
    check_jobs(inputs.project, jobs)
    kw = dict(jobs=jobs, points=points, solver=solver, gap=gap, objective=objective, budget=budget, progress=progress)
    with scratch_dir():
        if base is not None:
            return trace(base.project, list(base.offers.values()), base.sizings, Resizer(base.project), base=base, **kw)
        return plan_frontier(inputs.project, inputs.catalog.offers, **kw)


def frontier_json(f: Frontier) -> str:
    from procure.reports.frontier_report import frontier_to_json

    return json.dumps(frontier_to_json(f), indent=2)


def write_frontier_outputs(f: Frontier, planned: SolveOutputs, tr=None) -> list[str]:
    """The frontier workbook and JSON, as one transaction (both or none)."""
    from procure.reports.xlsx.frontier import frontier_workbook_bytes

    return _write_outputs(f, planned, frontier_json, frontier_workbook_bytes, tr)


def _write_outputs(f, planned: SolveOutputs, as_json, workbook_bytes, tr=None) -> list[str]:
    """A frontier's JSON (``as_json(f)``) and workbook (``workbook_bytes(f, tr)``, when it has points), as one
    transaction (both or none); the lines that say what was written."""
    from procure.reports.i18n import EN

    tr = tr or EN
    files = planned.files
    if planned.json is not None:
        files.put(planned.json, as_json(f).encode("utf-8"))
    if planned.workbook is not None and f.points:
        files.put(planned.workbook, workbook_bytes(f, tr))
    files.commit()
    written = [tr("wrote {path}", path=planned.json.path)] if planned.json is not None else []
    if planned.workbook is not None and f.points:
        written.append(tr("wrote {path}", path=planned.workbook.path))
    return written


def carbon_frontier(
    inputs: Inputs,
    *,
    points: int = 8,
    solver: str = "cbc",
    gap: float = 1e-6,
    objective: Objective = Objective.TCO,
    budget=None,
    progress=None,
):
    """Trace the cost–emissions frontier on the inputs (analysis.carbon_frontier)."""
    from procure.analysis.carbon_frontier import MAX_POINTS, plan_carbon_frontier
    from procure.common.runtime import scratch_dir

    if not 2 <= points <= MAX_POINTS:
        raise InputError([Problem("command line", "--points", f"{points} points: give 2 to {MAX_POINTS}")])
    with scratch_dir():
        return plan_carbon_frontier(
            inputs.project,
            inputs.catalog.offers,
            points=points,
            solver=solver,
            gap=gap,
            objective=objective,
            budget=budget,
            progress=progress,
        )


def write_carbon_frontier_outputs(f, planned: SolveOutputs, tr=None) -> list[str]:
    """The carbon frontier's workbook and JSON, as one transaction (both or none)."""
    from procure.reports.xlsx.frontier import carbon_frontier_workbook_bytes

    return _write_outputs(f, planned, carbon_frontier_json, carbon_frontier_workbook_bytes, tr)


def carbon_frontier_json(f) -> str:
    from procure.reports.frontier_report import carbon_frontier_to_json

    return json.dumps(carbon_frontier_to_json(f), indent=2)
