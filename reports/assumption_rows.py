"""The Assumptions sheet's rows: the inputs, the settings, the sizing behind the chosen shapes, the prices
and their provenance, the cost model's constants, the solver and the run, as format-neutral sections
(title, columns, rows) that the workbook, the CSV files and the JSON share."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from procure.models.units import DAYS_PER_MONTH, HOURS_PER_DAY
from procure.solver import costs
from procure.solver.enums import STRATEGIES
from procure.solver.sizing.band import hours_band

from .headline import STRATEGY_LABEL, mode_label, status_label
from .i18n import EN, Lang
from .tables import _mfu_source, _strategy_label

if TYPE_CHECKING:
    from procure.solver.result import Result


def sha256_of(path) -> str:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    return h.hexdigest()


def _fmt_value(v: Any) -> Any:
    if isinstance(v, (tuple, list)):
        return ", ".join(str(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{k}: {x}" for k, x in v.items())
    return v


def used_offers(result: Result) -> list:
    """Offers in any strategy's plan, the recommended plan's first."""
    ids: list[str] = []
    plans = [result.plan] + [s.plan for s in result.strategies.values()]
    for plan in plans:
        if plan is None:
            continue
        for oid in (
            [a.offer_id for a in plan.assignments]
            + [x.offer_id for x in plan.purchases]
            + [r.offer_id for r in plan.rentals]
        ):
            if oid not in ids:
                ids.append(oid)
    return [result.offers[i] for i in ids]


PRICE_FIELDS = (
    "currency",
    "price_per_node",
    "volume_prices",
    "power_kw_per_node",
    "residual_value_pct",
    "maintenance_pct_per_year",
    "colocation_per_node_month",
    "financing",
    "depreciation_years",
    "import_duty_pct",
    "vat_pct",
    "price_per_node_month",
    "term_prices",
    "setup_fee_per_node",
    "min_term_months",
    "price_per_node_hour",
    "spot",
    "spot_overhead_pct",
    "commitment_months",
    "upfront_per_node",
)


def _price_text(v: Any) -> Any:
    """Tier lists and the loan as one readable cell; plain values unchanged."""
    if isinstance(v, list):
        return "; ".join(
            ":".join(f"{x:g}" if isinstance(x, (int, float)) else str(x) for x in t.model_dump().values()) for t in v
        )
    if hasattr(v, "model_dump"):
        return ", ".join(f"{k}={x:g}" if isinstance(x, (int, float)) else f"{k}={x}" for k, x in v.model_dump().items())
    return v


Section = tuple[str, list[str], list[list[Any]]]


def assumption_sections(result: Result, inputs: Iterable, now: dt.datetime, tr: Lang = EN) -> list[Section]:
    """(section title, column headers, rows) — everything the figures rest on."""
    p = result.project
    offers = used_offers(result)
    return [
        _project_section(result, tr),
        _workloads_section(result, tr),
        _models_section(result, tr),
        _sizing_section(result, tr),
        *([_chosen_shapes_section(result, tr)] if result.plan else []),
        *_settings_sections(p, tr),
        _gpu_section(offers, tr),
        _prices_section(offers, tr),
        _cost_model_section(tr),
        _solver_section(result, tr),
        _run_section(inputs, now, tr),
    ]


def _project_section(result: Result, tr: Lang) -> Section:
    """The project's settings, and the reader's where they apply."""
    p = result.project
    none = tr("none")
    cap_unit = p.currency
    proj: list[list[Any]]
    proj = [
        [tr("project"), p.name, ""],
        [tr("currency"), p.currency, ""],
        [tr("start date (day 0)"), p.start_date, ""],
        [tr("horizon"), p.horizon_months, tr("months")],
        [tr("planning period"), p.period_days, tr("days")],
        [
            tr("discount rate"),
            p.discount_rate,
            tr("per year (NPV: monthly rate (1+r)^(1/12)−1, end-of-month cash flows)"),
        ],
        [
            tr("budget_tco (cap on total cost of ownership)"),
            p.budget_tco if p.budget_tco is not None else none,
            cap_unit if p.budget_tco is not None else "",
        ],
        [
            tr("budget_cash (cap on peak cumulative cash out)"),
            p.budget_cash if p.budget_cash is not None else none,
            cap_unit if p.budget_cash is not None else "",
        ],
        [
            tr("budget_capex (cap on purchases)"),
            p.budget_capex if p.budget_capex is not None else none,
            cap_unit if p.budget_capex is not None else "",
        ],
        [tr("stale quote limit"), p.stale_quote_days, tr("days before the start date")],
        [tr("electricity price"), p.electricity_price_per_kwh, f"{p.currency}/kWh"],
        [tr("PUE"), p.pue, ""],
        [tr("team region"), p.team_region or tr("not set"), ""],
        [tr("allowed modes"), ", ".join(mode_label(m, tr) for m in p.allowed_modes), ""],
        *[
            [
                tr("exchange rate {code}", code=code),
                rate,
                tr(
                    "{cur} per {code}; {date}; {source}",
                    cur=p.currency,
                    code=code,
                    date=p.fx_rates_date,
                    source=p.fx_rates_source,
                ),
            ]
            for code, rate in sorted(p.fx_rates.items())
        ],
        *_path_rows(p, tr),
        [
            tr("financing (project default)"),
            _price_text(p.financing) if p.financing else tr("none: purchases paid on delivery"),
            "",
        ],
        [tr("depreciation"), p.depreciation_years, tr("years, straight line (P&L sheet)")],
        [tr("VAT recoverable"), tr("yes") if p.vat_recoverable else tr("no"), tr("no: vat_pct of purchases is a cost")],
        [
            tr("schedule buffer"),
            p.min_slack_days,
            tr("days every job finishes before its deadline at least (min_slack_days; a workload may set its own)"),
        ],
        [tr("objective"), result.objective, tr("tco: total cost of ownership; npv: discounted")],
    ]
    if not tr.en:  # the reader's settings, shown where they apply
        proj += [
            [tr("language"), tr.code, ""],
            [tr("amounts shown in"), tr.unit(p.currency), tr("number formats: every cell keeps its full value")],
        ]
    return (tr("Project"), [tr("parameter"), tr("value"), tr("unit / note")], proj)


def _path_rows(p, tr: Lang) -> list[list[Any]]:
    """The project's price paths and FX paths (models.paths; costs, "Price and FX paths"): one row each, with what
    it indexes, its values and its source."""
    rows: list[list[Any]] = []
    for path in p.price_paths:
        if path.annual_pct is not None:
            value = tr("{pct}% a year: index(m) = (1 + {pct}/100)^(m/12)", pct=f"{path.annual_pct:g}")
        else:
            value = tr(
                "index by month from the start: {values}", values=", ".join(f"{v:g}" for v in path.monthly or ())
            )
        rows.append([tr("price path {what}", what=path.label), value, path.source or tr("no source given")])
    for code, steps in sorted(p.fx_paths.items()):
        value = "; ".join(f"{s.from_.isoformat()}: {s.rate:g}" for s in steps)
        rows.append(
            [
                tr("FX path {code}", code=code),
                value,
                tr(
                    "{cur} per {code} from each date's month on; {source}",
                    cur=p.currency,
                    code=code,
                    source=p.fx_paths_source or tr("no source given"),
                ),
            ]
        )
    return rows


def _workloads_section(result: Result, tr: Lang) -> Section:
    """One row per workload, as the workload file gives it (a partial plan lists the set-aside jobs too)."""
    p = result.project
    wl_cols = tr.each(
        "name",
        "model",
        "method",
        "tokens (billions)",
        "sequence length",
        "LoRA rank",
        "earliest start day",
        "deadline day",
        "min slack (days)",
        "dataset TB",
        "checkpoint every h",
        "checkpoints kept",
        "MFU override",
        "allowed GPUs",
    )
    wl_rows = [
        [
            w.name,
            w.model.label,
            w.method,
            w.tokens_b,
            w.seq_len,
            w.lora_rank,
            w.earliest_start_days,
            w.deadline_days,
            p.slack_for(w),
            w.dataset_tb,
            w.checkpoint_every_hours,
            w.checkpoints_kept,
            w.mfu if w.mfu is not None else tr("default"),
            ", ".join(w.allowed_gpus or []) or tr("any"),
        ]
        for w in (result.programme or p).workloads
    ]
    return (tr("Workloads"), wl_cols, wl_rows)


def _models_section(result: Result, tr: Lang) -> Section:
    """The architecture of each model, once (of every job, set aside or planned)."""
    every = (result.programme or result.project).workloads
    model_rows = []
    seen = set()
    for w in every:
        m = w.model
        if m.label in seen:
            continue
        seen.add(m.label)
        model_rows.append(
            [
                m.label,
                m.params_b,
                m.active_params_b or m.params_b,
                m.layers,
                m.hidden_size,
                m.heads,
                m.kv_heads or m.heads,
                m.ffn_hidden_size,
                m.vocab_size,
                m.source or "",
            ]
        )
    return (
        tr("Models"),
        tr.each(
            "model",
            "params (B)",
            "active params (B)",
            "layers",
            "hidden",
            "heads",
            "KV heads",
            "FFN width",
            "vocab",
            "source",
        ),
        model_rows,
    )


def _sizing_section(result: Result, tr: Lang) -> Section:
    """Per workload: FLOPs, unsharded memory, shapes that fit and were rejected."""
    sz_rows = []
    for sz in result.sizings:
        mem = getattr(sz, "memory_gb", None)
        sz_rows.append(
            [
                sz.workload.name,
                getattr(sz, "total_flops", None),
                getattr(mem, "total", None) if mem is not None else None,
                sum(1 for c in sz.candidates if c.fits),
                sum(1 for c in sz.candidates if not c.fits),
            ]
        )
    return (
        tr("Sizing per workload"),
        tr.each(
            "workload", "training FLOPs", "memory on one GPU, unsharded (GB)", "shapes that fit", "shapes rejected"
        ),
        sz_rows,
    )


def _chosen_shapes_section(result: Result, tr: Lang) -> Section:
    """The shape each workload runs on in the plan: its MFU constant, the in-step MFU (published convention)
    and tokens/s per GPU it means, the goodput and execution factors, its GPU's in-step speed against the
    fastest GPU sized for the job, and the hours band."""
    from procure.models.gpu import gpu_table
    from procure.reports.sizing_report import relative_speeds
    from procure.solver.sizing import training_flops
    from procure.solver.sizing.constants import constant
    from procure.solver.sizing.goodput import goodput_of, in_step_hours

    p = result.project
    table = gpu_table()
    run_rows = []
    sized = {d.workload: d.hours for d in result.plan.decisions} if result.plan is not None else {}
    for a in result.plan.assignments if result.plan is not None else []:
        w = next(x for x in p.workloads if x.name == a.workload)
        mfu = a.mfu if a.mfu is not None else w.mfu  # the MFU the shape was sized with
        p10, p90 = hours_band(a.hours)
        wall = sized.get(a.workload)
        good = goodput_of(wall, a.gpus, w.effective_time, w.checkpoint_every_hours)
        step_mfu = tok_s = None
        if wall:  # what the hours mean per GPU while steps run (goodput and execution factor taken out)
            seconds = in_step_hours(wall, a.gpus, w.effective_time, w.checkpoint_every_hours) * 3600.0 * a.gpus
            tok_s = w.tokens_b * 1e9 / seconds
            step_mfu = training_flops(w, False) / (seconds * table[a.gpu].bf16_dense_tflops * 1e12)
        sz = next((x for x in result.sizings if x.workload.name == a.workload), None)
        speed = relative_speeds(sz).get(a.gpu) if sz is not None else None
        run_rows.append(
            [
                a.workload,
                a.offer_id,
                tr.say(a.strategy.message()) if hasattr(a.strategy, "message") else _strategy_label(a.strategy),
                mfu,
                _mfu_source(w, table[a.gpu], tr),
                step_mfu,
                tok_s,
                a.efficiency,
                good,
                constant("EXECUTION_FACTOR") if wall else None,
                speed,
                a.per_gpu_memory_gb,
                a.hours,
                p10,
                p90,
            ]
        )
    return (
        tr("Sizing of the chosen shapes"),
        tr.each(
            "workload",
            "offer",
            "strategy",
            "MFU",
            "MFU from",
            "MFU in step",
            "tokens/s per GPU in step",
            "scaling efficiency",
            "goodput",
            "execution factor",
            "speed per GPU vs the fastest sized",
            "memory per GPU (GB)",
            "wall hours",
            "hours P10",
            "hours P90",
        ),
        run_rows,
    )


def _settings_sections(p, tr: Lang) -> list[Section]:
    """The project's sizing settings and the sizing constants, each with its meaning or source."""
    settings = (
        tr("Sizing settings (project.sizing)"),
        [tr("setting"), tr("value"), tr("meaning")],
        [
            [k, _fmt_value(getattr(p.sizing, k)), tr(f.description) if f.description else ""]
            for k, f in type(p.sizing).model_fields.items()
        ],
    )
    from procure.solver.sizing.constants import constant_rows

    # the unit says what the constant is, in the reader's language; its source is a citation, quoted as written
    const_rows = [[name, _fmt_value(value), tr(unit), source] for name, value, unit, source in constant_rows()]
    constants = (
        tr("Sizing constants (solver/sizing/constants.yaml)"),
        [tr("constant"), tr("value"), tr("unit"), tr("source")],
        const_rows,
    )
    return [settings, constants]


def _gpu_section(offers, tr: Lang) -> Section:
    """The datasheet of each GPU in the offers of the plans."""
    from procure.models.gpu import gpu_table

    table = gpu_table()
    gpu_ids = list(dict.fromkeys(o.gpu for o in offers))
    gpu_rows = []
    for gid in gpu_ids:
        g = table[gid]
        gpu_rows.append(
            [
                g.id,
                g.architecture,
                g.memory_gb,
                g.capacity_gb,
                g.memory_bandwidth_gbs,
                g.bf16_dense_tflops,
                g.gpu_link_gbs,
                g.pcie_gbs,
                g.tdp_w,
                g.source,
            ]
        )
    gpu_cols = tr.each(
        "GPU",
        "architecture",
        "memory (datasheet GiB)",
        "memory GB",
        "memory GB/s",
        "BF16 dense TFLOP/s",
        "GPU link GB/s",
        "PCIe GB/s",
        "TDP W",
        "source",
    )
    return (tr("GPU specs (GPUs of the offers in the plans)"), gpu_cols, gpu_rows)


def _prices_section(offers, tr: Lang) -> Section:
    """Every price field of every offer in a plan, with its source and date."""
    price_rows = []
    for o in offers:
        for f in PRICE_FIELDS:
            v = getattr(o, f)
            if v is not None:
                price_rows.append([o.id, o.vendor, mode_label(o.mode, tr), f, _price_text(v), o.source, o.quoted_on])
        price_rows.append(
            [o.id, o.vendor, mode_label(o.mode, tr), "lead_time_days", o.lead_time_days, o.source, o.quoted_on]
        )
    return (
        tr("Prices used (offers in any strategy's plan)"),
        tr.each("offer", "vendor", "mode", "field", "value", "source", "quoted on"),
        price_rows,
    )


def _cost_model_section(tr: Lang) -> Section:
    """The constants of the cost model (solver/costs.py) and its timing rules."""
    return (
        tr("Cost model"),
        [tr("parameter"), tr("value"), tr("note")],
        [
            [tr("busy power fraction"), costs.BUSY_POWER_FRACTION, tr("average training draw / max node power")],
            [
                tr("idle power fraction"),
                costs.IDLE_POWER_FRACTION,
                tr("draw of an owned node that is not training / max power"),
            ],
            [
                tr("months"),
                tr("calendar months"),
                tr(
                    "month 1 runs from the start date to the next 1st; a price per month over part of one is "
                    "prorated by its days; the horizon ends on a 1st"
                ),
            ],
            [
                tr("hours per month of a reserved term"),
                DAYS_PER_MONTH * HOURS_PER_DAY,
                tr("730 (365 × 24 / 12): a reserved term is paid in equal monthly amounts"),
            ],
            [
                tr("purchase timing"),
                "",
                tr("ordered day 0, paid and delivered after the lead time, owned to the horizon end"),
            ],
            [tr("rental timing"), "", tr("whole project months; setup fee in the first month")],
        ],
    )


def _solver_section(result: Result, tr: Lang) -> Section:
    """Per strategy: the solver, its status, gap, time and model size."""
    solver_rows = []
    for name in STRATEGIES:
        s = result.strategies.get(name)
        if s is None:
            continue
        i = s.solve
        solver_rows.append(
            [
                tr(STRATEGY_LABEL[name]),
                i.name if i else "",
                i.version if i else "",
                status_label(i.status if i else s.status, tr),
                i.gap if i and i.gap is not None else "",
                round(i.seconds, 2) if i else "",
                getattr(i, "variables", "") if i else "",
                getattr(i, "constraints", "") if i else "",
            ]
        )
    return (
        tr("Solver"),
        tr.each("strategy", "solver", "version", "status", "gap", "seconds", "variables", "constraints"),
        solver_rows,
    )


def _run_section(inputs: Iterable, now: dt.datetime, tr: Lang) -> Section:
    """This run: the version, the time, and the SHA-256 of every input file."""
    from procure import __version__

    run = [
        [tr("procure version"), __version__, ""],
        [tr("run at"), now.replace(microsecond=0).isoformat(), tr("local time")],
    ]
    for path in inputs:
        run.append([tr("input {name}", name=Path(path).name), sha256_of(path), "SHA-256"])
    return (tr("This run"), [tr("item"), tr("value"), tr("note")], run)
