"""The node's side of point-to-point messages: a node's processes spread over its network
interfaces, and messages that never leave the node (shared memory).

* **Several NICs per node** (``node.nics_per_node``, k; Frontier's four Slingshot NICs,
  Summit's two EDR rails, Fugaku's six Tofu TNIs): the p processes of a node are spread
  over the k NICs round robin, so ceil(p / k) of them share one NIC and its link
  (:func:`processes_per_nic`). Each NIC keeps the per-NIC rates of the machine file
  (``network.host_bandwidth``, ``network.link_bandwidth``), so the node's injection
  bandwidth and message rate are k times one NIC's when every NIC is busy
  (:func:`node_injection_bandwidth`). A single message still crosses one NIC: striping one
  message over several rails is not modelled.
* **Messages inside a node** travel through shared memory at the machine's published
  intra-node MPI latency and bandwidth (``node.shared_memory_latency``,
  ``node.shared_memory_bandwidth``, osu_latency / osu_bw between two processes of one
  node): T(m) = L_shm + m / B_shm (:func:`shared_memory_time`), the same latency-bandwidth
  form as the network path, with the MPI software already inside L_shm. The collectives
  call it for their node-local stages (:func:`shared_memory_parameters` reads the keys).

Units: bytes, seconds, bytes/s; counts are whole numbers. Sources: the latency-bandwidth
(Hockney) form T = α + m/β (R. Hockney, "The communication challenge for MPP: Intel
Paragon and Meiko CS-2", Parallel Computing 20, 1994); NIC sharing as in
:mod:`icnperf.model.network.contention` (Peryshkova), per NIC.
"""

from __future__ import annotations

from icnperf.model import ops

SHARED_MEMORY_KEYS = {"shared_memory_latency": "node.shared_memory_latency",
                      "shared_memory_bandwidth": "node.shared_memory_bandwidth"}
"""Parameter name -> the machine key it is read from."""


def nics_per_node(machine) -> int:
    """``node.nics_per_node`` of a machine (absent: 1)."""
    return int(machine.get("node.nics_per_node", 1))


def processes_per_nic(processes, nics=1):
    """Processes that share the busiest NIC when p processes are spread round robin over
    k NICs: ceil(p / k) (p = 5, k = 4: 2)."""
    return ops.ceil(processes / nics)


def node_injection_bandwidth(per_nic_bandwidth, nics=1):
    """Bandwidth a node injects with every NIC busy: k x the per-NIC bandwidth (each NIC
    has its own host interface and link)."""
    return nics * per_nic_bandwidth


def shared_memory_time(m, *, shared_memory_latency, shared_memory_bandwidth):
    """One m-byte MPI message between two processes of one node:

        T_shm(m) = L_shm + m / B_shm

    L_shm the published intra-node small-message latency (MPI software included), B_shm the
    intra-node bandwidth of large messages. No network resource is used."""
    return shared_memory_latency + m / shared_memory_bandwidth


def shared_memory_parameters(machine) -> dict:
    """``shared_memory_latency`` and ``shared_memory_bandwidth`` of a machine (SI); an
    InputError naming the missing key and its ``--set`` when one is absent."""
    return {name: float(machine.require(path)) for name, path in SHARED_MEMORY_KEYS.items()}
