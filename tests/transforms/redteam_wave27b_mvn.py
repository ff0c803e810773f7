"""Wave 27b's second finding: ``scipy.stats.multivariate_normal`` given a covariance that is not
exactly symmetric (test_redteam_wave27b.py).  SciPy reads only its lower triangle (``eigh(cov,
lower=True)``), so the law's matrix is that triangle mirrored; the gradients with respect to the
points and the mean solved with the whole matrix, another one, and disagreed with central
differences silently."""

from __future__ import annotations

import numpy as np
from scipy import stats


def logpdf_rows_wrt_mean(mean, X, cov):
    return -np.sum(stats.multivariate_normal.logpdf(X, mean, cov))


def pdf_point(x, mean, cov):
    return stats.multivariate_normal.pdf(x, mean, cov)


def logpdf_keywords_wrt_mean(x, mean, cov):
    return stats.multivariate_normal.logpdf(x, mean=mean, cov=cov) * 2.0


def logpdf_rows_squared(X, mean, cov):
    return np.sum(stats.multivariate_normal.logpdf(X, mean, cov) ** 2)


def logpdf_cov_built_lopsided(X, a):
    cov = np.array([[2.0, a[0]], [0.1, 1.5]])  # the upper entry is never read by SciPy
    return np.sum(stats.multivariate_normal.logpdf(X, np.zeros(2), cov))


def _lopsided(r, d=3):
    A = r.standard_normal((d, d))
    return A @ A.T + 2.0 * np.eye(d) + 0.3 * r.standard_normal((d, d))


def M(r, *shape):
    return r.standard_normal(shape)


PROGRAMS = [
    ("logpdf_rows_wrt_mean", logpdf_rows_wrt_mean, lambda r: (M(r, 3), M(r, 5, 3), _lopsided(r)), 0),
    ("pdf_point", pdf_point, lambda r: (M(r, 3), M(r, 3), _lopsided(r)), 0),
    ("logpdf_keywords_wrt_mean", logpdf_keywords_wrt_mean, lambda r: (M(r, 3), M(r, 3), _lopsided(r)), 1),
    ("logpdf_rows_squared", logpdf_rows_squared, lambda r: (M(r, 4, 3), M(r, 3), _lopsided(r)), 0),
    ("logpdf_cov_built_lopsided", logpdf_cov_built_lopsided, lambda r: (M(r, 4, 2), np.array([0.4])), 0),
]
