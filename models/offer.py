"""One priced offer of a server shape: bought, rented by the month, or paid by the hour in a cloud.

A *node* is one server (e.g. 8 GPUs). Money is in the offer's ``currency`` (default: the project's
reporting currency); the cost model converts it with the project's ``fx_rates``. Column names are a
contract shared by the YAML, CSV and XLSX catalog formats.

Quote schedules (all optional):
- rent ``term_prices``: tiers ``{min_term_months, price_per_node_month}`` in place of one monthly price.
  Each tier is a minimum length, as vendors quote it: a contract of ℓ whole months may be signed at any
  tier with ``min_term_months`` ≤ ℓ and pays that tier's rate for every month (12 months or longer at
  20,000: a 16-month contract costs 16 × 20,000). The shortest tier is the minimum term (like a flat
  ``price_per_node_month`` with ``min_term_months``).
- buy ``volume_prices``: tiers ``{min_nodes, price_per_node}``, all-units: every node of the offer costs
  the price of the tier that the total bought reaches. Buying fewer than the first tier is not possible.
- cloud ``commitment_months`` (+ ``upfront_per_node``): reserved capacity; ``price_per_node_hour`` is then
  the committed rate, owed for every hour of the term whether used or not.
- buy ``financing``, ``depreciation_years``, ``import_duty_pct``, ``vat_pct``: see ``solver.costs``.
- the costs beyond the servers (``solver.costs``, "Costs beyond the servers"): ``fixed_cost`` (any mode: once
  if any node of the offer is used), ``network_per_node`` (buy: fabric per node bought, depreciated with
  the servers), ``storage_per_tb_month`` and ``egress_per_tb`` (any mode: a job's data held on and moved
  out of the offer).
Availability window (any mode): ``available_from`` / ``available_until`` dates; a job on the offer starts
on or after the first and ends by the second, and no contract of it begins before the first
(``solver.holdings``). A capacity block or a GPU sold only as a reservation is an offer with a window.
In CSV and XLSX a tier list is one cell, ``"1:3200; 6:2900; 12:2600"``, and ``financing`` is three
columns ``financing.down_payment_pct``, ``financing.months``, ``financing.annual_rate``.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import ConfigDict, Field, field_validator, model_validator

from procure.common.text import clean_name, echo
from procure.fileio.limits import MAX_COUNT, MAX_DAYS, MAX_MONTHS, MAX_POWER_KW, MAX_PRICE, MAX_RAM_GB, MAX_STORAGE_TB

from .gpu import FABRIC_GBPS, InterNode, IntraNode, gpu_table
from .money import Currency, Financing, Pct, Pct500, TermPrice, VolumePrice, ascending, parse_tiers
from .regions import normalize_token
from .validation import Date, InputModel


class Mode(StrEnum):
    """How capacity is obtained: bought servers, bare metal rented by the month, or cloud hours."""

    BUY = "buy"
    RENT = "rent"
    CLOUD = "cloud"


MODES: tuple[Mode, ...] = tuple(Mode)

#: Price/cost columns that belong to exactly one mode.
MODE_FIELDS: dict[str, tuple[str, ...]] = {
    "buy": (
        "price_per_node",
        "volume_prices",
        "power_kw_per_node",
        "residual_value_pct",
        "maintenance_pct_per_year",
        "colocation_per_node_month",
        "financing",
        "depreciation_years",
        "import_duty_pct",
        "network_per_node",
    ),
    "rent": ("price_per_node_month", "term_prices", "setup_fee_per_node", "min_term_months"),
    "cloud": ("price_per_node_hour", "spot", "spot_overhead_pct", "commitment_months", "upfront_per_node"),
}
#: Which of those a row of the mode must give.
MODE_REQUIRED: dict[str, tuple[str, ...]] = {
    "buy": ("price_per_node|volume_prices", "power_kw_per_node"),
    "rent": ("price_per_node_month|term_prices",),
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
    "currency": "ISO 4217 code of this row's prices, e.g. USD, EUR, CNY; default: the project's currency",
    "price_per_node": "buy: purchase price per node",
    "volume_prices": 'buy: all-units volume tiers min_nodes:price_per_node, e.g. "1:250000; 8:230000" (in place of price_per_node)',
    "power_kw_per_node": "buy: maximum power draw per node, kW",
    "residual_value_pct": "buy: resale value left at the horizon end, fraction of price (0-1)",
    "maintenance_pct_per_year": "buy: maintenance per year, fraction of price (0-1)",
    "colocation_per_node_month": "buy: rack space, cooling and hands per node-month",
    "financing.down_payment_pct": "buy: financed purchase, paid on delivery, e.g. 20% (empty: the project's financing, or cash)",
    "financing.months": "buy: financed purchase, number of monthly instalments",
    "financing.annual_rate": "buy: financed purchase, nominal annual interest rate, e.g. 6%",
    "depreciation_years": "buy: straight-line depreciation life, years (default: the project's, 5)",
    "import_duty_pct": "buy: import duty on the price, e.g. 5% (capitalised)",
    "vat_pct": "buy: VAT/sales tax on price plus duty; rent, cloud: on every charge of the offer (rent, setup, hours, storage, egress, fixed), e.g. 13% or 6%; counted only when the project sets vat_recoverable: false",
    "price_per_node_month": "rent: price per node per month",
    "setup_fee_per_node": "rent: one-off setup fee per node",
    "min_term_months": "rent: minimum contract length, months",
    "term_prices": 'rent: term tiers min_term_months:price_per_node_month, e.g. "1:3200; 6:2900; 12:2600" (in place of price_per_node_month and min_term_months)',
    "price_per_node_hour": "cloud: price per node-hour",
    "spot": "cloud: true for spot/preemptible capacity",
    "spot_overhead_pct": "cloud: extra hours lost to interruptions, fraction (e.g. 0.15 or 15%)",
    "commitment_months": "cloud: reserved/committed term, months; price_per_node_hour is then owed for every hour of the term",
    "upfront_per_node": "cloud: reserved capacity paid up front per node at the start of the term",
    "lease": "rent, cloud: true when the contract leases identified servers (IFRS 16.9), false for a service; empty: rent is a lease, cloud a service",
    "fixed_cost": "any mode: one-time charge paid once if any node of the offer is used (spine, cage, installation)",
    "network_per_node": "buy: one-time fabric per node bought (leaf ports, optics, cables), depreciated with it",
    "storage_per_tb_month": "any mode: per TB-month, a job's dataset and kept checkpoints while it runs on the offer",
    "egress_per_tb": "any mode: data out per TB at each job's end (final checkpoint; dataset if it moves on)",
    "available_from": "any mode: first day the offer can be used, YYYY-MM-DD (a capacity block or reservation); empty: from its lead time",
    "available_until": "any mode: day by which every job on the offer must have ended, YYYY-MM-DD; empty: the horizon end",
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
    residual_value_pct: Pct | None = Field(default=None, ge=0, le=1)
    maintenance_pct_per_year: Pct | None = Field(default=None, ge=0, le=1)
    colocation_per_node_month: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    volume_prices: list[VolumePrice] | None = Field(default=None, min_length=1, max_length=100)
    financing: Financing | None = None
    depreciation_years: float | None = Field(default=None, gt=0, le=50)
    import_duty_pct: Pct | None = Field(default=None, ge=0, le=1)
    vat_pct: Pct | None = Field(default=None, ge=0, le=1)
    # rent
    price_per_node_month: float | None = Field(default=None, gt=0, le=MAX_PRICE)
    setup_fee_per_node: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    min_term_months: int | None = Field(default=None, gt=0, le=MAX_MONTHS)
    term_prices: list[TermPrice] | None = Field(default=None, min_length=1, max_length=100)
    # cloud
    price_per_node_hour: float | None = Field(default=None, gt=0, le=MAX_PRICE)
    spot: bool | None = None
    spot_overhead_pct: Pct500 | None = Field(default=None, ge=0, le=5)
    commitment_months: int | None = Field(default=None, gt=0, le=120)
    upfront_per_node: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    # rent and cloud: a lease of identified servers, or a service (solver.costs, "Leases")
    lease: bool | None = None
    # costs beyond the servers (solver.costs)
    fixed_cost: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    network_per_node: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    storage_per_tb_month: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    egress_per_tb: float | None = Field(default=None, ge=0, le=MAX_PRICE)
    # availability window (solver.holdings): jobs on the offer start and end inside it
    available_from: Date | None = None
    available_until: Date | None = None
    # money
    currency: Currency | None = None
    # provenance
    source: str = Field(min_length=1, max_length=2000)
    quoted_on: Date

    @model_validator(mode="before")
    @classmethod
    def _flat_columns(cls, data: object) -> object:
        """Spreadsheet columns ``financing.<field>`` become the ``financing`` mapping."""
        if isinstance(data, dict) and any(isinstance(k, str) and k.startswith("financing.") for k in data):
            data = dict(data)
            nested = {
                k.split(".", 1)[1]: data.pop(k) for k in list(data) if isinstance(k, str) and k.startswith("financing.")
            }
            if "financing" in data:
                raise ValueError("give financing either as one mapping or as financing.<field> columns, not both")
            data["financing"] = nested
        return data

    @field_validator("term_prices", mode="before")
    @classmethod
    def _term_cell(cls, value: object) -> object:
        return parse_tiers(value, ("min_term_months", "price_per_node_month"))

    @field_validator("volume_prices", mode="before")
    @classmethod
    def _volume_cell(cls, value: object) -> object:
        return parse_tiers(value, ("min_nodes", "price_per_node"))

    @field_validator("term_prices")
    @classmethod
    def _terms_ascending(cls, value: list[TermPrice] | None) -> list[TermPrice] | None:
        bad = ascending([t.min_term_months for t in value], "min_term_months") if value else None
        if bad:
            raise ValueError(bad)
        return value

    @field_validator("volume_prices")
    @classmethod
    def _volumes_ascending(cls, value: list[VolumePrice] | None) -> list[VolumePrice] | None:
        bad = ascending([t.min_nodes for t in value], "min_nodes") if value else None
        if bad:
            raise ValueError(bad)
        return value

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
            alternatives = f.split("|")
            given = [a for a in alternatives if getattr(self, a) is not None]
            if not given:
                other = f" (or {', '.join(alternatives[1:])})" if len(alternatives) > 1 else ""
                problems.append(f"{alternatives[0]} is required for a {self.mode} offer{other}")
            elif len(given) > 1:
                problems.append(f"give either {' or '.join(alternatives)}, not both")
        if self.term_prices is not None:
            if self.min_term_months is not None:
                problems.append(
                    "min_term_months does not go with term_prices: the first tier's min_term_months is the minimum term"
                )
        if self.volume_prices is not None:
            if self.volume_prices[0].min_nodes > self.max_nodes:
                problems.append(
                    f"volume_prices: the first tier needs {self.volume_prices[0].min_nodes} nodes but max_nodes is {self.max_nodes}"
                )
        if self.upfront_per_node is not None and self.commitment_months is None:
            problems.append("upfront_per_node needs commitment_months (it is the up-front part of a reserved term)")
        if self.commitment_months is not None and self.spot:
            problems.append("a reserved (commitment_months) offer cannot be spot capacity")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @model_validator(mode="after")
    def _lease(self) -> Offer:
        if self.lease is not None and self.mode == "buy":
            raise ValueError("lease is for rent and cloud offers: a bought server is owned, not leased")
        return self

    @model_validator(mode="after")
    def _window(self) -> Offer:
        if self.available_from and self.available_until and self.available_until <= self.available_from:
            raise ValueError(
                f"available_until {self.available_until} must come after available_from {self.available_from}"
            )
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
    def fixed(self) -> float:
        return self.fixed_cost or 0.0

    @property
    def network(self) -> float:
        return self.network_per_node or 0.0

    @property
    def storage(self) -> float:
        return self.storage_per_tb_month or 0.0

    @property
    def egress(self) -> float:
        return self.egress_per_tb or 0.0

    @property
    def setup_fee(self) -> float:
        return self.setup_fee_per_node or 0.0

    @property
    def min_term(self) -> int:
        """Shortest contract: the first term tier, or min_term_months (default 1)."""
        if self.term_prices:
            return self.term_prices[0].min_term_months
        return self.min_term_months or 1

    @property
    def rent_tiers(self) -> tuple[tuple[int, float], ...]:
        """(term months, price per node-month) per tier in the offer's currency; a flat price is one tier."""
        if self.term_prices:
            return tuple((t.min_term_months, t.price_per_node_month) for t in self.term_prices)
        return ((self.min_term, self.price_per_node_month),) if self.price_per_node_month is not None else ()

    @property
    def buy_tiers(self) -> tuple[tuple[int, float], ...]:
        """(least total nodes, price per node) per tier in the offer's currency; a flat price is one tier from 1 node."""
        if self.volume_prices:
            return tuple((t.min_nodes, t.price_per_node) for t in self.volume_prices)
        return ((1, self.price_per_node),) if self.price_per_node is not None else ()

    @property
    def committed(self) -> bool:
        """A reserved/committed cloud offer: capacity is contracted for a term, like a rental."""
        return self.mode == "cloud" and self.commitment_months is not None

    @property
    def contracted(self) -> bool:
        """Capacity bought by whole-month contracts: bare-metal rent, or a reserved cloud term."""
        return self.mode == "rent" or self.committed

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
