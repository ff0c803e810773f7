"""The red team's sixteenth wave, continued: "novice" code (index loops ``for i in range(len(x))``, Python
floats accumulated with ``+=``, ``math.*`` functions, ``while`` loops with a tolerance, an early return
inside a loop, nested helper functions defined inside the function, default and keyword arguments,
``*args`` helpers, global constants, recursion on an int, a list of floats built then summed, ``x[i]``
read in nested loops, ``float()`` of a NumPy scalar, ``len()`` in arithmetic, a counter of positives).
See redteam_wave16.py.
"""

from __future__ import annotations

import math

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


GRAVITY = 9.81
WEIGHTS = [0.5, 1.0, 2.0]
CONFIG = {"lam": 0.1, "power": 3}


def index_loop_sum_squares(x):
    total = 0.0
    for i in range(len(x)):
        total += x[i] * x[i]
    return total


def index_loop_pairs(x):
    s = 0.0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            s += (x[i] - x[j]) ** 2 * (i + 1)
    return s


def math_functions(x):
    total = 0.0
    for v in x:
        total += math.exp(-v * v) + math.log(1.0 + v * v) + math.atan(v) + math.cosh(v / 3)
    return total


def math_scalar_mix(a, b):
    return math.sqrt(a * a + b * b) + math.sin(a) * math.cos(b) + math.pow(abs(a) + 1.0, 1.5) + math.tanh(b)


def newton_sqrt_tolerance(a):
    x = a
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


def fixed_point_cos(c):
    x = 1.0
    diff = 1.0
    it = 0
    while diff > 1e-10 and it < 200:
        new = math.cos(c * x)
        diff = abs(new - x)
        x = new
        it += 1
    return x


def early_return_in_loop(x, limit=10.0):
    total = 0.0
    for i in range(len(x)):
        total += x[i] ** 2
        if total > limit:
            return total * 2.0
    return total


def early_return_first_negative(x):
    for i in range(len(x)):
        if x[i] < 0:
            return x[i] * i + np.sum(x[:i] ** 2)
    return np.sum(x)


def nested_helper(x, a):
    def poly(t):
        return a[0] + a[1] * t + a[2] * t * t

    def dpoly(t):
        return a[1] + 2 * a[2] * t

    return np.sum(poly(x) ** 2 + dpoly(x))


def nested_helper_closure_counter(x):
    scale = 2.0

    def penalty(v, power=2):
        return scale * np.sum(np.abs(v) ** power)

    return penalty(x) + penalty(x, power=4) + penalty(x[:2], 3)


def default_arguments(w, X, y, reg=0.1, kind="l2"):
    r = X @ w - y
    loss = np.mean(r ** 2)
    if kind == "l2":
        loss = loss + reg * np.sum(w ** 2)
    else:
        loss = loss + reg * np.sum(np.abs(w))
    return loss


def keyword_calls(w, X, y):
    return default_arguments(w, X, y, kind="l2", reg=0.5) + default_arguments(X=X, y=y, w=w)


def _sum_of(*terms):
    total = 0.0
    for t in terms:
        total = total + t
    return total


def star_args_helper(x, y):
    return _sum_of(np.sum(x ** 2), np.sum(x * y), math.sin(float(np.sum(x))))


def _weighted(*xs, weights=None):
    if weights is None:
        weights = [1.0] * len(xs)
    return sum(w * np.sum(v ** 2) for w, v in zip(weights, xs))


def star_args_keyword(a, b):
    return _weighted(a, b, a * b, weights=WEIGHTS)


def global_constants(h, v0):
    t_flight = 2 * v0 / GRAVITY
    return 0.5 * GRAVITY * t_flight ** 2 + h * CONFIG["lam"] + h ** CONFIG["power"]


def _power_rec(x, n):
    if n == 0:
        return 1.0
    if n % 2 == 0:
        half = _power_rec(x, n // 2)
        return half * half
    return x * _power_rec(x, n - 1)


def recursion_on_int(x):
    return _power_rec(x, 5) + _power_rec(x, 2)


def _chebyshev(n, x):
    if n == 0:
        return np.ones_like(x)
    if n == 1:
        return x
    return 2 * x * _chebyshev(n - 1, x) - _chebyshev(n - 2, x)


def chebyshev_recursion(c, x):
    return np.sum(sum(c[k] * _chebyshev(k, x) for k in range(len(c))) ** 2)


def _factorial(n):
    return 1 if n <= 1 else n * _factorial(n - 1)


def taylor_exp(x, terms=8):
    s = 0.0
    for k in range(terms):
        s += x ** k / _factorial(k)
    return s


def list_of_floats(x):
    vals = []
    for i in range(len(x)):
        vals.append(float(x[i]) ** 2 + 1.0)
    return sum(vals) / len(vals)


def float_of_numpy_scalar(x):
    s = float(np.sum(x))
    m = float(x.max())
    return s * s + m


def count_positives(x):
    n = 0
    total = 0.0
    for v in x:
        if v > 0:
            n += 1
            total += v
    return total / max(n, 1)


def running_mean_python(x):
    mean = 0.0
    out = 0.0
    for i in range(len(x)):
        mean += (x[i] - mean) / (i + 1)
        out += mean ** 2
    return out


def bubble_like_pairs(x):
    y = list(x)
    for i in range(len(y)):
        for j in range(len(y) - 1 - i):
            if y[j] > y[j + 1]:
                y[j], y[j + 1] = y[j + 1], y[j]
    return sum((k + 1) * v for k, v in enumerate(y))


def trapezoid_by_hand(a, n=20):
    h = 1.0 / n
    s = 0.0
    for i in range(n + 1):
        t = i * h
        f = math.exp(-a * t * t)
        if i == 0 or i == n:
            s += 0.5 * f
        else:
            s += f
    return s * h


def gradient_descent_inner(x0, lr=0.1, steps=5):
    x = x0
    for _ in range(steps):
        g = 4 * x ** 3 - 2 * x
        x = x - lr * g
    return np.sum(x ** 4 - x ** 2)


def while_with_break(x):
    total = 0.0
    i = 0
    while True:
        total += x[i] * (i + 1)
        i += 1
        if i >= len(x):
            break
    return total ** 2


def ternary_per_element(x):
    s = 0.0
    for v in x:
        s += v ** 2 if v > 0 else -v / 2
    return s


def lambda_in_function(x):
    sq = lambda t: t * t  # noqa: E731
    cube = lambda t: t * sq(t)  # noqa: E731
    return sum(cube(v) - sq(v) for v in x)


def min_of_python_floats(x):
    best = float("inf")
    for v in x:
        val = (v - 0.3) ** 2
        if val < best:
            best = val
    return best + np.sum(x) * 0.1


NOVICE16 = [
    ("w16_index_loop_sum_squares", index_loop_sum_squares, lambda r: (M(r, 5),), 0),
    ("w16_index_loop_pairs", index_loop_pairs, lambda r: (M(r, 4),), 0),
    ("w16_math_functions", math_functions, lambda r: (M(r, 4),), 0),
    ("w16_math_scalar_mix", math_scalar_mix, lambda r: (0.7, -1.3), 0),
    ("w16_math_scalar_mix_b", math_scalar_mix, lambda r: (0.7, -1.3), 1),
    ("w16_newton_sqrt_tolerance", newton_sqrt_tolerance, lambda r: (2.5,), 0),
    ("w16_fixed_point_cos", fixed_point_cos, lambda r: (0.8,), 0),
    ("w16_early_return_in_loop", early_return_in_loop, lambda r: (np.array([1.0, 2.0, 2.5, 1.0]),), 0),
    ("w16_early_return_not_taken", early_return_in_loop, lambda r: (np.array([1.0, 0.5, -0.5]),), 0),
    ("w16_early_return_first_negative", early_return_first_negative, lambda r: (np.array([0.5, 1.2, -0.4, 2.0]),), 0),
    ("w16_nested_helper", nested_helper, lambda r: (M(r, 4), M(r, 3)), 0),
    ("w16_nested_helper_coeffs", nested_helper, lambda r: (M(r, 4), M(r, 3)), 1),
    ("w16_nested_helper_defaults", nested_helper_closure_counter, lambda r: (M(r, 4),), 0),
    ("w16_default_arguments", default_arguments, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("w16_default_arguments_l1", default_arguments, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5), 0.2, "l1"), 0),
    ("w16_keyword_calls", keyword_calls, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("w16_star_args_helper", star_args_helper, lambda r: (M(r, 3), M(r, 3)), 0),
    ("w16_star_args_keyword", star_args_keyword, lambda r: (M(r, 3), M(r, 3)), 0),
    ("w16_global_constants", global_constants, lambda r: (1.5, 3.0), 0),
    ("w16_global_constants_v0", global_constants, lambda r: (1.5, 3.0), 1),
    ("w16_recursion_on_int", recursion_on_int, lambda r: (1.3,), 0),
    ("w16_chebyshev_recursion", chebyshev_recursion, lambda r: (M(r, 4), r.uniform(-1, 1, 5)), 0),
    ("w16_chebyshev_recursion_x", chebyshev_recursion, lambda r: (M(r, 4), r.uniform(-1, 1, 5)), 1),
    ("w16_taylor_exp", taylor_exp, lambda r: (0.7,), 0),
    ("w16_list_of_floats", list_of_floats, lambda r: (M(r, 4),), 0),
    ("w16_float_of_numpy_scalar", float_of_numpy_scalar, lambda r: (M(r, 4),), 0),
    ("w16_count_positives", count_positives, lambda r: (np.array([0.5, -1.0, 2.0, 0.3]),), 0),
    ("w16_running_mean_python", running_mean_python, lambda r: (M(r, 5),), 0),
    ("w16_bubble_sort_pairs", bubble_like_pairs, lambda r: (M(r, 4),), 0),
    ("w16_trapezoid_by_hand", trapezoid_by_hand, lambda r: (1.3,), 0),
    ("w16_gradient_descent_inner", gradient_descent_inner, lambda r: (M(r, 3),), 0),
    ("w16_while_with_break", while_with_break, lambda r: (M(r, 4),), 0),
    ("w16_ternary_per_element", ternary_per_element, lambda r: (np.array([0.5, -1.0, 2.0]),), 0),
    ("w16_lambda_in_function", lambda_in_function, lambda r: (M(r, 4),), 0),
    ("w16_min_of_python_floats", min_of_python_floats, lambda r: (np.array([1.0, 0.2, -0.5]),), 0),
]
