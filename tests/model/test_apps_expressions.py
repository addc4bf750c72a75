"""Skeleton expressions (model/apps/expressions.py, expression_values.py): the whitelist
parser and the exact evaluator, checked against an independent evaluation of randomly built
expression trees (Hypothesis), the plain trees against a walk over SymPy's own tree
(tests/model/sympy_walk.py), arbitrary text, SymPy's own names and attempts at code."""

import itertools
import math
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icnperf.errors import InputError
from icnperf.model.apps import expressions as ex
from icnperf.model.apps import expression_values as ev
from icnperf.model.apps import grid
from icnperf.model.apps.expression_values import FUNCTION_NAMES
from icnperf.model.apps.grid import prime_factors
from icnperf.model.apps.skeleton import reserved_symbols
from tests.model.sympy_walk import outcome, sympy_walk

SYMBOLS = {**reserved_symbols(), "n": sp.Symbol("n", real=True), "k": sp.Symbol("k", real=True)}
TABLE = ex.SymbolTable(SYMBOLS, frozenset({"node.spmv_rate", "network.link_bandwidth"}))
ENV = {"n": Fraction(1024), "k": Fraction(3, 2), "P": Fraction(48), "N": Fraction(6),
       "ppn": Fraction(8), "node.spmv_rate": 591e6, "network.link_bandwidth": 9.375e9}


def parse(text):
    return ex.parse(text, "phase 'p', key 'k'", TABLE)


def value(text, env=ENV):
    return ex.value(parse(text), env)


# --- random trees: rendered to text and evaluated independently with Fractions -----------

LEAVES = st.one_of(
    st.integers(0, 60).map(lambda i: (str(i), Fraction(i))),
    st.sampled_from(["0.5", "2.25", "1e3", "0.125"]).map(lambda t: (t, Fraction(t))),
    st.sampled_from(sorted(ENV)).filter(lambda n: "." not in n).map(
        lambda n: (n, ENV[n])),
)


def _combine(children):
    ops = st.sampled_from(["+", "-", "*", "/", "**", "ceiling", "floor", "min", "max", "neg",
                           "//"])

    def build(op, a, b):
        (ta, va), (tb, vb) = a, b
        if op == "neg":
            return f"-({ta})", -va
        if op in ("ceiling", "floor"):
            return f"{op}({ta})", Fraction(getattr(math, "ceil" if op == "ceiling"
                                                   else "floor")(va))
        if op in ("min", "max"):
            return f"{op}({ta}, {tb})", (min if op == "min" else max)(va, vb)
        if op == "**":
            e = int(abs(vb)) % 4
            return f"({ta}) ** {e}", va ** e
        if op in ("/", "//"):
            if vb == 0:
                return f"({ta}) + ({tb})", va + vb
            q = va / vb
            return (f"({ta}) {op} ({tb})", q if op == "/" else Fraction(math.floor(q)))
        return f"({ta}) {op} ({tb})", {"+": va + vb, "-": va - vb, "*": va * vb}[op]

    return st.builds(build, ops, children, children)


TREES = st.recursive(LEAVES, _combine, max_leaves=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TREES)
def test_random_expressions_evaluate_exactly_as_built(tree):
    text, expected = tree
    assert value(text) == expected


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["+", "-", "*", "/"]), TREES), min_size=1,
                max_size=5), st.sampled_from(["", "sqrt", "log", "exp", "abs", "log2"]))
def test_the_plain_tree_gives_the_sympy_trees_number_bit_for_bit(chain, function):
    text = " ".join(f"{op} ({t})" for op, (t, _) in chain)[2:]  # a flat run: one Add or Mul
    text = f"{function}({text})" if function else text
    env = {**ENV, "n": 1024.1, "k": 0.7}  # floats: the order of sums and products counts
    try:
        expression = parse(text)
    except InputError:
        return
    assert outcome(ev.evaluate, expression.tree, env) == outcome(sympy_walk, expression.expr,
                                                                   env)


def test_a_sign_sympy_cannot_decide_is_left_to_the_evaluation():
    """The parse refuses a logarithm or fractional power of a known negative value; where
    SymPy's assumptions raise instead of answering (a Max of a float zero left
    unevaluated: 'not comparable', found by the test above) the parse goes on and the
    number is the evaluation's: log(max(0, 52) x 48)."""
    class Undecided:
        @property
        def is_negative(self):
            raise ValueError("The argument '0.e-110' is not comparable.")

    assert ex._known_negative(Undecided()) is False
    assert ex._known_negative(sp.Integer(-2)) is True
    assert ex._known_negative(sp.Symbol("n", positive=True)) is False
    assert value("log(max(52 * 0.125 - 52 * 0.125, floor(52)) * P)") == math.log(52 * 48)
    with pytest.raises(InputError, match="complex"):
        parse("log(-2)")


def test_a_sum_of_zeros_under_a_root_parses_and_refuses_its_complex_value():
    """SymPy's assumptions divide by zero deciding the sign of 1 - (N + (0 + 0)), and raise
    PolynomialError on the square of a sum (both found by the hypothesis test below): the
    parse goes on, and the value (N = 6) is refused as complex, one line; with the sign the
    other way, and for the square, it is a number."""
    parse("sqrt((1) - ((N) + ((0) + (0))))")
    with pytest.raises(InputError, match="complex"):
        value("sqrt((1) - ((N) + ((0) + (0))))")
    assert value("sqrt((N) - ((1) + ((0) + (0))))") == math.sqrt(5)
    assert value("sqrt(1 + (((1) + (N)) * ((0) + (1))) ** 2 + 0)") == math.sqrt(50)


def test_plain_trees_keep_sympys_argument_order_and_constants():
    e = parse("n + 2 * P - 1.5 / k + 2**(1/2) + ceil(n / 3) % 4")
    assert e.tree == ex.plain_tree(e.expr)
    assert [ex.plain_tree(a) for a in e.expr.args] == list(e.tree[1:])
    assert ex.plain_tree(sp.pi) == ("number", math.pi)
    assert ex.plain_tree(sp.I) == ("complex",) and ex.plain_tree(sp.zoo) == ("infinite",)
    assert ex.plain_tree(sp.Float(0.1)) == ("float", 0.1)
    assert ex.plain_tree(sp.Rational(39, 50)) == ("rational", 39, 50)
    assert tuple(ex.FUNCTIONS) == FUNCTION_NAMES


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.integers(1, 10**6), st.integers(1, 10**18),
                 st.builds(lambda a, b: a * b, st.integers(60000, 70000),
                           st.integers(60000, 10**9))))
def test_prime_factors_are_sympys(n):
    assert prime_factors(n) == {int(p): k for p, k in sp.factorint(n).items()}
    assert list(grid._divisors(n)) == [int(d) for d in sp.divisors(n)]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="nkPN0123456789.+-*/()%^ ,_aeilmx'\"[]:=<>!@#", max_size=40))
def test_arbitrary_text_parses_or_fails_with_one_line_input_error(text):
    try:
        expression = parse(text)
    except InputError as error:
        assert "\n" not in str(error) and str(error).startswith("phase 'p', key 'k'")
        return
    try:
        ex.value(expression, ENV)
    except InputError as error:
        assert "\n" not in str(error)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 4096), st.integers(1, 5))
def test_dims_is_the_lexicographically_most_square_factorization(n, d):
    grid = ex.most_square(n, d)
    assert math.prod(grid) == n and list(grid) == sorted(grid) and len(grid) == d
    # brute force over every ordered factorization (small n, d)
    if n <= 512 and d <= 3:
        best = min(tuple(sorted(f, reverse=True)) for f in _factorizations(n, d))
        assert tuple(sorted(grid, reverse=True)) == best
    assert value(f"dims({n}, {d}, {d - 1})") == grid[-1]


def _factorizations(n, d):
    if d == 1:
        yield (n,)
        return
    for a in range(1, n + 1):
        if n % a == 0:
            for rest in _factorizations(n // a, d - 1):
                yield (a, *rest)


def test_dims_matches_heat_and_hpcg_process_grids():
    from icnperf.model.apps import heat, hpcg

    for p in itertools.chain(range(1, 300), (2048, 4096, 32768, 288, 1000, 7 * 64)):
        assert ex.most_square(p, 2) == heat.process_grid(p)
        assert ex.most_square(p, 3) == hpcg.process_grid(p)


# --- names: the table only, SymPy's never ------------------------------------------------


def test_N_is_the_node_count_and_sympy_names_do_not_leak():
    assert value("2*N") == 12
    assert value("N + P + ppn") == 6 + 48 + 8
    for name in ("S", "E", "I", "O", "Q", "pi", "oo", "zoo", "Symbol", "sympify", "Integer",
                 "Rational", "exp1", "nan", "x"):
        with pytest.raises(InputError, match="unknown symbol"):
            parse(name)
    for name in ("N(2)", "S(1)", "Symbol('x')", "sympify('1')", "Integer(2)", "Float(1)"):
        with pytest.raises(InputError, match="not allowed"):
            parse(name)


def test_every_sympy_name_is_refused_unless_in_the_table():
    for name in dir(sp):
        if not name.isidentifier() or name in SYMBOLS or name in ex.FUNCTIONS \
                or name in ex.MACHINE_SECTIONS:
            continue
        with pytest.raises(InputError):
            parse(name)


def test_machine_values_only_as_known_section_keys():
    assert value("node.spmv_rate * 2") == 2 * 591e6
    with pytest.raises(InputError, match="unknown machine value 'node.nosuch'"):
        parse("node.nosuch")
    with pytest.raises(InputError, match="attribute access"):
        parse("n.real")
    with pytest.raises(InputError, match="machine section"):
        parse("node")


@pytest.mark.parametrize("text", [
    "__import__('os').system('true')",
    "().__class__.__bases__[0].__subclasses__()",
    "open('/etc/passwd')",
    "eval('1')",
    "exec('x=1')",
    "lambda: 1",
    "[c for c in ()]",
    "n.__class__",
    "getattr(n, 'x')",
    "__builtins__",
    "ceiling(n, key=1)",
    "(lambda x: x)(1)",
    "n if P else k",
    "n < P",
    "'text'",
    "f'{n}'",
    "n ^ 2",
    "9 ** 9 ** 9",
    "n ** 100000",
])
def test_attempts_at_code_and_unsupported_syntax_are_refused(text):
    with pytest.raises(InputError) as error:
        parse(text)
    assert "\n" not in str(error.value)


# --- values ---------------------------------------------------------------------------------


def test_exact_integer_arithmetic_and_roots():
    assert value("ceiling(20480000 / 48)") == 426667
    assert value("64 ** (1/3)") == 4
    assert value("(n / 8**(1/3))**2") == 512 ** 2
    assert value("log2(ppn)") == 3 and value("log(P, 2)") == pytest.approx(math.log2(48))
    assert value("0.78 * 100") == 78
    assert isinstance(value("node.spmv_rate / 3"), float)


@pytest.mark.parametrize("text, problem", [
    ("1 / (n - 1024)", "division by zero"),
    ("(k - 2) ** 0.5", "complex"),
    ("log(k - 2)", "not a real number"),
    ("sqrt(-1)", "complex"),
    ("1/0", "division by zero"),
    ("exp(n)", "too large"),
])
def test_bad_values_name_where_and_when(text, problem):
    with pytest.raises(InputError, match=problem) as error:
        ex.value(ex.parse(text, "phase 'p', key 'k'", TABLE), ENV, "at N = 6")
    assert str(error.value).startswith("phase 'p', key 'k'")


def test_reading_and_evaluating_skeletons_never_calls_eval(monkeypatch):
    """Every bundled skeleton read and evaluated with eval and exec refusing text (module
    code that lazy imports run is let through)."""
    import builtins

    from icnperf.data.machine import load_machine
    from icnperf.data.skeleton import list_skeletons, parse_skeleton
    from icnperf.model.apps import timing
    from icnperf.model.collectives import Layout

    texts = {}
    for name, _ in list_skeletons():
        from importlib import resources

        texts[name] = resources.files("icnperf").joinpath("data", "apps",
                                                          f"{name}.toml").read_text()
    machine = load_machine("angara-36").with_overrides(
        ["node.spmv_rate=591MFLOP/s", "node.stencil_rate=11GFLOP/s"])
    gpu_machine = load_machine("dgx-h100")   # the training skeletons' collectives run in NCCL

    real = {"eval": builtins.eval, "exec": builtins.exec}

    def guarded(which):
        def call(source, *args, **kwargs):
            # lazy imports (SymPy's own) exec compiled module code; text is never run
            if isinstance(source, (str, bytes)):
                raise AssertionError(f"{which} called on text {source!r:.60}")
            return real[which](source, *args, **kwargs)
        return call

    def run_all():
        for name, text in texts.items():
            on_gpus = 'api = "ccl"' in text
            timing.run(parse_skeleton(text, name), gpu_machine if on_gpus else machine,
                       Layout.torus((2, 2, 2)))

    run_all()   # once unguarded: the modules it imports lazily build namedtuples with eval
    monkeypatch.setattr(builtins, "eval", guarded("eval"))
    monkeypatch.setattr(builtins, "exec", guarded("exec"))
    run_all()
    for tree_text in ("ceiling(n / P) + dims(P, 3, 1) * log2(ppn)", "min(n, k) ** 2 // 3"):
        ex.value(parse(tree_text), ENV)


# --- results a float cannot hold, logarithms of zero, bad dims indices ----------------------


@pytest.mark.parametrize("text", ["1e308 * 1e308", "ceiling(1e300) * ceiling(1e300)",
                                  "n ** 103", "max(1e300 * 1e300, 1)", "-(10 ** 309)"])
def test_a_result_beyond_the_largest_float_is_refused_where_and_when(text):
    """Whole numbers and decimals are exact Fractions of any size, but every value ends as
    a float of seconds, bytes or FLOP: 1e616 (or 1024**103 = 2**1030) cannot be one."""
    with pytest.raises(InputError, match=r"^phase 'p', key 'k': number too large at N = 6 "):
        ex.value(parse(text), ENV, "at N = 6")


def test_the_largest_floats_still_evaluate():
    assert value("n ** 102") == 2 ** 1020               # 2**1020 < 1.8e308 = max float
    assert float(value("1e308 * 1.5")) == 1.5e308


@pytest.mark.parametrize("text, env", [
    ("log2(0)", ENV), ("log(0)", ENV), ("log2(n - n)", ENV),
    ("log2(n)", {**ENV, "n": Fraction(0)}), ("log(n, 2)", {**ENV, "n": Fraction(0)}),
    ("log(n)", {**ENV, "n": Fraction(0)}),
])
def test_a_logarithm_of_zero_is_an_infinite_value(text, env):
    with pytest.raises(InputError, match="division by zero or an infinite value"):
        ex.value(parse(text), env, "at N = 6")


def test_a_dims_index_out_of_range_says_so():
    with pytest.raises(InputError) as error:
        value("dims(n, 3, 5)")
    message = str(error.value)
    assert "dims: the index must be 0..2, not 5" in message
    assert "logarithm" not in message and "negative" not in message


def test_dims_of_a_count_beyond_1e18_is_refused_and_large_ones_are_quick():
    with pytest.raises(InputError, match="at most 1e18"):
        ex.most_square(10 ** 30, 2)
    # 2^58 x 3 and a prime near 1e18: trial division to the square root would take minutes
    assert ex.most_square(2 ** 58 * 3, 6) == (768, 1024, 1024, 1024, 1024, 1024)
    assert ex.most_square(10 ** 18 - 11, 3) == (1, 1, 10 ** 18 - 11)
