"""Closed forms of :func:`~icnperf.model.topology.torus.routes.dor_traffic` for the whole-
torus message patterns of the collective algorithms: every endpoint shifting by d, every
endpoint exchanging with its index XOR i, and every endpoint sending to every other.

Each returns exactly what ``dor_traffic`` returns for the explicit messages (largest hop
count, largest channel load; ties by :data:`~icnperf.model.topology.torus.routes.RING_TIES`,
rings or paths by ``wrap``), in O(dimensions) per pattern instead of O(endpoints x
dimensions), and vectorised over the shifts and masks. Endpoints are numbered dimension 0
fastest; N = prod k_j.

**Why every line sees one move.** Under DOR a message moves in dimension j from
(dst_<j, src_j, src_>j); the ring (or path) it moves along is fixed by dst_<j and src_>j.
In a shift r -> r + d mod N the digits add with carries: dst_j = src_j + d_j + c_j mod k_j,
where the carry c_j in {0, 1} is decided by the lower digits alone, and dst_<j fixes them.
So on one line all k_j sources move by the same delta (d_j + c_j) mod k_j, and the line's
load is that of a ring (path) of k_j routers in which every router moves by one delta. In
an XOR of power-of-two radices the digits are bit fields, dst_j = src_j XOR i_j with no
carry, and every line is the same ring with the same permutation. In the all-to-all every
line carries N / k_j copies of the ring's (path's) own all-to-all. Derived here; checked
against ``dor_traffic`` on explicit messages in tests/model/topology/test_torus_patterns.py.
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.model.topology.base import require
from icnperf.model.topology.torus.routes import RING_TIES, dor_traffic


def _checked(radices, ties, wrap):
    require(ties in RING_TIES, f"unknown ring tie rule {ties!r}; choose one of "
                               f"{', '.join(RING_TIES)}")
    k = [int(x) for x in radices]
    require(len(k) > 0 and all(x >= 2 for x in k), "torus: radices must be integers >= 2")
    rings = np.broadcast_to(np.asarray(wrap, dtype=bool), (len(k),)).tolist()
    return k, rings


def _uniform_move(k: int, delta, ties: str, ring: bool):
    """(hops, load) of a ring (``ring``) or path of k routers in which every router sends
    to the one ``delta`` (an array, 0 <= delta < k) steps ahead, mod k.

    Ring: a move of delta < k/2 steps + covers every + channel delta times (k sources,
    delta channels each, evenly); delta > k/2 goes - over k - delta. At delta = k/2: + for
    every source (ties ``plus``, and always on a radix-2 ring, one link), load k/2; ties
    ``split``: the even sources + and the odd -, and k/2 consecutive ring positions hold at
    most ceil(k/4) of one parity, so load ceil(k/4). Path: the k - delta sources below
    k - delta go + delta, the others - (k - delta); a + channel p is crossed by the sources
    in [p - delta + 1, p] below k - delta, at most min(delta, k - delta) (and the same
    for -), with hops max(delta, k - delta)."""
    delta = np.asarray(delta, dtype=np.int64)
    back = k - delta
    if ring:
        hops = np.minimum(delta, back)
        tie = 2 * delta == k
        tie_load = -(-k // 4) if ties == "split" and k > 2 else k // 2
        load = np.where(tie, tie_load, hops)
    else:
        hops = np.maximum(delta, back)
        load = np.minimum(delta, back)
    moving = delta > 0
    return np.where(moving, hops, 0), np.where(moving, load, 0)


def shift_traffic(radices, shifts, ties: str = "plus", wrap=True):
    """(hops, load) arrays, one entry per shift d in ``shifts`` (0 < d < N): the
    :func:`dor_traffic` of the N messages r -> (r + d) mod N, r = 0 .. N - 1.

    With d's digits d_j and the carry c_j into digit j (c_0 = 0), dimension j moves every
    message on a line by (d_j + c_j) mod k_j (module docstring), loading the line as
    :func:`_uniform_move`. Which carries occur: from carry c into digit j, some r_j gives
    carry 1 out iff d_j + c >= 1, and carry 0 out iff d_j + c <= k_j - 1; the digits r_j
    are free, so every path of carries through these transitions is some message's. Hence

        load = max over j and over carries c_j that occur of line_load(k_j, d_j + c_j)
        hops = max over carry paths of sum_j line_hops(k_j, d_j + c_j)

    (a dynamic programme over the two carry states, vectorised over the shifts). On a
    path the carry also fixes the way: the sources that carry 0 out move d_j + c_j steps
    +, those that carry 1 out k_j - d_j - c_j steps -."""
    k, rings = _checked(radices, ties, wrap)
    total = math.prod(k)
    d = np.asarray(shifts, dtype=np.int64).ravel()
    require(bool(np.all((d > 0) & (d < total))), "shifts must lie in 1 .. N - 1")
    negative = np.iinfo(np.int64).min // 4
    best = [np.zeros_like(d), np.full_like(d, negative)]      # hops so far, carry 0 / 1
    load = np.zeros_like(d)
    rest = d.copy()
    for radix, ring in zip(k, rings):
        digit = rest % radix
        rest //= radix
        reached = [best[0] > negative, best[1] > negative]
        out = [np.full_like(d, negative), np.full_like(d, negative)]
        for carry in (0, 1):
            total_move = digit + carry
            hops, line = _uniform_move(radix, total_move % radix, ties, ring)
            load = np.maximum(load, np.where(reached[carry], line, 0))
            # the sources that do not wrap (carry 0 out) move total_move steps, the others
            # (carry 1 out) radix - total_move back; on a ring both take the minimal way
            stay = hops if ring else total_move
            wrap_hops = hops if ring else radix - total_move
            to_one = reached[carry] & (total_move >= 1)
            to_zero = reached[carry] & (total_move <= radix - 1)
            out[1] = np.where(to_one, np.maximum(out[1], best[carry] + wrap_hops), out[1])
            out[0] = np.where(to_zero, np.maximum(out[0], best[carry] + stay), out[0])
        best = out
    return np.maximum(best[0], best[1]), load


def _ring_direction_loads(k: int, delta, ties: str):
    """(+ load, - load): the busiest channel of each direction of a ring of k routers in
    which every router sends one message ``delta`` steps ahead (0 <= delta < k), routed as
    dor_traffic routes it. A move other than a tie loads every channel of its direction
    alike (:func:`_uniform_move`); a split tie (k > 2) loads each direction at most
    ceil(k/4), and the same tie with any weight loads the same channels."""
    delta = np.asarray(delta, dtype=np.int64)
    tie = (2 * delta == k) & (k > 2)
    split = ties == "split"
    forward = (2 * delta < k) | ((2 * delta == k) & (k == 2)) | (tie & (not split))
    forward &= delta > 0
    backward = 2 * delta > k
    quarter = -(-k // 4)
    plus = np.where(forward, delta, np.where(tie & split, quarter, 0))
    minus = np.where(backward, k - delta, np.where(tie & split, quarter, 0))
    return plus, minus


def shift_pair_traffic(radices, shifts, near, far, ties: str = "plus"):
    """(hops, load) arrays, one entry per node shift d of ``shifts`` (0 <= d < N) on a
    torus of rings: every endpoint n sends ``near`` messages to (n + d) mod N and ``far``
    to (n + d + 1) mod N (weights per shift, >= 0; a move onto the endpoint itself is no
    message), all at once: what :func:`dor_traffic` returns for those messages with their
    repeats as ``counts``. A shift of ranks by i with c ranks on a node, placed linearly,
    is this with d = floor(i / c), near = c - i mod c, far = i mod c.

    Each of the two shifts moves all k_j sources of a line of dimension j by one delta
    (module docstring), d's by (d_j + c) mod k_j and d + 1's by (d'_j + c') mod k_j, with
    the carries c = [x < d mod N_<j] and c' = [x < d' mod N_<j] fixed by the line's
    x = dst_<j (d' = (d + 1) mod N). So a channel of the line carries near times d's load
    and far times d''s, each uniform along the line but for a split tie, whose pattern is
    the same at both weights (:func:`_ring_direction_loads`): the busiest channel of the
    line is the sum of the two weighted busiest. The pair (c, c') is constant on x in
    [0, min), [min, max) and [max, N_<j) of min, max of d mod N_<j and d' mod N_<j, so
    the pairs that occur are those at x = 0, d mod N_<j and d' mod N_<j. Hops: the larger
    of the two shifts' :func:`shift_traffic` hops among those that send."""
    k, _ = _checked(radices, ties, True)
    total = math.prod(k)
    d = np.asarray(shifts, dtype=np.int64).ravel()
    near = np.broadcast_to(np.asarray(near, dtype=np.int64), d.shape)
    far = np.broadcast_to(np.asarray(far, dtype=np.int64), d.shape)
    require(bool(np.all((d >= 0) & (d < total))), "shifts must lie in 0 .. N - 1")
    require(bool(np.all((near >= 0) & (far >= 0))), "weights must be >= 0")
    after = (d + 1) % total
    hops = np.zeros_like(d)
    for shift, weight in ((d, near), (after, far)):
        sends = (shift > 0) & (weight > 0)
        if sends.any():
            hops[sends] = np.maximum(hops[sends],
                                     shift_traffic(k, shift[sends], ties)[0])
    load = np.zeros_like(d)
    below = 1
    for radix in k:
        lows = (d % below, after % below)
        digits = ((d // below) % radix, (after // below) % radix)
        for x in (np.zeros_like(d), lows[0], lows[1]):
            plus = np.zeros_like(d)
            minus = np.zeros_like(d)
            for low, digit, weight in zip(lows, digits, (near, far)):
                delta = (digit + (x < low)) % radix
                up, down = _ring_direction_loads(radix, delta, ties)
                plus += weight * up
                minus += weight * down
            load = np.maximum(load, np.maximum(plus, minus))
        below *= radix
    return hops, load


def xor_traffic(radices, masks, ties: str = "plus", wrap=True):
    """(hops, load) arrays, one entry per mask i in ``masks`` (0 < i < N): the
    :func:`dor_traffic` of the N messages r -> r XOR i, on a torus whose radices are all
    powers of two (InputError otherwise).

    Digit j of r XOR i is r_j XOR i_j, so every line of dimension j carries the same ring
    permutation s -> s XOR i_j; its hops and load are those of the k_j messages on a ring
    of radix k_j, mapped with ``dor_traffic`` once per distinct i_j. The digits are
    independent, so the largest hop count is the sum of each dimension's largest."""
    k, rings = _checked(radices, ties, wrap)
    require(all(x & (x - 1) == 0 for x in k), "an XOR pattern needs power-of-two radices")
    i = np.asarray(masks, dtype=np.int64).ravel()
    require(bool(np.all((i > 0) & (i < math.prod(k)))), "masks must lie in 1 .. N - 1")
    hops = np.zeros_like(i)
    load = np.zeros_like(i)
    bit = 0
    for radix, ring in zip(k, rings):
        digit = (i >> bit) & (radix - 1)
        bit += radix.bit_length() - 1
        line = np.arange(radix, dtype=np.int64)
        table_hops = np.zeros(radix, dtype=np.int64)
        table_load = np.zeros(radix, dtype=np.int64)
        for a in sorted(set(digit.tolist())):  # np.unique would import numpy.ma
            if a:
                table_hops[a], table_load[a] = dor_traffic((radix,), line, line ^ a, ties,
                                                           wrap=[ring])
        hops += table_hops[digit]
        load = np.maximum(load, table_load[digit])
    return hops, load


def alltoall_traffic(radices, ties: str = "plus", wrap=True) -> tuple[int, int]:
    """(hops, load) of the N (N - 1) messages from every endpoint to every other: the
    :func:`dor_traffic` of the all-to-all.

    Every line of dimension j carries N / k_j copies of its ring's (path's) all-to-all
    (module docstring). Ring of k, U = L (L + 1) / 2 with L = floor((k - 1) / 2): the
    moves of delta = 1 .. L steps load every + channel U times in all, and those of
    k - L .. k - 1 steps every - channel U times; at delta = k/2 (k even) the ties add
    k/2 to every + channel (``plus``, and any radix-2 ring) or, ``split``, ceil(k/4) at most
    to one channel of each direction (:func:`_uniform_move`). Path of k: the + channel
    after router p is crossed by (p + 1)(k - 1 - p) messages, at most
    floor(k/2) ceil(k/2). Hops: the diameter, sum of floor(k_j / 2) (ring) or k_j - 1
    (path)."""
    k, rings = _checked(radices, ties, wrap)
    total = math.prod(k)
    hops = load = 0
    for radix, ring in zip(k, rings):
        if ring:
            half = (radix - 1) // 2
            line = half * (half + 1) // 2
            if radix % 2 == 0:
                line += -(-radix // 4) if ties == "split" and radix > 2 else radix // 2
            hops += radix // 2
        else:
            line = (radix // 2) * (radix - radix // 2)
            hops += radix - 1
        load = max(load, total // radix * line)
    return hops, load
