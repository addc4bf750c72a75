"""icnperf.model.ops: one formula, the same value on NumPy and on SymPy (after substitution)."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.model import ops

x, y = sp.symbols("x y", positive=True)


def test_import_does_not_load_sympy():
    code = ("import sys, icnperf.model.ops, icnperf.model.network; "
            "print('sympy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_is_symbolic():
    assert ops.is_symbolic(x)
    assert ops.is_symbolic(1.0, x + 1)
    assert ops.is_symbolic(x < 1)
    assert not ops.is_symbolic(1.0, np.arange(3), 2)


@pytest.mark.parametrize(
    "function, numeric, symbolic",
    [
        (ops.ceil, np.ceil, sp.ceiling),
        (ops.floor, np.floor, sp.floor),
        (ops.log2, np.log2, lambda v: sp.log(v, 2)),
        (ops.log, np.log, sp.log),
        (ops.exp, np.exp, sp.exp),
        (ops.sqrt, np.sqrt, sp.sqrt),
    ],
)
def test_unary_dispatch(function, numeric, symbolic):
    values = np.array([0.3, 1.0, 2.5, 17.0])
    assert np.array_equal(function(values), numeric(values))
    assert function(x) == symbolic(x)
    for v in values:
        assert float(function(x).subs(x, v)) == pytest.approx(float(numeric(v)), rel=1e-12)


def test_hand_values():
    assert ops.ceil(17 / 16) == 2
    assert ops.floor(17 / 16) == 1
    assert ops.ceil(sp.Integer(17) / 16) == 2
    assert ops.log2(sp.Integer(1024)) == 10
    assert ops.maximum(1, 5, 3) == 5
    assert ops.minimum(sp.Integer(4), 2, 9) == 2
    assert ops.clip(7, 0, 5) == 5
    assert ops.infinity(1.0) == np.inf
    assert ops.infinity(x) is sp.oo


def test_maximum_minimum_broadcast_and_symbolic():
    a = np.array([[1.0], [4.0]])
    b = np.array([2.0, 3.0, 5.0])
    assert ops.maximum(a, b).shape == (2, 3)
    assert np.array_equal(ops.minimum(a, b, 3.5), np.minimum(np.minimum(a, b), 3.5))
    assert ops.maximum(x, y, 1) == sp.Max(x, y, 1)
    assert ops.minimum(x, 2) == sp.Min(x, 2)
    with pytest.raises(TypeError):
        ops.maximum(x)


def test_where_numeric_and_symbolic():
    v = np.array([0.2, 0.9, 1.0, 3.0])
    got = ops.where(v < 1, v, ops.infinity(v))
    assert np.array_equal(got, np.array([0.2, 0.9, np.inf, np.inf]))
    expr = ops.where(x < 1, x, ops.infinity(x))
    assert isinstance(expr, sp.Piecewise)
    assert float(expr.subs(x, 0.5)) == 0.5
    assert expr.subs(x, 2) is sp.oo
    assert ops.where(True, x, 0) == x  # a plain condition picks a branch
    assert ops.where(np.bool_(False), x, 0) == 0


def test_piecewise_numeric_and_symbolic():
    v = np.array([0.5, 1.5, 2.5])
    got = ops.piecewise((v * 10, v < 1), (v * 100, v < 2), otherwise=-1.0)
    assert np.array_equal(got, np.array([5.0, 150.0, -1.0]))
    assert ops.piecewise((1.0, True), (3.0, False), otherwise=2.0) == 1.0
    expr = ops.piecewise((x * 10, x < 1), (x * 100, x < 2), otherwise=-1)
    assert [float(expr.subs(x, val)) for val in v] == [5.0, 150.0, -1.0]
    assert ops.piecewise(otherwise=3) == 3


def test_mixing_scalars_and_symbols():
    assert ops.maximum(np.float64(2.0), x) == sp.Max(2.0, x)
    assert ops.maximum(np.array(2.0), x) == sp.Max(2.0, x)
    with pytest.raises(TypeError, match="substitute numbers"):
        ops.maximum(np.array([1.0, 2.0]), x)


def test_quiet_silences_discarded_branches():
    rho = np.array([0.0, 0.5, 1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ops.quiet():
            got = ops.where(rho < 1, rho / (1 - rho), ops.infinity(rho))
    assert np.array_equal(got, np.array([0.0, 1.0, np.inf, np.inf]))


def test_symbols_and_to_float():
    a, b = ops.symbols("a b")
    assert a.is_nonnegative and a.is_real
    (c,) = ops.symbols("c,", positive=True)
    assert c.is_positive
    assert ops.to_float(a * b, {a: 2, b: 3.5}) == 7.0
    assert ops.to_float(ops.infinity(a)) == math.inf
    assert ops.to_float(np.array([1, 2])).dtype == float
    with pytest.raises(ValueError, match="b"):
        ops.to_float(a * b, {a: 1})


def formula(m, f, p, bw):
    """A packetization-style formula written once with ops: flits of a message over a
    channel, with a log term and a saturating branch."""
    flits = ops.ceil(m / f) + ops.maximum(1, ops.ceil(m / (p * f)))
    time = flits * f / bw + ops.log2(1 + m) * 1e-9
    rho = m / (m + bw * 1e-9)
    return ops.where(rho < 1, time + ops.sqrt(rho) * 1e-9, ops.infinity(rho))


@settings(max_examples=25, deadline=None)
@given(
    m=st.integers(0, 10**6),
    f=st.sampled_from([1, 8, 16, 64]),
    p=st.integers(1, 32),
    bw=st.floats(1e6, 1e11),
)
def test_same_formula_numpy_and_sympy(m, f, p, bw):
    # M may be 0: declared non-negative, not positive (a positive M would let SymPy drop
    # the max(1, ...) branch that a 0-byte message takes).
    (M,) = ops.symbols("M,")
    F, P, BW = sp.symbols("F P BW", positive=True)
    symbolic = formula(M, F, P, BW)
    numeric = formula(np.array(float(m)), f, p, bw)
    value = ops.to_float(symbolic, {M: m, F: f, P: p, BW: bw})
    assert value == pytest.approx(float(numeric), rel=1e-12)


def test_formula_broadcasts_over_sweeps():
    m = np.array([0.0, 16.0, 256.0, 4096.0])[:, None]
    bw = np.array([1e9, 1e10])
    out = formula(m, 16, 16, bw)
    assert out.shape == (4, 2)
    for i, mi in enumerate(m[:, 0]):
        for j, bj in enumerate(bw):
            assert out[i, j] == formula(np.array(mi), 16, 16, bj)
