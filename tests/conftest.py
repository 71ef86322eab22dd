"""pytest fixtures. Shared builders live in helpers.py."""

from __future__ import annotations

import time

import pytest


@pytest.fixture
def tmp_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture(autouse=True)
def _command_clock_starts_now(monkeypatch):
    """A command run in this process (CliRunner) counts its --time-limit from the call, not from the
    test process's start: runtime.process_started() takes the process start for a process under a
    minute old, so a command 40 s into a quick test run would find its 30 s limit spent before it
    began. Tests of the start-up clock itself run a child process, or patch this again."""
    from procure.common import runtime

    monkeypatch.setattr(runtime, "process_started", time.monotonic)


@pytest.fixture(scope="session")
def solved(tmp_path_factory):
    """``solved(path, **options)``: ``procure solve`` of a workload file, once per test run (``tests/solved.py``)."""
    from solved import Solves

    return Solves(tmp_path_factory.mktemp("solved"))
