"""The red team's twelfth wave, continued: special points, aliasing and float32.  Rows swapped
through views (``A[0], A[1] = A[1], A[0]``, which NumPy makes two copies of one row), ``S += S.T``
on overlapping memory, a "previous" name that aliases an array updated in place, writes through
ravel() and np.fill_diagonal, x**2 log x**2 guarded at an exact zero, |x|**3 and sign(x) x**2 at 0,
np.power with an integer-valued float exponent on a negative base, a derivative in the exponent at
a zero base, np.prod with a zero entry, softplus and log_expit far out, logsumexp with -inf
entries, det of a singular matrix, matrix_power 0, np.mod away from its jumps; float32 versions
of models of this wave.  See redteam_wave12.py."""

from __future__ import annotations

import math

import numpy as np
import scipy.special

# ---- aliasing and views -------------------------------------------------------------------------


def row_swap_views(A):
    B = A.copy()
    B[0], B[1] = B[1], B[0]  # B[1] is a view: both rows end up equal to the old B[1]
    return np.sum(B * np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))


def iadd_own_transpose(A):
    S = A.copy()
    S += S.T
    return np.sum(S * np.arange(1.0, 10.0).reshape(3, 3))


def prev_alias_in_loop(x0, dt=0.1):
    x = x0.copy()
    total = 0.0
    for _ in range(3):
        x_prev = x  # not a copy: the in-place update below changes it too
        x += dt * np.sin(x)
        total = total + np.sum((x - x_prev) ** 2) + np.sum(x ** 2)
    return total


def ravel_view_write(B, w):
    C = B.copy()
    flat = C.ravel()
    flat[::2] *= w
    return np.sum(C ** 2 * np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))


def fill_diagonal_param(s, X):
    K = np.exp(-0.5 * (X[:, None] - X[None, :]) ** 2)
    np.fill_diagonal(K, 1.0 + s)
    return np.linalg.slogdet(K)[1] + np.sum(K)


def slice_assign_shift(x):
    y = x.copy()
    y[1:] = y[:-1]  # overlapping: NumPy copies first
    return np.sum(y * np.arange(1.0, len(x) + 1))


# ---- special points -----------------------------------------------------------------------------


def x2_log_x2_where(x):
    safe = np.where(x == 0, 1.0, x)
    return np.sum(np.where(x == 0, 0.0, safe ** 2 * np.log(safe ** 2)))


def abs_cubed_sign_square(x):
    return np.sum(np.abs(x) ** 3 + np.sign(x) * x ** 2 + np.maximum(x, 0.0) ** 2)


def power_float_exponent_negative_base(x):
    return np.sum(np.power(x, 3.0) + x ** 2.0 + math.pow(x[0], 2.0))


def exponent_at_zero_base(p, base):
    return np.sum(base ** p) + np.sum(np.power(base, 2 * p))


def prod_with_zero(x):
    return np.prod(x) + np.sum(np.prod(x.reshape(2, 3), axis=0)) + math.prod(x[:3])


def softplus_far_out(x):
    return np.sum(np.logaddexp(0.0, x)) + np.sum(scipy.special.log_expit(x)) + np.sum(np.tanh(x))


def logsumexp_neg_inf(a):
    b = np.concatenate([a, [-np.inf, -np.inf]])
    return scipy.special.logsumexp(b) + np.logaddexp.reduce(np.append(a, -np.inf))


def det_singular(A):
    return np.linalg.det(A)


def matrix_power_zero(A):
    return np.sum(np.linalg.matrix_power(A, 0) * A) + np.sum(np.linalg.matrix_power(A, 3))


def mod_away_from_jumps(x):
    return np.sum(np.mod(x, 1.0) ** 2 + (x % 2.5) * x)


def expm1_over_x(x):
    safe = np.where(x == 0.0, 1.0, x)
    return np.sum(np.where(x == 0.0, 1.0, np.expm1(safe) / safe))


def integer_valued_floats(x):
    n = float(len(x))
    return np.sum(x ** n) + np.sum(np.sqrt(x ** 2 + 1.0)) * math.floor(n / 2)


def norm_inf_and_one(x):
    return np.linalg.norm(x, np.inf) + np.linalg.norm(x, 1) + np.linalg.norm(x, -np.inf)


def clip_inside(x):
    return np.sum(np.clip(x, -1.0, 1.0) ** 2) + np.sum(np.clip(x, 0.0, None))


# ---- float32 ------------------------------------------------------------------------------------


def f32_matern_diag(log_ell, X):
    r = np.sqrt(np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)) / np.exp(log_ell)
    K = (1 + np.sqrt(np.float32(3.0)) * r) * np.exp(-np.sqrt(np.float32(3.0)) * r)
    return np.sum(K)


def f32_causal_softmax(s):
    T = s.shape[0]
    masked = np.where(np.tril(np.ones((T, T), dtype=bool)), s, -np.inf)
    p = np.exp(masked - masked.max(axis=1, keepdims=True))
    p = p / p.sum(axis=1, keepdims=True)
    return np.sum(p * np.arange(T, dtype=np.float32))


def f32_gmm(mu, x):
    lp = -0.5 * (x[:, None] - mu[None, :]) ** 2
    return -np.sum(scipy.special.logsumexp(lp, axis=1))


def f32_pbd(p, rest=1.0):
    q = p.copy()
    for _ in range(3):
        d = q[1] - q[0]
        L = np.sqrt(np.sum(d * d))
        c = 0.5 * (L - rest) * d / L
        q[0] += c
        q[1] -= c
    return np.sum(q[:, 1])


def f32_dict_tree(params, x):
    h = np.tanh(x @ params["W"] + params["b"])
    return np.sum(h * params["v"])


def f32_robust(w, X, y):
    r = X @ w - y
    return np.mean(np.logaddexp(r, -r)) + np.float32(0.1) * np.sum(w * w)


def M(rng, *shape):
    return rng.normal(size=shape)


def F(rng, *shape):
    return rng.normal(size=shape).astype(np.float32)


POINTS12 = [
    ("w12_row_swap_views", row_swap_views, lambda r: (M(r, 3, 2),), 0),
    ("w12_iadd_own_transpose", iadd_own_transpose, lambda r: (M(r, 3, 3),), 0),
    ("w12_prev_alias_in_loop", prev_alias_in_loop, lambda r: (M(r, 3),), 0),
    ("w12_ravel_view_write", ravel_view_write, lambda r: (M(r, 2, 3), 1.5), 0),
    ("w12_ravel_view_write_factor", ravel_view_write, lambda r: (M(r, 2, 3), 1.5), 1),
    ("w12_fill_diagonal_param", fill_diagonal_param, lambda r: (0.2, M(r, 4)), 0),
    ("w12_fill_diagonal_inputs", fill_diagonal_param, lambda r: (0.2, M(r, 4)), 1),
    ("w12_slice_assign_shift", slice_assign_shift, lambda r: (M(r, 5),), 0),
    ("w12_x2_log_x2_where", x2_log_x2_where, lambda r: (np.array([0.0, 0.5, -1.2, 0.0]),), 0),
    ("w12_abs_cubed_sign_square", abs_cubed_sign_square, lambda r: (np.array([0.0, 0.7, -0.4]),), 0),
    ("w12_power_float_negative_base", power_float_exponent_negative_base,
     lambda r: (np.array([-1.5, -2.0, 0.5]),), 0),
    ("w12_exponent_at_zero_base", exponent_at_zero_base, lambda r: (1.7, np.array([0.0, 0.5, 2.0])), 0),
    ("w12_prod_with_zero", prod_with_zero, lambda r: (np.array([0.0, 1.5, -0.5, 2.0, 0.0, 0.7]),), 0),
    ("w12_prod_with_one_zero", prod_with_zero, lambda r: (np.array([1.1, 1.5, -0.5, 2.0, 0.0, 0.7]),), 0),
    ("w12_softplus_far_out", softplus_far_out, lambda r: (np.array([-800.0, -30.0, 0.0, 40.0, 800.0]),), 0),
    ("w12_logsumexp_neg_inf", logsumexp_neg_inf, lambda r: (M(r, 3),), 0),
    ("w12_det_singular", det_singular, lambda r: (np.array([[1.0, 2.0], [2.0, 4.0]]),), 0),
    ("w12_det_singular_3x3", det_singular,
     lambda r: (np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),), 0),
    ("w12_matrix_power_zero", matrix_power_zero, lambda r: (0.5 * M(r, 3, 3),), 0),
    ("w12_mod_away_from_jumps", mod_away_from_jumps, lambda r: (np.array([0.3, 1.7, -0.6, 3.2]),), 0),
    ("w12_expm1_over_x", expm1_over_x, lambda r: (np.array([0.0, 0.3, -1.0]),), 0),
    ("w12_integer_valued_floats", integer_valued_floats, lambda r: (np.array([1.0, -2.0, 3.0]),), 0),
    ("w12_norm_inf_and_one", norm_inf_and_one, lambda r: (np.array([0.3, -1.7, 0.9, 1.2]),), 0),
    ("w12_clip_inside", clip_inside, lambda r: (np.array([0.3, -1.7, 0.9, 1.2, -0.2]),), 0),
    ("w12_f32_matern_diag", f32_matern_diag, lambda r: (np.float32(0.2), F(r, 4, 2)), 0),
    ("w12_f32_matern_diag_inputs", f32_matern_diag, lambda r: (np.float32(0.2), F(r, 4, 2)), 1),
    ("w12_f32_causal_softmax", f32_causal_softmax, lambda r: (F(r, 4, 4),), 0),
    ("w12_f32_gmm", f32_gmm, lambda r: (np.array([-1.0, 0.5, 1.5], dtype=np.float32), F(r, 6)), 0),
    ("w12_f32_pbd", f32_pbd, lambda r: (np.array([[0.0, 0.0], [1.3, 0.4]], dtype=np.float32),), 0),
    ("w12_f32_dict_tree", f32_dict_tree,
     lambda r: ({"W": F(r, 3, 4), "b": F(r, 4), "v": F(r, 4)}, F(r, 5, 3)), 0),
    ("w12_f32_robust", f32_robust, lambda r: (F(r, 3), F(r, 6, 3), F(r, 6)), 0),
]
