"""A job on part of a torus machine smaller than 2^dims nodes spans fewer dimensions."""

import math

import pytest

from icnperf.errors import InputError
from icnperf.model.topology.torus import balanced_torus_shape, job_torus_shape


@pytest.mark.parametrize("nodes, dims, shape", [
    (16, 6, (2, 2, 2, 2)),         # 16 nodes of Fugaku's 6D torus
    (64, 6, (2, 2, 2, 2, 2, 2)),   # enough for every dimension
    (12, 6, (2, 2, 3)),            # 12 < 16: three dimensions
    (7, 3, (7,)),                  # a prime: one ring
    (2, 5, (2,)),
    (8192, 4, (8, 8, 8, 16)),      # the Angara sweep's shape, unchanged
])
def test_shapes_by_hand(nodes, dims, shape):
    assert job_torus_shape(nodes, dims) == shape


def _prime_factor_count(n: int) -> int:
    """Omega(n): prime factors with multiplicity (trial division), the most factors >= 2
    any factorization of n has."""
    count, p = 0, 2
    while n > 1:
        while n % p == 0:
            n, count = n // p, count + 1
        p += 1
    return count


@pytest.mark.parametrize("nodes", range(2, 200))
@pytest.mark.parametrize("dims", [1, 3, 5, 6])
def test_same_as_the_balanced_shape_when_one_exists_else_the_most_dimensions(nodes, dims):
    """The shape has the product, radices >= 2, and the most dimensions (at most dims) a
    factorization into radices >= 2 reaches, min(Omega(n), dims); it is
    balanced_torus_shape's whenever that one exists."""
    shape = job_torus_shape(nodes, dims)
    assert math.prod(shape) == nodes and all(k >= 2 for k in shape)
    assert len(shape) == min(_prime_factor_count(nodes), dims)
    if len(shape) == dims:
        assert shape == balanced_torus_shape(nodes, dims)


def test_one_node_is_not_a_torus():
    with pytest.raises(InputError, match="integer >= 2"):
        job_torus_shape(1, 3)
