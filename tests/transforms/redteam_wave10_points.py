"""The red team's tenth wave, last part: what is likely to break.  In-place updates and aliasing (a
second name for an array updated with ``+=``, a reshape view and a transpose view written through,
``out=`` arguments, overlapping slices ``a[1:] += a[:-1]``, repeated indices in ``x[idx] += v``,
an in-place ``.sort()``, a dict two names share, a helper normalising its argument in place),
early exits (a tolerance ``break``, ``for ... else``, an early ``return`` before any work, ``any()``
in a condition), special points (a singular matrix's determinant, np.cumprod through a zero, a
zero base raised to a differentiated exponent, untaken np.where branches holding NaN, relu cubed
at 0, ``np.mean(where=...)``) and float32 (a physics loop, a log-domain Sinkhorn, a GRU step).
See redteam_wave10.py."""

from __future__ import annotations

import numpy as np
import scipy.special

# ---- in-place updates and aliasing --------------------------------------------------------------


def second_name_iadd(x):
    a = x.copy()
    b = a  # the same array under two names: b += ... changes a
    b += x ** 2
    return np.sum(a * x)


def reshape_view_write(X, w):
    Y = X.copy()
    flat = Y.reshape(-1)  # a view of Y
    flat *= w
    return np.sum(np.sin(Y))


def transpose_view_write(X):
    Y = X.copy()
    Yt = Y.T
    Yt[0] *= 3.0  # the first column of Y
    return np.sum(np.tanh(Y) * np.arange(Y.size).reshape(Y.shape))


def out_keyword_ufuncs(x):
    y = np.empty_like(x)
    np.multiply(x, x, out=y)
    np.exp(-y, out=y)
    return np.sum(y * x)


def relu_out_in_place(W, X):
    h = X @ W
    np.maximum(h, 0.0, out=h)
    return np.sum(h ** 2)


def overlapping_slices_iadd(x):
    a = x.copy()
    a[1:] += a[:-1]  # NumPy reads the old a[:-1]: a[i] = x[i] + x[i - 1]
    return np.sum(a ** 3)


def repeated_index_iadd(x, idx=np.array([0, 2, 2, 1])):  # noqa: B008  read, never written
    acc = np.zeros(3)
    acc[idx] += x  # buffered: index 2 takes its last value only, not the sum of both
    return np.sum(acc ** 2 * np.array([1.0, 2.0, 3.0]))


def sorted_in_place(x, w):
    y = x.copy()
    y.sort()
    return y @ w + np.sum(y[:2] ** 2)


def shared_dict_state(x):
    state = {"h": x}
    view = state
    view["h"] = np.tanh(view["h"] * 2.0)
    return np.sum(state["h"] ** 2)


def _normalise_(v):
    v /= np.linalg.norm(v)


def helper_normalises_in_place(x, w):
    u = x.copy()
    _normalise_(u)
    return w @ u + np.sum(u ** 3)


def slice_alias_scale(x):
    z = x.copy()
    head = z[:2]
    head *= 10.0
    return np.sum(z ** 2) + np.sum(head)


# ---- early exits --------------------------------------------------------------------------------


def newton_tolerance_break(a, x0=1.0):
    x = x0
    for _ in range(50):
        step = (x * x * x - a) / (3 * x * x)
        x = x - step
        if abs(step) < 1e-13:
            break
    return x


def for_else_no_break(x, limit=100.0):
    total = 0.0
    for v in x:
        if v > limit:
            break
        total = total + np.sin(v) * v
    else:
        total = total * 2.0
    return total


def early_return_before_work(x, w):
    if x.size == 0:
        return 0.0
    if np.all(w == 0):
        return float(np.sum(x))
    return np.sum(w * np.exp(x))


def any_condition(x):
    if any(v < -10.0 for v in x):
        return np.sum(x)
    return np.sum(np.cos(x) * x)


# ---- special points -----------------------------------------------------------------------------


def det_of_singular(A):
    return np.linalg.det(A) + np.sum(A ** 2) * 0.1


def cumprod_through_zero(x):
    return np.sum(np.cumprod(x) * np.array([1.0, 2.0, 3.0, 4.0]))


def zero_base_exponent(w, base=np.array([0.0, 0.5, 2.0])):  # noqa: B008  read, never written
    return np.sum(base ** w)


def where_untaken_fractional_power(x):
    return np.sum(np.where(x > 0, x ** 1.5, 0.1 * x))


def where_untaken_arcsin(x):
    return np.sum(np.where(np.abs(x) < 1.0, np.arcsin(x), np.sign(x) * np.pi / 2 + 0.0 * x))


def kl_with_zero_targets(q_logits, p=np.array([0.0, 0.3, 0.7, 0.0])):  # noqa: B008  read, never written
    q = np.exp(q_logits) / np.sum(np.exp(q_logits))
    return np.sum(np.where(p > 0, p * np.log(p / q), 0.0))


def relu_cubed_at_zero(x):
    return np.sum(np.maximum(x, 0.0) ** 3) + np.sum(x)


def abs_power_at_zero(x):
    return np.sum(np.abs(x) ** 2.5) + x @ x


def mean_where_keyword(x, mask):
    return np.mean(x ** 2, where=mask) + np.sum(np.exp(x), where=mask)


def power_zero_exponent_at_zero(x):
    return np.sum(x ** 0 * 3.0 + x ** 1 + np.power(x, 2))


# ---- float32 ------------------------------------------------------------------------------------


def float32_leapfrog(q, dt=np.float32(0.05), steps=6):  # noqa: B008  a number
    p = np.zeros_like(q)
    for _ in range(steps):
        p = p - 0.5 * dt * np.sin(q)
        q = q + dt * p
        p = p - 0.5 * dt * np.sin(q)
    return np.sum(q ** 2 + p ** 2)


def float32_sinkhorn(C, eps=np.float32(0.5), iters=5):  # noqa: B008  a number
    n, m = C.shape
    f = np.zeros(n, dtype=C.dtype)
    g = np.zeros(m, dtype=C.dtype)
    for _ in range(iters):
        f = -eps * scipy.special.logsumexp((g[None, :] - C) / eps, axis=1) - eps * np.log(np.float32(n))
        g = -eps * scipy.special.logsumexp((f[:, None] - C) / eps, axis=0) - eps * np.log(np.float32(m))
    return np.sum(np.exp((f[:, None] + g[None, :] - C) / eps) * C)


def float32_gru_step(U, x, h):
    z = scipy.special.expit(U[0] @ x + U[1] @ h)
    c = np.tanh(U[2] @ x + U[3] @ (z * h))
    return np.sum(((1 - z) * h + z * c) ** 2)


def M(rng, *shape):
    return rng.normal(size=shape)


SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]])

ALIASING10 = [
    ("w10_second_name_iadd", second_name_iadd, lambda r: (M(r, 4),), 0),
    ("w10_reshape_view_write", reshape_view_write, lambda r: (M(r, 2, 3), M(r, 6)), 0),
    ("w10_reshape_view_write_factor", reshape_view_write, lambda r: (M(r, 2, 3), M(r, 6)), 1),
    ("w10_transpose_view_write", transpose_view_write, lambda r: (M(r, 3, 2),), 0),
    ("w10_out_keyword_ufuncs", out_keyword_ufuncs, lambda r: (M(r, 4),), 0),
    ("w10_relu_out_in_place", relu_out_in_place, lambda r: (M(r, 3, 2), M(r, 4, 3)), 0),
    ("w10_overlapping_slices_iadd", overlapping_slices_iadd, lambda r: (M(r, 5),), 0),
    ("w10_repeated_index_iadd", repeated_index_iadd, lambda r: (M(r, 4),), 0),
    ("w10_sorted_in_place", sorted_in_place, lambda r: (np.array([0.3, -1.2, 2.0, 0.8]), M(r, 4)), 0),
    ("w10_shared_dict_state", shared_dict_state, lambda r: (M(r, 3),), 0),
    ("w10_helper_normalises_in_place", helper_normalises_in_place, lambda r: (M(r, 3), M(r, 3)), 0),
    ("w10_slice_alias_scale", slice_alias_scale, lambda r: (M(r, 4),), 0),
]

EXITS10 = [
    ("w10_newton_tolerance_break", newton_tolerance_break, lambda r: (2.5,), 0),
    ("w10_for_else_no_break", for_else_no_break, lambda r: (M(r, 4),), 0),
    ("w10_early_return_before_work", early_return_before_work, lambda r: (M(r, 3), M(r, 3)), 0),
    ("w10_early_return_zero_weights", early_return_before_work, lambda r: (M(r, 3), np.zeros(3)), 0),
    ("w10_any_condition", any_condition, lambda r: (M(r, 4),), 0),
]

SPECIAL10 = [
    ("w10_cumprod_through_zero", cumprod_through_zero, lambda r: (np.array([1.5, 0.0, -0.7, 2.0]),), 0),
    ("w10_zero_base_exponent", zero_base_exponent, lambda r: (np.array([1.5, 0.7, -0.4]),), 0),
    ("w10_where_untaken_fractional_power", where_untaken_fractional_power,
     lambda r: (np.array([0.7, -0.4, 1.3, -2.0]),), 0),
    ("w10_where_untaken_arcsin", where_untaken_arcsin, lambda r: (np.array([0.3, 1.7, -0.5, -2.5]),), 0),
    ("w10_kl_with_zero_targets", kl_with_zero_targets, lambda r: (M(r, 4),), 0),
    ("w10_abs_power_at_zero", abs_power_at_zero, lambda r: (np.array([0.0, 0.5, -0.8]),), 0),
    ("w10_mean_where_keyword", mean_where_keyword, lambda r: (M(r, 5), np.array([True, False, True, True, False])), 0),
    ("w10_power_zero_exponent_at_zero", power_zero_exponent_at_zero, lambda r: (np.array([0.0, 1.5, -0.3]),), 0),
]

FLOAT32_10 = [
    ("w10_float32_leapfrog", float32_leapfrog, lambda r: (M(r, 3).astype(np.float32),), 0),
    ("w10_float32_sinkhorn", float32_sinkhorn, lambda r: (np.abs(M(r, 3, 3)).astype(np.float32),), 0),
    ("w10_float32_gru_step", float32_gru_step,
     lambda r: ((0.5 * M(r, 4, 3, 3)).astype(np.float32), M(r, 3).astype(np.float32), M(r, 3).astype(np.float32)), 0),
]

POINTS10 = ALIASING10 + EXITS10 + SPECIAL10 + FLOAT32_10
