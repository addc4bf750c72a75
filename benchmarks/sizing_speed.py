"""Wall time of a sizing study over the whole feasible design space.

Run: python benchmarks/sizing_speed.py [--endpoints 100000] [--repeats 3]
Prints the candidate designs screened and the median wall time of (1) the screening stage:
enumerating every feasible design, its structure, cost and closed-form proxy, the proxy's
Pareto front and the short list (space.py, screen.py); (2) the whole study as `icnperf
size` runs it in-process: reading the cost and workload files and the machine, the screen,
and the full workload model on the short list (study.run_study; the first, cold run is
printed too, as later runs reuse the models' caches); (3) `icnperf size --endpoints N` as
a fresh process (interpreter start-up, imports and the text table included). Issue
target: >= 10^5 candidates in under 10 s. Not a test: the figures are for the README.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from icnperf.data.sizing_inputs import load_cost_model, load_workload
from icnperf.reports.text.size import DEFAULT_FAMILIES, DEFAULT_MACHINE, load_study


def _timed(call, repeats: int) -> tuple[list[float], object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return times, result


def _fresh_process(args: list[str], repeats: int) -> list[float]:
    return _timed(lambda: subprocess.run([sys.executable, "-m", "icnperf", *args], check=True,
                                         stdout=subprocess.DEVNULL), repeats)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoints", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from icnperf.data.machine import load_machine
    from icnperf.model.sizing.screen import screen_space
    from icnperf.model.sizing.space import enumerate_space

    cost_model = load_cost_model()
    workload = load_workload()
    machine = load_machine(DEFAULT_MACHINE)

    def screen():
        blocks = enumerate_space(args.endpoints, DEFAULT_FAMILIES, (3, 6), 128)
        return screen_space(blocks, cost_model, workload, machine, args.endpoints)

    families = ",".join(DEFAULT_FAMILIES)
    print(f"{args.endpoints:,} endpoints, families {families}, torus dims 3,6, radix <= 128,"
          f" slack 1.5; median of {args.repeats} runs")
    times, screened = _timed(screen, args.repeats)
    screen_s = statistics.median(times)
    print(f"screening stage: {screened.screened:,} candidates in {screen_s:.2f} s"
          f" ({screened.screened / screen_s:,.0f} designs/s);"
          f" proxy front {int(screened.front.sum())}, short list {len(screened.shortlist)}")
    for label, chosen in (("all families", None),
                          ("fattree,dragonfly,megafly,slimfly",
                           "fattree,dragonfly,megafly,slimfly")):
        times, (study, *_) = _timed(
            lambda families=chosen: load_study(args.endpoints, families), args.repeats)
        print(f"whole study in-process, {label}: {study.screened_total:,} candidates"
              f" screened, {len(study.results)} through the full model,"
              f" median {statistics.median(times):.2f} s (first run {times[0]:.2f} s)")
        command = ["size", "--endpoints", str(args.endpoints)] + (
            ["--families", chosen] if chosen else [])
        times = _fresh_process(command, args.repeats)
        print(f"  icnperf {' '.join(command)} (fresh process):"
              f" median {statistics.median(times):.2f} s, max {max(times):.2f} s")


if __name__ == "__main__":
    main()
