"""Wall time of short CLI calls, and whether SymPy or Plotly were imported on their path.

Run: python benchmarks/cli_startup.py [--repeats 15]
Prints the median and maximum wall time of each command run as a fresh process.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS = (
    ["--help"],
    ["topology", "torus:8x8x16"],
    ["compare-topologies", "--endpoints", "100000"],
)

IMPORT_PROBE = (
    "import contextlib, io, sys\n"
    "from icnperf.cli import cli\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    cli.main(['topology', 'torus:8x8x16'], prog_name='icnperf')\n"
    "print(sorted(m for m in ('sympy', 'plotly', 'scipy') if m in sys.modules))"
)


def wall_times(args: list[str], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "icnperf", *args], check=True,
                       stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    print(f"fresh process per call, {args.repeats} runs each")
    for command in COMMANDS:
        times = wall_times(command, args.repeats)
        label = "icnperf " + " ".join(command)
        print(f"{label:48s} median {statistics.median(times):.3f} s   max {max(times):.3f} s")
    heavy = subprocess.run([sys.executable, "-c", IMPORT_PROBE], check=True,
                           capture_output=True, text=True).stdout.strip()
    print(f"heavy modules imported by 'icnperf topology': {heavy}")


if __name__ == "__main__":
    main()
