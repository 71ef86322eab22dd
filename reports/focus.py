"""The recommended plan's charges as FOCUS 1.3 data (the FinOps Open Cost and Usage Specification).

``procure solve … --focus charges.csv`` writes two files, always together:

- ``charges.csv``, the **Cost and Usage** dataset: one row per charge of the plan (each line item of the
  Costs sheet, ``reports.lines.line_items``) and per project month it falls in, so per offer, month and
  charge. ``BilledCost`` = ``EffectiveCost`` = ``ListCost`` = ``ContractedCost`` = the cost model's
  amount for that month: procure plans at the quoted price, so there is no discount between list and
  billed, and a commitment's rent is billed in the month it is owed (not amortised again). Their sum is
  the plan's total cost of ownership, to the cent. A resale (residual value) is a ``Credit`` row with a
  negative cost. Each row is read from its ledger entry's own (month, amount); its ``PricingUnit`` and
  ``PricingQuantity`` are a quantity of what was bought (``_UNITS``: servers, server-months, node-hours, kWh,
  TB-months, TB, FTE-months, instalments) and its unit prices the entry's amount per unit, so unit price ×
  quantity = cost on every row.
- ``charges-commitments.csv`` (the name of ``--focus`` with ``-commitments`` before the suffix), the
  **Contract Commitment** dataset: one row per rental contract or reserved cloud term the plan signs
  (header only when it signs none); the Cost and Usage rows of a contract name it in ``x_ContractId``.

Periods: a project month is a calendar month (models.calendar). A charge's ``BillingPeriodStart``/``End`` are
the 1st of its month and of the next at 00:00 UTC; its ``ChargePeriodStart``/``End`` the same, but for the
start's own month when the project starts after its 1st: that charge period begins on the start date
(``reports.tables.month_start``). Every charge period lies within one calendar month. Columns
procure adds carry the ``x_`` prefix, as the specification asks: ``x_Strategy`` (the parallelism of a
job), ``x_Workload``, ``x_CostCategory`` (procure's category: capex, energy, …), ``x_Mode``,
``x_ContractId``, ``x_Project``; ``Tags`` repeats the workload and strategy as a JSON object. A job's own
charges (its cloud bill, busy energy, storage, egress) have the job as ``SubAccountId``; the shared
capacity (purchases, rentals, fixed charges, staff) has ``shared``.

Validation: the ``focus-validator`` releases that check FOCUS 1.2 and 1.3 need Python 3.12 or later; the
release that installs on Python 3.11 checks the pre-1.0 column names, so the tests check the rules of
the 1.3 specification that these files rely on (columns, allowed values, dates, ``x_`` prefixes) directly.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from procure.models.regions import REGIONS
from procure.models.units import HOURS_PER_MONTH
from procure.solver.ledger import Entry
from procure.solver.result import Result

from .csv_report import _cell
from .lines import LineItem, line_items
from .tables import _strategy_label, billing_month, day_date, month_start

FOCUS_VERSION = "1.3"

#: Cost and Usage columns, in the order written
COLUMNS: tuple[str, ...] = (
    "BilledCost",
    "EffectiveCost",
    "ListCost",
    "ContractedCost",
    "BillingCurrency",
    "BillingAccountId",
    "BillingAccountName",
    "BillingPeriodStart",
    "BillingPeriodEnd",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargeFrequency",
    "ChargePeriodStart",
    "ChargePeriodEnd",
    "CommitmentDiscountId",
    "PricingCategory",
    "PricingQuantity",
    "PricingUnit",
    "ConsumedQuantity",
    "ConsumedUnit",
    "ListUnitPrice",
    "ContractedUnitPrice",
    "ServiceProviderName",
    "HostProviderName",
    "InvoiceIssuerName",
    "ProviderName",
    "PublisherName",
    "ServiceCategory",
    "ServiceName",
    "ServiceSubcategory",
    "SubAccountId",
    "SubAccountName",
    "Tags",
    "ResourceId",
    "ResourceName",
    "ResourceType",
    "RegionId",
    "RegionName",
    "SkuId",
    "SkuPriceId",
    "x_CostCategory",
    "x_Mode",
    "x_Workload",
    "x_Strategy",
    "x_ContractId",
    "x_Project",
)

#: Contract Commitment columns
COMMITMENT_COLUMNS: tuple[str, ...] = (
    "ContractId",
    "ContractCommitmentId",
    "ContractCommitmentCategory",
    "ContractCommitmentType",
    "ContractCommitmentDescription",
    "ContractCommitmentCost",
    "ContractCommitmentQuantity",
    "ContractCommitmentUnit",
    "ContractCommitmentPeriodStart",
    "ContractCommitmentPeriodEnd",
    "ContractPeriodStart",
    "ContractPeriodEnd",
    "BillingCurrency",
    "ServiceProviderName",
    "ResourceId",
    "x_Project",
)

#: procure's category → (ChargeCategory, ChargeFrequency, ServiceCategory)
CHARGE_KINDS: dict[str, tuple[str, str, str]] = {
    "capex": ("Purchase", "One-Time", "Compute"),
    "network": ("Purchase", "One-Time", "Networking"),
    "residual_value": ("Credit", "One-Time", "Compute"),
    "maintenance": ("Purchase", "Recurring", "Compute"),
    "colocation": ("Purchase", "Recurring", "Compute"),
    "energy": ("Usage", "Usage-Based", "Compute"),
    "rent": ("Purchase", "Recurring", "Compute"),
    "setup": ("Purchase", "One-Time", "Compute"),
    "cloud": ("Usage", "Usage-Based", "Compute"),
    "fixed": ("Purchase", "One-Time", "Compute"),
    "storage": ("Usage", "Usage-Based", "Storage"),
    "egress": ("Usage", "Usage-Based", "Networking"),
    "staff": ("Purchase", "Recurring", "Other"),
    # a carbon price is a levy on the emissions of the energy drawn (a carbon tax, an emissions allowance, or an
    # internal price modelled on them), not a provider's charge for a service: FOCUS's Tax category ("taxes levied
    # by the relevant authorities"), usage-based, so the Usage rows stay what the providers bill
    "carbon": ("Tax", "Usage-Based", "Other"),
    "interest": ("Purchase", "Recurring", "Other"),
}

#: FOCUS 1.1+ ServiceSubcategory of a charge, by ServiceCategory (and mode for compute)
_SUBCATEGORY = {"Storage": "Other (Storage)", "Networking": "Other (Networking)", "Other": "Other (Other)"}
_RESOURCE_TYPE = {"buy": "GPU server (bought)", "rent": "bare-metal GPU server (rented)", "cloud": "cloud GPU instance"}


def commitments_path(path: str | Path) -> Path:
    """``charges.csv`` → ``charges-commitments.csv``, beside it."""
    p = Path(path)
    return p.with_name(f"{p.stem}-commitments{p.suffix or '.csv'}")


def _stamp(day: dt.date) -> str:
    return f"{day.isoformat()}T00:00:00Z"


def _contract_id(result: Result, j: int) -> str:
    r = result.planned().rentals[j]
    return f"{r.offer_id}/contract-{j + 1}"


def _owner(result: Result, item: LineItem) -> tuple[str, str, str | None]:
    """(workload, strategy, contract id) of a line item, from its key (``job{i}:…``, ``rent{j}:…``)."""
    plan = result.planned()
    head = item.key.split(":", 1)[0]
    if head.startswith("job") and head[3:].isdigit():
        d = plan.decisions[int(head[3:])]
        return d.workload, _strategy_label(d.strategy), None
    if head.startswith("rent") and head[4:].isdigit():
        return "", "", _contract_id(result, int(head[4:]))
    return "", "", None


#: ledger kind → (PricingUnit, the entry's total quantity in that unit from its own fields). The unit price of
#: a row is then the entry's amount per unit, and a row's quantity its month's amount at that price, so that
#: ListUnitPrice × PricingQuantity = ListCost on every row (FOCUS 1.3, ListUnitPrice and PricingQuantity).
_UNITS: dict[str, tuple[str, Callable[[Entry], float | None]]] = {
    "price": ("Servers", lambda e: e.nodes),
    "duty": ("Servers", lambda e: e.nodes),
    "vat": ("Servers", lambda e: e.nodes),
    "network": ("Servers", lambda e: e.nodes),
    "setup": ("Servers", lambda e: e.nodes),
    "reserved_setup": ("Servers", lambda e: e.nodes),
    # maintenance: the nodes' owned days (its rate is a share of the price per year, paid by the day)
    "maintenance": ("Server-Days", lambda e: _times(e.nodes, e.quantity)),
    # colocation: the nodes' owned calendar months (a month held in part by its days)
    "colocation": ("Server-Months", lambda e: _times(e.nodes, e.quantity)),
    "rent": ("Server-Months", lambda e: _times(e.nodes, e.quantity)),
    # reserved cloud: node-hours of the term (730 h a month)
    "reserved": ("Hours", lambda e: _times(e.nodes, e.quantity, HOURS_PER_MONTH)),
    # energy: the kWh its amount buys at the electricity price (the entry's unit price, reporting currency)
    # (on an energy price path the amount is × its index: the kWh are the amount / (price × index))
    "idle": ("kWh", lambda e: e.amount / (e.unit_price * (e.index or 1.0)) if e.unit_price else None),
    "energy": ("kWh", lambda e: e.amount / (e.unit_price * (e.index or 1.0)) if e.unit_price else None),
    # a cloud bill: node-hours billed, interruptions' extra hours included
    "cloud": ("Hours", lambda e: _times(e.nodes, e.quantity, 1 + (e.rate or 0.0))),
    "storage": ("TB-Months", lambda e: _times(e.quantity, e.rate)),
    "egress": ("TB", lambda e: e.quantity),
    "fixed": ("Charges", lambda e: 1.0),
    "staff": ("FTE-Months", lambda e: _times(e.quantity, e.rate)),
    # VAT on a rent or cloud offer's charges: the charges it is levied on, in the billing currency
    "service_vat": ("Charges", lambda e: e.quantity),
    # a carbon price: the kWh whose emissions it prices (its amount per kWh is price × the grid's g/kWh / 10^6)
    "carbon": ("kWh", lambda e: e.quantity),
}


def _times(*factors: float | None) -> float | None:
    out = 1.0
    for f in factors:
        if f is None:
            return None
        out *= f
    return out


def _row_prices(e: Entry) -> list[tuple[int, float, str | None, float | None, float | None]]:
    """(month, amount, PricingUnit, PricingQuantity, unit price) of each month of an entry, from its own
    ``amounts``. A loan's interest is one instalment a month at that month's interest; a resale is a Credit
    without a unit price (FOCUS: unit prices are non-negative)."""
    months = [(m, v) for m, v in e.amounts if v]
    if e.kind == "interest":
        return [(m, v, "Instalments", 1.0, v) for m, v in months]
    unit, quantity = _UNITS.get(e.kind, (None, lambda _e: None))
    total = quantity(e) if unit else None
    if not total or total <= 0 or not e.amount or e.amount < 0:
        return [(m, v, None, None, None) for m, v in months]
    price = e.amount / total
    return [(m, v, unit, v / price, price) for m, v in months]


def _pricing(result: Result, e: Entry, contract: str | None) -> tuple[str, str | None]:
    """(PricingCategory, CommitmentDiscountId). A contract's own rows (rent, setup, a reserved term) are its
    purchase at the agreed rate: Standard (FOCUS 1.3: Committed is for charges a commitment discount applies
    to, "not the purchase of the commitment discount"). A job's usage on a reserved cloud offer is Committed,
    naming the contract it runs under; spot hours are Dynamic."""
    o = result.offers.get(e.offer) if e.offer else None
    if contract is None and e.workload and o is not None and o.contracted:
        plan = result.planned()
        cid = next((_contract_id(result, j) for j, r in enumerate(plan.rentals) if r.offer_id == o.id), None)
        if cid is not None:
            return "Committed", cid
    if o is not None and o.spot:
        return "Dynamic", None
    return "Standard", None


def cost_rows(result: Result) -> list[dict[str, Any]]:
    """The Cost and Usage rows of the recommended plan (module docstring)."""
    p = result.project
    rows = []
    entries = {e.key: e for e in result.planned().ledger.entries}
    for item in line_items(result):
        e = entries[item.key]
        if not e.amount and not any(v for _m, v in e.amounts):
            continue
        o = result.offers.get(item.ref)
        workload, strategy, contract = _owner(result, item)
        category, frequency, service = CHARGE_KINDS[item.category]
        if contract is not None and item.category == "cloud":  # a reserved term is bought like a rental
            category, frequency = "Purchase", "One-Time" if item.key.endswith(":setup") else "Recurring"
        if e.kind == "service_vat":  # VAT billed on a rent or cloud offer's charges (FOCUS 1.3 ChargeCategory Tax)
            category = "Tax"
        vendor = o.vendor if o is not None else p.name
        sub = _SUBCATEGORY.get(service) or ("Virtual Machines" if o is not None and o.mode == "cloud" else "Servers")
        tags = json.dumps({k: v for k, v in (("workload", workload), ("strategy", strategy)) if v}, ensure_ascii=False)
        pricing, discount = _pricing(result, e, contract)
        priced = _row_prices(e)
        for n, (m, amount, unit, quantity, price) in enumerate(priced):
            start, end = _stamp(month_start(p, m)), _stamp(month_start(p, m + 1))
            bill = _stamp(billing_month(p, m))
            # a purchase paid over several months (a financed price: down payment, then instalments) recurs
            freq = "Recurring" if frequency == "One-Time" and category == "Purchase" and n > 0 else frequency
            sku = f"{item.ref or 'staff'}:{item.category}" if unit is not None else None
            rows.append(
                {
                    "BilledCost": amount,
                    "EffectiveCost": amount,
                    "ListCost": amount,
                    "ContractedCost": amount,
                    "BillingCurrency": p.currency,
                    "BillingAccountId": p.name,
                    "BillingAccountName": p.name,
                    "BillingPeriodStart": bill,
                    "BillingPeriodEnd": end,
                    "ChargeCategory": category,
                    "ChargeClass": None,
                    "ChargeDescription": item.item,
                    "ChargeFrequency": freq,
                    "ChargePeriodStart": start,
                    "ChargePeriodEnd": end,
                    "CommitmentDiscountId": discount,
                    "PricingCategory": pricing if category in ("Usage", "Purchase") else None,
                    "PricingQuantity": quantity,
                    "PricingUnit": unit,
                    "ConsumedQuantity": quantity if category == "Usage" else None,
                    "ConsumedUnit": unit if category == "Usage" else None,
                    "ListUnitPrice": price,
                    "ContractedUnitPrice": price,
                    "ServiceProviderName": vendor,
                    "HostProviderName": vendor,
                    "InvoiceIssuerName": vendor,
                    "ProviderName": vendor,
                    "PublisherName": vendor,
                    "ServiceCategory": service,
                    "ServiceName": f"{o.mode} GPU capacity" if o is not None else "operations staff",
                    "ServiceSubcategory": sub,
                    "SubAccountId": workload or "shared",
                    "SubAccountName": workload or "shared capacity and charges",
                    "Tags": tags,
                    "ResourceId": item.ref or "staff",
                    "ResourceName": o.label if o is not None else "operations staff",
                    "ResourceType": _RESOURCE_TYPE[o.mode] if o is not None else "staff",
                    "RegionId": o.region if o is not None else p.team_region,
                    "RegionName": REGIONS.get((o.region if o is not None else p.team_region) or ""),
                    "SkuId": item.ref or "staff",
                    "SkuPriceId": sku,
                    "x_CostCategory": item.category,
                    "x_Mode": o.mode if o is not None else None,
                    "x_Workload": workload or None,
                    "x_Strategy": strategy or None,
                    "x_ContractId": contract,
                    "x_Project": p.name,
                }
            )
    return rows


def commitment_rows(result: Result) -> list[dict[str, Any]]:
    """One Contract Commitment row per rental contract or reserved cloud term of the plan."""

    p, plan = result.project, result.planned()
    out = []
    for j, r in enumerate(plan.rentals):
        o = result.offers[r.offer_id]
        start, end = day_date(p, r.start_day), day_date(p, r.end_day)
        cid = _contract_id(result, j)
        term = "reserved cloud term" if o.mode == "cloud" else "bare-metal rental"
        out.append(
            {
                "ContractId": cid,
                "ContractCommitmentId": f"{cid}/nodes",
                "ContractCommitmentCategory": "Spend",
                "ContractCommitmentType": term,
                "ContractCommitmentDescription": f"{r.nodes} node(s) of {o.id} for {r.months} months at "
                f"{r.price_per_node_month:.2f} {p.currency} per node-month",
                "ContractCommitmentCost": r.cost,
                "ContractCommitmentQuantity": r.nodes * r.months,
                "ContractCommitmentUnit": "node-months",
                "ContractCommitmentPeriodStart": _stamp(start),
                "ContractCommitmentPeriodEnd": _stamp(end),
                "ContractPeriodStart": _stamp(start),
                "ContractPeriodEnd": _stamp(end),
                "BillingCurrency": p.currency,
                "ServiceProviderName": o.vendor,
                "ResourceId": o.id,
                "x_Project": p.name,
            }
        )
    return out


def _csv(columns: Iterable[str], rows: list[dict[str, Any]]) -> bytes:
    cols = list(columns)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for row in rows:
        w.writerow([_cell(row.get(c)) for c in cols])
    return buf.getvalue().encode("utf-8")


def focus_files(result: Result) -> tuple[bytes, bytes]:
    """(Cost and Usage CSV, Contract Commitment CSV) of the recommended plan."""
    return _csv(COLUMNS, cost_rows(result)), _csv(COMMITMENT_COLUMNS, commitment_rows(result))
