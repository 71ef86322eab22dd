"""Typed errors and exit codes.

Every error procure raises on purpose derives from ``ProcureError`` and carries the documented exit code
of its family (``ExitCode``), so the command line maps errors to codes in one place. Input errors name
the file, the field path, the line or row, and what is allowed.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar, Iterable


class ExitCode(IntEnum):
    """The documented exit codes of the command line (README, ``procure --help``, docs/errors.md)."""

    OK = 0  # a plan: optimal, or feasible with its proven gap
    INPUT = 1  # bad input or usage, or an output path that cannot be written
    INFEASIBLE = 2  # no plan meets every rule; the reasons are printed
    NO_SOLUTION = 3  # no solution within the time limit, or the solver is missing or failed
    VERIFY = 4  # the plan failed independent verification: a bug
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
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
        if self.row is not None:
            where += f" row {self.row}"
        kind = "warning" if self.warning else "error"
        field = f" {self.field}:" if self.field else ""
        return f"{where}: {kind}:{field} {self.message}"


class InputError(ProcureError):
    """Raised when an input file has one or more problems; carries all of them at once."""

    exit_code = ExitCode.INPUT

    def __init__(self, problems: Iterable[Problem]):
        self.problems = [p for p in problems if not p.warning]
        super().__init__("\n".join(str(p) for p in self.problems))


def did_you_mean(value: str, choices: Iterable[str]) -> str:
    """A ' (did you mean X?)' suffix for the closest allowed value, or '' when nothing is close."""
    choices = [str(c) for c in choices]  # StrEnum members print as their value
    lowered = {c.lower(): c for c in choices}
    hits = difflib.get_close_matches(str(value).lower(), list(lowered), n=1, cutoff=0.6)
    return f" (did you mean {lowered[hits[0]]!r}?)" if hits else ""


def unknown_choice(kind: str, value: str, choices: Iterable[str]) -> str:
    """Message for a value outside an allowed set, with a did-you-mean and the allowed values."""
    choices = sorted({str(c) for c in choices})
    allowed = ", ".join(choices) if len(choices) <= 16 else ", ".join(choices[:16]) + ", …"
    return f"unknown {kind} {value!r}{did_you_mean(value, choices)}; allowed: {allowed}"
