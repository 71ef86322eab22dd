"""Cloud provider regions (``us-east-1``, ``europe-west4``, ``eastus``) → procure's regions (``models.regions``).

Matched by prefix, longest first, on the lower-cased name; a zone (``us-east-1a``, ``us-central1-b``) maps
like its region. A name that matches nothing maps to None and the importer reports it.
"""

from __future__ import annotations

#: prefix → procure region; AWS style (us-east-1), GCP style (us-central1), Azure style (eastus)
PREFIXES: dict[str, str] = {
    # AWS, Lambda, and other providers that copy AWS names
    "us-east": "us-east",
    "us-west": "us-west",
    "us-central": "us-central",
    "us-south": "us-central",
    "us-midwest": "us-central",
    "ca-central": "ca-central",
    "ca-west": "ca-central",
    "eu-west": "eu-west",
    "eu-central": "eu-central",
    "eu-north": "eu-north",
    "eu-south": "eu-south",
    "ap-northeast-1": "ap-jp",
    "ap-northeast-3": "ap-jp",
    "ap-northeast-2": "ap-kr",
    "ap-southeast-1": "ap-sg",
    "ap-southeast-2": "ap-au",
    "ap-south-": "ap-in",
    "ap-southeast": "ap",
    "ap-northeast": "ap",
    "ap-east": "ap-hk",
    "cn-northwest": "cn-northwest",
    "cn-north": "cn-north",
    "sa-": "sa",
    "me-": "me",
    "il-": "me",
    "af-": "af",
    # Google Cloud
    "northamerica-northeast": "ca-central",
    "southamerica": "sa",
    "europe-west1": "eu-west",
    "europe-west2": "eu-west",
    "europe-west4": "eu-west",
    "europe-west9": "eu-west",
    "europe-west3": "eu-central",
    "europe-west6": "eu-central",
    "europe-west10": "eu-central",
    "europe-central": "eu-central",
    "europe-west8": "eu-south",
    "europe-west12": "eu-south",
    "europe-southwest": "eu-south",
    "europe-north": "eu-north",
    "asia-east1": "ap-tw",
    "asia-east2": "ap-hk",
    "asia-northeast1": "ap-jp",
    "asia-northeast2": "ap-jp",
    "asia-northeast3": "ap-kr",
    "asia-southeast1": "ap-sg",
    "asia-south": "ap-in",
    "australia": "ap-au",
    # Microsoft Azure
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
    "germany": "eu-central",
    "switzerland": "eu-central",
    "poland": "eu-central",
    "sweden": "eu-north",
    "norway": "eu-north",
    "italy": "eu-south",
    "spain": "eu-south",
    "japan": "ap-jp",
    "korea": "ap-kr",
    "southeastasia": "ap-sg",
    "eastasia": "ap-hk",
    "centralindia": "ap-in",
    "southindia": "ap-in",
    "brazil": "sa",
    "uaenorth": "me",
    "qatar": "me",
    "southafrica": "af",
}

_ORDER = sorted(PREFIXES, key=len, reverse=True)


def procure_region(name: str) -> str | None:
    """procure's region for a provider's region or zone name, or None when none matches."""
    key = name.strip().lower()
    for prefix in _ORDER:
        if key.startswith(prefix):
            return PREFIXES[prefix]
    return None
