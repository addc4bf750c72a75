"""Lower bounds of the full workload model's time, term by term, vectorized over designs.

The full model (workload.py) times a term as the fastest of its algorithms on the job's
layout. Every piece below is either that model's own formula evaluated exactly or the same
formula at arguments no larger than the model's, where it is monotone; why each piece is a
lower bound is said where it is computed:

* A point-to-point algorithm is a sequence of rounds (model/collectives/schedules.py);
  round r costs count_r x [T(f_r·m, h_r; B_link / c_r) + γ·f_r·m if it combines], T =
  network.latency, h_r the round's largest hop count, c_r its largest channel load
  (schedule_time). T grows with h (t_router + t_link >= 0 per hop, plus the
  store-and-forward term, itself growing with h) and with c (it serializes at
  max(B_host, B_link / c)), so any h' <= h_r and c' <= c_r give a lower bound
  (:func:`rounds_time`). views.py finds such h' and c' for each family.
* The hardware tree and the point-to-point tree (tori only) are closed forms of the
  partition's depth, ties, diameter and size: evaluated exactly (:func:`tree_time`, the
  dispatch of collectives.api.evaluate over arrays).
* A term whose algorithm list leaves a choice is the minimum over those algorithms; the
  minimum of lower bounds is a lower bound of the minimum.
* heat and spmv: compute depends only on the node count and the machine (exact); heat's
  halo phases are rounds like any other (plus the model's send gap, exact); their
  collectives as above.
* skeleton terms (skeleton_terms.py): compute exact, halos and patterns as rounds like
  heat's halo (the model's T(m, h, c) + (k - 1) g(m)), collectives as above; what has no
  bound there counts 0.
* hpcg: only its compute (memory-bound, independent of the network) is counted; its halo
  exchanges (8 processes per node sharing adapters) and all-reduces have no bound here, so
  the screen does not use them (they count 0).

Units: seconds, bytes.
"""

from __future__ import annotations

import numpy as np

from icnperf.model import network, ops
from icnperf.model.apps import node_rates
from icnperf.model.collectives import hardware, p2p_tree
from icnperf.model.collectives.parameters import _NETWORK_KEYS, _SERIAL_KEYS, _pick

_LATENCY_KEYS = _NETWORK_KEYS + ("software_overhead", "store_and_forward")


def round_time(size, hops, load, combine: bool, params: dict, link_bandwidth=None):
    """One round: T(size, hops; B_link / load) (+ γ·size when it combines), the step time
    of collectives.schedule_time with one process per node. ``link_bandwidth`` (default
    the machine's) may be an array (slim fly's derated links)."""
    kw = _pick(params, _LATENCY_KEYS)
    bandwidth = params["link_bandwidth"] if link_bandwidth is None else link_bandwidth
    kw["link_bandwidth"] = bandwidth / np.maximum(load, 1)
    with ops.quiet():
        time = network.latency(size, hops, **kw)
    if combine:
        time = time + params.get("combine_time", 0.0) * size
    return time


def rounds_time(rounds, m: float, hops_load, params: dict, link_bandwidth=None):
    """Σ count x round_time over ``rounds`` (traffic.Round), each round's hop count and
    load from ``hops_load(round)`` (arrays over designs, lower bounds of the model's). A
    round cut in whole elements (``Round.blocks``, with ``element_size`` e in ``params``)
    is charged min(f·m, e·k·floor(c/B)), c = ceil(m/e), k = f·B: no message of it is
    smaller in collectives.schedule_time (its messages carry k·floor(c/B) elements, or
    that plus c mod B), so the bound holds."""
    total = 0.0
    element = params.get("element_size")
    for r in rounds:
        hops, load = hops_load(r)
        size = r.fraction * m
        if r.blocks and element:
            count = np.ceil(m / element)
            size = min(size, element * round(r.fraction * r.blocks)
                       * np.floor(count / r.blocks))
        total = total + r.count * round_time(size, hops, load, r.combine, params,
                                             link_bandwidth)
    return total


def send_gap(size, params: dict, link_bandwidth=None):
    """collectives.send_gap with the given link bandwidth (exact)."""
    kw = _pick(params, _SERIAL_KEYS)
    if link_bandwidth is not None:
        kw["link_bandwidth"] = link_bandwidth
    return p2p_tree.send_gap(size, **kw, software_overhead=params["software_overhead"])


def tree_time(operation: str, algorithm: str, m, depth, ties, diameter, endpoints,
              params: dict):
    """The hardware or point-to-point tree's time on tori of these depths, ties, diameters
    and sizes (arrays): collectives.api.evaluate's formulas (source at the root), exact."""
    if algorithm == "hw-tree":
        kw = network.bind(hardware.hw_allreduce, params)
        if operation == "broadcast":
            return hardware.hw_broadcast(m, depth, 0, **network.bind(hardware.hw_broadcast,
                                                                     params))
        if operation == "reduce":
            return hardware.hw_reduce(m, depth, **network.bind(hardware.hw_reduce, params))
        if operation == "allreduce":
            return hardware.hw_allreduce(m, depth, **kw)
        if operation == "allgather":
            return hardware.hw_allgather(m, depth, diameter, endpoints,
                                         **network.bind(hardware.hw_allgather, params))
        return hardware.hw_barrier(depth, **network.bind(hardware.hw_barrier, params))
    if operation == "broadcast":
        return p2p_tree.p2p_tree_broadcast(m, depth, ties, 0, **network.bind(
            p2p_tree.p2p_tree_broadcast, params))
    if operation == "reduce":
        return p2p_tree.p2p_tree_reduce(m, depth, ties, **network.bind(
            p2p_tree.p2p_tree_reduce, params))
    if operation == "allreduce":
        return p2p_tree.p2p_tree_allreduce(m, depth, ties, **network.bind(
            p2p_tree.p2p_tree_allreduce, params))
    return p2p_tree.p2p_tree_barrier(depth, ties, **network.bind(
        p2p_tree.p2p_tree_barrier, params))


def fewest_rounds(ranks) -> np.ndarray:
    """ceil(lg P): no point-to-point algorithm of model/collectives finishes in fewer
    rounds on P ranks.

    Derivation: in every round of those schedules each rank receives at most one message
    (they are matchings, shifts or tree levels; tests check it against every schedule).
    A rank's result depends on the data of all P ranks (all-reduce, all-gather,
    all-to-all, barrier), or every rank needs the root's data (broadcast), or the root
    needs everyone's (reduce); with one message received per round the set of ranks whose
    data a rank holds (or the set of ranks holding the root's) at most doubles per round,
    so P needs at least ceil(lg P) rounds.
    """
    ranks = np.asarray(ranks, dtype=float)
    return np.ceil(np.log2(np.maximum(ranks, 1.0)))


VOLUME = {"allreduce": lambda m, p: m, "reduce": lambda m, p: m,
          "broadcast": lambda m, p: m, "allgather": lambda m, p: m * (p - 1) / p,
          "alltoall": lambda m, p: m * (p - 1) / p, "barrier": lambda m, p: 0.0 * p}
"""Bytes some rank must receive in one run on p ranks, whatever the algorithm: the whole
vector's worth of combined data for a reduction or a broadcast (a rank cannot hold the
result of m bytes having received fewer), the p - 1 other parts of m / p for an all-gather
or an all-to-all."""


def universal_rounds_time(operation: str, m: float, ranks, diameter, params: dict):
    """A lower bound of any point-to-point algorithm on P ranks of a torus of the given
    diameter (every rank on its own router):

        T >= R x (O + t_inj + t_ej + t_router) + max(R, D) x (t_router + t_link)
             + V / min(B_host, B_link),        R = ceil(lg P)

    Each round costs at least its message's head latency O + T_path(h_r) (network.latency
    without serialization) with h_r >= 1 hops, and R >= ceil(lg P) rounds (fewest_rounds).
    Data must reach a rank from the rank farthest from it, D hops away (a torus looks the
    same from every router), along a chain of messages one round apart, each of at most
    h_r hops: Σ h_r >= D. The rank that must take in V bytes (VOLUME) receives at most one
    message per round, each of the round's size, and a message of s bytes occupies the host
    interface for at least s / B_host and a link for at least s / B_link
    (network.serialization_time).
    """
    rounds = fewest_rounds(ranks)
    fixed = (params["software_overhead"] + params["injection_latency"]
             + params["ejection_latency"] + params["router_latency"])
    per_hop = params["router_latency"] + params["link_latency"]
    slowest = min(params["host_bandwidth"], params["link_bandwidth"])
    ranks = np.asarray(ranks, dtype=float)
    return (rounds * fixed + np.maximum(rounds, np.asarray(diameter, dtype=float)) * per_hop
            + VOLUME[operation](m, ranks) / slowest)


def most_square(n) -> tuple[np.ndarray, np.ndarray]:
    """heat.most_square over an array: (a, n / a), a the largest divisor <= sqrt(n)."""
    n = np.asarray(n, dtype=np.int64)
    a = np.floor(np.sqrt(n)).astype(np.int64)
    a += (a + 1) * (a + 1) <= n
    a -= a * a > n
    while True:
        off = n % a != 0
        if not off.any():
            return a, n // a
        a = np.where(off, a - 1, a)


def heat_compute(machine, nodes, cells: int, flops_per_cell: float):
    """heat.predict's compute time per step on ``nodes`` nodes (exact; arrays) and the
    halo phases' message sizes (bytes) with the process grid (px, py): the largest block
    is ceil(Nx/px) x ceil(Ny/py) (heat.block_sizes gives the first blocks one more cell).
    InputError, as the model, when a block would be empty."""
    from icnperf.errors import InputError
    from icnperf.model.apps import heat
    from icnperf.model.apps.spmv import BYTES_PER_ELEMENT

    px, py = most_square(nodes)
    nx, ny = heat.grid_shape(cells)
    if (px > nx).any() or (py > ny).any():
        raise InputError(f"heat: {cells} cells cannot be split over"
                         f" {int(np.max(px * py))} nodes (a block would be empty)")
    x_block, y_block = -(-nx // px), -(-ny // py)
    rate, _ = node_rates.machine_rate(machine, "node.stencil_rate")
    overhead = float(machine.get("node.stencil_overhead", 0.0))
    compute = overhead + flops_per_cell * x_block * y_block / rate
    return compute, (BYTES_PER_ELEMENT * y_block, BYTES_PER_ELEMENT * (x_block + 2)), (px, py)


def halo_rounds(px: int, py: int, sizes: tuple[float, float]):
    """heat's two halo phases as rounds (traffic.Round, fraction = the phase's bytes, so
    call with m = 1): block (x, y) is rank x + px·y; phase 1 exchanges with the x
    neighbours, phase 2 with the y neighbours; a phase with no neighbour is left out (the
    messages of heat.halo_phases)."""
    from icnperf.model.apps.patterns import halo_pairs
    from icnperf.model.sizing.traffic import make_round

    out = []
    for axis, size in enumerate(sizes):
        src, dst, _ = halo_pairs((px, py), False, (axis,))
        if len(src):
            out.append(make_round(1, float(size), False, src, dst))
    return tuple(out)


def halo_time(rounds, hops_load, params: dict, link_bandwidth=None):
    """heat.halo_time as a bound: Σ_phases [T(m, h'; B_link / c') + g(m)]."""
    total = 0.0
    for r in rounds:
        hops, load = hops_load(r)
        total = total + round_time(r.fraction, hops, load, False, params, link_bandwidth)
        total = total + send_gap(r.fraction, params, link_bandwidth)
    return total


def torus_halo_time(sizes, px, py, phases, params: dict):
    """halo_time on tori from per-phase bounds ``phases`` = ((h1, c1), (h2, c2)) (arrays,
    views.torus_halo): the phases that exist (px > 1: x neighbours; py > 1: y
    neighbours), without building their messages."""
    total = 0.0
    for size, exists, (hops, load) in zip(sizes, (px > 1, py > 1), phases):
        phase = round_time(size, hops, load, False, params) + send_gap(size, params)
        total = total + np.where(exists, phase, 0.0)
    return total


def spmv_compute(machine, nodes, rows: int, nonzeros_per_row: int) -> np.ndarray:
    """spmv.predict's compute time per iteration on ``nodes`` nodes (array), exact:
    2·d·ceil(N/P) / node.spmv_rate."""
    rate, _ = node_rates.machine_rate(machine, "node.spmv_rate")
    nodes = np.asarray(nodes, dtype=np.int64)
    return 2.0 * nonzeros_per_row * (-(-rows // nodes)) / rate


def hpcg_compute(machine, problem: dict) -> float:
    """hpcg.predict's compute time per iteration (memory-bound; it does not depend on the
    node count or the network), exact: the model run on one node."""
    from icnperf.model.apps import hpcg

    keys = {k: v for k, v in problem.items() if k in ("local", "variant",
                                                      "processes_per_node")}
    return float(hpcg.predict(machine, 1, iterations=1, **keys).compute_s)
