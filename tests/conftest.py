"""Shared test helpers: small valid inputs built through the real models."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from procure.models.offer import Offer
from procure.models.project import Project

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.yaml") if not p.stem.endswith("-offers"))  # workloads, not their quote files


def offer(**kw) -> Offer:
    """A valid offer of ``mode`` with plausible defaults; keyword arguments override."""
    mode = kw.get("mode", "cloud")
    base = dict(
        id=f"test-{mode}", vendor="Test Vendor", mode=mode, region="us-east", gpu="H100-SXM-80GB", gpus_per_node=8,
        intra_node="nvswitch", inter_node="ib-ndr", inter_node_rails=8, ram_gb=2048, nvme_tb=30, cpu_cores=112,
        max_nodes=8, lead_time_days=0, source="test fixture", quoted_on="2026-11-01",
    )
    if mode == "buy":
        base.update(price_per_node=250_000, power_kw_per_node=10.2, residual_value_pct=0.3, maintenance_pct_per_year=0.05, colocation_per_node_month=1300)
    elif mode == "rent":
        base.update(price_per_node_month=14_000, setup_fee_per_node=0, min_term_months=1)
    else:
        base.update(price_per_node_hour=30.0)
    base.update(kw)
    return Offer.model_validate(base)


def project(workloads: list[dict], **kw) -> Project:
    base = dict(name="test project", start_date=dt.date(2027, 1, 1), horizon_months=12, period_days=7, workloads=workloads)
    base.update(kw)
    return Project.model_validate(base)


def workload(**kw) -> dict:
    base = dict(name="job", model="llama-2-7b", method="full", tokens_b=1.0, deadline_days=60)
    base.update(kw)
    return base


@pytest.fixture
def tmp_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path
