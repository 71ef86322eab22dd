"""The chosen plan's cost lines: one row per entry of its ledger, laid out for a reader.

Nothing here prices anything: every amount, quantity, unit price and rate is the ledger's
(``solver.ledger``). This module only names each line, says how its amount is made, and gives the
spreadsheet formula template of its kind, which reproduces the amount from the row's cells ({D} nodes,
{E} quantity, {G} unit price, {I} rate) and the cost-model parameters ({kwh} {pue} {busy} {idle} {dpy}
{dpm} {hpd}, and one exchange-rate cell per quoted currency).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from procure.models.units import DAYS_PER_MONTH, DAYS_PER_YEAR, HOURS_PER_DAY
from procure.solver.costs import BUSY_POWER_FRACTION, IDLE_POWER_FRACTION
from procure.solver.ledger import Entry, fx_key, template

from .i18n import EN, Lang

if TYPE_CHECKING:
    from procure.solver.result import Result


@dataclass
class LineItem:
    """One cost line of the chosen plan: ``amount`` is its ledger entry's, ``expr`` the formula that
    reproduces it from the row's cells and the cost-model parameters."""

    key: str
    category: str
    item: str
    ref: str
    nodes: float | None  # None where the line has no node count (a fixed charge)
    quantity: float | None
    quantity_unit: str
    unit_price: float | None
    price_unit: str
    rate: float | None
    rate_unit: str
    amount: float
    how: str
    expr: str
    months: dict[int, float]  # fraction of ``amount`` in each project month
    links: dict[str, str] = field(default_factory=dict)  # column letter -> key of the item (or @param) it reuses


#: Cost-model parameters the Costs sheet holds as input cells: key -> (label, value, unit, number format).
def cost_parameters(project, offers=(), tr: Lang = EN) -> list[tuple[str, str, Any, str, str]]:
    rows = [
        ("kwh", tr("electricity price"), project.electricity_price_per_kwh, f"{project.currency}/kWh", "0.0000"),
        ("pue", tr("power usage effectiveness (PUE)"), project.pue, tr("facility kWh / IT kWh"), "0.00"),
        (
            "busy",
            tr("busy power fraction (training draw / max power)"),
            BUSY_POWER_FRACTION,
            tr("fraction of max kW"),
            "0.00",
        ),
        (
            "idle",
            tr("idle power fraction (owned, not training)"),
            IDLE_POWER_FRACTION,
            tr("fraction of max kW"),
            "0.00",
        ),
        ("dpy", tr("days per year"), DAYS_PER_YEAR, tr("days"), "0"),
        ("dpm", tr("days per month of a reserved term (365/12)"), DAYS_PER_MONTH, tr("days"), "0.0000"),
        ("hpd", tr("hours per day"), HOURS_PER_DAY, tr("hours"), "0"),
    ]
    # one exchange-rate cell per quoted currency other than the reporting one
    quoted = {o.currency for o in offers if o.currency and o.currency != project.currency}
    if project.carbon_price_currency and project.carbon_price_currency != project.currency:
        quoted.add(project.carbon_price_currency)  # the carbon price's entries are in its currency
    for code in sorted(quoted):
        rows.append(
            (
                fx_key(code),
                tr(
                    "exchange rate: 1 {code} in {cur} ({date}, {source})",
                    code=code,
                    cur=project.currency,
                    date=project.fx_rates_date,
                    source=project.fx_rates_source,
                ),
                project.fx_rates[code],
                f"{project.currency}/{code}",
                "0.0000",
            )
        )
    return rows


def fractions(e: Entry) -> dict[int, float]:
    """Where the ledger puts an entry's amount, as fractions of it (evenly over its months when it is zero)."""
    tot = e.amount
    if abs(tot) < 1e-12:
        months = [m for m, _v in e.amounts] or [0]
        return {m: 1.0 / len(months) for m in months}
    return {m: v / tot for m, v in e.amounts if v != 0.0}


@dataclass
class _Layout:
    result: Result
    tr: Lang
    first_key: dict[tuple[str, ...], str] = field(default_factory=dict)  # what a later line reuses

    def first(self, what: tuple[str, ...], key: str) -> str:
        return self.first_key.setdefault(what, key)

    def texts(self, e: Entry) -> tuple[str, str, str, str, str]:
        """(item, quantity unit, price unit, rate unit, how) of an entry."""
        tr, p = self.tr, self.result.project
        o = self.result.offers.get(e.offer) if e.offer else None
        q = e.currency
        conv = tr(" × {cur} rate", cur=q) if q != p.currency else ""
        per_node = tr("{cur}/node", cur=q)
        workload = e.workload or ""
        if e.kind == "carbon":
            return self._carbon_texts(e, conv)
        if e.key.startswith("own:"):  # owned servers: their running costs, committed
            if e.kind == "owned_residual":
                return (
                    tr("residual value at the end of the owned window") + tr(" (owned, committed)"),
                    "",
                    tr("{cur}/node", cur=q),
                    "",
                    tr("− nodes × residual value per node"),
                )
            item, *rest = self._purchase_texts(e, o, conv, per_node)
            return (item + tr(" (owned, committed)"), *rest)  # type: ignore[return-value]
        if e.key.startswith("buy:"):
            return self._purchase_texts(e, o, conv, per_node)
        if e.key.startswith("job"):
            return self._job_texts(e, workload)
        match e.kind:
            case "rent" | "setup" | "reserved" | "reserved_setup":
                return self._contract_texts(e, o)
            case "service_vat":
                return (
                    tr("VAT (not recoverable) on the {category} charges", category=tr(e.category)),
                    tr("charges before VAT"),
                    "",
                    tr("VAT"),
                    tr("charges × VAT %"),
                )
            case "fixed":
                return (
                    tr("fixed charge (paid once if any node is used)"),
                    tr("charge"),
                    tr("{cur}/charge", cur=q),
                    "",
                    tr("1 × fixed cost, whatever the node count"),
                )
            case "staff":
                st = p.staff
                item = tr(
                    "operations staff: ⌈peak nodes / {n} per FTE⌉ FTEs ({modes})",
                    n=st.nodes_per_fte if st else 0,
                    modes=", ".join(str(m) for m in st.modes) if st else "",
                )
                return (
                    item,
                    "FTE",
                    tr("{cur}/FTE-year", cur=q),
                    tr("months held"),
                    tr("FTEs × cost per FTE-year × months held / 12"),
                )
        raise ValueError(f"ledger entry {e.key} has a kind no report knows: {e.kind}")

    def _carbon_texts(self, e: Entry, conv: str) -> tuple[str, str, str, str, str]:
        """A carbon price entry (``<source>:carbon:y<k>``): the energy of a purchase, job or contract in year k."""
        tr = self.tr
        source, _c, year = e.key.rsplit(":", 2)
        year = year.removeprefix("y")
        if source.startswith("job"):
            item = tr(
                "carbon price of the energy of {workload}, project year {year}", workload=e.workload or "", year=year
            )
        elif source.startswith("rent"):
            item = tr("carbon price of the idle energy of contract {key} ({offer}), project year {year}",
                      key=source, offer=e.offer or "", year=year)  # fmt: skip
        else:
            item = tr("carbon price of the idle energy of {offer}, project year {year}", offer=e.offer or "", year=year)
        how = tr("kWh × grid gCO2e/kWh / 1,000,000 × price per tCO2e") + conv
        return item, "kWh", tr("{cur}/tCO2e", cur=e.currency), "gCO2e/kWh", how

    def _purchase_texts(self, e: Entry, o, conv: str, per_node: str) -> tuple[str, str, str, str, str]:
        tr, q = self.tr, e.currency
        match e.kind:
            case "price":
                tier = tr(" (volume tier from {n} nodes)", n=e.tier_nodes) if o and o.volume_prices else ""
                return tr("purchase price{tier}", tier=tier), "", per_node, "", tr("nodes × price per node") + conv
            case "duty":
                return tr("import duty"), "", per_node, tr("of price"), tr("nodes × price × import duty %")
            case "vat":
                return (
                    tr("VAT (not recoverable) on price plus duty"),
                    tr("1 + import duty"),
                    per_node,
                    tr("VAT"),
                    tr("nodes × price × (1 + duty) × VAT %"),
                )
            case "network":
                how = tr("nodes × network per node") + conv
                return tr("network fabric (leaf ports, optics, cables)"), "", per_node, "", how
            case "residual":
                item = tr("residual (resale) value at the horizon end")
                return item, "", per_node, tr("of price"), tr("− nodes × price × residual %")
            case "maintenance":
                return (
                    tr("maintenance over the owned days"),
                    tr("owned days"),
                    per_node,
                    tr("of price per year"),
                    tr("nodes × price × maintenance %/yr × owned days / 365"),
                )
            case "colocation":
                return (
                    tr("colocation over the owned months"),
                    tr("owned months"),
                    tr("{cur}/node-month", cur=q),
                    "",
                    tr("nodes × colocation per node-month × owned months (a month held in part by its days)"),
                )
            case "idle":
                return (
                    tr("idle energy over the owned days"),
                    tr("owned days"),
                    f"{q}/kWh",
                    tr("kW max per node"),
                    tr("nodes × kW × idle fraction × owned days × 24 h × PUE × price/kWh"),
                )
            case "interest":
                return self._interest_texts(e)
        raise ValueError(f"ledger entry {e.key} has a kind no report knows: {e.kind}")

    def _job_texts(self, e: Entry, workload: str) -> tuple[str, str, str, str, str]:
        tr, q = self.tr, e.currency
        w = next((x for x in self.result.project.workloads if x.name == workload), None)
        match e.kind:
            case "energy":
                return (
                    tr("busy energy of {workload}", workload=workload),
                    tr("training hours"),
                    f"{q}/kWh",
                    tr("kW max per node"),
                    tr("nodes × kW × (busy − idle fraction) × hours × PUE × price/kWh"),
                )
            case "cloud":
                return (
                    tr("cloud bill of {workload}", workload=workload),
                    tr("compute hours"),
                    tr("{cur}/node-hour", cur=q),
                    tr("spot overhead (extra hours)"),
                    tr("nodes × hours × (1 + spot overhead) × price per node-hour"),
                )
            case "storage":
                kept = w.checkpoints_kept if w else 0
                return (
                    tr("storage of {workload}: dataset + {n} checkpoint(s)", workload=workload, n=kept),
                    "TB",
                    tr("{cur}/TB-month", cur=q),
                    tr("months on the offer"),
                    tr("TB held × price per TB-month × months (a month held in part by its days)"),
                )
            case "egress":
                moves = w is not None and w.dataset_moves_on
                what = tr("final checkpoint + dataset") if moves else tr("final checkpoint")
                item = tr("egress of {workload}: {what}", workload=workload, what=what)
                return item, "TB", tr("{cur}/TB", cur=q), "", tr("TB moved out × price per TB")
        raise ValueError(f"ledger entry {e.key} has a kind no report knows: {e.kind}")

    def _interest_texts(self, e: Entry) -> tuple[str, str, str, str, str]:
        tr = self.tr
        item = tr(
            "loan interest: {months} monthly instalments, {down:.0%} down",
            months=e.term_months or 0,
            down=e.down_payment or 0.0,
        )
        how = tr("Σ interest of the annuity instalments paid within the horizon (CUMIPMT); principal is in capex")
        return item, tr("instalments in the horizon"), tr("{cur}/node financed", cur=e.currency), tr("annual rate"), how

    def _contract_texts(self, e: Entry, o) -> tuple[str, str, str, str, str]:
        tr, p = self.tr, self.result.project
        j = int(e.key.split(":")[0].removeprefix("rent"))
        r = self.result.planned().rentals[j]
        months = tr("months {first}–{last}", first=r.start_month + 1, last=r.start_month + r.months)
        if r.phase_days:  # a contract runs whole months from its own start, not from a project month
            from .tables import day_date

            months = tr("{months}, from {date}", months=months, date=tr.date(day_date(p, r.start_day)))
        if r.committed:  # signed before the plan (project commitments)
            months = tr("{months}, committed", months=months)
        q = e.currency
        if e.kind == "reserved":
            item = tr("reserved term of {n} months, {months}", n=o.commitment_months if o else r.months, months=months)
            how = tr("nodes × months × committed price per node-hour × 730 h (owed whether used or not)")
            return item, tr("months"), tr("{cur}/node-hour", cur=q), "", how
        if e.kind == "reserved_setup":
            item = tr("reserved term upfront, month {m}", m=r.start_month + 1)
            return item, "", tr("{cur}/node", cur=q), "", tr("nodes × upfront per node")
        if e.kind == "rent":
            tier = tr(", {n}+ month term", n=e.term_months) if o and o.term_prices else ""
            item = tr("rent, {months}{tier}", months=months, tier=tier)
            how = tr("nodes × months × price per node-month (the term's tier)")
            return item, tr("months"), tr("{cur}/node-month", cur=q), "", how
        return (
            tr("setup fee, month {m}", m=r.start_month + 1),
            "",
            tr("{cur}/node", cur=q),
            "",
            tr("nodes × setup fee per node"),
        )

    def links(self, e: Entry) -> dict[str, str]:
        """Cells a line reuses from an earlier one: the purchase's node count and price, the energy price,
        a purchase's kW, the first line of the same offer's cloud price or contract term."""
        k = e.key
        if k.startswith("buy:"):
            capex = k.rsplit(":", 1)[0] + ":capex"
            return {
                "duty": {"D": capex, "G": capex},
                "vat": {"D": capex, "G": capex},
                "network": {"D": capex},
                "residual": {"D": capex, "G": capex},
                "maintenance": {"D": capex, "G": capex},
                "colocation": {"D": capex},
                "idle": {"D": capex, "G": "@kwh"},
                "interest": {"D": capex},
            }.get(e.kind, {})
        if k.startswith("own:"):
            return {"G": "@kwh"} if e.kind == "idle" else {}
        if e.kind == "energy":
            out = {"G": "@kwh"}
            for held in (f"buy:{e.offer}:idle", f"own:{e.offer}:idle"):
                if held in self.bought_idle:
                    out["I"] = held
            return out
        if e.kind == "cloud":
            first = self.first(("cloud", e.offer or ""), k)
            return {} if first == k else {"G": first, "I": first}
        if e.kind in ("rent", "reserved", "setup", "reserved_setup"):
            prefix = k.split(":")[0]
            run = f"{prefix}:rent"
            first = self.first(("contract", e.offer or "", str(e.term_months)), prefix)
            out = {} if e.kind in ("rent", "reserved") else {"D": run}
            if first != prefix:
                out["G"] = f"{first}:{k.split(':')[1]}"
            return out
        return {}

    @cached_property
    def bought_idle(self) -> set[str]:
        return {e.key for e in self.result.planned().ledger.entries if e.kind == "idle"}


def _ref(e: Entry, tr: Lang) -> str:
    return e.offer if e.offer is not None else tr("project")


def line_items(result: Result, tr: Lang = EN) -> list[LineItem]:
    """Every cost line of the chosen plan: its ledger's entries, each with its words and its formula."""
    plan = result.plan
    if plan is None:
        return []
    lay = _Layout(result, tr)
    out = []
    for e in plan.ledger.entries:
        item, q_unit, p_unit, r_unit, how = lay.texts(e)
        expr = template(e, result.project.currency)  # interest: the annuity's interest in the horizon (CUMIPMT)
        out.append(
            LineItem(
                e.key,
                e.category,
                item,
                _ref(e, tr),
                e.nodes,
                e.quantity,
                q_unit,
                e.unit_price,
                p_unit,
                e.rate,
                r_unit,
                e.amount,
                how,
                expr,
                fractions(e),
                lay.links(e),
            )
        )
    return out
