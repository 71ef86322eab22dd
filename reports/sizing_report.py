"""Sizing results for people (rich console) and programs (JSON).

Reads ``solver.sizing`` result objects only. Memory is GB = 10^9 bytes per GPU.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from procure.solver.reasons import say
from procure.solver.sizing.band import evidence_note
from procure.solver.sizing.constants import constant
from procure.solver.sizing.goodput import goodput_of

from .i18n import N_
from .tables import rounded

HOURS_BAND_P10, HOURS_BAND_P90 = constant("HOURS_BAND_P10"), constant("HOURS_BAND_P90")
FIT_MARGIN = constant("FIT_MARGIN")
EXECUTION_FACTOR = constant("EXECUTION_FACTOR")

#: Rejected shapes shown per offer in the console (the rest are counted, not listed).
REJECTIONS_PER_OFFER = 1


def _r(x: float | None, nd: int = 3) -> float | None:
    return rounded(x, nd)  # sizing figures keep three decimals


def _strategy_json(st) -> dict[str, Any] | None:
    if st is None:
        return None
    return {
        "zero_stage": st.zero_stage,
        "tensor_parallel": st.tensor_parallel,
        "checkpointing": st.checkpointing,
        "micro_batch": st.micro_batch,
        "pipeline_parallel": st.pipeline_parallel,
        "expert_parallel": st.expert_parallel,
        "precision": st.precision,
        "pipeline_schedule": st.schedule or None,
        "virtual_stages": st.virtual_stages,
        "optimizer": st.optimizer,
        "offload": st.offload,
        "sequence_parallel": st.sequence_parallel,
        "context_parallel": st.context_parallel,
    }


def _memory_json(m) -> dict[str, float | None]:
    return {
        "weights": _r(m.weights),
        "gradients": _r(m.gradients),
        "optimizer": _r(m.optimizer),
        "activations": _r(m.activations),
        "overhead": _r(m.overhead),
        "load_peak": _r(m.load_peak),
    }


def _candidate_json(sz, c) -> dict[str, Any]:
    return {
        "gpu": c.gpu,
        "gpus": c.gpus,
        "nodes": c.nodes,
        "offer": c.offer_id,
        "strategy": _strategy_json(c.strategy),
        "per_gpu_memory_gb": _r(c.per_gpu_memory_gb),
        "memory_gb": _memory_json(c.memory) if c.memory is not None else None,
        "fits": c.fits,
        "reason": c.reason,
        "hours": _r(c.hours),
        "hours_p10": _r(c.hours_p10),
        "hours_p90": _r(c.hours_p90),
        "gpu_hours": _r(c.gpu_hours),
        "efficiency": _r(c.efficiency),
        # one MFU: model FLOPs per token (6·N + causal attention) × tokens/s ÷ dense BF16 peak
        "mfu": _r(c.in_step_mfu, 4),
        # the GEMM-rate constant the step was sized with (not an MFU; compute.default_mfu)
        "matmul_rate": _r(c.mfu, 4),
        "tokens_per_gpu_s": _r(c.tokens_per_gpu_s, 1),
        "goodput": _r(
            goodput_of(c.hours, c.gpus, sz.workload.effective_time, sz.workload.checkpoint_every_hours),
            4,
        ),
        "execution_factor": EXECUTION_FACTOR if c.hours is not None else None,
        "relative_speed": _r(relative_speeds(sz).get(c.gpu) if c.fits else None, 3),
        "host_ram_gb": _r(c.host_ram_gb),
        # when the job's stack era lies outside the band's evidence (band.evidence_note)
        "band_note": _band_note(c.gpu, sz.workload),
    }


def _gpu_count_json(sz, a) -> dict[str, Any]:
    """``size --gpu`` without ``--gpus``: the answer for one GPU (solver.sizing.howmany)."""
    return {
        "gpu": a.gpu,
        "deadline_hours": _r(a.deadline_hours),
        "tried_up_to_gpus": a.tried_up_to,
        "fewest_gpus": _candidate_json(sz, a.fewest) if a.fewest is not None else None,
        "by_deadline": _candidate_json(sz, a.by_deadline) if a.by_deadline is not None else None,
        "smallest_memory": {
            "gpus": a.fewest.gpus,
            "strategy": _strategy_json(a.leanest),
            "per_gpu_memory_gb": _r(a.leanest_memory.total),
            "memory_gb": _memory_json(a.leanest_memory),
        }
        if a.leanest is not None and a.fewest is not None and a.leanest_memory is not None
        else None,
    }


def stack_json(w) -> dict[str, Any]:
    """The memory assumptions of a job's stack: its knobs (with the defaults taken) and the fit margin."""
    return {
        "loss": w.loss,
        "activation_offload": w.activation_offload,
        "quantize_on_load": w.quantize_on_load if w.method == "qlora" else None,
        "fit_margin": FIT_MARGIN,
        "pinned_layout": w.layout.pinned() if w.layout is not None else None,
    }


def sizing_to_json(sizings: Iterable) -> dict[str, Any]:
    """``{"workloads": [{name, total_flops, memory_gb{...}, candidates[...]}]}`` (see docs/sizing.md)."""
    out = []
    for sz in sizings:
        out.append(
            {
                "name": sz.workload.name,
                "total_flops": float(sz.total_flops),
                "memory_gb": _memory_json(sz.memory_gb),
                "stack": stack_json(sz.workload),
                "candidates": [_candidate_json(sz, c) for c in sz.candidates],
                **({"gpu_counts": [_gpu_count_json(sz, a) for a in sz.gpu_counts]} if sz.gpu_counts else {}),
            }
        )
    return {"workloads": out}


def _band_note(gpu_id: str, w) -> str | None:
    """The band's evidence note for a job on ``gpu_id`` (None when the job lies inside the evidence)."""
    from procure.models.gpu import gpu_table

    table = gpu_table()
    gid = table.resolve(gpu_id)
    note = evidence_note(table[gid].architecture, w.flash_attention) if gid is not None else None
    return None if note is None else str(note)


def band_notes(sz) -> list[tuple[str, str]]:
    """(GPU, note) for each GPU that fits the job and lies outside the band's evidence, in the order shown."""
    out: dict[str, str] = {}
    for c in sz.candidates:
        if c.fits and c.gpu not in out:
            note = _band_note(c.gpu, sz.workload)
            if note:
                out[c.gpu] = note
    return list(out.items())


def relative_speeds(sz) -> dict[str, float]:
    """Each GPU's in-step tokens/s per GPU on this job (its best fitting shape) ÷ the fastest GPU's."""
    best: dict[str, float] = {}
    for c in sz.candidates:
        rate = getattr(c, "tokens_per_gpu_s", None)  # sizings given by hand (tests, what-ifs) may not carry it
        if c.fits and rate:
            best[c.gpu] = max(best.get(c.gpu, 0.0), rate)
    top = max(best.values(), default=0.0)
    return {g: v / top for g, v in best.items()} if top > 0 else {}


def speed_line(sz) -> str | None:
    """ "H100-SXM-80GB = 2.29 × A100-SXM-80GB for pretrain-7b": the fastest GPU against each other GPU sized,
    per GPU in step; None when fewer than two GPUs fit."""
    speeds = relative_speeds(sz)
    if len(speeds) < 2:
        return None
    ranked = sorted(speeds.items(), key=lambda kv: -kv[1])
    top = ranked[0][0]
    parts = ", ".join(f"{escape(top)} = {1.0 / v:.2f} × {escape(g)}" for g, v in ranked[1:])
    return f"  speed per GPU, in step: {parts} for {escape(sz.workload.name)}"


def _num(x: float | None, fmt: str = "{:,.1f}") -> str:
    return "—" if x is None else fmt.format(x)


def _shown(candidates: list) -> tuple[list, int]:
    """Every fitting shape plus the first REJECTIONS_PER_OFFER rejected shapes of each offer; returns
    (rows, number of rejected shapes left out)."""
    shown: list = []
    hidden = 0
    rejected_seen: dict[str, int] = {}
    for c in candidates:
        if c.fits:
            shown.append(c)
            continue
        n = rejected_seen.get(c.offer_id, 0)
        if n < REJECTIONS_PER_OFFER:
            shown.append(c)
        else:
            hidden += 1
        rejected_seen[c.offer_id] = n + 1
    return shown, hidden


def print_sizing(console: Console, sizings: Iterable) -> None:
    """Per workload: the unsharded memory breakdown and a table of shapes. User text (names, offer ids,
    reasons quoting them) is escaped, so rich markup in it prints literally."""
    for sz in sizings:
        w = sz.workload
        m = sz.memory_gb
        console.print(
            f"[bold]{escape(w.name)}[/bold] — {escape(w.model.label)}, {w.method}, {w.tokens_b:g}B tokens, seq {w.seq_len}: "
            f"{sz.total_flops:.3g} FLOPs"
        )
        console.print(
            f"  one GPU, plain DP, micro-batch 1, no checkpointing: weights {m.weights:,.1f} + gradients {m.gradients:,.1f} + "
            f"optimizer {m.optimizer:,.1f} + activations {m.activations:,.1f} + overhead {m.overhead:,.1f} = [bold]{m.total:,.1f} GB[/bold]"
        )
        shown, hidden = _shown(sz.candidates)
        table = Table(show_lines=False, header_style="bold")
        cols: tuple[tuple[str, Literal["left", "right"]], ...] = (
            ("GPU", "left"),
            ("GPUs", "right"),
            ("nodes", "right"),
            ("offer", "left"),
            ("strategy", "left"),
            ("GB/GPU", "right"),
            (N_("host RAM GB/node"), "right"),
            ("hours", "right"),
            ("P10–P90 h", "right"),
            ("GPU-hours", "right"),
            ("eff.", "right"),
            ("MFU in step", "right"),
            ("tok/s/GPU", "right"),
            ("goodput", "right"),
            ("fits / reason", "left"),
        )
        for col, justify in cols:
            table.add_column(col, justify=justify, overflow="fold")
        for c in shown:
            # a rejected shape's hours (e.g. on a shape too slow to scale) are no estimate anyone plans on: "—"
            hours = c.hours if c.fits else None
            table.add_row(
                escape(c.gpu),
                str(c.gpus),
                str(c.nodes),
                escape(c.offer_id),
                c.strategy.label() if c.strategy else "—",
                _num(c.per_gpu_memory_gb),
                _num(c.host_ram_gb, "{:,.0f}"),
                _num(hours),
                "—" if hours is None else f"{c.hours_p10:,.1f}–{c.hours_p90:,.1f}",
                _num(c.gpu_hours if c.fits else None, "{:,.0f}"),
                _num(c.efficiency, "{:.2f}"),
                _num(c.in_step_mfu if c.fits else None, "{:.3f}"),
                _num(c.tokens_per_gpu_s if c.fits else None, "{:,.0f}"),
                _num(goodput_of(hours, c.gpus, w.effective_time, w.checkpoint_every_hours), "{:.3f}"),
                "[green]fits[/green]" if c.fits else f"[red]{escape(c.reason)}[/red]",
            )
        console.print(table)
        console.print(escape(str(stack_line(w))))
        for a in sz.gpu_counts:
            for line in gpu_count_lines(a):
                console.print(escape(str(line)))
        n_fit = sum(1 for c in sz.candidates if c.fits)
        note = f"  {n_fit} of {len(sz.candidates)} shapes fit"
        if hidden:
            note += f"; {hidden} further rejected shapes not listed (first rejection per offer shown)"
        console.print(note)
        if n_fit:
            console.print(
                f"  P10–P90 h: comparable published whole runs (steady pretraining on a tuned stack) took {HOURS_BAND_P10:.2f}× "
                f"to {HOURS_BAND_P90:.2f}× the hours procure estimates for them, each estimated without it "
                "(docs/sizing.md, Uncertainty band)"
            )
            for gpu, band_note in band_notes(sz):
                console.print(f"  P10–P90 h on {escape(gpu)}: {escape(band_note)}")
            console.print(
                "  MFU in step: model FLOPs per second ÷ dense BF16 peak while steps run (the published convention; "
                "MFU_* constants fitted on in-step benchmarks: Megatron-Core, LLM Foundry, IBM FSDP, Llama 3 Table 4); "
                "tok/s/GPU: in step; goodput: the share of wall time that trains (interruptions grow with the GPU "
                f"count and checkpoint_every_hours, GOODPUT_OVERHEAD, JOB_STARTUP_HOURS); hours = in-step hours ÷ "
                f"goodput ÷ execution factor {EXECUTION_FACTOR:.3f} (EXECUTION_FACTOR, the median published whole run "
                "against its in-step estimate, the same for every GPU; its spread is the P10–P90 band: a slower team, "
                "not a slower GPU; docs/sizing.md, Time)"
            )
            line = speed_line(sz)
            if line:
                console.print(line)
        console.print()


def stack_line(w):
    """The memory assumptions the job is sized on, defaults named: the loss, activation offload, QLoRA's
    load, sequence parallelism, the pinned layout and the fit margin."""
    loss = (
        say("loss: chunked (no full logits tensor)")
        if w.loss == "chunked"
        else say("loss: full (bf16 logits + fp32 upcast + fp32 gradient, 10 B per logit; the default)")
    )
    offload = (
        say("activation_offload: true (checkpoints in host RAM)")
        if w.activation_offload
        else say("activation_offload: false (the default)")
    )
    parts: list = [loss, offload]
    if w.method == "qlora":
        parts.append(
            say("quantize_on_load: cpu")
            if w.quantize_on_load == "cpu"
            else say("quantize_on_load: gpu (the default; loading peaks at the NF4 base + one bf16 checkpoint shard)")
        )
    parts.append(say("TP > 1 with sequence parallelism unless the layout says sequence_parallel: false"))
    if w.layout is not None:
        pinned = ", ".join(f"{k} {v}" for k, v in w.layout.pinned().items())
        parts.append(say("layout pinned by the workload: {pinned}; the other keys searched", pinned=pinned))
    parts.append(say("fits keep a {margin} % safety margin of usable GPU memory", margin=f"{FIT_MARGIN * 100:g}"))
    return say("  memory assumptions: {parts}", parts=tuple(parts))


def gpu_count_lines(a) -> list:
    """``size --gpu`` without ``--gpus``: the fewest GPUs that fit, the fewest that finish by the deadline,
    and the smallest-memory layout beside the fastest."""
    if a.fewest is None:
        return [say("  how many {gpu}: none of up to {n} GPUs fits (reasons above)", gpu=a.gpu, n=f"{a.tried_up_to:,}")]
    f = a.fewest
    out = [
        say(
            "  how many {gpu}: the fewest that fit are {n} GPUs, {layout}, {gb} GB per GPU, {hours} h",
            gpu=a.gpu,
            n=f.gpus,
            layout=f.strategy.message() if f.strategy else "—",
            gb=f"{f.per_gpu_memory_gb:,.1f}",
            hours=f"{f.hours:,.1f}",
        )
    ]
    d = a.by_deadline
    if d is None:
        out.append(
            say(
                "  by the deadline ({h} h): no count up to {n} GPUs finishes in time",
                h=f"{a.deadline_hours:,.0f}",
                n=f"{a.tried_up_to:,}",
            )
        )
    else:
        out.append(
            say(
                "  by the deadline ({h} h): {n} GPUs, {layout}, {hours} h",
                h=f"{a.deadline_hours:,.0f}",
                n=d.gpus,
                layout=d.strategy.message() if d.strategy else "—",
                hours=f"{d.hours:,.1f}",
            )
        )
    if a.leanest is not None and a.leanest_memory is not None:
        ck = (
            say("activation checkpointing: it recomputes each layer's activations, about a third more compute")
            if a.leanest.checkpointing
            else say("no checkpointing")
        )
        out.append(
            say(
                "  smallest memory on {n} GPUs: {layout}, {gb} GB per GPU ({ck}); the fastest layout above needs {fast} GB",
                n=f.gpus,
                layout=a.leanest.message(),
                gb=f"{a.leanest_memory.total:,.1f}",
                ck=ck,
                fast=f"{f.per_gpu_memory_gb:,.1f}",
            )
        )
    return out
