"""Wave 32n: sums of a list whose adjoint items are then added into in place (test_wave32n.py).

``sum(ys)``'s adjoint is its gradient once per item; ``ys_bar[-1] += ...`` then adds into one item.
Shared by every item, one array took each add: a silently wrong gradient."""

from __future__ import annotations

import numpy as np


def V(r, n=3):
    return r.normal(size=n)


def running_total(x):  # each step adds the total so far to the last
    ys = [x]
    for _ in range(3):
        ys.append(ys[-1] + sum(ys))
    return np.sum(ys[-1])


def history_sum_scaled(x):
    ys = [x]
    for _ in range(4):
        ys.append(np.sin(ys[-1]) * 0.5 + 0.1 * np.sum(sum(ys)))
    return np.sum(np.stack(ys) ** 2)


def first_and_total(x):  # ys[0] beside the total
    ys = [x]
    for _ in range(3):
        ys.append(np.tanh(ys[-1]) + 0.2 * ys[0] * np.sum(sum(ys)))
    return np.sum(ys[-1] ** 2)


def straight_line_total(x):
    parts = [x, np.sin(x), x ** 2]
    total = sum(parts)
    parts[1] = parts[1] * 3.0
    return np.sum(total * parts[0]) + np.sum(parts[1])


def mean_of_window(x):  # the mean of the last items, read with the last
    hs = [x, 0.5 * x]
    for _ in range(3):
        hs.append(np.cos(hs[-1]) + sum(hs[-2:]) / 2.0)
    return np.sum(hs[-1] * hs[-2])


def scalar_total(a):  # numbers, not arrays
    xs = [a[0], a[1]]
    for _ in range(3):
        xs.append(xs[-1] * 0.5 + sum(xs))
    return xs[-1] * a[2]


def helper_total(x):
    def step(ys):
        return ys[-1] * 0.9 + sum(ys) * 0.1
    ys = [x]
    for _ in range(3):
        ys.append(step(ys))
    return np.sum(ys[-1] ** 2)


PROGRAMS = [
    ("running_total", running_total, lambda r: (V(r),), 0),
    ("history_sum_scaled", history_sum_scaled, lambda r: (V(r),), 0),
    ("first_and_total", first_and_total, lambda r: (0.5 * V(r),), 0),
    ("straight_line_total", straight_line_total, lambda r: (V(r),), 0),
    ("mean_of_window", mean_of_window, lambda r: (V(r),), 0),
    ("scalar_total", scalar_total, lambda r: (V(r),), 0),
    ("helper_total", helper_total, lambda r: (0.5 * V(r),), 0),
]
