"""Skeleton files (icnperf/data/skeleton.py): the format of docs/skeleton-format.md, its
one-line errors naming the phase and the key, and the round trip through the writer."""

from fractions import Fraction
from importlib import resources

import pytest

from icnperf.data.machine import Machine, load_machine
from icnperf.data.skeleton import (list_skeletons, load_skeleton, parse_skeleton,
                                   skeleton_to_toml)
from icnperf.errors import InputError
from icnperf.model.apps import timing
from icnperf.model.collectives import Layout

JACOBI = resources.files("icnperf").joinpath("data", "apps", "jacobi3d.toml").read_text()
"""The bundled jacobi3d skeleton: the issue's example as written, with its comments."""


def test_the_issues_jacobi_example_reads_as_written():
    s = parse_skeleton(JACOBI, "jacobi.toml")
    assert s.name == "jacobi3d" and [p.name for p in s.phases] == ["sweep", "halo", "residual"]
    assert s.parameters == {"n": 1024, "iterations": 100}
    assert s.phases[1].halo.dims == 3 and not s.phases[1].halo.periodic
    assert s.phases[2].collective.op == "allreduce"
    assert s.phases[2].collective.algorithm == "recursive-doubling"
    assert load_skeleton("jacobi3d").phases[0].flops.text == "8 * n**3 / P"


def test_jacobi_compute_is_the_roofline_of_the_angara_node():
    """8 n^3 / P FLOP at 140.8 GFLOP/s vs 64 n^3 / P bytes at 51.2 GB/s: memory bound."""
    machine = load_machine("angara-4d")
    layout = Layout.torus((4, 4, 4, 4))
    result = timing.run(parse_skeleton(JACOBI), machine, layout)
    sweep = result.phases[0]
    assert sweep.bound == "memory"
    assert sweep.compute_s == pytest.approx(64 * 1024**3 / 256 / 51.2e9, rel=1e-12)
    assert sweep.time_s == pytest.approx(100 * sweep.compute_s, rel=1e-12)
    assert result.flops == pytest.approx(100 * 8 * 1024**3, rel=1e-12)
    assert result.total_s == pytest.approx(sum(p.time_s for p in result.phases))


def test_bundled_skeletons_are_listed():
    names = [name for name, _ in list_skeletons()]
    assert {"spmv", "heat", "hpcg", "hpcg-optimized", "jacobi3d"} <= set(names)


def _error(text) -> str:
    with pytest.raises(InputError) as error:
        parse_skeleton(text, "user.toml")
    message = str(error.value)
    assert "\n" not in message and message.startswith("user.toml: ")
    return message


def _with(old, new):
    assert old in JACOBI
    return JACOBI.replace(old, new)


@pytest.mark.parametrize("old, new, phrases", [
    ('flops = "8 * n**3 / P"', 'flops = "8 * m**3 / P"',
     ["phase 'sweep', key 'flops'", "unknown symbol 'm'"]),
    ('flops = "8 * n**3 / P"', 'flops = "8 * n**3 / (P"',
     ["phase 'sweep', key 'flops'", "syntax error"]),
    ('flops = "8 * n**3 / P"', 'flop = "8 * n**3 / P"',
     ["phase 'sweep', key 'flop'", "unknown key", "did you mean 'flops'"]),
    ('halo = { dims = 3, bytes', 'halo = { dims = 3, byts = 1, bytes',
     ["phase 'halo', key 'halo.byts'", "unknown key"]),
    ('halo = { dims = 3, bytes = "8 * (n / P**(1/3))**2" }', 'halo = { dims = 3 }',
     ["phase 'halo', key 'halo.bytes'", "missing"]),
    ('flops = "8 * n**3 / P"', 'flops = "__import__(\'os\').system(\'true\')"',
     ["phase 'sweep', key 'flops'", "attempt at code"]),
    ('repeat = "iterations"        # an', 'repeat = "().__class__"        # an',
     ["phase 'sweep', key 'repeat'", "attribute access"]),
    ('bytes = "8", algorithm', 'bytes = "8", algorithm = "best", x',
     ["phase 'residual'"]),
    ('algorithm = "recursive-doubling"', 'algorithm = "fastest"',
     ["phase 'residual', key 'collective.algorithm'", "unknown algorithm"]),
    ('op = "allreduce"', 'op = "scan"', ["phase 'residual', key 'collective.op'"]),
    ('format = 1', 'format = 2', ["key 'format'", "format 1"]),
    ('name = "residual"', 'name = "sweep"', ["phase 'sweep'", "earlier phase"]),
    ('iterations = 100', 'iterations = "many"', ["[parameters], key 'iterations'", "number"]),
    ('iterations = 100', 'P = 100', ["[parameters], key 'P'", "taken"]),
    ('flops = "8 * n**3 / P"', 'flops = "8 * node.flops"',
     ["phase 'sweep', key 'flops'", "unknown machine value 'node.flops'"]),
    ('flops = "8 * n**3 / P"', 'rate = "1e9"', ["phase 'sweep', key 'rate'", "needs flops"]),
    ('flops = "8 * n**3 / P"', 'flops = "sqrt(-P)"', ["phase 'sweep', key 'flops'", "complex"]),
    ('[[phase]]\nname = "halo"', '[[phase]]\nname = "halo"\nwhatever = 1',
     ["phase 'halo', key 'whatever'", "unknown key"]),
    ('description =', 'descripton =', ["key 'descripton'", "unknown key"]),
])
def test_malformed_skeletons_name_the_phase_and_key(old, new, phrases):
    message = _error(_with(old, new))
    for phrase in phrases:
        assert phrase in message, message


def test_a_phase_needs_a_name_and_a_charge():
    assert "missing key 'name'" in _error(_with('name = "halo"\n', ''))
    assert "charges nothing" in _error(JACOBI + '[[phase]]\nname = "idle"\n')
    assert "no [[phase]]" in _error('format = 1\nname = "x"\n')
    assert "not valid TOML" in _error('format = 1\nname = \n')


def test_negative_or_complex_values_at_some_node_count_name_phase_key_and_nodes():
    skeleton = parse_skeleton(_with('flops = "8 * n**3 / P"', 'flops = "8 * n**3 * (16 - P)"'),
                              "user.toml")
    machine = load_machine("angara-4d")
    timing.run(skeleton, machine, Layout.torus((2, 2, 2, 2)))  # P = 16: 0 FLOP, fine
    # 8 x 1024^3 x (16 - 32) = -1.374e11 FLOP at 32 nodes
    with pytest.raises(InputError, match=r"user.toml: phase 'sweep', key 'flops': the value "
                                         r"is -1.37439e\+11 at N = 32 \(P = 32\)"):
        timing.run(skeleton, machine, Layout.torus((2, 2, 2, 4)))
    rooted = parse_skeleton(_with('bytes = "8 * (n / P**(1/3))**2"',
                                  'bytes = "(20 - P) ** 0.5"'), "user.toml")
    with pytest.raises(InputError, match=r"user.toml: phase 'halo', key 'halo.bytes': the value is "
                                         "complex at N = 32"):
        timing.run(rooted, machine, Layout.torus((2, 2, 2, 4)))


def test_parameters_override_and_unknown_ones_are_refused():
    skeleton = load_skeleton("jacobi3d")
    assert skeleton.with_parameters({"n": 2048}).parameters["n"] == 2048
    with pytest.raises(InputError, match="unknown parameter 'm'.*n, iterations"):
        skeleton.with_parameters({"m": 1})


def test_a_machine_without_a_value_gets_the_machines_missing_key_error():
    """No measured SpMV rate and no roofline to derive one from (no memory values)."""
    angara = load_machine("angara-4d")
    machine = Machine("bare", angara.topology, network=angara.network,
                      node={"peak_flops": 1e11}, software=angara.software)
    with pytest.raises(InputError, match="has no node.spmv_rate.*--set node.spmv_rate=VALUE"):
        timing.run(load_skeleton("spmv"), machine, None)


@pytest.mark.parametrize("name", ["jacobi3d", "spmv", "heat", "hpcg", "hpcg-optimized"])
def test_the_writer_round_trips(name):
    skeleton = load_skeleton(name)
    again = parse_skeleton(skeleton_to_toml(skeleton, ("a header",)), "again.toml")
    assert again.parameters == skeleton.parameters
    assert again.coefficients == skeleton.coefficients
    assert [(k, e.text) for k, e in again.defines] == [(k, e.text) for k, e in skeleton.defines]
    assert [[e.text for e in p.expressions()] for p in again.phases] == \
        [[e.text for e in p.expressions()] for p in skeleton.phases]
    assert again.phases == tuple(p for p in again.phases)
    assert (again.processes_per_node, again.scaling, again.machine_defaults) == \
        (skeleton.processes_per_node, skeleton.scaling, skeleton.machine_defaults)


def test_helpers_come_from_the_registry_only():
    text = _with('halo = { dims = 3, bytes = "8 * (n / P**(1/3))**2" }',
                 'helper = { name = "os.system" }')
    assert "unknown helper 'os.system'" in _error(text)
    text = _with('halo = { dims = 3, bytes = "8 * (n / P**(1/3))**2" }',
                 'helper = { name = "hpcg_halo", nx = 16 }')
    assert "key 'helper.ny'" in _error(text)


def test_p2p_algorithm_names_the_point_to_point_side_of_algorithm_all():
    spmv, heat = load_skeleton("spmv"), load_skeleton("heat")
    assert spmv.phases[1].collective.point_to_point == "recursive-doubling"
    assert heat.phases[3].collective.point_to_point == "p2p-tree"
    jacobi = load_skeleton("jacobi3d").phases[2].collective      # its own algorithm
    assert jacobi.p2p_algorithm is None and jacobi.point_to_point == "recursive-doubling"
    best = parse_skeleton(_with('algorithm = "recursive-doubling"', 'algorithm = "best"'))
    assert best.phases[2].collective.point_to_point == "best"   # fastest, tree left out
    auto = parse_skeleton(_with('algorithm = "recursive-doubling"', 'algorithm = "auto"'))
    assert auto.phases[2].collective.point_to_point == "auto"   # the library's: never a tree
    again = parse_skeleton(skeleton_to_toml(heat), "heat.toml")
    assert again.phases[3].collective == heat.phases[3].collective
    for bad in ("hw-tree", "fastest"):
        message = _error(_with('algorithm = "recursive-doubling"',
                               f'algorithm = "best", p2p_algorithm = "{bad}"'))
        assert "phase 'residual', key 'collective.p2p_algorithm'" in message
        assert "point-to-point algorithm" in message


@pytest.mark.parametrize("value, problem", [
    ("1/3", "must be a number (2048, 0.5, 1e6)"), ("inf", "must be a number"),
    ("1e400", "beyond the largest number"),
    pytest.param(10 ** 400, "beyond the largest number", id="10**400"),
    (float("nan"), "finite"), (True, "must be a number"),
])
def test_parameter_values_are_bare_numbers_within_float_range(value, problem):
    with pytest.raises(InputError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        load_skeleton("jacobi3d").with_parameters({"n": value})


def test_parameter_values_in_range_are_kept_exact():
    s = load_skeleton("jacobi3d").with_parameters({"n": "1e300", "iterations": "2.5"})
    assert s.parameters["n"] == 10 ** 300 and s.parameters["iterations"] == Fraction(5, 2)


def test_deeply_nested_toml_is_a_one_line_error_not_a_recursion_error():
    message = _error('format = 1\nname = "x"\nnotes = ' + "[" * 5000 + "]" * 5000 + "\n")
    assert "not valid TOML (nested deeper than 32 levels" in message


def test_a_file_name_with_undecodable_bytes_is_shown_escaped():
    import os

    with pytest.raises(InputError) as error:
        parse_skeleton(_with('"8 * n**3 / P"', '"8 * q"'), os.fsdecode(b"ja\xffcobi.toml"))
    assert str(error.value).startswith("ja\\xffcobi.toml: phase 'sweep', key 'flops'")
