"""One price sanity band per GPU: what an hour, a month and a purchase of one GPU plausibly cost.

The band is derived from the GPU table (``models/data/gpus.yaml``), not from any catalog, so a GPU that no
catalog prices yet is checked as well as one the bundled catalog prices. Per GPU, in US dollars:

    reference per GPU-hour    r = 1.6 × dense BF16 PFLOP/s + 0.005 × memory (GB, the datasheet figure)
    reference per GPU-month   r × 730 h
    reference per GPU bought  r × 12,000 h

(an H100 SXM: 1.6 × 0.989 + 0.005 × 80 = 1.98 an hour, 1,448 a month, 23,800 bought). The coefficients were set
on the bundled catalog of 2026-11-29: its prices per GPU lie at 0.71–5.6 × the hourly reference (the lowest an H100
spot price, 1.41), 1.1–1.7 × the monthly one and 0.68–2.1 × the purchase one — far inside the band below, which
``tests/test_price_band.py`` keeps every bundled and example offer within.

A price per GPU (the node's price / its GPUs, in US dollars) is

- **implausibly low** under ``LOW`` × the reference (a B200 at 0.01 an hour);
- **implausibly high** over ``HIGH`` × the reference: an hourly column holding a monthly price (× 730), a monthly
  column holding a purchase price (about × 16), a purchase column holding several nodes or another currency. The
  hourly ceiling is wider because a one-GPU cloud instance on a big host (AWS g6e.16xlarge: one L40S, 64 vCPUs)
  costs several times its GPU's reference;
- **most likely a per-GPU price in the per-node column** when a node of several GPUs is priced under
  ``PER_GPU_HINT`` × the reference per GPU while the node's whole price would be a plausible price of ONE GPU
  (within ``PER_GPU_HINT``–2 × the reference): 8 × H100 at 2.49 per node-hour is 0.31 per GPU-hour.

These are warnings, never errors: a negotiated price may be odd. Each names the offer or row, the band, and how
the band was derived. The import (``offers.importers``), ``procure offers validate``/``list`` and every command that
loads a catalog with a project (``solve``, ``size``, ...; ``offers.catalog``) use this one module.

Currencies: a price is turned into US dollars before it is compared — with the project's ``fx_rates`` where the
project gives them (an offer's currency into the project's, the project's into USD through its USD rate), else with
``REFERENCE_CNY_PER_UNIT``, the China Foreign Exchange Trade System's central parity rates of 2025-09-01. Those
rates serve this check only: no amount is ever converted with them. A currency neither knows is not checked, and
one warning per file says so. A row without a currency, read without a project (``offers validate``), is in
the project's currency, which is not known: it is compared as US dollars against the floors (a currency worth less
than the dollar — CNY, JPY — only raises its numbers, so a sound price does not look low), and against ceilings
``UNKNOWN_CURRENCY_SLACK`` times higher, wide enough for a catalog in yuan; the warning says so, and stating the
``currency`` settles it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from procure.models.gpu import gpu_table

if TYPE_CHECKING:
    from procure.models.offer import Offer
    from procure.models.project import Project

#: US dollars per GPU-hour per dense BF16 PFLOP/s, and per GB of GPU memory
USD_PER_PFLOPS_HOUR = 1.6
USD_PER_GB_HOUR = 0.005
#: hours a month (the catalogs' convention: a month is 730 h) and hours of use a purchase price stands for
HOURS_PER_MONTH = 730.0
HOURS_PER_PURCHASE = 12_000.0
#: floor and ceiling as multiples of the reference, per unit
LOW = 1 / 8
HIGH = {"hour": 20.0, "month": 12.0, "purchase": 12.0}
#: a multi-GPU node priced under this × the reference per GPU, at a node price a single GPU could fetch
PER_GPU_HINT = 1 / 4

#: China Foreign Exchange Trade System central parity rates, 2025-09-01 (published by Xinhua, "Market exchange
#: rates in China -- Sept. 1", https://english.news.cn/20250901/3db4b953aa3b45d49d0d33b6ac5f3e2c/c.html):
#: yuan per unit; the source gives 100 units = N yuan for the first ten and 100 yuan = N units for the others,
#: converted here as N / 100 and 100 / N.
REFERENCE_CNY_PER_UNIT: dict[str, float] = {
    "CNY": 1.0,
    "USD": 7.1072,
    "EUR": 8.3129,
    "JPY": 0.04834,
    "HKD": 0.91174,
    "GBP": 9.6061,
    "AUD": 4.6542,
    "NZD": 4.1963,
    "SGD": 5.5410,
    "CHF": 8.8782,
    "CAD": 5.1774,
    "MOP": 100 / 113.04,
    "MYR": 100 / 59.319,
    "RUB": 100 / 1123.18,
    "ZAR": 100 / 248.17,
    "KRW": 100 / 19531,
    "AED": 100 / 51.622,
    "SAR": 100 / 52.745,
    "HUF": 100 / 4769.15,
    "PLN": 100 / 51.259,
    "DKK": 100 / 89.81,
    "SEK": 100 / 132.96,
    "NOK": 100 / 141.46,
    "TRY": 100 / 578.058,
    "MXN": 100 / 262.47,
    "THB": 100 / 453.91,
}
REFERENCE_RATES = "the CFETS central parity rates of 2025-09-01"
#: a price whose currency is not known is held to ceilings this many times higher: yuan per US dollar
UNKNOWN_CURRENCY_SLACK = REFERENCE_CNY_PER_UNIT["USD"]

#: unit → (hours it stands for, how a price of it is named)
UNITS: dict[str, tuple[float, str]] = {
    "hour": (1.0, "GPU-hour"),
    "month": (HOURS_PER_MONTH, "GPU-month"),
    "purchase": (HOURS_PER_PURCHASE, "GPU bought"),
}


@dataclass(frozen=True)
class Band:
    """The band of one GPU in one unit (US dollars per GPU per ``unit``)."""

    gpu: str
    unit: str  # hour | month | purchase
    reference: float

    @property
    def floor(self) -> float:
        return self.reference * LOW

    @property
    def ceiling(self) -> float:
        return self.reference * HIGH[self.unit]

    @property
    def name(self) -> str:
        return UNITS[self.unit][1]

    def why(self) -> str:
        """The band and how it was derived, in one sentence."""
        g = gpu_table()[self.gpu]
        hours, _ = UNITS[self.unit]
        per_hour = f"{USD_PER_PFLOPS_HOUR:g} × {g.bf16_dense_tflops / 1000:.3g} dense BF16 PFLOP/s + {USD_PER_GB_HOUR:g} × {g.memory_gb:g} GB"
        formula = per_hour if self.unit == "hour" else f"({per_hour}) × {hours:,.0f} h"
        return (
            f"band for {self.gpu}: {_usd(self.floor)}–{_usd(self.ceiling)} USD per {self.name}, 1/{1 / LOW:g} to "
            f"{HIGH[self.unit]:g} × the reference {_usd(self.reference)} = {formula}; from the GPU table, "
            'docs/quotes.md "Price sanity band"'
        )


@functools.lru_cache(maxsize=512)
def band(gpu: str, unit: str) -> Band:
    """The band of a GPU (canonical id) per GPU-``unit`` (hour, month or purchase)."""
    g = gpu_table()[gpu]
    per_hour = USD_PER_PFLOPS_HOUR * g.bf16_dense_tflops / 1000 + USD_PER_GB_HOUR * g.memory_gb
    return Band(gpu, unit, per_hour * UNITS[unit][0])


def _usd(x: float) -> str:
    return f"{x:,.3g}" if x < 100 else f"{x:,.0f}"


def check(
    gpu: str,
    gpus: int,
    unit: str,
    price: float,
    usd_per_unit: float,
    currency: str = "USD",
    *,
    ceiling_slack: float = 1.0,
) -> str | None:
    """The warning for a node of ``gpus`` × ``gpu`` at ``price`` (in ``currency``, worth ``usd_per_unit`` US
    dollars) per node and ``unit``, or None inside the band. ``ceiling_slack``: the ceiling is that many times
    higher (a currency that is not known, see the module docstring)."""
    b = band(gpu, unit)
    node = price * usd_per_unit
    each = node / gpus
    if b.floor <= each <= b.ceiling * ceiling_slack and (gpus == 1 or each >= b.reference * PER_GPU_HINT):
        return None  # inside the band: the common case, decided before any text is made
    node_name = {"hour": "node-hour", "month": "node-month", "purchase": "node bought"}[unit]
    said = f"{price:,.6g} {currency} per {node_name} for {gpus} × {gpu} is {_usd(each)} USD per {b.name}"
    if gpus > 1 and each < b.reference * PER_GPU_HINT and b.reference * PER_GPU_HINT <= node <= 2 * b.reference:
        return (
            f"{said}, under 1/{1 / PER_GPU_HINT:g} of the reference {_usd(b.reference)}, while the node's "
            f"{_usd(node)} USD would be a plausible price of ONE GPU: is {price:,.6g} the price per GPU rather than "
            f"per node? ({b.why()})"
        )
    if each < b.floor:
        hint = _low_hint(b, price, usd_per_unit, gpus, currency)
        return f"{said}, under the floor {_usd(b.floor)}: implausibly low{hint} ({b.why()})"
    if each > b.ceiling * ceiling_slack:
        hint = {
            "hour": "is it a monthly price (730 h), or a price for several nodes?",
            "month": "is it a purchase price, or a price for several nodes?",
            "purchase": "is it a price for several nodes, or in another currency?",
        }[unit]
        over = f"{_usd(b.ceiling)}" if ceiling_slack == 1 else f"{_usd(b.ceiling)} × {ceiling_slack:g}"
        return f"{said}, over the ceiling {over}: implausibly high; {hint} ({b.why()})"
    return None


def _low_hint(b: Band, price: float, usd_per_unit: float, gpus: int, currency: str) -> str:
    """What a price under the floor most likely is: an hourly price in a monthly column, else nothing said."""
    if b.unit != "month":
        return ""
    hourly = band(b.gpu, "hour")
    if hourly.floor <= price * usd_per_unit / gpus <= hourly.ceiling:
        return (
            f"; as a price per node-hour it would be plausible ({price:,.6g} × 730 h = {price * 730:,.0f} {currency} "
            "a month)"
        )
    return ""


# --- currencies --------------------------------------------------------------------------------------------


def reference_usd(currency: str) -> float | None:
    """US dollars per unit of ``currency`` at ``REFERENCE_CNY_PER_UNIT``'s rates; None for a currency it lacks."""
    cny = REFERENCE_CNY_PER_UNIT.get(currency)
    return None if cny is None else cny / REFERENCE_CNY_PER_UNIT["USD"]


def usd_per_unit(currency: str | None, project: Project | None = None) -> tuple[float | None, str]:
    """(US dollars per unit of an offer's ``currency``, how that was found); (None, why) where it is not known.
    ``currency`` None is the project's currency (``models.offer``)."""
    if currency is None:
        if project is None:
            return None, "the row states no currency and no project says which"
        currency = project.currency
    if currency == "USD":
        return 1.0, ""
    if project is not None and (currency == project.currency or currency in project.fx_rates):
        in_project = project.fx_rate(currency)
        if project.currency == "USD":
            return in_project, f"{currency} at the project's fx_rates"
        if "USD" in project.fx_rates:
            return in_project / project.fx_rates["USD"], f"{currency} at the project's fx_rates"
        ref = reference_usd(project.currency)
        if ref is not None:
            how = "" if currency == project.currency else f"{currency} at the project's fx_rates, then "
            return in_project * ref, f"{how}{project.currency} at {REFERENCE_RATES}"
    ref = reference_usd(currency)
    if ref is not None:
        return ref, f"{currency} at {REFERENCE_RATES}"
    return None, f"no rate from {currency} to US dollars"


# --- offers --------------------------------------------------------------------------------------------------


def offer_warnings(offer: Offer, project: Project | None = None) -> tuple[list[tuple[str, str]], str | None]:
    """([(field, warning)], a currency that could not be converted) for one catalog offer: its hourly, monthly
    (every term tier) and purchase (every volume tier) prices against the GPU's band."""
    rate, how = usd_per_unit(offer.currency, project)
    slack = 1.0
    if rate is None:
        if offer.currency is not None or project is not None:
            return [], offer.currency or (project.currency if project else None)
        rate, slack, how = 1.0, UNKNOWN_CURRENCY_SLACK, ""
    mode = offer.mode
    prices: tuple[float | None, ...]
    if mode == "cloud":
        field, unit, prices = "price_per_node_hour", "hour", (offer.price_per_node_hour,)
    elif mode == "rent":
        field = "term_prices" if offer.term_prices else "price_per_node_month"
        unit, prices = "month", tuple(p for _, p in offer.rent_tiers)
    else:
        field = "volume_prices" if offer.volume_prices else "price_per_node"
        unit, prices = "purchase", tuple(p for _, p in offer.buy_tiers)
    for price in prices:
        if not price:
            continue
        code = offer.currency or (project.currency if project is not None else "(the project's currency)")
        text = check(offer.gpu, offer.gpus_per_node, unit, price, rate, code, ceiling_slack=slack)
        if text:  # the first tier outside the band speaks for the field
            if slack != 1.0:
                how = (
                    "no currency stated (the project's, not known here): compared as US dollars, the ceiling × "
                    f"{slack:g} for a catalog in yuan; state the currency to settle it"
                )
            return [(field, f"{text}{f' [{how}]' if how else ''}")], None
    return [], None


def row_warning(gpu: str, gpus: int, price_per_node_hour: float, row: int) -> str | None:
    """The import's warning for one catalog row priced in US dollars per node-hour (``offers.importers``)."""
    text = check(gpu, gpus, "hour", price_per_node_hour, 1.0)
    return None if text is None else f"row {row}: {text}"
