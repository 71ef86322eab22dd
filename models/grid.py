"""Grid carbon intensity per region (``data/grid_intensity.yaml``): gCO2e per kWh, with source and year.

A region without a row has no figure (None): the plan's energy there is reported, its emissions not.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from procure.common.errors import InputError
from procure.fileio.yamlio import line_of, load_yaml

from .validation import problems_from


class GridIntensity(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    g_per_kwh: float = Field(ge=0, le=2000, description="grams of CO2-equivalent per kWh of electricity")
    year: int = Field(ge=2000, le=2100)
    source: str = Field(min_length=1)


@lru_cache(maxsize=1)
def grid_table() -> dict[str, GridIntensity]:
    """The bundled table, region -> intensity."""
    path = Path(str(resources.files("procure.models") / "data" / "grid_intensity.yaml"))
    data, lines = load_yaml(path, "grid intensity table")
    out, problems = {}, []
    for region, row in (data.get("regions") or {}).items():
        try:
            out[str(region)] = GridIntensity.model_validate(row)
        except ValidationError as exc:  # a broken bundled table is a packaging bug; still report it clearly
            problems += problems_from(exc, str(path), ("regions", region), lambda loc: line_of(lines, loc))
    if problems:
        raise InputError(problems)
    return out


def intensity_of(region: str) -> GridIntensity | None:
    """The region's intensity, else its area's (``us-east`` → ``us``), else None."""
    table = grid_table()
    return table.get(region) or table.get(region.split("-", 1)[0])


__all__ = ["GridIntensity", "grid_table", "intensity_of"]
