"""Why a skeleton takes the time it does at one node count: every phase's closed form.

For each phase (:func:`explain_skeleton`):

* the **count and compute terms** as the skeleton writes them, SymPy formulas of P, N, ppn,
  the parameters, coefficients, definitions and machine values, with the definitions also
  substituted (a formula of P and the parameters only), and their values at that node count;
* the **compute time** in closed form, fixed + max(flops · ppn / R, memory_bytes · ppn / B);
* each **communication term** with what it takes at that node count: the message size
  (formula and value), the process grid, the messages per rank, the hop count h and channel
  load c of the mapped messages (and the adapter sharing a), and the time as a SymPy formula
  of the machine's network parameters (t_inj, t_ej, t_r, t_l, B_link, B_host, O) with those
  numbers substituted. Collectives come from :func:`icnperf.model.explain.explain` (the
  same formula ``icnperf explain collective`` prints); messages sent at once from
  ``collectives.schedule_time`` and ``collectives.send_gap`` evaluated on SymPy symbols.
  A helper gives its value and its own account, not a formula.

The numbers are the ones :func:`icnperf.model.apps.timing.run` computes; each formula
evaluated at the machine's values gives the same time (tests check it). Formulas are printed
by :func:`formula_text`: numbers that came from floats (a message of 192,351.17 bytes, a
machine value) as decimals of at most 10 significant digits, not as the exact binary
fractions SymPy would show.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from icnperf.model import collectives, network
from icnperf.model.apps import timing
from icnperf.model.apps.expressions import MAX_ARGUMENTS, parse, value
from icnperf.model.collectives import Step

__all__ = ["CommunicationForm", "PhaseForm", "SkeletonForm", "Term", "explain_skeleton"]

_DISCRETE = ("flit_size", "packet_max_flits", "packet_header_flits", "store_and_forward",
             "collective_store_and_forward", "collective_trees", "combine_time")


@dataclass(frozen=True)
class Term:
    """One expression of the skeleton: as written, with the definitions substituted, and
    its value at the node count."""

    key: str
    written: str
    expanded: str
    value: float | None


@dataclass(frozen=True)
class CommunicationForm:
    """One communication charge of a phase at the node count (see the module docstring):
    ``formula`` the time as a SymPy formula of network symbols (None for a helper),
    ``symbols`` each symbol's machine key."""

    kind: str
    time_s: float
    detail: str
    bytes: Term | None
    messages: int | None
    hops: int | None
    load: int | None
    host: int | None
    intra: bool | None
    algorithm: str | None
    structure: dict
    formula: str | None
    symbols: dict


@dataclass(frozen=True)
class PhaseForm:
    name: str
    time_s: float
    share: float
    repeat: Term
    compute: tuple[Term, ...]
    compute_formula: str | None
    compute_s: float
    bound: str
    communication: tuple[CommunicationForm, ...]
    communication_s: float
    overlap: bool


@dataclass(frozen=True)
class SkeletonForm:
    app: str
    nodes: int
    ranks: int
    ppn: int
    layout: str
    total_s: float
    parameters: dict
    definitions: tuple[Term, ...]
    phases: tuple[PhaseForm, ...]


DIGITS = 10
"""Significant digits of a decimal in a printed formula (10: the formula still evaluates to
its time within 1e-9)."""


def formula_text(expr) -> str:
    """``expr`` as text (SymPy's ``sstr``), with every non-whole number whose denominator
    is over a million (a float's binary fraction, a decimal such as 1.5e-7) and every whole
    number over 10^15 written as a decimal of at most :data:`DIGITS` significant digits;
    small fractions such as 1/3 or 39/50 stay exact."""
    swaps = {}
    for atom in expr.atoms(sp.Rational):
        if (not atom.is_Integer and atom.q > 10**6) or abs(atom.p) > 10**15:
            swaps[atom] = _decimal(atom)
    return sp.sstr(expr.xreplace(swaps) if swaps else expr)


def _decimal(number):
    text = f"{float(number):.{DIGITS}g}"
    mantissa = text.split("e")[0].replace("-", "").replace(".", "").lstrip("0")
    return sp.Float(text, max(len(mantissa), 1))


def _number(v) -> float | int:
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v)
    return float(v)


EXPANDED_NODES = 400
"""Largest formula (SymPy tree nodes) shown with the definitions substituted. Substituting
a chain of definitions that each use the one before twice doubles the formula at every
link (10 links of ``aK = (aJ + aJ**2) / (1 + aJ)``: 3^10 copies, over 30 s of SymPy), so
the size is counted first, without building anything, and a larger formula is shown as
written."""


def _size(expr, sizes: dict) -> int:
    """Nodes of ``expr`` once every definition is substituted: ``sizes`` holds each
    definition's substituted size (whole numbers; no formula is built)."""
    total = 0
    for node in sp.preorder_traversal(expr):
        total += sizes.get(node.name, 1) if node.is_Symbol else 1
    return total


def _definition_sizes(defines) -> dict:
    sizes: dict = {}
    for name, e in defines:
        sizes[name] = _size(e.expr, sizes)
    return sizes


def _expand(expr, defines):
    """``expr`` with every definition substituted (last first, so nested ones unfold), or
    None when that formula would pass :data:`EXPANDED_NODES`."""
    if _size(expr, _definition_sizes(defines)) > EXPANDED_NODES:
        return None
    with sp.evaluate(False):  # as written: SymPy's simplification is not bounded
        for name, e in reversed(defines):
            symbol = next((s for s in expr.free_symbols if s.name == name), None)
            if symbol is not None:
                expr = expr.xreplace({symbol: e.expr})
    return expr


def _simplified(expr):
    """``expr`` (built unevaluated) with SymPy's automatic simplification applied, for
    showing (``8*(n/P**(1/3))**2`` as ``8*n**2/P**(2/3)``), when that is bounded work: at
    most :data:`EXPANDED_NODES` nodes and :data:`~icnperf.model.apps.expressions.
    MAX_ARGUMENTS` min/max arguments (SymPy compares those pairwise); else as it is."""
    extrema = sum(len(node.args) for node in sp.preorder_traversal(expr)
                  if node.func in (sp.Min, sp.Max))
    if extrema > MAX_ARGUMENTS or _size(expr, {}) > EXPANDED_NODES:
        return expr
    try:
        return expr.doit()
    except (ArithmeticError, ValueError, TypeError):
        return expr


def _term(key, expression, defines, env, at) -> Term:
    expanded = _expand(expression.expr, defines)
    written = formula_text(_simplified(expression.expr))
    shown = written if expanded is None else formula_text(_simplified(expanded))
    return Term(key, written, shown if shown != written else "",
                _number(value(expression, env, at)))


def _exact(v):
    if isinstance(v, int):
        return sp.Integer(v)
    v = float(v)
    return sp.Integer(int(v)) if v.is_integer() else sp.Rational(v)


def _network_symbols(params: dict):
    """Symbolic network parameters with the discrete ones (flits, packet format, switching)
    set to the machine's numbers, and symbol name -> machine key."""
    symbolic = collectives.symbolic_collective_parameters()
    out, keys = {}, {}
    for name, v in params.items():
        if name in _DISCRETE or name not in symbolic:
            out[name] = _exact(v)
        else:
            out[name] = symbolic[name]
            keys[symbolic[name].name] = name
    return out, keys


def _message_formula(term, params: dict, api: str):
    from icnperf.model.explain import parameter_key

    symbolic, names = _network_symbols(params)
    keys = {symbol: parameter_key(name, api) for symbol, name in names.items()}
    step = Step(1, Fraction(1), term.hops, term.load, False, term.host, term.intra)
    m = _exact(term.bytes)
    expr = sp.sympify(collectives.schedule_time(
        m, (step,), **network.bind(collectives.schedule_time, symbolic)))
    if term.messages > 1:
        expr += (term.messages - 1) * sp.sympify(collectives.send_gap(
            m, **network.bind(collectives.send_gap, symbolic)))
    used = {s.name for s in expr.free_symbols}
    return formula_text(expr), {k: v for k, v in keys.items() if k in used}


def _collective_form(term, phase, machine, layout, ppn, env, at, defines):
    from icnperf.model.explain import explain, parameter_key

    c = phase.collective
    placed = layout.placed(1 if c.scope == "nodes" else ppn)
    size = _term("bytes", c.bytes, defines, env, at) if c.bytes is not None else None
    if term.algorithm is None or term.time_s == 0:
        return CommunicationForm("collective", term.time_s, term.detail, size, None, None,
                                 None, None, None, term.algorithm, {}, None, {})
    if term.algorithm not in collectives.ALGORITHMS:
        # an MPI library's algorithm (linear, pairwise, reduce-bcast): flows sharing links
        # max-min fairly, timed numerically, with no closed form to show
        return CommunicationForm("collective", term.time_s,
                                 f"{term.detail} (timed as flows sharing links; no closed "
                                 "form)", size, None, None, None, None, None, term.algorithm,
                                 {}, None, {})
    e = explain(machine, c.op, term.algorithm, term.bytes or 1.0, layout=placed,
                api=phase.api)
    # the skeleton's collectives combine at no cost (collective_parameters' default γ = 0)
    expr = e.expression.xreplace({s: 0 for s in e.expression.free_symbols
                                  if e.symbols.get(s.name) == "combine_time"})
    used = {s.name for s in expr.free_symbols}
    keys = {name: parameter_key(p, phase.api) for name, p in e.symbols.items() if name in used}
    structure = dict(e.structure)
    return CommunicationForm("collective", term.time_s, term.detail, size, None,
                             structure.get("max_step_hops"), structure.get("max_step_load"),
                             None, None, term.algorithm, structure, formula_text(expr), keys)


def explain_skeleton(skeleton, machine, layout=None, *, ppn: int | None = None,
                     algorithm: str | None = None) -> SkeletonForm:
    """Every phase of ``skeleton`` on ``layout`` in closed form (module docstring)."""
    skeleton = with_sympy_trees(skeleton)
    result = timing.run(skeleton, machine, layout, ppn=ppn, algorithm=algorithm)
    layout = collectives.machine_layout(machine, layout)
    ppn = result.ppn
    env = timing.environment(skeleton, machine, result.nodes, ppn)
    at = f"at N = {result.nodes} (P = {result.ranks})"
    defines = skeleton.defines
    definitions = tuple(_term(name, e, defines[:i], env, at)
                        for i, (name, e) in enumerate(defines))
    params_by_api = {}
    phases = []
    for phase, outcome in zip(skeleton.phases, result.phases):
        compute_terms = tuple(_term(key, getattr(phase, key), defines, env, at)
                              for key in ("flops", "memory_bytes", "rate", "bandwidth", "fixed")
                              if getattr(phase, key) is not None)
        forms = []
        for term in outcome.terms:
            if term.kind == "collective":
                forms.append(_collective_form(term, phase, machine, layout, ppn, env, at,
                                              defines))
                continue
            if term.kind == "helper":
                forms.append(CommunicationForm("helper", term.time_s, term.detail, None, None,
                                               None, None, None, None, None, {}, None, {}))
                continue
            spec = phase.halo if term.kind == "halo" else phase.p2p
            size = _term("bytes", spec.bytes, defines, env, at)
            formula, keys = None, {}
            if term.messages:
                if phase.api not in params_by_api:
                    params_by_api[phase.api] = network.machine_parameters(machine, phase.api)
                formula, keys = _message_formula(term, params_by_api[phase.api], phase.api)
            forms.append(CommunicationForm(term.kind, term.time_s, term.detail, size,
                                           term.messages, term.hops, term.load, term.host,
                                           term.intra, None, {}, formula, keys))
        phases.append(PhaseForm(
            phase.name, outcome.time_s,
            outcome.time_s / result.total_s if result.total_s > 0 else 0.0,
            _term("repeat", phase.repeat, defines, env, at), compute_terms,
            _compute_formula(phase) if phase.has_compute else None, outcome.compute_s,
            outcome.bound, tuple(forms), outcome.communication_s, phase.overlap))
    return SkeletonForm(skeleton.name, result.nodes, result.ranks, ppn, result.layout,
                        result.total_s, result.parameters, definitions, tuple(phases))


def with_sympy_trees(skeleton):
    """``skeleton`` with SymPy's tree in every expression: a bundled skeleton read from its
    stored plain trees (data/skeleton_trees.py) has only those, so each such expression is
    parsed again from its text with the skeleton's symbols (the same parse that made the
    stored tree)."""
    table = skeleton.table()

    def sympy_tree(e):
        return e if e.expr is not None else parse(e.text, e.where, table)

    return skeleton.map_expressions(sympy_tree)


def _compute_formula(phase) -> str:
    """fixed + max(flops · ppn / R, memory_bytes · ppn / B) with the phase's own R and B
    (node.peak_flops, node.memory_bandwidth by default)."""
    ppn = sp.Symbol("ppn", positive=True, integer=True)
    parts = []
    if phase.flops is not None:
        rate = phase.rate.expr if phase.rate is not None else \
            sp.Symbol("node.peak_flops", positive=True)
        parts.append(sp.Symbol("flops", positive=True) * ppn / rate)
    if phase.memory_bytes is not None:
        bandwidth = phase.bandwidth.expr if phase.bandwidth is not None else \
            sp.Symbol("node.memory_bandwidth", positive=True)
        parts.append(sp.Symbol("memory_bytes", positive=True) * ppn / bandwidth)
    expr = sp.Max(*parts) if len(parts) > 1 else (parts[0] if parts else sp.Integer(0))
    if phase.fixed is not None:
        expr = phase.fixed.expr + expr
    return formula_text(expr)
