"""CPU time of the full-machine commands of issue #28, each a fresh process.

Run: python benchmarks/full_scale.py [--repeats 3] [--only TEXT] [--max-seconds S]
                                      [--bytecode cached|compile]
Each command runs ``--repeats`` times as ``python -m icnperf ...`` (start-up included);
the figure is the median of the child's user + system CPU time (resource.getrusage of the
children), which a loaded machine distorts less than the wall time; the wall time's median
is printed beside it. ``--bytecode cached`` (the default) times the commands as an
installed icnperf runs: the children may write their compiled bytecode, to a temporary
folder (PYTHONPYCACHEPREFIX), and each command runs once untimed first, so no timed run
compiles a module; ``--bytecode compile`` leaves the environment as it is, and where it
sets PYTHONDONTWRITEBYTECODE and the source tree holds no ``__pycache__`` every run
compiles icnperf's own modules again (0.07 to 0.33 s CPU a process here). A command that
exits non-zero (a refusal by the work budget, an error) is reported as failed;
``--max-seconds S`` runs the children with ICNPERF_MAX_SECONDS=S, to time a command the
budget refuses at its default limit. Not a test: the figures depend on the machine and
its load.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FFT = os.path.join(HERE, "data", "fft3d.toml")
OPERATIONS = ("broadcast", "reduce", "allreduce", "allgather", "alltoall", "barrier")


def targets(folder: str) -> list[tuple[str, list[str], float]]:
    """(label, icnperf arguments, target CPU seconds) of every target of the issue."""
    rows = [(f"collective {op} fugaku 158,976 nodes 8B,1MiB all",
             ["predict", "collective", op, "--machine", "fugaku", "--nodes", "158976",
              "--bytes", "8,1MiB", "--algorithm", "all"], 1.0) for op in OPERATIONS]
    rows.append(("collective alltoall fugaku 4,096..65,536:x4 1MiB all",
                 ["predict", "collective", "alltoall", "--machine", "fugaku", "--nodes",
                  "4096..65536:x4", "--bytes", "1MiB", "--algorithm", "all"], 1.5))
    rows.append(("app jacobi3d fugaku 158,976 nodes",
                 ["predict", "app", "jacobi3d", "--machine", "fugaku", "--nodes", "158976"],
                 1.0))
    rows += [(f"app fft3d (p2p alltoall) fugaku {n:,} ranks",
              ["predict", "app", FFT, "--machine", "fugaku", "--nodes", str(n), "--ppn", "1"],
              1.0) for n in (4096, 65536, 158976)]
    rows.append(("report fugaku",
                 ["report", "--machine", "fugaku", "-o", os.path.join(folder, "f.html"),
                  "--force"], 4.0))
    rows.append(("p2p lumi 10^6 sizes, JSON to a file",
                 ["predict", "p2p", "--machine", "lumi", "--bytes", "1..1000000:1",
                  "--format", "json", "-o", os.path.join(folder, "x.json"), "--force"], 5.0))
    rows.append(("size 5,000 dragonfly,torus 3D --shortlist all",
                 ["size", "--endpoints", "5000", "--families", "dragonfly,torus",
                  "--torus-dims", "3", "--shortlist", "all"], 15.0))
    rows.append(("size 100,000 endpoints (default study)",
                 ["size", "--endpoints", "100000"], 4.0))
    return rows


def child_environment(max_seconds: str | None, bytecode_folder: str | None) -> dict:
    """This process's environment for a child: ``max_seconds`` as its ICNPERF_MAX_SECONDS
    (None: inherit), and with ``bytecode_folder`` its compiled modules written there
    (PYTHONPYCACHEPREFIX, PYTHONDONTWRITEBYTECODE removed; None: inherit both)."""
    environment = dict(os.environ)
    if max_seconds is not None:
        environment["ICNPERF_MAX_SECONDS"] = max_seconds
    if bytecode_folder is not None:
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        environment["PYTHONPYCACHEPREFIX"] = bytecode_folder
    return environment


def run(arguments: list[str], environment: dict) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, exit status) of one fresh ``python -m icnperf`` run
    with ``environment``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    status = subprocess.run([sys.executable, "-m", "icnperf", *arguments],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=environment).returncode
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="", help="run the targets whose label has TEXT")
    parser.add_argument("--max-seconds", default=None,
                        help="the children's ICNPERF_MAX_SECONDS (time what the budget refuses)")
    parser.add_argument("--bytecode", choices=("cached", "compile"), default="cached",
                        help="cached: compiled modules kept between runs, one untimed run "
                             "first (as installed); compile: the environment as it is")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        bytecode_folder = (os.path.join(folder, "pycache") if args.bytecode == "cached"
                           else None)
        environment = child_environment(args.max_seconds, bytecode_folder)
        print(f"{'command':<52} {'target':>7} {'CPU':>7} {'wall':>7}  result")
        for label, arguments, target in targets(folder):
            if args.only not in label:
                continue
            if bytecode_folder is not None:
                run(arguments, environment)
            runs = [run(arguments, environment) for _ in range(args.repeats)]
            cpu = statistics.median(r[0] for r in runs)
            wall = statistics.median(r[1] for r in runs)
            failed = [r[2] for r in runs if r[2] != 0]
            result = (f"failed (exit {failed[0]})" if failed
                      else "met" if cpu <= target else "not met")
            print(f"{label:<52} {target:>6.1f}s {cpu:>6.2f}s {wall:>6.2f}s  {result}",
                  flush=True)
    bytecode = ("bytecode cached, one untimed run first" if args.bytecode == "cached" else
                "bytecode as the environment has it (PYTHONDONTWRITEBYTECODE="
                f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r})")
    print(f"median of {args.repeats} fresh processes each; CPU = user + system time of the"
          f" child; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}\n{bytecode}")


if __name__ == "__main__":
    main()
