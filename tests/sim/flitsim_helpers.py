"""Helpers shared by the flit simulator's tests: reference hop counts and the zero-load
latency written out independently of the simulator's code."""

from collections import deque

import numpy as np


def bfs_hops(adjacency) -> np.ndarray:
    """All-pairs hop counts by breadth-first search over adjacency lists."""
    routers = len(adjacency)
    dist = np.full((routers, routers), -1)
    for s in range(routers):
        dist[s, s] = 0
        todo = deque([s])
        while todo:
            u = todo.popleft()
            for v in adjacency[u]:
                if dist[s, v] < 0:
                    dist[s, v] = dist[s, u] + 1
                    todo.append(v)
    return dist


def neighbour_hops(net) -> np.ndarray:
    """Router-to-router hop counts by breadth-first search over a network's neighbour
    table (its links as wired, not its routes)."""
    return bfs_hops([[int(v) for v in row if v >= 0] for row in net.neighbour])


def zero_load(hops, router) -> np.ndarray:
    """2*terminal + (H+1)*router + H*link + (L-1): head pipeline plus tail serialization."""
    return (2 * router.terminal_delay + (hops + 1) * router.router_delay
            + hops * router.link_delay + router.packet_flits - 1)
