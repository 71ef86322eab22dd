"""Fit rules: why a shape is rejected, one ``Reason`` per broken rule (the wording lives here only).

Fit checks per shape: memory (fastest fitting strategy), host RAM ≥ host_ram_ratio × node GPU memory,
NVMe ≥ dataset_tb/nodes (the dataset is assumed sharded across nodes) + checkpoints_kept × checkpoint
size/nodes (full/pretrain: 14 B/param = bf16 weights + fp32 master/m/v, sharded across nodes;
lora/qlora: 14 B per adapter param), CPU cores per GPU, inter-node fabric for nodes > 1, efficiency
≥ min_efficiency, allowed_gpus, and the mainland-China border rule for the network line.
"""

from __future__ import annotations

from procure.models.gpu import GPU
from procure.models.offer import Offer
from procure.models.project import SizingSettings
from procure.models.units import GB, TB
from procure.solver.reasons import Reason, Rule

from .profile import Profile
from .reference import is_reference
from .results import MemoryBreakdown, Strategy


def _fmt(x: float) -> str:
    return f"{x:.3g}" if x < 10 else f"{x:,.0f}"


def region_reason(offer: Offer, team_area: str | None, settings: SizingSettings) -> Reason | None:
    if not team_area or is_reference(offer):
        return None
    area = offer.area
    if area == team_area or (area == "cn") == (team_area == "cn"):
        return None
    if offer.network_line in {x.strip().lower() for x in settings.premium_lines}:
        return None
    return Reason(Rule.REGION, (
        f"team in {team_area} and offer in {offer.region} are on opposite sides of the mainland-China border; "
        f"network line '{offer.network_line}' is not a premium line ({', '.join(settings.premium_lines)})"
    ))


def offer_reasons(p: Profile, offer: Offer, g: GPU, settings: SizingSettings, team_area: str | None) -> list[Reason]:
    """Rules that hold for every node count of ``offer``: allowed GPUs, region, host RAM, CPU cores."""
    gpn = offer.gpus_per_node
    out: list[Reason] = []
    if p.allowed is not None and offer.gpu not in p.allowed:
        out.append(Reason(Rule.GPU_NOT_ALLOWED, f"{offer.gpu} is not in the workload's allowed_gpus ({', '.join(sorted(p.allowed))})"))
    region = region_reason(offer, team_area, settings)
    if region:
        out.append(region)
    node_gpu_gb = gpn * g.memory_gb
    need_ram = settings.host_ram_ratio * node_gpu_gb
    if offer.ram_gb < need_ram - 1e-9:
        out.append(Reason(Rule.HOST_RAM,
            f"host RAM {_fmt(offer.ram_gb)} GB < {settings.host_ram_ratio:g} × the node's {_fmt(node_gpu_gb)} GB of GPU memory = {_fmt(need_ram)} GB"
        ))
    cores_per_gpu = offer.cpu_cores / gpn
    if cores_per_gpu < settings.cpu_cores_per_gpu - 1e-9:
        out.append(Reason(Rule.CPU_CORES,
            f"{cores_per_gpu:.3g} CPU cores per GPU ({offer.cpu_cores} cores / {gpn} GPU{'s' if gpn > 1 else ''}) < {settings.cpu_cores_per_gpu:g} required"
        ))
    return out


def fabric_reason(offer: Offer, nodes: int, settings: SizingSettings) -> Reason | None:
    fabric = offer.fabric_gbps
    if nodes > 1 and fabric < settings.min_inter_node_gbps - 1e-9:
        have = "no inter-node fabric" if offer.inter_node == "none" else f"{offer.inter_node} ({fabric:g} Gb/s per node)"
        return Reason(Rule.FABRIC, f"multi-node needs ≥{settings.min_inter_node_gbps:g} Gb/s fabric; offer has {have}")
    return None


def memory_reason(least: Strategy, mem: MemoryBreakdown, n_gpus: int, g: GPU, mem_cap_bytes: float) -> Reason:
    """No strategy fits: quote the leanest one's per-GPU need against the usable capacity."""
    ck = "checkpointing" if least.checkpointing else "no checkpointing"
    if n_gpus // least.tensor_parallel > 1:
        how = f"ZeRO-{least.zero_stage}, TP{least.tensor_parallel}, {ck} and micro-batch {least.micro_batch} on {n_gpus} GPUs"
    elif least.tensor_parallel > 1:
        how = f"TP{least.tensor_parallel} over all {n_gpus} GPUs, {ck} and micro-batch {least.micro_batch}"
    else:
        how = f"{ck} and micro-batch {least.micro_batch} on one GPU"
    return Reason(Rule.GPU_MEMORY, f"needs {mem.total:.1f} GB per GPU even with {how}; {g.id} has {mem_cap_bytes / GB:.1f} GB usable ({g.memory_gb:g} GB datasheet)")


def efficiency_reason(eff: float, offer: Offer, nodes: int, g: GPU, settings: SizingSettings) -> Reason | None:
    if eff >= settings.min_efficiency - 1e-12:
        return None
    link = offer.intra_node + (f" inside, {offer.inter_node} between nodes" if nodes > 1 else " inside the node")
    return Reason(Rule.INTERCONNECT_BOUND,
        f"interconnect-bound: scaling efficiency {eff:.2f} < {settings.min_efficiency:g} on {nodes} × {offer.gpus_per_node} × {g.id} ({link})"
    )


def nvme_reason(p: Profile, offer: Offer, nodes: int) -> Reason | None:
    need_tb = (p.dataset_tb + p.kept * p.ckpt_bytes / TB) / nodes
    if offer.nvme_tb >= need_tb - 1e-9:
        return None
    return Reason(Rule.NVME,
        f"needs {need_tb:.3g} TB of NVMe per node (dataset {p.dataset_tb:g} TB + {p.kept} checkpoint(s) of "
        f"{p.ckpt_bytes / TB:.3g} TB, sharded over {nodes} node(s)); offer has {offer.nvme_tb:g} TB"
    )
