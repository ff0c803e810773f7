"""Spellings this session's red team and its variants found refused or wrong; each row is run
through every transformation by test_spellings16.py.

(1) ``scipy.linalg.cho_factor``/``cho_solve`` imported by name alone, the pair kept whole with its
factor's diagonal read (``np.diag(c[0])``, a Gaussian process's log-determinant).

`REFUSED`: library functions srcdiff has no rule for and cannot read, called by name alone; each
transformation refuses them at the user's line (they named a line of SciPy).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from . import spellings16_bare as bare

# ---- 1. cho_factor by name, its factor's diagonal -----------------------------------------------------


def gp_nll_module(log_ell, X, y):
    K = np.exp(-0.5 * (X[:, None] - X[None, :]) ** 2 / np.exp(2.0 * log_ell)) + 0.1 * np.eye(len(X))
    c = scipy.linalg.cho_factor(K, lower=True)
    return 0.5 * y @ scipy.linalg.cho_solve(c, y) + np.sum(np.log(np.diagonal(c[0])))


def _gp_args(r):
    return (0.3, r.normal(size=5), r.normal(size=5))


PROGRAMS = [
    ("gp_nll_bare", bare.gp_nll_bare, _gp_args, 0),
    ("gp_nll_bare_y", bare.gp_nll_bare, _gp_args, 2),
    ("gp_nll_lower_pair", bare.gp_nll_lower_pair, _gp_args, 0),
    ("gp_nll_module", gp_nll_module, _gp_args, 0),
    ("mahalanobis_bare", bare.mahalanobis_bare,
     lambda r: (r.normal(size=3), r.normal(size=(3, 3)), r.normal(size=3)), 1),
]

REFUSED = [
    ("schur_trace_bare", bare.schur_trace_bare, lambda r: (r.normal(size=(3, 3)),), 0),
    ("polar_factor_bare", bare.polar_factor_bare, lambda r: (r.normal(size=(3, 3)),), 0),
    ("rq_bare", bare.rq_bare, lambda r: (r.normal(size=(3, 3)),), 0),
]
