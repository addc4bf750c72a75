"""The pieces of the proxy against brute force and the models they bound: block counts,
hop and load bounds per family (each <= the model's own mapping of the round), the round
and tree times, the fewest-rounds argument, the torus bounds and the job partitions."""

import itertools

import numpy as np
import pytest

from icnperf.data.machine import load_machine
from icnperf.model.apps import heat
from icnperf.model.collectives import Layout, collective_parameters, collective_time
from icnperf.model.collectives.api import evaluate
from icnperf.model.collectives.layout import MAX_RANKS
from icnperf.model.collectives.registry import TABLE
from icnperf.model.collectives.schedules import Step, schedule_time
from icnperf.model.sizing import bound
from icnperf.model.sizing.partition import box_shapes, partition, partition_index
from icnperf.model.sizing.traffic import algorithm_rounds, block_traffic, shift_classes
from icnperf.model.sizing.views import (
    Dragonfly,
    FatTree,
    Megafly,
    TorusPartitions,
    dragonfly_min_hops,
    farthest_rank,
    torus_halo,
)
from icnperf.model.sizing.workload import UNSCREENED_ALGORITHMS
from icnperf.model.topology import dragonfly, fattree, torus

MACHINE = load_machine("angara-3d")
PARAMS = collective_parameters(MACHINE, "mpi")
P2P = [(a, o) for (a, o), entry in TABLE.items()
       if entry.steps is not None and a not in UNSCREENED_ALGORITHMS]
"""The point-to-point schedules a sizing workload may use (workload.UNSCREENED_ALGORITHMS
receive from many ranks in one step and are refused there)."""


TEXTBOOK = ("binomial", "recursive-doubling", "ring", "rabenseifner", "bruck")
"""The textbook schedules, whose rounds the tightness checks count (the all-at-once linear
and pairwise steps are bounded too, but their many-pair rounds are rarely reached)."""


def rounds_of(ranks, algorithms=None):
    """Every distinct round of every point-to-point schedule on ``ranks`` ranks (of
    ``algorithms`` only, when given)."""
    seen = {}
    for algorithm, operation in P2P:
        if algorithms is not None and algorithm not in algorithms:
            continue
        for r in algorithm_rounds(algorithm, operation, ranks):
            seen[r.key] = r
    return list(seen.values())


def brute_blocks(src, dst, b):
    """pair (per shift class, the classes block_traffic counts), out, into, crosses."""
    keep = np.zeros(len(src), dtype=bool)
    for c, _ in shift_classes(src, dst):
        keep |= dst - src == c
    src, dst = src[keep], dst[keep]
    bs, bd = src // b, dst // b
    crossing = bs != bd
    pair = 0
    for c in np.unique(dst - src):
        chosen = (dst - src == c) & crossing
        if chosen.any():
            pair = max(pair, np.unique(bs[chosen] * 10**6 + bd[chosen],
                                       return_counts=True)[1].max())
    out = np.bincount(bs[crossing]).max() if crossing.any() else 0
    into = np.bincount(bd[crossing]).max() if crossing.any() else 0
    return int(pair), int(out), int(into), bool(crossing.any())


@pytest.mark.parametrize("ranks", [37, 64, 100])
def test_block_counts_equal_brute_force(ranks):
    sizes = np.arange(1, ranks + 3)
    for r in rounds_of(ranks):
        counts = block_traffic(r.sources, r.destinations, sizes, ranks)
        for i, b in enumerate(sizes):
            got = (counts.pair[i], counts.out[i], counts.into[i], counts.crosses[i])
            assert tuple(int(v) for v in got) == brute_blocks(r.sources, r.destinations, b)


def table_for(rounds, sizes, ranks):
    done = {r.key: block_traffic(r.sources, r.destinations, sizes, ranks) for r in rounds}
    return lambda r, s: done[r.key].at(s)


@pytest.mark.parametrize("p, a, h, ranks", [
    (2, 4, 2, 64), (3, 3, 2, 50), (1, 5, 1, 30), (4, 2, 3, 56), (2, 6, 1, 84), (5, 1, 4, 25),
    (3, 4, 3, 100), (2, 3, 5, 96)])
def test_dragonfly_bounds_are_below_the_min_routes(p, a, h, ranks):
    """Every round of every schedule: the bound's hops and load never exceed
    dragonfly_route_hops / dragonfly_route_load (the model's MIN routes), and on these
    small designs they reach them in most rounds."""
    view = Dragonfly(np.array([p]), np.array([a]), np.array([h]))
    rounds = rounds_of(ranks)
    textbook = {r.key for r in rounds_of(ranks, TEXTBOOK)}
    table = table_for(rounds, view.block_sizes(), ranks)
    exact_rounds = 0
    for r in rounds:
        hops, load = view(table, r)
        true_hops = dragonfly.dragonfly_route_hops(p, a, h, r.sources, r.destinations).max()
        true_load = max(1, dragonfly.dragonfly_route_load(p, a, h, r.sources, r.destinations))
        assert hops[0] <= true_hops and load[0] <= true_load
        exact_rounds += (hops[0] == true_hops and load[0] == true_load
                         and r.key in textbook)
    assert exact_rounds >= 0.6 * len(textbook)


def test_dragonfly_hop_formula_equals_the_topology_module():
    rng = np.random.default_rng(5)
    for p, a, h in [(1, 1, 1), (2, 4, 2), (3, 5, 1), (7, 2, 6), (4, 8, 4)]:
        n = a * p * (a * h + 1)
        src, dst = rng.integers(0, n, 300), rng.integers(0, n, 300)
        expected = dragonfly.dragonfly_route_hops(p, a, h, src, dst)
        assert (dragonfly_min_hops(p, a, h, src, dst) == expected).all()


@pytest.mark.parametrize("k, ranks", [(2, 20), (3, 90), (4, 200), (5, 300)])
def test_megafly_bounds_are_below_the_min_routes(k, ranks):
    view = Megafly(np.array([k]))
    rounds = rounds_of(ranks)
    table = table_for(rounds, view.block_sizes(), ranks)
    for r in rounds:
        hops, load = view(table, r)
        assert hops[0] == dragonfly.megafly_route_hops(k, r.sources, r.destinations).max()
        assert load[0] <= max(1, dragonfly.megafly_route_load(k, r.sources, r.destinations))


@pytest.mark.parametrize("k, n, ranks", [(2, 3, 16), (3, 3, 27), (4, 2, 30), (2, 5, 64),
                                         (1, 3, 2)])
def test_fattree_bounds_equal_the_nca_model(k, n, ranks):
    """The fat tree's hop and load formulas are the model's own, on the counted messages;
    every shift class is counted here, so they are equal."""
    view = FatTree(np.array([k]), np.array([n]))
    rounds = rounds_of(ranks)
    table = table_for(rounds, view.block_sizes() if n > 1 else [1], ranks)
    for r in rounds:
        hops, load = view(table, r)
        if len(shift_classes(r.sources, r.destinations)) < len(np.unique(r.destinations
                                                                        - r.sources)):
            continue          # some classes left out: only a bound
        assert hops[0] == fattree.nca_hops(k, n, r.sources, r.destinations).max()
        assert load[0] == max(1, fattree.nca_message_load(k, n, r.sources, r.destinations))


@pytest.mark.parametrize("shape", [(4, 4, 4), (2, 8, 8), (3, 5, 7), (2, 2, 2, 2, 2, 2)])
def test_torus_partition_hops_are_below_dimension_order_routes(shape):
    ranks = int(np.prod(shape))
    view = TorusPartitions(np.array([shape]))
    for r in rounds_of(ranks):
        hops, load = view(None, r)
        true_hops, _ = torus.dor_traffic(shape, r.sources, r.destinations, "split")
        assert hops[0] <= true_hops and load[0] == 1


def test_round_time_with_exact_hops_and_load_is_schedule_time():
    layout = Layout(40, None, ("dragonfly", 2, 4, 2))
    for algorithm, operation in [("recursive-doubling", "allreduce"), ("ring", "allgather"),
                                 ("rabenseifner", "allreduce"), ("bruck", "alltoall")]:
        def mapped(r):
            hops, load = layout.traffic(r.sources, r.destinations)
            return hops, max(load, 1)

        rounds = algorithm_rounds(algorithm, operation, 40)
        # 3072 B = 384 doubles, 12 in each of Rabenseifner's 32 blocks: the even split, so
        # equal; 3000 B = 375 doubles leaves 23 in the last block: the bound stays below
        for m, equal in ((3072.0, True), (3000.0, algorithm != "rabenseifner")):
            exact = float(collective_time(MACHINE, operation, algorithm, [m],
                                          layout=layout).time[0])
            got = float(bound.rounds_time(rounds, m, mapped, PARAMS))
            if equal:
                assert got == pytest.approx(exact, rel=1e-12)
            else:
                assert got < exact


def test_tree_times_equal_the_model():
    for shape in [(4, 4, 4), (3, 5, 2), (7,)]:
        layout = Layout.torus(shape).routed("split")
        depth, ties = layout.depth, layout.tree_ties
        for algorithm in ("hw-tree", "p2p-tree"):
            for operation in ("broadcast", "reduce", "allreduce", "allgather", "barrier"):
                if (algorithm, operation) not in TABLE:
                    continue
                expected = evaluate(operation, algorithm, 5000.0, layout, PARAMS)
                got = bound.tree_time(operation, algorithm, 5000.0, np.array([depth]),
                                      np.array([ties]), np.array([depth]),
                                      np.array([layout.endpoints]), PARAMS)
                assert float(np.ravel(got)[0]) == pytest.approx(float(expected), rel=1e-12)


@pytest.mark.parametrize("ranks", [2, 3, 5, 8, 13, 64, 100, 257])
def test_every_schedule_has_at_least_ceil_lg_rounds_of_one_receive_each(ranks):
    """The premises of bound.fewest_rounds, checked on every point-to-point schedule."""
    floor = int(bound.fewest_rounds(ranks))
    for algorithm, operation in P2P:
        rounds = algorithm_rounds(algorithm, operation, ranks)
        assert sum(r.count for r in rounds) >= floor
        for r in rounds:
            assert np.bincount(r.destinations).max() <= 1


@pytest.mark.parametrize("shape, ranks", [((4, 4, 4), 64), ((3, 5, 7), 105), ((2, 9, 9), 120),
                                          ((6, 6), 30)])
def test_universal_bound_is_below_every_algorithm_on_a_torus(shape, ranks):
    layout = Layout(ranks, shape).routed("split")
    farthest = farthest_rank(np.array([shape]), ranks)
    for algorithm, operation in P2P:
        m = 0.0 if operation == "barrier" else 70_000.0
        actual = float(collective_time(MACHINE, operation, algorithm,
                                       None if operation == "barrier" else [m],
                                       layout=layout).time[0])
        floor = float(bound.universal_rounds_time(operation, m, ranks, farthest, PARAMS)[0])
        assert floor <= actual


@pytest.mark.parametrize("shape", [(4, 5, 6), (2, 2, 9), (7, 3), (3, 4, 5, 2)])
def test_farthest_rank_is_a_true_distance_and_the_diameter_on_a_whole_torus(shape):
    k = np.array([shape])
    total = int(np.prod(shape))
    for ranks in (2, total // 3, total - 1, total):
        coordinates = torus.endpoint_coordinates(shape, np.arange(ranks))
        origin = np.zeros_like(coordinates)
        largest = int(torus.hop_distance(shape, origin, coordinates).max())
        assert farthest_rank(k, ranks)[0] <= largest
    assert farthest_rank(k, total)[0] == sum(s // 2 for s in shape)


@pytest.mark.parametrize("shape, nodes", [((8, 8, 8), 512), ((5, 6, 7), 210), ((4, 4, 9), 100),
                                          ((2, 16, 16), 500), ((3, 3, 3, 3), 81)])
def test_torus_halo_bounds_are_below_the_heat_models_phases(shape, nodes):
    px, py = heat.process_grid(nodes)
    nx, ny = heat.grid_shape(10**6)
    layout = Layout(nodes, shape).routed("split")
    phases = heat.halo_phases(layout, px, py, -(-nx // px), -(-ny // py))
    bounds = torus_halo(np.array([shape]), np.array([px]), np.array([py]), "split", nodes)
    exists = [px > 1, py > 1]
    steps = iter(phases)
    for (hops, load), there in zip(bounds, exists):
        if not there:
            continue
        _, step = next(steps)
        assert hops[0] <= step.hops and load[0] <= step.load


def test_partition_is_the_balanced_shape_when_it_fits_and_a_brute_force_choice_otherwise():
    assert partition((8, 8, 8), 64) == (4, 4, 4) == torus.balanced_torus_shape(64, 3)
    assert partition((2, 2, 2500), 10_000) == (2, 2, 2500)
    assert partition((22, 22, 22), 10_000) is None          # 20 x 20 x 25 does not fit
    for shape in [(3, 7, 11), (4, 4, 16), (2, 9, 10), (5, 5, 5)]:
        for nodes in range(8, int(np.prod(shape)) + 1, 7):
            fits = [s for s in itertools.product(*(range(2, k + 1) for k in sorted(shape)))
                    if np.prod(s) == nodes and list(s) == sorted(s)]
            fits = [s for s in fits if all(a <= b for a, b in zip(s, sorted(shape)))]
            best = min(fits, key=lambda s: (s[-1], sum(s), s)) if fits else None
            assert partition(shape, nodes) == best
    radices = np.array([[3, 7, 11], [4, 4, 16], [22, 22, 22]])
    index = partition_index(radices, 48)
    assert [box_shapes(48, 3)[i] if i >= 0 else None for i in index] == [
        partition(r, 48) for r in radices.tolist()]


def test_layout_of_a_spread_job_keeps_the_rank_count():
    """A job on the first n endpoints of a torus (no partition fits): the model maps its n
    ranks (schedules use Layout.ranks)."""
    layout = Layout(30, (4, 4, 4))
    assert layout.ranks == 30 < MAX_RANKS
    steps = collective_time(MACHINE, "allreduce", "recursive-doubling", [8], layout=layout)
    assert steps.endpoints == 30


def test_step_record_is_the_schedules():
    """bound.rounds_time charges a round as schedules.Step with host 1, no intra copy."""
    step = Step(1, 1, 3, 2, False)
    expected = schedule_time(1000.0, (step,), **{k: v for k, v in PARAMS.items()
                                                 if k not in ("collective_trees",
                                                              "collective_store_and_forward")})
    assert float(bound.round_time(1000.0, 3, 2, False, PARAMS)) == pytest.approx(expected)
