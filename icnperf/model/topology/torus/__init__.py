"""Torus (k-ary n-cube with mixed radices), mesh and hypercube under dimension-order routing.

A configuration is a tuple of radices (k_0, ..., k_{n-1}); routers sit at the coordinates
x = (x_0, ..., x_{n-1}), 0 <= x_i < k_i, and router x links to x ± e_i (mod k_i in a torus).
Conventions (each also in the returned ``notes``):

* One endpoint per router (Angara attaches one node per router), so endpoints = routers = N.
* A radix-2 ring is ONE bidirectional link (no parallel edges), so ``torus:2x2x2`` and
  ``hypercube:3`` are the same network. ``hypercube:n`` is the torus of n radix-2 dimensions.
* Specs require every radix >= 2. Internally a radix-1 dimension is the identity (one router
  across it, no links); the vectorized hypercube uses it to pad configurations of different n.
* Dimensions may mix rings and paths (``wrap`` one bool per dimension; spec
  ``torus:24x23x24x2mx3x2m``, radices marked ``m`` are mesh dimensions), as Tofu's 6D
  mesh/torus does (Ajima et al., "Tofu: A 6D Mesh/Torus Interconnect for Exascale
  Computers", IEEE Computer 42(11), 2009: X, Y, Z and b rings, a and c meshes of 2). Each
  dimension contributes its own ring or path terms to every metric.
* Routing is dimension-order (DOR): dimension 0 (X) first, then 1 (Y), 2 (Z), ... In a torus
  each ring is crossed in the minimal direction; at distance exactly k/2 (even k) the +
  direction is taken (the metrics here; :func:`dor_traffic` can also split such ties,
  :data:`RING_TIES`; the uniform, bit-complement and transpose loads also take the split
  and random rules, :data:`LOAD_TIES`). A mesh routes DOR without wraparound.
* radix = max router degree + 1 endpoint port: 2 ports per dimension of radix > 2, 1 per
  dimension of radix 2 (mesh: interior routers; edge and corner routers use fewer ports).

Formulas are closed forms in the radices; the per-dimension ("line") terms are derived for one
ring/path and combined over the Cartesian product as each docstring says. The sources are
Dally & Towles, *Principles and Practices of Interconnection Networks* (2004), §3.2-3.3 and
§5.2 (torus), and Towles & Dally, "Worst-case traffic for oblivious routing functions" (2002)
for the worst-case method; everything else is derived here and checked against brute force
in tests/model/topology/test_torus.py.

The family is split by concept; everything public is re-exported here, so callers write
``from icnperf.model.topology import torus`` and ``torus.<name>``:

* ``structure``: a batch of radices evaluated in blocks, and the structural metrics
  (:func:`router_count`, :func:`router_radix`, :func:`link_count`, :func:`diameter`,
  :func:`average_distance`, :func:`bisection_links`);
* ``loads``: γ_max under each traffic pattern (:func:`uniform_load`, :func:`tornado_load`,
  :func:`bit_complement_load`, :func:`transpose_load`, :func:`nearest_neighbour_load`,
  :func:`worst_case_load`);
* ``family``: the Metrics records (:func:`torus_metrics`, :func:`mesh_metrics`,
  :func:`hypercube_metrics`), the spec checks and endpoint counts, the sizing rules
  (:func:`design_for_endpoints`, :func:`balanced_torus_shape`, every shape of a node
  count :func:`torus_shapes`) and :data:`FAMILIES`;
* ``routes``: explicit messages under DOR (:func:`endpoint_coordinates`,
  :func:`hop_distance`, the dimension-order spanning tree :func:`spanning_tree_depth`,
  :func:`spanning_tree_ties`, :func:`spanning_tree_fanout`, and the hops and channel load
  of one communication step, :func:`dor_traffic` with :data:`RING_TIES`).
"""

from __future__ import annotations

from icnperf.model.topology.torus.family import (
    FAMILIES,
    balanced_torus_shape,
    job_torus_shape,
    check_hypercube,
    check_mesh,
    check_torus,
    design_for_endpoints,
    grid_endpoints,
    hypercube_endpoints,
    hypercube_metrics,
    mesh_metrics,
    torus_metrics,
    torus_shapes,
)
from icnperf.model.topology.torus.loads import (
    LOAD_TIES,
    bit_complement_load,
    nearest_neighbour_load,
    tornado_load,
    transpose_load,
    uniform_load,
    worst_case_load,
)
from icnperf.model.topology.torus.routes import (
    RING_TIES,
    dor_traffic,
    endpoint_coordinates,
    hop_distance,
    spanning_tree_depth,
    spanning_tree_fanout,
    spanning_tree_ties,
)
from icnperf.model.topology.torus.structure import (
    average_distance,
    bisection_links,
    diameter,
    link_count,
    router_count,
    router_radix,
)

__all__ = [
    "FAMILIES",
    "LOAD_TIES",
    "RING_TIES",
    "average_distance",
    "balanced_torus_shape",
    "job_torus_shape",
    "bisection_links",
    "bit_complement_load",
    "check_hypercube",
    "check_mesh",
    "check_torus",
    "design_for_endpoints",
    "diameter",
    "dor_traffic",
    "endpoint_coordinates",
    "grid_endpoints",
    "hop_distance",
    "hypercube_endpoints",
    "hypercube_metrics",
    "link_count",
    "mesh_metrics",
    "nearest_neighbour_load",
    "router_count",
    "router_radix",
    "spanning_tree_depth",
    "spanning_tree_fanout",
    "spanning_tree_ties",
    "tornado_load",
    "torus_metrics",
    "torus_shapes",
    "transpose_load",
    "uniform_load",
    "worst_case_load",
]
