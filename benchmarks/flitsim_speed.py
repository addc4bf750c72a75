"""Speed of the flit simulator: router-cycles per second and flit-hops per second.

Run: python benchmarks/flitsim_speed.py [--cycles 2000] [--warmup 500] [--repeats 5]
                                        [--baseline GIT-REVISION ...] [--speedup]
Default router: the 8x8x8 and 8x8 tori under uniform traffic at 0.2 and 0.4
flits/endpoint/cycle (1-flit packets, 2 VCs x 8 flits, router/link/terminal delay 1
cycle). booksim router (``--router booksim``: BookSim2's iq router, iSLIP): the 8x8 torus
as BookSim2's reference runs set it (4 VCs x 8 flits, 2-cycle links) at 0.2 and 0.4, and
the 8x8x8 torus at 0.2, printed beside BookSim2's own router_cycles_per_cpu_second for the
same 8x8 runs (bundled table booksim-uniform-runs, experiment a_torus_k8n2_uniform; BookSim2 commit
28f4329, g++ -O3; its figure is the whole run's simulated cycles per CPU second, warm-up
and measurement, on the machine that made the reference files). ``--speedup`` adds the
booksim router with internal speedup 2 (its output and credit queues, kernel step 3d) on the
8x8 torus at 0.2 and 0.4.

Each run warms up, then times --cycles cycles; prints the median of --repeats runs, per
second of this process's CPU time (one core; robust on a shared machine) and per
wall-clock second. The first line reports the kernel's first-call time (loading or
compiling the Numba kernel).

``--baseline REV`` (repeatable) also runs the simulator as committed at git revision REV
(its ``icnperf/sim`` package, or ``icnperf/validation/flitsim`` before it moved, extracted
into a temporary directory and imported under another name), alternating the engines run by
run with the same seeds, so a before/after comparison shares the machine's load; the
booksim tables include the revisions that have that router. Not a test: the figures are for
the README and docs/architecture.md.
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
BOOKSIM_CASES = (((8, 8), 0.2), ((8, 8), 0.4), ((8, 8, 8), 0.2))
SPEEDUP_CASES = (((8, 8), 0.2), ((8, 8), 0.4))
BOOKSIM_PUBLISHED = {((8, 8), 0.2): 617_195, ((8, 8), 0.4): 333_119}
"""BookSim2's router_cycles_per_cpu_second, 8x8 torus, 4 VCs x 8 flits, uniform, at these
offered loads (booksim-uniform-runs, experiment a_torus_k8n2_uniform)."""


def default_router(sim_module):
    return sim_module.RouterConfig(vcs=2, buffer=8)


def booksim_router(sim_module, **changes):
    from icnperf.sim.presets import router_settings

    return sim_module.RouterConfig(**router_settings("booksim", link_delay=2, **changes))


def booksim_speedup_router(sim_module):
    return booksim_router(sim_module, internal_speedup=2.0)


def has_booksim(sim_module) -> bool:
    """Whether a revision's simulator has the booksim (iSLIP) router."""
    try:
        booksim_speedup_router(sim_module)
    except (TypeError, ValueError):
        return False
    return True


def one_run(sim_module, router, radices, rate: float, cycles: int, warmup: int,
            seed: int) -> tuple[float, float, float]:
    """(router-cycles per CPU second, flit-hops per CPU second, router-cycles per wall
    second) over ``cycles`` timed cycles after ``warmup``."""
    network = sim_module.GridNetwork(radices)
    sim = sim_module.Simulation(network, router, "uniform", rate, seed=seed)
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


def first_call(sim_module, router) -> float:
    start = time.perf_counter()
    sim_module.Simulation(sim_module.GridNetwork((2, 2)), router, "uniform", 0.1).run(1)
    return time.perf_counter() - start


def _table(title: str, cases, engines: dict, router_of, args, published=None) -> None:
    print(f"\n{title}")
    extra = f" {'BookSim2 r-c/s':>15}" if published else ""
    print(f"{'engine':>10} {'torus':>8} {'rate':>5} {'router-cycles/s':>16}"
          f" {'flit-hops/s':>14} {'(wall) r-c/s':>14}{extra}")
    for radices, rate in cases:
        runs = {label: [] for label in engines}
        for seed in range(args.repeats):
            for label, module in engines.items():
                runs[label].append(one_run(module, router_of(module), radices, rate,
                                           args.cycles, args.warmup, seed))
        name = "x".join(map(str, radices))
        for label, results in runs.items():
            rc, fh, wall = (statistics.median(r[i] for r in results) for i in range(3))
            line = (f"{label:>10} {name:>8} {rate:>5.2f} {rc:>16,.0f} {fh:>14,.0f}"
                    f" {wall:>14,.0f}")
            if published:
                value = published.get((radices, rate))
                line += f" {value:>15,}" if value else f" {'-':>15}"
            print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline", metavar="REV", action="append", default=[],
                        help="git revision to compare against (repeatable)")
    parser.add_argument("--speedup", action="store_true",
                        help="add the booksim router with internal speedup 2")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        engines = {"current": current}
        for revision in args.baseline:
            engines[revision] = load_revision(revision, Path(scratch))
        islip_engines = {label: module for label, module in engines.items()
                         if has_booksim(module)}
        for label, module in engines.items():
            print(f"first call (kernel load or compile), {label}:"
                  f" {first_call(module, default_router(module)):.2f} s")
        for label, module in islip_engines.items():
            print(f"first call, booksim router, {label}:"
                  f" {first_call(module, booksim_router(module)):.2f} s")
        _table("default router (2 VCs x 8 flits, 1-cycle stages and links)", CASES, engines,
               default_router, args)
        _table("booksim router (4 VCs x 8 flits, iSLIP, 2-cycle links)", BOOKSIM_CASES,
               islip_engines, booksim_router, args, BOOKSIM_PUBLISHED)
        if args.speedup:
            _table("booksim router, internal speedup 2", SPEEDUP_CASES, islip_engines,
                   booksim_speedup_router, args)


if __name__ == "__main__":
    main()
