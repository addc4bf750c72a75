"""Slim Fly: the McKay–Miller–Širáň (MMS) diameter-2 graph with p endpoints per router.

Sources:

* Besta & Hoefler, "Slim Fly: A Cost Effective Low-Diameter Network Topology", SC14, §3.1:
  q a prime power, q = 4w + δ with δ ∈ {-1, 0, 1}; network radix k' = (3q - δ)/2; 2q² routers;
  diameter 2; p ≈ k'/2 endpoints per router for full global bandwidth.
* McKay, Miller & Širáň, "A note on large graphs of diameter two and given maximum degree",
  J. Combin. Theory B 74 (1998), and Hafner, "Geometric realisation of the graphs of
  McKay–Miller–Širáň", J. Combin. Theory B 90 (2004): the construction below.
* Jiang et al. (NUDT), Jiang et al. (slim fly paragraph): router degree (3q-δ)/2 + (3q-δ)/4,
  2q²(3q-δ)/4 terminals (that is p = k'/2 exactly, not an integer for odd q).

Construction (every count and load below refers to this graph). GF(q) is the field of q
elements and ξ a primitive element of it. Routers are (0, x, y) and (1, m, c), x, y, m, c ∈
GF(q): subgraph 0 has q *columns* x of q routers, subgraph 1 has q columns m.

* (0, x, y) ~ (0, x, y') iff y - y' ∈ X;  (1, m, c) ~ (1, m, c') iff c - c' ∈ X';
* (0, x, y) ~ (1, m, c) iff y = m·x + c (every router has one such *cross* link to each
  column of the other subgraph: q cross links).
* δ = 1:  X = {ξ⁰, ξ², …, ξ^(q-3)} (the nonzero squares), X' = ξ·X (the non-squares);
  δ = -1 (q = 4w - 1): X = {ξ⁰, ξ², …, ξ^(2w-2)} ∪ {ξ^(2w-1), ξ^(2w+1), …, ξ^(4w-3)}, X' = ξ·X;
  δ = 0 (q = 2^e): X = {ξ⁰, ξ², …, ξ^(q-2)}, X' = ξ·X = {ξ¹, ξ³, …, ξ^(q-1)}.
  |X| = |X'| = (q - δ)/2, X = -X and X' = -X', and X ∪ X' is every nonzero element; X and X'
  share 1 - δ elements.

Valid q: every prime power q >= 3 (odd prime powers are ≡ ±1 mod 4, powers of two from 4 on
≡ 0); q = 2 ≡ 2 (mod 4) is the one prime power with no δ. For δ = -1 the graph (and its
intra-column loads) depends on the choice of ξ; nothing this module reports does.

Routing: minimal (MIN). A flow between routers at distance 2 is split evenly over all its
minimal paths (all common neighbours) -- the oblivious convention for non-unique minimal paths.
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.model.topology.base import (
    COMMON_NOTES, PATTERNS, Family, Metrics, is_integer, require)

SLIMFLY_NOTES = (
    "slim fly = McKay-Miller-Siran graph (Besta & Hoefler SC14 sec. 3.1; Hafner 2004): q a "
    "prime power >= 3, q = 4w + delta, delta in {-1,0,1}; network radix k' = (3q - delta)/2; "
    "2q^2 routers; router radix k' + p",
    "construction: routers (0,x,y), (1,m,c), x,y,m,c in GF(q); (0,x,y)~(0,x,y') iff "
    "y-y' in X; (1,m,c)~(1,m,c') iff c-c' in X'; (0,x,y)~(1,m,c) iff y = m*x + c",
    "generator sets (xi primitive in GF(q)): delta=1: X = {xi^0, xi^2, ..., xi^(q-3)}; "
    "delta=-1 (q=4w-1): X = {xi^0, xi^2, ..., xi^(2w-2)} u {xi^(2w-1), xi^(2w+1), ..., "
    "xi^(4w-3)}; delta=0: X = {xi^0, xi^2, ..., xi^(q-2)}; always X' = xi*X",
    "p = endpoints per router, default ceil(k'/2) (Besta & Hoefler: p ~ k'/2; NUDT Jiang et al. "
    "uses k'/2 exactly, fractional for odd q)",
    "diameter 2 for every valid q (McKay-Miller-Siran 1998); every router has k' routers at "
    "1 hop and 2q^2 - 1 - k' at 2 hops",
    "routing MIN; a 2-hop flow is split evenly over all its minimal paths (common neighbours)",
    "uniform gamma_max = p(3q-2)/(2q^2): the exact load of every cross (subgraph 0 <-> 1) "
    "channel for every delta and xi; intra-column channels carry no more (proven for q >= 5 "
    "when every non-adjacent same-column router pair has >= 2 common neighbours, which was "
    "checked for every valid q <= 4096 (every xi for q <= 300); q = 3, 4, 5 checked on the "
    "graph; the busiest intra-column channel carries about 2/3 of the cross load for large q)",
    "uniform gamma_max is 9/8 of the mean channel load for large q: p ~ k'/2 does not quite "
    "give full throughput under MIN routing (about 8/9 of injection bandwidth)",
    "worst-case permutation gamma = 2p: a 2-hop path crosses channel u->v as its first hop "
    "(source on u) or its last (destination on v), so at most p + p flows; reached by u's p "
    "endpoints sending across u->v to a router at distance 2 with a unique minimal path, and "
    "the p endpoints of such a router sending to v (both exist for every cross channel)",
    "tornado, bit-complement, transpose, nearest-neighbour: NaN; the MMS graph has no ring or "
    "coordinate order, and endpoint-index versions depend on the arbitrary encoding of GF(q) "
    "elements as integers, with no closed form",
    "bisection_links = q(floor(q/2)^2 + ceil(q/2)^2), an upper bound: the balanced cut that "
    "puts whole columns on each side (floor(q/2) of subgraph 0 and ceil(q/2) of subgraph 1 on "
    "one side) cuts only cross links; spectral lower bound q^3/2 (Fiedler, Laplacian "
    "lambda_2 = q, proven for delta = 1, checked for every valid q <= 9000 and, for "
    "q <= 400, up to 100 choices of xi), so it is exact for even q and within (q-1)/2 links "
    "of the minimum for odd q (exact for q = 3 by exhaustive search)",
    "a balanced cut keeps every router with its p endpoints: q^2 routers a side",
)


def _arrays(*values) -> list[np.ndarray]:
    """Broadcast parameter values to float64 arrays of one common shape."""
    return list(np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in values)))


def _primes_up_to(n: int) -> np.ndarray:
    """The primes <= n (sieve of Eratosthenes), int64."""
    if n < 2:
        return np.zeros(0, dtype=np.int64)
    sieve = np.ones(n + 1, dtype=bool)
    sieve[:2] = False
    for factor in range(2, math.isqrt(n) + 1):
        if sieve[factor]:
            sieve[factor * factor :: factor] = False
    return np.flatnonzero(sieve).astype(np.int64)


def _is_prime_power_unique(values: np.ndarray) -> np.ndarray:
    """is_prime_power for a 1-D int64 array of distinct integers >= 2."""
    remainder = values.copy()
    has_small_factor = np.zeros(values.shape, dtype=bool)
    for prime in _primes_up_to(math.isqrt(int(values.max()))):
        divisible = ~has_small_factor & (values % prime == 0)
        if not divisible.any():
            continue
        has_small_factor |= divisible
        while True:
            step = divisible & (remainder % prime == 0)
            if not step.any():
                break
            remainder = np.where(step, remainder // prime, remainder)
    return ~has_small_factor | (remainder == 1)


def is_prime_power(n) -> np.ndarray:
    """True where n = r^e for a prime r and e >= 1 (broadcasts; non-integers give False).

    Trial division by the primes up to sqrt(max n) on the distinct values only, so a large
    batch with few distinct values costs one np.unique.
    """
    n = np.asarray(n, dtype=float)
    integral = np.isfinite(n) & (n == np.floor(n)) & (n >= 2) & (n < 2.0**53)
    out = np.zeros(n.shape, dtype=bool)
    if not integral.any():
        return out
    distinct, inverse = np.unique(n[integral].astype(np.int64), return_inverse=True)
    out[integral] = _is_prime_power_unique(distinct)[inverse]
    return out


def is_valid_q(q) -> np.ndarray:
    """True where an MMS graph exists: q a prime power >= 3 (Besta & Hoefler §3.1).

    Derived here: q = 4w + δ with δ ∈ {-1, 0, 1} excludes q ≡ 2 (mod 4); the only prime power
    ≡ 2 (mod 4) is 2. Broadcasts.
    """
    q = np.asarray(q, dtype=float)
    return is_prime_power(q) & (q >= 3)


def smallest_valid_q_at_least(n: int) -> int:
    """The least valid q (prime power >= 3) that is >= n, as a Python int."""
    q = max(3, int(n))
    while not bool(is_valid_q(q)):
        q += 1
    return q


def delta(q) -> np.ndarray:
    """δ ∈ {-1, 0, 1} with q = 4w + δ (Besta & Hoefler §3.1); NaN where q ≡ 2 (mod 4)."""
    (q,) = _arrays(q)
    residue = np.mod(q, 4.0)
    return np.where(residue == 2.0, np.nan, np.where(residue == 3.0, -1.0, residue))


def network_radix(q) -> np.ndarray:
    """Router-router ports per router k' = (3q - δ)/2 (Besta & Hoefler §3.1; Jiang et al.)."""
    (q,) = _arrays(q)
    return (3.0 * q - delta(q)) / 2.0


def default_endpoints_per_router(q) -> np.ndarray:
    """Default p = ⌈k'/2⌉ (Besta & Hoefler §3.1: p ≈ k'/2 for full global bandwidth).

    Derived here: ⌈(3q - δ)/4⌉ = 3w + 1 (δ = 1), 3w (δ = 0, -1) with q = 4w + δ.
    """
    return np.ceil(network_radix(q) / 2.0)


def routers(q) -> np.ndarray:
    """Routers 2q² (Besta & Hoefler §3.1; Jiang et al.)."""
    (q,) = _arrays(q)
    return 2.0 * q * q


def endpoints(q, p) -> np.ndarray:
    """Endpoints 2q²·p."""
    q, p = _arrays(q, p)
    return routers(q) * p


def radix(q, p) -> np.ndarray:
    """Router ports k' + p: network ports plus endpoint ports (Besta & Hoefler §3.1)."""
    q, p = _arrays(q, p)
    return network_radix(q) + p


def links(q) -> np.ndarray:
    """Bidirectional router-router links q²·k' (2q² routers of degree k', halved).

    Of these q³ are cross links and q²(q - δ)/2 intra-column links.
    """
    (q,) = _arrays(q)
    return q * q * network_radix(q)


def diameter(q) -> np.ndarray:
    """Diameter 2 hops for every valid q (McKay, Miller & Širáň 1998; Besta & Hoefler §3.1)."""
    (q,) = _arrays(q)
    return np.full(q.shape, 2.0)


def average_distance(q, p) -> np.ndarray:
    """Mean hops over ordered distinct endpoint pairs: p(2R - 2 - k')/(R·p - 1), R = 2q².

    Derived here from diameter 2: from one endpoint, p - 1 endpoints share its router (0 hops),
    k'·p sit on adjacent routers (1 hop) and (R - 1 - k')·p on the others (2 hops), out of
    N - 1 = R·p - 1.
    """
    q, p = _arrays(q, p)
    r = routers(q)
    k = network_radix(q)
    return p * (2.0 * r - 2.0 - k) / (r * p - 1.0)


def bisection_links(q) -> np.ndarray:
    """Links cut by an explicit balanced router cut: q(⌊q/2⌋² + ⌈q/2⌉²) -- an upper bound.

    Derived here. Put a = ⌊q/2⌋ whole columns of subgraph 0 and b = ⌈q/2⌉ whole columns of
    subgraph 1 on side A (q(a + b) = q² routers, half). No intra-column link is cut; between a
    column of subgraph 0 and one of subgraph 1 run exactly q cross links, cut when the columns
    are on different sides: q(a(q - b) + (q - a)b) = q(a² + b²). Lower bound (Fiedler): a
    balanced cut of R routers cuts at least λ₂·R/4 links, λ₂ the Laplacian's second smallest
    eigenvalue. Splitting the adjacency matrix by the additive characters ψ of GF(q) acting on
    y and c: the trivial ψ gives k', (q - δ)/2 - q and (q - δ)/2 (multiplicity 2(q - 1));
    each nontrivial ψ gives the roots of (λ - X̂(ψ))(λ - X̂'(ψ)) = q, X̂(ψ) = Σ_{a ∈ X} ψ(a).
    For δ = 1 (X the squares, a Gauss sum) these are (-1 ± √(5q))/2 <= (q - 1)/2 for q >= 5,
    so λ₂ = k' - (q - δ)/2 = q; for δ = 0, -1 the roots were checked to stay <= (q - δ)/2 for
    every valid q <= 9000. Hence the minimum is >= q³/2: the value is exact for even q and at
    most (q - 1)/2 above the minimum for odd q.
    """
    (q,) = _arrays(q)
    low = np.floor(q / 2.0)
    high = np.ceil(q / 2.0)
    return q * (low * low + high * high)


def bisection_lower_bound(q) -> np.ndarray:
    """Spectral lower bound ⌈q³/2⌉ on the minimum balanced cut (Fiedler: λ₂·R/4, λ₂ = q).

    See bisection_links for the status of λ₂ = q.
    """
    (q,) = _arrays(q)
    return np.ceil(q**3 / 2.0)


def mean_channel_load_uniform(q, p) -> np.ndarray:
    """Mean load over all 2·links channels under uniform traffic: p(2R - 2 - k')/(R·k').

    Derived here: one endpoint sends 1/N to each endpoint, and its destinations lie p - 1 at
    0 hops, k'·p at 1 and (R - 1 - k')·p at 2, so the N endpoints together put
    p(k' + 2(R - 1 - k')) flits per cycle on channels; there are R·k' channels.
    """
    q, p = _arrays(q, p)
    r = routers(q)
    k = network_radix(q)
    return p * (2.0 * r - 2.0 - k) / (r * k)


def uniform_channel_load(q, p) -> np.ndarray:
    """γ_max under uniform traffic and MIN routing: p(3q - 2)/(2q²) flits/cycle.

    Derived here. Every ordered router pair carries p²/N = p/(2q²) flits/cycle; a pair at
    distance 2 with λ common neighbours sends 1/λ of it through each. Cross channel
    u = (0,x,y) -> v = (1,m,c) carries, in pair units:
    the pair (u, v) itself: 1;
    u -> v's other subgraph-0 neighbours (0, x', m·x' + c), x' ≠ x: different columns, the
    only common neighbour is v: q - 1;
    u -> v's column neighbours (1, m, c + t), t ∈ X': λ = [t ∈ X] + [t ∈ X'], so
    |X'| - |X ∩ X'|/2 = (q - δ)/2 - (1 - δ)/2;
    and, symmetrically, u's neighbours -> v: (q - 1) + (q - δ)/2 - (1 - δ)/2.
    Total 3q - 2, for every δ and every choice of ξ. An intra-column channel y -> y + t
    carries 1 + 2q/(1 + [t ∈ X']) + 2·Σ 1/λ over the column neighbours of y + t not adjacent
    to y (λ = their common neighbours within the column), which stays <= 3q - 2 (see
    SLIMFLY_NOTES), so the cross channels are the busiest.
    """
    q, p = _arrays(q, p)
    return p * (3.0 * q - 2.0) / (2.0 * q * q)


def worst_case_channel_load(q, p) -> np.ndarray:
    """γ_max of the worst permutation under MIN routing: 2p flits/cycle.

    Derived here. Every minimal path has at most 2 hops, so one that crosses channel u -> v
    either starts at u or ends at v: at most p + p flows of a permutation. Cross channel
    u = (0,x,y) -> v = (1,m,c): u's p endpoints send to a router (0, x', m·x' + c), x' ≠ x,
    whose only common neighbour with u is v, and the p endpoints of (1, m', y - m'·x), m' ≠ m,
    (only common neighbour with v: u) send to v's p endpoints: 2p, each flow whole.
    """
    q, p = _arrays(q, p)
    return 2.0 * p


def channel_load(q, p) -> dict[str, np.ndarray]:
    """γ_max (flits/cycle) per pattern in base.PATTERNS under MIN routing with even splitting.

    uniform: uniform_channel_load; worst-case: worst_case_channel_load; tornado,
    bit-complement, transpose, nearest-neighbour: NaN (no closed form; see SLIMFLY_NOTES).
    """
    q, p = _arrays(q, p)
    undefined = np.full(q.shape, np.nan)
    loads = {pattern: undefined for pattern in PATTERNS}
    loads["uniform"] = uniform_channel_load(q, p)
    loads["worst-case"] = worst_case_channel_load(q, p)
    return loads


def _require_valid(q: np.ndarray, p: np.ndarray) -> None:
    """Raise InputError naming the first invalid q or p of a batch."""
    bad_q = ~is_valid_q(q)
    if bad_q.any():
        require(False, f"slimfly: q={_first(q, bad_q)} is not a prime power >= 3")
    bad_p = ~((p >= 1) & (p == np.floor(p)) & np.isfinite(p))
    if bad_p.any():
        require(False, f"slimfly: p={_first(p, bad_p)} must be a positive integer")


def _first(values: np.ndarray, mask: np.ndarray) -> str:
    """The first masked value, printed as an integer when it is one."""
    value = float(values[mask].flat[0])
    return str(int(value)) if value.is_integer() else str(value)


def evaluate(q, p=None) -> Metrics:
    """Metrics of slim fly q with p endpoints per router (default ⌈k'/2⌉); broadcasts.

    Raises InputError if any q is not a prime power >= 3 or any p is not a positive integer.
    """
    (q,) = _arrays(q)
    if p is None:
        p = default_endpoints_per_router(q)
    q, p = _arrays(q, p)
    _require_valid(q, p)
    fields = {
        "routers": routers(q),
        "endpoints": endpoints(q, p),
        "radix": radix(q, p),
        "links": links(q),
        "diameter": diameter(q),
        "average_distance": average_distance(q, p),
        "bisection_links": bisection_links(q),
    }
    loads = {name: np.asarray(value, dtype=float) for name, value in channel_load(q, p).items()}
    return Metrics(
        family="slimfly",
        channel_load=loads,
        notes=COMMON_NOTES + SLIMFLY_NOTES,
        **{name: np.asarray(value, dtype=float) for name, value in fields.items()},
    )


def check(params: dict) -> None:
    """Raise InputError unless params hold a valid q (prime power >= 3) and optional p >= 1."""
    require("q" in params, "slimfly: missing parameter q")
    for name in params:
        require(name in ("q", "p"), f"slimfly: unknown parameter {name}")
    q = params["q"]
    require(is_integer(q), f"slimfly: q={q} must be an integer")
    require(bool(is_prime_power(q)), f"slimfly: q={q} is not a prime power")
    require(
        q >= 3,
        f"slimfly: q={q} is not of the form 4w+delta with delta in {{-1,0,1}} "
        "(q must be a prime power >= 3)",
    )
    if "p" in params:
        p = params["p"]
        require(is_integer(p) and p >= 1, f"slimfly: p={p} must be a positive integer")


def _default_p(q: int) -> int:
    """⌈k'/2⌉ for a valid q, exactly in integers."""
    k = (3 * q - int(delta(q))) // 2
    return (k + 1) // 2


def endpoint_count(params: dict) -> int:
    """Exact endpoint count 2q²·p as a Python int (p defaults to ⌈k'/2⌉)."""
    q = int(params["q"])
    p = int(params["p"]) if "p" in params else _default_p(q)
    return 2 * q * q * p


def design_for_endpoints(n_endpoints: int, p: int | None = None) -> dict:
    """Params of the smallest slim fly with at least n_endpoints endpoints.

    Rule: the least valid q (prime power >= 3) with 2q²·p >= n_endpoints, where p is the
    given endpoints per router or, by default, ⌈k'/2⌉ (Besta & Hoefler §3.1). Returns
    {"q": q, "p": p}. Example: 100,000 endpoints -> q = 41, p = 31: 3,362 routers of radix
    92 (61 network + 31 endpoint ports), 104,222 endpoints.
    """
    require(int(n_endpoints) >= 1, "slimfly: the endpoint count must be positive")
    require(p is None or (is_integer(p) and p >= 1), f"slimfly: p={p} must be a positive integer")
    q = 3
    while True:
        per_router = _default_p(q) if p is None else int(p)
        if 2 * q * q * per_router >= n_endpoints:
            return {"q": q, "p": per_router}
        q = smallest_valid_q_at_least(q + 1)


FAMILIES: tuple[Family, ...] = (
    Family(
        name="slimfly",
        description="slim fly (MMS graph) q: 2q^2 routers, diameter 2, p endpoints/router",
        parameters=("q", "p"),
        positional="q",
        check=check,
        endpoints=endpoint_count,
        evaluate=evaluate,
        example="slimfly:q=13",
    ),
)
