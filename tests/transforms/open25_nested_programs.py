"""Helpers defined inside helpers defined inside the differentiated function (open item of wave 24):
a ``return`` of the innermost one was taken for an early ``return`` of the one holding it."""

import numpy as np


def three_deep(x):
    def g(u):
        def h(v):
            return v * v
        return h(u) + u
    return g(x)


def three_deep_summed(x):
    def g(u):
        def h(v):
            return v * v
        return h(u) + u
    return np.sum(g(x))


def inner_reads_outer_local(x):
    def g(u):
        s = np.sin(u)

        def h(v):
            return v * s + x  # g's local and f's parameter, as the call finds them
        return np.sum(h(u * 2.0))
    return g(x) * 1.5


def inner_returns_early(x):
    def g(u):
        def h(v):
            if v[0] > 0.0:
                return v * 2.0
            return v * v
        return np.sum(h(u) * u)
    return g(x)


def outer_returns_early_inner_nested(x):
    def g(u):
        def h(v):
            return np.exp(-v * v)
        if np.sum(u) > 0.0:
            return np.sum(h(u))
        return np.sum(h(u) * u)
    return g(x) + g(x * 0.5)


def inner_name_restored(x):
    def g(u):
        def h(v):
            return v * 3.0
        return h(u)
    first = g(x)

    def h(v):  # f's own h, after g's call: g's h is g's alone
        return np.cos(v)
    return np.sum(first * h(x))


def inner_called_in_loop(x):
    def g(u):
        def step(v):
            return 0.5 * v + np.tanh(v)
        z = u
        for _ in range(3):
            z = step(z)
        return np.sum(z * z)
    return g(x)


def inner_lambda(x):
    def g(u):
        sq = lambda v: v * v  # noqa: E731
        return np.sum(sq(u) + u)
    return g(x)


def four_deep(x):
    def a(u):
        def b(v):
            def c(w):
                return np.sin(w) * w
            return c(v) + v
        return b(u) * 2.0
    return np.sum(a(x))


def inner_with_loop_return(x):
    def g(u):
        def h(v):
            for i in range(3):
                if v[i] > 0.0:
                    return v[i]  # a return inside a loop of h: refused at this line
            return v[0]
        return h(u) * u[0]
    return g(x)


PROGRAMS = [
    ("three_deep", three_deep, lambda rng: (1.5,), 0),
    ("three_deep_summed", three_deep_summed, lambda rng: (rng.standard_normal(4),), 0),
    ("inner_reads_outer_local", inner_reads_outer_local, lambda rng: (rng.standard_normal(3),), 0),
    ("inner_returns_early", inner_returns_early, lambda rng: (np.abs(rng.standard_normal(3)) + 0.2,), 0),
    ("inner_returns_early_other_side", inner_returns_early, lambda rng: (-np.abs(rng.standard_normal(3)) - 0.2,), 0),
    ("outer_returns_early_inner_nested", outer_returns_early_inner_nested,
     lambda rng: (np.abs(rng.standard_normal(3)) + 0.1,), 0),
    ("inner_name_restored", inner_name_restored, lambda rng: (rng.standard_normal(3),), 0),
    ("inner_called_in_loop", inner_called_in_loop, lambda rng: (rng.standard_normal(3),), 0),
    ("inner_lambda", inner_lambda, lambda rng: (rng.standard_normal(3),), 0),
    ("four_deep", four_deep, lambda rng: (rng.standard_normal(3),), 0),
]
