"""How sure each machine value is: its kind (the standing of its source) and its spread.

In a machine file, beside a value's ``source`` (docs/machine-format.md, "Uncertainty")::

    injection_latency.value = "400 ns"
    injection_latency.source = "chosen placeholder, not a published value: ..."
    injection_latency.kind = "placeholder"
    mpi_overhead.kind = "calibrated"
    mpi_overhead.uncertainty = "0.2 us"          # "10%", "x2", "exact", or a list
    mpi_overhead.uncertainty_reason = "the reference's own band, 1.8 us -0.2/+0.2"
    mpi_overhead.solved_with = ["network.injection_latency", "network.ejection_latency"]

``kind`` is one of :data:`KINDS`. Without ``uncertainty`` the spread is the kind's default
(:data:`DEFAULTS`, each with its reason); counts, cycles, choices and text are exact unless
the file lists alternatives, since a count is counted and a choice is not a matter of
degree. ``solved_with`` names the values a calibrated (or transferred) value was solved
with from a measured sum: the spread then applies to that sum (the measurement), and the
value absorbs the parts' draws (:func:`icnperf.model.uncertainty.solved_sum`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from icnperf import units
from icnperf.data.machine.schema import Key, parse_value
from icnperf.errors import InputError

KINDS = ("stated", "secondary", "to-confirm", "derived", "assumed", "transferred",
         "chosen", "placeholder", "calibrated", "given")
"""The standing of a value's source, in the words the presets' sources use
(docs/real-machines.md lists them); ``given``: a value set on the command line."""

DEFAULTS: dict[str, tuple[str, float | None, str]] = {
    "stated": ("relative", 0.02, "a printed figure, rounded to its two or three digits"),
    "secondary": ("relative", 0.05, "quoted from a document that cites the primary one;"
                  " rounding and transcription"),
    "to-confirm": ("relative", 0.10, "a commonly cited figure whose primary document was"
                   " not read: vendors' figures for related products differ by about 10 %"),
    "derived": ("relative", 0.05, "arithmetic on stated values under stated assumptions"
                " (e.g. peak over sockets, a bound split in two)"),
    "assumed": ("relative", 0.20, "a general figure taken where the machine's own was not"
                " found (e.g. STREAM efficiencies of nodes span about 0.65-0.9)"),
    "transferred": ("relative", 0.30, "measured on another machine of the same generation:"
                    " MPI stacks and nodes of one CPU generation differ by up to a third"),
    "chosen": ("relative", 0.50, "not published in what was read; a reasoned choice, as"
               " likely half again as large as two thirds of it"),
    "placeholder": ("factor", 2.0, "chosen only so the model runs: known to within a factor"
                    " of two at best"),
    "calibrated": ("relative", 0.10, "fitted to one published measurement; the typical"
                   " band of the latency references read (e.g. 1.8 us -0.2/+0.2)"),
    "given": ("exact", None, "set on the command line: taken as exact, the what-if asked"),
}
"""Per kind: (form, amount, reason) of the spread a value takes when its file gives none
(docs/machine-format.md, "Uncertainty", repeats the table and the reasons)."""

DISCRETE = ("count", "cycles", "choice", "text")
"""Key kinds whose values are exact unless alternatives are listed."""

_KIND_WORDS = (("placeholder", "placeholder"), ("chosen", "chosen"),
               ("transferred", "transferred"), ("assumed", "assumed"),
               ("to confirm", "to-confirm"), ("as commonly", "to-confirm"),
               ("not read here", "to-confirm"), ("secondary", "secondary"),
               ("wikipedia", "secondary"), ("as quoted", "secondary"), ("derived", "derived"), ("stated", "stated"))
"""The words of :data:`KINDS` in sources, widest default spread first."""


@dataclass(frozen=True)
class Uncertainty:
    """A value's kind and spread. ``written`` is the spread as the file wrote it ("" when
    it takes the kind's default); ``form`` and ``amount`` are its meaning
    (:mod:`icnperf.model.uncertainty`; amount in SI for ``absolute``, the values for
    ``alternatives``); ``reason`` says why that spread; ``solved_with`` names the values a
    calibrated value was solved with (the spread is then the measured sum's)."""

    kind: str
    form: str = "exact"
    amount: Any = None
    written: Any = ""
    reason: str = ""
    solved_with: tuple[str, ...] = ()

    def text(self) -> str:
        """The spread in a few characters: "±5%", "x2", "±200 ns", "exact", "1 of 3"."""
        if self.form == "exact":
            return "exact"
        if self.form == "relative":
            return f"±{self.amount * 100:g}%"
        if self.form == "factor":
            return f"x{self.amount:g}"
        if self.form == "alternatives":
            return f"1 of {len(self.amount)}"
        return "±" + (self.written if isinstance(self.written, str) else f"{self.amount:g}")


def default_for(kind: str, key: Key | None) -> Uncertainty:
    """The spread a value of ``kind`` takes when none is written (exact for counts, cycles,
    choices, text and the topology: ``key`` None)."""
    form, amount, reason = DEFAULTS[kind]
    if key is None or key.kind in DISCRETE:
        return Uncertainty(kind, "exact", None, "", "a count, choice or text: exact unless"
                           " alternatives are listed")
    return Uncertainty(kind, form, amount, "", reason)


def kind_from_source(source: str) -> str | None:
    """The kind a source text says: "calibrated" when it opens with the word (a value
    merely compared with a calibrated one is not), else the
    widest-spread kind among the words it uses (a "placeholder transferred from" another
    preset is a placeholder; "derived ... (to confirm)" is to-confirm; a figure "as commonly
    quoted", its document "not read here", is to-confirm; Wikipedia's or a figure "as quoted"
    by another document is secondary); a source naming none
    is cited: stated. None for an empty source. Used to annotate the presets, each result
    checked by reading."""
    text = source.lower()
    if not text.strip():
        return None
    if text.lstrip().startswith("calibrated"):
        return "calibrated"
    text = text.replace("not stated", "")
    found = [kind for word, kind in _KIND_WORDS if word in text]
    return found[0] if found else "stated"


_SPREAD_RE = re.compile(r"^\s*(?:(?P<pct>[0-9.eE+-]+)\s*%|x\s*(?P<factor>[0-9.eE+-]+))\s*$")


def parse_spread(key: Key | None, raw: Any, where: str, path: str) -> tuple[str, Any]:
    """A written spread -> (form, amount): "exact", "N%" (below 100), "xF" (F >= 1), a
    quantity in the key's unit kind (absolute), or a list of alternatives (values of the
    key). One-line InputError naming ``where`` and ``path`` otherwise."""
    if isinstance(raw, list):
        if key is None or not raw:
            raise InputError(f"{where}: {path}.uncertainty: alternatives must be a non-empty"
                             " list of values of the key")
        return "alternatives", tuple(parse_value(key, item, where, path) for item in raw)
    if not isinstance(raw, str):
        raise InputError(f"{where}: {path}.uncertainty must be text (\"10%\", \"x2\","
                         " \"50 ns\", \"exact\") or a list of alternatives")
    if raw.strip() == "exact":
        return "exact", None
    match = _SPREAD_RE.match(raw)
    numeric = key is not None and key.kind not in ("choice", "text")
    if match and numeric:
        try:
            if match["pct"] is not None:
                amount = float(match["pct"]) / 100
                if 0 <= amount < 1:
                    return "relative", amount
            else:
                amount = float(match["factor"])
                if amount >= 1:
                    return "factor", amount
        except ValueError:
            pass
        raise InputError(f"{where}: {path}.uncertainty {raw!r}: a percentage is below 100 %"
                         " (use xF for a factor), a factor is at least 1")
    if numeric and key.kind not in ("count", "cycles"):
        try:
            amount = units.parse_quantity(raw, key.kind)
        except (InputError, ValueError) as error:
            raise InputError(f"{where}: {path}.uncertainty {raw!r}: {error}") from None
        if amount >= 0:
            return "absolute", float(amount)
    raise InputError(f"{where}: {path}.uncertainty {raw!r}: give \"exact\", \"N%\", \"xF\","
                     " a quantity with a unit, or a list of alternatives")


def make(key: Key | None, kind: Any, written: Any, reason: Any, solved_with: Any,
         where: str, path: str) -> Uncertainty:
    """The record of one value's written fields, checked (one-line InputError)."""
    if kind not in KINDS:
        raise InputError(f"{where}: {path}.kind must be one of {', '.join(KINDS)}, not"
                         f" {kind!r}")
    if not isinstance(reason, str):
        raise InputError(f"{where}: {path}.uncertainty_reason must be text")
    if not isinstance(solved_with, (list, tuple)) or \
            not all(isinstance(p, str) for p in solved_with):
        raise InputError(f"{where}: {path}.solved_with must be a list of machine paths")
    if written == "" or written is None:
        record = default_for(kind, key)
        return Uncertainty(kind, record.form, record.amount, "", reason or record.reason,
                           tuple(solved_with))
    form, amount = parse_spread(key, written, where, path)
    if isinstance(written, list):
        written = tuple(written)
    return Uncertainty(kind, form, amount, written, reason, tuple(solved_with))
