"""The use cases behind ``procure offers import`` and ``procure offers fetch``: check the options and the
output first, build the offers (``offers.importers``), then write the catalog completely or not at all.

``fetch`` reads today's prices through the optional ``gpuhunt`` library (``pip install 'procure[live]'``):
gpuhunt downloads dstack's published catalog and queries the providers whose prices are only online.
Without the library, or without a network, the command says so and writes nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from procure.common.errors import InputError, Problem, ProblemLog
from procure.common.text import echo
from procure.fileio.outputs import Outputs

from .importers import FORMATS, PROVIDERS, Imported, Item, _build, catalog_csv, catalog_yaml, import_file

#: catalog items one fetch may turn into offers (gpuhunt's whole catalog is about 300,000 rows)
MAX_FETCH_ITEMS = 1_000_000
LIVE_HINT = "pip install 'procure[live]'"
#: SkyPilot's provider names → gpuhunt's
GPUHUNT_NAMES = {"lambda": "lambdalabs", "vast": "vastai"}
#: the loggers a fetch silences meanwhile: gpuhunt's own, and that of the HTTP client its online providers use
#: (requests → urllib3); what they log at WARNING and above is kept and said in one line each, never a traceback
LIBRARY_LOGGERS = ("gpuhunt", "urllib3")
#: library log lines kept as warnings of one fetch (the rest are counted)
MAX_LIBRARY_WARNINGS = 5


@dataclass
class Done:
    summary: str
    warnings: list[Problem] = field(default_factory=list)


def _declare(out: Path, force: bool, inputs: list[Path]) -> Outputs:
    if Path(out).suffix.lower() not in (".yaml", ".yml", ".csv"):
        raise InputError(
            [Problem(str(out), "--out", "the imported catalog is written as YAML or CSV: name it .yaml, .yml or .csv")]
        )
    outputs = Outputs(overwrite=force)
    outputs.add(out, "--out")
    outputs.forbid_inputs(inputs)
    return outputs


def _as_of(text: str | None) -> dt.date | None:
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        raise InputError(
            [Problem("command line", "--as-of", f"{echo(text)} is not a date; give YYYY-MM-DD, e.g. 2026-03-01")]
        ) from None


def run_import(
    file: Path,
    fmt: str,
    out: Path,
    as_of: str | None,
    mode: str,
    provider: str | None,
    max_nodes: int,
    force: bool,
    gpus: list[str] | None = None,
    regions: list[str] | None = None,
) -> Done:
    """``procure offers import``: the offers of ``file`` written to ``out`` (YAML or CSV), with a one-line summary."""
    problems = []
    if fmt not in FORMATS:
        problems.append(Problem("command line", "--from", f"unknown format {echo(fmt)}; allowed: gpuhunt, skypilot"))
    if mode != "cloud":
        problems.append(
            Problem(
                "command line",
                "--mode",
                f"{echo(mode)}: public catalogs quote hourly cloud prices, so the offers are cloud offers; "
                "a monthly rental or a purchase is a quote to enter with `procure offers template`",
            )
        )
    if problems:
        raise InputError(problems)
    day = _as_of(as_of)
    only_gpus, only_regions = filters(gpus, regions)
    outputs = _declare(out, force, [file])
    result = import_file(
        Path(file),
        fmt,
        as_of=day,
        provider=provider,
        max_nodes=max_nodes,
        only_gpus=only_gpus,
        only_regions=only_regions,
    )
    return _write(result, outputs, out, Path(file))


def _catalog_bytes(result: Imported, out: Path, origin: Path) -> bytes:
    """The catalog in the format of ``out``'s suffix; a YAML catalog too big to read back is refused."""
    from procure.fileio.limits import MAX_OFFERS
    from procure.fileio.yamlio import parse_yaml

    if Path(out).suffix.lower() == ".csv":
        if len(result.offers) > MAX_OFFERS:
            raise InputError(
                [
                    Problem(
                        str(out),
                        "--out",
                        f"{len(result.offers):,} offers; a catalog file holds at most {MAX_OFFERS:,}: narrow with --gpu or --region",
                    )
                ]
            )
        return catalog_csv(result).encode("utf-8")
    text = catalog_yaml(result, origin)
    try:
        parse_yaml(text, str(out))  # read back within the YAML limits, or not written
    except InputError:
        raise InputError(
            [
                Problem(
                    str(out),
                    "--out",
                    f"{len(result.offers):,} offers are more than a YAML catalog holds (about 8,000); "
                    "write --out offers.csv, or narrow with --gpu or --region",
                )
            ]
        ) from None
    return text.encode("utf-8")


def filters(gpus: list[str] | None, regions: list[str] | None) -> tuple[frozenset[str], tuple[str, ...]]:
    """``--gpu`` (ids or aliases of the GPU table) and ``--region`` (procure regions, areas or city aliases)."""
    from procure.models.gpu import gpu_table
    from procure.models.regions import resolve_region

    problems, ids, places = [], set(), []
    for g in gpus or []:
        gid = gpu_table().resolve(g)
        if gid is None:
            problems.append(Problem("command line", "--gpu", gpu_table().unknown_message(g)))
        else:
            ids.add(gid)
    for r in regions or []:
        try:
            places.append(resolve_region(r))
        except ValueError as exc:
            problems.append(Problem("command line", "--region", str(exc)))
    if problems:
        raise InputError(problems)
    return frozenset(ids), tuple(places)


def _write(result: Imported, outputs: Outputs, out: Path, origin: Path) -> Done:
    if not result.offers:
        raise InputError(
            [
                Problem(
                    str(origin),
                    "",
                    "no GPU offer procure can plan on: "
                    + result.summary(origin, out).split("; ", 1)[-1]
                    + "; nothing was written",
                )
            ]
        )
    outputs.put(outputs.targets[0], _catalog_bytes(result, out, origin))
    outputs.commit()
    return Done(result.summary(origin, out), result.warnings)


# --- fetch (gpuhunt, online) ---------------------------------------------------------------------------


def _gpuhunt():
    try:
        import gpuhunt
    except ImportError:
        raise InputError(
            [
                Problem(
                    "command line",
                    "fetch",
                    f"fetching live prices needs the gpuhunt library, which is not installed: {LIVE_HINT} "
                    "(or download a gpuhunt or SkyPilot catalog file and run `procure offers import FILE --from ...`)",
                )
            ]
        ) from None
    return gpuhunt


def _offline(exc: BaseException) -> bool:
    """Whether an error of gpuhunt's query means the catalog could not be fetched: a network error (urllib and
    requests errors derive from OSError) or gpuhunt's own GPUHuntError, which it raises when its download fails."""
    return isinstance(exc, OSError | ConnectionError | TimeoutError) or any(
        k.__name__ in ("GPUHuntError", "ProviderError") for k in type(exc).__mro__
    )


class _Keep(logging.Handler):
    """Keeps the library's log records (from any thread: gpuhunt loads its catalogs in a thread pool)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def library_logs(names: tuple[str, ...] = LIBRARY_LOGGERS) -> Iterator[_Keep]:
    """Meanwhile the records of the loggers ``names`` (and their children) go to the handler yielded, not to the
    console: a library that logs a traceback per failed download (gpuhunt logs one per provider) must not print
    pages before procure's one line. Each logger's handlers, level and propagation are restored afterwards."""
    keep = _Keep()
    saved = []
    for name in names:
        logger = logging.getLogger(name)
        saved.append((logger, logger.handlers[:], logger.propagate))
        logger.handlers = [keep]
        logger.propagate = False
    try:
        yield keep
    finally:
        for logger, handlers, propagate in saved:
            logger.handlers = handlers
            logger.propagate = propagate


def library_warnings(records: list[logging.LogRecord]) -> list[Problem]:
    """The library's log lines as warnings, one line each (the message only: no traceback), at most
    ``MAX_LIBRARY_WARNINGS`` and then a count."""
    lines = []
    for r in records:
        try:
            text = r.getMessage()
        except Exception:  # noqa: BLE001 — a record whose arguments do not format still says something
            text = str(r.msg)
        line = f"{r.name.split('.')[0]} logged: {echo(text.splitlines()[0] if text else '', 200)}"
        if line not in lines:
            lines.append(line)
    out = [Problem("gpuhunt", "", line, warning=True) for line in lines[:MAX_LIBRARY_WARNINGS]]
    if len(lines) > MAX_LIBRARY_WARNINGS:
        out.append(Problem("gpuhunt", "", f"… and {len(lines) - MAX_LIBRARY_WARNINGS} more", warning=True))
    return out


def _why(exc: BaseException) -> str:
    """The error and, when it wraps another (gpuhunt's GPUHuntError wraps the download's), the first cause."""
    said = f"{type(exc).__name__}: {echo(str(exc), 200)}"
    root = exc
    for _ in range(10):  # a chain, bounded: a cycle of causes must not loop
        if root.__cause__ is None:
            break
        root = root.__cause__
    return said if root is exc else f"{said}, caused by {type(root).__name__}: {echo(str(root), 200)}"


def query_gpuhunt(providers: list[str], warnings: list[Problem] | None = None) -> list[Any]:
    """gpuhunt's catalog items of ``providers`` (GPU instances only); InputError when offline or refused. What
    gpuhunt logs meanwhile is kept out of the console; on success its lines are added to ``warnings``."""
    gpuhunt = _gpuhunt()
    try:
        with library_logs() as logged:
            items = gpuhunt.query(provider=providers, min_gpu_count=1)
    except Exception as exc:
        if not _offline(exc):
            if isinstance(exc, ValueError | KeyError):  # gpuhunt refuses an unknown provider with ValueError
                raise InputError(
                    [Problem("gpuhunt", "--provider", f"gpuhunt refused the query: {echo(str(exc), 200)}")]
                ) from None
            raise
        raise InputError(
            [
                Problem(
                    "gpuhunt",
                    "--provider",
                    f"could not fetch the catalog ({_why(exc)}); this command needs "
                    "internet access. Offline, import a downloaded gpuhunt or SkyPilot file with `procure offers import`",
                )
            ]
        ) from None
    if warnings is not None:
        warnings.extend(library_warnings(logged.records))
    return list(items)


def items_from_gpuhunt(raw: list[Any], result: Imported) -> dict[str, list[Item]]:
    """gpuhunt ``CatalogItem`` objects → importer items, per provider."""
    if len(raw) > MAX_FETCH_ITEMS:
        raise InputError(
            [Problem("gpuhunt", "", f"{len(raw):,} catalog items; at most {MAX_FETCH_ITEMS:,} (fetch fewer providers)")]
        )
    out: dict[str, list[Item]] = {}
    for n, it in enumerate(raw, start=1):
        count, name, price = getattr(it, "gpu_count", 0), getattr(it, "gpu_name", None), getattr(it, "price", None)
        if not count or not name:
            result.skipped["CPU-only items skipped"] += 1
            continue
        if not isinstance(price, int | float) or not price > 0 or price != price:
            result.skipped["items without a price skipped"] += 1
            continue
        prov = str(getattr(it, "provider", "") or "unknown").lower()
        out.setdefault(prov, []).append(
            Item(
                row=n,
                instance=str(it.instance_name),
                location=str(it.location),
                price=float(price),
                spot=bool(it.spot),
                vcpus=float(it.cpu or 0),
                memory_gb=float(it.memory or 0),
                gpu_count=int(count),
                gpu_name=str(name),
                gpu_memory_gb=float(it.gpu_memory) if getattr(it, "gpu_memory", None) else None,
                disk_gb=float(it.disk_size) if getattr(it, "disk_size", None) else None,
                origin=f"gpuhunt live catalog ({prov}), fetched {result.quoted_on}, item {n}",
            )
        )
    return out


def run_fetch(
    providers: list[str],
    out: Path,
    max_nodes: int,
    force: bool,
    gpus: list[str] | None = None,
    regions: list[str] | None = None,
) -> Done:
    """``procure offers fetch``: today's gpuhunt prices of ``providers`` written to ``out``."""
    wanted = [GPUHUNT_NAMES.get(k, k) for k in (p.strip().lower() for p in providers) if k]
    unknown = [p for p in wanted if p not in PROVIDERS]
    if not wanted or unknown:
        raise InputError(
            [
                Problem(
                    "command line",
                    "--provider",
                    f"unknown provider {echo(p)}; allowed: {', '.join(sorted(PROVIDERS))}",
                )
                for p in unknown or ["(none)"]
            ]
        )
    only_gpus, only_regions = filters(gpus, regions)
    outputs = _declare(out, force, [])
    result = Imported(
        offers=[],
        provider="+".join(wanted),
        quoted_on=dt.datetime.now(dt.UTC).date(),
        only_gpus=only_gpus,
        only_regions=only_regions,
    )
    logged: list[Problem] = []
    per_provider = items_from_gpuhunt(query_gpuhunt(wanted, logged), result)
    result.rows = sum(len(v) for v in per_provider.values()) + sum(result.skipped.values())
    log = ProblemLog()
    for prov, items in per_provider.items():
        _build(items, prov, Path("gpuhunt"), max_nodes, result, log)
    if log:
        raise log.error()
    done = _write(result, outputs, out, Path("gpuhunt"))
    done.warnings[:0] = logged
    return done
