"""dragonfly.batch.rounds_traffic: one round on many DF(p, a, h) at once equals the
message-by-message MIN routes (routes.dragonfly_route_traffic, the oracle) design by design,
and a group shift worked out by hand."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from icnperf.model.hash_groups import hash_weights
from icnperf.model.topology.dragonfly.batch import (_distinct_routings,
                                                 rounds_traffic, router_pairs)
from icnperf.model.topology.dragonfly.routes import dragonfly_route_traffic
from tests.model.drawn_rounds import draw_round


def test_group_shift_by_hand():
    # 12 endpoints, every endpoint to the one 4 further on (mod 12): each group of 2 routers
    # x 2 endpoints sends its 4 messages to the next group. On DF(2, 2, 1) (3 groups) the
    # link to the next group is on router 0 and lands on router 1: router 0's messages take
    # global + local (2 hops), router 1's local + global (2 hops); the global channel
    # carries 4, and each group's local channel 1 -> 0 carries router 1's 2 leaving messages
    # and the 2 landing on router 1 for router 0: 4. On DF(2, 2, 2) (5 groups) the shift
    # 2 -> 0 leaves by router 1 and lands on router 0 instead, so group 0's local channels
    # carry 2 each way while group 1's 1 -> 0 still carries 4.
    sources = np.arange(12)
    hops, load = rounds_traffic(2, [2, 2], [1, 2], sources, (sources + 4) % 12)
    assert hops.tolist() == [2, 2]
    assert load.tolist() == [4, 4]


def test_no_messages_and_one_router():
    hops, load = rounds_traffic(3, [2, 3], [1, 2], [], [])
    assert hops.tolist() == [0, 0] and load.tolist() == [0, 0]
    # 0 -> 1 -> 2 on one router of 3 endpoints: no channel, 0 hops (as the routes count)
    hops, load = rounds_traffic(3, [2, 3], [1, 2], [0, 1, 2], [1, 2, 0])
    assert hops.tolist() == [0, 0] and load.tolist() == [0, 0]
    assert dragonfly_route_traffic(3, 2, 1, [0, 1, 2], [1, 2, 0]) == (0, 0)


def test_router_pairs_merge_messages():
    # p = 2: endpoints 0,1 on router 0, 2,3 on router 1, 4,5 on router 2
    rs, rd, count = router_pairs(2, [0, 1, 1, 2, 4, 0], [2, 3, 0, 4, 1, 5])
    assert list(zip(rs.tolist(), rd.tolist(), count.tolist())) == [
        (0, 1, 2), (0, 2, 1), (1, 2, 1), (2, 0, 1)]


@st.composite
def _rounds(draw):
    p = draw(st.integers(1, 5))
    designs = draw(st.lists(st.tuples(st.integers(1, 6), st.integers(1, 5)), min_size=1,
                            max_size=4))
    smallest = min(a * p * (a * h + 1) for a, h in designs)
    n = draw(st.integers(1, smallest))
    sources, destinations = draw_round(draw, n)
    return p, designs, sources, destinations


@settings(max_examples=150, deadline=None)
@given(_rounds())
def test_equals_the_routes_design_by_design(case):
    p, designs, sources, destinations = case
    hops, load = rounds_traffic(p, [a for a, _ in designs], [h for _, h in designs],
                                sources, destinations)
    for i, (a, h) in enumerate(designs):
        assert (int(hops[i]), int(load[i])) == dragonfly_route_traffic(
            p, a, h, sources, destinations)


def test_designs_of_one_routing_are_counted_once():
    # a = 2, p = 1: routers 0..3, groups {0, 1} and {2, 3}. The pair 0 -> 2 crosses from
    # group 0 to group 1 (distance 1): its link's owner is ((1 - 1) mod g) // h = 0 for any
    # h, so h = 1, 2, 3 route it alike; the pair 2 -> 0 (distance -1) is owned by
    # ((-2) mod g) // h: 1 // 1 = 1 at h = 1 (g = 3), 3 // 2 = 1 at h = 2 (g = 5), 5 // 3
    # = 1 at h = 3 (g = 7): one routing. a = 3 puts both routers in group 0: its own.
    x = np.array([[0, 1], [0, 1], [0, 1], [3, 3]])
    a = np.array([2, 2, 2, 3])
    distinct, back = _distinct_routings(a, x)
    assert len(distinct) == 2
    assert back[0] == back[1] == back[2] != back[3]
    # the same x on another a, or one x changed, is another routing
    distinct, back = _distinct_routings(np.array([2, 4, 2]),
                                        np.array([[0, 1], [0, 1], [0, 0]]))
    assert len(distinct) == 3


def test_a_hash_collision_merges_nothing():
    # rows x1 = (w2, 0) and x2 = (0, w1) of equal a hash alike (x1 . w = w1 w2 = x2 . w,
    # mod 2^64): the exact check must keep them apart
    w = hash_weights(3)
    x = np.array([[w[2], 0], [0, w[1]]], dtype=np.int64)
    assert (x @ w[1:]).tolist()[0] == (x @ w[1:]).tolist()[1]
    distinct, back = _distinct_routings(np.array([2, 2]), x)
    assert sorted(distinct.tolist()) == [0, 1] and back[0] != back[1]


def test_h_moves_the_links_by_hand():
    # 6 routers of 1 endpoint, a = 2: groups {0, 1}, {2, 3}, {4, 5}; every router to the
    # one 3 further on (mod 6). h = 1 (3 groups): group G's link to G + 1 is on router 0
    # and lands on router 1, its link to G + 2 on router 1 landing on router 0, exactly
    # where each message starts and ends: 1 hop each, every channel 1 message. h = 2 and
    # 3 (5, 7 groups): the links to G + 1 and G + 2 are both on router 0 (distances 0 and
    # 1 of the group's first h ports), so 1 -> 4 goes 1 -> 0, global, 1 -> 0 in group 2:
    # 3 hops, and no channel carries 2 (each local one serves one message)
    ranks = np.arange(6)
    hops, load = rounds_traffic(1, [2, 2, 2], [1, 2, 3], ranks, (ranks + 3) % 6)
    assert hops.tolist() == [1, 3, 3]
    assert load.tolist() == [1, 1, 1]


@st.composite
def _one_a_many_h(draw):
    # small routers and groups, so that a job spans many groups and h moves the links
    p = draw(st.integers(1, 3))
    a = draw(st.integers(1, 4))
    hs = draw(st.lists(st.integers(1, 6), min_size=2, max_size=10))
    n = draw(st.integers(1, a * p * (a * min(hs) + 1)))
    ranks = np.arange(n)
    d = draw(st.integers(0, 2 * n))
    if draw(st.booleans()):
        return p, a, hs, ranks, (ranks + d) % n
    keep = (ranks ^ d) < n
    return p, a, hs, ranks[keep], (ranks ^ d)[keep]


@settings(max_examples=150, deadline=None)
@given(_one_a_many_h())
def test_many_h_of_one_a_equal_the_routes(case):
    # many designs of one a share routings (_distinct_routings); each must still get its own
    p, a, hs, sources, destinations = case
    hops, load = rounds_traffic(p, [a] * len(hs), hs, sources, destinations)
    for i, h in enumerate(hs):
        assert (int(hops[i]), int(load[i])) == dragonfly_route_traffic(
            p, a, h, sources, destinations)
