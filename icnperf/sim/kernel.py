"""The compiled per-cycle kernel of the flit simulator (Numba ``njit``, cached on disk): one
cohesive algorithm, hence one long function, compiled twice.

``run_separable`` and ``run_islip`` are the same source (``_make_run``) with the router's
allocator a compile-time constant, so each compiled kernel holds only its own allocator and
the two share every other rule: arrivals, routing (``routing``'s docstring), departures,
delivery and injection. They are pure state transitions: ``run`` advances the arrays it is
given by up to ``cycles`` cycles and returns how many it ran. State layout: ``state``.
Timing: ``engine``'s docstring (separable router) and the section below (iSLIP router).

No helper takes an array: inlined or called, Numba reference-counts array arguments at
every call (a helper taking the routing's arrays made runs twice as slow), so routing and
packet creation are written out in place, and so is a flit's delivery to an endpoint or
onto a link, with its upstream credit, which the iSLIP router's output queues (step 3d)
repeat from step 3c. Measured sharing that block as three helpers (``_eject``,
``_forward``, ``_credit_upstream``, same results bit for bit) with
``benchmarks/flitsim_speed.py --speedup --repeats 7 --baseline`` (median of 7, engines
alternating run by run, router-cycles per CPU second), written out / ``inline='always'``
helpers / plain ``njit`` helpers: default router 8x8x8 at 0.2 4.70 / 3.22 / 3.35 M, at 0.4
2.50 / 1.66 / 1.73 M, 8x8 at 0.2 7.15 / 4.56 / 4.77 M, at 0.4 3.59 / 2.29 / 2.43 M; booksim
router 8x8 at 0.2 4.11 / 3.36 / 3.23 M, at 0.4 2.15 / 1.70 / 1.63 M, 8x8x8 at 0.2 2.74 /
2.31 / 2.25 M; with internal speedup 2, 8x8 at 0.2 3.70 / 2.85 / 2.79 M, at 0.4 1.92 /
1.46 / 1.43 M: the helpers cost 15-36 %, so the block stays written out twice.

The iSLIP router is BookSim2's input-queued router (``iq``; its rules were read from
github.com/booksim/booksim2 commit 28f4329: ``routers/iq_router.cpp``,
``allocators/islip.cpp``, ``buffer_state.cpp``, ``channel.hpp``, ``trafficmanager.cpp``;
no code was copied):

* time: a cycle holds ``internal_speedup`` internal steps on average, cycle c running
  steps [G(c), G(c+1)), G(c) = floor(c·num/den) (BookSim adds the speedup up each cycle
  and steps while the sum reaches 1). Stage delays count steps (BookSim counts cycles;
  for 1-cycle stages, its configurations, the two agree);
* channels: a channel of latency L delivers what was sent in cycle c at the start of
  cycle c + L + 1, flits and credits alike;
* per step and router: VC allocation, then switch allocation (VC allocation sees the
  output VCs as they were before this step's tails left; a VC granted now bids for the
  switch from a later step). A head flit starts route computation when it reaches the
  front of its VC (on arrival into an empty VC, or the step after the previous packet's
  tail left) and bids for VCs ``routing_delay`` steps later. VC allocation is iSLIP with
  one iteration: each waiting head requests every free VC of its route's class on its
  output port (no credit check); each output VC grants the requesting input VC next in
  round-robin order from its grant pointer; each input VC accepts the granting output VC
  next from its accept pointer; both pointers move one past the partner only on an
  accepted grant. Switch allocation is iSLIP over ports: every VC holding an output VC,
  with an eligible front flit and a credit of its output VC, requests its output port;
  per (input, output) port pair the request of the VC next in round-robin order from the
  input's VC pointer stands; grant and accept as above; the winning VC's pointer moves
  past it. A head is eligible ``vc_alloc_delay + switch_alloc_delay - 1`` steps after its
  VC grant, a body flit ``switch_alloc_delay - 1`` steps after it reaches the front. The
  winner leaves the buffer (its credit goes upstream) and enters its output
  ``switch_traversal_delay`` steps later;
* each output port sends at most one flit per cycle and each input port returns at most
  one credit per cycle (queues hold the rest; they fill only with speedup above 1);
* an endpoint with a packet waiting takes an injection VC with a credit: in turn after
  the last one it used, starting at VC 0 (BookSim's traffic manager), or on a dragonfly a
  VC drawn at random, redrawn each cycle until it has a credit (BookSim's dragonfly
  routing); ejection VCs have ``buffer`` credits each, returned by the endpoint the cycle
  a flit arrives.

Zero-load latency of an L-flit packet through R routers and the links between them, iSLIP
router (from the rules above; BookSim2's README states 3 + 4R + Σ link for 1-cycle stages
and endpoint links)::

    T0 = 2*terminal + 1 + R*(routing + VC alloc + switch alloc + traversal) + Σ link + (L-1)

one cycle more than the separable router's: per hop the separable router's traversal stage
absorbs the cycle BookSim's channel adds, but injection has no router stage before it.

Random numbers come from a SplitMix64 generator (``routing.random_unit``) whose 64-bit
state is part of the simulation (so two simulations never share a stream, and a seed fixes
a run).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from icnperf.sim.routing import (
    CLASS_DATELINE,
    CLASS_DIMENSION,
    CLASS_HOPS,
    CLASS_PHASE,
    LINK_GLOBAL,
    NONMIN_NONE,
    NONMIN_UGAL,
    NONMIN_UGAL_HOPS,
    ROUTE_TABLE,
    ROUTE_TREE,
    T_CABLES,
    T_CHILD,
    T_FIRST,
    T_M,
    T_SPAN,
    T_UP0,
    T_UPS,
    T_WDIV,
    UGAL_THRESHOLD,
    dor_step,
    random_unit,
)
from icnperf.sim.state import (
    ACCEPTED,
    BIG,
    C_AGE,
    C_B,
    C_CLASS,
    C_CLASSES,
    C_DA,
    C_DC,
    C_FLITS,
    C_GROUP,
    C_INJECT_RANDOM,
    C_LINK,
    C_N,
    C_ONE_LINK,
    C_NONMIN,
    C_P,
    C_R,
    C_RC,
    C_ROUTE,
    C_SA,
    C_SPEEDUP_DEN,
    C_SPEEDUP_NUM,
    C_ST,
    C_TERM,
    C_TIES,
    C_TRAFFIC,
    C_TREE_RANDOM,
    C_V,
    C_VA,
    C_WRAP,
    EJECTED,
    FLIT_HOPS,
    HEAD,
    HI,
    IN_WINDOW,
    INJECTED,
    LO,
    N_DELIVERED,
    N_FREE,
    N_LOGGED,
    NEXT_ID,
    NOW,
    PK_BIRTH,
    PK_HOPS,
    PK_ID,
    PK_MID,
    PK_PHASE,
    PK_SRC,
    STOP,
    STOP_DONE,
    STOP_LOG_FULL,
    STOP_POOL_LOW,
    TAIL,
    TRACE,
    TRAFFIC_FIXED,
    TRAFFIC_HALVES,
    VS_BUSY,
    VS_COUNT,
    VS_CREDITS,
    VS_HEAD,
    VS_HI,
    VS_LO,
    VS_OUT,
    VS_OUTVC,
    VS_ROUTE,
    VS_SA_READY,
    U,
)


@njit(cache=True, error_model="numpy")
def _geometric(state, p):
    """(next state, trials up to the first success), success probability p per trial."""
    if p >= 1.0:
        return state, 1
    state, u = random_unit(state)
    return state, 1 + int(np.floor(np.log(1.0 - u) / np.log(1.0 - p)))


def _make_run(islip: bool):
    """The kernel for one allocator (``islip`` is a compile-time constant in it)."""

    @njit(cache=True, error_model="numpy")
    def run(cycles, inject, cfg, sc, rng, packet_rate, hot_fraction,
            neighbour, neighbour_port, port_endpoint, up_out, endpoint_router, endpoint_port,
            route_table, hop_table, radices, coords, port_dim, dateline, wraps,
            link_class, rparams, port_delay, credit_delay,
            fixed, hot,
            vs, buf, pcount, rcount, inj_credits,
            ep_pkt, ep_left, ep_vc, ep_last, head_time,
            ptr_in, ptr_out, ptr_va, sa_accept, va_grant, va_accept,
            pkt, pk_dest, free,
            ar_n, ar_q, ar_ip, ar_r, ar_pkt, ar_flag, cr_n, cr_idx,
            oq_pkt, oq_flag, oq_vc, oq_ready, oq_head, oq_n, cq_v, cq_head, cq_n, r_queued,
            accepted_by_dest, log_a, log_b, log_c, log_d, inj_a, inj_b, inj_c, inj_d):
        """Advance up to ``cycles`` cycles; stops early when a log is nearly full or the
        packet pool runs low (``sc[STOP]`` says which). Returns the cycles run.

        Separable router: ``ptr_in`` / ``ptr_out`` are the switch allocator's round-robin
        pointers per input / output port, ``ptr_va`` the VC allocator's per output port.
        iSLIP router: ``ptr_in`` is each input port's VC pointer, ``ptr_out`` /
        ``sa_accept`` the switch allocator's grant / accept pointers, ``va_grant`` /
        ``va_accept`` the VC allocator's per output / input VC; ``ep_last`` each endpoint's
        last injection VC; ``oq_*`` / ``cq_*`` the output flit and input credit queues
        (empty without internal speedup)."""
        R, P, V, B, N = cfg[C_R], cfg[C_P], cfg[C_V], cfg[C_B], cfg[C_N]
        rc, va, sa, st = cfg[C_RC], cfg[C_VA], cfg[C_SA], cfg[C_ST]
        term, age, link = cfg[C_TERM], cfg[C_AGE], cfg[C_LINK]
        one_link = cfg[C_ONE_LINK] == 1   # every router-router link takes link cycles
        DA, DC, flits = cfg[C_DA], cfg[C_DC], cfg[C_FLITS]
        route_kind, class_kind, classes = cfg[C_ROUTE], cfg[C_CLASS], cfg[C_CLASSES]
        nonmin, group = cfg[C_NONMIN], cfg[C_GROUP]
        ties_random, tree_random = cfg[C_TIES] == 1, cfg[C_TREE_RANDOM] == 1
        inject_random = cfg[C_INJECT_RANDOM] == 1
        count_hops = class_kind == CLASS_HOPS or nonmin == NONMIN_UGAL_HOPS
        wrap, dims = cfg[C_WRAP] == 1, len(radices)
        num, den = cfg[C_SPEEDUP_NUM], cfg[C_SPEEDUP_DEN]
        direct = num == den
        reg = 1 if islip else 0        # BookSim's channels add a cycle (docstring)
        traffic, n_hot = cfg[C_TRAFFIC], len(hot)
        state = rng[0]
        CA = len(ar_q) // DA
        CC = len(cr_idx) // DC
        QC = V * B
        PV = P * V
        capacity = len(log_a)
        half = V // 2
        req_q = np.empty(P, dtype=np.int64)
        req_n = np.empty(P, dtype=np.int64)
        req_o = np.empty(P * V, dtype=np.int64)
        req_v = np.empty(P * V, dtype=np.int64)
        best_key = np.empty(P, dtype=np.int64)
        best_in = np.empty(P, dtype=np.int64)
        win_q = np.empty(P, dtype=np.int64)
        win_o = np.empty(P, dtype=np.int64)
        va_req = np.empty(P * V, dtype=np.int64)
        va_best = np.empty(P * V, dtype=np.int64)
        va_win = np.empty(P * V, dtype=np.int64)
        va_cand = np.empty(P * V, dtype=np.int64)
        sa_list = np.empty(P, dtype=np.int64)
        va_list = np.empty(P * V, dtype=np.int64)
        sc[STOP] = STOP_DONE
        done = 0
        while done < cycles:
            if sc[N_DELIVERED] > capacity - N or sc[N_LOGGED] > capacity - N:
                sc[STOP] = STOP_LOG_FULL
                break
            if sc[N_FREE] < N:
                sc[STOP] = STOP_POOL_LOW
                break
            t = sc[NOW]
            lo, hi = sc[LO], sc[HI]
            t_dc = t % DC
            as_term = (t + term + reg) % DA
            cs_term = (t + term + reg) % DC
            cs_link = (t + link + reg) % DC
            if islip:
                first_step = (t * num) // den
                last_step = ((t + 1) * num) // den
            else:
                first_step = t
                last_step = t + 1
            # 1. credits arriving now
            slot = t_dc
            for i in range(cr_n[U(slot)]):
                idx = cr_idx[U(slot * CC + i)]
                if idx >= 0:
                    vs[U(idx), VS_CREDITS] += 1
                else:
                    inj_credits[U(-idx - 1)] += 1
            cr_n[U(slot)] = 0
            # 2. flits arriving now are written into their input VC
            slot = t % DA
            for i in range(ar_n[U(slot)]):
                j = slot * CA + i
                q = ar_q[U(j)]
                held = vs[U(q), VS_COUNT]
                pos = vs[U(q), VS_HEAD] + held
                if pos >= B:
                    pos -= B
                s = q * B + pos
                if islip:
                    # eligibility counts from reaching the front of the VC
                    ready = 0
                    if held == 0:
                        if ar_flag[U(j)] & HEAD:
                            ready = first_step + rc
                        else:
                            ready = first_step + sa - 1
                            vs[U(q), VS_SA_READY] = ready
                else:
                    ready = t + (rc if ar_flag[U(j)] & HEAD else sa)
                    if held == 0 and vs[U(q), VS_OUT] >= 0:
                        # a body flit reaching the front of a VC its packet holds
                        vs[U(q), VS_SA_READY] = ready
                buf[U(s), 0] = ar_pkt[U(j)] * 4 + ar_flag[U(j)]
                buf[U(s), 1] = ready
                vs[U(q), VS_COUNT] = held + 1
                pcount[U(ar_ip[U(j)])] += 1
                rcount[U(ar_r[U(ar_ip[U(j)])])] += 1
            ar_n[U(slot)] = 0
            # 3. allocation: one step per cycle for the separable router, internal steps
            # for the iSLIP router
            for tau in range(first_step, last_step):
                if islip and not direct:
                    # the cycle the traversal stage ends in (largest c with G(c) <= step)
                    sent = ((tau + st + 1) * den + num - 1) // num - 1
                else:
                    sent = t + st
                sent_da = sent % DA
                as_link = (sent + link + reg) % DA
                for r in range(R):
                    if rcount[U(r)] == 0:
                        continue
                    base = r * P
                    # 3a. scan: VCs waiting for an output VC (candidates for VC allocation)
                    # and switch requests
                    n_sa = 0
                    n_cand = 0
                    for pi in range(P):
                        ip = base + pi
                        req_q[U(pi)] = -1
                        if islip:
                            req_n[U(pi)] = 0
                        if pcount[U(ip)] == 0:
                            continue
                        oldest = BIG
                        v = ptr_in[U(ip)]
                        for step in range(V):
                            if step > 0:
                                v += 1
                                if v == V:
                                    v = 0
                            q = ip * V + v
                            if vs[U(q), VS_COUNT] == 0:
                                continue
                            if vs[U(q), VS_OUT] < 0:
                                va_cand[U(n_cand)] = q - base * V
                                n_cand += 1
                                continue
                            if vs[U(q), VS_SA_READY] > tau:
                                continue
                            if vs[U(vs[U(q), VS_OUT] * V + vs[U(q), VS_OUTVC]),
                                  VS_CREDITS] <= 0:
                                continue
                            if islip:
                                # per output port, the VC first in round-robin order
                                po = vs[U(q), VS_OUT] - base
                                n = req_n[U(pi)]
                                seen = False
                                for k in range(n):
                                    if req_o[U(pi * V + k)] == po:
                                        seen = True
                                        break
                                if not seen:
                                    req_o[U(pi * V + n)] = po
                                    req_v[U(pi * V + n)] = v
                                    req_n[U(pi)] = n + 1
                                continue
                            if age == 0:
                                if req_q[U(pi)] < 0:
                                    req_q[U(pi)] = q
                                continue
                            s = q * B + vs[U(q), VS_HEAD]
                            birth = pkt[U(buf[U(s), 0] >> 2), PK_BIRTH]
                            if birth < oldest:
                                oldest = birth
                                req_q[U(pi)] = q
                        if req_q[U(pi)] >= 0 or (islip and req_n[U(pi)] > 0):
                            sa_list[U(n_sa)] = pi
                            n_sa += 1
                    # the separable router allocates the switch first, so a VC freed by a
                    # tail this cycle can be taken at once; the iSLIP router allocates VCs
                    # first (BookSim's evaluation order)
                    for part in range(2):
                        if (part == 0) != islip:
                            # 3b. switch allocation: winners (input VC, output port)
                            if n_sa == 0:
                                continue
                            n_win = 0
                            if islip:
                                for i in range(n_sa):
                                    pi = sa_list[U(i)]
                                    for k in range(req_n[U(pi)]):
                                        best_key[U(req_o[U(pi * V + k)])] = BIG
                                for i in range(n_sa):
                                    pi = sa_list[U(i)]
                                    for k in range(req_n[U(pi)]):
                                        po = req_o[U(pi * V + k)]
                                        key = pi - ptr_out[U(base + po)]
                                        if key < 0:
                                            key += P
                                        if key < best_key[U(po)]:
                                            best_key[U(po)] = key
                                            best_in[U(po)] = pi
                                for i in range(n_sa):
                                    pi = sa_list[U(i)]
                                    ip = base + pi
                                    chosen = -1
                                    best = BIG
                                    for k in range(req_n[U(pi)]):
                                        po = req_o[U(pi * V + k)]
                                        if best_in[U(po)] != pi:
                                            continue
                                        key = po - sa_accept[U(ip)]
                                        if key < 0:
                                            key += P
                                        if key < best:
                                            best = key
                                            chosen = k
                                    if chosen < 0:
                                        continue
                                    po = req_o[U(pi * V + chosen)]
                                    v_in = req_v[U(pi * V + chosen)]
                                    ptr_out[U(base + po)] = pi + 1 if pi + 1 < P else 0
                                    sa_accept[U(ip)] = po + 1 if po + 1 < P else 0
                                    ptr_in[U(ip)] = v_in + 1 if v_in + 1 < V else 0
                                    win_q[U(n_win)] = ip * V + v_in
                                    win_o[U(n_win)] = base + po
                                    n_win += 1
                            else:
                                for i in range(n_sa):
                                    best_key[U(vs[U(req_q[U(sa_list[U(i)])]), VS_OUT]
                                               - base)] = BIG
                                for i in range(n_sa):
                                    pi = sa_list[U(i)]
                                    q = req_q[U(pi)]
                                    o = vs[U(q), VS_OUT]
                                    po = o - base
                                    if age == 0:
                                        key = pi - ptr_out[U(o)]
                                        if key < 0:
                                            key += P
                                    else:
                                        s = q * B + vs[U(q), VS_HEAD]
                                        key = pkt[U(buf[U(s), 0] >> 2), PK_BIRTH] * P + pi
                                    if key < best_key[U(po)]:
                                        best_key[U(po)] = key
                                        best_in[U(po)] = pi
                                for i in range(n_sa):
                                    pi = sa_list[U(i)]
                                    q = req_q[U(pi)]
                                    o = vs[U(q), VS_OUT]
                                    if best_in[U(o - base)] != pi:
                                        continue
                                    ip = base + pi
                                    v_in = q - ip * V
                                    ptr_in[U(ip)] = v_in + 1 if v_in + 1 < V else 0
                                    ptr_out[U(o)] = pi + 1 if pi + 1 < P else 0
                                    win_q[U(n_win)] = q
                                    win_o[U(n_win)] = o
                                    n_win += 1
                            # 3c. traversal: winners leave their input buffer
                            for i in range(n_win):
                                q = win_q[U(i)]
                                o = win_o[U(i)]
                                ip = q // V
                                v_in = q - ip * V
                                s = q * B + vs[U(q), VS_HEAD]
                                pk = (buf[U(s), 0] >> 2)
                                flag = (buf[U(s), 0] & 3)
                                vs[U(q), VS_HEAD] = (vs[U(q), VS_HEAD] + 1
                                                     if vs[U(q), VS_HEAD] + 1 < B else 0)
                                vs[U(q), VS_COUNT] -= 1
                                pcount[U(ip)] -= 1
                                rcount[U(r)] -= 1
                                # the freed slot's credit goes upstream, crossing the link
                                if islip and not direct:
                                    cq_v[U(ip * QC + (cq_head[U(ip)] + cq_n[U(ip)]) % QC)] = v_in
                                    cq_n[U(ip)] += 1
                                    r_queued[U(r)] += 1
                                else:
                                    if up_out[U(ip)] >= 0:
                                        if one_link:
                                            cs = cs_link
                                        else:
                                            cs = t_dc + credit_delay[U(ip)] + reg
                                            if cs >= DC:
                                                cs -= DC
                                        cr_idx[U(cs * CC + cr_n[U(cs)])] = up_out[U(ip)] * V + v_in
                                    else:
                                        cs = cs_term
                                        cr_idx[U(cs * CC + cr_n[U(cs)])] = -(
                                            port_endpoint[U(ip)] * V + v_in) - 1
                                    cr_n[U(cs)] += 1
                                v_out = vs[U(q), VS_OUTVC]
                                if flag & TAIL:
                                    vs[U(o * V + v_out), VS_BUSY] = 0
                                    vs[U(q), VS_OUT] = -1
                                    if vs[U(q), VS_COUNT] > 0:
                                        if islip:
                                            # the next head starts routing next step
                                            buf[U(q * B + vs[U(q), VS_HEAD]), 1] = tau + 1 + rc
                                        else:
                                            va_cand[U(n_cand)] = q - base * V
                                            n_cand += 1
                                elif vs[U(q), VS_COUNT] > 0:
                                    if islip:
                                        vs[U(q), VS_SA_READY] = tau + sa
                                    else:
                                        vs[U(q), VS_SA_READY] = buf[U(q * B + vs[U(q), VS_HEAD]),
                                                                    1]
                                e = port_endpoint[U(o)]
                                if islip:
                                    vs[U(o * V + v_out), VS_CREDITS] -= 1
                                    if not direct:
                                        # the output queue sends one flit per cycle
                                        k = o * QC + (oq_head[U(o)] + oq_n[U(o)]) % QC
                                        oq_pkt[U(k)] = pk
                                        oq_flag[U(k)] = flag
                                        oq_vc[U(k)] = v_out
                                        oq_ready[U(k)] = sent
                                        oq_n[U(o)] += 1
                                        r_queued[U(r)] += 1
                                        continue
                                # onto the link, or to the endpoint (3d repeats this for
                                # queued flits)
                                if e >= 0:
                                    when = sent + term + reg
                                    if lo <= when < hi:
                                        sc[ACCEPTED] += 1
                                        accepted_by_dest[U(e)] += 1
                                    if islip:
                                        # the endpoint returns the credit on arrival
                                        cs = (when + term + 1) % DC
                                        cr_idx[U(cs * CC + cr_n[U(cs)])] = o * V + v_out
                                        cr_n[U(cs)] += 1
                                    if flag & TAIL:
                                        birth = pkt[U(pk), PK_BIRTH]
                                        if lo <= birth < hi:
                                            sc[IN_WINDOW] -= 1
                                        n = sc[N_DELIVERED]
                                        log_a[U(n)] = pkt[U(pk), PK_ID]
                                        log_b[U(n)] = birth
                                        log_c[U(n)] = when
                                        log_d[U(n)] = e
                                        sc[N_DELIVERED] = n + 1
                                        sc[EJECTED] += 1
                                        free[U(sc[N_FREE])] = pk
                                        sc[N_FREE] += 1
                                else:
                                    if not islip:
                                        vs[U(o * V + v_out), VS_CREDITS] -= 1
                                    if one_link:
                                        a = as_link
                                    else:
                                        a = sent_da + port_delay[U(o)] + reg
                                        if a >= DA:
                                            a -= DA
                                    j = a * CA + ar_n[U(a)]
                                    ar_ip[U(j)] = neighbour[U(o)] * P + neighbour_port[U(o)]
                                    ar_q[U(j)] = ar_ip[U(j)] * V + v_out
                                    ar_pkt[U(j)] = pk
                                    ar_flag[U(j)] = flag
                                    ar_n[U(a)] += 1
                                    sc[FLIT_HOPS] += 1
                                    if count_hops and flag & HEAD:
                                        pkt[U(pk), PK_HOPS] += 1
                            continue
                        # 3e. VC allocation. Candidates: VCs holding flits and no output
                        # VC, listed by the scan (and by a tail leaving, separable router).
                        if n_cand == 0:
                            continue
                        if not islip:
                            for i in range(1, n_cand):
                                # ascending order, as the grants below advance ptr_va past
                                # the last winner
                                local = va_cand[U(i)]
                                j = i
                                while j > 0 and va_cand[U(j - 1)] > local:
                                    va_cand[U(j)] = va_cand[U(j - 1)]
                                    j -= 1
                                va_cand[U(j)] = local
                        # routing of the eligible heads (once per head and router)
                        n_ready = 0
                        for i_cand in range(n_cand):
                            local = va_cand[U(i_cand)]
                            q = base * V + local
                            s = q * B + vs[U(q), VS_HEAD]
                            if buf[U(s), 1] > tau:
                                continue
                            va_cand[U(n_ready)] = local
                            n_ready += 1
                            if vs[U(q), VS_ROUTE] >= 0:
                                continue
                            pk = (buf[U(s), 0] >> 2)
                            pi = local // V
                            vi = local - pi * V
                            dest = pk_dest[U(pk)]
                            target = endpoint_router[U(dest)]
                            entering = port_endpoint[U(base + pi)] >= 0
                            phase = np.int64(-1)
                            # non-minimal routing heads for an intermediate router first
                            if nonmin == NONMIN_UGAL:
                                phase = pkt[U(pk), PK_PHASE]
                                mid = pkt[U(pk), PK_MID]
                                if phase < 0:
                                    # BookSim's UGAL at the source router
                                    if target // group == r // group:
                                        phase = 2
                                    elif mid // group == r // group:
                                        phase = 1
                                    else:
                                        p_min = np.int64(route_table[U(r), U(target)])
                                        p_non = np.int64(route_table[U(r), U(mid)])
                                        q_min = 0
                                        q_non = 0
                                        for v in range(V):
                                            q_min += B - vs[U((base + p_min) * V + v), VS_CREDITS]
                                            q_non += B - vs[U((base + p_non) * V + v), VS_CREDITS]
                                        phase = 1 if q_min <= 2 * q_non + UGAL_THRESHOLD else 0
                                if phase == 0 and r == mid:
                                    phase = 1
                                if phase == 0:
                                    target = mid
                            elif nonmin != NONMIN_NONE:
                                mid = pkt[U(pk), PK_MID]
                                if mid == r:
                                    pkt[U(pk), PK_MID] = -1
                                elif (mid >= 0 and nonmin == NONMIN_UGAL_HOPS
                                      and pkt[U(pk), PK_HOPS] == 0):
                                    # UGAL-L at the source router: queue x hops
                                    if r == target:
                                        p_min = np.int64(endpoint_port[U(dest)])
                                    else:
                                        p_min = np.int64(route_table[U(r), U(target)])
                                    p_non = np.int64(route_table[U(r), U(mid)])
                                    q_min = 0
                                    q_non = 0
                                    for v in range(V):
                                        q_min += B - vs[U((base + p_min) * V + v), VS_CREDITS]
                                        q_non += B - vs[U((base + p_non) * V + v), VS_CREDITS]
                                    h_min = hop_table[U(r), U(target)]
                                    h_non = (hop_table[U(r), U(mid)]
                                             + hop_table[U(mid), U(target)])
                                    if q_min * h_min <= q_non * h_non:
                                        pkt[U(pk), PK_MID] = -1
                                    else:
                                        target = mid
                                elif mid >= 0:
                                    target = mid
                            # the output port
                            if route_kind == ROUTE_TREE:
                                first = rparams[U(r), T_FIRST]
                                if first <= dest < first + rparams[U(r), T_SPAN]:
                                    m = rparams[U(r), T_M]
                                    po = (dest // rparams[U(r), T_CHILD]) % m + m * (
                                        pkt[U(pk), PK_SRC] % rparams[U(r), T_CABLES])
                                else:
                                    ups = rparams[U(r), T_UPS]
                                    if tree_random:
                                        state, u = random_unit(state)
                                        po = rparams[U(r), T_UP0] + min(int(u * ups), ups - 1)
                                    else:
                                        po = (rparams[U(r), T_UP0]
                                              + (dest // rparams[U(r), T_WDIV]) % ups)
                            elif r == target:
                                po = np.int64(endpoint_port[U(dest)])
                            elif route_kind == ROUTE_TABLE:
                                po = np.int64(route_table[U(r), U(target)])
                            else:
                                po = np.int64(endpoint_port[U(dest)])
                                for d in range(dims):
                                    c = coords[U(r), U(d)]
                                    tc = coords[U(target), U(d)]
                                    if c != tc:
                                        k = radices[U(d)]
                                        step = dor_step(c, tc, k, wrap)
                                        if ties_random and wrap:
                                            forward = tc - c if tc > c else tc - c + k
                                            if 2 * forward == k:
                                                state, u = random_unit(state)
                                                step = 1 if u < 0.5 else 0
                                        po = 2 * d + step
                                        break
                            # the VC class
                            o = base + po
                            vlo, vhi = 0, V
                            if class_kind == CLASS_PHASE:
                                if nonmin != NONMIN_UGAL:
                                    phase = pkt[U(pk), PK_PHASE]
                                if phase == classes - 2 and link_class[U(o)] == LINK_GLOBAL:
                                    phase = classes - 1
                                pkt[U(pk), PK_PHASE] = phase
                                per = V // classes
                                vlo, vhi = phase * per, (phase + 1) * per
                            elif port_endpoint[U(o)] < 0:
                                if class_kind == CLASS_DATELINE and dateline[U(po)] == 1:
                                    cls = np.int64(wraps[U(o)])
                                    if not entering and port_dim[U(pi)] == port_dim[U(po)]:
                                        cls = cls | (1 if vi >= half else 0)
                                    if cls == 0:
                                        vhi = half
                                    else:
                                        vlo = half
                                elif class_kind == CLASS_DIMENSION and dateline[U(po)] == 1:
                                    if entering or port_dim[U(pi)] != port_dim[U(po)]:
                                        d = port_dim[U(po)]
                                        cls = (1 if coords[U(r), U(d)] > coords[U(target), U(d)]
                                               else 0)
                                        pkt[U(pk), PK_PHASE] = cls
                                    else:
                                        cls = pkt[U(pk), PK_PHASE]
                                    if cls == 0:
                                        vhi = half
                                    else:
                                        vlo = half
                                elif class_kind == CLASS_HOPS:
                                    per = V // classes
                                    c = min(pkt[U(pk), PK_HOPS], classes - 1)
                                    vlo, vhi = c * per, (c + 1) * per
                            vs[U(q), VS_ROUTE] = po
                            vs[U(q), VS_LO] = vlo
                            vs[U(q), VS_HI] = vhi
                        if islip:
                            # iSLIP, one iteration: grants by output VC, accepts by input VC
                            for i in range(n_ready):
                                q = base * V + va_cand[U(i)]
                                first = vs[U(q), VS_ROUTE] * V
                                for v in range(vs[U(q), VS_LO], vs[U(q), VS_HI]):
                                    va_best[U(first + v)] = BIG
                            for i in range(n_ready):
                                local = va_cand[U(i)]
                                q = base * V + local
                                first = vs[U(q), VS_ROUTE] * V
                                for v in range(vs[U(q), VS_LO], vs[U(q), VS_HI]):
                                    ov = first + v
                                    if vs[U(base * V + ov), VS_BUSY] != 0:
                                        continue
                                    key = local - va_grant[U(base * V + ov)]
                                    if key < 0:
                                        key += PV
                                    if key < va_best[U(ov)]:
                                        va_best[U(ov)] = key
                                        va_win[U(ov)] = local
                            for i in range(n_ready):
                                local = va_cand[U(i)]
                                q = base * V + local
                                first = vs[U(q), VS_ROUTE] * V
                                chosen = -1
                                best = BIG
                                for v in range(vs[U(q), VS_LO], vs[U(q), VS_HI]):
                                    ov = first + v
                                    if va_best[U(ov)] == BIG or va_win[U(ov)] != local:
                                        continue
                                    key = ov - va_accept[U(q)]
                                    if key < 0:
                                        key += PV
                                    if key < best:
                                        best = key
                                        chosen = ov
                                if chosen < 0:
                                    continue
                                va_grant[U(base * V + chosen)] = local + 1 if local + 1 < PV else 0
                                va_accept[U(q)] = chosen + 1 if chosen + 1 < PV else 0
                                vs[U(base * V + chosen), VS_BUSY] = 1
                                vs[U(q), VS_OUT] = base + chosen // V
                                vs[U(q), VS_OUTVC] = chosen % V
                                vs[U(q), VS_SA_READY] = tau + va + sa - 1
                                vs[U(q), VS_ROUTE] = -1
                            continue
                        # separable: each waiting head asks for the free VC of its class
                        # with most credits; each output VC grants one asker, round-robin
                        # from its port's pointer (or oldest packet first)
                        n_va = 0
                        for i in range(n_ready):
                            local = va_cand[U(i)]
                            q = base * V + local
                            o = base + vs[U(q), VS_ROUTE]
                            chosen = -1
                            most = -1
                            for v in range(vs[U(q), VS_LO], vs[U(q), VS_HI]):
                                if (vs[U(o * V + v), VS_BUSY] == 0
                                        and vs[U(o * V + v), VS_CREDITS] > most):
                                    most = vs[U(o * V + v), VS_CREDITS]
                                    chosen = v
                            if chosen >= 0:
                                va_req[U(local)] = vs[U(q), VS_ROUTE] * V + chosen
                                va_best[U(va_req[U(local)])] = BIG
                                va_list[U(n_va)] = local
                                n_va += 1
                        for i in range(n_va):
                            local = va_list[U(i)]
                            want = va_req[U(local)]
                            if age == 0:
                                key = local - ptr_va[U(base + want // V)]
                                if key < 0:
                                    key += PV
                            else:
                                q = base * V + local
                                s = q * B + vs[U(q), VS_HEAD]
                                key = pkt[U(buf[U(s), 0] >> 2), PK_BIRTH] * PV + local
                            if key < va_best[U(want)]:
                                va_best[U(want)] = key
                                va_win[U(want)] = local
                        for i in range(n_va):
                            local = va_list[U(i)]
                            want = va_req[U(local)]
                            if va_win[U(want)] != local:
                                continue
                            q = base * V + local
                            o = base + want // V
                            vs[U(base * V + want), VS_BUSY] = 1
                            vs[U(q), VS_OUT] = o
                            vs[U(q), VS_OUTVC] = want % V
                            vs[U(q), VS_SA_READY] = t + va + sa
                            vs[U(q), VS_ROUTE] = -1
                            ptr_va[U(o)] = local + 1 if local + 1 < PV else 0
            # 3d. iSLIP router with internal speedup: each output port sends one flit and
            # each input port one credit per cycle
            if islip and not direct:
                for r in range(R):
                    if r_queued[U(r)] == 0:
                        continue
                    for p in range(P):
                        ip = r * P + p
                        if cq_n[U(ip)] > 0:
                            v_in = cq_v[U(ip * QC + cq_head[U(ip)])]
                            cq_head[U(ip)] = cq_head[U(ip)] + 1 if cq_head[U(ip)] + 1 < QC else 0
                            cq_n[U(ip)] -= 1
                            r_queued[U(r)] -= 1
                            cs = (t + credit_delay[U(ip)] + 1) % DC
                            if up_out[U(ip)] >= 0:
                                cr_idx[U(cs * CC + cr_n[U(cs)])] = up_out[U(ip)] * V + v_in
                            else:
                                cr_idx[U(cs * CC + cr_n[U(cs)])] = -(
                                    port_endpoint[U(ip)] * V + v_in) - 1
                            cr_n[U(cs)] += 1
                        o = ip
                        if oq_n[U(o)] == 0:
                            continue
                        k = o * QC + oq_head[U(o)]
                        if oq_ready[U(k)] > t:
                            continue
                        pk, flag, v_out = oq_pkt[U(k)], oq_flag[U(k)], oq_vc[U(k)]
                        oq_head[U(o)] = oq_head[U(o)] + 1 if oq_head[U(o)] + 1 < QC else 0
                        oq_n[U(o)] -= 1
                        r_queued[U(r)] -= 1
                        e = port_endpoint[U(o)]
                        if e >= 0:
                            when = t + term + 1
                            if lo <= when < hi:
                                sc[ACCEPTED] += 1
                                accepted_by_dest[U(e)] += 1
                            cs = (when + term + 1) % DC
                            cr_idx[U(cs * CC + cr_n[U(cs)])] = o * V + v_out
                            cr_n[U(cs)] += 1
                            if flag & TAIL:
                                birth = pkt[U(pk), PK_BIRTH]
                                if lo <= birth < hi:
                                    sc[IN_WINDOW] -= 1
                                n = sc[N_DELIVERED]
                                log_a[U(n)] = pkt[U(pk), PK_ID]
                                log_b[U(n)] = birth
                                log_c[U(n)] = when
                                log_d[U(n)] = e
                                sc[N_DELIVERED] = n + 1
                                sc[EJECTED] += 1
                                free[U(sc[N_FREE])] = pk
                                sc[N_FREE] += 1
                        else:
                            a = (t + port_delay[U(o)] + 1) % DA
                            j = a * CA + ar_n[U(a)]
                            ar_ip[U(j)] = neighbour[U(o)] * P + neighbour_port[U(o)]
                            ar_q[U(j)] = ar_ip[U(j)] * V + v_out
                            ar_pkt[U(j)] = pk
                            ar_flag[U(j)] = flag
                            ar_n[U(a)] += 1
                            sc[FLIT_HOPS] += 1
                            if count_hops and flag & HEAD:
                                pkt[U(pk), PK_HOPS] += 1
            # 4. injection: each endpoint sends one flit of its current packet
            for e in range(N):
                pk = ep_pkt[U(e)]
                if pk < 0:
                    if not inject or head_time[U(e)] > t:
                        continue
                    chosen = -1
                    if not islip:
                        most = 0
                        for v in range(V):
                            if inj_credits[U(e * V + v)] > most:
                                most = inj_credits[U(e * V + v)]
                                chosen = v
                    elif inject_random:
                        state, u = random_unit(state)
                        v = min(int(u * V), V - 1)
                        if inj_credits[U(e * V + v)] > 0:
                            chosen = v
                    elif ep_last[U(e)] < 0:
                        if inj_credits[U(e * V)] > 0:
                            chosen = 0
                    else:
                        v = ep_last[U(e)]
                        for i in range(V):
                            v = v + 1 if v + 1 < V else 0
                            if inj_credits[U(e * V + v)] > 0:
                                chosen = v
                                break
                    if chosen < 0:
                        continue
                    # a new packet: destination, routing state, counters, trace
                    sc[N_FREE] -= 1
                    pk = free[U(sc[N_FREE])]
                    birth = head_time[U(e)]
                    u = 1.0
                    if n_hot > 0:
                        state, u = random_unit(state)
                    if u < hot_fraction:
                        state, u = random_unit(state)
                        dest = hot[U(min(int(u * n_hot), n_hot - 1))]
                    elif traffic == TRAFFIC_FIXED:
                        dest = fixed[U(e)]
                    else:
                        state, u = random_unit(state)
                        if traffic == TRAFFIC_HALVES:
                            if e < N // 2:
                                dest = N // 2 + min(int(u * (N - N // 2)), N - N // 2 - 1)
                            else:
                                dest = min(int(u * (N // 2)), N // 2 - 1)
                        else:
                            dest = min(int(u * N), N - 1)
                    pk_dest[U(pk)] = dest
                    pkt[U(pk), PK_SRC] = e
                    pkt[U(pk), PK_BIRTH] = birth
                    pkt[U(pk), PK_ID] = sc[NEXT_ID]
                    pkt[U(pk), PK_HOPS] = 0
                    pkt[U(pk), PK_MID] = -1
                    pkt[U(pk), PK_PHASE] = -1 if nonmin == NONMIN_UGAL else 0
                    if nonmin != NONMIN_NONE:
                        state, u = random_unit(state)
                        mid = min(int(u * R), R - 1)
                        if nonmin == NONMIN_UGAL or (mid != endpoint_router[U(e)]
                                                     and mid != endpoint_router[U(dest)]):
                            pkt[U(pk), PK_MID] = mid
                    sc[NEXT_ID] += 1
                    sc[INJECTED] += 1
                    if lo <= birth < hi:
                        sc[IN_WINDOW] += 1
                    if sc[TRACE] == 1:
                        n = sc[N_LOGGED]
                        inj_a[U(n)] = pkt[U(pk), PK_ID]
                        inj_b[U(n)] = e
                        inj_c[U(n)] = dest
                        inj_d[U(n)] = birth
                        sc[N_LOGGED] = n + 1
                    state, gap = _geometric(state, packet_rate)
                    head_time[U(e)] += gap
                    ep_pkt[U(e)] = pk
                    ep_left[U(e)] = flits
                    ep_vc[U(e)] = chosen
                    if islip:
                        ep_last[U(e)] = chosen
                v = ep_vc[U(e)]
                if inj_credits[U(e * V + v)] <= 0:
                    continue
                inj_credits[U(e * V + v)] -= 1
                flag = 0
                if ep_left[U(e)] == flits:
                    flag |= HEAD
                if ep_left[U(e)] == 1:
                    flag |= TAIL
                    ep_pkt[U(e)] = -1
                ep_left[U(e)] -= 1
                a = as_term
                j = a * CA + ar_n[U(a)]
                ar_ip[U(j)] = endpoint_router[U(e)] * P + endpoint_port[U(e)]
                ar_q[U(j)] = ar_ip[U(j)] * V + v
                ar_pkt[U(j)] = pk
                ar_flag[U(j)] = flag
                ar_n[U(a)] += 1
            sc[NOW] = t + 1
            done += 1
        rng[0] = state
        return done

    return run


run_separable = _make_run(False)
"""The separable router's kernel (``engine``'s docstring)."""
run_islip = _make_run(True)
"""The iSLIP router's kernel (module docstring)."""
