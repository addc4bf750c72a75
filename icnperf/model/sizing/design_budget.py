"""The work budget of ``size``: how many designs a sizing space lists per family, counted
without listing them, and the estimate the screen is checked against before it starts
(the unit costs and the check are :mod:`icnperf.model.budget`'s)."""

from __future__ import annotations

import math
from typing import Sequence

from icnperf.model.budget import (
    BASE_MEMORY,
    DESIGN_MEMORY,
    DESIGN_SECONDS,
    Estimate,
    count,
    rows_cost,
)


TORUS_SHAPES_BOUND = 2_000_000
"""Most torus shapes a sizing space lists per dimension count (model/sizing/space.py caps
each dimension count there, lowering the window's upper edge)."""

SIZING_LEVELS = 8
"""Fat-tree and Clos levels a sizing space tries (model/sizing/designs.py MAX_LEVELS)."""


def _torus_shapes(endpoints: int, limit: int, dims: int) -> float:
    """About how many shapes k_1 <= ... <= k_d (k_i >= 2) have a product in [N, L]:
    ordered d-tuples with a product in a window of width L - N number about
    (L - N) (ln L)^(d-1) / (d-1)! (the divisor-function sum), and a shape stands for at
    most d! orderings; x 1.5 for safety (against the listed spaces of 100,000 endpoints,
    slack 1.5: 592,000 for 471,706 in 3D, 139,000 for 113,627 in 6D), at most the space's
    own cap."""
    if dims < 1 or limit < endpoints or dims > limit.bit_length() - 1:
        return 0.0  # no shape of d factors >= 2 within the limit (2^d > L)
    # in logarithms: the power and factorials overflow a float beyond about 170 dimensions
    log_estimate = (math.log(1.5 * (limit - endpoints + 1))
                    + (dims - 1) * math.log(math.log(max(limit, 2)))
                    - math.lgamma(dims) - math.lgamma(dims + 1))
    if log_estimate >= math.log(TORUS_SHAPES_BOUND):
        return float(TORUS_SHAPES_BOUND)
    return float(max(math.exp(log_estimate), 1.0))


def _xgft_count(endpoints: int, limit: int, radix_max: int) -> float:
    """The XGFTs model/sizing/space.py's xgft_space lists, counted per switch size without
    listing them: for each taper t and level count, the pod counts s in [max(2, ceil(N /
    pod)), min(radix, floor(L / pod))] (pod = t·u endpoints under a leaf of radix (t+1)·u
    for 2 levels, k² under a level-2 switch of radix 2k, t | k, for 3)."""
    import numpy as np

    from icnperf.model.sizing.space import TAPERS, XGFT_LEVELS, xgft_pods

    total = 0.0
    for t in TAPERS:
        for levels in XGFT_LEVELS:
            _, pod, radix = xgft_pods(t, levels, radix_max, dtype=np.float64)
            low = np.maximum(2, np.ceil(endpoints / pod))
            high = np.minimum(radix, np.floor(limit / pod))
            total += float(np.maximum(high - low + 1, 0).sum())
    return total


def design_counts(endpoints: int, families: Sequence[str], torus_dims: Sequence[int],
                  radix_max: int, slack: float) -> dict[str, float]:
    """Upper bounds on the designs a sizing space lists per family, without listing them:
    designs reaching ``endpoints`` with at most ``slack`` x as many and routers of at most
    ``radix_max`` ports (model/sizing/space.py's window). Dragonfly DF(p, a, h): per (p, a)
    the h with a·p·(a·h + 1) in the window and p + a + h - 1 <= radix_max, counted one p
    at a time (no radix x radix array); slim fly (q, p): per q <= radix_max the p with
    2q²·p in the window; torus: :func:`_torus_shapes` per dimension count; xgft:
    :func:`_xgft_count` (exact); rail: 2 NIC counts x tapers x 2 placements; fat tree and
    Clos:
    (radix/2) x levels; megafly: radix/2. Unknown families count 0 (the study refuses
    them)."""
    import numpy as np

    limit = math.floor(slack * endpoints)
    counts: dict[str, float] = {}
    for family in families:
        if family == "torus":
            counts[family] = float(sum(_torus_shapes(endpoints, limit, d)
                                       for d in torus_dims))
        elif family in ("fattree", "clos"):
            counts[family] = float((radix_max // 2) * SIZING_LEVELS)
        elif family == "megafly":
            counts[family] = float(radix_max // 2)
        elif family == "dragonfly":
            a = np.arange(1, radix_max + 1, dtype=np.float64)
            total = 0.0
            for p in range(1, radix_max + 1):
                ap, a2p = a * p, a * a * p
                low = np.maximum(1, np.ceil((endpoints - ap) / a2p))
                high = np.minimum(np.floor((limit - ap) / a2p), radix_max + 1 - p - a)
                total += float(np.maximum(high - low + 1, 0).sum())
            counts[family] = total
        elif family == "xgft":
            counts[family] = _xgft_count(endpoints, limit, radix_max)
        elif family == "rail":
            from icnperf.model.sizing.rail_designs import RAIL_JOINS
            from icnperf.model.sizing.space import TAPERS

            counts[family] = float(2 * len(TAPERS) * len(RAIL_JOINS))
        elif family == "slimfly":
            q = np.arange(3, radix_max + 1, dtype=np.float64)
            two_q2 = 2 * q * q
            low = np.maximum(1, np.ceil(endpoints / two_q2))
            high = np.minimum(np.floor(limit / two_q2), radix_max)
            counts[family] = float(np.maximum(high - low + 1, 0).sum())
    return counts


DEFAULT_WORKLOAD_TERMS = 5
"""Terms of the bundled default workload, with which the unit costs above were measured;
a workload's cost per design grows with its terms (:func:`workload_terms`)."""

SAFE_DESIGNS_PER_TERM = 10
"""Designs the ``safe`` shortlist is taken to evaluate per workload term: those the screen
cannot prove off the front grow with the terms (its lower bound loosens as terms add up):
measured 46 designs for the default 5 terms and 523 for 50 terms at 1,000 endpoints. It was
not counted before, and the estimate ran about 2x low (14 s for 33 s)."""

EVALUATED_TERM_SECONDS = 1e-4
"""Seconds per workload term per design the full model evaluates, at few endpoints
(model/sizing/batched.py: rounds mapped per design or, on dragonflies of one p and on tori
a job does not fill, on all of a task's like designs at once; the step schedules timed
over arrays). Measured as whole processes, CPU time, the default 5 terms,
`size --families dragonfly,torus --torus-dims 3 --shortlist all --format json` less the
same study with `--shortlist safe`, per design evaluated beyond the safe ones, on the
shared 2-core machine at load 1.7 to 2 (2026-11-28, after the process settings of
cli/process.py and the batched partitions, tree times and candidates): 1,000 endpoints
0.54 ms a design (4,114 designs), 2,000 endpoints 0.67 ms (7,812), 5,000 endpoints
0.95 ms (17,412), i.e. 0.108, 0.133 and 0.19 ms a term. This constant and
:data:`EVALUATED_DESIGN_ENDPOINTS` lie above all three (0.15, 0.2 and 0.35 ms: 1.4 to 1.8
times, room for a busier machine). The earlier measurement (1.1, 1.61 and 2.93 ms a
design, before those steps) set 800 endpoints. Design by design (before batched.py) the
same terms cost 1.4 to 3.4 ms at 1,000 endpoints and about 12.5 ms a design at 5,000."""

EVALUATED_DESIGN_ENDPOINTS = 2000
"""Endpoints at which a term's full model costs twice :data:`EVALUATED_TERM_SECONDS`: the
rounds mapped per design grow with the job (the messages of a round, P of them on P
ranks). Beyond the workload's largest job (16,384 nodes in the default workload) the
estimate runs high: it does not know the jobs' sizes."""


SEARCHED_TERM_SECONDS = 7e-4
"""Seconds per workload term per design the safe search evaluates, at few endpoints: the
search hands its designs over one at a time (screen.search), and one design shares nothing
with another, so they go through the model design by design (sizing/batched.py's FEWEST),
at the cost before batched.py: 1.4 to 3.4 ms a design of the default 5 terms at 1,000
endpoints and about 12.5 ms at 5,000 (0.68 and 2.5 ms a term at most). With
:data:`SEARCHED_DESIGN_ENDPOINTS` this lies above both (1.2 and 3.2 ms a term); a workload
of 50 all-reduce terms on 1,000 endpoints (523 designs searched) took 25 s CPU, estimated
30 s (at the batched rate it was estimated 6.6 s)."""

SEARCHED_DESIGN_ENDPOINTS = 1400
"""Endpoints at which a searched design's term costs twice :data:`SEARCHED_TERM_SECONDS`."""


def evaluated_term_seconds(endpoints: int) -> float:
    """Seconds of the full model per workload term and design of ``endpoints`` endpoints,
    designs evaluated together: EVALUATED_TERM_SECONDS x (1 + N /
    EVALUATED_DESIGN_ENDPOINTS)."""
    return EVALUATED_TERM_SECONDS * (1.0 + endpoints / EVALUATED_DESIGN_ENDPOINTS)


def searched_term_seconds(endpoints: int) -> float:
    """Seconds of the full model per workload term and design of ``endpoints`` endpoints,
    designs evaluated one at a time by the safe search: SEARCHED_TERM_SECONDS x (1 + N /
    SEARCHED_DESIGN_ENDPOINTS)."""
    return SEARCHED_TERM_SECONDS * (1.0 + endpoints / SEARCHED_DESIGN_ENDPOINTS)


def workload_terms(workload) -> int:
    """The work units of a workload (model.sizing.workload.Workload): one per collective or
    application term, one per phase of a skeleton term (each is evaluated per design)."""
    units = 0
    for term in workload.terms:
        skeleton = getattr(term, "skeleton", None)
        units += len(skeleton.phases) if skeleton is not None else 1
    return units


def design_space_estimate(endpoints: int, families: Sequence[str],
                          torus_dims: Sequence[int], radix_max: int,
                          slack: float, shortlist: str | int = "safe", parallel: int = 1,
                          fmt: str = "table", terms: int = DEFAULT_WORKLOAD_TERMS) -> Estimate:
    """``size``: every design of the space screened (:func:`design_counts`), and those the
    full model evaluates: every one for ``shortlist`` ``all``, up to N for a number, each a
    result row (``parallel`` evaluations at once); ``safe`` evaluates the designs the screen
    cannot prove off the front (:data:`SAFE_DESIGNS_PER_TERM`), one at a time
    (:func:`searched_term_seconds`), the others together (:func:`evaluated_term_seconds`);
    N takes the safe ones first. Screening and evaluating a design
    cost in proportion to the workload's ``terms`` (:func:`workload_terms`)."""
    counts = design_counts(endpoints, families, torus_dims, radix_max, slack)
    designs = sum(counts.values())
    listed = ", ".join(f"{name} {count(n)}" for name, n in counts.items() if n)
    searched = 0.0 if shortlist == "all" else min(designs, SAFE_DESIGNS_PER_TERM * terms)
    evaluated = (designs if shortlist == "all" else
                 min(designs, float(shortlist)) if isinstance(shortlist, int) else searched)
    together = max(0.0, evaluated - searched)
    row_memory, row_seconds = rows_cost(evaluated, fmt)
    full = (f", {count(evaluated)} by the full model" if shortlist != "safe" and evaluated
            else "")
    per_term = max(1.0, terms / DEFAULT_WORKLOAD_TERMS)
    work = f"{count(terms, 'workload term')} on " if terms != DEFAULT_WORKLOAD_TERMS else ""
    return Estimate(f"size: {work}up to {count(designs)} candidate designs ({listed}){full}",
                    BASE_MEMORY + DESIGN_MEMORY * designs + row_memory,
                    DESIGN_SECONDS * designs * per_term + row_seconds
                    + (evaluated_term_seconds(endpoints) * together
                       + searched_term_seconds(endpoints) * searched) * terms
                    / max(1, parallel),
                    "lower --slack or --radix-max, or choose fewer --families or"
                    " --torus-dims" + (", or a smaller --shortlist" if evaluated else ""))
