"""No import arrow runs upward: the ground (common/) imports nothing of procure's but itself, file handling (fileio/)
only the ground, and the reports never the cost model's functions (ruff's banned-api, test_ledger)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _procure_imports(folder: str) -> set[str]:
    out = set()
    for path in (ROOT / folder).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.level == 0
                and node.module.startswith("procure")
            ):
                out.add(node.module)
            elif isinstance(node, ast.Import):
                out |= {a.name for a in node.names if a.name.startswith("procure")}
    return out


@pytest.mark.parametrize(
    ("folder", "allowed"), [("common", ("procure.common",)), ("fileio", ("procure.common", "procure.fileio"))]
)
def test_the_ground_and_file_handling_import_nothing_above_them(folder, allowed):
    above = {m for m in _procure_imports(folder) if not m.startswith(allowed)}
    assert above == set()
