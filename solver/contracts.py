"""What a rental contract is and which terms an offer sells: the term tiers of a rent offer (each a minimum
length at its own rate) or a reserved cloud term, the contract as signed (nodes, start month and phase,
months, the tier), and which term a contract is signed at. The prices of these terms are costs.py's."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from procure.models.calendar import Calendar
from procure.models.offer import Offer
from procure.models.units import HOURS_PER_MONTH


@dataclass(frozen=True)
class Term:
    """A contract term an offer sells: ``months`` long (at least, when ``open_ended``) at ``price`` per
    node-month and ``setup`` once per node, both in the offer's currency."""

    months: int
    price: float
    setup: float
    open_ended: bool


def contract_terms(offer: Offer) -> tuple[Term, ...]:
    """The terms of a rent offer (its term tiers, each open-ended: any length ≥ its months) or of a
    reserved cloud offer (one fixed term at the committed hourly rate × 730 h)."""
    if offer.mode == "rent":
        return tuple(Term(L, p, offer.setup_fee, True) for L, p in offer.rent_tiers)
    if offer.committed:
        months, hourly = offer.commitment_months, offer.price_per_node_hour
        if (
            months is None or hourly is None
        ):  # committed implies a term; a cloud offer needs its hourly price (validated on load)
            raise ValueError(f"{offer.id}: a reserved cloud term needs commitment_months and price_per_node_hour")
        return (Term(months, hourly * HOURS_PER_MONTH, offer.upfront_per_node or 0.0, False),)
    return ()


def term_problem(offer: Offer, contract: RentalContract) -> str | None:
    """Why ``contract`` is not one the offer sells (None: it is). ``contract.term_months`` names the term
    it is signed at (None: the shortest); a rent tier allows any length ≥ its months, a reserved cloud
    term exactly its commitment_months."""
    terms = contract_terms(offer)
    if not terms:
        return f"{offer.id} is a {offer.mode} offer without contract terms"
    want = contract.term_months if contract.term_months is not None else terms[0].months
    t = next((t for t in terms if t.months == want), None)
    if t is None:
        return (
            f"signed at a {want}-month term the offer does not quote (terms: {', '.join(str(x.months) for x in terms)})"
        )
    if t.open_ended and contract.months < t.months:
        return f"lasts {contract.months} months < the minimum {t.months} of its term tier"
    if not t.open_ended and contract.months != t.months:
        return f"lasts {contract.months} months; a reserved term is exactly commitment_months = {t.months}"
    return None


def committed_term(offer: Offer, signed_months: int, rate: float | None = None) -> Term:
    """The term of a commitment signed for ``signed_months``: a rent offer's cheapest tier whose minimum the
    signed length reaches (its shortest tier if none does); a reserved cloud offer's one term; at ``rate``
    per node-month when the commitment states the rate it was signed at."""
    terms = contract_terms(offer)
    reached = [t for t in terms if t.months <= signed_months] or [terms[0]]
    term = min(reached, key=lambda t: (t.price, t.months))
    return term if rate is None else Term(term.months, rate, term.setup, term.open_ended)


def term_of(offer: Offer, contract: RentalContract) -> Term | None:
    """The term a contract is signed at (``contract.term_months``; None: the shortest), if the contract's
    length is allowed by it (``term_problem``); else None. A commitment's is ``committed_term``."""
    if contract.committed:
        return committed_term(offer, contract.term_months or contract.months, contract.rate)
    if term_problem(offer, contract) is not None:
        return None
    terms = contract_terms(offer)
    want = contract.term_months if contract.term_months is not None else terms[0].months
    return next(t for t in terms if t.months == want)


def signed_term_months(offer: Offer, term: Term) -> int | None:
    """How a contract records the term it is signed at (``RentalContract.term_months``): None for a rent
    offer's shortest term (the plain minimum term), else the term's months."""
    return None if offer.mode == "rent" and term == contract_terms(offer)[0] else term.months


@dataclass(frozen=True)
class RentalContract:
    """``nodes`` node-contracts for ``months`` whole months from their own start, signed at the offer's term
    of ``term_months`` months (None: the shortest term; a reserved cloud term is its commitment_months).

    A contract begins ``phase_days`` days after the 1st of calendar month ``start_month`` (0 ≤ phase_days < 31,
    ``Calendar.anniversary``): its months are its own anniversary months (models.calendar), not the project's
    calendar months. Its j-th month is paid when it begins, which falls in project month ``start_month`` + j,
    so the cash of a contract is indexed by project month like every other flow. ``cal`` is the calendar of
    the project it belongs to (``Project.calendar``): it places the contract on the project's days."""

    offer_id: str
    nodes: int
    start_month: int
    months: int
    term_months: int | None = None
    phase_days: float = 0.0
    # signed before the plan (project ``commitments``): ``term_months`` is the length signed, ``months`` the
    # part of it within the horizon, and its rate the one the signed length reaches (``committed_term``)
    committed: bool = False
    rate: float | None = None  # a commitment's rate as signed, per node-month in the offer's currency
    cal: Calendar | None = field(default=None, compare=False, repr=False)

    def _calendar(self) -> Calendar:
        if self.cal is None:
            raise ValueError(f"contract of {self.offer_id} from month {self.start_month} has no calendar to lie on")
        return self.cal

    @property
    def start_day(self) -> float:
        """The day the contract begins (the nodes are handed over)."""
        return self._calendar().anniversary(self.phase_days, self.start_month)

    @property
    def end_day(self) -> float:
        """The day its last month ends."""
        return self._calendar().anniversary(self.phase_days, self.start_month + self.months)

    def on(self, cal: Calendar) -> RentalContract:
        """This contract on the calendar ``cal``."""
        return self if self.cal is cal else replace(self, cal=cal)


def contract_at(
    offer_id: str, nodes: int, start_day: float, months: int, cal: Calendar, term_months: int | None = None
) -> RentalContract:
    """The contract that begins on ``start_day``: its calendar month and its phase (days after the month's 1st)."""
    m = cal.month_of(start_day + 1e-9)
    return RentalContract(offer_id, nodes, m, months, term_months, cal.phase_of(start_day), cal=cal)
