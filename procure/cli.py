"""The command line (typer): thin — parse, call the library, print, exit with a documented code.

Heavy libraries (pandas, PuLP, openpyxl) are imported inside the commands that need them so that
``procure --help`` starts fast.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

EXIT_CODES = """Exit codes:
0 ok (a plan: optimal, or feasible with its proven gap at the time limit)
1 bad input: file, field, line/row and what is allowed are printed; also an output path that cannot be written
2 infeasible: the reasons are printed
3 no solution within the time limit, or the solver is missing or failed
4 internal verification failure: a bug; the plan broke a rule and is not shown"""

app = typer.Typer(
    name="procure",
    help="Plan GPU compute for LLM training: buy servers, rent bare metal or pay a cloud — at the lowest total cost of ownership.\n\n" + EXIT_CODES,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
offers_app = typer.Typer(help="Inspect, validate and create offer catalogs.", no_args_is_help=True)
app.add_typer(offers_app, name="offers")

EXIT_OK, EXIT_INPUT, EXIT_INFEASIBLE, EXIT_NO_SOLUTION, EXIT_VERIFY = 0, 1, 2, 3, 4


class Fmt(str, Enum):
    csv = "csv"
    xlsx = "xlsx"
    yaml = "yaml"


class SolverName(str, Enum):
    cbc = "cbc"
    highs = "highs"


class Objective(str, Enum):
    tco = "tco"
    npv = "npv"


def _console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False, width=None if sys.stdout.isatty() else 160)


def _esc(text) -> str:
    """User text (names, paths, values) must print as typed, never as rich markup ('[/b]' would crash)."""
    from rich.markup import escape

    return escape(str(text))


def _fail_input(exc) -> None:
    err = _console(stderr=True)
    for p in exc.problems:
        err.print(f"[red]✗[/red] {_esc(p)}", markup=True, highlight=False, soft_wrap=True)
    n = len(exc.problems)
    err.print(f"{n} problem{'s' if n != 1 else ''} found; nothing was written.", soft_wrap=True)
    raise typer.Exit(EXIT_INPUT)


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
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")] = False,
) -> None:
    pass


def _load_offers(offer_paths: list[Path] | None, project=None, project_path: Path | None = None):
    from procure.offers.catalog import load_catalog

    paths = offer_paths or None
    if paths is None and project is not None and project.offers:
        base = project_path.parent if project_path else Path(".")
        paths = [base / p for p in project.offers]
    return load_catalog(paths)


# --- offers ------------------------------------------------------------------------------------

@offers_app.command("list")
def offers_list(
    offers: Annotated[Optional[list[Path]], typer.Option("--offers", help="Catalog file(s) (.yaml, .csv, .xlsx); default: the bundled catalog.")] = None,
    gpu: Annotated[Optional[str], typer.Option(help="Only offers of this GPU (id or alias).")] = None,
    mode: Annotated[Optional[str], typer.Option(help="Only offers of this mode: buy, rent or cloud.")] = None,
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
        cat = _load_offers(offers)
    except InputError as exc:
        _fail_input(exc)
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
        _console(stderr=True).print(f"no offer matches the filters: of the catalog's {len(cat.offers)} offers, {' and '.join(parts)}", markup=False, soft_wrap=True)


@offers_app.command("validate")
def offers_validate(paths: Annotated[list[Path], typer.Argument(help="Catalog files to check (.yaml, .csv, .xlsx).")]) -> None:
    """Check catalog files; report every problem with its file, row or line; exit 1 if any."""
    from procure.models.errors import InputError
    from procure.offers.catalog import load_catalog

    try:
        cat = load_catalog(paths)
    except InputError as exc:
        _fail_input(exc)
    _print_warnings(cat.warnings)
    modes = sorted({o.mode for o in cat.offers})
    typer.echo(f"ok: {len(cat.offers)} offers ({', '.join(modes)}) in {len(paths)} file(s)")


@offers_app.command("template")
def offers_template(
    format: Annotated[Fmt, typer.Option("--format", help="csv, xlsx or yaml.")] = Fmt.xlsx,
    out: Annotated[Path, typer.Option("--out", help="File to write.")] = Path("offers.xlsx"),
) -> None:
    """Write an empty, documented catalog to type vendor quotes into."""
    from procure.models.errors import InputError
    from procure.offers.catalog import write_template

    try:
        write_template(format.value, out)
    except InputError as exc:
        _fail_input(exc)
    typer.echo(f"wrote {out}: fill one row per offer, then run: procure offers validate {out}")


# --- size --------------------------------------------------------------------------------------

@app.command()
def size(
    workload: Annotated[Path, typer.Argument(help="workload.yaml")],
    offers: Annotated[Optional[list[Path]], typer.Option("--offers", help="Catalog file(s); default: the workload's `offers`, else the bundled catalog.")] = None,
    json_out: Annotated[Optional[str], typer.Option("--json", help="Write the sizing as JSON to FILE, or '-' for stdout.")] = None,
    gpu: Annotated[Optional[str], typer.Option(help="Size on reference nodes of this GPU instead of a catalog.")] = None,
    gpus: Annotated[Optional[int], typer.Option(help="Total GPUs for --gpu.", min=1)] = None,
) -> None:
    """Size each workload: GPU memory, FLOPs, and hours and fit on every cluster shape."""
    from procure.models.errors import InputError, Problem
    from procure.models.fileio import check_writable
    from procure.models.gpu import gpu_table
    from procure.models.project import load_project

    try:
        if json_out and json_out != "-":
            check_writable(json_out, "--json")
        project, warnings = load_project(workload)
        if (gpu is None) != (gpus is None):
            raise InputError([Problem("command line", "--gpu/--gpus", "give both --gpu and --gpus, or neither")])
        if gpu is not None:
            gid = gpu_table().resolve(gpu)
            if gid is None:
                raise InputError([Problem("--gpu", "gpu", gpu_table().unknown_message(gpu))])
            from procure.solver.sizing import reference_offer

            ref, _nodes = reference_offer(gid, gpus)
            offer_list, only_nodes = [ref], _nodes
        else:
            cat = _load_offers(offers, project, workload)
            warnings += cat.warnings
            offer_list, only_nodes = cat.offers, None
    except InputError as exc:
        _fail_input(exc)
    _print_warnings(warnings)
    from procure.solver.sizing import size_project, size_workload

    if only_nodes is not None:
        sizings = []
        for w in project.workloads:
            sz = size_workload(w, offer_list, project.sizing, project.team_area)
            sz.candidates[:] = [c for c in sz.candidates if c.nodes == only_nodes] or sz.candidates
            sizings.append(sz)
    else:
        sizings = size_project(project, offer_list)
    from procure.reports.sizing_report import print_sizing, sizing_to_json

    if json_out:
        import json

        text = json.dumps(sizing_to_json(sizings), indent=2)
        if json_out == "-":
            typer.echo(text)
            return
        from procure.models.fileio import atomic_write

        try:
            atomic_write(json_out, text.encode("utf-8"), "--json")
        except InputError as exc:
            _fail_input(exc)
    print_sizing(_console(), sizings)


# --- solve -------------------------------------------------------------------------------------

@app.command(help="Choose buy / rent / cloud, how many nodes of which offer and when, at the least total cost of ownership. Prints the plan and why; optionally writes the Excel workbook, JSON and CSV.\n\n" + EXIT_CODES)
def solve(
    workload: Annotated[Path, typer.Argument(help="workload.yaml")],
    offers: Annotated[Optional[list[Path]], typer.Option("--offers", help="Catalog file(s); default: the workload's `offers`, else the bundled catalog.")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Write the Excel workbook for the approval meeting here (.xlsx).")] = None,
    json_out: Annotated[Optional[Path], typer.Option("--json", help="Write the plan as JSON here.")] = None,
    csv_dir: Annotated[Optional[Path], typer.Option("--csv", help="Write the report's tables as CSV files into this folder.")] = None,
    solver: Annotated[SolverName, typer.Option(help="MILP solver: cbc (bundled with PuLP) or highs (pip install 'procure\\[highs]').")] = SolverName.cbc,
    time_limit: Annotated[Optional[float], typer.Option("--time-limit", help="Seconds per solve; at the limit the best plan found is reported as 'feasible' with its proven gap.", min=0.1)] = None,
    gap: Annotated[float, typer.Option(help="Relative optimality gap at which the solver may stop.", min=0.0, max=1.0)] = 1e-6,
    objective: Annotated[Objective, typer.Option(help="tco: total cost of ownership; npv: discounted cash flows (needs discount_rate).")] = Objective.tco,
    compare: Annotated[bool, typer.Option(help="Also solve buy-only, rent-only and cloud-only for the comparison.")] = True,
) -> None:
    from procure.models.errors import InputError, Problem
    from procure.models.fileio import check_writable
    from procure.models.project import load_project

    try:
        if out is not None:
            if out.suffix.lower() != ".xlsx":
                raise InputError([Problem(str(out), "--out", "the workbook must end in .xlsx")])
            check_writable(out, "--out")
        if json_out is not None:
            check_writable(json_out, "--json")
        if csv_dir is not None:
            # the folder itself may be new (write_csv creates it); its parent must be writable
            check_writable(csv_dir / "plan.csv" if csv_dir.is_dir() else csv_dir, "--csv")
        project, warnings = load_project(workload)
        cat = _load_offers(offers, project, workload)
        warnings += cat.warnings
        from procure.offers.catalog import horizon_warnings

        warnings += horizon_warnings(cat, project.horizon_months)
        if objective == Objective.npv and project.discount_rate == 0:
            warnings.append(Problem(str(workload), "discount_rate", "--objective npv with discount_rate 0 is the same as tco", warning=True))
    except InputError as exc:
        _fail_input(exc)
    _print_warnings(warnings)

    from procure.solver.milp import SolverFailed, SolverUnavailable
    from procure.solver.planner import plan_project
    from procure.solver.verify import VerificationError

    err = _console(stderr=True)
    try:
        result = plan_project(project, cat.offers, solver=solver.value, time_limit=time_limit, gap=gap, objective=objective.value, compare=compare)
    except (SolverUnavailable, SolverFailed) as exc:
        err.print(f"[red]✗[/red] solver problem: {_esc(exc)}", soft_wrap=True)
        raise typer.Exit(EXIT_NO_SOLUTION)
    except VerificationError as exc:
        err.print("[red]✗ internal error: the optimizer's plan failed independent verification and is not shown.[/red]", soft_wrap=True)
        for v in exc.violations:
            err.print(f"  - {_esc(v)}", soft_wrap=True)
        err.print("This is a bug in procure; please report it with your input files.", soft_wrap=True)
        raise typer.Exit(EXIT_VERIFY)

    from procure.reports.console import print_result
    from procure.reports.json_report import result_to_json

    console = _console()
    print_result(console, result, inputs=[workload, *cat.files])
    status = result.status
    try:
        if json_out is not None:
            import json

            from procure.models.fileio import atomic_write

            atomic_write(json_out, json.dumps(result_to_json(result), indent=2).encode("utf-8"), "--json")
            console.print(f"wrote {_esc(json_out)}")
        if result.plan is not None and out is not None:
            from procure.reports.xlsx import write_workbook

            write_workbook(result, out, inputs=[workload, *cat.files])
            console.print(f"wrote {_esc(out)}")
        if result.plan is not None and csv_dir is not None:
            from procure.reports.csv_report import write_csv

            write_csv(result, csv_dir, inputs=[workload, *cat.files])
            console.print(f"wrote CSV tables to {_esc(csv_dir)}")
    except InputError as exc:
        _fail_input(exc)
    if status in ("optimal", "feasible"):
        raise typer.Exit(EXIT_OK)
    if status == "infeasible":
        raise typer.Exit(EXIT_INFEASIBLE)
    raise typer.Exit(EXIT_NO_SOLUTION)


def main() -> None:
    app()
