"""The full workload model on many designs at once: the same numbers as
workload.predict_workload, design by design, with the time model evaluated over arrays.

Per design and term the choices are workload.predict_term's (the job's layout, the
algorithms to try, the contenders on a torus), and the rounds are mapped as there
(collectives.schedule, cached; some families together, below). What differs is where the
time model runs: a textbook algorithm's time on a layout is collectives.schedule_time of
its merged steps, and the steps of every (design, term, algorithm) asking for the same
message size are timed together (:func:`schedule_times`: each step's network.latency over one array of hops
and channel loads, then each schedule's steps added in the order schedule_time adds
them), so the per-design Python of the time model is gone from the hot path. Every
elementwise operation is the one schedule_time does on a number (IEEE double arithmetic
gives the same result on a NumPy array), and the sums keep schedule_time's order, so the
times are equal to the last bit (tests/model/sizing/test_sizing_batched.py).

The applications are composed as their models compose them (heat: compute + halo +
all-reduce per step, the halo Σ over phases of the step time and one send gap; spmv:
compute + all-gather): compute depends only on the node count and the node's rates, so it
is taken from one run of the application's own model per term and node count
(AppResult.compute_s, p2p 0 for spmv); the halo's phases are mapped with
heat.halo_phases on each design. Terms and designs this module does not batch (hpcg,
skeletons, the rail and slim fly families whose machine values change with the design)
go through workload.predict_workload unchanged. The machine's topology is not replaced
by each design's: with the layout given, the models read only the machine's parameters
(workload.predict_term's cache rests on the same fact). A batched term's ``model_notes``
are empty: the application's notes name each design's hop counts and loads, no report
renders them, and building them was a large part of the per-design time;
workload.predict_workload on one design gives them.

Jobs on the first endpoints of a dragonfly, or of a torus they do not fill, one process
per node, are mapped together too (:func:`_shared`): a task's schedules and halo phases on
dragonflies of one p, or on tori that differ only in their last radix, are counted round
by round on all of them at once (topology/dragonfly/batch.rounds_traffic,
topology/torus/batch.dor_traffic_last_radix, each equal to the per-design count) and
merged into Steps as collectives.schedule merges them.
"""

from __future__ import annotations

import hashlib
import math
from fractions import Fraction

import numpy as np

from icnperf.errors import InputError
from icnperf.model import network, ops
from icnperf.model.collectives import evaluate, fluid, machine_layout
from icnperf.model.collectives.parameters import ELEMENT_SIZE, collective_parameters
from icnperf.model.collectives.p2p_tree import send_gap
from icnperf.model.collectives.registry import TABLE
from icnperf.model.hash_groups import hash_groups, hash_weights
from icnperf.model.collectives.schedules import (Step, intra_node_time, schedule, step_bytes,
                                                 schedule_time, split_bytes)
from icnperf.model.sizing.designs import Candidate
from icnperf.model.sizing.partition import partitions
from icnperf.model.sizing.workload import (APPS, FIND_BOX, TREE_ALGORITHMS, AppTerm,
                                           CollectiveTerm, TermResult, Workload, _candidates,
                                           app_default, job_layout, predict_workload)
from icnperf.model.topology.spec import parse_spec

BATCHED_APPS = ("heat", "spmv")
"""Applications composed here; hpcg goes design by design (workload._app_term)."""

CELLS = 1 << 20
"""Most designs x messages of one round counted at once on dragonflies (rounds_traffic's
arrays have a row per design and a column per router pair, at most one per message):
about 8 MB an array."""

FEWEST = 4
"""Fewer designs than this go through workload.predict_workload one by one: nothing to
share, and the batch's fixed costs (one run of each application's own model for its
compute time) would outweigh it (the safe search hands over one design at a time)."""

UNBATCHED_FAMILIES = ("rail", "slimfly")
"""Families whose machine values change with the design (rail: NICs per node; slim fly:
its derated link bandwidth): their designs go through workload.predict_workload."""


# --- timing many step schedules at once ------------------------------------------------------


def schedule_times(m, schedules, params: dict) -> np.ndarray:
    """collectives.schedule_time(m, steps, **params) of every ``steps`` of ``schedules``
    (s, one float per schedule), evaluated over arrays: equal to the scalar calls to the
    last bit (module docstring). ``m``: the message size as the scalar call gets it (a
    number or a one-element array); ``params``: collectives.collective_parameters."""
    bound = network.bind(schedule_time, params)
    element_size = bound.get("element_size")
    step_overhead = bound.get("step_overhead", 0)
    net = {k: bound[k] for k in ("flit_size", "packet_max_flits", "packet_header_flits",
                                 "injection_latency", "ejection_latency", "router_latency",
                                 "link_latency")}
    flat: dict[tuple, list] = {}
    fractions: dict[tuple, Fraction] = {}
    width = max((len(s) for s in schedules), default=0)
    for i, steps in enumerate(schedules):
        for k, step in enumerate(steps):
            split = bool(step.blocks) and element_size is not None
            # the fraction as (numerator, denominator): hashing a Fraction costs more
            # than the arithmetic
            fraction = step.fraction
            kind = ((fraction.numerator, fraction.denominator), step.combine,
                    step.blocks if split else 0, split and step.last is not None)
            fractions[kind[0]] = fraction
            last = step.last if split and step.last is not None else (0, 0, 0, False)
            flat.setdefault(kind, []).append((i, k, step.count, step.hops, step.load,
                                              step.host, step.intra, *last))
    contribution = np.zeros((len(schedules), width))
    valid = np.zeros((len(schedules), width), dtype=bool)

    def timed(size, hops, load, host, intra, combine):
        """schedule_time's timed() over arrays: (time, whether the step has a time)."""
        rate = bound["host_bandwidth"] / np.maximum(host, 1)
        time = network.latency(size, hops, **net, host_bandwidth=rate,
                               link_bandwidth=bound["link_bandwidth"] / np.maximum(load, 1),
                               software_overhead=bound.get("software_overhead", 0),
                               store_and_forward=bound.get("store_and_forward", 0))
        copy = intra_node_time(size, host_bandwidth=bound["host_bandwidth"],
                               software_overhead=bound.get("software_overhead", 0))
        time = np.where(host > 0, np.where(intra, ops.maximum(time, copy), time), copy)
        if combine:
            time = time + bound.get("combine_time", 0) * size
        return time, (host > 0) | intra

    with ops.quiet():
        for (ratio, combine, blocks, has_last), rows in flat.items():
            fraction = fractions[ratio]
            i, k, count, hops, load, host, intra, l_hops, l_load, l_host, l_intra = (
                np.array(column) for column in zip(*rows))
            intra, l_intra = intra.astype(bool), l_intra.astype(bool)
            if blocks:
                size = split_bytes(m, fraction, blocks, element_size)
                others = _others(m, fraction, blocks, element_size)
                if has_last:
                    time, ok = timed(size, l_hops, l_load, l_host, l_intra, combine)
                    rest, rest_ok = timed(others, hops, load, host, intra, combine)
                    time = np.where(ok & rest_ok, ops.maximum(time, rest),
                                    np.where(ok, time, rest))
                    ok = ok | rest_ok
                else:
                    time, ok = timed(size, hops, load, host, intra, combine)
            else:
                time, ok = timed(step_bytes(m, fraction), hops, load, host, intra, combine)
            contribution[i, k] = count * (time + step_overhead)
            valid[i, k] = ok
    total = np.zeros(len(schedules))
    for k in range(width):
        total = np.where(valid[:, k], total + contribution[:, k], total)
    return total


def _others(m, fraction: Fraction, blocks: int, element_size):
    """The bytes of a split step's messages without the last block: min(m, e·k·q)
    (collectives.schedules._split's second value)."""
    k = int(fraction * blocks)
    count = ops.ceil(m / element_size)
    per_block = ops.floor(count / blocks)
    return ops.minimum(m, element_size * k * per_block)


# --- rounds on many designs at once ----------------------------------------------------------


def _shared(layout) -> tuple | None:
    """How a job's rounds are mapped with other designs' (:class:`_Together`): (family,
    what the designs share, the design's own values), or None (collectives.schedule, one
    layout at a time). One process per node, linear placement, on

    * the first endpoints of a DF(p, a, h): shared p, own (a, h)
      (topology/dragonfly/batch.rounds_traffic);
    * the first endpoints of a torus k_1 x ... x k_d it does not fill (no box of the job's
      nodes fits it, workload.job_layout): shared (k_1 .. k_(d-1), tie rule), own k_d
      (topology/torus/batch.dor_traffic_last_radix). A torus the job fills has closed
      forms in collectives.structured and stays with schedule."""
    if not layout.is_default_placement or layout.rails != 1:
        return None
    if layout.network is not None and layout.network[0] == "dragonfly":
        p, a, h = (int(v) for v in layout.network[1:])
        return "dragonfly", p, (a, h)
    if layout.is_torus and layout.endpoints < math.prod(layout.radices):
        return ("torus", (tuple(int(k) for k in layout.radices[:-1]),
                          layout.ring_ties or "plus"), int(layout.radices[-1]))
    return None


class _Together:
    """Step schedules and halo phases asked for on jobs whose rounds are mapped with other
    designs' (:func:`_shared`), mapped at once on every design sharing the same values,
    each equal to Layout.rank_traffic (Layout.traffic for a halo phase) design by design,
    and merged into Steps as collectives.schedule merges them, in its order."""

    def __init__(self):
        self.wanted: dict[tuple, tuple[tuple, dict]] = {}
        self.steps: dict[tuple, tuple] = {}
        self.counted: dict[tuple, list] = {}

    def ask(self, what: tuple, layout) -> tuple:
        """A reference to the Steps of ``what`` on ``layout``: what is ("schedule",
        algorithm, operation) or ("pairs", name, sources, destinations), one step of
        fraction 1 charged Layout.traffic's hops and load (heat's halo phases; ``name``
        tells rounds of equal pairs)."""
        family, shared, own = _shared(layout)
        group = (what[:3] if what[0] == "schedule" else what[:2], layout.ranks, family,
                 shared)
        self.wanted.setdefault(group, (what, {}))[1][own] = None
        return ("together", group, own)

    def run(self) -> None:
        from icnperf.model.collectives.schedules import schedule_rounds

        for group, (what, designs) in self.wanted.items():
            _, ranks, family, shared = group
            own = tuple(designs)
            if what[0] == "pairs":
                hops, load = _traffic(family, shared, own, what[2], what[3])
                for design, h, c in zip(own, hops.tolist(), load.tolist()):
                    self.steps[(group, design)] = (Step(1, Fraction(1), h, c, False),)
                continue
            rounds = []
            fractions: dict[Fraction, int] = {}
            for count, fraction, combine, src, dst, blocks, last in schedule_rounds(
                    what[1], what[2], ranks):
                # the fraction by its number among the schedule's distinct fractions:
                # equal keys as schedule's, one Fraction hash a round, not a design
                number = fractions.setdefault(fraction, len(fractions))
                carrier = None if last is None else self._count(family, shared, own,
                                                                src[last], dst[last])
                rounds.append((count, number, combine, blocks,
                               self._count(family, shared, own, src, dst), carrier))
            values = list(fractions)
            first, kind = _alike_designs(rounds, len(own))
            merged = [_merged(rounds, j, values) for j in first.tolist()]
            for design, k in zip(own, kind.tolist()):
                self.steps[(group, design)] = merged[k]

    def value(self, ref) -> tuple:
        return self.steps[(ref[1], ref[2])]

    def _count(self, family: str, shared, own: tuple, sources, destinations) -> tuple:
        """Layout.rank_traffic of one round on every design of ``own``: (hops array, load
        array, host, intra), the loads at least 1, host 1 and intra False, or zeros, 0 and
        False without messages; once per round of equal messages on the same designs
        (algorithms share rounds: the fold and the exchanges of recursive doubling are
        Rabenseifner's)."""
        digest = hashlib.blake2b(sources.tobytes() + b"|" + destinations.tobytes(),
                                 digest_size=20).digest()
        key = (family, shared, own, digest)
        if key not in self.counted:
            if len(sources) == 0:
                zeros = np.zeros(len(own), dtype=np.int64)
                self.counted[key] = (zeros, zeros, 0, False)
            else:
                hops, load = _traffic(family, shared, own, sources, destinations)
                self.counted[key] = (hops, np.maximum(load, 1), 1, False)
        return self.counted[key]


def _alike_designs(rounds: list, designs: int) -> tuple[np.ndarray, np.ndarray]:
    """(the first design of each group, each design's group) of designs whose every round
    (and its last block's carriers) has the same hops and load: they merge into the same
    Steps. Grouped by a hash of their columns, checked exactly (model.hash_groups)."""
    rows = [array for _, _, _, _, traffic, carrier in rounds
            for array in traffic[:2] + (carrier[:2] if carrier is not None else ())]
    if not rows:
        return np.zeros(1 if designs else 0, dtype=np.int64), np.zeros(designs,
                                                                       dtype=np.int64)
    table = np.stack(rows)
    return hash_groups(hash_weights(len(rows)) @ table,
                       lambda first, group: np.array_equal(table[:, first][:, group], table))


def _merged(rounds: list, design: int, values: list) -> tuple:
    """The Steps of one design's rounds merged as collectives.schedule merges them: equal
    (fraction, hops, load, combine, host, intra, blocks, carrier) counted together, in the
    order first met."""
    into: dict[tuple, int] = {}
    for count, number, combine, blocks, traffic, carrier in rounds:
        hops, load, host, intra = traffic
        if carrier is not None:
            carrier = (int(carrier[0][design]), int(carrier[1][design]), carrier[2],
                       carrier[3])
        step = (number, int(hops[design]), int(load[design]), combine, host, intra,
                blocks, carrier)
        into[step] = into.get(step, 0) + count
    return tuple(Step(n, values[step[0]], *step[1:]) for step, n in into.items())


def _traffic(family: str, shared, own: tuple, sources, destinations
             ) -> tuple[np.ndarray, np.ndarray]:
    """Layout.traffic (hops, load) of one round on every design of ``own``: two int64
    arrays, one value per design."""
    if family == "dragonfly":
        from icnperf.model.topology.dragonfly.batch import rounds_traffic

        a = np.array([d[0] for d in own], dtype=np.int64)
        h = np.array([d[1] for d in own], dtype=np.int64)
        step = max(1, CELLS // max(1, len(sources)))
        parts = [rounds_traffic(shared, a[k:k + step], h[k:k + step], sources, destinations)
                 for k in range(0, len(own), step)]
        return (np.concatenate([hops for hops, _ in parts]),
                np.concatenate([load for _, load in parts]))
    from icnperf.model.topology.torus.batch import dor_traffic_last_radix

    prefix, ties = shared
    hops, load = dor_traffic_last_radix(prefix, own, sources, destinations, ties)
    return np.asarray(hops, dtype=np.int64), np.asarray(load, dtype=np.int64)


# --- the workload on many designs ------------------------------------------------------------


class _Timings:
    """Step schedules to time, gathered by message size, then timed at once; the
    schedules of jobs mapped with other designs' are mapped at once too
    (:class:`_Together`)."""

    def __init__(self, params: dict, floor_params: dict):
        self.params = params
        self.floor_params = floor_params
        self.together = _Together()
        self.sizes: dict[tuple, tuple] = {}
        self.results: dict[tuple, np.ndarray] = {}
        self.asked: dict[tuple, tuple] = {}
        """References already made, by (operation, algorithm, m, layout)."""
        self.farthest: dict[tuple, int] = {}
        """views.farthest_rank by (radices, ranks) (:meth:`add_farthest`)."""
        self.gaps: dict = {}
        """:meth:`send_gap` by message bytes."""
        self.floors: dict[tuple, float] = {}
        """bound.universal_rounds_time by (operation, message bytes, ranks, farthest rank):
        designs of one job size and one such distance share the contenders' floor."""
        self.trees: dict[tuple, tuple] = {}
        """Tree algorithms' times by what they depend on (:func:`_tree_key`) and size."""
        self.layouts: dict = {}
        self.halos: dict[tuple, tuple] = {}
        """heat's halo pairs (sources, destinations) by (px, py, axis): one process grid
        for every design of a job size."""
        """(machine_layout, placed one rank a node) of each job layout."""

    def machine_layouts(self, machine, layout) -> tuple:
        """(machine_layout(machine, layout), the same placed one rank a node, linearly),
        once per job layout (the machine is the one of the whole batch)."""
        if layout not in self.layouts:
            routed = machine_layout(machine, layout)
            self.layouts[layout] = (routed, routed.placed(1, "linear", 0))
        return self.layouts[layout]

    def add_farthest(self, layouts) -> None:
        """views.farthest_rank of every torus job layout in ``layouts`` not yet known, the
        layouts of one dimension count and rank count in one call (its rows are computed
        independently, in integers: the same values as one layout at a time)."""
        from icnperf.model.sizing.views import farthest_rank

        groups: dict[tuple, list[tuple]] = {}
        for layout in layouts:
            if layout.is_torus and (layout.radices, layout.ranks) not in self.farthest:
                groups.setdefault((len(layout.radices), layout.ranks), []).append(
                    layout.radices)
        for (_, ranks), rows in groups.items():
            rows = list(dict.fromkeys(rows))
            for radices, far in zip(rows, farthest_rank(rows, ranks).tolist()):
                self.farthest[(radices, ranks)] = far

    def send_gap(self, size) -> float:
        """p2p_tree.send_gap of a message of ``size`` bytes on the batch's parameters (s),
        once per size: heat's halo phases of every design of a job size share it."""
        if size not in self.gaps:
            self.gaps[size] = float(send_gap(size, **network.bind(send_gap, self.params)))
        return self.gaps[size]

    def add(self, m, steps) -> tuple:
        """A reference to the time of ``steps`` (Steps, or a :class:`_Together`
        reference) at message size ``m`` (s)."""
        key = (type(m).__name__, float(np.asarray(m).reshape(-1)[0]))
        size, schedules = self.sizes.setdefault(key, (m, []))
        schedules.append(steps)
        return ("steps", key, len(schedules) - 1)

    def run(self) -> None:
        """Map what was asked together, then time every schedule, per message size."""
        self.together.run()
        for key, (m, schedules) in self.sizes.items():
            steps = [self.together.value(s) if s and s[0] == "together" else s
                     for s in schedules]
            self.results[key] = schedule_times(m, steps, self.params)

    def value(self, ref) -> float:
        """The seconds a reference stands for (after :meth:`run`)."""
        if ref[0] == "value":
            return ref[1]
        return float(self.results[ref[1]][ref[2]])

    def schedule(self, algorithm: str, operation: str, layout):
        """collectives.schedule(algorithm, operation, layout), or its reference on a job
        mapped with other designs' (:func:`_shared`; mapped in :meth:`run`)."""
        if _shared(layout) is None:
            return schedule(algorithm, operation, layout)
        if TABLE.get((algorithm, operation)) is None or TABLE[(algorithm, operation)].steps \
                is None:
            raise InputError(f"{algorithm} has no step schedule for {operation}")
        return self.together.ask(("schedule", algorithm, operation), layout)


def _collective_ref(timings: _Timings, operation: str, algorithm: str, m: np.ndarray,
                    layout, params: dict) -> tuple:
    """collective_time(machine, operation, algorithm, m, layout=layout).time[0] as a
    reference: its schedule queued on ``timings``, or its value where collectives.evaluate
    does not time a step schedule (the trees, flow-timed algorithms). ``layout``: the
    layout collective_time evaluates (machine_layout, placed)."""
    key = (operation, algorithm, float(m[0]), layout)
    if key in timings.asked:
        return timings.asked[key]
    if (algorithm not in TREE_ALGORITHMS and fluid.offered(algorithm, layout.ranks, operation)
            and not fluid.uses_flows(algorithm, operation, m, params, layout)):
        size = 0 * m if operation == "barrier" else m
        ref = timings.add(size, timings.schedule(algorithm, operation, layout))
    else:
        tree = _tree_key(operation, algorithm, layout, params)
        ref = timings.trees.get((tree, float(m[0]))) if tree else None
        if ref is None:
            with ops.quiet():
                time = evaluate(operation, algorithm, m, layout, params)
            ref = ("value", float(np.array(np.broadcast_to(time, m.shape), dtype=float)[0]))
            if tree:
                timings.trees[(tree, float(m[0]))] = ref
    timings.asked[key] = ref
    return ref


def _tree_key(operation: str, algorithm: str, layout, params: dict) -> tuple | None:
    """What collectives.evaluate's time of a tree algorithm on a torus depends on besides
    the message size (its arguments there): the spanning tree's depth, with the p2p tree
    its equal-depth sibling pairs, with the hardware all-gather the diameter (the depth on
    a torus) and the endpoints. Designs of one depth share the time. None where evaluate
    reads more (switch aggregation reads the fat tree's span) or off a torus."""
    if (algorithm not in TREE_ALGORITHMS or not layout.is_torus
            or params.get("collective_hardware") == "switch-aggregation"):
        return None
    return (operation, algorithm, layout.depth,
            layout.tree_ties if algorithm == "p2p-tree" else None,
            layout.endpoints if (algorithm, operation) == ("hw-tree", "allgather") else None)


def _contenders(algorithms: list[str], operation: str, m: float, layout, machine,
                params: dict, timings: _Timings) -> list[str]:
    """workload._contenders, the trees timed with collectives.evaluate (the value
    collective_time returns) instead of a whole collective_time call."""
    trees = [a for a in algorithms if a in TREE_ALGORITHMS]
    if not layout.is_torus or not trees or len(trees) == len(algorithms):
        return algorithms
    from icnperf.model.sizing.bound import universal_rounds_time

    sizes = np.zeros(1) if operation == "barrier" else np.asarray([m], dtype=float)
    placed = timings.machine_layouts(machine, layout)[1]
    fastest = min(_collective_ref(timings, operation, a, sizes, placed, params)[1]
                  for a in trees)
    if (layout.radices, layout.ranks) not in timings.farthest:
        timings.add_farthest([layout])
    farthest = timings.farthest[(layout.radices, layout.ranks)]
    size = 0.0 if operation == "barrier" else m
    key = (operation, size, layout.ranks, farthest)
    floor = timings.floors.get(key)
    if floor is None:
        floor = float(np.asarray(universal_rounds_time(operation, size, layout.ranks,
                                                       farthest, timings.floor_params)
                                 ).reshape(-1)[0])
        timings.floors[key] = floor
    return [a for a in algorithms if a in TREE_ALGORITHMS or not floor > fastest]


class _App:
    """What an application term costs apart from its network parts, on one node count:
    (compute s per iteration, iterations) from one run of its own model."""

    def __init__(self):
        self.known: dict[tuple, tuple[float, int]] = {}

    def compute(self, term: AppTerm, machine, layout, algorithm: str) -> tuple[float, int]:
        key = (id(term), layout.endpoints)
        if key not in self.known:
            from icnperf.model.apps import heat, spmv

            predictor = {"heat": heat.predict, "spmv": spmv.predict}[term.app]
            run = predictor(machine, layout, algorithm=algorithm, **term.problem)
            self.known[key] = (run.compute_s, run.iterations)
        return self.known[key]


def _halo_phases(layout, px: int, py: int, nx_block: int, ny_block: int,
                 timings: _Timings) -> list[tuple]:
    """heat.halo_phases as (message bytes, its one Step or a :class:`_Together`
    reference): the same phases, mapped with the other designs' where :func:`_shared`
    says so."""
    from icnperf.model.apps.heat import BYTES_PER_ELEMENT, halo_phases
    from icnperf.model.apps.patterns import halo_pairs

    if _shared(layout) is None:
        return [(size, (step,)) for size, step in halo_phases(layout, px, py, nx_block,
                                                                ny_block)]
    phases = []
    for axis, size in enumerate((BYTES_PER_ELEMENT * ny_block,
                                 BYTES_PER_ELEMENT * (nx_block + 2))):
        if (px, py, axis) not in timings.halos:
            timings.halos[(px, py, axis)] = halo_pairs((px, py), False, (axis,))[:2]
        src, dst = timings.halos[(px, py, axis)]
        if len(src):
            what = ("pairs", ("heat halo", px, py, axis), src, dst)
            phases.append((size, timings.together.ask(what, layout)))
    return phases


def _plan_collective(term: CollectiveTerm, machine, layout, params, timings):
    """workload._collective_term on one design, its schedules queued on ``timings``: a
    function giving (seconds, algorithm, notes, model notes) once they are timed."""
    algorithms, note = _candidates(term.algorithm, term.operation, layout, machine)
    algorithms = _contenders(algorithms, term.operation, term.message_bytes, layout,
                             machine, params, timings)
    m = np.zeros(1) if term.operation == "barrier" else np.asarray([term.message_bytes],
                                                                    dtype=float)
    placed = timings.machine_layouts(machine, layout)[1]
    refs = [_collective_ref(timings, term.operation, a, m, placed, params)
            for a in algorithms]

    def finish():
        times = [timings.value(r) for r in refs]
        best = min(range(len(algorithms)), key=lambda j: times[j])
        return times[best], algorithms[best], note, ()
    return finish


def _plan_app(term: AppTerm, machine, layout, params, timings, apps: _App):
    """workload._app_term (heat, spmv) on one design, composed as the application's model
    composes it (module docstring), its schedules and halo phases queued on ``timings``: a
    function giving (seconds, algorithm, notes, model notes) once they are timed."""
    from icnperf.model.apps import heat

    operation = APPS[term.app][0]
    algorithms, note = _candidates(term.algorithm, operation, layout, machine)
    m = 8.0 if term.app == "heat" else 8.0 * term.problem.get(
        "rows", app_default("spmv", "rows"))
    algorithms = _contenders(algorithms, operation, m, layout, machine, params, timings)
    compute, iterations = apps.compute(term, machine, layout, algorithms[0])
    routed, placed = timings.machine_layouts(machine, layout)
    halo = []
    if term.app == "heat":
        px, py = heat.process_grid(layout.endpoints)
        nx, ny = heat.grid_shape(term.problem.get("cells", app_default("heat", "cells")))
        xs, ys = heat.block_sizes(nx, px), heat.block_sizes(ny, py)
        for size, steps in _halo_phases(routed, px, py, xs[0], ys[0], timings):
            halo.append((timings.add(size, steps), timings.send_gap(size)))
    sizes = np.asarray([8.0 if term.app == "heat" else m], dtype=float)
    refs = [_collective_ref(timings, operation, a, sizes, placed, params) for a in algorithms]

    def finish():
        p2p = 0.0
        for ref, gap_s in halo:
            p2p += timings.value(ref)
            p2p += gap_s
        totals = [iterations * (compute + p2p + timings.value(r)) for r in refs]
        best = min(range(len(algorithms)), key=lambda j: totals[j])
        return float(totals[best]), algorithms[best], note, ()
    return finish


def _batched(term) -> bool:
    """Whether this module times ``term`` (collective terms, heat and spmv)."""
    return isinstance(term, CollectiveTerm) or (isinstance(term, AppTerm)
                                                and term.app in BATCHED_APPS)


def _torus_boxes(designs: list[Candidate], node_counts) -> dict[tuple, tuple | None]:
    """The partition of each job size in ``node_counts`` on each torus design that holds
    it, by (spec, nodes): partition.partitions over all of them at once, what job_layout
    finds one design at a time."""
    tori = [(d, parse_spec(d.spec).params["radices"]) for d in designs
            if d.family == "torus"]
    boxes = {}
    for nodes in node_counts:
        fitting = [(d, radices) for d, radices in tori if nodes <= d.endpoints]
        for (design, _), box in zip(fitting, partitions([r for _, r in fitting], nodes)):
            boxes[(design.spec, nodes)] = box
    return boxes


def predict_designs(workload: Workload, machine, designs: list[Candidate],
                    n_endpoints: int, cache: dict | None = None,
                    fewest: int = FEWEST) -> list[list[TermResult]]:
    """workload.predict_workload on every design (module docstring), in order. ``cache``:
    as predict_term's (one dict per workload and machine), shared with it; fewer than
    ``fewest`` designs go through predict_workload one by one (:data:`FEWEST`)."""
    cache = {} if cache is None else cache
    if len(designs) < fewest:
        return [predict_workload(workload, machine, d, n_endpoints, cache) for d in designs]
    params = collective_parameters(machine, "mpi", combine_time=0.0,
                                   element_size=ELEMENT_SIZE)
    timings = _Timings(params, collective_parameters(machine, "mpi"))
    apps = _App()
    batched = all(_batched(term) for term in workload.terms)
    pending: dict[tuple, object] = {}
    plans: list[list | None] = []
    # predict_term's cache key reads these two machine values: the same for every design
    machine_values = (machine.get("network.link_bandwidth"), machine.get("network.ring_ties"))
    boxes = _torus_boxes(designs, {n_endpoints if term.nodes is None else
                                   min(term.nodes, n_endpoints) for term in workload.terms})
    node_counts = [n_endpoints if term.nodes is None else min(term.nodes, n_endpoints)
                   for term in workload.terms]
    jobs: list[dict | None] = []
    for design in designs:
        if not batched or design.family in UNBATCHED_FAMILIES:
            jobs.append(None)
            continue
        jobs.append({nodes: job_layout(design, nodes, boxes.get((design.spec, nodes),
                                                                 FIND_BOX))
                     for nodes in dict.fromkeys(node_counts)})
    # the contenders' farthest ranks of every torus job, per dimension and rank count at once
    timings.add_farthest(layout for layouts in jobs if layouts
                         for layout, _ in layouts.values())
    for design, layouts in zip(designs, jobs):
        if layouts is None:
            plans.append(None)
            continue
        row = []
        for term, nodes in zip(workload.terms, node_counts):
            layout, placed = layouts[nodes]
            if term.nodes is not None and term.nodes > n_endpoints:
                placed = (f"the term asks for {term.nodes} nodes, more than the "
                          f"{n_endpoints} endpoints sized for; the job uses all of them",
                          *placed)
            key = (id(term), layout, *machine_values)
            if key in cache:
                finish = (lambda value: (lambda: value))(cache[key])
            elif key in pending:
                finish = pending[key]
            else:
                try:
                    if isinstance(term, CollectiveTerm):
                        finish = _plan_collective(term, machine, layout, params, timings)
                    else:
                        finish = _plan_app(term, machine, layout, params, timings, apps)
                except InputError as error:
                    raise InputError(f"term {term.name!r} on {design.spec}: {error}") \
                        from None
                pending[key] = finish
            row.append((term, layout, placed, key, finish))
        plans.append(row)
    timings.run()
    out = []
    for design, row in zip(designs, plans):
        if row is None:
            out.append(predict_workload(workload, machine, design, n_endpoints, cache))
            continue
        results = []
        for term, layout, placed, key, finish in row:
            if key not in cache:
                cache[key] = finish()
            seconds, used, notes, model_notes = cache[key]
            if not np.isfinite(seconds):
                raise InputError(f"term {term.name!r} on {design.spec}: the model gives no "
                                 "finite time")
            results.append(TermResult(term.name, term.weight, seconds, used, layout.text,
                                      placed + notes, model_notes))
        out.append(results)
    return out


