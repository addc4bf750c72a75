"""Extended generalized fat trees XGFT(h; m1..mh; w1..wh) with parallel cables p1..ph.

Source of the family: Öhring, Ibel, Das & Kumar, "On generalized fat trees", IPPS 1995
(XGFT); parallel cables as in SimGrid's FAT_TREE cluster (``topo_parameters``
"h;m1,..,mh;w1,..,wh;p1,..,ph") and Zahavi's PGFT. Leaf level first:

* m_l: children of each level-l switch (m1 = endpoints per leaf switch);
* w_l: parents of each level-(l-1) node (w1 = leaf switches per endpoint; icnperf takes
  w1 = 1, one link per endpoint, its injection limit);
* p_l: parallel cables between a level-(l-1) node and each of its parents (p1 = 1).

Construction (Öhring et al. §2; SimGrid's FatTreeZone builds the same): a level-l node is
labelled (a_h..a_{l+1}, b_l..b_1) with a_i < m_i and b_i < w_i; it is linked to every
level-(l+1) node whose label is its own with a_{l+1} replaced by some b_{l+1}. Endpoint e
has digits a_1 (fastest) .. a_h of e in the mixed radix (m1, .., mh). The level-l *pod* of
e is the block of P_l = m1·..·m_l consecutive endpoints sharing a_h..a_{l+1}; it holds
W_l = w1·..·w_l level-l switches, and C_l = W_l·w_{l+1}·p_{l+1} up channels leave it (and as
many down channels enter it). With N = P_h endpoints there are (N/P_l)·W_l switches at
level l.

Routing (nearest common ancestor, up/down; a pair whose level-l pods differ climbs above
level l): ``network.tree_routing`` picks the up port.

* ``random``: every up port (parent and cable) uniformly at random per packet, as BookSim's
  ``nca``; a flow leaving a level-l pod is then spread evenly over the pod's C_l up
  channels and, on the way down, over the destination pod's C_l down channels. Loads are
  expectations.
* ``dmodk``: as SimGrid's FatTreeZone: from a level-l node the up port is
  floor(d / W_l) mod (w_{l+1}·p_{l+1}) for destination endpoint d (port = parent +
  w_{l+1}·cable). With w1 = 1 the level-l switch reached is d mod W_l (mixed radix), so
  the up channel leaving the source's level-l pod is residue d mod C_l. Going down from
  level l+1 into level l the cable is s mod p_{l+1} (source endpoint s), so the down
  channel entering the destination's level-l pod is (d mod W_{l+1}, s mod p_{l+1}).
  (SimGrid picks the cable of the first descent this way; for p = 1, every tree whose
  test icnperf runs, the rule is the same at every level.)

FT(k, n) of fattree.py is XGFT(n; k,..,k,2k; 1,k,..,k): the same counts, wiring and loads
(tests/model/topology/test_xgft.py checks it).

Every metric broadcasts over NumPy arrays of the m, w, p of one height h (``xgft`` takes
one array per level), which is what sizing needs (a vectorized evaluate).
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.model.topology.base import (
    COMMON_NOTES, MAX_ENDPOINTS, PATTERNS, Family, Metrics, is_integer, require,
    structure_metrics)

MAX_LEVELS = 16
"""Most levels accepted (a taller tree is not a design; 2^16 endpoints even at m = 2)."""

TREE_ROUTINGS = ("random", "dmodk")
"""Tree routing rules (``network.tree_routing``), the first the default."""

TRANSPOSE_LIMIT = 2**16
"""Largest N for which the transpose load is counted flow by flow (N flows per level)."""


def _prod(values) -> np.ndarray:
    out = np.ones_like(values[0]) if values else 1.0
    for v in values:
        out = out * v
    return out


class XGFT:
    """XGFT(h; m; w; p) with every m_l, w_l, p_l broadcast over NumPy arrays (float64).

    Index conventions: ``P[l]`` endpoints in a level-l pod (P[0] = 1, P[h] = N), ``W[l]``
    level-l switches in a level-l pod (W[0] = 1), ``C[l]`` up channels leaving a level-l
    pod for l = 0..h-1 (C[0] = w1·p1 endpoint links), ``S[l]`` switches at level l.
    Parameters are assumed checked (integers >= 1, w1 = p1 = 1).
    """

    def __init__(self, m, w, p=None):
        h = len(m)
        p = (1,) * h if p is None else p
        arrays = np.broadcast_arrays(*[np.asarray(x, dtype=float) for x in (*m, *w, *p)])
        self.h = h
        self.m = [None] + list(arrays[:h])
        self.w = [None] + list(arrays[h:2 * h])
        self.p = [None] + list(arrays[2 * h:])
        one = np.ones_like(arrays[0])
        self.P, self.W = [one], [one]
        for level in range(1, h + 1):
            self.P.append(self.P[-1] * self.m[level])
            self.W.append(self.W[-1] * self.w[level])
        self.N = self.P[h]
        self.C = [self.W[l + 1] * self.p[l + 1] for l in range(h)]
        self.S = [None] + [self.N / self.P[l] * self.W[l] for l in range(1, h + 1)]

    # --- counts ----------------------------------------------------------------------

    def _channel_levels(self):
        """(l, mask) for l = 1..h-1: mask is True where level-l pods are not the whole tree
        (traffic can leave them); router-router channels exist only at these levels."""
        return [(l, self.P[l] < self.N) for l in range(1, self.h)]

    def routers(self):
        """Switches, Σ_l (N/P_l)·W_l (Öhring et al.: prod of the m above l and w up to l)."""
        return sum(self.S[1:])

    def endpoints(self):
        """Endpoints N = m1·..·mh."""
        return self.N

    def radix(self):
        """Largest switch port count: max over l of m_l·p_l down + w_{l+1}·p_{l+1} up."""
        ports = [self.m[l] * self.p[l] + (self.w[l + 1] * self.p[l + 1] if l < self.h else 0)
                 for l in range(1, self.h + 1)]
        return np.maximum.reduce(ports)

    def links(self):
        """Router-router cables, Σ_{l=1}^{h-1} S_l·w_{l+1}·p_{l+1} = Σ (N/P_l)·C_l."""
        total = np.zeros_like(self.N)
        for l in range(1, self.h):
            total = total + self.N / self.P[l] * self.C[l]
        return total

    def links_by_level(self) -> list:
        """Router-router cables between level l and l+1 for l = 1..h-1, (N/P_l)·C_l each
        (for a bill of materials by role: leaf-spine, spine-core, ...)."""
        return [self.N / self.P[l] * self.C[l] for l in range(1, self.h)]

    def diameter(self):
        """2 × the levels l = 1..h-1 whose pods are smaller than the tree (NCA up/down)."""
        total = np.zeros_like(self.N)
        for l, leaves in self._channel_levels():
            total = total + 2.0 * leaves
        return total

    def average_distance(self):
        """Mean hops over ordered distinct pairs, 2 Σ_{l=1}^{h-1} (N - P_l)/(N - 1).

        Derived here: a pair is 2 hops apart per level l whose pods differ; a source has
        N - P_l destinations outside its level-l pod.
        """
        total = np.zeros_like(self.N)
        for l in range(1, self.h):
            total = total + (self.N - self.P[l])
        return 2.0 * total / (self.N - 1.0)

    # --- channel loads ---------------------------------------------------------------

    def _max_over_levels(self, per_level):
        """max over channel levels of per_level(l) (0 where no level has channels)."""
        best = np.zeros_like(self.N)
        for l, leaves in self._channel_levels():
            best = np.maximum(best, np.where(leaves, per_level(l), 0.0))
        return best

    def uniform_load(self):
        """γ_max, uniform traffic, both rules: max_l P_l(N - P_l)/(N·C_l).

        Derived here: the pod sends P_l(N - P_l)/N flits/cycle out; random spreads it over
        its C_l up channels evenly; under dmodk (C_l | P_l) each residue class mod C_l has
        (N - P_l)/C_l destinations outside the pod. Down channels are symmetric (dmodk:
        P_l/W_{l+1} destinations per residue mod W_{l+1} times (N - P_l)/p_{l+1} sources
        per cable).
        """
        return self._max_over_levels(
            lambda l: self.P[l] * (self.N - self.P[l]) / (self.N * self.C[l]))

    def pod_out_load(self):
        """max_l P_l/C_l: every endpoint of a pod sends out of it (random rule: tornado,
        bit-complement, worst case; P_l ≤ N/2 as P_l divides N)."""
        return self._max_over_levels(lambda l: self.P[l] / self.C[l])

    def random_nearest_neighbour(self):
        """max_l 1/C_l: a pod sends 1/2 flit/cycle out at each end (random rule)."""
        return self._max_over_levels(lambda l: 1.0 / self.C[l])

    def dmodk_defined(self):
        """True where every channel level has C_l dividing P_l (dmodk closed forms)."""
        ok = np.ones(np.shape(self.N), dtype=bool)
        for l, leaves in self._channel_levels():
            ok &= ~leaves | (np.fmod(self.P[l], self.C[l]) == 0)
        return ok

    def dmodk_worst_case(self):
        """Worst permutation, dmodk: max_l max(min(P_l, (N-P_l)/C_l),
        min(P_l/W_{l+1}, (N-P_l)/p_{l+1})).

        Derived here: the up channel of residue r carries flows from the pod's P_l sources
        to the (N - P_l)/C_l outside destinations ≡ r, any source to any of them, so a
        permutation puts the smaller number on it (a maximum matching, Towles & Dally
        2002); the down channel (d mod W_{l+1}, s mod p_{l+1}) joins P_l/W_{l+1}
        destinations with (N - P_l)/p_{l+1} outside sources.
        """
        def level(l):
            out = self.N - self.P[l]
            up = np.minimum(self.P[l], out / self.C[l])
            down = np.minimum(self.P[l] / self.W[l + 1], out / self.p[l + 1])
            return np.maximum(up, down)
        return self._max_over_levels(level)

    def dmodk_shift_load(self):
        """Tornado and bit-complement, dmodk: max_l max(P_l/C_l, P_l/lcm(W_{l+1}, p_{l+1})).

        Derived here: both map a pod onto another whole block of P_l consecutive
        endpoints, so each up residue mod C_l gets P_l/C_l flows; entering pod Q, the
        destination d ≡ r (mod W_{l+1}) and the source d - N/2 (or N - 1 - d) ≡ c
        (mod p_{l+1}) fix d in one class mod lcm(W_{l+1}, p_{l+1}) (CRT), P_l/lcm flows.
        """
        def level(l):
            W = self.W[l + 1].astype(np.int64)
            p = self.p[l + 1].astype(np.int64)
            lcm = W // np.gcd(W, p) * p
            return np.maximum(self.P[l] / self.C[l], self.P[l] / lcm)
        return self._max_over_levels(level)

    def dmodk_nearest_neighbour(self):
        """max_l (1 if C_l = 1 else 1/2): the pod's two boundary flows (destination
        residues 0 and C_l - 1, sources ≡ -1 and 0 mod p) use different channels unless
        the pod has one."""
        return self._max_over_levels(lambda l: np.where(self.C[l] == 1.0, 1.0, 0.5))

    def tornado_defined(self):
        """Tornado i -> (i + N/2) mod N is defined for even N."""
        return np.fmod(self.N, 2.0) == 0.0

    def bit_complement_defined(self):
        """Bit-complement i -> N - 1 - i is defined for N a power of two."""
        n = np.rint(self.N).astype(np.int64)
        return (n > 0) & ((n & (n - 1)) == 0)

    def channel_loads(self, routing: str = "random") -> dict:
        """γ_max per pattern (base.PATTERNS) for the rule ``random`` or ``dmodk``."""
        require(routing in TREE_ROUTINGS,
                f"xgft: tree routing {routing!r} is not one of {', '.join(TREE_ROUTINGS)}")
        nan = np.full(np.shape(self.N), np.nan)
        if routing == "random":
            out_load = self.pod_out_load()
            loads = {"uniform": self.uniform_load(), "tornado": out_load,
                     "bit-complement": out_load,
                     "nearest-neighbour": self.random_nearest_neighbour(),
                     "worst-case": out_load}
        else:
            defined = self.dmodk_defined()
            shift = self.dmodk_shift_load()
            loads = {"uniform": np.where(defined, self.uniform_load(), nan),
                     "tornado": np.where(defined, shift, nan),
                     "bit-complement": np.where(defined, shift, nan),
                     "nearest-neighbour": np.where(defined, self.dmodk_nearest_neighbour(),
                                                   nan),
                     "worst-case": np.where(defined, self.dmodk_worst_case(), nan)}
        loads["tornado"] = np.where(self.tornado_defined(), loads["tornado"], nan)
        loads["bit-complement"] = np.where(self.bit_complement_defined(),
                                           loads["bit-complement"], nan)
        loads["transpose"] = self.transpose_load(routing)
        return {pattern: loads[pattern] for pattern in PATTERNS}

    def transpose_load(self, routing: str):
        """Transpose γ_max, counted flow by flow (tree_routing.pattern_load) where
        N = M² and N ≤ TRANSPOSE_LIMIT; NaN elsewhere."""
        from icnperf.model.topology import tree_routing

        out = np.full(np.shape(self.N), np.nan)
        flat = out.reshape(-1)
        columns = [np.broadcast_to(a, out.shape).reshape(-1)
                   for a in (*self.m[1:], *self.w[1:], *self.p[1:])]
        h = self.h
        for i in range(flat.size):
            n = int(self.N.reshape(-1)[i]) if np.ndim(self.N) else int(self.N)
            root = math.isqrt(n)
            if root * root != n or n > TRANSPOSE_LIMIT:
                continue
            m = tuple(int(c[i]) for c in columns[:h])
            w = tuple(int(c[i]) for c in columns[h:2 * h])
            p = tuple(int(c[i]) for c in columns[2 * h:])
            ids = np.arange(n, dtype=np.int64)
            flat[i] = tree_routing.pattern_load(m, w, p, routing, ids,
                                                (ids % root) * root + ids // root)
        return out

    # --- bisection -------------------------------------------------------------------

    def bisection_bound(self):
        """Flow lower bound on a balanced cut, floor(N/2) / γ_wc(random) with the endpoint
        channel (load 1) counted: min over l = 0..h-1 (P_l < N) of floor(N/2)·C_l/P_l."""
        half = np.floor(self.N / 2.0)
        best = half.copy()
        for l, leaves in self._channel_levels():
            best = np.where(leaves, np.minimum(best, half * self.C[l] / self.P[l]), best)
        return best

    def bisection_cut(self):
        """Links of an explicit balanced cut (an upper bound): put floor(N/2) endpoints on
        one side as whole level-l pods, the remainder by the same rule one level down:
        cut(j, L) = min over l ≤ L of floor(j/P_l)·C_l + cut(j mod P_l, l - 1), with
        l = 0 cutting single endpoint links (C_0 = 1). Each whole pod's switches go with
        it, so only its C_l up links cross."""
        def cut(j, top):
            best = j
            for l in range(1, top + 1):
                if l >= self.h:
                    break
                whole = np.floor(j / self.P[l])
                rest = j - whole * self.P[l]
                best = np.minimum(best, whole * self.C[l] + cut(rest, l - 1))
            return best
        return cut(np.floor(self.N / 2.0), self.h - 1)

    def bisection_links(self):
        """The explicit cut (:meth:`bisection_cut`); it is the minimum wherever it meets
        :meth:`bisection_bound` (e.g. whenever N/P_l is even at the level attaining the
        bound), which tests check by brute force and max-flow."""
        return self.bisection_cut()


# --- the family ---------------------------------------------------------------------


def tree_notes(tree: XGFT, routing: str) -> tuple[str, ...]:
    exact = bool(np.all(tree.bisection_cut() == tree.bisection_bound()))
    return COMMON_NOTES + (
        "construction: XGFT(h; m; w) of Öhring et al. 1995 with p parallel cables; level-l "
        "pod = m1..m_l consecutive endpoints, W_l = w1..w_l switches, C_l = W_l·w_(l+1)·"
        "p_(l+1) up channels; (N/P_l)·W_l switches at level l",
        "radix: the largest switch, max over levels of m_l·p_l down + w_(l+1)·p_(l+1) up",
        {"random": "routing random: nearest common ancestor, every up port (parent and "
                   "cable) uniformly at random (BookSim's nca); loads are expectations",
         "dmodk": "routing dmodk: nearest common ancestor, up port floor(d/W_l) mod "
                  "(w_(l+1)·p_(l+1)) for destination d, down cable s mod p (SimGrid's "
                  "FatTreeZone); loads given where every C_l divides P_l, else NaN"}[routing],
        "tornado: i -> (i + N/2) mod N, N even; bit-complement: N a power of two; "
        f"transpose: N a perfect square, counted flow by flow up to N = {TRANSPOSE_LIMIT}",
        "nearest-neighbour: endpoint i sends 1/2 to i+1 and 1/2 to i-1 (mod N)",
        "worst-case: maximum over endpoint permutations of gamma_max",
        "bisection_links: an explicit balanced cut (whole pods, endpoint links included); "
        + ("it meets the flow lower bound floor(N/2)/gamma_wc, so it is the minimum"
           if exact else "an upper bound where above floor(N/2)·min_l C_l/P_l"),
    )


def xgft(m, w, p=None, *, routing: str = "random") -> Metrics:
    """Metrics of XGFT(h; m; w) with p cables; m, w, p are sequences of h values (each may
    be a NumPy array, all broadcast together). ``routing``: TREE_ROUTINGS."""
    tree = XGFT(m, w, p)
    return structure_metrics("xgft", tree, tree.channel_loads(routing), tree_notes(tree, routing))


def fattree_as_xgft(k: int, n: int) -> dict:
    """FT(k, n) of fattree.py as XGFT params: m = (k,..,k,2k), w = (1,k,..,k), p = 1."""
    return {"m": (k,) * (n - 1) + (2 * k,), "w": (1,) + (k,) * (n - 1), "p": (1,) * n}


def kary_ntree(k: int, n: int) -> dict:
    """Params of the k-ary n-tree (Petrini & Vanneschi 1997): XGFT(n; k,..,k; 1,k,..,k),
    k^n endpoints, switches of 2k ports (the top level uses its k down ports only)."""
    return {"m": (k,) * n, "w": (1,) + (k,) * (n - 1), "p": (1,) * n}


def kary_ntree_for_endpoints(n_endpoints: int, levels: int) -> dict:
    """The smallest k-ary ``levels``-tree with k^levels >= n_endpoints (k >= 2)."""
    require(n_endpoints >= 1 and levels >= 1,
            f"xgft: need endpoints >= 1 and levels >= 1, not {n_endpoints}, {levels}")
    k = max(2, int(round(n_endpoints ** (1.0 / levels))))
    while k**levels < n_endpoints:
        k += 1
    while k > 2 and (k - 1) ** levels >= n_endpoints:
        k -= 1
    return kary_ntree(k, levels)


def _levels(params: dict, name: str, h: int | None) -> tuple[int, ...]:
    value = params[name]
    if is_integer(value):
        value = (value,)
    require(isinstance(value, tuple) and all(is_integer(v) for v in value),
            f"xgft: {name} must be whole numbers joined by x (e.g. m=4x4x4), not {value!r}")
    require(h is None or len(value) == h,
            f"xgft: {name} has {len(value)} levels but m has {h}; give one value per level")
    require(all(v >= 1 for v in value), f"xgft: every {name} must be >= 1 (got a zero)")
    return tuple(int(v) for v in value)


def check_xgft(params: dict) -> None:
    """Raise InputError unless m, w (and p) are equally long lists of integers >= 1,
    w1 = p1 = 1, at most MAX_LEVELS levels and MAX_ENDPOINTS endpoints and switches."""
    require("m" in params and "w" in params, "xgft: give m and w (e.g. xgft:m=8x8,w=1x8)")
    m = _levels(params, "m", None)
    h = len(m)
    require(h <= MAX_LEVELS, f"xgft: {h} levels is more than the {MAX_LEVELS} supported")
    w = _levels(params, "w", h)
    p = _levels(params, "p", h) if "p" in params else (1,) * h
    require(w[0] == 1, f"xgft: w1={w[0]}: endpoints with several leaf switches "
            "(multi-homed) are not modelled; w1 must be 1")
    require(p[0] == 1, f"xgft: p1={p[0]}: several cables per endpoint are not modelled; "
            "p1 must be 1")
    size = sum(math.log2(v) for v in m)
    require(size <= math.log2(MAX_ENDPOINTS),
            f"xgft: the tree would have more than {MAX_ENDPOINTS:.0e} endpoints, the largest "
            "icnperf accepts")
    require(math.prod(m) >= 2, "xgft: the tree needs at least 2 endpoints")
    switches = sum(math.prod(m[l:]) * math.prod(w[:l]) for l in range(1, h + 1))
    require(switches <= MAX_ENDPOINTS,
            f"xgft: the tree would have {switches:.3g} switches, more than the {MAX_ENDPOINTS:.0e}"
            " icnperf accepts")


def xgft_endpoints(params: dict) -> int:
    """Exact endpoint count m1·..·mh."""
    m = params["m"]
    return math.prod(m) if isinstance(m, tuple) else int(m)


def evaluate_xgft(m, w, p=None, routing: str = "random") -> Metrics:
    """The Family.evaluate of ``xgft`` (params as parsed: tuples m, w, optional p; a single
    integer is a one-level tree)."""
    def levels(value):
        return None if value is None else (value,) if is_integer(value) else tuple(value)
    return xgft(levels(m), levels(w), levels(p), routing=routing)


FAMILIES: tuple[Family, ...] = (
    Family(
        name="xgft",
        description="extended generalized fat tree XGFT(h; m; w) with p parallel cables "
        "(leaf level first; taper m_l·p_l : w_(l+1)·p_(l+1))",
        parameters=("m", "w", "p"),
        positional=None,
        check=check_xgft,
        endpoints=xgft_endpoints,
        evaluate=evaluate_xgft,
        example="xgft:m=8x8,w=1x8",
    ),
)
