"""`procure offers import` (gpuhunt CSV, SkyPilot vms.csv) and `procure offers fetch` (gpuhunt library).

The recorded files in tests/data/import are hand-written in the published formats (their README says
so); every expected price below is read off those files by eye, not produced by the importer.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import sys
import types

import pytest

from procure.offers.catalog import load_catalog
from procure.offers.importers import _skypilot_items, gpuinfo_memory_gb, import_file, resolve_gpu

from helpers import ROOT, cli

DATA = ROOT / "tests" / "data" / "import"
GPUHUNT = DATA / "gpuhunt" / "aws.csv"
SKY_AWS = DATA / "skypilot" / "aws" / "vms.csv"
SKY_GCP = DATA / "skypilot" / "gcp" / "vms.csv"
AS_OF = dt.date(2026, 11, 30)


def _by_id(result):
    return {o["id"]: o for o in result.offers}


def test_gpuhunt_rows_become_cloud_offers_at_their_node_hour_price():
    r = import_file(GPUHUNT, "gpuhunt", as_of=AS_OF)
    offers = _by_id(r)
    p5 = offers["aws-p5.48xlarge-us-east-1"]
    assert p5["price_per_node_hour"] == 55.04 and p5["gpus_per_node"] == 8
    assert p5["gpu"] == "H100-SXM-80GB" and p5["region"] == "us-east" and p5["vendor"] == "AWS"
    assert (p5["intra_node"], p5["inter_node"], p5["inter_node_rails"]) == ("nvswitch", "roce-400g", 8)
    assert p5["ram_gb"] == 2048 and p5["cpu_cores"] == 96  # 192 vCPUs = 96 cores
    assert p5["source"].startswith("gpuhunt aws.csv row 2:") and p5["quoted_on"] == "2026-11-30"
    assert "AWS EC2 P5" in p5["source"]  # the interconnect's own source
    spot = offers["aws-p5.48xlarge-us-east-2-spot"]
    assert spot["spot"] is True and spot["price_per_node_hour"] == 11.2543 and spot["spot_overhead_pct"] == 0.15
    assert offers["aws-p4d.24xlarge-us-east-1"]["gpu"] == "A100-SXM-40GB"
    assert offers["aws-g6e.48xlarge-us-west-2"]["nvme_tb"] == 7.6  # disk_size 7,600 GB
    # two CPU-only rows, one A10G row (no such GPU in the table): counted, not imported
    assert r.skipped["CPU-only rows skipped"] == 2 and r.unknown_gpus == {"A10G": 1}
    assert len(r.offers) == 6 and r.rows == 9


def test_unknown_instance_types_are_conservative_and_warned():
    r = import_file(GPUHUNT, "gpuhunt", as_of=AS_OF)
    odd = _by_id(r)["aws-p5x.hypothetical-us-west-2"]
    assert (odd["intra_node"], odd["inter_node"], odd["inter_node_rails"]) == ("pcie", "none", 1)
    text = " ".join(str(w) for w in r.warnings)
    assert "p5x.hypothetical" in text and "g6e.48xlarge" in text and "review" in text
    # 'H100' alone leaves SXM or PCIe open: the warning names both
    assert "'H100' was taken as H100-SXM-80GB" in text and "H100-PCIE-80GB" in text


def test_gpu_names_resolve_by_memory_and_warn_when_open():
    assert resolve_gpu("A100", 40.0) == (
        "A100-SXM-40GB",
        "GPU 'A100' was taken as A100-SXM-40GB (the table also has A100-PCIE-40GB)",
    )
    assert resolve_gpu("A100-80GB", 80.0) == ("A100-SXM-80GB", None)
    assert resolve_gpu("L40S", 48.0) == ("L40S-48GB", None)
    assert resolve_gpu("L4", 24.0) == (None, None)  # not L40S: a digit follows the name
    assert resolve_gpu("T4", 16.0) == (None, None)


def test_skypilot_aws_reads_gpuinfo_spot_per_zone_and_empty_spot_price():
    r = import_file(SKY_AWS, "skypilot", as_of=AS_OF)
    offers = _by_id(r)
    assert r.provider == "aws"
    assert offers["aws-p5.48xlarge-us-east-2"]["price_per_node_hour"] == 55.04
    assert offers["aws-p5.48xlarge-use2-az1-spot"]["price_per_node_hour"] == 11.2543
    assert offers["aws-p5.48xlarge-use2-az2-spot"]["price_per_node_hour"] == 12.0116
    assert offers["aws-p5.48xlarge-use2-az2-spot"]["region"] == "us-east"
    # the on-demand price repeats in the second zone's row: one offer
    assert r.skipped["rows repeating an instance, region and spot already imported skipped"] == 1
    p4de = offers["aws-p4de.24xlarge-us-east-1"]
    assert p4de["gpu"] == "A100-SXM-80GB" and not any(k.startswith("aws-p4de") and k.endswith("spot") for k in offers)
    assert offers["aws-g6e.xlarge-us-west-2"]["gpu"] == "L40S-48GB" and "aws-g6e.xlarge-usw2-az1-spot" in offers
    assert r.skipped["CPU-only rows skipped"] == 1
    assert offers["aws-p5.48xlarge-us-east-2"]["source"].startswith("skypilot aws/vms.csv row 3:")


def test_gpuinfo_literal_is_read_bounded():
    assert gpuinfo_memory_gb("{'Gpus': [{'Name': 'H100', 'Count': 8, 'MemoryInfo': {'SizeInMiB': 81920}}]}") == 80.0
    assert gpuinfo_memory_gb("H100") is None  # GCP writes the bare name
    with pytest.raises(ValueError, match="at most 2,000"):
        gpuinfo_memory_gb("{" + "'a': 1, " * 400 + "}")
    with pytest.raises(ValueError, match="not a Python literal"):
        gpuinfo_memory_gb("{'Gpus': __import__('os')}")


def test_skypilot_gcp_header_order_and_host_plus_gpu_rows(tmp_path):
    from procure.common.errors import ProblemLog
    from procure.offers.importers import Imported

    r = import_file(SKY_GCP, "skypilot", as_of=AS_OF)
    offers = _by_id(r)
    a3 = offers["gcp-a3-highgpu-8g-us-central1"]
    assert a3["price_per_node_hour"] == 88.49 and a3["gpu"] == "H100-SXM-80GB" and a3["inter_node_rails"] == 4
    assert offers["gcp-a2-ultragpu-8g-europe-west4-a-spot"]["price_per_node_hour"] == 16.18
    assert offers["gcp-a2-ultragpu-8g-europe-west4"]["region"] == "eu-west"
    # the V100 row is added to its n1-highmem-8 host: 0.473212 + 2.48 on demand, 0.099 + 0.992 spot
    items = _skypilot_items(SKY_GCP, ProblemLog(), Imported([], "gcp", AS_OF))
    v100 = {i.spot: i for i in items if i.gpu_name == "V100"}
    assert v100[False].price == pytest.approx(2.953212) and v100[True].price == pytest.approx(1.091)
    assert v100[False].host_row == 2 and v100[False].vcpus == 8
    assert r.unknown_gpus == {"V100": 2}  # V100 is not in the GPU table: counted, not imported


def test_quoted_on_from_the_folder_date(tmp_path):
    folder = tmp_path / "20260301"
    folder.mkdir()
    shutil.copy(GPUHUNT, folder / "aws.csv")
    r = import_file(folder / "aws.csv", "gpuhunt")
    assert r.quoted_on == dt.date(2026, 3, 1) and all(o["quoted_on"] == "2026-03-01" for o in r.offers)
    assert any("20260301" in str(w) for w in r.warnings)


def test_cli_import_then_solve_on_the_imported_offers(tmp_path):
    out = tmp_path / "offers.yaml"
    res = cli("offers", "import", GPUHUNT, "--from", "gpuhunt", "--out", out, "--as-of", "2026-11-30")
    assert res.exit_code == 0, res.output
    assert "imported 6 offers (1 spot)" in res.output and "2 CPU-only rows skipped" in res.output
    cat = load_catalog([out])
    assert {o.id for o in cat.offers} >= {"aws-p5.48xlarge-us-east-1", "aws-g6e.48xlarge-us-west-2"}
    assert all(o.quoted_on == AS_OF and "aws.csv row" in o.source for o in cat.offers)
    js = tmp_path / "plan.json"
    res = cli(
        "solve", ROOT / "examples" / "qlora-7b-week.yaml", "--offers", out, "--json", js, "--quiet", "--no-compare"
    )
    assert res.exit_code == 0, res.output
    plan = json.loads(js.read_text())
    prices = {o.id: o.price_per_node_hour for o in cat.offers}
    (item,) = [i for i in plan["line_items"] if i["category"] == "cloud"]
    assert item["offer"] in prices and item["unit_price"] == prices[item["offer"]]
    assert plan["total_cost"] == pytest.approx(item["quantity"] * item["unit_price"], abs=0.01)


def test_staleness_warning_uses_the_imported_date(tmp_path):
    out = tmp_path / "offers.yaml"
    assert cli("offers", "import", GPUHUNT, "--from", "gpuhunt", "--out", out, "--as-of", "2025-01-15").exit_code == 0
    js = tmp_path / "plan.json"
    res = cli(
        "solve", ROOT / "examples" / "qlora-7b-week.yaml", "--offers", out, "--json", js, "--quiet", "--no-compare"
    )
    assert res.exit_code == 0
    stale = json.loads(js.read_text())["stale_offers"]
    # 2025-01-15 to the start date 2026-12-01 is 685 days
    assert stale and stale[0]["quoted_on"] == "2025-01-15" and stale[0]["days_before_start"] == 685


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\np5.48xlarge,us-east-1,cheap,192,2048,8,H100,80,False\n",
            "row 2: error: price: 'cheap' is not a number",
        ),
        (
            "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\np5.48xlarge,us-east-1,1,192,2048,8,H100,80,maybe\n",
            "row 2: error: spot: 'maybe' is not True or False",
        ),
        (
            "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\np5.48xlarge,us-east-1,-3,192,2048,8,H100,80,False\n",
            "price: '-3' is not a number ≥ 0",
        ),
        ("instance_name,location,cpu\n", "has no 'price' column"),
        (
            "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\np5.48xlarge,us-east-1,1e400,192,2048,8,H100,80,False\n",
            "price: '1e400' is not a number",
        ),
        (
            "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\n"
            + "x" * 10_001
            + ",a,1,1,1,1,H100,80,False\n",
            "a cell of 10,001 characters",
        ),
        (
            "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\np5.48xlarge,us-east-1,2e12,192,2048,8,H100,80,False\n",
            "row 2: error: price_per_node_hour",
        ),
    ],
)
def test_bad_rows_exit_1_with_row_and_column_and_write_nothing(tmp_path, text, where):
    src = tmp_path / "aws.csv"
    src.write_text(text)
    out = tmp_path / "offers.yaml"
    res = cli("offers", "import", src, "--from", "gpuhunt", "--out", out, "--as-of", "2026-11-30")
    assert res.exit_code == 1 and where in res.output, res.output
    assert "nothing was written" in res.output and not out.exists()


def test_bad_options_and_names(tmp_path):
    out = tmp_path / "offers.yaml"
    res = cli("offers", "import", GPUHUNT, "--from", "csv", "--mode", "rent", "--out", out)
    assert res.exit_code == 1 and "--from" in res.output and "--mode" in res.output and not out.exists()
    res = cli("offers", "import", GPUHUNT, "--from", "gpuhunt", "--as-of", "30/11/2026", "--out", out)
    assert res.exit_code == 1 and "YYYY-MM-DD" in res.output
    odd = tmp_path / "prices.csv"
    shutil.copy(GPUHUNT, odd)
    res = cli("offers", "import", odd, "--from", "gpuhunt", "--out", out)
    assert res.exit_code == 1 and "--provider" in res.output
    assert cli("offers", "import", odd, "--from", "gpuhunt", "--provider", "aws", "--out", out).exit_code == 0
    res = cli("offers", "import", GPUHUNT, "--from", "gpuhunt", "--out", out)  # exists: --force needed
    assert res.exit_code == 1 and "--force" in res.output
    res = cli("offers", "import", GPUHUNT, "--from", "gpuhunt", "--out", tmp_path / "offers.json")
    assert res.exit_code == 1 and ".yaml, .yml or .csv" in res.output
    res = cli(
        "offers",
        "import",
        GPUHUNT,
        "--from",
        "gpuhunt",
        "--gpu",
        "H1OO",
        "--region",
        "mars",
        "--out",
        tmp_path / "f.yaml",
    )
    assert res.exit_code == 1 and "--gpu" in res.output and "--region" in res.output
    cpu_only = tmp_path / "aws.csv"
    cpu_only.write_text(
        "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\nm5.large,us-east-1,0.1,2,8,0,,,False\n"
    )
    res = cli(
        "offers", "import", cpu_only, "--from", "gpuhunt", "--out", tmp_path / "none.yaml", "--as-of", "2026-01-01"
    )
    assert res.exit_code == 1 and "1 CPU-only rows skipped" in res.output and not (tmp_path / "none.yaml").exists()


# --- fetch -------------------------------------------------------------------------------------------


def test_fetch_without_gpuhunt_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "gpuhunt", None)  # import gpuhunt raises ImportError
    out = tmp_path / "offers.yaml"
    res = cli("offers", "fetch", "--provider", "aws", "--out", out)
    assert res.exit_code == 1 and "pip install 'procure[live]'" in res.output and not out.exists()


def _fake_gpuhunt(monkeypatch, query):
    mod = types.ModuleType("gpuhunt")
    mod.query = query  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gpuhunt", mod)


def test_fetch_offline_is_a_clear_error(tmp_path, monkeypatch):
    def offline(**kw):
        raise ConnectionError("Failed to resolve 'dstack-gpu-pricing.s3.eu-west-1.amazonaws.com'")

    _fake_gpuhunt(monkeypatch, offline)
    out = tmp_path / "offers.yaml"
    res = cli("offers", "fetch", "--provider", "aws", "--out", out)
    assert res.exit_code == 1 and "internet access" in res.output and not out.exists()
    res = cli("offers", "fetch", "--provider", "awz", "--out", out)
    assert res.exit_code == 1 and "unknown provider 'awz'" in res.output


def test_fetch_turns_gpuhunt_items_into_offers(tmp_path, monkeypatch):
    seen = {}

    def query(**kw):
        seen.update(kw)
        item = types.SimpleNamespace
        return [
            item(
                provider="aws",
                instance_name="p5.48xlarge",
                location="us-east-1",
                price=55.04,
                cpu=192,
                memory=2048.0,
                gpu_count=8,
                gpu_name="H100",
                gpu_memory=80.0,
                spot=False,
                disk_size=None,
            ),
            item(
                provider="lambdalabs",
                instance_name="gpu_8x_h100_sxm5",
                location="us-east-3",
                price=23.92,
                cpu=208,
                memory=1800.0,
                gpu_count=8,
                gpu_name="H100",
                gpu_memory=80.0,
                spot=False,
                disk_size=22000.0,
            ),
            item(
                provider="aws",
                instance_name="m5.large",
                location="us-east-1",
                price=0.096,
                cpu=2,
                memory=8.0,
                gpu_count=0,
                gpu_name=None,
                gpu_memory=None,
                spot=False,
                disk_size=None,
            ),
        ]

    _fake_gpuhunt(monkeypatch, query)
    out = tmp_path / "offers.yaml"
    res = cli("offers", "fetch", "--provider", "aws", "--provider", "lambda", "--out", out)
    assert res.exit_code == 0, res.output
    assert seen["provider"] == ["aws", "lambdalabs"]
    offers = {o.id: o for o in load_catalog([out]).offers}
    assert offers["aws-p5.48xlarge-us-east-1"].price_per_node_hour == 55.04
    lam = offers["lambdalabs-gpu_8x_h100_sxm5-us-east-3"]
    assert lam.vendor == "Lambda" and lam.price_per_node_hour == 23.92 and lam.nvme_tb == 22.0
    assert lam.quoted_on == dt.datetime.now(dt.UTC).date() and "gpuhunt live catalog" in lam.source
    assert "1 CPU-only items skipped" in res.output


def test_fractional_gpus_are_skipped_and_the_instance_name_tells_the_form_factor(tmp_path):
    src = tmp_path / "lambdalabs.csv"
    src.write_text(
        "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\n"
        "gpu_1x_h100_pcie,us-east-1,2.49,26,225,1,H100,80,False\n"
        "half_a_gpu,us-east-1,0.5,4,16,0.5,H100,80,False\n"
    )
    r = import_file(src, "gpuhunt", as_of=AS_OF)
    (o,) = r.offers
    assert o["gpu"] == "H100-PCIE-80GB" and o["vendor"] == "Lambda" and o["price_per_node_hour"] == 2.49
    assert r.skipped["rows of a fraction of a GPU (or over 64 GPUs) skipped"] == 1
    assert not any("was taken as" in str(w) for w in r.warnings)  # 'pcie' in the name settles it


def test_csv_out_and_the_gpu_and_region_filters(tmp_path):
    out = tmp_path / "offers.csv"
    res = cli(
        "offers", "import", GPUHUNT, "--from", "gpuhunt", "--out", out, "--as-of", "2026-11-30",
        "--gpu", "H100", "--region", "us",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    offers = {o.id: o for o in load_catalog([out]).offers}
    # H100 rows in the US: p5 us-east-1, p5 spot us-east-2, p5x us-west-2 (p5 eu-west-2 and the others left out)
    assert set(offers) == {
        "aws-p5.48xlarge-us-east-1",
        "aws-p5.48xlarge-us-east-2-spot",
        "aws-p5x.hypothetical-us-west-2",
    }
    assert (
        offers["aws-p5.48xlarge-us-east-2-spot"].spot
        and offers["aws-p5.48xlarge-us-east-1"].price_per_node_hour == 55.04
    )
    assert "3 offers left out by --gpu/--region" in res.output


def test_a_yaml_catalog_too_big_to_read_back_is_refused(tmp_path):
    src = tmp_path / "aws.csv"
    lines = ["instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot"]
    lines += [f"p5.48xlarge-{i},us-east-1,55,192,2048,8,H100,80,False" for i in range(9_000)]
    src.write_text("\n".join(lines) + "\n")
    res = cli("offers", "import", src, "--from", "gpuhunt", "--out", tmp_path / "big.yaml", "--as-of", "2026-11-30")
    assert res.exit_code == 1 and "write --out offers.csv" in res.output and not (tmp_path / "big.yaml").exists()
    res = cli("offers", "import", src, "--from", "gpuhunt", "--out", tmp_path / "big.csv", "--as-of", "2026-11-30")
    assert res.exit_code == 0 and len(load_catalog([tmp_path / "big.csv"]).offers) == 9_000


def test_gcp_gpu_rows_are_added_to_the_machine_that_carries_them(tmp_path):
    folder = tmp_path / "gcp"
    folder.mkdir()
    (folder / "vms.csv").write_text(
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n"
        "a2-ultragpu-8g,,,96.0,1360.0,,5.5,2.2,us-central1,us-central1-c\n"
        ",A100-80GB,8.0,,,A100-80GB,40.0,16.0,us-central1,us-central1-c\n"
    )
    r = import_file(folder / "vms.csv", "skypilot", as_of=AS_OF)
    offers = _by_id(r)
    # the machine's 5.5/h plus its eight GPUs' 40.0/h; spot 2.2 + 16.0
    od = offers["gcp-a2-ultragpu-8g-8xA100-80GB-us-central1"]
    assert od["price_per_node_hour"] == pytest.approx(45.5) and od["gpu"] == "A100-SXM-80GB"
    assert od["intra_node"] == "nvswitch" and od["cpu_cores"] == 48 and od["ram_gb"] == 1360
    assert offers["gcp-a2-ultragpu-8g-8xA100-80GB-us-central1-c-spot"]["price_per_node_hour"] == pytest.approx(18.2)
    assert "host row 2 added" in od["source"]
