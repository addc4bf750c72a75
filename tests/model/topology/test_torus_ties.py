"""Torus channel loads under each tie rule (plus, split, random) against brute force: every
route walked hop by hop on the whole torus, a tie's flits sent + (plus), by the source's
ring parity (split) or half each way (random, the expected load of a fair coin)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from icnperf.model.topology import torus


def _walk(radices, pairs, ties):
    """Largest load over all unidirectional channels; pairs: (src, dst, weight) coords."""
    load: dict = {}
    for src, dst, weight in pairs:
        here = list(src)
        for i, k in enumerate(radices):
            f = (dst[i] - here[i]) % k
            if f == 0:
                continue
            if k == 2 or 2 * f < k:
                ways = [(+1, 1.0)]
            elif 2 * f > k:
                ways = [(-1, 1.0)]
            elif ties == "plus":
                ways = [(+1, 1.0)]
            elif ties == "split":
                ways = [(+1, 1.0)] if here[i] % 2 == 0 else [(-1, 1.0)]
            else:
                ways = [(+1, 0.5), (-1, 0.5)]
            for sign, share in ways:
                x = list(here)
                for _ in range(f if sign > 0 else k - f):
                    # a radix-2 ring is one link: both directions are the channel x -> x+1
                    key = (tuple(x), i, sign if k > 2 else +1)
                    load[key] = load.get(key, 0.0) + weight * share
                    x[i] = (x[i] + sign) % k
            here[i] = dst[i]
    return max(load.values())


def _coords(radices):
    return list(itertools.product(*[range(k) for k in reversed(radices)]))


SHAPES = [(4, 4), (6, 6), (8, 4), (6, 3), (10, 10), (2, 6), (4, 4, 4), (6, 2, 5)]


@pytest.mark.parametrize("ties", torus.LOAD_TIES)
@pytest.mark.parametrize("radices", SHAPES)
def test_uniform_load_by_tie_rule(radices, ties):
    nodes = [c[::-1] for c in _coords(radices)]
    n = len(nodes)
    pairs = [(s, d, 1.0 / n) for s in nodes for d in nodes]
    assert torus.uniform_load(radices, ties=ties) == pytest.approx(
        _walk(radices, pairs, ties), rel=1e-12)


@pytest.mark.parametrize("ties", torus.LOAD_TIES)
@pytest.mark.parametrize("radices", SHAPES)
def test_bit_complement_load_by_tie_rule(radices, ties):
    nodes = [c[::-1] for c in _coords(radices)]
    pairs = [(s, tuple(k - 1 - x for k, x in zip(radices, s)), 1.0) for s in nodes]
    assert torus.bit_complement_load(radices, ties=ties) == pytest.approx(
        _walk(radices, pairs, ties), rel=1e-12)


@pytest.mark.parametrize("ties", torus.LOAD_TIES)
@pytest.mark.parametrize("radices", [(4, 4), (6, 6), (8, 8), (3, 3), (4, 6, 4, 6)])
def test_transpose_load_by_tie_rule(radices, ties):
    h = len(radices) // 2
    nodes = [c[::-1] for c in _coords(radices)]
    pairs = [(s, tuple(s[h:]) + tuple(s[:h]), 1.0) for s in nodes]
    assert torus.transpose_load(radices, ties=ties) == pytest.approx(
        _walk(radices, pairs, ties), rel=1e-12)


def test_booksim_8x8_uniform_bound_is_one():
    """BookSim2's summary gives the 8x8 torus a DOR channel-load bound of 1.0 under its
    random direction at a tie; ties to + give 1.25 (bound 0.8)."""
    assert float(torus.uniform_load((8, 8), ties="random")) == 1.0
    assert float(torus.uniform_load((8, 8))) == 1.25


def test_unknown_tie_rule():
    with pytest.raises(ValueError, match="unknown ring tie rule"):
        torus.uniform_load((4, 4), ties="minus")
    assert np.asarray(torus.uniform_load([(4, 4), (5, 5)], ties="random")).shape == (2,)
