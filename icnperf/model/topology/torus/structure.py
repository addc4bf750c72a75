"""Torus and mesh structure: a batch of radices evaluated in blocks, and the structural metrics.

Every function here takes radices of shape (..., n), a batch of configurations with the same
dimension count n (a tuple for one configuration), and returns an array of shape (...):
routers and links (counts), router radix (ports), diameter and mean distance (router hops),
bisection links (count). ``wrap=True`` is the torus, ``wrap=False`` the mesh, and a sequence
of n booleans mixes them per dimension (True: a ring, False: a path without wraparound), as
Tofu's 6D mesh/torus does. Conventions (one endpoint per router, a radix-2 ring is one link,
radix-1 dimensions as identities): :mod:`icnperf.model.topology.torus`.

The per-dimension ("line") terms are derived for one ring or path and combined over the
Cartesian product as each docstring says. Sources: Dally & Towles, *Principles and Practices
of Interconnection Networks* (2004), §5.1-5.2; everything else is derived here and checked
against brute force in tests/model/topology/test_torus.py.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from icnperf.model.topology.base import require

# --- parameters -----------------------------------------------------------------------
#
# Internally configurations are evaluated in blocks: a float64 array of shape (n, b), one row
# per dimension and one column per configuration, so that per-dimension sums, maxima and
# products are row operations. float64 holds every count exactly (N <= MAX_ENDPOINTS < 2^53).

_BLOCK = 1 << 14
"""Configurations evaluated together: keeps every temporary small enough to stay in cache."""


def _parse(radices) -> tuple[np.ndarray, tuple[int, ...]]:
    """(configurations x dimensions array, batch shape) from radices of shape (..., n)."""
    raw = np.asarray(radices)
    require(raw.ndim >= 1 and raw.shape[-1] >= 1, "torus: radices need at least one dimension")
    require(raw.dtype.kind in "iuf", "torus: radices must be integers")
    if raw.dtype.kind == "f":
        require(bool(np.all(raw == np.floor(raw))), "torus: radices must be integers")
    require(raw.size == 0 or raw.min() >= 1, "torus: every radix must be >= 1")
    return raw.reshape(-1, raw.shape[-1]), raw.shape[:-1]


class _Lines(NamedTuple):
    """Per-dimension quantities of a block of configurations (rows = dimensions)."""

    k: np.ndarray
    half: np.ndarray
    odd: np.ndarray
    routers: np.ndarray
    before: np.ndarray
    after: np.ndarray


def _lines(block: np.ndarray) -> _Lines:
    """_Lines of a (b, n) block of radices: k, floor(k/2), 1.0 if k odd, N, A_j, B_j.

    A_j = prod_{i<j} k_i and B_j = prod_{i>j} k_i (1 for the first/last dimension).
    """
    k = np.ascontiguousarray(block.T, dtype=float)
    half = np.floor(0.5 * k)
    before = [np.ones_like(k[0])]
    for row in k[:-1]:
        before.append(before[-1] * row)
    before_rows = np.stack(before)
    routers = before[-1] * k[-1]
    return _Lines(k, half, k - 2.0 * half, routers, before_rows, routers / (before_rows * k))


def _evaluate(radices, compute) -> dict[str, np.ndarray]:
    """compute(_Lines) -> {name: (b,) array}, evaluated block by block, shaped like the batch.

    A loop over blocks of _BLOCK configurations, each block vectorized; on large batches it
    is several times faster than one pass whose temporaries do not fit in cache.
    """
    flat, shape = _parse(radices)
    total = flat.shape[0]
    joined: dict[str, np.ndarray] = {}
    for start in range(0, max(total, 1), _BLOCK):
        for name, values in compute(_lines(flat[start : start + _BLOCK])).items():
            joined.setdefault(name, np.empty(total))[start : start + len(values)] = values
    return {name: values.reshape(shape) for name, values in joined.items()}


def _one(radices, metric, *args) -> np.ndarray:
    """One metric(_Lines, *args) over a batch of radices, shaped like the batch."""
    return _evaluate(radices, lambda lines: {"value": metric(lines, *args)})["value"]


def wrap_mask(wrap, dimensions: int):
    """``wrap`` as True (every dimension a ring), False (every one a path) or an (n, 1)
    boolean column, one row per dimension, for a mix; InputError on a bad value.

    ``wrap`` is a bool or a sequence of ``dimensions`` bools (True: torus ring, False: mesh
    path), the same for every configuration of a batch.
    """
    if isinstance(wrap, (bool, np.bool_)):
        return bool(wrap)
    if isinstance(wrap, np.ndarray) and wrap.dtype == bool:
        wrap = tuple(wrap.ravel().tolist())
    flags = tuple(wrap) if isinstance(wrap, (tuple, list)) else None
    require(flags is not None and all(isinstance(f, (bool, np.bool_)) for f in flags),
            f"torus: wrap must be a bool or one bool per dimension, not {wrap!r}")
    require(len(flags) == dimensions,
            f"torus: {len(flags)} wrap flags for {dimensions} dimensions")
    if all(flags) or not any(flags):
        return bool(flags[0])
    return np.array(flags, dtype=bool)[:, None]


def _per_dimension(wrap, g: _Lines, ring, path) -> np.ndarray:
    """Per-dimension rows: ``ring()`` where a dimension wraps, ``path()`` where it does not.

    ``ring`` and ``path`` are callables returning (n, b) rows (or scalars), so an all-torus
    or all-mesh block computes one of them only.
    """
    mask = wrap_mask(wrap, len(g.k))
    if mask is True:
        return ring()
    if mask is False:
        return path()
    return np.where(mask, ring(), path())


# --- structure (each takes _Lines and returns shape (b,)) -------------------------------


def _routers(g: _Lines) -> np.ndarray:
    return g.routers


def _radix(g: _Lines) -> np.ndarray:
    return 1.0 + np.sum(np.minimum(g.k - 1.0, 2.0), axis=0)


def _links(g: _Lines, wrap) -> np.ndarray:
    # N/k_i lines of L(k_i) links: N - N/k_i for a path (and k <= 2), N for a ring of k > 2.
    path = g.routers - g.before * g.after
    per_dimension = _per_dimension(wrap, g, lambda: np.where(g.k > 2.0, g.routers, path),
                                   lambda: path)
    return np.sum(per_dimension, axis=0)


def _diameter(g: _Lines, wrap) -> np.ndarray:
    return np.sum(_per_dimension(wrap, g, lambda: g.half, lambda: g.k - 1.0), axis=0)


def _average_distance(g: _Lines, wrap) -> np.ndarray:
    per_dimension = _per_dimension(wrap, g, lambda: 0.25 * (g.k - g.odd / g.k),
                                   lambda: (g.k - 1.0 / g.k) / 3.0)
    total = np.sum(per_dimension, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return g.routers / (g.routers - 1.0) * total


def _descending(keys: np.ndarray, *payloads: np.ndarray) -> list[list[np.ndarray]]:
    """Rows sorted column-wise by decreasing key (a compare-exchange network): the sorted
    keys, then each payload row reordered alike."""
    rows = [list(keys)] + [list(p) for p in payloads]
    for end in range(len(rows[0]) - 1, 0, -1):
        for i in range(end):
            if len(rows) == 1:
                high = np.maximum(rows[0][i], rows[0][i + 1])
                rows[0][i + 1] = np.minimum(rows[0][i], rows[0][i + 1])
                rows[0][i] = high
                continue
            swap = rows[0][i] < rows[0][i + 1]
            for row in rows:
                row[i], row[i + 1] = (np.where(swap, row[i + 1], row[i]),
                                      np.where(swap, row[i], row[i + 1]))
    return rows


def _bisection(g: _Lines, wrap) -> np.ndarray:
    # Cutting dimension j severs c_j links per line (c = 2 for a ring of k > 2, 1 for a
    # radix-2 ring or a path) of each of N/k_j lines. Cut dimensions in decreasing order of
    # k_j/c_j (the links a slab boundary costs, relative), an even radix before an odd one of
    # the same ratio; radix-1 identity dimensions come last (nothing to cut). Stop after the
    # first even radix; every one before it is odd, so slabs shrink by exactly that radix.
    mask = wrap_mask(wrap, len(g.k))
    if mask is True or mask is False:
        # one kind of dimension: the key alone orders them; a radix-2 ring (1 link a line)
        # cuts like a ring of 4 (2 links a line, N/4 lines) and both are even, so it sorts
        # as 4 and needs no payload
        key = np.where(g.k == 2.0, 4.0, g.k) if mask else g.k
        (k,) = _descending(key)
        cut_per_line = [np.minimum(row - 1.0, 2.0 if mask else 1.0) for row in k]
    else:
        per_line = np.where(mask, np.minimum(g.k - 1.0, 2.0), 1.0)
        ratio = 2.0 * g.k / np.maximum(per_line, 1.0)
        order_key = np.where(g.k > 1.0, 2.0 * ratio + (1.0 - g.odd), 0.0)
        _, k, cut_per_line = _descending(order_key, g.k, per_line)
    slab = g.routers
    cutting = np.ones_like(slab)
    total = np.zeros_like(slab)
    for row, links in zip(k, cut_per_line):
        slab = slab / row
        total = total + cutting * np.where(row > 1.0, links, 0.0) * slab
        cutting = cutting * (row - 2.0 * np.floor(0.5 * row))
    return total


# --- public structural metrics (radices of shape (..., n) -> arrays of shape (...)) -----


def router_count(radices) -> np.ndarray:
    """Routers N = prod_i k_i (= endpoints, one per router); Dally & Towles §5.1."""
    return _one(radices, _routers)


def router_radix(radices) -> np.ndarray:
    """Router ports: 1 endpoint port + min(k_i - 1, 2) per dimension (2 for k > 2, 1 for k = 2).

    Derived here: a ring of k > 2 gives each router two distinct neighbours, a radix-2 ring
    one (single link). For a mesh this is the interior router, the maximum degree.
    """
    return _one(radices, _radix)


def link_count(radices, wrap=True) -> np.ndarray:
    """Bidirectional router-router links: sum_i (N/k_i) * L(k_i).

    L(k) = k links per ring for k > 2 and 1 for k = 2 (torus), k - 1 per path (mesh); a
    mixed ``wrap`` takes each dimension's own L.
    Derived here: dimension i holds N/k_i disjoint rings/paths (Dally & Towles §5.1 for
    equal radices: n*N links).
    """
    return _one(radices, _links, wrap)


def diameter(radices, wrap=True) -> np.ndarray:
    """Diameter in hops: sum_i floor(k_i/2) (ring) or (k_i - 1) (path), per dimension.

    Distances in a Cartesian product add per dimension; Dally & Towles §5.2 (n*floor(k/2)).
    """
    return _one(radices, _diameter, wrap)


def average_distance(radices, wrap=True) -> np.ndarray:
    """Mean hops over ordered pairs of distinct endpoints: N/(N-1) * sum_i m(k_i).

    m(k) is the mean distance from a router to all k routers of its ring/path, itself
    included: ring k/4 (even k), (k^2-1)/(4k) (odd k); path (k^2-1)/(3k), each dimension
    its own (a mixed ``wrap``). Derived here:
    coordinates of a uniform pair are independent, so means add (Dally & Towles §5.2 give
    nk/4 for even k with self pairs); self pairs have 0 hops, hence the factor N/(N-1).
    """
    return _one(radices, _average_distance, wrap)


def bisection_links(radices, wrap=True) -> np.ndarray:
    """Links cut by a minimum balanced cut (parts floor(N/2) and ceil(N/2)).

    Cutting across dimension j severs c_j * N/k_j links, c_j = 2 for a ring of k > 2 and 1
    for a radix-2 ring or a path (Dally & Towles §5.2: 2N/k links for even k). Even k_j
    splits exactly; odd k_j puts floor(k_j/2) slabs on one side plus a bisected middle slab,
    costing c_j*N/k_j + B(slab) (derived here). Cutting dimensions in decreasing k_j/c_j
    (an even radix first among equal ratios) until the first even one is optimal over these
    staircase cuts (checked against the full recursion) and equals the exact minimum
    bisection on every instance searched (exhaustive/MILP, up to 125 routers; mixed
    torus/mesh dimensions exhaustively up to 16 routers and by MILP on 12 instances of 18 to
    48 routers, 2 to 5 dimensions). For an even
    largest radix this is 2N/k_max (N/k_max for k_max = 2 or a mesh).
    """
    return _one(radices, _bisection, wrap)
