"""Published nccl-tests and rccl-tests bus bandwidths (issue #30 item 6): the collective
library's all-reduce on the GPU presets, against icnperf's cost of the algorithm the library
picks (``--api nccl|rccl --algorithm auto``), as nccl-tests reports it (busbw).

Every reading, band and kind below was written before any of these claims' results was
computed. Disclosed: the model's busbw on dgx-h100 (one node, up to 4 GiB) and on frontier
(whose GPU and network keys equal lumi-g's) at neighbouring sizes had been printed while the
model was built, before the claims; nothing was changed after the claims were computed.

* LUMI-G (table ``lumi-g-rccl-tests-reframe``, a ReFrame regression reference, not a
  published run): rccl-tests all_reduce_perf, 16 GCDs on two nodes, 128 MiB, busbw 85 GB/s
  (the in-place column). Held out.
* Two 8-H100 nodes with 8 NDR NICs each (table ``nccl-tests-ndr-per-nic``, an NCCL
  maintainer's stated expectation, not a run): 46-48 GB/s per NIC with NCCL_ALGO=RING,
  i.e. a busbw of 8 x 47 GB/s, taken at 8 GiB against icnperf's ring. Held out; written
  after the claims above were evaluated (their results were known, this one's not).
* 8x H100 SXM5 and 8x A100 SXM4 NVSwitch nodes (table ``nccl-tests-h100-a100-references``,
  a cloud provider's stated ranges "at large sizes", not a run): one node, all_reduce_perf,
  taken at 8 GiB, against the middle of each range, on the dgx-h100 and dgx-a100 presets.
  Held out.

Results at registration: the two-node DGX H100 ring within its band (399 GB/s against
376, +6 %); dgx-a100 within its band (300 GB/s against 240, +25 %, at the edge); lumi-g (48.9,
42 % low) and dgx-h100 (699, 49 % high) missed and were opened with their suspected causes:
one Hamiltonian ring's bottleneck link on a direct fabric where RCCL runs rings over
different links at once, and an NVLS form at the full link rate where NCCL rates NVLS below
it.

Kinds: all four are post-hoc. After those results were seen, the model took the
mechanisms the misses pointed to (several link-disjoint rings on direct fabrics, the
libraries' stated per-link NVLink/xGMI rates and NCCL's stated NVLS efficiency; docs/nccl.md),
which moved all four (lumi-g 48.9 -> 95.7, dgx-h100 NVLS 699 -> 490, ring 399 -> 370,
dgx-a100 300 -> 240 GB/s) into their unchanged bands. The constants are the libraries'
published ones, not fitted, but they were chosen with these results in view, so the claims
count apart from the predictions; the held-out rows judge the mechanisms. Their natures
differ from a published run and are said in each source string: a regression reference is
what a healthy system is expected to reach, a stated range is a provider's expectation.

Versions (disclosed): when the RCCL presets gained software.ccl_version (2.20.5, the ROCm
6.2 series the centres provided in 2025), the lumi-g claim was seen to fail under it (128.3
GB/s, RCCL 2.20's model picking the tree). Its prediction then took the RCCL its reading was
made with, 2.12.12 (:data:`READING_RCCL`, with the evidence), found from the check's history
after the failure was seen; reading, band and kind unchanged (95.7 GB/s, as before the
presets named a version).
"""

from __future__ import annotations

from icnperf.validation.claim import Claim
from icnperf.validation.claims._lookup import table_row

HELD_OUT_REASON = (
    "±25 %: the held-out goal of issue #30 (at least 75 % of points within 25 %), written "
    "before the value was computed; the references are expectations (a -5 % check floor, a "
    "20 % health margin), not single runs")


def auto_busbw(machine_name: str, library: str, operation: str, nodes: int,
               size: float, ccl_version: str | None = None) -> float:
    """icnperf's busbw (GB/s) of the algorithm ``library`` picks, on ``nodes`` nodes of the
    preset with every GPU a rank; ``ccl_version`` the library version the reading was made
    with, where it is not the preset's (software.ccl_version)."""
    from icnperf.data.machine import load_machine
    from icnperf.model.collectives.nccl_api import ccl_collective

    machine = load_machine(machine_name)
    if ccl_version is not None:
        machine = machine.with_overrides([f"software.ccl_version={ccl_version}"])
    rows, _ = ccl_collective(machine, operation, [nodes], [size], "auto", library)
    (row,) = [r for r in rows if r["algorithm"] == "auto"]
    return row["busbw_Bps"] / 1e9


def ring_busbw(machine_name: str, nodes: int, size: float) -> float:
    """icnperf's busbw (GB/s) of NCCL's ring at its fastest protocol (NCCL_ALGO=RING)."""
    from icnperf.data.machine import load_machine
    from icnperf.model.collectives.nccl_api import ccl_collective

    rows, _ = ccl_collective(load_machine(machine_name), "allreduce", [nodes], [size],
                             "nccl-ring", "nccl")
    return max(r["busbw_Bps"] for r in rows) / 1e9


def _per_nic_middle() -> float:
    row = table_row("nccl-tests-ndr-per-nic", nodes=2)
    low, high = row["busbw_per_nic_low_bytes_per_s"], row["busbw_per_nic_high_bytes_per_s"]
    return row["nics_per_node"] * (low + high) / 2 / 1e9


def _middle(system: str) -> float:
    row = table_row("nccl-tests-h100-a100-references", system=system)
    return (row["busbw_low_bytes_per_s"] + row["busbw_high_bytes_per_s"]) / 2 / 1e9


GIB8 = 8 * 2.0 ** 30

READING_RCCL = {"lumi-g": "2.12.12"}
"""The RCCL a reading was made with, where it is not the preset's software.ccl_version.
LUMI's 85 GB/s reference was set on 2024-01-02 (lumi-reframe-tests commit e708cc43, 70 GB/s
before) by a check loading LUMI/22.12 and its rocm module, ROCm 5.2.3 from 2023-04 until
2024-08-16 (LUMI-SoftwareStack CrayPE/CPEpackages_22.12.csv), which ships RCCL 2.12.12
(ROCm/rccl tag rocm-5.2.3). No 2.12 tables are transcribed, so auto takes rccl-2.7's; its pick
is 2.12's too: 2.12's tuning model 3 (rome_model_74's tuning=3, src/graph/tuning.cc at tag
rocm-5.2.3) rates Simple on two nodes at 0.95 of the search's bandwidth for the tree and 1.00
for the ring, and at 128 MiB (log2(S / 64) = 21) corrects the tree by 0.5 and the ring by 1.0
(treeCorrectionFactor, ringCorrectionFactor): algorithm bandwidth 0.95 x 0.5 x 0.5 = 0.24 of
the bus bandwidth for the tree against 16 / 30 = 0.53 for the ring; LL is rated 0.08 and
LL128 is off on AMD GPUs. RCCL 2.12 runs the ring with Simple here, as icnperf's rccl-2.7
pick does. Under the preset's 2.20.5
(tuning model 3 rates the two-node tree at 1.75) it would pick the tree: 128.3 GB/s by
icnperf, 51 % above the reference, which was kept as the check's floor (85 GB/s, -5 %, no
upper bound) after the check moved to rocm/6.2.2 (2025-09-23) and so bounds that run only
from below."""

CLAIMS = [
    Claim("lumi-g-rccl-allreduce-busbw-128mib", "LUMI-G (CSC, preset lumi-g): LUMI ReFrame "
          "regression checks, rccl_test.py reference value (regression reference, not a "
          "published run), lumi:gpu; table lumi-g-rccl-tests-reframe",
          "rccl-tests all_reduce_perf busbw at 128 MiB, 16 GCDs on two LUMI-G nodes (RCCL's "
          "pick, icnperf's cost), under RCCL 2.12.12, the version the reference was set "
          "with (ROCm 5.2.3, LUMI/22.12, 2024-01-02)",
          table_row("lumi-g-rccl-tests-reframe", nodes=2)["busbw_bytes_per_s"] / 1e9, "GB/s",
          0.25, "relative",
          lambda: auto_busbw("lumi-g", "rccl", "allreduce", 2, 134217728.0,
                             READING_RCCL["lumi-g"]),
          kind="post-hoc", tolerance_reason=HELD_OUT_REASON),
    Claim("dgx-h100-nccl-allreduce-busbw-1node", "8x H100 SXM5 NVSwitch node (preset "
          "dgx-h100): a cloud provider's stated nccl-tests reference range 460-480 GB/s at "
          "large sizes (stated expectation, not a run); table "
          "nccl-tests-h100-a100-references",
          "nccl-tests all_reduce_perf busbw at 8 GiB on one 8-GPU node (NCCL's pick, "
          "icnperf's cost), against the range's middle",
          _middle("8x H100 SXM5 NVLink"), "GB/s", 0.25, "relative",
          lambda: auto_busbw("dgx-h100", "nccl", "allreduce", 1, GIB8),
          kind="post-hoc", tolerance_reason=HELD_OUT_REASON),
    Claim("dgx-h100-nccl-ring-busbw-2nodes", "two 8-H100 nodes, 8 NDR 400G NICs each "
          "(preset dgx-h100): an NCCL maintainer's stated expectation, 46-48 GB/s per NIC "
          "with NCCL_ALGO=RING (stated expectation, not a run; NVIDIA/nccl-tests issue "
          "#290); table nccl-tests-ndr-per-nic",
          "nccl-tests all_reduce_perf busbw at 8 GiB over 16 GPUs on two nodes, NCCL's ring "
          "at its fastest protocol, against 8 NICs x the range's middle (376 GB/s)",
          _per_nic_middle(), "GB/s", 0.25, "relative",
          lambda: ring_busbw("dgx-h100", 2, GIB8),
          kind="post-hoc", tolerance_reason=HELD_OUT_REASON),
    Claim("dgx-a100-nccl-allreduce-busbw-1node", "8x A100 SXM4 NVSwitch node (preset "
          "dgx-a100): a cloud provider's stated nccl-tests reference range 230-250 GB/s at "
          "large sizes (stated expectation, not a run); table "
          "nccl-tests-h100-a100-references",
          "nccl-tests all_reduce_perf busbw at 8 GiB on one 8-GPU node (NCCL's pick, "
          "icnperf's cost), against the range's middle",
          _middle("8x A100 SXM4 NVLink"), "GB/s", 0.25, "relative",
          lambda: auto_busbw("dgx-a100", "nccl", "allreduce", 1, GIB8),
          kind="post-hoc", tolerance_reason=HELD_OUT_REASON),
]
