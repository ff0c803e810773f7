"""Programs jit="numba" refused at the user's line where the NumPy code differentiates them
(test_numba29.py): lists of arrays and numbers carried through a loop, values first assigned in a
loop or an inner loop under forward mode, a number before a loop made an array in it, a generator's
``choice``.  ``# OPEN`` marks the lines still refused (named by the refusal)."""

import numpy as np

A = np.array([[1.3, 0.2, -0.4], [0.1, 0.9, 0.3], [-0.2, 0.5, 1.1]])


def list_state(x):
    state = [x, np.dot(x, x)]
    for _ in range(3):
        state = [state[0] * 0.9 + np.sin(state[0]), state[1] * 0.5 + np.sum(state[0])]
    return np.sum(state[0]) + state[1]


def list_state_three(x):
    s = [x, 1.0, np.outer(x, x)]
    for _ in range(2):
        s = [np.tanh(s[0]) + s[1] * x, s[1] * 0.5 + np.sum(s[2]) * 0.1, s[2] * 0.5 + np.outer(s[0], x)]
    return np.sum(s[0] ** 2) + s[1] + np.sum(s[2])


def first_in_loop_branch(x):
    for k in range(3):
        if x[0] > 0:
            y = np.sin(x) * (k + 1)
        else:
            y = x * 2.0
    return np.sum(y * x)


def first_in_inner_loop(x):
    s = 0.0
    for i in range(2):
        for j in range(2):
            z = x * (i + j) + np.cos(x)
        s = s + np.sum(z * x)
    return s


def power_iteration(M):
    v = 1.0
    for _ in range(5):
        v = M @ (np.ones(3) * v)
        v = v / np.linalg.norm(v)
    return v @ M @ v


def rayleigh_norm(M):
    v = np.ones(3)
    lam = 1.0
    for _ in range(4):
        w = M @ v
        lam = np.linalg.norm(w)
        v = w / lam
    return lam


def drawn_choice(x):
    rng = np.random.default_rng(1)
    idx = rng.choice(3, size=5, replace=True)
    picked = rng.choice(np.array([0.5, 1.5, 2.5]), size=2)
    return np.sum(x[idx] ** 2) + np.sum(picked) * np.sum(x)


def sinkhorn_from_a_number(C):
    K = np.exp(-C)
    a = np.ones(3) / 3
    u = 1.0
    v = np.ones(3)
    for _ in range(5):
        u = a / (K @ v)
        v = a / (K.T @ u)
    return np.sum(u[:, None] * K * v[None, :] * C)


def squeezed(x):
    y = np.reshape(x, (1, 3, 1))
    return np.sum(np.squeeze(y) ** 2 * x)


def _x(r):
    return np.array([0.3, -0.5, 0.8]) + 0.05 * r.standard_normal(3)


def _m(r):
    return A + 0.05 * r.standard_normal((3, 3))


def _c(r):
    return np.abs(A) + 0.05 * np.abs(r.standard_normal((3, 3)))


PROGRAMS = [
    ("list_state", list_state, lambda r: (_x(r),), 0),
    ("list_state_three", list_state_three, lambda r: (_x(r),), 0),
    ("first_in_loop_branch", first_in_loop_branch, lambda r: (_x(r),), 0),
    ("first_in_inner_loop", first_in_inner_loop, lambda r: (_x(r),), 0),
    ("power_iteration", power_iteration, lambda r: (_m(r),), 0),
    ("rayleigh_norm", rayleigh_norm, lambda r: (_m(r),), 0),
    ("drawn_choice", drawn_choice, lambda r: (_x(r),), 0),
    ("sinkhorn_from_a_number", sinkhorn_from_a_number, lambda r: (_c(r),), 0),
    ("squeezed", squeezed, lambda r: (_x(r),), 0),
]
