"""The red team's wave 30a: a helper's value assigned only in a branch of its loop, under jit="numba"
(test_redteam_wave30a.py).  The helper's forward function presets it to None (so its loop's stack
holds it on every path); its pullback, a function apart, read it in NumPy calls (``np.shape``,
``np.equal``) numba has no version of for an optional: a crash of the gradient's code, reported at
the user's line.  A Cox partial likelihood called by a penalised one hit it."""

from __future__ import annotations

import numpy as np

from .redteam_wave29a_robotics import M, P

TIMES = np.array([2.0, 3.0, 5.0, 7.0, 8.0])
EVENTS = np.array([1, 0, 1, 1, 0])


def _partial_nll(b, times=TIMES, events=EVENTS):
    nll = 0.0
    for i in range(len(times)):
        if events[i] == 1:
            at_risk = times >= times[i]
            nll -= b[0] * times[i] - np.log(np.sum(np.exp(b[0] * times) * at_risk))
    return nll


def penalised_partial(b):
    return _partial_nll(b) + 0.1 * b @ b


def _clipped_steps(x, keep=np.array([1, 0, 1, 1])):  # noqa: B008
    total = 0.0
    for k in range(len(x)):
        if keep[k] == 1:
            step = np.exp(-x[k] * TIMES)
            total = total + np.mean(step * TIMES)
    return total


def positive_parts(x):
    return _clipped_steps(x) + _clipped_steps(0.5 * x)


def _norm_of_rows(X, chosen=(1, 0, 1)):
    acc = 0.0
    for r in range(X.shape[0]):
        if chosen[r] == 1:
            row = X[r] * 2.0
            acc = acc + np.sqrt(np.mean(row ** 2) + 1.0)
    return acc


def even_row_norms(x):
    return _norm_of_rows(x.reshape(3, 2)) ** 2


def _masked_mean(x, mask=EVENTS):
    s, n = 0.0, 0
    for i in range(len(mask)):
        if mask[i] != 0:
            w = np.tanh(x * TIMES[i])
            s = s + np.mean(w)
            n += 1
    return s / n


def twice_masked(x):
    return _masked_mean(x) * _masked_mean(2.0 * x)


HELPERS = [
    ("penalised_partial", penalised_partial, lambda r: (0.1 * P(r, 2),), 0),
    ("positive_parts", positive_parts, lambda r: (M(r, 4),), 0),
    ("even_row_norms", even_row_norms, lambda r: (M(r, 6),), 0),
    ("twice_masked", twice_masked, lambda r: (0.3 * M(r, 3),), 0),
]
