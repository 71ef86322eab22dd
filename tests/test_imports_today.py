"""`procure offers import` against today's catalogs: SkyPilot catalog v9's local disks, Lambda's and OCI's region
names, OCI's bare-metal GPU shapes, gpuhunt's disk_size.

The SkyPilot rows below are copied from the public skypilot-org/skypilot-catalog repository, catalogs/v9
(aws/vms.csv, lambda/vms.csv, oci/vms.csv; read 2026-12-06), each file with its own header as published; where a
row is changed for the test, the comment says how. Every expected figure is worked by hand from the row and the
documented rules (docs/quotes.md, "Public price catalogs").
"""

from __future__ import annotations

import datetime as dt

import pytest

from procure.offers.cloud_regions import procure_region
from procure.offers.importers import import_file
from procure.offers.instance_types import KNOWN

from helpers import cli

AS_OF = dt.date(2026, 12, 1)

AWS_V9_HEADER = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,"
    "AvailabilityZone,Arch,LocalDiskType,NVMeSupported,LocalDiskSize,LocalDiskCount\n"
)
H100_INFO = (
    "\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', 'Count': %d, 'LogicalGpuCount': %d, "
    "'GpuPartitionSize': 1.0, 'Workloads': ['ml-ai'], 'MemoryInfo': {'SizeInMiB': 81920}}], "
    "'TotalGpuMemoryInMiB': %d}\""
)
AWS_V9_ROWS = [
    # p5.48xlarge in use1-az2 and p5.4xlarge in use1-az1, as published
    f"p5.48xlarge,H100,8.0,192.0,2048.0,{H100_INFO % (8, 8, 655360)},55.04,18.734000,us-east-1,use1-az2,x86_64,"
    "ssd,True,3800.0,8.0",
    f"p5.4xlarge,H100,1.0,16.0,256.0,{H100_INFO % (1, 1, 81920)},6.88,,us-east-1,use1-az1,x86_64,ssd,True,3800.0,1.0",
    # a CPU-only row with hard disks, as published (c1.xlarge: 4 × 420 GB, EC2's 1,680 GB of instance store)
    "c1.xlarge,,,8.0,7.0,,0.52,0.210600,us-east-1,use1-az2,x86_64,hdd,False,420.0,4.0",
]


def _write(tmp_path, cloud, text):
    folder = tmp_path / cloud
    folder.mkdir(exist_ok=True)
    path = folder / "vms.csv"
    path.write_text(text)
    return path


def _by_id(result):
    return {o["id"]: o for o in result.offers}


# --- SkyPilot v9's local disks --------------------------------------------------------------------------------


def test_skypilot_v9_local_nvme_is_size_times_count_in_decimal_tb(tmp_path):
    path = _write(tmp_path, "aws", AWS_V9_HEADER + "\n".join(AWS_V9_ROWS) + "\n")
    r = import_file(path, "skypilot", as_of=AS_OF)
    offers = _by_id(r)
    # p5.4xlarge is not in procure's instance-type table: its NVMe comes from the row, 1 × 3,800 GB = 3.8 TB
    one = offers["aws-p5.4xlarge-us-east-1"]
    assert one["nvme_tb"] == 3.8 and one["gpus_per_node"] == 1
    assert "local NVMe 1 × 3800 GB ssd from the row" in one["source"]
    # p5.48xlarge is: the table's 8 × 3.84 TB (AWS's P5 page) stands over the row's 8 × 3,800 GB = 30.4 TB
    assert offers["aws-p5.48xlarge-us-east-1"]["nvme_tb"] == 30.72
    assert offers["aws-p5.48xlarge-use1-az2-spot"]["nvme_tb"] == 30.72
    assert not any("no local NVMe" in str(w) for w in r.warnings)
    assert r.skipped["CPU-only rows skipped"] == 1


@pytest.mark.parametrize(
    ("disks", "nvme_tb", "said"),
    [
        ("ssd,True,1900.0,2.0", 3.8, "local NVMe 2 × 1900 GB ssd"),  # 2 × 1,900 GB = 3.8 TB
        ("nvme-ssd,,950.0,4.0", 3.8, "local NVMe 4 × 950 GB nvme-ssd"),  # the type says NVMe: 4 × 950 GB
        ("ssd,,1900.0,1.0", 1.9, "local NVMe 1 × 1900 GB ssd"),  # no NVMeSupported: an SSD counts
        ("hdd,False,420.0,4.0", 0.0, "(4 × 420 GB hdd) are not solid-state: not counted"),
        ("ssd,False,80.0,2.0", 0.0, "(2 × 80 GB ssd) are not NVMe: not counted"),  # a SATA SSD
        (",False,,", 0.0, "the row gives no disk"),
    ],
)
def test_only_nvme_local_disks_count(tmp_path, disks, nvme_tb, said):
    # the p5.4xlarge row above with its four disk cells replaced
    row = f"p5.4xlarge,H100,1.0,16.0,256.0,{H100_INFO % (1, 1, 81920)},6.88,,us-east-1,use1-az1,x86_64,{disks}"
    r = import_file(_write(tmp_path, "aws", AWS_V9_HEADER + row + "\n"), "skypilot", as_of=AS_OF)
    (offer,) = r.offers
    assert offer["nvme_tb"] == nvme_tb and said in offer["source"], offer["source"]
    assert any("no local NVMe" in str(w) for w in r.warnings) == (nvme_tb == 0)


def test_a_disk_count_that_is_no_whole_number_is_an_error_at_its_row(tmp_path):
    row = f"p5.4xlarge,H100,1.0,16.0,256.0,{H100_INFO % (1, 1, 81920)},6.88,,us-east-1,use1-az1,x86_64,ssd,True,3800.0,1.5"
    path = _write(tmp_path, "aws", AWS_V9_HEADER + row + "\n")
    res = cli("offers", "import", path, "--from", "skypilot", "--out", tmp_path / "o.yaml", "--as-of", "2026-12-01")
    assert res.exit_code == 1 and "row 2" in res.output and "LocalDiskCount" in res.output
    assert "whole number" in res.output and "Traceback" not in res.output and not (tmp_path / "o.yaml").exists()


def test_gpuhunt_disk_size_is_read_as_gb_of_local_storage(tmp_path):
    # gpuhunt's disk_size is GB (gpuhunt _internal/models.py: "disk_size: size of disk in GB"); its Lambda provider
    # writes storage_gib × 1.074. gpu_8x_b200_sxm6 is in procure's table without an NVMe figure: the row's counts.
    src = tmp_path / "lambdalabs.csv"
    src.write_text(
        "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size\n"
        "gpu_8x_b200_sxm6,us-east-1,39.92,208,1932.8,8,B200,180.0,False,23633.37\n"
    )
    (offer,) = import_file(src, "gpuhunt", as_of=AS_OF).offers
    assert offer["nvme_tb"] == 23.633  # 23,633.37 GB / 1,000, rounded to the GB
    assert "disk_size" in offer["source"]


# --- regions -------------------------------------------------------------------------------------------------


def test_lambda_dashed_regions_import(tmp_path):
    # catalogs/v9/lambda/vms.csv: its own column order, no AvailabilityZone; the row as published
    text = (
        "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
        "gpu_4x_a6000,A6000,4.0,56.0,400.0,4.36,asia-northeast-1,\"{'Gpus': [{'Name': 'A6000', 'Manufacturer': "
        "'NVIDIA', 'Count': 4.0, 'MemoryInfo': {'SizeInMiB': 49152}}], 'TotalGpuMemoryInMiB': 49152}\",\n"
    )
    r = import_file(_write(tmp_path, "lambda", text), "skypilot", as_of=AS_OF)
    assert not r.unknown_regions
    (offer,) = r.offers
    assert offer["region"] == "ap-jp" and offer["gpu"] == "RTX-A6000-48GB" and offer["price_per_node_hour"] == 4.36


@pytest.mark.parametrize(
    ("name", "region"),
    [
        # Lambda (its region picker), as GCP's names with a '-' before the number
        ("asia-northeast-1", "ap-jp"),
        ("asia-northeast-2", "ap-jp"),
        ("asia-south-1", "ap-in"),
        ("europe-central-1", "eu-central"),
        ("europe-south-1", "eu-south"),
        ("australia-east-1", "ap-au"),
        ("me-west-1", "me"),
        ("us-midwest-1", "us-central"),
        ("us-south-3", "us-central"),
        # GCP: the same key, and a number that only starts like another
        ("asia-northeast1", "ap-jp"),
        ("asia-northeast3", "ap-kr"),
        ("europe-west1", "eu-west"),
        ("europe-west10", "eu-central"),  # Berlin, not Belgium's europe-west1
        ("europe-west12", "eu-south"),  # Turin
        ("asia-southeast2", "ap"),  # Jakarta
        ("africa-south1", "af"),
        ("us-central1-b", "us-central"),  # a zone maps like its region
        # AWS: ap-south (Mumbai) is not ap-southeast (Singapore) at a word boundary
        ("ap-south-2", "ap-in"),
        ("ap-southeast-1", "ap-sg"),
        ("ap-southeast-4", "ap-au"),
        ("ap-east-2", "ap-tw"),
        ("us-east-1a", "us-east"),
        ("us-east-1-atl-1", "us-east"),
        # OCI: <area>-<city>-<n>, and its availability domains
        ("us-ashburn-1", "us-east"),
        ("us-phoenix-1", "us-west"),
        ("us-chicago-1", "us-central"),
        ("ca-toronto-1", "ca-central"),
        ("eu-frankfurt-1", "eu-central"),
        ("eu-amsterdam-1-AD-1", "eu-west"),
        ("EU-STOCKHOLM-1-AD-1", "eu-north"),
        ("uk-london-1", "eu-west"),
        ("ap-tokyo-1", "ap-jp"),
        ("me-abudhabi-1", "me"),
        ("sa-saopaulo-1", "sa"),
        # Azure, RunPod, country codes
        ("eastus2", "us-east"),
        ("westeurope", "eu-west"),
        ("US-TX-3", "us-central"),
        ("US-CA-2", "us-west"),
        ("US-GA-1", "us-east"),
        ("CA-MTL-1", "ca-central"),
        ("SEA-SG-1", "ap-sg"),
        ("SE", "eu-north"),
        # no procure region: Mexico is neither the Middle East ('me') nor any other
        ("mx-queretaro-1", None),
        ("mexicocentral", None),
        ("", None),
    ],
)
def test_regions_map_by_table(name, region):
    assert procure_region(name) == region


def test_region_tables_are_in_one_spelling_and_name_real_regions():
    from procure.models.regions import REGIONS
    from procure.offers.cloud_regions import _PLACES, PLACES, US_STATES, WORDS, spelling

    # every key is written as it is matched, and the US states add no key that PLACES also has
    assert all(spelling(k) == k for k in PLACES) and all(spelling(w) == w and "-" not in w for w in WORDS)
    assert len(_PLACES) == len(PLACES) + len(US_STATES)
    assert {*PLACES.values(), *WORDS.values(), *US_STATES.values()} <= set(REGIONS)
    assert len(US_STATES) == 51  # the 50 states and DC


# --- OCI bare metal --------------------------------------------------------------------------------------------

OCI_HEADER = (
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n"
)


def test_oci_a100_v2_8_in_ashburn(tmp_path):
    # catalogs/v9/oci/vms.csv's BM.GPU.A100-v2.8 row (published for eu-amsterdam-1 at 32 per hour), in us-ashburn-1
    text = OCI_HEADER + (
        "BM.GPU.A100-v2.8,A100-80GB,8,256,2048,\"{'Gpus': [{'Name': 'A100-80GB', 'Manufacturer': 'NVIDIA', "
        "'Count': 8, 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}\",32,,us-ashburn-1,"
        "us-ashburn-1-AD-1\n"
    )
    r = import_file(_write(tmp_path, "oci", text), "skypilot", as_of=AS_OF)
    (o,) = r.offers
    assert (o["gpu"], o["region"], o["intra_node"]) == ("A100-SXM-80GB", "us-east", "nvswitch")
    # 16 × 100 Gbps RDMA (OCI Compute Shapes page) = 8 rails × 200 Gbps = 1,600 Gb/s
    assert (o["inter_node"], o["inter_node_rails"]) == ("roce-200g", 8)
    assert o["nvme_tb"] == 27.2  # 27.2 TB NVMe SSD (4 drives)
    assert o["cpu_cores"] == 128 and o["vendor"] == "Oracle Cloud"
    text = " ".join(str(w) for w in r.warnings)
    assert "interconnect" not in text and "no local NVMe" not in text and "A100-80GB" not in text


def test_oci_bare_metal_shapes_carry_the_shapes_page_figures():
    # the table of offers/instance_types.py's docstring, from OCI's Compute Shapes page: (GPU, GPUs, rails × Gb/s, TB)
    want = {
        "bm.gpu4.8": ("A100-SXM-40GB", 8, 8 * 200, 27.2),
        "bm.gpu.a100-v2.8": ("A100-SXM-80GB", 8, 16 * 100, 27.2),
        "bm.gpu.h100.8": ("H100-SXM-80GB", 8, 8 * 2 * 200, 16 * 3.84),
        "bm.gpu.h200.8": ("H200-SXM-141GB", 8, 8 * 400, 8 * 3.84),
        "bm.gpu.b200.8": ("B200-SXM-180GB", 8, 8 * 400, 8 * 3.84),
        "bm.gpu.l40s.4": ("L40S-48GB", 4, 800, 2 * 3.84),
    }
    from procure.models.gpu import FABRIC_GBPS

    for shape, (gpu, gpus, gbps, tb) in want.items():
        k = KNOWN[shape]
        assert (k.gpu, k.gpus) == (gpu, gpus), shape
        assert FABRIC_GBPS[k.inter_node] * k.rails == gbps, shape
        assert k.nvme_tb == pytest.approx(tb), shape
    assert KNOWN["bm.gpu.mi300x.8"].nvme_tb is None  # the page prints GB where TB is meant: no figure taken
