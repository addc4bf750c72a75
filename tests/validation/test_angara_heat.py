"""The Angara heat-equation claims (Mukosey 2015 §3.3, Fig. 10) on angara-4d reshaped."""

import pytest
from scipy.optimize import brentq

from icnperf.model.apps import heat
from icnperf.validation.claims import angara_heat as H
from icnperf.validation.registry import all_claims, evaluate

RESULTS = {c.id: evaluate(c) for c in H.CLAIMS}
GRIDS = (("40M", 40_960_000, 3.0), ("81M", 81_920_000, 2.7), ("163M", 163_840_000, 2.7))


def test_claims_are_registered_from_the_bundled_table():
    assert set(RESULTS) <= {c.id for c in all_claims()}
    for name, _, published in GRIDS:
        result = RESULTS[f"angara-fig10-heat-ratio-4d-32768-{name}"]
        assert result.measured == published
        # the paper's 8.96 % simulator spread on both step times: 1.0896 / 0.9104 - 1
        assert result.tolerance == pytest.approx(0.19684, abs=1e-5)
        assert result.tolerance_kind == "relative"
        assert f"angara-fig10-heat-onset-4d-{name}" in RESULTS
        assert f"angara-fig10-heat-grows-4d-{name}" in RESULTS
    assert "calibration point" in RESULTS["angara-fig10-heat-ratio-4d-32768-40M"].quantity
    assert "held out" in RESULTS["angara-fig10-heat-ratio-4d-32768-163M"].quantity


def test_ratios_and_growth_pass_and_only_the_40M_ratio_is_calibrated():
    for result in RESULTS.values():
        if "-onset-" not in result.id:
            assert result.status == "pass", result
    kinds = {r.id: r.kind for r in RESULTS.values()}
    assert [i for i, k in kinds.items() if k == "calibrated"] == [
        "angara-fig10-heat-ratio-4d-32768-40M"]
    assert RESULTS["angara-fig10-heat-ratio-4d-32768-40M"].fitted.startswith(
        "node.stencil_overhead")


@pytest.mark.parametrize("name, cells, onset", [("40M", 40_960_000, 512),
                                                ("81M", 81_920_000, 1024),
                                                ("163M", 163_840_000, 2048)])
def test_onset_is_where_the_ratio_first_exceeds_1_1(name, cells, onset):
    """The model's ratio stays at most 1.1 below ``onset`` and exceeds it there; the paper's
    'more than 64 nodes' is 128 on the doubling axis, a factor 4-16 earlier: a known
    discrepancy, because the paper's own numbers give the same onset."""
    below = [n for n in H.SWEEP if n < onset]
    assert all(H.ratio(n, cells) <= 1.1 for n in below) and H.ratio(onset, cells) > 1.1
    result = RESULTS[f"angara-fig10-heat-onset-4d-{name}"]
    assert (result.measured, result.predicted) == (128, onset)
    assert (result.tolerance, result.tolerance_kind) == (2, "factor")
    assert result.error == onset / 128
    assert result.status == "known-discrepancy" and result.expected == onset
    assert f"first exceeds 1.1 at {onset:,} nodes" in result.reason


def test_paper_numbers_fit_reproduces_the_published_ratios():
    """c and T solved from 3x (40M) and 2.7x (163M) at 32,768 nodes give those back; with
    a = 17 / 11e9 s per cell the hand solution is c = 20000 a = 30.9 µs, and 2·(1250 a + c)
    = T·(2·28·(1 - h/T) - F/T) on the depth-28 tree of 8x16x16x16."""
    from icnperf.validation.claims.angara_collectives import published_fit

    c, per_level = H.paper_fit()
    a = 17 / 11e9
    assert c == pytest.approx(20_000 * a)
    fixed, per_hop = published_fit()
    assert per_level == pytest.approx(2 * (1250 * a + c) / (56 * (1 - per_hop) - fixed))
    assert H.paper_ratio(32768, 40_960_000) == pytest.approx(3.0)
    assert H.paper_ratio(32768, 163_840_000) == pytest.approx(2.7)
    assert H.paper_ratio(128, 40_960_000) < 1.1 < H.paper_ratio(512, 40_960_000)


def test_preset_overhead_is_the_calibration_solution():
    """The preset's 14.4 µs is the root of ratio(32768, 40M) = 3 (rounded to 0.1 µs)."""
    machine, layout = H._machine_and_layout(32768)

    def gap(t0):
        m = machine.with_overrides([f"node.stencil_overhead={t0 * 1e9}ns"])
        times = [heat.predict(m, layout, algorithm=a, cells=40_960_000).iteration_s
                 for a in (H.P2P, "hw-tree")]
        return times[0] / times[1] - 3.0

    root = brentq(gap, 0.0, 100e-6)
    assert float(machine.require("node.stencil_overhead")) == pytest.approx(root, abs=0.05e-6)


def test_held_out_ratio_is_the_sum_of_its_parts():
    """Step = t0 + 17·cells/R + halo + all-reduce; at 32,768 nodes (8x16x16x16) the
    163,840,000-cell grid is 12800 x 12800 over a 128 x 256 process grid: blocks of
    100 x 50 = 5000 cells, 17 · 5000 / 11e9 = 7.727 µs of arithmetic."""
    machine, layout = H._machine_and_layout(32768)
    parts = {a: heat.predict(machine, layout, algorithm=a, cells=163_840_000)
             for a in (H.P2P, "hw-tree")}
    arithmetic = 17 * 5000 / 11e9
    for result in parts.values():
        assert result.compute_s == pytest.approx(14.4e-6 + arithmetic)
        assert result.iteration_s == pytest.approx(
            result.compute_s + result.p2p_s + result.collective_s)
    assert parts[H.P2P].p2p_s == parts["hw-tree"].p2p_s     # same halo either way
    ratio = parts[H.P2P].iteration_s / parts["hw-tree"].iteration_s
    assert abs(ratio / 2.7 - 1) <= 0.2


@pytest.mark.parametrize("cells", [40_960_000, 81_920_000, 163_840_000])
def test_no_visible_gain_up_to_64_nodes(cells):
    assert all(H.ratio(n, cells) <= H.ONSET_RATIO for n in (16, 32, 64))
    assert H.ratio(32768, cells) > 2


def test_smaller_grid_gains_more_at_32768_nodes():
    values = [H.ratio(32768, cells) for _, cells, _ in GRIDS]
    assert values[0] > values[1] > values[2]


def test_compute_time_adds_the_sweep_overhead():
    assert heat.compute_time(1250, 11e9, 17, 14.4e-6) == pytest.approx(14.4e-6 + 21250 / 11e9)
    with pytest.raises(ValueError, match="overhead"):
        heat.compute_time(1250, 11e9, 17, -1e-6)
