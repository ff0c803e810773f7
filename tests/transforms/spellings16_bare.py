"""Programs of spellings16_programs.py that import SciPy's functions by name alone (their module
holds no name for ``scipy.linalg``)."""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_factor, cho_solve, polar, rq, schur


def gp_nll_bare(log_ell, X, y):  # the red team's: the pair kept whole, its factor's diagonal read
    K = np.exp(-0.5 * (X[:, None] - X[None, :]) ** 2 / np.exp(2.0 * log_ell)) + 0.1 * np.eye(len(X))
    c = cho_factor(K)
    alpha = cho_solve(c, y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(c[0])))


def gp_nll_lower_pair(log_ell, X, y):
    K = np.exp(-0.5 * (X[:, None] - X[None, :]) ** 2 / np.exp(2.0 * log_ell)) + 0.2 * np.eye(len(X))
    L, low = cho_factor(K, lower=True)
    alpha = cho_solve((L, low), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diagonal(L)))


def mahalanobis_bare(mu, S, x):
    P = S @ S.T + np.eye(len(mu))
    f = cho_factor(P, lower=True)
    d = x - mu
    return d @ cho_solve(f, d)


# ---- functions srcdiff has no rule for and cannot read (SciPy's batching decorator): refused ---------


def schur_trace_bare(A):
    T, Z = schur(A)
    return np.sum(np.diag(T))


def polar_factor_bare(A):
    u, p = polar(A)
    return np.sum(p ** 2)


def rq_bare(A):
    r, q = rq(A)
    return np.sum(r ** 2)
