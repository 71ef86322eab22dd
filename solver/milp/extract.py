"""The plan in a solved model: its decisions, purchases and contracts read from the variables' values
(costed and verified by the planner, never trusted as they are)."""

from __future__ import annotations

import dataclasses

from procure.models.offer import Offer
from procure.models.project import Project

from .. import costs, holdings
from ..costs import RentalContract
from ..options import Grid, Option
from ..plan import Decision, contracts_from_profile
from .state import Model


def extract(model: Model, project: Project, offers: dict[str, Offer]):
    """Decisions, purchases and rental contracts from the solved model, by key."""
    grid = Grid.of(project)
    decisions = []
    for (w, i, s), v in model.x.items():
        if (v.value() or 0) > 0.5:
            decisions.append(_decision(model.options[w][i], grid.day_of_period(s)))
    for (w, i), v in model.y.items():
        if (v.value() or 0) > 0.5:
            decisions.append(_decision(model.options[w][i], grid.day_of_period(model.y_start[(w, i)])))
    purchases = {oid: int(round(v.value() or 0)) for oid, v in model.b.items() if round(v.value() or 0) > 0}
    contracts = []
    M = grid.n_months
    for oid, L, ph in sorted({(o, L, ph) for o, L, ph, _m in model.S}):
        S = [int(round(model.S[(oid, L, ph, mm)].value() or 0)) for mm in range(M)]
        E = [int(round(model.E[(oid, L, ph, mm)].value() or 0)) for mm in range(M + 1)]
        starts = [S[0]] + [S[mm] - S[mm - 1] for mm in range(1, M)] + [0]
        ends = [E[0]] + [E[mm] - E[mm - 1] for mm in range(1, M + 1)]
        term = next(t for t in costs.contract_terms(offers[oid]) if t.months == L)
        signed = costs.signed_term_months(offers[oid], term)
        phase = model.phases[oid][ph]
        made = contracts_from_profile(oid, starts, ends, phase, project.calendar)
        contracts += [dataclasses.replace(c, term_months=signed) for c in made]
    for (oid, L, ph, start), v in sorted(model.T.items()):
        n = int(round(v.value() or 0))
        if n > 0:
            signed = model.T_signed.get((oid, L, ph, start), L)  # an open-ended tier's column: the tier signed at
            contracts.append(RentalContract(oid, n, start, L, signed, model.phases[oid][ph], cal=project.calendar))
    contracts += [c for c in holdings.committed_contracts(project) if c.offer_id in offers]
    return decisions, purchases, contracts


def _decision(opt: Option, start_day: float) -> Decision:
    c = opt.candidate
    return Decision(
        workload=opt.workload,
        offer_id=opt.offer_id,
        nodes=opt.nodes,
        gpus=opt.gpus,
        hours=opt.hours,
        start_day=start_day,
        strategy=c.strategy if c else None,
        efficiency=c.efficiency if c else None,
        per_gpu_memory_gb=c.per_gpu_memory_gb if c else None,
        mfu=c.mfu if c else None,
    )
