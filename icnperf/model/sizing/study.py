"""A sizing study: candidates, their cost and workload time, ranks and the Pareto front.

Ranks: ``rank_time`` orders designs by workload time, ``rank_cost_time`` by cost x
workload time (both 1 = best; ties share the smaller rank). ``pareto`` marks the
non-dominated designs in (cost, workload time) (pareto.pareto_front).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icnperf.model.sizing.cost import CostModel, cost_breakdown, link_counts
from icnperf.model.sizing.designs import Candidate, enumerate_designs
from icnperf.model.sizing.pareto import pareto_front
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

    @property
    def front(self) -> list[DesignResult]:
        """The Pareto-front designs in increasing cost."""
        return sorted((r for r in self.results if r.pareto), key=lambda r: r.cost)


def _ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing the smaller rank ("competition" ranking)."""
    return np.searchsorted(np.sort(values), values, side="left") + 1


def run_study(n_endpoints: int, families: tuple[str, ...], torus_dims: tuple[int, ...],
              radix_max: int, cost_model: CostModel, workload: Workload,
              machine) -> Study:
    """Enumerate, cost and time every candidate; rank them and mark the front.

    A workload term asking for more nodes than ``n_endpoints`` runs on all of them, with a
    note (workload.predict_term).
    """
    designs = enumerate_designs(n_endpoints, families, torus_dims, radix_max)
    cache: dict = {}
    parts = [cost_breakdown(d, cost_model) for d in designs]
    terms = [tuple(predict_workload(workload, machine, d, n_endpoints, cache))
             for d in designs]
    cost = np.array([sum(p.values()) for p in parts])
    time = np.array([sum(t.weighted_s for t in ts) for ts in terms])
    front = pareto_front(cost, time)
    rank_time = _ranks(time)
    rank_cost_time = _ranks(cost * time)
    results = [DesignResult(d, p, ts, int(rt), int(rct), bool(f))
               for d, p, ts, rt, rct, f in zip(designs, parts, terms, rank_time,
                                               rank_cost_time, front)]
    results.sort(key=lambda r: (r.rank_time, r.cost))
    present = {d.family for d in designs}
    return Study(n_endpoints, tuple(families), radix_max, tuple(results),
                 tuple(f for f in families if f not in present))


def scalability_summary(study: Study) -> dict:
    """Among the canonical (NUDT-rule) designs: the family with the fewest routers and the
    one with the lowest radix, with the values (the NUDT comparison's two conclusions,
    seeds/002); also over all candidates."""
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
