"""Speed of the flit simulator: router-cycles per second and flit-hops per second.

Run: python benchmarks/flitsim_speed.py [--cycles 2000] [--warmup 500] [--repeats 5]
                                        [--baseline GIT-REVISION]
For the 8x8x8 and 8x8 tori under uniform traffic at 0.2 and 0.4 flits/endpoint/cycle
(1-flit packets, 2 VCs x 8 flits, router/link/terminal delay 1 cycle): each run warms up,
then times --cycles cycles; prints the median of --repeats runs, per second of this
process's CPU time (one core; robust on a shared machine) and per wall-clock second. The
first line reports the kernel's first-call time (loading or compiling the Numba kernel).

``--baseline REV`` also runs the simulator as committed at git revision REV (its
``icnperf/sim`` package, or ``icnperf/validation/flitsim`` before it moved, extracted into a temporary directory and imported
under another name), alternating the two engines run by run with the same seeds, so a
before/after comparison shares the machine's load. Not a test: the figures are for the
README and docs/architecture.md.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import icnperf.sim as current

PACKAGES = ("icnperf/sim", "icnperf/validation/flitsim")
"""Where the simulator lives, newest first (it moved out of validation/ in the house
restructuring)."""
CASES = (((8, 8, 8), 0.2), ((8, 8, 8), 0.4), ((8, 8), 0.2), ((8, 8), 0.4))


def one_run(sim_module, radices, rate: float, cycles: int, warmup: int,
            seed: int) -> tuple[float, float, float]:
    """(router-cycles per CPU second, flit-hops per CPU second, router-cycles per wall
    second) over ``cycles`` timed cycles after ``warmup``."""
    network = sim_module.GridNetwork(radices)
    sim = sim_module.Simulation(network, sim_module.RouterConfig(vcs=2, buffer=8), "uniform",
                                rate, seed=seed)
    sim.run(warmup)
    hops = sim.flit_hops
    cpu, wall = time.process_time(), time.perf_counter()
    sim.run(cycles)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return (network.routers * cycles / cpu, (sim.flit_hops - hops) / cpu,
            network.routers * cycles / wall)


def load_revision(revision: str, into: Path):
    """The flitsim package as of git ``revision``, importable as ``flitsim_<revision>``."""
    root = Path(__file__).resolve().parent.parent
    for package_path in PACKAGES:
        listing = subprocess.run(["git", "ls-tree", "--name-only", f"{revision}:{package_path}"],
                                 cwd=root, capture_output=True, text=True)
        if listing.returncode == 0:
            break
    else:
        raise SystemExit(f"no flit simulator package at revision {revision}")
    names = listing.stdout.split()
    name = "flitsim_" + "".join(c for c in revision if c.isalnum())
    package = into / name
    package.mkdir()
    for file in (n for n in names if n.endswith(".py")):
        text = subprocess.run(["git", "show", f"{revision}:{package_path}/{file}"], cwd=root,
                              check=True, capture_output=True, text=True).stdout
        text = text.replace("icnperf.validation.flitsim", name).replace("icnperf.sim", name)
        (package / file).write_text(text)
    sys.path.insert(0, str(into))
    return importlib.import_module(name)


def first_call(sim_module) -> float:
    start = time.perf_counter()
    sim_module.Simulation(sim_module.GridNetwork((2, 2)), sim_module.RouterConfig(),
                          "uniform", 0.1).run(1)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline", metavar="REV", help="git revision to compare against")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        engines = {"current": current}
        if args.baseline:
            engines[args.baseline] = load_revision(args.baseline, Path(scratch))
        for label, module in engines.items():
            print(f"first call (kernel load or compile), {label}: {first_call(module):.2f} s")
        print(f"{'engine':>10} {'torus':>8} {'rate':>5} {'router-cycles/s':>16}"
              f" {'flit-hops/s':>14} {'(wall) r-c/s':>14}")
        for radices, rate in CASES:
            runs = {label: [] for label in engines}
            for seed in range(args.repeats):
                for label, module in engines.items():
                    runs[label].append(one_run(module, radices, rate, args.cycles,
                                               args.warmup, seed))
            name = "x".join(map(str, radices))
            for label, results in runs.items():
                rc, fh, wall = (statistics.median(r[i] for r in results) for i in range(3))
                print(f"{label:>10} {name:>8} {rate:>5.2f} {rc:>16,.0f} {fh:>14,.0f}"
                      f" {wall:>14,.0f}", flush=True)


if __name__ == "__main__":
    main()
