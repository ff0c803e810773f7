"""A sigmoid written out, ``1.0 / (1.0 + np.exp(-z))``, at saturation (``z`` of ``-np.inf``, or below
-709 in float64, -88 in float32), where its derivative is 0 (test_redteam_wave28b.py): the adjoint's
``s / d * e`` and the tangent's ``-(d_dot * s / d)`` are ``0 * inf`` and ``inf / inf`` unless written
``s * (1.0 - s)``; the adjoint split over two statements (a helper called, named intermediates, an
index gathering the argument), vjp's pullback, forward mode's tangents.

Ordinal regression with thresholds padded by ``-np.inf`` and ``np.inf`` is how statisticians write
it; a logit of -800 is a confident wrong prediction."""

from __future__ import annotations

import numpy as np

CUT = np.array([-np.inf, -0.5, 0.5, np.inf])


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def ordinal_thresholds_padded(w, x, k):
    eta = x @ w
    return -np.sum(np.log(sigmoid(CUT[k + 1] - eta) - sigmoid(CUT[k] - eta)))


def helper_at_minus_inf(eta):
    return np.sum(np.log(sigmoid(CUT - eta) + 1.0))


def helper_twice(eta):
    up = sigmoid(CUT[1:] - eta)
    lo = sigmoid(CUT[:-1] - eta)
    return np.sum(up * up - lo)


def named_intermediates(z):
    e = np.exp(-z)
    d = 1.0 + e
    s = 1.0 / d
    return np.sum(np.log1p(s) * 2.0)


def saturated_logits(w, X, y):
    p = sigmoid(X @ w)
    return np.sum((p - y) ** 2)


def gathered_once(eta, k):
    return np.sum(sigmoid(CUT[k] - eta) ** 2)


def gathered_logistic_nll(w, X, k, y):
    p = sigmoid(CUT[k] - X @ w)
    return -np.sum(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))


def probit_like_logistic_cdf(params, x, k):
    mu, log_s = params[0], params[1]
    z_hi = (CUT[k + 1] - mu) / np.exp(log_s)
    z_lo = (CUT[k] - mu) / np.exp(log_s)
    return -np.sum(np.log(sigmoid(z_hi) - sigmoid(z_lo)))


def _ord(r):
    return 0.5 * r.standard_normal(3), r.standard_normal((6, 3)), np.array([0, 1, 2, 2, 1, 0])


def _big(r):
    X = r.standard_normal((5, 2))
    X[0] = [400.0, 500.0]  # its logit is about -800 at w below
    return np.array([-0.9, -0.9]), X, r.random(5)


PROGRAMS = [
    ("ordinal_thresholds_padded", ordinal_thresholds_padded, _ord, 0),
    ("helper_at_minus_inf", helper_at_minus_inf, lambda r: (np.array([0.3, -0.2, 0.1, 0.4]),), 0),
    ("helper_twice", helper_twice, lambda r: (np.array([0.3, -0.2, 0.1]),), 0),
    ("named_intermediates", named_intermediates, lambda r: (np.array([-800.0, 0.3, -1e308, 2.0]),), 0),
    ("saturated_logits", saturated_logits, _big, 0),
    ("gathered_once", gathered_once, lambda r: (np.array([0.3, -0.2, 0.1]), np.array([0, 1, 3])), 0),
    ("gathered_logistic_nll", gathered_logistic_nll,
     lambda r: (0.5 * r.standard_normal(2), r.standard_normal((4, 2)), np.arange(4), np.ones(4) - np.arange(4) % 2), 0),
    ("probit_like_logistic_cdf", probit_like_logistic_cdf,
     lambda r: (np.array([0.1, -0.3]), None, np.array([0, 1, 2, 2, 0])), 0),
]
