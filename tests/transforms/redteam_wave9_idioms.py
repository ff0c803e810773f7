"""The red team's ninth wave, last part: NumPy idioms users reach for (a parameter centred in place,
``.astype`` inside the function, boolean-mask reductions, a reversed cumsum, ``np.gradient``, builtin
``sorted``/``min``/``sum`` over arrays, ``np.average`` with weights, ``np.einsum`` traces,
``scipy.special.log_softmax``, ``.item()``, ``np.kron``, ``np.trapezoid``).  See redteam_wave9.py."""

from __future__ import annotations

import numpy as np
import scipy.special


def centred_in_place(x, w):
    x = x.copy()
    x -= x.mean()
    x /= np.sqrt(np.mean(x ** 2) + 1e-3)
    return np.sum(w * x ** 3)


def mutates_its_argument(x, w):
    x -= x.mean()  # the caller's array changes: what the backward sweep reads must not
    return np.sum(w * np.tanh(x))


def astype_inside(x, w):
    h = np.tanh(x.astype(np.float32) * w.astype(np.float32))
    return float(np.sum(h.astype(np.float64) ** 2))


def boolean_mask_reduction(x, y):
    keep = y > 0
    return np.sum(x[keep] ** 2) + np.mean(np.exp(x[~keep]))


def reversed_cumsum(r, gamma=0.9):
    disc = gamma ** np.arange(r.size)
    returns = (r * disc)[::-1].cumsum()[::-1] / disc
    return np.sum(returns ** 2)


def numpy_gradient_energy(u, dx=0.1):
    du = np.gradient(u, dx)
    return 0.5 * np.sum(du ** 2) * dx + np.sum(u ** 4)


def builtin_sorted_min_sum(x):
    s = sorted(x)
    return s[0] * 2.0 + s[-1] ** 2 + min(x) + sum(np.sin(x))


def weighted_average(x, w):
    return np.average(np.tanh(x), weights=w) + np.average(x ** 2, axis=0, weights=w).sum() * 0


def einsum_trace_quadratic(A):
    return np.einsum("ii->", A @ A.T) + np.einsum("i,ij,j->", A[0], A, A[:, 1])


def log_softmax_nll(W, X, labels):
    logp = scipy.special.log_softmax(X @ W, axis=1)
    return -np.mean(logp[np.arange(len(labels)), labels])


def item_scalars(w):
    a = (w @ w).item()
    return a * np.sum(np.cos(w)) + w[0].item() ** 2


def kron_structured(a, B):
    K = np.kron(np.diag(a), B)
    return np.sum(np.tanh(K) ** 2) + np.linalg.slogdet(K + 3 * np.eye(K.shape[0]))[1]


def trapezoid_energy(f_vals, t=np.linspace(0.0, 1.0, 7)):  # noqa: B008  read, never written
    return np.trapezoid(f_vals ** 2 * np.exp(-t), t)


def M(rng, *shape):
    return rng.normal(size=shape)


IDIOMS9 = [
    ("w9_centred_in_place", centred_in_place, lambda r: (M(r, 5), M(r, 5)), 0),
    ("w9_mutates_its_argument", mutates_its_argument, lambda r: (M(r, 5), M(r, 5)), 0),
    ("w9_astype_inside", astype_inside, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w9_boolean_mask_reduction", boolean_mask_reduction, lambda r: (M(r, 6), np.array([1.0, -1, 2, -3, 1, 1])), 0),
    ("w9_reversed_cumsum", reversed_cumsum, lambda r: (M(r, 5),), 0),
    ("w9_numpy_gradient_energy", numpy_gradient_energy, lambda r: (M(r, 7),), 0),
    ("w9_builtin_sorted_min_sum", builtin_sorted_min_sum, lambda r: (np.array([0.3, -1.2, 0.8, 2.0]),), 0),
    ("w9_weighted_average", weighted_average, lambda r: (M(r, 5), 0.2 + np.arange(5.0)), 0),
    ("w9_weighted_average_weights", weighted_average, lambda r: (M(r, 5), 0.2 + np.arange(5.0)), 1),
    ("w9_einsum_trace_quadratic", einsum_trace_quadratic, lambda r: (M(r, 3, 3),), 0),
    ("w9_log_softmax_nll", log_softmax_nll, lambda r: (M(r, 3, 4), M(r, 5, 3), np.array([0, 3, 1, 2, 2])), 0),
    ("w9_item_scalars", item_scalars, lambda r: (M(r, 3),), 0),
    ("w9_kron_structured", kron_structured, lambda r: (0.5 + np.arange(2.0), 0.3 * M(r, 2, 2)), 0),
    ("w9_trapezoid_energy", trapezoid_energy, lambda r: (M(r, 7),), 0),
]
