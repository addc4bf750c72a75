"""Workload terms that run an application skeleton (docs/skeleton-format.md): the record, its
time on a job layout through the skeleton evaluator (model/apps/timing.run), and the lower
bound the screen uses for it.

A skeleton term runs the skeleton, its parameters set from the workload's ``[app.problem]``,
on the job's layout, exactly as ``icnperf predict app`` does on that layout. Its
``algorithm`` is None (each collective phase keeps the algorithm the skeleton names) or the
algorithms to try, each set on every collective phase (``predict app --algorithm``), the
fastest total kept.

Bound (:func:`bound_phases`, combined per design by proxy.py): per phase, repeat x
(compute + communication bound), or repeat x max(compute, communication bound) when the
phase overlaps them; the compute exact (:func:`icnperf.model.apps.timing.phase_computes`,
which reads the machine's values, never its topology). With one process per node and the
MPI software overhead (the proxy's parameters), a halo or point-to-point phase is the
model's own step T(m, h, c) + (k - 1) g(m) (patterns.message_term: one process per node
on consecutive endpoints shares no adapter) at the hop count and channel load the proxy's
views bound from below for that very set of messages (a traffic.Round), exactly as heat's
halo; a collective phase is bounded as a collective term of the same operation and m, by
the algorithms the full model may pick: the workload's, or the phase's own when the
workload names none, except ``auto`` and the library algorithms, which the screen's bound
does not cover (those phases, several processes per node, another API, an all-to-all
pattern too large to map and helpers count 0). The compute reads ``network.`` values too
when an expression names one: on a slim fly, whose stand-in derates
``network.link_bandwidth``, such a skeleton is bounded by 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from icnperf.errors import InputError
from icnperf.model.apps import patterns, timing
from icnperf.model.apps.expression_values import value
from icnperf.model.apps.skeleton import Skeleton
from icnperf.model.sizing.traffic import Round, make_round

__all__ = ["PhaseBound", "SkeletonTerm", "bound_phases", "collective_operations",
           "reads_network", "skeleton_term", "skeleton_term_time"]

LIBRARY_ALGORITHMS = ("best", "auto", "linear", "pairwise", "reduce-bcast")
"""A phase's own algorithms the screen's collective bound does not cover (workload.py's
UNSCREENED_ALGORITHMS, and best and auto, which may pick them)."""


@dataclass(frozen=True)
class SkeletonTerm:
    """``weight`` runs of ``skeleton`` (parameters already set) over ``nodes`` nodes (None:
    all N) with ``ppn`` processes per node (None: the skeleton's, else the machine's);
    ``app`` the name or path the workload gave; ``algorithm`` None (the skeleton's own),
    "best", a name or a tuple of names (as CollectiveTerm's), set on every collective
    phase."""

    name: str
    weight: float
    app: str
    skeleton: Skeleton
    algorithm: str | tuple[str, ...] | None
    nodes: int | None
    ppn: int | None = None


def collective_operations(skeleton: Skeleton) -> tuple[str, ...]:
    """The collective operations of the skeleton's phases, in order, each once."""
    ops = [p.collective.op for p in skeleton.phases if p.collective is not None]
    return tuple(dict.fromkeys(ops))


def _own_algorithms(skeleton: Skeleton) -> str:
    names = [p.collective.algorithm for p in skeleton.phases if p.collective is not None]
    return "+".join(dict.fromkeys(names)) or "none"


def skeleton_term_time(term: SkeletonTerm, machine, layout,
                       algorithms) -> tuple[float, str, tuple[str, ...]]:
    """(seconds per run, the algorithm used, the model's notes) of the skeleton on
    ``layout``: the fastest of ``algorithms`` set on every collective phase, or the
    skeleton's own when ``algorithms`` is (None,)."""
    best = None
    for algorithm in algorithms:
        result = timing.run(term.skeleton, machine, layout, ppn=term.ppn, algorithm=algorithm)
        if best is None or result.total_s < best[1].total_s:
            best = (algorithm, result)
    algorithm, result = best
    used = _own_algorithms(term.skeleton) if algorithm is None else algorithm
    origin = term.skeleton.origin or term.app
    notes = (f"skeleton {term.skeleton.name} ({origin}), {result.ppn} process(es) per node,"
             " evaluated by model/apps/timing at every design",
             *term.skeleton.notes)
    return float(result.total_s), used, notes


def skeleton_term(term: SkeletonTerm, machine, layout, candidates):
    """(seconds, algorithm used, sizing notes, model notes) of a skeleton term on a job
    layout: its own algorithms, or the fastest of those the workload names that the model
    defines here for every collective operation of the skeleton. ``candidates`` is
    workload's rule (algorithm, operation, layout, machine) -> (usable names, notes)."""
    if term.algorithm is None:
        algorithms, note = [None], ()
    else:
        algorithms, note = None, ()
        for operation in collective_operations(term.skeleton):
            usable, why = candidates(term.algorithm, operation, layout, machine)
            algorithms = usable if algorithms is None else [a for a in algorithms
                                                            if a in usable]
            note += tuple(n for n in why if n not in note)
        if not algorithms:
            raise InputError(f"no algorithm of {term.algorithm} defines every collective of"
                             f" {term.skeleton.name} on {layout.text}")
    seconds, used, model_notes = skeleton_term_time(term, machine, layout, algorithms)
    return seconds, used, note, model_notes


def reads_network(term: SkeletonTerm) -> bool:
    """True when an expression of the skeleton reads a ``network.`` machine value."""
    return any(key.startswith("network.") for key in term.skeleton.machine_keys())


@dataclass(frozen=True)
class PhaseBound:
    """What the proxy needs of one phase at the term's node count: ``repeat``, ``compute``
    per repeat (s, exact), ``overlap``; ``rounds``: (Round, m, k) messages sent at once,
    bounded as T(m, h, c) + (k - 1) g(m); ``collectives``: (operation, m, algorithm as a
    workload term's: "best", a name or a tuple)."""

    repeat: float
    compute: float
    overlap: bool
    rounds: tuple[tuple[Round, float, int], ...] = ()
    collectives: tuple[tuple[str, float, object], ...] = ()


def bound_phases(term: SkeletonTerm, machine, nodes: int) -> tuple[PhaseBound, ...]:
    """The term's phases at ``nodes`` nodes, as the proxy bounds them (module docstring)."""
    try:
        phases, env, ppn = timing.phase_computes(term.skeleton, machine, nodes, ppn=term.ppn)
        return tuple(_phase_bound(term, phase, repeat, compute, env, ppn, nodes)
                     for phase, (repeat, compute) in zip(term.skeleton.phases, phases))
    except InputError as error:
        raise InputError(f"term {term.name!r}: {error}") from None


def _phase_bound(term, phase, repeat, compute, env, ppn, nodes) -> PhaseBound:
    if ppn != 1 or phase.api != "mpi" or not phase.has_communication:
        return PhaseBound(repeat, compute, phase.overlap)
    at = f"at N = {nodes} (P = {nodes})"
    rounds, collectives = [], []
    if phase.halo is not None:
        h = phase.halo
        src, dst, k = patterns.halo_pairs(patterns.halo_grid(nodes, h.dims), h.periodic,
                                          h.axes)
        rounds.append((src, dst, k, float(value(h.bytes, env, at))))
    if phase.p2p is not None:
        p = phase.p2p
        distance = 1 if p.distance is None else int(value(p.distance, env, at))
        if p.pattern != "alltoall" or nodes * (nodes - 1) <= patterns.MAX_ALLTOALL_MESSAGES:
            src, dst, k = patterns.p2p_pairs(p.pattern, nodes, distance)
            rounds.append((src, dst, k, float(value(p.bytes, env, at))))
    if phase.collective is not None and nodes >= 2:
        c = phase.collective
        algorithm = term.algorithm if term.algorithm is not None else c.algorithm
        per_rank = None if c.bytes is None else float(value(c.bytes, env, at))
        m = 0.0 if c.op == "barrier" else (
            per_rank * nodes if c.op in ("allgather", "alltoall") else per_rank)
        if algorithm not in LIBRARY_ALGORITHMS and (c.op == "barrier" or m > 0):
            collectives.append((c.op, m, algorithm))
    messages = tuple((make_round(1, m, False, src, dst), m, k)
                     for src, dst, k, m in rounds if k and len(src))
    return PhaseBound(repeat, compute, phase.overlap, messages, tuple(collectives))
