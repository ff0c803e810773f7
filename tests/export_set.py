"""A set of representative functions, with example arguments, for export and code-quality tests.

Each entry of `SET` is ``(name, function, args, wrt)``.  The functions live in a real file
(srcdiff reads their source; the last is SciPy's, read from its own), and an exported gradient
imports this module's own names (`SCALE`, `step`) the way a user's would.
"""

import math

import numpy as np

SCALE = 0.5


def quadratic(x):
    return np.sum(x ** 2)


def polynomial(x):
    return 3.0 * x ** 4 + 2.0 * x ** 3 - x * x + 5.0 * x


def trig(x, y):
    return math.sin(x) * math.exp(y) + math.cos(x * y)


def mlp(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)


def logistic(w, X, y):
    z = X @ w
    return np.mean(np.log(1.0 + np.exp(-y * z)))


def softmax_xent(W, X, labels):
    z = X @ W
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.sum(labels * logp) / X.shape[0]


def scalar_loop(x, n):
    total = 0.0
    for _ in range(n):
        total = total + np.sin(total) * x
    return total


def array_loop(W, h, n):
    for _ in range(n):
        h = np.tanh(W @ h)
    return np.sum(h)


def while_loop(x):
    y = x
    k = 0
    while k < 4:
        y = y * 0.9 + np.cos(y)
        k = k + 1
    return y


def branch(x):
    if x > 1.0:
        y = x * x
    else:
        y = np.exp(x)
    return y * 3.0


def array_branch(x):
    s = np.sum(x)
    if s > 0.0:
        r = np.sum(x * x)
    else:
        r = np.sum(np.abs(x))
    return r


def step(y, k):
    return y * np.cos(k * y)


def helper_calls(y, k):
    z = step(y, k)
    return step(z, k)


def helper_two_shapes(x, v):
    return step(x, 2.0) + np.sum(step(v, 2.0))


def axis_reductions(x):
    m = np.mean(x, axis=0)
    s = np.sum(x * x, axis=1)
    return np.sum(m ** 2) + np.max(s)


def broadcasting(x, b, c):
    y = x * b + c
    return np.sum(y * y)


def pairwise(x, y):
    d = x[:, None] - y[None, :]
    return np.sum(d ** 2)


def where(x):
    return np.sum(np.where(x > 0.0, x, 0.1 * x))


def solve(A, b):
    return np.sum(np.linalg.solve(A, b) ** 2)


def quadratic_form(x, A):
    return x @ A @ x


def trace_gram(A):
    return np.trace(A @ A.T)


def norm(x):
    return np.sqrt(np.sum(x * x))


def global_constant(x):
    return SCALE * np.sum(np.exp(x))


def index_write(x):
    y = np.zeros(3)
    y[0] = x[0] * 2.0
    y[2] = x[1] * x[2]
    return np.sum(y * y)


def loop_accumulate(W, x, n):
    total = np.zeros(x.shape)
    for i in range(n):
        total = total + W[i] * x
    return np.sum(total ** 2)


def stacking(x, y):
    z = np.concatenate([x, y * 2.0])
    return np.sum(z * z)


try:  # below the functions (golden tests pin their line numbers); exported modules import
    import scipy.optimize  # noqa: E402  this one where only NumPy is installed
except ImportError:
    scipy = None


def square_plus_one(v):
    return v * v + 1.0


def loop_helper(x, n):
    s = 0.0
    for i in range(n):
        v = x * i
        s = s + np.sum(square_plus_one(v))
    return s


rng = np.random.default_rng(7)
_A = rng.normal(size=(3, 3)) + 3.0 * np.eye(3)

SET = [
    ("quadratic", quadratic, (rng.normal(size=4),), 0),
    ("polynomial", polynomial, (0.7,), 0),
    ("trig", trig, (0.4, 0.3), (0, 1)),
    ("mlp", mlp, (rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(4, 2)), rng.normal(size=2),
                  rng.normal(size=(5, 3)), rng.normal(size=(5, 2))), (0, 1, 2, 3)),
    ("logistic", logistic, (rng.normal(size=3), rng.normal(size=(6, 3)), np.sign(rng.normal(size=6))), 0),
    ("softmax_xent", softmax_xent, (rng.normal(size=(3, 4)), rng.normal(size=(5, 3)),
                                    np.eye(4)[[0, 1, 2, 3, 0]]), 0),
    ("scalar_loop", scalar_loop, (0.5, 3), 0),
    ("array_loop", array_loop, (rng.normal(size=(3, 3)) * 0.5, rng.normal(size=3), 3), (0, 1)),
    ("while_loop", while_loop, (0.3,), 0),
    ("branch", branch, (2.0,), 0),
    ("array_branch", array_branch, (rng.normal(size=4),), 0),
    ("helper_calls", helper_calls, (0.5, 2.0), (0, 1)),
    ("helper_two_shapes", helper_two_shapes, (0.5, rng.normal(size=3)), (0, 1)),
    ("axis_reductions", axis_reductions, (rng.normal(size=(4, 3)),), 0),
    ("broadcasting", broadcasting, (rng.normal(size=(4, 3)), rng.normal(size=3), rng.normal(size=(4, 1))),
     (0, 1, 2)),
    ("pairwise", pairwise, (rng.normal(size=4), rng.normal(size=3)), (0, 1)),
    ("where", where, (rng.normal(size=5),), 0),
    ("solve", solve, (_A, rng.normal(size=3)), (0, 1)),
    ("quadratic_form", quadratic_form, (rng.normal(size=3), _A), (0, 1)),
    ("trace_gram", trace_gram, (rng.normal(size=(3, 2)),), 0),
    ("norm", norm, (rng.normal(size=3),), 0),
    ("global_constant", global_constant, (rng.normal(size=3),), 0),
    ("index_write", index_write, (rng.normal(size=3),), 0),
    ("loop_accumulate", loop_accumulate, (rng.normal(size=(3, 2)), rng.normal(size=2), 3), (0, 1)),
    ("stacking", stacking, (rng.normal(size=2), rng.normal(size=3)), (0, 1)),
    ("loop_helper", loop_helper, (rng.normal(size=3), 3), 0),
    # library code, read through its own source
    *([("rosen", scipy.optimize.rosen, (rng.normal(size=5),), 0)] if scipy else []),
]


# ---- edge cases of the emission rules above (checked against central differences) ----

def sum_of_broadcast(x, b):
    return np.sum(x + b)  # b's adjoint must be summed: the sum's fill stays an array


def sum_times_number(x, c):
    return np.sum(x * c)


def sum_times_row(x, r):
    return np.sum(x * r)  # r has shape (1, n)


def outer_difference(x, y):
    return np.sum((x[:, None] - y) ** 2)


def mean_through_helper(x):
    return np.mean(step(x, 3.0))


EDGES = [
    ("sum_of_broadcast", sum_of_broadcast, (rng.normal(size=(3, 2)), rng.normal(size=2)), (0, 1)),
    ("sum_times_number", sum_times_number, (rng.normal(size=3), 0.7), (0, 1)),
    ("sum_times_row", sum_times_row, (rng.normal(size=(3, 2)), rng.normal(size=(1, 2))), (0, 1)),
    ("outer_difference", outer_difference, (rng.normal(size=3), rng.normal(size=2)), (0, 1)),
    ("mean_through_helper", mean_through_helper, (rng.normal(size=4),), 0),
]
