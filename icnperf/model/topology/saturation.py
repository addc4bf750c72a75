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
* **Fixed permutations** (:data:`PERMUTATIONS`) on fixed paths (:func:`fixed_paths`): no
  allocator matching loss. A routing that draws each packet's path (a fat tree's random up
  port, Valiant, UGAL) spreads a permutation's packets over paths at random, so they meet
  at outputs at random as under uniform traffic: the allocator terms stay.
* **Overload accepted rate** of a fixed permutation on a torus or mesh (DOR) or a
  dragonfly (MIN) (saturation_of with ``destinations``): the flows' max-min fair rates
  over their routes, when above the stable estimate.
"""

from __future__ import annotations

import numpy as np

from icnperf.model.network.contention import FIXED_PERMUTATIONS
from icnperf.model.network.saturation import (conflict_losses, input_port_ceiling,
                                              input_service, max_min_rates,
                                              saturation_terms, ugal_channel_load)
from icnperf.model.topology.dragonfly.routes import dragonfly_route_channels

PERMUTATIONS = FIXED_PERMUTATIONS + ("worst-case",)
"""Patterns that send every endpoint's packets to one fixed destination."""

GRID_FAMILIES = ("torus", "mesh", "hypercube")

RANDOM_PATH_ROUTINGS = ("random", "valiant", "ugal", "ugal-hops")
"""Routings that draw a packet's path (a fat tree's up port, Valiant's intermediate group,
UGAL's choice): under a fixed permutation their packets still meet at outputs at random."""

TREE_FAMILIES = ("fattree", "clos", "xgft")
"""Families whose default routing draws each up port at random (BookSim2's nca)."""


def fixed_paths(family: str, pattern: str, routing: str | None) -> bool:
    """Whether every packet of ``pattern`` follows one fixed path: a fixed permutation
    routed deterministically (DOR, d-mod-k, a dragonfly's or slim fly's minimal route).
    Only then do the allocators meet no random conflicts (E = 1)."""
    if pattern not in PERMUTATIONS:
        return False
    if routing is None:
        return family not in TREE_FAMILIES
    return routing not in RANDOM_PATH_ROUTINGS


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
              "permutation": fixed_paths(family, pattern, routing)}
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


def grid_route_incidence(radices, wrap, destinations, ties: str = "plus"):
    """(flow, channel, weight, dateline class) of dimension-order routes on a torus or mesh,
    one flow per source endpoint i to ``destinations[i]`` (endpoint indices, dimension 0
    fastest): dimension 0 first, the minimal way round a ring, straight along a mesh line.
    Channel index (router·n + dimension)·2 + (0 for +, 1 for -). A half-ring tie (k > 2)
    goes + under ``plus``, by the source coordinate's parity under ``split``, and half each
    way under ``random`` (weight 1/2 on each path: the router draws the direction per
    packet). Class: 1 on a ring's wraparound link and every hop after it in that
    dimension, else 0 (Dally & Towles §14.2, dateline classes; a mesh line: 0)."""
    k = np.asarray(radices, dtype=np.int64)
    n = k.size
    dst_index = np.asarray(destinations, dtype=np.int64)
    flows = dst_index.size
    strides = np.concatenate(([1], np.cumprod(k)[:-1]))
    src = (np.arange(flows)[:, None] // strides) % k
    dst = (dst_index[:, None] // strides) % k
    ring = np.broadcast_to(np.asarray(wrap, dtype=bool), k.shape)
    out = ([], [], [], [])

    def walk(rows, here, i, sign, steps, weight):
        here = here.copy()
        crossed = np.zeros(len(rows), dtype=bool)
        for step in range(int(steps.max(initial=0))):
            go = steps > step
            router = (here[go] * strides).sum(axis=1)
            wrap_link = ring[i] & (k[i] > 2) & np.where(sign[go] > 0, here[go, i] == k[i] - 1,
                                                        here[go, i] == 0)
            crossed[go] |= wrap_link
            out[0].append(rows[go])
            out[1].append((router * n + i) * 2 + (sign[go] < 0))
            out[2].append(np.broadcast_to(weight, (len(rows),))[go])
            out[3].append(crossed[go].astype(np.int64))
            here[go, i] = (here[go, i] + sign[go]) % k[i]

    rows = np.arange(flows)
    for i in range(n):
        here = np.concatenate([dst[:, :i], src[:, i:]], axis=1)
        forward = (dst[:, i] - src[:, i]) % k[i]
        if not ring[i]:
            walk(rows, here, i, np.sign(dst[:, i] - src[:, i]),
                 np.abs(dst[:, i] - src[:, i]), 1.0)
            continue
        tie = (2 * forward == k[i]) & (k[i] > 2)
        plus = 2 * forward < k[i]
        if ties in ("plus", "random"):  # random: this half +, the other half - below
            plus |= tie
        elif ties == "split":
            plus |= tie & (src[:, i] % 2 == 0)
        plus |= (2 * forward == k[i]) & (k[i] == 2)
        sign = np.where(plus, 1, -1)
        steps = np.where(plus, forward, k[i] - forward)
        weight = np.where(tie & (ties == "random"), 0.5, 1.0)
        walk(rows, here, i, sign, steps, weight)
        if ties == "random":  # the other half of each tie, the - way
            walk(rows, here, i, np.full(flows, -1), np.where(tie, forward, 0), weight)
    return tuple(np.concatenate(part) if part else np.zeros(0) for part in out)


def grid_port_hops(radices, wrap, destinations, ties: str = "plus"):
    """(flow, router, input port, output port, weight) of every router a flow crosses
    under the DOR routes of :func:`grid_route_incidence`, one endpoint per router, its
    last router's output the ejection port. Ports 0..2n-1 are the channels of dimension d,
    + (2d) and - (2d + 1), as an output by the direction it sends in and as an input by
    the direction of the channel it arrived on; port 2n is the endpoint's (injection as an
    input, ejection as an output). A random tie's halves reach the next dimension's router
    on either port, half each."""
    k = np.asarray(radices, dtype=np.int64)
    n = k.size
    dst_index = np.asarray(destinations, dtype=np.int64)
    flows = dst_index.size
    rows = np.arange(flows)
    strides = np.concatenate(([1], np.cumprod(k)[:-1]))
    src = (rows[:, None] // strides) % k
    dst = (dst_index[:, None] // strides) % k
    ring = np.broadcast_to(np.asarray(wrap, dtype=bool), k.shape)
    out = ([], [], [], [], [])
    last_a = np.full(flows, 2 * n)  # the port a flow arrived on (two halves after a tie)
    last_b = last_a.copy()
    share_a = np.ones(flows)

    def emit(go, router, inp, port, w):
        for part, value in zip(out, (rows[go], router, inp, port, w)):
            part.append(np.broadcast_to(value, (int(go.sum()),)).copy())

    def walk(here, i, sign, steps, weight):
        here = here.copy()
        port = np.where(sign > 0, 2 * i, 2 * i + 1)
        for step in range(int(steps.max(initial=0))):
            go = steps > step
            router = (here[go] * strides).sum(axis=1)
            w = np.broadcast_to(weight, (flows,))[go]
            if step == 0:
                emit(go, router, last_a[go], port[go], w * share_a[go])
                emit(go, router, last_b[go], port[go], w * (1 - share_a[go]))
            else:
                emit(go, router, port[go], port[go], w)
            here[go, i] = (here[go, i] + sign[go]) % k[i]

    for i in range(n):
        here = np.concatenate([dst[:, :i], src[:, i:]], axis=1)
        forward = (dst[:, i] - src[:, i]) % k[i]
        if not ring[i]:
            sign = np.sign(dst[:, i] - src[:, i])
            walk(here, i, sign, np.abs(dst[:, i] - src[:, i]), 1.0)
            moved, tie = sign != 0, np.zeros(flows, dtype=bool)
        else:
            tie = (2 * forward == k[i]) & (k[i] > 2)
            plus = (2 * forward < k[i]) | ((2 * forward == k[i]) & (k[i] == 2))
            if ties in ("plus", "random"):
                plus |= tie
            elif ties == "split":
                plus |= tie & (src[:, i] % 2 == 0)
            sign = np.where(plus, 1, -1)
            weight = np.where(tie & (ties == "random"), 0.5, 1.0)
            walk(here, i, sign, np.where(plus, forward, k[i] - forward), weight)
            tie &= ties == "random"
            if ties == "random":
                walk(here, i, np.full(flows, -1), np.where(tie, forward, 0), weight)
            moved = forward != 0
        direction = np.where(sign > 0, 2 * i, 2 * i + 1)
        last_a = np.where(moved, direction, last_a)
        last_b = np.where(moved, np.where(tie, 2 * i + 1, direction), last_b)
        share_a = np.where(moved, np.where(tie, 0.5, 1.0), share_a)
    every = np.ones(flows, dtype=bool)
    emit(every, dst_index, last_a, 2 * n, share_a)
    emit(every, dst_index, last_b, 2 * n, 1 - share_a)
    return tuple(np.concatenate(part) for part in out)


def router_traffic(router, in_port, out_port, weight, routers: int, ports: int):
    """traffic[r, i, o]: flits/cycle from input port i to output port o of router r at
    1 flit/endpoint/cycle, summed from :func:`grid_port_hops`."""
    traffic = np.zeros((routers, ports, ports))
    np.add.at(traffic, (router, in_port, out_port), weight)
    return traffic


def dragonfly_route_incidence(p: int, a: int, h: int, destinations):
    """(flow, channel, weight, VC class) of MIN routes on the dragonfly DF(p, a, h), one
    flow per source endpoint i to ``destinations[i]``: within a group the direct local
    link; across groups local to the owner x of the group pair's global link, the global
    link, local from its landing router y = a - 1 - x (Kim, Dally, Scott & Abts 2008 §4;
    the consecutive arrangement of model/topology/dragonfly/routes.py). Classes as
    BookSim2's ``min``: 0 for the source group's local hop, 1 for the global hop and the
    hops after it."""
    d = np.asarray(destinations, dtype=np.int64)
    flow, channel, after_global = dragonfly_route_channels(p, a, h, np.arange(d.size), d)
    vc_class = after_global.astype(np.int64)
    return flow, channel, np.ones(flow.size), vc_class


def saturation_of(family: str, params: dict, metrics, pattern: str, router: dict, *,
                  routing: str | None = None, gamma=None, hops=None,
                  ejection=1.0, destinations=None, ties: str = "plus") -> dict:
    """saturation_terms of one network under ``pattern`` with the router micro-architecture
    ``router`` (keywords: vcs, packet_flits, buffer_flits, link_delay, router_delay,
    routing_delay, vc_alloc_delay, switch_alloc_delay, channel_extra, allocator,
    speedup).

    ``router`` may also name the ``arbiter`` (``round-robin``, iSLIP's and the default,
    or ``age``), used only with ``destinations``.

    ``destinations`` on a torus or mesh: the stable estimate is capped by the input-port
    ceiling of the permutation's router traffic (:func:`grid_router_traffic`,
    saturation.input_port_ceiling: a FIFO input whose flows split between outputs waits
    out conflicts with other inputs' heads; ``input_port_ceiling``).
    ``destinations`` (one endpoint per source, a fixed permutation on a torus or mesh, or
    a dragonfly under MIN routing, :func:`dragonfly_route_incidence`):
    the estimate becomes the larger of the stable estimate and the mean accepted rate of
    the permutation offered far past saturation, ``overload_accepted``: the flows'
    max-min fair rates (saturation.max_min_rates) over the routes (DOR:
    :func:`grid_route_incidence`, ``ties`` the router's half-ring rule), every channel
    passing E flits/cycle and each of its dateline classes V_c·r_v (the stable estimate's
    channel and VC-class ceilings, per channel rather than at the busiest), every
    flow capped by the injection and endpoint ceilings, averaged over the endpoints.
    BookSim2 takes saturation as the larger of the stable runs' accepted rate and an
    overload run's, so flows clear of the busiest channels (the diagonal of a transpose
    sends to itself) raise the mean past the bottleneck's rate. The stable estimate stays
    as ``stable_estimate`` (where queues grow without bound: the latency model's)."""
    router = dict(router)
    vcs = router.pop("vcs")
    arbiter = router.pop("arbiter", "round-robin")
    inputs = estimate_inputs(family, params, metrics, pattern, vcs=vcs, routing=routing,
                             gamma=gamma, hops=hops, ejection=ejection)
    terms = saturation_terms(**inputs, **router)
    if (destinations is None or family not in ("torus", "mesh", "dragonfly")
            or not inputs["permutation"]):
        return terms
    stable = float(terms["saturation_estimate"])
    if np.isnan(stable):
        return terms
    terms = dict(terms)
    if family == "dragonfly":
        flow, channel, weight, vc_class = dragonfly_route_incidence(
            *(int(params[x]) for x in ("p", "a", "h")), destinations)
    else:
        flow, channel, weight, vc_class = grid_route_incidence(
            params["radices"], family == "torus", destinations, ties)
        hop_flow, router_of, in_port, out_port, hop_weight = grid_port_hops(
            params["radices"], family == "torus", destinations, ties)
        ports = 2 * len(params["radices"]) + 1
        traffic = router_traffic(router_of, in_port, out_port, hop_weight,
                                 int(np.asarray(destinations).size), ports)
        lose = conflict_losses(ports, arbiter)
        ceiling = input_port_ceiling(traffic, lose)
        terms["input_port_ceiling"] = np.asarray(ceiling)
        stable = min(stable, ceiling)
        # at overload every input holds a head: each passes 1/s_i flits per cycle
        input_rate = 1.0 / input_service(traffic, lose)
        inputs_at = router_of * ports + in_port
    # resources: every channel (its matching efficiency E) and every (channel, VC class)
    # (its V_c VCs of r_v each)
    channels = int(channel.max(initial=-1)) + 1
    rate_class = float(np.max(inputs["class_vcs"])) * float(terms["vc_rate"])
    capacity = np.concatenate([np.full(channels, float(terms["matching_efficiency"])),
                               np.full(2 * channels, rate_class)])
    resources = (np.concatenate([flow, flow]),
                 np.concatenate([channel, channels + 2 * channel + vc_class]),
                 np.concatenate([weight, weight]))
    if family != "dragonfly":
        resources = (np.concatenate([resources[0], hop_flow]),
                     np.concatenate([resources[1], 3 * channels + inputs_at]),
                     np.concatenate([resources[2], hop_weight]))
        capacity = np.concatenate([capacity, input_rate.ravel()])
    cap = float(min(terms["injection_ceiling"], terms["endpoint_ceiling"], 1.0))
    flows = np.asarray(destinations).size
    rates = max_min_rates(*resources, capacity, cap, flows)
    accepted = float(np.mean(rates))
    terms["overload_accepted"] = np.asarray(accepted)
    terms["stable_estimate"] = np.asarray(stable)
    terms["saturation_estimate"] = np.asarray(max(stable, accepted))
    return terms


DEFAULT_ROUTER = {"vcs": 2, "buffer_flits": 8, "packet_flits": 1, "link_delay": 1,
                  "router_delay": 1, "routing_delay": 0, "vc_alloc_delay": 0,
                  "switch_alloc_delay": 1, "channel_extra": 0, "allocator": "separable",
                  "speedup": 1.0, "span": 1}
"""The flit simulator's default router (2 VCs x 8 flits, one-cycle router and links,
1-flit packets, so a blocked packet spans one router, separable allocation), used where no
machine describes the routers."""


def machine_router(machine) -> dict:
    """The router keywords of saturation_of from a machine's keys (``machine.get(path,
    default)``), each absent key at its :data:`DEFAULT_ROUTER` value:
    network.virtual_channels, vc_buffer_flits, switch_allocator, internal_speedup,
    router_link_latency (cycles), packet_max_flits (full packets) and
    router_pipeline_cycles D, one cycle per stage with switch traversal last, so a new
    head waits t_v = D - 2 steps (0 for D <= 2) before its first flit can leave; ``span``
    ⌈L/B⌉ (saturation.packet_span) where the machine states vc_buffer_flits, else 1 (a
    blocked packet in one router, as before the span was modelled)."""
    pipeline = int(machine.get("network.router_pipeline_cycles", 1))
    # the 8-flit buffer is a placeholder where the machine states none: a blocked packet's
    # span (saturation.packet_span) is then unknown and taken as one router
    buffer = machine.get("network.vc_buffer_flits", None)
    packet = int(machine.get("network.packet_max_flits", 1))
    return {"vcs": int(machine.get("network.virtual_channels", DEFAULT_ROUTER["vcs"])),
            "buffer_flits": int(8 if buffer is None else buffer),
            "packet_flits": packet,
            "link_delay": int(machine.get("network.router_link_latency", 1)),
            "router_delay": pipeline, "routing_delay": 0,
            "vc_alloc_delay": max(pipeline - 2, 0), "switch_alloc_delay": 1,
            "channel_extra": 0,
            "allocator": machine.get("network.switch_allocator", "separable"),
            "speedup": float(machine.get("network.internal_speedup", 1.0)),
            "span": 1 if buffer is None else -(-packet // int(buffer))}
