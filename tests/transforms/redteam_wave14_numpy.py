"""The red team's fourteenth wave, continued: NumPy spellings whose semantics have a trap.  An index
written twice in one ``out[idx] += v`` (NumPy adds once: buffered) and ``out[idx] = v`` (the last
write wins), np.cumprod through a zero, masked reductions (``where=``), norms of other orders along
an axis, np.gradient and np.trapezoid, np.polyval in both arguments, np.logaddexp.reduce, boolean
mask writes on a copy, np.take_along_axis after an argsort, np.tile and np.repeat, np.kron, the
median of an even count, np.var with ddof along an axis, np.einsum traces, chained comparisons in a
where, np.heaviside, builtin sum / max over an array's items.  See redteam_wave14.py.
"""

from __future__ import annotations

import numpy as np


def duplicate_index_iadd(x, idx=(0, 2, 2, 1)):
    out = np.zeros(4)
    out[list(idx)] += x
    return np.sum(out ** 2)


def duplicate_index_assign(x):
    out = np.ones(3)
    idx = np.array([0, 1, 1])
    out[idx] = x * 2.0
    return np.sum(np.sin(out) * np.arange(1.0, 4.0))


def cumprod_through_zero(x):
    return np.sum(np.cumprod(x) * np.arange(1.0, len(x) + 1.0))


def masked_sum_where(x, mask):
    return np.sum(x ** 2, where=mask) + np.mean(np.exp(x), where=mask)


def norm_orders_axis(X):
    return np.sum(np.linalg.norm(X, ord=3, axis=0)) + np.sum(np.linalg.norm(X, ord=1, axis=1))


def gradient_trapezoid(y, t):
    dy = np.gradient(y, t)
    return np.trapezoid(dy ** 2, t) + np.trapezoid(y, t)


def polyval_both(p, x):
    return np.sum(np.polyval(p, x) ** 2)


def logaddexp_reduce(x):
    return np.logaddexp.reduce(x) + np.sum(np.logaddexp.accumulate(x))


def boolean_mask_write(x):
    y = x.copy()
    y[y < 0.0] = 0.1 * y[y < 0.0]
    return np.sum(y ** 3)


def take_along_argsort(X):
    order = np.argsort(X, axis=1)
    S = np.take_along_axis(X, order, axis=1)
    return np.sum(S * np.arange(1.0, X.shape[1] + 1.0))


def tile_repeat(x):
    return np.sum(np.tile(x, 3) * np.repeat(x, 3)) + np.sum(np.repeat(x, [1, 2, 3]) ** 2)


def kron_product(A, B):
    return np.sum(np.kron(A, B) ** 2) + np.trace(np.kron(A, np.eye(2)))


def even_median(x):
    return np.median(x) ** 2 + np.median(x[:3])


def var_ddof_axis(X):
    return np.sum(np.var(X, axis=0, ddof=1)) + np.std(X, ddof=1)


def einsum_traces(A, B):
    return np.einsum("ii->", A @ B) + np.einsum("ij,ji->", A, B) + np.einsum("ii", A) ** 2


def chained_comparison_where(x):
    inside = (-1.0 < x) & (x < 1.0)
    return np.sum(np.where(inside, x ** 2, np.abs(x)))


def heaviside_gate(x, w):
    return np.sum(np.heaviside(x, 0.5) * w ** 2 + x * w)


def builtin_sum_max(x):
    return sum(x) * max(x) + min(x * x)


def outer_inner(x, y):
    return np.sum(np.outer(x, y) ** 2) + np.inner(x, x) * np.vdot(y, y)


def M(rng, *shape):
    return rng.normal(size=shape)


NUMPY14 = [
    ("w14_duplicate_index_iadd", duplicate_index_iadd, lambda r: (M(r, 4),), 0),
    ("w14_duplicate_index_assign", duplicate_index_assign, lambda r: (M(r, 3),), 0),
    ("w14_cumprod_through_zero", cumprod_through_zero, lambda r: (np.array([1.3, 0.0, -0.7, 2.0]),), 0),
    ("w14_masked_sum_where", masked_sum_where, lambda r: (M(r, 5), np.array([True, False, True, True, False])), 0),
    ("w14_norm_orders_axis", norm_orders_axis, lambda r: (M(r, 3, 4),), 0),
    ("w14_gradient_trapezoid", gradient_trapezoid, lambda r: (M(r, 6), np.cumsum(r.uniform(0.2, 1.0, size=6))), 0),
    ("w14_polyval_both", polyval_both, lambda r: (M(r, 4), M(r, 5)), 0),
    ("w14_polyval_both_x", polyval_both, lambda r: (M(r, 4), M(r, 5)), 1),
    ("w14_logaddexp_reduce", logaddexp_reduce, lambda r: (M(r, 5),), 0),
    ("w14_boolean_mask_write", boolean_mask_write, lambda r: (M(r, 6),), 0),
    ("w14_take_along_argsort", take_along_argsort, lambda r: (M(r, 3, 4),), 0),
    ("w14_tile_repeat", tile_repeat, lambda r: (M(r, 3),), 0),
    ("w14_kron_product", kron_product, lambda r: (M(r, 2, 2), M(r, 2, 3)), 0),
    ("w14_kron_product_b", kron_product, lambda r: (M(r, 2, 2), M(r, 2, 3)), 1),
    ("w14_even_median", even_median, lambda r: (M(r, 6),), 0),
    ("w14_var_ddof_axis", var_ddof_axis, lambda r: (M(r, 4, 3),), 0),
    ("w14_einsum_traces", einsum_traces, lambda r: (M(r, 3, 3), M(r, 3, 3)), 0),
    ("w14_chained_comparison_where", chained_comparison_where, lambda r: (np.array([-1.5, -0.3, 0.4, 2.0]),), 0),
    ("w14_heaviside_gate", heaviside_gate, lambda r: (np.array([-1.0, 0.0, 2.0]), M(r, 3)), 1),
    ("w14_builtin_sum_max", builtin_sum_max, lambda r: (M(r, 5),), 0),
    ("w14_outer_inner", outer_inner, lambda r: (M(r, 3), M(r, 4)), 0),
]


def add_at_row_broadcast(v, rows=(0, 2, 2)):
    A = np.zeros((3, 2))
    np.add.at(A, list(rows), v)
    return np.sum(np.sin(A) * np.arange(6.0).reshape(3, 2))


def scatter_histogram(w, bins):
    h = np.zeros(4)
    np.add.at(h, bins, w)
    return -np.sum(h / h.sum() * np.log(h / h.sum()))


NUMPY14 += [
    ("w14_add_at_row_broadcast", add_at_row_broadcast, lambda r: (M(r, 2),), 0),
    ("w14_scatter_histogram", scatter_histogram,
     lambda r: (r.uniform(0.5, 1.5, size=7), np.array([0, 1, 1, 2, 3, 3, 3])), 0),
]
