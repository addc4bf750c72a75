"""A keyword's value as the command line's text or as Python values, read one way.

Every function takes what a caller may give (the CLI's text, a number in SI units, a list,
a dict) and returns the value the model takes together with what ``inputs`` records: the
text itself when text was given (so a result equals the command line's JSON), else the
Python value normalised (floats, lists, ``"section.key=value"`` strings). Python values go
through the same parsers and checks as text, so a bad value gets the same one-line
InputError. Heavy modules are imported inside the functions.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from icnperf.errors import InputError


def _number_text(value: Any, option: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{option}: give numbers (SI units) or the command line's text,"
                         f" not {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{option}: {value!r} is not a finite number")
    return repr(value) if isinstance(value, int) else repr(float(value))


def _listed(value: Any, option: str) -> tuple[str, Any]:
    """(text for the range parser, what inputs records) of a number or list of numbers."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _number_text(value, option), value
    if hasattr(value, "tolist") and not isinstance(value, str):
        value = value.tolist()
    if isinstance(value, (list, tuple)) and value:
        texts = [_number_text(v, option) for v in value]
        return ",".join(texts), list(value)
    raise InputError(f"{option}: give a number, a list of numbers or the command line's"
                     f" text, not {value!r}")


def sizes(value: Any, option: str = "--bytes"):
    """Byte sizes: ``"8..1MiB:x4"``, ``"8,64"``, ``1024`` or ``[8, 64]`` -> (NumPy array of
    bytes, recorded input)."""
    from icnperf.units import parse_range

    if isinstance(value, str):
        return parse_range(value, "size", default_unit="B"), value
    text, recorded = _listed(value, option)
    return parse_range(text, "size", default_unit="B"), recorded


def counts_text(value: Any, option: str = "--nodes") -> tuple[str | None, Any]:
    """Node counts as the range text the layouts read, and what inputs records: None,
    ``"8..64:x2"``, ``16`` or ``[16, 64]``."""
    if value is None or isinstance(value, str):
        return value, value
    text, recorded = _listed(value, option)
    return text, recorded


def size_text(value: Any, option: str) -> tuple[str, Any]:
    """One size as text (``"8B"``) and what inputs records (the text, or the number)."""
    if isinstance(value, str):
        return value, value
    return _number_text(value, option), value


def shape_text(value: Any) -> str | None:
    """A torus shape: ``"4x4x8"`` or ``(4, 4, 8)``."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(k, int) and not isinstance(k, bool) for k in value):
        return "x".join(str(k) for k in value)
    raise InputError(f"--shape: give text like 4x4x8 or a list of whole radices, not"
                     f" {value!r}")


def items(value: Any, option: str) -> tuple[str, ...]:
    """Repeated ``NAME=VALUE`` options (``--set``, ``--param``): None, one string, a list of
    strings, or a dict whose numbers are written as bare SI numbers."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Mapping):
        out = []
        for key, item in value.items():
            text = item if isinstance(item, str) else _number_text(item, f"{option} {key}")
            out.append(f"{key}={text}")
        return tuple(out)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InputError(f"{option}: give a dict, NAME=VALUE text or a list of it, not"
                     f" {value!r}")


def machine(value: Any, overrides: Any = None):
    """(Machine, the ``set`` list recorded): a preset name, a machine TOML path or a
    Machine (``icnperf.machine``), with ``overrides`` (``--set``) applied. A dict's
    numbers are SI values of the key (``{"network.link_latency": 60e-9}``), its strings
    the command line's text (``"60ns"``)."""
    from icnperf.data.machine import Machine, load_machine

    if isinstance(getattr(value, "machine", None), Machine):
        value = value.machine  # what icnperf.machine returns: the record and its view
    if isinstance(value, Machine):
        base = value
    elif isinstance(value, str):
        base = load_machine(value)
    else:
        raise InputError(f"machine: give a preset name, a machine TOML path or the object"
                         f" icnperf.machine returns, not {value!r}")
    if isinstance(overrides, Mapping):
        recorded = []
        for path, item in overrides.items():
            if isinstance(item, str):
                base = base.with_overrides([f"{path}={item}"])
                recorded.append(f"{path}={item}")
            else:
                text = _number_text(item, f"set {path}")
                base = base.with_values({path: float(item)}, f"--set {path}={text}")
                recorded.append(f"{path}={text}")
        return base, recorded
    listed = items(overrides, "--set")
    return base.with_overrides(list(listed)), list(listed)


def sequence_of_text(value: Any, option: str) -> Sequence[str] | None:
    """A comma list option as text: None, ``"a,b"`` or ``["a", "b"]`` -> ``"a,b"``."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int)) for v in value):
        return ",".join(str(v) for v in value)
    raise InputError(f"{option}: give text like a,b or a list, not {value!r}")


def endpoint(value: Any, option: str) -> str | None:
    """An endpoint as the command line names it: an index (``3`` or ``"3"``) or torus
    coordinates (``"1,0,2"`` or ``(1, 0, 2)``)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        return ",".join(str(v) for v in value)
    raise InputError(f"{option}: give an endpoint index or coordinates, not {value!r}")


def asked_name(value: Any) -> str | None:
    """The machine as the caller named it: the text given (a preset name or a path), else
    the loaded machine's name."""
    if isinstance(value, str):
        return value
    return getattr(value, "name", None)
