"""An embedded, cycle-driven flit-level simulator: the closed-form model's independent witness.

It knows topologies, routing and router micro-architecture, never the model's formulas: it
imports nothing from ``icnperf.model``. Comparisons with the closed forms are made by the
callers (``icnperf simulate``, the tests).

It simulates

* networks: k-ary n-cube tori and meshes (mixed radices; hypercubes as tori of radix-2
  dimensions) with dimension-order routing and dateline VC classes; any graph given as a
  ``TableNetwork`` (route table, hop-index VC classes); fat trees as XGFTs (``trees``:
  random or d-mod-k up ports), dragonflies and slim flies (``topologies``;
  ``network_from_spec("dragonfly:p=2,a=4,h=2", "ugal")``);
* two input-queued virtual-channel routers (``config``): icnperf's separable router and
  BookSim2's iq router with iSLIP allocation and internal speedup; credit-based flow
  control with credits crossing each link with its delay, wormhole packets of
  ``packet_flits`` flits (VC held per packet), a routing / VC-allocation /
  switch-allocation / switch-traversal pipeline;
* Bernoulli injection (rate in flits/endpoint/cycle) into unbounded source queues; uniform
  (self included), tornado, bit-complement, transpose, asymmetric, hotspot-mix and seeded
  random-permutation traffic;
* warm-up / measurement / drain phases, packets tagged in the measurement window;
  saturation throughput found as BookSim2 takes it (``runs.saturation``).

Modules: ``config`` (router configuration), ``presets`` (named routers), ``network``
(grids and table networks), ``trees`` (fat trees), ``topologies`` (dragonfly, slim fly,
spec strings), ``routing`` (routing rules and their constants), ``traffic`` (destination
patterns), ``state`` (the state arrays' layout), ``engine`` (state allocation),
``kernel`` (the compiled per-cycle kernel), ``runs`` (measured runs, statistics,
saturation). Timing conventions are stated in ``engine``'s and ``kernel``'s docstrings.
"""

import importlib

_HOMES = {
    "RouterConfig": "config",
    "Simulation": "engine", "check_memory": "engine", "estimate_memory": "engine",
    "Saturation": "runs", "SimResult": "runs", "saturation": "runs", "simulate": "runs",
    "GridNetwork": "network", "NetworkTables": "network", "TableNetwork": "network",
    "dragonfly": "topologies", "network_from_spec": "topologies", "slim_fly": "topologies",
    "TreeNetwork": "trees", "fat_tree": "trees", "rail": "trees", "xgft": "trees",
    "ALL_PATTERNS": "traffic", "Traffic": "traffic",
}
"""The module of each name the package offers. They are imported on first use (PEP 562):
the engine imports the compiled kernel and with it Numba (about 0.6 s), which a caller
reading only ``config`` or ``presets`` (the report's closed-form saturation claims) does
not need."""


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


__all__ = [
    "ALL_PATTERNS",
    "GridNetwork",
    "NetworkTables",
    "RouterConfig",
    "Saturation",
    "SimResult",
    "Simulation",
    "TableNetwork",
    "Traffic",
    "TreeNetwork",
    "check_memory",
    "dragonfly",
    "estimate_memory",
    "fat_tree",
    "network_from_spec",
    "rail",
    "saturation",
    "simulate",
    "slim_fly",
    "xgft",
]
