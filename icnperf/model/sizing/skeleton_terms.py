"""Workload terms that run an application skeleton (docs/skeleton-format.md): the record, its
time on a job layout through the skeleton evaluator (model/apps/timing.run), and the lower
bound the screen uses for it.

A skeleton term runs the skeleton, its parameters set from the workload's ``[app.problem]``,
on the job's layout, exactly as ``icnperf predict app`` does on that layout. Its
``algorithm`` is None (each collective phase keeps the algorithm the skeleton names) or the
algorithms to try, each set on every collective phase (``predict app --algorithm``), the
fastest total kept.

Bound: the skeleton's compute, Σ_phases repeat x compute per repeat
(:func:`icnperf.model.apps.timing.compute_time`), which every phase's time is at least (its
communication adds to it, or overlaps it) on any design. The compute reads the machine's
values, never its topology, so it is one number per term for the whole space, except on a
slim fly, whose stand-in derates ``network.link_bandwidth``: a skeleton whose expressions
read a ``network.`` value is bounded by 0 there. The communication is not bounded, so the
screen sends to the full model every design whose other terms and this compute leave it a
chance on the front.
"""

from __future__ import annotations

from dataclasses import dataclass

from icnperf.errors import InputError
from icnperf.model.apps import timing
from icnperf.model.apps.skeleton import Skeleton

__all__ = ["SkeletonTerm", "collective_operations", "compute_bound", "reads_network",
           "skeleton_term", "skeleton_term_time"]


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


def compute_bound(term: SkeletonTerm, machine, nodes: int) -> float:
    """The term's lower bound on any design (module docstring): its compute time (s)."""
    try:
        return timing.compute_time(term.skeleton, machine, nodes, ppn=term.ppn)
    except InputError as error:
        raise InputError(f"term {term.name!r}: {error}") from None


def reads_network(term: SkeletonTerm) -> bool:
    """True when an expression of the skeleton reads a ``network.`` machine value."""
    return any(key.startswith("network.") for key in term.skeleton.machine_keys())
