"""Wall time of the full machine report, each run a fresh process.

Run: python benchmarks/report_speed.py [--machine angara-4d] [--repeats 3]
Runs `icnperf report --machine M -o tmp.html --force` in a temporary directory and prints
the median and maximum wall time (issue target: under 5 s for angara-4d) and the page size.
Not a test: the figures are for the README.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machine", default="angara-4d")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    times = []
    with tempfile.TemporaryDirectory() as folder:
        page = os.path.join(folder, "tmp.html")
        for _ in range(args.repeats):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "icnperf", "report", "--machine",
                            args.machine, "-o", page, "--force"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
        size = os.path.getsize(page)
    print(f"icnperf report --machine {args.machine}: median {statistics.median(times):.2f} s,"
          f" max {max(times):.2f} s over {args.repeats} fresh processes; page {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
