"""The rendezvous protocol of a large point-to-point message (``software.rendezvous_threshold``).

A message larger than the threshold is not sent in one go. Its header leaves first with the
first part of the data; the receiver's NIC matches it against the posted receive and pulls
the rest from the sender with a Get, a header-only request one way and the data the other,
in hardware (libfabric's CXI provider on Slingshot-11, fi_cxi(7): "Long messages are
transferred using a rendezvous protocol ... the remainder of the payload is pulled from the
source using an RDMA Get operation ... the Get is performed by hardware and the operation
completes without software progress"; eager up to FI_CXI_RDZV_THRESHOLD +
FI_CXI_RDZV_GET_MIN, prov/cxi's max_eager_size).

Against the eager message, whose data follows its header at once, the data now waits for two
more one-way trips of a header-only packet: the header's to the receiver and the Get
request's back to the sender. The serialization of the data is the same (its first part
rides with the header, the rest follows the Get), so

    t_rendezvous = 2 · t_hw(0 B, h)   for m > threshold, else 0,

t_hw(0 B, h) the hardware latency of a header-only packet over the message's hops
(zero_load.hardware_latency at m = 0: the path latency plus one header's serialization).
No software overhead is added: the match and the Get are the NIC's. A stream of messages
(osu_bw's window) overlaps the Gets of one message with the data of others, so the
streaming bandwidth keeps no such term; only one message's latency (a ping-pong) pays it.
The collectives' per-step charge does not include it (docs/machine-format.md).
"""

from __future__ import annotations

import numpy as np

KEY = "software.rendezvous_threshold"
"""The machine key: the largest message sent eagerly, bytes (absent: eager at every size)."""


def rendezvous_threshold(machine, api: str) -> float | None:
    """The machine's rendezvous threshold (bytes) for ``api``: MPI messages only (a SHMEM
    put and the bare hardware have no rendezvous); None when absent."""
    if api != "mpi":
        return None
    value = machine.get(KEY)
    return None if value is None else float(value)


def rendezvous_delay(message_bytes, header_latency, threshold: float):
    """Seconds the rendezvous adds to one message of ``message_bytes`` (array): two one-way
    trips of a header-only packet, ``header_latency`` (s, the hardware latency of a 0-byte
    message over the same hops), for a message larger than ``threshold`` bytes; 0 else
    (module docstring)."""
    m = np.asarray(message_bytes, dtype=float)
    return np.where(m > threshold, 2.0 * np.asarray(header_latency, dtype=float), 0.0)
