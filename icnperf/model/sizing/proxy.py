"""The screen's proxy: a proven lower bound of the full model's workload time, for every
design of a space at once.

proxy = Σ_terms weight x (lower bound of the term's time on the design's job layout), each
term's bound as bound.py derives it, with the per-round hop and load bounds of views.py.
Where the job layout does not depend on the design (a torus partition, slim fly's
crossbar apart from its link derating) the bound is the model's own value or close to it;
on dragonfly, megafly and fat trees it comes from counting the round's messages between
routers and groups (traffic.py). A skeleton term is bounded phase by phase
(skeleton_terms.py): compute exactly, its halos and patterns as rounds, its collectives as
collective terms.

The proxy also gives each design an equivalence key: designs with equal keys run every
term on the same job layout with the same parameters, so the full model gives them the
same time (tori sharing their partitions; a Clos and the fat tree it is; slim flies whose
uniform saturation estimate is the same, whose crossbar stand-ins keep the same share of
the links' bandwidth (model/topology/saturation.py, the machine's routers); xgft
trees equal below the top level whose jobs use the same top-level pods: a job on the first
n endpoints of m_h pods of P_(h-1) endpoints touches only the first ceil(n / P_(h-1)) of
them, and NCA hops, pod channel counts and dmodk ports do not depend on m_h). Once the
full model has timed one of them, its time is the exact proxy of all (screen.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icnperf.model.collectives.layout import Layout
from icnperf.model.collectives.parameters import collective_parameters
from icnperf.model.sizing import bound
from icnperf.model.sizing.partition import box_shapes, partition_index
from icnperf.model.sizing.rail_designs import FloorView
from icnperf.model.sizing.skeleton_terms import SkeletonTerm, bound_phases, reads_network
from icnperf.model.sizing.space import Block
from icnperf.model.sizing.traffic import BlockTraffic, algorithm_rounds, block_traffic
from icnperf.model.sizing.views import (Crossbar, Dragonfly, FatTree, Megafly, TorusPartitions,
                                      XGFTree, farthest_rank, torus_halo)
from icnperf.model.sizing.workload import APPS, AppTerm, Workload, _candidates
from icnperf.model.sizing.workload import app_default as _default
from icnperf.model.topology.saturation import machine_router, saturation_of

_TREES = ("hw-tree", "p2p-tree")


@dataclass(frozen=True)
class TermPlan:
    """What the bound of one term needs: its node count, the collective it runs (operation,
    bytes m), how many times per run (``repeat``: heat steps, spmv and hpcg iterations), the
    algorithms the full model may pick off tori and on tori, and the app's name."""

    term: object
    nodes: int
    kind: str
    operation: str
    m: float
    repeat: int
    network_algorithms: tuple[str, ...]
    torus_algorithms: tuple[str, ...]


def term_plan(term, machine, n_endpoints: int) -> TermPlan:
    """The plan of one workload term (node count cut to N as workload.predict_term)."""
    nodes = n_endpoints if term.nodes is None else min(term.nodes, n_endpoints)
    if isinstance(term, SkeletonTerm):
        return TermPlan(term, nodes, "skeleton", "", 0.0, 1, (), ())
    if isinstance(term, AppTerm):
        operation = APPS[term.app][0]
        problem = term.problem
        exclude = ("hw-tree",) if term.app == "hpcg" else ()
        count = "steps" if term.app == "heat" else "iterations"
        repeat = int(problem.get(count, _default(term.app, count)))
        m = 8.0 if term.app != "spmv" else 8.0 * problem.get("rows", _default("spmv", "rows"))
        kind, algorithm = term.app, term.algorithm
    else:
        operation, m, repeat, kind = term.operation, term.message_bytes, 1, "collective"
        exclude, algorithm = (), term.algorithm
    off, _ = _candidates(algorithm, operation, Layout.crossbar(2), machine, exclude)
    on, _ = _candidates(algorithm, operation, Layout.torus((2, 2)), machine, exclude)
    return TermPlan(term, nodes, kind, operation, float(m), repeat, tuple(off), tuple(on))


class TrafficTable:
    """Block statistics of every round a study needs, over every block size its designs
    need (traffic.block_traffic, computed once per distinct round); ``out`` and ``into``
    only for the sizes in ``flow_sizes`` (the others read 0 there)."""

    def __init__(self, sizes, flow_sizes=()):
        self.flow_sizes = np.unique(np.asarray(flow_sizes, dtype=np.int64))
        sizes = np.unique(np.asarray(sizes, dtype=np.int64))
        self.sizes = sizes[~np.isin(sizes, self.flow_sizes)]
        self._done: dict[bytes, tuple] = {}

    def __call__(self, r, sizes) -> BlockTraffic:
        key = r.key
        if key not in self._done:
            endpoints = int(max(r.sources.max(), r.destinations.max())) + 1
            self._done[key] = tuple(
                block_traffic(r.sources, r.destinations, part, endpoints, flows)
                if len(part) else None
                for part, flows in ((self.sizes, False), (self.flow_sizes, True)))
        plain, flowing = self._done[key]
        sizes = np.asarray(sizes, dtype=np.int64)
        if flowing is None:
            return plain.at(sizes)
        if plain is None:
            return flowing.at(sizes)
        use = np.isin(sizes, self.flow_sizes)
        a = plain.at(np.where(use, self.sizes[0], sizes))
        f = flowing.at(np.where(use, sizes, self.flow_sizes[0]))
        pick = (lambda x, y: np.where(use, y, x))
        return BlockTraffic(sizes, pick(a.pair, f.pair), pick(a.out, f.out),
                            pick(a.into, f.into), pick(a.crosses, f.crosses))


class Proxy:
    """The proxy of a workload on a machine for N endpoints: ``block_proxy(block)`` gives
    the lower bound (s) of every design of a space.Block and ``key_rows(block)`` their
    equivalence keys."""

    def __init__(self, workload: Workload, machine, n_endpoints: int, blocks=()):
        self.machine = machine
        self.n_endpoints = n_endpoints
        self.params = collective_parameters(machine, "mpi")
        self.ring_ties = machine.get("network.ring_ties", "plus")
        self.router = machine_router(machine)
        self.plans = [term_plan(t, machine, n_endpoints) for t in workload.terms]
        self._fixed: dict = {}
        views = [self._view(b) for b in blocks if b.family != "torus"]
        sizes = [v.block_sizes() for v in views]
        flows = [v.block_sizes() for v in views if v.needs_flows]
        self.table = TrafficTable(np.concatenate(sizes) if sizes else [1],
                                  np.concatenate(flows) if flows else ())

    # --- per family ---------------------------------------------------------------------

    def _view(self, block: Block):
        p = block.params
        if block.family == "dragonfly":
            return Dragonfly(p["p"], p["a"], p["h"])
        if block.family == "megafly":
            return Megafly(p["k"])
        if block.family == "fattree":
            return FatTree(p["k"], p["n"])
        if block.family == "clos":
            return FatTree(p["radix"] // 2, p["levels"])
        if block.family == "xgft":
            return XGFTree(p["m"], p["w"])
        if block.family == "rail":
            return FloorView(len(block))
        return Crossbar(len(block))

    def block_proxy(self, block: Block) -> np.ndarray:
        """Σ weight x term bound over the block's designs (s)."""
        if block.family == "torus":
            return sum(plan.term.weight * self._torus_term(plan, block)
                       for plan in self.plans) + np.zeros(len(block))
        view = self._view(block)
        bandwidth = None
        if block.family == "slimfly":
            bandwidth = self.params["link_bandwidth"] * self._slimfly_share(block)
        total = np.zeros(len(block))
        for plan in self.plans:
            total = total + plan.term.weight * self._network_term(plan, view, bandwidth)
        return total

    def _slimfly_share(self, block: Block) -> np.ndarray:
        """The share of link bandwidth a slim fly's crossbar stand-in keeps: its uniform
        saturation estimate for the machine's routers (workload.slimfly_throughput's, over
        the block's arrays)."""
        return np.asarray(saturation_of("slimfly", block.params, block.metrics, "uniform",
                                        self.router)["saturation_estimate"], dtype=float)

    def key_rows(self, block: Block) -> tuple[tuple, np.ndarray]:
        """Equivalence keys (module docstring) of the block's designs as (tag, rows): two
        designs, of this block or another, have equal keys when their tags are equal and
        their rows (float64, one per design; integers exact) are equal. Built as arrays, no
        Python object per design (a 6D torus space has some 10^5 designs)."""
        p = block.params
        n = len(block)
        if block.family == "torus":
            radices = np.asarray(p["radices"], dtype=np.int64)
            index = np.stack([self._partition(block, plan.nodes) for plan in self.plans],
                             axis=1).reshape(n, len(self.plans))
            whole = (index < 0).any(axis=1)
            rows = np.concatenate([whole[:, None], radices * whole[:, None],
                                   np.where(whole[:, None], 0, index)], axis=1)
            return ("torus", radices.shape[1]), rows.astype(np.float64)
        if block.family in ("fattree", "clos"):
            k = p["k"] if block.family == "fattree" else p["radix"] // 2
            levels = p["n"] if block.family == "fattree" else p["levels"]
            return ("fattree",), np.stack([k, levels], axis=1).astype(np.float64)
        if block.family == "xgft":
            top = np.prod(p["m"][:, :-1], axis=1)
            used = np.stack([np.minimum(p["m"][:, -1], -(-plan.nodes // top))
                             for plan in self.plans], axis=1)
            rows = np.concatenate([p["m"][:, :-1], p["w"], used], axis=1)
            return ("xgft", p["m"].shape[1]), rows.astype(np.float64)
        if block.family == "rail":
            rows = np.concatenate([p["rails"][:, None], p["join"][:, None], p["m"], p["w"]],
                                  axis=1)
            return ("rail",), rows.astype(np.float64)
        if block.family == "slimfly":
            return ("crossbar",), np.asarray(self._slimfly_share(block),
                                             dtype=np.float64).reshape(n, 1)
        names = tuple(p)
        rows = np.stack([np.asarray(p[name]).reshape(n) for name in names], axis=1)
        return (block.family, names), rows.astype(np.float64)

    # --- off tori: point-to-point algorithms on the job's first n endpoints -----------------

    def _collective(self, plan: TermPlan, operation: str, m: float, algorithms, view,
                    bandwidth):
        best = None
        for algorithm in algorithms:
            rounds = algorithm_rounds(algorithm, operation, plan.nodes)
            t = bound.rounds_time(rounds, m, lambda r: view(self.table, r), self.params,
                                  bandwidth)
            best = t if best is None else np.minimum(best, t)
        return best

    def _network_term(self, plan: TermPlan, view, bandwidth):
        if plan.kind == "skeleton":
            if bandwidth is not None and reads_network(plan.term):
                return 0.0      # slim fly derates network.link_bandwidth (skeleton_terms)
            return self._skeleton_network(plan, view, bandwidth)
        if plan.kind == "hpcg":
            return plan.repeat * self._hpcg(plan)
        collective = self._collective(plan, plan.operation, plan.m, plan.network_algorithms,
                                      view, bandwidth)
        if plan.kind == "collective":
            return collective
        compute, halo = self._app_fixed(plan, plan.nodes)
        if halo is not None:
            compute = compute + bound.halo_time(self._halo_rounds(plan, halo),
                                                lambda r: view(self.table, r), self.params,
                                                bandwidth)
        return plan.repeat * (compute + collective)

    def _app_fixed(self, plan: TermPlan, nodes):
        """(compute time per step, heat's halo as (sizes, px, py) or None) on ``nodes``
        nodes (arrays)."""
        problem = plan.term.problem
        if plan.kind == "heat":
            cells = problem.get("cells", _default("heat", "cells"))
            compute, sizes, grid = bound.heat_compute(self.machine, nodes, cells,
                                                      _default("heat", "flops_per_cell"))
            return compute, (sizes, *grid)
        rows = problem.get("rows", _default("spmv", "rows"))
        d = problem.get("nonzeros_per_row", _default("spmv", "nonzeros_per_row"))
        return bound.spmv_compute(self.machine, nodes, rows, d), None

    def _halo_rounds(self, plan: TermPlan, halo):
        key = (id(plan), "halo")
        if key not in self._fixed:
            sizes, px, py = halo
            self._fixed[key] = bound.halo_rounds(int(np.ravel(px)[0]), int(np.ravel(py)[0]),
                                                 tuple(float(np.ravel(s)[0]) for s in sizes))
        return self._fixed[key]

    # --- skeleton terms: phase by phase (skeleton_terms.py) -------------------------------

    def _skeleton_phases(self, plan: TermPlan):
        """(PhaseBound, [(operation, m, algorithms off tori, on tori)]) per phase."""
        key = (id(plan), "skeleton")
        if key not in self._fixed:
            out = []
            for phase in bound_phases(plan.term, self.machine, plan.nodes):
                collectives = []
                for operation, m, algorithm in phase.collectives:
                    off, _ = _candidates(algorithm, operation, Layout.crossbar(2),
                                         self.machine)
                    on, _ = _candidates(algorithm, operation, Layout.torus((2, 2)),
                                        self.machine)
                    collectives.append((operation, m, off, on))
                out.append((phase, collectives))
            self._fixed[key] = out
        return self._fixed[key]

    @staticmethod
    def _phase_total(phase, comm):
        if phase.overlap:
            return phase.repeat * np.maximum(phase.compute, comm)
        return phase.repeat * (phase.compute + comm)

    def _skeleton_network(self, plan: TermPlan, view, bandwidth):
        hops_load = (lambda r: view(self.table, r))
        total = 0.0
        for phase, collectives in self._skeleton_phases(plan):
            comm = self._message_rounds(phase, hops_load, bandwidth)
            for operation, m, off, _ in collectives:
                comm = comm + self._collective(plan, operation, m, off, view, bandwidth)
            total = total + self._phase_total(phase, comm)
        return total

    def _message_rounds(self, phase, hops_load, bandwidth=None):
        """Σ over the phase's messages sent at once: T(m, h', c') + (k - 1) g(m)."""
        comm = 0.0
        for r, m, k in phase.rounds:
            hops, load = hops_load(r)
            comm = comm + bound.round_time(m, hops, load, False, self.params, bandwidth)
            comm = comm + (k - 1) * bound.send_gap(m, self.params, bandwidth)
        return comm

    def _skeleton_torus(self, plan: TermPlan, job, view, whole: bool):
        """The skeleton term on torus jobs (rows of ``job``: partition shapes, or whole
        tori when ``whole``: the job on their first n endpoints, messages at least 1 hop)."""
        nodes = np.full(len(job), plan.nodes)
        depth = (job // 2).sum(axis=1)
        ties = ((job % 2 == 1) & (job >= 3)).sum(axis=1)
        farthest = farthest_rank(job, plan.nodes) if whole else None
        hops_load = ((lambda r: (1, 1)) if whole else (lambda r: view(None, r)))
        total = 0.0
        for phase, collectives in self._skeleton_phases(plan):
            comm = self._message_rounds(phase, hops_load)
            for operation, m, _, on in collectives:
                best = None
                for algorithm in on:
                    if algorithm in _TREES:
                        t = bound.tree_time(operation, algorithm, m, depth, ties, depth,
                                            nodes, self.params)
                    elif whole:
                        t = bound.universal_rounds_time(operation, m, nodes, farthest,
                                                        self.params)
                    else:
                        t = bound.rounds_time(algorithm_rounds(algorithm, operation,
                                                               plan.nodes),
                                              m, hops_load, self.params)
                    best = t if best is None else np.minimum(best, t)
                comm = comm + best
            total = total + self._phase_total(phase, comm)
        return np.broadcast_to(np.asarray(total, dtype=float), (len(job),))

    def _hpcg(self, plan: TermPlan) -> float:
        key = (id(plan), "hpcg")
        if key not in self._fixed:
            self._fixed[key] = bound.hpcg_compute(self.machine, plan.term.problem)
        return self._fixed[key]

    # --- tori: trees exact on the partition, point-to-point algorithms bounded -----------

    def _torus_term(self, plan: TermPlan, block: Block) -> np.ndarray:
        """A term on every torus of the block: on its partition (exact trees, the
        partition's hop counts for point-to-point rounds), or on the whole torus when no
        partition fits, on the torus's first n endpoints (exact trees,
        bound.universal_rounds_time)."""
        radices = block.params["radices"]
        if plan.kind == "hpcg":
            return plan.repeat * self._hpcg(plan) + np.zeros(len(block))
        index = self._partition(block, plan.nodes)
        total = np.zeros(len(block))
        fitted = index >= 0
        if fitted.any():
            total[fitted] = self._partition_terms(plan, radices.shape[1])[index[fitted]]
        if (~fitted).any():
            total[~fitted] = self._whole_torus_term(plan, radices[~fitted])
        return total

    def _partition(self, block: Block, nodes: int) -> np.ndarray:
        key = (id(block), nodes, "partition index")
        if key not in self._fixed:
            self._fixed[key] = partition_index(block.params["radices"], nodes)
        return self._fixed[key]

    def _partition_terms(self, plan: TermPlan, dims: int) -> np.ndarray:
        """The term's bound on every partition shape of its node count (box_shapes order)."""
        key = (id(plan), "partitions", dims)
        if key in self._fixed:
            return self._fixed[key]
        job = np.array(box_shapes(plan.nodes, dims), dtype=np.int64).reshape(-1, dims)
        view = self._fixed.setdefault(("partitions", plan.nodes, dims), TorusPartitions(job))
        if plan.kind == "skeleton":
            self._fixed[key] = self._skeleton_torus(plan, job, view, whole=False)
            return self._fixed[key]
        depth = (job // 2).sum(axis=1)
        ties = ((job % 2 == 1) & (job >= 3)).sum(axis=1)
        best = None
        for algorithm in plan.torus_algorithms:
            if algorithm in _TREES:
                t = bound.tree_time(plan.operation, algorithm, plan.m, depth, ties, depth,
                                    plan.nodes, self.params)
            else:
                t = bound.rounds_time(algorithm_rounds(algorithm, plan.operation,
                                                       plan.nodes),
                                      plan.m, lambda r: view(None, r), self.params)
            best = t if best is None else np.minimum(best, t)
        if plan.kind != "collective":
            compute, halo = self._app_fixed(plan, plan.nodes)
            if halo is not None:
                compute = compute + self._torus_halo(job, halo)
            best = plan.repeat * (compute + best)
        self._fixed[key] = np.broadcast_to(np.asarray(best, dtype=float), (len(job),))
        return self._fixed[key]

    def _whole_torus_term(self, plan: TermPlan, radices: np.ndarray) -> np.ndarray:
        """The term's n nodes on the first n endpoints of each torus (no partition fits)."""
        if plan.kind == "skeleton":
            return self._skeleton_torus(plan, radices, None, whole=True)
        nodes = np.full(len(radices), plan.nodes)
        depth = (radices // 2).sum(axis=1)
        ties = ((radices % 2 == 1) & (radices >= 3)).sum(axis=1)
        farthest = farthest_rank(radices, plan.nodes)
        best = None
        for algorithm in plan.torus_algorithms:
            if algorithm in _TREES:
                t = bound.tree_time(plan.operation, algorithm, plan.m, depth, ties, depth,
                                    nodes, self.params)
            else:
                t = bound.universal_rounds_time(plan.operation, plan.m, nodes, farthest,
                                                self.params)
            best = t if best is None else np.minimum(best, t)
        if plan.kind == "collective":
            return best
        compute, halo = self._app_fixed(plan, plan.nodes)
        if halo is not None:
            compute = compute + self._torus_halo(radices, halo, plan.nodes)
        return plan.repeat * (compute + best)

    def _torus_halo(self, radices, halo, nodes=None):
        sizes, px, py = halo
        px = np.broadcast_to(px, (len(radices),))
        py = np.broadcast_to(py, (len(radices),))
        phases = torus_halo(radices, px, py, self.ring_ties, nodes)
        return bound.torus_halo_time(sizes, px, py, phases, self.params)
