"""Speed of the flit simulator: router-cycles per second and flit-hops per second.

Run: python benchmarks/flitsim_speed.py [--cycles 2000] [--warmup 500] [--repeats 3]
For the 8x8x8 and 8x8 tori under uniform traffic at 0.2 and 0.4 flits/endpoint/cycle
(1-flit packets, 2 VCs x 8 flits, router/link/terminal delay 1 cycle): each run warms up,
then times --cycles cycles; prints the median of --repeats runs. Not a test: the figures are
for the README and docs/architecture.md.
"""

from __future__ import annotations

import argparse
import statistics
import time

from icnperf.validation.flitsim import GridNetwork, RouterConfig, Simulation


def one_run(radices, rate: float, cycles: int, warmup: int, seed: int) -> tuple[float, float]:
    """(router-cycles/s, flit-hops/s) over ``cycles`` timed cycles after ``warmup``."""
    network = GridNetwork(radices)
    sim = Simulation(network, RouterConfig(vcs=2, buffer=8), "uniform", rate, seed=seed)
    for _ in range(warmup):
        sim.step()
    hops = sim.flit_hops
    start = time.perf_counter()
    for _ in range(cycles):
        sim.step()
    wall = time.perf_counter() - start
    return network.routers * cycles / wall, (sim.flit_hops - hops) / wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'torus':>8} {'rate':>5} {'router-cycles/s':>16} {'flit-hops/s':>14}")
    for radices in ((8, 8, 8), (8, 8)):
        for rate in (0.2, 0.4):
            runs = [one_run(radices, rate, args.cycles, args.warmup, seed)
                    for seed in range(args.repeats)]
            rc = statistics.median(r[0] for r in runs)
            fh = statistics.median(r[1] for r in runs)
            name = "x".join(map(str, radices))
            print(f"{name:>8} {rate:>5.2f} {rc:>16,.0f} {fh:>14,.0f}", flush=True)


if __name__ == "__main__":
    main()
