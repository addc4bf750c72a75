"""The torus, mesh and hypercube families: Metrics records, spec checks and sizing rules.

:func:`torus_metrics`, :func:`mesh_metrics` and :func:`hypercube_metrics` gather the
structural metrics (``structure``) and the channel loads (``loads``) of a batch of
configurations into one ``Metrics`` record with the conventions as ``notes``; the checks and
exact endpoint counts serve ``spec.py``; :data:`FAMILIES` registers the three families.
Units: counts, router hops, flits/cycle per channel.

Sizing rules: :func:`design_for_endpoints` is the NUDT topology comparison's (Jiang et al.);
:func:`balanced_torus_shape` is how the Angara paper grows its tori (Mukosey 2015 §3.1).
Everything else follows from the formulas of ``structure`` and ``loads`` and the
conventions of :mod:`icnperf.model.topology.torus`.
"""

from __future__ import annotations

import math
from functools import lru_cache

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
from icnperf.model.topology.torus.loads import (
    _bit_complement,
    _nearest_neighbour,
    _tornado,
    _transpose,
    _uniform,
    _worst_case,
)
from icnperf.model.topology.torus.structure import (
    _Lines,
    _average_distance,
    _bisection,
    _diameter,
    _evaluate,
    _links,
    _radix,
    _routers,
    wrap_mask,
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


# --- metrics records ------------------------------------------------------------------


_MIXED_NOTES = (
    "mixed torus/mesh: dimensions marked m (e.g. torus:24x23x24x2mx3x2m, Tofu's a and c) are "
    "paths without wraparound, the others rings; each dimension's ring or path terms apply "
    "(links, distances, loads), and the notes above for tori hold for the rings, those for "
    "meshes for the paths",
    "a radix-2 mesh dimension is one link, the same graph as a radix-2 ring; only the "
    "nearest-neighbour pattern differs (one share to the one neighbour, not two)",
)


def _all_metrics(g: _Lines, wrap) -> dict[str, np.ndarray]:
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


def torus_metrics(radices, wrap=True) -> Metrics:
    """All metrics of tori (wrap=True), meshes (wrap=False) or mixes, batched.

    radices: integer array of shape (..., n), a batch of configurations with the same
    dimension count n (a tuple for one configuration); every array in the result has shape
    (...). wrap: a bool, or n bools (True: the dimension is a ring, False: a path), the same
    for the whole batch. Units: counts, hops, flits/cycle per channel. Conventions: module
    docstring.
    """
    dimensions = np.shape(radices)[-1] if np.ndim(radices) else 0
    mask = wrap_mask(wrap, dimensions)
    values = _evaluate(radices, lambda lines: _all_metrics(lines, mask))
    if mask is True:
        notes = _TORUS_NOTES
    elif mask is False:
        notes = _MESH_NOTES
    else:
        notes = _TORUS_NOTES + _MESH_NOTES + _MIXED_NOTES
    return Metrics(
        family="mesh" if mask is False else "torus",
        routers=values["routers"],
        endpoints=values["routers"].copy(),
        radix=values["radix"],
        links=values["links"],
        diameter=values["diameter"],
        average_distance=values["average_distance"],
        bisection_links=values["bisection_links"],
        channel_load={p: values[p] for p in PATTERNS},
        notes=COMMON_NOTES + _SHARED_NOTES + notes,
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
    """Raise InputError unless the torus radices are integers >= 2 and the optional ``wrap``
    (one bool per dimension, False for a mesh dimension) leaves at least one ring."""
    _check_radices("torus", params)
    if "wrap" not in params:
        return
    wrap = params["wrap"]
    require(isinstance(wrap, (tuple, list)) and all(isinstance(w, bool) for w in wrap),
            "torus: wrap must be one true/false flag per dimension")
    require(len(wrap) == len(params["radices"]),
            f"torus: {len(wrap)} wrap flags for {len(params['radices'])} dimensions")
    require(any(wrap), "torus: every dimension is marked as a mesh; write mesh:"
            + "x".join(str(k) for k in params["radices"]))


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


# --- sizing rules: a torus for a node count -------------------------------------------


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


@lru_cache(maxsize=64)
def torus_shapes(nodes: int, dims: int) -> tuple[tuple[int, ...], ...]:
    """Every non-decreasing shape of ``dims`` radices >= 2 whose product is ``nodes``, most
    balanced first (the smallest largest radix, then the smallest sum of radices, then the
    lexicographically smallest); empty when there is none."""
    shapes: list[tuple[int, ...]] = []

    def search(rest: int, slots: int, smallest: int, prefix: tuple[int, ...]) -> None:
        if slots == 1:
            if rest >= smallest:
                shapes.append(prefix + (rest,))
            return
        # the next radix k is at most the (slots)-th root of rest (radices non-decreasing)
        k = smallest
        while k ** slots <= rest:
            if rest % k == 0:
                search(rest // k, slots - 1, k, prefix + (k,))
            k += 1

    if nodes >= 2 ** dims:
        search(int(nodes), int(dims), 2, ())
    return tuple(sorted(shapes, key=lambda s: (s[-1], sum(s), s)))


def balanced_torus_shape(nodes: int, dims: int) -> tuple[int, ...]:
    """The most balanced radices (each >= 2, non-decreasing) whose product is ``nodes``.

    "Most balanced": the smallest largest radix, then the smallest sum of radices (the
    smallest diameter among those), e.g. 8192 nodes in 3D -> (16, 16, 32), in 4D ->
    (8, 8, 8, 16); 8 in 3D -> (2, 2, 2). This is how the Angara paper's sweeps grow the
    torus (Mukosey 2015 §3.1: 2x2x2 ... 16x16x32, 8x8x8x16). Raises InputError when no such
    shape exists (``nodes`` < 2^dims, or a prime factor too large to split, e.g. 7 in 3D).
    """
    require(is_integer(dims) and dims >= 1, f"torus: dimensions must be an integer >= 1, "
                                            f"not {dims!r}")
    require(is_integer(nodes) and nodes >= 1, f"torus: nodes must be an integer >= 1, "
                                              f"not {nodes!r}")
    require(nodes <= MAX_ENDPOINTS, f"torus: {nodes} nodes exceed the largest network "
                                    f"icnperf accepts ({MAX_ENDPOINTS:.0e})")
    shapes = torus_shapes(int(nodes), int(dims))
    require(len(shapes) > 0,
            f"torus: {nodes} nodes cannot be shaped into {dims} dimensions of radix >= 2")
    return shapes[0]


def job_torus_shape(nodes: int, dims: int) -> tuple[int, ...]:
    """The torus a job of ``nodes`` nodes takes on a ``dims``-dimensional machine: the most
    balanced shape in ``dims`` dimensions (:func:`balanced_torus_shape`) when one exists,
    else in the most dimensions below that which admit one. A job smaller than 2^dims
    nodes spans a sub-block of extent 1 in the remaining dimensions, which then carry none
    of its messages (16 nodes of a 6D Tofu machine: 2x2x2x2). Raises InputError only for
    bad counts (nodes < 2, above the network cap)."""
    require(is_integer(nodes) and nodes >= 2, f"torus: a job needs an integer >= 2 nodes, "
                                              f"not {nodes!r}")
    for d in range(int(dims), 0, -1):
        shapes = torus_shapes(int(nodes), d) if nodes <= MAX_ENDPOINTS else ()
        if shapes:
            return shapes[0]
    return balanced_torus_shape(nodes, 1)


FAMILIES: tuple[Family, ...] = (
    Family(
        name="torus",
        description="k-ary n-cube torus with mixed radices, one endpoint per router, "
        "dimension-order routing; a radix marked m (4x4mx8) is a mesh dimension",
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
