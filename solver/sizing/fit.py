"""Fit rules: why a shape is rejected, one ``Reason`` per broken rule (the wording lives here only).

Fit checks per shape: memory (fastest fitting strategy), host RAM ≥ what the job keeps in host memory
(``host_ram_reason``; or host_ram_ratio × node GPU memory when the project sets that ratio),
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

from .constants import DATA_LOADER_WORKERS, HOST_RAM_PER_GPU_GB, HOST_RAM_SYSTEM_GB
from .profile import Profile
from .reference import is_reference
from .results import MemoryBreakdown, Parallelism


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
    return Reason(
        Rule.REGION,
        (
            f"team in {team_area} and offer in {offer.region} are on opposite sides of the mainland-China border; "
            f"network line '{offer.network_line}' is not a premium line (sizing.premium_lines: {', '.join(settings.premium_lines)})"
        ),
    )


def offer_reasons(p: Profile, offer: Offer, g: GPU, settings: SizingSettings, team_area: str | None) -> list[Reason]:
    """Rules that hold for every node count of ``offer``: allowed GPUs, region, host RAM, CPU cores."""
    gpn = offer.gpus_per_node
    out: list[Reason] = []
    if p.allowed is not None and offer.gpu not in p.allowed:
        out.append(
            Reason(
                Rule.GPU_NOT_ALLOWED,
                f"{offer.gpu} is not in the workload's allowed_gpus ({', '.join(sorted(p.allowed))})",
            )
        )
    region = region_reason(offer, team_area, settings)
    if region:
        out.append(region)
    precision = precision_reason(p, g)
    if precision:
        out.append(precision)
    if settings.host_ram_ratio is not None:
        node_gpu_gb = gpn * g.memory_gb
        need_ram = settings.host_ram_ratio * node_gpu_gb
        if offer.ram_gb < need_ram - 1e-9:
            out.append(
                Reason(
                    Rule.HOST_RAM,
                    # the rule of thumb compares nominal figures: the datasheets' GiB counted as GB, like the RAM's
                    f"host RAM {_fmt(offer.ram_gb)} GB < {settings.host_ram_ratio:g} × the node's GPU memory ({gpn} × "
                    f"{g.memory_gb:g} GiB, counted at its nominal {_fmt(node_gpu_gb)} GB) = {_fmt(need_ram)} GB "
                    "(sizing.host_ram_ratio)",
                )
            )
    cores_per_gpu = offer.cpu_cores / gpn
    need_cores = settings.cpu_cores_per_gpu if settings.cpu_cores_per_gpu is not None else 1 + DATA_LOADER_WORKERS
    if cores_per_gpu < need_cores - 1e-9:
        out.append(
            Reason(
                Rule.CPU_CORES,
                f"{cores_per_gpu:.3g} CPU cores per GPU ({offer.cpu_cores} cores / {gpn} GPU{'s' if gpn > 1 else ''}) < {need_cores:g} required (sizing.cpu_cores_per_gpu)",
            )
        )
    return out


def host_ram_need_gb(gpn: int, stage_gb: float, offload_gb: float = 0.0) -> float:
    """Host RAM one node needs (GB): HOST_RAM_SYSTEM_GB + gpn × (HOST_RAM_PER_GPU_GB + the GPU's checkpoint
    staging + its offloaded optimizer state).

    Staging (``memory.checkpoint_stage_bytes``): PyTorch distributed checkpointing's async_save copies each
    rank's state dict to CPU memory before writing it, so the node must hold its GPUs' trainable-state
    shards once (torch.distributed.checkpoint docs): weights + optimizer state for full training, the
    adapter's weights + optimizer state alone for lora/qlora (the frozen base is not saved). Offloaded
    state (``memory.offload_host_bytes``, ZeRO-Offload) lives in host RAM for the whole run. The rule
    replaces the 1.5–2× node-GPU-memory rule of thumb, which is for full training of large models and
    rejects a single RTX 4090 for a 7B LoRA or QLoRA."""
    return HOST_RAM_SYSTEM_GB + gpn * (HOST_RAM_PER_GPU_GB + stage_gb + offload_gb)


def host_ram_reason(offer: Offer, stage_gb: float, offload_gb: float, settings: SizingSettings) -> Reason | None:
    if settings.host_ram_ratio is not None:
        return None  # the project's ratio rule applies instead (offer_reasons)
    gpn = offer.gpus_per_node
    need = host_ram_need_gb(gpn, stage_gb, offload_gb)
    if offer.ram_gb >= need - 1e-9:
        return None
    offloaded = (
        f" + {_fmt(gpn * offload_gb)} GB of optimizer state offloaded to the CPU (ZeRO-Offload)" if offload_gb else ""
    )
    return Reason(
        Rule.HOST_RAM,
        f"host RAM {_fmt(offer.ram_gb)} GB < {_fmt(need)} GB per node: {HOST_RAM_SYSTEM_GB:g} GB system + {gpn} × {HOST_RAM_PER_GPU_GB:g} GB "
        f"per GPU (training process, data loaders, pinned buffers) + {_fmt(gpn * stage_gb)} GB to stage a checkpoint of the node's trainable state{offloaded}",
        short=f"needs {_fmt(need)} GB per node, {_fmt(offer.ram_gb)} GB installed",
    )


def fabric_reason(offer: Offer, nodes: int, settings: SizingSettings) -> Reason | None:
    fabric = offer.fabric_gbps
    if nodes > 1 and fabric < settings.min_inter_node_gbps - 1e-9:
        have = (
            "no inter-node fabric" if offer.inter_node == "none" else f"{offer.inter_node} ({fabric:g} Gb/s per node)"
        )
        return Reason(
            Rule.FABRIC,
            f"multi-node needs ≥{settings.min_inter_node_gbps:g} Gb/s fabric (sizing.min_inter_node_gbps); offer has {have}",
        )
    return None


def memory_reason(
    p: Profile, least: Parallelism, mem: MemoryBreakdown, n_gpus: int, g: GPU, mem_cap_bytes: float
) -> Reason:
    """No strategy fits: quote the leanest one's per-GPU need against the usable capacity. When the
    activations of one sequence alone overflow the GPU, say that the sequence needs context parallelism,
    which the engine does not model (an honest rejection rather than a made-up fit)."""
    ck = "checkpointing" if least.checkpointing else "no checkpointing"
    if least.optimizer == "adam8bit":
        ck += ", 8-bit Adam"
    if least.offload:
        ck += ", the optimizer offloaded to the CPU (ZeRO-Offload)"
    extra = ""
    if least.pipeline_parallel > 1:
        extra += f", PP{least.pipeline_parallel}"
    if least.expert_parallel > 1:
        extra += f", EP{least.expert_parallel}"
    if n_gpus // (least.tensor_parallel * least.pipeline_parallel) > 1:
        how = f"ZeRO-{least.zero_stage}, TP{least.tensor_parallel}{extra}, {ck} and micro-batch {least.micro_batch} on {n_gpus} GPUs"
    elif least.tensor_parallel > 1 or least.pipeline_parallel > 1:
        how = f"TP{least.tensor_parallel}{extra} over all {n_gpus} GPUs, {ck} and micro-batch {least.micro_batch}"
    else:
        how = f"{ck} and micro-batch {least.micro_batch} on one GPU"
    # one unit, GB (10^9 bytes): the datasheet's "24 GB" is a binary capacity, written out as GiB → GB
    text = (
        f"needs {mem.total:.1f} GB per GPU even with {how}; {g.id} has {mem_cap_bytes / GB:.1f} GB usable "
        f"(datasheet {g.memory_gb:g} GiB = {g.capacity_gb:.2f} GB)"
    )
    if mem.activations * GB > mem_cap_bytes / 2:
        text += f"; sequence length {p.s:,} needs context parallelism, which is not modelled"
    return Reason(Rule.GPU_MEMORY, text, short=f"needs {mem.total:.1f} GB per GPU, {mem_cap_bytes / GB:.1f} GB usable")


def precision_reason(p: Profile, g: GPU) -> Reason | None:
    """precision fp8 needs FP8 tensor cores (a GPU row with fp8_dense_tflops)."""
    if not p.fp8 or g.fp8_dense_tflops is not None:
        return None
    return Reason(
        Rule.PRECISION,
        f"{g.id} has no FP8 tensor cores; precision fp8 needs a Hopper, Ada, Blackwell or MI300-class GPU (or use precision bf16)",
    )


def efficiency_reason(eff: float, offer: Offer, nodes: int, g: GPU, settings: SizingSettings) -> Reason | None:
    if eff >= settings.min_efficiency - 1e-12:
        return None
    link = offer.intra_node + (f" inside, {offer.inter_node} between nodes" if nodes > 1 else " inside the node")
    return Reason(
        Rule.INTERCONNECT_BOUND,
        f"interconnect-bound: scaling efficiency {eff:.2f} < sizing.min_efficiency {settings.min_efficiency:g} on {nodes} × {offer.gpus_per_node} × {g.id} ({link})",
    )


def nvme_reason(p: Profile, offer: Offer, nodes: int) -> Reason | None:
    need_tb = (p.dataset_tb + p.kept * p.ckpt_bytes / TB) / nodes
    if offer.nvme_tb >= need_tb - 1e-9:
        return None
    return Reason(
        Rule.NVME,
        f"needs {need_tb:.3g} TB of NVMe per node (dataset {p.dataset_tb:g} TB + {p.kept} checkpoint(s) of "
        f"{p.ckpt_bytes / TB:.3g} TB, sharded over {nodes} node(s)); offer has {offer.nvme_tb:g} TB",
    )
