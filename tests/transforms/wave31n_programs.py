"""Wave 31n: second order exact at special points an element leaves unused (test_wave31n.py runs them).

Each row is ``(name, func, make_args(rng), wrt)``; `SPECIAL` gives the true Hessian at the row's point
where it is known by hand (the point is special: a root at 0 or arcsin at 1 after a kink, a division by
0, a root of zeros), for the rows the matrix's central differences cannot read there.

* SLICED: a root (np.sqrt, ``x ** 0.5``, np.arcsin) after a kink (np.clip, np.maximum, np.abs) at an
  element a slice, an index, a zero weight or a mask leaves out, in 1-d and 2-d, float32 and trees;
* DIVIDED: ``1 / x`` and ``x / D`` at a zero an element leaves unused;
* USED: ``|x| ** 3`` and ``sqrt(|x|) * x ** 2`` at 0 (the true Hessian 0 at a used element);
* TIED: ties that hold at every point (``np.clip(x, x, 3)``, ``np.maximum(x ** 2, x * x)``);
* NORMS: the root of a sum of squares with the other elements at 0; ``sum(W * sqrt(x)) ** 2``.
"""

from __future__ import annotations

import numpy as np

W = np.array([0.0, 1.0, 0.5, 2.0])
MASK = np.array([False, True, True, True])
D = np.array([0.0, 2.0, 0.5])


def _at(*values, dtype=float):
    return lambda rng: (np.array(values, dtype=dtype),)


# ---- SLICED: a root after a kink at an element the output leaves unused ----

def sqrt_clip_sliced(x):
    return np.sum(np.sqrt(np.clip(x, 0.0, 2.0))[1:] * x[1:]) + 3.0 * x[0] ** 2


def sqrt_maximum_sliced(x):
    return np.sum(np.sqrt(np.maximum(x, 0.0))[1:] * x[1:]) + 3.0 * x[0] ** 2


def sqrt_abs_sliced(x):
    return np.sum(np.sqrt(np.abs(x))[1:]) + 3.0 * x[0] ** 2


def half_power_abs_sliced_end(x):
    return np.sum((np.abs(x) ** 0.5)[:-1] * x[:-1]) + x[-1] ** 2


def arcsin_clip_sliced(x):
    return np.sum(np.arcsin(np.clip(x, -1.0, 1.0))[1:] ** 2) + x[0] ** 2


def sqrt_maximum_sliced_2d(X):
    return np.sum(np.sqrt(np.maximum(X, 0.0))[:, 1:] * X[:, 1:]) + np.sum(X[:, 0] ** 2)


def sqrt_abs_indexed(x):
    return np.sum(np.sqrt(np.abs(x))[np.array([1, 3])] * x[np.array([1, 3])]) + np.sum(x ** 2)


def sqrt_abs_zero_weight(x, w=W):
    return np.sum(w * np.sqrt(np.abs(x)) * x) + np.sum(x ** 2)


def sqrt_abs_masked(x, mask=MASK):
    return np.sum(np.where(mask, np.sqrt(np.abs(x)), 0.0) * x) + x[0] ** 2


def exp_of_sqrt_sliced(x):
    return np.sum(np.exp(np.sqrt(np.abs(x)))[1:]) + x[0] ** 2


def sqrt_clip_sliced_tree(p):
    return np.sum(np.sqrt(np.clip(p["a"], 0.0, 2.0))[1:] * p["b"][1:]) + np.sum(p["a"] ** 2 * p["b"])


# ---- DIVIDED: 1 / x and x / D at a zero the output leaves unused ----

def reciprocal_sliced(x):
    return np.sum((1.0 / x)[1:]) + x[0] ** 2


def reciprocal_sliced_end(x):
    return np.sum((2.0 / x)[:-1] * x[:-1] ** 3) + x[-1] ** 2


def minimum_of_a_ratio(x, d=D):
    return np.sum(np.minimum(x / d, 1.0) * x)


# ---- USED: a used element of infinite or kinked slope whose second derivative is a number ----

def abs_cubed(x):
    return np.sum(np.abs(x) ** 3) + np.sum(x ** 2)


def sqrt_abs_times_square(x):
    return np.sum(np.sqrt(np.abs(x)) * x ** 2) + np.sum(x ** 2)


# ---- TIED: ties that hold at every point ----

def clip_tie_itself(x):
    return np.sum(np.clip(x, x, 3.0) ** 2) + np.sum(x ** 3)


def maximum_tie_itself(x):
    return np.sum(np.maximum(x ** 2, x * x) * x)


def clip_tie_itself_upper(x):
    y = 2.0 * x
    return np.sum(np.clip(y, -5.0, 2.0 * x) * x)


def minimum_square_spellings(x):
    return np.sum(np.minimum(np.square(x), x ** 2) * np.sin(x))


def maximum_tie_itself_matrix(X):
    return np.sum(np.maximum(X * X, X ** 2) @ X)


# ---- NORMS ----

def root_of_sliced_squares(x):
    return np.sqrt(np.sum(x[:2] ** 2)) + np.sum(x ** 2)


def weighted_roots_squared(x, w=W):
    return np.sum(w * np.sqrt(x)) ** 2


X0 = (0.0, 0.5, 1.2, 0.8)
PROGRAMS = [
    ("sqrt_clip_sliced", sqrt_clip_sliced, _at(*X0), 0),
    ("sqrt_clip_sliced_f32", sqrt_clip_sliced, _at(*X0, dtype=np.float32), 0),
    ("sqrt_maximum_sliced", sqrt_maximum_sliced, _at(*X0), 0),
    ("sqrt_maximum_sliced_below", sqrt_maximum_sliced, _at(-0.3, 0.5, 1.2, 0.8), 0),
    ("sqrt_abs_sliced", sqrt_abs_sliced, _at(*X0), 0),
    ("sqrt_abs_sliced_f32", sqrt_abs_sliced, _at(*X0, dtype=np.float32), 0),
    ("half_power_abs_sliced_end", half_power_abs_sliced_end, _at(0.5, -1.2, 0.8, 0.0), 0),
    ("arcsin_clip_sliced", arcsin_clip_sliced, _at(1.0, 0.5, -0.2), 0),
    ("sqrt_maximum_sliced_2d", sqrt_maximum_sliced_2d, lambda rng: (np.array([[0.0, 0.5, 1.0], [0.0, 2.0, 0.3]]),), 0),
    ("sqrt_abs_indexed", sqrt_abs_indexed, _at(0.0, 0.5, 0.0, 0.8), 0),
    ("sqrt_abs_zero_weight", sqrt_abs_zero_weight, _at(*X0), 0),
    ("sqrt_abs_masked", sqrt_abs_masked, _at(*X0), 0),
    ("exp_of_sqrt_sliced", exp_of_sqrt_sliced, _at(*X0), 0),
    ("sqrt_clip_sliced_tree", sqrt_clip_sliced_tree,
     lambda rng: ({"a": np.array([0.0, 0.5, 1.2]), "b": np.array([0.3, 0.7, 1.1])},), 0),
    ("reciprocal_sliced", reciprocal_sliced, _at(0.0, 0.5, 1.2), 0),
    ("reciprocal_sliced_end", reciprocal_sliced_end, _at(0.5, 1.2, 0.0), 0),
    ("minimum_of_a_ratio", minimum_of_a_ratio, _at(0.7, 0.5, 1.5), 0),
    ("abs_cubed", abs_cubed, _at(0.0, 0.5, -1.2, 0.0), 0),
    ("sqrt_abs_times_square", sqrt_abs_times_square, _at(0.0, 0.5, -1.2), 0),
    ("clip_tie_itself", clip_tie_itself, _at(0.0, 0.5, -1.2, 2.0), 0),
    ("maximum_tie_itself", maximum_tie_itself, _at(0.0, 0.5, -1.2, 2.0), 0),
    ("maximum_tie_itself_f32", maximum_tie_itself, _at(0.0, 0.5, -1.2, 2.0, dtype=np.float32), 0),
    ("clip_tie_itself_upper", clip_tie_itself_upper, _at(0.0, 0.5, -1.2, 2.0), 0),
    ("minimum_square_spellings", minimum_square_spellings, _at(0.0, 0.5, -1.2), 0),
    ("maximum_tie_itself_matrix", maximum_tie_itself_matrix,
     lambda rng: (np.array([[0.0, 0.5], [-1.2, 2.0]]),), 0),
    ("root_of_sliced_squares", root_of_sliced_squares, _at(0.3, -0.4, 0.0), 0),
    ("root_of_sliced_squares_zeros", root_of_sliced_squares, _at(0.0, 0.0, 0.7), 0),
    ("weighted_roots_squared", weighted_roots_squared, _at(0.0, 0.5, 1.2, 0.8), 0),
]


def _weighted_roots_squared_hessian(x, w=W):
    # f = S ** 2, S = sum(w * sqrt(x)): H = 2 a a^T + 2 S diag(b), a = w / (2 sqrt(x)), b = -w / (4 x ** 1.5),
    # both 0 where w is (f does not depend on that element)
    used = w != 0
    a = np.where(used, w / (2 * np.sqrt(np.where(used, x, 1.0))), 0.0)
    b = np.where(used, -w / (4 * np.where(used, x, 1.0) ** 1.5), 0.0)
    return 2 * np.outer(a, a) + 2 * np.sum(w * np.sqrt(x)) * np.diag(b)


#: the true Hessian at the row's point, by hand, where central differences cannot read it (f is NaN on one
#: side, or its second derivative is of a lower order than the differences' error); NaN: none exists
SPECIAL = {
    "abs_cubed": np.diag([2.0, 2.0 + 6 * 0.5, 2.0 + 6 * 1.2, 2.0]),
    "sqrt_abs_times_square": np.diag([2.0, 2.0 + 3.75 * 0.5 ** 0.5, 2.0 + 3.75 * 1.2 ** 0.5]),
    "weighted_roots_squared": _weighted_roots_squared_hessian(np.array([0.0, 0.5, 1.2, 0.8])),
    # the root of a sum of zeros has no second derivative: NaN in the rows of x[:2], 2 at x[2]
    "root_of_sliced_squares_zeros": np.array([[np.nan, np.nan, 0.0], [np.nan, np.nan, 0.0], [0.0, 0.0, 2.0]]),
}
