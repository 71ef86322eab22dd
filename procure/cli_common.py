"""What every command of the command line shares: its option vocabularies, the console, writing a result
to stdout, escaping text for the console, and turning an error or an interruption into its exit code."""

from __future__ import annotations

import logging
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from procure.common.errors import ExitCode

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


def _fail(exc, all_errors: bool = False) -> NoReturn:
    """Print a ProcureError the way its family is documented, and exit with its code."""
    from procure.common.errors import InputError, render_problems
    from procure.solver.verify import Disagreement, VerificationError

    err = _console(stderr=True)
    if isinstance(exc, InputError):
        for line in render_problems(exc, all_errors):
            mark = "  " if line.startswith("… and") else "[red]✗[/red] "
            err.print(f"{mark}{_esc(line)}", markup=True, highlight=False, soft_wrap=True)
        n = exc.count
        err.print(f"{n:,} problem{'s' if n != 1 else ''} found; nothing was written.", soft_wrap=True)
    elif isinstance(exc, VerificationError):
        head = (
            f"the {_esc(exc.strategy)} model priced its plan differently from the ledger; no plan is shown."
            if isinstance(exc, Disagreement)
            else "the optimizer's plan failed independent verification and is not shown."
        )
        err.print(f"[red]✗ internal error: {head}[/red]", soft_wrap=True)
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


def _interrupted(stop) -> NoReturn:
    """SIGINT/SIGTERM/SIGHUP (``procure.common.runtime.Interrupted``): one line, exit 128 + the signal."""
    _console(stderr=True).print(
        f"interrupted ({stop.name}): the solver was stopped and its temp files removed; no output is left half-written",
        markup=False,
        soft_wrap=True,
    )
    raise typer.Exit(stop.exit_code) from None


def _usage(option: str, message: str):
    from procure.common.errors import InputError, Problem

    return InputError([Problem("command line", option, message)])


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
