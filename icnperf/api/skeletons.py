"""The application skeletons the API runs: a bundled name or a file with the bundled apps' own
options (--rows, --cells, --local, --variant, ...) and --param applied
(:func:`resolve_skeleton`), and --algorithm all's two runs (:func:`compared_results`)."""

from __future__ import annotations

from icnperf.data.files import printable
from icnperf.errors import InputError

NPB_IS_OPTIONS = {"klass", "processes_per_node"}
"""The flags NPB IS's Python model takes (--class, --ppn)."""


MAX_LOCAL_CELLS = 10**12
"""Largest HPCG local domain, in grid points per process."""


def _local_domain(text: str) -> tuple[int, int, int]:
    """``--local NXxNYxNZ``: three whole numbers >= 2 (grid points per process along x, y,
    z), at most :data:`MAX_LOCAL_CELLS` in all; InputError naming --local otherwise."""
    import re

    parts = re.split(r"[x×X]", str(text).strip())
    if len(parts) != 3 or not all(p.strip().isdigit() for p in parts):
        raise InputError(f"--local {text!r}: give three whole numbers, e.g. 16x16x16")
    sizes = tuple(int(p) for p in parts)
    if min(sizes) < 2:
        raise InputError(f"--local {text!r}: each size must be at least 2 grid points")
    if sizes[0] * sizes[1] * sizes[2] > MAX_LOCAL_CELLS:
        raise InputError(f"--local {text!r}: more than {MAX_LOCAL_CELLS:.0e} grid points per"
                         " process")
    return sizes


LEGACY_ALIASES = {
    "spmv": {"rows": "rows", "nonzeros_per_row": "nonzeros_per_row",
             "iterations": "iterations"},
    "heat": {"cells": "cells", "steps": "steps"},
    "hpcg": {"local": ("nx", "ny", "nz"), "iterations": "iterations"},
}
"""Today's per-app flags as aliases of --param for the bundled skeletons (flag -> parameter);
hpcg's --variant optimized picks the machine's optimized HPCG (hpcg-vendor, or
hpcg-optimized on the Angara presets), --ppn is any skeleton's processes per node."""


def option_flag(key: str) -> str:
    """The command line's flag of a keyword (``nonzeros_per_row`` -> ``--nnz-per-row``)."""
    return "--" + key.replace("_", "-").replace("klass", "class").replace(
        "nonzeros-per-row", "nnz-per-row")


def parse_params(items) -> dict:
    """``--param k=v`` items as {name: number}: v a bare SI number (2048, 0.5, 1e6; no
    fractions such as 1/3), at most the largest float; InputError for anything else."""
    from icnperf.model.apps.skeleton import read_number

    out = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(f"--param {item!r}: expected NAME=VALUE (e.g. n=2048)")
        out[name] = read_number(text.strip(), f"--param {item!r}: the value")
    return out


def resolve_skeleton(app: str, given: dict, params=(), machine=None):
    """The skeleton of APP (a bundled name or a file) with the legacy flags of ``given``
    and the ``--param`` items applied: (skeleton, processes per node or None). hpcg's
    ``--variant optimized`` is the machine's own optimized HPCG (``software.hpcg_optimized``:
    hpcg-vendor by default, hpcg-optimized for angara-shmem)."""
    from icnperf.data.skeleton import load_skeleton

    used = {k: v for k, v in given.items() if v is not None}
    ppn = used.pop("processes_per_node", None)
    variant = used.pop("variant", None)
    compute = used.pop("compute", "cpu")
    buffers = used.pop("buffers", "host")
    aliases = LEGACY_ALIASES.get(app, {})
    stray = sorted(k for k in used if k not in aliases)
    if variant is not None and app != "hpcg":
        stray.insert(0, "variant")
    if stray:
        names = ", ".join(option_flag(k) for k in stray)
        hint = "use --param NAME=VALUE" if app not in LEGACY_ALIASES else \
            f"{app} takes {', '.join(option_flag(k) for k in aliases) or 'none'}"
        raise InputError(f"{names} does not apply to {printable(app)} ({hint})")
    name = app
    if app == "hpcg" and variant == "optimized":
        from icnperf.model.apps.hpcg import optimized_kind

        kind = "vendor" if machine is None else optimized_kind(machine)
        name = "hpcg-optimized" if kind == "angara-shmem" else "hpcg-vendor"
    skeleton = load_skeleton(name)
    values = {}
    for flag, target in aliases.items():
        if flag not in used:
            continue
        if flag == "local":
            values.update(zip(target, _local_domain(used["local"])))
        else:
            values[target] = used[flag]
    values.update(parse_params(params))
    skeleton = skeleton.with_parameters(values)
    if compute == "gpu":
        from icnperf.model.apps.gpu import on_gpus

        skeleton = on_gpus(skeleton, buffers)
    return skeleton, ppn


def point_to_point_label(skeleton) -> str:
    """The name of the point-to-point side of ``--algorithm all``: the algorithm every
    collective phase runs there when they agree on one, else ``point-to-point``."""
    named = {p.collective.point_to_point for p in skeleton.phases if p.collective}
    return named.pop() if len(named) == 1 and "best" not in named else "point-to-point"


def compared_results(skeleton, machine, layouts, ppn: int | None):
    """``--algorithm all``: [(label, results)] with every collective phase on the hardware
    tree, then on its point-to-point algorithm. InputError when the skeleton has no
    collective phase or the hardware tree does not apply (naming --algorithm all)."""
    from icnperf.model.apps.skeleton import HARDWARE_ALGORITHM
    from icnperf.api.app_runs import skeleton_results

    if not any(p.collective is not None for p in skeleton.phases):
        raise InputError(f"--algorithm all compares collective algorithms; {skeleton.name} "
                         "has no collective phase")
    # the point-to-point run first: an error there (a missing node rate, say) is not the
    # hardware tree's, and is reported as it is
    p2p = skeleton_results(skeleton, machine, layouts, None, ppn, point_to_point=True)
    try:
        hardware = skeleton_results(skeleton, machine, layouts, HARDWARE_ALGORITHM, ppn)
    except InputError as error:
        raise InputError(f"--algorithm all runs every collective phase on "
                         f"{HARDWARE_ALGORITHM}: {error}") from None
    return [(HARDWARE_ALGORITHM, hardware), (point_to_point_label(skeleton), p2p)]
