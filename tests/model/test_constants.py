"""Model constants with their stated uncertainty (model/constants.py) and the sampler's use
of them under --uncertainty."""

import numpy as np
import pytest

from icnperf.data.machine.sampling import Sampling, ranges
from icnperf.data.machine.uncertainty import KINDS
from icnperf.model import constants
from icnperf.model.apps import hpcg, node_rates


def test_every_constant_states_kind_spread_and_reason():
    constants.draws(1, 0)  # imports every declaring module
    assert {"apps.hpcg.intra_node_latency", "apps.hpcg.contiguous_factor",
            "apps.hpcg.ellpack_factor", "apps.node_rates.spmv_bytes",
            "apps.node_rates.stencil_bytes"} <= set(constants.REGISTRY)
    for constant in constants.REGISTRY.values():
        # a kind of the machine values' vocabulary (docs/machine-format.md, "Uncertainty")
        assert constant.kind in KINDS, constant.name
        assert constant.reason and constant.form != "exact"


def test_hpcg_factors_span_the_papers_rounding():
    """Agarkov 2015: 'one and a half times' (rounded to the half) and '+5 %' (to the per
    cent)."""
    contiguous = hpcg.CONTIGUOUS_FACTOR_STATED
    assert (contiguous.value - contiguous.amount, contiguous.value + contiguous.amount) == \
        pytest.approx((1.25, 1.75))
    ellpack = hpcg.ELLPACK_FACTOR_STATED
    assert (ellpack.value - ellpack.amount, ellpack.value + ellpack.amount) == \
        pytest.approx((1.045, 1.055))


def test_drawn_values_are_in_force_only_inside_the_block():
    class NoSharedMemory:
        name = "m"

        @staticmethod
        def get(key, default=None):
            return default

    assert hpcg.intra_node_latency(NoSharedMemory) == pytest.approx(0.3e-6)
    with constants.drawn({"apps.hpcg.intra_node_latency": 0.25e-6}):
        assert hpcg.intra_node_latency(NoSharedMemory) == pytest.approx(0.25e-6)
    assert hpcg.intra_node_latency(NoSharedMemory) == pytest.approx(0.3e-6)


def test_the_sampler_draws_the_stencil_traffic():
    """The heat stencil's roofline rate at 0.8 x 100 GB/s is 17/24 or 17/16 FLOP/B times
    80 GB/s: the range over the draws (either alternative, equally likely) spans exactly
    those two, whatever the machine's own draws."""
    from icnperf.data.machine import load_machine

    values = {"node.peak_flops": 1e15, "node.memory_bandwidth": 100e9,
              "node.memory_efficiency": 0.8}
    low, high = ranges(load_machine("angara-3d"),
                       lambda _: {"rate": node_rates.derive("node.stencil_rate", values)[0]},
                       Sampling(200, 0))["rate"]
    assert float(low) == pytest.approx(80e9 * 17 / 24)
    assert float(high) == pytest.approx(80e9 * 17 / 16)
    # outside a draw the stated 24 B per cell holds
    assert node_rates.derive("node.stencil_rate", values)[0] == pytest.approx(80e9 * 17 / 24)


def test_each_constant_has_its_own_stream():
    """Registering another constant changes no other constant's draws."""
    before = constants.draws(50, 7)
    extra = constants.register(constants.Constant("tests.extra", 1.0, "chosen", "relative",
                                                  0.5, "a test's"))
    try:
        after = constants.draws(50, 7)
    finally:
        del constants.REGISTRY[extra.name]
    for name, array in before.items():
        assert np.array_equal(np.asarray(after[name], dtype=float),
                              np.asarray(array, dtype=float))
    assert set(after) - set(before) == {"tests.extra"}
