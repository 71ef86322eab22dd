"""Cloud provider regions (``us-east-1``, ``europe-west4``, ``asia-northeast-1``, ``us-ashburn-1``, ``eastus``,
``US-TX-3``) → procure's regions (``models.regions``), read from the tables below.

A provider's name is first put in one spelling (``spelling``): lower case; spaces and underscores become ``-``; a
number glued to a word is split off (GCP's ``asia-northeast1`` and Lambda's ``asia-northeast-1`` are both
``asia-northeast-1``; Azure's ``eastus2`` is ``eastus-2``); a zone letter after the region's number is dropped
(``us-east-1a`` → ``us-east-1``). Then the longest of these matches wins:

- ``PLACES``: words joined by ``-``, matched at a word boundary — ``us-east`` matches ``us-east-1`` and
  ``us-east-1-atl-1`` (a zone or an OCI availability domain ``eu-amsterdam-1-ad-1`` maps like its region), and
  ``ap-south`` (Mumbai, Hyderabad) does not match ``ap-southeast-1`` (Singapore);
- ``WORDS``: Azure's run-together names (``eastus``, ``uksouth``, ``japaneast``), matched as the start of the
  first word (``uk`` also covers OCI's ``uk-london-1``);
- ``US_STATES``: ``us-<state>`` (RunPod's ``US-TX-3``), by the time zone of the state's main cities: Eastern
  → ``us-east``, Central → ``us-central``, Mountain and Pacific → ``us-west`` (``us-east``, ``us-central`` and
  ``us-west`` are procure's own split of the United States, ``models.regions``);
- ``COUNTRIES``: a bare ISO 3166 country code (RunPod's and Vast.ai's ``US``, ``SE``).

A name that matches nothing maps to None; the importer counts and names those rows (a region procure has no name
for, e.g. Mexico). Where a provider names a city, the table names it too, so a reader can check each line against
the provider's own region list (AWS "Regions and Zones", Google Cloud "Geography and regions", OCI "Regions and
Availability Domains", Lambda's region picker; all read 2026-12).
"""

from __future__ import annotations

import functools
import re

#: words joined by '-', in ``spelling``'s form, matched at a word boundary (see the module docstring)
PLACES: dict[str, str] = {
    # areas: a name no longer entry matches keeps at least its area
    "us": "us",
    "ca": "ca",
    "eu": "eu",
    "eur": "eu",
    "ap": "ap",
    "sa": "sa",
    "me": "me",
    "il": "me",  # Israel (AWS il-central-1 Tel Aviv, OCI il-jerusalem-1)
    "af": "af",
    "africa": "af",  # GCP africa-south1 (Johannesburg)
    # AWS (and the providers that copy its names: Lambda, Nebius, ...)
    "us-east": "us-east",
    "us-west": "us-west",
    "us-central": "us-central",
    "us-south": "us-central",  # GCP us-south1 Dallas; Lambda us-south-1..3 Texas
    "us-midwest": "us-central",  # Lambda us-midwest-1 Illinois
    "us-gov-east": "us-east",
    "us-gov-west": "us-west",
    "ca-central": "ca-central",
    "ca-west": "ca-central",  # AWS ca-west-1 Calgary
    "eu-west": "eu-west",
    "eu-central": "eu-central",
    "eu-north": "eu-north",
    "eu-south": "eu-south",
    "ap-northeast-1": "ap-jp",  # Tokyo
    "ap-northeast-2": "ap-kr",  # Seoul
    "ap-northeast-3": "ap-jp",  # Osaka
    "ap-northeast": "ap",
    "ap-southeast-1": "ap-sg",  # Singapore
    "ap-southeast-2": "ap-au",  # Sydney
    "ap-southeast-4": "ap-au",  # Melbourne
    "ap-southeast": "ap",  # Jakarta, Malaysia, Thailand, ...
    "ap-south": "ap-in",  # Mumbai, Hyderabad
    "ap-east-1": "ap-hk",  # Hong Kong
    "ap-east-2": "ap-tw",  # Taipei
    "cn-north": "cn-north",
    "cn-northwest": "cn-northwest",
    # Google Cloud (and Lambda, whose names are Google's with a '-' before the number)
    "northamerica-northeast": "ca-central",  # Montréal, Toronto
    "southamerica": "sa",
    "europe-west-1": "eu-west",  # Belgium
    "europe-west-2": "eu-west",  # London
    "europe-west-4": "eu-west",  # Netherlands
    "europe-west-9": "eu-west",  # Paris
    "europe-west-3": "eu-central",  # Frankfurt
    "europe-west-6": "eu-central",  # Zurich
    "europe-west-10": "eu-central",  # Berlin
    "europe-west-8": "eu-south",  # Milan
    "europe-west-12": "eu-south",  # Turin
    "europe-west": "eu",
    "europe-central": "eu-central",  # GCP Warsaw; Lambda europe-central-1 Germany
    "europe-southwest": "eu-south",  # Madrid
    "europe-south": "eu-south",  # Lambda europe-south-1
    "europe-north": "eu-north",  # Finland, Stockholm
    "europe": "eu",
    "asia-east-1": "ap-tw",  # Taiwan
    "asia-east-2": "ap-hk",  # Hong Kong
    "asia-northeast-1": "ap-jp",  # GCP Tokyo; Lambda Japan
    "asia-northeast-2": "ap-jp",  # GCP Osaka; Lambda Japan
    "asia-northeast-3": "ap-kr",  # Seoul
    "asia-southeast-1": "ap-sg",  # Singapore
    "asia-southeast": "ap",  # Jakarta, Bangkok
    "asia-south": "ap-in",  # Mumbai, Delhi; Lambda asia-south-1 India
    "asia": "ap",
    # Oracle Cloud: <area>-<city>-<n>
    "us-ashburn": "us-east",  # Ashburn, Virginia
    "us-langley": "us-east",  # Virginia (government)
    "us-chicago": "us-central",
    "us-phoenix": "us-west",
    "us-sanjose": "us-west",
    "us-saltlake": "us-west",
    "us-luke": "us-west",  # Arizona (government)
    "ca-toronto": "ca-central",
    "ca-montreal": "ca-central",
    "eu-amsterdam": "eu-west",
    "eu-paris": "eu-west",
    "eu-marseille": "eu-west",
    "eu-frankfurt": "eu-central",
    "eu-zurich": "eu-central",
    "eu-stockholm": "eu-north",
    "eu-milan": "eu-south",
    "eu-turin": "eu-south",
    "eu-madrid": "eu-south",
    "ap-tokyo": "ap-jp",
    "ap-osaka": "ap-jp",
    "ap-seoul": "ap-kr",
    "ap-chuncheon": "ap-kr",
    "ap-singapore": "ap-sg",
    "ap-sydney": "ap-au",
    "ap-melbourne": "ap-au",
    "ap-mumbai": "ap-in",
    "ap-hyderabad": "ap-in",
    # RunPod (CA-MTL-1, EU-RO-1, EUR-IS-1, OC-AU-1, SEA-SG-1, AP-JP-1), DataCrunch/Verda (FIN-01, ICE-01)
    "ca-mtl": "ca-central",
    "eu-se": "eu-north",
    "eu-fi": "eu-north",
    "eu-is": "eu-north",
    "eu-no": "eu-north",
    "eu-nl": "eu-west",
    "eu-fr": "eu-west",
    "eu-ie": "eu-west",
    "eu-de": "eu-central",
    "eu-cz": "eu-central",
    "eur-is": "eu-north",
    "eur-no": "eu-north",
    "oc-au": "ap-au",
    "sea-sg": "ap-sg",
    "ap-jp": "ap-jp",
    "ap-kr": "ap-kr",
    "ap-sg": "ap-sg",
    "ap-in": "ap-in",
    "fin": "eu-north",
    "ice": "eu-north",
}

#: Azure's run-together names: the start of the name's first word
WORDS: dict[str, str] = {
    "eastus": "us-east",
    "westus": "us-west",
    "centralus": "us-central",
    "northcentralus": "us-central",
    "southcentralus": "us-central",
    "westcentralus": "us-central",
    "canada": "ca-central",
    "westeurope": "eu-west",
    "northeurope": "eu-west",
    "uk": "eu-west",
    "france": "eu-west",
    "belgium": "eu-west",
    "germany": "eu-central",
    "switzerland": "eu-central",
    "poland": "eu-central",
    "austria": "eu-central",
    "sweden": "eu-north",
    "norway": "eu-north",
    "denmark": "eu-north",
    "finland": "eu-north",
    "italy": "eu-south",
    "spain": "eu-south",
    "japan": "ap-jp",
    "korea": "ap-kr",
    "southeastasia": "ap-sg",
    "eastasia": "ap-hk",
    "centralindia": "ap-in",
    "southindia": "ap-in",
    "westindia": "ap-in",
    "jioindia": "ap-in",
    "australia": "ap-au",
    "taiwan": "ap-tw",
    "indonesia": "ap",
    "malaysia": "ap",
    "newzealand": "ap",
    "brazil": "sa",
    "chile": "sa",
    "uae": "me",
    "qatar": "me",
    "israel": "me",
    "saudiarabia": "me",
    "southafrica": "af",
}

#: a US state (two-letter postal code) → procure region, by the time zone of its main cities
US_STATES: dict[str, str] = {
    **dict.fromkeys("ct dc de fl ga in ky ma md me mi nc nh nj ny oh pa ri sc va vt wv".split(), "us-east"),  # Eastern
    **dict.fromkeys("al ar ia il ks la mn mo ms nd ne ok sd tn tx wi".split(), "us-central"),  # Central
    **dict.fromkeys("ak az ca co hi id mt nm nv or ut wa wy".split(), "us-west"),  # Mountain, Pacific
}

#: a bare country code (RunPod's and Vast.ai's locations) → procure region
COUNTRIES: dict[str, str] = {
    "us": "us",
    "ca": "ca",
    "gb": "eu-west",
    "uk": "eu-west",
    "ie": "eu-west",
    "fr": "eu-west",
    "nl": "eu-west",
    "be": "eu-west",
    "de": "eu-central",
    "ch": "eu-central",
    "pl": "eu-central",
    "cz": "eu-central",
    "at": "eu-central",
    "se": "eu-north",
    "no": "eu-north",
    "fi": "eu-north",
    "is": "eu-north",
    "dk": "eu-north",
    "it": "eu-south",
    "es": "eu-south",
    "pt": "eu-south",
    "jp": "ap-jp",
    "kr": "ap-kr",
    "sg": "ap-sg",
    "in": "ap-in",
    "au": "ap-au",
    "tw": "ap-tw",
    "hk": "ap-hk",
    "cn": "cn",
    "br": "sa",
    "za": "af",
    "ae": "me",
    "il": "me",
}


def spelling(name: str) -> str:
    """The one spelling regions are matched in: ``asia-northeast1`` and ``asia_northeast_1`` → ``asia-northeast-1``,
    ``eastus2`` → ``eastus-2``, ``us-east-1a`` → ``us-east-1``, ``US-TX-3`` → ``us-tx-3``."""
    s = re.sub(r"[\s_]+", "-", name.strip().lower())
    s = re.sub(r"(?<=[a-z])(?=\d)", "-", s)
    s = re.sub(r"(?<=\d)[a-z]$", "", s)
    return re.sub(r"-{2,}", "-", s).strip("-")


#: ``PLACES`` with the US states added (``us-tx`` → us-central), every key in ``spelling``'s form
_PLACES: dict[str, str] = {
    **{f"us-{s}": r for s, r in US_STATES.items()},
    **{spelling(k): v for k, v in PLACES.items()},
}


@functools.lru_cache(maxsize=4096)
def procure_region(name: str) -> str | None:
    """procure's region for a provider's region or zone name, or None when none matches."""
    key = spelling(name)
    if not key:
        return None
    if key in COUNTRIES:
        return COUNTRIES[key]
    best, region = "", None
    for k, v in _PLACES.items():
        if len(k) > len(best) and (key == k or key.startswith(k + "-")):
            best, region = k, v
    first = key.split("-", 1)[0]
    for w, v in WORDS.items():
        if len(w) > len(best) and first.startswith(w):
            best, region = w, v
    return region
