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
from icnperf.model.collectives.nccl_choice import library_choice, p2p_channels, p2p_protocol
from icnperf.model.collectives.nccl_fabric import (best_ring_bandwidth, ccl_fabric,
                                                   ring_packing_bandwidth)
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


def test_frontier_rings_pack_the_xgmi_links():
    # MI250X's 8 GCDs. The cut {0,1,6,7} | {2,3,4,5} is crossed by four 1-link pairs (0-2,
    # 1-3, 4-6, 5-7) and every ring crosses it at least twice: at most 2 links' worth of
    # rings one way round. Two rings reach it: 0-2-3-5-4-6-7-1 and 0-6-7-5-4-2-3-1 (the
    # 4-link pairs carry both, the 2-link pairs one each). Each also runs reversed: 4 links
    # per GCD per direction at RCCL's stated 36 GB/s per MI200 link (of 50 nominal)
    fabric = ccl_fabric(load_machine("frontier"), 1)
    assert fabric.link_efficiency == pytest.approx(36 / 50)
    assert fabric.scaleup_bandwidth == pytest.approx(4 * 36e9)
    assert fabric.per_domain == 8 and fabric.domain_nics == 4


def test_ring_packing_on_small_meshes_by_hand():
    # K4 with c per pair: its 3 Hamiltonian rings each hold 2 of a GPU's 3 pairs, each pair is
    # in 2 rings: c/2 per ring, 3c/2 one way round, 3c both ways = every link out of a GPU
    k4 = {(a, b): 10.0 for a in range(4) for b in range(a + 1, 4)}
    assert ring_packing_bandwidth(k4, 4) == pytest.approx(30.0)
    # a 4-cycle 0-1-2-3 with pair 2-3 thin: the one ring at the thin pair, both ways
    square = {(0, 1): 5.0, (1, 2): 5.0, (2, 3): 1.0, (0, 3): 5.0}
    assert ring_packing_bandwidth(square, 4) == pytest.approx(2.0)
    # no ring over the links (a star): 0; two GPUs: their pair
    assert ring_packing_bandwidth({(0, 1): 1.0, (0, 2): 1.0, (0, 3): 1.0}, 4) == 0.0
    assert ring_packing_bandwidth({(0, 1): 7.0}, 2) == 7.0


def test_el_capitan_four_apus_use_every_link():
    # 4 MI300A joined all-to-all by 2 links per pair: K4 -> 3 x 2 links per direction at
    # RCCL's stated 48 GB/s per gfx94x link
    fabric = ccl_fabric(load_machine("el-capitan"), 1)
    assert fabric.scaleup_bandwidth == pytest.approx(6 * 48e9)


def test_dgx_h100_fabric_by_hand():
    fabric = ccl_fabric(load_machine("dgx-h100"), 4)
    assert (fabric.ranks, fabric.domains, fabric.per_domain) == (32, 4, 8)
    # 18 NVLink4 links at NCCL's stated 20.6 GB/s each (topo.h SM90_NVLINK_BW)
    assert fabric.scaleup_bandwidth == pytest.approx(18 * 20.6e9)
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
    # + 2*7/8 * 1 GiB / (18 links x 20.6 GB/s): busbw tends to 370.8 GB/s
    fabric = ccl_fabric(load_machine("dgx-h100"), 1)
    t = form(fabric, tables_for("nccl"), "allreduce", "ring", "Simple").time([GIB])[0]
    assert t == pytest.approx(8.4e-6 + 14 * 3.4e-6 + 1.75 * GIB / 370.8e9)


def test_ring_on_one_a100_node_is_nccl_link_rate():
    # 12 NVLink3 links at NCCL's 20.0 GB/s (topo.h SM80_NVLINK_BW): 240 GB/s; at 8 GiB the
    # ring Simple's busbw = 1.75 S / t
    fabric = ccl_fabric(load_machine("dgx-a100"), 1)
    s = 8 * GIB
    t = form(fabric, tables_for("nccl"), "allreduce", "ring", "Simple").time([s])[0]
    assert t == pytest.approx(8.4e-6 + 14 * 3.4e-6 + 1.75 * s / 240e9)


def test_nvls_allreduce_by_hand():
    # one DGX H100: (8+1)/8 S over 0.85 x 370.8 GB/s after the 25 us NVLS step; the busbw
    # bound 1.75 x 8/9 x 315.18 = 490.3 GB/s
    fabric = ccl_fabric(load_machine("dgx-h100"), 1)
    f = form(fabric, tables_for("nccl"), "allreduce", "nvls", "Simple")
    s = 8 * GIB
    assert f.time([s])[0] == pytest.approx(25e-6 + 9 / 8 * s / (0.85 * 370.8e9))
    assert 1.75 * 8 / 9 * 0.85 * 370.8 == pytest.approx(490.3, abs=0.05)


def test_ring_allreduce_ll_across_nodes_by_hand():
    # 4 nodes: 2(32-4)=56 NVLink steps of max(0.6 us stated, 1 us posting a network operation
    # on Intel hosts: the ring spans nodes), 2*3 network steps of max(2.7 us, 0.87 us),
    # base 6.6 us; LL halves the rate, B_r = min(18 x 20.6, 8 x 50) GB/s, but NCCL's LL
    # ceiling across more than 2 nodes of Intel hosts, 20.4 GB/s of busbw, binds:
    # t >= 2 x 31/32 x S / 20.4 GB/s (95 us) > 2 x 31/32 x S / 185.4 GB/s (10 us)
    fabric = ccl_fabric(load_machine("dgx-h100"), 4)
    t = form(fabric, tables_for("nccl"), "allreduce", "ring", "LL").time([1e6])[0]
    expected = 6.6e-6 + 56 * 1.0e-6 + 6 * 2.7e-6 + 2 * 31 / 32 * 1e6 / 20.4e9
    assert t == pytest.approx(expected)


def test_ll_ceiling_on_one_node_by_generation():
    # one DGX H100, ring LL at 1 MiB: e B_up = 0.5 x 370.8 = 185.4 GB/s is above Hopper's
    # stated single-node LL ceiling, 141 GB/s of busbw, so busbw tends to 141; DGX A100:
    # 0.5 x 240 = 120 GB/s is above Ampere's 87.7
    s = 2.0 ** 20
    for machine, ceiling in (("dgx-h100", 141e9), ("dgx-a100", 87.7e9)):
        fabric = ccl_fabric(load_machine(machine), 1)
        f = form(fabric, tables_for("nccl"), "allreduce", "ring", "LL")
        assert f.time([s])[0] - f.latency == pytest.approx(1.75 * s / ceiling)
    # RCCL's tables state no ceiling: LL is e B_up alone (LUMI-G: 0.5 x 144 GB/s)
    fabric = ccl_fabric(load_machine("lumi-g"), 1)
    for version in ("2.7", "2.21"):
        f = form(fabric, tables_for("rccl", version), "allreduce", "ring", "LL")
        assert f.time([s])[0] - f.latency == pytest.approx(1.75 * s / 72e9)


def test_tree_network_term_is_twice_the_message():
    fabric = ccl_fabric(load_machine("dgx-h100"), 8)
    f = form(fabric, tables_for("nccl"), "allreduce", "tree", "Simple")
    big = 64 * GIB
    # bandwidth part: max(2 S / 370.8 GB/s, 2 S / 400 GB/s) = 2 S / 370.8 GB/s
    assert f.time([big])[0] - f.latency == pytest.approx(2 * big / 370.8e9)


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
    # NCCL's own estimates at 1 GiB on one DGX H100 (16 channels), its bwIntra the 18
    # links x 20.6 GB/s = 370.8 GB/s, by hand:
    # ring Simple 8.4 + 14 x 3.4 us + S / (370.8 x 8/14 GB/s) = 5.13 ms
    # tree Simple 8.4 + 2 x 7 x 4.0 us + S / (min(370.8 x .92, 16 x 38.7) x .5) = 6.36 ms
    # NVLS: min(370.8 x .85 x 15/16 x 2, the inter bandwidth, on one node the same 370.8)
    # GB/s x 8/14: 25 us + S / (370.8 x 8/14 GB/s), below the ring by its latency
    fabric = ccl_fabric(load_machine("dgx-h100"), 1)
    pick = library_choice(tables_for("nccl"), fabric, "allreduce", GIB, "nccl", 16)
    assert (pick.algorithm, pick.protocol) == ("nvls", "Simple")
    bw = min(370.8e9 * 0.85 * 15 / 16 * 2, 370.8e9) * 8 / 14
    assert pick.estimate == pytest.approx(25e-6 + GIB / bw)


def test_nccl_picks_ring_ll_for_a_small_single_node_allreduce():
    # 1 KiB: ring LL = 6.6 + 14 x 0.6 us + 1024 / min(141 GB/s, 370.8 x .5) x 8/14 ~ 15 us,
    # below tree LL's 6.8 + 2 x 7 x 0.6 = 15.2 us plus its bandwidth term
    fabric = ccl_fabric(load_machine("dgx-h100"), 1)
    pick = library_choice(tables_for("nccl"), fabric, "allreduce", 1024.0, "nccl", 16)
    assert (pick.algorithm, pick.protocol) == ("ring", "LL")
    bw = min(141e9, 370.8e9 * 0.5) * 8 / 14
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
    # the NVLink row) + S / (144 GB/s x 8/14), 144 GB/s the packed rings (4 links x 36 GB/s,
    # test above); its tree and ring LL are capped lower, both slower; LL128 is off on AMD
    fabric = ccl_fabric(load_machine("frontier"), 1)
    pick = library_choice(tables_for("rccl", "2.7"), fabric, "allreduce", GIB, "rccl", 16)
    assert (pick.algorithm, pick.protocol) == ("ring", "Simple")
    assert pick.estimate == pytest.approx(27.9e-6 + 14 * 2.7e-6 + GIB / (144e9 * 8 / 14))



def test_sendrecv_shift_uses_one_pair_not_the_rings():
    # nccl-tests' shift r -> r+1 on MI250X: GCDs 1 and 2 share no xGMI link, so that pair
    # goes through the host at node.gpu_host_bandwidth 36 GB/s, below every linked pair
    # (0-1: 4 x 36); El Capitan's APUs pair by 2 links x 48 GB/s = 96 GB/s
    fabric = ccl_fabric(load_machine("lumi-g"), 1)
    assert fabric.shift_bandwidth == pytest.approx(36e9)
    f = form(fabric, tables_for("rccl"), "sendrecv", "p2p", "Simple")
    assert f.time([GIB])[0] - f.latency == pytest.approx(GIB / 36e9)
    assert ccl_fabric(load_machine("el-capitan"), 1).shift_bandwidth == pytest.approx(96e9)


def _chain_load(chains, links, share):
    """The most bytes per byte of link rate on any link direction when each chain moves
    ``share`` up and ``share`` down (both directions of each of its pairs): brute force."""
    load = {}
    for chain in chains:
        for a, b in zip(chain, chain[1:]):
            pair = (min(a, b), max(a, b))
            load[pair] = load.get(pair, 0.0) + share
    return max(bytes_ / links[pair] for pair, bytes_ in load.items())


def test_rccl_mi250x_chains_load_their_links_as_two_s_over_b_up():
    # RCCL's tree channels on an HPE Cray EX235a node are its ring list opened into chains
    # (rome_model_74, RCCL 2.21 rome_models.cc): 0 1 5 4 6 7 3 2, its reverse, 7 6 0 1 3 2 4
    # 5 and its reverse, each twice, S/8 a channel; links per pair from the model's matrix
    links74 = {(0, 1): 4, (2, 3): 4, (4, 5): 4, (6, 7): 4, (0, 6): 2, (2, 4): 2, (0, 2): 1,
               (4, 6): 1, (1, 3): 1, (1, 5): 1, (3, 7): 1, (5, 7): 1}
    forward = [(0, 1, 5, 4, 6, 7, 3, 2), (7, 6, 0, 1, 3, 2, 4, 5)]
    chains = [c for c in forward for _ in range(2)] + [c[::-1] for c in forward
                                                         for _ in range(2)]
    # the single links 1-5, 4-6, 3-7 (chain one) and 1-3 (chain two) carry 4 x S/8 a way
    assert _chain_load(chains, links74, 1 / 8) == pytest.approx(0.5)
    # the rings those chains come from pack to 4 links a GCD per direction (both ways):
    # S/2 over one link is 2 S over B_up, the tree form's k = 2
    b_up = ring_packing_bandwidth(links74, 8)
    assert b_up == pytest.approx(4.0)
    assert 2 / b_up == pytest.approx(_chain_load(chains, links74, 1 / 8))


def test_tree_chain_on_one_lumi_g_node_is_two_s_over_b_up():
    # 8 GCDs, B_up = 144 GB/s (the packed rings both ways): a chain GCD sends S up and S
    # down, 2 S / 144 GB/s; not S / 144 (the rings' reverses are the chains' own links)
    fabric = ccl_fabric(load_machine("lumi-g"), 1)
    s = 64 * GIB
    for version in ("2.7", "2.21"):
        f = form(fabric, tables_for("rccl", version), "allreduce", "tree", "Simple")
        assert f.time([s])[0] - f.latency == pytest.approx(2 * s / 144e9)


def test_tree_on_two_lumi_g_nodes_is_bound_by_the_chain_not_the_nics():
    # n = 2: the double binary tree sends S through a node's four 25 GB/s NICs (S / 100
    # GB/s); the chain 2 S / 144 GB/s = S / 72 GB/s is the longer
    fabric = ccl_fabric(load_machine("lumi-g"), 2)
    s = 64 * GIB
    f = form(fabric, tables_for("rccl", "2.21"), "allreduce", "tree", "Simple")
    assert f.time([s])[0] - f.latency == pytest.approx(max(2 * s / 144e9, s / 100e9))
    assert f.time([s])[0] - f.latency == pytest.approx(s / 72e9)


def test_a_chain_of_two_gpus_sends_s_each():
    # g = 2: the two GPUs are the chain's ends, each sends S (leaf up, root down): k = 1.
    # LUMI-G GCDs 0 and 1 share 4 links x 36 GB/s; a DGX H100 GPU's port 18 x 20.6 GB/s
    s = 64 * GIB
    lumi = ccl_fabric(load_machine("lumi-g"), 1, 2)
    f = form(lumi, tables_for("rccl", "2.21"), "allreduce", "tree", "Simple")
    assert f.time([s])[0] - f.latency == pytest.approx(s / 144e9)
    dgx = ccl_fabric(load_machine("dgx-h100"), 1, 2)
    f = form(dgx, tables_for("nccl"), "allreduce", "tree", "Simple")
    assert f.time([s])[0] - f.latency == pytest.approx(s / 370.8e9)


def test_p2p_ll_carries_at_most_16_kib_a_peer_over_nvlink_and_the_network():
    # NCCL 2.30 addP2pToPlan: a peer's message goes in parts of >= 128 KiB / 2 = 64 KiB
    # across nodes (512 KiB / 8 = 64 KiB over NVLink on one node), so a 16 KiB or smaller
    # message is one part and LL (<= 1 x 16384), and 32 KiB is one part, above 16384: Simple.
    # All-to-all of 16 GPUs on 2 DGX H100 nodes: 256 KiB is 16 KiB a peer (LL), 512 KiB is
    # 32 KiB (Simple), 1 MiB is 64 KiB (one part: Simple; the collective channels x 16 KiB
    # = 256 KiB would have kept LL)
    tables = tables_for("nccl")
    two = ccl_fabric(load_machine("dgx-h100"), 2)
    kib = 1024.0
    picks = [library_choice(tables, two, "alltoall", s * kib, "nccl", 16).protocol
             for s in (256, 512, 1024)]
    assert picks == ["LL", "Simple", "Simple"]
    one = ccl_fabric(load_machine("dgx-h100"), 1)
    assert library_choice(tables, one, "sendrecv", 16 * kib, "nccl", 16).protocol == "LL"
    assert library_choice(tables, one, "sendrecv", 16 * kib + 1, "nccl", 16).protocol \
        == "Simple"


def test_p2p_ll_over_pcie_on_one_node_spans_the_channels():
    # over PCIe on one node a part is >= 128 KiB / 8 = 16 KiB: 64 KiB is ceil(64/16) = 4
    # parts, LL with 16 channels (64 KiB <= 4 x 16 KiB), Simple with 2 (64 > 2 x 16 KiB)
    fabric = ccl_fabric(load_machine("dgx-h100"), 1)._replace(link="pci")
    kib = 1024.0
    assert p2p_channels(fabric, 64 * kib, 16) == 4
    assert p2p_protocol(fabric, 64 * kib, 16) == "LL"
    assert p2p_channels(fabric, 64 * kib, 2) == 2
    assert p2p_protocol(fabric, 64 * kib, 2) == "Simple"


def test_alltoall_latency_posts_each_remote_peer():
    # 2 DGX H100 nodes (Intel hosts, NCCL's stated posting overhead 1 us): a GPU's 16 - 8 = 8
    # remote peers; the first costs NCCL's ring network step (LL 2.7 us), each of the other
    # 7 one more posting: LL 6.6 + 2.7 + 7 x 1 = 16.3 us; Simple 8.4 + 14 + 7 x 3 = 43.4 us
    tables = tables_for("nccl")
    two = ccl_fabric(load_machine("dgx-h100"), 2)
    assert form(two, tables, "alltoall", "p2p", "LL").latency == pytest.approx(16.3e-6)
    assert form(two, tables, "alltoall", "p2p", "Simple").latency == pytest.approx(43.4e-6)
    # 16 nodes: 120 remote peers, 6.6 + 2.7 + 119 x 1 = 128.3 us; one node posts nothing on
    # the network: 6.6 + 0.6 (NVLink ring LL step) = 7.2 us
    sixteen = ccl_fabric(load_machine("dgx-h100"), 16)
    assert form(sixteen, tables, "alltoall", "p2p", "LL").latency == pytest.approx(128.3e-6)
    one = ccl_fabric(load_machine("dgx-h100"), 1)
    assert form(one, tables, "alltoall", "p2p", "LL").latency == pytest.approx(7.2e-6)
    # a whole NVL72 rack is one domain: 72 GPUs, no remote peer
    rack = ccl_fabric(load_machine("gb200-nvl72"), 18)
    assert form(rack, tables, "alltoall", "p2p", "LL").latency == pytest.approx(7.2e-6)


def test_ring_steps_across_nodes_cost_at_least_a_network_posting():
    # NCCL's estimate floors a ring's steps across nodes at the posting: 16 DGX H100 nodes
    # (Intel, 1 us; x 3 with Simple), all-gather of 128 GPUs, 127 - 15 = 112 NVLink steps:
    # LL 6.6 + 112 x max(0.6, 1) + 15 x 2.7 = 159.1 us (= NCCL's own estimate), Simple
    # 8.4 + 112 x max(3.4, 3) + 15 x 14 = 599.2 us (the stated NVLink step still binds); DGX
    # A100 (AMD hosts, 2 us) 2 nodes LL 6.6 + 14 x 2 + 2.7 = 37.3 us; one node keeps 0.6:
    # 6.6 + 7 x 0.6 = 10.8 us; broadcast's chain is not floored: 6.6 + 112 x 0.6 + 15 x 2.7
    tables = tables_for("nccl")
    h100 = ccl_fabric(load_machine("dgx-h100"), 16)
    assert form(h100, tables, "allgather", "ring", "LL").latency == pytest.approx(159.1e-6)
    assert form(h100, tables, "allgather", "ring", "Simple").latency == pytest.approx(599.2e-6)
    assert form(h100, tables, "broadcast", "ring", "LL").latency == pytest.approx(114.3e-6)
    a100 = ccl_fabric(load_machine("dgx-a100"), 2)
    assert form(a100, tables, "reducescatter", "ring", "LL").latency == pytest.approx(37.3e-6)
    one = ccl_fabric(load_machine("dgx-h100"), 1)
    assert form(one, tables, "allgather", "ring", "LL").latency == pytest.approx(10.8e-6)
