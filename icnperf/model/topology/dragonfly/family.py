"""The dragonfly and megafly families: Metrics records, spec checks and sizing rules.

:func:`evaluate_dragonfly` and :func:`evaluate_megafly` gather the structure (``structure``)
and the channel loads (``loads``) of a batch of configurations into one ``Metrics`` record,
with the conventions as ``notes``; the checks and exact endpoint counts serve ``spec.py``;
:data:`FAMILIES` registers both families, the generalized dragonfly of ``general`` and the
general dragonfly+ of ``plus``. Units: counts, router hops, flits/cycle per channel.

Sizing rules (:func:`design_for_endpoints`): the smallest balanced dragonfly a = 2p = 2h
(Kim et al., ISCA 2008, §3.1; Jiang et al. §1.3) and the smallest megafly reaching a number of
endpoints. The conventions are those of :mod:`icnperf.model.topology.dragonfly`.
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.model.topology.base import (
    COMMON_NOTES, PATTERNS, Family, Metrics, is_integer, require)
from icnperf.model.topology.dragonfly.general import FAMILY as GDRAGONFLY
from icnperf.model.topology.dragonfly.plus import FAMILY as DFPLUS
from icnperf.model.topology.dragonfly.loads import dragonfly_channel_load, megafly_channel_load
from icnperf.model.topology.dragonfly.structure import (
    _arrays,
    dragonfly_average_distance,
    dragonfly_bisection_links,
    dragonfly_diameter,
    dragonfly_endpoints,
    dragonfly_is_balanced,
    dragonfly_links,
    dragonfly_radix,
    dragonfly_routers,
    megafly_average_distance,
    megafly_bisection_links,
    megafly_diameter,
    megafly_endpoints,
    megafly_links,
    megafly_radix,
    megafly_routers,
)

DRAGONFLY_NOTES = (
    "dragonfly DF(p,a,h): p endpoints per router, a routers per group fully connected by "
    "local links, h global links per router, g = a*h+1 groups, one global link per group pair",
    "global links: consecutive arrangement -- router r of group G owns ports j = r*h..r*h+h-1, "
    "port j links to group (G+j+1) mod g and lands on router a-1-r",
    "links = local a(a-1)/2 per group + global g(g-1)/2",
    "routing MIN (Kim et al. 2008): local, global, local; the path between groups is unique",
    "diameter and average_distance are shortest-path (BFS) hops; under this arrangement a "
    "packet routed MIN takes 3 hops where a 2-global-hop path exists for 2(h-1)max(a-2,0) "
    "ordered router pairs per group, so MIN hops average slightly more "
    "(dragonfly_min_average_distance, arrangement-independent)",
    "uniform gamma: global channel a*p/g, local channel p(2g-1)/(a*g) (arrangement-independent)",
    "tornado = adversarial group shift (endpoint of group G -> same router/port of group G+1): "
    "a*p on the group pair's global channel",
    "bit-complement / transpose: on endpoint index; need N a power of two (transpose: 2^b, b "
    "even), which for a dragonfly requires a = 1; NaN otherwise",
    "nearest-neighbour: e -> e+1 mod N; gamma 2 for a >= 2 under this arrangement (the owner of "
    "the +1 group's link is router 0, the landing router a-1), 1 for a = 1",
    "worst-case permutation: a*p (global channel carries at most one group's a*p endpoints; "
    "a local channel at most 2p)",
    "bisection: routers keep their endpoints; sides hold floor(R/2) and ceil(R/2) routers; "
    "value = smaller of the group-halving cut and (a divisible by 4) the router-index cut; an "
    "upper bound on the minimum: exact for a = 1 (K_g) and, by exhaustive search / MILP, for "
    "a <= 4 with h = 1, a = 2 with h <= 2, DF(.,3,2), DF(.,4,2); cuts splitting many groups "
    "are smaller when a is small against h (e.g. a = 2, h = 4: 13 vs 17; a = 3, h = 3: 21 vs "
    "25; a = 4, h = 3: 38 vs 40)",
)

MEGAFLY_NOTES = (
    "megafly (dragonfly+) k: groups are complete bipartite leaf/spine Clos with k leaves "
    "(k endpoints each) and k spines (k global links each); g = k^2+1 groups, one global link "
    "per group pair; radix 2k",
    "global links: consecutive arrangement -- spine s of group G owns ports j = s*k..s*k+k-1, "
    "port j links to group (G+j+1) mod g and lands on spine k-1-s",
    "links = leaf-spine k^2 per group + global g(g-1)/2",
    "routing MIN: leaf, spine, global, spine, leaf between groups; within a group leaf, spine, "
    "leaf split evenly over the k spines",
    "MIN paths are shortest paths: same leaf 0 hops, same group 2, other group 3",
    "uniform gamma: global k^2/g, leaf-spine channels (k^4+k^2-k)/N",
    "tornado = adversarial group shift (endpoint of group G -> same leaf/port of group G+1): "
    "k^2 on the global channel",
    "bit-complement needs N a power of two (only k = 1); transpose needs N = 2^b with b even "
    "(never); NaN otherwise",
    "nearest-neighbour: e -> e+1 mod N",
    "worst-case permutation: k^2 (global channel carries at most one group's k^2 endpoints; a "
    "leaf-spine channel at most k)",
    "bisection: balanced cut of the endpoints (leaves split evenly, spines free); value = "
    "group-halving cut, an upper bound on the minimum, shown minimal by exhaustive search for "
    "k = 1, 2 and by MILP for k = 3",
)


def _require_positive_integers(family: str, **params) -> None:
    """Raise InputError unless every value of every parameter is an integer >= 1."""
    for name, value in params.items():
        v = np.asarray(value, dtype=float)
        ok = bool(np.all((v >= 1) & (v == np.floor(v)) & np.isfinite(v)))
        require(ok, f"{family}: {name} must be a positive integer")


def _metrics(family: str, channel_load: dict, notes: tuple[str, ...], **fields) -> Metrics:
    """Metrics with every count and load as a float64 ndarray (0-d for one configuration)."""
    arrays = {name: np.asarray(value, dtype=float) for name, value in fields.items()}
    loads = {pattern: np.asarray(channel_load[pattern], dtype=float) for pattern in PATTERNS}
    return Metrics(family=family, channel_load=loads, notes=notes, **arrays)


# ---------------------------------------------------------------- dragonfly DF(p, a, h)


def _balance_note(p, a, h) -> str:
    """One note saying whether the configuration (or how many of the batch) is balanced."""
    balanced = dragonfly_is_balanced(p, a, h)
    if balanced.ndim == 0:
        if bool(balanced):
            return "balanced: a = 2p = 2h"
        return (
            f"not balanced: a = {float(a):g}, 2p = {2 * float(p):g}, 2h = {2 * float(h):g} "
            "(balanced is a = 2p = 2h)"
        )
    return f"balanced (a = 2p = 2h): {int(balanced.sum())} of {balanced.size} configurations"

def evaluate_dragonfly(p, a, h) -> Metrics:
    """Metrics of DF(p, a, h); broadcasts over NumPy arrays of p, a, h (positive integers)."""
    _require_positive_integers("dragonfly", p=p, a=a, h=h)
    p, a, h = _arrays(p, a, h)
    return _metrics(
        family="dragonfly",
        routers=dragonfly_routers(a, h),
        endpoints=dragonfly_endpoints(p, a, h),
        radix=dragonfly_radix(p, a, h),
        links=dragonfly_links(a, h),
        diameter=dragonfly_diameter(a, h),
        average_distance=dragonfly_average_distance(p, a, h),
        bisection_links=dragonfly_bisection_links(a, h),
        channel_load=dragonfly_channel_load(p, a, h),
        notes=COMMON_NOTES + DRAGONFLY_NOTES + (_balance_note(p, a, h),),
    )


def _check_names(family: str, params: dict, names: tuple[str, ...]) -> None:
    """Raise InputError for a missing, unknown or non-positive-integer parameter."""
    for name in names:
        require(name in params, f"{family}: missing parameter {name}")
    for name in params:
        require(name in names, f"{family}: unknown parameter {name}")
    for name in names:
        value = params[name]
        require(is_integer(value) and value >= 1, f"{family}: {name}={value} must be a positive integer")


def check_dragonfly(params: dict) -> None:
    """Raise InputError unless params are p, a, h, each a positive integer."""
    _check_names("dragonfly", params, ("p", "a", "h"))


def dragonfly_endpoint_count(params: dict) -> int:
    """Exact endpoint count a·p·(a·h + 1) as a Python int."""
    p, a, h = (int(params[name]) for name in ("p", "a", "h"))
    return a * p * (a * h + 1)


def design_dragonfly_for_endpoints(n_endpoints: int) -> dict:
    """Smallest balanced dragonfly (p = h = t, a = 2t) with at least n_endpoints endpoints.

    Balanced DF(t, 2t, t) has 2t²(2t² + 1) endpoints, increasing in t; returns the least t.
    """
    require(int(n_endpoints) >= 1, "dragonfly: the endpoint count must be positive")
    t = max(1, math.isqrt(math.isqrt(int(n_endpoints) // 4)))
    while t > 1 and 2 * (t - 1) ** 2 * (2 * (t - 1) ** 2 + 1) >= n_endpoints:
        t -= 1
    while 2 * t * t * (2 * t * t + 1) < n_endpoints:
        t += 1
    return {"p": t, "a": 2 * t, "h": t}


# ---------------------------------------------------------------- megafly (dragonfly+) k


def evaluate_megafly(k) -> Metrics:
    """Metrics of megafly k; broadcasts over a NumPy array of k (positive integers)."""
    _require_positive_integers("megafly", k=k)
    (k,) = _arrays(k)
    return _metrics(
        family="megafly",
        routers=megafly_routers(k),
        endpoints=megafly_endpoints(k),
        radix=megafly_radix(k),
        links=megafly_links(k),
        diameter=megafly_diameter(k),
        average_distance=megafly_average_distance(k),
        bisection_links=megafly_bisection_links(k),
        channel_load=megafly_channel_load(k),
        notes=COMMON_NOTES + MEGAFLY_NOTES,
    )


def check_megafly(params: dict) -> None:
    """Raise InputError unless params are k, a positive integer."""
    _check_names("megafly", params, ("k",))


def megafly_endpoint_count(params: dict) -> int:
    """Exact endpoint count k²(k² + 1) as a Python int."""
    k = int(params["k"])
    return k * k * (k * k + 1)


def design_megafly_for_endpoints(n_endpoints: int) -> dict:
    """Smallest megafly k with k²(k² + 1) >= n_endpoints."""
    require(int(n_endpoints) >= 1, "megafly: the endpoint count must be positive")
    k = max(1, math.isqrt(math.isqrt(int(n_endpoints))))
    while k > 1 and (k - 1) ** 2 * ((k - 1) ** 2 + 1) >= n_endpoints:
        k -= 1
    while k * k * (k * k + 1) < n_endpoints:
        k += 1
    return {"k": k}


def design_for_endpoints(n_endpoints: int, family: str = "dragonfly") -> dict:
    """Params of the smallest canonical configuration reaching n_endpoints endpoints.

    family "dragonfly": design_dragonfly_for_endpoints (balanced a = 2p = 2h);
    family "megafly": design_megafly_for_endpoints.
    """
    designers = {
        "dragonfly": design_dragonfly_for_endpoints,
        "megafly": design_megafly_for_endpoints,
    }
    require(family in designers, f"design_for_endpoints: unknown family {family!r}")
    return designers[family](n_endpoints)


FAMILIES: tuple[Family, ...] = (
    Family(
        name="dragonfly",
        description="dragonfly DF(p,a,h): p endpoints/router, a routers/group, "
        "h global links/router",
        parameters=("p", "a", "h"),
        positional=None,
        check=check_dragonfly,
        endpoints=dragonfly_endpoint_count,
        evaluate=evaluate_dragonfly,
        example="dragonfly:p=4,a=8,h=4",
    ),
    Family(
        name="megafly",
        description="megafly / dragonfly+ k: leaf-spine groups, k^2+1 groups, radix 2k",
        parameters=("k",),
        positional="k",
        check=check_megafly,
        endpoints=megafly_endpoint_count,
        evaluate=evaluate_megafly,
        example="megafly:k=18",
    ),
    GDRAGONFLY,
    DFPLUS,
)
