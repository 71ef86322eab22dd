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
Lambda as the bundled catalog's rows (about 22 and 19.5 TB); OCI as its Compute Shapes page states (below).
``None`` where the page leaves it to an option or prints no usable figure: the importer then uses the row's local
disks (SkyPilot's ``LocalDisk*`` columns, gpuhunt's ``disk_size``), or assumes none and says so.

Oracle Cloud bare-metal GPU shapes, from the bare-metal GPU table of OCI's "Compute Shapes" page
(https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm, read 2026-12-06):

==================  ======================  ===========================  ======================================
shape               GPUs                    local disk                   network
==================  ======================  ===========================  ======================================
BM.GPU4.8           8 × A100 40 GB          27.2 TB NVMe SSD (4 drives)  1 × 50 Gbps + 8 × 200 Gbps RDMA
BM.GPU.A100-v2.8    8 × A100 80 GB          27.2 TB NVMe SSD (4 drives)  2 × 50 Gbps + 16 × 100 Gbps RDMA
BM.GPU.H100.8       8 × H100 80 GB          16 × 3.84 TB NVMe            1 × 100 Gbps + 8 × 2 × 200 Gbps RDMA
BM.GPU.H200.8       8 × H200 141 GB         8 × 3.84 TB NVMe             1 × 200 Gbps + 8 × 400 Gbps RDMA
BM.GPU.B200.8       8 × B200 180 GB         8 × 3.84 TB NVMe             2 × 200 Gbps + 8 × 400 Gbps RDMA
BM.GPU.MI300X.8     8 × MI300X (1,536 GB)   "8 x 3.84 GB NVMe"           1 × 100 Gbps + 8 × 1 × 400 Gbps RDMA
BM.GPU.L40S.4       4 × L40S 48 GB          2 × 3.84 TB NVMe             1 × 200 Gbps + 800 Gbps RDMA
==================  ======================  ===========================  ======================================

The RDMA ports are OCI's cluster network (RoCE v2), modelled as ``roce-*`` ports of the same total rate: 16 × 100
Gbps as 8 × ``roce-200g`` (1,600 Gb/s), the L40S shape's 800 Gbps as 4 × ``roce-200g``. The 8-GPU NVIDIA shapes
are HGX baseboards, whose GPUs talk over NVSwitch (NVIDIA HGX A100/H100/H200/B200 datasheets); MI300X over AMD
Infinity Fabric (``nvlink`` here, as for Azure's ND MI300X v5); the L40S has no NVLink (``pcie``). The MI300X row
prints GB where the drives are TB: no figure is taken from it (``nvme_tb`` None).
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
_OCI = "OCI Compute Shapes page, bare metal GPU table"
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
    # Oracle Cloud (the table in the module docstring)
    "bm.gpu4.8": InstanceType(
        "A100-SXM-40GB", "nvswitch", "roce-200g", 8, f"{_OCI}: BM.GPU4.8, 8 × 200 Gbps RDMA", nvme_tb=27.2
    ),
    "bm.gpu.a100-v2.8": InstanceType(
        "A100-SXM-80GB",
        "nvswitch",
        "roce-200g",
        8,
        f"{_OCI}: BM.GPU.A100-v2.8, 16 × 100 Gbps RDMA (modelled as 8 × 200G, the same 1,600 Gb/s)",
        nvme_tb=27.2,
    ),
    "bm.gpu.h100.8": InstanceType(
        "H100-SXM-80GB", "nvswitch", "roce-200g", 16, f"{_OCI}: BM.GPU.H100.8, 8 × 2 × 200 Gbps RDMA", nvme_tb=61.44
    ),
    "bm.gpu.h200.8": InstanceType(
        "H200-SXM-141GB", "nvswitch", "roce-400g", 8, f"{_OCI}: BM.GPU.H200.8, 8 × 400 Gbps RDMA", nvme_tb=30.72
    ),
    "bm.gpu.b200.8": InstanceType(
        "B200-SXM-180GB", "nvswitch", "roce-400g", 8, f"{_OCI}: BM.GPU.B200.8, 8 × 400 Gbps RDMA", nvme_tb=30.72
    ),
    "bm.gpu.mi300x.8": InstanceType(
        "MI300X-192GB", "nvlink", "roce-400g", 8, f"{_OCI}: BM.GPU.MI300X.8, Infinity Fabric, 8 × 400 Gbps RDMA"
    ),
    "bm.gpu.l40s.4": InstanceType(
        "L40S-48GB",
        "pcie",
        "roce-200g",
        4,
        f"{_OCI}: BM.GPU.L40S.4, 800 Gbps RDMA (modelled as 4 × 200G)",
        gpus=4,
        nvme_tb=7.68,
    ),
}


#: internet egress per TB where the bundled catalog's rows of that provider give it (offers/data/catalog.yaml
#: notes: AWS data transfer out, first tier $0.09/GB; GCP internet egress up to $0.12/GB; list prices)
PROVIDER_EGRESS_PER_TB: dict[str, float] = {"aws": 90.0, "gcp": 120.0}


def known_instance(name: str) -> InstanceType | None:
    return KNOWN.get(name.strip().lower())
