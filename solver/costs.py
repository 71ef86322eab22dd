"""The cost model: every cost formula of procure, written once.

The optimizer's objective coefficients, the independent verifier, the reports and the tests all call
these functions. Money is in the project currency; cash flows are placed in 0-based project months
(month m covers days [m·D, (m+1)·D), D = 365/12, see ``models.units``).

Formulas (per node unless stated; H = horizon end in days = horizon_months·D):

buy (ordered on day 0, delivered and paid on day ``lead_time_days`` = ℓ, owned to the horizon end):
    capex            = price_per_node                                        (month of delivery)
    residual value   = −price_per_node · residual_value_pct                  (last month: resale/book value)
    maintenance      = price_per_node · maintenance_pct_per_year · (H − ℓ)/365   (spread over owned days)
    colocation       = colocation_per_node_month · (H − ℓ)/D                 (spread over owned days)
    idle energy      = kW · IDLE_POWER_FRACTION · 24·(H − ℓ) · PUE · price_per_kWh   (spread over owned days)
  and per job on bought nodes, the draw above idle while it trains:
    busy energy      = nodes · kW · (BUSY_POWER_FRACTION − IDLE_POWER_FRACTION) · hours · PUE · price_per_kWh
rent (contracts of whole project months; bare-metal prices include power and hosting):
    rent             = price_per_node_month per node-month rented            (that month)
    setup            = setup_fee_per_node per node at the contract's first month
cloud (per node-hour, no commitment):
    cloud            = nodes · hours · (1 + spot_overhead_pct) · price_per_node_hour   (spread over the run)

NPV: monthly cash flows c_m discounted at the monthly rate r_m = (1 + r)^(1/12) − 1 with end-of-month
timing, NPV = Σ_m c_m / (1 + r_m)^(m+1) — exactly Excel's ``NPV(r_m, c_0, …, c_{M−1})``.

Power fractions: Epoch AI's cost model (cost_analysis_standalone.py) takes average training draw as
0.75 × the server's maximum power. Idle draw of an 8-GPU server (GPUs ~60–90 W each idle, CPUs, fans,
NICs) is taken as 0.15 × maximum power — an assumption stated here, shown in the report, and
overridable in code; set it to 0 if idle servers are powered off.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from procure.models.offer import Offer
from procure.models.project import Project
from procure.models.units import DAYS_PER_MONTH, DAYS_PER_YEAR, HOURS_PER_DAY

CATEGORIES: tuple[str, ...] = ("capex", "residual_value", "maintenance", "colocation", "energy", "rent", "setup", "cloud")
BUSY_POWER_FRACTION = 0.75
IDLE_POWER_FRACTION = 0.15

Flows = dict[str, dict[int, float]]  # category -> month -> amount


def horizon_end_day(project: Project) -> float:
    """H: the horizon end in (fractional) days."""
    return project.horizon_months * DAYS_PER_MONTH


def month_of(day: float) -> int:
    return int(math.floor(day / DAYS_PER_MONTH + 1e-9))


def spread(amount: float, start_day: float, end_day: float, n_months: int) -> dict[int, float]:
    """Split ``amount`` over months in proportion to the days of [start_day, end_day) in each."""
    out: dict[int, float] = {}
    if end_day <= start_day:
        out[min(month_of(start_day), n_months - 1)] = amount
        return out
    length = end_day - start_day
    m = month_of(start_day)
    while True:
        lo = max(start_day, m * DAYS_PER_MONTH)
        hi = min(end_day, (m + 1) * DAYS_PER_MONTH)
        if hi > lo:
            key = min(m, n_months - 1)
            out[key] = out.get(key, 0.0) + amount * (hi - lo) / length
        if (m + 1) * DAYS_PER_MONTH >= end_day:
            break
        m += 1
    return out


def wall_hours(offer: Offer, hours: float) -> float:
    """Hours a job occupies (and pays for) its nodes: spot capacity loses ``spot_overhead_pct`` to interruptions."""
    return hours * (1.0 + offer.hour_overhead)


# --- buy ---------------------------------------------------------------------------------------

def owned_days(offer: Offer, project: Project) -> float:
    return max(0.0, horizon_end_day(project) - offer.lead_time_days)


def purchase_flows(offer: Offer, project: Project) -> Flows:
    """Cash flows of owning ONE purchased node of ``offer`` over the horizon (without busy energy)."""
    if offer.mode != "buy":
        raise ValueError(f"purchase_flows needs a buy offer, got {offer.mode}")
    n_months = project.horizon_months
    lead = float(offer.lead_time_days)
    end = horizon_end_day(project)
    days = owned_days(offer, project)
    price = offer.price_per_node
    flows: Flows = {c: {} for c in CATEGORIES}
    flows["capex"][min(month_of(lead), n_months - 1)] = price
    flows["residual_value"][n_months - 1] = -price * offer.residual
    flows["maintenance"] = spread(price * offer.maintenance * days / DAYS_PER_YEAR, lead, end, n_months)
    flows["colocation"] = spread(offer.colocation * days / DAYS_PER_MONTH, lead, end, n_months)
    flows["energy"] = spread(idle_energy_cost(offer, project, days * HOURS_PER_DAY), lead, end, n_months)
    return flows


def energy_kwh(offer: Offer, project: Project, hours: float, power_fraction: float) -> float:
    """Facility energy in kWh: node kW × fraction × hours × PUE."""
    return offer.power_kw_per_node * power_fraction * hours * project.pue


def idle_energy_cost(offer: Offer, project: Project, hours: float) -> float:
    return energy_kwh(offer, project, hours, IDLE_POWER_FRACTION) * project.electricity_price_per_kwh


def busy_energy_cost(offer: Offer, project: Project, nodes: int, hours: float) -> float:
    """Energy drawn above idle by ``nodes`` bought nodes training for ``hours``."""
    return nodes * energy_kwh(offer, project, hours, BUSY_POWER_FRACTION - IDLE_POWER_FRACTION) * project.electricity_price_per_kwh


# --- rent --------------------------------------------------------------------------------------

def rental_month_cost(offer: Offer) -> float:
    return offer.price_per_node_month


def rental_setup_cost(offer: Offer) -> float:
    return offer.setup_fee


def rental_profile_coefficients(offer: Offer, project: Project, discounted: bool) -> list[tuple[float, float]]:
    """Rental cost as coefficients on the optimizer's cumulative contract counts, per month m = 0..M−1:
    (coefficient of S[m], coefficient of E[m]), where S[m] counts node-contracts started in months ≤ m
    and E[m] those ended before month m (see the MILP's docstring).

    Rented in month m: R[m] = S[m] − E[m] nodes, each paying p = ``rental_month_cost``; started in
    month m: S[m] − S[m−1] nodes, each paying f = ``rental_setup_cost`` once (``rental_flows``). With
    discount factors df[m] (all 1 when not ``discounted``) and df[M] = 0, S[−1] = 0:

        Σ_m p·df[m]·(S[m] − E[m]) + Σ_m f·df[m]·(S[m] − S[m−1])
          = Σ_m S[m]·(p·df[m] + f·(df[m] − df[m+1])) − Σ_m E[m]·p·df[m]

    Undiscounted, the setup term sums to f·S[M−1]: every contract started in the horizon pays once.
    """
    p, f, n = rental_month_cost(offer), rental_setup_cost(offer), project.horizon_months
    df = discount_factors(project) if discounted else [1.0] * n
    out = []
    for m in range(n):
        nxt = df[m + 1] if m + 1 < n else 0.0
        out.append((p * df[m] + f * (df[m] - nxt), -p * df[m]))
    return out


# --- jobs --------------------------------------------------------------------------------------

def job_end_day(offer: Offer, start_day: float, hours: float) -> float:
    return start_day + wall_hours(offer, hours) / HOURS_PER_DAY


def job_flows(offer: Offer, project: Project, nodes: int, hours: float, start_day: float) -> Flows:
    """Cash flows caused by one job itself: busy energy on bought nodes, or the cloud bill."""
    flows: Flows = {}
    end = job_end_day(offer, start_day, hours)
    n_months = project.horizon_months
    if offer.mode == "buy":
        flows["energy"] = spread(busy_energy_cost(offer, project, nodes, hours), start_day, end, n_months)
    elif offer.mode == "cloud":
        flows["cloud"] = spread(cloud_cost(offer, nodes, hours), start_day, end, n_months)
    return flows


def cloud_cost(offer: Offer, nodes: int, hours: float) -> float:
    return nodes * wall_hours(offer, hours) * offer.price_per_node_hour


# --- totals ------------------------------------------------------------------------------------

def monthly_discount_rate(project: Project) -> float:
    return (1.0 + project.discount_rate) ** (1.0 / 12.0) - 1.0


def discount_factors(project: Project) -> list[float]:
    r = monthly_discount_rate(project)
    return [1.0 / (1.0 + r) ** (m + 1) for m in range(project.horizon_months)]


def scale(flows: Mapping[str, Mapping[int, float]], k: float) -> Flows:
    return {c: {m: v * k for m, v in per.items()} for c, per in flows.items()}


def total(flows: Mapping[str, Mapping[int, float]]) -> float:
    return sum(v for per in flows.values() for v in per.values())


def present_value(flows: Mapping[str, Mapping[int, float]], project: Project) -> float:
    df = discount_factors(project)
    return sum(v * df[m] for per in flows.values() for m, v in per.items())


def add_flows(parts: Iterable[Mapping[str, Mapping[int, float]]]) -> Flows:
    out: dict[str, dict[int, float]] = {c: defaultdict(float) for c in CATEGORIES}
    for part in parts:
        for c, per in part.items():
            for m, v in per.items():
                out[c][m] += v
    return {c: dict(per) for c, per in out.items()}


def by_category(flows: Mapping[str, Mapping[int, float]]) -> dict[str, float]:
    return {c: sum(flows.get(c, {}).values()) for c in CATEGORIES}


@dataclass(frozen=True)
class RentalContract:
    offer_id: str
    nodes: int
    start_month: int
    months: int


def rental_flows(offer: Offer, contract: RentalContract) -> Flows:
    flows: Flows = {"rent": {}, "setup": {}}
    for m in range(contract.start_month, contract.start_month + contract.months):
        flows["rent"][m] = contract.nodes * rental_month_cost(offer)
    flows["setup"][contract.start_month] = contract.nodes * rental_setup_cost(offer)
    return flows


# --- what the budgets cap (budget_tco, budget_cash, budget_capex) -----------------------------------


def cumulative_by_month(flows: Flows, n_months: int) -> list[float]:
    """Cash out spent by the end of each project month: Σ over categories and months ≤ m."""
    out, acc = [], 0.0
    for m in range(n_months):
        acc += sum(per.get(m, 0.0) for per in flows.values())
        out.append(acc)
    return out


def peak_cash_out(flows: Flows, n_months: int) -> float:
    """The most money spent so far at any month end (0 when nothing is spent): what ``budget_cash`` caps.
    The residual value counts in the month it is credited (the horizon end), so it lowers only that month."""
    return max([0.0, *cumulative_by_month(flows, n_months)])


def capex(flows: Flows) -> float:
    """Purchase prices paid: what ``budget_capex`` caps."""
    return sum(flows.get("capex", {}).values())
