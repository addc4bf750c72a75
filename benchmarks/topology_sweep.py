"""Configurations per second of the vectorized topology metrics (all metrics, one call).

Run: python benchmarks/topology_sweep.py [--configs 1000000] [--repeats 5]
Prints the median wall time of each family's single vectorized call over N random
configurations, and configurations per second. Not a test: the figures are for the README.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from icnperf.model.topology import dragonfly, torus
from icnperf.model.topology.saturation import DEFAULT_ROUTER, saturation_of


def _median_seconds(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _touch(metrics) -> None:
    """Force every lazily derived array (throughput) to be computed."""
    metrics.throughput


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    n = args.configs
    radices = rng.integers(2, 33, size=(n, 3))
    p, h = rng.integers(1, 17, size=n), rng.integers(1, 17, size=n)
    a = rng.integers(2, 33, size=n)
    def torus_estimate():
        metrics = torus.torus_metrics(radices)
        _touch(metrics)
        saturation_of("torus", {"radices": radices}, metrics, "uniform", DEFAULT_ROUTER)

    def dragonfly_estimate():
        metrics = dragonfly.evaluate_dragonfly(p, a, h)
        _touch(metrics)
        saturation_of("dragonfly", {"p": p, "a": a, "h": h}, metrics, "uniform",
                      DEFAULT_ROUTER, routing="min")

    cases = {
        "torus (3D, mixed radices)": lambda: _touch(torus.torus_metrics(radices)),
        "dragonfly DF(p,a,h)": lambda: _touch(dragonfly.evaluate_dragonfly(p, a, h)),
        "torus + saturation estimate": torus_estimate,
        "dragonfly + sat. estimate": dragonfly_estimate,
    }
    print(f"{n:,} configurations per call, median of {args.repeats} runs")
    for name, call in cases.items():
        seconds = _median_seconds(call, args.repeats)
        print(f"{name:28s} {seconds * 1e3:9.1f} ms   {n / seconds:14,.0f} configs/s")


if __name__ == "__main__":
    main()
