"""The whole feasible design space for N endpoints, as NumPy arrays per family.

A design is feasible when it reaches N endpoints, has at most ``slack`` x N of them and
routers of at most ``radix_max`` ports. Every family's configurations in that window are
listed (none hand-picked), its structure evaluated in one vectorized call of the family's
own ``evaluate`` (model/topology) and its router-router links split by kind:

* torus, per dimension count d: every shape k_1 <= ... <= k_d (k_i >= 2) with a product in
  the window; a permutation of a shape is the same network with its dimensions relabelled,
  so each shape is listed once.
* fattree FT(k, n): every k >= 1 and n = 1 .. MAX_LEVELS.
* clos: each switch radix R of designs.CLOS_RADICES with the fewest levels reaching N (a
  Clos of one switch product grows by a factor R/2 per level, so the window is not applied).
* dragonfly DF(p, a, h): every p, a, h >= 1.
* megafly k: every k >= 1.
* slimfly (q, p): every valid q (slimfly.is_valid_q) and every p >= 1.
* xgft, per level count (2 and 3; one Block each): trees of one switch radix whose top
  level is tapered t:1 for t in TAPERS, every lower level 1:1 (xgft_space).
* rail (GPU machines, not among the default families): rail-optimised and plain two-level
  trees of NIC endpoints per NICs-per-node option and taper (rail_designs.py); endpoints
  count nodes, as for every family, each node R NICs.

The NUDT-rule design of each family (designs.canonical_params) is always in the space,
flagged ``canonical``, even when it falls outside the window.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icnperf.errors import InputError
from icnperf.model.sizing.designs import (
    CLOS_RADICES,
    GPU_FAMILIES,
    MAX_LEVELS,
    SIZING_FAMILIES,
    canonical_params,
)
from icnperf.model.sizing.rail_designs import rail_space
from icnperf.model.topology import dragonfly, fattree, slimfly, torus, xgft
from icnperf.model.topology.base import Metrics

DEFAULT_SLACK = 1.5
"""Largest endpoint count screened, as a multiple of the requested N."""

TAPERS = (1, 2, 3, 4)
"""Top-level tapers t:1 (down : up ports of the switches below the top) offered for xgft."""

XGFT_LEVELS = (2, 3)
"""Level counts of the xgft trees a study offers."""

MAX_TORUS_SHAPES = 2_000_000
"""Most torus shapes screened per dimension count (memory: ~0.5 kB per design in all);
beyond it the torus window's upper edge is lowered (Block.limit says to what)."""


@dataclass(frozen=True)
class Block:
    """The designs of one family (a torus: one dimension count) as parameter arrays.

    ``params`` maps each parameter name to an integer array (``radices``: shape (n, d));
    ``metrics`` is the family's Metrics over them; ``electrical`` / ``optical`` count the
    router-router links of each kind (cost.LINK_KIND_RULES); ``canonical`` marks the
    NUDT-rule design.
    """

    family: str
    params: dict
    canonical: np.ndarray
    metrics: Metrics
    electrical: np.ndarray
    optical: np.ndarray
    limit: int = 0
    """Most endpoints of a design in the window (slack x N, or lower for a large torus
    space: torus_shapes)."""

    def __len__(self) -> int:
        return len(self.canonical)

    def params_of(self, i: int) -> dict:
        """The i-th design's parameters as Python ints (a spec's ``params``)."""
        if self.family == "torus":
            return {"radices": tuple(int(k) for k in self.params["radices"][i])}
        if self.family == "xgft":
            return {"m": tuple(int(v) for v in self.params["m"][i]),
                    "w": tuple(int(v) for v in self.params["w"][i])}
        if self.family == "rail":
            return {"rails": int(self.params["rails"][i]),
                    "m": tuple(int(v) for v in self.params["m"][i]),
                    "w": tuple(int(v) for v in self.params["w"][i]),
                    "join": int(self.params["join"][i])}
        return {name: int(values[i]) for name, values in self.params.items()}


# --- enumeration per family -----------------------------------------------------------------


def _largest_root(limit: int, prefix: np.ndarray, power: int, low: np.ndarray) -> np.ndarray:
    """Largest integer k with prefix x k^power <= limit (exact integer check), >= low - 1."""
    guess = np.floor((limit / prefix) ** (1.0 / power)).astype(np.int64) + 1
    guess = np.maximum(guess, low - 1)
    for _ in range(3):
        too_big = prefix * guess**power > limit
        guess = np.where(too_big, guess - 1, guess)
    return guess


def _expand(columns: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Each row of ``columns`` repeated for every k in low..high, k appended as a column."""
    counts = np.maximum(high - low + 1, 0)
    rows = np.repeat(np.arange(len(low)), counts)
    starts = np.cumsum(counts) - counts
    k = low[rows] + np.arange(counts.sum()) - starts[rows]
    return np.column_stack([columns[rows], k])


def _narrowed(count, n_endpoints: int, limit: int, max_designs: int | None) -> int | None:
    """The largest upper edge in [N, limit] with count(edge) <= max_designs (bisection;
    count grows with the edge); ``limit`` when it fits or there is no cap; None when even
    N does not fit."""
    if max_designs is None or count(limit) <= max_designs:
        return limit
    if count(n_endpoints) > max_designs:
        return None
    low_edge, high_edge = n_endpoints, limit
    while high_edge - low_edge > 1:
        middle = (low_edge + high_edge) // 2
        low_edge, high_edge = (middle, high_edge) if count(middle) <= max_designs else (
            low_edge, middle)
    return low_edge


def torus_shapes(n_endpoints: int, dims: int, limit: int,
                 max_designs: int | None = None) -> tuple[np.ndarray, int]:
    """Every non-decreasing shape of ``dims`` radices >= 2 with N <= product <= limit,
    shape (count, dims), built one dimension at a time (no Python loop over shapes); and
    the upper edge used. When a dimension would list more than ``max_designs`` shapes or
    partial shapes, the upper edge is lowered to the largest that keeps within it
    (bisection on the count, known before the rows are built); when even N does not fit,
    no shape is listed and the edge returned is 0."""
    shapes = np.zeros((1, 0), dtype=np.int64)
    product = np.ones(1, dtype=np.int64)
    for position in range(dims):
        remaining = dims - position
        low = shapes[:, -1] if position else np.full(1, 2, dtype=np.int64)
        if remaining == 1:
            low = np.maximum(low, -(-n_endpoints // product))

            def high(edge, product=product):
                return edge // product
        else:
            def high(edge, product=product, low=low, remaining=remaining):
                return _largest_root(edge, product, remaining, low)

        def count(edge, low=low, high=high):
            return int(np.maximum(high(edge) - low + 1, 0).sum())

        edge = _narrowed(count, n_endpoints, limit, max_designs)
        if edge is None:
            return np.zeros((0, dims), dtype=np.int64), 0
        limit = edge
        shapes = _expand(shapes, low, high(limit))
        product = np.prod(shapes, axis=1)
    return shapes, limit


def _fattree_space(n_endpoints: int, limit: int, radix_max: int) -> dict:
    k, n = np.meshgrid(np.arange(1, radix_max // 2 + 1), np.arange(1, MAX_LEVELS + 1))
    k, n = k.ravel(), n.ravel()
    endpoints = 2.0 * k.astype(float) ** n
    keep = (endpoints >= n_endpoints) & (endpoints <= limit)
    return {"k": k[keep], "n": n[keep]}


def _clos_space(n_endpoints: int, radix_max: int) -> dict:
    radices, levels = [], []
    for radix in CLOS_RADICES:
        if radix > radix_max:
            continue
        level = 1
        while 2 * (radix // 2) ** level < n_endpoints and level < MAX_LEVELS:
            level += 1
        if 2 * (radix // 2) ** level >= n_endpoints:
            radices.append(radix)
            levels.append(level)
    return {"radix": np.array(radices, dtype=np.int64), "levels": np.array(levels, dtype=np.int64)}


def _dragonfly_space(n_endpoints: int, limit: int, radix_max: int) -> dict:
    """p, a, h >= 1 with p + a + h - 1 <= radix_max and a·p·(a·h + 1) in the window."""
    a, p = np.meshgrid(np.arange(1, radix_max + 1, dtype=np.int64),
                       np.arange(1, radix_max + 1, dtype=np.int64))
    a, p = a.ravel(), p.ravel()
    ap, a2p = a * p, a * a * p
    low = np.maximum(1, -(-(n_endpoints - ap) // a2p))
    high = np.minimum((limit - ap) // a2p, radix_max + 1 - p - a)
    triples = _expand(np.column_stack([p, a]), low, high)
    return {"p": triples[:, 0], "a": triples[:, 1], "h": triples[:, 2]}


def _megafly_space(n_endpoints: int, limit: int, radix_max: int) -> dict:
    k = np.arange(1, radix_max // 2 + 1, dtype=np.int64)
    endpoints = k * k * (k * k + 1)
    return {"k": k[(endpoints >= n_endpoints) & (endpoints <= limit)]}


def _slimfly_space(n_endpoints: int, limit: int, radix_max: int) -> dict:
    q = np.arange(3, radix_max + 1, dtype=np.int64)
    q = q[np.asarray(slimfly.is_valid_q(q), dtype=bool)]
    q = q[slimfly.network_radix(q).astype(np.int64) + 1 <= radix_max]
    two_q2 = 2 * q * q
    low = np.maximum(1, -(-n_endpoints // two_q2))
    high = np.minimum(limit // two_q2, radix_max - slimfly.network_radix(q).astype(np.int64))
    pairs = _expand(q[:, None], low, high)
    return {"q": pairs[:, 0], "p": pairs[:, 1]}


def xgft_pods(taper: int, levels: int, radix_max: int, dtype=np.int64):
    """The switch sizes of :func:`xgft_space` for one taper t and level count: arrays
    (u, endpoints per pod, radix), u the leaf's up links (2 levels: t·u endpoints under a
    leaf of radix (t+1)·u) or k (3 levels: k² endpoints under a level-2 switch of radix
    2k, t | k). A tree takes s pods, 2 <= s <= radix."""
    if levels == 2:
        u = np.arange(1, radix_max // (taper + 1) + 1, dtype=dtype)
        u = u[taper * u >= 2]
        return u, taper * u, (taper + 1) * u
    k = np.arange(2, radix_max // 2 + 1, dtype=dtype)
    k = k[k % taper == 0]
    return k, k * k, 2 * k


def xgft_space(n_endpoints: int, limit: int, radix_max: int, levels: int) -> dict:
    """Every XGFT of ``levels`` levels (2 or 3) built from switches of one radix r, its top
    level tapered t:1 (t in TAPERS), in the window; arrays ``m``, ``w`` of shape
    (count, levels) and ``taper``.

    * 2 levels: m = (t·u, s), w = (1, u): a leaf switch has t·u endpoints and u up links
      (r = (t+1)·u), s <= r leaves under the u top switches (each uses s of its r ports).
    * 3 levels: m = (k, k, s), w = (1, k, k/t) with t | k: leaf switches 1:1 (k down, k up,
      r = 2k), a level-2 switch has k down and k/t up links, s <= 2k pods of k² endpoints.

    With t = 1 and s = r these are FT(u, 2) and FT(k, 3) (xgft.fattree_as_xgft); a smaller
    s is the same tree with fewer pods (top switches with unused ports)."""
    m, w, taper = [], [], []
    for t in TAPERS:
        u, per_pod, radix = xgft_pods(t, levels, radix_max)
        low = np.maximum(2, -(-n_endpoints // per_pod))
        high = np.minimum(radix, limit // per_pod)
        rows = _expand(np.column_stack([u]), low, high)
        u, s = rows[:, 0], rows[:, 1]
        one = np.ones_like(u)
        if levels == 2:
            m.append(np.column_stack([t * u, s]))
            w.append(np.column_stack([one, u]))
        else:
            m.append(np.column_stack([u, u, s]))
            w.append(np.column_stack([one, u, u // t]))
        taper.append(np.full(len(u), t, dtype=np.int64))
    return {"m": np.concatenate(m), "w": np.concatenate(w), "taper": np.concatenate(taper)}


# --- structure and links by kind ------------------------------------------------------------


def _evaluate(family: str, params: dict) -> Metrics:
    if family == "torus":
        return torus.torus_metrics(params["radices"])
    if family == "fattree":
        return fattree.fattree(params["k"], params["n"])
    if family == "clos":
        return fattree.clos(params["radix"], params["levels"])
    if family == "dragonfly":
        return dragonfly.evaluate_dragonfly(params["p"], params["a"], params["h"])
    if family == "megafly":
        return dragonfly.evaluate_megafly(params["k"])
    if family in ("xgft", "rail"):
        return xgft.xgft(list(params["m"].T), list(params["w"].T))
    return slimfly.evaluate(params["q"], params["p"])


def link_kinds(family: str, params: dict, metrics: Metrics) -> tuple[np.ndarray, np.ndarray]:
    """Electrical and optical router-router links per design: the vectorized counterpart of
    designs.link_roles summed by cost.ELECTRICAL_ROLES (same formulas, same rules)."""
    if family == "torus":
        links = np.asarray(metrics.links, dtype=float)
        return links, np.zeros_like(links)
    if family in ("fattree", "clos"):
        k = params["k"] if family == "fattree" else params["radix"] // 2
        n = (params["n"] if family == "fattree" else params["levels"]).astype(float)
        per_gap = 2.0 * k.astype(float) ** n
        return np.where(n >= 2, per_gap, 0.0), per_gap * np.maximum(n - 2.0, 0.0)
    if family in ("xgft", "rail"):
        per_level = xgft.XGFT(list(params["m"].T), list(params["w"].T)).links_by_level()
        return per_level[0], sum(per_level[1:], np.zeros_like(per_level[0]))
    if family == "dragonfly":
        a, h = params["a"].astype(float), params["h"].astype(float)
        g = a * h + 1.0
        return g * a * (a - 1.0) / 2.0, g * (g - 1.0) / 2.0
    if family == "megafly":
        k = params["k"].astype(float)
        g = k * k + 1.0
        return k * k * g, g * (g - 1.0) / 2.0
    q = params["q"].astype(float)
    d = slimfly.delta(params["q"]).astype(float)
    return q * q * (q - d) / 2.0 + q * q, q**3 - q * q


# --- the space ------------------------------------------------------------------------------


def _with_canonical(family: str, params: dict, canonical: dict | None) -> tuple[dict, np.ndarray]:
    """params with the canonical design added when absent; the canonical mask."""
    names = list(params)
    count = len(next(iter(params.values())))
    flags = np.zeros(count, dtype=bool)
    if canonical is None:
        return params, flags
    if family == "torus":
        row = np.array(canonical["radices"], dtype=np.int64)
        match = np.flatnonzero((params["radices"] == row).all(axis=1))
    else:
        match = np.flatnonzero(np.logical_and.reduce(
            [params[name] == canonical[name] for name in names]))
    if len(match):
        flags[match[0]] = True
        return params, flags
    if family == "torus":
        params = {"radices": np.vstack([params["radices"], row[None, :]])}
    else:
        params = {name: np.append(params[name], canonical[name]) for name in names}
    return params, np.append(flags, True)


def _block(family: str, params: dict, canonical: dict | None, radix_max: int,
           limit: int) -> Block | None:
    params, flags = _with_canonical(family, params, canonical)
    if not len(flags):
        return None
    metrics = _evaluate(family, params)
    keep = np.asarray(metrics.radix) <= radix_max
    if not keep.all():
        params = {name: values[keep] for name, values in params.items()}
        flags = flags[keep]
        if not len(flags):
            return None
        metrics = _evaluate(family, params)
    electrical, optical = link_kinds(family, params, metrics)
    return Block(family, params, flags, metrics, electrical, optical, limit)


def enumerate_space(n_endpoints: int, families: tuple[str, ...] = SIZING_FAMILIES,
                    torus_dims: tuple[int, ...] = (3, 6), radix_max: int = 128,
                    slack: float = DEFAULT_SLACK, rails: tuple[int, ...] = ()) -> list[Block]:
    """Every feasible design of the families (module docstring), one Block per family (per
    dimension count for tori); families with no design are left out. ``rails``: the NICs
    per node the rail family offers (rail_designs.rail_options of the machine's GPUs).
    Raises InputError for bad inputs or when no family has a design."""
    if not (isinstance(n_endpoints, (int, np.integer)) and n_endpoints >= 2):
        raise InputError(f"--endpoints must be a whole number >= 2, not {n_endpoints!r}")
    if not (isinstance(radix_max, (int, np.integer)) and radix_max >= 2):
        raise InputError(f"--radix-max must be a whole number >= 2, not {radix_max!r}")
    if not (isinstance(slack, (int, float)) and 1.0 <= slack <= 100.0):
        raise InputError(f"--slack must be a number from 1 to 100, not {slack!r}")
    for family in families:
        if family not in SIZING_FAMILIES + GPU_FAMILIES:
            raise InputError(f"unknown family {family!r} for sizing"
                             f" (known: {', '.join(SIZING_FAMILIES + GPU_FAMILIES)})")
    if "rail" in families and not rails:
        raise InputError("--families rail: rail-optimised trees need a GPU machine "
                         "(node.accelerators >= 1; e.g. --machine dgx-h100)")
    if any(d < 1 for d in torus_dims):
        raise InputError("--torus-dims: dimension counts must be >= 1")
    n_endpoints, radix_max = int(n_endpoints), int(radix_max)
    limit = int(np.floor(slack * n_endpoints))
    if "torus" in families:
        too_many = [d for d in torus_dims if 2 ** d > limit]
        if too_many:
            raise InputError(f"--torus-dims: a {too_many[0]}D torus has at least"
                             f" 2^{too_many[0]} endpoints, more than {limit:,} (the endpoint"
                             " count times the slack)")
    blocks = []
    for family in families:
        if family == "torus":
            for dims in torus_dims:
                shapes, edge = torus_shapes(n_endpoints, dims, limit, MAX_TORUS_SHAPES)
                canonical = canonical_params("torus", n_endpoints, dims=dims)
                blocks.append(_block("torus", {"radices": shapes}, canonical, radix_max, edge))
            continue
        if family == "rail":
            blocks.append(_block("rail", rail_space(n_endpoints, limit, radix_max, rails,
                                                    TAPERS), None, radix_max, limit))
            continue
        if family == "xgft":
            for levels in XGFT_LEVELS:
                blocks.append(_block("xgft", xgft_space(n_endpoints, limit, radix_max, levels),
                                     None, radix_max, limit))
            continue
        space = {"fattree": lambda: _fattree_space(n_endpoints, limit, radix_max),
                 "clos": lambda: _clos_space(n_endpoints, radix_max),
                 "dragonfly": lambda: _dragonfly_space(n_endpoints, limit, radix_max),
                 "megafly": lambda: _megafly_space(n_endpoints, limit, radix_max),
                 "slimfly": lambda: _slimfly_space(n_endpoints, limit, radix_max)}[family]()
        blocks.append(_block(family, space, canonical_params(family, n_endpoints), radix_max,
                             limit))
    blocks = [b for b in blocks if b is not None]
    if not blocks:
        raise InputError(f"no design of {', '.join(families)} reaches {n_endpoints} endpoints"
                         f" with routers of at most {radix_max} ports")
    return blocks
