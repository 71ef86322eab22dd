"""The priced ledger of a plan: every amount it pays, priced once by the cost model, and its views.

``ledger(project, offers, decisions, purchases, contracts)`` prices a plan's decisions through the rules of
``solver.costs`` and returns a ``Ledger``: a tuple of ``Entry`` — one priced line each, with a stable key,
the kind of amount it is, its cost category, the offer, node count, quantity, unit price and rate it is
priced from, and the amount it puts in each project month. Every figure derived from a plan is a view of
its ledger, written once here:

    flows            category → month → amount (what ``costs.Flows`` holds)
    by_category      Σ per category (the breakdown)
    total            Σ of every entry (TCO)
    by_month         Σ per month; ``cumulative`` its running total; ``peak_cash_out`` its maximum (what
                     ``budget_cash`` caps, ``costs.peak_cash_out``)
    capex            purchase prices paid, Σ of category ``capex`` (what ``budget_capex`` caps; network
                     fabric is its own category and not capped)
    present_value    NPV at the project's discount rate (``costs.present_value``)
    pnl_years        the P&L per project year (``costs`` module docstring: depreciation of price, duty, VAT
                     and network over depreciation_years from delivery, IAS 16; operating costs; interest;
                     the gain on disposal in the last year)
    depreciation     per purchase: its monthly charge, book value at the horizon end and disposal gain

Keys (stable for one plan; the verifier names an entry by its key):

    buy:<offer>:{capex,duty,vat,network,residual,maintenance,colocation,idle,interest}   a purchase
    own:<offer>:{maintenance,colocation,idle,residual}   owned servers (solver.holdings), committed
    job<i>:{energy,cloud,storage,egress}      the i-th decision of the plan (its order in ``decisions``)
    rent<j>:{rent,setup}                      the j-th contract, in ``contract_order``
    fixed:<offer>                             an offer's fixed charge
    vat:<offer>:<category>[:committed]        VAT that is a cost on a rent or cloud offer's charges
    staff                                     the project's operations staff
    <source>:carbon:y<k>                      the carbon price of a purchase's (buy:<offer>, own:<offer>), a job's
                                              (job<i>) or a contract's (rent<j>) energy drawn in project year k

The plan (``solver.plan.Plan``) carries its ledger and reads its totals from these views; the verifier
prices the plan's raw decisions again into a ledger of its own and compares them entry by entry; the
reports lay the entries out as rows and read the views. Nothing else sums a plan's money.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from procure.models.holdings import months_before_start
from procure.models.units import HOURS_PER_MONTH, MONTHS_PER_YEAR

from . import costs
from .costs import CATEGORIES, OPERATING, Flows, RentalContract
from .formulas import EXPR, KINDS, fx_key, path_index, template  # the vocabulary of entries and their formulas

if TYPE_CHECKING:
    from procure.models.offer import Offer
    from procure.models.project import Project

    from .plan import Decision


@dataclass(frozen=True)
class PnlYear:
    year: int  # 1-based fiscal year of the horizon (costs.fiscal_years)
    depreciation: float
    operating: float
    interest: float
    disposal_gain: float
    months: tuple[int, int] = (0, 0)  # its project months, first and the one after its last
    label: str = ""  # "FY2027", "FY2027/28"

    @property
    def cost(self) -> float:
        """What the year costs in the P&L: depreciation + operating + interest − gain on disposal."""
        return self.depreciation + self.operating + self.interest - self.disposal_gain


@dataclass(frozen=True)
class Entry:
    """One priced line of a plan. ``amounts`` are in the reporting currency, by project month; ``unit_price``
    is in ``currency`` (the offer's quoted one for prices quoted by a vendor, the reporting one otherwise)."""

    key: str
    kind: str  # what the amount is (see KINDS)
    category: str  # one of costs.CATEGORIES
    offer: str | None  # the offer it is paid for (None: the project's staff)
    nodes: float | None  # None where the line has no node count (a fixed charge)
    quantity: float | None  # the kind's quantity (KINDS)
    unit_price: float | None
    rate: float | None  # the kind's rate (KINDS)
    currency: str
    amounts: tuple[tuple[int, float], ...]  # (month, amount), months ascending
    workload: str | None = None  # the job a job<i> entry is for
    term_months: int | None = None  # rent<j>: the months of the term tier signed at; interest: the loan's instalments
    down_payment: float | None = None  # interest: the share of the price paid down
    tier_nodes: int | None = None  # buy: the least nodes of the volume tier reached
    committed: bool = False  # owed whatever the plan does: owned servers' running costs, signed commitments
    # on price or FX paths (costs, "Price and FX paths"; None without paths): the factor its amount is priced at
    # over today's quote and rate, amount = template × index. One month's index × FX change for an amount paid
    # in one month or a contract's rate; the amount-weighted mean of its months' factors for an amount spread over
    # months (1 where the template is 0)
    index: float | None = None

    @property
    def amount(self) -> float:
        return sum(v for _m, v in self.amounts)

    def at(self, month: int) -> float:
        return sum(v for m, v in self.amounts if m == month)


@dataclass(frozen=True)
class Book:
    """The books of one purchase: straight-line depreciation of its capitalised cost within the horizon,
    its book value and resale at the horizon end, and the gain on disposal (resale − book value)."""

    offer: str
    nodes: int
    capitalised: float  # nodes · (P + network): what the purchase adds to the books (costs.capitalised_cost)
    years: float  # the depreciation life in years (costs.depreciation_years)
    life_months: int  # round(12 · years) (costs.depreciation_life_months)
    delivery_month: int  # depreciation starts here (costs.delivery_month)
    depreciation: tuple[tuple[int, float], ...]  # (month, charge) within the horizon
    resale: float

    @property
    def book_value(self) -> float:
        return self.capitalised - sum(v for _m, v in self.depreciation)

    @property
    def disposal_gain(self) -> float:
        return self.resale - self.book_value


@dataclass(frozen=True)
class Ledger:
    entries: tuple[Entry, ...]
    books: tuple[Book, ...]
    n_months: int
    discount_factors: tuple[float, ...]  # per month, end-of-month timing (costs.discount_factors)
    monthly_rate: float  # the monthly discount rate (costs.monthly_discount_rate)
    end_day: float  # the horizon end, days (costs.horizon_end_day)
    # income tax (costs, "Income tax"): its parts by month (deductions, depreciation, sale), the after-tax
    # discount factors; ``taxed`` is false without the project's tax section
    tax_parts: tuple[tuple[str, tuple[tuple[int, float], ...]], ...] = ()
    after_tax_factors: tuple[float, ...] = ()
    taxed: bool = False
    income_tax_rate: float = 0.0  # t (costs.income_tax_rate)
    # the contracts booked as leases (costs, "Leases"): (contract index j of rent<j>, its lease book)
    leases: tuple[tuple[int, costs.LeaseBook], ...] = ()
    # the fiscal years of the horizon: (first month, month after the last, label) (costs.fiscal_years); none
    # given: years of 12 months from the start
    years: tuple[tuple[int, int, str], ...] = ()

    _by_key: dict[str, Entry] = field(init=False, repr=False, compare=False)
    _by_prefix: dict[str, tuple[Entry, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Index the entries once: by key, and by every prefix of a key up to one of its first two ``:``
        (``buy:b1:``, ``job3:``, ``rent0:``), so a lookup per decision, purchase and contract is no scan."""
        by_prefix: dict[str, list[Entry]] = {}
        for e in self.entries:
            for prefix in _prefixes(e.key):
                by_prefix.setdefault(prefix, []).append(e)
        object.__setattr__(self, "_by_key", {e.key: e for e in self.entries})
        object.__setattr__(self, "_by_prefix", {k: tuple(v) for k, v in by_prefix.items()})

    def __iter__(self):
        return iter(self.entries)

    def __getitem__(self, key: str) -> Entry:
        return self._by_key[key]

    def get(self, key: str) -> Entry | None:
        return self._by_key.get(key)

    def keys(self) -> list[str]:
        return [e.key for e in self.entries]

    def of(self, prefix: str) -> list[Entry]:
        """The entries whose key begins with ``prefix`` (``buy:b1:``, ``job3:``, ``rent0:``), in ledger order."""
        if prefix.endswith(":") and prefix.count(":") <= 2:  # an indexed prefix
            return list(self._by_prefix.get(prefix, ()))
        return [e for e in self.entries if e.key.startswith(prefix)]

    # --- views -------------------------------------------------------------------------------------

    def flows(self) -> Flows:
        out: Flows = {c: {} for c in CATEGORIES}
        for e in self.entries:
            per = out[e.category]
            for m, v in e.amounts:
                per[m] = per.get(m, 0.0) + v
        return out

    def by_category(self) -> dict[str, float]:
        out = dict.fromkeys(CATEGORIES, 0.0)
        for e in self.entries:
            out[e.category] += e.amount
        return out

    def total(self) -> float:
        return sum(e.amount for e in self.entries)

    def by_month(self) -> list[float]:
        out = [0.0] * self.n_months
        for e in self.entries:
            for m, v in e.amounts:
                out[m] += v
        return out

    def cumulative(self) -> list[float]:
        """Money spent by the end of each month (costs.running_total of ``by_month``)."""
        return costs.running_total(self.by_month())

    def peak_cash_out(self) -> float:
        """The most money spent so far at any month end: what ``budget_cash`` caps (costs.peak_cash_out)."""
        return costs.peak_cash_out(self.flows(), self.n_months)

    def capex(self) -> float:
        """Purchase prices paid (price, duty, non-recoverable VAT; financed principal included): what
        ``budget_capex`` caps (costs.capex, the one definition the budget row also uses). The network
        fabric is category ``network`` and is not part of it."""
        return costs.capex(self.flows())

    def present_value(self) -> float:
        """NPV at the project's discount rate (costs.discounted of ``flows``)."""
        return costs.discounted(self.flows(), self.discount_factors)

    # --- after tax (costs, "Income tax") -------------------------------------------------------------------

    def tax_by_month(self, part: str | None = None) -> list[float]:
        """The income tax per month (negative: tax saved), in all or of one part (deductions, depreciation, sale)."""
        out = [0.0] * self.n_months
        for name, amounts in self.tax_parts:
            if part is None or name == part:
                for m, v in amounts:
                    out[m] += v
        return out

    def tax_total(self, part: str | None = None) -> float:
        return sum(self.tax_by_month(part))

    def after_tax_by_month(self) -> list[float]:
        """The cash flow after income tax per month: by_month + tax_by_month."""
        return [a + b for a, b in zip(self.by_month(), self.tax_by_month(), strict=True)]

    def after_tax_total(self) -> float:
        return sum(self.after_tax_by_month())

    def after_tax_present_value(self) -> float:
        """The after-tax NPV: the after-tax cash flow discounted at the after-tax rate (costs.after_tax_factors)."""
        return sum(v * f for v, f in zip(self.after_tax_by_month(), self.after_tax_factors, strict=True))

    def year_months(self) -> list[tuple[int, int, str]]:
        """The fiscal years (``years``), or years of 12 months from the start when none are given."""
        if self.years:
            return list(self.years)
        M = self.n_months
        return [
            (y, min(y + MONTHS_PER_YEAR, M), f"year {y // MONTHS_PER_YEAR + 1}") for y in range(0, M, MONTHS_PER_YEAR)
        ]

    def tax_years(self) -> list[tuple[float, float]]:
        """Per project year, (current tax, deferred tax): the income tax of the year's cash (``tax_by_month``) and
        the rest of the tax expense on the book P&L, −t × the year's P&L cost (IAS 12: book depreciation and the
        book gain on disposal differ from the tax rule's; the difference reverses by the sale, so the deferred tax
        adds up to 0 over the horizon)."""
        tax = self.tax_by_month()
        out = []
        for py in self.pnl_years():
            current = sum(tax[m] for m in range(*py.months))
            out.append((current, -self.income_tax_rate * py.cost - current))
        return out

    def lease_years(self) -> list[tuple[float, float, float]]:
        """Per project year, the leases' (rent no longer booked as an operating cost, right-of-use depreciation,
        lease interest): what IFRS 16 moves out of EBITDA."""
        spans = self.year_months()
        year_of = {m: y for y, (lo, hi, _label) in enumerate(spans) for m in range(lo, hi)}
        out = [[0.0, 0.0, 0.0] for _ in spans]
        for _j, lb in self.leases:
            for k, part in enumerate((lb.rent, lb.depreciation, lb.interest)):
                for m, v in part.items():
                    if 0 <= m < self.n_months:
                        out[year_of[m]][k] += v
        return [(a, b, c) for a, b, c in out]

    def committed_flows(self) -> Flows:
        """The cash flows owed whatever the plan does (owned servers' running costs, signed commitments);
        empty when there are none."""
        out: Flows = {}
        for e in self.entries:
            if e.committed:
                per = out.setdefault(e.category, {})
                for m, v in e.amounts:
                    per[m] = per.get(m, 0.0) + v
        return out

    def committed_total(self) -> float:
        return sum(e.amount for e in self.entries if e.committed)

    def depreciation_by_month(self) -> list[float]:
        out = [0.0] * self.n_months
        for b in self.books:
            for m, v in b.depreciation:
                out[m] += v
        return out

    def pnl_years(self) -> list[PnlYear]:
        """The P&L per fiscal year (``year_months``): Σ over the years of (depreciation + operating + interest −
        disposal gain) = the total (the module docstring of ``solver.costs``)."""
        flows = self.flows()
        dep = self.depreciation_by_month()
        gain = sum((b.disposal_gain for b in self.books), 0.0)
        spans = self.year_months()
        out = []
        for y, (lo, hi, label) in enumerate(spans):
            months = range(lo, hi)
            op = sum(flows[c].get(m, 0.0) for c in OPERATING for m in months)
            interest = sum(flows["interest"].get(m, 0.0) for m in months)
            last = gain if y == len(spans) - 1 else 0.0
            out.append(PnlYear(y + 1, sum(dep[m] for m in months), op, interest, last, (lo, hi), label))
        return out

    def paid_by_month(self, prefix: str, categories: Iterable[str]) -> list[float]:
        """Σ per month of the entries under ``prefix`` in ``categories`` (a purchase's loan instalments:
        its capex and interest after delivery)."""
        out = [0.0] * self.n_months
        wanted = set(categories)
        for e in self.of(prefix):
            if e.category in wanted:
                for m, v in e.amounts:
                    out[m] += v
        return out

    def book(self, offer_id: str) -> Book:
        for b in self.books:
            if b.offer == offer_id:
                return b
        raise KeyError(offer_id)


def _prefixes(key: str) -> list[str]:
    """The prefixes of ``key`` the ledger indexes: up to and including each of its first two ``:``."""
    out, at = [], -1
    for _ in range(2):
        at = key.find(":", at + 1)
        if at < 0:
            break
        out.append(key[: at + 1])
    return out


def reporting_unit_price(e: Entry, fx_rate: Callable[[str], float]) -> float:
    """An entry's unit price in the reporting currency (``fx_rate(currency)``: one unit's value in it), per
    node-month for a contract's rent: a reserved term quotes per node-hour (× 730 h, its EXPR's {hpd}·{dpm})."""
    price = e.unit_price or 0.0
    if e.kind == "reserved":
        price *= HOURS_PER_MONTH
    return price * fx_rate(e.currency)


@dataclass(frozen=True)
class Allocation:
    """Who pays for what (``allocate``): each job's own entries, its share of the shared ones, and what is
    owed by offers no job of the plan runs on."""

    direct: dict[str, float]  # workload -> Σ of its job<i> entries (busy energy or cloud bill, storage, egress)
    cost: dict[str, float]  # workload -> direct + its share of its offer's capacity and fixed charge, and staff
    capacity: dict[str, float]  # offer -> its purchase or owned servers, its contracts and its fixed charge
    idle: float  # the capacity of offers no job runs on (owned servers, commitments): no job's cost carries it


def allocate(book: Ledger, decisions: Sequence[Decision], offers: Mapping[str, Offer], staffed_modes) -> Allocation:
    """The cost allocation to jobs: each offer's capacity (purchase or owned servers, contracts, fixed
    charge) is shared by its jobs in proportion to their node-hours (nodes × wall hours), and the staff by
    the jobs on offers of ``staffed_modes`` (costs.staff_modes) in proportion to theirs. Σ cost + idle = the
    ledger's total."""
    direct = {d.workload: sum(e.amount for e in book.of(f"job{i}:")) for i, d in enumerate(decisions)}
    capacity: dict[str, float] = {}
    for e in book.entries:
        if e.offer is not None and not e.key.startswith("job"):
            capacity[e.offer] = capacity.get(e.offer, 0.0) + e.amount
    staff = sum(e.amount for e in book.entries if e.kind == "staff")
    wall = [costs.wall_hours(offers[d.offer_id], d.hours) for d in decisions]
    node_hours: dict[str, float] = {}
    for d, wh in zip(decisions, wall, strict=True):
        node_hours[d.offer_id] = node_hours.get(d.offer_id, 0.0) + d.nodes * wh
    staffed = sum(h for oid, h in node_hours.items() if offers[oid].mode in staffed_modes)
    cost = {}
    for d, wh in zip(decisions, wall, strict=True):
        hours = node_hours[d.offer_id]
        share = capacity.get(d.offer_id, 0.0) * (d.nodes * wh / hours) if hours else 0.0
        if staff and staffed and offers[d.offer_id].mode in staffed_modes:
            share += staff * d.nodes * wh / staffed
        cost[d.workload] = direct[d.workload] + share
    idle = sum(v for oid, v in capacity.items() if not node_hours.get(oid))
    if staff and not staffed:  # the staff runs held capacity no job uses (a signed rental): committed, unused
        idle += staff
    return Allocation(direct, cost, capacity, idle)


def contract_order(contracts: Iterable[RentalContract]) -> list[RentalContract]:
    """The order the plan lists its contracts in (rent<j> keys): by offer, start day, months, term."""
    return sorted(contracts, key=lambda c: (c.offer_id, c.start_day, c.months, c.term_months or 0))


def _amounts(per_month: Mapping[int, float]) -> tuple[tuple[int, float], ...]:
    return tuple(sorted(per_month.items()))


def _share(per_month: Mapping[int, float], part: float, whole: float) -> tuple[tuple[int, float], ...]:
    """``per_month`` scaled to carry ``part`` of its ``whole`` (the months where a part of a sum is paid)."""
    k = part / whole if whole else 0.0
    return tuple((m, v * k) for m, v in sorted(per_month.items()))


@dataclass
class _Pricer:
    project: Project
    offers: Mapping[str, Offer]
    out: list[Entry] = field(default_factory=list)

    def add(self, key, kind, category, o, nodes, quantity, unit_price, rate, amounts, **extra) -> None:
        reporting = o is None or kind in ("idle", "energy", "interest", "owned_residual", "service_vat")
        cur = self.project.currency if reporting else self.quoted(o)
        if kind == "carbon":  # priced in the carbon price's currency, whatever the offer's
            cur = self.project.carbon_price_currency or self.project.currency
        e = Entry(key, kind, category, o.id if o is not None else None, nodes, quantity, unit_price, rate, cur,
                  amounts, **extra)  # fmt: skip
        if costs.has_paths(self.project):
            e = replace(e, index=path_index(e, self.project))
        self.out.append(e)

    def quoted(self, o: Offer) -> str:
        return o.currency or self.project.currency


def _purchase_entries(pr: _Pricer, o: Offer, n: int) -> Book:
    """A purchase of ``n`` nodes (costs.purchase_flows): price, duty and VAT (category capex, in the months
    the price is paid), network, residual, maintenance, colocation, idle energy, loan interest."""
    p = pr.project
    flows = costs.scale(costs.purchase_flows(o, p, n), n)
    if costs.owned_terms(o, p) is not None:
        return _owned_entries(pr, o, n, flows)
    tier = costs.buy_tier(o, n)
    if tier is None:  # the planner never buys below the first tier; a plan that does is not costable
        raise ValueError(f"{o.id}: {n} node(s) bought is below the first volume tier ({o.buy_tiers[0][0]} nodes)")
    least, quoted = tier
    k = f"buy:{o.id}"
    parts = costs.landed_parts(o, p, n)
    landed = sum(parts.values())
    days, months = costs.owned_days(o, p), costs.owned_months(o, p)
    price = _share(flows["capex"], parts["price"], landed)
    pr.add(f"{k}:capex", "price", "capex", o, n, None, quoted, None, price, tier_nodes=least)
    duty, vat = costs.duty_rate(o), costs.vat_cost_rate(o, p)
    if duty:
        pr.add(f"{k}:duty", "duty", "capex", o, n, None, quoted, duty, _share(flows["capex"], parts["duty"], landed))
    if vat:
        pr.add(f"{k}:vat", "vat", "capex", o, n, 1.0 + duty, quoted, vat, _share(flows["capex"], parts["vat"], landed))
    if o.network:
        pr.add(f"{k}:network", "network", "network", o, n, None, o.network, None, _amounts(flows["network"]))
    rows = (
        ("residual", "residual_value", None, quoted, o.residual),
        ("maintenance", "maintenance", days, quoted, o.maintenance),
        ("colocation", "colocation", months, o.colocation, None),
        ("idle", "energy", days, p.electricity_price_per_kwh, o.power_kw_per_node),
    )
    for kind, cat, qty, unit, rate in rows:
        pr.add(f"{k}:{kind}", kind, cat, o, n, qty, unit, rate, _amounts(flows[cat]))
    _carbon_entries(pr, k, o, n, {m: n * v for m, v in costs.purchase_kwh(o, p).items()}, flows)
    fin = costs.financing_of(o, p)
    if fin is not None:
        loan = costs.loan_principal(o, p, n)
        schedule = costs.loan_schedule(loan, fin, costs.delivery_month(o, p), p.horizon_months)
        paid = sum(1 for _m, _part, interest in schedule if interest)
        pr.add(
            f"{k}:interest",
            "interest",
            "interest",
            o,
            n,
            float(paid),
            loan,
            fin.annual_rate,
            _amounts(flows["interest"]),
            term_months=fin.months,
            down_payment=fin.down_payment_pct,
        )
    dep = costs.depreciation_flows(o, p, n)
    return Book(
        o.id,
        n,
        n * costs.capitalised_cost(o, p, n),
        costs.depreciation_years(o, p),
        costs.depreciation_life_months(o, p),
        costs.delivery_month(o, p),
        tuple((m, n * v) for m, v in sorted(dep.items())),
        costs.resale_value(o, p, n),
    )


def _owned_entries(pr: _Pricer, o: Offer, n: int, flows: Flows) -> Book:
    """Owned servers (costs.purchase_flows of an owned offer): their maintenance, colocation and idle energy over
    the owned window, and their residual value if given; all committed, nothing capitalised."""
    p = pr.project
    terms = costs.owned_terms(o, p)
    assert terms is not None
    lo, hi, residual = terms
    days, months = max(0.0, hi - lo), costs.months_held(p, lo, hi)
    k, c = f"own:{o.id}", {"committed": True}
    quoted = costs.quoted_price(o, 1)  # the quoted price the maintenance rate applies to
    rows = (
        ("maintenance", "maintenance", days, quoted, o.maintenance),
        ("colocation", "colocation", months, o.colocation, None),
        ("idle", "energy", days, p.electricity_price_per_kwh, o.power_kw_per_node),
    )
    for kind, cat, qty, unit, rate in rows:
        pr.add(f"{k}:{kind}", kind, cat, o, n, qty, unit, rate, _amounts(flows[cat]), **c)
    _carbon_entries(pr, k, o, n, {m: n * v for m, v in costs.purchase_kwh(o, p).items()}, flows, **c)
    if residual:
        pr.add(
            f"{k}:residual",
            "owned_residual",
            "residual_value",
            o,
            n,
            None,
            residual,
            None,
            _amounts(flows["residual_value"]),
            **c,
        )
    return Book(
        o.id,
        n,
        0.0,
        costs.depreciation_years(o, p),
        costs.depreciation_life_months(o, p),
        costs.delivery_month(o, p),
        (),
        costs.resale_value(o, p, n),
    )


def _job_entries(pr: _Pricer, i: int, d: Decision, data_part: bool) -> None:
    """The i-th decision's own costs (costs.job_flows): busy energy on bought nodes or the cloud bill, or
    (``data_part``) the storage and egress of its data on the offer."""
    p, o = pr.project, pr.offers[d.offer_id]
    data = costs.data_of(p, d.workload)
    f = costs.job_flows(o, p, d.nodes, d.hours, d.start_day, data)
    k, w = f"job{i}", {"workload": d.workload}
    if data_part:
        _data_entries(pr, k, d, f)
        return
    if "energy" in f:
        pr.add(
            f"{k}:energy",
            "energy",
            "energy",
            o,
            d.nodes,
            d.hours,
            p.electricity_price_per_kwh,
            o.power_kw_per_node,
            _amounts(f["energy"]),
            **w,
        )
    if "carbon" in f:
        _carbon_entries(pr, k, o, d.nodes, costs.job_kwh(o, p, d.nodes, d.hours, d.start_day), f, **w)
    if "cloud" in f:
        pr.add(
            f"{k}:cloud",
            "cloud",
            "cloud",
            o,
            d.nodes,
            d.hours,
            o.price_per_node_hour,
            o.hour_overhead,
            _amounts(f["cloud"]),
            **w,
        )


def _data_entries(pr: _Pricer, k: str, d: Decision, f: Flows) -> None:
    o, data, w = pr.offers[d.offer_id], costs.data_of(pr.project, d.workload), {"workload": d.workload}
    if "storage" in f:
        months = costs.months_held(pr.project, d.start_day, costs.job_end_day(o, d.start_day, d.hours))
        pr.add(
            f"{k}:storage",
            "storage",
            "storage",
            o,
            d.nodes,
            data.held_tb,
            o.storage,
            months,
            _amounts(f["storage"]),
            **w,
        )
    if "egress" in f:
        pr.add(
            f"{k}:egress", "egress", "egress", o, d.nodes, data.egress_tb, o.egress, None, _amounts(f["egress"]), **w
        )


def _contract_entries(pr: _Pricer, j: int, c: RentalContract) -> None:
    """The j-th contract (costs.rental_parts): rent and setup of a rental, or a reserved cloud term's
    monthly commitment and its upfront fee, in the categories of its mode (costs.rental_categories)."""
    p, o = pr.project, pr.offers[c.offer_id]
    parts = costs.rental_parts(o, c, p)
    term = costs.term_of(o, c)
    assert term is not None  # rental_parts rejects a contract at no offered term
    run, fee = costs.rental_categories(o)
    k, t = f"rent{j}", {"term_months": term.months, "committed": c.committed}
    if o.mode == "cloud":  # a reserved term: every month of it, and the upfront fee in its first month
        # per node-hour, as quoted; a commitment signed at a stated rate per node-month pays that rate
        hourly = o.price_per_node_hour if c.rate is None else c.rate / HOURS_PER_MONTH
        rent, setup, price = "reserved", "reserved_setup", hourly
    else:
        rent, setup, price = "rent", "setup", term.price
    pr.add(f"{k}:rent", rent, run, o, c.nodes, float(c.months), price, None, _amounts(parts["rent"]), **t)
    if "setup" in parts:
        pr.add(f"{k}:setup", setup, fee, o, c.nodes, None, term.setup, None, _amounts(parts["setup"]), **t)
    carbon = costs.carbon_flows(o, p, costs.contract_kwh(o, p, c))
    if carbon:
        _carbon_entries(pr, k, o, c.nodes, costs.contract_kwh(o, p, c), carbon, committed=c.committed)


def _carbon_entries(pr: _Pricer, k: str, o: Offer, nodes, kwh: Mapping[int, float], flows: Flows, **extra) -> None:
    """The carbon price of the energy ``kwh`` (month → kWh) of a purchase, job or contract: its ``carbon`` flows
    (costs, "Carbon"), one entry per project year ``<k>:carbon:y<year>`` (the price is one per year): quantity the
    year's kWh, unit price the year's price per tCO2e (in the carbon price's currency), rate the grid's gCO2e/kWh."""
    per = flows.get("carbon") or {}
    g = costs.grid_g_per_kwh(o)
    if not per or not g:
        return
    p = pr.project
    for year in sorted({costs.carbon_year(m) for m in per}):
        months = {m: v for m, v in per.items() if costs.carbon_year(m) == year}
        energy = sum(v for m, v in kwh.items() if costs.carbon_year(m) == year)
        price = p.carbon_price_in_year(year)
        pr.add(f"{k}:carbon:y{year + 1}", "carbon", "carbon", o, nodes, energy, price, g, _amounts(months), **extra)


def _charge_entries(pr: _Pricer, used: set[str], purchases: Mapping[str, int], contracts: list[RentalContract]) -> None:
    """The fixed charge of every offer the plan uses (costs.fixed_charge_flows) and the project's operations
    staff (costs.staff_flows): FTEs for the months held, the peak nodes held as its node count."""
    p = pr.project
    for oid in sorted(used):
        o = pr.offers[oid]
        f = costs.fixed_charge_flows(o, p)
        if f:
            pr.add(f"fixed:{oid}", "fixed", "fixed", o, None, 1.0, o.fixed, None, _amounts(f["fixed"]))
    f = costs.staff_flows(p, pr.offers, purchases, contracts)
    if f and p.staff is not None:
        held = costs.held_by_month(p, pr.offers, purchases, contracts)
        ftes = costs.staff_ftes(p, max(held))
        months = costs.staff_months(p, held)
        pr.add(
            "staff",
            "staff",
            "staff",
            None,
            max(held),
            float(ftes),
            p.staff.cost_per_fte_year,
            months,
            _amounts(f["staff"]),
        )


def ledger(
    project: Project,
    offers: Mapping[str, Offer],
    decisions: Sequence[Decision],
    purchases: Mapping[str, int],
    contracts: Iterable[RentalContract],
) -> Ledger:
    """Price a plan's decisions, purchases and contracts into its ledger (nothing here is optimized)."""
    pr = _Pricer(project, offers)
    bought = {oid: n for oid, n in sorted(purchases.items()) if n > 0}
    signed = contract_order(c.on(project.calendar) for c in contracts)
    books = [_purchase_entries(pr, offers[oid], n) for oid, n in bought.items()]
    for data_part in (False, True):
        for i, d in enumerate(decisions):
            _job_entries(pr, i, d, data_part)
    for j, c in enumerate(signed):
        _contract_entries(pr, j, c)
    # a commitment's fixed charge was paid when it was signed
    used = {d.offer_id for d in decisions} | set(bought) | {c.offer_id for c in signed if not c.committed}
    _charge_entries(pr, used, bought, signed)
    _service_vat_entries(pr)
    entries = tuple(pr.out)
    return Ledger(
        entries,
        tuple(books),
        project.horizon_months,
        tuple(costs.discount_factors(project)),
        costs.monthly_discount_rate(project),
        costs.horizon_end_day(project),
        tax_parts=_tax_parts(project, entries, books),
        after_tax_factors=tuple(costs.after_tax_factors(project)),
        taxed=project.tax is not None,
        leases=_leases(project, offers, entries, signed),
        income_tax_rate=costs.income_tax_rate(project),
        years=tuple(costs.fiscal_years(project)),
    )


def _service_vat_entries(pr: _Pricer) -> None:
    """The VAT that is a cost on each rent or cloud offer's charges (costs.service_vat_rate): one entry per offer,
    category and whether it is committed, ``vat:<offer>:<category>`` (``…:committed``), rate × its charges in each
    month; its quantity is the charges before VAT (reporting currency)."""
    groups: dict[tuple[str, str, bool], dict[int, float]] = {}
    for e in pr.out:
        if e.offer is None or e.category == "carbon" or costs.service_vat_rate(pr.offers[e.offer], pr.project) == 0:
            continue
        per = groups.setdefault((e.offer, e.category, e.committed), {})
        for m, v in e.amounts:
            per[m] = per.get(m, 0.0) + v
    for (oid, cat, committed), per in sorted(groups.items()):
        o = pr.offers[oid]
        v = costs.service_vat_rate(o, pr.project)
        key = f"vat:{oid}:{cat}" + (":committed" if committed else "")
        base = sum(per.values())
        pr.add(key, "service_vat", cat, o, None, base, None, v, _amounts({m: a * v for m, a in per.items()}),
               committed=committed)  # fmt: skip


def _entry_flows(entries: Iterable[Entry]) -> Flows:
    out: Flows = {}
    for e in entries:
        per = out.setdefault(e.category, {})
        for m, v in e.amounts:
            per[m] = per.get(m, 0.0) + v
    return out


def _tax_parts(project: Project, entries: tuple[Entry, ...], books: Sequence[Book]):
    """The plan's income tax by part (costs.income_tax_parts): the deductible costs of every entry, and each
    purchase's (or owned servers') tax depreciation and sale, its assets read from its own entries
    (costs.column_assets, as the model reads a purchase column's)."""
    if project.tax is None:
        return ()
    assets = []
    for b in books:
        own = [e for e in entries if e.offer == b.offer and e.key.startswith(("buy:", "own:"))]
        assets += costs.column_assets(_entry_flows(own), project, b.nodes)
    parts = costs.income_tax_parts(_entry_flows(entries), assets, project)
    return tuple((name, _amounts(per)) for name, per in parts.items())


def _leases(project: Project, offers: Mapping[str, Offer], entries: tuple[Entry, ...], signed: list[RentalContract]):
    """The contracts booked as leases (costs, "Leases"): of a lease offer, signed for more than 12 months. Each is
    booked over its whole signed schedule, from its commencement: a commitment signed before the start began in
    the past (its balances are carried into the horizon), a contract may run past the horizon end (its liability
    is then still open there)."""
    from . import holdings  # holdings prices commitments with the cost rules

    rate = costs.incremental_borrowing_rate(project)
    behind = {
        rc: months_before_start(c.start_date, project.start_date)
        for rc, c in zip(holdings.committed_contracts(project), project.commitments, strict=True)
    }
    out = []
    by_key = {e.key: e for e in entries}
    for j, c in enumerate(signed):
        length = (c.term_months or c.months) if c.committed else c.months
        if not costs.is_lease(offers[c.offer_id]) or length <= costs.LEASE_MIN_MONTHS:
            continue
        rent, setup = by_key.get(f"rent{j}:rent"), by_key.get(f"rent{j}:setup")
        if rent is None or not rent.amounts:
            continue
        payment = rent.amounts[0][1]  # the same every month of the contract
        first = c.start_month - (behind.get(c, 0) if c.committed else 0)
        payments = {first + k: payment for k in range(length)}
        fee = setup.amount if setup else 0.0
        fee_month = setup.amounts[0][0] if setup and setup.amounts else None
        out.append((j, costs.lease_book(payments, fee, first, rate, fee_month)))
    return tuple(out)


__all__ = [
    "EXPR",
    "KINDS",
    "Allocation",
    "allocate",
    "Book",
    "Entry",
    "Ledger",
    "contract_order",
    "fx_key",
    "ledger",
    "reporting_unit_price",
    "template",
]
