"""The YAML loader (fileio/yamlio.py): work bounded while composing, only plain-data tags, and the same
values and lines as ruamel.yaml's round-trip loader gave for every file the project ships."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

import pytest

from procure.common.errors import InputError
from procure.fileio import yamlio
from procure.fileio.limits import MAX_WORKLOAD_BYTES, MAX_YAML_VALUES

ROOT = Path(__file__).resolve().parent.parent


def _round_trip(path: Path):
    """What the loader used to return: ruamel.yaml's round-trip tree as plain Python (dates as text)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    tree = YAML(typ="rt", pure=True).load(path.read_text(encoding="utf-8"))

    def plain(node):
        if isinstance(node, CommentedMap):
            return {k: plain(v) for k, v in node.items()}
        if isinstance(node, CommentedSeq):
            return [plain(v) for v in node]
        if isinstance(node, bool) or node is None:
            return node
        if isinstance(node, (dt.date, dt.datetime)):
            return node.isoformat()
        if type(node).__name__ == "TaggedScalar":  # YAML 1.1's "=" and "<<" as values
            return str(node.value)
        for kind in (int, float, str):
            if isinstance(node, kind):
                return kind(node)
        return node

    return plain(tree)


SHIPPED = sorted(p for p in ROOT.rglob("*.yaml") if ".venv" not in p.parts and "build" not in p.parts)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shipped_yaml_file_reads_as_the_round_trip_loader_read_it(path):
    data, lines = yamlio.load_yaml(path)
    assert data == _round_trip(path)
    assert all(isinstance(n, int) and n >= 1 for n in lines.values())


@pytest.mark.parametrize(
    "text",
    [
        "010",
        "0o10",
        "0x1F",
        "1_000",
        "1e5",
        "1.",
        ".5",
        "+1",
        "-0",
        "0.30",
        "1.5e3",
        "yes",
        "no",
        "on",
        "~",
        "null",
        "Null",
        "TRUE",
        "false",
        "2026-12-01",
        "2026-12-01 10:00",
        "=",
        "1:30",
        "0b101",
        ".NaN",
        "-.inf",
        "12345678901234567",
        "1:3200; 6:2900",
        "nvswitch",
        "'quoted 1'",
        '"2"',
        "! 12x",
    ],
)
def test_plain_scalars_resolve_as_before(tmp_path, text):
    path = tmp_path / "s.yaml"
    path.write_text(f"a: {text}\n")
    got, want = yamlio.load_yaml(path)[0]["a"], _round_trip(path)["a"]
    assert got == want or (isinstance(got, float) and math.isnan(got) and math.isnan(want))
    assert type(got) is type(want)


def test_lines_of_keys_and_items():
    data, lines = yamlio.parse_yaml(
        "name: x\nworkloads:\n  - name: a\n    tokens_b: 1\n  - {name: b}\nbase: &b {k: 1}\nother:\n  <<: *b\n  j: 2\n"
    )
    assert data["other"] == {"j": 2, "k": 1}
    assert (
        lines[("workloads", 0)] == 3
        and lines[("workloads", 0, "tokens_b")] == 4
        and lines[("workloads", 1, "name")] == 5
    )
    assert yamlio.line_of(lines, ("workloads", 1, "missing")) == 5


def test_the_value_count_stops_composing_at_the_limit(monkeypatch):
    """Bounded work, counted: a 100,000-item list is refused after about max_values events, not after
    the whole document was composed (the old loader checked only then)."""
    seen = [0]
    real = yamlio._events

    def counting(text):
        for event in real(text):
            seen[0] += 1
            yield event

    monkeypatch.setattr(yamlio, "_events", counting)
    with pytest.raises(InputError) as exc:
        yamlio.parse_yaml("junk:\n" + "- 1\n" * 100_000, "w.yaml", max_values=1_000)
    # the mapping, its key and the list are three values: the 1,001st is the 998th item, on line 999
    assert "holds more than 1,000 values" in str(exc.value) and exc.value.problems[0].line == 999
    assert seen[0] < 1_010


def test_an_alias_counts_the_values_it_repeats_without_copying_past_the_limit():
    laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 10) + "]\n" for k in range(1, 12)
    )
    with pytest.raises(InputError) as exc:
        yamlio.parse_yaml(laughs, "l.yaml")
    assert f"more than {MAX_YAML_VALUES:,} values (counting what YAML aliases repeat)" in str(exc.value)


@pytest.mark.parametrize(
    "text, phrase",
    [
        ("a: !!binary aGVsbG8=\n", "a: binary data (!!binary) is not text"),
        ("a: !foo bar\n", "1: error: a: unknown YAML tag '!foo'"),
        ("a:\n  b: !!python/name:os.system x\n", "2: error: a.b: unknown YAML tag '!!python/name:os.system'"),
        ("a: !!omap [{x: 1}]\n", "unknown YAML tag '!!omap'"),
        ("a: &x [*x]\n", "refers to a value that contains it"),
        ("a: b\n---\nc: d\n", "expected a single document"),
        ("? [1, 2]\n: x\n", "a key must be a single value"),
        ("a: " + "[" * 150 + "]" * 150 + "\n", "nested too deeply to read (more than 100 levels)"),
        ("a: '" + "x" * 10_001 + "'\n", "a: a text of 10,001 characters; the limit is 10,000"),
        ("a: 1\na: 2\n", 'found duplicate key "a" (first on line 1)'),
    ],
)
def test_what_the_loader_refuses_with_its_line(text, phrase):
    with pytest.raises(InputError) as exc:
        yamlio.parse_yaml(text, "f.yaml")
    assert phrase in str(exc.value)


def test_the_plain_data_tags_are_read():
    data, _ = yamlio.parse_yaml(
        "a: !!str 12\nb: !!int '12'\nc: !!float 1\nd: !!bool true\ne: !!null ''\nf: !!timestamp 2026-12-01\ng: !!map {k: !!seq [1]}\n"
    )
    assert data == {"a": "12", "b": 12, "c": 1.0, "d": True, "e": None, "f": "2026-12-01", "g": {"k": [1]}}


def test_a_workload_file_has_its_own_byte_limit(tmp_path):
    from procure.models.project import load_project

    path = tmp_path / "w.yaml"
    path.write_text("name: x\n" + "# " + "x" * MAX_WORKLOAD_BYTES + "\n")
    with pytest.raises(InputError) as exc:
        load_project(path)
    assert "the limit is 1 MiB (1,048,576 bytes)" in str(exc.value)
