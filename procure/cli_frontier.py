"""``procure frontier``: the cost–time frontier on the command line (options, rendering, exit codes). The use
case lives in ``procure.app_frontier``; ``procure.cli`` registers the command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from procure.cli_common import (
    AllErrors,
    AmountsOption,
    LangOption,
    SolverName,
    _console,
    _echo_data,
    _esc,
    _fail,
    _interrupted,
    _print_warnings,
)
from procure.solver.enums import Objective

HELP = (
    "What finishing sooner costs: verified plans from the cheapest to the fastest the offers allow, each the "
    "cheapest that completes the programme (or the --jobs named) by its day (ε-constraint on the completion "
    "day). Prints the points and what changed; writes a Frontier workbook with a chart, and JSON."
)


def point_line(k: int, p) -> str:
    """The progress line of one point, on stderr as it is found."""
    return f"point {k + 1}: done by day {p.completion_day:.1f} at {p.total_cost:,.0f} ({p.status})"


def frontier(
    workload: Annotated[Path, typer.Argument(help="workload.yaml")],
    offers: Annotated[
        list[Path] | None,
        typer.Option("--offers", help="Catalog file(s); default: the workload's `offers`, else the bundled catalog."),
    ] = None,
    jobs: Annotated[
        str | None,
        typer.Option(
            "--jobs", help="Trace the completion of these jobs (NAME,NAME,...); default: the whole programme."
        ),
    ] = None,
    points: Annotated[
        int, typer.Option("--points", help="Points at most, the cheapest and the fastest included (2 to 50).")
    ] = 8,
    out: Annotated[Path | None, typer.Option("--out", help="Write the Frontier workbook here (.xlsx).")] = None,
    json_out: Annotated[
        str | None, typer.Option("--json", help="Write the frontier as JSON to FILE, or '-' for stdout.")
    ] = None,
    solver: Annotated[SolverName, typer.Option(help="MILP solver: cbc or highs.")] = SolverName.cbc,
    time_limit: Annotated[
        str,
        typer.Option(
            "--time-limit",
            help="Seconds for the whole command; 0 or none: no limit. A point cut short carries its gap; points not reached are named.",
        ),
    ] = "600",
    gap: Annotated[
        float, typer.Option(help="Relative optimality gap at which the solver may stop.", min=0.0, max=1.0)
    ] = 1e-6,
    objective: Annotated[Objective, typer.Option(help="tco or npv: the cost traced.")] = Objective.TCO,
    carbon: Annotated[
        bool,
        typer.Option(
            "--carbon",
            help="Trace the cost–emissions frontier instead: verified plans from the cheapest to the cleanest, each "
            "the cheapest at a carbon price (TCO without a carbon price against operational tCO2e); console, JSON and --out workbook.",
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress on stderr.")] = False,
    all_errors: AllErrors = False,
    lang: LangOption = None,
    amounts_in: AmountsOption = None,
) -> None:
    from procure import app as use, app_frontier as tracing
    from procure.common.errors import ProcureError
    from procure.common.runtime import Budget, Interrupted, guarded_run, process_started
    from procure.reports.frontier_report import print_frontier

    if carbon:
        _carbon_frontier(workload, offers, jobs, points, out, json_out, solver, time_limit, gap, objective, quiet,
                         all_errors, lang, amounts_in)  # fmt: skip
        return
    try:
        budget = Budget(use.parse_time_limit(time_limit), started=process_started())
        use.language(lang, amounts_in)
        names = tracing.parse_jobs(jobs)
        planned = tracing.check_frontier_outputs(out, json_out)
        inputs = use.load_inputs(workload, offers, objective=objective)
        tr = use.language(lang, amounts_in, inputs.project)
        planned.files.forbid_inputs(inputs.files)
    except ProcureError as exc:
        _fail(exc, all_errors)
    _print_warnings(inputs.warnings)
    err = _console(stderr=True)
    try:
        with guarded_run():
            f = tracing.frontier(
                inputs,
                jobs=names,
                points=points,
                solver=solver.value,
                gap=gap,
                objective=objective,
                budget=budget,
                progress=None if quiet else lambda k, p: err.print(_esc(point_line(k, p)), soft_wrap=True),
            )
            console = _console(stderr=planned.json_stdout)
            if not f.points:  # no plan at all: the reasons, as procure solve prints them
                from procure.reports.console import print_result

                print_result(console, f.base, inputs=inputs.files, tr=tr)
            print_frontier(console, f, tr)
            for line in tracing.write_frontier_outputs(f, planned, tr):
                console.print(_esc(line))
            if planned.json_stdout:
                _echo_data(tracing.frontier_json(f), "--json")
    except ProcureError as exc:
        _fail(exc)
    except Interrupted as stop:
        _interrupted(stop)
    raise typer.Exit(use.exit_code_of(f.base))


def carbon_point_line(k: int, p) -> str:
    """The progress line of one plan of the carbon frontier, on stderr as it is found."""
    return f"plan {k + 1}: {p.tco2e:,.3f} tCO2e at {p.cost:,.0f} (carbon price {p.price:,.2f})"


def _carbon_frontier(workload, offers, jobs, points, out, json_out, solver, time_limit, gap, objective, quiet,
                     all_errors, lang, amounts_in) -> None:  # fmt: skip
    """``procure frontier --carbon``: the cost–emissions frontier (analysis.carbon_frontier): console, JSON and the
    Carbon frontier workbook."""
    from procure import app as use, app_frontier as tracing
    from procure.common.errors import InputError, Problem, ProcureError
    from procure.common.runtime import Budget, Interrupted, guarded_run, process_started
    from procure.reports.frontier_report import print_carbon_frontier

    try:
        if jobs is not None:
            raise InputError([Problem("command line", "--jobs", "--carbon traces the whole programme: drop --jobs")])
        if objective != Objective.TCO:
            raise InputError(
                [Problem("command line", "--objective", "--carbon traces the undiscounted TCO: give --objective tco")]
            )
        budget = Budget(use.parse_time_limit(time_limit), started=process_started())
        use.language(lang, amounts_in)
        planned = tracing.check_frontier_outputs(out, json_out)
        inputs = use.load_inputs(workload, offers, objective=objective)
        tr = use.language(lang, amounts_in, inputs.project)
        planned.files.forbid_inputs(inputs.files)
    except ProcureError as exc:
        _fail(exc, all_errors)
    _print_warnings(inputs.warnings)
    err = _console(stderr=True)
    try:
        with guarded_run():
            f = tracing.carbon_frontier(
                inputs,
                points=points,
                solver=solver.value,
                gap=gap,
                objective=objective,
                budget=budget,
                progress=None if quiet else lambda k, p: err.print(_esc(carbon_point_line(k, p)), soft_wrap=True),
            )
            console = _console(stderr=planned.json_stdout)
            if not f.points:
                from procure.reports.console import print_result

                print_result(console, f.base, inputs=inputs.files, tr=tr)
            else:
                print_carbon_frontier(console, f, tr)
            for line in tracing.write_carbon_frontier_outputs(f, planned, tr):
                console.print(_esc(line))
            if planned.json_stdout:
                _echo_data(tracing.carbon_frontier_json(f), "--json")
    except ProcureError as exc:
        _fail(exc)
    except Interrupted as stop:
        _interrupted(stop)
    raise typer.Exit(use.exit_code_of(f.base))
