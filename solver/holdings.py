r"""What the organisation already has and may use (models.holdings): owned servers, signed commitments,
quotas and offer windows, as the options, the optimizer, the greedy plan and the verifier all read them.

Owned servers (``owned``) become an offer of their own, ``<offer>.owned`` (``.owned2``, … for more entries of
one offer; ``owned_offers``): the buy offer's shape with ``max_nodes`` the nodes owned, usable from ``from``
(its lead time) until ``until`` (its ``available_until``), without volume tiers, fixed charge, network,
financing or taxes. The optimizer holds exactly those nodes (b fixed); their running costs come from
costs.purchase_flows, which prices an owned offer without capex (costs.py, "owned servers").

Commitments (``commitments``) are contracts as signed (costs.RentalContract, ``committed``): the day the
commitment begins sets its month and phase (lattice.py). The optimizer holds them as constant capacity of their
offer (formulation.py, ``rented``), their payments are constants of the objective, and the plan lists them
with ``committed: true``.

Quotas: at most ``max_gpus`` GPUs in use at once across the offers a quota matches (every field given equals
the offer's). *In use* per mode:
    buy        every node held: bought nodes from delivery to the horizon end, owned nodes inside their window
    rent, reserved cloud
               every node under contract (commitments included), whether or not a job runs on it
    cloud      every node busy with a job (on-demand and spot capacity is released when a job ends)
The optimizer counts a cloud job in every planning period it touches (a period is the finest time it
has), the verifier on the job's exact days, so every optimized plan also passes the verifier's check.

Offer windows (``available_from`` / ``available_until``): a job on the offer starts on or after the first day
and ends by the last; no contract of it begins before the first day (``release_day``).
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Iterable, Mapping

from procure.models.calendar import add_months
from procure.models.holdings import Owned, Quota, months_before_start
from procure.models.offer import Offer
from procure.models.project import Project

from .costs import RentalContract, contract_at

OWNED_SUFFIX = ".owned"


def day_of(project: Project, date: dt.date) -> float:
    """The project day of a calendar date (day 0 is start_date)."""
    return float((date - project.start_date).days)


def window(project: Project, offer: Offer) -> tuple[float, float | None]:
    """The offer's window in project days: (first day it can be used, day every job must have ended by, or None)."""
    lo = day_of(project, offer.available_from) if offer.available_from else 0.0
    hi = day_of(project, offer.available_until) if offer.available_until else None
    return max(0.0, lo), hi


def commitments_of(project: Project, offer_id: str) -> list[RentalContract]:
    """The signed contracts of one offer, as the cost model prices them (``committed``)."""
    return [c for c in committed_contracts(project) if c.offer_id == offer_id]


def committed_contracts(project: Project) -> list[RentalContract]:
    """Every commitment as a contract: it begins on its start_date (or, signed before the project start, on its
    first payment day after it, with the months left) and runs its months, cut at the horizon end."""
    out = []
    for c in project.commitments:
        # one signed before the start: the months paid before it are behind it, the first one left begins on
        # its own payment day (models.holdings.months_before_start)
        behind = months_before_start(c.start_date, project.start_date)
        first = day_of(project, add_months(c.start_date, behind))
        contract = contract_at(c.offer, c.nodes, first, c.months - behind, project.calendar)
        months = min(c.months - behind, project.horizon_months - contract.start_month)
        out.append(
            RentalContract(
                c.offer,
                c.nodes,
                contract.start_month,
                months,
                c.months,
                contract.phase_days,
                True,
                c.price_per_node_month,
                cal=project.calendar,
            )
        )
    return out


def as_signed(project: Project, offers: Iterable[Offer]) -> Project:
    """The project with every commitment's rate stated (its offer's rate for the signed length where it gives
    none): a scenario that moves the offers' prices then leaves what was signed as it was."""
    from .costs import committed_term

    by_id = {o.id: o for o in offers}
    fixed = [
        c
        if c.price_per_node_month is not None or c.offer not in by_id
        else c.model_copy(update={"price_per_node_month": committed_term(by_id[c.offer], c.months).price})
        for c in project.commitments
    ]
    return project.model_copy(update={"commitments": fixed}) if fixed != list(project.commitments) else project


def release_day(project: Project, offer: Offer) -> float:
    """The first day a job may start on the offer: its lead time (or the first commitment's start, which needs
    no delivery), and never before the offer's window opens."""
    lead = float(offer.lead_time_days)
    starts = [c.start_day for c in commitments_of(project, offer.id)]
    if starts:
        lead = min(lead, min(starts))
    return max(lead, window(project, offer)[0])


def contract_from_day(project: Project, offer: Offer) -> float:
    """The first day a new contract of the offer may begin: its lead time, and not before its window."""
    return max(float(offer.lead_time_days), window(project, offer)[0])


# --- owned servers -------------------------------------------------------------------------------------


def owned_ids(project: Project) -> list[str]:
    """The offer id each ``owned`` entry gets, in order (``<offer>.owned``, ``<offer>.owned2``, …)."""
    seen: dict[str, int] = {}
    out = []
    for o in project.owned:
        seen[o.offer] = seen.get(o.offer, 0) + 1
        out.append(o.offer + OWNED_SUFFIX + (str(seen[o.offer]) if seen[o.offer] > 1 else ""))
    return out


def owned_entry(project: Project, offer_id: str) -> Owned | None:
    """The ``owned`` entry behind an owned offer id, or None for any other offer."""
    if OWNED_SUFFIX not in offer_id:
        return None
    for oid, entry in zip(owned_ids(project), project.owned, strict=True):
        if oid == offer_id:
            return entry
    return None


def owned_window(project: Project, offer_id: str) -> tuple[float, float] | None:
    """(first day, last day) the owned nodes are held, or None for an offer that is not owned."""
    e = owned_entry(project, offer_id)
    if e is None:
        return None
    end = float(project.horizon_days)
    hi = day_of(project, e.until) if e.until else end
    return (day_of(project, e.from_) if e.from_ else 0.0), min(hi, end)


def owned_offers(project: Project, offers: Iterable[Offer]) -> list[Offer]:
    """The offers of the owned servers (module docstring), one per ``owned`` entry."""
    by_id = {o.id: o for o in offers}
    out = []
    for oid, e in zip(owned_ids(project), project.owned, strict=True):
        base = by_id[e.offer]
        lo = int(day_of(project, e.from_)) if e.from_ else 0
        price = base.price_per_node if base.price_per_node is not None else base.buy_tiers[0][1]
        update = {
            "id": oid,
            "max_nodes": e.nodes,
            "lead_time_days": lo,
            "available_until": e.until,
            "available_from": None,
            "price_per_node": price,
            "volume_prices": None,
            "fixed_cost": None,
            "network_per_node": None,
            "financing": None,
            "import_duty_pct": None,
            "vat_pct": None,
            "residual_value_pct": None,
            "source": f"owned: {e.nodes} node(s) of {e.offer}",
        }
        out.append(Offer.model_validate({**base.model_dump(), **update}))
    return out


def with_owned(project: Project, offers: list[Offer]) -> list[Offer]:
    """``offers`` and the offers of the owned servers (once: already added ones are kept as they are)."""
    have = {o.id for o in offers}
    base = [o for o in offers if OWNED_SUFFIX not in o.id or o.id not in owned_ids(project)]
    return offers + [o for o in owned_offers(project, base) if o.id not in have]


# --- input checks --------------------------------------------------------------------------------------


def holding_problems(project: Project, offers: Mapping[str, Offer]) -> list[tuple[str, str]]:
    """(field, message) for every owned entry or commitment whose offer is missing or of the wrong kind."""
    bad = []
    for i, (oid, e) in enumerate(zip(owned_ids(project), project.owned, strict=True)):
        mine = offers.get(oid)
        if mine is not None and not mine.source.startswith("owned: "):
            bad.append(
                (f"owned[{i}]", f"the catalogs already have an offer {oid}, the id owned servers get: rename it")
            )
        o = offers.get(e.offer)
        if o is None:
            bad.append((f"owned[{i}].offer", f"no offer {e.offer!r} in the catalogs{_did_you_mean(e.offer, offers)}"))
        elif o.mode != "buy":
            bad.append((f"owned[{i}].offer", f"{e.offer} is a {o.mode} offer; owned servers name a buy offer"))
    for i, c in enumerate(project.commitments):
        o = offers.get(c.offer)
        if o is None:
            bad.append(
                (f"commitments[{i}].offer", f"no offer {c.offer!r} in the catalogs{_did_you_mean(c.offer, offers)}")
            )
        elif not o.contracted:
            bad.append(
                (
                    f"commitments[{i}].offer",
                    f"{c.offer} is a {o.mode} offer without a term; a commitment names a rent or reserved cloud offer",
                )
            )
    for i, path in enumerate(project.price_paths):  # a path that names no offer would price nothing, silently
        if path.offer is None:
            continue
        o = offers.get(path.offer)
        if o is None:
            bad.append(
                (
                    f"price_paths[{i}].offer",
                    f"no offer {path.offer!r} in the catalogs{_did_you_mean(path.offer, offers)}",
                )
            )
        elif o.mode != ("buy" if path.mode == "energy" else path.mode):
            bad.append(
                (
                    f"price_paths[{i}].mode",
                    f"{path.offer} is a {o.mode} offer; a {path.mode} path of it would price nothing: give mode "
                    f"{o.mode}" + (" (or energy, for its electricity)" if o.mode == "buy" else ""),
                )
            )
    return bad or _held_over_quota(project, offers)


def _did_you_mean(typed: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest known name, matched case-insensitively; empty when none is close."""
    names = {str(k).casefold(): str(k) for k in known}
    hits = difflib.get_close_matches(typed.casefold(), list(names), n=1, cutoff=0.6)
    return f" (did you mean {names[hits[0]]!r}?)" if hits else ""


def holding_warnings(project: Project, offers: Mapping[str, Offer]) -> list[tuple[str, str]]:
    """(field, message) for holdings that are valid but probably not what was meant: a quota whose vendor,
    region or GPU matches no offer (a typo would remove the cap without a word), and an owned server's
    residual value above its offer's price per node new."""
    from . import costs

    out = []
    gpus = {o.gpu for o in offers.values()}
    for i, path in enumerate(project.price_paths):
        if path.gpu is not None and path.gpu not in gpus:
            out.append(
                (
                    f"price_paths[{i}].gpu",
                    f"no offer quotes {path.gpu}{_did_you_mean(path.gpu, gpus)}: this path prices nothing",
                )
            )
    for i, q in enumerate(project.quotas):
        if any(matches(q, o) for o in offers.values()):
            continue
        for what, value, known in (
            ("vendor", q.vendor, {o.vendor for o in offers.values()}),
            ("region", q.region, {o.region for o in offers.values()} | {o.area for o in offers.values()}),
            ("gpu", q.gpu, {o.gpu for o in offers.values()}),
        ):
            if value is not None and not any(value.casefold() == k.casefold() for k in known):
                out.append(
                    (
                        f"quotas[{i}].{what}",
                        f"the quota {q.label} matches no offer: no offer has {what} {value!r}"
                        f"{_did_you_mean(value, known)}; as written it caps nothing",
                    )
                )
                break
        else:
            out.append((f"quotas[{i}]", f"the quota {q.label} matches no offer; as written it caps nothing"))
    for i, e in enumerate(project.owned):
        o = offers.get(e.offer)
        if o is None or e.residual_value is None or o.mode != "buy":
            continue
        price = costs.unit_price(o, project, 1)
        if price and e.residual_value > price:
            out.append(
                (
                    f"owned[{i}].residual_value",
                    f"{e.residual_value:,.0f} per node is {e.residual_value / price:.3g} × the price of a new node "
                    f"of {o.id} ({price:,.0f}); a resale above the price new is unlikely: residual_value is per "
                    "node, in the reporting currency",
                )
            )
    return out


def _held_over_quota(project: Project, offers: Mapping[str, Offer]) -> list[tuple[str, str]]:
    """(field, message) for each quota that the owned nodes and commitments alone exceed: no plan can keep it."""
    held: list[tuple[Offer, float, float, int]] = []
    for oid, e in zip(owned_ids(project), project.owned, strict=True):
        span = owned_window(project, oid)
        if span is not None:
            held.append((offers[e.offer], span[0], span[1], e.nodes))
    for c in committed_contracts(project):
        held.append((offers[c.offer_id], c.start_day, c.end_day, c.nodes))
    bad = []
    for i, q in enumerate(project.quotas):
        mine = [(b, e, n * o.gpus_per_node) for o, b, e, n in held if matches(q, o)]
        for t in sorted({b for b, _e, _g in mine}):
            use = sum(g for b, e, g in mine if b <= t + 1e-6 < e)
            if use > q.max_gpus:
                bad.append(
                    (
                        f"quotas[{i}]",
                        f"the owned servers and commitments alone hold {use} GPUs on day {t:g}, over the quota of "
                        f"{q.label}: raise max_gpus or leave them out",
                    )
                )
                break
    return bad


# --- quotas ----------------------------------------------------------------------------------------


def matches(q: Quota, offer: Offer) -> bool:
    """The quota covers the offer: every field it gives equals the offer's (``region`` may be an area: ``us``
    covers us-east and us-west)."""
    return (
        (q.vendor is None or q.vendor.casefold() == offer.vendor.casefold())
        and (q.region is None or q.region in (offer.region, offer.area))
        and (q.gpu is None or q.gpu == offer.gpu)
        and (q.mode is None or q.mode == offer.mode)
    )


def quotas_of(project: Project, offer: Offer) -> list[Quota]:
    return [q for q in project.quotas if matches(q, offer)]


def tightest_quota(project: Project, offer: Offer) -> Quota | None:
    """The matching quota of fewest GPUs, or None."""
    qs = quotas_of(project, offer)
    return min(qs, key=lambda q: q.max_gpus) if qs else None


def held_intervals(project: Project, offers: Mapping[str, Offer], plan) -> list[tuple[str, float, float, int]]:
    """(offer id, from day, to day, GPUs) in use per the module docstring, for every holding of ``plan``."""
    end = float(project.horizon_days)
    out = []
    for p in plan.purchases:
        o = offers[p.offer_id]
        span = owned_window(project, p.offer_id) or (float(o.lead_time_days), end)
        out.append((p.offer_id, span[0], span[1], p.nodes * o.gpus_per_node))
    for r in plan.rentals:
        o = offers[r.offer_id]
        out.append((r.offer_id, r.start_day, r.end_day, r.nodes * o.gpus_per_node))
    for a in plan.assignments:
        o = offers[a.offer_id]
        if o.mode == "cloud" and not o.contracted:
            out.append((a.offer_id, a.start_day, a.end_day, a.gpus))
    return out


def quota_problems(project: Project, offers: Mapping[str, Offer], plan) -> list[str]:
    """The verifier's ``quota`` rule: the GPUs in use at once on the offers of each quota, on exact days."""
    if not project.quotas:
        return []
    held = held_intervals(project, offers, plan)
    bad = []
    for q in project.quotas:
        mine = [(b, e, g) for oid, b, e, g in held if matches(q, offers[oid])]
        points = sorted({b for b, _e, _g in mine})
        for t in points:
            use = sum(g for b, e, g in mine if b <= t + 1e-6 < e)
            if use > q.max_gpus:
                bad.append(f"quota: {use} GPUs in use on day {t:.1f} under the quota {q.label}")
                break
    return bad


def commitment_problems(project: Project, plan) -> list[str]:
    """The verifier's ``commitment`` rule: the plan holds every signed commitment exactly, and nothing else
    marked committed."""
    want = sorted(
        (c.offer_id, c.nodes, c.start_month, c.months, c.rate or 0.0, c.phase_days)
        for c in committed_contracts(project)
    )
    got = sorted(
        (r.offer_id, r.nodes, r.start_month, r.months, r.rate or 0.0, r.phase_days) for r in plan.rentals if r.committed
    )
    if [w[:5] for w in want] != [g[:5] for g in got] or any(
        abs(w[5] - g[5]) > 1e-6 for w, g in zip(want, got, strict=True)
    ):
        return [f"commitment: the plan holds committed contracts {got} but the project signed {want}"]
    return []


def owned_problems(project: Project, plan) -> list[str]:
    """The verifier's ``owned`` rule: every owned offer is held with exactly its nodes."""
    held = {p.offer_id: p.nodes for p in plan.purchases}
    return [
        f"owned: the plan holds {held.get(oid, 0)} node(s) of {oid}; {e.nodes} are owned"
        for oid, e in zip(owned_ids(project), project.owned, strict=True)
        if held.get(oid, 0) != e.nodes
    ]
