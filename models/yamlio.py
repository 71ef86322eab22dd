"""Safe, bounded YAML loading that remembers where every value came from.

ruamel.yaml's round-trip loader records the line of each key and item; we convert its tree to plain
Python while recording ``path -> line`` so validation errors can point at a line. Loading is bounded:
files over ``MAX_FILE_BYTES`` are refused, and alias expansion (the "billion laughs" attack) is cut off
after ``MAX_NODES`` values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import ConstructorError, RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from .errors import InputError, Problem
from .limits import MAX_FILE_BYTES, MAX_TEXT_CHARS  # noqa: F401  (MAX_FILE_BYTES re-exported)

MAX_NODES = 2_000_000

Path_ = tuple[Any, ...]


def read_text(path: Path, what: str = "file") -> str:
    """Read a UTF-8 text file within the size limit, or raise InputError saying why not."""
    from .fileio import read_input

    raw = read_input(path, what)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError([Problem(str(path), "", f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start}); save the file as UTF-8", line=line)]) from None
    return text


class _Constructor(RoundTripConstructor):
    """The round-trip constructor, with two changes for untrusted files: dates stay text (pydantic
    checks them and names a bad one, instead of a ValueError from deep inside the parser), and an
    integer too long for Python to convert is a YAML error with its line."""

    def construct_yaml_int(self, node):  # noqa: D102
        if len(str(node.value)) > 40:
            raise ConstructorError(None, None, f"a number with {len(str(node.value)):,} characters is out of range", node.start_mark)
        return super().construct_yaml_int(node)


_Constructor.add_constructor("tag:yaml.org,2002:timestamp", _Constructor.construct_yaml_str)
_Constructor.add_constructor("tag:yaml.org,2002:int", _Constructor.construct_yaml_int)


def load_yaml(path: Path, what: str = "file") -> tuple[Any, dict[Path_, int]]:
    """Parse a YAML file safely. Returns (plain data, {field path tuple: 1-based line})."""
    text = read_text(path, what)
    yaml = YAML(typ="rt", pure=True)
    yaml.Constructor = _Constructor
    yaml.allow_duplicate_keys = False
    try:
        tree = yaml.load(text)
    except RecursionError:
        raise InputError([Problem(str(path), "", "malformed YAML: nested too deeply to read")]) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        msg = (exc.problem or exc.context or "malformed YAML").strip()
        raise InputError([Problem(str(path), "", f"malformed YAML: {msg}", line=line)]) from None
    except YAMLError as exc:
        raise InputError([Problem(str(path), "", f"malformed YAML: {exc}")]) from None
    except (ValueError, OverflowError) as exc:  # a scalar the constructor could not convert
        raise InputError([Problem(str(path), "", f"malformed YAML: {exc}")]) from None
    if _expanded_size(tree) > MAX_NODES:
        raise InputError([Problem(str(path), "", f"document expands to more than {MAX_NODES:,} values (YAML aliases?); refusing to load it")])
    lines: dict[Path_, int] = {}
    budget = [MAX_NODES]

    def plain(node: Any, at: Path_) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise InputError([Problem(str(path), "", f"document expands to more than {MAX_NODES:,} values (YAML aliases?); refusing to load it")])
        if isinstance(node, CommentedMap):
            out = {}
            for key, value in node.items():
                try:
                    lines[at + (key,)] = node.lc.key(key)[0] + 1
                except (KeyError, TypeError, AttributeError):
                    pass
                out[key] = plain(value, at + (key,))
            return out
        if isinstance(node, CommentedSeq):
            out_l = []
            for i, value in enumerate(node):
                try:
                    lines[at + (i,)] = node.lc.item(i)[0] + 1
                except (KeyError, TypeError, AttributeError, IndexError):
                    pass
                out_l.append(plain(value, at + (i,)))
            return out_l
        if isinstance(node, str):
            if len(node) > MAX_TEXT_CHARS:
                raise InputError([Problem(str(path), field_path(at), f"a text of {len(node):,} characters; the limit is {MAX_TEXT_CHARS:,}", line=line_of(lines, at))])
            return str(node)
        if hasattr(node, "value") and type(node).__name__ == "TaggedScalar":
            return str(node.value)
        # ruamel scalar subclasses (ScalarFloat, ScalarBoolean...) -> plain Python
        if isinstance(node, bool):
            return bool(node)
        if isinstance(node, int):
            return int(node)
        if isinstance(node, float):
            return float(node)
        return node

    try:
        data = plain(tree, ())
    except RecursionError:
        raise InputError([Problem(str(path), "", "malformed YAML: nested too deeply to read")]) from None
    return data, lines


def _expanded_size(tree: Any) -> int:
    """Values the document would have once every alias is expanded, counted without expanding: an
    alias shares its anchor's node, so each distinct node is sized once (a billion laughs costs
    microseconds). A node that contains itself counts as unbounded."""
    sizes: dict[int, int] = {}

    def size(node: Any) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if isinstance(node, (CommentedMap, CommentedSeq)):
            sizes[key] = MAX_NODES + 1  # while visiting: reaching it again means a cycle
            children = node.values() if isinstance(node, CommentedMap) else node
            total = 1
            for child in children:
                total += size(child)
                if total > MAX_NODES:
                    break
            sizes[key] = total
            return total
        return 1

    try:
        return size(tree)
    except RecursionError:
        return MAX_NODES + 1


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
