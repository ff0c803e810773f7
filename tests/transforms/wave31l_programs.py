"""Programs of test_speed_wave31l.py: Gaussian likelihoods through a Cholesky factor (the terms of the
factor's adjoint that depend on it through its matrix alone, backend/optimize/cholesky_pairs.py; the
solves of a seed written k * b, backend/optimize/repeated_solves.py), and gated cells whose adjoint
is assembled from slices (backend/optimize/slice_joins.py)."""

import numpy as np
import scipy.linalg as sl


def cho_pair(mu, A, X):
    """cho_factor / cho_solve and the log determinant from the factor's diagonal (wrt A)."""
    S = A @ A.T + np.eye(A.shape[0])
    c, low = sl.cho_factor(S, lower=True)
    R = X - mu
    quad = np.sum(R * sl.cho_solve((c, low), R.T).T)
    return 0.5 * quad + X.shape[0] * np.sum(np.log(np.diag(c)))


def tri_squares(A, X):
    """One triangular solve, three times its sum of squares, the log determinant (wrt A)."""
    L = np.linalg.cholesky(A @ A.T + 0.5 * np.eye(A.shape[0]))
    Z = sl.solve_triangular(L, X.T, lower=True)
    return 3.0 * np.sum(Z * Z) + np.sum(np.log(np.diag(L)))


def tri_vector(A, b):
    """A vector right-hand side, the pair spelled out with trans='T' (wrt A)."""
    L = np.linalg.cholesky(A @ A.T + np.eye(A.shape[0]))
    x = sl.solve_triangular(L, sl.solve_triangular(L, b, lower=True), lower=True, trans="T")
    return b @ x + 2.0 * np.log(np.diag(L)).sum()


def cho_other_seed(A, X, Y):
    """The solve's seed is not its right-hand side (Y against S^-1 X^T): no scale to find (wrt A)."""
    L = np.linalg.cholesky(A @ A.T + np.eye(A.shape[0]))
    V = sl.cho_solve((L, True), X.T)
    return np.sum(Y * V.T) + np.sum(np.log(np.diag(L)))


def cho_factor_read(A, X):
    """The factor read besides its solves (its entries summed): the fold leaves the rest to the
    factor's adjoint (wrt A)."""
    L = np.linalg.cholesky(A @ A.T + np.eye(A.shape[0]))
    V = sl.cho_solve((L, True), X.T)
    return 0.5 * np.sum(X * V.T) + np.sum(np.sin(L))


def cho_slogdet(mu, A, X):
    """cho_solve of the residuals' rows and np.linalg.slogdet of the covariance (wrt A)."""
    S = A @ A.T + np.eye(A.shape[0])
    factor = sl.cho_factor(S, lower=True)
    R = X - mu[None, :]
    sign, logdet = np.linalg.slogdet(S)
    return 0.5 * np.einsum("ij,ji->", R, sl.cho_solve(factor, R.T)) + 0.5 * X.shape[0] * logdet


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def gated_slices(W, U, xs):
    """A gated cell reading one matmul's columns by two slices: its adjoint is written slice by slice
    into zeros each step (wrt W)."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    out = 0.0
    for t in range(xs.shape[0]):
        a = xs[t] @ W
        z = _sigmoid(a[:, :n] + h @ U[:, :n])
        h = z * h + (1.0 - z) * np.tanh(a[:, n:] + h @ U[:, n:])
        out = out + np.sum(h * h)
    return out


def three_slices(W, x):
    """Three column slices of one product, the middle one's bounds computed (wrt W)."""
    a = x @ W
    n = W.shape[1] // 3
    return np.sum(np.sin(a[:, :n]) * a[:, n:2 * n]) + np.sum(np.exp(a[:, 2 * n:]))


def written_gates(W, U, xs):
    """Pre-activations written into a preallocated array, gate by gate (wrt U)."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    out = 0.0
    for t in range(xs.shape[0]):
        pre = np.zeros((xs.shape[1], 2 * n))
        pre[:, :n] = xs[t] @ W[:, :n] + h @ U[:, :n]
        pre[:, n:] = xs[t] @ W[:, n:] + h @ U[:, n:]
        f = _sigmoid(pre[:, :n])
        h = f * h + (1.0 - f) * np.maximum(pre[:, n:], 0.0)
        out = out + np.sum(h ** 2)
    return out


def _cell(T=3, B=2, n_in=3, n=2):
    def make(rng):
        return (rng.standard_normal((n_in, 2 * n)), rng.standard_normal((n, 2 * n)),
                rng.standard_normal((T, B, n_in)))
    return make


def _gaussian(n=7, d=3, vector=False):
    def make(rng):
        A = rng.standard_normal((d, d)) / np.sqrt(d)
        X = rng.standard_normal((n, d))
        return (0.1 * rng.standard_normal(d), A, X)
    return make


PROGRAMS = [
    ("cho_pair", cho_pair, _gaussian(), 1),
    ("tri_squares", tri_squares, lambda rng: _gaussian()(rng)[1:], 0),
    ("tri_vector", tri_vector, lambda rng: (_gaussian()(rng)[1], rng.standard_normal(3)), 0),
    ("cho_other_seed", cho_other_seed, lambda rng: _gaussian()(rng)[1:] + (rng.standard_normal((7, 3)),), 0),
    ("cho_factor_read", cho_factor_read, lambda rng: _gaussian()(rng)[1:], 0),
    ("cho_slogdet", cho_slogdet, _gaussian(), 1),
    ("gated_slices", gated_slices, _cell(), 0),
    ("three_slices", three_slices, lambda rng: (rng.standard_normal((3, 6)), rng.standard_normal((4, 3))), 0),
    ("written_gates", written_gates, _cell(), 1),
]
