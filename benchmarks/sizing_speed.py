"""Wall time of sizing studies over the whole feasible design space.

Run: python benchmarks/sizing_speed.py [--endpoints 10000,100000] [--repeats 3]
For each endpoint count prints the candidate designs screened and the median of
``--repeats`` runs of (1) the screening stage: enumerating every feasible design, its
structure, exact cost and lower-bound proxy (space.py, screen.screen_space); (2) the whole
study as `icnperf size` runs it in-process: reading the cost and workload files and the
machine, the screen, the safe branch and bound and the full workload model on the designs
it keeps (study.run_study; the first, cold run is printed too, as later runs reuse the
models' caches), with the number of designs the full model evaluated; (3) `icnperf size
--endpoints N` as a fresh process (interpreter start-up, imports and the text table
included). Wall times and CPU times (this process's, or the child's for (3)) are both
printed: on a shared machine the CPU time is the steadier figure. Not a test: the figures are for the README.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time

from icnperf.data.sizing_inputs import load_cost_model, load_workload
from icnperf.model.sizing.designs import SIZING_FAMILIES
from icnperf.api.sizing import DEFAULT_MACHINE, load_study


def _timed(call, repeats: int) -> tuple[list[float], list[float], object]:
    walls, cpus, result = [], [], None
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = call()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return walls, cpus, result


def _fresh_process(args: list[str], repeats: int) -> tuple[list[float], list[float]]:
    """Wall times and the child processes' CPU times (user + system) of ``repeats`` runs."""
    walls, cpus = [], []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        subprocess.run([sys.executable, "-m", "icnperf", *args], check=True,
                       stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - wall)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return walls, cpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoints", default="10000,100000")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from icnperf.data.machine import load_machine
    from icnperf.model.sizing.screen import screen_space
    from icnperf.model.sizing.space import enumerate_space

    cost_model = load_cost_model()
    workload = load_workload()
    machine = load_machine(DEFAULT_MACHINE)
    print(f"families {','.join(SIZING_FAMILIES)}, torus dims 3,6, radix <= 128, slack 1.5,"
          f" default workload and costs, machine {DEFAULT_MACHINE}; median of {args.repeats}"
          " runs (wall / this process's CPU)")
    for endpoints in (int(n) for n in args.endpoints.split(",")):
        def screen(endpoints=endpoints):
            blocks = enumerate_space(endpoints, SIZING_FAMILIES, (3, 6), 128)
            return screen_space(blocks, cost_model, workload, machine, endpoints)

        walls, cpus, screened = _timed(screen, args.repeats)
        print(f"{endpoints:,} endpoints: screening stage, {screened.screened:,} candidates"
              f" costed and bounded in {statistics.median(walls):.2f} s wall /"
              f" {statistics.median(cpus):.2f} s CPU")
        walls, cpus, (study, *_) = _timed(lambda endpoints=endpoints: load_study(endpoints),
                                          args.repeats)
        print(f"  whole study in-process: {study.evaluated_total} of"
              f" {study.screened_total:,} designs through the full model, median"
              f" {statistics.median(walls):.2f} s wall / {statistics.median(cpus):.2f} s CPU"
              f" (first run {walls[0]:.2f} s wall)")
        command = ["size", "--endpoints", str(endpoints)]
        walls, cpus = _fresh_process(command, args.repeats)
        print(f"  icnperf {' '.join(command)} (fresh process): median"
              f" {statistics.median(walls):.2f} s wall / {statistics.median(cpus):.2f} s CPU,"
              f" max {max(walls):.2f} s wall")


if __name__ == "__main__":
    main()
