"""RCCL's newer cost model (RCCL 2.18 to 2.21, ROCm 6.0 to 6.3) transcribed as data: the
per-node-type tuning models that replaced the NCCL 2.7-era constants of ``rccl-2.7``
(:mod:`.nccl_tables`), and the table of known node types that picks one.

From RCCL 2.11 (ROCm 5.1) on, RCCL's src/graph/tuning.cc keeps one base latency table and
several *tuning models* (``rcclTuningModel``), each with its own per-step latencies by link
class (``hwLat``), bandwidth ratios by node count (``bwRatio``: the topology search's bus
bandwidth is multiplied by them in place of NCCL's caps and refinements) and correction
factors of the tree's and the ring's bandwidth by log2(bytes / 64) (27 entries, the last one
applying above). Which model a node gets is an option (``tuning=k``) of the entry of RCCL's
table of known topologies (src/graph/rome_models.cc) that the node matches: first on its
counts of GPUs, CPU NUMA nodes and NICs, the GPUs and NICs per NUMA node, and the most
xGMI peers of a GPU, then on its link matrix. A node that matches no entry takes model 0.

Read for their numbers (no code taken), AMD ROCm/rccl:

* ``rccl-2.18``: tag rocm-6.0.0 (RCCL 2.18.3, makefiles/version.mk), src/graph/tuning.cc and
  src/graph/rome_models.cc.
* ``rccl-2.20``: tag rocm-6.2.0 (RCCL 2.20.5).
* ``rccl-2.21``: the development head of 2024-10-24, commit 0cbce2a7 (RCCL 2.21.5, ROCm
  6.3).

Tuning models 0 and 3 and the base latencies are the same numbers in all three (the files
differ in columns for NVLS and in models icnperf has no node for). The versions differ in
two rules for MI300 (gfx94x) GPUs on one node: from RCCL 2.18.6 (ROCm 6.1) the tree with
Simple is not run when every rank is on one node, and from 2.20 (ROCm 6.2) the ring's LL
bandwidth for broadcast and reduce on one node is multiplied by 1.65 (:data:`CDNA3_RULES`).
PXN (a GPU reaching another GPU's NIC over xGMI) is off by default in all three
(NCCL_PXN_DISABLE's default is 1 in RCCL's src/graph/paths.cc), unlike NCCL.
"""

from __future__ import annotations

from typing import NamedTuple

TUNED_ALGORITHMS = ("tree", "ring", "collnet-direct", "collnet-chain")
"""The algorithms of RCCL's tuning models that icnperf prices (its NVLS columns are zero)."""


class TuningModel(NamedTuple):
    """One of RCCL's ``rcclTuningModel`` entries, in the source's units.
    ``step_us[link][algorithm]`` per-step latency (microseconds) by protocol (LL, LL128,
    Simple); ``bw_ratio[row][algorithm]`` the factor on the bus bandwidth, row ``"two"`` for
    one or two nodes and ``"more"`` above; the correction factors by protocol and
    log2(bytes / 64). A zero ratio means the pair is not run."""

    index: int
    step_us: dict
    bw_ratio: dict
    tree_correction: dict
    ring_correction: dict


def _rows(tree, ring, direct, chain) -> dict:
    return dict(zip(TUNED_ALGORITHMS, (tree, ring, direct, chain)))


def _factors(ll, ll128, simple) -> dict:
    return {"LL": ll, "LL128": ll128, "Simple": simple}


_PCI = _rows((2.2, 2.2, 5.7), (2.2, 2.2, 5.7), (0.0, 0.0, 5.7), (0.0, 0.0, 5.7))

MODEL_0 = TuningModel(
    index=0,
    step_us={
        "nvlink": _rows((0.8, 1.4, 2.5), (0.8, 2.2, 3.6), (0.0, 0.0, 0.8), (0.0, 0.0, 1.4)),
        "pci": _PCI,
        "net": _rows((11.8, 18.2, 20.8), (9.5, 19.8, 15.1), (0.0, 0.0, 11.8), (0.0, 0.0, 18.2)),
    },
    bw_ratio={
        "two": _rows((0.04, 0.22, 0.91), (0.04, 0.34, 1.00), (0.0, 0.0, 1.0), (0.0, 0.0, 1.0)),
        "more": _rows((0.04, 0.22, 0.95), (0.04, 0.34, 1.00), (0.0, 0.0, 1.0), (0.0, 0.0, 1.0)),
    },
    tree_correction=_factors(
        (0.1, 0.2, 0.1, 0.1, 0.9, 0.3, 0.4, 0.1, 0.2, 0.4, 0.2, 0.1, 0.3, 0.3, 0.2, 0.2, 0.2,
         0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1),
        (0.1, 0.3, 1.0, 0.1, 0.5, 1.0, 0.9, 1.0, 1.0, 1.0, 0.3, 0.1, 0.4, 0.5, 0.5, 0.4, 0.4,
         0.3, 0.3, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2),
        (0.2, 1.0, 0.1, 0.1, 0.7, 0.2, 0.4, 0.1, 0.1, 0.3, 0.4, 0.3, 0.6, 0.8, 1.0, 1.0, 1.0,
         1.0, 0.9, 0.8, 0.8, 0.8, 0.8, 0.8, 0.9, 0.9, 0.9)),
    ring_correction=_factors(
        (0.1, 0.1, 0.1, 0.1, 0.1, 0.2, 0.4, 0.2, 0.3, 0.5, 0.3, 0.1, 0.5, 0.5, 0.3, 0.2, 0.2,
         0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1),
        (0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.3, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.8,
         0.7, 0.5, 0.4, 0.4, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3),
        (1.0, 0.8, 0.2, 1.0, 1.0, 0.3, 1.0, 0.1, 0.1, 0.2, 0.2, 0.1, 0.5, 1.0, 0.8, 0.8, 1.0,
         0.9, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)),
)
"""``tuning_model_0``: RCCL's default, for a node that matches no known topology."""

MODEL_3 = TuningModel(
    index=3,
    step_us={
        "nvlink": _rows((0.8, 0.0, 2.5), (0.8, 0.0, 3.6), (0.0, 0.0, 0.8), (0.0, 0.0, 0.0)),
        "pci": _PCI,
        "net": _rows((12.5, 0.0, 22.4), (9.5, 0.0, 19.8), (0.0, 0.0, 12.5), (0.0, 0.0, 0.0)),
    },
    bw_ratio={
        "two": _rows((0.20, 0.0, 1.75), (0.20, 0.0, 1.00), (0.0, 0.0, 1.0), (0.0, 0.0, 1.0)),
        "more": _rows((0.20, 0.0, 0.96), (0.20, 0.0, 1.00), (0.0, 0.0, 1.0), (0.0, 0.0, 1.0)),
    },
    tree_correction=_factors(
        (0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 1.0, 1.0, 0.2, 1.0, 0.9, 1.0, 0.6, 0.4, 0.6, 0.4, 0.3,
         0.3, 0.3, 0.3, 0.3, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2),
        (0.0,) * 27,
        (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.1, 0.1, 0.1, 0.2, 1.0, 0.8, 1.0, 1.0, 1.0, 1.0, 1.0,
         1.0, 1.0, 1.0, 1.0, 0.8, 0.7, 0.8, 0.9, 0.7, 0.7)),
    ring_correction=_factors(
        (0.1, 0.1, 0.1, 0.1, 0.1, 0.3, 0.1, 0.2, 0.1, 0.4, 0.4, 0.2, 0.2, 0.3, 0.7, 0.5, 0.4,
         0.3, 0.3, 0.3, 0.3, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2),
        (0.0,) * 27,
        (0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.5, 1.0, 0.1, 0.3, 0.1, 0.1, 0.1, 0.2, 0.2, 0.2,
         0.3, 0.4, 0.7, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)),
)
"""``tuning_model_3``: the model of rome_model_63 and rome_model_74 (below)."""

MODELS = {model.index: model for model in (MODEL_0, MODEL_3)}
"""The tuning models transcribed (RCCL has six; 1, 2, 4 and 5 belong to node types icnperf
has no preset of: 16-GPU MI100 and MI250 nodes, 8-GPU MI300X nodes)."""


class NodeType(NamedTuple):
    """An entry of RCCL's known-topology table as icnperf can match it: the GPU
    architecture, GPUs and NICs per node, the most xGMI peers of a GPU (RCCL's ``nLinks``),
    the entries' names and the tuning model their options name."""

    architecture: str
    gpus: int
    nics: int
    peers: int
    entries: str
    tuning: int
    description: str


NODE_TYPES = (
    NodeType("cdna2", 8, 4, 3, "rome_model_63, rome_model_74", 3,
             "8 MI250X GCDs, 4 NICs, 4 CPU NUMA nodes each with 2 GCDs and 1 NIC (pattern "
             "21212121), each GCD linked to 3 others (options tuning=3); rome_model_74's "
             "NUMA nodes of GCDs {3,3,1,1,0,0,2,2} and links of 4, 2 and 1 per pair are "
             "HPE Cray EX235a's (Frontier, LUMI-G)"),
    NodeType("cdna3", 4, 4, 3, "rome_model_80", 0,
             "4 MI300A APUs, 4 NICs, one APU and one NIC per NUMA node (pattern 11111111), "
             "every pair joined by 2 links; no tuning option, so model 0"),
)
"""The known node types icnperf's presets can match (RCCL 2.18 to 2.21's rome_models.cc;
the same entries and options in the three versions). icnperf matches on architecture,
GPUs, NICs and peers only: it has no NUMA layout or PCI bus ids, which RCCL also compares."""


def node_type(architecture: str, gpus: int, nics: int, peers: int) -> NodeType | None:
    """The known node type a node of ``gpus`` GPUs of ``architecture`` with ``nics``
    distinct NICs, each GPU linked to at most ``peers`` others, matches; None (RCCL's model
    0) for any other."""
    for candidate in NODE_TYPES:
        if (candidate.architecture, candidate.gpus, candidate.nics, candidate.peers) == (
                architecture, gpus, nics, peers):
            return candidate
    return None


CDNA3_RULES = {
    "rccl-2.18": frozenset(),
    "rccl-2.20": frozenset({"tree-simple-off-on-one-node", "ring-ll-bcast-reduce-x1.65"}),
    "rccl-2.21": frozenset({"tree-simple-off-on-one-node", "ring-ll-bcast-reduce-x1.65"}),
}
"""MI300 (gfx94x) rules of each version's choice, on a communicator within one node: the
tree with Simple not run (from 2.18.6; 2.18.3 of ROCm 6.0, the one read for ``rccl-2.18``,
has it not), the ring's LL bus bandwidth of broadcast and reduce x 1.65 (from 2.20)."""

BASE_US = {"tree": (12.0, 12.0, 17.0), "ring": (12.0, 12.0, 17.0),
           "collnet-direct": (12.0, 12.0, 17.0), "collnet-chain": (12.0, 12.0, 17.0)}
"""``baseLat`` (microseconds) by protocol, the same in the three versions."""

NET_OVERHEAD_US = {"intel": 1.0, "amd": 2.0, "arm": 1.0, "other": 1.0}
"""getNetOverhead: a ring step across nodes costs at least this (x 3 with Simple), by the
host CPU's vendor (x86 AMD 2 us, else 1 us)."""

VERSIONS = {"rccl-2.18": "2.18.3 (tag rocm-6.0.0)", "rccl-2.20": "2.20.5 (tag rocm-6.2.0)",
            "rccl-2.21": "2.21.5 (commit 0cbce2a7, 2024-10-24)"}
"""The versions read, by icnperf's label (module docstring)."""
