"""Dragonfly DF(p, a, h), megafly (dragonfly+) and the generalized dragonfly: structure, loads
and MIN routes.

Sources:

* Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology", ISCA 2008
  (§3 topology, §4 minimal routing and the adversarial group-shift traffic).
* Jiang et al. (NUDT), Jiang et al. §1.3: DF(t, a, h) with t = p endpoints per router, radix
  k = p + a + h - 1, a(ah + 1) routers, a·p·(ah + 1) endpoints, at most 3 hops, balanced when
  a = 2p = 2h; megafly (dragonfly+, Shpiner et al., HiPINEB 2017) with 2-level Clos groups and
  router radix 2k.

Construction conventions (every count and load below refers to exactly this graph):

* **Dragonfly.** g = a·h + 1 groups G = 0..g-1 of a routers r = 0..a-1, fully connected by
  local links; each router has p endpoints. *Consecutive global arrangement*: router r of
  group G owns global ports j = r·h .. r·h + h - 1 and port j links to group (G + j + 1) mod g.
  The far end of that link is port g - 2 - j of the other group, so router r's global links all
  land on router a - 1 - r, and every pair of groups shares exactly one global link.
* **Megafly.** g = k² + 1 groups; a group is a complete bipartite graph between k leaf routers
  (k endpoints each) and k spine routers; spine s owns global ports s·k .. s·k + k - 1 with the
  same consecutive rule (port j -> group G + j + 1, landing on spine k - 1 - s).
* Endpoint index e = (router index)·(endpoints per router) + port, routers numbered group-major
  (dragonfly router G·a + r; megafly leaf G·k + l).
* **MIN routing.** Dragonfly: same group: the direct local link; other group: local hop to the
  router owning the group pair's global link (if not already there), the global link, local hop
  to the destination router (if not already there) -- Kim et al. 2008 §4. Megafly: other group:
  leaf -> spine owning the global link -> global -> spine -> leaf (unique); same group,
  different leaf: leaf -> spine -> leaf with the flow split evenly over the k spines (oblivious
  spreading, weight 1/k per spine).

Traffic patterns, on the endpoint index e (N endpoints):

* tornado: the dragonfly adversarial group shift of Kim et al. 2008 §4 -- every endpoint sends to
  the endpoint with the same router index and port in group G + 1 (mod g). This is not the ring
  tornado of Dally & Towles; on groups that are all pairwise linked every non-zero group shift
  loads a global channel alike.
* bit-complement: e -> N - 1 - e, defined only when N is a power of two (dragonfly: only a = 1;
  megafly: only k = 1); transpose: swap the high and low halves of the b-bit address, defined
  only when N = 2^b with b even (dragonfly: only a = 1; megafly: never). NaN otherwise.
* nearest-neighbour: e -> (e + 1) mod N (Dally & Towles 2004 "neighbor" on the endpoint index).
* worst-case: maximum of γ_max over all permutations (Towles & Dally 2002).

The package is split by concept; everything public is re-exported here, so callers write
``from icnperf.model.topology import dragonfly`` and ``dragonfly.<name>``:

* ``structure``: groups, routers, endpoints, radix, links, diameter, mean distances and
  bisections of both families, and :func:`dragonfly_is_balanced`;
* ``loads``: γ_max per traffic pattern under MIN routing (:func:`dragonfly_channel_load`,
  :func:`megafly_channel_load`) and the uniform load per channel class;
* ``routes``: explicit messages under MIN routing, the hops of each endpoint pair and the
  busiest channel of one communication step (:func:`dragonfly_route_hops`,
  :func:`dragonfly_route_load`, :func:`megafly_route_hops`, :func:`megafly_route_load`;
  :func:`dragonfly_alltoall_traffic`, the all-to-all in closed form);
* ``general``: the generalized dragonfly ``gdragonfly`` (a x b groups with rank-1 and rank-2
  all-to-all links, parallel local links, m global links per group pair: Cray Aries, HPE
  Slingshot), its structure in closed form and its loads counted per group
  (:func:`evaluate_gdragonfly`, :func:`gdragonfly_structure`, :func:`gdragonfly_loads_one`);
* ``general_routes``: explicit messages on the generalized dragonfly under its MIN routing
  (:func:`gdragonfly_route_hops`, :func:`gdragonfly_route_load`);
* ``general_flow``: the maximum flow between two gdragonfly routers over the links adaptive
  routing may use, per class of router pairs (:func:`general_flow.pair_classes`,
  :func:`general_flow.path_links`; imported from its module, used by
  :mod:`icnperf.model.network.multipath`);
* ``plus``: the general dragonfly+ ``dfplus`` (megafly with free sizes: endpoints per leaf,
  leaves and spines per group, global links per spine, groups; :class:`plus.DFPlus`,
  imported from its module);
* ``family``: the Metrics records (:func:`evaluate_dragonfly`, :func:`evaluate_megafly`),
  the notes, spec checks, exact endpoint counts, sizing rules
  (:func:`design_for_endpoints`) and :data:`FAMILIES`.
"""

from __future__ import annotations

from icnperf.model.topology.dragonfly.family import (
    DRAGONFLY_NOTES,
    FAMILIES,
    MEGAFLY_NOTES,
    check_dragonfly,
    check_megafly,
    design_dragonfly_for_endpoints,
    design_for_endpoints,
    design_megafly_for_endpoints,
    dragonfly_endpoint_count,
    evaluate_dragonfly,
    evaluate_megafly,
    megafly_endpoint_count,
)
from icnperf.model.topology.dragonfly.general import (
    check_gdragonfly,
    evaluate_gdragonfly,
    gdragonfly_endpoint_count,
    gdragonfly_loads_one,
    gdragonfly_structure,
)
from icnperf.model.topology.dragonfly.general_routes import (
    gdragonfly_route_hops,
    gdragonfly_route_load,
)
from icnperf.model.topology.dragonfly.loads import (
    dragonfly_channel_load,
    dragonfly_uniform_loads,
    megafly_channel_load,
    megafly_uniform_loads,
)
from icnperf.model.topology.dragonfly.routes import (
    dragonfly_alltoall_traffic,
    dragonfly_route_hops,
    dragonfly_route_load,
    megafly_route_hops,
    megafly_route_load,
)
from icnperf.model.topology.dragonfly.structure import (
    dragonfly_average_distance,
    dragonfly_bisection_links,
    dragonfly_diameter,
    dragonfly_endpoints,
    dragonfly_global_links,
    dragonfly_group_cut_links,
    dragonfly_groups,
    dragonfly_index_cut_links,
    dragonfly_is_balanced,
    dragonfly_links,
    dragonfly_local_links,
    dragonfly_min_average_distance,
    dragonfly_radix,
    dragonfly_routers,
    dragonfly_shortcut_router_pairs,
    megafly_average_distance,
    megafly_bisection_links,
    megafly_diameter,
    megafly_endpoints,
    megafly_groups,
    megafly_links,
    megafly_radix,
    megafly_routers,
)

__all__ = [
    "DRAGONFLY_NOTES",
    "FAMILIES",
    "MEGAFLY_NOTES",
    "check_dragonfly",
    "check_gdragonfly",
    "check_megafly",
    "design_dragonfly_for_endpoints",
    "design_for_endpoints",
    "design_megafly_for_endpoints",
    "dragonfly_average_distance",
    "dragonfly_bisection_links",
    "dragonfly_channel_load",
    "dragonfly_diameter",
    "dragonfly_endpoint_count",
    "dragonfly_endpoints",
    "dragonfly_global_links",
    "dragonfly_group_cut_links",
    "dragonfly_groups",
    "dragonfly_index_cut_links",
    "dragonfly_is_balanced",
    "dragonfly_links",
    "dragonfly_local_links",
    "dragonfly_min_average_distance",
    "dragonfly_radix",
    "dragonfly_route_hops",
    "dragonfly_route_load",
    "dragonfly_alltoall_traffic",
    "dragonfly_routers",
    "dragonfly_shortcut_router_pairs",
    "dragonfly_uniform_loads",
    "evaluate_dragonfly",
    "evaluate_gdragonfly",
    "evaluate_megafly",
    "gdragonfly_endpoint_count",
    "gdragonfly_loads_one",
    "gdragonfly_route_hops",
    "gdragonfly_route_load",
    "gdragonfly_structure",
    "megafly_average_distance",
    "megafly_bisection_links",
    "megafly_channel_load",
    "megafly_diameter",
    "megafly_endpoint_count",
    "megafly_endpoints",
    "megafly_groups",
    "megafly_links",
    "megafly_radix",
    "megafly_route_hops",
    "megafly_route_load",
    "megafly_routers",
    "megafly_uniform_loads",
]
