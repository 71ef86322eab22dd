"""Shared test builders, imported by the test modules (which never import each other or conftest).

- small valid inputs built through the real models: ``offer``, ``project``, ``workload``, a catalog row;
- planner fixtures: workloads with hours fixed by hand (a stand-in for the sizing engine), so the
  optimal answers can be worked out on paper; and an independent brute force for random instances.
"""

from __future__ import annotations

import csv
import datetime as dt
import itertools
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from dateutil.relativedelta import relativedelta

from procure.models.offer import Offer
from procure.models.project import Project
from procure.solver import costs
from procure.solver.options import Grid, allowed_starts
from procure.solver.planner import plan_from_sizings


@dataclass
class FixedCandidate:
    workload: str
    offer_id: str
    gpu: str
    nodes: int
    gpus: int
    hours: float
    fits: bool = True
    reason: str | None = None
    strategy: object = None
    per_gpu_memory_gb: float | None = None
    efficiency: float | None = None
    memory: object = None
    mfu: float | None = None

    @property
    def gpu_hours(self) -> float:
        return self.hours * self.gpus


@dataclass
class FixedSizing:
    workload: object
    candidates: list = field(default_factory=list)
    total_flops: float = 0.0


def fixed_sizings(project, offers, hours: dict[tuple[str, str, int], float]):
    """hours[(workload, offer_id, nodes)] = compute hours on that shape."""
    by_name = {w.name: w for w in project.workloads}
    out = {w.name: FixedSizing(w) for w in project.workloads}
    offer_by_id = {o.id: o for o in offers}
    for (w, oid, n), h in hours.items():
        o = offer_by_id[oid]
        out[w].candidates.append(FixedCandidate(w, oid, o.gpu, n, n * o.gpus_per_node, h))
    table = {(w, oid, n): h for (w, oid, n), h in hours.items()}

    def resize(workload, offer, nodes):
        h = table.get((workload.name, offer.id, nodes))
        return (
            None
            if h is None
            else FixedCandidate(workload.name, offer.id, offer.gpu, nodes, nodes * offer.gpus_per_node, h)
        )

    assert set(out) == set(by_name)
    return list(out.values()), resize


#: what a test solves unless it is about these: no runner-ups (tests/test_runner_ups.py) and no single-mode
#: strategies (compare=True where a test reads them); each costs whole re-solves no assertion would read
TEST_DEFAULTS = {"n_runner_ups": 0, "compare": False}


def plan(project, offers, **kw):
    """``plan_project`` (real sizing) with the tests' defaults (``TEST_DEFAULTS``)."""
    from procure.solver.planner import plan_project

    return plan_project(project, offers, **(TEST_DEFAULTS | kw))


def solve_fixed(project, offers, hours, **kw):
    """``plan_from_sizings`` on fixed hours, with the tests' defaults (``TEST_DEFAULTS``)."""
    sizings, resize = fixed_sizings(project, offers, hours)
    kw = TEST_DEFAULTS | kw
    # brute force and the infeasibility tests cost the whole programme; partial plans: test_partial.py
    kw.setdefault("all_or_nothing", True)
    return plan_from_sizings(project, offers, sizings, resize, **kw)


# --- brute force -----------------------------------------------------------------------------------


def quoted_length_cost(o):
    """ℓ ↦ cost of one node-contract of ℓ months, read from the offer's quoted fields (not the cost model):
    rent tiers are minimum lengths (the cheapest tier whose minimum ≤ ℓ, for every month, plus the setup fee);
    a reserved cloud term is exactly commitment_months at the hourly rate × 730 h, plus the upfront fee."""
    if o.mode == "rent":
        tiers = (
            [(t.min_term_months, t.price_per_node_month) for t in o.term_prices]
            if o.term_prices
            else [(o.min_term_months or 1, o.price_per_node_month)]
        )
        setup = o.setup_fee_per_node or 0.0

        def rent(length: int) -> float:
            rates = [p for least, p in tiers if least <= length]
            return length * min(rates) + setup if rates else math.inf

        return rent

    def reserved(length: int) -> float:
        return (
            length * o.price_per_node_hour * 730 + (o.upfront_per_node or 0.0)
            if length == o.commitment_months
            else math.inf
        )

    return reserved


# --- the calendar, stated for the oracles (python-dateutil, not models.calendar) -----------------------------


def month_first(project, m: int) -> float:
    """The project day the calendar month m after the start's begins on (its 1st; ≤ 0 for month 0)."""
    return _month_first(project.start_date, m)


@cache
def _month_first(start: dt.date, m: int) -> float:
    first = start.replace(day=1) + relativedelta(months=m)
    return float((first - start).days)


def horizon_days_of(project) -> float:
    """The horizon's end: the 1st of the month horizon_months after the start's."""
    return month_first(project, project.horizon_months)


def month_of_day(project, day: float) -> int:
    return _month_of_day(project.start_date, math.floor(day + 1e-9))


@cache
def _month_of_day(start: dt.date, day: int) -> int:
    d = start + dt.timedelta(days=day)
    return (d.year - start.year) * 12 + d.month - start.month


def calendar_months(project, lo: float, hi: float) -> float:
    """Calendar months held over [lo, hi): each month by its days held / its days."""
    total, m = 0.0, month_of_day(project, lo)
    while month_first(project, m) < hi:
        a, b = max(lo, month_first(project, m)), min(hi, month_first(project, m + 1))
        if b > a:
            total += (b - a) / (month_first(project, m + 1) - month_first(project, m))
        m += 1
    return total


def anniversary(project, phase: float, m: int) -> float:
    """The day a contract month on ``phase`` (days after a month's 1st) begins in month m: that many days after
    its 1st, or its last day when the month is shorter."""
    days = month_first(project, m + 1) - month_first(project, m)
    whole = math.floor(phase + 1e-9)
    return month_first(project, m) + (phase if whole <= days - 1 else days - 1 + phase - whole)


def phase_of_day(project, day: float) -> float:
    ph = day - month_first(project, month_of_day(project, day))
    return 0.0 if ph < 1e-6 else ph


def quoted_data_cost(project, o, data, start_day: float, end_day: float) -> float:
    """Storage and egress of one job, read from the offer's quoted fields (not the cost model): the dataset
    and kept checkpoints over the job's days at storage_per_tb_month per calendar month (a month held in part by
    its days), and the final checkpoint (plus the dataset when it moves on) at egress_per_tb."""
    held = data.dataset_tb + data.kept * data.checkpoint_tb
    out = data.checkpoint_tb + (data.dataset_tb if data.dataset_moves_on else 0.0)
    months = calendar_months(project, start_day, end_day)
    return held * (o.storage_per_tb_month or 0.0) * months + out * (o.egress_per_tb or 0.0)


def quoted_staff_cost(project, offer_by_id, bought: dict[str, int]) -> float:
    """Staff of bought nodes, from the staff block: ⌈nodes bought / nodes_per_fte⌉ FTEs at cost_per_fte_year / 12
    from the first delivery month (the calendar month of day lead_time_days) to the horizon's last month, the
    start's month by the share of its days in the project."""
    if project.staff is None or not bought:
        return 0.0
    ftes = math.ceil(sum(bought.values()) / project.staff.nodes_per_fte)
    M = project.horizon_months
    first = min(min(month_of_day(project, offer_by_id[oid].lead_time_days), M - 1) for oid in bought)
    months = calendar_months(project, max(0.0, month_first(project, first)), horizon_days_of(project))
    return ftes * project.staff.cost_per_fte_year / 12 * months


def quoted_job_cost(project, o, nodes: int, hours: float) -> float:
    """A job's own cost, read from the offer's quoted fields (not the cost model): on bought nodes the draw
    above idle while it trains (kW × (0.75 − 0.15) × hours × PUE × price per kWh, per node); on cloud the
    node-hours with the spot overhead at the hourly price; nothing on rented or reserved capacity."""
    if o.mode == "buy":
        return nodes * o.power_kw_per_node * (0.75 - 0.15) * hours * project.pue * project.electricity_price_per_kwh
    if o.mode == "cloud" and o.commitment_months is None:
        spot = o.spot_overhead_pct or 0.0
        return nodes * hours * (1 + spot) * o.price_per_node_hour * project.fx_rates.get(o.currency, 1.0)
    return 0.0


def quoted_purchase_cost(project, o, nodes: int) -> float:
    """What ONE node bought costs over the horizon (without the jobs' busy energy and the network), read from
    the quote (not the cost model): the tier price p of ``nodes`` in total with import duty and VAT that is
    not recoverable, the loan interest of the instalments paid within the horizon when financed, less the
    resale at p × residual_value_pct; maintenance, colocation and idle energy (15 % of kW, 24 h a day) from
    delivery (lead_time_days) to the horizon end (the 1st of the month horizon_months after the start's), the
    colocation per calendar month held."""
    rate = project.fx_rates.get(o.currency, 1.0)
    tiers = [(t.min_nodes, t.price_per_node) for t in o.volume_prices] if o.volume_prices else [(1, o.price_per_node)]
    p = [price for least, price in tiers if least <= nodes][-1] * rate  # all-units: the highest tier reached
    vat = 0.0 if project.vat_recoverable else (o.vat_pct or 0.0)
    landed = p * (1 + (o.import_duty_pct or 0.0)) * (1 + vat)
    end = horizon_days_of(project)
    days = max(0.0, end - o.lead_time_days)
    idle = o.power_kw_per_node * 0.15 * 24 * days * project.pue * project.electricity_price_per_kwh
    running = p * (o.maintenance_pct_per_year or 0.0) * days / 365 + (
        o.colocation_per_node_month or 0.0
    ) * rate * calendar_months(project, o.lead_time_days, end)
    return landed + _quoted_interest(project, o, landed) - p * (o.residual_value_pct or 0.0) + running + idle


def _quoted_interest(project, o, landed: float) -> float:
    """The interest of a financed node's annuity (A = F·i / (1 − (1+i)^−n), i = annual rate / 12) on the
    instalments paid from the month after delivery to the horizon's last month."""
    fin = o.financing or project.financing
    if fin is None or not fin.annual_rate:
        return 0.0
    i, n = fin.annual_rate / 12, fin.months
    balance = landed * (1 - fin.down_payment_pct)
    pay = balance * i / (1 - (1 + i) ** -n)
    first = min(month_of_day(project, o.lead_time_days), project.horizon_months - 1) + 1
    paid = 0.0
    for _k in range(min(n, max(0, project.horizon_months - first))):
        paid += balance * i
        balance -= pay - balance * i
    return paid


def brute_force_tco(project, offers, hours) -> float:
    """Enumerate every shape and start of every workload; cost capacity exactly; return the least TCO."""
    grid = Grid.of(project)
    offer_by_id = {o.id: o for o in offers}
    per_w = [_brute_force_choices(project, grid, w, offer_by_id, hours) for w in project.workloads]
    best = math.inf
    data = {w.name: costs.job_data(w) for w in project.workloads}  # TB from the sizing (not priced there)
    if project.staff is not None and [str(m) for m in project.staff.modes] != ["buy"]:
        raise NotImplementedError("the brute force prices staff of bought nodes only")
    for combo in itertools.product(*per_w):
        total = _brute_force_combo_cost(project, grid, offer_by_id, combo, data)
        if total < best:
            best = total
    if project.budget is not None and best > project.budget:
        return math.inf
    return best


def _brute_force_choices(project, grid, w, offer_by_id, hours) -> list[tuple]:
    """Every (offer, nodes, hours, start period, wall days) the workload ``w`` may run as."""
    choices = []
    for (wn, oid, n), h in hours.items():
        if wn != w.name:
            continue
        o = offer_by_id[oid]
        if o.mode not in project.allowed_modes:
            continue
        wall_days = costs.wall_hours(o, h) / 24.0
        starts, _ = allowed_starts(project, grid, w, o, wall_days)
        for s in starts:
            choices.append((o, n, h, s, wall_days))
    return choices


def _brute_force_combo_cost(project, grid, offer_by_id, combo, data) -> float:
    """The TCO of one choice per workload: the jobs' own flows and data costs, each offer's capacity,
    costed exactly, its fixed charge once and the staff of the bought nodes; infinite when an offer's
    max_nodes is exceeded. ``data``: each workload's TB (from the sizing, not priced there)."""
    total = 0.0
    usage: dict[tuple[str, int], int] = {}
    intervals: dict[str, list[tuple[float, float, int]]] = {}
    for w, (o, n, h, s, wall_days) in zip(project.workloads, combo, strict=True):
        total += quoted_job_cost(project, o, n, h)
        begin = grid.day_of_period(s)
        total += quoted_data_cost(project, o, data[w.name], begin, begin + wall_days)
        for t in grid.busy_periods(s, wall_days):
            usage[(o.id, t)] = usage.get((o.id, t), 0) + n
        intervals.setdefault(o.id, []).append((grid.day_of_period(s), grid.day_of_period(s) + wall_days, n))
    bought: dict[str, int] = {}
    for oid in {k[0] for k in usage}:
        o = offer_by_id[oid]
        per_t = {t: u for (x, t), u in usage.items() if x == oid}
        capacity = _brute_force_capacity_cost(project, grid, o, per_t, intervals[oid])
        if capacity is None:
            return math.inf
        total += capacity
        if o.mode == "buy":
            bought[oid] = max(per_t.values())
    total += sum(offer_by_id[oid].fixed_cost or 0.0 for oid in {o.id for o, *_rest in combo})  # once per offer used
    return total + quoted_staff_cost(project, offer_by_id, bought)


def _brute_force_capacity_cost(project, grid, o, per_t, jobs) -> float | None:
    """What the capacity of offer ``o`` costs for these jobs (``per_t``: nodes busy per period; ``jobs``:
    (start day, end day, nodes)); None when more than its max_nodes would run at once."""
    if o.mode == "buy":
        nodes = max(per_t.values())
        if nodes > o.max_nodes:
            return None
        # the servers and their fabric, from the quote
        return nodes * (quoted_purchase_cost(project, o, nodes) + (o.network_per_node or 0.0))
    if not o.contracted:
        return None if max(per_t.values()) > o.max_nodes else 0.0
    # contracts as signed: each begins on a contract day at or after delivery and runs whole months from there
    length_cost = (
        quoted_length_cost(o)
        if o.mode != "rent" or o.term_prices
        else (lambda n: n * o.price_per_node_month + o.setup_fee if n >= o.min_term else math.inf)
    )
    return contract_days_min_cost(
        jobs, contract_days(project, o), project.horizon_months, length_cost, o.max_nodes, project
    )


MONTH = 365 / 12  # the mean month: only which lattices to offer compares phases with it


def contract_days(project, o) -> list[float]:
    """The days a contract of ``o`` may begin, from the rule as documented (not from the solver): the lattices of
    months through the first planning-period boundary at or after delivery and the first one at or after each job's
    release (not before delivery), leaving out a day less than one period after a lattice already taken (modulo a
    month), at most six, earliest first; a contract begins on one of their month boundaries,
    not before delivery, and pays its first month within the horizon."""
    P = project.period_days
    first = [
        math.ceil(max(o.lead_time_days, r) / P - 1e-9) * P
        for r in (0, *sorted({w.earliest_start_days for w in project.workloads}))
    ]
    phases: list[float] = []
    for d in first:
        ph = phase_of_day(project, d)
        if all((ph - q) % MONTH >= P - 1e-6 for q in phases):  # none begins less than a period before it
            phases.append(ph)
        if len(phases) == 6:
            break
    return sorted(
        anniversary(project, ph, m)
        for ph in phases
        for m in range(project.horizon_months)
        if anniversary(project, ph, m) >= o.lead_time_days - 1e-6
    )


def contract_days_min_cost(jobs, days: list[float], n_months: int, length_cost, cap: int, project) -> float:
    """Cheapest contracts holding every job's nodes over its days (``jobs``: (start day, end day, nodes)), each
    beginning on one of ``days`` and lasting whole months from there, at most ``cap`` under contract at once,
    every month paid within the ``n_months`` of the horizon (a contract that begins in project month m lasts at
    most n_months − m months). By dynamic programming over the event days (contract days and job edges); the
    state is the multiset of begin days of the contracts running, so a contract is priced once it ends."""
    events = sorted({*days, *(a for a, _b, _n in jobs), *(b for _a, b, _n in jobs)})
    events = [e for i, e in enumerate(events) if i == 0 or e - events[i - 1] > 1e-6]
    starts = set(days)

    def need(lo: float, hi: float) -> int:
        probe = [lo] + [a for a, _b, _n in jobs if lo < a < hi]
        return max(sum(n for a, b, n in jobs if a <= t + 1e-9 < b) for t in probe)

    def last_month(begin: float) -> int:  # the most months a contract that begins then may run
        return n_months - month_of_day(project, begin)

    @cache
    def months_to(begin: float, day: float) -> int:  # the fewest contract months from ``begin`` reaching ``day``
        ph, m, k = phase_of_day(project, begin), month_of_day(project, begin), 0
        while anniversary(project, ph, m + k) < day - 1e-6:
            k += 1
        return k

    @cache
    def ends_at(begin: float, day: float) -> int:  # k ≥ 1 when a contract from ``begin`` ends its k-th month on ``day``
        k = months_to(begin, day)
        ph, m = phase_of_day(project, begin), month_of_day(project, begin)
        return k if k >= 1 and abs(anniversary(project, ph, m + k) - day) < 1e-6 else 0

    @cache
    def best(i: int, active: tuple[float, ...]) -> float:
        t = events[i]
        closable = [(s, ends_at(s, t)) for s in sorted(set(active))]
        closable = [(s, k) for s, k in closable if k >= 1]
        if i == len(events) - 1:  # the rest end here, where a month of theirs ends, or run to the horizon's last month
            aligned = dict(closable)
            return sum(
                min(length_cost(last_month(s)), length_cost(aligned.get(s, 0)) if s in aligned else math.inf)
                for s in active
            )
        result = math.inf
        counts = [active.count(s) for s, _k in closable]
        for ends in itertools.product(*(range(c + 1) for c in counts)):
            paid = sum(length_cost(k) * e for (_s, k), e in zip(closable, ends, strict=True) if e)
            if paid == math.inf:
                continue
            kept = list(active)
            for (s, _k), e in zip(closable, ends, strict=True):
                for _ in range(e):
                    kept.remove(s)
            if any(k > last_month(s) for s, k in ((s, months_to(s, events[i + 1])) for s in kept)):
                continue  # a contract still running would be paid past the horizon
            want = need(t, events[i + 1])
            new_max = cap - len(kept) if t in starts else 0
            for new in range(max(0, want - len(kept)), new_max + 1):
                result = min(result, paid + best(i + 1, tuple(sorted(kept + [t] * new))))
        return result

    return best(0, ())


# --- small valid inputs ---------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(
    p for p in (ROOT / "examples").glob("*.yaml") if not p.stem.endswith("-offers")
)  # workloads, not their quote files


def offer(**kw) -> Offer:
    """A valid offer of ``mode`` with plausible defaults; keyword arguments override."""
    mode = kw.get("mode", "cloud")
    base = dict(
        id=f"test-{mode}",
        vendor="Test Vendor",
        mode=mode,
        region="us-east",
        gpu="H100-SXM-80GB",
        gpus_per_node=8,
        intra_node="nvswitch",
        inter_node="ib-ndr",
        inter_node_rails=8,
        ram_gb=2048,
        nvme_tb=30,
        cpu_cores=112,
        max_nodes=8,
        lead_time_days=0,
        source="test fixture",
        quoted_on="2026-11-01",
    )
    if mode == "buy":
        base.update(
            price_per_node=250_000,
            power_kw_per_node=10.2,
            residual_value_pct=0.3,
            maintenance_pct_per_year=0.05,
            colocation_per_node_month=1300,
        )
    elif mode == "rent":
        base.update(price_per_node_month=14_000, setup_fee_per_node=0, min_term_months=1)
    else:
        base.update(price_per_node_hour=30.0)
    base.update(kw)
    return Offer.model_validate(base)


def project(workloads: list[dict], **kw) -> Project:
    # deadline_confidence 0.5: the hand-worked deadlines of the tests are at the hours they give (the band's
    # median, the estimate itself); tests/test_confidence.py holds deadlines at higher confidences
    base = dict(
        name="test project",
        start_date=dt.date(2027, 1, 1),
        horizon_months=12,
        period_days=7,
        workloads=workloads,
        deadline_confidence=0.5,
    )
    base.update(kw)
    return Project.model_validate(base)


def workload(**kw) -> dict:
    base = dict(name="job", model="llama-2-7b", method="full", tokens_b=1.0, deadline_days=60)
    base.update(kw)
    return base


def windowed_jobs(
    rng,
    n_workloads: int,
    n_offers: int,
    *,
    window: tuple[int, int],
    max_nodes: list[int],
    base_days: tuple[int, int],
    id_sep: str = "",
):
    """Random full fine-tunes of llama-2-7b with release days in 0..200 and a window of ``window`` days,
    each able to run on 1 or 2 nodes of ``n_offers`` capped buy / rent / cloud offers (in turn), with
    hours drawn per (workload, offer): (workloads, offers, hours) for ``fixed_sizings``."""
    workloads = []
    for k in range(n_workloads):
        e = rng.randint(0, 200)
        workloads.append(
            dict(
                name=f"w{k}",
                model="llama-2-7b",
                method="full",
                tokens_b=1,
                earliest_start_days=e,
                deadline_days=e + rng.randint(*window),
            )
        )
    offers = []
    for k in range(n_offers):
        mode = ("buy", "rent", "cloud")[k % 3]
        kw = dict(mode=mode, id=f"o{id_sep}{k}", max_nodes=rng.choice(max_nodes))
        if mode == "buy":
            kw.update(price_per_node=rng.randint(40, 90) * 1000)
        elif mode == "rent":
            kw.update(price_per_node_month=rng.randint(5, 15) * 1000, min_term_months=rng.choice([1, 2, 3]))
        else:
            kw.update(price_per_node_hour=rng.randint(15, 40))
        offers.append(offer(**kw))
    hours = {}
    for w in workloads:
        for o in offers:
            base = rng.randint(*base_days) * 24
            for n in (1, 2):
                hours[(w["name"], o.id, n)] = base / n / rng.choice([0.85, 0.95])
    return workloads, offers, hours


GOOD_ROW = {
    "id": "v-8xh100",
    "vendor": "V",
    "mode": "rent",
    "region": "us-east",
    "gpu": "H100",
    "gpus_per_node": 8,
    "intra_node": "nvswitch",
    "inter_node": "ib-ndr",
    "inter_node_rails": 8,
    "ram_gb": 2048,
    "nvme_tb": 30,
    "cpu_cores": 112,
    "network_line": "standard",
    "max_nodes": 4,
    "lead_time_days": 7,
    "price_per_node_month": 15000,
    "setup_fee_per_node": 500,
    "min_term_months": 1,
    "source": "quote 1",
    "quoted_on": "2026-11-01",
}


def write_csv(path, rows, delimiter=",", bom=False):
    cols = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="", encoding="utf-8-sig" if bom else "utf-8") as fh:
        w = csv.DictWriter(fh, cols, delimiter=delimiter)
        w.writeheader()
        w.writerows(rows)
    return path


# --- analysis (procure analyze) -------------------------------------------------------------------
# The hand-worked case of test_analysis.py: one 90-day job (2,160 h on one node), due day 120, a
# 12-month horizon, electricity 0, no colocation or maintenance (the arithmetic is in that module).

HOURS = 2160.0


def _analysis_wl(name="job", deadline=120, earliest=0):
    return dict(
        name=name, model="llama-2-7b", method="full", tokens_b=1, deadline_days=deadline, earliest_start_days=earliest
    )


def analysis_case(analysis: dict | None = None, lead_b: int = 0, extra: list | None = None):
    kw = dict(electricity_price_per_kwh=0)
    if analysis is not None:
        kw["analysis"] = analysis
    p = project([_analysis_wl()], **kw)
    offers = [
        offer(mode="cloud", id="c", price_per_node_hour=20),
        offer(mode="cloud", id="d", price_per_node_hour=25),
        offer(
            mode="buy",
            id="b",
            price_per_node=100_000,
            residual_value_pct=0.5,
            maintenance_pct_per_year=0,
            colocation_per_node_month=0,
            lead_time_days=lead_b,
        ),
        offer(mode="rent", id="r", price_per_node_month=20_000),
        *(extra or []),
    ]
    hours = {("job", o.id, 1): HOURS for o in offers}
    return p, offers, hours


class TableResizer:
    """The fixed hours as a resizer that can travel to a worker process (a closure cannot)."""

    def __init__(self, hours):
        self.hours = dict(hours)

    def __call__(self, workload, offer, nodes):
        h = self.hours.get((workload.name, offer.id, nodes))
        return (
            None
            if h is None
            else FixedCandidate(workload.name, offer.id, offer.gpu, nodes, nodes * offer.gpus_per_node, h)
        )


def analysis_run(p, offers, hours, **kw):
    """``procure.analysis.analyze`` on fixed hours, in this process unless ``workers`` says otherwise."""
    from procure.analysis import analyze

    sizings, _resize = fixed_sizings(p, offers, hours)
    kw.setdefault("workers", 1)
    kw.setdefault("break_even", False)
    kw.setdefault("sensitivity", False)
    return analyze(p, offers, sizings=sizings, resize=TableResizer(hours), **kw)


UNCERTAIN = {
    "uncertainty": {
        "price_cloud": {"dist": "triangular", "low": 0.8, "mode": 1.0, "high": 1.4},
        "tokens": {"dist": "normal", "mean": 1.0, "sd": 0.05, "low": 0.9, "high": 1.1},
    },
    "seed": 11,
}


CATALOG = """offers:
  - {{id: gpu-cloud, vendor: Test, mode: cloud, region: us-east, gpu: H100-SXM-80GB, gpus_per_node: 8, intra_node: nvswitch,
     inter_node: ib-ndr, inter_node_rails: 8, ram_gb: 2048, nvme_tb: 30, cpu_cores: 112, max_nodes: 4,
     price_per_node_hour: {price}, source: test quote, quoted_on: 2026-11-01}}
"""
WORKLOAD = """name: negotiation
start_date: 2027-01-04
horizon_months: 12
offers: [{catalog}]
workloads:
  - {{name: ft, model: llama-2-7b, method: full, tokens_b: 2, deadline_days: 30}}
"""


# --- the command line ------------------------------------------------------------------------------


def cli(*args):
    """Run the command line through typer's CliRunner; a traceback or an exception other than the exit fails the test."""
    from typer.testing import CliRunner

    from procure.cli import app

    res = CliRunner().invoke(app, [str(a) for a in args])
    assert "Traceback" not in res.output
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res


# --- LibreOffice, recalculating ---------------------------------------------------------------------

#: LibreOffice keeps the values cached in an .xlsx unless its profile says to recalculate on load: 0 = always
#: (org.openoffice.Office.Calc/Formula/Load, OOXMLRecalcMode and ODFRecalcMode; 1 = never, 2 = ask)
RECALC_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" \
xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">\
<value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse">\
<value>0</value></prop></item>
</oor:items>
"""


def recalculating_profile(folder: Path) -> str:
    """A fresh LibreOffice user profile in ``folder`` that recalculates every formula of a file it opens, as the
    ``-env:UserInstallation`` URI soffice takes."""
    user = Path(folder) / "user"
    user.mkdir(parents=True, exist_ok=True)
    (user / "registrymodifications.xcu").write_text(RECALC_PROFILE, encoding="utf-8")
    return Path(folder).as_uri()


def recalculated(path: Path, folder: Path) -> Path:
    """``path`` opened by LibreOffice with a recalculating profile, every formula computed and saved again as
    xlsx under ``folder``; the new file's path."""
    import shutil
    import subprocess

    out = Path(folder) / "recalculated"
    subprocess.run(
        [
            shutil.which("soffice") or "soffice",
            f"-env:UserInstallation={recalculating_profile(Path(folder) / 'lo-profile')}",
            "--headless",
            "--calc",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(out),
            str(path),
        ],
        check=True,
        capture_output=True,
        timeout=240,
    )
    return out / Path(path).name


# --- brute force: what the organisation already has (owned, commitments, quotas, windows) -----------------


def holdings_min_cost(jobs, choices, owned, committed, quota, windows, period: int, horizon_days: float):
    """The least total over every (offer, nodes, start) of every job, from the documented rules (docs/quotes.md
    "What you already have"), not from the cost model:

    ``jobs``: [(name, release day, due day)]; ``choices[name]``: [(offer, nodes, wall days, job cost)] with the
    job's own cost (busy energy on owned nodes, 0 on a commitment, the cloud bill); ``owned``/``committed``:
    {offer: (nodes, from day, to day)} — the only capacity of those offers (a job runs inside the window);
    ``quota``: (max GPUs, {offer: GPUs per node}) over the matched offers, owned and committed nodes counting
    in their whole window, cloud nodes while busy; ``windows``: {offer: (from day, until day)} for the rest.
    Starts lie on multiples of ``period``. Returns inf when no combination is feasible."""
    per_job = []
    for name, release, due in jobs:
        opts = []
        for oid, n, wall, cost in choices[name]:
            lo, hi = release, due
            if oid in owned or oid in committed:
                _n, a, b = (owned | committed)[oid]
                lo, hi = max(lo, a), min(hi, b)
            if oid in windows:
                lo, hi = max(lo, windows[oid][0]), min(hi, windows[oid][1])
            s = math.ceil(lo / period - 1e-9) * period
            while s + wall <= hi + 1e-9 and s + wall <= horizon_days + 1e-9:
                opts.append((oid, n, float(s), s + wall, cost))
                s += period
        per_job.append(opts)
    max_gpus, gpn = quota
    best = math.inf
    for combo in itertools.product(*per_job):
        points = sorted({c[2] for c in combo} | {a for _n, a, _b in (owned | committed).values()})
        ok = True
        for t in points:
            busy = [c for c in combo if c[2] <= t < c[3]]
            for oid, (cap, _a, _b) in (owned | committed).items():
                if sum(c[1] for c in busy if c[0] == oid) > cap:
                    ok = False
            held = sum(cap * gpn[oid] for oid, (cap, a, b) in (owned | committed).items() if oid in gpn and a <= t < b)
            held += sum(c[1] * gpn[c[0]] for c in busy if c[0] in gpn and c[0] not in owned and c[0] not in committed)
            if held > max_gpus:
                ok = False
        if ok:
            best = min(best, sum(c[4] for c in combo))
    return best
