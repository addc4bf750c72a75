"""The topology spec parser: good specs round-trip, bad ones raise InputError only."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.errors import InputError
from icnperf.model.topology.spec import FAMILIES, parse_spec

GOOD = {
    "torus:16x16x32": ("torus", 8192),
    "mesh:8x8": ("mesh", 64),
    "torus:24x23x24x2mx3x2m": ("torus", 158_976),
    "torus:4mx3": ("torus", 12),
    "hypercube:10": ("hypercube", 1024),
    "fattree:k=18,n=3": ("fattree", 2 * 18**3),
    "clos:radix=64,levels=3": ("clos", 2 * 32**3),
    "dragonfly:p=4,a=8,h=4": ("dragonfly", 4 * 8 * 33),
    "megafly:k=18": ("megafly", 18**2 * (18**2 + 1)),
    "gdragonfly:p=4,a=16,b=6,lb=3,g=9,m=40": ("gdragonfly", 4 * 96 * 9),
    "gdragonfly:p=16,a=32,g=5,m=4": ("gdragonfly", 16 * 32 * 5),
    "slimfly:q=13": ("slimfly", None),
}

BAD = [
    "torus:0x4", "torus:8xx8", "torus:", "torus", "torus:-4x4", "torus:4.5x4",
    "mesh:0", "hypercube:-1", "hypercube:abc", "fattree:k=0,n=3", "fattree:k=4",
    "dragonfly:p=-1,a=8,h=4", "dragonfly:p=4,a=8", "slimfly:q=6", "slimfly:q=1",
    "megafly:k=0", "clos:radix=3,levels=3", "nosuch:4", "torus:99999999x99999999x99999999",
    "dragonfly:p=4,a=8,h=4,p=4", "dragonfly:p=4,a=8,x=4", "fattree:18", "", ":",
    "hypercube:99", "megafly:k=100000",
    "mesh:4mx4", "torus:4mx4m", "torus:4mmx4", "torus:mx4", "torus:4m5", "hypercube:3m",
]


@pytest.mark.parametrize("text", sorted(GOOD))
def test_good_specs_parse_and_round_trip(text):
    spec = parse_spec(text)
    family, endpoints = GOOD[text]
    assert spec.family.name == family
    assert spec.text == text
    assert parse_spec(spec.text).params == spec.params
    if endpoints is not None:
        assert int(spec.evaluate().endpoints) == endpoints


def test_mesh_marked_torus_dimensions():
    spec = parse_spec("torus:4mx3 x 2m")
    assert spec.params == {"radices": (4, 3, 2), "wrap": (False, True, False)}
    assert spec.text == "torus:4mx3x2m"
    assert parse_spec("torus:4x3").params == {"radices": (4, 3)}


def test_spec_parsing_ignores_case_of_family_and_spaces():
    assert parse_spec(" Torus:4x4 ").text == "torus:4x4"
    assert parse_spec("dragonfly: p=2, a=4, h=2").text == "dragonfly:p=2,a=4,h=2"


@pytest.mark.parametrize("text", BAD)
def test_bad_specs_raise_one_line_input_errors(text):
    with pytest.raises(InputError) as info:
        parse_spec(text)
    assert "\n" not in str(info.value)


def test_every_family_has_an_example_that_parses():
    for family in FAMILIES.values():
        assert parse_spec(family.example).family is family


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_random_text_answers_or_raises_input_error(text):
    try:
        spec = parse_spec(text)
    except InputError:
        return
    assert int(spec.evaluate().endpoints) >= 1


SPEC_LIKE = st.builds(
    lambda family, body: f"{family}:{body}",
    st.sampled_from(sorted(FAMILIES) + ["torus", "nosuch"]),
    st.one_of(
        st.lists(st.integers(-3, 40), min_size=1, max_size=5).map(
            lambda ks: "x".join(map(str, ks))),
        st.integers(-3, 40).map(str),
        st.lists(st.tuples(st.sampled_from(["k", "n", "p", "a", "h", "q", "radix", "levels", "b",
                                            "g", "m", "la"]),
                           st.integers(-3, 60)), min_size=1, max_size=4).map(
            lambda kv: ",".join(f"{k}={v}" for k, v in kv)),
    ),
)


@settings(max_examples=400, deadline=None)
@given(SPEC_LIKE)
def test_spec_like_text_answers_or_raises_input_error(text):
    try:
        spec = parse_spec(text)
    except InputError:
        return
    m = spec.evaluate()
    assert int(m.endpoints) >= 1 and int(m.routers) >= 1
    assert float(m.average_distance) <= float(m.diameter)
