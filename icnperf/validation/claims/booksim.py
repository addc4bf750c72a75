"""The flit simulator against BookSim2, a reference cycle-accurate simulator: the public
reference runs (BookSim2 commit 28f4329, built unmodified), bundled as the measurement tables
``booksim-saturation-summary`` (zero-load latency and saturation per configuration) and
``booksim-uniform-runs`` (every completed run), whose sidecars list every router, channel,
traffic and routing parameter (docs/measurement-format.md).

Each configuration is simulated with the ``booksim`` router preset (sim/presets.py: its
iq router, 1-cycle stages, iSLIP allocation, its torus VC classes and random k/2 ties) and
the run's own channel latencies, VC count and buffer depth; nothing is fitted to these
rows. BookSim's values take the measured column, the simulator's the predicted one (the
reference is independent data). Per configuration:

* zero-load latency: mean packet latency at BookSim's lowest offered load (the summary's
  ``zero_load_latency_cycles``), within 5 %;
* saturation throughput taken as BookSim takes it: the largest accepted rate of the stable
  runs over offered loads and of an overload run at 1.0 (``sim.runs.saturation``: stable =
  every measured packet delivered, mean latency at most 500 cycles, BookSim's
  ``latency_thres``; loads on a 0.01 grid), within 15 %;
* mid-load latency at the reference load nearest half its saturation estimate, reported
  with a 10 % band (the issue judges only the two above; queueing is a few cycles of the
  latency there, so a 10 % miss would mean a stage or channel cycle is off).

Plus the order the reference shows: on the 8x8 torus saturation rises with the VC count
(2 < 4 < 8 < 16).

The tolerances are the issue's (#17): 5 % and 15 %. BookSim's own spread: seeds 1 and 2 of
the 4-VC torus give saturation 0.5183-0.5200 against 0.5173 for seed 0 (0.5 %), zero-load
31.17-31.20 (0.1 %). Held out (not here, same parameters): other tori, permutations, a
k-ary n-tree, UGAL and internal speedup on the dragonfly, multi-flit packets.

Runs: 5,000 warm-up, 5,000 measured and up to 5,000 drain cycles, seed 0 (BookSim ran
three sample periods of warm-up and sample periods until converged, 10,000 cycles each,
5,000 in its VC sensitivity runs; seed 0). The short windows keep ``validate`` within its
time (about 35 s of CPU for these claims, a saturation search taking about 8 runs);
10,000-cycle windows gave the same verdicts (largest error 2.8 %, the 8-VC saturation).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache

from icnperf.validation.claim import Claim

SOURCE = "BookSim2 reference runs (commit 28f4329), bundled table "
SUMMARY = "booksim-saturation-summary"
RUNS = "booksim-uniform-runs"
WINDOWS = {"warmup": 5_000, "measure": 5_000, "drain": 5_000, "seed": 0}
"""Warm-up / measurement / drain cycles and seed of every run."""
ZERO_LOAD_TOLERANCE = 0.05
SATURATION_TOLERANCE = 0.15
MID_LOAD_TOLERANCE = 0.10
REASONS = {
    "zero-load": "the issue's criterion for the witness (#17: zero-load latency within 5 %);"
                 " BookSim's own spread over seeds 0-2 of the 4-VC torus is 0.1 %",
    "saturation": "the issue's criterion for the witness (#17: saturation within 15 %);"
                  " BookSim's own spread over seeds 0-2 of the 4-VC torus is 0.5 %",
    "mid-load": "reported, not judged by the issue; 10 % flags a stage or channel cycle off"
                " (queueing is a few cycles of the latency at half the saturation load)",
    "ordering": "an order holds or not",
}
"""Why each tolerance is what it is."""


@dataclass(frozen=True)
class Configuration:
    """One public BookSim configuration as icnperf describes it: the topology spec, routing
    and wiring, VCs, buffer (flits) and channel latencies (cycles) of the tables' sidecars;
    ``experiment`` is the tables' experiment column."""

    name: str
    experiment: str
    spec: str
    routing: str | None
    vcs: int
    buffer: int
    link_delay: int
    global_link_delay: int | None
    global_wiring: str | None


@dataclass(frozen=True)
class Reference(Configuration):
    """A configuration and the figures BookSim2 gives for it (latencies in cycles, rates in
    flits/node/cycle, 1-flit packets): zero-load rate and latency and the saturation
    estimate from the summary table, the mid load and its latency from the run table."""

    zero_load_rate: float
    zero_load_latency: float
    saturation: float
    mid_rate: float
    mid_latency: float


CONFIGURATIONS = (
    Configuration("torus8x8-4vc", "a_torus_k8n2_uniform", "torus:8x8", None, 4, 8, 2, None,
                  None),
    Configuration("torus8x8-2vc", "a_torus_k8n2_uniform_vc_sensitivity", "torus:8x8", None,
                  2, 8, 2, None, None),
    Configuration("torus8x8-8vc", "a_torus_k8n2_uniform_vc_sensitivity", "torus:8x8", None,
                  8, 8, 2, None, None),
    Configuration("torus8x8-16vc", "a_torus_k8n2_uniform_vc_sensitivity", "torus:8x8", None,
                  16, 8, 2, None, None),
    Configuration("mesh8x8-4vc", "d_mesh_k8n2_uniform", "mesh:8x8", None, 4, 8, 1, None,
                  None),
    Configuration("dragonfly-p2-min", "f_dragonfly_p2_uniform_min", "dragonfly:p=2,a=4,h=2",
                  "min", 3, 256, 10, 100, "absolute"),
)
"""The public configurations (channel latencies: the sidecars' "Channels" note)."""


def _with_figures(config: Configuration, summary: list[dict], runs: list[dict]) -> Reference:
    """The configuration with its figures: its summary row (experiment, VCs) and, for the mid
    load, the seed-0 completed run at the offered load nearest half the saturation estimate
    (the first of two equally near)."""
    row = next(r for r in summary
               if r["experiment"] == config.experiment and r["num_vcs"] == config.vcs)
    saturation = float(row["saturation_throughput_estimate"])
    stable = [r for r in runs if r["experiment"] == config.experiment
              and r["num_vcs"] == config.vcs and r["seed"] == 0]
    mid = min(stable, key=lambda r: abs(r["injection_rate"] - saturation / 2))
    return Reference(**{f.name: getattr(config, f.name) for f in fields(Configuration)},
                     zero_load_rate=float(row["zero_load_rate"]),
                     zero_load_latency=float(row["zero_load_latency_cycles"]),
                     saturation=saturation, mid_rate=float(mid["injection_rate"]),
                     mid_latency=float(mid["avg_latency_cycles"]))


def _references() -> tuple[Reference, ...]:
    from icnperf.data.measurements.tables import load_table

    summary = load_table(SUMMARY).rows()
    runs = load_table(RUNS).rows()
    return tuple(_with_figures(c, summary, runs) for c in CONFIGURATIONS)


REFERENCES = _references()
"""The configurations with BookSim2's figures (mid load: the reference load nearest half
the saturation estimate; for 2 VCs that is its lowest load, 0.1)."""

VC_ORDER = ("torus8x8-2vc", "torus8x8-4vc", "torus8x8-8vc", "torus8x8-16vc")


def router(ref: Reference):
    """The ``booksim`` preset with the configuration's VCs, buffer and channel latencies."""
    from icnperf.sim import RouterConfig
    from icnperf.sim.presets import router_settings

    return RouterConfig(**router_settings("booksim", vcs=ref.vcs, buffer=ref.buffer,
                                          link_delay=ref.link_delay,
                                          global_link_delay=ref.global_link_delay))


@lru_cache(maxsize=None)
def _network(name: str):
    from icnperf.sim import network_from_spec

    ref = _reference(name)
    return network_from_spec(ref.spec, ref.routing, ref.global_wiring)


def _reference(name: str) -> Reference:
    return next(r for r in REFERENCES if r.name == name)


@lru_cache(maxsize=None)
def simulated(name: str, rate: float):
    """One simulator run of a configuration at an offered load (SimResult)."""
    from icnperf.sim import simulate

    ref = _reference(name)
    return simulate(_network(name), "uniform", rate, router(ref), **WINDOWS)


@lru_cache(maxsize=None)
def simulated_saturation(name: str) -> float:
    """Saturation throughput of a configuration, taken as BookSim takes it."""
    from icnperf.sim import saturation

    ref = _reference(name)
    return saturation(_network(name), "uniform", router(ref), **WINDOWS).throughput


def _rises_with_vcs() -> float:
    values = [simulated_saturation(name) for name in VC_ORDER]
    return 1.0 if all(a < b for a, b in zip(values, values[1:])) else 0.0


def _claim(*fields_, reason: str) -> Claim:
    """A simulation claim, predicted (nothing is fitted to BookSim's rows), with its
    tolerance's reason: for the registry that records what a claim runs (``runs``), its
    kind and its reason (issue #21), or the one before it, whose ``kind`` was what it ran."""
    if "runs" in {f.name for f in fields(Claim)}:
        return Claim(*fields_, runs="simulation", kind="predicted", tolerance_reason=reason)
    return Claim(*fields_, kind="simulation")


def _claims() -> list[Claim]:
    out = []
    for ref in REFERENCES:
        where = f"{SOURCE}{SUMMARY} and {RUNS}, experiment {ref.experiment}"
        out.append(_claim(
            f"booksim-{ref.name}-zero-load", where,
            f"mean packet latency on {ref.spec} ({ref.vcs} VCs x {ref.buffer} flits), uniform"
            f" traffic at {ref.zero_load_rate} flits/node/cycle: BookSim2 vs the simulator's"
            " booksim router",
            ref.zero_load_latency, "cycles", ZERO_LOAD_TOLERANCE, "relative",
            lambda n=ref.name, r=ref.zero_load_rate: simulated(n, r).average_latency,
            reason=REASONS["zero-load"]))
        out.append(_claim(
            f"booksim-{ref.name}-saturation", where,
            f"saturation throughput on {ref.spec} ({ref.vcs} VCs x {ref.buffer} flits),"
            " uniform traffic, largest accepted rate of the stable runs and of an overload"
            " run: BookSim2 vs the simulator's booksim router",
            ref.saturation, "flits/node/cycle", SATURATION_TOLERANCE, "relative",
            lambda n=ref.name: simulated_saturation(n), reason=REASONS["saturation"]))
        out.append(_claim(
            f"booksim-{ref.name}-mid-load", where,
            f"mean packet latency on {ref.spec} ({ref.vcs} VCs), uniform traffic at"
            f" {ref.mid_rate} flits/node/cycle (near half the saturation load): BookSim2 vs"
            " the simulator's booksim router (reported; a 10 % band)",
            ref.mid_latency, "cycles", MID_LOAD_TOLERANCE, "relative",
            lambda n=ref.name, r=ref.mid_rate: simulated(n, r).average_latency,
            reason=REASONS["mid-load"]))
    out.append(_claim(
        "booksim-torus8x8-saturation-rises-with-vcs", f"{SOURCE}{SUMMARY}",
        "8x8 torus, uniform traffic: saturation throughput rises with the VC count, 2 < 4 <"
        " 8 < 16 VCs (BookSim2: 0.26 / 0.52 / 0.66 / 0.72), in the simulator's booksim router",
        1, "holds", 0, "ordering", _rises_with_vcs, reason=REASONS["ordering"]))
    return out


CLAIMS = _claims()
