"""The workbook's tables as CSV files, for tools that do not read Excel.

``write_csv(result, folder)`` writes, all together or none (``CSV_FILES`` lists them):

    summary.csv      key figures and the recommendation
    strategies.csv   hybrid / buy only / rent only / cloud only with their totals and differences
    plan.csv         per workload: offer, mode, shape, strategy, dates, slack, GPU-hours, cost
    capacity.csv     nodes bought and rental contracts
    costs.csv        every line item: quantity, unit price, rate and the cost model's amount
    cash_flow.csv    one row per project month: each cost category, total, cumulative, discount factor
    pnl.csv          one row per project year: depreciation, operating costs, interest, gain on disposal, P&L cost
    options.csv      every feasible shape (stand-alone cost, difference to the chosen) and every rejection
    runner_ups.csv   every runner-up: the plan re-solved with the job held to that offer, its cost difference to the
                     chosen plan in total and per cost category, why it lost (price, lead time, term, budget, fit, …)
    set_aside.csv    the jobs a partial plan set aside, each with its cause and reasons (header only when none)
    assumptions.csv  the Assumptions sheet, one row per entry

The tables are built by the same functions as the Excel workbook (``reports.tables``). Numbers are
written unrounded; dates as ISO 8601. Against CSV injection (OWASP): every text field is quoted,
control characters in text (CR, LF, TAB, ESC, C1) are written as visible escapes (``\x0d``), and
text that a spreadsheet would run as a formula — it begins with =, +, -, @, also after leading
spaces or control characters — is prefixed with an apostrophe. All files are written as one
transaction (``fileio.outputs.Outputs``): every table appears, or none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procure.solver.result import Result

import csv
import datetime as dt
import io
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from procure.common.text import printable
from procure.fileio.outputs import Outputs
from procure.solver.costs import CATEGORIES

from . import assumption_rows, lines, tables as shared
from .headline import recommendation, set_aside_headline, set_aside_rows, spot_risk, stale_text
from .i18n import EN, Lang, Ns

#: what a spreadsheet skips before it looks for a formula's "=": blanks and control characters
_LEADING_BLANK = re.compile(r"^[\s\x00-\x1f\x7f-\x9f]+")


def _cell(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    if isinstance(v, (int, float)):
        return v  # unquoted, written as repr: unrounded
    raw = str(v)
    text = printable(raw)
    if _LEADING_BLANK.sub("", raw).startswith(shared.FORMULA_PREFIXES) or raw.startswith(shared.FORMULA_PREFIXES):
        return "'" + text
    return text


#: the cost categories as cash_flow.csv names its columns (``solver.costs.CATEGORIES``), marked for the catalogue
_CATEGORY_IDS = Ns(
    "capex",
    "network",
    "residual_value",
    "maintenance",
    "colocation",
    "energy",
    "rent",
    "setup",
    "cloud",
    "fixed",
    "storage",
    "egress",
    "staff",
    "carbon",
    "interest",
)

#: every file ``write_csv`` may write (cash_flow.csv only with a plan)
CSV_FILES = (
    "summary.csv",
    "strategies.csv",
    "plan.csv",
    "capacity.csv",
    "costs.csv",
    "cash_flow.csv",
    "pnl.csv",
    "options.csv",
    "runner_ups.csv",
    "set_aside.csv",
    "assumptions.csv",
)
#: the columns of runner_ups.csv and of ``procure explain --csv`` (``tables.explanation_row``)
EXPLAIN_COLUMNS = list(
    Ns(
        "workload",
        "offer",
        "mode",
        "chosen_offer",
        "status",
        "chosen_cost",
        "held_cost",
        "vs_chosen",
        "why",
        "reason",
        # one per cost category, in solver.costs.CATEGORIES' order: they add up to vs_chosen
        "diff_capex",
        "diff_network",
        "diff_residual_value",
        "diff_maintenance",
        "diff_colocation",
        "diff_energy",
        "diff_rent",
        "diff_setup",
        "diff_cloud",
        "diff_fixed",
        "diff_storage",
        "diff_egress",
        "diff_staff",
        "diff_carbon",
        "diff_interest",
        "break_even",
        "break_even_field",
        "break_even_current",
        "break_even_currency",
        "break_even_text",
    )
)


def _csv_bytes(columns: list[str], rows: Iterable[Iterable[Any]]) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    w.writerow(columns)
    for r in rows:
        w.writerow([_cell(v) for v in r])
    return buf.getvalue().encode("utf-8")


def _dict_table(rows: list[dict], columns: list[str], header: list[str] | None = None) -> bytes:
    return _csv_bytes(header or columns, ([r.get(c) for c in columns] for r in rows))


def tables(result: Result, inputs: Iterable = (), now: dt.datetime | None = None, tr: Lang = EN) -> dict[str, bytes]:
    """File name → CSV bytes; the header rows in the reader's language (``tr``)."""
    p, plan = result.project, result.plan
    now = now or dt.datetime.now()
    out: dict[str, bytes] = {}
    summary: list[tuple[str, object, str]] = [
        ("recommendation", recommendation(result, tr), ""),
        ("status", result.status, ""),
        ("objective", result.objective, tr("minimized")),
    ]
    if result.set_aside:
        summary.insert(0, ("headline", set_aside_headline(result, tr), ""))
    risk = spot_risk(result, tr)
    if risk is not None:
        summary.append(("spot_risk", risk.text, ""))
        summary.append(("spot_fallback_cost", risk.fallback_cost, p.currency))
    if stale_text(result):
        summary.append(("stale_prices", stale_text(result, tr), ""))
    if plan is not None:
        summary.append(("total_cost", plan.total_cost, p.currency))
        if p.discount_rate > 0:
            summary.append(("npv_cost", plan.npv_cost, p.currency))
        for c in CATEGORIES:
            summary.append((c, plan.breakdown.get(c, 0.0), p.currency))
    _, be_text = shared.break_even(result, tr)
    if be_text:
        summary.append(("break_even", be_text, ""))
    out["summary.csv"] = _csv_bytes(tr.each("figure", "value", "unit"), summary)
    cols = [
        "name",
        "strategy",
        "status",
        "objective",
        "cost",
        "total_cost",
        "npv_cost",
        "vs_recommended",
        "recommended_saves_pct",
        "bound",
        "gap",
        "modes",
        "note",
    ]
    out["strategies.csv"] = _dict_table(
        shared.strategy_rows(result, tr),
        cols,
        tr.each(
            "name",
            "strategy",
            "status",
            "objective",
            "cost",
            "total_cost",
            "npv_cost",
            "vs_recommended",
            "recommended_saves_pct",
            "bound",
            "gap",
            "modes",
            "note",
        ),
    )
    cols = [
        "workload",
        "offer",
        "vendor",
        "mode",
        "gpu",
        "gpus",
        "nodes",
        "strategy",
        "start",
        "end",
        "deadline",
        "start_day",
        "end_day",
        "deadline_day",
        "slack_days",
        "wall_hours",
        "gpu_hours",
        "cost",
    ]
    out["plan.csv"] = _dict_table(
        shared.plan_rows(result),
        cols,
        tr.each(
            "workload",
            "offer",
            "vendor",
            "mode",
            "gpu",
            "gpus",
            "nodes",
            "strategy",
            "start",
            "end",
            "deadline",
            "start_day",
            "end_day",
            "deadline_day",
            "slack_days",
            "wall_hours",
            "gpu_hours",
            "cost",
        ),
    )
    cols = ["what", "offer", "vendor", "nodes", "from", "from_day", "to_day", "months", "cost"]
    out["capacity.csv"] = _dict_table(
        shared.capacity_rows(result),
        cols,
        tr.each("what", "offer", "vendor", "nodes", "from", "from_day", "to_day", "months", "cost"),
    )
    items = lines.line_items(result, tr)
    out["costs.csv"] = _csv_bytes(
        tr.each(
            "category",
            "line_item",
            "offer",
            "nodes",
            "quantity",
            "quantity_unit",
            "unit_price",
            "price_unit",
            "rate",
            "rate_unit",
            "amount",
            "how",
        ),
        (
            [
                i.category,
                i.item,
                i.ref,
                i.nodes,
                i.quantity,
                i.quantity_unit,
                i.unit_price,
                i.price_unit,
                i.rate,
                i.rate_unit,
                i.amount,
                i.how,
            ]
            for i in items
        ),
    )
    if plan is not None:
        n = p.horizon_months
        df = plan.ledger.discount_factors
        totals = plan.ledger.by_month()
        cum = plan.ledger.cumulative()
        rows = []
        for m in range(n):
            rows.append(
                [m + 1, shared.month_start(p, m)]
                + [plan.flows.get(c, {}).get(m, 0.0) for c in CATEGORIES]
                + [totals[m], cum[m], df[m]]
            )
        out["cash_flow.csv"] = _csv_bytes(
            tr.each("month", "month_start") + tr.each(*CATEGORIES) + tr.each("total", "cumulative", "discount_factor"),
            rows,
        )
        out["pnl.csv"] = _csv_bytes(
            tr.each("year", "depreciation", "operating", "interest", "disposal_gain", "pnl_cost"),
            shared.pnl_rows(result),
        )
    opt_rows = [
        [
            "feasible",
            r["workload"],
            r["offer"],
            r["vendor"],
            r["mode"],
            r["gpu"],
            r["nodes"],
            r["gpus"],
            r["strategy"],
            r["days"],
            r["hours"],
            r["gpu_hours"],
            r["efficiency"],
            r["standalone_cost"],
            r["vs_chosen"],
            r["chosen"],
            "",
        ]
        for r in shared.option_rows(result)
    ]
    opt_rows += [
        [
            "rejected",
            r["workload"],
            r["offer"],
            r["vendor"],
            r["mode"],
            r["gpu"],
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            False,
            r["reason"],
        ]
        for r in shared.rejection_rows(result)
    ]
    out["options.csv"] = _csv_bytes(
        tr.each(
            "status",
            "workload",
            "offer",
            "vendor",
            "mode",
            "gpu",
            "nodes",
            "gpus",
            "strategy",
            "days",
            "compute_hours",
            "gpu_hours",
            "efficiency",
            "standalone_cost",
            "vs_chosen",
            "chosen",
            "reason",
        ),
        opt_rows,
    )
    out["runner_ups.csv"] = explain_csv(shared.runner_up_rows(result, tr), tr)
    aside = ([r["workload"], r["cause"], r["summary"], " | ".join(r["reasons"])] for r in set_aside_rows(result, tr))
    out["set_aside.csv"] = _csv_bytes(tr.each("workload", "cause", "summary", "reasons"), aside)
    arows = []
    for title, cols, rows in assumption_rows.assumption_sections(result, inputs, now, tr):
        for r in rows:
            detail = "; ".join(f"{c}={_cell(v)}" for c, v in zip(cols[2:], r[2:], strict=False) if v not in (None, ""))
            arows.append([title, r[0], r[1] if len(r) > 1 else "", detail])
    out["assumptions.csv"] = _csv_bytes(tr.each("section", "item", "value", "detail"), arows)
    return out


def explain_csv(rows: list[dict], tr: Lang = EN) -> bytes:
    """Explanation rows (runner-ups, ``procure explain``) as CSV; header row in the reader's language."""
    return _dict_table(rows, EXPLAIN_COLUMNS, tr.each(*EXPLAIN_COLUMNS))


def write_csv(result: Result, folder, inputs: Iterable = (), tr: Lang = EN) -> list[Path]:
    """Write every table into ``folder`` (created when its parent exists), all or none; returns the
    files written."""
    out = Outputs()
    declare_csv(out, folder)
    put_csv(out, result, inputs, tr)
    return out.commit()


def declare_csv(out: Outputs, folder, what: str = "--csv") -> None:
    """Declare (and check) every CSV file in ``folder`` as an output of ``out``."""
    out.add_folder(folder, CSV_FILES, what)


def put_csv(out: Outputs, result: Result, inputs: Iterable = (), tr: Lang = EN) -> None:
    """Give the declared CSV files of ``out`` their contents."""
    data = tables(result, inputs, tr=tr)
    undeclared = set(data) - set(CSV_FILES)
    if undeclared:  # a new table must be declared, or it would never be checked before solving
        raise RuntimeError(f"CSV tables missing from CSV_FILES: {sorted(undeclared)}")
    for t in out.targets:
        if t.path.name in data and t.what == "--csv":
            out.put(t, data[t.path.name])
