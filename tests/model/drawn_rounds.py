"""A round of messages among n ranks drawn by hypothesis for the batched round counters'
oracle tests (tests/model/topology/test_dragonfly_batch.py, test_torus_batch.py): every
rank shifting by d, every rank exchanging with its number XOR d (those landing inside),
or up to 60 arbitrary pairs."""

import numpy as np
from hypothesis import strategies as st


def draw_round(draw, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(sources, destinations) of one drawn round among ranks 0..n-1."""
    kind = draw(st.sampled_from(["shift", "xor", "pairs"]))
    ranks = np.arange(n)
    if kind == "shift":
        d = draw(st.integers(0, n))
        return ranks, (ranks + d) % n
    if kind == "xor":
        d = draw(st.integers(0, 2 * n))
        keep = (ranks ^ d) < n
        return ranks[keep], (ranks ^ d)[keep]
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=60))
    return (np.array([s for s, _ in pairs], dtype=np.int64),
            np.array([d for _, d in pairs], dtype=np.int64))
