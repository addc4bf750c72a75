"""Explicit messages on a torus under dimension-order routing: coordinates, hop distances,
the dimension-order spanning tree, and the hops and channel load of one communication step.

Used by ``model/collectives`` (the hardware collective tree of the Angara router, Mukosey 2015
§1, and the point-to-point algorithms whose steps map messages onto the torus), the
applications and the simulator's closed-form companions. Endpoints are numbered with
dimension 0 fastest (:func:`endpoint_coordinates`). Units: router hops (router-router
channels) and messages per channel (one direction of one link); a radix-2 ring is one link,
so its two directions are two channels.

Sources: minimal ring distance of Dally & Towles, *Principles and Practices of
Interconnection Networks* (2004), §5.2; the collective tree of Mukosey 2015 §1, Fig. 1. The tree
depth, its ties and :func:`dor_traffic` are derived here and checked by walking every route
in tests/model/test_collectives.py.
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.model.topology.base import is_integer, require

def endpoint_coordinates(radices, index):
    """Coordinates of endpoint ``index`` (dimension 0 varies fastest), an array (..., n)."""
    radices = np.asarray(radices, dtype=np.int64)
    index = np.asarray(index, dtype=np.int64)[..., None]
    strides = np.concatenate(([1], np.cumprod(radices)[:-1]))
    return (index // strides) % radices


def hop_distance(radices, source, destination, wrap=True):
    """Router hops between two endpoints given by coordinates (arrays (..., n)).

    Dimension-order routing takes the minimal way round each ring (Dally & Towles §5.2):
    min(|d|, k - |d|) hops per dimension with wraparound, |d| without; summed over
    dimensions. ``wrap``: a bool for every dimension or one bool per dimension (a mixed
    torus/mesh). A radix-2 ring is one link, so a differing coordinate costs 1 hop.
    """
    radices = np.asarray(radices, dtype=np.int64)
    delta = np.abs(np.asarray(destination, dtype=np.int64) - np.asarray(source, dtype=np.int64))
    per_dimension = np.where(np.asarray(wrap, dtype=bool), np.minimum(delta, radices - delta),
                             delta)
    return per_dimension.sum(axis=-1)


# --- collective spanning trees, traffic of one communication step -------------------------
#
# Used by model/collectives: the hardware collective tree of the Angara router
# (Mukosey 2015 §1) is a spanning tree laid on the torus from a root in dimension order X, Y,
# Z, W; the point-to-point algorithms map each step's messages onto the torus with these.


def spanning_tree_depth(radices) -> int:
    """Depth (tree edges = router hops) of the dimension-order spanning tree from any root:
    sum_i floor(k_i / 2), which is the torus diameter.

    The tree (Mukosey 2015 §1, Fig. 1): the root's ring in dimension 0 (X) is covered first, in
    both directions; each router of that ring covers its ring in dimension 1 (Y); each router
    of the resulting plane covers its ring in dimension 2 (Z); and so on. A router's parent is
    its neighbour towards the root in the highest dimension where its coordinate differs from
    the root's. Along a ring of radix k the + side holds floor(k/2) routers and the - side
    ceil(k/2) - 1 (a router at distance exactly k/2 is reached in +, the DOR tie rule of this
    module), so the deepest leaf lies floor(k_i/2) hops out in every dimension. Every tree
    path follows a minimal DOR route from the root, so the depth equals the diameter, and by
    the torus's symmetry it does not depend on where the root is (derived here; checked
    against the explicit tree in tests/model/test_collectives.py).
    """
    require(len(radices) > 0 and all(is_integer(k) and k >= 2 for k in radices),
            "torus: radices must be integers >= 2")
    return int(sum(k // 2 for k in radices))


def spanning_tree_ties(radices) -> int:
    """Dimensions of odd radix >= 3: where the dimension-order tree has two equally deep
    subtrees (the + and - halves of a ring of odd radix both hold (k-1)/2 routers).

    With sequential sends (a router sends to its children one after another) one of the two
    equally deep subtrees must wait one send gap; the point-to-point tree in
    model/collectives pays one gap per such dimension on its critical path.
    """
    require(len(radices) > 0 and all(is_integer(k) and k >= 2 for k in radices),
            "torus: radices must be integers >= 2")
    return int(sum(1 for k in radices if k % 2 == 1 and k >= 3))


def spanning_tree_fanout(radices) -> int:
    """Children of the root of the dimension-order tree (its largest fan-out):
    sum_i min(k_i - 1, 2), i.e. every router port but the endpoint's."""
    require(len(radices) > 0 and all(is_integer(k) and k >= 2 for k in radices),
            "torus: radices must be integers >= 2")
    return int(sum(min(k - 1, 2) for k in radices))


def _forward_loads(lines: int, k: int, line, start, length, counts=None) -> int:
    """Largest number of segments over one channel: segments on ``lines`` rings of radix k,
    each from ring position ``start`` over ``length`` (< k) consecutive + channels (channel
    p joins p and p+1 mod k). A difference array with k + 1 cells a ring: a segment opens
    at its start and closes at its end, or, when it wraps, at its end - k, the ring's cell
    0 opening and cell k closing once more for it; every ring's differences sum to zero by
    cell k, so one running sum over all rings in a row is each ring's own (cell k holds 0,
    never more than the largest load). With few segments for the rings, the segments' ends
    are sorted instead. ``counts``: how many messages each segment stands for (None: one
    each)."""
    if len(start) == 0:
        return 0
    if 8 * len(start) < lines * k:
        return _sparse_forward_loads(k, line, start, length, counts)
    width = k + 1
    base = np.asarray(line, dtype=np.int64) * width
    end = start + length
    wraps = end > k
    opens = base + start
    closes = base + np.where(wraps, end - k, end)
    size = lines * width
    # with counts, NumPy counts in floats: whole numbers below 2^53, exact; the running
    # sum is taken in integers (several times faster than in floats)
    weights = None if counts is None else np.asarray(counts, dtype=np.float64)
    delta = (np.bincount(opens, weights=weights, minlength=size)
             - np.bincount(closes, weights=weights, minlength=size)).astype(np.int64)
    if wraps.any():
        wrapped = np.bincount(line[wraps], weights=None if weights is None else weights[wraps],
                              minlength=lines).astype(np.int64)
        cells = delta.reshape(lines, width)
        cells[:, 0] += wrapped
        cells[:, k] -= wrapped
    return int(np.cumsum(delta).max())


def _sparse_forward_loads(k: int, line, start, length, counts=None) -> int:
    """:func:`_forward_loads` by sorting: each segment [start, start + length) on its ring,
    cut at k when it wraps, is an opening at line (k + 1) + start and a closing at its end;
    sorted with closings before openings at one position (a segment that ends at p does
    not cross channel p), the largest running sum is the largest channel load."""
    end = start + length
    wraps = end > k
    base = line * (k + 1)
    opens = np.concatenate([base + start, base[wraps]])
    closes = np.concatenate([base + np.minimum(end, k), base[wraps] + end[wraps] - k])
    keys = np.concatenate([2 * closes, 2 * opens + 1])
    if counts is None:
        weight = np.ones(len(start), dtype=np.int64)
    else:
        weight = np.asarray(counts, dtype=np.int64)
    weight = np.concatenate([weight, weight[wraps]])
    steps = np.concatenate([-weight, weight])
    return int(np.max(np.cumsum(steps[np.argsort(keys, kind="stable")])))


RING_TIES = ("plus", "split")
"""How DOR routes a message whose destination is exactly half a ring away (both ways are
minimal): ``plus`` sends it in the + direction (this module's convention); ``split`` sends
it + from an even ring position and - from an odd one (a radix-2 ring, one link, always
+), so such messages load both directions equally (the balance adaptive minimal routing reaches, and Dally & Towles'
assumption behind the k/8 uniform load)."""


def dor_traffic(radices, sources, destinations, ties: str = "plus",
                wrap=True, counts=None) -> tuple[int, int]:
    """(largest hop count, largest channel load) of messages sent at the same time.

    ``sources`` and ``destinations`` are endpoint indices (dimension 0 varies fastest, as
    :func:`endpoint_coordinates`), one pair per message. Routing is this module's DOR on the
    torus: dimension 0 first, the minimal way round each ring, a tie resolved by ``ties``
    (:data:`RING_TIES`); along a mesh dimension (``wrap`` False for it: a bool for every
    dimension or one per dimension) straight to the destination coordinate. The channel
    load is the largest number of the messages that cross
    one channel (one direction of one link); a radix-2 ring is one link, so its two
    directions are two channels. Derived here by counting each message's ring segment per
    dimension; tests check it against walking every route. Returns (0, 0) for no messages.
    ``counts`` (optional, whole numbers >= 1): how many identical messages each pair stands
    for, loading its channels that many times (the same result as repeating the pair).
    """
    require(ties in RING_TIES, f"unknown ring tie rule {ties!r}; choose one of "
                               f"{', '.join(RING_TIES)}")
    k = [int(x) for x in np.asarray(radices, dtype=np.int64).ravel()]
    total = math.prod(k)
    # 32-bit integers (their division is several times faster) when every index computed
    # below, at most 4 N, fits
    kind = np.int32 if 4 * total < 2**31 else np.int64
    sources = np.asarray(sources, dtype=np.int64).ravel().astype(kind)
    destinations = np.asarray(destinations, dtype=np.int64).ravel().astype(kind)
    if sources.shape[0] == 0:
        return 0, 0
    if counts is not None:
        counts = np.asarray(counts, dtype=np.int64).ravel()
    rings = np.broadcast_to(np.asarray(wrap, dtype=bool), (len(k),)).tolist()
    hops = np.zeros(sources.shape[0], dtype=kind)
    load = 0
    stride = 1
    # digit by digit: src_high = sources // (stride * radix) once digit i is taken off,
    # dst_low = destinations mod stride built up from the digits below i
    src_high = sources
    dst_high = destinations
    dst_low = np.zeros_like(destinations)
    for radix, ring in zip(k, rings):
        src = src_high % radix
        dst = dst_high % radix
        src_high = src_high // radix
        dst_high = dst_high // radix
        if ring:
            forward = (dst - src) % radix
            plus = 2 * forward < radix
            tie = 2 * forward == radix
            plus |= tie & ((src % 2 == 0) | (radix == 2)) if ties == "split" else tie
            steps = np.where(plus, forward, radix - forward)
        else:
            plus = dst >= src
            steps = np.abs(dst - src)
        hops += steps
        moving = steps > 0
        count = int(np.count_nonzero(moving))
        if count:
            # before moving in dimension i the message sits at (dst_<i, src_i, src_>i); its
            # ring is numbered by the endpoint index with coordinate i left out. A - move
            # from s over d channels is a + move in the mirrored ring x -> k-1-x, numbered
            # after the + rings: one count over both directions
            lines = total // radix
            line = dst_low + src_high * stride
            ring_index = np.where(plus, line, line + lines)
            first = np.where(plus, src, radix - 1 - src)
            if 8 * count < 2 * lines * radix:
                # few moves: only theirs (a message that stays adds nothing either way)
                ring_index, first, moved = ring_index[moving], first[moving], steps[moving]
                weights = None if counts is None else counts[moving]
            else:
                moved, weights = steps, counts
            load = max(load, _forward_loads(2 * lines, radix, ring_index, first, moved,
                                            weights))
        dst_low += dst * stride
        stride *= radix
    return int(hops.max()), load
