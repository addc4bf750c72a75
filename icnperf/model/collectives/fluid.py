"""Messages as fluid flows sharing links max-min fairly: the time of a set of messages whose
sizes or start times differ, or that overlap (a linear fan-in, a root's eager sends).

Model (the flow-level model of SimGrid's CM02, Velho & Legrand 2009, and of Bertsekas &
Gallager's max-min fairness, Data Networks §6.5.2): a message of m payload bytes is W(m)
wire bytes (network.wire_bytes: payload plus header flits). Released at time t0, it first
waits its path latency (software overhead O, injection, h + 1 routers, h links, ejection:
network.path_latency + O, plus ``step_overhead`` O_step when the machine sets
software.mpi_step_overhead: each message of a chain of dependent messages is one step, as
a synchronous step charges it) and then sends its W bytes through every resource of its
route at a common rate; at every instant the rates are the max-min fair allocation
(progressive filling) over

* each router-router channel of its route (capacity B_link; a random-routed fat tree's
  pod of C_l channels is one resource of C_l·B_link: the flow is spread over them),
* the endpoint's own channel to its router off a torus, up at the source and down at the
  destination (capacity B_link),
* the sending and receiving hosts' interfaces (capacity B_host, carrying the payload: a
  flow at rate r uses r·m/W of it).

A flow ends when its W bytes are through; with ``after`` a flow is released when another
ends (an eager send leaving as soon as its sender has the data). A host posts its own
messages one after another: its j-th message of a set (in the order given, j = 0, 1, ..)
is released j·O/2 late, the sending half of the overhead (LogGP's o; Culler et al. 1993),
and it takes in the messages it receives one after another, O/2 each, after its own sends
of the set are posted (:func:`received_in_series`). Dragonflies and megaflies
are mapped with their endpoint channels and hosts only (their router channels have no
per-flow routes here). Numeric only; cut-through only. Exact for the model as stated: the
allocation is recomputed at every release, start and end.
"""

from __future__ import annotations

import numpy as np

from icnperf.errors import InputError
from icnperf.model import network
from icnperf.model.collectives.layout import Layout


def _torus_channels(radices, src, dst, ties):
    """(flow, channel key) of every channel of the dimension-order routes (dimension 0
    first, minimal direction per ring, a half-ring tie by ``ties`` as torus.dor_traffic)."""
    k = np.asarray(radices, dtype=np.int64)
    dims = len(k)
    strides = np.concatenate(([1], np.cumprod(k)[:-1]))
    coords = (src[:, None] // strides) % k
    target = (dst[:, None] // strides) % k
    forward = (target - coords) % k
    plus = 2 * forward < k
    tie = 2 * forward == k
    plus |= tie & (((coords % 2 == 0) | (k == 2)) if ties == "split" else True)
    steps = np.where(plus, forward, k - forward)
    flows, keys = [], []
    index = np.arange(src.size, dtype=np.int64)
    here = coords.copy()
    for i in range(dims):
        for step in range(int(steps[:, i].max(initial=0))):
            moving = steps[:, i] > step
            node = (here[moving] * strides).sum(axis=1)
            direction = np.where(plus[moving, i], 0, 1)
            flows.append(index[moving])
            keys.append((node * dims + i) * 2 + direction)
            here[moving, i] = (here[moving, i] + np.where(plus[moving, i], 1, -1)) % k[i]
    if not flows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(flows), np.concatenate(keys)


def flow_resources(layout: Layout, src, dst):
    """The resources of flows src[i] -> dst[i] (endpoint indices): (flow, resource,
    kind, width) arrays, kind 0 = a channel (wire bytes), 1 = a host interface (payload),
    width = channels behind the resource; resources numbered from 0."""
    src = np.asarray(src, dtype=np.int64)
    dst = layout.same_node_as_source(src, dst)
    size = layout.network_endpoints
    index = np.arange(src.size, dtype=np.int64)
    flows = [index, index]
    keys = [src, size + dst]
    kinds = [np.ones(src.size, dtype=np.int64)] * 2
    widths = [np.ones(src.size)] * 2
    base = 2 * size
    if not layout.is_torus:
        flows += [index, index]
        keys += [base + src, base + size + dst]
        kinds += [np.zeros(src.size, dtype=np.int64)] * 2
        widths += [np.ones(src.size)] * 2
        base += 2 * size
    if layout.is_torus:
        f, k = _torus_channels(layout.radices, src, dst, layout.ring_ties or "plus")
        wd = np.ones(f.size)
    elif layout.tree is not None:
        from icnperf.model.topology import tree_routing

        m, w, p = layout.tree
        f, k, wd = tree_routing.channel_flows(m, w, p, layout.tree_routing or "random",
                                              layout.tree_points(src), layout.tree_points(dst))
    else:
        f, k, wd = (np.zeros(0, dtype=np.int64),) * 2 + (np.zeros(0),)
    flows.append(f)
    keys.append(base + k)
    kinds.append(np.zeros(f.size, dtype=np.int64))
    widths.append(wd)
    keys = np.concatenate(keys)
    _, resource = np.unique(keys, return_inverse=True)
    return (np.concatenate(flows), resource.ravel(), np.concatenate(kinds),
            np.concatenate(widths))


_CACHE: dict = {}
"""flow_resources and hops of flow sets already mapped (every size reuses them)."""


def _key(what: str, layout: Layout, src, dst):
    return (what, layout, src.tobytes(), dst.tobytes())


def _cached_resources(layout: Layout, src, dst):
    key = _key("resources", layout, src, dst)
    if key not in _CACHE:
        if len(_CACHE) >= 256:
            _CACHE.clear()
        _CACHE[key] = flow_resources(layout, src, dst)
    return _CACHE[key]


def _cached_hops(layout: Layout, src, dst, tree_routing):
    key = _key("hops", layout, src, dst)
    if key not in _CACHE:
        if len(_CACHE) >= 256:
            _CACHE.clear()
        _CACHE[key] = _hops(layout, src, dst, tree_routing)
    return _CACHE[key]


def _maxmin(live, flow, resource, coefficient, capacity):
    """Max-min fair rates (wire bytes/s) of the ``live`` flows by progressive filling."""
    rate = np.zeros(live.size)
    frozen = ~live
    remaining = capacity.copy()
    while not frozen.all():
        use = ~frozen[flow]
        demand = np.bincount(resource[use], weights=coefficient[use],
                             minlength=capacity.size)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(demand > 0, remaining / demand, np.inf)
        step = share.min()
        if not np.isfinite(step):
            break
        rate[~frozen] += step
        remaining = remaining - step * demand
        full = share <= step * (1 + 1e-9)
        frozen[flow[use & full[resource]]] = True
    return rate


def flow_times(layout: Layout, src, dst, payload, params, *, release=None, after=None):
    """End time (s) of every flow src[i] -> dst[i] (endpoints) of ``payload[i]`` bytes
    (module docstring). ``release[i]``: earliest start (default 0); ``after[i]``: index of
    the flow whose end releases it (-1: none)."""
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    count = src.size
    payload = np.broadcast_to(np.asarray(payload, dtype=float), (count,)).copy()
    packet = {key: params[key] for key in ("flit_size", "packet_max_flits",
                                           "packet_header_flits")}
    wire = np.asarray(network.wire_bytes(payload, **packet), dtype=float)
    from icnperf.model.topology import tree_routing

    hops = _cached_hops(layout, src, dst, tree_routing)
    software = params.get("software_overhead", 0) + params.get("step_overhead", 0)
    latency = software + np.asarray(network.path_latency(
        hops, injection_latency=params["injection_latency"],
        ejection_latency=params["ejection_latency"], router_latency=params["router_latency"],
        link_latency=params["link_latency"]), dtype=float)
    flow, resource, kind, width = _cached_resources(layout, src, dst)
    capacity = np.zeros(resource.max() + 1)
    capacity[resource] = np.where(kind == 1, params["host_bandwidth"],
                                  params["link_bandwidth"] * width)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(wire > 0, payload / wire, 0.0)
    coefficient = np.where(kind == 1, ratio[flow], 1.0)
    start = np.full(count, np.inf)
    release = np.zeros(count) if release is None else np.asarray(release, dtype=float)
    # a sender's CPU posts its messages one after another: the j-th of a source (in the
    # order given) waits j sending halves of the software overhead, O/2 each (LogGP's o)
    order = np.argsort(src, kind="stable")
    rank_in_source = np.empty(count, dtype=np.int64)
    first = np.searchsorted(src[order], src[order])
    rank_in_source[order] = np.arange(count) - first
    release = release + rank_in_source * params.get("software_overhead", 0) / 2
    after = np.full(count, -1) if after is None else np.asarray(after)
    ready = after < 0
    start[ready] = np.asarray(release, dtype=float)[ready] + latency[ready]
    if not np.isfinite(start[ready]).all():
        raise InputError("collective: a flow's start time is beyond floating point (software "
                         "overhead or latency too large for the messages one core posts)")
    left = wire.copy()
    end = np.full(count, np.inf)
    now = 0.0
    done = np.zeros(count, dtype=bool)
    while not done.all():
        sending = (start <= now * (1 + 1e-12) + 1e-30) & ~done
        rate = _maxmin(sending, flow, resource, coefficient, capacity)
        with np.errstate(divide="ignore", invalid="ignore"):
            finish = np.where(sending & (rate > 0), now + left / rate, np.inf)
        finish[sending & (left <= 0)] = now
        upcoming = start[(start > now * (1 + 1e-12) + 1e-30) & ~done]
        next_time = min(finish.min(), upcoming.min(initial=np.inf))
        if not np.isfinite(next_time):
            if (sending & (rate > 0) & (left > 0)).any():
                raise InputError("collective: a flow's end time is beyond floating point "
                                 "(bandwidths too small for the bytes sent)")
            raise ValueError("flows wait on flows that never end")
        left = np.where(sending, left - rate * (next_time - now), left)
        now = next_time
        ending = sending & (finish <= now * (1 + 1e-12) + 1e-30)
        done |= ending
        end[ending] = now
        for i in np.flatnonzero(ending):
            waiting = after == i
            start[waiting] = now + latency[waiting]
    posted = np.where(after < 0, release, -np.inf)
    return received_in_series(end, src, dst, posted, params.get("software_overhead", 0) / 2)


def received_in_series(end, src, dst, posted, o):
    """End times (s) once each host's core takes in its messages one after another (LogGP's
    o_recv per message, Culler et al. 1993; the core's sends and receives in series, as
    LogGOPSim simulates them, Hoefler, Schneider, Lumsdaine 2010).

    ``end[i]`` is flow i's end with the receive overhead o charged once in its latency;
    its bytes are in by a_i = end[i] - o. The host dst[i] receives its flows in order of
    arrival: done_i = max(a_i, free) + o, ``free`` the end of the previous receive, at first
    the end of the host's own sends posted in this set at given times (``posted[i]`` of the
    flows it sources, -inf for a send released by another flow's end: one that waits for
    its receive): max(posted) + o. A host receiving one message is unchanged (a linear
    broadcast, the eager binomial broadcast); the root of a linear reduce of n messages
    arriving together finishes (n - 1)·o later; a linear all-to-all's rank takes its
    P - 1 messages after posting its P - 1 sends.
    """
    end = np.asarray(end, dtype=float)
    if o == 0 or end.size == 0:
        return end
    out = end.copy()
    free: dict[int, float] = {}
    for host, time in zip(np.asarray(src).tolist(), np.asarray(posted, dtype=float).tolist()):
        free[host] = max(free.get(host, -np.inf), time + o)
    arrival = end - o
    for i in np.lexsort((arrival, dst)).tolist():
        host = int(dst[i])
        out[i] = max(arrival[i], free.get(host, -np.inf)) + o
        free[host] = out[i]
    return out


def _hops(layout: Layout, src, dst, tree_routing):
    if layout.is_torus:
        from icnperf.model.topology import torus

        k = np.asarray(layout.radices)
        a = torus.endpoint_coordinates(k, src)
        b = torus.endpoint_coordinates(k, dst)
        forward = (b - a) % k
        return np.minimum(forward, k - forward).sum(axis=1)
    if layout.tree is not None:
        m, w, _ = layout.tree
        dst = layout.same_node_as_source(src, dst)
        return tree_routing.hops(m, w, layout.tree_points(src), layout.tree_points(dst))
    if layout.network is None:
        return np.ones(src.size)
    return np.array([layout.traffic([a], [b])[0] if a != b else 0
                     for a, b in zip(src.tolist(), dst.tolist())], dtype=float)


# --- algorithms timed as flows ----------------------------------------------------------


FLOW_RANKS = 256
"""Most ranks of an algorithm timed as flows (the allocation is recomputed at every event).
Above it linear and reduce-bcast are not offered and an eager binomial broadcast keeps the
synchronous steps (its result says so)."""

MAX_FLOWS = 4096
"""Most flows of one set: the linear all-gather's and all-to-all's P(P-1) limit them to 64
ranks."""

RANK_LIMITS = {"linear": FLOW_RANKS, "reduce-bcast": FLOW_RANKS, "pairwise": 4096}
"""Most ranks each MPI-library algorithm is evaluated on (pairwise: P - 1 mapped steps)."""


def rank_limit(algorithm: str, operation: str | None = None) -> int | None:
    """Most ranks ``algorithm`` (for ``operation``) is evaluated on; None: no limit."""
    if algorithm == "linear" and operation in ("allgather", "alltoall"):
        ranks = 2
        while (ranks + 1) * ranks <= MAX_FLOWS:
            ranks += 1
        return ranks
    return RANK_LIMITS.get(algorithm)


def offered(algorithm: str, ranks: int, operation: str | None = None) -> bool:
    """Whether ``algorithm`` is evaluated on ``ranks`` ranks (:func:`rank_limit`)."""
    limit = rank_limit(algorithm, operation)
    return limit is None or ranks <= limit


def is_numeric(params: dict) -> bool:
    """True when every network parameter is a plain number (not a SymPy symbol)."""
    keys = ("link_bandwidth", "host_bandwidth", "link_latency", "router_latency",
            "injection_latency", "ejection_latency", "flit_size")
    return all(isinstance(params[k], (int, float, np.integer, np.floating)) for k in keys)


def _binomial_bcast_flows(p: int):
    """(sources, destinations, after) of MPICH's binomial broadcast from rank 0: rank r
    (received from r - lowbit(r)) sends to r + mask for every mask below lowbit(r) (below
    the smallest power of two >= P at the root) with r + mask < P; ``after`` is the index
    of the flow that brings r its data (-1 at the root)."""
    src, dst, after = [], [], []
    incoming = {0: -1}
    top = 1 << (p - 1).bit_length()
    queue = [0]
    while queue:
        r = queue.pop(0)
        low = r & -r if r else top
        mask = low >> 1
        while mask:
            child = r + mask
            if child < p:
                incoming[child] = len(src)
                src.append(r)
                dst.append(child)
                after.append(incoming[r])
                queue.append(child)
            mask >>= 1
    return np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), np.array(after)


def eager_applies(algorithm: str, operation: str, m: float, params: dict) -> bool:
    """True when the binomial broadcast (of ``binomial`` broadcast / all-reduce or of
    ``reduce-bcast``) sends m bytes eagerly: ``eager_limit`` is set and m <= it."""
    limit = params.get("eager_limit")
    return (limit is not None and m <= limit and operation in ("broadcast", "allreduce")
            and algorithm in ("binomial", "reduce-bcast"))


def uses_flows(algorithm: str, operation: str, m, params: dict, layout: Layout) -> bool:
    """Whether :func:`algorithm_time` times this case (numeric, cut-through, one process
    per node): the linear algorithms and reduce-bcast always, the binomial broadcast when
    some size is sent eagerly."""
    if not (is_numeric(params) and not params.get("store_and_forward")
            and layout.processes_per_node == 1 and layout.ranks <= FLOW_RANKS):
        return False
    if algorithm in ("linear", "reduce-bcast"):
        return True
    sizes = np.atleast_1d(np.asarray(m, dtype=float))
    return any(eager_applies(algorithm, operation, float(x), params) for x in sizes)


def _time_one(algorithm: str, operation: str, m: float, layout: Layout, params: dict,
              step_time) -> float:
    p = layout.ranks
    ends = layout.rank_endpoints()
    ranks = np.arange(p, dtype=np.int64)
    gamma = params.get("combine_time", 0)
    if algorithm == "linear":
        if operation in ("allgather", "alltoall"):
            src, dst = np.repeat(ranks, p), np.tile(ranks, p)
            keep = src != dst
            return float(flow_times(layout, ends[src[keep]], ends[dst[keep]], m / p,
                                    params).max())
        if operation == "broadcast":
            return float(flow_times(layout, ends[np.zeros(p - 1, dtype=np.int64)],
                                    ends[ranks[1:]], m, params).max())
        return float(flow_times(layout, ends[ranks[1:]], ends[np.zeros(p - 1, dtype=np.int64)],
                                m, params).max()) + (p - 1) * gamma * m
    total = 0.0
    if algorithm == "reduce-bcast":
        total += float(flow_times(layout, ends[ranks[1:]], ends[np.zeros(p - 1, dtype=np.int64)],
                                  m, params).max()) + (p - 1) * gamma * m
    elif operation == "allreduce":
        total += step_time("binomial", "reduce", m)
    if eager_applies(algorithm, operation, m, params):
        src, dst, after = _binomial_bcast_flows(p)
        total += float(flow_times(layout, ends[src], ends[dst], m, params,
                                  after=after).max())
    else:
        total += step_time("binomial", "broadcast", m)
    return total


def algorithm_time(algorithm: str, operation: str, m, layout: Layout, params: dict,
                   step_time) -> np.ndarray:
    """Time (s) per size of an algorithm timed as flows (:func:`uses_flows`):

    * ``linear``: one step of every message at once (all-gather and all-to-all: P(P-1)
      blocks of m/P;
      broadcast: the root's P - 1 messages of m; reduce: P - 1 messages of m to the root,
      then (P - 1)·γ·m of combining), the step ending with its last flow;
    * ``reduce-bcast``: the linear reduce, then the binomial broadcast;
    * the binomial broadcast (alone or after the binomial reduce of ``binomial``
      all-reduce) with m <= ``eager_limit``: every rank's sends leave together as soon as
      it has the data (eager sends return at once), one flow graph ending with its last
      flow; above the limit, and for the binomial reduce, the synchronous steps
      (``step_time(algorithm, operation, m)``).
    """
    sizes = np.asarray(m, dtype=float)
    out = np.array([_time_one(algorithm, operation, float(x), layout, params, step_time)
                    for x in sizes.ravel()])
    return out.reshape(sizes.shape)
