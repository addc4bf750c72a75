"""Cost of a design: hand-computed bills of materials and the cost-file checks."""

import tomllib
from pathlib import Path

import pytest

from icnperf.errors import InputError
from icnperf.model.sizing.cost import (
    COST_PARTS,
    cost_breakdown,
    cost_model_from_dict,
    link_counts,
    total_cost,
)
from icnperf.model.sizing.designs import candidate

PRICES = {"unit": "test units",
          "router": {"base": 1000, "per_port": 10},
          "link": {"electrical": 2, "optical": 50, "endpoint": 3},
          "adapter": {"per_endpoint": 100}}
MODEL = cost_model_from_dict(PRICES, "test")


def test_dragonfly_cost_by_hand():
    """DF(p=1, a=2, h=1): g = a h + 1 = 3 groups, 6 routers of radix p + a + h - 1 = 3,
    6 endpoints; local links g a (a-1)/2 = 3 (electrical), global g (g-1)/2 = 3 (optical).
    routers 6 x 1000 = 6000; ports 18 x 10 = 180; electrical 3 x 2 = 6; optical
    3 x 50 = 150; endpoint cables 6 x 3 = 18; adapters 6 x 100 = 600; total 6954."""
    d = candidate("dragonfly", {"p": 1, "a": 2, "h": 1})
    assert link_counts(d) == {"electrical": 3, "optical": 3, "endpoint": 6}
    assert cost_breakdown(d, MODEL) == {
        "routers": 6000, "ports": 180, "electrical links": 6, "optical links": 150,
        "endpoint links": 18, "adapters": 600}
    assert total_cost(d, MODEL) == 6954


def test_fattree_cost_by_hand():
    """FT(k=2, n=3): (2n-1) k^(n-1) = 20 routers of radix 2k = 4, 2k^n = 16 endpoints,
    2k^n = 16 links per level gap: levels 1-2 electrical, 2-3 optical.
    20 x 1000 + 80 x 10 + 16 x 2 + 16 x 50 + 16 x 3 + 16 x 100 = 23,280."""
    d = candidate("fattree", {"k": 2, "n": 3})
    assert link_counts(d) == {"electrical": 16, "optical": 16, "endpoint": 16}
    assert total_cost(d, MODEL) == 23_280


def test_torus_is_all_electrical():
    """4x4 torus: 16 routers, 32 links, all electrical; radix 2*2 + 1 = 5."""
    d = candidate("torus", {"radices": (4, 4)})
    assert link_counts(d) == {"electrical": 32, "optical": 0, "endpoint": 16}
    assert total_cost(d, MODEL) == 16 * 1000 + 80 * 10 + 32 * 2 + 16 * 3 + 16 * 100


def test_bundled_default_states_every_price():
    path = Path(__file__).parents[3] / "icnperf" / "data" / "costs" / "default.toml"
    data = tomllib.loads(path.read_text())
    model = cost_model_from_dict(data, str(path))
    assert "illustrative" in model.unit.lower()
    assert set(model.sources) == {"router.base", "router.per_port", "link.electrical",
                                  "link.optical", "link.endpoint", "adapter.per_endpoint"}
    assert all(text.strip() for text in model.sources.values())
    assert list(cost_breakdown(candidate("megafly", {"k": 2}), model)) == list(COST_PARTS)


@pytest.mark.parametrize("change, message", [
    ({"colour": "red"}, "unknown key 'colour'"),
    ({"router": {"base": 1}}, "missing router.per_port"),
    ({"router": {"base": 1, "per_port": 2, "fan": 3}}, "unknown key router.fan"),
    ({"link": {"electrical": -1, "optical": 1, "endpoint": 1}}, ">= 0"),
    ({"link": {"electrical": "cheap", "optical": 1, "endpoint": 1}}, "must be a number"),
    ({"adapter": {"per_endpoint": {"value": 1, "price": 2}}}, "must be a number or"),
    ({"unit": ""}, "'unit'"),
])
def test_malformed_cost_models(change, message):
    with pytest.raises(InputError, match=message):
        cost_model_from_dict({**PRICES, **change}, "bad.toml")


def test_missing_section():
    data = {k: v for k, v in PRICES.items() if k != "adapter"}
    with pytest.raises(InputError, match=r"missing section \[adapter\]"):
        cost_model_from_dict(data, "bad.toml")
