"""Rental contracts in the MILP (formulation's docstring, "rent"): open-ended contract and term-tier
variables, the rows that hold a rented node for its contract, the per-job rows, and cuts. (The rent_job
rows were once lifted by other jobs' columns; paired on six Monte Carlo rent models with the contracts'
gate they cost CPU instead of saving it, 19.1 against 15.6 s, docs/performance.md, and were dropped.)"""

from __future__ import annotations

import math

import pulp

from procure.models.calendar import MAX_MONTH_DAYS

from .. import costs, lattice
from ..costs import RentalContract
from ..options import Option
from .state import BuilderState, _months_name


class RentalRows(BuilderState):
    """Rental contract variables and rows (a layer of Builder)."""

    def _add_open_contract_vars(self, oid: str, term: costs.Term) -> None:
        """S/E of one open-ended rent term tier (a minimum length) on each of the offer's phases, with their
        costs. No contract begins before delivery: S is 0 in the lattice months that begin before the lead time."""
        m, grid, offer, k = self.m, self.grid, self.offers[oid], self.oidx[oid]
        M, L = grid.n_months, term.months
        if L > M:  # no contract of this tier ends within the horizon
            return
        ub = offer.max_nodes * (M // L + 1)
        for ph, phase in enumerate(self.phases[oid]):
            for mm in range(M):
                up = ub if lattice.may_start(self.project.calendar, offer, phase, mm, self._from_day(oid)) else 0
                m.S[(oid, L, ph, mm)] = self._var(f"S_{k}_{L}_{ph}_{mm}", 0, up, cat=self._contract_cat())
            for mm in range(M + 1):
                m.E[(oid, L, ph, mm)] = self._var(
                    f"E_{k}_{L}_{ph}_{mm}", 0, (0 if mm < L else ub), cat=self._contract_cat()
                )
            for mm in range(M):
                started, ended = (
                    costs.with_service_vat(offer, self.project, f)
                    for f in costs.open_contract_unit_flows(offer, self.project, term, mm)
                )
                self._cost(m.S[(oid, L, ph, mm)], started)
                self._cost(m.E[(oid, L, ph, mm)], ended)

    def add_indexed_contract_vars(self, oid: str) -> None:
        """The open-ended tiers of an offer whose rate moves with the month a contract starts (price paths,
        costs.contract_index_moves): T[o,ℓ,φ,s] node-contracts of ℓ whole months from lattice month s of phase φ,
        for every length from the shortest tier to the horizon end, each at the cheapest tier its length reaches
        and costed by its own flows (costs.rental_flows: the index of its start for all its months).

        Why not S/E: the cumulative counts cannot tell which contract ends when, so every contract held in a month
        would pay one rate; with a rate per start month the rent of a month depends on which contracts are still
        held. A column per start and length is exact (each contract pays its own start's index, as the ledger
        books it) and holds the same contracts S/E do: any length ≥ the tier's minimum, within the horizon, not
        before delivery. It is used only where a path moves the rate; without paths the model is unchanged."""
        m, offer, k, M = self.m, self.offers[oid], self.oidx[oid], self.grid.n_months
        terms = [t for t in costs.contract_terms(offer) if t.open_ended]
        if not terms:
            return
        shortest = min(t.months for t in terms)
        for ph, phase in enumerate(self.phases[oid]):
            for mm in range(M - shortest + 1):
                if not lattice.may_start(self.project.calendar, offer, phase, mm, self._from_day(oid)):
                    continue
                for length in range(shortest, M - mm + 1):
                    term = min((t for t in terms if t.months <= length), key=lambda t: (t.price, t.months))
                    signed = costs.signed_term_months(offer, term)
                    var = self._var(f"T_{k}_{length}_{ph}_{mm}", 0, offer.max_nodes, cat=self._contract_cat())
                    m.T[(oid, length, ph, mm)] = var
                    m.T_signed[(oid, length, ph, mm)] = signed
                    contract = RentalContract(oid, 1, mm, length, signed, phase, cal=self.project.calendar)
                    self._cost(
                        var,
                        costs.with_service_vat(offer, self.project, costs.rental_flows(offer, contract, self.project)),
                    )

    # --- quote schedules: fixed-length terms (reserved cloud) and volume tiers --------------------
    def add_term_tier_vars(self, oid: str) -> None:
        """T[o,τ,φ,m]: node-contracts of every fixed-length term τ of the offer (a reserved cloud term) that
        begin in lattice month m of phase φ, not before delivery, costed per contract by the cost model."""
        m, offer, k, M = self.m, self.offers[oid], self.oidx[oid], self.grid.n_months
        for t in costs.contract_terms(offer):
            if t.open_ended or t.months > M:
                continue
            for ph, phase in enumerate(self.phases[oid]):
                for mm in range(M - t.months + 1):
                    if not lattice.may_start(self.project.calendar, offer, phase, mm, self._from_day(oid)):
                        continue
                    var = self._var(f"T_{k}_{t.months}_{ph}_{mm}", 0, offer.max_nodes, cat=self._contract_cat())
                    m.T[(oid, t.months, ph, mm)] = var
                    contract = RentalContract(oid, 1, mm, t.months, t.months, phase, cal=self.project.calendar)
                    self._cost(
                        var,
                        costs.with_service_vat(offer, self.project, costs.rental_flows(offer, contract, self.project)),
                    )

    def add_job_cuts(self) -> None:
        """buy_job, rent_job and rent_whole (see the module docstring): one job's nodes against the capacity it needs.

        rent_job[o,μ,w] has one row per class μ of pieces of time (the lattice month of every phase, lattice.py):
        every start of w that runs in such a piece needs its nodes held there. rent_whole: each node of w is
        held for at least the shortest tier L_{o,1} and, on an offer with one phase, for every lattice month
        it touches; with several phases a node may pass from one phase's contract to another's, so for at
        least ⌈wall days / μ⌉ months (contracts are whole months and together cover the job)."""
        m, grid, row = self.m, self.grid, self.names.row
        on, wn = self.names.offer, self.names.workload
        buy_rows: dict[tuple[str, str], dict] = {}
        rent_rows: dict[tuple[str, tuple, str], dict] = {}
        whole_rows: dict[tuple[str, str], dict] = {}
        for (w, i, s), v in m.x.items():
            opt = self.options[w][i]
            if opt.mode == "buy":
                buy_rows.setdefault((opt.offer_id, w), {})[v] = opt.nodes
            elif opt.offer.contracted:
                for months in self._footprint[(w, i, s)][1]:  # the piece classes the start runs in
                    rent_rows.setdefault((opt.offer_id, months, w), {})[v] = opt.nodes
                if opt.offer_id not in self.committed:  # a commitment may hold fewer months than any new term
                    whole_rows.setdefault((opt.offer_id, w), {})[v] = opt.nodes * self._node_months(opt, s)
        for (oid, w), terms in buy_rows.items():
            m.prob += (pulp.LpAffineExpression(terms) - m.b[oid] <= 0, row("buy_job", on[oid], wn[w]))
        for (oid, mm, w), terms in rent_rows.items():
            m.prob += (
                pulp.LpAffineExpression(terms) - self.rented(oid, mm) <= 0,
                row("rent_job", on[oid], _months_name(mm), wn[w]),
            )
        held: dict[str, pulp.LpAffineExpression] = {}
        for (oid, w), terms in whole_rows.items():
            if oid not in held:
                held[oid] = pulp.lpSum(self.rented_in_month(oid, mm) for mm in range(grid.n_months))
            m.prob += (pulp.LpAffineExpression(terms) - held[oid] <= 0, row("rent_whole", on[oid], wn[w]))

    def _node_months(self, opt: Option, s: int) -> int:
        """The fewest contract months each node of ``opt`` started in period s is held (add_job_cuts)."""
        shortest = costs.contract_terms(opt.offer)[0].months  # every contract of the offer lasts at least this
        phases = self.phases[opt.offer_id]
        day = self.grid.day_of_period(s)
        if len(phases) == 1:
            return max(
                shortest, len(lattice.months_touched(self.project.calendar, phases[0], day, day + opt.wall_days))
            )
        return max(shortest, math.ceil(opt.wall_days / MAX_MONTH_DAYS - lattice.TOL))  # no month is longer

    def add_rentals(self) -> None:
        """rent_order, rent_term (FIFO minimum term), rent_close per tier and phase; rent_avail per piece class."""
        m, M, row = self.m, self.grid.n_months, self.names.row
        for oid in sorted({k[0] for k in m.S} | {k[0] for k in m.T}, key=self.oidx.__getitem__):
            offer, o = self.offers[oid], self.names.offer[oid]

            # fixed-length terms end within the horizon by construction; open-ended tiers need these rows
            for L in self._tiers_of(oid):
                for ph in range(len(self.phases[oid])):
                    S = [m.S[(oid, L, ph, mm)] for mm in range(M)]
                    E = [m.E[(oid, L, ph, mm)] for mm in range(M + 1)]
                    for mm in range(1, M):
                        m.prob += (S[mm - 1] - S[mm] <= 0, row("rent_order_S", o, L, ph, mm))
                    for mm in range(1, M + 1):
                        m.prob += (E[mm - 1] - E[mm] <= 0, row("rent_order_E", o, L, ph, mm))
                    for mm in range(L, M + 1):
                        m.prob += (E[mm] - S[mm - L] <= 0, row("rent_term", o, L, ph, mm))
                    m.prob += (E[M] - S[M - 1] == 0, row("rent_close", o, L, ph))
            for months in self._piece_classes(oid):
                held = self.rented(oid, months, signed=False)  # max_nodes bounds the new contracts
                if oid in m.u:  # no contract without paying the offer's fixed charge
                    m.prob += (held - offer.max_nodes * m.u[oid] <= 0, row("rent_avail", o, _months_name(months)))
                else:
                    m.prob += (held <= offer.max_nodes, row("rent_avail", o, _months_name(months)))

    def _piece_classes(self, oid: str) -> list[tuple[int, ...]]:
        """Every class of pieces of the horizon (the lattice month of each phase of the offer, lattice.pieces)."""
        phases = self.phases[oid]
        return list(
            dict.fromkeys(
                k
                for _a, _b, k in lattice.pieces(self.project.calendar, phases, 0.0, costs.horizon_end_day(self.project))
            )
        )
