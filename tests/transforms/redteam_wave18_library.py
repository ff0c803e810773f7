"""The red team's eighteenth wave, continued: library calls with the arguments users reach for less often.
np.gradient with coordinates, np.polyval of fitted coefficients (np.polyfit), the roots of a polynomial
(np.roots), np.quantile / np.percentile with a method, np.median of an even count, np.partition, np.diff
with append, np.linalg.matrix_power, scipy.linalg.expm, solve_triangular, cho_factor / cho_solve, np.kron,
np.einsum of the same operand twice, norms with ord=np.inf and ord=1, logsumexp with b= weights, xlogy,
log_ndtr, scipy.stats distributions with loc / scale keywords, a multivariate normal's logpdf,
np.linalg.slogdet's sign, np.interp outside its table and np.piecewise.  See redteam_wave18.py.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.special
import scipy.stats


def M(rng, *shape):
    return rng.normal(size=shape)


def gradient_with_coordinates(y, x):
    return np.sum(np.gradient(y, x) ** 2)


def polyfit_then_eval(y, x):
    p = np.polyfit(x, y, 2)
    return np.sum((np.polyval(p, x) - y) ** 2) + p[0] ** 2


def polynomial_roots(c):
    r = np.roots(np.concatenate([[1.0], c]))
    return np.sum(np.real(r) ** 2)


def quantile_methods(x):
    return np.quantile(x, 0.3) + np.percentile(x, 75, method="linear") + np.median(x)


def partition_smallest(x, k=3):
    return np.sum(np.partition(x, k)[:k])


def diff_append(x):
    return np.sum(np.diff(x, append=0.0) ** 2) + np.sum(np.diff(x, prepend=x[0]))


def matrix_power_trace(A):
    return np.trace(np.linalg.matrix_power(A, 3)) + np.sum(np.linalg.matrix_power(A, 2))


def expm_trace(A):
    return np.trace(scipy.linalg.expm(0.5 * A)) + scipy.linalg.expm(A)[0, 1]


def triangular_solve(L, b):
    x = scipy.linalg.solve_triangular(np.tril(L) + 3 * np.eye(len(b)), b, lower=True)
    return np.sum(x ** 2)


def cholesky_solve(A, b):
    S = A @ A.T + np.eye(len(b))
    c = scipy.linalg.cho_factor(S)
    return b @ scipy.linalg.cho_solve(c, b)


def kron_loss(a, B):
    return np.sum(np.kron(a.reshape(2, 2), B) ** 2)


def einsum_same_operand(x, A):
    return np.einsum("i,ij,j->", x, A, x) + np.einsum("i,i", x, x)


def norms_with_ord(x):
    return np.linalg.norm(x, ord=np.inf) + np.linalg.norm(x, ord=1) + np.linalg.norm(x, 3)


def weighted_logsumexp(x, w):
    return scipy.special.logsumexp(x, b=w) + np.sum(scipy.special.xlogy(w, np.exp(x)))


def log_ndtr_tail(z):
    return np.sum(scipy.special.log_ndtr(z)) + np.sum(scipy.special.ndtr(z) ** 2)


def stats_keywords(p, x):
    mu, log_s = p
    s = np.exp(log_s)
    return (np.sum(scipy.stats.norm.logpdf(x, loc=mu, scale=s)) + np.sum(scipy.stats.laplace.logpdf(x, mu, s))
            + np.sum(scipy.stats.t.logpdf(x, df=4.0, loc=mu, scale=s)))


def mvn_logpdf(mean, X, cov):
    return np.sum(scipy.stats.multivariate_normal.logpdf(X, mean=mean, cov=cov))


def slogdet_sign(A):
    sign, logdet = np.linalg.slogdet(A)
    return sign * logdet + np.linalg.det(A)


def interp_outside(xq, xs=np.array([0.0, 1.0, 2.0, 3.0])):  # noqa: B008  a default array, as users write it
    ys = np.sin(xs)
    return np.sum(np.interp(xq, xs, ys) ** 2)


def piecewise_funcs(x):
    return np.sum(np.piecewise(x, [x < 0, x >= 0], [lambda v: v ** 2, lambda v: np.sin(v)]))


def cumulative_trapezoid(y):
    return np.sum(np.cumsum(0.5 * (y[1:] + y[:-1])) ** 2)


LIBRARY18 = [
    ("w18_gradient_coordinates_y", gradient_with_coordinates, lambda r: (M(r, 6), _grid(r)), 0),
    ("w18_gradient_coordinates_x", gradient_with_coordinates, lambda r: (M(r, 6), _grid(r)), 1),
    ("w18_polyfit_then_eval", polyfit_then_eval, lambda r: (M(r, 7), np.linspace(-1, 1, 7)), 0),
    ("w18_polynomial_roots", polynomial_roots, lambda r: (np.array([-6.0, 11.0, -6.0]) + 0.01 * M(r, 3),), 0),
    ("w18_quantile_methods", quantile_methods, lambda r: (M(r, 7),), 0),
    ("w18_partition_smallest", partition_smallest, lambda r: (M(r, 7),), 0),
    ("w18_diff_append", diff_append, lambda r: (M(r, 6),), 0),
    ("w18_matrix_power", matrix_power_trace, lambda r: (0.5 * M(r, 3, 3),), 0),
    ("w18_expm_trace", expm_trace, lambda r: (0.5 * M(r, 3, 3),), 0),
    ("w18_triangular_solve", triangular_solve, lambda r: (M(r, 3, 3), M(r, 3)), 0),
    ("w18_cholesky_solve", cholesky_solve, lambda r: (M(r, 3, 3), M(r, 3)), 0),
    ("w18_kron_loss", kron_loss, lambda r: (M(r, 4), M(r, 2, 3)), 0),
    ("w18_einsum_same_operand", einsum_same_operand, lambda r: (M(r, 3), M(r, 3, 3)), 0),
    ("w18_norms_with_ord", norms_with_ord, lambda r: (M(r, 5),), 0),
    ("w18_weighted_logsumexp", weighted_logsumexp, lambda r: (M(r, 4), r.uniform(0.5, 1.5, 4)), 0),
    ("w18_weighted_logsumexp_w", weighted_logsumexp, lambda r: (M(r, 4), r.uniform(0.5, 1.5, 4)), 1),
    ("w18_log_ndtr_tail", log_ndtr_tail, lambda r: (np.array([-12.0, -3.0, 0.5, 4.0]),), 0),
    ("w18_stats_keywords", stats_keywords, lambda r: (np.array([0.2, -0.3]), M(r, 6)), 0),
    ("w18_mvn_logpdf", mvn_logpdf, lambda r: (M(r, 2), M(r, 5, 2), np.array([[1.0, 0.3], [0.3, 2.0]])), 0),
    ("w18_slogdet_sign", slogdet_sign, lambda r: (np.array([[0.5, 2.0], [1.0, 0.3]]),), 0),
    ("w18_interp_outside", interp_outside, lambda r: (np.array([-0.5, 0.3, 1.7, 3.4]),), 0),
    ("w18_piecewise_funcs", piecewise_funcs, lambda r: (M(r, 5),), 0),
    ("w18_cumulative_trapezoid", cumulative_trapezoid, lambda r: (M(r, 6),), 0),
]


def _grid(r):
    return np.cumsum(r.uniform(0.5, 1.5, 6))
