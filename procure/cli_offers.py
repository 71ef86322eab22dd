"""The ``procure offers`` commands: list, validate and template a catalog, and import or fetch public price
lists into one (procure.offers)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from procure.cli_common import (
    AllErrors,
    CatalogOut,
    Fmt,
    ForceOption,
    GpuFilter,
    MaxNodesOption,
    RegionFilter,
    _console,
    _fail,
    _print_warnings,
)

offers_app = typer.Typer(help="Inspect, validate and create offer catalogs.", no_args_is_help=True)


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
    from procure.common.errors import InputError, Problem, unknown_choice
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
    from procure.common.errors import InputError
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
    from procure.common.errors import InputError
    from procure.offers.catalog import template_format, write_template

    try:
        write_template(template_format(format.value if format is not None else None, out), out, overwrite=force)
    except InputError as exc:
        _fail(exc)
    from procure.common.text import printable

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
    from procure.common.errors import ProcureError
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
    from procure.common.errors import ProcureError
    from procure.offers.live import run_fetch

    try:
        done = run_fetch(provider, out, max_nodes, force, gpu, region)
    except ProcureError as exc:
        _fail(exc)
    _print_warnings(done.warnings)
    typer.echo(done.summary)
