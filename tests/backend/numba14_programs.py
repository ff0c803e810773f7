"""Programs of the classes jit="numba" refused while grad differentiated them (red team waves
12 and 13), several spellings each: ``np.diff`` along an axis with ``prepend``/``append``,
swaps and permutations through index lists (``B[[0, 1]] = B[[1, 0]]``), NaN-skipping
reductions along an axis (``np.nanmean(X, axis=0)``), running extrema
(``np.maximum.accumulate``) with reductions along axes, ``np.ix_`` blocks of a matrix,
``int()``/``float()`` of strings, ``numpy.polynomial``'s Gauss nodes, and ``scipy.stats``'
``laplace``, ``logistic``, ``cauchy`` and ``expon``, ``poisson.logpmf``/``pmf``.
Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import numpy as np
import scipy.stats
from scipy.stats import cauchy, expon

# ---- np.diff along an axis, padded ----------------------------------------------------------------


def closed_polyline_length(P):
    edges = np.diff(P, axis=0, append=P[:1])
    return np.linalg.norm(edges, axis=1).sum()


def column_steps_from_zero(X):
    steps = np.diff(X, axis=1, prepend=0.0)
    return np.sum(np.tanh(steps) ** 2)


def second_differences_padded(X):
    d2 = np.diff(X, n=2, axis=0, prepend=X[:1], append=X[-1:])
    return np.sum(d2 ** 2) + np.sum(d2[:, 0] * X[:, 1])


def last_axis_ring(T):
    d = np.diff(T, axis=-1, append=T[..., :1])
    return np.sum(np.sin(d) * T)


# ---- writes through index lists ------------------------------------------------------------------


def swap_two_rows(A):
    B = A.copy()
    B[[0, 1]] = B[[1, 0]]
    return np.sum(B * np.arange(B.size).reshape(B.shape))


def permute_columns(A):
    B = A * 1.0
    B[:, [0, 2]] = B[:, [2, 0]] * 2.0
    return np.sum(np.sin(B) * np.arange(B.size).reshape(B.shape))


def cycle_three_rows(A):
    B = np.exp(A)
    B[[0, 1, 2]] = B[[2, 0, 1]]
    return np.sum(B * np.arange(1.0, B.size + 1.0).reshape(B.shape))


# ---- NaN-skipping reductions along an axis -------------------------------------------------------


def nan_fill_with_column_means(w, X):
    col = np.nanmean(X, axis=0)
    filled = np.where(np.isnan(X), col, X)
    return np.sum((filled @ w) ** 2)


def nan_row_sums(X, mask):
    Y = np.where(mask, np.nan, X)
    return np.sum(np.nansum(Y, axis=1) ** 2) + np.sum(np.nanmean(Y, axis=1, keepdims=True) * X)


def nan_column_centred(X, mask):
    Y = np.where(mask, np.nan, X)
    centred = X - np.nanmean(Y, axis=0, keepdims=True)
    return np.sum(centred ** 2) + np.sum(np.nansum(Y, axis=-1, keepdims=True) * X)


# ---- running extrema -----------------------------------------------------------------------------


def drawdown_of_returns(r):
    wealth = np.cumprod(1.0 + r)
    peak = np.maximum.accumulate(wealth)
    return np.max((peak - wealth) / peak)


def drawdown_per_asset(w, R):
    wealth = np.cumprod(1.0 + R * w, axis=0)
    peak = np.maximum.accumulate(wealth, axis=0)
    dd = np.max((peak - wealth) / peak, axis=0)
    return np.sum(dd ** 2)


def running_minimum_rows(X):
    low = np.minimum.accumulate(X, axis=1)
    return np.sum(low * X) + np.sum(np.min(low, axis=1) ** 2)


def running_maximum_tensor(T):
    return np.sum(np.sin(np.maximum.accumulate(T, -1)) * T)


# ---- np.ix_ blocks -------------------------------------------------------------------------------


def hermite_beam(EI, n_el=3, length=2.0, q=1.0):
    h = length / n_el
    ndof = 2 * (n_el + 1)
    K = np.zeros((ndof, ndof))
    f = np.zeros(ndof)
    for e in range(n_el):
        ke = EI[e] / h ** 3 * np.array([[12, 6 * h, -12, 6 * h], [6 * h, 4 * h * h, -6 * h, 2 * h * h],
                                        [-12, -6 * h, 12, -6 * h], [6 * h, 2 * h * h, -6 * h, 4 * h * h]])
        idx = np.arange(2 * e, 2 * e + 4)
        K[np.ix_(idx, idx)] += ke
        f[idx] += q * h * np.array([0.5, h / 12, 0.5, -h / 12])
    w = np.linalg.solve(K[2:, 2:], f[2:])
    return w[-2]


def spring_chain_block(k):
    n = k.shape[0] + 1
    K = np.eye(n) * 0.1
    for e in range(n - 1):
        dofs = np.array([e, e + 1])
        K[np.ix_(dofs, dofs)] += k[e] * np.array([[1.0, -1.0], [-1.0, 1.0]])
    free = np.arange(1, n)
    sign, logdet = np.linalg.slogdet(K[np.ix_(free, free)])
    return logdet


def block_of_three_axes(T):
    B = T[np.ix_([0, 2], [1, 2], [0, 1])]
    return np.sum(np.tanh(B) * B)


def masked_block(A, keep):
    S = A @ A.T
    sub = S[np.ix_(keep, keep)]
    return np.sum(sub ** 2) + np.trace(sub)


# ---- int() and float() of strings ----------------------------------------------------------------


def indexed_by_names(x, names=("x0", "x2", "x1", "x2")):
    total = 0.0
    for name in names:
        total = total + np.sin(x[int(name[1:])]) * (1.0 + int(name[1:]))
    return total


def weights_from_config(w, spec="l2:0.5,l1:1e-1,l2: 2"):
    total = np.sum(np.cos(w))
    for part in spec.split(","):
        name, weight = part.split(":")
        if name == "l2":
            total = total + float(weight) * np.sum(w ** 2)
        else:
            total = total + float(weight) * np.sum(np.sqrt(w ** 2 + 1e-3))
    return total


# ---- numpy.polynomial's Gauss quadrature ---------------------------------------------------------


def legendre_quadrature(theta, n=6):
    t, wts = np.polynomial.legendre.leggauss(n)
    x = 0.5 * (t + 1.0)
    return 0.5 * np.sum(wts * np.exp(-theta[0] * x) * np.cos(theta[1] * x))


def hermite_expectation(mu, n=8):
    t, wts = np.polynomial.hermite.hermgauss(n)
    z = mu[0] + np.sqrt(2.0) * np.exp(mu[1]) * t
    return np.sum(wts * np.tanh(z)) / np.sqrt(np.pi)


# ---- scipy.stats' location-scale laws of closed forms ------------------------------------------


def logistic_regression_logcdf(w, X, y):
    z = X @ w
    return -np.sum(scipy.stats.logistic.logcdf(y * z)) + 0.1 * np.sum(scipy.stats.logistic.logpdf(w, 0.0, 2.0))


def laplace_and_logistic_fit(loc, x):
    return -np.sum(scipy.stats.laplace.logpdf(x, loc, 0.7) + scipy.stats.logistic.logsf(x - loc, scale=1.5))


def cauchy_robust_loss(theta, x):
    return -np.sum(cauchy.logpdf(x, loc=theta[0], scale=np.exp(theta[1]))) + np.sum(cauchy.cdf(x, theta[0]))


def expon_survival(rate, t):
    return -np.sum(expon.logpdf(t, scale=1.0 / rate)) - np.sum(expon.logsf(t + 0.5, 0.0, 1.0 / rate)) \
        + np.sum(scipy.stats.laplace.cdf(t, 1.0, rate) + scipy.stats.laplace.sf(t, 0.5))


def poisson_rates(params, k):
    rates, logits = np.exp(params[0]), params[1]
    logw = logits - np.log(np.sum(np.exp(logits)))
    lp = scipy.stats.poisson.logpmf(k[:, None], rates[None, :]) + logw[None, :]
    return -np.sum(np.log(np.sum(np.exp(lp), axis=1))) + np.sum(scipy.stats.poisson.pmf(2.0, rates, loc=1.0))


def _m(r, *shape):
    return r.normal(size=shape)


def _nan_data(r):
    X = r.normal(size=(5, 3))
    X[1, 0] = X[3, 2] = X[4, 0] = np.nan
    return X


MASK = np.array([[False, True, False], [False, False, False], [True, False, False], [False, False, True]])
KEEP = np.array([True, False, True, True])

PROGRAMS = [
    ("closed_polyline_length", closed_polyline_length, lambda r: (_m(r, 5, 2),), 0),
    ("column_steps_from_zero", column_steps_from_zero, lambda r: (_m(r, 3, 4),), 0),
    ("second_differences_padded", second_differences_padded, lambda r: (_m(r, 5, 2),), 0),
    ("last_axis_ring", last_axis_ring, lambda r: (_m(r, 2, 3, 4),), 0),
    ("swap_two_rows", swap_two_rows, lambda r: (_m(r, 3, 2),), 0),
    ("permute_columns", permute_columns, lambda r: (_m(r, 2, 3),), 0),
    ("cycle_three_rows", cycle_three_rows, lambda r: (_m(r, 4, 2),), 0),
    ("nan_fill_with_column_means", nan_fill_with_column_means, lambda r: (_m(r, 3), _nan_data(r)), 0),
    ("nan_row_sums", nan_row_sums, lambda r: (_m(r, 4, 3), MASK), 0),
    ("nan_column_centred", nan_column_centred, lambda r: (_m(r, 4, 3), MASK), 0),
    ("drawdown_of_returns", drawdown_of_returns, lambda r: (0.1 * _m(r, 8),), 0),
    ("drawdown_per_asset", drawdown_per_asset, lambda r: (np.array([0.5, 0.3, 0.2]), 0.05 * _m(r, 10, 3)), 0),
    ("running_minimum_rows", running_minimum_rows, lambda r: (_m(r, 3, 5),), 0),
    ("running_maximum_tensor", running_maximum_tensor, lambda r: (_m(r, 2, 2, 4),), 0),
    ("hermite_beam", hermite_beam, lambda r: (1.0 + 0.3 * np.abs(_m(r, 3)),), 0),
    ("spring_chain_block", spring_chain_block, lambda r: (1.0 + np.abs(_m(r, 4)),), 0),
    ("block_of_three_axes", block_of_three_axes, lambda r: (_m(r, 3, 3, 2),), 0),
    ("masked_block", masked_block, lambda r: (_m(r, 4, 2), KEEP), 0),
    ("indexed_by_names", indexed_by_names, lambda r: (_m(r, 3),), 0),
    ("weights_from_config", weights_from_config, lambda r: (_m(r, 4),), 0),
    ("legendre_quadrature", legendre_quadrature, lambda r: (np.array([0.7, 2.0]),), 0),
    ("hermite_expectation", hermite_expectation, lambda r: (np.array([0.3, -0.5]),), 0),
    ("logistic_regression_logcdf", logistic_regression_logcdf,
     lambda r: (_m(r, 3), _m(r, 6, 3), np.sign(_m(r, 6))), 0),
    ("laplace_and_logistic_fit", laplace_and_logistic_fit, lambda r: (_m(r, 4), _m(r, 4) + 0.3), 0),
    ("cauchy_robust_loss", cauchy_robust_loss, lambda r: (np.array([0.2, -0.3]), _m(r, 5)), 0),
    ("poisson_rates", poisson_rates, lambda r: (0.3 * _m(r, 2, 3), np.array([0, 1, 3, 2, 5])), 0),
    ("expon_survival", expon_survival, lambda r: (1.0 + np.abs(_m(r, 3)), np.abs(_m(r, 3)) + 0.1), 0),
]
