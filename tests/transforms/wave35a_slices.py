"""Wave 35a: variants of a list's slice (test_wave35a.py runs each through every transformation against
float64 central differences): slices of lists of arrays and of tuples, a loop over a slice, slices joined,
bounds past the ends, a slice appended to, a slice read beside the list's items, comprehensions, max/min,
sorted and enumerate of a slice, reversed(...) of a slice in a loop and in sum, bounds a loop's counter gives.
"""

from __future__ import annotations

import numpy as np


def list_of_arrays(x):
    xs = [x, 2.0 * x, x * x]
    return np.sum(sum(xs[1:])) + np.sum(xs[-1] * xs[0])


def tuple_slice(x):
    t = (x[0], x[1] * 2.0, x[2] ** 2)
    a, b = t[1:]
    return a * b + t[0]


def loop_over_slice(x):
    xs = [1.0]
    for v in x:
        xs.append(xs[-1] * np.cos(v))
    s = 0.0
    for v in xs[1:]:
        s = s + v ** 2
    return s


def concat_slices(x):
    xs = [x[0], x[1], x[2] ** 2]
    ys = xs[1:] + xs[:1]
    return ys[0] * ys[2] + ys[1]


def out_of_range(x):
    xs = [x[0], x[1] * x[2], 3.0]
    ys = xs[-10:5]
    return sum(v * v for v in ys) + len(ys)


def append_to_slice(x):
    xs = [x[0], x[1], x[2]]
    ys = xs[:2]
    ys.append(x[2] ** 3)
    return ys[0] * ys[2] + xs[2]


def rows_then_slice(x):
    rows = list(x.reshape(2, 3))
    return np.sum(np.stack(rows[1:]) ** 2) + np.sum(rows[0] * rows[-1])


def slice_read_beside_item(x):
    xs = [x[0], x[1], x[2]]
    for _ in range(3):
        xs.append(xs[-1] * xs[-2])
    head = xs[:3]
    return sum(head) * xs[0] + xs[-1] + head[-1] * xs[2]


def comprehension_over_slice(x):
    hist = [0.5]
    for v in x:
        hist.append(np.tanh(hist[-1] + v))
    return sum([h * h for h in hist[-3:]])


def np_array_of_slice_of_args(x):
    xs = [x[0] ** 2, x[1], x[2] * x[0]]
    return np.sum(np.array(xs[::2]) * np.array([1.0, 3.0]))


def max_of_slice(x):
    xs = [x[0] ** 2, x[1], x[2] * x[0]]
    return max(xs[1:]) + min(xs[:2])


def slice_by_loop_bounds(x):
    xs = [x[0], x[1], x[2], x[0] * x[1]]
    tot = 0.0
    for i in range(1, 4):
        tot = tot + sum(xs[:i]) * xs[i]
    return tot


def sorted_slice(x):
    xs = [x[0], x[1] * 2, x[2] - 1.0]
    return sum(v * k for k, v in enumerate(sorted(xs[1:])))


def reversed_loop_slice(x):
    hist = [0.1, 0.2]
    for v in x:
        s = 0.0
        for k, h in enumerate(reversed(hist[-2:])):
            s = s + (k + 1) * h
        hist.append(np.sin(s + v))
    return hist[-1]


def sum_reversed_slice(x):
    hist = [0.1, 0.2]
    for v in x:
        hist.append(np.sin(sum(reversed(hist[-2:])) * v))
    return hist[-1] + hist[-2]


def enumerate_slice(x):
    hist = [1.0, 0.5]
    for v in x:
        hist.append(sum(w * h for w, h in zip((0.6, 0.3), hist[:-3:-1])) * np.exp(v))
    return np.log(hist[-1])


SLICES = [
    ("list_of_arrays", list_of_arrays, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("tuple_slice", tuple_slice, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("loop_over_slice", loop_over_slice, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("concat_slices", concat_slices, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("out_of_range", out_of_range, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("append_to_slice", append_to_slice, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("rows_then_slice", rows_then_slice, lambda r: (0.5 + 0.3 * r.normal(size=6),), 0),
    ("slice_read_beside_item", slice_read_beside_item, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("comprehension_over_slice", comprehension_over_slice, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("np_array_of_slice_of_args", np_array_of_slice_of_args, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("max_of_slice", max_of_slice, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("slice_by_loop_bounds", slice_by_loop_bounds, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("sorted_slice", sorted_slice, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("reversed_loop_slice", reversed_loop_slice, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("sum_reversed_slice", sum_reversed_slice, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
    ("enumerate_slice", enumerate_slice, lambda r: (0.5 + 0.3 * r.normal(size=3),), 0),
]
