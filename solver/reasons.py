"""Why an option was rejected: a rule, plus the text a person reads.

Code groups, counts and compares rejections by ``Rule`` and by the structured fields of ``Reason``
(``finish_day`` for the deadline rule); the English text is only ever rendered, never parsed back.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Rule(StrEnum):
    """Every rule that can remove an option. The value is the JSON ``rejected[].rule``."""

    MODE_NOT_ALLOWED = "mode_not_allowed"
    SPOT_EXCLUDED = "spot_excluded"
    GPU_NOT_ALLOWED = "gpu_not_allowed"
    REGION = "region"
    PRECISION = "precision"
    HOST_RAM = "host_ram"
    CPU_CORES = "cpu_cores"
    GPU_MEMORY = "gpu_memory"
    FABRIC = "fabric"
    INTERCONNECT_BOUND = "interconnect_bound"
    NVME = "nvme"
    RENT_TERM = "rent_term"
    DEADLINE = "deadline"
    OTHER = "other"

    @property
    def group(self) -> str:
        """How a group of offers removed by this rule is described ("3 offer(s) <group>")."""
        return _GROUPS[self]


_GROUPS: dict[Rule, str] = {
    Rule.MODE_NOT_ALLOWED: "are in a mode that is not allowed",
    Rule.SPOT_EXCLUDED: "are spot capacity, excluded by allow_spot",
    Rule.GPU_NOT_ALLOWED: "have a GPU outside allowed_gpus",
    Rule.REGION: "are excluded by region / network line",
    Rule.PRECISION: "have a GPU without the workload's precision",
    Rule.HOST_RAM: "lack host RAM",
    Rule.CPU_CORES: "lack CPU cores",
    Rule.GPU_MEMORY: "lack GPU memory",
    Rule.FABRIC: "lack an inter-node fabric",
    Rule.INTERCONNECT_BOUND: "are interconnect-bound",
    Rule.NVME: "lack local NVMe storage",
    Rule.RENT_TERM: "have a minimum rental term longer than the horizon",
    Rule.DEADLINE: "cannot finish by the deadline",
    Rule.OTHER: "do not fit",
}

#: the verb of a group phrase for one offer or workload ("1 offer lacks GPU memory", not "1 lack")
_SINGULAR = {"are": "is", "have": "has", "lack": "lacks", "cannot": "cannot", "do": "does"}


def counted(n: int, noun: str, group: str) -> str:
    """``n`` offers (or workloads) and what they share, in agreement: "3 offers lack GPU memory",
    "1 offer lacks GPU memory", "1 workload is excluded by region / network line"."""
    if n != 1:
        return f"{n} {noun}s {group}"
    verb, _, rest = group.partition(" ")
    return f"1 {noun} {_SINGULAR.get(verb, verb)} {rest}".rstrip()


#: A rule as a headline names it: "GPU memory: needs 28.2 GB per GPU".
RULE_LABEL: dict[Rule, str] = {
    Rule.MODE_NOT_ALLOWED: "mode",
    Rule.SPOT_EXCLUDED: "spot",
    Rule.GPU_NOT_ALLOWED: "allowed GPUs",
    Rule.REGION: "region",
    Rule.PRECISION: "precision",
    Rule.HOST_RAM: "host RAM",
    Rule.CPU_CORES: "CPU cores",
    Rule.GPU_MEMORY: "GPU memory",
    Rule.FABRIC: "fabric",
    Rule.INTERCONNECT_BOUND: "interconnect",
    Rule.NVME: "NVMe",
    Rule.RENT_TERM: "term",
    Rule.DEADLINE: "deadline",
    Rule.OTHER: "fit",
}


@dataclass(frozen=True)
class Msg:
    """A sentence the solver writes, kept as its English template (a message id of the reports' translation
    catalogue) and its arguments, so a report renders it in the reader's language (``reports.i18n``
    ``Lang.say``); ``str()`` is the English. An argument may itself be a ``Msg`` (a clause)."""

    msg: str
    args: tuple[tuple[str, object], ...] = ()

    def __str__(self) -> str:
        return self.msg.format(**{k: str(v) if isinstance(v, Msg) else v for k, v in self.args})

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def say(msg: str, **args) -> Msg:
    """A sentence (or clause) to render in the reader's language: ``say("needs {gb} GB", gb="28.2")``."""
    return Msg(msg, tuple(args.items()))


@dataclass(frozen=True)
class Reason:
    """One broken rule. ``text`` is what a person reads; ``finish_day`` is set for ``Rule.DEADLINE``;
    ``short`` is the key figure in a few words ("needs 28.2 GB per GPU"), for headlines."""

    rule: Rule
    text: str
    finish_day: float | None = None
    short: str = ""
    nodes: int | None = None  # Rule.DEADLINE: the shape's node count ...
    wall_days: float | None = None  # ... and how long it runs
    message: Msg | None = None  # ``text`` as a template and its arguments, for the reader's language

    def __str__(self) -> str:
        return self.text

    @classmethod
    def of(cls, rule: Rule, message: Msg, **kw) -> Reason:
        """A reason whose text is ``message`` in English."""
        return cls(rule, str(message), message=message, **kw)


def render(reasons: tuple[Reason, ...] | list[Reason]) -> str:
    """The reasons of one shape as one sentence, most telling first."""
    return "; ".join(r.text for r in reasons)
