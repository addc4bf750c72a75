"""The cost-model constants NCCL and RCCL ship for their own algorithm choice, transcribed as
data by library version (what ``--algorithm auto`` applies in :mod:`.nccl_choice`).

Each library estimates a collective's time as ``latency + bytes / bandwidth`` per
(operation, algorithm, protocol) and runs the smallest. The latency is a base launch latency
plus per-step hardware latencies by link class (NVLink, PCI, network); the bandwidth is the
topology search's channel bandwidth times refinement factors and caps by GPU generation.
These are the library's stated values (microseconds and GB/s in its source), kept here in
SI units (seconds, bytes/s). They are not icnperf's cost: icnperf prices the picked
algorithm with its own closed form (:mod:`.nccl`).

Sources (read for their numbers; no code taken):

* ``nccl-2.30``: NVIDIA NCCL 2.30.7, src/graph/tuning.cc (ncclTunerConstantsDefaults:
  baseLatencies, hwLatencies, llMaxBws, perChMaxRingLL128Bws, perChMaxTreeLL128Bws,
  perChMaxTreeBws, perChMaxNVLSTreeBws; nvlsEfficiency; treeCorrectionFactor; the network
  overhead of getNetOverhead: 1 us on Intel and other hosts, 2 us on AMD x86 hosts).
* ``rccl-2.7``: AMD RCCL's src/graph/tuning.cc as stored with "Modifications Copyright (c)
  2019-2020 Advanced Micro Devices" (the NCCL 2.7-era model: tree, ring and collnet only;
  baseLat, hwLat, ll128MaxBwPerCh, treeCorrectionFactor and ringCorrectionFactor), as in
  RCCL 2.7.8 (tag rocm-3.10.0).
* ``rccl-2.18``, ``rccl-2.20``, ``rccl-2.21``: RCCL's per-node-type tuning models
  (:mod:`.rccl_tuning`), resolved for a node by :func:`for_node`.

``pxn``: whether the version routes a GPU's inter-node data through a peer GPU's NIC by
default (:mod:`.nccl_pxn`): NCCL since 2.12 (NCCL_PXN_DISABLE's default 0, src/graph/paths.cc
of 2.30.7), not RCCL (its default 1, src/graph/paths.cc of 2.18 to 2.21).
"""

from __future__ import annotations

from typing import NamedTuple

from icnperf.model.collectives import rccl_tuning

US = 1e-6
GBS = 1e9

PROTOCOLS = ("LL", "LL128", "Simple")
"""NCCL's protocols, in the order of its tables."""

LINKS = ("nvlink", "pci", "net")
"""The link classes of the per-step latency tables: the scale-up fabric (NVLink, xGMI), a
PCIe path, the network."""


class LibraryTables(NamedTuple):
    """One library version's stated cost-model constants (SI units).

    ``base[algorithm][protocol]`` launch latency (s); ``step[link][algorithm][protocol]``
    latency per step on a link class (s); ``ll_max[index1][index2]`` LL bus-bandwidth caps
    (bytes/s; index1 the GPU generation on one node, the host CPU vendor across nodes,
    index2 1, 2 or more nodes); ``ring_ll128[gen][index2]``, ``tree_ll128``, ``tree``,
    ``nvls_tree`` per-channel caps (bytes/s); ``nvls_efficiency[gen]``;
    ``tree_correction[protocol]`` factors on the tree's bandwidth by log2(bytes/64);
    ``ring_correction`` the same for the ring (RCCL only); ``net_overhead[cpu_vendor]``
    per-step network posting overhead (s); ``algorithms``: those the version has.
    RCCL's tuned versions (:mod:`.rccl_tuning`) add ``bw_ratio[row][algorithm]`` (factors on
    the bus bandwidth, row ``two`` up to two nodes, ``more`` above; a zero: not run),
    ``tuning`` (which tuning model the step latencies and factors are, and why) and
    ``cdna3_rules`` (their MI300 rules). ``pxn``: PXN on by default."""

    label: str
    source: str
    algorithms: tuple[str, ...]
    base: dict
    step: dict
    ll_max: tuple | None
    ring_ll128: dict | None
    tree_ll128: dict | None
    tree: dict | None
    nvls_tree: dict | None
    nvls_efficiency: dict
    tree_correction: dict
    ring_correction: dict | None
    net_overhead: dict
    bw_ratio: dict | None = None
    tuning: str = ""
    cdna3_rules: frozenset = frozenset()
    pxn: bool = False


def _scaled(table: dict, factor: float) -> dict:
    return {key: (_scaled(value, factor) if isinstance(value, dict)
                  else tuple(v * factor for v in value)) for key, value in table.items()}


GENERATIONS = ("volta", "ampere", "hopper", "blackwell")
"""NVIDIA GPU generations NCCL's caps are indexed by (compute capability 7.x, 8.x, 9.x,
10.x and later); ``node.gpu_architecture`` names them."""

NCCL_2_30 = LibraryTables(
    label="nccl-2.30",
    source="NVIDIA NCCL 2.30.7, src/graph/tuning.cc (ncclTunerConstantsDefaults)",
    algorithms=("tree", "ring", "collnet-direct", "collnet-chain", "nvls", "nvls-tree", "pat"),
    base=_scaled({"tree": (6.8, 14.0, 8.4), "ring": (6.6, 14.0, 8.4),
                  "collnet-direct": (0, 0, 0), "collnet-chain": (0, 0, 0),
                  "nvls": (0, 0, 0), "nvls-tree": (0, 0, 0), "pat": (8.0, 8.0, 8.0)}, US),
    step=_scaled({
        "nvlink": {"tree": (0.6, 1.25, 4.0), "ring": (0.6, 1.9, 3.4),
                   "collnet-direct": (0, 0, 3.7), "collnet-chain": (0, 0, 2.8),
                   "nvls": (0, 0, 25), "nvls-tree": (0, 0, 25), "pat": (0, 0, 4.0)},
        "pci": {"tree": (1.0, 1.9, 4.0), "ring": (1.0, 2.5, 5.7),
                "collnet-direct": (0, 0, 3.7), "collnet-chain": (0, 0, 2.8),
                "nvls": (0, 0, 0), "nvls-tree": (0, 0, 0), "pat": (0, 0, 4.0)},
        "net": {"tree": (5.0, 8.5, 14), "ring": (2.7, 4.0, 14.0),
                "collnet-direct": (0, 0, 31), "collnet-chain": (0, 0, 30),
                "nvls": (0, 0, 18), "nvls-tree": (0, 0, 20.9), "pat": (0, 0, 14)},
    }, US),
    # rows: on one node the GPU generation; across nodes 0 = Intel (and other) hosts, 1 = AMD
    ll_max=tuple(tuple(v * GBS for v in row) for row in (
        (39.0, 39.0, 20.4), (87.7, 22.5, 19.0), (141.0, 45.0, 35.0), (282.0, 90.0, 70.0))),
    ring_ll128=_scaled({"volta": (20.0, 20.0, 20.0), "ampere": (20.0, 20.0, 20.0),
                        "hopper": (36.7, 36.7, 36.7), "blackwell": (40.0, 40.0, 40.0)}, GBS),
    tree_ll128=_scaled({"volta": (20.0, 20.0, 20.0), "ampere": (20.0, 20.0, 20.0),
                        "hopper": (36.7, 36.7, 29.0), "blackwell": (55.6, 31.67, 20.0)}, GBS),
    tree=_scaled({"volta": (26.5, 18.5, 10.0), "ampere": (24.0, 23.6, 17.8),
                  "hopper": (38.7, 41.4, 36.0), "blackwell": (70.0, 42.8, 24.0)}, GBS),
    nvls_tree=_scaled({"volta": (26.5, 18.5, 10.0), "ampere": (24.0, 23.6, 17.8),
                       "hopper": (0.0, 57.7, 45.5), "blackwell": (0.0, 96.0, 80.0)}, GBS),
    nvls_efficiency={"volta": 0.0, "ampere": 0.0, "hopper": 0.85, "blackwell": 0.74},
    tree_correction={
        "LL": (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9,
               1.0, 1.0, 1.0, 1.0, 1.0),
        "LL128": (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9,
                  .9, .9, .9, 1.0, 1.0, 1.0),
        "Simple": (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7,
                   .7, .8, .9, .9, .9)},
    ring_correction=None,
    net_overhead={"intel": 1.0 * US, "amd": 2.0 * US, "arm": 1.0 * US, "other": 1.0 * US},
    pxn=True,
)
"""NCCL 2.30's defaults (module docstring)."""

_RCCL_CORRECTION = (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, .84, .49, .42, .60, .75, .87, .94, .94,
                    .99, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)

RCCL_2_7 = LibraryTables(
    label="rccl-2.7",
    source="AMD RCCL, src/graph/tuning.cc (2019-2020 modifications of NCCL 2.7's model)",
    algorithms=("tree", "ring", "collnet-direct"),
    base=_scaled({"tree": (37.9, 37.9, 40.4), "ring": (20.5, 20.5, 27.9),
                  "collnet-direct": (37.9, 37.9, 40.4)}, US),
    step=_scaled({
        "nvlink": {"tree": (1.2, 1.2, 3.8), "ring": (2.3, 2.3, 2.7),
                   "collnet-direct": (1.2, 1.2, 3.8)},
        "pci": {"tree": (2.2, 2.2, 5.7), "ring": (1.3, 1.3, 1.9),
                "collnet-direct": (2.2, 2.2, 5.7)},
        "net": {"tree": (9.8, 9.8, 19.5), "ring": (2.0, 2.0, 4.5),
                "collnet-direct": (9.8, 9.8, 19.5)},
    }, US),
    ll_max=None, ring_ll128=None, tree_ll128=None, tree=None, nvls_tree=None,
    nvls_efficiency={},
    tree_correction={
        "LL": _RCCL_CORRECTION, "LL128": _RCCL_CORRECTION,
        "Simple": (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, .41, .27, .25, .39, .46, .72, .76, .87, .92,
                   .97, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)},
    ring_correction={
        "LL": (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, .25, .41, .55, .56, .78, .94, 1.0, 1.0, 1.0, 1.0,
               1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
        "LL128": (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, .25, .41, .55, .56, .78, .94, 1.0, 1.0, 1.0,
                  1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
        "Simple": (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, .04, .08, .09, .09, .11, .13, .25, .40, .59,
                   .76, .86, 1.0, 1.0, 1.0, 1.0, 1.0)},
    net_overhead={},
)
"""RCCL's model as read (module docstring): LL128 per-channel caps by operation
(broadcast 18.8, reduce 12.0, all-gather 18.3, reduce-scatter 15.2, all-reduce 16.7 GB/s)
are in :data:`RCCL_LL128_PER_CHANNEL`."""

RCCL_LL128_PER_CHANNEL = {"broadcast": 18.8 * GBS, "reduce": 12.0 * GBS,
                          "allgather": 18.3 * GBS, "reducescatter": 15.2 * GBS,
                          "allreduce": 16.7 * GBS}
"""RCCL 2.7-era ll128MaxBwPerCh by operation (bytes/s per channel)."""

LINK_RATES = {"volta": (20.0, 25.0), "ampere": (20.0, 25.0), "hopper": (20.6, 25.0),
              "blackwell": (40.1, 50.0), "cdna2": (36.0, 50.0), "cdna3": (48.0, 64.0)}
"""The rate one scale-up link moves under the library, by GPU generation, against the link's
signalling rate per direction: (stated GB/s, nominal GB/s). Stated: the per-link bandwidth the
library's topology search assigns a link (NCCL 2.30.7 src/graph/topo.h: SM70_NVLINK_BW 20.0,
SM80 20.0, SM90 20.6, SM100 40.1; RCCL src/graph/topo.h, 2024: MI200_XGMI_WIDTH 36.0,
GFX94X_XGMI_WIDTH 48.0). Nominal: NVLink 2, 3 and 4 move 25 GB/s per direction per link,
NVLink 5 50 GB/s (NVIDIA's V100, A100, H100 and Blackwell architecture whitepapers, 2017-2024);
MI250X's Infinity Fabric link 50 GB/s (AMD CDNA 2 whitepaper, 2021); MI300's 64 GB/s (AMD
CDNA 3 whitepaper, 2023: 128 GB/s bidirectional per x16 link). Their ratio is the fraction of
the link rate the library's kernels reach on it (:func:`link_efficiency`)."""


def link_efficiency(architecture: str) -> float:
    """Stated / nominal per-link rate of :data:`LINK_RATES` for ``architecture``; 1 for a
    generation the libraries do not state (e.g. xe-hpc), the nominal rate then bounding."""
    stated, nominal = LINK_RATES.get(architecture, (1.0, 1.0))
    return stated / nominal


def _tuned(label: str) -> LibraryTables:
    """An RCCL tuned version's tables with tuning model 0 (RCCL's for an unknown node)."""
    return for_node(LibraryTables(
        label=label, source=f"AMD RCCL {rccl_tuning.VERSIONS[label]}, src/graph/tuning.cc "
        "(baseLat, rcclTuningModel) and src/graph/rome_models.cc",
        algorithms=("tree", "ring", "collnet-direct", "collnet-chain"),
        base=_scaled(rccl_tuning.BASE_US, US), step={}, ll_max=None, ring_ll128=None,
        tree_ll128=None, tree=None, nvls_tree=None, nvls_efficiency={}, tree_correction={},
        ring_correction=None,
        net_overhead={cpu: value * US for cpu, value in rccl_tuning.NET_OVERHEAD_US.items()},
        cdna3_rules=rccl_tuning.CDNA3_RULES[label]), None)


def for_node(tables: LibraryTables, node: rccl_tuning.NodeType | None) -> LibraryTables:
    """An RCCL tuned version's ``tables`` with the tuning model of the known node type
    ``node`` (:func:`.rccl_tuning.node_type`; None: model 0, RCCL's default): its per-step
    latencies (s), bandwidth ratios and correction factors."""
    model = rccl_tuning.MODELS[node.tuning if node is not None else 0]
    what = (f"tuning model {model.index} ({node.entries}: {node.description})"
            if node is not None else "tuning model 0 (the node matches no known type)")
    return tables._replace(step=_scaled(model.step_us, US), bw_ratio=model.bw_ratio,
                           tree_correction=model.tree_correction,
                           ring_correction=model.ring_correction, tuning=what)


RCCL_2_18, RCCL_2_20, RCCL_2_21 = (_tuned(label) for label in rccl_tuning.VERSIONS)

TABLES = {tables.label: tables
          for tables in (NCCL_2_30, RCCL_2_7, RCCL_2_18, RCCL_2_20, RCCL_2_21)}
"""Every transcribed version by label."""

DEFAULT_TABLES = {"nccl": "nccl-2.30", "rccl": "rccl-2.7"}
"""The version a library's choice is taken from when the machine names none icnperf has."""


def tables_for(library: str, version: str | None = None) -> LibraryTables:
    """The tables of ``library`` (nccl, rccl) at ``version`` ("2.30", "nccl-2.30"): the
    transcribed version whose major.minor matches, else the library's default (the note of
    :mod:`.nccl_choice` says which was used)."""
    if version:
        text = version.lower().removeprefix(f"{library}-").strip()
        parts = text.split(".")
        key = f"{library}-{'.'.join(parts[:2])}"
        if key in TABLES:
            return TABLES[key]
    return TABLES[DEFAULT_TABLES[library]]
