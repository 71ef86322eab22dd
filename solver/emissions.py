"""Operational emissions of a plan: the energy its servers draw (kWh) × the grid intensity of their region.

    tCO2e = Σ_offers costs.tco2e(kWh_offer, g_per_kWh(region))  = kWh × g / 10^6

The energy is defined once, in ``solver.costs`` (section "Carbon"), with the cost model's power fractions and the
project's PUE; the carbon price (category ``carbon``) charges exactly these tonnes:
- buy: exactly the energy the cost model prices — idle draw over the owned days of every node bought
  (``costs.purchase_kwh``) plus each job's draw above idle (``costs.job_kwh``); so kWh × electricity price is the
  plan's energy cost category.
- rent, reserved cloud: the same two terms over each contract's months (``costs.contract_kwh``: a held server
  idles between jobs), with the node's power ESTIMATED (below): the energy is in the price, not billed apart.
- on-demand and spot cloud: the job's wall-clock hours at BUSY_POWER_FRACTION (an instance exists only while it
  runs), with the estimated power.
Estimated node power (rent and cloud offers carry no ``power_kw_per_node``): GPUs × board power ÷
``GPU_SHARE_OF_SERVER_POWER`` (``costs.node_power_kw``); NVIDIA's DGX H100 datasheet gives 10.2 kW maximum for a
system of 8 × 700 W GPUs, so the GPUs are 5.6 / 10.2 = 0.549 of the server's maximum draw. Embodied emissions
(manufacture) are not counted: no source in procure's tables gives them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from procure.models.grid import intensity_of
from procure.models.offer import Offer
from procure.models.project import Project

from . import costs
from .costs import GPU_SHARE_OF_SERVER_POWER as GPU_SHARE_OF_SERVER_POWER  # re-exported
from .plan import Plan

MEASURED = "the cost model's energy (power_kw_per_node)"
ESTIMATED = "estimated: GPUs × board power ÷ 0.549 (DGX H100: 5.6 of 10.2 kW)"


def node_power_kw(offer: Offer) -> tuple[float, bool]:
    """(maximum draw of one node in kW, whether it is estimated): ``costs.node_power_kw``."""
    return costs.node_power_kw(offer)


@dataclass(frozen=True)
class OfferEmissions:
    offer_id: str
    mode: str
    region: str
    kwh: float
    g_per_kwh: float | None  # None: no figure for the region
    tco2e: float | None
    basis: str  # MEASURED or ESTIMATED
    source: str  # the intensity's source and year, or why there is none


@dataclass
class PlanEmissions:
    rows: list[OfferEmissions] = field(default_factory=list)

    @property
    def kwh(self) -> float:
        return sum(r.kwh for r in self.rows)

    @property
    def tco2e(self) -> float:
        """The emissions of the energy whose region has a figure (``kwh_unrated`` has none)."""
        return sum(r.tco2e or 0.0 for r in self.rows)

    @property
    def kwh_unrated(self) -> float:
        return sum(r.kwh for r in self.rows if r.tco2e is None)

    @property
    def estimated(self) -> bool:
        return any(r.basis == ESTIMATED and r.kwh for r in self.rows)


def offer_kwh(project: Project, offers: dict[str, Offer], plan: Plan) -> dict[str, float]:
    """Energy per offer of the plan, kWh (module docstring; the definitions are ``solver.costs``'s)."""
    out: dict[str, float] = {}

    def add(oid: str, kwh: float) -> None:
        out[oid] = out.get(oid, 0.0) + kwh

    for pur in plan.purchases:
        o = offers[pur.offer_id]
        add(o.id, pur.nodes * sum(costs.purchase_kwh(o, project).values()))
    for r in plan.rentals:
        o = offers[r.offer_id]
        add(o.id, sum(costs.contract_kwh(o, project, r.contract).values()))
    for d in plan.decisions:
        o = offers[d.offer_id]
        add(o.id, sum(costs.job_kwh(o, project, d.nodes, d.hours, d.start_day).values()))
    return out


def plan_emissions(project: Project, offers: dict[str, Offer], plan: Plan | None) -> PlanEmissions | None:
    """The plan's operational emissions per offer; None without a plan."""
    if plan is None:
        return None
    result = PlanEmissions()
    for oid, kwh in sorted(offer_kwh(project, offers, plan).items()):
        o = offers[oid]
        grid = intensity_of(o.region)
        basis = ESTIMATED if node_power_kw(o)[1] else MEASURED
        if grid is None:
            result.rows.append(
                OfferEmissions(oid, o.mode, o.region, kwh, None, None, basis, f"no grid intensity for {o.region}")
            )
            continue
        result.rows.append(
            OfferEmissions(
                oid,
                o.mode,
                o.region,
                kwh,
                grid.g_per_kwh,
                costs.tco2e(kwh, grid.g_per_kwh),
                basis,
                f"{grid.source} ({grid.year})",
            )
        )
    return result
