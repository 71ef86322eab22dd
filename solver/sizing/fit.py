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
from procure.solver.reasons import Clauses, Reason, Rule, say

from .constants import DATA_LOADER_WORKERS, FIT_MARGIN, HOST_RAM_PER_GPU_GB, HOST_RAM_SYSTEM_GB
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
    return Reason.of(
        Rule.REGION,
        say(
            "team in {area} and offer in {region} are on opposite sides of the mainland-China border; "
            "network line '{line}' is not a premium line (sizing.premium_lines: {lines})",
            area=team_area,
            region=offer.region,
            line=offer.network_line,
            lines=", ".join(settings.premium_lines),
        ),
    )


def offer_reasons(p: Profile, offer: Offer, g: GPU, settings: SizingSettings, team_area: str | None) -> list[Reason]:
    """Rules that hold for every node count of ``offer``: allowed GPUs, region, host RAM, CPU cores."""
    gpn = offer.gpus_per_node
    out: list[Reason] = []
    if p.allowed is not None and offer.gpu not in p.allowed:
        out.append(
            Reason.of(
                Rule.GPU_NOT_ALLOWED,
                say(
                    "{gpu} is not in the workload's allowed_gpus ({allowed})",
                    gpu=offer.gpu,
                    allowed=", ".join(sorted(p.allowed)),
                ),
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
                Reason.of(
                    Rule.HOST_RAM,
                    # the rule of thumb compares nominal figures: the datasheets' GiB counted as GB, like the RAM's
                    say(
                        "host RAM {ram} GB < {ratio} × the node's GPU memory ({gpn} × {gib} GiB, counted at its "
                        "nominal {node_gb} GB) = {need} GB (sizing.host_ram_ratio)",
                        ram=_fmt(offer.ram_gb),
                        ratio=f"{settings.host_ram_ratio:g}",
                        gpn=gpn,
                        gib=f"{g.memory_gb:g}",
                        node_gb=_fmt(node_gpu_gb),
                        need=_fmt(need_ram),
                    ),
                )
            )
    cores_per_gpu = offer.cpu_cores / gpn
    need_cores = settings.cpu_cores_per_gpu if settings.cpu_cores_per_gpu is not None else 1 + DATA_LOADER_WORKERS
    if cores_per_gpu < need_cores - 1e-9:
        out.append(
            Reason.of(
                Rule.CPU_CORES,
                say(
                    "{per_gpu} CPU cores per GPU ({cores} cores / {gpn} GPUs) < {need} required (sizing.cpu_cores_per_gpu)"
                    if gpn > 1
                    else "{per_gpu} CPU cores per GPU ({cores} cores / {gpn} GPU) < {need} required (sizing.cpu_cores_per_gpu)",
                    per_gpu=f"{cores_per_gpu:.3g}",
                    cores=offer.cpu_cores,
                    gpn=gpn,
                    need=f"{need_cores:g}",
                ),
            )
        )
    return out


def host_ram_need_gb(gpn: int, stage_gb: float, offload_gb: float = 0.0, activations_gb: float = 0.0) -> float:
    """Host RAM one node needs (GB): HOST_RAM_SYSTEM_GB + gpn × (HOST_RAM_PER_GPU_GB + the GPU's checkpoint
    staging + its offloaded optimizer state + its offloaded activations).

    Staging (``memory.checkpoint_stage_bytes``): PyTorch distributed checkpointing's async_save copies each
    rank's state dict to CPU memory before writing it, so the node must hold its GPUs' trainable-state
    shards once (torch.distributed.checkpoint docs): weights + optimizer state for full training, the
    adapter's weights + optimizer state alone for lora/qlora (the frozen base is not saved). Offloaded
    state (``memory.offload_host_bytes``, ZeRO-Offload) lives in host RAM for the whole run. The rule
    replaces the 1.5–2× node-GPU-memory rule of thumb, which is for full training of large models and
    rejects a single RTX 4090 for a 7B LoRA or QLoRA. Offloaded activations (``activation_offload``,
    ``memory.activation_host_bytes``) stay in host RAM for the step."""
    return HOST_RAM_SYSTEM_GB + gpn * (HOST_RAM_PER_GPU_GB + stage_gb + offload_gb + activations_gb)


def host_ram_reason(
    offer: Offer, stage_gb: float, offload_gb: float, settings: SizingSettings, activations_gb: float = 0.0
) -> Reason | None:
    """The node's host RAM against ``host_ram_need_gb``. With the project's ``host_ram_ratio`` that ratio
    rule replaces this one (offer_reasons), except that state or activations offloaded to host RAM must
    still fit in it: an offload layout is never called a fit on RAM no node has."""
    gpn = offer.gpus_per_node
    need = host_ram_need_gb(gpn, stage_gb, offload_gb, activations_gb)
    if offer.ram_gb >= need - 1e-9:
        return None
    if settings.host_ram_ratio is not None and not (offload_gb or activations_gb):
        return None  # the project's ratio rule applies instead (offer_reasons)
    offloaded = (
        say(" + {gb} GB of optimizer state offloaded to the CPU (ZeRO-Offload)", gb=_fmt(gpn * offload_gb))
        if offload_gb
        else ""
    )
    if activations_gb:
        offloaded = say(
            "{before} + {gb} GB of activation checkpoints offloaded to host RAM (activation_offload)",
            before=offloaded,
            gb=_fmt(gpn * activations_gb),
        )
    return Reason.of(
        Rule.HOST_RAM,
        say(
            "host RAM {ram} GB < {need} GB per node: {system} GB system + {gpn} × {per_gpu} GB per GPU (training "
            "process, data loaders, pinned buffers) + {stage} GB to stage a checkpoint of the node's trainable "
            "state{offloaded}",
            ram=_fmt(offer.ram_gb),
            need=_fmt(need),
            system=f"{HOST_RAM_SYSTEM_GB:g}",
            gpn=gpn,
            per_gpu=f"{HOST_RAM_PER_GPU_GB:g}",
            stage=_fmt(gpn * stage_gb),
            offloaded=offloaded,
        ),
        short=say("needs {need} GB per node, {ram} GB installed", need=_fmt(need), ram=_fmt(offer.ram_gb)),
    )


def fabric_reason(offer: Offer, nodes: int, settings: SizingSettings) -> Reason | None:
    fabric = offer.fabric_gbps
    if nodes > 1 and fabric < settings.min_inter_node_gbps - 1e-9:
        have = (
            say("no inter-node fabric")
            if offer.inter_node == "none"
            else say("{fabric} ({gbps} Gb/s per node)", fabric=offer.inter_node, gbps=f"{fabric:g}")
        )
        return Reason.of(
            Rule.FABRIC,
            say(
                "multi-node needs ≥{gbps} Gb/s fabric (sizing.min_inter_node_gbps); offer has {have}",
                gbps=f"{settings.min_inter_node_gbps:g}",
                have=have,
            ),
        )
    return None


def memory_reason(
    p: Profile, least: Parallelism, mem: MemoryBreakdown, n_gpus: int, g: GPU, mem_cap_bytes: float
) -> Reason:
    """No strategy fits: quote the leanest one's per-GPU need against the usable capacity (after the
    FIT_MARGIN safety margin). When the workload pins its layout, the leanest within the pinned keys, and
    say so. When the activations alone overflow half the GPU, name the knobs that move them."""
    ck = say(
        "{base}{adam}{offload}",
        base=say("checkpointing") if least.checkpointing else say("no checkpointing"),
        adam=say(", 8-bit Adam") if least.optimizer == "adam8bit" else "",
        offload=say(", the optimizer offloaded to the CPU (ZeRO-Offload)") if least.offload else "",
    )
    extra = ""
    if least.tensor_parallel > 1 and not least.sequence_parallel:
        extra += ", no SP"
    if least.context_parallel > 1:
        extra += f", CP{least.context_parallel}"
    if least.pipeline_parallel > 1:
        extra += f", PP{least.pipeline_parallel}"
    if least.expert_parallel > 1:
        extra += f", EP{least.expert_parallel}"
    shape = dict(ck=ck, mb=least.micro_batch, n=n_gpus, tp=least.tensor_parallel, extra=extra)
    if n_gpus // (least.tensor_parallel * least.pipeline_parallel) > 1:
        how = say("ZeRO-{zero}, TP{tp}{extra}, {ck} and micro-batch {mb} on {n} GPUs", zero=least.zero_stage, **shape)
    elif least.tensor_parallel > 1 or least.pipeline_parallel > 1:
        how = say("TP{tp}{extra} over all {n} GPUs, {ck} and micro-batch {mb}", **shape)
    else:
        how = say("{ck} and micro-batch {mb} on one GPU", ck=ck, mb=least.micro_batch)
    # one unit, GB (10^9 bytes): the datasheet's "24 GB" is a binary capacity, written out as GiB → GB
    context = (
        say(
            "; the activations of sequence length {s} take {act} GB: context parallelism, activation_offload "
            "or loss: chunked lower them",
            s=f"{p.s:,}",
            act=f"{mem.activations:.1f}",
        )
        if mem.activations * GB > mem_cap_bytes / 2
        else ""
    )
    if mem.load_peak > mem.step:
        context = say(
            "{context}; loading the QLoRA base peaks at {peak} GB (quantize_on_load: gpu; cpu avoids it)",
            context=context,
            peak=f"{mem.load_peak:.1f}",
        )
    pinned = say("the workload's pinned layout, ") if p.pin else ""
    text = say(
        "needs {total} GB per GPU even with {pinned}{how}; {gpu} has {cap} GB usable (datasheet {gib} GiB = {gb} GB, "
        "less a {margin} % safety margin){context}",
        total=f"{mem.total:.1f}",
        pinned=pinned,
        how=how,
        gpu=g.id,
        cap=f"{mem_cap_bytes / GB:.1f}",
        gib=f"{g.memory_gb:g}",
        gb=f"{g.capacity_gb:.2f}",
        margin=f"{FIT_MARGIN * 100:g}",
        context=context,
    )
    return Reason.of(
        Rule.GPU_MEMORY, text, short=f"needs {mem.total:.1f} GB per GPU, {mem_cap_bytes / GB:.1f} GB usable"
    )


def precision_reason(p: Profile, g: GPU) -> Reason | None:
    """precision fp8 needs FP8 tensor cores (a GPU row with fp8_dense_tflops)."""
    if not p.fp8 or g.fp8_dense_tflops is not None:
        return None
    return Reason.of(
        Rule.PRECISION,
        say(
            "{gpu} has no FP8 tensor cores; precision fp8 needs a Hopper, Ada, Blackwell, MI300- or MI350-class GPU "
            "(or use precision bf16)",
            gpu=g.id,
        ),
    )


def efficiency_reason(eff: float, offer: Offer, nodes: int, g: GPU, settings: SizingSettings) -> Reason | None:
    if eff >= settings.min_efficiency - 1e-12:
        return None
    link = (
        say("{intra} inside, {inter} between nodes", intra=offer.intra_node, inter=offer.inter_node)
        if nodes > 1
        else say("{intra} inside the node", intra=offer.intra_node)
    )
    return Reason.of(
        Rule.INTERCONNECT_BOUND,
        say(
            "interconnect-bound: scaling efficiency {eff} < sizing.min_efficiency {least} on {nodes} × {gpn} × {gpu} ({link})",
            eff=f"{eff:.2f}",
            least=f"{settings.min_efficiency:g}",
            nodes=nodes,
            gpn=offer.gpus_per_node,
            gpu=g.id,
            link=link,
        ),
    )


def nvme_reason(p: Profile, offer: Offer, nodes: int) -> Reason | None:
    need_tb = (p.dataset_tb + p.kept * p.ckpt_bytes / TB) / nodes
    if offer.nvme_tb >= need_tb - 1e-9:
        return None
    return Reason.of(
        Rule.NVME,
        say(
            "needs {need} TB of NVMe per node (dataset {data} TB + {kept} checkpoint(s) of {ckpt} TB, sharded over "
            "{nodes} node(s)); offer has {have} TB",
            need=f"{need_tb:.3g}",
            data=f"{p.dataset_tb:g}",
            kept=p.kept,
            ckpt=f"{p.ckpt_bytes / TB:.3g}",
            nodes=nodes,
            have=f"{offer.nvme_tb:g}",
        ),
    )


def layout_reason(p: Profile, n_gpus: int, gpn: int) -> Reason:
    """The workload's pinned layout has no valid placement on ``n_gpus`` GPUs whose GPU-link domain
    (``shapes.scale_up_gpus``: the node, or a group of nodes of a rack-scale domain such as NVL72) holds
    ``gpn``: which product does not divide what (tensor parallelism stays inside the domain; TP × CP × PP
    divides the GPUs; expert parallelism divides the data-parallel degree)."""
    pin = p.pin
    t, cp, pp, ep = (
        pin.get(k, 1) for k in ("tensor_parallel", "context_parallel", "pipeline_parallel", "expert_parallel")
    )
    why: list = []
    if t > gpn or gpn % t:
        why.append(
            say(
                "tensor_parallel {t} must divide the {gpn} GPUs of a GPU-link domain (TP stays inside a node, "
                "or a rack-scale domain such as NVL72)",
                t=t,
                gpn=gpn,
            )
        )
    if n_gpus % (t * cp * pp):
        why.append(
            say(
                "tensor_parallel {t} × context_parallel {cp} × pipeline_parallel {pp} = {prod} does not divide {n} GPUs",
                t=t,
                cp=cp,
                pp=pp,
                prod=t * cp * pp,
                n=n_gpus,
            )
        )
    elif ep > 1 and (n_gpus // (t * pp)) % ep:
        why.append(
            say(
                "expert_parallel {ep} does not divide the data-parallel degree {d} ({n} GPUs / (TP{t} × PP{pp}))",
                ep=ep,
                d=n_gpus // (t * pp),
                n=n_gpus,
                t=t,
                pp=pp,
            )
        )
    if not why:
        why.append(say("no placement of the pinned layout on {n} GPUs ({gpn} per GPU-link domain)", n=n_gpus, gpn=gpn))
    return Reason.of(
        Rule.OTHER,
        say("the workload's pinned layout does not fit this shape: {why}", why=Clauses(tuple(why), "; ")),
        short=say("pinned layout does not divide {n} GPUs", n=n_gpus),
    )
