"""Strict input models, and pydantic ValidationErrors turned into Problems a person can act on.

Every input model derives from :class:`InputModel`: unknown fields are errors, and numbers are
numbers — ``true``/``false`` is never read as 1/0, and every float is finite; each number field
carries a documented plausible range (``fileio.limits``; a test checks every field has an upper bound). Dates are
:data:`Date`: an ISO ``YYYY-MM-DD`` text or a real date cell, between ``MIN_DATE`` and ``MAX_DATE``.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, model_validator

from procure.common.errors import Problem, did_you_mean
from procure.common.text import echo
from procure.fileio.limits import MAX_DATE, MIN_DATE
from procure.fileio.yamlio import field_path

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
#: Excel serial day numbers of 1982..2119 — a number in this range given as a date is probably one
_SERIAL_RANGE = (30_000, 80_000)
_EXCEL_EPOCH = dt.date(1899, 12, 30)


def _accepts_bool(annotation: Any) -> bool:
    if annotation is bool:
        return True
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType) or origin is Annotated:
        return any(_accepts_bool(a) for a in typing.get_args(annotation))
    return False


def _numeric(annotation: Any) -> bool:
    if annotation in (int, float):
        return True
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType) or origin is Annotated:
        return any(_numeric(a) for a in typing.get_args(annotation))
    return False


_NUMERIC_FIELDS: dict[type, frozenset[str]] = {}
#: what a true/false in a number field is replaced by, so pydantic reports it at its own field
_BOOL_TEXT = {True: "true", False: "false"}


class InputModel(BaseModel):
    """Base of every model read from a user's file (see the module docstring for the rules).

    Every numeric field must carry an upper bound (``le``/``lt``): a test checks it for every model."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _numbers_are_numbers(cls, data: Any) -> Any:
        # one pass per row, not one validator call per field: a 100,000-row catalog stays fast
        if not isinstance(data, dict):
            return data
        numeric = _NUMERIC_FIELDS.get(cls)
        if numeric is None:
            numeric = _NUMERIC_FIELDS[cls] = frozenset(
                name
                for name, f in cls.model_fields.items()
                if _numeric(f.annotation) and not _accepts_bool(f.annotation)
            )
        bad = [k for k, v in data.items() if v.__class__ is bool and k in numeric]
        if not bad:
            return data
        return {k: (_BOOL_TEXT[v] if k in bad else v) for k, v in data.items()}


def parse_date(value: Any) -> dt.date:
    """A date from an ISO ``YYYY-MM-DD`` text or a date cell, inside [MIN_DATE, MAX_DATE]. Numbers are
    refused: read as Unix timestamps or Excel serials they would silently mean some other day."""
    if isinstance(value, dt.datetime):
        if value.time() != dt.time(0):
            raise ValueError(f"expected a date without a time of day (got {value.isoformat()})")
        value = value.date()
    if isinstance(value, dt.date):
        day = value
    elif isinstance(value, str) and _ISO_DATE.match(value.strip()):
        try:
            day = dt.date.fromisoformat(value.strip())
        except ValueError as exc:
            raise ValueError(f"{echo(value)} is not a calendar date ({exc}); write YYYY-MM-DD") from None
    else:
        raise ValueError(_not_a_date(value))
    if not MIN_DATE <= day <= MAX_DATE:
        raise ValueError(f"{day.isoformat()} is outside {MIN_DATE.year}–{MAX_DATE.year}; check the year")
    return day


def _not_a_date(value: Any) -> str:
    msg = f"expected a date written YYYY-MM-DD, e.g. 2026-12-01 (got {echo(value)})"
    number = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str):
        try:
            number = float(value.strip()) if len(value) < 40 else None
        except ValueError:
            number = None
    if number is not None and _SERIAL_RANGE[0] <= number <= _SERIAL_RANGE[1] and number == int(number):
        day = _EXCEL_EPOCH + dt.timedelta(days=int(number))
        msg += f"; {echo(value)} looks like an Excel serial day number ({day.isoformat()}): format the cell as a date, or type the date as text"
    elif number is not None:
        msg += "; a number is not read as a date"
    return msg


#: a date field: ISO text or a real date cell, within the documented window
Date = Annotated[dt.date, BeforeValidator(parse_date)]


#: unknown fields per validation given a did-you-mean; more than are printed by default (errors.MAX_SHOWN_PER_FILE)
MAX_HINTS = 200


def _model_of(annotation: Any) -> Any:
    """The pydantic model, list or dict inside an annotation (``X | None``, ``Annotated[X, ...]``, ``str | X``)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType, Annotated):
        for arg in typing.get_args(annotation):
            inner = _model_of(arg)
            if inner is not None:
                return inner
        return None
    if origin in (list, dict) or (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
        return annotation
    return None


def fields_at(model: Any, loc: tuple) -> list[str]:
    """The field names allowed at ``loc`` (a pydantic error location) inside ``model``: the names an
    unknown field there may be a misspelling of; [] where the location is not a model."""
    here = model
    for part in loc:
        here = _model_of(here)
        if here is None:
            return []
        if typing.get_origin(here) in (list, dict):
            here = typing.get_args(here)[-1] if typing.get_args(here) else None
        elif isinstance(part, str) and part in here.model_fields:
            here = here.model_fields[part].annotation
        else:
            return []
    here = _model_of(here)
    if isinstance(here, type) and issubclass(here, BaseModel):
        return list(here.model_fields)
    return []


@functools.lru_cache(maxsize=1024)
def _hint(name: str, allowed: tuple[str, ...]) -> str:
    # one search per distinct misspelling: the same wrong key on 10,000 rows of a catalog costs one
    return did_you_mean(name, allowed)


def unknown_field(name: Any, allowed: list[str]) -> str:
    """The message of a field (or column) that is not one of ``allowed``, with a did-you-mean (difflib)."""
    hint = _hint(name, tuple(allowed)) if isinstance(name, str) and allowed else ""
    if hint:
        return f"unknown field{hint}"
    return "unknown field (not allowed here; check the spelling against the documented fields)"


def _message(err: dict[str, Any], model: Any = None) -> str:
    kind = err.get("type", "")
    msg = err.get("msg", "invalid value")
    if kind == "extra_forbidden":
        loc = tuple(err.get("loc", ()))
        return unknown_field(loc[-1] if loc else None, fields_at(model, loc[:-1]) if model is not None else [])
    if kind == "missing":
        return "required field is missing"
    if kind in ("literal_error", "enum"):
        expected = err.get("ctx", {}).get("expected", "")
        given = err.get("input")
        hint = did_you_mean(given, re.findall(r"'([^']*)'", expected)) if isinstance(given, str) else ""
        return f"got {echo(err.get('input'))}{hint}; allowed: {expected}"
    if kind in ("float_parsing", "int_parsing") and err.get("input") in ("true", "false"):
        return f"{err['input']} is not a number; write the number itself"
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if msg.startswith("Assertion failed, "):
        msg = msg[len("Assertion failed, ") :]
    if kind not in ("value_error", "assertion_error") and "input" in err and not isinstance(err["input"], (dict, list)):
        msg += f" (got {echo(err['input'])})"
    return msg


def problems_from(
    exc: ValidationError,
    file: str,
    prefix: tuple = (),
    line_for: Callable[[tuple], int | None] | None = None,
    row: int | None = None,
    model: Any = None,
) -> list[Problem]:
    """One Problem per pydantic error, with field path and (YAML) line or (table) row. ``model``: the
    model validated, whose field names give an unknown field its did-you-mean."""
    out = []
    hints = MAX_HINTS  # did-you-mean (difflib) for the first unknown fields only: a file of 70,000 costs no more
    for err in exc.errors(include_url=False):
        loc = tuple(x for x in err["loc"] if not (isinstance(x, str) and x.startswith("function-")))
        loc = prefix + loc
        # pydantic puts union branch names into loc ("str", "ModelSpec"); drop them
        loc = tuple(x for x in loc if x not in ("str", "ModelSpec", "dict[str,any]", "float", "int", "[key]"))
        line = line_for(loc) if line_for else None
        clean = {
            **err,
            "loc": tuple(
                x
                for x in err["loc"]
                if x not in ("str", "dict[str,any]", "float", "int", "[key]")
                and not (isinstance(x, str) and x.startswith("function-"))
            ),
        }
        if err["type"] == "extra_forbidden":
            hints -= 1
        out.append(Problem(file, field_path(loc), _message(clean, model if hints >= 0 else None), line=line, row=row))
    return out
