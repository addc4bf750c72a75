"""An embedded, cycle-driven flit-level simulator: the closed-form model's independent witness.

It knows topologies, routing and router micro-architecture, never the model's formulas: it
imports nothing from ``icnperf.model``. Comparisons with the closed forms are made by the
callers (``icnperf simulate``, the tests).

It simulates

* networks: k-ary n-cube tori and meshes (mixed radices; hypercubes as tori of radix-2
  dimensions) with dimension-order routing and dateline VC classes; any graph given as a
  ``TableNetwork`` (route table, hop-index VC classes); fat trees, dragonflies and slim
  flies built in ``topologies`` (``network_from_spec("dragonfly:p=2,a=4,h=2", "ugal")``);
* input-queued virtual-channel routers, credit-based flow control, wormhole packets of
  ``packet_flits`` flits (VC held per packet), a routing / VC-allocation /
  switch-allocation / switch-traversal pipeline;
* Bernoulli injection (rate in flits/endpoint/cycle) into unbounded source queues; uniform
  (self included), tornado, bit-complement, transpose, asymmetric, hotspot-mix and seeded
  random-permutation traffic;
* warm-up / measurement / drain phases, packets tagged in the measurement window.

Modules: ``network`` (grids and table networks), ``topologies`` (indirect and low-diameter
networks, spec strings), ``traffic`` (destination patterns), ``engine`` (router
configuration, state, statistics), ``kernel`` (the compiled per-cycle kernel). Timing
conventions are stated in ``engine``'s docstring.
"""

from icnperf.sim.config import RouterConfig
from icnperf.sim.engine import Simulation, check_memory, estimate_memory
from icnperf.sim.runs import SimResult, simulate
from icnperf.sim.network import GridNetwork, NetworkTables, TableNetwork
from icnperf.sim.topologies import (
    dragonfly,
    fat_tree,
    network_from_spec,
    slim_fly,
)
from icnperf.sim.traffic import ALL_PATTERNS, Traffic

__all__ = [
    "ALL_PATTERNS",
    "GridNetwork",
    "NetworkTables",
    "RouterConfig",
    "SimResult",
    "Simulation",
    "TableNetwork",
    "Traffic",
    "check_memory",
    "dragonfly",
    "estimate_memory",
    "fat_tree",
    "network_from_spec",
    "simulate",
    "slim_fly",
]
