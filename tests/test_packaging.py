"""The wheel installs one import root, ``procure``: no generic top-level ``models``/``solver``/... packages."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_wheel_holds_only_the_procure_package(tmp_path):
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    (wheel,) = tmp_path.glob("procure-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}
    assert top == {"procure"}
    for sub in ("common", "fileio", "models", "offers", "solver", "reports"):
        assert f"procure/{sub}/__init__.py" in names
    # file I/O installs as procure.fileio, never as a top-level io (which would shadow the standard library)
    assert "procure/fileio/outputs.py" in names and "procure/common/runtime.py" in names
    assert not any(
        n.startswith(("procure/models/fileio", "procure/models/yamlio", "procure/solver/runtime")) for n in names
    )
    # the data files travel with their packages
    assert "procure/models/data/gpus.yaml" in names and "procure/offers/data/catalog.yaml" in names


def test_the_default_install_brings_highs():
    """`pip install .` (the quick start) brings HiGHS: the value of waiting and the recourse bounds need it, and
    without it they used to disappear without a word. Read from the project's own declaration, not the environment."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = {d.split(">")[0].split("=")[0].split("<")[0].split(";")[0].strip().lower() for d in project["dependencies"]}
    assert "highspy" in names
    # the old extra still resolves, so `pip install 'procure[highs]'` keeps working
    assert "highs" in project["optional-dependencies"]
