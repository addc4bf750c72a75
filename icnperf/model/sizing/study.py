"""A sizing study: the space costed and bounded, the full model where the front needs it,
ranks and the Pareto front.

The whole feasible space (space.py) is costed exactly and bounded from below by the proxy
(proxy.py); the safe search (screen.py) runs the full workload model (workload.py) on the
designs that could be on the cost-performance Pareto front, and the front of those is the
front of the whole space. Ranks: ``rank_time`` orders the evaluated designs by workload
time, ``rank_cost_time`` by cost x workload time (both 1 = best; ties share the smaller
rank). ``pareto`` marks the non-dominated designs in (cost, workload time)
(pareto.pareto_front).

Evaluation goes through ``mapper(function, tasks)`` (default: in this process, in order),
so a caller may run it on several processes or a cluster (icnperf.runner); tasks are
chunks of designs with the workload and machine, results come back in task order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from icnperf.errors import InputError
from icnperf.model.sizing.cost import CostModel, cost_breakdown, link_counts
from icnperf.model.sizing.designs import Candidate, candidates, design_rule
from icnperf.model.sizing.pareto import pareto_front
from icnperf.model.sizing.screen import Screen, screen_space, search, taper_representatives
from icnperf.model.sizing.space import DEFAULT_SLACK, MAX_TORUS_SHAPES, enumerate_space
from icnperf.model.sizing.rail_designs import rail_options
from icnperf.model.sizing.batched import predict_designs
from icnperf.model.sizing.workload import TermResult, Workload

REASONS = {
    "NUDT rule": "the family's NUDT-rule design (always evaluated)",
    "screen": "no evaluated design dominates its cost and proxy",
    "all": "--shortlist all",
    "top-up": "--shortlist N: next in proxy order",
    "taper": "the cheapest xgft tree of its top-level taper (always evaluated)",
}
"""Why the full model evaluated a design (screen.Search.reason), as the study says it."""


@dataclass(frozen=True)
class DesignResult:
    """One evaluated design with its cost breakdown, workload terms, ranks, front
    membership, the screen's proxy and why it was evaluated."""

    design: Candidate
    cost_parts: dict
    terms: tuple[TermResult, ...]
    rank_time: int
    rank_cost_time: int
    pareto: bool
    proxy_s: float = float("nan")
    """The screen's lower bound of the workload time (s; proxy.py), not the model's."""
    reason: str = "screen"

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
    """The inputs and the evaluated designs of a study, fastest first."""

    endpoints: int
    families: tuple[str, ...]
    radix_max: int
    results: tuple[DesignResult, ...]
    missing: tuple[str, ...]
    """Families asked for with no design within the radix limit."""
    screened: dict = field(default_factory=dict)
    """Designs screened per family (space.py's whole feasible space)."""
    evaluated: dict = field(default_factory=dict)
    """Designs the full model evaluated, per family."""
    mode: str = "safe"
    """How the designs to evaluate were chosen: safe, all, or N (screen.search)."""
    slack: float = DEFAULT_SLACK
    narrowed: tuple[str, ...] = ()
    """Notes on windows narrowed below slack x N (space.MAX_TORUS_SHAPES)."""
    tapers: dict = field(default_factory=dict)
    """{(levels, taper t): spec of the cheapest xgft tree of that many levels tapered t:1 at
    the top} (screen.taper_representatives)."""

    def taper_savings(self) -> list[dict]:
        """Per level count and top-level taper, its cheapest xgft tree: spec, cost, workload
        time (s) and the cost saving against the cheapest 1:1 tree of as many levels (a
        fraction; None when no 1:1 tree of that many levels fits the radix)."""
        by_spec = {r.design.spec: r for r in self.results}
        rows = [(group, by_spec[spec]) for group, spec in self.tapers.items()
                if spec in by_spec]
        full = {levels: r.cost for (levels, t), r in rows if t == 1}
        return [{"levels": levels, "taper": t, "spec": r.design.spec, "cost": r.cost,
                 "workload_s": r.workload_s,
                 "saving": 1.0 - r.cost / full[levels] if levels in full else None}
                for (levels, t), r in rows]

    @property
    def screened_total(self) -> int:
        """Designs screened, all families."""
        return sum(self.screened.values())

    @property
    def evaluated_total(self) -> int:
        """Designs the full model evaluated."""
        return len(self.results)

    @property
    def front(self) -> list[DesignResult]:
        """The Pareto-front designs in increasing cost."""
        return sorted((r for r in self.results if r.pareto), key=lambda r: r.cost)

    def tightness(self) -> dict[str, tuple[float, float, float]]:
        """Per family, full / proxy over its evaluated designs: (min, median, max); 1 means
        the proxy equals the model, larger values a looser bound."""
        out: dict[str, list[float]] = {}
        for r in self.results:
            if r.proxy_s > 0:
                out.setdefault(r.design.family, []).append(r.workload_s / r.proxy_s)
        return {f: (min(v), float(np.median(v)), max(v)) for f, v in out.items()}


def _ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties sharing the smaller rank ("competition" ranking)."""
    return np.searchsorted(np.sort(values), values, side="left") + 1


_CACHE: dict = {}
"""workload.predict_term's cache, per (workload, machine, N) object ids, kept for the life
of one process (a study's designs share many job layouts: torus partitions, Clos = fat
tree)."""


def evaluate_designs(task) -> list[tuple[Candidate, tuple[TermResult, ...]]]:
    """One evaluation task: ``(workload, machine, n_endpoints, designs)``, designs as
    (family, params, rule, canonical); each design's Candidate and its workload terms (the
    full model, the task's designs together: batched.predict_designs, equal to
    workload.predict_workload design by design)."""
    workload, machine, n_endpoints, designs = task
    key = (id(workload), id(machine), n_endpoints)
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = {}
    cache = _CACHE[key]
    built = candidates(designs)
    terms = predict_designs(workload, machine, built, n_endpoints, cache)
    return [(design, tuple(t)) for design, t in zip(built, terms)]


def _inline(function, tasks) -> list:
    return [function(task) for task in tasks]


def run_study(n_endpoints: int, families: tuple[str, ...], torus_dims: tuple[int, ...],
              radix_max: int, cost_model: CostModel, workload: Workload,
              machine, slack: float = DEFAULT_SLACK, shortlist: str | int = "safe",
              mapper=None, batch: int = 1, chunk: int = 8) -> Study:
    """Enumerate, cost and bound the whole space, evaluate what ``shortlist`` asks for
    (screen.search) with the full model, rank the evaluated designs and mark their front.

    ``mapper(function, tasks)``: how evaluation tasks run (default: here, in order);
    ``batch``: designs the search hands over at once; ``chunk``: designs per task (the
    designs of a task are timed together, batched.predict_designs). A
    workload term asking for more nodes than ``n_endpoints`` runs on all of them, with a
    note (workload.predict_term).
    """
    rails = rail_options(machine.get("node.accelerators", 0)) if "rail" in families else ()
    blocks = enumerate_space(n_endpoints, families, torus_dims, radix_max, slack, rails)
    screen = screen_space(blocks, cost_model, workload, machine, n_endpoints)
    mapper = mapper or _inline
    evaluated: dict[int, tuple[Candidate, tuple[TermResult, ...]]] = {}

    def evaluate(indices: list[int]) -> list[float]:
        # tasks of like designs (family, then a dragonfly's p or a torus's first radices),
        # which share their mapping (batched.py); the results come back in the order asked
        asked = indices
        indices = sorted(indices, key=lambda i: _kinship(screen, i))
        designs = [_design(screen, i) for i in indices]
        tasks = [(workload, machine, n_endpoints, designs[k:k + chunk])
                 for k in range(0, len(designs), chunk)]
        results = [r for part in mapper(evaluate_designs, tasks) for r in part]
        for i, result in zip(indices, results):
            evaluated[i] = result
        times = {i: sum(t.weighted_s for t in terms) for i, (_, terms) in zip(indices, results)}
        for i, (design, _) in zip(indices, results):
            if not math.isfinite(times[i]):
                raise InputError(f"the workload time on {design.spec} is beyond floating "
                                 "point (weights x times past 1.8e308): lower the weights")
        return [times[i] for i in asked]

    found = search(screen, evaluate, shortlist, batch)
    results = _results(screen, found, evaluated, cost_model)
    present = {b.family for b in blocks}
    full = int(np.floor(slack * n_endpoints))
    narrowed = tuple(
        f"torus {b.params['radices'].shape[1]}D: more than {MAX_TORUS_SHAPES:,} shapes up to"
        f" {full:,} endpoints; "
        + (f"screened those up to {b.limit:,}" if b.limit else "only the NUDT-rule shape")
        for b in blocks if b.limit < full)
    per_family: dict[str, int] = {}
    for r in results:
        per_family[r.design.family] = per_family.get(r.design.family, 0) + 1
    tapers = {g: evaluated[i][0].spec for g, i in taper_representatives(screen).items()
              if i in evaluated}
    return Study(n_endpoints, tuple(families), radix_max, tuple(results),
                 tuple(f for f in families if f not in present), screen.counts(),
                 per_family, found.mode, slack, narrowed, tapers)


def _kinship(screen: Screen, flat: int) -> tuple:
    """A sort key putting designs whose rounds are mapped together side by side
    (batched._shared): the family's block, then a dragonfly's endpoints per router p or
    a torus's radices but the last."""
    block_index, row = screen.locate(flat)
    block = screen.blocks[block_index]
    if block.family == "dragonfly":
        return block_index, (int(block.params["p"][row]),)
    if block.family == "torus":
        return block_index, tuple(int(k) for k in block.params["radices"][row][:-1])
    return block_index, ()


def _design(screen: Screen, flat: int) -> tuple:
    block_index, row = screen.locate(flat)
    block = screen.blocks[block_index]
    params = block.params_of(row)
    canonical = bool(block.canonical[row])
    rule = design_rule(block.family, params, canonical)
    return block.family, params, rule, canonical


def _results(screen: Screen, found, evaluated: dict, cost_model: CostModel) -> list:
    indices = list(found.evaluated)
    designs = [evaluated[i][0] for i in indices]
    terms = [evaluated[i][1] for i in indices]
    parts = [cost_breakdown(d, cost_model) for d in designs]
    cost = np.array([sum(p.values()) for p in parts])
    time = np.array([sum(t.weighted_s for t in ts) for ts in terms])
    with np.errstate(over="ignore"):
        if not np.all(np.isfinite(cost * time)):
            raise InputError("cost x workload time is beyond floating point (1.8e308): "
                             "lower the weights or the cost model's prices")
    front = pareto_front(cost, time)
    rank_time, rank_cost_time = _ranks(time), _ranks(cost * time)
    results = [DesignResult(d, p, ts, int(rt), int(rct), bool(f), float(screen.proxy_s[i]),
                            found.reason[i])
               for i, d, p, ts, rt, rct, f in zip(indices, designs, parts, terms, rank_time,
                                                  rank_cost_time, front)]
    results.sort(key=lambda r: (r.rank_time, r.cost, r.design.spec))
    return results


def scalability_summary(study: Study) -> dict:
    """Among the canonical (NUDT-rule) designs: the family with the fewest routers and the
    one with the lowest radix, with the values (the NUDT comparison's two conclusions,
    Jiang et al.); also over every evaluated design."""
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
