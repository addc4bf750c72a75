"""``icnperf.simulate_traffic`` and ``icnperf.simulate_collective``: the flit-level
simulator beside the closed forms (``icnperf simulate traffic|collective``)."""

from __future__ import annotations

from typing import Any

from icnperf.api import options, values
from icnperf.api.guard import quiet
from icnperf.api.results import Result
from icnperf.errors import InputError

ROUTER_OPTIONS = ("vcs", "buffer", "router_delay", "routing_delay", "vc_alloc_delay",
                  "switch_alloc_delay", "switch_traversal_delay", "link_delay",
                  "global_link_delay", "terminal_delay", "packet_flits")
"""The whole-number router options laid over the ``router`` preset (cycles, flits, VCs)."""


class TrafficResult(Result):
    """``simulate traffic``: one row per injection rate (simulated latency and accepted
    throughput beside the closed-form predictions in ``model``); with several seeds the
    rows are means and ``runs`` holds every run. ``wall_seconds`` changes from run to
    run."""

    command = "simulate traffic"

    @property
    def model(self) -> dict:
        return self.to_dict()["model"]

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.simulate import traffic_render

        return traffic_render(self._document, fmt, wide)

    def figure(self):
        from icnperf.reports.result_figures import traffic_figure

        return traffic_figure(self._document)


class SimulatedCollectiveResult(Result):
    """``simulate collective``: simulated and predicted completion per (nodes, size)."""

    command = "simulate collective"

    def render(self, fmt: str = "table", wide: bool = False) -> str:
        from icnperf.reports.text.simulate_collective import collective_render

        return collective_render(self._document, fmt, wide)

    def figure(self):
        from icnperf.reports.result_figures import simulated_collective_figure

        return simulated_collective_figure(self._document)


@quiet
def simulate_traffic(*, topology: str, routing: str | None = None,
                     global_wiring: str | None = None, traffic: str = "uniform",
                     hotspot_fraction: Any = None, hotspot_nodes: Any = None,
                     rates: Any = "0.05..0.5:0.05", router: str = "default",
                     machine: Any = None,
                     arbiter: str | None = None, allocator: str | None = None,
                     internal_speedup: Any = None, dateline: str | None = None,
                     ring_ties: str | None = None, warmup: Any = 10_000,
                     measure: Any = 5_000, drain: Any = 5_000, seed: Any = 0,
                     seeds: Any = 1, scheduler: str = "inline", workers: Any = None,
                     progress: bool | None = False, budget_format: str = "json",
                     **router_options: Any) -> TrafficResult:
    """What ``icnperf simulate traffic`` runs: the flit simulator on ``topology`` per
    injection rate (``rates``: text such as ``"0.1..0.5:0.1"`` or a list of
    flits/endpoint/cycle), next to the closed forms. Keywords are the command's options:
    ``routing``, ``global_wiring``, ``traffic``, ``hotspot_fraction``, ``hotspot_nodes``,
    ``router`` (the preset: default, nudt, booksim), ``machine`` (a preset name or TOML
    path whose network keys give the VCs, buffer, allocator, arbiter and internal speedup
    over the preset) and the router options over both
    (``vcs``, ``buffer``, ``router_delay``, ``routing_delay``, ``vc_alloc_delay``,
    ``switch_alloc_delay``, ``switch_traversal_delay``, ``link_delay``,
    ``global_link_delay``, ``terminal_delay``, ``packet_flits``, ``arbiter``,
    ``allocator``, ``internal_speedup``, ``dateline``, ``ring_ties``), ``warmup``,
    ``measure``, ``drain`` (cycles), ``seed``, ``seeds``, ``scheduler``, ``workers`` and
    ``progress`` (a bar on standard error; off by default here)."""
    from icnperf.api.traffic_runs import traffic_document, traffic_rows
    from icnperf.sim.presets import router_settings

    stray = sorted({*router_options} - {*ROUTER_OPTIONS})
    if stray:
        raise TypeError(f"simulate_traffic() got unexpected keyword(s) {', '.join(stray)}")
    whole = {key: options.optional_integer(router_options.get(key),
                                           "--" + key.replace("_", "-"))
             for key in ROUTER_OPTIONS}
    global_wiring = options.optional_choice(global_wiring, options.GLOBAL_WIRINGS,
                                            "--global-wiring")
    hotspot_fraction = options.optional_real(hotspot_fraction, "--hotspot-fraction")
    hotspot_nodes = options.optional_integer(hotspot_nodes, "--hotspot-nodes")
    arbiter = options.optional_choice(arbiter, options.ARBITERS, "--arbiter")
    allocator = options.optional_choice(allocator, options.ALLOCATORS, "--allocator")
    internal_speedup = options.optional_real(internal_speedup, "--internal-speedup")
    dateline = options.optional_choice(dateline, options.DATELINES, "--dateline")
    ring_ties = options.optional_choice(ring_ties, options.RING_TIES, "--ring-ties")
    warmup = options.count(warmup, "--warmup")
    measure = options.count(measure, "--measure")
    drain = options.count(drain, "--drain")
    seed = options.integer(seed, "--seed", low=0, high=options.MAX_SEED)
    seeds = options.count(seeds, "--seeds")
    workers = options.optional_count(workers, "--workers")
    rates_text, _ = values.counts_text(rates, "--rates")
    if whole["global_link_delay"] is not None:
        from icnperf.model.topology.spec import parse_spec

        family = parse_spec(topology).family.name
        if family != "dragonfly":
            raise InputError(f"--global-link-delay applies to dragonflies (their inter-group"
                             f" links); {topology} is a {family}")
    if machine is not None:
        from icnperf.api.traffic_runs import machine_router_keys

        given = machine_router_keys(machine)
        for key in ("vcs", "buffer"):
            whole[key] = given.get(key) if whole[key] is None else whole[key]
        allocator = given.get("allocator") if allocator is None else allocator
        arbiter = given.get("arbiter") if arbiter is None else arbiter
        internal_speedup = (given.get("internal_speedup") if internal_speedup is None
                            else internal_speedup)
    settings = router_settings(router, arbiter=arbiter, allocator=allocator,
                               internal_speedup=internal_speedup, dateline=dateline,
                               ring_ties=ring_ties, **whole)
    rows, shared = traffic_rows(topology, traffic, rates_text, settings, warmup, measure,
                                drain, seed, seeds, scheduler, workers, progress,
                                routing=routing, global_wiring=global_wiring,
                                hotspot_fraction=hotspot_fraction,
                                hotspot_nodes=hotspot_nodes, fmt=budget_format)
    return TrafficResult(traffic_document(rows, shared))


@quiet
def simulate_collective(machine: Any, operation: str, *, set: Any = None,
                        nodes: Any = None, bytes: Any = "256B", algorithm: str | None = None,
                        api: str = "mpi",
                        budget_format: str = "json") -> SimulatedCollectiveResult:
    """What ``icnperf simulate collective OPERATION`` runs: the flit simulator's
    completion time of one collective (broadcast, reduce, allreduce, allgather) on the
    machine's torus beside the closed form. Keywords: ``set``, ``nodes`` (node counts:
    the torus reshaped), ``bytes``, ``algorithm`` (hw-tree, p2p-tree, recursive-doubling),
    ``api``."""
    from icnperf.model.collectives import operation_name
    from icnperf.api.collective_simulation import NOTES, collective_rows

    api = options.choice(api, options.APIS, "--api")
    operation_name(operation)  # an unknown operation is named before the machine is read
    nodes_text, nodes_recorded = values.counts_text(nodes)
    bytes_text = bytes if isinstance(bytes, str) else values.counts_text(bytes, "--bytes")[0]
    machine, overrides = values.machine(machine, set)
    rows, inputs = collective_rows(operation, machine, tuple(overrides), nodes_text,
                                   bytes_text, algorithm, api, budget_format)
    inputs = {**inputs, "nodes": nodes_recorded,
              "bytes": bytes if isinstance(bytes, str) else _numbers(bytes)}
    return SimulatedCollectiveResult({"inputs": inputs, "notes": list(NOTES), "rows": rows})


def _numbers(value: Any):
    return value.tolist() if hasattr(value, "tolist") else value
