"""The strategy search: the fastest parallel / memory-saving strategy that fits one shape."""

from __future__ import annotations

import math

from .compute import Shape, allreduce_s, step_time
from .constants import BF16_BYTES
from .memory import comm_bucket_bytes, memory_parts, state_bytes, total_bytes
from .profile import MICRO_BATCHES, TP_DEGREES, Profile
from .results import Strategy

#: Two hour figures within this relative distance are a tie (then the leaner strategy wins).
REL_TIE = 1e-9


def best_strategy(p: Profile, sh: Shape):
    """Fastest strategy that fits (ties → less memory): (strategy, parts, hours, eff); when none fits,
    (None, parts, leanest strategy, None).

    Branch and bound: hours ≥ FLOPs / (G·peak·MFU) (efficiency ≤ 1), so checkpointing strategies are
    only tried when no strategy without it beats their bound. Plain DP is skipped when it has
    something to shard (ZeRO-1 has the same traffic and needs less memory)."""
    acts = p.act_table
    cap = sh.mem_cap
    rate = sh.gpus * sh.peak * sh.mfu
    tps = [t for t in TP_DEGREES if t <= sh.max_tp and not sh.gpn % t and not p.a % t and not sh.gpus % t]
    ar = {t: allreduce_s(BF16_BYTES * p.trainable, t, sh) for t in tps}
    base_ar = {t: allreduce_s(p.base_bytes, t, sh) for t in tps} if p.adapter else dict.fromkeys(tps, 0.0)
    best_h = math.inf
    best = None  # (mem, strategy, eff)
    for ckpt in (False, True):
        bound = (p.flops_tok_ckpt if ckpt else p.flops_tok) * p.D / rate / 3600.0
        if bound > best_h * (1 + REL_TIE):
            break
        for t in tps:
            nd = sh.gpus // t
            bucket = comm_bucket_bytes(p, t, sh.gpus)
            for zero in ((1, 2, 3) if nd > 1 else (0,)):
                w, g, o = state_bytes(p, zero, t, nd)
                fixed = w + g + o + bucket
                for mb in MICRO_BATCHES:
                    mem = total_bytes(fixed, acts[t, ckpt, mb])
                    if mem > cap:
                        break  # larger micro-batches only need more
                    timed = step_time(p, zero, t, ckpt, mb, sh, ar[t], base_ar[t])
                    if timed is None:
                        break
                    hours, eff = timed
                    if hours < best_h * (1 - REL_TIE) or (hours <= best_h * (1 + REL_TIE) and mem < best[0]):
                        best_h, best = hours, (mem, Strategy(zero, t, ckpt, mb), eff)
    if best is not None:
        st = best[1]
        return st, memory_parts(p, st.zero_stage, st.tensor_parallel, st.checkpointing, st.micro_batch, sh.gpus), best_h, best[2]
    # nothing fits: the leanest strategy (checkpointing, micro-batch 1, most sharding)
    least = None
    for t in tps:
        nd = sh.gpus // t
        for zero in ((1, 2, 3) if nd > 1 else (0,)):
            parts = memory_parts(p, zero, t, True, 1, sh.gpus)
            mem = sum(parts)
            if least is None or mem < least[0]:
                least = (mem, Strategy(zero, t, True, 1), parts)
    return None, least[2], least[1], None
