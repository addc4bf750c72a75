"""A workload: a weighted mix of collectives and applications, predicted on each design.

Workload time = Σ weight x (time of one run of the term), seconds; a weight is how many
times the term runs in the period the workload stands for. Each term runs on ``nodes``
nodes: ``"all"`` means the requested endpoint count N (not the design's own, which may be
larger), so every design runs the same jobs; a count above N is cut to N, with a note.

Where a job sits on a design (Layout):

* torus: the most balanced partition of n nodes that fits inside the design (partition.py:
  a box of the same dimension count whose sorted sides are no larger than the design's;
  the balanced shape of torus.balanced_torus_shape when it fits), taken with wraparound
  (collectives are modelled on tori, not meshes: a partition narrower than the design in a
  dimension is really a mesh there, so its collectives are somewhat optimistic). When no
  box of n nodes fits, the job's n nodes are the first n endpoints of the whole torus
  (dimension 0 fastest, as the other families place jobs); its hardware tree is then the
  whole torus's.
* fattree, xgft, dragonfly, megafly: the first n endpoints, one node each (linear placement);
  rail: the first n nodes, R NIC endpoints each, the machine's ``node.nics_per_node`` and
  ``node.gpu_nics`` set to the design's R (rail_designs.design_values);
  clos:radix=R,levels=L is mapped as FT(R/2, L), the same network.
* slimfly: collectives and applications are not modelled on slim fly (collectives.Layout
  has no slim fly routes); the term is evaluated on a crossbar of n endpoints (every
  message 1 hop) whose links carry only the slim fly's uniform saturation estimate of
  their bandwidth (model/topology/saturation.py for the machine's routers; at most
  Θ = min(1, 1/γ_uniform), model/topology/slimfly.py), so an oversubscribed slim fly (many
  endpoints per router) pays for it; the hop count and pattern-specific contention are
  not modelled, and the term says so. The proxy (proxy.py) derates by the same estimate.

Algorithms: ``best`` takes the fastest algorithm the model defines on the layout; a name,
or a list of names (the fastest of them), is used where the model defines it there. The hardware tree (hw-tree) and the
point-to-point tree exist only on tori (and hw-tree only when the machine has
network.collective_trees): asked for elsewhere, the term notes it and uses the best
available algorithm instead. No term is ever dropped. On a torus, the point-to-point
algorithms are mapped onto the network only when they could beat the tree algorithms of
the list: one whose lower bound (bound.universal_rounds_time: its fewest rounds, the
torus diameter and the bytes a rank must take in) already exceeds a tree algorithm's time
cannot be the fastest, so skipping it leaves the term's time unchanged and saves mapping
every round of it (most of the time of a torus design).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from icnperf.errors import InputError
from icnperf.model.collectives import collective_time, compare
from icnperf.model.collectives.layout import Layout
from icnperf.model.collectives.registry import ALGORITHMS, TABLE, operation_name
from icnperf.model.sizing.designs import Candidate
from icnperf.model.sizing.partition import partition
from icnperf.model.sizing.skeleton_terms import (SkeletonTerm, collective_operations,
                                                 skeleton_term)
from icnperf.model.topology.spec import parse_spec
from icnperf.units import parse_quantity

TREE_ALGORITHMS = ("hw-tree", "p2p-tree")
UNSCREENED_ALGORITHMS = ("linear", "pairwise", "reduce-bcast")
"""Algorithms whose steps let a rank receive from many peers at once, so the screen's
universal bound (at least ceil(lg p) rounds of one receive each, bound.fewest_rounds) does
not hold for them: a sizing workload may not name them, and "best" leaves them out."""
"""Algorithms the model defines on tori only."""

APPS = {
    "spmv": ("allgather", {"rows", "nonzeros_per_row", "iterations"}),
    "heat": ("allreduce", {"cells", "steps"}),
    "hpcg": ("allreduce", {"local", "iterations", "variant", "processes_per_node"}),
}
"""Applications a workload may name: the collective each uses and its problem keys
(model/apps: spmv.predict, heat.predict, hpcg.predict)."""

SLIMFLY_PROXY_NOTE = (
    "slimfly: collectives are not modelled on slim fly; the job is timed on a crossbar of as"
    " many endpoints (1 hop per message) with links derated to the slim fly's uniform"
    " saturation estimate (at most min(1, 1/gamma_uniform); docs/saturation.md):"
    " oversubscription counted, hops and pattern-specific contention not")

_COLLECTIVE_KEYS = {"name", "weight", "operation", "bytes", "algorithm", "nodes"}
_APP_KEYS = {"name", "weight", "app", "algorithm", "nodes", "problem"}


@dataclass(frozen=True)
class CollectiveTerm:
    """``weight`` runs of ``operation`` on ``message_bytes`` (B) over ``nodes`` nodes (None:
    all N) with ``algorithm`` ("best", a name, or a tuple of names: the best of those)."""

    name: str
    weight: float
    operation: str
    message_bytes: float
    algorithm: str | tuple[str, ...]
    nodes: int | None


@dataclass(frozen=True)
class AppTerm:
    """``weight`` runs of application ``app`` (its ``problem`` keywords) over ``nodes``
    nodes (None: all N), its collective by ``algorithm`` (as CollectiveTerm's)."""

    name: str
    weight: float
    app: str
    algorithm: str | tuple[str, ...]
    nodes: int | None
    problem: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Workload:
    """A named mix of terms and why it looks the way it does."""

    description: str
    rationale: str
    terms: tuple


@dataclass(frozen=True)
class TermResult:
    """One term on one design: seconds per run, weighted seconds, the algorithm and layout
    used, the sizing notes (placement, unavailable algorithms, proxies) and the application
    model's own assumptions (``model_notes``; empty for a collective)."""

    name: str
    weight: float
    time_s: float
    algorithm: str
    layout: str
    notes: tuple[str, ...]
    model_notes: tuple[str, ...] = ()

    @property
    def weighted_s(self) -> float:
        """weight x time_s, the term's share of the workload time (s)."""
        return self.weight * self.time_s


# --- parsing ---------------------------------------------------------------------------------


MAX_WEIGHT = 1e15
"""Largest weight of a term: runs in the period the workload stands for (10^15 runs of a
microsecond are 31 years). A weight of 1e308 made workload times and cost x time products
infinite, so every design tied."""


def _weight(raw, where: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 <= raw < float("inf"):
        raise InputError(f"{where}: weight must be a finite number >= 0, not {raw!r}")
    if raw > MAX_WEIGHT:
        raise InputError(f"{where}: weight {raw:.3g} is over {MAX_WEIGHT:.0e} (runs of the term "
                         "in the period the workload stands for)")
    return float(raw)


def _nodes(raw, where: str) -> int | None:
    if raw is None or raw == "all":
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 2:
        raise InputError(f"{where}: nodes must be \"all\" or a whole number >= 2, not {raw!r}")
    return raw


def _algorithm(raw, operation: str, where: str) -> str | tuple[str, ...]:
    """"best", one algorithm name, or a tuple of names (the best of those)."""
    if raw is None or raw == "best":
        return "best"
    names = raw if isinstance(raw, list) else [raw]
    if not names:
        raise InputError(f"{where}: algorithm list is empty")
    for name in names:
        if name in UNSCREENED_ALGORITHMS:
            raise InputError(f"{where}: algorithm {name} cannot be screened (its steps receive"
                             f" from many ranks at once, so the screen's lower bound does not"
                             f" cover it); use best or one of {', '.join(_screened())}")
        if name not in ALGORITHMS:
            raise InputError(f"{where}: unknown algorithm {name!r} (best, one of"
                             f" {', '.join(_screened())}, or a list of them)")
        if (name, operation) not in TABLE:
            raise InputError(f"{where}: algorithm {name} does not define {operation}")
    return names[0] if isinstance(raw, str) else tuple(names)


def _screened() -> tuple[str, ...]:
    """The algorithms a sizing workload may use (UNSCREENED_ALGORITHMS left out)."""
    return tuple(a for a in ALGORITHMS if a not in UNSCREENED_ALGORITHMS)


def _check_keys(item, allowed: set, where: str) -> None:
    if not isinstance(item, dict):
        raise InputError(f"{where}: expected a table of keys")
    for key in item:
        if key not in allowed:
            raise InputError(f"{where}: unknown key {key!r} (known: {', '.join(sorted(allowed))})")


def _collective(item, where: str) -> CollectiveTerm:
    _check_keys(item, _COLLECTIVE_KEYS, where)
    for key in ("weight", "operation"):
        if key not in item:
            raise InputError(f"{where}: missing {key}")
    try:
        operation = operation_name(str(item["operation"]))
        if operation == "barrier":
            size = 0.0
        else:
            if "bytes" not in item:
                raise InputError("missing bytes")
            size = parse_quantity(item["bytes"], "size", default_unit="B")
            if not size > 0:
                raise InputError("bytes must be > 0")
    except InputError as error:
        raise InputError(f"{where}: {error}") from None
    name = str(item.get("name", f"{operation} {item.get('bytes', '')}".strip()))
    return CollectiveTerm(name, _weight(item["weight"], where), operation, size,
                          _algorithm(item.get("algorithm"), operation, where),
                          _nodes(item.get("nodes"), where))


def _app(item, where: str, load_skeleton=None) -> AppTerm | SkeletonTerm:
    _check_keys(item, _APP_KEYS, where)
    for key in ("weight", "app"):
        if key not in item:
            raise InputError(f"{where}: missing {key}")
    app = item["app"]
    if app not in APPS:
        if load_skeleton is None or not isinstance(app, str):
            raise InputError(f"{where}: unknown app {app!r} (known: {', '.join(APPS)})")
        return _skeleton_app(item, where, load_skeleton)
    operation, keys = APPS[app]
    problem = item.get("problem", {})
    if not isinstance(problem, dict):
        raise InputError(f"{where}: problem must be a table of {', '.join(sorted(keys))}")
    for key in problem:
        if key not in keys:
            raise InputError(f"{where}: unknown problem key {key!r} for {app}"
                             f" (known: {', '.join(sorted(keys))})")
    if "local" in problem:
        local = problem["local"]
        if not (isinstance(local, list) and len(local) == 3):
            raise InputError(f"{where}: problem.local must be three sizes, e.g. [16, 16, 16]")
        problem = {**problem, "local": tuple(local)}
    algorithm = _algorithm(item.get("algorithm"), operation, where)
    if app == "hpcg" and "hw-tree" in ((algorithm,) if isinstance(algorithm, str) else algorithm):
        raise InputError(f"{where}: hpcg's dot products are MPI all-reduces; choose a"
                         " point-to-point algorithm or best")
    return AppTerm(str(item.get("name", app)), _weight(item["weight"], where), app,
                   algorithm, _nodes(item.get("nodes"), where), problem)


def _skeleton_app(item, where: str, load_skeleton) -> SkeletonTerm:
    """An [[app]] naming a skeleton (a bundled name or a file): ``[app.problem]`` sets its
    parameters (and ``processes_per_node``); ``algorithm`` absent keeps each collective
    phase's own, else it is set on every collective phase (the fastest of a list)."""
    app = item["app"]
    name = str(item.get("name", app))
    where = f"{where} ({name!r})"
    try:
        skeleton = load_skeleton(app)
    except InputError as error:
        raise InputError(f"{where}: {error}") from None
    problem = item.get("problem", {})
    if not isinstance(problem, dict):
        raise InputError(f"{where}: problem must be a table of the skeleton's parameters"
                         f" ({', '.join(skeleton.parameters) or 'none'})")
    problem = dict(problem)
    ppn = problem.pop("processes_per_node", None)
    if ppn is not None and (isinstance(ppn, bool) or not isinstance(ppn, int) or ppn < 1):
        raise InputError(f"{where}: problem.processes_per_node must be a whole number >= 1,"
                         f" not {ppn!r}")
    try:
        skeleton = skeleton.with_parameters(problem)
    except InputError as error:
        raise InputError(f"{where}: {error}") from None
    algorithm = None
    if item.get("algorithm") is not None:
        operations = collective_operations(skeleton)
        if not operations:
            raise InputError(f"{where}: algorithm does not apply: {skeleton.name} has no"
                             " collective phase")
        for operation in operations:
            algorithm = _algorithm(item["algorithm"], operation, where)
    return SkeletonTerm(name, _weight(item["weight"], where), app, skeleton, algorithm,
                        _nodes(item.get("nodes"), where), ppn)


def workload_from_dict(data: dict, origin: str, load_skeleton=None) -> Workload:
    """A Workload from a parsed workload TOML: ``description``, ``rationale`` and arrays of
    tables ``[[collective]]`` (name, weight, operation, bytes, algorithm, nodes) and
    ``[[app]]`` (name, weight, app, algorithm, nodes, [app.problem]). InputError names the
    first unknown, missing or bad key. ``load_skeleton(text)`` (the data room's reader,
    relative paths taken from the workload file's folder) gives the skeleton an [[app]]
    names when ``app`` is not one of :data:`APPS`; without it such an app is unknown."""
    allowed = {"description", "rationale", "collective", "app"}
    _check_keys(data, allowed, origin)
    for key in ("description", "rationale"):
        if not isinstance(data.get(key, ""), str):
            raise InputError(f"{origin}: {key} must be text")
    terms = []
    parse_app = (lambda item, where: _app(item, where, load_skeleton))
    for kind, parse in (("collective", _collective), ("app", parse_app)):
        items = data.get(kind, [])
        if not isinstance(items, list):
            raise InputError(f"{origin}: {kind} must be an array of tables [[{kind}]]")
        terms.extend(parse(item, f"{origin}: {kind} {i + 1}") for i, item in enumerate(items))
    if not terms:
        raise InputError(f"{origin}: no [[collective]] or [[app]] terms")
    names = [t.name for t in terms]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate is not None:
        raise InputError(f"{origin}: term name {duplicate!r} is used twice")
    return Workload(str(data.get("description", "")), str(data.get("rationale", "")),
                    tuple(terms))


# --- placing a job on a design ---------------------------------------------------------------


FIND_BOX = "find"
"""job_layout's ``box`` when the caller has not found the torus partition."""


def job_layout(design: Candidate, nodes: int,
               box: tuple[int, ...] | None | str = FIND_BOX) -> tuple[Layout, tuple[str, ...]]:
    """The Layout of a job of ``nodes`` nodes on a design, and the notes saying how it was
    placed (module docstring). ``box``: on a torus, its partition for the job when the
    caller found it (partition.partitions, for many designs at once; None: no box fits)."""
    spec = parse_spec(design.spec)
    family = spec.family.name
    if nodes > design.endpoints:
        raise InputError(f"a job of {nodes} nodes does not fit {design.spec}"
                         f" ({design.endpoints} endpoints)")
    if family == "torus":
        radices = spec.params["radices"]
        dims = len(radices)
        shape = partition(radices, nodes) if box == FIND_BOX else box
        if shape is None:
            return Layout(nodes, tuple(int(k) for k in radices)), (
                f"no {dims}D box of {nodes} nodes fits; the job is on endpoints 0..{nodes - 1}"
                " of the whole torus (linear placement)",)
        shape_text = "x".join(map(str, shape))
        if math.prod(shape) == math.prod(radices):
            return Layout.torus(radices), ("the job uses the whole torus",)
        return Layout.torus(shape), (
            f"{nodes} nodes as the {dims}D torus partition {shape_text} with wraparound",)
    if family == "slimfly":
        return Layout.crossbar(nodes), (SLIMFLY_PROXY_NOTE,)
    if family == "rail":
        whole = Layout.from_topology(design.spec)
        rails = int(spec.params["rails"])
        if nodes < whole.endpoints:
            return whole.on_part(nodes), (f"{nodes} nodes of {rails} NICs on NIC endpoints"
                                          f" 0..{nodes * rails - 1} (linear placement)",)
        return whole, ("the job uses every node",)
    if family == "clos":
        network = ("fattree", spec.params["radix"] // 2, spec.params["levels"])
    elif family == "xgft":
        m, w = spec.params["m"], spec.params["w"]
        network = ("xgft", m, w, spec.params.get("p", (1,) * len(m)))
    else:
        network = (family, *(int(spec.params[k]) for k in spec.family.parameters))
    note = (f"{nodes} nodes on endpoints 0..{nodes - 1} (linear placement)"
            if nodes < design.endpoints else "the job uses every endpoint")
    return Layout(nodes, None, network), (note,)


def available(algorithm: str, operation: str, layout: Layout, machine) -> str | None:
    """None when the model defines ``algorithm`` for ``operation`` on the layout and the
    machine; otherwise the reason it does not."""
    if (algorithm, operation) not in TABLE:
        return f"{algorithm} does not define {operation}"
    if algorithm in TREE_ALGORITHMS and not layout.is_torus:
        return f"{algorithm} is modelled on tori only, not on {layout.family}"
    if algorithm == "hw-tree" and not machine.get("network.collective_trees"):
        return "the machine has no hardware collectives (network.collective_trees)"
    return None


def _candidates(algorithm, operation: str, layout: Layout, machine,
                exclude: tuple[str, ...] = ()) -> tuple[list[str], tuple[str, ...]]:
    """Algorithms to try for a term ("best": all the model defines; a name or a tuple of
    names: those the model defines here, else every one), and the note when some named
    algorithm is unavailable."""
    named = (algorithm,) if isinstance(algorithm, str) and algorithm != "best" else (
        () if algorithm == "best" else tuple(algorithm))
    reasons = {a: available(a, operation, layout, machine) for a in named}
    usable = [a for a in named if reasons[a] is None and a not in exclude]
    notes = tuple(f"{a} not available ({r})" for a, r in reasons.items() if r is not None)
    if usable:
        return usable, notes
    if notes:
        notes = notes[:-1] + (notes[-1] + "; the best available algorithm is used",)
    usable = [a for a in _screened() if a not in exclude
              and available(a, operation, layout, machine) is None]
    if not usable:
        raise InputError(f"no algorithm defines {operation} on {layout.text}")
    return usable, notes


# --- prediction ------------------------------------------------------------------------------


def _contenders(algorithms: list[str], operation: str, m: float, layout: Layout,
                machine) -> list[str]:
    """The algorithms that can be the fastest (module docstring: on a torus, a
    point-to-point algorithm whose lower bound exceeds a tree algorithm's time cannot)."""
    trees = [a for a in algorithms if a in TREE_ALGORITHMS]
    if not layout.is_torus or not trees or len(trees) == len(algorithms):
        return algorithms
    from icnperf.model.collectives.parameters import collective_parameters
    from icnperf.model.sizing.bound import universal_rounds_time
    from icnperf.model.sizing.views import farthest_rank

    sizes = None if operation == "barrier" else [m]
    fastest = min(float(collective_time(machine, operation, a, sizes, layout=layout).time[0])
                  for a in trees)
    farthest = farthest_rank(layout.radices, layout.ranks)
    floor = float(universal_rounds_time(operation, 0.0 if operation == "barrier" else m,
                                        layout.ranks, farthest,
                                        collective_parameters(machine, "mpi"))[0])
    return [a for a in algorithms if a in TREE_ALGORITHMS or not floor > fastest]


def _collective_term(term: CollectiveTerm, machine,
                     layout: Layout) -> tuple[float, str, tuple, tuple]:
    algorithms, note = _candidates(term.algorithm, term.operation, layout, machine)
    algorithms = _contenders(algorithms, term.operation, term.message_bytes, layout, machine)
    sizes = None if term.operation == "barrier" else [term.message_bytes]
    if len(algorithms) == 1:
        result = collective_time(machine, term.operation, algorithms[0], sizes, layout=layout)
        return float(result.time[0]), algorithms[0], note, ()
    results = compare(machine, term.operation, sizes, layout=layout, algorithms=algorithms)
    best = min(results, key=lambda a: float(results[a].time[0]))
    return float(results[best].time[0]), best, note, ()


def _app_term(term: AppTerm, machine, layout: Layout):
    from icnperf.model.apps import heat, hpcg, spmv

    predictor = {"spmv": spmv.predict, "heat": heat.predict, "hpcg": hpcg.predict}[term.app]
    operation = APPS[term.app][0]
    exclude = ("hw-tree",) if term.app == "hpcg" else ()
    algorithms, note = _candidates(term.algorithm, operation, layout, machine, exclude)
    if term.app != "hpcg":
        m = 8.0 if term.app == "heat" else 8.0 * term.problem.get(
            "rows", app_default("spmv", "rows"))
        algorithms = _contenders(algorithms, operation, m, layout, machine)
    results = [predictor(machine, layout, algorithm=a, **term.problem) for a in algorithms]
    best = min(results, key=lambda r: r.total_s)
    return float(best.total_s), best.algorithm, note, tuple(best.notes)


@lru_cache(maxsize=None)
def app_default(app: str, key: str):
    """The default of an application model's keyword (its predict's signature)."""
    import inspect

    from icnperf.model.apps import heat, hpcg, spmv

    predictor = {"heat": heat.predict, "spmv": spmv.predict, "hpcg": hpcg.predict}[app]
    return inspect.signature(predictor).parameters[key].default


def predict_term(term, machine, design: Candidate, n_endpoints: int,
                 cache: dict | None = None) -> TermResult:
    """One term on one design (``machine`` already carries the design's topology).

    ``cache`` (a dict kept across designs) reuses a term's result on an equal Layout: with
    the layout given, the models read only the machine's parameters, not its topology.
    """
    nodes = n_endpoints if term.nodes is None else min(term.nodes, n_endpoints)
    layout, placed = job_layout(design, nodes)
    if term.nodes is not None and term.nodes > n_endpoints:
        cut = (f"the term asks for {term.nodes} nodes, more than the {n_endpoints}"
               " endpoints sized for; the job uses all of them")
        placed = (cut, *placed)
    key = (id(term), layout, machine.get("network.link_bandwidth"),
           machine.get("network.ring_ties"))
    if cache is not None and key in cache:
        seconds, used, notes, model_notes = cache[key]
    else:
        try:
            if isinstance(term, CollectiveTerm):
                seconds, used, notes, model_notes = _collective_term(term, machine, layout)
            elif isinstance(term, SkeletonTerm):
                seconds, used, notes, model_notes = skeleton_term(term, machine, layout,
                                                                  _candidates)
            else:
                seconds, used, notes, model_notes = _app_term(term, machine, layout)
        except InputError as error:
            raise InputError(f"term {term.name!r} on {design.spec}: {error}") from None
        if cache is not None:
            cache[key] = (seconds, used, notes, model_notes)
    if not np.isfinite(seconds):
        raise InputError(f"term {term.name!r} on {design.spec}: the model gives no finite time")
    return TermResult(term.name, term.weight, seconds, used, layout.text, placed + notes,
                      model_notes)


def predict_workload(workload: Workload, machine, design: Candidate, n_endpoints: int,
                     cache: dict | None = None) -> list[TermResult]:
    """Every term of the workload on the design, in the workload's order. ``machine``
    supplies the network, node and software parameters; its topology is replaced by the
    design's. ``cache``: see predict_term (one dict per workload and machine)."""
    machine = machine.with_values({"topology": design.spec}, "icnperf size: candidate design")
    if parse_spec(design.spec).family.name == "rail":
        from icnperf.model.sizing.rail_designs import design_values

        machine = machine.with_values(
            design_values(int(parse_spec(design.spec).params["rails"]),
                          int(machine.require("node.accelerators"))),
            "icnperf size: the design's NICs per node, GPU g on NIC floor(g R / A)")
    if parse_spec(design.spec).family.name == "slimfly":
        machine = machine.with_values(
            {"network.link_bandwidth": float(machine.require("network.link_bandwidth"))
             * slimfly_throughput(design.spec, machine)},
            "icnperf size: link bandwidth x the slim fly's uniform saturation estimate")
    return [predict_term(term, machine, design, n_endpoints, cache)
            for term in workload.terms]


def slimfly_throughput(spec: str, machine) -> float:
    """A slim fly's uniform saturation estimate for the machine's routers
    (model/topology/saturation.py, machine_router; at most Θ = min(1, 1/γ_uniform)), the
    fraction of a link's bandwidth its crossbar stand-in keeps (module docstring)."""
    from icnperf.model.topology.saturation import machine_router, saturation_of

    parsed = parse_spec(spec)
    return float(saturation_of("slimfly", parsed.params, parsed.evaluate(), "uniform",
                               machine_router(machine))["saturation_estimate"])
