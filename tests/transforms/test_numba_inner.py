"""``np.inner`` of two matrices and of a vector and a matrix under numba (linalg_more.py):
numba's ``np.inner`` takes vectors only.  Every transformation, numba's against central
differences, float32 kept."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix


def tanh_of_inner(A, B):
    return np.sum(np.tanh(np.inner(A, B)))


def vector_matrix(v, M):
    return np.sum(np.inner(v, M) ** 2)


def gram_times_row(A):
    return np.sum(np.inner(A, A) * np.inner(A[0], A))


PROGRAMS = [
    ("tanh_of_inner", tanh_of_inner, lambda r: (r.normal(size=(3, 4)), r.normal(size=(2, 4))), 0),
    ("tanh_of_inner_b", tanh_of_inner, lambda r: (r.normal(size=(3, 4)), r.normal(size=(2, 4))), 1),
    ("vector_matrix", vector_matrix, lambda r: (r.normal(size=4), r.normal(size=(2, 4))), 1),
    ("gram_times_row", gram_times_row, lambda r: (r.normal(size=(3, 4)),), 0),
]


def programs():
    return corpus.from_table(PROGRAMS, "inner", "test_numba_inner", 5)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_numba_agrees(program):
    cell = matrix.run(program, ("numba",)).cells["numba"]
    assert cell.outcome == matrix.OK, cell.message


def test_numba_inner_of_float32_matrices_stays_float32():
    r = np.random.default_rng(3)
    A, B = r.normal(size=(3, 4)), r.normal(size=(2, 4))
    got = srcdiff.grad(tanh_of_inner, jit="numba")(A.astype(np.float32), B.astype(np.float32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, central_difference(tanh_of_inner, (A, B), 0), rtol=2e-3, atol=2e-4)
