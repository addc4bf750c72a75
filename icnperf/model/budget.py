"""Work estimates: the memory and time a request will take, from its size alone, and the
check against the limits, made before any work starts.

Every command counts its work (output rows; ranks of the collective message mappings;
router-cycles of the simulator; designs of a sizing space; data rows of a fit), turns the
counts into bytes and seconds with the unit costs below, and calls :func:`check`, which
raises a one-line InputError naming the estimate, the limit and how to ask for less. The
limits arrive as a :class:`Limits` (:mod:`icnperf.data.limits` reads them from the
environment); :data:`DEFAULT_LIMITS` is 2 GB and 3 minutes.

Unit costs: measured with ``benchmarks/budget_costs.py`` on the project's 2-core machine
shared by up to 8 processes (load 2-5) and rounded up; an idle or faster machine finishes
sooner. An estimate is meant to be right within a factor of about two, which is what a
limit needs: a request that would take an hour or 40 GB is refused at once, one of a
minute runs. Memory counts the interpreter with NumPy (:data:`BASE_MEMORY`) plus the
request's own peak. Units: bytes, seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from icnperf.errors import InputError


@dataclass(frozen=True)
class Limits:
    """The most memory (bytes) and time (seconds) a request may be estimated to need, and
    the settings that raise them (named in refusals)."""

    memory: float = 2e9
    seconds: float = 180.0
    memory_setting: str = "ICNPERF_MAX_MEMORY"
    time_setting: str = "ICNPERF_MAX_SECONDS"


DEFAULT_LIMITS = Limits()
"""2 GB and 3 minutes: a laptop's share of memory, and a wait at a terminal."""


@dataclass(frozen=True)
class Estimate:
    """A request's estimated peak memory (bytes, the interpreter included) and wall time
    (seconds); ``work`` says what was counted ("19 node counts x 1,000,000 sizes"),
    ``narrow`` how to ask for less ("ask for fewer --bytes or --nodes values")."""

    work: str
    memory: float
    seconds: float
    narrow: str


def check(estimate: Estimate, limits: Limits = DEFAULT_LIMITS) -> Estimate:
    """``estimate`` when it is within ``limits``; otherwise an InputError of one line
    naming the estimate, the limit, how to narrow the request and how to raise the
    limit."""
    if not estimate.memory <= limits.memory:
        raise InputError(f"{estimate.work} would need about {_bytes(estimate.memory)} of"
                         f" memory, over the limit of {_bytes(limits.memory)};"
                         f" {estimate.narrow}, or raise {limits.memory_setting}")
    if not estimate.seconds <= limits.seconds:
        raise InputError(f"{estimate.work} would take about {_duration(estimate.seconds)},"
                         f" over the limit of {_duration(limits.seconds)};"
                         f" {estimate.narrow}, or raise {limits.time_setting}")
    return estimate


def _bytes(value: float) -> str:
    if not math.isfinite(value):
        return "unbounded"
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if value >= size:
            return f"{value / size:,.3g} {unit}".replace(",", "")
    return f"{value:.0f} B"


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "forever"
    for unit, size in (("days", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= 2 * size if unit == "days" else seconds >= size:
            return f"{seconds / size:,.3g} {unit}"
    return f"{seconds:.3g} s"


def count(value: float, noun: str | None = None) -> str:
    """A count for a message: ``1,000,000``, or with a noun ``1 size``, ``19 node counts``
    (the noun's plural adds an s)."""
    text = f"{value:,.0f}"
    if noun is None:
        return text
    return f"{text} {noun}" if value == 1 else f"{text} {noun}s"


# --- unit costs (benchmarks/budget_costs.py; measured, then rounded up) ------------------

BASE_MEMORY = 200e6
"""The interpreter with NumPy, icnperf and what a command imports (SciPy for a fit, the
simulator's compiled kernel, Plotly for a page): 34 MB after NumPy and a machine, up to
about 160 MB with the simulator or SciPy."""

ROW_MEMORY = {"table": 4e3, "json": 7e3, "csv": 3e3}
"""Peak bytes per result row (about ten numbers) while it is held, formatted and printed:
measured 3.2 kB (table), 5.9 kB (JSON), 2.0 kB (CSV) per predict p2p row, 20,000 rows."""

ROW_SECONDS = {"table": 250e-6, "json": 150e-6, "csv": 100e-6}
"""Seconds per result row, same measurement: 190 us (table), 109 us (JSON), 77 us (CSV)."""

MAPPING_SECONDS = {"binomial": 0.5e-6, "ring": 0.5e-6, "recursive-doubling": 2.5e-6,
                   "rabenseifner": 2.5e-6, "bruck": 4e-6}
"""Seconds per rank x log2(ranks) to map one step-by-step algorithm's message rounds onto
a layout (model.collectives.schedules): measured on a 131,072-node 3D torus, allreduce by
binomial 377 ns, recursive doubling 2.1 us, Rabenseifner 2.2 us; allgather by ring 168 ns
(ring broadcast adds a binomial scatter), Bruck 3.2 us; alltoall by Bruck 2.2 us. The
trees (hw-tree, p2p-tree) are closed forms and cost nothing per rank."""

ALL_ALGORITHMS_SECONDS = 4e-6
"""The same for every algorithm of one operation together (they share mapped rounds):
measured 0.35 us (broadcast) to 3.6 us (allgather) and 4.0 us (barrier) on 131,072 nodes;
71 s for allreduce on 2,097,152 nodes (1.6 us)."""

MAPPING_MEMORY_PER_RANK = 800.0
"""Peak bytes per rank while a layout's rounds are mapped on a 3D torus: measured 189 B
(binomial) to 785 B (Rabenseifner) on 131,072 nodes; 722 B for allreduce by every
algorithm on 2,097,152 nodes (1.44 GB)."""

MAPPING_BYTES_PER_DIMENSION = 60.0
"""Extra peak bytes per rank and torus dimension (coordinates and per-dimension loads):
recursive-doubling allreduce on 262,144 nodes took 0.20 GB as 64x64x64 and 0.37 GB as
2^18 (18 dimensions): about 40 B more per rank and dimension."""

REFERENCE_DIMENSIONS = 3
"""The dimension count the per-rank times above were measured on; dimension-order routing
walks every dimension, so a layout of d dimensions costs (d + 3) / 6 times as much
(measured 29.5 s for 18 dimensions against 4.7 s for 3, a factor 6.3; the formula gives
3.5, which the time costs' rounding up covers to within a factor of two)."""

RANDOM_PLACEMENT_FACTOR = 2.0
"""Extra mapping work of a random placement (each round maps ranks through a permutation
of the endpoints first)."""

REPORT_SECONDS = 1e-6
"""Seconds per rank x log2(ranks), summed over the node counts a machine report sweeps
(six operations, every algorithm, two applications), beyond :data:`REPORT_START_SECONDS`
(benchmarks/budget_costs.py ``report``, wall time, machine loaded ~8 on 2 cores, after
the structured counting of issue 28): 0.33 us on torus:64x64x64 (5.3 s, 16 node counts),
0.30 us on torus:96x96x96 (13.2 s), 0.82 us on Fugaku's 24x23x24x2x3x2 (8.1 s wall; 3.5 s
of CPU in benchmarks/full_scale.py), rounded up to cover Fugaku. Before that work the
constant was 2.5 us without a start (2.2 us measured on torus:32x32x32), which charged
Fugaku's report 17 s."""

REPORT_START_SECONDS = 3.0
"""Seconds of a machine report whatever its size (imports, the page, the validation and
tables): measured 2.4 s for angara-36 (36 nodes) in the same run, 3.6 s in issue 28's."""

SIMULATOR_SECONDS = 1e-6
"""Seconds per router-cycle of the flit simulator: measured 276 ns (8x8x8 torus, 0.2
flits/endpoint/cycle) to 764 ns (16x16 torus at 0.3) and 722 ns (fat tree k=4, n=3)."""

SIMULATOR_RUN_SECONDS = 2e-3
"""Seconds of each run beyond its cycles (state set up, statistics, its row): measured
about 1 ms (1,000 runs of 3 cycles on torus:4x4 in 2.7 s)."""

SIMULATOR_START_SECONDS = 3.0
"""Importing the simulator and loading its compiled kernel from the cache: measured
1.7 s (the first run after an install compiles it, about 10 s more)."""

DESIGN_MEMORY = 200.0
"""Peak bytes per design of a sizing space: measured 97 B per design through the whole
study (600,000 and 2,600,000 designs); 170 B per design listing 12.6 million."""

DESIGN_SECONDS = 10e-6
"""Seconds per design of a sizing space, screened: measured 3.3-7.8 us."""

FIT_ROW_MEMORY = 4e3
"""Peak bytes per data row of a fit (calibrate), read, fitted and its residual printed:
measured 3.4 kB (24,000 rows)."""

FIT_ROW_SECONDS = 300e-6
"""Seconds per data row of a fit: measured 221 us (24,000 rows; the residual table
about a third of it)."""


def rows_cost(rows: float, fmt: str) -> tuple[float, float]:
    """(bytes, seconds) of ``rows`` result rows in output format ``fmt``."""
    fmt = fmt if fmt in ROW_MEMORY else "table"
    return rows * ROW_MEMORY[fmt], rows * ROW_SECONDS[fmt]


def _rank_rounds(ranks: float) -> float:
    return ranks * math.log2(ranks) if ranks > 1 else 0.0


PAIRWISE_STEP_SECONDS = 2.5e-6
"""Seconds per rank per step of the pairwise all-gather or all-to-all mapped message by
message (P - 1 different shift or XOR steps of P messages, P (P - 1) message mappings in
all; model.collectives.fluid offers pairwise up to 4,096 ranks): measured 2.1 us
(allgather on a 16x16x16 torus, 4,095 steps in 35 s, machine load 6). Where the steps
are counted in structure (collectives.structured.counts_steps_in_structure: a whole
torus, crossbar, gdragonfly or dfplus, a fat tree with random up ports, part of a
gdragonfly, linear placement, any processes per node) they cost
:data:`STRUCTURED_STEP_SECONDS` each instead (on part of a gdragonfly a step costs more:
17 to 260 us measured, dragonfly.general_partial: :data:`PARTIAL_GROUP_ENDPOINT_SECONDS`)."""

STRUCTURED_STEP_SECONDS = 2e-6
"""Seconds per shift or XOR step counted in structure (model.topology.torus.patterns,
dragonfly.general_patterns and plus_patterns, collectives.network_steps, vectorised over
the steps), the CPU time predict collective alltoall --algorithm all gains when pairwise
runs, against main where it was left out: 0.75 us a step on Sequoia's 16x12x16x16x2 at
16 ranks a node (1,572,863 steps: 1.70 s against 0.53 s), 0.71 us on Fugaku's
24x23x24x2x3x2 at 4 (635,903 steps: 0.89 s against 0.44 s), 1.2 us on Aurora's
gdragonfly at 12 (127,487 steps: 0.64 s against 0.49 s), 0.7 us on LUMI at 128 (XOR
steps), machine load about 4. Charged 2 us. (5 us before, doubled from 2 us measured
when schedules merged every step's key: at 5 us Sequoia's whole-machine alltoall at 16
ranks a node was refused by the 3-minute default, 3.01 min estimated for a run of
under 2 s.)"""

PARTIAL_GROUP_ENDPOINT_SECONDS = 2e-6
"""Seconds a step counted on part of a gdragonfly costs beyond :data:`STRUCTURED_STEP_SECONDS`
per endpoint of one group (dragonfly.general_partial counts each step on one group of each
kind, its arrays a group's routers x a cells): the CPU time predict collective alltoall
--algorithm all gains when pairwise runs, against main where it was left out, per rank
step: Frontier (128 endpoints a group) 110 us at one rank a node (9,407 steps), Piz Daint
(384) 250 us, LUMI-G (128) 31 us at 8 ranks a node (steps of one node shift share their
groups), i.e. 0.86, 0.65 and 0.24 us an endpoint, load about 1.5. Charged 2 us an
endpoint: 2.3 to 8 times the measured cost."""


def counted_step_seconds(group_endpoints: int = 0) -> float:
    """Seconds charged per step counted in structure: :data:`STRUCTURED_STEP_SECONDS`, plus
    :data:`PARTIAL_GROUP_ENDPOINT_SECONDS` per endpoint of a group on part of a gdragonfly
    (``group_endpoints``, collectives.structured.partial_group_endpoints; 0 elsewhere)."""
    return STRUCTURED_STEP_SECONDS + PARTIAL_GROUP_ENDPOINT_SECONDS * group_endpoints


_QUADRATIC_OPERATIONS = ("allgather", "alltoall")


def _quadratic_steps(ranks: float, algorithms: Sequence[str], operation: str | None,
                     counted: bool = False) -> tuple[float, float]:
    """(rank-steps mapped message by message, steps counted in structure) of the pairwise
    all-gather or all-to-all among ``algorithms`` on ``ranks`` ranks: P (P - 1) or P - 1
    (``counted``: the layout counts its shifts in structure) when it is asked for (or
    "all") and offered at that size, else 0."""
    if operation not in _QUADRATIC_OPERATIONS or not ("all" in algorithms
                                                      or "pairwise" in algorithms):
        return 0.0, 0.0
    from icnperf.model.collectives.fluid import rank_limit

    limit = rank_limit("pairwise", operation)
    if not (counted or limit is None or ranks <= limit):
        return 0.0, 0.0
    return (0.0, ranks - 1) if counted else (ranks * (ranks - 1), 0.0)


def mapping_cost(ranks: Iterable[float], algorithms: Sequence[str],
                 random_placement: bool = False,
                 dims: Sequence[int] | None = None,
                 operation: str | None = None,
                 counted: bool = False,
                 step_seconds: float = STRUCTURED_STEP_SECONDS) -> tuple[float, float]:
    """(peak bytes, seconds) of mapping the message rounds of ``algorithms`` onto layouts
    of ``ranks`` ranks each (``dims``: their torus dimension counts, default 3);
    ``algorithms`` ``("all",)`` means every algorithm of the operation. Unknown names cost
    as the dearest algorithm. ``operation`` (None: not known) adds the pairwise
    all-gather's and all-to-all's P - 1 steps where they run: P (P - 1) message mappings
    (:data:`PAIRWISE_STEP_SECONDS`), or P - 1 steps counted in structure
    (``step_seconds`` each, :func:`counted_step_seconds`) when ``counted`` says every
    layout counts them in structure (collectives.structured.counts_steps_in_structure)."""
    ranks = [float(r) for r in ranks]
    dims = [REFERENCE_DIMENSIONS] * len(ranks) if dims is None else list(dims)
    if "all" in algorithms:
        per = ALL_ALGORITHMS_SECONDS
    else:
        per = sum(MAPPING_SECONDS.get(a, 0.0 if a in ("hw-tree", "p2p-tree")
                                      else max(MAPPING_SECONDS.values()))
                  for a in algorithms)
    per *= RANDOM_PLACEMENT_FACTOR if random_placement else 1.0
    seconds = per * sum(_rank_rounds(r) * max(1.0, (d + 3) / (2 * REFERENCE_DIMENSIONS))
                        for r, d in zip(ranks, dims))
    for r in ranks:
        mapped, structured = _quadratic_steps(r, algorithms, operation,
                                              counted and not random_placement)
        seconds += PAIRWISE_STEP_SECONDS * mapped * (
            RANDOM_PLACEMENT_FACTOR if random_placement else 1.0)
        seconds += step_seconds * structured
    per_rank = [MAPPING_MEMORY_PER_RANK
                + MAPPING_BYTES_PER_DIMENSION * max(0, d - REFERENCE_DIMENSIONS)
                for d in dims]
    memory = max((b * r for b, r in zip(per_rank, ranks)), default=0.0) if per else 0.0
    return memory, seconds


# --- per command ----------------------------------------------------------------------


STREAMED_ROW_MEMORY = 500.0
"""Peak bytes per row of an output streamed row by row (``predict p2p`` JSON and CSV: only
the model's columns are held, each row formatted and written as it comes): measured
270 B per row (200,000 sizes in JSON: 92 MB peak, against 1.13 GB when the text was
built whole)."""

STREAMED_ROW_SECONDS = 40e-6
"""Seconds per streamed row (JSON rows written by json's C encoder, render.flat_json; CSV
by the csv module): measured 18 us (JSON) and 21 us (CSV) per row, 200,000 sizes on the
loaded 2-core machine (3.8 and 4.5 s of CPU, start-up included), doubled for margin."""


def p2p_estimate(points: int, fmt: str) -> Estimate:
    """``predict p2p``: one row per message size; JSON and CSV are streamed
    (:data:`STREAMED_ROW_MEMORY`, :data:`STREAMED_ROW_SECONDS`), the table is held whole to
    align its columns."""
    memory, seconds = rows_cost(points, fmt)
    if fmt in ("json", "csv"):
        memory, seconds = STREAMED_ROW_MEMORY * points, STREAMED_ROW_SECONDS * points
    return Estimate(f"predict p2p: {count(points)} message sizes", BASE_MEMORY + memory,
                    seconds, "ask for fewer --bytes values")


def collective_estimate(ranks: Sequence[int], sizes: int, algorithms: Sequence[str],
                        rows_per_layout: int, fmt: str, random_placement: bool = False,
                        command: str = "predict collective",
                        dims: Sequence[int] | None = None,
                        operation: str | None = None, counted: bool = False,
                        step_seconds: float = STRUCTURED_STEP_SECONDS) -> Estimate:
    """``predict collective``: the message rounds of ``algorithms`` mapped on each layout
    (``ranks`` per layout, ``dims`` its dimension count; ``counted`` and ``step_seconds``
    as :func:`mapping_cost`), and ``rows_per_layout`` x ``sizes`` rows per layout."""
    rows = len(ranks) * sizes * rows_per_layout
    map_memory, map_seconds = mapping_cost(ranks, algorithms, random_placement, dims,
                                           operation, counted, step_seconds)
    row_memory, row_seconds = rows_cost(rows, fmt)
    work = (f"{command}: {count(len(ranks), 'node count')} (up to"
            f" {count(max(ranks, default=0), 'rank')}) x {count(sizes, 'size')} x"
            f" {count(rows_per_layout, 'algorithm')}")
    return Estimate(work, BASE_MEMORY + map_memory + row_memory, map_seconds + row_seconds,
                    "ask for fewer or smaller --nodes, fewer --bytes values or one"
                    " --algorithm")


HPCG_RANK_SECONDS = 2e-3
"""Seconds per HPCG rank (processes, not nodes) of model.apps.hpcg: its halo plan walks
every rank's 26 neighbours in Python on each multigrid level: measured about 1 ms
(34 s for 4,096 nodes x 8 processes)."""

HPCG_PAIR_SECONDS = 2e-9
"""Seconds per (node, rank) pair: the HPCG halo plan looks for each node's ranks among
all ranks, one vectorized comparison of every rank per node (NumPy's rate for such a
pass, not measured separately: it is 0.3 s of the 34 s above)."""

APP_RANK_SECONDS = 10e-6
"""Seconds per rank of the SpMV and heat models beyond their collective (row blocks and
halo phases per node): measured 5.4 us (heat, 2,097,152 nodes, 11 s), 0.5 us (SpMV)."""

APP_RANK_MEMORY = 600.0
"""Peak bytes per rank of the SpMV and heat models (arrays per node): measured 470 B
(heat, 2,097,152 nodes, 984 MB)."""


def app_estimate(app: str, nodes: Sequence[int], ranks: Sequence[int],
                 algorithms: Sequence[str], fmt: str) -> Estimate:
    """``predict app``: per layout the application model (``nodes`` and ``ranks`` =
    nodes x processes per node of each) with each of ``algorithms``."""
    seconds = 0.0
    if app == "hpcg":
        seconds += sum(HPCG_RANK_SECONDS * r + HPCG_PAIR_SECONDS * n * r
                       for n, r in zip(nodes, ranks)) * len(algorithms)
    else:
        seconds += APP_RANK_SECONDS * sum(ranks) * len(algorithms)
    map_memory, map_seconds = mapping_cost(ranks, algorithms)
    row_memory, row_seconds = rows_cost(len(nodes) * len(algorithms), fmt)
    model_memory = APP_RANK_MEMORY * max(ranks, default=0)
    return Estimate(f"predict app {app}: {count(len(nodes), 'node count')} (up to"
                    f" {count(max(ranks, default=0), 'rank')}) x"
                    f" {count(len(algorithms), 'algorithm')}",
                    BASE_MEMORY + max(map_memory, model_memory) + row_memory,
                    seconds + map_seconds + row_seconds,
                    "ask for fewer or smaller --nodes or one --algorithm")


PATTERN_MESSAGE_SECONDS = 1e-6
"""Seconds per message of a skeleton's halo, point-to-point pattern or helper, mapped onto
the layout (model.apps.patterns, vectorized): the 6-neighbour halo of jacobi3d on 131,072
ranks cost well under a second beyond its all-reduce (7.7 s in all against heat's 7.9 s,
whose 2D halo has 4 messages)."""

PATTERN_MESSAGE_MEMORY = 100.0
"""Peak bytes per such message: measured about 85 B (jacobi3d against heat on 131,072
ranks, 213 MB against 146 MB peak); 71 B since dor_traffic no longer builds coordinate
arrays of every message (jacobi3d on Fugaku's 158,976 nodes x 4 ranks, 3.8 million halo
messages: 344 MB peak against 74 MB on 8 nodes)."""

HELPER_MESSAGES = 1
"""Messages per rank charged for a bundled helper: hpcg_halo counts its 26-neighbour
messages of the four multigrid levels from the process grid's shape, not rank by rank
(model/apps/hpcg.py), so it costs about what a one-message pattern does (hpcg-vendor on
LUMI's 262,144 ranks runs in about a second)."""

SKELETON_PHASE_SECONDS = 2e-3
"""Seconds per phase and node count to evaluate a skeleton's expressions (exact
fractions): measured about 1 ms."""


def _pattern_messages(phase, ranks):
    """Messages one rank sends in ``phase`` (a model.apps.skeleton.Phase) with ``ranks``
    ranks (a number or a NumPy array of them): 2 per halo axis,
    1 for a shift or a random permutation, every other rank for an all-to-all (at most
    model.apps.patterns.MAX_ALLTOALL_MESSAGES in all), :data:`HELPER_MESSAGES` for a
    helper."""
    messages = 0.0
    if getattr(phase, "halo", None) is not None:
        halo = phase.halo
        messages += 2 * len(halo.axes if halo.axes is not None else range(halo.dims))
    p2p = getattr(phase, "p2p", None)
    if p2p is not None:
        if p2p.pattern == "alltoall":
            from icnperf.model.apps.patterns import MAX_ALLTOALL_MESSAGES

            messages += np.minimum(ranks - 1, MAX_ALLTOALL_MESSAGES / np.maximum(ranks, 1))
        else:
            messages += 1
    if getattr(phase, "helper", None) is not None:
        messages += HELPER_MESSAGES
    return messages


def skeleton_cost(phases, nodes: Sequence[int], ppn: int,
                  algorithm: str | None = None,
                  counted: bool = False) -> tuple[float, float]:
    """(peak bytes, seconds) of a skeleton's ``phases`` (model.apps.skeleton.Phase records)
    evaluated on layouts of ``nodes`` nodes with ``ppn`` processes each: every collective's
    rounds mapped (``algorithm`` in place of the phase's own when given; ``best`` and
    ``all`` map every algorithm, :func:`mapping_cost`; ``auto`` the one the library
    picks), every halo, pattern and helper message mapped
    (:data:`PATTERN_MESSAGE_SECONDS`), the expressions evaluated. ``counted``: every
    layout counts its collectives' pairwise steps in structure at any processes per node
    (collectives.structured.counts_steps_in_structure)."""
    memory = seconds = 0.0
    counts = [float(n) for n in nodes]
    for phase in phases:  # each phase over every node count at once (one mapping_cost)
        seconds += SKELETON_PHASE_SECONDS * len(counts)
        collective = getattr(phase, "collective", None)
        if collective is not None:
            chosen = algorithm or collective.algorithm
            map_memory, map_seconds = mapping_cost(
                [n if collective.scope == "nodes" else n * ppn for n in counts],
                ["all"] if chosen in ("best", "all") else [chosen], operation=collective.op,
                counted=counted)
            memory, seconds = max(memory, map_memory), seconds + map_seconds
        ranks = np.asarray(counts, dtype=float) * ppn
        messages = np.broadcast_to(_pattern_messages(phase, ranks), ranks.shape) * ranks
        if messages.size:
            memory = max(memory, PATTERN_MESSAGE_MEMORY * float(messages.max()))
            seconds += PATTERN_MESSAGE_SECONDS * float(messages.sum())
    return memory, seconds


FIT_ITERATIONS = 50
"""Iterations a skeleton fit (model.apps.fit, trust-region least squares, 2-point
Jacobian: coefficients + 1 evaluations per iteration) is charged for; the bundled tests'
fits converge in under 20."""


def fit_evaluation_seconds(runs: int, phases: int, coefficients: int) -> float:
    """Seconds of a skeleton fit's repeated evaluations beyond the first: every run's
    phases re-evaluated (the mapped messages are cached) :data:`FIT_ITERATIONS` x
    (coefficients + 1) times."""
    return FIT_ITERATIONS * (coefficients + 1) * runs * phases * SKELETON_PHASE_SECONDS


def skeleton_estimate(name: str, phases, nodes: Sequence[int], ppn: int,
                      algorithm: str | None, fmt: str, command: str = "predict app",
                      extra_seconds: float = 0.0, narrow: str | None = None,
                      counted: bool = False) -> Estimate:
    """``predict app``, ``explain app``, ``report --app`` and ``calibrate --app`` on a
    skeleton: :func:`skeleton_cost` (``counted`` as there) and a row per phase and
    node count;
    ``extra_seconds`` what the command adds (SymPy, a fit's repeated evaluations)."""
    memory, seconds = skeleton_cost(phases, nodes, ppn, algorithm, counted)
    row_memory, row_seconds = rows_cost(len(nodes) * (len(phases) + 1), fmt)
    return Estimate(f"{command} {name}: {count(len(nodes), 'node count')} (up to"
                    f" {count(max(nodes, default=0) * ppn, 'rank')}) x"
                    f" {count(len(phases), 'phase')}",
                    BASE_MEMORY + memory + row_memory,
                    seconds + row_seconds + extra_seconds,
                    narrow or "ask for fewer or smaller --nodes, or name a collective"
                    " algorithm instead of best")


SYMBOLIC_SECONDS = 10.0
"""SymPy's share of ``explain``: import, the formula, its derivatives; a whole explain run
measured 1.6-1.8 s (angara-3d, Rabenseifner, 8,192 and 32,768 nodes), the rest a margin for
a cold start and longer formulas."""


def explain_estimate(ranks: int, algorithm: str, dims: int = REFERENCE_DIMENSIONS,
                     operation: str | None = None, counted: bool = False,
                     step_seconds: float = STRUCTURED_STEP_SECONDS) -> Estimate:
    """``explain collective``: one algorithm mapped on one layout (``counted`` and
    ``step_seconds`` as :func:`mapping_cost`), and its formula."""
    memory, seconds = mapping_cost([ranks], [algorithm], dims=[dims], operation=operation,
                                   counted=counted, step_seconds=step_seconds)
    return Estimate(f"explain: {algorithm} on {count(ranks)} ranks", BASE_MEMORY + memory,
                    seconds + SYMBOLIC_SECONDS, "ask for fewer --nodes")


def crossover_estimate(ranks: Sequence[int], algorithms: Sequence[str], points: int,
                       fmt: str, what: str = "node count",
                       dims: int = REFERENCE_DIMENSIONS,
                       operation: str | None = None, counted: bool = False,
                       step_seconds: float = STRUCTURED_STEP_SECONDS) -> Estimate:
    """``crossover collective``: both algorithms on every layout scanned (``ranks`` each,
    tori of ``dims`` dimensions; ``counted`` and ``step_seconds`` as :func:`mapping_cost`),
    ``points`` scan rows."""
    map_memory, map_seconds = mapping_cost(ranks, algorithms, dims=[dims] * len(ranks),
                                           operation=operation, counted=counted,
                                           step_seconds=step_seconds)
    row_memory, row_seconds = rows_cost(points, fmt)
    return Estimate(f"crossover: {count(points, what)} (up to"
                    f" {count(max(ranks, default=0), 'rank')})",
                    BASE_MEMORY + map_memory + row_memory, map_seconds + row_seconds,
                    "ask for a shorter --range")


def simulation_estimate(runs: int, routers: int, cycles: int, run_memory: float,
                        parallel: int = 1, fmt: str = "table",
                        what: str = "simulate traffic") -> Estimate:
    """``simulate``: ``runs`` runs of ``cycles`` cycles on ``routers`` routers, each
    needing ``run_memory`` bytes (the simulator's own estimate, its logs included),
    ``parallel`` of them at once in their own processes; a result row per run."""
    parallel = max(1, min(parallel, runs))
    row_memory, row_seconds = rows_cost(runs, fmt)
    seconds = (SIMULATOR_START_SECONDS + row_seconds
               + (SIMULATOR_RUN_SECONDS + SIMULATOR_SECONDS * routers * cycles)
               * runs / parallel)
    memory = parallel * (BASE_MEMORY + run_memory) + row_memory
    return Estimate(f"{what}: {count(runs, 'run')} x {count(cycles, 'cycle')} x"
                    f" {count(routers, 'router')}",
                    memory, seconds,
                    "ask for fewer --rates or --seeds, shorter --warmup/--measure/--drain"
                    " or a smaller --topology")


COMPARE_RADIX_SECONDS = 0.3
"""Seconds per radix of ``compare-topologies --radix``: every family's largest design
within it, searched over its parameters: measured 0.23 s per radix of 1,024 (ten of them
in 3.05 s with the start), 0.11 s on average over radices 2..1024 (115 s), 8 levels."""


def compare_estimate(radices: int, fmt: str) -> Estimate:
    """``compare-topologies --radix``: each radix limit searched, a row per family each."""
    row_memory, row_seconds = rows_cost(radices * 6, fmt)
    return Estimate(f"compare-topologies: {count(radices, 'radix limit')}",
                    BASE_MEMORY + row_memory, COMPARE_RADIX_SECONDS * radices + row_seconds,
                    "ask for fewer --radix values")


COLLECTIVE_FLIT_HOP_SECONDS = 6e-6
"""Seconds per flit-hop of the collective simulator (sim/collective_fabric.py, pure
Python): measured 4.7 us (p2p-tree broadcast of 8 KiB on 512 nodes, 3.7 million
flit-hops in 17 s)."""


def collective_simulation_estimate(runs: int, flit_hops: float, fmt: str) -> Estimate:
    """``simulate collective``: ``runs`` (nodes, size) runs of ``flit_hops`` flit-channel
    crossings in all."""
    row_memory, row_seconds = rows_cost(runs, fmt)
    return Estimate(f"simulate collective: {count(runs, 'run')} of about"
                    f" {count(flit_hops)} flit-hops in all", BASE_MEMORY + row_memory,
                    SIMULATOR_START_SECONDS + runs * SIMULATOR_RUN_SECONDS + row_seconds
                    + COLLECTIVE_FLIT_HOP_SECONDS * flit_hops,
                    "ask for fewer or smaller --nodes or fewer --bytes values")


def fit_estimate(rows: int, what: str) -> Estimate:
    """``calibrate``: ``rows`` data rows read, fitted and listed."""
    return Estimate(f"calibrate: {count(rows)} data rows in {what}",
                    BASE_MEMORY + FIT_ROW_MEMORY * rows, FIT_ROW_SECONDS * rows,
                    "fit a sample of the rows (e.g. every size once)")


def report_estimate(ranks: Sequence[Sequence[int]], names: Sequence[str],
                    draws: int = 0) -> Estimate:
    """``report``: every machine's sweep of node counts (``ranks`` per layout, one list per
    machine); ``draws`` (``--uncertainty``): each machine's curves run again on that many
    draws of its inputs, :data:`REPORT_DRAW_SECONDS` per draw and machine plus
    :data:`REPORT_DRAW_LAYOUT_SECONDS` per draw and node count swept."""
    seconds = (REPORT_START_SECONDS * len(ranks)
               + REPORT_SECONDS * sum(_rank_rounds(r) for sweep in ranks for r in sweep))
    seconds += draws * (REPORT_DRAW_SECONDS * len(ranks)
                        + REPORT_DRAW_LAYOUT_SECONDS * sum(len(sweep) for sweep in ranks))
    largest = max((max(sweep, default=0) for sweep in ranks), default=0)
    work = f"report: {', '.join(names)} up to {count(largest)} nodes"
    narrow = "report a smaller machine (--set topology=...)"
    if draws:
        work += f" x {count(draws)} draws"
        narrow += " or fewer --samples"
    return Estimate(work, BASE_MEMORY + MAPPING_MEMORY_PER_RANK * largest, seconds, narrow)


REPORT_DRAW_SECONDS = 0.02
"""Seconds of one draw of ``report --uncertainty`` per machine beyond its node counts:
the machine drawn once per curve set (five sets, about 2 ms each, :data:`DRAW_SECONDS`)
and its point-to-point curves (0.3-0.5 ms of CPU per draw measured on angara-36, fugaku
and lumi)."""

REPORT_DRAW_LAYOUT_SECONDS = 0.05
"""Seconds of one draw per node count the report sweeps: both collectives by every
algorithm (5.8-6.3 ms of CPU per node count and draw measured on angara-36, fugaku and
torus:64x64x64, 20 draws after a warm run) and both applications on every other count
(1.6 ms per count on angara-36 to 37 ms on torus:64x64x64's largest); 24 ms of CPU per
count in all on torus:64x64x64, doubled for the wall time of a loaded machine."""

DRAW_SECONDS = 2e-3
"""Seconds to draw one machine (its values checked on construction), measured on lumi's
preset: 200 draws of a 2-size p2p table in 0.8 s, about half of it the draws."""


def with_draws(estimate: Estimate, samples: int) -> Estimate:
    """``estimate`` run once per draw of ``--uncertainty`` and once at the point values:
    time x (samples + 1) plus the draws themselves; memory as the request's own peak held
    once more per draw (each draw's rows are kept for the quantiles)."""
    own = max(estimate.memory - BASE_MEMORY, 0.0)
    return Estimate(f"{estimate.work} x {count(samples + 1)} draws",
                    estimate.memory + samples * own,
                    estimate.seconds * (samples + 1) + DRAW_SECONDS * samples,
                    estimate.narrow + " or fewer --samples")
