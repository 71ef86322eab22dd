"""The use cases behind the command line: load inputs, size, solve, write outputs.

Each function takes plain values and returns results or raises a ``ProcureError`` (whose
``exit_code`` the command line uses); none of them prints. ``procure.cli`` keeps the options, the
rendering and the exit codes.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from procure.common.errors import ExitCode, InputError, Problem
from procure.fileio.outputs import Outputs, Target
from procure.models.analysis import MAX_SCENARIOS
from procure.solver.enums import Objective

if TYPE_CHECKING:  # heavy imports stay out of `procure --help`
    from procure.models.project import Project
    from procure.offers.catalog import Catalog
    from procure.solver.enums import SolveStatus
    from procure.solver.result import Result
    from procure.solver.sizing import WorkloadSizing

log = logging.getLogger("procure")


@dataclass
class Inputs:
    """A validated workload file and the offers it is planned against."""

    project: Project
    catalog: Catalog
    workload_path: Path
    warnings: list[Problem] = field(default_factory=list)

    @property
    def files(self) -> list[Path]:
        """Every input file, for the provenance (SHA-256) table of the reports."""
        return [self.workload_path, *self.catalog.files]


def load_offers(
    offer_paths: list[Path] | None, project: Project | None = None, project_path: Path | None = None
) -> Catalog:
    """The catalog: ``--offers`` if given, else the workload's ``offers`` (relative to it), else the bundled one."""
    from procure.offers.catalog import load_catalog

    paths = list(offer_paths) if offer_paths else None
    if paths is None and project is not None and project.offers:
        base = project_path.parent if project_path else Path(".")
        paths = [base / p for p in project.offers]
    catalog = load_catalog(paths, project)
    log.info("loaded %d offers from %s", len(catalog.offers), ", ".join(str(f) for f in catalog.files))
    return catalog


def holding_warnings(project, offers, source: str) -> list[Problem]:
    """The holdings' warnings (a quota that caps nothing, an implausible residual value) as Problems of ``source``."""
    from procure.solver import holdings

    return [
        Problem(source, where, msg, warning=True)
        for where, msg in holdings.holding_warnings(project, {o.id: o for o in offers})
    ]


def check_objective(project, objective: Objective, where: str) -> None:
    """The after-tax objective needs the project's tax section (InputError, exit 1, otherwise)."""
    if Objective(objective) is Objective.AFTER_TAX_NPV and project.tax is None:
        raise InputError(
            [
                Problem(
                    where,
                    "tax",
                    "--objective after_tax_npv needs a tax section: tax: {income_tax_rate: 25%, depreciation: "
                    "cn-straight-line} (docs/finance.md)",
                )
            ]
        )


def load_inputs(workload_path: Path, offer_paths: list[Path] | None, *, objective: Objective = Objective.TCO) -> Inputs:
    """Load and validate the workload and its offers; collect every warning for the caller to print."""
    from procure.models.project import load_project
    from procure.offers.catalog import check_currencies, horizon_warnings

    project, warnings = load_project(workload_path)
    log.info("loaded %s: %d workload(s)", workload_path, len(project.workloads))
    catalog = load_offers(offer_paths, project, workload_path)
    check_currencies(catalog, project, str(workload_path))
    from procure.solver.planner import check_holdings

    check_holdings(project, catalog.offers, str(workload_path))
    warnings = [*warnings, *catalog.warnings, *horizon_warnings(catalog, project.horizon_months)]
    warnings += holding_warnings(project, catalog.offers, str(workload_path))
    check_objective(project, objective, str(workload_path))
    if Objective(objective) is Objective.NPV and project.discount_rate == 0:
        warnings.append(
            Problem(
                str(workload_path),
                "discount_rate",
                "--objective npv with discount_rate 0 is the same as tco",
                warning=True,
            )
        )
    return Inputs(project, catalog, Path(workload_path), warnings)


@dataclass
class SolveOutputs:
    """The files one ``solve`` writes, declared and checked before any work (``fileio.outputs``)."""

    files: Outputs
    workbook: Target | None = None
    json: Target | None = None
    json_stdout: bool = False  # ``--json -``: the plan's JSON goes to stdout, the report to stderr
    csv_dir: Path | None = None
    focus: Target | None = None  # ``--focus``: the FOCUS Cost and Usage rows (reports.focus)
    focus_commitments: Target | None = None  # … and its Contract Commitment rows, beside it


def _declare_workbook(planned: SolveOutputs, out: Path | None) -> None:
    """``--out``: an .xlsx file, declared with the run's other outputs (written all or none)."""
    if out is None:
        return
    if out.suffix.lower() != ".xlsx":
        raise InputError([Problem(str(out), "--out", "the workbook must end in .xlsx")])
    planned.workbook = planned.files.add(out, "--out")


def check_solve_outputs(
    out: Path | None, json_out: str | Path | None, csv_dir: Path | None, focus: Path | None = None
) -> SolveOutputs:
    """Fail before any sizing or solving when an output cannot be written (see ``Outputs.add``)."""
    from procure.reports.csv_report import declare_csv

    planned = SolveOutputs(Outputs())
    if focus is not None:
        from procure.reports.focus import commitments_path

        if Path(focus).suffix.lower() != ".csv":
            raise InputError([Problem(str(focus), "--focus", "the FOCUS file is CSV: name it .csv")])
        planned.focus = planned.files.add(focus, "--focus")
        planned.focus_commitments = planned.files.add(commitments_path(focus), "--focus (contract commitments)")
    _declare_workbook(planned, out)
    declare_json(planned, json_out)
    if csv_dir is not None:
        declare_csv(planned.files, csv_dir)
        planned.csv_dir = Path(csv_dir)
    return planned


def check_json_output(json_out: str | None) -> Outputs:
    """The outputs of ``size``: at most a JSON file (``-``: stdout, declared as nothing)."""
    outputs = Outputs()
    if json_out is not None and json_out != "-":
        outputs.add(json_out, "--json")
    return outputs


def size(
    project: Project, catalog: Catalog | None, gpu: str | None = None, gpus: int | None = None
) -> list[WorkloadSizing]:
    """Size every workload on the catalog's offers, or on reference nodes of ``gpu`` totalling ``gpus``."""
    from procure.fileio.limits import MAX_COUNT
    from procure.models.gpu import gpu_table
    from procure.solver.sizing import reference_offer, size_project, size_workload

    if gpu is None and gpus is not None:
        raise InputError([Problem("command line", "--gpus", "--gpus counts the GPUs of --gpu: give --gpu too")])
    if gpus is not None and not 1 <= gpus <= MAX_COUNT:  # bounded before a reference node is built for it
        raise InputError(
            [Problem("command line", "--gpus", f"{gpus:,} GPUs: give a whole number from 1 to {MAX_COUNT:,}")]
        )
    if gpu is None:
        if catalog is None:
            raise TypeError("size() needs a catalog or a reference GPU")
        log.info("sizing %d workload(s) × %d offers", len(project.workloads), len(catalog.offers))
        return size_project(project, catalog.offers)
    names = []  # --gpu H100-SXM-80GB,A100-SXM-80GB sizes each on its reference nodes, side by side
    for name in (x.strip() for x in gpu.split(",")):
        gid = gpu_table().resolve(name)
        if gid is None:
            raise InputError([Problem("--gpu", "gpu", gpu_table().unknown_message(name))])
        names.append(gid)
    if gpus is None:
        return _how_many(project, names)
    refs = [reference_offer(gid, gpus) for gid in names]
    log.info("sizing %d workload(s) on %d × %s", len(project.workloads), gpus, gpu)
    out = []
    for w in project.workloads:
        only = []
        for ref, nodes in refs:
            sz = size_workload(w, [ref], project.sizing, project.team_area)
            # the reference offer also enumerates smaller node counts; keep the one asked for
            only += [c for c in sz.candidates if c.nodes == nodes] or sz.candidates
        out.append(dataclasses.replace(sz, candidates=only))
    return out


def _how_many(project: Project, gpus: list[str]) -> list[WorkloadSizing]:
    """``size --gpu`` without ``--gpus``: per workload and GPU, the fewest GPUs that fit and the fewest that
    finish by the deadline, each with its layout (``solver.sizing.howmany``)."""
    from procure.solver.sizing import size_workload
    from procure.solver.sizing.howmany import how_many

    log.info("sizing %d workload(s): how many of %s", len(project.workloads), ", ".join(gpus))
    out = []
    for w in project.workloads:
        window_h = (project.deadline_days_for(w) - w.earliest_start_days) * 24.0
        shown, answers = [], []
        for gid in gpus:
            _shapes, answer = how_many(w, gid, project.sizing, project.team_area, window_h)
            answers.append(answer)
            for c in (answer.fewest, answer.by_deadline):
                if c is not None and c not in shown:
                    shown.append(c)
        base = size_workload(w, [], project.sizing, project.team_area)
        out.append(dataclasses.replace(base, candidates=shown, gpu_counts=tuple(answers)))
    return out


def sizing_json(sizings: list[WorkloadSizing]) -> str:
    from procure.reports.sizing_report import sizing_to_json

    return json.dumps(sizing_to_json(sizings), indent=2)


def parse_time_limit(text: str | float | None) -> float | None:
    """``--time-limit``: seconds for the whole command (> 0), or 0 / ``none`` for no limit."""
    if text is None:
        return None
    value = str(text).strip().lower()
    if value in ("none", "0", "0.0", "unlimited"):
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0 or seconds != seconds or seconds == float("inf"):
        raise InputError(
            [
                Problem(
                    "command line",
                    "--time-limit",
                    f"{text!r} is not a time limit; give seconds > 0 (e.g. 120), or 0 or none for no limit",
                )
            ]
        )
    return seconds


def solve(
    inputs: Inputs,
    *,
    solver: str = "cbc",
    time_limit: float | None = None,
    gap: float = 1e-6,
    objective: Objective = Objective.TCO,
    compare: bool = True,
    n_runner_ups: int = 2,
    budget=None,
    progress=None,
    all_or_nothing: bool = False,
) -> Result:
    """Size and plan; the hybrid plan and (with ``compare``) the single-mode strategies, each verified.
    ``budget`` (a running ``procure.common.runtime.Budget``) or ``time_limit`` bounds it in wall-clock seconds.
    A job that cannot run is set aside and the rest planned, unless ``all_or_nothing``."""
    from procure.common.runtime import scratch_dir
    from procure.solver.planner import plan_project

    log.info("planning with %s (objective %s, compare %s)", solver, objective, compare)
    # the solver's model and solution files live in a private folder removed on every exit path; inside
    # the command line's guarded run the signals are its handler's (procure.common.runtime): it also stops the
    # solver's process group
    with scratch_dir():
        result = plan_project(
            inputs.project,
            inputs.catalog.offers,
            solver=solver,
            time_limit=time_limit,
            gap=gap,
            objective=objective,
            compare=compare,
            n_runner_ups=n_runner_ups,
            budget=budget,
            progress=progress,
            all_or_nothing=all_or_nothing,
        )
    return with_risk(result)


def with_risk(result: Result) -> Result:
    """The result with its plan's range (``Result.risk``: TCO at the band's P50 and P90 hours, the probability
    it runs as decided), worked out here once so that every report only reads it."""
    from procure.analysis.plan_risk import plan_risk

    if result.risk is None and result.plan is not None:
        result.risk = plan_risk(result)
    return result


def result_json(result: Result, inputs=(), frontier=None) -> str:
    """The plan's JSON; with ``frontier`` (``solve --frontier``) its points under ``frontier``."""
    from procure.reports.json_report import result_to_json

    data = result_to_json(result, inputs)
    if frontier is not None:
        from procure.reports.frontier_report import frontier_to_json

        data["frontier"] = frontier_to_json(frontier)
    return json.dumps(data, indent=2)


def write_outputs(
    result: Result, inputs: Inputs, planned: SolveOutputs, analysis=None, tr=None, frontier=None
) -> list[str]:
    """Write the declared outputs as one transaction (all or none); returns a line per output
    written. The workbook and CSV need a plan; ``--json -`` is left to the caller (stdout). With
    ``analysis`` (``solve --analyze``) the workbook also holds the analysis sheets, with ``frontier``
    (``solve --frontier``) the Frontier sheet, and the JSON the frontier's points. ``tr``: the
    reader's language (``reports.i18n.Lang``) of the workbook and the CSV header rows; the JSON is
    always English (its keys are the API)."""
    from procure.reports.i18n import EN

    tr = tr or EN
    files = planned.files
    if planned.json is not None:
        files.put(planned.json, result_json(result, inputs.files, frontier).encode("utf-8"))
    if result.plan is not None and planned.workbook is not None:
        from procure.reports.xlsx.workbook import approval_bytes

        files.put(planned.workbook, approval_bytes(result, inputs.files, tr, analysis=analysis, frontier=frontier))
    if result.plan is not None and planned.csv_dir is not None:
        from procure.reports.csv_report import put_csv

        put_csv(files, result, inputs.files, tr)
    if result.plan is not None and planned.focus is not None and planned.focus_commitments is not None:
        from procure.reports.focus import focus_files

        usage, commitments = focus_files(result)
        files.put(planned.focus, usage)
        files.put(planned.focus_commitments, commitments)
    files.commit()
    written: list[str] = []
    if planned.json is not None:
        written.append(tr("wrote {path}", path=planned.json.path))
    if result.plan is not None and planned.workbook is not None:
        written.append(tr("wrote {path}", path=planned.workbook.path))
    if result.plan is not None and planned.csv_dir is not None:
        written.append(tr("wrote CSV tables to {path}", path=planned.csv_dir))
    if result.plan is not None and planned.focus is not None and planned.focus_commitments is not None:
        written.append(tr("wrote {path}", path=planned.focus.path))
        written.append(tr("wrote {path}", path=planned.focus_commitments.path))
    requested = [str(t.path) for t in (planned.workbook, planned.focus) if t is not None] + (
        [str(planned.csv_dir)] if planned.csv_dir else []
    )
    if result.plan is None and requested:
        # nothing to approve: say so rather than skip the requested files silently (the reasons are printed above)
        written.append(
            tr(
                "no workbook: no plan ({status}); {files} not written; the reasons are above and in --json",
                status=result.status,
                files=tr(" and ").join(requested),
            )
        )
    return written


def language(code: str | None, amounts_in: str | None, project: Project | None = None):
    """The reader's language (``reports.i18n.Lang``): ``--lang`` / ``--amounts-in`` if given, else the
    workload's ``language`` / ``amounts_in``, else English in units. A value procure cannot write is
    bad input (exit 1)."""
    from procure.reports.i18n import AMOUNTS, LANGUAGES, lang_for, normalize

    problems = []
    if code is not None and normalize(code) is None:
        problems.append(
            Problem(
                "command line",
                "--lang",
                f"{code!r} is not a language procure writes; choose one of {', '.join(LANGUAGES)}",
            )
        )
    if amounts_in is not None and amounts_in not in AMOUNTS:
        problems.append(
            Problem(
                "command line",
                "--amounts-in",
                f"{amounts_in!r} is not a way to show amounts; choose unit or wan (万, 10,000)",
            )
        )
    if problems:
        raise InputError(problems)
    return lang_for(normalize(code) if code is not None else None, project, amounts_in)


def exit_code_of(result: Result) -> ExitCode:
    """``exit_code_for`` the plan's status, and ``PARTIAL`` (5) for a plan with a job set aside."""
    code = exit_code_for(result.status)
    return ExitCode.PARTIAL if code == ExitCode.OK and result.set_aside else code


def exit_code_for(status: SolveStatus) -> ExitCode:
    """A plan (optimal, or feasible at the limit) is success; infeasible and no-solution have their codes."""
    from procure.solver.enums import SolveStatus

    if SolveStatus(status).has_plan:
        return ExitCode.OK
    if status == SolveStatus.INFEASIBLE:
        return ExitCode.INFEASIBLE
    return ExitCode.NO_SOLUTION


# --- analysis --------------------------------------------------------------------------------------

ANALYSIS_CSV = ("scenarios.csv", "break_even.csv", "sensitivity.csv")


def declare_json(planned: SolveOutputs, json_out: str | Path | None) -> None:
    """``--json FILE``, declared with the run's other outputs, or ``--json -``: the JSON to stdout (the report
    then goes to stderr), as every command that writes JSON reads it."""
    if json_out is None:
        return
    if str(json_out) == "-":
        planned.json_stdout = True
    else:
        planned.json = planned.files.add(json_out, "--json")


def check_analyze_outputs(out: Path | None, json_out: str | Path | None, csv_dir: Path | None) -> SolveOutputs:
    """Fail before any solving when an analysis output cannot be written; the files are written
    together by ``write_analysis_outputs`` (``--json -``: stdout)."""
    planned = SolveOutputs(Outputs())
    _declare_workbook(planned, out)
    declare_json(planned, json_out)
    if csv_dir is not None:
        planned.files.add_folder(csv_dir, ANALYSIS_CSV, "--csv")
        planned.csv_dir = Path(csv_dir)
    return planned


def analysis_deadline(budget, inputs: Inputs) -> float | None:
    """The wall-clock time (``time.time()``) by which ``solve --analyze`` must finish its analysis: what the
    running ``budget`` leaves, less the outputs' reserve; None for an unlimited budget."""
    import time

    from procure.solver.planner import output_reserve

    left = budget.remaining()
    if left is None:
        return None
    return time.time() + max(0.0, left - output_reserve(budget, len(inputs.project.workloads)))


def capped_workers(workers: int | None) -> tuple[int | None, str | None]:
    """``--workers`` at most the machine's cores (each worker is a process with its own solver; more only
    take memory): the number to use, and a warning when it was capped."""
    from procure.analysis.engine import default_workers

    cores = default_workers()
    if workers is None or workers <= cores:
        return workers, None
    return cores, f"--workers {workers:,} is more than this machine's {cores} cores: using {cores}"


def analyze(
    inputs: Inputs,
    *,
    break_even: bool = True,
    sensitivity: bool = True,
    monte_carlo: int | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    solver: str = "cbc",
    time_limit: float | None = None,
    gap: float = 1e-6,
    objective: Objective = Objective.TCO,
    progress=None,
    base: Result | None = None,
    deadline: float | None = None,
    monte_carlo_mode: str = "policy",
    bounds: int | None = None,
):
    """Break-even prices, the tornado and the Monte Carlo study on top of today's plan (procure.analysis);
    ``deadline`` (``time.time()``): every solve ends by then, and an analysis not done by then is skipped."""
    from procure.analysis import analyze as run

    if monte_carlo and monte_carlo > MAX_SCENARIOS:
        raise InputError(
            [
                Problem(
                    "command line",
                    "--monte-carlo",
                    f"{monte_carlo:,} scenarios is more than the {MAX_SCENARIOS:,} an analysis draws at most "
                    "(the limit of analysis.scenarios too)",
                )
            ]
        )
    if scheduler:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise InputError(
                [
                    Problem(
                        "command line",
                        "--scheduler",
                        "sending scenarios to a Dask cluster needs the dask extra: pip install 'procure[dask]'",
                    )
                ]
            ) from None
    from procure.analysis.engine import SCHEDULER_TIMEOUT, NotAScheduler, probe_scheduler
    from procure.analysis.scenario import ScenarioOutOfRange

    if scheduler:  # before today's plan is solved: a wrong address is bad input, found in seconds
        try:
            probe_scheduler(scheduler, min(SCHEDULER_TIMEOUT, time_limit or SCHEDULER_TIMEOUT))
        except NotAScheduler as exc:
            raise InputError(
                [Problem("command line", "--scheduler", f"{scheduler} is not a reachable Dask scheduler: {exc}")]
            ) from None
    log.info(
        "analysing: break-even %s, sensitivity %s, Monte Carlo %s, workers %s, scheduler %s",
        break_even,
        sensitivity,
        monte_carlo,
        workers,
        scheduler,
    )
    try:
        return run(
            inputs.project,
            inputs.catalog.offers,
            break_even=break_even,
            sensitivity=sensitivity,
            monte_carlo=monte_carlo,
            workers=workers,
            scheduler=scheduler,
            solver=solver,
            time_limit=time_limit,
            gap=gap,
            objective=objective,
            progress=progress,
            base=base,
            deadline=deadline,
            monte_carlo_mode=monte_carlo_mode,
            bounds=bounds,
        )
    except ScenarioOutOfRange as exc:  # the analysis' ranges move a figure beyond a float: bad input, named
        raise InputError([Problem(str(inputs.workload_path), "analysis", str(exc))]) from None
    except (OSError, TimeoutError, NotAScheduler) as exc:
        if scheduler:
            raise InputError(
                [Problem("command line", "--scheduler", f"cannot reach the Dask scheduler at {scheduler}: {exc}")]
            ) from None
        raise


def analysis_json(analysis) -> str:
    from procure.reports.analysis_json import analysis_to_json

    return json.dumps(analysis_to_json(analysis), indent=2)


def write_analysis_outputs(analysis, planned: SolveOutputs, tr=None) -> list[str]:
    """The analysis workbook, JSON and CSV tables (the CSV files are the analysis' DataFrames), as one
    transaction: all of them or none. ``tr``: the reader's language of the workbook and the CSV header rows."""
    from procure.reports.i18n import EN

    tr = tr or EN
    files = planned.files
    if planned.json is not None:
        files.put(planned.json, analysis_json(analysis).encode("utf-8"))
    has_plan = analysis.base.plan is not None
    if has_plan and planned.workbook is not None:
        from procure.reports.xlsx.analysis import analysis_workbook_bytes

        files.put(planned.workbook, analysis_workbook_bytes(analysis, tr))
    if has_plan and planned.csv_dir is not None:
        frames = {
            "scenarios.csv": analysis.scenarios_frame(),
            "break_even.csv": analysis.break_even_frame(),
            "sensitivity.csv": analysis.sensitivity_frame(),
        }
        for t in files.targets:
            if t.what == "--csv" and t.path.name in frames:
                frame = frames[t.path.name]
                if not tr.en:  # the header row in the reader's language; the values as they are
                    frame = frame.rename(columns={c: tr(c) for c in frame.columns})
                files.put(t, frame.to_csv(index=False).encode("utf-8"))
    files.commit()
    written = [tr("wrote {path}", path=planned.json.path)] if planned.json is not None else []
    if has_plan and planned.workbook is not None:
        written.append(tr("wrote {path}", path=planned.workbook.path))
    if has_plan and planned.csv_dir is not None:
        written.append(tr("wrote CSV tables to {path}", path=planned.csv_dir))
    return written


# --- explain ---------------------------------------------------------------------------------------
