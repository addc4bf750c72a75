"""Runs of the simulator: one measured run (``simulate``: warm-up, measurement window,
drain) and its statistics (``SimResult``)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from icnperf.errors import InputError
from icnperf.sim.config import RouterConfig
from icnperf.sim.engine import MEMORY_LIMIT, TIME_LIMIT, Simulation


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
    lat = np.concatenate(sim.latencies) if sim.latencies else np.zeros(0, dtype=np.int64)
    queued = _queued_in_window(sim, lo, hi)
    delivered_tagged = len(lat)
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
        average_latency=float(lat.mean()) if len(lat) else math.nan,
        p99_latency=float(np.percentile(lat, 99)) if len(lat) else math.nan,
        offered=offered, accepted=accepted,
        accepted_min=float(sim.accepted_by_destination.min()) / measure,
        queue_growth=growth, saturated=saturated,
        flit_hops=sim.flit_hops, wall_seconds=wall, packet_flits=router.packet_flits)


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
