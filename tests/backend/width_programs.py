"""Float64 arguments meeting a float32 value made inside (a float32 number, an astype), written the ways
users write them: the optimised gradient must be the unoptimised one to float64's rounding."""

import numpy as np


def scalar_times_sum(w, X, y):
    r = y - X @ w
    s = np.float32(0.5)
    return np.sum((0.1 * 3.0) * r * r) + s * np.sum(r)


def pinball(w, X, y):
    r = y - X @ w
    tau = np.float32(0.3)
    return np.mean(np.maximum(tau * r, (tau - 1.0) * r))


def weight_decay(w, X, y):
    r = y - X @ w
    lam = np.float32(0.01)
    return np.sum(r ** 2) + lam * 0.5 * np.sum(w ** 2) + lam * np.sum(w)


def two_python_floats(w, X, y):
    r = y - X @ w
    k = np.float32(3.0)
    return np.sum(r * r) * (1.0 / k) * 0.7 + np.sum(r) * (0.1 + 0.2)


def sum_of_mean_and_float32_mean(w, X, y):
    r = y - X @ w
    m = np.mean(r.astype(np.float32))
    return np.sum(r * r) + m * np.sum(w)


def in_loop(w, X, y):
    r = y - X @ w
    s = np.float32(0.25)
    total = 0.0
    for k in range(3):
        total = total + s * np.sum(r) + 0.1 * k * np.sum(r * r)
    return total


def dtype_keyword(w, X, y):
    r = y - X @ w
    c = np.full(3, 0.5, dtype="float32")
    return np.sum(r * r) + np.sum(c * w) * np.sum(r)


def float32_data(w, X, y):
    """Data in float32 (a common ML setup), weights float64: the arguments mix widths."""
    r = y - X.astype(np.float32) @ w
    return np.sum(r * r) + np.float32(0.2) * np.sum(r)


PROGRAMS = [scalar_times_sum, pinball, weight_decay, two_python_floats, sum_of_mean_and_float32_mean, in_loop,
            dtype_keyword, float32_data]


def mean_of_scaled(w, X, y):
    r = y - X @ w
    tau = np.float32(0.3)
    return np.mean(tau * r) + np.sum(r * r) * 0.5


def sum_of_scaled_squares(w, X, y):
    r = y - X @ w
    h = np.float32(1.5)
    return np.sum(h * r * r) + np.sum(np.float32(0.7) * w)


def huber_float32_delta(w, X, y):
    r = y - X @ w
    d = np.float32(0.8)
    a = np.abs(r)
    return np.sum(np.where(a <= d, 0.5 * r * r, d * (a - 0.5 * d)))


PROGRAMS += [mean_of_scaled, sum_of_scaled_squares, huber_float32_delta]
