"""Collective hardware beyond Angara's tree (network.collective_hardware): Blue Gene/Q's
collective logic in the torus routers (torus-router, the sequoia preset) and InfiniBand
SHARP aggregation in fat-tree switches (switch-aggregation, the summit preset). Expected
values are path sums worked out by hand from the presets' parameters."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.data.machine import load_machine
from icnperf.errors import InputError
from icnperf.model import collectives as C
from icnperf.model import network as N


def serial(machine, m):
    params = C.collective_parameters(machine)
    return float(N.serialization_time(m, **N.bind(N.serialization_time, params)))


def test_sequoia_allreduce_is_one_cut_through_path_of_twice_the_class_route_depth():
    # torus 16x12x16x16x2: class-route depth 8 + 6 + 8 + 8 + 1 = 31, the all-reduce path
    # 62 hops: O (1 us) + t_inj (100 ns) + 63 routers x 40 ns + 62 links x 0 + t_ej (100 ns)
    # + the 8-byte packet's serialization once (cut-through)
    machine = load_machine("sequoia")
    r = C.collective_time(machine, "allreduce", "hw-tree", [8.0])
    expected = 1e-6 + 100e-9 + 63 * 40e-9 + 100e-9 + serial(machine, 8.0)
    assert r.time[0] == pytest.approx(expected, rel=1e-12)
    assert any("torus-router" in n for n in r.assumptions)
    assert not any("Mukosey 2015 §1, §2.4" in n for n in r.assumptions)   # no Angara credits
    # the barrier: the same path with an empty packet
    b = C.collective_time(machine, "barrier", "hw-tree")
    assert b.time[0] == pytest.approx(expected - serial(machine, 8.0) + serial(machine, 0.0),
                                      rel=1e-12)


def test_torus_router_drops_only_the_angara_credit_delay():
    # a slow router makes Angara's credit loop bite on a multi-packet reduce; the torus
    # routers have no such rule: the difference is exactly credit_delay
    sets = ["network.router_latency=5us"]
    angara = load_machine("angara-4d").with_overrides(sets)
    bgq = angara.with_overrides(["network.collective_hardware=torus-router"])
    explicit = angara.with_overrides(["network.collective_hardware=angara-tree"])
    layout = C.Layout.torus((4, 4, 4))
    m = 64 * 1024.0
    a = C.collective_time(angara, "allreduce", "hw-tree", [m], layout=layout).time[0]
    t = C.collective_time(bgq, "allreduce", "hw-tree", [m], layout=layout).time[0]
    e = C.collective_time(explicit, "allreduce", "hw-tree", [m], layout=layout).time[0]
    params = C.collective_parameters(angara)
    credit = float(C.credit_delay(m, **C._bind(C.credit_delay, params)))
    assert credit > 0
    assert a == e
    assert a - t == pytest.approx(credit, rel=1e-9)


def test_summit_switch_aggregation_on_one_leaf_and_across_the_tree():
    machine = load_machine("summit")
    whole = C.Layout.from_topology(machine.topology)
    # clos radix 36, 3 levels: 18 nodes per leaf, 18 x 18 = 324 per level-2 pod
    assert whole.on_part(16).span_hops == 0
    assert whole.on_part(36).span_hops == 2
    assert whole.on_part(4608).span_hops == 4
    t_ser = serial(machine, 8.0)
    # the 8-byte packet is one 64-byte header flit + one 64-byte payload flit: 128 B, 10.24 ns
    # on a 100 Gbit/s link; each switch on the path stores it whole before combining and
    # sending it on (store-and-forward): one more packet time per switch
    packet = 128 / 12.5e9
    switch = machine.network["router_latency"]     # Switch-IB 2's 90 ns (the preset's source)
    assert switch == pytest.approx(90e-9)
    # 16 nodes on one leaf switch: O (500 ns) + inj (300) + 1 switch + ej (300) + T_ser
    r = C.collective_time(machine, "allreduce", "hw-tree", [8.0], layout=whole.on_part(16))
    assert r.time[0] == pytest.approx(500e-9 + 300e-9 + switch + 300e-9 + t_ser + packet,
                                      rel=1e-12)
    # 4608 nodes: 4 hops, 5 switches
    r = C.collective_time(machine, "allreduce", "hw-tree", [8.0], layout=whole.on_part(4608))
    assert r.time[0] == pytest.approx(500e-9 + 300e-9 + 5 * switch + 300e-9 + t_ser
                                      + 5 * packet, rel=1e-12)


def test_switch_aggregation_pipelines_fragments_of_the_payload_limit():
    # 1 KiB = 4 fragments of 256 B, 2 in flight: 2 waves of one fragment's path, and the
    # second fragment of each wave one serialization behind
    machine = load_machine("summit")
    layout = C.Layout.from_topology(machine.topology).on_part(16)
    one = C.collective_time(machine, "allreduce", "hw-tree", [256.0], layout=layout).time[0]
    four = C.collective_time(machine, "allreduce", "hw-tree", [1024.0], layout=layout).time[0]
    o = 500e-9
    assert four == pytest.approx(o + 2 * (one - o) + 2 * serial(machine, 256.0), rel=1e-12)
    # below the limit the size enters through the serialization and the stored packet:
    # 200 B is 4 payload flits + 1 header flit, 320 B on the wire against 128 B for 8 B
    small = C.collective_time(machine, "allreduce", "hw-tree", [8.0, 200.0], layout=layout)
    assert small.time[1] - small.time[0] == pytest.approx(
        serial(machine, 200.0) - serial(machine, 8.0) + (320 - 128) / 12.5e9, rel=1e-9)


def test_switch_aggregation_operations_and_compare():
    machine = load_machine("summit")
    layout = C.Layout.from_topology(machine.topology).on_part(64)
    with pytest.raises(InputError, match="switch aggregation"):
        C.collective_time(machine, "broadcast", "hw-tree", [8.0], layout=layout)
    assert "hw-tree" in C.compare(machine, "allreduce", [8.0], layout=layout)
    assert "hw-tree" in C.compare(machine, "barrier", layout=layout)
    assert "hw-tree" not in C.compare(machine, "broadcast", [8.0], layout=layout)
    assert "p2p-tree" not in C.compare(machine, "allreduce", [8.0], layout=layout)
    # on a torus machine the switch aggregation has no fat tree to run on
    torus = load_machine("angara-4d").with_overrides(
        ["network.collective_hardware=switch-aggregation",
         "network.aggregation_payload=256B"])
    with pytest.raises(InputError, match="fat tree"):
        C.collective_time(torus, "allreduce", "hw-tree", [8.0],
                          layout=C.Layout.torus((4, 4)))


def test_summit_hierarchical_allreduce_runs_the_switches_among_leaders():
    machine = load_machine("summit")
    layout = C.Layout.from_topology(machine.topology).on_part(64)
    r = C.collective_time(machine, "allreduce", "hw-tree", [8.0], layout=layout,
                          processes_per_node=6, hierarchy="node")
    leaders = C.collective_time(machine, "allreduce", "hw-tree", [8.0], layout=layout)
    assert r.network_time[0] == pytest.approx(leaders.time[0], rel=1e-12)
    assert np.all(r.node_time > 0)


def test_machines_without_collective_hardware_have_no_hw_tree():
    lumi = load_machine("lumi")
    layout = C.Layout.from_topology(lumi.topology).on_part(16)
    assert "hw-tree" not in C.compare(lumi, "allreduce", [8.0], layout=layout)
    # a tree kind without trees is no hardware
    odd = load_machine("angara-4d").with_overrides(
        ["network.collective_hardware=torus-router", "network.collective_trees=0"])
    assert C.collective_parameters(odd).get("collective_hardware") is None


def test_explain_agrees_with_predict_for_both_new_kinds():
    from icnperf.model.explain import explain

    for name, m in (("summit", 1024.0), ("sequoia", 65536.0)):
        machine = load_machine(name)
        e = explain(machine, "allreduce", "hw-tree", m)
        r = C.collective_time(machine, "allreduce", "hw-tree", [m])
        assert e.time == pytest.approx(r.time[0], rel=1e-12), name


def test_angara_parameters_are_those_it_always_had():
    params = C.collective_parameters(load_machine("angara-4d"))
    assert params["collective_trees"] == 16
    assert not {"collective_hardware", "collective_credits", "aggregation_payload"} & set(params)
    seq = C.collective_parameters(load_machine("sequoia"))
    assert (seq["collective_hardware"], seq["collective_credits"]) == ("torus-router", 0)
