"""A skeleton's time on a machine and node count: every phase's compute and communication.

Per phase, per repeat, on the phase's slowest rank (a bulk-synchronous phase ends when its
last rank ends; the skeleton's expressions give the busiest rank's work, e.g.
``ceiling(rows / P)``, and the communication is charged its largest hop count and channel
load, :mod:`icnperf.model.apps.patterns`):

* **compute** = fixed + max(flops / (R / ppn), memory_bytes / (B / ppn)), a roofline in
  which the node's ppn ranks share its FLOP rate R (``rate``, default node.peak_flops) and
  memory bandwidth B (``bandwidth``, default node.memory_bandwidth); terms that are not
  given are left out. On a machine with node types the compute is evaluated for every type
  (its node values replacing [node]'s) and the slowest counts: every type is taken to be in
  the allocation.
* **communication** = halo + collective + p2p + helper, whichever the phase has, one after
  the other.
* per repeat = compute + communication, or the larger of the two when ``overlap``;
  phase time = repeat x per repeat; total = Σ phases.

The environment of the expressions: the parameters, coefficients, P = N x ppn, N, ppn, every
numeric machine value (``node.KEY``; absent keys take the skeleton's machine_defaults) and
the definitions, evaluated in order. A value that is negative, complex or not finite is an
InputError naming the phase, the key and the node count; so is a time or FLOP count beyond
the largest float (about 1.8e308), which finite inputs can reach (1e300 FLOP at 1e-10 FLOP/s).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from typing import NamedTuple

from icnperf.errors import InputError
from icnperf.model import collectives, network
from icnperf.model.apps import node_rates, patterns
from icnperf.model.apps.expression_values import value
from icnperf.model.apps.gpu import gpu_step
from icnperf.model.apps.helpers import HELPERS, HelperContext
from icnperf.model.apps.skeleton import Skeleton

__all__ = ["PhaseResult", "SkeletonResult", "derived_notes", "environment", "phase_computes",
           "processes_per_node", "run"]

_SECTIONS = ("network", "node", "software")


class PhaseResult(NamedTuple):
    """One phase on one node count. Times in seconds: ``compute_s`` and
    ``communication_s`` per repeat, ``per_repeat_s`` (their sum or, overlapped, the larger),
    ``time_s`` = repeat x per_repeat_s. ``flops`` and ``memory_bytes`` per rank per repeat
    (None when not given); ``bound`` what limits the compute (flops, memory, fixed or
    none); ``node_type`` the slowest node type (None without types); ``terms`` the
    communication charges."""

    name: str
    repeat: float
    compute_s: float
    communication_s: float
    per_repeat_s: float
    time_s: float
    flops: float | None
    memory_bytes: float | None
    bound: str
    node_type: str | None
    terms: tuple


class SkeletonResult(NamedTuple):
    """A skeleton on one node count: its phases, ``total_s`` (Σ phase times) and ``flops``
    (the run's FLOP count: total_flops, else Σ repeat x flops x P; None when no phase counts
    FLOP); ``notes`` the machine values derived for it (:func:`derived_notes`)."""

    app: str
    nodes: int
    ranks: int
    ppn: int
    layout: str
    phases: tuple
    total_s: float
    flops: float | None
    parameters: dict
    notes: tuple = ()

    @property
    def gflops(self) -> float | None:
        """GFLOP/s of the run (None without a FLOP count)."""
        return None if self.flops is None or self.total_s <= 0 else \
            self.flops / self.total_s / 1e9


def processes_per_node(skeleton: Skeleton, machine, ppn: int | None = None) -> int:
    """Processes per node: ``ppn`` if given, else the skeleton's, else the machine's
    node.processes_per_node, else 1."""
    for candidate in (ppn, skeleton.processes_per_node,
                      machine.get("node.processes_per_node")):
        if candidate is not None:
            if isinstance(candidate, bool) or int(candidate) != candidate or candidate < 1:
                raise InputError(f"processes per node must be a whole number >= 1, not "
                                 f"{candidate!r}")
            return int(candidate)
    return 1


def _given_values(skeleton: Skeleton, machine, node_params=None) -> dict:
    """The machine's numeric values over the skeleton's machine_defaults, a node type's
    values (``node_params``) replacing [node]'s."""
    values = dict(skeleton.machine_defaults)
    for section in _SECTIONS:
        for key, v in getattr(machine, section).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                values[f"{section}.{key}"] = v
    for key, v in (node_params or {}).items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            values[f"node.{key}"] = v
    return values


def _machine_values(skeleton: Skeleton, machine, node_params=None) -> dict:
    """:func:`_given_values` with the rates the skeleton reads and the machine lacks derived
    from the node's roofline (:mod:`.node_rates`); InputError for any other missing key."""
    values = _given_values(skeleton, machine, node_params)
    for path, (rate, _) in node_rates.derived_rates(skeleton.machine_keys(), values).items():
        values[path] = rate
    for path in sorted(skeleton.machine_keys()):
        if path not in values:
            machine.require(path)
    return values


def derived_notes(skeleton: Skeleton, machine) -> tuple[str, ...]:
    """What :mod:`.node_rates` derived for the skeleton on this machine, one note per rate
    (and per node type, named, on a machine with types)."""
    notes = [note for _, note in node_rates.derived_rates(
        skeleton.machine_keys(), _given_values(skeleton, machine)).values()]
    for name, params in _node_types(machine):
        notes += [f"node type {name}: {note}" for _, note in node_rates.derived_rates(
            skeleton.machine_keys(), _given_values(skeleton, machine, params), True).values()]
    return tuple(notes)


def environment(skeleton: Skeleton, machine, nodes: int, ppn: int,
                node_params=None) -> dict:
    """The values every expression of the skeleton sees at ``nodes`` nodes (module
    docstring); ``node_params`` a node type's values, replacing [node]'s."""
    env = {**_machine_values(skeleton, machine, node_params), **skeleton.parameters,
           **skeleton.coefficients, "N": Fraction(nodes), "ppn": Fraction(ppn),
           "P": Fraction(nodes * ppn)}
    at = _at(nodes, ppn)
    for name, e in skeleton.defines:
        env[name] = value(e, env, at)
    return env


def _at(nodes: int, ppn: int) -> str:
    return f"at N = {nodes} (P = {nodes * ppn})"


def _finite(v, what: str, at: str) -> float:
    """``v`` (a Fraction or a float) as a float; InputError naming ``what`` when it is
    beyond the largest float or not a number."""
    try:
        out = float(v)
    except OverflowError:
        out = math.inf
    if not math.isfinite(out):
        raise InputError(f"{what} is too large {at} (over {sys.float_info.max:.3g})")
    return out


def _nonnegative(expression, env, at, strict=False) -> float | Fraction:
    v = value(expression, env, at)
    if v < 0 or (strict and v == 0):
        word = "positive" if strict else ">= 0"
        raise InputError(f"{expression.where}: the value is {float(v):g} {at}; it must be "
                         f"{word}")
    return v


def _compute(phase, env, at, ppn: int, machine, where: str):
    """(compute per repeat, flops, memory bytes, bound) in one environment."""
    if not phase.has_compute:
        return 0.0, None, None, "none"
    times = {}
    flops = memory = None
    if phase.flops is not None:
        flops = _nonnegative(phase.flops, env, at)
        rate = (_nonnegative(phase.rate, env, at, strict=True) if phase.rate is not None
                else _machine_rate(env, machine, "node.peak_flops"))
        times["flops"] = flops / (rate / ppn)
    if phase.memory_bytes is not None:
        memory = _nonnegative(phase.memory_bytes, env, at)
        bandwidth = (_nonnegative(phase.bandwidth, env, at, strict=True)
                     if phase.bandwidth is not None
                     else _machine_rate(env, machine, "node.memory_bandwidth"))
        times["memory"] = memory / (bandwidth / ppn)
    fixed = _nonnegative(phase.fixed, env, at) if phase.fixed is not None else 0
    bound, roof = "fixed", 0
    if times:
        bound = max(times, key=lambda k: times[k])
        roof = times[bound]
    return _finite(fixed + roof, f"{where}: the compute time", at), \
        (None if flops is None else float(flops)), \
        (None if memory is None else float(memory)), bound


def _machine_rate(env, machine, path):
    """The machine's (or the skeleton's default) rate ``path`` that a phase divides by;
    InputError when it is not above 0 (a [machine_defaults] value of 0 for a machine that
    lacks the key)."""
    if path not in env:
        machine.require(path)
    rate = env[path]
    if not rate > 0:
        raise InputError(f"{path} is {float(rate):g}: a phase that charges "
                         f"{'flops' if path == 'node.peak_flops' else 'memory_bytes'} needs "
                         "it above 0 (set it in the machine or the skeleton's "
                         "[machine_defaults], or give the phase its own rate)")
    return rate


def _node_types(machine):
    types = getattr(machine, "node_types", {}) or {}
    return [(name, dict(t.params)) for name, t in types.items()]


def _gpu_term(kind, machine, placed, pairs, mapping, m, params, ppn, detail):
    """The term of messages between ranks on GPU buffers (model/apps/gpu.gpu_step): the
    inter-node ones as message_term with each GPU's NIC as its adapter, the intra-node ones
    a copy over the slowest GPU pair's route, latency + m / bandwidth plus the send gaps;
    the larger counts, as for a host copy."""
    copy, link, note = gpu_step(machine, placed, pairs[0], pairs[1], ppn)
    if link is not None:
        mapping = mapping._replace(load=link[0], host=link[1])
    if copy is None:
        return patterns.message_term(kind, mapping, m, params, detail + note)
    gaps = (mapping.messages - 1) * float(collectives.send_gap(
        m, **network.bind(collectives.send_gap, params)))
    inside = copy[0] + m / copy[1] + gaps
    if mapping.host == 0:
        return patterns.CommunicationTerm(kind, inside, m, mapping.messages, 0, 0, 0, True,
                                          detail + note)
    term = patterns.message_term(kind, mapping._replace(intra=False), m, params,
                                 detail + note)
    return term._replace(time_s=max(term.time_s, inside), intra=True)


def _ccl_term(phase, machine, layout, env, at, ppn, algorithm):
    """A collective phase under ``api = "nccl"|"rccl"|"ccl"`` (ccl: the machine's
    ``software.ccl_library``, NCCL when it names none): the library's collective over
    ``collective.ranks`` GPUs (default every rank), nodes of ``ppn`` GPUs
    (collectives.nccl_api.ccl_time); ``algorithm`` best or auto overrides the phase's."""
    from icnperf.model.collectives.nccl_api import ccl_time

    c = phase.collective
    size = float(_nonnegative(c.bytes, env, at))
    ranks = layout.endpoints * ppn
    if c.ranks is not None:
        ranks = int(_nonnegative(c.ranks, env, at))
    chosen = algorithm if algorithm in ("best", "auto") else c.algorithm
    library = (machine.get("software.ccl_library") or "nccl") if phase.api == "ccl" \
        else phase.api
    time, ran = ccl_time(machine, ranks, ppn, c.op, size, chosen, library)
    detail = f"{c.op} of {patterns.byte_count(size)} B by {ran} over {ranks} GPUs ({library})"
    return patterns.CommunicationTerm("collective", time, size, 0, None, None, None, None,
                                      detail, ran.split(" ")[0])


def _communication(phase, machine, layout, env, at, ppn, algorithm, params_by_api,
                   point_to_point=False, gpu_buffers=False):
    terms = []
    placed = layout.placed(ppn, layout.placement, layout.seed)
    params = None if phase.on_gpu_library else params_by_api(phase.api)
    ranks = layout.endpoints * ppn
    if phase.halo is not None:
        halo = phase.halo
        m = float(_nonnegative(halo.bytes, env, at))
        grid = patterns.halo_grid(ranks, halo.dims)
        mapping = patterns.halo_mapping(placed, grid, halo.periodic, halo.axes)
        axes = "all axes" if halo.axes is None else "axes " + ",".join(map(str, halo.axes))
        detail = (f"halo on the {'x'.join(map(str, grid))} process grid, "
                  f"{'periodic' if halo.periodic else 'non-periodic'}, {axes}")
        if gpu_buffers and mapping.messages:
            pairs = patterns.halo_pairs(grid, halo.periodic, halo.axes)
            terms.append(_gpu_term("halo", machine, placed, pairs, mapping, m, params, ppn,
                                   detail))
        else:
            terms.append(patterns.message_term("halo", mapping, m, params, detail))
    if phase.collective is not None and phase.on_gpu_library:
        terms.append(_ccl_term(phase, machine, layout, env, at, ppn, algorithm))
    elif phase.collective is not None:
        c = phase.collective
        per_rank = (None if c.bytes is None else _nonnegative(c.bytes, env, at))
        chosen = c.point_to_point if point_to_point else (algorithm or c.algorithm)
        terms.append(patterns.collective_term(machine, layout, c.op, chosen, per_rank,
                                              c.scope, ppn, phase.api,
                                              hardware=not point_to_point))
    if phase.p2p is not None:
        p = phase.p2p
        m = float(_nonnegative(p.bytes, env, at))
        distance = 1
        if p.distance is not None:
            d = value(p.distance, env, at)
            if d != int(d):
                raise InputError(f"{p.distance.where}: a shift distance must be a whole "
                                 f"number, not {float(d):g} {at}")
            distance = int(d)
        mapping = patterns.p2p_mapping(placed, p.pattern, ranks, distance)
        detail = f"{p.pattern}" + (f" by {distance}" if p.pattern == "shift" else "") + \
            f" over {ranks} ranks"
        if gpu_buffers and mapping.messages:
            pairs = patterns.p2p_pairs(p.pattern, ranks, distance)
            terms.append(_gpu_term("p2p", machine, placed, pairs, mapping, m, params, ppn,
                                   detail))
        else:
            terms.append(patterns.message_term("p2p", mapping, m, params, detail))
    if phase.helper is not None:
        if layout.placement != "linear":
            raise InputError(f"phase {phase.name!r}, key 'helper': {phase.helper.name} puts "
                             f"ranks on consecutive nodes; {layout.placement} placement "
                             "applies to halo, p2p and collective phases only")
        helper = HELPERS[phase.helper.name]
        args = {k: value(e, env, at) for k, e in phase.helper.args}
        context = HelperContext(machine, layout, ppn, phase.api, params)
        try:
            outcome = helper.function(context, **args)
        except InputError as error:
            raise InputError(f"phase {phase.name!r}, key 'helper': {error} {at}") from None
        terms.append(patterns.CommunicationTerm("helper", float(outcome.time_s), 0.0, 0, None,
                                                None, None, None, outcome.detail))
    return tuple(terms)


def _phase_compute(skeleton, machine, phase, env, typed, at, ppn, where):
    """(compute per repeat, flops, memory bytes, bound, slowest node type) of one phase."""
    if typed:
        by_type = [(name, _compute(phase, type_env, at, ppn, machine, where))
                   for name, type_env in typed]
        slowest, (compute, flops, memory, bound) = max(by_type, key=lambda r: r[1][0])
        return compute, flops, memory, bound, slowest
    return (*_compute(phase, env, at, ppn, machine, where), None)


def phase_computes(skeleton: Skeleton, machine, nodes: int, *,
                   ppn: int | None = None) -> tuple[list[tuple[float, float]], dict, int]:
    """Per phase (repeat, compute per repeat in s) at ``nodes`` nodes, the expressions'
    environment and the processes per node: the part of :func:`run` that no layout
    changes. The compute reads the machine's node, network and software values, never its
    topology."""
    ppn = processes_per_node(skeleton, machine, ppn)
    at = _at(nodes, ppn)
    env = environment(skeleton, machine, nodes, ppn)
    typed = [(name, environment(skeleton, machine, nodes, ppn, params))
             for name, params in _node_types(machine)]
    origin = f"{skeleton.origin}: " if skeleton.origin else ""
    out = []
    for phase in skeleton.phases:
        where = f"{origin}phase {phase.name!r}"
        repeat = float(_nonnegative(phase.repeat, env, at))
        compute = _phase_compute(skeleton, machine, phase, env, typed, at, ppn, where)[0]
        _finite(repeat * compute, f"{where}: the compute time per run", at)
        out.append((repeat, compute))
    return out, env, ppn


def run(skeleton: Skeleton, machine, layout=None, *, ppn: int | None = None,
        algorithm: str | None = None, point_to_point: bool = False) -> SkeletonResult:
    """The skeleton on ``layout`` (a collectives.Layout of the nodes; default the machine's
    topology; its ``placement`` puts the nodes on the endpoints, linear unless
    ``Layout.placed`` set it). ``algorithm`` overrides every collective phase's algorithm;
    ``point_to_point`` runs every collective phase on its point-to-point algorithm instead
    (``Collective.point_to_point``: the comparison with the hardware tree); ``ppn`` the
    processes per node (:func:`processes_per_node`)."""
    if algorithm is not None and point_to_point:
        raise InputError("give an algorithm or point_to_point, not both")
    if algorithm is not None and algorithm not in ("best", "auto") \
            and algorithm not in collectives.ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; choose best, auto or one of "
                         f"{', '.join(collectives.ALGORITHMS)}")
    layout = collectives.machine_layout(machine, layout)
    nodes = layout.endpoints
    ppn = processes_per_node(skeleton, machine, ppn)
    at = _at(nodes, ppn)
    env = environment(skeleton, machine, nodes, ppn)
    typed = [(name, environment(skeleton, machine, nodes, ppn, params))
             for name, params in _node_types(machine)]
    cache = {}

    def params_by_api(api):
        if api not in cache:
            cache[api] = network.machine_parameters(machine, api)
        return cache[api]

    phases = []
    origin = f"{skeleton.origin}: " if skeleton.origin else ""
    for phase in skeleton.phases:
        where = f"{origin}phase {phase.name!r}"
        repeat = _nonnegative(phase.repeat, env, at)
        compute, flops, memory, bound, slowest = _phase_compute(skeleton, machine, phase, env,
                                                                typed, at, ppn, where)
        terms = (_communication(phase, machine, layout, env, at, ppn, algorithm,
                                params_by_api, point_to_point,
                                skeleton.compute == "gpu" and skeleton.buffers == "gpu")
                 if phase.has_communication else ())
        comm = _finite(sum(t.time_s for t in terms), f"{where}: the communication time", at)
        per_repeat = max(compute, comm) if phase.overlap else compute + comm
        time = _finite(float(repeat) * per_repeat, f"{where}: the time per run", at)
        phases.append(PhaseResult(phase.name, float(repeat), compute, comm, per_repeat,
                                  time, flops, memory, bound, slowest, terms))
    total = _finite(sum(p.time_s for p in phases), f"{origin}the total time", at)
    if skeleton.total_flops is not None:
        flops_total = float(_nonnegative(skeleton.total_flops, env, at))
    elif any(p.flops is not None for p in phases):
        flops_total = _finite(sum(p.repeat * p.flops * nodes * ppn for p in phases
                                  if p.flops is not None), f"{origin}the FLOP count", at)
    else:
        flops_total = None
    shown = {k: (int(v) if isinstance(v, Fraction) and v.denominator == 1 else float(v))
             for k, v in {**skeleton.parameters, **skeleton.coefficients}.items()}
    return SkeletonResult(skeleton.name, nodes, nodes * ppn, ppn, layout.text, tuple(phases),
                          total, flops_total, shown, derived_notes(skeleton, machine))
