"""The red team's programs at special points (masked branches, singletons, guarded overflow,
complex helpers, large inputs), and functions called again with other static arguments or
argument kinds, which is where a compiled variant's assumptions show (see redteam_programs.py)."""

from __future__ import annotations

import numpy as np

# ---- special points users meet: masked branches, singletons, guards, complex helpers ------


def safe_log(x):
    return np.sum(np.where(x > 0, np.log(x), x))


def logistic_zero_init(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z))) + 0.1 * np.linalg.norm(w) ** 2


def variance_via_std(x):
    return 3.0 * np.std(x) ** 2


def hypot_energy(p):
    return np.hypot(p[0], p[1]) ** 2 + p[2]


def safe_sqrt(x):
    return np.sum(np.where(x > 0.0, np.sqrt(np.abs(x)), 0.0) + 0.5 * x)


def box_sdf(points, half=1.0):
    q = np.abs(points) - half
    outside = np.linalg.norm(np.maximum(q, 0.0), axis=1)
    inside = np.minimum(np.max(q, axis=1), 0.0)
    return np.sum(outside + inside)


def per_feature_std(X):
    return np.sum(np.std(X, axis=0) + X.mean(axis=0))


def stable_softplus(x):
    return np.sum(np.where(x < 30.0, np.log1p(np.exp(x)), x))


def dft_power(x):
    n = x.shape[0]
    k = np.arange(n)
    basis = np.exp(-2j * np.pi * np.outer(k, k) / n)
    spectrum = basis @ x
    return np.sum(np.abs(spectrum) ** 2) / n


def phase_magnitude(x):
    return np.sum(np.abs(x * np.exp(1j * x)) ** 2)


def ramp_energy(a, b):
    return np.sum(np.linspace(a, b, 5) ** 2)


def loss_with_flag(x, squared):
    if squared:
        return np.sum(x ** 2)
    return np.sum(np.abs(x))


def sinc_guarded(x):
    safe = np.where(x == 0.0, 1.0, x)
    return np.sum(np.where(x == 0.0, 1.0, np.sin(safe) / safe))


def sinc_unguarded_where(x):
    return np.sum(np.where(x == 0.0, 1.0, np.sin(x) / x))


def safe_norm_cubed(v):
    n = np.sqrt(np.sum(v ** 2))
    return np.where(n > 0.0, n ** 3, 0.0)


def relu_squared(x):
    return np.sum(np.maximum(x, 0.0) ** 2)


def smooth_bump(r):
    return np.sum(np.where(r > 0.0, np.exp(-1.0 / np.where(r > 0.0, r, 1.0)), 0.0))


def ridge_large(w, X, y):
    r = X @ w - y
    return 0.5 * np.sum(r ** 2) + 0.05 * np.sum(w ** 4)


def total_variation_large(u):
    du = u[1:] - u[:-1]
    return np.sum(np.sqrt(du ** 2 + 0.01)) + 0.1 * np.sum(u ** 2)


def loop_smoother_large(u, steps=3):
    for _ in range(steps):
        u = 0.25 * np.concatenate([u[:1], u[:-1]]) + 0.5 * u + 0.25 * np.concatenate([u[1:], u[-1:]])
    return np.sum(np.tanh(u) ** 2)


# ---- one function called with different static arguments (what a compiled variant assumes) --

W_FIXED = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 1.5], [2.0, 0.1, -0.4]])


def normalize_along(x, axis):
    return np.sum(x / np.linalg.norm(x, axis=axis, keepdims=True) * W_FIXED)


def masked_mse(w, X, y, mask=None):
    r = X @ w - y
    if mask is not None:
        r = r * mask
    return np.mean(r ** 2)


def unrolled(x, steps):
    for _ in range(steps):
        x = np.sin(x) + 0.5 * x
    return np.sum(x)


def activation_loss(x, kind):
    if kind == "tanh":
        return np.sum(np.tanh(x) ** 2)
    return np.sum(np.log1p(np.exp(x)))


def running_rows(x):
    acc = np.zeros(3)
    rows = []
    for i in range(3):
        acc += x[i]  # the same array appended three times: every row is the final sum
        rows.append(acc)
    return np.sum(np.stack(rows) * W_FIXED)


def buffer_halves(x):
    buf = np.zeros(6)
    head = buf[:3]
    head += x
    tail = buf[3:]
    tail += 2 * x
    return np.sum(buf ** 2)


def rebound_then_written(x):
    x = x * 2.0
    x[0] = x[1] + x[2]
    return np.sum(x ** 2)


def bias_add(x, b):
    return np.sum(np.tanh(x + b) ** 2)


def scale_loss(s, x):
    return np.sum((s * x - 1.0) ** 2)


def M(rng, *shape):
    return rng.normal(size=shape)


SPECIAL = [
    ("safe_log", safe_log, lambda r: (np.array([0.5, -1.2, 2.0, -0.3]),), 0),
    ("logistic_zero_init", logistic_zero_init, lambda r: (np.zeros(3), M(r, 6, 3), np.sign(M(r, 6))), 0),
    ("variance_via_std_constant", variance_via_std, lambda r: (np.full(4, 1.5),), 0),
    ("hypot_energy_at_rest", hypot_energy, lambda r: (np.zeros(3),), 0),
    ("safe_sqrt", safe_sqrt, lambda r: (np.array([0.5, -1.2, 2.0, -0.3]),), 0),
    ("box_sdf_inside", box_sdf, lambda r: (np.array([[0.2, -0.3], [0.5, 0.1], [-0.6, 0.4]]),), 0),
    ("box_sdf_mixed", box_sdf, lambda r: (np.array([[1.5, -0.3], [0.5, 0.1], [-1.6, 1.4]]),), 0),
    ("per_feature_std_one_row", per_feature_std, lambda r: (M(r, 1, 3),), 0),
    ("stable_softplus_large", stable_softplus, lambda r: (np.array([0.5, -2.0, 40.0, 800.0]),), 0),
    ("dft_power", dft_power, lambda r: (M(r, 6),), 0),
    ("phase_magnitude", phase_magnitude, lambda r: (M(r, 4),), 0),
    ("ramp_energy", ramp_energy, lambda r: (0.7, 2.0), 0),
    ("loss_with_flag_on", loss_with_flag, lambda r: (np.array([0.5, -1.5, 2.0]), True), 0),
    ("loss_with_flag_off", loss_with_flag, lambda r: (np.array([0.5, -1.5, 2.0]), False), 0),
    ("sinc_guarded", sinc_guarded, lambda r: (np.array([0.0, 0.7, -1.2]),), 0),
    ("sinc_unguarded_where", sinc_unguarded_where, lambda r: (np.array([0.0, 0.7, -1.2]),), 0),
    ("safe_norm_cubed", safe_norm_cubed, lambda r: (np.zeros(3),), 0),
    ("relu_squared", relu_squared, lambda r: (np.array([0.0, 0.7, -1.2]),), 0),
    ("smooth_bump", smooth_bump, lambda r: (np.array([-0.5, 0.8, -1.2, 0.3]),), 0),
    ("ridge_large", ridge_large, lambda r: (0.3 * M(r, 60), M(r, 20, 60), M(r, 20)), 0),
    ("total_variation_large", total_variation_large, lambda r: (M(r, 64),), 0),
    ("loop_smoother_large", loop_smoother_large, lambda r: (M(r, 70),), 0),
    ("normalize_along_0", normalize_along, lambda r: (M(r, 3, 3), 0), 0),
    ("normalize_along_1", normalize_along, lambda r: (M(r, 3, 3), 1), 0),
    ("masked_mse_none", masked_mse, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6), None), 0),
    ("masked_mse_mask", masked_mse, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6), np.array([1., 0, 1, 1, 0, 1])), 0),
    ("unrolled_2", unrolled, lambda r: (M(r, 3), 2), 0),
    ("unrolled_5", unrolled, lambda r: (M(r, 3), 5), 0),
    ("running_rows", running_rows, lambda r: (M(r, 3),), 0),
    ("buffer_halves", buffer_halves, lambda r: (M(r, 3),), 0),
    ("rebound_then_written", rebound_then_written, lambda r: (M(r, 3),), 0),
    ("bias_add_vector", bias_add, lambda r: (M(r, 3, 4), M(r, 4)), 1),
    ("bias_add_one", bias_add, lambda r: (M(r, 3, 4), M(r, 1)), 1),
    ("bias_add_column", bias_add, lambda r: (M(r, 3, 4), M(r, 3, 1)), 1),
    ("bias_add_float", bias_add, lambda r: (M(r, 3, 4), 0.4), 1),
    ("scale_loss_float", scale_loss, lambda r: (1.3, M(r, 4)), 0),
    ("scale_loss_float64", scale_loss, lambda r: (np.float64(1.3), M(r, 4)), 0),
    ("scale_loss_0d", scale_loss, lambda r: (np.array(1.3), M(r, 4)), 0),
    ("activation_tanh", activation_loss, lambda r: (M(r, 4), "tanh"), 0),
    ("activation_softplus", activation_loss, lambda r: (M(r, 4), "softplus"), 0),
]
