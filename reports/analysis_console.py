"""Console output of ``procure analyze``: the break-even prices (top 5), the tornado table, and the
Monte Carlo percentiles, win probabilities and regret."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape as esc
from rich.table import Table

from procure.models.analysis import DRIVERS
from procure.solver.reasons import signed_number, signed_pct

from .console import CATEGORY_LABEL, STRATEGY_LABEL
from .headline import MODE_LABEL, mode_label, status_label
from .i18n import EN, N_, Lang

TOP = 5


def _value(driver: str, v: float) -> str:
    unit = DRIVERS[driver][1]
    return f"{v:+g} d" if unit == "days" else f"{v:+g} %/yr" if unit == "%/year" else f"×{v:g}"


def break_even_price(b, price: float, currency: str, tr: Lang = EN, unit: str = "") -> str:
    """An offer's price as the reports show it: in the reporting ``currency`` (converted at fx_rates), the
    quoted price in brackets when the offer is quoted in another currency (``BreakEven.price_text``)."""
    shown = tr("{amount} {cur}", amount=tr.number(b.reporting(price), 2), cur=tr.cur(currency))
    if unit:
        shown = tr("{price} {unit}", price=shown, unit=unit)
    if b.converted(currency):
        shown += tr(" [{amount} {cur}]", amount=tr.number(price, 2), cur=tr.cur(b.currency))
    return shown


def break_even_sentence(b, currency: str, tr: Lang = EN) -> str:
    """One break-even finding as a sentence (``analysis.break_even.BreakEven.sentence``, in the reader's language).
    ``currency`` is the reporting currency: an offer's prices are shown in it, and as quoted beside it."""
    if tr.en:
        return b.sentence(currency)
    mode = tr(MODE_LABEL.get(str(b.mode), str(b.mode)))
    change = signed_pct(None if b.change_pct is None else b.change_pct / 100.0)
    if b.kind == "driver":
        if b.break_even is None:
            return tr(
                "the {driver} costs do not change the recommendation from ×0 to today's: {reason}",
                driver=tr(b.subject),
                reason=tr.say(b.reason),
            )
        return tr(
            "{driver} costs at ×{level} today's: {reason}",
            driver=tr(b.subject),
            level=f"{b.break_even:g}",
            reason=tr.say(b.reason),
        )
    if b.kind == "strategy":
        if b.break_even is None:
            return tr(
                "{subject} does not win at any {mode} price level from 0 to today's: {reason}",
                subject=tr(b.subject),
                mode=mode,
                reason=tr.say(b.reason),
            )
        return tr(
            "{subject} wins at or below {level:.1%} of today's {mode} prices ({change})",
            subject=tr(b.subject),
            level=b.break_even,
            mode=mode,
            change=change,
        )
    what = {
        "buy": tr("buying {label} servers", label=b.label),
        "rent": tr("renting {label} nodes", label=b.label),
        "cloud": tr("{label} cloud hours", label=b.label),
    }[b.mode]
    unit = {"buy": tr("per node"), "rent": tr("per node-month"), "cloud": tr("per node-hour")}[b.mode]
    who = tr(" from {vendor} ({subject})", vendor=b.vendor, subject=b.subject) if b.vendor else f" ({b.subject})"
    today = break_even_price(b, b.current, currency, tr)
    tiers = tr("; ") + tr.say(b.tiers) if b.tiers else ""
    if getattr(b, "workload", "") and b.break_even is not None:
        return tr(
            "{workload} moves onto {what}{who} at or below {price} (today {today}, {change}{tiers})",
            workload=b.workload,
            what=what,
            who=who,
            price=break_even_price(b, b.break_even, currency, tr, unit),
            today=today,
            change=change,
            tiers=tiers,
        )
    if getattr(b, "workload", ""):
        return tr(
            "{workload} does not move onto {what}{who} at any price from 0 to today's {today}: {reason}",
            workload=b.workload,
            what=what,
            who=who,
            today=today,
            reason=tr.say(b.reason),
        )
    if b.break_even is None:
        return tr(
            "{what}{who} does not win at any price from 0 to today's {today}: {reason}",
            what=what,
            who=who,
            today=today,
            reason=tr.say(b.reason),
        )
    return tr(
        "{what}{who} wins at or below {price} (today {today}, {change}{tiers})",
        what=what,
        who=who,
        price=break_even_price(b, b.break_even, currency, tr, unit),
        today=today,
        change=change,
        tiers=tiers,
    )


#: the analyses by their key in ``Analysis.seconds`` / ``Analysis.skipped``
ANALYSIS_LABEL = {
    "sensitivity": N_("the sensitivity tornado"),
    "break_even": N_("the break-even prices"),
    "monte_carlo": N_("the Monte Carlo study"),
}


def print_analysis(console: Console, a, top: int = TOP, tr: Lang = EN) -> None:
    cur = a.currency
    base = a.base
    metric = tr(a.inputs.objective.upper())
    if base.plan is None:
        console.print(
            tr("today's inputs have no plan ({status}); nothing to analyse", status=status_label(base.status, tr)),
            markup=False,
        )
        return
    console.print(
        tr(
            "today's optimum: {cost} ({metric}), modes {modes}",
            cost=tr.money(a.inputs.metric(base.plan), cur),
            metric=metric,
            modes=" + ".join(mode_label(m, tr) for m in sorted(base.plan.modes())),
        ),
        markup=False,
    )
    if a.break_even is not None:
        # nearest to winning first: the smallest price cut that makes it the optimum
        priced = sorted((b for b in a.break_even if b.break_even is not None), key=lambda b: abs(b.change_pct or 0.0))
        console.print(
            tr(
                "\n[b]Break-even prices[/b] — {n} of {total} losing offers/strategies can win on price; the {top} nearest:",
                n=len(priced),
                total=len(a.break_even),
                top=min(top, len(priced)),
            )
        )
        for b in priced[:top]:
            console.print(f"  • {esc(break_even_sentence(b, cur, tr))}", soft_wrap=True)
        blocked = [b for b in a.break_even if b.break_even is None]
        if blocked:
            console.print(
                tr(
                    "  {n} cannot win at any price from 0 to today's (the reasons are in the JSON and the Break-even sheet).",
                    n=len(blocked),
                ),
                markup=False,
            )
    if a.sensitivity is not None:
        t = Table(
            title=tr(
                "Sensitivity: today's plan's {metric} with one driver moved (re-costed as decided; re-optimized where it breaks)",
                metric=metric,
            )
        )
        heads = [
            (tr("driver"), "left"),
            (tr("low"), "left"),
            (tr("high"), "left"),
            (tr("{metric} at low", metric=metric), "right"),
            (tr("at high"), "right"),
            (tr("decision at low"), "left"),
            (tr("decision at high"), "left"),
        ]
        for col, justify in heads:
            t.add_column(col, justify=justify)  # type: ignore[arg-type]
        for b in a.sensitivity:
            lo, hi = b.measure("low"), b.measure("high")
            t.add_row(
                b.driver,
                _value(b.driver, b.low_value),
                _value(b.driver, b.high_value),
                tr.money(lo, cur) if lo is not None else tr("no plan"),
                tr.money(hi, cur) if hi is not None else tr("no plan"),
                _decision(b, "low", cur, tr),
                _decision(b, "high", cur, tr),
            )
        console.print(t)
        changed = [b.driver for b in a.sensitivity if b.changes("low") or b.changes("high")]
        console.print(
            tr(
                "Decision: the free plan re-optimized at each end; it changes where a plan cheaper than today's "
                "exists there ({drivers}). Where between today and the end: the break-even prices.",
                drivers=", ".join(changed) if changed else tr("at no end"),
            ),
            markup=False,
            soft_wrap=True,
        )
        for line in reach_notes(a, tr):
            console.print(line, markup=False, soft_wrap=True)
    if a.summary is not None and a.summary.committed:
        _print_committed(console, a, tr)
    elif a.summary is not None:
        _print_hindsight(console, a, tr)
    timing = ", ".join(f"{k} {v:.1f} s" for k, v in a.seconds.items())
    console.print(
        tr("\n{n} solves on {workers} worker(s): {timing}", n=sum(a.solves.values()), workers=a.workers, timing=timing),
        markup=False,
    )
    skipped = getattr(a, "skipped", None)
    if skipped:
        console.print(
            tr(
                "Skipped, the --time-limit ran out first: {names}; give a larger --time-limit, or run procure analyze on its own",
                names=", ".join(tr(ANALYSIS_LABEL.get(k, k)) for k in skipped),
            ),
            markup=False,
            soft_wrap=True,
        )


def _decision(b, end: str, cur: str, tr: Lang) -> str:
    """Whether today's decision still stands at a tornado end; where it changes, the plan that wins there."""
    state = b.decision(end)
    if state != "changes":
        return tr(DECISION_LABEL[state])
    modes = "+".join(mode_label(m, tr) for m in (b.optimum_modes(end) or ())) or "—"
    return tr("[b]changes[/b]: {modes}, {amount}", modes=modes, amount=tr.money(b.optimum(end), cur))


#: a tornado end's decision (``sensitivity.Bar.decision``) as the reports say it, where it does not change
DECISION_LABEL = {"none": N_("no plan"), "unsolved": N_("not re-optimized"), "stands": N_("stands")}


def _print_hindsight(console: Console, a, tr: Lang) -> None:
    """The Monte Carlo of hindsight optima (``--monte-carlo-mode hindsight``)."""
    s, cur = a.summary, a.currency
    t = Table(
        title=tr(
            "Uncertainty, a Monte Carlo of {n} sampled scenarios: every strategy re-optimized in each ({failed} "
            "without a plan)",
            n=s.scenarios,
            failed=s.failed,
        )
    )
    for col in (tr("strategy"), "P10", "P50", "P90", tr("cheapest in"), tr("plans")):
        t.add_column(col, justify="left" if col == tr("strategy") else "right")
    for k, v in s.strategies.items():
        t.add_row(
            tr(STRATEGY_LABEL[k]) if k in STRATEGY_LABEL else k,
            tr.money(v["p10"], cur),
            tr.money(v["p50"], cur),
            tr.money(v["p90"], cur),
            _cheapest_in(k, v),
            str(v["plans"]),
        )
    console.print(t)
    _print_mixing(console, s, tr)
    if s.gap is not None:
        console.print(
            tr(
                "Hindsight optima: what the best plan would have cost had each scenario been known, each solved to a "
                "relative gap of {gap}; not what the plan you sign will cost.",
                gap=f"{s.gap:g}",
            ),
            markup=False,
            soft_wrap=True,
        )
    if s.regret_mean is not None:
        console.print(
            tr(
                "Regret of today's plan kept as decided (re-costed, not re-optimized) against each scenario's optimum: mean {mean}, "
                "P90 {p90} over {n} scenarios",
                mean=tr.money(s.regret_mean, cur),
                p90=tr.money(s.regret_p90, cur),
                n=s.regret_scenarios,
            ),
            markup=False,
            soft_wrap=True,
        )
    if s.decided_infeasible:
        console.print(
            tr(
                "In {n} scenario(s) today's plan cannot run as decided (a deadline or shared nodes); they have no regret figure.",
                n=s.decided_infeasible,
            ),
            markup=False,
            soft_wrap=True,
        )
    for sc, st, why in s.failures[:5]:
        console.print(f"  ! {sc} {st}: {esc(why)}", soft_wrap=True)


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.0%}"


def _cheapest_in(name: str, v: dict) -> str:
    """A strategy's "cheapest in" cell. A tie of the free (hybrid) plan with a single mode counts for the single
    mode (the free plan chose that mode alone), so the hybrid's own share is only where mixing modes is strictly
    cheaper: it is said under the table (``mixing_text``), not shown as the recommended plan's "cheapest in 0%"."""
    return "—" if name == "hybrid" else _pct(v["win_probability"])


def mixing_text(s, tr: Lang = EN) -> str:
    """The sentence under a Monte Carlo table that says how "cheapest in" counts the free (hybrid) plan."""
    hybrid = s.strategies.get("hybrid") or {}
    if hybrid.get("win_probability") is None:
        return ""
    return tr(
        "Cheapest in: where the free (hybrid) plan costs the same as a single mode — it chose that mode alone — the "
        "single mode counts; mixing modes was strictly cheaper in {pct} of the scenarios.",
        pct=_pct(hybrid["win_probability"]),
    )


def reach_note(b, metric: str, cur: str, tr: Lang = EN) -> str:
    """What a tornado bar of a driver that cannot move the figure minimized moves instead (``Bar.reach``,
    analysis/sensitivity.py): the after-tax NPV of today's plan at each end, or only the P&L; "" for any other
    bar (``reach_notes`` names the drivers with nothing to move)."""
    if b.reach == "after_tax":
        lo, hi = b.after_tax("low"), b.after_tax("high")
        return tr(
            "{driver} moves no cash flow before tax, so today's plan's {metric} stays as it is; its after-tax NPV is "
            "{low} at {lo} and {high} at {hi}.",
            driver=b.driver,
            metric=metric,
            low=tr.money(lo, cur) if lo is not None else tr("no plan"),
            lo=_value(b.driver, b.low_value),
            high=tr.money(hi, cur) if hi is not None else tr("no plan"),
            hi=_value(b.driver, b.high_value),
        )
    if b.reach == "pnl":
        return tr(
            "{driver} moves only the P&L (the book depreciation of the servers bought), no cash flow: "
            "today's plan's {metric} stays as it is.",
            driver=b.driver,
            metric=metric,
        )
    return ""


def reach_notes(a, tr: Lang = EN) -> list[str]:
    """``reach_note`` of every bar that has one, in the table's order, and one line naming the drivers with
    nothing to move in these inputs."""
    metric = tr(a.inputs.objective.upper())
    bars = a.sensitivity or []
    out = [n for b in bars if (n := reach_note(b, metric, a.currency, tr))]
    idle = [b.driver for b in bars if b.reach == "nothing"]
    if idle:
        out.append(
            tr("Nothing in these inputs for {drivers} to move: their bars are today's plan.", drivers=", ".join(idle))
        )
    return out


def sampled_text(a, tr: Lang = EN) -> str:
    """Why the Monte Carlo's P50 and P90 of today's plan are not ``procure solve``'s range of the same plan: the
    solve computes them exactly over the hours band alone, the plan re-costed as decided even where it misses a
    deadline (analysis/plan_risk.py); the Monte Carlo samples that band — and any other declared driver — in N
    scenarios, takes the recourse where the plan breaks, and leaves out the scenarios without a plan. The
    sentence names each difference that applies. "" without a committed Monte Carlo of the TCO or without the
    solve's range."""
    from procure.analysis.montecarlo import HoursBand, distributions

    s, risk = a.summary, getattr(a.base, "risk", None)
    if s is None or not s.committed or risk is None or a.inputs.objective != "tco":  # the range is of the TCO
        return ""
    drawn = distributions(a.base.project.analysis)
    others = sorted(d for d, dist in drawn.items() if not isinstance(dist, HoursBand))
    band = "mfu" in drawn and isinstance(drawn["mfu"], HoursBand)
    hybrid = s.strategies.get("hybrid") or {}
    why = [tr("the sampling error of {n} scenarios", n=s.scenarios)]
    if others:
        why.append(tr("what the Monte Carlo draws besides ({drivers})", drivers=", ".join(others)))
    if hybrid.get("recourse_share"):
        why.append(
            tr(
                "the recourse in the {pct} of scenarios where the plan breaks (the solve re-costs it as decided)",
                pct=_pct(hybrid["recourse_share"]),
            )
        )
    missing = s.scenarios - int(hybrid.get("plans") or 0)
    if missing > 0:
        why.append(
            tr(
                "the {n} scenario(s) in which no plan meets the deadlines, left out of the percentiles (the solve "
                "costs the plan as decided there)",
                n=missing,
            )
        )
    return tr(
        "Sampled: the percentiles above come from {n} drawn scenarios ({drawn}); procure solve gives today's plan "
        "P50 {p50} and P90 {p90}, exact over the hours band alone and not sampled: they differ by {why}.",
        n=s.scenarios,
        drawn=tr(", ").join([x for x in (tr("the hours band") if band else "", *others) if x]),
        p50=tr.money(risk.tco_p50, a.currency),
        p90=tr.money(risk.tco_p90, a.currency),
        why=tr("; ").join(why),
    )


def _print_mixing(console: Console, s, tr: Lang) -> None:
    text = mixing_text(s, tr)
    if text:
        console.print(text, markup=False, soft_wrap=True)


def _print_committed(console: Console, a, tr: Lang) -> None:
    """The Monte Carlo of the committed plans ("here and now", procure.analysis.montecarlo)."""
    s, cur = a.summary, a.currency
    t = Table(
        title=tr(
            "Uncertainty, a Monte Carlo of {n} sampled scenarios: the committed cost of today's plan of each strategy "
            "(signed, lived through each scenario, with recourse where it breaks; {failed} without a plan)",
            n=s.scenarios,
            failed=s.failed,
        )
    )
    heads = (
        tr("strategy"),
        "P10",
        "P50",
        "P90",
        tr("runs as decided"),
        tr("needs recourse"),
        tr("mean cost with recourse"),
        tr("cheapest in"),
        tr("plans"),
    )
    for col in heads:
        t.add_column(col, justify="left" if col == tr("strategy") else "right")
    for k, v in s.strategies.items():
        t.add_row(
            tr(STRATEGY_LABEL[k]) if k in STRATEGY_LABEL else k,
            tr.money(v["p10"], cur),
            tr.money(v["p50"], cur),
            tr.money(v["p90"], cur),
            _pct(v.get("runs_as_decided")),
            _pct(v.get("recourse_share")),
            tr.money(v.get("recourse_mean"), cur),
            _cheapest_in(k, v),
            str(v["plans"]),
        )
    console.print(t)
    _print_mixing(console, s, tr)
    sampled = sampled_text(a, tr)
    if sampled:
        console.print(sampled, markup=False, soft_wrap=True)
    names = [k for k, v in s.strategies.items() if v["plans"]]
    if len(names) > 1:
        m = Table(title=tr("Probability that the row's committed plan costs less than the column's"))
        m.add_column("")
        for k in names:
            m.add_column(tr(STRATEGY_LABEL[k]) if k in STRATEGY_LABEL else k, justify="right")
        for k in names:
            cheaper = s.strategies[k].get("cheaper") or {}
            m.add_row(
                tr(STRATEGY_LABEL[k]) if k in STRATEGY_LABEL else k,
                *("" if o == k else _pct(cheaper.get(o)) for o in names),
            )
        console.print(m)
    if s.bounds_missing:
        console.print(tr("Value of waiting: {why}", why=tr(s.bounds_missing)), markup=False, soft_wrap=True)
    for k, v in s.strategies.items():
        w = v.get("value_of_waiting")
        if not w:
            continue
        console.print(
            tr(
                "{strategy}: value of waiting {low} to {high} — what knowing each scenario in advance would save "
                "on average (the committed plan's mean cost less the mean cost of the best plan in hindsight), "
                "bracketed on the first {n} scenarios",
                strategy=tr(STRATEGY_LABEL[k]) if k in STRATEGY_LABEL else k,
                low=tr.money(w["low"], cur),
                high=tr.money(w["high"], cur),
                n=w["scenarios"],
            ),
            markup=False,
            soft_wrap=True,
        )
    if s.decided_infeasible:
        console.print(
            tr(
                "In {n} scenario(s) today's plan cannot run as decided (a deadline, or capacity it does not hold).",
                n=s.decided_infeasible,
            ),
            markup=False,
            soft_wrap=True,
        )
    for sc, st, why in s.failures[:5]:
        console.print(f"  ! {sc} {st}: {esc(why)}", soft_wrap=True)


def delta_labels(files: list[str], tr: Lang = EN) -> list[str]:
    """The difference columns: each later file against the first, then from the third file on each against
    the one before it (``analysis.compare`` ``steps``)."""
    return [f"Δ {f}" for f in files[1:]] + [
        tr("Δ {file} vs {before}", file=f, before=b) for b, f in zip(files[1:], files[2:], strict=False)
    ]


def deltas(x) -> list:
    """The differences in the order of ``delta_labels``: against the first file, then against the one before."""
    return x.differences()[1:] + x.steps()[1:]


def print_comparison(console: Console, files: list[str], rows, currency: str, tr: Lang = EN) -> None:
    """Each file a column, then the difference of each later file against the first and, from the third
    file on, against the one before it; changed rows marked."""
    t = Table(
        title=tr("Comparison against {first} ({unit}); * marks what differs", first=files[0], unit=tr.unit(currency))
    )
    t.add_column("", style="bold")
    t.add_column(tr("figure"))
    for f in files:
        t.add_column(f, justify="right", overflow="fold")
    for label in delta_labels(files, tr):
        t.add_column(label, justify="right", overflow="fold")
    section = None
    for r in rows:
        cells = [tr.money(v) if r.numeric else ("—" if v is None else esc(_value_text(r, v, tr))) for v in r.values]
        befores = list(r.values[:1]) * (len(files) - 1) + list(r.values[1:-1])
        dcells = [
            ("" if d is None else _signed(d, tr)) if r.numeric else ("" if v == b else tr("changed"))
            for d, v, b in zip(deltas(r), list(r.values[1:]) + list(r.values[2:]), befores, strict=True)
        ]
        t.add_row(
            tr(r.section) if r.section != section else "",
            ("* " if r.changed else "  ") + _row_label(r, tr),
            *cells,
            *dcells,
        )
        section = r.section
    console.print(t)


def _value_text(r, v, tr: Lang) -> str:
    """A comparison cell that is text: a status or modes in the reader's language, else as it is."""
    if tr.en:
        return str(v)
    if r.label == "status":
        return status_label(v, tr)
    if r.label == "modes":
        return " + ".join(mode_label(m, tr) for m in str(v).split(" + "))
    return str(v)


def _row_label(r, tr: Lang) -> str:
    """A comparison row's label in the reader's language (a workload's name stays as written)."""
    if tr.en or r.section == "plan":
        return r.label
    if r.section == "strategies":
        name = r.label.removesuffix(" total")
        return tr("{strategy} total", strategy=tr(STRATEGY_LABEL[name])) if name in STRATEGY_LABEL else r.label
    if r.section == "costs":
        return tr(CATEGORY_LABEL[r.label]) if r.label in CATEGORY_LABEL else r.label
    return tr(r.label)


def _signed(d: float, tr: Lang) -> str:
    """A difference with its sign (+1,234), in 万 when amounts are shown in 万; one that rounds to nothing is
    0, never -0."""
    if tr.en and not tr.wan:
        return signed_number(d)
    text = tr.money(abs(d)) if tr.wan else tr.number(abs(d))
    if not any(ch in "123456789" for ch in text):  # rounds to nothing as shown (0, 0.0000 万元): no sign
        return text
    return ("+" if d >= 0 else "-") + text


def input_value_text(v, tr: Lang, percent: bool = False) -> str:
    """An input value of the comparison as text: "—" where the file does not give it; a fraction the
    inputs write as a percent (``InputChange.percent``) as one: 0.06 → 6%."""
    if v is None:
        return "—"
    if percent and isinstance(v, (int, float)) and not isinstance(v, bool):
        return f"{v * 100:.4g}%"
    if isinstance(v, bool):
        return tr("yes") if v else tr("no")
    if isinstance(v, float):
        return f"{v:,.6g}" if abs(v) < 1e6 else f"{v:,.0f}"
    if isinstance(v, int):
        return f"{v:,}"
    return tr(v) if v in ("yes", "quoted", "added", "removed") else str(v)


def input_delta_text(d: float | None, percent: bool, tr: Lang) -> str:
    """A difference of an input: a number with its sign, a percent's in percentage points (−2 pp)."""
    if d is None:
        return ""
    if percent:
        return tr("{points} pp", points=f"{d * 100:+.4g}")
    return f"{d:+,.6g}"


#: where an offer or workload added or removed stands in each file (``InputChange.presence``)
PRESENCE = (N_("quoted"), N_("added"), N_("removed"))


def input_cells(c, tr: Lang) -> list[str]:
    """The per-file cells of one input change: its values, or where an offer or workload was added or removed."""
    if c.kind in ("added", "removed"):
        return [tr(p) if p else "—" for p in c.presence()]
    return [input_value_text(v, tr, c.percent) for v in c.values]


SAME_INPUTS = N_("The inputs are the same in every file: the offers, the workloads and the project's settings.")


def print_input_diff(console: Console, files: list[str], changes, tr: Lang = EN) -> None:
    """What changed in the inputs, against the first file: one row per changed field, offer or workload
    added or removed; the values in each file (as quoted, in the offer's own currency), then Δ."""
    if not changes:
        console.print(tr(SAME_INPUTS))
        return
    t = Table(title=tr("What changed in the inputs, against {first}", first=files[0]))
    for label in tr.each("section", "offer / workload", "field"):
        t.add_column(label)
    for f in files:
        t.add_column(f, overflow="fold")
    for label in delta_labels(files, tr):
        t.add_column(label, justify="right", overflow="fold")
    for c in changes:
        dcells = [input_delta_text(d, c.percent, tr) if c.numeric else "" for d in deltas(c)]
        what = c.field if c.kind == "changed" else tr(c.kind)
        t.add_row(tr(c.section), esc(c.subject), esc(what), *[esc(x) for x in input_cells(c, tr)], *dcells)
    console.print(t)
