"""Seeded random planning instances in the real schemas (workload.yaml projects and offer catalogs).

Offers are drawn from the bundled catalog's rows (real GPU/server shapes and prices) with the prices
perturbed ±25%, availability caps, lead times and rental terms varied; workloads mix DeepSeek / Llama /
Qwen presets and methods with deadlines spread over the horizon.
"""

from __future__ import annotations

import datetime as dt
import math
import random

from procure.models.calendar import calendar
from procure.models.offer import Offer
from procure.models.project import Project
from procure.offers.catalog import load_catalog

SIZES: dict[str, tuple[int, int, int]] = {  # workloads, offers, weekly periods
    "S": (3, 12, 26),
    "M": (10, 30, 52),
    "L": (20, 60, 52),
    "XL": (50, 200, 104),
}

JOBS = [  # preset, method, tokens_b range — from a quick QLoRA to a multi-month pretraining run
    ("deepseek-llm-7b", "qlora", (0.5, 3)),
    ("llama-3.1-8b", "lora", (2, 20)),
    ("qwen2.5-7b", "full", (20, 120)),
    ("llama-2-13b", "full", (20, 80)),
    ("deepseek-coder-33b", "lora", (10, 60)),
    ("deepseek-llm-67b", "full", (10, 40)),
    ("llama-3.1-70b", "qlora", (2, 10)),
    ("deepseek-llm-7b", "pretrain", (300, 1200)),
]


def generate(size: str, seed: int = 0) -> tuple[Project, list[Offer]]:
    n_w, n_o, n_periods = SIZES[size]
    rng = random.Random(f"{size}-{seed}")
    months = math.ceil(n_periods * 7 / (365 / 12))
    base = [o for o in load_catalog().offers if o.region.startswith("us")]
    offers = []
    for k in range(n_o):
        t = base[k % len(base)] if k < len(base) else rng.choice(base)
        f = rng.uniform(0.75, 1.25)
        upd: dict = {"id": f"{t.id}-{k:03d}", "vendor": f"{t.vendor} #{k}"}
        if t.mode == "buy":
            upd.update(
                price_per_node=round(t.price_per_node * f, 2),
                max_nodes=rng.choice([4, 8, 16]),
                lead_time_days=rng.choice([14, 30, 60]),
            )
        elif t.mode == "rent":
            upd.update(
                price_per_node_month=round(t.price_per_node_month * f, 2),
                max_nodes=rng.choice([2, 4, 8]),
                min_term_months=rng.choice([1, 1, 2, 3]),
                lead_time_days=rng.choice([3, 7, 14]),
            )
        else:
            upd.update(
                price_per_node_hour=round(t.price_per_node_hour * f, 4), max_nodes=rng.choice([t.max_nodes, 2, 4])
            )
        offers.append(t.model_copy(update=upd))
    horizon_days = calendar(dt.date(2027, 1, 4)).end_day(months)  # calendar months from the start below
    workloads = []
    for k in range(n_w):
        preset, method, (lo, hi) = JOBS[rng.randrange(len(JOBS))]
        tokens = round(rng.uniform(lo, hi), 2)
        earliest = rng.randrange(0, max(1, horizon_days - 90))
        window = rng.choice([30, 45, 60, 90, 120, 180])
        workloads.append(
            dict(
                name=f"job-{k:02d}-{preset}-{method}",
                model=preset,
                method=method,
                tokens_b=tokens,
                seq_len=4096,
                earliest_start_days=earliest,
                deadline_days=min(horizon_days, earliest + window),
                dataset_tb=0.1,
                checkpoints_kept=2,
            )
        )
    project = Project.model_validate(
        dict(
            name=f"bench-{size}-{seed}",
            start_date=dt.date(2027, 1, 4),
            horizon_months=months,
            period_days=7,
            electricity_price_per_kwh=0.12,
            pue=1.3,
            workloads=workloads,
        )
    )
    return project, offers
