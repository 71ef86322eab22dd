"""The GPU table: canonical GPU ids, their aliases and the datasheet figures sizing relies on.

The data lives in ``data/gpus.yaml`` with a ``source`` per row. Memory is the datasheet capacity,
which for HBM/GDDR is a binary figure: the "24 GB" of an RTX 4090 is 24 GiB = 25.77 GB (``capacity_gb``);
``bf16_dense_tflops`` is the dense (not 2:4-sparse) BF16 tensor throughput.
"""

from __future__ import annotations

import difflib
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from procure.common.errors import InputError, unknown_choice
from procure.fileio.yamlio import line_of, load_yaml

from .units import GB, GIB
from .validation import problems_from

IntraNode = Literal["nvswitch", "nvlink", "pcie"]
#: GPU architecture families; the default achieved efficiency (MFU) is set per family (solver/sizing/constants.yaml).
#: ``blackwell`` is datacenter Blackwell (sm_100/sm_103: B200, B300, GB200, GB300); ``blackwell_rtx`` the GeForce
#: and RTX PRO Blackwell cards (sm_120: RTX 5090, RTX PRO 6000); ``davinci`` Huawei's Ascend NPUs.
Architecture = Literal["ampere", "ada", "hopper", "blackwell", "blackwell_rtx", "cdna3", "cdna4", "davinci"]
#: GPU vendors the table knows.
Vendor = Literal["nvidia", "amd", "huawei"]
InterNode = Literal["none", "eth-25g", "eth-100g", "roce-200g", "roce-400g", "ib-hdr", "ib-ndr"]

#: Line rate of one fabric port in Gbit/s (IEEE 802.3 / InfiniBand Trade Association HDR = 200, NDR = 400).
FABRIC_GBPS: dict[str, float] = {
    "none": 0.0,
    "eth-25g": 25.0,
    "eth-100g": 100.0,
    "roce-200g": 200.0,
    "roce-400g": 400.0,
    "ib-hdr": 200.0,
    "ib-ndr": 400.0,
}


class GPU(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    aliases: list[str] = Field(default_factory=list)
    vendor: Vendor
    architecture: Architecture = Field(description="GPU architecture family; picks the default achieved MFU")
    ambiguous_aliases: list[str] = Field(
        default_factory=list,
        description="aliases that also name other models of the family: resolving one warns which model was chosen",
    )
    form_factor: Literal["sxm", "pcie", "consumer", "oam"]
    memory_gb: float = Field(gt=0, description='datasheet memory capacity as printed ("24 GB"): a binary figure, GiB')
    memory_bandwidth_gbs: float = Field(gt=0, description="memory bandwidth, GB/s")
    bf16_dense_tflops: float = Field(gt=0, description="dense BF16 tensor throughput, TFLOP/s")
    fp8_dense_tflops: float | None = Field(
        default=None,
        gt=0,
        description="dense FP8 tensor throughput, TFLOP/s; absent when the GPU has no FP8 tensor cores",
    )
    fp8_source: str | None = Field(default=None, description="where the FP8 figure comes from")
    gpu_link_gbs: float = Field(gt=0, description="GPU-to-GPU bandwidth per GPU (datasheet, bidirectional), GB/s")
    pcie_gbs: float = Field(gt=0, description="host PCIe x16 bandwidth (bidirectional), GB/s")
    tdp_w: float = Field(gt=0, description="board power, W")
    ecc: bool
    default_gpus_per_node: int = Field(gt=0)
    scale_up_domain_gpus: int | None = Field(
        default=None,
        gt=0,
        description="GPUs joined by the GPU link (gpu_link_gbs) across nodes, a rack-scale domain such as NVL72 or "
        "CloudMatrix 384; absent: the node (default_gpus_per_node) is the domain",
    )
    default_intra_node: IntraNode
    default_inter_node: InterNode
    source: str = Field(min_length=1)

    @model_validator(mode="after")
    def _domain_holds_whole_nodes(self) -> GPU:
        d = self.scale_up_domain_gpus
        if d is not None and (d < self.default_gpus_per_node or d % self.default_gpus_per_node):
            raise ValueError(
                f"scale_up_domain_gpus {d} must be a whole number of nodes of default_gpus_per_node "
                f"{self.default_gpus_per_node}"
            )
        return self

    @property
    def capacity_gb(self) -> float:
        """The datasheet capacity in GB (10^9 bytes): ``memory_gb`` GiB × 2^30 / 10^9 (24 GiB = 25.77 GB)."""
        return self.memory_gb * GIB / GB


class GPUTable:
    """Canonical GPUs plus a case-insensitive alias index."""

    def __init__(self, gpus: list[GPU]):
        self.gpus = {g.id: g for g in gpus}
        self._index: dict[str, str] = {}
        for g in gpus:
            for name in [g.id, *g.aliases]:
                self._index[_norm(name)] = g.id

    def __iter__(self):
        return iter(self.gpus.values())

    def __getitem__(self, gpu_id: str) -> GPU:
        return self.gpus[gpu_id]

    def resolve(self, name: str) -> str | None:
        """Canonical id for an id or alias, or None."""
        return self._index.get(_norm(str(name)))

    def alias_note(self, name: str) -> str | None:
        """A sentence when ``name`` is a family name that resolved to one model of several (``A100`` →
        A100-SXM-80GB, though A100-SXM-40GB and A100-PCIE-40GB exist); None for an exact name."""
        gid = self.resolve(name)
        if gid is None:
            return None
        key = _norm(str(name))
        g = self.gpus[gid]
        if key not in {_norm(a) for a in g.ambiguous_aliases}:
            return None
        others = [o.id for o in self.gpus.values() if o.id != gid and key in _norm(o.id)]
        also = f" (the table also has {', '.join(others)})" if others else ""
        return f"GPU {name!r} was taken as {gid}{also}; write the full model id to choose another or to silence this warning"

    def unknown_message(self, name: str) -> str:
        """Unknown GPU, with a did-you-mean that also looks at aliases ('H1OO' → H100-SXM-80GB)."""
        typed = _norm(str(name)).replace("o", "0")  # 'H1OO' is a common typo of 'H100'
        keys = {k.replace("o", "0"): k for k in self._index}
        hits = [keys[h] for h in difflib.get_close_matches(typed, list(keys), n=1, cutoff=0.6)]
        msg = unknown_choice("GPU", name, self.gpus)
        if hits and "did you mean" not in msg:
            msg = msg.replace(";", f" (did you mean {self._index[hits[0]]!r}?);", 1)
        return msg


def _norm(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


@lru_cache(maxsize=1)
def gpu_table() -> GPUTable:
    """The bundled GPU table (``models/data/gpus.yaml``)."""
    return load_gpu_table(Path(str(resources.files("procure.models") / "data" / "gpus.yaml")))


def load_gpu_table(path: Path) -> GPUTable:
    """A GPU table file; every row that breaks the model is reported with its file, row, line and field."""
    data, lines = load_yaml(path, "GPU table")
    gpus, problems = [], []
    for i, row in enumerate(data.get("gpus", [])):
        try:
            gpus.append(GPU.model_validate(row))
        except ValidationError as exc:  # a broken bundled table is a packaging bug; still report it clearly
            problems += problems_from(exc, str(path), ("gpus", i), lambda loc: line_of(lines, loc))
    if problems:
        raise InputError(problems)
    return GPUTable(gpus)
