"""Guidance for the usual mistakes: a file passed in the wrong place, a misspelled field, the hours of a
rejected shape, and GPU memory stated in one unit."""

from __future__ import annotations

import json

import openpyxl
import pytest

from helpers import GOOD_ROW, ROOT, cli, write_csv

EXAMPLES = ROOT / "examples"
WORKLOAD = EXAMPLES / "negotiated-quotes.yaml"
CATALOG = EXAMPLES / "negotiated-quotes-offers.yaml"


def _problems(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("✗")]


@pytest.mark.parametrize("command", ["size", "solve"])
def test_an_offer_catalog_passed_as_the_workload_is_named(command):
    res = cli(command, str(CATALOG))
    assert res.exit_code == 1, res.output
    # one message, not one schema error per offer
    assert _problems(res.output) == [
        f"✗ {CATALOG}: error: this is an offer catalog (a list of offers), not a workload file; pass "
        "it with --offers, and the workload (a YAML file with `workloads:`) as the first argument"
    ]


def test_a_csv_catalog_passed_as_the_workload_is_named(tmp_path):
    path = write_csv(tmp_path / "quotes.csv", [GOOD_ROW])
    res = cli("size", str(path))
    assert res.exit_code == 1
    assert len(_problems(res.output)) == 1
    assert "a .csv table is an offer catalog" in res.output and "pass it with --offers" in res.output


def test_a_workload_passed_as_offers_is_named():
    res = cli("size", str(EXAMPLES / "qlora-7b-week.yaml"), "--offers", str(WORKLOAD))
    assert res.exit_code == 1
    assert _problems(res.output) == [
        f"✗ {WORKLOAD}: error: this is a workload file (it has `workloads:`), not an offer catalog; "
        "pass it as the command's first argument, and its catalog with --offers"
    ]


MISSPELT = """\
name: p
start_date: 2027-01-01
horizon_month: 12
sizing: {min_eficiency: 0.5}
workloads:
  - name: a
    model: llama-2-7b
    method: full
    tokens_b: 1
    deadline_days: 30
    checkpoint_every_hour: 4
"""


def test_a_misspelled_workload_or_project_field_gets_a_did_you_mean(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text(MISSPELT)
    res = cli("size", str(path))
    assert res.exit_code == 1
    assert f"✗ {path}:3: error: horizon_month: unknown field (did you mean 'horizon_months'?)" in res.output
    assert f"✗ {path}:4: error: sizing.min_eficiency: unknown field (did you mean 'min_efficiency'?)" in res.output
    assert (
        f"✗ {path}:11: error: workloads[0].checkpoint_every_hour: unknown field "
        "(did you mean 'checkpoint_every_hours'?)"
    ) in res.output
    # nothing close: the old advice
    path.write_text(MISSPELT.replace("horizon_month: 12", "zzz: 12"))
    res = cli("size", str(path))
    assert "zzz: unknown field (not allowed here; check the spelling against the documented fields)" in res.output


def test_a_misspelled_offer_field_gets_a_did_you_mean_in_yaml(tmp_path):
    row = {k: v for k, v in GOOD_ROW.items() if k != "lead_time_days"} | {"lead_time_day": 7}
    path = tmp_path / "quotes.yaml"
    lines = [f"  {'-' if i == 0 else ' '} {k}: {json.dumps(v)}\n" for i, (k, v) in enumerate(row.items())]
    path.write_text("offers:\n" + "".join(lines))
    line = 2 + list(row).index("lead_time_day")  # "offers:" is line 1, the row's first field line 2
    res = cli("offers", "validate", str(path))
    assert res.exit_code == 1
    assert f"✗ {path}:{line}: error: lead_time_day: unknown field (did you mean 'lead_time_days'?)" in res.output


def test_a_misspelled_column_is_named_once_at_the_header(tmp_path):
    rows = [{("pricee_per_node_month" if k == "price_per_node_month" else k): v for k, v in GOOD_ROW.items()}] * 3
    rows = [dict(r, id=f"v{i}") for i, r in enumerate(rows)]
    csv_path = write_csv(tmp_path / "quotes.csv", rows)
    res = cli("offers", "validate", str(csv_path))
    assert res.exit_code == 1
    assert _problems(res.output) == [
        f"✗ {csv_path} row 1: error: pricee_per_node_month: unknown column (did you mean "
        "'price_per_node_month'?); the columns are listed by `procure offers template`"
    ]
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(list(rows[0]))
    for r in rows:
        ws.append(list(r.values()))
    xlsx = tmp_path / "quotes.xlsx"
    wb.save(xlsx)
    res = cli("offers", "validate", str(xlsx))
    assert res.exit_code == 1
    assert _problems(res.output) == [
        f"✗ {xlsx} row 1: error: pricee_per_node_month: unknown column (did you mean "
        "'price_per_node_month'?); the columns are listed by `procure offers template`"
    ]


SMALL_LAB = """\
name: small lab
start_date: 2027-01-01
horizon_months: 12
workloads:
  - name: adapter-7b
    model: deepseek-llm-7b
    method: lora
    tokens_b: 1
    deadline_days: 300
  - name: legal-67b-full
    model: deepseek-llm-67b
    method: full
    tokens_b: 1
    deadline_days: 300
"""

# 8 × RTX 4090 per box, 25 Gb/s Ethernet between boxes: a multi-node shape is refused (fabric < 100 Gb/s)
RTX = dict(
    GOOD_ROW,
    id="rtx-4090-box",
    gpu="RTX-4090-24GB",
    gpus_per_node=8,
    intra_node="pcie",
    inter_node="eth-25g",
    inter_node_rails=1,
    ram_gb=256,
    nvme_tb=4,
    cpu_cores=64,
    max_nodes=4,
)


def test_size_prints_a_dash_for_the_hours_of_a_rejected_shape(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text(SMALL_LAB)
    quotes = write_csv(tmp_path / "quotes.csv", [RTX])
    res = cli("size", str(path), "--offers", str(quotes), "--json", "-")
    assert res.exit_code == 0, res.output
    shapes = json.loads(res.stdout)["workloads"][0]["candidates"]
    rejected = {c["nodes"] for c in shapes if not c["fits"] and c["hours"] is not None}
    assert 2 in rejected  # the engine still estimated the refused 2-box shape's hours
    res = cli("size", str(path), "--offers", str(quotes))
    assert res.exit_code == 0
    # the first line of each row (a narrow console folds long cells onto more lines: the offer id too)
    cells = [[x.strip() for x in line.split("│")[1:-1]] for line in res.output.splitlines() if line.startswith("│")]
    cells = [row for row in cells if row[0].startswith("RTX-4090")]
    # columns: GPU, GPUs, nodes, offer, strategy, GB/GPU, host RAM GB/node, hours, P10–P90 h, GPU-hours, eff.,
    # MFU in step, tok/s/GPU, goodput, fits / reason (the last)
    by_nodes = {(row[2], row[-1] == "fits"): row for row in cells}
    assert by_nodes[("1", True)][7] not in ("", "—")  # a fitting shape shows its hours
    refused = [row for (nodes, fits), row in by_nodes.items() if not fits]
    assert refused and all(row[7] == "—" and row[8] == "—" and row[9] == "—" for row in refused)


def test_gpu_memory_is_stated_in_gb_with_the_gib_conversion_written_out(tmp_path):
    # an RTX 4090's datasheet "24 GB" is 24 GiB = 24 × 2^30 bytes = 25,769,803,776 bytes = 25.77 GB;
    # usable: × 0.995 × (1 − 0.04 FIT_MARGIN) = 24.62 GB → "24.6 GB usable ..., less a 4 % safety margin".
    # The 67B full fine-tune is pinned without ZeRO-Offload: offloaded, it fits the GPUs and is refused for host
    # RAM instead (tests/test_partial.py), and this test is about the GPU-memory reason.
    path = tmp_path / "w.yaml"
    path.write_text(SMALL_LAB + "    layout: {offload: false}\n")
    quotes = write_csv(tmp_path / "quotes.csv", [RTX])
    res = cli("size", str(path), "--offers", str(quotes), "--json", "-")
    legal = json.loads(res.stdout)["workloads"][1]  # legal-67b-full
    reasons = [c["reason"] for c in legal["candidates"] if not c["fits"]]
    memory = [r for r in reasons if "per GPU even with" in r]
    usable = "RTX-4090-24GB has 24.6 GB usable (datasheet 24 GiB = 25.77 GB, less a 4 % safety margin)"
    assert len(memory) == len(legal["candidates"]) and all(usable in r for r in memory)
    assert not any("GB datasheet" in r for r in reasons)


def test_the_did_you_mean_is_bounded(tmp_path):
    # 300 misspellings: difflib runs for the first MAX_HINTS (200) only, the rest get the plain message —
    # a file of 70,000 unknown keys must not cost 70,000 difflib searches
    from procure.models.validation import MAX_HINTS

    keys = "".join(f"horizon_month{i:03d}: 1\n" for i in range(300))
    path = tmp_path / "w.yaml"
    path.write_text(MISSPELT + keys)
    res = cli("size", str(path), "--all-errors")
    assert res.exit_code == 1
    lines = res.output.splitlines()
    hinted = [line for line in lines if "unknown field (did you mean" in line]
    plain = [line for line in lines if "unknown field (not allowed here" in line]
    # 303 unknown fields: the 300 keys plus the three misspellings of MISPELT
    assert MAX_HINTS == 200 and len(hinted) == 200 and len(plain) == 303 - 200
