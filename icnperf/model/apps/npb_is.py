"""NPB IS (integer sort) on a fat-tree cluster: placement (nodes x processes per node).

Source: Peryshkova, "Forming subsystems of machines in clusters built on compound
switches" (Peryshkova): NPB IS classes C and D run on 4-64 processes placed as nodes x
processes-per-node on InfiniBand QDR and Gigabit Ethernet fat trees; contention for the
node's adapter, links and switch ports decides the best placement. Benchmark structure
from the NAS Parallel Benchmarks 3.x MPI ``IS/is.c`` (Bailey et al., NAS-95-020):

* keys: :data:`CLASSES` (S 2^16 ... C 2^27, D 2^31), 4-byte integers, block-distributed
  (n = N / P per process; P must be a power of two, as is.c requires);
* ``rank()`` is called once untimed ("one iteration for free") and then
  ``MAX_ITERATIONS`` = 10 times timed. Peryshkova measured the whole run time
  ("время выполнения программы"), so :data:`CHARGED_ITERATIONS` = 11 iterations are
  charged; key generation and the final verification are folded into the per-key compute
  parameter;
* per iteration: local bucket counting, an all-reduce of the 1024 bucket sizes (+5 test
  ints), an all-to-all of the send counts (one int per pair), an all-to-all(v) of the keys
  (each process sends (P - 1)/P of its n keys, 4 bytes each), local ranking.

Model, per iteration, for N_n nodes, p processes per node, P = N_n p, n = N / P (every
term is derived here; θ are the fitted contention parameters):

    T_iter = θ_c · n                                   local sort (per process)
           + θ_a · p · 4n (P - p)/P / B_link           keys through the node's adapter
           + θ_u · X_leaf / B_link                     keys through a leaf switch's uplink
           + θ_o · 2 p (P - p)                         per-message adapter cost
           + 4 · p · 4n (p - 1)/P / B_mem              intra-node exchange (shared memory)
           + 2 (P - 1) · L_mpi + 2 ceil(lg P) · L_mpi  message latencies (a2a x2, all-reduce)

* adapter: the p processes of a node share one adapter (network.shared_bandwidth: each
  gets B_link / p), so a process's inter-node bytes take p times as long; θ_a = 1 /
  adapter efficiency;
* per-message cost: the node's adapter handles the 2 p (P - p) inter-node messages of the
  two all-to-alls one after another (network.sharing_delay generalised: (k - 1) T for k
  messages, with the per-message time θ_o fitted);
* switch/uplink: nodes fill leaf switches of L nodes in order; a leaf's uplink carries the
  bytes its nodes send to nodes of other leaves, X_leaf = Σ_leaf node_out · (N_n - L_used)
  / (N_n - 1); θ_u = uplink contention (1 = one link's bandwidth for the whole leaf). L is
  the one discrete parameter: the fat tree's ports per leaf are not given by Peryshkova, so
  L is chosen by the fit from :data:`LEAF_SIZES`;
* intra-node: shared-memory MPI copies each byte twice (into and out of the shared
  buffer), each copy a read and a write: 4 bytes of memory traffic per byte, at the node
  memory bandwidth (node.memory_bandwidth, else :data:`DEFAULT_MEMORY_BANDWIDTH`), not
  fitted;
* latencies: the preset's software.mpi_latency per message on the critical path.

The model is linear in θ = (θ_c, θ_a, θ_u, θ_o) for a fixed L, so the fit is a
non-negative linear least squares (scipy.optimize.lsq_linear) on **relative** residuals
(pred - measured) / measured over the included rows, repeated for each L.

Collectives: collectives.collective_time is not used here: it models tori and crossbars
only, and the fat-tree presets (ib-qdr-cluster, gige-cluster) lack its packet keys (flit
size, injection latency); the all-to-all is therefore charged directly with model.network's
sharing formulas (:func:`network.shared_bandwidth`, :func:`network.sharing_delay`).
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import NamedTuple

import numpy as np

from icnperf.errors import InputError
from icnperf.model import network
from icnperf.model.apps.base import AppResult

__all__ = ["CHARGED_ITERATIONS", "CLASSES", "DEFAULT_MEMORY_BANDWIDTH", "LEAF_SIZES",
           "TABLES_FOR_MACHINE", "Fit", "GroupResult", "LogoRecord", "Params", "features",
           "fit", "fit_rows", "kendall_pairs", "leave_one_group_out", "placements",
           "predict", "rank_placements"]

CLASSES = {"S": 2 ** 16, "W": 2 ** 20, "A": 2 ** 23, "B": 2 ** 25, "C": 2 ** 27,
           "D": 2 ** 31}
"""Total keys per class (NPB 3.x ``IS/npbparams`` / is.c TOTAL_KEYS_LOG_2)."""

KEY_BYTES = 4
TIMED_ITERATIONS = 10
CHARGED_ITERATIONS = TIMED_ITERATIONS + 1
"""10 timed iterations + 1 untimed warm-up ``rank(1)``; the paper measured the whole run."""

BUCKET_INTS = 1024 + 5
LEAF_SIZES = (2, 4, 8, 16, 32)
DEFAULT_MEMORY_BANDWIDTH = 20e9
"""Assumed when the machine has no node.memory_bandwidth (Peryshkova names no hardware): a
two-socket node of the period (2009-2013) streams about 20-40 GB/s (STREAM); the lower end
taken."""

TABLES_FOR_MACHINE = {
    "ib-qdr-cluster": ("npb-is-ib-qdr-class-c", "npb-is-ib-qdr-class-d"),
    "gige-cluster": ("npb-is-gige-class-c",),
}
"""Bundled Peryshkova tables measured on each preset's cluster (the caller loads them)."""


class Params(NamedTuple):
    """Contention parameters: θ_c (s per key per process), θ_a (1 / adapter efficiency),
    θ_u (uplink contention), θ_o (s per inter-node message at the adapter), leaf (nodes
    per leaf switch)."""

    compute: float = 15e-9
    adapter: float = 1.0
    uplink: float = 1.0
    message: float = 0.0
    leaf: int = 4


def _keys(klass) -> int:
    name = str(klass).strip().upper()
    if name not in CLASSES:
        raise InputError(f"unknown NPB IS class {klass!r}; choose one of "
                         f"{', '.join(CLASSES)}")
    return CLASSES[name]


def _check_placement(nodes, ppn):
    for what, v in (("nodes", nodes), ("processes per node", ppn)):
        if not (isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1):
            raise InputError(f"{what} must be a whole number >= 1, not {v!r}")
    procs = int(nodes) * int(ppn)
    if procs & (procs - 1):
        raise InputError(f"NPB IS needs a power-of-two number of processes, not {procs}")


def _machine_values(machine):
    bw = machine.require("network.link_bandwidth")
    lat = machine.get("software.mpi_latency") or 0.0
    mem = machine.get("node.memory_bandwidth") or DEFAULT_MEMORY_BANDWIDTH
    return float(bw), float(lat), float(mem)


def features(nodes, ppn, total_keys, *, link_bandwidth, mpi_latency, memory_bandwidth,
             leaf) -> tuple[np.ndarray, float, float]:
    """(X, fixed_comm, intra) per charged run: T_total = X · θ + fixed_comm + intra, where
    X = (X_c, X_a, X_u, X_o) multiply (θ_c, θ_a, θ_u, θ_o); all already times
    :data:`CHARGED_ITERATIONS`."""
    nodes, ppn = int(nodes), int(ppn)
    P = nodes * ppn
    n = total_keys / P
    inter_per_proc = KEY_BYTES * n * (P - ppn) / P
    # a process's inter-node bytes at its share of the adapter: B_link / p
    adapter = inter_per_proc / network.shared_bandwidth(link_bandwidth, ppn)
    node_out = ppn * inter_per_proc
    cross = 0.0
    if nodes > leaf:
        first = min(leaf, nodes)
        cross = first * node_out * (nodes - first) / (nodes - 1)
    uplink = cross / link_bandwidth
    messages = 2 * ppn * (P - ppn)
    intra_bytes = ppn * KEY_BYTES * n * (ppn - 1) / P
    intra = 4 * intra_bytes / memory_bandwidth
    latency = (2 * (P - 1) + 2 * math.ceil(math.log2(P))) * mpi_latency if P > 1 else 0.0
    k = CHARGED_ITERATIONS
    X = np.array([n, adapter, uplink, messages], dtype=float) * k
    return X, k * latency, k * intra


def predict(machine, nodes, processes_per_node, klass="C", params: Params | None = None
            ) -> AppResult:
    """NPB IS run on ``nodes`` x ``processes_per_node`` (see the module formulas).
    compute_s = θ_c n; collective_s = everything exchanged (the two all-to-alls, the
    all-reduce, intra-node copies); p2p_s = 0 (IS's only point-to-point message, the
    boundary key of the final verification, is not charged)."""
    _check_placement(nodes, processes_per_node)
    params = params or Params()
    N = _keys(klass)
    bw, lat, mem = _machine_values(machine)
    X, fixed, intra = features(nodes, processes_per_node, N, link_bandwidth=bw,
                               mpi_latency=lat, memory_bandwidth=mem, leaf=params.leaf)
    theta = np.array(params[:4], dtype=float)
    k = CHARGED_ITERATIONS
    compute = float(X[0] * theta[0]) / k
    comm = (float(X[1:] @ theta[1:]) + float(fixed) + float(intra)) / k
    P = int(nodes) * int(processes_per_node)
    notes = (
        f"NPB IS class {str(klass).upper()}: {N} keys of {KEY_BYTES} B, {P} processes, "
        f"{N / P:.0f} keys each; {k} iterations charged (10 timed + 1 untimed; the source "
        "measured the whole run)",
        "per iteration: all-reduce of 1029 bucket ints, all-to-all of counts, "
        "all-to-all(v) of keys ((P-1)/P of each process's keys), local bucket sort",
        f"contention parameters: compute {params.compute:.3g} s/key, adapter "
        f"{params.adapter:.3g} x B_link/p, uplink {params.uplink:.3g}, message "
        f"{params.message:.3g} s, leaf {params.leaf} nodes",
        f"intra-node exchange through shared memory at {mem / 1e9:g} GB/s (4 B of memory "
        "traffic per byte)",
    )
    return AppResult("npb-is", int(nodes), f"{nodes}x{processes_per_node}", "alltoallv",
                     k, compute, 0.0, comm, compute + comm, k * (compute + comm), 0.0, notes)


def placements(machine, procs: int) -> list[tuple[int, int]]:
    """Every (nodes, ppn) with nodes x ppn = procs, ppn <= node.cores (if known) and nodes
    <= the topology's endpoints (if it can be parsed)."""
    if not (isinstance(procs, (int, np.integer)) and procs >= 1) or procs & (procs - 1):
        raise InputError(f"NPB IS needs a power-of-two number of processes, not {procs!r}")
    cores = machine.get("node.cores") or procs
    limit = procs
    try:
        from icnperf.model.topology.spec import parse_spec

        spec = parse_spec(machine.topology)
        limit = int(spec.family.endpoints(spec.params))
    except (InputError, ValueError, TypeError):
        limit = procs  # a topology without an endpoint count leaves the limit open
    out = []
    ppn = 1
    while ppn <= procs:
        nodes = procs // ppn
        if ppn <= cores and nodes <= limit:
            out.append((nodes, ppn))
        ppn *= 2
    if not out:
        raise InputError(f"{procs} processes do not fit {machine.name!r} "
                         f"({cores} cores per node)")
    return out


def rank_placements(machine, klass, procs, params: Params | None = None
                    ) -> list[tuple[int, int, float]]:
    """(nodes, ppn, predicted total s) for every placement, fastest first. ``params``: a
    fit (``fit(table, machine).params``) of the machine's bundled tables
    (:data:`TABLES_FOR_MACHINE`); the uncalibrated :class:`Params` defaults otherwise."""
    _keys(klass)
    rows = [(n, p, float(predict(machine, n, p, klass, params).total_s))
            for n, p in placements(machine, procs)]
    return sorted(rows, key=lambda r: (r[2], r[0]))


# --- fitting ----------------------------------------------------------------------------


class Fit(NamedTuple):
    params: Params
    rms_relative: float
    rows: int


def _class_of(table) -> str:
    name = getattr(table, "name", "")
    for k in CLASSES:
        if name.lower().endswith(f"class-{k.lower()}"):
            return k
    raise InputError(f"cannot tell the NPB IS class of table {name!r}; pass klass")


def _table_rows(table):
    t = table.included()
    return [(int(r["nodes"]), int(r["processes_per_node"]), float(r["total_s"]))
            for r in t.rows()]


def fit_rows(rows, machine, klass, *, leaf_sizes=LEAF_SIZES) -> Fit:
    """Least-squares fit of θ (non-negative; relative residuals) and the leaf size to
    ``rows`` = [(nodes, ppn, measured total s)]."""
    from scipy.optimize import lsq_linear

    if len(rows) < 1:
        raise InputError("no rows to fit")
    N = _keys(klass)
    bw, lat, mem = _machine_values(machine)
    best = None
    for leaf in leaf_sizes:
        A, b = [], []
        for nodes, ppn, measured in rows:
            X, fixed, intra = features(nodes, ppn, N, link_bandwidth=bw, mpi_latency=lat,
                                       memory_bandwidth=mem, leaf=leaf)
            A.append(X / measured)
            b.append((measured - fixed - intra) / measured)
        A, b = np.array(A), np.array(b)
        scale = np.maximum(np.abs(A).max(axis=0), 1e-300)
        res = lsq_linear(A / scale, b, bounds=(0, np.inf), method="bvls")
        theta = res.x / scale
        rms = float(np.sqrt(np.mean((A @ theta - b) ** 2)))
        if best is None or rms < best.rms_relative - 1e-12:
            best = Fit(Params(*map(float, theta), leaf), rms, len(rows))
    return best


def fit(table, machine, klass=None, **kw) -> Fit:
    """:func:`fit_rows` on a MeasurementTable's included rows."""
    return fit_rows(_table_rows(table), machine, klass or _class_of(table), **kw)


# --- leave one process-count group out --------------------------------------------------


class GroupResult(NamedTuple):
    procs: int
    rows: tuple[tuple[int, int, float, float], ...]   # nodes, ppn, measured, predicted
    params: Params
    concordant: int
    discordant: int
    pairs: int
    best_measured: tuple[int, int]
    best_predicted: tuple[int, int]
    hit: bool | None                                  # None: a single row


class LogoRecord(NamedTuple):
    table: str
    machine: str
    klass: str
    groups: tuple[GroupResult, ...]
    concordant: int
    discordant: int
    pairs: int
    tau: float                                        # pooled (C - D) / pairs
    hits: int
    contested: int                                    # groups with >= 2 rows
    median_abs_rel_error: float


def kendall_pairs(measured, predicted) -> tuple[int, int, int]:
    """(concordant, discordant, pairs) over all pairs; a tie on either side counts as
    neither (so tau = (C - D) / pairs is Kendall's tau-a)."""
    c = d = 0
    pairs = 0
    for i, j in combinations(range(len(measured)), 2):
        pairs += 1
        s = np.sign(measured[i] - measured[j]) * np.sign(predicted[i] - predicted[j])
        c += s > 0
        d += s < 0
    return int(c), int(d), pairs


def leave_one_group_out(table, machine, klass=None, *, leaf_sizes=LEAF_SIZES,
                        fitter=None) -> LogoRecord:
    """For each process count of the table's included rows: fit on the other process
    counts only, predict the held-out rows' totals; pooled Kendall tau over pairs within
    each group and whether each group's fastest placement is predicted fastest.
    ``fitter(rows, machine, klass)`` replaces :func:`fit_rows` (tests)."""
    klass = klass or _class_of(table)
    rows = _table_rows(table)
    fitter = fitter or (lambda r, m, k: fit_rows(r, m, k, leaf_sizes=leaf_sizes))
    groups = []
    errors = []
    for procs in sorted({n * p for n, p, _ in rows}):
        held = [r for r in rows if r[0] * r[1] == procs]
        train = [r for r in rows if r[0] * r[1] != procs]
        if not train:
            raise InputError(f"table {table.name}: only one process-count group")
        params = fitter(train, machine, klass).params
        pred = [predict(machine, n, p, klass, params).total_s for n, p, _ in held]
        meas = [m for _, _, m in held]
        c, d, pairs = kendall_pairs(meas, pred)
        bm = held[int(np.argmin(meas))][:2]
        bp = held[int(np.argmin(pred))][:2]
        errors += [abs(p - m) / m for p, m in zip(pred, meas)]
        groups.append(GroupResult(procs, tuple((n, p, m, q) for (n, p, m), q
                                               in zip(held, pred)),
                                  params, c, d, pairs, bm, bp,
                                  None if len(held) < 2 else bm == bp))
    C = sum(g.concordant for g in groups)
    D = sum(g.discordant for g in groups)
    pairs = sum(g.pairs for g in groups)
    contested = [g for g in groups if g.hit is not None]
    return LogoRecord(table.name, machine.name, str(klass).upper(), tuple(groups), C, D,
                      pairs, (C - D) / pairs if pairs else float("nan"),
                      sum(bool(g.hit) for g in contested), len(contested),
                      float(np.median(errors)))
