"""The closed forms checked against the embedded flit-level simulator (validation/flitsim),
and the NUDT paper's qualitative simulation findings (Jiang et al.).

The simulator knows topologies, routing and router micro-architecture, never the formulas,
so each claim sets a simulated value (the ``measured`` side) against the model's
prediction. The router is the simulator's default: input-queued, 2 VCs x 8 flits per
port (6 VCs on the dragonfly: its routing needs hop-index classes), 1-flit packets, every
pipeline stage and link 1 cycle, oldest-first allocation. Runs use the NUDT setup
(Jiang et al.): 10,000 warm-up, 5,000 measured and up to 5,000 drain cycles.

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
* uniform saturation throughput against the closed-form saturation estimate
  (model/topology/saturation.py for the simulated default router; docs/saturation.md) on
  the 8x8, 4x4x4 and 8x8x8 tori, all predicted: nothing in the estimate was fitted to
  these runs (it replaced η = 0.67, which had been calibrated on the 8x8 case; issue #32
  made that case a prediction); ±15 %, the issue's band for the estimate;
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
  dragonfly, read as UGAL accepting at least :data:`MARGIN` (2 %) more than MIN at offered
  load 1 in each of seeds 1-3 (the margin these claims stated when first registered,
  4bae8bd): under group-adversarial traffic, where minimal routing funnels a group's
  traffic through one global link (about 2x: pass); under the paper's heavier uniform +
  hotspot mix, a hot region of 10 % of the endpoints (Fig. 8b), and under its lighter one,
  2 % (Fig. 8a, where the paper itself sees "little difference", which is registered too as
  a second reading of that case). The hot region is endpoints 0 .. h-1, inside group 0.
  Both hotspot mixes miss the margin and are known discrepancies whose analysis is the
  ejection bound: the hot endpoints' ejection channels accept at most 1 flit/cycle, which
  caps every routing's accepted throughput at 1 / ((1 - f) + f N / h) flits/endpoint/cycle
  (f = 10 % of the packets to the h hot endpoints of N; the sources' injection queues wait
  behind their hot packets). With h = 1 (2 %) that is 0.123, 5x below where any global
  link saturates, so routing cannot matter: the analysis expects a UGAL/MIN ratio of 1,
  and the per-seed ratios scatter around it by the seed noise. With h = 7 (10 %) it is
  0.519, only 17 % below where minimal routing's one global link from each group into the
  hot group saturates (0.625); UGAL relieves only that second limit, so it stays ahead in
  every seed, by less than the margin in some. UGAL here is the simulator's ``ugal-hops``
  (UGAL-L: queue x hops; BookSim's own rule, ``ugal``, never diverts with these 8-flit
  buffers) and MIN uses BookSim's two phase classes.

Seed noise of the UGAL/MIN ratio, measured over seeds 4-23 (held apart from the checked
seeds 1-3): 2 % region mean 1.000, s.d. 1.9 % (0.958-1.028); 10 % region mean 1.022, s.d.
1.0 % (1.005-1.045). :data:`NOISE_2PCT` (two s.d.) is the tolerance around the analysis's
ratio of 1 for the 2 % region.

Kinds: every claim is ``predicted``.
"""

from __future__ import annotations

from functools import lru_cache

from icnperf.model import network
from icnperf.validation.claim import Claim

SOURCE = "flit-level simulator (validation/flitsim) vs closed forms"
NUDT_SOURCE = "NUDT topologies paper (Jiang et al.), simulation findings; flit-level simulator"
WINDOWS = {"warmup": 10_000, "measure": 5_000, "drain": 5_000}
"""Warm-up / measurement / drain cycles (the NUDT simulator's, Jiang et al.)."""
LOW_RATE = 0.02
"""Offered load (flits/endpoint/cycle) of the zero-load runs."""
SEED = 1
ROUTING_SEEDS = (1, 2, 3)
"""Seeds of the UGAL-vs-MIN comparisons: the order must hold for each."""
ZERO_LOAD = ("torus:8x8", "torus:4x4x4", "fattree:k=4,n=3", "dragonfly:p=2,a=4,h=2")
SATURATION = tuple((spec, pattern) for spec in ("torus:8x8", "torus:4x4x4")
                   for pattern in ("uniform", "tornado", "bit-complement"))
ESTIMATE = ("torus:8x8", "torus:4x4x4", "torus:8x8x8")
"""Tori whose uniform saturation is set against the saturation estimate."""
ESTIMATE_TOLERANCE = 0.15
"""Relative tolerance of the saturation estimates (issue #32's band)."""
COLLECTIVE_MACHINE = "angara-3d"
COLLECTIVE_SHAPES = ((2, 2, 2), (4, 4, 4), (8, 8, 8))
COLLECTIVES = (("broadcast", "hw-tree", 256), ("allgather", "recursive-doubling", 4096))
"""(operation, algorithm, bytes) of the collective cross-checks (all-gather: the whole
gathered vector)."""
DRAGONFLY = "dragonfly:p=2,a=4,h=2"
DRAGONFLY_GROUP = 8
"""Endpoints per group of DRAGONFLY (p·a = 2·4); 72 endpoints in 9 groups."""
HOT_TRAFFIC = 0.1
"""Fraction of the packets sent to the hot region (the paper's X-10%-Z mixes)."""
HOTSPOTS = {"10pct": 0.1, "2pct": 0.02}
"""Hot regions of the NUDT paper's mixes (Jiang et al. Fig. 8b: 10 % of the endpoints; Fig.
8a: 2 %), keyed as the claim ids name them."""
MARGIN_FRACTION = 0.02
MARGIN = 1 + MARGIN_FRACTION
"""UGAL must accept at least this many times MIN's throughput, in each seed."""
NOISE_2PCT = 0.038
"""Two standard deviations of the per-seed UGAL/MIN ratio with the 2 % hot region, seeds
4-23 (module docstring)."""


def _router(spec: str):
    from icnperf.sim import RouterConfig

    return RouterConfig(vcs=6 if spec.startswith("dragonfly") else 2, buffer=8,
                        arbiter="age")


@lru_cache(maxsize=None)
def simulated(spec: str, pattern: str, rate: float, routing: str | None = None,
              hotspot: str | None = None, seed: int = SEED):
    """One simulator run (SimResult), cached for the claims that share it; ``hotspot`` names
    a hot region of :data:`HOTSPOTS`."""
    from icnperf.sim import network_from_spec, simulate

    options = (None if hotspot is None else
               {"hotspot_traffic": HOT_TRAFFIC, "hotspot_nodes": HOTSPOTS[hotspot]})
    return simulate(network_from_spec(spec, routing), pattern, rate, _router(spec),
                    seed=seed, traffic_options=options, **WINDOWS)


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


def saturation_estimate(spec: str) -> float:
    """The closed-form saturation estimate (flits/endpoint/cycle) of the simulated router
    under uniform traffic (closed_forms.uniform_estimate)."""
    from icnperf.validation.closed_forms import uniform_estimate

    return uniform_estimate(spec, None, _router(spec))


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


def ugal_over_min(pattern: str, hotspot: str | None = None) -> list[float]:
    """UGAL's accepted throughput over MIN's at offered load 1, for each of ROUTING_SEEDS."""
    return [simulated(DRAGONFLY, pattern, 1.0, "ugal-hops", hotspot, seed).accepted
            / simulated(DRAGONFLY, pattern, 1.0, "min", hotspot, seed).accepted
            for seed in ROUTING_SEEDS]


def hotspot_bounds(region: str, endpoints: int = 72, group: int = DRAGONFLY_GROUP
                   ) -> tuple[int, float, float]:
    """(hot endpoints h, ejection bound, MIN's global-link bound) in flits/endpoint/cycle
    for DRAGONFLY under the hotspot mix (module docstring). The hot region is endpoints
    0 .. h-1 (h = max(1, round(fraction N)), inside group 0); the global link from another
    group into group 0 carries, per unit of offered load, the group's uniform traffic to
    group 0 plus its traffic to the hot endpoints inside group 0."""
    hot = max(1, round(HOTSPOTS[region] * endpoints))
    ejection = 1 / ((1 - HOT_TRAFFIC) + HOT_TRAFFIC * endpoints / hot)
    into_group = group * ((1 - HOT_TRAFFIC) * group / endpoints
                          + HOT_TRAFFIC * min(hot, group) / hot)
    return hot, ejection, 1 / into_group


def _hotspot_reason(region: str) -> str:
    hot, ejection, global_bound = hotspot_bounds(region)
    ratios = ", ".join(f"{r:.3f}" for r in ugal_over_min("hotspot", region))
    first = {r: simulated(DRAGONFLY, "hotspot", 1.0, r, region, ROUTING_SEEDS[0]).accepted
             for r in ("min", "ugal-hops")}
    head = (f"with {hot} hot endpoint{'s' if hot > 1 else ''} the hot ejection channels cap "
            f"every routing at {ejection:.3f} flits/endpoint/cycle (MIN {first['min']:.3f}, "
            f"UGAL {first['ugal-hops']:.3f} at seed {ROUTING_SEEDS[0]}); minimal routing's global "
            f"links into the hot group saturate at {global_bound:.3f}")
    if region == "2pct":
        return (head + f", {global_bound / ejection:.0f}x higher, so routing cannot matter "
                f"and the analysis expects a UGAL/MIN ratio of 1; per seed it is {ratios} "
                f"(seeds {ROUTING_SEEDS[0]}-{ROUTING_SEEDS[-1]}), within the seed noise "
                f"(s.d. 1.9 % over seeds 4-23) of 1")
    return (head + f", only {100 * (global_bound / ejection - 1):.0f} % higher; UGAL relieves "
            f"only that second limit, so the analysis expects it ahead (ratio >= 1) but by "
            f"little: per seed {ratios} (seeds {ROUTING_SEEDS[0]}-{ROUTING_SEEDS[-1]}; mean "
            f"1.022, s.d. 1.0 % over seeds 4-23)")


ZERO_LOAD_REASON = (
    "2 %, issue #6's band, set before these runs: at 2 % offered load the queueing the "
    "closed form leaves out is about ρ/(2(1-ρ)) = 0.01 cycles per channel (M/D/1)")
BOUND_REASON = (
    "2 %, issue #6's statistical allowance: a simulated throughput more than 2 % above the "
    "channel-load bound is a bug, within it the noise of 5,000 measured cycles")
ESTIMATE_REASON = (
    "±15 %, issue #32's band for the saturation estimate, set before these runs were "
    "compared; the simulator's own spread over seeds is about 1 %")
ESTIMATE_OPEN = {
    "torus:8x8x8": (
        "+15.4 % (0.551 against the simulated 0.478), just past the band when first "
        "compared; first suspected: head-of-line blocking compounding over the 6 hops of "
        "an 8x8x8 path, but 1-D rings of 1-8 mean hops keep 0.80-0.86 of their bound in "
        "the simulator, so hop count alone is not it; the 8x8x8 has both rings of 8 and "
        "three dimensions to turn between, the 8x8 only the one and the 4x4x4 only the "
        "other: not identified (docs/saturation.md, where it stops being right); nothing "
        "was changed to close it")}
ESTIMATE_OPEN_TOLERANCE = 0.30
COLLECTIVE_REASON = ("10 %, issue #6's band for collective completion, set before these "
                     "runs")
ORDER = "a statement of order: it holds (1) or not (0); no tolerance"
MARGIN_REASON = (
    "UGAL/MIN >= 1.02 in each seed, the 2 % margin these claims stated when first "
    "registered (4bae8bd); the per-seed ratio's s.d. over seeds 4-23 is 1.9 % (2 % hot "
    "region) and 1.0 % (10 %)")
LITTLE_REASON = (
    "'little difference' read as the complement of a win: every seed's UGAL/MIN ratio "
    "within the same 2 % margin of 1")
NOISE_REASON = (
    "two standard deviations of the per-seed UGAL/MIN ratio with the 2 % hot region, "
    "measured over seeds 4-23 (s.d. 1.9 %): the analysis expects 1 and each seed scatters "
    "around it")


def _farthest_from_one(values: list[float]) -> float:
    return max(values, key=lambda v: abs(v - 1))


def _seeds() -> str:
    return ", ".join(map(str, ROUTING_SEEDS))


def _claims() -> list[Claim]:
    out = []
    sim = dict(runs="simulation")
    for spec in ZERO_LOAD:
        out.append(Claim(
            f"flitsim-zero-load-{spec}", SOURCE,
            f"mean packet latency on {spec}, uniform traffic at {LOW_RATE} flits/endpoint/"
            "cycle (simulated) vs the zero-load closed form",
            lambda s=spec: simulated(s, "uniform", LOW_RATE).average_latency, "cycles",
            0.02, "relative", lambda s=spec: zero_load_prediction(s), **sim,
            kind="predicted", tolerance_reason=ZERO_LOAD_REASON))
    for spec, pattern in SATURATION:
        out.append(Claim(
            f"flitsim-saturation-bound-{spec}-{pattern}", SOURCE,
            f"simulated saturation throughput on {spec}, {pattern} traffic, never above the "
            "channel-load bound min(1, 1/γ_max) (predicted) by more than 2 %",
            lambda s=spec, p=pattern: saturation(s, p), "flits/endpoint/cycle", 0.02,
            "at-least", lambda s=spec, p=pattern: bound(s, p), **sim,
            kind="predicted", tolerance_reason=BOUND_REASON))
    for spec in ESTIMATE:
        out.append(Claim(
            f"flitsim-saturation-estimate-{spec}-uniform", SOURCE,
            f"simulated saturation throughput on {spec}, uniform traffic, default router"
            " (2 VCs x 8 flits, separable allocator, age), vs the closed-form saturation"
            " estimate (docs/saturation.md)",
            lambda s=spec: saturation(s, "uniform"), "flits/endpoint/cycle",
            ESTIMATE_TOLERANCE, "relative", lambda s=spec: saturation_estimate(s),
            **sim, kind="predicted", tolerance_reason=ESTIMATE_REASON,
            **({"open_reason": ESTIMATE_OPEN[spec],
                "open_tolerance": ESTIMATE_OPEN_TOLERANCE} if spec in ESTIMATE_OPEN else {})))
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
                    predicted_collective(sh, o, a, m), **sim,
                kind="predicted", tolerance_reason=COLLECTIVE_REASON))
    out.append(Claim(
        "flitsim-nudt-higher-dimension-torus-better", NUDT_SOURCE,
        "4x4x4 torus beats 8x8 (64 endpoints each): higher simulated uniform saturation "
        "throughput and lower zero-load latency",
        1, "holds", 0, "ordering", _higher_dimension_better, **sim,
        kind="predicted", tolerance_reason=ORDER))
    out.append(Claim(
        "flitsim-nudt-ugal-beats-min-adversarial", NUDT_SOURCE,
        f"UGAL/MIN accepted throughput on {DRAGONFLY} at offered load 1, the smallest over "
        f"seeds {_seeds()}, bit-complement (group-adversarial) traffic: at least {MARGIN}",
        MARGIN, "UGAL/MIN", 0, "at-least", lambda: min(ugal_over_min("bit-complement")),
        **sim, kind="predicted", tolerance_reason=MARGIN_REASON))
    out.append(Claim(
        "flitsim-nudt-ugal-beats-min-hotspot", NUDT_SOURCE + ", Fig. 8b",
        f"UGAL/MIN accepted throughput on {DRAGONFLY} at offered load 1, the smallest over "
        f"seeds {_seeds()}, uniform + hotspot mix (10 % of packets to a hot region of 10 % "
        f"of the endpoints): at least {MARGIN}",
        MARGIN, "UGAL/MIN", 0, "at-least", lambda: min(ugal_over_min("hotspot", "10pct")),
        discrepancy=lambda: _hotspot_reason("10pct"), expected=1.0, **sim,
        kind="predicted", tolerance_reason=MARGIN_REASON))
    out.append(Claim(
        "flitsim-nudt-ugal-beats-min-hotspot-2pct", NUDT_SOURCE + " (conclusion), Fig. 8a",
        f"UGAL/MIN accepted throughput on {DRAGONFLY} at offered load 1, the smallest over "
        f"seeds {_seeds()}, uniform + hotspot mix (10 % of packets to a hot region of 2 % "
        f"of the endpoints): at least {MARGIN}",
        MARGIN, "UGAL/MIN", 0, "at-least", lambda: min(ugal_over_min("hotspot", "2pct")),
        discrepancy=lambda: _hotspot_reason("2pct"), expected=1.0,
        expected_tolerance=NOISE_2PCT, expected_tolerance_reason=NOISE_REASON, **sim,
        kind="predicted", tolerance_reason=MARGIN_REASON))
    out.append(Claim(
        "flitsim-nudt-ugal-min-little-difference-2pct", NUDT_SOURCE + ", Fig. 8a text",
        f"UGAL/MIN accepted throughput on {DRAGONFLY} at offered load 1, the seed farthest "
        f"from 1 of {_seeds()}, 2 % hot region mix: 'little difference', within "
        f"{MARGIN_FRACTION:.0%} of 1",
        1.0, "UGAL/MIN", MARGIN_FRACTION, "relative",
        lambda: _farthest_from_one(ugal_over_min("hotspot", "2pct")),
        discrepancy=lambda: _hotspot_reason("2pct"), expected=1.0,
        expected_tolerance=NOISE_2PCT, expected_tolerance_reason=NOISE_REASON, **sim,
        kind="predicted", tolerance_reason=LITTLE_REASON))
    return out


CLAIMS = _claims()
