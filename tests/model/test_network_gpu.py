"""GPU-buffer messages (icnperf/model/network/gpu.py): the link and NIC tables, the pair
routes, NIC sharing by the GPU -> NIC table, and p2p_table on GPU buffers, each against
values worked out by hand from the presets' keys."""

from __future__ import annotations

from dataclasses import replace

import pytest

from icnperf.data.machine import load_machine, with_buffers
from icnperf.errors import InputError
from icnperf.model.network import (gpu_buffer_values, gpu_nics, gpus_sharing_nic,
                                   link_table, nic_table, p2p_table, pair_route)

GB = 1e9
MiB4 = 4 * 2**20


def _latency(machine, size, **kw):
    return float(p2p_table(machine, [size], kw.pop("hops", 0), "mpi", **kw)
                 .columns["latency_s"][0])


# --- tables ------------------------------------------------------------------------------


def test_link_table_reads_pairs_either_way_round():
    assert link_table("0-1:4, 2-0:1  3-1:2") == {(0, 1): 4, (0, 2): 1, (1, 3): 2}


@pytest.mark.parametrize("text, words", [
    ("0-0:1", "itself"), ("0-1:0", "0 links"), ("0-1:1 1-0:2", "twice"),
    ("0-1", "A-B:N"), ("", "at least one"),
])
def test_link_table_refuses(text, words):
    with pytest.raises(InputError, match=words):
        link_table(text)


def test_nic_table_and_bad_text():
    assert nic_table("0 0,1 1") == (0, 0, 1, 1)
    with pytest.raises(InputError, match="NIC indices"):
        nic_table("0 a")


def test_set_checks_tables_in_one_line():
    machine = load_machine("frontier")
    with pytest.raises(InputError, match="node.scaleup_links: link table item '0-0:4'"):
        machine.with_overrides(["node.scaleup_links=0-0:4"])
    with pytest.raises(InputError, match="node.gpu_nics"):
        machine.with_overrides(["node.gpu_nics=0 x"])


def _without(uncertainty, path):
    """A machine's uncertainty records less the one of a value the test removes."""
    return {p: u for p, u in uncertainty.items() if p != path}


def test_gpu_nics_table_round_robin_and_checks():
    frontier = load_machine("frontier")
    assert gpu_nics(frontier) == (0, 0, 1, 1, 2, 2, 3, 3)
    # without a table: GPU g on NIC g mod 4
    plain = replace(frontier, node={k: v for k, v in frontier.node.items() if k != "gpu_nics"},
                    uncertainty=_without(frontier.uncertainty, "node.gpu_nics"))
    assert gpu_nics(plain) == (0, 1, 2, 3, 0, 1, 2, 3)
    with pytest.raises(InputError, match="lists 4 GPUs"):
        gpu_nics(frontier.with_overrides(["node.gpu_nics=0 1 2 3"]))
    with pytest.raises(InputError, match="names NIC 4"):
        gpu_nics(frontier.with_overrides(["node.gpu_nics=0 0 1 1 2 2 3 4"]))


def test_processes_sharing_a_nic_follow_the_table():
    frontier = load_machine("frontier")
    # GCDs 0 and 1 share NIC 0 (round robin would give them NICs 0 and 1)
    assert gpus_sharing_nic(frontier, 2) == 2
    assert gpus_sharing_nic(frontier, 2, gpu=1) == 1          # GCDs 1 (NIC 0) and 2 (NIC 1)
    assert gpus_sharing_nic(frontier, 3, gpu=2) == 2          # GCDs 2, 3 on NIC 1; 4 on NIC 2
    assert gpus_sharing_nic(frontier, 2, gpu=7) == 1          # GCDs 7 (NIC 3) and 0 (NIC 0)
    assert gpus_sharing_nic(frontier, 8, gpu=5) == 2
    with pytest.raises(InputError, match="8 GPUs"):
        gpus_sharing_nic(frontier, 9)
    with pytest.raises(InputError, match="GPUs 0..7"):
        gpus_sharing_nic(frontier, 1, gpu=8)


# --- pairs -------------------------------------------------------------------------------


def test_pair_routes_on_mi250x():
    frontier = load_machine("frontier")
    assert pair_route(frontier, 0, 1).bandwidth == pytest.approx(4 * 50 * GB)   # same module
    assert pair_route(frontier, 6, 0).bandwidth == pytest.approx(2 * 50 * GB)   # double link
    assert pair_route(frontier, 0, 2).bandwidth == pytest.approx(50 * GB)       # single link
    route = pair_route(frontier, 0, 4)                                          # none: host
    assert route.bandwidth == pytest.approx(36 * GB) and "no direct link" in route.route
    with pytest.raises(InputError, match="both 3"):
        pair_route(frontier, 3, 3)
    with pytest.raises(InputError, match="GPUs 0..7"):
        pair_route(frontier, 0, 8)
    four = frontier.with_overrides(["node.accelerators=4", "node.gpu_nics=0 0 1 1"])
    with pytest.raises(InputError, match="scaleup_links names GPU 7"):
        pair_route(four, 0, 1)


def test_nvl72_domain_spans_trays():
    nvl = load_machine("gb200-nvl72")
    assert pair_route(nvl, 0, 71).bandwidth == pytest.approx(900 * GB)
    with pytest.raises(InputError, match="scale-up domain"):
        pair_route(nvl, 0, 72)
    four = nvl.with_overrides(["node.scaleup_domain=4"])                        # NVL4
    with pytest.raises(InputError, match="GPUs 0..3"):
        pair_route(four, 0, 4)


# --- messages ----------------------------------------------------------------------------


def test_same_node_ipc_is_overhead_plus_copy_over_the_pair():
    frontier = load_machine("frontier")
    overhead = 1340e-9                     # software.gpu_mpi_overhead, scaleup_latency absent
    for to_gpu, rate in ((1, 200 * GB), (6, 100 * GB), (2, 50 * GB), (4, 36 * GB)):
        got = _latency(frontier, MiB4, hops=None, buffers="gpu", same_node=True,
                       to_gpu=to_gpu)
        assert got == pytest.approx(overhead + MiB4 / rate, rel=1e-12)


def test_between_nodes_rdma_changes_only_the_overhead_for_small_messages():
    lumi_g = load_machine("lumi-g")
    host = _latency(lumi_g, 8)
    gpu = _latency(lumi_g, 8, buffers="gpu")
    assert gpu - host == pytest.approx(1340e-9 - 645e-9, rel=1e-9)   # gpu - host overhead


def test_gpu_nic_bandwidth_caps_gpudirect_streaming():
    slow = load_machine("lumi-g").with_overrides(["node.gpu_nic_bandwidth=10GB/s"])
    table = p2p_table(slow, [MiB4], 0, "mpi", buffers="gpu")
    # the host interface carries the payload at min(25, 10) GB/s, above the link's time
    assert table.columns["streaming_bandwidth_Bps"][0] == pytest.approx(10 * GB, rel=1e-12)


def test_staging_adds_two_copies_in_series():
    lumi_g = load_machine("lumi-g")
    staged = lumi_g.with_overrides(["software.gpu_buffer_path=staging",
                                    "node.gpu_copy_latency=5us"])
    rdma = _latency(lumi_g, 8, buffers="gpu")
    stage = _latency(staged, 8, buffers="gpu")
    # 8 B = one 64 B payload flit: RDMA serializes at the link (2 flits / 25 GB/s = 5.12 ns),
    # staging at 1/B = 1/25 + 2/36 GB/s on the payload flit (6.1156 ns); + 2 x 5 us copies
    link = 128 / 25e9
    staged_host = 64 * (1 / 25e9 + 2 / 36e9)
    assert stage - rdma == pytest.approx(10e-6 + staged_host - link, rel=1e-9)


def test_two_gcds_on_one_nic_wait_for_each_other():
    lumi_g = load_machine("lumi-g")
    table = p2p_table(lumi_g, [MiB4], 0, "mpi", buffers="gpu", processes_per_node=2)
    alone = p2p_table(lumi_g, [MiB4], 0, "mpi", buffers="gpu")
    assert table.columns["sharing_delay_s"][0] == pytest.approx(
        alone.columns["serialization_s"][0], rel=1e-12)                  # one waits
    host = p2p_table(lumi_g, [MiB4], 0, "mpi", processes_per_node=2)     # round robin
    assert host.columns["sharing_delay_s"][0] == 0


def test_with_buffers_sets_the_gpu_path_for_collectives():
    h100 = load_machine("dgx-h100")
    gpu = with_buffers(h100, "gpu")
    assert gpu.require("software.mpi_overhead") == h100.require("software.gpu_mpi_overhead")
    assert gpu.require("network.host_bandwidth") == pytest.approx(50 * GB)     # min(50, 63)
    assert gpu.require("node.shared_memory_bandwidth") == pytest.approx(450 * GB)
    assert gpu.source("software.mpi_overhead").startswith("--buffers gpu")
    assert with_buffers(h100, "host") is h100
    with pytest.raises(InputError, match="choose host or gpu"):
        with_buffers(h100, "device")


def test_one_gpu_per_node_has_no_pair_inside():
    single = load_machine("frontier").with_overrides(["node.accelerators=1",
                                                     "node.gpu_nics=0"])
    with pytest.raises(InputError, match="GPUs 0..0"):
        p2p_table(single, [8], None, "mpi", buffers="gpu", same_node=True)
    assert p2p_table(single, [8], 0, "mpi", buffers="gpu").columns["latency_s"][0] > 0


def test_gpu_buffers_need_gpus_and_mpi():
    with pytest.raises(InputError, match="has no GPUs"):
        gpu_buffer_values(load_machine("lumi"))
    with pytest.raises(InputError, match="MPI only"):
        p2p_table(load_machine("frontier"), [8], 0, "shmem", buffers="gpu")


def test_between_nodes_needs_no_intra_node_path():
    frontier = load_machine("frontier")
    bare = replace(frontier, software={k: v for k, v in frontier.software.items()
                                       if k != "gpu_buffer_path_node"},
                   uncertainty=_without(frontier.uncertainty, "software.gpu_buffer_path_node"))
    path = gpu_buffer_values(bare)
    assert "node.shared_memory_latency" not in path.values
    assert any("no software.gpu_buffer_path_node" in note for note in path.notes)
    with pytest.raises(InputError, match="gpu_buffer_path_node"):
        gpu_buffer_values(bare, same_node=True)
