"""An embedded, cycle-driven flit-level simulator: the closed-form model's independent witness.

It knows topologies, routing and router micro-architecture, never the model's formulas: it
imports nothing from ``icnperf.model``. Comparisons with the closed forms are made by the
callers (``icnperf simulate``, the tests).

This first slice simulates k-ary n-cube tori and meshes (mixed radices; hypercubes as tori of
radix-2 dimensions):

* input-queued virtual-channel routers, credit-based flow control, one flit per packet;
* dimension-order routing (dimension 0 first, the minimal way round each ring, + at a tie)
  with dateline virtual-channel classes on every ring of radix > 2 (deadlock-free);
* Bernoulli injection into unbounded source queues; uniform (self included), tornado,
  bit-complement and seeded random-permutation traffic;
* warm-up / measurement / drain phases, packets tagged in the measurement window.

Modules: ``network`` (the topology: coordinates, links, routes), ``traffic`` (destination
patterns), ``engine`` (router configuration, the per-cycle vectorized engine, statistics).
Timing conventions are stated in ``engine``'s docstring.
"""

from icnperf.validation.flitsim.engine import (
    RouterConfig,
    SimResult,
    Simulation,
    check_memory,
    estimate_memory,
    simulate,
)
from icnperf.validation.flitsim.network import GridNetwork
from icnperf.validation.flitsim.traffic import TRAFFIC_PATTERNS, Traffic

__all__ = [
    "GridNetwork",
    "RouterConfig",
    "SimResult",
    "Simulation",
    "TRAFFIC_PATTERNS",
    "Traffic",
    "check_memory",
    "estimate_memory",
    "simulate",
]
