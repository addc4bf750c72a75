"""``icnperf simulate traffic|collective``: the flit simulator beside the model."""

from __future__ import annotations

import click

from icnperf.api.options import (ALLOCATORS, APIS, ARBITERS, DATELINES, GLOBAL_WIRINGS,
                                 MAX_SEED, RING_TIES)
from icnperf.cli.common import (FORMAT_OPTION, OUTPUT_OPTION, FORCE_OPTION, WIDE_OPTION, Count,
                                emit)


@click.group("simulate")
def simulate() -> None:
    """The embedded flit-level simulator next to the closed-form predictions."""


@simulate.command("traffic")
@click.option("--topology", required=True, metavar="SPEC",
              help="torus:8x8, mesh:4x4, hypercube:6, fattree:k=4,n=3,"
                   " clos:radix=8,levels=2, xgft:m=4x4x4,w=1x4x4, rail:rails=4,m=8x8,w=1x8,"
                   " dragonfly:p=2,a=4,h=2 or"
                   " slimfly:q=5.")
@click.option("--routing", default=None, metavar="NAME",
              help="dor (grids); random or dmodk (fat trees: up port at random per router,"
                   " as BookSim's nca, or SimGrid's d-mod-k); min, valiant, ugal (BookSim's"
                   " rule) or ugal-hops (UGAL-L, queue x hops) (dragonfly); min (slim fly)"
                   " [default: the first].")
@click.option("--global-wiring", type=click.Choice(GLOBAL_WIRINGS), default=None,
              help="Dragonfly inter-group wiring: relative (group G's slot s to group"
                   " G+s+1) or absolute (BookSim's: slot s to group s, or s+1 from s = G)"
                   " [default: relative].")
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
                   " links), nudt (the NUDT paper's: 8 VCs x 300 flits, 4 one-cycle"
                   " stages, 50-cycle links, 5-cycle endpoint links) or booksim (BookSim2's"
                   " iq router: 4 VCs x 8 flits, 4 one-cycle stages, iSLIP allocation,"
                   " its torus VC classes and random k/2 ties); the options below override"
                   " single values.")
@click.option("--machine", "machine_name", default=None, metavar="NAME|FILE",
              help="Take the router's VCs, buffer, allocator, arbiter and internal speedup"
                   " from this machine's network keys (over --router; the options below"
                   " override them).")
@click.option("--vcs", type=int, default=None,
              help="VCs per port (dragonfly: >= 2 for min, 3 for ugal, 6 for valiant /"
                   " ugal-hops).")
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
@click.option("--global-link-delay", type=int, default=None,
              help="Latency of a dragonfly's inter-group links, cycles [default:"
                   " --link-delay].")
@click.option("--terminal-delay", type=int, default=None,
              help="Endpoint-router link latency, cycles.")
@click.option("--packet-flits", type=int, default=None, help="Flits per packet (wormhole).")
@click.option("--arbiter", type=click.Choice(ARBITERS), default=None,
              help="Separable allocators' priority: rotating, or oldest first.")
@click.option("--allocator", type=click.Choice(ALLOCATORS), default=None,
              help="separable (icnperf's router) or islip (BookSim2's iq router: iSLIP VC"
                   " and switch allocation, its stage and channel timing).")
@click.option("--internal-speedup", type=float, default=None, metavar="S",
              help="Internal steps per cycle of the islip router, as BookSim's"
                   " internal_speedup [default: 1.0].")
@click.option("--dateline", type=click.Choice(DATELINES), default=None,
              help="Torus VC classes: crossing (upper half after the wraparound link) or"
                   " dimension (BookSim's: one half per dimension, chosen on entering it).")
@click.option("--ring-ties", type=click.Choice(RING_TIES), default=None,
              help="Torus direction at a distance of exactly k/2: plus, or random"
                   " (BookSim's).")
@click.option("--warmup", type=Count(), default=10_000, show_default=True,
              help="Warm-up cycles.")
@click.option("--measure", type=Count(), default=5_000, show_default=True,
              help="Measurement window, cycles.")
@click.option("--drain", type=Count(), default=5_000, show_default=True,
              help="Most drain cycles after the window.")
@click.option("--seed", type=click.IntRange(min=0, max=MAX_SEED), default=0,
              show_default=True, help="Random seed, >= 0 (the first one with --seeds).")
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
def simulate_traffic(topology: str, routing: str | None, global_wiring: str | None,
                     traffic: str, hotspot_fraction: float | None,
                     hotspot_nodes: int | None, rates: str, router_preset: str,
                     machine_name: str | None, vcs: int | None, buffer: int | None,
                     router_delay: int | None,
                     routing_delay: int | None, vc_alloc_delay: int | None,
                     switch_alloc_delay: int | None, switch_traversal_delay: int | None,
                     link_delay: int | None, global_link_delay: int | None,
                     terminal_delay: int | None, packet_flits: int | None,
                     arbiter: str | None, allocator: str | None,
                     internal_speedup: float | None, dateline: str | None,
                     ring_ties: str | None, warmup: int, measure: int, drain: int,
                     seed: int, seeds: int, scheduler: str, workers: int | None,
                     progress: bool | None, fmt: str, output: str | None,
                     force: bool, wide: bool) -> None:
    """Simulated latency and accepted throughput per injection rate, next to the
    closed-form zero-load latency, saturation bound and queueing estimate."""
    from icnperf.api import simulate_traffic as simulated

    result = simulated(topology=topology, routing=routing, global_wiring=global_wiring,
                       traffic=traffic, hotspot_fraction=hotspot_fraction,
                       hotspot_nodes=hotspot_nodes, rates=rates, router=router_preset,
                       machine=machine_name,
                       vcs=vcs, buffer=buffer, router_delay=router_delay,
                       routing_delay=routing_delay, vc_alloc_delay=vc_alloc_delay,
                       switch_alloc_delay=switch_alloc_delay,
                       switch_traversal_delay=switch_traversal_delay, link_delay=link_delay,
                       global_link_delay=global_link_delay, terminal_delay=terminal_delay,
                       packet_flits=packet_flits, arbiter=arbiter, allocator=allocator,
                       internal_speedup=internal_speedup, dateline=dateline,
                       ring_ties=ring_ties, warmup=warmup, measure=measure, drain=drain,
                       seed=seed, seeds=seeds, scheduler=scheduler, workers=workers,
                       progress=progress, budget_format=fmt)
    emit(result.render(fmt, wide), output, force)


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
@click.option("--api", type=click.Choice(APIS), default="mpi",
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
    from icnperf.api import simulate_collective as simulated

    result = simulated(machine_name, operation, set=overrides, nodes=nodes, bytes=sizes,
                       algorithm=algorithm, api=api, budget_format=fmt)
    emit(result.render(fmt, wide), output, force)
