"""The strategy search: the fastest layout that fits one shape (ties → less memory).

Tried per shape: tensor parallel t ∈ TP_DEGREES inside a GPU-link domain — the node, or a rack-scale domain of
several nodes (NVL72, CloudMatrix 384; shapes.scale_up_gpus) — (t divides the heads); pipeline parallel
pp ∈ PP_DEGREES (pp ≤ layers) with the 1F1B and interleaved (2 or 4 virtual stages) schedules (Megatron),
and when experts are spread (ep > 1) also zero-bubble ZB1P, and DualPipe (DeepSeek-V3's own schedule) only
when the workload pins it (``Profile.pinned_schedule``); expert parallel ep ∈ EP_DEGREES for mixture-of-experts
models with an expert layout (ep divides the experts and the data-parallel degree); ZeRO-1/2/3 for
plain data parallelism, ZeRO-1 once pipeline or expert parallelism is used (Megatron's distributed
optimizer and DeepSeek's HAI-LLM; DeepSpeed does not combine ZeRO-2/3 with pipelines); checkpointing
off/on; micro-batch ∈ MICRO_BATCHES sequences. Then the low-memory optimizers (``_variants``): 8-bit
Adam, and for full training ZeRO-Offload of the optimizer to the CPU (ZeRO-2/3, no pipeline or expert
parallelism); each is tried only on a shape where the plainer optimizers fit no layout.

Branch and bound: hours ≥ the wall-clock hours (goodput.wall_hours) of compute × (stage imbalance) ×
(1 + bubble at the largest micro-batch count). Layouts are tried in order of that bound and the loop stops at the first whose bound
cannot beat the best found; within a layout larger micro-batches only need more memory, so the loop stops
at the first that does not fit, and they are tried only under ZeRO-2/3 (elsewhere the step time does not
improve with the micro-batch, and ties go to less memory).
"""

from __future__ import annotations

import math

from .compute import Shape, bubble_fraction, step_time
from .constants import DUALPIPE_PARAM_COPIES
from .goodput import wall_hours
from .memory import activation_bytes, comm_bucket_bytes, load_peak_bytes, memory_parts, state_bytes, total_bytes
from .profile import CP_DEGREES, CP_MIN_TOKENS, EP_DEGREES, MICRO_BATCHES, PP_DEGREES, TP_DEGREES, Profile
from .results import Parallelism

#: Two hour figures within this relative distance are a tie (then the leaner strategy wins).
REL_TIE = 1e-9
#: Virtual pipeline stages per GPU tried for the interleaved schedule (Megatron's
#: virtual_pipeline_model_parallel_size); each needs at least one layer per virtual stage.
INTERLEAVE = (2, 4)


def _layouts(p: Profile, sh: Shape):
    """(t, pp, ep, schedule, v) combinations valid on this shape."""
    tps = [
        t
        for t in p.choices("tensor_parallel", TP_DEGREES)
        if t <= sh.max_tp and not sh.gpn % t and not p.a % t and not sh.gpus % t
    ]
    out = []
    for t in tps:
        for pp in p.choices("pipeline_parallel", PP_DEGREES):
            if pp > p.L or sh.gpus % (t * pp):
                continue
            d = sh.gpus // (t * pp)
            eps = [1]
            if p.expert_layout and not p.adapter:
                eps = [ep for ep in p.choices("expert_parallel", EP_DEGREES) if ep <= d and not d % ep and not p.E % ep]
            for ep in eps:
                if pp == 1:
                    out.append((t, pp, ep, "", 1))
                    continue
                out.append((t, pp, ep, "1f1b", 1))
                for v in p.choices("virtual_stages", INTERLEAVE):
                    if v >= 2 and -(-p.L // pp) >= v:
                        out.append((t, pp, ep, "interleaved", v))
                if ep > 1:  # the schedules of the published expert-parallel runs (DeepSeek-V2, V3)
                    out.append((t, pp, ep, "zb1p", 1))
                    # DualPipe is DeepSeek's own schedule (DeepSeek-V3 §3.2.1); frameworks without it expose
                    # the all-to-all, so it is sized only when the workload pins it (pipeline_schedule)
                    if pp % 2 == 0 and p.pinned_schedule == "dualpipe":
                        out.append((t, pp, ep, "dualpipe", 1))
    return out


def _variants(p: Profile) -> list[tuple[str, bool]]:
    """(optimizer, offload) in the order tried: plain Adam, then 8-bit Adam, then ZeRO-Offload (full and
    pretraining in bf16 only). A later variant is tried only on a shape where no earlier one fits: a
    low-memory optimizer changes the numerics or adds host traffic, so it is a way to fit, not a speed-up
    the search hands out (the planner still prefers such a shape when it is the cheaper one)."""
    out = [("adam", False)]
    if not p.fp8:
        out.append(("adam8bit", False))
        if not p.adapter:
            out.append(("adam", True))
    optim, offload = p.pin.get("optimizer"), p.pin.get("offload")
    if optim is not None and offload is not None:
        return [(optim, offload)]  # the workload's own pair (models.layout checked it)
    return [(o, off) for o, off in out if optim in (None, o) and offload in (None, off)]


def _pinned(p: Profile, layouts: list, cp: int) -> list:
    """The layouts of ``_layouts`` the workload's pinned schedule and virtual stages allow, each with the
    context-parallel degree ``cp`` appended: (t, pp, ep, schedule, v, cp)."""
    sched, v = p.pin.get("pipeline_schedule"), p.pin.get("virtual_stages")
    return [(*lay, cp) for lay in layouts if sched in (None, lay[3]) and v in (None, lay[4])]


def _context_degrees(p: Profile, sh: Shape) -> tuple[int, ...]:
    """Context-parallel degrees in the order tried (profile.CP_DEGREES): the pinned one, else 1 and then
    those that keep CP_MIN_TOKENS per GPU and split the sequence into 2·cp chunks."""
    if "context_parallel" in p.pin:
        return (p.pin["context_parallel"],)
    return tuple(
        cp for cp in CP_DEGREES if cp == 1 or (p.s // cp >= CP_MIN_TOKENS and not p.s % (2 * cp) and not sh.gpus % cp)
    )


def best_strategy(p: Profile, sh: Shape):
    """Fastest strategy that fits with the plainest optimizer that fits (ties → less memory): (strategy,
    parts, hours, eff); when none fits, (None, parts, leanest strategy, None)."""
    rate = sh.gpus * sh.peak * sh.mfu
    base = _layouts(p, sh)
    cps = _context_degrees(p, sh)
    found = _Best()
    speed = sh.gemm_speed if p.fp8 else 1.0
    for optim, offload in _variants(p):
        # context parallelism, like a low-memory optimizer, is a way to fit, tried where nothing fits without it
        for cp in cps:
            if found.best is not None:
                break  # a plainer optimizer or a smaller context-parallel degree fits this shape
            layouts = [lay for lay in _pinned(p, base, cp) if not sh.gpus % (lay[0] * lay[1] * cp)]
            for ckpt in p.choices("checkpointing", (False, True)):
                gemm = (p.gemm_tok_ckpt if ckpt else p.gemm_tok) / speed
                att = (p.att_tok_ckpt if ckpt else p.att_tok) / p.att_rate
                in_step = (gemm + att) * p.D / rate / 3600.0
                if wall_hours(in_step, sh.gpus, p.effective_time, p.checkpoint_hours) > found.hours * (1 + REL_TIE):
                    break
                for bound, lay in _bounded_layouts(p, sh, layouts, in_step, offload):
                    if bound > found.hours * (1 + REL_TIE):
                        break
                    _search_layout(p, sh, lay, ckpt, optim, offload, found)
    if found.best is not None:
        st = found.best[1]
        return st, memory_parts(p, st, sh.gpus), found.hours, found.best[2]
    return _leanest(p, sh, [lay for cp in cps for lay in _pinned(p, base, cp) if not sh.gpus % (lay[0] * lay[1] * cp)])


class _Best:
    """The fastest strategy found so far: its hours, and (memory, strategy, efficiency)."""

    __slots__ = ("best", "hours")

    def __init__(self) -> None:
        self.hours = math.inf
        self.best: tuple[float, Parallelism, float] | None = None

    def beaten_by(self, hours: float, mem: float) -> bool:
        """Whether a candidate is faster, or as fast (within REL_TIE) with less memory."""
        best = self.best
        return (
            best is None
            or hours < self.hours * (1 - REL_TIE)
            or (hours <= self.hours * (1 + REL_TIE) and mem < best[0])
        )


def _zero_stages(d: int, pp: int, ep: int, offload: bool, pinned: int | None = None) -> tuple[int, ...]:
    """The ZeRO stages a layout can use: DeepSpeed offloads with ZeRO-2/3; ZeRO-2/3 need plain data
    parallelism (no pipeline, no expert parallelism); one data-parallel rank has nothing to shard. A
    pinned stage is taken as given (models.layout refuses the combinations above)."""
    if pinned is not None:
        return (pinned,)
    if offload:
        return (2, 3) if d > 1 else (2,)
    return ((1, 2, 3) if pp == 1 and ep == 1 else (1,)) if d > 1 else (0,)


def _bounded_layouts(p: Profile, sh: Shape, layouts: list, floor: float, offload: bool) -> list:
    """(lower bound on hours, layout), most promising first, so the bound prunes the rest: the wall-clock
    hours of the in-step compute ``floor`` stretched by the pipeline's layer rounding and bubble."""
    bounded = []
    for lay in layouts:
        t, pp, ep, sched, v, _cp = lay
        if offload and (pp > 1 or ep > 1):
            continue  # DeepSpeed offloads with plain data parallelism (ZeRO-2/3) only
        d = sh.gpus // (t * pp)
        m_max = max(1, math.ceil(p.global_tokens / (d * p.s) - 1e-9))
        stretched = floor * (-(-p.L // pp)) * pp / p.L * (1.0 + bubble_fraction(pp, m_max, sched, v))
        bounded.append((wall_hours(stretched, sh.gpus, p.effective_time, p.checkpoint_hours), lay))
    bounded.sort(key=lambda x: x[0])
    return bounded


def _search_layout(p: Profile, sh: Shape, lay: tuple, ckpt: bool, optim: str, offload: bool, found: _Best) -> None:
    """Every ZeRO stage and micro-batch of one layout that fits the GPU's memory, offered to ``found``."""
    t, pp, ep, sched, v, cp = lay
    cap = sh.mem_cap
    if load_peak_bytes(p, t, pp) > cap:
        return  # loading the base (QLoRA quantized on the GPU) already overflows
    sp = p.pin.get("sequence_parallel")
    d = sh.gpus // (t * pp)
    bucket = comm_bucket_bytes(p, t, sh.gpus, pp, offload)
    copies = DUALPIPE_PARAM_COPIES if sched == "dualpipe" else 1.0
    zeros = _zero_stages(d, pp, ep, offload, p.pin.get("zero_stage"))
    mbs = p.choices("micro_batch", MICRO_BATCHES)
    act1 = activation_bytes(p, t, ckpt, mbs[0], pp, sched, v, sp, cp)
    if total_bytes(sum(state_bytes(p, zeros[-1], t, pp, ep, d, copies, optim, offload)) + bucket, act1) > cap:
        return  # not even the most sharded state at the smallest micro-batch fits
    # ZeRO-1 at micro-batch 1 bounds this layout from below (ZeRO-2/3 move at least as many bytes,
    # larger micro-batches only shorten their extra traffic; offload adds the same copies to
    # each): skip the layout when even that cannot win.
    first = step_time(p, 1 if d > 1 and 1 in zeros else zeros[0], t, pp, ep, ckpt, mbs[0], sched, v, sh, offload)
    if first is None or first[0] > found.hours * (1 + REL_TIE):
        return
    for zero in zeros:
        w, g, o = state_bytes(p, zero, t, pp, ep, d, copies, optim, offload)
        fixed = w + g + o + bucket
        # Only ZeRO-2/3 traffic falls with a larger micro-batch (fewer micro-steps); otherwise the
        # step time is the same or (pipelines: more bubble) worse, and memory only grows.
        for mb in mbs if zero >= 2 else mbs[:1]:
            mem = total_bytes(fixed, activation_bytes(p, t, ckpt, mb, pp, sched, v, sp, cp))
            if mem > cap:
                break  # larger micro-batches only need more
            timed = step_time(p, zero, t, pp, ep, ckpt, mb, sched, v, sh, offload)
            if timed is None:
                break
            hours, eff = timed
            if found.beaten_by(hours, mem):
                found.hours = hours
                st = Parallelism(zero, t, ckpt, mb, pp, ep, p.precision, sched, v, optim, offload, sp, cp)
                found.best = (mem, st, eff)


def _leanest(p: Profile, sh: Shape, layouts: list):
    """Nothing fits: (None, parts, the leanest strategy, None) — checkpointing, micro-batch 1, most
    sharding, the leanest optimizer — so the rejection can say by how much it misses."""
    least: tuple[float, Parallelism, tuple[float, ...]] | None = None
    ckpt, mb, sp = (
        p.choices("checkpointing", (True,))[0],
        p.choices("micro_batch", (1,))[0],
        p.pin.get("sequence_parallel"),
    )
    for optim, offload in _variants(p):
        for t, pp, ep, sched, v, cp in layouts:
            if (sched == "dualpipe" and "pipeline_schedule" not in p.pin) or (offload and (pp > 1 or ep > 1)):
                continue
            d = sh.gpus // (t * pp)
            for zero in _zero_stages(d, pp, ep, offload, p.pin.get("zero_stage")):
                st = Parallelism(zero, t, ckpt, mb, pp, ep, p.precision, sched, v, optim, offload, sp, cp)
                parts = memory_parts(p, st, sh.gpus)
                mem = sum(parts)
                if least is None or mem < least[0]:
                    least = (mem, st, parts)
    if least is None:
        if p.pin:
            return None, (0.0,) * 5, None, None  # the pinned layout does not divide this shape (fit.layout_reasons)
        raise ValueError(f"no layout of {sh.gpus} GPUs to size")
    return None, least[2], least[1], None


def leanest_strategy(p: Profile, sh: Shape, optim: str, offload: bool) -> tuple[Parallelism, tuple] | None:
    """The smallest-memory layout of this shape with the given optimizer variant (checkpointing unless
    pinned off, micro-batch 1, the most sharding): (strategy, memory parts), whether or not it fits."""
    base = _layouts(p, sh)
    layouts = [
        lay for cp in _context_degrees(p, sh) for lay in _pinned(p, base, cp) if not sh.gpus % (lay[0] * lay[1] * cp)
    ]
    saved = p.pin
    p.pin = {**saved, "optimizer": optim, "offload": offload}
    try:
        _none, parts, st, _eff = _leanest(p, sh, layouts)
    finally:
        p.pin = saved
    return None if st is None else (st, parts)
