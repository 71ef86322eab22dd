"""Cost lines of what the organisation already has (solver.holdings): owned servers' running costs, marked
committed. The Costs sheet, the Cash flow sheet and the JSON ``line_items`` read them like any other line; each
amount is the cost model's (costs.purchase_flows prices an owned offer without capex)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from procure.solver import costs

from .i18n import EN, Lang

if TYPE_CHECKING:
    from procure.solver.result import Result

    from .tables import LineItem


def owned_items(result: Result, pur, tr: Lang = EN) -> list[LineItem]:
    """Maintenance, colocation, idle energy and (if given) the residual value of owned nodes over their window."""
    from .tables import LineItem, _fractions, _fx, _quoted

    p, o = result.project, result.offers[pur.offer_id]
    terms = costs.owned_terms(o, p)
    if terms is None:
        raise ValueError(f"{o.id} is not an owned offer")
    lo, hi, residual = terms
    n, days, n_months = pur.nodes, max(0.0, hi - lo), p.horizon_months
    flows = costs.scale(costs.purchase_flows(o, p, n), n)
    tot = {c: costs.total({c: flows.get(c, {})}) for c in flows}
    spread1 = costs.spread(1.0, lo, hi, n_months)
    q, fx, k = _quoted(o, p), _fx(o, p), f"own:{o.id}"
    price = costs.unit_price(o, p, 1) / costs.fx(o, p)  # the quoted price the maintenance rate applies to
    mark = tr(" (owned, committed)")
    items = [
        LineItem(
            f"{k}:maintenance",
            "maintenance",
            tr("maintenance over the owned days") + mark,
            o.id,
            n,
            days,
            tr("owned days"),
            price,
            tr("{cur}/node", cur=q),
            o.maintenance,
            tr("of price per year"),
            tot.get("maintenance", 0.0),
            tr("nodes × price × maintenance %/yr × owned days / 365"),
            "{D}*{G}" + fx + "*{I}*{E}/{dpy}",
            _fractions(flows.get("maintenance", {}), spread1),
        ),
        LineItem(
            f"{k}:colocation",
            "colocation",
            tr("colocation over the owned days") + mark,
            o.id,
            n,
            days,
            tr("owned days"),
            o.colocation,
            tr("{cur}/node-month", cur=q),
            None,
            "",
            tot.get("colocation", 0.0),
            tr("nodes × colocation per node-month × owned days / (365/12)"),
            "{D}*{G}" + fx + "*{E}/{dpm}",
            _fractions(flows.get("colocation", {}), spread1),
        ),
        LineItem(
            f"{k}:idle",
            "energy",
            tr("idle energy over the owned days") + mark,
            o.id,
            n,
            days,
            tr("owned days"),
            p.electricity_price_per_kwh,
            f"{p.currency}/kWh",
            o.power_kw_per_node,
            tr("kW max per node"),
            tot.get("energy", 0.0),
            tr("nodes × kW × idle fraction × owned days × 24 h × PUE × price/kWh"),
            "{D}*{I}*{idle}*{E}*{hpd}*{pue}*{G}",
            _fractions(flows.get("energy", {}), spread1),
            {"G": "@kwh"},
        ),
    ]
    if residual:
        items.append(
            LineItem(
                f"{k}:residual",
                "residual_value",
                tr("residual value at the end of the owned window") + mark,
                o.id,
                n,
                None,
                "",
                residual,
                tr("{cur}/node", cur=p.currency),
                None,
                "",
                tot.get("residual_value", 0.0),
                tr("− nodes × residual value per node"),
                "-{D}*{G}",
                _fractions(flows.get("residual_value", {}), {n_months - 1: 1.0}),
            )
        )
    return items
