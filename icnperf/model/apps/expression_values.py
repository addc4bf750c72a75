"""A skeleton expression's value, worked out without SymPy from its plain tree.

:mod:`icnperf.model.apps.expressions` parses an expression's text with SymPy and keeps,
beside SymPy's tree, the same tree as plain Python values (:func:`expressions.plain_tree`);
the bundled skeletons' plain trees are stored ready-made (``icnperf/data/apps/trees.json``),
so running a bundled skeleton never imports SymPy. This module holds the record of an
expression and evaluates its plain tree; it imports no SymPy.

A plain tree is an ``int`` (a whole number), a ``str`` (a name: ``n``, ``P``, a machine value
``node.KEY``) or a tuple ``(op, *arguments)`` with ``op`` one of

* ``"rational" p q`` (the exact fraction p/q), ``"float" x`` (a SymPy Float), ``"number" x``
  (a real constant such as pi, as the float SymPy gives it), ``"complex"`` and
  ``"infinite"`` (a constant that is not real or not finite: an error when evaluated);
* ``"add"``, ``"mul"`` (any number of arguments), ``"pow"`` base exponent;
* the functions ``"ceiling"``, ``"floor"``, ``"min"``, ``"max"``, ``"abs"``, ``"mod"``,
  ``"exp"``, ``"log"``, ``"log2"``, ``"dims"``, and ``"unknown" name *arguments`` (a SymPy
  function no branch evaluates: an error naming it).

The arguments stand in SymPy's order (``expr.args``), and :func:`value` adds and multiplies
them one by one in that order, as the SymPy tree was walked before the plain tree existed,
so every value is the same number, to the bit. Evaluation uses Python's exact
:class:`fractions.Fraction` for whole numbers and decimals and floats once a machine value or
an irrational power enters, so ``ceiling(rows / P)`` is exact for any sizes; integer roots
are exact too (``64**(1/3)`` is 4). A complex or non-finite result, a division by zero or a
number too large raises InputError. So does a result beyond the largest float (about
1.8e308): every value ends up as a float of seconds, bytes or FLOP, and an exact whole number
may grow past what a float holds (``1e308 * 1e308``).
"""

from __future__ import annotations

import functools
import math
import re
import sys
from dataclasses import dataclass, field
from fractions import Fraction

from icnperf.errors import InputError
from icnperf.model.apps.grid import most_square

__all__ = ["FUNCTION_NAMES", "MACHINE_SECTIONS", "MAX_EXACT_BITS", "RESERVED", "Expression",
           "Infinite", "Unbound", "check_name", "dims_value", "evaluate", "names_of", "value",
           "written_text"]

RESERVED = {"P": "ranks (nodes x processes per node)", "N": "nodes", "ppn": "processes per node"}
"""The names every expression may use besides the skeleton's own."""

MACHINE_SECTIONS = ("network", "node", "software")
"""Machine sections whose values an expression may read, written ``node.spmv_rate``."""

FUNCTION_NAMES = ("ceiling", "ceil", "floor", "min", "max", "abs", "sqrt", "exp", "log",
                  "log2", "dims")
"""The functions an expression may call (their SymPy builders: expressions.FUNCTIONS)."""

MAX_EXACT_BITS = 4096
"""Largest numerator or denominator (bits) kept exact while evaluating; beyond it a value
goes on as a float, so a chain of definitions cannot double its digits without end."""
_LARGEST = Fraction(sys.float_info.max)
"""The largest value a skeleton expression may take (a float's range)."""
_MAX_EXPONENT_BITS = MAX_EXACT_BITS
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Expression:
    """A parsed expression: its ``text`` as written, its plain ``tree`` (module docstring),
    ``where`` it was written (for messages: ``phase 'sweep', key 'flops'``) and SymPy's
    ``expr`` (None when the tree was read from the bundled skeletons' stored trees; only
    ``explain app`` shows it). Two expressions are equal when text, tree and place are."""

    text: str
    tree: object
    where: str
    expr: object = field(default=None, compare=False, repr=False)

    @functools.cached_property
    def names(self) -> frozenset:
        """Every name the expression uses (machine values as ``node.KEY``)."""
        return names_of(self.tree)

    @property
    def machine_keys(self) -> frozenset:
        return frozenset(n for n in self.names if "." in n)


_PAYLOADS = ("rational", "float", "number", "complex", "infinite")
"""Operations whose arguments are numbers, not trees."""


def names_of(tree) -> frozenset:
    """The names (``str`` leaves) of a plain tree."""
    out, stack = set(), [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.add(node)
        elif isinstance(node, tuple) and node[0] not in _PAYLOADS:
            stack.extend(node[2:] if node[0] == "unknown" else node[1:])
    return frozenset(out)


def written_text(text) -> str | None:
    """The text an expression written as ``text`` (TOML text or number) is recorded with:
    an int as ``str``, a float as ``repr``, text stripped; None for anything else."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return str(text)
    if isinstance(text, float):
        return repr(text)
    if isinstance(text, str):
        return text.strip()
    return None


def value(expression: Expression, env: dict, at: str = ""):
    """The number ``expression`` takes with the names bound by ``env`` (name -> int,
    Fraction or float; machine values under their ``node.KEY`` names). Exact (a Fraction)
    while only whole numbers and decimals take part. InputError naming where and ``at``
    (e.g. ``"at P = 48"``) for a complex, infinite or undefined result, one larger than the
    largest float (``sys.float_info.max``), or an unbound name."""
    suffix = f" {at}" if at else ""
    where = expression.where
    try:
        result = evaluate(expression.tree, env)
    except ZeroDivisionError:
        raise InputError(f"{where}: division by zero{suffix}") from None
    except OverflowError:
        raise InputError(f"{where}: number too large{suffix}") from None
    except Unbound as error:
        raise InputError(f"{where}: {error}{suffix}") from None
    except Infinite:
        raise InputError(f"{where}: division by zero or an infinite value{suffix}") from None
    except InputError as error:  # before ValueError, which InputError also is
        raise InputError(f"{where}: {error}{suffix}") from None
    except (ValueError, ArithmeticError):
        raise InputError(f"{where}: not a real number{suffix} (a logarithm or root of a "
                         "negative number)") from None
    except TypeError:  # an infinite value that no branch above caught
        raise InputError(f"{where}: division by zero or an infinite value{suffix}") from None
    if isinstance(result, complex):
        raise InputError(f"{where}: the value is complex{suffix} (a root of a negative "
                         "number)")
    if isinstance(result, float) and math.isnan(result):
        raise InputError(f"{where}: the value is not a number{suffix}")
    if abs(result) > _LARGEST:
        raise InputError(f"{where}: number too large{suffix} (over "
                         f"{sys.float_info.max:.3g})")
    return result


class Unbound(Exception):
    """A name of the tree that ``env`` gives no value."""


class Infinite(Exception):
    """A constant that is complex infinity, infinity or undefined (SymPy's zoo, oo, nan)."""


def evaluate(tree, env: dict):
    """The plain tree's number (Fraction, float or complex) with ``env``'s values; raises
    :class:`Unbound`, :class:`Infinite`, ZeroDivisionError, OverflowError, ValueError or
    InputError, which :func:`value` turns into one-line messages."""
    kind = type(tree)
    if kind is int:
        return Fraction(tree)
    if kind is str:
        if tree not in env:
            raise Unbound(f"{tree} has no value")
        v = env[tree]
        return Fraction(v) if isinstance(v, int) else v
    op = tree[0]
    if op == "add":
        total = Fraction(0)
        for a in tree[1:]:
            total = _bounded(total + evaluate(a, env))
        return total
    if op == "mul":
        product = Fraction(1)
        for a in tree[1:]:
            product = _bounded(product * evaluate(a, env))
        return product
    if op == "pow":
        return _bounded(_power(evaluate(tree[1], env), evaluate(tree[2], env)))
    if op == "rational":
        return Fraction(tree[1], tree[2])
    if op in ("float", "number"):
        return tree[1]
    if op == "infinite":
        raise Infinite()
    if op == "complex":
        raise ValueError("complex")
    return _function(op, tree, env)


def _function(op: str, tree, env: dict):
    arguments = tree[2:] if op == "unknown" else tree[1:]
    args = [evaluate(a, env) for a in arguments]
    for a in args:
        if isinstance(a, complex):
            raise ValueError("complex")
    if op == "ceiling":
        return Fraction(math.ceil(args[0]))
    if op == "floor":
        return Fraction(math.floor(args[0]))
    if op == "min":
        return min(args)
    if op == "max":
        return max(args)
    if op == "abs":
        return abs(args[0])
    if op == "mod":
        return _bounded(args[0] % args[1])
    if op == "exp":
        return math.exp(args[0])
    if op in ("log", "log2") and args[0] == 0:
        raise Infinite()
    if op == "log":
        return math.log(args[0])
    if op == "log2":
        x = args[0]
        if isinstance(x, Fraction) and x.denominator == 1 and x > 0 \
                and x.numerator & (x.numerator - 1) == 0:
            return Fraction(x.numerator.bit_length() - 1)
        return math.log2(x)
    if op == "dims":
        n, d, i = args
        if not all(isinstance(a, Fraction) and a.denominator == 1 for a in args):
            raise InputError(f"dims() needs whole numbers, not {float(n):g}, {float(d):g}, "
                             f"{float(i):g}")
        return Fraction(dims_value(int(n), int(d), int(i)))
    raise InputError(f"cannot evaluate {tree[1] if op == 'unknown' else op}")


def dims_value(n: int, d: int, i: int) -> int:
    """Factor ``i`` (0-based, ascending) of :func:`most_square` (n, d)."""
    grid = most_square(n, d)
    if not 0 <= i < d:
        raise InputError(f"dims: the index must be 0..{d - 1}, not {i}")
    return grid[i]


def _bounded(x):
    """``x`` itself, or as a float once its numerator or denominator passes
    :data:`MAX_EXACT_BITS` (OverflowError beyond a float's range)."""
    if isinstance(x, Fraction) and (x.numerator.bit_length() > MAX_EXACT_BITS
                                    or x.denominator.bit_length() > MAX_EXACT_BITS):
        return float(x)
    return x


def _power(b, e):
    if isinstance(e, Fraction) and isinstance(b, Fraction):
        if e.denominator == 1:
            k = e.numerator
            size = max(abs(b.numerator), b.denominator).bit_length()
            if b in (0, 1, -1) or abs(k) * size <= _MAX_EXPONENT_BITS:
                return b ** k
            return float(b) ** k
        if b >= 0 and e.denominator <= 64:
            root = _exact_root(b, e.denominator)
            if root is not None:
                return _power(root, Fraction(e.numerator))
    return float(b) ** float(e)


def _exact_root(x: Fraction, q: int):
    """The q-th root of x as a Fraction when it is exact, else None."""
    out = []
    for part in (x.numerator, x.denominator):
        guess = round(part ** (1.0 / q)) if part.bit_length() < 1000 else None
        if guess is None:
            return None
        for r in (guess - 1, guess, guess + 1):
            if r >= 0 and r ** q == part:
                out.append(r)
                break
        else:
            return None
    return Fraction(out[0], out[1])


def check_name(name: str, what: str) -> None:
    """InputError unless ``name`` can be a skeleton's own name (parameter, coefficient,
    definition): an identifier, not reserved, not a function or a machine section."""
    if not isinstance(name, str) or not _NAME_RE.match(name) or name.startswith("__"):
        raise InputError(f"{what} {name!r}: names are letters, digits and _ (not starting "
                         "with a digit or __)")
    if name in RESERVED or name in FUNCTION_NAMES or name in MACHINE_SECTIONS:
        raise InputError(f"{what} {name!r}: the name is taken (reserved: "
                         f"{', '.join(RESERVED)}; functions; machine sections)")
