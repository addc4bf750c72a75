"""Channel loads of weighted shifts on a torus under dimension-order routing, counted line
by line: :class:`ChannelLoads` accumulates messages given as shifts (every endpoint n sends
w[n] messages to (n + D) mod N, any weights) and answers what
:func:`~icnperf.model.topology.torus.routes.dor_traffic` answers for all of them sent at
once (largest hop count, largest channel load), exactly, in O(N) per shift and dimension
that moves, however many messages the weights stand for.

**Why a shift is counted per line.** Endpoints are numbered dimension 0 fastest, N =
prod k_j, and n's digits below j form lo = n mod N_<j (N_<j = k_0 ... k_{j-1}). A message
of the shift moves in dimension j on the line (dst_<j, src_>j). Adding D = (.., d_j, d_lo)
carries 1 into digit j exactly when lo + d_lo >= N_<j, so the carry, and with it the move
t = (d_j + carry) mod k_j of dimension j, is the same for every source on a line (dst_<j
fixes lo): the k_j sources of a line all move t steps. So a line's + channel p carries the
weights of the sources in the window [p - t + 1, p] (those going +), its - channel p those
in [p, p + t' - 1] (those going - over t' steps), both cyclic. The lines of one carry are a
contiguous block of lo, whose destinations lo + d_lo - carry N_<j are contiguous too, so a
whole block is a few whole-array additions. The direction of a move follows dor_traffic:
the minimal way round a ring, a tie (t = k/2) + or, ``split``, + from even positions and -
from odd (a radix-2 ring always +); along a path + when the source's coordinate plus t
stays below k, else - over k - t. Channels of different dimensions are distinct, and the
loads of several shifts add channel by channel. Derived here; equal to dor_traffic on the
explicit messages in tests/model/topology/test_torus_shifts.py.

The channel leaving router (dst_<j, p, src_>j) in dimension j is stored at [p, src_>j,
dst_<j] of that dimension's + or - array: the + channel joins p to p + 1, the - channel p to
p - 1.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from icnperf.model.topology.base import require
from icnperf.model.topology.torus.routes import RING_TIES


def _add_windows(channels: np.ndarray, weights: np.ndarray, steps: int, plus: bool) -> None:
    """Along axis 0 (length k): add to channels[p] the sum of weights[p - i] (``plus``) or
    weights[p + i] (-) over i = 0 .. steps - 1, positions mod k: two slices added in place
    per i (the part that wraps and the part that does not), or for longer windows one
    running sum over the line extended by the wrapped part."""
    k = weights.shape[0]
    if steps <= 2:
        for i in range(steps):
            if plus:
                channels[i:] += weights[:k - i]
                channels[:i] += weights[k - i:]
            else:
                channels[:k - i] += weights[i:]
                channels[k - i:] += weights[:i]
        return
    if plus:
        extended = np.concatenate([weights[k - steps:], weights])
    else:
        extended = np.concatenate([weights, weights[:steps]])
    running = np.cumsum(extended, axis=0)
    if plus:
        # sum of extended[p + 1 .. p + steps]
        channels += running[steps:steps + k]
        channels -= running[:k]
    else:
        # sum of extended[p .. p + steps - 1]
        channels += running[steps - 1:steps - 1 + k]
        channels[1:] -= running[:k - 1]


@lru_cache(maxsize=64)
def _residues(radices: tuple[int, ...], j: int) -> np.ndarray:
    """n mod (k_0 ... k_{j-1}) of every endpoint n (cached: shifts on one torus share it)."""
    total = math.prod(radices)
    return np.arange(total, dtype=np.int32 if total < 2**31 else np.int64) % math.prod(
        radices[:j])


class ChannelLoads:
    """Messages on a torus (radices, dimension 0 fastest) routed by dimension order with
    ring ties ``ties`` (routes.RING_TIES) and ``wrap`` (a bool, or one per dimension: ring
    or path), accumulated per channel (module docstring). :meth:`add_shift` adds
    messages; :attr:`hops` and :attr:`load` are what routes.dor_traffic returns for all of
    them. The channels of dimension j are kept as an
    array (k_j, N_>j, N_<j): position along the line first, so that a move along the
    lines is a few whole-slice additions."""

    def __init__(self, radices, ties: str = "plus", wrap=True):
        require(ties in RING_TIES, f"unknown ring tie rule {ties!r}; choose one of "
                                   f"{', '.join(RING_TIES)}")
        self.radices = [int(x) for x in radices]
        require(len(self.radices) > 0 and all(x >= 2 for x in self.radices),
                "torus: radices must be integers >= 2")
        self.ties = ties
        self.rings = np.broadcast_to(np.asarray(wrap, dtype=bool),
                                     (len(self.radices),)).tolist()
        self.total = math.prod(self.radices)
        self.hops = 0
        self._plus: list[np.ndarray | None] = [None] * len(self.radices)
        self._minus: list[np.ndarray | None] = [None] * len(self.radices)

    def _shape(self, j: int) -> tuple[int, int, int]:
        """(N_>j, k_j, N_<j)."""
        below = math.prod(self.radices[:j])
        return self.total // (below * self.radices[j]), self.radices[j], below

    def _channels(self, j: int, plus: bool) -> np.ndarray:
        store = self._plus if plus else self._minus
        if store[j] is None:
            high, radix, below = self._shape(j)
            store[j] = np.zeros((radix, high, below), dtype=np.int64)
        return store[j]

    @property
    def load(self) -> int:
        """The most messages on one channel (0 with no message)."""
        return max([int(a.max()) for a in self._plus + self._minus if a is not None],
                   default=0)

    def _residues(self, j: int) -> np.ndarray:
        """n mod N_<j of every endpoint n."""
        return _residues(tuple(self.radices), j)

    def add_shift(self, offset: int, weights) -> None:
        """Every endpoint n sends ``weights[n]`` (whole numbers >= 0, one per endpoint)
        messages to (n + offset) mod N; offset 0 adds nothing.

        Hops: on a ring a source's steps in dimension j depend on its carry into j only,
        so the largest hop count is the largest sum over the carry patterns that some
        source with a message has; along a path they depend on its coordinate too, and
        are summed source by source."""
        weights = np.asarray(weights, dtype=np.int64)
        require(weights.shape == (self.total,), "one weight per endpoint")
        offset = int(offset) % self.total
        sending = weights > 0
        if offset == 0 or not sending.any():
            return
        # rings: a source's carry pattern (one bit per dimension that may carry) and the
        # steps of every pattern
        code = np.zeros(self.total, dtype=np.int64)
        table = np.zeros(1, dtype=np.int64)
        bit = 0
        path_hops = np.zeros(self.total, dtype=np.int64)
        for j, (radix, ring) in enumerate(zip(self.radices, self.rings)):
            high, _, below = self._shape(j)
            d_low, d_j = offset % below, (offset // below) % radix
            view = weights.reshape(high, radix, below).transpose(1, 0, 2)
            steps = [0, 0]
            for carry, start, stop in ((0, 0, below - d_low), (1, below - d_low, below)):
                move = (d_j + carry) % radix
                if start == stop or move == 0:
                    continue
                target = slice(start + d_low - carry * below, stop + d_low - carry * below)
                up, steps_up, steps_down = self._directions(radix, ring, move)
                self._load(j, np.ascontiguousarray(view[:, :, start:stop]), target, up,
                           steps_up, steps_down)
                if ring:
                    steps[carry] = steps_up if up.all() else steps_down
                else:
                    position = (np.arange(self.total) // below) % radix
                    residue = self._residues(j)
                    mine = (residue >= start) & (residue < stop)
                    path_hops += np.where(mine & up[position], steps_up,
                                          np.where(mine, steps_down, 0))
            if ring and d_low:
                # the next bit of the pattern: whether the source carries into digit j
                code |= (self._residues(j) >= below - d_low).astype(np.int64) << bit
                bit += 1
                table = np.concatenate([table + steps[0], table + steps[1]])
            elif ring:
                table = table + steps[0]
        if self.rings.count(False):
            self.hops = max(self.hops, int((table[code] + path_hops)[sending].max()))
            return
        present = np.bincount(code[sending], minlength=table.size) > 0
        self.hops = max(self.hops, int(table[present].max()))

    def _directions(self, radix: int, ring: bool, move: int):
        """(which positions move +, steps +, steps -) of a move by ``move`` (0 < move <
        k) along a line: the minimal way round a ring, a tie by the rule; along a path
        + while the destination stays below k."""
        position = np.arange(radix)
        back = radix - move
        if not ring:
            return position + move < radix, move, back
        if 2 * move < radix:
            return np.ones(radix, dtype=bool), move, back
        if 2 * move > radix:
            return np.zeros(radix, dtype=bool), move, back
        if self.ties == "split" and radix > 2:
            return position % 2 == 0, move, move
        return np.ones(radix, dtype=bool), move, move

    def _load(self, j, weights, target, up, steps_up, steps_down) -> None:
        """The sources of ``weights`` (k, N_>j, block) move along their lines, + from the
        positions ``up`` over steps_up channels, - from the others over steps_down; load
        the channels of the lines ``target`` (a slice of N_<j)."""
        for going_up, steps in ((True, steps_up), (False, steps_down)):
            chosen = up if going_up else ~up
            if not chosen.any():
                continue
            part = weights if chosen.all() else weights * chosen[:, None, None]
            _add_windows(self._channels(j, going_up)[:, :, target], part, steps, going_up)
