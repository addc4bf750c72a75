"""One message round on many tori that differ only in their last radix: the hops and
busiest channel of the same endpoint pairs on every k_1 x ... x k_(d-1) x K_j of a list,
the first d - 1 dimensions counted once (a sizing study's tori whose job sits on the first
endpoints, model/sizing/).

Exactly :func:`routes.dor_traffic` torus by torus: with dimension 0 fastest, endpoint e
has the coordinates e mod k_1, ... in the first d - 1 dimensions and e // (k_1 ... k_(d-1))
in the last whatever K_j is, as long as every endpoint exists (e < k_1 ... k_(d-1) K_j).
So every message moves the same way in the first d - 1 dimensions, on the same ring lines
(a line is named by the coordinates the message holds, not by how many lines there are),
and only its move in the last dimension - the minimal way round a ring of K_j - and the
loads of that dimension's channels depend on K_j. The per-dimension counting is
dor_traffic's (routes._forward_loads, the tie rules of routes.RING_TIES).
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.model.topology.torus.routes import RING_TIES, _forward_loads


def _ring_move(src, dst, radix: int, ties: str):
    """(+ direction?, channels crossed) of moves from ring position src to dst on a ring of
    ``radix`` (routes.dor_traffic's rule); ``radix`` may be a column of radices, one row
    of moves each."""
    forward = (dst - src) % radix
    plus = 2 * forward < radix
    tie = 2 * forward == radix
    plus |= tie & ((src % 2 == 0) | (radix == 2)) if ties == "split" else tie
    return plus, np.where(plus, forward, radix - forward)


def _dimension_load(lines: int, radix: int, line, src, plus, steps) -> int:
    """The busiest channel of one dimension's moves (routes.dor_traffic's count: a - move is
    a + move on the mirrored ring, numbered after the + rings)."""
    moving = steps > 0
    if not moving.any():
        return 0
    ring_index = np.where(plus, line, line + lines)[moving]
    first = np.where(plus, src, radix - 1 - src)[moving]
    return _forward_loads(2 * lines, radix, ring_index, first, steps[moving])


def dor_traffic_last_radix(radices, last, sources, destinations,
                           ties: str = "plus") -> tuple[np.ndarray, np.ndarray]:
    """(largest hops, busiest channel) of one round on every torus ``radices`` x K for K in
    ``last`` (int64 arrays, one value per K): per K exactly
    routes.dor_traffic((*radices, K), sources, destinations, ties). ``radices``: the first
    d - 1 radices (may be empty); every endpoint must exist on every torus. No messages:
    zeros."""
    if ties not in RING_TIES:
        raise ValueError(f"unknown ring tie rule {ties!r}")
    prefix = [int(k) for k in radices]
    last = [int(k) for k in last]
    sources = np.asarray(sources, dtype=np.int64).ravel()
    destinations = np.asarray(destinations, dtype=np.int64).ravel()
    hops_out = np.zeros(len(last), dtype=np.int64)
    load_out = np.zeros(len(last), dtype=np.int64)
    if sources.size == 0 or not last:
        return hops_out, load_out
    stride = math.prod(prefix)
    high_src, high_dst = sources // stride, destinations // stride
    # every line index below stands for coordinates the messages hold, so a torus as tall
    # as the highest last coordinate used numbers them all
    total = stride * (int(max(high_src.max(), high_dst.max())) + 1)
    hops = np.zeros(sources.size, dtype=np.int64)
    load = 0
    src_high, dst_high = sources, destinations
    dst_low = np.zeros_like(destinations)
    position = 1
    for radix in prefix:
        src, dst = src_high % radix, dst_high % radix
        src_high, dst_high = src_high // radix, dst_high // radix
        plus, steps = _ring_move(src, dst, radix, ties)
        hops += steps
        line = dst_low + src_high * position
        load = max(load, _dimension_load(total // radix, radix, line, src, plus, steps))
        dst_low = dst_low + dst * position
        position *= radix
    # a message's last move depends on its last coordinates' difference (and, for split
    # ties, its source's parity) alone: worked out once per distinct value and radix,
    # then handed to the messages (a round has few distinct differences: a shift two)
    key = high_dst - high_src
    if ties == "split":
        key = 2 * key + high_src % 2
    keys, inverse = np.unique(key, return_inverse=True)
    difference, parity = (keys // 2, keys % 2) if ties == "split" else (keys, 0)
    highest = np.full(keys.size, np.iinfo(np.int64).min)
    np.maximum.at(highest, inverse, hops)
    # the busiest channel of the last dimension depends on the radix only through which
    # way each move goes: a + move from s to d covers channels s .. d - 1 when d > s and,
    # when it wraps, s .. K - 1 and 0 .. d - 1, where every channel from the highest
    # coordinate used up to K - 1 -> 0 carries the same wrapping moves (the - moves
    # alike); so each pattern of directions (few: they change where K crosses twice a
    # difference, e.g. one pattern for every K above twice the largest) is counted once
    radix = np.array(last, dtype=np.int64)[:, None]
    plus, steps = _ring_move(parity, parity + difference, radix, ties)
    hops_out[:] = (highest + steps).max(axis=1)
    busiest: dict[bytes, int] = {}
    for j, k in enumerate(last):
        pattern = plus[j].tobytes()
        if pattern not in busiest:
            busiest[pattern] = _dimension_load(stride, k, dst_low, high_src,
                                               plus[j][inverse], steps[j][inverse])
        load_out[j] = max(load, busiest[pattern])
    return hops_out, load_out
