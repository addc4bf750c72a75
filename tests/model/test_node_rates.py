"""Roofline rates of the bundled kernels for machines with no measured rate, worked by hand."""

from __future__ import annotations

import pytest

from icnperf.data.machine import Machine, load_machine
from icnperf.errors import InputError
from icnperf.model.apps import node_rates

# The angara-36 [node] values: 140.8 GFLOP/s, 51.2 GB/s, efficiency 0.78.
NODE = {"node.peak_flops": 140.8e9, "node.memory_bandwidth": 51.2e9,
        "node.memory_efficiency": 0.78}


def test_spmv_and_stencil_rooflines_by_hand():
    # 0.78 x 51.2 GB/s = 39.936 GB/s; x 20/132 = 6.0509... GFLOP/s; x 17/24 = 28.288 GFLOP/s
    spmv, note = node_rates.derive("node.spmv_rate", NODE)
    assert spmv == pytest.approx(39.936e9 * 20 / 132, rel=1e-12)
    assert spmv == pytest.approx(6.050909e9, rel=1e-6)
    assert "memory-bound" in note and "derived" in note and "6.051 GFLOP/s" in note
    stencil, _ = node_rates.derive("node.stencil_rate", NODE)
    assert stencil == pytest.approx(28.288e9, rel=1e-12)


def test_a_low_peak_caps_the_rate():
    # 1 GFLOP/s hosts (the SimGrid platforms) with ample memory run at their speed
    values = {**NODE, "node.peak_flops": 1e9}
    rate, note = node_rates.derive("node.spmv_rate", values)
    assert rate == 1e9 and "peak-bound" in note


def test_nothing_derived_without_the_node_values_or_for_other_keys():
    assert node_rates.derive("node.spmv_rate", {"node.peak_flops": 1e11}) is None
    assert node_rates.derive("node.peak_flops", NODE) is None
    assert node_rates.derived_rates(["node.spmv_rate"], {**NODE, "node.spmv_rate": 5e8}) == {}


def test_a_measured_rate_wins_and_a_machine_without_inputs_refuses():
    angara = load_machine("angara-4d")
    assert node_rates.machine_rate(angara, "node.spmv_rate") == (591e6, None)
    rate, note = node_rates.machine_rate(load_machine("angara-36"), "node.stencil_rate")
    assert rate == pytest.approx(28.288e9, rel=1e-12) and note.startswith("node.stencil_rate")
    bare = Machine("bare", "torus:4x4")
    with pytest.raises(InputError, match="no node.spmv_rate"):
        node_rates.machine_rate(bare, "node.spmv_rate")
