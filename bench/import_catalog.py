"""`procure offers import` on a synthetic gpuhunt file: seconds and peak memory per row count.

The file has gpuhunt's v2 columns; a quarter of its rows are CPU-only, a quarter a GPU the table does not
hold, the rest 8× H100 and 4× L40S instances in five regions, one in eight spot::

    python -m bench.import_catalog [--rows 100000]
"""

from __future__ import annotations

import argparse
import datetime as dt
import resource
import tempfile
import time
from pathlib import Path

from procure.offers.importers import catalog_csv, import_file

HEADER = "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,gpu_vendor,flags,cpu_arch,provider_data"
REGIONS = ("us-east-1", "us-west-2", "eu-west-1", "ap-northeast-1", "eu-central-1")


def synthetic(path: Path, rows: int) -> None:
    lines = [HEADER]
    for i in range(rows):
        region, kind = REGIONS[i % 5], i % 4
        if kind == 0:
            lines.append(f"m5.x{i},{region},0.1,4,16,0,,,False,,,,x86,")
        elif kind == 1:
            spot = "True" if i % 8 == 1 else "False"
            lines.append(f"p5.48xlarge-{i},{region},{50 + i % 7},192,2048,8,H100,80,{spot},,nvidia,,x86,")
        elif kind == 2:
            lines.append(f"g6e.{i},{region},{10 + i % 5},48,384,4,L40S,48,False,,nvidia,,x86,")
        else:
            lines.append(f"g5.{i},{region},1.0,4,16,1,A10G,24,False,,nvidia,,x86,")
    path.write_text("\n".join(lines) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "aws.csv"
        synthetic(src, args.rows)
        t = time.perf_counter()
        result = import_file(src, "gpuhunt", as_of=dt.date(2026, 11, 30))
        text = catalog_csv(result)
        seconds = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"rows {args.rows:,}: {len(result.offers):,} offers in {seconds:.1f} s, {len(text) / 2**20:.1f} MiB CSV, peak RSS {rss:.0f} MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
