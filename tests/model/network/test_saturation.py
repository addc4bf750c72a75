"""The saturation estimate's factors, each against a value worked out by hand or a limit the
literature states (Karol et al. 1987: 2 - sqrt 2 for FIFO inputs as N grows)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from icnperf.model.network import saturation as S
from icnperf.model.topology.saturation import estimate_inputs, saturation_of
from icnperf.model.topology.spec import parse_spec

KAPPA = (2 - math.sqrt(2)) / (1 - math.exp(-1))


def test_separable_matching_by_hand():
    """Two inputs, two outputs, one uniform request each: an output is idle only when both
    pick the other, 1/4 of the time."""
    assert float(S.separable_matching(2)) == 0.75
    assert float(S.separable_matching(5)) == pytest.approx(1 - 0.8**5)


def test_karol_limit():
    """Many ports, one FIFO per input: separable matching x kappa -> 2 - sqrt 2 = 58.6 %."""
    big = float(S.separable_matching(10**7) * S.hol_factor(1))
    assert big == pytest.approx(2 - math.sqrt(2), abs=1e-6)
    assert float(S.KAROL_KAPPA) == pytest.approx(KAPPA)


def test_islip_with_one_request_is_the_separable_match():
    ports = np.arange(2, 40)
    assert np.allclose(S.islip_matching(ports, 1), S.separable_matching(ports))


def test_islip_two_ports_two_requests_by_hand():
    """P = 2, w = 2: each input requests both outputs (q = 3/4 by the formula's independent
    draws); g = (1 - (1/4)^2)/(2 * 3/4) = 0.625, E = 1 - 0.375^1.5."""
    assert float(S.islip_matching(2, 2)) == pytest.approx(1 - 0.375**1.5)


def test_hol_factor_and_speedup_and_balance():
    assert float(S.hol_factor(1)) == pytest.approx(KAPPA)
    assert float(S.hol_factor(4)) == pytest.approx(1 - (1 - KAPPA) / 4)
    one = (1 - 0.8**5) * KAPPA
    assert float(S.matching_efficiency(5, 1, "separable")) == pytest.approx(one)
    assert float(S.matching_efficiency(5, 1, "separable", speedup=2)) == pytest.approx(
        1 - (1 - one) ** 2)
    assert float(S.matching_efficiency(5, 1, "separable", balance=0.5)) == pytest.approx(
        1 - (1 - one) * 0.5)
    with pytest.raises(ValueError, match="unknown allocator"):
        S.matching_efficiency(5, 1, "wavefront")


def test_vc_rate_turnaround_and_credit_by_hand():
    """BookSim2's stages (1, 1, 1): t_v = 2 steps; with E = 1 a 1-flit packet passes every 3
    steps. Credits: 8 flits over 2 (100 + 1) + 4 + 1 = 207 cycles."""
    assert float(S.turnaround_steps(1, 1, 1)) == 2.0
    assert float(S.turnaround_steps(0, 0, 1)) == 0.0
    # the separable router routes while the head waits in the buffer: no routing term
    assert float(S.turnaround_steps(1, 1, 1, "separable")) == 1.0
    assert float(S.credit_round_trip(100, 4, 1)) == 207.0
    assert float(S.vc_rate(1, 2, 1.0, 8, 11)) == pytest.approx(1 / 3)
    assert float(S.vc_rate(1, 2, 1.0, 8, 207)) == pytest.approx(8 / 207)
    assert float(S.vc_rate(4, 2, 1.0, 64, 11, speedup=2)) == pytest.approx(2 * 4 / 6)


def test_wormhole_factor_by_hand():
    assert np.all(S.wormhole_factor(5, 1, 2) == 1.0)
    miss = 0.8**5
    assert float(S.wormhole_factor(5, 4, 1)) == pytest.approx(1 - miss * 0.75)
    assert float(S.wormhole_factor(5, 4, 4)) == pytest.approx(1 - miss**2 * 0.75)
    # a blocked packet spanning two routers waits at each: the factor squared
    assert float(S.wormhole_factor(5, 4, 1, span=2)) == pytest.approx((1 - miss * 0.75)**2)


def test_packet_span_by_hand():
    assert S.packet_span(16, 8) == 2 and S.packet_span(17, 8) == 3
    assert S.packet_span(1, 8) == 1 and S.packet_span(16, 32) == 1


def test_ugal_takes_the_better_path():
    assert float(S.ugal_channel_load(8.0, 0.9)) == pytest.approx(1.8)
    assert float(S.ugal_channel_load(0.5, 0.9)) == 0.5


BOOKSIM = dict(buffer_flits=8, link_delay=2, router_delay=4, routing_delay=1,
               vc_alloc_delay=1, switch_alloc_delay=1, channel_extra=1, allocator="islip")


def test_booksim_8x8_torus_two_vcs_by_hand():
    """One VC per dateline class: the wraparound channel (load 1.0 under random ties, all of
    it one class) passes 1/(2 + 1/E) flits/cycle, E = (1 - 0.8^5) kappa (P = 5, one request,
    balance 1: every channel of the torus carries k/8 = 1)."""
    spec = parse_spec("torus:8x8")
    terms = saturation_of("torus", spec.params, spec.evaluate(), "uniform",
                          {"vcs": 2, **BOOKSIM}, gamma=1.0)
    e = (1 - 0.8**5) * KAPPA
    assert float(terms["load_balance"]) == pytest.approx(1.0)
    assert float(terms["saturation_estimate"]) == pytest.approx(1 / (2 + 1 / e))
    assert float(terms["saturation_bound"]) == 1.0


def test_dragonfly_min_busiest_class_is_the_global_hop():
    """DF(2,4,2), 72 endpoints: a global channel carries p (N - a p)/(N h) = 2 x 64/72/2 =
    0.889 flits/cycle under MIN, all in the phase class after the global hop, as does the
    ejection port's share of packets from other groups (64/72)."""
    spec = parse_spec("dragonfly:p=2,a=4,h=2")
    inputs = estimate_inputs("dragonfly", spec.params, spec.evaluate(), "uniform", vcs=3,
                             routing="min")
    assert float(inputs["gamma_class"]) == pytest.approx(64 / 72)
    assert float(inputs["class_vcs"]) == 1.0


def test_vectorised_over_a_batch():
    from icnperf.model.topology import torus

    radices = np.array([[8, 8], [4, 4], [2, 6], [3, 3]])
    metrics = torus.torus_metrics(radices)
    router = {"vcs": 4, "buffer_flits": 8, "packet_flits": 1, "link_delay": 1,
              "router_delay": 1, "switch_alloc_delay": 1, "allocator": "separable"}
    batch = saturation_of("torus", {"radices": radices}, metrics, "uniform", router)
    for i, row in enumerate(radices):
        one = saturation_of("torus", {"radices": tuple(row)}, torus.torus_metrics(tuple(row)),
                            "uniform", router)
        assert batch["saturation_estimate"][i] == pytest.approx(
            float(one["saturation_estimate"]))
    assert np.all(batch["saturation_estimate"] <= batch["saturation_bound"])


def test_fixed_permutation_has_no_matching_loss():
    """Tornado on the 8x8 torus (gamma_max = 3): the default router (t_v = 0, one VC per
    class passing 1 flit/cycle) reaches the bound 1/3, as the simulator does; BookSim's
    router is held to its two wraparound-class VCs at 1/3 flit/cycle each: 2/3 / 3 = 0.222."""
    from icnperf.model.topology.saturation import DEFAULT_ROUTER

    spec = parse_spec("torus:8x8")
    metrics = spec.evaluate()
    default = saturation_of("torus", spec.params, metrics, "tornado", DEFAULT_ROUTER)
    assert float(default["saturation_estimate"]) == pytest.approx(1 / 3)
    booksim = saturation_of("torus", spec.params, metrics, "tornado", {"vcs": 4, **BOOKSIM})
    assert float(booksim["saturation_estimate"]) == pytest.approx(2 / 3 / 3)


def test_fewer_vcs_than_classes_has_no_estimate():
    """One VC on a torus leaves a dateline class without a VC: no deadlock-free routing, so
    the estimate is n/a (NaN), not 0."""
    from icnperf.model.topology.saturation import DEFAULT_ROUTER

    spec = parse_spec("torus:4x4")
    terms = saturation_of("torus", spec.params, spec.evaluate(), "uniform",
                          {**DEFAULT_ROUTER, "vcs": 1})
    assert math.isnan(float(terms["saturation_estimate"]))
    mesh = parse_spec("mesh:4x4")
    assert float(saturation_of("mesh", mesh.params, mesh.evaluate(), "uniform",
                               {**DEFAULT_ROUTER, "vcs": 1})["saturation_estimate"]) > 0
