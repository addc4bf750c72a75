"""icnperf/model/explain.py and crossover.py: the symbolic formula against the numeric
model, elasticities (Euler's identity, finite differences, kinks), and the crossover solver
against the times it reports."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
import sympy as sp

from icnperf.errors import InputError
from icnperf.data.machine import Machine, load_machine
from icnperf.model import collectives as C
from icnperf.model import explain as X
from icnperf.model.crossover import crossover
from icnperf.model.topology import torus

NS = 1e-9

PAIRS = [(a, o) for (a, o) in C.TABLE if a in C.ALGORITHMS]
"""Every defined (algorithm, operation) pair with a formula (the MPI-library algorithms
are timed as flows or mapped step by step and have no symbolic form)."""

TIME_KINDS = ("time", "time-per-byte")


@pytest.fixture(scope="module")
def angara4():
    return load_machine("angara-4d")


@pytest.fixture(scope="module")
def angara3():
    return load_machine("angara-3d")


def numeric_time(machine, operation, algorithm, m, layout, **kw):
    return float(C.collective_time(machine, operation, algorithm, [m], layout=layout,
                                   **kw).time[0])


# --- the formula ------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm, operation", PAIRS, ids=lambda x: str(x))
@pytest.mark.parametrize("radices", [(3, 4, 5), (4, 4, 4, 2)], ids=str)
def test_formula_at_the_machine_is_the_numeric_model(angara4, algorithm, operation, radices):
    layout = C.Layout.torus(radices)
    e = X.explain(angara4, operation, algorithm, 1000, layout=layout, combine_time=1e-10)
    expected = numeric_time(angara4, operation, algorithm, 1000, layout, combine_time=1e-10)
    assert e.time == pytest.approx(expected, rel=1e-12)
    assert e.endpoints == math.prod(radices) and e.layout == layout.text


def test_hw_broadcast_formula_reads_as_the_model(angara4):
    e = X.explain(angara4, "broadcast", "hw-tree", 256)
    s = {name: sp.Symbol(name, real=True, nonnegative=True) for name in e.symbols}
    expanded = sp.expand(e.expression)
    depth = torus.spanning_tree_depth((8, 8, 8, 16))
    assert depth == 20 == e.structure["depth"]
    assert expanded.coeff(s["t_l"]) == depth                 # D links
    assert expanded.coeff(s["t_r"]) == depth + 1             # D + 1 routers
    assert expanded.coeff(s["t_inj"]) == 1 == expanded.coeff(s["O"])
    assert "Max(240/B_host, 256/B_link)" in e.text           # first packet, stored in routers
    assert set(e.symbols) == {"O", "t_inj", "t_ej", "t_r", "t_l", "B_link", "B_host"}
    assert e.structure["bytes"] == 256 and e.structure["collective_store_and_forward"] == 1
    # the link-latency elasticity by hand: D t_l / T
    link = next(x for x in e.elasticities if x.symbol == "t_l")
    assert link.elasticity == pytest.approx(20 * 80 * NS / e.time, rel=1e-12)
    assert e.elasticities[0] is link                          # the largest share on Angara 4D


def test_latex_rendering(angara4):
    e = X.explain(angara4, "allreduce", "hw-tree", 256)
    assert "\\max" in e.latex and "\\frac" in e.latex and "t_{l}" in e.latex
    assert e.text == sp.sstr(e.expression)


def test_discrete_parameters_kept_as_symbols_give_the_same_value(angara4):
    plain = X.explain(angara4, "broadcast", "p2p-tree", 1000)
    full = X.explain(angara4, "broadcast", "p2p-tree", 1000, symbolic_discrete=True)
    assert {"f", "P", "H", "s"} <= set(full.symbols)
    assert "ceiling" in full.text and "ceiling" not in plain.text
    assert full.time == pytest.approx(plain.time, rel=1e-12)
    # discrete parameters never get an elasticity (T is a step function of them)
    assert {x.parameter for x in full.elasticities} == {x.parameter for x in plain.elasticities}
    assert "flit_size" not in full.structure and plain.structure["flit_size"] == 16


# --- elasticities -----------------------------------------------------------------------


@pytest.mark.parametrize("algorithm, operation", PAIRS, ids=lambda x: str(x))
def test_euler_identity_the_shares_add_up_to_one(angara3, algorithm, operation):
    """T is homogeneous of degree 1 in (times, gamma, 1/bandwidths): the elasticities of the
    times are >= 0, those of the bandwidths <= 0, and sum(time) - sum(bandwidth) = 1."""
    e = X.explain(angara3, operation, algorithm, 3000, layout=C.Layout.torus((4, 4, 6)),
                  combine_time=2e-10)
    times = sum(x.elasticity for x in e.elasticities if x.kind in TIME_KINDS)
    bandwidths = sum(x.elasticity for x in e.elasticities if x.kind == "bandwidth")
    assert times - bandwidths == pytest.approx(1, rel=1e-12)
    assert e.share_sum == pytest.approx(1, rel=1e-12)
    assert all(x.elasticity >= 0 for x in e.elasticities if x.kind in TIME_KINDS)
    assert all(x.elasticity <= 0 for x in e.elasticities if x.kind == "bandwidth")
    assert [abs(x.elasticity) for x in e.elasticities] == sorted(
        (abs(x.elasticity) for x in e.elasticities), reverse=True)


@pytest.mark.parametrize("algorithm, operation, parameter", [
    ("hw-tree", "broadcast", "link_latency"),
    ("hw-tree", "allgather", "link_bandwidth"),
    ("p2p-tree", "allreduce", "host_bandwidth"),
    ("rabenseifner", "allreduce", "software_overhead"),
    ("ring", "allgather", "link_bandwidth"),
])
def test_elasticity_matches_a_finite_difference_of_the_numeric_model(
        angara4, algorithm, operation, parameter):
    layout = C.machine_layout(angara4, C.Layout.torus((4, 4, 4, 8)))   # ties as explain
    m = 5000.0
    e = X.explain(angara4, operation, algorithm, m, layout=layout)
    (x,) = [x for x in e.elasticities if x.parameter == parameter]
    params = C.collective_parameters(angara4)
    h = 1e-6

    def at(scale):
        changed = dict(params, **{parameter: params[parameter] * scale})
        return float(C.evaluate(operation, algorithm, m, layout, changed))

    difference = (at(1 + h) - at(1 - h)) / (2 * h) / at(1)
    assert x.method == "symbolic"
    assert x.elasticity == pytest.approx(difference, rel=1e-5, abs=1e-9)


def test_kink_of_max_falls_back_to_a_numeric_derivative():
    """With B_host = 240/256 B_link the first packet takes as long on PCIe as on the link:
    Max(240/B_host, 256/B_link) is at its kink, SymPy's derivative is not defined there."""
    machine = load_machine("angara-4d").with_overrides(["network.host_bandwidth=8789062500B/s"])
    e = X.explain(machine, "broadcast", "hw-tree", 256)
    kinked = {x.symbol: x for x in e.elasticities if x.kind == "bandwidth"}
    assert kinked["B_host"].method == kinked["B_link"].method == "numeric"
    assert "kink" in kinked["B_host"].note
    assert all(x.method == "symbolic" for x in e.elasticities if x.kind == "time")
    # the central difference is the mean of the two one-sided derivatives: Euler still holds
    assert e.share_sum == pytest.approx(1, rel=1e-6)
    assert e.time == pytest.approx(numeric_time(machine, "broadcast", "hw-tree", 256, None),
                                   rel=1e-12)


def test_zero_valued_parameter_has_zero_elasticity_and_a_derivative(angara4):
    e = X.explain(angara4, "reduce", "p2p-tree", 256)         # combine_time = 0
    (gamma,) = [x for x in e.elasticities if x.symbol == "gamma"]
    assert gamma.value == 0 and gamma.elasticity == 0
    assert gamma.derivative == pytest.approx(20 * 256)          # D levels of m bytes


@pytest.mark.parametrize("kwargs, message", [
    ({"operation": "alltoall", "algorithm": "hw-tree"}, "does not define"),
    ({"operation": "broadcast", "algorithm": "quantum"}, "unknown algorithm"),
    ({"operation": "scan", "algorithm": "ring"}, "unknown collective"),
    ({"operation": "broadcast", "algorithm": "ring", "m": 0}, "> 0 bytes"),
])
def test_explain_bad_input(angara4, kwargs, message):
    with pytest.raises(InputError, match=message):
        X.explain(angara4, **kwargs)


def test_explain_without_hardware_collectives(angara3):
    network = {k: v for k, v in angara3.network.items()
               if k not in ("collective_trees", "collective_switching")}
    machine = Machine(name="plain", topology="torus:4x4x4", network=network,
                      software=dict(angara3.software))
    with pytest.raises(InputError, match="no hardware collectives"):
        X.explain(machine, "broadcast", "hw-tree", 256)
    assert X.explain(machine, "broadcast", "p2p-tree", 256).time > 0


# --- crossover --------------------------------------------------------------------------


def ratio_at(machine, operation, faster, slower, nodes, dims, m=256.0):
    layout = C.Layout.torus(torus.balanced_torus_shape(nodes, dims))
    return (numeric_time(machine, operation, slower, m, layout)
            / numeric_time(machine, operation, faster, m, layout))


def test_crossover_over_nodes_is_where_the_times_cross(angara3):
    c = crossover(angara3, "broadcast", "hw-tree", "p2p-tree", 4)
    assert c.status == "crosses" and c.found
    assert 64 < c.at.value <= 128                           # 3.71x at 64, 4.35x at 128
    assert c.at.ratio >= 4 > c.below.ratio and c.below.value < c.at.value
    # the reported times are the model's
    assert ratio_at(angara3, "broadcast", "hw-tree", "p2p-tree", c.at.value, 3) == \
        pytest.approx(c.at.ratio, rel=1e-12)
    assert ratio_at(angara3, "broadcast", "hw-tree", "p2p-tree", c.below.value, 3) < 4
    assert c.at.layout == "torus:" + "x".join(map(str, torus.balanced_torus_shape(
        c.at.value, 3)))
    # refined to single nodes: no count in between has a torus of aspect <= 2
    for n in range(c.below.value + 1, c.at.value):
        try:
            shape = torus.balanced_torus_shape(n, 3)
        except InputError:
            continue
        assert max(shape) > 2 * min(shape)
    assert c.reverts is None and [p.value for p in c.scan][:2] == [8, 16]


def test_crossover_any_shape_can_only_come_earlier(angara3):
    balanced = crossover(angara3, "broadcast", "hw-tree", "p2p-tree", 4)
    anyshape = crossover(angara3, "broadcast", "hw-tree", "p2p-tree", 4, max_aspect=None)
    assert anyshape.at.value <= balanced.at.value and anyshape.at.ratio >= 4


def test_crossover_from_start_and_never(angara3):
    start = crossover(angara3, "broadcast", "hw-tree", "p2p-tree", 2)
    assert start.status == "from-start" and start.below is None
    assert start.at.value == 8 and start.at.layout == "torus:2x2x2"
    assert start.at.ratio == pytest.approx(ratio_at(angara3, "broadcast", "hw-tree",
                                                    "p2p-tree", 8, 3), rel=1e-12)
    never = crossover(angara3, "broadcast", "hw-tree", "p2p-tree", 50,
                      values=[8, 64, 512, 4096])
    assert never.status == "never" and never.at is None and not never.found
    assert never.best.value == 4096 and never.best.ratio < 50


def test_crossover_4d_gains_less_and_skips_unshapeable_counts(angara4):
    c = crossover(angara4, "broadcast", "hw-tree", "p2p-tree", 6,
                  values=[8, 16, 64, 512, 4096, 8192, 16384])
    assert c.skipped == (8,)                                # no 4D torus of 8 nodes
    assert c.fixed["dims"] == 4
    three = crossover(angara4, "broadcast", "hw-tree", "p2p-tree", 6, dims=3)
    assert c.at.value > three.at.value                      # 4D: smaller diameter


def test_crossover_over_bytes_is_the_smallest_whole_byte(angara4):
    c = crossover(angara4, "allreduce", "rabenseifner", "recursive-doubling", 2,
                  variable="bytes")
    assert c.status == "crosses" and "brentq" in c.method
    m = c.at.value
    # 8192 ranks: below 8192 doubles (65536 B) every Rabenseifner step carries the whole
    # vector in its last block (whole elements), so it wins only once c = ceil(m / 8)
    # reaches 8192, first at m = 65529 B
    assert m == 65529
    layout = C.Layout.from_topology("torus:8x8x8x16")

    def ratio(size):
        return (numeric_time(angara4, "allreduce", "recursive-doubling", size, layout)
                / numeric_time(angara4, "allreduce", "rabenseifner", size, layout))

    assert ratio(m) >= 2 > ratio(m - 1)
    assert ratio(m) == pytest.approx(c.at.ratio, rel=1e-12)
    assert c.below.value == m - 1


def test_crossover_over_bytes_on_a_given_layout(angara3):
    layout = C.Layout.torus((4, 4, 4))
    c = crossover(angara3, "broadcast", "ring", "binomial", 1.5, variable="bytes",
                  layout=layout, values=[64, 1024, 2 ** 16, 2 ** 20, 2 ** 24])
    assert c.fixed["layout"] == "torus:4x4x4" and c.status == "crosses"
    assert c.at.ratio >= 1.5 > c.below.ratio


@pytest.mark.parametrize("kwargs, message", [
    ({"factor": 1}, "factor must be"),
    ({"factor": 0.5}, "factor must be"),
    ({"factor": math.inf}, "factor must be"),
    ({"slower": "hw-tree"}, "both hw-tree"),
    ({"operation": "alltoall"}, "does not define"),
    ({"variable": "hops"}, "unknown variable"),
    ({"operation": "barrier", "variable": "bytes"}, "barrier carries no data"),
    ({"values": [2, 3, 5]}, "none of the node counts"),
    ({"values": [8.5]}, "whole numbers"),
    ({"dims": 0}, "dims must be"),
    ({"m": -1}, "> 0 bytes"),
])
def test_crossover_bad_input(angara3, kwargs, message):
    args = {"operation": "broadcast", "faster": "hw-tree", "slower": "p2p-tree",
            "factor": 2, **kwargs}
    with pytest.raises(InputError, match=message):
        crossover(angara3, args.pop("operation"), args.pop("faster"), args.pop("slower"),
                  args.pop("factor"), **args)


def test_crossover_over_nodes_needs_a_torus():
    with pytest.raises(InputError):
        crossover(load_machine("gige-cluster"), "broadcast", "binomial", "ring", 2)


def test_crossover_does_not_import_sympy():
    code = ("import sys\n"
            "from icnperf.data.machine import Machine, load_machine\n"
            "from icnperf.model.crossover import crossover\n"
            "c = crossover(load_machine('angara-3d'), 'broadcast', 'hw-tree', 'p2p-tree', 4)\n"
            "assert c.found\n"
            "print('sympy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
