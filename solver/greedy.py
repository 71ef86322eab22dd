"""The analyst's baseline: what a careful person builds in a spreadsheet, without an optimizer.

Workloads in order of deadline; each takes the shape with the lowest stand-alone cost (its own
purchase, its own rental contract, or its cloud bill) that meets its deadline from the earliest start
that still respects every offer's max_nodes. Nothing is shared: servers bought for one job are not
reused by the next. The plan is costed by the cost model and verified like any other; the benchmark
prints it next to the optimum, and the MILP can start from it (a warm start).
"""

from __future__ import annotations

from collections import defaultdict

from procure.models.offer import Offer
from procure.models.project import Project

from . import costs, lattice
from .options import Grid, Option, standalone_contracts
from .plan import Decision, Plan, build_plan


def greedy_choices(
    project: Project, offers: dict[str, Offer], options: dict[str, list[Option]]
) -> list[tuple[Option, int]] | None:
    """(option, start period) per workload, or None when the greedy rule strands a workload."""
    grid = Grid.of(project)
    usage: dict[tuple[str, int], int] = defaultdict(int)  # cloud: nodes in use per period
    rented: dict[str, list[tuple[float, float, int]]] = defaultdict(list)  # contracted: (from day, to day, nodes)
    bought: dict[str, int] = defaultdict(int)
    chosen: list[tuple[Option, int]] = []
    for w in sorted(project.workloads, key=lambda w: (project.deadline_days_for(w), w.name)):
        pick = None
        for opt in sorted(options.get(w.name, []), key=lambda o: (o.standalone_cost, o.wall_days)):
            o = opt.offer
            for s in opt.starts:
                if o.mode == "buy":
                    ok = bought[o.id] + costs.nodes_bought(o, opt.nodes) <= o.max_nodes
                elif o.contracted:
                    cs = standalone_contracts(project, grid, o, opt.nodes, opt.hours, grid.day_of_period(s))
                    ok = bool(cs) and all(
                        lattice.peak_overlap(rented[o.id], c.start_day, c.end_day) + opt.nodes <= o.max_nodes
                        for c in cs
                    )
                else:
                    ok = all(usage[(o.id, t)] + opt.nodes <= o.max_nodes for t in grid.busy_periods(s, opt.wall_days))
                if ok:
                    pick = (opt, s)
                    break
            if pick:
                break
        if pick is None:
            return None
        opt, s = pick
        o = opt.offer
        if o.mode == "buy":
            bought[o.id] += costs.nodes_bought(o, opt.nodes)
        elif o.contracted:
            for c in standalone_contracts(project, grid, o, opt.nodes, opt.hours, grid.day_of_period(s)):
                rented[o.id].append((c.start_day, c.end_day, c.nodes))
        else:
            for t in grid.busy_periods(s, opt.wall_days):
                usage[(o.id, t)] += opt.nodes
        chosen.append(pick)
    return chosen


def greedy_plan(project: Project, offers: dict[str, Offer], options: dict[str, list[Option]]) -> Plan | None:
    choices = greedy_choices(project, offers, options)
    if choices is None:
        return None
    grid = Grid.of(project)
    decisions: list[Decision] = []
    purchases: defaultdict[str, int] = defaultdict(int)
    contracts: list = []
    for opt, s in choices:
        c = opt.candidate
        decisions.append(
            Decision(
                opt.workload,
                opt.offer_id,
                opt.nodes,
                opt.gpus,
                opt.hours,
                grid.day_of_period(s),
                c.strategy if c else None,
                c.efficiency if c else None,
                c.per_gpu_memory_gb if c else None,
                c.mfu if c else None,
            )
        )
        if opt.mode == "buy":
            purchases[opt.offer_id] += costs.nodes_bought(opt.offer, opt.nodes)
        elif opt.offer.contracted:
            contracts += standalone_contracts(project, grid, opt.offer, opt.nodes, opt.hours, grid.day_of_period(s))
    return build_plan(project, offers, decisions, dict(purchases), contracts)
