"""The red team's twenty-sixth wave, second pass: spellings nearer the edges (boolean masks,
reversed and strided loops, breaks, 3-D batches, sorts, recursion, reduce, item(), meshgrids,
float32 meeting float64 constants), written as users write them (test_redteam_wave26.py)."""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import logsumexp

from .redteam_wave26_draws import F, M, P

W3 = np.array([0.5, -1.0, 2.0])


def positive_part_mask(x):
    return np.sum(x[x > 0] ** 2) + np.sum(np.exp(x[x <= 0]))


def where_indices(x):
    idx = np.where(x > 0.0)[0]
    return np.sum(x[idx] ** 3)


def reversed_loop_write(x):
    y = np.zeros_like(x)
    acc = 0.0
    for i in range(len(x) - 1, -1, -1):
        acc = 0.5 * acc + x[i]
        y[i] = acc
    return np.sum(y**2)


def strided_pairs(x):
    return np.sum(x[::2] * x[1::2]) + np.sum(x[::-1] * np.arange(x.size))


def loop_with_break(x):
    total = 0.0
    for v in x:
        if v > 1.5:
            break
        total = total + v * v
    return total


def while_true_break(a):
    x = 1.0
    n = 0
    while True:
        x = x - (x * x - a) / (2 * x)
        n += 1
        if n >= 8:
            break
    return x


def batched_matmul(A, B):
    C = np.einsum("bij,bjk->bik", A, B)
    return np.sum(np.tanh(C))


def batched_at(A, v):
    return np.sum((A @ v[:, :, None]) ** 2)


def batched_solve(A, b):
    x = np.linalg.solve(A + 3 * np.eye(2), b[..., None])
    return np.sum(x**2)


def top_two_sorted(x):
    s = np.sort(x)
    return s[-1] + 0.5 * s[-2]


def argsort_weights(x):
    order = np.argsort(x)
    return np.sum(x[order] * np.arange(1.0, x.size + 1))


def fib_like(x, n=5):
    if n <= 1:
        return x
    return fib_like(x, n - 1) * 0.5 + np.sin(fib_like(x, n - 2))


def recursive_total(x):
    return np.sum(fib_like(x))


def reduce_product(x):
    return functools.reduce(lambda a, b: a * b + 0.1, list(x), 1.0)


def item_and_float(x):
    s = float(np.sum(x**2))
    m = x.mean().item()
    return s * m + math.sqrt(s)


def meshgrid_field(c):
    gx, gy = np.meshgrid(np.linspace(-1, 1, 4), np.linspace(-1, 1, 3))
    return np.sum(np.exp(-((gx - c[0]) ** 2 + (gy - c[1]) ** 2)))


def float32_meets_float64(x):
    y = x * W3  # float32 * float64 global: float64
    return np.sum(np.sin(y)) + np.sum(x * 0.1)


def astype_float64_inside(x):
    return np.sum(np.tanh(x.astype(np.float64)) * 2.0)


def ndim_branch(x):
    if x.ndim == 1:
        x = x[None, :]
    return np.sum(x @ x.T)


def atleast_2d_outer(x, y):
    return np.sum(np.atleast_2d(x).T * np.atleast_2d(y))


def reshape_outer(x, y):
    return np.sum(np.sin(x.reshape(-1, 1) * y.reshape(1, -1)))


def kron_trace(A, B):
    return np.trace(np.kron(A, B) @ np.kron(B, A))


def logaddexp_reduce(x):
    return np.logaddexp.reduce(x)


def scipy_logsumexp_weights(x, w):
    return logsumexp(x, b=w)


def eigvalsh_top(S):
    A = S + S.T
    return np.linalg.eigvalsh(A)[-1]


def logdet_2x2(A):
    return np.log(np.linalg.det(A @ A.T + np.eye(2)))


def list_of_arrays_sum(x):
    parts = []
    for k in range(3):
        parts.append(np.roll(x, k) * (k + 1))
    return np.sum(sum(parts) ** 2)


def python_max_min(x):
    a, b, c = x[0], x[1], x[2]
    return max(a, b) * min(b, c) + abs(c)


def shape_unpack_loops(X, w):
    n, d = X.shape
    out = 0.0
    for i in range(n):
        s = 0.0
        for j in range(d):
            s += X[i, j] * w[j]
        out += math.tanh(s)
    return out


def rng_inside(w):
    noise = np.random.default_rng(0).standard_normal(3)
    return np.sum((w - noise) ** 2)


def interp_curve(y):
    xp = np.linspace(0.0, 1.0, y.size)
    return np.sum(np.interp(np.array([0.15, 0.5, 0.82]), xp, y) ** 2)


def rfft_power(x):
    X = np.fft.rfft(x)
    return np.sum(np.abs(X) ** 2) / x.size


def cumprod_signs(x):
    return np.sum(np.cumprod(x))


def einsum_trace(A):
    return np.einsum("ii->", A @ A) + np.einsum("ij,ij->", A, A)


def moveaxis_stack(A):
    S = np.stack([A, A**2, np.sin(A)], axis=-1)
    return np.sum(np.moveaxis(S, -1, 0)[1] * A)


def column_matrix_quadratic(x, A):
    return (x.T @ A @ x).item() + float(x[0, 0])


def dict_of_tuples(params, x):
    W, b = params["layer"]
    return np.sum(np.tanh(x @ W + b))


def nested_list_params(layers, x):
    h = x
    for W, b in layers:
        h = np.tanh(h @ W + b)
    return np.sum(h)


def nonlocal_counter(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v * v

    for v in x:
        add(v)
    return total


def generator_over_dict(params):
    return sum(np.sum(v**2) * (i + 1) for i, v in enumerate(params.values()))


def softmax_temperature(x, T):
    z = x / T
    p = np.exp(z - z.max())
    p = p / p.sum()
    return p @ x


def gather_rows_repeat(E, idx):
    return np.sum(E[idx] ** 2) + np.sum(E[idx[::-1]] * E[idx])


def float32_item_division(x):
    return np.sum(x) / np.float32(len(x)) + x.max()


def arange_float_steps(x):
    t = np.arange(0.0, 1.0, 0.25)
    return np.sum(np.sin(x[:, None] * t[None, :]))


def clip_active_and_not(x):
    return np.sum(np.clip(x, -0.5, 0.5) ** 2) + np.sum(np.clip(x, -10, 10))


def tuple_returning_helper_loop(x0, v0):
    def step(x, v):
        a = -np.sin(x)
        return x + 0.1 * v, v + 0.1 * a

    x, v = x0, v0
    traj = []
    for _ in range(5):
        x, v = step(x, v)
        traj.append(x)
    return np.sum(np.array(traj) ** 2)


def scalar_param_float32_array(s, x):
    return np.sum(np.exp(s * x))


def _layers(r):
    return [(M(r, 3, 3), M(r, 3)), (M(r, 3, 2), M(r, 2))]


EDGES = [
    ("positive_part_mask", positive_part_mask, lambda r: (M(r, 6),), 0),
    ("where_indices", where_indices, lambda r: (M(r, 6),), 0),
    ("reversed_loop_write", reversed_loop_write, lambda r: (M(r, 5),), 0),
    ("strided_pairs", strided_pairs, lambda r: (M(r, 6),), 0),
    ("loop_with_break", loop_with_break, lambda r: (np.array([0.3, -0.8, 1.1, 1.9, 0.2]),), 0),
    ("while_true_break", while_true_break, lambda r: (2.3,), 0),
    ("batched_matmul", batched_matmul, lambda r: (M(r, 2, 3, 2), M(r, 2, 2, 3)), 0),
    ("batched_matmul_B", batched_matmul, lambda r: (M(r, 2, 3, 2), M(r, 2, 2, 3)), 1),
    ("batched_at", batched_at, lambda r: (M(r, 2, 3, 3), M(r, 2, 3)), 1),
    ("batched_solve", batched_solve, lambda r: (M(r, 2, 2, 2), M(r, 2, 2)), 0),
    ("top_two_sorted", top_two_sorted, lambda r: (np.array([0.3, 1.2, -0.5, 2.1]),), 0),
    ("argsort_weights", argsort_weights, lambda r: (M(r, 5),), 0),
    ("recursive_total", recursive_total, lambda r: (M(r, 3),), 0),
    ("reduce_product", reduce_product, lambda r: (M(r, 4),), 0),
    ("item_and_float", item_and_float, lambda r: (P(r, 3),), 0),
    ("meshgrid_field", meshgrid_field, lambda r: (np.array([0.2, -0.3]),), 0),
    ("float32_meets_float64", float32_meets_float64, lambda r: (F(r, 3),), 0),
    ("astype_float64_inside", astype_float64_inside, lambda r: (F(r, 3),), 0),
    ("ndim_branch", ndim_branch, lambda r: (M(r, 3),), 0),
    ("ndim_branch_2d", ndim_branch, lambda r: (M(r, 2, 3),), 0),
    ("atleast_2d_outer", atleast_2d_outer, lambda r: (M(r, 3), M(r, 2)), 0),
    ("reshape_outer", reshape_outer, lambda r: (M(r, 3), M(r, 2)), 1),
    ("kron_trace", kron_trace, lambda r: (M(r, 2, 2), M(r, 2, 2)), 0),
    ("logaddexp_reduce", logaddexp_reduce, lambda r: (M(r, 4),), 0),
    ("scipy_logsumexp_weights", scipy_logsumexp_weights, lambda r: (M(r, 4), P(r, 4)), 0),
    ("scipy_logsumexp_weights_w", scipy_logsumexp_weights, lambda r: (M(r, 4), P(r, 4)), 1),
    ("eigvalsh_top", eigvalsh_top, lambda r: (M(r, 3, 3),), 0),
    ("logdet_2x2", logdet_2x2, lambda r: (M(r, 2, 2),), 0),
    ("list_of_arrays_sum", list_of_arrays_sum, lambda r: (M(r, 4),), 0),
    ("python_max_min", python_max_min, lambda r: (np.array([0.3, 1.2, -0.7]),), 0),
    ("shape_unpack_loops", shape_unpack_loops, lambda r: (M(r, 3, 2), M(r, 2)), 1),
    ("shape_unpack_loops_X", shape_unpack_loops, lambda r: (M(r, 3, 2), M(r, 2)), 0),
    ("rng_inside", rng_inside, lambda r: (M(r, 3),), 0),
    ("interp_curve", interp_curve, lambda r: (M(r, 5),), 0),
    ("rfft_power", rfft_power, lambda r: (M(r, 6),), 0),
    ("cumprod_signs", cumprod_signs, lambda r: (np.array([0.7, -1.3, 0.4, 2.0]),), 0),
    ("einsum_trace", einsum_trace, lambda r: (M(r, 3, 3),), 0),
    ("moveaxis_stack", moveaxis_stack, lambda r: (M(r, 2, 3),), 0),
    ("column_matrix_quadratic", column_matrix_quadratic, lambda r: (M(r, 3, 1), np.eye(3) + 0.3), 0),
    ("dict_of_tuples", dict_of_tuples, lambda r: ({"layer": (M(r, 3, 2), M(r, 2))}, M(r, 4, 3)), 0),
    ("nested_list_params", nested_list_params, lambda r: (_layers(r), M(r, 2, 3)), 0),
    ("nonlocal_counter", nonlocal_counter, lambda r: (M(r, 3),), 0),
    ("generator_over_dict", generator_over_dict, lambda r: ({"a": M(r, 2), "b": M(r, 3)},), 0),
    ("softmax_temperature", softmax_temperature, lambda r: (M(r, 4), 0.7), 1),
    ("gather_rows_repeat", gather_rows_repeat, lambda r: (M(r, 4, 2), np.array([0, 2, 2, 3])), 0),
    ("float32_item_division", float32_item_division, lambda r: (F(r, 4),), 0),
    ("arange_float_steps", arange_float_steps, lambda r: (M(r, 3),), 0),
    ("clip_active_and_not", clip_active_and_not, lambda r: (np.array([0.2, -0.9, 0.7, -0.1]),), 0),
    ("tuple_returning_helper_loop", tuple_returning_helper_loop, lambda r: (M(r, 2), M(r, 2)), 1),
    ("scalar_param_float32_array", scalar_param_float32_array, lambda r: (0.3, F(r, 4)), 0),
    ("scalar_param_float32_array_x", scalar_param_float32_array, lambda r: (0.3, F(r, 4)), 1),
]
