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
from typing import Annotated, NoReturn

import typer

from procure.models.errors import ExitCode
from procure.solver.enums import Objective

EXIT_CODES = """Exit codes:
0 ok (a plan: optimal, or feasible with its proven gap at the time limit)
1 bad input or usage: file, field, line/row and what is allowed are printed; also an output path that cannot be written
2 infeasible: the reasons are printed
3 no solution within the time limit, or the solver is missing or failed
4 internal verification failure: a bug; the plan broke a rule and is not shown
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
offers_app = typer.Typer(help="Inspect, validate and create offer catalogs.", no_args_is_help=True)
app.add_typer(offers_app, name="offers")

log = logging.getLogger("procure")


class Fmt(StrEnum):
    csv = "csv"
    xlsx = "xlsx"
    yaml = "yaml"


class SolverName(StrEnum):
    cbc = "cbc"
    highs = "highs"


def _console(stderr: bool = False):
    from procure.reports.terminal import console

    return console(stderr)


def _echo_data(text: str, option: str) -> None:
    """A result on stdout (``--json -``): unlike the console's text it is the output, so a stream that is
    closed, full or a pipe nobody reads is an error (exit 1) with one line on stderr, never a traceback."""
    import errno

    from procure.reports.terminal import discard

    try:
        if sys.stdout is None:
            raise OSError(errno.EBADF, "standard output is closed")
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except OSError as exc:
        discard(sys.stdout)
        _console(stderr=True).print(
            f"[red]✗[/red] standard output ({option} -): could not write the result: {_esc(exc.strerror or str(exc))}",
            soft_wrap=True,
        )
        raise typer.Exit(ExitCode.INPUT) from None


def _esc(text) -> str:
    """User text (names, paths, values) must print as typed, never as rich markup ('[/b]' would crash)."""
    from rich.markup import escape

    return escape(str(text))


AllErrors = Annotated[
    bool, typer.Option("--all-errors", help="Print every problem found (by default at most 50 per file).")
]
# the reader's language: every command that reports a plan takes these two
LangOption = Annotated[
    str | None,
    typer.Option(
        "--lang",
        help="Language of the console, the workbook and the CSV header rows: en or zh-CN "
        "(default: the workload's `language`, else en). The JSON stays English.",
    ),
]
AmountsOption = Annotated[
    str | None,
    typer.Option(
        "--amounts-in",
        help="Show amounts in units of the currency (unit) or in 万 (wan: 10,000) "
        "(default: the workload's `amounts_in`, else unit).",
    ),
]
#: the options ``offers import`` and ``offers fetch`` share
CatalogOut = Annotated[Path, typer.Option("--out", help="The catalog to write (.yaml, .yml or .csv).")]
MaxNodesOption = Annotated[
    int, typer.Option("--max-nodes", help="Most nodes available from each imported offer.", min=1, max=100_000)
]
GpuFilter = Annotated[
    list[str] | None, typer.Option("--gpu", help="Keep only offers of this GPU (id or alias; repeatable).")
]
RegionFilter = Annotated[
    list[str] | None,
    typer.Option("--region", help="Keep only offers in this region or area, e.g. us-east, eu (repeatable)."),
]
ForceOption = Annotated[bool, typer.Option("--force", help="Replace --out if it exists.")]


def _fail(exc, all_errors: bool = False) -> NoReturn:
    """Print a ProcureError the way its family is documented, and exit with its code."""
    from procure.models.errors import InputError, render_problems
    from procure.solver.verify import VerificationError

    err = _console(stderr=True)
    if isinstance(exc, InputError):
        for line in render_problems(exc, all_errors):
            mark = "  " if line.startswith("… and") else "[red]✗[/red] "
            err.print(f"{mark}{_esc(line)}", markup=True, highlight=False, soft_wrap=True)
        n = exc.count
        err.print(f"{n:,} problem{'s' if n != 1 else ''} found; nothing was written.", soft_wrap=True)
    elif isinstance(exc, VerificationError):
        err.print(
            "[red]✗ internal error: the optimizer's plan failed independent verification and is not shown.[/red]",
            soft_wrap=True,
        )
        for v in exc.violations:
            err.print(f"  - {_esc(v)}", soft_wrap=True)
        err.print("This is a bug in procure; please report it with your input files.", soft_wrap=True)
    else:  # the solver is missing or failed
        err.print(f"[red]✗[/red] solver problem: {_esc(exc)}", soft_wrap=True)
    raise typer.Exit(exc.exit_code)


def _print_warnings(warnings) -> None:
    if not warnings:
        return
    err = _console(stderr=True)
    for w in warnings:
        err.print(f"[yellow]![/yellow] {_esc(w)}", soft_wrap=True)


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


@offers_app.command("list")
def offers_list(
    offers: Annotated[
        list[Path] | None,
        typer.Option("--offers", help="Catalog file(s) (.yaml, .csv, .xlsx); default: the bundled catalog."),
    ] = None,
    gpu: Annotated[str | None, typer.Option(help="Only offers of this GPU (id or alias).")] = None,
    mode: Annotated[str | None, typer.Option(help="Only offers of this mode: buy, rent or cloud.")] = None,
    all_errors: AllErrors = False,
) -> None:
    """Show the offers of a catalog as a table."""
    from procure.models.errors import InputError, Problem, unknown_choice
    from procure.models.gpu import gpu_table
    from procure.models.offer import MODES

    try:
        problems = []
        gid = None
        if gpu is not None:
            gid = gpu_table().resolve(gpu)
            if gid is None:
                problems.append(Problem("command line", "--gpu", gpu_table().unknown_message(gpu)))
        if mode is not None and mode not in MODES:
            problems.append(Problem("command line", "--mode", unknown_choice("mode", mode, MODES)))
        if problems:
            raise InputError(problems)
        from procure.app import load_offers

        cat = load_offers(offers)
    except InputError as exc:
        _fail(exc, all_errors)
    from procure.reports.console import print_offers

    rows = [o for o in cat.offers if (gid is None or o.gpu == gid) and (mode is None or o.mode == mode)]
    print_offers(_console(), rows, cat)
    _print_warnings(cat.warnings)
    if not rows:
        parts = []
        if gid:
            parts.append(f"{sum(o.gpu == gid for o in cat.offers)} have GPU {gid}")
        if mode:
            parts.append(f"{sum(o.mode == mode for o in cat.offers)} are {mode} offers")
        _console(stderr=True).print(
            f"no offer matches the filters: of the catalog's {len(cat.offers)} offers, {' and '.join(parts)}",
            markup=False,
            soft_wrap=True,
        )


@offers_app.command("validate")
def offers_validate(
    paths: Annotated[list[Path], typer.Argument(help="Catalog files to check (.yaml, .csv, .xlsx).")],
    all_errors: AllErrors = False,
) -> None:
    """Check catalog files; report every problem with its file, row or line; exit 1 if any."""
    from procure.models.errors import InputError
    from procure.offers.catalog import load_catalog

    try:
        cat = load_catalog(paths)
    except InputError as exc:
        _fail(exc, all_errors)
    _print_warnings(cat.warnings)
    modes = sorted({o.mode for o in cat.offers})
    typer.echo(f"ok: {len(cat.offers)} offers ({', '.join(modes)}) in {len(paths)} file(s)")


@offers_app.command("template")
def offers_template(
    format: Annotated[
        Fmt | None,
        typer.Option(
            "--format",
            help="csv, xlsx or yaml; default: the suffix of --out (.csv, .xlsx, .yaml or .yml). A --format that contradicts the suffix is refused.",
        ),
    ] = None,
    out: Annotated[Path, typer.Option("--out", help="File to write.")] = Path("offers.xlsx"),
    force: Annotated[bool, typer.Option("--force", help="Replace the file if it exists.")] = False,
) -> None:
    """Write an empty, documented catalog to type vendor quotes into."""
    from procure.models.errors import InputError
    from procure.offers.catalog import template_format, write_template

    try:
        write_template(template_format(format.value if format is not None else None, out), out, overwrite=force)
    except InputError as exc:
        _fail(exc)
    from procure.models.text import printable

    shown = printable(str(out))  # a path is user text too
    typer.echo(f"wrote {shown}: fill one row per offer, then run: procure offers validate {shown}")


@offers_app.command("import")
def offers_import(
    file: Annotated[Path, typer.Argument(help="A gpuhunt CSV (e.g. aws.csv) or a SkyPilot vms.csv.")],
    source_format: Annotated[str, typer.Option("--from", help="The file's format: gpuhunt or skypilot.")],
    out: CatalogOut = Path("offers.yaml"),
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            help="Date of the prices, YYYY-MM-DD (default: a date in the file's name or folder, else its modification date).",
        ),
    ] = None,
    mode: Annotated[str, typer.Option("--mode", help="The offers' mode: cloud (hourly prices).")] = "cloud",
    provider: Annotated[
        str | None,
        typer.Option(
            "--provider",
            help="The provider (aws, gcp, azure, lambda, runpod, …); default: from the file name or its folder.",
        ),
    ] = None,
    max_nodes: MaxNodesOption = 8,
    gpu: GpuFilter = None,
    region: RegionFilter = None,
    force: ForceOption = False,
    all_errors: AllErrors = False,
) -> None:
    """Turn a public price catalog (gpuhunt, SkyPilot) into procure cloud offers, each with its source row and date."""
    from procure.models.errors import ProcureError
    from procure.offers.live import run_import

    try:
        done = run_import(file, source_format, out, as_of, mode, provider, max_nodes, force, gpu, region)
    except ProcureError as exc:
        _fail(exc, all_errors)
    _print_warnings(done.warnings)
    typer.echo(done.summary)


@offers_app.command("fetch")
def offers_fetch(
    provider: Annotated[
        list[str],
        typer.Option("--provider", help="Provider(s) to fetch from gpuhunt: aws, gcp, azure, lambdalabs, runpod, …"),
    ],
    out: CatalogOut = Path("offers.yaml"),
    max_nodes: MaxNodesOption = 8,
    gpu: GpuFilter = None,
    region: RegionFilter = None,
    force: ForceOption = False,
) -> None:
    """Fetch today's cloud GPU prices through the gpuhunt library (pip install 'procure[live]'); needs internet."""
    from procure.models.errors import ProcureError
    from procure.offers.live import run_fetch

    try:
        done = run_fetch(provider, out, max_nodes, force, gpu, region)
    except ProcureError as exc:
        _fail(exc)
    _print_warnings(done.warnings)
    typer.echo(done.summary)


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
    gpu: Annotated[str | None, typer.Option(help="Size on reference nodes of this GPU instead of a catalog.")] = None,
    gpus: Annotated[int | None, typer.Option(help="Total GPUs for --gpu.", min=1)] = None,
    all_errors: AllErrors = False,
) -> None:
    """Size each workload: GPU memory, FLOPs, and hours and fit on every cluster shape."""
    from procure import app as use
    from procure.models.errors import ProcureError
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
            from procure.models.errors import Problem
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
        SolverName, typer.Option(help="MILP solver: cbc (bundled with PuLP) or highs (pip install 'procure\\[highs]').")
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
        Objective, typer.Option(help="tco: total cost of ownership; npv: discounted cash flows (needs discount_rate).")
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
    lang: LangOption = None,
    amounts_in: AmountsOption = None,
) -> None:
    from procure import app as use
    from procure.models.errors import ProcureError
    from procure.progress import Reporter
    from procure.runtime import Budget, Interrupted, guarded_run, process_started

    try:
        # the clock started with the process: the interpreter's start-up and the imports count too
        budget = Budget(use.parse_time_limit(time_limit), started=process_started())
        if analyze and not compare:  # a usage error, before any file is read or any solve runs
            raise _usage("--analyze", "--analyze compares the strategies; drop --no-compare")
        use.language(lang, amounts_in)
        planned = use.check_solve_outputs(out, json_out, csv_dir, focus)
        inputs = use.load_inputs(workload, offers, objective=objective.value)
        tr = use.language(lang, amounts_in, inputs.project)
        planned.files.forbid_inputs(inputs.files)
    except ProcureError as exc:
        _fail(exc, all_errors)
    _print_warnings(inputs.warnings)
    progress = Reporter.for_stderr(quiet, inputs.project.currency, objective.value, tr)
    try:
        with guarded_run():  # SIGINT/SIGTERM/SIGHUP: stop the solver, remove temp files, exit 128 + signal
            try:
                result = use.solve(
                    inputs,
                    solver=solver.value,
                    gap=gap,
                    objective=objective.value,
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
                    objective=objective.value,
                    base=result,
                    tr=tr,
                    deadline=use.analysis_deadline(budget, inputs),
                )
            for line in use.write_outputs(result, inputs, planned, analysis=analysis, tr=tr):
                console.print(_esc(line))
            if planned.json_stdout:
                _echo_data(use.result_json(result, inputs.files), "--json")
    except ProcureError as exc:
        _fail(exc)
    except Interrupted as stop:
        _interrupted(stop)
    raise typer.Exit(use.exit_code_of(result))


def _interrupted(stop) -> NoReturn:
    """SIGINT/SIGTERM/SIGHUP (``procure.runtime.Interrupted``): one line, exit 128 + the signal."""
    _console(stderr=True).print(
        f"interrupted ({stop.name}): the solver was stopped and its temp files removed; no output is left half-written",
        markup=False,
        soft_wrap=True,
    )
    raise typer.Exit(stop.exit_code) from None


# --- analyze and compare ---------------------------------------------------------------------------


def _usage(option: str, message: str):
    from procure.models.errors import InputError, Problem

    return InputError([Problem("command line", option, message)])


def _run_analysis(use, inputs, console, tr=None, **kw):
    """Run the analysis with a progress bar on a terminal; print it (in the reader's language ``tr``); return it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from procure.models.errors import ProcureError
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
    "`analysis:` in the workload file — every answer re-optimized. Without --break-even/--sensitivity/"
    "--monte-carlo all three run (Monte Carlo when analysis.uncertainty is declared).\n\n" + EXIT_CODES
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
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the analysis as JSON here.")] = None,
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
    from procure.models.errors import ProcureError
    from procure.runtime import Interrupted, guarded_run

    try:
        use.language(lang, amounts_in)
        planned = use.check_analyze_outputs(out, json_out, csv_dir)
        inputs = use.load_inputs(workload, offers, objective=objective.value)
        tr = use.language(lang, amounts_in, inputs.project)
    except ProcureError as exc:
        _fail(exc)
    _print_warnings(inputs.warnings)
    everything = not (break_even or sensitivity or monte_carlo)
    declared = bool(inputs.project.analysis.uncertainty)
    mc = monte_carlo or (inputs.project.analysis.scenarios if everything and declared else None)
    console = _console()
    try:
        with guarded_run():  # SIGINT/SIGTERM/SIGHUP: stop the workers and solvers, remove temp files, exit 128 + signal
            analysis = _run_analysis(
                use,
                inputs,
                console,
                break_even=break_even or everything,
                sensitivity=sensitivity or everything,
                monte_carlo=mc,
                workers=workers,
                scheduler=scheduler,
                solver=solver.value,
                time_limit=time_limit,
                gap=gap,
                objective=objective.value,
                tr=tr,
            )
            if analysis.base.plan is None:
                raise typer.Exit(use.exit_code_for(analysis.base.status))
            for line in use.write_analysis_outputs(analysis, planned, tr):
                console.print(_esc(line))
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
    from procure import app as use
    from procure.models.errors import ProcureError
    from procure.runtime import Interrupted, guarded_run

    try:
        tr = use.language(lang, amounts_in)
        outputs = use.check_explain_outputs(json_out, csv_out)
        inputs = use.load_inputs(workload, offers, objective=objective.value)
        tr = use.language(lang, amounts_in, inputs.project)
        outputs.forbid_inputs(inputs.files)
        use.check_explain_args(inputs, offer, job)
    except ProcureError as exc:
        _fail(exc)
    _print_warnings(inputs.warnings)
    from procure.reports.console import print_result
    from procure.reports.explain_report import print_explained

    console = _console(stderr=json_out == "-")
    try:
        with guarded_run():  # SIGINT/SIGTERM/SIGHUP: stop the solver, remove temp files, exit 128 + signal
            explained = use.explain(
                inputs,
                offer,
                job,
                solver=solver.value,
                objective=objective.value,
                time_limit=use.parse_time_limit(time_limit),
            )
            if explained.result.plan is None:
                print_result(console, explained.result, tr=tr)
            print_explained(console, explained, tr)
            for line in use.write_explain_outputs(explained, outputs, json_out, csv_out, tr):
                console.print(_esc(line))
    except ProcureError as exc:
        _fail(exc)
    except Interrupted as stop:
        _interrupted(stop)
    if json_out == "-":
        _echo_data(use.explain_json(explained), "--json")
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
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the comparison as JSON here.")] = None,
    solver: Annotated[SolverName, typer.Option(help="MILP solver: cbc or highs.")] = SolverName.cbc,
    objective: Annotated[Objective, typer.Option(help="tco or npv.")] = Objective.TCO,
    lang: LangOption = None,
    amounts_in: AmountsOption = None,
) -> None:
    from procure import app as use
    from procure.models.errors import ProcureError
    from procure.runtime import Interrupted, guarded_run

    try:
        # SIGINT/SIGTERM/SIGHUP: stop the solver, remove temp files, exit 128 + signal (as solve and analyze do)
        with guarded_run():
            use.language(lang, amounts_in)
            planned = use.check_compare_outputs(out, json_out)
            inputs, results = use.compare(files, offers, solver=solver.value, objective=objective.value)
            tr = use.language(
                lang, amounts_in, inputs[0].project
            )  # the first file's settings, like the comparison's currency
            planned.files.forbid_inputs([f for i in inputs for f in i.files])
            for i in inputs:
                _print_warnings(i.warnings)
            from procure.reports.analysis_console import print_comparison, print_input_diff

            c = use.comparison(files, inputs, results)
            console = _console()
            print_input_diff(console, c.files, c.changes, tr=tr)
            print_comparison(console, c.files, c.rows, c.currency, tr=tr)
            for line in use.write_compare_outputs(c, planned, tr):
                console.print(_esc(line))
    except ProcureError as exc:
        _fail(exc)
    except Interrupted as stop:
        _interrupted(stop)
    raise typer.Exit(0)


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
