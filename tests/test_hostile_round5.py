"""Hostile input, round 5: Ctrl-C in the Python API, a Dask cluster that loses its worker, SIGHUP under nohup,
a price library's logged tracebacks, unbounded uncertainty factors, --jobs naming a set-aside job, ``--json -``
for analyze and compare, and a seed of ``true``. Each test fails on the code before the fix it names.

Signals are sent to real child processes (subprocess + os.kill); the in-process guard is exercised in a child
too, so that a regression ends that child, never the test run. Sockets: only loopback listeners on 127.0.0.1
that a test opens itself (a Dask scheduler), closed at its end.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from procure.common.errors import InputError
from procure.models.project import load_project
from tests.test_hostile import assert_clean_refusal, run_limited
from tests.test_hostile_round3 import _wait_for
from tests.test_signals import _alive, _children

from helpers import cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
QLORA = EXAMPLES / "qlora-7b-week.yaml"  # one cloud job, solved in about a second
PROGRAMME = EXAMPLES / "programme-12-months.yaml"


def _python(script: str, tmpdir: Path, **kw) -> subprocess.Popen:
    env = dict(os.environ, TMPDIR=str(tmpdir), TMP=str(tmpdir), TEMP=str(tmpdir), PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=tmpdir.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals, /proc")


# --- 1: Ctrl-C in procure.solve() raises KeyboardInterrupt; the process (a notebook's kernel) lives on ---------


@pytest.mark.xdist_group("clock")  # waits on a solver child: one at a time
@pytest.mark.slow  # the daily programme's sizing takes tens of seconds before CBC starts
@linux_only
def test_ctrl_c_in_procure_solve_raises_keyboard_interrupt(tmp_path):
    """Before: the library guard set SIGINT to its default action and killed the process ("interrupted by signal 2"),
    so a notebook lost its kernel. Now: CBC is stopped, the temp files go, the caller's handlers are back and the
    caller gets KeyboardInterrupt."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = _python(
        f"""
        import signal
        from pathlib import Path
        from bench.daily import write_yaml
        import procure
        write_yaml(Path({str(tmp_path)!r}) / "programme.yaml", period_days=1)  # CBC runs for minutes
        print("ready", flush=True)
        try:
            procure.solve({str(tmp_path / "programme.yaml")!r}, compare=False, time_limit=None)
            print("solved", flush=True)
        except KeyboardInterrupt:
            print("KeyboardInterrupt", flush=True)
        print("after", signal.getsignal(signal.SIGINT) is signal.default_int_handler,
              signal.getsignal(signal.SIGTERM) == signal.SIG_DFL, flush=True)
        """,
        tmp,
    )
    try:
        assert proc.stdout.readline().strip() == "ready"

        def solver() -> list[int]:
            return [pid for pid, name in _children(proc.pid) if name.startswith("cbc")]

        assert _wait_for(lambda: bool(solver()), 240), "the solver child never started"
        cbc = solver()
        time.sleep(1.0)  # mid-solve
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, (proc.returncode, err[-3000:])  # the process went on after the interrupt
    assert out.split("\n")[:2] == ["KeyboardInterrupt", "after True True"], out
    assert "interrupted by signal" not in err and "Traceback" not in err, err[-3000:]
    assert _wait_for(lambda: not _alive(cbc[0]), 10), "the CBC child survived"
    assert os.listdir(tmp) == []  # the solver's model, solution and log files are gone


@linux_only
def test_ctrl_c_while_to_excel_writes_leaves_no_file_and_raises_keyboard_interrupt(tmp_path):
    """The output transaction of the API (``Result.to_excel``): rolled back, no temporary left, KeyboardInterrupt."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    target = tmp_path / "plan.xlsx"
    proc = _python(
        f"""
        import time
        import procure
        from procure.fileio import outputs as fileio
        r = procure.solve({str(QLORA)!r}, compare=False, runner_ups=0)
        real = fileio._write_temp
        def slow(t, tmp):
            real(t, tmp)
            print("staged", flush=True)
            time.sleep(60)
        fileio._write_temp = slow
        try:
            r.to_excel({str(target)!r})
        except KeyboardInterrupt:
            print("KeyboardInterrupt", flush=True)
        """,
        tmp,
    )
    try:
        assert _wait_for(lambda: proc.stdout.readline().strip() == "staged", 60)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0 and out.strip() == "KeyboardInterrupt", (proc.returncode, out, err[-3000:])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tmp"]  # no workbook, no .procure-*.tmp beside it


@linux_only
def test_a_library_guard_gives_the_signal_to_the_callers_own_handler(tmp_path):
    """A caller's handler is put back and then called with the signal; the guarded call still ends (Interrupted)."""
    proc = _python(
        """
        import os, signal, time
        from procure.common import runtime
        seen = []
        def mine(signum, frame):
            seen.append(signum)
        signal.signal(signal.SIGTERM, mine)
        try:
            with runtime.signals_guarded(on_interrupt="no output was written"):
                os.kill(os.getpid(), signal.SIGTERM)
                for _ in range(1000):
                    time.sleep(0.001)
            print("not interrupted")
        except runtime.Interrupted as stop:
            print("interrupted", stop.signum)
        print(seen, signal.getsignal(signal.SIGTERM) is mine)
        """,
        tmp_path,
    )
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, (proc.returncode, err)
    assert out.split("\n")[:2] == [f"interrupted {int(signal.SIGTERM)}", f"[{int(signal.SIGTERM)}] True"], out


# --- 2: a Dask cluster that loses its worker mid-run --------------------------------------------------------


@pytest.mark.xdist_group("clock")  # waits on a child and a cluster
@pytest.mark.slow  # a scheduler, a worker process and an analysis: about 15 s
@linux_only
def test_a_dask_cluster_that_loses_its_worker_ends_with_one_line_and_exit_3(tmp_path):
    """Before: a FutureCancelledError traceback (exit 1). Now: one line naming the cluster and what was done, exit 3
    (the family of a solver that failed, docs/errors.md), nothing written."""
    distributed = pytest.importorskip("distributed")
    out_json = tmp_path / "a.json"
    with distributed.LocalCluster(
        n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        worker = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--no-nanny"]
            + ["--no-dashboard"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        analysis = None
        try:
            with distributed.Client(cluster, set_as_default=False) as client:
                assert _wait_for(lambda: len(client.scheduler_info()["workers"]) == 1, 60), "the worker never joined"
                analysis = subprocess.Popen(
                    [sys.executable, "-m", "procure", "analyze", str(PROGRAMME), "--monte-carlo", "200"]
                    + ["--monte-carlo-mode", "hindsight", "--scheduler", address, "--json", str(out_json)],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    env=dict(os.environ, COLUMNS="400"),
                )
                # the worker is solving a Monte Carlo scenario: lose it
                assert _wait_for(lambda: any(client.processing().values()) or analysis.poll() is not None, 240)
                assert analysis.poll() is None, analysis.communicate()[1][-3000:]
            worker.kill()
            worker.wait()
            _, err = analysis.communicate(timeout=120)  # hang guard
        finally:
            for p in (worker, analysis):
                if p is not None and p.poll() is None:
                    p.kill()
                    p.wait()
    assert analysis.returncode == 3, (analysis.returncode, err[-3000:])
    assert "Traceback" not in err and "FutureCancelledError: '" in err, err[-3000:]
    assert f"✗ solver problem: the Dask cluster at {address} stopped the analysis after " in err, err[-3000:]
    assert "of 200 Monte Carlo tasks" in err and "without --scheduler to solve on this machine" in err, err[-3000:]
    assert not out_json.exists()


def test_a_tasks_own_error_on_the_cluster_is_not_called_the_clusters():
    """Only the cluster's failures become ClusterFailed; a task's own error (a bug, a bad scenario) stays itself."""
    from concurrent.futures import CancelledError

    from procure.analysis.engine import _cluster_failure
    from procure.analysis.scenario import ScenarioOutOfRange

    class KilledWorker(Exception):  # distributed.scheduler.KilledWorker, by name (distributed is optional)
        pass

    assert _cluster_failure(CancelledError()) and _cluster_failure(KilledWorker()) and _cluster_failure(OSError())
    assert not _cluster_failure(ScenarioOutOfRange("x")) and not _cluster_failure(ZeroDivisionError())


# --- 3: nohup: an inherited SIGHUP ignore is kept --------------------------------------------------------------


def _nohup(args: list[str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "procure", *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, TMPDIR=str(cwd), TMP=str(cwd), TEMP=str(cwd)),
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),  # what nohup does before exec
        start_new_session=True,  # its own process group: SIGHUP goes to procure, its workers and nothing else
    )


@pytest.mark.xdist_group("clock")  # signals timed against a child
@pytest.mark.slow  # a solve, an analysis with two workers: 5 to 20 s on two cores
@linux_only
@pytest.mark.parametrize(
    "args",
    [
        ["solve", str(QLORA), "--quiet", "--no-compare"],
        ["analyze", str(QLORA), "--monte-carlo", "12", "--workers", "2"],
    ],
    ids=["solve", "analyze"],
)
def test_under_nohup_a_sighup_does_not_end_solve_or_analyze(tmp_path, args):
    """Before: procure installed its own SIGHUP handler over nohup's ignore and exited 129. Now the SIGHUPs (to the
    whole process group, as a closing terminal sends them) change nothing: the command ends as it would have."""
    proc = _nohup(args, tmp_path)
    started, sent = time.monotonic(), 0
    try:
        for at in (0.3, 0.6, 1.0, 1.5, 2.5, 4.0):  # across the imports, the loading and the solves
            time.sleep(max(0.0, at - (time.monotonic() - started)))
            if proc.poll() is not None:
                break
            os.killpg(proc.pid, signal.SIGHUP)
            sent += 1
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, (proc.returncode, err[-3000:])  # before the fix: 129 at the first SIGHUP
    assert sent >= 2, "the command ended before a signal found it running"
    assert "interrupted" not in err and "Traceback" not in err, err[-3000:]


@linux_only
def test_an_inherited_ignore_is_kept_by_the_guard_and_by_the_solver_child(tmp_path):
    """The guard installs no handler over an ignored SIGHUP (it still guards SIGTERM), and a child started the way
    the solver is (``runtime.spawn``) keeps ignoring it; SIGTERM stays at its default action there."""
    proc = _python(
        """
        import signal, subprocess
        from procure.common import runtime
        with runtime.signals_guarded():
            print(signal.getsignal(signal.SIGHUP) == signal.SIG_IGN, signal.getsignal(signal.SIGTERM) is runtime._on_signal)
            child = runtime.spawn(["cat", "/proc/self/status"], stdout=subprocess.PIPE, text=True)
            status = child.communicate()[0]
            runtime.release(child)
        ignored = int(next(l for l in status.splitlines() if l.startswith("SigIgn:")).split()[1], 16)
        print(bool(ignored & (1 << (signal.SIGHUP - 1))), bool(ignored & (1 << (signal.SIGTERM - 1))))
        """,
        tmp_path,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),
    )
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.split("\n")[:2] == ["True True", "True False"], out


# --- 4: offers fetch offline: one line, not the price library's logged tracebacks -----------------------------

#: a stand-in for gpuhunt that behaves as 0.1.34 does offline: its catalog loader runs in a thread pool, logs a
#: traceback per provider with logger.exception, then raises GPUHuntError from the download's error
FAKE_GPUHUNT = """
import logging
import urllib.error
from concurrent.futures import ThreadPoolExecutor

logger = logging.getLogger("gpuhunt._internal.catalog")


class GPUHuntError(Exception):
    pass


def _download(provider):
    raise urllib.error.URLError("[Errno -2] Name or service not known")


def query(provider=None, min_gpu_count=None):
    if {mode!r} == "online":
        logging.getLogger("gpuhunt._internal.default").warning("Skipping provider %s: %s", "oci", "no module oci")
        return [type("Item", (), dict(provider="aws", instance_name="p5.48xlarge", location="us-east-1", price=55.04,
                                      cpu=192, memory=2048.0, gpu_count=8, gpu_name="H100", gpu_memory=80.0,
                                      spot=False, disk_size=None))()]
    error = None
    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = {{p: pool.submit(_download, p) for p in ("aws", "azure", "gcp", "lambdalabs", "oci")}}
    for p, f in futures.items():
        try:
            f.result()
        except Exception as e:
            logger.exception("Failed to load %s catalog. Keeping the previously loaded catalog, if any.", p)
            error = e
    raise GPUHuntError("Failed to load catalogs of all providers") from error
"""


@pytest.mark.parametrize("mode", ["offline", "online"])
def test_fetch_offline_prints_one_line_not_the_librarys_traceback(tmp_path, mode):
    """Before: about 60 lines of the library's logged traceback per provider came before procure's one line."""
    lib = tmp_path / "lib" / "gpuhunt"
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text(FAKE_GPUHUNT.format(mode=mode))
    out = tmp_path / "offers.yaml"
    res = subprocess.run(
        [sys.executable, "-m", "procure", "offers", "fetch", "--provider", "aws", "--out", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "lib"), str(ROOT)]), COLUMNS="400"),
    )
    text = res.stdout + res.stderr
    assert "Traceback" not in text and "urllib.error" not in text, text[-3000:]
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if mode == "offline":
        assert res.returncode == 1 and not out.exists()
        assert lines == [
            "✗ gpuhunt: error: --provider: could not fetch the catalog (GPUHuntError: 'Failed to load catalogs of all "
            "providers', caused by URLError: '<urlopen error [Errno -2] Name or service not known>'); this command "
            "needs internet access. Offline, import a downloaded gpuhunt or SkyPilot file with `procure offers import`",
            "1 problem found; nothing was written.",
        ], text
    else:  # what the library logs on the way is one warning line, not a record on the console
        assert res.returncode == 0 and out.exists(), text
        assert res.stderr.strip() == "! gpuhunt: warning: gpuhunt logged: 'Skipping provider oci: no module oci'", text
        assert res.stdout.startswith("imported 1 offers (0 spot) from 1 rows of gpuhunt") and len(lines) == 2, text


def test_the_library_loggers_are_restored_after_a_fetch():
    import logging

    from procure.offers.live import library_logs

    gpuhunt = logging.getLogger("gpuhunt")
    before = (list(gpuhunt.handlers), gpuhunt.propagate)
    with library_logs() as kept:
        logging.getLogger("gpuhunt._internal.catalog").error("boom")
    assert [r.getMessage() for r in kept.records] == ["boom"]
    assert (list(gpuhunt.handlers), gpuhunt.propagate) == before


# --- 5: uncertainty factors are bounded; a scenario beyond the ranges stops the analysis -----------------------


#: the line of ``analysis:`` in a workload file made by ``_workload``
ANALYSIS_LINE = len(QLORA.read_text().splitlines()) + 1


def _workload(tmp_path: Path, analysis: str) -> Path:
    p = tmp_path / "w.yaml"
    p.write_text(QLORA.read_text() + "analysis:\n" + textwrap.indent(textwrap.dedent(analysis), "  "))
    return p


def _problems(path: Path) -> list[str]:
    with pytest.raises(InputError) as exc:
        load_project(path)
    return [str(p) for p in exc.value.problems]


@pytest.mark.parametrize(
    "analysis, expect",
    [
        (
            "uncertainty:\n  price_buy: {dist: triangular, low: 0.5, mode: 1.0, high: 1e300}\n",
            "analysis.uncertainty: price_buy.high: 1e+300 is above 100; a factor lies from 0 to 100 (1 = today's "
            "value, 1.2 = 20% more: write a percentage as its factor)",
        ),
        (
            "uncertainty:\n  tokens: {dist: normal, mean: 1.0, sd: 500, low: 0.5, high: 2}\n",
            "analysis.uncertainty: tokens.sd: 500 is above 100, the allowed range of the driver's values",
        ),
        (
            "uncertainty:\n  deadline_slip_days: {dist: triangular, low: -40000, mode: 0, high: 10}\n",
            "analysis.uncertainty: deadline_slip_days.low: -40000 days is outside the allowed range -36,600 to "
            "36,600 days (a deadline moves at most a hundred years either way)",
        ),
        (
            "sensitivity:\n  electricity: {low: 0.5, high: 120}\n",
            "analysis.sensitivity: electricity.high: 120 is above 100; a factor lies from 0 to 100",
        ),
        (
            "sensitivity:\n  staff: {low: 0.5, high: .inf}\n",
            "analysis.sensitivity.staff.high: Input should be a finite",
        ),
        ("uncertainty:\n  price_cloud: {dist: triangular, low: 0.5, mode: .nan, high: 2}\n", "should be a finite"),
    ],
    ids=["factor-1e300", "sd", "slip", "sensitivity", "inf", "nan"],
)
def test_uncertainty_factors_are_bounded_with_the_field_and_the_range(tmp_path, analysis, expect):
    """Before: high 1e300 was accepted and every buy scenario overflowed to -inf/nan, counted as failures, exit 0."""
    problems = _problems(_workload(tmp_path, analysis))
    assert len(problems) == 1 and expect in problems[0], problems
    line = int(problems[0].split(":")[1])
    assert ANALYSIS_LINE <= line <= ANALYSIS_LINE + 2, problems  # `analysis:`, its section or the field itself


def test_the_bounds_themselves_are_allowed(tmp_path):
    """0 and 100 for a factor, ±36,600 days for the slip: the ranges are closed."""
    p = _workload(
        tmp_path,
        """
        uncertainty:
          price_buy: {dist: triangular, low: 0, mode: 1.0, high: 100}
          tokens: {dist: normal, mean: 1.0, sd: 100, low: 0.5, high: 100}
          deadline_slip_days: {dist: triangular, low: -36600, mode: 0, high: 36600}
        seed: 9223372036854775807
        """,
    )
    project, _warnings = load_project(p)
    assert project.analysis.uncertainty["price_buy"].high == 100


def test_analyze_refuses_an_unbounded_factor_with_exit_1(tmp_path):
    p = _workload(tmp_path, "uncertainty:\n  price_cloud: {dist: triangular, low: 0.5, mode: 1.0, high: 1e300}\n")
    out = assert_clean_refusal(run_limited(["analyze", str(p), "--monte-carlo", "3"], tmp_path), "is above 100")
    assert "1 problem found; nothing was written." in out


@pytest.mark.parametrize("value, expect", [("true", "true is not a number"), ("false", "false is not a number")])
def test_the_seed_is_a_whole_number_not_true(tmp_path, value, expect):
    """Before: ``seed: true`` drew the scenarios of seed 1."""
    problems = _problems(_workload(tmp_path, f"seed: {value}\n"))
    seed_line = ANALYSIS_LINE + 1
    assert problems == [f"{tmp_path / 'w.yaml'}:{seed_line}: error: analysis.seed: {expect}; write the number itself"]


def test_a_scenario_outside_the_ranges_stops_the_analysis_with_its_name(tmp_path):
    """Settings built without validation (a library caller) draw a factor a float cannot hold; the scenario is named
    and the analysis stops (exit 1 on the command line), rather than counting -inf costs as failed scenarios."""
    from procure import app as use
    from procure.models.analysis import AnalysisSettings, Triangular

    inputs = use.load_inputs(QLORA, None)
    wild = Triangular.model_construct(dist="triangular", low=0.5, mode=1.0, high=1e300)
    settings = AnalysisSettings.model_construct(uncertainty={"price_cloud": wild}, sensitivity={}, scenarios=3, seed=0)
    inputs.project = inputs.project.model_copy(update={"analysis": settings})
    with pytest.raises(InputError) as exc:
        use.analyze(inputs, break_even=False, sensitivity=False, monte_carlo=3, workers=1)
    (problem,) = exc.value.problems
    assert problem.file == str(QLORA) and problem.field == "analysis"
    assert problem.message.startswith("scenario mc0000") and "price_cloud" in problem.message, problem.message


def test_a_scenario_is_checked_against_the_ranges_and_its_figures_must_be_finite():
    from procure.analysis.engine import ScenarioOutcome, StrategyOutcome
    from procure.analysis.scenario import Scenario, ScenarioOutOfRange, check_scenario
    from procure.solver.enums import SolveStatus

    check_scenario(Scenario.of("ok", {"price_buy": 100.0, "deadline_slip_days": -36_600.0}, {"x": 1e14}))
    for bad in (
        Scenario.of("big", {"price_buy": 1e300}),
        Scenario.of("nan", {"tokens": math.nan}),
        Scenario.of("mfu0", {"mfu": 0.0}),  # hours ÷ 0
        Scenario.of("slip", {"deadline_slip_days": 1e9}),
        Scenario.of("price", offer_prices={"x": math.inf}),
    ):
        with pytest.raises(ScenarioOutOfRange, match=f"scenario {bad.label}"):
            check_scenario(bad)
    s = Scenario.of("mc00007", {"price_buy": 2.0})
    with pytest.raises(
        ScenarioOutOfRange, match=r"scenario mc00007 \(price_buy 2\): the buy plan's total cost is -inf"
    ):
        ScenarioOutcome(s, {"buy": StrategyOutcome("buy", SolveStatus.OPTIMAL, total_cost=-math.inf)})


def test_a_wide_normal_on_a_narrow_range_is_drawn_in_bounded_time(tmp_path):
    """Before: a normal redrawn until inside its range, sd 100 on [1, 1.000001] (a share of 4e-9), never ended. The
    draws are checked against the truncated normal's mean, worked out by hand below."""
    script = """
        import numpy as np
        from procure.analysis.montecarlo import draw
        from procure.models.analysis import AnalysisSettings
        for low, high, mean, sd in ((1.0, 1.000001, 1.0, 100.0), (1.0, 2.0, 1.0, 10.0)):
            s = AnalysisSettings.model_validate(
                {"uncertainty": {"price_cloud": {"dist": "normal", "mean": mean, "sd": sd, "low": low, "high": high}},
                 "scenarios": 20000, "seed": 3})
            v = np.array([x.value("price_cloud") for x in draw(s)])
            print(v.min() >= low, v.max() <= high, repr(float(v.mean())))
    """
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr[-3000:]
    first, second = (line.split() for line in res.stdout.splitlines())
    assert first[:2] == ["True", "True"] and second[:2] == ["True", "True"]
    assert float(first[2]) == pytest.approx(1.0000005, abs=1e-8)  # flat on a range 1e-8 sd wide: its midpoint
    # mean of N(1, 10) on [1, 2]: 1 + 10·(φ(0) − φ(0.1)) / (Φ(0.1) − Φ(0)) = 1 + 10·0.0019897 / 0.0398278 = 1.49958;
    # the draws' standard error: about 0.2887 / √20000 = 0.0020
    assert float(second[2]) == pytest.approx(1.49958, abs=4 * 0.0020)


# --- 6: frontier --jobs naming a job the plan sets aside ----------------------------------------------------------

UNRUNNABLE = """\
name: two jobs
currency: USD
horizon_months: 3
workloads:
  - {name: ok, model: llama-2-7b, method: qlora, tokens_b: 0.3, deadline_days: 30}
  - {name: huge, model: llama-2-7b, method: full, tokens_b: 5000, deadline_days: 2}
"""


def test_frontier_jobs_naming_a_set_aside_job_says_so_before_solving(tmp_path, monkeypatch):
    """Before: the cheapest plan was solved, then "no workload named 'huge'" (it is a workload of the file)."""
    import procure.solver.planner as planner

    def no_solve(*a, **k):
        raise AssertionError("solved before the --jobs check")

    monkeypatch.setattr(planner, "plan_from_sizings", no_solve)
    (tmp_path / "w.yaml").write_text(UNRUNNABLE)
    res = cli("frontier", tmp_path / "w.yaml", "--jobs", "huge,ok", "--points", "3")
    assert res.exit_code == 1, res.output
    assert "--jobs: job 'huge' is set aside by the plan (deadline (" in res.output
    assert "so it has no point on the frontier; name planned jobs only (planned: ok)" in res.output
    assert "no workload named" not in res.output


def test_frontier_jobs_naming_a_job_the_budget_sets_aside_says_so(tmp_path):
    """Set aside by the budget, known only once the cheapest plan is solved: said so then, before any tracing."""
    (tmp_path / "w.yaml").write_text(
        "name: two fine-tunes, one budget\ncurrency: USD\nstart_date: 2026-12-01\nhorizon_months: 3\nperiod_days: 1\n"
        "budget_tco: 30\nworkloads:\n"  # one job costs about 23 USD in the bundled catalog: the budget holds one
        "  - {name: first, model: deepseek-llm-7b, method: qlora, tokens_b: 0.3, deadline_days: 7}\n"
        "  - {name: second, model: deepseek-llm-7b, method: qlora, tokens_b: 0.3, deadline_days: 7}\n"
    )
    res = cli("frontier", tmp_path / "w.yaml", "--jobs", "first", "--points", "3")
    assert res.exit_code == 1, res.output
    assert "--jobs: job 'first' is set aside by the plan (budget_tco 30 USD covers 1 of the 2 jobs" in res.output
    assert "(planned: second)" in res.output and "no workload named" not in res.output


# --- 7: --json - is stdout for analyze and compare ------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, key",
    [
        (["analyze", str(QLORA), "--sensitivity", "--workers", "1"], "sensitivity"),
        (["compare", str(QLORA), str(QLORA)], "rows"),
    ],
    ids=["analyze", "compare"],
)
def test_json_dash_is_stdout_for_analyze_and_compare(tmp_path, args, key):
    """Before: a file named '-' in the working folder, and the report on stdout."""
    res = subprocess.run(
        [sys.executable, "-m", "procure", *args, "--json", "-"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, COLUMNS="160"),
    )
    assert res.returncode == 0, res.stderr[-3000:]
    assert key in json.loads(res.stdout)  # stdout is the JSON alone; the report went to stderr
    assert list(tmp_path.iterdir()) == []
