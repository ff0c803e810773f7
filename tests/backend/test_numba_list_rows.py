"""``list(a)`` of an array and ``sorted(x)`` under jit="numba" (backend/numba/list_adjoints.py):
the numbers of a vector or the rows of a matrix, read back by item, through every
transformation with numba agreeing with central differences.  The first program runs by
default; the others are slow (numba compiles for seconds)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from tests.transforms import corpus, matrix  # noqa: E402


def sorted_ends(x):
    s = sorted(x)
    return s[0] * 2.0 + s[-1] ** 2 + sum(np.sin(x))


def rows_of_a_matrix(A, w):
    T = np.tanh(A)
    rows = list(T)
    return np.sum(rows[0] * w) + np.sum(rows[-1] ** 2)


def median_of_three(x):
    s = sorted(x[:3] * 2.0)
    return s[1] ** 2 + x[3]


PROGRAMS = [
    ("sorted_ends", sorted_ends, lambda r: (np.array([0.3, -1.2, 0.8, 2.0]),), 0),
    ("rows_of_a_matrix", rows_of_a_matrix, lambda r: (r.normal(size=(3, 4)), r.normal(size=4)), 0),
    ("rows_of_a_matrix_w", rows_of_a_matrix, lambda r: (r.normal(size=(3, 4)), r.normal(size=4)), 1),
    ("median_of_three", median_of_three, lambda r: (np.array([0.4, -0.9, 1.3, 0.2]),), 0),
]


def programs():
    return corpus.first_in_default_run(corpus.from_table(PROGRAMS, "list_rows", "test_numba_list_rows", 3))


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_every_transformation_numba_included(program):
    matrix.assert_numba_included(program)
