"""The Python API for notebooks: ``procure.solve`` and ``procure.size``, the same checks as the command line.

    >>> import procure
    >>> r = procure.solve("examples/programme-12-months.yaml")
    >>> r.total_cost, r.status
    >>> r.assignments_frame()      # pandas: where and when each job runs
    >>> r.costs_frame()            # every cost line: quantity × unit price = amount
    >>> r.cash_flow_frame()        # months × cost categories
    >>> r.to_excel("plan.xlsx")    # the approval workbook

A workload file (path) or a ``Project`` (or the mapping a workload file holds) goes in; offers are the
workload's ``offers``, the bundled catalog, or ``offers=[paths]``. Bad input raises ``InputError`` (its
``problems`` name file, field, line); a plan that breaks a rule raises ``VerificationError`` as on the
command line. An infeasible programme is not an exception: ``status`` says so and ``total_cost`` is None.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from procure.common.errors import InputError, Problem
from procure.solver.enums import Objective

if TYPE_CHECKING:
    import pandas as pd

    from procure.app import Inputs
    from procure.models.project import Project
    from procure.solver.result import Result as PlanResult
    from procure.solver.sizing import WorkloadSizing

PathLike = str | Path


def _inputs(source: Any, offers: PathLike | Sequence[PathLike] | None, objective: Objective) -> Inputs:
    """The validated inputs of a workload file, a Project or a workload mapping, as ``procure solve`` loads them."""
    from procure import app as use
    from procure.models.project import Project
    from procure.offers.catalog import check_currencies, horizon_warnings

    if isinstance(offers, str | Path):  # one catalog file
        offers = [offers]
    offer_paths = [Path(p) for p in offers] if offers else None
    if isinstance(source, str | Path):
        return use.load_inputs(Path(source), offer_paths, objective=objective)
    if isinstance(source, Mapping):
        from pydantic import ValidationError

        from procure.models.validation import problems_from

        try:
            source = Project.model_validate(dict(source))
        except ValidationError as exc:
            raise InputError(problems_from(exc, "<project>", (), model=Project)) from None
    if not isinstance(source, Project):
        raise InputError(
            [
                Problem(
                    "<project>",
                    "",
                    f"expected a workload file path, a Project or a mapping, got {type(source).__name__}",
                )
            ]
        )
    use.check_objective(source, objective, "<project>")
    catalog = use.load_offers(offer_paths, source, Path("."))
    check_currencies(catalog, source, "<project>")
    warnings = [*catalog.warnings, *horizon_warnings(catalog, source.horizon_months)]
    warnings += use.holding_warnings(source, catalog.offers, "<project>")
    return use.Inputs(source, catalog, Path("<project>"), warnings)


@dataclasses.dataclass(repr=False)
class Result:
    """A solved programme: the recommended plan, the strategies compared, and the inputs it was solved on."""

    result: PlanResult
    inputs: Inputs

    @property
    def status(self) -> str:
        return str(self.result.status)

    @property
    def total_cost(self) -> float | None:
        """The recommended plan's total cost of ownership (reporting currency), as ``--json`` writes it; None without a plan."""
        return self._json()["total_cost"]

    @property
    def npv_cost(self) -> float | None:
        return self._json()["npv_cost"]

    @property
    def committed_cost(self) -> float | None:
        """What the plan owes whatever it does, as ``--json`` writes it: owned servers' running costs and signed
        commitments; None without a plan."""
        return self._json().get("committed_cost")

    def __repr__(self) -> str:
        p = self.result.project
        total = self.total_cost
        money = f"{total:,.0f} {p.currency} TCO" if total is not None else "no plan"
        aside = f", {len(self.set_aside)} set aside" if self.set_aside else ""
        return (
            f"<procure.Result {p.name!r}: {self.status}, {money}, {len(p.workloads)} workload(s){aside}; "
            "to_dict(), assignments_frame(), costs_frame(), cash_flow_frame(), to_excel(path)>"
        )

    @property
    def set_aside(self) -> list[str]:
        """The jobs a partial plan left out (``procure solve`` exits 5 then); their reasons are in ``to_dict()``."""
        return [s.workload for s in self.result.set_aside]

    @property
    def currency(self) -> str:
        return self.result.project.currency

    @property
    def warnings(self) -> list[str]:
        return [str(w) for w in self.inputs.warnings]

    def to_dict(self) -> dict:
        """The plan as the JSON contract (README, "Outputs")."""
        return self._json()

    def _json(self) -> dict:
        from procure.reports.json_report import result_to_json

        cached = getattr(self, "_doc", None)
        if cached is None:
            cached = result_to_json(self.result, self.inputs.files)
            object.__setattr__(self, "_doc", cached)
        return cached

    def assignments_frame(self) -> pd.DataFrame:
        """One row per job: offer, mode, GPU, nodes, start and end day, hours, GPU-hours, cost, …"""
        import pandas as pd

        return pd.DataFrame(self._json()["assignments"])

    def costs_frame(self) -> pd.DataFrame:
        """Every cost line of the plan (the workbook's Costs sheet): category, item, offer, quantity, unit price, amount."""
        import pandas as pd

        from procure.reports.lines import line_items

        cols = ["category", "item", "offer", "nodes", "quantity", "quantity_unit", "unit_price", "price_unit", "amount"]
        rows = [
            [i.category, i.item, i.ref, i.nodes, i.quantity, i.quantity_unit, i.unit_price, i.price_unit, i.amount]
            for i in line_items(self.result)
        ]
        return pd.DataFrame(rows, columns=cols)

    def cash_flow_frame(self) -> pd.DataFrame:
        """Months × cost categories (the Cash flow sheet): one row per project month, its first day, a total column."""
        import pandas as pd

        from procure.reports.tables import month_start
        from procure.solver.costs import CATEGORIES

        plan = self.result.plan
        p = self.result.project
        if plan is None:
            return pd.DataFrame(columns=["month", "starts", *CATEGORIES, "total"])
        rows = []
        for m in range(p.horizon_months):
            values = [plan.flows.get(c, {}).get(m, 0.0) for c in CATEGORIES]
            rows.append([m + 1, month_start(p, m), *values, sum(values)])
        return pd.DataFrame(rows, columns=["month", "starts", *CATEGORIES, "total"])

    def to_excel(self, path: PathLike, lang: str | None = None) -> Path:
        """Write the approval workbook (the ``--out`` of ``procure solve``) to ``path``, whole or not at all."""
        from procure import app as use
        from procure.fileio.outputs import atomic_write
        from procure.reports.xlsx.workbook import workbook_bytes

        if not isinstance(path, str | Path) or not str(path):
            raise InputError([Problem("to_excel()", "path", f"{path!r}: give the workbook's path, e.g. 'plan.xlsx'")])
        if self.result.plan is None:
            raise InputError(
                [Problem(str(path), "to_excel", f"no plan ({self.status}): there is no workbook to write")]
            )
        if Path(path).suffix.lower() != ".xlsx":
            raise InputError([Problem(str(path), "to_excel", "the workbook must end in .xlsx")])
        tr = use.language(lang, None, self.result.project)
        atomic_write(path, workbook_bytes(self.result, self.inputs.files, tr), "to_excel")
        return Path(path)


def solve(
    path_or_project: PathLike | Project | Mapping[str, Any],
    *,
    offers: PathLike | Sequence[PathLike] | None = None,
    solver: str = "cbc",
    time_limit: float | None = 120.0,
    gap: float = 1e-6,
    objective: Objective = Objective.TCO,
    compare: bool = True,
    runner_ups: int = 2,
    all_or_nothing: bool = False,
) -> Result:
    """Plan a programme as ``procure solve`` does (defaults as on the command line): size every job, solve
    the hybrid plan and (``compare``) the single-mode strategies, verify each plan independently.

    Args:
        path_or_project: a workload file, a ``Project``, or the mapping a workload file holds.
        offers: catalog file(s) (YAML, CSV, XLSX); default the workload's ``offers``, else the bundled catalog.
        solver: ``"cbc"`` or ``"highs"`` (HiGHS, a dependency).
        time_limit: seconds for the whole solve, ``None`` for no limit (the command line's ``--time-limit``).
        gap: the relative optimality gap each MILP may stop at, a fraction from 0 to 1.
        objective: ``"tco"`` (total cost of ownership), ``"npv"`` (present value at ``discount_rate``) or
            ``"after_tax_npv"`` (after-tax present value; needs the project's ``tax``).
        compare: also solve buy-only, rent-only and cloud-only and compare them (``--no-compare``: False).
        runner_ups: per job, how many other offers to re-solve the plan on (0 to 10).
        all_or_nothing: no partial plan: an infeasible job makes the programme infeasible.

    Raises ``InputError`` naming the argument for a value of the wrong type or range."""
    from procure import app as use
    from procure.common.runtime import Budget

    problems = _solve_problems(offers, solver, time_limit, gap, objective, compare, runner_ups, all_or_nothing)
    if problems:
        raise InputError(problems)
    seconds = use.parse_time_limit(time_limit if time_limit is not None else "none")
    inputs = _inputs(path_or_project, offers, objective)
    result = use.solve(
        inputs,
        solver=solver,
        gap=gap,
        objective=objective,
        compare=compare,
        n_runner_ups=runner_ups,
        budget=Budget(seconds),
        all_or_nothing=all_or_nothing,
    )
    return Result(result, inputs)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and v == v


def _solve_problems(
    offers: Any,
    solver: Any,
    time_limit: Any,
    gap: Any,
    objective: Any,
    compare: Any,
    runner_ups: Any,
    all_or_nothing: Any,
) -> list[Problem]:
    """Each argument of ``solve`` of the wrong type or range, named (the boundary: no error from deep inside)."""
    out = []

    def bad(arg: str, msg: str) -> None:
        out.append(Problem("solve()", arg, msg))

    if offers is not None and not isinstance(offers, str | Path):
        if not isinstance(offers, Sequence) or not all(isinstance(p, str | Path) for p in offers):
            bad("offers", f"{offers!r}: give a catalog path or a list of paths")
    if solver not in ("cbc", "highs"):
        bad("solver", f"{solver!r}: use 'cbc' or 'highs'")
    if objective not in ("tco", "npv", "after_tax_npv"):
        bad("objective", f"{objective!r}: use 'tco', 'npv' or 'after_tax_npv'")
    if not isinstance(runner_ups, int) or isinstance(runner_ups, bool) or not 0 <= runner_ups <= 10:
        bad("runner_ups", f"{runner_ups!r}: a whole number from 0 to 10")
    if not _is_number(gap) or not 0.0 <= gap <= 1.0:
        bad("gap", f"{gap!r}: a number from 0 to 1 (a fraction, e.g. 0.01)")
    if time_limit is not None and (not _is_number(time_limit) or time_limit < 0):
        bad("time_limit", f"{time_limit!r}: seconds ≥ 0 as a number, or None for no limit")
    for arg, value in (("compare", compare), ("all_or_nothing", all_or_nothing)):
        if not isinstance(value, bool):
            bad(arg, f"{value!r}: True or False")
    return out


def size(
    path_or_project: PathLike | Project | Mapping[str, Any],
    *,
    offers: PathLike | Sequence[PathLike] | None = None,
    gpu: str | None = None,
    gpus: int | None = None,
) -> list[WorkloadSizing]:
    """Size every job as ``procure size`` does: memory, FLOPs, and the hours on every cluster shape of the
    offers (or on ``gpus`` reference GPUs of ``gpu``).

    Args:
        path_or_project: a workload file, a ``Project``, or the mapping a workload file holds.
        offers: catalog file(s); default the workload's ``offers``, else the bundled catalog.
        gpu: a GPU id or alias of the GPU table (``"H100"``), with ``gpus``: size on reference nodes of it.
        gpus: the total GPUs of ``gpu``, a whole number from 1 to 100,000.

    Raises ``InputError`` naming the argument for a value of the wrong type or range."""
    from procure import app as use
    from procure.fileio.limits import MAX_COUNT

    problems = []
    if gpu is not None and not isinstance(gpu, str):
        problems.append(Problem("size()", "gpu", f"{gpu!r}: a GPU id or alias such as 'H100'"))
    if gpus is not None and (not isinstance(gpus, int) or isinstance(gpus, bool) or not 1 <= gpus <= MAX_COUNT):
        problems.append(Problem("size()", "gpus", f"{gpus!r}: a whole number of GPUs from 1 to {MAX_COUNT:,}"))
    if not problems and (gpu is None) != (gpus is None):
        problems.append(Problem("size()", "gpus" if gpus is None else "gpu", "give both gpu and gpus, or neither"))
    if problems:
        raise InputError(problems)

    inputs = _inputs(path_or_project, offers, Objective.TCO)
    return use.size(inputs.project, None if gpu is not None else inputs.catalog, gpu, gpus)
