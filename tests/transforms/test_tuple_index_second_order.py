"""Second order through an index whose value is a tuple of index arrays (issue #24): the
derivable gradient passes ``x[t]`` as ``(t,)``; a tuple `t` is the whole index, never one
array read along axis 0.  References are second-order central differences."""


import numpy as np
import pytest
from numeric import SECOND_ORDER, hessian_difference

import srcdiff


def diag_inline(A):
    return np.sum(A[np.diag_indices(3)] ** 2)


def triu_in_variable(A):
    iu = np.triu_indices(3, 1)
    return np.sum(np.sin(A[iu]) * A[iu])


def nonzero_of_mask(A):
    mask = np.array([[True, False, True], [False, True, True], [False, False, True]])
    picked = A[np.nonzero(mask)]
    return np.sum(picked ** 3) + np.prod(picked[:2])


def nonzero_in_variable_twice(A):
    nz = np.nonzero(np.tri(3))
    return np.sum(np.exp(A[nz]) * A.T[nz])


def tuple_by_hand(A):
    r = np.array([0, 1, 2, 2])
    c = np.array([1, 2, 0, 2])
    idx = (r, c)
    return np.sum(A[idx] ** 2 * A[0, 1])


def tril_distances(A):
    il = np.tril_indices(3, -1)
    d = A[il] - A.T[il]
    return np.sum(np.sqrt(d ** 2 + 1.0))


PROGRAMS = [diag_inline, triu_in_variable, nonzero_of_mask, nonzero_in_variable_twice, tril_distances, tuple_by_hand]


def _second_order(transform, f, A, v):
    if transform == "hessian":
        return srcdiff.hessian(f)(A)
    if transform == "hvp":
        return srcdiff.hvp(f, A, v)
    return srcdiff.jacobian(srcdiff.grad(f))(A)


@pytest.mark.parametrize("transform", SECOND_ORDER)
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_second_order_through_a_tuple_index(f, transform):
    A = np.arange(9.0).reshape(3, 3) / 10 + 0.1
    v = np.random.default_rng(24).normal(size=(3, 3))
    expected = hessian_difference(f, (A,))
    if transform == "hvp":
        expected = np.einsum("ijkl,kl->ij", expected, v)
    got = _second_order(transform, f, A, v)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_the_reported_hessian_is_two_on_the_diagonal():
    """The closed form: d2/dA2 sum(A[diag]**2) is 2 at (i,i,i,i), 0 elsewhere."""
    expected = np.zeros((3, 3, 3, 3))
    for i in range(3):
        expected[i, i, i, i] = 2.0
    A = np.arange(9.0).reshape(3, 3) / 10 + 0.1
    np.testing.assert_allclose(srcdiff.hessian(diag_inline)(A), expected, atol=1e-12)
    np.testing.assert_allclose(srcdiff.hvp(diag_inline, A, np.eye(3)), 2 * np.eye(3), atol=1e-12)


def test_index_arrays_inside_an_index_are_unchanged():
    """``x[[0, 2], 1]`` and ``x[[0, 2]]`` read rows: a list inside the index is one array."""
    def f(x):
        return np.sum(x[[0, 2], 1] ** 2) + np.sum(x[[0, 2]] ** 3)
    x = np.arange(9.0).reshape(3, 3) / 10 + 0.1
    np.testing.assert_allclose(srcdiff.hessian(f)(x), hessian_difference(f, (x,)), rtol=1e-5, atol=1e-5)
