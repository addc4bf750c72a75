"""Published OSU measurements on GPU buffers (issue #29 item 6): MPI point-to-point with
both buffers in GPU memory (``osu_* -d cuda|rocm D D``), the centres' regression-check
references of two presets with the GPU keys.

Every reading, band and kind below was written before any of these claims' results was
computed, except for the two post-hoc CuPy claims (last item); the two calibrations were
computed after the claims were written.

* Alps, GH200 nodes (tables ``alps-osu-gpu-reframe``, ``alps-osu-bw-gpu-reframe``, CSCS's
  ReFrame references, two nodes, one process each): the GPU-buffer osu_latency at 256 bytes
  calibrates the alps preset's ``software.gpu_mpi_overhead`` (the GPU-buffer MPI path);
  held out: the GPU-buffer osu_latency at 4 MiB and osu_bw at 256 B and 4 MiB, and the
  four host-buffer rows (the preset's host MPI overhead is transferred from lumi, nothing
  fitted to Alps). The two nodes are taken on one switch (0 router-to-router hops), as for
  LUMI-C.
* LUMI-G (tables ``lumi-osu-reframe``, ``lumi-osu-bw-reframe``, partition gpu, the LUMI
  team's references): the GPU-buffer osu_latency at 8 bytes calibrates the lumi-g preset's
  ``software.gpu_mpi_overhead``; held out: osu_multi_lat (8 pairs of GCDs between two nodes,
  two GCDs on each NIC by the preset's GCD -> NIC table), osu_bw at 4 MiB (one pair) and
  osu_mbw_mr at 4 MiB (8 pairs, the sum of their streaming bandwidths). The 2- and 4-node
  GPU-buffer osu_allreduce rows are registered in osu_gpu_collectives.py (issue #30). Not
  registered: the 1-node GPU-buffer osu_allreduce row (collectives on GPU buffers are modelled as MPI's host
  algorithms at the GPU-buffer path's parameters; the 1-node row, 1.25 us among 8 GCDs, is
  below one modelled IPC message, so the node-local algorithm is not the one the library
  runs) and the intra-node osu_mbw_mr of the notes (482,735 MB/s over 4 GCD pairs whose GCDs
  the check's binding does not name).

* LUMI-G, the mpi4py/CuPy port of osu_bw in the LUMI checks (table
  ``lumi-g-osu-bw-cupy-reframe``): 4 MiB between two nodes, and GCD 0 -> GCD 1 inside one
  node (the only GPU-buffer figure inside a node with its GCDs named). Nothing fitted to
  them, but both model values were known when these two claims were written, the two-node
  one as the osu_bw prediction above (24.6 GB/s then; 24.2 with the Cassini driver's 2 KiB
  frames since), the one-node one as the in-package links'
  peak the model streams at (4 x 50 GB/s, tests/model/test_network_gpu.py): so they are
  ``post-hoc``, counted apart from the predictions (the rule that a band is fixed before
  the result is known does not hold for them). The bands are the module's LUMI-G bandwidth
  band, not chosen for these values. The one-node claim misses and is open (its reason
  below, written after).

osu_latency is half a round trip of one message: the ``latency_s`` column. osu_bw and
osu_mbw_mr stream a window of messages: the ``streaming_bandwidth_Bps`` column (one
message every max(overhead / 2, serialization) per process, NIC sharing included).
"""

from __future__ import annotations

from icnperf.validation.claim import Claim
from icnperf.validation.claims._lookup import as_machine, table_row

ALPS = "Alps GH200 (CSCS, preset alps): "
LUMI_G = "LUMI-G (CSC, preset lumi-g): "
ALPS_OSU = (ALPS + "CSCS ReFrame regression checks, osu_run.py reference values "
            "('+remote +nvgpu' systems); tables alps-osu-gpu-reframe, alps-osu-bw-gpu-reframe")
LUMI_G_OSU = (LUMI_G + "LUMI ReFrame regression checks, osu_check.py reference values, "
              "lumi:gpu (-d rocm D D); tables lumi-osu-reframe, lumi-osu-bw-reframe")
HOPS = 0
"""Two nodes of one switch: the checks do not say where their two nodes sit (as LUMI-C's)."""

CALIBRATION_REASON = ("the calibrated overhead is rounded to 10 ns against a figure printed "
                      "with 2-3 digits: ±1 % holds the calibration, a change of any input "
                      "breaks it")
CHECK_LATENCY_REASON = (
    "±15 %, the check's own upper tolerance (+15 %) made symmetric: the reference is what a "
    "healthy system is expected to do, not a published run; the two nodes' distance is not "
    "stated (one switch more than the 0 taken adds 350 ns)")
CHECK_BANDWIDTH_REASON = (
    "±15 %, the check's own lower tolerance (-15 %) made symmetric: when it was fixed the "
    "Slingshot frame format was chosen (64-byte units, 4 KiB frames; since 2026-11-28 it is "
    "the Cassini driver's stated 2 KiB frames), the NIC rate is the documented 25 GB/s and "
    "the GPU-NIC path is assumed not to bind; each could be off by a few percent")
ALPS_HOST_LATENCY_REASON = (
    "±25 %: the check allows +60 % on this reference, the loosest of the table; 25 % is the "
    "held-out goal of issue #29; the host MPI overhead is LUMI-C's, transferred")
ALPS_HOST_BANDWIDTH_REASON = (
    "±50 %, the check's own lower tolerance (-50 %) made symmetric: a 256-byte stream is "
    "set by the per-message software time, which is transferred from LUMI-C, not measured "
    "on Alps")
LUMI_G_LATENCY_REASON = (
    "±10 %: the check's band is ±0.1 us (3-4 %); the two nodes' distance is not stated (one "
    "switch more than the 0 taken adds 350 ns, 12 %) and the pairs' GCDs are bound by a "
    "wrapper the check does not print")
LUMI_G_MULTI_LAT_OPEN = (
    "the model gives 2.50 us, the single pair's latency: two GCDs sharing a NIC wait only "
    "for one 8-byte serialization (nanoseconds); the reference's 3.0 us says 8 concurrent "
    "GPU-buffer pairs cost 0.5 us more each, which no term of the model charges (per-message "
    "NIC or GPU-runtime contention; LUMI-C's 8 host pairs on one NIC add 0.15 us). No "
    "constant was changed to close it")
"""Why the LUMI-G osu_multi_lat claim is open. Written after its result was seen (its band
was not); its open tolerance, 25 %, is the miss then seen (16.7 %) with a margin."""
LUMI_G_BANDWIDTH_REASON = (
    "±10 %, the band of the real-machine bandwidth claims: the Slingshot frame format is "
    "chosen, the NIC's rate the documented 25 GB/s each way, the GCD-NIC link assumed not to "
    "bind; the check's own band is ±5 % (osu_bw) and ±1 % (osu_mbw_mr)")


LUMI_G_IPC_OPEN = (
    "the model streams GCD 0 -> GCD 1 at the in-package Infinity Fabric's peak, 4 links x "
    "50 GB/s = 200 GB/s per direction (OLCF: 'a peak bandwidth of 200 GB/s'); the reference "
    "is 125.3 GB/s, 63 % of it. What sets the achievable rate of an IPC copy between the two "
    "GCDs (the copy engines or a blit kernel, and the link protocol's efficiency) is not in "
    "the model; which GCDs the check's two ranks drive is also an assumption (0 and 1). No "
    "constant was changed to close it")
"""Why the LUMI-G one-node bandwidth claim is open. Written after its result was seen (its
band was not); its open tolerance, 75 %, is the miss then seen (60 %) with a margin."""


def gpu_p2p(machine, size: int, column: str, buffers: str = "gpu",
            processes_per_node: int = 1) -> float:
    """One column of ``predict p2p --buffers BUFFERS --hops 0`` at one size on a preset
    (by name) or a machine object."""
    from icnperf.model.network import p2p_table

    table = p2p_table(as_machine(machine), [size], HOPS, "mpi",
                      processes_per_node=processes_per_node, buffers=buffers)
    return float(table.columns[column][0])


def gpu_pair_stream(machine, size: int, from_gpu: int, to_gpu: int) -> float:
    """Streaming bandwidth of ``predict p2p --buffers gpu --same-node --from-gpu A --to-gpu
    B`` at one size (bytes/s), on a preset (by name) or a machine object."""
    from icnperf.model.network import p2p_table

    table = p2p_table(as_machine(machine), [size], None, "mpi", same_node=True,
                      buffers="gpu", from_gpu=from_gpu, to_gpu=to_gpu)
    return float(table.columns["streaming_bandwidth_Bps"][0])


def gpu_busy(machine, size: int, column: str, buffers: str = "gpu",
             processes_per_node: int = 1, scale: float = 1.0):
    """:func:`gpu_p2p` as ``predict p2p --buffers BUFFERS --hops 0 --production`` charges
    it (icnperf.validation.production.p2p_charge)."""
    from icnperf.validation.production import p2p_charge

    return p2p_charge(as_machine(machine), size, HOPS, "mpi", column, scale,
                      processes_per_node=processes_per_node, buffers=buffers)


def gpu_pair_busy(machine, size: int, from_gpu: int, to_gpu: int, scale: float = 1.0):
    """:func:`gpu_pair_stream` as ``predict p2p ... --same-node --production`` charges it:
    a stream inside a node, no background, not delayed by noise."""
    from icnperf.validation.production import p2p_charge

    return p2p_charge(as_machine(machine), size, None, "mpi", "streaming_bandwidth_Bps",
                      scale, same_node=True, buffers="gpu", from_gpu=from_gpu,
                      to_gpu=to_gpu)


def _alps(cid, table, buffers, benchmark, size, what, reason, kind="predicted", fitted=""):
    latency = benchmark == "osu_latency"
    row = table_row(table, buffers=buffers, benchmark=benchmark, message_bytes=size)
    measured = row["latency_s"] * 1e6 if latency else row["bandwidth_bytes_per_s"] / 1e9
    column = "latency_s" if latency else "streaming_bandwidth_Bps"
    scale = 1e6 if latency else 1e-9
    return Claim(cid, ALPS_OSU, what, measured, "us" if latency else "GB/s",
                 0.01 if kind == "calibrated" else reason[1], "relative",
                 lambda: gpu_p2p("alps", size, column, buffers) * scale,
                 kind=kind, fitted=fitted, machine="alps",
                 predict_on=lambda m: gpu_p2p(m, size, column, buffers) * scale,
                 busy_on=lambda m, _draw: gpu_busy(m, size, column, buffers, scale=scale),
                 tolerance_reason=CALIBRATION_REASON if kind == "calibrated" else reason[0])


def _lumi_g(cid, table, benchmark, column, what, reason, processes=1, pairs=1, **extra):
    key = "latency_s" if "latency" in column else "bandwidth_bytes_per_s"
    row = table_row(table, partition="gpu", benchmark=benchmark)
    latency = key == "latency_s"
    measured = row[key] * 1e6 if latency else row[key] / 1e9
    scale = 1e6 if latency else pairs * 1e-9
    size = 8 if latency else 4194304
    return Claim(cid, LUMI_G_OSU, what, measured, "us" if latency else "GB/s",
                 extra.pop("tolerance", 0.10), "relative",
                 lambda: gpu_p2p("lumi-g", size, column, "gpu", processes) * scale,
                 tolerance_reason=reason, machine="lumi-g",
                 predict_on=lambda m: gpu_p2p(m, size, column, "gpu", processes) * scale,
                 busy_on=lambda m, _draw: gpu_busy(m, size, column, "gpu", processes, scale),
                 **extra)


CLAIMS = [
    _alps("alps-osu-gpu-latency-256b", "alps-osu-gpu-reframe", "gpu", "osu_latency", 256,
          "osu_latency -d cuda 256 bytes, one process per node, two GH200 nodes taken on one "
          "switch (0 hops)", None, kind="calibrated",
          fitted="software.gpu_mpi_overhead (alps preset)"),
    _alps("alps-osu-gpu-latency-4mib", "alps-osu-gpu-reframe", "gpu", "osu_latency",
          4194304, "osu_latency -d cuda 4 MiB between two GH200 nodes on one switch "
          "(GPUDirect RDMA through the GPU's NIC; nothing fitted to a bandwidth)",
          (CHECK_LATENCY_REASON, 0.15)),
    _alps("alps-osu-gpu-bw-4mib", "alps-osu-bw-gpu-reframe", "gpu", "osu_bw", 4194304,
          "osu_bw -d cuda 4 MiB, one pair streaming between two GH200 nodes on one switch",
          (CHECK_BANDWIDTH_REASON, 0.15)),
    _alps("alps-osu-gpu-bw-256b", "alps-osu-bw-gpu-reframe", "gpu", "osu_bw", 256,
          "osu_bw -d cuda 256 bytes, one pair streaming between two GH200 nodes (set by the "
          "per-message GPU-buffer software time)", (CHECK_BANDWIDTH_REASON, 0.15)),
    _alps("alps-osu-host-latency-256b", "alps-osu-gpu-reframe", "host", "osu_latency", 256,
          "osu_latency 256 bytes on host buffers, two GH200 nodes on one switch",
          (ALPS_HOST_LATENCY_REASON, 0.25)),
    _alps("alps-osu-host-latency-4mib", "alps-osu-gpu-reframe", "host", "osu_latency",
          4194304, "osu_latency 4 MiB on host buffers, two GH200 nodes on one switch",
          (CHECK_LATENCY_REASON, 0.15)),
    _alps("alps-osu-host-bw-4mib", "alps-osu-bw-gpu-reframe", "host", "osu_bw", 4194304,
          "osu_bw 4 MiB on host buffers, one pair streaming between two GH200 nodes",
          (CHECK_BANDWIDTH_REASON, 0.15)),
    _alps("alps-osu-host-bw-256b", "alps-osu-bw-gpu-reframe", "host", "osu_bw", 256,
          "osu_bw 256 bytes on host buffers, one pair streaming between two GH200 nodes",
          (ALPS_HOST_BANDWIDTH_REASON, 0.50)),
    _lumi_g("lumi-g-osu-gpu-latency-8b", "lumi-osu-reframe", "osu_latency", "latency_s",
            "osu_latency -d rocm 8 bytes, one process per node, two LUMI-G nodes taken on "
            "one switch (0 hops)", CALIBRATION_REASON, kind="calibrated",
            fitted="software.gpu_mpi_overhead (lumi-g preset)", tolerance=0.01),
    _lumi_g("lumi-g-osu-gpu-multi-lat-8b", "lumi-osu-reframe", "osu_multi_lat", "latency_s",
            "osu_multi_lat -d rocm 8 bytes, 8 GCD pairs between two LUMI-G nodes on one "
            "switch, two GCDs on each NIC (node.gpu_nics)", LUMI_G_LATENCY_REASON,
            processes=8, kind="predicted", open_reason=LUMI_G_MULTI_LAT_OPEN,
            open_tolerance=0.25),
    _lumi_g("lumi-g-osu-gpu-bw-4mib", "lumi-osu-bw-reframe", "osu_bw",
            "streaming_bandwidth_Bps", "osu_bw -d rocm 4 MiB, one GCD pair streaming between "
            "two LUMI-G nodes on one switch", LUMI_G_BANDWIDTH_REASON, kind="predicted"),
    _lumi_g("lumi-g-osu-gpu-mbw-mr-4mib", "lumi-osu-bw-reframe", "osu_mbw_mr",
            "streaming_bandwidth_Bps", "osu_mbw_mr -d rocm 4 MiB, 8 GCD pairs streaming "
            "between two LUMI-G nodes (the sum over pairs; two GCDs share each of the 4 NICs)",
            LUMI_G_BANDWIDTH_REASON, processes=8, pairs=8, kind="predicted"),
    Claim("lumi-g-osu-bw-cupy-4mib", LUMI_G + "LUMI ReFrame regression checks, "
          "check_mpi4py.py (mpi4py + CuPy port of osu_bw) reference values, lumi:gpu; table "
          "lumi-g-osu-bw-cupy-reframe",
          "osu_bw (mpi4py + CuPy port) 4 MiB, one GCD pair streaming between two LUMI-G nodes "
          "on one switch",
          table_row("lumi-g-osu-bw-cupy-reframe", nodes=2)["bandwidth_bytes_per_s"] / 1e9, "GB/s",
          0.10, "relative", lambda: gpu_p2p("lumi-g", 4194304, "streaming_bandwidth_Bps") / 1e9,
          kind="post-hoc", tolerance_reason=LUMI_G_BANDWIDTH_REASON, machine="lumi-g",
          predict_on=lambda m: gpu_p2p(m, 4194304, "streaming_bandwidth_Bps") / 1e9,
          busy_on=lambda m, _draw: gpu_busy(m, 4194304, "streaming_bandwidth_Bps", scale=1e-9)),
    Claim("lumi-g-osu-bw-cupy-ipc-4mib", LUMI_G + "LUMI ReFrame regression checks, "
          "check_mpi4py.py (mpi4py + CuPy port of osu_bw) reference values, lumi:gpu; table "
          "lumi-g-osu-bw-cupy-reframe",
          "osu_bw (mpi4py + CuPy port) 4 MiB from GCD 0 to GCD 1 of one LUMI-G node (GPU IPC "
          "over the in-package Infinity Fabric)",
          table_row("lumi-g-osu-bw-cupy-reframe", nodes=1)["bandwidth_bytes_per_s"] / 1e9, "GB/s",
          0.10, "relative", lambda: gpu_pair_stream("lumi-g", 4194304, 0, 1) / 1e9,
          kind="post-hoc", tolerance_reason=LUMI_G_BANDWIDTH_REASON,
          open_reason=LUMI_G_IPC_OPEN, open_tolerance=0.75, machine="lumi-g",
          predict_on=lambda m: gpu_pair_stream(m, 4194304, 0, 1) / 1e9,
          busy_on=lambda m, _draw: gpu_pair_busy(m, 4194304, 0, 1, 1e-9)),
]
