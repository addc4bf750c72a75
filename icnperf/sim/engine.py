"""The cycle-driven engine: input-queued VC routers, credit-based flow control, wormhole.

The per-cycle work runs in a compiled kernel (``kernel.run``, Numba) looping over routers,
ports and virtual channels; this module holds the configuration, allocates the state and
turns the kernel's logs into statistics. Per cycle:

1. credits sent ``link_delay`` (router-router) or ``terminal_delay`` (injection link) cycles
   ago arrive at the upstream output VC / endpoint;
2. flits whose link delay has elapsed are written into the input VC their credit reserved;
3. VC allocation: the head flit at the front of an input VC with no output VC, once
   ``routing_delay`` cycles after its arrival have passed, computes its output port and VC
   class and takes a free (not held) output VC of that class, the one with most credits
   (lowest index at a tie); input VCs are served in a per-router rotating order. The
   output VC is held until the packet's tail flit leaves (wormhole, VC per packet);
4. switch allocation, separable input-first, one iteration, no speedup: each input port
   picks one of its VCs whose front flit is eligible and whose output VC has a credit, then
   each output port picks one requesting input port — round-robin (pointers advanced past
   each winner) or, with ``arbiter="age"``, oldest packet first. A head flit is eligible
   ``vc_alloc_delay + switch_alloc_delay`` cycles after its VC allocation, a body flit
   ``switch_alloc_delay`` cycles after its arrival. Winners leave the input buffer (a credit
   goes upstream), take a credit of their output VC, and after ``switch_traversal_delay``
   cycles enter the link; ejected flits reach their endpoint ``terminal_delay`` later;
5. each endpoint sends one flit of its current packet if its VC has a credit; an endpoint
   with no current packet and a queued one starts it on the injection VC with most credits.

Router pipeline: ``routing_delay + vc_alloc_delay + switch_alloc_delay +
switch_traversal_delay`` cycles per router for a head flit at zero load; the default puts
the whole ``router_delay`` in switch allocation (a flit arriving at cycle a leaves at
a + router_delay). Zero-load latency of an L-flit packet crossing H channels (creation to
tail delivery, with buffers deep enough to cover the credit round trip)::

    T0 = 2*terminal_delay + (H+1)*router_delay + H*link_delay + (L-1)

A packet created at cycle t (Bernoulli, one chance per endpoint per cycle at rate/L
packets) may start at t; its head reaches the router at t + terminal_delay; the L flits
follow one per cycle. Latency includes source queueing.

Deadlock freedom: on a torus ring of radix > 2 the VCs of a port are split into two dateline
classes, the lower half ``[0, V//2)`` and the upper half ``[V//2, V)``. A packet entering a
dimension uses the lower class and switches to the upper one when it crosses the ring's
wraparound link (between coordinates k-1 and 0), for the rest of that dimension. Meshes,
radix-2 rings and ejection ports use every VC; a torus needs at least 2 VCs. Table-routed
networks may use hop-index classes instead (see ``network.TableNetwork``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from icnperf.errors import InputError
from icnperf.sim import kernel as K
from icnperf.sim.network import CLASS_HOPS, GridNetwork
from icnperf.sim.traffic import Traffic

MEMORY_LIMIT = 2 * 1024**3
"""Default largest memory estimate (bytes) a simulation may allocate."""

_NO_LIMIT = 1 << 30
"""Credits of an ejection VC (never run out)."""

I32 = np.int32
"""Integer type of the per-VC and per-slot state (keeps the hot state in cache)."""

ARBITERS = ("round-robin", "age")
"""Switch-allocator priority: rotating per input/output port, or oldest packet first."""

STAGES = ("routing_delay", "vc_alloc_delay", "switch_alloc_delay", "switch_traversal_delay")
"""Router pipeline stages (cycles); when none is given, router_delay is all switch alloc."""

TIME_LIMIT = 1 << 30
"""Longest run in cycles (times are held in 32-bit integers)."""

LOG_CYCLES = 256
"""Cycles of delivery / injection records the kernel may write before Python reads them."""


@dataclass(frozen=True)
class RouterConfig:
    """Router micro-architecture and link timing, all in cycles / flits.

    Giving any pipeline stage (``routing_delay`` ... ``switch_traversal_delay``) sets the
    unset ones to 0 and ``router_delay`` to their sum (an explicit ``router_delay`` other
    than the default 1 must then equal it). VC allocation and switch allocation of a head
    flit happen in different cycles, so ``vc_alloc_delay + switch_alloc_delay >= 1``.
    """

    vcs: int = 2
    buffer: int = 8
    router_delay: int = 1
    link_delay: int = 1
    terminal_delay: int = 1
    packet_flits: int = 1
    arbiter: str = "round-robin"
    routing_delay: int | None = None
    vc_alloc_delay: int | None = None
    switch_alloc_delay: int | None = None
    switch_traversal_delay: int | None = None

    def __post_init__(self):
        given = [getattr(self, name) for name in STAGES]
        if all(v is None for v in given):
            return
        values = [0 if v is None else v for v in given]
        for name, value in zip(STAGES, values):
            object.__setattr__(self, name, value)
        if all(isinstance(v, (int, np.integer)) for v in values) and self.router_delay == 1:
            object.__setattr__(self, "router_delay", int(sum(values)))

    @property
    def stages(self) -> tuple[int, int, int, int]:
        """(routing, VC allocation, switch allocation, switch traversal) delays in cycles."""
        if self.routing_delay is None:
            return 0, 0, self.router_delay, 0
        return (self.routing_delay, self.vc_alloc_delay, self.switch_alloc_delay,
                self.switch_traversal_delay)

    def check(self, network) -> None:
        """Raise InputError for a configuration the engine cannot run."""
        if self.routing_delay is not None:
            for name in STAGES:
                value = getattr(self, name)
                if (not isinstance(value, (int, np.integer)) or isinstance(value, bool)
                        or value < 0):
                    raise InputError(f"flitsim: {name.replace('_', ' ')} must be an integer"
                                     f" >= 0, got {value!r}")
            if self.vc_alloc_delay + self.switch_alloc_delay < 1:
                raise InputError("flitsim: vc alloc delay + switch alloc delay must be >= 1"
                                 " (VC and switch allocation take separate cycles)")
            if sum(self.stages) != self.router_delay:
                raise InputError(f"flitsim: router delay {self.router_delay} is not the sum"
                                 f" of the stage delays {self.stages}")
        for name in ("vcs", "buffer", "router_delay", "link_delay", "terminal_delay",
                     "packet_flits"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
                raise InputError(f"flitsim: {name.replace('_', ' ')} must be an integer >= 1,"
                                 f" got {value!r}")
        if self.arbiter not in ARBITERS:
            raise InputError(f"flitsim: unknown arbiter {self.arbiter!r} (choose from"
                             f" {', '.join(ARBITERS)})")
        if network.dateline_ports().any() and self.vcs < 2:
            raise InputError("flitsim: a torus ring of radix > 2 needs at least 2 VCs per"
                             " port (dateline classes keep dimension-order routing"
                             " deadlock-free)")
        classes = getattr(network, "vc_classes", 1)
        if classes > 1 and self.vcs < classes:
            raise InputError(f"flitsim: {network.name} routes with {classes} VC classes and"
                             f" needs at least {classes} VCs per port, got {self.vcs}")


def _aligned_zeros(shape, dtype) -> np.ndarray:
    """A zeroed C-contiguous array whose data starts on a 64-byte boundary (a cache line),
    so rows of 32 or 64 bytes never straddle two lines."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape))
    raw = np.zeros(size + 64 // dtype.itemsize, dtype=dtype)
    skip = (-raw.ctypes.data % 64) // dtype.itemsize
    return raw[skip:skip + size].reshape(shape)


def _delays(router: RouterConfig) -> tuple[int, int]:
    """Ring lengths of the in-flight flit and credit delay lines."""
    st = router.stages[3]
    return (max(st + router.link_delay, router.terminal_delay) + 1,
            max(router.link_delay, router.terminal_delay) + 1)


def estimate_memory(network, router: RouterConfig) -> int:
    """Bytes the engine's state needs (buffers, VC state, delay lines, packets, logs)."""
    R, P, N = network.routers, network.ports, network.endpoints
    vc_slots = R * P * router.vcs
    buffers = vc_slots * router.buffer * 8                # packet and flags, ready time
    per_vc = vc_slots * 4 * 10                            # VC state row
    per_port = R * P * 8 * 8
    per_endpoint = N * (8 * 8 + 8 * router.vcs)
    da, dc = _delays(router)
    flight = da * (R * P + N) * (8 + 4 + 1) + dc * R * P * 8
    # packet pool: every packet in the network holds a buffer slot or a link slot, or is
    # being injected; the pool doubles when low, so up to twice that many entries
    packets = 2 * (N + vc_slots * router.buffer + da * (R * P + N)) * (8 * 8 + 4)
    logs = 8 * LOG_CYCLES * N * 8
    table = R * R * 4 if not isinstance(network, GridNetwork) else 0  # routes, hops
    return int(buffers + per_vc + per_port + per_endpoint + flight + packets + logs + table)


def check_memory(network, router: RouterConfig, limit: int = MEMORY_LIMIT) -> int:
    """The memory estimate in bytes; InputError naming it when it exceeds ``limit``."""
    need = estimate_memory(network, router)
    if need > limit:
        raise InputError(f"flitsim: {network.name} with {router.vcs} VCs x {router.buffer}"
                         f" flits needs about {need / 1024**2:,.0f} MiB, more than the"
                         f" limit of {limit / 1024**2:,.0f} MiB")
    return need


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


class Simulation:
    """State of one network under one traffic pattern and injection rate; advance with step()
    or run().

    ``network`` is a ``GridNetwork``, a ``TableNetwork`` or anything with ``tables()``,
    ``name``, ``routers``, ``ports``, ``endpoints`` and ``dateline_ports()``. ``rate`` is in
    flits per endpoint per cycle. ``traffic_options`` go to ``Traffic`` (hotspot mix).
    ``trace=True`` records every injected packet (id, source, destination, birth) and every
    delivery (id, time, birth) for tests.
    """

    def __init__(self, network, router: RouterConfig, traffic: str, rate: float,
                 seed: int = 0, memory_limit: int = MEMORY_LIMIT, trace: bool = False,
                 traffic_options: dict | None = None):
        router.check(network)
        if (isinstance(rate, bool) or not isinstance(rate, (int, float, np.floating, np.integer))
                or not 0 < rate <= 1):
            raise InputError(f"flitsim: injection rate must be in (0, 1] flits/endpoint/cycle,"
                             f" got {rate!r}")
        check_memory(network, router, memory_limit)
        self.network, self.router, self.rate = network, router, float(rate)
        self.packet_rate = self.rate / router.packet_flits
        self.rng = np.random.default_rng(seed)
        self.traffic = Traffic(traffic, network, self.rng, **(traffic_options or {}))
        self.trace = trace
        tab = network.tables()
        R, P, V, B, N = tab.routers, tab.ports, router.vcs, router.buffer, tab.endpoints
        self.R, self.P, self.V, self.B, self.N = R, P, V, B, N
        rc, va, sa, st = router.stages
        da, dc = _delays(router)
        self.cfg = np.zeros(K.CONFIG, dtype=np.int64)
        for slot, value in ((K.C_R, R), (K.C_P, P), (K.C_V, V), (K.C_B, B), (K.C_N, N),
                            (K.C_ROUTE, tab.route_kind), (K.C_CLASS, tab.class_kind),
                            (K.C_CLASSES, tab.classes), (K.C_RC, rc), (K.C_VA, va),
                            (K.C_SA, sa), (K.C_ST, st), (K.C_LINK, router.link_delay),
                            (K.C_TERM, router.terminal_delay),
                            (K.C_AGE, int(router.arbiter == "age")), (K.C_DA, da),
                            (K.C_DC, dc), (K.C_FLITS, router.packet_flits),
                            (K.C_TRAFFIC, self.traffic.kind), (K.C_WRAP, int(tab.wrap)),
                            (K.C_NONMIN, tab.nonminimal)):
            self.cfg[slot] = value
        if tab.class_kind != CLASS_HOPS:
            self.cfg[K.C_CLASSES] = 1
        neighbour = tab.neighbour.ravel().astype(np.int64)
        valid = np.flatnonzero(neighbour >= 0)
        up_out = np.full(R * P, -1, dtype=np.int64)
        up_out[neighbour[valid] * P + tab.neighbour_port.ravel()[valid]] = valid
        self._net = (tab.neighbour.ravel().astype(I32), tab.neighbour_port.ravel().astype(I32),
                     tab.port_endpoint.ravel().astype(I32), up_out.astype(I32),
                     tab.endpoint_router.astype(I32), tab.endpoint_port.astype(I32),
                     np.ascontiguousarray(tab.route_table, dtype=np.int16),
                     np.ascontiguousarray(tab.hop_table, dtype=np.int16),
                     tab.radices.astype(np.int64),
                     np.ascontiguousarray(tab.coords, dtype=I32),
                     tab.port_dim.astype(I32), tab.dateline.astype(np.int8),
                     tab.wraps.ravel().astype(np.int8))
        Q = R * P * V
        self.vs = np.zeros((Q, K.VS_COLUMNS), dtype=I32)
        self.vs[:, K.VS_OUT] = -1
        self.vs[:, K.VS_ROUTE] = -1
        self.vs[:, K.VS_CREDITS] = B
        ejection = np.repeat(tab.port_endpoint.ravel() >= 0, V)
        self.vs[ejection, K.VS_CREDITS] = _NO_LIMIT
        self.buf = _aligned_zeros((Q * B, 2), I32)  # a VC of 8 flits: one cache line
        self.pcount = np.zeros(R * P, dtype=I32)
        self.rcount = np.zeros(R, dtype=I32)
        self._inj_credits = np.full(N * V, B, dtype=I32)
        self.ep_pkt = np.full(N, -1, dtype=np.int64)
        self.ep_left = np.zeros(N, dtype=np.int64)
        self.ep_vc = np.zeros(N, dtype=np.int64)
        self.ptr_in = np.zeros(R * P, dtype=I32)
        self.ptr_out = np.zeros(R * P, dtype=I32)
        self.ptr_va = np.zeros(R * P, dtype=I32)
        # packet pool: one row per packet (kernel.PK_* columns) and the destinations
        self._pool = _aligned_zeros((0, K.PK_COLUMNS), np.int64)
        self._pk_dest = np.zeros(0, dtype=I32)
        self.free = np.zeros(0, dtype=np.int64)
        self.sc = np.zeros(K.SCALARS, dtype=np.int64)
        self.sc[K.TRACE] = int(trace)
        self._grow_pool(4 * N + 1024)
        self.ar_n = np.zeros(da, dtype=np.int64)
        self.ar_q = np.zeros(da * (R * P + N), dtype=I32)
        self.ar_ip = np.zeros(da * (R * P + N), dtype=I32)
        self.ar_router = np.repeat(np.arange(R, dtype=I32), P)  # router of input port
        self.ar_pkt = np.zeros(da * (R * P + N), dtype=np.int32)
        self.ar_flag = np.zeros(da * (R * P + N), dtype=np.int8)
        self.cr_n = np.zeros(dc, dtype=np.int64)
        self.cr_idx = np.zeros(dc * R * P, dtype=I32)
        self.accepted_by_destination = np.zeros(N, dtype=np.int64)
        cap = LOG_CYCLES * N
        self._log = [np.zeros(cap, dtype=np.int64) for _ in range(4)]
        self._inj = [np.zeros(cap if trace else N, dtype=np.int64) for _ in range(4)]
        self.rng_state = np.array([self.rng.integers(0, 2**63 - 1)], dtype=np.uint64)
        # sources: creation time of each endpoint's oldest queued packet (Bernoulli arrivals)
        self.head_time = self.rng.geometric(self.packet_rate, size=N).astype(np.int64) - 1
        self.latencies: list[np.ndarray] = []
        self.injected_log: list[tuple] = []
        self.ejected_log: list[tuple] = []

    # -- scalar state ----------------------------------------------------------------------

    now = property(lambda self: int(self.sc[K.NOW]))
    injected = property(lambda self: int(self.sc[K.INJECTED]))
    ejected = property(lambda self: int(self.sc[K.EJECTED]))
    flit_hops = property(lambda self: int(self.sc[K.FLIT_HOPS]))
    measured_in_flight = property(lambda self: int(self.sc[K.IN_WINDOW]))
    accepted_in_window = property(lambda self: int(self.sc[K.ACCEPTED]))

    @property
    def window(self) -> tuple[int, int]:
        """[lo, hi): packets created in it are tagged; flits delivered in it are counted."""
        return int(self.sc[K.LO]), int(self.sc[K.HI])

    @window.setter
    def window(self, value) -> None:
        self.sc[K.LO], self.sc[K.HI] = value

    @property
    def count(self) -> np.ndarray:
        """Flits held in each input VC."""
        return self.vs[:, K.VS_COUNT]

    @property
    def credits(self) -> np.ndarray:
        """Credits of each output VC (ejection VCs: a large constant)."""
        return self.vs[:, K.VS_CREDITS]

    @property
    def inj_credits(self) -> np.ndarray:
        """Credits of each endpoint's injection VCs, (endpoints, VCs)."""
        return self._inj_credits.reshape(self.N, self.V)

    def in_network(self) -> int:
        """Packets injected and not yet delivered."""
        return self.injected - self.ejected

    # -- running ---------------------------------------------------------------------------

    def _grow_pool(self, extra: int) -> None:
        old = len(self._pool)
        pool = _aligned_zeros((old + extra, K.PK_COLUMNS), np.int64)
        pool[:old] = self._pool
        self._pool = pool
        dest = np.zeros(old + extra, dtype=I32)
        dest[:old] = self._pk_dest
        self._pk_dest = dest
        n_free = int(self.sc[K.N_FREE])
        free = np.empty(old + extra, dtype=np.int64)
        free[:n_free] = self.free[:n_free]
        free[n_free:n_free + extra] = np.arange(old, old + extra)
        self.free = free
        self.sc[K.N_FREE] = n_free + extra

    def _collect(self) -> None:
        n = int(self.sc[K.N_DELIVERED])
        if n:
            pid, birth, when, _ = (a[:n].copy() for a in self._log)
            lo, hi = self.window
            tagged = (birth >= lo) & (birth < hi)
            if tagged.any():
                self.latencies.append(when[tagged] - birth[tagged])
            if self.trace:
                self.ejected_log.append((pid, when, birth))
            self.sc[K.N_DELIVERED] = 0
        n = int(self.sc[K.N_LOGGED])
        if n:
            self.injected_log.append(tuple(a[:n].copy() for a in self._inj))
            self.sc[K.N_LOGGED] = 0

    def run(self, cycles: int, inject: bool = True) -> None:
        """Advance ``cycles`` cycles."""
        left = int(cycles)
        if self.now + left >= TIME_LIMIT:
            raise InputError(f"flitsim: runs are limited to {TIME_LIMIT:,} cycles")
        while left > 0:
            done = K.run(left, inject, self.cfg, self.sc, self.rng_state, self.packet_rate,
                         self.traffic.hot_fraction, *self._net, self.traffic.table,
                         self.traffic.hot, self.vs, self.buf, self.pcount, self.rcount,
                         self._inj_credits,
                         self.ep_pkt, self.ep_left, self.ep_vc, self.head_time,
                         self.ptr_in, self.ptr_out, self.ptr_va, self._pool, self._pk_dest,
                         self.free,
                         self.ar_n, self.ar_q, self.ar_ip, self.ar_router, self.ar_pkt,
                         self.ar_flag, self.cr_n, self.cr_idx,
                         self.accepted_by_destination, *self._log, *self._inj)
            left -= done
            self._collect()
            if self.sc[K.STOP] == K.STOP_POOL_LOW:
                self._grow_pool(len(self._pool))

    def step(self, inject: bool = True) -> None:
        """Advance one cycle."""
        self.run(1, inject)

    def queue_age(self) -> float:
        """Mean over endpoints of the age (cycles) of the oldest queued packet (0 if none)."""
        return float(np.maximum(self.now - self.head_time, 0).mean())

    def run_until_empty(self, limit: int = 100_000) -> int:
        """Stop injecting and step until no packet is in the network; returns cycles used."""
        used = 0
        while self.in_network() > 0:
            if used >= limit:
                raise RuntimeError(f"flitsim: network not empty after {limit} cycles"
                                   " (deadlock?)")
            chunk = min(64, limit - used)
            self.run(chunk, inject=False)
            used += chunk
        return used


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
