"""Hessians whose gradient's code keeps a matrix product's adjoint for run time
(``matmul_adjoint_x/_y``, ``dot_adjoint_x/_y``) are batched: all rows in one call, as
second differences say (ad/batching_rules.py, `matmul_adjoint`).  They used to take one
forward sweep per parameter: 7-10x JAX's time on a logistic regression's or a small MLP's."""

import numpy as np
import pytest
from numeric import hessian_difference

import srcdiff


def logistic(w, X, y):
    z = X @ w
    return np.mean(np.logaddexp(0.0, z) - y * z) + 0.01 * np.sum(w * w)


def matrix_weights(W, X, Y):
    return np.sum(np.tanh(X @ W) * Y)


def row_vector(v, A):
    return np.sum(np.sin(v @ A) ** 2)


def vector_dot(v, A):
    return np.dot(np.dot(v, A), np.cos(v @ A))


def flat_mlp(w, X, y):
    W1 = w[:12].reshape(3, 4)
    h = np.tanh(X @ W1)
    return np.mean((h @ w[12:16] - y) ** 2)


def stack_times_matrix(W, S):
    return np.sum(np.cos(S @ W))


def gram(W, A):
    return np.sum(np.tanh(W @ W.T) * A) + np.sum(np.sin(np.dot(W.T, W)))


rng = np.random.default_rng(5)
CASES = [
    (logistic, (rng.normal(size=4) * 0.3, rng.normal(size=(9, 4)), (rng.random(9) < 0.5) * 1.0)),
    (matrix_weights, (rng.normal(size=(3, 2)) * 0.5, rng.normal(size=(6, 3)), rng.normal(size=(6, 2)))),
    (row_vector, (rng.normal(size=3), rng.normal(size=(3, 4)) * 0.5)),
    (vector_dot, (rng.normal(size=3) * 0.5, rng.normal(size=(3, 3)))),
    (flat_mlp, (rng.normal(size=16) * 0.4, rng.normal(size=(7, 3)), rng.normal(size=7))),
    (stack_times_matrix, (rng.normal(size=(3, 2)) * 0.5, rng.normal(size=(2, 4, 3)))),
    (gram, (rng.normal(size=(3, 2)) * 0.5, rng.normal(size=(3, 3)))),  # both factors with rows
]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_every_row_in_one_batched_call(f, args):
    H = srcdiff.hessian(f)
    got = H(*args)
    w = args[0]
    flat = lambda v: f(v.reshape(w.shape), *args[1:])  # noqa: E731
    expected = hessian_difference(flat, (w.ravel(),)).reshape(w.shape + w.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert "_batched(" in H.source, H.source  # not one forward sweep per parameter
    np.testing.assert_allclose(H(*args), got, rtol=0, atol=0)  # the replayed plan


def stacked_product(W, S):
    return np.cos(S @ W)


@pytest.mark.parametrize("stack", [(2, 4, 3), (2, 2, 4, 3)])
def test_vmap_of_a_stack_times_each_rows_matrix(stack):
    """A stack of matrices times a batched matrix lines the stack up after the batch axis."""
    S = rng.normal(size=stack)
    Ws = rng.normal(size=(5, 3, 2))
    got = srcdiff.vmap(stacked_product, in_axes=(0, None))(Ws, S)
    np.testing.assert_allclose(got, np.stack([np.cos(S @ W) for W in Ws]), rtol=1e-14, atol=0)
