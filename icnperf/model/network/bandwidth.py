"""Bandwidth and message rate of one process: ping-pong and streaming.

Ping-pong bandwidth m / T(m); the interval between messages streamed back to back, the
streaming bandwidth and the message rate it gives; and the message-rate ceiling V / L.
Units: bytes, seconds, bytes/s, messages/s.

Sources: the MsgRate test and the bound V / L of Klimov et al. (Klimov, Orlov, Shvorin),
section "Message rate"; the interval is LogGP's max(g, (m - 1)G) (Alexandrov et al., SPAA
1995) with the model's exact per-message wire time.
"""

from __future__ import annotations

from icnperf.model import ops


# --- bandwidth and message rate ---------------------------------------------------------


def pingpong_bandwidth(m, latency_s):
    """Ping-pong bandwidth: m / T(m), T the one-way latency (half the round trip)."""
    with ops.quiet():
        return m / ops.array(latency_s)


def streaming_interval(serialization, *, overhead_per_side, processes=1):
    """Time per message when one sender streams messages back to back (the MsgRate test of
    Klimov et al.): Δ = max(o, p · T_ser(m)).

    Each process pays its own software overhead o per message (sender and receiver overlap
    across messages, so the larger side, o, paces the stream), while the p processes of a
    node share one adapter and its link, which serializes all their messages
    (p = 1: one process per node). This is LogGP's max(g, (m - 1)G) with the model's exact
    per-message wire time in place of the linear (m - 1)G.
    """
    return ops.maximum(overhead_per_side, processes * serialization)


def streaming_bandwidth(m, interval):
    """Streaming bandwidth of one process: m / Δ(m) (Klimov et al.: L / time per message)."""
    with ops.quiet():
        return m / ops.array(interval)


def message_rate(interval):
    """Messages per second of one process: 1 / Δ(m) (Klimov et al.'s message rate)."""
    with ops.quiet():
        return 1 / ops.array(interval)


def rate_bound(m, link_bandwidth):
    """The message-rate ceiling V / L of Klimov et al. ("Message rate"): an L-byte message
    cannot be sent faster than L / V on a link of peak bandwidth V. Here L = m, V =
    link_bandwidth. The model's rate respects it: Δ ≥ F(m)·f / B_link ≥ m / V. Infinite at
    m = 0."""
    with ops.quiet():
        return link_bandwidth / ops.array(m)

