"""A collective under ``--api nccl|rccl`` on a machine: rows of time, algbw and busbw per
node count, size and algorithm/protocol, the library's own pick (``auto``) and icnperf's
fastest (``best``), with the notes that say what was assumed.

Ranks are GPUs: ``gpus_per_node`` defaults to ``node.accelerators``. Sizes are nccl-tests'
printed sizes (:data:`.nccl.SIZE_MEANING`); times are icnperf's closed forms (:mod:`.nccl`);
``auto`` is the algorithm the library picks by its own tables (:mod:`.nccl_choice`), timed by
icnperf; ``best`` the smallest icnperf time. Units: bytes, seconds, bytes/s.
"""

from __future__ import annotations

import math

from icnperf.errors import InputError
from icnperf.model.collectives.nccl import (ALGORITHMS, FORMULAS, PROTOCOLS_OF, SIZE_MEANING,
                                            algorithm_key, available, bandwidths,
                                            display_name, evaluate_all, form,
                                            protocol_runs)
from icnperf.model.collectives.nccl_choice import library_choice
from icnperf.model.collectives.nccl_fabric import ccl_fabric, node_signature
from icnperf.model.collectives.nccl_network import network_note
from icnperf.model.collectives.nccl_pxn import pxn_route
from icnperf.model.collectives.nccl_tables import for_node, tables_for
from icnperf.model.collectives.rccl_tuning import node_type

__all__ = ["ccl_collective", "ccl_time", "closed_forms", "library_setup", "LIBRARIES"]

DEFAULT_CHANNELS = 16
"""Channels per GPU when the machine gives no ``software.ccl_channels``."""

LIBRARIES = ("nccl", "rccl")


def library_setup(machine, library: str, gpus_per_node: int | None = None):
    """(tables, channels, notes) of ``library`` on ``machine``: the tables of the machine's
    ``software.ccl_version`` when it names this library, else the default version (the
    newest transcribed); RCCL's tuned versions with the tuning model of the node type the
    used part of a node (``gpus_per_node`` GPUs, default all) matches."""
    if library not in LIBRARIES:
        raise InputError(f"--api {library}: the collective libraries are nccl and rccl")
    notes = []
    named = machine.get("software.ccl_library")
    version = machine.get("software.ccl_version") if named == library else None
    tables = tables_for(library, version)
    if named is not None and named != library:
        notes.append(f"the machine runs {named} (software.ccl_library); --api {library} "
                     "asks what the other library would do")
    if version is None or not tables.label.endswith(".".join(str(version).split(".")[:2])):
        notes.append(f"auto takes {tables.label}'s cost-model tables ({tables.source})"
                     + ("" if version is None else
                        f"; software.ccl_version {version} has none transcribed"))
    else:
        notes.append(f"auto takes {tables.label}'s tables ({tables.source})")
    if tables.bw_ratio is not None:
        tables = for_node(tables, node_type(*node_signature(machine, gpus_per_node)))
        notes.append(f"{tables.label} on this node: {tables.tuning}")
    channels = int(machine.get("software.ccl_channels", DEFAULT_CHANNELS))
    if machine.get("software.ccl_channels") is None:
        notes.append(f"auto: {DEFAULT_CHANNELS} channels per GPU assumed "
                     "(no software.ccl_channels)")
    if machine.get("node.gpu_architecture") is None:
        notes.append("auto: NCCL's Hopper caps assumed (no node.gpu_architecture)")
    return tables, channels, notes


def _row(nodes, fabric, size, name, protocol, time, operation, estimate=None, pick=None):
    algbw, busbw = bandwidths(operation, fabric.ranks, [size], [time])
    return {"nodes": nodes, "gpus": fabric.ranks, "bytes": float(size), "algorithm": name,
            "protocol": protocol, "time_s": float(time), "algbw_Bps": float(algbw[0]),
            "busbw_Bps": float(busbw[0]), "library_estimate_s": estimate, "pick": pick}


def ccl_collective(machine, operation: str, node_counts, sizes, algorithm: str,
                   library: str, gpus_per_node: int | None = None):
    """Rows (dicts) and notes of ``operation`` for every node count and size under
    ``algorithm``: ``all`` (every algorithm and protocol, then auto and best), ``auto``,
    ``best``, or one algorithm (nccl-ring, nccl-tree, nvls, nvls-tree, collnet, pat, p2p;
    rccl-ring, rccl-tree for RCCL) with all its protocols."""
    tables, channels, notes = library_setup(machine, library, gpus_per_node)
    text = algorithm.strip().lower()
    chosen = None if text in ("all", "auto", "best") else algorithm_key(text, library)
    rows = []
    relayed = None
    for nodes in node_counts:
        fabric = ccl_fabric(machine, int(nodes), gpus_per_node)
        relayed = relayed or _pxn_note(fabric, tables, operation)
        results = evaluate_all(fabric, tables, operation, sizes, library)
        routed = network_note(fabric, operation, dict.fromkeys(r.algorithm for r in results),
                              nodes, tables.pxn)
        notes += [routed] if routed else []
        if chosen is not None:
            reason = available(chosen, operation, fabric, library)
            if reason is not None:
                raise InputError(f"{display_name(chosen, library)} on {nodes} node(s): "
                                 f"{reason}")
        for i, size in enumerate(sizes):
            fastest = min(results, key=lambda r: r.time[i])
            if text in ("all",) or chosen is not None:
                rows += [_row(nodes, fabric, size, display_name(r.algorithm, library),
                              r.protocol, r.time[i], operation) for r in results
                         if chosen is None or r.algorithm == chosen]
            if text in ("all", "auto"):
                pick = library_choice(tables, fabric, operation, float(size), library,
                                      channels)
                time = form(fabric, tables, operation, pick.algorithm,
                            pick.protocol).time([size])[0]
                label = f"{display_name(pick.algorithm, library)}/{pick.protocol}"
                rows.append(_row(nodes, fabric, size, "auto", pick.protocol, time, operation,
                                 None if math.isnan(pick.estimate) else pick.estimate, label))
            if text in ("all", "best", "auto"):
                label = f"{display_name(fastest.algorithm, library)}/{fastest.protocol}"
                rows.append(_row(nodes, fabric, size, "best", fastest.protocol,
                                 fastest.time[i], operation, pick=label))
    notes = [f"ranks are GPUs, {gpus_per_node or 'node.accelerators'} per node; size = "
             f"{SIZE_MEANING[operation]} (nccl-tests' printed size)",
             "algbw = size / time; busbw = algbw x nccl-tests' factor for "
             f"{operation}", *notes,
             f"auto: the algorithm {library.upper()} picks by its own cost model, timed by"
             " icnperf; best: icnperf's fastest; the pick column names each",
             "tree: NCCL's double binary tree between domains and a chain inside one; this "
             "is what --hierarchy means under NCCL"]
    if relayed:
        notes.append(relayed)
    return rows, notes


def _pxn_note(fabric, tables, operation: str) -> str | None:
    """The note of PXN where it relays this operation's inter-node steps on ``fabric``."""
    algorithm = "p2p" if operation in ("alltoall", "sendrecv") else "ring"
    relay = pxn_route(fabric, tables.pxn, operation, algorithm)
    if not relay.applies:
        return None
    return (f"PXN ({algorithm} across domains): {relay.reason}, one more scale-up hop "
            f"before the NIC ({relay.relay_latency * 1e6:.3g} us of node.scaleup_latency), "
            "so the inter-node traffic " + ("stays on its rail" if relay.rail_aligned else
                                            "stays on its rail where a relay is linked"))


def closed_forms(machine, operation: str, nodes: int, library: str,
                 gpus_per_node: int | None = None):
    """explain: for each algorithm, its closed form, whether it runs here (and why not) and
    its parameter values on ``nodes`` nodes: [(algorithm, formula, reason or None,
    {symbol: value})]."""
    tables, _, _ = library_setup(machine, library, gpus_per_node)
    fabric = ccl_fabric(machine, nodes, gpus_per_node)
    out = []
    for algorithm in ALGORITHMS:
        formula = FORMULAS.get((algorithm, operation))
        if formula is None:
            continue
        reason = available(algorithm, operation, fabric, library)
        values = {}
        if reason is None:
            for protocol in PROTOCOLS_OF[algorithm]:
                if not protocol_runs(tables, algorithm, protocol):
                    continue
                f = form(fabric, tables, operation, algorithm, protocol)
                values[protocol] = f
        out.append((display_name(algorithm, library), formula, reason, values))
    return fabric, tables, out




def ccl_time(machine, ranks: int, gpus_per_node: int, operation: str, size: float,
             algorithm: str, library: str) -> tuple[float, str]:
    """(time s, what ran) of one library collective over a communicator of ``ranks`` GPUs
    packed onto nodes of ``gpus_per_node`` (the skeletons' collective phases):
    ``ranks`` <= ``gpus_per_node`` is one node's GPUs, otherwise ceil(ranks /
    gpus_per_node) whole nodes. ``algorithm`` auto (the library's pick), best (icnperf's
    fastest) or one algorithm at its fastest protocol."""
    if ranks < 2 or size <= 0:
        return 0.0, "nothing to do"
    nodes = 1 if ranks <= gpus_per_node else math.ceil(ranks / gpus_per_node)
    per_node = min(ranks, gpus_per_node)
    tables, channels, _ = library_setup(machine, library, per_node)
    fabric = ccl_fabric(machine, nodes, per_node)
    text = algorithm.strip().lower()
    if text == "auto":
        pick = library_choice(tables, fabric, operation, float(size), library, channels)
        time = form(fabric, tables, operation, pick.algorithm, pick.protocol).time([size])[0]
        return float(time), f"{display_name(pick.algorithm, library)}/{pick.protocol} (auto)"
    results = evaluate_all(fabric, tables, operation, [size], library)
    if text != "best":
        key = algorithm_key(text, library)
        reason = available(key, operation, fabric, library)
        if reason is not None:
            raise InputError(f"{display_name(key, library)}: {reason}")
        results = [r for r in results if r.algorithm == key]
    fastest = min(results, key=lambda r: r.time[0])
    label = f"{display_name(fastest.algorithm, library)}/{fastest.protocol}"
    return float(fastest.time[0]), label + (" (best)" if text == "best" else "")
