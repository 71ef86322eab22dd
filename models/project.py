"""``workload.yaml``: the training jobs to place and the finance settings of the project.

Field names are a contract other tools read. Days are counted from ``start_date`` (day 0).
"""

from __future__ import annotations

import datetime as dt
import math
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from procure.common.errors import InputError, Problem
from procure.common.text import clean_name, echo, same_name_key
from procure.fileio.limits import (
    MAX_BUDGET,
    MAX_CARBON_PRICE,
    MAX_CARBON_YEARS,
    MAX_COUNT,
    MAX_DAYS,
    MAX_ELECTRICITY_PRICE,
    MAX_HOURS,
    MAX_STORAGE_TB,
    MAX_TOKENS_B,
    MAX_WORKLOAD_BYTES,
)
from procure.fileio.yamlio import line_of, load_yaml

from .analysis import AnalysisSettings
from .calendar import Calendar, calendar
from .gpu import gpu_table
from .holdings import Commitment, Owned, Quota, months_before_start
from .layout import (
    ACTIVATION_OFFLOAD_DOC,
    LAYOUT_DOC,
    LOSS_DEFAULT,
    LOSS_DOC,
    QUANTIZE_ON_LOAD_DEFAULT,
    QUANTIZE_ON_LOAD_DOC,
    Layout,
    Loss,
    QuantizeOnLoad,
    check_layout,
)
from .model_spec import ModelSpec, resolve_preset
from .money import Currency, Financing, FxRate, Pct, high_rate_warning, known_currency
from .offer import MODES, Mode
from .paths import MAX_PATHS, FxStep, PricePath, check_fx_steps, duplicate_paths
from .regions import normalize_token, resolve_region
from .tax import TaxSettings
from .validation import Date, InputModel, problems_from


class Method(StrEnum):
    """How a model is trained: from scratch, full fine-tune, or adapters (LoRA, QLoRA on a 4-bit base)."""

    PRETRAIN = "pretrain"
    FULL = "full"
    LORA = "lora"
    QLORA = "qlora"


class Workload(InputModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=80)
    model: ModelSpec = Field(description="a preset id (see `procure size --help`) or an inline architecture")
    method: Method
    tokens_b: float = Field(
        gt=0, le=MAX_TOKENS_B, description="total tokens processed, billions (dataset tokens x epochs)"
    )
    seq_len: int = Field(default=4096, gt=0, le=1_048_576)
    lora_rank: int = Field(default=16, gt=0, le=4096, description="LoRA/QLoRA adapter rank")
    earliest_start_days: int = Field(default=0, ge=0, le=MAX_DAYS)
    deadline_days: int = Field(gt=0, le=MAX_DAYS, description="the job must finish by this day (from start_date)")
    min_slack_days: float | None = Field(
        default=None,
        ge=0,
        le=MAX_DAYS,
        description="schedule buffer: the job must finish at least this many days before deadline_days; "
        "default: the project's min_slack_days",
    )
    dataset_tb: float = Field(default=0.1, ge=0, le=MAX_STORAGE_TB, description="training data on local disk, TB")
    checkpoint_every_hours: float = Field(default=4.0, gt=0, le=MAX_HOURS)
    checkpoints_kept: int = Field(default=2, ge=1, le=1000)
    dataset_moves_on: bool = Field(
        default=False,
        description=(
            "true: at the end of the job its dataset is copied out of the offer it ran on (to the next stage "
            "elsewhere) and pays that offer's egress_per_tb; the final checkpoint always does"
        ),
    )
    mfu: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="model FLOPs utilisation override (0-1): the in-step fraction of dense BF16 peak",
    )
    effective_time: float | None = Field(
        default=None,
        gt=0,
        le=1,
        description="fraction of wall-clock time spent in training steps (ramp-up, restarts, checkpointing and evaluation take the rest); default 0.9",
    )
    precision: Literal["bf16", "fp8"] = Field(
        default="bf16",
        description="bf16, or fp8 matrix multiplies with the DeepSeek-V3 recipe (GPUs with FP8 tensor cores only)",
    )
    flash_attention: bool = Field(
        default=True,
        description="fused (flash) attention kernels; false for stacks without them (before mid-2022, or plain eager attention): attention runs FLASH_ATTENTION_SPEEDUP times slower and stores its s x s matrix",
    )
    global_batch_tokens: float | None = Field(
        default=None,
        gt=0,
        le=1e12,
        description="tokens per optimizer step; default: pretrain from the DeepSeek LLM batch-size law, fine-tuning per method",
    )
    allowed_gpus: list[str] | None = Field(default=None, min_length=1)
    priority: Literal["required", "optional"] = Field(
        default="optional",
        description="required: a partial plan never sets this job aside while an optional one could go instead",
    )
    layout: Layout | None = Field(default=None, description=LAYOUT_DOC)
    loss: Loss = Field(default=LOSS_DEFAULT, description=LOSS_DOC)
    activation_offload: bool = Field(default=False, description=ACTIVATION_OFFLOAD_DOC)
    quantize_on_load: QuantizeOnLoad = Field(default=QUANTIZE_ON_LOAD_DEFAULT, description=QUANTIZE_ON_LOAD_DOC)

    @field_validator("layout")
    @classmethod
    def _layout(cls, value: Layout | None, info: ValidationInfo) -> Layout | None:
        return check_layout(value, info.data)

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, value: object) -> object:
        return clean_name(value, "name")

    @field_validator("model", mode="before")
    @classmethod
    def _preset(cls, value: object) -> object:
        if isinstance(value, str):
            return resolve_preset(value)
        return value

    @field_validator("allowed_gpus", mode="before")
    @classmethod
    def _gpus(cls, value: object) -> object:
        if not isinstance(value, list):
            return value
        table, out, bad = gpu_table(), [], []
        for name in value:
            text = name if isinstance(name, str) else echo(name)
            gid = table.resolve(text)
            if gid is None:
                bad.append(table.unknown_message(text))
            else:
                out.append(gid)
        if bad:
            raise ValueError("; ".join(bad))
        return out

    @model_validator(mode="after")
    def _window(self) -> Workload:
        if self.deadline_days <= self.earliest_start_days:
            raise ValueError(
                f"deadline_days ({self.deadline_days}) must be after earliest_start_days ({self.earliest_start_days})"
            )
        if self.min_slack_days is not None and self.deadline_days - self.min_slack_days <= self.earliest_start_days:
            raise ValueError(_no_time_left("min_slack_days", self.min_slack_days, self))
        # fp8 is open to every method: adapter recipes run the base's GEMMs in FP8 too (NVIDIA NeMo 24.12
        # performance summary, LoRA of Llama 2 7B–70B in FP8); a GPU without an FP8 rate refuses it (fit.py)
        return self


def _no_time_left(setting: str, slack: float, w: Workload) -> str:
    return (
        f"{setting} ({slack:g}) leaves no time to run {w.name}: it must finish by day "
        f"{w.deadline_days} − {slack:g} = {w.deadline_days - slack:g}, which is not after "
        f"earliest_start_days ({w.earliest_start_days}); "
        "lower the buffer or move deadline_days later"
    )


class SizingSettings(InputModel):
    """Fit-check thresholds (the seeds' rules of thumb), overridable per project."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host_ram_ratio: float | None = Field(
        default=None,
        gt=0,
        le=100,
        description="optional: require host RAM >= ratio x the node's GPU memory (the 1.5-2x rule of thumb for full training of large models) instead of the per-job host-memory estimate",
    )
    cpu_cores_per_gpu: float | None = Field(
        default=None,
        ge=0,
        le=1000,
        description="optional: CPU cores required per GPU; default 1 training process + the data-loader workers",
    )
    min_efficiency: float = Field(
        default=0.5, gt=0, le=1, description="reject shapes whose scaling efficiency is below this"
    )
    min_inter_node_gbps: float = Field(
        default=100.0, ge=0, le=1e6, description="multi-node jobs need at least this fabric per node"
    )
    max_nodes_per_job: int | None = Field(
        default=None,
        gt=0,
        le=MAX_COUNT,
        description="optional cap on the nodes one job may take on any offer; default: each offer's own max_nodes",
    )
    premium_lines: list[str] = Field(
        default_factory=lambda: ["cn2-gia", "iplc", "cn2"],
        description="network lines good enough for a team across the mainland-China border",
    )
    global_batch_tokens_m: float | None = Field(
        default=None,
        gt=0,
        le=1e6,
        description="tokens per optimizer step, millions; default per method: pretrain 4, full 1, lora/qlora 0.25",
    )

    @field_validator("premium_lines", mode="before")
    @classmethod
    def _clean_lines(cls, value: object) -> object:
        return [clean_name(v, "premium_lines") for v in value] if isinstance(value, list) else value

    @field_validator("premium_lines")
    @classmethod
    def _lines(cls, value: list[str]) -> list[str]:
        """Spelled like offers' network_line after validation (``CN2 GIA`` → ``cn2-gia``)."""
        return [normalize_token(x) for x in value]


class Staff(InputModel):
    """The operations staff that capacity of ``modes`` needs (``solver.costs.staff_flows``): whole FTEs,
    ceil(peak nodes held / nodes_per_fte), paid cost_per_fte_year / 12 for every month from the first to
    the last month any node of those modes is held."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    nodes_per_fte: int = Field(gt=0, le=MAX_COUNT, description="nodes one full-time engineer runs")
    cost_per_fte_year: float = Field(
        gt=0, le=MAX_BUDGET, description="fully loaded cost of one FTE per year, in the project currency"
    )
    modes: list[Mode] = Field(
        default_factory=lambda: [Mode.BUY],
        min_length=1,
        description="the modes whose nodes need staff: buy and/or rent",
    )
    source: str | None = Field(
        default=None, min_length=1, max_length=2000, description="where the ratio and the cost come from"
    )

    @field_validator("modes")
    @classmethod
    def _modes(cls, value: list[Mode]) -> list[Mode]:
        if Mode.CLOUD in value:
            raise ValueError("staff.modes may be buy and rent: cloud capacity is run by the provider")
        return list(dict.fromkeys(value))


class Project(InputModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=200)
    currency: Currency = Field(
        default="USD", description="reporting currency (ISO 4217); every amount reported is in it"
    )
    fx_rates: dict[str, FxRate] = Field(
        default_factory=dict,
        description="value of one unit of each quoted currency in the reporting currency, e.g. {CNY: 0.14}",
    )
    fx_rates_date: Date | None = Field(default=None, description="the day the fx_rates were taken")
    fx_rates_source: str | None = Field(
        default=None, min_length=1, max_length=2000, description="where the fx_rates come from"
    )
    price_paths: list[PricePath] = Field(
        default_factory=list,
        max_length=MAX_PATHS,
        description="prices that move: {mode: rent|buy|cloud|energy, gpu?, offer?, annual_pct | monthly, source?} "
        "(models.paths)",
    )
    fx_paths: dict[str, list[FxStep]] = Field(
        default_factory=dict,
        description="dated exchange rates of quoted currencies: {USD: [{from: YYYY-MM-DD, rate: 7.1}, …]} (models.paths)",
    )
    fx_paths_source: str | None = Field(
        default=None, min_length=1, max_length=2000, description="where the fx_paths come from"
    )
    financing: Financing | None = Field(
        default=None, description="default loan for every purchase (an offer's own financing wins)"
    )
    staff: Staff | None = Field(
        default=None,
        description="operations staff of self-run capacity: {nodes_per_fte, cost_per_fte_year, modes: [buy]}",
    )
    depreciation_years: float = Field(
        default=5.0, gt=0, le=50, description="straight-line life of bought servers, years (an offer may override)"
    )
    vat_recoverable: bool = Field(
        default=True,
        description="false: every offer's vat_pct is a cost (a purchase's on price plus duty, a rent or cloud offer's "
        "on its charges)",
    )
    start_date: Date = Field(default_factory=dt.date.today)
    horizon_months: int = Field(default=36, gt=0, le=120)
    period_days: int = Field(default=7, gt=0, le=92)
    discount_rate: Pct = Field(default=0.0, ge=0, lt=1, description="annual discount rate for NPV: 8% or 0.08")
    tax: TaxSettings | None = Field(
        default=None,
        description="income tax: {income_tax_rate, depreciation: cn-one-off|cn-straight-line|us-macrs-5|us-bonus-100|"
        "straight-line, life_years?, losses_usable?}; enables the after-tax figures and objective",
    )
    wacc: Pct | None = Field(
        default=None, ge=0, lt=1, description="weighted average cost of capital, after tax: the after-tax NPV's rate"
    )
    hurdle_rate: Pct | None = Field(
        default=None, ge=0, lt=1, description="the company's hurdle rate: the after-tax NPV's rate (wins over wacc)"
    )
    cost_of_debt: Pct | None = Field(
        default=None,
        ge=0,
        lt=1,
        description="pre-tax cost of debt; at (1 − tax rate) it discounts lease payments and tax shields in the "
        "net advantage to leasing",
    )
    incremental_borrowing_rate: Pct | None = Field(
        default=None,
        ge=0,
        lt=1,
        description="the lessee's incremental borrowing rate for lease liabilities (IFRS 16.26)",
    )
    fiscal_year_start_month: int = Field(
        default=1, ge=1, le=12, description="the month the tax year begins (1 = January); sets the MACRS tax years"
    )
    budget: float | None = Field(default=None, gt=0, le=MAX_BUDGET, description="deprecated alias of budget_tco")
    budget_tco: float | None = Field(
        default=None,
        gt=0,
        le=MAX_BUDGET,
        description="cap on the total cost of ownership over the horizon (undiscounted, net of the resale value credited at its end), in the project currency; `budget` is its deprecated alias",
    )
    budget_cash: float | None = Field(
        default=None,
        gt=0,
        le=MAX_BUDGET,
        description="cap on the peak cumulative cash out, in the project currency: at no month end may the money spent so far exceed it",
    )
    budget_capex: float | None = Field(
        default=None,
        gt=0,
        le=MAX_BUDGET,
        description="cap on the purchase price of the servers bought (capex), in the project currency",
    )
    min_slack_days: float = Field(
        default=0.0,
        ge=0,
        le=MAX_DAYS,
        description="schedule buffer: every job must finish at least this many days before its deadline_days "
        "(a workload's own min_slack_days wins); default 0",
    )
    deadline_confidence: Pct = Field(
        default=0.8,
        ge=0.5,
        lt=1.0,
        description="probability with which each job must meet its deadline: its deadline is checked against its "
        "hours at this quantile of the calibrated hours band (docs/sizing.md), its cost uses the median hours; "
        "at least 0.5 (the median) and below 1 (certainty is not on offer); default 0.8",
    )
    stale_quote_days: int = Field(
        default=180,
        ge=0,
        le=MAX_DAYS,
        description="warn when an offer in the plan was quoted more than this many days before start_date",
    )
    electricity_price_per_kwh: float = Field(
        default=0.12,
        ge=0,
        le=MAX_ELECTRICITY_PRICE,
        description="price of one kWh at the sites of bought servers, in the project currency",
    )
    pue: float = Field(default=1.3, ge=1, le=3)
    carbon_price_per_t: float | None = Field(
        default=None,
        ge=0,
        le=MAX_CARBON_PRICE,
        description="a price on carbon: money per tonne of CO2e of the plan's operational emissions (energy × the grid "
        "intensity of each offer's region), in carbon_price_currency; a cost category of the plan (carbon); the "
        "price of every project year unless carbon_price_change_pct_per_year or carbon_price_by_year is given",
    )
    carbon_price_currency: Currency | None = Field(
        default=None,
        description="the currency of the carbon price (ISO 4217); default the reporting currency; another one needs "
        "its rate in fx_rates",
    )
    carbon_price_change_pct_per_year: Pct | None = Field(
        default=None,
        ge=0,
        le=1,
        description="the carbon price's path: it rises by this much each project year, compounded (year y pays "
        "carbon_price_per_t · (1 + change)^(y − 1)); 5% or 0.05",
    )
    carbon_price_by_year: list[float] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_CARBON_YEARS,
        description="the carbon price's path as a price per tonne for each project year (months 1–12, 13–24, …); "
        "the last one holds for the years after it; instead of carbon_price_per_t",
    )
    team_region: str | None = Field(default=None, max_length=80)
    allowed_modes: list[Mode] = Field(default_factory=lambda: list(MODES), min_length=1)
    allow_spot: bool = Field(default=True, description="false: never place a job on spot/preemptible cloud capacity")
    offers: list[str] | None = Field(
        default=None, min_length=1, description="catalog files, relative to the workload file"
    )
    sizing: SizingSettings = Field(default_factory=SizingSettings)
    workloads: list[Workload] = Field(min_length=1)
    owned: list[Owned] = Field(
        default_factory=list,
        max_length=100,
        description="servers already owned: {offer, nodes, from?, until?, residual_value?}",
    )
    commitments: list[Commitment] = Field(
        default_factory=list,
        max_length=100,
        description="rentals and reserved cloud terms already signed: {offer, nodes, start_date, months}",
    )
    quotas: list[Quota] = Field(
        default_factory=list,
        max_length=100,
        description="GPUs in use at once: {vendor?, region?, gpu?, mode?, max_gpus}",
    )
    analysis: AnalysisSettings = Field(
        default_factory=AnalysisSettings, description="ranges and distributions of `procure analyze`"
    )
    language: Literal["en", "zh-CN"] = Field(
        default="en",
        description="language of the reports (console, workbook, CSV header rows): en or zh-CN; --lang overrides it",
    )
    amounts_in: Literal["unit", "wan"] = Field(
        default="unit",
        description="how the reports show amounts: unit (1 CNY) or wan (万, 10,000 CNY); --amounts-in overrides it",
    )

    @field_validator("name", mode="before")
    @classmethod
    def _name(cls, value: object) -> object:
        return clean_name(value, "name")

    @field_validator("team_region", mode="before")
    @classmethod
    def _region(cls, value: object) -> object:
        """A documented region or alias (``shanghai`` → ``cn-east``, ``china`` → ``cn``); see models/regions.py."""
        return resolve_region(clean_name(value, "team_region")) if isinstance(value, str) else value

    @field_validator("fx_rates", mode="before")
    @classmethod
    def _fx(cls, value: object) -> object:
        if not isinstance(value, dict):
            return value
        out, bad = {}, []
        for code, rate in value.items():
            try:
                key = known_currency(code)
            except ValueError as exc:
                bad.append(str(exc))
                continue
            if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not math.isfinite(rate) or rate <= 0:
                bad.append(
                    f"rate of {key} must be a number > 0: the value of one {key} in the reporting currency (got {rate!r})"
                )
                continue
            out[key] = float(rate)
        if bad:
            raise ValueError("; ".join(bad))
        return out

    @field_validator("analysis")
    @classmethod
    def _analysis_drivers(cls, value: AnalysisSettings, info: ValidationInfo) -> AnalysisSettings:
        """The declared drivers this project gives something to move (models.analysis, ``check_project``)."""
        if "tax" not in info.data or "fx_rates" not in info.data:  # refused already: its own error says why
            return value
        tax = info.data["tax"]
        value.check_project(
            tax.income_tax_rate if tax is not None else None,
            info.data.get("fx_rates") or {},
            info.data.get("currency", "USD"),
        )
        return value

    @field_validator("fx_paths", mode="before")
    @classmethod
    def _fx_path_codes(cls, value: object) -> object:
        """Currency codes as fx_rates spells them (``usd`` → ``USD``); an unknown code is named by _path_checks."""
        if not isinstance(value, dict):
            return value
        out = {}
        for code, steps in value.items():
            try:
                out[known_currency(code)] = steps
            except ValueError:
                out[code] = steps
        return out

    @model_validator(mode="after")
    def _checks(self) -> Project:
        if self.fx_rates and (self.fx_rates_date is None or self.fx_rates_source is None):
            raise ValueError("fx_rates need fx_rates_date (YYYY-MM-DD) and fx_rates_source (where the rates come from)")
        own = self.fx_rates.get(self.currency)
        if own is not None and own != 1:  # a rate of 1 is harmless; any other would be silently ignored
            raise ValueError(
                f"fx_rates gives {self.currency}, the project's own currency, a rate of {own:g}; amounts in "
                f"{self.currency} need no conversion (its rate is 1): remove it, or set currency to the one the rates are for"
            )
        self._path_checks()
        if self.budget is not None:
            # `budget` is the deprecated name of budget_tco (load_project warns); one cap, one field to read
            if self.budget_tco is not None and self.budget_tco != self.budget:
                raise ValueError("give budget_tco only: budget is its deprecated alias")
            object.__setattr__(self, "budget_tco", self.budget)
        # names are compared in their NFKC form: "ｊｏｂ" (fullwidth) and "job" print alike, so they are one name
        first: dict[str, str] = {}
        dups: dict[str, list[str]] = {}
        for w in self.workloads:
            key = same_name_key(w.name)
            if key in first:
                dups.setdefault(key, [first[key]]).append(w.name)
            else:
                first[key] = w.name
        if dups:
            shown = [
                names[0] if all(n == names[0] for n in names) else " = ".join(dict.fromkeys(echo(n) for n in names))
                for names in dups.values()
            ]
            raise ValueError(f"workload names must be unique; repeated: {', '.join(sorted(shown))}")
        for w in self.workloads:
            if w.min_slack_days is None and self.deadline_days_for(w) <= w.earliest_start_days:
                raise ValueError(_no_time_left("the project's min_slack_days", self.min_slack_days, w))
        self._carbon_checks()
        horizon_days = self.horizon_days
        self._holdings_checks(horizon_days)
        late = [w.name for w in self.workloads if w.deadline_days > horizon_days]
        if late:
            raise ValueError(
                f"deadline_days of {', '.join(late)} lies beyond the horizon ({self.horizon_months} months = {horizon_days} days); raise horizon_months"
            )
        return self

    def _path_checks(self) -> None:
        """price_paths: one per mode, GPU and offer; fx_paths: currencies with an fx_rates rate, steps in date order."""
        bad = duplicate_paths(self.price_paths)
        if len(self.fx_paths) > MAX_PATHS:
            bad.append(f"fx_paths: {len(self.fx_paths)} currencies; at most {MAX_PATHS} are allowed")
        for code, steps in self.fx_paths.items():
            try:
                key = known_currency(code)
            except ValueError as exc:
                bad.append(f"fx_paths: {exc}")
                continue
            if key == self.currency:
                bad.append(f"fx_paths.{key}: {key} is the project's own currency; its rate is always 1")
            elif key not in self.fx_rates:
                bad.append(
                    f"fx_paths.{key}: {key} has no rate in fx_rates; give its rate of today in fx_rates "
                    f"(with fx_rates_date and fx_rates_source) and the path from there"
                )
            bad += check_fx_steps(key, steps)
        if bad:
            raise ValueError("; ".join(bad))

    def _carbon_checks(self) -> None:
        """The carbon price: one price or a price per year, its currency known, its path within the horizon."""
        by_year, price = self.carbon_price_by_year, self.carbon_price_per_t
        given = [
            f for f in ("carbon_price_currency", "carbon_price_change_pct_per_year") if getattr(self, f) is not None
        ]
        if by_year is not None and price is not None:
            raise ValueError(
                "give carbon_price_per_t (one price, with carbon_price_change_pct_per_year for a yearly rise) or "
                "carbon_price_by_year (a price for each project year), not both"
            )
        if by_year is not None and self.carbon_price_change_pct_per_year is not None:
            raise ValueError(
                "carbon_price_change_pct_per_year goes with carbon_price_per_t; carbon_price_by_year states each "
                "year's price already"
            )
        if price is None and by_year is None and given:
            raise ValueError(f"{' and '.join(given)} need carbon_price_per_t (money per tonne of CO2e)")
        if by_year is not None:
            years = math.ceil(self.horizon_months / 12)
            if len(by_year) > years:
                raise ValueError(
                    f"carbon_price_by_year gives {len(by_year)} years; the horizon ({self.horizon_months} months) "
                    f"has {years}: give at most {years} prices"
                )
            bad = [
                f"carbon_price_by_year[{i}] = {v!r}"
                for i, v in enumerate(by_year)
                if not math.isfinite(v) or v < 0 or v > MAX_CARBON_PRICE
            ]
            if bad:
                raise ValueError(
                    f"{'; '.join(bad)}: each price per tonne of CO2e must be a number from 0 to {MAX_CARBON_PRICE:g}"
                )
        cur = self.carbon_price_currency
        if cur is not None and cur != self.currency and cur not in self.fx_rates:
            raise ValueError(
                f"carbon_price_currency {cur} has no rate in fx_rates: add {cur} (the value of one {cur} in "
                f"{self.currency}), or give the carbon price in {self.currency}"
            )

    @property
    def carbon_priced(self) -> bool:
        """Whether the project puts a price on carbon (a price above 0 in some year)."""
        if self.carbon_price_by_year is not None:
            return any(v > 0 for v in self.carbon_price_by_year)
        return bool(self.carbon_price_per_t)

    def carbon_price_in_year(self, year: int) -> float:
        """The carbon price per tonne of CO2e in project year ``year`` (0-based: months 12·year … 12·year + 11), in
        carbon_price_currency (0 without a carbon price)."""
        if self.carbon_price_by_year is not None:
            return self.carbon_price_by_year[min(year, len(self.carbon_price_by_year) - 1)]
        if not self.carbon_price_per_t:
            return 0.0
        return self.carbon_price_per_t * (1.0 + (self.carbon_price_change_pct_per_year or 0.0)) ** year

    def _holdings_checks(self, horizon_days: int) -> None:
        """Owned windows and commitments lie in the horizon (models.holdings)."""
        bad = []
        for i, c in enumerate(self.commitments):
            day = (c.start_date - self.start_date).days
            if day < 0 and months_before_start(c.start_date, self.start_date) >= c.months:
                bad.append(
                    f"commitments[{i}]: signed on {c.start_date} for {c.months} month(s), it ended before the "
                    f"project start_date {self.start_date}: leave it out"
                )
            elif day >= horizon_days:
                bad.append(f"commitments[{i}].start_date {c.start_date} lies beyond the horizon")
        for i, o in enumerate(self.owned):
            lo = (o.from_ - self.start_date).days if o.from_ else 0
            hi = (o.until - self.start_date).days if o.until else horizon_days
            if lo < 0:
                bad.append(
                    f"owned[{i}].from {o.from_} is before the project start_date {self.start_date}: leave it out"
                )
            if hi <= max(lo, 0) or lo >= horizon_days:
                bad.append(
                    f"owned[{i}]: the window from {o.from_ or 'day 0'} until {o.until or 'the horizon end'} is empty"
                )
        if bad:
            raise ValueError("; ".join(bad))

    def fx_rate(self, currency: str | None) -> float:
        """Value of one unit of ``currency`` in the reporting currency (1 for the reporting currency or None).
        Raises KeyError for a currency without a rate (``check_currencies`` reports it as an input error first)."""
        if currency is None or currency == self.currency:
            return 1.0
        return self.fx_rates[currency]

    def rate_to(self, other: Project) -> float | None:
        """Value of one unit of this project's reporting currency in ``other``'s: 1 for the same currency, else
        from this project's ``fx_rates`` (one unit of other's currency is r of ours: 1/r), else from other's
        (r for ours); None when neither gives the rate."""
        if self.currency == other.currency:
            return 1.0
        if other.currency in self.fx_rates:
            return 1.0 / self.fx_rates[other.currency]
        return other.fx_rates.get(self.currency)

    def slack_for(self, workload: Workload) -> float:
        """The schedule buffer of ``workload``, days: its own ``min_slack_days``, else the project's."""
        return self.min_slack_days if workload.min_slack_days is None else workload.min_slack_days

    def deadline_days_for(self, workload: Workload) -> float:
        """The day ``workload`` must finish by in every plan: ``deadline_days`` − its schedule buffer."""
        return workload.deadline_days - self.slack_for(workload)

    @property
    def budgets(self) -> dict[str, float]:
        """The caps that are set: ``tco``, ``cash`` and ``capex`` → amount."""
        caps = {"tco": self.budget_tco, "cash": self.budget_cash, "capex": self.budget_capex}
        return {k: v for k, v in caps.items() if v is not None}

    @property
    def calendar(self) -> Calendar:
        """The project's calendar months (models.calendar)."""
        return calendar(self.start_date)

    @property
    def horizon_days(self) -> int:
        """Days from the start to the horizon's end, the 1st of the month ``horizon_months`` after the start's."""
        return self.calendar.end_day(self.horizon_months)

    @property
    def team_area(self) -> str | None:
        return self.team_region.split("-", 1)[0] if self.team_region else None


_AS_OFFERS = "--offers, and the workload (a YAML file with `workloads:`) as the first argument"


def _is_catalog(data: object) -> bool:
    """An offer catalog: a list of offer mappings, or a mapping whose ``offers`` are mappings (a
    workload's own ``offers`` is a list of file names) and that has no ``workloads``."""
    if isinstance(data, dict) and "workloads" not in data:
        data = data.get("offers")
    return isinstance(data, list) and bool(data) and all(isinstance(x, dict) for x in data)


def load_project(path: str | Path) -> tuple[Project, list[Problem]]:
    """Load and validate ``workload.yaml``. Raises InputError with every problem; returns warnings."""
    path = Path(path)
    if path.suffix.lower() in (".csv", ".xlsx", ".xlsm"):
        raise InputError(
            [
                Problem(
                    str(path),
                    "",
                    f"a {path.suffix} table is an offer catalog, not a workload file; pass it with {_AS_OFFERS}",
                )
            ]
        )
    data, lines = load_yaml(path, "workload file", limit=MAX_WORKLOAD_BYTES)
    if _is_catalog(data):
        raise InputError(
            [
                Problem(
                    str(path),
                    "",
                    f"this is an offer catalog (a list of offers), not a workload file; pass it with {_AS_OFFERS}",
                )
            ]
        )
    if not isinstance(data, dict):
        raise InputError([Problem(str(path), "", "expected a mapping with `name` and `workloads` at the top level")])
    try:
        project = Project.model_validate(data)
    except ValidationError as exc:
        raise InputError(problems_from(exc, str(path), (), lambda loc: line_of(lines, loc), model=Project)) from None
    warnings = []
    if "budget" in data:
        warnings.append(
            Problem(
                str(path),
                "budget",
                "`budget` is deprecated: call it `budget_tco` (a cap on the total cost of ownership); "
                "see also budget_cash and budget_capex",
                line=line_of(lines, ("budget",)),
                warning=True,
            )
        )
    for where, rate in (
        ("discount_rate", project.discount_rate),
        ("financing.annual_rate", project.financing.annual_rate if project.financing else 0.0),
    ):
        msg = high_rate_warning(rate)
        if msg:
            warnings.append(Problem(str(path), where, msg, line=line_of(lines, tuple(where.split("."))), warning=True))
    for i, w in enumerate(project.workloads):
        if w.dataset_tb > 5000:
            warnings.append(
                Problem(
                    str(path),
                    f"workloads[{i}].dataset_tb",
                    f"{w.dataset_tb:g} TB is implausibly large; is the unit TB?",
                    line=line_of(lines, ("workloads", i, "dataset_tb")),
                    warning=True,
                )
            )
        if w.model.is_moe and not w.model.has_expert_layout:
            warnings.append(
                Problem(
                    str(path),
                    f"workloads[{i}].model",
                    "mixture-of-experts model without experts / experts_per_token / expert_ffn_hidden_size: sized without expert parallelism (all experts sharded like dense weights)",
                    line=line_of(lines, ("workloads", i, "model")),
                    warning=True,
                )
            )
        typed = data["workloads"][i].get("allowed_gpus") or []  # as written: the validator already resolved them
        for j, name in enumerate(typed):
            note = gpu_table().alias_note(name) if isinstance(name, str) else None
            if note:
                warnings.append(
                    Problem(
                        str(path),
                        f"workloads[{i}].allowed_gpus[{j}]",
                        note,
                        line=line_of(lines, ("workloads", i, "allowed_gpus", j)),
                        warning=True,
                    )
                )
        if w.tokens_b > 100_000:
            warnings.append(
                Problem(
                    str(path),
                    f"workloads[{i}].tokens_b",
                    f"{w.tokens_b:g} billion tokens is implausibly large; is the unit billions?",
                    line=line_of(lines, ("workloads", i, "tokens_b")),
                    warning=True,
                )
            )
    return project, warnings
