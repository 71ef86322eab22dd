"""Import public cloud price catalogs — gpuhunt CSV and SkyPilot ``vms.csv`` — as procure cloud offers.

Each GPU row becomes one cloud offer at its price per node-hour (the instance is the node); a row with a
spot price becomes a second offer with ``spot: true``. CPU-only rows are skipped and counted, and so are
rows of GPUs the GPU table does not know (T4, V100, ...), rows without a price and rows of a region
procure has no name for (``offers.cloud_regions``). Every offer names its ``source`` (file and row) and
``quoted_on`` (``--as-of``, else a date in the file's name or folder, else the file's modification date).

Formats (read by header, so the column order does not matter):
- gpuhunt v2 (dstack's catalog, one CSV per provider, the provider from the file name):
  ``instance_name, location, price, cpu, memory, gpu_count, gpu_name, gpu_memory, spot, disk_size,
  gpu_vendor, flags, cpu_arch, provider_data``; ``price`` is USD per instance-hour, ``memory`` and
  ``gpu_memory`` GB, ``spot`` True/False (spot and on-demand are separate rows).
- SkyPilot ``catalogs/<version>/<cloud>/vms.csv``: ``InstanceType, AcceleratorName, AcceleratorCount,
  vCPUs, MemoryGiB, GpuInfo, Price, SpotPrice, Region, AvailabilityZone``; ``GpuInfo`` is a Python literal
  (read with ``ast.literal_eval``, at most ``MAX_GPUINFO_CHARS``); ``SpotPrice`` may be empty. Catalog v9 adds
  the instance's local disks where the cloud has them (AWS): ``Arch, LocalDiskType, NVMeSupported,
  LocalDiskSize, LocalDiskCount`` — the size is per disk in GB, as EC2's DescribeInstanceTypes reports it
  (``InstanceStorageInfo.Disks[].SizeInGB``, ``Count``, ``Type`` ssd/hdd, ``NvmeSupport``): p5.48xlarge is
  ``ssd, True, 3800.0, 8.0``, c1.xlarge ``hdd, False, 420.0, 4.0`` (4 × 420 GB, EC2's 1,680 GB of instance
  store). ``local_nvme_gb`` says which disks count as NVMe. GCP lists a
  GPU on a row without ``InstanceType``: its price is added to its machine's row in the same zone — the
  A2/A3/A4 type that carries those GPUs (``GCP_GPU_MACHINES``: 8 × A100-80GB on a2-ultragpu-8g), else the
  ``n1-highmem-<8 × GPUs>`` host (at most 96 vCPUs) SkyPilot pairs attachable GPUs with by default.

The GPU model: a known instance type (``offers.instance_types``) names it with its interconnect; else the
row's GPU name resolves through the GPU table, its memory choosing among the family's sizes, with a
warning when the name leaves the form factor open (``H100``: SXM or PCIe). Unknown instance types get the
conservative ``pcie`` / ``none`` and a warning to review them. Local NVMe: the known type's, else the row's
(SkyPilot v9's ``LocalDisk*`` columns, gpuhunt's ``disk_size``), else none with a warning. Every row's price per
GPU-hour meets its GPU's price sanity band (``offers.price_band``), a warning naming the row when it falls outside.
"""

from __future__ import annotations

import ast
import csv
import datetime as dt
import io
import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from procure.common.errors import InputError, Problem, ProblemLog
from procure.common.text import echo, formula_safe
from procure.fileio.limits import IMPORT_MAX_BYTES, IMPORT_MAX_ROWS, MAX_DATE, MAX_TEXT_CHARS, MIN_DATE
from procure.fileio.yamlio import read_text
from procure.models.gpu import gpu_table
from procure.models.offer import COLUMNS, Offer

from .cloud_regions import procure_region
from .instance_types import PROVIDER_EGRESS_PER_TB, known_instance
from .price_band import row_warning

FORMATS = ("gpuhunt", "skypilot")
#: characters of one SkyPilot GpuInfo literal (a real one is about 150)
MAX_GPUINFO_CHARS = 2_000
#: extra node-hours a spot offer pays for interruptions (the bundled catalog's figure for spot rows)
SPOT_OVERHEAD = 0.15
#: nodes per imported offer unless --max-nodes says otherwise
DEFAULT_MAX_NODES = 8

#: provider id (file name or SkyPilot folder) → vendor name
PROVIDERS: dict[str, str] = {
    "aws": "AWS",
    "gcp": "Google Cloud",
    "azure": "Microsoft Azure",
    "oci": "Oracle Cloud",
    "lambda": "Lambda",
    "lambdalabs": "Lambda",
    "runpod": "RunPod",
    "datacrunch": "DataCrunch",
    "verda": "Verda",
    "vastai": "Vast.ai",
    "vast": "Vast.ai",
    "tensordock": "TensorDock",
    "cudo": "Cudo Compute",
    "nebius": "Nebius",
    "vultr": "Vultr",
    "paperspace": "Paperspace",
    "fluidstack": "FluidStack",
    "ibm": "IBM Cloud",
    "hyperstack": "Hyperstack",
    "cloudrift": "CloudRift",
    "do": "DigitalOcean",
}

GPUHUNT_REQUIRED = ("instance_name", "location", "price", "cpu", "memory", "gpu_count", "gpu_name", "spot")
SKYPILOT_REQUIRED = ("InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB", "Price", "Region")


@dataclass
class Item:
    """One priced instance of a catalog row (on-demand or spot), before it becomes an offer."""

    row: int
    instance: str
    location: str  # the provider's region (on-demand) or zone (spot, when the file gives one)
    price: float
    spot: bool
    vcpus: float
    memory_gb: float
    gpu_count: int
    gpu_name: str
    gpu_memory_gb: float | None = None
    disk_gb: float | None = None  # local NVMe, GB (decimal), that the row gives
    disk_note: str = ""  # what the row says of its local disks, for the offer's source
    host_row: int | None = None  # GCP: the host row whose price was added
    origin: str = ""  # where it comes from, for the offer's source: "gpuhunt aws.csv row 17"
    region: str = ""  # the provider's region, when ``location`` is a zone (AWS zone ids such as use2-az1)


@dataclass
class Imported:
    """The offers of one imported file and what was left out, and why."""

    offers: list[dict[str, Any]]
    provider: str
    quoted_on: dt.date
    rows: int = 0
    skipped: Counter[str] = field(default_factory=Counter)  # reason -> rows
    unknown_gpus: Counter[str] = field(default_factory=Counter)
    unknown_regions: Counter[str] = field(default_factory=Counter)
    warnings: list[Problem] = field(default_factory=list)
    only_gpus: frozenset[str] = frozenset()  # --gpu: canonical GPU ids to keep (empty: all)
    only_regions: tuple[str, ...] = ()  # --region: procure regions or areas to keep (empty: all)

    def keeps(self, offer: dict[str, Any]) -> bool:
        """Whether an offer passes --gpu and --region."""
        if self.only_gpus and offer["gpu"] not in self.only_gpus:
            return False
        region = offer["region"]
        return not self.only_regions or any(region == r or region.startswith(r + "-") for r in self.only_regions)

    def summary(self, path: Path, out: Path) -> str:
        spot = sum(1 for o in self.offers if o.get("spot"))
        parts = [f"imported {len(self.offers)} offers ({spot} spot) from {self.rows:,} rows of {path.name} into {out}"]
        for reason, n in sorted(self.skipped.items()):
            parts.append(f"{n:,} {reason}")
        if self.unknown_gpus:
            top = ", ".join(f"{echo(k)} ×{v}" for k, v in self.unknown_gpus.most_common(8))
            parts.append(f"GPUs not in the GPU table: {top}")
        if self.unknown_regions:
            top = ", ".join(f"{echo(k)} ×{v}" for k, v in self.unknown_regions.most_common(8))
            parts.append(f"regions procure has no name for: {top}")
        return "; ".join(parts)


# --- reading the table ------------------------------------------------------------------------------


def _table(
    path: Path, required: tuple[str, ...], fmt: str, optional: tuple[str, ...] = ()
) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header and the (row number, {column: cell}) of a CSV file, every resource bounded; only the
    ``required`` and ``optional`` columns are kept (and their cells bounded)."""
    used = set(required) | set(optional)
    text = read_text(path, f"{fmt} catalog", IMPORT_MAX_BYTES)
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise InputError([Problem(str(path), "", f"not a CSV file: {exc}", row=1)]) from None
    if not header:
        raise InputError([Problem(str(path), "", f"the file is empty; expected a {fmt} CSV with a header row")])
    header = [h.strip() for h in header]
    if len(header) > 64:
        raise InputError([Problem(str(path), "", f"the header has {len(header):,} columns; at most 64", row=1)])
    twice = [c for c in dict.fromkeys(header) if c in used and header.count(c) > 1]
    if twice:
        raise InputError(
            [
                Problem(
                    str(path),
                    c,
                    f"the header names {c!r} twice (columns "
                    + ", ".join(str(i + 1) for i, h in enumerate(header) if h == c)
                    + "); which one holds the value is not clear: keep one",
                    row=1,
                )
                for c in twice
            ]
        )
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(
            [
                Problem(
                    str(path),
                    c,
                    f"the header has no {c!r} column; a {fmt} file has the columns {', '.join(required)}",
                    row=1,
                )
                for c in missing
            ]
        )
    rows: list[tuple[int, dict[str, str]]] = []
    try:
        for n, cells in enumerate(reader, start=2):
            if n > IMPORT_MAX_ROWS + 1:
                raise InputError([Problem(str(path), "", f"more than {IMPORT_MAX_ROWS:,} rows; split the file", row=n)])
            if not any(c.strip() for c in cells):
                continue
            for col, cell in zip(header, cells, strict=False):
                if col not in used:
                    continue  # provider_data, flags, …: not read, not kept
                if len(cell) > MAX_TEXT_CHARS:
                    raise InputError(
                        [
                            Problem(
                                str(path),
                                col,
                                f"a cell of {len(cell):,} characters; the limit is {MAX_TEXT_CHARS:,}",
                                row=n,
                            )
                        ]
                    )
            rows.append((n, {h: c.strip() for h, c in zip(header, cells, strict=False) if h in used}))
    except csv.Error as exc:
        raise InputError([Problem(str(path), "", f"not a CSV file: {exc}", row=reader.line_num)]) from None
    return header, rows


class _Cells:
    """Typed reads of one row's cells; each bad cell is one Problem with its file, row and column."""

    def __init__(self, path: Path, row: int, cells: dict[str, str], log: ProblemLog):
        self.path, self.row, self.cells, self.log = path, row, cells, log
        self.bad = False

    def text(self, col: str) -> str:
        return self.cells.get(col, "") or ""

    def number(self, col: str, *, required: bool = False) -> float | None:
        raw = self.text(col)
        if raw == "":
            if required:
                self._problem(col, "is empty; expected a number")
            return None
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < 0:
            self._problem(col, f"{echo(raw)} is not a number ≥ 0")
            return None
        return value

    def boolean(self, col: str) -> bool:
        raw = self.text(col).lower()
        if raw in ("true", "1", "yes"):
            return True
        if raw in ("false", "0", "no", ""):
            return False
        self._problem(col, f"{echo(self.text(col))} is not True or False")
        return False

    def _problem(self, col: str, message: str) -> None:
        self.bad = True
        self.log.add(Problem(str(self.path), col, message, row=self.row))


def _gpuhunt_items(path: Path, log: ProblemLog, result: Imported) -> list[Item]:
    _, rows = _table(path, GPUHUNT_REQUIRED, "gpuhunt", ("gpu_memory", "disk_size"))
    result.rows = len(rows)
    items = []
    for n, cells in rows:
        c = _Cells(path, n, cells, log)
        count = c.number("gpu_count")
        price = c.number("price")
        vcpus, memory = c.number("cpu"), c.number("memory")
        gpu_mem, disk = c.number("gpu_memory"), c.number("disk_size")
        spot = c.boolean("spot")
        if c.bad:
            continue
        if not count or not c.text("gpu_name"):
            result.skipped["CPU-only rows skipped"] += 1
            continue
        if not price:
            result.skipped["rows without a price skipped"] += 1
            continue
        if _fraction(count, result):
            continue
        items.append(
            Item(
                row=n,
                instance=c.text("instance_name"),
                location=c.text("location"),
                price=price,
                spot=spot,
                vcpus=vcpus or 0,
                memory_gb=memory or 0,
                gpu_count=int(count),
                gpu_name=c.text("gpu_name"),
                gpu_memory_gb=gpu_mem,
                disk_gb=disk,
            )
        )
    return items


def _fraction(count: float, result: Imported) -> bool:
    """A share of one GPU (Azure's 1/4 A10, a MIG slice) is no node to train on: skipped and counted."""
    if count == int(count) and count <= 64:
        return False
    result.skipped["rows of a fraction of a GPU (or over 64 GPUs) skipped"] += 1
    return True


def gpuinfo_memory_gb(raw: str) -> float | None:
    """GPU memory per GPU (GiB, as the datasheets print it) from a SkyPilot ``GpuInfo`` literal, e.g.
    ``{'Gpus': [{'Name': 'H100', 'Count': 8, 'MemoryInfo': {'SizeInMiB': 81920}}], ...}``; None when absent.
    ValueError for text that is too long or not a literal."""
    if not raw or raw[0] not in "{[('\"":  # GCP writes the GPU's name bare: no memory to read
        return None
    if len(raw) > MAX_GPUINFO_CHARS:
        raise ValueError(f"a GpuInfo of {len(raw):,} characters; at most {MAX_GPUINFO_CHARS:,}")
    try:
        info = ast.literal_eval(raw)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise ValueError(f"{echo(raw)} is not a Python literal such as {{'Gpus': [...]}}") from None
    if isinstance(info, str):  # some clouds write the GPU name alone
        return None
    gpus = info.get("Gpus") if isinstance(info, dict) else None
    if not isinstance(gpus, list) or not gpus or not isinstance(gpus[0], dict):
        return None
    mib = (gpus[0].get("MemoryInfo") or {}).get("SizeInMiB") if isinstance(gpus[0].get("MemoryInfo"), dict) else None
    if isinstance(mib, bool) or not isinstance(mib, int | float) or not 0 < mib < 1e7:
        return None
    return float(mib) / 1024


def _skypilot_items(path: Path, log: ProblemLog, result: Imported) -> list[Item]:
    _, rows = _table(path, SKYPILOT_REQUIRED, "skypilot", ("GpuInfo", "SpotPrice", "AvailabilityZone", *SKYPILOT_DISKS))
    result.rows = len(rows)
    hosts: dict[tuple[str, str], _Host] = {}  # (instance, zone or region) -> the host row
    gpus: list[tuple[int, dict[str, str]]] = []
    items = []
    for n, cells in rows:
        c = _Cells(path, n, cells, log)
        count = c.number("AcceleratorCount")
        price, spot_price = c.number("Price"), c.number("SpotPrice")
        vcpus, memory = c.number("vCPUs"), c.number("MemoryGiB")
        try:
            gpu_mem = gpuinfo_memory_gb(c.text("GpuInfo"))
        except ValueError as exc:
            c._problem("GpuInfo", str(exc))
        disk_gb, disk_note = local_nvme_gb(c)
        if c.bad:
            continue
        instance, accel = c.text("InstanceType"), c.text("AcceleratorName")
        if not instance and accel:  # GCP: an attachable GPU, priced alone
            gpus.append((n, cells))
            continue
        if not count or not accel:
            result.skipped["CPU-only rows skipped"] += 1
            if instance:
                host = _Host(n, price, spot_price, vcpus or 0, memory or 0)
                hosts.setdefault((instance.lower(), c.text("AvailabilityZone") or c.text("Region")), host)
                hosts.setdefault((instance.lower(), c.text("Region")), host)
            continue
        if _fraction(count, result):
            continue
        for it in _priced(c, n, instance, accel, int(count), price, spot_price, result):
            it.vcpus, it.memory_gb, it.gpu_memory_gb = vcpus or 0, memory or 0, gpu_mem
            it.disk_gb, it.disk_note = disk_gb, disk_note
            items.append(it)
    items += pair_gcp_gpus(path, gpus, hosts, log, result)
    return items


#: SkyPilot catalog v9's local-disk columns (AWS rows; empty where the instance has none)
SKYPILOT_DISKS = ("LocalDiskType", "NVMeSupported", "LocalDiskSize", "LocalDiskCount")
#: a ``LocalDiskType`` that names solid-state storage
_SOLID_STATE = re.compile(r"ssd|nvme|flash", re.IGNORECASE)
#: local disks of one instance: more is a unit slip, not a server
MAX_LOCAL_DISKS = 128


def local_nvme_gb(c: _Cells) -> tuple[float | None, str]:
    """(local NVMe in GB, a note for the offer's source) from a SkyPilot v9 row's ``LocalDisk*`` cells.

    nvme_tb = ``LocalDiskSize`` (GB per disk) × ``LocalDiskCount`` / 1000 (decimal TB, as procure's ``nvme_tb``).
    Only NVMe counts: a disk whose ``NVMeSupported`` is True, or whose ``LocalDiskType`` says nvme; without an
    ``NVMeSupported`` value, a solid-state type (ssd) counts. A hard disk (hdd) or a SATA SSD (ssd with
    ``NVMeSupported`` False) does not: it cannot feed a multi-GPU node's data loaders, and the note says so."""
    size = c.number("LocalDiskSize")
    count = c.number("LocalDiskCount")
    kind = c.text("LocalDiskType").strip().lower()
    flag = c.text("NVMeSupported").strip()
    nvme = c.boolean("NVMeSupported") if flag else None
    if count is not None and (count != int(count) or count > MAX_LOCAL_DISKS):
        c._problem("LocalDiskCount", f"{count:g} is not a whole number of disks from 0 to {MAX_LOCAL_DISKS}")
        return None, ""
    if not size or count == 0:
        return None, ""
    n = int(count) if count else 1
    what = f"{n} × {size:g} GB {kind or 'disk'}"
    if "nvme" in kind or nvme or (nvme is None and _SOLID_STATE.search(kind)):
        return n * size, f"local NVMe {what} from the row"
    why = "not NVMe" if _SOLID_STATE.search(kind) else "not solid-state"
    return None, f"the row's local disks ({what}) are {why}: not counted"


def _priced(
    c: _Cells,
    n: int,
    instance: str,
    accel: str,
    count: int,
    price: float | None,
    spot_price: float | None,
    result: Imported,
) -> list[Item]:
    """The on-demand item (per region) and the spot item (per zone, when the file gives one) of a row."""
    out = []
    region, zone = c.text("Region"), c.text("AvailabilityZone")
    base = dict(row=n, instance=instance, vcpus=0.0, memory_gb=0.0, gpu_count=count, gpu_name=accel)
    if price:
        out.append(Item(location=region, price=price, spot=False, **base))  # type: ignore[arg-type]
    if spot_price:
        out.append(Item(location=zone or region, region=region, price=spot_price, spot=True, **base))  # type: ignore[arg-type]
    if not price and not spot_price:
        result.skipped["rows without a price skipped"] += 1
    return out


@dataclass(frozen=True)
class _Host:
    """A GCP host row an attachable GPU is added to."""

    row: int
    price: float | None
    spot_price: float | None
    vcpus: float
    memory_gb: float


#: GCP machine types that come with their GPUs (the GPU row is priced apart from the machine's row):
#: GPU name → GPU count → machine type (Google Cloud GPU machine types: A2, A3, A4)
GCP_GPU_MACHINES: dict[str, dict[int, str]] = {
    "a100": {1: "a2-highgpu-1g", 2: "a2-highgpu-2g", 4: "a2-highgpu-4g", 8: "a2-highgpu-8g", 16: "a2-megagpu-16g"},
    "a10080gb": {1: "a2-ultragpu-1g", 2: "a2-ultragpu-2g", 4: "a2-ultragpu-4g", 8: "a2-ultragpu-8g"},
    "h100": {1: "a3-highgpu-1g", 2: "a3-highgpu-2g", 4: "a3-highgpu-4g", 8: "a3-highgpu-8g"},
    "h100mega": {8: "a3-megagpu-8g"},
    "h200": {8: "a3-ultragpu-8g"},
    "b200": {8: "a4-highgpu-8g"},
}


def gcp_host_for(gpu_name: str, gpus: int) -> str:
    """The machine a GCP GPU row is added to: the A2/A3/A4 type that carries those GPUs, else the N1 host
    SkyPilot pairs attachable GPUs with by default (8 vCPUs per GPU, at most 96)."""
    return GCP_GPU_MACHINES.get(_norm(gpu_name), {}).get(gpus) or f"n1-highmem-{min(8 * gpus, 96)}"


def pair_gcp_gpus(
    path: Path,
    gpus: list[tuple[int, dict[str, str]]],
    hosts: dict[tuple[str, str], _Host],
    log: ProblemLog,
    result: Imported,
) -> list[Item]:
    """GCP's GPU-only rows, each added to its host's row: price = host price + GPU price (on-demand and spot)."""
    out = []
    for n, cells in gpus:
        c = _Cells(path, n, cells, log)
        count = c.number("AcceleratorCount", required=True)
        price, spot_price = c.number("Price"), c.number("SpotPrice")
        if c.bad or not count or _fraction(count, result):
            continue
        k = int(count)
        host = gcp_host_for(c.text("AcceleratorName"), k)
        place = c.text("AvailabilityZone") or c.text("Region")
        found = hosts.get((host, place)) or hosts.get((host, c.text("Region")))
        if found is None:
            result.skipped[f"GPU-only rows without their host ({host}) in the same zone skipped"] += 1
            continue
        for p, host_price, spot in ((price, found.price, False), (spot_price, found.spot_price, True)):
            if not p or not host_price:
                continue
            out.append(
                Item(
                    row=n,
                    instance=f"{host}+{k}x{c.text('AcceleratorName')}",
                    location=place if spot else c.text("Region"),
                    region=c.text("Region"),
                    price=host_price + p,
                    spot=spot,
                    vcpus=found.vcpus,
                    memory_gb=found.memory_gb,
                    gpu_count=k,
                    gpu_name=c.text("AcceleratorName"),
                    host_row=found.row,
                )
            )
    return out


# --- GPU model ----------------------------------------------------------------------------------------


def _norm(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


_FORM_OR_SIZE = re.compile(r"\d+GB|SXM\d*|PCIE|OAM", re.IGNORECASE)


def _model_name(gpu_id: str) -> str:
    """A table id without its form factor and memory: A100-SXM-80GB → a100, RTX-6000-ADA-48GB → rtx6000ada."""
    return _norm("".join(p for p in gpu_id.split("-") if not _FORM_OR_SIZE.fullmatch(p)))


def gpu_family(name: str) -> list[Any]:
    """The GPU table's models a catalog's GPU name stands for, matched as a WHOLE name: the model name
    (``A100``: the 40 and 80 GB, SXM and PCIe models), the id or an alias. ``L40`` is not ``L40S`` and the
    Turing ``RTX 6000`` is not the ``RTX 6000 Ada``: a name that is only a prefix matches nothing."""
    key = _norm(name)
    if not key:
        return []
    return [g for g in gpu_table() if key in {_model_name(g.id), _norm(g.id), *(_norm(a) for a in g.aliases)}]


def resolve_gpu(name: str, memory_gb: float | None, instance: str = "") -> tuple[str | None, str | None]:
    """(canonical GPU id or None, a note). The family is every table model the whole name stands for
    (``gpu_family``); the memory, when given, keeps the sizes within 10 % — a memory that fits none of them is
    no model (None, with a note naming the sizes the table has); the instance name's form factor (``pcie``,
    ``sxm``) narrows further when the table has it; among several the table's alias wins, else an SXM model."""
    table = gpu_table()
    family = gpu_family(name)
    if not family:
        return None, None
    if memory_gb:
        fits = [g for g in family if abs(g.memory_gb - memory_gb) <= 0.1 * g.memory_gb]
        if not fits:
            sizes = ", ".join(f"{g.id}" for g in family)
            return (
                None,
                f"GPU {name!r} with {memory_gb:g} GB per GPU fits no model of that name in the GPU table ({sizes})",
            )
        family = fits
    notes = []
    wanted = _form_factors(instance)
    hinted = [g for g in family if g.form_factor in wanted]
    if hinted:  # the instance name says it: gpu_1x_h100_pcie, gpu_8x_h100_sxm5
        family = hinted
    elif wanted:
        notes.append(
            f"the instance {instance!r} says {'/'.join(sorted(wanted)).upper()}, a model the GPU table does not have for "
            f"{name!r}{f' at {memory_gb:g} GB' if memory_gb else ''}"
        )
    direct = table.resolve(name)
    chosen = (
        direct
        if direct in {g.id for g in family}
        else next((g.id for g in family if g.form_factor == "sxm"), family[0].id)
    )
    if len(family) > 1:
        others = ", ".join(g.id for g in family if g.id != chosen)
        return chosen, f"GPU {name!r} was taken as {chosen} (the table also has {others})"
    if notes:
        return chosen, f"GPU {name!r} was taken as {chosen}: {notes[0]}"
    return chosen, None


def _form_factors(instance: str) -> set[str]:
    low = instance.lower()
    return {f for f, words in (("pcie", ("pcie",)), ("sxm", ("sxm",))) if any(w in low for w in words)}


# --- offers -------------------------------------------------------------------------------------------

_ID_BAD = re.compile(r"[^A-Za-z0-9_.\-]+")


def _offer_id(provider: str, item: Item, with_count: bool = False) -> str:
    count = f"-{item.gpu_count}gpu" if with_count else ""
    raw = f"{provider}-{item.instance}{count}-{item.location}{'-spot' if item.spot else ''}"
    oid = _ID_BAD.sub("-", raw).strip("-.")
    return oid if len(oid) <= 80 else f"{oid[:70]}-r{item.row}"


@dataclass
class _Made:
    """What building one offer noticed: the GPU note, an unreviewed type, assumed storage, a contradiction."""

    note: str | None = None
    unknown_type: bool = False
    no_nvme: bool = False
    contradiction: str | None = None


def _offer(item: Item, provider: str, quoted_on: dt.date, max_nodes: int, with_count: bool = False):
    """The offer row of an item and what was noticed (``_Made``), or (None, why) for an item left out."""
    base = item.instance.split("+")[0]
    known = known_instance(base)
    made = _Made()
    gpu: str | None
    if known is not None:
        gpu, intra, inter, rails, link_source = known.gpu, known.intra_node, known.inter_node, known.rails, known.source
        mem = item.gpu_memory_gb
        named = {g.id for g in gpu_family(item.gpu_name) if not mem or abs(g.memory_gb - mem) <= 0.1 * g.memory_gb}
        if (named and known.gpu not in named) or known.gpus != item.gpu_count:
            made.contradiction = (
                f"{base} is {known.gpus} × {known.gpu} in procure's table, but row {item.row} says "
                f"{item.gpu_count} × {item.gpu_name}{f' {item.gpu_memory_gb:g} GB' if item.gpu_memory_gb else ''}; "
                f"imported as {known.gpu} with the row's count, review it"
            )
    else:
        gpu, made.note = resolve_gpu(item.gpu_name, item.gpu_memory_gb, item.instance)
        intra, inter, rails = "pcie", "none", 1
        link_source = "instance type not in procure's table: interconnect assumed pcie/none, review it"
        made.unknown_type = True
    if gpu is None:
        return None, ("gpu", made.note)
    region = procure_region(item.region or item.location)
    if region is None:
        return None, ("region", None)
    if known is not None and known.nvme_tb is not None:
        nvme, storage = known.nvme_tb, f"local NVMe {known.nvme_tb:g} TB as the instance type comes"
    elif item.disk_gb:
        nvme = round(item.disk_gb / 1000, 3)
        storage = item.disk_note or f"disk {item.disk_gb:g} GB from the row (gpuhunt's disk_size, taken as local NVMe)"
    else:
        why = item.disk_note or "the row gives no disk"
        nvme, storage, made.no_nvme = 0.0, f"no local NVMe (none known for this type; {why})", True
    host = f"; host row {item.host_row} added" if item.host_row else ""
    source = (
        f"{item.origin}{host}: {item.instance} in {item.location}, "
        f"{'spot' if item.spot else 'on-demand'} ${item.price:g}/h per instance; interconnect: {link_source}; "
        f"storage: {storage}"
    )
    row: dict[str, Any] = {
        "id": _offer_id(provider, item, with_count),
        "vendor": PROVIDERS.get(provider, provider),
        "mode": "cloud",
        "region": region,
        "gpu": gpu,
        "gpus_per_node": item.gpu_count,
        "intra_node": intra,
        "inter_node": inter,
        "inter_node_rails": rails,
        "ram_gb": round(item.memory_gb, 3) or 1,
        "nvme_tb": nvme,
        "cpu_cores": max(1, int(item.vcpus // 2)),
        "max_nodes": max_nodes,
        "price_per_node_hour": round(item.price, 6),
        "spot": item.spot,
        "spot_overhead_pct": SPOT_OVERHEAD if item.spot else 0,
        "currency": "USD",
        "source": source,
        "quoted_on": quoted_on.isoformat(),
    }
    egress = PROVIDER_EGRESS_PER_TB.get(provider)
    if egress is not None:
        row["egress_per_tb"] = egress
    return row, made


def shown_name(path: Path) -> str:
    """The file as the sources name it: ``aws.csv``, or ``aws/vms.csv`` for SkyPilot's per-cloud files."""
    return f"{path.parent.name}/{path.name}" if path.stem.lower() == "vms" and path.parent.name else path.name


def file_date(path: Path) -> tuple[dt.date, str]:
    """A date in the file's name or its folder's (``20260301``, ``2026-03-01``), else its modification date."""
    for part in (path.name, path.parent.name, path.parent.parent.name):
        m = re.search(r"(20\d\d)-?(\d\d)-?(\d\d)", part)
        if m:
            try:
                return dt.date(int(m[1]), int(m[2]), int(m[3])), f"the date in {part!r}"
            except ValueError:
                continue
    day = dt.date.fromtimestamp(path.stat().st_mtime)
    return day, "the file's modification date (no --as-of)"


def provider_of(path: Path, fmt: str, given: str | None) -> str:
    """The provider: ``--provider``, else (gpuhunt) the file name's stem or (SkyPilot) the folder, e.g. catalogs/v8/aws/vms.csv."""
    if given:
        return given.strip().lower()
    stem = path.parent.name if fmt == "skypilot" and path.stem.lower() == "vms" else path.stem
    key = re.sub(r"[^a-z0-9]+", "", re.split(r"[-_.]\d", stem.lower())[0])
    if key not in PROVIDERS:
        raise InputError(
            [
                Problem(
                    str(path),
                    "--provider",
                    f"cannot tell the provider from the file name {echo(path.name)}; name the file after it "
                    f"(aws.csv) or give --provider, one of: {', '.join(sorted(PROVIDERS))}",
                )
            ]
        )
    return key


def import_file(
    path: Path,
    fmt: str,
    *,
    as_of: dt.date | None = None,
    provider: str | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
    only_gpus: frozenset[str] = frozenset(),
    only_regions: tuple[str, ...] = (),
) -> Imported:
    """The cloud offers of a gpuhunt or SkyPilot catalog file; InputError (file, row, column) for bad input."""
    path = Path(path)
    if fmt not in FORMATS:
        raise InputError([Problem("command line", "--from", f"unknown format {echo(fmt)}; allowed: gpuhunt, skypilot")])
    if as_of is not None and not MIN_DATE <= as_of <= MAX_DATE:
        raise InputError([Problem("command line", "--as-of", f"{as_of} lies outside {MIN_DATE}..{MAX_DATE}")])
    if not path.exists():
        raise InputError([Problem(str(path), "", "not found; give the path of a gpuhunt or SkyPilot CSV file")])
    if path.is_dir():
        raise InputError(
            [Problem(str(path), "", "is a folder; give one CSV file in it (gpuhunt: aws.csv, SkyPilot: aws/vms.csv)")]
        )
    prov = provider_of(path, fmt, provider)
    log = ProblemLog()
    result = Imported(
        offers=[], provider=prov, quoted_on=as_of or dt.date.today(), only_gpus=only_gpus, only_regions=only_regions
    )
    items = (_gpuhunt_items if fmt == "gpuhunt" else _skypilot_items)(path, log, result)
    if log:
        raise log.error()
    if as_of is None:
        result.quoted_on, how = file_date(path)
        result.warnings.append(
            Problem(
                str(path),
                "quoted_on",
                f"prices dated {result.quoted_on} from {how}; give --as-of to set it",
                warning=True,
            )
        )
    for item in items:
        item.origin = f"{fmt} {shown_name(path)} row {item.row}"
    _build(items, prov, path, max_nodes, result, log)
    if log:
        raise log.error()
    return result


def _build(items: list[Item], prov: str, path: Path, max_nodes: int, result: Imported, log: ProblemLog) -> None:
    """The offers of ``items`` into ``result``; an offer the model refuses is a Problem at its row.

    An offer is one (instance, GPUs, location, spot): gpuhunt's marketplaces (RunPod, Vast.ai) name the GPU
    type, not the instance, so one name stands for 1, 2, 4 and 8 GPUs, and the count joins the id. The same
    offer twice at two prices keeps the first row and names the other."""
    notes: Counter[str] = Counter()
    unreviewed: Counter[str] = Counter()
    no_nvme: Counter[str] = Counter()
    contradictions: list[str] = []
    conflicts: list[str] = []
    cheap: list[str] = []
    counts: dict[str, set[int]] = {}
    for item in items:
        counts.setdefault(item.instance, set()).add(item.gpu_count)
    seen: dict[str, Item] = {}
    for item in items:
        row, made = _offer(item, prov, result.quoted_on, max_nodes, len(counts[item.instance]) > 1)
        if row is None:
            why, note = made
            (result.unknown_gpus if why == "gpu" else result.unknown_regions)[
                item.gpu_name if why == "gpu" else item.region or item.location
            ] += 1
            if note:
                notes[note + "; skipped"] += 1
            continue
        if not result.keeps(row):
            result.skipped["offers left out by --gpu/--region"] += 1
            continue
        first = seen.get(row["id"])
        if first is not None:
            result.skipped["rows repeating an instance, region and spot already imported skipped"] += 1
            if round(first.price, 6) != round(item.price, 6):
                conflicts.append(
                    f"{row['id']}: row {item.row} at ${item.price:g}/h repeats row {first.row} at ${first.price:g}/h"
                )
            continue
        try:
            Offer.model_validate(row)
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                col = ".".join(str(x) for x in err["loc"])
                log.add(Problem(str(path), col, f"the offer made of this row: {err['msg']}", row=item.row))
            continue
        seen[row["id"]] = item
        if made.note:
            notes[made.note] += 1
        if made.unknown_type:
            unreviewed[item.instance] += 1
        if made.no_nvme:
            no_nvme[item.instance] += 1
        if made.contradiction and made.contradiction not in contradictions:
            contradictions.append(made.contradiction)
        odd = row_warning(row["gpu"], item.gpu_count, item.price, item.row)
        if odd:
            cheap.append(odd)
        result.offers.append(row)
    _warn(path, result, notes, unreviewed, no_nvme, contradictions, conflicts, cheap)


def _names(counter: Counter[str] | list[str], limit: int = 10) -> str:
    names = list(counter)
    return ", ".join(names[:limit]) + (" …" if len(names) > limit else "")


def _warn(
    path: Path,
    result: Imported,
    notes: Counter[str],
    unreviewed: Counter[str],
    no_nvme: Counter[str],
    contradictions: list[str],
    conflicts: list[str],
    cheap: list[str],
) -> None:
    def warn(col: str, text: str) -> None:
        result.warnings.append(Problem(str(path), col, text, warning=True))

    for note, n in notes.items():
        warn("gpu_name", f"{note}, in {n} row(s); review the imported offers' gpu")
    if unreviewed:
        warn(
            "interconnect",
            f"{len(unreviewed)} instance type(s) not in procure's interconnect table were imported as pcie/none: "
            f"{_names(unreviewed)}; review intra_node, inter_node and inter_node_rails",
        )
    if no_nvme:
        warn(
            "nvme_tb",
            f"{len(no_nvme)} instance type(s) have no local NVMe known and none in the file, so they were "
            f"imported with no local NVMe (nvme_tb 0; a job with a dataset cannot use them): {_names(no_nvme)}; "
            "set nvme_tb where the provider attaches storage",
        )
    for text in contradictions[:10]:
        warn("gpu_name", text)
    if conflicts:
        warn(
            "price",
            f"{len(conflicts)} offer(s) appear twice at different prices; the first row was kept: "
            + "; ".join(conflicts[:5])
            + (" …" if len(conflicts) > 5 else ""),
        )
    for text in cheap[:10]:
        warn("price", text)
    if len(cheap) > 10:
        warn("price", f"{len(cheap) - 10} more row(s) outside their GPU's price band (the first 10 are named above)")


def _yaml_scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    return json.dumps(str(v), ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def catalog_yaml(result: Imported, path: Path) -> str:
    """The imported offers as a procure YAML catalog (read back by ``offers.catalog``)."""
    lines = [
        f"# Cloud offers imported from {shown_name(path)} ({result.provider}), prices of {result.quoted_on}.",
        "# Each offer's source names the file row; review gpu and interconnect before signing anything.",
        f"catalog_date: {result.quoted_on.isoformat()}",
        "currency: USD",
        "notes: "
        + _yaml_scalar(
            f"Imported by `procure offers import` from {shown_name(path)} ({result.provider}); prices per node-hour (one instance)."
        ),
        "offers:",
    ]
    for o in result.offers:
        lead = "  - "
        for k, v in o.items():
            lines.append(f"{lead}{k}: {_yaml_scalar(v)}")
            lead = "    "
    return "\n".join(lines) + "\n"


def catalog_csv(result: Imported) -> str:
    """The imported offers as a procure CSV catalog: the documented columns the offers use, in their order."""
    used = [c for c in COLUMNS if any(c in o for o in result.offers)]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(used)
    for o in result.offers:
        w.writerow([_csv_cell(o.get(c)) for c in used])
    return buf.getvalue()


def _csv_cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return str(v)
    return formula_safe(str(v))  # --provider and file text reach the vendor, id and source cells
