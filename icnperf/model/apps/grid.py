"""The process grid of a skeleton: the most square factorization of a rank count over some
dimensions (the ``dims`` function of expressions and the halo's grid)."""

from __future__ import annotations

import bisect
from functools import lru_cache

from icnperf.errors import InputError

__all__ = ["MAX_COUNT", "most_square", "prime_factors"]

MAX_COUNT = 10**18
"""Largest count :func:`most_square` factors (its divisors come from :func:`prime_factors`,
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
    try:
        return _search(n, d, {}, [MAX_STEPS])
    except _TooLong:
        raise InputError(f"dims: factoring {n:,} over {d} dimensions takes too long (a count "
                         "with this many divisors needs fewer dimensions)") from None


class _TooLong(Exception):
    pass


MAX_STEPS = 1_000_000
"""Most divisors :func:`most_square` lists and tries in all (about a second): a count with
very many divisors over many dimensions (dims(897612484786617600, 16, 0), 103,680 divisors)
would take hours."""


def _search(n: int, d: int, memo: dict, steps: list) -> tuple[int, ...]:
    if d == 1:
        return (n,)
    if (n, d) in memo:
        return memo[n, d]
    divisors = _divisors(n)
    _charge(steps, len(divisors))
    low = 1 << max(0, (n.bit_length() - 1) // d)  # at most the d-th root of n
    for largest in divisors[bisect.bisect_left(divisors, low):]:
        if largest ** d < n:
            continue
        _charge(steps, 1)
        rest = _search(n // largest, d - 1, memo, steps)
        if rest[-1] <= largest:
            memo[n, d] = (*rest, largest)
            return memo[n, d]
    raise AssertionError("n itself always fits")


def _charge(steps: list, work: int) -> None:
    steps[0] -= work
    if steps[0] < 0:
        raise _TooLong()


@lru_cache(maxsize=256)
def _divisors(n: int) -> tuple[int, ...]:
    """Every divisor of ``n``, ascending, from its prime factors (:func:`prime_factors`)."""
    divisors = [1]
    for prime, power in prime_factors(n).items():
        divisors = [d * prime ** k for d in divisors for k in range(power + 1)]
    return tuple(sorted(divisors))


TRIAL_LIMIT = 1 << 16
"""Largest trial divisor :func:`prime_factors` tries itself: every count up to 2^32, and
every count whose prime factors but the largest are below 65,536, is factored without
SymPy (a process grid of up to 2^21 ranks always is)."""


def prime_factors(n: int) -> dict[int, int]:
    """prime -> exponent of ``n`` >= 1: trial division by 2, 3 and the numbers 6k +- 1 up to
    :data:`TRIAL_LIMIT`; what is left beyond it, if not 1 or a prime (no divisor up to its
    square root), goes to SymPy's ``factorint`` (trial division up to the square root would
    take minutes at 1e16)."""
    factors: dict[int, int] = {}
    p, step = 2, 1
    while p * p <= n:
        if p > TRIAL_LIMIT:
            from sympy import factorint

            for prime, power in factorint(n).items():
                factors[int(prime)] = factors.get(int(prime), 0) + int(power)
            return factors
        while n % p == 0:
            factors[p] = factors.get(p, 0) + 1
            n //= p
        p, step = p + step, (2 if p < 5 else 6 - step)
    if n > 1:
        factors[n] = factors.get(n, 0) + 1
    return factors
