"""SpMV and heat application models (model/apps/spmv.py, heat.py), Mukosey 2015 §3.2-3.3.

Hand counts use the angara-4d preset (ns): O = 300 (MPI), t_inj = t_ej = 300, t_r = 8,
t_l = 80, 16-byte flits, 16-flit packets with 1 header flit (240 B payload), host interface
5.85 GB/s (the preset's calibrated PCIe rate), link 75 Gbit/s = 9.375 GB/s. One hop:
O + t_inj + 2 t_r + t_l + t_ej = 996 ns + T_ser.
"""

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.data.machine import load_machine
from icnperf.model import collectives
from icnperf.model.apps import heat, spmv
from icnperf.model.collectives import Layout
from icnperf.model.topology import torus

MACHINE = load_machine("angara-4d")
ONE_HOP = 996e-9
HOST = 5.85e9


# --- SpMV -------------------------------------------------------------------------------


def test_rows_per_node_gives_the_remainder_to_the_first_nodes():
    assert spmv.rows_per_node(10, 3) == (4, 3, 3)
    assert spmv.rows_per_node(12, 4) == (3, 3, 3, 3)
    parts = spmv.rows_per_node(10_000_001, 16)
    assert sum(parts) == 10_000_001 and parts[0] == 625_001 and parts[1] == 625_000
    with pytest.raises(InputError):
        spmv.rows_per_node(2, 3)
    with pytest.raises(InputError):
        spmv.rows_per_node(10, 0)


def test_compute_waits_for_the_node_with_the_most_rows():
    # 10 rows over 3 nodes: 4 rows x 2 non-zeros x 2 FLOP at 1 MFLOP/s
    assert spmv.compute_time(10, 3, 2, 1e6) == pytest.approx(16e-6)
    result = spmv.predict(MACHINE, Layout.crossbar(3), algorithm="ring", rows=10,
                          nonzeros_per_row=2)
    assert result.compute_s == pytest.approx(16 / 591e6)
    assert result.flops == 2 * 10 * 2


def test_rate_from_memory_bandwidth_by_hand():
    # 2·10 FLOP per row over 10·12 + 12 bytes
    assert spmv.rate_from_memory_bandwidth(51.2e9, 10) == pytest.approx(20 * 51.2e9 / 132)
    memory = spmv.predict(MACHINE, Layout.crossbar(2), algorithm="ring", rows=1000,
                          nonzeros_per_row=10, spmv_rate="memory")
    assert memory.compute_s == pytest.approx(2 * 10 * 500 / (20 * 51.2e9 / 132))
    given = spmv.predict(MACHINE, Layout.crossbar(2), algorithm="ring", rows=1000,
                         nonzeros_per_row=10, spmv_rate=1e9)
    assert given.compute_s == pytest.approx(1e-5)


def test_spmv_by_hand_on_two_nodes():
    # N = 1000, d = 2, P = 2 on a crossbar: compute 2·2·500 FLOP at 591 MFLOP/s; the
    # recursive-doubling all-gather is one exchange of 4000 B over 1 hop: 250 payload flits
    # = 683.8 ns on PCIe (267 wire flits = 455.7 ns on the link), so 996 + 683.8 ns
    r = spmv.predict(MACHINE, Layout.crossbar(2), algorithm="recursive-doubling",
                     rows=1000, nonzeros_per_row=2, iterations=3)
    assert r.compute_s == pytest.approx(2000 / 591e6)
    assert r.collective_s == pytest.approx(ONE_HOP + 4000 / HOST)
    assert r.p2p_s == 0
    assert r.iteration_s == pytest.approx(r.compute_s + r.collective_s)
    assert r.total_s == pytest.approx(3 * r.iteration_s)
    assert r.flops == 3 * 2 * 1000 * 2
    assert r.gflops == pytest.approx(r.flops / r.total_s / 1e9)


def test_spmv_all_gather_is_the_collectives_model():
    layout = Layout.torus((2, 2, 2, 2))
    for algorithm in ("hw-tree", "recursive-doubling", "ring", "bruck"):
        r = spmv.predict(MACHINE, layout, algorithm=algorithm, rows=20_480_000)
        direct = collectives.collective_time(MACHINE, "allgather", algorithm,
                                             [8 * 20_480_000], layout=layout).time[0]
        assert r.collective_s == pytest.approx(direct, rel=1e-12)
        assert r.nodes == 16 and r.layout == "torus:2x2x2x2" and r.algorithm == algorithm


def test_spmv_hardware_all_gather_is_bandwidth_bound():
    # every node ejects the 15 other parts of 8·N/16 bytes at 5.85 GB/s
    r = spmv.predict(MACHINE, Layout.torus((2, 2, 2, 2)), algorithm="hw-tree")
    ejection = 15 * 8 * 20_480_000 / 16 / HOST
    assert ejection <= r.collective_s <= ejection * 1.01


def test_spmv_monotone_in_nodes():
    compute, gain = [], []
    for nodes in (16, 32, 64, 128, 256):
        layout = Layout.torus(torus.balanced_torus_shape(nodes, 4))
        hw = spmv.predict(MACHINE, layout, algorithm="hw-tree")
        p2p = spmv.predict(MACHINE, layout, algorithm="recursive-doubling")
        compute.append(hw.compute_s)
        gain.append(p2p.iteration_s / hw.iteration_s)
        assert p2p.iteration_s >= hw.iteration_s
    assert all(b < a for a, b in zip(compute, compute[1:]))
    assert all(b > a for a, b in zip(gain, gain[1:]))


def test_spmv_bad_input():
    layout = Layout.crossbar(4)
    for kw in ({"rows": 0}, {"rows": 3}, {"nonzeros_per_row": 0}, {"iterations": 0},
               {"rows": 10.5}, {"algorithm": "nonsense"}, {"spmv_rate": -1.0},
               {"spmv_rate": "fast"}, {"rows": 5, "nonzeros_per_row": 6}):
        with pytest.raises(InputError):
            spmv.predict(MACHINE, layout, **{"algorithm": "ring", **kw})


# --- heat -------------------------------------------------------------------------------


def test_most_square_factorizations():
    assert heat.most_square(32768) == (128, 256)
    assert heat.process_grid(64) == (8, 8)
    assert heat.process_grid(7) == (1, 7)
    assert heat.grid_shape(40_960_000) == (6400, 6400)
    assert heat.grid_shape(81_920_000) == (8192, 10000)
    assert heat.grid_shape(163_840_000) == (12800, 12800)


def test_block_sizes_give_the_remainder_to_the_first_blocks():
    assert heat.block_sizes(10, 3) == (4, 3, 3)
    assert heat.block_sizes(6400, 128) == (50,) * 128
    with pytest.raises(InputError):
        heat.block_sizes(2, 3)


def test_heat_by_hand_on_four_nodes():
    # 100 cells = 10 x 10 over a 2 x 2 process grid: blocks 5 x 5 = 25 cells x 17 FLOP at
    # 11 GFLOP/s plus the preset's 14.4 µs per sweep. Halo on a crossbar (1 hop, no
    # sharing): x faces 5 doubles = 40 B (3 payload flits = 48 B: 8.205 ns on PCIe, 4 wire
    # flits 6.827 ns on the link), y faces 7 doubles = 56 B (64 B: 10.94 ns / 5 flits
    # 8.533 ns); each phase adds one gap max(O/2, T_ser) = 150 ns
    r = heat.predict(MACHINE, Layout.crossbar(4), algorithm="recursive-doubling",
                     cells=100, steps=2)
    assert r.compute_s == pytest.approx(14.4e-6 + 25 * 17 / 11e9)
    expected = (ONE_HOP + 48 / HOST + 150e-9) + (ONE_HOP + 64 / HOST + 150e-9)
    assert r.p2p_s == pytest.approx(expected)
    direct = collectives.collective_time(MACHINE, "allreduce", "recursive-doubling", [8],
                                         layout=Layout.crossbar(4)).time[0]
    assert r.collective_s == pytest.approx(direct)
    assert r.iteration_s == pytest.approx(r.compute_s + r.p2p_s + r.collective_s)
    assert r.total_s == pytest.approx(2 * r.iteration_s)
    assert r.flops == 2 * 17 * 100


def test_heat_uneven_blocks_use_the_largest():
    # 11 x 13 = 143 cells over 2 x 2: blocks 6/5 columns and 7/6 rows, largest 6 x 7
    r = heat.predict(MACHINE, Layout.crossbar(4), algorithm="ring", cells=143)
    assert r.compute_s == pytest.approx(14.4e-6 + 42 * 17 / 11e9)


def test_halo_hops_match_brute_force_on_the_torus():
    for shape in ((2, 2, 2, 2), (2, 4, 4, 4), (4, 8, 8, 8)):
        layout = Layout.torus(shape)
        p = layout.endpoints
        px, py = heat.process_grid(p)
        phases = heat.halo_phases(layout, px, py, 10, 10)
        ranks = np.arange(p)
        x, y = ranks % px, ranks // px
        for (size, step), (dx, dy) in zip(phases, ((1, 0), (0, 1))):
            keep = (x + dx < px) & (y + dy < py)
            src = ranks[keep]
            dst = src + dx + px * dy
            hops = torus.hop_distance(shape, torus.endpoint_coordinates(shape, src),
                                      torus.endpoint_coordinates(shape, dst))
            assert step.hops == hops.max()
            assert step.load >= 1
        assert phases[0][0] == 80 and phases[1][0] == 96


def test_heat_32768_nodes_maps_neighbours_within_two_hops():
    layout = Layout.torus(torus.balanced_torus_shape(32768, 4))
    assert layout.radices == (8, 16, 16, 16)
    phases = heat.halo_phases(layout, 128, 256, 50, 25)
    assert [s.hops for _, s in phases] == [2, 2]


def test_heat_monotone_in_nodes_and_hardware_helps():
    compute, ratio = [], []
    for nodes in (16, 64, 256, 1024, 4096):
        layout = Layout.torus(torus.balanced_torus_shape(nodes, 4))
        hw = heat.predict(MACHINE, layout, algorithm="hw-tree")
        p2p = heat.predict(MACHINE, layout, algorithm="p2p-tree")
        assert hw.p2p_s == p2p.p2p_s and hw.compute_s == p2p.compute_s
        compute.append(hw.compute_s)
        ratio.append(p2p.iteration_s / hw.iteration_s)
    assert all(b < a for a, b in zip(compute, compute[1:]))
    assert all(b > a for a, b in zip(ratio, ratio[1:]))
    assert ratio[0] > 1


def test_heat_one_process_column_has_one_halo_phase():
    # a 1 x 2 process grid has no x phase; the y faces are 10 + 2 doubles = 96 B,
    # 6 payload flits = 16.41 ns on PCIe (7 wire flits = 11.95 ns on the link)
    r = heat.predict(MACHINE, Layout.crossbar(2), algorithm="recursive-doubling",
                     cells=100)
    assert len(heat.halo_phases(Layout.crossbar(2), 1, 2, 10, 5)) == 1
    assert r.p2p_s == pytest.approx(ONE_HOP + 96 / HOST + 150e-9)


def test_heat_bad_input():
    layout = Layout.crossbar(4)
    for kw in ({"cells": 0}, {"cells": 3}, {"steps": 0}, {"algorithm": "nonsense"},
               {"algorithm": "bruck"}, {"flops_per_cell": 0}):
        with pytest.raises(InputError):
            heat.predict(MACHINE, layout, **{"algorithm": "ring", **kw})
