"""The red team's sixteenth wave, continued: Python's own gotchas in numeric code, where srcdiff must keep
Python's meaning (lambdas made in a comprehension that all see the loop's last value, builtins shadowed
by a local name or by a function of the module, a view taken before a write and read after it, a
star-unpacked array, chained comparisons, ``sum`` of a filtered generator, keys built with f-strings as
CS231n-style code does (``params[f"W{i}"]``), ``getattr`` of a name, an object whose attribute the
function updates, ``round(x, 2)``, a nested function appending to the outer list, a 0-d accumulator
updated in place).  See redteam_wave16.py.
"""

from __future__ import annotations

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


def late_binding_lambdas(x):
    fs = [lambda t: t * k for k in range(1, 4)]  # noqa: B023  every lambda sees k == 3
    return sum(f(x) for f in fs) ** 2


def late_binding_defaults(x):
    fs = [lambda t, k=k: t * k for k in range(1, 4)]
    return sum(f(x) for f in fs) ** 2


def exp(v):  # the module's own exp, shadowing nothing NumPy has, read by name below
    return 1.0 + v + 0.5 * v * v


def module_function_named_exp(x):
    return np.sum(exp(x) * x)


def local_shadows_builtin(x):
    sum = 0.0  # noqa: A001  as novices write it
    for v in x:
        sum += v * v
    max = x[0]  # noqa: A001
    for v in x[1:]:
        if v > max:
            max = v
    return sum + max


def local_function_named_abs(x):
    def abs(v):  # noqa: A001
        return v * v
    return np.sum(abs(x))


def parameter_named_like_numpy(x, sqrt=np.square):
    return np.sum(sqrt(x))


def view_before_write(x):
    y = np.zeros(4)
    v = y[:2]
    y[0] = x[0] ** 2
    y[1] = x[1]
    return np.sum(v * 3.0) + np.sum(y)


def view_of_copy_before_inplace(x):
    y = x.copy()
    head = y[:2]
    y *= 2.0
    return np.sum(head ** 2)


def star_unpack(x):
    first, *middle, last = x
    return first * last + sum(m ** 2 for m in middle)


def chained_comparison(a, b):
    if 0.0 < a < 1.0 < b:
        return a * b ** 2
    return a + b


def filtered_generator(x):
    return sum(v ** 2 for v in x if v > 0) + sum(v for v in x if abs(v) < 0.5)


def cs231n_params(params, X, y, layers=2):
    h = X
    for i in range(1, layers + 1):
        h = h @ params[f"W{i}"] + params["b" + str(i)]
        if i < layers:
            h = np.maximum(h, 0.0)
    return np.mean((h[:, 0] - y) ** 2)


class Model:
    def __init__(self, w, b):
        self.w = w
        self.b = b
        self.calls = 0

    def loss(self, X, y):
        self.calls += 1
        return np.sum((X @ self.w + self.b - y) ** 2)


def getattr_by_name(m, X, y, names=("w", "b")):
    reg = sum(np.sum(getattr(m, n) ** 2) for n in names)
    return m.loss(X, y) + 0.1 * reg


def round_builtin(x):
    return np.sum(x ** 2) * round(1.2345, 2) + round(float(x[0]), 3) * 0.0


def nested_append(x):
    terms = []

    def add(t):
        terms.append(t)

    for v in x:
        add(v ** 3)
    return sum(terms)


def zero_d_accumulator(x):
    total = np.zeros(())
    for v in x:
        total += v * v
    return float(total)


def augmented_on_slice_of_copy(X):
    A = X.copy()
    A[:, 0] -= A[:, 1]
    A[1:] *= 0.5
    A -= A.mean(axis=0)
    return np.sum(A ** 2)


def swap_names(a, b):
    for _ in range(3):
        a, b = b, a + b
    return a * b


def is_none_switch(x, w=None):
    if w is None:
        w = np.ones_like(x)
    return np.sum(w * x ** 2)


def global_array_read(x):
    return np.sum(_TABLE * x) + np.sum(_TABLE[x.argmax()] * x)


_TABLE = np.array([0.5, -1.0, 2.0])


GOTCHAS16 = [
    ("w16_late_binding_lambdas", late_binding_lambdas, lambda r: (0.7,), 0),
    ("w16_late_binding_defaults", late_binding_defaults, lambda r: (0.7,), 0),
    ("w16_module_function_named_exp", module_function_named_exp, lambda r: (M(r, 3),), 0),
    ("w16_local_shadows_builtin", local_shadows_builtin, lambda r: (M(r, 4),), 0),
    ("w16_local_function_named_abs", local_function_named_abs, lambda r: (M(r, 3),), 0),
    ("w16_parameter_named_like_numpy", parameter_named_like_numpy, lambda r: (M(r, 3),), 0),
    ("w16_view_before_write", view_before_write, lambda r: (M(r, 2),), 0),
    ("w16_view_of_copy_before_inplace", view_of_copy_before_inplace, lambda r: (M(r, 3),), 0),
    ("w16_star_unpack", star_unpack, lambda r: (M(r, 5),), 0),
    ("w16_chained_comparison", chained_comparison, lambda r: (0.4, 1.5), 0),
    ("w16_chained_comparison_b", chained_comparison, lambda r: (0.4, 1.5), 1),
    ("w16_filtered_generator", filtered_generator, lambda r: (np.array([0.3, -1.0, 2.0, -0.2]),), 0),
    ("w16_cs231n_params", cs231n_params,
     lambda r: ({"W1": M(r, 3, 4), "b1": M(r, 4), "W2": M(r, 4, 2), "b2": M(r, 2)}, M(r, 5, 3), M(r, 5)), 0),
    ("w16_getattr_by_name", getattr_by_name, lambda r: (Model(M(r, 3), 0.5), M(r, 5, 3), M(r, 5)), 0),
    ("w16_round_builtin", round_builtin, lambda r: (M(r, 3),), 0),
    ("w16_nested_append", nested_append, lambda r: (M(r, 3),), 0),
    ("w16_zero_d_accumulator", zero_d_accumulator, lambda r: (M(r, 3),), 0),
    ("w16_augmented_on_slice_of_copy", augmented_on_slice_of_copy, lambda r: (M(r, 3, 3),), 0),
    ("w16_swap_names", swap_names, lambda r: (0.6, 1.1), 0),
    ("w16_is_none_switch", is_none_switch, lambda r: (M(r, 3),), 0),
    ("w16_global_array_read", global_array_read, lambda r: (np.array([0.3, 1.0, -0.5]),), 0),
]
