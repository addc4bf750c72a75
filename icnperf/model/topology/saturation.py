"""A topology's inputs to the saturation estimate (model/network/saturation.py): which
channel and which VC class saturate first, how many VCs that class has, and how evenly a
router's outputs are loaded, per family, routing and traffic pattern.

Rules (loads in flits/cycle at 1 flit/endpoint/cycle, ``base.py``'s conventions):

* **VC classes**: a torus ring of radix > 2 splits a port's V VCs into two dateline
  classes (V/2 each), and its wraparound link carries one class only, so the busiest class
  load is the busiest channel's (exact under uniform traffic, where every channel of a ring
  is equally loaded; an upper estimate otherwise). Meshes, hypercubes and fat trees use all
  V. A dragonfly's phase classes (BookSim2's: ``min`` 2, ``ugal``/``valiant`` 3) give V/C
  each; under ``min`` the global hop, the hops after it and the ejection port are one
  class, so its busiest load is max(global channel, ejection x the share of packets
  leaving their group). A slim fly's hop classes: 2.
* **Injection**: an endpoint injects on any of the V VCs.
* **Load balance**: the mean load of a router's output ports is N·H/C on its network
  outputs (H the pattern's mean hops, C the unidirectional router-router channels) and the
  ejection load on its endpoint ports; known for tori and meshes under uniform traffic
  (from the average distance), else taken as the bottleneck's (β = 1, the pessimistic
  end).
* **UGAL** on a dragonfly: γ = min(γ_min, 2·γ_uniform) (saturation.ugal_channel_load).
* **Fixed permutations** (:data:`PERMUTATIONS`): no allocator matching loss.
"""

from __future__ import annotations

import numpy as np

from icnperf.model.network.contention import FIXED_PERMUTATIONS
from icnperf.model.network.saturation import saturation_terms, ugal_channel_load

PERMUTATIONS = FIXED_PERMUTATIONS + ("worst-case",)
"""Patterns that send every endpoint's packets to one fixed destination."""

GRID_FAMILIES = ("torus", "mesh", "hypercube")


def _dragonfly_global_load(p, a, h, endpoints):
    """Uniform load of one global channel under MIN routing: the a·p endpoints of a group
    send the share (N - a·p)/N of their flits out of the group over its a·h global
    channels: p·(N - a·p)/(N·h)."""
    return p * (endpoints - a * p) / (endpoints * h)


def estimate_inputs(family: str, params: dict, metrics, pattern: str, *, vcs,
                    routing: str | None = None, gamma=None, hops=None,
                    ejection=1.0) -> dict:
    """Keyword arguments of saturation_terms for one network or a batch (family name, spec
    params, arrays of a batch's parameters alike, and its Metrics) under ``pattern``:
    gamma_max (``gamma`` if given, else the metrics'), ejection_load, gamma_class,
    class_vcs, injection_vcs, ports, mean_output_load.
    ``hops``: the pattern's mean router hops, when known (uniform on grids: from the
    metrics)."""
    vcs = np.asarray(vcs, dtype=float)
    g = np.asarray(metrics.channel_load[pattern] if gamma is None else gamma, dtype=float)
    n = np.asarray(metrics.endpoints, dtype=float)
    inputs = {"gamma_max": g, "ejection_load": ejection, "gamma_class": g,
              "class_vcs": vcs, "injection_vcs": vcs,
              "ports": np.asarray(metrics.radix, dtype=float), "mean_output_load": None,
              "permutation": pattern in PERMUTATIONS}
    if family in GRID_FAMILIES:
        if family == "torus":
            rings = np.any(np.asarray(params["radices"]) > 2, axis=-1)
            inputs["class_vcs"] = np.where(rings, np.floor(vcs / 2), vcs)
        if hops is None and pattern == "uniform":
            hops = np.asarray(metrics.average_distance, dtype=float) * (n - 1) / n
        if hops is not None:
            channels = 2.0 * np.asarray(metrics.links, dtype=float)
            ports = inputs["ports"]
            network_ports = ports - 1.0
            inputs["mean_output_load"] = (network_ports * n * hops / channels
                                          + ejection) / ports
    elif family == "dragonfly":
        p, a, h = (np.asarray(params[x], dtype=float) for x in ("p", "a", "h"))
        classes = 2 if routing in (None, "min") else 3
        inputs["class_vcs"] = np.floor(vcs / classes)
        if routing in ("ugal", "ugal-hops") and pattern != "uniform":
            inputs["gamma_max"] = ugal_channel_load(g, metrics.channel_load["uniform"])
            inputs["gamma_class"] = inputs["gamma_max"]
        elif pattern == "uniform" and classes == 2:
            leaving = (n - a * p) / n
            inputs["gamma_class"] = np.maximum(_dragonfly_global_load(p, a, h, n),
                                               ejection * leaving)
    elif family == "slimfly":
        inputs["class_vcs"] = np.floor(vcs / 2)
    return inputs


def saturation_of(family: str, params: dict, metrics, pattern: str, router: dict, *,
                  routing: str | None = None, gamma=None, hops=None,
                  ejection=1.0) -> dict:
    """saturation_terms of one network under ``pattern`` with the router micro-architecture
    ``router`` (keywords: vcs, packet_flits, buffer_flits, link_delay, router_delay,
    routing_delay, vc_alloc_delay, switch_alloc_delay, channel_extra, allocator,
    speedup)."""
    router = dict(router)
    vcs = router.pop("vcs")
    inputs = estimate_inputs(family, params, metrics, pattern, vcs=vcs, routing=routing,
                             gamma=gamma, hops=hops, ejection=ejection)
    return saturation_terms(**inputs, **router)


DEFAULT_ROUTER = {"vcs": 2, "buffer_flits": 8, "packet_flits": 1, "link_delay": 1,
                  "router_delay": 1, "routing_delay": 0, "vc_alloc_delay": 0,
                  "switch_alloc_delay": 1, "channel_extra": 0, "allocator": "separable",
                  "speedup": 1.0}
"""The flit simulator's default router (2 VCs x 8 flits, one-cycle router and links,
1-flit packets, separable allocation), used where no machine describes the routers."""


def machine_router(machine) -> dict:
    """The router keywords of saturation_of from a machine's keys (``machine.get(path,
    default)``), each absent key at its :data:`DEFAULT_ROUTER` value:
    network.virtual_channels, vc_buffer_flits, switch_allocator, internal_speedup,
    router_link_latency (cycles), packet_max_flits (full packets) and
    router_pipeline_cycles D, one cycle per stage with switch traversal last, so a new
    head waits t_v = D - 2 steps (0 for D <= 2) before its first flit can leave."""
    pipeline = int(machine.get("network.router_pipeline_cycles", 1))
    return {"vcs": int(machine.get("network.virtual_channels", DEFAULT_ROUTER["vcs"])),
            "buffer_flits": int(machine.get("network.vc_buffer_flits", 8)),
            "packet_flits": int(machine.get("network.packet_max_flits", 1)),
            "link_delay": int(machine.get("network.router_link_latency", 1)),
            "router_delay": pipeline, "routing_delay": 0,
            "vc_alloc_delay": max(pipeline - 2, 0), "switch_alloc_delay": 1,
            "channel_extra": 0,
            "allocator": machine.get("network.switch_allocator", "separable"),
            "speedup": float(machine.get("network.internal_speedup", 1.0))}
