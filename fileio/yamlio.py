"""Safe, bounded YAML loading that remembers where every value came from.

The file is parsed once, by libyaml's C parser (``ruamel.yaml.clib``; ruamel.yaml's pure-Python
parser where the C one is not installed), into a stream of events that this module composes into
plain Python values itself, recording ``path -> line`` so validation errors can point at a line.
Composing from events keeps the work bounded while it happens, whatever the file's shape:

- the bytes read are capped per kind of file (``fileio.limits``), before anything is parsed;
- every value is counted as it is composed, an alias counting the values it repeats, and the file
  is refused at the first value over the limit (a 262,144-item list, or a "billion laughs");
- nesting deeper than ``MAX_YAML_DEPTH`` and a text longer than ``MAX_TEXT_CHARS`` are refused
  when they are reached, with their line;
- only the tags of plain data are read (``!!str``, ``!!int``, ``!!float``, ``!!bool``, ``!!null``,
  ``!!map``, ``!!seq``); any other tag (``!!binary``, ``!!python/...``, ``!foo``) is refused with
  its line, never dropped or decoded into something the text checks do not see.

Plain scalars resolve as ruamel.yaml's round-trip loader resolves them (YAML 1.2: ``yes``/``no`` are
text, ``010`` is 10), except that dates stay text (pydantic checks them and names a bad one).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ruamel.yaml import events as ev
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from procure.common.errors import InputError, Problem

from .limits import MAX_FILE_BYTES, MAX_TEXT_CHARS, MAX_YAML_DEPTH, MAX_YAML_VALUES  # noqa: F401  (MAX_FILE_BYTES re-exported)

Path_ = tuple[Any, ...]

_TAG = "tag:yaml.org,2002:"
#: tags of plain data; a scalar with one of these is converted like an untagged one of that type
_SCALAR_TAGS = {_TAG + t for t in ("str", "int", "float", "bool", "null")}
_COLLECTION_TAGS = {"mapping": _TAG + "map", "sequence": _TAG + "seq"}
_UNSUPPORTED = {
    _TAG + "binary": "binary data (!!binary) is not text; write the value as plain text",
    _TAG + "timestamp": None,  # read as the text it is, like an untagged date
}
_INT = re.compile(r"^-?(?:0|[1-9][0-9]{0,17})$")
_FLOAT = re.compile(r"^-?[0-9]{1,17}\.[0-9]{1,17}$")
#: plain scalars that start like this may be a number, bool, null, date or special value
_MAYBE_SPECIAL = frozenset("0123456789+-.~tTfFnN=<")
#: YAML 1.2's words for true, false and null (``yes``, ``no``, ``on``, ``off`` are text)
_WORDS = {
    w: v
    for ws, v in (("true True TRUE", True), ("false False FALSE", False), ("null Null NULL", None))
    for w in ws.split()
}


def read_text(path: Path, what: str = "file", limit: int = MAX_FILE_BYTES) -> str:
    """Read a UTF-8 text file within the size limit, or raise InputError saying why not."""
    from .reading import read_input

    raw = read_input(path, what, limit)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            [
                Problem(
                    str(path),
                    "",
                    f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); save the file as UTF-8",
                    line=line,
                )
            ]
        ) from None
    return text


def _events(text: str):
    """The parser's events: libyaml's C parser when installed, else ruamel.yaml's own."""
    try:
        from _ruamel_yaml import CParser  # ruamel.yaml.clib
    except ImportError:  # pragma: no cover - the C parser is a dependency on CPython
        from ruamel.yaml import YAML

        yield from YAML(typ="safe", pure=True).parse(text)
        return
    parser = CParser(text)
    while True:
        event = parser.get_event()
        yield event
        if isinstance(event, ev.StreamEndEvent):
            return


class _Scalars:
    """Plain scalars to Python values, as ruamel.yaml's round-trip loader resolves them; the common
    shapes (words, whole numbers, decimals) are converted here, the rest by ruamel.yaml itself."""

    def __init__(self) -> None:
        from ruamel.yaml import YAML
        from ruamel.yaml.constructor import RoundTripConstructor

        yaml = YAML(typ="rt", pure=True)
        yaml.Constructor = RoundTripConstructor
        self._resolver = yaml.resolver
        self._constructor = yaml.constructor
        self._memo: dict[tuple[str | None, str], Any] = {}

    def plain(self, value: str) -> Any:
        if not value:
            return None
        first = value[0]
        if first not in _MAYBE_SPECIAL:
            return value
        if first in "tTfFnN":
            return _WORDS.get(value, value)
        if _INT.match(value):
            return int(value)
        if _FLOAT.match(value):
            return float(value)
        return self.tagged(None, value)

    def tagged(self, tag: str | None, value: str) -> Any:
        """A scalar resolved by ruamel.yaml (``tag`` None: by its value), as a plain Python value."""
        from ruamel.yaml.nodes import ScalarNode

        key = (tag, value)
        if key in self._memo:
            return self._memo[key]
        if tag is None:
            tag = str(self._resolver.resolve(ScalarNode, value, (True, False)))
        if tag not in _SCALAR_TAGS:  # a date, or YAML 1.1's "=" and "<<" as values: the text itself
            out: Any = value
        else:
            if tag == _TAG + "int" and len(value) > 40:
                raise ValueError(f"a number with {len(value):,} characters is out of range")
            node = ScalarNode(tag, value)
            out = self._constructor.construct_object(node, deep=True)
            # ruamel's scalar subclasses (ScalarFloat, ScalarBoolean, HexInt...) -> plain Python
            if isinstance(out, bool) or out is None:
                out = bool(out) if out is not None else None
            elif isinstance(out, int):
                out = int(out)
            elif isinstance(out, float):
                out = float(out)
            elif isinstance(out, str):
                out = str(out)
            else:
                out = value
        if len(self._memo) < 10_000:
            self._memo[key] = out
        return out


_SCALARS: _Scalars | None = None


def _scalars() -> _Scalars:
    global _SCALARS
    if _SCALARS is None:
        _SCALARS = _Scalars()
    return _SCALARS


class _Refusal(Exception):
    """A problem found while composing: its message and 0-based line."""

    def __init__(self, message: str, line: int | None, at: Path_ = ()):
        super().__init__(message)
        self.message, self.line, self.at = message, line, at


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


class _Open:
    """A list or mapping being composed."""

    __slots__ = ("value", "at", "anchor", "is_map", "key", "key_line", "start", "merged")

    def __init__(self, value: Any, at: Path_, anchor: str | None, start: int):
        self.value, self.at, self.anchor, self.start = value, at, anchor, start
        self.is_map = isinstance(value, dict)
        self.key: Any = _NO_KEY
        self.key_line = 0
        self.merged: list[tuple[Any, int]] = []  # `<<` values: mappings whose keys fill in the rest


_NO_KEY = object()


def _compose(text: str, max_values: int) -> tuple[Any, dict[Path_, int]]:
    """Compose the single document of ``text`` into plain values and their lines (see the module doc)."""
    return _Composer(max_values).compose(text)


_Scalar, _Alias, _MapStart, _SeqStart = ev.ScalarEvent, ev.AliasEvent, ev.MappingStartEvent, ev.SequenceStartEvent
_MapEnd, _SeqEnd, _DocStart = ev.MappingEndEvent, ev.SequenceEndEvent, ev.DocumentStartEvent


class _Composer:
    """The state of composing one document: the open collections (``stack``, ``top``), the anchors, the
    values counted so far (an alias counts the values it repeats) and the line of every value."""

    def __init__(self, max_values: int):
        self.scalars = _scalars()
        self.max_values = max_values
        self.lines: dict[Path_, int] = {}
        self.anchors: dict[str, tuple[Any, int]] = {}  # anchor -> (value, values in it)
        self.open_anchors: set[str] = set()
        self.count = 0
        self.stack: list[_Open] = []
        self.top: _Open | None = None
        self.root: Any = None
        self.documents = 0
        self.done = False

    def compose(self, text: str) -> tuple[Any, dict[Path_, int]]:
        scalars, lines = self.scalars, self.lines
        for event in _events(text):
            kind = type(event)
            if kind is _Scalar or kind is _Alias or kind is _MapStart or kind is _SeqStart:
                self.count += 1
                line = event.start_mark.line
                self._check_count(line)
                if self.done:
                    raise _Refusal(
                        "malformed YAML: expected a single document in the stream, but found another value", line
                    )
                # the common case first, inline: a plain scalar item of a list
                top = self.top
                if (
                    kind is _Scalar
                    and top is not None
                    and not top.is_map
                    and event.tag is None
                    and not event.style
                    and event.anchor is None
                ):
                    value = event.value
                    if len(value) > MAX_TEXT_CHARS or (value and value[0] in _MAYBE_SPECIAL):
                        value = _scalar(event, scalars, line, top.at + (len(top.value),))
                    items = top.value
                    lines[top.at + (len(items),)] = line + 1
                    items.append(value)
                    continue
                self._node(event, kind, line)
            elif kind is _MapEnd or kind is _SeqEnd:
                self._close()
            elif kind is _DocStart:
                self.documents += 1
                if self.documents > 1:
                    raise _Refusal(
                        "malformed YAML: expected a single document in the stream, but found another document",
                        event.start_mark.line,
                    )
        return self.root, lines

    def _check_count(self, line: int) -> None:
        if self.count > self.max_values:
            raise _Refusal(
                f"the document holds more than {self.max_values:,} values (counting what YAML aliases repeat); "
                "refusing to read it",
                line,
            )

    def _node(self, event: Any, kind: type, line: int) -> None:
        """A scalar, an alias or an opening list or mapping, at the place the open collection gives it."""
        top = self.top
        is_key = top is not None and top.is_map and top.key is _NO_KEY
        at: Path_
        if top is None:
            at = ()
        elif top.is_map:
            at = top.at + ((top.key,) if not is_key else ())
        else:
            at = top.at + (len(top.value),)
        if kind is _Scalar:
            value = self._scalar(event, line, at)
        elif kind is _Alias:
            value = self._alias(event.anchor, line, at)
        else:
            self._open(event, kind is _MapStart, is_key, line, at)
            return
        self._deliver(value, is_key, line, at)

    def _scalar(self, event: Any, line: int, at: Path_) -> Any:
        if event.tag is None and not event.style and len(event.value) <= MAX_TEXT_CHARS:
            try:
                value = self.scalars.plain(event.value)
            except (ValueError, OverflowError, YAMLError) as exc:
                raise _Refusal(f"malformed YAML: {str(exc).strip()}", line, at) from None
        else:
            value = _scalar(event, self.scalars, line, at)
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1)
        return value

    def _alias(self, anchor: str, line: int, at: Path_) -> Any:
        """A copy of the anchored value; it counts every value it repeats."""
        if anchor in self.open_anchors:
            raise _Refusal(
                f"the alias *{anchor} refers to a value that contains it; a document must not contain itself", line, at
            )
        if anchor not in self.anchors:
            raise _Refusal(f"found undefined alias *{anchor}", line, at)
        value, size = self.anchors[anchor]
        self.count += size - 1
        self._check_count(line)
        return _copy(value)

    def _open(self, event: Any, is_map: bool, is_key: bool, line: int, at: Path_) -> None:
        """A list or mapping opens: placed in its parent now, filled until its end event."""
        if len(self.stack) >= MAX_YAML_DEPTH:
            raise _Refusal(f"malformed YAML: nested too deeply to read (more than {MAX_YAML_DEPTH} levels)", line)
        tag = event.tag
        if tag is not None and tag != "!" and tag != (_TAG + "map" if is_map else _TAG + "seq"):
            raise _Refusal(_tag_message(tag), line, at)
        if is_key:
            raise _Refusal("a key must be a single value (a name or a number), not a list or mapping", line, at)
        container: Any = {} if is_map else []
        if event.anchor is not None:
            self.open_anchors.add(event.anchor)
        if self.top is None:
            self.root = container
        else:
            _place(self.top, container, at, line, self.lines)
        self.top = _Open(container, at, event.anchor, self.count)
        self.stack.append(self.top)

    def _deliver(self, value: Any, is_key: bool, line: int, at: Path_) -> None:
        """A complete value: the document itself, a mapping's next key, or a value for its parent."""
        top = self.top
        if top is None:
            self.root, self.done = value, True
        elif is_key:
            if isinstance(value, (dict, list)):
                raise _Refusal("a key must be a single value (a name or a number), not a list or mapping", line, at)
            if value in top.value:
                first = self.lines.get(top.at + (value,))
                raise _Refusal(
                    f'malformed YAML: found duplicate key "{value}"' + (f" (first on line {first})" if first else ""),
                    line,
                )
            top.key, top.key_line = value, line
        else:
            _place(top, value, at, line, self.lines)

    def _close(self) -> None:
        """A list or mapping ends: its merge keys (``<<``) fill what it lacks, its anchor is now usable."""
        closed = self.stack.pop()
        for value, mline in closed.merged:
            for source in _merge_sources(value, mline):
                for k, v in source.items():
                    closed.value.setdefault(k, v)
        if closed.anchor is not None:
            self.open_anchors.discard(closed.anchor)
            self.anchors[closed.anchor] = (closed.value, self.count - closed.start + 1)
        self.top = self.stack[-1] if self.stack else None
        if self.top is None:
            self.done = True


def _place(parent: _Open, value: Any, at: Path_, line: int, lines: dict[Path_, int]) -> None:
    """Put ``value`` into the open collection ``parent`` (a mapping's pending key, or a list's end)."""
    if parent.is_map:
        key = parent.key
        if key == "<<" and isinstance(value, (dict, list)):
            parent.merged.append((value, line))  # may still be being composed: merged when the mapping closes
        else:
            parent.value[key] = value
            lines[at] = parent.key_line + 1
        parent.key = _NO_KEY
    else:
        parent.value.append(value)
        lines[at] = line + 1


def _merge_sources(value: Any, line: int) -> list[dict]:
    """YAML's merge key ``<<: *defaults`` (or a list of them): the mappings whose keys fill in the rest."""
    sources = value if isinstance(value, list) else [value]
    if not all(isinstance(source, dict) for source in sources):
        raise _Refusal("malformed YAML: a merge key (<<) takes a mapping or a list of mappings", line)
    return sources


def _tag_message(tag: str) -> str:
    known = _UNSUPPORTED.get(tag)
    if known:
        return known
    shown = "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag
    from procure.common.text import echo

    return (
        f"unknown YAML tag {echo(shown)}; procure reads plain YAML values (text, numbers, true/false, lists, mappings): "
        "remove the tag"
    )


def _scalar(event: Any, scalars: _Scalars, line: int, at: Path_) -> Any:
    value: str = event.value
    if len(value) > MAX_TEXT_CHARS:
        raise _Refusal(f"a text of {len(value):,} characters; the limit is {MAX_TEXT_CHARS:,}", line, at)
    tag = event.tag
    if tag is None:
        if event.style:  # quoted, literal or folded: text
            return value
        try:
            return scalars.plain(value)
        except (ValueError, OverflowError, YAMLError) as exc:
            raise _Refusal(f"malformed YAML: {str(exc).strip()}", line, at) from None
    if tag == "!":  # the non-specific tag: text
        return value
    if tag in _SCALAR_TAGS:
        if tag == _TAG + "str":
            return value
        try:
            return scalars.tagged(tag, value)
        except (ValueError, OverflowError, YAMLError) as exc:
            raise _Refusal(f"malformed YAML: {str(exc).strip()}", line, at) from None
    if tag in _UNSUPPORTED and _UNSUPPORTED[tag] is None:
        return value
    raise _Refusal(_tag_message(tag), line, at)


def load_yaml(
    path: Path, what: str = "file", *, limit: int = MAX_FILE_BYTES, max_values: int = MAX_YAML_VALUES
) -> tuple[Any, dict[Path_, int]]:
    """Parse a YAML file safely and once. Returns (plain data, {field path tuple: 1-based line}).
    ``limit``: bytes read at most; ``max_values``: values composed at most (aliases counted expanded)."""
    text = read_text(path, what, limit)
    return parse_yaml(text, str(path), max_values=max_values)


def parse_yaml(text: str, name: str = "<text>", *, max_values: int = MAX_YAML_VALUES) -> tuple[Any, dict[Path_, int]]:
    """:func:`load_yaml` on a text already read; ``name`` is the file named in messages."""
    try:
        return _compose(text, max_values)
    except _Refusal as exc:
        field = field_path(tuple(x for x in exc.at if x != "?")) if exc.at else ""
        raise InputError([Problem(name, field, exc.message, line=None if exc.line is None else exc.line + 1)]) from None
    except RecursionError:
        raise InputError([Problem(name, "", "malformed YAML: nested too deeply to read")]) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        msg = (exc.problem or exc.context or "malformed YAML").strip()
        raise InputError([Problem(name, "", f"malformed YAML: {msg}", line=line)]) from None
    except YAMLError as exc:
        raise InputError([Problem(name, "", f"malformed YAML: {exc}")]) from None
    except (ValueError, OverflowError) as exc:  # a scalar the constructor could not convert
        raise InputError([Problem(name, "", f"malformed YAML: {exc}")]) from None


def line_of(lines: dict[Path_, int], loc: Path_) -> int | None:
    """The line of the deepest known prefix of ``loc``."""
    loc = tuple(loc)
    while loc:
        if loc in lines:
            return lines[loc]
        loc = loc[:-1]
    return None


def field_path(loc: Path_) -> str:
    """('workloads', 0, 'method') -> 'workloads[0].method'."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out
