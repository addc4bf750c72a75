"""RCCL 2.18-2.21's tuning models as transcribed (model/collectives/rccl_tuning.py): the
numbers against the source as cited, the node types, the version chosen from
software.ccl_version, and the library's pick worked out by hand from RCCL's estimate."""

from __future__ import annotations

import pytest

from icnperf.data.machine import load_machine
from icnperf.model.collectives.nccl import evaluate_all, form
from icnperf.model.collectives.nccl_api import ccl_collective, library_setup
from icnperf.model.collectives.nccl_choice import library_choice
from icnperf.model.collectives.nccl_fabric import ccl_fabric, node_signature
from icnperf.model.collectives.nccl_tables import tables_for
from icnperf.model.collectives.rccl_tuning import MODEL_0, MODEL_3, MODELS, node_type

US = 1e-6


def _versioned(name: str, version: str):
    return load_machine(name).with_overrides([f"software.ccl_version={version}"])


def test_transcribed_numbers_equal_the_source():
    # ROCm/rccl src/graph/tuning.cc, tags rocm-6.0.0 and rocm-6.2.0 and commit 0cbce2a7:
    # baseLat {12, 12, 17} us for tree, ring, CollNet; tuning_model_3 NET ring {9.5, 0.0,
    # 19.8}, NVLINK tree {0.8, 0.0, 2.5}, bwRatio tree Simple 1.75 (2 nodes) and 0.96
    # (more), treeCorrectionFactor Simple [21] 0.8, ringCorrectionFactor LL [14] 0.7;
    # tuning_model_0 NET tree {11.8, 18.2, 20.8}, bwRatio ring {0.04, 0.34, 1.00}
    for version in ("2.18", "2.20", "2.21"):
        assert tables_for("rccl", version).base["ring"] == pytest.approx((12 * US, 12 * US,
                                                                         17 * US))
    assert MODEL_3.step_us["net"]["ring"] == (9.5, 0.0, 19.8)
    assert MODEL_3.step_us["nvlink"]["tree"] == (0.8, 0.0, 2.5)
    assert MODEL_3.bw_ratio["two"]["tree"] == (0.20, 0.0, 1.75)
    assert MODEL_3.bw_ratio["more"]["tree"][2] == 0.96
    assert MODEL_3.tree_correction["Simple"][21] == 0.8
    assert MODEL_3.ring_correction["LL"][14] == 0.7
    assert MODEL_0.step_us["net"]["tree"] == (11.8, 18.2, 20.8)
    assert MODEL_0.bw_ratio["two"]["ring"] == (0.04, 0.34, 1.00)
    for model in MODELS.values():
        for table in (model.tree_correction, model.ring_correction):
            assert {len(row) for row in table.values()} == {27}


def test_version_from_software_ccl_version():
    assert tables_for("rccl", "2.18.3").label == "rccl-2.18"
    assert tables_for("rccl", "2.20.5").label == "rccl-2.20"
    assert tables_for("rccl", "rccl-2.21").label == "rccl-2.21"
    assert tables_for("rccl", "2.7.8").label == "rccl-2.7"
    tables, _, notes = library_setup(_versioned("lumi-g", "2.21.5"), "rccl")
    assert tables.label == "rccl-2.21" and tables.step["net"]["ring"][0] == pytest.approx(
        9.5 * US)
    assert any("tuning model 3" in note for note in notes)


def test_node_types_of_the_presets():
    # HPE Cray EX235a: 8 GCDs, NICs shared by GCD pairs (4), each GCD linked to 3 others
    # (rome_model_74's pattern, tuning=3); MI300A: 4 APUs, 4 NICs, all pairs linked
    # (rome_model_80, no tuning option: model 0); a DGX is no AMD node type
    assert node_signature(load_machine("lumi-g")) == ("cdna2", 8, 4, 3)
    assert node_type(*node_signature(load_machine("frontier"))).tuning == 3
    assert node_type(*node_signature(load_machine("el-capitan"))).tuning == 0
    assert node_type(*node_signature(load_machine("dgx-h100"))) is None
    # four GCDs of a node (two modules, two NICs): no known type, RCCL's model 0
    assert node_type(*node_signature(load_machine("lumi-g"), 4)) is None
    tables, _, _ = library_setup(_versioned("lumi-g", "2.21.5"), "rccl", 4)
    assert tables.step["net"]["ring"][0] == pytest.approx(9.5 * US)  # model 0's 9.5 too
    assert tables.step["net"]["tree"][0] == pytest.approx(11.8 * US)  # model 3 says 12.5


def test_small_allreduce_on_one_lumi_g_node_by_version():
    # icnperf's ring LL on 8 GCDs, 8 bytes: base + 14 steps x the stated xGMI (NVLink row)
    # step: rccl-2.21 12 + 14 x 0.8 = 23.2 us; rccl-2.7 20.5 + 14 x 2.3 = 52.7 us; plus
    # 8 B x 1.75 / (0.5 x 144 GB/s)
    tail = 1.75 * 8 / 72e9
    for version, expected in (("2.21.5", 23.2e-6), ("2.7.8", 52.7e-6)):
        rows, _ = ccl_collective(_versioned("lumi-g", version), "allreduce", [1], [8.0],
                                 "auto", "rccl")
        (auto,) = [r for r in rows if r["algorithm"] == "auto"]
        assert auto["pick"] == "rccl-ring/LL"
        assert auto["time_s"] == pytest.approx(expected + tail)


def test_rccl_2_21_picks_the_tree_on_two_lumi_g_nodes_by_hand():
    # 16 GCDs, 128 MiB, tuning model 3, the search's bandwidth B_up = 144 GB/s (2 nodes):
    # tree Simple: 144 x 1.75 x 0.5 x 0.8 (correction [21]) = 100.8 GB/s,
    #   latency 17 + 2 (7 x 2.5 + 1 x 22.4) = 96.8 us
    # ring Simple: 144 x 1.0 x 16/30 x 1.0 = 76.8 GB/s,
    #   latency 17 + 26 x max(3.6, 3 x 2 us AMD net overhead) + 4 x 19.8 = 252.2 us
    # so RCCL 2.21 runs the tree where the 2.7-era model ran the ring
    size = 2.0 ** 27
    fabric = ccl_fabric(load_machine("lumi-g"), 2)
    new, _, _ = library_setup(_versioned("lumi-g", "2.21.5"), "rccl")
    pick = library_choice(new, fabric, "allreduce", size, "rccl", 16)
    assert (pick.algorithm, pick.protocol) == ("tree", "Simple")
    assert pick.estimate == pytest.approx(96.8e-6 + size / 100.8e9)
    old, _, _ = library_setup(_versioned("lumi-g", "2.7.8"), "rccl")
    assert library_choice(old, fabric, "allreduce", size, "rccl", 16)[:2] == ("ring",
                                                                              "Simple")


def test_mi300_rules_change_the_pick_between_versions():
    # one El Capitan node (4 APUs, B_up 6 x 48 = 288 GB/s), tuning model 0:
    # all-reduce 1 MiB: tree Simple 17 + 2 x 3 x 2.5 = 32 us + S / (288 x 0.91 x 0.5 x 1.0)
    # = 40.0 us beats ring Simple 17 + 6 x 3.6 = 38.6 us + S / (288 x 4/6) = 44.1 us in
    # 2.18; 2.20 no longer runs the tree with Simple on one MI300 node: ring Simple
    # broadcast 128 KiB: ring LL 12 + 0.8 us + S / (288 x 0.04) GB/s = 24.2 us against
    # Simple 17 + 3.6 + S / 288 = 21.1 us in 2.18; 2.20's x 1.65 on LL: 19.7 us, LL
    fabric = ccl_fabric(load_machine("el-capitan"), 1)
    mib, kib128 = 2.0 ** 20, 2.0 ** 17
    t18, _, _ = library_setup(_versioned("el-capitan", "2.18.3"), "rccl")
    t20, _, _ = library_setup(_versioned("el-capitan", "2.20.5"), "rccl")
    pick = library_choice(t18, fabric, "allreduce", mib, "rccl", 16)
    assert (pick.algorithm, pick.protocol) == ("tree", "Simple")
    assert pick.estimate == pytest.approx(32e-6 + mib / (288e9 * 0.91 * 0.5))
    pick = library_choice(t20, fabric, "allreduce", mib, "rccl", 16)
    assert (pick.algorithm, pick.protocol) == ("ring", "Simple")
    assert pick.estimate == pytest.approx(38.6e-6 + mib / 192e9)
    pick = library_choice(t18, fabric, "broadcast", kib128, "rccl", 16)
    assert (pick.protocol, pick.estimate) == ("Simple", pytest.approx(20.6e-6 + kib128 / 288e9))
    pick = library_choice(t20, fabric, "broadcast", kib128, "rccl", 16)
    assert (pick.protocol, pick.estimate) == ("LL", pytest.approx(
        12.8e-6 + kib128 / (288e9 * 0.04 * 1.65)))


def test_a_protocol_the_node_model_does_not_run_is_not_priced():
    # tuning model 3 states no LL128 (bandwidth ratio 0, latency 0): no LL128 row on LUMI-G;
    # model 0 (El Capitan) has LL128 ratios, so LL128 is priced there though not picked
    fabric = ccl_fabric(load_machine("lumi-g"), 2)
    tables, _, _ = library_setup(_versioned("lumi-g", "2.21.5"), "rccl")
    rows = evaluate_all(fabric, tables, "allreduce", [1e6], "rccl")
    assert {(r.algorithm, r.protocol) for r in rows} == {
        ("ring", "LL"), ("ring", "Simple"), ("tree", "LL"), ("tree", "Simple")}
    capitan, _, _ = library_setup(_versioned("el-capitan", "2.21.5"), "rccl")
    f = form(ccl_fabric(load_machine("el-capitan"), 1), capitan, "allreduce", "ring", "LL128")
    assert f.latency == pytest.approx(12e-6 + 6 * 2.2e-6)


def test_the_amd_presets_name_rccl_2_20_and_their_node_models():
    # lumi-g, frontier, el-capitan state RCCL 2.20.5 (ROCm 6.2, their centres' 2025 modules):
    # rccl-2.20's tables, tuning model 3 on the EX235a node, 0 on the MI300A node; one
    # LUMI-G node's 8-byte all-reduce 12 + 14 x 0.8 us + 8 B x 1.75 / 72 GB/s by hand
    for name, model in (("lumi-g", 3), ("frontier", 3), ("el-capitan", 0)):
        machine = load_machine(name)
        assert machine.get("software.ccl_version") == "2.20.5"
        tables, _, notes = library_setup(machine, "rccl")
        assert tables.label == "rccl-2.20"
        assert any(f"tuning model {model}" in note for note in notes)
    rows, _ = ccl_collective(load_machine("lumi-g"), "allreduce", [1], [8.0], "auto", "rccl")
    (auto,) = [r for r in rows if r["algorithm"] == "auto"]
    assert auto["time_s"] == pytest.approx(23.2e-6 + 1.75 * 8 / 72e9)
