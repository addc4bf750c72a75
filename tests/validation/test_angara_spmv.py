"""The Angara SpMV claims (Mukosey 2015 §3.2, Fig. 9) on angara-4d reshaped."""

import numpy as np
import pytest
from scipy.optimize import brentq

from icnperf.model.apps import spmv
from icnperf.model.collectives import Layout
from icnperf.model.topology import torus
from icnperf.validation.claims import angara_spmv as S
from icnperf.validation.registry import all_claims, evaluate

RESULTS = {c.id: evaluate(c) for c in S.CLAIMS}
GAIN = "angara-fig9-spmv-gain-4d-2048"
RAW_PCIE = 8e9
"""PCIe gen2 x16: 16 lanes x 5 GT/s x 8/10 bytes per direction."""


def _gain(machine, layout) -> float:
    times = [spmv.predict(machine, layout, algorithm=a).iteration_s
             for a in (S.P2P, "hw-tree")]
    return times[0] / times[1]


def test_claims_are_registered_from_the_bundled_table():
    assert set(RESULTS) <= {c.id for c in all_claims()}
    result = RESULTS[GAIN]
    assert result.measured == 1.28
    assert (result.tolerance, result.tolerance_kind) == (0.10, "absolute")
    assert "calibration point" in result.quantity
    assert "held out" in RESULTS["angara-fig9-spmv-grows-4d"].quantity
    assert len(RESULTS) == 2


def test_every_spmv_claim_passes():
    assert {r.id: r.status for r in RESULTS.values()} == {i: "pass" for i in RESULTS}
    assert RESULTS[GAIN].predicted == pytest.approx(1.28, abs=0.002)


def test_preset_host_rate_is_the_calibration_solution():
    """5.85 GB/s is the root of gain(2048) = 1.28, rounded to 10 MB/s."""
    machine, _ = S._machine_and_layout(2048)
    assert float(machine.require("network.host_bandwidth")) == pytest.approx(
        S.calibrated_host_bandwidth(), abs=5e6)


def test_calibrated_rate_is_below_every_pcie_packet_cap():
    """The preset's plausibility statement: with 20 B (3-dword header) or 24 B (4-dword) of
    TLP overhead, DMA reads in 64 or 128 B completions cap PCIe gen2 x16 at 6.10-6.92 GB/s
    and posted writes of 128 or 256 B at 6.74-7.42 GB/s; the calibrated rate is 4 % below
    the lowest cap and 13-21 % below the write caps."""
    rate = S.calibrated_host_bandwidth()
    reads = [RAW_PCIE * size / (size + 20) for size in (64, 128)]
    writes = [RAW_PCIE * size / (size + overhead) for size in (128, 256)
              for overhead in (20, 24)]
    assert rate < min(reads + writes)
    assert 1 - rate / min(reads) == pytest.approx(0.04, abs=0.005)
    assert 0.13 <= 1 - rate / max(writes) <= 0.22 and 1 - rate / min(writes) >= 0.13


def test_plus_ties_would_need_an_implausible_host_rate():
    """With + at every ring tie the last exchanges put 4 messages on each + channel of a
    radix-8 ring instead of 2: fitting +28 % then needs about 41 % of the raw PCIe rate."""
    machine, layout = S._machine_and_layout(2048)
    plus = machine.with_overrides(["network.ring_ties=plus"])

    def gap(rate):
        return _gain(plus.with_values({"network.host_bandwidth": rate}, "test"), layout) - 1.28

    needed = brentq(gap, 1e9, 8e9, xtol=1e5)
    assert 0.35 * RAW_PCIE < needed < 0.45 * RAW_PCIE
    assert _gain(plus, layout) > 2 * (_gain(machine, layout) - 1) + 1


def test_gain_is_the_last_exchanges_link_contention():
    """At 2048 nodes (4x8x8x8, dimension 0 fastest) the last exchange (rank XOR 1024, 82 MB)
    goes half a radix-8 ring: 2 messages per channel with ties split, so it runs at
    B_link / 2 = 4.69 GB/s below the 5.85 GB/s host rate; the all-gather at 4x4x4x4
    never leaves the host rate (every exchange shares no channel)."""
    ranks = np.arange(2048)
    assert torus.dor_traffic((4, 8, 8, 8), ranks, ranks ^ 1024, "split") == (4, 2)
    assert torus.dor_traffic((4, 8, 8, 8), ranks, ranks ^ 1024, "plus") == (4, 4)
    small = np.arange(256)
    for bit in range(8):
        assert torus.dor_traffic((4, 4, 4, 4), small, small ^ (1 << bit), "split")[1] == 1
    assert S.gain(256) == pytest.approx(1.0, abs=1e-3)
    assert S.gain(512) > 1.2


def test_spmv_on_the_preset_follows_the_ring_tie_setting():
    machine, layout = S._machine_and_layout(2048)
    assert machine.get("network.ring_ties") == "split"
    notes = spmv.predict(machine, layout, algorithm=S.P2P).notes
    assert any("a tie split" in note for note in notes)
    assert _gain(machine, Layout.torus((4, 8, 8, 8))) == pytest.approx(S.gain(2048))


def test_gain_never_falls_over_the_sweep_but_is_flat_below_512():
    values = [S.gain(n) for n in S.SWEEP]
    assert S.never_falls() == 1.0
    assert all(abs(v - 1) < 1e-3 for v in values[:5])          # 16 ... 256 nodes
    assert values[5] > 1.2 and values[-1] == max(values)


def test_beyond_the_figure_the_gain_keeps_rising():
    """Stated in the claims module: 8192 nodes (8x8x8x16) end on half a radix-16 ring,
    8 messages per + channel with + ties, 4 with ties split."""
    ranks = np.arange(8192)
    assert torus.dor_traffic((8, 8, 8, 16), ranks, ranks ^ 4096, "split") == (8, 4)
    assert S.gain(8192) > 2.0 > S.gain(4096) > S.gain(2048)


def test_a_layout_keeps_its_own_tie_rule_on_a_machine():
    from icnperf.model.collectives import collective_time, machine_layout

    machine, layout = S._machine_and_layout(2048)
    assert machine_layout(machine, layout).ring_ties == "split"
    plus = layout.routed("plus")
    assert machine_layout(machine, plus).ring_ties == "plus"
    times = {rule: collective_time(machine, "allgather", S.P2P, [8 * 20_480_000],
                                   layout=layout.routed(rule)).time[0]
             for rule in ("plus", "split")}
    assert times["plus"] > 1.5 * times["split"]
