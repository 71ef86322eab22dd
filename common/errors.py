"""Typed errors and exit codes.

Every error procure raises on purpose derives from ``ProcureError`` and carries the documented exit code
of its family (``ExitCode``), so the command line maps errors to codes in one place. Input errors name
the file, the field path, the line or row, and what is allowed.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar

from .text import echo, printable, shorten

#: problems printed per file unless --all-errors is given
MAX_SHOWN_PER_FILE = 50
#: problems kept in memory per file (even with --all-errors); beyond it they are only counted
MAX_KEPT_PER_FILE = 10_000


class ExitCode(IntEnum):
    """The documented exit codes of the command line (README, ``procure --help``, docs/errors.md)."""

    OK = 0  # a plan: optimal, or feasible with its proven gap
    INPUT = 1  # bad input or usage, or an output path that cannot be written
    INFEASIBLE = 2  # no plan meets every rule; the reasons are printed
    NO_SOLUTION = 3  # no solution within the time limit, or the solver is missing or failed
    VERIFY = 4  # the plan failed independent verification: a bug
    PARTIAL = 5  # a plan of the other jobs: at least one job was set aside (named, with its reasons)
    INTERRUPTED = 130  # SIGINT (128 + 2)
    TERMINATED = 143  # SIGTERM (128 + 15)


class ProcureError(Exception):
    """Base of every error procure raises on purpose; ``exit_code`` is the command line's answer."""

    exit_code: ClassVar[ExitCode] = ExitCode.INPUT


@dataclass(frozen=True)
class Problem:
    """One thing wrong (or suspicious, when ``warning``) with an input file."""

    file: str
    field: str
    message: str
    line: int | None = None
    row: int | None = None
    warning: bool = False

    def __str__(self) -> str:
        # file and field may be user text (a path, a column header): shown escaped and bounded
        where = printable(self.file)
        if self.line is not None:
            where += f":{self.line}"
        if self.row is not None:
            where += f" row {self.row}"
        kind = "warning" if self.warning else "error"
        field = f" {shorten(printable(str(self.field)))}:" if self.field else ""
        return f"{where}: {kind}:{field} {printable(self.message)}"


class InputError(ProcureError):
    """Raised when an input file has one or more problems; carries all of them at once.

    ``not_kept`` counts, per file, problems found beyond ``MAX_KEPT_PER_FILE`` (only counted)."""

    exit_code = ExitCode.INPUT

    def __init__(self, problems: Iterable[Problem], not_kept: dict[str, int] | None = None):
        self.problems = [p for p in problems if not p.warning]
        self.not_kept = dict(not_kept or {})
        super().__init__("\n".join(str(p) for p in self.problems[:MAX_SHOWN_PER_FILE]))

    @property
    def count(self) -> int:
        """Every problem found, kept or only counted."""
        return len(self.problems) + sum(self.not_kept.values())


class ProblemLog:
    """Collects problems for one or more files; keeps at most ``MAX_KEPT_PER_FILE`` per file and
    counts the rest, so a hostile file with millions of bad cells costs bounded memory."""

    def __init__(self) -> None:
        self.kept: list[Problem] = []
        self.per_file: Counter[str] = Counter()
        self.not_kept: Counter[str] = Counter()

    def add(self, problem: Problem) -> None:
        if self.per_file[problem.file] < MAX_KEPT_PER_FILE:
            self.per_file[problem.file] += 1
            self.kept.append(problem)
        else:
            self.not_kept[problem.file] += 1

    def extend(self, problems: Iterable[Problem]) -> None:
        for p in problems:
            self.add(p)

    def absorb(self, exc: InputError) -> None:
        """Take over the problems of ``exc``, and its count of problems not kept."""
        self.extend(exc.problems)
        self.not_kept.update(exc.not_kept)

    def __bool__(self) -> bool:
        return bool(self.kept)

    def error(self) -> InputError:
        return InputError(self.kept, dict(self.not_kept))


def render_problems(exc: InputError, all_errors: bool = False) -> list[str]:
    """The lines to print for ``exc``: at most ``MAX_SHOWN_PER_FILE`` per file (unless
    ``all_errors``), then per file a line "… and N more in FILE (see --all-errors)"."""
    lines: list[str] = []
    shown: Counter[str] = Counter()
    hidden: Counter[str] = Counter()
    for p in exc.problems:
        if all_errors or shown[p.file] < MAX_SHOWN_PER_FILE:
            shown[p.file] += 1
            lines.append(str(p))
        else:
            hidden[p.file] += 1
    files = list(dict.fromkeys([p.file for p in exc.problems] + list(exc.not_kept)))
    for f in files:
        if hidden[f]:
            more = hidden[f] + exc.not_kept.get(f, 0)
            lines.append(f"… and {more:,} more in {printable(f)} (see --all-errors)")
        elif exc.not_kept.get(f):
            lines.append(
                f"… and {exc.not_kept[f]:,} more in {printable(f)}, not kept (at most {MAX_KEPT_PER_FILE:,} problems are kept per file)"
            )
    return lines


def did_you_mean(value: str, choices: Iterable[str]) -> str:
    """A ' (did you mean X?)' suffix for the closest allowed value, or '' when nothing is close."""
    choices = [str(c) for c in choices]  # StrEnum members print as their value
    lowered = {c.lower(): c for c in choices}
    if not isinstance(value, str) or len(value) > 200:  # nothing allowed is that long; spare difflib
        return ""
    hits = difflib.get_close_matches(value.lower(), list(lowered), n=1, cutoff=0.6)
    return f" (did you mean {lowered[hits[0]]!r}?)" if hits else ""


def unknown_choice(kind: str, value: str, choices: Iterable[str]) -> str:
    """Message for a value outside an allowed set, with a did-you-mean and the allowed values."""
    choices = sorted({str(c) for c in choices})
    allowed = ", ".join(choices) if len(choices) <= 16 else ", ".join(choices[:16]) + ", …"
    return f"unknown {kind} {echo(value)}{did_you_mean(value, choices)}; allowed: {allowed}"
