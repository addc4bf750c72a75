"""Grouping equal rows of large integer arrays by a hash checked exactly: the batched
round counters' way to count once what many designs share (topology/dragonfly/batch.py:
designs that route a round alike; sizing/batched.py: designs whose rounds count alike).

A row's hash is its entries weighted by odd 64-bit multipliers (:func:`hash_weights`),
the products and sums wrapping; np.unique over the hashes groups the rows (one sort of a
number a row, where np.unique over whole rows sorts them entry by entry), and the caller's
exact comparison then confirms every row equals its group's first: if one does not (two
different rows hashed alike), every row is its own group, so a collision costs time, never
a wrong count."""

from __future__ import annotations

from typing import Callable

import numpy as np


def hash_weights(columns: int) -> np.ndarray:
    """Odd 64-bit multipliers (int64, products wrapping), one per column: a Weyl sequence,
    any odd constants would do."""
    column = np.arange(columns, dtype=np.uint64)
    return ((column * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x632BE59BD9B4E019))
            | np.uint64(1)).view(np.int64)


def hash_groups(digest: np.ndarray, alike: Callable[[np.ndarray, np.ndarray], bool]
                ) -> tuple[np.ndarray, np.ndarray]:
    """(the first row of each group, each row's group) of rows whose hashes are
    ``digest`` (one int64 a row, :func:`hash_weights`), provided ``alike(first, group)``
    says every row equals its group's first; else every row is its own group."""
    _, first, group = np.unique(digest, return_index=True, return_inverse=True)
    group = group.ravel()
    if not alike(first, group):
        return np.arange(digest.size), np.arange(digest.size)
    return first, group
