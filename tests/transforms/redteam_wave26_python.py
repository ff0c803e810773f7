"""The red team's twenty-sixth wave: Python control flow and idioms (while loops with a data
stop, early returns, zip / enumerate, lists stacked, dicts of parameters, ``math``, keyword
arguments and defaults, helpers at module level and nested, small classes, tuples returned),
in shapes 0-d to 2-d with axes of length 1, float32 and float64 (test_redteam_wave26.py)."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave26_draws import F, M

SCALE = 2.0


# ---- while loops with data-dependent stops ----


def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


def bisect_root(c):
    lo, hi = 0.0, 10.0
    while hi - lo > 1e-10:
        mid = 0.5 * (lo + hi)
        if mid**3 - c > 0:
            hi = mid
        else:
            lo = mid
    return c * lo


def gradient_descent_inner(A, b):
    x = np.zeros_like(b)
    it = 0
    while it < 30:
        x = x - 0.1 * (A @ x - b)
        it += 1
    return np.sum(x**2)


def series_until_small(x):
    term, total, k = 1.0, 1.0, 1
    while abs(term) > 1e-14:
        term = term * x / k
        total += term
        k += 1
    return total


# ---- early returns ----


def piecewise_early(x):
    if x < 0:
        return x * x
    if x < 1:
        return math.sin(x)
    return math.log(x) + math.sin(1.0)


def vector_early(v, t=0.5):
    s = np.sum(v)
    if s > t:
        return np.sum(v**2)
    return np.sum(np.exp(v))


def helper_early_return(x):
    def safe_log(u):
        if u <= 0:
            return 0.0
        return math.log(u)

    return safe_log(x) * x


def loop_early_return(v):
    for i in range(len(v)):
        if v[i] > 1.0:
            return v[i] * np.sum(v[:i] ** 2)
    return np.sum(v)


# ---- for over zip / enumerate ----


def zip_weights(xs, ws):
    total = 0.0
    for x, w in zip(xs, ws):
        total += w * np.sin(x)
    return total


def enumerate_powers(c, x=0.7):
    return sum(ci * x**i for i, ci in enumerate(c))


def enumerate_rows(X):
    acc = 0.0
    for i, row in enumerate(X):
        acc = acc + (i + 1) * np.dot(row, row)
    return acc


def zip_three(a, b, c):
    return sum(x * y - z for x, y, z in zip(a, b, c))


def reversed_horner(c, x):
    out = 0.0
    for ci in reversed(c):
        out = out * x + ci
    return out


# ---- lists built then stacked ----


def list_then_stack(x):
    rows = []
    for k in range(1, 4):
        rows.append(np.sin(k * x))
    return np.sum(np.stack(rows) ** 2)


def list_then_array(x):
    vals = [x[0] * x[1], np.exp(x[1]), x[2] ** 2]
    return np.sum(np.array(vals) * np.array([1.0, 2.0, 3.0]))


def comprehension_stack_axis1(X):
    cols = [X[:, j] * (j + 1) for j in range(X.shape[1])]
    return np.sum(np.stack(cols, axis=1) ** 2)


def list_of_scalars_mean(v):
    squares = [vi**2 for vi in v if vi > -10]
    return np.mean(squares)


def concatenate_pieces(x):
    pieces = [x[:2] * 2, np.cos(x[2:]), x[::-1]]
    return np.sum(np.concatenate(pieces) ** 2)


def vstack_hstack(a, b):
    return np.sum(np.vstack([a, b]) @ np.hstack([a, b])[:3])


# ---- dicts of parameters ----


def dict_params_linear(params, x):
    y = params["a"] * x + params["b"]
    return np.sum(y**2)


def dict_loop_items(params, x):
    total = 0.0
    for _name, value in params.items():
        total = total + np.sum(value * x[: value.size])
    return total


def dict_get_default(params, x):
    scale = params.get("scale", 1.0)
    return np.sum((params["w"] * x) ** 2) * scale


def dict_comprehension_update(params, lr=0.1):
    grads = {k: 2 * v for k, v in params.items()}
    new = {k: params[k] - lr * grads[k] for k in params}
    return sum(np.sum(v**2) for v in new.values())


def _clamped(params, key, default=0.5):
    if key not in params:
        return default
    return params[key] * 2.0


def dict_helper_early_return(params, x):
    return np.sum(x * _clamped(params, "w")) + _clamped(params, "missing")


def nested_early_dict_arg(x):
    k = {"a": x[0], "b": 2.0}

    def g(u, k):
        if u[0] > 0.0:
            return u * k["a"]
        return u * k["b"]

    return np.sum(g(x, k))


def nested_early_dict_default(x):
    k = {"a": x[0], "b": 2.0}

    def g(u, k=k):
        if u[0] > 0.0:
            return u * k["a"]
        return u * k["b"]

    return np.sum(g(x))


def nested_early_params_arg(params, x):
    def layer(h, p):
        if p["act"] == "tanh":
            return np.tanh(h @ p["W"])
        return h @ p["W"]

    return np.sum(layer(x, params) ** 2)


# ---- math.* scalar math ----


def math_soup(x):
    return math.exp(-x) * math.cos(x) + math.sqrt(1 + x * x) + math.atan2(x, 2.0) + math.log1p(x * x)


def math_hypot_pow(x, y):
    return math.hypot(x, y) + math.pow(x, 3) + math.tanh(y) * math.erf(x)


def math_with_numpy_items(v):
    return math.sqrt(float(v @ v)) + math.log(1 + float(np.sum(np.exp(v))))


def math_fsum_like(v):
    return math.fsum([v[0] ** 2, v[1] * 3.0, math.sin(v[2])])


# ---- keyword arguments and defaults ----


def kw_loss(w, X, y, *, l2=0.1, power=2):
    return np.mean(np.abs(X @ w - y) ** power) + l2 * np.sum(w**2)


def call_with_kwargs(w, X, y):
    return kw_loss(w, X, y, power=3, l2=0.05) + kw_loss(w=w, X=X, y=y)


def default_array_arg(x, shift=np.array([0.1, 0.2, 0.3])):  # noqa: B008
    return np.sum(np.exp(x - shift))


def kwargs_passthrough(x, **opts):
    return np.sum(np.tanh(x * opts.get("gain", 1.0)))


def caller_of_kwargs(x):
    return kwargs_passthrough(x, gain=3.0) + kwargs_passthrough(x)


# ---- nested helpers, closures ----


def nested_helpers(x):
    def sq(u):
        return u * u

    def norm2(v):
        return np.sum(sq(v))

    return norm2(x) + sq(x[0])


def closure_over_param(w, X):
    def predict(row):
        return np.tanh(row @ w)

    return sum(predict(row) ** 2 for row in X)


def lambda_map(x):
    f = lambda t: t * np.exp(-t)  # noqa: E731
    return np.sum(list(map(f, x)))


def helper_returns_tuple(x):
    def stats(v):
        return np.mean(v), np.std(v)

    m, s = stats(x)
    return m / s + s


def helper_returns_three(x, y):
    def moments(u):
        return u.sum(), (u**2).sum(), (u**3).sum()

    a, b, c = moments(x * y)
    return a * b - c


# ---- small classes ----


class Affine:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return x @ self.W + self.b


def class_affine(W, b, x):
    layer = Affine(W, b)
    return np.sum(np.tanh(layer(x)) ** 2)


class Quadratic:
    def __init__(self, A):
        self.A = A

    def energy(self, x):
        return 0.5 * x @ self.A @ x

    def grad_norm(self, x):
        return np.sum((self.A @ x) ** 2)


def class_methods(x, A):
    q = Quadratic(A)
    return q.energy(x) + 0.1 * q.grad_norm(x)


class Scaler:
    factor = 3.0

    @staticmethod
    def shift(v):
        return v - 1.0

    def apply(self, v):
        return self.shift(v) * self.factor


def class_static_and_attr(x):
    return np.sum(Scaler().apply(x) ** 2)


# ---- shapes: 0-d, length-1 axes ----


def zero_d_array(x):
    return np.sin(x) * x + np.exp(0.5 * x)


def length_one_axes(X):
    return np.sum((X - X.mean(axis=0, keepdims=True)) ** 2 * X[:, :1])


def column_vector(x):
    return (x.T @ x)[0, 0] + np.sum(x @ x.T)


def squeeze_expand(x):
    y = np.expand_dims(x, 0)
    z = np.squeeze(y @ y.T)
    return z * np.sum(x)


def broadcast_row_col(r, c):
    return np.sum(np.tanh(r[None, :] * c[:, None]))


def float32_loop_accumulate(x):
    acc = np.float32(0.0)
    for xi in x:
        acc = acc + xi * xi
    return acc


def float32_matrix_mixed(A, v):
    return np.sum(np.sin(A @ v) * SCALE)


def float32_scalar_math(x):
    return np.float32(math.pi) * np.sum(np.cos(x)) / x.size


def tuple_unpack_swap(x):
    a, b = x[0], x[1]
    for _ in range(3):
        a, b = b, a + 0.5 * b
    return a * b


def int_casts_and_len(x):
    n = int(len(x) / 2)
    return np.sum(x[:n] ** 2) - np.sum(x[n:] ** 3) / float(len(x))


def ternary_in_comprehension(x):
    return sum(v * v if v > 0 else -v for v in x)


def augmented_slices(x):
    y = x.copy()
    y[1:] += y[:-1] * 0.5
    y[:2] *= 3.0
    return np.sum(y**2)


# ---- copies whose count is read from a shape ----


def tile_rows_by_shape(b, X):
    B = np.tile(b, (X.shape[0], 1))
    return np.sum((X + B) ** 2 * np.arange(1.0, 4.0))


def repeat_state_by_shape(h0, X):
    H = np.repeat(h0[None, :], X.shape[0], axis=0)
    return np.sum(np.tanh(X + H))


def broadcast_to_shape_of(b, X):
    return np.sum(np.broadcast_to(b, X.shape) * X) + np.sum(np.broadcast_to(b, X.shape) ** 2)


def broadcast_to_len(b, X):
    return np.sum(np.sin(np.broadcast_to(b, (len(X), b.size)) * X))


def tile_by_len_ratio(x, y):
    return np.sum(np.tile(x, len(y) // len(x)) * y) + np.sum(np.repeat(x, y.size // x.size) ** 2)


PROGRAMS = [
    ("newton_sqrt", newton_sqrt, lambda r: (2.7,), 0),
    ("bisect_root", bisect_root, lambda r: (5.3,), 0),
    ("gradient_descent_inner", gradient_descent_inner, lambda r: (np.eye(3) * 2 + 0.1, M(r, 3)), 1),
    ("gradient_descent_inner_A", gradient_descent_inner, lambda r: (np.eye(3) * 2 + 0.1, M(r, 3)), 0),
    ("series_until_small", series_until_small, lambda r: (0.8,), 0),
    ("piecewise_early", piecewise_early, lambda r: (0.4,), 0),
    ("piecewise_early_neg", piecewise_early, lambda r: (-0.6,), 0),
    ("piecewise_early_big", piecewise_early, lambda r: (2.5,), 0),
    ("vector_early", vector_early, lambda r: (np.array([0.3, 0.9, -0.2]),), 0),
    ("helper_early_return", helper_early_return, lambda r: (1.7,), 0),
    ("loop_early_return", loop_early_return, lambda r: (np.array([0.2, 0.4, 1.3, -0.5]),), 0),
    ("zip_weights", zip_weights, lambda r: (M(r, 4), M(r, 4)), 0),
    ("zip_weights_w", zip_weights, lambda r: (M(r, 4), M(r, 4)), 1),
    ("enumerate_powers", enumerate_powers, lambda r: (M(r, 4),), 0),
    ("enumerate_powers_x", enumerate_powers, lambda r: (M(r, 4), 0.7), 1),
    ("enumerate_rows", enumerate_rows, lambda r: (M(r, 3, 2),), 0),
    ("zip_three", zip_three, lambda r: (M(r, 3), M(r, 3), M(r, 3)), 1),
    ("reversed_horner", reversed_horner, lambda r: (M(r, 4), 0.6), 1),
    ("list_then_stack", list_then_stack, lambda r: (M(r, 3),), 0),
    ("list_then_array", list_then_array, lambda r: (M(r, 3),), 0),
    ("comprehension_stack_axis1", comprehension_stack_axis1, lambda r: (M(r, 3, 2),), 0),
    ("list_of_scalars_mean", list_of_scalars_mean, lambda r: (M(r, 4),), 0),
    ("concatenate_pieces", concatenate_pieces, lambda r: (M(r, 4),), 0),
    ("vstack_hstack", vstack_hstack, lambda r: (M(r, 3), M(r, 3)), 0),
    ("dict_params_linear", dict_params_linear, lambda r: ({"a": 1.5, "b": M(r, 3)}, M(r, 3)), 0),
    ("dict_loop_items", dict_loop_items, lambda r: ({"u": M(r, 2), "v": M(r, 3)}, M(r, 3)), 0),
    ("dict_get_default", dict_get_default, lambda r: ({"w": M(r, 3), "scale": 2.0}, M(r, 3)), 0),
    ("dict_get_default_missing", dict_get_default, lambda r: ({"w": M(r, 3)}, M(r, 3)), 0),
    ("dict_comprehension_update", dict_comprehension_update, lambda r: ({"a": M(r, 2), "b": M(r, 2, 2)},), 0),
    ("dict_helper_early_return", dict_helper_early_return, lambda r: ({"w": 0.7}, M(r, 3)), 1),
    ("dict_helper_early_return_p", dict_helper_early_return, lambda r: ({"w": 0.7}, M(r, 3)), 0),
    ("nested_early_dict_arg", nested_early_dict_arg, lambda r: (np.array([0.5, -1.0, 2.0]),), 0),
    ("nested_early_dict_default", nested_early_dict_default, lambda r: (np.array([0.5, -1.0, 2.0]),), 0),
    ("nested_early_params_arg", nested_early_params_arg, lambda r: ({"W": M(r, 3, 2), "act": "tanh"}, M(r, 4, 3)), 0),
    ("math_soup", math_soup, lambda r: (0.6,), 0),
    ("math_hypot_pow", math_hypot_pow, lambda r: (0.6, -1.2), 1),
    ("math_with_numpy_items", math_with_numpy_items, lambda r: (M(r, 3),), 0),
    ("math_fsum_like", math_fsum_like, lambda r: (M(r, 3),), 0),
    ("call_with_kwargs", call_with_kwargs, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("default_array_arg", default_array_arg, lambda r: (M(r, 3),), 0),
    ("caller_of_kwargs", caller_of_kwargs, lambda r: (M(r, 3),), 0),
    ("nested_helpers", nested_helpers, lambda r: (M(r, 3),), 0),
    ("closure_over_param", closure_over_param, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("lambda_map", lambda_map, lambda r: (M(r, 3),), 0),
    ("helper_returns_tuple", helper_returns_tuple, lambda r: (M(r, 5),), 0),
    ("helper_returns_three", helper_returns_three, lambda r: (M(r, 3), M(r, 3)), 1),
    ("class_affine", class_affine, lambda r: (M(r, 3, 2), M(r, 2), M(r, 4, 3)), 0),
    ("class_affine_b", class_affine, lambda r: (M(r, 3, 2), M(r, 2), M(r, 4, 3)), 1),
    ("class_methods", class_methods, lambda r: (M(r, 3), np.eye(3) + 0.2), 0),
    ("class_static_and_attr", class_static_and_attr, lambda r: (M(r, 3),), 0),
    ("zero_d_array", zero_d_array, lambda r: (np.array(0.7),), 0),
    ("length_one_axes", length_one_axes, lambda r: (M(r, 4, 1),), 0),
    ("length_one_axes_wide", length_one_axes, lambda r: (M(r, 1, 3),), 0),
    ("column_vector", column_vector, lambda r: (M(r, 3, 1),), 0),
    ("squeeze_expand", squeeze_expand, lambda r: (M(r, 3),), 0),
    ("broadcast_row_col", broadcast_row_col, lambda r: (M(r, 3), M(r, 2)), 1),
    ("float32_loop_accumulate", float32_loop_accumulate, lambda r: (F(r, 4),), 0),
    ("float32_matrix_mixed", float32_matrix_mixed, lambda r: (F(r, 3, 3), F(r, 3)), 0),
    ("float32_scalar_math", float32_scalar_math, lambda r: (F(r, 4),), 0),
    ("float32_zero_d", zero_d_array, lambda r: (np.array(0.7, dtype=np.float32),), 0),
    ("tuple_unpack_swap", tuple_unpack_swap, lambda r: (M(r, 2),), 0),
    ("int_casts_and_len", int_casts_and_len, lambda r: (M(r, 6),), 0),
    ("ternary_in_comprehension", ternary_in_comprehension, lambda r: (np.array([0.5, -1.2, 0.8]),), 0),
    ("augmented_slices", augmented_slices, lambda r: (M(r, 5),), 0),
    ("tile_rows_by_shape", tile_rows_by_shape, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("tile_rows_by_shape_X", tile_rows_by_shape, lambda r: (M(r, 3), M(r, 4, 3)), 1),
    ("repeat_state_by_shape", repeat_state_by_shape, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("broadcast_to_shape_of", broadcast_to_shape_of, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("broadcast_to_len", broadcast_to_len, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("tile_by_len_ratio", tile_by_len_ratio, lambda r: (M(r, 2), M(r, 6)), 0),
]
