"""The math namespace of the formulas: one formula, evaluated on NumPy or on SymPy.

Every closed form in ``icnperf.model`` is written once, with Python operators (``+ - * / **``,
comparisons) and the functions below, so that the same function body runs

* on **numbers and NumPy arrays** (broadcasting over sweeps; the result is a NumPy array or
  NumPy scalar), or
* on **SymPy expressions** (symbols for ``icnperf explain``, LaTeX in reports, and solving for
  crossovers); the result is a SymPy expression.

Dispatch is by argument type: a call takes the SymPy path when any argument is a SymPy object
and the NumPy path otherwise. SymPy is never imported here: if no module has imported it yet,
no argument can be a SymPy object, so ``import icnperf.model.ops`` (and every numeric call)
stays free of the SymPy import cost. :func:`symbols` is the one function that imports it.

Mixing is allowed for scalars: a NumPy scalar or 0-d array next to a SymPy expression is
converted to a Python number; an array with elements next to a symbol is a TypeError (a
symbolic formula is evaluated on arrays by substituting numbers, e.g. with
``sympy.lambdify``, not by mixing).

Conventions shared by the functions:

* Comparisons are written with Python operators (``rho < 1``): NumPy gives boolean arrays,
  SymPy gives relations; :func:`where` and :func:`piecewise` accept both.
* Numeric branches are all evaluated (``np.where`` semantics); formulas evaluate them inside
  :func:`quiet` so that a branch that is not selected (e.g. ``rho / (1 - rho)`` at
  ``rho = 1``) raises no floating-point warning.
* :func:`infinity` is ``numpy.inf`` or ``sympy.oo``, matching the arguments.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from typing import Any

import numpy as np

__all__ = [
    "array",
    "ceil",
    "clip",
    "exp",
    "floor",
    "infinity",
    "is_symbolic",
    "log",
    "log2",
    "maximum",
    "minimum",
    "piecewise",
    "quiet",
    "sqrt",
    "symbols",
    "to_float",
    "where",
]


def _sympy_module():
    """The sympy module if something has imported it, else None (never imports it)."""
    return sys.modules.get("sympy")


def is_symbolic(*args: Any) -> bool:
    """True when any argument is a SymPy object (expression, symbol, relation, boolean)."""
    sp = _sympy_module()
    if sp is None:
        return False
    return any(isinstance(a, sp.Basic) for a in args)


def _to_sympy(x: Any):
    """x as a SymPy object: SymPy objects pass, numbers and 0-d arrays are sympified."""
    import sympy as sp

    if isinstance(x, sp.Basic):
        return x
    if isinstance(x, np.ndarray):
        if x.ndim != 0:
            raise TypeError(
                "icnperf.model.ops: cannot mix a NumPy array of shape "
                f"{x.shape} with SymPy expressions; substitute numbers instead"
            )
        x = x.item()
    elif isinstance(x, np.generic):
        x = x.item()
    return sp.sympify(x)


def _symbolic_args(args):
    return [_to_sympy(a) for a in args]


def array(x):
    """x as a float NumPy array, or unchanged when it is SymPy.

    Formulas apply it to a denominator that may be 0, so that plain Python numbers divide
    like NumPy (inf/nan inside :func:`quiet`) instead of raising ZeroDivisionError.
    """
    if is_symbolic(x):
        return x
    return np.asarray(x, dtype=float)


# --- rounding ---------------------------------------------------------------------------


def ceil(x):
    """Smallest integer >= x (NumPy: float array; SymPy: ``ceiling``)."""
    if is_symbolic(x):
        import sympy as sp

        return sp.ceiling(_to_sympy(x))
    return np.ceil(x)


def floor(x):
    """Largest integer <= x (NumPy: float array; SymPy: ``floor``)."""
    if is_symbolic(x):
        import sympy as sp

        return sp.floor(_to_sympy(x))
    return np.floor(x)


# --- extrema and selection --------------------------------------------------------------


def maximum(*xs):
    """Elementwise maximum of two or more arguments (SymPy: ``Max``)."""
    if len(xs) < 2:
        raise TypeError("maximum() takes at least two arguments")
    if is_symbolic(*xs):
        import sympy as sp

        return sp.Max(*_symbolic_args(xs))
    return functools.reduce(np.maximum, xs)


def minimum(*xs):
    """Elementwise minimum of two or more arguments (SymPy: ``Min``)."""
    if len(xs) < 2:
        raise TypeError("minimum() takes at least two arguments")
    if is_symbolic(*xs):
        import sympy as sp

        return sp.Min(*_symbolic_args(xs))
    return functools.reduce(np.minimum, xs)


def clip(x, lower, upper):
    """x limited to [lower, upper]: ``minimum(maximum(x, lower), upper)``."""
    return minimum(maximum(x, lower), upper)


def where(condition, if_true, if_false):
    """``if_true`` where condition holds, else ``if_false``.

    NumPy: ``np.where`` (both branches evaluated, broadcast together). SymPy:
    ``Piecewise((if_true, condition), (if_false, True))``; a plain Python/NumPy boolean
    condition simply picks a branch.
    """
    if is_symbolic(condition, if_true, if_false):
        import sympy as sp

        if not isinstance(condition, sp.Basic):
            return _to_sympy(if_true) if bool(condition) else _to_sympy(if_false)
        return sp.Piecewise((_to_sympy(if_true), condition), (_to_sympy(if_false), True))
    return np.where(condition, if_true, if_false)


def piecewise(*cases, otherwise):
    """The value of the first ``(value, condition)`` case whose condition holds, else
    ``otherwise``.

    ``piecewise((a, x < 1), (b, x < 2), otherwise=c)``. NumPy: ``np.select``; SymPy:
    ``Piecewise``.
    """
    if not cases:
        return otherwise
    flat = [item for case in cases for item in case]
    if is_symbolic(*flat, otherwise):
        import sympy as sp

        pieces = []
        for value, condition in cases:
            if not isinstance(condition, sp.Basic):
                condition = sp.true if bool(condition) else sp.false
            pieces.append((_to_sympy(value), condition))
        pieces.append((_to_sympy(otherwise), True))
        return sp.Piecewise(*pieces)
    values = [np.asarray(v) for v, _ in cases]
    conditions = [np.asarray(c, dtype=bool) for _, c in cases]
    shape = np.broadcast_shapes(*(v.shape for v in values), *(c.shape for c in conditions),
                                np.shape(otherwise))
    return np.select(
        [np.broadcast_to(c, shape) for c in conditions],
        [np.broadcast_to(v, shape) for v in values],
        default=np.broadcast_to(otherwise, shape),
    )[()]


def infinity(*like):
    """Positive infinity of the arguments' kind: ``sympy.oo`` if any is SymPy, else ``np.inf``."""
    if is_symbolic(*like):
        import sympy as sp

        return sp.oo
    return np.inf


# --- elementary functions ---------------------------------------------------------------


def log2(x):
    """Base-2 logarithm (SymPy: ``log(x, 2)``)."""
    if is_symbolic(x):
        import sympy as sp

        return sp.log(_to_sympy(x), 2)
    return np.log2(x)


def log(x):
    """Natural logarithm."""
    if is_symbolic(x):
        import sympy as sp

        return sp.log(_to_sympy(x))
    return np.log(x)


def exp(x):
    """Exponential."""
    if is_symbolic(x):
        import sympy as sp

        return sp.exp(_to_sympy(x))
    return np.exp(x)


def sqrt(x):
    """Square root."""
    if is_symbolic(x):
        import sympy as sp

        return sp.sqrt(_to_sympy(x))
    return np.sqrt(x)


# --- helpers for callers ----------------------------------------------------------------


@contextlib.contextmanager
def quiet():
    """Silence NumPy floating-point warnings (division by zero, invalid, overflow) inside
    the block: formulas evaluate branches :func:`where` then discards."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        yield


def symbols(names: str, **assumptions):
    """SymPy symbols (imports SymPy). Default assumptions: real and non-negative, which is
    what every physical quantity of the models is; pass others to override.

    Declare ``positive=True`` only for quantities that can never be 0 (bandwidths, flit
    size): SymPy uses it to simplify, e.g. ``Max(1, ceiling(m / p))`` becomes
    ``ceiling(m / p)`` for a positive m, which is wrong once 0 is substituted."""
    import sympy as sp

    options = {"real": True, "nonnegative": True}
    options.update(assumptions)
    return sp.symbols(names, **options)


def to_float(x, values: dict | None = None):
    """x as a float or float array: a SymPy expression after substituting ``values``
    (a mapping of symbols to numbers), a number or array unchanged but as float."""
    if is_symbolic(x):
        expr = x.subs(values or {})
        if expr.free_symbols:
            names = ", ".join(sorted(str(s) for s in expr.free_symbols))
            raise ValueError(f"to_float: no value for {names}")
        return float(expr)
    return np.asarray(x, dtype=float)[()]
