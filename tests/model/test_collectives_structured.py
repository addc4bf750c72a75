"""Structured counting of the schedules (collectives.structured, the pattern rounds of
schedules._Rounds) against the message-by-message mapper: every round built out and
mapped with Layout.rank_traffic, merged as schedule() merges them."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.model.collectives import Layout, schedule, structured
from icnperf.model.collectives.schedules import _rounds
from tests.model.structured_oracle import assert_counted_like_the_mapper

ALGORITHMS = [("pairwise", "alltoall"), ("pairwise", "allgather"), ("bruck", "alltoall"),
              ("bruck", "allgather"), ("bruck", "barrier"), ("ring", "allreduce"),
              ("ring", "allgather"), ("ring", "broadcast"),
              ("recursive-doubling", "allgather"), ("recursive-doubling", "allreduce"),
              ("recursive-doubling", "barrier"), ("recursive-doubling", "broadcast"),
              ("rabenseifner", "allreduce"), ("binomial", "allreduce")]


def _mapped(algorithm, operation, layout):
    """The schedule as the mapper gives it: every round's messages mapped on their own."""
    rounds = _rounds(algorithm, operation, layout.ranks)
    merged = {}
    for (count, fraction, combine, src, dst), blocks, last in zip(rounds.rounds,
                                                                  rounds.blocks, rounds.last):
        hops, load, host, intra = layout.rank_traffic(src, dst)
        carriers = None if last is None else layout.rank_traffic(src[last], dst[last])
        step = (fraction, hops, load, combine, host, intra, blocks, carriers)
        merged[step] = merged.get(step, 0) + count
    return [(count, *step) for step, count in merged.items()]


def _layouts(draw):
    kind = draw(st.sampled_from(["torus", "power-torus", "part-torus", "crossbar", "fattree",
                                 "dragonfly", "drawn-dragonfly"]))
    if kind == "torus":
        radices = draw(st.lists(st.integers(2, 6), min_size=1, max_size=3).filter(
            lambda k: math.prod(k) <= 150))
        layout = Layout.torus(radices)
    elif kind == "power-torus":
        layout = Layout.torus(draw(st.lists(st.sampled_from([2, 4, 8]), min_size=1,
                                            max_size=3).filter(lambda k: math.prod(k) <= 128)))
    elif kind == "part-torus":
        # a job on the first n endpoints of a larger torus (sizing's job_layout)
        radices = tuple(draw(st.lists(st.integers(2, 6), min_size=1, max_size=3).filter(
            lambda k: 3 <= math.prod(k) <= 150)))
        layout = Layout(draw(st.integers(2, math.prod(radices) - 1)), radices)
    elif kind == "drawn-dragonfly":
        p, a, h = (draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 2)))
        layout = Layout.from_topology(f"dragonfly:p={p},a={a},h={h}")
        if draw(st.booleans()) and layout.endpoints > 2:
            layout = layout.on_part(draw(st.integers(2, layout.endpoints - 1)))
    elif kind == "crossbar":
        layout = Layout.crossbar(draw(st.integers(2, 40)))
    elif kind == "fattree":
        layout = Layout.from_topology("fattree:k=4,n=2")
    else:
        layout = Layout.from_topology("dragonfly:p=2,a=4,h=2")
    if layout.is_torus:
        layout = layout.routed(draw(st.sampled_from(["plus", "split"])))
    ppn = draw(st.sampled_from([1, 1, 2, 3]))
    placement = draw(st.sampled_from(["linear", "linear", "random"]))
    if layout.ranks * ppn > 200:
        ppn = 1
    return layout.placed(ppn, placement, seed=draw(st.integers(0, 3)))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_schedules_equal_the_mapper(data):
    layout = _layouts(data.draw)
    algorithm, operation = data.draw(st.sampled_from(ALGORITHMS))
    steps = [tuple(step) for step in schedule(algorithm, operation, layout)]
    assert steps == _mapped(algorithm, operation, layout)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_alltoall_pattern_equals_the_mapper(data):
    layout = _layouts(data.draw)
    ranks = np.arange(layout.ranks)
    src, dst = np.repeat(ranks, layout.ranks), np.tile(ranks, layout.ranks)
    keep = src != dst
    assert structured.alltoall_traffic(layout) == layout.rank_traffic(src[keep], dst[keep])


def test_pairwise_at_full_fugaku_scale_is_counted_not_mapped():
    # 24x23x24x2x3x2 = 158,976 ranks: P - 1 shift rounds, counted in structure; the busiest
    # channel of any shift is at most that of the worst single-ring move, 12 (half of 24)
    layout = Layout.torus((24, 23, 24, 2, 3, 2))
    steps = schedule("pairwise", "alltoall", layout)
    assert sum(step.count for step in steps) == 158_975
    assert max(step.hops for step in steps) == 12 + 11 + 12 + 1 + 1 + 1
    assert max(step.load for step in steps) == 12


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_rank_traffic_of_shared_nodes_equals_every_message_routed(data):
    """With several ranks a node, rank_traffic routes each node pair once with its count:
    the same as routing every inter-node message."""
    radices = data.draw(st.lists(st.integers(2, 5), min_size=1, max_size=3).filter(
        lambda k: math.prod(k) <= 60))
    layout = Layout.torus(radices).routed(data.draw(st.sampled_from(["plus", "split"])))
    layout = layout.placed(data.draw(st.integers(2, 4)),
                           data.draw(st.sampled_from(["linear", "random"])))
    count = data.draw(st.integers(1, 200))
    src = np.array(data.draw(st.lists(st.integers(0, layout.ranks - 1), min_size=count,
                                      max_size=count)))
    dst = np.array(data.draw(st.lists(st.integers(0, layout.ranks - 1), min_size=count,
                                      max_size=count)))
    _assert_rank_traffic_routed(layout, radices, src, dst)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_rank_traffic_of_a_halo_in_runs_equals_every_message_routed(data):
    """A halo over ranks placed several a node sends in runs of equal node pairs (the ranks
    of a node by one offset), which rank_traffic counts without sorting: the same (hops,
    load, host, intra) as routing every inter-node message."""
    from icnperf.model.apps.patterns import halo_grid, halo_pairs

    radices = data.draw(st.lists(st.integers(2, 6), min_size=1, max_size=3).filter(
        lambda k: math.prod(k) <= 120))
    layout = Layout.torus(radices).routed(data.draw(st.sampled_from(["plus", "split"])))
    layout = layout.placed(data.draw(st.integers(2, 8)))
    grid = halo_grid(layout.ranks, data.draw(st.integers(1, 3)))
    src, dst, _ = halo_pairs(grid, data.draw(st.booleans()))
    _assert_rank_traffic_routed(layout, radices, src, dst)


def test_skeleton_alltoall_at_full_fugaku_scale_is_a_closed_form():
    """A p2p all-to-all over 158,976 ranks (25 billion messages, refused before): the
    diameter 12+11+12+1+1+1 = 38 hops; the busiest ring is a 24-ring: its own all-to-all
    loads a + channel 1+...+11 = 66 plus 12 for the ties (ties +), and each of its lines
    carries 158,976 / 24 = 6,624 copies (the 23-ring: 66 x 6,912 = 456,192, less)."""
    from icnperf.model.apps.patterns import p2p_mapping

    layout = Layout.torus((24, 23, 24, 2, 3, 2))
    assert tuple(p2p_mapping(layout, "alltoall", 158_976, 1)) == (38, 78 * 6_624, 1, False,
                                                                  158_975)
    # 4x6 torus, two ranks a node: node load (4-ring: 1 + 2 = 3, x 6 lines' copies;
    # 6-ring: 1 + 2 + 3 = 6, x 4) x 2^2 = 96; 2 x 2 x 23 = 92 messages through an adapter
    placed = Layout.torus((4, 6)).placed(2)
    assert tuple(p2p_mapping(placed, "alltoall", 48, 1)) == (5, 96, 92, True, 47)


def _assert_rank_traffic_routed(layout, radices, src, dst) -> None:
    """layout.rank_traffic(src, dst) against every inter-node message routed by DOR:
    (hops, max(channel load, host load), host load, any intra-node message); nothing to
    check when every message stays in its node."""
    from icnperf.model.topology.torus import dor_traffic

    ends = layout.rank_endpoints()
    a, b = ends[src], ends[dst]
    inter = a != b
    if not inter.any():
        return
    host = max(np.bincount(a[inter]).max(), np.bincount(b[inter]).max())
    hops, load = dor_traffic(radices, a[inter], b[inter], layout.ring_ties)
    assert layout.rank_traffic(src, dst) == (hops, max(load, host), host,
                                             bool((~inter).any()))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_rank_shifts_counted_line_by_line_equal_the_mapper(data):
    """structured.shifted_traffic: rank shifts over drawn sets of sources, several ranks a
    node (offsets that split a node's ranks over two node shifts, and offsets within a
    node), both tie rules: the same (hops, load, host, intra) as Layout.rank_traffic of
    the explicit messages."""
    radices = data.draw(st.lists(st.integers(2, 6), min_size=1, max_size=3).filter(
        lambda k: math.prod(k) <= 120))
    layout = Layout.torus(radices).routed(data.draw(st.sampled_from(["plus", "split"])))
    layout = layout.placed(data.draw(st.integers(1, 4)))
    p = layout.ranks
    shifts, src, dst = [], [], []
    for _ in range(data.draw(st.integers(1, 4))):
        offset = data.draw(st.integers(-p, p))
        chosen = np.array(data.draw(st.lists(st.booleans(), min_size=p, max_size=p)))
        sources = np.flatnonzero(chosen)
        shifts.append((offset, sources))
        src.append(sources)
        dst.append((sources + offset) % p)
    src, dst = np.concatenate(src), np.concatenate(dst)
    assert structured.shifted_traffic(layout, shifts) == layout.rank_traffic(src, dst)


def test_rank_shifts_need_a_whole_linear_torus():
    import pytest

    from icnperf.errors import InputError

    for layout in (Layout.torus((4, 4)).placed(1, "random"), Layout(10, (4, 4)),
                   Layout.crossbar(8)):
        assert not structured.counts_shifts(layout)
        with pytest.raises(InputError, match="counted on a torus the job fills"):
            structured.shifted_traffic(layout, [(1, np.arange(4))])
    assert structured.shifted_traffic(Layout.torus((4, 4)).placed(2), []) == (0, 0, 0, False)


def _torus_or_crossbar(draw):
    kind = draw(st.sampled_from(["torus", "power-torus", "crossbar"]))
    if kind == "crossbar":
        return Layout.crossbar(draw(st.integers(2, 12)))
    if kind == "power-torus":
        radices = draw(st.lists(st.sampled_from([2, 4, 8]), min_size=1, max_size=3).filter(
            lambda k: math.prod(k) <= 64))
    else:
        radices = draw(st.lists(st.integers(2, 6), min_size=1, max_size=3).filter(
            lambda k: math.prod(k) <= 90))
    return Layout.torus(radices).routed(draw(st.sampled_from(["plus", "split"])))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_whole_job_rank_shifts_and_xors_with_shared_nodes_equal_the_mapper(data):
    """structured.shift_traffic / xor_traffic on a whole torus or crossbar with several
    ranks a node, placed linearly (a rank shift is two node shifts; an XOR one node XOR or
    none): per drawn step, the same (hops, load, host, intra) as Layout.rank_traffic."""
    layout = _torus_or_crossbar(data.draw)
    ppn = data.draw(st.sampled_from([1, 2, 3, 4]) if layout.endpoints & (layout.endpoints - 1)
                    else st.sampled_from([1, 2, 4]))
    assert_counted_like_the_mapper(data, layout.placed(ppn), max_steps=12)


def test_pairwise_at_fugaku_scale_with_four_ranks_a_node_is_counted():
    """Fugaku at its default 4 ranks a node: 635,904 ranks, P - 1 = 635,903 shift steps.
    Step i moves 4 - i mod 4 of a node's ranks by floor(i / 4) nodes and the others one node
    further: the busiest channel is at most 4 x 12 (a half 24-ring, ties +), reached at
    i = 4 x 12 (every rank moves 12 nodes along dimension 0); 4 messages through each
    adapter whenever no rank stays on its node; intra-node messages in the steps i = 1, 2,
    3 (floor(i / 4) = 0: the i mod 4 far ones leave) and the last three (the far move
    wraps onto the node itself, 4 - i mod 4 = 3, 2, 1 leave)."""
    layout = Layout.torus((24, 23, 24, 2, 3, 2)).placed(4)
    steps = schedule("pairwise", "alltoall", layout)
    assert sum(step.count for step in steps) == 635_903
    assert max(step.load for step in steps) == 48
    assert max(step.hops for step in steps) == 12 + 11 + 12 + 1 + 1 + 1
    assert sorted((step.host, step.count) for step in steps if step.intra) == [
        (1, 2), (2, 2), (3, 2)]
    assert {step.host for step in steps if not step.intra} == {4}
