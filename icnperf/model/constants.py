"""Model constants that are not machine keys, each with its stated uncertainty (issue #31):
a :class:`Constant` record beside the constant in its own module (the HPCG node-level
factors and intra-node latency in model/apps/hpcg.py, the roofline byte counts in
model/apps/node_rates.py), registered here by name.

A model reads such a constant through :func:`value`: its value, or, inside
:func:`drawn`, the value drawn for the current draw of ``--uncertainty`` (the sampler,
data/machine/sampling.py, draws every registered constant beside the machine's inputs,
:func:`draws`). The spreads take the forms of machine values (model/uncertainty.py:
relative, absolute, factor, alternatives) and the kinds their words
(docs/machine-format.md, "Uncertainty"). Each constant is drawn from its own stream,
seeded by the draw's seed and the constant's name, so adding a constant or importing the
modules in another order changes no other draw.
"""

from __future__ import annotations

import zlib
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

import numpy as np

from icnperf.model.uncertainty import FORMS, draw

MODULES = ("icnperf.model.apps.hpcg", "icnperf.model.apps.node_rates")
"""The modules that declare constants (imported before drawing, so every draw sees all)."""


@dataclass(frozen=True)
class Constant:
    """A constant's value, the kind of value it is, its spread (``form`` and ``amount`` as a
    machine value's, model/uncertainty.py) and why that spread."""

    name: str
    value: Any
    kind: str
    form: str
    amount: Any
    reason: str

    def __post_init__(self):
        if self.form not in FORMS:
            raise ValueError(f"constant {self.name}: unknown spread form {self.form!r}")


REGISTRY: dict[str, Constant] = {}
"""Every registered constant by name."""

_DRAWN: ContextVar[Mapping[str, Any]] = ContextVar("icnperf_drawn_constants", default={})


def register(constant: Constant) -> Constant:
    """Add ``constant`` to :data:`REGISTRY` (once per name) and return it."""
    if REGISTRY.setdefault(constant.name, constant) != constant:
        raise ValueError(f"constant {constant.name} registered twice with other values")
    return constant


def value(name: str):
    """The value in force of the constant ``name``: the drawn one inside :func:`drawn`,
    else its stated value."""
    return _DRAWN.get().get(name, REGISTRY[name].value)


@contextmanager
def drawn(values: Mapping[str, Any]) -> Iterator[None]:
    """Within the block, :func:`value` returns ``values``' draws (name -> value)."""
    token = _DRAWN.set(dict(values))
    try:
        yield
    finally:
        _DRAWN.reset(token)


def draws(count: int, seed: int) -> dict[str, np.ndarray]:
    """``count`` draws of every registered constant that has a spread: name -> array. Each
    from its own generator, seeded by ``seed`` and the name's CRC-32 (module docstring)."""
    import importlib

    for module in MODULES:
        importlib.import_module(module)
    out = {}
    for name, constant in sorted(REGISTRY.items()):
        if constant.form == "exact":
            continue
        rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
        out[name] = draw(constant.value, constant.form, constant.amount, count, rng)
    return out


def at(draws_by_name: Mapping[str, np.ndarray], index: int) -> dict[str, Any]:
    """The values of draw ``index`` (Python scalars) of :func:`draws`' result."""
    out = {}
    for name, array in draws_by_name.items():
        item = array[index]
        out[name] = item.item() if isinstance(item, np.generic) else item
    return out
