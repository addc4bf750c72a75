"""The NCCL/RCCL network term on dragonflies (model/collectives/nccl_dragonfly.py): hand
counts on DF(p=2, a=4, h=2), a route enumeration on explicit dragonfly graphs written out
here, and the Frontier preset end to end."""

from __future__ import annotations

import itertools
from collections import defaultdict

import pytest

from icnperf.data.machine import load_machine
from icnperf.model.collectives import nccl_network as nn
from icnperf.model.collectives.nccl_dragonfly import DragonflyView, dragonfly_view
from icnperf.model.collectives.nccl_fabric import ccl_fabric, network_view


def df(p=2, a=4, h=2, nics=1, spread=False, adaptive=False):
    return DragonflyView("dragonfly", (p, a, h), nics, spread, adaptive)


def test_ring_by_hand_on_df_2_4_2():
    """DF(2, 4, 2): 9 groups of 4 routers, 2 nodes a router, one NIC a node. A ring of 4
    nodes crosses router 0 -> 1 and 1 -> 0 once each (1 hop). Of 16 nodes (groups 0 and 1)
    node 7 (router 3) reaches node 8 by router 3 -> 0 (owner of the link to group 1), the
    global link, landing on router 3 of group 1, -> 0: 3 hops, every channel once. Of 18,
    node 15 (group 1, router 3) leaves for group 2 through router 0, so group 1's channel
    3 -> 0 carries 15 -> 16's first hop and 7 -> 8's last: 2 flows over a NIC's 1."""
    view = df()
    assert view.network_term("ring", 4, 1, (0,), False) == (1.0, 1, 1.0, 1.0)
    assert view.network_term("ring", 16, 1, (0,), False) == (1.0, 3, 1.0, 1.0)
    assert view.network_term("ring", 18, 1, (0,), False) == (2.0, 3, 2.0, 1.0)
    # adaptive: a router sends and takes one flow at most; Valiant spreads the two over
    # the 4 routers of a group: 1/2 a channel, so the ring runs at the NIC's rate
    assert df(adaptive=True).network_term("ring", 18, 1, (0,), False).slowdown == 1.0
    # the latency's hop: 2 nodes share router 0 (1 router, 2 links); 8 fill group 0 (one
    # local hop); node 8 sits on router 0 of group 1, reached from router 1 by 1 -> 0,
    # the global link, landing on router 3, -> 0: 3 hops, 4 routers and 5 links
    assert [view.communicator_hops(n) for n in (2, 8, 9)] == [(1, 2), (2, 3), (4, 5)]


def test_nccl_network_asks_either_view_the_same_questions():
    """nccl_network's entry points ask the view, fat tree or dragonfly alike. On DF(2, 4, 2)
    with 2 NICs a node, send/recv's shift is the ring by NIC 0 alone: node 15 -> 16's first
    hop and 7 -> 8's last share group 1's channel 3 -> 0 (test_ring_by_hand_on_df_2_4_2),
    2 flows against NIC 0's 1, where the ring's two NICs a node (1/2 a flow each, on one
    router) put the same 2 flows on it against a NIC's 1/2: 4. Hops: the dragonfly's 3 for node 8
    (4 routers, 5 links); dgx-h100's 16 nodes in one rail leaf (1 switch, 2 links), 64 up
    to the spines (3, 4); without a view a leaf-spine-leaf route (3, 4). The notes' words
    come from the view: levels on a tree, hops on a dragonfly."""
    view = df(nics=2)
    assert nn.network_term(view, "shift", 18, 1, (0, 1)) == (2.0, 3, 2.0, 1.0)
    assert nn.network_term(view, "ring", 18, 1, (0, 1)) == (4.0, 3, 2.0, 0.5)
    assert nn.network_term(view, None, 18, 1, (0, 1)) == (1.0, 0, 0.0, 0.0)
    tree = nn.tree_view(load_machine("dgx-h100"))
    assert [nn.communicator_hops(v, n) for v, n in ((view, 9), (tree, 16), (tree, 64),
                                                   (None, 64))] == \
        [(4, 5), (1, 2), (3, 4), (3, 4)]
    assert (tree.reach(2), view.reach(3), view.reach(1)) == ("to level 2", "3 hops", "1 hop")
    assert isinstance(network_view(load_machine("lumi-g")), DragonflyView)
    assert isinstance(network_view(load_machine("dgx-h100")), nn.TreeView)
    assert network_view(load_machine("jupiter")) is None


def test_valiant_cannot_help_a_group_of_two_routers():
    """DF(4, 2, 1): 3 groups of 2 routers of 4 nodes. All-to-all of 8 nodes (group 0):
    router 0 sends 4 x 4 flows to router 1 over their one link against a NIC's 7; Valiant
    spreads router 0's 16 out and router 1's 16 in over 2 intermediate routers: 16 again."""
    for adaptive in (False, True):
        term = df(4, 2, 1, adaptive=adaptive).network_term("alltoall", 8, 1, (0,), False)
        assert term.slowdown == pytest.approx(16 / 7)


def test_alltoall_and_pat_by_hand_on_df_2_4_2():
    """All-to-all of 4 nodes on 2 routers: 2 x 2 flows on 0 -> 1 against a NIC's 3; of 8
    (one group): 4 on each local channel against 7; of 16 (two groups): 8 x 8 on the one
    global link against 15. Adaptive: Valiant spreads group 0's 64 flows out and group 1's
    64 in over the 8 global links of a group: 16 against 15. PAT of 4 nodes: distance 1
    (1/3 of the bytes) one flow a channel, distance 2 (2/3) two: 1/3 + 4/3."""
    view = df()
    assert view.network_term("alltoall", 4, 1, (0,), False).slowdown == pytest.approx(4 / 3)
    assert view.network_term("alltoall", 8, 1, (0,), False).slowdown == 1.0
    assert view.network_term("alltoall", 16, 1, (0,), False).slowdown == \
        pytest.approx(64 / 15)
    assert df(adaptive=True).network_term("alltoall", 16, 1, (0,), False).slowdown == \
        pytest.approx(16 / 15)
    assert view.network_term("pat", 4, 1, (0,), False).slowdown == pytest.approx(5 / 3)


def test_spread_nics_keep_a_rail_on_its_router():
    """Spread, 2 NICs a node on DF(2, 4, 2): nodes 0..3 are one block, NIC 0 on router 0 and
    NIC 1 on router 1, so their rail-aligned all-to-all crosses no channel; across rails
    (2 GPUs, one a NIC) router 0 sends router 1 (4 x 4 - 4 x 1 x 1) / 4 = 3 against a NIC's
    3 x 1 / 2."""
    view = df(nics=2, spread=True)
    assert list(view.routers(range(8), [0] * 8)) == [0, 0, 0, 0, 2, 2, 2, 2]
    assert list(view.routers(range(8), [1] * 8)) == [1, 1, 1, 1, 3, 3, 3, 3]
    assert view.network_term("alltoall", 4, 1, (0, 1), False) == (1.0, 0, 0.0, 1.5)
    assert view.network_term("alltoall", 4, 1, (0, 1), True).slowdown == pytest.approx(2.0)


def explicit_dragonfly(a, h):
    """The global links of DF(., a, h) as written in Kim et al. 2008's consecutive
    arrangement: router r of group G owns ports r h .. r h + h - 1, port j to group
    G + j + 1; the link between two groups is the port of each pointing to the other."""
    g = a * h + 1
    ports = {}
    for group in range(g):
        for j in range(a * h):
            ports[(group, (group + j + 1) % g)] = j // h
    return g, ports


def walked_load(a, h, flows):
    """Busiest channel of weighted router flows walked hop by hop (local to the owner of
    the global link, the link, local from its landing router)."""
    g, ports = explicit_dragonfly(a, h)
    load = defaultdict(float)
    for (source, target), weight in flows.items():
        gs, rs, gd, rd = source // a, source % a, target // a, target % a
        if gs == gd:
            if rs != rd:
                load[("local", gs, rs, rd)] += weight
            continue
        out, land = ports[(gs, gd)], ports[(gd, gs)]
        if rs != out:
            load[("local", gs, rs, out)] += weight
        load[("global", gs, gd)] += weight
        if land != rd:
            load[("local", gd, land, rd)] += weight
    return max(load.values(), default=0.0)


def enumerated_ratio(view, pattern, domains, nics):
    """Channel over NIC load of ``pattern`` with every NIC flow listed."""
    nic_out = defaultdict(float)
    flows = defaultdict(float)
    steps = nn.domain_flows(pattern, domains)
    ratios = []
    for edges, share in steps:
        flows.clear()
        nic_out.clear()
        for a, b in edges:
            for i in sorted(set(nics)):
                weight = 1 / len(set(nics))
                nic_out[(a, i)] += weight
                nic_out[(b, i, "in")] += weight
                flows[(int(view.routers(a, i)), int(view.routers(b, i)))] += weight
        flows = defaultdict(float, {k: v for k, v in flows.items() if k[0] != k[1]})
        channel = walked_load(view.shape[1], view.shape[2], flows)
        ratios.append((max(1.0, channel / max(nic_out.values())), share))
    return sum(r * s for r, s in ratios) / sum(s for _, s in ratios)


@pytest.mark.parametrize("spread", [False, True])
@pytest.mark.parametrize("pattern", ["ring", "tree", "pat", "alltoall"])
def test_against_routes_walked_on_the_explicit_graph(spread, pattern):
    """Minimal routing on DF(2, 4, 2) and DF(1, 2, 3), 1 to 2 NICs a node, 2 to 19 nodes:
    the term equals the flows listed one by one and walked on the explicit graph."""
    slowest = 0.0
    for (p, a, h), nics in itertools.product([(2, 4, 2), (1, 2, 3)], [(0,), (0, 1)]):
        if spread and (len(nics) < 2 or a % 2):
            continue
        view = df(p, a, h, nics=len(nics), spread=spread)
        for domains in range(2, min(20, p * a * (a * h + 1) + 1)):
            expected = enumerated_ratio(view, pattern, domains, nics)
            got = view.network_term(pattern, domains, 1, nics, False).slowdown
            assert got == pytest.approx(expected), (p, a, h, nics, domains)
            slowest = max(slowest, expected)
    assert slowest > 1.0  # the cases do overload a channel


def test_frontier_inside_a_group_and_across_four():
    """Frontier: 128 nodes of 4 spread NICs fill one group of 32 routers, 16 NICs of 2
    GCDs each a router; adaptive routing spreads a router's traffic out and in over the
    32 routers: at most (16 + 16) NICs' worth over 32 channels, no slowdown.
    512 nodes (4 groups), RCCL's all-to-all across rails: group 0 sends 128 x 384 domain
    flows out and takes as many in, over 4 x 73 global links; a NIC carries 2 GCDs' 511/8:
    (2 x 49,152 / 292) / (2 x 511 / 8). The hop: 1 inside the group (2 routers, 3 links),
    3 across (4, 5)."""
    machine = load_machine("frontier")
    view = dragonfly_view(machine)
    assert view.spread and view.adaptive and view.ports == 16
    inside = ccl_fabric(machine, 128)
    for algorithm, operation in (("ring", "allreduce"), ("tree", "allreduce"),
                                 ("p2p", "alltoall")):
        assert inside.network(algorithm, operation).slowdown == 1.0
    across = ccl_fabric(machine, 512)
    assert across.network("p2p", "alltoall").slowdown == pytest.approx(
        (2 * 128 * 384 / 292) / (2 * 511 / 8))
    assert across.network("ring", "allreduce").slowdown == 1.0
    assert view.communicator_hops(128) == (2, 3)
    assert view.communicator_hops(512) == (4, 5)


def test_route_loads_with_weights_are_not_rounded():
    """gdragonfly(p=1, a=4, g=3, m=2): one message from router 0 of group 0 to router 0 of
    group 1 goes half over the link of port 0 (router 0) and half over port 1 (router 1,
    one local hop away): every channel carries 1/2, counted 1 when rounded up; two such
    messages weighted 1 and 2 put 3/2 on each. On DF(1, 4, 2) routers 0 and 1 both reach
    group 1 over its one global link (owned by router 0): weights 3 and 1 sum to 4 on it,
    2 messages unweighted."""
    from icnperf.model.topology import dragonfly

    assert dragonfly.gdragonfly_route_load(1, 4, 1, 1, 1, 3, 2, [0], [4]) == 1
    assert dragonfly.gdragonfly_route_load(1, 4, 1, 1, 1, 3, 2, [0], [4],
                                           weights=[1.0]) == 0.5
    assert dragonfly.gdragonfly_route_load(1, 4, 1, 1, 1, 3, 2, [0, 0], [4, 4],
                                           weights=[1.0, 2.0]) == 1.5
    assert dragonfly.dragonfly_route_load(1, 4, 2, [0, 1], [4, 4]) == 2
    assert dragonfly.dragonfly_route_load(1, 4, 2, [0, 1], [4, 4], weights=[3.0, 1.0]) == 4.0


@pytest.mark.parametrize("adaptive", [False, True])
@pytest.mark.parametrize("cross_rails", [False, True])
def test_alltoall_by_groups_where_the_global_links_bind(monkeypatch, adaptive, cross_rails):
    """Past ROUTER_PAIRS the all-to-all is counted by group (global channels exact, local
    at the uniform load): on gdragonfly(4, 8, g=6, m=2) with 2 spread NICs a node, 72 and
    96 nodes over 3 and 4 groups, where a group pair's 2 links bind, it matches the
    all-to-all routed pair by pair."""
    from icnperf.model.collectives import nccl_dragonfly

    view = DragonflyView("gdragonfly", (4, 8, 1, 1, 1, 6, 2), 2, True, adaptive)
    for nodes in (72, 96):
        routed = view.alltoall_term(nodes, 1, (0, 0, 1, 1), cross_rails)
        monkeypatch.setattr(nccl_dragonfly, "ROUTER_PAIRS", 0)
        counted = view.alltoall_term(nodes, 1, (0, 0, 1, 1), cross_rails)
        monkeypatch.undo()
        assert routed.slowdown > 2
        assert counted.slowdown == pytest.approx(routed.slowdown)
        assert counted.level == routed.level == 3


def test_el_capitan_whole_machine_alltoall_is_counted():
    """11,136 nodes (2,784 routers): counted by group. 87 groups of 128 nodes of 4 GPUs,
    one a NIC, across rails: a group pair exchanges 512 x 512 / 16 domain flows over 4
    links against a NIC's 11,135 / 4; Valiant would double it (2 x 86 x 16,384 / 344), so
    minimal stands: 4,096 / 2,783.75."""
    term = ccl_fabric(load_machine("el-capitan"), 11136).network("p2p", "alltoall")
    assert term.slowdown == pytest.approx(4096 / (11135 / 4)) and term.level == 3
