"""OSU collectives on GPU buffers (issue #30 item 6): LUMI-G's osu_allreduce -d rocm
references across nodes, against ``predict collective allreduce --api mpi --buffers gpu``
(GPU-aware MPI: the GPU-buffer path of part 1, the node-local steps over the scale-up
fabric, the MPI library's own choice of algorithm among the node leaders).

Every reading, band and kind below was written before any of these claims' results was
computed. The rows are in table ``lumi-osu-reframe`` (the LUMI team's ReFrame regression
references, not published runs; 8 bytes, 8 ranks per node, one per GCD): 2 and 4 nodes,
held out. The 1-node row (1.25 us among 8 GCDs) stays unregistered for the reason part 1
gave (below one modelled IPC message). The nodes are taken as the first ones of the machine
(the checks do not say where they sit).

Results at registration: 4 nodes pass (13.0 us against 10.5, +24 %); 2 nodes miss (10.5
us against 6.0, +76 %) and are open, the reason written after that first evaluation.

Kind: predicted (the GPU-buffer MPI overhead of lumi-g is calibrated on osu_latency at
8 bytes between two nodes, a different benchmark; nothing is fitted to these rows).
"""

from __future__ import annotations

from icnperf.validation.claim import Claim

LUMI_G_ALLREDUCE = (
    "LUMI-G (CSC, preset lumi-g): LUMI ReFrame regression checks, osu_check.py reference "
    "values (regression references, not published runs), lumi:gpu (-d rocm); table "
    "lumi-osu-reframe")
BAND_REASON = (
    "±25 %: the held-out goal of issue #30 (75 % of points within 25 %), written before the "
    "value was computed; the check's own band is ±0.2 us (2 nodes) and ±0.25 us (4 nodes), "
    "3 %, tighter than the model's unknowns (where the nodes sit, Cray MPICH's GPU-buffer "
    "collective path)")


TWO_NODE_OPEN = (
    "written after the first evaluation (model 10.5 us, +76 %; the 4-node claim passed at "
    "13.0 us against 10.5, +24 %): the model's node-local phases are a binomial reduce and "
    "broadcast over the 8 GCDs, 6 GPU IPC messages of ~1.34 us each (the GPU-buffer "
    "overhead calibrated on osu_latency), about 8 us before the leaders' step; the 1-node "
    "reference of the same check is 1.25 us in all, so Cray MPICH does not send 6 IPC "
    "messages inside a node for 8 bytes (suspected: a host-staged or single-kernel "
    "node-local reduction). Not fitted, no constant changed; the 4-node pass carries the "
    "same excess, offset by its leaders' step")


def _measured(nodes: int) -> float:
    from icnperf.data.measurements.tables import load_table

    rows = [r for r in load_table("lumi-osu-reframe").included().rows()
            if r["partition"] == "gpu" and r["benchmark"] == "osu_allreduce"
            and r["nodes"] == nodes]
    (row,) = rows
    return row["latency_s"] * 1e6


def gpu_allreduce_us(nodes: int, size: float = 8.0, machine=None) -> float:
    """icnperf's time (us) of an 8-byte MPI all-reduce on GPU buffers over ``nodes`` lumi-g
    nodes of 8 ranks: node-local phases over the GCDs' IPC path, the algorithm the machine's
    MPI library picks among the node leaders (as ``predict collective --buffers gpu
    --ppn 8 --algorithm auto``). ``machine``: a machine object in place of the lumi-g
    preset (a drawn copy, say)."""
    from icnperf.data.machine import load_machine, with_buffers
    from icnperf.model.collectives import Layout, collective_time, machine_choice

    machine = with_buffers(load_machine("lumi-g") if machine is None else machine, "gpu")
    layout = Layout.from_topology(machine.topology).on_part(nodes)
    algorithm, _, _ = machine_choice(machine, "allreduce", size, nodes, 8.0)
    result = collective_time(machine, "allreduce", algorithm, [size], layout=layout,
                             api="mpi", processes_per_node=8, hierarchy="node")
    return float(result.time[0]) * 1e6


def gpu_allreduce_busy(nodes: int, machine, size: float = 8.0):
    """:func:`gpu_allreduce_us` as ``predict collective --production`` charges it
    (icnperf.validation.production.Busy, value in us): the hierarchical all-reduce's six
    node-local rounds (2 ceil(lg 8)) wait for all 8 x ``nodes`` GCD ranks, the leaders'
    steps for the ``nodes`` leaders, and only the leaders' steps wait the background
    (model.production.collective_production)."""
    from icnperf.data.machine import with_buffers
    from icnperf.model.collectives import Layout, machine_choice
    from icnperf.model.production import collective_production
    from icnperf.validation.production import Busy

    machine = with_buffers(machine, "gpu")
    layout = Layout.from_topology(machine.topology).on_part(nodes)
    algorithm, _, _ = machine_choice(machine, "allreduce", size, nodes, 8.0)
    part = collective_production(machine, "allreduce", algorithm, size, layout, "mpi",
                                 quantiles=(), processes_per_node=8, hierarchy="node")
    return Busy(part["time_s"], part["steps"], part["ranks"], part["queueing_per_step_s"],
                value_of=lambda time: time * 1e6, groups=part["groups"],
                waiting_steps=part["waiting_steps"])


CLAIMS = [
    Claim(f"lumi-g-osu-gpu-allreduce-8b-{nodes}n", LUMI_G_ALLREDUCE,
          f"osu_allreduce -d rocm 8 bytes, 8 GCDs per node on {nodes} LUMI-G nodes (MPI on "
          "GPU buffers, the library's algorithm among the node leaders)",
          _measured(nodes), "us", 0.25, "relative",
          (lambda nodes=nodes: gpu_allreduce_us(nodes)),
          kind="predicted", tolerance_reason=BAND_REASON, machine="lumi-g",
          predict_on=(lambda machine, nodes=nodes: gpu_allreduce_us(nodes, machine=machine)),
          busy_on=(lambda machine, _draw, nodes=nodes: gpu_allreduce_busy(nodes, machine)),
          **({"open_reason": TWO_NODE_OPEN, "open_tolerance": 0.9} if nodes == 2 else {}))
    for nodes in (2, 4)
]
