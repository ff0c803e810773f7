"""Wave 33i: squared distances clipped at 0 against round-off, whose diagonal sits on the tie for every
parameter value: Gaussian-process kernels (RBF, ARD, Matern) by the expansion ``|a|^2 + |b|^2 - 2 a.b``
of one matrix with itself, written with ``np.maximum(d2, 0.0)``, ``np.maximum(0.0, d2)`` or
``np.clip(d2, 0.0, None)``, ``**2`` or ``z * z``, ``@`` or ``np.dot``, the terms in any order; by
broadcasting (``z[:, None, :] - z[None, :, :]``); ``np.sqrt(np.maximum(d2, 1e-12))`` (no tie); a hinge
of a gap that is 0 for every parameter."""

from __future__ import annotations

import numpy as np

from .wave33g_stats import gp_ard

RNG = np.random.default_rng(33)
X = RNG.normal(size=(6, 2))
Y = X[:, 0] - 0.5 * X[:, 1] ** 2


def rbf_maximum(theta):
    z = X / np.exp(theta[:2])
    sq = np.sum(z ** 2, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2 * z @ z.T
    return np.sum(np.exp(-0.5 * np.maximum(d2, 0.0)) * np.outer(Y, Y))


def rbf_clip_dot(theta):
    z = X * np.exp(-theta[:2])
    sq = np.sum(z * z, axis=-1)
    d2 = -2.0 * np.dot(z, z.T) + sq[:, None] + sq[None, :]
    return np.sum(np.exp(-0.5 * np.clip(d2, 0.0, None)) * np.outer(Y, Y))


def matern32(theta):
    z = X / np.exp(theta[:2])
    sq = np.sum(z ** 2, axis=1)
    d2 = sq[:, None] - 2.0 * (z @ z.T) + sq[None, :]
    r = np.sqrt(3.0 * np.maximum(0.0, d2) + 1e-12)
    k = np.exp(theta[2]) * (1.0 + r) * np.exp(-r) + 0.1 * np.eye(len(X))
    return 0.5 * Y @ np.linalg.solve(k, Y) + 0.5 * np.linalg.slogdet(k)[1]


def rbf_nll_cholesky(theta):
    z = X / np.exp(theta[:2])
    sq = np.square(z).sum(axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * z @ z.T
    k = np.exp(theta[2]) * np.exp(-0.5 * np.maximum(d2, 0.0)) + 0.05 * np.eye(len(X))
    low = np.linalg.cholesky(k)
    a = np.linalg.solve(low, Y)
    return 0.5 * a @ a + np.sum(np.log(np.diag(low)))


def pairwise_broadcast(theta):
    z = X / np.exp(theta[:2])
    d2 = np.sum((z[:, None, :] - z[None, :, :]) ** 2, axis=-1)
    return np.sum(np.exp(-np.maximum(d2, 0.0)) * np.outer(Y, Y))


def matern52_sqrt_eps(theta):
    z = X * np.exp(-theta[:2])
    sq = (z * z).sum(axis=1)
    r = np.sqrt(5.0 * np.maximum(sq[:, None] + sq[None, :] - 2.0 * z @ z.T, 1e-12))
    k = (1.0 + r + r * r / 3.0) * np.exp(-r)
    return np.sum(k * np.outer(Y, Y))


def consistency_hinge(w):
    """A penalty between two computations of one prediction: the gap is 0 for every w."""
    pred = np.tanh(X @ w)
    again = np.tanh(X @ w)
    return np.sum(np.maximum(pred - again, 0.0) ** 2 + np.maximum(0.0, again - pred)) + np.sum(w ** 4)


THETA = np.array([0.1, -0.2, 0.3])

PROGRAMS = [
    ("rbf_maximum", rbf_maximum, lambda r: (THETA[:2].copy(),), 0),
    ("rbf_clip_dot", rbf_clip_dot, lambda r: (THETA[:2].copy(),), 0),
    ("matern32", matern32, lambda r: (THETA.copy(),), 0),
    ("rbf_nll_cholesky", rbf_nll_cholesky, lambda r: (THETA.copy(),), 0),
    ("pairwise_broadcast", pairwise_broadcast, lambda r: (THETA[:2].copy(),), 0),
    ("matern52_sqrt_eps", matern52_sqrt_eps, lambda r: (THETA[:2].copy(),), 0),
    ("consistency_hinge", consistency_hinge, lambda r: (np.array([0.4, -0.3]),), 0),
    ("gp_ard", gp_ard, lambda r: (np.array([0.1, -0.2, 0.3, -1.0]),), 0),
]
