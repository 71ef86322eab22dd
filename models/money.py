"""Money as finance teams write it: percentages, ISO 4217 currencies, and the quote schedules of an offer.

Percent fields (every field whose name ends in ``_pct``, the loan's ``annual_rate`` and the project's
``discount_rate``) accept a fraction
(``0.40``), a percent string (``"40%"``) or a spreadsheet cell formatted as a percentage (which a
spreadsheet stores as the fraction 0.40). A bare number above 1 is refused with "write 40% or 0.40":
"40" is far more often a percentage typed without its sign than a 4000% markup.

Currencies are ISO 4217 alphabetic codes (checked against the ISO 4217 table shipped by ``pycountry``).
"""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from procure.fileio.limits import MAX_COUNT, MAX_MONTHS, MAX_PRICE


def _above_one(value: object, number: float) -> str:
    fraction = number / 100
    shown = f"{fraction:.2f}" if abs(round(fraction, 2) - fraction) < 1e-12 else f"{fraction:g}"
    return f"{value!r} is above 1; a percentage must be written with its sign or as a fraction: write {number:g}% or {shown}"


def _ascii_digits(value: object, text: str) -> None:
    """A number must be typed with the digits 0-9: Python reads "٨" (Arabic-Indic eight) or "１" (a fullwidth
    one) as a number, so a reviewer's 8 could silently be another script's digit."""
    odd = next((ch for ch in text if not ch.isascii() and (ch.isdigit() or ch.isnumeric())), None)
    if odd is not None:
        raise ValueError(
            f"{value!r} has the character {odd!r} (U+{ord(odd):04X}), which is not one of the digits 0-9; "
            "type the number with the digits 0-9"
        )


def parse_pct(value: object, most: float = 1.0) -> float:
    """A percentage as a fraction: 0.4, "0.4", "40%", " 40 % " -> 0.4. ``most`` is the largest fraction
    the field allows (1 = 100%; the spot overhead allows 5 = 500%)."""
    if isinstance(value, bool):
        raise ValueError("expected a percentage such as 40% or 0.40, not true/false")
    if isinstance(value, str):
        text = value.strip()
        percent = text.endswith("%")
        if percent:
            text = text[:-1].strip()
        _ascii_digits(value, text)
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"expected a percentage such as 40% or 0.40 (got {value!r})") from None
        if not math.isfinite(number):
            raise ValueError(f"expected a finite percentage (got {value!r})")
        if percent:
            number /= 100.0
        elif number > 1:
            raise ValueError(_above_one(value, number))
        value = number
    elif isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise ValueError(f"expected a finite percentage (got {value!r})")
        if value > 1:
            raise ValueError(_above_one(value, value))
        value = float(value)
    else:
        raise ValueError(f"expected a percentage such as 40% or 0.40 (got {value!r})")
    if value < 0:
        raise ValueError(f"a percentage cannot be negative (got {value!r})")
    if value > most + 1e-12:
        raise ValueError(f"at most {most * 100:g}% (got {value * 100:g}%)")
    return float(value)


#: a fraction 0–1, typed as 0.40 or "40%"
Pct = Annotated[float, BeforeValidator(parse_pct)]
#: an annual rate (discount rate, loan interest) above this is more likely a typing slip than a real rate: a warning
HIGH_ANNUAL_RATE = 0.30


def high_rate_warning(rate: float) -> str | None:
    """The warning for an annual rate above ``HIGH_ANNUAL_RATE`` (None below it)."""
    if rate <= HIGH_ANNUAL_RATE:
        return None
    return f"an annual rate of {rate * 100:g}% is above {HIGH_ANNUAL_RATE * 100:g}%; check that it is a yearly rate written as 8% or 0.08"


#: a fraction 0–5 (spot interruption overhead may exceed 100%); a bare number above 1 is still refused
Pct500 = Annotated[float, BeforeValidator(lambda v: parse_pct(v, 5.0))]


#: ISO 4217 codes that are not money a price can be quoted in
NOT_CURRENCIES = {
    "XXX": "the code for no currency",
    "XTS": "the code reserved for testing",
    "XAU": "gold",
    "XAG": "silver",
    "XPD": "palladium",
    "XPT": "platinum",
    "XBA": "a bond market unit",
    "XBB": "a bond market unit",
    "XBC": "a bond market unit",
    "XBD": "a bond market unit",
    "XDR": "the IMF's special drawing right",
    "XSU": "the ALBA unit of account",
    "XUA": "the ADB unit of account",
}


def known_currency(code: object) -> str:
    """An ISO 4217 code, upper-cased; unknown codes are refused with a close match."""
    import pycountry

    from procure.common.errors import did_you_mean

    if not isinstance(code, str):
        raise ValueError(f"expected a three-letter ISO 4217 currency code such as USD, EUR, CNY (got {code!r})")
    text = code.strip().upper()
    if text in NOT_CURRENCIES:
        raise ValueError(
            f"{text} is an ISO 4217 code but not a currency ({NOT_CURRENCIES[text]}); use the code of the currency "
            "the amounts are in, such as USD, EUR, CNY"
        )
    if pycountry.currencies.get(alpha_3=text) is None:
        hint = did_you_mean(text, [c.alpha_3 for c in pycountry.currencies])
        raise ValueError(f"unknown currency {code!r}{hint}; use an ISO 4217 code such as USD, EUR, CNY")
    return text


Currency = Annotated[str, BeforeValidator(known_currency)]
#: value of one unit of a currency in another: positive and below a million (the widest real pair,
#: e.g. USD per Iranian rial or rial per USD, is about 4·10^5)
FxRate = Annotated[float, Field(gt=0, le=1e6)]


class Financing(BaseModel):
    """A purchase paid as a down payment plus a fixed-rate annuity loan (see ``solver.costs.loan_schedule``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    down_payment_pct: Pct = Field(
        ge=0, le=1, description="paid on delivery, fraction of the landed price (0.20 or 20%)"
    )
    months: int = Field(gt=0, le=120, description="number of monthly instalments after delivery")
    annual_rate: Pct = Field(ge=0, le=1, description="nominal annual interest rate, compounded monthly (0.06 or 6%)")


class TermPrice(BaseModel):
    """One tier of a term-tiered rent quote: a contract of ``min_term_months`` months at this monthly rate."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_term_months: int = Field(gt=0, le=MAX_MONTHS)
    price_per_node_month: float = Field(gt=0, le=MAX_PRICE)


class VolumePrice(BaseModel):
    """One tier of a volume quote: every node costs this when at least ``min_nodes`` are bought in total."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_nodes: int = Field(gt=0, le=MAX_COUNT)
    price_per_node: float = Field(gt=0, le=MAX_PRICE)


def parse_tiers(value: object, keys: tuple[str, str]) -> object:
    """A compact spreadsheet cell "1:3200; 6:2900; 12:2600" -> [{keys[0]: 1, keys[1]: 3200}, ...].
    Lists (YAML) pass through unchanged; a malformed cell says what is expected."""
    if not isinstance(value, str):
        return value
    out = []
    for part in [p.strip() for p in value.replace("\n", ";").split(";") if p.strip()]:
        bits = part.split(":")
        if len(bits) != 2:
            raise ValueError(f'tier {part!r} is not written as {keys[0]}:{keys[1]} (e.g. "1:3200; 6:2900; 12:2600")')
        left, right = (b.strip().replace(" ", "").replace("_", "") for b in bits)
        _ascii_digits(part, left + right)
        try:
            threshold = int(left)
            price = float(right.replace(",", ""))
        except ValueError:
            raise ValueError(f'tier {part!r}: expected a whole number, a colon, then a price (e.g. "6:2900")') from None
        out.append({keys[0]: threshold, keys[1]: price})
    if not out:
        raise ValueError(f"expected tiers written as {keys[0]}:{keys[1]} separated by ';' (e.g. \"1:3200; 6:2900\")")
    return out


def ascending(values: list[int], what: str) -> str | None:
    """None when strictly ascending, else the problem in words."""
    for k in range(1, len(values)):
        if values[k] <= values[k - 1]:
            return f"tiers must be in ascending order of {what} without repeats: tier {k + 1} ({values[k]}) follows tier {k} ({values[k - 1]})"
    return None
