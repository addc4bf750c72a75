"""NCCL/RCCL closed forms, the fabric they run on and the library's own choice, against
values worked out by hand from the sources' numbers and brute force."""

from __future__ import annotations

import itertools
import random

import pytest

from icnperf.data.machine import load_machine
from icnperf.errors import InputError
from icnperf.model.collectives.nccl import (BUS_FACTOR, available, bandwidths,
                                            evaluate_all, form)
from icnperf.model.collectives.nccl_api import ccl_collective
from icnperf.model.collectives.nccl_choice import library_choice
from icnperf.model.collectives.nccl_fabric import best_ring_bandwidth, ccl_fabric
from icnperf.model.collectives.nccl_tables import tables_for

GIB = 2.0 ** 30


def _brute_ring(pair, gpus):
    best = 0.0
    for order in itertools.permutations(range(1, gpus)):
        ring = (0, *order, 0)
        best = max(best, min(pair(a, b) for a, b in zip(ring, ring[1:])))
    return best


def test_best_ring_matches_brute_force_on_random_tables():
    rng = random.Random(7)
    for gpus in (3, 4, 5, 6, 7):
        table = {(a, b): rng.choice([0.0, 1.0, 2.0, 3.0, 4.0])
                 for a in range(gpus) for b in range(a + 1, gpus)}

        def pair(a, b, table=table):
            return table[(min(a, b), max(a, b))]

        assert best_ring_bandwidth(pair, gpus) == _brute_ring(pair, gpus)


def test_frontier_ring_is_one_xgmi_link():
    # MI250X's 8 GCDs: every ring must use some 1-link pair (brute force on the table)
    fabric = ccl_fabric(load_machine("frontier"), 1)
    assert fabric.scaleup_bandwidth == pytest.approx(50e9)
    assert fabric.per_domain == 8 and fabric.domain_nics == 4


def test_dgx_h100_fabric_by_hand():
    fabric = ccl_fabric(load_machine("dgx-h100"), 4)
    assert (fabric.ranks, fabric.domains, fabric.per_domain) == (32, 4, 8)
    assert fabric.scaleup_bandwidth == pytest.approx(450e9)
    assert fabric.net_bandwidth == pytest.approx(8 * 50e9)  # 8 NDR ports of 50 GB/s
    assert fabric.nvls and not fabric.collnet


def test_nvl72_domain_spans_trays():
    fabric = ccl_fabric(load_machine("gb200-nvl72"), 18)
    assert (fabric.domains, fabric.per_domain) == (1, 72)
    fabric = ccl_fabric(load_machine("gb200-nvl72"), 36)
    assert (fabric.domains, fabric.per_domain) == (2, 72)
    assert fabric.domain_nics == 72  # 18 trays x 4 NICs


def test_ring_allreduce_simple_by_hand():
    # dgx-h100, one node: base 8.4 us + 14 steps x NVLink ring Simple 3.4 us
    # + 2*7/8 * 1 GiB / 450 GB/s
    fabric = ccl_fabric(load_machine("dgx-h100"), 1)
    t = form(fabric, tables_for("nccl"), "allreduce", "ring", "Simple").time([GIB])[0]
    assert t == pytest.approx(8.4e-6 + 14 * 3.4e-6 + 1.75 * GIB / 450e9)


def test_ring_allreduce_ll_across_nodes_by_hand():
    # 4 nodes: 2(32-4)=56 NVLink steps of 0.6 us, 2*3 network steps of max(2.7 us, 0.87 us),
    # base 6.6 us; LL halves the rate; B_r = min(450, 400) GB/s
    fabric = ccl_fabric(load_machine("dgx-h100"), 4)
    t = form(fabric, tables_for("nccl"), "allreduce", "ring", "LL").time([1e6])[0]
    expected = 6.6e-6 + 56 * 0.6e-6 + 6 * 2.7e-6 + 2 * 31 / 32 * 1e6 / (0.5 * 400e9)
    assert t == pytest.approx(expected)


def test_tree_network_term_is_twice_the_message():
    fabric = ccl_fabric(load_machine("dgx-h100"), 8)
    f = form(fabric, tables_for("nccl"), "allreduce", "tree", "Simple")
    big = 64 * GIB
    # bandwidth part: max(2 S / 450 GB/s, 2 S / 400 GB/s) = 2 S / 400 GB/s
    assert f.time([big])[0] - f.latency == pytest.approx(2 * big / 400e9)


def test_busbw_factors_as_nccl_tests():
    assert BUS_FACTOR["allreduce"](8) == pytest.approx(1.75)
    assert BUS_FACTOR["allgather"](8) == pytest.approx(0.875)
    assert BUS_FACTOR["alltoall"](4) == pytest.approx(0.75)
    assert BUS_FACTOR["sendrecv"](64) == 1.0
    algbw, busbw = bandwidths("reducescatter", 16, [1e6], [1e-3])
    assert algbw[0] == pytest.approx(1e9) and busbw[0] == pytest.approx(15 / 16 * 1e9)


def test_rccl_has_no_nvls_and_no_pat():
    machine = load_machine("dgx-h100")
    fabric = ccl_fabric(machine, 1)
    assert available("nvls", "allreduce", fabric, "nccl") is None
    assert "NVLS" in available("nvls", "allreduce", fabric, "rccl")
    one_gpu = ccl_fabric(machine, 4, 1)
    assert available("pat", "allgather", one_gpu, "nccl") is None
    assert available("pat", "allgather", one_gpu, "rccl") is not None
    names = {r.algorithm for r in evaluate_all(fabric, tables_for("rccl"), "allreduce",
                                               [1e6], "rccl")}
    assert names == {"ring", "tree"}


def test_nccl_picks_nvls_for_a_large_single_node_allreduce():
    # NCCL's own estimates at 1 GiB on one DGX H100 (16 channels), by hand:
    # ring Simple 8.4 + 14 x 3.4 us + S / (450 x 8/14 GB/s) = 4.232 ms
    # tree Simple 8.4 + 2 x 7 x 4.0 us + S / (min(450 x .92, 16 x 38.7) x .5) = 5.251 ms
    # NVLS: min(450 x .85 x 15/16 x 2, the inter bandwidth, on one node the same 450) GB/s
    # x 8/14: 25 us + S / (450 x 8/14 GB/s) = 4.201 ms, below the ring by its latency
    fabric = ccl_fabric(load_machine("dgx-h100"), 1)
    pick = library_choice(tables_for("nccl"), fabric, "allreduce", GIB, "nccl", 16)
    assert (pick.algorithm, pick.protocol) == ("nvls", "Simple")
    bw = min(450e9 * 0.85 * 15 / 16 * 2, 450e9) * 8 / 14
    assert pick.estimate == pytest.approx(25e-6 + GIB / bw)


def test_nccl_picks_ring_ll_for_a_small_single_node_allreduce():
    # 1 KiB: ring LL = 6.6 + 14 x 0.6 us + 1024 / min(141 GB/s, 450 x .5 x 8/14...) ~ 15 us,
    # below tree LL's 6.8 + 2 x 7 x 0.6 = 15.2 us plus its bandwidth term
    fabric = ccl_fabric(load_machine("dgx-h100"), 1)
    pick = library_choice(tables_for("nccl"), fabric, "allreduce", 1024.0, "nccl", 16)
    assert (pick.algorithm, pick.protocol) == ("ring", "LL")
    bw = min(141e9, 450e9 * 0.5) * 8 / 14
    assert pick.estimate == pytest.approx(6.6e-6 + 14 * 0.6e-6 + 1024 / bw)


def test_auto_and_best_rows():
    rows, notes = ccl_collective(load_machine("dgx-h100"), "allreduce", [1, 4],
                                 [1e6, GIB], "all", "nccl")
    autos = [r for r in rows if r["algorithm"] == "auto"]
    bests = [r for r in rows if r["algorithm"] == "best"]
    assert len(autos) == len(bests) == 4
    for best in bests:
        same = [r for r in rows if r["nodes"] == best["nodes"] and r["bytes"] == best["bytes"]
                and r["algorithm"] not in ("auto", "best")]
        assert best["time_s"] == pytest.approx(min(r["time_s"] for r in same))
    for auto in autos:
        assert auto["time_s"] >= min(r["time_s"] for r in bests
                                     if r["nodes"] == auto["nodes"]
                                     and r["bytes"] == auto["bytes"]) * (1 - 1e-12)
        assert auto["busbw_Bps"] == pytest.approx(
            auto["bytes"] / auto["time_s"] * BUS_FACTOR["allreduce"](auto["gpus"]))


def test_bad_requests_are_input_errors():
    machine = load_machine("dgx-h100")
    with pytest.raises(InputError, match="one GPU"):
        ccl_fabric(machine, 1, 1)
    with pytest.raises(InputError, match="GPUs per node"):
        ccl_fabric(machine, 2, 9)
    with pytest.raises(InputError, match="unknown nccl algorithm"):
        ccl_collective(machine, "allreduce", [1], [1e6], "hw-tree", "nccl")
    with pytest.raises(InputError, match="has no GPUs"):
        ccl_fabric(load_machine("angara-4x4x4"), 2) if _has("angara-4x4x4") else \
            ccl_fabric(load_machine("fugaku"), 2)


def _has(name):
    try:
        load_machine(name)
    except InputError:
        return False
    return True


def test_rccl_picks_its_ring_simple_on_one_frontier_node_by_hand():
    # RCCL's 2.7-era estimate, 8 GCDs, 1 GiB: ring Simple 27.9 + 14 x 2.7 us (xGMI counts as
    # the NVLink row) + S / (50 GB/s x 8/14); its tree is capped at 50 x .27 x .5 GB/s and
    # ring LL at 50 / 5 x 8/14 GB/s, both slower; LL128 is off on AMD GPUs
    fabric = ccl_fabric(load_machine("frontier"), 1)
    pick = library_choice(tables_for("rccl"), fabric, "allreduce", GIB, "rccl", 16)
    assert (pick.algorithm, pick.protocol) == ("ring", "Simple")
    assert pick.estimate == pytest.approx(27.9e-6 + 14 * 2.7e-6 + GIB / (50e9 * 8 / 14))

