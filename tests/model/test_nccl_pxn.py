"""PXN (model/collectives/nccl_pxn.py): where NCCL relays inter-node data through the GPU
of the NIC's rail, and what the forms add for it, worked out by hand."""

from __future__ import annotations

import pytest

from icnperf.data.machine import load_machine
from icnperf.model.collectives.nccl import EFFICIENCY, form
from icnperf.model.collectives.nccl_api import ccl_collective
from icnperf.model.collectives.nccl_fabric import ccl_fabric
from icnperf.model.collectives.nccl_pxn import pxn_route
from icnperf.model.collectives.nccl_tables import tables_for


def _fabric(name: str, nodes: int, *overrides: str):
    return ccl_fabric(load_machine(name).with_overrides(list(overrides)), nodes)


def test_where_nccl_relays():
    two = _fabric("dgx-h100", 2, "node.scaleup_latency=2us")
    ring = pxn_route(two, True, "allreduce", "ring")
    assert ring.applies and ring.rail_aligned and ring.relay_latency == pytest.approx(2e-6)
    assert pxn_route(two, True, "sendrecv", "p2p").applies
    # the balanced tree: the sends down to the children (half the inter-node steps) only
    tree = pxn_route(two, True, "allreduce", "tree")
    assert tree.applies and tree.relayed_steps == 0.5 and ring.relayed_steps == 1.0
    # not: CollNet and PAT; one node; RCCL's default off; NICs on the host's root complex
    # (Perlmutter's path); one NIC for the whole node
    assert not pxn_route(two, True, "allreduce", "collnet").applies
    assert not pxn_route(_fabric("dgx-h100", 1), True, "allreduce", "ring").applies
    assert not pxn_route(two, False, "allreduce", "ring").applies
    assert not pxn_route(_fabric("perlmutter", 2), True, "alltoall", "p2p").applies
    one_nic = _fabric("dgx-h100", 2, "node.gpu_nics=0 0 0 0 0 0 0 0")
    assert not pxn_route(one_nic, True, "allreduce", "ring").applies
    assert not pxn_route(two, tables_for("rccl", "2.21").pxn, "allreduce", "ring").applies
    assert tables_for("nccl").pxn and not tables_for("rccl", "2.7").pxn


def test_alltoall_relayed_fraction():
    # DGX H100, NVSwitch: GPU g reaches every other rail's GPU, 7 of 8 local indices
    relay = pxn_route(_fabric("dgx-h100", 2), True, "alltoall", "p2p")
    assert relay.relayed_fraction == pytest.approx(7 / 8) and relay.rail_aligned
    # MI250X links (were PXN on): GCD 0's other-NIC GCDs are 2..7, linked to it 2 and 6;
    # GCD 1 likewise 3 and 7 (its links 1-3, 1-7); so 2 of 8 relayed, the rest cross rails
    lumi = pxn_route(_fabric("lumi-g", 2), True, "alltoall", "p2p")
    assert lumi.relayed_fraction == pytest.approx(2 / 8) and not lumi.rail_aligned


def test_the_forms_take_the_relay():
    # two DGX H100 nodes with a 3 us scale-up hop: ring LL all-reduce, 16 GPUs:
    # L0 6.6 + 2 (N - n) = 28 steps x max(0.6, 3) + 2 (n - 1) = 2 steps x max(2.7, h + 3),
    # h the hardware network path (NICs, switches, links: under 1 us on the preset)
    fabric = _fabric("dgx-h100", 2, "node.scaleup_latency=3us")
    nccl = tables_for("nccl")
    h = fabric.net_latency
    assert 0 < h < 1e-6
    f = form(fabric, nccl, "allreduce", "ring", "LL")
    assert f.latency == pytest.approx(6.6e-6 + 28 * 3e-6 + 2 * (h + 3e-6))
    # the tree with a 5 us hop: L0 6.8 + 2 (g - 1) = 14 chain steps x max(0.6, 5) + lg n = 1
    # step up at max(5.0 stated, h) and 1 step down relayed at max(5.0, h + 5)
    tree = _fabric("dgx-h100", 2, "node.scaleup_latency=5us")
    f = form(tree, nccl, "allreduce", "tree", "LL")
    assert f.latency == pytest.approx(6.8e-6 + 14 * 5e-6 + 5.0e-6 + (h + 5e-6))
    # NICs through the host: no relay, the stated 2.7 us bounds the step
    host = _fabric("dgx-h100", 2, "node.scaleup_latency=3us", "node.gpu_nic_path=cpu")
    f = form(host, nccl, "allreduce", "ring", "LL")
    assert f.latency == pytest.approx(6.6e-6 + 28 * 3e-6 + 2 * 2.7e-6)
    # all-to-all's scale-up term: ((g-1)/N + 7/8 (N-g)/N) = (7 + 7) / 16 of S, / e
    f = form(_fabric("dgx-h100", 2), nccl, "alltoall", "p2p", "Simple")
    assert f.terms[0][0] == pytest.approx(14 / 16 / EFFICIENCY["Simple"])
    f = form(host, nccl, "alltoall", "p2p", "Simple")
    assert f.terms[0][0] == pytest.approx(7 / 16)


def test_the_note_says_so_only_where_it_applies():
    _, notes = ccl_collective(load_machine("dgx-h100"), "alltoall", [1, 2], [1e6], "auto",
                              "nccl")
    assert any(note.startswith("PXN (p2p across domains)") for note in notes)
    _, notes = ccl_collective(load_machine("dgx-h100"), "alltoall", [1], [1e6], "auto",
                              "nccl")
    assert not any("PXN" in note for note in notes)
    _, notes = ccl_collective(load_machine("lumi-g"), "allreduce", [2], [1e6], "auto", "rccl")
    assert not any("PXN" in note for note in notes)
