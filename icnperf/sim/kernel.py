"""The compiled per-cycle kernel of the flit simulator (Numba ``njit``, cached on disk).

Pure state transition: ``run`` advances the arrays it is given by up to ``cycles`` cycles
and returns how many it ran. It loops over routers, ports and virtual channels; the state
layout and the timing rules are described in ``engine``'s docstring. Indices: output or
input port ``o = router * P + port``, virtual channel ``q = o * V + vc``, buffer slot
``q * B + position``; a buffer slot holds ``packet * 4 + flags`` (flags: bit 0 head, bit 1
tail) and the cycle the flit becomes eligible; the per-VC state is one row per VC (columns
``VS_*``).

Random numbers come from a SplitMix64 generator (Steele, Lea & Flood, OOPSLA 2014) whose
64-bit state is part of the simulation (so two simulations never share a stream, and a
seed fixes a run).
"""

from __future__ import annotations

import numpy as np
from numba import njit

HEAD = 1
TAIL = 2

# scalar slots of the ``sc`` int64 array
NOW, NEXT_ID, INJECTED, EJECTED, FLIT_HOPS, N_FREE, LO, HI = 0, 1, 2, 3, 4, 5, 6, 7
IN_WINDOW, ACCEPTED, N_DELIVERED, N_LOGGED, TRACE, STOP = 8, 9, 10, 11, 12, 13
SCALARS = 14

STOP_DONE, STOP_LOG_FULL, STOP_POOL_LOW = 0, 1, 2

# configuration slots of the ``cfg`` int64 array
(C_R, C_P, C_V, C_B, C_N, C_ROUTE, C_CLASS, C_CLASSES, C_RC, C_VA, C_SA, C_ST, C_LINK,
 C_TERM, C_AGE, C_DA, C_DC, C_FLITS, C_TRAFFIC, C_WRAP, C_NONMIN) = range(21)
CONFIG = 21

NONMIN_NONE, NONMIN_VALIANT, NONMIN_UGAL = 0, 1, 2
"""cfg[C_NONMIN]: minimal routing only; Valiant (via a random intermediate router); UGAL-L."""

TRAFFIC_FIXED, TRAFFIC_UNIFORM, TRAFFIC_HALVES = 0, 1, 2

_BIG = np.int64(1) << np.int64(62)

U = np.uint64
"""Every variable array index in ``run`` goes through ``U``: Numba then skips its check for
negative (from-the-end) indices (runs were about 15 % slower with it). The indices are
never negative, so nothing else changes."""

# columns of the per-VC state ``vs`` (int32, one row per VC q): the input VC's
# flit count, front position, output port and VC held, switch-eligibility time of its front
# flit (kept while it holds an output VC, so switch allocation reads no buffer slot), cached
# route and class range; and the output VC q's credits and whether it is held
(VS_COUNT, VS_HEAD, VS_OUT, VS_OUTVC, VS_SA_READY, VS_ROUTE, VS_LO, VS_HI, VS_CREDITS,
 VS_BUSY) = range(10)
VS_COLUMNS = 10

# columns of the packet pool ``pkt`` (int64, one 64-byte row per packet): source endpoint,
# creation cycle, id, hops taken (counted only where routing reads it), intermediate router
# (-1: none). The destinations are a separate dense int32 array ``pk_dest``: routing reads
# it at every hop, and a dense array stays in cache (runs about 15 % faster than with it in
# the rows)
PK_SRC, PK_BIRTH, PK_ID, PK_HOPS, PK_MID = range(5)
PK_COLUMNS = 8


@njit(cache=True, error_model="numpy")
def _random(state):
    """SplitMix64 step: (next state, a float in [0, 1) from 53 random bits). Helpers take
    and return scalars only (passing arrays to a helper costs reference counting)."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return state, np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, error_model="numpy")
def _geometric(state, p):
    """(next state, trials up to the first success), success probability p per trial."""
    if p >= 1.0:
        return state, 1
    state, u = _random(state)
    return state, 1 + int(np.floor(np.log(1.0 - u) / np.log(1.0 - p)))


@njit(cache=True, error_model="numpy")
def _dor_step(c, t, k, wrap):
    """0 for the + direction, 1 for - along one ring / line from coordinate c to t."""
    if wrap:
        forward = t - c if t > c else t - c + k
        return 0 if 2 * forward <= k else 1
    return 0 if t > c else 1


@njit(cache=True, error_model="numpy")
def run(cycles, inject, cfg, sc, rng, packet_rate, hot_fraction,
        neighbour, neighbour_port, port_endpoint, up_out, endpoint_router, endpoint_port,
        route_table, hop_table, radices, coords, port_dim, dateline, wraps,
        fixed, hot,
        vs, buf,
        pcount, rcount, inj_credits,
        ep_pkt, ep_left, ep_vc, head_time,
        ptr_in, ptr_out, ptr_va,
        pkt, pk_dest, free,
        ar_n, ar_q, ar_ip, ar_r, ar_pkt, ar_flag, cr_n, cr_idx,
        accepted_by_dest, log_a, log_b, log_c, log_d, inj_a, inj_b, inj_c, inj_d):
    """Advance up to ``cycles`` cycles; stops early when a log is nearly full or the
    packet pool runs low (``sc[STOP]`` says which). Returns the cycles run."""
    R, P, V, B, N = cfg[C_R], cfg[C_P], cfg[C_V], cfg[C_B], cfg[C_N]
    rc, va, sa, st = cfg[C_RC], cfg[C_VA], cfg[C_SA], cfg[C_ST]
    link, term, age = cfg[C_LINK], cfg[C_TERM], cfg[C_AGE]
    DA, DC, flits = cfg[C_DA], cfg[C_DC], cfg[C_FLITS]
    class_kind, classes = cfg[C_CLASS], cfg[C_CLASSES]
    nonmin = cfg[C_NONMIN]
    count_hops = class_kind == 2 or nonmin == NONMIN_UGAL
    route_kind, wrap, dims = cfg[C_ROUTE], cfg[C_WRAP] == 1, len(radices)
    traffic, n_hot = cfg[C_TRAFFIC], len(hot)
    state = rng[0]
    CA = len(ar_q) // DA
    CC = len(cr_idx) // DC
    capacity = len(log_a)
    half = V // 2
    req_q = np.empty(P, dtype=np.int64)
    best_key = np.empty(P, dtype=np.int64)
    best_in = np.empty(P, dtype=np.int64)
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
        cs_link = (t + link) % DC
        cs_term = (t + term) % DC
        as_link = (t + st + link) % DA
        as_term = (t + term) % DA
        # 1. credits arriving now
        slot = t % DC
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
            ready = t + (rc if ar_flag[U(j)] & HEAD else sa)
            buf[U(s), 0] = ar_pkt[U(j)] * 4 + ar_flag[U(j)]
            buf[U(s), 1] = ready
            if held == 0 and vs[U(q), VS_OUT] >= 0:
                # a body flit reaching the front of a VC its packet holds
                vs[U(q), VS_SA_READY] = ready
            vs[U(q), VS_COUNT] = held + 1
            pcount[U(ar_ip[U(j)])] += 1
            rcount[U(ar_r[U(ar_ip[U(j)])])] += 1
        ar_n[U(slot)] = 0
        for r in range(R):
            if rcount[U(r)] == 0:
                continue
            base = r * P
            # 3. switch allocation, input stage: one VC per input port
            n_sa = 0
            n_cand = 0
            for pi in range(P):
                ip = base + pi
                req_q[U(pi)] = -1
                if pcount[U(ip)] == 0:
                    continue
                oldest = _BIG
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
                    if vs[U(q), VS_SA_READY] > t:
                        continue
                    if vs[U(vs[U(q), VS_OUT] * V + vs[U(q), VS_OUTVC]), VS_CREDITS] <= 0:
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
                if req_q[U(pi)] >= 0:
                    sa_list[U(n_sa)] = pi
                    n_sa += 1
            if n_sa > 0:
                # output stage: one input port per output port
                for i in range(n_sa):
                    best_key[U(vs[U(req_q[U(sa_list[U(i)])]), VS_OUT] - base)] = _BIG
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
                # traversal: winners leave their input buffer
                for i in range(n_sa):
                    pi = sa_list[U(i)]
                    q = req_q[U(pi)]
                    po = vs[U(q), VS_OUT] - base
                    if best_in[U(po)] != pi:
                        continue
                    o = base + po
                    ip = base + pi
                    v_in = q - ip * V
                    ptr_in[U(ip)] = v_in + 1 if v_in + 1 < V else 0
                    ptr_out[U(o)] = pi + 1 if pi + 1 < P else 0
                    s = q * B + vs[U(q), VS_HEAD]
                    pk = (buf[U(s), 0] >> 2)
                    flag = (buf[U(s), 0] & 3)
                    vs[U(q), VS_HEAD] = vs[U(q), VS_HEAD] + 1 if vs[U(q), VS_HEAD] + 1 < B else 0
                    vs[U(q), VS_COUNT] -= 1
                    pcount[U(ip)] -= 1
                    rcount[U(r)] -= 1
                    # the freed slot's credit goes upstream
                    if up_out[U(ip)] >= 0:
                        cs = cs_link
                        cr_idx[U(cs * CC + cr_n[U(cs)])] = up_out[U(ip)] * V + v_in
                    else:
                        cs = cs_term
                        cr_idx[U(cs * CC + cr_n[U(cs)])] = -(port_endpoint[U(ip)] * V + v_in) - 1
                    cr_n[U(cs)] += 1
                    v_out = vs[U(q), VS_OUTVC]
                    if flag & TAIL:
                        vs[U(o * V + v_out), VS_BUSY] = 0
                        vs[U(q), VS_OUT] = -1
                        if vs[U(q), VS_COUNT] > 0:
                            va_cand[U(n_cand)] = q - base * V
                            n_cand += 1
                    elif vs[U(q), VS_COUNT] > 0:
                        vs[U(q), VS_SA_READY] = buf[U(q * B + vs[U(q), VS_HEAD]), 1]
                    e = port_endpoint[U(o)]
                    if e >= 0:
                        when = t + st + term
                        if lo <= when < hi:
                            sc[ACCEPTED] += 1
                            accepted_by_dest[U(e)] += 1
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
                        vs[U(o * V + v_out), VS_CREDITS] -= 1
                        a = as_link
                        j = a * CA + ar_n[U(a)]
                        ar_ip[U(j)] = neighbour[U(o)] * P + neighbour_port[U(o)]
                        ar_q[U(j)] = ar_ip[U(j)] * V + v_out
                        ar_pkt[U(j)] = pk
                        ar_flag[U(j)] = flag
                        ar_n[U(a)] += 1
                        sc[FLIT_HOPS] += 1
                        if count_hops and flag & HEAD:
                            pkt[U(pk), PK_HOPS] += 1
            if n_cand == 0:
                continue
            # 4. VC allocation (after switch allocation, so a VC freed by a tail this cycle
            # can be taken at once), separable: each waiting head flit asks for the free
            # VC of its class with most credits; each output VC grants one asker,
            # round-robin from its port's pointer (or oldest packet first). The output
            # port and class range are computed once per head flit (vc_route). The
            # candidates (VCs holding flits and no output VC) were listed by switch
            # allocation.
            for i in range(1, n_cand):
                # ascending order, as the grants below advance ptr_va past the last winner
                local = va_cand[U(i)]
                j = i
                while j > 0 and va_cand[U(j - 1)] > local:
                    va_cand[U(j)] = va_cand[U(j - 1)]
                    j -= 1
                va_cand[U(j)] = local
            PV = P * V
            n_va = 0
            for i_cand in range(n_cand):
                local = va_cand[U(i_cand)]
                q = base * V + local
                s = q * B + vs[U(q), VS_HEAD]
                if buf[U(s), 1] > t:
                    continue
                if vs[U(q), VS_ROUTE] < 0:
                    pk = (buf[U(s), 0] >> 2)
                    dest = pk_dest[U(pk)]
                    target = endpoint_router[U(dest)]
                    mid = pkt[U(pk), PK_MID] if nonmin != NONMIN_NONE else -1
                    if mid == r:
                        pkt[U(pk), PK_MID] = -1
                    elif mid >= 0 and nonmin == NONMIN_UGAL and pkt[U(pk), PK_HOPS] == 0:
                        # UGAL-L at the source router: queue x hops, minimal vs not
                        if r == target:
                            p_min = endpoint_port[U(dest)]
                        elif route_kind == 0:
                            p_min = np.int64(route_table[U(r), U(target)])
                        else:
                            p_min = endpoint_port[U(dest)]
                            for d in range(dims):
                                if coords[U(r), U(d)] != coords[U(target), U(d)]:
                                    p_min = 2 * d + _dor_step(coords[U(r), U(d)],
                                                              coords[U(target), U(d)],
                                                              radices[U(d)], wrap)
                                    break
                        if r == mid:
                            p_non = endpoint_port[U(dest)]
                        elif route_kind == 0:
                            p_non = np.int64(route_table[U(r), U(mid)])
                        else:
                            p_non = endpoint_port[U(dest)]
                            for d in range(dims):
                                if coords[U(r), U(d)] != coords[U(mid), U(d)]:
                                    p_non = 2 * d + _dor_step(coords[U(r), U(d)],
                                                              coords[U(mid), U(d)],
                                                              radices[U(d)], wrap)
                                    break
                        q_min = 0
                        q_non = 0
                        for v in range(V):
                            q_min += B - vs[U((base + p_min) * V + v), VS_CREDITS]
                            q_non += B - vs[U((base + p_non) * V + v), VS_CREDITS]
                        h_min = hop_table[U(r), U(target)]
                        h_non = hop_table[U(r), U(mid)] + hop_table[U(mid), U(target)]
                        if q_min * h_min <= q_non * h_non:
                            pkt[U(pk), PK_MID] = -1
                        else:
                            target = mid
                    elif mid >= 0:
                        target = mid
                    if r == target:
                        po = endpoint_port[U(dest)]
                    elif route_kind == 0:
                        po = np.int64(route_table[U(r), U(target)])
                    else:
                        po = endpoint_port[U(dest)]
                        for d in range(dims):
                            if coords[U(r), U(d)] != coords[U(target), U(d)]:
                                po = 2 * d + _dor_step(coords[U(r), U(d)], coords[U(target), U(d)],
                                                        radices[U(d)], wrap)
                                break
                    o = base + po
                    vlo, vhi = 0, V
                    if port_endpoint[U(o)] < 0:
                        if class_kind == 1 and dateline[U(po)] == 1:
                            cls = np.int64(wraps[U(o)])
                            pi = local // V
                            vi = local - pi * V
                            if (port_endpoint[U(base + pi)] < 0
                                    and port_dim[U(pi)] == port_dim[U(po)]):
                                cls = cls | (1 if vi >= half else 0)
                            if cls == 0:
                                vhi = half
                            else:
                                vlo = half
                        elif class_kind == 2:
                            per = V // classes
                            c = min(pkt[U(pk), PK_HOPS], classes - 1)
                            vlo, vhi = c * per, (c + 1) * per
                    vs[U(q), VS_ROUTE] = po
                    vs[U(q), VS_LO] = vlo
                    vs[U(q), VS_HI] = vhi
                o = base + vs[U(q), VS_ROUTE]
                chosen = -1
                most = -1
                for v in range(vs[U(q), VS_LO], vs[U(q), VS_HI]):
                    if vs[U(o * V + v), VS_BUSY] == 0 and vs[U(o * V + v), VS_CREDITS] > most:
                        most = vs[U(o * V + v), VS_CREDITS]
                        chosen = v
                if chosen >= 0:
                    va_req[U(local)] = vs[U(q), VS_ROUTE] * V + chosen
                    va_best[U(va_req[U(local)])] = _BIG
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
        # 5. injection: each endpoint sends one flit of its current packet
        for e in range(N):
            pk = ep_pkt[U(e)]
            if pk < 0:
                if not inject or head_time[U(e)] > t:
                    continue
                chosen = -1
                most = 0
                for v in range(V):
                    if inj_credits[U(e * V + v)] > most:
                        most = inj_credits[U(e * V + v)]
                        chosen = v
                if chosen < 0:
                    continue
                sc[N_FREE] -= 1
                pk = free[U(sc[N_FREE])]
                birth = head_time[U(e)]
                u = 1.0
                if n_hot > 0:
                    state, u = _random(state)
                if u < hot_fraction:
                    state, u = _random(state)
                    dest = hot[U(min(int(u * n_hot), n_hot - 1))]
                elif traffic == TRAFFIC_FIXED:
                    dest = fixed[U(e)]
                else:
                    state, u = _random(state)
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
                if nonmin != NONMIN_NONE:
                    state, u = _random(state)
                    mid = min(int(u * R), R - 1)
                    if mid != endpoint_router[U(e)] and mid != endpoint_router[U(dest)]:
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
