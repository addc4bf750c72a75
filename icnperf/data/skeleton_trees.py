"""The bundled skeletons' expressions stored as plain trees (``icnperf/data/apps/trees.json``),
so that running a bundled skeleton imports no SymPy.

SymPy stays the parser and the source of truth: the file holds, for each bundled skeleton,
the SHA-256 of its TOML text and every expression's text and plain tree
(:mod:`icnperf.model.apps.expression_values`) exactly as SymPy's parse gives them
(:func:`icnperf.data.skeleton.bundled_trees` makes them; ``write_bundled_trees`` there
rewrites the file). A skeleton whose TOML text no longer has the stored digest is read with
SymPy as any skeleton file is, and ``tests/data/test_skeleton_trees.py`` fails until the file
is rewritten. User skeleton files are always parsed by SymPy.

The file: ``{"about": ..., "skeletons": {NAME: {"sha256": HEX, "expressions": {PLACE: [TEXT,
TREE]}}}}``, PLACE the expression's place in the file as messages name it (``phase
'sweep', key 'flops'``), TREE the plain tree with tuples written as JSON arrays.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources

__all__ = ["TREES_FILE", "digest", "stored_trees", "trees_json"]

TREES_FILE = "trees.json"
"""The stored trees' file name in ``icnperf/data/apps``."""

ABOUT = ("The bundled skeletons' expressions as SymPy parses them, as plain trees "
         "(icnperf/model/apps/expression_values.py), so that predict app imports no SymPy. "
         "Written by icnperf.data.skeleton.write_bundled_trees from the TOML files beside it; "
         "do not edit by hand.")


def digest(text: str) -> str:
    """The SHA-256 of a skeleton's TOML text (UTF-8), in hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def trees_path():
    return resources.files("icnperf").joinpath("data", "apps", TREES_FILE)


def stored_trees(name: str, text: str) -> dict | None:
    """place -> (text, plain tree) of the bundled skeleton ``name`` when the trees stored
    for it were made from this very TOML ``text``, else None (none stored, the file
    missing or unreadable, or the skeleton changed since)."""
    try:
        entry = json.loads(trees_path().read_text(encoding="utf-8"))["skeletons"][name]
        if entry["sha256"] != digest(text):
            return None
        return {place: (written, _tuples(tree))
                for place, (written, tree) in entry["expressions"].items()}
    except (OSError, ValueError, LookupError, TypeError, AttributeError):
        return None


def _tuples(tree):
    """A tree read from JSON (lists) as the plain tree (tuples)."""
    if isinstance(tree, list):
        return tuple(_tuples(a) for a in tree)
    return tree


def trees_json(skeletons: dict) -> str:
    """The file's text for ``skeletons`` (name -> (TOML text, {place: Expression})): one
    line per expression, so a change to a skeleton shows as a change to its lines."""
    lines = ["{", f'"about": {json.dumps(ABOUT)},', '"skeletons": {']
    names = sorted(skeletons)
    for k, name in enumerate(names):
        text, expressions = skeletons[name]
        lines.append(f'{json.dumps(name)}: {{"sha256": "{digest(text)}", "expressions": {{')
        places = list(expressions)
        for i, place in enumerate(places):
            e = expressions[place]
            entry = json.dumps([e.text, e.tree], allow_nan=False, separators=(",", ":"))
            lines.append(f" {json.dumps(place)}: {entry}" + ("," if i < len(places) - 1
                                                               else ""))
        lines.append("}}" + ("," if k < len(names) - 1 else ""))
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"
