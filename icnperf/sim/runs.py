"""Runs of the simulator: one measured run (``simulate``: warm-up, measurement window,
drain) and its statistics (``SimResult``)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from icnperf.errors import InputError
from icnperf.sim.config import RouterConfig
from icnperf.sim.engine import MEMORY_LIMIT, TIME_LIMIT, Simulation, check_memory


@dataclass
class SimResult:
    """Statistics of one run. Latencies in cycles; throughputs in flits/endpoint/cycle.

    ``accepted`` is the mean over endpoints of flits delivered per cycle in the window;
    ``accepted_min`` the smallest over destination endpoints (under a permutation pattern,
    the worst flow). ``offered`` counts the flits of packets created in the window.
    """

    network: str
    traffic: str
    rate: float
    seed: int
    cycles: int
    warmup: int
    measure: int
    drain: int
    packets_measured: int
    packets_unfinished: int
    average_latency: float
    p99_latency: float
    offered: float
    accepted: float
    accepted_min: float
    queue_growth: float
    saturated: bool
    flit_hops: int
    wall_seconds: float
    notes: tuple[str, ...] = field(default=())
    packet_flits: int = 1

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def simulate(network, traffic: str, rate: float, router: RouterConfig | None = None,
             warmup: int = 10_000, measure: int = 5_000, drain: int = 5_000, seed: int = 0,
             memory_limit: int = MEMORY_LIMIT, traffic_options: dict | None = None,
             progress=None) -> SimResult:
    """One run: warm-up, measurement window (packets created in it are tagged), drain.

    The drain keeps injecting (so tagged packets see the same load) and stops early (checked
    every 32 cycles) once every tagged packet is delivered. Saturation: accepted throughput
    more than 5 % below the offered load in the window, or the source queues' oldest packets
    ageing by more than 5 % of the window length over it, or tagged packets still
    undelivered at the end. ``progress(cycles_done, cycles_total)``, when given, is called
    between chunks of cycles.
    """
    router = router or RouterConfig()
    for name, value in (("warmup", warmup), ("measure", measure), ("drain", drain)):
        if not isinstance(value, (int, np.integer)) or value < (1 if name == "measure" else 0):
            raise InputError(f"flitsim: {name} must be a whole number of cycles"
                             f" ({'>= 1' if name == 'measure' else '>= 0'}), got {value!r}")
    if warmup + measure + drain >= TIME_LIMIT:
        raise InputError(f"flitsim: runs are limited to {TIME_LIMIT:,} cycles")
    router.check(network)
    check_memory(network, router, memory_limit, warmup + measure + drain)
    sim = Simulation(network, router, traffic, rate, seed=seed, memory_limit=memory_limit,
                     traffic_options=traffic_options)
    start = time.perf_counter()
    lo, hi = warmup, warmup + measure
    sim.window = (lo, hi)
    total = warmup + measure + drain
    chunk = 1000

    def advance(cycles: int) -> None:
        while cycles > 0:
            step = min(chunk, cycles)
            sim.run(step)
            cycles -= step
            if progress is not None:
                progress(sim.now, total)

    advance(warmup)
    age_start = sim.queue_age()
    advance(measure)
    age_end = sim.queue_age()
    left = drain
    while left > 0:
        if sim.measured_in_flight == 0 and bool(np.all(sim.head_time >= hi)):
            break
        step = min(32, left)
        sim.run(step)
        left -= step
    wall = time.perf_counter() - start
    counts = sim.latency_counts
    queued = _queued_in_window(sim, lo, hi)
    delivered_tagged = int(counts.sum())
    total_tagged = delivered_tagged + sim.measured_in_flight + queued
    endpoints = sim.N
    offered = total_tagged * router.packet_flits / (endpoints * measure)
    accepted = sim.accepted_in_window / (endpoints * measure)
    growth = age_end - age_start
    unfinished = sim.measured_in_flight + queued
    saturated = bool(accepted < 0.95 * offered or growth > 0.05 * measure or unfinished > 0)
    return SimResult(
        network=network.name, traffic=traffic, rate=float(rate), seed=seed, cycles=sim.now,
        warmup=warmup, measure=measure, drain=drain, packets_measured=delivered_tagged,
        packets_unfinished=int(unfinished),
        average_latency=histogram_mean(counts) if delivered_tagged else math.nan,
        p99_latency=histogram_percentile(counts, 99) if delivered_tagged else math.nan,
        offered=offered, accepted=accepted,
        accepted_min=float(sim.accepted_by_destination.min()) / measure,
        queue_growth=growth, saturated=saturated,
        flit_hops=sim.flit_hops, wall_seconds=wall, packet_flits=router.packet_flits)


def histogram_mean(counts: np.ndarray) -> float:
    """The mean of the values a histogram counts (``counts[v]`` values equal to v): the
    exact integer sum over the count, correctly rounded, as NumPy's mean of the values
    (exact while the sum stays below 2^53)."""
    values = np.arange(len(counts), dtype=np.int64)
    return int(np.dot(values, counts)) / int(counts.sum())


def histogram_percentile(counts: np.ndarray, q: float) -> float:
    """``np.percentile(values, q)`` (its default, linear method) of the values a histogram
    counts, without listing them: the virtual index (n - 1) q / 100 between the two order
    statistics around it, read from the cumulative counts, interpolated as NumPy does
    (from the upper one when the weight is 1/2 or more)."""
    n = int(counts.sum())
    index = (n - 1) * np.true_divide(q, 100)
    below = int(np.floor(index))
    weight = index - below
    cumulative = np.cumsum(counts)
    a, b = np.searchsorted(cumulative, [below + 1, min(below + 2, n)])
    a, b = np.int64(a), np.int64(b)
    diff = b - a
    if weight >= 0.5:
        return float(b - diff * (1 - weight))
    return float(a + diff * weight)


def _queued_in_window(sim: Simulation, lo: int, hi: int) -> int:
    """Packets created in [lo, hi) still in the source queues (not yet started).

    Each endpoint's queue holds its Bernoulli arrivals from head_time up to the present;
    the arrivals behind the head are drawn here from a generator derived from the run's, so
    the run's own random stream is not touched.
    """
    head = sim.head_time.copy()
    waiting = head < min(hi, sim.now)
    if not waiting.any():
        return 0
    rng = np.random.default_rng(sim.rng.integers(0, 2**63 - 1))
    count = 0
    head = head[waiting]
    while len(head):
        inside = head >= lo
        count += int(np.count_nonzero(inside))
        head = head + rng.geometric(sim.packet_rate, size=len(head))
        head = head[head < min(hi, sim.now)]
    return count


LATENCY_LIMIT = 500.0
"""Mean latency (cycles) above which a run counts as past saturation: BookSim2's
``latency_thres`` default, the threshold of its reference runs."""


@dataclass
class Saturation:
    """A saturation throughput taken as BookSim2 takes it (``saturation``).

    ``throughput``: the largest accepted rate (flits/endpoint/cycle) over the stable runs
    and the overload run at offered load 1; ``stable_rate``: the largest offered rate found
    stable (0 if none); ``runs``: (offered rate, SimResult, stable) in the order run.
    """

    throughput: float
    stable_rate: float
    runs: list = field(default_factory=list)


def stable(result: SimResult, latency_limit: float = LATENCY_LIMIT) -> bool:
    """A run below saturation by BookSim2's test: every packet created in the window was
    delivered (within the drain) and their mean latency is at most ``latency_limit``."""
    return (result.packets_unfinished == 0 and result.packets_measured > 0
            and result.average_latency <= latency_limit)


def saturation(network, traffic: str, router: RouterConfig | None = None, step: float = 0.01,
               latency_limit: float = LATENCY_LIMIT, **run) -> Saturation:
    """Saturation throughput as BookSim2's reference runs take it: the largest accepted rate
    of the stable runs over offered loads on a grid of ``step`` flits/endpoint/cycle, and
    of an overload run at offered load 1 (its README: "the largest accepted rate of the
    stable latency-mode runs and of an overload run at 1.0").

    BookSim stepped through the loads (0.05, then 0.01 near saturation); here the largest
    stable grid load is found by halving the interval between a stable and an unstable
    load (about log2(1/step) runs), so the estimate is the same wherever stability falls
    with the load. A load a little past saturation may pass the test in a short window (its
    queues grow slowly); it then accepts the saturation rate itself, so the estimate holds
    while ``stable_rate`` can exceed it. ``run`` goes to ``simulate`` (warmup, measure,
    drain, seed, ...).
    """
    if not 0 < step <= 0.5:
        raise InputError(f"flitsim: the saturation search step must be in (0, 0.5], got"
                         f" {step!r}")
    grid = int(round(1 / step))
    out = Saturation(0.0, 0.0)
    results = {}

    def at(index: int) -> bool:
        rate = min(1.0, index / grid)
        result = simulate(network, traffic, rate, router, **run)
        ok = stable(result, latency_limit)
        results[index] = (result, ok)
        out.runs.append((rate, result, ok))
        return ok

    lo, hi = 0, grid                   # stable at lo (no load), test hi
    if at(hi):
        lo = hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if at(mid):
            lo = mid
        else:
            hi = mid
    out.stable_rate = lo / grid
    out.throughput = max([r.accepted for r, ok in results.values() if ok]
                         + [results[grid][0].accepted])
    return out
