"""The network under NCCL's inter-domain flows (model/collectives/nccl_network.py): rail
against plain trees counted by hand on small trees, the busiest channel against a route
enumeration written out here, the double binary tree by hand, and the end-to-end effect of a
taper on a preset's all-to-all."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from icnperf.data.machine import load_machine
from icnperf.model.collectives import nccl_network as nn
from icnperf.model.collectives.nccl import form
from icnperf.model.collectives.nccl_fabric import ccl_fabric
from icnperf.model.collectives.nccl_tables import tables_for
from icnperf.model.topology.rail import positions


def rail_view(rails, m, w, p=None, join=None, routing="random"):
    p = (1,) * len(m) if p is None else p
    return nn.TreeView(tuple(m), tuple(w), tuple(p), routing, rails,
                       len(m) if join is None else join)


def brute_two_level_load(m, w2, p2, sources, destinations, weight) -> float:
    """Busiest router-router channel of a 2-level XGFT (m1 endpoints per leaf, w2 spines,
    p2 cables from each leaf to each spine) under random up ports: every flow between two
    leaves takes each (spine, up cable, down cable) with probability 1/(w2 p2 p2), the
    routes written out one by one."""
    load: dict = {}
    share = weight / (w2 * p2 * p2)
    for s, d in zip(sources, destinations):
        a, b = s // m[0], d // m[0]
        if a == b:
            continue
        for spine, up, down in itertools.product(range(w2), range(p2), range(p2)):
            load[("up", a, spine, up)] = load.get(("up", a, spine, up), 0.0) + share
            load[("down", spine, b, down)] = load.get(("down", spine, b, down), 0.0) + share
    return max(load.values(), default=0.0)


def ring_flows(nodes, rails):
    """NIC i of node a -> NIC i of node a+1 (mod nodes), written out."""
    return [(a * rails + i, ((a + 1) % nodes) * rails + i) for a in range(nodes)
            for i in range(rails)]


def alltoall_flows(nodes, rails):
    return [(a * rails + i, b * rails + i) for a in range(nodes) for b in range(nodes)
            if a != b for i in range(rails)]


def test_double_binary_tree_on_eight_ranks_by_hand():
    """n = 8: tree one 4 -> 0, 2 and 6 under 4, 1 and 3 under 2, 5 and 7 under 6 (odd ranks
    leaves); tree two the mirror r -> 7 - r, whose leaves are the even ranks: every rank is
    a leaf in one tree."""
    edges = nn.double_binary_tree(8)
    one = {(4, 0), (2, 4), (6, 4), (1, 2), (3, 2), (5, 6), (7, 6)}
    two = {(7 - c, 7 - p) for c, p in one}
    assert set(edges[:7]) == one and set(edges[7:]) == two
    for tree in (one, two):
        parents = {p for _, p in tree}
        leaves = set(range(8)) - parents
        assert len(tree) == 7
        assert leaves in ({1, 3, 5, 7}, {0, 2, 4, 6})


def test_pat_steps_by_hand():
    """Bruck all-gather over 4 domains: distance 1 moves 1 of the 3 blocks, distance 2 the
    other 2; over 5: distances 1, 2, 4 moving 1, 2 and 1 blocks."""
    steps = nn.domain_flows("pat", 4)
    assert [share for _, share in steps] == [pytest.approx(1 / 3), pytest.approx(2 / 3)]
    assert steps[1][0][0] == (0, 2)
    assert [share * 4 for _, share in nn.domain_flows("pat", 5)] == [1, 2, 1]


@pytest.mark.parametrize("join, spines, ring_load, alltoall_load", [
    # rail tree, 2 spines: the ring leaves a rail leaf once (node 3 -> 4): 1/2 flit over
    # its 2 up channels, 1/4; all-to-all: the 4 NICs of a rail leaf send to the 4 of the
    # other SU, 16 x 1/2 over 2 channels = 4
    (2, 2, 1 / 4, 4.0),
    # plain tree (join 1: nodes {0,1} per leaf): the ring leaves each leaf with both NICs
    # of its last node, 2 x 1/2 over 2 = 1/2; all-to-all: 2 nodes x 2 NICs x 6 peers x 1/2
    # = 12 over 2 = 6
    (1, 2, 1 / 2, 6.0),
    # tapered to one spine: the same flits over one channel
    (2, 1, 1 / 2, 8.0),
    (1, 1, 1.0, 12.0),
])
def test_rail_against_plain_by_hand(join, spines, ring_load, alltoall_load):
    """rail:rails=2,m=4x4,w=1xS: 8 nodes of 2 NICs, 2 SUs of 4. Every NIC sends 1/2 of its
    domain's flow (NIC load 1/2 for the ring; 7 peers x 1/2 = 3.5 for all-to-all)."""
    view = rail_view(2, (4, 4), (1, spines), join=join)
    ring = nn.network_term(view, "ring", 8, 1, (0, 1))
    assert ring.channel_load == pytest.approx(ring_load)
    assert ring.nic_load == pytest.approx(0.5)
    assert ring.slowdown == pytest.approx(max(1.0, ring_load / 0.5))
    assert ring.level == 2
    a2a = nn.network_term(view, "alltoall", 8, 1, (0, 1))
    assert a2a.channel_load == pytest.approx(alltoall_load)
    assert a2a.nic_load == pytest.approx(3.5)
    assert a2a.slowdown == pytest.approx(alltoall_load / 3.5)
    # the same loads from the routes enumerated one by one
    for flows, want in ((ring_flows(8, 2), ring_load), (alltoall_flows(8, 2), alltoall_load)):
        s, d = np.array(flows).T
        got = brute_two_level_load((4, 4), spines, 1, positions(2, (4, 4), join, s),
                                   positions(2, (4, 4), join, d), 0.5)
        assert got == pytest.approx(want)


def test_rail_local_traffic_stays_in_the_leaf():
    """Four nodes of one SU on rail:rails=2,m=4x4,w=1x1: every all-to-all flow is NIC i to
    NIC i inside rail i's leaf: no channel loaded, level 1 (one switch), slowdown 1; the
    plain tree of the same switches crosses its single spine: 2 nodes x 2 NICs x 2 outside
    peers x 1/2 = 4 over 1 channel against NIC load 3 x 1/2."""
    rail = nn.network_term(rail_view(2, (4, 4), (1, 1)), "alltoall", 4, 1, (0, 1))
    assert (rail.slowdown, rail.level, rail.channel_load) == (1.0, 1, 0.0)
    plain = nn.network_term(rail_view(2, (4, 4), (1, 1), join=1), "alltoall", 4, 1, (0, 1))
    assert plain.channel_load == pytest.approx(4.0)
    assert plain.slowdown == pytest.approx(4.0 / 1.5)
    assert plain.level == 2


def test_cross_rail_alltoall_climbs_even_inside_a_unit():
    """Without PXN each GPU sends through its own NIC to the peer GPU's NIC: on the rail
    tree NIC 0 -> NIC 1 climbs to the spine even between two nodes of one SU. Two nodes, 2
    GPUs on NICs 0 and 1: 4 GPU pairs per direction, 1/4 each; rail 0's leaf (NIC 0 of
    nodes 0 and 1) sends node 0's NIC 0 -> node 1's NIC 1 and node 1's NIC 0 -> node 0's
    NIC 1 out, 2 x 1/4 over its 1 channel; NIC load 2 x 1/4."""
    term = nn.network_term(rail_view(2, (4, 4), (1, 1)), "alltoall", 2, 1, (0, 1),
                           cross_rails=True)
    assert term.channel_load == pytest.approx(0.5)
    assert term.nic_load == pytest.approx(0.5)
    assert term.level == 2 and term.slowdown == 1.0


def test_dmodk_counts_exactly():
    """dmodk on rail:rails=2,m=4x4,w=1x2, plain (join 1: node g's NIC i at position
    g mod 2 + 2 i + 4 (g // 2)): the ring leaves leaf 0 by node 1's two NICs, to node 2's
    at positions 4 and 6; up channel d mod 2 = 0 for both: 2 x 1/2 = 1 on one channel
    (random spreads them, 1/2), over a NIC's 1/2: slowdown 2."""
    view = rail_view(2, (4, 4), (1, 2), join=1, routing="dmodk")
    term = nn.network_term(view, "ring", 8, 1, (0, 1))
    assert term.channel_load == pytest.approx(1.0)
    assert term.slowdown == pytest.approx(2.0)


def test_tapered_superpod_alltoall_by_hand():
    """dgx-h100 on rail:rails=8,m=32x32,w=1x4,p=1x2 (rail leaves 32 down, 8 up: 4:1): 64
    nodes, all-to-all rail-aligned under PXN. A NIC sends 63 x 1/8; rail i's leaf of SU 0
    sends its 32 NICs' flows to the 32 nodes of SU 1, 32 x 32 / 8 = 128 over 8 channels =
    16: slowdown 16 / (63/8) = 128/63, and B_net divided by it. 16 nodes (one SU) stay in
    the rail leaves: no slowdown, one switch. The full tree (w=1x16): 128 / 32 = 4 < 63/8."""
    tables = tables_for("nccl", None)
    base = load_machine("dgx-h100")
    tapered = base.with_values({"topology": "rail:rails=8,m=32x32,w=1x4,p=1x2"}, "test")
    fabric = ccl_fabric(tapered, 64)
    assert fabric.network("p2p", "alltoall").slowdown == pytest.approx(128 / 63)
    assert fabric.net_bandwidth_of("p2p", "alltoall") == pytest.approx(
        fabric.net_bandwidth * 63 / 128)
    full = ccl_fabric(base, 64)
    assert full.network("p2p", "alltoall").slowdown == 1.0
    assert full.network("p2p", "alltoall").channel_load == pytest.approx(4.0)
    one_su = ccl_fabric(tapered, 16)
    assert one_su.network("p2p", "alltoall") == (1.0, 1, 0.0, pytest.approx(15 / 8))
    size = 2.0**30
    slow = form(fabric, tables, "alltoall", "p2p", "Simple")
    fast = form(full, tables, "alltoall", "p2p", "Simple")
    net = [t for t in slow.terms if t[2] == "domain's NICs"][0]
    assert net[1] == pytest.approx(fabric.net_bandwidth * 63 / 128)
    assert slow.time([size])[0] > 2 * (fast.time([size])[0] - fast.latency)
    # the ring of the same 64 nodes: one flow per rail leaf leaves its SU: 1/8 over 8
    ring = fabric.network("ring", "allreduce")
    assert ring.slowdown == 1.0 and ring.channel_load == pytest.approx(1 / 64)


def test_communicator_level_sets_the_hardware_hop():
    """dgx-h100: 16 nodes sit in one SU (rail-aligned pairs meet in the rail leaf: level
    1, one switch and two links); 64 nodes reach the spines (level 2: 3 switches, 4 links,
    the route the machine took before)."""
    view = nn.tree_view(load_machine("dgx-h100"))
    assert nn.communicator_level(view, 16) == 1
    assert nn.communicator_level(view, 64) == 2
    assert nn.hop_counts(1) == (1, 2) and nn.hop_counts(2) == (3, 4)
    assert nn.hop_counts(0) == (3, 4)


def test_no_view_off_trees_and_spread_nics_use_planes():
    """A dragonfly preset gives no tree view (slowdown 1); dgx-a100's clos is one rail's
    tree (nic_attachment spread): its 8 NICs per node load 8 copies, so a full FT(20,2)
    slows nothing, where 8 NICs sharing each node's one leaf port would be 8x over."""
    assert nn.tree_view(load_machine("lumi-g")) is None
    assert ccl_fabric(load_machine("lumi-g"), 16).network("p2p", "alltoall").slowdown == 1.0
    view = nn.tree_view(load_machine("dgx-a100"))
    assert view.planes and view.m == (20, 40) and view.w == (1, 20)
    assert nn.network_term(view, "alltoall", 64, 1, tuple(range(8))).slowdown == 1.0
    shared = view._replace(planes=False)
    # leaf of 20 nodes x 8 NICs, 44 outside peers, 1/8 each: 20 x 8 x 44 / 8 over 20 = 44;
    # NIC 63 / 8
    assert nn.network_term(shared, "alltoall", 64, 1, tuple(range(8))).slowdown == \
        pytest.approx(44 / (63 / 8))
    assert math.isfinite(view.nodes)


@pytest.mark.parametrize("routing", ["random", "dmodk"])
@pytest.mark.parametrize("tree, domains, domain_nodes, nics", [
    ((2, (4, 4), (1, 2), (1, 1), 2), 8, 1, (0, 1)),       # rail, 2 spines
    ((2, (4, 4), (1, 1), (1, 2), 1), 8, 1, (0, 1)),       # plain, one spine, 2 cables
    ((2, (4, 4), (1, 2), (1, 1), 2), 4, 2, (0, 1)),       # domains of 2 nodes
    ((4, (4, 8), (1, 2), (1, 1), 2), 6, 1, (0, 0, 1, 1, 2, 2, 3, 3)),  # 2 GPUs per NIC
    ((2, (2, 2, 4), (1, 2, 1), (1, 1, 1), 3), 8, 1, (0, 1)),  # 3 levels, top tapered
    ((2, (2, 2, 4), (1, 2, 2), (1, 1, 1), 1), 7, 1, (0, 1)),  # 3 levels, plain, odd n
])
def test_alltoall_closed_form_is_the_flow_count(tree, domains, domain_nodes, nics, routing):
    """The rail-aligned all-to-all's closed form (alltoall_term) against its n(n-1)D flows
    routed one by one (step_term over every domain pair)."""
    rails, m, w, p, join = tree
    view = nn.TreeView(m, w, p, routing, rails, join)
    edges = [(a, b) for a in range(domains) for b in range(domains) if a != b]
    flow = nn.step_term(view, edges, domain_nodes, nics, False)
    closed = nn.alltoall_term(view, domains, domain_nodes, nics)
    assert closed.channel_load == pytest.approx(flow.channel_load, abs=1e-12)
    assert closed.nic_load == pytest.approx(flow.nic_load)
    assert closed.level == flow.level


def test_sendrecv_shift_is_one_nic_per_boundary():
    """nccl-tests' shift crosses a node boundary with one message, on one NIC: on the plain
    rail:rails=2,m=4x4,w=1x1,join=1 (one up channel per 2-node leaf) that one flow fills
    the channel as it fills its NIC (slowdown 1), where the ring's two NICs at 1/2 each
    load it twice a NIC's share (slowdown 2)."""
    view = rail_view(2, (4, 4), (1, 1), join=1)
    shift = nn.network_term(view, nn.pattern_of("p2p", "sendrecv"), 8, 1, (0, 1))
    assert (shift.channel_load, shift.nic_load, shift.slowdown) == (1.0, 1.0, 1.0)
    ring = nn.network_term(view, nn.pattern_of("ring", "allreduce"), 8, 1, (0, 1))
    assert (ring.channel_load, ring.nic_load, ring.slowdown) == (1.0, 0.5, 2.0)


def test_predict_notes_say_how_high_and_how_slow():
    """predict collective --api nccl notes the network per node count: on the tapered
    SuperPOD the all-to-all of 64 nodes climbs to the spines at channel/NIC 128/63 = 2.03;
    16 nodes stay in the rail leaves (level 1, no channel: 0)."""
    from icnperf.model.collectives.nccl_api import ccl_collective

    tapered = load_machine("dgx-h100").with_values(
        {"topology": "rail:rails=8,m=32x32,w=1x4,p=1x2"}, "test")
    _, notes = ccl_collective(tapered, "alltoall", [16, 64], [2.0**30], "best", "nccl")
    network = [n for n in notes if n.startswith("network at")]
    assert network[0].endswith("p2p to level 1, channel/NIC 0")
    assert network[1].endswith("p2p to level 2, channel/NIC 2.03 (B_net / 2.03)")
    _, one_node = ccl_collective(tapered, "alltoall", [1], [2.0**30], "best", "nccl")
    assert not any(n.startswith("network at") for n in one_node)
