"""The communication of a skeleton phase: halo exchanges, point-to-point patterns and
collectives, timed with model/network and model/collectives (no formula of their own).

**Ranks and nodes.** P = N x ppn ranks; rank r runs on node r // ppn, node i on endpoint i
of the layout (``Layout.placed(ppn)``): collectives' placement.

**Messages sent at once** (halo, shift, all-to-all, random permutation): every rank sends
its messages of the phase together. They are mapped onto the network with
``Layout.rank_traffic`` (largest hop count h of the inter-node messages, largest channel
load c, most inter-node messages through one node's adapter a, whether some message stays
on its node), and the phase's slowest rank is charged

    T = T_step(m; h, c, a) + (k - 1) · g(m)

T_step = ``collectives.schedule_time`` of one synchronous step (network.latency at h hops
with B_link / c and B_host / ceil(a / k), or the intra-node copy when that is longer); k =
the most messages one rank sends; g = ``collectives.send_gap``, the sender's busy time per
message (its messages leave one after another, so of the a messages through one adapter
about a / k, one per rank on the node, are in flight at once). The two maxima may come from
different messages, so T is an upper bound in the sense of collectives.schedule.

**Halo**: the process grid is :func:`expressions.most_square` (P, dims) (ascending, like
MPI_Dims_create), rank r at coordinates (r mod g_0, (r / g_0) mod g_1, ...) (dimension 0
fastest); each rank sends ``bytes`` to its face neighbours along the chosen axes: 2 per
axis, fewer at the edges of a non-periodic grid, none along an axis of size 1; on a
periodic axis of size 2 both messages go to the same rank.

**Collectives**: :func:`icnperf.model.collectives.collective_time`; the skeleton's
``bytes`` is the MPI call's per-rank buffer, so the collectives' m is ``bytes`` for
allreduce, broadcast and reduce and ``bytes`` x participants for allgather and alltoall
(their m is the whole gathered vector, the whole send buffer). ``best`` takes the fastest
algorithm that applies (``collectives.compare``); ``auto`` the one the machine's MPI
library picks (``collectives.choose``, software.mpi_library; 8-byte elements).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from icnperf.errors import InputError
from icnperf.model import collectives, network
from icnperf.model.apps.grid import most_square
from icnperf.model.apps.skeleton import HARDWARE_ALGORITHM
from icnperf.model.collectives import Step, structured
from icnperf.units import byte_count

__all__ = ["MAX_ALLTOALL_MESSAGES", "CommunicationTerm", "Mapping", "aligned_halo",
           "byte_count", "collective_term", "halo_grid", "halo_mapping", "halo_pairs",
           "halo_shifts",
           "message_term", "p2p_mapping", "p2p_pairs"]

MAX_ALLTOALL_MESSAGES = 2**22
"""Most messages a point-to-point all-to-all is mapped with where it is not counted in
structure (every pair routed: random placement, fat trees, dragonflies): about 2,048
ranks."""


class CommunicationTerm(NamedTuple):
    """One communication charge of a phase, per repeat: ``time_s``; ``bytes`` per message
    (the collective's m for a collective); ``messages`` the most one rank sends; ``hops``,
    ``load``, ``host`` and ``intra`` as collectives.Step (None for a collective or a
    helper); ``detail`` in words (grid, algorithm, ...); ``algorithm`` the collective's
    (the one ``best`` or ``auto`` chose)."""

    kind: str
    time_s: float
    bytes: float
    messages: int
    hops: int | None
    load: int | None
    host: int | None
    intra: bool | None
    detail: str
    algorithm: str | None = None


def halo_grid(ranks: int, dims: int) -> tuple[int, ...]:
    """The process grid of a halo: the most square factorization, ascending."""
    return most_square(int(ranks), int(dims))


def _axis_edges(ranks: np.ndarray, grid: tuple[int, ...], axes=None):
    """Per chosen axis of ``grid`` of size > 1 (all axes when ``axes`` is None), the + then
    the - direction: (size, stride, step +1 or -1, the mask of ``ranks`` on the edge that
    direction leaves). Ranks are numbered axis 0 fastest, so an axis' stride is the product
    of the sizes before it and a rank's coordinate on it is (rank // stride) mod size."""
    strides = np.cumprod((1, *grid[:-1]))
    for axis in (range(len(grid)) if axes is None else axes):
        size = int(grid[axis])
        if size == 1:
            continue
        stride = int(strides[axis])
        coord = (ranks // stride) % size
        for step in (1, -1):
            yield size, stride, step, coord == (size - 1 if step == 1 else 0)


def halo_pairs(grid: tuple[int, ...], periodic: bool, axes=None):
    """(sources, destinations, most messages per rank) of a halo on ``grid``: per chosen
    axis of size > 1, the + then the - neighbour of every rank (ascending), those across
    the edge of a non-periodic grid left out. A neighbour is the rank ± the axis' stride,
    across a periodic edge ∓ (size - 1) strides (no coordinate arrays of every axis)."""
    ranks = np.arange(math.prod(grid), dtype=np.int64)
    src, dst = [], []
    count = None if periodic else np.zeros(len(ranks), dtype=np.int64)
    for size, stride, step, edge in _axis_edges(ranks, grid, axes):
        if periodic:
            target = ranks + step * stride
            target[edge] -= step * size * stride
            src.append(ranks)
            dst.append(target)
        else:
            kept = ranks[~edge]
            src.append(kept)
            dst.append(kept + step * stride)
            count += ~edge
    if not src:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, 0
    most = len(src) if periodic else int(count.max())
    return np.concatenate(src), np.concatenate(dst), most


def check_alltoall(ranks: int) -> None:
    """InputError when a point-to-point all-to-all over ``ranks`` ranks has more than
    :data:`MAX_ALLTOALL_MESSAGES` messages (also checked by the work estimate before any
    node count is evaluated)."""
    if ranks * (ranks - 1) > MAX_ALLTOALL_MESSAGES:
        raise InputError(f"a point-to-point all-to-all is mapped pair by pair, at most "
                         f"{MAX_ALLTOALL_MESSAGES:,} messages; {ranks:,} ranks send "
                         f"{ranks * (ranks - 1):,} (use collective = {{ op = \"alltoall\", "
                         "... } for large runs)")


def p2p_pairs(pattern: str, ranks: int, distance: int = 1):
    """(sources, destinations, most messages per rank) of a point-to-point pattern over
    ``ranks`` ranks: ``shift`` r -> (r + distance) mod P, ``alltoall`` every ordered pair of
    distinct ranks, ``random`` r -> perm[r] for NumPy's default_rng(0).permutation(P)
    (ranks mapped to themselves send nothing)."""
    r = np.arange(ranks, dtype=np.int64)
    if pattern == "shift":
        dst = (r + distance % ranks) % ranks  # reduced first: any whole distance fits
    elif pattern == "random":
        dst = np.random.default_rng(0).permutation(ranks).astype(np.int64)
    elif pattern == "alltoall":
        check_alltoall(ranks)
        src = np.repeat(r, ranks)
        dst = np.tile(r, ranks)
        keep = src != dst
        return src[keep], dst[keep], ranks - 1
    else:
        raise InputError(f"unknown pattern {pattern!r}")
    keep = dst != r
    return r[keep], dst[keep], 1 if keep.any() else 0


class Mapping(NamedTuple):
    """Messages sent at once, mapped onto the network: largest hops, largest channel load,
    most messages through one adapter, whether some stay on their node, and the most
    messages one rank sends."""

    hops: int
    load: int
    host: int
    intra: bool
    messages: int


def _mapped(layout, src, dst, messages: int) -> Mapping:
    if len(src) == 0 or messages == 0:
        return Mapping(0, 0, 0, False, 0)
    return Mapping(*layout.rank_traffic(src, dst), messages)


@lru_cache(maxsize=512)
def halo_mapping(layout, grid: tuple[int, ...], periodic: bool, axes) -> Mapping:
    """The halo's messages (:func:`halo_pairs`) on ``layout`` (placed with the ranks'
    processes per node); cached, the sizes do not enter. A halo aligned with the torus
    (:func:`aligned_halo`) in closed form; on a torus the job fills, nodes placed
    linearly, as rank shifts counted line by line (:func:`halo_shifts`,
    collectives.structured.shifted_traffic, exact); any other mapped message by message."""
    aligned = aligned_halo(layout, grid, periodic, axes)
    if aligned is not None:
        return aligned
    if structured.counts_shifts(layout) and math.prod(grid) == layout.ranks:
        shifts, messages = halo_shifts(grid, periodic, axes)
        if not shifts or messages == 0:
            return Mapping(0, 0, 0, False, 0)
        return Mapping(*structured.shifted_traffic(layout, shifts), messages)
    return _mapped(layout, *halo_pairs(grid, periodic, axes))


def halo_shifts(grid: tuple[int, ...], periodic: bool, axes=None):
    """The messages of :func:`halo_pairs` as rank shifts: (a list of (offset, sources),
    most messages per rank), every rank of ``sources`` sending to rank + offset mod P
    (collectives.structured.shifted_traffic). Per chosen axis of size > 1 and direction,
    the ranks off the edge shift by ± the axis' stride and, periodic, those on it by
    ∓ (size - 1) strides. An interior rank of every axis sends the most: 2 per axis, 1 per
    axis of size 2 without wrap."""
    ranks = np.arange(math.prod(grid), dtype=np.int64)
    shifts, messages = [], 0
    for size, stride, step, edge in _axis_edges(ranks, grid, axes):
        if step == 1:
            messages += 2 if periodic else min(2, size - 1)
        shifts.append((step * stride, ranks[~edge]))
        if periodic:
            shifts.append((step * stride - step * size * stride, ranks[edge]))
    return shifts, messages


def aligned_halo(layout, grid: tuple[int, ...], periodic: bool, axes) -> Mapping | None:
    """The halo's Mapping in closed form when its process grid is the torus itself (one
    rank per node, linear placement, the grid's axes of size > 1 the torus radices in
    order; a grid axis of size 1 is no dimension, so a job may name more axes than the
    torus has); None otherwise.

    Derived here: rank x's neighbour along axis a is x ± the axis' stride, which is the
    torus dimension's stride, so every message is 1 hop, and the + (-) message of x runs on
    x's own + (-) channel of that dimension: each channel carries one message, except on a
    periodic axis of size 2, where both messages of x go to its one neighbour at half the
    ring, a tie that DOR (either tie rule) sends + on a radix-2 ring: x's + channel carries
    2. Without wrap on a size-2 axis the two ranks send each other one message, each on its
    own + channel. Channels of different dimensions are distinct, so the load is the
    largest over the axes. A rank sends 2 messages per axis of size >= 3 and, periodic,
    per axis of size 2; 1 per axis of size 2 without wrap (an interior rank of every axis
    exists). One rank per node: the adapter count is 1, no message stays on its node
    (Layout.rank_traffic's default-placement answer)."""
    if (layout.radices is None or not layout.is_default_placement or layout.rails != 1
            or tuple(g for g in grid if g != 1) != tuple(layout.radices)):
        return None
    chosen = tuple(range(len(grid))) if axes is None else tuple(axes)
    if len(set(chosen)) != len(chosen):
        return None
    sizes = [grid[a] for a in chosen if grid[a] > 1]
    if not sizes:
        return Mapping(0, 0, 0, False, 0)
    load = 2 if periodic and 2 in sizes else 1
    messages = sum(2 if periodic else min(2, k - 1) for k in sizes)
    return Mapping(1, load, 1, False, messages)


@lru_cache(maxsize=512)
def p2p_mapping(layout, pattern: str, ranks: int, distance: int) -> Mapping:
    """A point-to-point pattern's messages (:func:`p2p_pairs`) on ``layout``; cached. Over
    every rank of the layout the all-to-all and the shift are counted in structure
    (collectives.structured: closed forms on a torus, the messages mapped elsewhere, the
    all-to-all then at most :data:`MAX_ALLTOALL_MESSAGES`)."""
    if ranks == layout.ranks and ranks >= 2:
        if pattern == "alltoall" and structured.has_closed_alltoall(layout):
            return Mapping(*structured.alltoall_traffic(layout), ranks - 1)
        if pattern == "shift" and distance % ranks:
            return Mapping(*structured.shift_traffic(layout, [distance % ranks])[0], 1)
    return _mapped(layout, *p2p_pairs(pattern, ranks, distance))


def message_term(kind: str, mapping: Mapping, m: float, params: dict,
                 detail: str) -> CommunicationTerm:
    """The time of messages sent at once (module docstring): one synchronous step of
    collectives.schedule_time plus (k - 1) send gaps."""
    if mapping.messages == 0:
        return CommunicationTerm(kind, 0.0, m, 0, 0, 0, 0, False, detail + ", no messages")
    sharing = -(-mapping.host // mapping.messages) if mapping.host else 0
    step = Step(1, Fraction(1), mapping.hops, mapping.load, False, sharing, mapping.intra)
    time = float(collectives.schedule_time(
        m, (step,), **network.bind(collectives.schedule_time, params)))
    if mapping.messages > 1:
        time += (mapping.messages - 1) * float(collectives.send_gap(
            m, **network.bind(collectives.send_gap, params)))
    return CommunicationTerm(kind, time, m, mapping.messages, mapping.hops, mapping.load,
                             mapping.host, mapping.intra, detail)


def collective_term(machine, layout, op: str, algorithm: str, per_rank_bytes, scope: str,
                    ppn: int, api: str, hardware: bool = True) -> CommunicationTerm:
    """A collective call's time: over every rank (``scope`` ranks, ppn per node) or one
    rank per node (``nodes``), the nodes where the layout's placement puts them; 0 with
    fewer than two participants. ``best`` takes the fastest algorithm that applies, the
    hardware tree left out unless ``hardware``; ``auto`` the one the machine's MPI library
    picks (collectives.choose over the participants)."""
    procs = 1 if scope == "nodes" else ppn
    participants = layout.endpoints * procs
    if op in ("allgather", "alltoall"):
        m = float(per_rank_bytes) * participants
    elif op == "barrier":
        m = None
    else:
        m = float(per_rank_bytes)
    where = "one rank per node" if scope == "nodes" else f"{participants} ranks"
    if participants < 2:
        return CommunicationTerm("collective", 0.0, m or 0.0, 0, None, None, None, None,
                                 f"{op}: one participant, nothing to do")
    if m is not None and m <= 0:
        return CommunicationTerm("collective", 0.0, m, 0, None, None, None, None,
                                 f"{op} of 0 bytes: nothing to send")
    sizes = None if m is None else [m]
    if algorithm == "best":
        results = collectives.compare(machine, op, sizes, layout=layout, api=api,
                                      processes_per_node=procs, placement=layout.placement,
                                      seed=layout.seed)
        if not hardware:
            results.pop(HARDWARE_ALGORITHM, None)
        if not results:
            raise InputError(f"no collective algorithm applies to {op} on {layout.text}")
        algorithm, result = min(results.items(), key=lambda kv: float(kv[1].time[0]))
        kind = "" if hardware else "point-to-point "
        chosen = f"{algorithm} (best: fastest {kind}of {', '.join(results)})"
    elif algorithm == "auto":
        algorithm, reason, _ = collectives.machine_choice(machine, op, m or 0.0,
                                                          participants)
        result = collectives.collective_time(machine, op, algorithm, sizes, layout=layout,
                                             api=api, processes_per_node=procs,
                                             placement=layout.placement, seed=layout.seed)
        chosen = f"{algorithm} (auto: {reason})"
    else:
        result = collectives.collective_time(machine, op, algorithm, sizes, layout=layout,
                                             api=api, processes_per_node=procs,
                                             placement=layout.placement, seed=layout.seed)
        chosen = algorithm
    size = "" if m is None else f" of m = {byte_count(m)} B"
    return CommunicationTerm("collective", float(result.time[0]), m or 0.0, 0, None, None,
                             None, None, f"{op}{size} by {chosen} over {where}", algorithm)
