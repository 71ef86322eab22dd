"""Regions: the documented list that ``team_region`` (and an offer's ``region``) are checked against.

A region is ``<area>-<place>``; the area (the part before the first '-') decides which side of the
mainland-China border it lies on: area ``cn`` is mainland China; ``ap-hk`` (Hong Kong) and every other
area are outside it, which is why the network-line rule (premium lines such as CN2 GIA across the
border) looks only at the area. A bare area (``cn``, ``us``) is a valid team region.

Aliases let people type a city or a country: ``shanghai`` → ``cn-east``, ``china`` → ``cn``.
"""

from __future__ import annotations

import re

from procure.common.errors import did_you_mean

#: region -> what it is (the documented list; README "team_region").
REGIONS: dict[str, str] = {
    "cn": "mainland China (area only)",
    "cn-north": "mainland China, north (Beijing, Tianjin, Hebei)",
    "cn-east": "mainland China, east (Shanghai, Jiangsu, Zhejiang)",
    "cn-south": "mainland China, south (Guangdong: Shenzhen, Guangzhou)",
    "cn-southwest": "mainland China, south-west (Chengdu, Chongqing, Guizhou)",
    "cn-northwest": "mainland China, north-west (Ningxia, Gansu, Inner Mongolia)",
    "ap": "Asia-Pacific outside mainland China (area only)",
    "ap-hk": "Hong Kong",
    "ap-tw": "Taiwan",
    "ap-sg": "Singapore",
    "ap-jp": "Japan",
    "ap-kr": "South Korea",
    "ap-in": "India",
    "ap-au": "Australia",
    "us": "United States (area only)",
    "us-east": "United States, east",
    "us-central": "United States, central",
    "us-west": "United States, west",
    "ca": "Canada (area only)",
    "ca-central": "Canada, central",
    "eu": "Europe (area only)",
    "eu-west": "Europe, west (Ireland, UK, France, Netherlands)",
    "eu-central": "Europe, central (Germany, Switzerland, Poland)",
    "eu-north": "Europe, north (Nordics, Iceland)",
    "eu-south": "Europe, south (Italy, Spain)",
    "me": "Middle East (area only)",
    "sa": "South America (area only)",
    "af": "Africa (area only)",
}

#: What people type -> the region it means.
ALIASES: dict[str, str] = {
    "china": "cn",
    "mainland-china": "cn",
    "prc": "cn",
    "beijing": "cn-north",
    "tianjin": "cn-north",
    "shanghai": "cn-east",
    "hangzhou": "cn-east",
    "nanjing": "cn-east",
    "suzhou": "cn-east",
    "shenzhen": "cn-south",
    "guangzhou": "cn-south",
    "chengdu": "cn-southwest",
    "chongqing": "cn-southwest",
    "guiyang": "cn-southwest",
    "ningxia": "cn-northwest",
    "zhongwei": "cn-northwest",
    "ulanqab": "cn-northwest",
    "hong-kong": "ap-hk",
    "hongkong": "ap-hk",
    "hk": "ap-hk",
    "taiwan": "ap-tw",
    "singapore": "ap-sg",
    "sg": "ap-sg",
    "tokyo": "ap-jp",
    "japan": "ap-jp",
    "seoul": "ap-kr",
    "korea": "ap-kr",
    "india": "ap-in",
    "sydney": "ap-au",
    "usa": "us",
    "united-states": "us",
    "europe": "eu",
}


def normalize_token(value: str) -> str:
    """Lower case; spaces, underscores and repeated hyphens become one hyphen (``CN2 GIA`` → ``cn2-gia``)."""
    return re.sub(r"[\s_\-]+", "-", value.strip().lower()).strip("-")


def resolve_region(value: str) -> str:
    """The documented region ``value`` names (directly or by alias); ValueError with a did-you-mean otherwise."""
    key = normalize_token(value)
    if key in REGIONS:
        return key
    if key in ALIASES:
        return ALIASES[key]
    choices = [*REGIONS, *ALIASES]
    hint = did_you_mean(key, choices)
    raise ValueError(
        f"unknown region {value!r}{hint}; use one of: {', '.join(r for r in REGIONS if '-' in r)}, an area ({', '.join(r for r in REGIONS if '-' not in r)}), or a city alias such as shanghai, beijing, shenzhen"
    )
