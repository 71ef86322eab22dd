"""The use cases behind ``procure offers import`` and ``procure offers fetch``: check the options and the
output first, build the offers (``offers.importers``), then write the catalog completely or not at all.

``fetch`` reads today's prices through the optional ``gpuhunt`` library (``pip install 'procure[live]'``):
gpuhunt downloads dstack's published catalog and queries the providers whose prices are only online.
Without the library, or without a network, the command says so and writes nothing.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from procure.fileio.outputs import Outputs
from procure.models.errors import InputError, Problem, ProblemLog
from procure.models.text import echo

from .importers import FORMATS, PROVIDERS, Imported, Item, _build, catalog_yaml, import_file

#: catalog items one fetch may turn into offers (gpuhunt's whole catalog is about 300,000 rows)
MAX_FETCH_ITEMS = 1_000_000
LIVE_HINT = "pip install 'procure[live]'"
#: SkyPilot's provider names → gpuhunt's
GPUHUNT_NAMES = {"lambda": "lambdalabs", "vast": "vastai"}


@dataclass
class Done:
    summary: str
    warnings: list[Problem] = field(default_factory=list)


def _declare(out: Path, force: bool, inputs: list[Path]) -> Outputs:
    if Path(out).suffix.lower() not in (".yaml", ".yml"):
        raise InputError([Problem(str(out), "--out", "the imported catalog is written as YAML: name it .yaml or .yml")])
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
) -> Done:
    """``procure offers import``: the offers of ``file`` written to ``out`` (YAML), with a one-line summary."""
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
    outputs = _declare(out, force, [file])
    result = import_file(Path(file), fmt, as_of=day, provider=provider, max_nodes=max_nodes)
    return _write(result, outputs, out, Path(file))


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
    outputs.put(outputs.targets[0], catalog_yaml(result, origin).encode("utf-8"))
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


def query_gpuhunt(providers: list[str]) -> list[Any]:
    """gpuhunt's catalog items of ``providers`` (GPU instances only); InputError when offline or refused."""
    gpuhunt = _gpuhunt()
    try:
        items = gpuhunt.query(provider=providers, min_gpu_count=1)
    except (OSError, ConnectionError, TimeoutError) as exc:  # urllib/requests errors derive from OSError
        raise InputError(
            [
                Problem(
                    "gpuhunt",
                    "--provider",
                    f"could not fetch the catalog ({type(exc).__name__}: {echo(str(exc), 200)}); this command needs "
                    "internet access. Offline, import a downloaded gpuhunt or SkyPilot file with `procure offers import`",
                )
            ]
        ) from None
    except (ValueError, KeyError) as exc:  # gpuhunt refuses an unknown provider with ValueError
        raise InputError(
            [Problem("gpuhunt", "--provider", f"gpuhunt refused the query: {echo(str(exc), 200)}")]
        ) from None
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


def run_fetch(providers: list[str], out: Path, max_nodes: int, force: bool) -> Done:
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
    outputs = _declare(out, force, [])
    result = Imported(offers=[], provider="+".join(wanted), quoted_on=dt.datetime.now(dt.UTC).date())
    per_provider = items_from_gpuhunt(query_gpuhunt(wanted), result)
    result.rows = sum(len(v) for v in per_provider.values()) + sum(result.skipped.values())
    log = ProblemLog()
    for prov, items in per_provider.items():
        _build(items, prov, Path("gpuhunt"), max_nodes, result, log)
    if log:
        raise log.error()
    return _write(result, outputs, out, Path("gpuhunt"))
