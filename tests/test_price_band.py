"""One price sanity band per GPU (offers/price_band.py), used by the import, `procure offers validate` and every
command that loads a catalog with its project (`solve`).

Every expected figure is worked by hand from the documented rule (docs/quotes.md, "Price sanity band") and the
GPU table's datasheet figures: reference per GPU-hour = 1.6 × dense BF16 PFLOP/s + 0.005 × memory GB; × 730 h a
month; × 12,000 h bought; floor 1/8 of it; ceiling 20 × (hour) or 12 × (month, purchase).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from procure.offers.catalog import load_catalog
from procure.offers.importers import import_file

from helpers import EXAMPLES, GOOD_ROW, cli, write_csv

AS_OF = dt.date(2026, 12, 1)
GPUHUNT_HEAD = "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot\n"

# H100 SXM: 989.4 TFLOP/s dense BF16, 80 GB → 1.6 × 0.9894 + 0.005 × 80 = 1.58304 + 0.4
H100_HOUR = 1.98304
# H20: 148 TFLOP/s, 96 GB → 1.6 × 0.148 + 0.005 × 96 = 0.2368 + 0.48 (no offer of the bundled catalog is an H20)
H20_HOUR = 0.7168
# B200: 2,250 TFLOP/s, 180 GB → 3.6 + 0.9 (the bundled catalog prices it bought only)
B200_HOUR = 4.5
# L20: 119 TFLOP/s, 48 GB → 0.1904 + 0.24 (not in the bundled catalog)
L20_HOUR = 0.4304


def test_the_band_is_the_documented_formula_of_the_gpu_table():
    from procure.offers.price_band import band

    h100 = band("H100-SXM-80GB", "hour")
    assert h100.reference == pytest.approx(H100_HOUR)
    assert (h100.floor, h100.ceiling) == pytest.approx((H100_HOUR / 8, H100_HOUR * 20))
    assert band("H100-SXM-80GB", "month").reference == pytest.approx(H100_HOUR * 730)  # 1,447.62
    assert band("H100-SXM-80GB", "purchase").ceiling == pytest.approx(H100_HOUR * 12_000 * 12)
    assert band("H20-96GB", "hour").reference == pytest.approx(H20_HOUR)
    assert band("B200-SXM-180GB", "hour").floor == pytest.approx(B200_HOUR / 8)  # 0.5625
    assert band("L20-48GB", "purchase").reference == pytest.approx(L20_HOUR * 12_000)  # 5,164.8


def test_every_bundled_and_example_offer_is_inside_its_band():
    from procure.app import load_inputs

    assert not [w for w in load_catalog().warnings if "band for" in w.message]
    for path in EXAMPLES:  # each workload with its own offers, converted with its own currency
        found = [str(w) for w in load_inputs(path, None).warnings if "band for" in w.message]
        assert not found, (path.name, found)


# --- the import ------------------------------------------------------------------------------------------------


def test_import_warns_a_b200_at_a_cent_an_hour_with_its_row(tmp_path):
    src = tmp_path / "vastai.csv"
    src.write_text(
        GPUHUNT_HEAD + "8x-b200,US,39.92,224,2048,8,B200,180,False\n"  # 39.92 / 8 = 4.99 per GPU-hour: inside
        "8x-b200-b,US,0.08,224,2048,8,B200,180,False\n"  # 0.08 / 8 = 0.01 per GPU-hour
    )
    r = import_file(src, "gpuhunt", as_of=AS_OF)
    (text,) = [str(w) for w in r.warnings if w.field == "price"]
    assert text.startswith(f"{src}: warning: price: row 3: 0.08 USD per node-hour for 8 × B200-SXM-180GB")
    assert "0.01 USD per GPU-hour" in text and "under the floor 0.56" in text and "implausibly low" in text
    assert "1.6 × 2.25 dense BF16 PFLOP/s + 0.005 × 180 GB" in text  # how the band was derived
    assert len(r.offers) == 2  # a warning, not an error


def test_import_warns_a_per_gpu_price_in_the_node_column_of_a_gpu_no_bundled_offer_has(tmp_path):
    src = tmp_path / "vastai.csv"
    # 8 × H20 at 0.9: 0.1125 per GPU-hour, under a quarter of the reference (0.7168 / 4 = 0.1792), while 0.9 lies
    # between that quarter and twice the reference (1.4336): the price of one GPU
    src.write_text(GPUHUNT_HEAD + "8x-h20,CN,0.9,128,1024,8,H20,96,False\n")
    r = import_file(src, "gpuhunt", as_of=AS_OF)
    text = " ".join(str(w) for w in r.warnings if w.field == "price")
    assert "row 2: 0.9 USD per node-hour for 8 × H20-96GB is 0.113 USD per GPU-hour" in text
    assert "is 0.9 the price per GPU rather than per node?" in text


def test_import_leaves_a_real_spot_price_alone(tmp_path):
    # AWS p5.48xlarge spot in usw2-az4 at 9.3722 (SkyPilot catalog v9, aws/vms.csv): 1.17 per GPU-hour, over the
    # quarter of the reference (1.98304 / 4 = 0.496): a real price, no warning
    src = tmp_path / "aws.csv"
    src.write_text(GPUHUNT_HEAD + "p5.48xlarge,us-west-2,9.3722,192,2048,8,H100,80,True\n")
    r = import_file(src, "gpuhunt", as_of=AS_OF)
    assert not [w for w in r.warnings if w.field == "price"]


# --- offers validate -------------------------------------------------------------------------------------------


def _row(**kw):
    base = {
        k: v for k, v in GOOD_ROW.items() if k not in ("price_per_node_month", "setup_fee_per_node", "min_term_months")
    }
    return {**base, "currency": "USD", **kw}


def test_validate_checks_every_gpu_of_the_gpu_table(tmp_path):
    path = write_csv(
        tmp_path / "quotes.csv",
        [
            _row(id="ok", mode="rent", price_per_node_month=15000),  # 1,875 per H100-month: inside
            _row(id="b200-cloud", mode="cloud", gpu="B200", price_per_node_hour=0.08),  # 0.01 per GPU-hour
            # 100 / 8 = 12.5 per H20-month, under the floor 0.7168 × 730 / 8 = 65.4 (and 100 is under a quarter of
            # the reference, 130.8: no GPU's price either)
            _row(id="h20-rent", mode="rent", gpu="H20", price_per_node_month=100),
            # 4,000 / 8 = 500 per L20 bought, under a quarter of 5,164.8 (1,291.2); 4,000 is one L20's price
            _row(id="l20-buy", mode="buy", gpu="L20", gpus_per_node=8, price_per_node=4000, power_kw_per_node=3),
        ],
    )
    res = cli("offers", "validate", path)
    assert res.exit_code == 0 and "ok: 4 offers" in res.output
    out = " ".join(res.output.split())
    assert "quotes.csv row 3: warning: price_per_node_hour: offer 'b200-cloud': 0.08 USD per node-hour" in out
    assert "quotes.csv row 4: warning: price_per_node_month: offer 'h20-rent': 100 USD per node-month" in out
    assert "12.5 USD per GPU-month, under the floor 65.4: implausibly low" in out
    assert "quotes.csv row 5: warning: price_per_node: offer 'l20-buy'" in out
    assert "is 4,000 the price per GPU rather than per node?" in out
    assert "'ok'" not in out


def test_validate_names_an_hourly_price_in_the_monthly_column(tmp_path):
    # 16 per node-month for 8 × H100 = 2 per GPU-month (floor 1,447.62 / 8 = 181); as an hourly price, 2 per
    # GPU-hour is inside that band (0.248–39.7)
    path = write_csv(tmp_path / "q.csv", [_row(mode="rent", price_per_node_month=16)])
    out = " ".join(cli("offers", "validate", path).output.split())
    assert "as a price per node-hour it would be plausible (16 × 730 h = 11,680 USD a month)" in out


def test_a_row_without_currency_and_without_project_is_read_as_dollars_with_room_for_yuan(tmp_path):
    # in the project's currency, which offers validate does not know. 1,400 per node-hour for 8 × H100 is 175 per
    # GPU-hour: over the dollar ceiling 1.98304 × 20 = 39.66, under it × 7.1072 (yuan per dollar) = 281.9: no
    # warning. 20,000 (a monthly price) is 2,500: over both. 1.0 is 0.125: under the floor 0.248.
    rows = [
        _row(id="yuan", mode="cloud", price_per_node_hour=1400),
        _row(id="monthly", mode="cloud", price_per_node_hour=20000),
        _row(id="cent", mode="cloud", price_per_node_hour=1.0),
    ]
    for r in rows:
        del r["currency"]
    out = " ".join(cli("offers", "validate", write_csv(tmp_path / "q.csv", rows)).output.split())
    assert "'yuan'" not in out
    assert "offer 'monthly': 20,000 (the project's currency) per node-hour" in out
    assert "over the ceiling 39.7 × 7.1072: implausibly high; is it a monthly price (730 h)" in out
    assert "offer 'cent': 1 (the project's currency) per node-hour" in out and "compared as US dollars" in out


def test_a_currency_without_any_rate_is_named_once_per_file(tmp_path):
    # INR is money (ISO 4217) but neither the project nor the reference rates convert it
    rows = [_row(id=f"inr-{i}", currency="INR", mode="cloud", price_per_node_hour=1.0) for i in range(2)]
    cat = load_catalog([write_csv(tmp_path / "q.csv", rows)])
    (w,) = [w for w in cat.warnings if w.field == "currency"]
    assert w.warning and "2 offer(s) in INR (inr-0, inr-1) were not checked" in w.message and "USD rate" in w.message


def test_currencies_convert_with_the_project_first():
    from procure.offers.price_band import usd_per_unit

    from helpers import project, workload

    # the reference rates (CFETS central parity, 2025-09-01): 1 USD = 7.1072 CNY, 100 JPY = 4.834 CNY
    assert usd_per_unit("CNY")[0] == pytest.approx(1 / 7.1072)
    assert usd_per_unit("JPY")[0] == pytest.approx(0.04834 / 7.1072)
    assert usd_per_unit("INR")[0] is None and usd_per_unit(None)[0] is None
    cny = project(
        [workload()],
        currency="CNY",
        fx_rates={"USD": 7.0, "EUR": 8.4},
        fx_rates_date="2026-11-30",
        fx_rates_source="test rates",
    )
    assert usd_per_unit(None, cny)[0] == pytest.approx(1 / 7.0)  # the project's currency at its own USD rate
    assert usd_per_unit("EUR", cny)[0] == pytest.approx(8.4 / 7.0)  # EUR → CNY → USD, both the project's
    eur = project([workload()], currency="EUR", fx_rates={"CNY": 0.12}, fx_rates_date="2026-11-30", fx_rates_source="t")
    # CNY → EUR at the project's 0.12, EUR → USD at the reference 8.3129 / 7.1072
    assert usd_per_unit("CNY", eur)[0] == pytest.approx(0.12 * 8.3129 / 7.1072)


# --- solve ---------------------------------------------------------------------------------------------------------

CNY_WORKLOAD = """name: CNY fine-tune
currency: CNY
fx_rates: {USD: 7.1}
fx_rates_date: 2026-11-30
fx_rates_source: test rate
start_date: 2026-12-01
horizon_months: 3
period_days: 1
team_region: cn-east
allowed_modes: [cloud]
offers: [quotes.csv]
workloads:
  - {name: ft, model: llama-2-7b, method: lora, tokens_b: 0.05, deadline_days: 20}
"""


def _cny_quotes(tmp_path: Path) -> Path:
    rows = [
        # 400 CNY per node-hour for 8 × H100 = 56.34 USD, 7.04 per GPU-hour: inside (read as dollars, 50 per
        # GPU-hour would be over the ceiling 39.7)
        _row(id="h100-cny", mode="cloud", region="cn-east", price_per_node_hour=400),
        # 3 CNY per node-hour for 8 × H20 = 0.4225 USD, 0.0528 per GPU-hour: under a quarter of 0.7168, and 0.4225
        # is one H20's price (0.179–1.43)
        _row(id="h20-cny", mode="cloud", region="cn-east", gpu="H20", price_per_node_hour=3),
    ]
    for r in rows:
        del r["currency"]  # the project's: CNY
    return write_csv(tmp_path / "quotes.csv", rows)


def test_loading_for_solve_converts_the_project_currency_and_checks_a_gpu_the_bundled_catalog_lacks(tmp_path):
    from procure.app import load_inputs

    _cny_quotes(tmp_path)
    work = tmp_path / "work.yaml"
    work.write_text(CNY_WORKLOAD)
    found = {w.row: w.message for w in load_inputs(work, None).warnings if "band for" in w.message}
    assert set(found) == {3}, found
    assert found[3].startswith("offer 'h20-cny': 3 CNY per node-hour for 8 × H20-96GB is 0.0528 USD per GPU-hour")
    assert "[CNY at the project's fx_rates]" in found[3]


def test_solve_prints_the_band_warning_with_file_and_row(tmp_path):
    _cny_quotes(tmp_path)
    work = tmp_path / "work.yaml"
    work.write_text(CNY_WORKLOAD)
    res = cli("solve", work, "--json", tmp_path / "plan.json", "--quiet", "--no-compare")
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "quotes.csv row 3: warning: price_per_node_hour: offer 'h20-cny': 3 CNY per node-hour" in out
    assert "'h100-cny'" not in out
