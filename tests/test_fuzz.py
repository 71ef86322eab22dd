"""Fuzzing: valid workload YAML and catalog CSV/XLSX, mutated (types, missing and unknown keys,
unicode and control characters, huge and non-finite numbers, dates), must always end cleanly:
exit 0, 1 or 2, no traceback, bounded output, no escape sequence on the terminal.

Runs in-process through the CLI; ``max_examples`` keeps the whole file to a few seconds per test.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import tempfile
import traceback
from pathlib import Path

import openpyxl
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from ruamel.yaml import YAML
from typer.testing import CliRunner

from procure.cli import app
from tests.hostile.generate import ROW, _csv

#: examples per test; raise it for a longer hunt: PROCURE_FUZZ_EXAMPLES=2000 pytest tests/test_fuzz.py
SETTINGS = settings(
    max_examples=int(os.environ.get("PROCURE_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
MAX_OUTPUT_CHARS = 100_000

WORKLOAD = {
    "name": "demo",
    "start_date": dt.date(2026, 12, 1),
    "horizon_months": 12,
    "period_days": 7,
    "budget": 500000,
    "discount_rate": 0.08,
    "electricity_price_per_kwh": 0.12,
    "pue": 1.3,
    "team_region": "us-east",
    "workloads": [
        {
            "name": "a",
            "model": "llama-2-7b",
            "method": "lora",
            "tokens_b": 0.5,
            "seq_len": 4096,
            "lora_rank": 16,
            "earliest_start_days": 0,
            "deadline_days": 30,
            "dataset_tb": 0.05,
            "checkpoint_every_hours": 4,
            "checkpoints_kept": 2,
        }
    ],
}

#: values an attacker or a careless user could put anywhere
hostile_scalars = st.one_of(
    st.booleans(),
    st.none(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.integers(min_value=10**4000, max_value=10**4400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([float("inf"), float("-inf"), float("nan"), 1e309, -0.0, 5e-324, 1.7976931348623157e308]),
    st.text(max_size=40),
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x9F), max_size=20),  # C0, C1, ESC, CR, LF
    st.sampled_from(
        ["\x1b[31mred", "job\r=1+1", "=cmd|' /C calc'!A0", "  ", "\u202egnp.exe", "９", "1e309", "Infinity"]
    ),
    st.dates(min_value=dt.date(1, 1, 1), max_value=dt.date(9999, 12, 31)),
    st.sampled_from(["2026-13-01", "0000-01-01", "2025-02-30", "9999-12-31", "46357", "1796083200"]),
)
hostile_values = st.one_of(
    hostile_scalars,
    st.lists(hostile_scalars, max_size=3),
    st.dictionaries(st.text(max_size=5), hostile_scalars, max_size=2),
)


def _run(args: list[str]) -> None:
    res = CliRunner().invoke(app, args)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise AssertionError("".join(traceback.format_exception(res.exception)) + "\n" + res.output[-2000:])
    assert res.exit_code in (0, 1, 2), (res.exit_code, res.output[-2000:])
    assert "Traceback" not in res.output
    assert len(res.output) <= MAX_OUTPUT_CHARS, len(res.output)
    assert "\x1b" not in res.output and "\x9b" not in res.output


def _dump(data) -> str:
    buf = io.StringIO()
    yaml = YAML(typ="safe", pure=True)
    yaml.dump(data, buf)
    return buf.getvalue()


@st.composite
def mutated_workloads(draw):
    data = {k: (v if k != "workloads" else [dict(w) for w in v]) for k, v in WORKLOAD.items()}
    for _ in range(draw(st.integers(1, 3))):
        target = draw(st.sampled_from(["top", "job"]))
        obj = (
            data
            if target == "top" or not isinstance(data.get("workloads"), list) or not data["workloads"]
            else data["workloads"][0]
        )
        if not isinstance(obj, dict):
            break
        action = draw(st.sampled_from(["replace", "replace", "replace", "delete", "add"]))
        keys = sorted(obj, key=str)
        if action == "add" or not keys:
            obj[draw(st.text(min_size=1, max_size=8))] = draw(hostile_scalars)
        elif action == "delete":
            del obj[draw(st.sampled_from(keys))]
        else:
            obj[draw(st.sampled_from(keys))] = draw(hostile_values)
    return data


@pytest.mark.slow
@SETTINGS
@given(data=mutated_workloads())
def test_fuzzed_workload_ends_cleanly(data):
    try:
        text = _dump(data)
    except Exception:  # a value YAML cannot write (e.g. a lone surrogate): not an input anyone can give
        return
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "w.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        _run(["size", str(path), "--gpu", "H100", "--gpus", "8"])


@pytest.mark.slow  # over 3 s on two cores
@SETTINGS
@given(text=st.text(max_size=60), at=st.integers(0, 400))
def test_fuzzed_workload_text_ends_cleanly(text, at):
    """Raw text spliced anywhere into a valid file: broken YAML, odd indentation, stray characters."""
    base = _dump(WORKLOAD)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "w.yaml"
        path.write_bytes((base[:at] + text + base[at:]).encode("utf-8", "surrogatepass"))
        _run(["size", str(path), "--gpu", "H100", "--gpus", "8"])


def _cell_text(v) -> str:
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (list, dict)):
        return str(v)[:50]
    return "" if v is None else str(v) if not isinstance(v, int) or abs(v) < 10**4000 else "9" * 4500


@st.composite
def mutated_rows(draw):
    rows = [dict(ROW, id=f"v{i}") for i in range(draw(st.integers(1, 3)))]
    for _ in range(draw(st.integers(1, 4))):
        row = draw(st.sampled_from(rows))
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "add":
            row[draw(st.text(min_size=1, max_size=8))] = draw(hostile_scalars)
        elif action == "delete":
            row.pop(draw(st.sampled_from(sorted(row))), None)
        else:
            row[draw(st.sampled_from(sorted(row)))] = draw(hostile_scalars)
    return rows


@pytest.mark.slow
@SETTINGS
@given(rows=mutated_rows())
def test_fuzzed_csv_catalog_ends_cleanly(rows):
    text = _csv([{k: _cell_text(v) for k, v in r.items()} for r in rows])
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "c.csv"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        _run(["offers", "validate", str(path)])


def _xlsx_value(v):
    """What a spreadsheet cell can hold: numbers (finite), booleans, text, dates."""
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return str(v)
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**53:
        return _cell_text(v)[:100]
    if isinstance(v, str):
        return openpyxl.cell.cell.ILLEGAL_CHARACTERS_RE.sub("", v)
    if isinstance(v, dt.date) and not (dt.date(1900, 3, 1) <= v <= dt.date(9999, 12, 31)):
        return v.isoformat()
    if isinstance(v, (list, dict)):
        return str(v)[:50]
    return v


@pytest.mark.slow  # over 3 s on two cores
@SETTINGS
@given(rows=mutated_rows())
def test_fuzzed_xlsx_catalog_ends_cleanly(rows):
    cols = list(dict.fromkeys(k for r in rows for k in r))
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "offers"
    ws.append([openpyxl.cell.cell.ILLEGAL_CHARACTERS_RE.sub("", c) for c in cols])
    for r in rows:
        ws.append([_xlsx_value(r.get(c)) for c in cols])
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "c.xlsx"
        try:
            wb.save(path)
        except Exception:  # a value openpyxl itself refuses to write: no spreadsheet could hold it
            return
        _run(["offers", "validate", str(path)])
