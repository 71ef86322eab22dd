"""The verifier's money check: every amount of a plan derived from the quotes by the verifier's own small rules.

The plan's ledger (solver.ledger) is priced by the rules of ``solver.costs`` and ``solver.contracts``. This module
does not call them. From the raw inputs — each offer's quoted fields, the project's settings, and the plan's own
decisions (jobs, nodes bought, contracts signed) — it states what every ledger entry must be: its key, kind,
category, node count, quantity, unit price, rate, the months it is paid in, and its amount. The fields come
from rules written here a second time, small and on purpose apart:

    volume tier        the highest tier whose least nodes the offer's total bought reaches (all-units)
    calendar           month m is the calendar month m after the start date's (month 0: from the start date to
                       the next 1st); the horizon ends on the 1st of month horizon_months
    delivery month     the calendar month of day lead_time_days, at most the horizon's last month (capex,
                       network, the fixed charge and depreciation start there)
    days held          a bought node from its lead time to the horizon end; an owned node over its window, from
                       the ``owned`` entry's own dates (and its residual value from the entry)
    commitments        each signed contract from the project's ``commitments``: its first payment day on or after
                       the start, the months left after those paid before it, cut at the horizon end, its rate
    job data           the TB a job holds and moves from its workload: dataset_tb, checkpoints_kept checkpoints of
                       the trainable state (the sizing's bytes / 10^12), the dataset again when it moves on
    rent tier          a contract of ℓ months is signed at a tier whose minimum length is at most ℓ, at the
                       cheapest such rate; a commitment at its stated rate, else the cheapest tier its signed
                       length reaches; node-months from the contract's own start and length
    loan               the annuity A = F·i/(1 − (1+i)^−n), i = annual rate/12, instalments from the month after
                       delivery, the balance repaid in the horizon's last month
    FTEs               ⌈peak nodes held / nodes_per_fte⌉, the nodes held counted here month by month, paid from
                       the first to the last month anything is held (month 0 by the share of it in the project)
    power              busy 0.75 and idle 0.15 of the server's maximum draw (Epoch AI's cost model, as
                       solver.costs states it; stated again here so that a change of one is caught)
    months             an amount over a span of days is spread over the calendar months in proportion to its
                       days in each; a price per month (colocation, storage per TB-month) is paid for the months
                       held, a month held in part by its days / the days of that month
    price paths        the path of an amount's mode that names its offer, else its GPU, else the mode alone;
                       its index in month m is (1 + pct/100)^(m/12), or the m-th listed value (the last one after
                       the list); a purchase takes the buy index of its delivery month, a contract the index of
                       the month it starts (a commitment none), cloud hours and electricity that of each month
                       they are paid in
    FX paths           an amount in a quoted currency converts at the rate in force in the month it is paid (the
                       last step dated in that month or before, else fx_rates): × that rate / fx_rates; a
                       purchase's price, duty, VAT and network at the delivery month's rate, its residual value at
                       the horizon's last month's
    carbon             kWh × the grid's gCO2e/kWh (models.grid, the region's figure) / 10^6 × the year's carbon
                       price (carbon_price_per_t × (1 + change)^(year − 1), or carbon_price_by_year, the last
                       holding), one entry per project year; the kWh: a bought or owned node idles at 0.15 of its
                       power over its days held, a contract's node over every month of it (its days), a job draws
                       0.75 − 0.15 on bought or contracted nodes and 0.75 on the cloud over its wall hours, × PUE; a
                       node without power_kw_per_node draws its GPUs' board power ÷ (5.6/10.2) (the DGX H100
                       datasheet: 8 × 700 W of a 10.2 kW system); no VAT on it

Each entry's amount is then its formula template (solver.formulas, the workbook's formula) evaluated on the
fields derived here, and placed in its months by the rules above. The plan's ledger must match entry by entry,
field by field and month by month; its totals, categories, cash flows, NPV (discounted here at
(1 + r)^(1/12) − 1 a month, end-of-month timing), P&L years and budgets must match the amounts derived here.
A rule of ``solver.costs`` changed in one place moves the ledger and the model together, but not this module:
the verifier refuses the plan, naming the entry.
"""

from __future__ import annotations

import calendar
import datetime as dt
import math
from collections.abc import Callable, Mapping, Sequence

from procure.models.gpu import gpu_table
from procure.models.grid import intensity_of
from procure.models.holdings import Owned
from procure.models.offer import Offer
from procure.models.project import Project
from procure.models.units import DAYS_PER_MONTH, HOURS_PER_DAY

from .formulas import entry_formula_value, parameters
from .ledger import Entry, contract_order
from .plan import Plan
from .sizing.profile import checkpoint_bytes

#: the verifier's own statement of the power fractions (solver.costs: Epoch AI, cost_analysis_standalone.py)
BUSY = 0.75
IDLE = 0.15
#: the GPUs' share of a server's maximum draw (NVIDIA DGX H100 datasheet: 8 × 700 W of 10.2 kW)
GPU_SHARE = 5.6 / 10.2

Months = dict[int, float]


class _Derive:
    """The entries a plan must have, derived from the quotes (module docstring)."""

    def __init__(self, project: Project, offers: Mapping[str, Offer], plan: Plan):
        self.p, self.offers, self.plan = project, offers, plan
        self.M = project.horizon_months
        self.H = float(self.first(self.M))
        self.params = {**parameters(project), "busy": BUSY, "idle": IDLE}
        self.out: list[Entry] = []
        self.bad: list[str] = []
        self.capitalised: list[tuple[float, int, int, float]] = []  # (amount, delivery month, life months, resale)
        # servers as income tax sees them: (tax basis, servers, month put in use, month sold, proceeds)
        self.assets: list[tuple[float, int, int, int, float]] = []
        self.workloads = {w.name: w for w in project.workloads}
        # the servers already owned, by the offer id each entry gets: '<offer>.owned', then '.owned2', '.owned3', …
        self.owned_entries: dict[str, Owned] = {}
        count: dict[str, int] = {}
        for e in project.owned:
            count[e.offer] = count.get(e.offer, 0) + 1
            self.owned_entries[f"{e.offer}.owned{count[e.offer] if count[e.offer] > 1 else ''}"] = e

    # --- helpers ---------------------------------------------------------------------------------
    def fx(self, o: Offer) -> float:
        return self.p.fx_rate(o.currency)

    @property
    def on_paths(self) -> bool:
        return bool(self.p.price_paths or self.p.fx_paths)

    def idx(self, o: Offer, mode: str, month: int) -> float:
        """The price index of ``mode`` for offer ``o`` in ``month`` (module docstring, "price paths")."""
        base = o.id.split(".owned")[0] if ".owned" in o.id else o.id
        found, rank = None, -1
        for path in self.p.price_paths:
            if path.mode != mode:
                continue
            if path.offer is not None:
                r = 2 if path.offer in (base, o.id) else -1
            elif path.gpu is not None:
                r = 1 if path.gpu == o.gpu else -1
            else:
                r = 0
            if r > rank:
                found, rank = path, r
        if found is None:
            return 1.0
        if found.monthly is not None:
            return float(found.monthly[min(max(month, 0), len(found.monthly) - 1)])
        return (1.0 + (found.annual_pct or 0.0) / 100.0) ** (max(month, 0) / 12.0)

    def fxi(self, o: Offer, month: int) -> float:
        """The FX path's rate of month ``month`` over fx_rates for ``o``'s currency (module docstring, "FX paths")."""
        code = o.currency
        if code is None or code == self.p.currency or code not in self.p.fx_paths:
            return 1.0
        today = self.p.fx_rates[code]
        rate = today
        for step in self.p.fx_paths[code]:
            if self.calendar_month(max(0.0, self.day(step.from_))) <= month:
                rate = step.rate
        return rate / today

    def currency(self, o: Offer | None, kind: str) -> str:
        if kind == "carbon":
            return self.p.carbon_price_currency or self.p.currency
        if o is None or kind in ("idle", "energy", "interest", "owned_residual", "service_vat"):
            return self.p.currency
        return o.currency or self.p.currency

    def kw(self, o: Offer) -> float:
        """A node's maximum draw: its power_kw_per_node, else its GPUs' board power ÷ GPU_SHARE."""
        if o.power_kw_per_node is not None:
            return o.power_kw_per_node
        return o.gpus_per_node * gpu_table()[o.gpu].tdp_w / 1000 / GPU_SHARE

    def carbon_price(self, year: int) -> float:
        """The carbon price per tonne in 0-based project year ``year``, in its own currency."""
        p = self.p
        if p.carbon_price_by_year is not None:
            return p.carbon_price_by_year[min(year, len(p.carbon_price_by_year) - 1)]
        return (p.carbon_price_per_t or 0.0) * (1 + (p.carbon_price_change_pct_per_year or 0.0)) ** year

    def carbon(self, k: str, o: Offer, nodes, kwh: Months, **extra) -> None:
        """The carbon price of ``kwh`` (month → kWh) drawn on ``o``: one entry per project year, kWh × g / 10^6 ×
        that year's price, placed in the months in proportion to their kWh."""
        grid = intensity_of(o.region)
        if grid is None or not grid.g_per_kwh:
            return
        by_year: dict[int, Months] = {}
        for m, v in kwh.items():
            if v and self.carbon_price(m // 12):
                by_year.setdefault(m // 12, {})[m] = v
        for y, months in sorted(by_year.items()):
            energy = sum(months.values())
            place = (lambda ms, e: lambda a: {m: a * v / e for m, v in ms.items()})(months, energy)
            self.add(f"{k}:carbon:y{y + 1}", "carbon", "carbon", o, nodes, energy, self.carbon_price(y),
                     grid.g_per_kwh, place, **extra)  # fmt: skip

    def day(self, date) -> float:
        return float((date - self.p.start_date).days)

    def window(self, e: Owned) -> tuple[float, float]:
        """The days an owned entry is held: from its ``from`` (day 0) until its ``until`` (the horizon end)."""
        return (self.day(e.from_) if e.from_ else 0.0), min(self.day(e.until) if e.until else self.H, self.H)

    # the calendar, stated again: month m is the calendar month m after the start's; day 0 is the start date
    def first(self, m: int) -> int:
        """The day the calendar month m begins on (its 1st; ≤ 0 for the start's own month)."""
        s = self.p.start_date
        y, mo = divmod(s.year * 12 + s.month - 1 + m, 12)
        return (dt.date(y, mo + 1, 1) - s).days

    def calendar_month(self, day: float) -> int:
        d = self.p.start_date + dt.timedelta(days=math.floor(day + 1e-9))
        return (d.year - self.p.start_date.year) * 12 + d.month - self.p.start_date.month

    def month(self, day: float) -> int:
        return max(0, min(self.calendar_month(day), self.M - 1))

    def delivery(self, o: Offer) -> int:
        return self.month(float(o.lead_time_days))

    def days_in(self, lo: float, hi: float) -> Months:
        """The days of [lo, hi) in each calendar month (within the horizon's months)."""
        out: Months = {}
        m = self.calendar_month(lo)
        while self.first(m) < hi:
            part = min(hi, self.first(m + 1)) - max(lo, self.first(m))
            if part > 0:
                k = max(0, min(m, self.M - 1))
                out[k] = out.get(k, 0.0) + part
            m += 1
        return out

    def spread(self, amount: float, lo: float, hi: float) -> Months:
        """``amount`` over the project months in proportion to the days of [lo, hi) in each."""
        if hi <= lo:
            return {self.month(lo): amount}
        return {m: amount * part / (hi - lo) for m, part in self.days_in(lo, hi).items()}

    def month_share(self, lo: float, hi: float) -> Months:
        """The share of each calendar month that [lo, hi) holds (a price per month over part of one is prorated)."""
        return {m: part / (self.first(m + 1) - self.first(m)) for m, part in self.days_in(lo, hi).items()}

    def months_of(self, lo: float, hi: float) -> float:
        return sum(self.month_share(lo, hi).values()) if hi > lo else 0.0

    def prorate(self, amount: float, lo: float, hi: float) -> Months:
        """``amount`` (a price per month × the months held) over the months in proportion to their shares."""
        shares = self.month_share(lo, hi)
        total = sum(shares.values())
        return {m: amount * v / total for m, v in shares.items()} if total else {}

    def add(
        self,
        key,
        kind,
        category,
        o,
        nodes,
        quantity,
        unit,
        rate,
        place: Callable[[float], Months],
        factor: Callable[[int], float] | None = None,
        **extra,
    ):
        """An entry whose amount is its template on these fields, placed in months by ``place(amount)``; on price
        or FX paths each month's part × ``factor(month)`` and the entry's index is what that makes of the amount."""
        draft = Entry(
            key, kind, category, o.id if o else None, nodes, quantity, unit, rate, self.currency(o, kind), (), **extra
        )
        try:
            amount = entry_formula_value(draft, self.params, self.p.currency)
        except (ValueError, KeyError, ZeroDivisionError) as exc:
            self.bad.append(f"money: {key} ({kind}) cannot be priced from its quote: {exc}")
            return
        placed = place(amount)
        index = None
        if self.on_paths:
            if factor is not None:
                placed = {m: v * factor(m) for m, v in placed.items()}
            index = sum(placed.values()) / amount if amount else 1.0
        months = tuple(sorted(placed.items()))
        self.out.append(
            Entry(
                key, kind, category, draft.offer, nodes, quantity, unit, rate, draft.currency, months, **extra,
                index=index,
            )
        )  # fmt: skip

    # --- purchases ---------------------------------------------------------------------------------
    def purchases(self) -> None:
        bought: dict[str, int] = {}
        for pu in self.plan.purchases:
            bought[pu.offer_id] = bought.get(pu.offer_id, 0) + pu.nodes
        owned = set(self.owned_entries)
        for oid, n in sorted(bought.items()):
            o = self.offers.get(oid)
            if o is None or n <= 0 or o.mode != "buy":
                continue
            if oid in owned:
                self.owned(o, n)
            else:
                self.bought(o, n)

    def bought(self, o: Offer, n: int) -> None:
        tier = quoted_tier(o, n)
        if tier is None:
            self.bad.append(f"money: {n} node(s) of {o.id} reach none of its volume tiers")
            return
        least, q = tier
        fx, d, k = self.fx(o), self.delivery(o), f"buy:{o.id}"
        duty = o.import_duty_pct or 0.0
        vat = 0.0 if self.p.vat_recoverable else (o.vat_pct or 0.0)
        price_idx = self.idx(o, "buy", d) if self.on_paths else 1.0  # the price set at delivery
        paid = price_idx * self.fxi(o, d) if self.on_paths else 1.0  # and converted when paid there
        landed = q * fx * paid * (1 + duty) * (1 + vat)  # one node, as paid
        fin = o.financing if o.financing is not None else self.p.financing
        schedule = self.loan(landed, fin, d) if fin is not None else {d: landed}  # capex per node by month
        parts = {"price": q * fx * paid, "duty": q * fx * paid * duty, "vat": q * fx * paid * (1 + duty) * vat}

        def share(part: float) -> Callable[[float], Months]:
            return lambda _amount: {m: n * v * part / landed for m, v in schedule.items()} if landed else {}

        self.add(f"{k}:capex", "price", "capex", o, n, None, q, None, share(parts["price"]), tier_nodes=least)
        if duty:
            self.add(f"{k}:duty", "duty", "capex", o, n, None, q, duty, share(parts["duty"]))
        if vat:
            self.add(f"{k}:vat", "vat", "capex", o, n, 1.0 + duty, q, vat, share(parts["vat"]))
        if o.network:
            self.add(f"{k}:network", "network", "network", o, n, None, o.network, None, lambda a: {d: a * paid})
        lead = float(o.lead_time_days)
        days = max(0.0, self.H - lead)
        sold = price_idx * self.fxi(o, self.M - 1) if self.on_paths else 1.0
        self.add(f"{k}:residual", "residual", "residual_value", o, n, None, q, o.residual,
                 lambda a: {self.M - 1: a * sold})  # fmt: skip
        self.running(k, o, n, q, days, lead, self.H, {}, price_idx)
        if fin is not None:
            self.interest(k, o, n, landed, fin, d)
        life = int(
            round(12 * (o.depreciation_years if o.depreciation_years is not None else self.p.depreciation_years))
        )
        resale = n * q * fx * o.residual * sold
        self.capitalised.append((n * (landed + o.network * fx * paid), d, life, resale))
        self.assets.append((n * (landed + o.network * fx * paid), n, d, self.M - 1, resale))

    def running(
        self, k: str, o: Offer, n: int, q: float, days: float, lo: float, hi: float, extra: dict, price_idx=1.0
    ) -> None:
        """Maintenance, colocation and idle energy of ``n`` nodes held over [lo, hi) (``days`` days); on the paths
        maintenance at the purchase's price index, both converted in the month paid, electricity at each month's
        energy index."""
        rows = (
            ("maintenance", "maintenance", q, o.maintenance, lambda m: price_idx * self.fxi(o, m)),
            ("colocation", "colocation", o.colocation, None, lambda m: self.fxi(o, m)),
            (
                "idle",
                "energy",
                self.p.electricity_price_per_kwh,
                o.power_kw_per_node,
                lambda m: self.idx(o, "energy", m),
            ),
        )
        for kind, cat, unit, rate, factor in rows:
            if kind == "colocation":  # a price per node-month: calendar months held, partial ones by days
                self.add(f"{k}:{kind}", kind, cat, o, n, self.months_of(lo, hi), unit, rate,
                         lambda a: self.prorate(a, lo, hi), factor, **extra)  # fmt: skip
            else:
                self.add(f"{k}:{kind}", kind, cat, o, n, days, unit, rate, lambda a: self.spread(a, lo, hi), factor,
                         **extra)  # fmt: skip
        idle_kwh = n * self.kw(o) * IDLE * days * HOURS_PER_DAY * self.p.pue
        self.carbon(k, o, n, self.spread(idle_kwh, lo, hi), **extra)

    def loan(self, landed: float, fin, d: int) -> Months:
        """Capex per node by month when financed: the down payment at delivery, each instalment's principal,
        the balance left at the horizon end repaid in its last month."""
        i, n = fin.annual_rate / 12, fin.months
        loan = landed * (1 - fin.down_payment_pct)
        pay = loan * i / (1 - (1 + i) ** -n) if i else loan / n
        out: Months = {d: landed - loan}
        balance = loan
        for j in range(1, n + 1):
            m = d + j
            if m > self.M - 1:
                break
            part = pay - balance * i if j < n else balance
            out[m] = out.get(m, 0.0) + part
            balance -= part
        if balance > 1e-9 * max(1.0, loan):
            out[self.M - 1] = out.get(self.M - 1, 0.0) + balance
        return out

    def interest(self, k: str, o: Offer, n: int, landed: float, fin, d: int) -> None:
        i, F = fin.annual_rate / 12, landed * (1 - fin.down_payment_pct)
        pay = F * i / (1 - (1 + i) ** -fin.months) if i else F / fin.months
        balance, months = F, {}
        for j in range(1, fin.months + 1):
            if d + j > self.M - 1:
                break
            if balance * i:
                months[d + j] = n * balance * i
            balance -= pay - balance * i if j < fin.months else balance
        self.add(
            f"{k}:interest",
            "interest",
            "interest",
            o,
            n,
            float(len(months)),
            F,
            fin.annual_rate,
            lambda _a: months,
            term_months=fin.months,
            down_payment=fin.down_payment_pct,
        )

    def owned(self, o: Offer, n: int) -> None:
        entry = self.owned_entries.get(o.id)
        if entry is None:
            self.bad.append(f"money: {o.id} is not an owned entry of the project")
            return
        lo, hi = self.window(entry)
        q = next((price for least, price in reversed(o.buy_tiers) if least <= 1), o.buy_tiers[0][1])
        k = f"own:{o.id}"
        self.running(k, o, n, q, max(0.0, hi - lo), lo, hi, {"committed": True})
        if entry.residual_value:
            last = self.month(max(lo, hi - 1e-6))
            self.add(
                f"{k}:residual",
                "owned_residual",
                "residual_value",
                o,
                n,
                None,
                entry.residual_value,
                None,
                lambda a: {last: a},
                committed=True,
            )
        self.capitalised.append((0.0, 0, 1, n * entry.residual_value if entry.residual_value else 0.0))
        if entry.residual_value:
            self.assets.append((0.0, n, 0, self.month(max(lo, hi - 1e-6)), n * entry.residual_value))

    # --- jobs --------------------------------------------------------------------------------------
    def jobs(self) -> None:
        for data_part in (False, True):
            for i, dec in enumerate(self.plan.decisions):
                o = self.offers.get(dec.offer_id)
                if o is not None:
                    self.job(i, dec, o, data_part)

    def job(self, i: int, dec, o: Offer, data_part: bool) -> None:
        spot = (o.spot_overhead_pct or 0.0) if o.mode == "cloud" else 0.0
        lo = dec.start_day
        hi = lo + dec.hours * (1 + spot) / HOURS_PER_DAY
        k, w = f"job{i}", {"workload": dec.workload}
        if data_part:
            wl = self.workloads.get(dec.workload)
            if wl is None:  # the verifier's count rule names it
                return
            checkpoint = checkpoint_bytes(wl) / 1e12  # one checkpoint of the trainable state, TB (10^12 bytes)
            if o.storage:
                held = wl.dataset_tb + wl.checkpoints_kept * checkpoint
                self.add(f"{k}:storage", "storage", "storage", o, dec.nodes, held, o.storage, self.months_of(lo, hi),
                         lambda a: self.prorate(a, lo, hi), lambda m: self.fxi(o, m), **w)  # fmt: skip
            if o.egress:
                out = checkpoint + (wl.dataset_tb if wl.dataset_moves_on else 0.0)
                self.add(f"{k}:egress", "egress", "egress", o, dec.nodes, out, o.egress, None,
                         lambda a: {self.month(hi): a}, lambda m: self.fxi(o, m), **w)  # fmt: skip
            return
        contracted = o.mode == "rent" or (o.mode == "cloud" and o.commitment_months is not None)
        fraction = BUSY - IDLE if o.mode == "buy" or contracted else BUSY
        self.carbon(k, o, dec.nodes, self.spread(dec.nodes * self.kw(o) * fraction * (hi - lo) * HOURS_PER_DAY
                                                 * self.p.pue, lo, hi), **w)  # fmt: skip
        if o.mode == "buy":
            self.add(f"{k}:energy", "energy", "energy", o, dec.nodes, dec.hours, self.p.electricity_price_per_kwh,
                     o.power_kw_per_node, lambda a: self.spread(a, lo, hi), lambda m: self.idx(o, "energy", m),
                     **w)  # fmt: skip
        elif o.mode == "cloud" and o.commitment_months is None:
            self.add(f"{k}:cloud", "cloud", "cloud", o, dec.nodes, dec.hours, o.price_per_node_hour, spot,
                     lambda a: self.spread(a, lo, hi), lambda m: self.idx(o, "cloud", m) * self.fxi(o, m),
                     **w)  # fmt: skip

    # --- contracts -----------------------------------------------------------------------------------
    def contracts(self) -> None:
        for j, c in enumerate(contract_order(r.contract for r in self.plan.rentals)):
            o = self.offers.get(c.offer_id)
            if o is not None:
                self.contract(j, c, o)

    def commitments(self) -> None:
        """The plan's signed contracts against the project's ``commitments``, each stated again here: it begins on
        its start_date, or, signed before the project start, on its first payment day after it with the months
        paid before day 0 behind it (one on the same day of every month from its own start, the month's last day
        when it is shorter); it runs the months left, cut at the horizon end; it is signed for its whole length, at
        its stated rate (None: its offer's tier, contract_rate)."""
        want = []
        s = self.p.start_date
        for c in self.p.commitments:
            behind, pay = 0, c.start_date
            while pay < s:
                behind += 1
                y, mo = divmod(c.start_date.year * 12 + c.start_date.month - 1 + behind, 12)
                pay = dt.date(y, mo + 1, min(c.start_date.day, calendar.monthrange(y, mo + 1)[1]))
            m = (pay.year - s.year) * 12 + pay.month - s.month
            phase = float(pay.day - 1)
            months = min(c.months - behind, self.M - m)
            want.append(
                (
                    c.offer,
                    c.nodes,
                    m,
                    round(phase if phase >= 1e-9 else 0.0, 6),
                    months,
                    c.months,
                    c.price_per_node_month,
                )
            )
        said = [
            (r.offer_id, r.nodes, r.start_month, round(r.phase_days, 6), r.months, r.term_months, r.rate)
            for r in self.plan.rentals
            if r.committed
        ]
        if sorted(said, key=repr) != sorted(want, key=repr):
            self.bad.append(
                f"money: the plan holds the commitments {_signed(said)}; the project signed {_signed(want)}"
            )

    def contract(self, j: int, c, o: Offer) -> None:
        k = f"rent{j}"
        months = {m: 1.0 for m in range(c.start_month, c.start_month + c.months)}
        term, rate, why = contract_rate(o, c)
        if why:  # priced at the term it names where the offer quotes one: the problem is the term, said once
            self.bad.append(f"money: a contract of {c.nodes} × {o.id} from month {c.start_month + 1}: {why}")
            if not rate:
                return
        unit: float | None
        if o.mode == "rent":
            run, fee, unit, upfront = "rent", "setup", rate, o.setup_fee
            kinds = ("rent", "setup")
        else:  # a reserved cloud term: its hourly rate (× 730 h a month in its template), or the rate signed
            hourly = (
                rate / (HOURS_PER_DAY * DAYS_PER_MONTH) if c.committed and c.rate is not None else o.price_per_node_hour
            )
            run, fee, unit, upfront = "cloud", "cloud", hourly, o.upfront_per_node or 0.0
            kinds = ("reserved", "reserved_setup")
        t = {"term_months": term, "committed": c.committed}
        per = (lambda a: {m: a / len(months) for m in months}) if months else (lambda a: {})
        signed = 1.0 if c.committed or not self.on_paths else self.idx(o, o.mode, c.start_month)  # its start's rate

        def factor(m: int) -> float:
            return signed * self.fxi(o, m)

        self.add(f"{k}:rent", kinds[0], run, o, c.nodes, float(c.months), unit, None, per, factor, **t)
        if upfront or o.mode == "rent":
            self.add(
                f"{k}:setup", kinds[1], fee, o, c.nodes, None, upfront, None, lambda a: {c.start_month: a}, factor, **t
            )
        # a node held in a month idles over the month's days in the project (month 0 from the start date)
        idle = {m: c.nodes * self.kw(o) * IDLE * (self.first(m + 1) - max(0, self.first(m))) * HOURS_PER_DAY * self.p.pue
                for m in months}  # fmt: skip
        self.carbon(k, o, c.nodes, idle, committed=c.committed)

    # --- fixed charges and staff -------------------------------------------------------------------
    def charges(self) -> None:
        used = {d.offer_id for d in self.plan.decisions}
        used |= {pu.offer_id for pu in self.plan.purchases if pu.nodes > 0}
        used |= {r.offer_id for r in self.plan.rentals if not r.committed}
        for oid in sorted(used):
            o = self.offers.get(oid)
            if o is not None and o.fixed:
                d, paid = self.delivery(o), self.fxi(o, self.delivery(o))  # converted in the month it is paid
                self.add(f"fixed:{oid}", "fixed", "fixed", o, None, 1.0, o.fixed, None, _in(d), _times_const(paid))
        self.staff()

    def held(self) -> list[int]:
        """Nodes of the staff's modes held in each month, counted from the plan's purchases and contracts."""
        s = self.p.staff
        modes = {str(m) for m in s.modes} if s is not None else set()
        held = [0] * self.M
        for pu in self.plan.purchases:
            o = self.offers.get(pu.offer_id)
            if o is None or "buy" not in modes or pu.nodes <= 0:
                continue
            if pu.offer_id in self.owned_entries:
                lo, hi = self.window(self.owned_entries[pu.offer_id])
                span = range(self.month(lo), self.month(max(lo, hi - 1e-6)) + 1)
            else:
                span = range(self.delivery(o), self.M)
            for m in span:
                held[m] += pu.nodes
        for r in self.plan.rentals:
            o = self.offers.get(r.offer_id)
            if o is not None and o.mode in modes:
                for m in range(max(0, r.start_month), min(r.start_month + r.months, self.M)):
                    held[m] += r.nodes
        return held

    def staff(self) -> None:
        s = self.p.staff
        if s is None:
            return
        held = self.held()
        peak = max(held, default=0)
        if peak <= 0:
            return
        ftes = math.ceil(peak / s.nodes_per_fte)
        months = [m for m, n in enumerate(held) if n > 0]
        span = range(months[0], months[-1] + 1)
        # a month is paid whole, but for the start's month when the project begins after its 1st
        share = {m: (self.first(m + 1) - max(0, self.first(m))) / (self.first(m + 1) - self.first(m)) for m in span}
        total = sum(share.values())
        self.add("staff", "staff", "staff", None, peak, float(ftes), s.cost_per_fte_year, total,
                 lambda a: {m: a * v / total for m, v in share.items()})  # fmt: skip

    def derive(self) -> list[Entry]:
        self.purchases()
        self.jobs()
        self.commitments()
        self.contracts()
        self.charges()
        self.service_vat()
        return self.out

    def service_vat(self) -> None:
        """VAT that is a cost on a rent or cloud offer's charges: its vat_pct × the offer's entries of each
        category (committed ones apart), month by month, when the project does not recover VAT."""
        if self.p.vat_recoverable:
            return
        groups: dict[tuple[str, str, bool], Months] = {}
        for e in self.out:
            o = self.offers.get(e.offer) if e.offer else None
            if o is None or o.mode == "buy" or not o.vat_pct or e.category == "carbon":
                continue
            per = groups.setdefault((o.id, e.category, e.committed), {})
            for m, v in e.amounts:
                per[m] = per.get(m, 0.0) + v
        for (oid, cat, committed), per in sorted(groups.items()):
            o, base = self.offers[oid], sum(per.values())
            rate = o.vat_pct or 0.0
            key = f"vat:{oid}:{cat}" + (":committed" if committed else "")
            place = (lambda months, r: lambda _a: {m: v * r for m, v in months.items()})(per, rate)
            self.add(key, "service_vat", cat, o, None, base, None, rate, place, committed=committed)


def _signed(rows) -> str:
    """Commitments as (offer, nodes, start month, phase, months held, months signed, rate), in words."""
    said = [
        f"{o}: {n} node(s) from month {m + 1} (+{ph:g} d) for {k} of {s} months at "
        + ("its tier's rate" if r is None else f"{r:,.2f}")
        for o, n, m, ph, k, s, r in sorted(rows, key=repr)
    ]
    return "; ".join(said) or "none"


def _times_const(k: float) -> Callable[[int], float]:
    """A month's factor that is ``k`` in every month (an amount paid in one month)."""
    return lambda _m: k


def _in(month: int) -> Callable[[float], Months]:
    """An amount placed whole in ``month``."""
    return lambda amount: {month: amount}


def quoted_tier(o: Offer, nodes: int) -> tuple[int, float] | None:
    """The volume tier (least nodes, price per node in the quote's currency) that ``nodes`` bought in total
    reach: the highest whose least nodes they reach (all-units); None below the first."""
    reached = [t for t in o.buy_tiers if t[0] <= nodes]
    return reached[-1] if reached else None


def contract_rate(o: Offer, c) -> tuple[int, float, str | None]:
    """(the term's months, its rate per node-month in the quote's currency, why the offer does not sell this
    contract or None). A rent contract of ℓ months is signed at a tier of minimum length L ≤ ℓ (``term_months``;
    none: the shortest) at that tier's rate; a commitment at its stated rate, else at the cheapest tier its
    signed length reaches; a reserved cloud term lasts exactly commitment_months at the hourly rate × 730 h."""
    if o.mode == "rent":
        tiers = list(o.rent_tiers)
        if not tiers:
            return 0, 0.0, "the offer quotes no rent"
        if c.committed:
            signed = c.term_months or c.months
            months, rate = min([t for t in tiers if t[0] <= signed] or tiers[:1], key=lambda t: (t[1], t[0]))
            return months, (c.rate if c.rate is not None else rate), None
        rates = dict(tiers)
        signed = c.term_months if c.term_months is not None else tiers[0][0]
        if signed not in rates:
            return signed, 0.0, f"signed at a {signed}-month term the offer does not quote"
        if c.months < signed:
            return signed, rates[signed], f"lasts {c.months} months < the minimum {signed} of its term tier"
        return signed, rates[signed], None
    if o.commitment_months is None or o.price_per_node_hour is None:
        return 0, 0.0, f"a {o.mode} offer without a contract term"
    term, rate = o.commitment_months, o.price_per_node_hour * HOURS_PER_DAY * DAYS_PER_MONTH
    if c.committed and c.rate is not None:
        rate = c.rate
    if not c.committed and c.months != term:
        return term, rate, f"lasts {c.months} months; a reserved term is exactly commitment_months = {term}"
    return term, rate, None


def _close(a: float, b: float, tol: float = 1e-6) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def money_problems(project: Project, offers: Mapping[str, Offer], plan: Plan) -> list[str]:
    """What in the plan's money differs from the amounts derived from the quotes (module docstring)."""
    d = _Derive(project, offers, plan)
    want = d.derive()
    bad = list(d.bad) + entry_problems(plan.ledger.entries, want)
    bad += _total_problems(project, plan, want) + _pnl_problems(project, plan, want, d.capitalised)
    from .verify_tax import lease_problems, tax_problems

    bad += lease_problems(project, offers, plan, want)
    if project.tax is not None:
        bad += tax_problems(project, plan, want, d.assets)
    return bad


def entry_problems(said: Sequence[Entry], want: Sequence[Entry]) -> list[str]:
    """Entry by entry, what differs between a plan's ledger (``said``) and the entries derived from the quotes:
    a missing or extra key, or a field or a month's amount that differs, named by the entry's key."""
    bad: list[str] = []
    mine, theirs = {e.key: e for e in said}, {e.key: e for e in want}
    for key in sorted(theirs.keys() - mine.keys()):
        bad.append(f"ledger: entry {key} ({theirs[key].amount:,.2f}) the quotes call for is missing from the plan")
    for key in sorted(mine.keys() - theirs.keys()):
        bad.append(f"ledger: entry {key} ({mine[key].amount:,.2f}) is in the plan but the quotes call for none")
    for key in sorted(mine.keys() & theirs.keys()):
        bad += _field_problems(mine[key], theirs[key])
    return bad


_FIXED_FIELDS = (
    "kind",
    "category",
    "offer",
    "currency",
    "workload",
    "term_months",
    "tier_nodes",
    "down_payment",
    "committed",
)


def _field_problems(a: Entry, b: Entry) -> list[str]:
    bad = [
        f"ledger: {a.key} has {name} {getattr(a, name)!r} in the plan, {getattr(b, name)!r} from the quotes"
        for name in _FIXED_FIELDS
        if getattr(a, name) != getattr(b, name)
    ]
    if (a.index is None) != (b.index is None):
        bad.append(f"ledger: {a.key} has index {a.index} in the plan, {b.index} from the quotes")
    for name in ("nodes", "quantity", "unit_price", "rate", "index"):
        x, y = getattr(a, name), getattr(b, name)
        if (x or 0.0) != (y or 0.0) and not _close(x or 0.0, y or 0.0):
            bad.append(f"ledger: {a.key} has {name} {x} in the plan, {y} from the quotes")
    if not _close(a.amount, b.amount):
        bad.append(f"ledger: {a.key} is {a.amount:,.2f} in the plan, {b.amount:,.2f} from the quotes")
        return bad
    x, y = dict(a.amounts), dict(b.amounts)
    for m in sorted(x.keys() | y.keys()):
        if not _close(x.get(m, 0.0), y.get(m, 0.0)):
            bad.append(
                f"ledger: {a.key} pays {x.get(m, 0.0):,.2f} in month {m + 1} in the plan, "
                f"{y.get(m, 0.0):,.2f} from the quotes"
            )
            break
    return bad


def _by_month(entries: Sequence[Entry], n: int) -> list[float]:
    out = [0.0] * n
    for e in entries:
        for m, v in e.amounts:
            if 0 <= m < n:
                out[m] += v
    return out


def _total_problems(project: Project, plan: Plan, want: Sequence[Entry]) -> list[str]:
    """The plan's total, categories, cash flow by month, NPV and budgets against the amounts derived here."""
    bad: list[str] = []
    M = project.horizon_months
    total = sum(e.amount for e in want)
    if not math.isfinite(total):
        return ["cost: the total derived from the quotes is not finite"]
    if not _close(plan.total_cost, total):
        bad.append(f"cost: plan total {plan.total_cost:,.2f}, from the quotes {total:,.2f}")
    flows: dict[str, Months] = {}
    for e in want:
        per = flows.setdefault(e.category, {})
        for m, v in e.amounts:
            per[m] = per.get(m, 0.0) + v
    said = plan.flows
    for c in sorted(set(flows) | {c for c, per in said.items() if per}):
        a, b = sum(said.get(c, {}).values()), sum(flows.get(c, {}).values())
        if not _close(plan.breakdown.get(c, 0.0), b) or not _close(a, b):
            bad.append(f"cost: {c} is {plan.breakdown.get(c, 0.0):,.2f} in the plan, {b:,.2f} from the quotes")
            continue
        for m in sorted(set(said.get(c, {})) | set(flows.get(c, {}))):
            x, y = said.get(c, {}).get(m, 0.0), flows.get(c, {}).get(m, 0.0)
            if not _close(x, y):
                bad.append(f"cost: {c} in month {m + 1} is {x:,.2f} in the plan's cash flow, {y:,.2f} from the quotes")
                break
    monthly = _by_month(want, M)
    rate = (1.0 + project.discount_rate) ** (1.0 / 12.0) - 1.0
    npv = sum(v / (1.0 + rate) ** (m + 1) for m, v in enumerate(monthly))
    if not _close(plan.npv_cost, npv):
        bad.append(f"npv: plan NPV {plan.npv_cost:,.2f}, discounted from the quotes {npv:,.2f}")
    cash, peak = 0.0, 0.0
    for v in monthly:
        cash += v
        peak = max(peak, cash)
    capex = sum(flows.get("capex", {}).values())
    for cap, spent, what in (
        (project.budget_tco, total, "budget_tco: total"),
        (project.budget_cash, peak, "budget_cash: cumulative cash out peaks at"),
        (project.budget_capex, capex, "budget_capex: purchases cost"),
    ):
        if cap is not None and spent > cap * (1 + 1e-6):
            bad.append(f"{what} {spent:,.2f}, above {cap:,.2f}")
    return bad


def _pnl_problems(project: Project, plan: Plan, want: Sequence[Entry], books) -> list[str]:
    """The plan's P&L years against depreciation (straight line over the life from delivery), operating costs,
    interest and the gain on disposal derived here."""
    M = project.horizon_months
    dep = [0.0] * M
    gain = 0.0
    for amount, d, life, resale in books:
        for m in range(d, min(d + life, M)):
            dep[m] += amount / life
        gain += resale - (amount - amount / life * max(0, min(d + life, M) - d))
    operating = (
        "maintenance", "colocation", "energy", "rent", "setup", "cloud", "fixed", "storage", "egress", "staff", "carbon"
    )  # fmt: skip
    # fiscal years: a new one begins with each month (after the first) whose calendar month is the year's first
    s, fy = project.start_date, project.fiscal_year_start_month
    cuts = [m for m in range(1, M) if (s.month - 1 + m) % 12 + 1 == fy]
    edges = [0, *cuts, M]
    spans = list(zip(edges, edges[1:], strict=False))
    years = len(spans)
    bad: list[str] = []
    if len(plan.pnl) != years:
        return [f"pnl: the plan has {len(plan.pnl)} P&L years, the horizon's fiscal years {years}"]
    for y, said in enumerate(plan.pnl):
        months = range(*spans[y])
        if said.months != spans[y]:
            bad.append(f"pnl: year {y + 1} states months {said.months}; its fiscal year is months {spans[y]}")
        op = sum(v for e in want if e.category in operating for m, v in e.amounts if m in months)
        interest = sum(v for e in want if e.category == "interest" for m, v in e.amounts if m in months)
        derived = (sum(dep[m] for m in months), op, interest, gain if y == years - 1 else 0.0)
        stated = (said.depreciation, said.operating, said.interest, said.disposal_gain)
        if not all(_close(a, b) for a, b in zip(stated, derived, strict=True)):
            bad.append(
                f"pnl: year {y + 1} states depreciation, operating, interest, disposal gain "
                f"{', '.join(f'{v:,.2f}' for v in stated)}; from the quotes {', '.join(f'{v:,.2f}' for v in derived)}"
            )
    return bad


__all__ = ["BUSY", "IDLE", "contract_rate", "entry_problems", "money_problems", "quoted_tier"]
