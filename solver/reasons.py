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
    QUOTA = "quota"
    OFFER_WINDOW = "offer_window"
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
    Rule.QUOTA: "need more GPUs at once than a quota allows",
    Rule.OFFER_WINDOW: "are available only outside the job's time",
    Rule.DEADLINE: "cannot finish by the deadline",
    Rule.OTHER: "do not fit",
}

#: the verb of a group phrase for one offer or workload ("1 offer lacks GPU memory", not "1 lack")
_SINGULAR = {"are": "is", "have": "has", "lack": "lacks", "cannot": "cannot", "do": "does"}


def counted(n: int, noun: str, group: str) -> Msg:
    """``n`` offers (or workloads) and what they share, in agreement: "3 offers lack GPU memory",
    "1 offer lacks GPU memory", "1 workload is excluded by region / network line". The group is a
    ``Label`` (its message id the plural phrase), so a report translates it."""
    if n != 1:
        count = say("{n} offers", n=n) if noun == "offer" else say("{n} workloads", n=n)
        return say("{count} {group}", count=count, group=Label(group, group))
    verb, _, rest = group.partition(" ")
    agreed = f"{_SINGULAR.get(verb, verb)} {rest}".rstrip()
    count = say("1 offer") if noun == "offer" else say("1 workload")
    return say("{count} {group}", count=count, group=Label(group, agreed))


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
    Rule.QUOTA: "quota",
    Rule.OFFER_WINDOW: "window",
    Rule.DEADLINE: "deadline",
    Rule.OTHER: "fit",
}


class Msg(str):
    """A sentence the solver writes, kept as its English template (a message id of the reports' translation
    catalogue) and its arguments, so a report renders it in the reader's language (``reports.i18n``
    ``Lang.say``). It *is* its English text (a ``str``), so code that joins, prints or serializes text
    keeps working. An argument may itself be a ``Msg`` (a clause), a tuple or ``Clauses`` (a list of them),
    an ``Amount`` or a ``Label``."""

    msg: str
    args: tuple[tuple[str, object], ...]

    def __new__(cls, msg: str, args: tuple[tuple[str, object], ...] = ()) -> Msg:
        self = super().__new__(cls, msg.format(**{k: _english(v) for k, v in args}))
        self.msg = msg
        self.args = tuple(args)
        return self

    def __reduce__(self):
        return (Msg, (self.msg, self.args))


def signed_number(x: float, decimals: int = 0) -> str:
    """A difference with its sign, ``+1,234`` / ``-1,234``; one that rounds to zero is ``0``, never ``-0``
    or ``+0`` (a sign on nothing tells a reader there is a difference)."""
    if round(abs(x), decimals) == 0:
        return f"{0:.{decimals}f}"
    return f"{x:+,.{decimals}f}"


def signed_pct(fraction: float | None) -> str:
    """A change as a signed percentage: whole percents from 1%, else as few decimals (at most two) as show
    the difference (``-0.02%``); ``0%`` when even two decimals round it to zero — never ``-0%``."""
    if fraction is None:
        return "—"
    pct = fraction * 100.0
    for d in (0, 1, 2):
        if round(abs(pct), d) != 0:
            return f"{pct:+.{d}f}%"
    return "0%"


@dataclass(frozen=True)
class Amount:
    """An amount in a sentence: ``275,150 USD`` (``signed``: ``+442,769``); a report writes it in the
    reader's locale and unit (万 with ``--amounts-in wan``)."""

    value: float
    currency: str = ""
    signed: bool = False

    def __str__(self) -> str:
        text = signed_number(self.value) if self.signed else f"{self.value:,.0f}"
        return f"{text} {self.currency}".strip()

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


@dataclass(frozen=True)
class Label:
    """A name the reports' catalogue translates (a cost category): ``msgid`` is its message id, ``text``
    the English a sentence shows."""

    msgid: str
    text: str

    def __str__(self) -> str:
        return self.text

    def __format__(self, spec: str) -> str:
        return format(self.text, spec)


@dataclass(frozen=True)
class Clauses:
    """Clauses of one sentence joined by ``sep`` (", " or "; "), each rendered in the reader's language."""

    items: tuple
    sep: str = ", "

    def __str__(self) -> str:
        return self.sep.join(str(x) for x in self.items)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def _english(v):
    if isinstance(v, tuple):
        return ", ".join(str(x) for x in v)
    return str(v) if isinstance(v, (Msg, Amount, Label, Clauses)) else v


def say(msg: str, **args) -> Msg:
    """A sentence (or clause) to render in the reader's language: ``say("needs {gb} GB", gb="28.2")``."""
    return Msg(msg, tuple(args.items()))


def node_count(nodes: int, gpus: int, gpu: str | None = None) -> Msg:
    """A count of servers with the GPUs in them, so that a node count is never read as GPUs:
    "2 nodes (16 × H100-SXM-80GB)"; without ``gpu`` (already named beside it) "1 node (8 GPUs)"."""
    if gpu:
        return say(
            "{nodes} node ({gpus} × {gpu})" if nodes == 1 else "{nodes} nodes ({gpus} × {gpu})",
            nodes=nodes,
            gpus=gpus,
            gpu=gpu,
        )
    if gpus == 1:  # one GPU is one node
        return say("{nodes} node ({gpus} GPU)", nodes=nodes, gpus=gpus)
    return say("{nodes} node ({gpus} GPUs)" if nodes == 1 else "{nodes} nodes ({gpus} GPUs)", nodes=nodes, gpus=gpus)


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


def render(reasons: tuple[Reason, ...] | list[Reason]) -> Msg:
    """The reasons of one shape as one sentence, most telling first."""
    return say("{parts}", parts=Clauses(tuple(r.message or r.text for r in reasons), "; "))
