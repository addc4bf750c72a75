"""The cycle-driven engine: input-queued VC routers, credit-based flow control, wormhole.

The per-cycle work runs in a compiled kernel looping over routers, ports and virtual
channels: ``kernel.run`` for the separable router (described here), ``islip_kernel.run``
for BookSim2's iSLIP router (described there); this module allocates their state and
collects their logs (``runs`` turns them into statistics). Separable router, per cycle:

1. credits sent as many cycles ago as their link's delay (``link_delay``,
   ``global_link_delay`` on a dragonfly's inter-group links, ``terminal_delay`` on
   injection links) arrive at the upstream output VC / endpoint;
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

(with global links, H*link_delay becomes the sum of the crossed links' delays).
A packet created at cycle t (Bernoulli, one chance per endpoint per cycle at rate/L
packets) may start at t; its head reaches the router at t + terminal_delay; the L flits
follow one per cycle. Latency includes source queueing.

Deadlock freedom: on a torus ring of radix > 2 the VCs of a port are split into two dateline
classes, the lower half ``[0, V//2)`` and the upper half ``[V//2, V)`` (``routing``'s
docstring: by default a packet entering a dimension uses the lower class and switches to
the upper one when it crosses the ring's wraparound link, for the rest of that dimension;
``dateline="dimension"`` is BookSim2's rule). Meshes, radix-2 rings and ejection ports use
every VC; a torus needs at least 2 VCs. Table-routed networks use hop-index or phase
classes (``network.TableNetwork``, ``routing``); fat trees' up/down routes need none.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from icnperf.errors import InputError
from icnperf.sim import kernel
from icnperf.sim import state as K
from icnperf.sim.config import RouterConfig
from icnperf.sim.routing import CLASS_DATELINE, CLASS_DIMENSION
from icnperf.sim.traffic import Traffic

MEMORY_LIMIT = 2 * 1024**3
"""Default largest memory estimate (bytes) a simulation may allocate."""

_NO_LIMIT = 1 << 30
"""Credits of a separable router's ejection VC (never run out)."""

I32 = np.int32
"""Integer type of the per-VC and per-slot state (keeps the hot state in cache)."""

TIME_LIMIT = 1 << 30
"""Longest run in cycles (times are held in 32-bit integers)."""

LOG_CYCLES = 256
"""Cycles of delivery / injection records the kernel may write before Python reads them."""


def speedup_ratio(router: RouterConfig) -> tuple[int, int]:
    """internal_speedup as a fraction num/den (denominator at most 64)."""
    ratio = Fraction(float(router.internal_speedup)).limit_denominator(64)
    return ratio.numerator, ratio.denominator


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
    link = max(router.link_delay, router.global_delay)
    term = router.terminal_delay
    if router.allocator == "islip":
        direct = st if router.internal_speedup == 1 else 0
        return direct + max(link, term) + 2, max(link + 2, direct + 2 * term + 3)
    return max(st + link, term) + 1, max(link, term) + 1


def estimate_memory(network, router: RouterConfig, cycles: int = 0) -> int:
    """Bytes the engine's state needs (buffers, VC state, delay lines, packets, logs), and
    with ``cycles`` (the run's length) the latency histogram of the tagged packets: one
    count per latency value, so at most one per cycle of the run whatever the number of
    packets (held with its doubling growth and a chunk's bincount: 24 bytes per cycle)."""
    R, P, N = network.routers, network.ports, network.endpoints
    vc_slots = R * P * router.vcs
    buffers = vc_slots * router.buffer * 8                # packet and flags, ready time
    per_vc = vc_slots * 4 * 10                            # VC state row
    per_port = R * P * 8 * 8
    per_endpoint = N * (8 * 8 + 8 * router.vcs)
    da, dc = _delays(router)
    flight = da * (R * P + N) * (8 + 4 + 1) + dc * (R * P + N) * 8
    # packet pool: every packet in the network holds a buffer slot or a link slot, or is
    # being injected; the pool doubles when low, so up to twice that many entries
    packets = 2 * (N + vc_slots * router.buffer + da * (R * P + N)) * (8 * 8 + 4)
    logs = 8 * LOG_CYCLES * N * 8
    table = R * R * 4 if getattr(network, "route_table", None) is not None else 0
    islip = 0
    if router.allocator == "islip":
        islip = vc_slots * 8
        if router.internal_speedup != 1:
            islip += 2 * vc_slots * router.buffer * (4 + 1 + 4 + 4 + 4)  # output, credit queues
    latencies = 3 * 8 * cycles
    return int(buffers + per_vc + per_port + per_endpoint + flight + packets + logs + table
               + islip + latencies)


def check_memory(network, router: RouterConfig, limit: int = MEMORY_LIMIT,
                 cycles: int = 0) -> int:
    """The memory estimate in bytes (with ``cycles``: the latency histogram of a run that
    long included); InputError naming it when it exceeds ``limit``."""
    need = estimate_memory(network, router, cycles)
    if need > limit:
        window = f", {cycles:,} cycles" if cycles else ""
        raise InputError(f"flitsim: {network.name} with {router.vcs} VCs x {router.buffer}"
                         f" flits{window} needs about {need / 1024**2:,.0f} MiB, more than the"
                         f" limit of {limit / 1024**2:,.0f} MiB")
    return need


class Simulation:
    """State of one network under one traffic pattern and injection rate; advance with step()
    or run().

    ``network`` is a ``GridNetwork``, a ``TableNetwork``, a ``trees.TreeNetwork`` or
    anything with ``tables()``, ``name``, ``routers``, ``ports``, ``endpoints`` and
    ``dateline_ports()``. ``rate`` is in flits per endpoint per cycle. ``traffic_options``
    go to ``Traffic`` (hotspot mix). ``trace=True`` records every injected packet (id,
    source, destination, birth) and every delivery (id, time, birth) for tests.
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
        self.islip = router.allocator == "islip"
        self.packet_rate = self.rate / router.packet_flits
        self.rng = np.random.default_rng(seed)
        self.traffic = Traffic(traffic, network, self.rng, **(traffic_options or {}))
        self.trace = trace
        tab = network.tables()
        R, P, V, B, N = tab.routers, tab.ports, router.vcs, router.buffer, tab.endpoints
        self.R, self.P, self.V, self.B, self.N = R, P, V, B, N
        rc, va, sa, st = router.stages
        da, dc = _delays(router)
        num, den = speedup_ratio(router)
        class_kind = tab.class_kind
        if class_kind == CLASS_DATELINE and router.dateline == "dimension":
            class_kind = CLASS_DIMENSION
        self.cfg = np.zeros(K.CONFIG, dtype=np.int64)
        for slot, value in ((K.C_R, R), (K.C_P, P), (K.C_V, V), (K.C_B, B), (K.C_N, N),
                            (K.C_ROUTE, tab.route_kind), (K.C_CLASS, class_kind),
                            (K.C_CLASSES, tab.classes), (K.C_RC, rc), (K.C_VA, va),
                            (K.C_SA, sa), (K.C_ST, st), (K.C_LINK, router.link_delay),
                            (K.C_TERM, router.terminal_delay),
                            (K.C_AGE, int(router.arbiter == "age")), (K.C_DA, da),
                            (K.C_DC, dc), (K.C_FLITS, router.packet_flits),
                            (K.C_TRAFFIC, self.traffic.kind), (K.C_WRAP, int(tab.wrap)),
                            (K.C_NONMIN, tab.nonminimal),
                            (K.C_TIES, int(router.ring_ties == "random")),
                            (K.C_GROUP, tab.group), (K.C_TREE_RANDOM, int(tab.tree_random)),
                            (K.C_INJECT_RANDOM, int(tab.inject_random)),
                            (K.C_SPEEDUP_NUM, num), (K.C_SPEEDUP_DEN, den),
                            (K.C_ONE_LINK, int(router.global_delay == router.link_delay))):
            self.cfg[slot] = value
        neighbour = tab.neighbour.ravel().astype(np.int64)
        valid = np.flatnonzero(neighbour >= 0)
        up_out = np.full(R * P, -1, dtype=np.int64)
        up_out[neighbour[valid] * P + tab.neighbour_port.ravel()[valid]] = valid
        link_class = np.ascontiguousarray(tab.link_class, dtype=np.int8).ravel()
        port_delay = np.where(link_class == 1, router.global_delay, router.link_delay)
        port_delay = np.where(tab.port_endpoint.ravel() >= 0, router.terminal_delay,
                              port_delay).astype(I32)
        credit_delay = np.where(up_out >= 0, port_delay[np.maximum(up_out, 0)],
                                router.terminal_delay).astype(I32)
        self._net = (tab.neighbour.ravel().astype(I32), tab.neighbour_port.ravel().astype(I32),
                     tab.port_endpoint.ravel().astype(I32), up_out.astype(I32),
                     tab.endpoint_router.astype(I32), tab.endpoint_port.astype(I32),
                     np.ascontiguousarray(tab.route_table, dtype=np.int16),
                     np.ascontiguousarray(tab.hop_table, dtype=np.int16),
                     tab.radices.astype(np.int64),
                     np.ascontiguousarray(tab.coords, dtype=I32),
                     tab.port_dim.astype(I32), tab.dateline.astype(np.int8),
                     tab.wraps.ravel().astype(np.int8), link_class,
                     np.ascontiguousarray(tab.rparams, dtype=np.int64), port_delay,
                     credit_delay)
        Q = R * P * V
        self.vs = np.zeros((Q, K.VS_COLUMNS), dtype=I32)
        self.vs[:, K.VS_OUT] = -1
        self.vs[:, K.VS_ROUTE] = -1
        self.vs[:, K.VS_CREDITS] = B
        if not self.islip:  # the iSLIP router's ejection VCs have real credits
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
        # the iSLIP router's own state (empty arrays for the separable router)
        islip = self.islip
        queued = islip and num != den
        QC, ports = (V * B, R * P) if queued else (0, 0)
        self.ptr_va = np.zeros(0 if islip else R * P, dtype=I32)
        self.sa_accept = np.zeros(R * P if islip else 0, dtype=I32)
        self.va_grant = np.zeros(Q if islip else 0, dtype=I32)
        self.va_accept = np.zeros(Q if islip else 0, dtype=I32)
        self.ep_last = np.full(N if islip else 0, -1, dtype=np.int64)
        self._queues = (np.zeros(ports * QC, dtype=I32), np.zeros(ports * QC, dtype=np.int8),
                        np.zeros(ports * QC, dtype=I32), np.zeros(ports * QC, dtype=I32),
                        np.zeros(ports, dtype=I32), np.zeros(ports, dtype=I32),
                        np.zeros(ports * QC, dtype=I32), np.zeros(ports, dtype=I32),
                        np.zeros(ports, dtype=I32), np.zeros(R if queued else 0, dtype=I32))
        self._kernel = kernel.run_islip if islip else kernel.run_separable
        # packet pool: one row per packet (kernel.PK_* columns) and the destinations
        self._pool = _aligned_zeros((0, K.PK_COLUMNS), np.int64)
        self._pk_dest = np.zeros(0, dtype=I32)
        self.free = np.zeros(0, dtype=np.int64)
        self.sc = np.zeros(K.SCALARS, dtype=np.int64)
        self.sc[K.TRACE] = int(trace)
        self._grow_pool(4 * N + 1024)
        slots = R * P + N
        self.ar_n = np.zeros(da, dtype=np.int64)
        self.ar_q = np.zeros(da * slots, dtype=I32)
        self.ar_ip = np.zeros(da * slots, dtype=I32)
        self.ar_router = np.repeat(np.arange(R, dtype=I32), P)  # router of input port
        self.ar_pkt = np.zeros(da * slots, dtype=np.int32)
        self.ar_flag = np.zeros(da * slots, dtype=np.int8)
        self.cr_n = np.zeros(dc, dtype=np.int64)
        self.cr_idx = np.zeros(dc * (slots if self.islip else R * P), dtype=I32)
        self.accepted_by_destination = np.zeros(N, dtype=np.int64)
        cap = LOG_CYCLES * N
        self._log = [np.zeros(cap, dtype=np.int64) for _ in range(4)]
        self._inj = [np.zeros(cap if trace else N, dtype=np.int64) for _ in range(4)]
        self.rng_state = np.array([self.rng.integers(0, 2**63 - 1)], dtype=np.uint64)
        # sources: creation time of each endpoint's oldest queued packet (Bernoulli arrivals)
        self.head_time = self.rng.geometric(self.packet_rate, size=N).astype(np.int64) - 1
        self.latency_counts = np.zeros(0, dtype=np.int64)  # tagged packets per latency
        self.injected_log: list[tuple] = []
        self.ejected_log: list[tuple] = []
        self._steps_per_cycle = max(1, math.ceil(num / den))

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

    def _count_latencies(self, counts: np.ndarray) -> None:
        """Add a chunk's latency histogram to the run's (grown by doubling): the log stays
        one count per latency value, however many packets are tagged."""
        have = self.latency_counts
        if len(counts) > len(have):
            grown = np.zeros(max(len(counts), 2 * len(have)), dtype=np.int64)
            grown[:len(have)] = have
            self.latency_counts = have = grown
        have[:len(counts)] += counts

    def _collect(self) -> None:
        n = int(self.sc[K.N_DELIVERED])
        if n:
            pid, birth, when, _ = (a[:n].copy() for a in self._log)
            lo, hi = self.window
            tagged = (birth >= lo) & (birth < hi)
            if tagged.any():
                self._count_latencies(np.bincount(when[tagged] - birth[tagged]))
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
        if (self.now + left) * self._steps_per_cycle >= TIME_LIMIT:
            raise InputError(f"flitsim: runs are limited to"
                             f" {TIME_LIMIT // self._steps_per_cycle:,} cycles")
        while left > 0:
            done = self._kernel(left, inject, self.cfg, self.sc, self.rng_state,
                                self.packet_rate, self.traffic.hot_fraction, *self._net,
                                self.traffic.table, self.traffic.hot, self.vs, self.buf,
                                self.pcount, self.rcount, self._inj_credits, self.ep_pkt,
                                self.ep_left, self.ep_vc, self.ep_last, self.head_time,
                                self.ptr_in, self.ptr_out, self.ptr_va, self.sa_accept,
                                self.va_grant, self.va_accept, self._pool, self._pk_dest,
                                self.free, self.ar_n, self.ar_q, self.ar_ip, self.ar_router,
                                self.ar_pkt, self.ar_flag, self.cr_n, self.cr_idx,
                                *self._queues, self.accepted_by_destination, *self._log,
                                *self._inj)
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
