"""The test oracle of the plain trees (model/apps/expression_values.py): a skeleton
expression evaluated by walking SymPy's own tree, node by node, as icnperf evaluated it
before plain trees existed (the same branches and order; the exact arithmetic helpers,
``_bounded`` and ``_power``, are the package's, unchanged). A plain tree and this walk must
give the same number to the bit, or the same error."""

import math
from fractions import Fraction

import sympy as sp

from icnperf.errors import InputError
from icnperf.model.apps import expression_values as ev
from icnperf.model.apps.expressions import dims, log2


def sympy_walk(e, env):
    """The number SymPy's tree ``e`` takes with ``env`` (raises as
    :func:`icnperf.model.apps.expression_values.evaluate` does)."""
    if e.is_Integer:
        return Fraction(int(e))
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    if e.is_Float:
        return float(e)
    if e.is_Symbol:
        if e.name not in env:
            raise ev.Unbound(f"{e.name} has no value")
        v = env[e.name]
        return Fraction(v) if isinstance(v, int) else v
    if e.is_Add:
        total = Fraction(0)
        for a in e.args:
            total = ev._bounded(total + sympy_walk(a, env))
        return total
    if e.is_Mul:
        product = Fraction(1)
        for a in e.args:
            product = ev._bounded(product * sympy_walk(a, env))
        return product
    if e.is_Pow:
        return ev._bounded(ev._power(sympy_walk(e.base, env), sympy_walk(e.exp, env)))
    if e.is_number and e.is_Atom:
        if e.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            raise ev.Infinite()
        try:
            number = complex(e)
        except TypeError:
            raise ev.Infinite() from None
        if number.imag:
            raise ValueError("complex")
        return number.real
    args = [sympy_walk(a, env) for a in e.args]
    for a in args:
        if isinstance(a, complex):
            raise ValueError("complex")
    func = e.func
    if func is sp.ceiling:
        return Fraction(math.ceil(args[0]))
    if func is sp.floor:
        return Fraction(math.floor(args[0]))
    if func is sp.Min:
        return min(args)
    if func is sp.Max:
        return max(args)
    if func is sp.Abs:
        return abs(args[0])
    if func is sp.Mod:
        return ev._bounded(args[0] % args[1])
    if func is sp.exp:
        return math.exp(args[0])
    if func in (sp.log, log2) and args[0] == 0:
        raise ev.Infinite()
    if func is sp.log:
        return math.log(args[0])
    if func is log2:
        x = args[0]
        if isinstance(x, Fraction) and x.denominator == 1 and x > 0 \
                and x.numerator & (x.numerator - 1) == 0:
            return Fraction(x.numerator.bit_length() - 1)
        return math.log2(x)
    if func is dims:
        n, d, i = args
        if not all(isinstance(a, Fraction) and a.denominator == 1 for a in args):
            raise InputError(f"dims() needs whole numbers, not {float(n):g}, {float(d):g}, "
                             f"{float(i):g}")
        return Fraction(ev.dims_value(int(n), int(d), int(i)))
    raise InputError(f"cannot evaluate {func}")


def outcome(evaluate, *args):
    """(type name, repr) of what ``evaluate(*args)`` returns, or ("error", type name,
    message) of what it raises: two outcomes are equal when the numbers are bit for bit."""
    try:
        v = evaluate(*args)
    except Exception as error:  # noqa: BLE001 -- the oracle compares any error
        return ("error", type(error).__name__, str(error))
    return (type(v).__name__, repr(v))
