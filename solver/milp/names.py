"""Row names of the model: one grammar, every entity id slugged once.

    <family>[<key>,<key>,...]        e.g. buy_cap[dell-xe9680-h100,42]  →  buy_cap_dell_xe9680_h100,42_

Keys are offer ids, workload names or integers (periods, months). An entity's slug keeps letters,
digits, ``_`` and ``.`` and turns every other character into ``_``; when two ids slug alike (``a-b``
and ``a_b``) the later one in sorted order gets ``~2``, ``~3``, … — ``~`` never occurs in a plain
slug, so slugs are unique. PuLP then replaces ``-+[] `` in constraint names with ``_`` (``LpElement``
and ``LpAffineExpression`` do); slugs hold none of those characters and commas separate the keys, so
that mangling cannot merge two rows either: an LP file written with ``prob.writeLP`` reads without
any index map.
"""

from __future__ import annotations

import re
from typing import Iterable

_UNSAFE = re.compile(r"[^A-Za-z0-9_.]")


def slug(text: str) -> str:
    return _UNSAFE.sub("_", text)


class Names:
    """Slugs of a model's offers and workloads, made once and unique."""

    def __init__(self, offer_ids: Iterable[str], workloads: Iterable[str]):
        self.offer = _unique_slugs(offer_ids)
        self.workload = _unique_slugs(workloads)

    def row(self, family: str, *keys: object) -> str:
        """``family[k1,k2,...]``; ``str`` keys must be offer ids or workload names already slugged here."""
        return f"{family}[{','.join(str(k) for k in keys)}]" if keys else family


def _unique_slugs(ids: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    taken: set[str] = set()
    for ident in sorted(set(ids)):
        base = slug(ident) or "_"
        name, k = base, 1
        while name in taken:
            k += 1
            name = f"{base}~{k}"
        taken.add(name)
        out[ident] = name
    return out
