"""The validation registry: every registered claim, gathered from ``claims/``.

The claim record and its evaluation live in ``claim``, which the claims modules import; the
registry imports the claims, never the reverse, so there is no import circle.

A source registers by adding a module to ``claims/`` that exports ``CLAIMS`` (a list of
``Claim``); nothing here needs editing. The modules of :data:`ORDER` come first, in that
order; any other module follows, by name. ``all_claims`` refuses a registry that breaks a
rule (:func:`problems`), so a claim without a tolerance reason or a kind cannot be
registered.
"""

from __future__ import annotations

import importlib
import pkgutil

from icnperf.validation.claim import (CLAIM_KINDS, RUNS, STATUSES, TOLERANCE_KINDS,
                                      CheckResult, Claim, error_of, evaluate, kind_counts,
                                      status_counts, summary_line)

__all__ = ["CLAIM_KINDS", "ORDER", "RUNS", "STATUSES", "TOLERANCE_KINDS", "CheckResult",
           "Claim", "all_claims", "claim_modules", "error_of", "evaluate", "kind_counts",
           "problems", "status_counts", "summary_line"]

ORDER = ("nudt", "angara_p2p", "angara_collectives", "angara_spmv", "angara_heat",
         "apps_hpcg_npb", "flitsim")
"""Claims modules listed first, in this order (the papers, then the simulator)."""
PACKAGE = "icnperf.validation.claims"


def claim_modules() -> list[str]:
    """The names of the modules under ``claims/``: :data:`ORDER`, then the rest by name."""
    from icnperf.validation import claims

    found = sorted(m.name for m in pkgutil.iter_modules(claims.__path__)
                   if not m.name.startswith("_"))
    return [m for m in ORDER if m in found] + [m for m in found if m not in ORDER]


def problems(claims: list[Claim]) -> list[str]:
    """Every way ``claims`` break the registry's rules, one line each (empty when none)."""
    out = []
    ids = [c.id for c in claims]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        out.append(f"duplicate claim ids: {duplicates}")
    for c in claims:
        if c.kind not in CLAIM_KINDS:
            out.append(f"{c.id}: kind {c.kind!r} is not one of {CLAIM_KINDS}")
        if c.runs not in RUNS:
            out.append(f"{c.id}: runs {c.runs!r} is not one of {RUNS}")
        if c.tolerance_kind not in TOLERANCE_KINDS:
            out.append(f"{c.id}: unknown tolerance kind {c.tolerance_kind!r}")
        if not (isinstance(c.tolerance_reason, str) and c.tolerance_reason.strip()):
            out.append(f"{c.id}: the tolerance states no reason")
        if bool(c.discrepancy) != (c.expected is not None):
            out.append(f"{c.id}: a discrepancy needs both its reason and an expected value")
        if (c.kind == "calibrated") != bool(c.fitted):
            out.append(f"{c.id}: a calibrated claim names what was fitted to it (fitted),"
                       " and only a calibrated one")
        if c.open_reason and (c.kind not in ("predicted", "post-hoc") or c.discrepancy):
            out.append(f"{c.id}: only a predicted or post-hoc claim without a discrepancy "
                       "may be open")
        if bool(c.open_reason) != (c.open_tolerance is not None) or (
                c.open_tolerance is not None and not c.open_tolerance > c.tolerance):
            out.append(f"{c.id}: an open claim needs its reason and an open tolerance wider "
                       "than its own")
        if c.expected_tolerance is not None and not (
                c.discrepancy and c.expected_tolerance_reason
                and c.expected_tolerance_reason.strip()):
            out.append(f"{c.id}: an expected tolerance needs a discrepancy and its own reason")
        if (c.machine is None) != (c.predict_on is None):
            out.append(f"{c.id}: a claim predicted on a given machine names both the preset "
                       "(machine) and the function (predict_on)")
        if c.busy_on is not None and c.predict_on is None:
            out.append(f"{c.id}: a claim charged on a busy machine (busy_on) is predicted on "
                       "a given machine (machine, predict_on)")
        if (c.tolerance_kind == "inside") != (c.predict_range is not None):
            out.append(f"{c.id}: a claim of tolerance kind inside has a range function "
                       "(predict_range), and only it has one")
    return out


def all_claims(runs=RUNS) -> list[Claim]:
    """Every registered claim whose ``runs`` is among ``runs`` (default all), in source
    order. Raises ValueError when the registry breaks a rule (:func:`problems`)."""
    claims = []
    for name in claim_modules():
        claims.extend(importlib.import_module(f"{PACKAGE}.{name}").CLAIMS)
    broken = problems(claims)
    if broken:
        raise ValueError("validation registry: " + "; ".join(broken))
    return [c for c in claims if c.runs in runs]
