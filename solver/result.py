"""What a planning run returns: the recommended (hybrid) plan and each single-mode comparator
(``StrategyResult``), the runner-up offers per workload (``RunnerUp``), and the whole run
(``Result``). The reports read these; ``solver.planner`` builds them."""

from __future__ import annotations

from dataclasses import dataclass, field

from procure.models.offer import Offer
from procure.models.project import Project
from procure.solver.enums import Objective

from . import costs
from .enums import SolveStatus, Strategy
from .milp import SolveInfo
from .options import Option, Rejection
from .plan import Assignment, Plan
from .reasons import Msg
from .sizing import WorkloadSizing


@dataclass
class StrategyResult:
    name: Strategy
    modes: tuple[str, ...]
    status: SolveStatus
    plan: Plan | None = None
    solve: SolveInfo | None = None
    reasons: dict[str, list[str]] = field(default_factory=dict)  # workload -> why it cannot be placed
    rejections: list[Rejection] = field(default_factory=list)  # (workload, offer) pairs no shape of which can be used
    every_option: dict[str, list[Option]] = field(default_factory=dict)  # every deadline-feasible shape per workload
    build_seconds: float = 0.0  # options, greedy plan and model build

    @property
    def gap(self) -> float | None:
        """The proven relative gap of the plan (None: unknown, e.g. a heuristic plan without a bound)."""
        return self.solve.gap if self.solve is not None and self.plan is not None else None

    @property
    def total_cost(self) -> float | None:
        return self.plan.total_cost if self.plan else None


@dataclass
class RunnerUp:
    """Another offer for one workload, costed like with like: the whole plan re-solved with the
    workload held to that offer (``plan_cost``), against the chosen plan's cost on the same objective."""

    option: Option  # the cheapest stand-alone shape of that offer
    assignment: Assignment | None  # where the workload runs in the re-solved plan
    extra_cost: float | None  # plan_cost − the chosen plan's cost (objective units); None: no plan with it
    plan_cost: float | None = None  # the re-solved plan's cost on the objective (TCO or NPV)
    status: SolveStatus | None = None  # how that re-solve ended (a gap makes extra_cost an upper bound)
    gap: float | None = None
    note: str | None = None  # why there is no cost: not solved within the time limit, or why no plan exists
    plan: Plan | None = field(default=None, repr=False)  # the re-solved plan (verified, the workload held to the offer)
    cause: str | None = None  # why no plan: "(budget)", "(capacity)", "(time limit)", or None
    note_message: Msg | None = None  # ``note`` as a ``reasons.Msg``, for the reader's language (when it is one)

    @property
    def solved(self) -> bool:
        """Costed on the offer it names (``assignment`` runs on it)."""
        return (
            self.plan_cost is not None
            and self.assignment is not None
            and self.assignment.offer_id == self.option.offer_id
        )


@dataclass(frozen=True)
class SetAside:
    """A job left out of a partial plan, and why. ``cause``: ``fit`` (no offer of the allowed modes can
    run it), ``budget`` (the budgets cannot cover it with the others) or ``capacity`` (the offers'
    max_nodes cannot hold it with the others before the deadlines); ``summary`` is the headline's phrase,
    ``reasons`` every line of the explanation."""

    workload: str
    cause: str
    summary: str
    reasons: tuple[str, ...]
    rules: tuple[str, ...] = ()  # the ``Rule`` values that removed its offers (cause ``fit``)


@dataclass(frozen=True)
class PlanRisk:
    """The recommended plan's range, worked out once by the solve (analysis/plan_risk.py) and only read by the
    reports: its TCO at the band's P50 and P90 hours, the probability it runs as decided, and how."""

    tco_p50: float
    tco_p90: float
    runs_as_decided: float  # probability, 0..1
    method: str = ""


@dataclass
class Result:
    project: Project
    offers: dict[str, Offer]
    sizings: list[WorkloadSizing]
    objective: Objective
    hybrid: StrategyResult
    strategies: dict[str, StrategyResult]
    rejections: list[Rejection]
    every_option: dict[str, list[Option]]
    runner_ups: dict[str, list[RunnerUp]]
    spot_fallback: StrategyResult | None = None  # the hybrid re-solved without spot, when the plan uses spot
    # jobs left out of a partial plan (``project`` holds the rest)
    set_aside: list[SetAside] = field(default_factory=list)
    programme: Project | None = None  # every job as given, when some were set aside
    # why no runner-up was costed at all (e.g. --time-limit); "" when they were, or none was asked for
    runner_ups_skipped: str = ""
    # the recommended plan's range (analysis/plan_risk.py), computed once by the solve; None: no plan, or not
    # computed (a result the solve use case did not make)
    risk: PlanRisk | None = None

    @property
    def n_jobs(self) -> int:
        """Jobs in the programme as given, set-aside ones included."""
        return len(self.project.workloads) + len(self.set_aside)

    @property
    def objective_cost(self) -> float | None:
        """The recommended plan's cost on the minimized objective."""
        return cost_on(self.plan, self.objective)

    @property
    def status(self) -> SolveStatus:
        return self.hybrid.status

    @property
    def plan(self) -> Plan | None:
        return self.hybrid.plan

    def planned(self) -> Plan:
        """The recommended plan, for the sheets and tables that exist only with one (no plan: a bug)."""
        if self.hybrid.plan is None:
            raise ValueError("no plan: the sheets and tables of a plan are written only when there is one")
        return self.hybrid.plan


def cost_on(plan: Plan | None, objective: Objective) -> float | None:
    """A plan's cost on an objective: ``tco`` (undiscounted total) or ``npv`` (present value)."""
    return costs.Objective(objective).of(plan)
