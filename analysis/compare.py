"""Scenarios side by side (``procure compare a.yaml b.yaml ...``): the same question asked of two or
more workload files — typically a negotiation round: same jobs, new quotes — and what changed.

First what changed in the inputs (``input_diff``): per offer every field of the offer model whose value
differs (price, term and volume tiers, lead time, maintenance, …; the field list is the model's own),
offers added and removed; the same for the project's settings and each workload. Then the outcomes
(``compare_rows``): every file is planned on its own (all four strategies, each verified); per file the
optimal total and NPV, each strategy's total, each cost category, and per workload where it runs. The
differences are taken against the first file and, from the third file on, against the file before it too
(``steps``): round 3 against round 2 is the question in a negotiation.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from pydantic import BaseModel

from procure.solver.costs import CATEGORIES
from procure.solver.enums import STRATEGIES
from procure.solver.result import Result


@dataclass
class Row:
    section: str  # totals | strategies | costs | plan
    label: str
    values: list  # one per file: a number, a text, or None
    numeric: bool

    def differences(self) -> list[float | None]:
        """Each file's value minus the first file's (numbers only)."""
        if not self.numeric or self.values[0] is None:
            return [None] * len(self.values)
        return [None if v is None else v - self.values[0] for v in self.values]

    def steps(self) -> list[float | None]:
        """Each later file's value minus the file's before it (numbers only); one per file from the second."""
        return _steps(self.values, self.numeric)

    @property
    def changed(self) -> bool:
        first = self.values[0]
        if self.numeric:
            return any(
                (v is None) != (first is None) or (v is not None and abs(v - first) > 0.005) for v in self.values
            )
        return any(v != first for v in self.values)


def _placement(result: Result, workload: str) -> str | None:
    if result.plan is None:
        return None
    for a in result.plan.assignments:
        if a.workload == workload:
            return f"{a.nodes} × {a.offer_id} ({a.mode}), day {a.start_day:g}–{a.end_day:.1f}"
    return None


def currency_factors(projects: list) -> list[float | None]:
    """Per file, the value of one unit of its reporting currency in the first file's (``Project.rate_to``);
    None when neither file gives the rate. Every amount of the comparison is stated in the first file's
    currency, so that a difference never subtracts amounts in two currencies."""
    return [p.rate_to(projects[0]) for p in projects]


def compare_rows(results: list[Result], factors: list[float] | None = None) -> list[Row]:
    """The comparison table: one row per figure, one value per file; amounts × ``factors`` (currency_factors:
    each file's amounts in the first file's currency; default 1)."""
    k = factors or [1.0] * len(results)

    def money(values: list) -> list:
        return [None if v is None else v * f for v, f in zip(values, k, strict=True)]

    rows = [
        Row("totals", "status", [str(r.status) for r in results], False),
        Row("totals", "total cost", money([r.plan.total_cost if r.plan else None for r in results]), True),
        Row("totals", "NPV", money([r.plan.npv_cost if r.plan else None for r in results]), True),
        Row("totals", "modes", [" + ".join(sorted(r.plan.modes())) if r.plan else None for r in results], False),
    ]
    for s in STRATEGIES:
        rows.append(
            Row(
                "strategies",
                f"{s} total",
                money([r.strategies[s].total_cost if s in r.strategies else None for r in results]),
                True,
            )
        )
    for c in CATEGORIES:
        rows.append(Row("costs", c, money([r.plan.breakdown.get(c, 0.0) if r.plan else None for r in results]), True))
    names: list[str] = []
    for r in results:
        for w in r.project.workloads:
            if w.name not in names:
                names.append(w.name)
    for name in names:
        rows.append(Row("plan", name, [_placement(r, name) for r in results], False))
    return rows


# --- what changed in the inputs ------------------------------------------------------------------------


@dataclass
class InputChange:
    """One input that differs between the files: ``values`` one per file, None where it is not given
    (a field left empty, or an offer or workload the file does not have)."""

    section: str  # project | workload | offer
    subject: str  # "" for the project; a workload's name; an offer's id
    field: str  # "" for a whole offer or workload added or removed
    kind: str  # changed | added | removed
    values: list

    @property
    def numeric(self) -> bool:
        return all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in self.values)

    def differences(self) -> list[float | None]:
        """Each file's value minus the first file's, for numbers given in both."""
        first = self.values[0]
        if not self.numeric or first is None:
            return [None] * len(self.values)
        return [None if v is None else v - first for v in self.values]

    def steps(self) -> list[float | None]:
        """Each later file's value minus the file's before it, for numbers given in both."""
        return _steps(self.values, self.numeric)

    @property
    def percent(self) -> bool:
        """A fraction the inputs write as a percent (8% or 0.08): shown as one, its differences in points."""
        name = self.field.rsplit(".", 1)[-1]
        return self.numeric and ("_pct" in name or name in PERCENT_FIELDS)

    def presence(self) -> list[str]:
        """An offer or workload added or removed, per file: ``quoted`` where the file has it, ``removed``
        in the first file without it after one with it, ``added`` in the first with it after one without
        it, "" elsewhere — so a row reads in the round where the change happened."""
        out, before = [], None
        for v in self.values:
            here = v is not None
            if before is None:
                out.append("quoted" if here else "")
            elif here:
                out.append("quoted" if before else "added")
            else:
                out.append("removed" if before else "")
            before = here
        return out


#: fractions written as percents that do not say ``pct`` in their name
PERCENT_FIELDS = {"discount_rate", "annual_rate"}


def _steps(values: list, numeric: bool) -> list[float | None]:
    if not numeric:
        return [None] * (len(values) - 1)
    return [None if a is None or b is None else b - a for a, b in zip(values, values[1:], strict=False)]


def shown(value) -> object:
    """An input value as the comparison shows it: numbers, text and booleans as they are, dates as
    YYYY-MM-DD, a list of tiers (two-field models) as its CSV cell "1:3200; 6:2900", another model
    as "field=value, …"; None stays None (not given)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return str(value) if hasattr(value, "value") and isinstance(value, str) else value
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, BaseModel):
        fields = type(value).model_fields
        parts = {fields[k].alias or k: shown(v) for k, v in value if v is not None}  # owned's ``from``
        if len(parts) == 2 and len(type(value).model_fields) == 2:
            return ":".join(f"{v:g}" if isinstance(v, float) else str(v) for v in parts.values())
        return ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in parts.items())
    if isinstance(value, (list, tuple)):
        return "; ".join(str(shown(v)) for v in value) if value else None
    if isinstance(value, dict):
        return ", ".join(f"{k}: {shown(v)}" for k, v in sorted(value.items())) if value else None
    return str(value)


def _flat(model: BaseModel, skip: tuple[str, ...] = ()) -> dict[str, object]:
    """Every field of ``model`` (the model's own list), nested settings as ``parent.field``."""
    out: dict[str, object] = {}
    for name in type(model).model_fields:
        if name in skip:
            continue
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            for k, v in _flat(value).items():
                out[f"{name}.{k}"] = v
        else:
            out[name] = shown(value)
    return out


def _diff_items(section: str, items: list[dict[str, BaseModel]], skip: tuple[str, ...] = ()) -> list[InputChange]:
    """Per key (offer id, workload name): added, removed, or each field whose value differs."""
    out: list[InputChange] = []
    keys = list(dict.fromkeys(k for per_file in items for k in per_file))
    first = items[0]
    for key in keys:
        present = [key in per_file for per_file in items]
        if not all(present):
            kind = "added" if key not in first else "removed"
            out.append(InputChange(section, key, "", kind, ["yes" if p else None for p in present]))
        flats = [_flat(per_file[key], skip) if key in per_file else {} for per_file in items]
        if sum(present) < 2:
            continue
        fields = list(dict.fromkeys(f for fl in flats for f in fl))
        for f in fields:
            values = [fl.get(f) if p else None for fl, p in zip(flats, present, strict=True)]
            given = [v for v, p in zip(values, present, strict=True) if p]
            if any(v != given[0] for v in given):
                out.append(InputChange(section, key, f, "changed", values))
    return out


def input_diff(projects: list, catalogs: list[list]) -> list[InputChange]:
    """What changed between the files' inputs, against the first: the project's settings (its
    workloads and its own list of catalog files apart), each workload's fields, and each offer's
    fields (offers matched by id; those only in later files are added, those missing removed)."""
    out = _diff_items("project", [{"": p} for p in projects], skip=("workloads",))
    out += _diff_items("workload", [{w.name: w for w in p.workloads} for p in projects])
    out += _diff_items("offer", [{o.id: o for o in offers} for offers in catalogs])
    return out
