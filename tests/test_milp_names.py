"""Row names of the MILP: one grammar with slugged ids, unique even where PuLP's name mangling
(``-+[] `` and, for variables, ``->/``, all become ``_``) would make two ids look alike."""

from __future__ import annotations

import re

import pytest

from procure.solver.milp import Builder, Names, slug
from procure.solver.options import build_options

from helpers import fixed_sizings, offer, project

PULP_MANGLED = set("-+[] ->/")
# workload names that differ only in characters PuLP turns into "_"
WORKLOADS = ["job a", "job-a", "job/a", "job[a]", "job+a", "job>a", "job_a"]
# offer ids may hold '-', '_' and '.': "gpu-a" and "gpu_a" mangle alike
OFFERS = [("buy", "gpu-a"), ("buy", "gpu_a"), ("rent", "r-1"), ("rent", "r_1"), ("cloud", "c-1"), ("cloud", "c_1")]


def test_slugs_are_unique_and_free_of_mangled_characters():
    names = Names(["gpu-a", "gpu_a", "gpu.a"], WORKLOADS)
    for table in (names.offer, names.workload):
        assert len(set(table.values())) == len(table)
        for s in table.values():
            assert not PULP_MANGLED & set(s)
    # sorted order decides who keeps the plain slug: '-' (0x2d) < '.' < '_' (0x5f)
    assert names.offer == {"gpu-a": "gpu_a", "gpu.a": "gpu.a", "gpu_a": "gpu_a~2"}
    # sorted: "job a" < "job+a" < "job-a" < "job/a" < "job>a" < "job[a]" < "job_a"; "job[a]" slugs to "job_a_"
    assert names.workload == {
        "job a": "job_a",
        "job+a": "job_a~2",
        "job-a": "job_a~3",
        "job/a": "job_a~4",
        "job>a": "job_a~5",
        "job[a]": "job_a_",
        "job_a": "job_a~6",
    }
    assert slug("H100 [spot]/x") == "H100__spot__x"


def _model():
    p = project(
        [dict(name=w, model="llama-2-7b", method="full", tokens_b=1, deadline_days=60) for w in WORKLOADS],
        electricity_price_per_kwh=0,
        budget=10_000_000,
    )
    offers = [offer(mode=m, id=i, max_nodes=2) for m, i in OFFERS]
    hours = {(w, i, 1): 200.0 for w in WORKLOADS for _m, i in OFFERS}
    sizings, _resize = fixed_sizings(p, offers, hours)
    by_id = {o.id: o for o in offers}
    options, _rej, _every = build_options(p, by_id, sizings, ("buy", "rent", "cloud"))
    return Builder(p, options, by_id).build()


def _coef(row, var):
    return {v.name: c for v, c in row.items()}.get(var.name)


def test_rows_of_lookalike_ids_stay_apart_and_read_without_index_maps(tmp_path):
    model = _model()  # PuLP raises "overlapping constraint names" if two rows got one name
    rows = model.prob.constraints
    families = {
        "assign",
        "buy_cap",
        "rent_cap",
        "cloud_cap",
        "buy_job",
        "rent_job",
        "rent_whole",
        "rent_order_S",
        "rent_order_E",
        "rent_term",
        "rent_close",
        "rent_avail",
        "buy_sym",
        "budget",
    }
    for name in rows:
        assert re.fullmatch(r"[A-Za-z0-9_.,~]+", name), name
        assert any(name == f or name.startswith(f + "_") for f in families), name
    # one assign row per workload, each named by its own slug: job_a, job_a~2, ..., job_a~6, job_a_
    assigns = sorted(n for n in rows if n.startswith("assign_"))
    assert assigns == sorted(["assign_job_a_", "assign_job_a__"] + [f"assign_job_a~{k}_" for k in range(2, 7)])
    # "gpu-a" sorts before "gpu_a": its capacity row in period 0 is buy_cap[gpu_a,0] and bounds b[gpu-a]
    cap = rows["buy_cap_gpu_a,0_"]
    assert _coef(cap, model.b["gpu-a"]) == -1 and _coef(cap, model.b["gpu_a"]) is None
    cap2 = rows["buy_cap_gpu_a~2,0_"]
    assert _coef(cap2, model.b["gpu_a"]) == -1 and _coef(cap2, model.b["gpu-a"]) is None
    # the rental rows of "r-1" (slug r_1) and "r_1" (slug r_1~2) stay apart too
    assert _coef(rows["rent_close_r_1,1,0_"], model.E[("r-1", 1, 0, 12)]) == 1
    assert _coef(rows["rent_close_r_1~2,1,0_"], model.E[("r_1", 1, 0, 12)]) == 1
    # an LP file names the same rows
    lp = tmp_path / "model.lp"
    model.prob.writeLP(str(lp))
    text = lp.read_text()
    for name in ("assign_job_a~6_", "buy_cap_gpu_a~2,0_", "rent_close_r_1~2,1,0_", "budget"):
        assert f"{name}:" in text


def test_rental_coefficients_on_cumulative_counts_by_hand():
    # p = 100 per node-month, f = 50 setup per node, M = 3 months.
    # Undiscounted: S[m]·100 − E[m]·100, and the setup 50 once on S[2] (every contract started pays it).
    p = project([dict(name="a", model="llama-2-7b", method="full", tokens_b=1, deadline_days=60)], horizon_months=3)
    r = offer(mode="rent", id="r", price_per_node_month=100, setup_fee_per_node=50)
    from procure.solver import costs

    term = costs.contract_terms(r)[0]

    def profile(proj, measure):
        return [tuple(measure(f, proj) for f in costs.open_contract_unit_flows(r, proj, term, m)) for m in range(3)]

    assert profile(p, lambda f, _p: costs.total(f)) == [(100, -100), (100, -100), (150, -100)]
    # discounted at 12%/year: monthly rate (1.12)^(1/12) − 1, df[m] = 1/(1 + r_m)^(m+1)
    q = p.model_copy(update={"discount_rate": 0.12})
    rm = 1.12 ** (1 / 12) - 1
    df = [1 / (1 + rm) ** (m + 1) for m in range(3)] + [0.0]
    want = [(100 * df[m] + 50 * (df[m] - df[m + 1]), -100 * df[m]) for m in range(3)]
    got = profile(q, costs.present_value)
    assert [a for a, _ in got] == [pytest.approx(a) for a, _ in want]
    assert [b for _, b in got] == [pytest.approx(b) for _, b in want]


def test_identical_buy_offers_are_ordered_only_when_their_options_match_too():
    p = project([dict(name=w, model="llama-2-7b", method="full", tokens_b=1, deadline_days=60) for w in ("a", "b")])
    twins = [offer(mode="buy", id=i, vendor=f"reseller {i}", max_nodes=2) for i in ("s1", "s2", "s3")]
    by_id = {o.id: o for o in twins}

    def rows(hours):
        sizings, _ = fixed_sizings(p, twins, hours)
        options, _r, _e = build_options(p, by_id, sizings, ("buy",))
        return sorted(n for n in Builder(p, options, by_id).build().prob.constraints if n.startswith("buy_sym"))

    same = {(w, i, 1): 100.0 for w in ("a", "b") for i in ("s1", "s2", "s3")}
    assert rows(same) == ["buy_sym_s2_", "buy_sym_s3_"]  # b[s2] ≤ b[s1], b[s3] ≤ b[s2]
    # "b" can run on s1 and s2 only: s3 is no longer interchangeable with them
    held = {k: v for k, v in same.items() if k != ("b", "s3", 1)}
    assert rows(held) == ["buy_sym_s2_"]
