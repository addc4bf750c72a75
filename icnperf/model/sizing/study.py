"""A sizing study: the screened space, the short list's cost and workload time, ranks and
the Pareto front.

The whole feasible space (space.py) is costed and timed by the closed-form proxy
(screen.py); the short list (proxy front + NUDT-rule designs) runs through the full
workload model (workload.py), and only the short list is ranked.
Ranks: ``rank_time`` orders designs by workload time, ``rank_cost_time`` by cost x
workload time (both 1 = best; ties share the smaller rank). ``pareto`` marks the
non-dominated designs in (cost, workload time) (pareto.pareto_front).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from icnperf.model.sizing.cost import CostModel, cost_breakdown, link_counts
from icnperf.model.sizing.designs import Candidate, candidate, canonical_rule
from icnperf.model.sizing.pareto import pareto_front
from icnperf.model.sizing.screen import DEFAULT_SHORTLIST, screen_space
from icnperf.model.sizing.space import DEFAULT_SLACK, MAX_TORUS_SHAPES, enumerate_space
from icnperf.model.sizing.workload import TermResult, Workload, predict_workload


@dataclass(frozen=True)
class DesignResult:
    """One candidate with its cost breakdown, workload terms, ranks and front membership."""

    design: Candidate
    cost_parts: dict
    terms: tuple[TermResult, ...]
    rank_time: int
    rank_cost_time: int
    pareto: bool
    proxy_s: float = float("nan")
    """The screen's proxy workload time (s; screen.proxy_time), not the model's."""

    @property
    def cost(self) -> float:
        """Total cost, the sum of the parts (the cost model's unit)."""
        return sum(self.cost_parts.values())

    @property
    def workload_s(self) -> float:
        """Workload time, Σ weight x time per term (s)."""
        return sum(t.weighted_s for t in self.terms)

    @property
    def links(self) -> dict:
        """Electrical, optical and endpoint link counts (cost.link_counts)."""
        return link_counts(self.design)


@dataclass(frozen=True)
class Study:
    """The inputs and the designs of a study, ordered by workload time (fastest first)."""

    endpoints: int
    families: tuple[str, ...]
    radix_max: int
    results: tuple[DesignResult, ...]
    missing: tuple[str, ...]
    """Families asked for with no design within the radix limit."""
    screened: dict = field(default_factory=dict)
    """Designs screened per family (space.py's whole feasible space)."""
    proxy_front: int = 0
    """Designs on the proxy's cost-performance Pareto front."""
    slack: float = DEFAULT_SLACK
    shortlist: int = DEFAULT_SHORTLIST
    narrowed: tuple[str, ...] = ()
    """Notes on windows narrowed below slack x N (space.MAX_TORUS_SHAPES)."""

    @property
    def screened_total(self) -> int:
        """Designs screened, all families."""
        return sum(self.screened.values())

    @property
    def front(self) -> list[DesignResult]:
        """The Pareto-front designs in increasing cost."""
        return sorted((r for r in self.results if r.pareto), key=lambda r: r.cost)


def _ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing the smaller rank ("competition" ranking)."""
    return np.searchsorted(np.sort(values), values, side="left") + 1


def shortlisted(screen) -> list[tuple[Candidate, float]]:
    """The short list's Candidates (with the rule that put each there) and proxy times."""
    out = []
    for block_index, row in screen.shortlist:
        block = screen.blocks[block_index]
        params = block.params_of(row)
        flat = screen.flat(block_index, row)
        canonical = bool(block.canonical[row])
        rules = ([canonical_rule(block.family, params)] if canonical else []) + (
            ["proxy Pareto front"] if screen.front[flat] else [])
        out.append((candidate(block.family, params, "; ".join(rules), canonical),
                    float(screen.proxy_s[flat])))
    return out


def run_study(n_endpoints: int, families: tuple[str, ...], torus_dims: tuple[int, ...],
              radix_max: int, cost_model: CostModel, workload: Workload,
              machine, slack: float = DEFAULT_SLACK,
              shortlist: int = DEFAULT_SHORTLIST) -> Study:
    """Enumerate and screen the whole space, then cost and time the short list with the
    full model; rank it and mark its front.

    A workload term asking for more nodes than ``n_endpoints`` runs on all of them, with a
    note (workload.predict_term).
    """
    blocks = enumerate_space(n_endpoints, families, torus_dims, radix_max, slack)
    screen = screen_space(blocks, cost_model, workload, machine, n_endpoints, shortlist)
    chosen = shortlisted(screen)
    designs = [d for d, _ in chosen]
    cache: dict = {}
    parts = [cost_breakdown(d, cost_model) for d in designs]
    terms = [tuple(predict_workload(workload, machine, d, n_endpoints, cache))
             for d in designs]
    cost = np.array([sum(p.values()) for p in parts])
    time = np.array([sum(t.weighted_s for t in ts) for ts in terms])
    front = pareto_front(cost, time)
    rank_time = _ranks(time)
    rank_cost_time = _ranks(cost * time)
    results = [DesignResult(d, p, ts, int(rt), int(rct), bool(f), proxy)
               for (d, proxy), p, ts, rt, rct, f in zip(chosen, parts, terms, rank_time,
                                                        rank_cost_time, front)]
    results.sort(key=lambda r: (r.rank_time, r.cost))
    present = {b.family for b in blocks}
    full = int(np.floor(slack * n_endpoints))
    narrowed = tuple(
        f"torus {b.params['radices'].shape[1]}D: more than {MAX_TORUS_SHAPES:,} shapes up to"
        f" {full:,} endpoints; "
        + (f"screened those up to {b.limit:,}" if b.limit else "only the NUDT-rule shape")
        for b in blocks if b.limit < full)
    return Study(n_endpoints, tuple(families), radix_max, tuple(results),
                 tuple(f for f in families if f not in present), screen.counts(),
                 int(screen.front.sum()), slack, shortlist, narrowed)


def scalability_summary(study: Study) -> dict:
    """Among the canonical (NUDT-rule) designs: the family with the fewest routers and the
    one with the lowest radix, with the values (the NUDT comparison's two conclusions,
    seeds/002); also over the whole short list."""
    def pick(rows, key):
        best = min(rows, key=key)
        return {"family": best.design.family, "spec": best.design.spec, "value": key(best)}

    canonical = [r for r in study.results if r.design.canonical]
    everything = list(study.results)
    out = {}
    for label, rows in (("canonical", canonical), ("all", everything)):
        if rows:
            out[label] = {"fewest_routers": pick(rows, lambda r: r.design.routers),
                          "lowest_radix": pick(rows, lambda r: r.design.radix)}
    return out
