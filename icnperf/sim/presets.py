"""Named router micro-architectures for the simulator (``simulate traffic --router``).

Each preset is the keyword arguments of a ``RouterConfig`` (cycles and flits); options
given on the command line override single values.

* ``default``: a small input-queued router, 2 VCs x 8 flits per port, one cycle per
  router, link and endpoint link, 1-flit packets, oldest-first allocation; the setup of
  the registered cross-checks (and once of the retired router efficiency η = 0.67).
* ``nudt``: the NUDT paper's simulator (Jiang et al., simulator setup): routing computation,
  VC allocation, switch allocation and switch traversal one cycle each, 8 VCs x 300 flits
  per input port, router-router links 50 cycles, router-endpoint links 5 cycles, 1-flit
  packets (allocation priority not stated there; oldest first here).
* ``booksim``: BookSim2's input-queued router as its public reference runs set it
  (the bundled booksim-* tables' sidecars, "Router"): 4 VCs x 8 flits, routing, VC
  allocation, switch allocation and switch traversal one cycle each, iSLIP VC and switch
  allocation with one iteration and round-robin arbiters, internal speedup 1; its torus
  routing (a VC class per dimension, random direction at a k/2 tie); links and endpoint
  links 1 cycle (its runs: torus links 2, dragonfly 10 local and 100 global: give
  ``--link-delay`` / ``--global-link-delay``), 1-flit packets.
"""

from __future__ import annotations

from icnperf.errors import InputError

ROUTER_PRESETS = {
    "default": {"vcs": 2, "buffer": 8, "router_delay": 1, "link_delay": 1,
                "terminal_delay": 1, "packet_flits": 1, "arbiter": "age"},
    "nudt": {"vcs": 8, "buffer": 300, "routing_delay": 1, "vc_alloc_delay": 1,
             "switch_alloc_delay": 1, "switch_traversal_delay": 1, "link_delay": 50,
             "terminal_delay": 5, "packet_flits": 1, "arbiter": "age"},
    "booksim": {"vcs": 4, "buffer": 8, "routing_delay": 1, "vc_alloc_delay": 1,
                "switch_alloc_delay": 1, "switch_traversal_delay": 1, "link_delay": 1,
                "terminal_delay": 1, "packet_flits": 1, "arbiter": "round-robin",
                "allocator": "islip", "internal_speedup": 1.0, "dateline": "dimension",
                "ring_ties": "random"},
}


def router_settings(preset: str, **given) -> dict:
    """The preset's RouterConfig keywords with every value in ``given`` that is not None
    put over it; InputError for an unknown preset."""
    if preset not in ROUTER_PRESETS:
        raise InputError(f"--router: unknown router preset {preset!r} (choose from"
                         f" {', '.join(ROUTER_PRESETS)})")
    settings = dict(ROUTER_PRESETS[preset])
    settings.update({k: v for k, v in given.items() if v is not None})
    return settings
