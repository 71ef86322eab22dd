"""The cost model: every cost formula of procure, written once.

The optimizer's objective coefficients, the independent verifier, the priced ledger (solver.ledger) and
the tests all call these functions; reports read the ledger instead. The vocabulary these rules price is
kept beside them and re-exported here: what a contract and a term are (solver.contracts), what a job
keeps and moves (solver.jobdata), and the calendar amounts are placed on (solver.timeline). Money is in the project's reporting currency: a price quoted in another currency is
multiplied by ``fx = project.fx_rates[offer.currency]`` (the value of one quoted unit) where it is read.
Cash flows are placed in 0-based project months, calendar months (``models.calendar``): month 0 runs from the
start date to the next 1st, month m is the calendar month m after the start's; an amount over a span of days is
spread over the months by its days in each, and a price per month over part of one is paid by its days
(``prorate``: per_month × days held in m / days in m). D = 365/12 is the mean month, used only for a reserved term's
730 h a month.

Formulas (per node unless stated; H = horizon end in days, the 1st of the month horizon_months after the start's;
M = horizon_months):

buy (ordered on day 0, delivered and paid on day ``lead_time_days`` = ℓ, in its calendar month d, owned to H):
    unit price p     = the price of the volume tier reached by the total n bought of the offer (all-units:
                       every node pays it): p = price_per_node_k, k = max{k : min_nodes_k ≤ n}
    landed price P   = p · fx · (1 + import_duty_pct) · (1 + vat_pct if the project's VAT is not recoverable)
                       (import VAT is levied on price plus duty; recoverable VAT is not a cost)
    capex            = P                                                     (month d; or financed, below)
    residual value   = −p · fx · residual_value_pct                          (month M−1: resale, before taxes)
    maintenance      = p · fx · maintenance_pct_per_year · (H − ℓ)/365       (spread over owned days)
    colocation       = colocation_per_node_month · fx per calendar month held from ℓ to H (a month in part by its days)
    idle energy      = kW · IDLE_POWER_FRACTION · 24·(H − ℓ) · PUE · price_per_kWh   (spread over owned days)
  and per job on bought nodes, the draw above idle while it trains:
    busy energy      = nodes · kW · (BUSY_POWER_FRACTION − IDLE_POWER_FRACTION) · hours · PUE · price_per_kWh
  financed (offer ``financing``, else the project's): down payment P·dp in month d; the loan F = P·(1−dp)
  is an annuity of n monthly instalments A = F·i / (1 − (1+i)^−n), i = annual_rate/12 (A = F/n when
  i = 0), paid in months d+1 … d+n; each splits into interest (balance·i, category ``interest``) and
  principal (category ``capex``). Instalments that would fall after month M−1 are not paid: the
  outstanding balance is repaid in month M−1, when the servers are sold. Σ capex = P always.
rent (contracts of whole project months; bare-metal prices include power and hosting):
    a contract signed at term tier k of the offer (``term_prices``; a flat price is one tier of
    ``min_term_months``) lasts any whole number of months ℓ ≥ L_k and pays that tier's rate for every
    month it is held — the tier is a minimum length, as vendors quote it ("12 months or longer: 20,000").
    A contract of ℓ months may be signed at any tier with L_k ≤ ℓ (the optimizer picks the cheapest).
    rent             = price_per_node_month_k · fx per node-month           (that month)
    setup            = setup_fee_per_node · fx per node at the contract's first month
owned servers (project ``owned``, solver.holdings; the offer ``<offer>.owned`` held from day a to day b of
their window): no capex, network, financing or depreciation — they are sunk; per node, maintenance,
colocation and idle energy as above over [a, b) instead of [ℓ, H), busy energy per job as above, and
``residual_value`` (if given) credited in the month the window ends. All of it is owed whatever the plan does.
commitments (project ``commitments``: rentals and reserved cloud terms already signed, RentalContract
``committed``): the months of the signed length that lie within the horizon, each at the rate of the
cheapest tier the signed length reaches (a reserved term's rate), and the setup fee or upfront in the first
month, as any contract; owed whatever the plan does.
cloud (per node-hour, no commitment):
    cloud            = nodes · hours · (1 + spot_overhead_pct) · price_per_node_hour · fx   (spread over the run)
reserved cloud (``commitment_months`` = C): a contract of exactly C months per node, owed whether used or not:
    cloud            = price_per_node_hour · fx · 730 per node-month (every month of the term)
                       + upfront_per_node · fx in the term's first month

Costs beyond the servers (issue: TCO as a finance team counts it; all in the offer's currency × fx):
    network          = network_per_node · fx per node bought, paid with the servers in the delivery month d
                       (leaf ports, optics, cables); capitalised and depreciated with the servers, no resale value
    fixed charge     = fixed_cost · fx once per offer if any node of it is used (a fabric spine, a reserved
                       cage, installation): the same for 2 nodes as for 32; paid in the month the offer can
                       first be used, the calendar month of day lead_time_days (a buy offer's delivery month); an operating cost
  per job on an offer (its TB from the sizing: dataset_tb, and one checkpoint = CHECKPOINT_BYTES_PER_PARAM ×
  trainable parameters, the bytes fit.nvme_reason reserves):
    storage          = (dataset_tb + checkpoints_kept · checkpoint_tb) · storage_per_tb_month · fx per calendar month
                       the job runs (a month in part by its days: the data is held on the offer while it runs)
    egress           = (checkpoint_tb + dataset_tb if the workload's dataset_moves_on) · egress_per_tb · fx,
                       paid in the month the job ends (its final checkpoint leaves the offer; so does the dataset
                       when it moves on to the next stage elsewhere)
  project ``staff`` {nodes_per_fte, cost_per_fte_year, modes} (operations people of self-run capacity):
    held(m)          = nodes of the staff's modes held in month m: a bought node from its delivery month d to
                       M−1, a rented node in every month of its contracts
    months held      = from the first to the last month m with held(m) > 0 (gaps in between included), within
                       the horizon
    FTEs             = ⌈max_m held(m) / nodes_per_fte⌉ (whole people; 65 nodes at 64 per FTE is 2 FTEs)
    staff            = FTEs · cost_per_fte_year / 12 in every month held, month 0 by its share (operating cost)
  Sources of the bundled reference figures: docs/quotes.md ("Costs beyond the servers").

Price and FX paths (project ``price_paths`` and ``fx_paths``, models.paths; none given: every factor below is 1 and
no amount changes). idx_mode(m) is the index of project month m of the most specific path of that mode matching the
offer (its offer id, else its GPU, else the mode alone; 1 without one); fxi_c(m) = rate_c(m) / fx_rates[c], the
FX path's rate in force in month m (the last step whose ``from`` date lies in month m or before; fx_rates[c] before
the first step) over today's. Each amount takes the index of the month its price is set in and converts at the
rate of the month it is paid in:
    purchase         price, duty, VAT and network × idx_buy(d) · fxi(d), d the delivery month (the price is set and
                     paid at delivery; a financed part is a loan in the reporting currency from then on); maintenance
                     (a share of that price) × idx_buy(d) · fxi(m) in each month m it is paid; the residual value
                     × idx_buy(d) · fxi(M−1) (a share of the price paid, sold at the horizon end)
    rent, reserved   a contract's rate and setup fee × idx_mode(s), s the month it starts, fixed for its whole
                     length (a renewal is a new contract: the index of its own start); each month's payment ×
                     fxi(m); commitments were signed before the plan: their rate takes no index, only fxi(m)
    cloud hours      on-demand and spot hours × idx_cloud(m) · fxi(m) in the month m they run
    energy           idle and busy electricity of bought and owned servers × idx_energy(m) in the month m drawn
                     (electricity is priced in the reporting currency: no FX)
    other charges    colocation, storage, egress, fixed charges × fxi(m) of the month paid (no price index)
Why: a vendor quotes the price of the day an order or a contract is signed, and the contract holds its rate for
its term (a renewal is re-priced: GPU rents moved by tens of percent within 2025–26, e.g. H100 rents rose about
40 % from an October-2025 trough, issue 53); metered hours and electricity are billed at the tariff of the month
used; a foreign-currency invoice is converted when it is paid (IAS 21.21–22: a foreign-currency transaction is
recorded at the spot rate of its date). With paths, a job's cost depends on its start, and the optimizer prices
every start column on its own; an open-ended rent tier whose index moves with the start month is modelled as one
column per start month and length (solver.milp.rental_rows), so that each contract pays its own start's rate.

carbon (project ``carbon_price_per_t``; section "Carbon" below): tCO2e of the energy a purchase, a job or a
contract draws in a month × that project year's carbon price × fx, in that month; an operating cost, no VAT.

NPV: monthly cash flows c_m discounted at the monthly rate r_m = (1 + r)^(1/12) − 1 with end-of-month
timing, NPV = Σ_m c_m / (1 + r_m)^(m+1) — exactly Excel's ``NPV(r_m, c_0, …, c_{M−1})``.

P&L (``solver.ledger.Ledger.pnl_years``): per project year, depreciation of bought servers (straight line over
``depreciation_years`` from the delivery month: (P + network) / (12·years) per month, IAS 16 — import duty and
non-recoverable taxes are part of an asset's cost, IAS 16.16(a); the network fabric, IAS 16.16(b)),
operating costs (maintenance, colocation, energy, rent, setup, cloud, fixed, storage, egress, staff, carbon),
interest, and in the last year the gain on disposal = resale value − book value at the horizon end.
Σ (depreciation + operating + interest − disposal gain) = TCO.

Power fractions: Epoch AI's cost model (cost_analysis_standalone.py) takes average training draw as
0.75 × the server's maximum power. Idle draw of an 8-GPU server (GPUs ~60–90 W each idle, CPUs, fans,
NICs) is taken as 0.15 × maximum power — an assumption stated here, shown in the report, and
overridable in code; set it to 0 if idle servers are powered off.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import pyxirr

from procure.models.gpu import gpu_table as _gpu_table
from procure.models.grid import intensity_of as _intensity_of
from procure.models.money import Financing
from procure.models.offer import Offer
from procure.models.paths import PricePath
from procure.models.project import Project
from procure.models.tax import TaxRule, tax_rules
from procure.models.units import DAYS_PER_YEAR, HOURS_PER_DAY, MONTHS_PER_YEAR
from procure.solver.enums import Objective as Objective  # the objective vocabulary, re-exported

from .contracts import (  # the contract vocabulary the rules below price, re-exported
    RentalContract as RentalContract,
    Term as Term,
    committed_term as committed_term,
    contract_at as contract_at,
    contract_terms as contract_terms,
    signed_term_months as signed_term_months,
    term_of as term_of,
    term_problem as term_problem,
)
from .jobdata import (  # what a job keeps and moves, re-exported
    JobData as JobData,
    data_of as data_of,
    job_data as job_data,
)
from .timeline import (  # the calendar the rules below place amounts on, re-exported
    clamp_month as clamp_month,
    horizon_end_day as horizon_end_day,
    job_end_day as job_end_day,
    month_of as month_of,
    month_share as month_share,
    months_held as months_held,
    prorate as prorate,
    spread as spread,
    wall_hours as wall_hours,
)

CATEGORIES: tuple[str, ...] = (
    "capex",
    "network",
    "residual_value",
    "maintenance",
    "colocation",
    "energy",
    "rent",
    "setup",
    "cloud",
    "fixed",
    "storage",
    "egress",
    "staff",
    "carbon",
    "interest",
)
#: categories that are operating costs in the P&L (capex and network are depreciated; residual value is a
#: disposal). They are contiguous in CATEGORIES: the Cash flow sheet sums them as one block.
OPERATING: tuple[str, ...] = (
    "maintenance",
    "colocation",
    "energy",
    "rent",
    "setup",
    "cloud",
    "fixed",
    "storage",
    "egress",
    "staff",
    "carbon",
)
#: categories that are capitalised and depreciated (what ``depreciation_flows`` spreads)
CAPITALISED: tuple[str, ...] = ("capex", "network")
BUSY_POWER_FRACTION = 0.75
IDLE_POWER_FRACTION = 0.15

Flows = dict[str, dict[int, float]]  # category -> month -> amount


# --- price and FX paths (module docstring, "Price and FX paths") --------------------------------------


def has_paths(project: Project) -> bool:
    """The project gives a price path or an FX path (without one, every factor is 1 and nothing is scaled)."""
    return bool(project.price_paths or project.fx_paths)


def _base_offer_id(offer_id: str) -> str:
    """An owned offer's id without its ``.owned`` suffix (holdings names them ``<offer>.owned``, ``.owned2``, …)."""
    head, sep, tail = offer_id.rpartition(".owned")
    return head if sep and (tail == "" or tail.isdigit()) else offer_id


def price_path(offer: Offer, project: Project, mode: str) -> PricePath | None:
    """The most specific path of ``mode`` that matches ``offer`` (its id, else its GPU, else the mode alone)."""
    best: PricePath | None = None
    oid = _base_offer_id(offer.id)
    for path in project.price_paths:
        if path.mode != mode or (path.offer is not None and path.offer not in (oid, offer.id)):
            continue
        if path.gpu is not None and path.gpu != offer.gpu:
            continue
        if best is None or path.specificity > best.specificity:
            best = path
    return best


def price_index(offer: Offer, project: Project, mode: str, month: int) -> float:
    """idx_mode(month) of ``offer``: its path's index (1 without a path)."""
    path = price_path(offer, project, mode) if project.price_paths else None
    return 1.0 if path is None else path.index(month)


def fx_path_month(project: Project, date: dt.date) -> int:
    """The project month an FX step dated ``date`` takes effect in (month 0 for a date before the start)."""
    return month_of(project, max(0.0, float((date - project.start_date).days)))


def fx_rate_in(project: Project, currency: str | None, month: int) -> float:
    """rate_c(month): the value of one unit of ``currency`` in the reporting currency in project ``month``."""
    rate = project.fx_rate(currency)
    for step in project.fx_paths.get(currency or "", ()):
        if fx_path_month(project, step.from_) <= month:
            rate = step.rate
    return rate


def fx_index(project: Project, currency: str | None, month: int) -> float:
    """fxi_c(month) = rate_c(month) / fx_rates[c]: 1 for the reporting currency or a currency without a path."""
    if currency is None or currency == project.currency or currency not in project.fx_paths:
        return 1.0
    return fx_rate_in(project, currency, month) / project.fx_rate(currency)


def _per_month(per: Mapping[int, float], factor) -> dict[int, float]:
    """``per`` with each month's amount × factor(month)."""
    return {m: v * factor(m) for m, v in per.items()}


def _paid_in(offer: Offer, project: Project, per: Mapping[int, float]) -> dict[int, float]:
    """Amounts in the offer's currency, each converted at its month's FX path (× fxi(m))."""
    if not project.fx_paths:
        return dict(per)
    return _per_month(per, lambda m: fx_index(project, offer.currency, m))


def purchase_factor(offer: Offer, project: Project) -> float:
    """idx_buy(d) · fxi(d): what a purchase's price paid at delivery month d is multiplied by."""
    if not has_paths(project):
        return 1.0
    d = delivery_month(offer, project)
    return price_index(offer, project, "buy", d) * fx_index(project, offer.currency, d)


def contract_index(offer: Offer, project: Project, contract: RentalContract) -> float:
    """idx_mode(s) of a contract started in month s (its rate for every month it runs); 1 for a commitment."""
    if contract.committed or not project.price_paths:
        return 1.0
    return price_index(offer, project, offer.mode, contract.start_month)


def contract_index_moves(offer: Offer, project: Project) -> bool:
    """Whether a new contract's rate depends on the month it starts (its mode's path is not flat over the horizon):
    the optimizer then models the offer's open-ended tiers by start month and length."""
    if not project.price_paths or price_path(offer, project, offer.mode) is None:
        return False
    first = price_index(offer, project, offer.mode, 0)
    return any(price_index(offer, project, offer.mode, m) != first for m in range(project.horizon_months))


# --- buy ---------------------------------------------------------------------------------------


def owned_days(offer: Offer, project: Project) -> float:
    return max(0.0, horizon_end_day(project) - offer.lead_time_days)


def owned_months(offer: Offer, project: Project) -> float:
    """The calendar months a bought node is held, delivery to the horizon end, partial months by days (what its
    colocation per node-month is paid for)."""
    return months_held(project, float(offer.lead_time_days), horizon_end_day(project))


def fx(offer: Offer, project: Project) -> float:
    """Value of one unit of the offer's currency in the reporting currency."""
    return project.fx_rate(offer.currency)


def nodes_bought(offer: Offer, nodes: int) -> int:
    """The nodes bought to run ``nodes``: at least the vendor's minimum order (the first volume tier's
    least nodes), which is bought in full."""
    return max(nodes, offer.buy_tiers[0][0])


def buy_tier(offer: Offer, nodes: int) -> tuple[int, float] | None:
    """The volume tier (least nodes, quoted price per node) that ``nodes`` bought in total reach; None
    below the first tier (the vendor does not sell that few)."""
    hit = None
    for least, price in offer.buy_tiers:
        if nodes >= least:
            hit = (least, price)
    return hit


def quoted_price(offer: Offer, nodes: int) -> float:
    """p: the price per node quoted (in the offer's currency) for the volume tier ``nodes`` bought in total
    reach (all-units volume tiers), before taxes."""
    tier = buy_tier(offer, nodes)
    if tier is None:
        raise ValueError(f"{offer.id}: {nodes} node(s) is below the first volume tier ({offer.buy_tiers[0][0]} nodes)")
    return tier[1]


def unit_price(offer: Offer, project: Project, nodes: int) -> float:
    """p·fx: the price per node paid when ``nodes`` are bought in total (all-units volume tiers), before taxes."""
    return quoted_price(offer, nodes) * fx(offer, project)


def paid_unit_price(offer: Offer, project: Project, nodes: int) -> float:
    """p·fx·idx_buy(d)·fxi(d): the price per node paid at delivery, on the price and FX paths (``unit_price``
    without paths)."""
    return unit_price(offer, project, nodes) * purchase_factor(offer, project)


def duty_rate(offer: Offer) -> float:
    """Import duty, a fraction of the price."""
    return offer.import_duty_pct or 0.0


def vat_cost_rate(offer: Offer, project: Project) -> float:
    """VAT that is a cost (a fraction of price plus duty): the offer's vat_pct when the project cannot recover it, else 0."""
    return 0.0 if project.vat_recoverable else (offer.vat_pct or 0.0)


def service_vat_rate(offer: Offer, project: Project) -> float:
    """VAT that is a cost on a rent or cloud offer's charges (rent, setup, cloud hours, reserved terms, storage,
    egress, fixed charge): the offer's vat_pct when the project cannot recover it, else 0; 0 for a buy offer, whose
    VAT is on its price (``landed_factor``). Mainland rates (check the primary): leases of movable goods 13 %, IT
    services 6 % (财税〔2016〕36号; 财政部 税务总局 海关总署公告2019年第39号)."""
    return 0.0 if offer.mode == "buy" else vat_cost_rate(offer, project)


def with_service_vat(offer: Offer, project: Project, flows: Flows) -> Flows:
    """``flows`` of an offer's charges with the VAT that is a cost added: × (1 + service_vat_rate). The model's
    columns are priced with it; the ledger books the VAT as entries of its own (``vat:<offer>:<category>``)."""
    v = service_vat_rate(offer, project)
    if not v:
        return flows
    # the carbon price is no vendor's charge: no VAT on it
    return {c: dict(per) if c == "carbon" else {m: a * (1.0 + v) for m, a in per.items()} for c, per in flows.items()}


def landed_factor(offer: Offer, project: Project) -> float:
    """(1 + import duty) · (1 + VAT when not recoverable): what the buyer pays per unit of price."""
    return (1.0 + duty_rate(offer)) * (1.0 + vat_cost_rate(offer, project))


def landed_parts(offer: Offer, project: Project, nodes: int) -> dict[str, float]:
    """The landed price of ``nodes`` nodes bought, by part: price, import duty (on the price) and
    non-recoverable VAT (on price plus duty); they add up to nodes · P."""
    price = nodes * paid_unit_price(offer, project, nodes)
    duty = price * duty_rate(offer)
    return {"price": price, "duty": duty, "vat": (price + duty) * vat_cost_rate(offer, project)}


def loan_principal(offer: Offer, project: Project, nodes: int) -> float:
    """F = P − P·dp: the loan of ONE node financed (its landed price less the down payment) when ``nodes``
    are bought in total; 0 when the purchase is not financed."""
    fin = financing_of(offer, project)
    if fin is None:
        return 0.0
    landed = paid_unit_price(offer, project, nodes) * landed_factor(offer, project)
    return landed - landed * fin.down_payment_pct


def resale_value(offer: Offer, project: Project, nodes: int) -> float:
    """What ``nodes`` bought nodes sell for at the horizon end: nodes · p · fx · residual_value_pct (before taxes);
    owned servers: nodes · their ``residual_value`` (0 when not given)."""
    own = owned_terms(offer, project)
    if own is not None:
        return nodes * own[2]
    value = nodes * unit_price(offer, project, nodes) * offer.residual
    if not has_paths(project):
        return value
    d, last = delivery_month(offer, project), project.horizon_months - 1
    return value * price_index(offer, project, "buy", d) * fx_index(project, offer.currency, last)


def owned_terms(offer: Offer, project: Project) -> tuple[float, float, float] | None:
    """Owned servers (project ``owned``, solver.holdings): (first day held, last day held, residual value per
    node in the reporting currency); None for any offer that is not owned."""
    if not project.owned or ".owned" not in offer.id:
        return None
    from . import holdings  # holdings prices commitments with this module

    entry, span = holdings.owned_entry(project, offer.id), holdings.owned_window(project, offer.id)
    if entry is None or span is None:
        return None
    return span[0], span[1], entry.residual_value or 0.0


def financing_of(offer: Offer, project: Project) -> Financing | None:
    return offer.financing if offer.financing is not None else project.financing


def depreciation_years(offer: Offer, project: Project) -> float:
    return offer.depreciation_years if offer.depreciation_years is not None else project.depreciation_years


def delivery_month(offer: Offer, project: Project) -> int:
    return clamp_month(project, float(offer.lead_time_days))


def annuity_payment(principal: float, annual_rate: float, months: int) -> float:
    """A = F·i / (1 − (1+i)^−n) with i = annual_rate/12 (the standard fixed-rate loan; Excel ``PMT``).

    The denominator is computed as −expm1(−n·log1p(i)), which keeps its digits for a tiny rate: written
    as 1 − (1+i)^−n it is 0.0 for i below about 1e-16 (1+i rounds to 1) and the payment divides by zero.
    Where even that is 0 (i = 0, or so small that n·i underflows) the payment is the zero-rate limit F/n."""
    i = annual_rate / MONTHS_PER_YEAR
    denominator = -math.expm1(-months * math.log1p(i))
    if i == 0 or denominator == 0:
        return principal / months
    return principal * i / denominator


def loan_schedule(principal: float, fin: Financing, first_month: int, n_months: int) -> list[tuple[int, float, float]]:
    """(month, principal part, interest part) of each instalment paid within the horizon; the balance
    left when the horizon ends is repaid (principal only) in its last month, n_months − 1."""
    i = fin.annual_rate / MONTHS_PER_YEAR
    pay = annuity_payment(principal, fin.annual_rate, fin.months)
    balance, out = principal, []
    for k in range(1, fin.months + 1):
        m = first_month + k
        if m > n_months - 1:
            break
        interest = balance * i
        part = pay - interest if k < fin.months else balance  # the last instalment clears rounding
        balance -= part
        out.append((m, part, interest))
    if balance > 1e-9 * max(1.0, principal):
        if out and out[-1][0] == n_months - 1:
            m, part, interest = out[-1]
            out[-1] = (m, part + balance, interest)
        else:
            out.append((n_months - 1, balance, 0.0))
    return out


def purchase_flows(offer: Offer, project: Project, nodes: int = 1) -> Flows:
    """Cash flows of owning ONE node of ``offer`` over the horizon (without busy energy), when ``nodes``
    are bought in total (which sets the volume tier)."""
    if offer.mode != "buy":
        raise ValueError(f"purchase_flows needs a buy offer, got {offer.mode}")
    own = owned_terms(offer, project)
    if own is not None:
        return _owned_flows(offer, project, *own)
    n_months = project.horizon_months
    lead = float(offer.lead_time_days)
    end = horizon_end_day(project)
    days = owned_days(offer, project)
    d = delivery_month(offer, project)
    price = unit_price(offer, project, nodes)  # the quoted price the maintenance rate applies to, on its path
    if project.price_paths:
        price *= price_index(offer, project, "buy", d)
    landed = paid_unit_price(offer, project, nodes) * landed_factor(offer, project)
    flows: Flows = {c: {} for c in CATEGORIES}
    fin = financing_of(offer, project)
    if fin is None:
        flows["capex"][d] = landed
    else:
        loan = loan_principal(offer, project, nodes)
        flows["capex"][d] = landed - loan
        for m, part, interest in loan_schedule(loan, fin, d, n_months):
            flows["capex"][m] = flows["capex"].get(m, 0.0) + part
            if interest:
                flows["interest"][m] = flows["interest"].get(m, 0.0) + interest
    if offer.network:
        flows["network"][d] = network_cost(offer, project)
    flows["residual_value"][n_months - 1] = -resale_value(offer, project, nodes) / nodes
    flows["maintenance"] = spread(project, price * offer.maintenance * days / DAYS_PER_YEAR, lead, end)
    flows["colocation"] = prorate(project, offer.colocation * fx(offer, project), lead, end)
    flows["energy"] = spread(project, idle_energy_cost(offer, project, days * HOURS_PER_DAY), lead, end)
    flows["carbon"] = carbon_flows(offer, project, purchase_kwh(offer, project)).get("carbon", {})
    return _running_on_paths(offer, project, flows)


def _running_on_paths(offer: Offer, project: Project, flows: Flows) -> Flows:
    """A held node's running costs on the paths: maintenance and colocation converted at each month's FX rate,
    electricity × idx_energy(m) of the month it is drawn."""
    if not has_paths(project):
        return flows
    for c in ("maintenance", "colocation"):
        flows[c] = _paid_in(offer, project, flows[c])
    flows["energy"] = _per_month(flows["energy"], lambda m: price_index(offer, project, "energy", m))
    return flows


def _owned_flows(offer: Offer, project: Project, lo: float, hi: float, residual: float) -> Flows:
    """Cash flows of ONE owned node (owned servers, module docstring): no capex, network or interest; its
    maintenance, colocation and idle energy from ``lo`` to ``hi`` as a bought node's, and ``residual``
    credited in the month its window ends."""
    days = max(0.0, hi - lo)
    price = unit_price(offer, project, 1)
    flows: Flows = {c: {} for c in CATEGORIES}
    if residual:
        flows["residual_value"][clamp_month(project, max(lo, hi - 1e-6))] = -residual
    flows["maintenance"] = spread(project, price * offer.maintenance * days / DAYS_PER_YEAR, lo, hi)
    flows["colocation"] = prorate(project, offer.colocation * fx(offer, project), lo, hi)
    flows["energy"] = spread(project, idle_energy_cost(offer, project, days * HOURS_PER_DAY), lo, hi)
    flows["carbon"] = carbon_flows(offer, project, purchase_kwh(offer, project)).get("carbon", {})
    return _running_on_paths(offer, project, flows)


def depreciation_life_months(offer: Offer, project: Project) -> int:
    """The depreciation life in whole months: round(12 · depreciation_years)."""
    return int(round(depreciation_years(offer, project) * MONTHS_PER_YEAR))


def network_cost(offer: Offer, project: Project) -> float:
    """network_per_node · fx: the fabric of one node bought (paid with it, depreciated with it; on the paths
    × idx_buy(d) · fxi(d), as the purchase)."""
    return offer.network * fx(offer, project) * purchase_factor(offer, project)


def capitalised_cost(offer: Offer, project: Project, nodes: int = 1) -> float:
    """What ONE node adds to the books: its landed price P plus its network (IAS 16.16: costs of bringing
    the asset into use). Owned servers add nothing: they are on the books already."""
    if owned_terms(offer, project) is not None:
        return 0.0
    return paid_unit_price(offer, project, nodes) * landed_factor(offer, project) + network_cost(offer, project)


def depreciation_flows(offer: Offer, project: Project, nodes: int = 1) -> dict[int, float]:
    """Straight-line depreciation of ONE node per month within the horizon: (P + network) / round(12·years)
    from the delivery month."""
    landed = capitalised_cost(offer, project, nodes)
    life = depreciation_life_months(offer, project)
    d = delivery_month(offer, project)
    return {m: landed / life for m in range(d, min(d + life, project.horizon_months))}


def energy_kwh(offer: Offer, project: Project, hours: float, power_fraction: float) -> float:
    """Facility energy in kWh: node kW × fraction × hours × PUE."""
    if offer.power_kw_per_node is None:  # required for buy offers (validated on load); other modes draw no billed power
        raise ValueError(f"{offer.id}: a {offer.mode} offer has no power_kw_per_node to cost energy with")
    return offer.power_kw_per_node * power_fraction * hours * project.pue


def idle_energy_cost(offer: Offer, project: Project, hours: float) -> float:
    return energy_kwh(offer, project, hours, IDLE_POWER_FRACTION) * project.electricity_price_per_kwh


def busy_energy_cost(offer: Offer, project: Project, nodes: int, hours: float) -> float:
    """Energy drawn above idle by ``nodes`` bought nodes training for ``hours``."""
    return (
        nodes
        * energy_kwh(offer, project, hours, BUSY_POWER_FRACTION - IDLE_POWER_FRACTION)
        * project.electricity_price_per_kwh
    )


# --- rent and reserved cloud ----------------------------------------------------------------------


def rental_month_cost(offer: Offer, project: Project, term: Term | None = None) -> float:
    """Price per node-month in the reporting currency of ``term`` (default: the offer's shortest term)."""
    term = term or contract_terms(offer)[0]
    return term.price * fx(offer, project)


def rental_setup_cost(offer: Offer, project: Project, term: Term | None = None) -> float:
    term = term or contract_terms(offer)[0]
    return term.setup * fx(offer, project)


def rental_contract_cost(
    offer: Offer, project: Project, term: Term, nodes: int, months: int, start_month: int | None = None
) -> float:
    """The undiscounted total of ``rental_flows`` for ``nodes`` node-contracts of ``months`` months signed at
    ``term`` (a new contract, not a commitment), by arithmetic on the term's rates: nodes · (months · rent + setup).
    The greedy plan and the stand-alone costs price thousands of candidate contracts with it. On price or FX paths
    (and a ``start_month`` given) the contract's own flows are added instead (the index of its start, the FX rate
    of each month)."""
    if start_month is not None and has_paths(project):
        contract = RentalContract(offer.id, nodes, start_month, months, term.months, cal=project.calendar)
        return total(rental_flows(offer, contract, project))
    return nodes * (months * rental_month_cost(offer, project, term) + rental_setup_cost(offer, project, term))


def open_contract_unit_flows(offer: Offer, project: Project, term: Term, month: int) -> tuple[Flows, Flows]:
    """The cash flows of one unit of the optimizer's cumulative contract counts of an open-ended ``term`` in
    ``month`` m: (flows of S[m], flows of E[m]), where S[m] counts node-contracts of that term started in
    months ≤ m and E[m] those ended before month m (see the MILP's docstring).

    Rented in month m: R[m] = S[m] − E[m] nodes, each paying p = ``rental_month_cost``; started in month m:
    S[m] − S[m−1] nodes, each paying f = ``rental_setup_cost`` once (``rental_flows``). Collected per column:

        S[m]:  rent p in month m; setup f in month m and −f in month m+1 (m+1 < M: the S[m+1] − S[m] started then)
        E[m]:  rent −p in month m

    Undiscounted, the setup parts sum to f·S[M−1]: every contract started in the horizon pays once; summed to
    a month k they give the cash spent by then, Σ_{j ≤ k} p·(S[j] − E[j]) + f·S[k].

    On the paths ("Price and FX paths"): every payment of month m × fxi(m), which needs no knowledge of the
    contract's start; the counts cannot tell which contract ends when, so the rate's index must be the same for
    every start month (``contract_index_moves`` false: p and f × that one index); where it moves, the optimizer
    models the tier by start month and length instead."""
    p, f = rental_month_cost(offer, project, term), rental_setup_cost(offer, project, term)
    if has_paths(project):
        if contract_index_moves(offer, project):
            raise ValueError(f"{offer.id}: its rate moves with the start month; the S/E counts cannot price it")
        k = price_index(offer, project, offer.mode, 0) if project.price_paths else 1.0
        p0, f0 = p * k, f * k
        p, f = p0 * fx_index(project, offer.currency, month), f0 * fx_index(project, offer.currency, month)
        f_next = f0 * fx_index(project, offer.currency, month + 1)
    else:
        f_next = f
    run, fee = rental_categories(offer)
    setup = {month: f}
    if month + 1 < project.horizon_months:
        setup[month + 1] = -f_next
    started: Flows = {run: {month: p}}
    if f:  # run and fee are one category for a reserved term: add, never overwrite
        part = started.setdefault(fee, {})
        for m, v in setup.items():
            part[m] = part.get(m, 0.0) + v
    ended: Flows = {run: {month: -p}}
    carbon = carbon_flows(offer, project, held_node_kwh(offer, project, range(month, month + 1))).get("carbon")
    if carbon:  # the idle draw of one node held in month m (module section "Carbon")
        started["carbon"], ended["carbon"] = carbon, {m: -v for m, v in carbon.items()}
    return started, ended


# --- jobs --------------------------------------------------------------------------------------


def storage_month_cost(offer: Offer, project: Project, data: JobData) -> float:
    """held TB · storage_per_tb_month · fx: the job's data kept on the offer for a whole calendar month."""
    return data.held_tb * offer.storage * fx(offer, project)


def storage_flows(offer: Offer, project: Project, data: JobData, start_day: float, end_day: float) -> dict[int, float]:
    """``storage_month_cost`` prorated over the calendar months of [start_day, end_day) (models.calendar)."""
    return prorate(project, storage_month_cost(offer, project, data), start_day, end_day)


def storage_cost(offer: Offer, project: Project, data: JobData, start_day: float, end_day: float) -> float:
    """The storage a job pays while it runs from ``start_day`` to ``end_day``: Σ ``storage_flows``."""
    return sum(storage_flows(offer, project, data, start_day, end_day).values())


def egress_cost(offer: Offer, project: Project, data: JobData) -> float:
    """egress TB · egress_per_tb · fx: what leaves the offer when the job ends."""
    return data.egress_tb * offer.egress * fx(offer, project)


def job_flows(
    offer: Offer, project: Project, nodes: int, hours: float, start_day: float, data: JobData | None = None
) -> Flows:
    """Cash flows caused by one job itself: busy energy on bought nodes, or the cloud bill; with its
    ``data``, the storage it holds on the offer while it runs and the egress at its end."""
    flows: Flows = {}
    end = job_end_day(offer, start_day, hours)
    if offer.mode == "buy":
        flows["energy"] = spread(project, busy_energy_cost(offer, project, nodes, hours), start_day, end)
    elif offer.mode == "cloud" and not offer.committed:  # reserved capacity is paid by its contract
        flows["cloud"] = spread(project, cloud_cost(offer, project, nodes, hours), start_day, end)
    if data is not None and offer.storage:
        flows["storage"] = storage_flows(offer, project, data, start_day, end)
    if data is not None and offer.egress:
        flows["egress"] = {clamp_month(project, end): egress_cost(offer, project, data)}
    if has_paths(project):  # hours and electricity at the index of the month they happen; FX of the month paid
        if "energy" in flows:
            flows["energy"] = _per_month(flows["energy"], lambda m: price_index(offer, project, "energy", m))
        if "cloud" in flows:
            flows["cloud"] = _per_month(flows["cloud"], lambda m: price_index(offer, project, "cloud", m))
        for c in ("cloud", "storage", "egress"):
            if c in flows:
                flows[c] = _paid_in(offer, project, flows[c])
    carbon = carbon_flows(offer, project, job_kwh(offer, project, nodes, hours, start_day)).get("carbon")
    if carbon:
        flows["carbon"] = carbon
    return flows


# --- fixed charges and staff -------------------------------------------------------------------


def fixed_charge_month(offer: Offer, project: Project) -> int:
    """The month an offer's fixed_cost is paid: the month it can first be used (its calendar month of day lead_time_days)."""
    return delivery_month(offer, project)


def fixed_charge_flows(offer: Offer, project: Project) -> Flows:
    """fixed_cost · fx, once, in ``fixed_charge_month`` (empty without a fixed_cost)."""
    if not offer.fixed:
        return {}
    d = fixed_charge_month(offer, project)
    return {"fixed": {d: offer.fixed * fx(offer, project) * fx_index(project, offer.currency, d)}}


def staff_modes(project: Project) -> tuple[str, ...]:
    return tuple(str(m) for m in project.staff.modes) if project.staff is not None else ()


def held_by_month(
    project: Project, offers: Mapping[str, Offer], purchases: Mapping[str, int], contracts: Iterable[RentalContract]
) -> list[int]:
    """held(m): nodes of the staff's modes held in each month (a bought node from its delivery month to
    the horizon end, a rented node in every month of its contracts)."""
    modes, M = staff_modes(project), project.horizon_months
    held = [0] * M
    for oid, n in purchases.items():
        if "buy" in modes and n > 0:
            for m in held_months(offers[oid], project):
                held[m] += n
    for c in contracts:
        if offers[c.offer_id].mode in modes:
            for m in range(c.start_month, min(c.start_month + c.months, M)):
                held[m] += c.nodes
    return held


def held_months(offer: Offer, project: Project) -> range:
    """The months a bought node is held: from its delivery month to the horizon end; an owned node in the
    months its window touches."""
    own = owned_terms(offer, project)
    if own is None:
        return range(delivery_month(offer, project), project.horizon_months)
    return range(clamp_month(project, own[0]), clamp_month(project, max(own[0], own[1] - 1e-6)) + 1)


def staff_ftes(project: Project, peak_nodes: int) -> int:
    """⌈peak / nodes_per_fte⌉ whole FTEs (0 without staff or nodes)."""
    if project.staff is None or peak_nodes <= 0:
        return 0
    return -(-peak_nodes // project.staff.nodes_per_fte)


def staff_month_cost(project: Project, month: int) -> float:
    """One FTE for ``month``: cost_per_fte_year / 12 × the share of the calendar month in the project (month 0
    is prorated when the project starts after its 1st, models.calendar)."""
    if project.staff is None:
        return 0.0
    return project.staff.cost_per_fte_year / MONTHS_PER_YEAR * month_share(project, month)


def staff_month_flows(project: Project, month: int) -> Flows:
    """One FTE paid in ``month``: ``staff_month_cost`` there (the optimizer's G[m] column)."""
    return {"staff": {month: staff_month_cost(project, month)}}


def staff_months(project: Project, held: list[int]) -> float:
    """The months the staff is paid for: the months of ``held_span``, month 0 by its share (``month_share``)."""
    return sum(month_share(project, m) for m in held_span(held))


def held_span(held: list[int]) -> range:
    """The months held: from the first to the last month with nodes held (empty when none)."""
    months = [m for m, n in enumerate(held) if n > 0]
    return range(months[0], months[-1] + 1) if months else range(0)


def staff_flows(
    project: Project, offers: Mapping[str, Offer], purchases: Mapping[str, int], contracts: Iterable[RentalContract]
) -> Flows:
    """FTEs · cost_per_fte_year / 12 in every month held (module docstring); empty without ``staff``."""
    if project.staff is None:
        return {}
    held = held_by_month(project, offers, purchases, contracts)
    ftes = staff_ftes(project, max(held, default=0))
    if not ftes:
        return {}
    return {"staff": {m: ftes * staff_month_cost(project, m) for m in held_span(held)}}


def cloud_cost(offer: Offer, project: Project, nodes: int, hours: float) -> float:
    if offer.price_per_node_hour is None:  # required for cloud offers (validated on load)
        raise ValueError(f"{offer.id}: a {offer.mode} offer has no price_per_node_hour")
    return nodes * wall_hours(offer, hours) * offer.price_per_node_hour * fx(offer, project)


# --- carbon (project carbon_price_per_t) ------------------------------------------------------------
#
# The energy a plan's servers draw, kWh, as solver.emissions reports it and the carbon price charges it (one
# definition for both; the node's power is its power_kw_per_node, else estimated from its GPUs, below):
#   bought node      kW · IDLE_POWER_FRACTION · 24·(H − ℓ) · PUE, spread over its owned days [ℓ, H) (owned
#                    servers: over their window), and per job nodes · kW · (BUSY − IDLE) · hours · PUE
#   rent, reserved   per node and contract month m: kW · IDLE · hours of month m · PUE (a held server idles between
#                    jobs), and per job nodes · kW · (BUSY − IDLE) · wall hours · PUE
#   on-demand cloud  per job nodes · kW · BUSY · wall hours · PUE (an instance exists only while it runs)
# placed in the months the energy is drawn (a job's over its days, as ``spread``).
#   tCO2e            = kWh · g / 10^6, g = the grid intensity of the offer's region in gCO2e/kWh
#                      (models.grid; a region without a figure emits nothing priced)
#   carbon(m)        = tCO2e(m) · price(year of m) · fx(carbon_price_currency)   (category ``carbon``, an operating
#                      cost: in the P&L, deductible for income tax, never subject to VAT)
#   price(y)         = carbon_price_per_t · (1 + carbon_price_change_pct_per_year)^y, or carbon_price_by_year[y]
#                      (the last holding after it), in project year y = ⌊m / 12⌋ (0-based)
# Estimated node power (rent and cloud offers carry no power_kw_per_node): GPUs × board power ÷
# GPU_SHARE_OF_SERVER_POWER; NVIDIA's DGX H100 datasheet gives 10.2 kW maximum for a system of 8 × 700 W GPUs,
# so the GPUs are 5.6 / 10.2 = 0.549 of the server's maximum draw.

#: NVIDIA DGX H100 datasheet: 10.2 kW system maximum, 8 × H100 SXM at 700 W = 5.6 kW
GPU_SHARE_OF_SERVER_POWER = 5.6 / 10.2
GRAMS_PER_TONNE = 1e6


def node_power_kw(offer: Offer) -> tuple[float, bool]:
    """(maximum draw of one node in kW, whether it is estimated): the offer's power_kw_per_node, else from its
    GPUs' board power (module section "Carbon")."""
    if offer.power_kw_per_node is not None:
        return offer.power_kw_per_node, False
    gpu = _gpu_table()[offer.gpu]
    return offer.gpus_per_node * gpu.tdp_w / 1000 / GPU_SHARE_OF_SERVER_POWER, True


def tco2e(kwh: float, g_per_kwh: float) -> float:
    """Tonnes of CO2e of ``kwh`` drawn from a grid emitting ``g_per_kwh`` grams per kWh: kWh · g / 10^6."""
    return kwh * g_per_kwh / GRAMS_PER_TONNE


def grid_g_per_kwh(offer: Offer) -> float | None:
    """The grid intensity of the offer's region, gCO2e/kWh (models.grid); None where the table has no figure."""
    grid = _intensity_of(offer.region)
    return None if grid is None else grid.g_per_kwh


def _kwh(offer: Offer, project: Project, hours: float, fraction: float) -> float:
    """kW · fraction · hours · PUE with the node's measured or estimated power (``energy_kwh`` for any offer)."""
    return node_power_kw(offer)[0] * fraction * hours * project.pue


def month_hours(project: Project) -> list[float]:
    """The hours of each project month: the horizon's hours spread over its calendar months (``spread``)."""
    end = horizon_end_day(project)
    per = spread(project, end * HOURS_PER_DAY, 0.0, end)
    return [per.get(m, 0.0) for m in range(project.horizon_months)]


def purchase_kwh(offer: Offer, project: Project) -> dict[int, float]:
    """The idle energy of ONE bought (or owned) node by month, kWh: over its owned days (module section "Carbon")."""
    own = owned_terms(offer, project)
    lo, hi = (own[0], own[1]) if own is not None else (float(offer.lead_time_days), horizon_end_day(project))
    days = max(0.0, hi - lo)
    return spread(project, _kwh(offer, project, days * HOURS_PER_DAY, IDLE_POWER_FRACTION), lo, hi)


def job_kwh(offer: Offer, project: Project, nodes: int, hours: float, start_day: float) -> dict[int, float]:
    """The energy one job draws by month, kWh: above idle on bought or contracted nodes, its whole draw on
    on-demand cloud (module section "Carbon")."""
    if offer.mode == "buy":
        kwh = nodes * _kwh(offer, project, hours, BUSY_POWER_FRACTION - IDLE_POWER_FRACTION)
    else:
        fraction = BUSY_POWER_FRACTION - IDLE_POWER_FRACTION if offer.contracted else BUSY_POWER_FRACTION
        kwh = nodes * _kwh(offer, project, wall_hours(offer, hours), fraction)
    return spread(project, kwh, start_day, job_end_day(offer, start_day, hours))


def held_node_kwh(offer: Offer, project: Project, months: Iterable[int]) -> dict[int, float]:
    """The idle energy of ONE node held in each of ``months`` (a contract's), kWh."""
    hours, last = month_hours(project), project.horizon_months - 1
    return {m: _kwh(offer, project, hours[min(max(m, 0), last)], IDLE_POWER_FRACTION) for m in months}


def contract_kwh(offer: Offer, project: Project, contract: RentalContract) -> dict[int, float]:
    """The idle energy of a contract's nodes in each month it is held, kWh (module section "Carbon")."""
    months = range(contract.start_month, contract.start_month + contract.months)
    return {m: contract.nodes * v for m, v in held_node_kwh(offer, project, months).items()}


def carbon_fx(project: Project) -> float:
    """The value of one unit of the carbon price's currency in the reporting currency."""
    return project.fx_rate(project.carbon_price_currency)


def carbon_year(month: int) -> int:
    """The 0-based project year of ``month``, which sets the carbon price on a path."""
    return month // MONTHS_PER_YEAR


def carbon_price(project: Project, month: int) -> float:
    """The carbon price per tonne of CO2e in ``month``, in the reporting currency: price(year) · fx."""
    return project.carbon_price_in_year(carbon_year(month)) * carbon_fx(project)


def carbon_flows(offer: Offer, project: Project, kwh: Mapping[int, float]) -> Flows:
    """{carbon: month → tCO2e(kWh of the month) · carbon_price(month)}: the carbon price of the energy ``kwh``
    drawn on ``offer`` (empty without a carbon price or a grid figure for its region)."""
    g = grid_g_per_kwh(offer) if project.carbon_priced else None
    if not g:
        return {}
    out = {m: tco2e(v, g) * carbon_price(project, m) for m, v in kwh.items() if v}
    return {"carbon": {m: v for m, v in out.items() if v}} if any(out.values()) else {}


def carbon_varies(project: Project) -> bool:
    """Whether the carbon price changes over the horizon (a path): a job's carbon cost then depends on its start."""
    if not project.carbon_priced:
        return False
    years = range(carbon_year(project.horizon_months - 1) + 1)
    return len({project.carbon_price_in_year(y) for y in years}) > 1


# --- totals ------------------------------------------------------------------------------------


def monthly_discount_rate(project: Project) -> float:
    return monthly_rate(project.discount_rate)


def monthly_rate(annual: float) -> float:
    """r_m = (1 + r)^(1/12) − 1: the monthly rate of an effective annual rate (every discount factor and lease
    liability of procure uses it)."""
    return (1.0 + annual) ** (1.0 / 12.0) - 1.0


def discount_factors(project: Project) -> list[float]:
    return monthly_factors(monthly_discount_rate(project), project.horizon_months)


def monthly_factors(r_m: float, n_months: int) -> list[float]:
    """End-of-month discount factors 1/(1 + r_m)^(m+1) of months 0 … n_months − 1 at the monthly rate r_m."""
    return [1.0 / (1.0 + r_m) ** (m + 1) for m in range(n_months)]


def scale(flows: Mapping[str, Mapping[int, float]], k: float) -> Flows:
    return {c: {m: v * k for m, v in per.items()} for c, per in flows.items()}


def total(flows: Mapping[str, Mapping[int, float]]) -> float:
    return sum(v for per in flows.values() for v in per.values())


def discounted(flows: Mapping[str, Mapping[int, float]], factors: Sequence[float]) -> float:
    """Σ amount · factor of its month: the flows' present value at the given discount factors."""
    return sum(v * factors[m] for per in flows.values() for m, v in per.items())


def present_value(flows: Mapping[str, Mapping[int, float]], project: Project) -> float:
    return discounted(flows, discount_factors(project))


def running_total(amounts: Iterable[float]) -> list[float]:
    """Σ_{k ≤ m} amounts[k] for every m: money spent by the end of each month."""
    out, acc = [], 0.0
    for v in amounts:
        acc += v
        out.append(acc)
    return out


def add_flows(parts: Iterable[Mapping[str, Mapping[int, float]]]) -> Flows:
    out: dict[str, dict[int, float]] = {c: defaultdict(float) for c in CATEGORIES}
    for part in parts:
        for c, per in part.items():
            for m, v in per.items():
                out[c][m] += v
    return {c: dict(per) for c, per in out.items()}


def by_category(flows: Mapping[str, Mapping[int, float]]) -> dict[str, float]:
    return {c: sum(flows.get(c, {}).values()) for c in CATEGORIES}


def rental_parts(offer: Offer, contract: RentalContract, project: Project) -> dict[str, dict[int, float]]:
    """A contract's money by part, whatever its mode: ``rent`` (the term's rate for every month held) and
    ``setup`` (the setup fee or reserved upfront in its first month, absent for a reserved term without one;
    a rent contract keeps a zero fee in its first month)."""
    term = term_of(offer, contract)
    if term is None:
        raise ValueError(
            f"contract of {offer.id} for {contract.months} months at term {contract.term_months} is not offered"
        )
    monthly, once = rental_month_cost(offer, project, term), rental_setup_cost(offer, project, term)
    parts: dict[str, dict[int, float]] = {
        "rent": {
            m: contract.nodes * monthly for m in range(contract.start_month, contract.start_month + contract.months)
        }
    }
    if once or offer.mode == "rent":
        parts["setup"] = {contract.start_month: contract.nodes * once}
    if has_paths(project):  # the rate of its start month for every month it runs; each payment at its month's FX
        k = contract_index(offer, project, contract)
        parts = {part: _paid_in(offer, project, {m: v * k for m, v in per.items()}) for part, per in parts.items()}
    return parts


def rental_categories(offer: Offer) -> tuple[str, str]:
    """The cost categories of a contract's (rent, setup) parts: a reserved cloud term books both as cloud."""
    return ("rent", "setup") if offer.mode == "rent" else ("cloud", "cloud")


def rental_flows(offer: Offer, contract: RentalContract, project: Project) -> Flows:
    """Cash flows of a rent contract (rent, setup) or of a reserved cloud term (cloud): ``rental_parts``
    booked under ``rental_categories``."""
    run, fee = rental_categories(offer)
    parts = rental_parts(offer, contract, project)
    flows: Flows = {run: {}, fee: {}}
    for part, cat in ((parts["rent"], run), (parts.get("setup", {}), fee)):
        for m, v in part.items():
            flows[cat][m] = flows[cat].get(m, 0.0) + v
    carbon = carbon_flows(offer, project, contract_kwh(offer, project, contract)).get("carbon")
    if carbon:
        flows["carbon"] = carbon
    return flows


# --- what the budgets cap (budget_tco, budget_cash, budget_capex) -----------------------------------


def cumulative_by_month(flows: Flows, n_months: int) -> list[float]:
    """Cash out spent by the end of each project month: Σ over categories and months ≤ m."""
    return running_total(sum(per.get(m, 0.0) for per in flows.values()) for m in range(n_months))


def peak_cash_out(flows: Flows, n_months: int) -> float:
    """The most money spent so far at any month end (0 when nothing is spent): what ``budget_cash`` caps.
    The residual value counts in the month it is credited (the horizon end), so it lowers only that month."""
    return max([0.0, *cumulative_by_month(flows, n_months)])


def capex(flows: Flows) -> float:
    """Purchase prices paid: what ``budget_capex`` caps."""
    return sum(flows.get("capex", {}).values())


# --- income tax (project ``tax``; models/data/tax_rules.yaml) ----------------------------------------
#
# Timing: monthly. Income tax is taken as settled month by month (a company paying monthly prepayments
# against other taxable income, ``tax.losses_usable``): every deductible cost saves t × its amount in the month
# it is booked, and a bought server's tax depreciation saves t × that month's deduction. With
# ``losses_usable: false`` the project's deductions save nothing within the horizon (rate 0 below).
#
#   deductible       the operating categories (maintenance … staff) and loan interest, as paid (OPERATING + interest)
#   tax basis        the capitalised cost of a purchase: landed price (duty, non-recoverable VAT) plus network,
#                    the amount the books capitalise (capitalised_cost); owned servers: 0 (taken as fully
#                    depreciated for tax, an assumption stated in docs/finance.md)
#   depreciation     by the rule of ``tax.depreciation`` (TaxRule), from the month the servers are put in use (the
#                    delivery month d):
#                      straight_line  basis / round(12·life) a month, from d (``next_month``: from d + 1)
#                      one_off        the whole basis in month d (d + 1 with ``next_month``: cn-one-off), when month d
#                                     begins within the rule's dates and
#                                     the basis per server is at most the cap (× the fx rate of its currency);
#                                     else the rule's ``otherwise``
#                      table          percent[k] of the basis in the k-th tax year from the one holding d, spread
#                                     evenly over the months of that tax year the server is held; half-year
#                                     convention: half of it in the tax year of the sale when the table has not
#                                     ended, none when bought and sold in one tax year (IRS Publication 946). Tax
#                                     years begin in ``fiscal_year_start_month``.
#                    Deductions stop at the sale.
#   sale             the servers are sold in the month the residual value is credited (the horizon's last month):
#                    tax t × (proceeds − basis not yet deducted); a negative gain (a loss) saves tax
#   tax(m)           −t·Σ_c deductible_c(m) − t·depreciation(m) + t·gain(m)   (negative: tax saved)
#
# After-tax cash flow(m) = pre-tax cash flow(m) + tax(m); after-tax NPV discounts it at ``after_tax_rate``
# (hurdle_rate, else wacc, else discount_rate), end-of-month timing as ``present_value``. FOCUS and the TCO
# stay pre-tax.

TAX = "tax"  # the name of income tax flows beside the categories (never part of the TCO)
DEDUCTIBLE: tuple[str, ...] = (*OPERATING, "interest")


@dataclass(frozen=True)
class TaxAsset:
    """Servers bought together, as income tax sees them (module section "Income tax")."""

    basis: float  # tax basis of all ``units`` servers
    units: int  # servers (the one-off cap is per server)
    service_month: int  # put in use (the delivery month)
    sale_month: int  # sold (the residual value's month)
    proceeds: float  # what the sale brings


def income_tax_rate(project: Project) -> float:
    """t: the project's income tax rate (0 without a ``tax`` section, or when its losses are not usable)."""
    tax = project.tax
    return tax.income_tax_rate if tax is not None and tax.losses_usable else 0.0


def month_start_date(project: Project, month: int) -> dt.date:
    """The date project month ``month`` begins on: the 1st of its calendar month (month 0: the start date)."""
    cal = project.calendar
    return cal.date(cal.bucket_start(month))


def tax_year(project: Project, month: int) -> int:
    """The tax year project month ``month`` falls in (by the date it begins; years begin in
    ``fiscal_year_start_month``), as a count of years."""
    d = month_start_date(project, month)
    return (d.year * MONTHS_PER_YEAR + d.month - project.fiscal_year_start_month) // MONTHS_PER_YEAR


def fiscal_years(project: Project) -> list[tuple[int, int, str]]:
    """The fiscal years the horizon touches, as (first month, month after the last, label): a year begins with the
    calendar month ``fiscal_year_start_month`` (1: the calendar year), so the first and the last may be partial
    (a project from 2027-01-04 with years from April: months 0–2, then 3–14, …). The label names the year by the
    calendar year it begins in, "FY2027", and "FY2027/28" when it runs into the next (the UK's, India's, Japan's
    usage). The P&L, the income tax and the leases are stated per fiscal year (IAS 1.36: financial statements are
    presented for the entity's reporting period)."""
    M = project.horizon_months
    bounds = [m for m in range(1, M) if month_start_date(project, m).month == project.fiscal_year_start_month]
    edges = [0, *bounds, M]
    out = []
    for lo, hi in zip(edges, edges[1:], strict=False):
        first = month_start_date(project, lo)
        begins = first.year if first.month >= project.fiscal_year_start_month else first.year - 1
        label = f"FY{begins}" if project.fiscal_year_start_month == 1 else f"FY{begins}/{(begins + 1) % 100:02d}"
        out.append((lo, hi, label))
    return out


def tax_rule_of(asset: TaxAsset, project: Project) -> TaxRule:
    """The rule that depreciates ``asset``: the project's, or a one-off rule's ``otherwise`` when the servers are
    put in use outside its dates or cost more than its cap per server."""
    assert project.tax is not None
    rule = project.tax.rule
    if rule.kind != "one_off":
        return rule
    placed = month_start_date(project, asset.service_month)
    cap = math.inf if rule.cap_per_unit is None else rule.cap_per_unit * project.fx_rate(rule.cap_currency)
    lo, hi = rule.placed_from, rule.placed_until
    if lo is not None and hi is not None and lo <= placed <= hi and asset.basis / max(1, asset.units) <= cap:
        return rule
    return tax_rules()[rule.otherwise or ""]


def tax_depreciation(asset: TaxAsset, project: Project) -> dict[int, float]:
    """The tax depreciation of ``asset`` by month, up to its sale (module section "Income tax")."""
    if project.tax is None or asset.basis == 0:
        return {}
    rule = tax_rule_of(asset, project)
    d, last = asset.service_month, min(asset.sale_month, project.horizon_months - 1)
    if rule.kind == "one_off":
        first = d + (1 if rule.start == "next_month" else 0)
        return {first: asset.basis} if first <= last else {}
    if rule.kind == "straight_line":
        life = max(1, int(round(project.tax.straight_life_years(rule) * MONTHS_PER_YEAR)))
        first = d + (1 if rule.start == "next_month" else 0)
        return {m: asset.basis / life for m in range(first, min(first + life, last + 1))}
    out: dict[int, float] = {}
    first_year, sale_year = tax_year(project, d), tax_year(project, last)
    if first_year == sale_year:  # bought and sold in one tax year: no depreciation (IRS Publication 946, ch. 4)
        return {}
    for k, pct in enumerate(rule.percent):
        year = first_year + k
        if year > sale_year:
            break
        share = pct / 100.0
        if year == sale_year and rule.convention == "half_year" and k < len(rule.percent) - 1:
            share /= 2.0
        months = [m for m in range(d, last + 1) if tax_year(project, m) == year]
        for m in months:
            out[m] = out.get(m, 0.0) + asset.basis * share / len(months)
    return out


def column_assets(flows: Mapping[str, Mapping[int, float]], project: Project, units: int = 1) -> list[TaxAsset]:
    """The servers in ``flows`` as income tax sees them: one purchase's flows (its capex and network: the basis,
    put in use in the first month they appear; its residual value: the sale) make one asset; flows without a
    purchase make one asset of basis 0 per month a residual value is credited in (owned servers)."""
    basis_months = [m for c in CAPITALISED for m in flows.get(c, {})]
    basis = sum(v for c in CAPITALISED for v in flows.get(c, {}).values())
    resid = flows.get("residual_value", {})
    last = project.horizon_months - 1
    if basis_months:
        sale = max(resid, default=last)
        return [TaxAsset(basis, units, min(basis_months), sale, -sum(resid.values()))]
    return [TaxAsset(0.0, units, 0, m, -v) for m, v in sorted(resid.items()) if v]


def income_tax_parts(
    flows: Mapping[str, Mapping[int, float]], assets: Iterable[TaxAsset], project: Project
) -> dict[str, dict[int, float]]:
    """The income tax of ``flows`` by month, in three parts (negative: tax saved): ``deductions`` (t × the
    deductible costs), ``depreciation`` (t × the tax depreciation of ``assets``) and ``sale`` (t × the gain on
    their sale over the basis not yet deducted)."""
    t = income_tax_rate(project)
    parts: dict[str, dict[int, float]] = {"deductions": {}, "depreciation": {}, "sale": {}}
    if not t:
        return parts
    ded = parts["deductions"]
    for c in DEDUCTIBLE:
        for m, v in flows.get(c, {}).items():
            ded[m] = ded.get(m, 0.0) - t * v
    for a in assets:
        dep = tax_depreciation(a, project)
        for m, v in dep.items():
            parts["depreciation"][m] = parts["depreciation"].get(m, 0.0) - t * v
        gain = a.proceeds - (a.basis - sum(dep.values()))
        if gain or a.basis:
            parts["sale"][a.sale_month] = parts["sale"].get(a.sale_month, 0.0) + t * gain
    return parts


def income_tax_flows(
    flows: Mapping[str, Mapping[int, float]], assets: Iterable[TaxAsset], project: Project
) -> dict[int, float]:
    """tax(m): the three parts of ``income_tax_parts`` added."""
    out: dict[int, float] = {}
    for part in income_tax_parts(flows, assets, project).values():
        for m, v in part.items():
            out[m] = out.get(m, 0.0) + v
    return out


def after_tax_rate(project: Project) -> float:
    """The annual rate of the after-tax NPV: hurdle_rate, else wacc, else discount_rate."""
    for rate in (project.hurdle_rate, project.wacc):
        if rate is not None:
            return rate
    return project.discount_rate


def rate_factors(annual_rate: float, n_months: int) -> list[float]:
    """End-of-month discount factors 1/(1 + r_m)^(m+1), r_m = (1 + r)^(1/12) − 1 (as ``discount_factors``)."""
    return monthly_factors(monthly_rate(annual_rate), n_months)


def after_tax_factors(project: Project) -> list[float]:
    return rate_factors(after_tax_rate(project), project.horizon_months)


def after_tax_value(flows: Mapping[str, Mapping[int, float]], project: Project) -> float:
    """The after-tax present value of ONE column's flows (its assets by ``column_assets``): what the
    ``after_tax_npv`` objective charges a column per unit."""
    factors = after_tax_factors(project)
    tax = income_tax_flows(flows, column_assets(flows, project), project)
    return discounted(flows, factors) + sum(v * factors[m] for m, v in tax.items())


# --- leases (IFRS 16 / CAS 21 / ASC 842) -------------------------------------------------------------
#
# A contract of a lease offer (``Offer.lease``; by default rent offers lease identified bare-metal servers and cloud
# offers are services) that runs more than 12 months (IFRS 16.5: shorter leases may stay off the balance sheet) is
# booked as a lease: at its first month the liability L = Σ_k p_k / (1 + i)^k (its payments p_k at the end of each
# month k = 1…n, i = (1 + IBR)^(1/12) − 1, IBR = incremental_borrowing_rate, else cost_of_debt, else the financing
# rate, else the after-tax NPV's rate), the right-of-use asset = L + the setup fee (initial direct costs, IFRS
# 16.24(c)); each month interest = balance · i, the balance falls by the payment less interest, and the asset is
# depreciated straight line over the n months (IFRS 16.31). Depreciation and interest replace the rent in the P&L,
# so EBITDA no longer carries it. Cash, tax and NPV do not change.

LEASE_MIN_MONTHS = 12  # IFRS 16.5 / CAS 21: leases of 12 months or less may be kept off the balance sheet


def is_lease(offer: Offer) -> bool:
    """A contract of ``offer`` leases identified servers (not a service): ``lease``, by default rent offers."""
    return offer.lease if offer.lease is not None else offer.mode == "rent"


def incremental_borrowing_rate(project: Project) -> float:
    """IBR: incremental_borrowing_rate, else cost_of_debt, else the financing rate, else the after-tax NPV's rate."""
    for rate in (project.incremental_borrowing_rate, project.cost_of_debt):
        if rate is not None:
            return rate
    if project.financing is not None:
        return project.financing.annual_rate
    return after_tax_rate(project)


@dataclass(frozen=True)
class LeaseBook:
    """One lease on the balance sheet, month by month from its first month (module section "Leases")."""

    first_month: int
    liability: float  # at commencement
    asset: float  # right-of-use asset at commencement: liability + initial direct costs
    interest: dict[int, float]
    depreciation: dict[int, float]
    rent: dict[int, float]  # the payments (and the setup fee) the P&L no longer books as operating costs
    closing: dict[int, float]  # the liability after each month's payment

    def liability_before(self, month: int) -> float:
        """The lease liability at the start of ``month`` (0 before the lease begins, 0 once it is paid off)."""
        if month <= self.first_month:
            return self.liability if month == self.first_month else 0.0
        return self.closing.get(month - 1, 0.0)

    def asset_after(self, month: int) -> float:
        """The right-of-use asset's carrying amount after ``month``'s depreciation (0 before the lease begins)."""
        if month < self.first_month:
            return 0.0
        return self.asset - sum(v for m, v in self.depreciation.items() if m <= month)


def lease_book(
    payments: Mapping[int, float], setup: float, first_month: int, annual_rate: float, setup_month: int | None = None
) -> LeaseBook:
    """The lease of ``payments`` (month → amount, paid at each month end, its whole signed schedule from its first
    month, which may lie before the project start or run past its end) and its setup fee (paid in ``setup_month``,
    by default the first month)."""
    i = monthly_rate(annual_rate)
    months = sorted(payments)
    liability = sum(payments[m] / (1.0 + i) ** (m - first_month + 1) for m in months)
    asset = liability + setup
    balance, interest, closing = liability, {}, {}
    for m in range(first_month, (months[-1] if months else first_month) + 1):
        interest[m] = balance * i
        balance = balance + interest[m] - payments.get(m, 0.0)
        closing[m] = balance
    n = len(range(first_month, (months[-1] if months else first_month) + 1))
    depreciation = {m: asset / n for m in range(first_month, first_month + n)}
    rent = dict(payments)
    if setup:
        at = first_month if setup_month is None else setup_month
        rent[at] = rent.get(at, 0.0) + setup
    return LeaseBook(first_month, liability, asset, interest, depreciation, rent, closing)


# --- appraisal: IRR, payback, net advantage to leasing -------------------------------------------------


#: the flows the net advantage to leasing discounts at the after-tax cost of debt (debt-like: contractual, near
#: certain): the purchase price and its loan, rent and setup fees, and every tax shield; the salvage (resale and the
#: tax on its gain) and the operating costs of use stay at the after-tax NPV's rate (REFERENCE.md, "Lease vs buy")
DEBT_LIKE: tuple[str, ...] = ("capex", "network", "interest", "rent", "setup")
DEBT_LIKE_TAX: tuple[str, ...] = ("deductions", "depreciation")


def sign_changes(values: Sequence[float]) -> int:
    """How many times ``values`` change sign (zeros skipped): Descartes' bound on the number of IRRs."""
    signs = [v > 0 for v in values if v]
    return sum(1 for a, b in zip(signs, signs[1:], strict=False) if a != b)


def irr_monthly(values: Sequence[float]) -> float | None:
    """The monthly IRR of ``values`` (month 0 first), as Excel's ``IRR`` (pyxirr.irr); None when it does not exist
    (the values never change sign) or no root is found."""
    if not any(v > 0 for v in values) or not any(v < 0 for v in values):
        return None
    try:
        r = pyxirr.irr(list(values))
    except (pyxirr.InvalidPaymentsError, ValueError):
        r = None
    if r is not None and math.isfinite(r) and IRR_RANGE[0] < r <= IRR_RANGE[1]:
        return float(r)
    return _irr_in_range(values)


#: the monthly rates an IRR is sought in: −99 % to +100 % a month. Flows that change sign more than once may have
#: several IRRs (Descartes); a root far outside this range (pyxirr finds one at +2,000 % a month on some) says
#: nothing a finance reader can use, so the root nearest 0 within it is taken, else none.
IRR_RANGE = (-0.99, 1.0)


def _irr_in_range(values: Sequence[float]) -> float | None:
    """The root of Σ v_m/(1+r)^m nearest 0 within ``IRR_RANGE``, by a scan of 2,000 steps and bisection; None
    without one."""

    def npv(r: float) -> float:
        return sum(v / (1.0 + r) ** m for m, v in enumerate(values))

    lo, hi = IRR_RANGE
    grid = [lo + (hi - lo) * k / 2000 for k in range(2001)]
    roots = []
    prev = npv(grid[0])
    for a, b in zip(grid, grid[1:], strict=False):
        cur = npv(b)
        if prev == 0.0:
            roots.append(a)
        elif prev * cur < 0:
            x, y, fx_ = a, b, prev
            for _ in range(200):
                mid = (x + y) / 2
                fm = npv(mid)
                if fx_ * fm <= 0:
                    y = mid
                else:
                    x, fx_ = mid, fm
            roots.append((x + y) / 2)
        prev = cur
    return min(roots, key=abs) if roots else None


def annual_rate(monthly: float) -> float:
    """(1 + r_m)^12 − 1: a monthly rate as an effective annual one."""
    return (1.0 + monthly) ** MONTHS_PER_YEAR - 1.0


def payback_months(values: Sequence[float], factors: Sequence[float] | None = None) -> float | None:
    """Months until the cumulative ``values`` (discounted by ``factors`` when given: the discounted payback) turn
    non-negative for good, month ends counted from the start (month m ends at m + 1), interpolated linearly within
    the month it happens in; 0 when it never falls below zero, None when it is still negative at the horizon end."""
    flows = [v * (factors[m] if factors is not None else 1.0) for m, v in enumerate(values)]
    cum = running_total(flows)
    negative = [m for m, c in enumerate(cum) if c < -1e-9]
    if not negative:
        return 0.0
    last = negative[-1]
    if last == len(cum) - 1:
        return None
    m = last + 1  # the cumulative turns non-negative during month m
    return m + (-cum[last]) / flows[m] if flows[m] else float(m + 1)
