"""Wave 33b: programs whose derivative is finite at a special point where a zero adjoint meets an
infinite local slope (test_wave33b.py runs them through every transformation).

LOG_SUMS: a logsumexp written by hand over a column or row that is all log 0 (-inf), SciPy's shift of a
non-finite max written out: ``np.log(np.sum(np.exp(a - m)))`` is log 0 there, np.log's adjoint ``g / x``
is 0 / 0, and what reads the -inf next (an exponential) gives it the adjoint 0.  The derivative of the
masked entries is 0, of the others finite.

KINKS: Hessians at a kink or a tie of one element (a hinge at its corner, relu at 0, an L1 term at 0,
np.clip at its bound, builtin max in a loop): the Hessian has no entry where the gradient jumps, and the
exact one everywhere else (rows and columns of the other elements), which the kink's NaN must not reach.
"""

from __future__ import annotations

import numpy as np

NEG = -np.inf
#: column 1 all masked (log 0): its logsumexp is -inf
COLUMNS = np.array([[True, False], [True, False], [False, False]])
ROWS = COLUMNS.T.copy()


def lse_columns_where(x, keep=COLUMNS):
    """m + log(sum(exp(a - m))) down columns, a non-finite max replaced by 0 with np.where."""
    a = np.where(keep, x, NEG)
    m = np.max(a, axis=0)
    m = np.where(np.isfinite(m), m, 0.0)
    r = m + np.log(np.sum(np.exp(a - m), axis=0))
    return np.logaddexp(r[0], r[1]) + 0.1 * np.sum(x * x)


def lse_rows_keepdims(x, keep=ROWS):
    """Along rows with keepdims, read back through an exponential."""
    a = np.where(keep, x, NEG)
    m = np.max(a, axis=1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    r = m + np.log(np.sum(np.exp(a - m), axis=1, keepdims=True))
    return np.sum(np.exp(r)) + np.sum(np.sin(x))


def lse_method_sum(x, keep=COLUMNS):
    """The sum as a method, the max guarded by multiplication with a finite mask."""
    a = np.where(keep, x, NEG)
    m = a.max(axis=0)
    m = np.where(m > NEG, m, 0.0)
    r = m + np.log(np.exp(a - m).sum(axis=0))
    return np.sum(np.exp(2.0 * r)) + np.sum(x ** 3) * 0.05


def lse_mean(x, keep=COLUMNS):
    """A log-mean-exp (an average of likelihoods), the max shift guarded."""
    a = np.where(keep, x, NEG)
    m = np.max(a, axis=0)
    m = np.where(np.isfinite(m), m, 0.0)
    r = m + np.log(np.mean(np.exp(a - m), axis=0))
    return np.logaddexp(r[1], r[0]) * 2.0 + np.sum(x) * 0.3


def logaddexp_by_hand(x, keep=np.array([True, False, True])):  # noqa: B008
    """log(exp(a) + exp(b)) of two log 0 entries (b is -inf where a is)."""
    a = np.where(keep, x, NEG)
    b = np.where(keep, 0.5 * x, NEG)
    r = np.log(np.exp(a) + np.exp(b))
    return np.sum(np.exp(r)) + np.sum(x * x) * 0.2


def lse_log2(x, keep=COLUMNS):
    """In base 2: log2 of a sum of exp2."""
    a = np.where(keep, x, NEG)
    m = np.max(a, axis=0)
    m = np.where(np.isfinite(m), m, 0.0)
    r = m + np.log2(np.sum(np.exp2(a - m), axis=0))
    return np.sum(np.exp2(r)) + np.sum(np.cos(x))


LOG_TRANS = np.full((3, 3), NEG)
LOG_TRANS[[0, 0, 1, 1, 2], [0, 1, 1, 2, 2]] = np.log([0.6, 0.4, 0.7, 0.3, 1.0])


def hmm_keepdims(emissions, log_trans=LOG_TRANS):
    """An HMM forward pass over a left-to-right chain, the logsumexp by hand with keepdims."""
    alpha = np.array([0.0, NEG, NEG]) + emissions[0]
    for t in range(1, emissions.shape[0]):
        v = alpha[:, None] + log_trans
        m = np.max(v, axis=0, keepdims=True)
        m = np.where(np.isfinite(m), m, 0.0)
        alpha = (m + np.log(np.sum(np.exp(v - m), axis=0, keepdims=True)))[0] + emissions[t]
    top = np.max(alpha)
    return top + np.log(np.sum(np.exp(alpha - top)))


def _a(shape, scale=0.7):
    return lambda rng: (scale * rng.normal(size=shape),)


LOG_SUMS = [
    ("lse_columns_where", lse_columns_where, _a((3, 2)), 0),
    ("lse_rows_keepdims", lse_rows_keepdims, _a((2, 3)), 0),
    ("lse_method_sum", lse_method_sum, _a((3, 2)), 0),
    ("lse_mean", lse_mean, _a((3, 2)), 0),
    ("logaddexp_by_hand", logaddexp_by_hand, _a((3,)), 0),
    ("lse_log2", lse_log2, _a((3, 2)), 0),
    ("hmm_keepdims", hmm_keepdims, _a((4, 3)), 0),
]


# ---- Hessians at a kink or a tie of one element ----

def hinge_and_cubes(r):
    """A hinge of |r| - 0.5 at its corner (r[0] = 0.5) beside cubes of the others."""
    return np.sum(0.5 * np.maximum(np.abs(r) - 0.5, 0.0)) + np.sum(np.abs(r[1:]) ** 3)


W3 = np.array([1.5, -0.5, 2.0])


def relu_weighted(x, w=W3):
    """relu at 0 (a tie of np.maximum) in element 0, smooth terms in the others."""
    return np.sum(w * np.maximum(x, 0.0)) + np.sum(x ** 3) + x[1] * x[2]


A3 = np.array([[2.0, 0.5, -1.0], [0.5, 1.0, 0.3], [-1.0, 0.3, 3.0]])


def l1_coupled(x, a=A3):
    """An L1 term at 0 beside a quadratic that couples every element (its Hessian 2A off the kink)."""
    return np.sum(np.abs(x)) + x @ a @ x


def clip_at_bound(x):
    """np.clip at its upper bound in element 0."""
    return np.sum(np.clip(x, -1.0, 1.0) ** 2) + x[0] * x[2] + np.sum(np.sin(x))


def max_in_a_loop(x):
    """Builtin max at its tie in a Python loop over the elements."""
    s = 0.0
    for i in range(len(x)):
        s = s + W3[i] * max(x[i], 0.0) + x[i] ** 2 * (i + 1.0)
    return s + x[0] * x[1]


def abs_times_other(x):
    """|x[0]| * x[1]: the gradient's x[1] entry is |x[0]|, kinked in x[0]: H[1, 0] does not exist."""
    return np.abs(x[0]) * x[1] + x[2] ** 2


def square_at_zero(x):
    """np.maximum(x * x, 0) at 0 (the tie persists to first order only): NaN on the diagonal entry."""
    return np.sum(np.maximum(x * x, 0.0)) + x[1] * x[2]


#: (name, f, a point where one element sits at a kink or a tie)
KINKS = [
    ("hinge_and_cubes", hinge_and_cubes, np.array([0.5, 1.0, -2.0])),
    ("relu_weighted", relu_weighted, np.array([0.0, 1.0, -2.0])),
    ("l1_coupled", l1_coupled, np.array([0.0, 0.5, -1.0])),
    ("clip_at_bound", clip_at_bound, np.array([1.0, 0.3, -0.2])),
    ("max_in_a_loop", max_in_a_loop, np.array([0.0, 1.0, 2.0])),
    ("abs_times_other", abs_times_other, np.array([0.0, 1.0, 2.0])),
    ("square_at_zero", square_at_zero, np.array([0.0, 1.0, 2.0])),
]


def hinge_tree(p):
    """The hinge in a dict of arrays: a tie in p["a"][0], p["b"] smooth and coupled to p["a"][1]."""
    return np.sum(np.maximum(np.abs(p["a"]) - 0.5, 0.0)) + np.sum(p["b"] ** 2) * p["a"][1]


def distance_beside(x):
    """A distance at 0 (no derivative in x[:2]) beside a square of x[2], which it does not read."""
    return np.sqrt(np.sum(x[:2] ** 2)) + x[2] ** 2
