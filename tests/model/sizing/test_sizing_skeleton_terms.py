"""Workload terms that name a skeleton: read through data/sizing_inputs (bundled names, files
relative to the workload's folder), timed by the skeleton evaluator on the job's layout, and
bounded from below by their compute in the screen's proxy."""

from importlib import resources

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from icnperf.data.machine import load_machine
from icnperf.data.sizing_inputs import load_workload
from icnperf.errors import InputError
from icnperf.model.apps import heat, timing
from icnperf.model.sizing.designs import candidate
from icnperf.model.sizing.proxy import Proxy
from icnperf.model.sizing.skeleton_terms import SkeletonTerm
from icnperf.model.sizing.workload import job_layout, predict_workload
from icnperf.model.topology.spec import FAMILIES, checked_spec

from tests.model.sizing.test_sizing_proxy import MACHINES, designs, one_block

MACHINE = load_machine("angara-3d")
HEAT_FILE = str(resources.files("icnperf").joinpath("data", "apps", "heat.toml"))

MINE = """
format = 1
name = "mine"
description = "a 3D stencil with a residual all-reduce and an overlapped shift"
[parameters]
n = 256
iterations = 10
[[phase]]
name = "sweep"
repeat = "iterations"
flops = "8 * n**3 / P"
memory_bytes = "64 * n**3 / P"
[[phase]]
name = "halo"
repeat = "iterations"
halo = { dims = 3, bytes = "8 * (n / P**(1/3))**2" }
[[phase]]
name = "shift"
repeat = "iterations"
overlap = true
flops = "1e6"
p2p = { pattern = "shift", bytes = "4096" }
[[phase]]
name = "residual"
repeat = "iterations"
collective = { op = "allreduce", bytes = "8", algorithm = "recursive-doubling" }
"""


def write_workload(folder, apps, name="w.toml"):
    lines = ['description = "test"', 'rationale = "test"']
    for app in apps:
        lines.append("[[app]]")
        problem = app.pop("problem", {})
        for key, value in app.items():
            lines.append(f"{key} = {value!r}".replace("'", '"'))
        if problem:
            lines.append("[app.problem]")
            lines += [f"{k} = {v!r}" for k, v in problem.items()]
    path = folder / name
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("family, params, algorithm", [
    ("torus", {"radices": (4, 4, 4)}, ["hw-tree", "recursive-doubling"]),
    ("dragonfly", {"p": 2, "a": 4, "h": 2}, "recursive-doubling"),
    ("fattree", {"k": 4, "n": 2}, ["hw-tree", "recursive-doubling", "ring"]),
])
def test_the_bundled_heat_skeleton_equals_the_heat_model(tmp_path, family, params, algorithm):
    """The bundled heat skeleton, named by its path, gives the Python heat model's time on
    the job's layout (the skeleton reproduces model/apps/heat.py to 1e-9)."""
    problem = {"cells": 65536, "steps": 3}
    path = write_workload(tmp_path, [
        {"name": "skeleton", "weight": 2, "app": HEAT_FILE, "algorithm": algorithm,
         "nodes": 16, "problem": dict(problem)},
        {"name": "model", "weight": 2, "app": "heat", "algorithm": algorithm, "nodes": 16,
         "problem": dict(problem)}])
    w = load_workload(path)
    assert isinstance(w.terms[0], SkeletonTerm)
    design = candidate(family, params)
    skeleton, model = predict_workload(w, MACHINE, design, 16)
    layout, _ = job_layout(design, 16)
    names = [algorithm] if isinstance(algorithm, str) else algorithm
    usable = [a for a in names if a != "hw-tree" or layout.is_torus]
    expected = min(heat.predict(MACHINE, layout, algorithm=a, **problem).total_s
                   for a in usable)
    assert skeleton.time_s == pytest.approx(expected, rel=1e-9)
    assert skeleton.weighted_s == pytest.approx(model.weighted_s, rel=1e-9)
    assert skeleton.algorithm == model.algorithm


def test_a_users_skeleton_relative_to_the_workload_folder(tmp_path):
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "mine.toml").write_text(MINE)
    path = write_workload(tmp_path, [{"name": "mine", "weight": 3, "app": "apps/mine.toml",
                                      "nodes": 27, "problem": {"n": 300,
                                                               "processes_per_node": 2}}])
    [term] = load_workload(path).terms
    assert term.skeleton.parameters["n"] == 300 and term.ppn == 2
    design = candidate("torus", {"radices": (3, 3, 3)})
    [result] = predict_workload(load_workload(path), MACHINE, design, 27)
    layout, _ = job_layout(design, 27)
    run = timing.run(term.skeleton, MACHINE, layout, ppn=2)
    assert result.time_s == run.total_s and result.weighted_s == 3 * run.total_s
    assert result.algorithm == "recursive-doubling"
    # n = 300 on 54 ranks: the sweep's roofline is the memory's, 64 n^3 / P bytes per rank
    sweep = run.phases[0]
    per_rank = 64 * 300**3 / 54
    assert sweep.compute_s == pytest.approx(
        per_rank / (MACHINE.require("node.memory_bandwidth") / 2))


@pytest.mark.parametrize("app, problem, message", [
    ("no-such-app", {}, "unknown application 'no-such-app'"),
    ("missing.toml", {}, "missing.toml"),
    ("jacobi3d", {"m": 5}, "unknown parameter 'm'"),
    ("jacobi3d", {"n": "1/3"}, "must be a number"),
    ("jacobi3d", {"processes_per_node": 0}, "processes_per_node must be a whole number"),
])
def test_bad_skeleton_terms_name_the_workload_and_term(tmp_path, app, problem, message):
    path = write_workload(tmp_path, [{"name": "job", "weight": 1, "app": app,
                                      "problem": problem}])
    with pytest.raises(InputError, match=message) as error:
        load_workload(path)
    assert str(error.value).startswith(f"{path}: app 1 ('job'): ")
    assert "\n" not in str(error.value)


def test_algorithm_on_a_skeleton_without_collectives_is_refused(tmp_path):
    (tmp_path / "c.toml").write_text('format = 1\nname = "c"\n[[phase]]\nname = "x"\n'
                                     'flops = "1e9 / P"\n')
    path = write_workload(tmp_path, [{"name": "c", "weight": 1, "app": "c.toml",
                                      "algorithm": "ring"}])
    with pytest.raises(InputError, match="c has no collective phase"):
        load_workload(path)


OTHER = """
format = 1
name = "other"
[parameters]
k = 3
[[phase]]
name = "ring"
repeat = "k"
fixed = "1e-6"
halo = { dims = 2, bytes = "65536", periodic = true }
[[phase]]
name = "exchange"
overlap = true
memory_bytes = "1e6"
p2p = { pattern = "alltoall", bytes = "512" }
[[phase]]
name = "gather"
repeat = "k"
collective = { op = "allgather", bytes = "1024", algorithm = "ring" }
[[phase]]
name = "sync"
collective = { op = "barrier", algorithm = "bruck" }
[[phase]]
name = "scatter"
p2p = { pattern = "random", bytes = "8192" }
collective = { op = "broadcast", bytes = "4096", algorithm = "auto" }
"""

SKELETONS = {"mine.toml": MINE, "other.toml": OTHER}


@pytest.mark.slow
@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(designs, st.integers(2, 200),
       st.sampled_from(["mine.toml", "other.toml", "heat", "spmv", "jacobi3d"]),
       st.sampled_from([None, "best", "ring", ["hw-tree", "recursive-doubling"]]),
       st.integers(0, len(MACHINES) - 1))
def test_the_proxy_stays_below_a_skeleton_terms_time(tmp_path_factory, design, nodes, app,
                                                     algorithm, which):
    """The screen's bound of a skeleton term (compute exactly, halos and patterns as rounds,
    collectives as collective terms) never exceeds the full model on any family, machine,
    algorithm choice or node count."""
    family, params = design
    machine = MACHINES[which]
    spec = checked_spec(FAMILIES[family], params)
    n_endpoints = max(2, spec.family.endpoints(spec.params))
    folder = tmp_path_factory.mktemp("w")
    for name, text in SKELETONS.items():
        (folder / name).write_text(text)
    problem = {"mine.toml": {"n": 64}, "heat": {"cells": 1_000_000, "steps": 2},
               "spmv": {"rows": 100_000, "iterations": 2}, "jacobi3d": {"n": 128}}
    if app == "other.toml" and algorithm is not None:
        algorithm = "best"               # no single algorithm defines all its operations
    term = {"name": "t", "weight": 5, "app": app, "nodes": min(nodes, n_endpoints),
            "problem": problem.get(app, {})}
    if algorithm is not None:
        term["algorithm"] = algorithm
    w = load_workload(write_workload(folder, [term]))
    try:
        full = sum(t.weighted_s for t in predict_workload(
            w, machine, candidate(family, spec.params), n_endpoints))
    except InputError:                   # the model refuses it (e.g. no stencil rate)
        assume(False)
    block = one_block(family, spec.params)
    lower = float(Proxy(w, machine, n_endpoints, [block]).block_proxy(block)[0])
    assert 0 < lower <= full * (1 + 1e-12)
