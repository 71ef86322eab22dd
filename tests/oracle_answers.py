"""The brute-force oracle's answers on the seeded random instances, stored so the quick lane need not recompute them.

The oracle (``helpers.brute_force_tco``) enumerates every shape and start of every job and prices contracts by a
dynamic program over their begin days: seconds per seed, minutes over the 200 seeds, while the MILP it checks takes
hundredths. Its answer depends on the seed alone, so it is computed once, by this script, into
``tests/data/brute_force.json``:

    python tests/oracle_answers.py [--jobs N]

Each case stores the oracle's least TCO (null: no feasible plan) and a fingerprint of the instance (project, offers
and hours as JSON), so an answer can only be read for the instance it was computed on. The file also holds the
SHA-256 of the oracle's source (``oracle_sha256``). The quick lane compares the MILP with the stored answer; a
``slow`` test recomputes every tenth case with the oracle and checks that the source hash is the oracle's as it is
now, so the oracle stays independent and a change to it that is not regenerated fails.

Regenerate after changing the oracle, ``random_instance`` or a cost rule the oracle reads from ``costs``, and say
in the commit why the answers moved (``git diff tests/data/brute_force.json``).
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import math
import random
import sys
from functools import cache
from pathlib import Path

import helpers
from helpers import brute_force_tco, offer, project

FILE = Path(__file__).resolve().parent / "data" / "brute_force.json"

#: (seed, tiers) of every case the planner's brute-force tests check: 120 plain seeds, 80 with term tiers and
#: reserved cloud (seeds 1000–1079)
CASES = [(s, False) for s in range(120)] + [(1000 + s, True) for s in range(80)]


def case_id(seed: int, tiers: bool) -> str:
    return f"{seed}{'-tiers' if tiers else ''}"


def _wl(name, deadline, earliest=0):
    return dict(
        name=name, model="llama-2-7b", method="full", tokens_b=1, deadline_days=deadline, earliest_start_days=earliest
    )


def random_instance(seed: int, tiers: bool = False):
    """A random instance; with ``tiers`` every rent offer quotes term tiers and some cloud offers are reserved terms."""
    rng = random.Random(seed)
    n_w = 2 if seed % 5 else 3
    n_o = rng.randint(3, 6) if n_w == 2 else rng.randint(3, 4)
    p_kw = dict(horizon_months=4, period_days=14, electricity_price_per_kwh=rng.choice([0.0, 0.1]), pue=1.2)
    workloads = []
    for k in range(n_w):
        e = rng.choice([0, 14, 28])
        workloads.append(_wl(f"w{k}", e + rng.choice([28, 42, 56]), e))
    offers = []
    for k in range(n_o):
        mode = rng.choice(["buy", "rent", "cloud"])
        kw = dict(mode=mode, id=f"o{k}", max_nodes=rng.choice([1, 2, 3]), lead_time_days=rng.choice([0, 0, 10]))
        if mode == "buy":
            kw.update(
                price_per_node=rng.randint(20, 80) * 1000,
                residual_value_pct=rng.choice([0, 0.4]),
                maintenance_pct_per_year=0.05,
                colocation_per_node_month=rng.choice([0, 500]),
            )
        elif mode == "rent":
            kw.update(
                price_per_node_month=rng.randint(5, 20) * 1000,
                setup_fee_per_node=rng.choice([0, 2000]),
                min_term_months=rng.choice([1, 1, 2]),
            )
            if tiers:
                p, first = kw["price_per_node_month"], kw["min_term_months"]
                kw.update(price_per_node_month=None, min_term_months=None)  # the tiers replace them
                longer = rng.choice([[2], [3], [2, 3], [2, 4]])
                kw["term_prices"] = [{"min_term_months": first, "price_per_node_month": p}] + [
                    {"min_term_months": L, "price_per_node_month": round(p * rng.choice([0.6, 0.75, 0.9]) ** (j + 1))}
                    for j, L in enumerate(x for x in longer if x > first)
                ]
        else:
            kw.update(price_per_node_hour=rng.randint(10, 40), spot=False, spot_overhead_pct=rng.choice([0, 0.2]))
            if tiers and rng.random() < 0.4:
                kw.update(
                    spot_overhead_pct=0,
                    commitment_months=rng.choice([1, 2, 3]),
                    price_per_node_hour=rng.randint(3, 15),
                    upfront_per_node=rng.choice([0, 500]),
                )
        offers.append(offer(**kw))
    hours = {}
    for w in workloads:
        for o in offers:
            if rng.random() < 0.8:
                base = rng.randint(5, 30) * 24
                for n in (1, 2):
                    if n <= o.max_nodes:
                        hours[(w["name"], o.id, n)] = base / (n * rng.choice([0.8, 0.95, 1.0])) if n > 1 else base
    return project(workloads, **p_kw), offers, hours


def fingerprint(p, offers, hours) -> str:
    """SHA-256 of the instance as JSON: the project, the offers and the fixed hours."""
    doc = {
        "project": p.model_dump(mode="json"),
        "offers": [o.model_dump(mode="json") for o in offers],
        "hours": sorted([w, o, n, h] for (w, o, n), h in hours.items()),
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def oracle_sha256() -> str:
    """SHA-256 of the oracle's source: the brute force and every quoted_* and contract_* pricing in helpers.py,
    and the instance generator."""
    names = sorted(
        n
        for n, f in vars(helpers).items()
        if inspect.isfunction(f)
        and f.__module__ == helpers.__name__
        and (n.startswith(("quoted_", "contract_")) or "brute_force" in n)
    )
    text = "".join(inspect.getsource(getattr(helpers, n)) for n in names) + inspect.getsource(random_instance)
    return hashlib.sha256(text.encode()).hexdigest()


def compute(case: tuple[int, bool]) -> dict:
    """The oracle's answer on one case, with the instance's fingerprint."""
    seed, tiers = case
    p, offers, hours = random_instance(seed, tiers=tiers)
    tco = brute_force_tco(p, offers, hours)
    return {"fingerprint": fingerprint(p, offers, hours), "tco": None if tco == math.inf else tco}


@cache
def load() -> dict:
    """The stored answers (read once per process)."""
    return json.loads(FILE.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Recompute the brute-force oracle's answers into " + FILE.name)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    args = ap.parse_args(argv)
    if args.jobs > 1:
        from multiprocessing import Pool

        with Pool(args.jobs) as pool:
            answers = pool.map(compute, CASES, chunksize=1)
    else:
        answers = [compute(c) for c in CASES]
    doc = {
        "about": "tests/oracle_answers.py: the brute-force oracle's least TCO per random instance (null: infeasible)",
        "oracle_sha256": oracle_sha256(),
        "answers": {case_id(*c): a for c, a in zip(CASES, answers, strict=True)},
    }
    FILE.parent.mkdir(exist_ok=True)
    FILE.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(answers)} answers to {FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
