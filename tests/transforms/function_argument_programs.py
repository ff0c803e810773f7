"""Helpers called with a function as an argument (an integrator given its right-hand side),
written as scientific code writes them; every transformation runs them (test_function_arguments.py)."""

import math

import numpy as np


def decay(t, y, k):
    return -k * y + 0.1 * np.sin(t)


def oscillator(t, y, w):
    return np.array([y[1], -w * w * y[0] - 0.1 * y[1]])


def rk4_step(f, t, y, h, p):
    k1 = f(t, y, p)
    k2 = f(t + h / 2, y + h / 2 * k1, p)
    k3 = f(t + h / 2, y + h / 2 * k2, p)
    k4 = f(t + h, y + h * k3, p)
    return t + h, y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def oscillator_rk4(w, y0):
    t, y = 0.0, y0
    for _ in range(5):
        t, y = rk4_step(oscillator, t, y, 0.1, w)
    return y[0] ** 2 + 0.5 * y[1] ** 2


def euler(y, h, p, rhs=decay, steps=4):
    for i in range(steps):
        y = y + h * rhs(i * h, y, p)
    return y


def decay_by_keyword(k, y0):
    return np.sum(euler(y0, 0.1, k, rhs=decay) ** 2)


def apply(act, W, x):
    return act(W @ x)


def twice(f, v):
    return 2.0 * f(v)


def layer_activations(W, x):
    return np.sum(apply(np.tanh, W, x)) + np.sum(apply(np.exp, 0.1 * W, x)) + twice(math.sin, W[0, 0] * x[0])


def integrate(f, y, p, n):
    t = 0.0
    for _ in range(n):
        t, y = rk4_step(f, t, y, 0.05, p)
    return y


def passed_through(k, y0):
    return np.sum(integrate(decay, y0, k, 3) ** 2)


def two_right_hand_sides(w, y0):
    _, a = rk4_step(oscillator, 0.0, y0, 0.1, w)
    _, b = rk4_step(decay, 0.0, y0, 0.1, w)
    return np.sum(a * b)


def midpoint(f, x, h):
    return x + h * f(x + h / 2 * f(x))


def half_sinh(x):
    return np.sinh(x) * 0.5


def flow_map(x):
    for _ in range(3):
        x = midpoint(half_sinh, x, 0.2)
    return np.sum(x ** 2)


# ---- functions looked up in a table by a constant or a static argument ----

ACTIVATIONS = {
    "gelu": lambda z: 0.5 * z * (1 + np.tanh(0.79788456 * (z + 0.044715 * z ** 3))),
    "swish": lambda z: z / (1 + np.exp(-z)),
}


def l2(w):
    return np.sum(w ** 2)


def l1_smooth(w):
    return np.sum(np.sqrt(w ** 2 + 1e-3))


PENALTIES = (l2, l1_smooth)
SQUASH = [np.tanh, np.arctan]


def table_activation(W, X, act="gelu"):
    return np.sum(ACTIVATIONS[act](X @ W) ** 2) + 0.1 * PENALTIES[1](W) + np.sum(SQUASH[0](W))


def table_activation_swish(W, X):
    return table_activation(W, X, act="swish")


def M(r, *shape):
    return r.normal(size=shape) * 0.5


PROGRAMS = [
    ("oscillator_rk4", oscillator_rk4, lambda r: (1.3, M(r, 2)), 0),
    ("oscillator_rk4_y0", oscillator_rk4, lambda r: (1.3, M(r, 2)), 1),
    ("decay_by_keyword", decay_by_keyword, lambda r: (0.7, M(r, 3)), 0),
    ("layer_activations", layer_activations, lambda r: (M(r, 3, 4), M(r, 4)), 0),
    ("passed_through", passed_through, lambda r: (0.7, M(r, 3)), 1),
    ("two_right_hand_sides", two_right_hand_sides, lambda r: (1.1, M(r, 2)), 0),
    ("flow_map", flow_map, lambda r: (M(r, 3),), 0),
    ("table_activation", table_activation, lambda r: (M(r, 3, 2), M(r, 4, 3)), 0),
    ("table_activation_swish", table_activation_swish, lambda r: (M(r, 3, 2), M(r, 4, 3)), 0),
]


def table_by_computed_key(W, X):
    key = "gelu" if np.sum(W) > 0 else "swish"  # decided by the values: no one function
    return np.sum(ACTIVATIONS[key](X @ W))
