"""Wall time of short CLI calls, and whether SymPy or Plotly were imported on their path.

Run: python benchmarks/cli_startup.py [--repeats 15] [--bytecode cached|compile]
Prints the median and maximum wall time of each command run as a fresh process. As in
full_scale.py, ``--bytecode cached`` (the default) lets the children keep their compiled
modules in a temporary folder (PYTHONPYCACHEPREFIX) and runs each command once untimed
first, as an installed icnperf starts; ``--bytecode compile`` leaves the environment as
it is (with PYTHONDONTWRITEBYTECODE set, every run compiles icnperf's modules again).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
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


def wall_times(args: list[str], repeats: int, environment: dict) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "icnperf", *args], check=True,
                       stdout=subprocess.DEVNULL, env=environment)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--bytecode", choices=("cached", "compile"), default="cached")
    args = parser.parse_args()
    print(f"fresh process per call, {args.repeats} runs each, bytecode {args.bytecode}")
    with tempfile.TemporaryDirectory() as folder:
        environment = dict(os.environ)
        if args.bytecode == "cached":
            environment.pop("PYTHONDONTWRITEBYTECODE", None)
            environment["PYTHONPYCACHEPREFIX"] = folder
        for command in COMMANDS:
            if args.bytecode == "cached":
                wall_times(command, 1, environment)
            times = wall_times(command, args.repeats, environment)
            label = "icnperf " + " ".join(command)
            print(f"{label:48s} median {statistics.median(times):.3f} s   max "
                  f"{max(times):.3f} s")
    heavy = subprocess.run([sys.executable, "-c", IMPORT_PROBE], check=True,
                           capture_output=True, text=True).stdout.strip()
    print(f"heavy modules imported by 'icnperf topology': {heavy}")


if __name__ == "__main__":
    main()
