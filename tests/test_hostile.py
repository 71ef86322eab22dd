"""The hostile-input corpus (tests/hostile/generate.py), each case in a child process under limits.

Every case must end within ``CPU_SECONDS`` of CPU time and ``MEMORY_BYTES`` of address space
(``resource.setrlimit`` in the child), with exit code 1 (or 2 where stated), the phrase the case
names, no traceback, and bounded output. A wall-clock timeout catches a process that blocks (a FIFO)
rather than computes; it is generous because the test machine may be busy, and is a hang guard, not
a benchmark.
"""

from __future__ import annotations

import os
import resource
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile.generate import generate

#: the corpus (a session fixture) runs once, on one worker
pytestmark = pytest.mark.xdist_group("hostile")

CPU_SECONDS = 10
MEMORY_BYTES = 500 * 2**20
WALL_SECONDS = 60  # hang guard only
MAX_OUTPUT_BYTES = 64 * 1024

CASES = {c.name: c for c in generate(None)}


def _limits(cpu: int = CPU_SECONDS) -> None:  # runs in the child, before procure starts
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))


def run_limited(args: list[str], cwd: Path, cpu: int | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", COLUMNS="160")
    return subprocess.run(
        [sys.executable, "-m", "procure", *args],
        cwd=cwd,
        preexec_fn=lambda: _limits(cpu or CPU_SECONDS),
        capture_output=True,
        timeout=WALL_SECONDS,
        env=env,
    )


def assert_clean_refusal(res: subprocess.CompletedProcess, expect: str, codes=(1,)) -> str:
    out = (res.stdout + res.stderr).decode("utf-8", "replace")
    assert res.returncode in codes, (
        f"exit {res.returncode} (a negative code is a signal: -24 CPU limit, -9 killed)\n{out[-3000:]}"
    )
    assert "Traceback" not in out, out[-3000:]
    assert len(out.encode()) <= MAX_OUTPUT_BYTES, f"{len(out):,} characters of output"
    assert expect in out, out[-3000:]
    assert "\x1b" not in out  # no escape sequence from the data reaches the terminal
    assert "datetime." not in out and "<openpyxl" not in out, out[-3000:]  # values as typed, never Python objects
    return out


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    generate(folder)
    return folder


@pytest.fixture(scope="session")
def corpus_results(corpus) -> dict[str, subprocess.CompletedProcess | BaseException]:
    """Every case run once, two at a time (each child has its own CPU-time limit, so running them side
    by side changes no verdict; it halves the wall time on two cores), one at a time under pytest-xdist, whose
    other worker has the second core."""
    from concurrent.futures import ThreadPoolExecutor

    def one(case):
        try:
            return run_limited(case.args, corpus, case.cpu)
        except BaseException as exc:  # noqa: BLE001 — reported by the case's own test
            return exc

    with ThreadPoolExecutor(max_workers=1 if os.environ.get("PYTEST_XDIST_WORKER") else 2) as pool:
        return dict(zip(CASES, pool.map(one, CASES.values()), strict=True))


@pytest.mark.slow  # the corpus runs every case in a child with its resource limits: about a minute in all
@pytest.mark.parametrize("name", list(CASES))
def test_hostile_case_exits_cleanly_within_limits(corpus_results, name):
    case = CASES[name]
    res = corpus_results[name]
    if isinstance(res, BaseException):
        raise res
    assert_clean_refusal(res, case.expect, case.codes)


def test_a_valid_input_passes_under_the_same_limits(corpus):
    """The limits leave room for real work: the guard is not what makes the cases above fail."""
    from tests.hostile.generate import ROW, _csv, _workload

    (corpus / "ok.csv").write_text(_csv([ROW]))
    (corpus / "ok.yaml").write_text(_workload())
    res = run_limited(["offers", "validate", "ok.csv"], corpus)
    assert res.returncode == 0 and b"ok: 1 offers" in res.stdout, res.stderr
    res = run_limited(["size", "ok.yaml", "--gpu", "H100", "--gpus", "8"], corpus)
    assert res.returncode == 0, res.stderr


# --- special files: never read a device, never block on a FIFO -------------------------------------


def test_fifo_as_workload_or_catalog_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "w.yaml")
    os.mkfifo(tmp_path / "c.csv")
    out = assert_clean_refusal(
        run_limited(["size", "w.yaml", "--gpu", "H100", "--gpus", "8"], tmp_path), "named pipe (FIFO)"
    )
    assert "w.yaml: error: workload file is a named pipe (FIFO), not a regular file; give a file" in out
    assert_clean_refusal(
        run_limited(["offers", "validate", "c.csv"], tmp_path), "c.csv: error: catalog is a named pipe (FIFO)"
    )


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_device_as_workload_or_catalog_is_refused_unread(tmp_path, device):
    if not os.path.exists(device):
        pytest.skip(f"{device} is not on this system")
    for name in ("w.yaml", "c.csv", "c.xlsx"):
        (tmp_path / name).symlink_to(device)
    assert_clean_refusal(
        run_limited(["size", "w.yaml", "--gpu", "H100", "--gpus", "8"], tmp_path),
        "is a character device, not a regular file",
    )
    assert_clean_refusal(
        run_limited(["offers", "validate", "c.csv"], tmp_path), "is a character device, not a regular file"
    )
    assert_clean_refusal(
        run_limited(["offers", "validate", "c.xlsx"], tmp_path), "is a character device, not a regular file"
    )


def test_socket_as_catalog_is_refused(tmp_path):
    path = tmp_path / "s.csv"
    with socket.socket(socket.AF_UNIX) as s:
        try:
            s.bind(str(path))
        except OSError as exc:  # path too long for AF_UNIX on some systems
            pytest.skip(f"cannot bind a socket here: {exc}")
        assert stat.S_ISSOCK(os.stat(path).st_mode)
        assert_clean_refusal(run_limited(["offers", "validate", "s.csv"], tmp_path), "is a socket, not a regular file")


def test_a_file_that_grows_past_the_limit_while_read_is_cut_off(tmp_path, monkeypatch):
    """The byte cap counts what is read, not what stat said: a file reported small but longer is refused."""
    from procure.common.errors import InputError
    from procure.fileio import reading as fileio

    path = tmp_path / "c.csv"
    path.write_bytes(b"x" * 5000)
    with pytest.raises(InputError) as exc:
        fileio.read_input(path, "catalog", limit=1000)
    assert "catalog is 5,000 bytes; the limit is 1,000 bytes" in str(exc.value)
    # stat says 10 bytes, the file holds 5000: only limit + 1 bytes are read, then it is refused
    real_stat = os.stat

    class Small:
        def __init__(self, st):
            self._st = st

        def __getattr__(self, k):
            return 10 if k == "st_size" else getattr(self._st, k)

    monkeypatch.setattr(fileio.os, "stat", lambda p, *a, **k: Small(real_stat(p, *a, **k)))
    with pytest.raises(InputError) as exc:
        fileio.read_input(path, "catalog", limit=1000)
    assert "catalog is larger than the limit (1,000 bytes)" in str(exc.value)


# --- outputs that are symbolic links: refused before any work, naming the link ---------------------


@pytest.mark.parametrize("dangling", [False, True])
def test_an_output_that_is_a_symlink_is_refused_before_any_work(tmp_path, dangling):
    """Writing through a link would put the file where the command line does not say; the link is
    refused when the outputs are checked, before the workload is even read (here it does not exist,
    and that is not what is reported)."""
    target = tmp_path / "elsewhere.json"
    if not dangling:
        target.write_text("keep me")
    # a relative link: the message names the link as written, and echo() shortens a long one (a worker's tmp_path)
    (tmp_path / "plan.json").symlink_to(target.name)
    (tmp_path / "r.xlsx").symlink_to(tmp_path / "nowhere.xlsx")
    out = assert_clean_refusal(
        run_limited(["solve", "missing.yaml", "--json", "plan.json"], tmp_path),
        "plan.json: error: --json: is a symbolic link",
    )
    assert (
        "elsewhere.json" in out and ("which does not exist" in out) == dangling and "workload file not found" not in out
    )
    out = assert_clean_refusal(
        run_limited(["size", "missing.yaml", "--json", "plan.json"], tmp_path), "--json: is a symbolic link"
    )
    out = assert_clean_refusal(
        run_limited(["solve", "missing.yaml", "--out", "r.xlsx"], tmp_path), "r.xlsx: error: --out: is a symbolic link"
    )
    assert (tmp_path / "plan.json").is_symlink() and (
        target.read_text() == "keep me" if not dangling else not target.exists()
    )


def test_a_symlink_inside_the_csv_folder_is_refused_before_any_work(tmp_path):
    (tmp_path / "csv").mkdir()
    (tmp_path / "csv" / "plan.csv").symlink_to(tmp_path / "x.csv")
    assert_clean_refusal(run_limited(["solve", "missing.yaml", "--csv", "csv"], tmp_path), "--csv: is a symbolic link")
