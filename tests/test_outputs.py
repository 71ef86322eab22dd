"""Outputs never destroy anything: checked before any work, never over a device, FIFO, folder, socket
or input file, written all together or not at all, no temporary left behind (issue: hostile input)."""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from procure.cli import app
from procure.common.errors import InputError
from procure.fileio import outputs as fileio
from procure.reports.csv_report import CSV_FILES
from tests.hostile.generate import ROW, _csv

from helpers import cli

ROOT = Path(__file__).resolve().parent.parent
QLORA = ROOT / "examples" / "qlora-7b-week.yaml"


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --- never over a device, FIFO, socket or folder ---------------------------------------------------


def test_json_over_a_fifo_is_refused_and_the_fifo_survives(tmp_path):
    fifo = tmp_path / "plan.json"
    os.mkfifo(fifo)
    res = cli("solve", QLORA, "--no-compare", "--json", fifo)
    assert res.exit_code == 1
    assert "plan.json: error: --json: is a named pipe (FIFO); refusing to replace it with a file" in res.output
    assert "status:" not in res.output  # refused before solving
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="creating a device node needs root")
def test_json_over_a_device_node_is_refused_and_the_device_survives(tmp_path):
    """As root, `--json /dev/null` used to replace /dev/null with a regular file. The same device
    (char 1:3) is made here in a temporary folder, so the test itself can never harm /dev/null."""
    dev = tmp_path / "null"
    os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    res = cli("solve", QLORA, "--no-compare", "--json", dev)
    assert res.exit_code == 1 and "--json: is a character device; refusing to replace it with a file" in res.output
    assert stat.S_ISCHR(os.stat(dev).st_mode)
    res = cli("size", QLORA, "--gpu", "H100", "--gpus", "8", "--json", dev)
    assert res.exit_code == 1 and "is a character device" in res.output
    assert stat.S_ISCHR(os.stat(dev).st_mode)


def test_outputs_over_a_socket_or_a_folder_are_refused(tmp_path):
    sock_path = tmp_path / "s.json"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(sock_path))
        res = cli("solve", QLORA, "--no-compare", "--json", sock_path)
        assert res.exit_code == 1 and "--json: is a socket; refusing to replace it with a file" in res.output
    (tmp_path / "d.xlsx").mkdir()
    res = cli("solve", QLORA, "--no-compare", "--out", tmp_path / "d.xlsx")
    assert res.exit_code == 1 and "--out: is a folder; give a file name" in res.output


def test_template_never_replaces_a_special_file(tmp_path):
    fifo = tmp_path / "offers.csv"
    os.mkfifo(fifo)
    res = cli("offers", "template", "--format", "csv", "--out", fifo, "--force")
    assert res.exit_code == 1 and "is a named pipe (FIFO); refusing to replace it" in res.output
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


# --- never over an input, never two outputs on one file --------------------------------------------


def test_an_output_that_is_an_input_file_is_refused_before_solving(tmp_path):
    workload = tmp_path / "w.yaml"
    workload.write_bytes(QLORA.read_bytes())
    catalog = tmp_path / "c.csv"
    catalog.write_text(_csv([ROW]))
    before = workload.read_bytes()
    res = cli("solve", workload, "--no-compare", "--json", workload)
    assert (
        res.exit_code == 1
        and "--json: is the input file" in res.output
        and "writing there would destroy it" in res.output
    )
    assert workload.read_bytes() == before
    # through a symbolic link (refused as a link, before the inputs are read), and for the catalog too
    (tmp_path / "link.json").symlink_to(workload)
    res = cli("solve", workload, "--no-compare", "--json", tmp_path / "link.json")
    assert res.exit_code == 1 and "--json: is a symbolic link" in res.output
    cat_before = catalog.read_bytes()
    res = cli("size", workload, "--offers", catalog, "--json", catalog)
    assert res.exit_code == 1 and "is the input file" in res.output
    assert catalog.read_bytes() == cat_before and workload.read_bytes() == before


def test_two_outputs_on_one_file_are_refused(tmp_path):
    res = cli("solve", QLORA, "--no-compare", "--out", tmp_path / "r.xlsx", "--json", tmp_path / "r.xlsx")
    assert res.exit_code == 1 and "--json: is also the output of --out; give each output its own file" in res.output
    res = cli("solve", QLORA, "--no-compare", "--json", tmp_path / "plan.csv", "--csv", tmp_path)
    assert res.exit_code == 1 and "is also the output of --json" in res.output
    assert listing(tmp_path) == []


# --- every output checked before any work -----------------------------------------------------------


def test_a_csv_file_that_cannot_be_written_is_found_before_solving(tmp_path):
    """`--csv DIR` with DIR/costs.csv a folder used to write the JSON and 6 of 8 CSV files after
    solving, then fail saying nothing was written."""
    out = tmp_path / "csv"
    (out / "costs.csv").mkdir(parents=True)
    res = cli("solve", QLORA, "--no-compare", "--json", tmp_path / "plan.json", "--csv", out)
    assert res.exit_code == 1 and "costs.csv: error: --csv: is a folder; give a file name" in res.output
    assert "status:" not in res.output
    assert listing(tmp_path) == ["csv"] and listing(out) == ["costs.csv"]


def test_a_file_name_too_long_for_the_file_system_is_an_input_error(tmp_path):
    res = cli("solve", QLORA, "--no-compare", "--json", tmp_path / ("p" * 251 + ".json"))
    assert res.exit_code == 1
    assert "--json: the file name is 256 bytes long; this file system allows 255" in res.output


def test_template_refuses_to_overwrite_without_force(tmp_path):
    out = tmp_path / "offers.yaml"
    out.write_text("my typed quotes")
    res = cli("offers", "template", "--format", "yaml", "--out", out)
    assert res.exit_code == 1 and "--out: the file exists; give another name, or --force to replace it" in res.output
    assert out.read_text() == "my typed quotes"
    res = cli("offers", "template", "--format", "yaml", "--out", out, "--force")
    assert res.exit_code == 0 and out.read_text().startswith("# procure offer catalog")


# --- all or none ------------------------------------------------------------------------------------


def _fail_on_nth_temp(monkeypatch, n: int, err: int = errno.ENOSPC):
    real = fileio._write_temp
    calls = {"n": 0}

    def flaky(target, tmp):
        calls["n"] += 1
        if calls["n"] == n:
            Path(tmp).write_bytes(b"half")  # the disk filled up part-way
            raise OSError(err, os.strerror(err))
        return real(target, tmp)

    monkeypatch.setattr(fileio, "_write_temp", flaky)


def test_outputs_appear_all_together_or_not_at_all(tmp_path, monkeypatch):
    (tmp_path / "plan.json").write_text("old plan")
    _fail_on_nth_temp(monkeypatch, 5)  # json, xlsx, then the 3rd CSV file fails: a full disk
    res = cli(
        "solve",
        QLORA,
        "--no-compare",
        "--json",
        tmp_path / "plan.json",
        "--out",
        tmp_path / "r.xlsx",
        "--csv",
        tmp_path / "csv",
    )
    assert res.exit_code == 1
    assert (
        "could not write the file (No space left on device); nothing was written and any previous file is unchanged"
        in res.output
    )
    assert listing(tmp_path) == ["plan.json"]  # no workbook, no csv folder, no temporary
    assert (tmp_path / "plan.json").read_text() == "old plan"
    monkeypatch.undo()
    res = cli(
        "solve",
        QLORA,
        "--no-compare",
        "--json",
        tmp_path / "plan.json",
        "--out",
        tmp_path / "r.xlsx",
        "--csv",
        tmp_path / "csv",
    )
    assert res.exit_code == 0
    assert listing(tmp_path) == ["csv", "plan.json", "r.xlsx"]
    assert (
        sorted(listing(tmp_path / "csv")) == sorted(CSV_FILES)
        and json.loads((tmp_path / "plan.json").read_text())["status"] == "optimal"
    )


def test_a_rename_that_fails_half_way_is_rolled_back(tmp_path, monkeypatch):
    from procure.fileio.outputs import Outputs

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text("old a")
    out = Outputs()
    out.put(out.add(a, "--a"), b"new a")
    out.put(out.add(b, "--b"), b"new b")
    real = os.replace
    calls = {"n": 0}

    def flaky(src, dst):
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(errno.EIO, "Input/output error")
        return real(src, dst)

    monkeypatch.setattr(fileio.os, "replace", flaky)
    with pytest.raises(InputError) as exc:
        out.commit()
    assert "nothing was written" in str(exc.value)
    assert a.read_text() == "old a" and listing(tmp_path) == ["a.json"]


def test_disk_full_while_solving_is_an_input_error_and_leaves_no_scratch_files(tmp_path, monkeypatch):
    import procure.solver.planner

    scratch = []

    def full(*a, **k):
        scratch.append(os.environ["TMPDIR"])
        Path(os.environ["TMPDIR"], "model.mps").write_text("half")
        raise OSError(errno.ENOSPC, "No space left on device", os.path.join(os.environ["TMPDIR"], "model.mps"))

    monkeypatch.setattr(procure.solver.planner, "plan_project", full)
    res = cli("solve", QLORA, "--no-compare")
    assert res.exit_code == 1
    assert "could not write a temporary file for the solver (No space left on device)" in res.output
    assert scratch and not os.path.exists(scratch[0])


# --- temporaries: removed on signals, swept after SIGKILL ------------------------------------------


def test_sigterm_while_writing_removes_every_temporary(tmp_path):
    script = textwrap.dedent(f"""
        import os, sys, time
        from procure.fileio import outputs as fileio
        real = fileio._write_temp
        def slow(t, tmp):
            real(t, tmp)
            print("staged", flush=True)
            time.sleep(30)
        fileio._write_temp = slow
        out = fileio.Outputs()
        out.put(out.add({str(tmp_path / "r.json")!r}, "--json"), b"x" * 100000)
        out.commit()
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"staged"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGTERM
    assert b"interrupted by signal 15; no output was written" in err and b"Traceback" not in err
    assert listing(tmp_path) == []


def test_a_signal_while_writing_inside_a_guarded_run_is_the_runs_to_handle(tmp_path):
    """One runtime, one handler: inside the command's guarded run the output transaction rolls back and
    the run's ``Interrupted`` reaches the caller (exit 128 + 15), which still removes the run's temp
    folder; the transaction does not end the process on its own."""
    script = textwrap.dedent(f"""
        import os, sys, time
        from procure.common import runtime
        from procure.fileio import outputs as fileio
        real = fileio._write_temp
        def slow(t, tmp):
            real(t, tmp)
            print("staged", flush=True)
            time.sleep(30)
        fileio._write_temp = slow
        try:
            with runtime.guarded_run() as run_dir:
                print(run_dir, flush=True)
                out = fileio.Outputs()
                out.put(out.add({str(tmp_path / "r.json")!r}, "--json"), b"x" * 100000)
                out.commit()
        except runtime.Interrupted as stop:
            print("caught", stop.signum, flush=True)
            sys.exit(stop.exit_code)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    run_dir = proc.stdout.readline().strip().decode()
    assert proc.stdout.readline().strip() == b"staged"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert out.strip() == b"caught 15" and b"Traceback" not in err
    assert listing(tmp_path) == [] and not os.path.exists(run_dir)


def test_temporaries_of_a_killed_run_are_swept_by_the_next(tmp_path):
    from procure.fileio.outputs import atomic_write

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".procure-{dead.pid}-0123abcd.tmp"
    stale.write_text("left by kill -9")
    alive = tmp_path / f".procure-{os.getpid()}-0123abcd.tmp"  # a running process's: kept
    alive.write_text("in use")
    atomic_write(tmp_path / "plan.json", b"{}")
    assert listing(tmp_path) == [alive.name, "plan.json"]


# --- `-` is stdout for every --json ------------------------------------------------------------------


def test_json_dash_means_stdout_for_solve_and_size(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["solve", str(QLORA), "--no-compare", "--json", "-"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["status"] == "optimal"  # the report went to stderr
    assert "status: optimal" in res.stderr
    res = CliRunner().invoke(app, ["size", str(QLORA), "--gpu", "H100", "--gpus", "8", "--json", "-"])
    assert res.exit_code == 0 and json.loads(res.stdout)
    assert listing(tmp_path) == []  # no file named '-'
