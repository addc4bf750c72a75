"""``icnperf simulate traffic``'s runs and rows: the flit simulator (icnperf.sim) per
injection rate and seed through runner.py, next to the closed forms.

The simulator knows only the topology, routing and routers; the predictions come from
icnperf.model through validation/closed_forms.py, so the two stay independent. Here: the
checks of the request (pattern, rates, hotspot mix, router against the network, the work
budget), the runs, one row per rate (means over the seeds) and the document's notes;
reports/text/simulate.py renders the document.
"""

from __future__ import annotations

import functools
import math
import sys

from icnperf.errors import InputError

def _network_of(spec_text: str, routing: str | None) -> tuple:
    """(parsed model spec, routing name, simulator spec text) for a simulated family.

    The simulator's network is built from the model spec's own parameters (the slim fly's
    endpoints per router included), so both describe the same network.
    """
    from icnperf.model.topology.spec import parse_spec
    from icnperf.sim.topologies import choose_routing
    from icnperf.validation.closed_forms import slimfly_endpoints_per_router

    spec = parse_spec(spec_text)
    name = spec.family.name
    routing = choose_routing(name, routing)
    sim_text = spec.text
    if name == "slimfly":
        q = int(spec.params["q"])
        sim_text = f"slimfly:q={q},p={slimfly_endpoints_per_router(spec.params)}"
    return spec, routing, sim_text


@functools.lru_cache(maxsize=4)
def _network(sim_text: str, routing: str, wiring: str | None = None):
    """The simulator's network, built once per process and shared by its runs."""
    from icnperf.sim import network_from_spec

    return network_from_spec(sim_text, routing, wiring)


def _rates(text: str) -> list[float]:
    import numpy as np

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


def _simulate_task(task: tuple, progress=None) -> dict:
    """One simulator run, a runner task (module-level so worker processes can import it).

    ``task``: (simulator spec text, routing, traffic, rate, RouterConfig, warmup,
    measure, drain, seed, traffic options[, dragonfly global wiring[, memory limit in
    bytes]]); returns the SimResult's fields as a dict. ``progress(cycles_done,
    cycles_total)`` is passed to the simulator (in-process only).
    """
    from icnperf.sim import simulate
    from icnperf.sim.engine import MEMORY_LIMIT

    sim_text, routing, traffic, rate, router, warmup, measure, drain, seed, options = task[:10]
    wiring = task[10] if len(task) > 10 else None
    memory_limit = task[11] if len(task) > 11 else MEMORY_LIMIT
    network = _network(sim_text, routing, wiring)
    return simulate(network, traffic, rate, router, warmup=warmup, measure=measure,
                    drain=drain, seed=seed, traffic_options=options, progress=progress,
                    memory_limit=memory_limit).as_dict()


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


def _run_row(rate: float, r: dict, model: dict, traffic: str, packet_flits: int = 1) -> dict:
    """One run's row: simulated figures next to the closed forms and their differences."""
    from icnperf.model.network import FIXED_PERMUTATIONS
    from icnperf.validation.closed_forms import queueing_latency

    bound, eff = model["saturation_bound"], model["saturation_estimate"]
    predicted = min(rate, bound) if not math.isnan(bound) else math.nan
    efficiency = min(rate, eff) if not math.isnan(eff) else math.nan
    below = rate <= bound
    compared = r["accepted"] if traffic not in FIXED_PERMUTATIONS or below else r["accepted_min"]
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
        "estimate_accepted": efficiency,
        "estimate_diff": compared - efficiency,
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
          "accepted_min", "accepted_diff", "estimate_accepted", "estimate_diff")
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


def traffic_rows(topology: str, traffic: str, rates_text: str, router: dict, warmup: int,
                 measure: int, drain: int, seed: int, seeds: int = 1,
                 scheduler: str = "inline", workers: int | None = None,
                 progress: bool | None = None, *, routing: str | None = None,
                 global_wiring: str | None = None, hotspot_fraction: float | None = None,
                 hotspot_nodes: int | None = None, fmt: str = "table"
                 ) -> tuple[list[dict], dict]:
    """One row per rate (simulated vs closed form) and the shared predictions/inputs.

    ``router``: RouterConfig keywords (a preset with the given options over it,
    sim/presets.py); ``routing``: one of the family's routings (sim.topologies.ROUTINGS;
    default its first); ``global_wiring``: a dragonfly's (relative, absolute);
    ``hotspot_fraction`` / ``hotspot_nodes``: see hotspot_options. ``seeds`` replicates
    per rate use seeds ``seed .. seed+seeds-1``; every (rate, seed) run goes through
    runner.run_map on ``scheduler``. With one seed a row is that run; with more it is
    summary_row over them, and the shared dict's ``runs`` holds every run's row. The runs'
    memory and time (``fmt``: the output format the rows go to) are checked against the
    limits (icnperf.data.limits) before any runs.
    """
    from icnperf.data.limits import limits, within_limits
    from icnperf.model.budget import simulation_estimate
    from icnperf.runner import parse_scheduler, parallel_workers, run_map
    from icnperf.sim import ALL_PATTERNS, RouterConfig, estimate_memory
    from icnperf.validation.closed_forms import predictions

    if traffic not in ALL_PATTERNS:
        raise InputError(f"--traffic: unknown pattern {traffic!r} (choose from"
                         f" {', '.join(ALL_PATTERNS)})")
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise InputError(f"--seeds: the replicates per rate must be a whole number >= 1,"
                         f" got {seeds!r}")
    parse_scheduler(scheduler)
    spec, routing, sim_text = _network_of(topology, routing)
    rates = _rates(rates_text)
    config = RouterConfig(**router)
    network = _network(sim_text, routing, global_wiring)
    config.check(network)
    runs = len(rates) * seeds
    run_memory = estimate_memory(network, config, warmup + measure + drain)
    within_limits(simulation_estimate(runs, int(network.routers), warmup + measure + drain,
                                      run_memory, parallel_workers(scheduler, workers, runs),
                                      fmt))
    options = hotspot_options(traffic, hotspot_fraction, hotspot_nodes,
                              int(network.endpoints))
    seed_list = [seed + i for i in range(seeds)]
    # only the seeded permutation's prediction depends on the seed (its own permutation)
    models = {s: predictions(spec, routing, network, traffic, config, s, options)
              for s in (seed_list if traffic == "permutation" else [seed])}
    memory_limit = limits().memory
    tasks = [(sim_text, routing, traffic, rate, config, warmup, measure, drain, s, options,
              global_wiring, memory_limit) for rate in rates for s in seed_list]
    label = f"simulate {spec.text} {traffic}"
    single_bar = progress or (progress is None and sys.stderr.isatty())
    if len(tasks) == 1 and parse_scheduler(scheduler).kind == "inline" and single_bar:
        results = [_one_run_with_bar(tasks[0], label)]
    else:
        results = run_map(_simulate_task, tasks, scheduler=scheduler, workers=workers,
                          progress=progress, label=label)
    runs = [{**_run_row(task[3], r, models.get(task[8], models[seed]), traffic,
                        config.packet_flits), "seed": task[8]}
            for task, r in zip(tasks, results)]
    if seeds == 1:
        rows = [{k: v for k, v in run.items() if k != "seed"} for run in runs]
    else:
        rows = [summary_row(rate, runs[i * seeds:(i + 1) * seeds])
                for i, rate in enumerate(rates)]
    rc, va, sa, st = config.stages
    inputs = {"topology": spec.text, "routing": routing, "traffic": traffic,
              "rates": rates, "vcs": config.vcs, "buffer_flits": config.buffer,
              "router_delay_cycles": config.router_delay,
              "routing_delay_cycles": rc, "vc_alloc_delay_cycles": va,
              "switch_alloc_delay_cycles": sa, "switch_traversal_delay_cycles": st,
              "link_delay_cycles": config.link_delay,
              "global_link_delay_cycles": config.global_delay,
              "terminal_delay_cycles": config.terminal_delay,
              "packet_flits": config.packet_flits, "arbiter": config.arbiter,
              "allocator": config.allocator, "internal_speedup": config.internal_speedup,
              "dateline": config.dateline, "ring_ties": config.ring_ties,
              "warmup": warmup, "measure": measure, "drain": drain, "seed": seed,
              "seeds": seeds}
    if global_wiring is not None:
        inputs["global_wiring"] = global_wiring
    if traffic == "hotspot":
        inputs["hotspot_fraction"] = options["hotspot_traffic"]
        inputs["hotspot_nodes"] = len(models[seed]["hot_endpoints"])
    shared = {"inputs": inputs, "model": models[seed], "notes": router_notes(config)}
    if seeds > 1:
        shared["runs"] = runs
    return rows, shared


MACHINE_ROUTER_KEYS = {"network.virtual_channels": "vcs", "network.vc_buffer_flits": "buffer",
                       "network.switch_allocator": "allocator", "network.arbiter": "arbiter",
                       "network.internal_speedup": "internal_speedup"}
"""Machine keys that describe the simulated router, and the RouterConfig field of each."""


def machine_router_keys(machine_name: str) -> dict:
    """The RouterConfig values a machine gives (only the keys it sets)."""
    from icnperf.data.machine import load_machine

    machine = load_machine(machine_name)
    return {field: machine.get(path) for path, field in MACHINE_ROUTER_KEYS.items()
            if machine.get(path) is not None}


def router_notes(config) -> list[str]:
    """Notes on where the simulated router departs from the model's assumptions."""
    notes = []
    if config.allocator == "islip":
        notes.append("islip router (BookSim2's iq router): zero-load (model) includes the"
                     " one cycle BookSim's injection channel adds (a channel of latency L"
                     " delivers L+1 cycles after the send; per hop the stages absorb it)")
        if config.internal_speedup != 1:
            notes.append(f"internal speedup {config.internal_speedup:g}: the router runs"
                         " that many allocation steps per cycle on average, so a head spends"
                         " fewer cycles per router than the sum of its stages; zero-load"
                         " (model), which charges the sum, is an upper estimate")
    if config.global_delay != config.link_delay:
        notes.append(f"global links take {config.global_delay} cycles: zero-load (model)"
                     f" charges every router-router link {config.link_delay} (the model's"
                     " path latency has one link latency)")
    return notes


NOTES = (
    "simulator: input-queued VC routers, credit-based flow control, separable input-first"
    " allocator (one iteration; round-robin or age priority) or, with --allocator islip,"
    " BookSim2's iq router (iSLIP VC and switch allocation), wormhole packets of"
    " --packet-flits flits; DOR with dateline VC classes on torus rings of radix > 2,"
    " nearest-common-ancestor up/down on fat trees (random or d-mod-k up ports), min /"
    " valiant / ugal / ugal-hops on dragonflies (phase or hop-index VC classes), min on"
    " slim flies (hop-index VC classes)",
    "latency in cycles from packet creation to tail delivery, source queueing included;"
    " throughput in flits/endpoint/cycle; packets tagged in the measurement window",
    "zero-load (model) = 2*terminal delay + (H+1)*router delay + H*link delay + (L-1),"
    " router delay = the sum of the pipeline stages, L = flits per packet, H = the"
    " pattern's mean hop count from icnperf.model (uniform includes self); '-' = n/a",
    "model bound = min(1, 1/gamma_max) (hotspot: the hot endpoints' ejection channel);"
    " input-queued routers with few shallow VCs saturate below it (head-of-line blocking,"
    " allocator, dateline imbalance)",
    "saturation estimate: model.topology.saturation's closed form for the simulated router"
    " (allocator matching, head-of-line blocking against the VCs of the busiest class,"
    " load balance, internal speedup, wormhole VC holding, VC turnaround, credit round"
    " trip; docs/saturation.md); no value in it was fitted to a run shown here",
    "queueing (model) = zero-load + model.network.queueing_delay(rate, gamma_max, H,"
    " service = L cycles, estimate/bound): independent M/D/1 channels, the busiest"
    " channel's utilisation charged on every hop (an upper estimate for uneven patterns);"
    " '-' (JSON null) once rate >= the saturation estimate, where the queues have no steady"
    " state, and where gamma_max is n/a",
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


def replicate_note(seed: int, seeds: int, traffic: str) -> str:
    """How a row summarizes its seeds (printed with --seeds > 1)."""
    text = (f"each rate ran {seeds} seeds ({seed}..{seed + seeds - 1}): figures are means over"
            " the seeds, min..max the smallest and largest seed's value (a range, not a"
            " confidence interval), packets the total, saturated how many seeds saturated")
    if traffic == "permutation":
        text += ("; each seed draws its own permutation, so the model columns are means of"
                 " each seed's prediction and the header shows the first seed's")
    return text


def traffic_document(rows: list[dict], shared: dict) -> dict:
    """The JSON layout of ``icnperf simulate traffic``: :func:`traffic_rows`' rows and
    shared inputs, the model's predictions (its notes joined to the notes)."""
    inputs = shared["inputs"]
    model = {k: v for k, v in shared["model"].items() if k != "notes"}
    notes = (list(NOTES) + shared["model"]["notes"] + shared["notes"]
             + ([replicate_note(inputs["seed"], inputs["seeds"], inputs["traffic"])]
                if inputs["seeds"] > 1 else []))
    return {**shared, "model": model, "notes": notes, "rows": rows}
