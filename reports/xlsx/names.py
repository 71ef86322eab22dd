"""What one sheet tells the sheets written after it: the workbook-level names of its cells, and the
rows its charts read (charts take a sheet range, not a name)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Names:
    """Defined names (and chart rows) that sheets written later refer to."""

    category_total: dict[str, str] = field(default_factory=dict)  # category -> defined name on Costs
    grand_total: str = ""
    item_amount: dict[str, str] = field(default_factory=dict)  # line item key -> defined name of its amount on Costs
    npv: str = ""
    after_tax_npv: str = ""  # defined name of the Lease vs buy sheet's after-tax NPV (with the project's tax)
    cf_operating: str = ""  # the Cash flow's operating category rows over every month (a block)
    cf_interest: str = ""  # its interest row over every month
    cf_total: str = ""  # its total cash out row over every month
    cumulative: str = ""  # defined name of the Cash flow's cumulative cash-out row (months)
    month_header_row: int = 0  # Cash flow row of the month dates (chart categories)
    first_month_col: int = 4  # Cash flow column of month 1
    strategy_rows: dict[str, int] = field(default_factory=dict)  # Cash flow rows of cumulative cash out by strategy
    break_even_row: int | None = None
    category_rows: dict[str, int] = field(default_factory=dict)  # Cash flow row of each category
    cash_total_row: int = 0  # Cash flow row of the total cash out per month
    year_blocks: dict[int, tuple[str, str, str]] = field(
        default_factory=dict
    )  # project year (0-based) -> names of its operating, interest, total blocks
    sheet: dict[str, str] = field(default_factory=dict)  # English sheet name -> its title in the reader's language
