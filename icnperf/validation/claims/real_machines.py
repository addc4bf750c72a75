"""Published measurements on the real-machine presets of issue #18 (docs/real-machines.md).

Every reading, tolerance and kind below was written before the claim's result was computed,
with one exception stated where it happens (the 4 MiB PingPong's model value was printed once
while the fugaku preset was being checked, before its tolerance was written; the band used
is the one fixed for every bandwidth claim of this module).

Point-to-point (``closed-form``):

* Fugaku, IMB PingPong between two nodes (table ``fugaku-imb-pingpong``, RIKEN's Perf-MPI
  document as transcribed): the 8-byte row calibrates ``software.mpi_overhead``; the 4 MiB
  row is held out (the link payload rate and the TNI rate are derived from the signalling
  rate, nothing was fitted to a bandwidth). The two nodes are taken as neighbours (1 hop),
  as for the calibration. Mid sizes are not registered: the model sends every size eagerly
  and Fujitsu MPI's eager limit is not known, so they would test an unmodelled protocol.
* TofuD (table ``tofud-cluster2018``): the 8-byte Put latency calibrates the fugaku
  preset's injection and ejection latencies (hardware path, no software, 1 hop); the
  injection rate per node (38.1 GB/s) is held out: the node's 6 TNIs each streaming large
  Puts (``api none``), 6 x one process's streaming bandwidth with 6 processes spread over
  the 6 NICs.
* Aries (table ``aries-xc-whitepaper``): the 8-byte put calibrates the piz-daint preset's
  injection and ejection latencies, the 8-byte MPI latency its MPI overhead (both taken
  between two nodes of one Aries, 0 router-to-router hops).
* Piz Daint, CSCS's regression-check references (table ``piz-daint-osu-reframe``): the
  osu_latency 8-byte reference between two exclusively allocated nodes, taken as two nodes
  of one Aries like the white paper's figure (Slurm hands out consecutive node IDs, four per
  blade) and held out; it equals the white paper's 1.3 µs the preset was calibrated on, so
  its agreement says the two sources agree more than it tests the model. The osu_allreduce
  rows (6 and 16 nodes) and the osu_alltoall row (16 nodes), 8 bytes, one process per node,
  are held out: ``predict collective --nodes N`` on the preset (a job on the machine as it
  is, nodes in order), with the algorithm MPICH's documented defaults pick for that size and
  rank count (recursive doubling for an all-reduce vector <= 2048 B; Bruck for all-to-all
  blocks <= 256 B on >= 8 ranks), to be switched to ``--algorithm auto`` when it lands. They
  miss by 1.75x to 3.6x (docs/real-machines.md: each measured step costs 2.3-3.4 us where
  the model charges one 1.3 us message) and are registered as open: shown and counted apart,
  not failing validate, until an analysis explains the per-step cost. The osu_bw row
  (``piz-daint-osu-bw-reframe``, 4 MiB streamed by one pair) is held out: adaptive Aries
  routing streams a message over min(the NIC's 2 router ports, the max-flow between the two
  routers) links, NIC-bound for every pair, so the two nodes are taken as those of the
  latency claim (one Aries). Its band (the module's ±10 %) was written before its
  prediction was computed; the prediction misses it by 12.6 % and the claim is open (the
  chosen Aries packet format suspected).

* LUMI-C, the LUMI team's regression-check references (tables ``lumi-osu-reframe``,
  ``lumi-osu-bw-reframe``, cpu partition): osu_latency 8 bytes between two nodes calibrates
  the lumi preset's MPI overhead (the two nodes taken on one switch, 0 router-to-router
  hops, as for Piz Daint). Held out: osu_multi_lat (8 pairs between the same two nodes, 8
  bytes: the model's latency with 8 processes per node sharing the one NIC) and osu_bw
  (4 MiB streamed by one pair: the model's streaming bandwidth, set by the NIC's documented
  25 GB/s and the chosen 64-byte frame units; nothing was fitted to a bandwidth). Not
  registered: osu_mbw_mr (its 29.5 GB/s exceeds the endpoint's documented 25 GB/s each
  way) and the gpu rows (LUMI-G: registered on the lumi-g preset in gpu_buffers.py). The osu_allreduce rows at 128 processes per
  node (1, 2 and 4 nodes) are registered with hierarchical collectives and marked open (the
  node-local steps' cost, docs/real-machines.md).

HPCG at scale (``application``; tables ``k-computer-hpcg``, ``fugaku-hpcg``): the
vendor-optimized HPCG, ``predict app hpcg --variant optimized`` (model/apps/hpcg.py's
vendor roofline, the hpcg-vendor skeleton's numbers), on the node counts the sources state,
with the presets' processes per node and the skeleton's 160^3 local box; the rate is HPCG's
official FLOP count over the modelled time. Registered: the K computer's 2017 result (the
latest and best optimized code on the same 82,944 nodes; the 2014 result, 24 % lower on the
same nodes, came from an earlier version of the vendor code, which a roofline does not
model), Fugaku on 138,240 nodes (ISC 2020) and on all 158,976 (ISC 2022). Not registered:
Summit (its HPCG node count is derived from the list's cores, not stated for the run),
Frontier and LUMI (no node counts; their gdragonfly topology has no collective layout yet).

HPCG per node on Piz Daint (table ``piz-daint-node-reframe``, CSCS's regression-check
references, each a run's rate divided by its unstated node count): read as one node (no
network; the halo inside the node), 104^3 per rank as the CPU checks pass (the GPU check
states no box; the roofline at one node hardly depends on it), the ranks per node of each
check: the reference code on the CPU (HPCG 2.4 reference model, 12 ranks), Intel's MKL
HPCG on the CPU (the vendor roofline with the node's GPU removed, 2 ranks) and NVIDIA's GPU
HPCG (the vendor roofline on the P100, 1 rank). Same ±30 % band.
"""

from __future__ import annotations

from functools import cache

from icnperf.validation.claim import Claim
from icnperf.validation.claims._lookup import as_machine, table_row
from icnperf.validation.production import Busy, p2p_charge

FUGAKU = "Fugaku (RIKEN, preset fugaku): "
K_COMPUTER = "K computer (RIKEN, preset k-computer): "
PIZ_DAINT = "Piz Daint (CSCS, preset piz-daint): "
LUMI = "LUMI-C (CSC, preset lumi): "
"""Every source starts with its machine, so the claims group by machine wherever they are
grouped by source (the validation page's sections run up to the source's first ')')."""
FUGAKU_IMB = (FUGAKU + "RIKEN R-CCS, Fugaku user guide 'Perf-MPI', IMB PingPong between two "
              "nodes, as transcribed in giordano/julia-on-fugaku; table fugaku-imb-pingpong")
TOFUD = (FUGAKU + "Ajima et al., 'The Tofu Interconnect D', IEEE CLUSTER 2018, abstract; "
         "table tofud-cluster2018")
ARIES = (PIZ_DAINT + "Cray XC Series Network white paper WP-Aries01-1112, 2012, as quoted; "
         "table aries-xc-whitepaper")
K_HPCG = (K_COMPUTER + "RIKEN news release, 16 Nov 2017: HPCG on all 82,944 compute nodes; "
          "table k-computer-hpcg")
FUGAKU_HPCG = FUGAKU + "RIKEN/Fujitsu releases on Fugaku's HPCG results; table fugaku-hpcg"

CALIBRATION_REASON = ("the calibrated parameter is rounded (to 10 ns or 1 ns) against a "
                      "figure printed with 2-3 digits: ±1 % holds the calibration, a "
                      "change of any input breaks it")
BANDWIDTH_REASON = (
    "±10 %, the band fixed for this module's bandwidth claims: the link payload rate is "
    "derived from the signalling rate with 64b/66b coding assumed, TofuD's packet format "
    "is taken from Tofu1's (2 % header share) and the TNI's own rate is chosen equal to its "
    "link's; each could be off by a few percent (the source prints 3 digits)")
HPCG_REASON = (
    "±30 %, the band fixed for every HPCG-at-scale claim before any was computed: the "
    "roofline's inputs are each uncertain by 10-20 % (memory efficiency assumed 0.78 where "
    "no STREAM figure of the node was found, the vendor kernels' bytes taken as the "
    "reference CSR's, the run's local box and processes per node not published, the K "
    "computer's memory bandwidth to confirm)")

FUGAKU_HOPS = 1
ARIES_HOPS = 0
HPCG_LOCAL = (160, 160, 160)


def _on(machine_name: str, predict_on, busy_on=None) -> dict:
    """The fields of a claim predicted on preset ``machine_name`` by ``predict_on(machine)``
    (claim.py: its range over draws of the preset's inputs, icnperf.validation.ranges), and
    charged on a busy machine by ``busy_on(machine, placement_draw)``
    (icnperf.validation.production)."""
    return {"machine": machine_name, "predict_on": predict_on, "busy_on": busy_on}


def _busy_p2p(machine, size: int, hops: int, api: str, column: str,
              processes_per_node: int = 1, scale: float = 1.0) -> Busy:
    """A point-to-point claim's quantity as ``predict p2p --production`` charges it
    (icnperf.validation.production.p2p_charge) on a preset or a machine object."""
    return p2p_charge(as_machine(machine), size, hops, api, column, scale,
                      processes_per_node=processes_per_node)


def _busy_injection(machine, placement_draw=None, size: int = 1 << 22) -> Busy:
    """:func:`_node_injection` on a busy machine: every NIC's stream at the background's
    offered load, not delayed by OS noise (a stream, as predict p2p --production); no
    placement (``placement_draw`` unused)."""
    from icnperf.model import network

    machine = as_machine(machine)
    nics = network.nics_per_node(machine)
    stream = _busy_p2p(machine, size, 1, "none", "streaming_bandwidth_Bps", nics)
    return Busy(stream.time_s, value_of=lambda time: nics * size / time)


def _busy_collective(machine, operation: str, algorithm: str, size: int,
                     nodes: int, ppn: int = 1, placement_draw: int | None = None) -> Busy:
    """:func:`collective_time_on` as ``predict collective --production`` charges it
    (model.production.collective_production): the empty machine's time, the noise groups
    of its synchronising steps (with ``ppn`` above 1 the hierarchical collective's
    node-local rounds on every rank and its leaders' steps on the nodes) and the steps that
    wait the background's M/D/1 delay (those leaving a node). Under a busy scheduler's
    placement all 16 placement draws, or draw ``placement_draw`` mod 16 alone (a range's
    input draw i takes placement i mod 16)."""
    from icnperf.model.collectives import Layout
    from icnperf.model.production import PLACEMENT_DRAWS, collective_production

    machine = as_machine(machine)
    layout = (Layout.one_node() if nodes == 1
              else Layout.from_topology(machine.topology).on_part(nodes))
    draws = {} if placement_draw is None else {
        "placement_draws": 1, "placement_seed": placement_draw % PLACEMENT_DRAWS}
    part = collective_production(machine, operation, algorithm, size, layout, quantiles=(),
                                 processes_per_node=ppn,
                                 hierarchy="node" if ppn > 1 else None, **draws)
    return Busy(part["time_s"], part["steps"], part["ranks"], part["queueing_per_step_s"],
                groups=part["groups"], waiting_steps=part["waiting_steps"],
                placements=tuple(zip(part.get("placement_times_s", ()),
                                     part.get("placement_groups", ()))))


def _latency(machine, size: int, hops: int, api: str) -> float:
    from icnperf.model.network import p2p_table

    table = p2p_table(as_machine(machine), [size], hops, api)
    return float(table.columns["latency_s"][0])


def _p2p_column(machine, size: int, hops: int, api: str, column: str,
                processes_per_node: int = 1) -> float:
    from icnperf.model.network import p2p_table

    table = p2p_table(as_machine(machine), [size], hops, api,
                      processes_per_node=processes_per_node)
    return float(table.columns[column][0])


def _node_injection(machine, size: int = 1 << 22) -> float:
    """Bytes/s a node injects with every NIC streaming large messages (api none): one
    process per NIC, each at its streaming bandwidth."""
    from icnperf.model import network

    machine = as_machine(machine)
    nics = network.nics_per_node(machine)
    table = network.p2p_table(machine, [size], 1, "none", processes_per_node=nics)
    return nics * float(table.columns["streaming_bandwidth_Bps"][0])


@cache
def hpcg_rate(machine_name: str, radices: tuple | None) -> float:
    """FLOP/s of the vendor-optimized HPCG (predict app hpcg --variant optimized) on a torus
    of ``radices`` (None: the machine's topology), the preset's processes per node,
    :data:`HPCG_LOCAL` per process."""
    from icnperf.data.machine import load_machine
    from icnperf.model.apps import hpcg
    from icnperf.model.collectives import Layout

    machine = load_machine(machine_name)
    layout = (Layout.from_topology(machine.topology) if radices is None
              else Layout.torus(radices))
    result = hpcg.predict(machine, layout, variant="optimized", local=HPCG_LOCAL,
                          processes_per_node=int(machine.require("node.processes_per_node")))
    return result.flops / result.total_s


def _hpcg_nodes(machine_name: str, radices: tuple | None) -> int:
    from icnperf.data.machine import load_machine
    from icnperf.model.collectives import Layout

    layout = (Layout.from_topology(load_machine(machine_name).topology) if radices is None
              else Layout.torus(radices))
    return layout.endpoints


K_RADICES = (24, 18, 16, 2, 3, 2)
"""82,944 compute nodes: Tofu's 24 x 18 x 17 x 12 network with compute nodes in 16 of the
17 Z planes (docs/real-machines.md, k-computer)."""
FUGAKU_ISC20_RADICES = (24, 20, 24, 2, 3, 2)
"""138,240 nodes = 360 racks (RIKEN/Fujitsu 2020): 11,520 Tofu units of 12 = 24 x 20 x 24,
the full machine's X and Z with 20 of its 23 Y positions (an assumption: which 360 racks
ran is not stated)."""


def _check_nodes(machine_name, radices, expected):
    nodes = _hpcg_nodes(machine_name, radices)
    if nodes != expected:
        raise ValueError(f"{machine_name}: layout has {nodes} nodes, the table {expected}")


def _hpcg_claim(cid, source, row, machine_name, radices, list_name):
    def predict():
        _check_nodes(machine_name, radices, row["nodes"])
        return hpcg_rate(machine_name, radices) / 1e15
    return Claim(cid, source,
                 f"HPCG rate, vendor-optimized ({list_name}), {row['nodes']:,} nodes, "
                 "memory roofline + halo + dot products (nothing fitted to it)",
                 row["hpcg_flop_per_s"] / 1e15, "PFLOP/s", 0.30, "relative", predict,
                 runs="application", kind="predicted", tolerance_reason=HPCG_REASON)


PIZ_DAINT_OSU = (PIZ_DAINT + "CSCS ReFrame regression checks, osu_tests.py reference values; "
                 "table piz-daint-osu-reframe")
PIZ_DAINT_NODE = (PIZ_DAINT + "CSCS ReFrame regression checks, hpcg_benchmark.py reference "
                  "values; table piz-daint-node-reframe")
PIZ_DAINT_LOCAL = (104, 104, 104)
LATENCY_REASON = ("±10 %: the reference is printed with 3 digits and the two nodes' distance "
                  "is not stated: one router hop more than the 0 taken adds 100 ns (7.7 %)")


@cache
def node_hpcg_rate(machine_name: str, variant: str, ranks: int, overrides: tuple = ()) -> float:
    """FLOP/s of HPCG on one node of a machine (no network): ``variant`` reference or
    optimized, ``ranks`` per node, :data:`PIZ_DAINT_LOCAL` per rank, ``overrides`` as
    --set items."""
    from icnperf.data.machine import load_machine
    from icnperf.model.apps import hpcg

    machine = load_machine(machine_name).with_overrides(list(overrides))
    result = hpcg.predict(machine, 1, variant=variant, local=PIZ_DAINT_LOCAL,
                          processes_per_node=ranks)
    return result.flops / result.total_s


def _node_claim(cid, benchmark, variant, overrides, what):
    row = table_row("piz-daint-node-reframe", benchmark=benchmark)
    return Claim(cid, PIZ_DAINT_NODE,
                 f"HPCG per node, {what}, {row['ranks_per_node']} rank(s), 104^3, one node "
                 "(nothing fitted to it)",
                 row["node_flop_per_s"] / 1e9, "GFLOP/s", 0.30, "relative",
                 lambda: node_hpcg_rate("piz-daint", variant, row["ranks_per_node"],
                                        overrides) / 1e9,
                 runs="application", kind="predicted", tolerance_reason=HPCG_REASON)


LUMI_OSU = (LUMI + "LUMI ReFrame regression checks, osu_check.py reference values, lumi:cpu; "
            "tables lumi-osu-reframe, lumi-osu-bw-reframe")
LUMI_HOPS = 0
LUMI_LATENCY_REASON = (
    "±10 %: the reference is printed with 2-3 digits and the check's own band is ±0.2 us "
    "(11 %); the two nodes' distance is not stated (one switch more than the 0 taken adds "
    "350 ns, 19 %, and would fail the claim)")
LUMI_BANDWIDTH_REASON = (
    "±10 %, the band fixed for this module's bandwidth claims: when it was fixed "
    "Slingshot's frame format was chosen (64-byte units, 4 KiB frames, one header unit; "
    "since 2026-11-28 it is the Cassini driver's stated 2 KiB frames), the NIC's rate is the "
    "documentation's 25 GB/s each way and the link's the 200 Gbit/s signalling rate, each "
    "could be off by a few percent; the check's own band is ±5 %")


def _lumi_row(table: str, benchmark: str) -> dict:
    return table_row(table, partition="cpu", benchmark=benchmark)


PIZ_DAINT_OSU_BW = (PIZ_DAINT + "CSCS ReFrame regression checks, osu_tests.py reference "
                    "values; table piz-daint-osu-bw-reframe")
PIZ_DAINT_BANDWIDTH_REASON = (
    "±10 %, the band fixed for this module's bandwidth claims: the Aries packet format is "
    "chosen (64-byte payloads, one 16-byte header flit: a 20 % header share no source "
    "gives), the NIC's two router ports are read from the white paper's '8 NIC ports' for 4 "
    "NICs and their rate from its '4.7 to 5.25GB/s per direction per port' (5.25 taken); "
    "the two nodes' placement does not matter (any two Aries routers have a max-flow of at "
    "least 30 links, above the NIC's 2 ports); the check's own band is -10 %")
"""The band of the Piz Daint osu_bw claim, written with the claim before its prediction was
computed. Disclosed: the table's notes already printed the single-port model value (4.2
GB/s), so twice it was in view when the band was written; the band is the module's fixed
one, not chosen for this claim."""
PIZ_DAINT_BANDWIDTH_OPEN = (
    "the model streams 8.4 GB/s (2 NIC ports x 5.25 GB/s x 64/80 payload share of the "
    "chosen packet format), 12.6 % below; ruled out: placement (NIC-bound for every router "
    "pair, max-flow >= 30 links), the host interface (PCIe Gen3 x16, 15.75 GB/s, not "
    "binding), the link rate (5.25 GB/s is the white paper's upper figure); suspected: the "
    "chosen Aries packet format, whose 20 % header share no source gives (the measurement "
    "implies at most 8.5 % over the two ports)")
"""Why the Piz Daint osu_bw claim is open. Written after its result was seen (the band was
not); no constant was changed to close the gap. Its open tolerance, 25 %, is the miss then
seen (12.6 %) with a margin."""
PIZ_DAINT_COLLECTIVE_REASON = (
    "±25 %, fixed from the sources before the claims were written: the reference is a "
    "regression-check expectation with its own upper band of 8-10 % (0.75 us on 9.30, "
    "1.16 on 13.62, 2.0 on 20.73); the nodes sit 'within one Slurm switch' whose Aries "
    "routers are not stated, so each of the lg P steps may cross 0-2 router hops more or "
    "fewer than the linear placement taken (100 ns each on a step of about 1.3 us: up to "
    "15 %); the algorithm is MPICH's documented default, which Cray MPICH may override")
"""The band of the Piz Daint collective claims. Disclosed: the 16-node all-reduce and
all-to-all model values were printed once (while checking the command line, before this
band was written); the band follows the reasons above, not those values. Those two claims
are therefore ``post-hoc`` (claim.py), counted apart from the predictions; the 6-node
all-reduce, whose value was not printed, stays predicted."""
PIZ_DAINT_COLLECTIVE_OPEN = (
    "the measured references imply 2.3 us (6 nodes) and 3.4 us (16 nodes) per synchronous "
    "step where the model charges one calibrated 1.3 us message plus its routers; ruled "
    "out: placement (spread over groups gives 7.2 us at 16 nodes, still 1.9x low), and a "
    "per-step software cost constant in P as the whole cause (software.mpi_step_overhead, "
    "unset: the 1.0 us a step the 6-node reference implies leaves 16 nodes 31 % and the "
    "all-to-all 53 % short); suspected, not modelled: per-step skew growing with P, and "
    "Cray MPICH rules other than MPICH's (docs/real-machines.md)")
"""Why the Piz Daint collective claims are open: what the misses look like, what was ruled
out and what is suspected. Written after the results were seen (the band was not); their
open tolerance, 80 %, is the largest miss then seen (72.3 %) with a margin: a model that
drifts further from the measurements fails them."""
MPICH_ALLREDUCE_RULE = ("MPICH's documented default (Thakur et al. 2005; "
                        "MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE, default 2048, src/mpi/coll/"
                        "cvars.txt): recursive doubling for a vector <= 2048 B (MPICH "
                        "4.x's selection, which --algorithm auto applies to Cray MPICH: "
                        "<= 8 B; the same pick at 8 B)")
MPICH_ALLTOALL_RULE = ("MPICH's documented default (Thakur et al. 2005; "
                       "MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE, default 256 per destination, "
                       "src/mpi/coll/cvars.txt, and 'comm_size >= 8' in "
                       "mpir_coll_sched_auto.c): Bruck for blocks <= 256 B on >= 8 ranks")


@cache
def job_collective_time(machine_name: str, operation: str, algorithm: str, size: int,
                        nodes: int, ppn: int = 1) -> float:
    """Time (s) of a collective on a job of ``nodes`` nodes on the preset as it is
    (:func:`collective_time_on`), cached per preset."""
    return collective_time_on(machine_name, operation, algorithm, size, nodes, ppn)


def collective_time_on(machine, operation: str, algorithm: str, size: int, nodes: int,
                       ppn: int = 1) -> float:
    """Time (s) of a collective on a job of ``nodes`` nodes on the machine as it is
    (``predict collective --nodes N``: Layout.on_part, linear placement; one node is
    Layout.one_node), ``ppn`` processes per node (hierarchical, as MPICH's SMP-aware
    collectives, when above 1), api mpi, ``size`` bytes per rank (Thakur et al.'s n).
    ``machine`` is a preset's name or a machine object."""
    from icnperf.model.collectives import Layout, collective_time

    machine = as_machine(machine)
    layout = (Layout.one_node() if nodes == 1
              else Layout.from_topology(machine.topology).on_part(nodes))
    result = collective_time(machine, operation, algorithm, [size], layout=layout,
                             processes_per_node=ppn,
                             hierarchy="node" if ppn > 1 else None)
    return float(result.time[0])


LUMI_ALLREDUCE_REASON = (
    "±30 %, proposed in docs/real-machines.md before any value was computed: the check's "
    "own band is ±0.2-0.25 us (3 %); the node-local part rests on an unpublished "
    "shared-memory latency over lg 128 = 7 node-local steps each way; the nodes' switches "
    "are not stated (one switch more adds 350 ns per inter-node step, 5-10 %). Disclosed: "
    "the two-node claim was seen to miss (10.8 us, the MPI overhead standing in for "
    "shared memory) before node.shared_memory_latency was set from another Zen 3 machine's "
    "published figure (0.36 us, transferred; the rule for choosing it fixed before the "
    "claims were rerun); all three pass since. The two-node claim is therefore post hoc "
    "(its miss was seen before that input was set), counted apart from the predictions")
LUMI_ONE_NODE_REASON = (
    "a factor 2, proposed in docs/real-machines.md before any value was computed: on one "
    "node the all-reduce is shared-memory messaging alone, whose latency no LUMI document "
    "states (the preset has no node.shared_memory_latency, so the MPI overhead stands in)"
    "; that was so when the band was set: the preset now carries a shared-memory latency "
    "transferred from another Zen 3 node, docs/real-machines.md")


def _lumi_allreduce_claim(nodes: int) -> Claim:
    row = table_row("lumi-osu-reframe", partition="cpu", benchmark="osu_allreduce", nodes=nodes)
    ppn, size = int(row["processes_per_node"]), int(row["message_bytes"])
    one = nodes == 1
    return Claim(
        f"lumi-osu-allreduce-8b-{nodes}n-{ppn}ppn", LUMI_OSU,
        f"osu_allreduce {size} bytes, average time per call, {nodes} node(s) x {ppn} "
        "processes, hierarchical (node-local binomial reduce and broadcast through shared "
        "memory around " + ("nothing: one node)" if one else
                            "recursive doubling among the node leaders, MPICH's documented "
                            "default for an 8-byte vector: <= 2048 B in 3.x, <= 8 B in 4.x)"),
        row["latency_s"], "s", 2.0 if one else 0.30, "factor" if one else "relative",
        lambda: job_collective_time("lumi", "allreduce", "recursive-doubling", size, nodes,
                                    ppn),
        kind="post-hoc" if nodes == 2 else "predicted",
        tolerance_reason=LUMI_ONE_NODE_REASON if one else LUMI_ALLREDUCE_REASON,
        **_on("lumi", lambda m: collective_time_on(m, "allreduce", "recursive-doubling",
                                                   size, nodes, ppn),
              lambda m, draw: _busy_collective(m, "allreduce", "recursive-doubling", size,
                                               nodes, ppn, placement_draw=draw)))


def _piz_daint_collective_claim(benchmark: str, nodes: int, operation: str,
                                algorithm: str, rule: str, kind: str = "predicted") -> Claim:
    row = table_row("piz-daint-osu-reframe", benchmark=benchmark, nodes=nodes)
    block = int(row["message_bytes"])
    # osu_alltoall's size is the block sent to each rank; the model's m is everything one
    # rank sends (P blocks); osu_allreduce's size is the vector itself
    size = block * nodes if operation == "alltoall" else block
    what = (f"{block} bytes to each rank ({size} B per rank in all)"
            if operation == "alltoall" else f"{block} bytes")
    return Claim(
        f"piz-daint-{benchmark.replace('_', '-')}-8b-{nodes}n", PIZ_DAINT_OSU,
        f"{benchmark} {what}, average time per call, {nodes} nodes, one process per node, "
        f"nodes taken in order on one job (linear placement); algorithm {algorithm}, "
        f"{rule}",
        row["latency_s"], "s", 0.25, "relative",
        lambda: job_collective_time("piz-daint", operation, algorithm, size, nodes),
        kind=kind, tolerance_reason=PIZ_DAINT_COLLECTIVE_REASON,
        open_reason=PIZ_DAINT_COLLECTIVE_OPEN, open_tolerance=0.80,
        **_on("piz-daint", lambda m: collective_time_on(m, operation, algorithm, size,
                                                        nodes),
              lambda m, draw: _busy_collective(m, operation, algorithm, size, nodes,
                                                 placement_draw=draw)))


CLAIMS = [
    Claim("fugaku-imb-pingpong-8b", FUGAKU_IMB,
          "IMB PingPong 8 bytes, half round trip, two nodes taken as neighbours (1 hop)",
          table_row("fugaku-imb-pingpong", message_bytes=8)["latency_s"], "s", 0.01, "relative",
          lambda: _latency("fugaku", 8, FUGAKU_HOPS, "mpi"),
          kind="calibrated", fitted="software.mpi_overhead (fugaku preset)",
          **_on("fugaku", lambda m: _latency(m, 8, FUGAKU_HOPS, "mpi"),
               lambda m, _draw: _busy_p2p(m, 8, FUGAKU_HOPS, "mpi", "latency_s")),
          tolerance_reason=CALIBRATION_REASON),
    Claim("fugaku-imb-pingpong-4mib", FUGAKU_IMB,
          "IMB PingPong 4 MiB, half round trip, two nodes taken as neighbours (1 hop)",
          table_row("fugaku-imb-pingpong", message_bytes=4194304)["latency_s"], "s", 0.10,
          "relative", lambda: _latency("fugaku", 4194304, FUGAKU_HOPS, "mpi"),
          kind="predicted", tolerance_reason=BANDWIDTH_REASON,
          **_on("fugaku", lambda m: _latency(m, 4194304, FUGAKU_HOPS, "mpi"),
               lambda m, _draw: _busy_p2p(m, 4194304, FUGAKU_HOPS, "mpi", "latency_s"))),
    Claim("fugaku-tofud-put-8b", TOFUD,
          "one-way 8-byte Put latency (hardware path, no MPI), taken between neighbours",
          table_row("tofud-cluster2018")["put_latency_s"], "s", 0.01, "relative",
          lambda: _latency("fugaku", 8, FUGAKU_HOPS, "none"),
          kind="calibrated", **_on("fugaku", lambda m: _latency(m, 8, FUGAKU_HOPS, "none"),
               lambda m, _draw: _busy_p2p(m, 8, FUGAKU_HOPS, "none", "latency_s")),
          fitted="network.injection_latency, network.ejection_latency (fugaku preset)",
          tolerance_reason=CALIBRATION_REASON),
    Claim("fugaku-tofud-injection", TOFUD,
          "injection rate per node: the 6 TNIs each streaming 4 MiB Puts",
          table_row("tofud-cluster2018")["node_injection_bytes_per_s"], "B/s", 0.10, "relative",
          lambda: _node_injection("fugaku"), kind="predicted",
          tolerance_reason=BANDWIDTH_REASON,
          **_on("fugaku", _node_injection, _busy_injection)),
    Claim("piz-daint-aries-put-8b", ARIES,
          "end-to-end 8-byte put latency (hardware path), two nodes of one Aries",
          table_row("aries-xc-whitepaper", quantity="put")["latency_s"], "s", 0.01, "relative",
          lambda: _latency("piz-daint", 8, ARIES_HOPS, "none"),
          kind="calibrated",
          **_on("piz-daint", lambda m: _latency(m, 8, ARIES_HOPS, "none"),
               lambda m, _draw: _busy_p2p(m, 8, ARIES_HOPS, "none", "latency_s")),
          fitted="network.injection_latency, network.ejection_latency (piz-daint preset)",
          tolerance_reason=CALIBRATION_REASON),
    Claim("piz-daint-aries-mpi-8b", ARIES,
          "end-to-end 8-byte MPI latency, two nodes of one Aries",
          table_row("aries-xc-whitepaper", quantity="mpi")["latency_s"], "s", 0.01, "relative",
          lambda: _latency("piz-daint", 8, ARIES_HOPS, "mpi"),
          kind="calibrated", fitted="software.mpi_overhead (piz-daint preset)",
          **_on("piz-daint", lambda m: _latency(m, 8, ARIES_HOPS, "mpi"),
               lambda m, _draw: _busy_p2p(m, 8, ARIES_HOPS, "mpi", "latency_s")),
          tolerance_reason=CALIBRATION_REASON),
    Claim("piz-daint-osu-latency-8b", PIZ_DAINT_OSU,
          "osu_latency 8 bytes between two nodes, taken as two nodes of one Aries (0 hops)",
          table_row("piz-daint-osu-reframe", benchmark="osu_latency")["latency_s"], "s", 0.10,
          "relative", lambda: _latency("piz-daint", 8, ARIES_HOPS, "mpi"),
          kind="calibrated",
          **_on("piz-daint", lambda m: _latency(m, 8, ARIES_HOPS, "mpi"),
               lambda m, _draw: _busy_p2p(m, 8, ARIES_HOPS, "mpi", "latency_s")),
          fitted=("software.mpi_overhead (piz-daint preset), fitted to the Cray white paper's"
                  " 1.3 us on the same path: this figure is the same number, so the check"
                  " passes by construction"),
          tolerance_reason=LATENCY_REASON),
    _hpcg_claim("k-computer-hpcg-sc17", K_HPCG, table_row("k-computer-hpcg", list="SC17"),
                "k-computer", K_RADICES, "SC17"),
    _hpcg_claim("fugaku-hpcg-isc20", FUGAKU_HPCG, table_row("fugaku-hpcg", list="ISC20"),
                "fugaku", FUGAKU_ISC20_RADICES, "ISC20"),
    _hpcg_claim("fugaku-hpcg-isc22", FUGAKU_HPCG, table_row("fugaku-hpcg", list="ISC22"),
                "fugaku", None, "ISC22"),
    _node_claim("piz-daint-hpcg-reference-node", "hpcg-reference", "reference", (),
                "HPCG 2.4 reference code on the CPU"),
    _node_claim("piz-daint-hpcg-mkl-node", "hpcg-mkl", "optimized",
                ("node.accelerators=0",), "Intel MKL HPCG on the CPU (vendor roofline, GPU "
                "removed)"),
    _node_claim("piz-daint-hpcg-gpu-node", "hpcg-gpu", "optimized", (),
                "NVIDIA GPU HPCG on the P100 (vendor roofline)"),
    Claim("lumi-osu-latency-8b", LUMI_OSU,
          "osu_latency 8 bytes, one process per node, two LUMI-C nodes taken on one switch "
          "(0 hops)",
          _lumi_row("lumi-osu-reframe", "osu_latency")["latency_s"], "s", 0.01, "relative",
          lambda: _latency("lumi", 8, LUMI_HOPS, "mpi"),
          kind="calibrated", fitted="software.mpi_overhead (lumi preset)",
          **_on("lumi", lambda m: _latency(m, 8, LUMI_HOPS, "mpi"),
               lambda m, _draw: _busy_p2p(m, 8, LUMI_HOPS, "mpi", "latency_s")),
          tolerance_reason=CALIBRATION_REASON),
    Claim("lumi-osu-multi-lat-8b", LUMI_OSU,
          "osu_multi_lat 8 bytes, 8 pairs between two LUMI-C nodes on one switch sharing "
          "each node's one NIC",
          _lumi_row("lumi-osu-reframe", "osu_multi_lat")["latency_s"], "s", 0.10, "relative",
          lambda: _p2p_column("lumi", 8, LUMI_HOPS, "mpi", "latency_s", 8),
          kind="predicted", tolerance_reason=LUMI_LATENCY_REASON,
          **_on("lumi", lambda m: _p2p_column(m, 8, LUMI_HOPS, "mpi", "latency_s", 8),
                lambda m, _draw: _busy_p2p(m, 8, LUMI_HOPS, "mpi", "latency_s", 8))),
    Claim("lumi-osu-bw-4mib", LUMI_OSU,
          "osu_bw 4 MiB, one pair streaming between two LUMI-C nodes on one switch",
          _lumi_row("lumi-osu-bw-reframe", "osu_bw")["bandwidth_bytes_per_s"] / 1e9, "GB/s",
          0.10, "relative",
          lambda: _p2p_column("lumi", 4194304, LUMI_HOPS, "mpi",
                              "streaming_bandwidth_Bps") / 1e9,
          kind="predicted", tolerance_reason=LUMI_BANDWIDTH_REASON,
          **_on("lumi", lambda m: _p2p_column(m, 4194304, LUMI_HOPS, "mpi",
                                              "streaming_bandwidth_Bps") / 1e9,
                lambda m, _draw: _busy_p2p(m, 4194304, LUMI_HOPS, "mpi",
                                           "streaming_bandwidth_Bps", scale=1e-9))),
    Claim("piz-daint-osu-bw-4mib", PIZ_DAINT_OSU_BW,
          "osu_bw 4 MiB, one pair streaming between two Piz Daint GPU nodes, taken as two "
          "nodes of one Aries (0 hops; any placement gives the same NIC-bound rate)",
          table_row("piz-daint-osu-bw-reframe")["bandwidth_bytes_per_s"] / 1e9, "GB/s",
          0.10, "relative",
          lambda: _p2p_column("piz-daint", 4194304, ARIES_HOPS, "mpi",
                              "streaming_bandwidth_Bps") / 1e9,
          kind="predicted", tolerance_reason=PIZ_DAINT_BANDWIDTH_REASON,
          **_on("piz-daint", lambda m: _p2p_column(m, 4194304, ARIES_HOPS, "mpi",
                                                   "streaming_bandwidth_Bps") / 1e9,
                lambda m, _draw: _busy_p2p(m, 4194304, ARIES_HOPS, "mpi",
                                           "streaming_bandwidth_Bps", scale=1e-9)),
          open_reason=PIZ_DAINT_BANDWIDTH_OPEN, open_tolerance=0.25),
    *[_lumi_allreduce_claim(nodes) for nodes in (1, 2, 4)],
    _piz_daint_collective_claim("osu_allreduce", 6, "allreduce", "recursive-doubling",
                                MPICH_ALLREDUCE_RULE),
    _piz_daint_collective_claim("osu_allreduce", 16, "allreduce", "recursive-doubling",
                                MPICH_ALLREDUCE_RULE, kind="post-hoc"),
    _piz_daint_collective_claim("osu_alltoall", 16, "alltoall", "bruck",
                                MPICH_ALLTOALL_RULE, kind="post-hoc"),
]

MACHINE_ORDER = ("fugaku-", "k-computer-", "piz-daint-", "lumi-")
"""Claims are listed machine by machine (ids start with the preset's name), so `icnperf
validate` prints each machine's claims together within each kind's table and `--only
'piz-daint-*'` selects one machine."""
CLAIMS.sort(key=lambda c: next(i for i, prefix in enumerate(MACHINE_ORDER)
                               if c.id.startswith(prefix)))
