"""The red team's wave 31h: programs at the edges of wave 31's rewrites (test_redteam_wave31h.py runs them).

* EINSUM: two-operand einsums as users write them: matrix-vector, batched, ``...``, implicit output
  (alphabetical: ``'kj,ji'`` is ``(A @ B).T``), an operand repeated, integer or float32 data beside a
  float64 parameter;
* CHOLESKY: solve_triangular pairs with ``lower=False``, ``trans``, ``unit_diagonal``,
  ``check_finite=False``, the two solves in the order that is not a Cholesky inverse, two factors;
* SLICES: zeros written by two slices with empty, negative, computed, overlapping or gapped bounds;
* SELECT: nested np.where and float masks with NaN / inf / -0.0 in the data or the mask;
* DOTS: sums and means of products of float32, integer, 2-d and broadcast operands;
* UNPACK: arrays unpacked by the right count, ``f(*theta)``, setdefault and dict comprehensions.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sl

B34 = np.array([[1.0, 0.5, -0.2, 0.3], [0.3, -1.0, 0.8, 0.1], [0.0, 0.7, 1.1, -0.4]])
K_INT = np.array([[1, 2, 0], [-1, 3, 1]])
D32 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
V3 = np.array([0.4, -0.3, 1.2])
M4 = np.array([[2.0, 0.3, 0.1, 0.0], [0.3, 1.5, 0.2, 0.1], [0.1, 0.2, 1.8, 0.4], [0.0, 0.1, 0.4, 1.2]])
Y4 = np.array([0.4, -0.3, 1.2, 0.1])
DNAN = np.array([0.5, np.nan, -0.3, np.inf, 1.1, -np.inf])
MASK_NEG0 = np.array([1.0, -0.0, 1.0, 0.0, 1.0, 0.0])
MASK32 = np.array([1.0, 0.0, 1.0, 1.0], dtype=np.float32)
INT4 = np.array([2, -1, 0, 3])
W23 = np.array([[0.5, -0.2, 1.0], [0.3, 0.8, -0.6]])
WEIGHTS = {"a": 0.5, "b": -1.5, "c": 2.0}
SCALE = 2.0  # (test_redteam_wave31h.py changes it between vmap calls)


def vmapped(x, A=B34[:2, :3]):
    """vmap's example: a per-example einsum, dot and module constant."""
    return SCALE * np.sum(np.einsum("ij,j->i", A, x) ** 2) + np.sum(x * x)


# ---- EINSUM ----

def einsum_matvec(A, x=V3):
    return np.sum(np.tanh(np.einsum("ij,j->i", A, x)))


def einsum_batched(A):
    S = np.einsum("bij,bjk->bik", A, np.transpose(A, (0, 2, 1)))
    return np.sum(S ** 2)


def einsum_ellipsis(A, B=B34):
    return np.sum(np.sin(np.einsum("...ij,jk->...ik", A, B)))


def einsum_implicit_alphabetical(A, B=B34.T):
    # implicit output 'ik' (labels sorted): (B @ A).T, not B @ A
    return np.sum(np.einsum("kj,ji", B, A) * np.arange(8.0).reshape(2, 4))


def einsum_repeated_gram(W):
    return np.sum(np.einsum("ij,kj->ik", W, W) * np.array([[1.0, 2.0], [0.5, -1.0]]))


def einsum_repeated_full(W):
    return np.einsum("ij,ij->", W, W) + np.einsum("ij,ij", W, np.cos(W))


def einsum_int_data(W, K=K_INT):
    return np.sum(np.einsum("ij,jk->ik", K, W) ** 2)


def einsum_float32_data(W, D=D32):
    return np.sum(np.exp(0.1 * np.einsum("ij,jk->ik", D, W)))


def einsum_outer_self(x):
    return np.sum(np.einsum("i,j->ij", x, x) * np.arange(9.0).reshape(3, 3))


def einsum_transposed_out(A, B=B34):
    return np.sum(np.einsum("ij,jk->ki", A, B) * np.arange(8.0).reshape(4, 2))


def einsum_two_params(A, B):
    return np.sum(np.einsum("ij,jk->ik", A, B) ** 2)


# ---- CHOLESKY ----

def _spd(A):
    return A @ A.T + np.eye(A.shape[0])


def chol_upper_pair(A, b=Y4[:3]):
    U = np.linalg.cholesky(_spd(A)).T
    x = sl.solve_triangular(U, sl.solve_triangular(U, b, lower=False, trans=1), lower=False)
    return np.sum(x * b)


def chol_trans_c(A, b=Y4[:3]):
    L = np.linalg.cholesky(_spd(A))
    x = sl.solve_triangular(L, sl.solve_triangular(L, b, lower=True), lower=True, trans="C")
    return np.sum(x ** 2)


def chol_unit_pair(A, b=Y4[:3]):
    L = np.linalg.cholesky(_spd(A))
    z = sl.solve_triangular(L, b, lower=True, unit_diagonal=True)
    return np.sum(sl.solve_triangular(L.T, z, lower=False, unit_diagonal=True) ** 2)


def chol_check_finite(A, b=Y4[:3]):
    L = np.linalg.cholesky(_spd(A))
    z = sl.solve_triangular(L, b, lower=True, check_finite=False)
    return np.sum(sl.solve_triangular(L.T, z, lower=False, check_finite=False) * b)


def chol_wrong_order(A, b=Y4[:3]):
    # L^-1 L^-T b: not (L L^T)^-1 b
    L = np.linalg.cholesky(_spd(A))
    z = sl.solve_triangular(L, b, lower=True, trans="T")
    return np.sum(sl.solve_triangular(L, z, lower=True) ** 2)


def chol_two_factors(A, b=Y4[:3]):
    L1 = np.linalg.cholesky(_spd(A))
    L2 = np.linalg.cholesky(_spd(A.T))
    z = sl.solve_triangular(L1, b, lower=True)
    return np.sum(sl.solve_triangular(L2.T, z, lower=False) ** 2)


def chol_b_squares(b, M=M4):
    # 0.5 |M^-1 b|^2: the Hessian's forward sweep meets a solve of a solve of a seed (hvp refused before)
    L = np.linalg.cholesky(M)
    x = sl.solve_triangular(L.T, sl.solve_triangular(L, b, lower=True), lower=False)
    return 0.5 * np.sum(x * x)


def chol_b_upper(b, M=M4):
    U = np.linalg.cholesky(M).T
    x = sl.solve_triangular(U, sl.solve_triangular(U, b, lower=False, trans="T"), lower=False)
    return np.sum(x * b) + 0.25 * np.sum(x ** 2)


def chol_b_twice(b, M=M4):
    # M^-2 b through four nested solves: seeds held out of seeds held out
    L = np.linalg.cholesky(M)
    y = sl.solve_triangular(L.T, sl.solve_triangular(L, b, lower=True), lower=False)
    x = sl.solve_triangular(L.T, sl.solve_triangular(L, y, lower=True), lower=False)
    return np.sum(x * b)


def chol_rhs_matrix_param(B, M=M4):
    L = np.linalg.cholesky(M)
    W = sl.solve_triangular(L.T, sl.solve_triangular(L, B, lower=True), lower=False)
    return 0.5 * np.sum(W * W) + np.sum(W * B)


def chol_matrix_rhs(A, X=B34[:, :2]):
    L = np.linalg.cholesky(_spd(A))
    W = sl.solve_triangular(L.T, sl.solve_triangular(L, X, lower=True), lower=False)
    return np.sum(W * X) + np.sum(np.log(np.diag(L)))


def chol_b_param(b, M=M4):
    L = np.linalg.cholesky(M)
    x = sl.solve_triangular(L.T, sl.solve_triangular(L, b, lower=True), lower=False)
    return 0.5 * np.sum(x * b)


# ---- SLICES ----

def slice_empty_first(x):
    z = np.zeros(4)
    z[:0] = x[:0]
    z[0:] = x ** 2
    return np.sum(z * Y4)


def slice_empty_second(x):
    z = np.zeros(4)
    z[:4] = np.sin(x)
    z[4:] = 1.0
    return np.sum(z ** 2)


def slice_negative(x):
    z = np.zeros(4)
    z[:-1] = x[1:] * 2.0
    z[-1:] = x[:1] ** 3
    return np.sum(z * Y4)


def slice_computed(x):
    k = len(x) // 2
    z = np.zeros(len(x))
    z[:k] = np.exp(x[:k])
    z[k:] = -x[k:] ** 2
    return np.sum(z * Y4)


def slice_overlap(x):
    z = np.zeros(4)
    z[:3] = x[:3] ** 2
    z[2:] = np.sin(x[2:])
    return np.sum(z * Y4)


def slice_gap(x):
    z = np.zeros(4)
    z[:2] = x[:2] ** 2
    z[3:] = np.sin(x[3:])
    return np.sum(z * Y4) + np.sum(z)


def slice_columns(A):
    z = np.zeros((3, 4))
    z[:, :1] = A[:, :1] ** 2
    z[:, 1:] = np.tanh(A[:, 1:])
    return np.sum(z * B34)


# ---- SELECT ----

def nested_where_nan(x, d=DNAN):
    ok = np.isfinite(d)
    inner = np.where(x > 0.0, x ** 2, np.sin(x))
    return np.sum(np.where(ok, np.where(d > 0.0, inner * d, x), 0.0))


def mask_neg_zero(x, m=MASK_NEG0):
    return np.sum(m * x ** 2) + np.sum(m * np.abs(x))


def mask_inf_data(x, d=DNAN):
    # 0 * inf is NaN in f itself: the value and gradient are NaN where d is inf/nan
    good = np.isfinite(d).astype(float)
    return np.sum(good * np.where(np.isfinite(d), d, 0.0) * x ** 2)


def mask_float32(x, m=MASK32):
    return np.sum(m * np.sqrt(x ** 2 + 1.0)) + np.sum((1.0 - m) * x)


def nested_where_neg_zero(x):
    return np.sum(np.where(x >= 0.0, np.where(x > 0.0, x ** 3, -x), x ** 2))


def where_tie_number(x):
    return np.sum(np.maximum(x, 0.5) ** 2) + np.sum(np.where(x == 0.25, x, 2.0 * x))


# ---- DOTS ----

def dot_float32_data(x, d=D32[0]):
    return np.sum(x * d) + np.mean(x * x)


def dot_int_data(x, k=INT4):
    return np.sum(x * k) ** 2 + np.sum(np.sin(x) * x)


def dot_2d(A, B=B34):
    return np.sum(A * B) ** 2 + np.mean(A * A)


def dot_broadcast(x, W=W23):
    return np.sum(x * W) + np.sum(W * x * x)


def dot_axis(A, B=B34):
    return np.sum(np.sum(A * B, axis=0) ** 2)


# ---- UNPACK ----

def _three(a, b, c):
    return a * b + np.sin(c)


def unpack_array(x):
    a, b, c = x
    return a ** 2 * b + np.exp(c) * a


def star_theta(x):
    return _three(*x) + _three(*x[::-1]) ** 2


def unpack_rows(A):
    r0, r1, r2 = A
    return np.sum(r0 * r1) + np.sum(np.tanh(r2) * r0)


def setdefault_dict(x):
    acc = {}
    for i, v in enumerate(x):
        acc.setdefault(i % 2, 0.0)
        acc[i % 2] = acc[i % 2] + v ** 2
    return acc[0] * acc[1]


def setdefault_names(x):
    acc = {}
    for i, k in enumerate(("a", "b", "a", "b")):
        acc.setdefault(k, 1.0)
        acc[k] = acc[k] * (1.0 + x[i] ** 2)
    return np.log(acc["a"]) + acc["b"]


def setdefault_alone(x):
    acc = {"b": x[1]}
    acc.setdefault("a", 0.0)
    acc.setdefault("b", 5.0)
    acc["a"] = acc["a"] + x[0] ** 2
    return acc["a"] * acc["b"]


def dict_comp_weights(x, w=WEIGHTS):
    scaled = {k: w[k] * x[i] for i, k in enumerate(sorted(w))}
    return sum(v ** 2 for v in scaled.values()) + scaled["a"] * scaled["c"]


def _pos(*v):
    return lambda r: (np.array(v, dtype=float),)


def _r(*shape):
    return lambda r: (r.uniform(-1.0, 1.0, shape),)


def _sq(n):
    return lambda r: (r.uniform(-1.0, 1.0, (n, n)),)


PROGRAMS = [
    ("einsum_matvec", einsum_matvec, _r(2, 3), 0),
    ("einsum_batched", einsum_batched, _r(2, 2, 3), 0),
    ("einsum_ellipsis", einsum_ellipsis, _r(2, 2, 3), 0),
    ("einsum_implicit_alphabetical", einsum_implicit_alphabetical, _r(3, 2), 0),
    ("einsum_repeated_gram", einsum_repeated_gram, _r(2, 3), 0),
    ("einsum_repeated_full", einsum_repeated_full, _r(2, 3), 0),
    ("einsum_int_data", einsum_int_data, _r(3, 2), 0),
    ("einsum_float32_data", einsum_float32_data, _r(3, 2), 0),
    ("einsum_outer_self", einsum_outer_self, _r(3), 0),
    ("einsum_transposed_out", einsum_transposed_out, _r(2, 3), 0),
    ("einsum_two_params", einsum_two_params, lambda r: (r.uniform(-1, 1, (2, 3)), r.uniform(-1, 1, (3, 2))), 1),
    ("chol_upper_pair", chol_upper_pair, _sq(3), 0),
    ("chol_trans_c", chol_trans_c, _sq(3), 0),
    ("chol_unit_pair", chol_unit_pair, _sq(3), 0),
    ("chol_check_finite", chol_check_finite, _sq(3), 0),
    ("chol_wrong_order", chol_wrong_order, _sq(3), 0),
    ("chol_two_factors", chol_two_factors, _sq(3), 0),
    ("chol_matrix_rhs", chol_matrix_rhs, _sq(3), 0),
    ("chol_b_param", chol_b_param, _r(4), 0),
    ("chol_b_squares", chol_b_squares, _r(4), 0),
    ("chol_b_upper", chol_b_upper, _r(4), 0),
    ("chol_b_twice", chol_b_twice, _r(4), 0),
    ("chol_rhs_matrix_param", chol_rhs_matrix_param, _r(4, 2), 0),
    ("slice_empty_first", slice_empty_first, _r(4), 0),
    ("slice_empty_second", slice_empty_second, _r(4), 0),
    ("slice_negative", slice_negative, _r(4), 0),
    ("slice_computed", slice_computed, _r(4), 0),
    ("slice_overlap", slice_overlap, _r(4), 0),
    ("slice_gap", slice_gap, _r(4), 0),
    ("slice_columns", slice_columns, _r(3, 4), 0),
    ("select_nested_where_nan", nested_where_nan, _r(6), 0),
    ("select_mask_neg_zero", mask_neg_zero, _pos(0.5, -0.3, 1.2, 0.0, -0.7, 0.4), 0),
    ("select_mask_inf_data", mask_inf_data, _r(6), 0),
    ("select_mask_float32", mask_float32, _r(4), 0),
    ("select_nested_where_neg_zero", nested_where_neg_zero, _pos(0.5, -0.3, 1.2, -0.7), 0),
    ("select_where_tie_number", where_tie_number, _pos(0.6, -0.3, 1.2, 0.7), 0),
    ("dot_float32_data", dot_float32_data, _r(3), 0),
    ("dot_int_data", dot_int_data, _r(4), 0),
    ("dot_2d", dot_2d, _r(3, 4), 0),
    ("dot_broadcast", dot_broadcast, _r(3), 0),
    ("dot_axis", dot_axis, _r(3, 4), 0),
    ("unpack_array", unpack_array, _r(3), 0),
    ("unpack_star_theta", star_theta, _r(3), 0),
    ("unpack_rows", unpack_rows, _r(3, 4), 0),
    ("unpack_setdefault", setdefault_dict, _r(5), 0),
    ("unpack_setdefault_names", setdefault_names, _r(4), 0),
    ("unpack_setdefault_alone", setdefault_alone, _r(2), 0),
    ("unpack_dict_comp", dict_comp_weights, _r(3), 0),
]
