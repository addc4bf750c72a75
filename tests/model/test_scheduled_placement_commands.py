"""A busy scheduler's placement in ``predict p2p --production`` and ``predict app
--production`` (issue #31 item 4): a ping-pong's two ranks are a two-node job placed as the
scheduler places it, a skeleton's nodes are too, and both mix the placement draws' noise
distributions."""

from __future__ import annotations

import numpy as np
import pytest

from icnperf.data.machine import load_machine
from icnperf.model import scheduled_placement as S
from icnperf.model.production import message_mixture_quantiles
from icnperf.model.scheduled_jobs import scheduled_pair_hops


def test_pair_hops_are_the_routed_first_two_free_nodes():
    """Each draw is the first two free nodes of a Bernoulli mask drawn with its seed,
    routed as --from/--to route them."""
    from icnperf.api.point_to_point import hops_between

    machine = load_machine("piz-daint")
    hops = scheduled_pair_hops(machine, draws=6, seed=3)
    expected = []
    for seed in range(3, 9):
        first, second = S.scheduled_nodes(5376, 2, 0.96, np.random.default_rng(seed))
        expected.append(hops_between(machine.topology, str(first), str(second)))
    assert hops == tuple(expected)


def test_pair_hops_grow_with_the_occupancy():
    """Nearly empty, the first two free nodes are nodes 0 and 1, on one router (0 hops);
    nearly full, they lie hundreds of nodes apart and most pairs leave the router or the
    group; no occupancy or a torus gives no scheduler's placement."""
    idle = load_machine("piz-daint").with_overrides(["production.node_occupancy=0.0001"])
    assert scheduled_pair_hops(idle) == (0,) * 16
    busy = load_machine("piz-daint").with_overrides(["production.node_occupancy=0.995"])
    assert np.mean(scheduled_pair_hops(busy)) > np.mean(
        scheduled_pair_hops(load_machine("piz-daint"))) > 0
    assert scheduled_pair_hops(load_machine("lumi")) is None
    assert scheduled_pair_hops(load_machine("fugaku").with_overrides(
        ["production.node_occupancy=0.5"])) is None


def test_message_mixture_quantiles_by_hand():
    """Two equally likely placements of 1 and 3 us, d = 10 us, q = 1 - exp(-2 f t): with
    f = ln(2) / 2e-6 the 1-us message is hit with probability 1 - 2^-1 = 1/2, the 3-us one
    with 1 - 2^-3 = 7/8. Sorted: 1 us (1/4), 3 us (1/16), 11 us (1/4), 13 us (7/16): the
    5 % is 1 us, the median 11 us (cumulative 0.5625), the 95 % 13 us."""
    f = np.log(2) / 2e-6
    low, median, high = message_mixture_quantiles(np.array([[1e-6], [3e-6]]), f, 10e-6)
    assert (low[0], median[0], high[0]) == pytest.approx((1e-6, 11e-6, 13e-6))
    quiet = message_mixture_quantiles(np.array([[1e-6], [3e-6]]), 0.0, 10e-6)
    assert [q[0] for q in quiet] == pytest.approx([1e-6, 1e-6, 3e-6])


def _p2p(**options):
    from icnperf.api import predict_p2p

    return predict_p2p("piz-daint", bytes=[8], **options)


def test_p2p_production_mixes_the_placements_hops():
    """piz-daint's 16 draws put the two nodes 1 hop apart 11 times and 2 hops apart 5
    times; a detour (495 Hz x 2 ranks x ~1.5 us: q = 0.15 %) is rarer than the 5 %
    tail, so the median is the 1-hop latency, the 95 % the 2-hop one (11/16 < 0.95 < 1)
    and the hops column their mean; with --hops the command's hops stay."""
    hops = scheduled_pair_hops(load_machine("piz-daint"))
    assert sorted(set(hops)) == [1, 2] and hops.count(1) == 11
    result = _p2p(production=True)
    row = result.rows[0]
    one = _p2p(production=True, hops=1).rows[0]
    two = _p2p(production=True, hops=2).rows[0]
    assert row["latency_s"] == pytest.approx(one["empty_latency_s"])
    assert row["latency_s_high"] == pytest.approx(two["empty_latency_s"])
    assert row["hops"] == pytest.approx((11 * 1 + 5 * 2) / 16)
    assert result.to_dict()["inputs"]["placement"]["hops"] == list(hops)
    assert "first two free nodes" in result.to_dict()["assumptions"][0]
    assert "placement" not in _p2p(production=True, hops=1).to_dict()["inputs"]
    assert "placement" not in _p2p().to_dict()["inputs"]


def test_p2p_production_ranges_draw_one_placement_per_input_draw():
    """With --uncertainty, draw i of the inputs runs on placement draw i mod 16 at its own
    occupancy: the range holds the 1- and 2-hop latencies' spread, and is wider than the
    1-hop range alone."""
    mixed = _p2p(production=True, uncertainty=True, samples=64).rows[0]
    one = _p2p(production=True, uncertainty=True, samples=64, hops=1).rows[0]
    assert mixed["latency_s_high"] > one["latency_s_high"]


def test_p2p_placement_note_replaces_the_placement_note_only():
    """With GPU buffers the notes open with the buffers' note: the scheduler's placement
    replaces the placement note wherever it is, and no other."""
    from icnperf.api import predict_p2p

    notes = predict_p2p("lumi-g", bytes=[8], buffers="gpu", production=True,
                        set=["production.node_occupancy=0.9"]).to_dict()["assumptions"]
    placement = [n for n in notes if n.startswith("placement:")]
    assert len(placement) == 1 and "first two free nodes" in placement[0]
    assert notes[0].startswith("buffers: GPU memory")


def _totals(app, *overrides, nodes="16,256", **options):
    from icnperf.api import predict_app

    options.setdefault("set", list(overrides))
    return predict_app("piz-daint", app, nodes=nodes, **options).to_dict()


def test_app_production_runs_on_the_scheduled_placements():
    """jacobi3d on 16 and 256 Piz Daint nodes: the totals carry the groups the 16 draws
    span (their mean: 1.44 and 13.9, near the closed form's 1.5 and 13.8), the empty
    total stays the linear placement's, and without an occupancy the placement fields
    go and the production total differs."""
    document = _totals("jacobi3d", production=True)
    small, large = document["totals"]
    assert small["placement_draws"] == large["placement_draws"] == 16
    for total, nodes in ((small, 16), (large, 256)):
        closed = S.units_spanned_mean(5376, 384, nodes, 0.96)
        assert total["placement_units_spanned"] == pytest.approx(closed, abs=0.5)
    plain = _totals("jacobi3d")["totals"]
    assert [t["empty_total_s"] for t in document["totals"]] == \
        [t["total_s"] for t in plain]
    linear = _totals("jacobi3d", "production.node_occupancy=0", production=True)
    assert all("placement_units_spanned" not in t for t in linear["totals"])
    assert linear["totals"][1]["total_s"] != large["total_s"]
    assert any("first free nodes" in note for note in document["notes"])


def test_app_production_keeps_a_helper_skeleton_linear():
    """hpcg's halo helper puts ranks on consecutive nodes: no scheduler's placement, said
    in a note, and the same totals as with no occupancy."""
    document = _totals("hpcg", production=True)
    assert all("placement_units_spanned" not in t for t in document["totals"])
    assert any("helper phase" in note for note in document["notes"])
    linear = _totals("hpcg", "production.node_occupancy=0", production=True)
    assert [t["total_s"] for t in linear["totals"]] == \
        [t["total_s"] for t in document["totals"]]


def test_a_node_count_sweep_charges_each_count_on_its_own_job():
    """On a dragonfly every node count has the same shape: each row of a sweep is the row
    the count alone gives (its own job's steps and placements), under --production with and
    without --uncertainty, for collectives and skeletons alike."""
    from icnperf.api import predict_app, predict_collective

    def rows(nodes, **options):
        return predict_collective("piz-daint", "allreduce", nodes=nodes, bytes=[8],
                                  algorithm="recursive-doubling", production=True,
                                  **options).rows

    for options in ({}, {"uncertainty": True, "samples": 20}):
        sweep = rows("16,64", **options)
        alone = rows("16", **options) + rows("64", **options)
        assert [r["time_s"] for r in sweep] == [r["time_s"] for r in alone]
        assert sweep[0]["time_s"] < sweep[1]["time_s"]

    def totals(nodes, **options):
        return predict_app("piz-daint", "jacobi3d", nodes=nodes, production=True,
                           **options).to_dict()["totals"]

    for options in ({"set": ["production.node_occupancy=0"]}, {},
                    {"uncertainty": True, "samples": 20}):
        sweep = totals("16,256", **options)
        alone = totals("16", **options) + totals("256", **options)
        for name in ("total_s", "total_s_low", "total_s_high"):
            assert [t[name] for t in sweep] == [t[name] for t in alone]


def test_app_production_sweep_with_one_node_places_only_the_jobs_it_can():
    """One node is not placed by the scheduler (no network between its ranks): its total has
    no placement fields while the 16-node one has; no traceback."""
    small, large = _totals("jacobi3d", nodes="1,16", production=True)["totals"]
    assert "placement_units_spanned" not in small and large["placement_draws"] == 16


def test_app_note_says_no_scheduler_placement_when_none_is_made():
    """Occupancy 0, an explicit spread placement: the note says so, and the budget counts
    no placement runs."""
    from icnperf.api.production_app import scheduled
    from icnperf.api.skeletons import resolve_skeleton

    for options in ({"set": ["production.node_occupancy=0"]}, {"placement": "spread"}):
        document = _totals("jacobi3d", nodes="16", production=True, **options)
        note = next(n for n in document["notes"] if n.startswith("placement:"))
        assert "not a busy scheduler's" in note
        assert "placement_units_spanned" not in document["totals"][0]
    machine = load_machine("piz-daint")
    skeleton, _ = resolve_skeleton("jacobi3d", {}, [], machine)
    from icnperf.model.collectives import Layout

    layout = Layout.from_topology(machine.topology).on_part(16)
    assert scheduled(machine, skeleton, [layout.placed(1, "linear")])
    assert not scheduled(machine, skeleton, [layout.placed(1, "spread")])
