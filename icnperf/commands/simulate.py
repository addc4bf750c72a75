"""``icnperf simulate traffic``: the flit simulator next to the closed forms.

The simulator (validation/flitsim) knows only the topology, routing and routers; the
predictions here come from icnperf.model (model/topology/*.py: average distance, channel
load γ_max, route hop counts and loads per source-destination pair; model/network.py: the
router efficiency η and the queueing delay) and the simulator's stated timing conventions,
so the two stay independent. The simulator is asked only which destinations a pattern
draws (the seeded permutation, the hot endpoints), never for routes, hops or loads.
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np

from icnperf.errors import InputError
from icnperf.render import Column, aligned_table, csv_text, json_text, number

PAIR_LIMIT = 1 << 22
"""Most source-destination pairs summed exactly for a prediction (above it: n/a)."""

STAGE_OPTIONS = ("routing_delay", "vc_alloc_delay", "switch_alloc_delay",
                 "switch_traversal_delay")
"""Router pipeline stages settable from the command line (cycles)."""

TRAFFIC_COLUMNS = (
    Column("rate", "offered rate", number(3)),
    Column("average_latency", "sim avg latency", number(4)),
    Column("p99_latency", "sim p99", number(4)),
    Column("zero_load_latency", "zero-load (model)", number(4)),
    Column("latency_diff", "avg - zero-load", number(3)),
    Column("queueing_latency", "queueing (model)", number(4)),
    Column("queueing_diff", "avg - queueing", number(3)),
    Column("accepted", "sim accepted", number(4)),
    Column("accepted_min", "sim worst dest", number(4)),
    Column("predicted_accepted", "model min(rate, bound)", number(4)),
    Column("accepted_diff", "sim - model", number(3)),
    Column("efficiency_accepted", "model min(rate, eta*bound)", number(4)),
    Column("efficiency_diff", "sim - eta model", number(3)),
    Column("saturated", "saturated"),
    Column("packets", "packets"),
)


def _network_of(spec_text: str, routing: str | None) -> tuple:
    """(parsed model spec, routing name, simulator spec text) for a simulated family.

    The simulator's network is built from the model spec's own parameters (the slim fly's
    endpoints per router included), so both describe the same network.
    """
    from icnperf.model.topology.spec import parse_spec
    from icnperf.validation.flitsim.topologies import choose_routing

    spec = parse_spec(spec_text)
    name = spec.family.name
    routing = choose_routing(name, routing)
    sim_text = spec.text
    if name == "slimfly":
        q = int(spec.params["q"])
        sim_text = f"slimfly:q={q},p={_slimfly_p(spec.params)}"
    return spec, routing, sim_text


def _slimfly_p(params: dict) -> int:
    """Endpoints per router of a slim fly spec (given, or the model's default)."""
    from icnperf.model.topology import slimfly

    return slimfly.endpoint_count(params) // (2 * int(params["q"]) ** 2)


@functools.lru_cache(maxsize=4)
def _network(sim_text: str, routing: str):
    """The simulator's network, built once per process and shared by its runs."""
    from icnperf.validation.flitsim import network_from_spec

    return network_from_spec(sim_text, routing)


def _rates(text: str) -> list[float]:
    from icnperf.units import parse_range

    rates = [float(r) for r in np.atleast_1d(parse_range(text))]
    bad = [r for r in rates if not 0 < r <= 1]
    if bad:
        raise InputError(f"--rates: every rate must be in (0, 1] flits/endpoint/cycle,"
                         f" got {bad[0]:g}")
    return rates


def hotspot_options(traffic: str, fraction: float | None, nodes: int | None,
                    endpoints: int) -> dict:
    """Traffic options of the hotspot mix from --hotspot-fraction F and --hotspot-nodes K.

    F: share of the packets sent to the hot endpoints, in (0, 1] (default 0.1); K: how
    many hot endpoints, 1..N (default: 2 % of N, at least one) — the NUDT paper's "10 %
    of traffic to 2 % of nodes". Passed to the simulator as fractions.
    """
    if traffic != "hotspot":
        if fraction is not None or nodes is not None:
            raise InputError("--hotspot-fraction/--hotspot-nodes apply only to"
                             " --traffic hotspot")
        return {}
    fraction = 0.1 if fraction is None else fraction
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) \
            or not 0 < fraction <= 1:
        raise InputError(f"--hotspot-fraction: the share of packets to the hot endpoints"
                         f" must be in (0, 1], got {fraction!r}")
    if nodes is None:
        return {"hotspot_traffic": float(fraction), "hotspot_nodes": 0.02}
    if isinstance(nodes, bool) or not isinstance(nodes, int) or not 1 <= nodes <= endpoints:
        raise InputError(f"--hotspot-nodes: the hot endpoints must be a whole number in"
                         f" 1..{endpoints}, got {nodes!r}")
    return {"hotspot_traffic": float(fraction), "hotspot_nodes": nodes / endpoints}


# --- the closed-form side ---------------------------------------------------------------


class _Family:
    """Model hop counts and channel loads of one simulated network, per endpoint pair.

    ``hops(s, d)``: router-router channels crossed (model route functions);
    ``load(s, d)``: most of the pairs' messages on one channel, or None where the model
    has no exact function for this routing. ``uniform_hops`` / ``uniform_load``: closed
    forms for uniform traffic (self included), or None to sum over all pairs.
    """

    def __init__(self, spec, routing: str):
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

            def hops(s, d):
                return torus.hop_distance(k, torus.endpoint_coordinates(k, s),
                                          torus.endpoint_coordinates(k, d), wrap=wrap)

            self.hops = hops
            if wrap:
                self.load = lambda s, d: torus.dor_traffic(k, s, d)[1]
                self.notes.append("H: torus.hop_distance (DOR) over the pattern's pairs,"
                                  " uniform from average_distance x (N-1)/N; gamma_max:"
                                  " torus.py's channel loads, else torus.dor_traffic's exact"
                                  " DOR load of the pairs")
            else:
                self.notes.append("H: torus.hop_distance (mesh DOR) over the pattern's"
                                  " pairs; gamma_max: torus.py's mesh channel loads where"
                                  " it has them (uniform, tornado, bit-complement, 2-D"
                                  " transpose), n/a otherwise (dor_traffic is for tori)")
        elif name in ("fattree", "clos"):
            k, n = ((int(params["k"]), int(params["n"])) if name == "fattree"
                    else (int(params["radix"]) // 2, int(params["levels"])))
            self.hops = lambda s, d: fattree.nca_hops(k, n, s, d)
            if routing == "nca":
                self.load = lambda s, d: fattree.nca_message_load(k, n, s, d)
                self.notes.append(
                    "fat tree: H from fattree.nca_hops over the pattern's pairs; gamma_max"
                    " from fattree.nca_message_load, the busiest channel with the up-ports"
                    " spread evenly over each pod's up channels. The simulator picks the"
                    " up-port by a digit of the destination leaf (not the model's d-mod-k"
                    " endpoint digit, so those closed forms are not used), which can load"
                    " a channel more: this gamma_max is a lower bound and the saturation"
                    " bound an upper bound")
            else:
                self.notes.append("fat tree, nca-first (every packet climbs through up-port"
                                  " 0): H from fattree.nca_hops; gamma_max n/a (the model"
                                  " has no load for this up-port rule)")
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
                    self.notes.append(
                        "dragonfly ugal: H is MIN's, the zero-load limit (UGAL-L keeps the"
                        " minimal route while its queues are empty); at low but nonzero"
                        " load it already diverts some packets to Valiant paths, so the"
                        " simulated latency sits above this T0 (dragonfly:p=2,a=4,h=2 at"
                        " 0.002: +0.4 % uniform, +1.9 % bit-complement; at 0.02: +3 %,"
                        " +11 %); gamma_max n/a (no UGAL load in the model)")
        else:  # slimfly
            q, p = int(params["q"]), _slimfly_p(params)
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
    1/γ_ejection); the router-efficiency estimate η·bound with η =
    model.network.router_efficiency(pattern) (1 for fixed permutations). NaN where the model
    has no exact figure (see ``notes``).
    """
    from icnperf.model.network import router_efficiency
    from icnperf.validation.flitsim.traffic import Traffic

    n = int(network.endpoints)
    # only to learn which destinations the pattern draws (the simulator's first draw)
    traffic = Traffic(traffic_name, network, np.random.default_rng(seed),
                      **(traffic_options or {}))
    family = _Family(spec, routing)
    hops = _mean_hops(family, traffic, n)
    gamma = _channel_load(family, traffic, n)
    eject = _ejection_load(traffic, n)
    if math.isnan(gamma):
        bound = min(1.0, 1.0 / eject) if eject > 1 else math.nan
    else:
        bound = min(1.0, 1.0 / gamma if gamma > 0 else 1.0, 1.0 / eject)
    zero_load = (2 * router.terminal_delay + (hops + 1) * router.router_delay
                 + hops * router.link_delay + (router.packet_flits - 1))
    notes = list(family.notes)
    if traffic_name == "hotspot":
        notes.append(f"hotspot: {len(traffic.hot)} hot endpoints get"
                     f" {traffic.hot_fraction:g} of the packets; H mixes uniform and"
                     " to-hot hops; gamma_max n/a (the model gives the busiest channel of"
                     " one pattern, not of a weighted mix), so the bound is the hot"
                     " endpoints' ejection channel alone, 1/((1-F) + F*N/K): an upper bound")
    return {"mean_hops": hops, "gamma_max": gamma, "ejection_load": eject,
            "saturation_bound": bound, "router_efficiency": router_efficiency(traffic_name),
            "efficiency_bound": router_efficiency(traffic_name) * bound,
            "zero_load_latency": zero_load,
            "hot_endpoints": [int(e) for e in traffic.hot], "notes": notes}


def queueing_latency(rate: float, model: dict, packet_flits: int) -> float:
    """Zero-load latency plus model.network.queueing_delay(rate, γ_max, H, service = L
    cycles, router_efficiency = η): the M/D/1 estimate of the mean latency (cycles)."""
    from icnperf.model.network import queueing_delay

    gamma, hops = model["gamma_max"], model["mean_hops"]
    if math.isnan(gamma) or math.isnan(hops):
        return math.nan
    wait = float(queueing_delay(rate, gamma, hops, float(packet_flits),
                                router_efficiency=model["router_efficiency"]))
    return model["zero_load_latency"] + wait


def _simulate_task(task: tuple, progress=None) -> dict:
    """One simulator run, a runner task (module-level so worker processes can import it).

    ``task``: (simulator spec text, routing, traffic, rate, RouterConfig, warmup, measure,
    drain, seed, traffic options); returns the SimResult's fields as a dict.
    ``progress(cycles_done, cycles_total)`` is passed to the simulator (in-process only).
    """
    from icnperf.validation.flitsim import simulate

    sim_text, routing, traffic, rate, router, warmup, measure, drain, seed, options = task
    network = _network(sim_text, routing)
    return simulate(network, traffic, rate, router, warmup=warmup, measure=measure,
                    drain=drain, seed=seed, traffic_options=options,
                    progress=progress).as_dict()


def _one_run_with_bar(task: tuple, label: str) -> dict:
    """A single in-process run with a progress bar over its cycles on standard error (a
    batch's bar counts finished runs, which says nothing while one long run goes on)."""
    from icnperf.runner import Progress

    bar = None

    def advance(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = Progress(total, f"{label} (cycles)", True)
        bar.advance(min(done, total) - bar.done)

    try:
        result = _simulate_task(task, progress=advance)
        if bar is not None:
            bar.advance(bar.total - bar.done)    # the drain may end early
        return result
    finally:
        if bar is not None:
            bar.close()


PERMUTATIONS = ("tornado", "bit-complement", "transpose", "permutation")
"""Patterns in which every source sends to one destination (past saturation the mean
accepted throughput can exceed the bound while the busiest channel's flows cannot)."""


def _run_row(rate: float, r: dict, model: dict, traffic: str, packet_flits: int = 1) -> dict:
    """One run's row: simulated figures next to the closed forms and their differences."""
    bound, eff = model["saturation_bound"], model["efficiency_bound"]
    predicted = min(rate, bound) if not math.isnan(bound) else math.nan
    efficiency = min(rate, eff) if not math.isnan(eff) else math.nan
    below = rate <= bound
    compared = r["accepted"] if traffic not in PERMUTATIONS or below else r["accepted_min"]
    queueing = queueing_latency(rate, model, packet_flits)
    return {
        "rate": rate,
        "offered": r["offered"],
        "average_latency": r["average_latency"],
        "p99_latency": r["p99_latency"],
        "zero_load_latency": model["zero_load_latency"],
        "latency_diff": r["average_latency"] - model["zero_load_latency"],
        "queueing_latency": queueing,
        "queueing_diff": (r["average_latency"] - queueing if math.isfinite(queueing)
                          else math.nan),
        "accepted": r["accepted"],
        "predicted_accepted": predicted,
        "accepted_min": r["accepted_min"],
        "accepted_diff": compared - predicted,
        "efficiency_accepted": efficiency,
        "efficiency_diff": compared - efficiency,
        "saturated": "yes" if r["saturated"] else "no",
        "packets": r["packets_measured"],
        "unfinished": r["packets_unfinished"],
        "flit_hops": r["flit_hops"],
        "wall_seconds": r["wall_seconds"],
    }


def _mean(values) -> float:
    """Mean of the finite values (NaN when there are none, e.g. no packet delivered)."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite and any(v == math.inf for v in values):
        return math.inf  # e.g. the queueing estimate past saturation
    return sum(finite) / len(finite) if finite else math.nan


def _bounds(values) -> tuple[float, float]:
    finite = [v for v in values if math.isfinite(v)]
    return (min(finite), max(finite)) if finite else (math.nan, math.nan)


MEANED = ("offered", "average_latency", "p99_latency", "zero_load_latency", "latency_diff",
          "queueing_latency", "queueing_diff", "accepted", "predicted_accepted",
          "accepted_min", "accepted_diff", "efficiency_accepted", "efficiency_diff")
SUMMED = ("packets", "unfinished", "flit_hops", "wall_seconds")


def summary_row(rate: float, runs: list[dict]) -> dict:
    """One rate over its seeds: means of MEANED, totals of SUMMED, and the spread.

    Spread: ``average_latency_lo``/``_hi`` and ``accepted_lo``/``_hi`` are the smallest and
    largest over the seeds (a range, not a confidence interval). ``saturated`` is yes, no,
    or how many of the seeds saturated (``2/5``).
    """
    row = {"rate": rate, "seeds": len(runs)}
    row.update({key: _mean([run[key] for run in runs]) for key in MEANED})
    row["average_latency_lo"], row["average_latency_hi"] = _bounds(
        [run["average_latency"] for run in runs])
    row["accepted_lo"], row["accepted_hi"] = _bounds([run["accepted"] for run in runs])
    hits = sum(run["saturated"] == "yes" for run in runs)
    row["saturated"] = "no" if hits == 0 else "yes" if hits == len(runs) else f"{hits}/{len(runs)}"
    row.update({key: sum(run[key] for run in runs) for key in SUMMED})
    return row


def traffic_rows(topology: str, traffic: str, rates_text: str, vcs: int, buffer: int,
                 router_delay: int, link_delay: int, terminal_delay: int, packet_flits: int,
                 warmup: int, measure: int, drain: int, seed: int,
                 arbiter: str = "round-robin", seeds: int = 1, scheduler: str = "inline",
                 workers: int | None = None, progress: bool | None = None, *,
                 routing: str | None = None, stages: dict | None = None,
                 hotspot_fraction: float | None = None, hotspot_nodes: int | None = None
                 ) -> tuple[list[dict], dict]:
    """One row per rate (simulated vs closed form) and the shared predictions/inputs.

    ``routing``: one of the family's routings (flitsim.topologies.ROUTINGS; default its
    first); ``stages``: router pipeline delays by name (STAGE_OPTIONS; None entries unset);
    ``hotspot_fraction`` / ``hotspot_nodes``: see hotspot_options. ``seeds`` replicates
    per rate use seeds ``seed .. seed+seeds-1``; every (rate, seed) run goes through
    runner.run_map on ``scheduler``. With one seed a row is that run; with more it is
    summary_row over them, and the shared dict's ``runs`` holds every run's row.
    """
    from icnperf.runner import parse_scheduler, run_map
    from icnperf.validation.flitsim import ALL_PATTERNS, RouterConfig, check_memory

    if traffic not in ALL_PATTERNS:
        raise InputError(f"--traffic: unknown pattern {traffic!r} (choose from"
                         f" {', '.join(ALL_PATTERNS)})")
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise InputError(f"--seeds: the replicates per rate must be a whole number >= 1,"
                         f" got {seeds!r}")
    parse_scheduler(scheduler)
    spec, routing, sim_text = _network_of(topology, routing)
    rates = _rates(rates_text)
    given = {k: v for k, v in (stages or {}).items() if v is not None}
    unknown = set(given) - set(STAGE_OPTIONS)
    if unknown:
        raise InputError(f"simulate: unknown router stage {min(unknown)!r}")
    router = RouterConfig(vcs=vcs, buffer=buffer, router_delay=router_delay,
                          link_delay=link_delay, terminal_delay=terminal_delay,
                          packet_flits=packet_flits, arbiter=arbiter, **given)
    network = _network(sim_text, routing)
    router.check(network)
    check_memory(network, router)
    options = hotspot_options(traffic, hotspot_fraction, hotspot_nodes,
                              int(network.endpoints))
    seed_list = [seed + i for i in range(seeds)]
    # only the seeded permutation's prediction depends on the seed (its own permutation)
    models = {s: predictions(spec, routing, network, traffic, router, s, options)
              for s in (seed_list if traffic == "permutation" else [seed])}
    tasks = [(sim_text, routing, traffic, rate, router, warmup, measure, drain, s, options)
             for rate in rates for s in seed_list]
    label = f"simulate {spec.text} {traffic}"
    single_bar = progress or (progress is None and sys.stderr.isatty())
    if len(tasks) == 1 and parse_scheduler(scheduler).kind == "inline" and single_bar:
        results = [_one_run_with_bar(tasks[0], label)]
    else:
        results = run_map(_simulate_task, tasks, scheduler=scheduler, workers=workers,
                          progress=progress, label=label)
    runs = [{**_run_row(task[3], r, models.get(task[8], models[seed]), traffic,
                        packet_flits), "seed": task[8]}
            for task, r in zip(tasks, results)]
    if seeds == 1:
        rows = [{k: v for k, v in run.items() if k != "seed"} for run in runs]
    else:
        rows = [summary_row(rate, runs[i * seeds:(i + 1) * seeds])
                for i, rate in enumerate(rates)]
    rc, va, sa, st = router.stages
    inputs = {"topology": spec.text, "routing": routing, "traffic": traffic,
              "rates": rates, "vcs": vcs, "buffer_flits": buffer,
              "router_delay_cycles": router.router_delay,
              "routing_delay_cycles": rc, "vc_alloc_delay_cycles": va,
              "switch_alloc_delay_cycles": sa, "switch_traversal_delay_cycles": st,
              "link_delay_cycles": link_delay, "terminal_delay_cycles": terminal_delay,
              "packet_flits": packet_flits, "arbiter": arbiter, "warmup": warmup,
              "measure": measure, "drain": drain, "seed": seed, "seeds": seeds}
    if traffic == "hotspot":
        inputs["hotspot_fraction"] = options["hotspot_traffic"]
        inputs["hotspot_nodes"] = len(models[seed]["hot_endpoints"])
    shared = {"inputs": inputs, "model": models[seed]}
    if seeds > 1:
        shared["runs"] = runs
    return rows, shared


NOTES = (
    "simulator: input-queued VC routers, credit-based flow control, separable input-first"
    " allocator (one iteration; round-robin or age priority), wormhole packets of"
    " --packet-flits flits; DOR with dateline VC classes on torus rings of radix > 2,"
    " NCA up/down on fat trees, min / valiant / UGAL-L on dragonflies, min on slim flies"
    " (hop-index VC classes on the table-routed networks)",
    "latency in cycles from packet creation to tail delivery, source queueing included;"
    " throughput in flits/endpoint/cycle; packets tagged in the measurement window",
    "zero-load (model) = 2*terminal delay + (H+1)*router delay + H*link delay + (L-1),"
    " router delay = the sum of the pipeline stages, L = flits per packet, H = the"
    " pattern's mean hop count from icnperf.model (uniform includes self); '-' = n/a",
    "model bound = min(1, 1/gamma_max) (hotspot: the hot endpoints' ejection channel);"
    " input-queued routers with few shallow VCs saturate below it (head-of-line blocking,"
    " allocator, dateline imbalance)",
    "eta*bound: eta = model.network.ROUTER_EFFICIENCY (0.67) for random destinations,"
    " calibrated on the simulator for uniform traffic on an 8x8 torus only (2 VCs x 8"
    " flits, 1-flit packets, age arbiter), 1 for fixed permutations (which reach the bound"
    " in the simulator); every other topology, pattern and router setting here is held out",
    "queueing (model) = zero-load + model.network.queueing_delay(rate, gamma_max, H,"
    " service = L cycles, eta): independent M/D/1 channels, the busiest channel's"
    " utilisation charged on every hop (an upper estimate for uneven patterns); inf once"
    " rate >= eta*min(1, 1/gamma_max), '-' where gamma_max is n/a",
    "sim - model compares the mean accepted throughput, except above the bound under a"
    " permutation pattern (tornado, bit-complement, transpose, permutation), where it"
    " compares the worst destination's: past saturation flows off the busiest channel"
    " keep their rate, so the mean can exceed the bound while the flows through that"
    " channel cannot",
    "round-robin allocation can starve flows past saturation (e.g. tornado on a torus:"
    " class-0 dateline VCs lose the output to class-1 traffic), collapsing throughput;"
    " --arbiter age (oldest first) avoids the starvation",
    "saturated: accepted more than 5 % below offered, source queues ageing by more than"
    " 5 % of the window, or tagged packets undelivered after the drain",
)


REPLICATE_COLUMNS = (
    Column("rate", "offered rate", number(3)),
    Column("average_latency", "sim avg latency (mean)", number(4)),
    Column("latency_range", "min..max", str),
    Column("p99_latency", "sim p99 (mean)", number(4)),
    Column("zero_load_latency", "zero-load (model)", number(4)),
    Column("latency_diff", "avg - zero-load", number(3)),
    Column("queueing_latency", "queueing (model)", number(4)),
    Column("queueing_diff", "avg - queueing", number(3)),
    Column("accepted", "sim accepted (mean)", number(4)),
    Column("accepted_range", "min..max", str),
    Column("accepted_min", "sim worst dest", number(4)),
    Column("predicted_accepted", "model min(rate, bound)", number(4)),
    Column("accepted_diff", "sim - model", number(3)),
    Column("efficiency_accepted", "model min(rate, eta*bound)", number(4)),
    Column("efficiency_diff", "sim - eta model", number(3)),
    Column("saturated", "saturated"),
    Column("packets", "packets"),
)


def _span(lo: float, hi: float) -> str:
    fmt = number(4)
    return f"{fmt(lo)}..{fmt(hi)}"


def replicate_note(seed: int, seeds: int, traffic: str) -> str:
    """How a row summarizes its seeds (printed with --seeds > 1)."""
    text = (f"each rate ran {seeds} seeds ({seed}..{seed + seeds - 1}): figures are means over"
            " the seeds, min..max the smallest and largest seed's value (a range, not a"
            " confidence interval), packets the total, saturated how many seeds saturated")
    if traffic == "permutation":
        text += ("; each seed draws its own permutation, so the model columns are means of"
                 " each seed's prediction and the header shows the first seed's")
    return text


def traffic_text(topology: str, traffic: str, rates_text: str, vcs: int, buffer: int,
                 router_delay: int, link_delay: int, terminal_delay: int, packet_flits: int,
                 warmup: int, measure: int, drain: int, seed: int, fmt: str,
                 arbiter: str = "round-robin", seeds: int = 1, scheduler: str = "inline",
                 workers: int | None = None, progress: bool | None = None, *,
                 routing: str | None = None, stages: dict | None = None,
                 hotspot_fraction: float | None = None,
                 hotspot_nodes: int | None = None) -> str:
    """``icnperf simulate traffic`` output in the chosen format."""
    rows, shared = traffic_rows(topology, traffic, rates_text, vcs, buffer, router_delay,
                                link_delay, terminal_delay, packet_flits, warmup, measure,
                                drain, seed, arbiter, seeds, scheduler, workers, progress,
                                routing=routing, stages=stages,
                                hotspot_fraction=hotspot_fraction,
                                hotspot_nodes=hotspot_nodes)
    model = {k: v for k, v in shared["model"].items() if k != "notes"}
    notes = (list(NOTES) + shared["model"]["notes"]
             + ([replicate_note(seed, seeds, traffic)] if seeds > 1 else []))
    if fmt == "json":
        return json_text({**shared, "model": model, "notes": notes, "rows": rows})
    keys = [c.key for c in TRAFFIC_COLUMNS] + ["offered", "unfinished", "flit_hops"]
    if seeds > 1:
        keys += ["seeds", "average_latency_lo", "average_latency_hi", "accepted_lo",
                 "accepted_hi"]
    if fmt == "csv":
        return csv_text(rows, keys)
    fmt4 = number(4)
    inputs = shared["inputs"]
    head = (f"{inputs['topology']} ({inputs['routing']} routing), {traffic} traffic:"
            f" mean hops {fmt4(model['mean_hops'])}, gamma_max {fmt4(model['gamma_max'])},"
            f" saturation bound {fmt4(model['saturation_bound'])}, eta*bound"
            f" {fmt4(model['efficiency_bound'])} (eta {model['router_efficiency']:g})"
            " flits/endpoint/cycle")
    columns = TRAFFIC_COLUMNS
    if seeds > 1:
        head += f"; {seeds} seeds per rate"
        columns = REPLICATE_COLUMNS
        rows = [{**row,
                 "latency_range": _span(row["average_latency_lo"], row["average_latency_hi"]),
                 "accepted_range": _span(row["accepted_lo"], row["accepted_hi"])}
                for row in rows]
    listed = "\n".join(f"  - {n}" for n in notes)
    return f"{head}\n\n{aligned_table(rows, columns)}\n\nnotes:\n{listed}\n"
