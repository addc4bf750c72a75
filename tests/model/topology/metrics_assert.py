"""Shared assertion for the topology tests: one configuration of a batch equals its scalar call."""

import numpy as np

from icnperf.model.topology.base import PATTERNS

FIELDS = ("routers", "endpoints", "radix", "links", "diameter", "average_distance",
          "bisection_links")


def assert_config_equals(batch, index, single) -> None:
    """Every field and channel load of ``batch`` at ``index`` equals the scalar ``single``
    exactly (NaN equals NaN)."""
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(batch, name)[index], getattr(single, name),
                                      err_msg=name)
    for pattern in PATTERNS:
        np.testing.assert_array_equal(batch.channel_load[pattern][index],
                                      single.channel_load[pattern], err_msg=pattern)
