"""Shapes: every offer × node count of a workload, each with its strategy, hours and fit verdict.

A *shape* is one offer × a node count. For every shape the engine picks the fastest parallel /
memory-saving strategy that fits in GPU memory (ties → less memory; search.py), estimates wall-clock
hours (compute.py) and runs the fit rules (fit.py). Every rejected shape keeps its reasons.
"""

from __future__ import annotations

import dataclasses

from procure.models.gpu import GPU, gpu_table
from procure.models.offer import Offer
from procure.models.project import Project, SizingSettings, Workload
from procure.models.units import GB
from procure.solver.reasons import Reason

from . import fit
from .compute import Shape, default_mfu, fp8_gemm_speedup, step_time
from .constants import HOST_MEMORY_BANDWIDTH_CONSUMER_GBS, HOST_MEMORY_BANDWIDTH_SERVER_GBS, PCIE_ACHIEVED_FRACTION
from .goodput import in_step_hours
from .memory import (
    activation_host_bytes,
    breakdown,
    checkpoint_stage_bytes,
    load_peak_bytes,
    memory_parts,
    offload_host_bytes,
    usable_memory_gb,
)
from .profile import Profile, profile
from .reference import is_reference
from .results import Candidate, MemoryBreakdown, Parallelism, WorkloadSizing
from .search import best_strategy


def node_counts(cap: int) -> list[int]:
    """1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, ... (powers of two and 3·2^k) up to ``cap``."""
    out, k = [], 1
    while k <= cap:
        out.append(k)
        if 3 * k // 2 <= cap and k >= 2:
            out.append(3 * k // 2)
        k *= 2
    return sorted(set(out))


def node_cap(offer: Offer, settings: SizingSettings) -> tuple[int, str]:
    """The most nodes a job may take on ``offer``, and what sets it: the offer's ``max_nodes`` or, when the
    project sets it lower, ``sizing.max_nodes_per_job`` (no cap by default). Reference offers take their own count."""
    if is_reference(offer) or settings.max_nodes_per_job is None or settings.max_nodes_per_job >= offer.max_nodes:
        return offer.max_nodes, f"the offer's max_nodes {offer.max_nodes}"
    return (
        settings.max_nodes_per_job,
        f"sizing.max_nodes_per_job {settings.max_nodes_per_job} (the offer allows {offer.max_nodes})",
    )


def tried_counts(offer: Offer, settings: SizingSettings) -> list[int]:
    """The node counts sized on ``offer``: ``node_counts`` up to ``node_cap``; a reference offer also its own count."""
    cap, _why = node_cap(offer, settings)
    counts = node_counts(cap)
    if is_reference(offer) and cap not in counts:
        counts.append(cap)
    return counts


def intra_bw(gpu: GPU, offer_intra: str, gpn: int) -> float:
    """GB/s per direction between GPUs of one node: nvswitch/nvlink gpu_link_gbs/2; pcie pcie_gbs/2;
    a 2-way bridge only links pairs, so a larger server of bridged PCIe cards counts as pcie."""
    if offer_intra == "pcie":
        return gpu.pcie_gbs / 2
    if offer_intra == "nvlink" and gpu.form_factor in ("pcie", "consumer") and gpn > 2:
        return gpu.pcie_gbs / 2  # bridges link pairs only; the ring crosses PCIe
    return gpu.gpu_link_gbs / 2


def scale_up_gpus(gpu: GPU, offer: Offer, nodes: int) -> int:
    """GPUs of ``nodes`` nodes of ``offer`` that one GPU-link domain joins: the node, or — for a GPU with a
    rack-scale domain (``scale_up_domain_gpus``: GB200/GB300 NVL72, CloudMatrix 384) on an offer whose GPUs
    are linked (``intra_node`` nvswitch or nvlink, not pcie) — the most whole nodes, at most the domain's,
    that divide the job into equal groups: 16 nodes of 4 GB200 are one 64-GPU domain; 24 nodes (96 GPUs)
    are two 48-GPU groups, the even split of a job over two racks."""
    gpn = offer.gpus_per_node
    domain = gpu.scale_up_domain_gpus
    if domain is None or offer.intra_node == "pcie" or domain < 2 * gpn or nodes < 2:
        return gpn
    per_domain = min(domain // gpn, nodes)
    return gpn * max(k for k in range(1, per_domain + 1) if nodes % k == 0)


def _shape(g: GPU, offer: Offer, nodes: int, mfu: float) -> Shape:
    """The step-time model's view of ``nodes`` nodes of ``offer``. Its "node" (``gpn``, ``nodes``) is the
    GPU-link domain (``scale_up_gpus``): the server, or a group of servers of a rack-scale domain, inside which
    tensor, expert and pipeline traffic runs at the GPU link and TP may reach the domain's size; the fabric and
    the host memory of the group's servers are pooled, so each GPU keeps its server's share of both."""
    sh = Shape()
    gpn = offer.gpus_per_node
    dom = scale_up_gpus(g, offer, nodes)
    servers = dom // gpn  # servers per domain group
    sh.gpus, sh.gpn, sh.nodes = nodes * gpn, dom, nodes // servers
    sh.bw_intra = intra_bw(g, offer.intra_node, gpn) * GB  # bytes/s
    # bytes/s per domain group: its servers' fabric together
    sh.bw_inter = offer.fabric_gbps / 8.0 * GB * servers if offer.fabric_gbps > 0 else 1.0
    sh.peak = g.bf16_dense_tflops * 1e12
    sh.mfu = mfu
    sh.mem_cap = usable_memory_gb(g) * GB
    sh.max_tp = dom
    sh.gemm_speed = fp8_gemm_speedup(g)
    sh.pcie = g.pcie_gbs / 2 * PCIE_ACHIEVED_FRACTION * GB
    sh.hbm_bw = g.memory_bandwidth_gbs * GB
    sh.host_bw = (
        (HOST_MEMORY_BANDWIDTH_CONSUMER_GBS if g.form_factor == "consumer" else HOST_MEMORY_BANDWIDTH_SERVER_GBS)
        * GB
        * servers
    )
    return sh


def workload_mfu(workload: Workload, g: GPU) -> float:
    """The workload's ``mfu``, else ``default_mfu`` for its GPU class, method and MoE-ness."""
    if workload.mfu is not None:
        return workload.mfu
    return default_mfu(g, workload.method, workload.model.is_moe, workload.model.hidden_size)


def size_workload(
    workload: Workload, offers: list[Offer], settings: SizingSettings, team_area: str | None, gpus=None
) -> WorkloadSizing:
    """Every shape (offer × node count) of ``workload`` with its fit verdict, strategy and hours."""
    table = gpus if gpus is not None else gpu_table()
    p = profile(workload, settings)
    total_flops = p.flops_tok * p.D
    unsharded = breakdown(memory_parts(p, Parallelism(0, 1, False, 1, precision=p.precision), 1))
    candidates: list[Candidate] = []
    cache: dict[tuple, tuple] = {}
    for offer in offers:
        g: GPU = table[offer.gpu]
        gpn = offer.gpus_per_node
        counts = tried_counts(offer, settings)
        offer_reasons = fit.offer_reasons(p, offer, g, settings, team_area)
        bw_intra = intra_bw(g, offer.intra_node, gpn)
        mfu = workload_mfu(workload, g)
        for nodes in counts:
            n_gpus = nodes * gpn
            reasons: list[Reason] = list(offer_reasons)
            fabric_reason = fit.fabric_reason(offer, nodes, settings)
            if fabric_reason:
                reasons.append(fabric_reason)
            key = (g.id, gpn, nodes, offer.intra_node, bw_intra, offer.fabric_gbps, mfu)
            hit = cache.get(key)
            if hit is None:
                sh = _shape(g, offer, nodes, mfu)
                st, parts, third, eff0 = best_strategy(p, sh)
                laid = st if st is not None else third
                host = None
                mem0 = breakdown(parts)
                if laid is not None:
                    host = (
                        checkpoint_stage_bytes(p, laid, sh.gpus) / GB,
                        offload_host_bytes(p, laid, sh.gpus) / GB,
                        activation_host_bytes(p, laid) / GB,
                    )
                    peak = load_peak_bytes(p, laid.tensor_parallel, laid.pipeline_parallel) / GB
                    mem0 = dataclasses.replace(mem0, load_peak=peak)
                hit = (st, mem0, third, eff0, sh.mem_cap, host)
                cache[key] = hit
            strategy, mem, third, eff, mem_cap, host = hit
            hours = gpu_hours = host_ram = None
            if host is not None:
                host_ram = fit.host_ram_need_gb(gpn, *host)  # shown for a rejected layout too
            if strategy is None and third is None:
                reasons.insert(len(offer_reasons), fit.layout_reason(p, n_gpus, scale_up_gpus(g, offer, nodes)))
                mem = None
            elif strategy is None:
                reasons.insert(len(offer_reasons), fit.memory_reason(p, third, mem, n_gpus, g, mem_cap))
            else:
                hours = third
                gpu_hours = hours * n_gpus
                stage_gb, offload_gb, act_gb = host
                ram = fit.host_ram_reason(offer, stage_gb, offload_gb, settings, act_gb)
                if ram:
                    reasons.append(ram)
                eff_reason = fit.efficiency_reason(eff, offer, nodes, g, settings)
                if eff_reason:
                    reasons.append(eff_reason)
            nvme = fit.nvme_reason(p, offer, nodes)
            if nvme:
                reasons.append(nvme)
            candidates.append(
                Candidate(
                    workload=p.name,
                    offer_id=offer.id,
                    gpu=g.id,
                    nodes=nodes,
                    gpus=n_gpus,
                    strategy=strategy,
                    per_gpu_memory_gb=mem.total if mem is not None else None,
                    memory=mem,
                    fits=not reasons,
                    reasons=tuple(reasons),
                    hours=hours,
                    gpu_hours=gpu_hours,
                    efficiency=eff,
                    host_ram_gb=host_ram,
                    mfu=mfu,
                    **in_step_rates(p, g, hours, n_gpus),
                )
            )
    return WorkloadSizing(workload=workload, total_flops=total_flops, memory_gb=unsharded, candidates=candidates)


def in_step_rates(p: Profile, g: GPU, hours: float | None, n_gpus: int) -> dict[str, float | None]:
    """What ``hours`` mean per GPU in step (goodput and execution factor taken out): tokens/s per GPU and
    the MFU, the one definition the output uses: the model's FLOPs per token (6·N + causal attention
    6·L·s·h, no recomputation) × tokens/s ÷ dense BF16 peak."""
    if hours is None or hours <= 0:
        return {"in_step_mfu": None, "tokens_per_gpu_s": None}
    seconds = in_step_hours(hours, n_gpus, p.effective_time, p.checkpoint_hours) * 3600.0 * n_gpus
    return {
        "in_step_mfu": p.flops_tok * p.D / (seconds * g.bf16_dense_tflops * 1e12),
        "tokens_per_gpu_s": p.D / seconds,
    }


def size_project(project: Project, offers: list[Offer]) -> list[WorkloadSizing]:
    table = gpu_table()
    return [size_workload(w, offers, project.sizing, project.team_area, table) for w in project.workloads]


def evaluate_strategy(
    workload: Workload,
    offer: Offer,
    nodes: int,
    strategy: Parallelism,
    settings: SizingSettings | None = None,
    gpus=None,
) -> tuple[float, float, MemoryBreakdown]:
    """(hours, efficiency, per-GPU memory) of ``workload`` on ``nodes`` nodes of ``offer`` under a
    fixed ``strategy`` — no fit checks; for what-if questions and tests."""
    table = gpus if gpus is not None else gpu_table()
    g: GPU = table[offer.gpu]
    p = profile(workload, settings)
    sh = _shape(g, offer, nodes, workload_mfu(workload, g))
    t, pp, ep = strategy.tensor_parallel, strategy.pipeline_parallel, strategy.expert_parallel
    if sh.gpus % (t * pp) or sh.gpn % t:
        raise ValueError(f"TP{t} × PP{pp} does not divide {sh.gpus} GPUs / {sh.gpn} per GPU-link domain")
    if (sh.gpus // (t * pp)) % ep:
        raise ValueError(f"EP{ep} does not divide the data-parallel degree {sh.gpus // (t * pp)}")
    timed = step_time(
        p,
        strategy.zero_stage,
        t,
        pp,
        ep,
        strategy.checkpointing,
        strategy.micro_batch,
        strategy.schedule,
        strategy.virtual_stages,
        sh,
        strategy.offload,
    )
    if timed is None:
        raise ValueError(f"micro-batch {strategy.micro_batch} would exceed the global batch on {sh.gpus} GPUs")
    mem = breakdown(memory_parts(p, strategy, sh.gpus))
    return timed[0], timed[1], mem
