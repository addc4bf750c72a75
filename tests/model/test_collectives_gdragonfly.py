"""The collective layout of the generalized dragonfly (gdragonfly): the spec round trip,
diameter, groups as placement units, jobs on part of the machine, and a step's traffic being
the family's route functions (themselves checked against walked routes in
tests/model/topology/test_gdragonfly_routes.py)."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.model.collectives import Layout
from icnperf.model.topology import dragonfly


def test_layout_keeps_every_parameter_and_prints_the_spec_back():
    layout = Layout.from_topology("gdragonfly:p=4,a=16,b=6,lb=3,g=14,m=73")
    assert layout.network == ("gdragonfly", 4, 16, 6, 1, 3, 14, 73)
    assert layout.endpoints == 4 * 96 * 14 and layout.family == "gdragonfly"
    assert layout.text == "gdragonfly:p=4,a=16,b=6,lb=3,g=14,m=73"
    assert Layout.from_topology("gdragonfly:p=16,a=16,g=8,m=16").network == (
        "gdragonfly", 16, 16, 1, 1, 1, 8, 16)


@pytest.mark.parametrize("spec, expected", [
    ("gdragonfly:p=4,a=16,b=6,lb=3,g=14,m=73", 5),   # 1 + 2 x (rank-1 + rank-2)
    ("gdragonfly:p=16,a=16,g=8,m=16", 3),            # 1 + 2 x rank-1
    ("gdragonfly:p=2,a=3,b=2,g=1", 2),               # one group: rank-1 + rank-2
    ("gdragonfly:p=2,a=1,g=5,m=2", 1),               # one router a group: the global hop
])
def test_diameter_is_the_longest_route(spec, expected):
    layout = Layout.from_topology(spec)
    assert layout.diameter == expected
    n = layout.endpoints
    if n <= 2000:  # every pair at once: the longest route is the diameter
        src, dst = np.divmod(np.arange(n * n), n)
        keep = src != dst
        assert layout.traffic(src[keep], dst[keep])[0] == expected


def test_spread_deals_groups_of_p_a_b_endpoints():
    df = Layout.from_topology("gdragonfly:p=2,a=3,b=2,g=5,m=2")   # 5 groups of 12 endpoints
    job = df.on_part(15).placed(1, "spread")
    assert (job.endpoints, job.network_endpoints) == (15, 60)
    ends = job.node_endpoints()
    np.testing.assert_array_equal(ends, [12 * (i % 5) + i // 5 for i in range(15)])
    assert all(np.bincount(ends // 12) == 3)
    with pytest.raises(InputError, match="more than the 60 endpoints"):
        df.on_part(61)


def test_traffic_is_the_route_functions():
    spec = (2, 3, 2, 1, 2, 5, 3)
    layout = Layout.from_topology("gdragonfly:p=2,a=3,b=2,lb=2,g=5,m=3")
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 60, 40), rng.integers(0, 60, 40)
    keep = src != dst
    src, dst = src[keep], dst[keep]
    hops = dragonfly.gdragonfly_route_hops(*spec, src, dst)
    load = dragonfly.gdragonfly_route_load(*spec, src, dst)
    assert layout.traffic(src, dst) == (int(hops.max()), load)
    assert layout.traffic([], []) == (0, 0)
