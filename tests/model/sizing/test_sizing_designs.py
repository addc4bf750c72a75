"""Candidates: the canonical NUDT designs, links by role."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.model.sizing.designs import candidate, canonical_params, link_roles
from icnperf.model.topology import compare


@pytest.mark.parametrize("family", ["fattree", "dragonfly", "megafly", "slimfly"])
def test_canonical_design_is_compare_design(family):
    """The NUDT-rule parameters are compare.design's, not a re-derivation."""
    theirs = compare.design(family, 100_000)
    ours = candidate(family, canonical_params(family, 100_000))
    assert (ours.spec, ours.routers, ours.radix) == (theirs.spec, theirs.routers, theirs.radix)


def test_canonical_torus_per_dimension_count_and_no_clos_rule():
    """47^3 = 103,823 >= 10^5 > 46^3; 7^6 = 117,649 >= 10^5 > 6^6 = 46,656."""
    assert canonical_params("torus", 100_000, dims=3) == {"radices": (47, 47, 47)}
    assert canonical_params("torus", 100_000, dims=6) == {"radices": (7,) * 6}
    assert canonical_params("clos", 100_000) is None


def test_fattree_link_roles_by_level():
    """FT(3, 3): 2k^n = 54 links between each pair of adjacent levels, 108 in all."""
    roles = link_roles("fattree", {"k": 3, "n": 3})
    assert roles == {"level 1-2": 54, "level 2-3": 54}
    assert candidate("fattree", {"k": 3, "n": 3}).links == 108


@pytest.mark.parametrize("q", [3, 5, 7, 11])
def test_slimfly_rack_links_by_construction(q):
    """Cross links (0,x,y)-(1,m,c) with y = m x + c (mod q, q prime) built explicitly; a
    rack holds column x of subgraph 0 and column x of subgraph 1. Intra-column links all
    stay in their rack: 2q^2 routers x (k' - q) intra-column ports / 2."""
    in_rack = sum(1 for x, m, c in itertools.product(range(q), repeat=3) if x == m)
    cross = q**3
    d = candidate("slimfly", {"q": q})
    network_radix = d.radix - (d.endpoints // d.routers)
    intra = 2 * q * q * (network_radix - q) // 2
    assert link_roles("slimfly", {"q": q}) == {"in-rack": intra + in_rack,
                                               "between racks": cross - in_rack}
    assert intra + cross == d.links


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(
    st.lists(st.integers(2, 9), min_size=1, max_size=4).map(
        lambda r: ("torus", {"radices": tuple(r)})),
    st.tuples(st.integers(1, 3), st.integers(2, 4), st.integers(1, 3)).map(
        lambda t: ("dragonfly", {"p": t[0], "a": t[1], "h": t[2]}))),
    min_size=1, max_size=10))
def test_candidates_together_equal_each_alone(designs):
    """designs.candidates (tori of one dimension count evaluated as one batch) gives each
    design's candidate() exactly: every field, floats to the last bit."""
    from icnperf.model.sizing.designs import candidates

    rows = [(family, params, "given", False) for family, params in designs]
    assert candidates(rows) == [candidate(*row) for row in rows]
