"""Programs of test_wave36h.py: wave 36's held-out spellings of the benchmark set's nine problems
(benchmarks/variants36_heldout.py) at small sizes, and the spellings of the two classes this wave
changed: a history list read at ``[-1]`` in the loop that appends to it (frontend/last_items.py),
and a method of an object tree that only reads it, called in a ``range`` loop
(frontend/reading_methods.py), each beside the spellings either rewrite must leave alone."""

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import variants36_heldout as v36  # noqa: E402

# ---- histories read at [-1] ----------------------------------------------------------------------


def euler_history(y0, k, n):
    """An Euler trajectory appended to a list, each step reading the last state twice."""
    ys = [y0]
    for _ in range(n):
        ys.append(ys[-1] + 0.1 * (k * np.sin(ys[-1]) - ys[-1]))
    return np.sum(np.stack(ys) ** 2)


def scalar_history(a, x0, n):
    """Floats appended to a list read at [-1] (spelled ``xs[len(xs) - 1]`` nowhere), summed after."""
    xs = [x0]
    for _ in range(n):
        xs.append(a * xs[-1] + math.sin(xs[-1]))
    return sum(x * x for x in xs)


def two_items_first(W, h0, xs):
    """The list made of two items, the last one the state; the first left out of the loss."""
    hs = [0.0, h0]
    for x in xs:
        h = np.tanh(x @ W + hs[-1])
        hs.append(h)
    return np.sum(np.stack(hs[1:]) ** 2)


def read_before_and_after(W, h0, xs):
    """[-1] read before the append and again after it (the new item) in one body."""
    hs = [h0]
    total = 0.0
    for x in xs:
        hs.append(np.tanh(x @ W + hs[-1]))
        total = total + np.sum(hs[-1] * x[: hs[-1].shape[-1]])
    return total + np.sum(hs[0] * hs[-1])


def two_back(W, h0, xs):
    """[-1] and [-2] read (left to list_joins.py: a new list each step)."""
    hs = [h0, h0]
    for x in xs:
        hs.append(np.tanh(x @ W + 0.5 * hs[-1] + 0.5 * hs[-2]))
    return np.sum(hs[-1] ** 2)


def append_in_branch(W, h0, xs):
    """The append inside a branch (left to list_joins.py)."""
    hs = [h0]
    for t in range(len(xs)):
        if t % 2 == 0:
            hs.append(np.tanh(xs[t] @ W + hs[-1]))
    return np.sum(np.stack(hs) ** 2)


def with_break(W, h0, xs):
    """A loop leaving early when the state grows: the carried last item stays exact."""
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(x @ W + hs[-1]))
        if np.sum(hs[-1] ** 2) > 1e9:
            break
    return np.sum(np.stack(hs) ** 2)


# ---- methods of an object tree in a range loop ---------------------------------------------------


class Decay:
    """Parameters of a decay, its rate a method reading them."""

    def __init__(self, a, b):
        self.a = a
        self.b = b

    def rate(self, s):
        return -self.a * s + self.b * math.cos(s)


class Counter:
    """A method that changes its object (the loop is unrolled for it, as before)."""

    def __init__(self, a):
        self.a = a
        self.total = 0.0

    def add(self, s):
        self.total = self.total + self.a * s
        return self.total


class Chain:
    """A method calling another method of its object (taken for a change)."""

    def __init__(self, a):
        self.a = a

    def inner(self, s):
        return self.a * math.sin(s)

    def outer(self, s):
        return self.inner(s) + s


class Logger:
    """A method appending to a list it is given (taken for a change: only a module's methods are read-only;
    a list handed to a method is refused at the line anyway)."""

    def __init__(self, a):
        self.a = a

    def step(self, out, s):
        out.append(s)
        return self.a * math.sin(s)


def decay_object(a, b, n):
    """An object built from the parameters, its reading method called in a range loop (kept a loop)."""
    d = Decay(a, b)
    s, total = 1.0, 0.0
    for _ in range(n):
        s = s + 0.1 * d.rate(s)
        total += s * s
    return total


def counter_object(a, n):
    c = Counter(a)
    s = 0.5
    for _ in range(n):
        s = math.sin(c.add(s))
    return s


def chain_object(a, n):
    c = Chain(a)
    s = 0.5
    for _ in range(n):
        s = 0.5 * c.outer(s)
    return s * s


def logger_object(a, n):
    log = Logger(a)
    s, seen = 0.5, []
    for _ in range(n):
        s = s + log.step(seen, s)
    return s * s + sum(seen)


def _normal(rng, *shape):
    return rng.standard_normal(shape)


def _cell(r):
    return 0.5 * _normal(r, 3, 2), _normal(r, 2), _normal(r, 4, 3)


PROGRAMS = [
    ("horner_poly_x", v36.horner_poly, lambda r: v36.scalar_args(), 0),
    ("powers_fit", v36.powers_fit, lambda r: v36.powers_args(n=7, deg=4), 0),
    ("branchy_recursion_a", v36.branchy_recursion, lambda r: v36.recursion_args(n=9), 0),
    ("branchy_recursion_b", v36.branchy_recursion, lambda r: v36.recursion_args(n=9), 1),
    ("rosen_dot", v36.rosen_dot, lambda r: v36.rosen_args(n=6), 0),
    ("rosen_pairs", v36.rosen_pairs, lambda r: v36.rosen_args(n=6), 0),
    ("rosen_listcomp", v36.rosen_listcomp, lambda r: v36.rosen_args(n=6), 0),
    ("mse_square_w", v36.mse_square, lambda r: v36.regression_args(n=9, d=3), 0),
    ("mse_square_b", v36.mse_square, lambda r: v36.regression_args(n=9, d=3), 1),
    ("mse_norm", v36.mse_norm, lambda r: v36.regression_args(n=9, d=3, bias=False), 0),
    ("mse_einsum", v36.mse_einsum, lambda r: v36.regression_args(n=9, d=3, bias=False), 0),
    ("logistic_log1p", v36.logistic_log1p, lambda r: v36.logistic_args(n=9, d=3, signs=True), 0),
    ("logistic_sigmoid", v36.logistic_sigmoid, lambda r: v36.logistic_args(n=9, d=3), 0),
    ("mlp_layers", v36.mlp_layers, lambda r: v36.mlp_args(B=4, sizes=(5, 4, 3, 3)), 0),
    ("rnn_list_Wx", v36.rnn_list, lambda r: v36.rnn_args(T=3, B=2, n_in=3, n_h=2), 0),
    ("rnn_list_Wh", v36.rnn_list, lambda r: v36.rnn_args(T=3, B=2, n_in=3, n_h=2), 1),
    ("rk4_dict_k", v36.rk4_dict, lambda r: v36.rk4_dict_args(n=3, steps=2), 0),
    ("rk4_dict_deep", v36.rk4_dict, lambda r: v36.rk4_dict_args(n=3, steps=10), 1),
    ("pendulum_class_c", v36.pendulum_class, lambda r: v36.pendulum_args(steps=6), 0),
    ("pendulum_class_k", v36.pendulum_class, lambda r: v36.pendulum_args(steps=6), 1),
    ("euler_history", euler_history, lambda r: (_normal(r, 3), 0.7 + _normal(r, 3) ** 2, 4), 0),
    ("scalar_history", scalar_history, lambda r: (0.6, 0.4, 5), 0),
    ("two_items_first", two_items_first, lambda r: _cell(r), 0),
    ("read_before_and_after", read_before_and_after, lambda r: _cell(r), 0),
    ("two_back", two_back, lambda r: _cell(r), 0),
    ("append_in_branch", append_in_branch, lambda r: _cell(r), 0),
    ("with_break", with_break, lambda r: _cell(r), 0),
    ("decay_object_a", decay_object, lambda r: (0.4, 0.3, 6), 0),
    ("decay_object_b", decay_object, lambda r: (0.4, 0.3, 6), 1),
    ("counter_object", counter_object, lambda r: (0.4, 5), 0),
    ("chain_object", chain_object, lambda r: (0.8, 5), 0),
]

#: refused at the user's line, before and after (a list handed to a method)
REFUSED = [("logger_object", logger_object, lambda r: (0.8, 4), 0)]
