"""Turn pydantic ValidationErrors into Problems a person can act on."""

from __future__ import annotations

import re
from typing import Any, Callable

from pydantic import ValidationError

from .errors import Problem, did_you_mean
from .yamlio import field_path


def _message(err: dict[str, Any]) -> str:
    kind = err.get("type", "")
    msg = err.get("msg", "invalid value")
    if kind == "extra_forbidden":
        return "unknown field (not allowed here; check the spelling against the documented fields)"
    if kind == "missing":
        return "required field is missing"
    if kind in ("literal_error", "enum"):
        expected = err.get("ctx", {}).get("expected", "")
        hint = did_you_mean(err.get("input"), re.findall(r"'([^']*)'", expected)) if isinstance(err.get("input"), str) else ""
        return f"got {err.get('input')!r}{hint}; allowed: {expected}"
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    if msg.startswith("Assertion failed, "):
        msg = msg[len("Assertion failed, "):]
    if kind not in ("value_error", "assertion_error") and "input" in err and not isinstance(err["input"], (dict, list)):
        msg += f" (got {err['input']!r})"
    return msg


def problems_from(
    exc: ValidationError,
    file: str,
    prefix: tuple = (),
    line_for: Callable[[tuple], int | None] | None = None,
    row: int | None = None,
) -> list[Problem]:
    """One Problem per pydantic error, with field path and (YAML) line or (table) row."""
    out = []
    for err in exc.errors(include_url=False):
        loc = tuple(x for x in err["loc"] if not (isinstance(x, str) and x.startswith("function-")))
        loc = prefix + loc
        # pydantic puts union branch names into loc ("str", "ModelSpec"); drop them
        loc = tuple(x for x in loc if x not in ("str", "ModelSpec", "dict[str,any]", "float", "int"))
        line = line_for(loc) if line_for else None
        out.append(Problem(file, field_path(loc), _message(err), line=line, row=row))
    return out
