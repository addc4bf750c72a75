"""Skeleton phase timing (model/apps/timing.py, patterns.py) against hand counts and brute
force.

Hand counts use the angara-4d preset (ns): O = 300 (MPI), t_inj = t_ej = 300, t_r = 8,
t_l = 80; 16-byte flits, 16-flit packets with 1 header flit; host 5.85 GB/s, link
75 Gbit/s = 9.375 GB/s. One hop: O + t_inj + 2 t_r + t_l + t_ej = 996 ns, plus the
serialization; an 8-byte message is 2 flits (32 B) on a link: 3.4133 ns. The sender's gap
between messages g = max(O / 2, T_ser) = 150 ns for small messages.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.data.machine import load_machine
from icnperf.data.skeleton import parse_skeleton
from icnperf.errors import InputError
from icnperf.model import collectives
from icnperf.model.apps import patterns, timing
from icnperf.model.collectives import Layout

MACHINE = load_machine("angara-4d")
ONE_HOP = 996e-9
SER_8 = 32 / 9.375e9
GAP = 150e-9


def skeleton(phases: str, extra: str = ""):
    return parse_skeleton(f'format = 1\nname = "t"\n{extra}\n{phases}', "t.toml")


def one_phase(body: str, extra: str = "", **kw):
    s = skeleton(f'[[phase]]\nname = "p"\n{body}\n', extra)
    return timing.run(s, MACHINE, kw.pop("layout", None), **kw).phases[0]


# --- halo geometry ---------------------------------------------------------------------------


def _brute_halo(grid, periodic, axes):
    coords = list(itertools.product(*(range(g) for g in reversed(grid))))
    index = {}
    for c in coords:
        c = tuple(reversed(c))
        r = sum(ci * int(np.prod(grid[:i])) for i, ci in enumerate(c))
        index[c] = r
    pairs, counts = [], {}
    for c, r in index.items():
        for axis in axes:
            if grid[axis] == 1:
                continue
            for step in (1, -1):
                q = list(c)
                q[axis] += step
                if periodic:
                    q[axis] %= grid[axis]
                elif not 0 <= q[axis] < grid[axis]:
                    continue
                pairs.append((r, index[tuple(q)]))
                counts[r] = counts.get(r, 0) + 1
    return sorted(pairs), max(counts.values(), default=0)


@pytest.mark.parametrize("grid", [(2, 3), (3, 3, 4), (1, 5), (2, 2, 2), (4,), (2, 1, 3)])
@pytest.mark.parametrize("periodic", [False, True])
def test_halo_pairs_are_the_face_neighbours(grid, periodic):
    for axes in [None, *([(a,)] for a in range(len(grid)))]:
        axes = axes[0] if isinstance(axes, list) else axes
        src, dst, k = patterns.halo_pairs(grid, periodic, axes)
        expected, kk = _brute_halo(grid, periodic, range(len(grid)) if axes is None else axes)
        assert sorted(zip(src.tolist(), dst.tolist())) == expected
        assert k == kk


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=4), st.booleans(), st.data())
def test_halo_pairs_on_drawn_grids_are_the_face_neighbours(grid, periodic, data):
    """Strides and edge corrections (no coordinate arrays) against walking every rank."""
    grid = tuple(grid)
    axes = data.draw(st.one_of(st.none(), st.lists(st.integers(0, len(grid) - 1),
                                                    min_size=1, max_size=len(grid),
                                                    unique=True).map(tuple)))
    src, dst, k = patterns.halo_pairs(grid, periodic, axes)
    expected, most = _brute_halo(grid, periodic, range(len(grid)) if axes is None else axes)
    assert sorted(zip(src.tolist(), dst.tolist())) == expected
    assert k == most


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(2, 5), min_size=1, max_size=3), st.booleans(),
       st.sampled_from(["plus", "split"]), st.data())
def test_aligned_halo_closed_form_equals_every_message_mapped(radices, periodic, ties, data):
    """A halo whose grid is the torus (size-1 axes drawn in anywhere, any subset of axes):
    the closed form equals mapping every message (Layout.rank_traffic)."""
    from icnperf.model.collectives.layout import Layout

    layout = Layout.torus(radices).routed(ties)
    grid = list(radices)
    for _ in range(data.draw(st.integers(0, 2))):
        grid.insert(data.draw(st.integers(0, len(grid))), 1)
    grid = tuple(grid)
    axes = data.draw(st.one_of(st.none(), st.lists(st.integers(0, len(grid) - 1),
                                                    min_size=1, max_size=len(grid),
                                                    unique=True).map(tuple)))
    closed = patterns.aligned_halo(layout, grid, periodic, axes)
    src, dst, most = patterns.halo_pairs(grid, periodic, axes)
    if len(src) == 0:
        assert closed == patterns.Mapping(0, 0, 0, False, 0)
        return
    assert closed == patterns.Mapping(*layout.rank_traffic(src, dst), most)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(2, 5), min_size=1, max_size=3), st.integers(1, 4), st.booleans(),
       st.sampled_from(["plus", "split"]), st.data())
def test_halo_counted_line_by_line_equals_every_message_mapped(radices, ppn, periodic, ties,
                                                              data):
    """A halo on any process grid of the job's ranks (the most square one, or the ranks
    factored at random), several ranks a node, any axes: halo_mapping (rank shifts counted
    line by line, or the aligned closed form) equals mapping every message
    (Layout.rank_traffic)."""
    from icnperf.model.collectives.layout import Layout

    layout = Layout.torus(radices).routed(ties).placed(ppn)
    ranks = layout.ranks
    if data.draw(st.booleans()):
        grid = patterns.halo_grid(ranks, data.draw(st.integers(1, 3)))
    else:
        grid, rest = [], ranks
        while rest > 1 and len(grid) < 3:
            factor = data.draw(st.sampled_from([f for f in range(1, rest + 1)
                                                if rest % f == 0]))
            grid.append(factor)
            rest //= factor
        grid = tuple(grid[:-1] + [grid[-1] * rest] if grid else [rest])
    axes = data.draw(st.one_of(st.none(), st.lists(st.integers(0, len(grid) - 1),
                                                    min_size=1, max_size=len(grid),
                                                    unique=True).map(tuple)))
    src, dst, most = patterns.halo_pairs(grid, periodic, axes)
    expected = (patterns.Mapping(0, 0, 0, False, 0) if len(src) == 0 or most == 0
                else patterns.Mapping(*layout.rank_traffic(src, dst), most))
    patterns.halo_mapping.cache_clear()
    assert patterns.halo_mapping(layout, grid, periodic, axes) == expected


def test_jacobi_halo_at_full_fugaku_scale_equals_every_message_mapped():
    """jacobi3d's halo at 158,976 nodes x 4 ranks: the 72x92x96 grid, not the torus's own,
    3.8 million messages; counted line by line it equals mapping every message."""
    from icnperf.model.collectives.layout import Layout

    layout = Layout.torus((4, 6, 6, 6, 8, 23)).placed(4)
    grid = patterns.halo_grid(layout.ranks, 3)
    assert grid == (72, 92, 96)
    src, dst, most = patterns.halo_pairs(grid, False, None)
    patterns.halo_mapping.cache_clear()
    assert patterns.halo_mapping(layout, grid, False, None) == patterns.Mapping(
        *layout.rank_traffic(src, dst), most)


def test_halo_off_the_torus_grid_is_not_a_closed_form():
    """Grids other than the torus itself, or ranks sharing nodes, are mapped."""
    from icnperf.model.collectives.layout import Layout

    torus = Layout.torus((4, 6))
    assert patterns.aligned_halo(torus, (6, 4), True, None) is None
    assert patterns.aligned_halo(torus.placed(2), (4, 12), True, None) is None
    assert patterns.aligned_halo(Layout.crossbar(24), (4, 6), True, None) is None
    assert patterns.aligned_halo(torus, (4, 6), True, None) == patterns.Mapping(1, 1, 1,
                                                                                False, 4)
    assert patterns.aligned_halo(Layout.torus((2, 6)), (2, 6), True, (0,)) == \
        patterns.Mapping(1, 2, 1, False, 2)


def test_halo_on_a_matching_torus_is_one_hop_with_three_gaps():
    """P = 16 on torus 4x4: the grid is 4 x 4 on the same coordinates, every neighbour one
    hop away, one message per channel; interior ranks send 4: T = T(8 B, 1) + 3 g."""
    p = one_phase('halo = { dims = 2, bytes = 8 }', layout=Layout.torus((4, 4)))
    (term,) = p.terms
    assert (term.hops, term.load, term.messages) == (1, 1, 4)
    assert p.communication_s == pytest.approx(ONE_HOP + SER_8 + 3 * GAP, rel=1e-9)
    assert p.compute_s == 0 and p.per_repeat_s == p.communication_s


def test_periodic_halo_wraps_round_the_ring():
    """Periodic on torus 8 (1D): every rank sends to r+1 and r-1 (wrapping), one hop each."""
    p = one_phase('halo = { dims = 1, bytes = 8, periodic = true }', layout=Layout.torus((8,)))
    assert (p.terms[0].hops, p.terms[0].messages) == (1, 2)
    assert p.communication_s == pytest.approx(ONE_HOP + SER_8 + GAP, rel=1e-9)


# --- point-to-point patterns -----------------------------------------------------------------


def test_shift_by_one_on_a_ring_is_one_hop_one_message():
    p = one_phase('p2p = { pattern = "shift", bytes = 8 }', layout=Layout.torus((8,)))
    assert p.communication_s == pytest.approx(ONE_HOP + SER_8, rel=1e-9)


def test_shift_by_three_on_a_ring_of_eight_takes_three_hops_and_loads_channels_three_deep():
    """r -> r + 3 on an 8-ring: 3 hops in the + direction; every + channel carries the
    messages of the 3 ranks behind it: load 3, the link shared three ways."""
    p = one_phase('p2p = { pattern = "shift", bytes = 8, distance = "3" }',
                  layout=Layout.torus((8,)))
    (term,) = p.terms
    assert (term.hops, term.load) == (3, 3)
    path = 300e-9 + 300e-9 + 4 * 8e-9 + 3 * 80e-9 + 300e-9
    assert p.communication_s == pytest.approx(path + 3 * SER_8, rel=1e-9)


def test_random_pattern_is_the_seeded_permutation():
    src, dst, k = patterns.p2p_pairs("random", 64)
    perm = np.random.default_rng(0).permutation(64)
    assert dict(zip(src.tolist(), dst.tolist())) == {r: int(perm[r]) for r in range(64)
                                                     if perm[r] != r}
    assert k == 1


def test_alltoall_sends_to_every_other_rank_at_once():
    src, dst, k = patterns.p2p_pairs("alltoall", 5)
    assert len(src) == 20 and k == 4 and not np.any(src == dst)
    p = one_phase('p2p = { pattern = "alltoall", bytes = 8 }', layout=Layout.crossbar(4))
    # crossbar: 1 hop, no shared channel; the last of 3 messages leaves 2 gaps after the first
    assert p.communication_s == pytest.approx(ONE_HOP + SER_8 + 2 * GAP, rel=1e-9)
    with pytest.raises(InputError, match="at most"):
        patterns.p2p_pairs("alltoall", 4096)


# --- collectives -----------------------------------------------------------------------------


@pytest.mark.parametrize("op, factor", [("allreduce", 1), ("broadcast", 1), ("reduce", 1),
                                        ("allgather", 64), ("alltoall", 64)])
def test_collective_bytes_are_the_per_rank_buffer(op, factor):
    """allgather and alltoall: the per-rank block; model/collectives' m is the whole
    vector, P blocks."""
    layout = Layout.torus((4, 4, 4))
    alg = "bruck" if op == "alltoall" else "binomial" if op in ("broadcast", "reduce") \
        else "recursive-doubling"
    p = one_phase(f'collective = {{ op = "{op}", bytes = 1000, algorithm = "{alg}" }}',
                  layout=layout)
    direct = collectives.collective_time(MACHINE, op, alg, [1000 * factor], layout=layout)
    assert p.communication_s == pytest.approx(float(direct.time[0]), rel=1e-12)


def test_best_takes_the_fastest_algorithm_and_override_wins():
    layout = Layout.torus((4, 4, 4))
    body = 'collective = { op = "allreduce", bytes = 8, algorithm = "best" }'
    best = one_phase(body, layout=layout)
    every = collectives.compare(MACHINE, "allreduce", [8], layout=layout)
    assert best.communication_s == pytest.approx(min(float(r.time[0]) for r in every.values()))
    default = one_phase('collective = { op = "allreduce", bytes = 8 }', layout=layout)
    assert default.communication_s == best.communication_s
    forced = one_phase(body, layout=layout, algorithm="ring")
    assert forced.communication_s == pytest.approx(float(every["ring"].time[0]))
    assert "ring" in forced.terms[0].detail


def test_auto_is_the_mpi_library_choice():
    layout = Layout.torus((4, 4, 4))
    body = 'collective = {{ op = "allreduce", bytes = {}, algorithm = "auto" }}'
    mpich = MACHINE.with_overrides(["software.mpi_library=mpich"])
    # no library named: MPICH 4.x's rules, the default (library_rules.UNNAMED_LIBRARY)
    unnamed = one_phase(body.format(4096), layout=layout)
    assert unnamed.communication_s == timing.run(
        skeleton(f'[[phase]]\nname = "p"\n{body.format(4096)}\n'), mpich,
        layout).phases[0].communication_s
    s = skeleton(f'[[phase]]\nname = "p"\n{body.format(4096)}\n')
    phase = timing.run(s, mpich, layout).phases[0]
    # MPICH 4.x: 4096 B > 8 B and 512 doubles >= pof2 64: Rabenseifner
    direct = collectives.collective_time(mpich, "allreduce", "rabenseifner", [4096],
                                         layout=layout)
    assert phase.communication_s == pytest.approx(float(direct.time[0]), rel=1e-12)
    assert "auto: MPICH 4.x: allreduce > 8 B" in phase.terms[0].detail


def test_node_scope_runs_among_one_rank_per_node():
    layout = Layout.torus((2, 2, 2))
    p = one_phase('collective = { op = "allreduce", bytes = 8, algorithm = "binomial", '
                  'scope = "nodes" }', layout=layout, ppn=4)
    direct = collectives.collective_time(MACHINE, "allreduce", "binomial", [8], layout=layout)
    assert p.communication_s == pytest.approx(float(direct.time[0]))
    ranks = one_phase('collective = { op = "allreduce", bytes = 8, algorithm = "binomial" }',
                      layout=layout, ppn=4)
    by_rank = collectives.collective_time(MACHINE, "allreduce", "binomial", [8], layout=layout,
                                          processes_per_node=4)
    assert ranks.communication_s == pytest.approx(float(by_rank.time[0]))


# --- compute ---------------------------------------------------------------------------------


def test_roofline_with_ranks_sharing_the_node():
    """8 ranks per node share 140.8 GFLOP/s and 51.2 GB/s: 1e9 FLOP per rank take
    1e9 / (140.8e9 / 8); 1e9 bytes per rank 1e9 / (51.2e9 / 8)."""
    layout = Layout.torus((2, 2))
    f = one_phase('flops = 1e9', layout=layout, ppn=8)
    assert (f.bound, f.compute_s) == ("flops", pytest.approx(8e9 / 140.8e9, rel=1e-12))
    m = one_phase('flops = 1e9\nmemory_bytes = 1e9', layout=layout, ppn=8)
    assert (m.bound, m.compute_s) == ("memory", pytest.approx(8e9 / 51.2e9, rel=1e-12))
    r = one_phase('flops = 1e9\nrate = "2e9"\nfixed = "1e-3"', layout=layout, ppn=2)
    assert r.compute_s == pytest.approx(1e-3 + 1e9 / 1e9, rel=1e-12)


def test_overlap_charges_the_larger_and_repeat_multiplies():
    layout = Layout.torus((4, 4))
    body = 'repeat = "3"\nfixed = "1e-6"\nhalo = { dims = 2, bytes = 8 }'
    plain = one_phase(body, layout=layout)
    over = one_phase(body + "\noverlap = true", layout=layout)
    halo = ONE_HOP + SER_8 + 3 * GAP
    assert plain.time_s == pytest.approx(3 * (1e-6 + halo), rel=1e-9)
    assert over.time_s == pytest.approx(3 * max(1e-6, halo), rel=1e-9)


def test_node_types_the_slowest_paces_compute():
    """angara-36: type A 85.2 GB/s, type B 51.2 GB/s; 8 ranks per node streaming 1 MB
    each wait for type B."""
    machine = load_machine("angara-36")
    s = skeleton('[[phase]]\nname = "p"\nmemory_bytes = 1e6\n')
    (p,) = timing.run(s, machine, None, ppn=8).phases
    assert p.node_type == "B"
    assert p.compute_s == pytest.approx(8e6 / 51.2e9, rel=1e-12)


def test_defines_and_machine_defaults():
    s = skeleton('[[phase]]\nname = "p"\nfixed = "t0 * half"\n',
                 '[define]\nhalf = "N / 2"\nt0 = "node.stencil_overhead + 1e-6"\n'
                 '[machine_defaults]\nnode.stencil_overhead = 2e-6\n')
    machine = MACHINE.with_overrides(["topology=torus:2x2"])
    without = load_machine("angara-36").with_overrides(["topology=torus:2x2"])
    assert without.get("node.stencil_overhead") is None
    (p,) = timing.run(s, without, None).phases
    assert p.compute_s == pytest.approx(3e-6 * 2, rel=1e-12)
    (q,) = timing.run(s, machine, None).phases
    assert q.compute_s == pytest.approx((14.4e-6 + 1e-6) * 2, rel=1e-12)


# --- times a float cannot hold --------------------------------------------------------------


@pytest.mark.parametrize("body, what", [
    ('flops = "1e300"\nrate = "1e-10"', "the compute time"),
    ('fixed = "1e300"\nrepeat = "1e300"', "the time per run"),
])
def test_a_time_beyond_the_largest_float_is_one_line_naming_the_phase(body, what):
    """Every expression is below 1.8e308, yet 1e300 FLOP at 1e-10 FLOP/s is 1e310 s and
    1e300 repeats of 1e300 s are 1e600 s."""
    with pytest.raises(InputError, match=rf"^t.toml: phase 'p': {what} is too large at N = 16"):
        one_phase(body, layout=Layout.torus((2, 2, 2, 2)))
