"""The rendezvous of a large point-to-point message (model/network/rendezvous.py): two more
one-way trips of a header-only packet above software.rendezvous_threshold, by hand on the
lumi preset, and nothing else moves."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.data.machine import load_machine
from icnperf.model.network import p2p_table
from icnperf.model.network.rendezvous import rendezvous_delay


def _columns(machine, sizes, **options):
    return p2p_table(machine, sizes, 0, **options).columns


def test_lumi_threshold_is_libfabric_cxi_eager_maximum():
    """16,384 (FI_CXI_RDZV_THRESHOLD) + 2,049 (FI_CXI_RDZV_GET_MIN) bytes."""
    lumi = load_machine("lumi")
    assert lumi.get("software.rendezvous_threshold") == 16384 + 2049
    assert lumi.spread("software.rendezvous_threshold").kind == "stated"
    assert "CXIP_RDZV_THRESHOLD" in lumi.source("software.rendezvous_threshold")


def test_two_header_trips_by_hand_at_zero_hops():
    """On one switch a header-only packet takes injection 400 ns + one switch 350 ns +
    ejection 400 ns + one 64-byte unit at 25 GB/s (2.56 ns): the rendezvous adds twice
    that, 2.305 us, to a message one byte over the threshold and to 4 MiB, not to one at
    it; the streaming bandwidth keeps no such term."""
    lumi = load_machine("lumi")
    plain = lumi.with_overrides(["software.rendezvous_threshold=1TB"])
    sizes = [8, 18433, 18434, 4194304]
    got, eager = _columns(lumi, sizes), _columns(plain, sizes)
    trip = 400e-9 + 350e-9 + 400e-9 + 64 / 25e9
    assert got["rendezvous_s"] == pytest.approx([0, 0, 2 * trip, 2 * trip], rel=1e-9)
    assert got["latency_s"] - eager["latency_s"] == pytest.approx(got["rendezvous_s"],
                                                                 abs=1e-15)
    assert got["streaming_bandwidth_Bps"] == pytest.approx(eager["streaming_bandwidth_Bps"])
    assert got["bandwidth_Bps"][3] < eager["bandwidth_Bps"][3]


def test_only_mpi_pays_it_and_it_grows_with_the_hops():
    """A SHMEM put and the bare hardware send in one go; over more switches each header
    trip crosses them too (two trips: twice the switches' 350 ns per hop)."""
    lumi = load_machine("lumi")
    shmem = lumi.with_overrides(["software.shmem_overhead=500ns"])
    for api in ("shmem", "none"):
        assert not _columns(shmem, [4194304], api=api)["rendezvous_s"].any()
    near = p2p_table(lumi, [4194304], 0).columns["rendezvous_s"][0]
    far = p2p_table(lumi, [4194304], 3).columns["rendezvous_s"][0]
    assert far - near == pytest.approx(2 * 3 * 350e-9, rel=1e-9)


def test_single_path_routing_pays_the_same_trips():
    """Minimal routing takes the single-path branch: at 2 hops a header-only packet crosses
    3 switches, 2 x (400 + 3 x 350 + 400 ns + 2.56 ns) = 3.705 us."""
    minimal = load_machine("lumi").with_overrides(["network.dragonfly_routing=minimal"])
    got = p2p_table(minimal, [8, 4194304], 2).columns["rendezvous_s"]
    assert got == pytest.approx([0, 2 * (400e-9 + 3 * 350e-9 + 400e-9 + 64 / 25e9)],
                                rel=1e-9)


def test_gpu_buffers_pay_it_and_machines_without_it_do_not():
    lumi_g = load_machine("lumi-g")
    gpu = p2p_table(lumi_g, [4194304], 0, buffers="gpu").columns["rendezvous_s"][0]
    assert gpu > 0
    for name in ("piz-daint", "fugaku", "simgrid-fattree-64"):
        assert not _columns(load_machine(name), [4194304])["rendezvous_s"].any()


def test_rendezvous_delay_is_zero_at_and_below_the_threshold():
    got = rendezvous_delay(np.array([0.0, 100.0, 100.5, 1e6]), 1e-6, 100.0)
    assert got.tolist() == [0.0, 0.0, 2e-6, 2e-6]


def test_the_table_shows_the_rendezvous_only_when_a_row_pays_one():
    """predict p2p's table adds a rendezvous column after the hardware part when a message
    is above the threshold, and keeps its columns otherwise (JSON carries it always)."""
    from icnperf.api import predict_p2p

    small = predict_p2p("lumi", bytes=[8, 4096], hops=0).render("table")
    large = predict_p2p("lumi", bytes=[8, 1048576], hops=0).render("table")
    assert "rendezvous" not in small.split("assumptions")[0]
    header = next(line for line in large.splitlines() if line.startswith("size"))
    assert header.split()[:6] == ["size", "hops", "packets", "latency", "part", "rendezvous"]
    assert "2.31 µs" in large
    assert predict_p2p("lumi", bytes=[8], hops=0).rows[0]["rendezvous_s"] == 0
