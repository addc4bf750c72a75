"""Speed of the flit simulator: router-cycles per second and flit-hops per second.

Run: python benchmarks/flitsim_speed.py [--cycles 2000] [--warmup 500] [--repeats 3]
For the 8x8x8 and 8x8 tori under uniform traffic at 0.2 and 0.4 flits/endpoint/cycle
(1-flit packets, 2 VCs x 8 flits, router/link/terminal delay 1 cycle): each run warms up,
then times --cycles cycles; prints the median of --repeats runs, per second of this
process's CPU time (one core; robust on a shared machine) and per wall-clock second. The
first line reports the kernel's first-call time (loading or compiling the Numba kernel).
Not a test: the figures are for the README and docs/architecture.md.
"""

from __future__ import annotations

import argparse
import statistics
import time

from icnperf.validation.flitsim import GridNetwork, RouterConfig, Simulation


def one_run(radices, rate: float, cycles: int, warmup: int,
            seed: int) -> tuple[float, float, float]:
    """(router-cycles per CPU second, flit-hops per CPU second, router-cycles per wall
    second) over ``cycles`` timed cycles after ``warmup``."""
    network = GridNetwork(radices)
    sim = Simulation(network, RouterConfig(vcs=2, buffer=8), "uniform", rate, seed=seed)
    sim.run(warmup)
    hops = sim.flit_hops
    cpu, wall = time.process_time(), time.perf_counter()
    sim.run(cycles)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return (network.routers * cycles / cpu, (sim.flit_hops - hops) / cpu,
            network.routers * cycles / wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    start = time.perf_counter()
    Simulation(GridNetwork((2, 2)), RouterConfig(), "uniform", 0.1).run(1)
    print(f"first call (kernel load or compile): {time.perf_counter() - start:.2f} s")
    print(f"{'torus':>8} {'rate':>5} {'router-cycles/s':>16} {'flit-hops/s':>14}"
          f" {'(wall) r-c/s':>14}")
    for radices in ((8, 8, 8), (8, 8)):
        for rate in (0.2, 0.4):
            runs = [one_run(radices, rate, args.cycles, args.warmup, seed)
                    for seed in range(args.repeats)]
            rc = statistics.median(r[0] for r in runs)
            fh = statistics.median(r[1] for r in runs)
            wall = statistics.median(r[2] for r in runs)
            name = "x".join(map(str, radices))
            print(f"{name:>8} {rate:>5.2f} {rc:>16,.0f} {fh:>14,.0f} {wall:>14,.0f}",
                  flush=True)


if __name__ == "__main__":
    main()
