"""Programs of the classes jit="numba" refused while grad differentiated them (red team waves 9
and 10), three or more variants each: a generator ``np.random.default_rng(seed)`` made inside
the function, ``try``/``except`` of a library error, float32 loops meeting Python floats, a list
written by index, ``np.add.at`` through an index array into a vector or a matrix,
``np.meshgrid``, and ``np.put_along_axis`` (a write through index arrays of several axes).
Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import numpy as np
import scipy.special

# ---- a generator made inside the function: its draws are constants of the function ------------


def dropout_mask_inside(W, X, rate=0.3):
    rng = np.random.default_rng(0)
    mask = rng.random((X.shape[0], W.shape[1])) > rate
    return np.mean((np.tanh(X @ W) * mask) ** 2)


def noise_sign_inside(x):
    rng = np.random.default_rng(1)
    keep = rng.normal(size=x.shape) > 0.0
    return np.sum(np.where(keep, np.sin(x), x ** 2))


def uniform_gate_keywords(x):
    gate = np.random.default_rng(2).uniform(low=-1.0, high=1.0, size=x.shape[0]) < 0.25
    return np.sum(np.exp(x) * gate) + np.sum(x ** 2)


def integer_coin_flips(w, X, y):
    rng = np.random.default_rng(3)
    heads = rng.integers(0, 2, size=X.shape[0]) == 1
    r = X @ w - y
    return np.mean(np.where(heads, r ** 2, np.abs(r)))


def draws_in_a_loop(x):
    rng = np.random.default_rng(4)
    total = 0.0
    for i in range(x.shape[0]):
        if rng.standard_normal() > -0.5:
            total = total + np.sin(x[i]) * (i + 1.0)
    return total


# ---- try/except of a library error -----------------------------------------------------------


def cholesky_with_fallback(A_raw, b):
    A = A_raw @ A_raw.T + 0.5 * np.eye(A_raw.shape[0])
    try:
        L = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        L = np.linalg.cholesky(A + 1e-3 * np.eye(A.shape[0]))
    z = np.linalg.solve(L, b)
    return z @ z + 2 * np.sum(np.log(np.diag(L)))


def solve_or_least_squares(A, b):
    try:
        s = np.linalg.solve(A, b)
    except np.linalg.LinAlgError:
        s = np.linalg.pinv(A) @ b
    return np.sum(s ** 2)


def inverse_or_damped(w, M):
    K = M * w[0]
    try:
        Kinv = np.linalg.inv(K)
    except (np.linalg.LinAlgError, ValueError):
        Kinv = np.linalg.inv(K + np.eye(K.shape[0]))
    return np.sum(Kinv) * w[1]


def root_or_zero_in_a_helper(x):
    return np.sum(_safe_cholesky_diag(np.outer(x, x) + np.diag(x ** 2 + 0.1)))


def _safe_cholesky_diag(A):
    try:
        d = np.diag(np.linalg.cholesky(A))
    except np.linalg.LinAlgError:
        d = np.sqrt(np.abs(np.diag(A)))
    return d


# ---- float32 loops where a float32 value meets a Python float -----------------------------------


def float32_leapfrog(q, dt=np.float32(0.05), steps=6):  # noqa: B008  a number
    p = np.zeros_like(q)
    for _ in range(steps):
        p = p - 0.5 * dt * np.sin(q)
        q = q + dt * p
        p = p - 0.5 * dt * np.sin(q)
    return np.sum(q ** 2 + p ** 2)


def float32_sinkhorn(C, eps=np.float32(0.5), iters=4):  # noqa: B008  a number
    n, m = C.shape
    f = np.zeros(n, dtype=C.dtype)
    g = np.zeros(m, dtype=C.dtype)
    for _ in range(iters):
        f = -eps * scipy.special.logsumexp((g[None, :] - C) / eps, axis=1) - eps * np.log(np.float32(n))
        g = -eps * scipy.special.logsumexp((f[:, None] - C) / eps, axis=0) - eps * np.log(np.float32(m))
    return np.sum(np.exp((f[:, None] + g[None, :] - C) / eps) * C)


def float32_decay(x, rate=np.float32(0.25)):  # noqa: B008  a number
    h = x
    for _ in range(4):
        h = h * (1.0 - rate) + 2.0 * rate * np.tanh(h)
    return np.sum(h ** 2)


def float32_heat_matrix(u, k=np.float32(0.2)):  # noqa: B008  a number
    for _ in range(3):
        u = u + k * (np.roll(u, 1, axis=0) - 2.0 * u + np.roll(u, -1, axis=0))
    return np.sum(u ** 2) * 0.5


# ---- a list written by index ----------------------------------------------------------------


def classifier_chain_reversed(W, x):
    preds = [0.0] * W.shape[0]
    carry = 0.0
    for k in reversed(range(W.shape[0])):
        preds[k] = scipy.special.expit(W[k] @ x + carry)
        carry = carry + preds[k]
    return sum(p * p for p in preds)


def list_slots_negative_index(x):
    vals = [0.0] * 3
    for i in range(3):
        vals[i] = x[i] * x[i]
    vals[-1] = vals[-1] + x[0]
    return vals[0] + vals[1] * vals[2]


def running_list_of_scalars(x):
    acc = [0.0, 0.0]
    for i in range(x.shape[0]):
        acc[i % 2] = acc[i % 2] + np.sin(x[i])
    return acc[0] * acc[1] + acc[-2]


# ---- np.add.at, np.meshgrid -------------------------------------------------------------------


def spring_forces_add_at(pos, edges, k=1.5):
    d = pos[edges[:, 1]] - pos[edges[:, 0]]
    f = np.zeros_like(pos)
    np.add.at(f, edges[:, 0], k * d)
    np.add.at(f, edges[:, 1], -k * d)
    return np.sum(f ** 2)


def scatter_vector_add_at(x, idx):
    out = np.zeros(3)
    np.add.at(out, idx, x)
    return np.sum(out ** 2)


def scatter_scalar_add_at(x, idx):
    counts = np.zeros(4)
    np.add.at(counts, idx, 1.0)
    return np.sum(x * counts) + np.sum(x ** 2)


def meshgrid_potential(centres, n=5):
    gx, gy = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n))
    total = 0.0
    for c in range(centres.shape[0]):
        total = total + np.sum(np.exp(-((gx - centres[c, 0]) ** 2 + (gy - centres[c, 1]) ** 2)))
    return total


def meshgrid_ij_field(w):
    a, b = np.meshgrid(np.arange(3.0), np.arange(4.0), indexing="ij")
    return np.sum(np.sin(w[0] * a + w[1] * b))


def meshgrid_of_three(w):
    a, b, c = np.meshgrid(np.arange(2.0), np.linspace(0.0, 1.0, 3), np.array([0.5, 1.5]))
    return np.sum((w[0] * a + w[1] * b * c) ** 2)


# ---- np.put_along_axis: a write through index arrays of several axes -------------------------


def label_smoothing_put_along_axis(W, X, labels, eps=0.1):
    logits = X @ W
    k = logits.shape[1]
    target = np.full_like(logits, eps / k)
    np.put_along_axis(target, labels[:, None], 1.0 - eps + eps / k, axis=1)
    logp = logits - scipy.special.logsumexp(logits, axis=1, keepdims=True)
    return -np.sum(target * logp) / len(labels)


def put_scores_along_rows(x, cols):
    out = np.zeros((3, 4))
    np.put_along_axis(out, cols, np.sin(x).reshape(3, 2), axis=1)
    return np.sum(out ** 2 * np.arange(1.0, 5.0))


def put_along_first_axis(x, rows):
    out = np.ones((3, 2))
    np.put_along_axis(out, rows, x[None, :] ** 2, axis=0)
    return np.sum(np.cumsum(out, axis=0))


def _m(rng, *shape):
    return rng.normal(size=shape)


SPD_OR_NOT = np.array([[1.0, 2.0], [2.0, 4.0]])  # singular: solve raises, the handler runs
EDGES = np.array([[0, 1], [1, 2], [2, 0], [1, 3]])

PROGRAMS = [
    ("dropout_mask_inside", dropout_mask_inside, lambda r: (_m(r, 3, 2), _m(r, 5, 3)), 0),
    ("noise_sign_inside", noise_sign_inside, lambda r: (_m(r, 6),), 0),
    ("uniform_gate_keywords", uniform_gate_keywords, lambda r: (_m(r, 8),), 0),
    ("integer_coin_flips", integer_coin_flips, lambda r: (_m(r, 3), _m(r, 7, 3), _m(r, 7)), 0),
    ("draws_in_a_loop", draws_in_a_loop, lambda r: (_m(r, 5),), 0),
    ("cholesky_with_fallback", cholesky_with_fallback, lambda r: (_m(r, 3, 3), _m(r, 3)), 0),
    ("solve_or_least_squares", solve_or_least_squares, lambda r: (np.eye(2) + 0.1 * _m(r, 2, 2), _m(r, 2)), 0),
    ("solve_or_least_squares_singular", solve_or_least_squares, lambda r: (SPD_OR_NOT, _m(r, 2)), 1),
    ("inverse_or_damped", inverse_or_damped, lambda r: (np.array([0.8, 1.3]), np.eye(3) + 0.2 * _m(r, 3, 3)), 0),
    ("inverse_or_damped_singular", inverse_or_damped, lambda r: (np.array([0.8, 1.3]), np.ones((3, 3))), 0),
    ("root_or_zero_in_a_helper", root_or_zero_in_a_helper, lambda r: (_m(r, 3),), 0),
    ("float32_leapfrog", float32_leapfrog, lambda r: (_m(r, 3).astype(np.float32),), 0),
    ("float32_sinkhorn", float32_sinkhorn, lambda r: (np.abs(_m(r, 3, 3)).astype(np.float32),), 0),
    ("float32_decay", float32_decay, lambda r: (_m(r, 4).astype(np.float32),), 0),
    ("float32_heat_matrix", float32_heat_matrix, lambda r: (_m(r, 4, 3).astype(np.float32),), 0),
    ("classifier_chain_reversed", classifier_chain_reversed, lambda r: (_m(r, 3, 2), _m(r, 2)), 0),
    ("list_slots_negative_index", list_slots_negative_index, lambda r: (_m(r, 3),), 0),
    ("running_list_of_scalars", running_list_of_scalars, lambda r: (_m(r, 5),), 0),
    ("spring_forces_add_at", spring_forces_add_at, lambda r: (_m(r, 4, 3), EDGES), 0),
    ("scatter_vector_add_at", scatter_vector_add_at, lambda r: (_m(r, 5), np.array([0, 2, 2, 1, -1])), 0),
    ("scatter_scalar_add_at", scatter_scalar_add_at, lambda r: (_m(r, 4), np.array([3, 0, 3, 3])), 0),
    ("meshgrid_potential", meshgrid_potential, lambda r: (0.5 * _m(r, 2, 2),), 0),
    ("meshgrid_ij_field", meshgrid_ij_field, lambda r: (_m(r, 2),), 0),
    ("meshgrid_of_three", meshgrid_of_three, lambda r: (_m(r, 2),), 0),
    ("label_smoothing_put_along_axis", label_smoothing_put_along_axis,
     lambda r: (_m(r, 3, 4), _m(r, 5, 3), np.array([0, 3, 1, 1, 2])), 0),
    ("put_scores_along_rows", put_scores_along_rows, lambda r: (_m(r, 6), np.array([[0, 2], [3, 1], [1, 0]])), 0),
    ("put_along_first_axis", put_along_first_axis, lambda r: (_m(r, 2), np.array([[2, 0]])), 0),
]
