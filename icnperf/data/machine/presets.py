"""Machines from files: the bundled presets (``icnperf/data/machines/NAME.toml``), a user's
machine file by path, and writing a machine back as TOML (atomically)."""

from __future__ import annotations

import os
import re
from importlib import resources
from pathlib import Path

from icnperf.data.files import (bundled_file, looks_like_path, printable, read_text_file,
                                write_atomically)
from icnperf.data.machine.machine import Machine, parse_machine
from icnperf.errors import InputError

_PRESET_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]*")


def _presets_dir():
    return resources.files("icnperf").joinpath("data", "machines")


def list_presets() -> list[tuple[str, str]]:
    """(name, description) of every bundled preset, sorted by name."""
    out = []
    for entry in _presets_dir().iterdir():
        if entry.name.endswith(".toml"):
            name = entry.name[: -len(".toml")]
            out.append((name, load_machine(name).description))
    return sorted(out)


def load_machine(name_or_path: str) -> Machine:
    """A bundled preset by name (``angara-3d``) or a machine file by path.

    Anything containing a path separator or ending in ``.toml`` is a path; anything else is
    a preset name. A file is read within the input limits of :mod:`icnperf.data.files`
    (a regular file, at most ``ICNPERF_MAX_INPUT_BYTES``); a name derived from a path that
    is not UTF-8 shows its bytes escaped. Raises InputError for unknown presets, unreadable
    or invalid files.
    """
    if not isinstance(name_or_path, str) or not name_or_path.strip():
        raise InputError("machine: give a preset name or a path to a .toml file")
    name_or_path = name_or_path.strip()
    if looks_like_path(name_or_path, ".toml"):
        text = read_text_file(name_or_path, "machine file", error=InputError)
        return parse_machine(text, origin=printable(name_or_path),
                             default_name=printable(Path(name_or_path).stem))
    entry = bundled_file(_presets_dir(), name_or_path)
    if not _PRESET_NAME_RE.fullmatch(name_or_path) or entry is None:
        names = sorted(
            e.name[: -len(".toml")] for e in _presets_dir().iterdir() if e.name.endswith(".toml")
        )
        raise InputError(
            f"unknown machine preset {name_or_path!r} (presets: {', '.join(names)}; "
            "or give a path to a .toml file)"
        )
    text = entry.read_text(encoding="utf-8")
    return parse_machine(text, origin=f"preset {name_or_path}", default_name=name_or_path)


def write_machine(machine: Machine, path: str | os.PathLike, overwrite: bool = False) -> None:
    """Write ``machine.to_toml()`` to ``path`` atomically (temporary file, then link or
    rename; ``-`` is standard output). Refuses to replace an existing file unless
    ``overwrite``."""
    write_atomically(path, machine.to_toml(), force=overwrite)
