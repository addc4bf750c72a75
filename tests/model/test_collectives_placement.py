"""Textbook collectives on fat trees and dragonflies, processes per node and rank placement
(icnperf/model/collectives Layout / schedule, the route helpers of
icnperf/model/topology/fattree.py and dragonfly/, ``predict collective --ppn
--placement``). Expected hops and loads are worked out by hand in the comments."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from icnperf.cli import cli
from icnperf.errors import InputError
from icnperf.data.machine import Machine, load_machine
from icnperf.model import collectives as C
from icnperf.model import network as N
from icnperf.model.topology import dragonfly, fattree

# Fixed packet and endpoint values for the tests, over the preset's assumed ones, so the
# expected times below do not move when the preset's assumptions are revised.
QDR_SETS = ("network.flit_size=16B", "network.packet_max_flits=256",
            "network.packet_header_flits=4", "network.injection_latency=300ns",
            "network.ejection_latency=300ns", "network.link_latency=20ns",
            "software.mpi_overhead=1us")


def qdr(topology: str | None = None):
    items = list(QDR_SETS) + ([f"topology={topology}"] if topology else [])
    return load_machine("ib-qdr-cluster").with_overrides(items)


# --- hops and loads on a fat tree ------------------------------------------------------------


def test_fattree_nca_hops_of_recursive_doubling_steps_by_hand():
    # FT(2,2): 8 endpoints, leaves {0,1} {2,3} {4,5} {6,7}; the level-2 pod is everything.
    src = np.arange(8)
    assert list(fattree.nca_hops(2, 2, src, src ^ 1)) == [0] * 8      # same leaf
    assert list(fattree.nca_hops(2, 2, src, src ^ 2)) == [2] * 8      # leaf, top, leaf
    assert list(fattree.nca_hops(2, 2, src, src ^ 4)) == [2] * 8
    # FT(2,3): 16 endpoints, level-2 pods of 4; 0 <-> 8 meet only at the top: 4 hops
    src = np.arange(16)
    assert list(fattree.nca_hops(2, 3, src, src ^ 8)) == [4] * 16
    assert list(fattree.nca_hops(2, 3, src, src ^ 2)) == [2] * 16
    # each leaf sends 2 messages out over its 2 up channels, each level-2 pod 4 over 4
    assert fattree.nca_message_load(2, 3, src, src ^ 8) == 1
    assert fattree.nca_message_load(2, 3, src, src ^ 1) == 0
    # endpoints 1..4 all send to endpoint 8: 4 messages enter leaf 4 over its 2 down
    # channels (ceil(4/2) = 2) and level-2 pod 2 over its 4 (1)
    assert fattree.nca_message_load(2, 3, np.arange(1, 5), np.full(4, 8)) == 2


def test_recursive_doubling_schedule_on_fattree_k2_n2():
    layout = C.Layout.from_topology("fattree:k=2,n=2")
    assert (layout.endpoints, layout.ranks, layout.text, layout.diameter) == (
        8, 8, "fattree:k=2,n=2", 2)
    steps = C.schedule("recursive-doubling", "allreduce", layout)
    # step 0: partner r^1 on the same leaf, 0 hops; steps 1, 2: 2 hops, one message per
    # up channel (a leaf sends 2 messages over its 2 up-ports)
    assert steps == (C.Step(1, Fraction(1), 0, 1, True), C.Step(2, Fraction(1), 2, 1, True))
    machine = qdr("fattree:k=2,n=2")
    params = C.collective_parameters(machine)
    got = C.collective_time(machine, "allreduce", "recursive-doubling", [1024]).time[0]
    by_hand = (N.latency(1024, 0, **N.bind(N.latency, params))
               + 2 * N.latency(1024, 2, **N.bind(N.latency, params)))
    assert got == pytest.approx(by_hand, rel=1e-12)


def test_clos_is_the_same_tree_as_fattree():
    a = C.Layout.from_topology("clos:radix=8,levels=2")
    b = C.Layout.from_topology("fattree:k=4,n=2")
    assert a.text == "clos:radix=8,levels=2" and a.endpoints == b.endpoints == 32
    for algorithm, operation in (("ring", "allgather"), ("bruck", "alltoall"),
                                 ("rabenseifner", "allreduce"), ("binomial", "broadcast")):
        assert C.schedule(algorithm, operation, a) == C.schedule(algorithm, operation, b)


# --- hops and loads on a dragonfly -----------------------------------------------------------


def test_dragonfly_hops_of_a_recursive_doubling_step_by_hand():
    # DF(p=2, a=4, h=2): g = 9 groups of 4 routers x 2 endpoints. Ranks 0..15 exchange with
    # r XOR 8: endpoints 0..7 (group 0) <-> 8..15 (group 1), router index r = (e // 2) % 4
    # on both sides. Group 0 -> 1: port j = 0, owned by router x = 0, landing on y = 3:
    # hops 1 + [r != 0] + [r != 3] = 2, 3, 3, 2 for r = 0..3. Group 1 -> 0: j = 7, x = 3,
    # y = 0: the same hops.
    src = np.arange(16)
    hops = dragonfly.dragonfly_route_hops(2, 4, 2, src, src ^ 8)
    assert list(hops) == [2, 2, 3, 3, 3, 3, 2, 2] * 2
    # within a router 0 hops, within a group 1
    assert list(dragonfly.dragonfly_route_hops(2, 4, 2, [0, 0], [1, 6])) == [0, 1]
    # the one global link of the group pair carries all 8 messages each way
    assert dragonfly.dragonfly_route_load(2, 4, 2, src, src ^ 8) == 8
    layout = C.Layout.from_topology("dragonfly:p=2,a=4,h=2")
    assert layout.endpoints == 72 and layout.diameter == 3
    assert layout.rank_traffic(src, src ^ 8) == (3, 8, 1, False)
    # r XOR 2 stays in group 0 or 1: routers 0<->1, 2<->3 one local hop, 2 messages per
    # local channel (both endpoints of a router go to the same router)
    assert layout.rank_traffic(src, src ^ 2) == (1, 2, 1, False)


def test_megafly_hops_and_loads_by_hand():
    # megafly k=2: 5 groups of 2 leaves x 2 endpoints; same leaf 0, same group 2, else 3
    assert list(dragonfly.megafly_route_hops(2, [0, 0, 0], [1, 2, 4])) == [0, 2, 3]
    # 0 -> 2 and 1 -> 3 (leaf 0 -> leaf 1 of group 0): spread over 2 spines, 1 each
    assert dragonfly.megafly_route_load(2, [0, 1], [2, 3]) == 1
    # group 0's 4 endpoints all to group 1: one global link, 4 messages
    assert dragonfly.megafly_route_load(2, [0, 1, 2, 3], [4, 5, 6, 7]) == 4
    assert C.Layout.from_topology("megafly:k=2").text == "megafly:k=2"


def test_every_textbook_algorithm_runs_on_the_new_families():
    for topology in ("fattree:k=4,n=2", "clos:radix=6,levels=2", "dragonfly:p=2,a=4,h=2",
                     "megafly:k=3"):
        machine = qdr(topology)
        results = C.compare(machine, "allreduce", [8, 65536])
        assert set(results) == {"binomial", "recursive-doubling", "ring", "rabenseifner",
                                "reduce-bcast"}
        for result in results.values():
            assert result.layout == C.Layout.from_topology(topology).text
            assert np.all(result.time > 0)
            assert any("routing" in note for note in result.assumptions)
        with pytest.raises(InputError, match="defined on a torus"):
            C.collective_time(machine, "broadcast", "p2p-tree", [8])


# --- processes per node -----------------------------------------------------------------------


def _inter_node_messages(algorithm, operation, layout):
    ends = layout.rank_endpoints()
    return [int(np.count_nonzero(ends[src] != ends[dst]))
            for _, _, _, src, dst in C._rounds(algorithm, operation, layout.ranks).rounds]


def test_ppn_puts_consecutive_ranks_on_one_node():
    layout = C.Layout.torus((2, 2)).placed(processes_per_node=3)
    assert layout.ranks == 12 and layout.endpoints == 4
    assert list(layout.rank_endpoints()) == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]


def test_ppn_reduces_inter_node_messages_as_expected():
    base = C.Layout.from_topology("fattree:k=2,n=2")
    # ring all-gather on P ranks: every step sends P messages, of which only those from the
    # last rank of each node leave it: P / ppn
    for ppn in (1, 2, 4):
        layout = base.placed(processes_per_node=ppn)
        counts = _inter_node_messages("ring", "allgather", layout)
        assert counts == [8] and layout.ranks == 8 * ppn    # one round, count P - 1
    # recursive doubling: the first lg(ppn) exchanges stay within the node
    layout = base.placed(processes_per_node=4)
    assert _inter_node_messages("recursive-doubling", "allreduce", layout) == [
        0, 0, 32, 32, 32]
    steps = C.schedule("recursive-doubling", "allreduce", layout)
    # 2 intra-node steps (no adapter use), then partners r^4 (next node, same leaf: 0 hops)
    # and r^8, r^16 (2 hops); each node's 4 ranks send at once through its adapter
    assert steps == (C.Step(2, Fraction(1), 0, 0, True, 0, True),
                     C.Step(1, Fraction(1), 0, 4, True, 4, False),
                     C.Step(2, Fraction(1), 2, 4, True, 4, False))


def test_intra_node_steps_charge_the_stated_copy_and_share_the_adapter():
    machine = qdr("fattree:k=2,n=2")
    params = C.collective_parameters(machine)
    layout = C.Layout.from_topology("fattree:k=2,n=2").placed(processes_per_node=2)
    steps = C.schedule("recursive-doubling", "allreduce", layout)
    assert steps == (C.Step(1, Fraction(1), 0, 0, True, 0, True),
                     C.Step(1, Fraction(1), 0, 2, True, 2, False),
                     C.Step(2, Fraction(1), 2, 2, True, 2, False))
    m = 4096.0
    shared = dict(N.bind(N.latency, params), link_bandwidth=params["link_bandwidth"] / 2,
                  host_bandwidth=params["host_bandwidth"] / 2)
    by_hand = (params["software_overhead"] + m / params["host_bandwidth"]
               + N.latency(m, 0, **shared) + 2 * N.latency(m, 2, **shared))
    got = C.collective_time(machine, "allreduce", "recursive-doubling", [m],
                            processes_per_node=2)
    assert got.time[0] == pytest.approx(by_hand, rel=1e-12)
    text = " ".join(got.assumptions)
    assert "processes_per_node = 2" in text and "O + m / B_host" in text
    assert "B_host / a" in text


def test_trees_need_one_process_per_node():
    machine = load_machine("angara-3d")
    with pytest.raises(InputError, match="one process per node"):
        C.collective_time(machine, "broadcast", "hw-tree", [8], processes_per_node=2)
    results = C.compare(machine, "broadcast", [8], layout=C.Layout.torus((4, 4)),
                        processes_per_node=2)
    assert "hw-tree" not in results and "p2p-tree" not in results and "binomial" in results
    with pytest.raises(InputError, match="processes_per_node"):
        C.collective_time(machine, "broadcast", "binomial", [8], processes_per_node=0)
    with pytest.raises(InputError, match="placement"):
        C.collective_time(machine, "broadcast", "binomial", [8], placement="snake")


def test_default_placement_leaves_the_torus_untouched():
    layout = C.Layout.torus((4, 4, 2))
    assert layout.placed() == layout
    machine = load_machine("angara-3d")
    a = C.collective_time(machine, "allreduce", "ring", [8, 1 << 20], layout=layout)
    assert any(n.endswith("dimension 0 varying fastest (linear)") for n in a.assumptions)
    assert "the host interface is not shared" in " ".join(a.assumptions)


# --- random placement ----------------------------------------------------------------------------


def test_random_placement_is_deterministic_for_its_seed():
    base = C.Layout.from_topology("dragonfly:p=2,a=4,h=2")
    one = base.placed(placement="random", seed=7)
    again = base.placed(placement="random", seed=7)
    other = base.placed(placement="random", seed=8)
    assert np.array_equal(one.rank_endpoints(), again.rank_endpoints())
    assert sorted(one.rank_endpoints()) == list(range(72))
    assert not np.array_equal(one.rank_endpoints(), other.rank_endpoints())
    assert not np.array_equal(one.rank_endpoints(), base.rank_endpoints())
    machine = qdr("dragonfly:p=2,a=4,h=2")
    first = C.collective_time(machine, "allgather", "bruck", [65536], placement="random",
                              seed=7)
    second = C.collective_time(machine, "allgather", "bruck", [65536], placement="random",
                               seed=7)
    assert first.time.tobytes() == second.time.tobytes()
    assert first.assumptions == second.assumptions
    assert "seed 7" in " ".join(first.assumptions)
    # with ppn, the ranks of a node stay together on the node's random endpoint
    ends = base.placed(processes_per_node=2, placement="random", seed=7).rank_endpoints()
    assert np.array_equal(ends[::2], ends[1::2])
    assert np.array_equal(ends[::2], one.rank_endpoints())


# --- the CLI -------------------------------------------------------------------------------------


def _run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _sets():
    return [x for item in QDR_SETS for x in ("--set", item)]


def test_cli_collective_on_the_fat_tree_machine():
    result = _run("predict", "collective", "allreduce", "--machine", "ib-qdr-cluster",
                  "--algorithm", "recursive-doubling", *_sets())
    assert result.exit_code == 0, result.output
    assert "fattree:k=4,n=2" in result.output and "recursive-doubling" in result.output
    assert "nearest-common-ancestor" in result.output


def test_cli_collective_ppn_and_placement_reach_the_model():
    result = _run("predict", "collective", "allreduce", "--machine", "ib-qdr-cluster",
                  "--algorithm", "recursive-doubling", "--ppn", "4", "--placement", "random",
                  "--hierarchy", "flat", "--bytes", "1KiB", "--format", "json", *_sets())
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["inputs"]["processes_per_node"] == 4
    assert doc["inputs"]["placement"] == "random"
    notes = " ".join(doc["assumptions"]["recursive-doubling"])
    assert "processes_per_node = 4" in notes and "seed 0" in notes
    (row,) = doc["rows"]
    expected = C.collective_time(qdr(), "allreduce", "recursive-doubling", [1024],
                                 processes_per_node=4, placement="random").time[0]
    assert row["time_s"] == pytest.approx(expected, rel=1e-12)


def test_cli_collective_missing_keys_name_the_set_to_pass(tmp_path):
    qdr_preset = load_machine("ib-qdr-cluster")
    bare = Machine("bare", qdr_preset.topology,
                   network={k: qdr_preset.network[k] for k in
                            ("link_bandwidth", "router_latency", "host_bandwidth",
                             "switching")})
    path = tmp_path / "bare.toml"
    path.write_text(bare.to_toml())
    result = CliRunner().invoke(cli, ["predict", "collective", "allreduce", "--machine",
                                      str(path), "--algorithm", "recursive-doubling"])
    assert result.exit_code == 2
    # flit_size, packet_max_flits, packet_header_flits, injection_latency, ejection_latency,
    # link_latency and software.mpi_overhead
    assert "lacks 7 parameters" in result.output and "network.flit_size" in result.output


def test_cli_tree_algorithm_with_ppn_says_why():
    result = CliRunner().invoke(cli, ["predict", "collective", "broadcast", "--machine",
                                      "angara-3d", "--algorithm", "hw-tree", "--ppn", "2",
                                      "--hierarchy", "flat"])
    assert result.exit_code != 0 and "one process per node" in result.output
    assert "--hierarchy node" in result.output
