"""Whole-job rank shifts and XORs counted in structure on network families (the pairwise
all-to-all and all-gather steps; collectives.structured and network_steps with
topology.dragonfly.general_patterns and plus_patterns) against Layout.rank_traffic of
the explicit messages, the oracle, on drawn shapes, processes per node and steps."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.model.collectives import Layout, network_steps, schedule, structured
from icnperf.model.topology.dragonfly import general_patterns
from icnperf.model.topology.dragonfly.general_routes import (gdragonfly_route_hops,
                                                             gdragonfly_route_load)
from tests.model.structured_oracle import assert_counted_like_the_mapper


def _busiest(module, params, batches, batch, cls, units):
    """Per batch: the most units on one channel over its class's units a message, rounded
    up (the mappers' rounding)."""
    load = np.zeros(batches, dtype=np.int64)
    per = module.divisors(params)
    for b, k, u in zip(batch.tolist(), cls.tolist(), units.tolist()):
        load[b] = max(load[b], -(-u // int(per[k])))
    return load


def _gdragonfly(draw):
    p, a, b = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    la, lb = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    g, m = draw(st.integers(2, 5)), draw(st.integers(1, 5))
    return (p, a, b, la, lb, g, m)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_gdragonfly_node_shifts_and_xors_equal_the_mapper(data):
    """general_patterns.shift_units (one group's messages, every channel counted in group
    0) and xor_units: per node shift or XOR, the largest hops and the busiest channel of
    gdragonfly_route_hops / gdragonfly_route_load on the N explicit messages."""
    params = _gdragonfly(data.draw)
    total = params[0] * params[1] * params[2] * params[5]
    if total < 2:
        return
    nodes = np.arange(total)
    shifts = np.array(sorted(set(data.draw(st.lists(st.integers(1, total - 1), min_size=1,
                                                    max_size=8)))))
    hops, (batch, cls, _, units) = general_patterns.shift_units(params, shifts)
    load = _busiest(general_patterns, params, shifts.size, batch, cls, units)
    for i, d in enumerate(shifts.tolist()):
        destinations = (nodes + d) % total
        assert hops[i] == gdragonfly_route_hops(*params, nodes, destinations).max()
        assert load[i] == gdragonfly_route_load(*params, nodes, destinations)
    if total & (total - 1) == 0:
        hops, (batch, cls, _, units) = general_patterns.xor_units(params, shifts)
        load = _busiest(general_patterns, params, shifts.size, batch, cls, units)
        for i, mask in enumerate(shifts.tolist()):
            assert hops[i] == gdragonfly_route_hops(*params, nodes, nodes ^ mask).max()
            assert load[i] == gdragonfly_route_load(*params, nodes, nodes ^ mask)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_gdragonfly_rank_shifts_with_shared_nodes_equal_the_mapper(data):
    """A whole gdragonfly, nodes placed linearly, 1-4 ranks a node: every rank shift
    (and XOR where P is a power of two) of the pairwise schedule gives the same (hops,
    load, host, intra) as Layout.rank_traffic of its P messages."""
    params = _gdragonfly(data.draw)
    layout = Layout.from_topology("gdragonfly:p={},a={},b={},la={},lb={},g={},m={}".format(
        *params))
    ppn = data.draw(st.sampled_from([1, 2, 3, 4] if layout.endpoints & (layout.endpoints - 1)
                                    else [1, 2, 4]))
    layout = layout.placed(ppn)
    p = layout.ranks
    if p < 2 or p > 600:
        return
    assert_counted_like_the_mapper(data, layout)


def test_aurora_pairwise_at_twelve_ranks_a_node_is_counted():
    """Aurora's gdragonfly:p=2,a=32,g=166,m=2 at 12 ranks a node: 127,488 ranks, 127,487
    shift steps. A step moving every rank by whole groups (i = 12 x 64 x o) sends the 64
    nodes x 12 ranks of a group to one other group over its m = 2 links: 384 messages a
    global channel, the most any step puts there (a group's 768 messages go to at most
    two groups, all to one in those steps); every route at most local + global + local =
    3 hops."""
    layout = Layout.from_topology("gdragonfly:p=2,a=32,g=166,m=2").placed(12)
    steps = schedule("pairwise", "alltoall", layout)
    assert sum(step.count for step in steps) == 127_487
    assert max(step.load for step in steps) == 384
    assert max(step.hops for step in steps) == 3


def _dfplus(draw):
    p, l, s, h = (draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3)),
                  draw(st.integers(1, 3)))
    g = draw(st.integers(2, s * h + 1))
    return (p, l, s, h, g, draw(st.integers(1, 2)))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_dfplus_rank_shifts_with_shared_nodes_equal_the_mapper(data):
    """A whole dfplus (drawn sizes, group counts below the maximum leaving ports
    unconnected, one or two cables), nodes placed linearly, 1-4 ranks a node: every drawn
    rank shift and XOR against Layout.rank_traffic (DFPlus.hops and pattern_load on the
    explicit messages)."""
    params = _dfplus(data.draw)
    layout = Layout.from_topology("dfplus:p={},l={},s={},h={},g={},c={}".format(*params))
    ppn = data.draw(st.sampled_from([1, 2, 3, 4] if layout.endpoints & (layout.endpoints - 1)
                                    else [1, 2, 4]))
    layout = layout.placed(ppn)
    p = layout.ranks
    if p > 600:
        return
    assert_counted_like_the_mapper(data, layout)


def test_dfplus_group_shift_hand_worked():
    """dfplus:p=2,l=2,s=2,h=1 (g = 3, m = 1): the node shift by one group (4 nodes) sends
    each group's 4 messages to the next group over its one link of offset 1: 4 messages on
    that global port, 3 hops; each leaf's 2 messages climb to the spine owning the port, 2
    on that up cable. Four ranks a node: 16 on the port."""
    layout = Layout.from_topology("dfplus:p=2,l=2,s=2,h=1")
    assert structured.shift_traffic(layout, [4]) == [(3, 4, 1, False)]
    assert structured.shift_traffic(layout.placed(4), [16]) == [(3, 16, 4, False)]


TREES = ["fattree:k=4,n=2", "fattree:k=4,n=3", "clos:radix=6,levels=2", "clos:radix=6,levels=3",
         "xgft:m=3x4,w=1x2", "xgft:m=4x3x2,w=1x2x2", "xgft:m=2x2x4,w=1x2x3,p=1x2x1",
         "xgft:m=4x4,w=1x2", "xgft:m=8x4,w=1x3"]


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_fat_tree_rank_shifts_and_xors_equal_the_mapper(data):
    """A fat tree under random up ports (the pigeonhole count per pod; tapered ones too),
    whole or a job on its first nodes, 1-4 ranks a node: every drawn rank shift (and XOR
    where P is a power of two and the pods that split the job are too) against
    Layout.rank_traffic."""
    layout = Layout.from_topology(data.draw(st.sampled_from(TREES))).tree_routed("random")
    if data.draw(st.booleans()):
        layout = layout.on_part(data.draw(st.integers(2, layout.endpoints - 1)))
    layout = layout.placed(data.draw(st.integers(1, 4)))
    if layout.ranks > 400 or not structured.counts_steps_in_structure(layout):
        return
    assert_counted_like_the_mapper(data, layout)


def test_summit_pairwise_at_six_ranks_a_node_by_hand():
    """Summit's job: 4,608 nodes on the first endpoints of clos:radix=36,levels=3 (pods
    of 18 nodes under a leaf, 18 up channels each; 324 under a level-2 switch set, 324
    up channels), random up ports. The step i = 6 x 18 (every rank moves one leaf on):
    each leaf's 108 messages leave it, 6 a channel; a level-2 pod keeps all but its last
    leaf's 108, 1 a channel: load 6, hops 4. i = 6 x 324 moves whole level-2 pods: each
    sends all 324 x 6 = 1,944 out, 6 a channel."""
    layout = Layout.machine_job("clos:radix=36,levels=3", 4608).tree_routed("random")
    layout = layout.placed(6)
    assert structured.shift_traffic(layout, [6 * 18, 6 * 324]) == [(4, 6, 6, False),
                                                                  (4, 6, 6, False)]
    steps = schedule("pairwise", "alltoall", layout)
    assert sum(step.count for step in steps) == 27_647


def test_counting_in_blocks_gives_the_same_steps(monkeypatch):
    """The steps are counted in blocks of node shifts (and XORs in chunks of masks) to
    bound memory: with blocks of one or two node shifts, every pairwise step on a small
    gdragonfly and dfplus at 3 and 4 ranks a node still equals the mapper."""
    monkeypatch.setattr(network_steps, "CHUNK_MESSAGES", 8)
    for spec, ppn in (("gdragonfly:p=2,a=3,b=2,g=3,m=2", 3), ("dfplus:p=2,l=2,s=2,h=2,g=3", 3),
                      ("gdragonfly:p=2,a=2,g=4,m=1", 4)):
        layout = Layout.from_topology(spec).placed(ppn)
        p = layout.ranks
        ranks = np.arange(p)
        steps = np.arange(1, p)
        assert structured.shift_traffic(layout, steps) == [
            layout.rank_traffic(ranks, (ranks + d) % p) for d in steps.tolist()]
        if p & (p - 1) == 0:
            assert structured.xor_traffic(layout, steps) == [
                layout.rank_traffic(ranks, ranks ^ i) for i in steps.tolist()]
