"""Programs of the classes jit="numba" refused while grad differentiated them (red team,
issue #23), three or more variants each: ``np.logaddexp.reduce``, Python's ``sum`` of a list of
arrays, ``np.average`` along an axis or with optional weights, ``np.array`` of nested lists
mixing int literals and floats, a float division by zero in an untaken branch (numba's
ZeroDivisionError where NumPy gives inf), ``np.expand_dims`` of a number, and an array's rows
as a list (``sorted(x)``, ``list(x)``).  Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import numpy as np
import scipy.stats
from scipy.stats import norm

PHI = norm.cdf


def logaddexp_vector(x):
    return np.logaddexp.reduce(x * 2.0) + x[0]


def logaddexp_forward_pass(log_a, log_e):
    alpha = log_e[0]
    for t in range(1, log_e.shape[0]):
        alpha = np.logaddexp.reduce(alpha[:, None] + log_a, axis=0) + log_e[t]
    return np.logaddexp.reduce(alpha)


def logaddexp_rows_kept(z):
    lse = np.logaddexp.reduce(z, axis=1, keepdims=True)
    return np.sum((z - lse) * np.arange(z.shape[1]))


def logaddexp_last_axis(z):
    return np.sum(np.logaddexp.reduce(np.sin(z), -1) ** 2)


def sum_of_list(x):
    parts = [x * 2.0, np.sin(x), x ** 2]
    return np.sum(sum(parts))


def sum_of_generator(ws):
    return np.sum(sum(w * w for w in ws))


def sum_of_products(x, W):
    return np.sum(sum([W @ x, x * 3.0, np.tanh(x)]) ** 2)


def sum_of_matrices(A):
    return np.sum(sum([A @ A, A.T, np.cos(A)]) * A)


def average_along_rows(x, w):
    return np.sum(np.average(x ** 2, axis=0, weights=w))


def average_optional_weights(x, w=None):
    return np.sum(np.average(np.tanh(x), axis=1, weights=w) ** 2)


def average_none_passed(x):
    return np.sum(np.average(x * x, axis=0, weights=None) * np.arange(1.0, 4.0))


def average_same_shape_kept(x, w):
    m = np.average(x, axis=1, weights=w, keepdims=True)
    return np.sum((x - m) ** 2)


def average_of_vector(x, w):
    return np.average(np.tanh(x), weights=w) + np.average(x ** 2, axis=0, weights=w) * 0.5


def rotation_of_int_and_float_rows(angles, points):
    c = angles[0]
    R = np.array([[1, 0, 0], [0, np.cos(c), -np.sin(c)], [0, np.sin(c), np.cos(c)]])
    return np.sum((points @ R.T) ** 2 * points)


def shear_rows(s):
    A = np.array([[1, s[0]], [0, 1]])
    return np.sum(A @ A.T * np.array([[1.0, 2.0], [3.0, 4.0]])) + s[1] ** 2


def homogeneous_transform(p):
    T = np.array([[np.cos(p[0]), -np.sin(p[0]), p[1]], [np.sin(p[0]), np.cos(p[0]), p[2]], [0, 0, 1]])
    v = T @ np.array([1.0, 2.0, 1.0])
    return v[0] ** 2 + v[1]


def stacked_int_and_float_blocks(a):
    B = np.asarray([[[1, 0], [0, a[0]]], [[a[1], 0], [0, 2]]])
    return np.sum(B ** 2 * np.arange(1.0, 9.0).reshape(2, 2, 2))


def reciprocal_where_untaken(v):
    x = v[0]
    return np.where(x > 0.5, 1.0 / x, x) * v[1]


def mean_of_empty_mask(x):
    n = np.sum(x > 10.0) * 1.0
    s = np.sum(np.where(x > 10.0, x, 0.0))
    return np.where(n > 0, s / n, 0.0) + np.sum(x ** 2)


def garch_variance(params, r):
    omega, a, b = np.exp(params[0]), 1.0 / (1.0 + np.exp(-params[1])), 1.0 / (1.0 + np.exp(-params[2]))
    s2 = np.var(r)
    nll = 0.0
    for t in range(1, len(r)):
        s2 = omega + a * r[t - 1] ** 2 + b * s2
        nll += 0.5 * (np.log(s2) + r[t] ** 2 / s2)
    return nll


def ewma_variance(p, r):
    lam = 1.0 / (1.0 + np.exp(-p[0]))
    v = np.var(r)
    total = 0.0
    for t in range(r.shape[0]):
        v = lam * v + (1.0 - lam) * r[t] ** 2
        total += np.log(v)
    return total


def discounted_return(p, rewards):
    gamma = 1.0 / (1.0 + np.exp(-p[0]))
    g = np.mean(rewards ** 2)
    loss = 0.0
    for t in range(rewards.shape[0]):
        g = rewards[t] + gamma * g
        loss += np.sqrt(g)
    return loss * p[1]


def call_price(params, K, r):
    S, sigma, T = params[0], params[1], params[2]
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return S * scipy.stats.norm.cdf(d1) - K * np.exp(-r * T) * scipy.stats.norm.cdf(d2)


def gaussian_nll(mu_sigma, data):
    return -np.sum(norm.logpdf(data, mu_sigma[0], np.exp(mu_sigma[1]))) + norm.pdf(mu_sigma[0], scale=2.0)


def probit_tail(w, X):
    z = X @ w
    return np.sum(PHI(z) * norm.sf(z, loc=0.5)) - np.sum(norm.logcdf(z)) + norm.ppf(0.25) * w[0] ** 2


def inverse_distances_off_diagonal(pos):
    d = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(d ** 2, axis=-1) + 1.0
    inv = 1.0 / r2
    np.fill_diagonal(inv, 0.0)
    return np.sum(inv)


def kernel_with_set_diagonal(x):
    K = np.exp(-(x[:, None] - x[None, :]) ** 2)
    np.fill_diagonal(K, 2.0)
    return np.sum(K @ x)


def tall_diagonal_wrapped(A):
    B = A * A
    np.fill_diagonal(B, 0.5, wrap=True)
    return np.sum(B * np.arange(B.size).reshape(B.shape))


def sorted_values(x):
    s = sorted(x)
    return s[0] * 2.0 + s[-1] ** 2 + min(x) + sum(np.sin(x))


def rows_as_list(x):
    rows = list(x)
    return rows[0] * rows[2] + np.sum(x)


def matrix_rows_as_list(X):
    rows = list(X)
    return np.sum(rows[0] * rows[1]) + np.sum(np.tanh(rows[2]))


def _m(rng, *shape):
    return rng.normal(size=shape)


PROGRAMS = [
    ("logaddexp_vector", logaddexp_vector, lambda r: (_m(r, 4),), 0),
    ("logaddexp_forward_pass", logaddexp_forward_pass, lambda r: (_m(r, 3, 3), _m(r, 4, 3)), 0),
    ("logaddexp_forward_pass_emissions", logaddexp_forward_pass, lambda r: (_m(r, 3, 3), _m(r, 4, 3)), 1),
    ("logaddexp_rows_kept", logaddexp_rows_kept, lambda r: (_m(r, 3, 4),), 0),
    ("logaddexp_last_axis", logaddexp_last_axis, lambda r: (_m(r, 2, 3),), 0),
    ("sum_of_list", sum_of_list, lambda r: (_m(r, 3),), 0),
    ("sum_of_generator", sum_of_generator, lambda r: ([_m(r, 3), _m(r, 3)],), 0),
    ("sum_of_products", sum_of_products, lambda r: (_m(r, 3), _m(r, 3, 3)), 1),
    ("sum_of_matrices", sum_of_matrices, lambda r: (_m(r, 2, 2),), 0),
    ("average_along_rows", average_along_rows, lambda r: (_m(r, 4, 3), 0.5 + np.arange(4.0)), 0),
    ("average_along_rows_weights", average_along_rows, lambda r: (_m(r, 4, 3), 0.5 + np.arange(4.0)), 1),
    ("average_optional_weights", average_optional_weights, lambda r: (_m(r, 2, 3),), 0),
    ("average_optional_weights_given", average_optional_weights, lambda r: (_m(r, 2, 3), 0.5 + np.arange(3.0)), 0),
    ("average_none_passed", average_none_passed, lambda r: (_m(r, 2, 3),), 0),
    ("average_same_shape_kept", average_same_shape_kept, lambda r: (_m(r, 2, 3), 1.0 + r.random((2, 3))), 1),
    ("average_of_vector", average_of_vector, lambda r: (_m(r, 5), 0.2 + np.arange(5.0)), 1),
    ("rotation_of_int_and_float_rows", rotation_of_int_and_float_rows, lambda r: (np.array([0.3, -0.7]), _m(r, 4, 3)),
     0),
    ("shear_rows", shear_rows, lambda r: (_m(r, 2),), 0),
    ("homogeneous_transform", homogeneous_transform, lambda r: (_m(r, 3),), 0),
    ("stacked_int_and_float_blocks", stacked_int_and_float_blocks, lambda r: (_m(r, 2),), 0),
    ("reciprocal_where_untaken", reciprocal_where_untaken, lambda r: (np.array([0.0, 0.7]),), 0),
    ("mean_of_empty_mask", mean_of_empty_mask, lambda r: (_m(r, 4),), 0),
    ("garch_variance", garch_variance, lambda r: (np.array([-1.0, 0.3, 1.2]), _m(r, 6)), 0),
    ("ewma_variance", ewma_variance, lambda r: (np.array([0.4]), _m(r, 6)), 0),
    ("discounted_return", discounted_return, lambda r: (np.array([0.4, 0.2]), 0.5 + r.random(6)), 0),
    ("call_price", call_price, lambda r: (np.array([1.1, 0.25, 0.8]), 1.0, 0.02), 0),
    ("gaussian_nll", gaussian_nll, lambda r: (np.array([0.2, -0.3]), _m(r, 5)), 0),
    ("probit_tail", probit_tail, lambda r: (_m(r, 3), _m(r, 4, 3)), 0),
    ("inverse_distances_off_diagonal", inverse_distances_off_diagonal, lambda r: (_m(r, 4, 2),), 0),
    ("kernel_with_set_diagonal", kernel_with_set_diagonal, lambda r: (_m(r, 4),), 0),
    ("tall_diagonal_wrapped", tall_diagonal_wrapped, lambda r: (_m(r, 7, 3),), 0),
    ("sorted_values", sorted_values, lambda r: (np.array([0.3, -1.2, 0.8, 2.0]),), 0),
    ("rows_as_list", rows_as_list, lambda r: (_m(r, 3),), 0),
    ("matrix_rows_as_list", matrix_rows_as_list, lambda r: (_m(r, 3, 2),), 0),
]
