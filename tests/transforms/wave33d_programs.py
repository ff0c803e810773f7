"""Wave 33d: programs for the closure of srcdiff.vmap (test_wave33d.py), written as users write
per-example gradients, batched ODE solves, per-row Newton iterations and batched Hessians.

`PROGRAMS` rows are ``(func, make, wrts)``: ``make(rng, size)`` gives the arguments and in_axes of a
batch of `size` examples, `wrts` the parameters differentiated.  Each program is mapped as itself
(vmap(f)), as its gradient (vmap(grad(f))) and as value_and_grad (vmap_checks.census_outcome).
"""

from __future__ import annotations

import math

import numpy as np

N = 3


def loss_args(r, b):
    return (r.normal(size=N), r.normal(size=(b, N)), r.normal(size=b)), (None, 0, 0)


def vectors_args(r, b):
    return (r.normal(size=N), r.normal(size=(b, N))), (None, 0)


def positive_args(r, b):
    return (r.normal(size=N) * 0.3, np.abs(r.normal(size=(b, N))) + 0.5), (None, 0)


def matrices_args(r, b):
    return (r.normal(size=N), r.normal(size=(b, N, N)) / 2 + 2.0 * np.eye(N), r.normal(size=(b, N))), (None, 0, 0)


def tall_args(r, b):
    return (r.normal(size=N), r.normal(size=(b, N + 2, N)), r.normal(size=(b, N + 2))), (None, 0, 0)


def layer_args(r, b):
    made = (r.normal(size=(N, 4)) / 2, r.normal(size=4) / 2, r.normal(size=(b, N)), r.normal(size=b))
    return made, (None, None, 0, 0)


# ---- builtin max / min of array elements (each example picks its own side) ----

def hinge_builtin(w, x, y):
    return max(0.0, 1.0 - y * (x @ w)) ** 2


def relu_of_elements(w, x):
    return max(x[0] * w[0], 0.0) ** 2 + min(x[1] * w[1], 1.0) + x[2] * w[2]


def clipped_margin(w, x, y):
    z = x @ w
    return min(max(z * y, -1.0), 1.0) ** 2 + 0.1 * z * z


def max_of_two_elements(w, x):
    return max(x[0] * w[0], x[1] * w[1]) * w[2] + min(x[2], x[0]) * w[1]


def max_with_int_zero(w, x):
    a = np.dot(x, w)
    return max(a, 0) * a + max(0, x[1] - w[1]) ** 2


def running_max(w, x):
    best = x[0] * w[0]
    for i in range(1, N):
        best = max(best, x[i] * w[i])
    return best * np.sum(w * x)


def soft_relu_mlp(W, b, x, y):
    h = np.tanh(x @ W + b)
    out = 0.0
    for j in range(4):
        out = out + max(h[j], 0.1 * h[j])
    return (out - y) ** 2


# ---- losses of one example (batched) ----

def squared_error(w, x, y):
    return (x @ w - y) ** 2 + 0.01 * np.sum(w * w)


def softplus_nll(w, x, y):
    z = x @ w
    return np.logaddexp(0.0, z) - y * z


def log_cosh(w, x, y):
    r = x @ w - y
    return np.log(np.cosh(r))


def mlp_loss(W, b, x, y):
    h = np.tanh(x @ W + b)
    return (np.sum(h) - y) ** 2


def softmax_ce(w, x):
    z = x * w
    return -z[0] + np.log(np.sum(np.exp(z)))


# ---- per-row Newton iterations and root finding ----

def newton_fixed_count(w, x):
    """The square root of each a_j by six Newton steps (the same count for every example)."""
    a = x * np.exp(w)
    r = np.ones(N)
    for _ in range(6):
        r = 0.5 * (r + a / r)
    return np.sum(r)


def newton_until_converged(w, x):
    """A per-example while loop: each example needs its own number of steps."""
    a = float(np.sum(x * x)) + math.exp(w[0])
    r = 1.0
    while abs(r * r - a) > 1e-12 * a:
        r = 0.5 * (r + a / r)
    return r * w[1] + w[2]


def bisection_root(w, x):
    """x[0] t^3 + t - c = 0 by bisection until the bracket is small: a per-example trip count."""
    c = float(x[1] + 2.0 + w[0])
    lo, hi = -10.0, 10.0
    while hi - lo > 1e-9 * (1.0 + abs(c)) * (1.0 + abs(x[0])):
        mid = 0.5 * (lo + hi)
        if abs(x[0]) * mid ** 3 + mid - c > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi) * w[1]


def fixed_point_while(w, x):
    """t = cos(a t) iterated until it stops moving (examples differ in steps)."""
    a = 0.5 + 0.2 * math.tanh(float(x[0] * w[0]))
    t, prev = 1.0, 0.0
    while abs(t - prev) > 1e-13:
        prev = t
        t = math.cos(a * t)
    return t * w[1] + x[1] * w[2]


# ---- batched ODE solves ----

def euler_decay(w, x):
    y = x.copy()
    dt = 0.05
    for _ in range(20):
        y = y + dt * (-w * y + np.sin(y))
    return np.sum(y ** 2)


def rk4_oscillator(w, x):
    def rhs(s):
        return np.array([s[1], -w[0] * s[0] - w[1] * s[1] + w[2] * np.sin(s[0])])

    s = x[:2].copy()
    h = 0.1
    for _ in range(10):
        k1 = rhs(s)
        k2 = rhs(s + 0.5 * h * k1)
        k3 = rhs(s + 0.5 * h * k2)
        k4 = rhs(s + h * k3)
        s = s + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return s[0] ** 2 + s[1] + x[2]


def adaptive_until_time(w, x):
    """Euler steps until t reaches 1 with a step that depends on the example: per-example trip count."""
    y, t = float(x[0]), 0.0
    h = 0.1 / (1.0 + abs(float(x[1])))
    while t < 1.0:
        y = y + h * (-w[0] * y + w[1])
        t = t + h
    return y * y + w[2] * x[2]


# ---- linear algebra inside ----

def solve_inside(w, A, b):
    sol = np.linalg.solve(A + np.diag(w * w), b)
    return np.sum(sol ** 2)


def lstsq_inside(w, A, b):
    sol, residuals, rank, sv = np.linalg.lstsq(A * w, b, rcond=None)
    return np.sum(sol ** 2)


def lstsq_first(w, A, b):
    return np.sum(np.linalg.lstsq(A * (1.0 + w * w), b, rcond=None)[0] * w)


def inverse_quadratic(w, A, b):
    return b @ np.linalg.inv(A + np.outer(w, w)) @ b


# ---- batched Hessian ingredients (a function whose Hessian vmap maps) ----

def quartic(x, c):
    return np.sum(x ** 4) * c[0] + np.sum(np.sin(x) * c) + x[0] * x[1] * c[2]


def quartic_args(r, b):
    return (r.normal(size=(b, N)), r.normal(size=(b, N))), (0, 0)


PROGRAMS = [
    (hinge_builtin, loss_args, (0, 1)),
    (relu_of_elements, vectors_args, (0, 1)),
    (clipped_margin, loss_args, (0, 1)),
    (max_of_two_elements, vectors_args, (0, 1)),
    (max_with_int_zero, vectors_args, (0, 1)),
    (running_max, vectors_args, (0, 1)),
    (soft_relu_mlp, layer_args, (0, 2)),
    (squared_error, loss_args, (0, 1)),
    (softplus_nll, loss_args, (0,)),
    (log_cosh, loss_args, (0, 2)),
    (mlp_loss, layer_args, (0, 1)),
    (softmax_ce, vectors_args, (0, 1)),
    (newton_fixed_count, positive_args, (0, 1)),
    (newton_until_converged, vectors_args, (0, 1)),
    (bisection_root, vectors_args, (0,)),
    (fixed_point_while, vectors_args, (0, 1)),
    (euler_decay, positive_args, (0, 1)),
    (rk4_oscillator, vectors_args, (0, 1)),
    (adaptive_until_time, vectors_args, (0,)),
    (solve_inside, matrices_args, (0, 1, 2)),
    (lstsq_inside, tall_args, (0, 1, 2)),
    (lstsq_first, tall_args, (0, 2)),
    (inverse_quadratic, matrices_args, (0, 1)),
    (quartic, quartic_args, (0, 1)),
]

#: programs whose control flow differs between examples (a while loop's trip count): one example at a time
PER_EXAMPLE = {"newton_until_converged", "bisection_root", "fixed_point_while", "adaptive_until_time"}


# ---- compositions: hvp and jvp inside the mapped function, has_aux with a dict aux ----

def hvp_of_quartic(x, v, c):
    import srcdiff
    return srcdiff.hvp(quartic, x, v, c)


def jvp_of_quartic(x, v, c):
    import srcdiff
    return srcdiff.jvp(quartic, (x, c), (v, np.zeros(N)))[1]


def loss_with_dict_aux(w, x, y):
    z = x @ w
    r = z - y
    return r * r, {"residual": r, "prediction": z}


def loss_with_dict_aux_named(w, x, y):
    z = x @ w
    aux = {"margin": y * z, "abs": np.abs(z - y)}
    return (z - y) ** 2 + 0.1 * np.sum(w * w), aux


def loss_with_tuple_aux(w, x, y):
    z = np.tanh(x @ w)
    return (z - y) ** 2, (z, x * w)
