"""User text: what a name may contain, and how any value is shown back safely.

Two lines of defence against text that would act on a terminal, a spreadsheet or a CSV reader:

- at load time, names and ids go through :func:`clean_name` (whitespace runs, CR and LF become one
  space; other control characters, invisible format characters and binary data are refused), so what
  is stored is plain printable text, and names are compared in their NFKC form (:func:`same_name_key`);
- at output time, :func:`printable` escapes any control character that still reaches a terminal, a
  workbook cell or a CSV field, and :func:`echo` shows a value inside a message: quoted, control
  characters escaped, at most ``ECHO_CHARS`` characters.

Control characters are Unicode category Cc (C0 ``\\x00-\\x1f``, DEL, C1 ``\\x80-\\x9f``, which
includes ESC and the 8-bit CSI) plus the bidirectional overrides and isolates (U+202A-U+202E,
U+2066-U+2069), which reorder what a reader sees.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from typing import Any

#: longest value echoed inside a message, characters (then "…")
ECHO_CHARS = 80

_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f" + _BIDI + "]")
_CONTROL_NO_NL_TAB = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + _BIDI + "]")
_SPACES = re.compile(r"\s+")
#: Text that a spreadsheet would read as a formula (or that CSV injection abuses, OWASP).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
#: what a spreadsheet skips before it looks for a formula's "=": blanks and control characters
_LEADING_BLANK = re.compile(r"^[\s\x00-\x1f\x7f-\x9f]+")


def _escape_char(m: re.Match) -> str:
    code = ord(m.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every control character written as a visible escape (ESC -> ``\\x1b``).
    ``keep_newlines`` keeps LF and TAB, for multi-line messages the program itself composed."""
    pattern = _CONTROL_NO_NL_TAB if keep_newlines else _CONTROL
    return pattern.sub(_escape_char, text)


def formula_safe(raw: str) -> str:
    """``raw`` as a CSV cell a spreadsheet shows as text: an apostrophe before text that it would run as a
    formula (it begins with =, +, -, @, also after leading blanks or control characters)."""
    if raw.startswith(FORMULA_PREFIXES) or _LEADING_BLANK.sub("", raw).startswith(FORMULA_PREFIXES):
        return "'" + raw
    return raw


def shorten(text: str, limit: int = ECHO_CHARS) -> str:
    """At most ``limit`` characters; a longer text keeps its start and ends in "…"."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def echo(value: Any, limit: int = ECHO_CHARS) -> str:
    """A user value as shown inside a message: ``repr``-quoted, control characters escaped, at most
    ``limit`` characters. Safe for any input, including integers too long to print in full (Python
    refuses ``str()`` of an int over 4,300 digits)."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        digits = _int_digits(value)
        if digits > limit:
            return f"a {digits:,}-digit integer"
        return repr(value)
    if isinstance(value, str):
        # repr escapes control characters; cut the text first so a 20 MB value costs nothing
        return shorten(repr(value[: limit + 1]) if len(value) > limit else repr(value), limit)
    if isinstance(value, (dt.date, dt.time)):  # a date or time cell: as a spreadsheet shows it, not datetime.time(0, 0)
        text = value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
        return shorten(repr(text.removesuffix(" 00:00:00")), limit)
    if isinstance(value, dt.timedelta):
        return repr(str(value))
    if isinstance(value, float):
        return repr(value)
    try:
        text = repr(value)
    except ValueError:  # e.g. a container holding a giant int
        text = f"<{type(value).__name__}>"
    return shorten(printable(text), limit)


def _int_digits(value: int) -> int:
    """Decimal digits of ``value`` without converting it to text (exact up to a few digits)."""
    bits = abs(value).bit_length()
    if bits <= 4000:  # well under the 4,300-digit conversion limit
        return len(str(abs(value)))
    return int(bits * 0.30103) + 1


def clean_name(value: Any, what: str = "name") -> Any:
    """A name as stored: leading/trailing whitespace removed and every run of whitespace (tabs, CR, LF
    included) made one space, so names that differ only in whitespace are the same name. Control
    characters and invisible format characters (Unicode category Cf: zero-width spaces and joiners,
    the bidirectional marks, soft hyphens, ...) are refused: two names that print alike must be the
    same name. Binary data (YAML ``!!binary``) is refused: a name is text. Other non-strings are
    returned unchanged for the type check to report."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        raise ValueError(f"{what} is binary data, not text; write it as plain text")
    if not isinstance(value, str):
        return value
    text = _SPACES.sub(" ", value).strip()
    bad = _CONTROL.search(text)
    if bad:
        raise ValueError(
            f"{what} contains the control character {_escape_char(bad)} at position {bad.start() + 1}; "
            "use printable text only"
        )
    if not text.isprintable():  # only Cf is left to find (Cc is refused above, whitespace is one space)
        for i, ch in enumerate(text):
            if unicodedata.category(ch) == "Cf":
                name = unicodedata.name(ch, "")
                raise ValueError(
                    f"{what} contains the invisible character \\u{ord(ch):04x}{f' ({name})' if name else ''} at position {i + 1}; "
                    "names may hold visible characters and spaces only"
                )
    if not text:
        raise ValueError(f"{what} is blank; give a name")
    return text


def same_name_key(name: str) -> str:
    """What two names are compared by: their NFKC normal form, so that a fullwidth "ｊｏｂ" or a
    ligature "ﬁne-tune" is the same name as "job" or "fine-tune"."""
    return unicodedata.normalize("NFKC", name)
