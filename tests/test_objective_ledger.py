"""The solver's objective equals the ledger's total of the plan it returned, to the cent, for every strategy, on
random programmes that mix what the organisation already has with what it may buy (issue 49).

Each programme is drawn from a seeded ``random.Random(seed)``: owned servers whose window ends inside the horizon
(and sometimes opens after its start), signed commitments (some signed before the project start), operations
staff on buy, rent or both, financing (the project's or an offer's), quotas, budgets (TCO, cash, capex; drawn
from the cash flows of the same programme solved without them, loose or binding), volume and term tiers,
reserved cloud terms, spot capacity, fixed charges, storage and egress, another currency. Hours per shape are
fixed (helpers.fixed_sizings), so every solve is tiny.

Two computations of one number are compared: the MILP's objective (``StrategyResult.solve.objective``, read back
without the slack tie-break and with the committed money added, backends._info) and the priced ledger of the plan
(``plan.total_cost``, or ``plan.npv_cost`` under the ``npv`` objective). They are built by different code (the
model's coefficients and linearisations against costs.py's flows of the extracted plan), so a difference is a
modelling bug. The planner itself raises VerificationError on a difference above its own tolerance (reading.agreed,
1e-6 relative); here such an error, or any other raised by a run, fails the test naming the seed, the solver and
the strategy being solved, and the agreement is asserted to the cent besides.

A metamorphic check rides on the same solves: the recommended plan (the hybrid over every allowed mode) costs no
more than any verified single-mode plan of the run, since that plan is a point of the hybrid's model, allowing only
for the hybrid's reported gap (and the cent of its tie-break).

The last tests are the minimal cases of the bugs the property found (the staff of owned servers, a reserved
term committed at a stated rate, the FTE ceiling under commitments) with their figures worked by hand. They take hundredths of a second, so the ``slow`` mark is on
each property test (400 programmes, about two minutes on two cores) rather than on the module.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

import pytest
from dateutil.relativedelta import relativedelta

from procure.models.holdings import months_before_start
from procure.solver import holdings, planner
from procure.solver.enums import Strategy
from procure.solver.verify import VerificationError

from helpers import offer, project, solve_fixed, workload

START = dt.date(2027, 1, 1)
#: "to the cent": |objective − ledger| ≤ 0.01 in absolute terms, whatever the total. A relative tolerance (1e-6 of
#: a 1e7 programme is 10 units of money) would hide exactly the small linearisation errors this test is for (one
#: FTE-month mis-charged on a cheap programme); both figures are sums of a few hundred terms in doubles, whose
#: rounding, and the solvers' feasibility tolerance on the continuous columns, stay far below a cent at these
#: totals (below 1e6: the largest difference between agreeing figures seen was 1.3e-5 on HiGHS, 6e-8 on CBC).
CENT = 0.01
SOLVERS = ("cbc", "highs")
SEEDS = range(200)  # per solver: 200 programmes each


@dataclass
class Programme:
    project: object
    offers: list
    hours: dict
    objective: str = "tco"
    features: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """The features drawn, each once (× how many times where more than once)."""
        seen = {f: self.features.count(f) for f in self.features}
        return ", ".join(f if n == 1 else f"{f} ×{n}" for f, n in seen.items()) or "plain"


# --- the random programmes -----------------------------------------------------------------------------------


def _day(days: int) -> dt.date:
    return START + dt.timedelta(days=days)


def _horizon_days(months: int) -> int:
    """Days from START to the horizon's end, the 1st of the month ``months`` after START's (calendar months)."""
    return (START.replace(day=1) + relativedelta(months=months) - START).days


def _buy(rng: random.Random, oid: str, feats: list[str]) -> dict:
    kw = dict(
        mode="buy",
        id=oid,
        max_nodes=rng.choice([1, 2, 2, 4]),
        lead_time_days=rng.choice([0, 0, 14, 45]),
        power_kw_per_node=rng.choice([6.5, 10.2]),
        residual_value_pct=rng.choice([0, 0.2, 0.4]),
        maintenance_pct_per_year=rng.choice([0, 0.05]),
        colocation_per_node_month=rng.choice([0, 800, 1300]),
    )
    price = rng.randint(4, 30) * 10_000
    if kw["max_nodes"] >= 2 and rng.random() < 0.3:
        kw["price_per_node"] = None
        first = rng.choice([1, 1, 2])  # 2: a minimum order of two nodes
        kw["volume_prices"] = [{"min_nodes": first, "price_per_node": price}]
        if kw["max_nodes"] > first:
            kw["volume_prices"].append({"min_nodes": first + 1, "price_per_node": round(price * 0.9)})
        feats.append("volume tiers")
    else:
        kw["price_per_node"] = price
    if rng.random() < 0.25:
        kw["financing"] = {
            "down_payment_pct": rng.choice([0, 0.1, 0.3]),
            "months": rng.choice([6, 12, 36]),
            "annual_rate": rng.choice([0, 0.06, 0.12]),
        }
        feats.append("offer financing")
    if rng.random() < 0.2:
        kw.update(import_duty_pct=rng.choice([0.05, 0.1]), vat_pct=0.13)
        feats.append("duty/VAT")
    if rng.random() < 0.25:
        kw["network_per_node"] = rng.choice([2_000, 9_000])
        feats.append("network")
    return kw


def _rent(rng: random.Random, oid: str, feats: list[str]) -> dict:
    kw = dict(
        mode="rent",
        id=oid,
        max_nodes=rng.choice([1, 2, 3]),
        lead_time_days=rng.choice([0, 0, 7, 30]),
        setup_fee_per_node=rng.choice([0, 0, 1_500]),
    )
    price = rng.randint(5, 20) * 1_000
    if rng.random() < 0.35:
        first = rng.choice([1, 2])
        kw.update(price_per_node_month=None, min_term_months=None)
        kw["term_prices"] = [
            {"min_term_months": first, "price_per_node_month": price},
            {"min_term_months": first + rng.choice([1, 2, 4]), "price_per_node_month": round(price * 0.8)},
        ]
        feats.append("term tiers")
    else:
        kw.update(price_per_node_month=price, min_term_months=rng.choice([1, 1, 2, 3]))
    return kw


def _cloud(rng: random.Random, oid: str, feats: list[str], horizon: int) -> dict:
    kw = dict(mode="cloud", id=oid, max_nodes=rng.choice([1, 2, 4]), price_per_node_hour=rng.randint(10, 50))
    r = rng.random()
    if r < 0.3:
        kw.update(
            price_per_node_hour=rng.randint(3, 15),
            commitment_months=rng.choice([m for m in (1, 2, 3, 6) if m <= horizon]),
            upfront_per_node=rng.choice([0, 500]),
        )
        feats.append("reserved cloud")
    elif r < 0.45:
        kw.update(spot=True, spot_overhead_pct=rng.choice([0.1, 0.3]), price_per_node_hour=rng.randint(5, 20))
        feats.append("spot")
    return kw


def _jobs(rng: random.Random, H: int) -> tuple[list[dict], dict[str, int]]:
    """1–3 jobs, each released in the first third of the horizon and due 30–150 days later (within it)."""
    jobs, windows = [], {}
    for k in range(rng.randint(1, 3)):
        earliest = rng.randint(0, H // 3)
        deadline = min(H, earliest + rng.randint(30, 150))
        jobs.append(
            workload(
                name=f"w{k}",
                earliest_start_days=earliest,
                deadline_days=deadline,
                dataset_tb=rng.choice([0.1, 2.0]),
                dataset_moves_on=rng.random() < 0.3,
            )
        )
        windows[f"w{k}"] = deadline - earliest
    return jobs, windows


def _specs(rng: random.Random, horizon: int, feats: list[str]) -> list[dict]:
    """The backstop and 1–4 offers of any mode."""
    # a cloud offer no quota covers, with hours for every job: most programmes have a plan
    specs = [
        dict(
            mode="cloud",
            id="backstop",
            vendor="Backstop",
            region="eu-west",
            gpu="A100-SXM-80GB",
            max_nodes=8,
            price_per_node_hour=rng.randint(30, 90),
        )
    ]
    for k in range(rng.randint(1, 4)):
        mode = rng.choice(["buy", "buy", "rent", "rent", "cloud"])
        oid = f"{mode}{k}"
        spec = (
            _buy(rng, oid, feats)
            if mode == "buy"
            else _rent(rng, oid, feats)
            if mode == "rent"
            else _cloud(rng, oid, feats, horizon)
        )
        if rng.random() < 0.2:
            spec["fixed_cost"] = rng.choice([5_000, 20_000])
            feats.append("fixed cost")
        if rng.random() < 0.3:
            spec.update(storage_per_tb_month=rng.choice([20, 100]), egress_per_tb=rng.choice([0, 90]))
            feats.append("storage/egress")
        specs.append(spec)
    return specs


def _draw(seed: int) -> Programme:
    """The programme of ``seed`` without budgets (``_with_budgets`` adds them)."""
    rng = random.Random(seed)
    feats: list[str] = []
    horizon = rng.choice([6, 9, 12, 18, 24])
    H = _horizon_days(horizon)
    pkw: dict = dict(
        start_date=START,
        horizon_months=horizon,
        period_days=rng.choice([7, 14]),
        electricity_price_per_kwh=rng.choice([0.0, 0.12]),
    )
    jobs, windows = _jobs(rng, H)
    specs = _specs(rng, horizon, feats)
    if rng.random() < 0.1:
        specs[-1]["currency"] = "EUR"
        pkw.update(fx_rates={"EUR": 1.08}, fx_rates_date=START, fx_rates_source="test rate")
        feats.append("EUR offer")
    if rng.random() < 0.5 and not any(s["mode"] == "buy" for s in specs):
        specs.append(_buy(rng, f"buy{len(specs)}", feats))  # owned servers name a buy offer
    buys = [s for s in specs if s["mode"] == "buy"]
    if buys and rng.random() < 0.6:
        pkw["owned"] = _owned(rng, buys, H, feats)
    contracted = [s for s in specs if s["mode"] == "rent" or s.get("commitment_months")]
    if contracted and rng.random() < 0.4:
        pkw["commitments"] = _commitments(rng, contracted, horizon, feats)
    if rng.random() < 0.5:
        modes = rng.choice([["buy"], ["buy"], ["rent"], ["buy", "rent"]])
        pkw["staff"] = {
            "nodes_per_fte": rng.choice([1, 2, 4, 16]),
            "cost_per_fte_year": rng.choice([60_000, 96_000, 120_000]),
            "modes": modes,
        }
        feats.append(f"staff {'+'.join(modes)}")
    if rng.random() < 0.2:
        pkw["financing"] = {"down_payment_pct": 0.2, "months": rng.choice([12, 24]), "annual_rate": 0.08}
        feats.append("project financing")
    if rng.random() < 0.2:
        pkw["vat_recoverable"] = False
        feats.append("VAT not recoverable")
    if rng.random() < 0.15:
        pkw["allowed_modes"] = rng.choice([["rent", "cloud"], ["buy", "cloud"]])
        feats.append(f"modes {'+'.join(pkw['allowed_modes'])}")
    objective = "npv" if rng.random() < 0.25 else "tco"
    if objective == "npv" or rng.random() < 0.2:
        pkw["discount_rate"] = rng.choice([0.05, 0.08, 0.12])
    if objective == "npv":
        feats.append("npv")
    if rng.random() < 0.3:
        pkw["quotas"] = [_quota(rng, pkw, specs, feats)]
    offers = [offer(**s) for s in specs]
    p = project(jobs, **pkw)
    offers = holdings.with_owned(p, offers)
    hours = _hours(rng, offers, jobs, windows)
    return Programme(p, offers, hours, objective, feats)


def _owned(rng: random.Random, buys: list[dict], H: int, feats: list[str]) -> list[dict]:
    out = []
    for _ in range(rng.choice([1, 1, 2])):
        b = rng.choice(buys)
        entry: dict = {"offer": b["id"], "nodes": rng.randint(1, 2)}
        until = H
        if rng.random() < 0.75:
            until = rng.randint(20, H - 1)
            entry["until"] = _day(until)
            feats.append("owned until inside")
        if rng.random() < 0.3:
            entry["from"] = _day(rng.randint(1, until - 10))
            feats.append("owned from after start")
        if rng.random() < 0.4:
            entry["residual_value"] = rng.choice([5_000, 40_000])
        out.append(entry)
    return out


def _commitments(rng: random.Random, contracted: list[dict], horizon: int, feats: list[str]) -> list[dict]:
    out = []
    for _ in range(rng.choice([1, 1, 2])):
        c = rng.choice(contracted)
        day = rng.randint(-75, _horizon_days(horizon) // 2)
        months = c.get("commitment_months") or rng.randint(1, 6)
        if months_before_start(_day(day), _day(0)) >= months:  # it ended before the project start: the model refuses it
            day = 0
        entry = {"offer": c["id"], "nodes": rng.randint(1, 2), "start_date": _day(day), "months": months}
        if rng.random() < 0.3:
            entry["price_per_node_month"] = rng.randint(4, 18) * 1_000
        out.append(entry)
        feats.append("commitment before start" if day < 0 else "commitment")
    return out


def _quota(rng: random.Random, pkw: dict, specs: list[dict], feats: list[str]) -> dict:
    """A quota on the test vendor's offers (never the backstop's), above what the holdings alone hold."""
    kind = rng.choice(["vendor", "mode-buy", "mode-rent", "gpu"])
    q: dict = (
        {"vendor": "Test Vendor"}
        if kind == "vendor"
        else {"gpu": "H100-SXM-80GB"}
        if kind == "gpu"
        else {"mode": kind.split("-")[1]}
    )
    by_id = {s["id"]: s for s in specs}
    held = [by_id[e["offer"]] | {"n": e["nodes"]} for e in pkw.get("owned", [])]
    held += [by_id[c["offer"]] | {"n": c["nodes"]} for c in pkw.get("commitments", [])]
    mine = sum(8 * h["n"] for h in held if kind in ("vendor", "gpu") or h["mode"] == q.get("mode"))
    q["max_gpus"] = mine + rng.choice([8, 16, 32])
    feats.append(f"quota {kind}")
    return q


def _hours(rng: random.Random, offers: list, jobs: list[dict], windows: dict[str, int]) -> dict:
    hours = {}
    for w in jobs:
        name, window = w["name"], windows[w["name"]]
        for o in offers:
            if o.id != "backstop" and rng.random() < 0.2:
                continue
            days = rng.randint(2, max(2, int(window * 0.6)))
            for n in (1, 2):
                if n <= o.max_nodes:
                    hours[(name, o.id, n)] = days * 24 / (n * rng.choice([0.8, 0.9, 1.0])) if n > 1 else days * 24
    return hours


#: budgets as factors of what the same programme spends without them: some loose, some binding (a cash or capex
#: cap below the unbudgeted plan's moves it; a TCO cap at its optimum leaves the hybrid one plan and cuts the
#: single-mode strategies)
BUDGET_FACTORS = {"tco": (1.001, 1.2, 2.0), "cash": (0.9, 1.001, 1.2, 2.0), "capex": (0.6, 1.001, 1.5, 2.0)}


class Strategies:
    """Names the strategy being solved (planner.run_strategy, wrapped), so that an error raised inside a run
    names it; ``stage`` says which solve of the seed it is."""

    def __init__(self, monkeypatch):
        self.current, self.stage = "(none yet)", ""
        real = planner.run_strategy

        def run(project, offers, sizings, name, modes, **kw):
            self.current = str(name) + ("" if project.allow_spot else " without spot") + self.stage
            return real(project, offers, sizings, name, modes, **kw)

        monkeypatch.setattr(planner, "run_strategy", run)


def _solve(prog: Programme, solver: str, compare: bool = True):
    return solve_fixed(prog.project, prog.offers, prog.hours, solver=solver, objective=prog.objective, compare=compare)


def _with_budgets(seed: int, prog: Programme, solver: str, names: Strategies) -> Programme:
    """``prog`` with budgets drawn from the cash flows of its plan without them (for about a third of the seeds)."""
    rng = random.Random(f"budgets {seed}")
    if rng.random() >= 0.35:
        return prog
    names.stage = " (solved without budgets, to draw them)"
    base = _solve(prog, solver, compare=False)
    names.stage = ""
    if base.plan is None:
        return prog
    caps = {}
    for kind, factors in BUDGET_FACTORS.items():
        if rng.random() < 0.5:
            measure = planner.budget_measure(base.plan, kind)
            caps[f"budget_{kind}"] = round(measure * rng.choice(factors), 2) if measure > 1 else 100_000.0
    if not caps:
        return prog
    p = type(prog.project).model_validate({**prog.project.model_dump(by_alias=True), **caps})
    return Programme(p, prog.offers, prog.hours, prog.objective, prog.features + sorted(caps))


def _cost(plan, objective: str) -> float:
    return plan.npv_cost if objective == "npv" else plan.total_cost


def _agreement(res, prog: Programme) -> list[tuple[str, float, float]]:
    """(strategy, objective, ledger) of every plan of the run whose objective and ledger differ by over a cent."""
    runs = [("hybrid", res.hybrid)] + [(str(k), s) for k, s in res.strategies.items() if k != Strategy.HYBRID]
    if res.spot_fallback is not None:
        runs.append(("hybrid without spot", res.spot_fallback))
    out = []
    for name, s in runs:
        if s.plan is None:
            continue
        assert s.solve is not None and s.solve.objective is not None, name
        ledger = _cost(s.plan, prog.objective)
        if abs(s.solve.objective - ledger) > CENT:
            out.append((name, s.solve.objective, ledger))
    return out


def _metamorphic(res, prog: Programme) -> tuple[int, list[str]]:
    """The hybrid plan against every single-mode plan of the run, never dearer but for its gap and tie-break:
    (how many single-mode plans it was compared with, every one it costs more than)."""
    hybrid = res.hybrid
    if hybrid.plan is None or hybrid.solve.gap is None:  # no plan, or no proven gap to allow for
        return 0, []
    mine = _cost(hybrid.plan, prog.objective)
    # the gap is relative to the solver's objective; the slack tie-break adds at most TIE_BREAK_TOTAL = 0.01 to
    # the plan the solver prefers (formulation.add_objective)
    slack = (hybrid.solve.gap or 0.0) * max(1.0, abs(mine)) + CENT
    out, compared = [], 0
    for name, s in res.strategies.items():
        if name == Strategy.HYBRID or s.plan is None or str(name) not in prog.project.allowed_modes:
            continue
        compared += 1
        theirs = _cost(s.plan, prog.objective)
        if mine > theirs + slack:
            out.append(f"hybrid {mine:,.2f} > {name}-only {theirs:,.2f} (gap {hybrid.solve.gap})")
    return compared, out


@dataclass
class Outcome:
    planned: bool  # the hybrid has a plan
    agreement: list[str]  # every objective ≠ ledger, or the error that stopped the run (seed, solver, strategy)
    metamorphic: list[str]  # every single-mode plan cheaper than the hybrid's beyond its gap
    compared: int = 0  # single-mode plans the hybrid's was compared with


#: (seed, solver) → its outcome: the metamorphic test reads the solves of the agreement test (same worker: the
#: tests of a chunk share an xdist group)
OUTCOMES: dict[tuple[int, str], Outcome] = {}


def outcome(seed: int, solver: str, monkeypatch) -> Outcome:
    """Solve the programme of ``seed`` with every strategy (once per process) and check both properties."""
    if (seed, solver) in OUTCOMES:
        return OUTCOMES[(seed, solver)]
    names = Strategies(monkeypatch)
    prog = _draw(seed)
    where = f"seed {seed} on {solver} [{prog.describe()}]"
    try:
        prog = _with_budgets(seed, prog, solver, names)
        where = f"seed {seed} on {solver} [{prog.describe()}]"
        res = _solve(prog, solver)
    except Exception as exc:  # VerificationError above all: a failure of this seed, named with its strategy
        found = Outcome(False, [f"{where}, {names.current}: {type(exc).__name__}: {exc}"], [])
    else:
        agreement = [
            f"{where}, {name}: objective {objective:,.2f}, ledger {ledger:,.2f} "
            f"(objective − ledger {objective - ledger:+,.2f})"
            for name, objective, ledger in _agreement(res, prog)
        ]
        compared, dearer = _metamorphic(res, prog)
        found = Outcome(res.plan is not None, agreement, [f"{where}: {msg}" for msg in dearer], compared)
    OUTCOMES[(seed, solver)] = found
    return found


# --- the tests -------------------------------------------------------------------------------------------------

CHUNK = 20  # programmes per test: each reports every failure of its seeds, and holds its share of plans
MIN_PLANNED = 0.8  # of the programmes of a test, at least this share has a plan: the property is not vacuous
CHUNKS = [
    pytest.param(first, solver, marks=pytest.mark.xdist_group(f"objective-ledger-{solver}-{first}"))
    for solver in SOLVERS
    for first in range(SEEDS.start, SEEDS.stop, CHUNK)
]


@pytest.mark.slow
@pytest.mark.parametrize(("first", "solver"), CHUNKS)
def test_the_objective_is_the_ledgers_total_for_every_strategy(first, solver, monkeypatch):
    found = [outcome(seed, solver, monkeypatch) for seed in range(first, first + CHUNK)]
    fails = [f for o in found for f in o.agreement]
    assert not fails, f"{len(fails)} failure(s):\n" + "\n".join(fails)
    planned = sum(o.planned for o in found)
    assert planned >= MIN_PLANNED * CHUNK, f"only {planned} of {CHUNK} programmes have a plan"


@pytest.mark.slow
@pytest.mark.parametrize(("first", "solver"), CHUNKS)
def test_the_recommended_plan_costs_no_more_than_any_single_mode_plan(first, solver, monkeypatch):
    found = [outcome(seed, solver, monkeypatch) for seed in range(first, first + CHUNK)]
    fails = [f for o in found for f in o.metamorphic]
    assert not fails, f"{len(fails)} failure(s):\n" + "\n".join(fails)
    compared = sum(o.compared for o in found)
    assert compared >= CHUNK, f"the hybrid plans were compared with only {compared} single-mode plans"


def test_issue49_staff_of_owned_servers_is_paid_only_in_the_months_they_are_owned():
    """The minimal case of the staff bug (issue 49: the model charged the staff of owned servers to the horizon end
    under staff modes [buy]; add_staff now ends the months held where an owned window ends): one owned 8×H100 node
    leaving mid-horizon, staff on buy, the only job on cloud."""
    dgx = offer(id="dgx", mode="buy")
    cloud = offer(id="cloud", mode="cloud", price_per_node_hour=30.0)
    p = project(
        [workload(name="j", deadline_days=60)],
        horizon_months=24,
        owned=[{"offer": "dgx", "nodes": 1, "until": "2027-07-01"}],
        staff={"nodes_per_fte": 16, "cost_per_fte_year": 120_000, "modes": ["buy"]},
    )
    offers = holdings.with_owned(p, [dgx, cloud])
    try:
        res = solve_fixed(p, offers, {("j", "cloud", 1): 100})
    except VerificationError as exc:
        pytest.fail(f"the model's objective and the ledger disagree: {exc}")
    # By hand: the node is owned from day 0 (2027-01-01) until day 181 (2027-07-01: 31+28+31+30+31+30 days), so
    # its last day held is day 180. A month is 365/12 = 30.42 days: day 180 lies in month ⌊180 / 30.42⌋ = 5, so
    # the window touches months 0..5, six months. One node at 16 nodes per FTE is ⌈1/16⌉ = 1 FTE, paid
    # 120,000 / 12 = 10,000 a month: 1 × 10,000 × 6 = 60,000 (not 24 × 10,000 = 240,000, the whole horizon).
    assert res.plan.breakdown["staff"] == pytest.approx(60_000, abs=CENT)
    assert res.hybrid.solve.objective == pytest.approx(res.plan.total_cost, abs=CENT)


def test_a_reserved_term_committed_at_a_stated_rate_is_charged_and_verified_at_that_rate():
    # A 3-month reserved term of 1 node signed at 5,000 per node-month (the offer's hourly 10 × 730 h would be
    # 7,300): 3 × 5,000 = 15,000, owed whatever the plan does; the 100-hour job runs on it (no extra cost).
    rc = offer(id="rsv", mode="cloud", price_per_node_hour=10.0, commitment_months=3, max_nodes=2)
    c = offer(id="c", mode="cloud", price_per_node_hour=30.0)
    signed = {"offer": "rsv", "nodes": 1, "start_date": "2027-01-01", "months": 3, "price_per_node_month": 5_000}
    p = project([workload(name="j", deadline_days=60)], horizon_months=6, commitments=[signed])
    res = solve_fixed(p, [rc, c], {("j", "rsv", 1): 100, ("j", "c", 1): 100})
    assert res.plan.total_cost == pytest.approx(15_000, abs=CENT)
    assert [r.price_per_node_month for r in res.plan.rentals] == [pytest.approx(5_000)]
    assert res.hybrid.solve.objective == pytest.approx(res.plan.total_cost, abs=CENT)


def test_the_fte_ceiling_counts_the_committed_nodes_on_top_of_max_nodes():
    # A signed 1-month rental of 1 node plus max_nodes 1 new: two 600-hour jobs in month 0 need both nodes (2 × 10,000
    # rent; cloud would cost 600 × 100 = 60,000 a job). One node per FTE at 12,000 a year: 2 FTEs × 1,000 × 1 month
    # = 2,000 of staff, 22,000 in all. The FTE bound once left out the committed node (at most 1 FTE): no plan.
    r = offer(id="r", mode="rent", price_per_node_month=10_000, min_term_months=1, max_nodes=1)
    c = offer(id="c", mode="cloud", price_per_node_hour=100.0)
    p = project(
        [workload(name="a", deadline_days=30), workload(name="b", deadline_days=30)],
        horizon_months=6,
        commitments=[{"offer": "r", "nodes": 1, "start_date": "2027-01-01", "months": 1}],
        staff={"nodes_per_fte": 1, "cost_per_fte_year": 12_000, "modes": ["rent"]},
    )
    res = solve_fixed(p, [r, c], {(w, o, 1): 600 for w in "ab" for o in "rc"})
    assert res.plan.breakdown["staff"] == pytest.approx(2_000, abs=CENT)
    assert res.plan.total_cost == pytest.approx(22_000, abs=CENT)
