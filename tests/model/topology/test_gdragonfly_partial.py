"""Rank shifts of a job on part of a gdragonfly (linear placement, the last group partly
filled or groups left empty) counted on one group of each kind a step
(dragonfly.general_partial, collectives.structured) against Layout.rank_traffic of the
explicit messages, the oracle."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.model.collectives import Layout, structured
from icnperf.model.topology.dragonfly import general_partial


def _mapped(layout, steps):
    ranks = np.arange(layout.ranks)
    return [layout.rank_traffic(ranks, (ranks + d) % layout.ranks) for d in steps]


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_partial_gdragonfly_rank_shifts_equal_the_mapper(data):
    """Drawn gdragonfly shapes, a job on its first N < E nodes, 1-4 ranks a node, drawn
    shift steps: (hops, load, host, intra) of each step as the mapper's."""
    draw = data.draw
    params = (draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 3)),
              draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(2, 6)),
              draw(st.integers(1, 14)))
    total = params[0] * params[1] * params[2] * params[5]
    if total < 3:
        return
    spec = "gdragonfly:p={},a={},b={},la={},lb={},g={},m={}".format(*params)
    nodes = draw(st.integers(2, total - 1))
    layout = Layout.machine_job(spec, nodes).placed(draw(st.integers(1, 4)))
    p = layout.ranks
    steps = draw(st.lists(st.integers(1, p - 1), min_size=1, max_size=10))
    assert structured.shift_traffic(layout, steps) == _mapped(layout, steps)
    assert structured.counts_steps_in_structure(layout) == bool(p & (p - 1))


def test_hand_worked_step():
    """gdragonfly p=1, a=2, g=3, m=1 (two routers a group, one node each), a job on 5 of
    its 6 nodes, shift by 1: 1 -> 2 leaves group 0 from router 1 by its port owner router
    0 and lands on router 1 of group 1 (port (g - o - 1)·m = 1), then 1 -> 0 there: 3
    hops. 3 -> 4 also leaves group 1 from router 1 by router 0: group 1's 1 -> 0 channel
    carries two messages; 4 -> 0 wraps to offset 1 and lands on router 1 of group 0,
    whose 1 -> 0 channel also carries 1 -> 2's source leg: two again."""
    layout = Layout.machine_job("gdragonfly:p=1,a=2,g=3,m=1", 5)
    assert structured.shift_traffic(layout, [1]) == [(3, 2, 1, False)]
    assert _mapped(layout, [1]) == [(3, 2, 1, False)]


def test_counting_in_chunks_gives_the_same_steps(monkeypatch):
    """Steps are counted in chunks to bound memory: with chunks of one step every pairwise
    step of a small partial gdragonfly at 1 and 3 ranks a node still equals the mapper."""
    monkeypatch.setattr(general_partial, "CHUNK_CELLS", 1)
    for spec, nodes, ppn in (("gdragonfly:p=2,a=3,b=2,g=3,m=2", 29, 3),
                             ("gdragonfly:p=3,a=2,g=4,m=3", 17, 1)):
        layout = Layout.machine_job(spec, nodes).placed(ppn)
        steps = list(range(1, layout.ranks))
        assert structured.shift_traffic(layout, steps) == _mapped(layout, steps)


def test_bundled_partial_jobs_equal_the_mapper_on_sampled_steps():
    """Frontier's 9,408 of 9,472 nodes at 8 ranks a node, Piz Daint's 5,320 of 5,376 and
    LUMI-G's 2,978 of 3,072 at one: sampled steps (whole groups, wrap points, the last)
    as the mapper's; the jobs count their steps in structure (P not a power of two)."""
    for spec, nodes, ppn, steps in (
            ("gdragonfly:p=4,a=32,g=74,m=4", 9408, 8, [1, 7, 8, 1023, 1024, 75_263]),
            ("gdragonfly:p=4,a=16,b=6,lb=3,g=14,m=73", 5320, 1, [1, 384, 4936, 5319]),
            ("gdragonfly:p=4,a=32,g=24,m=20", 2978, 1, [1, 128, 2850, 2977])):
        layout = Layout.machine_job(spec, nodes).placed(ppn)
        assert structured.counts_steps_in_structure(layout)
        assert structured.shift_traffic(layout, steps) == _mapped(layout, steps)
