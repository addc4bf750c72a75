"""``icnperf simulate traffic|collective``: the flit simulator beside the model."""

from __future__ import annotations

import click

from icnperf.cli.common import (FORMAT_OPTION, OUTPUT_OPTION, FORCE_OPTION, WIDE_OPTION, Count,
                                emit)


@click.group("simulate")
def simulate() -> None:
    """The embedded flit-level simulator next to the closed-form predictions."""


@simulate.command("traffic")
@click.option("--topology", required=True, metavar="SPEC",
              help="torus:8x8, mesh:4x4, hypercube:6, fattree:k=4,n=3,"
                   " dragonfly:p=2,a=4,h=2 or slimfly:q=5.")
@click.option("--routing", default=None, metavar="NAME",
              help="dor (grids); nca or nca-first (fat tree); min, valiant or ugal"
                   " (dragonfly); min (slim fly) [default: the first].")
@click.option("--traffic", default="uniform", show_default=True,
              help="uniform, tornado, bit-complement, permutation (random, seeded),"
                   " transpose, asymmetric or hotspot.")
@click.option("--hotspot-fraction", type=float, default=None, metavar="F",
              help="hotspot: share of packets to the hot endpoints [default: 0.1].")
@click.option("--hotspot-nodes", type=int, default=None, metavar="K",
              help="hotspot: number of hot endpoints [default: 2 % of them, >= 1].")
@click.option("--rates", default="0.05..0.5:0.05", show_default=True,
              help="Injection rates in flits/endpoint/cycle, each in (0, 1].")
@click.option("--router", "router_preset", default="default", show_default=True,
              metavar="PRESET",
              help="Router micro-architecture: default (2 VCs x 8 flits, 1-cycle stages and"
                   " links) or nudt (the NUDT paper's: 8 VCs x 300 flits, 4 one-cycle"
                   " stages, 50-cycle links, 5-cycle endpoint links); the options below"
                   " override single values.")
@click.option("--vcs", type=int, default=None,
              help="VCs per port (dragonfly: >= 3 for min, 6 for valiant / ugal).")
@click.option("--buffer", type=int, default=None, help="Flits per VC buffer.")
@click.option("--router-delay", type=int, default=None,
              help="Router pipeline delay, cycles (the stages' sum when they are given).")
@click.option("--routing-delay", type=int, default=None, help="Routing stage, cycles.")
@click.option("--vc-alloc-delay", type=int, default=None,
              help="VC-allocation stage, cycles.")
@click.option("--switch-alloc-delay", type=int, default=None,
              help="Switch-allocation stage, cycles.")
@click.option("--switch-traversal-delay", type=int, default=None,
              help="Switch-traversal stage, cycles.")
@click.option("--link-delay", type=int, default=None,
              help="Router-router link latency, cycles.")
@click.option("--terminal-delay", type=int, default=None,
              help="Endpoint-router link latency, cycles.")
@click.option("--packet-flits", type=int, default=None, help="Flits per packet (wormhole).")
@click.option("--arbiter", type=click.Choice(["round-robin", "age"]), default=None,
              help="Switch-allocator priority: rotating, or oldest first.")
@click.option("--warmup", type=Count(), default=10_000, show_default=True,
              help="Warm-up cycles.")
@click.option("--measure", type=Count(), default=5_000, show_default=True,
              help="Measurement window, cycles.")
@click.option("--drain", type=Count(), default=5_000, show_default=True,
              help="Most drain cycles after the window.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Random seed (the first one with --seeds).")
@click.option("--seeds", type=Count(), default=1, show_default=True,
              help="Replicates per rate, seeds SEED..SEED+N-1; N > 1 prints means and"
                   " min..max.")
@click.option("--scheduler", default="inline", show_default=True,
              help="Where the runs go: inline, processes, local-cluster or tcp://host:port"
                   " (Dask: pip install 'icnperf[dask]').")
@click.option("--workers", type=Count(), default=None,
              help="Processes for processes / local-cluster [default: CPU count].")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on standard error [default: when it is a terminal].")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
@WIDE_OPTION
def simulate_traffic(topology: str, routing: str | None, traffic: str,
                     hotspot_fraction: float | None, hotspot_nodes: int | None, rates: str,
                     router_preset: str, vcs: int | None, buffer: int | None,
                     router_delay: int | None, routing_delay: int | None,
                     vc_alloc_delay: int | None, switch_alloc_delay: int | None,
                     switch_traversal_delay: int | None, link_delay: int | None,
                     terminal_delay: int | None, packet_flits: int | None,
                     arbiter: str | None, warmup: int, measure: int, drain: int,
                     seed: int, seeds: int, scheduler: str, workers: int | None,
                     progress: bool | None, fmt: str, output: str | None,
                     force: bool, wide: bool) -> None:
    """Simulated latency and accepted throughput per injection rate, next to the
    closed-form zero-load latency, saturation bound and queueing estimate."""
    from icnperf.reports.text.simulate import traffic_text
    from icnperf.sim.presets import router_settings

    r = router_settings(router_preset, vcs=vcs, buffer=buffer, router_delay=router_delay,
                        link_delay=link_delay, terminal_delay=terminal_delay,
                        packet_flits=packet_flits, arbiter=arbiter,
                        routing_delay=routing_delay, vc_alloc_delay=vc_alloc_delay,
                        switch_alloc_delay=switch_alloc_delay,
                        switch_traversal_delay=switch_traversal_delay)
    stages = {k: r.get(k) for k in ("routing_delay", "vc_alloc_delay", "switch_alloc_delay",
                                    "switch_traversal_delay")}
    emit(traffic_text(topology, traffic, rates, r["vcs"], r["buffer"], r.get("router_delay", 1),
                      r["link_delay"], r["terminal_delay"], r["packet_flits"], warmup,
                      measure, drain, seed, fmt, r["arbiter"], seeds, scheduler, workers,
                      progress, routing=routing, stages=stages,
                      hotspot_fraction=hotspot_fraction, hotspot_nodes=hotspot_nodes,
                      wide=wide),
         output, force)


@simulate.command("collective")
@click.argument("operation")
@click.option("--machine", "machine_name", required=True, metavar="NAME|FILE",
              help="Preset name or machine TOML file (a torus machine).")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.KEY=VALUE",
              help="Override a machine value (repeatable).")
@click.option("--nodes", default=None, metavar="RANGE",
              help="Reshape the torus to these node counts (as predict collective).")
@click.option("--bytes", "sizes", default="256B", show_default=True, metavar="RANGE",
              help="Message size (all-gather: the whole gathered vector).")
@click.option("--algorithm", default=None, metavar="NAME",
              help="hw-tree, p2p-tree (broadcast) or recursive-doubling (allgather);"
                   " default hw-tree, recursive-doubling for allgather.")
@click.option("--api", type=click.Choice(["mpi", "shmem", "none"]), default="mpi",
              show_default=True, help="Software overhead charged per message.")
@FORMAT_OPTION
@OUTPUT_OPTION
@FORCE_OPTION
@WIDE_OPTION
def simulate_collective(operation: str, machine_name: str, overrides: tuple[str, ...],
                        nodes: str | None, sizes: str, algorithm: str | None, api: str,
                        fmt: str, output: str | None, force: bool, wide: bool) -> None:
    """Simulated completion time of one collective (broadcast, reduce, allreduce,
    allgather) on the machine's torus, next to the closed form."""
    from icnperf.reports.text.simulate_collective import collective_text

    emit(collective_text(operation, machine_name, overrides, nodes, sizes, algorithm, api,
                         fmt, wide), output, force)
