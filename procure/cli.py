"""The command line (typer): options, rendering and exit codes. The use cases live in ``procure.app``.

Heavy libraries (pandas, PuLP, openpyxl) are imported inside the commands that need them so that
``procure --help`` starts fast. Every ``ProcureError`` maps to its family's exit code in ``_fail``;
usage errors (an unknown option, a missing argument) exit 1 like any other bad input.
"""

from __future__ import annotations

import logging
import sys
from enum import StrEnum
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
    _usage,
)
from procure.cli_offers import offers_app
from procure.common.errors import ExitCode
from procure.solver.enums import Objective


class MonteCarloMode(StrEnum):
    """What a Monte Carlo scenario measures (procure.analysis.montecarlo)."""

    policy = "policy"
    recourse = "recourse"
    hindsight = "hindsight"


EXIT_CODES = """Exit codes:
0 ok (a plan: optimal, or feasible with its proven gap at the time limit)
1 bad input or usage: file, field, line/row and what is allowed are printed; also an output path that cannot be written
2 infeasible: the reasons are printed
3 no solution within the time limit, or the solver is missing or failed
4 internal verification failure: a bug; the plan broke a rule, or the model priced it otherwise than the ledger, and is not shown
5 a plan of the other jobs: at least one job was set aside (named with its reasons; --all-or-nothing: exit 2 instead)
129, 130, 143 interrupted by SIGHUP, SIGINT or SIGTERM: the solver stopped, temp files removed"""

app = typer.Typer(
    name="procure",
    help="Plan GPU compute for LLM training: buy servers, rent bare metal or pay a cloud — at the lowest total cost of ownership.\n\n"
    + EXIT_CODES,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(offers_app, name="offers")


def _version(value: bool) -> None:
    if value:
        from procure import __version__

        typer.echo(f"procure {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log what procure does (inputs read, sizing, each solve) on stderr.")
    ] = False,
) -> None:
    from rich.logging import RichHandler

    handler = RichHandler(console=_console(stderr=True), show_path=False, markup=False, rich_tracebacks=False)
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING, format="%(message)s", handlers=[handler], force=True
    )


# --- offers ------------------------------------------------------------------------------------


# --- size --------------------------------------------------------------------------------------


@app.command()
def size(
    workload: Annotated[Path, typer.Argument(help="workload.yaml")],
    offers: Annotated[
        list[Path] | None,
        typer.Option("--offers", help="Catalog file(s); default: the workload's `offers`, else the bundled catalog."),
    ] = None,
    json_out: Annotated[
        str | None, typer.Option("--json", help="Write the sizing as JSON to FILE, or '-' for stdout.")
    ] = None,
    gpu: Annotated[
        str | None,
        typer.Option(
            help="Size on reference nodes of this GPU instead of a catalog; several, comma-separated, side by side."
        ),
    ] = None,
    gpus: Annotated[
        int | None,
        typer.Option(
            help="Total GPUs for --gpu. Without it: how many GPUs of --gpu the job needs (the fewest that fit, "
            "the fewest that finish by the deadline), each with its layout.",
            min=1,
        ),
    ] = None,
    all_errors: AllErrors = False,
) -> None:
    """Size each workload: GPU memory, FLOPs, and hours and fit on every cluster shape."""
    from procure import app as use
    from procure.common.errors import ProcureError
    from procure.models.project import load_project

    try:
        outputs = use.check_json_output(json_out)
        project, warnings = load_project(workload)
        catalog = None
        if gpu is None and gpus is None:
            catalog = use.load_offers(offers, project, workload)
            warnings += catalog.warnings
        outputs.forbid_inputs([workload, *(catalog.files if catalog else [])])
        sizings = use.size(project, catalog, gpu, gpus)
        if gpu is not None:
            from procure.common.errors import Problem
            from procure.models.gpu import gpu_table

            note = gpu_table().alias_note(gpu)
            if note:
                warnings.append(Problem("command line", "--gpu", note, warning=True))
    except ProcureError as exc:
        _fail(exc, all_errors)
    _print_warnings(warnings)
    if json_out == "-":
        _echo_data(use.sizing_json(sizings), "--json")
        return
    if json_out:
        try:
            outputs.put(outputs.targets[0], use.sizing_json(sizings).encode("utf-8"))
            outputs.commit()
        except ProcureError as exc:
            _fail(exc)
    from procure.reports.sizing_report import print_sizing

    print_sizing(_console(), sizings)


# --- solve -------------------------------------------------------------------------------------


@app.command(
    help="Choose buy / rent / cloud, how many nodes of which offer and when, at the least total cost of ownership. Prints the plan and why; optionally writes the Excel workbook, JSON and CSV.\n\n"
    + EXIT_CODES
)
def solve(
    workload: Annotated[Path, typer.Argument(help="workload.yaml")],
    offers: Annotated[
        list[Path] | None,
        typer.Option("--offers", help="Catalog file(s); default: the workload's `offers`, else the bundled catalog."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Write the Excel workbook for the approval meeting here (.xlsx).")
    ] = None,
    json_out: Annotated[
        str | None,
        typer.Option(
            "--json", help="Write the plan as JSON to FILE, or '-' for stdout (the report then goes to stderr)."
        ),
    ] = None,
    csv_dir: Annotated[
        Path | None, typer.Option("--csv", help="Write the report's tables as CSV files into this folder.")
    ] = None,
    focus: Annotated[
        Path | None,
        typer.Option(
            "--focus",
            help="Write the plan's charges as FOCUS 1.3 Cost and Usage rows to this CSV, and its contracts to <name>-commitments.csv beside it.",
        ),
    ] = None,
    solver: Annotated[
        SolverName, typer.Option(help="MILP solver: cbc (bundled with PuLP) or highs (HiGHS, installed with procure).")
    ] = SolverName.cbc,
    time_limit: Annotated[
        str,
        typer.Option(
            "--time-limit",
            help="Seconds for the whole command (sizing, every strategy, the outputs); 0 or none: no limit. At its share of the limit a strategy reports its best plan as 'feasible' with its proven gap, or the greedy plan as 'heuristic'.",
        ),
    ] = "120",
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress on stderr.")] = False,
    gap: Annotated[
        float, typer.Option(help="Relative optimality gap at which the solver may stop.", min=0.0, max=1.0)
    ] = 1e-6,
    objective: Annotated[
        Objective,
        typer.Option(
            help="tco: total cost of ownership; npv: discounted cash flows (needs discount_rate); after_tax_npv: after-tax cash flows at the after-tax rate (needs a tax section)."
        ),
    ] = Objective.TCO,
    compare: Annotated[
        bool, typer.Option(help="Also solve buy-only, rent-only and cloud-only for the comparison.")
    ] = True,
    all_errors: AllErrors = False,
    runner_ups: Annotated[
        int,
        typer.Option(
            "--runner-ups",
            help="Other offers costed per workload, each by re-solving the whole plan with the workload on it (0: none).",
            min=0,
            max=10,
        ),
    ] = 2,
    analyze: Annotated[
        bool,
        typer.Option(
            "--analyze",
            help="Also run `procure analyze` (break-even, sensitivity, and Monte Carlo when analysis.uncertainty is declared) and add its sheets to the workbook.",
        ),
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option("--workers", help="With --analyze: worker processes (default: the machine's cores).", min=1),
    ] = None,
    all_or_nothing: Annotated[
        bool,
        typer.Option(
            "--all-or-nothing",
            help="Plan every job or none: a job no offer can run (or the budget cannot cover) "
            "makes the whole programme infeasible (exit 2). Default: such a job is set aside "
            "with its reasons and the rest planned (exit 5).",
        ),
    ] = False,
    frontier: Annotated[
        int | None,
        typer.Option(
            "--frontier",
            help="Also trace what finishing sooner costs, in up to N verified plans (see `procure frontier`), and add the Frontier sheet to the workbook.",
            min=2,
            max=50,
        ),
    ] = None,
    lang: LangOption = None,
    amounts_in: AmountsOption = None,
) -> None:
    from procure import app as use
    from procure.common.errors import ProcureError
    from procure.common.runtime import Budget, Interrupted, guarded_run, process_started
    from procure.progress import Reporter

    try:
        # the clock started with the process: the interpreter's start-up and the imports count too
        budget = Budget(use.parse_time_limit(time_limit), started=process_started())
        if analyze and not compare:  # a usage error, before any file is read or any solve runs
            raise _usage("--analyze", "--analyze compares the strategies; drop --no-compare")
        use.language(lang, amounts_in)
        planned = use.check_solve_outputs(out, json_out, csv_dir, focus)
        inputs = use.load_inputs(workload, offers, objective=objective)
        tr = use.language(lang, amounts_in, inputs.project)
        planned.files.forbid_inputs(inputs.files)
    except ProcureError as exc:
        _fail(exc, all_errors)
    _print_warnings(inputs.warnings)
    progress = Reporter.for_stderr(quiet, inputs.project.currency, objective, tr)
    try:
        with guarded_run():  # SIGINT/SIGTERM/SIGHUP: stop the solver, remove temp files, exit 128 + signal
            try:
                result = use.solve(
                    inputs,
                    solver=solver.value,
                    gap=gap,
                    objective=objective,
                    compare=compare,
                    n_runner_ups=runner_ups,
                    budget=budget,
                    progress=progress,
                    all_or_nothing=all_or_nothing,
                )
            finally:
                progress.close()
            from procure.reports.console import print_result

            console = _console(stderr=planned.json_stdout)
            print_result(console, result, inputs=inputs.files, tr=tr)
            analysis = None
            if analyze and result.plan is not None:
                # --time-limit bounds the whole command: the analysis gets what the plan left, less the outputs'
                # reserve; an analysis not done by then is skipped and named (Analysis.skipped)
                analysis = _run_analysis(
                    use,
                    inputs,
                    console,
                    break_even=True,
                    sensitivity=True,
                    monte_carlo=inputs.project.analysis.scenarios if inputs.project.analysis.uncertainty else None,
                    workers=workers,
                    scheduler=None,
                    solver=solver.value,
                    time_limit=budget.seconds,
                    gap=gap,
                    objective=objective,
                    base=result,
                    tr=tr,
                    deadline=use.analysis_deadline(budget, inputs),
                )
            traced = None
            if frontier and result.plan is not None:
                traced = _run_frontier(inputs, result, console, frontier, solver.value, gap, objective, budget, tr)
            for line in use.write_outputs(result, inputs, planned, analysis=analysis, tr=tr, frontier=traced):
                console.print(_esc(line))
            if planned.json_stdout:
                _echo_data(use.result_json(result, inputs.files, frontier=traced), "--json")
    except ProcureError as exc:
        _fail(exc)
    except Interrupted as stop:
        _interrupted(stop)
    raise typer.Exit(use.exit_code_of(result))


# --- analyze and compare ---------------------------------------------------------------------------


def _run_frontier(inputs, result, console, points, solver, gap, objective, budget, tr):
    """``solve --frontier N``: the frontier from the plan just solved (its first point), printed; returned for
    the workbook and the JSON."""
    from procure.app_frontier import frontier
    from procure.reports.frontier_report import print_frontier

    f = frontier(inputs, points=points, solver=solver, gap=gap, objective=objective, budget=budget, base=result)
    print_frontier(console, f, tr)
    return f


def _run_analysis(use, inputs, console, tr=None, **kw):
    """Run the analysis with a progress bar on a terminal; print it (in the reader's language ``tr``); return it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from procure.common.errors import ProcureError
    from procure.reports.analysis_console import print_analysis
    from procure.reports.i18n import EN

    err = _console(stderr=True)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )
    kw["workers"], capped = use.capped_workers(kw.get("workers"))
    _print_warnings([capped] if capped else [])
    try:
        with progress:
            analysis = use.analyze(inputs, progress=progress, **kw)
    except ProcureError as exc:
        _fail(exc)
    print_analysis(console, analysis, tr=tr or EN)
    from procure.reports.headline import set_aside_headline

    head = set_aside_headline(analysis.base, tr or EN)
    if head:  # a partial plan: the analysis is of the planned jobs
        console.print(f"[yellow bold]![/yellow bold] {_esc(head)}", soft_wrap=True)
    return analysis


@app.command(
    help="Decision analytics on top of the optimal plan: break-even prices of every losing offer and strategy, "
    "a sensitivity tornado of the cost drivers, and a Monte Carlo study of the uncertainty declared under "
    "`analysis:` in the workload file. Break-even prices are re-optimized; the tornado re-costs today's plan at "
    "each driver's ends; the Monte Carlo evaluates the plan you sign (its committed cost, with recourse where "
    "it breaks), or with --monte-carlo-mode hindsight re-optimizes every scenario. Without --break-even/"
    "--sensitivity/--monte-carlo all three run (Monte Carlo when analysis.uncertainty is declared).\n\n" + EXIT_CODES
)
def analyze(
    workload: Annotated[Path, typer.Argument(help="workload.yaml")],
    offers: Annotated[
        list[Path] | None,
        typer.Option("--offers", help="Catalog file(s); default: the workload's `offers`, else the bundled catalog."),
    ] = None,
    break_even: Annotated[
        bool, typer.Option("--break-even", help="Break-even prices of the offers and strategies that lost.")
    ] = False,
    sensitivity: Annotated[
        bool, typer.Option("--sensitivity", help="The tornado: each driver at its low and high value.")
    ] = False,
    monte_carlo: Annotated[
        int | None,
        typer.Option(
            "--monte-carlo",
            help="Draw N scenarios from analysis.uncertainty, the hours always from the calibrated band unless mfu is declared (default: analysis.scenarios).",
            min=1,
        ),
    ] = None,
    monte_carlo_mode: Annotated[
        MonteCarloMode,
        typer.Option(
            "--monte-carlo-mode",
            help="policy: the committed cost of today's plan of each strategy, re-costed as decided, with the "
            "optimal recourse where it breaks; recourse: the optimal recourse in every scenario; hindsight: every "
            "strategy re-optimized in each scenario (to --gap), what the best plan would have cost had it been known.",
        ),
    ] = MonteCarloMode.policy,
    monte_carlo_bounds: Annotated[
        int | None,
        typer.Option(
            "--monte-carlo-bounds",
            help="Scenarios whose hindsight optimum is bracketed (an LP bound per strategy) for the value of "
            "waiting (default 20; 0: none).",
            min=0,
        ),
    ] = None,
    workers: Annotated[
        int | None, typer.Option("--workers", help="Worker processes (default: the machine's cores).", min=1)
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            help="Send the solves to this Dask scheduler (e.g. tcp://10.0.0.5:8786); needs procure[dask].",
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Write the analysis workbook here (.xlsx).")] = None,
    json_out: Annotated[
        str | None, typer.Option("--json", help="Write the analysis as JSON to FILE, or '-' for stdout.")
    ] = None,
    csv_dir: Annotated[
        Path | None,
        typer.Option(
            "--csv",
            help="Write the analysis' tables (one row per scenario and strategy, break-even, sensitivity) as CSV into this folder.",
        ),
    ] = None,
    solver: Annotated[SolverName, typer.Option(help="MILP solver: cbc or highs.")] = SolverName.cbc,
    time_limit: Annotated[float | None, typer.Option("--time-limit", help="Seconds per solve.", min=0.1)] = None,
    gap: Annotated[
        float,
        typer.Option(
            help="Relative optimality gap of each solve (break-even always solves to a proven optimum).",
            min=0.0,
            max=1.0,
        ),
    ] = 1e-6,
    objective: Annotated[
        Objective, typer.Option(help="tco or npv: the figure every analysis compares.")
    ] = Objective.TCO,
    lang: LangOption = None,
    amounts_in: AmountsOption = None,
) -> None:
    from procure import app as use
    from procure.common.errors import ProcureError
    from procure.common.runtime import Interrupted, guarded_run

    try:
        use.language(lang, amounts_in)
        planned = use.check_analyze_outputs(out, json_out, csv_dir)
        inputs = use.load_inputs(workload, offers, objective=objective)
        tr = use.language(lang, amounts_in, inputs.project)
        planned.files.forbid_inputs(inputs.files)  # --json w.yaml must not replace the workload or its catalog
    except ProcureError as exc:
        _fail(exc)
    _print_warnings(inputs.warnings)
    everything = not (break_even or sensitivity or monte_carlo)
    declared = bool(inputs.project.analysis.uncertainty)
    mc = monte_carlo or (inputs.project.analysis.scenarios if everything and declared else None)
    console = _console(stderr=planned.json_stdout)  # --json -: stdout is the JSON's alone
    try:
        with guarded_run():  # SIGINT/SIGTERM/SIGHUP: stop the workers and solvers, remove temp files, exit 128 + signal
            analysis = _run_analysis(
                use,
                inputs,
                console,
                break_even=break_even or everything,
                sensitivity=sensitivity or everything,
                monte_carlo=mc,
                monte_carlo_mode=monte_carlo_mode.value,
                bounds=monte_carlo_bounds,
                workers=workers,
                scheduler=scheduler,
                solver=solver.value,
                time_limit=time_limit,
                gap=gap,
                objective=objective,
                tr=tr,
            )
            if analysis.base.plan is None:
                raise typer.Exit(use.exit_code_for(analysis.base.status))
            for line in use.write_analysis_outputs(analysis, planned, tr):
                console.print(_esc(line))
            if planned.json_stdout:
                _echo_data(use.analysis_json(analysis), "--json")
    except ProcureError as exc:
        _fail(exc)
    except Interrupted as stop:
        _interrupted(stop)
    raise typer.Exit(use.exit_code_of(analysis.base))


@app.command(
    help="Why not this offer? Re-solve the whole plan with a job held to the offer and show, side by side "
    "with the recommended plan: the cost difference by category, the reason it lost (price, lead time, "
    "deadline, term, fit, excluded, budget, capacity, time limit) and the offer's break-even price.\n\n" + EXIT_CODES
)
def explain(
    workload: Annotated[Path, typer.Argument(help="workload.yaml")],
    offer: Annotated[str, typer.Option("--offer", help="The offer id to explain (see `procure offers list`).")],
    job: Annotated[
        str | None,
        typer.Option("--workload", help="The job to hold to the offer; default: every job that could use it."),
    ] = None,
    offers: Annotated[
        list[Path] | None,
        typer.Option("--offers", help="Catalog file(s); default: the workload's `offers`, else the bundled catalog."),
    ] = None,
    json_out: Annotated[
        str | None, typer.Option("--json", help="Write the explanation as JSON to FILE, or '-' for stdout.")
    ] = None,
    csv_out: Annotated[
        Path | None, typer.Option("--csv", help="Write the explanation table as one CSV file here.")
    ] = None,
    solver: Annotated[SolverName, typer.Option(help="MILP solver: cbc or highs.")] = SolverName.cbc,
    time_limit: Annotated[
        str, typer.Option("--time-limit", help="Seconds for the recommended plan's solve; 0 or none: no limit.")
    ] = "120",
    objective: Annotated[
        Objective, typer.Option(help="tco or npv: the figure both plans are compared on.")
    ] = Objective.TCO,
    lang: LangOption = None,
    amounts_in: AmountsOption = None,
) -> None:
    from procure import app as use, app_explain as explaining
    from procure.common.errors import ProcureError
    from procure.common.runtime import Interrupted, guarded_run

    try:
        tr = use.language(lang, amounts_in)
        outputs = explaining.check_explain_outputs(json_out, csv_out)
        inputs = use.load_inputs(workload, offers, objective=objective)
        tr = use.language(lang, amounts_in, inputs.project)
        outputs.forbid_inputs(inputs.files)
        explaining.check_explain_args(inputs, offer, job)
    except ProcureError as exc:
        _fail(exc)
    _print_warnings(inputs.warnings)
    from procure.reports.console import print_result
    from procure.reports.explain_report import print_explained

    console = _console(stderr=json_out == "-")
    try:
        with guarded_run():  # SIGINT/SIGTERM/SIGHUP: stop the solver, remove temp files, exit 128 + signal
            explained = explaining.explain(
                inputs,
                offer,
                job,
                solver=solver.value,
                objective=objective,
                time_limit=use.parse_time_limit(time_limit),
            )
            if explained.result.plan is None:
                print_result(console, explained.result, tr=tr)
            print_explained(console, explained, tr)
            for line in explaining.write_explain_outputs(explained, outputs, json_out, csv_out, tr):
                console.print(_esc(line))
    except ProcureError as exc:
        _fail(exc)
    except Interrupted as stop:
        _interrupted(stop)
    if json_out == "-":
        _echo_data(explaining.explain_json(explained), "--json")
    raise typer.Exit(use.exit_code_of(explained.result))


@app.command(
    help="Two or more workload files side by side — e.g. a negotiation round: same jobs, new quotes. "
    "First what changed in the inputs (every changed field of each offer, offers added and "
    "removed, workload and project settings), then the outcomes: totals, strategies, cost "
    "categories and where each workload runs, with the differences against the first file."
)
def compare(
    files: Annotated[list[Path], typer.Argument(help="workload.yaml files (two or more)")],
    offers: Annotated[
        list[Path] | None,
        typer.Option(
            "--offers", help="Catalog file(s) for every file; default: each file's `offers`, else the bundled catalog."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write the comparison workbook here (.xlsx): the input changes, then the outcomes."),
    ] = None,
    json_out: Annotated[
        str | None, typer.Option("--json", help="Write the comparison as JSON to FILE, or '-' for stdout.")
    ] = None,
    solver: Annotated[SolverName, typer.Option(help="MILP solver: cbc or highs.")] = SolverName.cbc,
    objective: Annotated[Objective, typer.Option(help="tco or npv.")] = Objective.TCO,
    lang: LangOption = None,
    amounts_in: AmountsOption = None,
) -> None:
    from procure import app as use, app_compare as comparing
    from procure.common.errors import ProcureError
    from procure.common.runtime import Interrupted, guarded_run

    try:
        # SIGINT/SIGTERM/SIGHUP: stop the solver, remove temp files, exit 128 + signal (as solve and analyze do)
        with guarded_run():
            use.language(lang, amounts_in)
            planned = comparing.check_compare_outputs(out, json_out)
            inputs, results = comparing.compare(files, offers, solver=solver.value, objective=objective)
            tr = use.language(
                lang, amounts_in, inputs[0].project
            )  # the first file's settings, like the comparison's currency
            planned.files.forbid_inputs([f for i in inputs for f in i.files])
            for i in inputs:
                _print_warnings(i.warnings)
            from procure.reports.analysis_console import print_comparison, print_input_diff

            c = comparing.comparison(files, inputs, results)
            console = _console(stderr=planned.json_stdout)  # --json -: stdout is the JSON's alone
            print_input_diff(console, c.files, c.changes, tr=tr)
            print_comparison(console, c.files, c.rows, c.currency, tr=tr)
            for line in comparing.write_compare_outputs(c, planned, tr):
                console.print(_esc(line))
            if planned.json_stdout:
                _echo_data(comparing.comparison_json(c), "--json")
    except ProcureError as exc:
        _fail(exc)
    except Interrupted as stop:
        _interrupted(stop)
    raise typer.Exit(0)


def _register_frontier() -> None:
    from procure.cli_frontier import HELP, frontier

    app.command(name="frontier", help=HELP + "\n\n" + EXIT_CODES)(frontier)


_register_frontier()


def main() -> None:
    """Entry point: run the app; a usage error (unknown option, missing argument) is bad input, exit 1."""
    try:
        rc = app(standalone_mode=False)
    except typer.Abort:  # Ctrl-C at a prompt
        _console(stderr=True).print("aborted", markup=False)
        sys.exit(ExitCode.INTERRUPTED)
    except typer.TyperException as exc:  # usage errors: the parser's message, then exit 1
        show = getattr(exc, "show", None)
        if show is not None:
            show()
        else:
            _console(stderr=True).print(f"Error: {exc.format_message()}", markup=False)
        sys.exit(ExitCode.INPUT)
    sys.exit(rc if isinstance(rc, int) else ExitCode.OK)
