"""Rail-optimised trees: the NIC placement against the DGX SuperPOD description, and every
channel load against the tree built and routed pair by pair (test_xgft's networkx tree,
SimGrid's labels and ports, both routing rules)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.model.topology import rail as rl
from icnperf.model.topology import xgft as xg
from icnperf.model.topology.base import PATTERNS
from icnperf.model.topology.spec import parse_spec
from test_xgft import brute_load, pattern_matrix, tree, usage

RAIL_TREES = [
    (2, (4, 4), (1, 2), (1, 1), 2),        # 2 rails, 2 units of 4 nodes, 2 spines
    (4, (4, 4), (1, 4), (1, 1), 2),        # 4 rails, one unit, full
    (4, (4, 4), (1, 2), (1, 2), 2),        # parallel cables (the DGX H100 shape, small)
    (2, (3, 4), (1, 2), (1, 1), 2),        # odd nodes per leaf
    (2, (2, 2, 2), (1, 2, 2), (1, 1, 1), 2),  # rails joined at level 2 of 3
    (2, (2, 2, 2), (1, 2, 2), (1, 1, 1), 3),  # rails joined at the top (spine groups)
    (2, (2, 4, 2), (1, 2, 1), (1, 1, 2), 3),  # tapered, cables, joined at the top
    (4, (2, 2, 4), (1, 2, 2), (1, 1, 1), 3),  # 4 rails on the top switches
]
"""(rails, m, w, p, join): 2 and 3 levels, full and tapered, cables, odd leaves."""

PLAIN_TREES = [
    (2, (4, 4), (1, 2), (1, 1), 1),        # 2 nodes of 2 NICs per leaf, 2 spines
    (4, (4, 4), (1, 1), (1, 2), 1),        # one node per leaf, tapered 4:2 by cables
    (2, (2, 2, 2), (1, 2, 1), (1, 1, 1), 1),  # 3 levels, the top tapered
]
"""join = 1: the plain trees of the same switches (each node's NICs on one leaf)."""


def scalar(x) -> float:
    return float(np.asarray(x))


@pytest.mark.parametrize("case", RAIL_TREES)
def test_nics_sit_on_their_rails(case):
    """NIC i of every node of a unit shares rail i's leaf; a node's NICs are on R
    different leaves; each leaf holds one rail; the level-join pods hold every rail
    (so cross-rail pairs climb to level join, not below)."""
    rails, m, w, p, join = case
    n = math.prod(m)
    e = np.arange(n)
    x = rl.positions(rails, m, join, e)
    assert sorted(x.tolist()) == list(range(n))
    np.testing.assert_array_equal(rl.endpoints_of(rails, m, join, x), e)
    node, nic = e // rails, e % rails
    leaf = x // m[0]
    for g in range(n // rails):
        assert len(set(leaf[node == g].tolist())) == rails
    for lf in range(n // m[0]):
        assert len(set(nic[leaf == lf].tolist())) == 1
    below = math.prod(m[:join - 1])
    t = tree(m, w, p)
    for s in range(n):
        for d in range(n):
            if s == d:
                continue
            # the lowest level whose pod holds both (NCA), from the built tree's labels
            ps, pd = t.endpoint[int(x[s])][1], t.endpoint[int(x[d])][1]
            nca = max((i + 1 for i in range(len(m)) if ps[i] != pd[i]), default=0)
            if nic[s] != nic[d]:
                assert nca >= join
            if nic[s] == nic[d] and node[s] // below == node[d] // below:
                assert nca <= join - 1


def brute_rail_load(case, rule, pattern) -> float:
    rails, m, w, p, join = case
    n = math.prod(m)
    if pattern in ("uniform", "worst-case"):
        return brute_load((m, w, p), rule, pattern)
    labels = pattern_matrix(pattern, n)
    if labels is None:
        return np.nan
    x = rl.positions(rails, m, join, np.arange(n))
    matrix = np.zeros((n, n))
    matrix[np.ix_(x, x)] = labels
    channel, src, dst, weight = usage(m, w, p, rule)
    return float(np.bincount(channel, weights=weight * matrix[src, dst]).max(initial=0.0))


@pytest.mark.parametrize("case", PLAIN_TREES)
def test_plain_tree_keeps_each_node_on_one_leaf(case):
    """join = 1: node g's R NICs sit on one leaf, m1/R whole nodes per leaf, leaves in
    node order (leaf g // (m1/R)); the positions are a permutation with its inverse."""
    rails, m, w, p, join = case
    n = math.prod(m)
    e = np.arange(n)
    x = rl.positions(rails, m, join, e)
    assert sorted(x.tolist()) == list(range(n))
    np.testing.assert_array_equal(rl.endpoints_of(rails, m, join, x), e)
    per_leaf = m[0] // rails
    np.testing.assert_array_equal(x // m[0], (e // rails) // per_leaf)


@pytest.mark.parametrize("rule", xg.TREE_ROUTINGS)
@pytest.mark.parametrize("case", RAIL_TREES + PLAIN_TREES)
def test_channel_loads_match_the_routed_tree(case, rule):
    rails, m, w, p, join = case
    metrics = rl.rail(rails, m, w, p, join, routing=rule)
    defined = rule == "random" or bool(xg.XGFT(m, w, p).dmodk_defined())
    for pattern in PATTERNS:
        got = scalar(metrics.channel_load[pattern])
        if pattern in ("uniform", "worst-case") and not defined:
            assert math.isnan(got), pattern
            continue
        want = brute_rail_load(case, rule, pattern)
        if math.isnan(want):
            assert math.isnan(got), pattern
        else:
            assert got == pytest.approx(want, abs=1e-12), pattern


@pytest.mark.parametrize("case", RAIL_TREES + PLAIN_TREES)
def test_structure_is_the_xgfts(case):
    """The switches and cables are the XGFT's: every structural count equal."""
    rails, m, w, p, join = case
    a, b = rl.rail(rails, m, w, p, join), xg.xgft(m, w, p)
    for name in ("routers", "endpoints", "radix", "links", "diameter", "average_distance",
                 "bisection_links"):
        assert scalar(getattr(a, name)) == scalar(getattr(b, name)), name


def test_dgx_h100_superpod_by_hand():
    """4 SUs of 32 nodes x 8 rails: 32 leaves (32 down, 16 spines x 2 cables up) and 16
    spines of 64 ports; 1024 cables. Nearest-neighbour (NIC i to NIC i +- 1, mostly of the
    same node) is cross-rail: every NIC of a leaf sends out, 32 flits over 32 up channels
    = 1 (the same tree numbered leaf by leaf: 1/32 of a leaf leaves, 1/32). Tornado sends
    node g to g + 64, two SUs on, same rail: 1."""
    spec = parse_spec("rail:rails=8,m=32x32,w=1x16,p=1x2")
    metrics = spec.evaluate()
    assert (scalar(metrics.endpoints), scalar(metrics.routers), scalar(metrics.links),
            scalar(metrics.radix), scalar(metrics.diameter)) == (1024, 48, 1024, 64, 2)
    assert scalar(metrics.channel_load["nearest-neighbour"]) == 1.0
    assert scalar(metrics.channel_load["tornado"]) == 1.0
    plain = parse_spec("xgft:m=32x32,w=1x16,p=1x2").evaluate()
    assert scalar(plain.channel_load["nearest-neighbour"]) == 1 / 32
    # a node's eight NICs on the eight rail leaves of its SU: leaf u + 4 i
    x = rl.positions(8, (32, 32), 2, np.arange(8) + 8 * 33)   # node 33: SU 1, 2nd node
    np.testing.assert_array_equal(x // 32, 1 + 4 * np.arange(8))
    assert spec.text == "rail:rails=8,m=32x32,w=1x16,p=1x2"


@pytest.mark.parametrize("text", [
    "rail:m=8x8,w=1x8", "rail:rails=3,m=8x8,w=1x8", "rail:rails=2,m=8x8,w=1x8,join=0",
    "rail:rails=2,m=8x8,w=1x8,join=3", "rail:rails=0,m=8x8,w=1x8", "rail:rails=2,m=8x8,w=2x8",
    "rail:rails=2x2,m=8x8,w=1x8",
])
def test_bad_specs_are_one_line_input_errors(text):
    with pytest.raises(InputError) as info:
        parse_spec(text)
    assert "\n" not in str(info.value)


def test_collective_layout_sends_by_each_ranks_nic():
    """rail:rails=2,m=4x4,w=1x2: 8 nodes (2 SUs of 4), leaves (SU, rail) = u + 2 i, two
    spines. With 2 ranks per node, rank r sends by NIC r mod 2. Shift by one rank: rank
    2g -> 2g + 1 stays in node g (an intra-node copy, off the network); 2g + 1 -> 2g + 2
    goes NIC 1 -> NIC 0 of the next node, cross-rail, so the 4 NICs of each rail-1 leaf
    send up its 2 channels: 2 messages per channel, 2 hops. Shift by two ranks: node
    g -> g + 1 on the same rail; only node 3 (7) leaves its SU's leaf: 1."""
    from icnperf.model.collectives import Layout

    layout = Layout.from_topology("rail:rails=2,m=4x4,w=1x2").placed(2).tree_routed("random")
    assert (layout.endpoints, layout.network_endpoints, layout.ranks) == (8, 16, 16)
    assert layout.text == "rail:rails=2,m=4x4,w=1x2"
    np.testing.assert_array_equal(layout.rank_endpoints()[:6], [0, 1, 2, 3, 4, 5])
    ranks = np.arange(16)
    assert layout.rank_traffic(ranks, (ranks + 1) % 16) == (2, 2, 1, True)
    assert layout.rank_traffic(ranks, (ranks + 2) % 16) == (2, 1, 1, False)
    # NIC 0 -> NIC 1 of one node climbs to a spine; NIC 0 -> NIC 0 of the next node does not
    assert layout.traffic([0], [1])[0] == 2
    assert layout.traffic([0], [2])[0] == 0
    one_rank = Layout.from_topology("rail:rails=2,m=4x4,w=1x2,join=2").placed(1)
    assert one_rank.rank_traffic([0, 1, 2], [1, 2, 3]) == (0, 1, 1, False)


def test_messages_inside_a_node_stay_off_the_rails():
    """Two ranks of one node on different NICs (rail:rails=2,m=4x4,w=1x2, 2 ranks per
    node): their message is an intra-node copy, not a cross-rail trip to a spine; the
    fluid model's flows and hops treat it the same way."""
    from icnperf.model.collectives import Layout, fluid
    from icnperf.model.topology import tree_routing

    layout = Layout.from_topology("rail:rails=2,m=4x4,w=1x2").placed(2).tree_routed("dmodk")
    assert layout.rank_traffic([0], [1]) == (0, 0, 0, True)
    assert layout.rank_traffic([0, 0], [1, 2]) == (0, 1, 1, True)
    ends = layout.rank_endpoints()
    assert fluid._hops(layout, ends[[0]], ends[[1]], tree_routing).tolist() == [0]
    inside = fluid.flow_resources(layout, ends[[0]], ends[[1]])
    to_itself = fluid.flow_resources(layout, ends[[0]], ends[[0]])
    across = fluid.flow_resources(layout, ends[[0]], ends[[3]])   # NIC 1 of node 1: a spine
    assert all(np.array_equal(a, b) for a, b in zip(inside, to_itself))
    assert len(across[0]) > len(inside[0])
