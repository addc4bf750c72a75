"""The Angara Fig. 7 claims (Mukosey 2015 §3.1): hardware tree vs point-to-point over the same
tree, one 256-byte packet, angara-3d / angara-4d presets reshaped.

Hand counts (ns; O = 300 MPI overhead, t_inj = t_ej = 300, t_r = 8, t_l = 80; one packet of
256 wire bytes = 240 payload: 41.03 ns on PCIe at the presets' 5.85 GB/s, 27.31 ns on a
75 Gbit/s link):
- point-to-point level: O + t_inj + 2 t_r + t_l + t_ej + 41.03 = 1037.03
- hardware, depth D: O + t_inj + (D+1) t_r + D t_l + t_ej + 41.03 + 41.03 + D x 27.31
  2x2x2 (D = 3): 1335.97 -> 3111.08 / 1335.97 = 2.329 (published 2.39)
  16x16x32 (D = 32): 4679.86 -> 33184.8 / 4679.86 = 7.091 (published 6.97)
  8x8x8x16 (D = 20): 3296.18 -> 20740.5 / 3296.18 = 6.292 (published 6.18)
"""

import pytest

from icnperf.validation.claims import angara_collectives as A
from icnperf.validation.registry import all_claims, evaluate

RESULTS = {c.id: evaluate(c) for c in A.CLAIMS}
LINK = 256 / (75e9 / 8) * 1e9          # ns for one packet on a link
HOST = 240 / 5.85e9 * 1e9               # ns for its payload on the host interface
LEVEL = 300 + 300 + 2 * 8 + 80 + 300 + HOST


def hardware_ns(depth):
    return 300 + 300 + (depth + 1) * 8 + depth * 80 + 300 + 2 * HOST + depth * LINK


@pytest.mark.parametrize("claim_id, depth, published", [
    ("angara-fig7-broadcast-3d-8", 3, 2.39),
    ("angara-fig7-broadcast-3d-8192", 32, 6.97),
    ("angara-fig7-broadcast-4d-8192", 20, 6.18),
])
def test_broadcast_ratios_within_the_papers_simulator_spread(claim_id, depth, published):
    """The tolerance is the paper's 8.96 % simulator-vs-cluster difference (§3.2)."""
    result = RESULTS[claim_id]
    assert result.measured == published
    assert result.predicted == pytest.approx(depth * LEVEL / hardware_ns(depth), rel=1e-9)
    assert result.tolerance == 0.0896 and result.tolerance_kind == "relative"
    assert abs(result.predicted / published - 1) <= 0.0896
    assert result.status == "pass" and result.kind == "predicted"
    assert "8.96 %" in result.tolerance_reason


def test_broadcast_predictions_by_hand():
    assert RESULTS["angara-fig7-broadcast-3d-8"].predicted == pytest.approx(2.329, abs=1e-3)
    assert RESULTS["angara-fig7-broadcast-3d-8192"].predicted == pytest.approx(7.091, abs=1e-3)
    assert RESULTS["angara-fig7-broadcast-4d-8192"].predicted == pytest.approx(6.292, abs=1e-3)


def test_allreduce_ratios_against_the_broadcast_ratios():
    # the all-reduce rows of the table copy the broadcast ratio ('approximately the same')
    for nodes, dims in ((8, 3), (8192, 3), (8192, 4)):
        name = f"angara-fig7-allreduce-{dims}d-{nodes}"
        broadcast = RESULTS[f"angara-fig7-broadcast-{dims}d-{nodes}"]
        result = RESULTS[name]
        assert result.measured == broadcast.measured
        # reduce then broadcast: 2D point-to-point levels against a 2D-hop hardware path
        depth = {8: 3, 8192: 32 if dims == 3 else 20}[nodes]
        hardware = (300 + 300 + (2 * depth + 1) * 8 + 2 * depth * 80 + 300 + 2 * HOST
                    + 2 * depth * LINK)
        assert result.predicted == pytest.approx(2 * depth * LEVEL / hardware, rel=1e-9)
    # 16x16x32: 7.93 against the published 6.97, 13.8 % off: outside the paper's 8.96 %
    assert RESULTS["angara-fig7-allreduce-3d-8192"].error == pytest.approx(0.138, abs=1e-3)


@pytest.mark.parametrize("claim_id", ["angara-fig7-allreduce-3d-8",
                                      "angara-fig7-allreduce-3d-8192",
                                      "angara-fig7-allreduce-4d-8192"])
def test_allreduce_misses_are_known_discrepancies_the_paper_implies(claim_id):
    result = RESULTS[claim_id]
    claim = next(c for c in A.CLAIMS if c.id == claim_id)
    assert result.error > 0.0896
    assert result.status == "known-discrepancy" and result.passed
    assert "does not follow from the paper's own broadcast ratios" in result.reason
    # the value the reason derives, and the prediction within the tolerance of it
    assert abs(result.predicted / claim.expected - 1) <= 0.0896


def test_published_broadcast_ratios_fit_one_line_in_inverse_depth():
    fixed, per_hop = A.published_fit()
    assert A.implied_ratio(3) == pytest.approx(2.39)
    assert A.implied_ratio(32) == pytest.approx(6.97)
    assert A.implied_ratio(20) == pytest.approx(6.18, rel=0.01)       # the 4D point follows
    assert fixed == pytest.approx(0.910, abs=1e-3)
    assert per_hop == pytest.approx(0.115, abs=1e-3)
    # all-reduce = broadcast over 2D levels
    assert A.implied_allreduce(3, 8) == pytest.approx(3.75, abs=0.01)
    assert A.implied_allreduce(3, 8192) == pytest.approx(7.74, abs=0.01)
    assert A.implied_allreduce(4, 8192) == pytest.approx(7.26, abs=0.01)


@pytest.mark.parametrize("claim_id", [
    "angara-fig7-broadcast-grows-3d", "angara-fig7-broadcast-grows-4d",
    "angara-fig7-allreduce-grows-3d", "angara-fig7-broadcast-4d-gains-less",
    "angara-fig7-allreduce-4d-gains-less"])
def test_orderings_hold(claim_id):
    result = RESULTS[claim_id]
    assert result.tolerance_kind == "ordering" and result.predicted == 1
    assert result.status == "pass"


def test_sweep_uses_balanced_shapes_from_2x2x2_to_16x16x32():
    sweep = A.sweep_ratios("broadcast", 3)
    assert sweep[0][:2] == (8, (2, 2, 2)) and sweep[-1][:2] == (8192, (16, 16, 32))
    assert A.sweep_ratios("broadcast", 4)[-1][1] == (8, 8, 8, 16)
    assert sweep[0][2] == pytest.approx(RESULTS["angara-fig7-broadcast-3d-8"].predicted)


def test_shmem_overhead_would_not_match():
    # the documented sensitivity: SHMEM (0 ns overhead) lowers every ratio
    shmem = 32 * (LEVEL - 300) / (hardware_ns(32) - 300)
    assert shmem == pytest.approx(5.38, abs=0.01)
    assert abs(shmem / 6.97 - 1) > 0.0896


def test_claims_are_registered():
    ids = {c.id for c in all_claims()}
    assert {c.id for c in A.CLAIMS} <= ids
    assert len(A.CLAIMS) == 11
