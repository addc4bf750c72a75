"""The expressions of an application skeleton: parsed safely into SymPy, evaluated exactly.

A skeleton writes its counts and sizes as text such as ``"8 * n**3 / P"``. The text is
read with Python's own parser (:func:`ast.parse`, which only builds a syntax tree and runs
nothing) and the tree is walked node by node against a whitelist, building the SymPy
expression directly. Nothing is ever passed to ``eval``, ``exec`` or SymPy's text parser
(``sympify`` / ``parse_expr``, which use ``eval``), so no SymPy name can leak in: every name
an expression may use comes from the symbol table the caller passes (``N`` is the node count,
``E`` or ``S`` are unknown unless the skeleton declares them).

Allowed: whole and decimal numbers (decimals are kept exact, 0.78 = 39/50), names from the
table, machine values ``node.KEY`` / ``network.KEY`` / ``software.KEY`` (the caller says
which keys exist), ``+ - * / ** // %``, unary minus, parentheses and the functions of
:data:`FUNCTIONS`, called with positional arguments. Anything else (attribute access,
subscripts, keyword arguments, comparisons, lambdas, strings, ``^``) is refused with a
one-line InputError naming the construct.

Each parsed expression keeps SymPy's tree (``explain app`` shows it) and the same tree as
plain Python values (:func:`plain_tree`), which
:func:`~icnperf.model.apps.expression_values.value` evaluates without SymPy, exactly while
only whole numbers and decimals take part (that module's docstring): the numbers of a
skeleton never depend on whether its trees came from SymPy or from the bundled skeletons'
stored trees (``icnperf/data/apps/trees.json``).
"""

from __future__ import annotations

import ast
import builtins
import math
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from icnperf.errors import InputError
from icnperf.model.apps.expression_values import (MACHINE_SECTIONS, MAX_EXACT_BITS,
                                                  RESERVED, Expression, Infinite, Unbound,
                                                  check_name, dims_value, evaluate, value,
                                                  written_text)
from icnperf.model.apps.grid import most_square

__all__ = ["FUNCTIONS", "MACHINE_SECTIONS", "MAX_EXACT_BITS", "MAX_LENGTH", "RESERVED",
           "Expression", "SymbolTable", "check_name", "dims", "log2", "most_square", "parse",
           "plain_tree", "value"]

MAX_LENGTH = 2000
"""Longest expression text accepted (characters)."""

_MAX_DEPTH = 60
"""Deepest nesting of an expression: parentheses, function calls, powers and unary signs
inside one another. A chain of the same kind of operator (``a + b - c + ...``,
``a * b / c * ...``) is one level, however long: length is bounded by :data:`MAX_LENGTH`."""

MAX_ARGUMENTS = 32
"""Most arguments of one ``min()`` or ``max()`` call: SymPy compares every pair of symbolic
arguments (80 took 4.5 s, 149 over 30 s), and no skeleton needs more."""

_MAX_EXPONENT_BITS = MAX_EXACT_BITS


class dims(sp.Function):
    """``dims(n, d, i)``: factor i (0-based, ascending) of :func:`most_square` (n, d)."""

    nargs = 3

    @classmethod
    def eval(cls, n, d, i):
        if all(isinstance(a, sp.Integer) for a in (n, d, i)):
            return sp.Integer(dims_value(int(n), int(d), int(i)))
        return None


class log2(sp.Function):
    """Base-2 logarithm, exact on powers of two (``log2(8)`` is 3)."""

    nargs = 1

    @classmethod
    def eval(cls, x):
        if isinstance(x, sp.Integer) and x > 0 and int(x) & (int(x) - 1) == 0:
            return sp.Integer(int(x).bit_length() - 1)
        if x.is_zero:
            return sp.zoo  # as sp.log(0): refused as an infinite value
        return None


def _extremum(function, args):
    """``min``/``max``: evaluated when every argument is a number, else kept as written
    (SymPy would compare every pair of symbolic arguments, which grows as their count
    squared; :func:`value` evaluates it numerically)."""
    if all(a.is_number for a in args):
        return function(*args)
    return function(*args, evaluate=False)


def _log(*args):
    if len(args) == 1:
        return sp.log(args[0])
    if len(args) == 2:
        base = args[1]
        if base == 2:
            return log2(args[0])
        if base.is_number and not (base.is_positive and base != 1):
            raise InputError(f"log: the base must be a positive number other than 1, not "
                             f"{sp.sstr(base)}")
        return sp.log(args[0]) / sp.log(base)
    raise InputError("log takes one or two arguments")


FUNCTIONS = {
    "ceiling": (sp.ceiling, 1), "ceil": (sp.ceiling, 1), "floor": (sp.floor, 1),
    "min": (lambda *a: _extremum(sp.Min, a), None),
    "max": (lambda *a: _extremum(sp.Max, a), None), "abs": (sp.Abs, 1),
    "sqrt": (sp.sqrt, 1), "exp": (sp.exp, 1), "log": (_log, None), "log2": (log2, 1),
    "dims": (dims, 3),
}
"""Function name -> (SymPy builder, argument count or None for any >= 1). ``dims(n, d, i)``
is the i-th factor of the most square factorization of n over d dimensions (ascending).
Its names are :data:`~icnperf.model.apps.expression_values.FUNCTION_NAMES`."""


# --- parsing ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SymbolTable:
    """What an expression may name: plain names -> SymPy symbols, and the machine keys
    (``"node.spmv_rate"``) it may read (None: any key of :data:`MACHINE_SECTIONS`)."""

    names: dict
    machine_keys: frozenset | None = None

    def machine_symbol(self, path: str):
        return sp.Symbol(path, positive=True)


def parse(text, where: str, table: SymbolTable) -> Expression:
    """The expression written as ``text`` (a string, or a TOML int/float) at ``where``;
    InputError (one line, naming ``where``) for anything outside the grammar."""
    if isinstance(text, bool):
        raise InputError(f"{where}: expected an expression or a number, not {text!r}")
    if isinstance(text, int):
        return _expression(written_text(text), sp.Integer(text), where)
    if isinstance(text, float):
        if not math.isfinite(text):
            raise InputError(f"{where}: {text!r} is not a finite number")
        return _expression(written_text(text), _decimal(text), where)
    if not isinstance(text, str):
        raise InputError(f"{where}: expected an expression (text) or a number, "
                         f"not {type(text).__name__}")
    if not text.strip():
        raise InputError(f"{where}: empty expression")
    if len(text) > MAX_LENGTH:
        raise InputError(f"{where}: expression longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as error:
        column = f" at column {error.offset}" if error.offset else ""
        raise InputError(f"{where}: syntax error in {text.strip()!r}{column}") from None
    except (RecursionError, MemoryError, ValueError):
        raise InputError(f"{where}: expression {text.strip()[:40]!r} cannot be read") from None
    builder = _Builder(where, table)
    try:
        with sp.evaluate(False):
            expr = builder.build(tree.body, 0)
    except RecursionError:
        raise InputError(f"{where}: expression nested too deeply") from None
    _check_constant(expr, where)
    return _expression(written_text(text), expr, where)


def _expression(text: str, expr, where: str) -> Expression:
    return Expression(text, plain_tree(expr), where, expr)


_FUNCTION_OPS = {sp.ceiling: "ceiling", sp.floor: "floor", sp.Min: "min", sp.Max: "max",
                 sp.Abs: "abs", sp.Mod: "mod", sp.exp: "exp", sp.log: "log", log2: "log2",
                 dims: "dims"}


def plain_tree(e):
    """SymPy's tree ``e`` as the plain tree of
    :mod:`~icnperf.model.apps.expression_values` (nested tuples, arguments in SymPy's order),
    each node read as the SymPy tree was read before plain trees existed: whole numbers,
    fractions, floats, names, sums, products, powers, real constants as SymPy's floats, and
    the functions of :data:`FUNCTIONS`."""
    if e.is_Integer:
        return int(e)
    if e.is_Rational:
        return ("rational", int(e.p), int(e.q))
    if e.is_Float:
        return ("float", float(e))
    if e.is_Symbol:
        return e.name
    if e.is_Add or e.is_Mul:
        return ("add" if e.is_Add else "mul", *(plain_tree(a) for a in e.args))
    if e.is_Pow:
        return ("pow", plain_tree(e.base), plain_tree(e.exp))
    if e.is_number and e.is_Atom:  # pi, E, I, infinities
        if e.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            return ("infinite",)
        try:
            number = complex(e)
        except TypeError:  # SymPy could not reduce it to a number: an infinite value
            return ("infinite",)
        return ("complex",) if number.imag else ("number", number.real)
    args = tuple(plain_tree(a) for a in e.args)
    op = _FUNCTION_OPS.get(e.func)
    return (op, *args) if op is not None else ("unknown", str(e.func), *args)


def _decimal(x: float):
    """A float as the exact decimal it was written as (0.78 -> 39/50)."""
    fraction = Fraction(repr(x))
    return sp.Rational(fraction.numerator, fraction.denominator)


def _check_constant(expr, where: str) -> None:
    """Refuse what is infinite or complex whatever the names' values: the expression is
    built unevaluated, so roots and logarithms of negative values are looked for here."""
    complex_value = InputError(f"{where}: the value is complex (a root or logarithm of a "
                               "negative number)")
    for node in sp.preorder_traversal(expr):
        if node in (sp.zoo, sp.nan, sp.oo, -sp.oo):
            raise InputError(f"{where}: division by zero or an infinite value")
        if node == sp.I:
            raise complex_value
        if node.is_Pow and node.exp.is_number and not node.exp.is_integer \
                and _known_negative(node.base):
            raise complex_value
        if node.func in (sp.log, log2) and _known_negative(node.args[0]):
            raise complex_value


def _known_negative(node) -> bool:
    """Whether SymPy's assumptions know ``node`` to be negative; False where they cannot
    tell, including where asking raises: the assumptions are a best-effort search that
    fails in several ways on unevaluated trees (a Max of a float zero, as in
    log(max(52 * 0.125 - 52 * 0.125, 52) * P), raises ValueError "not comparable"; a sum
    of zeros, as in sqrt(1 - (N + (0 + 0))), makes Add.primitive divide by zero; a square
    of a sum, as in sqrt(1 + ((1 + N) * (0 + 1)) ** 2), raises PolynomialError from
    real_roots), so any exception of the search means "cannot tell". The evaluation
    refuses a complex value itself."""
    try:
        return bool(node.is_negative)
    except Exception:  # SymPy's assumption search: any failure is "cannot tell"
        return False


_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
           ast.FloorDiv: "//", ast.Mod: "%"}
_CHAINS = {ast.Add: "sum", ast.Sub: "sum", ast.Mult: "product", ast.Div: "product"}
"""Operators whose left-leaning runs count as one level of nesting."""
_REFUSED = {
    ast.BitXor: "'^' (write powers as **)", ast.BitAnd: "'&'", ast.BitOr: "'|'",
    ast.LShift: "'<<'", ast.RShift: "'>>'", ast.MatMult: "'@'",
}
_NODE_WORDS = {
    ast.Lambda: "a lambda", ast.Subscript: "subscripts", ast.Compare: "comparisons",
    ast.BoolOp: "and/or", ast.IfExp: "if-else", ast.List: "lists", ast.Tuple: "tuples",
    ast.Dict: "dicts", ast.Set: "sets", ast.ListComp: "comprehensions",
    ast.GeneratorExp: "comprehensions", ast.SetComp: "comprehensions",
    ast.DictComp: "comprehensions", ast.JoinedStr: "strings", ast.NamedExpr: "':='",
    ast.Starred: "'*' unpacking", ast.Await: "await", ast.Yield: "yield",
}


class _Builder:
    def __init__(self, where: str, table: SymbolTable):
        self.where = where
        self.table = table
        self.arguments = 0

    def fail(self, problem: str):
        return InputError(f"{self.where}: {problem}")

    def build(self, node, depth: int):
        if depth > _MAX_DEPTH:
            raise self.fail("expression nested too deeply")
        if isinstance(node, ast.Constant):
            return self.constant(node.value)
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.Attribute):
            return self.machine_value(node)
        if isinstance(node, ast.UnaryOp):
            operand = self.build(node.operand, depth + 1)
            if isinstance(node.op, ast.USub):
                return -operand
            if isinstance(node.op, ast.UAdd):
                return operand
            raise self.fail("only unary minus and plus are allowed (no 'not', no '~')")
        if isinstance(node, ast.BinOp) and type(node.op) in _CHAINS:
            return self.chain(node, depth)
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY:
                word = _REFUSED.get(type(node.op), type(node.op).__name__)
                raise self.fail(f"operator {word} is not allowed")
            left = self.build(node.left, depth + 1)
            right = self.build(node.right, depth + 1)
            return self.binary(type(node.op), left, right)
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        word = _NODE_WORDS.get(type(node), type(node).__name__)
        raise self.fail(f"{word} not allowed in an expression (only numbers, names, "
                        "machine values, + - * / ** // %, and functions "
                        f"{', '.join(sorted(FUNCTIONS))})")

    def chain(self, node: ast.BinOp, depth: int):
        """A left-leaning run of operators of one kind (``a + b - c``, ``a * b / c``) built
        as one level, walked without recursion along its left side."""
        kind = _CHAINS[type(node.op)]
        links = []
        while isinstance(node, ast.BinOp) and _CHAINS.get(type(node.op)) == kind:
            links.append((type(node.op), node.right))
            node = node.left
        parts = [self.build(node, depth + 1)]
        for op, right in reversed(links):
            part = self.build(right, depth + 1)
            if op is ast.Sub:
                part = -part
            elif op is ast.Div:
                if part == 0:
                    raise self.fail("division by zero")
                part = sp.Pow(part, -1)
            parts.append(part)
        return sp.Add(*parts) if kind == "sum" else sp.Mul(*parts)

    def constant(self, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            kind = "text" if isinstance(value, str) else type(value).__name__
            raise self.fail(f"{kind} constant {value!r} not allowed (numbers only)")
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.fail("number too large")
            return _decimal(value)
        return sp.Integer(value)

    def name(self, name: str):
        symbol = self.table.names.get(name)
        if symbol is not None:
            return symbol
        if name.startswith("__"):
            raise self.fail(f"name {name!r} is not allowed (an attempt at code?)")
        if name in FUNCTIONS:
            raise self.fail(f"{name} is a function: call it, e.g. {name}(x)")
        if name in MACHINE_SECTIONS:
            raise self.fail(f"{name} is a machine section: write {name}.KEY")
        known = ", ".join(sorted(self.table.names, key=str.lower))
        raise self.fail(f"unknown symbol {name!r} (known: {known}; machine values as "
                        "node.KEY, network.KEY, software.KEY)")

    def machine_value(self, node: ast.Attribute):
        base = node.value
        if not (isinstance(base, ast.Name) and base.id in MACHINE_SECTIONS):
            raise self.fail(f"attribute access '.{node.attr}' is not allowed (machine values "
                            "only: node.KEY, network.KEY, software.KEY)")
        path = f"{base.id}.{node.attr}"
        keys = self.table.machine_keys
        if keys is not None and path not in keys:
            section = sorted(k.partition(".")[2] for k in keys if k.startswith(base.id + "."))
            raise self.fail(f"unknown machine value {path!r} (the {base.id} section has: "
                            f"{', '.join(section)})")
        return self.table.machine_symbol(path)

    def binary(self, op, left, right):
        if op is ast.Add:
            return left + right
        if op is ast.Sub:
            return left - right
        if op is ast.Mult:
            return left * right
        if op is ast.Div:
            if right == 0:
                raise self.fail("division by zero")
            return left / right
        if op is ast.FloorDiv:
            if right == 0:
                raise self.fail("division by zero")
            return sp.floor(left / right)
        if op is ast.Mod:
            if right == 0:
                raise self.fail("division by zero")
            return sp.Mod(left, right)
        if left.is_number and right.is_number:
            _check_power_size(left, right, self.fail)
        elif right.is_number and abs(_float(right)) > 1000:
            raise self.fail("exponent too large (at most 1000)")
        return left ** right

    def call(self, node: ast.Call, depth: int):
        if not isinstance(node.func, ast.Name):
            raise self.fail("only the listed functions may be called, by name (an attempt "
                            "at code?)")
        name = node.func.id
        if name not in FUNCTIONS and (name.startswith("_") or hasattr(builtins, name)):
            raise self.fail(f"{name}() is Python, refused: an expression cannot run code "
                            "(an attempt at code?)")
        if name not in FUNCTIONS:
            raise self.fail(f"function {name!r} is not allowed (allowed: "
                            f"{', '.join(sorted(FUNCTIONS))})")
        if node.keywords:
            raise self.fail(f"{name}() takes positional arguments only")
        builder, count = FUNCTIONS[name]
        if count is None:
            self.arguments += len(node.args)
            if self.arguments > MAX_ARGUMENTS:
                raise self.fail(f"more than {MAX_ARGUMENTS} arguments of min(), max() and "
                                "log() in one expression (use [define] names to split it)")
        args = [self.build(a, depth + 1) for a in node.args]
        if (count is None and not args) or (count is not None and len(args) != count):
            wanted = "at least one argument" if count is None else f"{count} argument(s)"
            raise self.fail(f"{name}() takes {wanted}, not {len(args)}")
        try:
            return builder(*args)
        except InputError as error:
            raise self.fail(str(error)) from None
        except (TypeError, ValueError) as error:
            raise self.fail(f"{name}(): {error}") from None


def _float(number) -> float:
    """A constant subexpression (built unevaluated) as a float: inf when it is too large
    or undefined, nan when it is not real."""
    try:
        v = evaluate(plain_tree(number), {})
        return float(v) if not isinstance(v, complex) else math.nan
    except (OverflowError, ZeroDivisionError, Infinite):
        return math.inf
    except (ValueError, ArithmeticError, TypeError, Unbound):
        return math.nan


def _check_power_size(base, exponent, fail) -> None:
    b = abs(_float(base))
    e = _float(exponent)
    if math.isnan(b) or math.isnan(e):
        return
    if math.isinf(b) or math.isinf(e):
        raise fail("number too large")
    if b in (0.0, 1.0):
        return
    if abs(e) * abs(math.log2(b)) > _MAX_EXPONENT_BITS:
        raise fail("number too large")
