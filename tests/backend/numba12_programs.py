"""Programs of the classes jit="numba" refused while grad differentiated them (red team wave
11), three or more variants each: gathers and scatters through index arrays of several axes
(``bias[idx]``, ``np.add.at(K, (ids[:, None], ids[None, :]), ke)``, ``K[t[a], t[b]] += ...``,
``logsumexp(q[nxt])``, a determinant of a scattered matrix), ``np.cumprod``/``np.cumsum`` along
an axis and ``np.partition`` / ``argpartition``, ``math.fsum``, a float state that becomes an
array in a loop, ``scipy.stats.t`` / ``multivariate_normal``, and ``np.fft``'s parts.
Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import math
import statistics

import numpy as np
import scipy.special
import scipy.stats
from scipy.stats import t as student

# ---- gathers and scatters through index arrays of several axes ----------------------------------


def relative_bias(bias, X):
    n = X.shape[0]
    idx = np.arange(n)[:, None] - np.arange(n)[None, :] + n - 1
    s = X @ X.T + bias[idx]
    return np.sum(np.tanh(s) * s)


def embedding_windows(E, W):
    windows = np.array([[0, 1, 2], [2, 3, 3], [4, 0, 1]])
    h = E[windows]  # (3, 3, d): a row of E per index, repeats adding again in the adjoint
    return np.sum(np.tanh(h @ W) ** 2)


def gathered_logsumexp(q, rewards, nxt):
    v = scipy.special.logsumexp(q[nxt] / 0.5, axis=-1)
    return np.sum((q - (rewards + 0.9 * v)) ** 2)


def gather_in_a_loop(q, nxt):
    total = 0.0
    for k in range(3):
        total = total + np.sum(np.sin(q[nxt] * (k + 1.0)))
    return total


def stiffness_add_at(log_k, n=4):
    k = np.exp(log_k)
    K = np.eye(n + 1)
    for e in range(n):
        ids = np.array([e, e + 1])
        np.add.at(K, (ids[:, None], ids[None, :]), k[e] * np.array([[1.0, -1.0], [-1.0, 1.0]]))
    u = np.linspace(0.5, -0.5, n + 1)
    return u @ K @ u + np.sum(K ** 2)


def add_at_pair_number(w):
    K = np.zeros((3, 3))
    ids = np.array([0, 2, 2])
    for e in range(2):
        np.add.at(K, (ids[:, None], ids[None, :]), w[e] ** 2)
    return np.sum(K * np.arange(9.0).reshape(3, 3))


def scatter_elements_loop(coords, tris):
    K = np.zeros((coords.shape[0], coords.shape[0]))
    for t in tris:
        p = coords[t]
        ke = (p @ p.T) * 0.5
        for a in range(3):
            for b in range(3):
                K[t[a], t[b]] += ke[a, b]
    u = np.array([1.0, 0.0, -1.0, 0.5])
    return u @ K @ u


def laplacian_logdet(w_log, edges):
    w = np.exp(w_log)
    n = 4
    L = np.zeros((n, n))
    L[edges[:, 0], edges[:, 1]] -= w
    L[edges[:, 1], edges[:, 0]] -= w
    L[np.diag_indices(n)] = -L.sum(axis=1)
    return np.log(np.linalg.det(L[1:, 1:]))


def determinant_of_triangle(coords):
    B = np.array([coords[1] - coords[0], coords[2] - coords[0]]).T
    return 0.5 * abs(np.linalg.det(B)) + np.sum(coords ** 2)


# ---- scans and partitions along an axis ----------------------------------------------------------


def survival_cumprod(w, X):
    h = scipy.special.expit(X @ w)
    surv = np.cumprod(1 - h, axis=1)
    return -np.sum(np.log(surv[:, -1] + surv[:, 0]))


def cumprod_first_axis(x):
    return np.sum(np.cumprod(x, axis=0) * np.arange(x.size).reshape(x.shape))


def cumprod_with_zero(x):
    return np.sum(np.cumprod(x * np.array([[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]]), axis=1) ** 2)


def cumprod_three_axes(x):
    return np.sum(np.cumprod(np.tanh(x), axis=1))


def cumsum_rows(x):
    return np.sum(np.cumsum(x, axis=1) ** 2)


def trimmed_loss(w, X, y):
    sq = (X @ w - y) ** 2
    return np.sum(np.partition(sq, 2)[:3])


def partition_rows(x):
    return np.sum(np.partition(x ** 2, 1, axis=1)[:, :2])


def partition_columns(x):
    return np.sum(np.partition(np.sin(x), -1, axis=0)[-1])


def argpartition_pick(x):
    order = np.argpartition(x, 2)
    return np.sum(x[order[:3]] ** 3)


# ---- math.fsum ---------------------------------------------------------------------------------


def fsum_of_terms(t):
    a, b = t
    return math.fsum([a * b, math.log1p(a), math.expm1(-b)]) + math.lgamma(a)


def fsum_of_array(x):
    return math.fsum(x ** 2) + math.fsum(np.sin(x))


def fsum_in_a_loop(x):
    total = 0.0
    for k in range(3):
        total += math.fsum([x[k] * x[k + 1], 1e16, -1e16])
    return total


def fmean_of_list(x):
    return statistics.fmean([x[0] ** 2, x[1] * x[2], np.cos(x[3])])


# ---- a float state that becomes an array in a loop ------------------------------------------------


def asian_average(params, Z, K=1.0, dt=0.25):
    sigma, r = params
    S = 1.0
    total = np.zeros(Z.shape[0])
    for t in range(Z.shape[1]):
        S = S * np.exp((r - 0.5 * sigma * sigma) * dt + sigma * math.sqrt(dt) * Z[:, t])
        total = total + S
    return np.mean(np.maximum(total / Z.shape[1] - K, 0.0) ** 2)


def weighted_state(x, v):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] * v
    return np.sum(np.sin(s))


def product_state(x, v):
    p = 1.0
    for i in range(x.shape[0]):
        p = p * (1.0 + 0.1 * x[i] * v)
    return np.sum(p ** 2)


def row_state(A, w):
    s = 0.0
    for i in range(A.shape[0]):
        s = 0.5 * s + np.tanh(A[i] * w)
    return np.sum(s ** 2)


# ---- scipy.stats.t and multivariate_normal ------------------------------------------------------


def student_mixture(locs, x, df=4.0, scales=np.array([0.5, 1.0])):  # noqa: B008  read only
    lp = scipy.stats.t.logpdf(x[:, None], df, loc=locs[None, :], scale=scales[None, :])
    return -np.sum(np.logaddexp(lp[:, 0], lp[:, 1]))


def student_pdf_df_array(x, df):
    return np.sum(student.pdf(x, df) * x)


def student_cdf_tails(x):
    return np.sum(scipy.stats.t.cdf(x, 3.0, loc=0.2) + scipy.stats.t.logsf(x, 5.0, scale=2.0))


def student_logcdf_scale(scale, x):
    return -np.sum(scipy.stats.t.logcdf(x, 2.5, scale=scale) + scipy.stats.t.sf(x, 6.0, 0.1, scale))


def mvn_rows_mean(mu, X):
    cov = np.array([[1.0, 0.3], [0.3, 0.5]])
    return -np.sum(scipy.stats.multivariate_normal.logpdf(X, mean=mu, cov=cov))


def mvn_point(x):
    return scipy.stats.multivariate_normal.logpdf(x, np.zeros(3), SPD) + np.sum(x ** 2)


def mvn_pdf_rows(X):
    cov = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 0.7]])
    return np.sum(scipy.stats.multivariate_normal.pdf(X, np.array([0.1, 0.0, -0.2]), cov))


# ---- np.fft's parts (numba has no FFT: NumPy's through object mode) ------------------------------


def rfft_power(x):
    spec = np.fft.rfft(x)
    return np.sum(np.abs(spec) ** 2)


def fft_weighted_real(x):
    return np.sum(np.fft.fft(np.tanh(x)).real * np.arange(x.size)) + np.sum(np.fft.rfft(x).imag ** 2)


def _m(rng, *shape):
    return rng.normal(size=shape)


NXT = np.array([[1, 2], [0, 3], [3, 3], [2, 0]])
EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [1, 3]])
TRIS = np.array([[0, 1, 2], [1, 3, 2]])
SPD = np.array([[1.5, 0.2, 0.1], [0.2, 1.0, 0.3], [0.1, 0.3, 0.8]])

PROGRAMS = [
    ("relative_bias", relative_bias, lambda r: (_m(r, 7), _m(r, 4, 3)), 0),
    ("embedding_windows", embedding_windows, lambda r: (_m(r, 5, 2), _m(r, 2, 2)), 0),
    ("gathered_logsumexp", gathered_logsumexp, lambda r: (_m(r, 4, 2), _m(r, 4, 2), NXT), 0),
    ("gather_in_a_loop", gather_in_a_loop, lambda r: (_m(r, 4), NXT), 0),
    ("stiffness_add_at", stiffness_add_at, lambda r: (_m(r, 4),), 0),
    ("add_at_pair_number", add_at_pair_number, lambda r: (_m(r, 2),), 0),
    ("scatter_elements_loop", scatter_elements_loop, lambda r: (_m(r, 4, 2), TRIS), 0),
    ("laplacian_logdet", laplacian_logdet, lambda r: (0.3 * _m(r, 5), EDGES), 0),
    ("determinant_of_triangle", determinant_of_triangle, lambda r: (_m(r, 3, 2),), 0),
    ("survival_cumprod", survival_cumprod, lambda r: (_m(r, 2), _m(r, 3, 4, 2)), 0),
    ("cumprod_first_axis", cumprod_first_axis, lambda r: (_m(r, 3, 2),), 0),
    ("cumprod_with_zero", cumprod_with_zero, lambda r: (_m(r, 2, 3),), 0),
    ("cumprod_three_axes", cumprod_three_axes, lambda r: (_m(r, 2, 3, 2),), 0),
    ("cumsum_rows", cumsum_rows, lambda r: (_m(r, 3, 4),), 0),
    ("trimmed_loss", trimmed_loss, lambda r: (_m(r, 2), _m(r, 6, 2), _m(r, 6)), 0),
    ("trimmed_loss_x", trimmed_loss, lambda r: (_m(r, 2), _m(r, 6, 2), _m(r, 6)), 1),
    ("partition_rows", partition_rows, lambda r: (_m(r, 3, 4),), 0),
    ("partition_columns", partition_columns, lambda r: (_m(r, 4, 3),), 0),
    ("argpartition_pick", argpartition_pick, lambda r: (_m(r, 6),), 0),
    ("fsum_of_terms", fsum_of_terms, lambda r: (np.array([0.7, 0.4]),), 0),
    ("fsum_of_array", fsum_of_array, lambda r: (_m(r, 5),), 0),
    ("fsum_in_a_loop", fsum_in_a_loop, lambda r: (_m(r, 4),), 0),
    ("fmean_of_list", fmean_of_list, lambda r: (_m(r, 4),), 0),
    ("asian_average", asian_average, lambda r: (np.array([0.3, 0.05]), _m(r, 5, 4)), 0),
    ("weighted_state", weighted_state, lambda r: (_m(r, 3), _m(r, 4)), 0),
    ("weighted_state_v", weighted_state, lambda r: (_m(r, 3), _m(r, 4)), 1),
    ("product_state", product_state, lambda r: (_m(r, 3), _m(r, 2)), 0),
    ("row_state", row_state, lambda r: (_m(r, 3, 4), _m(r, 4)), 0),
    ("student_mixture", student_mixture, lambda r: (_m(r, 2), _m(r, 6)), 0),
    ("student_pdf_df_array", student_pdf_df_array, lambda r: (_m(r, 4), np.array([1.5, 3.0, 7.0, 30.0])), 0),
    ("student_cdf_tails", student_cdf_tails, lambda r: (_m(r, 5),), 0),
    ("student_logcdf_scale", student_logcdf_scale, lambda r: (np.array([0.8, 1.3, 2.0]), _m(r, 3)), 0),
    ("mvn_rows_mean", mvn_rows_mean, lambda r: (_m(r, 2), _m(r, 5, 2)), 0),
    ("mvn_point", mvn_point, lambda r: (_m(r, 3),), 0),
    ("mvn_pdf_rows", mvn_pdf_rows, lambda r: (0.5 * _m(r, 4, 3),), 0),
    ("rfft_power", rfft_power, lambda r: (_m(r, 6),), 0),
    ("fft_weighted_real", fft_weighted_real, lambda r: (_m(r, 5),), 0),
]
