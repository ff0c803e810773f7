"""The red team's fifteenth wave, continued: library calls users reach for around a model (periodic
boundaries by np.round and np.mod, least squares by np.linalg.lstsq and pinv, a lookup table by
np.interp, np.trapezoid, np.median and np.percentile as robust statistics, a top-k mean by np.sort,
hard EM by np.argmax, Legendre polynomials by their recurrence, Chebyshev series through
np.polynomial, PCA's explained variance by eigh, np.kron and np.outer, boolean-mask writes,
np.add.at, an in-place sort, np.linalg.norm of ord 1 and inf, np.logaddexp.reduce, a histogram-free
kernel density, a Cholesky solve through scipy.linalg.cho_solve, a matrix exponential by a Taylor
loop, np.linalg.matrix_power, a bilinear image sample, np.gradient and np.cumsum for an integral).
See redteam_wave15.py.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg


def M(rng, *shape):
    return rng.normal(size=shape)


def minimum_image_energy(pos, L=3.0):
    d = pos[:, None, :] - pos[None, :, :]
    d = d - L * np.round(d / L)
    r2 = np.sum(d ** 2, axis=-1) + np.eye(len(pos))
    return np.sum(np.triu(1.0 / r2 ** 3, 1))


def wrap_positions(x, v, L=2.0, dt=0.1):
    x_new = np.mod(x + dt * v, L)
    return np.sum(np.sin(2 * np.pi * x_new / L))


def lstsq_residual(A, b):
    coef, *_ = np.linalg.lstsq(A, b, rcond=None)
    r = A @ coef - b
    return r @ r + np.sum(coef ** 2)


def pinv_ridge(A, y):
    return np.sum((np.linalg.pinv(A) @ y) ** 2)


def interp_lookup(x, xp, fp):
    return np.sum(np.interp(x, xp, fp) ** 2)


def interp_table_values(fp, x, xp):
    return np.sum(np.interp(x, xp, fp) ** 2)


def trapezoid_energy(y, t):
    return np.trapezoid(y ** 2, t)


def median_absolute_deviation(x):
    med = np.median(x)
    return np.median(np.abs(x - med)) + np.sum(x ** 2) * 0.01


def percentile_band(x):
    lo, hi = np.percentile(x, [10.0, 90.0])
    return hi - lo


def topk_mean(scores, k=3):
    s = np.sort(scores)[::-1]
    return np.mean(s[:k])


def hard_em_step(mu, x):
    d = (x[:, None] - mu[None, :]) ** 2
    z = np.argmax(-d, axis=1)
    return np.sum((x - mu[z]) ** 2)


def legendre_series(c, x):
    P = [np.ones_like(x), x]
    for n in range(1, len(c) - 1):
        P.append(((2 * n + 1) * x * P[n] - n * P[n - 1]) / (n + 1))
    return np.sum(sum(ck * Pk for ck, Pk in zip(c, P)) ** 2)


def chebyshev_fit(c, x, y):
    return np.sum((np.polynomial.chebyshev.chebval(x, c) - y) ** 2)


def pca_explained(X):
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc / (len(X) - 1)
    w, V = np.linalg.eigh(C)
    return w[-1] / np.sum(w)


def kron_outer(a, b):
    K = np.kron(np.outer(a, a), np.eye(2))
    return np.sum(K * np.outer(b, b))


def mask_write(x):
    y = x.copy()
    y[y < 0] *= 0.1
    y[y > 1] = 1.0 + np.log(y[y > 1])
    return np.sum(y ** 2)


def add_at_scatter(vals, idx, n=4):
    out = np.zeros(n)
    np.add.at(out, idx, vals)
    return np.sum(out ** 2)


def inplace_sort(x):
    y = x * 2.0
    y.sort()
    return np.sum(y * np.arange(1.0, len(y) + 1))


def norms_ord(x):
    return np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) + np.linalg.norm(x)


def logaddexp_reduce(z):
    return np.logaddexp.reduce(z) - np.mean(z)


def kde_loglik(bandwidth, data, query):
    d = (query[:, None] - data[None, :]) / bandwidth
    dens = np.exp(-0.5 * d ** 2).sum(axis=1) / (len(data) * bandwidth * np.sqrt(2 * np.pi))
    return -np.sum(np.log(dens))


def cho_solve_quadratic(A, b):
    S = A @ A.T + np.eye(len(b))
    c = scipy.linalg.cho_factor(S)
    x = scipy.linalg.cho_solve(c, b)
    return b @ x


def expm_taylor(A, terms=12):
    E = np.eye(len(A))
    term = np.eye(len(A))
    for k in range(1, terms):
        term = term @ A / k
        E = E + term
    return np.trace(E @ E.T)


def matrix_power_markov(P_logits, steps=5):
    P = np.exp(P_logits)
    P = P / P.sum(axis=1, keepdims=True)
    Pn = np.linalg.matrix_power(P, steps)
    return Pn[0, -1]


def bilinear_sample(img, uv):
    h, w = img.shape
    x, y = uv[:, 0] * (w - 1), uv[:, 1] * (h - 1)
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
    fx, fy = x - x0, y - y0
    top = img[y0, x0] * (1 - fx) + img[y0, x1] * fx
    bot = img[y1, x0] * (1 - fx) + img[y1, x1] * fx
    return np.sum(top * (1 - fy) + bot * fy)


def gradient_integral(f, dx=0.1):
    df = np.gradient(f, dx)
    F = np.cumsum(f) * dx
    return np.sum(df ** 2) + F[-1] ** 2


def _markov(r):
    return M(r, 3, 3)


NUMERICS15 = [
    ("w15_minimum_image_energy", minimum_image_energy, lambda r: (np.array([[0.2, 0.1], [2.7, 0.4], [1.3, 2.2]]),), 0),
    ("w15_wrap_positions", wrap_positions, lambda r: (np.array([0.3, 1.95, 1.0]), np.array([1.0, 2.0, -0.5])), 0),
    ("w15_lstsq_residual", lstsq_residual, lambda r: (M(r, 6, 2), M(r, 6)), 0),
    ("w15_pinv_ridge", pinv_ridge, lambda r: (M(r, 5, 3), M(r, 5)), 0),
    ("w15_interp_lookup", interp_lookup, lambda r: (np.array([0.15, 0.6, 1.3]), np.linspace(0, 2, 5), M(r, 5)), 0),
    ("w15_interp_table_values", interp_table_values,
     lambda r: (M(r, 5), np.array([0.15, 0.6, 1.3]), np.linspace(0, 2, 5)), 0),
    ("w15_trapezoid_energy", trapezoid_energy, lambda r: (M(r, 6), np.linspace(0, 1, 6)), 0),
    ("w15_median_absolute_deviation", median_absolute_deviation, lambda r: (M(r, 7),), 0),
    ("w15_percentile_band", percentile_band, lambda r: (M(r, 9),), 0),
    ("w15_topk_mean", topk_mean, lambda r: (M(r, 6),), 0),
    ("w15_hard_em_step", hard_em_step, lambda r: (np.array([-1.0, 1.5]), M(r, 8)), 0),
    ("w15_legendre_series", legendre_series, lambda r: (M(r, 5), np.linspace(-1, 1, 6)), 0),
    ("w15_chebyshev_fit", chebyshev_fit, lambda r: (M(r, 4), np.linspace(-1, 1, 7), M(r, 7)), 0),
    ("w15_pca_explained", pca_explained, lambda r: (M(r, 8, 3),), 0),
    ("w15_kron_outer", kron_outer, lambda r: (M(r, 2), M(r, 4)), 0),
    ("w15_mask_write", mask_write, lambda r: (np.array([-0.5, 0.3, 1.7, 2.5, -1.2]),), 0),
    ("w15_add_at_scatter", add_at_scatter, lambda r: (M(r, 6), np.array([0, 2, 2, 3, 0, 0])), 0),
    ("w15_inplace_sort", inplace_sort, lambda r: (M(r, 5),), 0),
    ("w15_norms_ord", norms_ord, lambda r: (M(r, 4),), 0),
    ("w15_logaddexp_reduce", logaddexp_reduce, lambda r: (M(r, 5),), 0),
    ("w15_kde_bandwidth", kde_loglik, lambda r: (0.6, M(r, 10), M(r, 4)), 0),
    ("w15_cho_solve_quadratic", cho_solve_quadratic, lambda r: (M(r, 3, 3), M(r, 3)), 0),
    ("w15_expm_taylor", expm_taylor, lambda r: (0.5 * M(r, 3, 3),), 0),
    ("w15_matrix_power_markov", matrix_power_markov, lambda r: (_markov(r),), 0),
    ("w15_bilinear_sample_uv", bilinear_sample, lambda r: (M(r, 4, 5), np.array([[0.3, 0.4], [0.72, 0.1]])), 1),
    ("w15_bilinear_sample_img", bilinear_sample, lambda r: (M(r, 4, 5), np.array([[0.3, 0.4], [0.72, 0.1]])), 0),
    ("w15_gradient_integral", gradient_integral, lambda r: (M(r, 7),), 0),
]
