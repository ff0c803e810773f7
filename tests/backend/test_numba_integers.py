"""``math.factorial`` and ``math.comb`` under jit="numba" (backend/numba/integers.py): exact
wherever the value fits in 64 bits, OverflowError past it (numba's integers would wrap around:
``x * math.factorial(22)`` had a silently wrong gradient), so such a program is refused at
the user's line; Bernstein polynomials through every transformation."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

pytest.importorskip("numba")

import srcdiff  # noqa: E402
from tests.transforms import corpus, matrix  # noqa: E402


def test_exact_where_the_value_fits_and_overflow_past_it():
    from numba import njit

    from srcdiff.backend.numba.integers import int_comb, int_factorial

    factorial = njit(lambda n: int_factorial(n))
    comb = njit(lambda n, k: int_comb(n, k))
    assert [factorial(n) for n in range(21)] == [math.factorial(n) for n in range(21)]
    with pytest.raises(OverflowError):
        factorial(21)
    for n in (0, 1, 5, 17, 40, 62, 66):
        assert [comb(n, k) for k in range(n + 3)] == [math.comb(n, k) for k in range(n + 3)]
    with pytest.raises(OverflowError):
        comb(68, 34)  # 2.8e19 > 2**63 - 1


@functools.lru_cache(maxsize=None)
def _binomial(n, k):
    return math.comb(n, k)


def bernstein(c, t):
    n = len(c) - 1
    out = 0.0
    for k in range(n + 1):
        out = out + c[k] * _binomial(n, k) * t ** k * (1 - t) ** (n - k)
    return np.sum(out ** 2)


def poisson_terms(lam, counts=(0, 2, 5)):
    return sum(k * np.log(lam) - lam - math.log(math.factorial(k)) for k in counts)


def past_int64(x):
    return x * math.factorial(22) / 1e21


PROGRAMS = [
    ("bernstein", bernstein, lambda r: (r.normal(size=5), 0.3), 0),
    ("bernstein_t", bernstein, lambda r: (r.normal(size=5), 0.3), 1),
    ("poisson_terms", poisson_terms, lambda r: (1.7,), 0),
]


@pytest.mark.parametrize("program", corpus.from_table(PROGRAMS, "integers", "test_numba_integers", 3),
                         ids=lambda p: p.name)
def test_every_transformation_numba_included(program):
    row = matrix.run(program, matrix.TRANSFORMS)
    assert not row.excluded
    assert not matrix.not_ok(row)


def test_a_value_past_int64_is_refused_at_the_users_line():
    assert srcdiff.grad(past_int64)(0.7) == pytest.approx(math.factorial(22) / 1e21)
    line = past_int64.__code__.co_firstlineno  # (the def line: the compiled gradient raised, not a line)
    with pytest.raises(srcdiff.SrcDiffError, match=f"test_numba_integers.py:{line}: .*OverflowError"):
        srcdiff.grad(past_int64, jit="numba")(0.7)
