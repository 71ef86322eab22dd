"""Re-solving the planner under a scenario, and running many such solves in parallel.

``solve_scenario`` plans every strategy (hybrid, buy-only, rent-only, cloud-only) under one scenario
through the planner's own ``run_strategy`` — the same options, MILP, extraction and verification as
``procure solve`` — warm-started from that strategy's base plan re-costed under the scenario (when it
is still feasible there), and re-costs the decided (base hybrid) plan for the regret.

A strategy without a plan keeps its status and reason (``infeasible``, ``no_solution``); a plan that
fails verification or a solver error is kept as ``verification_failed`` / ``error`` with its message.
Nothing is dropped: every (scenario, strategy) pair is one row of the analysis' DataFrame.

``Runner.map`` sends tasks ``fn(context, item)`` to worker processes (``concurrent.futures``; the
context is sent once per process) or to a Dask cluster (``--scheduler``; the context is scattered
once to every worker) — the same functions either way — and shows a progress bar on a terminal.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from procure.common import runtime
from procure.common.errors import ExitCode, ProcureError
from procure.models.analysis import neutral
from procure.solver import costs, holdings
from procure.solver.costs import Objective
from procure.solver.enums import SolveStatus, Strategy
from procure.solver.milp import SolverFailed, SolverUnavailable
from procure.solver.plan import Plan
from procure.solver.planner import STRATEGIES, run_strategy
from procure.solver.result import Result
from procure.solver.verify import VerificationError

from . import fast
from .recost import as_decided, decided_under
from .recourse import POLICY, Recourse, hindsight_lp, realized_applied, recourse
from .scenario import EXTRA_FIELDS, Applied, Baseline, Scenario, finite

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from distributed import Client


@dataclass
class Context:
    """Everything a worker needs: today's inputs, and today's plan of every strategy."""

    inputs: Baseline
    base_plans: dict[str, Plan | None]
    modes: dict[str, tuple[str, ...]]  # strategy -> the modes it may use
    statuses: dict[str, str] = field(default_factory=dict)  # strategy -> today's solve status

    @classmethod
    def of(cls, inputs: Baseline, base: Result) -> Context:
        return cls(
            inputs,
            {k: s.plan for k, s in base.strategies.items()},
            {k: tuple(s.modes) for k, s in base.strategies.items()},
            {k: str(s.status) for k, s in base.strategies.items()},
        )

    @property
    def decided(self) -> Plan | None:
        return self.base_plans.get("hybrid")


@dataclass
class StrategyOutcome:
    strategy: str
    status: SolveStatus
    total_cost: float | None = None
    npv_cost: float | None = None
    modes: tuple[str, ...] = ()
    offers: tuple[str, ...] = ()
    detail: str = ""  # why there is no plan
    plan: Plan | None = field(default=None, repr=False)  # kept only inside a worker
    solved: bool = True  # False: today's plan kept, provably optimal (``keeps_todays_plan``)
    # the path that answered: fast.LP, REDUCED, REFERENCE or KEPT (a re-optimization); POLICY, RECOURSE_LP or
    # RECOURSE_MIP (the committed plan of the Monte Carlo's "here and now"); "" when excluded
    solved_by: str = ""
    # the committed plan (``evaluate_scenario``): whether today's plan ran as decided (no recourse), and the
    # scenario's hindsight optimum bracketed (``recourse.hindsight_lp``: LP bound, best known plan), when asked
    runs_as_decided: bool | None = None
    ws_low: float | None = None
    ws_high: float | None = None
    after_tax_npv: float | None = None  # with the project's tax (solver.costs, "Income tax")

    @property
    def ok(self) -> bool:
        return SolveStatus(self.status).has_plan and self.total_cost is not None


@dataclass
class ScenarioOutcome:
    scenario: Scenario
    strategies: dict[str, StrategyOutcome]
    decided_cost: float | None = None  # the decided plan re-costed (metric), None when infeasible as decided
    decided_detail: str = ""
    seconds: float = 0.0
    #: the tornado: the free (hybrid) strategy re-optimized at this end, beside today's plan re-costed there
    #: (``recost_scenario``), so a bar can say whether the decision changes; None elsewhere
    optimum: StrategyOutcome | None = None

    def __post_init__(self) -> None:
        """A figure that is not a finite number is no result: the analysis stops (``ScenarioOutOfRange``) rather
        than count the scenario as a failure or fold ±inf into its percentiles."""
        if self.decided_cost is not None:
            finite(self.scenario, "the decided plan's cost", self.decided_cost)
        for name, o in self.strategies.items():
            for what, v in (("total cost", o.total_cost), ("NPV", o.npv_cost)):
                if v is not None:
                    finite(self.scenario, f"the {name} plan's {what}", v)


def _outcome(name: str, res, ctx: Context) -> StrategyOutcome:
    if res.plan is None:
        why = "; ".join(f"{w}: {' / '.join(r)}" for w, r in res.reasons.items()) or res.status
        return StrategyOutcome(name, res.status, detail=why)
    p = res.plan
    return StrategyOutcome(
        name,
        res.status,
        p.total_cost,
        p.npv_cost,
        tuple(sorted(p.modes())),
        tuple(sorted({x.offer_id for x in p.assignments})),
        plan=p,
        after_tax_npv=p.after_tax_npv,
    )


def solve_strategy(ctx: Context, a: Applied, name: str, warm: Plan | None) -> StrategyOutcome:
    """One strategy under one applied scenario; errors become outcomes, never exceptions. The LP first
    (``fast.lp_first``: accepted only when integral, agreed and verified), else the reference path."""
    inp = ctx.inputs
    if inp.fast:
        try:
            got = fast.lp_first(
                a.project,
                a.offers,
                a.sizings,
                Strategy(name),
                ctx.modes[name],
                resize=a.resize,
                objective=inp.objective,
                gap=inp.gap,
                time_limit=inp.solve_time_limit(),
                warm=warm,
                solver=inp.solver,
            )
        except (SolverFailed, SolverUnavailable):
            got = None
        if got is not None:
            out = _outcome(name, got[0], ctx)
            out.solved_by = got[1]
            return out
    out = _reference(ctx, a, name, warm)
    out.solved_by = fast.REFERENCE
    return out


def _reference(ctx: Context, a: Applied, name: str, warm: Plan | None) -> StrategyOutcome:
    """One strategy on the reference path: ``planner.run_strategy``, CBC as ``procure solve`` runs it."""
    inp = ctx.inputs
    try:
        res = run_strategy(
            a.project,
            a.offers,
            a.sizings,
            Strategy(name),
            ctx.modes[name],
            resize=a.resize,
            solver=inp.solver,
            time_limit=inp.solve_time_limit(),
            gap=inp.gap,
            objective=inp.objective,
            warm_start=warm,
        )
    except VerificationError as exc:
        return StrategyOutcome(name, SolveStatus.VERIFICATION_FAILED, detail="; ".join(exc.violations))
    except (SolverFailed, SolverUnavailable) as exc:
        return StrategyOutcome(name, SolveStatus.ERROR, detail=str(exc))
    return _outcome(name, res, ctx)


#: Drivers that change the cost coefficients of a mode's offers (the others act on every mode).
MODE_DRIVERS = {
    "buy": {"price_buy", "electricity", "residual_value", "staff", "network", "storage", "fx_rate", "price_path_slope"},
    "rent": {"price_rent", "staff", "network", "storage", "fx_rate", "price_path_slope"},
    "cloud": {"price_cloud", "network", "storage", "fx_rate", "price_path_slope"},
}
#: Drivers that change every mode's hours or deadlines
EVERY_MODE = {"mfu", "tokens", "deadline_slip_days"}
#: Drivers that change cost coefficients only on an objective (the after-tax ones only after tax; the discount rate
#: on any discounted one): on the others they leave every strategy's MILP as it is
OBJECTIVE_DRIVERS: dict[Objective, set[str]] = {
    Objective.TCO: set(),
    Objective.NPV: {"discount_rate"},
    Objective.AFTER_TAX_NPV: {"discount_rate", "tax_rate", "depreciation_life"},
}
#: Moving these drivers this way makes every cost coefficient they touch dearer (or leaves it).
DEARER = {
    "price_buy": 1,
    "price_rent": 1,
    "price_cloud": 1,
    "electricity": 1,
    "residual_value": -1,
    "staff": 1,
    "network": 1,
    "storage": 1,
    "price_path_slope": 1,  # every index rises with the slope (month m ≥ 0)
}


def inert_drivers(ctx: Context) -> set[str]:
    """The drivers that move nothing in these inputs: a scenario moving them is today's. The costs beyond the
    servers with no staff or no offer quoting the fields they scale; the exchange rate with no amount in another
    currency (no offer quoted in one, no tax cap in one); the tax rate without a tax rate that saves tax (no tax
    section, or its losses not usable); the depreciation life with nothing bought; the resale value with nothing
    to resell (no buy offer with a residual value, no owned server with one)."""
    offers, project = ctx.inputs.offers, ctx.inputs.project
    out = set() if project.staff is not None else {"staff"}
    for driver, fields in EXTRA_FIELDS.items():
        if not any(getattr(o, f) for o in offers for f in fields):
            out.add(driver)
    own = (None, project.currency)
    caps = {project.tax.rule.cap_currency} if project.tax is not None else set()  # a one-off rule's cap
    if not project.fx_rates or not any(c not in own for c in {o.currency for o in offers} | caps):
        out.add("fx_rate")
    if not costs.income_tax_rate(project):
        out.add("tax_rate")
    bought = [o for o in offers if o.mode == "buy" and not holdings.owned_entry(project, o.id)]
    if not bought:
        out.add("depreciation_life")
    if not any(o.residual for o in bought) and not any(e.residual_value for e in project.owned):
        out.add("residual_value")
    return out


def keeps_todays_plan(ctx: Context, s: Scenario, name: str, todays: Plan, recosted: Plan) -> bool:
    """True when today's optimal plan of strategy ``name`` is provably still optimal under ``s``, so
    re-solving would return it again:

    * unchanged: no driver ``s`` moves touches the strategy's MILP (e.g. buy prices for cloud-only;
      the discount rate when the objective is TCO; the tax rate and the depreciation life before tax), or
    * only dearer: every moved driver only raises cost coefficients (prices up, resale value down) and
      today's plan costs what it cost — every other plan costs at least as much as before.
    """
    modes = set(ctx.modes[name])
    moved = {d for d, v in s.factors if v != neutral(d)} - inert_drivers(ctx)
    prices = dict(s.offer_prices)
    touched_offers = {o.id for o in ctx.inputs.offers if o.id in prices and o.mode in modes}
    relevant = set().union(*(MODE_DRIVERS[m] for m in modes)) | EVERY_MODE
    relevant |= OBJECTIVE_DRIVERS[Objective(ctx.inputs.objective)]
    hit = moved & relevant
    if not hit and not touched_offers:
        return True
    if not hit <= set(DEARER) or touched_offers:
        return False
    if any((s.value(d) - neutral(d)) * DEARER[d] < 0 for d in hit):
        return False
    before, after = ctx.inputs.metric(todays), ctx.inputs.metric(recosted)
    return after <= before + 1e-9 * max(1.0, abs(before))


def solve_scenario(
    ctx: Context, scenario: Scenario, strategies: Iterable[str] = STRATEGIES, keep_plans: bool = False
) -> ScenarioOutcome:
    """Every strategy re-solved under ``scenario`` (or, where provably unchanged, today's plan kept and
    verified); the decided plan re-costed (not re-optimized)."""
    t0 = time.perf_counter()
    a = ctx.inputs.apply(scenario)
    h = scenario.hours_factor
    out: dict[str, StrategyOutcome] = {}
    decided_cost, decided_detail = None, ""
    for name in strategies:
        if ctx.statuses.get(name) == "excluded":  # a mode the user excluded is never planned
            out[name] = StrategyOutcome(name, SolveStatus.EXCLUDED, detail="excluded by allowed_modes", solved=False)
            continue
        base = ctx.base_plans.get(name)
        warm = None
        if base is not None:
            warm, broken = decided_under(base, a, h, ctx.modes[name])
            if name == "hybrid":
                decided_cost = ctx.inputs.metric(warm) if warm is not None else None
                decided_detail = "; ".join(broken)
        if base is not None and warm is not None and keeps_todays_plan(ctx, scenario, name, base, warm):
            res = _outcome(name, _Kept(warm, SolveStatus(ctx.statuses.get(name, SolveStatus.OPTIMAL))), ctx)
            res.solved = False
            res.solved_by = fast.KEPT
        else:
            res = solve_strategy(ctx, a, name, warm)
        if not keep_plans:
            res.plan = None
        out[name] = res
    return ScenarioOutcome(scenario, out, decided_cost, decided_detail, time.perf_counter() - t0)


#: what a Monte Carlo scenario measures: the committed plan with recourse where it breaks (``policy``), with the
#: optimal recourse in every scenario (``recourse``), or every strategy re-optimized in hindsight (``hindsight``)
MC_MODES = ("policy", "recourse", "hindsight")


def evaluate_scenario(ctx: Context, scenario: Scenario, mode: str = "policy", bounds: bool = False) -> ScenarioOutcome:
    """Every strategy's committed plan under ``scenario`` ("here and now", analysis/recourse.py): today's plan of
    the strategy is the first stage. (a) It is re-costed as decided (``recost.as_decided``: keep what is
    signed, start a job when its nodes are free, extend a contract where a job overruns); (b) where that
    breaks, or with ``mode`` ``recourse`` always, the optimal recourse (its LP, accepted when integral or
    when a known plan costs no more than its bound; else its MILP). ``bounds``: also bracket the scenario's
    hindsight optimum (the LP bound of its full model, the best plan known), for the value of waiting."""
    if mode == "hindsight":
        return solve_scenario(ctx, scenario)
    t0 = time.perf_counter()
    inp = ctx.inputs
    a = realized_applied(inp.apply(scenario))
    h = scenario.hours_factor
    out: dict[str, StrategyOutcome] = {}
    decided_cost, decided_detail = None, ""
    for name in STRATEGIES:
        if ctx.statuses.get(name) == "excluded":
            out[name] = StrategyOutcome(name, SolveStatus.EXCLUDED, detail="excluded by allowed_modes", solved=False)
            continue
        base = ctx.base_plans.get(name)
        if base is None:
            out[name] = StrategyOutcome(
                name, SolveStatus(ctx.statuses.get(name, SolveStatus.NO_SOLUTION)), detail="no plan today", solved=False
            )
            continue
        modes = ctx.modes[name]
        got = as_decided(base, a, h, modes, a.resize)
        res = _committed(ctx, a, name, base, got, mode)
        if bounds:
            b = hindsight_lp(a, name, modes, inp.objective, inp.solve_time_limit())
            known = [v for v in (b.high, inp.metric(res.plan) if res.plan is not None else None) if v is not None]
            res.ws_low, res.ws_high = b.low, (min(known) if known else None)
        if name == "hybrid":
            decided_cost = inp.metric(got.plan) if got.runs and got.plan is not None else None
            decided_detail = "; ".join(got.broken)
        res.plan = None
        out[name] = res
    return ScenarioOutcome(scenario, out, decided_cost, decided_detail, time.perf_counter() - t0)


#: a tornado end answered by re-costing today's plan (it runs as decided there): no solve
RECOST = "recost"


def recost_scenario(ctx: Context, scenario: Scenario) -> ScenarioOutcome:
    """Every strategy's plan of today re-costed under ``scenario`` (the tornado: what the decided plan costs at a
    driver's end). Where it does not run as decided (a deadline moved before a job's end, capacity it does not
    hold) the strategy is re-optimized instead, and the outcome says so (``solved_by`` a solve's path).
    The free strategy is also re-optimized where today's plan still runs (``optimum``: ``solve_scenario``, which
    keeps today's plan where it is provably still optimal and otherwise solves warm-started from it): a re-cost
    says what the signed plan costs there, not whether a better decision exists there."""
    t0 = time.perf_counter()
    inp = ctx.inputs
    a = realized_applied(inp.apply(scenario))
    out: dict[str, StrategyOutcome] = {}
    decided_cost, decided_detail = None, ""
    optimum: StrategyOutcome | None = None
    for name in STRATEGIES:
        if ctx.statuses.get(name) == "excluded":
            out[name] = StrategyOutcome(name, SolveStatus.EXCLUDED, detail="excluded by allowed_modes", solved=False)
            continue
        base = ctx.base_plans.get(name)
        got = as_decided(base, a, scenario.hours_factor, ctx.modes[name], a.resize) if base is not None else None
        if got is not None and got.runs and got.plan is not None:
            res = _outcome(name, _Kept(got.plan, SolveStatus(ctx.statuses.get(name, SolveStatus.OPTIMAL))), ctx)
            res.solved, res.solved_by = False, RECOST
            if name == "hybrid":  # kept where provably still optimal (``keeps_todays_plan``), else re-solved
                optimum = solve_scenario(ctx, scenario, (name,)).strategies[name]
        else:
            res = solve_strategy(ctx, inp.apply(scenario), name, got.plan if got is not None else None)
            if name == "hybrid":
                optimum = res
        res.runs_as_decided = got.runs if got is not None else None
        if name == "hybrid" and got is not None:
            decided_cost = inp.metric(got.plan) if got.runs and got.plan is not None else None
            decided_detail = "; ".join(got.broken)
        res.plan = None
        out[name] = res
    return ScenarioOutcome(scenario, out, decided_cost, decided_detail, time.perf_counter() - t0, optimum)


def _committed(ctx: Context, a: Applied, name: str, base: Plan, got, mode: str) -> StrategyOutcome:
    """The committed plan of one strategy: the policy's, or the recourse's where it is needed or asked for."""
    inp = ctx.inputs
    if got.runs and mode == "policy":
        res = _outcome(name, _Kept(got.plan, SolveStatus.FEASIBLE), ctx)
        res.solved, res.solved_by, res.runs_as_decided = False, POLICY, True
        return res
    rec: Recourse | None = None
    try:
        rec = recourse(
            base,
            a,
            name,
            ctx.modes[name],
            objective=inp.objective,
            known=got.plan,
            solver=inp.solver,
            gap=inp.gap,
            time_limit=inp.solve_time_limit(),
        )
    except (SolverFailed, SolverUnavailable) as exc:
        why = str(exc)
    else:
        why = rec.why
    policy = inp.metric(got.plan) if got.plan is not None else None
    if rec is not None and rec.plan is not None and (policy is None or inp.metric(rec.plan) < policy):
        res = _outcome(name, _Kept(rec.plan, rec.status), ctx)
        res.solved_by = rec.path
    elif got.plan is not None:  # as decided, or with a new contract signed by rule (recourse the policy knows)
        res = _outcome(name, _Kept(got.plan, SolveStatus.FEASIBLE), ctx)
        res.solved_by = rec.path if rec is not None and rec.plan is got.plan else POLICY
    else:
        detail = "; ".join([*got.broken, why] if why else got.broken)
        res = StrategyOutcome(name, SolveStatus.NO_SOLUTION, detail=detail)
    res.runs_as_decided = got.runs
    return res


@dataclass
class _Kept:
    """Today's plan, re-costed and verified under a scenario that provably leaves it optimal."""

    plan: Plan
    status: SolveStatus = SolveStatus.OPTIMAL
    reasons: dict = field(default_factory=dict)


# --- running many ----------------------------------------------------------------------------------

_CONTEXT: Any = None


def _init_worker(ctx_file: str, folder: str | None = None) -> None:
    """In a worker process, first: the signals are the parent's to act on (it SIGKILLs its workers), the worker
    dies with the parent, and every file its solves write lands in ``folder``, which the parent removes. The
    context is read from the file the parent pickled it to: what the parent hands over when it starts a worker
    is then a few hundred bytes, which it does not wait on while the worker imports (signals blocked)."""
    global _CONTEXT
    runtime.become_worker(folder)
    with open(ctx_file, "rb") as fh:
        _CONTEXT = pickle.load(fh)


def _call(fn: Callable, item):
    return fn(_CONTEXT, item)


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


#: seconds to reach a Dask scheduler and read its handshake, and again for distributed's own connection
SCHEDULER_TIMEOUT = 15.0
#: a Dask scheduler's first message (its handshake: compression, python version, pickle protocol) is a few
#: hundred bytes; a first frame longer than this is not one, and is never read
_HANDSHAKE_MAX_BYTES = 64 * 1024


class NotAScheduler(Exception):
    """``--scheduler`` names something that is not a reachable Dask scheduler (the message says what)."""


def _tcp_address(address: str) -> tuple[str, int]:
    """(host, port) of ``tcp://host:port`` or ``host:port`` (IPv6 as ``[::1]:8786``)."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme != "tcp":
        raise NotAScheduler(
            f"{scheme}:// is not supported: give the scheduler's tcp:// address, e.g. tcp://10.0.0.5:8786"
        )
    host, colon, port = rest.rstrip("/").rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not colon or not host or not port.isascii() or not port.isdigit() or not 0 < int(port) < 65536:
        raise NotAScheduler("expected tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786")
    return host, int(port)


def _receive(sock, n: int, deadline: float) -> bytes:
    out = bytearray()
    while len(out) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise NotAScheduler("it closed the connection without the handshake a Dask scheduler sends")
        out += chunk
    return bytes(out)


def probe_scheduler(address: str, timeout: float = SCHEDULER_TIMEOUT) -> None:
    """Raise ``NotAScheduler`` unless ``address`` answers like a Dask scheduler within ``timeout`` seconds.

    A scheduler sends its handshake as soon as a connection is accepted: an 8-byte length, then a short
    msgpack message naming the pickle protocol. distributed itself would read any 8 bytes as that length and
    try to allocate it (an HTTP reply reads as exabytes), and waits on a silent port for a minute; here at
    most ``_HANDSHAKE_MAX_BYTES`` are read, and never for longer than ``timeout``."""
    import socket
    import struct

    host, port = _tcp_address(address)
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            (n,) = struct.unpack("Q", _receive(sock, 8, deadline))
            if not 16 <= n <= _HANDSHAKE_MAX_BYTES:
                raise NotAScheduler(
                    "what it sent first is not a Dask handshake (is it a web server, or another service?)"
                )
            if b"pickle-protocol" not in _receive(sock, n, deadline):
                raise NotAScheduler("what it sent first is not a Dask handshake")
    except TimeoutError:
        raise NotAScheduler(f"no Dask handshake within {timeout:g} s (is it a Dask scheduler's port?)") from None
    except OSError as exc:
        raise NotAScheduler(f"cannot connect ({exc.strerror or exc})") from None


class ClusterFailed(ProcureError):
    """The Dask cluster of ``--scheduler`` lost what the run needed (its workers, the scattered inputs, the
    scheduler itself) before every task was done: the analysis stops with this message (exit 3, the family of a
    solver that failed) and writes nothing; nothing is re-run elsewhere behind the user's back."""

    exit_code = ExitCode.NO_SOLUTION


def _cluster_failure(exc: BaseException) -> bool:
    """Whether ``exc``, from a Dask future's result, is the cluster's failure rather than the task's own error: a
    cancelled future (``FutureCancelledError``: its inputs were lost with their worker, or the scheduler forgot
    it), a worker killed while running it (``KilledWorker``), or a lost connection (``CommClosedError`` is an
    ``OSError``)."""
    from concurrent.futures import CancelledError

    return isinstance(exc, CancelledError | OSError | TimeoutError) or any(
        k.__name__ == "KilledWorker" for k in type(exc).__mro__
    )


class OutOfTime(Exception):
    """The analysis' deadline passed before every item of a stage was done (``Runner.map``)."""


class Runner:
    """Maps ``fn(context, item)`` over items: in this process (``workers`` 1), in worker processes, or on a
    Dask cluster at ``scheduler``. Results come back in the items' order. With the context's
    ``inputs.deadline`` a map that is not done by then stops with ``OutOfTime`` (no item starts after
    it, and the solves that run end by it: ``Baseline.solve_time_limit``)."""

    def __init__(self, ctx, workers: int | None = None, scheduler: str | None = None, progress: Any = None):
        self.ctx = ctx
        self.deadline: float | None = getattr(getattr(ctx, "inputs", None), "deadline", None)
        self.workers = workers or default_workers()
        self.scheduler = scheduler
        self.progress = progress  # a rich.progress.Progress (or None)
        self._pool: ProcessPoolExecutor | None = None
        self._client: Client | None = None
        self._ctx_future: Any = None  # a Dask future of the context, scattered once
        self._folder: str | None = None  # the worker processes' temp folder
        self._killed = False  # the workers were SIGKILLed (a signal, an exception): no shutdown waits for them
        self.solves = 0  # tasks run, for the benchmark

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc) -> None:
        self.close(*exc)

    def close(self, *exc) -> None:
        """Wait for the workers when the map ended normally; after an exception or a signal kill them first,
        so that no shutdown waits on a solve (or on a lock a signal left held). Their temp folder goes too."""
        if self._pool is not None:
            runtime.forget(self._kill_workers)
            if exc and exc[0] is not None:
                self._kill_workers()
            pool, self._pool = self._pool, None
            if pool is not None:
                if self._killed:  # reaped before their folder goes, so no worker writes into it meanwhile
                    for proc in list((getattr(pool, "_processes", None) or {}).values()):
                        with contextlib.suppress(Exception):
                            proc.join(timeout=5)
                manager = getattr(pool, "_executor_manager_thread", None)
                pool.shutdown(wait=not self._killed, cancel_futures=True)
                if self._killed and manager is not None:  # it ends once it has seen its workers die; joined
                    manager.join(timeout=5)  # here, it cannot race the interpreter's exit hook (EBADF at exit)
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            if os.path.exists(self._folder):  # a dying solver wrote a last file meanwhile
                time.sleep(0.2)
                shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
        if self._client is not None:
            self._client.close()
            self._client = None

    def _dask(self):
        if self._client is None:
            try:
                from distributed import Client
            except ImportError:
                raise RuntimeError("--scheduler needs Dask distributed: pip install 'procure[dask]'") from None
            address = str(self.scheduler)
            if not address.startswith("inproc://"):  # a cluster a library caller started in this process
                probe_scheduler(address)  # distributed would wait a minute on a silent port, and trust any reply
            self._client = Client(address, set_as_default=False, timeout=SCHEDULER_TIMEOUT)
            self._ctx_future = self._client.scatter(self.ctx, broadcast=True)
        return self._client

    def _on_cluster(self, fn: Callable, items: list, label: str):
        """``fn(context, item)`` of every item on the Dask cluster (all submitted at once), yielded in order; the
        cluster's failure (``_cluster_failure``) ends it as ``ClusterFailed``, a task's own error as itself."""
        client = self._dask()
        futures = client.map(fn, [self._ctx_future] * len(items), items, pure=False)
        for done, f in enumerate(futures):
            try:
                r = f.result()
            except Exception as exc:
                if not _cluster_failure(exc):
                    raise
                raise self._cluster_failed(exc, label, done, len(items)) from None
            yield r

    def _cluster_failed(self, exc: BaseException, label: str, done: int, total: int) -> ClusterFailed:
        from procure.common.text import echo

        return ClusterFailed(
            f"the Dask cluster at {self.scheduler} stopped the analysis after {done:,} of {total:,} {label} tasks: "
            f"{type(exc).__name__}: {echo(str(exc), 200)} (a worker was lost with the inputs it held, or the "
            "scheduler went away); nothing was written. Run again once the cluster has workers, or without "
            "--scheduler to solve on this machine"
        )

    def _processes(self):
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # the workers' solver files (MPS, solutions, logs) go to a folder this process owns and removes,
            # so that a worker killed mid-solve leaves nothing behind
            self._folder = tempfile.mkdtemp(prefix="procure-workers-")
            ctx_file = os.path.join(self._folder, "context.pickle")
            with open(ctx_file, "wb") as fh:
                pickle.dump(self.ctx, fh)
            # spawn: a fresh interpreter per worker — no inherited threads or solver state; the context is
            # pickled once per worker by the initializer
            # multiprocessing's resource tracker starts here; it ignores SIGINT and SIGTERM but not SIGHUP, which
            # it inherits blocked from here, so that a SIGHUP to the process group does not end it with a traceback
            with runtime.signals_blocked():
                self._pool = ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_init_worker,
                    initargs=(ctx_file, self._folder),
                )
            runtime.on_stop(self._kill_workers)  # a signal ends the workers too, not only after their solves
        return self._pool

    def _kill_workers(self) -> None:
        """SIGKILL the pool's worker processes (each kills its own solver child: ``PR_SET_PDEATHSIG``). It runs
        in the signal handler, so it takes no lock: the executor's shutdown (which does) is left to ``close``."""
        pool = self._pool
        if pool is None:
            return
        self._killed = True
        for proc in list((getattr(pool, "_processes", None) or {}).values()):  # no public kill() before 3.14
            with contextlib.suppress(Exception):
                os.kill(proc.pid, signal.SIGKILL)

    def map(self, fn: Callable, items: list, label: str = "solving") -> list:
        return list(self.imap(fn, items, label))

    def imap(self, fn: Callable, items: Iterable, label: str = "solving", total: int | None = None):
        """``fn(context, item)`` for each item, yielded in the items' order as they are done. On worker processes
        at most ``WINDOW`` × workers items are in flight, so a caller that reduces each result as it comes
        (the Monte Carlo's streamed summary) holds a bounded number of them, however many items there are."""
        if total is None:
            items = list(items)
            total = len(items)
        task = self.progress.add_task(label, total=total) if self.progress is not None and total else None

        done_count = 0

        def tick():
            nonlocal done_count
            done_count += 1
            if task is not None:
                self.progress.advance(task)
            if done_count < total and self.deadline is not None and time.time() > self.deadline:
                raise OutOfTime(label)  # pending items are cancelled as the pool shuts down

        if total and self.deadline is not None and time.time() > self.deadline:
            raise OutOfTime(label)
        if self.scheduler:
            for r in self._on_cluster(fn, list(items), label):
                tick()
                self.solves += 1
                yield r
        elif self.workers <= 1 or total <= 1:
            for item in items:
                r = fn(self.ctx, item)
                tick()
                self.solves += 1
                yield r
        else:
            from collections import deque

            pool = self._processes()
            pending: deque = deque()
            source = iter(items)
            window = WINDOW * self.workers
            while True:
                while len(pending) < window:
                    item = next(source, _END)
                    if item is _END:
                        break
                    with runtime.signals_blocked():  # a worker starts with them blocked, until it ignores them
                        pending.append(pool.submit(_call, fn, item))
                if not pending:
                    break
                r = pending.popleft().result()
                tick()
                self.solves += 1
                yield r


#: items in flight per worker process (``Runner.imap``)
WINDOW = 16
_END = object()
