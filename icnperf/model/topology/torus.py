"""Torus (k-ary n-cube with mixed radices), mesh and hypercube under dimension-order routing.

A configuration is a tuple of radices (k_0, ..., k_{n-1}); routers sit at the coordinates
x = (x_0, ..., x_{n-1}), 0 <= x_i < k_i, and router x links to x ± e_i (mod k_i in a torus).
Conventions (each also in the returned ``notes``):

* One endpoint per router (Angara attaches one node per router), so endpoints = routers = N.
* A radix-2 ring is ONE bidirectional link (no parallel edges), so ``torus:2x2x2`` and
  ``hypercube:3`` are the same network. ``hypercube:n`` is the torus of n radix-2 dimensions.
* Specs require every radix >= 2. Internally a radix-1 dimension is the identity (one router
  across it, no links); the vectorized hypercube uses it to pad configurations of different n.
* Routing is dimension-order (DOR): dimension 0 (X) first, then 1 (Y), 2 (Z), ... In a torus
  each ring is crossed in the minimal direction; at distance exactly k/2 (even k) the +
  direction is taken (the metrics here; :func:`dor_traffic` can also split such ties,
  :data:`RING_TIES`). A mesh routes DOR without wraparound.
* radix = max router degree + 1 endpoint port: 2 ports per dimension of radix > 2, 1 per
  dimension of radix 2 (mesh: interior routers; edge and corner routers use fewer ports).

Formulas are closed forms in the radices; the per-dimension ("line") terms are derived for one
ring/path and combined over the Cartesian product as each docstring says. The sources are
Dally & Towles, *Principles and Practices of Interconnection Networks* (2004), §3.2-3.3 and
§5.2 (torus), and Towles & Dally, "Worst-case traffic for oblivious routing functions" (2002)
for the worst-case method; everything else is derived here and checked against brute force
in tests/model/topology/test_torus.py.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from icnperf.model.topology.base import (
    COMMON_NOTES,
    MAX_ENDPOINTS,
    is_integer,
    require_within_limit,
    PATTERNS,
    Family,
    Metrics,
    require,
)

_SHARED_NOTES = (
    "one endpoint per router (Angara attaches one node per router)",
    "routing: dimension-order, dimension 0 (X) first, then Y, Z, ...",
    "bisection_links: exact minimum balanced cut (parts floor(N/2), ceil(N/2)); an even "
    "dimension is cut straight through, an odd one by a staircase (half the slabs plus a "
    "bisected middle slab)",
    "tornado: destination (x_i + ceil(k_i/2) - 1) mod k_i in every dimension; radix-2 "
    "dimensions do not move",
    "bit-complement: destination d_i = k_i - 1 - x_i in every dimension (any radix; the "
    "complement of every address bit when all radices are powers of two)",
    "transpose: swaps coordinates (x_0..x_{n/2-1}) with (x_{n/2}..x_{n-1}); defined only when "
    "n is even and k_i = k_{i+n/2}, NaN otherwise",
    "worst-case: exact maximum over permutations of gamma_max under DOR (per-channel maximum "
    "matching, Towles & Dally 2002), closed form derived here",
)

_TORUS_NOTES = (
    "routing: minimal direction in each ring; at distance exactly k/2 (even k) the + "
    "direction is taken",
    "a radix-2 ring is one bidirectional link (no parallel edges): torus:2x2x2 is hypercube:3",
    "radix = max router degree + 1 endpoint port: 2 ports per dimension of radix > 2, 1 per "
    "radix-2 dimension",
    "uniform: with ties to +, an even ring's + channels carry (k+2)/8 and its - channels "
    "(k-2)/8 (Dally & Towles' k/8 splits ties evenly)",
    "nearest-neighbour: each endpoint sends 1/(2n) of its traffic to each of its 2n +-1 "
    "neighbours; in a radix-2 ring both shares go to the same router (1/n on that channel)",
)

_MESH_NOTES = (
    "routing: no wraparound; each dimension is crossed along the path",
    "radix = max router degree + 1 endpoint port (interior routers: 2 ports per dimension of "
    "radix > 2, 1 per radix-2 dimension); edge and corner routers use fewer ports",
    "nearest-neighbour: each endpoint sends 1/(2n) of its traffic to each existing +-1 "
    "neighbour; shares for neighbours beyond the border are not sent",
)

_HYPERCUBE_NOTES = (
    "hypercube:n is the torus of n radix-2 dimensions (one link per dimension)",
    "tornado: every shift ceil(2/2) - 1 is 0, so each endpoint sends to itself (gamma 0)",
    "transpose: swaps the first n/2 address bits with the last n/2; NaN for odd n",
    "nearest-neighbour: 1/n of each endpoint's traffic to each of its n neighbours",
)


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


# --- structure (each takes _Lines and returns shape (b,)) -------------------------------


def _routers(g: _Lines) -> np.ndarray:
    return g.routers


def _radix(g: _Lines) -> np.ndarray:
    return 1.0 + np.sum(np.minimum(g.k - 1.0, 2.0), axis=0)


def _links(g: _Lines, wrap: bool) -> np.ndarray:
    # N/k_i lines of L(k_i) links: N - N/k_i for a path (and k <= 2), N for a ring of k > 2.
    per_dimension = g.routers - g.before * g.after
    if wrap:
        per_dimension = np.where(g.k > 2.0, g.routers, per_dimension)
    return np.sum(per_dimension, axis=0)


def _diameter(g: _Lines, wrap: bool) -> np.ndarray:
    return np.sum(g.half if wrap else g.k - 1.0, axis=0)


def _average_distance(g: _Lines, wrap: bool) -> np.ndarray:
    if wrap:
        total = 0.25 * np.sum(g.k - g.odd / g.k, axis=0)
    else:
        total = np.sum(g.k - 1.0 / g.k, axis=0) / 3.0
    with np.errstate(divide="ignore", invalid="ignore"):
        return g.routers / (g.routers - 1.0) * total


def _descending(keys: np.ndarray) -> list[np.ndarray]:
    """The rows of keys sorted column-wise in decreasing order (compare-exchange network)."""
    rows = list(keys)
    for end in range(len(rows) - 1, 0, -1):
        for i in range(end):
            high, low = np.maximum(rows[i], rows[i + 1]), np.minimum(rows[i], rows[i + 1])
            rows[i], rows[i + 1] = high, low
    return rows


def _bisection(g: _Lines, wrap: bool) -> np.ndarray:
    # Cut dimensions in decreasing order of key = links per line cut / slab size: k for
    # meshes and rings of k > 2, 4 for a radix-2 ring (1 link per line, like k = 4 with 2),
    # radix-1 identity dimensions last (key 1, nothing to cut). Stop after the first even
    # key; every key before it is an odd radix, so slabs shrink by exactly that key.
    key = np.where(g.k == 2.0, 4.0, g.k) if wrap else g.k
    slab = g.routers
    cutting = np.ones_like(slab)
    total = np.zeros_like(slab)
    for row in _descending(key):
        slab = slab / row
        cut_per_line = np.minimum(row - 1.0, 2.0 if wrap else 1.0)
        total = total + cutting * cut_per_line * slab
        cutting = cutting * (row - 2.0 * np.floor(0.5 * row))
    return total


# --- channel loads (each takes _Lines and returns shape (b,)) ---------------------------


def _uniform(g: _Lines, wrap: bool) -> np.ndarray:
    if wrap:
        return np.max(g.k + 2.0 - g.odd * (2.0 + 1.0 / g.k), axis=0) / 8.0
    return np.max(g.half * (g.k - g.half) / g.k, axis=0)


def _tornado(g: _Lines) -> np.ndarray:
    return np.max(g.half + g.odd - 1.0, axis=0)


def _bit_complement(g: _Lines, wrap: bool) -> np.ndarray:
    return np.max(np.floor(0.25 * (g.k + 2.0)) if wrap else g.half, axis=0)


def _transpose(g: _Lines, wrap: bool) -> np.ndarray:
    n = len(g.k)
    if n % 2:
        return np.full_like(g.routers, np.nan)
    h = n // 2
    symmetric = np.all(g.k[:h] == g.k[h:], axis=0)
    per_line = g.half[:h] if wrap else g.k[:h] - 1.0
    within_half = g.before[h] / (g.before[:h] * g.k[:h])
    all_to_one = np.max(per_line * g.before[:h], axis=0)
    one_to_all = np.max(per_line * within_half, axis=0)
    return np.where(symmetric, np.maximum(all_to_one, one_to_all), np.nan)


def _nearest_neighbour(g: _Lines, wrap: bool) -> np.ndarray:
    dimensions = np.sum(g.k >= 2.0, axis=0)
    share = np.where(np.any(g.k == 2.0, axis=0), 2.0, 1.0) if wrap else 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        return share / (2.0 * dimensions)


def _worst_case(g: _Lines, wrap: bool) -> np.ndarray:
    if wrap:
        return np.max(g.half * np.minimum(g.before, g.after), axis=0)
    # max over m in 1..k-1 of min(m*A, (k-m)*B): at floor or ceil of the crossing
    # m* = k*B/(A+B) in (0, k); m = 0 or m = k give 0, so no clipping is needed. The float
    # floor is exact: k*(A+B) <= 2N keeps the rounding error below the gap 1/(A+B).
    m = np.floor(g.k * g.after / (g.before + g.after))
    low = np.minimum(m * g.before, (g.k - m) * g.after)
    high = np.minimum((m + 1.0) * g.before, (g.k - m - 1.0) * g.after)
    return np.max(np.maximum(low, high), axis=0)


# --- public metric functions (radices of shape (..., n) -> arrays of shape (...)) -------


def router_count(radices) -> np.ndarray:
    """Routers N = prod_i k_i (= endpoints, one per router); Dally & Towles §5.1."""
    return _one(radices, _routers)


def router_radix(radices) -> np.ndarray:
    """Router ports: 1 endpoint port + min(k_i - 1, 2) per dimension (2 for k > 2, 1 for k = 2).

    Derived here: a ring of k > 2 gives each router two distinct neighbours, a radix-2 ring
    one (single link). For a mesh this is the interior router, the maximum degree.
    """
    return _one(radices, _radix)


def link_count(radices, wrap: bool = True) -> np.ndarray:
    """Bidirectional router-router links: sum_i (N/k_i) * L(k_i).

    L(k) = k links per ring for k > 2 and 1 for k = 2 (torus), k - 1 per path (mesh).
    Derived here: dimension i holds N/k_i disjoint rings/paths (Dally & Towles §5.1 for
    equal radices: n*N links).
    """
    return _one(radices, _links, wrap)


def diameter(radices, wrap: bool = True) -> np.ndarray:
    """Diameter in hops: sum_i floor(k_i/2) (torus) or sum_i (k_i - 1) (mesh).

    Distances in a Cartesian product add per dimension; Dally & Towles §5.2 (n*floor(k/2)).
    """
    return _one(radices, _diameter, wrap)


def average_distance(radices, wrap: bool = True) -> np.ndarray:
    """Mean hops over ordered pairs of distinct endpoints: N/(N-1) * sum_i m(k_i).

    m(k) is the mean distance from a router to all k routers of its ring/path, itself
    included: ring k/4 (even k), (k^2-1)/(4k) (odd k); path (k^2-1)/(3k). Derived here:
    coordinates of a uniform pair are independent, so means add (Dally & Towles §5.2 give
    nk/4 for even k with self pairs); self pairs have 0 hops, hence the factor N/(N-1).
    """
    return _one(radices, _average_distance, wrap)


def bisection_links(radices, wrap: bool = True) -> np.ndarray:
    """Links cut by a minimum balanced cut (parts floor(N/2) and ceil(N/2)).

    Cutting across dimension j severs c_j * N/k_j links, c_j = 2 for a ring of k > 2 and 1
    for a radix-2 ring or a path (Dally & Towles §5.2: 2N/k links for even k). Even k_j
    splits exactly; odd k_j puts floor(k_j/2) slabs on one side plus a bisected middle slab,
    costing c_j*N/k_j + B(slab) (derived here). Cutting dimensions in decreasing k_j/c_j
    until the first even one is optimal over these staircase cuts (checked against the full
    recursion) and equals the exact minimum bisection on every instance searched
    (exhaustive/MILP, up to 125 routers). For an even largest radix this is 2N/k_max
    (N/k_max for k_max = 2 or a mesh).
    """
    return _one(radices, _bisection, wrap)


def uniform_load(radices, wrap: bool = True) -> np.ndarray:
    """γ_max under uniform traffic (self included): max_i g(k_i), flits/cycle.

    Under DOR a dimension-i channel carries exactly the traffic of one ring/path of k_i
    routers with uniform traffic, (N/k_i)·C/N = C/k_i (derived here). Ring, ties to +:
    (k+2)/8 for even k (+ channels; - channels carry (k-2)/8), (k^2-1)/(8k) for odd k.
    Dally & Towles §3.3.1/§5.2 give k/8, which assumes ties split evenly. Path:
    floor(k/2)*ceil(k/2)/k at the middle link (k/4 for even k, Dally & Towles §3.3.1).
    """
    return _one(radices, _uniform, wrap)


def tornado_load(radices, wrap: bool = True) -> np.ndarray:
    """γ_max under tornado traffic: max_i (ceil(k_i/2) - 1), flits/cycle.

    Pattern from Dally & Towles §3.2: d_i = (x_i + ceil(k_i/2) - 1) mod k_i. Derived here:
    the pattern acts coordinate-wise, so under DOR a dimension-i channel sees one ring of
    k_i routers each sending t_i = ceil(k_i/2) - 1 hops in the + direction (t_i < k_i/2, so
    minimal): load t_i. In a path, + channels carry at most t_i and the wrapping sources
    (travelling k_i - t_i back) at most t_i on - channels, and both bounds are reached.
    """
    return _one(radices, _tornado)


def bit_complement_load(radices, wrap: bool = True) -> np.ndarray:
    """γ_max under bit-complement d_i = k_i - 1 - x_i: max_i floor((k_i+2)/4) (torus).

    Derived here: coordinate-wise, so each ring sees the reflection x -> k-1-x. Pairs near
    the centre cross the middle link, pairs near the ends the wrap link; pairs at distance
    exactly k/2 (k = 2 mod 4) send both ways in + and load both. Counting gives
    floor((k+2)/4) for every k. Path (mesh): every pair crosses the middle, floor(k/2).
    """
    return _one(radices, _bit_complement, wrap)


def transpose_load(radices, wrap: bool = True) -> np.ndarray:
    """γ_max under transpose (swap first and second halves of the coordinates), flits/cycle.

    Defined when n is even and k_i = k_{i+h}, h = n/2; NaN otherwise. Derived here: a
    channel of dimension j < h carries the traffic of all k_j sources of its ring heading to
    one destination coordinate, times prod_{i<j} k_i free source coordinates; a channel of
    dimension h+m carries one source to all k_m destinations, times prod_{m<i<h} k_i. A
    ring's all-to-one/one-to-all loads floor(k/2) on one channel (ties to +), a path's k-1.
    γ = max(max_{j<h} g(k_j) prod_{i<j} k_i, max_{m<h} g(k_m) prod_{m<i<h} k_i).
    """
    return _one(radices, _transpose, wrap)


def nearest_neighbour_load(radices, wrap: bool = True) -> np.ndarray:
    """γ_max when each endpoint sends 1/(2n) of its traffic to each ±1 neighbour.

    n counts dimensions of radix >= 2. Derived here: each channel carries the one share from
    its source router, 1/(2n); in a radix-2 ring the + and - neighbours coincide, so its
    single channel carries 1/n. Mesh: missing border neighbours get nothing, 1/(2n).
    """
    return _one(radices, _nearest_neighbour, wrap)


def worst_case_load(radices, wrap: bool = True) -> np.ndarray:
    """γ_max of the worst-case permutation under DOR, flits/cycle (exact; derived here).

    Towles & Dally (2002): for each channel, the worst permutation load is a maximum
    matching of the sources and destinations whose DOR route uses it. For a dimension-j
    channel, A_j = prod_{i<j} k_i source coordinates and B_j = prod_{i>j} k_i destination
    coordinates are free, so every ring source is replicated A_j times and every ring
    destination B_j times. Ring + channel (ties to +, L = floor(k/2)): source a steps before
    it reaches destinations b steps after it iff a + b <= L, a staircase whose weighted
    vertex cover is L*min(A_j, B_j). Path channel after m routers: complete bipartite,
    min(m*A_j, (k-m)*B_j), maximised at m = floor or ceil of k*B_j/(A_j+B_j).
    γ = max_j of the channel value.
    """
    return _one(radices, _worst_case, wrap)


# --- metrics records ------------------------------------------------------------------


def _all_metrics(g: _Lines, wrap: bool) -> dict[str, np.ndarray]:
    """Every metric of a block, keyed by Metrics field or pattern name."""
    return {
        "routers": _routers(g),
        "radix": _radix(g),
        "links": _links(g, wrap),
        "diameter": _diameter(g, wrap),
        "average_distance": _average_distance(g, wrap),
        "bisection_links": _bisection(g, wrap),
        "uniform": _uniform(g, wrap),
        "tornado": _tornado(g),
        "bit-complement": _bit_complement(g, wrap),
        "transpose": _transpose(g, wrap),
        "nearest-neighbour": _nearest_neighbour(g, wrap),
        "worst-case": _worst_case(g, wrap),
    }


def torus_metrics(radices, wrap: bool = True) -> Metrics:
    """All metrics of tori (wrap=True) or meshes (wrap=False), batched.

    radices: integer array of shape (..., n), a batch of configurations with the same
    dimension count n (a tuple for one configuration); every array in the result has shape
    (...). Units: counts, hops, flits/cycle per channel. Conventions: module docstring.
    """
    values = _evaluate(radices, lambda lines: _all_metrics(lines, wrap))
    return Metrics(
        family="torus" if wrap else "mesh",
        routers=values["routers"],
        endpoints=values["routers"].copy(),
        radix=values["radix"],
        links=values["links"],
        diameter=values["diameter"],
        average_distance=values["average_distance"],
        bisection_links=values["bisection_links"],
        channel_load={p: values[p] for p in PATTERNS},
        notes=COMMON_NOTES + _SHARED_NOTES + (_TORUS_NOTES if wrap else _MESH_NOTES),
    )


def mesh_metrics(radices) -> Metrics:
    """All metrics of meshes (no wraparound, DOR): ``torus_metrics(radices, wrap=False)``."""
    return torus_metrics(radices, wrap=False)


def _hypercube_radices(dimensions: np.ndarray) -> np.ndarray:
    """Radix-2/radix-1 rows embedding hypercubes of different n in one torus width.

    Row for n: ceil(n/2) twos then ones, then floor(n/2) twos then ones (each half of width
    ceil(n_max/2)). Radix-1 dimensions are identities, so the row is the n-cube with its
    dimensions in order; even n gives symmetric halves, so transpose swaps the bit halves.
    """
    half = max(1, -(-int(np.max(dimensions, initial=1)) // 2))
    position = np.arange(half)
    first = np.where(position < (dimensions[:, None] + 1) // 2, 2, 1)
    second = np.where(position < dimensions[:, None] // 2, 2, 1)
    return np.concatenate([first, second], axis=-1)


def hypercube_metrics(n) -> Metrics:
    """All metrics of binary n-cubes (n = dimensions, 2^n routers), batched over n.

    Evaluated by the torus formulas on n radix-2 dimensions (the same network; e-cube routing
    is DOR), one torus evaluation per distinct n, gathered back to n's shape.
    """
    raw = np.asarray(n)
    dimensions = raw.astype(np.int64)
    require(bool(np.all(dimensions == raw)), "hypercube: n must be an integer")
    require(bool(np.all(dimensions >= 1)), "hypercube: n must be >= 1")
    distinct, where = np.unique(dimensions, return_inverse=True)
    torus = torus_metrics(_hypercube_radices(distinct))

    def gather(values: np.ndarray) -> np.ndarray:
        return values[where].reshape(dimensions.shape)

    return Metrics(
        family="hypercube",
        routers=gather(torus.routers),
        endpoints=gather(torus.endpoints),
        radix=gather(torus.radix),
        links=gather(torus.links),
        diameter=gather(torus.diameter),
        average_distance=gather(torus.average_distance),
        bisection_links=gather(torus.bisection_links),
        channel_load={p: gather(torus.channel_load[p]) for p in PATTERNS},
        notes=COMMON_NOTES + _SHARED_NOTES + _TORUS_NOTES + _HYPERCUBE_NOTES,
    )


# --- spec parameters ------------------------------------------------------------------


def _check_radices(family: str, params: dict) -> None:
    """Raise InputError unless params["radices"] is a non-empty sequence of ints >= 2."""
    radices = params.get("radices")
    require(
        isinstance(radices, (tuple, list)) and len(radices) > 0,
        f"{family}: radices must be a non-empty list such as 8x8x16",
    )
    for position, k in enumerate(radices, start=1):
        require(is_integer(k), f"{family}: radix {k!r} in dimension {position} is not an integer")
        require(
            k >= 2,
            f"{family}: radix {k} in dimension {position} must be >= 2 "
            "(a radix-1 dimension has no links; leave it out)",
        )


def check_torus(params: dict) -> None:
    """Raise InputError unless the torus radices are integers >= 2."""
    _check_radices("torus", params)


def check_mesh(params: dict) -> None:
    """Raise InputError unless the mesh radices are integers >= 2."""
    _check_radices("mesh", params)


def check_hypercube(params: dict) -> None:
    """Raise InputError unless n is an integer >= 1."""
    n = params.get("n")
    require(is_integer(n), f"hypercube: n={n!r} is not an integer")
    require(n >= 1, f"hypercube: n={n} must be >= 1")
    require_within_limit("hypercube", n)


def grid_endpoints(params: dict) -> int:
    """Exact endpoint count of a torus or mesh: prod(radices) (one endpoint per router)."""
    return math.prod(params["radices"])


def hypercube_endpoints(params: dict) -> int:
    """Exact endpoint count of a hypercube: 2^n (one endpoint per router)."""
    return 2 ** params["n"]


def design_for_endpoints(n_endpoints: int, dims: int = 3) -> dict:
    """Smallest equal-radix torus of ``dims`` dimensions with k^dims >= n_endpoints.

    Returns {"radices": (k,)*dims}, k >= 2. Rule from the NUDT topology comparison
    (seed 002): a 6D torus with 13-port routers (12 + 1 endpoint) reaches 5^6 = 15,625
    endpoints at k = 5 and 7^6 = 117,649 at k = 7.
    """
    require(is_integer(n_endpoints) and n_endpoints >= 1, "torus: n_endpoints must be an integer >= 1")
    require(is_integer(dims) and dims >= 1, "torus: dims must be an integer >= 1")
    k = max(2, math.ceil(n_endpoints ** (1.0 / dims)))
    while k > 2 and (k - 1) ** dims >= n_endpoints:
        k -= 1
    while k**dims < n_endpoints:
        k += 1
    return {"radices": (k,) * dims}


FAMILIES: tuple[Family, ...] = (
    Family(
        name="torus",
        description="k-ary n-cube torus with mixed radices, one endpoint per router, "
        "dimension-order routing",
        parameters=("radices",),
        positional="radices",
        check=check_torus,
        endpoints=grid_endpoints,
        evaluate=torus_metrics,
        example="torus:16x16x32",
    ),
    Family(
        name="mesh",
        description="n-dimensional mesh (torus without wraparound), one endpoint per router, "
        "dimension-order routing",
        parameters=("radices",),
        positional="radices",
        check=check_mesh,
        endpoints=grid_endpoints,
        evaluate=mesh_metrics,
        example="mesh:8x8",
    ),
    Family(
        name="hypercube",
        description="binary n-cube (torus of n radix-2 dimensions), one endpoint per router, "
        "e-cube (dimension-order) routing",
        parameters=("n",),
        positional="n",
        check=check_hypercube,
        endpoints=hypercube_endpoints,
        evaluate=hypercube_metrics,
        example="hypercube:10",
    ),
)


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
    dimensions. A radix-2 ring is one link, so a differing coordinate costs 1 hop.
    """
    radices = np.asarray(radices, dtype=np.int64)
    delta = np.abs(np.asarray(destination, dtype=np.int64) - np.asarray(source, dtype=np.int64))
    per_dimension = np.minimum(delta, radices - delta) if wrap else delta
    return per_dimension.sum(axis=-1)


# --- collective spanning trees, traffic of one communication step, reshaping ----------------
#
# Used by model/collectives: the hardware collective tree of the Angara router
# (seeds/000 §1) is a spanning tree laid on the torus from a root in dimension order X, Y,
# Z, W; the point-to-point algorithms map each step's messages onto the torus with these.


def spanning_tree_depth(radices) -> int:
    """Depth (tree edges = router hops) of the dimension-order spanning tree from any root:
    sum_i floor(k_i / 2), which is the torus diameter.

    The tree (seeds/000 §1, Fig. 1): the root's ring in dimension 0 (X) is covered first, in
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


def balanced_torus_shape(nodes: int, dims: int) -> tuple[int, ...]:
    """The most balanced radices (each >= 2, non-decreasing) whose product is ``nodes``.

    "Most balanced": the smallest largest radix, then the smallest sum of radices (the
    smallest diameter among those), e.g. 8192 nodes in 3D -> (16, 16, 32), in 4D ->
    (8, 8, 8, 16); 8 in 3D -> (2, 2, 2). This is how the Angara paper's sweeps grow the
    torus (seeds/000 §3.1: 2x2x2 ... 16x16x32, 8x8x8x16). Raises InputError when no such
    shape exists (``nodes`` < 2^dims, or a prime factor too large to split, e.g. 7 in 3D).
    """
    require(is_integer(dims) and dims >= 1, f"torus: dimensions must be an integer >= 1, "
                                            f"not {dims!r}")
    require(is_integer(nodes) and nodes >= 1, f"torus: nodes must be an integer >= 1, "
                                              f"not {nodes!r}")
    require(nodes <= MAX_ENDPOINTS, f"torus: {nodes} nodes exceed the largest network "
                                    f"icnperf accepts ({MAX_ENDPOINTS:.0e})")
    best: tuple[int, ...] | None = None

    def key(shape):
        return (shape[-1], sum(shape))

    def search(rest: int, slots: int, smallest: int, prefix: tuple[int, ...]) -> None:
        nonlocal best
        if slots == 1:
            if rest >= smallest:
                shape = prefix + (rest,)
                if best is None or key(shape) < key(best):
                    best = shape
            return
        # the next radix k is at most the (slots)-th root of rest (radices non-decreasing)
        k = smallest
        while k ** slots <= rest:
            if rest % k == 0:
                search(rest // k, slots - 1, k, prefix + (k,))
            k += 1

    search(nodes, dims, 2, ())
    require(best is not None,
            f"torus: {nodes} nodes cannot be shaped into {dims} dimensions of radix >= 2")
    return best


def _forward_loads(lines: int, k: int, line, start, length) -> int:
    """Largest number of segments over one channel: segments on ``lines`` rings of radix k,
    each from ring position ``start`` over ``length`` consecutive + channels (channel p
    joins p and p+1 mod k). A difference array over two turns of the ring handles wrap."""
    if len(start) == 0:
        return 0
    width = 2 * k
    marks = np.concatenate([line * width + start, line * width + start + length])
    weights = np.concatenate([np.ones(len(start)), -np.ones(len(start))])
    counts = np.bincount(marks, weights=weights, minlength=lines * width)
    running = np.cumsum(counts.reshape(lines, width), axis=1)
    return int(round(float(np.max(running[:, :k] + running[:, k:]))))


RING_TIES = ("plus", "split")
"""How DOR routes a message whose destination is exactly half a ring away (both ways are
minimal): ``plus`` sends it in the + direction (this module's convention); ``split`` sends
it + from an even ring position and - from an odd one (a radix-2 ring, one link, always
+), so such messages load both directions equally (the balance adaptive minimal routing reaches, and Dally & Towles'
assumption behind the k/8 uniform load)."""


def dor_traffic(radices, sources, destinations, ties: str = "plus") -> tuple[int, int]:
    """(largest hop count, largest channel load) of messages sent at the same time.

    ``sources`` and ``destinations`` are endpoint indices (dimension 0 varies fastest, as
    :func:`endpoint_coordinates`), one pair per message. Routing is this module's DOR on the
    torus: dimension 0 first, the minimal way round each ring, a tie resolved by ``ties``
    (:data:`RING_TIES`). The channel load is the largest number of the messages that cross
    one channel (one direction of one link); a radix-2 ring is one link, so its two
    directions are two channels. Derived here by counting each message's ring segment per
    dimension; tests check it against walking every route. Returns (0, 0) for no messages.
    """
    require(ties in RING_TIES, f"unknown ring tie rule {ties!r}; choose one of "
                               f"{', '.join(RING_TIES)}")
    k = np.asarray(radices, dtype=np.int64)
    src = endpoint_coordinates(k, np.asarray(sources, dtype=np.int64).ravel())
    dst = endpoint_coordinates(k, np.asarray(destinations, dtype=np.int64).ravel())
    if src.shape[0] == 0:
        return 0, 0
    forward = (dst - src) % k
    plus = 2 * forward < k
    plus |= (2 * forward == k) & ((src % 2 == 0) | (k == 2) if ties == "split" else True)
    steps = np.where(plus, forward, k - forward)
    hops = int(steps.sum(axis=1).max())
    load = 0
    strides = np.concatenate(([1], np.cumprod(k)[:-1]))
    for i, radix in enumerate(k.tolist()):
        # before moving in dimension i the message sits at (dst_<i, src_i, src_>i)
        here = np.concatenate([dst[:, :i], src[:, i:]], axis=1)
        index = (here * strides).sum(axis=1)
        # the ring's number: the endpoint index with coordinate i left out
        block = strides[i] * radix
        line = (index // block) * strides[i] + index % strides[i]
        lines = int(np.prod(k)) // radix
        moving = steps[:, i] > 0
        up = moving & plus[:, i]
        down = moving & ~plus[:, i]
        load = max(load, _forward_loads(lines, radix, line[up], src[up, i], steps[up, i]))
        # a - move from s over d channels is a + move in the mirrored ring x -> k-1-x
        load = max(load, _forward_loads(lines, radix, line[down], radix - 1 - src[down, i],
                                        steps[down, i]))
    return hops, load
