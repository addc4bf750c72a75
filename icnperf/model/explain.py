"""Why a collective takes the time it does: its formula, its value and each parameter's share.

:func:`explain` gives the closed form T(x) of one (operation, algorithm) of
:mod:`icnperf.model.collectives` as a SymPy expression, from the same function bodies that
``icnperf predict`` evaluates on numbers (``model/ops.py``), over the machine's continuous
parameters x (latencies, bandwidths, software overhead, the combining cost γ), with the
structure substituted so that it stays readable: the topology's numbers (endpoints P, tree
depth D, equal-depth ties t, each step's hops and channel load), the message size m and,
unless asked otherwise, the discrete parameters (flit size f, packet flits P, header flits H,
the switching flags s and s_c, the tree count N_t). Returned with its value on the machine
(seconds) and every parameter's **elasticity**

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

:func:`check_pair` (the operation/algorithm names) serves :mod:`icnperf.model.crossover`
too. Pure: no I/O, no printing. SymPy is imported inside :func:`explain` only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from icnperf.errors import InputError
from icnperf.model import collectives

__all__ = [
    "CONTINUOUS",
    "DISCRETE",
    "Elasticity",
    "Explanation",
    "check_pair",
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
    "step_overhead": "time",
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
    "step_overhead": "software.mpi_step_overhead",
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
    if algorithm == "hw-tree" and params.get("collective_hardware") == "switch-aggregation":
        structure["span_hops"] = layout.span_hops
    elif algorithm in ("hw-tree", "p2p-tree"):
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
    if algorithm == "hw-tree" and not ("collective_trees" in params
                                       or "collective_hardware" in params):
        raise InputError("the machine has no hardware collectives "
                         "(network.collective_trees is not set)")
    symbolic = {name: symbol for name, symbol in symbolic.items() if name in params}
    formula_params = dict(symbolic)
    if not symbolic_discrete:
        for name in DISCRETE:
            if name in params:
                formula_params[name] = _exact(params[name])
    for name in ("collective_hardware", "collective_credits", "aggregation_payload",
                 "aggregation_window"):
        # the kind of collective hardware and its fixed numbers pick the formula
        if name in params and name not in formula_params:
            value = params[name]
            formula_params[name] = value if isinstance(value, str) else _exact(value)
    if "element_size" in params:     # whole-element splits (Rabenseifner): a number, as m
        formula_params["element_size"] = _exact(params["element_size"])
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

