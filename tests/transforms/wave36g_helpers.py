"""Wave 36g: a helper updating an array in place that a list it returns from still holds (``acc += v;
history.append(acc)``: NumPy changes every item), called by another function whose own temporaries have
the helper's generated names (test_wave36g.py: refused at the helper's line, never a silent wrong
gradient), and a helper whose update's sharers are numbers (accepted, as before)."""

from __future__ import annotations

import numpy as np


def history(w, X):
    acc, rows = np.zeros(3), []
    for i in range(X.shape[0]):
        acc += X[i] * w
        rows.append(acc)
    return np.sum(np.stack(rows) ** 2)


def history_scaled(w, X):
    return np.sum(history(w, X) * 1.0)


def history_weighted(w, X, c=1.5):
    return np.sum(history(w, X) * c) + np.sum(w ** 2)


def history_rows(w, X):
    acc, rows = np.zeros(3), []
    for i in range(X.shape[0]):
        acc += np.tanh(X[i] * w)
        rows.append(acc)
    return np.stack(rows)[:, 0]


def running(x):
    s = x[0]
    first = s
    for v in x[1:]:
        s += v * v
    return s * first


def running_scaled(x):
    return np.sum(running(x) * 1.0) + np.sum(x)


REFUSED = [
    ("history_scaled", history_scaled, lambda r: (r.normal(size=3), r.normal(size=(4, 3))), 0),
    ("history_weighted", history_weighted, lambda r: (r.normal(size=3), r.normal(size=(4, 3))), 0),
]

ACCEPTED = [
    ("history_rows", history_rows, lambda r: (r.normal(size=3), r.normal(size=(4, 3))), 0),
    ("running_scaled", running_scaled, lambda r: (r.normal(size=5),), 0),
]
