"""Known cloud instance types: the GPU model, the link inside the node and the fabric between nodes.

Public catalogs (gpuhunt, SkyPilot) give a GPU name such as ``H100`` and a count, but not whether the
GPUs sit on an NVSwitch baseboard, nor the cluster fabric. This table gives both for the instance types
that LLM training uses, each with its source; an instance type not listed is imported with the
conservative ``pcie`` / ``none`` and a warning to review it (``offers.importers``).

Fabrics are modelled as ports × line rate (``inter_node_rails`` × ``FABRIC_GBPS``): AWS EFA and GCP
GPUDirect are RDMA over Ethernet-class links, written as ``roce-*``; Azure ND and OCI use InfiniBand or
RoCE as their pages state. Keys are lower case.

Local NVMe (``nvme_tb``, TB decimal) is the instance storage each type comes with, from the same pages:
AWS P5/P5e/P5en/P6-B200 8 × 3.84 TB, P4d/P4de 8 × 1 TB; GCP A3 High/Mega 16 × 375 GB (6 TB), A3 Ultra
12 TB, A2 Ultra 8 × 375 GB (3 TB; A2 standard has none unless attached); Azure ND H100/H200 v5 8 × 3.5 TB;
Lambda as the bundled catalog's rows (about 22 and 19.5 TB); OCI BM.GPU.H100.8 16 × 3.84 TB, BM.GPU4.8
4 × 6.8 TB. ``None`` where the page leaves it to an option: the importer then uses the row's disk size, or
assumes none and says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from procure.models.gpu import InterNode, IntraNode


@dataclass(frozen=True)
class InstanceType:
    gpu: str  # canonical id in models/data/gpus.yaml
    intra_node: IntraNode
    inter_node: InterNode
    rails: int
    source: str
    gpus: int = 8  # GPUs per instance
    #: local NVMe that comes with the instance (TB, decimal), from the same page; None: not stated here
    nvme_tb: float | None = None


_AWS_P5 = "AWS EC2 P5 instances page: 8 GPUs on NVSwitch, EFA 3,200 Gbps per instance (modelled as 8 × 400G)"
_AWS_P4 = "AWS EC2 P4 instances page: 8 A100 on NVSwitch, EFA 400 Gbps per instance (modelled as 4 × 100G)"
_GCP_A3 = "Google Cloud GPU machine types page (A3)"
_AZ_ND = "Microsoft Azure ND-series sizes page"
_LAMBDA = "Lambda on-demand instances page: 8 SXM GPUs on NVSwitch; on-demand instances are not on a cluster fabric (1-Click Clusters are quoted separately)"

KNOWN: dict[str, InstanceType] = {
    # AWS
    "p5.48xlarge": InstanceType("H100-SXM-80GB", "nvswitch", "roce-400g", 8, _AWS_P5, nvme_tb=30.72),
    "p5e.48xlarge": InstanceType("H200-SXM-141GB", "nvswitch", "roce-400g", 8, _AWS_P5, nvme_tb=30.72),
    "p5en.48xlarge": InstanceType("H200-SXM-141GB", "nvswitch", "roce-400g", 8, _AWS_P5, nvme_tb=30.72),
    "p6-b200.48xlarge": InstanceType(
        "B200-SXM-180GB",
        "nvswitch",
        "roce-400g",
        8,
        "AWS EC2 P6 instances page: 8 B200, EFAv4 3,200 Gbps (8 × 400G)",
        nvme_tb=30.72,
    ),
    "p4d.24xlarge": InstanceType("A100-SXM-40GB", "nvswitch", "eth-100g", 4, _AWS_P4, nvme_tb=8.0),
    "p4de.24xlarge": InstanceType("A100-SXM-80GB", "nvswitch", "eth-100g", 4, _AWS_P4, nvme_tb=8.0),
    # Google Cloud
    "a3-highgpu-8g": InstanceType(
        "H100-SXM-80GB",
        "nvswitch",
        "roce-200g",
        4,
        f"{_GCP_A3}: a3-highgpu-8g, 4 × 200 Gbps GPUDirect-TCPX NICs",
        nvme_tb=6.0,
    ),
    "a3-megagpu-8g": InstanceType(
        "H100-SXM-80GB",
        "nvswitch",
        "roce-200g",
        8,
        f"{_GCP_A3}: a3-megagpu-8g, 8 × 200 Gbps GPUDirect-TCPXO NICs",
        nvme_tb=6.0,
    ),
    "a3-ultragpu-8g": InstanceType(
        "H200-SXM-141GB", "nvswitch", "roce-400g", 8, f"{_GCP_A3}: a3-ultragpu-8g, 8 × 400 Gbps RDMA NICs", nvme_tb=12.0
    ),
    "a2-highgpu-8g": InstanceType(
        "A100-SXM-40GB", "nvswitch", "eth-100g", 1, "Google Cloud A2 machine types: 16 × A100 40GB max, 100 Gbps"
    ),
    "a2-ultragpu-8g": InstanceType(
        "A100-SXM-80GB",
        "nvswitch",
        "eth-100g",
        1,
        "Google Cloud A2 ultra machine types: A100 80GB, 100 Gbps",
        nvme_tb=3.0,
    ),
    # Microsoft Azure
    "standard_nd96isr_h100_v5": InstanceType(
        "H100-SXM-80GB", "nvswitch", "ib-ndr", 8, f"{_AZ_ND}: ND H100 v5, 8 × 400 Gb/s NDR InfiniBand", nvme_tb=28.0
    ),
    "standard_nd96isr_h200_v5": InstanceType(
        "H200-SXM-141GB", "nvswitch", "ib-ndr", 8, f"{_AZ_ND}: ND H200 v5, 8 × 400 Gb/s NDR InfiniBand", nvme_tb=28.0
    ),
    "standard_nd96asr_v4": InstanceType(
        "A100-SXM-40GB", "nvswitch", "ib-hdr", 8, f"{_AZ_ND}: ND A100 v4, 8 × 200 Gb/s HDR InfiniBand"
    ),
    "standard_nd96amsr_a100_v4": InstanceType(
        "A100-SXM-80GB", "nvswitch", "ib-hdr", 8, f"{_AZ_ND}: NDm A100 v4, 8 × 200 Gb/s HDR InfiniBand"
    ),
    "standard_nd96isr_mi300x_v5": InstanceType(
        "MI300X-192GB", "nvlink", "ib-ndr", 8, f"{_AZ_ND}: ND MI300X v5, Infinity Fabric, 8 × 400 Gb/s InfiniBand"
    ),
    # Lambda
    "gpu_8x_h100_sxm5": InstanceType("H100-SXM-80GB", "nvswitch", "none", 1, _LAMBDA, nvme_tb=22.0),
    "gpu_8x_a100_80gb_sxm4": InstanceType("A100-SXM-80GB", "nvswitch", "none", 1, _LAMBDA, nvme_tb=19.5),
    "gpu_8x_a100": InstanceType("A100-SXM-40GB", "nvswitch", "none", 1, _LAMBDA),
    "gpu_8x_b200_sxm6": InstanceType("B200-SXM-180GB", "nvswitch", "none", 1, _LAMBDA),
    # Oracle Cloud
    "bm.gpu.h100.8": InstanceType(
        "H100-SXM-80GB",
        "nvswitch",
        "roce-200g",
        16,
        "OCI bare-metal GPU shapes: BM.GPU.H100.8, 16 × 200 Gb/s RDMA",
        nvme_tb=61.44,
    ),
    "bm.gpu4.8": InstanceType(
        "A100-SXM-40GB",
        "nvswitch",
        "roce-200g",
        8,
        "OCI bare-metal GPU shapes: BM.GPU4.8, 8 × 200 Gb/s RDMA",
        nvme_tb=27.2,
    ),
}


#: internet egress per TB where the bundled catalog's rows of that provider give it (offers/data/catalog.yaml
#: notes: AWS data transfer out, first tier $0.09/GB; GCP internet egress up to $0.12/GB; list prices)
PROVIDER_EGRESS_PER_TB: dict[str, float] = {"aws": 90.0, "gcp": 120.0}


def known_instance(name: str) -> InstanceType | None:
    return KNOWN.get(name.strip().lower())
