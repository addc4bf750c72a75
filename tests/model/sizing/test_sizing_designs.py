"""Candidate enumeration: feasibility, the canonical NUDT designs, links by role."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.errors import InputError
from icnperf.model.sizing.designs import (
    SIZING_FAMILIES,
    candidate,
    enumerate_designs,
    family_designs,
    link_roles,
)
from icnperf.model.topology import compare


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 2_000_000), radix_max=st.integers(4, 128),
       families=st.sets(st.sampled_from(SIZING_FAMILIES), min_size=1))
def test_every_candidate_reaches_n_within_the_radix(n, radix_max, families):
    chosen = tuple(f for f in SIZING_FAMILIES if f in families)
    try:
        designs = enumerate_designs(n, chosen, (2, 3), radix_max)
    except InputError as error:
        assert "no design" in str(error)
        return
    for d in designs:
        assert d.endpoints >= n
        assert d.radix <= radix_max
        assert d.family in chosen
        assert sum(d.link_roles.values()) == d.links


@pytest.mark.parametrize("family", ["fattree", "dragonfly", "megafly", "slimfly"])
def test_canonical_design_is_compare_design(family):
    """The NUDT-rule candidate is compare.design's, not a re-derivation."""
    ours = [d for d in family_designs(family, 100_000, 128) if d.canonical]
    theirs = compare.design(family, 100_000)
    assert len(ours) == 1
    assert (ours[0].spec, ours[0].routers, ours[0].radix) == (
        theirs.spec, theirs.routers, theirs.radix)


def test_torus_shapes_per_dimension_count():
    designs = family_designs("torus", 100_000, 128, (3, 4, 6))
    specs = [d.spec for d in designs]
    # 47^3 = 103,823 and 46 x 47^2 = 101,614 >= 10^5 > 46^2 x 47 = 99,452
    assert "torus:47x47x47" in specs and "torus:46x47x47" in specs
    assert "torus:46x46x47" not in specs
    # 18^4 = 104,976 and 17 x 18^3 = 99,144 < 10^5: one 4D shape
    assert [s for s in specs if s.count("x") == 3] == ["torus:18x18x18x18"]
    assert "torus:7x7x7x7x7x7" in specs and "torus:6x7x7x7x7x7" in specs


def test_dragonfly_near_balanced_are_minimal():
    designs = family_designs("dragonfly", 100_000, 128)
    assert designs[0].spec == "dragonfly:p=13,a=26,h=13" and designs[0].canonical
    for d in designs[1:]:
        p, a, h = (int(part.split("=")[1]) for part in d.spec.split(":")[1].split(","))
        assert abs(2 * p - a) <= 2 and abs(2 * h - a) <= 2
        for dp, da, dh in ((1, 0, 0), (0, 1, 0), (0, 0, 1)):
            q, b, g = p - dp, a - da, h - dh
            near = q >= 1 and g >= 1 and abs(2 * q - b) <= 2 and abs(2 * g - b) <= 2
            assert not (near and b * q * (b * g + 1) >= 100_000)


def test_radix_limit_removes_families():
    designs = enumerate_designs(100_000, ("fattree", "megafly", "slimfly"), (3,), 40)
    families = {d.family for d in designs}
    assert "slimfly" not in families  # the smallest slim fly for 10^5 needs radix 92
    assert "megafly" in families       # radix 36
    assert all(d.spec != "fattree:k=37,n=3" for d in designs)  # radix 74


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


def test_bad_inputs():
    with pytest.raises(InputError, match="unknown family"):
        enumerate_designs(1000, ("hypercube",))
    with pytest.raises(InputError, match="endpoints"):
        enumerate_designs(1, ("torus",))
    with pytest.raises(InputError, match="no design"):
        enumerate_designs(100_000, ("megafly",), radix_max=8)
    with pytest.raises(InputError, match="torus-dims"):
        enumerate_designs(1000, ("torus",), torus_dims=(0,))
