"""Sizing inputs: the cost model and the workload of a procurement study, read from TOML
files (the bundled defaults in ``data/costs`` and ``data/workloads``, or a user's files)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from icnperf.data.files import (TOMLProblem, load_toml, looks_like_path, printable,
                                read_text_file)
from icnperf.errors import InputError

DATA = Path(str(resources.files("icnperf").joinpath("data")))
DEFAULT_COST = DATA / "costs" / "default.toml"
DEFAULT_WORKLOAD = DATA / "workloads" / "default.toml"


def read_toml(path: str | Path, what: str) -> dict:
    """A TOML file as a dict; a one-line error when it is missing, unreadable, not a regular
    file, too large, malformed or too deeply nested (see :mod:`icnperf.data.files`)."""
    text = read_text_file(Path(path), f"{what} file")
    try:
        return load_toml(text)
    except TOMLProblem as error:
        raise InputError(f"{what} file {printable(path)} is not valid TOML: {error}") from None


def load_cost_model(path: str | Path | None = None):
    """The cost model of ``path`` (the bundled default when None)."""
    from icnperf.model.sizing.cost import cost_model_from_dict

    cost_file = Path(path) if path else DEFAULT_COST
    return cost_model_from_dict(read_toml(cost_file, "cost"), str(cost_file))


def load_workload(path: str | Path | None = None):
    """The workload of ``path`` (the bundled default when None). An [[app]] whose ``app`` is
    not a built-in model names a skeleton: a bundled one by name, or a file (a path ending
    in .toml or with a folder in it), a relative path taken from the workload file's
    folder."""
    from icnperf.model.sizing.workload import workload_from_dict

    workload_file = Path(path) if path else DEFAULT_WORKLOAD
    return workload_from_dict(read_toml(workload_file, "workload"), str(workload_file),
                              load_skeleton=lambda app: skeleton_of(app, workload_file.parent))


def skeleton_of(app: str, folder: Path):
    """The skeleton a workload's ``app`` names (``folder``: where relative paths start)."""
    from icnperf.data.skeleton import load_skeleton

    text = app.strip()
    if looks_like_path(text, ".toml") and not Path(text).is_absolute():
        text = str(folder / text)
    return load_skeleton(text)
