"""Fat tree FT(k, n) as defined in the NUDT paper, and the folded Clos of radix-R switches.

FT(k, n) is the maximal folded Clos with 2k^n endpoints; as an extended generalized fat
tree it is XGFT(n; k,..,k,2k; 1,k,..,k) (xgft.py, xgft.fattree_as_xgft). It is not the
k-ary n-tree of Petrini & Vanneschi (k^n endpoints, top switches with k ports:
``xgft:m=kx..xk,w=1xkx..xk``).

Source: Jiang et al. (NUDT), "Topologies of large-scale high-performance interconnects",
Jiang et al., fat-tree paragraph (Fig. 1, FatTree(2,3)): router degree
2k, (2n-1)·k^(n-1) routers, 2·k^n terminals, diameter 2(n-1); routing in the paper's
simulator is nearest-common-ancestor (NCA).

Construction (derived here so that it has exactly the paper's counts; it is the folded
Clos / "full" fat tree of Al-Fares, Loukissas & Vahdat, "A scalable, commodity data center
network architecture", SIGCOMM 2008, generalised to n levels):

* Endpoints are numbered e = 0 .. 2k^n - 1.
* Levels 1 .. n-1 hold 2k^(n-1) routers each. A level-l router is (P, j): P is its
  level-l *pod*, the block of k^l consecutive endpoints [P·k^l, (P+1)·k^l), and
  j = 0 .. k^(l-1) - 1 its position in the pod. Level-1 routers (leaves) hold k endpoints:
  endpoint e is on leaf (e // k, 0).
* Level n (top) holds k^(n-1) routers (0, j); its pod is the whole network.
* Each router of level l < n has k up-ports u = 0 .. k-1; up-port u of (P, j) goes to
  router (P // k, j·k + u) of level l+1, except that level n-1 goes to top router
  (0, j·k + u). So each router of level 2 .. n-1 has one down-link into each of the k
  sub-pods of its pod, and each top router one down-link into each of the 2k pods of
  level n-1: the top level uses all 2k ports downwards, the others k down + k up.
* n = 1 is a single router with 2k endpoints.

The folded Clos ``clos:radix=R,levels=L`` is the same network with k = R/2, n = L.

Routing (NCA, up/down): a packet climbs from its source's leaf to the lowest level h whose
pod contains the destination (2(h-1) hops), then descends the unique down path. By
default (``up_port="random"``) each up hop is spread uniformly over the k up-ports
(oblivious), the nearest-common-ancestor routing with random up-ports of the NUDT study's
simulator (Jiang et al.) and of BookSim's ``fattree_nca``. ``up_port="d-mod-k"`` chooses
up-ports by destination, as InfiniBand's static fat-tree routing does: at level l the
up-port is (t // k^(l-1)) mod k for destination endpoint t (Zahavi et al., "Optimized
InfiniBand fat-tree routing for shift all-to-all communication patterns", 2010); its
worst-case permutation load is far higher (35 for FT(18,3)).
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.model.topology.base import (
    COMMON_NOTES, PATTERNS, Family, Metrics, is_integer, require, require_within_limit,
    structure_metrics)

MAX_LEVELS = 64
"""Most tree levels accepted (a k=1 tree stays small at any depth; deeper is not a design)."""

UP_PORT_RULES = ("d-mod-k", "random", "dmodk")
"""Accepted up-port selections for NCA routing (see the module docstring); ``dmodk`` (the
name of network.tree_routing, xgft.TREE_ROUTINGS) is ``d-mod-k``."""

CONSTRUCTION_NOTE = (
    "construction: NUDT FT(k,n), Jiang et al.: levels 1..n-1 have 2k^(n-1) routers "
    "(k down + k up ports), the top level k^(n-1) routers with all 2k ports down; "
    "(2n-1)k^(n-1) routers, 2k^n endpoints, k per leaf router"
)
WIRING_NOTE = (
    "wiring: level-l router (P,j) owns endpoints [P*k^l,(P+1)*k^l); its up-port u goes "
    "to (P//k, j*k+u) at level l+1 (to top router j*k+u from level n-1)"
)
ROUTING_NOTES = {
    "d-mod-k": (
        "routing: nearest common ancestor (up/down), up-port at level l = "
        "(t // k^(l-1)) mod k for destination endpoint t (d-mod-k); each down channel "
        "then serves exactly one destination",
        "with random or adaptive up-port spreading instead, every permutation "
        "(worst-case, tornado, bit-complement, transpose) has gamma_max = 1 and "
        "nearest-neighbour 1/k; no routing does better (cut bound of a leaf or pod)",
    ),
    "random": (
        "routing: nearest common ancestor (up/down), each up-port chosen uniformly at "
        "random (oblivious, as BookSim's fattree_nca); loads are expectations",
        "these loads equal the cut bound of a leaf or pod, so adaptive routing cannot "
        "lower them; destination-based d-mod-k gives k^(n/2) (n even) or "
        "2k^((n-1)/2)-1 (n odd) for the worst permutation",
    ),
}
PATTERN_NOTES = (
    "tornado: endpoint i -> (i + N/2) mod N (half shift; N = 2k^n is always even)",
    "bit-complement: i -> N-1-i, defined when N is a power of two (k a power of two)",
    "transpose: i = r*m+c -> c*m+r with m = sqrt(N), defined when N = 2k^n is a perfect "
    "square (n odd, k = 2^a*w^2 with a odd); equals bit transpose when N = 4^b",
    "nearest-neighbour: endpoint i sends 1/2 to (i+1) mod N and 1/2 to (i-1) mod N",
    "worst-case: maximum over all endpoint permutations of gamma_max",
    "n = 1 has no router-router channels, so every defined pattern has gamma_max = 0",
)
BISECTION_NOTE = (
    "bisection_links = N/2 = k^n: split the 2k top-level pods k|k, every top router keeps "
    "k links on each side; a flow argument shows no balanced cut (even one that separates "
    "endpoints from their router) is smaller; for n = 1 the k links are endpoint links"
)
CLOS_NOTE = (
    "clos:radix=R,levels=L is FT(k=R/2, n=L): the same network, parameterised by switch "
    "radix; levels=1 is a single switch with R endpoints"
)


ODD_BIT_POSITIONS = np.int64(0x2AAAAAAAAAAAAAAA)
"""Bits 1, 3, 5, ...: a power of two 2^a has one of them set iff a is odd."""


class FatTree:
    """FT(k, n) for k, n broadcast over NumPy arrays; each method is one closed form.

    k^n and k^⌊n/2⌋ are computed once here because every formula uses them (a batch of
    10^6 configurations is then evaluated in a fraction of a second). Counts are float64,
    exact below 2^53. Parameters are assumed checked (k ≥ 1, n ≥ 1 integers).
    """

    def __init__(self, k, n):
        self.k, self.n = np.broadcast_arrays(np.asarray(k, dtype=float),
                                             np.asarray(n, dtype=float))
        self.k_to_n = self.k**self.n
        self.k_to_half_n = self.k ** np.floor(self.n / 2.0)
        self.single_router = self.n == 1.0

    def routers(self):
        """Routers, (2n-1)·k^(n-1). Source: NUDT paper (Jiang et al.), fat-tree paragraph."""
        return (2.0 * self.n - 1.0) * self.k_to_n / self.k

    def endpoints(self):
        """Endpoints N = 2·k^n. Source: NUDT paper (Jiang et al.), fat-tree paragraph."""
        return 2.0 * self.k_to_n

    def radix(self):
        """Router ports, 2k. Source: NUDT paper (Jiang et al.), fat-tree paragraph."""
        return 2.0 * self.k

    def links(self):
        """Bidirectional router-router links, 2(n-1)·k^n.

        Derived here: each of the 2k^(n-1) routers of levels 1..n-1 has k up-links, so
        each of the n-1 gaps between adjacent levels holds 2k^n links.
        """
        return 2.0 * (self.n - 1.0) * self.k_to_n

    def diameter(self):
        """Largest hop count between endpoints, 2(n-1). Source: NUDT paper (Jiang et al.)."""
        return 2.0 * (self.n - 1.0)

    def average_distance(self):
        """Mean hops over ordered distinct endpoint pairs, 2[(n-1)N - Σ_{l=1}^{n-1} k^l]/(N-1).

        Derived here: a pair is 2(h-1) hops apart when its nearest common ancestor is at
        level h, i.e. 2 × the number of levels l = 1..n-1 whose pod (k^l endpoints) holds
        the source but not the destination; a source has N - k^l destinations outside
        its level-l pod. Σ_{l=1}^{n-1} k^l = (k^n - k)/(k - 1), or n - 1 when k = 1.
        """
        k, n, endpoints = self.k, self.n, self.endpoints()
        unit = k == 1.0
        safe_k = np.where(unit, 2.0, k)
        powers = np.where(unit, n - 1.0, (self.k_to_n - k) / (safe_k - 1.0))
        return 2.0 * ((n - 1.0) * endpoints - powers) / (endpoints - 1.0)

    def bisection_links(self):
        """Links cut by a minimum balanced cut of the endpoints, N/2 = k^n.

        Derived here: splitting the 2k pods of level n-1 into k|k cuts k links at every
        one of the k^(n-1) top routers. Lower bound: with random up-ports a permutation
        sending each side's N/2 endpoints to the other side loads every channel (endpoint
        channels included) at most 1, so every balanced cut has ≥ N/2 links. For n = 1
        the cut is k endpoint links of the single router.
        """
        return self.k_to_n

    def _with_channels(self, value):
        """value where n ≥ 2; 0 where n = 1 (no router-router channels)."""
        return np.where(self.single_router, 0.0, value)

    def bit_complement_defined(self):
        """True where N = 2k^n is a power of two, i.e. k is a power of two."""
        k = np.rint(self.k).astype(np.int64)
        return (k > 0) & ((k & (k - 1)) == 0)

    def transpose_defined(self):
        """True where N = 2k^n is a perfect square: n odd and k = 2^a·q², q odd, a odd.

        Derived here: with k = 2^a·r, r odd, 2k^n = 2^(1+a·n)·r^n is a square iff 1 + a·n
        is even (a and n both odd) and r^n, hence (n odd) r, is a square.
        """
        k = np.maximum(np.rint(self.k).astype(np.int64), 1)
        lowest_bit = k & -k
        odd_exponent = (lowest_bit & ODD_BIT_POSITIONS) != 0
        odd_part = k // lowest_bit
        root = np.rint(np.sqrt(odd_part)).astype(np.int64)
        return (self.n % 2.0 == 1.0) & odd_exponent & (root * root == odd_part)

    def uniform_load(self):
        """γ_max under uniform traffic, 1 - 1/(2k^(n-1)) for n ≥ 2 (flits/cycle).

        Derived here, for d-mod-k and random up-ports alike: the k^l up channels leaving
        a level-l pod share its outgoing traffic k^l·(N - k^l)/N equally (d-mod-k: each
        carries the 2k^(n-l) - 1 outside destinations of one residue mod k^l), giving
        1 - k^l/N per channel; down channels are symmetric. The maximum is at l = 1.
        """
        return self._with_channels(1.0 - self.k / self.endpoints())

    def dmodk_worst_case_load(self):
        """Worst-permutation γ_max, d-mod-k: k^(n/2) (n even), 2k^((n-1)/2) - 1 (n odd ≥ 3).

        Derived here: the up channel leaving a level-l pod towards residue a mod k^l
        carries the pod's flows to the 2k^(n-l) - 1 outside destinations ≡ a, so a
        permutation can put min(k^l, 2k^(n-l) - 1) flows on it; each down channel serves
        one destination (load ≤ 1). For k ≥ 2 the minimum is k^l while l ≤ n/2 and
        2k^(n-l) - 1 beyond; its maximum over l = 1..n-1 is the stated value (1 if k = 1).
        """
        odd = self.n % 2.0 == 1.0
        return self._with_channels(np.where(odd, 2.0 * self.k_to_half_n - 1.0,
                                            self.k_to_half_n))

    def dmodk_transpose_load(self):
        """Transpose γ_max, d-mod-k: 2k^((n-1)/2) - 1, NaN where N is not a square.

        Derived here with m = √N (n odd): for l ≤ (n-1)/2, k^l divides m, a level-l pod
        lies in one matrix row and all its flows share one residue mod k^l, loading one up
        channel with k^l; for l ≥ (n+1)/2, m divides k^l, a pod is k^l/m whole rows and
        each up channel carries m²/k^l - 1 = 2k^(n-l) - 1 flows. The maximum, at
        l = (n+1)/2, equals the worst case.
        """
        load = self._with_channels(2.0 * self.k_to_half_n - 1.0)
        return np.where(self.transpose_defined(), load, np.nan)

    def dmodk_channel_loads(self):
        """γ_max per pattern (base.PATTERNS), NCA routing with d-mod-k up-ports, flits/cycle.

        Derived here (pattern definitions in PATTERN_NOTES): tornado and bit-complement
        send every flow through the top level and give each up channel of a pod one flow
        (the destinations' residues are distinct), γ = 1; nearest-neighbour puts a pod's
        two boundary flows (residues 0 and k^l - 1) on different channels, γ = 1/2 (1 when
        k = 1, N = 2); uniform, transpose and worst-case as in their methods.
        """
        return self._loads(
            nearest_neighbour=np.where(self.k == 1.0, 1.0, 0.5),
            transpose=self.dmodk_transpose_load(),
            worst_case=self.dmodk_worst_case_load(),
        )

    def random_channel_loads(self):
        """γ_max per pattern, NCA routing with uniformly random up-ports, flits/cycle.

        Derived here: each of the k^l up (down) channels of a level-l pod carries 1/k^l of
        the pod's outgoing (incoming) traffic, so a permutation loads channels at most 1,
        and exactly 1 where a whole pod sends out (every leaf under tornado and
        bit-complement, a leaf off the diagonal under transpose); nearest-neighbour sends
        1 flit/cycle out of each leaf, γ = 1/k. These equal the cut bounds of a leaf or
        pod, so no routing, adaptive included, does better.
        """
        transpose = np.where(self.transpose_defined(), self._with_channels(1.0), np.nan)
        return self._loads(nearest_neighbour=1.0 / self.k, transpose=transpose,
                           worst_case=self._with_channels(1.0))

    def _loads(self, nearest_neighbour, transpose, worst_case):
        """The pattern dict; tornado and bit-complement give γ = 1 under both rules."""
        one = self._with_channels(1.0)
        return {
            "uniform": self.uniform_load(),
            "tornado": one,
            "bit-complement": np.where(self.bit_complement_defined(), one, np.nan),
            "transpose": transpose,
            "nearest-neighbour": self._with_channels(nearest_neighbour),
            "worst-case": worst_case,
        }

    def channel_loads(self, up_port: str = "random"):
        """γ_max per pattern for the up-port rule "d-mod-k" or "random"."""
        require(up_port in UP_PORT_RULES,
                f"fattree: up_port={up_port!r} is not one of {', '.join(UP_PORT_RULES)}")
        if up_port in ("d-mod-k", "dmodk"):
            return self.dmodk_channel_loads()
        return self.random_channel_loads()



# --- endpoint-to-endpoint routes (collectives: one message per pair) ----------------------


def _pairs(sources, destinations) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(sources, dtype=np.int64).ravel()
    d = np.asarray(destinations, dtype=np.int64).ravel()
    return s, d


def nca_hops(k: int, n: int, sources, destinations) -> np.ndarray:
    """Router-router hops of NCA routing between endpoint pairs of FT(k, n), 2·(h - 1).

    h is the lowest level whose pod (k^h consecutive endpoints, the whole network at level
    n) holds both endpoints; pods are nested, so h - 1 is the number of levels l = 1..n-1
    whose pods differ: hops = 2·#{l < n : s // k^l != d // k^l}. 0 for two endpoints of one
    leaf (or one endpoint). Vectorized over the pairs (module docstring: routing).
    """
    s, d = _pairs(sources, destinations)
    hops = np.zeros(s.shape, dtype=np.int64)
    size = 1
    for _ in range(1, int(n)):
        size *= int(k)
        hops += 2 * (s // size != d // size)
    return hops


def nca_message_load(k: int, n: int, sources, destinations) -> int:
    """Most messages on one channel when the pairs each send one message at once, NCA
    routing with up-ports spread over the k^l up channels of a level-l pod (bound).

    Derived here: a message leaves the level-l pod of its source on one of the pod's k^l up
    channels (k^(l-1) routers of k up-ports each) exactly when the destination lies outside
    it, and enters the destination's level-l pod on one of its k^l down channels. With c
    messages leaving (entering) a pod, some channel carries at least ceil(c / k^l) of them
    whatever the up-port choice (pigeonhole), and spreading them evenly (adaptive up-ports;
    the expectation under random ones) attains it. Returns the largest ceil(c / k^l) over
    pods, levels 1..n-1 and both directions; 0 when no message crosses a router-router
    channel. Random up-ports can collide above it; that is not charged.
    """
    s, d = _pairs(sources, destinations)
    load = 0
    size = 1
    for _ in range(1, int(n)):
        size *= int(k)
        pod_s, pod_d = s // size, d // size
        leaving = pod_s != pod_d
        if leaving.any():
            busiest = max(int(np.bincount(pod_s[leaving]).max()),
                          int(np.bincount(pod_d[leaving]).max()))
            load = max(load, -(-busiest // size))
    return load


def _metrics(family: str, tree: FatTree, up_port: str, extra_notes: tuple[str, ...]) -> Metrics:
    loads = tree.channel_loads(up_port)
    return structure_metrics(
        family, tree, {pattern: loads[pattern] for pattern in PATTERNS},
        COMMON_NOTES + (CONSTRUCTION_NOTE, WIRING_NOTE)
        + ROUTING_NOTES["d-mod-k" if up_port == "dmodk" else up_port]
        + PATTERN_NOTES + (BISECTION_NOTE,) + extra_notes)


def fattree(k, n, *, up_port: str = "random") -> Metrics:
    """Metrics of FT(k, n) (NUDT paper, Jiang et al.); k, n broadcast over NumPy arrays.

    Radix 2k ports per router; hops, loads and conventions as in base.py and the module
    docstring. ``up_port`` picks the NCA up-port rule used for channel loads.
    """
    return _metrics("fattree", FatTree(k, n), up_port, ())


def clos(radix, levels, *, up_port: str = "random") -> Metrics:
    """Metrics of a folded Clos of radix-R switches with L levels = FT(R/2, L).

    Derived here: with k = R/2 down- and up-ports per lower-level switch and all R ports
    of a top switch down, the folded Clos is exactly the NUDT FT(k, n = L).
    """
    return _metrics("clos", FatTree(np.asarray(radix, dtype=float) / 2.0, levels), up_port,
                    (CLOS_NOTE,))


def _param(params: dict, family: str, name: str) -> int:
    require(name in params, f"{family}: missing parameter {name}")
    value = params[name]
    require(is_integer(value), f"{family}: {name}={value!r} is not an integer")
    return value


def _require_size(family: str, k: int, n: int) -> None:
    """Reject trees beyond MAX_LEVELS levels or MAX_ENDPOINTS endpoints (2k^n)."""
    require(n <= MAX_LEVELS, f"{family}: {n} levels is more than the {MAX_LEVELS} supported")
    require_within_limit(family, 1 + n * math.log2(k))


def check_fattree(params: dict) -> None:
    """Raise InputError unless k ≥ 1 and n ≥ 1 are integers."""
    k, n = _param(params, "fattree", "k"), _param(params, "fattree", "n")
    require(k >= 1, f"fattree: k={k} must be >= 1 (routers have 2k ports)")
    require(n >= 1, f"fattree: n={n} must be >= 1 level")
    _require_size("fattree", k, n)


def fattree_endpoints(params: dict) -> int:
    """Exact endpoint count 2·k^n as a Python int."""
    return 2 * params["k"] ** params["n"]


def check_clos(params: dict) -> None:
    """Raise InputError unless radix is a positive even integer and levels ≥ 1."""
    radix, levels = _param(params, "clos", "radix"), _param(params, "clos", "levels")
    require(radix >= 2, f"clos: radix={radix} must be >= 2")
    require(radix % 2 == 0,
            f"clos: radix={radix} is odd; a folded Clos needs half the ports down, half up")
    require(levels >= 1, f"clos: levels={levels} must be >= 1")
    _require_size("clos", radix // 2, levels)


def clos_endpoints(params: dict) -> int:
    """Exact endpoint count 2·(R/2)^L as a Python int."""
    return 2 * (params["radix"] // 2) ** params["levels"]


def _smallest_k(n_endpoints: int, levels: int) -> int:
    """Smallest integer k ≥ 1 with 2k^levels ≥ n_endpoints (exact integer arithmetic)."""
    k = max(1, int(round((n_endpoints / 2.0) ** (1.0 / levels))))
    while 2 * k**levels < n_endpoints:
        k += 1
    while k > 1 and 2 * (k - 1) ** levels >= n_endpoints:
        k -= 1
    return k


def design_for_endpoints(n_endpoints: int, levels: int = 3, radix_max: int | None = None) -> dict:
    """Params {"k", "n"} of the smallest FT(k, n=levels) with 2k^n ≥ n_endpoints.

    Rule: the number of levels is fixed (default 3, as a three-tier fat tree) and k is the
    smallest integer reaching the endpoint count. Raises InputError if the needed radix
    2k exceeds ``radix_max``.
    """
    require(n_endpoints >= 1, f"fattree: n_endpoints={n_endpoints} must be >= 1")
    require(levels >= 1, f"fattree: levels={levels} must be >= 1")
    k = _smallest_k(n_endpoints, levels)
    require(radix_max is None or 2 * k <= radix_max,
            f"fattree: {n_endpoints} endpoints in {levels} levels need radix {2 * k}"
            f" > radix_max={radix_max}")
    return {"k": k, "n": levels}


def clos_design_for_endpoints(n_endpoints: int, levels: int = 3,
                              radix_max: int | None = None) -> dict:
    """Params {"radix", "levels"} of the smallest folded Clos reaching n_endpoints.

    Same rule as ``design_for_endpoints``: radix = 2k for the smallest k with
    2k^levels ≥ n_endpoints.
    """
    params = design_for_endpoints(n_endpoints, levels, radix_max)
    return {"radix": 2 * params["k"], "levels": params["n"]}


FAMILIES: tuple[Family, ...] = (
    Family(
        name="fattree",
        description="fat tree FT(k,n) of the NUDT paper: n levels of radix-2k routers, "
        "2k^n endpoints, NCA routing",
        parameters=("k", "n"),
        positional=None,
        check=check_fattree,
        endpoints=fattree_endpoints,
        evaluate=fattree,
        example="fattree:k=18,n=3",
    ),
    Family(
        name="clos",
        description="folded Clos of radix-R switches with L levels (= fattree k=R/2, n=L)",
        parameters=("radix", "levels"),
        positional=None,
        check=check_clos,
        endpoints=clos_endpoints,
        evaluate=clos,
        example="clos:radix=64,levels=3",
    ),
)
