"""Collectives on fat trees: the routing rule, jobs on part of a tree or dragonfly, and the
tree layouts' loads against independent counts."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.model.collectives import Layout
from icnperf.model.topology import fattree, tree_routing


@pytest.mark.parametrize("k,n", [(2, 2), (3, 2), (2, 3), (4, 3), (3, 4)])
def test_random_rule_keeps_the_fattree_pigeonhole_bound(k, n):
    """The unified tree routes give FT(k,n) the same hops and loads as fattree.nca_*."""
    layout = Layout.from_topology(f"fattree:k={k},n={n}")
    m, w, p = layout.tree
    size = 2 * k**n
    rng = np.random.default_rng(k * 10 + n)
    for _ in range(20):
        count = int(rng.integers(1, 3 * size))
        s, d = rng.integers(0, size, count), rng.integers(0, size, count)
        np.testing.assert_array_equal(tree_routing.hops(m, w, s, d),
                                      fattree.nca_hops(k, n, s, d))
        assert tree_routing.message_load(m, w, p, "random", s, d) == \
            fattree.nca_message_load(k, n, s, d)


def test_xgft_layout_spec_text_and_diameter():
    layout = Layout.from_topology("xgft:2;8,8;1,8;1,1")
    assert layout.text == "xgft:m=8x8,w=1x8"
    assert layout.endpoints == 64 and layout.diameter == 2
    assert Layout.from_topology("xgft:m=4x4,w=1x2,p=1x2").text == "xgft:m=4x4,w=1x2,p=1x2"


def test_dmodk_counts_a_shift_exactly_where_random_deals_evenly():
    """Leaf 0 of XGFT(2; 8,8; 1,2) (4:1 taper) sends 8 messages to even endpoints
    8, 10, .., 22: dmodk puts all 8 on the up channel of residue 0 (d mod 2), random deals
    them over the leaf's 2 up channels, ceil(8/2) = 4."""
    layout = Layout.from_topology("xgft:m=8x8,w=1x2")
    src = np.arange(8)
    dst = 8 + 2 * np.arange(8)
    assert layout.tree_routed("dmodk").traffic(src, dst) == (2, 8)
    assert layout.tree_routed("random").traffic(src, dst) == (2, 4)


def test_job_on_part_of_a_tree_places_nodes_as_asked():
    tree = Layout.from_topology("xgft:m=8x8,w=1x8")
    job = tree.on_part(16)
    assert (job.endpoints, job.network_endpoints) == (16, 64)
    np.testing.assert_array_equal(job.node_endpoints(), np.arange(16))
    spread = job.placed(1, "spread")
    np.testing.assert_array_equal(spread.node_endpoints(),
                                  [8 * (i % 8) + i // 8 for i in range(16)])
    random = job.placed(1, "random")
    ends = random.node_endpoints()
    assert len(set(ends.tolist())) == 16 and ends.max() < 64
    with pytest.raises(InputError, match="more than the 64 endpoints"):
        tree.on_part(65)


def test_spread_on_a_dragonfly_deals_groups():
    df = Layout.from_topology("dragonfly:p=2,a=4,h=2")   # 9 groups of 8 endpoints
    job = df.on_part(18).placed(1, "spread")
    ends = job.node_endpoints()
    assert sorted(set((ends // 8).tolist())) == list(range(9))
    assert all(np.bincount(ends // 8) == 2)
