"""Wave 29's per-example programs for srcdiff.vmap (test_vmap29_census.py): losses ``f(params, x, y)``
mapped with in_axes (None, 0, 0), linear algebra of each example's matrices (np.linalg.svd, qr, pinv,
matrix_power, stacks given to det/slogdet/inv/solve), masked values reduced, tests holding an index,
lists of lists, each written as a user writes it.  `PROGRAMS` pairs each with its arguments' maker
(``make(rng, size)`` -> arguments, in_axes) and the argument differentiated."""

from __future__ import annotations

import math

import numpy as np

N = 3


def loss_args(r, b):
    return (r.normal(size=N), r.normal(size=(b, N)), r.normal(size=b)), (None, 0, 0)


def labels_args(r, b):
    return (r.normal(size=N), r.normal(size=(b, N)), (r.random(b) > 0.5).astype(float)), (None, 0, 0)


def matrices_args(r, b):
    return (r.normal(size=N), r.normal(size=(b, N, N)) / 2), (None, 0)


def tall_args(r, b):
    return (r.normal(size=N), r.normal(size=(b, N + 1, N)) / 2), (None, 0)


def vectors_args(r, b):
    return (r.normal(size=N), r.normal(size=(b, N))), (None, 0)


def layer_args(r, b):
    return (r.normal(size=(N, 2)) / 2, r.normal(size=(b, N)), r.normal(size=(b, 2))), (None, 0, 0)


# ---- losses of one example ----

def squared_error(w, x, y):
    return (x @ w - y) ** 2


def logistic_nll(w, x, y):
    z = x @ w
    return np.logaddexp(0.0, z) - y * z


def huber(w, x, y):
    r = x @ w - y
    return np.where(np.abs(r) <= 1.0, 0.5 * r * r, np.abs(r) - 0.5)


def hinge_squared(w, x, y):
    return np.maximum(0.0, 1.0 - (2 * y - 1) * (x @ w)) ** 2


def poisson_nll(w, x, y):
    eta = x @ w
    return np.exp(eta) - y * eta


def quantile_loss(w, x, y):
    r = y - np.dot(x, w)
    return np.where(r >= 0, 0.3 * r, -0.7 * r) + 0.01 * np.sum(w ** 2)


def tanh_regression(w, x, y):
    return (np.tanh(x @ w) - y) ** 2 + 1e-3 * w @ w


def cosine_loss(w, x, y):
    return 1.0 - (x @ w) / (np.linalg.norm(x) * np.linalg.norm(w) + 1e-9) + 0.0 * y


def student_t(w, x, y):
    r = y - x @ w
    nu = 4.0
    return -math.lgamma((nu + 1) / 2) + 0.5 * (nu + 1) * np.log1p(r * r / nu)


def mlp_layer(W, x, y):
    h = np.tanh(x @ W)
    return np.sum((h - y) ** 2)


def softmax_ce(W, x, y):
    z = x @ W
    z = z - np.max(z)
    return -np.sum(y * (z - np.log(np.sum(np.exp(z)))))


def loss_with_loop(w, x, y):
    h = 0.0
    for k in range(3):
        h = np.tanh(h + w[k] * x[k])
    return (h - y) ** 2


def loss_with_list(w, x, y):
    terms = [w[k] * x[k] ** 2 for k in range(3)]
    return (sum(terms) - y) ** 2


def loss_index_test(w, x, y):
    return np.sum(np.where(x[0] > x, w * x, w)) * y  # an index inside the test


def loss_index_test_sum(w, x, y):
    return np.sum(np.where(x > np.sum(x[1:]) / 2, w * x, 0.0)) - y


def loss_branch_on_index(w, x, y):
    if x[0] > 0:  # a branch that differs between examples: both sides, selected row by row (wave 30)
        return np.sum(w * x) - y
    return np.sum(w * x ** 2) - y


def masked_sum(w, x, y):
    return np.sum(x[x > 0] * w[x > 0]) - y


def masked_mean(w, x, y):
    m = x > 0
    return np.sum((x[m] * w[m]) ** 2) / (np.sum(m) + 1.0) + y


def masked_by_where(w, x, y):
    return np.sum(np.where(x > 0, x * w, 0.0)) - y


def masked_count(w, x, y):
    return np.sum(w) * len(x[x > 0]) + y


# ---- linear algebra of each example's matrix ----

def svd_values(w, A):
    U, s, Vt = np.linalg.svd(A * w, full_matrices=False)
    return np.sum(s)


def svd_values_only(w, A):
    return np.sum(np.linalg.svd(A * w, compute_uv=False) ** 2)


def svd_first_vector(w, A):
    U, s, Vt = np.linalg.svd(A * w + 2.0 * np.eye(N), full_matrices=False)
    return np.sum(s) + np.sum(U[:, 0] ** 2 * w)


def svd_full_square(w, A):
    U, s, Vt = np.linalg.svd(A * w)
    return np.sum(s * s) + np.sum((U @ np.diag(s) @ Vt) * w)


def qr_of_tall(w, A):
    Q, R = np.linalg.qr(A * w)
    return np.sum(R ** 2) + np.sum(Q @ w)


def qr_diagonal(w, A):
    Q, R = np.linalg.qr(A + np.diag(w + 3.0))
    return np.sum(np.log(np.abs(np.diag(R))))


def pinv_tall(w, A):
    return np.sum(np.linalg.pinv(A * w) @ np.ones(N + 1))


def matrix_cube(w, A):
    return np.sum(np.linalg.matrix_power(A * w, 3))


def matrix_inverse_square(w, A):
    return np.sum(np.linalg.matrix_power(A * w + 3.0 * np.eye(N), -2))


def det_of_a_stack(w, A):
    return np.sum(np.linalg.det(np.stack([A * w, A.T + w, A @ A])) ** 2)


def det_of_nested_lists(w, x):
    S = np.array([[[x[0], w[0]], [w[1], x[1]]], [[x[1] * w[0], 1.0], [x[2], w[1]]]])
    return np.sum(np.linalg.det(S) ** 2)


def slogdet_of_a_stack(w, A):
    s, logdet = np.linalg.slogdet(np.stack([A * w + 3 * np.eye(N), A.T + 4 * np.eye(N)]))
    return np.sum(logdet)


def inverse_of_a_stack(w, A):
    return np.sum(np.linalg.inv(np.stack([A * w + 3 * np.eye(N), A.T + 4 * np.eye(N)])) ** 2)


def solve_a_stack(w, A):
    S = np.stack([A * w + 3 * np.eye(N), A.T + 4 * np.eye(N)])
    return np.sum(np.linalg.solve(S, np.stack([w, w ** 2])[..., None]))


def solve_stack_by_vector(w, A):
    S = np.stack([A * w + 3 * np.eye(N), A.T + 4 * np.eye(N)])
    return np.sum(np.linalg.solve(S, w) ** 2)


def eigh_values_and_vector(w, A):
    lam, V = np.linalg.eigh(A + A.T + np.diag(w))
    return np.sum(lam ** 2 * w) + np.sum(V[:, 0] ** 2 * w)


def cholesky_logdet(w, A):
    L = np.linalg.cholesky(A @ A.T + np.diag(w ** 2 + 1.0))
    return 2.0 * np.sum(np.log(np.diag(L)))


def spectral_norm(w, A):
    return np.linalg.norm(A * w, 2)


def trace_and_diagonal(w, A):
    return np.trace(A * w) + np.sum(np.diagonal(A) * w)


def gram_of_rows(w, x):
    G = np.outer(x, x) + np.diag(w ** 2 + 1.0)
    sign, logdet = np.linalg.slogdet(G)
    return logdet + np.sum(np.linalg.solve(G, x) * w)


# ---- lists of lists ----

def lists_three_levels(w, x):
    a, b = w[0] * x[0], np.sin(x[1])
    return np.sum(np.array([[[a, b], [b * a, w[1]]], [[x[2], a - b], [a, b]]]) ** 2)


def lists_appended_lists(w, x):
    rows = []
    for k in range(2):
        rows.append([[w[0] * x[k], np.cos(x[2])], [x[k] ** 2, w[1] * x[0]]])
    return np.sum(np.array(rows) ** 2)


def rotations_stacked(w, x):
    c, s = np.cos(x[0] * w[0]), np.sin(x[0] * w[0])
    R = np.array([[c, -s], [s, c]])
    return np.sum((R @ x[1:]) ** 2 * w[1:])


LOSSES = [squared_error, logistic_nll, huber, hinge_squared, poisson_nll, quantile_loss, tanh_regression, cosine_loss,
          student_t, loss_with_loop, loss_with_list, loss_index_test, loss_index_test_sum, loss_branch_on_index,
          masked_sum, masked_mean, masked_by_where, masked_count]
LINALG = [svd_values, svd_values_only, svd_first_vector, svd_full_square, matrix_cube, matrix_inverse_square,
          det_of_a_stack, slogdet_of_a_stack, inverse_of_a_stack, solve_a_stack, solve_stack_by_vector,
          eigh_values_and_vector, cholesky_logdet, spectral_norm, trace_and_diagonal, qr_diagonal]

#: (function, the maker of its arguments, the arguments differentiated)
PROGRAMS = ([(f, labels_args if f in (logistic_nll, hinge_squared) else loss_args, (0, 1)) for f in LOSSES]
            + [(mlp_layer, layer_args, (0, 1)), (softmax_ce, layer_args, (0,))]
            + [(f, matrices_args, (0, 1)) for f in LINALG]
            + [(qr_of_tall, tall_args, (0, 1)), (pinv_tall, tall_args, (0, 1))]
            + [(f, vectors_args, (0, 1)) for f in (det_of_nested_lists, gram_of_rows, lists_three_levels,
                                               lists_appended_lists, rotations_stacked)])
