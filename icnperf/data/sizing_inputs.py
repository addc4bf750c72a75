"""Sizing inputs: the cost model and the workload of a procurement study, read from TOML
files (the bundled defaults in ``data/costs`` and ``data/workloads``, or a user's files)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from icnperf.data.files import (TOMLProblem, load_toml, looks_like_path, printable,
                                read_text_file)
from icnperf.data.names import MAX_TEXT, check_label
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


def load_workload(path: str | Path | None = None, named: tuple = ()):
    """The workload of ``path`` (the bundled default when None). An [[app]] whose ``app`` is
    not a built-in model names a skeleton: a bundled one by name, or a file (a path ending
    in .toml or with a folder in it), a relative path taken from the workload file's
    folder that stays in that folder (:func:`skeleton_of`). ``named``: skeleton files the
    user gave on the command line (``size --app-file``), relative to the working folder and
    allowed wherever they are; each must be one the workload names, so that a mistyped
    path is told rather than ignored."""
    from icnperf.model.sizing.workload import workload_from_dict

    if named and not path:
        raise InputError("--app-file names a skeleton file of a workload: give the workload "
                         "with --workload FILE (the bundled one names none)")
    workload_file = Path(path) if path else DEFAULT_WORKLOAD
    origin = printable(workload_file)
    allowed = _named_files(named)
    document = read_toml(workload_file, "workload")
    _check_size(document, origin)
    used: set[Path] = set()
    workload = workload_from_dict(document, origin,
                                  load_skeleton=lambda app: skeleton_of(
                                      app, workload_file.parent, allowed, used))
    try:
        for term in workload.terms:
            check_label(term.name, f"term name '{printable(term.name)[:40]}'")
        check_label(workload.description, "the description", MAX_TEXT)
        check_label(workload.rationale, "the rationale", MAX_TEXT)
    except InputError as error:
        raise InputError(f"{origin}: {error}") from None
    for place, given in allowed.items():
        if place not in used:
            raise InputError(f"--app-file {printable(given)}: {origin} names no such skeleton"
                             " file (its [[app]] terms' app paths are taken from the workload"
                             " file's folder)")
    return workload


def _named_files(named: tuple) -> dict:
    """The files given on the command line, resolved (``..`` and links followed), each to
    the path as given."""
    allowed = {}
    for given in named:
        try:
            allowed[Path(given).resolve()] = given
        except (OSError, ValueError, RuntimeError):
            raise InputError(f"--app-file {printable(given)}: not a usable path") from None
    return allowed


MAX_TERMS = 1000
"""Most [[collective]] and [[app]] terms of a workload (each is evaluated on every design;
the work estimate of ``size`` counts them too)."""


MAX_ALGORITHM_LIST = 32
"""Most names in a term's ``algorithm`` list (icnperf defines fewer algorithms than that;
each name is evaluated on every design: 100,000 copies of one name ran past 25 s)."""


def _check_size(document: dict, origin: str) -> None:
    """Refuse, before any term is read, more terms than MAX_TERMS or an algorithm list
    longer than MAX_ALGORITHM_LIST."""
    lists = {k: v for k, v in document.items()
             if k in ("collective", "app") and isinstance(v, list)}
    terms = sum(len(v) for v in lists.values())
    if terms > MAX_TERMS:
        raise InputError(f"{origin}: {terms:,} terms, over the {MAX_TERMS:,} a workload may "
                         "have")
    for kind, items in lists.items():
        for number, item in enumerate(items, 1):
            names = item.get("algorithm") if isinstance(item, dict) else None
            if isinstance(names, list) and len(names) > MAX_ALGORITHM_LIST:
                raise InputError(f"{origin}: {kind} {number}: an algorithm list of "
                                 f"{len(names):,} names, over the {MAX_ALGORITHM_LIST} a term"
                                 " may have")


def skeleton_of(app: str, folder: Path, named: dict | tuple = (), used: set | None = None):
    """The skeleton a workload's ``app`` names (``folder``: where relative paths start).

    A file must be inside ``folder`` once ``..`` and symbolic links are resolved, unless it
    is one of the files ``named`` on the command line (resolved paths) or a bundled
    skeleton's file: a workload is a file someone may send, and its
    ``app = "../../etc/shadow"`` must not read (or, through the difference between "not
    found" and "not valid TOML", probe) files elsewhere. The refusal is the same whether
    the file exists or not. A named file that is read is added to ``used``."""
    from icnperf.data.skeleton import load_skeleton

    text = app.strip()
    if not looks_like_path(text, ".toml"):
        return load_skeleton(text)
    try:
        place = (folder / text).resolve()
        home = folder.resolve()
    except (OSError, ValueError, RuntimeError):
        place, home = None, folder
    bundled = (DATA / "apps").resolve()
    if place is not None and place in named:
        if used is not None:
            used.add(place)
    elif place is None or not (place.is_relative_to(home) or place.parent == bundled):
        raise InputError(f"workload app {printable(text)!r}: a skeleton file must be in the "
                         "workload file's folder or below it (no absolute paths, '..' or "
                         "links out of it), or named with --app-file")
    return load_skeleton(str(place))
