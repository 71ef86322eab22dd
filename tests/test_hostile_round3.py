"""Hostile input, round 3: signals in the analysis' worker pool, --scheduler addresses that are not Dask,
unbounded flags, what Excel hides, a tiny loan rate, a closed or full stdout, odd digits and currencies, and
misleading messages. Each test fails on the code before the fix it names (D1-D19 of the round's findings).

Sockets: only loopback listeners on 127.0.0.1 that the test opens itself, a few, each closed at its end.
"""

from __future__ import annotations

import dataclasses
import io
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from rich.console import Console

from procure.common.errors import InputError
from procure.models.money import known_currency, parse_pct, parse_tiers
from procure.solver import costs
from tests.hostile.generate import CONTENT_TYPES, SHARED, WORKBOOK_RELS, sheet_xml, xlsx
from tests.test_hostile import assert_clean_refusal, run_limited

from helpers import offer, project, solve_fixed

ROOT = Path(__file__).resolve().parent.parent


def wl(name, deadline, earliest=0):
    return dict(
        name=name, model="llama-2-7b", method="full", tokens_b=1, deadline_days=deadline, earliest_start_days=earliest
    )


PROGRAMME = ROOT / "examples" / "programme-12-months.yaml"
SMALL = ROOT / "examples" / "small-lab.yaml"


def _procure(args: list[str], tmpdir: Path, **kw) -> subprocess.Popen:
    env = dict(os.environ, TMPDIR=str(tmpdir), TMP=str(tmpdir), COLUMNS="160")
    return subprocess.Popen([sys.executable, "-m", "procure", *args], cwd=ROOT, env=env, **kw)


def _ours(tmpdir: Path) -> list[int]:
    """Processes whose environment has ``TMPDIR=tmpdir`` (procure, its workers, their solvers)."""
    marker = f"TMPDIR={tmpdir}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker in Path(f"/proc/{entry}/environ").read_bytes().split(b"\0"):
                    found.append(int(entry))
            except OSError:
                pass
    return found


def _wait_for(predicate, limit: float = 120.0, every: float = 0.1) -> bool:  # a hang guard, not a measurement
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(every)
    return False


# --- D1/D2: signals in the worker stage; the workers' temp files -----------------------------------


@pytest.mark.xdist_group("clock")  # measures wall-clock limits or waits on a child: one at a time
@pytest.mark.slow
@pytest.mark.parametrize(
    "sig, to_group", [(signal.SIGINT, True), (signal.SIGTERM, False), (signal.SIGHUP, True), (signal.SIGTERM, True)]
)
def test_a_signal_in_the_worker_stage_ends_it_and_leaves_no_process_or_file(tmp_path, sig, to_group):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    proc = _procure(
        ["analyze", str(PROGRAMME), "--monte-carlo", "30", "--workers", "2"],
        tmpdir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        # the worker stage: procure and its two workers are running
        assert _wait_for(lambda: len(_ours(tmpdir)) >= 3 or proc.poll() is not None)
        time.sleep(1.0)  # a solve or two under way
        assert proc.poll() is None, "the analysis ended before the signal"
        (os.killpg if to_group else os.kill)(proc.pid, sig)
        proc.wait(timeout=60)  # hang guard (the deadlock this tests for never returned)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert proc.returncode == 128 + sig, err[-2000:]
    assert f"interrupted ({signal.Signals(sig).name})" in err and "Traceback" not in err, err[-2000:]
    assert _wait_for(lambda: not _ours(tmpdir), 10), "a worker or a solver is still running"
    assert sorted(os.listdir(tmpdir)) == []


def _write_temp_file(_ctx, i: int) -> tuple[str, str]:
    """A task that leaves a file where a solver leaves its own (the worker's temp dir)."""
    import tempfile

    fd, path = tempfile.mkstemp(prefix=f"task-{i}-", suffix=".sol")
    os.close(fd)
    return path, os.environ.get("TMPDIR", "")


def test_the_workers_write_their_temp_files_into_a_folder_the_runner_removes(tmp_path, monkeypatch):
    from procure.analysis.engine import Runner

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    with Runner(None, workers=2) as runner:
        out = runner.map(_write_temp_file, [1, 2, 3])
        folder = runner._folder
        assert folder is not None and all(Path(p).parent == Path(folder) and env == folder for p, env in out)
        assert all(Path(p).exists() for p, _ in out)
    assert not Path(folder).exists()
    assert os.listdir(tmp_path) == []


# --- D3/D7: --scheduler at something that is not a Dask scheduler ----------------------------------


class _Listener:
    """A loopback TCP listener for one test: ``http`` answers 400 and closes, ``silent`` accepts and says nothing."""

    def __init__(self, mode: str):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.mode, self.held, self.stop = mode, [], threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self.stop.is_set() and len(self.held) < 8:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.held.append(conn)
            if self.mode == "http":
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                conn.close()

    def __enter__(self) -> _Listener:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        for c in self.held:
            c.close()
        self.sock.close()


@pytest.mark.xdist_group("clock")  # measures wall-clock limits or waits on a child: one at a time
@pytest.mark.parametrize("mode", ["http", "silent"])
def test_a_scheduler_address_that_is_not_dask_is_bad_input_within_the_time_limit(tmp_path, mode):
    """Before: a traceback after about 65 s (an HTTP reply read as a 3 EiB frame length), or a hang. The
    child runs under test_hostile's CPU and memory limits (500 MB of address space)."""
    with _Listener(mode) as srv:
        res = run_limited(
            [
                "analyze",
                str(PROGRAMME),
                "--monte-carlo",
                "2",
                "--scheduler",
                f"tcp://127.0.0.1:{srv.port}",
                "--time-limit",
                "3",
            ],
            tmp_path,
        )
    out = assert_clean_refusal(res, "is not a reachable Dask scheduler")
    assert ("not a Dask handshake" in out) if mode == "http" else ("no Dask handshake within 3 s" in out)


@pytest.mark.parametrize("address", ["inproc://x", "file:///etc", "http://127.0.0.1:1/", "tcp://127.0.0.1"])
def test_a_scheduler_address_of_another_scheme_is_refused(tmp_path, address):
    res = run_limited(["analyze", str(PROGRAMME), "--monte-carlo", "2", "--scheduler", address], tmp_path)
    assert_clean_refusal(res, "is not a reachable Dask scheduler")


def test_a_real_dask_scheduler_passes_the_probe():
    distributed = pytest.importorskip("distributed")
    from procure.analysis.engine import probe_scheduler

    with distributed.LocalCluster(
        n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=None
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        probe_scheduler(cluster.scheduler_address, 10)


# --- D4/D5: --workers and --monte-carlo are bounded ------------------------------------------------


def test_workers_above_the_cores_are_capped_with_a_warning():
    from procure.analysis.engine import default_workers
    from procure.app import capped_workers

    cores = default_workers()
    assert capped_workers(cores + 1) == (
        cores,
        f"--workers {cores + 1:,} is more than this machine's {cores} cores: using {cores}",
    )
    assert capped_workers(1) == (1, None) and capped_workers(None) == (None, None)


def test_monte_carlo_on_the_command_line_has_the_yaml_cap(tmp_path):
    """Before: 10⁷ scenario objects held for 90 s (2.2 GB); here under a 500 MB limit it is refused at once."""
    res = run_limited(["analyze", str(PROGRAMME), "--monte-carlo", "10000000", "--workers", "999"], tmp_path)
    out = assert_clean_refusal(res, "--monte-carlo: 10,000,000 scenarios is more than the 100,000")
    assert "--workers 999 is more than this machine's" in out


# --- D6: a tiny loan rate ------------------------------------------------------------------------------


def test_a_tiny_loan_rate_pays_the_zero_rate_limit():
    # 1e-17 a year: 1 + i rounds to 1, so 1 - (1+i)^-n is 0; the payment is F/n to 15 digits
    assert costs.annuity_payment(36_000.0, 1e-17, 36) == pytest.approx(1_000.0, rel=1e-12)
    assert costs.annuity_payment(36_000.0, 2e-15, 36) == pytest.approx(1_000.0, rel=1e-9)
    # a normal rate is unchanged: 100,000 at 6%/year over 36 months, i = 0.005,
    # (1.005)^-36 = 0.8356449..., A = 500 / 0.1643551 = 3,042.19 (any loan table)
    assert costs.annuity_payment(100_000.0, 0.06, 36) == pytest.approx(3_042.19, abs=0.01)
    assert costs.annuity_payment(1_200.0, 0.0, 12) == 100.0


# --- D9/D10/D13: what Excel hides, and damaged cell XML -----------------------------------------------

ROW = [["id", "vendor", "mode", "region", "gpu", "gpus_per_node", "price_per_node_month"]]


def _book(tmp_path: Path, sheets: list[tuple[str, str, str]], shared: str = SHARED) -> Path:
    """A workbook of (name, state, sheet XML) sheets."""
    names = "".join(
        f'<sheet name="{n}" sheetId="{k}" r:id="rId{10 + k}"' + (f' state="{st}"' if st != "visible" else "") + "/>"
        for k, (n, st, _) in enumerate(sheets, start=1)
    )
    workbook = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook '
        'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        f"<sheets>{names}</sheets></workbook>"
    )
    rels = WORKBOOK_RELS.replace(
        "</Relationships>",
        "".join(
            f'<Relationship Id="rId{10 + k}" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
            f'relationships/worksheet" Target="worksheets/s{k}.xml"/>'
            for k in range(1, len(sheets) + 1)
        )
        + "</Relationships>",
    )
    types = CONTENT_TYPES.replace(
        "</Types>",
        "".join(
            f'<Override PartName="/xl/worksheets/s{k}.xml" '
            'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            for k in range(1, len(sheets) + 1)
        )
        + "</Types>",
    )
    parts = {"xl/workbook.xml": workbook, "xl/_rels/workbook.xml.rels": rels, "[Content_Types].xml": types}
    parts.update({f"xl/worksheets/s{k}.xml": xml for k, (_, _, xml) in enumerate(sheets, start=1)})
    parts["xl/sharedStrings.xml"] = shared
    path = tmp_path / "q.xlsx"
    path.write_bytes(xlsx(parts))
    return path


def _quote(price: int) -> list:
    return ["q1", "v", "rent", "us-east", "H100-SXM-80GB", 8, price]


@pytest.mark.parametrize("state", ["hidden", "veryHidden"])
def test_a_hidden_offers_sheet_is_refused_not_read_before_the_visible_one(tmp_path, state):
    from procure.offers.xlsx_reader import read_sheet

    path = _book(
        tmp_path,
        [("Quotes", "visible", sheet_xml(ROW + [_quote(16_000)])), ("offers", state, sheet_xml(ROW + [_quote(1)]))],
    )
    with pytest.raises(InputError, match="the sheet named 'offers' is (very )?hidden in Excel"):
        read_sheet(path)


def test_a_hidden_first_sheet_is_passed_over_for_the_visible_one(tmp_path):
    from procure.offers.xlsx_reader import read_sheet

    path = _book(
        tmp_path,
        [("Old", "hidden", sheet_xml(ROW + [_quote(1)])), ("Quotes", "visible", sheet_xml(ROW + [_quote(16_000)]))],
    )
    rows = read_sheet(path)
    assert rows[1][1][-1] == 16_000


def test_a_hidden_row_is_refused_naming_it(tmp_path):
    from procure.offers.xlsx_reader import read_sheet

    xml = sheet_xml(ROW + [_quote(16_000), _quote(1), _quote(15_000)]).replace('<row r="3">', '<row r="3" hidden="1">')
    path = _book(tmp_path, [("offers", "visible", xml)])
    with pytest.raises(InputError, match=r"row 3 of sheet 'offers' is hidden in Excel") as err:
        read_sheet(path)
    assert err.value.problems[0].row == 3


def test_a_cell_reference_twice_in_a_row_is_refused(tmp_path):
    from procure.offers.xlsx_reader import read_sheet

    xml = sheet_xml(ROW + [_quote(16_000)]).replace(
        '<c r="G2"><v>16000</v></c>', '<c r="G2"><v>16000</v></c><c r="G2"><v>1</v></c>'
    )
    assert xml.count('r="G2"') == 2
    with pytest.raises(InputError, match="cell G2 appears twice"):
        read_sheet(_book(tmp_path, [("offers", "visible", xml)]))


def test_a_negative_shared_string_index_is_refused(tmp_path):
    from procure.offers.xlsx_reader import read_sheet

    shared = SHARED.replace('count="0" uniqueCount="0"></sst>', 'count="1" uniqueCount="1"><si><t>evil</t></si></sst>')
    xml = sheet_xml(ROW + [_quote(16_000)]).replace(
        '<c r="B2" t="inlineStr"><is><t>v</t></is></c>', '<c r="B2" t="s"><v>-1</v></c>'
    )
    assert 't="s"><v>-1<' in xml
    with pytest.raises(InputError, match="shared string -1"):
        read_sheet(_book(tmp_path, [("offers", "visible", xml)], shared))


# --- D11: a closed, full or broken stdout ------------------------------------------------------------


def test_json_to_a_full_stdout_is_an_error_not_a_traceback(tmp_path):
    with open("/dev/full", "w") as full:
        res = subprocess.run(
            [sys.executable, "-m", "procure", "solve", str(SMALL), "--json", "-"],
            cwd=ROOT,
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    err = res.stderr.decode()
    assert res.returncode == 1 and "Traceback" not in err, err[-2000:]
    assert "standard output (--json -): could not write the result: No space left on device" in err


def test_a_closed_stdout_or_a_reader_that_went_away_does_not_stop_the_command(tmp_path):
    """`>&-` and `| head`: the console's text is dropped, the files are written, the exit code is the plan's."""
    plan_code = subprocess.run(
        [sys.executable, "-m", "procure", "solve", str(SMALL)], cwd=ROOT, capture_output=True, timeout=120
    ).returncode
    assert plan_code in (0, 5)  # small-lab sets a job aside: 5
    closed = subprocess.run(
        [sys.executable, "-m", "procure", "solve", str(SMALL), "--json", str(tmp_path / "a.json")],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(1),
        timeout=120,
    )
    assert closed.returncode == plan_code and b"Traceback" not in closed.stderr, closed.stderr[-2000:]
    assert (tmp_path / "a.json").stat().st_size > 0
    r, w = os.pipe()
    os.close(r)  # the reader has gone: every write to the pipe is EPIPE
    try:
        broken = subprocess.run(
            [sys.executable, "-m", "procure", "solve", str(SMALL), "--json", str(tmp_path / "b.json")],
            cwd=ROOT,
            stdout=w,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    finally:
        os.close(w)
    assert (
        broken.returncode == plan_code
        and b"Traceback" not in broken.stderr
        and b"Exception ignored" not in broken.stderr
    )
    assert (tmp_path / "b.json").stat().st_size > 0


def test_the_console_drops_its_text_on_a_stream_that_fails():
    from procure.reports.terminal import LossyStream

    class Full(io.StringIO):
        def write(self, s):
            raise OSError(28, "No space left on device")

    stream = LossyStream(Full())
    Console(file=stream).print("hello")  # no exception
    assert stream.lost
    assert LossyStream(None).lost and LossyStream(None).write("x") == 1


# --- D14: a link inside the analysis' --csv folder ---------------------------------------------------


def test_a_symlink_inside_the_analysis_csv_folder_is_refused(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "keep.txt").write_text("keep")
    (tmp_path / "d" / "scenarios.csv").symlink_to(tmp_path / "keep.txt")
    assert_clean_refusal(run_limited(["analyze", str(PROGRAMME), "--csv", "d"], tmp_path), "--csv: is a symbolic link")
    assert (tmp_path / "d" / "scenarios.csv").is_symlink() and (tmp_path / "keep.txt").read_text() == "keep"


# --- D15/D16: digits of other scripts; currencies that are not money ------------------------------------


@pytest.mark.parametrize("text", ["٨%", "٨", "0.٥", "８%"])
def test_a_percentage_in_other_digits_is_refused(text):
    with pytest.raises(ValueError, match="not one of the digits 0-9"):
        parse_pct(text)
    assert parse_pct("8%") == pytest.approx(0.08)


def test_a_tier_in_fullwidth_digits_is_refused():
    with pytest.raises(ValueError, match="not one of the digits 0-9"):
        parse_tiers("１:16000", ("min_term_months", "price_per_node_month"))
    assert parse_tiers("1:16000", ("min_term_months", "price_per_node_month")) == [
        {"min_term_months": 1, "price_per_node_month": 16000.0}
    ]


@pytest.mark.parametrize("code", ["XXX", "XTS", "xau"])
def test_iso_codes_that_are_not_currencies_are_refused(code):
    with pytest.raises(ValueError, match="is an ISO 4217 code but not a currency"):
        known_currency(code)
    assert known_currency("usd") == "USD"


def test_a_rate_for_the_projects_own_currency_is_refused():
    fx = dict(fx_rates_date="2026-11-01", fx_rates_source="the bank's rate sheet")
    with pytest.raises(ValueError, match="the project's own currency, a rate of 2"):
        project([wl("a", 20)], currency="USD", fx_rates={"USD": 2, "EUR": 1.1}, **fx)
    project([wl("a", 20)], currency="USD", fx_rates={"USD": 1, "EUR": 1.1}, **fx)  # 1 is harmless


# --- D17: messages that said something untrue ------------------------------------------------------------


def _text(print_fn, *args, **kw) -> str:
    buf = io.StringIO()
    print_fn(Console(file=buf, width=200, highlight=False), *args, **kw)
    return buf.getvalue()


def test_a_solver_that_never_ran_is_not_said_to_have_found_nothing_in_time():
    from procure.reports.console import print_result
    from procure.solver.enums import SolveStatus
    from procure.solver.milp.backends import SolveInfo
    from procure.solver.result import StrategyResult

    p = project([wl("a", 20)], electricity_price_per_kwh=0, horizon_months=6)
    res = solve_fixed(p, [offer(mode="cloud", id="od", price_per_node_hour=50)], {("a", "od", 1): 240}, compare=False)
    never = SolveInfo("cbc", "x", SolveStatus.NO_SOLUTION, 0.0, None, None, stopped_by_deadline=True)
    none = StrategyResult(res.hybrid.name, res.hybrid.modes, SolveStatus.NO_SOLUTION, solve=never)
    out = _text(print_result, dataclasses.replace(res, hybrid=none, strategies={"hybrid": none}))
    assert "ran out before the solver started" in out and "NO SOLUTION within the time limit" not in out


def test_a_reserved_cloud_term_is_one_line_of_peak_capacity():
    from procure.reports.headline import peaks

    # the reserved term wins (tests/test_quotes.py::test_one_reserved_term_carries_two_jobs: 22,900 < 24,000)
    p = project([wl("a", 20), wl("b", 60, 42)], electricity_price_per_kwh=0, horizon_months=6)
    reserved = offer(
        mode="cloud", id="rsv", price_per_node_hour=10, commitment_months=3, upfront_per_node=1_000, max_nodes=1
    )
    res = solve_fixed(
        p,
        [reserved, offer(mode="cloud", id="od", price_per_node_hour=50)],
        {(w, o, 1): 240 for w in "ab" for o in ("rsv", "od")},
        compare=False,
    )
    got = peaks(res)
    assert [(pk.offer_id, pk.mode, pk.reserved, pk.peak_nodes, pk.amount) for pk in got] == [
        ("rsv", "cloud", True, 1, 3.0)
    ]
    from procure.reports.headline import _peak_phrase

    phrase = _peak_phrase(got[0])
    assert "reserve 1 ×" in phrase and "on-demand" not in phrase and "rent" not in phrase


def test_a_small_amount_in_wan_keeps_its_digits():
    from procure.reports.i18n import lang_for

    tr = lang_for("en", amounts_in="wan")
    assert tr.money(80, "USD") == "0.0080 ×10,000 USD"  # 80 / 10,000
    assert tr.money(123_456, "USD") == "12.3 ×10,000 USD"  # as before from 万 up
    assert lang_for("zh-CN", amounts_in="wan").money(80, "CNY") == "0.0080 万元"
    assert not math.isnan(tr.wan_decimals(0.0))


# --- D19: compare takes the interrupt path --------------------------------------------------------------


@pytest.mark.xdist_group("clock")  # measures wall-clock limits or waits on a child: one at a time
@pytest.mark.slow
def test_compare_interrupted_by_sigterm_exits_143_with_its_line(tmp_path):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    # three rounds, and a close watch: a CBC child of one of its solves lives for a fraction of a second
    proc = _procure(
        ["compare", str(PROGRAMME), str(PROGRAMME), str(PROGRAMME)],
        tmpdir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert _wait_for(lambda: len(_ours(tmpdir)) >= 2 or proc.poll() is not None, every=0.005)  # a solver runs
        assert proc.poll() is None, "compare ended before the signal"
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert proc.returncode == 143 and "interrupted (SIGTERM)" in err, (proc.returncode, err[-2000:])
    assert _wait_for(lambda: not _ours(tmpdir), 10) and os.listdir(tmpdir) == []
