"""One priced offer of a server shape: bought, rented by the month, or paid by the hour in a cloud.

A *node* is one server (e.g. 8 GPUs). All money is in the project currency. Column names are a
contract shared by the YAML, CSV and XLSX catalog formats.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import ConfigDict, Field, field_validator, model_validator

from .gpu import FABRIC_GBPS, InterNode, IntraNode, gpu_table
from .limits import MAX_COUNT, MAX_DAYS, MAX_MONTHS, MAX_POWER_KW, MAX_PRICE, MAX_RAM_GB, MAX_STORAGE_TB
from .text import clean_name, echo
from .validation import Date, InputModel
from .regions import normalize_token

class Mode(StrEnum):
    """How capacity is obtained: bought servers, bare metal rented by the month, or cloud hours."""

    BUY = "buy"
    RENT = "rent"
    CLOUD = "cloud"


MODES: tuple[Mode, ...] = tuple(Mode)

#: Price/cost columns that belong to exactly one mode.
MODE_FIELDS: dict[str, tuple[str, ...]] = {
    "buy": ("price_per_node", "power_kw_per_node", "residual_value_pct", "maintenance_pct_per_year", "colocation_per_node_month"),
    "rent": ("price_per_node_month", "setup_fee_per_node", "min_term_months"),
    "cloud": ("price_per_node_hour", "spot", "spot_overhead_pct"),
}
#: Which of those a row of the mode must give.
MODE_REQUIRED: dict[str, tuple[str, ...]] = {
    "buy": ("price_per_node", "power_kw_per_node"),
    "rent": ("price_per_node_month",),
    "cloud": ("price_per_node_hour",),
}

#: Documented column order (also the template's columns).
COLUMNS: dict[str, str] = {
    "id": "unique offer id (letters, digits, '-', '_', '.')",
    "vendor": "who sells it",
    "mode": "buy | rent | cloud",
    "region": "area-prefixed region, e.g. us-east, eu-west, cn-east, ap-hk (the part before '-' is the area)",
    "gpu": "GPU id or alias from the GPU table, e.g. H100-SXM-80GB",
    "gpus_per_node": "GPUs in one node (server/instance)",
    "intra_node": "GPU link inside a node: nvswitch | nvlink | pcie",
    "inter_node": "fabric between nodes: none | eth-25g | eth-100g | roce-200g | roce-400g | ib-hdr | ib-ndr",
    "inter_node_rails": "fabric ports per node (HGX with one NIC per GPU: 8); default 1",
    "ram_gb": "host RAM per node, GB",
    "nvme_tb": "local NVMe per node, TB",
    "cpu_cores": "CPU cores per node",
    "network_line": "public network line, e.g. standard | cn2-gia | bgp",
    "max_nodes": "most nodes available from this offer",
    "lead_time_days": "days from order to a usable node",
    "price_per_node": "buy: purchase price per node",
    "power_kw_per_node": "buy: maximum power draw per node, kW",
    "residual_value_pct": "buy: resale value left at the horizon end, fraction of price (0-1)",
    "maintenance_pct_per_year": "buy: maintenance per year, fraction of price (0-1)",
    "colocation_per_node_month": "buy: rack space, cooling and hands per node-month",
    "price_per_node_month": "rent: price per node per month",
    "setup_fee_per_node": "rent: one-off setup fee per node",
    "min_term_months": "rent: minimum contract length, months",
    "price_per_node_hour": "cloud: price per node-hour",
    "spot": "cloud: true for spot/preemptible capacity",
    "spot_overhead_pct": "cloud: extra hours lost to interruptions, fraction (e.g. 0.15)",
    "source": "where the price comes from (URL, quote number, derivation)",
    "quoted_on": "date of the price, YYYY-MM-DD",
}


class Offer(InputModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
    vendor: str = Field(min_length=1, max_length=200)
    mode: Mode
    region: str = Field(min_length=1, max_length=80)
    gpu: str
    gpus_per_node: int = Field(gt=0, le=64)
    intra_node: IntraNode
    inter_node: InterNode = "none"
    inter_node_rails: int = Field(default=1, gt=0, le=32)
    ram_gb: float = Field(gt=0, le=MAX_RAM_GB)
    nvme_tb: float = Field(ge=0, le=MAX_STORAGE_TB)
    cpu_cores: int = Field(gt=0, le=MAX_COUNT)
    network_line: str = Field(default="standard", min_length=1, max_length=80)
    max_nodes: int = Field(default=64, gt=0, le=MAX_COUNT)
    lead_time_days: int = Field(default=0, ge=0, le=MAX_DAYS)
    # buy
    price_per_node: float | None = Field(default=None, gt=0, le=MAX_PRICE)
    power_kw_per_node: float | None = Field(default=None, gt=0, le=MAX_POWER_KW)
    residual_value_pct: float | None = Field(default=None, ge=0, le=1)
    maintenance_pct_per_year: float | None = Field(default=None, ge=0, le=1)
    colocation_per_node_month: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    # rent
    price_per_node_month: float | None = Field(default=None, gt=0, le=MAX_PRICE)
    setup_fee_per_node: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    min_term_months: int | None = Field(default=None, gt=0, le=MAX_MONTHS)
    # cloud
    price_per_node_hour: float | None = Field(default=None, gt=0, le=MAX_PRICE)
    spot: bool | None = None
    spot_overhead_pct: float | None = Field(default=None, ge=0, le=5)
    # provenance
    source: str = Field(min_length=1, max_length=2000)
    quoted_on: Date

    @field_validator("gpu", mode="before")
    @classmethod
    def _canonical_gpu(cls, value: object) -> str:
        table = gpu_table()
        text = value if isinstance(value, str) else echo(value)
        gid = table.resolve(text)
        if gid is None:
            raise ValueError(table.unknown_message(text))
        return gid

    @field_validator("vendor", "region", "network_line", "source", mode="before")
    @classmethod
    def _clean(cls, value: object, info) -> object:
        # names are plain printable text: whitespace runs are one space, control characters refused
        return clean_name(value, info.field_name)

    @field_validator("region", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("network_line", mode="before")
    @classmethod
    def _line(cls, value: object) -> object:
        """Case, spaces, underscores and hyphens do not matter: ``CN2 GIA`` and ``cn2_gia`` are ``cn2-gia``."""
        return normalize_token(value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _mode_fields(self) -> Offer:
        problems = []
        for mode, fields in MODE_FIELDS.items():
            if mode == self.mode:
                continue
            for f in fields:
                if getattr(self, f) is not None:
                    problems.append(f"{f} is a {mode} price field and does not belong to a {self.mode} offer")
        for f in MODE_REQUIRED[self.mode]:
            if getattr(self, f) is None:
                problems.append(f"{f} is required for a {self.mode} offer")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    # --- derived, with defaults applied (the one place defaults live) ---
    @property
    def residual(self) -> float:
        return self.residual_value_pct or 0.0

    @property
    def maintenance(self) -> float:
        return self.maintenance_pct_per_year or 0.0

    @property
    def colocation(self) -> float:
        return self.colocation_per_node_month or 0.0

    @property
    def setup_fee(self) -> float:
        return self.setup_fee_per_node or 0.0

    @property
    def min_term(self) -> int:
        return self.min_term_months or 1

    @property
    def hour_overhead(self) -> float:
        """Extra fraction of hours a cloud job pays for (spot interruptions)."""
        return (self.spot_overhead_pct or 0.0) if self.mode == "cloud" else 0.0

    @property
    def fabric_gbps(self) -> float:
        """Inter-node bandwidth per node, Gbit/s (port rate x rails)."""
        return FABRIC_GBPS[self.inter_node] * self.inter_node_rails

    @property
    def area(self) -> str:
        return self.region.split("-", 1)[0]

    @property
    def label(self) -> str:
        return f"{self.gpus_per_node}x{self.gpu}"
