"""The process grid of a skeleton: the most square factorization of a rank count over some
dimensions (the ``dims`` function of expressions and the halo's grid)."""

from __future__ import annotations

from functools import lru_cache

from icnperf.errors import InputError

__all__ = ["MAX_COUNT", "most_square"]

MAX_COUNT = 10**18
"""Largest count :func:`most_square` factors (its divisors come from SymPy's ``factorint``,
quick up to here; a rank or cell count beyond it is no real run)."""


@lru_cache(maxsize=4096)
def most_square(n: int, d: int) -> tuple[int, ...]:
    """The most square factorization of ``n`` into ``d`` whole factors, ascending: the
    smallest possible largest factor, then the smallest next largest, and so on (MPI_Dims_create
    balances the same way and lists the factors descending). most_square(288, 3) = (6, 6, 8),
    most_square(32, 2) = (4, 8), most_square(7, 2) = (1, 7)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"dims: the count must be a whole number >= 1, not {n!r}")
    if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 16:
        raise InputError(f"dims: the dimension count must be a whole number 1..16, not {d!r}")
    if n > MAX_COUNT:
        raise InputError(f"dims: the count must be at most 1e18, not {n:.3g}")
    if d == 1:
        return (n,)
    divisors = _divisors(n)
    for largest in divisors:
        if largest ** d < n:
            continue
        rest = most_square(n // largest, d - 1)
        if rest[-1] <= largest:
            return (*rest, largest)
    raise AssertionError("n itself always fits")


def _divisors(n: int) -> list[int]:
    """Every divisor of ``n``, ascending (from SymPy's factorization: trial division up to
    the square root would take minutes at 1e16)."""
    from sympy import divisors

    return [int(a) for a in divisors(n)]
