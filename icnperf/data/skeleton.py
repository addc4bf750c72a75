"""Application skeleton files: a bundled name (``icnperf/data/apps/NAME.toml``) or a path,
read into :class:`icnperf.model.apps.skeleton.Skeleton` and written back.

The format is docs/skeleton-format.md. Every problem is one InputError naming the file, the
phase and the key (``jacobi.toml: phase 'sweep', key 'flops': unknown symbol 'm' ...``);
expressions are parsed by :mod:`icnperf.model.apps.expressions` (a whitelist over Python's
syntax tree, never ``eval``), except that a bundled skeleton whose TOML text is the one its
stored trees were made from takes them from ``data/apps/trees.json``
(:mod:`icnperf.data.skeleton_trees`) and so loads no SymPy. Machine values an expression may
read are the numeric keys of the machine schema (``data/machine``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from importlib import resources
from pathlib import Path

from icnperf.data.files import (TOMLProblem, bundled_file, load_toml, looks_like_path, printable,
                                read_text_file)
from icnperf.data.machine.schema import SCHEMA, check_value
from icnperf.data.names import check_label, toml_comment, toml_string
from icnperf.data.skeleton_trees import stored_trees, trees_json, trees_path
from icnperf.errors import IcnperfError, InputError
from icnperf.model.apps import expression_values as ex
from icnperf.model.apps.skeleton import (API_CHOICES, COLLECTIVE_SCOPES, GPU_LIBRARY_APIS,
                                         HARDWARE_ALGORITHM, P2P_PATTERNS, SCALINGS,
                                         Collective, Halo, HelperCall, Phase, PointToPoint,
                                         Skeleton, symbol_table)

__all__ = ["FORMAT_VERSION", "MACHINE_KEYS", "bundled_trees", "list_skeletons",
           "load_skeleton", "parse_skeleton", "skeleton_to_toml", "write_bundled_trees"]

FORMAT_VERSION = 1

MAX_BYTES = 1024 * 1024
"""Largest skeleton file read (1 MiB; the bundled ones are under 4 KiB). Checked before the
TOML is parsed: a 38 MB skeleton took over 30 s and 870 MB."""

MAX_PHASES = 1000
"""Most phases of one skeleton (each is evaluated at every node count)."""

MAX_DEFINITIONS = 500
"""Most names of [parameters], [coefficients] and [define] together."""

MAX_EXPRESSION_CHARACTERS = 200_000
"""Most characters of all a skeleton's expressions together: each is parsed and checked
(about 50 us per character at worst, so 10 s is the ceiling)."""

_TOP = ("format", "name", "description", "notes", "parameters", "coefficients", "define",
        "machine_defaults", "processes_per_node", "total_flops", "scaling", "phase")
_PHASE = ("name", "repeat", "flops", "memory_bytes", "gpu_memory_bytes", "rate", "bandwidth",
          "fixed", "overlap", "api", "halo", "collective", "p2p", "helper")
_HALO = ("dims", "bytes", "periodic", "axes")
_COLLECTIVE = ("op", "bytes", "algorithm", "scope", "p2p_algorithm", "ranks")
_P2P = ("pattern", "bytes", "distance")


def _machine_keys() -> frozenset:
    return frozenset(key.path for section in ex.MACHINE_SECTIONS
                     for key in SCHEMA[section].values() if key.kind not in ("text", "choice"))


MACHINE_KEYS = _machine_keys()
"""Machine values an expression may name: every numeric key of node, network, software."""


def _apps_dir():
    return resources.files("icnperf").joinpath("data", "apps")


def list_skeletons() -> list[tuple[str, str]]:
    """(name, description) of every bundled skeleton, sorted by name."""
    out = []
    for entry in _apps_dir().iterdir():
        if entry.name.endswith(".toml"):
            name = entry.name[: -len(".toml")]
            out.append((name, load_skeleton(name).description))
    return sorted(out)


def load_skeleton(name_or_path: str) -> Skeleton:
    """A bundled skeleton by name (``jacobi3d``) or a skeleton file by path (anything with a
    path separator or ending in .toml)."""
    if not isinstance(name_or_path, str) or not name_or_path.strip():
        raise InputError("app: give a bundled skeleton name or a path to a .toml file")
    text = name_or_path.strip()
    if looks_like_path(text, ".toml"):
        try:
            content = read_text_file(Path(text), "skeleton file")
        except IcnperfError as error:
            raise InputError(str(error)) from None
        return parse_skeleton(content, origin=text)
    entry = bundled_file(_apps_dir(), text)
    if entry is None:
        names = sorted(e.name[:-5] for e in _apps_dir().iterdir() if e.name.endswith(".toml"))
        raise InputError(f"unknown application '{printable(text)}' (bundled: "
                         f"{', '.join(names)}, npb-is; or give a path to a skeleton .toml "
                         "file)")
    content = entry.read_text(encoding="utf-8")
    trees = stored_trees(text, content)
    if trees is None:
        return parse_skeleton(content, origin=f"{text}.toml")
    return _read_skeleton(_Reader(printable(f"{text}.toml"), trees), content)


def bundled_trees() -> dict:
    """name -> (TOML text, {place: Expression}) of every bundled skeleton, each expression
    parsed by SymPy: what data/apps/trees.json stores (data/skeleton_trees.py)."""
    out = {}
    for entry in _apps_dir().iterdir():
        if entry.name.endswith(".toml"):
            name = entry.name[: -len(".toml")]
            text = entry.read_text(encoding="utf-8")
            reader = _Reader(f"{name}.toml")
            _read_skeleton(reader, text)
            out[name] = (text, reader.parsed)
    return out


def write_bundled_trees() -> str:
    """Rewrite data/apps/trees.json from the bundled TOML files (after changing one);
    returns the file's path."""
    from icnperf.data.files import write_atomically

    path = str(trees_path())
    write_atomically(path, trees_json(bundled_trees()), force=True)
    return path


# --- reading ----------------------------------------------------------------------------


class _Reader:
    """Reads one skeleton file: its one-line errors, and its expressions, each from
    ``trees`` (the stored plain trees of a bundled skeleton: place in the file -> (text,
    tree), data/skeleton_trees.py) when they hold it as written there, else parsed by SymPy
    (recorded in ``parsed``, place -> Expression)."""

    def __init__(self, origin: str, trees: dict | None = None):
        self.origin = origin
        self.trees = trees or {}
        self.parsed: dict = {}
        self._table = None  # SymPy's symbols, made on the first expression parsed

    def fail(self, where: str, problem: str) -> InputError:
        return InputError(f"{self.origin}: {where}: {problem}" if where else
                          f"{self.origin}: {problem}")

    def keys(self, table: dict, allowed, label: str = "", prefix: str = "") -> None:
        for key in table:
            if key not in allowed:
                hint = _closest(key, allowed)
                where = f"key '{prefix}{key}'"
                raise self.fail(f"{label}, {where}" if label else where,
                                f"unknown key{hint} (allowed: {', '.join(allowed)})")

    def table(self, value, where: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected a table, not {type(value).__name__}")
        return value

    def expression(self, value, where: str, names: tuple) -> ex.Expression:
        """The expression written as ``value`` at ``where``, where the skeleton's own
        ``names`` (parameters, coefficients, definitions) are known."""
        place = f"{self.origin}: {where}"
        stored = self.trees.get(where)
        if stored is not None and stored[0] == ex.written_text(value):
            return ex.Expression(stored[0], stored[1], place)
        from icnperf.model.apps.expressions import parse

        if self._table is None or len(self._table.names) != len(ex.RESERVED) + len(names):
            self._table = symbol_table(names, MACHINE_KEYS, self._table)
        self.parsed[where] = parse(value, place, self._table)
        return self.parsed[where]


def _closest(key: str, allowed) -> str:
    import difflib

    match = difflib.get_close_matches(key, list(allowed), n=1)
    return f" (did you mean {match[0]!r}?)" if match else ""


def parse_skeleton(text: str, origin: str = "<skeleton>") -> Skeleton:
    """A skeleton from TOML text (read by :func:`icnperf.data.files.load_toml`: a byte-order
    mark allowed, nesting capped); InputError naming ``origin`` (printable: a file name's
    control characters and undecodable bytes escaped), the phase and the key. Every
    expression is parsed by SymPy (:mod:`icnperf.model.apps.expressions`)."""
    return _read_skeleton(_Reader(printable(origin)), text)


def _read_skeleton(r: _Reader, text: str) -> Skeleton:
    """:func:`parse_skeleton` with the reader ``r`` (its origin, its stored trees)."""
    origin = r.origin
    if len(text) > MAX_BYTES:
        raise r.fail("", f"{len(text):,} characters, over the {MAX_BYTES:,} a skeleton may "
                     "have")
    try:
        doc = load_toml(text)
    except TOMLProblem as error:
        raise InputError(f"{origin}: not valid TOML ({error})") from None
    r.keys(doc, _TOP)
    if "format" not in doc:
        raise r.fail("", "missing key 'format' (write format = 1 at the top)")
    if doc["format"] != FORMAT_VERSION or isinstance(doc["format"], bool):
        raise r.fail("key 'format'", f"this icnperf reads format {FORMAT_VERSION}, not "
                     f"{doc['format']!r}")
    name = doc.get("name")
    if not isinstance(name, str) or not name.strip():
        raise r.fail("key 'name'", "missing or empty (give the application a name)")
    try:
        check_label(name, "the name")
    except InputError as error:
        raise r.fail("key 'name'", str(error)) from None
    _check_counts(r, doc)
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise r.fail("key 'description'", "must be text")
    notes = doc.get("notes", [])
    if not (isinstance(notes, list) and all(isinstance(n, str) for n in notes)):
        raise r.fail("key 'notes'", "must be a list of text")

    own: list = []  # the skeleton's own names, in the order they are declared
    parameters = _numbers(r, doc.get("parameters", {}), "[parameters]", own)
    coefficients = _numbers(r, doc.get("coefficients", {}), "[coefficients]", own)
    defines = []
    for key, value in r.table(doc.get("define", {}), "[define]").items():
        where = f"[define], key {key!r}"
        try:
            ex.check_name(key, "definition")
        except InputError as error:
            raise r.fail(where, str(error)) from None
        if key in own:
            raise r.fail(where, f"{key!r} is already a parameter or coefficient")
        defines.append((key, r.expression(value, where, tuple(own))))
        own.append(key)
    table = tuple(own)
    machine_defaults = _machine_defaults(r, doc.get("machine_defaults", {}))

    ppn = doc.get("processes_per_node")
    if ppn is not None and (isinstance(ppn, bool) or not isinstance(ppn, int) or ppn < 1):
        raise r.fail("key 'processes_per_node'", f"must be a whole number >= 1, not {ppn!r}")
    scaling = doc.get("scaling", "strong")
    if scaling not in SCALINGS:
        raise r.fail("key 'scaling'", f"must be one of {', '.join(SCALINGS)}, not {scaling!r}")
    total_flops = (r.expression(doc["total_flops"], "key 'total_flops'", table)
                   if "total_flops" in doc else None)

    raw_phases = doc.get("phase")
    if not isinstance(raw_phases, list) or not raw_phases:
        raise r.fail("", "no [[phase]] tables (a skeleton needs at least one phase)")
    phases, seen = [], set()
    for i, raw in enumerate(raw_phases):
        phase = _phase(r, raw, i, table)
        if phase.name in seen:
            raise r.fail(f"phase {phase.name!r}", "the name is used by an earlier phase")
        seen.add(phase.name)
        phases.append(phase)
    return Skeleton(name=name.strip(), phases=tuple(phases), description=description,
                    parameters=parameters, coefficients=coefficients, defines=tuple(defines),
                    machine_defaults=machine_defaults, processes_per_node=ppn,
                    total_flops=total_flops, scaling=scaling, notes=tuple(notes),
                    origin=origin)


def _check_counts(r: _Reader, doc: dict) -> None:
    """Refuse a skeleton too large to read in bounded time, counted before any expression
    is parsed: phases, names, and the characters of every expression."""
    phases = doc.get("phase")
    if isinstance(phases, list) and len(phases) > MAX_PHASES:
        raise r.fail("", f"{len(phases):,} phases, over the {MAX_PHASES:,} a skeleton may have")
    names = sum(len(doc[k]) for k in ("parameters", "coefficients", "define")
                if isinstance(doc.get(k), dict))
    if names > MAX_DEFINITIONS:
        raise r.fail("", f"{names:,} parameters, coefficients and definitions, over the "
                     f"{MAX_DEFINITIONS:,} a skeleton may have")
    characters, stack = 0, [doc]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str):
            characters += len(value)
    if characters > MAX_EXPRESSION_CHARACTERS:
        raise r.fail("", f"{characters:,} characters of expressions and text, over the "
                     f"{MAX_EXPRESSION_CHARACTERS:,} a skeleton may have")


def _numbers(r: _Reader, raw, section: str, own: list) -> dict:
    out = {}
    for key, value in r.table(raw, section).items():
        where = f"{section}, key {key!r}"
        try:
            ex.check_name(key, "name")
        except InputError as error:
            raise r.fail(where, str(error)) from None
        if key in own:
            raise r.fail(where, f"{key!r} is declared twice")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise r.fail(where, f"must be a number (SI units), not {value!r}")
        if isinstance(value, float) and not math.isfinite(value):
            raise r.fail(where, f"must be a finite number, not {value!r}")
        out[key] = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
        own.append(key)
    return out


def _machine_defaults(r: _Reader, raw) -> dict:
    out = {}
    for section, values in r.table(raw, "[machine_defaults]").items():
        if section not in ex.MACHINE_SECTIONS or not isinstance(values, dict):
            raise r.fail(f"[machine_defaults], key {section!r}",
                         "write machine values as node.KEY = number (sections: "
                         f"{', '.join(ex.MACHINE_SECTIONS)})")
        for key, value in values.items():
            path = f"{section}.{key}"
            where = f"[machine_defaults], key {path!r}"
            if path not in MACHINE_KEYS:
                raise r.fail(where, "not a numeric machine key (docs/machine-format.md)")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise r.fail(where, f"must be a number in SI units, not {value!r}")
            try:  # the machine file's checks; 0 allowed (hardware the machine lacks)
                out[path] = value if value == 0 else \
                    check_value(SCHEMA[section][key], value, "", path)
            except InputError as error:
                raise r.fail(where, str(error).removeprefix(": ")) from None
    return out


def _phase(r: _Reader, raw, index: int, table: tuple) -> Phase:
    if not isinstance(raw, dict):
        raise r.fail(f"phase {index + 1}", "must be a table")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise r.fail(f"phase {index + 1}", "missing key 'name' (every phase has a name)")
    try:
        check_label(name, "the name")
    except InputError as error:
        raise r.fail(f"phase {index + 1}", str(error)) from None
    label = f"phase {name.strip()!r}"
    r.keys(raw, _PHASE, label)

    def expr(key: str, value):
        return r.expression(value, f"{label}, key {key!r}", table)

    fields = {}
    for key in ("flops", "memory_bytes", "gpu_memory_bytes", "rate", "bandwidth", "fixed"):
        if key in raw:
            fields[key] = expr(key, raw[key])
    if "rate" in fields and "flops" not in fields:
        raise r.fail(f"{label}, key 'rate'", "a rate needs flops (FLOP per rank per repeat)")
    if "bandwidth" in fields and "memory_bytes" not in fields:
        raise r.fail(f"{label}, key 'bandwidth'", "a bandwidth needs memory_bytes")
    overlap = raw.get("overlap", False)
    if not isinstance(overlap, bool):
        raise r.fail(f"{label}, key 'overlap'", "must be true or false")
    api = raw.get("api", "mpi")
    if api not in API_CHOICES:
        raise r.fail(f"{label}, key 'api'", f"must be one of {', '.join(API_CHOICES)}, "
                     f"not {api!r}")
    if api in GPU_LIBRARY_APIS:
        for key in ("halo", "p2p", "helper"):
            if key in raw:
                raise r.fail(f"{label}, key {key!r}", f"api {api} times collectives only; "
                             "put the halo, p2p or helper in a phase of api mpi")
    if "halo" in raw:
        fields["halo"] = _halo(r, raw["halo"], label, table)
    if "collective" in raw:
        fields["collective"] = (_ccl_collective(r, raw["collective"], label, table, api)
                                if api in GPU_LIBRARY_APIS else
                                _collective(r, raw["collective"], label, table))
    if "p2p" in raw:
        fields["p2p"] = _p2p(r, raw["p2p"], label, table)
    if "helper" in raw:
        fields["helper"] = _helper(r, raw["helper"], label, table)
    phase = Phase(name=name.strip(), repeat=expr("repeat", raw.get("repeat", 1)),
                  overlap=overlap, api=api, **fields)
    if not (phase.has_compute or phase.has_communication):
        raise r.fail(label, "charges nothing: give flops, memory_bytes or fixed, or a halo, "
                     "collective, p2p or helper")
    if overlap and not (phase.has_compute and phase.has_communication):
        raise r.fail(f"{label}, key 'overlap'", "needs both compute and communication")
    return phase


def _required(r, raw: dict, key: str, where: str):
    if key not in raw:
        raise r.fail(f"{where}.{key}'", "missing (required)")
    return raw[key]


def _halo(r: _Reader, raw, label: str, table) -> Halo:
    where = f"{label}, key 'halo"
    raw = r.table(raw, where + "'")
    r.keys(raw, _HALO, label, "halo.")
    dims = _required(r, raw, "dims", where)
    if isinstance(dims, bool) or not isinstance(dims, int) or not 1 <= dims <= 6:
        raise r.fail(f"{where}.dims'", f"must be a whole number 1..6, not {dims!r}")
    periodic = raw.get("periodic", False)
    if not isinstance(periodic, bool):
        raise r.fail(f"{where}.periodic'", "must be true or false")
    axes = raw.get("axes")
    if axes is not None:
        if not (isinstance(axes, list) and axes and all(
                isinstance(a, int) and not isinstance(a, bool) and 0 <= a < dims for a in axes)
                and len(set(axes)) == len(axes)):
            raise r.fail(f"{where}.axes'", f"must be a list of distinct grid dimensions "
                         f"0..{dims - 1}, not {axes!r}")
        axes = tuple(sorted(axes))
    size = r.expression(_required(r, raw, "bytes", where), f"{where}.bytes'", table)
    return Halo(dims, size, periodic, axes)


def _collective(r: _Reader, raw, label: str, table) -> Collective:
    from icnperf.model.collectives import ALGORITHMS, operation_name

    where = f"{label}, key 'collective"
    raw = r.table(raw, where + "'")
    r.keys(raw, _COLLECTIVE, label, "collective.")
    op_text = _required(r, raw, "op", where)
    try:
        op = operation_name(str(op_text))
    except InputError as error:
        raise r.fail(f"{where}.op'", str(error)) from None
    algorithm = raw.get("algorithm", "best")
    if algorithm not in ("best", "auto") and algorithm not in ALGORITHMS:
        raise r.fail(f"{where}.algorithm'", f"unknown algorithm {algorithm!r} (best, auto or "
                     f"{', '.join(ALGORITHMS)})")
    p2p_algorithm = raw.get("p2p_algorithm")
    if p2p_algorithm is not None and (p2p_algorithm == HARDWARE_ALGORITHM
                                      or p2p_algorithm not in ALGORITHMS):
        choices = ", ".join(a for a in ALGORITHMS if a != HARDWARE_ALGORITHM)
        raise r.fail(f"{where}.p2p_algorithm'", f"must be a point-to-point algorithm "
                     f"({choices}), not {p2p_algorithm!r}")
    scope = raw.get("scope", "ranks")
    if scope not in COLLECTIVE_SCOPES:
        raise r.fail(f"{where}.scope'", f"must be one of {', '.join(COLLECTIVE_SCOPES)}")
    if op == "barrier":
        if "bytes" in raw:
            raise r.fail(f"{where}.bytes'", "a barrier carries no data")
        size = None
    else:
        size = r.expression(_required(r, raw, "bytes", where), f"{where}.bytes'", table)
    return Collective(op, size, algorithm, scope, p2p_algorithm)


def _ccl_collective(r: _Reader, raw, label: str, table, api: str) -> Collective:
    """A collective of a phase under ``api = "nccl"|"rccl"|"ccl"``: the library's operation and
    algorithm names, ``bytes`` as nccl-tests prints the size, ``ranks`` the communicator's
    GPUs (default every rank)."""
    from icnperf.model.collectives.nccl import algorithm_key, operation_name

    where = f"{label}, key 'collective"
    raw = r.table(raw, where + "'")
    r.keys(raw, ("op", "bytes", "algorithm", "ranks"), label, "collective.")
    try:
        op = operation_name(str(_required(r, raw, "op", where)))
    except InputError as error:
        raise r.fail(f"{where}.op'", str(error)) from None
    algorithm = str(raw.get("algorithm", "auto"))
    if algorithm not in ("best", "auto"):
        try:
            algorithm_key(algorithm, "nccl" if api == "ccl" else api)
        except InputError as error:
            raise r.fail(f"{where}.algorithm'", str(error)) from None
    size = r.expression(_required(r, raw, "bytes", where), f"{where}.bytes'", table)
    ranks = (r.expression(raw["ranks"], f"{where}.ranks'", table) if "ranks" in raw
             else None)
    return Collective(op, size, algorithm, "ranks", None, ranks)


def _p2p(r: _Reader, raw, label: str, table) -> PointToPoint:
    where = f"{label}, key 'p2p"
    raw = r.table(raw, where + "'")
    r.keys(raw, _P2P, label, "p2p.")
    pattern = _required(r, raw, "pattern", where)
    if pattern not in P2P_PATTERNS:
        raise r.fail(f"{where}.pattern'", f"must be one of {', '.join(P2P_PATTERNS)}, "
                     f"not {pattern!r}")
    if "distance" in raw and pattern != "shift":
        raise r.fail(f"{where}.distance'", "only a shift has a distance")
    size = r.expression(_required(r, raw, "bytes", where), f"{where}.bytes'", table)
    distance = (r.expression(raw["distance"], f"{where}.distance'", table)
                if "distance" in raw else None)
    return PointToPoint(pattern, size, distance)


def _helper(r: _Reader, raw, label: str, table) -> HelperCall:
    from icnperf.model.apps.helpers import HELPERS

    where = f"{label}, key 'helper"
    raw = r.table(raw, where + "'")
    name = _required(r, raw, "name", where)
    if name not in HELPERS:
        raise r.fail(f"{where}.name'", f"unknown helper {name!r} (bundled helpers: "
                     f"{', '.join(sorted(HELPERS))}; a skeleton cannot name Python code)")
    wanted = HELPERS[name].arguments
    args = []
    for key in wanted:
        args.append((key, r.expression(_required(r, raw, key, where), f"{where}.{key}'",
                                       table)))
    r.keys(raw, ("name", *wanted), label, "helper.")
    return HelperCall(name, tuple(args))


# --- writing ----------------------------------------------------------------------------


def _toml_text(text: str) -> str:
    return toml_string(text)


def _toml_number(v) -> str:
    if isinstance(v, Fraction):
        if v.denominator == 1:
            return str(v.numerator)
        return repr(float(v))
    return repr(float(v)) if not isinstance(v, int) else str(v)


def _expr(e) -> str:
    return _toml_text(e.text)


def skeleton_to_toml(skeleton: Skeleton, header: tuple[str, ...] = ()) -> str:
    """The skeleton as a file :func:`parse_skeleton` reads back with the same parameters,
    coefficients and expressions (as written); ``header`` lines become comments."""
    lines = [toml_comment(h) for h in header]
    lines += [f"format = {FORMAT_VERSION}", f"name = {_toml_text(skeleton.name)}"]
    if skeleton.description:
        lines.append(f"description = {_toml_text(skeleton.description)}")
    if skeleton.notes:
        lines.append("notes = [" + ", ".join(_toml_text(n) for n in skeleton.notes) + "]")
    if skeleton.processes_per_node is not None:
        lines.append(f"processes_per_node = {skeleton.processes_per_node}")
    if skeleton.scaling != "strong":
        lines.append(f"scaling = {_toml_text(skeleton.scaling)}")
    if skeleton.total_flops is not None:
        lines.append(f"total_flops = {_expr(skeleton.total_flops)}")
    for title, values in (("parameters", skeleton.parameters),
                          ("coefficients", skeleton.coefficients)):
        if values:
            lines += ["", f"[{title}]"]
            lines += [f"{k} = {_toml_number(v)}" for k, v in values.items()]
    if skeleton.defines:
        lines += ["", "[define]"]
        lines += [f"{k} = {_expr(e)}" for k, e in skeleton.defines]
    if skeleton.machine_defaults:
        lines += ["", "[machine_defaults]"]
        lines += [f"{k} = {_toml_number(v)}" for k, v in skeleton.machine_defaults.items()]
    for phase in skeleton.phases:
        lines += ["", "[[phase]]", f"name = {_toml_text(phase.name)}",
                  f"repeat = {_expr(phase.repeat)}"]
        for key in ("flops", "memory_bytes", "gpu_memory_bytes", "rate", "bandwidth", "fixed"):
            e = getattr(phase, key)
            if e is not None:
                lines.append(f"{key} = {_expr(e)}")
        if phase.overlap:
            lines.append("overlap = true")
        if phase.api != "mpi":
            lines.append(f"api = {_toml_text(phase.api)}")
        if phase.halo:
            h = phase.halo
            parts = [f"dims = {h.dims}", f"bytes = {_expr(h.bytes)}"]
            if h.periodic:
                parts.append("periodic = true")
            if h.axes is not None:
                parts.append(f"axes = [{', '.join(map(str, h.axes))}]")
            lines.append("halo = { " + ", ".join(parts) + " }")
        if phase.collective:
            c = phase.collective
            parts = [f"op = {_toml_text(c.op)}"]
            if c.bytes is not None:
                parts.append(f"bytes = {_expr(c.bytes)}")
            parts.append(f"algorithm = {_toml_text(c.algorithm)}")
            if c.scope != "ranks":
                parts.append(f"scope = {_toml_text(c.scope)}")
            if c.p2p_algorithm is not None:
                parts.append(f"p2p_algorithm = {_toml_text(c.p2p_algorithm)}")
            if c.ranks is not None:
                parts.append(f"ranks = {_expr(c.ranks)}")
            lines.append("collective = { " + ", ".join(parts) + " }")
        if phase.p2p:
            p = phase.p2p
            parts = [f"pattern = {_toml_text(p.pattern)}", f"bytes = {_expr(p.bytes)}"]
            if p.distance is not None:
                parts.append(f"distance = {_expr(p.distance)}")
            lines.append("p2p = { " + ", ".join(parts) + " }")
        if phase.helper:
            parts = [f"name = {_toml_text(phase.helper.name)}"]
            parts += [f"{k} = {_expr(e)}" for k, e in phase.helper.args]
            lines.append("helper = { " + ", ".join(parts) + " }")
    return "\n".join(lines) + "\n"
