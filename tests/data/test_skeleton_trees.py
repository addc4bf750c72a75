"""The bundled skeletons' stored plain trees (icnperf/data/apps/trees.json,
data/skeleton_trees.py): the file is what SymPy parses from the TOML files today, a bundled
skeleton is read from it (no SymPy imported), and every expression's number from a stored tree
is bit for bit the number of a walk over SymPy's own tree (the oracle, tests/model/
sympy_walk.py), over drawn parameters, node counts and processes per node."""

import subprocess
import sys
from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icnperf.data.machine import load_machine
from icnperf.data.skeleton import (_apps_dir, _read_skeleton, _Reader, bundled_trees,
                                   load_skeleton, parse_skeleton)
from icnperf.data.skeleton_trees import stored_trees, trees_json, trees_path
from icnperf.model.apps import timing
from icnperf.model.apps.expression_values import evaluate, value
from tests.model.sympy_walk import outcome, sympy_walk

NAMES = sorted(e.name[:-5] for e in _apps_dir().iterdir() if e.name.endswith(".toml"))
MACHINE = {"dp-step": "summit", "moe-step": "summit", "tp-layer": "summit",
           "hpcg-optimized": "angara-36"}
"""The preset each skeleton runs on in these tests (GPU libraries need GPUs; the SHMEM HPCG
runs on the Angara cluster); fugaku otherwise."""


def _text(name: str) -> str:
    return _apps_dir().joinpath(f"{name}.toml").read_text(encoding="utf-8")


def _expressions(skeleton) -> list:
    seen = []
    skeleton.map_expressions(lambda e: seen.append(e) or e)
    return seen


def test_the_stored_trees_are_what_sympy_parses_from_the_toml_files_today():
    stored = trees_path().read_text(encoding="utf-8")
    assert stored == trees_json(bundled_trees()), (
        "data/apps/trees.json is stale: run python -c 'from icnperf.data.skeleton import "
        "write_bundled_trees; write_bundled_trees()'")
    assert sorted(bundled_trees()) == NAMES == ["dp-step", "heat", "hpcg", "hpcg-optimized",
                                                "hpcg-vendor", "jacobi3d", "moe-step", "spmv",
                                                "tp-layer"]


@pytest.mark.parametrize("name", NAMES)
def test_a_bundled_skeleton_is_read_from_its_stored_trees_as_sympy_reads_it(name):
    stored = load_skeleton(name)
    parsed = parse_skeleton(_text(name), origin=f"{name}.toml")
    assert all(e.expr is None for e in _expressions(stored))
    assert all(e.expr is not None for e in _expressions(parsed))
    assert stored == parsed  # names, values, and every expression's text, tree and place
    assert [e.tree for e in _expressions(stored)] == [e.tree for e in _expressions(parsed)]
    assert stored.machine_keys() == parsed.machine_keys()


def test_a_changed_skeleton_or_expression_is_parsed_by_sympy():
    text = _text("jacobi3d")
    assert stored_trees("jacobi3d", text) is not None
    assert stored_trees("jacobi3d", text + "\n") is None
    assert stored_trees("no-such-skeleton", text) is None
    trees = stored_trees("jacobi3d", text)
    place = "phase 'sweep', key 'flops'"
    assert trees[place] == ("8 * n**3 / P", ("mul", 8, ("pow", "n", 3), ("pow", "P", -1)))
    # a stored tree is used only for the text it was made from
    reader = _Reader("jacobi3d.toml", {**trees, place: ("9 * n**3 / P", trees[place][1])})
    skeleton = _read_skeleton(reader, text)
    assert list(reader.parsed) == [place] and skeleton.phases[0].flops.expr is not None
    assert value(skeleton.phases[0].flops, {"n": 2, "P": 4}) == 16


def test_predict_app_on_bundled_skeletons_imports_no_sympy():
    probe = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from icnperf.cli import cli\n"
        "for args in (['jacobi3d', '--machine', 'fugaku', '--nodes', '64,4096'],\n"
        "             ['dp-step', '--machine', 'summit', '--nodes', '8', '--format', 'json'],\n"
        "             ['hpcg', '--machine', 'angara-4d', '--nodes', '16', '--algorithm', 'all'],\n"
        "             ['jacobi3d', '--machine', 'summit', '--nodes', '8', '--compute', 'gpu']):\n"
        "    result = CliRunner().invoke(cli, ['predict', 'app', *args])\n"
        "    assert result.exit_code == 0, result.output\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sympy', 'mpmath')))\n")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True).stdout.strip()
    assert out == "[]"


@pytest.mark.parametrize("name", NAMES)
def test_a_bundled_skeleton_runs_the_same_from_stored_and_parsed_trees(name):
    machine = load_machine(MACHINE.get(name, "fugaku"))
    stored = load_skeleton(name)
    parsed = parse_skeleton(_text(name), origin=f"{name}.toml")
    from icnperf.api.layouts import layouts_for

    for layout in layouts_for(machine.topology, "8,64", None):
        assert timing.run(stored, machine, layout) == timing.run(parsed, machine, layout)


def _parameter():
    whole = st.integers(1, 10**7).map(Fraction)
    decimal = st.builds(lambda n, k: Fraction(n, 10**k), st.integers(1, 10**6),
                        st.integers(1, 4))
    return st.one_of(whole, decimal)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), nodes=st.integers(1, 200_000), ppn=st.integers(1, 8))
def test_every_stored_tree_gives_the_sympy_trees_number_bit_for_bit(name, data, nodes, ppn):
    stored = load_skeleton(name)
    drawn = {k: data.draw(_parameter(), label=k) for k in stored.parameters}
    stored = stored.with_parameters(drawn)
    parsed = parse_skeleton(_text(name), origin=f"{name}.toml").with_parameters(drawn)
    machine = load_machine(MACHINE.get(name, "fugaku"))
    env = timing.environment(replace(stored, defines=()), machine, nodes, ppn)
    for (key, a), (_, b) in zip(stored.defines, parsed.defines):
        mine = outcome(evaluate, a.tree, env)
        assert mine == outcome(sympy_walk, b.expr, env), key
        if mine[0] == "error":
            return  # a definition that cannot be evaluated: the run stops there
        env[key] = value(a, env)
    for a, b in zip(_expressions(stored), _expressions(parsed)):
        assert outcome(evaluate, a.tree, env) == outcome(sympy_walk, b.expr, env), a.where


def test_a_user_file_is_parsed_by_sympy_even_when_it_is_a_bundled_skeletons_copy(tmp_path):
    path = tmp_path / "jacobi3d.toml"
    path.write_text(_text("jacobi3d"), encoding="utf-8")
    skeleton = load_skeleton(str(path))
    assert all(e.expr is not None for e in _expressions(skeleton))
    assert [e.tree for e in _expressions(skeleton)] == [
        e.tree for e in _expressions(load_skeleton("jacobi3d"))]


@pytest.mark.parametrize("content", ["", "{not json", '{"skeletons": []}',
                                     '{"skeletons": {"jacobi3d": 5}}', "SHA", "SHA []",
                                     'SHA {"x": 5}', 'SHA {"x": [1, 2, 3]}'])
def test_an_unreadable_trees_file_means_sympy(tmp_path, monkeypatch, content):
    from icnperf.data import skeleton_trees

    if content.startswith("SHA"):  # the right digest, no or broken expressions
        sha = skeleton_trees.digest(_text("jacobi3d"))
        expressions = f', "expressions": {content[4:]}' if content[4:] else ""
        content = f'{{"skeletons": {{"jacobi3d": {{"sha256": "{sha}"{expressions}}}}}}}'
    broken = tmp_path / "trees.json"
    broken.write_text(content, encoding="utf-8")
    monkeypatch.setattr(skeleton_trees, "trees_path", lambda: broken)
    assert stored_trees("jacobi3d", _text("jacobi3d")) is None
    skeleton = load_skeleton("jacobi3d")
    assert all(e.expr is not None for e in _expressions(skeleton))
