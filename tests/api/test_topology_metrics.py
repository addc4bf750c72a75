"""A topology's metrics record (model/topology/summary.py) and the API's document of it
(api/topology_metrics.py), on a torus small enough to count by hand: 4x4, one endpoint per
router."""

from __future__ import annotations

import itertools

import pytest

from icnperf.api.topology_metrics import topology_document
from icnperf.errors import InputError
from icnperf.model.topology.base import PATTERNS
from icnperf.model.topology.saturation import DEFAULT_ROUTER
from icnperf.model.topology.spec import parse_spec
from icnperf.model.topology.summary import ESTIMATE_NOTE, topology_summary


def _ring(a: int, b: int, k: int = 4) -> int:
    return min((a - b) % k, (b - a) % k)


def test_a_4x4_torus_counted_by_hand():
    """16 routers and endpoints; 4 rings of 4 links per dimension: 32 links; ports: 4
    neighbours + 1 endpoint; hops between routers by brute force over all pairs."""
    spec = parse_spec("torus:4x4")
    doc = topology_summary(spec, spec.evaluate())
    nodes = list(itertools.product(range(4), range(4)))
    hops = [_ring(a[0], b[0]) + _ring(a[1], b[1]) for a in nodes for b in nodes if a != b]
    assert (doc["routers"], doc["endpoints"], doc["links"], doc["radix"]) == (16, 16, 32, 5)
    assert doc["diameter"] == max(hops) == 4
    assert doc["average_distance"] == pytest.approx(sum(hops) / len(hops))  # 32/15
    assert doc["family"] == "torus" and doc["spec"] == "torus:4x4"


def test_the_record_is_plain_python_in_pattern_order():
    spec = parse_spec("torus:4x4")
    doc = topology_summary(spec, spec.evaluate())
    for key in ("routers", "endpoints", "radix", "links", "diameter", "bisection_links"):
        assert type(doc[key]) is int, key    # JSON prints 16, not 16.0
    for key in ("channel_load", "throughput", "saturation_estimate"):
        assert list(doc[key]) == list(PATTERNS)
        assert all(type(v) is float for v in doc[key].values())
    # the estimate is of how close a real router comes to the bound: never above it
    assert all(doc["saturation_estimate"][p] <= doc["throughput"][p] + 1e-12
               for p in PATTERNS)
    assert doc["router"] == DEFAULT_ROUTER and doc["notes"][-1] == ESTIMATE_NOTE


def test_the_machine_named_gives_the_routers_with_its_overrides():
    two = topology_document("torus:4x4", machine_name="angara-3d",
                            overrides=["network.virtual_channels=2"])
    six = topology_document("torus:4x4", machine_name="angara-3d",
                            overrides=["network.virtual_channels=6"])
    assert (two["router"]["vcs"], six["router"]["vcs"]) == (2, 6)
    assert two["channel_load"] == six["channel_load"]    # the structure is the topology's


def test_set_without_a_machine_is_refused_after_the_spec_is_checked():
    with pytest.raises(InputError, match=r"^--set needs --machine"):
        topology_document("torus:4x4", overrides=["network.virtual_channels=2"])
    with pytest.raises(InputError, match="radix 0"):
        topology_document("torus:0x4", overrides=["network.virtual_channels=2"])
