"""The red team's wave 31a: variants of the classes it fixed (test_redteam_wave31a.py runs them).

* COUNTED: unpacking into names (``a, b, c = np.exp(theta)``, a loop's ``for u, v in rows``, a
  comprehension's, enumerate's ``i, (u, v)``, a nested target, a helper's returned tuple): at the right
  length every transformation agrees; at another, Python raises, and so does srcdiff now (it read the
  items one by one and took the first of more, silently);
* SPREAD: ``f(*theta)`` of a parameter, of a slice, of a value computed, after other arguments, of a
  tuple a helper returns: the callee's parameters take the items;
* POSITIONS: np.searchsorted and np.digitize choose an index (no gradient), a piecewise hazard's
  interval, a histogram's bin.
"""

from __future__ import annotations

import math

import numpy as np

ROWS2 = np.array([[0.5, 1.0], [1.5, -0.5], [0.2, 0.3]])
ROWS3 = np.array([[0.5, 1.0, 2.0], [1.5, -0.5, 1.0]])
CUTS = np.array([0.0, 1.0, 2.5])
TIMES = np.array([0.3, 1.2, 2.9, 0.8, 1.7])


# ---- COUNTED ----

def unpack_exp(theta):
    a, b, c = np.exp(theta)
    return a * b + c ** 2


def unpack_loop_rows(w, rows=ROWS2):
    s = 0.0
    for u, v in rows:
        s = s + w[0] * u * v + w[1] ** 2 * u
    return s


def unpack_comprehension(w, rows=ROWS2):
    return sum(w[0] * u + w[1] * v ** 2 for u, v in rows)


def unpack_enumerate(w, rows=ROWS2):
    s = 0.0
    for i, (u, v) in enumerate(rows):
        s = s + w[i % 2] * u * v
    return s


def unpack_nested(theta):
    a, (b, c) = theta[0], theta[1:]
    return a * math.sin(b) + c ** 2


def _pair(z):
    return z[0] * z[1], np.sum(z ** 2)


def unpack_helper(theta):
    p, q = _pair(theta)
    x, y = theta[1:]
    return p * q + x * y


# ---- SPREAD ----

def _rot(yaw, pitch, roll):
    return np.cos(yaw) * np.sin(pitch) + roll ** 2 * np.cos(pitch)


def spread_parameter(angles):
    return _rot(*angles) ** 2


def spread_slice(x):
    return _rot(x[0], *x[1:]) + x[0] ** 2


def spread_computed(t):
    return _rot(*np.tanh(t)) * t[0]


def _state(x):
    return x[0] * 2.0, x[1] + x[2], x[2] ** 2


def spread_helper_tuple(x):
    s = _state(x)
    return _rot(*s)


def spread_twice(x):
    pose = x.reshape(2, 3)
    return _rot(*pose[0]) * _rot(*pose[1])


# ---- POSITIONS ----

def hazard_intervals(log_h, times=TIMES, cuts=CUTS):
    h = np.exp(log_h)
    j = np.searchsorted(cuts, times, side="right") - 1
    widths = np.diff(np.append(cuts, 4.0))
    exposure = np.minimum(np.maximum(times[:, None] - cuts[None, :], 0.0), widths[None, :])
    return np.sum(exposure @ h) - np.sum(log_h[j])


def digitized_bins(w, x=TIMES, edges=CUTS):
    k = np.digitize(x, edges) - 1
    return np.sum(w[k] ** 2 * x) + np.sum(w)


def searchsorted_scalar(w, edges=CUTS):
    i = np.searchsorted(edges, 1.7)
    return w[i] ** 3 + np.sum(np.exp(w))


def _vec(*values):
    return lambda rng: (np.array(values, dtype=float),)


COUNTED = [
    ("counted_exp", unpack_exp, _vec(0.2, -0.3, 0.5), 0),
    ("counted_loop_rows", unpack_loop_rows, _vec(0.7, -0.4), 0),
    ("counted_comprehension", unpack_comprehension, _vec(0.7, -0.4), 0),
    ("counted_enumerate", unpack_enumerate, _vec(0.7, -0.4), 0),
    ("counted_nested", unpack_nested, _vec(0.7, -0.4, 0.9), 0),
    ("counted_helper", unpack_helper, _vec(0.7, -0.4, 0.9), 0),
]
#: each COUNTED row's function at arguments of another length: Python raises ValueError
MISCOUNTED = {"counted_exp": (np.ones(4),), "counted_loop_rows": (np.ones(2), ROWS3),
              "counted_comprehension": (np.ones(2), ROWS3), "counted_enumerate": (np.ones(2), ROWS3),
              "counted_nested": (np.ones(4),), "counted_helper": (np.ones(4),)}
SPREAD = [
    ("spread_parameter", spread_parameter, _vec(0.3, 0.5, 0.7), 0),
    ("spread_slice", spread_slice, _vec(0.3, 0.5, 0.7), 0),
    ("spread_computed", spread_computed, _vec(0.3, 0.5, 0.7), 0),
    ("spread_helper_tuple", spread_helper_tuple, _vec(0.3, 0.5, 0.7), 0),
    ("spread_twice", spread_twice, _vec(0.3, 0.5, 0.7, -0.2, 0.9, 0.4), 0),
]
POSITIONS = [
    ("positions_hazard", hazard_intervals, _vec(-0.5, -0.2, 0.1), 0),
    ("positions_digitize", digitized_bins, _vec(0.5, -0.2, 0.8), 0),
    ("positions_scalar", searchsorted_scalar, _vec(0.5, -0.2, 0.8), 0),
]


def with_default(a, b, c=1.0):
    """A callee whose last parameter has a default (``f(*x)`` of it stays refused: the count is not fixed)."""
    return a * b + c


# ---- KEYED: a dict keyed by pairs passed as an argument (a default) ----

PAIR_RATES = {(0, 1): 1.0, (1, 2): 1.2, (0, 2): 1.5}


def pair_rates_read(x, rates=PAIR_RATES):
    pts = x.reshape(3, 2)
    return rates[(0, 1)] * np.sum((pts[0] - pts[1]) ** 2) + rates[(1, 2)] * np.sum((pts[1] - pts[2]) ** 2)


KEYED = [
    ("keyed_pairs_read", pair_rates_read, _vec(0.0, 0.1, 1.0, 0.2, 0.4, 1.1), 0),
]
