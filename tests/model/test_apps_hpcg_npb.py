"""HPCG and NPB IS application models (icnperf/model/apps/hpcg.py, npb_is.py): hand-computed
small cases, parts that add up, the fit's round trip on synthetic data and the
leave-one-group-out procedure's isolation of the held-out group."""

from __future__ import annotations

import math

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.data.machine import load_machine
from icnperf.data.measurements.tables import MeasurementTable
from icnperf.model import collectives, network
from icnperf.model.apps import hpcg, npb_is


@pytest.fixture(scope="module")
def angara():
    return load_machine("angara-36")


@pytest.fixture(scope="module")
def gige():
    return load_machine("gige-cluster")


@pytest.fixture(scope="module")
def ib():
    return load_machine("ib-qdr-cluster")


# --- HPCG: geometry and counts ---------------------------------------------------------


def test_process_grid_most_cubic():
    assert hpcg.process_grid(288) == (6, 6, 8)
    assert hpcg.process_grid(8) == (2, 2, 2)
    assert hpcg.process_grid(1) == (1, 1, 1)
    assert hpcg.process_grid(7) == (1, 1, 7)
    assert math.prod(hpcg.process_grid(96)) == 96


def test_halo_messages_faces_edges_corners():
    msgs = hpcg.halo_messages((4, 6, 8))
    assert len(msgs) == 26
    sizes = sorted(s for _, s in msgs)
    # 8 corners of 1, edges 4 x 4, 4 x 6, 4 x 8, faces 2 x (48, 32, 24)
    assert sizes == sorted([1] * 8 + [4] * 4 + [6] * 4 + [8] * 4 + [48, 48, 32, 32, 24, 24])


def test_official_flops_hand_computed():
    # global 8^3, one iteration: rows 512, 64, 8, 1; nnz (3n-2)^3 = 22^3, 10^3, 4^3, 1
    flops = hpcg.official_flops((8, 8, 8), 1)
    expected = (2 * 4 * 2 * 512 + 2 * 2 * 22 ** 3
                + 10 * (22 ** 3 + 10 ** 3 + 4 ** 3) + 4 * 1)
    assert flops == expected


def test_halo_time_hand_computed():
    params = dict(flit_size=16, packet_max_flits=16, packet_header_flits=1,
                  injection_latency=300e-9, ejection_latency=300e-9, router_latency=8e-9,
                  link_latency=80e-9, link_bandwidth=1e9, host_bandwidth=1e9,
                  software_overhead=200e-9, store_and_forward=0)
    # one rank: two inter-node messages of 160 B and one intra-node of 80 B
    per_rank = [([160, 160], [80])]
    t = hpcg.halo_time(params, per_rank, [160, 160], 1, mem_share=1e9,
                       intra_latency=0.3e-6, pack_bytes=20)
    ser = network.serialization_time(160, **network.bind(network.serialization_time,
                                                         params))
    assert ser == pytest.approx((160 + 16) / 1e9)
    lat = network.latency(160, 1, **network.bind(network.latency, params))
    gap = max(100e-9, ser)
    expected = (lat + max(gap, ser)          # 2 messages: one more gap / one more T_ser
                + 0.3e-6 + 2 * 80 / 1e9      # intra copy
                + 20 * (400 / 8) / 1e9)      # pack 50 values
    assert t == pytest.approx(expected)


# --- HPCG: predictions -----------------------------------------------------------------


def test_parts_add_up(angara):
    for variant in hpcg.VARIANTS:
        r = hpcg.predict(angara, variant=variant, iterations=7)
        assert r.compute_s + r.p2p_s + r.collective_s == pytest.approx(r.iteration_s)
        assert r.total_s == pytest.approx(7 * r.iteration_s)
        assert r.nodes == 36 and r.app == "hpcg" and r.layout == "torus:3x3x4"
        assert r.gflops == pytest.approx(r.flops / r.total_s / 1e9)


def test_compute_is_memory_bound_and_waits_for_slowest_type(angara):
    r = hpcg.predict(angara)
    total = sum(hpcg.bytes_per_iteration((16, 16, 16)).values())
    # type B (51.2 GB/s) is slower than type A (85.2 GB/s); both at the preset's 0.78
    assert angara.node["memory_efficiency"] == 0.78
    assert r.compute_s == pytest.approx(8 * total / (0.78 * 51.2e9))
    fast_b = angara.with_overrides(["node_types.B.memory_bandwidth=200GB/s"])
    r2 = hpcg.predict(fast_b)
    assert r2.compute_s == pytest.approx(8 * total / (0.78 * 85.2e9))
    # a node type's own efficiency replaces the [node] one for that type only
    slow_a = angara.with_overrides(["node_types.A.memory_efficiency=0.4"])
    assert hpcg.predict(slow_a).compute_s == pytest.approx(8 * total / (0.4 * 85.2e9))


def test_optimized_compute_divided_by_node_factors(angara):
    ref = hpcg.predict(angara, variant="reference")
    opt = hpcg.predict(angara, variant="optimized")
    assert opt.compute_s == pytest.approx(ref.compute_s / (1.5 * 1.05))
    col = hpcg.predict(angara, variant="optimized", coloring_factor=4.8)
    assert col.compute_s == pytest.approx(ref.compute_s / (1.5 * 1.05 * 4.8))
    # the dot products stay MPI all-reduces in both variants
    assert opt.collective_s == pytest.approx(ref.collective_s)


def test_barrier_sync_costs_a_barrier(angara):
    pair = hpcg.predict(angara, variant="optimized", sync="pairwise")
    bar = hpcg.predict(angara, variant="optimized", sync="barrier")
    assert bar.compute_s == pair.compute_s and bar.p2p_s != pair.p2p_s
    barrier = collectives.collective_time(angara, "barrier", "hw-tree", api="shmem")
    assert barrier.time[0] > 0


def test_allreduce_uses_collectives(angara):
    r = hpcg.predict(angara, algorithm="ring")
    ring = collectives.collective_time(angara, "allreduce", "ring", [8], api="mpi")
    assert r.collective_s == pytest.approx(3 * (ring.time[0] + 2 * 3 * hpcg.INTRA_NODE_LATENCY))


def test_single_node_has_only_intra_node_traffic(angara):
    r = hpcg.predict(angara, 1, processes_per_node=8)
    assert r.nodes == 1
    assert r.collective_s == pytest.approx(3 * 2 * 3 * hpcg.INTRA_NODE_LATENCY)
    assert r.p2p_s > 0


def test_gain_grows_with_node_factors(angara):
    ref = hpcg.predict(angara, variant="reference").total_s
    a = ref / hpcg.predict(angara, variant="optimized", contiguous_factor=1.0,
                           ellpack_factor=1.0).total_s
    b = ref / hpcg.predict(angara, variant="optimized").total_s
    assert a < b < 1.5 * 1.05


@pytest.mark.parametrize("kw", [dict(local=(12, 16, 16)), dict(local=(16, 16)),
                                dict(variant="fast"), dict(sync="none"),
                                dict(processes_per_node=0), dict(iterations=0),
                                dict(coloring_factor=0.0), dict(stream_efficiency=1.5)])
def test_bad_input(angara, kw):
    with pytest.raises(InputError):
        hpcg.predict(angara, **kw)


def test_bad_layout(angara):
    with pytest.raises(InputError):
        hpcg.predict(angara, 0)
    with pytest.raises(InputError):
        hpcg.predict(angara, 2.5)


# --- NPB IS ----------------------------------------------------------------------------


def test_features_hand_computed():
    X, fixed, intra = npb_is.features(2, 2, 1024, link_bandwidth=1e9, mpi_latency=1e-6,
                                      memory_bandwidth=1e10, leaf=4)
    k = npb_is.CHARGED_ITERATIONS
    n = 256
    inter = 4 * n * 2 / 4                      # half of each process's keys leave the node
    assert X[0] == pytest.approx(k * n)
    assert X[1] == pytest.approx(k * inter * 2 / 1e9)   # B_link shared by 2 processes
    assert X[2] == 0                            # 2 nodes fit one leaf of 4
    assert X[3] == pytest.approx(k * 2 * 2 * 2)  # 2 a2a x p x (P - p)
    assert intra == pytest.approx(k * 4 * (2 * 4 * n * 1 / 4) / 1e10)
    assert fixed == pytest.approx(k * (2 * 3 + 2 * 2) * 1e-6)


def test_features_uplink_only_across_leaves():
    kw = dict(link_bandwidth=1e9, mpi_latency=0.0, memory_bandwidth=1e10)
    X8, _, _ = npb_is.features(8, 1, 2 ** 20, leaf=8, **kw)
    X16, _, _ = npb_is.features(16, 1, 2 ** 20, leaf=8, **kw)
    assert X8[2] == 0
    node_out = 4 * 2 ** 20 / 16 * 15 / 16
    assert X16[2] == pytest.approx(npb_is.CHARGED_ITERATIONS * 8 * node_out * 8 / 15 / 1e9)


def test_predict_parts_add_up(gige):
    p = npb_is.Params(20e-9, 1.2, 2.0, 1e-4, 8)
    r = npb_is.predict(gige, 4, 2, "C", p)
    assert r.compute_s + r.p2p_s + r.collective_s == pytest.approx(r.iteration_s)
    assert r.total_s == pytest.approx(11 * r.iteration_s)
    assert r.compute_s == pytest.approx(20e-9 * 2 ** 27 / 8)


def test_kendall_pairs():
    assert npb_is.kendall_pairs([1, 2, 3], [10, 20, 30]) == (3, 0, 3)
    assert npb_is.kendall_pairs([1, 2, 3], [30, 20, 10]) == (0, 3, 3)
    assert npb_is.kendall_pairs([1, 2, 3], [1, 1, 2]) == (2, 0, 3)
    assert npb_is.kendall_pairs([5], [1]) == (0, 0, 0)


def test_placements_and_ranking(ib):
    assert npb_is.placements(ib, 16) == [(16, 1), (8, 2), (4, 4), (2, 8)]
    # FT(4,2) has 32 endpoints: 64 x 1 does not fit; 8 cores: 4 x 16 does not either
    assert npb_is.placements(ib, 64) == [(32, 2), (16, 4), (8, 8)]
    ranked = npb_is.rank_placements(ib, "C", 16, npb_is.Params(leaf=4))
    times = [t for _, _, t in ranked]
    assert times == sorted(times) and len(ranked) == 4
    with pytest.raises(InputError):
        npb_is.rank_placements(ib, "E", 16)
    with pytest.raises(InputError):
        npb_is.rank_placements(ib, "C", 12)


def _synthetic_rows(machine, params, klass="C"):
    rows = []
    for procs in (4, 8, 16, 32):
        for nodes, ppn in npb_is.placements(machine, procs):
            rows.append((nodes, ppn, npb_is.predict(machine, nodes, ppn, klass,
                                                    params).total_s))
    return rows


def test_fit_round_trip(gige):
    truth = npb_is.Params(compute=30e-9, adapter=1.3, uplink=2.5, message=2e-4, leaf=8)
    f = npb_is.fit_rows(_synthetic_rows(gige, truth), gige, "C")
    assert f.params.leaf == 8
    for got, want in zip(f.params[:4], truth[:4]):
        assert got == pytest.approx(want, rel=1e-6)
    assert f.rms_relative < 1e-9


def _table(rows, name="synthetic-class-c"):
    cols = {"processes": np.array([n * p for n, p, _ in rows]),
            "nodes": np.array([n for n, _, _ in rows]),
            "processes_per_node": np.array([p for _, p, _ in rows]),
            "total_s": np.array([t for _, _, t in rows], dtype=float),
            "excluded": tuple("" for _ in rows)}
    units = {"processes": "1", "nodes": "1", "processes_per_node": "1", "total_s": "s",
             "excluded": "text"}
    return MeasurementTable(name=name, title="synthetic", columns=cols, units=units,
                            provenance={})


def test_logo_never_sees_the_held_out_group(gige):
    truth = npb_is.Params(compute=30e-9, adapter=1.3, uplink=2.5, message=2e-4, leaf=8)
    rows = _synthetic_rows(gige, truth)
    seen = []

    def spy(train, machine, klass):
        seen.append({n * p for n, p, _ in train})
        return npb_is.fit_rows(train, machine, klass)

    record = npb_is.leave_one_group_out(_table(rows), gige, fitter=spy)
    assert [g.procs for g in record.groups] == [4, 8, 16, 32]
    for group, train in zip(record.groups, seen):
        assert group.procs not in train and len(train) == 3
    # exact synthetic data: every group recovered, orderings perfect
    assert record.tau == pytest.approx(1.0)
    assert record.hits == record.contested == 4
    assert record.median_abs_rel_error < 1e-6
    # the held-out group's measured values do not change its own predictions
    changed = [(n, p, t * (3.0 if n * p == 16 else 1.0)) for n, p, t in rows]
    other = npb_is.leave_one_group_out(_table(changed), gige)
    g16 = next(g for g in other.groups if g.procs == 16)
    g16_before = next(g for g in record.groups if g.procs == 16)
    assert [r[3] for r in g16.rows] == pytest.approx([r[3] for r in g16_before.rows])


def test_logo_excludes_excluded_rows(gige):
    from icnperf.data.measurements.tables import load_table

    table = load_table("npb-is-gige-class-c")
    record = npb_is.leave_one_group_out(table, gige)
    assert sum(len(g.rows) for g in record.groups) == 15   # 16 printed, 1 excluded
    assert all((n, p) != (16, 4) for g in record.groups for n, p, _, _ in g.rows)


def test_halo_time_spreads_ranks_over_nics_and_copies_at_shared_memory_speed():
    params = dict(flit_size=16, packet_max_flits=16, packet_header_flits=1,
                  injection_latency=300e-9, ejection_latency=300e-9, router_latency=8e-9,
                  link_latency=80e-9, link_bandwidth=1e9, host_bandwidth=1e9,
                  software_overhead=200e-9, store_and_forward=0)
    ser = lambda m: network.serialization_time(m, **network.bind(network.serialization_time,
                                                                 params))
    lat = network.latency(1600, 1, **network.bind(network.latency, params))
    # two ranks, one 1600-byte inter-node message each
    per_rank = [([1600], []), ([1600], [])]
    one = hpcg.halo_time(params, per_rank, [1600, 1600], 1, mem_share=1e12,
                         intra_latency=0, pack_bytes=0)
    two = hpcg.halo_time(params, per_rank, [1600, 1600], 1, mem_share=1e12,
                         intra_latency=0, pack_bytes=0, nics=2)
    assert one == pytest.approx(lat + ser(1600))   # the other rank's message waits first
    assert two == pytest.approx(lat)               # each rank has its own NIC
    # an intra-node copy: min(B_shm, share / 2)
    intra = [([], [8000])]
    slow = hpcg.halo_time(params, intra, [], 1, mem_share=4e9, intra_latency=1e-7,
                          pack_bytes=0, shared_memory_bandwidth=1e9)
    fast = hpcg.halo_time(params, intra, [], 1, mem_share=4e9, intra_latency=1e-7,
                          pack_bytes=0, shared_memory_bandwidth=1e12)
    assert slow == pytest.approx(1e-7 + 8000 / 1e9)
    assert fast == pytest.approx(1e-7 + 8000 / 2e9)
