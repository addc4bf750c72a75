"""Lower bounds of a round's largest hop count h and channel load c, family by family.

The full model maps a round's messages onto the design (collectives.Layout.traffic) and
charges its largest hop count and its busiest channel. The job's ranks sit on endpoints
0..n-1 in order, so routers, groups, leaves and pods are blocks of consecutive endpoints and
the block statistics of traffic.py (pair, out, into, crosses: counts over a subset of the
round's messages) bound both. Derivations (ours; routing as model/topology defines it):

* crossbar (slim fly's stand-in): every message is 1 hop and no two share a channel: h = 1,
  c = 1, exact.
* torus partition (a box the job fills, dimension 0 fastest): h = the largest minimal
  (dimension-order) distance over a sample of the round's messages (Σ_i min(|Δ_i|,
  k_i - |Δ_i|), as torus.hop_distance; the largest over a subset is at most the largest
  over all); c >= 1 (schedule_time charges at least one message per channel).
* dragonfly DF(p, a, h), router = p endpoints, group = a·p. MIN routing sends every message
  from group G to group G' over the one global channel G -> G', and every message from
  router u to router v of one group over the local channel u -> v; a message between
  routers of different groups passes the global channel of their groups. So
  c >= pair(a·p) and c >= pair(p). Hops: h >= 1 when a message leaves its router
  (crosses(p)). Within one shift class, sources and destinations are distinct, and the
  global link G -> G' starts at one router x of G and lands on one router y of G': at most
  p messages start on x and at most p end on y. So pair(a·p) >= p + 1 leaves a message
  that starts off x (local hop first: h >= 2), and pair(a·p) >= 2p + 1 one that also ends
  off y (h = 3). Besides, a few messages of each round are routed exactly (the model's
  MIN route under its consecutive global arrangement; :func:`dragonfly_min_hops`): the
  round's largest hop count is at least theirs.
  Crossings into a neighbouring group (G -> G + 1 or G - 1) use links whose ends do not
  depend on h under that arrangement: G -> G + 1 is global port 0, owned by router 0 and
  landing on router a - 1 of G + 1; G -> G - 1 is port g - 2, owned by router a - 1 and
  landing on router 0. So when a >= 2 the local channel a-1 -> 0 of a group G carries its
  router a-1's messages into G + 1, the messages from G - 1 into G's router 0, and the
  direct messages from router a-1 to router 0; 0 -> a-1 alike the other way. Their sum,
  per shift class that can only reach adjacent groups (|c| < a·p) and summed over those
  classes (distinct messages), for a few groups G, is a lower bound of c.
* megafly k, leaf = k endpoints, group = k²: a message from group G to G' uses the global
  channel G -> G': c >= pair(k²); every message leaving a leaf leaves on one of its k up
  channels (an intra-group one split 1/k over them), so the busiest carries at least
  out(k)/k, rounded up as the model rounds: c >= ceil(out(k)/k), ceil(into(k)/k) on the
  down channels. Hops are exact: 3 across groups, 2 across leaves, 0 on one leaf.
* fat tree FT(k, n) (clos radix R, levels L = FT(R/2, L)), pod of level l = k^l endpoints:
  the model charges c = max over l < n of ceil(max(out, into)(k^l) / k^l) (its pigeonhole
  load, fattree.nca_message_load) and h = 2·(highest l < n whose pods a message crosses):
  the same formulas on the block statistics, exact on the counted messages.
* xgft XGFT(h; m; w) (one h per block; tapered trees included), pod of level l = P_l =
  m1·..·m_l endpoints with C_l = w1·..·w_(l+1) up channels (xgft.XGFT): a message leaving
  (entering) a level-l pod leaves (enters) on one of its C_l up (down) channels, whatever
  the routing rule, so the busiest carries at least ceil(max(out, into)(P_l) / C_l) of the
  counted messages -- the model's random-routing load is exactly that pigeonhole count per
  pod, and its dmodk load counts every channel exactly, at least as large. Hops: the
  model's NCA route is 2·l hops for a message whose level-l pods differ (tree_routing.hops):
  h = 2·(highest l < h whose pods a counted message crosses). FT(k, n) is the case
  P_l = C_l = k^l.

Each view returns (h, c) arrays over its designs for a round.
"""

from __future__ import annotations

import numpy as np

from icnperf.model.sizing.traffic import round_classes


class Crossbar:
    """Slim fly's crossbar stand-in: (1, 1) for every round."""

    needs_flows = False

    def __init__(self, count: int):
        self.count = count

    def block_sizes(self) -> np.ndarray:
        return np.zeros(0, dtype=np.int64)

    def __call__(self, table, r) -> tuple[np.ndarray, np.ndarray]:
        ones = np.ones(self.count)
        return ones, ones


class Dragonfly:
    """DF(p, a, h) designs (arrays p, a, h)."""

    needs_flows = False

    def __init__(self, p, a, h):
        self.p = np.asarray(p, dtype=np.int64)
        self.a = np.asarray(a, dtype=np.int64)
        self.h = np.asarray(h, dtype=np.int64)
        self.group = self.p * self.a
        self._done: dict = {}

    def block_sizes(self) -> np.ndarray:
        return np.unique(np.concatenate([self.p, self.group]))

    def __call__(self, table, r):
        if r.key in self._done:
            return self._done[r.key]
        router, group = table(r, self.p), table(r, self.group)
        load = np.maximum(np.maximum(router.pair, group.pair), 1)
        hops = np.where(group.pair >= 2 * self.p + 1, 3,
                        np.where(group.pair >= self.p + 1, 2,
                                 np.where(router.crosses, 1, 0)))
        open_ = np.flatnonzero(group.crosses & (hops < 3))
        if len(open_):
            hops[open_] = np.maximum(hops[open_], self.probe_hops(r, open_))
        self._done[r.key] = hops, np.maximum(load, self.boundary_load(r))
        return self._done[r.key]

    def boundary_load(self, r) -> np.ndarray:
        """The load of local channels a-1 -> 0 and 0 -> a-1 of a few groups k, from the
        round's messages that cross into a neighbouring group (module docstring)."""
        best = np.zeros(len(self.p), dtype=np.int64)
        classes = round_classes(r)
        if not classes:
            return best
        n = len(classes[0][2]) - 1
        size, p = self.group[:, None], self.p[:, None]
        groups = -(-n // size)
        k = np.clip(np.concatenate([np.ones_like(groups), groups // 2, groups - 2], axis=1),
                    0, None) * size
        last = k + size - p                               # first endpoint of router a-1
        up = np.zeros(k.shape, dtype=np.int64)            # channel a-1 -> 0 of group k
        down = np.zeros(k.shape, dtype=np.int64)          # channel 0 -> a-1 of group k

        for c, _, below in classes:
            def count(low, high, low2, high2, below=below):
                lo = np.minimum(np.maximum(np.maximum(low, low2), 0), n)
                hi = np.minimum(np.maximum(np.minimum(high, high2), lo), n)
                return below[hi] - below[lo]

            if abs(c) >= self.group.min(initial=n + 1) and (np.abs(c) >= size).all():
                continue
            near = np.abs(c) < size                       # crossings reach adjacent groups
            up += np.where(near, count(last, k + size, k + size - c, k + 2 * size - c)
                           + count(k - size, k, k - c, k + p - c)
                           + count(last, k + size, k - c, k + p - c), 0)
            down += np.where(near, count(k, k + p, k - size - c, k - c)
                             + count(k + size, k + 2 * size, last - c, k + size - c)
                             + count(k, k + p, last - c, k + size - c), 0)
        two = self.a[:, None] >= 2
        return np.where(two, np.maximum(up, down), 0).max(axis=1)

    def probe_hops(self, r, rows) -> np.ndarray:
        """The largest MIN-route hop count among a few messages of the round, exactly
        (dragonfly_min_hops), for the designs ``rows``: in each shift class, in the second,
        middle and last but one group of the job, the group's last source, the first that
        crosses into the next group and the first of its second half."""
        best = np.zeros(len(rows), dtype=np.int64)
        p, a, h = self.p[rows, None], self.a[rows, None], self.h[rows, None]
        for c, x, below in round_classes(r):
            n = len(below) - 1
            size = self.group[rows, None]
            groups = -(-n // size)
            k = np.concatenate([np.ones_like(groups), groups // 2, groups - 2], axis=1)
            k = np.clip(k, 0, groups - 1)
            start = k * size
            last = below[np.minimum(start + size, n)] - 1
            cross = below[np.minimum(start + size - np.mod(c, size), n)]
            half = below[np.minimum(start + size // 2, n)]
            index = np.concatenate([last, cross, half], axis=1)
            index = np.clip(index, 0, len(x) - 1)
            e = x[index]
            hops = dragonfly_min_hops(p, a, h, e, e + c)
            best = np.maximum(best, hops.max(axis=1))
        return best


def dragonfly_min_hops(p, a, h, sources, destinations) -> np.ndarray:
    """MIN-route hops of DF(p, a, h) between endpoints, every argument an array
    (broadcasting): the formula of topology.dragonfly.dragonfly_route_hops (consecutive
    global arrangement: the link from group G to G' leaves router x = ((G' - G - 1) mod g)
    // h and lands on router a - 1 - x; tests compare the two), written here over arrays of
    designs because that function takes one design. Float arithmetic, exact for indices
    below 2^52 (a quotient of integers is never within an ulp of the next integer)."""
    p, a, h = (np.asarray(v, dtype=float) for v in (p, a, h))
    rs = np.floor(np.asarray(sources, dtype=float) / p)
    rd = np.floor(np.asarray(destinations, dtype=float) / p)
    gs, gd = np.floor(rs / a), np.floor(rd / a)
    g = a * h + 1
    offset = gd - gs - 1
    x = np.floor((offset - np.floor(offset / g) * g) / h)
    across = 1 + ((rs - gs * a) != x) + ((rd - gd * a) != a - 1 - x)
    return np.where(rs == rd, 0, np.where(gs == gd, 1, across)).astype(np.int64)


class Megafly:
    """Megafly designs (array k)."""

    needs_flows = True

    def __init__(self, k):
        self.k = np.asarray(k, dtype=np.int64)

    def block_sizes(self) -> np.ndarray:
        return np.unique(np.concatenate([self.k, self.k * self.k]))

    def __call__(self, table, r):
        leaf, group = table(r, self.k), table(r, self.k * self.k)
        up = -(-np.maximum(leaf.out, leaf.into) // self.k)
        load = np.maximum(np.maximum(group.pair, up), 1)
        hops = np.where(group.crosses, 3, np.where(leaf.crosses, 2, 0))
        return hops, load


class FatTree:
    """FT(k, n) designs (arrays k, n; a clos of radix R and L levels is FT(R/2, L))."""

    needs_flows = True

    def __init__(self, k, n):
        self.k = np.asarray(k, dtype=np.int64)
        self.n = np.asarray(n, dtype=np.int64)

    def _pods(self):
        for level in range(1, int(self.n.max(initial=1))):
            yield level, self.k ** level, level < self.n

    def block_sizes(self) -> np.ndarray:
        sizes = [size[used] for _, size, used in self._pods()]
        return np.unique(np.concatenate(sizes)) if sizes else np.zeros(0, dtype=np.int64)

    def __call__(self, table, r):
        hops = np.zeros(len(self.k))
        load = np.ones(len(self.k))
        for level, size, used in self._pods():
            if not used.any():
                continue
            pods = table(r, np.where(used, size, size[used][0]))
            busiest = -(-np.maximum(pods.out, pods.into) // size)
            load = np.where(used, np.maximum(load, busiest), load)
            hops = np.where(used & pods.crosses, 2 * level, hops)
        return hops, load


class XGFTree:
    """XGFT designs of one height (arrays ``m``, ``w`` of shape (designs, h), p = 1)."""

    needs_flows = True

    def __init__(self, m, w):
        m = np.atleast_2d(np.asarray(m, dtype=np.int64))
        w = np.atleast_2d(np.asarray(w, dtype=np.int64))
        self.pod = np.cumprod(m, axis=1)
        self.channels = np.cumprod(w, axis=1)
        self.h = m.shape[1]

    def block_sizes(self) -> np.ndarray:
        if self.h < 2:
            return np.zeros(0, dtype=np.int64)
        return np.unique(self.pod[:, :self.h - 1])

    def __call__(self, table, r):
        count = len(self.pod)
        hops = np.zeros(count)
        load = np.ones(count)
        for level in range(1, self.h):
            size, channels = self.pod[:, level - 1], self.channels[:, level]
            pods = table(r, size)
            busiest = -(-np.maximum(pods.out, pods.into) // channels)
            load = np.maximum(load, busiest)
            hops = np.where(pods.crosses, 2 * level, hops)
        return hops, load


class TorusPartitions:
    """Torus partition shapes of one dimension count (rows of ``shapes``, dimension 0
    fastest); the hop bound of a round for every shape at once."""

    SAMPLE = 128
    """Messages of each shift class whose distance is computed (evenly spaced, the first
    and last included): the largest of them is a lower bound of the round's largest."""

    def __init__(self, shapes):
        self.shapes = np.atleast_2d(np.asarray(shapes, dtype=np.int64))
        self.strides = np.concatenate([np.ones((len(self.shapes), 1), dtype=np.int64),
                                       np.cumprod(self.shapes, axis=1)[:, :-1]], axis=1)
        self._done: dict = {}

    def block_sizes(self) -> np.ndarray:
        return np.zeros(0, dtype=np.int64)

    def __call__(self, table, r):
        if r.key not in self._done:
            self._done[r.key] = self._hops(r)
        return self._done[r.key], np.ones(len(self.shapes))

    def _hops(self, r) -> np.ndarray:
        hops = np.zeros(len(self.shapes), dtype=np.int64)
        k = self.shapes[:, None, :]
        for c, x, _ in round_classes(r):
            pick = x[np.unique(np.linspace(0, len(x) - 1, min(len(x), self.SAMPLE))
                               .astype(np.int64))]
            src = (pick[None, :, None] // self.strides[:, None, :]) % k
            dst = ((pick + c)[None, :, None] // self.strides[:, None, :]) % k
            delta = np.abs(dst - src)
            hops = np.maximum(hops, np.minimum(delta, k - delta).sum(axis=2).max(axis=1))
        return hops


def torus_halo(radices, px, py, ring_ties: str, nodes=None):
    """Lower bounds (h, c) of heat's two halo phases on tori (rows of ``radices``; the job's
    P nodes, default the whole torus, on endpoints 0..P-1, dimension 0 fastest; process
    grid px x py, rank x + px·y on endpoint rank), as arrays over the tori. Derivation
    (ours; DOR as torus.dor_traffic):

    * phase 1 (x neighbours, ranks r -> r ± 1 where the row continues): the message from
      r = s_j - 1 (s_j = K_0·...·K_{j-1}, the stride of dimension j) to s_j steps once in
      each of dimensions 0..j (coordinate K-1 -> 0 with a carry): j + 1 hops; it exists when
      s_j < P and r is not a row end (s_j mod px != 0). c >= 1.
    * phase 2 (y neighbours, r -> r ± px for r < P - px): write px in the tori's mixed radix,
      digits c_i. From r = 0 the message moves c_i positions round ring i (no carries), so
      h >= Σ_i min(c_i, K_i - c_i). Load: the ring of dimension i met by the messages from
      r = s·s_i (s = 0..K_i - 1; lower coordinates 0, so no carry reaches dimension i)
      holds K_i messages each moving the same δ_i = min(c_i, K_i - c_i) positions the same
      way, so each of its channels carries δ_i of them: c >= δ_i when every such r is a
      source ((K_i - 1)·s_i < P - px). Half a ring away (2 δ_i = K_i) the ``split`` tie
      rule sends the odd positions the other way: ceil(δ_i / 2) then.
    """
    k = np.atleast_2d(np.asarray(radices, dtype=np.int64))
    nodes = k.prod(axis=1) if nodes is None else np.broadcast_to(
        np.asarray(nodes, dtype=np.int64), (len(k),))
    px, py = np.asarray(px, dtype=np.int64), np.asarray(py, dtype=np.int64)
    strides = np.concatenate([np.ones((len(k), 1), dtype=np.int64),
                              np.cumprod(k, axis=1)[:, :-1]], axis=1)
    carry = (strides < nodes[:, None]) & (strides % px[:, None] != 0)
    levels = np.arange(1, k.shape[1] + 1)[None, :]
    hops1 = np.where(carry, levels, 0).max(axis=1)
    digits = (px[:, None] // strides) % k
    delta = np.minimum(digits, k - digits)
    hops2 = delta.sum(axis=1)
    tie = (2 * delta == k) & (k > 2) & (ring_ties == "split")
    per_ring = np.where(tie, -(-delta // 2), delta)
    full = (k - 1) * strides < (nodes - px)[:, None]
    load2 = np.maximum(np.where(full, per_ring, 0).max(axis=1), 1)
    return (hops1, np.ones(len(k))), (hops2, load2)


def farthest_rank(radices, nodes: int) -> np.ndarray:
    """A lower bound of the largest distance from rank 0 to another of the ranks 0..P-1 on
    each torus (rows of ``radices``, dimension 0 fastest): the largest minimal distance
    from endpoint 0 to four of them (the last; and the points half-way round every ring
    but the last, with the last coordinate half-way round too, or at or one below the last
    rank's); on a whole torus this is its diameter."""
    k = np.atleast_2d(np.asarray(radices, dtype=np.int64))
    strides = np.concatenate([np.ones((len(k), 1), dtype=np.int64),
                              np.cumprod(k, axis=1)[:, :-1]], axis=1)
    last = nodes - 1
    top = last // strides[:, -1]
    half = (k // 2 * strides)[:, :-1].sum(axis=1)
    candidates = [np.full(len(k), last), half + top * strides[:, -1],
                  half + np.maximum(top - 1, 0) * strides[:, -1],
                  half + np.minimum(top, k[:, -1] // 2) * strides[:, -1]]
    best = np.zeros(len(k), dtype=np.int64)
    for r in candidates:
        r = np.where(r <= last, r, 0)
        coordinates = (r[:, None] // strides) % k
        best = np.maximum(best, np.minimum(coordinates, k - coordinates).sum(axis=1))
    return best
