"""The house's rules, read from the source (AST): rooms, one-way imports, no circles.

docs/architecture.md draws the same table. Every import counts, at module level or inside a
function: a lazy import is still an arrow.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import icnperf

PACKAGE = Path(icnperf.__file__).resolve().parent
ROOMS = ("api", "cli", "data", "model", "reports", "sim", "validation")
UTILITIES = ("__init__", "__main__", "errors", "runner", "units")

ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "units": {"units", "errors"},
    "runner": {"errors"},
    "__init__": {"api"},
    "model": {"model", "errors", "units"},
    "sim": {"sim", "errors", "units"},
    "data": {"data", "model", "errors", "units"},
    "validation": {"validation", "model", "data", "sim", "runner", "errors", "units"},
    "reports": {"reports", "data", "errors", "units", "__init__"},
    "api": {"api", "model", "data", "validation", "reports", "sim", "runner", "errors",
            "units", "__init__"},
    "cli": {"cli", *ROOMS, "errors", "units", "runner", "__init__"},
    "__main__": {"cli"},
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The icnperf modules that module ``name`` imports (a package when no module fits)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                       for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t == "icnperf" or t.startswith("icnperf."))
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _room(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "__init__"
    return parts[1]


def test_top_level_is_rooms_and_utilities():
    entries = {p.stem for p in PACKAGE.iterdir()
               if p.name != "__pycache__" and (p.is_dir() or p.suffix == ".py")}
    assert entries == set(ROOMS) | set(UTILITIES)


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_run_one_way(module):
    room = _room(module)
    bad = sorted(t for t in GRAPH[module] if _room(t) not in ALLOWED[room])
    assert not bad, f"{module} ({room}) may not import {bad}"


def test_nothing_outside_cli_imports_cli():
    offenders = sorted(m for m, targets in GRAPH.items()
                       if _room(m) not in ("cli", "__main__")
                       and any(_room(t) == "cli" for t in targets))
    assert not offenders


def test_only_cli_and_the_package_front_door_import_the_api():
    offenders = sorted(m for m, targets in GRAPH.items()
                       if _room(m) not in ("api", "cli", "__init__")
                       and any(_room(t) == "api" for t in targets))
    assert not offenders


def test_simulator_is_independent_of_the_model():
    offenders = sorted(m for m, targets in GRAPH.items() if _room(m) == "sim"
                       and any(_room(t) in ("model", "data", "validation") for t in targets))
    assert not offenders


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan), plus self-loops."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in graph:
                continue
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def _without_package_reexports(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """A package's ``__init__`` that re-exports its own submodules is the package's front
    door, not a participant: drop its arrows into the package so that a submodule importing
    a sibling through the package is not read as a circle."""
    out = {}
    for module, targets in graph.items():
        is_package = MODULES[module].name == "__init__.py"
        out[module] = {t for t in targets
                       if not (is_package and t.startswith(module + "."))}
    return out


def test_no_import_circles():
    assert _cycles(_without_package_reexports(GRAPH)) == []


def test_cycle_finder_sees_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


COMPUTING = ("model", "validation", "sim", "runner", "data")
ESCAPING = {"icnperf.data.names", "icnperf.data.files"}
"""The text escaping helpers a renderer may still call (data/names.py, data/files.py)."""


def _computing_imports(modules) -> set[str]:
    return {t for m in modules for t in GRAPH[m]
            if _room(t) in COMPUTING and t not in ESCAPING}


REPORTS = sorted(m for m in GRAPH if _room(m) == "reports")


@pytest.mark.parametrize("module", REPORTS)
def test_reports_only_render(module):
    """Issue 27: every reports module renders what icnperf.api hands it; the API loads the
    machine, checks the budget, runs the model or simulator and builds the rows. No module
    of the room imports the model, the validation registry, the simulator, the runner or
    data, beyond data's escaping helpers (ALLOWED["reports"] draws the same line)."""
    assert _computing_imports([module]) == set()


def test_render_only_check_sees_a_model_import(tmp_path):
    path = tmp_path / "renderer.py"
    path.write_text("def render(doc):\n    from icnperf.model.topology.base import PATTERNS\n"
                    "    from icnperf.data.names import csv_cell\n    return PATTERNS\n",
                    encoding="utf-8")
    found = _imports("icnperf.reports.text.renderer", path)
    assert {t for t in found if _room(t) in COMPUTING and t not in ESCAPING} == {
        "icnperf.model.topology.base"}


def test_renderer_check_sees_a_lazy_computing_import(tmp_path):
    source = tmp_path / "fake.py"
    source.write_text("from icnperf.data.files import printable\n"
                      "from icnperf.units import format_quantity\n"
                      "def rows():\n"
                      "    from icnperf.model.collectives import Layout\n"
                      "    import icnperf.runner\n"
                      "    from icnperf.data.machine import load_machine\n")
    found = _imports("icnperf.reports.text.fake", source)
    assert sorted(t for t in found if _room(t) in COMPUTING and t not in ESCAPING) == [
        "icnperf.data.machine", "icnperf.model.collectives", "icnperf.runner"]


def test_renderer_check_sees_a_computing_import():
    """The check itself: the API module the report's results come from loads machines and
    runs the model; the table writer's CSV escaping (data.names) is not computing."""
    flagged = _computing_imports(["icnperf.api.machine_sections"])
    assert "icnperf.data.machine" in flagged
    assert any(t.startswith("icnperf.model.") for t in flagged)
    assert "icnperf.data.names" in GRAPH["icnperf.reports.render"]
    assert _computing_imports(["icnperf.reports.render"]) == set()


SYMPY_FREE = ("icnperf.model.apps.expression_values", "icnperf.data.skeleton_trees")
"""Modules that never import SymPy, nor the SymPy parser (model/apps/expressions.py), even
lazily: a bundled skeleton is read from its stored trees and evaluated through them."""
SYMPY_ON_CALL = ("icnperf.model.apps.skeleton", "icnperf.model.apps.grid",
                 "icnperf.model.apps.timing", "icnperf.model.apps.gpu",
                 "icnperf.data.skeleton")
"""Modules on predict app's path that import SymPy only inside the functions that parse
(a user's skeleton file, explain app) or factor past 65,536."""


def _sympy_imports(path: Path, module_level: bool) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if module_level else list(ast.walk(tree))
    found = []
    for node in nodes:
        names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                 [node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]
                 if isinstance(node, ast.ImportFrom) else [])
        found += [n for n in names if n.split(".")[0] == "sympy"
                  or n == "icnperf.model.apps.expressions"]
    return found


def test_the_bundled_skeleton_path_imports_no_sympy_at_module_level():
    for name in SYMPY_FREE:
        assert _sympy_imports(MODULES[name], module_level=False) == [], name
    for name in SYMPY_ON_CALL:
        assert _sympy_imports(MODULES[name], module_level=True) == [], name
    assert _sympy_imports(MODULES["icnperf.model.apps.expressions"], True) == ["sympy"]
    assert _sympy_imports(MODULES["icnperf.model.apps.closed_form"], True) == [
        "sympy", "icnperf.model.apps.expressions"]
