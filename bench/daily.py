"""The daily-grid programme: 2 pretraining runs and 36 monthly fine-tunes over 3 years, bundled catalog.

A programme a finance team would write down with ``period_days: 1`` (a day is the natural unit of a
schedule): pretrain a 33B model on 1.5 T tokens in the first eight months and a 7B model on 1 T tokens
in the second year, and fine-tune one model every month, cycling 7B–72B models through full, LoRA and
QLoRA fine-tuning, each within its month (the first within two, so that bought servers can arrive). ``period_days`` may be set to 7 for the weekly variant.
"""

from __future__ import annotations

import datetime as dt

from procure.models.calendar import calendar
from procure.models.offer import Offer
from procure.models.project import Project
from procure.offers.catalog import load_catalog

MONTHS = 36
FINE_TUNES = [  # (preset, method, tokens_b): 7B–72B, full / LoRA / QLoRA
    ("qwen2.5-7b", "full", 20),
    ("llama-3.1-8b", "lora", 10),
    ("llama-2-13b", "full", 10),
    ("deepseek-coder-33b", "qlora", 5),
    ("deepseek-llm-67b", "lora", 5),
    ("qwen2.5-72b", "qlora", 3),
    ("llama-3.1-70b", "full", 2),
    ("deepseek-llm-7b", "qlora", 5),
    ("qwen2.5-72b", "lora", 4),
]


def programme_dict(period_days: int = 1) -> dict:
    """The programme as a workload.yaml mapping (the bundled catalog is used when it names no offers)."""
    workloads = [
        dict(
            name="pretrain-33b",
            model="deepseek-coder-33b",
            method="pretrain",
            tokens_b=1500,
            seq_len=4096,
            earliest_start_days=0,
            deadline_days=240,
            dataset_tb=6,
            checkpoint_every_hours=4,
            checkpoints_kept=3,
        ),
        dict(
            name="pretrain-7b",
            model="deepseek-llm-7b",
            method="pretrain",
            tokens_b=1000,
            seq_len=4096,
            earliest_start_days=365,
            deadline_days=545,
            dataset_tb=4,
            checkpoint_every_hours=4,
            checkpoints_kept=3,
        ),
    ]
    cal = calendar(dt.date(2027, 1, 4))  # the start date below
    horizon_days = cal.end_day(MONTHS)
    for k in range(MONTHS):
        preset, method, tokens = FINE_TUNES[k % len(FINE_TUNES)]
        earliest = max(0, cal.first_day(k))
        # each within its month; the first may take two, while purchased servers are delivered
        window = 60 if k == 0 else 30
        workloads.append(
            dict(
                name=f"finetune-{k + 1:02d}-{preset}-{method}",
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
    return dict(
        name=f"daily programme ({period_days}-day grid)",
        start_date=dt.date(2027, 1, 4),
        horizon_months=MONTHS,
        period_days=period_days,
        electricity_price_per_kwh=0.11,
        pue=1.25,
        team_region="us-east",
        workloads=workloads,
    )


def programme(period_days: int = 1) -> tuple[Project, list[Offer]]:
    return Project.model_validate(programme_dict(period_days)), list(load_catalog().offers)


def write_yaml(path, period_days: int = 1) -> None:
    """The programme as a workload file, to run ``procure solve`` on it."""
    from ruamel.yaml import YAML

    with open(path, "w", encoding="utf-8") as fh:
        YAML().dump(programme_dict(period_days), fh)


if __name__ == "__main__":
    import sys

    write_yaml(
        sys.argv[1] if len(sys.argv) > 1 else "daily-programme.yaml", int(sys.argv[2]) if len(sys.argv) > 2 else 1
    )


def symmetric_qlora(n_jobs: int = 20, copies: int = 7) -> tuple[Project, list[Offer]]:
    """20 small QLoRA jobs over a year, ``copies`` identical 8×H100 purchase offers (one quote per
    reseller, same server and price) and one cloud offer: a buy-only comparison that is all symmetry."""
    cat = {o.id: o for o in load_catalog().offers}
    server = cat["buy-hgx-h100-8gpu-us-east"]
    offers = [
        server.model_copy(update={"id": f"{server.id}-{k + 1}", "vendor": f"reseller {k + 1}"}) for k in range(copies)
    ]
    offers.append(cat["aws-p5-48xlarge-us-east-1"])
    workloads = []
    for k in range(n_jobs):
        earliest = 70 + k * 12  # after the servers' 60-day delivery
        workloads.append(
            dict(
                name=f"qlora-{k + 1:02d}",
                model="deepseek-llm-7b" if k % 2 else "llama-3.1-8b",
                method="qlora",
                tokens_b=2 + (k % 5),
                seq_len=4096,
                earliest_start_days=earliest,
                deadline_days=earliest + 20,
                dataset_tb=0.1,
                checkpoints_kept=2,
            )
        )
    project = Project.model_validate(
        dict(
            name="symmetric QLoRA",
            start_date=dt.date(2027, 1, 4),
            horizon_months=12,
            period_days=1,
            electricity_price_per_kwh=0.11,
            pue=1.25,
            team_region="us-east",
            workloads=workloads,
        )
    )
    return project, offers
