"""Screening a whole design space with a closed-form performance proxy, and the short list.

The full workload model (workload.py) places every rank of every job, seconds per design;
the space (space.py) holds up to ~10^6 designs. Each design is therefore first timed by a
*proxy*, vectorized over the space from its structure alone:

    proxy = Σ_terms weight x [ R x (t_0 + t_r + H̄ (t_r + t_l)) + V / min(B_host, Θ B_link) ]

* H̄: the design's average distance (hops); Θ: its uniform-traffic saturation throughput
  min(1, 1/γ_max), flits/endpoint/cycle (model/topology, base.py), so Θ·B_link is what an
  endpoint sustains when every endpoint sends at once;
* t_0 = software overhead + injection + ejection latency, t_r router and t_l link latency,
  B_link and B_host the link and host bandwidths (network.machine_parameters, api mpi);
* R, V per run of a term on n nodes with m bytes: R = ⌈lg n⌉ latency rounds (recursive
  doubling / a binomial tree) and V the bytes each endpoint must receive (Thakur,
  Rabenseifner & Gropp, IJHPCA 19(1), 2005, lower bounds): allreduce 2m(n-1)/n, allgather
  and alltoall m(n-1)/n, broadcast and reduce m, barrier 0;
* an application term counts its collectives only: heat one 8-byte allreduce per step,
  spmv one allgather of 8·rows bytes per iteration, hpcg three 8-byte allreduces per
  iteration (model/apps). Its compute does not depend on the network and leaves the
  ranking and the front unchanged; its halo exchanges are left out of the proxy.

This is a proxy, not the model: it ignores the job's placement, hardware collectives and
per-step contention. It only chooses which designs the full model sees: the proxy's
cost-performance Pareto front plus the NUDT-rule design of each family, at most
``shortlist`` of them (the front thinned evenly in cost when it is longer).
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass

import numpy as np

from icnperf.errors import InputError
from icnperf.model import network
from icnperf.model.sizing.cost import CostModel, total_cost_arrays
from icnperf.model.sizing.pareto import pareto_front
from icnperf.model.sizing.space import Block
from icnperf.model.sizing.workload import AppTerm, Workload

DEFAULT_SHORTLIST = 24
"""Most designs the full workload model evaluates in one study."""

PROXY_NOTE = (
    "screen: every candidate timed by a closed-form proxy, sum of weight x [lg n rounds x"
    " (overheads + average hops x per-hop latency) + bytes received / (uniform saturation"
    " throughput x link bandwidth)]; placement, hardware collectives and halos are left out"
    " (model/sizing/screen.py); the proxy's Pareto front and the NUDT-rule designs go on to"
    " the full model")

_VOLUME = {"allreduce": lambda m, n: 2.0 * m * (n - 1) / n,
           "allgather": lambda m, n: m * (n - 1) / n,
           "alltoall": lambda m, n: m * (n - 1) / n,
           "broadcast": lambda m, n: m, "reduce": lambda m, n: m,
           "barrier": lambda m, n: 0.0}
"""Bytes an endpoint receives in one run of each collective on n nodes (module docstring)."""


@dataclass(frozen=True)
class Screen:
    """A screened space: per design (blocks concatenated in order) its cost, proxy time
    (s) and proxy-front membership, and the short list as (block, row) pairs."""

    blocks: tuple[Block, ...]
    cost: np.ndarray
    proxy_s: np.ndarray
    front: np.ndarray
    shortlist: tuple[tuple[int, int], ...]

    @property
    def screened(self) -> int:
        """Designs screened, all blocks together."""
        return len(self.cost)

    def counts(self) -> dict[str, int]:
        """Designs screened per family."""
        out: dict[str, int] = {}
        for block in self.blocks:
            out[block.family] = out.get(block.family, 0) + len(block)
        return out

    def flat(self, block: int, row: int) -> int:
        """Index into the concatenated arrays of a (block, row) pair."""
        return sum(len(b) for b in self.blocks[:block]) + row


def _default(app: str, key: str):
    from icnperf.model.apps import heat, hpcg, spmv

    predictor = {"heat": heat.predict, "spmv": spmv.predict, "hpcg": hpcg.predict}[app]
    return inspect.signature(predictor).parameters[key].default


def term_skeleton(term, n_endpoints: int) -> list[tuple[str, float, int, float]]:
    """The collectives of one run of a term: (operation, bytes, nodes, count) each."""
    nodes = n_endpoints if term.nodes is None else min(term.nodes, n_endpoints)
    if not isinstance(term, AppTerm):
        return [(term.operation, term.message_bytes, nodes, 1.0)]
    problem = term.problem
    if term.app == "heat":
        return [("allreduce", 8.0, nodes, float(problem.get("steps", _default("heat", "steps"))))]
    if term.app == "spmv":
        rows = problem.get("rows", _default("spmv", "rows"))
        return [("allgather", 8.0 * rows, nodes,
                 float(problem.get("iterations", _default("spmv", "iterations"))))]
    return [("allreduce", 8.0, nodes,
             3.0 * problem.get("iterations", _default("hpcg", "iterations")))]


def workload_coefficients(workload: Workload, n_endpoints: int) -> tuple[float, float]:
    """(Σ weight x rounds, Σ weight x bytes received) of the workload (module docstring)."""
    rounds = volume = 0.0
    for term in workload.terms:
        for operation, size, nodes, count in term_skeleton(term, n_endpoints):
            rounds += term.weight * count * math.ceil(math.log2(nodes))
            volume += term.weight * count * _VOLUME[operation](size, nodes)
    return rounds, volume


def proxy_time(workload: Workload, machine, n_endpoints: int, average_distance,
               throughput) -> np.ndarray:
    """The proxy workload time (s) of designs with these average distances (hops) and
    uniform saturation throughputs (flits/endpoint/cycle); arrays broadcast."""
    p = network.machine_parameters(machine, "mpi")
    rounds, volume = workload_coefficients(workload, n_endpoints)
    hops = np.asarray(average_distance, dtype=float)
    theta = np.asarray(throughput, dtype=float)
    latency = (p["software_overhead"] + p["injection_latency"] + p["ejection_latency"]
               + p["router_latency"] + hops * (p["router_latency"] + p["link_latency"]))
    rate = np.minimum(p["host_bandwidth"], theta * p["link_bandwidth"])
    return rounds * latency + volume / rate


def _thin(indices: np.ndarray, slots: int) -> np.ndarray:
    """At most ``slots`` of ``indices`` (ordered), evenly spaced, the ends kept."""
    if len(indices) <= slots:
        return indices
    if slots <= 1:
        return indices[:slots]
    return indices[np.unique(np.round(np.linspace(0, len(indices) - 1, slots)).astype(int))]


def screen_space(blocks: list[Block], cost_model: CostModel, workload: Workload, machine,
                 n_endpoints: int, shortlist: int = DEFAULT_SHORTLIST) -> Screen:
    """Cost and proxy time of every design, the proxy front and the short list: the
    NUDT-rule designs first (family order), then the front in increasing cost, thinned
    evenly when it does not fit, ``shortlist`` designs at most."""
    if not (isinstance(shortlist, (int, np.integer)) and shortlist >= 1):
        raise InputError(f"--shortlist must be a whole number >= 1, not {shortlist!r}")
    costs, proxies = [], []
    for b in blocks:
        m = b.metrics
        costs.append(total_cost_arrays(np.asarray(m.routers, dtype=float),
                                       np.asarray(m.radix, dtype=float), b.electrical,
                                       b.optical, np.asarray(m.endpoints, dtype=float),
                                       cost_model))
        proxies.append(proxy_time(workload, machine, n_endpoints, m.average_distance,
                                  m.throughput["uniform"]))
    cost = np.concatenate(costs)
    proxy = np.concatenate(proxies)
    front = pareto_front(cost, proxy)
    offsets = np.cumsum([0] + [len(b) for b in blocks])
    canonical = np.flatnonzero(np.concatenate([b.canonical for b in blocks]))[:shortlist]
    on_front = np.flatnonzero(front & ~np.isin(np.arange(len(cost)), canonical))
    on_front = on_front[np.lexsort((proxy[on_front], cost[on_front]))]
    chosen = np.concatenate([canonical, _thin(on_front, shortlist - len(canonical))])
    pairs = []
    for flat in chosen:
        block = int(np.searchsorted(offsets, flat, side="right") - 1)
        pairs.append((block, int(flat - offsets[block])))
    return Screen(tuple(blocks), cost, proxy, front, tuple(pairs))
