"""The kinds of ledger entry, their formula templates, and the templates evaluated in Python: a second
statement of every cost rule.

Each kind of ledger entry (``KINDS``: what its fields hold) has its formula twice: the rule in
``solver.costs`` that priced its amount, and the template of its kind (``EXPR``, re-exported by
``solver.ledger``), which the workbook writes as the cell's formula. This module evaluates a template with the entry's own fields ({D} nodes, {E} quantity, {G} unit price, {I} rate)
and the cost-model parameters (``parameters``), so the verifier can check that every amount follows from its
fields by the documented formula: a rule in ``costs`` that parts ways with its template is refused, naming
the entry, without a spreadsheet. It cannot catch a rule that is wrong in both the fields and the amount.

The arithmetic is a small recursive-descent parser over ``+ - * / ( )``, numbers and ``{placeholders}``
(no ``eval``), and one function, Excel's ``CUMIPMT``, as a loop of its own over the annuity's instalments.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from procure.models.project import Project
from procure.models.units import DAYS_PER_MONTH, DAYS_PER_YEAR, HOURS_PER_DAY

from .costs import BUSY_POWER_FRACTION, IDLE_POWER_FRACTION

if TYPE_CHECKING:
    from .ledger import Entry

#: kind -> (quantity, unit price, rate): what each kind's fields hold
KINDS: dict[str, tuple[str, str, str]] = {
    "price": ("-", "price per node of the volume tier", "-"),
    "duty": ("-", "price per node", "import duty, of price"),
    "vat": ("1 + import duty", "price per node", "VAT, of price plus duty"),
    "network": ("-", "network per node", "-"),
    "residual": ("-", "price per node", "residual, of price"),
    "owned_residual": ("-", "residual value per node", "-"),
    "maintenance": ("owned days", "price per node", "maintenance, of price per year"),
    "colocation": ("owned months (calendar, partial by days)", "colocation per node-month", "-"),
    "idle": ("owned days", "electricity per kWh", "kW max per node"),
    "interest": ("instalments in the horizon", "financed per node", "annual rate"),
    "energy": ("training hours", "electricity per kWh", "kW max per node"),
    "cloud": ("compute hours", "price per node-hour", "spot overhead"),
    "storage": ("TB held", "price per TB-month", "months on the offer (calendar, partial by days)"),
    "egress": ("TB moved out", "price per TB", "-"),
    "rent": ("months", "price per node-month of the term", "-"),
    "setup": ("-", "setup fee per node", "-"),
    "reserved": ("months", "committed price per node-hour", "-"),
    "reserved_setup": ("-", "upfront per node", "-"),
    "fixed": ("charges", "fixed cost per charge", "-"),
    "staff": ("FTEs", "cost per FTE-year", "months held"),
    "service_vat": ("charges before VAT", "-", "VAT, of the charges"),
    "carbon": ("kWh drawn in the year", "carbon price per tCO2e", "grid gCO2e per kWh"),
}

#: kind -> the formula template that makes an entry's amount from its own fields ({D} nodes, {E} quantity,
#: {G} unit price, {I} rate, {T} an interest entry's instalments) and the cost-model parameters ({kwh} {pue}
#: {busy} {idle} {dpy} {dpm} {hpd}, ``{fx}``: "× the exchange-rate cell" of a quoted currency, or nothing).
#: The workbook writes these as its formulas (reports.lines) and the verifier evaluates them in Python
#: (solver.formulas): the second, independent statement of each rule in ``solver.costs``.
EXPR: dict[str, str] = {
    "price": "{D}*{G}{fx}",
    "duty": "{D}*{G}{fx}*{I}",
    "vat": "{D}*{G}{fx}*{E}*{I}",
    "network": "{D}*{G}{fx}",
    "residual": "-{D}*{G}{fx}*{I}",
    "owned_residual": "-{D}*{G}",
    "maintenance": "{D}*{G}{fx}*{I}*{E}/{dpy}",
    "colocation": "{D}*{G}{fx}*{E}",
    "idle": "{D}*{I}*{idle}*{E}*{hpd}*{pue}*{G}",
    "interest": "-CUMIPMT({I}/12,{T},{D}*{G},1,{E},0)",  # the annuity's interest paid within the horizon
    "energy": "{D}*{I}*({busy}-{idle})*{E}*{pue}*{G}",
    "cloud": "{D}*{E}*(1+{I})*{G}{fx}",
    "storage": "{E}*{G}{fx}*{I}",
    "egress": "{E}*{G}{fx}",
    "rent": "{D}*{E}*{G}{fx}",
    "setup": "{D}*{G}{fx}",
    "reserved": "{D}*{E}*{G}*{hpd}*{dpm}{fx}",
    "reserved_setup": "{D}*{G}{fx}",
    "fixed": "{E}*{G}{fx}",
    "staff": "{E}*{G}*{I}/12",
    "service_vat": "{E}*{I}",
    "carbon": "{E}*{I}/1000000*{G}{fx}",  # kWh × g/kWh / 10^6 g per t × price per t
}


def fx_key(code: str) -> str:
    """The parameter that holds the exchange rate of ``code`` (the value of one unit in the reporting currency)."""
    return f"fx_{code}"


def template(e: Entry, reporting: str) -> str:
    """The formula of ``e``'s amount (EXPR of its kind), its ``{fx}`` resolved for its currency against the
    ``reporting`` one and an interest entry's instalments written in; an interest entry that pays no
    interest within the horizon (no instalment, or no rate) is 0."""
    fx = "" if e.currency == reporting else f"*{{{fx_key(e.currency)}}}"
    if e.kind == "interest" and not (e.quantity and e.rate):
        return "0*{D}"
    expr = EXPR[e.kind].replace("{fx}", fx).replace("{T}", str(e.term_months))
    # on price or FX paths the entry's index (its factor over today's quote and rate) is written in, as a number
    return expr if e.index is None else f"({expr})*{e.index!r}"


def path_index(e: Entry, project: Project) -> float:
    """The index of an entry priced on price or FX paths (solver.ledger.Entry.index): its amount over what its
    template makes of its fields at today's quote and rate; 1 where that is 0."""
    base = entry_formula_value(replace(e, index=None), parameters(project), project.currency)
    return e.amount / base if base else 1.0


_TOKEN = re.compile(r"\s*(?:\{(\w+)\}|(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)|([A-Z]+)|([-+*/(),]))")


def parameters(project: Project) -> dict[str, float]:
    """The cost-model parameters a template names: energy price, PUE, power fractions, calendar constants,
    and the exchange rate of every quoted currency (``fx_<code>``, one unit in the reporting currency)."""
    out = {
        "kwh": project.electricity_price_per_kwh,
        "pue": project.pue,
        "busy": BUSY_POWER_FRACTION,
        "idle": IDLE_POWER_FRACTION,
        "dpy": DAYS_PER_YEAR,
        "dpm": DAYS_PER_MONTH,
        "hpd": HOURS_PER_DAY,
    }
    out.update({fx_key(code): rate for code, rate in project.fx_rates.items()})
    return out


def cumipmt(rate: float, nper: int, pv: float, start: int, end: int, kind: int = 0) -> float:
    """Excel's CUMIPMT: the interest of instalments ``start``…``end`` of an annuity of ``nper`` monthly
    instalments on ``pv`` at ``rate`` per month, paid at each period's end (``kind`` 0), as a payment
    (negative). The instalment is PMT = pv·rate / (1 − (1 + rate)^−nper); instalment k pays the balance's
    interest and the rest off the balance."""
    if kind != 0:
        raise ValueError("CUMIPMT: only payments at the period end (type 0) are priced")
    pay = pv * rate / (1.0 - (1.0 + rate) ** -nper) if rate else pv / nper
    balance, paid = pv, 0.0
    for k in range(1, min(end, nper) + 1):
        interest = balance * rate
        if k >= start:
            paid += interest
        balance -= pay - interest
    return -paid


_FUNCTIONS: dict[str, Callable[..., float]] = {
    "CUMIPMT": lambda *a: cumipmt(a[0], int(a[1]), a[2], int(a[3]), int(a[4]), int(a[5]))
}


class _Parser:
    """expr := term (('+'|'-') term)*; term := unary (('*'|'/') unary)*; unary := '-' unary | atom;
    atom := number | {name} | NAME '(' expr (',' expr)* ')' | '(' expr ')'."""

    def __init__(self, text: str, values: Mapping[str, float]):
        self.text, self.values, self.at = text, values, 0
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        while pos < len(text.rstrip()):
            m = _TOKEN.match(text, pos)
            if m is None:
                raise ValueError(f"formula {text!r}: cannot read {text[pos:]!r}")
            kind = ("name", "number", "function", "op")[next(i for i, g in enumerate(m.groups()) if g is not None)]
            self.tokens.append((kind, m.group(m.lastindex or 0)))
            pos = m.end()

    def peek(self) -> str | None:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def take(self, want: str | None = None) -> tuple[str, str]:
        if self.at >= len(self.tokens) or (want is not None and self.tokens[self.at][1] != want):
            raise ValueError(f"formula {self.text!r}: expected {want or 'more'} at token {self.at + 1}")
        self.at += 1
        return self.tokens[self.at - 1]

    def value(self) -> float:
        out = self.expr()
        if self.at != len(self.tokens):
            raise ValueError(f"formula {self.text!r}: unexpected {self.peek()!r}")
        return out

    def expr(self) -> float:
        out = self.term()
        while self.peek() in ("+", "-"):
            out = out + self.term() if self.take()[1] == "+" else out - self.term()
        return out

    def term(self) -> float:
        out = self.unary()
        while self.peek() in ("*", "/"):
            out = out * self.unary() if self.take()[1] == "*" else out / self.unary()
        return out

    def unary(self) -> float:
        if self.peek() == "-":
            self.take()
            return -self.unary()
        return self.atom()

    def atom(self) -> float:
        kind, text = self.take()
        if kind == "number":
            return float(text)
        if kind == "name":
            if text not in self.values:
                raise ValueError(f"formula {self.text!r}: no value for {{{text}}}")
            return self.values[text]
        if kind == "function":
            if text not in _FUNCTIONS:
                raise ValueError(f"formula {self.text!r}: unknown function {text}")
            self.take("(")
            args = [self.expr()]
            while self.peek() == ",":
                self.take()
                args.append(self.expr())
            self.take(")")
            return _FUNCTIONS[text](*args)
        if text == "(":
            out = self.expr()
            self.take(")")
            return out
        raise ValueError(f"formula {self.text!r}: unexpected {text!r}")


def evaluate(formula: str, values: Mapping[str, float]) -> float:
    """The value of ``formula`` (a template's arithmetic) with its ``{placeholders}`` taken from ``values``."""
    return _Parser(formula, values).value()


def entry_formula_value(e: Entry, params: Mapping[str, float], reporting: str) -> float:
    """What ``e``'s template (solver.ledger.template) makes of its own fields and the cost parameters: the
    amount the documented formula gives it. An empty field counts 0, as an empty cell does."""
    cells = {"D": e.nodes, "E": e.quantity, "G": e.unit_price, "I": e.rate}
    values = {**params, **{k: v or 0.0 for k, v in cells.items()}}
    return evaluate(template(e, reporting), values)


def formula_problems(entries, project: Project, close: Callable[[float, float], bool]) -> list[str]:
    """The entries whose amount is not what their formula template makes of their fields, each named."""
    params, bad = parameters(project), []
    for e in entries:
        try:
            want = entry_formula_value(e, params, project.currency)
        except (ValueError, KeyError, ZeroDivisionError) as exc:
            bad.append(f"formula: {e.key} ({e.kind}) cannot be evaluated: {exc}")
            continue
        if not close(e.amount, want):
            bad.append(
                f"formula: {e.key} is {e.amount:,.2f} but its formula {template(e, project.currency)} "
                f"makes {want:,.2f} of its fields"
            )
    return bad
