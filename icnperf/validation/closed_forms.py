"""The model's closed forms for a simulated setup, set beside the flit simulator.

For one network, routing, pattern and router: the mean hop count H and the busiest
channel's load γ_max of the pattern (model/topology/*.py: average distance, channel loads,
route hop counts and loads per source-destination pair), the saturation bound, the
router-efficiency estimate and the zero-load and queueing latencies (model/network/),
in the simulator's cycles. The simulator is asked only which destinations a pattern draws
(the seeded permutation, the hot endpoints), never for routes, hops or loads.
"""

from __future__ import annotations

import math

import numpy as np

PAIR_LIMIT = 1 << 22
"""Most source-destination pairs summed exactly for a prediction (above it: n/a)."""


def slimfly_endpoints_per_router(params: dict) -> int:
    """Endpoints per router of a slim fly spec (given, or the model's default)."""
    from icnperf.model.topology import slimfly

    return slimfly.endpoint_count(params) // (2 * int(params["q"]) ** 2)


class _Family:
    """Model hop counts and channel loads of one simulated network, per endpoint pair.

    ``hops(s, d)``: router-router channels crossed (model route functions);
    ``load(s, d)``: most of the pairs' messages on one channel, or None where the model
    has no exact function for this routing. ``uniform_hops`` / ``uniform_load``: closed
    forms for uniform traffic (self included), or None to sum over all pairs.
    """

    def __init__(self, spec, routing: str, ring_ties: str = "plus"):
        from icnperf.model.topology import dragonfly, fattree, slimfly, torus

        name, params = spec.family.name, spec.params
        self.name, self.routing, self.notes = name, routing, []
        self.uniform_hops = self.uniform_load = None
        self.fixed_load = {}
        self.load = None
        if name in ("torus", "mesh", "hypercube"):
            k = np.asarray((2,) * params["n"] if name == "hypercube" else params["radices"],
                           dtype=np.int64)
            wrap = name != "mesh"
            metrics = spec.evaluate()
            n = int(metrics.endpoints)
            self.uniform_hops = float(metrics.average_distance) * (n - 1) / n
            self.uniform_load = float(metrics.channel_load["uniform"])
            self.fixed_load = {p: float(metrics.channel_load[p])
                               for p in ("tornado", "bit-complement")}
            if len(k) == 2:  # the model's transpose swaps halves of the dims: 2-D only
                self.fixed_load["transpose"] = float(metrics.channel_load["transpose"])
            if wrap and ring_ties != "plus":
                ties = "random" if ring_ties == "random" else "split"
                self.uniform_load = float(torus.uniform_load(k, ties=ties))
                self.fixed_load["bit-complement"] = float(
                    torus.bit_complement_load(k, ties=ties))
                if len(k) == 2:
                    self.fixed_load["transpose"] = float(torus.transpose_load(k, ties=ties))
                self.notes.append(
                    f"gamma_max of uniform, bit-complement and transpose with the router's"
                    f" {ring_ties} direction at a half-ring tie (torus loads, ties={ties!r});"
                    " other patterns' exact DOR loads send ties + (an upper bound of the"
                    " load)")

            def hops(s, d):
                return torus.hop_distance(k, torus.endpoint_coordinates(k, s),
                                          torus.endpoint_coordinates(k, d), wrap=wrap)

            self.hops = hops
            if wrap:
                self.load = lambda s, d: torus.dor_traffic(k, s, d)[1]
                self.notes.append("H: torus.hop_distance (DOR) over the pattern's pairs,"
                                  " uniform from average_distance x (N-1)/N; gamma_max:"
                                  " the torus model's channel loads, else torus.dor_traffic's exact"
                                  " DOR load of the pairs")
            else:
                self.notes.append("H: torus.hop_distance (mesh DOR) over the pattern's"
                                  " pairs; gamma_max: the torus model's mesh channel loads where"
                                  " it has them (uniform, tornado, bit-complement, 2-D"
                                  " transpose), n/a otherwise (dor_traffic is for tori)")
        elif name in ("fattree", "clos"):
            k, n = ((int(params["k"]), int(params["n"])) if name == "fattree"
                    else (int(params["radix"]) // 2, int(params["levels"])))
            self.hops = lambda s, d: fattree.nca_hops(k, n, s, d)
            if routing == "random":
                self.load = lambda s, d: fattree.nca_message_load(k, n, s, d)
                self.notes.append(
                    "fat tree, random up ports: H from fattree.nca_hops over the pattern's"
                    " pairs; gamma_max from fattree.nca_message_load, the busiest channel"
                    " with each pod's messages spread as evenly as possible over its up"
                    " channels (the simulator draws each up port at random, so its busiest"
                    " channel can carry more: gamma_max is a lower bound, the saturation"
                    " bound an upper bound)")
            else:
                self.notes.append("fat tree, d-mod-k: H from fattree.nca_hops; gamma_max n/a"
                                  " here (the model's d-mod-k loads are not wired to this"
                                  " comparison)")
        elif name in ("xgft", "rail"):
            from icnperf.model.topology import tree_routing

            m, w = tuple(params["m"]), tuple(params["w"])
            p = tuple(params.get("p", (1,) * len(m)))
            self.hops = lambda s, d: tree_routing.hops(m, w, s, d)
            if routing in ("random", "dmodk"):
                self.load = lambda s, d: tree_routing.message_load(m, w, p, routing, s, d)
                self.notes.append(
                    f"XGFT, {routing} up ports: H from tree_routing.hops over the pattern's"
                    " pairs; gamma_max from tree_routing.message_load (dmodk: exact counts;"
                    " random: each pod's messages spread as evenly as possible over its up"
                    " channels, a lower bound of the simulator's random draws)")
        elif name == "dragonfly":
            p, a, h = (int(params[x]) for x in ("p", "a", "h"))

            def minimal(s, d):
                return dragonfly.dragonfly_route_hops(p, a, h, s, d)

            routers = (a * h + 1) * a
            if routing == "valiant" and routers**2 > PAIR_LIMIT:
                self.hops = None
                self.notes.append("dragonfly valiant: H n/a (more router pairs than"
                                  f" {PAIR_LIMIT:,} to average over)")
            elif routing == "valiant":
                every = np.arange(routers, dtype=np.int64) * p
                table = minimal(np.repeat(every, routers), np.tile(every, routers))
                table = table.reshape(routers, routers)
                out, into = table.sum(axis=1), table.sum(axis=0)

                def valiant(s, d):
                    rs, rd = np.asarray(s) // p, np.asarray(d) // p
                    return (out[rs] + into[rd]) / routers

                self.hops = valiant
                self.notes.append(
                    "dragonfly valiant: H = mean over the pairs and the simulator's"
                    " intermediate router m (uniform over all routers, none when m is the"
                    " source's or destination's router) of MIN hops s->m + m->d, each from"
                    " dragonfly.dragonfly_route_hops; this simplifies exactly to"
                    " (sum_m D[rs,m] + sum_m D[m,rd]) / R; gamma_max n/a (no Valiant load"
                    " in the model)")
            else:
                self.hops = minimal
                if routing == "min":
                    self.load = lambda s, d: dragonfly.dragonfly_route_load(p, a, h, s, d)
                    self.notes.append("dragonfly min: H and gamma_max from"
                                      " dragonfly.dragonfly_route_hops / dragonfly_route_load"
                                      " over the pattern's pairs (exact: MIN routes are"
                                      " unique)")
                else:
                    from icnperf.model.network.saturation import ugal_channel_load

                    uniform = float(spec.evaluate().channel_load["uniform"])
                    self.load = lambda s, d: float(ugal_channel_load(
                        dragonfly.dragonfly_route_load(p, a, h, s, d), uniform * len(s) / (
                            (a * h + 1) * a * p)))
                    self.notes.append(
                        "dragonfly ugal: gamma_max = min(MIN's exact load of the pattern,"
                        " Valiant's 2 x uniform load), saturation.ugal_channel_load: UGAL"
                        " reaches the better of its two paths (an upper bound of its"
                        " throughput)")
                    self.notes.append(
                        "dragonfly ugal: H is MIN's, the zero-load limit (UGAL-L keeps the"
                        " minimal route while its queues are empty); at low but nonzero"
                        " load it already diverts some packets to Valiant paths, so the"
                        " simulated latency sits above this T0 (dragonfly:p=2,a=4,h=2 at"
                        " 0.002: +0.4 % uniform, +1.9 % bit-complement; at 0.02: +3 %,"
                        " +11 %)")
        elif name != "slimfly":
            raise ValueError(f"no closed forms for the simulated family {name!r}")
        else:
            q, p = int(params["q"]), slimfly_endpoints_per_router(params)
            n = 2 * q * q * p
            self.uniform_hops = float(slimfly.average_distance(q, p)) * (n - 1) / n
            self.uniform_load = float(slimfly.uniform_channel_load(q, p))
            self.hops = None
            self.notes.append(
                "slim fly: uniform H from slimfly.average_distance x (N-1)/N; gamma_max from"
                " slimfly.uniform_channel_load, which splits each 2-hop pair evenly over its"
                " common neighbours while the simulator takes the lowest port, so the bound"
                " may be optimistic; other patterns n/a (the model has no slim fly route"
                " function)")


def _pattern_pairs(traffic, n: int):
    """(sources, destinations, weight per pair) of a pattern's fixed or uniform part.

    Weights are each pair's share of its source's packets (they sum to 1 per source).
    """
    s = np.arange(n, dtype=np.int64)
    if traffic.fixed is not None:
        return s, traffic.fixed.astype(np.int64), np.ones(n)
    if traffic.pattern == "asymmetric":
        half = n // 2
        src = np.concatenate([np.repeat(s[:half], n - half), np.repeat(s[half:], half)])
        dst = np.concatenate([np.tile(s[half:], half), np.tile(s[:half], n - half)])
        weight = np.where(src < half, 1.0 / (n - half), 1.0 / half)
        return src, dst, weight
    return np.repeat(s, n), np.tile(s, n), np.full(n * n, 1.0 / n)


def _mean_hops(family: _Family, traffic, n: int) -> float:
    """Mean hops H over the pattern's destinations (hot endpoints mixed in)."""
    uniform = traffic.fixed is None and traffic.pattern != "asymmetric"
    if uniform and family.uniform_hops is not None:
        base = family.uniform_hops
    elif family.hops is None or (traffic.fixed is None and n * n > PAIR_LIMIT):
        return math.nan
    else:
        src, dst, weight = _pattern_pairs(traffic, n)
        base = float(np.sum(weight * family.hops(src, dst))) / n
    if not len(traffic.hot):
        return base
    if family.hops is None or n * len(traffic.hot) > PAIR_LIMIT:
        return math.nan
    hot = traffic.hot
    to_hot = float(np.mean(family.hops(np.repeat(np.arange(n), len(hot)),
                                       np.tile(hot, n))))
    return (1 - traffic.hot_fraction) * base + traffic.hot_fraction * to_hot


def _channel_load(family: _Family, traffic, n: int) -> float:
    """γ_max of the router-router channels (flits/cycle at 1 flit/endpoint/cycle), or NaN.

    A load function counts messages when every pair sends one; a pattern whose pairs all
    carry the same weight w then loads the busiest channel with count x w.
    """
    pattern = traffic.pattern
    if pattern == "hotspot":
        return math.nan  # the busiest channel of a weighted mix: no model function
    if pattern == "uniform" and family.uniform_load is not None:
        return family.uniform_load
    if pattern in family.fixed_load:
        return family.fixed_load[pattern]
    if family.load is None or (traffic.fixed is None and n * n > PAIR_LIMIT):
        return math.nan
    if pattern == "asymmetric" and n % 2:
        return math.nan  # unequal weights of the two halves
    src, dst, weight = _pattern_pairs(traffic, n)
    return float(family.load(src, dst)) * float(weight[0])


def _ejection_load(traffic, n: int) -> float:
    """Most flits per cycle into one endpoint when every endpoint injects 1 flit per cycle.

    From the pattern's definition: 1 for a permutation or uniform traffic; for the hotspot
    mix a hot endpoint gets (1 - F) + F·N/K (K hot endpoints); asymmetric halves of
    unequal size give the smaller half (N - ⌊N/2⌋)/⌊N/2⌋.
    """
    if traffic.fixed is not None:
        return float(np.bincount(traffic.fixed, minlength=n).max())
    if traffic.pattern == "asymmetric":
        half = n // 2
        return max(half / (n - half), (n - half) / half)
    if len(traffic.hot):
        f = traffic.hot_fraction
        return (1 - f) + f * n / len(traffic.hot)
    return 1.0


def predictions(spec, routing: str, network, traffic_name: str, router, seed: int,
                traffic_options: dict | None = None) -> dict:
    """Closed-form mean hops, γ_max, bounds and zero-load latency of one simulated setup.

    Zero-load latency (engine docstring's timing; Dally & Towles §23.1 form)::

        T0 = 2·terminal + (H+1)·router_total + H·link + (L-1)   cycles

    with H the pattern's mean hop count from the model. Saturation bound min(1, 1/γ_max,
    1/γ_ejection); the saturation estimate of model.topology.saturation for the simulated
    router (:func:`saturation_estimate`). NaN where the model has no exact figure (see
    ``notes``).
    """
    from icnperf.sim.traffic import Traffic

    n = int(network.endpoints)
    # only to learn which destinations the pattern draws (the simulator's first draw)
    traffic = Traffic(traffic_name, network, np.random.default_rng(seed),
                      **(traffic_options or {}))
    family = _Family(spec, routing, getattr(router, "ring_ties", "plus"))
    hops = _mean_hops(family, traffic, n)
    gamma = _channel_load(family, traffic, n)
    eject = _ejection_load(traffic, n)
    if math.isnan(gamma):
        bound = min(1.0, 1.0 / eject) if eject > 1 else math.nan
    else:
        bound = min(1.0, 1.0 / gamma if gamma > 0 else 1.0, 1.0 / eject)
    zero_load = (router.injection_delay + router.terminal_delay
                 + (hops + 1) * router.router_delay + hops * router.link_delay
                 + (router.packet_flits - 1))
    notes = list(family.notes)
    if traffic_name == "hotspot":
        notes.append(f"hotspot: {len(traffic.hot)} hot endpoints get"
                     f" {traffic.hot_fraction:g} of the packets; H mixes uniform and"
                     " to-hot hops; gamma_max n/a (the model gives the busiest channel of"
                     " one pattern, not of a weighted mix), so the bound is the hot"
                     " endpoints' ejection channel alone, 1/((1-F) + F*N/K): an upper bound")
    estimate, stable = saturation_estimate(spec, routing, traffic_name, router, gamma, hops,
                                           eject, traffic.fixed)
    return {"mean_hops": hops, "gamma_max": gamma, "ejection_load": eject,
            "saturation_bound": bound, "saturation_estimate": estimate,
            "stable_saturation_estimate": stable,
            "zero_load_latency": zero_load,
            "hot_endpoints": [int(e) for e in traffic.hot], "notes": notes}


def router_model(router) -> dict:
    """The simulated router (sim RouterConfig) as the saturation estimate's keywords: VCs,
    buffer, packet length, stage delays, allocator, speedup, and the latency of the channel
    whose VC class saturates first (a dragonfly's global links, else router-router links);
    BookSim2's channels (the islip router's) deliver one cycle after their latency; the
    arbiter (iSLIP's pointers are round-robin)."""
    rc, va, sa, _ = router.stages
    family_link = router.global_delay
    return {"vcs": router.vcs, "packet_flits": router.packet_flits,
            "buffer_flits": router.buffer, "link_delay": family_link,
            "router_delay": router.router_delay, "routing_delay": rc, "vc_alloc_delay": va,
            "switch_alloc_delay": sa,
            "channel_extra": 1 if router.allocator == "islip" else 0,
            "allocator": router.allocator, "speedup": float(router.internal_speedup),
            "arbiter": router.arbiter if router.allocator == "separable" else "round-robin"}


def saturation_estimate(spec, routing: str, pattern: str, router, gamma: float,
                        hops: float, ejection: float,
                        destinations=None) -> tuple[float, float]:
    """(estimate, stable estimate) in flits/endpoint/cycle: model.topology.saturation's for
    the simulated router and the pattern's γ_max, mean hops and ejection load; NaN where
    γ_max is n/a. ``destinations``: a fixed permutation's, for its overload accepted rate
    (tori, meshes, MIN dragonflies), which the estimate takes when larger; the stable one
    is where the queues grow without bound."""
    from icnperf.model.topology.saturation import saturation_of

    if math.isnan(gamma):
        return math.nan, math.nan
    terms = saturation_of(spec.family.name, spec.params, spec.evaluate(), pattern,
                          router_model(router), routing=routing, gamma=gamma,
                          hops=None if math.isnan(hops) else hops, ejection=ejection,
                          destinations=destinations,
                          ties=getattr(router, "ring_ties", "plus"))
    estimate = float(terms["saturation_estimate"])
    return estimate, float(terms.get("stable_estimate", estimate))


def uniform_estimate(spec_text: str, routing: str | None, router) -> float:
    """The saturation estimate under uniform traffic from the topology model alone (no
    simulator network): γ_max of the torus loads under the router's tie rule, else the
    family's uniform channel load; the simulated router's keywords (:func:`router_model`)."""
    from icnperf.model.topology import torus
    from icnperf.model.topology.saturation import saturation_of
    from icnperf.model.topology.spec import parse_spec

    spec = parse_spec(spec_text)
    metrics = spec.evaluate()
    gamma = None
    if spec.family.name == "torus" and getattr(router, "ring_ties", "plus") == "random":
        gamma = torus.uniform_load(spec.params["radices"], ties="random")
    terms = saturation_of(spec.family.name, spec.params, metrics, "uniform",
                          router_model(router), routing=routing, gamma=gamma)
    return float(terms["saturation_estimate"])


def queueing_latency(rate: float, model: dict, packet_flits: int) -> float:
    """Zero-load latency plus model.network.queueing_delay(rate, γ_max, H, service = L
    cycles, router_efficiency = estimate / bound): the M/D/1 estimate of the mean latency
    (cycles), whose queues saturate at the stable saturation estimate (a permutation's
    overload accepted rate is no load its queues can hold)."""
    from icnperf.model.network import queueing_delay

    gamma, hops = model["gamma_max"], model["mean_hops"]
    estimate = model.get("stable_saturation_estimate", model["saturation_estimate"])
    bound = model["saturation_bound"]
    if math.isnan(gamma) or math.isnan(hops) or math.isnan(estimate):
        return math.nan
    wait = float(queueing_delay(rate, gamma, hops, float(packet_flits),
                                router_efficiency=estimate / bound))
    return model["zero_load_latency"] + wait
