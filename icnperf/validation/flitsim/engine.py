"""The cycle-driven engine: input-queued VC routers with credit-based flow control.

Every cycle updates all routers, ports and virtual channels at once with NumPy array
operations (no Python loop over routers). Per cycle:

1. credits sent ``link_delay`` (router-router) or ``terminal_delay`` (injection link) cycles
   ago arrive at the upstream output port / endpoint;
2. flits sent ``link_delay`` / ``terminal_delay`` cycles ago are written into the input VC
   buffer their credit reserved; each becomes *ready* ``router_delay`` cycles later;
3. allocation: the ready head flit of each input VC asks for its DOR output port and a
   downstream VC of its class with a credit; each input port grants one of its VCs, then
   each output port grants one of the requesting input ports — a separable input-first
   allocator of one iteration, no crossbar speedup. Priority is round-robin (rotating
   pointers advanced past each winner) or, with ``arbiter="age"``, oldest packet first;
4. winners leave: the input buffer frees a slot (a credit goes upstream), network flits take
   a credit of the chosen downstream VC and go onto the link; ejected flits reach their
   endpoint ``terminal_delay`` cycles later;
5. each endpoint with a queued packet and an injection-VC credit sends its oldest packet.

Timing conventions (so the zero-load latency of a packet crossing H channels is
``2*terminal_delay + (H+1)*router_delay + H*link_delay`` cycles): a packet created at cycle
t (Bernoulli, one chance per endpoint per cycle) may be sent at cycle t; it reaches its
router at t + terminal_delay; a flit arriving at a router at cycle a may leave it at cycle
a + router_delay at the earliest; a link delivers it link_delay cycles after it leaves;
ejection delivers it terminal_delay cycles after it leaves the last router. Latency is from
creation to delivery, source queueing included.

Deadlock freedom: on a torus ring of radix > 2 the VCs of a port are split into two dateline
classes, the lower half ``[0, V//2)`` and the upper half ``[V//2, V)``. A flit that enters a
dimension uses the lower class and switches to the upper one when it crosses the ring's
wraparound link (between coordinates k-1 and 0), for the rest of that dimension. Meshes,
radix-2 rings and injection ports use every VC. A torus therefore needs at least 2 VCs.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from icnperf.errors import InputError
from icnperf.validation.flitsim.network import GridNetwork
from icnperf.validation.flitsim.traffic import Traffic

MEMORY_LIMIT = 2 * 1024**3
"""Default largest memory estimate (bytes) a simulation may allocate."""

_NO_LIMIT = np.iinfo(np.int64).max // 4

ARBITERS = ("round-robin", "age")
"""Switch-allocator priority: rotating per input/output port, or oldest packet first."""


@dataclass(frozen=True)
class RouterConfig:
    """Router micro-architecture and link timing, all in cycles / flits."""

    vcs: int = 2
    buffer: int = 8
    router_delay: int = 1
    link_delay: int = 1
    terminal_delay: int = 1
    packet_flits: int = 1
    arbiter: str = "round-robin"

    def check(self, network: GridNetwork) -> None:
        """Raise InputError for a configuration the engine cannot run."""
        for name in ("vcs", "buffer", "router_delay", "link_delay", "terminal_delay",
                     "packet_flits"):
            value = getattr(self, name)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
                raise InputError(f"flitsim: {name.replace('_', ' ')} must be an integer >= 1,"
                                 f" got {value!r}")
        if self.arbiter not in ARBITERS:
            raise InputError(f"flitsim: unknown arbiter {self.arbiter!r} (choose from"
                             f" {', '.join(ARBITERS)})")
        if self.packet_flits != 1:
            raise InputError("flitsim: only 1-flit packets are simulated in this version"
                             f" (got {self.packet_flits} flits per packet)")
        if network.dateline_ports().any() and self.vcs < 2:
            raise InputError("flitsim: a torus ring of radix > 2 needs at least 2 VCs per"
                             " port (dateline classes keep dimension-order routing"
                             " deadlock-free)")


def estimate_memory(network: GridNetwork, router: RouterConfig) -> int:
    """Bytes the engine's state needs (buffers, credits, route table, per-endpoint state)."""
    vc_slots = network.routers * network.ports * router.vcs
    buffers = vc_slots * router.buffer * 6 * 8  # dest, birth, ready, id, output, class
    per_vc = vc_slots * (8 + 8 + 8 + 8)                   # head, count, credits, masks
    per_port = network.routers * network.ports * 8 * 8
    per_endpoint = network.routers * 8 * 8
    # in-flight flits on links and their credits: at most one per port per cycle of delay
    flight = network.routers * network.ports * (router.link_delay + router.terminal_delay) * 64
    coords = network.routers * network.dims * 8 * 4  # coordinates and route temporaries
    return int(buffers + per_vc + per_port + per_endpoint + flight + coords
               + network.table_bytes + network.route_scratch_bytes)


def check_memory(network: GridNetwork, router: RouterConfig,
                 limit: int = MEMORY_LIMIT) -> int:
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
    the worst flow).
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

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class Simulation:
    """State of one network under one traffic pattern and injection rate; advance with step().

    ``trace=True`` records every injected packet (id, source, destination, birth) and every
    delivery (id, time) for tests.
    """

    def __init__(self, network: GridNetwork, router: RouterConfig, traffic: str, rate: float,
                 seed: int = 0, memory_limit: int = MEMORY_LIMIT, trace: bool = False):
        router.check(network)
        if not isinstance(rate, (int, float, np.floating, np.integer)) or not 0 < rate <= 1:
            raise InputError(f"flitsim: injection rate must be in (0, 1] flits/endpoint/cycle,"
                             f" got {rate!r}")
        check_memory(network, router, memory_limit)
        self.network, self.router, self.rate = network, router, float(rate)
        self.rng = np.random.default_rng(seed)
        self.traffic = Traffic(traffic, network, self.rng)
        self.trace = trace
        R, P, V, B = network.routers, network.ports, router.vcs, router.buffer
        self.R, self.P, self.V, self.B = R, P, V, B
        E = network.terminal
        neighbour, wraps = network.links()
        O = R * P
        # per output port o = r*P + p
        flat_nbr = neighbour.ravel()
        self.o_down = np.where(flat_nbr >= 0, flat_nbr * P + np.tile(np.arange(P), R), -1)
        self.o_wrap = wraps.ravel().astype(np.int8)
        self.o_dateline = np.tile(network.dateline_ports(), R)
        # per input port ip = r*P + p: the upstream output port feeding it (-1: terminal)
        self.ip_up = np.full(O, -1, dtype=np.int64)
        valid = flat_nbr >= 0
        self.ip_up[self.o_down[valid]] = np.flatnonzero(valid)
        port_dim = np.arange(P) // 2
        port_dim[E] = -1
        self.ip_dim = np.tile(port_dim, R)
        self.o_dim = self.ip_dim
        # VC class masks: 0 lower dateline half, 1 upper half, 2 every VC
        half = V // 2
        self.vc_mask = np.zeros((3, V), dtype=bool)
        self.vc_mask[0, :half] = True
        self.vc_mask[1, half:] = True
        self.vc_mask[2, :] = True
        self.half = half
        # credits per (output port, VC); ejection ports never run out
        self.credits = np.full((O, V), B, dtype=np.int64)
        self.credits.reshape(R, P, V)[:, E, :] = _NO_LIMIT
        self.inj_credits = np.full((R, V), B, dtype=np.int64)
        # input VC buffers, q = ip*V + v, slot = q*B + position
        Q = O * V
        self.head = np.zeros(Q, dtype=np.int64)
        self.count = np.zeros(Q, dtype=np.int64)
        self.buf_dest = np.zeros(Q * B, dtype=np.int64)
        self.buf_birth = np.zeros(Q * B, dtype=np.int64)
        self.buf_ready = np.zeros(Q * B, dtype=np.int64)
        self.buf_id = np.zeros(Q * B, dtype=np.int64)
        # lookahead routing: each buffered flit's output port (r*P + p) and VC class
        self.buf_out = np.zeros(Q * B, dtype=np.int64)
        self.buf_cls = np.zeros(Q * B, dtype=np.int64)
        self.ptr_in = np.zeros(O, dtype=np.int64)
        self.ptr_out = np.zeros(O, dtype=np.int64)
        # delay lines: one batch per cycle, consumed after the delay
        self.flit_line: deque = deque()
        self.inj_line: deque = deque()
        self.credit_line: deque = deque()
        self.inj_credit_line: deque = deque()
        # sources: creation time of each endpoint's oldest queued packet (Bernoulli arrivals)
        self.head_time = self.rng.geometric(self.rate, size=R).astype(np.int64) - 1
        self.now = 0
        self.next_id = 0
        self.injected = 0
        self.ejected = 0
        self.flit_hops = 0
        self.window = (0, 0)
        self.measured_in_flight = 0
        self.latencies: list[np.ndarray] = []
        self.accepted_in_window = 0
        self.accepted_by_destination = np.zeros(R, dtype=np.int64)
        self.injected_log: list[tuple] = []
        self.ejected_log: list[tuple] = []
        self._big = np.iinfo(np.int64).max
        self._best_in = np.full(O, self._big, dtype=np.int64)
        self._best_out = np.full(O, self._big, dtype=np.int64)

    # -- one cycle -------------------------------------------------------------------------

    def in_network(self) -> int:
        """Packets injected and not yet delivered."""
        return self.injected - self.ejected

    def step(self, inject: bool = True) -> None:
        """Advance one cycle."""
        t = self.now
        rc = self.router
        B, V, P = self.B, self.V, self.P
        # 1. credits
        if len(self.credit_line) == rc.link_delay:
            idx = self.credit_line.popleft()
            if idx is not None:
                self.credits.reshape(-1)[idx] += 1
        if len(self.inj_credit_line) == rc.terminal_delay:
            idx = self.inj_credit_line.popleft()
            if idx is not None:
                self.inj_credits.reshape(-1)[idx] += 1
        # 2. arrivals into input buffers (route and VC class computed on arrival)
        batches = []
        if len(self.flit_line) == rc.link_delay:
            batches.append(self.flit_line.popleft())
        if len(self.inj_line) == rc.terminal_delay:
            batches.append(self.inj_line.popleft())
        for batch in batches:
            if batch is None:
                continue
            q, dest, birth, pid = batch
            slot = q * B + (self.head[q] + self.count[q]) % B
            self.buf_dest[slot] = dest
            self.buf_birth[slot] = birth
            self.buf_id[slot] = pid
            self.buf_ready[slot] = t + rc.router_delay
            ip = q // V
            r = ip // P
            o = r * P + self.network.route(r, dest)
            self.buf_out[slot] = o
            wrap = self.o_wrap[o]
            same_dim = self.ip_dim[ip] == self.o_dim[o]
            current = ((q - ip * V) >= self.half).astype(np.int8)
            self.buf_cls[slot] = np.where(self.o_dateline[o],
                                          np.where(same_dim, current | wrap, wrap), 2)
            self.count[q] += 1
        # 3. allocation
        credit_batch = inj_credit_batch = flit_batch = None
        cand = np.flatnonzero(self.count)
        if len(cand):
            slot = cand * B + self.head[cand]
            o = self.buf_out[slot]
            rows = self.credits[o]
            avail = (rows > 0) & self.vc_mask[self.buf_cls[slot]]
            keep = np.flatnonzero(avail.any(axis=1) & (self.buf_ready[slot] <= t))
            cand, slot, o = cand[keep], slot[keep], o[keep]
        if len(cand):
            age = rc.arbiter == "age"
            span = t + 1
            # input arbitration: one VC per input port, round-robin from ptr_in
            ip = cand // V
            v = cand - ip * V
            if age:
                birth = self.buf_birth[slot]
                key = (ip * span + birth) * V + v   # oldest first, then lowest VC
            else:
                key = cand + (v - self.ptr_in[ip]) % V - v   # ip*V + rotated VC
            best = self._best_in
            np.minimum.at(best, ip, key)
            win = key == best[ip]
            best[ip] = self._big
            # output arbitration: one input port per output port, round-robin from ptr_out
            sel = np.flatnonzero(win)
            ip, v, o = ip[sel], v[sel], o[sel]
            p_in = ip % P
            if age:
                key = (o * span + birth[sel]) * P + p_in
            else:
                key = o * P + (p_in - self.ptr_out[o]) % P
            best = self._best_out
            np.minimum.at(best, o, key)
            win = key == best[o]
            best[o] = self._big
            sel = sel[win]
            ip, v, o, p_in = ip[win], v[win], o[win], p_in[win]
            cand, slot = cand[sel], slot[sel]
            self.ptr_in[ip] = (v + 1) % V
            self.ptr_out[o] = (p_in + 1) % P
            # leave the input buffer; its credit goes upstream
            self.head[cand] = (self.head[cand] + 1) % B
            self.count[cand] -= 1
            up = self.ip_up[ip]
            net_in = up >= 0
            if net_in.all():
                credit_batch = up * V + v
            else:
                credit_batch = up[net_in] * V + v[net_in]
                term = ~net_in
                inj_credit_batch = (ip[term] // P) * V + v[term]
            birth = self.buf_birth[slot]
            pid = self.buf_id[slot]
            down = self.o_down[o]
            eject = down < 0
            if eject.any():
                self._deliver(t + rc.terminal_delay, birth[eject], pid[eject],
                              self.buf_dest[slot[eject]])
                go = np.flatnonzero(~eject)
                o, down, slot, birth, pid = o[go], down[go], slot[go], birth[go], pid[go]
            if len(o):
                rows = self.credits[o]
                avail = (rows > 0) & self.vc_mask[self.buf_cls[slot]]
                vsel = np.argmax(np.where(avail, rows, -1), axis=1)
                self.credits[o, vsel] -= 1
                flit_batch = (down * V + vsel, self.buf_dest[slot], birth, pid)
                self.flit_hops += len(vsel)
        self.credit_line.append(credit_batch)
        self.inj_credit_line.append(inj_credit_batch)
        self.flit_line.append(flit_batch)
        # 5. injection
        inj_batch = None
        if inject:
            src = np.flatnonzero(self.head_time <= t)
            if len(src):
                rows = self.inj_credits[src]
                ok = rows.max(axis=1) > 0
                src, rows = src[ok], rows[ok]
                if len(src):
                    vsel = np.argmax(rows, axis=1)
                    self.inj_credits[src, vsel] -= 1
                    birth = self.head_time[src].copy()
                    dest = self.traffic.destinations(src)
                    n = len(src)
                    pid = np.arange(self.next_id, self.next_id + n, dtype=np.int64)
                    self.next_id += n
                    self.injected += n
                    lo, hi = self.window
                    self.measured_in_flight += int(np.count_nonzero((birth >= lo) & (birth < hi)))
                    self.head_time[src] += self.rng.geometric(self.rate, size=n)
                    inj_batch = ((src * P + self.network.terminal) * V + vsel, dest, birth, pid)
                    if self.trace:
                        self.injected_log.append((pid, src, dest, birth))
        self.inj_line.append(inj_batch)
        self.now = t + 1

    def _deliver(self, when: int, birth: np.ndarray, pid: np.ndarray,
                 dest: np.ndarray) -> None:
        n = len(birth)
        self.ejected += n
        lo, hi = self.window
        tagged = (birth >= lo) & (birth < hi)
        if tagged.any():
            self.latencies.append(when - birth[tagged])
            self.measured_in_flight -= int(np.count_nonzero(tagged))
        if lo <= when < hi:
            self.accepted_in_window += n
            self.accepted_by_destination[dest] += 1  # one ejection port per endpoint
        if self.trace:
            self.ejected_log.append((pid, np.full(n, when, dtype=np.int64), birth))

    # -- phases ----------------------------------------------------------------------------

    def queue_age(self) -> float:
        """Mean over endpoints of the age (cycles) of the oldest queued packet (0 if none)."""
        return float(np.maximum(self.now - self.head_time, 0).mean())

    def run_until_empty(self, limit: int = 100_000) -> int:
        """Stop injecting and step until no packet is in the network; returns cycles used."""
        for used in range(limit):
            if self.in_network() == 0:
                return used
            self.step(inject=False)
        raise RuntimeError(f"flitsim: network not empty after {limit} cycles (deadlock?)")


def simulate(network: GridNetwork, traffic: str, rate: float, router: RouterConfig | None = None,
             warmup: int = 10_000, measure: int = 5_000, drain: int = 5_000, seed: int = 0,
             memory_limit: int = MEMORY_LIMIT) -> SimResult:
    """One run: warm-up, measurement window (packets created in it are tagged), drain.

    The drain keeps injecting (so tagged packets see the same load) and stops early once
    every tagged packet is delivered. Saturation: accepted throughput more than 5 % below
    the offered load in the window, or the source queues' oldest packets ageing by more
    than 5 % of the window length over it, or tagged packets still undelivered at the end.
    """
    router = router or RouterConfig()
    for name, value in (("warmup", warmup), ("measure", measure), ("drain", drain)):
        if not isinstance(value, (int, np.integer)) or value < (1 if name == "measure" else 0):
            raise InputError(f"flitsim: {name} must be a whole number of cycles"
                             f" ({'>= 1' if name == 'measure' else '>= 0'}), got {value!r}")
    sim = Simulation(network, router, traffic, rate, seed=seed, memory_limit=memory_limit)
    start = time.perf_counter()
    lo, hi = warmup, warmup + measure
    sim.window = (lo, hi)
    for _ in range(warmup):
        sim.step()
    age_start = sim.queue_age()
    for _ in range(measure):
        sim.step()
    age_end = sim.queue_age()
    for _ in range(drain):
        if sim.measured_in_flight == 0 and bool(np.all(sim.head_time >= hi)):
            break
        sim.step()
    wall = time.perf_counter() - start
    lat = np.concatenate(sim.latencies) if sim.latencies else np.zeros(0, dtype=np.int64)
    queued = _queued_in_window(sim, lo, hi)
    delivered_tagged = len(lat)
    total_tagged = delivered_tagged + sim.measured_in_flight + queued
    offered = total_tagged / (network.routers * measure)
    accepted = sim.accepted_in_window / (network.routers * measure)
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
        flit_hops=sim.flit_hops, wall_seconds=wall)


def _queued_in_window(sim: Simulation, lo: int, hi: int) -> int:
    """Packets created in [lo, hi) still in the source queues (not yet injected).

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
        head = head + rng.geometric(sim.rate, size=len(head))
        head = head[head < min(hi, sim.now)]
    return count
