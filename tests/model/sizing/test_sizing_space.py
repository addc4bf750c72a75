"""The design space: complete against brute-force loops, links and costs as the scalar path."""

import math

import numpy as np
import pytest

from icnperf.errors import InputError
from icnperf.model.sizing.cost import (
    cost_model_from_dict,
    link_counts,
    total_cost,
    total_cost_arrays,
)
from icnperf.model.sizing.designs import (
    CLOS_RADICES,
    candidate,
    canonical_params,
    link_roles,
)
from icnperf.model.sizing.space import enumerate_space, torus_shapes
from icnperf.model.topology import slimfly

N, SLACK, RADIX = 3000, 1.5, 40
LIMIT = int(N * SLACK)


def specs(blocks, family):
    """Every design of a family as a hashable parameter tuple."""
    out = []
    for b in blocks:
        if b.family == family:
            out += [tuple(sorted(b.params_of(i).items())) for i in range(len(b))]
    return out


def brute_torus(dims):
    """Every non-decreasing shape of radices >= 2 with N <= product <= LIMIT, by nested
    loops (a prefix stops growing once prefix x k^(dims left) > LIMIT)."""
    out = set()

    def extend(prefix):
        if len(prefix) == dims:
            if math.prod(prefix) >= N:
                out.add(tuple(prefix))
            return
        k = prefix[-1] if prefix else 2
        while math.prod(prefix) * k ** (dims - len(prefix)) <= LIMIT:
            extend(prefix + [k])
            k += 1

    extend([])
    return out


@pytest.mark.parametrize("dims", [1, 2, 3, 4])
def test_torus_shapes_complete(dims):
    shapes, edge = torus_shapes(N, dims, LIMIT)
    assert edge == LIMIT
    listed = [tuple(int(k) for k in row) for row in shapes]
    assert len(listed) == len(set(listed))
    assert set(listed) == brute_torus(dims)
    # the NUDT rule's balanced k^dims is in the space even where it overshoots the window
    k = 2
    while k**dims < N:
        k += 1
    blocks = enumerate_space(N, ("torus",), (dims,), RADIX, SLACK)
    found = {dict(p)["radices"] for p in specs(blocks, "torus")}
    assert found == brute_torus(dims) | {(k,) * dims}


def test_large_torus_space_narrows_its_window():
    """With at most 300 (partial) shapes per dimension the upper edge drops below slack x N:
    the shapes are then exactly the brute-force ones up to that edge; with at most 1, not
    even the radices of the first dimension fit and no shape is listed."""
    shapes, edge = torus_shapes(N, 3, LIMIT, max_designs=300)
    assert N <= edge < LIMIT
    listed = {tuple(int(k) for k in row) for row in shapes}
    assert listed == {s for s in brute_torus(3) if math.prod(s) <= edge}
    assert 0 < len(listed) <= 300 < len(brute_torus(3))
    shapes, edge = torus_shapes(N, 3, LIMIT, max_designs=1)
    assert shapes.shape == (0, 3) and edge == 0


def test_families_complete_by_brute_force():
    blocks = enumerate_space(N, ("fattree", "clos", "dragonfly", "megafly", "slimfly"), (3,),
                             RADIX, SLACK)
    window = range(N, LIMIT + 1)
    fattree = {(k, n) for k in range(1, RADIX // 2 + 1) for n in range(1, 9)
               if 2 * k**n in window}
    fattree.add((12, 3))                        # NUDT rule: 2 x 12^3 = 3456 >= 3000 > 2 x 11^3
    assert {(d["k"], d["n"]) for d in map(dict, specs(blocks, "fattree"))} == fattree
    dragonfly = {(p, a, h) for p in range(1, RADIX + 1) for a in range(1, RADIX + 1)
                 for h in range(1, RADIX + 1)
                 if p + a + h - 1 <= RADIX and a * p * (a * h + 1) in window}
    got = [(d["p"], d["a"], d["h"]) for d in map(dict, specs(blocks, "dragonfly"))]
    assert len(got) == len(set(got))
    rule = canonical_params("dragonfly", N)
    assert set(got) == dragonfly | {(rule["p"], rule["a"], rule["h"])}
    megafly = {k for k in range(1, RADIX // 2 + 1) if k * k * (k * k + 1) in window}
    assert {d["k"] for d in map(dict, specs(blocks, "megafly"))} == megafly | {8}
    valid = [q for q in range(3, RADIX + 1) if slimfly.is_valid_q(q)]
    slim = {(q, p) for q in valid for p in range(1, RADIX + 1)
            if int(slimfly.radix(q, p)) <= RADIX and 2 * q * q * p in window}
    got = {(d["q"], d["p"]) for d in map(dict, specs(blocks, "slimfly"))}
    rule = canonical_params("slimfly", N)
    assert got == slim | {(rule["q"], rule["p"])}
    clos = {(r, min(n for n in range(1, 9) if 2 * (r // 2) ** n >= N))
            for r in CLOS_RADICES if r <= RADIX}
    assert {(d["radix"], d["levels"]) for d in map(dict, specs(blocks, "clos"))} == clos


def test_every_design_is_feasible_and_one_is_canonical():
    blocks = enumerate_space(N, radix_max=RADIX, torus_dims=(2, 3))
    for b in blocks:
        assert (np.asarray(b.metrics.radix) <= RADIX).all()
        assert (np.asarray(b.metrics.endpoints) >= N).all()
        assert b.canonical.sum() == (0 if b.family in ("clos", "xgft") else 1)


PRICES = cost_model_from_dict({"unit": "u", "router": {"base": 1000, "per_port": 10},
                               "link": {"electrical": 2, "optical": 50, "endpoint": 3},
                               "adapter": {"per_endpoint": 100}}, "test")


def test_links_and_cost_arrays_equal_the_scalar_candidates():
    """Every design of a small space: the vectorized links by kind and cost equal
    designs.link_roles / cost.total_cost of the same design built through its spec."""
    blocks = enumerate_space(300, radix_max=24, torus_dims=(2, 3), slack=1.3)
    checked = 0
    for b in blocks:
        m = b.metrics
        costs = total_cost_arrays(np.asarray(m.routers), np.asarray(m.radix), b.electrical,
                                  b.optical, np.asarray(m.endpoints), PRICES)
        for i in range(0, len(b), max(1, len(b) // 15)):
            d = candidate(b.family, b.params_of(i))
            assert sum(link_roles(b.family, b.params_of(i)).values()) == d.links
            kinds = link_counts(d)
            assert (b.electrical[i], b.optical[i]) == (kinds["electrical"], kinds["optical"])
            assert costs[i] == pytest.approx(total_cost(d, PRICES), rel=1e-12)
            checked += 1
    assert checked > 50


def test_radix_limit_and_bad_inputs():
    blocks = enumerate_space(100_000, ("fattree", "megafly", "slimfly"), (3,), 40)
    assert {b.family for b in blocks} == {"fattree", "megafly"}   # slim fly needs radix 92
    with pytest.raises(InputError, match="unknown family"):
        enumerate_space(1000, ("hypercube",))
    with pytest.raises(InputError, match="endpoints"):
        enumerate_space(1, ("torus",))
    with pytest.raises(InputError, match="no design"):
        enumerate_space(100_000, ("megafly",), radix_max=8)
    with pytest.raises(InputError, match="torus-dims"):
        enumerate_space(1000, ("torus",), torus_dims=(0,))
    with pytest.raises(InputError, match="slack"):
        enumerate_space(1000, ("torus",), slack=0.5)


def _brute_xgft(n_endpoints, limit, radix_max, levels):
    """Every one-radix XGFT with a t:1 top taper, listed from the definition: switch radix r,
    lower levels 1:1, top switches with at most r ports."""
    found = set()
    for t in (1, 2, 3, 4):
        for r in range(2, radix_max + 1):
            if levels == 2:
                if r % (t + 1):
                    continue
                u = r // (t + 1)
                for s in range(2, r + 1):
                    if t * u >= 2 and n_endpoints <= t * u * s <= limit:
                        found.add(((t * u, s), (1, u), t))
            else:
                if r % 2 or (r // 2) % t or r < 4:
                    continue
                k = r // 2
                for s in range(2, r + 1):
                    if n_endpoints <= k * k * s <= limit:
                        found.add(((k, k, s), (1, k, k // t), t))
    return found


@pytest.mark.parametrize("n_endpoints, radix_max", [(64, 16), (100, 24), (1000, 48)])
@pytest.mark.parametrize("levels", [2, 3])
def test_xgft_space_is_every_tapered_tree(n_endpoints, radix_max, levels):
    from icnperf.model.sizing.space import xgft_space
    from icnperf.model.topology.xgft import XGFT

    limit = int(1.5 * n_endpoints)
    space = xgft_space(n_endpoints, limit, radix_max, levels)
    listed = {(tuple(map(int, m)), tuple(map(int, w)), int(t))
              for m, w, t in zip(space["m"], space["w"], space["taper"])}
    assert listed == _brute_xgft(n_endpoints, limit, radix_max, levels)
    assert len(listed) == len(space["m"])
    tree = XGFT(list(space["m"].T), list(space["w"].T))
    # taper of the level below the top: its down ports over its up ports
    assert (space["m"][:, -2] == space["taper"] * space["w"][:, -1]).all()
    assert (tree.radix() <= radix_max).all()


def test_xgft_blocks_cost_like_their_candidates():
    from icnperf.data.sizing_inputs import load_cost_model
    from icnperf.model.sizing.cost import total_cost, total_cost_arrays
    from icnperf.model.sizing.designs import candidate

    model = load_cost_model()
    for block in enumerate_space(200, ("xgft",), radix_max=24):
        m = block.metrics
        costs = total_cost_arrays(m.routers, m.radix, block.electrical, block.optical,
                                  m.endpoints, model)
        for row in range(0, len(block), 7):
            design = candidate("xgft", block.params_of(row))
            assert costs[row] == pytest.approx(total_cost(design, model), rel=1e-12)
