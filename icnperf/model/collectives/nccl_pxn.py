"""PXN (PCI x NVLink): a GPU's inter-node data sent through the NIC of another GPU of its
node, reached over the scale-up fabric, so that traffic bound for rail i of the remote node
leaves through rail i here. :func:`pxn_route` says, for one algorithm and operation on a
:class:`.nccl_fabric.Fabric`, whether the library relays so and what it costs; the forms of
:mod:`.nccl` add it to their inter-node steps.

When NCCL relays (read for understanding in NCCL 2.30.7, src/graph/paths.cc and
src/graph/search.cc; no code taken):

* PXN is on by default since NCCL 2.12 (NCCL_PXN_DISABLE = 0); RCCL 2.18-2.21 ship it off
  (their default 1), so under RCCL nothing is relayed (``LibraryTables.pxn``).
* A GPU g may reach NIC n through GPU p when p is the GPU NIC n is local to, p reaches n
  within a PCIe switch or a C2C link (path PXB or P2C: icnperf's ``node.gpu_nic_path``
  ``pcie-switch``, ``gpu-attached``, ``c2c``; not ``cpu``, through the host's root
  complex), p and g are joined by NVLink or NVSwitch (path NVL: one link on a direct
  fabric, any pair on a switched one), and g's own path to n goes through the CPU.
* Point-to-point (send/recv, all-to-all; NCCL_P2P_PXN_LEVEL = 2): a message to a remote
  GPU of local index d leaves through the NIC of local GPU d, relayed through d when d is
  not g, so every inter-node message stays on its rail.
* Ring: the search first looks for rings that enter and leave a node through the same NIC
  (NET n -> GPU a -> ... -> GPU x -> NET n); the last GPU x reaches NIC n, a's, over PXN.
  So each inter-node step of a ring whose node holds GPUs on more than one NIC is relayed.
* Tree: NCCL's tree graph is a *balanced tree* (src/init.cc; search.cc counts half the
  network bandwidth on each of the chain's first two GPUs): the parent is reached from the
  chain's first GPU a, local to NIC n, the children from the second GPU b through the same
  NIC n, so b's sends to the children go over PXN. PXN relays sends only (paths.cc: "only
  enabling it in the GPU->NIC direction"), so of the tree's 2 lg n inter-node steps the lg n
  of the broadcast down the tree are relayed, those of the reduction up are not. CollNet,
  NVLS-tree and PAT (one GPU per node) are not relayed.

The cost: one more scale-up hop before the NIC (``node.scaleup_latency``, hardware; the
forms take max(stated, hardware) per step, so it shows only where the hardware path
exceeds the library's stated network step), and, for all-to-all, the relayed bytes on the
sender's scale-up link. What it buys: the inter-node traffic stays on its rail
(``rail_aligned``), which a rail-optimised network carries within its rail switches.
"""

from __future__ import annotations

from typing import NamedTuple

NEAR_NIC_PATHS = ("pcie-switch", "gpu-attached", "c2c")
"""``node.gpu_nic_path`` values within NCCL's PXN reach of the NIC (PXB or P2C)."""


class Pxn(NamedTuple):
    """Whether and how a collective's inter-node steps are relayed. ``relay_latency`` (s)
    joins the hardware latency of a relayed inter-node step, ``relayed_steps`` the fraction
    of the inter-node steps relayed; ``relayed_fraction`` is the part of a GPU's inter-node
    bytes that first crosses its scale-up link (all-to-all); ``reason`` says why (not) in a
    phrase."""

    applies: bool
    reason: str
    relay_latency: float = 0.0
    relayed_fraction: float = 0.0
    rail_aligned: bool = False
    relayed_steps: float = 0.0


def _linked(fabric, a: int, b: int) -> bool:
    return fabric.linked is None or (min(a, b), max(a, b)) in fabric.linked


def _relays(fabric, sender: int) -> list[int]:
    """The local GPUs through which ``sender`` relays: on another NIC, joined to it."""
    nics = fabric.gpu_nic_indices
    return [d for d in range(len(nics))
            if nics[d] != nics[sender] and _linked(fabric, sender, d)]


def pxn_route(fabric, pxn_default: bool, operation: str, algorithm: str) -> Pxn:
    """The PXN relay of ``algorithm`` running ``operation`` on ``fabric`` (a
    :class:`.nccl_fabric.Fabric`; not imported, so that the network term of
    :mod:`.nccl_network`, which the fabric imports, can call this) under a library whose PXN
    is on by default when ``pxn_default`` (module docstring)."""
    if not pxn_default:
        return Pxn(False, "PXN is off by default in this library")
    if fabric.domains == 1:
        return Pxn(False, "no inter-node step")
    if algorithm not in ("ring", "tree", "p2p"):
        return Pxn(False, f"{algorithm} sends across nodes from the NIC's own GPU")
    if len(set(fabric.gpu_nic_indices)) < 2:
        return Pxn(False, "the GPUs of a node share one NIC")
    if fabric.nic_path not in NEAR_NIC_PATHS:
        return Pxn(False, f"the NIC is reached through the host ({fabric.nic_path})")
    hop = fabric.scaleup_latency
    nics = fabric.gpu_nic_indices
    gpus = len(nics)
    if algorithm in ("ring", "tree"):
        if fabric.linked is not None and not fabric.linked:
            return Pxn(False, "no scale-up link to relay over")
        if algorithm == "tree":
            return Pxn(True, "the tree's second GPU sends to the children through the first "
                       "GPU's NIC", hop, 0.0, True, 0.5)
        return Pxn(True, "the ring leaves a node through its entry GPU's NIC", hop, 0.0, True,
                   1.0)
    if operation == "sendrecv":
        last = gpus - 1
        if nics[last] == nics[0] or not _linked(fabric, last, 0):
            return Pxn(False, "the shift's sender is on its peer's rail or not linked to it")
        return Pxn(True, "the shift's last GPU sends through GPU 0's NIC", hop, 1.0, True, 1.0)
    relayed = max(len(_relays(fabric, g)) for g in range(gpus))
    off_rail = max(sum(nics[d] != nics[g] for d in range(gpus)) for g in range(gpus))
    if relayed == 0:
        return Pxn(False, "no GPU on another rail is linked to the sender")
    return Pxn(True, "messages to another rail go through that rail's GPU", hop,
               relayed / gpus, relayed == off_rail, 1.0)
