"""Second derivatives through joins, products and the linear-algebra adjoints.

A first-order gradient splits a join's adjoint at positions known only when it runs, and
calls helpers (``prod_adjoint``, ``solve_adjoint_x``, ``matmul_adjoint_x``,
``cholesky_adjoint``...) where shapes are known only when it runs.  A derivable gradient
reads a join's pieces by subscript, and each helper has a rule of its own, so every program
below goes through `hessian` (against second-order central differences of f, float64),
`hvp`, ``jacobian(grad(f))`` and, for one number, ``grad(grad(f))``.  References are
central differences of f or closed forms; none is computed by srcdiff.
"""

import numpy as np
import pytest
from numeric import SECOND_ORDER, assert_close, second_order

import srcdiff

M0 = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.8]])
B = np.array([0.5, -1.0, 2.0])
BM = np.array([[0.5, 1.0], [-1.0, 0.2], [2.0, 0.3]])
W = np.array([0.3, -0.4, 0.7, 1.1])


def concatenated(x):
    return np.sum(np.concatenate([x ** 2, np.sin(x)]) ** 2)


def concatenated_columns(x):
    A = x.reshape(2, 2)
    return np.sum(np.concatenate([A, A ** 2], axis=1) ** 2 * A[0, 1])


def concatenated_flat(x):
    A = x.reshape(2, 2)
    return np.sum(np.concatenate([A, np.exp(x)], axis=None) ** 3)


def hstacked(x):
    return np.sum(np.hstack([x, np.exp(x[:2])]) ** 3)


def vstacked(x):
    A = x.reshape(2, 2)
    return np.sum(np.vstack([A, np.sin(A)]) * np.vstack([A ** 2, A]))


def stacked_last(x):
    return np.sum(np.stack([np.sin(x), x * x], axis=-1) ** 2)


def stacked_columns(x):
    return np.sum(np.stack([np.sin(x), x * x, np.cos(x)], axis=1) ** 3)


def product(x):
    return np.prod(x) + np.sum(x ** 2)


def product_of_columns(x):
    A = x.reshape(2, 2)
    return np.sum(np.prod(A, axis=0) ** 2) + np.sum(np.prod(A ** 2, axis=1))


def product_kept(x):
    A = x.reshape(2, 2)
    return np.sum(np.prod(A, axis=1, keepdims=True) * A)


def det_squared(x):
    return np.linalg.det(x.reshape(2, 2)) ** 2


def det_cubed_and_shifted(x):
    A = x.reshape(2, 2)
    return np.linalg.det(A) ** 3 + np.linalg.det(A + np.eye(2))


def det_times_a_sum(x):
    d = np.linalg.det(x.reshape(2, 2))
    return d * d * np.sum(x)


def log_det(x):
    A = x.reshape(2, 2) + 3.0 * np.eye(2)
    return np.log(np.linalg.det(A @ A.T))


def solve_vector(x):
    A = x.reshape(3, 3) + M0
    return np.sum(np.linalg.solve(A, B) ** 2)


def solve_for_x(x):
    return np.sum(np.linalg.solve(M0, np.sin(x[:3])) ** 3)


def solve_matrix(x):
    A = x.reshape(3, 3) + M0
    return np.sum(np.linalg.solve(A, BM) ** 2)


def inverse(x):
    A = x.reshape(2, 2) + 2.0 * np.eye(2)
    return np.sum(np.linalg.inv(A) ** 2)


def cholesky_log_det(x):
    A = x.reshape(3, 3)
    L = np.linalg.cholesky(A @ A.T + np.eye(3))
    return 2.0 * np.sum(np.log(np.diag(L)))


def cholesky_entries(x):
    A = x.reshape(2, 2)
    L = np.linalg.cholesky(A @ A.T + np.eye(2))
    return np.sum(L ** 2) + L[1, 0] * L[0, 0]


def batched_matmul(x):
    A = x.reshape(2, 1, 2)
    return np.sum((A @ np.swapaxes(A, -1, -2)) ** 2)


PROGRAMS = {
    "concatenate": (concatenated, 3), "concatenate axis=1": (concatenated_columns, 4),
    "concatenate axis=None": (concatenated_flat, 4), "hstack": (hstacked, 3), "vstack": (vstacked, 4),
    "stack axis=-1": (stacked_last, 3), "stack axis=1": (stacked_columns, 3),
    "prod": (product, 3), "prod axis=0": (product_of_columns, 4), "prod keepdims": (product_kept, 4),
    "det ** 2": (det_squared, 4), "det ** 3 + det": (det_cubed_and_shifted, 4), "det * det * sum": (det_times_a_sum, 4),
    "log det": (log_det, 4), "solve a vector": (solve_vector, 9), "solve for x": (solve_for_x, 3),
    "solve a matrix": (solve_matrix, 9), "inv": (inverse, 4), "cholesky log det": (cholesky_log_det, 9),
    "cholesky entries": (cholesky_entries, 4), "batched matmul": (batched_matmul, 4),
}


def draw(name, rng):
    f, n = PROGRAMS[name]
    return f, 0.5 * rng.normal(size=n) + 0.3


@pytest.mark.parametrize("transform", SECOND_ORDER)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_second_order(name, transform, rng):
    f, x = draw(name, rng)
    assert_close(*second_order(transform, f, x, rng), rtol=2e-5, atol=2e-5)


# ---- one number: grad(grad(f)) ----

def s_concatenate(t):
    return np.sum(np.concatenate([t * W, np.exp(t * W[:2])]) ** 2)


def s_stack(t):
    x = np.sin(t * W)
    return np.sum(np.stack([x, x * t], axis=1) ** 2)


def s_prod(t):
    return np.prod(t * W + 1.0)


def s_det(t):
    return np.linalg.det(np.reshape(t * W, (2, 2)) + np.eye(2)) ** 2


def s_solve(t):
    return np.sum(np.linalg.solve(M0 + t * np.eye(3), B) ** 2)


def s_cholesky(t):
    return np.sum(np.linalg.cholesky(M0 * t))


def s_inv(t):
    return np.sum(np.linalg.inv(M0 + t * np.eye(3)))


SCALAR = {"concatenate": (s_concatenate, 0.3), "stack": (s_stack, 0.7), "prod": (s_prod, 0.9),
          "det": (s_det, 0.5), "solve": (s_solve, 0.3), "cholesky": (s_cholesky, 1.2), "inv": (s_inv, 0.2)}


@pytest.mark.parametrize("name", sorted(SCALAR))
def test_grad_of_grad(name):
    f, t = SCALAR[name]
    h = 1e-4
    expected = (f(t + h) - 2.0 * f(t) + f(t - h)) / (h * h)
    assert srcdiff.grad(srcdiff.grad(f))(t) == pytest.approx(expected, rel=1e-5, abs=1e-5)


# ---- exact where central differences cannot tell ----

def plain_product(x):
    return np.prod(x)


@pytest.mark.parametrize("x", [np.array([0.0, 2.0, -3.0, 0.5]), np.array([0.0, 0.0, 1.5, 2.0]),
                               np.array([1.0, -2.0, 0.25, 4.0])])
def test_the_hessian_of_a_product_is_exact_at_zeros(x):
    n = len(x)
    expected = np.array([[0.0 if i == j else np.prod(np.delete(x, [i, j])) for j in range(n)] for i in range(n)])
    assert_close(srcdiff.hessian(plain_product)(x), expected, rtol=1e-14, atol=0)
    assert_close(srcdiff.hvp(plain_product, x, np.arange(1.0, n + 1)), expected @ np.arange(1.0, n + 1),
                 rtol=1e-14, atol=0)


def test_the_hessian_of_det_squared_is_the_closed_form():
    # det [[a, b], [c, d]] = ad - bc: the Hessian of its square by hand
    a, b, c, d = x = np.array([1.3, -0.4, 0.7, 2.1])
    D = a * d - b * c
    grad_D = np.array([d, -c, -b, a])
    hess_D = np.array([[0, 0, 0, 1], [0, 0, -1, 0], [0, -1, 0, 0], [1, 0, 0, 0]], dtype=float)
    expected = 2.0 * np.outer(grad_D, grad_D) + 2.0 * D * hess_D
    assert_close(srcdiff.hessian(det_squared)(x), expected, rtol=1e-12, atol=1e-12)


def test_the_first_order_code_is_unchanged():
    x = np.array([0.3, 0.5, 0.9])
    source = srcdiff.grad(concatenated).source_for(x)
    # the first-order code reads the pieces as views of the joined adjoint: no split, no copy
    assert "t1_bar = t3_bar[:t3_shared[0]]\n" in source and "np.split(" not in source
    assert "prod_adjoint(" in srcdiff.grad(product).source_for(x)
