"""A prediction's range: the machine's inputs drawn within their stated uncertainty, the
same closed forms run on every draw, the 5th and 95th percentiles of each predicted
quantity (docs/machine-format.md, "Uncertainty").

Each value with a spread is drawn independently (:func:`icnperf.model.uncertainty.draw`);
a value solved from a measured sum (``solved_with``) is then the sum's draw less its drawn
parts (:func:`icnperf.model.uncertainty.solved_sum`), so the sum keeps the measurement's
uncertainty and not the parts'. Draws are clipped to what the key allows (>= 0, > 0 where
the key must be positive, at most its maximum). Seeded: the same seed gives the same range.

Every value is drawn from its own generator (:func:`stream`: the seed and the value's path,
as the model's constants are), a solved value's measured sum from the solved value's path:
a value's draws depend only on the seed, its path and the sample count. Writing a machine
back to TOML, reordering its file's keys, or adding or removing another value (a
``[production]`` section among them) leaves every other value's draws as they were.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from icnperf.data.machine.schema import key_for_path
from icnperf.data.machine.uncertainty import DISCRETE
from icnperf.errors import InputError
from icnperf.model import constants
from icnperf.model.uncertainty import HIGH, LOW, draw, quantiles, solved_sum

DEFAULT_SAMPLES = 200
"""Draws per prediction when ``--samples`` is not given: the 5th and 95th percentiles of
200 draws move by a few per cent of the range between seeds."""

MAX_SAMPLES = 100_000
"""The most draws a request may ask for (the work budget counts them too)."""


@dataclass(frozen=True)
class Sampling:
    """How a range was made: draws, seed and the quantiles reported."""

    samples: int = DEFAULT_SAMPLES
    seed: int = 0
    low: float = LOW
    high: float = HIGH

    def __post_init__(self):
        if not 1 <= self.samples <= MAX_SAMPLES:
            raise InputError(f"--samples {self.samples}: give 1 to {MAX_SAMPLES:,} draws")

    def as_record(self) -> dict:
        """The draws, seed and quantiles as a JSON record."""
        return {"samples": self.samples, "seed": self.seed, "quantiles": [self.low, self.high]}

    def as_dict(self, machine) -> dict:
        """The JSON record of the sampling, with the values that state no uncertainty."""
        return {"samples": self.samples, "seed": self.seed,
                "quantiles": [self.low, self.high],
                "unstated": unstated(machine)}


def unstated(machine) -> list[str]:
    """The paths of the machine's numeric values with no kind (taken as exact)."""
    out = []
    for section, key, *_ in machine.rows():
        path = "topology" if key == "topology" else f"{section}.{key}"
        if path != "topology" and machine.spread(path) is None \
                and key_for_path(path, "").kind not in DISCRETE:
            out.append(path)
    return out


def _clip(key, values: np.ndarray, nominal: float) -> np.ndarray:
    values = np.maximum(values, 0.0)
    if key.positive:
        values = np.maximum(values, nominal * 1e-6)
    if key.maximum is not None:
        values = np.minimum(values, key.maximum)
    return values


def draws(machine, samples: int, seed: int) -> dict[str, np.ndarray]:
    """``samples`` draws of every value that has a spread (or is solved from a sum):
    {path: array}. Values without a spread are left out (they stay as they are). Each
    value's draws come from :func:`stream` of its path, whatever the order of the values."""
    out: dict[str, np.ndarray] = {}
    solved = {}
    for path, spread in machine.uncertainty.items():
        if path == "topology":
            continue
        if spread.solved_with:
            solved[path] = spread
        elif spread.form != "exact":
            value = machine.get_path(path)
            drawn = draw(value, spread.form, spread.amount, samples, stream(path, seed))
            key = key_for_path(path, machine.name)
            out[path] = drawn if key.kind in DISCRETE else _clip(key, drawn, float(value))
    while solved:
        ready = [p for p, s in solved.items() if not any(q in solved for q in s.solved_with)]
        if not ready:
            raise InputError(f"machine {machine.name!r}: solved_with forms a circle among"
                             f" {', '.join(sorted(solved))}")
        for path in ready:
            spread = solved.pop(path)
            value = float(machine.get_path(path))
            total = value + sum(float(machine.get_path(p)) for p in spread.solved_with)
            measured = draw(total, spread.form, spread.amount, samples, stream(path, seed))
            parts = [out.get(p, np.full(samples, float(machine.get_path(p))))
                     for p in spread.solved_with]
            out[path] = _clip(key_for_path(path, machine.name), solved_sum(measured, parts),
                              value)
    return out


def stream(path: str, seed: int) -> np.random.Generator:
    """The generator of the value at ``path`` (a solved value's: its measured sum), seeded
    by ``seed`` and the path's CRC-32, as the model's constants are
    (:func:`icnperf.model.constants.draws`): the same seed, path and sample count give the
    same draws on any machine that has the value, whatever else it holds."""
    return np.random.default_rng([seed, zlib.crc32(path.encode())])


def sample_machines(machine, samples: int, seed: int) -> list:
    """The machine at each of ``samples`` draws (copies; sources and kinds kept)."""
    drawn = draws(machine, samples, seed)
    out = []
    for i in range(samples):
        values = {path: _plain(array[i]) for path, array in drawn.items()}
        copy = machine.with_values(values, "draw") if values else machine
        out.append(copy)
    return out


def _plain(value: Any):
    """A NumPy scalar as the Python value the machine checks take."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def ranges(machine, evaluate: Callable[[Any], Mapping[str, Any]],
           sampling: Sampling) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each quantity's (low, high) over the draws: ``evaluate(machine)`` maps quantity
    names to numbers or arrays of one shape per name (NaN or None where a quantity does
    not apply); it runs once per draw on the drawn machine, with the model's own constants
    drawn too (model/constants.py: each draw's values in force during its call). Pure apart
    from the calls."""
    results = [result for _, result in evaluations(machine, evaluate, sampling)]
    out = {}
    for name in results[0]:
        stacked = np.array([_floats(r[name]) for r in results], dtype=float)
        out[name] = quantiles(stacked, sampling.low, sampling.high)
    return out


def evaluations(machine, evaluate: Callable[[Any], Any], sampling: Sampling) -> list:
    """(drawn machine, ``evaluate(drawn machine)``) of each of ``sampling``'s draws, the
    model's own constants drawn too (:func:`ranges` takes their quantiles; a caller that
    draws more per draw, as the production ranges do, takes the draws themselves)."""
    drawn = constants.draws(sampling.samples, sampling.seed)
    return [(m, _with_constants(evaluate, m, drawn, i)) for i, m in
            enumerate(sample_machines(machine, sampling.samples, sampling.seed))]


def _with_constants(evaluate, machine, drawn: dict, index: int):
    """``evaluate(machine)`` with draw ``index`` of the model's constants in force."""
    with constants.drawn(constants.at(drawn, index)):
        return evaluate(machine)


def _floats(value):
    array = np.asarray(value, dtype=object)
    return np.where(array == None, np.nan, array).astype(float)  # noqa: E711


def row_ranges(machine, rows_of: Callable[[Any], Sequence[dict]], fields: Sequence[str],
               sampling: Sampling) -> list[dict]:
    """Per row of ``rows_of(machine)``, ``<field>_low`` and ``<field>_high`` of each of
    ``fields`` over the draws. Every draw must give as many rows; a row whose algorithm is
    chosen by time (``best``) takes the chosen one's time in each draw, so its range is
    that of the fastest, wherever the choice switches."""
    counts: list[int] = []

    def evaluate(drawn):
        rows = rows_of(drawn)
        counts.append(len(rows))
        if counts[0] != len(rows):
            raise InputError("the inputs' uncertainty changes the number of rows of the"
                             " table; a range needs the same rows in every draw")
        return {field: [row.get(field) for row in rows] for field in fields}

    spans = ranges(machine, evaluate, sampling)
    count = len(next(iter(spans.values()))[0]) if spans else 0
    out = []
    for i in range(count):
        row = {}
        for field in fields:
            low, high = spans[field]
            row[f"{field}_low"] = None if np.isnan(low[i]) else float(low[i])
            row[f"{field}_high"] = None if np.isnan(high[i]) else float(high[i])
        out.append(row)
    return out
