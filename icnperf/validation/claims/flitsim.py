"""The closed forms checked against the embedded flit-level simulator (validation/flitsim),
and the NUDT paper's qualitative simulation findings (seeds/002).

The simulator knows topologies, routing and router micro-architecture, never the formulas,
so each claim sets a simulated value (the ``measured`` side) against the model's
prediction. The router is the simulator's default: input-queued, 2 VCs x 8 flits per
port (6 VCs on the dragonfly: its routing needs hop-index classes), 1-flit packets, every
pipeline stage and link 1 cycle, oldest-first allocation. Runs use the NUDT setup
(seeds/002): 10,000 warm-up, 5,000 measured and up to 5,000 drain cycles.

* zero-load latency at 2 % offered load against
  ``network.path_latency(H)`` = 2 t_terminal + (H + 1) t_router + H t_link cycles, H the
  model's mean router-to-router hop count under uniform traffic (self included:
  average distance x (N-1)/N); within 2 %;
* saturation throughput (accepted flits/endpoint/cycle at an offered load of 1) under
  uniform, tornado and bit-complement traffic on tori: never more than 2 % above the
  channel-load bound min(1, 1/γ_max) (kind ``at-least``: the bound must be at least the
  simulated value); tornado and bit-complement reach it (a fixed permutation gives the
  allocators no conflicts beyond the channel load itself), uniform traffic falls short:
  head-of-line blocking in the input queues, two VCs split into dateline classes, 8-flit
  buffers, one allocation iteration per cycle;
* uniform saturation throughput against the router-efficiency estimate η·bound,
  η = ``network.ROUTER_EFFICIENCY``, calibrated on the 8x8 torus only and held out on
  4x4x4 and 8x8x8; the ±25 % tolerance was set from the issue's "half to three quarters
  of the bound" before the held-out cases were run;
* one collective on the Angara collective subnet's simulator (validation/flitsim/
  collective.py) against model/collectives on angara-3d reshaped to 2x2x2, 4x4x4 and
  8x8x8 (MPI software overhead; the machine's parameters become cycles through
  validation/fabric.py): the hardware-tree broadcast of one 256-byte packet (the Fig. 7
  test) and the recursive-doubling all-gather of a 4 KiB vector, each within 10 %. Larger
  all-gathers run above the formula's fair B_link / c link sharing where a channel is
  shared and there is one VC per dateline class (a VC held by a packet whose flits arrive
  slowly idles a shared link): 32 KiB on the preset is +0.4 % on 4x4x4 (its split ties
  share no channel) and +19 % on 8x8x8, +3.5 % with two VCs per class; with + ties and an
  8 GB/s host rate, +17 % and +33 % (tests/validation/test_flitsim_collective.py);
* NUDT findings: the higher-dimensional torus is better at equal size (4x4x4 against 8x8:
  higher uniform saturation throughput and lower zero-load latency); UGAL beats MIN on a
  dragonfly when minimal routing funnels traffic through one global link (group-
  adversarial: about 2x) and, by a small margin (1.0-2.5 % over seeds 1-4; UGAL here is
  sim routing ``ugal-hops``, UGAL-L, MIN has BookSim's two phase classes), under the
  paper's heavier uniform + hotspot mix (a hot region of 10 % of the endpoints, Fig. 8b),
  where the hot endpoints' ejection channels and minimal routing's global links into the
  hot groups saturate at about the same load. With a 2 % region (Fig. 8a, "little
  difference" in the paper) the hot endpoints' ejection limits both routings and MIN
  accepts about 6 % more; that case is not registered.
"""

from __future__ import annotations

from functools import lru_cache

from icnperf.model import network
from icnperf.model.network import ROUTER_EFFICIENCY, router_efficiency
from icnperf.validation.claim import Claim

SOURCE = "flit-level simulator (validation/flitsim) vs closed forms"
NUDT_SOURCE = "NUDT topologies paper (seeds/002), simulation findings; flit-level simulator"
WINDOWS = {"warmup": 10_000, "measure": 5_000, "drain": 5_000}
"""Warm-up / measurement / drain cycles (the NUDT simulator's, seeds/002)."""
LOW_RATE = 0.02
"""Offered load (flits/endpoint/cycle) of the zero-load runs."""
SEED = 1
ROUTING_SEEDS = (1, 2, 3)
"""Seeds of the UGAL-vs-MIN comparisons: the order must hold for each."""
ZERO_LOAD = ("torus:8x8", "torus:4x4x4", "fattree:k=4,n=3", "dragonfly:p=2,a=4,h=2")
SATURATION = tuple((spec, pattern) for spec in ("torus:8x8", "torus:4x4x4")
                   for pattern in ("uniform", "tornado", "bit-complement"))
EFFICIENCY = ("torus:8x8", "torus:4x4x4", "torus:8x8x8")
"""Tori whose uniform saturation is set against η·bound (the first is the calibration)."""
CALIBRATION = ("torus:8x8", "uniform")
"""The one case ``network.ROUTER_EFFICIENCY`` was calibrated on."""
EFFICIENCY_TOLERANCE = 0.25
"""Relative tolerance of the held-out router-efficiency estimates (see the docstring)."""
COLLECTIVE_MACHINE = "angara-3d"
COLLECTIVE_SHAPES = ((2, 2, 2), (4, 4, 4), (8, 8, 8))
COLLECTIVES = (("broadcast", "hw-tree", 256), ("allgather", "recursive-doubling", 4096))
"""(operation, algorithm, bytes) of the collective cross-checks (all-gather: the whole
gathered vector)."""
DRAGONFLY = "dragonfly:p=2,a=4,h=2"
HOTSPOT = {"hotspot_traffic": 0.1, "hotspot_nodes": 0.1}
"""The NUDT paper's heavier mix (seeds/002 Fig. 8b, X-10%-10%): 10 % of the packets to a hot
region of 10 % of the endpoints, where the paper sees UGAL ahead (with a 2 % region, Fig.
8a, it sees little difference)."""


def _router(spec: str):
    from icnperf.sim import RouterConfig

    return RouterConfig(vcs=6 if spec.startswith("dragonfly") else 2, buffer=8,
                        arbiter="age")


@lru_cache(maxsize=None)
def simulated(spec: str, pattern: str, rate: float, routing: str | None = None,
              hotspot: bool = False, seed: int = SEED):
    """One simulator run (SimResult), cached for the claims that share it."""
    from icnperf.sim import network_from_spec, simulate

    return simulate(network_from_spec(spec, routing), pattern, rate, _router(spec),
                    seed=seed, traffic_options=HOTSPOT if hotspot else None, **WINDOWS)


@lru_cache(maxsize=None)
def _metrics(spec: str):
    from icnperf.model.topology.spec import parse_spec

    return parse_spec(spec).evaluate()


def zero_load_prediction(spec: str) -> float:
    """The model's zero-load latency (cycles) of the simulated router under uniform traffic."""

    metrics = _metrics(spec)
    n = float(metrics.endpoints)
    hops = float(metrics.average_distance) * (n - 1) / n
    router = _router(spec)
    return float(network.path_latency(
        hops, injection_latency=router.terminal_delay, ejection_latency=router.terminal_delay,
        router_latency=router.router_delay, link_latency=router.link_delay))


def bound(spec: str, pattern: str) -> float:
    """The channel-load bound min(1, 1/γ_max), flits/endpoint/cycle."""
    from icnperf.model import network

    return float(network.saturation_load(float(_metrics(spec).channel_load[pattern])))


def saturation(spec: str, pattern: str) -> float:
    """Simulated saturation throughput: accepted flits/endpoint/cycle at offered load 1."""
    return float(simulated(spec, pattern, 1.0).accepted)


@lru_cache(maxsize=None)
def _collective_machine(shape: tuple[int, ...]):
    from icnperf.data.machine import load_machine

    return load_machine(COLLECTIVE_MACHINE).with_overrides(
        ["topology=torus:" + "x".join(map(str, shape))])


@lru_cache(maxsize=None)
def simulated_collective(shape: tuple[int, ...], operation: str, algorithm: str,
                         size: float) -> float:
    """Simulated completion time (s) of one collective on the reshaped machine."""
    from icnperf.validation.fabric import fabric_config
    from icnperf.sim.collective import simulate_collective

    config, cycle = fabric_config(_collective_machine(shape), "mpi")
    run = simulate_collective(shape, operation, size, config, algorithm)
    if not run.complete or run.duplicates:
        raise RuntimeError(f"flitsim: {operation} on {shape} lost or duplicated data")
    return run.cycles * cycle


def predicted_collective(shape: tuple[int, ...], operation: str, algorithm: str,
                         size: float) -> float:
    """The model's completion time (s): model.collectives.collective_time."""
    from icnperf.model.collectives import Layout, collective_time

    result = collective_time(_collective_machine(shape), operation, algorithm, [size],
                             layout=Layout.torus(shape), api="mpi")
    return float(result.time[0])


def _higher_dimension_better() -> float:
    better_throughput = saturation("torus:4x4x4", "uniform") > saturation("torus:8x8",
                                                                          "uniform")
    lower_latency = (simulated("torus:4x4x4", "uniform", LOW_RATE).average_latency
                     < simulated("torus:8x8", "uniform", LOW_RATE).average_latency)
    return 1.0 if better_throughput and lower_latency else 0.0


def _ugal_beats_min(pattern: str, hotspot: bool = False) -> float:
    """1 if UGAL accepts more than MIN at offered load 1 for every seed of ROUTING_SEEDS."""
    wins = [simulated(DRAGONFLY, pattern, 1.0, "ugal-hops", hotspot, seed).accepted
            > simulated(DRAGONFLY, pattern, 1.0, "min", hotspot, seed).accepted
            for seed in ROUTING_SEEDS]
    return 1.0 if all(wins) else 0.0


def _claims() -> list[Claim]:
    out = []
    for spec in ZERO_LOAD:
        out.append(Claim(
            f"flitsim-zero-load-{spec}", SOURCE,
            f"mean packet latency on {spec}, uniform traffic at {LOW_RATE} flits/endpoint/"
            "cycle (simulated) vs the zero-load closed form",
            lambda s=spec: simulated(s, "uniform", LOW_RATE).average_latency, "cycles",
            0.02, "relative", lambda s=spec: zero_load_prediction(s), kind="simulation"))
    for spec, pattern in SATURATION:
        out.append(Claim(
            f"flitsim-saturation-bound-{spec}-{pattern}", SOURCE,
            f"simulated saturation throughput on {spec}, {pattern} traffic, never above the "
            "channel-load bound min(1, 1/γ_max) (predicted) by more than 2 %",
            lambda s=spec, p=pattern: saturation(s, p), "flits/endpoint/cycle", 0.02,
            "at-least", lambda s=spec, p=pattern: bound(s, p), kind="simulation"))
    for spec in EFFICIENCY:
        role = ("calibration point" if (spec, "uniform") == CALIBRATION else "held out")
        out.append(Claim(
            f"flitsim-router-efficiency-{spec}-uniform", SOURCE,
            f"simulated saturation throughput on {spec}, uniform traffic, vs the router-"
            f"efficiency estimate η·bound, η = {ROUTER_EFFICIENCY} ({role})",
            lambda s=spec: saturation(s, "uniform"), "flits/endpoint/cycle",
            EFFICIENCY_TOLERANCE, "relative",
            lambda s=spec: float(network.saturation_load(
                float(_metrics(s).channel_load["uniform"]), router_efficiency("uniform"))),
            kind="simulation"))
    for shape in COLLECTIVE_SHAPES:
        name = "x".join(map(str, shape))
        for operation, algorithm, size in COLLECTIVES:
            out.append(Claim(
                f"flitsim-{operation}-{algorithm}-{name}", SOURCE,
                f"{algorithm} {operation} of {size} B on {COLLECTIVE_MACHINE} as a {name} "
                "torus: simulated completion vs model/collectives",
                lambda sh=shape, o=operation, a=algorithm, m=size:
                    simulated_collective(sh, o, a, m), "s", 0.10, "relative",
                lambda sh=shape, o=operation, a=algorithm, m=size:
                    predicted_collective(sh, o, a, m), kind="simulation"))
    out.append(Claim(
        "flitsim-nudt-higher-dimension-torus-better", NUDT_SOURCE,
        "4x4x4 torus beats 8x8 (64 endpoints each): higher simulated uniform saturation "
        "throughput and lower zero-load latency",
        1, "holds", 0, "ordering", _higher_dimension_better, kind="simulation"))
    out.append(Claim(
        "flitsim-nudt-ugal-beats-min-adversarial", NUDT_SOURCE,
        f"UGAL accepts more than MIN on {DRAGONFLY} at offered load 1 for each of seeds "
        f"{', '.join(map(str, ROUTING_SEEDS))}, bit-complement (group-adversarial) traffic",
        1, "holds", 0, "ordering", lambda: _ugal_beats_min("bit-complement"),
        kind="simulation"))
    out.append(Claim(
        "flitsim-nudt-ugal-beats-min-hotspot", NUDT_SOURCE,
        f"UGAL accepts more than MIN on {DRAGONFLY} at offered load 1 for each of seeds "
        f"{', '.join(map(str, ROUTING_SEEDS))}, uniform + hotspot mix (10 % of packets to a "
        "hot region of 10 % of the endpoints, Fig. 8b)",
        1, "holds", 0, "ordering", lambda: _ugal_beats_min("hotspot", True),
        kind="simulation"))
    return out


CLAIMS = _claims()
