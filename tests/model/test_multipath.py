"""Adaptive dragonfly routing in the point-to-point model: the max-flow between gdragonfly
routers (model/topology/dragonfly/general_flow.py) and a message over several paths
(model/network/multipath.py, p2p_table).

Expectations: hand counts of disjoint paths, an Edmonds-Karp max-flow written here on a
graph built here from the construction rules of gdragonfly (not the module's graph), a
brute-force packet assignment for the makespan, and the hand-derived rates of the presets.
"""

import itertools
import math
from collections import deque

import numpy as np
import pytest

from icnperf.data.machine import load_machine
from icnperf.model import network
from icnperf.model.topology.dragonfly.general_flow import pair_classes, path_links

# --- an independent max-flow on an independently built graph ----------------------------


def _gdragonfly_capacity(p, a, g, b=1, la=1, lb=1, m=1, groups=None, forward=None):
    """cap[(u, v)] of the gdragonfly graph, routers named (group, i, j), built from the
    construction rules: rank-1 all-to-all along a row (la), rank-2 along a column (lb),
    group G's global port k goes to group G + k//m + 1, owned by router k mod (a*b) (i = r
    mod a, j = r // a), landing on port (g - o - 1)*m + copy of that group. ``groups``
    keeps only those groups; ``forward(G, H)`` keeps only those global directions."""
    cap = {}
    groups = range(g) if groups is None else groups
    for G in groups:
        for i, j, i2, j2 in itertools.product(range(a), range(b), range(a), range(b)):
            if (i, j) == (i2, j2):
                continue
            if j == j2:
                cap[(G, i, j), (G, i2, j2)] = cap.get(((G, i, j), (G, i2, j2)), 0) + la
            if i == i2:
                cap[(G, i, j), (G, i2, j2)] = cap.get(((G, i, j), (G, i2, j2)), 0) + lb
        for k in range(m * (g - 1)):
            o, copy = k // m + 1, k % m
            H = (G + o) % g
            if H not in groups or (forward and not forward(G, H)):
                continue
            r, far = k % (a * b), ((g - o - 1) * m + copy) % (a * b)
            edge = ((G, r % a, r // a), (H, far % a, far // a))
            cap[edge] = cap.get(edge, 0) + 1
    return cap


def _edmonds_karp(cap, s, t):
    residual = dict(cap)
    for (u, v) in list(cap):
        residual.setdefault((v, u), 0)
    adjacent = {}
    for (u, v) in residual:
        adjacent.setdefault(u, []).append(v)
    flow = 0
    while True:
        parent = {s: None}
        queue = deque([s])
        while queue and t not in parent:
            u = queue.popleft()
            for v in adjacent.get(u, []):
                if v not in parent and residual[u, v] > 0:
                    parent[v] = u
                    queue.append(v)
        if t not in parent:
            return flow
        v, bottleneck = t, math.inf
        while parent[v] is not None:
            bottleneck = min(bottleneck, residual[parent[v], v])
            v = parent[v]
        v = t
        while parent[v] is not None:
            residual[parent[v], v] -= bottleneck
            residual[v, parent[v]] += bottleneck
            v = parent[v]
        flow += bottleneck


def _classes(params):
    return {c.name: c for c in pair_classes(params)}


# --- max-flow: hand counts ---------------------------------------------------------------


@pytest.mark.parametrize("a", [2, 3, 5, 8])
def test_all_to_all_group_gives_a_minus_one_disjoint_paths(a):
    """Inside one all-to-all group of a routers: the direct link plus a - 2 two-hop paths
    through each other router, and no more (the source has a - 1 links)."""
    classes = _classes({"p": 1, "a": a, "g": 1})
    assert classes["rank-1 neighbours"].links == a - 1
    assert classes["rank-1 neighbours"].exact
    assert classes["same router"].links == math.inf
    # other groups' links do not help a pair inside one group
    assert _classes({"p": 1, "a": a, "g": 4, "m": 2})["rank-1 neighbours"].links == a - 1


def test_parallel_local_links_count_each():
    """la = 3 parallel rank-1 links: 3 (direct) + 3 x (a - 2) two-hop paths."""
    assert _classes({"p": 1, "a": 4, "la": 3, "g": 1})["rank-1 neighbours"].links == 9


def test_two_dimensional_group_hand_count():
    """a = 3, b = 2, lb = 2 (routers 0 1 2 / 3 4 5). Rank-1 pair 0-1: direct, 0-2-1,
    0-3-4-1, 0-3-5-4-1 = 4 = the source's ports (2 rank-1 + 2 rank-2 links). Rank-2 pair
    0-3: 2 direct, 0-1-4-3, 0-2-5-3 = 4. Diagonal pair 0-4: 4 (the source's ports)."""
    classes = _classes({"p": 1, "a": 3, "b": 2, "lb": 2, "g": 1})
    assert classes["rank-1 neighbours"].links == 4
    assert classes["rank-2 neighbours"].links == 4
    assert classes["same group"].links == 4


def test_between_groups_global_links_bound_the_flow():
    """a = 5, g = 3, m = 1: one link from the source group to the destination's, one
    through the third group (in and out): 2 = m + (g - 2) m, far below the 4 local ports."""
    assert _classes({"p": 1, "a": 5, "g": 3})["other groups"].links == 2
    # m = 2: every group pair has 2 links, and routers 0 / 1 of group 0 own them
    assert _classes({"p": 1, "a": 5, "g": 3, "m": 2})["other groups"].links == 4


@pytest.mark.parametrize("params", [
    {"p": 1, "a": 4, "g": 5, "m": 1},
    {"p": 1, "a": 3, "b": 2, "lb": 2, "g": 4, "m": 3},
    {"p": 2, "a": 2, "b": 3, "la": 2, "g": 3, "m": 5},
])
def test_flows_match_edmonds_karp_on_the_construction(params):
    """Every class's representative pair against an Edmonds-Karp max-flow on the graph
    built in this test: the group alone for pairs inside a group; for pairs in different
    groups every group, global links only out of the source group or into the destination
    group (one intermediate group)."""
    p, a, g = params["p"], params["a"], params["g"]
    b, la, lb, m = (params.get(k, 1) for k in ("b", "la", "lb", "m"))
    inside = _gdragonfly_capacity(p, a, 1, b, la, lb, m)
    expected = {"rank-1 neighbours": _edmonds_karp(inside, (0, 0, 0), (0, 1, 0))}
    if b > 1:
        expected["rank-2 neighbours"] = _edmonds_karp(inside, (0, 0, 0), (0, 0, 1))
        expected["same group"] = _edmonds_karp(inside, (0, 0, 0), (0, 1, 1))
    between = _gdragonfly_capacity(p, a, g, b, la, lb, m,
                                   forward=lambda G, H: G == 0 or H == 1)
    # router-0-of-group-1's incoming links from group 1's own routers stay; links out of
    # group 1 into others are never on a path to it and do not change the flow
    expected["other groups"] = _edmonds_karp(between, (0, 0, 0), (1, 0, 0))
    got = _classes(params)
    for name, value in expected.items():
        assert got[name].links == value, name


def test_path_links_by_hops():
    params = {"p": 1, "a": 3, "b": 2, "lb": 2, "g": 3, "m": 1}
    classes = _classes(params)
    one = min(classes["rank-1 neighbours"].links, classes["rank-2 neighbours"].links,
              classes["other groups"].links)
    floor = min(c.links for c in classes.values() if c.hops != (0,))
    got = path_links(params, [0, 1, 2, 5, 2.5, 9])
    assert got[0] == math.inf
    assert got[1] == one
    assert got[2] == min(classes["same group"].links, classes["other groups"].links)
    assert got[3] == classes["other groups"].links  # only pairs in other groups take 5 hops
    assert got[4] == floor and got[5] == floor


# --- a message over k channels -----------------------------------------------------------


PACKET = {"flit_size": 16, "packet_max_flits": 5, "packet_header_flits": 1}


def _brute_makespan(m, k):
    """Smallest busiest-channel load over every assignment of the message's packets to k
    channels (bytes on the wire)."""
    n = int(network.packets(m, **PACKET))
    payload = 64
    sizes = [16 * (1 + math.ceil(min(payload, m - i * payload) / 16)) for i in range(n)]
    if m == 0:
        sizes = [16]
    best = math.inf
    for assignment in itertools.product(range(k), repeat=n):
        loads = [0] * k
        for size, channel in zip(sizes, assignment):
            loads[channel] += size
        best = min(best, max(loads))
    return best


@pytest.mark.parametrize("m", [0, 8, 64, 65, 128, 200, 256, 300, 384])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_multipath_serialization_is_the_best_packet_assignment(m, k):
    t = network.multipath_serialization(np.array(m, dtype=float), k, **PACKET,
                                        link_bandwidth=1.0, host_bandwidth=1e30)
    assert float(t) == _brute_makespan(m, k)


def test_one_path_is_the_single_path_serialization():
    sizes = np.array([0, 8, 100, 4096, 1 << 22], dtype=float)
    rates = {"link_bandwidth": 5.25e9, "host_bandwidth": 15.75e9}
    np.testing.assert_array_equal(
        network.multipath_serialization(sizes, 1, **PACKET, **rates),
        network.serialization_time(sizes, **PACKET, **rates))


# --- p2p_table on the presets ------------------------------------------------------------

MIB4 = 4194304


def _streaming(machine, hops):
    return float(network.p2p_table(machine, [MIB4], hops).columns["streaming_bandwidth_Bps"][0])


@pytest.fixture(scope="module")
def daint():
    return load_machine("piz-daint")


@pytest.mark.parametrize("hops", [0, 1, 3, None])
def test_piz_daint_is_nic_bound(daint, hops):
    """2 NIC ports x 5.25 GB/s x 64/80 payload share = 8.4 GB/s wherever the two nodes
    are: every router pair has a max-flow of at least 30 links (above 2)."""
    assert _streaming(daint, hops) == pytest.approx(2 * 5.25e9 * 64 / 80, rel=1e-12)


def test_minimal_routing_gives_one_path(daint):
    """network.dragonfly_routing=minimal: one link's payload rate, 4.2 GB/s, and every
    column equal to the single-path formulas (the numbers before adaptive routing)."""
    minimal = daint.with_overrides(["network.dragonfly_routing=minimal"])
    assert _streaming(minimal, 0) == pytest.approx(5.25e9 * 64 / 80, rel=1e-12)
    sizes = [8, 1000, MIB4]
    cols = network.p2p_table(minimal, sizes, 2).columns
    params = network.machine_parameters(minimal)
    ser = network.serialization_time(np.array(sizes, dtype=float),
                                     **network.bind(network.serialization_time, params))
    np.testing.assert_array_equal(cols["serialization_s"], ser)
    np.testing.assert_array_equal(cols["rate_bound_per_s"], 5.25e9 / np.array(sizes))


def test_slower_host_interface_bounds_the_stream(daint):
    """Host interface at 5 GB/s, below the 2 ports' 8.4 GB/s: payload at 5 GB/s."""
    slow = daint.with_overrides(["network.host_bandwidth=5GB/s"])
    assert _streaming(slow, 0) == pytest.approx(5e9, rel=1e-12)


def test_network_bounds_the_stream_when_the_nic_is_wider(daint):
    """One all-to-all group of 3 routers (max-flow 2 links) and a NIC of 4 ports: 2 links at
    1 hop; the same router (0 hops) gets all 4 ports."""
    narrow = daint.with_overrides(["topology=gdragonfly:p=1,a=3,g=1", "network.nic_ports=4",
                                   "network.host_bandwidth=100GB/s"])
    link_payload = 5.25e9 * 64 / 80
    assert _streaming(narrow, 1) == pytest.approx(2 * link_payload, rel=1e-12)
    assert _streaming(narrow, 0) == pytest.approx(4 * link_payload, rel=1e-12)


def test_small_messages_keep_their_latency(daint):
    """One packet cannot be split: the 8-byte latencies (the calibrated claims) and the
    first byte's path are those of one path."""
    minimal = daint.with_overrides(["network.dragonfly_routing=minimal"])
    for hops in (0, 3):
        a = network.p2p_table(daint, [8], hops).columns
        b = network.p2p_table(minimal, [8], hops).columns
        assert a["latency_s"][0] == b["latency_s"][0]
        assert a["path_latency_s"][0] == b["path_latency_s"][0]


def test_lumi_one_port_nic_unchanged():
    """LUMI: adaptive, but one NIC port: 25 GB/s x 32/33 (2 KiB frames, one 64-byte header
    unit), as before."""
    lumi = load_machine("lumi")
    assert network.dragonfly_routing(lumi) == "adaptive"
    assert _streaming(lumi, 0) == pytest.approx(25e9 * 32 / 33, rel=1e-12)
    minimal = lumi.with_overrides(["network.dragonfly_routing=minimal"])
    assert _streaming(minimal, 3) == _streaming(lumi, 3)


def test_fat_tree_keeps_one_path():
    """summit (clos): the dragonfly routing key and NIC ports change nothing."""
    summit = load_machine("summit")
    keyed = summit.with_overrides(["network.dragonfly_routing=adaptive",
                                   "network.nic_ports=2"])
    a = network.p2p_table(summit, [8, 1 << 20], 2)
    b = network.p2p_table(keyed, [8, 1 << 20], 2)
    for name in network.COLUMNS:
        np.testing.assert_array_equal(a.columns[name], b.columns[name])
    assert any("gdragonfly topologies only" in note for note in b.assumptions)


def test_routing_note_states_the_flows(daint):
    notes = network.p2p_table(daint, [MIB4], 0).assumptions
    (note,) = [n for n in notes if n.startswith("routing: adaptive")]
    assert "min(2 NIC ports" in note and "same group 30" in note


def test_large_graphs_get_the_port_estimate(monkeypatch):
    """Above MAX_FLOW_ARCS the other-groups graph is not built: the class takes the ports
    of a router with the fewest global ports, (a-1)la + (b-1)lb + floor(m(g-1)/R), marked
    as an estimate; the classes inside a group stay exact."""
    from icnperf.model.topology.dragonfly import general_flow

    monkeypatch.setattr(general_flow, "MAX_FLOW_ARCS", 100)
    general_flow._pair_classes.cache_clear()
    try:
        classes = _classes({"p": 1, "a": 4, "b": 2, "lb": 2, "g": 6, "m": 3})
    finally:
        general_flow._pair_classes.cache_clear()
    other = classes["other groups"]
    assert other.links == 3 + 2 + (3 * 5) // 8 and not other.exact
    assert classes["rank-1 neighbours"].exact
