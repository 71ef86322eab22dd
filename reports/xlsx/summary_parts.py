"""What every section of the Summary sheet writes with: the sheet's context, and live formula text built
from tokens (a label whose placeholders are formula expressions)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from openpyxl.styles import Alignment
from openpyxl.worksheet.worksheet import Worksheet

from ..i18n import Lang
from .names import Names

if TYPE_CHECKING:
    from procure.solver.plan import Plan
    from procure.solver.result import Result


def _excel_text(s: str) -> str:
    """Our own text as a formula string literal (quotes doubled)."""
    return '"' + s.replace('"', '""') + '"'


#: a formula's text expression as tokens: (True, words) a string literal, (False, text) an expression,
#: STOP the end of a part (a literal after it starts a string of its own)
Token = tuple[bool, str] | None


STOP: Token = None


def _live(template: str, **parts: list[Token]) -> list[Token]:
    """The tokens of a label whose ``{placeholders}`` are formula expressions (``"{pct} less TCO"`` →
    ``TEXT(…)&" less TCO"``); the label's own words are string literals, joined to a literal that ends
    the part before them."""
    out: list[Token] = []
    for i, x in enumerate(re.split(r"\{(\w+)\}", template)):
        if i % 2:
            out.extend(parts[x])
        elif x:
            last = out[-1] if out else STOP
            if last is not None and last[0]:
                out[-1] = (True, last[1] + x)
            else:
                out.append((True, x))
    return out


def _render(tokens: list[Token]) -> str:
    """The formula text of tokens (``""`` for none)."""
    return "&".join(_excel_text(t[1]) if t[0] else t[1] for t in tokens if t is not None) or '""'


def _money_expr(ref: str, cur: str, tr: Lang) -> list[Token]:
    """The tokens showing the amount ``ref`` as ``tr.money`` does: ``TEXT(x,"#,##0")&" USD"``, or in 万."""
    if tr.wan:
        return [(False, f'TEXT({ref}/10000,"#,##0.0")'), (True, " " + tr.unit(cur))]
    return [(False, f'TEXT({ref},"#,##0")'), (True, " " + tr.cur(cur))]


#: the width of columns C..H, where notes are merged
NOTE_W = 16 + 15 + 16 + 21 + 12 + 40


NOTE_ALIGN = Alignment(indent=1, vertical="top", wrap_text=True)


TOP_WRAP = Alignment(wrap_text=True, vertical="top")


@dataclass
class _Sheet:
    """What every section of the Summary writes with."""

    ws: Worksheet
    result: Result
    plan: Plan
    names: Names
    tr: Lang
    cur: str
    mfmt: str
    obj: str
    other: str
    live: dict[str, str]  # the recommended plan's costs by objective, following every edit
    now: dict[str, float]  # the same, as solved
