"""Smoke test of the benchmark: the generator makes valid instances and the table runs (no timing asserted)."""

from __future__ import annotations

import json

KEYS = {"size", "variables", "constraints", "build_s", "solve_s", "status", "gap", "tco", "greedy_tco", "peak_rss_mb"}


def test_generator_is_seeded_and_valid():
    from bench.generate import SIZES, generate

    p1, o1 = generate("S", 3)
    p2, o2 = generate("S", 3)
    assert p1 == p2 and o1 == o2
    n_w, n_o, _ = SIZES["S"]
    assert len(p1.workloads) == n_w and len(o1) == n_o and len({o.id for o in o1}) == n_o


def test_benchmark_table_runs_and_the_optimum_is_no_worse_than_greedy(tmp_path, capsys):
    from bench import run

    out = tmp_path / "bench.json"
    assert run.main(["--sizes", "S", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert len(rows) == 1 and KEYS <= set(rows[0])
    row = rows[0]
    assert row["status"] == "optimal" and row["contracts"] == "gate"  # the option as given, not the plan's contracts
    assert row["tco"] <= row["greedy_tco"] + 0.01
    assert "size S" in capsys.readouterr().out


def test_the_model_build_benchmark_runs_and_writes_its_rows(tmp_path):
    from bench import build_cost

    out = tmp_path / "build.json"
    build_cost.main(["--cases", "S", "--repeat", "1", "--json", str(out)])
    rows = json.loads(out.read_text())
    assert [(r["case"], r["objective"], r["budget_cash"]) for r in rows] == [
        ("S", "tco", False),
        ("S", "npv", False),
        ("S", "tco", True),
    ]
    assert all(r["columns"] > 0 and r["build_cpu_s"] >= 0 and r["peak_mb"] > 0 for r in rows)
