"""Why a collective takes the time it does, and where one algorithm overtakes another.

Two questions about the formulas of :mod:`icnperf.model.collectives`, answered from the same
function bodies that ``icnperf predict`` evaluates on numbers (``model/ops.py``):

* :func:`explain` - the closed form T(x) of one (operation, algorithm) as a SymPy expression
  over the machine's continuous parameters x (latencies, bandwidths, software overhead, the
  combining cost γ), with the structure substituted so that it stays readable: the
  topology's numbers (endpoints P, tree depth D, equal-depth ties t, each step's hops and
  channel load), the message size m and, unless asked otherwise, the discrete parameters
  (flit size f, packet flits P, header flits H, the switching flags s and s_c, the tree
  count N_t). Returned with its value on the machine and every parameter's **elasticity**

      ε_x = ∂T/∂x · x / T     at the machine's point,

  the relative change of T per relative change of x (ε = 0.3: 1 % more x, 0.3 % more time).
  Every term of T is a time: a time parameter times a number, bytes over a bandwidth, or γ
  times bytes, also inside max(). So T is homogeneous of degree 1 in (times, γ, 1 / bandwidth)
  and Euler's theorem gives, wherever T is differentiable,

      Σ_times ε + ε_γ − Σ_bandwidths ε = 1,

  with every ε of a time ≥ 0 and every ε of a bandwidth ≤ 0: the |ε| are the shares of T
  that each parameter carries, and they add up to 1 (``Explanation.share_sum``).
  Derivatives are SymPy's; where SymPy leaves one unevaluated (the derivative of a
  ceiling) or the point sits on a kink of a max() or a piecewise branch, the derivative is
  the central difference of the same expression at the point instead, and the elasticity
  says so (``method``).

* :func:`crossover` - the smallest node count (the torus reshaped with balanced radices,
  :func:`torus.balanced_torus_shape`) or message size at which T_slower / T_faster reaches
  a factor, e.g. "from how many nodes is the hardware tree 2x faster than the
  point-to-point tree". Node counts: the given counts (powers of two on the CLI) are
  scanned, and the first bracket where the ratio reaches the factor is refined on ever
  finer grids down to single nodes. Message sizes: the sizes are scanned in one vectorized
  call and the bracket is solved with ``scipy.optimize.brentq`` on
  T_slower(m) − factor · T_faster(m) (the same formulas, evaluated numerically), then
  rounded to the smallest whole byte count that reaches the factor.

Pure: no I/O, no printing. SymPy is imported inside :func:`explain` only; :func:`crossover`
is numeric and never imports it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from icnperf.errors import InputError
from icnperf.model import collectives, ops
from icnperf.model.topology import torus

__all__ = [
    "CONTINUOUS",
    "DISCRETE",
    "Crossover",
    "Elasticity",
    "Explanation",
    "ScanPoint",
    "check_pair",
    "crossover",
    "explain",
    "parameter_key",
]

CONTINUOUS: dict[str, str] = {
    "software_overhead": "time",
    "injection_latency": "time",
    "ejection_latency": "time",
    "router_latency": "time",
    "link_latency": "time",
    "link_bandwidth": "bandwidth",
    "host_bandwidth": "bandwidth",
    "combine_time": "time-per-byte",
}
"""Formula parameters that get an elasticity, and their kind: times and γ enter T with a
positive sign (ε ≥ 0), bandwidths as bytes / B (ε ≤ 0)."""

DISCRETE = ("flit_size", "packet_max_flits", "packet_header_flits", "store_and_forward",
            "collective_store_and_forward", "collective_trees")
"""Formula parameters that are whole numbers or 0/1 flags: substituted by default; kept as
symbols with ``symbolic_discrete=True`` but never given an elasticity (T is a step
function of them: flits and packets are ceilings)."""

_KEYS = {
    "collective_trees": "network.collective_trees",
    "collective_store_and_forward": "network.collective_switching",
    "store_and_forward": "network.switching",
    "combine_time": "(collective_parameters combine_time)",
}


def parameter_key(name: str, api: str = "mpi") -> str:
    """The machine key a formula parameter is read from (``link_latency`` ->
    ``network.link_latency``; ``software_overhead`` -> ``software.<api>_overhead``)."""
    from icnperf.model import network

    if name == "software_overhead":
        return f"software.{api}_overhead" if api != "none" else "(api none: 0)"
    return network.PARAMETERS.get(name) or _KEYS.get(name, name)


# --- explain ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Elasticity:
    """One parameter's elasticity at the machine's point.

    ``derivative`` is ∂T/∂x in SI units (seconds per unit of x); ``elasticity`` is
    ∂T/∂x · x / T (dimensionless; 0 when the machine's x is 0); ``method`` is
    ``symbolic`` (SymPy's derivative) or ``numeric`` (central difference) with ``note``
    saying why."""

    parameter: str
    symbol: str
    key: str
    kind: str
    value: float
    derivative: float
    elasticity: float
    method: str
    note: str = ""


@dataclass(frozen=True)
class Explanation:
    """What :func:`explain` returns. ``expression`` is the SymPy expression of T; ``text``
    and ``latex`` its renderings; ``time`` its value on the machine (s); ``structure`` the
    numbers substituted into it (topology, message size, discrete parameters); ``symbols``
    maps each symbol name in the expression to its formula parameter; ``share_sum`` is
    Σ |ε| over the continuous parameters (1 wherever T is differentiable, see the module
    docstring)."""

    operation: str
    algorithm: str
    layout: str
    endpoints: int
    bytes: float
    expression: object
    text: str
    latex: str
    time: float
    elasticities: tuple[Elasticity, ...]
    structure: dict
    symbols: dict
    share_sum: float
    assumptions: tuple[str, ...]


def _exact(value):
    """A float or int as an exact SymPy number (floats exactly, as binary fractions)."""
    import sympy as sp

    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return sp.Integer(int(value))
    value = float(value)
    if value.is_integer():
        return sp.Integer(int(value))
    return sp.Rational(value)


def _structure(operation: str, algorithm: str, layout: collectives.Layout, m: float,
               params: dict, symbolic_discrete: bool) -> dict:
    structure: dict = {"endpoints": layout.endpoints}
    if layout.is_torus:
        structure["radices"] = "x".join(map(str, layout.radices))
        structure["diameter"] = layout.diameter
    if algorithm in ("hw-tree", "p2p-tree"):
        structure["depth"] = layout.depth
        if algorithm == "p2p-tree":
            structure["ties"] = layout.tree_ties
    else:
        steps = collectives.schedule(algorithm, operation, layout)
        structure["steps"] = sum(s.count for s in steps)
        structure["distinct_steps"] = len(steps)
        structure["max_step_hops"] = max((s.hops for s in steps), default=0)
        structure["max_step_load"] = max((s.load for s in steps), default=0)
    structure["bytes"] = 0.0 if operation == "barrier" else float(m)
    if not symbolic_discrete:
        for name in DISCRETE:
            if name in params:
                structure[name] = params[name]
    return structure


def _derivative(expression, symbol, point: dict, value: float):
    """(∂T/∂x at the point, method, note): SymPy's derivative when it evaluates to a finite
    number away from kinks, else a central difference of the expression."""
    import sympy as sp

    d = sp.diff(expression, symbol)
    note = ""
    if d.has(sp.Derivative, sp.Subs):
        note = "SymPy leaves the derivative unevaluated"
    else:
        kinks = [h for h in d.atoms(sp.Heaviside) if h.args[0].xreplace(point) == 0]
        if kinks or d.has(sp.DiracDelta):
            note = "the point is on a kink of max()/min() (a tie between two terms)"
        elif d.has(sp.Piecewise) and _on_piecewise_boundary(expression, point):
            note = "the point is on the boundary of a piecewise branch"
        else:
            try:
                number = complex(d.xreplace(point))
            except (TypeError, ValueError):
                number = complex(math.nan)
            if number.imag == 0 and math.isfinite(number.real):
                return number.real, "symbolic", ""
            note = "SymPy's derivative does not evaluate to a finite number"
    return _central_difference(expression, symbol, point, value), "numeric", (
        note + "; central difference, relative step 1e-6")


def _on_piecewise_boundary(expression, point: dict) -> bool:
    import sympy as sp

    for piecewise in expression.atoms(sp.Piecewise):
        for _, condition in piecewise.args:
            if isinstance(condition, sp.core.relational.Relational):
                difference = (condition.lhs - condition.rhs).xreplace(point)
                if difference == 0:
                    return True
    return False


def _central_difference(expression, symbol, point: dict, value: float) -> float:
    """(T(x + h) - T(x - h)) / 2h, h = 1e-6 x; a forward difference when x = 0."""
    step = 1e-6 * abs(value) if value else 1e-12
    up = dict(point)
    down = dict(point)
    up[symbol] = _exact(value + step)
    if value > 0:
        down[symbol] = _exact(value - step)
    width = float(up[symbol] - down[symbol])
    return float(expression.xreplace(up) - expression.xreplace(down)) / width


def explain(machine, operation: str, algorithm: str, m: float = 256.0, *,
            layout: collectives.Layout | None = None, api: str = "mpi",
            symbolic_discrete: bool = False, combine_time: float = 0.0) -> Explanation:
    """The formula of one collective on a machine, its value and its elasticities.

    ``machine`` is anything :func:`collectives.collective_parameters` reads (a Machine);
    ``layout`` defaults to the machine's topology; ``m`` is the message size in bytes (> 0;
    ignored by a barrier). ``symbolic_discrete`` keeps f, P, H, s, s_c and N_t as symbols in
    the expression (otherwise they are substituted, like the topology's numbers). Raises
    InputError for unknown or undefined pairs, bad sizes, non-torus tree layouts and
    machines without hardware collectives for ``hw-tree``.
    """
    import sympy as sp

    algorithm, operation = check_pair(algorithm, operation)
    layout = collectives.machine_layout(machine, layout)
    m = _size(m, operation)
    params = collectives.collective_parameters(machine, api, combine_time=combine_time)
    symbolic = collectives.symbolic_collective_parameters()
    if algorithm == "hw-tree" and "collective_trees" not in params:
        raise InputError("the machine has no hardware collectives "
                         "(network.collective_trees is not set)")
    symbolic = {name: symbol for name, symbol in symbolic.items() if name in params}
    formula_params = dict(symbolic)
    if not symbolic_discrete:
        for name in DISCRETE:
            if name in params:
                formula_params[name] = _exact(params[name])
    size = sp.Integer(0) if operation == "barrier" else _exact(m)
    expression = sp.sympify(collectives.evaluate(operation, algorithm, size, layout,
                                                 formula_params))
    point = {symbolic[name]: _exact(params[name]) for name in symbolic}
    time = float(expression.xreplace(point))
    by_symbol = {symbol: name for name, symbol in symbolic.items()}
    rows = []
    for symbol in sorted(expression.free_symbols, key=lambda s: s.name):
        name = by_symbol[symbol]
        if name not in CONTINUOUS:
            continue
        value = float(params[name])
        derivative, method, note = _derivative(expression, symbol, point, value)
        rows.append(Elasticity(name, symbol.name, parameter_key(name, api), CONTINUOUS[name],
                               value, derivative, derivative * value / time, method, note))
    rows.sort(key=lambda e: (-abs(e.elasticity), e.symbol))
    return Explanation(
        operation=operation, algorithm=algorithm, layout=layout.text,
        endpoints=layout.endpoints, bytes=float(size), expression=expression,
        text=sp.sstr(expression), latex=sp.latex(expression), time=time,
        elasticities=tuple(rows),
        structure=_structure(operation, algorithm, layout, m, params, symbolic_discrete),
        symbols={s.name: by_symbol[s] for s in sorted(expression.free_symbols,
                                                      key=lambda s: s.name)},
        share_sum=sum(abs(e.elasticity) for e in rows),
        assumptions=collectives.assumptions(operation, algorithm, layout, params, api))


def _size(m, operation: str) -> float:
    try:
        m = float(m)
    except (TypeError, ValueError):
        raise InputError(f"message size must be a number of bytes, not {m!r}") from None
    if not math.isfinite(m) or (operation != "barrier" and m <= 0):
        raise InputError(f"message size must be finite and > 0 bytes, not {m:g}")
    return m


def check_pair(algorithm: str, operation: str) -> tuple[str, str]:
    """(algorithm, canonical operation) when the pair has a formula; InputError naming the
    choices otherwise."""
    operation = collectives.operation_name(operation)
    if algorithm not in collectives.ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; choose one of "
                         f"{', '.join(collectives.ALGORITHMS)}")
    if not collectives.defined(algorithm, operation):
        have = [a for a in collectives.ALGORITHMS if collectives.defined(a, operation)]
        raise InputError(f"{algorithm} does not define {operation}; algorithms for "
                         f"{operation}: {', '.join(have)}")
    return algorithm, operation


# --- crossover --------------------------------------------------------------------------


class ScanPoint(NamedTuple):
    """One evaluated point: the node count or message size, the layout, both times (s) and
    their ratio T_slower / T_faster."""

    value: float
    layout: str
    time_faster: float
    time_slower: float
    ratio: float

    @classmethod
    def of(cls, value, layout: str, faster, slower) -> ScanPoint:
        return cls(value, layout, float(faster), float(slower), float(slower) / float(faster))


@dataclass(frozen=True)
class Crossover:
    """What :func:`crossover` returns.

    ``status``: ``crosses`` (the ratio T_slower / T_faster is below the factor at the start
    of the range and reaches it at ``at``), ``from-start`` (it already does at the first
    value scanned) or ``never`` (not within the range; ``at`` is None and ``best`` is the
    point of the largest ratio). ``at`` and ``below`` are the crossing point and the last
    evaluated point below it that falls short (None for ``from-start``); ``reverts`` the
    first scanned point after the crossing where the ratio is below the factor again (None:
    it holds over the rest of the scan); ``scan`` lists the scanned values (the refinement
    points are not listed; ``evaluations`` counts all).
    ``method`` says how the crossing was located; ``skipped`` lists scanned node counts the
    torus cannot be shaped to."""

    operation: str
    faster: str
    slower: str
    factor: float
    variable: str
    status: str
    at: ScanPoint | None
    below: ScanPoint | None
    reverts: ScanPoint | None
    best: ScanPoint
    scan: tuple[ScanPoint, ...]
    method: str
    fixed: dict
    skipped: tuple
    evaluations: int
    assumptions: tuple[str, ...]

    @property
    def found(self) -> bool:
        return self.at is not None


VARIABLES = ("nodes", "bytes")

_REFINE_STEPS = 64
"""A bracket of node counts is refined on a grid of about this many points per pass."""

_WALK = 64
"""Whole byte counts tried on either side of brentq's root (ceilings make T jump by a flit
or a packet there)."""


def crossover(machine, operation: str, faster: str, slower: str, factor: float, *,
              variable: str = "nodes", values: Sequence | None = None,
              dims: int | None = None, m: float = 256.0,
              layout: collectives.Layout | None = None, api: str = "mpi",
              combine_time: float = 0.0, max_aspect: float | None = 2.0) -> Crossover:
    """The smallest node count or message size at which T_slower / T_faster >= factor.

    ``variable="nodes"``: ``values`` are node counts (default: powers of two from 2^dims
    to 32768), each shaped into a ``dims``-dimensional torus (default: the machine's
    dimension count) by :func:`torus.balanced_torus_shape` (counts it cannot shape are
    skipped), at message size ``m``; the bracket of the first crossing is refined over the
    counts whose balanced shape has largest radix <= ``max_aspect`` x smallest (2: as
    elongated as the powers of two get; None: any shape, e.g. 66 = 2x3x11). ``variable="bytes"``: ``values`` are message sizes
    (default: powers of two from 1 B to 64 MiB) on ``layout`` (default: the machine's
    topology). Raises InputError for bad names, an undefined pair, the same algorithm
    twice, a factor <= 1 or not finite, a barrier over bytes, or a machine that is not a
    torus when varying nodes.
    """
    faster, operation = check_pair(faster, operation)
    slower, _ = check_pair(slower, operation)
    if faster == slower:
        raise InputError(f"--faster and --slower are both {faster}; name two algorithms")
    try:
        factor = float(factor)
    except (TypeError, ValueError):
        raise InputError(f"factor must be a number > 1, not {factor!r}") from None
    if not (math.isfinite(factor) and factor > 1):
        raise InputError(f"factor must be a finite number > 1 (how many times faster), "
                         f"not {factor:g}")
    if variable not in VARIABLES:
        raise InputError(f"unknown variable {variable!r}; choose nodes or bytes")
    params = collectives.collective_parameters(machine, api, combine_time=combine_time)
    if variable == "nodes":
        if max_aspect is not None and not (math.isfinite(max_aspect) and max_aspect >= 1):
            raise InputError(f"max_aspect must be a number >= 1, not {max_aspect!r}")
        return _over_nodes(machine, operation, faster, slower, factor, values, dims,
                           _size(m, operation), params, api, max_aspect)
    if operation == "barrier":
        raise InputError("a barrier carries no data: vary nodes, not bytes")
    layout = collectives.machine_layout(machine, layout)
    return _over_bytes(operation, faster, slower, factor, values, layout, params, api)


def _times(operation, faster, slower, m, layout, params):
    with ops.quiet():
        a = collectives.evaluate(operation, faster, m, layout, params)
        b = collectives.evaluate(operation, slower, m, layout, params)
    return a, b


def _notes(operation, faster, slower, layout, params, api) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for algorithm in (faster, slower):
        for note in collectives.assumptions(operation, algorithm, layout, params, api):
            seen.setdefault(note, None)
    return tuple(seen)


def _over_nodes(machine, operation, faster, slower, factor, values, dims, m, params, api,
                max_aspect):
    base = collectives.Layout.from_topology(machine.topology)
    if not base.is_torus:
        raise InputError("crossover over nodes reshapes a torus; this machine's topology is "
                         f"{base.text}")
    if dims is None:
        dims = len(base.radices)
    if not (isinstance(dims, (int, np.integer)) and not isinstance(dims, bool) and dims >= 1):
        raise InputError(f"dims must be a whole number >= 1, not {dims!r}")
    if values is None:
        values = [2 ** k for k in range(dims, 16)]
    counts = sorted({_count(v) for v in values})
    cache: dict[int, ScanPoint | None] = {}
    layouts: dict[str, collectives.Layout] = {}

    def point(n: int, refining: bool = False) -> ScanPoint | None:
        if n not in cache:
            try:
                shape = torus.balanced_torus_shape(n, dims)
            except InputError:
                cache[n] = None
            else:
                layout = collectives.machine_layout(machine, collectives.Layout.torus(shape))
                a, b = _times(operation, faster, slower, float(m), layout, params)
                cache[n] = ScanPoint.of(n, layout.text, a, b)
                layouts[layout.text] = layout
        p = cache[n]
        if refining and p is not None and max_aspect is not None:
            radices = layouts[p.layout].radices
            if max(radices) > max_aspect * min(radices):
                return None
        return p

    scan, skipped = [], []
    for n in counts:
        p = point(n)
        if p is None:
            skipped.append(n)
        else:
            scan.append(p)
    if not scan:
        raise InputError(f"none of the node counts can be shaped into a {dims}-dimensional "
                         f"torus of radix >= 2 (the smallest is {2 ** dims})")
    at, below, reverts = _first_crossing(scan, factor)
    if at is not None and below is not None:
        at, below = _refine_nodes(below, at, factor, lambda n: point(n, refining=True))
    method = (f"scan of the node counts, each a {dims}D torus shaped by "
              "torus.balanced_torus_shape; the first bracket refined on grids of 1/64 of "
              "its width down to single nodes, over the counts whose shape is "
              + ("of any aspect" if max_aspect is None else
                 f"no more elongated than largest radix <= {max_aspect:g} x smallest")
              + " (the ratio need not be monotone in between: shapes change with the count)")
    where = layouts[(at or max(scan, key=lambda p: p.ratio)).layout]
    return _record(operation, faster, slower, factor, "nodes", scan, at, below, reverts,
                   method, {"bytes": m, "dims": dims, "max_aspect": max_aspect},
                   tuple(skipped), sum(1 for p in cache.values() if p is not None),
                   _notes(operation, faster, slower, where, params, api))


def _first_crossing(scan, factor):
    """(first point reaching the factor, the point before it, the first later point that
    falls short again) over a scan; Nones where there is no such point."""
    below = at = reverts = None
    for p in scan:
        if at is None:
            if p.ratio >= factor:
                at = p
            else:
                below = p
        elif p.ratio < factor:
            reverts = p
            break
    return at, (below if at is not None else None), reverts


def _record(operation, faster, slower, factor, variable, scan, at, below, reverts, method,
            fixed, skipped, evaluations, notes) -> Crossover:
    status = "never" if at is None else ("from-start" if below is None else "crosses")
    best = max(scan, key=lambda p: p.ratio)
    return Crossover(operation, faster, slower, factor, variable, status, at, below,
                     reverts, best, tuple(scan), method, fixed, skipped, evaluations, notes)


def _count(value) -> int:
    number = float(value)
    if not number.is_integer() or number < 1:
        raise InputError(f"node counts must be whole numbers >= 1, not {value!r}")
    return int(number)


def _refine_nodes(below: ScanPoint, at: ScanPoint, factor: float, point):
    """The first count in (below, at] whose ratio reaches the factor, on grids of about
    _REFINE_STEPS points per pass, each pass inside the previous pass's bracket, the last
    pass at single nodes."""
    step = max(1, math.ceil((at.value - below.value) / _REFINE_STEPS))
    while True:
        for n in range(below.value + step, at.value, step):
            p = point(n)
            if p is None:
                continue
            if p.ratio >= factor:
                at = p
                break
            below = p
        if step == 1:
            return at, below
        step = max(1, min(math.ceil((at.value - below.value) / _REFINE_STEPS), step // 2))


def _over_bytes(operation, faster, slower, factor, values, layout, params, api):
    if values is None:
        values = 2.0 ** np.arange(0, 27)
    sizes = np.unique(np.asarray(values, dtype=float))
    if sizes.size == 0 or not np.all(np.isfinite(sizes)) or sizes[0] <= 0:
        raise InputError("message sizes must be finite and > 0 bytes")
    a, b = _times(operation, faster, slower, sizes, layout, params)
    a = np.broadcast_to(a, sizes.shape)
    b = np.broadcast_to(b, sizes.shape)
    scan = tuple(ScanPoint.of(float(s), layout.text, x, y) for s, x, y in zip(sizes, a, b))
    evaluations = len(scan)
    at, below, reverts = _first_crossing(scan, factor)
    method = ("scan of the message sizes, then scipy.optimize.brentq on T_slower(m) - "
              "factor * T_faster(m) (the collectives formulas evaluated numerically) in the "
              "first bracket, rounded to the smallest whole byte count that reaches the "
              "factor")

    def at_size(size: float) -> ScanPoint:
        nonlocal evaluations
        evaluations += 1
        x, y = _times(operation, faster, slower, float(size), layout, params)
        return ScanPoint.of(float(size), layout.text, x, y)

    if at is not None and below is not None:
        from scipy.optimize import brentq

        def gap(size):
            p = at_size(size)
            return p.time_slower - factor * p.time_faster

        root = brentq(gap, below.value, at.value, xtol=1e-6, rtol=1e-12)
        whole = math.ceil(root - 1e-6)
        candidate = min(max(whole, math.floor(below.value) + 1), math.ceil(at.value))
        p = at_size(candidate)
        while p.ratio < factor and candidate < min(at.value, whole + _WALK):  # jump above
            candidate += 1
            p = at_size(candidate)
        if p.ratio < factor:
            p = at
        for _ in range(_WALK):
            if p.value - 1 <= below.value:                      # a jump just below it
                break
            q = at_size(p.value - 1)
            if q.ratio < factor:
                below = q
                break
            p = q
        at = p
    return _record(operation, faster, slower, factor, "bytes", scan, at, below, reverts,
                   method, {"layout": layout.text, "endpoints": layout.endpoints}, (),
                   evaluations, _notes(operation, faster, slower, layout, params, api))
