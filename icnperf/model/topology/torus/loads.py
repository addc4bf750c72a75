"""Torus and mesh channel loads: γ_max under each traffic pattern of ``base.PATTERNS``.

γ_max is the load of the busiest unidirectional router-router channel, in flits/cycle, when
every endpoint injects 1 flit/cycle (``model/topology/base.py``), under dimension-order
routing with ties at exactly half a ring taken in the + direction (the conventions of
:mod:`icnperf.model.topology.torus`), or by another tie rule where a function takes ``ties``
(:data:`LOAD_TIES`). Every function takes radices of shape (..., n) and
returns an array of shape (...); ``wrap=True`` is the torus, ``wrap=False`` the mesh, one
bool per dimension a mix (each dimension's ring or path term, as the docstrings say).

Sources: the traffic patterns and the uniform load of Dally & Towles, *Principles and
Practices of Interconnection Networks* (2004), §3.2-3.3 and §5.2; the worst-case method of
Towles & Dally, "Worst-case traffic for oblivious routing functions" (2002). The closed forms
are derived here and checked against brute force in tests/model/topology/test_torus.py.
"""

from __future__ import annotations

import numpy as np

from icnperf.model.topology.torus.structure import _Lines, _one, _per_dimension

LOAD_TIES = ("plus", "split", "random")
"""Tie rules of the channel loads: a message exactly half a ring away goes ``plus`` (+,
this module's convention), ``split`` (+ from an even ring position, - from an odd one,
torus.RING_TIES) or ``random`` (a fair coin per packet, BookSim2's dimension-order rule and
the simulator's ``ring_ties="random"``: each direction carries half of it on average, which
is the load a saturated channel sees). A radix-2 ring is one link, so every rule loads it
alike."""


def _check_ties(ties: str) -> None:
    if ties not in LOAD_TIES:
        raise ValueError(f"unknown ring tie rule {ties!r}; choose one of {', '.join(LOAD_TIES)}")


def _tie_even(g: _Lines) -> np.ndarray:
    """1.0 where a ring has ties to split (even radix above 2), else 0.0."""
    return np.where((g.odd == 0.0) & (g.k > 2.0), 1.0, 0.0)


# --- channel loads (each takes _Lines and returns shape (b,)) ---------------------------


def _uniform_ring(g: _Lines, ties: str) -> np.ndarray:
    plus = (g.k + 2.0 - g.odd * (2.0 + 1.0 / g.k)) / 8.0
    if ties == "plus":
        return plus
    even = _tie_even(g)
    if ties == "random":
        return plus - even * 0.25
    return plus - even * (0.25 - np.where(np.mod(g.k, 4.0) == 2.0, 0.5 / g.k, 0.0))


def _uniform(g: _Lines, wrap, ties: str = "plus") -> np.ndarray:
    per_dimension = _per_dimension(wrap, g, lambda: _uniform_ring(g, ties),
                                   lambda: g.half * (g.k - g.half) / g.k)
    return np.max(per_dimension, axis=0)


def _tornado(g: _Lines) -> np.ndarray:
    return np.max(g.half + g.odd - 1.0, axis=0)


def _bit_complement(g: _Lines, wrap, ties: str = "plus") -> np.ndarray:
    def ring():
        plus = np.floor(0.25 * (g.k + 2.0))
        if ties != "random":
            return plus
        return plus - 0.5 * _tie_even(g) * (np.mod(g.k, 4.0) == 2.0)

    return np.max(_per_dimension(wrap, g, ring, lambda: g.half), axis=0)


def _transpose(g: _Lines, wrap, ties: str = "plus") -> np.ndarray:
    n = len(g.k)
    if n % 2:
        return np.full_like(g.routers, np.nan)
    h = n // 2
    symmetric = np.all(g.k[:h] == g.k[h:], axis=0)
    tie = 0.5 * _tie_even(g) if ties == "random" else 0.0
    per_line = _per_dimension(wrap, g, lambda: g.half - tie, lambda: g.k - 1.0)
    within_half = g.before[h] / (g.before[:h] * g.k[:h])
    all_to_one = np.max(per_line[:h] * g.before[:h], axis=0)
    one_to_all = np.max(per_line[h:] * within_half, axis=0)
    return np.where(symmetric, np.maximum(all_to_one, one_to_all), np.nan)


def _nearest_neighbour(g: _Lines, wrap) -> np.ndarray:
    dimensions = np.sum(g.k >= 2.0, axis=0)
    # a radix-2 ring's two neighbour shares go over its one link
    shares = _per_dimension(wrap, g, lambda: np.where(g.k == 2.0, 2.0, 1.0),
                            lambda: np.ones_like(g.k))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.max(shares, axis=0) / (2.0 * dimensions)


def _worst_case(g: _Lines, wrap) -> np.ndarray:
    def path():
        # max over m in 1..k-1 of min(m*A, (k-m)*B): at floor or ceil of the crossing
        # m* = k*B/(A+B) in (0, k); m = 0 or m = k give 0, so no clipping is needed. The
        # float floor is exact: k*(A+B) <= 2N keeps the rounding error below the gap 1/(A+B).
        m = np.floor(g.k * g.after / (g.before + g.after))
        low = np.minimum(m * g.before, (g.k - m) * g.after)
        high = np.minimum((m + 1.0) * g.before, (g.k - m - 1.0) * g.after)
        return np.maximum(low, high)

    return np.max(_per_dimension(wrap, g, lambda: g.half * np.minimum(g.before, g.after),
                                 path), axis=0)


# --- public channel loads (radices of shape (..., n) -> arrays of shape (...)) ----------


def uniform_load(radices, wrap=True, ties: str = "plus") -> np.ndarray:
    """γ_max under uniform traffic (self included): max_i g(k_i), flits/cycle.

    Under DOR a dimension-i channel carries exactly the traffic of one ring/path of k_i
    routers with uniform traffic, (N/k_i)·C/N = C/k_i (derived here). Ring, ties to +:
    (k+2)/8 for even k (+ channels; - channels carry (k-2)/8), (k^2-1)/(8k) for odd k.
    Dally & Towles §3.3.1/§5.2 give k/8, which assumes ties split evenly. Path:
    floor(k/2)*ceil(k/2)/k at the middle link (k/4 for even k, Dally & Towles §3.3.1).

    Other tie rules (``ties``, :data:`LOAD_TIES`; even k > 2, derived here by counting the
    k/2 tie sources whose half-ring path crosses one channel): ``random`` k/8 (each tie
    source sends half its share each way: Dally & Towles' k/8); ``split`` k/8 when k/2 is
    even, k/8 + 1/(2k) when k/2 is odd (k/2 consecutive ring positions hold one more even
    position than odd ones).
    """
    _check_ties(ties)
    return _one(radices, _uniform, wrap, ties)


def tornado_load(radices, wrap=True) -> np.ndarray:
    """γ_max under tornado traffic: max_i (ceil(k_i/2) - 1), flits/cycle.

    Pattern from Dally & Towles §3.2: d_i = (x_i + ceil(k_i/2) - 1) mod k_i. Derived here:
    the pattern acts coordinate-wise, so under DOR a dimension-i channel sees one ring of
    k_i routers each sending t_i = ceil(k_i/2) - 1 hops in the + direction (t_i < k_i/2, so
    minimal): load t_i. In a path, + channels carry at most t_i and the wrapping sources
    (travelling k_i - t_i back) at most t_i on - channels, and both bounds are reached.
    """
    return _one(radices, _tornado)


def bit_complement_load(radices, wrap=True, ties: str = "plus") -> np.ndarray:
    """γ_max under bit-complement d_i = k_i - 1 - x_i: max_i floor((k_i+2)/4) (torus).

    Derived here: coordinate-wise, so each ring sees the reflection x -> k-1-x. Pairs near
    the centre cross the middle link, pairs near the ends the wrap link; pairs at distance
    exactly k/2 (k = 2 mod 4) send both ways in + and load both. Counting gives
    floor((k+2)/4) for every k. Path (mesh): every pair crosses the middle, floor(k/2).
    ``ties="split"``: the two tie sources x and x + k/2 have opposite parity (k/2 odd), so
    they go opposite ways and each direction still carries floor((k+2)/4); ``"random"``: each
    sends half its flits each way, floor((k+2)/4) - 1/2 for k = 2 mod 4, k > 2.
    """
    _check_ties(ties)
    return _one(radices, _bit_complement, wrap, ties)


def transpose_load(radices, wrap=True, ties: str = "plus") -> np.ndarray:
    """γ_max under transpose (swap first and second halves of the coordinates), flits/cycle.

    Defined when n is even and k_i = k_{i+h}, h = n/2; NaN otherwise. Derived here: a
    channel of dimension j < h carries the traffic of all k_j sources of its ring heading to
    one destination coordinate, times prod_{i<j} k_i free source coordinates; a channel of
    dimension h+m carries one source to all k_m destinations, times prod_{m<i<h} k_i. A
    ring's all-to-one/one-to-all loads floor(k/2) on one channel (ties to +), a path's k-1.
    γ = max(max_{j<h} g(k_j) prod_{i<j} k_i, max_{m<h} g(k_m) prod_{m<i<h} k_i).
    Other tie rules (even k > 2): ``split`` sends the one tie source's flits one way, as
    plus does (k/2); ``random`` halves it, k/2 - 1/2.
    """
    _check_ties(ties)
    return _one(radices, _transpose, wrap, ties)


def nearest_neighbour_load(radices, wrap=True) -> np.ndarray:
    """γ_max when each endpoint sends 1/(2n) of its traffic to each ±1 neighbour.

    n counts dimensions of radix >= 2. Derived here: each channel carries the one share from
    its source router, 1/(2n); in a radix-2 ring the + and - neighbours coincide, so its
    single channel carries 1/n. Mesh: missing border neighbours get nothing, 1/(2n).
    """
    return _one(radices, _nearest_neighbour, wrap)


def worst_case_load(radices, wrap=True) -> np.ndarray:
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
