"""Held-out variants of wave 36k (issue 26): numbers and arrays read from tuples and lists the code
cannot see into (a tuple argument of floats, a module list, a zip of two tuples, a tuple of arrays of
one shape) and NumPy reductions of list comprehensions, written the way users write them, each with a
hand-written gradient ``NAME_grad``.  Written and measured before the change they check
(tests/transforms/wave36k_programs.py runs them through every transformation).
"""

import math

import numpy as np

WEIGHTS = [0.2, -0.4, 1.5, 0.8, -1.2, 0.6, 0.1]


def poly_tuple_arg(x, coeffs):
    """Horner's rule over a tuple argument of coefficients (wrt x)."""
    acc = 0.0
    for c in coeffs:
        acc = acc * x + c
    return math.tanh(acc)


def poly_tuple_arg_grad(x, coeffs):
    acc = dacc = 0.0
    for c in coeffs:
        dacc = dacc * x + acc
        acc = acc * x + c
    return (1.0 - math.tanh(acc) ** 2) * dacc


def poly_args(seed=3601):
    rng = np.random.default_rng(seed)
    return float(rng.uniform(-1.0, 1.0)), tuple(float(c) for c in rng.uniform(-1.0, 1.0, 8))


def series_module_list(x, y):
    """A power series over a module list of weights, indexed by position (wrt x and y)."""
    s = 0.0
    for k in range(len(WEIGHTS)):
        s = s + WEIGHTS[k] * x ** k
    return s * y + math.exp(-s * s)


def series_module_list_grad(x, y):
    s = ds = 0.0
    for k in range(len(WEIGHTS)):
        s += WEIGHTS[k] * x ** k
        if k:
            ds += k * WEIGHTS[k] * x ** (k - 1)
    e = math.exp(-s * s)
    return (y - 2.0 * s * e) * ds, s


def series_args(seed=3602):
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(-1.0, 1.0, 2)
    return float(x), float(y)


def bumps_zip(x, centers, widths):
    """A sum of Gaussian bumps whose centres and widths are two tuple arguments, zipped (wrt x)."""
    total = 0.0
    for m, w in zip(centers, widths):
        total = total + math.exp(-((x - m) / w) ** 2)
    return total


def bumps_zip_grad(x, centers, widths):
    g = 0.0
    for m, w in zip(centers, widths):
        z = (x - m) / w
        g -= 2.0 * z / w * math.exp(-z * z)
    return g


def bumps_args(k=6, seed=3603):
    rng = np.random.default_rng(seed)
    return (float(rng.uniform(-1.0, 1.0)), tuple(map(float, rng.uniform(-1.0, 1.0, k))),
            tuple(map(float, rng.uniform(0.5, 1.5, k))))


def nearest_templates(x, templates):
    """A soft distance of a signal to a tuple of templates of its shape (wrt x)."""
    total = 0.0
    for t in templates:
        total = total + np.exp(-np.sum((x - t) ** 2))
    return -np.log(total)


def nearest_templates_grad(x, templates):
    weights = [np.exp(-np.sum((x - t) ** 2)) for t in templates]
    total = sum(weights)
    g = np.zeros_like(x)
    for wt, t in zip(weights, templates):
        g += 2.0 * wt * (x - t)
    return g / total


def templates_args(n=50, k=5, seed=3604):
    rng = np.random.default_rng(seed)
    return 0.3 * rng.standard_normal(n), tuple(0.3 * rng.standard_normal(n) for _ in range(k))


def smooth_listcomp(x):
    """A smoothness penalty as np.sum of a list comprehension of squared steps (wrt x)."""
    return np.sum([(x[i] - x[i - 1]) ** 2 for i in range(1, len(x))]) + 0.1 * np.sum(x * x)


def smooth_listcomp_grad(x):
    """By the same loop over the steps (as rosen_listcomp's hand gradient)."""
    g = 0.2 * x
    for i in range(1, len(x)):
        d = 2.0 * (x[i] - x[i - 1])
        g[i] += d
        g[i - 1] -= d
    return g


def mean_listcomp(x):
    """Squared second differences averaged by np.mean of a list comprehension (wrt x)."""
    return np.mean([(x[i + 1] - 2.0 * x[i] + x[i - 1]) ** 2 for i in range(1, len(x) - 1)])


def mean_listcomp_grad(x):
    """By the same loop over the second differences."""
    g = np.zeros_like(x)
    c = 2.0 / (len(x) - 2)
    for i in range(1, len(x) - 1):
        d = c * (x[i + 1] - 2.0 * x[i] + x[i - 1])
        g[i + 1] += d
        g[i] -= 2.0 * d
        g[i - 1] += d
    return g


def signal_args(n=100, seed=3605):
    return (np.random.default_rng(seed).standard_normal(n),)
