"""``icnperf simulate traffic``: the flit simulator next to the closed forms.

The simulator (validation/flitsim) knows only the topology, routing and routers; the
predictions here come from model/topology/torus.py (average distance, channel load γ_max)
and the simulator's stated timing conventions, so the two stay independent.
"""

from __future__ import annotations

import math

import numpy as np

from icnperf.errors import InputError
from icnperf.render import Column, aligned_table, csv_text, json_text, number

SIMULATED_FAMILIES = ("torus", "mesh", "hypercube")

TRAFFIC_COLUMNS = (
    Column("rate", "offered rate", number(3)),
    Column("average_latency", "sim avg latency", number(4)),
    Column("p99_latency", "sim p99", number(4)),
    Column("zero_load_latency", "zero-load (model)", number(4)),
    Column("latency_diff", "avg - zero-load", number(3)),
    Column("accepted", "sim accepted", number(4)),
    Column("accepted_min", "sim worst dest", number(4)),
    Column("predicted_accepted", "model min(rate, bound)", number(4)),
    Column("accepted_diff", "sim - model", number(3)),
    Column("saturated", "saturated"),
    Column("packets", "packets"),
)


def _network_of(spec_text: str):
    """(parsed spec, radices, wrap) for the families the simulator handles."""
    from icnperf.model.topology.spec import parse_spec

    spec = parse_spec(spec_text)
    name = spec.family.name
    if name not in SIMULATED_FAMILIES:
        raise InputError(f"simulate: the flit simulator handles {', '.join(SIMULATED_FAMILIES)}"
                         f" in this version, not {name}")
    if name == "hypercube":
        return spec, (2,) * spec.params["n"], True
    return spec, tuple(spec.params["radices"]), name != "mesh"


def _rates(text: str) -> list[float]:
    from icnperf.units import parse_range

    rates = [float(r) for r in np.atleast_1d(parse_range(text))]
    bad = [r for r in rates if not 0 < r <= 1]
    if bad:
        raise InputError(f"--rates: every rate must be in (0, 1] flits/endpoint/cycle,"
                         f" got {bad[0]:g}")
    return rates


def predictions(spec, radices, wrap: bool, traffic: str, router, seed: int) -> dict:
    """Closed-form zero-load latency and saturation bound for the simulated setup.

    Mean hops: uniform includes self (average_distance x (N-1)/N); tornado,
    bit-complement and the seeded permutation average the DOR hop count
    (torus.hop_distance) over sources. γ_max: torus.py's channel_load; for the seeded
    permutation on a torus, its exact DOR load (torus.dor_traffic); NaN on a mesh.
    """
    from icnperf.model.topology.torus import dor_traffic, endpoint_coordinates, hop_distance

    metrics = spec.evaluate()
    n = int(metrics.endpoints)
    k = np.asarray(radices, dtype=np.int64)
    if traffic == "uniform":
        hops = float(metrics.average_distance) * (n - 1) / n
        gamma = float(metrics.channel_load[traffic])
    else:
        src = endpoint_coordinates(k, np.arange(n))
        if traffic == "permutation":
            from icnperf.validation.flitsim.network import GridNetwork
            from icnperf.validation.flitsim.traffic import Traffic

            # only to learn which permutation the seed draws (the simulator's first draw)
            perm = Traffic("permutation", GridNetwork(radices, wrap),
                           np.random.default_rng(seed)).fixed
            dst = endpoint_coordinates(k, perm)
            gamma = float(dor_traffic(radices, np.arange(n), perm)[1]) if wrap else math.nan
        else:
            dst = (src + (k + 1) // 2 - 1) % k if traffic == "tornado" else k - 1 - src
            gamma = float(metrics.channel_load[traffic])
        hops = float(np.mean(hop_distance(k, src, dst, wrap=wrap)))
    bound = min(1.0, 1.0 / gamma) if gamma > 0 else (1.0 if gamma == 0 else math.nan)
    zero_load = (2 * router.terminal_delay + (hops + 1) * router.router_delay
                 + hops * router.link_delay)
    return {"mean_hops": hops, "gamma_max": gamma, "saturation_bound": bound,
            "zero_load_latency": zero_load}


def traffic_rows(topology: str, traffic: str, rates_text: str, vcs: int, buffer: int,
                 router_delay: int, link_delay: int, terminal_delay: int, packet_flits: int,
                 warmup: int, measure: int, drain: int, seed: int,
                 arbiter: str = "round-robin") -> tuple[list[dict], dict]:
    """One row per rate (simulated vs closed form) and the shared predictions/inputs."""
    from icnperf.validation.flitsim import GridNetwork, RouterConfig, check_memory, simulate
    from icnperf.validation.flitsim.traffic import TRAFFIC_PATTERNS

    if traffic not in TRAFFIC_PATTERNS:
        raise InputError(f"--traffic: unknown pattern {traffic!r} (choose from"
                         f" {', '.join(TRAFFIC_PATTERNS)})")
    spec, radices, wrap = _network_of(topology)
    rates = _rates(rates_text)
    router = RouterConfig(vcs=vcs, buffer=buffer, router_delay=router_delay,
                          link_delay=link_delay, terminal_delay=terminal_delay,
                          packet_flits=packet_flits, arbiter=arbiter)
    network = GridNetwork(radices, wrap)
    router.check(network)
    check_memory(network, router)
    model = predictions(spec, radices, wrap, traffic, router, seed)
    rows = []
    for rate in rates:
        r = simulate(network, traffic, rate, router, warmup=warmup, measure=measure,
                     drain=drain, seed=seed)
        predicted = min(rate, model["saturation_bound"])
        below = rate <= model["saturation_bound"]
        compared = r.accepted if traffic == "uniform" or below else r.accepted_min
        rows.append({
            "rate": rate,
            "offered": r.offered,
            "average_latency": r.average_latency,
            "p99_latency": r.p99_latency,
            "zero_load_latency": model["zero_load_latency"],
            "latency_diff": r.average_latency - model["zero_load_latency"],
            "accepted": r.accepted,
            "predicted_accepted": predicted,
            "accepted_min": r.accepted_min,
            "accepted_diff": compared - predicted,
            "saturated": "yes" if r.saturated else "no",
            "packets": r.packets_measured,
            "unfinished": r.packets_unfinished,
            "flit_hops": r.flit_hops,
            "wall_seconds": r.wall_seconds,
        })
    inputs = {"topology": spec.text, "traffic": traffic, "rates": rates, "vcs": vcs,
              "buffer_flits": buffer, "router_delay_cycles": router_delay,
              "link_delay_cycles": link_delay, "terminal_delay_cycles": terminal_delay,
              "packet_flits": packet_flits, "arbiter": arbiter, "warmup": warmup,
              "measure": measure,
              "drain": drain, "seed": seed}
    return rows, {"inputs": inputs, "model": model}


NOTES = (
    "simulator: input-queued VC routers, credit-based flow control, separable input-first"
    " allocator (one iteration; round-robin or age priority), 1-flit packets,"
    " dimension-order routing with dateline VC classes on torus rings of radix > 2",
    "latency in cycles from packet creation to delivery, source queueing included;"
    " throughput in flits/endpoint/cycle; packets tagged in the measurement window",
    "zero-load (model) = 2*terminal delay + (H+1)*router delay + H*link delay, H = mean DOR"
    " hops from model/topology/torus.py (uniform includes self)",
    "model bound = min(1, 1/gamma_max), gamma_max from torus.py's channel load;"
    " input-queued routers with few shallow VCs saturate below it (head-of-line blocking,"
    " allocator, dateline imbalance); the model's queueing estimate is not compared yet",
    "sim - model compares the mean accepted throughput, except above the bound under a"
    " permutation pattern (tornado, bit-complement, permutation), where it compares the"
    " worst destination's: past saturation flows off the busiest channel keep their rate,"
    " so the mean can exceed the bound while the flows through that channel cannot",
    "round-robin allocation can starve flows past saturation (e.g. tornado on a torus:"
    " class-0 dateline VCs lose the output to class-1 traffic), collapsing throughput;"
    " --arbiter age (oldest first) avoids the starvation",
    "saturated: accepted more than 5 % below offered, source queues ageing by more than"
    " 5 % of the window, or tagged packets undelivered after the drain",
)


def traffic_text(topology: str, traffic: str, rates_text: str, vcs: int, buffer: int,
                 router_delay: int, link_delay: int, terminal_delay: int, packet_flits: int,
                 warmup: int, measure: int, drain: int, seed: int, fmt: str,
                 arbiter: str = "round-robin") -> str:
    """``icnperf simulate traffic`` output in the chosen format."""
    rows, shared = traffic_rows(topology, traffic, rates_text, vcs, buffer, router_delay,
                                link_delay, terminal_delay, packet_flits, warmup, measure,
                                drain, seed, arbiter)
    if fmt == "json":
        return json_text({**shared, "notes": list(NOTES), "rows": rows})
    keys = [c.key for c in TRAFFIC_COLUMNS] + ["offered", "unfinished", "flit_hops"]
    if fmt == "csv":
        return csv_text(rows, keys)
    model = shared["model"]
    head = (f"{shared['inputs']['topology']}, {traffic} traffic: mean hops"
            f" {model['mean_hops']:.4g}, gamma_max {model['gamma_max']:.4g},"
            f" saturation bound {model['saturation_bound']:.4g} flits/endpoint/cycle")
    notes = "\n".join(f"  - {n}" for n in NOTES)
    return f"{head}\n\n{aligned_table(rows, TRAFFIC_COLUMNS)}\n\nnotes:\n{notes}\n"
