"""Each workload file solved once per test run, through the command line, with every output written.

``Solves(folder)(path, **options)`` runs ``procure solve PATH --json --out --csv --focus`` (in this process, through
typer's CliRunner) the first time it is asked for ``(path, options)`` and returns the same ``Solved`` afterwards:
the exit code and console text of the command, the ``Result`` it reported, and the paths of its outputs. Tests
that read what an example solves to (the JSON contract, the workbook, the CSV and FOCUS files, the figures the docs
quote, one half of the CBC/HiGHS agreement) share one solve instead of solving it again each.

The options are the command's, as keywords: ``runner_ups`` (default 0, the runner-up re-solves are tested on their
own), ``compare`` (default True: most readers compare the four strategies), ``solver``, ``objective``, ``lang``.
A cached solve is read-only: a test that changes a ``Result`` or an output file solves its own.

The ``solved`` fixture (``conftest.py``) is session-scoped; under pytest-xdist each worker has its own cache, so
the tests that read the same solves are grouped on one worker (``xdist_group("solved")``, run with
``--dist loadgroup``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from helpers import cli


@dataclass(frozen=True)
class Solved:
    """One ``procure solve`` run: what it printed and exited with, the result it reported, and its files."""

    path: Path
    exit_code: int
    output: str
    result: Any  # procure.solver.result.Result; None when the command stopped before a result
    inputs: Any  # procure.app.Inputs
    folder: Path

    @property
    def json_path(self) -> Path:
        return self.folder / "plan.json"

    @property
    def xlsx(self) -> Path:
        return self.folder / "plan.xlsx"

    @property
    def csv(self) -> Path:
        return self.folder / "csv"

    @property
    def focus(self) -> Path:
        return self.folder / "focus.csv"

    @cached_property
    def doc(self) -> dict:
        """The ``--json`` document (do not change it: it is shared; ``copy.deepcopy`` it first)."""
        return json.loads(self.json_path.read_text(encoding="utf-8"))


def _flags(runner_ups: int = 0, compare: bool = True, **options: Any) -> list[str]:
    flags = ["--runner-ups", str(runner_ups)]
    if not compare:
        flags.append("--no-compare")
    for name, value in sorted(options.items()):
        flags += [f"--{name.replace('_', '-')}", str(value)]
    return flags


class Solves:
    """The cache: one folder per solve under ``root``."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._done: dict[tuple, Solved] = {}

    def __call__(self, path: str | Path, **options: Any) -> Solved:
        path = Path(path).resolve()
        key = (path, tuple(sorted(options.items())))
        if key not in self._done:
            self._done[key] = self._solve(path, _flags(**options))
        return self._done[key]

    def _solve(self, path: Path, flags: list[str]) -> Solved:
        import procure.app as use

        folder = self.root / f"{path.stem}-{len(self._done)}"
        folder.mkdir(parents=True)
        seen: list = []
        real = use.solve

        def keeping(*args, **kw):  # the command's own use case, its result kept for the tests
            seen.append((args[0] if args else kw["inputs"], real(*args, **kw)))
            return seen[-1][1]

        use.solve = keeping
        try:
            res = cli(
                "solve",
                path,
                *flags,
                "--quiet",
                "--time-limit",
                "none",  # a loaded machine must not turn an optimal plan into a time-limited one
                "--json",
                folder / "plan.json",
                "--out",
                folder / "plan.xlsx",
                "--csv",
                folder / "csv",
                "--focus",
                folder / "focus.csv",
            )
        finally:
            use.solve = real
        inputs, result = seen[-1] if seen else (None, None)
        return Solved(path, res.exit_code, res.output, result, inputs, folder)
