"""Hierarchical collectives (icnperf/model/collectives/hierarchy.py, collective_time's
``hierarchy="node"``): node-local binomial phases through shared memory around one
inter-node collective among the node leaders. Expected values are derived by hand in the
comments from network.latency and the shared-memory cost L + b / B."""

from __future__ import annotations

import math

import numpy as np
import pytest

from icnperf.data.machine import load_machine
from icnperf.errors import InputError
from icnperf.model import collectives as C
from icnperf.model import network as N

L_SHM = 400e-9      # s, set below as node.shared_memory_latency
B_SHM = 10e9        # B/s, node.shared_memory_bandwidth


def angara(*extra):
    """angara-4d with shared-memory keys (it has none of its own)."""
    return load_machine("angara-4d").with_overrides(
        ["node.shared_memory_latency=400ns", "node.shared_memory_bandwidth=10GB/s", *extra])


def shm(b):
    return L_SHM + b / B_SHM


def net_latency(machine, m, hops):
    params = C.collective_parameters(machine)
    return float(N.latency(m, hops, **N.bind(N.latency, params)))


def test_allreduce_ppn2_on_4_nodes_by_hand():
    # 4 nodes on a crossbar, 2 processes each: node-local reduce (1 round, m through shared
    # memory), recursive doubling among 4 leaders (lg 4 = 2 exchanges of m, 1 hop each, no
    # contention on a crossbar), node-local broadcast (1 round): 2 shm steps + 2 T(m, 1)
    machine = angara()
    for m in (8.0, 4096.0, 1e6):
        r = C.collective_time(machine, "allreduce", "recursive-doubling", [m],
                              layout=C.Layout.crossbar(4), processes_per_node=2,
                              hierarchy="node")
        expected = 2 * shm(m) + 2 * net_latency(machine, m, 1)
        assert r.time[0] == pytest.approx(expected, rel=1e-12)
        assert r.node_time[0] == pytest.approx(2 * shm(m), rel=1e-12)
        assert r.network_time[0] == pytest.approx(2 * net_latency(machine, m, 1), rel=1e-12)
        assert r.hierarchy == "node" and r.endpoints == 4


def test_reduce_with_combining_and_broadcast_by_hand():
    # q = 8: ceil(lg 8) = 3 rounds; reduce pays gamma*m per round; the leaders' binomial
    # reduce on a 4-crossbar: 2 rounds of T(m, 1) + gamma*m
    machine, m, gamma = angara(), 1024.0, 1e-9
    r = C.collective_time(machine, "reduce", "binomial", [m], layout=C.Layout.crossbar(4),
                          processes_per_node=8, hierarchy="node", combine_time=gamma)
    t = net_latency(machine, m, 1)
    assert r.time[0] == pytest.approx(3 * (shm(m) + gamma * m) + 2 * (t + gamma * m),
                                      rel=1e-12)
    b = C.collective_time(machine, "broadcast", "binomial", [m],
                          layout=C.Layout.crossbar(4), processes_per_node=8, hierarchy="node")
    assert b.time[0] == pytest.approx(2 * t + 3 * shm(m), rel=1e-12)


def test_barrier_allgather_alltoall_by_hand():
    machine, m = angara(), 3 * 4 * 64.0
    xbar = C.Layout.crossbar(4)
    # barrier, q = 3: fan-in and fan-out of ceil(lg 3) = 2 rounds of empty messages each,
    # dissemination (bruck) among 4 leaders: 2 steps of T(0, 1)
    r = C.collective_time(machine, "barrier", "bruck", layout=xbar, processes_per_node=3,
                          hierarchy="node")
    assert r.time[0] == pytest.approx(4 * shm(0) + 2 * net_latency(machine, 0, 1), rel=1e-12)
    # allgather, q = 3, P = 12: gather rounds move min(1, 2) = 1 and min(2, 1) = 1 block of
    # m/12; the leaders' ring allgather of m (3 steps of m/4); broadcast 2 rounds of m
    r = C.collective_time(machine, "allgather", "ring", [m], layout=xbar,
                          processes_per_node=3, hierarchy="node")
    expected = 2 * shm(m / 12) + 3 * net_latency(machine, m / 4, 1) + 2 * shm(m)
    assert r.time[0] == pytest.approx(expected, rel=1e-12)
    # alltoall, q = 4: gather of every rank's m (rounds of 1 and 2 blocks of m), the leaders'
    # bruck alltoall of 4m (2 steps of 2 of 4 blocks: 4m/2 each), scatter as the gather
    r = C.collective_time(machine, "alltoall", "bruck", [m], layout=xbar,
                          processes_per_node=4, hierarchy="node")
    local = shm(m) + shm(2 * m)
    expected = 2 * local + 2 * net_latency(machine, 4 * m / 2, 1)
    assert r.time[0] == pytest.approx(expected, rel=1e-12)


def test_one_node_is_pure_shared_memory():
    # one node, 128 processes: 7 rounds of reduce + 7 of broadcast through shared memory;
    # no network parameter enters
    for extra in ((), ("network.link_bandwidth=1Gbit/s", "network.router_latency=5us",
                       "software.mpi_overhead=50us")):
        machine = angara(*extra)
        r = C.collective_time(machine, "allreduce", "recursive-doubling", [8.0, 1e5],
                              layout=C.Layout.one_node(), processes_per_node=128,
                              hierarchy="node")
        assert r.time == pytest.approx(14 * shm(np.array([8.0, 1e5])), rel=1e-12)
        assert list(r.network_time) == [0.0, 0.0]
        assert r.layout == "node:1"


def test_ppn1_equals_flat():
    machine = angara()
    for layout in (C.Layout.torus((4, 4, 2)), C.Layout.from_topology("fattree:k=2,n=3")):
        for op in C.OPERATIONS:
            for alg in C.ALGORITHMS:
                if not C.defined(alg, op) or (alg in ("hw-tree", "p2p-tree")
                                              and not layout.is_torus):
                    continue
                sizes = None if op == "barrier" else [8.0, 65536.0]
                flat = C.collective_time(machine, op, alg, sizes, layout=layout)
                node = C.collective_time(machine, op, alg, sizes, layout=layout,
                                         hierarchy="node")
                assert np.array_equal(flat.time, node.time), (layout.text, op, alg)


def test_monotone_in_ppn():
    machine = angara()
    layout = C.Layout.torus((4, 4, 4))
    for op, alg in (("allreduce", "rabenseifner"), ("broadcast", "binomial"),
                    ("allgather", "ring"), ("alltoall", "bruck"), ("barrier", "bruck"),
                    ("allreduce", "hw-tree")):
        sizes = None if op == "barrier" else [8.0, 1e6]
        times = [C.collective_time(machine, op, alg, sizes, layout=layout,
                                   processes_per_node=q, hierarchy="node").time
                 for q in range(1, 33)]
        for a, b in zip(times, times[1:]):
            assert np.all(b >= a * (1 - 1e-12)), (op, alg)


def test_hw_tree_with_ppn_is_local_reduce_tree_local_broadcast():
    machine, m = angara(), 256.0
    layout = C.Layout.torus((4, 4, 4))
    r = C.collective_time(machine, "allreduce", "hw-tree", [m], layout=layout,
                          processes_per_node=16, hierarchy="node")
    tree = C.collective_time(machine, "allreduce", "hw-tree", [m], layout=layout)
    assert r.time[0] == pytest.approx(2 * 4 * shm(m) + tree.time[0], rel=1e-12)
    with pytest.raises(InputError, match="hierarchy node"):
        C.collective_time(machine, "allreduce", "hw-tree", [m], layout=layout,
                          processes_per_node=16)


def test_lumi_128_ppn_costs_one_leader_per_node_on_the_network():
    # 2 LUMI nodes, 128 processes each: the network sees the 2 leaders' allreduce only,
    # the same as with one process per node; the 256-rank flat run pays much more
    machine = load_machine("lumi")
    layout = C.Layout.from_topology(machine.topology).on_part(2)
    node = C.collective_time(machine, "allreduce", "recursive-doubling", [8.0],
                             layout=layout, processes_per_node=128, hierarchy="node")
    one = C.collective_time(machine, "allreduce", "recursive-doubling", [8.0], layout=layout)
    assert node.network_time[0] == pytest.approx(one.time[0], rel=1e-12)
    rounds = math.ceil(math.log2(128))
    copy = (machine.get("node.shared_memory_latency")
            + 8 / machine.get("node.shared_memory_bandwidth"))
    assert node.node_time[0] == pytest.approx(2 * rounds * copy, rel=1e-12)


def test_compare_with_hierarchy_offers_the_trees_and_flows():
    machine = angara()
    results = C.compare(machine, "allreduce", [8.0], layout=C.Layout.torus((4, 4, 4)),
                        processes_per_node=4, hierarchy="node")
    assert {"hw-tree", "p2p-tree", "reduce-bcast"} <= set(results)
    flat = C.compare(machine, "allreduce", [8.0], layout=C.Layout.torus((4, 4, 4)),
                     processes_per_node=4)
    assert "hw-tree" not in flat and "reduce-bcast" not in flat


def test_bad_hierarchy_and_single_rank():
    machine = angara()
    with pytest.raises(InputError, match="unknown hierarchy"):
        C.collective_time(machine, "allreduce", "binomial", [8.0], hierarchy="socket")
    with pytest.raises(InputError, match="at least 2 ranks"):
        C.collective_time(machine, "allreduce", "binomial", [8.0],
                          layout=C.Layout.one_node(), hierarchy="node")


def _cli(*args):
    from click.testing import CliRunner

    from icnperf.cli import cli

    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cli_hierarchy_defaults_to_node_with_ppn_and_reports_its_phases():
    import json

    args = ("predict", "collective", "allreduce", "--machine", "angara-4d", "--nodes", "64",
            "--ppn", "4", "--bytes", "64", "--algorithm", "hw-tree", "--set",
            "node.shared_memory_latency=400ns", "--set", "node.shared_memory_bandwidth=10GB/s",
            "--format", "json")
    result = _cli(*args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["inputs"]["hierarchy"] == "node"
    (row,) = doc["rows"]
    layout = C.Layout.torus((2, 2, 4, 4))
    tree = C.collective_time(angara(), "allreduce", "hw-tree", [64.0], layout=layout)
    # 4 processes: 2 rounds in, 2 out
    assert row["node_local_s"] == pytest.approx(4 * shm(64), rel=1e-12)
    assert row["inter_node_s"] == pytest.approx(tree.time[0], rel=1e-12)
    assert row["time_s"] == pytest.approx(4 * shm(64) + tree.time[0], rel=1e-12)
    notes = " ".join(doc["assumptions"]["hw-tree"])
    assert "processes_per_node = 4" in notes and "hierarchy: node" in notes
    flat = json.loads(_cli(*args[:-2], "--hierarchy", "flat", "--algorithm",
                           "recursive-doubling", "--format", "json").output)
    assert flat["inputs"]["hierarchy"] == "flat" and flat["rows"][0]["node_local_s"] is None


def test_cli_one_node():
    result = _cli("predict", "collective", "barrier", "--machine", "angara-4d", "--nodes", "1",
                  "--ppn", "16", "--algorithm", "bruck", "--set",
                  "node.shared_memory_latency=400ns", "--set",
                  "node.shared_memory_bandwidth=10GB/s", "--format", "json")
    assert result.exit_code == 0, result.output
    import json

    (row,) = json.loads(result.output)["rows"]
    assert row["shape"] == "node:1" and row["inter_node_s"] == 0.0
    assert row["time_s"] == pytest.approx(2 * 4 * L_SHM, rel=1e-12)
    bad = _cli("predict", "collective", "barrier", "--machine", "angara-4d", "--nodes", "1")
    assert bad.exit_code == 2 and "at least 2 ranks" in bad.output
