"""The validation registry: the list of every registered claim, gathered from ``claims/``.

The claim record and its evaluation live in ``claim``, which the claims modules import; the
registry imports the claims, never the reverse, so there is no import circle.
"""

from __future__ import annotations

from icnperf.validation.claim import (CLAIM_KINDS, STATUSES, TOLERANCE_KINDS, CheckResult,
                                      Claim, error_of, evaluate, status_counts)

__all__ = ["CLAIM_KINDS", "STATUSES", "TOLERANCE_KINDS", "CheckResult", "Claim", "all_claims",
           "error_of", "evaluate", "status_counts"]


def all_claims(kinds=CLAIM_KINDS) -> list[Claim]:
    """Every registered claim of the given kinds (default all), in source order. Sources
    register in ``claims/``."""
    from icnperf.validation.claims import (angara_collectives, angara_heat, angara_p2p,
                                           angara_spmv, apps_hpcg_npb, booksim, flitsim,
                                           nudt)

    claims = [*nudt.CLAIMS, *angara_p2p.CLAIMS, *angara_collectives.CLAIMS,
              *angara_spmv.CLAIMS, *angara_heat.CLAIMS, *apps_hpcg_npb.CLAIMS,
              *flitsim.CLAIMS, *booksim.CLAIMS]
    ids = [c.id for c in claims]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ValueError(f"duplicate claim ids: {sorted(duplicates)}")
    unexplained = [c.id for c in claims if bool(c.discrepancy) != (c.expected is not None)]
    if unexplained:
        raise ValueError(f"claims need both a discrepancy and an expected value: {unexplained}")
    unknown = [c.id for c in claims if c.kind not in CLAIM_KINDS]
    if unknown:
        raise ValueError(f"claims of an unknown kind: {unknown}")
    return [c for c in claims if c.kind in kinds]
