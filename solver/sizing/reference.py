"""Reference nodes: a GPU in its usual server, for sizing a job without any real offer."""

from __future__ import annotations

import math

from procure.models.gpu import gpu_table
from procure.models.offer import Offer

from .constants import REFERENCE_NODE_RAM_GB

REFERENCE_SOURCE = "reference node (not a price)"
REFERENCE_PRICE_PER_NODE_HOUR = 1.0  # nominal, so a reference offer validates; never a real price


def reference_offer(gpu_id: str, total_gpus: int) -> tuple[Offer, int]:
    """A reference node of that GPU and the node count holding ``total_gpus`` GPUs.

    SXM/OAM: the baseboard's GPUs per node (8; 4 per tray of a GB200/GB300 NVL72 rack, whose trays share
    the rack's NVLink domain) on the baseboard fabric (NVSwitch for SXM), InfiniBand NDR with one 400G rail
    per GPU; host RAM REFERENCE_NODE_RAM_GB (2 TB, DGX H100/H200/B200) for an 8-GPU baseboard or 2× the
    node's GPU memory when that is more. PCIe/consumer: the GPU table's usual server, host RAM 2× its GPU
    memory. 16 CPU cores per GPU and 30 TB NVMe (DGX H100-like). Host RAM is a fit rule on reference
    nodes too, so an offload layout needs RAM such a server has."""
    table = gpu_table()
    gid = table.resolve(gpu_id)
    if gid is None:
        raise ValueError(table.unknown_message(gpu_id))
    g = table[gid]
    if g.form_factor in ("sxm", "oam"):  # the baseboard's GPUs (8; the 4-GPU trays of GB200/GB300 NVL72)
        gpn = g.default_gpus_per_node
        intra = "nvswitch" if g.form_factor == "sxm" else g.default_intra_node
        inter, rails = "ib-ndr", gpn
    else:
        gpn, intra, inter, rails = g.default_gpus_per_node, g.default_intra_node, g.default_inter_node, 1
    if total_gpus < gpn:  # a smaller box holding exactly the GPUs asked for
        gpn = max(1, total_gpus)
        rails = min(rails, gpn)
    nodes = max(1, math.ceil(total_gpus / gpn))
    ram = 2.0 * gpn * g.memory_gb
    if g.form_factor in ("sxm", "oam") and gpn == 8:
        ram = max(ram, REFERENCE_NODE_RAM_GB)
    offer = Offer.model_validate(
        {
            "id": f"reference-{gid}",
            "vendor": "reference",
            "mode": "cloud",
            "region": "any",
            "gpu": gid,
            "gpus_per_node": gpn,
            "intra_node": intra,
            "inter_node": inter,
            "inter_node_rails": rails,
            "ram_gb": ram,
            "nvme_tb": 30.0,
            "cpu_cores": 16 * gpn,
            "max_nodes": nodes,
            "price_per_node_hour": REFERENCE_PRICE_PER_NODE_HOUR,
            "source": REFERENCE_SOURCE,
            "quoted_on": "2026-01-01",
        }
    )
    return offer, nodes


def is_reference(offer: Offer) -> bool:
    return offer.source == REFERENCE_SOURCE
