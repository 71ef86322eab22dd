"""Sizing constants, read once from ``constants.yaml`` (one row per constant: name, value, unit, source).

Every module of the sizing package takes its constants from here, so a number and its source live in
one place, and the workbook's Assumptions sheet lists the same rows (``constant_rows``). Units of
measure (GB, TB, GiB) are not sizing constants: they come from ``procure.models.units``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from procure.common.errors import InputError, Problem
from procure.fileio.yamlio import line_of, load_yaml


@dataclass(frozen=True)
class Constant:
    name: str
    value: float
    unit: str
    source: str


@lru_cache(maxsize=1)
def _table() -> dict[str, Constant]:
    path = Path(str(resources.files("procure.solver.sizing") / "constants.yaml"))
    data, lines = load_yaml(path, "sizing constants")
    out: dict[str, Constant] = {}
    problems = []
    for i, row in enumerate(data.get("constants", [])):
        missing = [
            k for k in ("name", "value", "unit", "source") if not isinstance(row, dict) or row.get(k) in (None, "")
        ]
        value = row.get("value") if isinstance(row, dict) else None
        if missing or isinstance(value, bool) or not isinstance(value, (int, float)):
            what = f"missing {', '.join(missing)}" if missing else "value must be a number"
            problems.append(Problem(str(path), f"constants[{i}]", what, line=line_of(lines, ("constants", i))))
            continue
        out[row["name"]] = Constant(row["name"], value, str(row["unit"]), str(row["source"]))
    if problems:
        raise InputError(problems)
    return out


def constant(name: str) -> float:
    """The value of sizing constant ``name``."""
    return _table()[name].value


def constant_rows() -> list[tuple[str, float, str, str]]:
    """(name, value, unit, source) of every sizing constant, in file order — for the Assumptions sheet."""
    return [(c.name, c.value, c.unit, c.source) for c in _table().values()]


USABLE_FRACTION = constant("USABLE_FRACTION")
FIT_MARGIN = constant("FIT_MARGIN")
LOGITS_FULL_BYTES = constant("LOGITS_FULL_BYTES")
LOGITS_CHUNK_BYTES = constant("LOGITS_CHUNK_BYTES")
REFERENCE_NODE_RAM_GB = constant("REFERENCE_NODE_RAM_GB")
LOAD_SHARD_BYTES = constant("LOAD_SHARD_BYTES")
BF16_BYTES = constant("BF16_BYTES")
OPTIMIZER_BYTES = constant("OPTIMIZER_BYTES")
ADAPTER_STATE_BYTES = constant("ADAPTER_STATE_BYTES")
NF4_BITS_PER_PARAM = constant("NF4_BITS_PER_PARAM")
ZERO3_GATHER_BYTES_PER_PARAM = constant("ZERO3_GATHER_BYTES_PER_PARAM")
CHECKPOINT_BYTES_PER_PARAM = constant("CHECKPOINT_BYTES_PER_PARAM")
CUDA_CONTEXT_BYTES = constant("CUDA_CONTEXT_BYTES")
COMM_BUCKET_BYTES = constant("COMM_BUCKET_BYTES")
FRAGMENTATION = constant("FRAGMENTATION")
COMM_OVERLAP = constant("COMM_OVERLAP")
TP_COMM_OVERLAP = constant("TP_COMM_OVERLAP")
QLORA_DEQUANT_OVERHEAD = constant("QLORA_DEQUANT_OVERHEAD")
GLOBAL_BATCH_TOKENS: dict[str, float] = {
    m: constant(f"GLOBAL_BATCH_TOKENS_{m.upper()}") for m in ("pretrain", "full", "lora", "qlora")
}
#: GPU architecture families (models.gpu.Architecture) and, per family and for GeForce cards ("consumer"), the
#: fitted family whose MFU cap and hidden-size factor it takes (MFU_MAX_<GROUP>, MFU_HIDDEN_HALF_<GROUP>): the
#: Hopper fit for HBM datacenter parts and for cards whose FLOP/byte is Hopper-like, the Ampere fit otherwise.
ARCHITECTURES = ("ampere", "ada", "hopper", "blackwell", "blackwell_rtx", "cdna3", "cdna4", "davinci")
MFU_GROUP: dict[str, str] = {
    a: "HOPPER" if a in ("hopper", "blackwell", "blackwell_rtx", "cdna3", "cdna4", "davinci") else "AMPERE"
    for a in (*ARCHITECTURES, "consumer")
}
#: Default in-step MFU per GPU architecture family (GPU.architecture); GeForce cards use MFU_CONSUMER.
MFU_BY_ARCHITECTURE: dict[str, float] = {a: constant(f"MFU_{a.upper()}") for a in ARCHITECTURES}
MFU_CONSUMER = constant("MFU_CONSUMER")
FP8_GEMM_EFFICIENCY_CDNA3 = constant("FP8_GEMM_EFFICIENCY_CDNA3")
FLASH_ATTENTION_SPEEDUP = constant("FLASH_ATTENTION_SPEEDUP")
MFU_ADAPTER_FACTOR = constant("MFU_ADAPTER_FACTOR")
GOODPUT_OVERHEAD = constant("GOODPUT_OVERHEAD")
GPU_INTERRUPTION_RATE = constant("GPU_INTERRUPTION_RATE")
RESTART_RELOAD_HOURS = constant("RESTART_RELOAD_HOURS")
EXECUTION_FACTOR = constant("EXECUTION_FACTOR")
JOB_STARTUP_HOURS = constant("JOB_STARTUP_HOURS")
MFU_REFERENCE_HIDDEN = constant("MFU_REFERENCE_HIDDEN")
#: Upper bound on the in-step MFU constant × hidden-size factor, per architecture family: the best published
#: in-step hardware FLOP rate on that family (compute.default_mfu).
MFU_MAX: dict[str, float] = {a: constant(f"MFU_MAX_{g}") for a, g in MFU_GROUP.items()}
#: h½ of the hidden-size factor on MFU, per architecture family (compute.hidden_factor).
MFU_HIDDEN_HALF: dict[str, float] = {a: constant(f"MFU_HIDDEN_HALF_{g}") for a, g in MFU_GROUP.items()}
MOE_MFU_FACTOR = constant("MOE_MFU_FACTOR")
FP8_GEMM_EFFICIENCY = constant("FP8_GEMM_EFFICIENCY")
FP8_GRAD_BYTES = constant("FP8_GRAD_BYTES")
FP8_OPTIMIZER_BYTES = constant("FP8_OPTIMIZER_BYTES")
DUALPIPE_A2A_OVERLAP = constant("DUALPIPE_A2A_OVERLAP")
DUALPIPE_PARAM_COPIES = constant("DUALPIPE_PARAM_COPIES")
BATCH_LAW_COEFFICIENT = constant("BATCH_LAW_COEFFICIENT")
BATCH_LAW_EXPONENT = constant("BATCH_LAW_EXPONENT")
ATTENTION_RELATIVE_EFFICIENCY = constant("ATTENTION_RELATIVE_EFFICIENCY")
HOST_RAM_SYSTEM_GB = constant("HOST_RAM_SYSTEM_GB")
HOST_RAM_PER_GPU_GB = constant("HOST_RAM_PER_GPU_GB")
DATA_LOADER_WORKERS = constant("DATA_LOADER_WORKERS")
ADAM8BIT_OPTIMIZER_BYTES = constant("ADAM8BIT_OPTIMIZER_BYTES")
OFFLOAD_HOST_BYTES = constant("OFFLOAD_HOST_BYTES")
OFFLOAD_BUFFER_FACTOR = constant("OFFLOAD_BUFFER_FACTOR")
PCIE_ACHIEVED_FRACTION = constant("PCIE_ACHIEVED_FRACTION")
CPU_ADAM_BYTES_PER_PARAM = constant("CPU_ADAM_BYTES_PER_PARAM")
HOST_MEMORY_BANDWIDTH_CONSUMER_GBS = constant("HOST_MEMORY_BANDWIDTH_CONSUMER_GBS")
HOST_MEMORY_BANDWIDTH_SERVER_GBS = constant("HOST_MEMORY_BANDWIDTH_SERVER_GBS")
