"""The reader's language: one translation catalogue, and the locale's numbers, dates and amounts.

Every label a report shows is written in the code in English and passed through a ``Lang``
(``tr("Plan per workload")``, ``tr("{n} workload(s)", n=3)``): English is the message id itself, so
the English output is exactly the text in the code; other languages look it up in their gettext
catalogue (``reports/locale/<lang>.po``, read with Babel). Labels kept in tables (strategy names,
cost categories) are marked with ``N_`` where they are defined and translated where they are shown.
``tests/test_i18n.py`` extracts every label from the sources and fails when one has no translation.

Numbers and dates follow the locale (Babel's CLDR data): in zh-CN dates read 2027年1月4日 and amounts
carry 元 (CNY) or the currency's Chinese name. ``amounts_in: wan`` shows amounts in 万 (10,000) of
the currency — in the workbook through number formats, so cells keep their full values and every
formula stays live.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

#: languages procure writes, as ``--lang`` and ``language:`` spell them
LANGUAGES = ("en", "zh-CN")
#: how amounts are shown: in units of the currency, or in 万 (10,000)
AMOUNTS = ("unit", "wan")
#: the font the workbook names in a language (one that has its glyphs when printed)
FONTS = {"zh-CN": "Noto Sans CJK SC"}
#: Babel's name of a language
_BABEL = {"en": "en", "zh-CN": "zh_CN"}
#: misses of the catalogue, collected while rendering (the tests read it)
MISSING: set[str] = set()


def N_(text: str) -> str:
    """Mark ``text`` as a label for the catalogue; it is translated where it is shown."""
    return text


def Ns(*texts: str) -> tuple[str, ...]:
    """Mark several labels (a table's column names) for the catalogue."""
    return texts


def normalize(code: str) -> str | None:
    """``zh-cn``, ``zh_CN``, ``zh`` → ``zh-CN``; ``EN`` → ``en``; None when not a language procure writes."""
    key = str(code).strip().replace("_", "-").lower()
    aliases = {
        "en": "en",
        "en-us": "en",
        "en-gb": "en",
        "zh": "zh-CN",
        "zh-cn": "zh-CN",
        "zh-hans": "zh-CN",
        "zh-hans-cn": "zh-CN",
    }
    return aliases.get(key)


@cache
def catalogue(code: str) -> dict[str, str]:
    """msgid → translation of a language's catalogue (empty for English, whose ids are the text)."""
    if code == "en":
        return {}
    from babel.messages.pofile import read_po

    name = _BABEL[code] + ".po"
    with resources.files("procure.reports").joinpath("locale", name).open("rb") as fh:
        cat = read_po(fh)
    return {
        (f"{m.context}\x04{m.id}" if m.context else m.id): m.string
        for m in cat
        if isinstance(m.id, str) and m.id and isinstance(m.string, str) and m.string
    }


@dataclass(frozen=True)
class Lang:
    """A language, the reporting currency and how amounts are shown."""

    code: str = "en"
    amounts_in: str = "unit"
    currency: str = ""
    _cat: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.code not in LANGUAGES:
            raise ValueError(f"unknown language {self.code!r}; choose one of {', '.join(LANGUAGES)}")
        if self.amounts_in not in AMOUNTS:
            raise ValueError(f"unknown amounts_in {self.amounts_in!r}; choose one of {', '.join(AMOUNTS)}")
        object.__setattr__(self, "_cat", catalogue(self.code))

    @property
    def en(self) -> bool:
        return self.code == "en"

    @property
    def wan(self) -> bool:
        return self.amounts_in == "wan"

    @property
    def font(self) -> str | None:
        """The font the workbook names (None: the workbook's default, as it always was in English)."""
        return FONTS.get(self.code)

    def __call__(self, msgid: str, /, **kw) -> str:
        """The label in this language, its ``{placeholders}`` filled from ``kw``."""
        text = msgid
        if self.code != "en":
            got = self._cat.get(msgid)
            if got is None:
                MISSING.add(msgid)
            else:
                text = got
        return text.format(**kw) if kw else text

    def say(self, message) -> str:
        """A sentence the solver wrote (``solver.reasons.Msg``, or a reason carrying one) in this language; a
        plain string stays as it is (text from the inputs, or not yet a template)."""
        m = getattr(message, "message", None) or message
        if not hasattr(m, "msg"):
            return str(message)
        return (
            m.msg.format(**{k: self._arg(v) for k, v in m.args})
            if self.en and not self.wan
            else self(m.msg, **{k: self._arg(v) for k, v in m.args})
        )

    def _arg(self, v):
        """One argument of a sentence: a clause rendered, an amount in the locale and unit, a name translated."""
        from procure.solver.reasons import Amount, Clauses, Label, Msg

        if isinstance(v, Clauses):
            return self(v.sep).join(str(self._arg(x)) for x in v.items)
        if isinstance(v, tuple):
            return self(", ").join(str(self._arg(x)) for x in v)
        if isinstance(v, Msg):
            return self.say(v)
        if isinstance(v, Amount):
            if self.en and not self.wan:
                return str(v)
            x = abs(v.value) if v.signed else v.value
            if self.wan and abs(x) < 500:  # 0.0 万 would say nothing: a small amount in whole units
                text = f"{self.number(x)} {self.cur(v.currency or self.currency)}".strip()
            else:
                text = self.money(x, v.currency)
            if not v.signed or round(x) == 0:  # a difference that rounds to nothing carries no sign
                return text
            return ("+" if v.value >= 0 else "-") + text
        if isinstance(v, Label):
            return v.text if self.en else self(v.msgid)
        return v

    def says(self, reasons) -> str:
        """Several reasons of one shape as one sentence (``solver.reasons.render``), in this language."""
        return self("; ").join(self.say(r) for r in reasons)

    def p(self, context: str, msgid: str, /, **kw) -> str:
        """A label that one English word spells for two things (gettext's msgctxt): ``tr.p("unit", "nodes")``
        is the unit 节点, ``tr("nodes")`` the column 节点数."""
        if self.code == "en":
            return msgid.format(**kw) if kw else msgid
        key = f"{context}\x04{msgid}"
        if key not in self._cat:
            MISSING.add(key)
            return msgid.format(**kw) if kw else msgid
        return self._cat[key].format(**kw) if kw else self._cat[key]

    def each(self, *msgids: str) -> list[str]:
        """Several labels at once (a row of column headers)."""
        return [self(m) for m in msgids]

    # --- amounts ---------------------------------------------------------------------------------

    def cur(self, currency: str | None = None) -> str:
        """How a currency is named beside an amount: the ISO code in English; 元 for CNY and the
        currency's Chinese name (美元, 欧元) in zh-CN."""
        code = currency if currency is not None else self.currency
        if self.en or not code:
            return code
        if code == "CNY":
            return "元"
        from babel.numbers import get_currency_name

        return get_currency_name(code, locale=_BABEL[self.code])

    def unit(self, currency: str | None = None) -> str:
        """The unit amounts are shown in: ``USD``, ``元``, or with ``amounts_in: wan`` ``万元`` / ``×10,000 USD``."""
        name = self.cur(currency)
        if not self.wan:
            return name
        return f"×10,000 {name}" if self.en else f"万{name}"

    def money(self, x: float | None, currency: str = "") -> str:
        """An amount as text: ``1,234,567 USD`` (the English form, unchanged), ``1,234,567 元``,
        ``123.5 万元``."""
        if x is None:
            return "—"
        if self.en and not self.wan:
            return f"{x:,.0f} {currency}".strip()
        unit = self.unit(currency) if currency else ("" if not self.wan else self.unit(self.currency))
        number = self.number(x / 10_000, self.wan_decimals(x)) if self.wan else self.number(x, 0)
        return f"{number} {unit}".strip()

    @staticmethod
    def wan_decimals(x: float) -> int:
        """Decimals of an amount in 万: one from 万 up; below it two significant digits, up to four decimals
        (one unit), so that 80 USD is 0.0080 ×10,000 USD, never 0.0."""
        value = abs(x) / 10_000
        if value >= 1 or value == 0:
            return 1
        return max(1, min(4, 1 - math.floor(math.log10(value))))

    def number(self, x: float, decimals: int = 0) -> str:
        """A number with the locale's grouping and decimal signs."""
        if self.en:
            return f"{x:,.{decimals}f}"
        from babel.numbers import format_decimal

        pattern = "#,##0" + ("." + "0" * decimals if decimals else "")
        return format_decimal(round(x, decimals), format=pattern, locale=_BABEL[self.code])

    # --- dates -----------------------------------------------------------------------------------

    def date(self, d: dt.date) -> str:
        """A calendar date: ISO 8601 in English (as before), the locale's medium form otherwise (2027年1月4日)."""
        if self.en:
            return d.isoformat()
        from babel.dates import format_date

        return format_date(d, format="medium", locale=_BABEL[self.code])

    def month(self, d: dt.date, english: str = "%b %Y") -> str:
        """A month: ``Jan 2027`` in English, ``2027年1月`` in zh-CN."""
        if self.en:
            return d.strftime(english)
        from babel.dates import format_date

        return format_date(d, format="yyyy年M月", locale=_BABEL[self.code])

    # --- workbook number formats -----------------------------------------------------------------

    @property
    def date_fmt(self) -> str:
        return "yyyy-mm-dd" if self.en else 'yyyy"年"m"月"d"日"'

    @property
    def month_fmt(self) -> str:
        return "d mmm yy" if self.en else 'yyyy"年"m"月"'

    @property
    def chart_month_fmt(self) -> str:
        return "mmm yy" if self.en else 'yyyy"年"m"月"'

    def money_fmt(self, currency: str, cents: bool = False) -> str:
        """The number format of an amount cell. English in units: as it always was. 万: the cell keeps
        its full value and the format shows it ÷ 10,000 to one decimal (``0\\.0,``: ÷1,000, then a
        literal point before the last digit — Excel and LibreOffice both read it)."""
        if self.wan:
            unit = self.unit(currency)
            return f'0\\.0,"{unit}";-0\\.0,"{unit}";0\\.0,"{unit}"'
        if self.en:
            body = "#,##0.00" if cents else "#,##0"
            return f'{body} "{currency}"_);-{body} "{currency}"_);0 "{currency}"_)'
        name = self.cur(currency)
        body = "#,##0.00" if cents else "#,##0"
        return f'{body} "{name}";-{body} "{name}";0 "{name}"'

    def amount_fmt(self, english: str) -> str:
        """The format of a plain amount cell (no unit: the header names it): ``english`` unless in 万."""
        return "0\\.0," if self.wan else english


EN = Lang()


def lang_for(code: str | None = None, project=None, amounts_in: str | None = None) -> Lang:
    """The reader's language: ``--lang`` if given, else the workload's ``language``, else English; the
    amounts likewise (``--amounts-in``, ``amounts_in``)."""
    language = code or (getattr(project, "language", None) if project is not None else None) or "en"
    amounts = amounts_in or (getattr(project, "amounts_in", None) if project is not None else None) or "unit"
    currency = getattr(project, "currency", "") if project is not None else ""
    return Lang(normalize(language) or language, amounts, currency)
