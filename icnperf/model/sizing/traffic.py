"""One round of a collective as blocks of consecutive endpoints see it.

A job's ranks sit on endpoints 0..n-1 in order (linear placement, workload.job_layout), and
every family the screen bounds groups consecutive endpoints: a dragonfly router holds p of
them and a group a·p, a megafly leaf k and a group k², a fat-tree pod of level l k^l. How
many of a round's messages run between, leave or enter such blocks bounds the round's
channel load and hop count from below (bound.py says which statistic bounds what, family by
family). This module counts them, for many block sizes at once and without a loop over
messages or blocks in Python.

Method (derived here). The round's messages are split by their shift c = destination -
source. Within one shift class the sources X are distinct and the messages are a
translation, so the sources in block j = [j·b, (j+1)·b) land in blocks q = j + floor(c/b)
and q + 1 only, split at s = (q + 1)·b - c; a prefix count of X counts both
parts for every (b, j) at once (from a prefix count of X, one gather each). Per block size b this gives

* ``pair``: the most messages of one shift class from one block to one other block;
* ``out`` / ``into``: the most messages leaving / entering one block (all classes counted);
* ``crosses``: whether some message joins two different blocks.

Only the ``MAX_CLASSES`` largest shift classes are counted (the irregular rounds of MPICH's
non-power-of-two fold have up to one class per message). Every statistic then counts a
subset of the round's messages, which can only lower a channel's load or the largest hop
count: each remains a lower bound of what the whole round puts on the network.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

MAX_CLASSES = 6
"""Most shift classes counted per round (the largest ones; module docstring)."""


@dataclass(frozen=True)
class Round:
    """``count`` identical rounds in which every ``sources[i]`` sends ``fraction`` of m to
    ``destinations[i]`` (ranks = endpoints); ``combine``: the receivers reduce."""

    count: int
    fraction: float
    combine: bool
    sources: np.ndarray
    destinations: np.ndarray
    key: bytes = b""
    """A digest of the message pattern (rounds of different algorithms share many);
    :func:`make_round` fills it."""
    blocks: int = 0
    """> 0: the vector is cut into that many blocks of whole elements (collectives'
    Step.blocks, Rabenseifner); bound.rounds_time then takes the smaller message size."""


def make_round(count: int, fraction: float, combine: bool, sources, destinations,
               blocks: int = 0) -> Round:
    """A Round with its digest."""
    src = np.ascontiguousarray(sources, dtype=np.int64)
    dst = np.ascontiguousarray(destinations, dtype=np.int64)
    return Round(int(count), float(fraction), bool(combine), src, dst, _digest(src, dst),
                 int(blocks))


def _digest(sources: np.ndarray, destinations: np.ndarray) -> bytes:
    return hashlib.blake2b(sources.tobytes() + b"|" + destinations.tobytes(),
                           digest_size=20).digest()


@lru_cache(maxsize=256)
def algorithm_rounds(algorithm: str, operation: str, ranks: int) -> tuple[Round, ...]:
    """The rounds of a point-to-point algorithm on ``ranks`` ranks, exactly as
    model/collectives schedules them (its ``_rounds``: the same messages, fractions and
    repeat counts, before they are mapped onto a network)."""
    from icnperf.model.collectives.schedules import _rounds

    rounds = _rounds(algorithm, operation, int(ranks))
    return tuple(make_round(count, fraction, combine, src, dst, blocks)
                 for (count, fraction, combine, src, dst), blocks in
                 zip(rounds.rounds, rounds.blocks))


@dataclass(frozen=True)
class BlockTraffic:
    """Per block size (``sizes[i]``, endpoints): ``pair[i]``, ``out[i]``, ``into[i]`` (message
    counts) and ``crosses[i]`` as the module docstring defines them."""

    sizes: np.ndarray
    pair: np.ndarray
    out: np.ndarray
    into: np.ndarray
    crosses: np.ndarray

    def at(self, sizes) -> BlockTraffic:
        """The statistics of the given block sizes (each one of ``self.sizes``), in that
        order; arrays keep the shape of ``sizes``."""
        index = np.searchsorted(self.sizes, np.asarray(sizes, dtype=np.int64))
        return BlockTraffic(self.sizes[index], self.pair[index], self.out[index],
                            self.into[index], self.crosses[index])


def shift_classes(sources: np.ndarray, destinations: np.ndarray):
    """The MAX_CLASSES largest shift classes as (shift, sorted distinct sources)."""
    shift = destinations - sources
    values, counts = np.unique(shift, return_counts=True)
    keep = values[np.argsort(-counts, kind="stable")[:MAX_CLASSES]]
    return [(int(c), np.unique(sources[shift == c])) for c in keep if c != 0]


_CLASSES: dict[bytes, list] = {}


def round_classes(r: Round) -> list:
    """shift_classes of a round as (shift, sources, prefix count) triples, the prefix count
    ``below[v]`` = sources < v for v = 0..n; kept by the round's digest (a study asks for
    the same rounds many times)."""
    if r.key not in _CLASSES:
        if len(_CLASSES) >= 1024:
            _CLASSES.clear()
        n = int(max(r.sources.max(), r.destinations.max())) + 1
        _CLASSES[r.key] = [(c, x, _prefix(x, n)) for c, x in
                           shift_classes(r.sources, r.destinations)]
    return _CLASSES[r.key]


def _prefix(x: np.ndarray, n: int) -> np.ndarray:
    below = np.zeros(n + 1, dtype=np.int64)
    below[x + 1] = 1
    return np.cumsum(below)


def block_traffic(sources, destinations, sizes, endpoints: int,
                  flows: bool = True) -> BlockTraffic:
    """The block statistics of one round's messages (endpoint indices below ``endpoints``)
    for every block size in ``sizes`` (module docstring); with ``flows`` False, ``out`` and
    ``into`` are left 0 (cheaper, when only ``pair`` and ``crosses`` are used). Cost:
    O(n + Σ_b ceil(n / b)) per shift class."""
    src = np.asarray(sources, dtype=np.int64).ravel()
    dst = np.asarray(destinations, dtype=np.int64).ravel()
    sizes = np.unique(np.asarray(sizes, dtype=np.int64))
    blocks = -(-int(endpoints) // sizes)                     # ceil(n / b) per size
    start = np.concatenate([[0], np.cumsum(blocks)])
    total = int(start[-1])
    b = np.repeat(sizes, blocks)
    j = np.arange(total, dtype=np.int64) - np.repeat(start[:-1], blocks)
    low, high = j * b, (j + 1) * b
    pair = np.zeros(total, dtype=np.int64)
    out = np.zeros(total, dtype=np.int64)
    into = np.zeros(total, dtype=np.int64)
    offset = np.repeat(start[:-1], blocks)
    last = np.repeat(blocks, blocks)
    n = int(endpoints)
    np.minimum(high, n, out=high)
    for c, x in shift_classes(src, dst):
        below = _prefix(x, n)                             # below[v] = sources < v
        q = j + np.floor_divide(c, b)
        split = np.minimum((q + 1) * b - c, high)
        at_low, at_split, at_high = below[low], below[split], below[high]
        first = at_split - at_low
        first[q == j] = 0
        second = at_high - at_split
        second[q + 1 == j] = 0
        np.maximum(pair, first, out=pair)
        np.maximum(pair, second, out=pair)
        if not flows:
            continue
        out += first + second
        for target, count in ((q, first), (q + 1, second)):
            inside = (count > 0) & (target >= 0) & (target < last)
            into += np.bincount(offset[inside] + target[inside], weights=count[inside],
                                minlength=total).astype(np.int64)
    segments = start[:-1]
    pair_max = np.maximum.reduceat(pair, segments) if total else pair
    return BlockTraffic(sizes, pair_max, np.maximum.reduceat(out, segments),
                        np.maximum.reduceat(into, segments), pair_max > 0)
