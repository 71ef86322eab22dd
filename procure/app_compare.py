"""The compare use case: several workload files planned on the same offers, stated in the first file's
currency, their plans and inputs side by side (analysis.compare), and the outputs it writes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from procure.common.errors import InputError, Problem
from procure.fileio.outputs import Outputs
from procure.solver.enums import Objective

if TYPE_CHECKING:  # heavy imports stay out of `procure --help`
    from procure.solver.result import Result


from procure.app import Inputs, SolveOutputs, _declare_workbook, declare_json, load_inputs, solve


@dataclass
class Comparison:
    """``procure compare``: the files, what changed in their inputs, and how the outcomes changed."""

    files: list[str]
    changes: list  # analysis.compare.InputChange, against the first file
    rows: list  # analysis.compare.Row
    currency: str


def check_compare_outputs(out: Path | None, json_out: str | Path | None) -> SolveOutputs:
    """Fail before any solving when the comparison's workbook or JSON cannot be written; both are
    written together (all or none) by ``write_compare_outputs`` (``--json -``: stdout)."""
    planned = SolveOutputs(Outputs())
    _declare_workbook(planned, out)
    declare_json(planned, json_out)
    return planned


def _check_currencies(paths: list[Path], inputs: list[Inputs]) -> None:
    """Every file's amounts can be stated in the first file's currency (analysis.compare.currency_factors),
    else exit 1 before any solving, naming the rate to give."""
    from procure.analysis.compare import currency_factors

    first = inputs[0].project.currency
    problems = [
        Problem(
            str(path),
            "fx_rates",
            f"reports in {i.project.currency} and the first file in {first}: compare states every file in {first}; "
            f"give fx_rates: {{{first}: …}} (the {i.project.currency} value of one {first}) in this file",
        )
        for path, i, f in zip(paths, inputs, currency_factors([i.project for i in inputs]), strict=True)
        if f is None
    ]
    if problems:
        raise InputError(problems)


def comparison(paths: list[Path], inputs: list[Inputs], results: list[Result]) -> Comparison:
    from procure.analysis.compare import compare_rows, currency_factors, input_diff

    changes = input_diff([i.project for i in inputs], [i.catalog.offers for i in inputs])
    projects = [i.project for i in inputs]
    factors = [f if f is not None else 1.0 for f in currency_factors(projects)]
    first = projects[0].currency
    files = [
        str(p)
        if proj.currency == first
        else f"{p} ({proj.currency} → {first} at 1 {first} = {1 / f:g} {proj.currency})"
        for p, proj, f in zip(paths, projects, factors, strict=True)
    ]
    return Comparison(files, changes, compare_rows(results, factors), first)


def comparison_json(c: Comparison) -> str:
    """The comparison as JSON: ``inputs`` (what changed) then ``rows`` (the outcomes), each with its
    values per file, the differences against the first (``differences``) and against the file before
    (``steps``, one per file from the second); an offer or workload added or removed says per file where
    (``per_file``: quoted, added, removed or "")."""
    doc = {
        "files": c.files,
        "inputs": [
            {
                "section": x.section,
                "subject": x.subject,
                "field": x.field,
                "change": x.kind,
                "values": x.values,
                "differences": x.differences(),
                "steps": x.steps(),
                "per_file": x.presence() if x.kind in ("added", "removed") else None,
                "percent": x.percent,
            }
            for x in c.changes
        ],
        "rows": [
            {
                "section": r.section,
                "label": r.label,
                "values": r.values,
                "differences": r.differences(),
                "steps": r.steps(),
                "changed": r.changed,
            }
            for r in c.rows
        ],
    }
    return json.dumps(doc, indent=2)


def write_compare_outputs(c: Comparison, planned: SolveOutputs, tr=None) -> list[str]:
    """The comparison workbook and JSON as one transaction; a line per file written."""
    from procure.reports.i18n import EN

    tr = tr or EN
    files = planned.files
    if planned.json is not None:
        files.put(planned.json, comparison_json(c).encode("utf-8"))
    if planned.workbook is not None:
        from procure.reports.xlsx.compare import compare_workbook_bytes

        files.put(planned.workbook, compare_workbook_bytes(c.files, c.changes, c.rows, c.currency, tr))
    files.commit()
    return [tr("wrote {path}", path=t.path) for t in (planned.json, planned.workbook) if t is not None]


def compare(
    paths: list[Path],
    offer_paths: list[Path] | None,
    *,
    solver: str = "cbc",
    time_limit: float | None = None,
    gap: float = 1e-6,
    objective: Objective = Objective.TCO,
) -> tuple[list[Inputs], list[Result]]:
    """Plan every workload file (all strategies) for the side-by-side comparison."""
    if len(paths) < 2:
        raise InputError([Problem("command line", "FILES", "compare needs two or more workload files")])
    inputs = [load_inputs(p, offer_paths, objective=objective) for p in paths]
    _check_currencies(paths, inputs)
    return inputs, [
        solve(i, solver=solver, time_limit=time_limit, gap=gap, objective=objective, compare=True) for i in inputs
    ]
