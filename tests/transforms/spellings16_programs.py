"""Spellings this session's red team and its variants found refused or wrong; each row is run
through every transformation by test_spellings16.py.

(1) ``scipy.linalg.cho_factor``/``cho_solve`` imported by name alone, the pair kept whole with its
factor's diagonal read (``np.diag(c[0])``, a Gaussian process's log-determinant).
(2) ``try: return <value>`` / ``except E: return <other>``, in a helper or the function itself, in a
loop too (the red team's wave 15: refused, "its body leaves early").
(3) A value whose adjoint starts as a sum's (or a mean's) fill, then an item of it read on one
side of a branch (``np.sum(a) + (a[-2] if a[2] < s else 1.0)``): the fill was a number, and the
write into it by index crashed (the fuzzer's).

`REFUSED`: library functions srcdiff has no rule for and cannot read, called by name alone; each
transformation refuses them at the user's line (they named a line of SciPy).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg

from . import redteam_wave15_everyday as everyday15
from . import spellings16_bare as bare

# ---- 1. cho_factor by name, its factor's diagonal -----------------------------------------------------


def gp_nll_module(log_ell, X, y):
    K = np.exp(-0.5 * (X[:, None] - X[None, :]) ** 2 / np.exp(2.0 * log_ell)) + 0.1 * np.eye(len(X))
    c = scipy.linalg.cho_factor(K, lower=True)
    return 0.5 * y @ scipy.linalg.cho_solve(c, y) + np.sum(np.log(np.diagonal(c[0])))


# ---- 2. a try whose body returns -----------------------------------------------------------------------


def _safe_ratio(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        return 0.0


def ratios_with_a_zero_weight(x, w):  # the handler's path taken where w[i] == 0.0
    total = 0.0
    for i in range(len(x)):
        total += _safe_ratio(float(x[i]) ** 2, float(w[i]))
    return total


def _safe_log(v):
    try:
        return math.log(v)
    except ValueError:
        return -10.0


def log_terms(x):
    return sum(_safe_log(float(v)) * float(v) for v in x)


def solve_or_least_squares(A, b):
    try:
        return np.sum(np.linalg.solve(A, b) ** 2)
    except np.linalg.LinAlgError:
        return np.sum(np.linalg.lstsq(A, b, rcond=None)[0] ** 2)


def first_real_root(x):
    for i in range(len(x)):
        try:
            return math.sqrt(float(x[i])) * float(x[-1])
        except ValueError:
            continue
    return 0.0


# ---- 3. a sum's fill, then an item read in a branch ---------------------------------------------------


def sum_and_an_item_in_a_branch(x, s):
    a = np.exp(x)
    return (a[-2] if not a[2] >= s else 1.0) + np.sum(a)


def mean_and_items_in_a_loop(x, s):
    a = np.tanh(x)
    total = np.mean(a)
    for i in range(len(x)):
        if a[i] > s:
            total = total + a[i] ** 2
    return total


def sum_and_a_written_row(W, s):
    h = np.sin(W)
    out = np.sum(h)
    if s > 0.0:
        out = out + np.sum(h[0] * h[1])
    return out


def _gp_args(r):
    return (0.3, r.normal(size=5), r.normal(size=5))


PROGRAMS = [
    ("gp_nll_bare", bare.gp_nll_bare, _gp_args, 0),
    ("gp_nll_bare_y", bare.gp_nll_bare, _gp_args, 2),
    ("gp_nll_lower_pair", bare.gp_nll_lower_pair, _gp_args, 0),
    ("gp_nll_module", gp_nll_module, _gp_args, 0),
    ("w15_try_except_helper", everyday15.try_except_helper, lambda r: (r.normal(size=4),), 0),
    ("ratios_with_a_zero_weight", ratios_with_a_zero_weight,
     lambda r: (r.normal(size=4), np.array([0.5, 0.0, -1.5, 2.0])), 0),
    ("log_terms", log_terms, lambda r: (np.array([0.5, -0.3, 1.7]),), 0),
    ("solve_or_least_squares", solve_or_least_squares, lambda r: (r.normal(size=(3, 3)) + 2 * np.eye(3),
                                                                  r.normal(size=3)), 0),
    ("solve_or_least_squares_singular", solve_or_least_squares,
     lambda r: (np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.5, 0.1, 1.0]]), r.normal(size=3)), 1),
    ("first_real_root", first_real_root, lambda r: (np.array([-0.5, 0.8, 1.3]),), 0),
    ("sum_and_an_item_in_a_branch", sum_and_an_item_in_a_branch, lambda r: (r.normal(size=3), 100.0), 0),
    ("sum_and_an_item_not_taken", sum_and_an_item_in_a_branch, lambda r: (r.normal(size=3), -100.0), 0),
    ("mean_and_items_in_a_loop", mean_and_items_in_a_loop, lambda r: (np.array([0.4, -0.3, 1.1, 0.05]), 0.1), 0),
    ("sum_and_a_written_row", sum_and_a_written_row, lambda r: (r.normal(size=(3, 2)), 1.0), 0),
    ("mahalanobis_bare", bare.mahalanobis_bare,
     lambda r: (r.normal(size=3), r.normal(size=(3, 3)), r.normal(size=3)), 1),
]

REFUSED = [
    ("schur_trace_bare", bare.schur_trace_bare, lambda r: (r.normal(size=(3, 3)),), 0),
    ("polar_factor_bare", bare.polar_factor_bare, lambda r: (r.normal(size=(3, 3)),), 0),
    ("rq_bare", bare.rq_bare, lambda r: (r.normal(size=(3, 3)),), 0),
]
