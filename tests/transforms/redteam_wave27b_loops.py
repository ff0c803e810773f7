"""Wave 27b's third finding: loops whose values change their number of axes from one iteration to
another (test_redteam_wave27b.py).  A fixed-point iteration stopped by ``break`` keeps its last
iterate in a name that is None before the loop; momentum started from ``v = None``.  The batched
code of the Jacobian, the Hessian and vmap took each value's number of axes from one run of the
code (driver/batched.py's probe), by its last value: the backward loop's adjoint of such a name is a
number on its last iteration and an array on the others, so the other iterations were batched with
the wrong axes (a crash, or a silently wrong Hessian)."""

from __future__ import annotations

import numpy as np


def fixed_point_break(a, x):
    z = np.zeros_like(x)
    for _ in range(50):
        z_new = np.tanh(a * z + x)
        if np.max(np.abs(z_new - z)) < 1e-10:
            break
        z = z_new
    return np.sum(z_new)


def momentum_first_step_none(w, X):
    v = None
    for row in X:
        g = np.tanh(row * w)
        v = g if v is None else 0.9 * v + g
        w = w - 0.1 * v
    return np.sum(w**2)


def newton_sqrt_break(a, x):
    z = x
    for _ in range(30):
        z_next = 0.5 * (z + a / z)
        if np.all(np.abs(z_next - z) < 1e-12):
            break
        z = z_next
    return np.sum(z_next * x)


def early_stop_on_loss(w, X, y):
    for _ in range(20):
        r = X @ w - y
        loss = np.sum(r**2)
        if loss < 1e-3:
            break
        w = w - 0.05 * X.T @ r
    return loss + np.sum(w)


def previous_hidden_none(W, xs, y):
    prev = None
    total = 0.0
    for x in xs:
        h = np.tanh(W @ x)
        if prev is not None:
            total = total + np.sum((h - prev) ** 2)
        prev = h
    return total + np.sum(prev * y)


def M(r, *shape):
    return r.standard_normal(shape)


PROGRAMS = [
    ("fixed_point_break", fixed_point_break, lambda r: (0.5, M(r, 3)), 0),
    ("momentum_first_step_none", momentum_first_step_none, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("fixed_point_break_x", fixed_point_break, lambda r: (0.5, M(r, 3)), 1),
    ("newton_sqrt_break", newton_sqrt_break, lambda r: (2.0, 1.0 + np.abs(M(r, 3))), 0),
    ("newton_sqrt_break_x", newton_sqrt_break, lambda r: (2.0, 1.0 + np.abs(M(r, 3))), 1),
    ("early_stop_on_loss", early_stop_on_loss, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("previous_hidden_none", previous_hidden_none, lambda r: (0.5 * M(r, 3, 2), M(r, 4, 2), M(r, 3)), 0),
]
