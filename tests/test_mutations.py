"""Mutation harness of the independent verifier (issue 49): every money rule, deliberately wrong, must be refused.

Each mutation changes ONE rule where it lives: the module attribute of solver/costs.py, solver/contracts.py or
solver/timeline.py (and the names costs.py re-exports of the latter two), so that the optimizer's model, the
ledger, the plan and everything else that calls the rule see the same wrong rule. A real plan is then solved
(CBC, hours fixed by hand) on a small programme whose optimal plan uses that rule. The solve must raise
VerificationError: from the verifier (verify_plan), which states every rule a second time from the quotes,
or from the objective-ledger agreement check (reading.agreed, which stops the run). A wrong rule that comes
back as a plan is a rule the verifier cannot tell from the right one: the test names the mutation, the example,
the plan's total and NPV and how far the mutation moved them.

The mutations are data (``MUTATIONS``: id, what it changes, the module attributes, the example, the objectives
it runs under), so the test ids list every mutation with the example it ran on. Rules that only move money in
time or discount it (the NPV rules) run under both objectives: the verifier must refuse them whatever the plan
minimises. First a control: every example, unmutated, solves and verifies, and its plan really uses the rule
(it buys, it rents 3 months at the short tier, it buys exactly a tier boundary, it has staff, ...), so a refusal
is the mutation's doing, not a broken example's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from types import ModuleType

import pytest

from procure.models.tax import TaxSettings
from procure.solver import contracts, costs, holdings, jobdata, timeline
from procure.solver.verify import VerificationError

from helpers import offer, project, solve_fixed, workload

pytestmark = pytest.mark.slow


# --- the examples: small programmes whose optimal plan uses the rule ------------------------------------------


def _dearer():
    """The alternative the plan passes over: cloud hours at 1,000 per node-hour, far above buying or renting."""
    return offer(mode="cloud", id="dearer", price_per_node_hour=1_000.0, max_nodes=2)


def paths_case():
    """A node rented in USD from a CNY project for a 700-day job, 12 months at least, on a rent index of −20 % a
    year and an FX path (7.0, then 7.3 from the middle of month 5): the plan rents 12 months and renews for 12 at
    0.8 of the rate (216,000 USD, not 240,000 for one 24-month contract)."""
    p = project(
        [workload(deadline_days=720)],
        horizon_months=24,
        currency="CNY",
        fx_rates={"USD": 7.0},
        fx_rates_date="2026-12-31",
        fx_rates_source="test",
        fx_paths={"USD": [{"from": "2027-06-15", "rate": 7.3}]},
        price_paths=[{"mode": "rent", "annual_pct": -20}],
    )
    r = offer(mode="rent", id="r", price_per_node_month=10_000, currency="USD", min_term_months=12, max_nodes=2)
    return p, [r, _dearer()], _both("r", 1, 700 * 24.0)


def _both(oid: str, nodes: int, h: float) -> dict[tuple[str, str, int], float]:
    """The job's hours on ``nodes`` of the offer ``oid`` and of the dearer alternative."""
    return {("job", oid, nodes): h, ("job", "dearer", nodes): h}


def buy_case():
    """One node bought for 60,000 (a 600 h job), held 12 months at 8 % a year: capex in month 0, residual value,
    maintenance, colocation, idle energy and the job's busy energy."""
    p = project([workload(deadline_days=60)], horizon_months=12, discount_rate=0.08)
    b = offer(mode="buy", id="b", price_per_node=60_000, max_nodes=2)
    return p, [b, _dearer()], _both("b", 1, 600.0)


def rent_tiers_case():
    """An 80-day job on a rent offer quoted at 20,000 a month for 1 month or longer and 12,000 for 12 months or
    longer (setup 500): the plan rents 3 months at the short tier (60,500), not 12 at the long one (144,500)."""
    p = project([workload(deadline_days=120)], horizon_months=12, discount_rate=0.08)
    tiers = [
        {"min_term_months": 1, "price_per_node_month": 20_000},
        {"min_term_months": 12, "price_per_node_month": 12_000},
    ]
    r = offer(
        mode="rent",
        id="r",
        price_per_node_month=None,
        min_term_months=None,
        term_prices=tiers,
        setup_fee_per_node=500,
        max_nodes=2,
    )
    return p, [r, _dearer()], _both("r", 1, 80 * 24.0)


def volume_tier_case():
    """A job that runs on 2 nodes only, on an offer at 90,000 per node from 1 node and 70,000 from 2: the plan buys
    exactly the tier boundary, 2 nodes at 70,000."""
    p = project([workload(deadline_days=60)], horizon_months=12)
    tiers = [{"min_nodes": 1, "price_per_node": 90_000}, {"min_nodes": 2, "price_per_node": 70_000}]
    b = offer(mode="buy", id="b", price_per_node=None, volume_prices=tiers, max_nodes=4)
    return p, [b, _dearer()], _both("b", 2, 300.0)


def vat_recoverable_case():
    """A purchase with 13 % VAT and 5 % import duty by a project that recovers its VAT: duty is a cost, VAT is not."""
    p = project([workload(deadline_days=60)], horizon_months=12, vat_recoverable=True)
    b = offer(mode="buy", id="b", price_per_node=60_000, vat_pct=0.13, import_duty_pct=0.05, max_nodes=2)
    return p, [b, _dearer()], _both("b", 1, 300.0)


def staff_case():
    """A node bought with a 45-day lead time (delivered in month 1) and one operations engineer per 4 bought nodes
    at 120,000 a year: 1 FTE paid months 1-11 (110,000)."""
    staff = {"nodes_per_fte": 4, "cost_per_fte_year": 120_000, "modes": ["buy"]}
    p = project([workload(deadline_days=120)], horizon_months=12, staff=staff)
    b = offer(mode="buy", id="b", price_per_node=60_000, lead_time_days=45, max_nodes=2)
    return p, [b, _dearer()], _both("b", 1, 300.0)


def cloud_case():
    """A 300 h cloud job at 30 per node-hour on an offer with a 5,000 fixed charge, storage at 20 per TB-month (a
    2 TB dataset) and egress at 90 per TB, discounted at 8 % a year."""
    p = project([workload(deadline_days=60, dataset_tb=2.0)], horizon_months=12, discount_rate=0.08)
    c = offer(
        mode="cloud",
        id="c",
        price_per_node_hour=30.0,
        fixed_cost=5_000,
        storage_per_tb_month=20,
        egress_per_tb=90,
        max_nodes=2,
    )
    return p, [c], {("job", "c", 1): 300.0}


def financed_case():
    """A node bought with 20 % down and the rest a 24-month loan at 8 % a year: 11 instalments fall within the
    12-month horizon, the balance is repaid in its last month."""
    fin = {"annual_rate": 0.08, "months": 24, "down_payment_pct": 0.2}
    p = project([workload(deadline_days=60)], horizon_months=12)
    b = offer(mode="buy", id="b", price_per_node=60_000, financing=fin, max_nodes=2)
    return p, [b, _dearer()], _both("b", 1, 300.0)


def owned_case():
    """Two servers owned from February to August with a residual value of 10,000 each at the window's end; the job
    runs on them."""
    p = project(
        [workload(deadline_days=200)],
        horizon_months=12,
        owned=[{"offer": "dgx", "nodes": 2, "from": "2027-02-01", "until": "2027-08-01", "residual_value": 10_000}],
    )
    offers = holdings.with_owned(p, [offer(mode="buy", id="dgx"), _dearer()])
    return p, offers, {("job", "dgx.owned", 2): 720.0, ("job", "dearer", 2): 720.0}


def committed_case():
    """A rental signed on 2026-12-01 for 3 months (two months are left after the 2027-01-01 start) and one signed on
    the start for 6 months, without a stated rate (the offer's 14,000): the job runs on them."""
    r = offer(mode="rent", id="r", price_per_node_month=14_000, min_term_months=1, lead_time_days=30, max_nodes=2)
    signed = [
        {"offer": "r", "nodes": 1, "start_date": "2026-12-01", "months": 3},
        {"offer": "r", "nodes": 1, "start_date": "2027-01-01", "months": 6},
    ]
    p = project([workload(deadline_days=60)], horizon_months=12, commitments=signed, period_days=1)
    return p, [r, _dearer()], _both("r", 1, 20 * 24.0)


def taxed_case():
    """The buy case over 24 months after US income tax (21 %, MACRS 5-year), its after-tax NPV at a 9 % wacc: a purchase deducted
    by the table's shares, its running costs as paid, its resale taxed on the gain over the basis left."""
    p, offers, hours = buy_case()
    # 24 months: bought in 2027 and sold in 2028, so MACRS deducts (bought and sold in one tax year it would not)
    tax = TaxSettings(income_tax_rate=0.21, depreciation="us-macrs-5")
    p = p.model_copy(update={"tax": tax, "wacc": 0.09, "horizon_months": 24})
    return p, offers, hours


def leased_case():
    """A 100-day job on a rent offer whose only term is 24 months (10,000 a month, setup 500), IBR 6 %: a lease of
    more than 12 months, booked on the balance sheet (IFRS 16)."""
    p = project([workload(deadline_days=120)], horizon_months=24, incremental_borrowing_rate=0.06)
    r = offer(mode="rent", id="r", price_per_node_month=10_000, min_term_months=24, setup_fee_per_node=500, max_nodes=2)
    return p, [r, _dearer()], _both("r", 1, 100 * 24.0)


def carbon_case():
    """The buy case on a coal-heavy grid (ap-in, 713 gCO2e/kWh) over 24 months with a carbon price of 100 a tonne
    rising 10 % a year: the idle energy of the node bought and the job's busy energy are priced in both years."""
    p, offers, hours = buy_case()
    p = p.model_copy(
        update={"horizon_months": 24, "carbon_price_per_t": 100.0, "carbon_price_change_pct_per_year": 0.10}
    )
    b = offers[0].model_copy(update={"region": "ap-in"})
    return p, [b, offers[1]], hours


def carbon_rent_case():
    """The rent case (3 months at the short tier) on ap-in with a carbon price of 100 a tonne: the idle energy of
    the node held in every contract month is priced."""
    p, offers, hours = rent_tiers_case()
    p = p.model_copy(update={"carbon_price_per_t": 100.0})
    return p, [offers[0].model_copy(update={"region": "ap-in"}), offers[1]], hours


def _buys(plan, nodes: int = 1) -> None:
    assert [(x.offer_id, x.nodes) for x in plan.purchases] == [("b", nodes)]
    assert not plan.rentals and {a.offer_id for a in plan.assignments} == {"b"}


def check_buy(p, plan) -> None:
    _buys(plan)
    assert p.discount_rate > 0 and p.electricity_price_per_kwh > 0
    for key in ("capex", "residual", "maintenance", "colocation", "idle"):
        assert plan.ledger[f"buy:b:{key}"].amount != 0, key
    assert plan.ledger["job0:energy"].amount > 0
    assert plan.ledger["buy:b:capex"].amounts[0][0] < p.horizon_months - 1  # room to be paid a month late


def check_taxed(p, plan) -> None:
    check_buy(p, plan)
    book = plan.ledger
    assert book.tax_total("deductions") < 0 and book.tax_total("depreciation") < 0 and book.tax_total("sale") != 0
    assert p.wacc != p.discount_rate


def check_leased(p, plan) -> None:
    assert [(r.offer_id, r.months) for r in plan.rentals] == [("r", 24)]
    assert len(plan.ledger.leases) == 1


def check_rent_tiers(p, plan) -> None:
    assert not plan.purchases
    (r,) = plan.rentals
    assert (r.offer_id, r.nodes, r.months, r.term_months, r.price_per_node_month) == ("r", 1, 3, None, 20_000)
    assert plan.ledger["rent0:setup"].amount == pytest.approx(500)


def check_volume_tier(p, plan) -> None:
    _buys(plan, nodes=2)
    (bought,) = plan.purchases
    assert bought.price_per_node == pytest.approx(70_000)
    assert plan.ledger["buy:b:capex"].tier_nodes == 2  # exactly the second tier's least nodes


def check_vat_recoverable(p, plan) -> None:
    _buys(plan)
    assert p.vat_recoverable
    assert plan.ledger.get("buy:b:vat") is None  # recoverable VAT is not a cost
    assert plan.ledger["buy:b:duty"].amount == pytest.approx(0.05 * 60_000)


def check_staff(p, plan) -> None:
    _buys(plan)
    staff = plan.ledger["staff"]
    assert staff.quantity == 1.0  # FTEs
    assert [m for m, _v in staff.amounts] == list(range(1, 12))  # room for one more month: month 0
    assert staff.amount == pytest.approx(11 * 10_000)


def check_cloud(p, plan) -> None:
    assert not plan.purchases and not plan.rentals
    for key in ("job0:cloud", "fixed:c", "job0:storage", "job0:egress"):
        assert plan.ledger[key].amount > 0, key
    assert plan.ledger["job0:cloud"].amount == pytest.approx(300 * 30.0)
    assert plan.ledger["job0:egress"].amounts[-1][0] < p.horizon_months - 1  # room to be paid a month late
    assert plan.ledger["fixed:c"].amounts[0][0] < p.horizon_months - 1


def check_owned(p, plan) -> None:
    assert [(x.offer_id, x.nodes, x.committed) for x in plan.purchases] == [("dgx.owned", 2, True)]
    assert plan.ledger["own:dgx.owned:residual"].amount == -20_000


def check_committed(p, plan) -> None:
    held = sorted((r.start_month, r.months, r.term_months) for r in plan.rentals if r.committed)
    # the December one: signed 2026-12-01, its payments fall on the 1st of each month: 2026-12-01 lies behind the
    # start, two are left (2027-01-01 and 2027-02-01)
    assert held == [(0, 2, 3), (0, 6, 6)]
    assert [a.offer_id for a in plan.assignments] == ["r"]


def check_paths(p, plan) -> None:
    assert sorted((r.start_month, r.months) for r in plan.rentals) == [(0, 12), (12, 12)]
    assert {e.index for e in plan.ledger.entries if e.kind == "rent"} != {1.0}


def check_financed(p, plan) -> None:
    _buys(plan)
    assert plan.ledger["buy:b:interest"].amount > 0
    assert plan.ledger["buy:b:interest"].quantity == 11  # instalments within the horizon


def check_carbon(p, plan) -> None:
    _buys(plan)
    keys = {e.key for e in plan.ledger if e.kind == "carbon"}
    assert {"buy:b:carbon:y1", "buy:b:carbon:y2", "job0:carbon:y1"} <= keys


def check_carbon_rent(p, plan) -> None:
    check_rent_tiers(p, plan)
    assert plan.ledger["rent0:carbon:y1"].amount > 0


@dataclass(frozen=True)
class Example:
    name: str
    build: Callable  # () -> (project, offers, hours)
    check: Callable  # (project, plan) -> None: the unmutated plan uses the rule


EXAMPLES = {
    e.name: e
    for e in (
        Example("buy", buy_case, check_buy),
        Example("rent-tiers", rent_tiers_case, check_rent_tiers),
        Example("volume-tier", volume_tier_case, check_volume_tier),
        Example("vat-recoverable", vat_recoverable_case, check_vat_recoverable),
        Example("staff", staff_case, check_staff),
        Example("cloud", cloud_case, check_cloud),
        Example("financed", financed_case, check_financed),
        Example("owned", owned_case, check_owned),
        Example("committed", committed_case, check_committed),
        Example("taxed", taxed_case, check_taxed),
        Example("leased", leased_case, check_leased),
        Example("paths", paths_case, check_paths),
        Example("carbon", carbon_case, check_carbon),
        Example("carbon-rent", carbon_rent_case, check_carbon_rent),
    )
}


# --- the mutations: each a wrong rule, made from the right one -----------------------------------------------


def _index_a_month_late(right):
    return lambda offer, project, mode, month: right(offer, project, mode, month + 1)


def _fx_a_month_late(right):
    return lambda project, currency, month: right(project, currency, max(0, month - 1))


def _rate_reindexed_every_month(right):
    """A contract's rent re-indexed in every month it runs (× idx(m) / idx(s)), not fixed at its start's index."""

    def wrong(offer, contract, project):
        parts = right(offer, contract, project)
        if contract.committed:
            return parts
        s = costs.price_index(offer, project, offer.mode, contract.start_month)
        rent = {m: v * costs.price_index(offer, project, offer.mode, m) / s for m, v in parts["rent"].items()}
        return {**parts, "rent": rent}

    return wrong


def _owned_days_plus_30(right):
    return lambda offer, project: right(offer, project) + 30.0


def _capex_a_month_late(right):
    def wrong(offer, project):
        d = right(offer, project)
        if offer.mode == "buy" and costs.owned_terms(offer, project) is None:
            return min(d + 1, project.horizon_months - 1)
        return d

    return wrong


def _longest_tier(right):
    def wrong(offer, contract):
        if contract.committed:
            return right(offer, contract)
        terms = contracts.contract_terms(offer)
        return max(terms, key=lambda t: t.months) if terms else None

    return wrong


def _one_fte_more(right):
    def wrong(project, peak_nodes):
        n = right(project, peak_nodes)
        return n + 1 if n > 0 else n

    return wrong


def _factors_squared(right):
    return lambda project: [f * f for f in right(project)]


def _maintenance_times(k):
    def make(right):
        def wrong(offer, project, nodes=1):
            flows = right(offer, project, nodes)
            flows["maintenance"] = {m: v * k for m, v in flows.get("maintenance", {}).items()}
            return flows

        return wrong

    return make


def _times(k):
    """The rule's result × ``k``, whatever its arguments."""

    def make(right):
        return lambda *args, **kw: right(*args, **kw) * k

    return make


def _annual_over_12(right):
    return lambda project: project.discount_rate / 12.0


def _constant(value):
    return lambda right: value


def _charge_a_month_late(right):
    return lambda offer, project: min(right(offer, project) + 1, project.horizon_months - 1)


def _tier_at_least_plus_1(right):
    def wrong(offer, nodes):
        hit = None
        for k, (least, price) in enumerate(offer.buy_tiers):
            if nodes >= (least + 1 if k else least):  # the vendor's minimum order (first tier) stays as quoted
                hit = (least, price)
        return hit

    return wrong


def _vat_always(right):
    return lambda offer, project: offer.vat_pct or 0.0


def _annuity_rate_times(k):
    def make(right):
        return lambda principal, annual_rate, months: right(principal, annual_rate * k, months)

    return make


def _storage_month_30_days(right):
    # a month held in part paid by its days over 30, not over the days of its calendar month
    def wrong(offer, project, data, start_day, end_day):
        cal = project.calendar
        return {m: v * cal.month_days(m) / 30.0 for m, v in right(offer, project, data, start_day, end_day).items()}

    return wrong


def _egress_a_month_late(right):
    def wrong(offer, project, nodes, hours, start_day, data=None):
        flows = right(offer, project, nodes, hours, start_day, data)
        if "egress" in flows:
            last = project.horizon_months - 1
            flows["egress"] = {min(m + 1, last): v for m, v in flows["egress"].items()}
        return flows

    return wrong


def _staff_one_more_month(right):
    def wrong(project, offers, purchases, contracts):
        flows = right(project, offers, purchases, contracts)
        if flows.get("staff"):
            paid = dict(flows["staff"])
            first, last = min(paid), max(paid)
            extra = last + 1 if last + 1 < project.horizon_months else first - 1
            if extra >= 0:
                paid[extra] = paid[first]
            flows = {**flows, "staff": paid}
        return flows

    return wrong


def _no_duty(right):
    return lambda offer: 0.0


def _no_setup(right):
    return lambda offer, project, term=None: 0.0


def _all_up_front(right):
    def wrong(project, amount, start_day, end_day):
        return {timeline.clamp_month(project, start_day): amount}

    return wrong


def _months_behind_kept(right):
    def wrong(project):
        signed = project.commitments
        return [dataclasses.replace(c, months=min(s.months, project.horizon_months - c.start_month))
                for c, s in zip(right(project), signed, strict=True)]  # fmt: skip

    return wrong


def _rate_stated(right):
    return lambda project: [dataclasses.replace(c, rate=14_140.0) for c in right(project)]


def _owned_residual_times(k):
    def make(right):
        def wrong(project, offer_id):
            e = right(project, offer_id)
            return None if e is None else e.model_copy(update={"residual_value": (e.residual_value or 0.0) * k})

        return wrong

    return make


def _tax_depreciation_a_month_late(right):
    def wrong(asset, project):
        return {min(m + 1, project.horizon_months - 1): v for m, v in right(asset, project).items()}

    return wrong


def _sale_untaxed(right):
    def wrong(flows, assets, project):
        parts = right(flows, assets, project)
        parts["sale"] = {}
        return parts

    return wrong


def _discount_rate_instead(right):
    return lambda project: project.discount_rate


def _no_energy(right):
    return lambda *args, **kw: {}


def _never(right):
    return lambda offer: False


def _one_more_checkpoint(right):
    return lambda w: dataclasses.replace(right(w), kept=right(w).kept + 1)


@dataclass(frozen=True)
class Mutation:
    id: str
    what: str  # the wrong rule, in words
    where: tuple[tuple[ModuleType, str], ...]  # the module attributes it replaces (the rule and its re-exports)
    make: Callable  # the right rule (the first attribute's value) -> the wrong one
    example: str  # the EXAMPLES entry it runs on
    objectives: tuple[str, ...] = ("tco",)

    def apply(self, monkeypatch) -> None:
        module, name = self.where[0]
        wrong = self.make(getattr(module, name))
        for module, name in self.where:
            monkeypatch.setattr(module, name, wrong)  # raising=True: a renamed rule fails here, loudly

    @property
    def attributes(self) -> str:
        return ", ".join(f"{m.__name__}.{n}" for m, n in self.where)


BOTH = ("npv", "tco")

MUTATIONS = (
    Mutation(
        "commitment-months-behind-kept",
        "a commitment signed before the start keeps the months paid before it",
        ((holdings, "committed_contracts"),),
        _months_behind_kept,
        "committed",
    ),
    Mutation(
        "commitment-rate-invented",
        "a commitment without a stated rate is given 14,140 (the offer's tier is 14,000)",
        ((holdings, "committed_contracts"),),
        _rate_stated,
        "committed",
    ),
    Mutation(
        "owned-residual-x1.01",
        "the owned servers' residual value × 1.01",
        ((holdings, "owned_entry"),),
        _owned_residual_times(1.01),
        "owned",
    ),
    Mutation(
        "one-more-checkpoint-kept",
        "one checkpoint more kept on the offer than checkpoints_kept (storage TB)",
        ((jobdata, "job_data"), (costs, "job_data")),
        _one_more_checkpoint,
        "cloud",
    ),
    Mutation(
        "owned-days-plus-30", "days a bought node is held + 30", ((costs, "owned_days"),), _owned_days_plus_30, "buy"
    ),
    Mutation(
        "capex-a-month-late",
        "a bought node delivered and paid a month late (delivery_month + 1)",
        ((costs, "delivery_month"),),
        _capex_a_month_late,
        "buy",
    ),
    Mutation(
        "longest-tier-rate",
        "every contract signed at the offer's longest term tier (a 3-month rental at the 12-month rate)",
        ((contracts, "term_of"), (costs, "term_of")),
        _longest_tier,
        "rent-tiers",
    ),
    Mutation(
        "one-fte-more", "one FTE more than ⌈peak / nodes_per_fte⌉", ((costs, "staff_ftes"),), _one_fte_more, "staff"
    ),
    Mutation(
        "discount-factors-squared",
        "each month's discount factor squared",
        ((costs, "discount_factors"),),
        _factors_squared,
        "buy",
        BOTH,
    ),
    Mutation(
        "maintenance-x1.01",
        "maintenance × 1.01 (purchase_flows)",
        ((costs, "purchase_flows"),),
        _maintenance_times(1.01),
        "buy",
    ),
    Mutation(
        "rent-rate-x1.01", "the rent per node-month × 1.01", ((costs, "rental_month_cost"),), _times(1.01), "rent-tiers"
    ),
    Mutation(
        "discount-rate-over-12",
        "the monthly discount rate taken as the annual rate / 12, not (1 + r)^(1/12) − 1",
        ((costs, "monthly_discount_rate"),),
        _annual_over_12,
        "buy",
        BOTH,
    ),
    Mutation(
        "discount-rate-x1.01",
        "the monthly discount rate × 1.01",
        ((costs, "monthly_discount_rate"),),
        _times(1.01),
        "buy",
        BOTH,
    ),
    Mutation(
        "busy-power-0.76",
        "the busy power fraction 0.76, not 0.75",
        ((costs, "BUSY_POWER_FRACTION"),),
        _constant(0.76),
        "buy",
    ),
    Mutation(
        "fixed-charge-a-month-late",
        "a fixed charge paid a month after the offer can first be used",
        ((costs, "fixed_charge_month"),),
        _charge_a_month_late,
        "cloud",
    ),
    Mutation(
        "volume-tier-off-by-one",
        "a volume tier reached at least + 1 nodes, not at least",
        ((costs, "buy_tier"),),
        _tier_at_least_plus_1,
        "volume-tier",
    ),
    Mutation(
        "vat-counted-when-recoverable",
        "VAT counted as a cost although the project recovers it",
        ((costs, "vat_cost_rate"),),
        _vat_always,
        "vat-recoverable",
    ),
    Mutation(
        "idle-power-0.16",
        "the idle power fraction 0.16, not 0.15",
        ((costs, "IDLE_POWER_FRACTION"),),
        _constant(0.16),
        "buy",
    ),
    Mutation("residual-x1.01", "the residual value credited × 1.01", ((costs, "resale_value"),), _times(1.01), "buy"),
    Mutation("cloud-price-x1.01", "the cloud bill × 1.01", ((costs, "cloud_cost"),), _times(1.01), "cloud"),
    Mutation(
        "annuity-rate-x1.01",
        "the loan's instalment computed at the monthly rate × 1.01",
        ((costs, "annuity_payment"),),
        _annuity_rate_times(1.01),
        "financed",
    ),
    Mutation(
        "income-tax-rate-x1.01",
        "the income tax rate × 1.01",
        ((costs, "income_tax_rate"),),
        _times(1.01),
        "taxed",
        ("after_tax_npv",),
    ),
    Mutation(
        "tax-depreciation-a-month-late",
        "each month's tax depreciation deducted a month late",
        ((costs, "tax_depreciation"),),
        _tax_depreciation_a_month_late,
        "taxed",
        ("after_tax_npv",),
    ),
    Mutation(
        "sale-gain-untaxed",
        "the sale at the horizon end not taxed on its gain over the basis left",
        ((costs, "income_tax_parts"),),
        _sale_untaxed,
        "taxed",
        ("after_tax_npv",),
    ),
    Mutation(
        "after-tax-rate-ignores-wacc",
        "the after-tax NPV discounted at discount_rate although a wacc is given",
        ((costs, "after_tax_rate"),),
        _discount_rate_instead,
        "taxed",
        ("after_tax_npv",),
    ),
    Mutation(
        "ibr-x1.01",
        "the lease liability discounted at the incremental borrowing rate × 1.01",
        ((costs, "incremental_borrowing_rate"),),
        _times(1.01),
        "leased",
    ),
    Mutation(
        "lease-kept-off-the-balance-sheet",
        "a 24-month rental of identified servers not booked as a lease",
        ((costs, "is_lease"),),
        _never,
        "leased",
    ),
    # price and FX paths (issue 53)
    Mutation(
        "price-index-a-month-late",
        "every price path's index taken a month late",
        ((costs, "price_index"),),
        _index_a_month_late,
        "paths",
    ),
    Mutation(
        "contract-rate-re-indexed-every-month",
        "a contract's rate re-indexed every month it runs, not fixed at its start",
        ((costs, "rental_parts"),),
        _rate_reindexed_every_month,
        "paths",
    ),
    Mutation(
        "fx-path-a-month-late",
        "each payment converted at the previous month's FX rate",
        ((costs, "fx_index"),),
        _fx_a_month_late,
        "paths",
    ),
    Mutation(
        "carbon-price-x1.01",
        "the carbon price per tonne × 1.01",
        ((costs, "carbon_price"),),
        _times(1.01),
        "carbon",
        BOTH,
    ),
    Mutation(
        "grid-intensity-x1.01",
        "the grid's gCO2e/kWh × 1.01 in the carbon price",
        ((costs, "grid_g_per_kwh"),),
        _times(1.01),
        "carbon",
    ),
    Mutation(
        "carbon-left-out-of-jobs",
        "a job's energy left out of the carbon price",
        ((costs, "job_kwh"),),
        _no_energy,
        "carbon",
    ),
    Mutation(
        "carbon-left-out-of-contracts",
        "the energy of the nodes a contract holds left out of the carbon price",
        ((costs, "held_node_kwh"),),
        _no_energy,
        "carbon-rent",
    ),
    # more, cheap ones
    Mutation(
        "storage-month-30-days",
        "storage priced per 30-day month, not per calendar month's days",
        ((costs, "storage_flows"),),
        _storage_month_30_days,
        "cloud",
    ),
    Mutation(
        "egress-a-month-late",
        "egress paid a month after the job ends (job_flows)",
        ((costs, "job_flows"),),
        _egress_a_month_late,
        "cloud",
    ),
    Mutation(
        "staff-one-more-month",
        "the staff paid for one month more than the months held (staff_flows)",
        ((costs, "staff_flows"),),
        _staff_one_more_month,
        "staff",
    ),
    Mutation(
        "duty-dropped", "import duty left out of the landed price", ((costs, "duty_rate"),), _no_duty, "vat-recoverable"
    ),
    Mutation(
        "setup-fee-dropped", "a contract's setup fee left out", ((costs, "rental_setup_cost"),), _no_setup, "rent-tiers"
    ),
    Mutation(
        "spread-all-up-front",
        "an amount over a span of days paid whole in its first month, not spread by days",
        ((timeline, "spread"), (costs, "spread")),
        _all_up_front,
        "buy",
        BOTH,
    ),
)


def _cases():
    for m in MUTATIONS:
        for objective in m.objectives:
            suffix = f"-{objective}" if len(m.objectives) > 1 else ""
            yield pytest.param(m, objective, id=f"{m.id}-on-{m.example}{suffix}")


CONTROLS = sorted({(m.example, objective) for m in MUTATIONS for objective in m.objectives})


@cache
def _unmutated(example: str, objective: str) -> tuple[float, float]:
    """(TCO, NPV) of the example's plan under the right rules (solved once per worker)."""
    p, offers, hours = EXAMPLES[example].build()
    res = solve_fixed(p, offers, hours, objective=objective)
    return res.plan.total_cost, res.plan.npv_cost


# --- the tests ---------------------------------------------------------------------------------------------


def test_the_table_names_each_mutation_once_on_an_example():
    assert len({m.id for m in MUTATIONS}) == len(MUTATIONS)
    assert {m.example for m in MUTATIONS} == set(EXAMPLES)  # every example is a mutation's
    for m in MUTATIONS:
        for module, name in m.where:
            assert hasattr(module, name), f"{m.id}: {module.__name__}.{name} is no rule"


@pytest.mark.parametrize(("example", "objective"), CONTROLS, ids=[f"{e}-{o}" for e, o in CONTROLS])
def test_every_example_solves_verifies_and_uses_its_rule(example, objective):
    """Unmutated: the plan comes back optimal (verify_plan passed inside the solve) and uses the rule."""
    p, offers, hours = EXAMPLES[example].build()
    res = solve_fixed(p, offers, hours, objective=objective)
    assert str(res.status) == "optimal"
    EXAMPLES[example].check(p, res.plan)


@pytest.mark.parametrize(("mutation", "objective"), list(_cases()))
def test_a_wrong_money_rule_is_refused(mutation, objective, monkeypatch):
    example = EXAMPLES[mutation.example]
    total0, npv0 = _unmutated(mutation.example, objective)  # before the mutation
    p, offers, hours = example.build()
    mutation.apply(monkeypatch)
    try:
        res = solve_fixed(p, offers, hours, objective=objective)
    except VerificationError:
        return  # refused: by the verifier, or by the objective-ledger agreement
    plan = res.plan
    if plan is None:
        pytest.fail(f"{mutation.id} on {mutation.example}: no plan and no VerificationError ({res.status})")
    pytest.fail(
        f"{mutation.id} ({mutation.what}; {mutation.attributes}) on {mutation.example}, objective {objective}: "
        f"NOT refused, the plan came back {res.status}: total {plan.total_cost:,.2f} "
        f"({plan.total_cost - total0:+,.2f} from {total0:,.2f}), NPV {plan.npv_cost:,.2f} "
        f"({plan.npv_cost - npv0:+,.2f} from {npv0:,.2f})",
        pytrace=False,
    )
