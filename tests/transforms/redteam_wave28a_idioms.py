"""The red team's wave 28a, the idioms around the science: convergence loops on values, swaps by
tuple unpacking, augmented slice assignments, Python max/min/abs on numbers, generators summed,
keyword-only and default arguments, closures over loop variables, enumerate(zip(...)), einsum,
norms with an order, early returns from helpers inside loops."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave28a_signal import F, M, P

SETTINGS = {"rate": 0.1, "steps": 4}


def fixed_point_tolerance(a, tol=1e-10):
    """x = cos(a x) iterated until the change is small (a convergence loop on values)."""
    x = 0.5
    delta = 1.0
    n = 0
    while abs(delta) > tol and n < 200:
        x_new = math.cos(a * x)
        delta = x_new - x
        x = x_new
        n += 1
    return x


def babylonian_sqrt(s):
    x = s
    for _ in range(30):
        nxt = 0.5 * (x + s / x)
        if abs(nxt - x) < 1e-14:
            break
        x = nxt
    return x


def fibonacci_swap(x):
    a, b = x[0], x[1]
    for _ in range(6):
        a, b = b, a + 0.5 * b
    return a * b


def augmented_slices(u):
    v = u.copy()
    v[1:] += 0.5 * v[:-1]
    v[:-1] *= np.exp(-v[1:])
    v[::2] -= 0.1 * v[::2] ** 2
    return np.sum(v**2)


def python_max_min_abs(x):
    total = 0.0
    for xi in x:
        total += max(xi, 0.0) ** 2 + min(xi, 0.0) ** 2 * 0.5 + abs(xi) * 0.1
    return total


def generator_sum(x):
    return sum(math.exp(-xi * xi) for xi in x) + sum(xi**3 for xi in x if xi > 0)


def keyword_only_helper(x, *, scale=2.0, shift=0.0):
    return np.sum(np.tanh(scale * x + shift))


def calls_keyword_only(x):
    return keyword_only_helper(x, scale=1.5) + keyword_only_helper(x, shift=0.3, scale=0.5)


def closure_over_loop(x):
    fs = []
    for k in range(3):
        def term(y, k=k):
            return np.sin((k + 1) * y)
        fs.append(term)
    return np.sum(sum(f(x) for f in fs))


def enumerate_zip_pairs(a, b):
    acc = 0.0
    for i, (ai, bi) in enumerate(zip(a, b)):
        acc += (i + 1) * ai * bi - 0.5 * ai**2
    return acc


def einsum_bilinear(W, x, y):
    return np.einsum("i,ij,j->", x, W, y) + np.einsum("ij,ij->", W, W)


def norm_orders(x):
    return np.linalg.norm(x, ord=1) * 0.1 + np.linalg.norm(x) + np.linalg.norm(x, np.inf) * 0.0


def first_negative_index_helper(x):
    for i in range(len(x)):
        if x[i] < 0:
            return i
    return len(x)


def weighted_until_negative(x):
    k = first_negative_index_helper(x)
    return np.sum(x[:k] ** 2) + 0.1 * np.sum(x)


def settings_driven(x, cfg=SETTINGS):
    for _ in range(cfg["steps"]):
        x = x - cfg["rate"] * (x**3 - x)
    return np.sum(x**2)


def list_of_arrays_stack(x):
    rows = []
    for k in range(3):
        rows.append(np.roll(x, k) * (k + 1))
    A = np.stack(rows, axis=1)
    return np.sum(A @ A.T)


def comprehension_matrix(x):
    K = np.array([[math.exp(-(xi - xj) ** 2) for xj in x] for xi in x])
    return np.sum(np.linalg.solve(K + 0.1 * np.eye(len(x)), x))


def value_branch_scalar(a):
    if a > 1.0:
        y = math.log(a) * a
    elif a > 0.0:
        y = a**2 - a
    else:
        y = -a
    return y * y


def where_guarded_division(x):
    safe = np.where(np.abs(x) > 1e-8, x, 1.0)
    return np.sum(np.where(np.abs(x) > 1e-8, np.sin(x) / safe, 1.0))


def sqrt_via_power(v):
    return (v @ v) ** 0.5 + np.sum(np.abs(v) ** 1.5)


def clipped_gradient_steps(x0, lr=0.2):
    x = x0
    for _ in range(4):
        g = np.clip(3 * x**2 - 1.0, -1.0, 1.0)
        x = x - lr * g
    return np.sum(x**3)


def nested_helper_returns_tuple(x):
    def stats(v):
        m = np.mean(v)
        return m, np.mean((v - m) ** 2)

    mu, var = stats(x)
    mu2, var2 = stats(x**2)
    return mu * var2 + var * mu2


def cross_product_loop(u, v):
    w = u
    for _ in range(3):
        w = np.cross(w, v) + 0.5 * u
    return np.dot(w, w)


def float32_scan(x):
    acc = np.float32(0.0)
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        acc = np.float32(0.9) * acc + x[i]
        out[i] = acc
    return np.sum(out**2)


def dict_of_params_loop(params, x):
    h = x
    for name in ("a", "b"):
        h = np.tanh(params[name] * h + params["bias"])
    return np.sum(h**2)


def matrix_power_loop(A):
    P_ = np.eye(A.shape[0])
    for _ in range(3):
        P_ = P_ @ A
    return np.trace(P_)


def cumprod_survival(hazards):
    surv = np.cumprod(1.0 - hazards)
    return np.sum(surv) + np.prod(1.0 - hazards)


IDIOMS = [
    ("fixed_point_tolerance", fixed_point_tolerance, lambda r: (0.8,), 0),
    ("babylonian_sqrt", babylonian_sqrt, lambda r: (2.7,), 0),
    ("fibonacci_swap", fibonacci_swap, lambda r: (M(r, 2),), 0),
    ("augmented_slices", augmented_slices, lambda r: (M(r, 6),), 0),
    ("python_max_min_abs", python_max_min_abs, lambda r: (M(r, 5),), 0),
    ("generator_sum", generator_sum, lambda r: (M(r, 5),), 0),
    ("calls_keyword_only", calls_keyword_only, lambda r: (M(r, 4),), 0),
    ("closure_over_loop", closure_over_loop, lambda r: (M(r, 4),), 0),
    ("enumerate_zip_pairs", enumerate_zip_pairs, lambda r: (M(r, 4), M(r, 4)), 0),
    ("enumerate_zip_pairs_b", enumerate_zip_pairs, lambda r: (M(r, 4), M(r, 4)), 1),
    ("einsum_bilinear", einsum_bilinear, lambda r: (M(r, 3, 3), M(r, 3), M(r, 3)), 0),
    ("norm_orders", norm_orders, lambda r: (M(r, 4),), 0),
    ("weighted_until_negative", weighted_until_negative, lambda r: (np.array([0.5, 1.2, -0.3, 0.8]),), 0),
    ("settings_driven", settings_driven, lambda r: (M(r, 3),), 0),
    ("list_of_arrays_stack", list_of_arrays_stack, lambda r: (M(r, 4),), 0),
    ("comprehension_matrix", comprehension_matrix, lambda r: (M(r, 4),), 0),
    ("value_branch_scalar", value_branch_scalar, lambda r: (1.7,), 0),
    ("value_branch_scalar_mid", value_branch_scalar, lambda r: (0.4,), 0),
    ("where_guarded_division", where_guarded_division, lambda r: (np.array([0.3, 0.5, -1.2, 2.0]),), 0),
    ("sqrt_via_power", sqrt_via_power, lambda r: (M(r, 4),), 0),
    ("clipped_gradient_steps", clipped_gradient_steps, lambda r: (0.4 * M(r, 3),), 0),
    ("nested_helper_returns_tuple", nested_helper_returns_tuple, lambda r: (M(r, 5),), 0),
    ("cross_product_loop", cross_product_loop, lambda r: (M(r, 3), M(r, 3)), 0),
    ("cross_product_loop_v", cross_product_loop, lambda r: (M(r, 3), M(r, 3)), 1),
    ("float32_scan", float32_scan, lambda r: (F(r, 5),), 0),
    ("dict_of_params_loop", dict_of_params_loop, lambda r: ({"a": 0.7, "b": -1.1, "bias": 0.2}, M(r, 4)), 0),
    ("matrix_power_loop", matrix_power_loop, lambda r: (0.5 * M(r, 3, 3),), 0),
    ("cumprod_survival", cumprod_survival, lambda r: (0.3 * P(r, 5),), 0),
]
