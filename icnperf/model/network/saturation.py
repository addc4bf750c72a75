"""Saturation throughput of an input-queued virtual-channel network: a closed-form estimate
beside the channel-load bound, every factor a named mechanism of the router.

Loads are flits/cycle on one channel when every endpoint injects 1 flit/cycle
(``model/topology/base.py``); throughputs are flits/endpoint/cycle; times are router
cycles. Every function broadcasts over NumPy arrays (a sweep of configurations is one call).
The derivation, the numbers it is checked against and where it stops being right:
docs/saturation.md.

The estimate is the smallest of four ceilings, each a resource divided by its load:

* **channel**: the busiest channel carries E/γ_max (E the fraction of cycles its output
  port is matched, below);
* **VC class**: the busiest single VC class on one channel (γ_class: the wraparound link
  of a torus ring carries one dateline class only; a dragonfly's global hop one phase
  class) has V_c VCs, each passing at most r_v flits per cycle;
* **injection**: an endpoint's packets enter on V_inj VCs of r_v each;
* **endpoint**: min(1, 1/γ_ejection) times E (the ejection port is a router output too).

Mechanisms (sources):

* **Allocator matching** (one iteration, P ports, w requests per input): a separable
  input-first allocator forwards one request per input, so an output is matched when any
  of the P inputs picked it: E_sep = 1 - (1 - 1/P)^P (the probability of at least one
  request of P uniform ones; Dally & Towles, *Principles and Practices of Interconnection
  Networks*, 2004, §19.3, separable allocators). iSLIP (McKeown, "The iSLIP scheduling
  algorithm for input-queued switches", IEEE/ACM ToN 1999) sends each input's w requests:
  an input requests a given output with q = 1 - (1 - 1/P)^w, an output grants one of its
  requesters, so a request is granted with g = (1 - (1 - q)^P)/(P·q), and an input is
  matched when at least one of its P·q requests is granted: E_islip = 1 - (1 - g)^(P·q)
  (one grant-accept round as in parallel iterative matching, Anderson et al., "High-speed
  switch scheduling for local-area networks", ACM TOCS 1993; derived here). The arbiter
  (round-robin or age) picks which requester wins, not how many outputs are matched, so it
  does not change the mean (it changes fairness: the starvation of the tornado collapse).
* **Head-of-line blocking**: a FIFO input queue whose head waits holds back the packets
  behind it; Karol, Hluchyj & Morgan ("Input versus output queueing on a space-division
  packet switch", IEEE Trans. Commun. 1987) find 2 - √2 = 58.6 % for FIFO inputs where an
  unmemoried random match gives 1 - 1/e = 63.2 %: the ratio κ = (2 - √2)/(1 - 1/e) = 0.927
  is the cost of a head's blocking persisting. With w VCs a blocked head holds back one
  queue of w, so κ_w = 1 - (1 - κ)/w (derived here).
* **Fixed permutations** (tornado, bit-complement, transpose, a seeded permutation, the
  worst case) on fixed paths: no random destination conflicts, so E = 1 and only the VC
  ceilings act (a routing that draws paths keeps the conflicts: the caller decides).
* **Input-port conflicts** under a fixed permutation: a FIFO input whose flows split
  between busy outputs waits out other inputs' heads; the arbiter decides who waits
  (:func:`input_port_ceiling`, :func:`conflict_losses`).
* **Overload accepted rate**: BookSim2's saturation is the larger of the stable runs'
  accepted rate and an overload run's; at overload a permutation's flows take their
  max-min fair rates (:func:`max_min_rates`, Bertsekas & Gallager 1992, §6.5.2).
* **Load balance**: a head waits only while its output is busy; Karol's outputs are all
  equally loaded. Where the router's outputs carry on average the fraction β of the
  bottleneck's load, the lost fraction shrinks to (1 - E·κ_w)·β (derived here; β = 1 on a
  torus under uniform traffic, about 0.7 on a mesh, whose centre channels alone saturate).
* **Internal speedup** S: S allocation rounds per cycle, so an output stays unmatched only
  if every round misses it: E_S = 1 - (1 - E)^S, at most 1 (Dally & Towles §17.3,
  input speedup).
* **Wormhole VC holding** (packet length L): a packet holds its output VC for all its
  flits, so a head may wait for one, at each of the ⌈L/B⌉ routers a blocked packet spans
  (:func:`wormhole_factor`, :func:`packet_span`).
* **VC turnaround** (packet length L): a VC serves one packet at a time; its head spends
  t_v = routing + VC allocation + switch allocation - 1 steps before its first flit can
  leave (BookSim2's iq router: 2 steps; a router that routes while the head waits in the
  buffer drops the routing term; one that allocates in the cycle of arrival: 0), then
  each flit needs a switch grant (1/E attempts): r_v =
  S·L/(t_v + L/E) flits per cycle (wormhole: the VC is held for the whole packet).
* **Credit round trip**: a VC of B flits sends at most B flits per round trip t_crt =
  2·(link + c) + pipeline + 1 cycles (c = 1 where a channel delivers one cycle after its
  latency, BookSim2's; Dally & Towles §16.3, eq. for credit-based flow control), so
  r_v ≤ E·B/t_crt.
* **UGAL**: adaptive routing between the minimal path and Valiant's (two uniform phases,
  twice the uniform load, Valiant & Brebner 1981; Kim, Dally, Scott & Abts, "Technology-
  driven, highly-scalable dragonfly topology", ISCA 2008) reaches the better of the two:
  γ = min(γ_min, 2·γ_uniform) (:func:`ugal_channel_load`).
"""

from __future__ import annotations

import numpy as np

ALLOCATORS = ("separable", "islip")
"""One-iteration switch allocators: separable input-first, or iSLIP (BookSim2's)."""

ARBITERS = ("round-robin", "age")
"""Arbiter priorities: rotating, or oldest packet first (same mean matching, see above)."""

KAROL_KAPPA = (2.0 - np.sqrt(2.0)) / (1.0 - np.exp(-1.0))
"""κ = (2 - √2)/(1 - 1/e) = 0.927: Karol, Hluchyj & Morgan's FIFO saturation over the
memoryless random match (the persistence of head-of-line blocking)."""


def _f(x) -> np.ndarray:
    return np.asarray(x, dtype=float)


def separable_matching(ports) -> np.ndarray:
    """E_sep = 1 - (1 - 1/P)^P: fraction of a saturated router's outputs matched in one
    separable input-first iteration (each input forwards one uniform request)."""
    p = _f(ports)
    return 1.0 - (1.0 - 1.0 / p) ** p


def islip_matching(ports, requests) -> np.ndarray:
    """E_islip = 1 - (1 - g)^(P·q), q = 1 - (1 - 1/P)^w, g = (1 - (1 - q)^P)/(P·q): one
    iSLIP grant-accept round with w requests per input over P outputs (module docstring)."""
    p, w = _f(ports), np.maximum(_f(requests), 1.0)
    q = 1.0 - (1.0 - 1.0 / p) ** w
    g = (1.0 - (1.0 - q) ** p) / (p * q)
    return 1.0 - (1.0 - g) ** (p * q)


def hol_factor(queues) -> np.ndarray:
    """κ_w = 1 - (1 - κ)/w: Karol's head-of-line factor with w VC queues per input."""
    return 1.0 - (1.0 - KAROL_KAPPA) / np.maximum(_f(queues), 1.0)


def matching_efficiency(ports, requests, allocator, speedup=1.0, balance=1.0) -> np.ndarray:
    """E: fraction of cycles a bottleneck output is matched at saturation.

    (allocator matching x head-of-line factor), with ``speedup`` rounds per cycle, its
    loss scaled by the router's load balance β (``balance``, at most 1). ``allocator``:
    ``"separable"`` or ``"islip"`` (a scalar or an array of them)."""
    alloc = np.asarray(allocator)
    if not np.all(np.isin(alloc, ALLOCATORS)):
        raise ValueError(f"unknown allocator {allocator!r}; choose one of"
                         f" {', '.join(ALLOCATORS)}")
    w = np.maximum(_f(requests), 1.0)
    if alloc.ndim == 0:  # one allocator: only its formula (a sweep's common case)
        base = (islip_matching(ports, w) if alloc == "islip" else separable_matching(ports))
    else:
        base = np.where(alloc == "islip", islip_matching(ports, w), separable_matching(ports))
    one = base * hol_factor(w)
    speedup = _f(speedup)
    rounds = one if speedup.ndim == 0 and speedup == 1.0 else 1.0 - (1.0 - one) ** speedup
    return 1.0 - (1.0 - rounds) * np.clip(_f(balance), 0.0, 1.0)


def packet_span(packet_flits, buffer_flits) -> np.ndarray:
    """m = ⌈L/B⌉, at least 1: routers whose VC buffers a blocked L-flit packet occupies
    when each holds B flits (wormhole flow control: the packet's flits stay where they
    are when its head blocks, Dally & Towles §13.2)."""
    return np.maximum(np.ceil(_f(packet_flits) / _f(buffer_flits)), 1.0)


def wormhole_factor(ports, packet_flits, class_vcs, balance=1.0, span=1.0) -> np.ndarray:
    """W_L^m, W_L = 1 - (1 - E_sep)^√V_c · (L - 1)/L · β: the share of cycles a head does
    not wait for an output VC of its class, all V_c of which other packets hold (β: the
    load balance, as for head-of-line blocking: held VCs of lightly loaded outputs free
    soon), over the m routers a blocked packet spans (``span``, :func:`packet_span`).

    A packet longer than a VC buffer spans m = ⌈L/B⌉ routers; it moves only when none of
    the VC waits along it binds, each router's taken as independent: W_L^m (derived here;
    on the 4x4 torus with 16-flit packets the simulator gives 0.53 / 0.70 / 0.82 / 0.84
    for 4 / 8 / 16 / 32-flit buffers, which a single-router factor cannot follow).

    A packet holds its output VC for all L flits (wormhole), so from L = 2 on the VC
    allocator is a second arbitration stage whose outputs stay busy for a packet time: a
    head loses it with the separable matching's probability 1 - E_sep (P inputs contending)
    in the (L - 1)/L of a packet's time past its head. With V_c VCs of the class it waits
    only if every one is held; the VCs are not independent (they are held by packets
    stopped by the same congestion downstream), so the exponent is √V_c, between
    independent VCs (V_c) and one shared fate (1): chosen on the simulator's packet-length
    sweep (docs/saturation.md), the one fitted form in the estimate."""
    length = np.maximum(_f(packet_flits), 1.0)
    if length.ndim == 0 and length == 1.0:
        return np.ones(np.shape(ports))  # a 1-flit packet holds its VC for no other flit
    miss = (1.0 - separable_matching(ports)) ** np.sqrt(np.maximum(_f(class_vcs), 1.0))
    one = 1.0 - miss * (length - 1.0) / length * np.clip(_f(balance), 0.0, 1.0)
    span = _f(span)
    return one if span.ndim == 0 and span == 1.0 else one ** span


def turnaround_steps(routing_delay, vc_alloc_delay, switch_alloc_delay,
                     allocator="islip") -> np.ndarray:
    """t_v: steps a VC's new head spends at the front of its VC before its first flit can
    leave, at least 0. BookSim2's iq router (``islip``) starts route computation when the
    head reaches the front: t_v = routing + VC allocation + switch allocation - 1. The
    separable router counts the routing delay from the head's arrival in the buffer, which
    a saturated VC's queueing already covers: t_v = VC allocation + switch allocation - 1
    (the engine's and kernel's stage timing, sim/engine.py and sim/kernel.py)."""
    routing = np.where(np.asarray(allocator) == "islip", _f(routing_delay), 0.0)
    return np.maximum(routing + _f(vc_alloc_delay) + _f(switch_alloc_delay) - 1.0, 0.0)


def credit_round_trip(link_delay, router_delay, channel_extra=0) -> np.ndarray:
    """t_crt = 2·(link + c) + router pipeline + 1 cycles (c: ``channel_extra``)."""
    return 2.0 * (_f(link_delay) + _f(channel_extra)) + _f(router_delay) + 1.0


def vc_rate(packet_flits, turnaround, efficiency, buffer_flits, round_trip,
            speedup=1.0) -> np.ndarray:
    """r_v = min(S·L/(t_v + L/E), E·B/t_crt): flits per cycle one VC can pass."""
    length, e = _f(packet_flits), _f(efficiency)
    serve = _f(speedup) * length / (_f(turnaround) + length / e)
    return np.minimum(serve, e * _f(buffer_flits) / _f(round_trip))


def ugal_channel_load(minimal_load, uniform_load) -> np.ndarray:
    """γ under UGAL: the better of the minimal route's γ_min and Valiant's 2·γ_uniform."""
    return np.minimum(_f(minimal_load), 2.0 * _f(uniform_load))


def max_min_rates(flow, channel, weight, capacity, flow_cap, flows: int) -> np.ndarray:
    """Max-min fair rates (flits/cycle) of ``flows`` flows over shared channels: every flow's
    rate rises at the same pace until a channel it crosses is full or it reaches its own
    cap, then it is frozen and the others go on (progressive filling, Bertsekas & Gallager,
    *Data Networks*, 2nd ed. 1992, §6.5.2).

    The route incidence is three arrays of one entry per (flow, channel) crossing: the
    flow's index, the channel's index and the share of the flow's rate it puts on that
    channel (1 on a single path; 1/2 on each of two paths a half-ring tie picks at random).
    ``capacity``: flits/cycle each channel passes (a scalar, or one value per channel
    index: a resource can be a channel or one VC class of a channel); ``flow_cap``: most a
    flow can accept (scalar, its injection or ejection ceiling). A flow that crosses no
    channel gets its cap."""
    flow, channel = np.asarray(flow, dtype=np.int64), np.asarray(channel, dtype=np.int64)
    weight = _f(weight)
    channels = int(channel.max()) + 1 if channel.size else 0
    capacity = np.broadcast_to(_f(capacity), (channels,)) if np.ndim(capacity) == 0 else (
        _f(capacity)[:channels])
    rate = np.zeros(flows)
    frozen = np.zeros(flows, dtype=bool)
    level = 0.0
    for _ in range(channels + 1):
        live = ~frozen[flow]
        used = np.bincount(channel, weights=weight * rate[flow] * ~live, minlength=channels)
        rising = np.bincount(channel, weights=weight * live, minlength=channels)
        with np.errstate(divide="ignore", invalid="ignore"):
            full_at = np.where(rising > 0, (capacity - used) / rising, np.inf)
        level = min(float(full_at.min(initial=np.inf)), float(flow_cap))
        rate[~frozen] = level
        full = full_at <= level * (1 + 1e-12)
        stop = np.zeros(flows, dtype=bool)
        stop[flow[full[channel] & live]] = True
        if level >= flow_cap:
            stop[:] = True
        frozen |= stop
        if frozen.all():
            break
    return rate


def input_port_ceiling(traffic, lose, iterations: int = 30) -> float:
    """Largest load λ (flits/endpoint/cycle) at which every router input port of a fixed
    permutation keeps up, its flits waiting out conflicts with other inputs' heads.

    ``traffic[r, i, o]``: flits/cycle from input port i to output port o of router r at
    λ = 1 (the permutation's routes); ``lose[i, j]``: the chance input i loses a conflict
    with input j for the same output (round-robin 1/2; oldest first: an injected packet,
    younger than any in the network, loses to a network input, which wins).
    Each input is a FIFO server (one head, the flows' mix: p_io = its share for o). Its
    head finds input j's head wanting the same output with ρ_j·p_jo and then waits a
    cycle with lose[i, j], so a flit takes s_i = 1 + Σ_o p_io Σ_j ρ_j p_jo lose[i, j]
    cycles and the input keeps up while ρ_i = λ·L_i·s_i < 1 (L_i its load at λ = 1).
    Karol, Hluchyj & Morgan (1987) analyse head-of-line conflicts under uniform traffic;
    this is the same FIFO-head argument for a fixed traffic matrix, derived here. The
    fixed point of ρ is iterated at each λ of a bisection (1/2^20 flits/cycle)."""
    t = _f(traffic)
    load = t.sum(axis=-1)

    def keeps_up(lam: float) -> bool:
        rho = np.minimum(lam * load, 1.0)
        for _ in range(iterations):
            new = lam * load * input_service(t, lose, rho)
            if new.max(initial=0.0) >= 1.0:
                return False
            rho = new
        return True

    low, high = 0.0, 1.0
    if keeps_up(high):
        return 1.0
    for _ in range(20):
        mid = 0.5 * (low + high)
        low, high = (mid, high) if keeps_up(mid) else (low, mid)
    return low


def input_service(traffic, lose, busy=None) -> np.ndarray:
    """s[r, i] = 1 + Σ_o p_io Σ_j ρ_j p_jo lose[i, j]: cycles a flit of input port i takes
    at the head of its FIFO (:func:`input_port_ceiling`), every input holding a head
    (ρ_j = 1, an overload run) unless ``busy`` gives the ρ."""
    t = _f(traffic)
    load = t.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(load[..., None] > 0, t / load[..., None], 0.0)
    rho = np.ones_like(load) if busy is None else _f(busy)
    return 1.0 + np.einsum("rio,rjo,ij->ri", share, rho[..., None] * share, _f(lose))


def conflict_losses(ports: int, arbiter: str) -> np.ndarray:
    """lose[i, j] of :func:`input_port_ceiling` for ``ports`` inputs, the last the
    injection port: 1/2 between any two under round-robin (iSLIP's pointers too);
    ``age`` (oldest first): an injected packet always loses to a network input."""
    lose = np.full((ports, ports), 0.5)
    if arbiter == "age":
        lose[-1, :], lose[:, -1] = 1.0, 0.0
    np.fill_diagonal(lose, 0.0)
    return lose


def saturation_terms(*, gamma_max, ejection_load=1.0, gamma_class=None, class_vcs,
                     injection_vcs, ports, mean_output_load=None, packet_flits=1,
                     buffer_flits=8, link_delay=1, router_delay=1, routing_delay=0,
                     vc_alloc_delay=0, switch_alloc_delay=1, channel_extra=0,
                     allocator="separable", speedup=1.0, span=None,
                     permutation=False) -> dict[str, np.ndarray]:
    """Every factor of the estimate and the estimate itself (``saturation_estimate``).

    ``gamma_max``: busiest router-router channel's load; ``ejection_load``: busiest
    ejection channel's; ``gamma_class``: busiest single VC class's load on one channel
    (default ``gamma_max``); ``class_vcs``: VCs of that class (V_c); ``injection_vcs``:
    VCs an endpoint may inject on; ``span``: routers a blocked packet spans (default
    ⌈L/B⌉, :func:`packet_span`; 1 where the buffer depth is not known);
    ``ports``: router ports P (network and endpoint);
    ``mean_output_load``: mean load of a router's output ports (default: the bottleneck's,
    β = 1). Pipeline stages in cycles; ``channel_extra``: cycles a channel adds to its
    latency (1 for BookSim2's). ``permutation``: every endpoint sends to one fixed
    destination over one fixed path, so the allocators meet no random conflicts (Karol's
    premise, uniformly random destinations, does not hold) and E = 1; the VC turnaround
    and credit ceilings remain. NaN ``gamma_max`` gives NaN, and so does ``class_vcs``
    below 1 (fewer VCs than the routing's classes: it cannot route deadlock-free).
    """
    gamma = _f(gamma_max)
    eject = _f(ejection_load)
    g_class = gamma if gamma_class is None else _f(gamma_class)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.minimum(1.0, np.minimum(1.0 / np.where(gamma > 0, gamma, np.nan),
                                           1.0 / eject))
        bound = np.where(gamma > 0, bound, np.minimum(1.0, 1.0 / eject))
        bottleneck = np.maximum(gamma, eject)
        balance = (np.ones_like(bottleneck) if mean_output_load is None
                   else _f(mean_output_load) / bottleneck)
        if permutation:
            efficiency = eject_efficiency = np.ones_like(bottleneck)
        else:
            matching = matching_efficiency(ports, class_vcs, allocator, speedup, balance)
            routers = packet_span(packet_flits, buffer_flits) if span is None else span
            efficiency = matching * wormhole_factor(ports, packet_flits, class_vcs, balance,
                                                    routers)
            eject_efficiency = matching * wormhole_factor(ports, packet_flits, injection_vcs,
                                                          balance, routers)
        turnaround = turnaround_steps(routing_delay, vc_alloc_delay, switch_alloc_delay,
                                      allocator)
        round_trip = credit_round_trip(link_delay, router_delay, channel_extra)
        rate = vc_rate(packet_flits, turnaround, efficiency, buffer_flits, round_trip,
                       speedup)
        channel = np.where(gamma > 0, efficiency / gamma, np.inf)
        vc_class = np.where(g_class > 0, _f(class_vcs) * rate / g_class, np.inf)
        injection = _f(injection_vcs) * rate
        endpoint = eject_efficiency * np.minimum(1.0, 1.0 / eject)
        estimate = np.minimum(np.minimum(channel, vc_class), np.minimum(injection, endpoint))
        estimate = np.minimum(estimate, bound)
        # fewer VCs than the routing's classes: no deadlock-free routing, no estimate
        unknown = np.isnan(gamma) | (_f(class_vcs) < 1)
        bound, estimate = np.where(unknown, np.nan, bound), np.where(unknown, np.nan, estimate)
    return {"saturation_bound": bound, "load_balance": np.minimum(balance, 1.0),
            "matching_efficiency": efficiency, "vc_turnaround_steps": turnaround,
            "credit_round_trip": round_trip, "vc_rate": rate,
            "channel_ceiling": channel, "vc_class_ceiling": vc_class,
            "injection_ceiling": injection, "endpoint_ceiling": endpoint,
            "saturation_estimate": estimate}


def saturation_estimate(**kwargs) -> np.ndarray:
    """The estimate alone (flits/endpoint/cycle); arguments as :func:`saturation_terms`."""
    return saturation_terms(**kwargs)["saturation_estimate"]


FACTORS = (
    ("saturation_bound", "channel-load bound", "min(1, 1/gamma_max, 1/gamma_ejection)",
     "Dally & Towles 2004, §3.3 (ideal throughput)"),
    ("load_balance", "load balance beta", "mean output load / bottleneck load (<= 1)",
     "derived here (docs/saturation.md)"),
    ("matching_efficiency", "matching efficiency E",
     "1 - (1 - E_alloc(P, w) kappa_w)^S ... scaled by beta, x wormhole W_L^ceil(L/B)",
     "Dally & Towles §19.3; McKeown 1999 (iSLIP); Karol, Hluchyj & Morgan 1987 (HOL)"),
    ("vc_turnaround_steps", "VC turnaround t_v",
     "(routing, iSLIP only) + VC alloc + switch alloc - 1",
     "the router's pipeline (BookSim2's iq router: 2)"),
    ("credit_round_trip", "credit round trip t_crt", "2 (link + c) + pipeline + 1 cycles",
     "Dally & Towles §16.3 (credit-based flow control)"),
    ("vc_rate", "one VC's rate r_v", "min(S L / (t_v + L/E), E B / t_crt)",
     "derived here (docs/saturation.md)"),
    ("channel_ceiling", "busiest channel", "E / gamma_max", "derived here"),
    ("vc_class_ceiling", "busiest VC class", "V_c r_v / gamma_class",
     "dateline classes: Dally & Towles §14.2"),
    ("injection_ceiling", "injection", "V_inj r_v", "derived here"),
    ("endpoint_ceiling", "ejection port", "E min(1, 1/gamma_ejection)", "derived here"),
    ("saturation_estimate", "saturation estimate", "min of the four ceilings and the bound",
     "docs/saturation.md"),
)
"""(key of saturation_terms, name, formula, source) of every factor, for ``explain``."""
