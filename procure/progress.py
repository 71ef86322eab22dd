"""Progress of a solve on stderr: a live status line on a terminal, one line per strategy otherwise.

    sizing 38 workloads × 32 offers…
    hybrid: incumbent 1,234,567 USD, bound 1,200,000, gap 2.8%, 34 s / 60 s

``Reporter.for_stderr(quiet)`` picks the form: nothing with ``--quiet``; a rich status (redrawn in
place) when stderr is a terminal; else one plain line as each strategy ends, for logs and CI.
The planner calls the ``*_started`` / ``solver_progress`` / ``strategy_done`` hooks.
"""

from __future__ import annotations

import sys
import time

from rich.console import Console
from rich.markup import escape
from rich.status import Status

from procure.solver.enums import Objective

UPDATE_EVERY = 0.2  # seconds between redraws of the live line


def _money(x: float | None) -> str:
    return "—" if x is None else f"{x:,.0f}"


def _of(budget) -> str:
    total = budget.seconds
    return f"{budget.elapsed():.0f} s" + ("" if total is None else f" / {total:.0f} s")


def strategy_line(result, currency: str, objective: Objective = Objective.TCO, tr=None) -> str:
    """One line for a finished strategy: status, the figure minimized (TCO, or the NPV of the costs with
    ``--objective npv``), gap (≥ where only a bound is known), seconds; in the reader's language ``tr``."""
    from procure.reports.headline import STRATEGY_LABEL, status_label
    from procure.reports.i18n import EN

    tr = tr or EN
    s, info = result, result.solve
    name = s.name if tr.en else tr(STRATEGY_LABEL.get(str(s.name), str(s.name)))
    parts = [f"{name}: {s.status if tr.en else status_label(s.status, tr)}"]
    if info is not None and info.heuristic:
        parts[0] += tr(" (heuristic, gap unknown)") if info.gap is None else tr(" (heuristic)")
    if s.plan is not None:
        figure = Objective(objective).of(s.plan)
        amount = f"{_money(figure)} {currency}" if tr.en else tr.money(figure, currency)
        what = {Objective.NPV: tr("NPV") + " ", Objective.AFTER_TAX_NPV: tr("after-tax NPV") + " "}
        parts.append(f"{what.get(Objective(objective), '')}{amount}")
    if s.plan is not None and info is not None and info.gap is not None:
        parts.append(tr("gap {gap}", gap=f"{info.gap:.2%}"))
    if info is not None:
        parts.append(tr("{seconds} s", seconds=f"{s.build_seconds + info.seconds:.1f}"))
    return tr(", ").join(parts)


class Reporter:
    def __init__(
        self, console: Console | None, live: bool, currency: str = "", objective: Objective = Objective.TCO, tr=None
    ):
        self.tr = tr  # the reader's language of the finished-strategy lines (None: English)
        self.console = console
        self.live = live
        self.currency = currency
        self.objective = objective  # the figure the solver minimizes, which its incumbent and bound are
        self.status: Status | None = None
        self._last = 0.0

    @classmethod
    def for_stderr(cls, quiet: bool, currency: str = "", objective: Objective = Objective.TCO, tr=None) -> Reporter:
        if quiet:
            return cls(None, False, currency, objective, tr)
        console = Console(stderr=True, highlight=False)
        return cls(console, sys.stderr.isatty(), currency, objective, tr)

    def _show(self, text: str, force: bool = False) -> None:
        if self.console is None or not self.live:
            return
        now = time.monotonic()
        if not force and now - self._last < UPDATE_EVERY:
            return
        self._last = now
        if self.status is None:
            self.status = self.console.status(escape(text))
            self.status.start()
        else:
            self.status.update(escape(text))

    def sizing_started(self, n_workloads: int, n_offers: int, budget) -> None:
        self._show(f"sizing {n_workloads} workloads × {n_offers} offers…", force=True)

    def strategy_started(self, name, budget) -> None:
        self._show(f"{name}: building the model, {_of(budget)}", force=True)

    def solver_progress(self, name, seen, budget) -> None:
        gap = ""
        if seen.incumbent is not None and seen.bound is not None:
            gap = f", gap {max(0.0, seen.incumbent - seen.bound) / max(abs(seen.incumbent), 1e-9):.1%}"
        from procure.solver.costs import Objective  # loaded by the solve this reports on

        objective = Objective(self.objective)
        what = f"{objective.short} " if objective.discounted else ""  # the figure minimized, when it is not the TCO
        self._show(
            f"{name}: incumbent {what}{_money(seen.incumbent)} {self.currency}, bound {_money(seen.bound)}{gap}, {_of(budget)}"
        )

    def strategy_done(self, result) -> None:
        if self.console is None:
            return
        line = strategy_line(result, self.currency, self.objective, self.tr)
        if self.live and self.status is not None:
            self.status.console.print(escape(line))  # printed above the live line
        else:
            self.console.print(escape(line), soft_wrap=True)

    def close(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None
