"""Second derivatives through lists, comprehensions and the tuples NumPy returns.

A first-order gradient updates a list's adjoint in place (``xs_bar[i] = xs_bar[i] + v``,
``xs_bar.pop()``, ``list(g)``, ``[g] * len(xs)``); a derivable gradient writes each update
as a new list through helpers with rules of their own (rules/list_helpers.py), so every
program below goes through `hessian` (against second-order central differences of f,
float64), `hvp`, ``jacobian(grad(f))`` and, for one number, ``grad(grad(f))``.  References
are central differences of f or closed forms; none is computed by srcdiff.
"""

import math
import re

import numpy as np
import pytest
from numeric import SECOND_ORDER, assert_close, second_order

import srcdiff


def stack_named(x):
    rows = [x ** 2, np.sin(x)]
    return np.sum(np.stack(rows) ** 2)


def array_of_numbers(x):
    v = np.array([x[0] * x[1], np.sin(x[2]), x[0] ** 2])
    return np.sum(v ** 2) + v[0] * v[2]


def array_of_a_named_list(x):
    parts = [x[0] * x[2], np.exp(x[1])]
    v = np.array(parts)
    return np.sum(v ** 3)


def comprehension_sum(x):
    return sum([x[i] ** 2 * x[i + 1] for i in range(len(x) - 1)])


def generator_sum(x):
    return sum(np.sin(x[i]) * x[i + 1] for i in range(2))


def small_list(x):
    t = [x[0] * x[1], np.exp(x[2])]
    return t[0] * t[1] + t[0] ** 2


def small_tuple(x):
    t = (x[0] * x[1], np.sin(x[2]), x[1])
    return t[0] * t[1] * t[2] + t[1] ** 3


def list_of_arrays_summed(x):
    terms = [x ** 2, np.sin(x) * x, np.exp(0.1 * x)]
    return np.sum(sum(terms) ** 2)


def list_used_twice(x):
    rows = [x * x, np.cos(x)]
    return np.sum(np.stack(rows) ** 2) * np.sum(sum(rows)) + rows[1][0] * rows[0][2]


def split_pair(x):
    a, b = np.split(x, 2)
    return np.sum(a * b) + np.sum(a ** 3) + np.sum(np.sin(b))


def split_three_indexed(x):
    parts = np.split(x, 3)
    return np.sum(parts[0] * parts[2] ** 2) + np.sum(parts[1]) ** 2


def slogdet_pair(x):
    A = x.reshape(2, 2) + 3.0 * np.eye(2)
    sign, logdet = np.linalg.slogdet(A)
    return logdet ** 2 + sign * logdet


def append_then_loop(x):
    states = []
    s = x
    for _ in range(3):
        s = s + 0.1 * np.sin(s)
        states.append(s)
    total = 0.0
    for st in states:
        total = total + np.sum((st - 0.5) ** 2)
    return total


def append_then_stack(x):
    states = []
    s = x
    for i in range(4):
        s = s * np.cos(0.3 * s) + 0.1 * i
        states.append(s)
    return np.sum(np.array(states) ** 2)


def append_numbers_from_a_start(x):
    out = [x[0]]
    acc = 0.0
    for i in range(x.size):
        acc = acc + x[i] * x[i]
        out.append(acc * x[i])
    return sum(out) * out[1]


def comprehension_array(x):
    v = np.array([np.sum(x ** k) for k in range(1, 4)])
    return np.sum(v * v)


def rhs(theta, omega, c, k):
    return omega, -c * omega - k * math.sin(theta)


def rk4_step(theta, omega, c, k, dt):
    k1t, k1o = rhs(theta, omega, c, k)
    k2t, k2o = rhs(theta + 0.5 * dt * k1t, omega + 0.5 * dt * k1o, c, k)
    k3t, k3o = rhs(theta + 0.5 * dt * k2t, omega + 0.5 * dt * k2o, c, k)
    k4t, k4o = rhs(theta + dt * k3t, omega + dt * k3o, c, k)
    theta = theta + dt / 6.0 * (k1t + 2 * k2t + 2 * k3t + k4t)
    omega = omega + dt / 6.0 * (k1o + 2 * k2o + 2 * k3o + k4o)
    return theta, omega


OBSERVED = np.array([0.9, 0.7, 0.4, 0.1, -0.2, -0.4, -0.5, -0.5, -0.4, -0.2, 0.0, 0.2])


def pendulum_fit(p):
    theta, omega = 1.0, 0.0
    states = []
    for _ in range(12):
        theta, omega = rk4_step(theta, omega, p[0], p[1], 0.1)
        states.append(theta)
    misfit = 0.0
    for i, s in enumerate(states):
        misfit = misfit + (s - OBSERVED[i]) ** 2
    return misfit


def pendulum_fit_stacked(p):
    theta, omega = 1.0, 0.0
    states = []
    for _ in range(12):
        theta, omega = rk4_step(theta, omega, p[0], p[1], 0.1)
        states.append(theta)
    return np.sum((np.array(states) - OBSERVED) ** 2)


PROGRAMS = {
    "np.stack of a named list": (stack_named, 4), "np.array of numbers": (array_of_numbers, 3),
    "np.array of a named list": (array_of_a_named_list, 3), "sum of a comprehension": (comprehension_sum, 4),
    "sum of a generator": (generator_sum, 3), "small list": (small_list, 3), "small tuple": (small_tuple, 3),
    "sum of a list of arrays": (list_of_arrays_summed, 3), "a list used twice": (list_used_twice, 3),
    "np.split pair": (split_pair, 4), "np.split indexed": (split_three_indexed, 6),
    "slogdet tuple": (slogdet_pair, 4), "append, then a loop": (append_then_loop, 3),
    "append, then np.array": (append_then_stack, 3),
    "append numbers to a started list": (append_numbers_from_a_start, 4),
    "np.array of a comprehension": (comprehension_array, 3), "pendulum fit (RK4, list of states)": (pendulum_fit, 2),
    "pendulum fit, stacked": (pendulum_fit_stacked, 2),
}


def draw(name, rng):
    f, n = PROGRAMS[name]
    if f in (pendulum_fit, pendulum_fit_stacked):
        return f, np.array([0.3, 2.0]) + 0.1 * rng.normal(size=2)
    return f, 0.5 * rng.normal(size=n) + 0.3


@pytest.mark.parametrize("transform", SECOND_ORDER)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_second_order(name, transform, rng):
    f, x = draw(name, rng)
    assert_close(*second_order(transform, f, x, rng), rtol=2e-5, atol=2e-5)


# ---- one number: grad(grad(f)) ----

W = np.array([0.3, -0.4, 0.7, 1.1])


def s_stack(t):
    rows = [t * W, np.sin(t * W)]
    return np.sum(np.stack(rows) ** 2)


def s_comprehension(t):
    return sum([math.sin(t * w) * t for w in W])


def s_pair(t):
    p = [t * t, math.exp(t)]
    return p[0] * p[1] + p[1] ** 2


def s_split(t):
    a, b = np.split(np.sin(t * W), 2)
    return np.sum(a * b) + np.sum(a ** 3)


def s_slogdet(t):
    sign, logdet = np.linalg.slogdet(np.reshape(t * W, (2, 2)) + 2.0 * np.eye(2))
    return sign * logdet ** 2


def s_append(t):
    xs = []
    s = t
    for i in range(5):
        s = s * math.cos(0.2 * s) + 0.1 * i
        xs.append(s)
    return sum(xs) + xs[2] * xs[4]


def s_pendulum(c):
    theta, omega = 1.0, 0.0
    states = []
    for _ in range(10):
        theta, omega = rk4_step(theta, omega, c, 2.0, 0.1)
        states.append(theta)
    misfit = 0.0
    for i, s in enumerate(states):
        misfit = misfit + (s - OBSERVED[i]) ** 2
    return misfit


SCALAR = {"stack": (s_stack, 0.7), "comprehension": (s_comprehension, 0.4), "pair": (s_pair, 0.3),
          "split": (s_split, 0.6), "slogdet": (s_slogdet, 0.5), "append": (s_append, 0.8),
          "pendulum": (s_pendulum, 0.3)}


def second_difference(f, t, h=1e-4):
    return (f(t + h) - 2.0 * f(t) + f(t - h)) / (h * h)


@pytest.mark.parametrize("name", sorted(SCALAR))
def test_grad_of_grad(name):
    f, t = SCALAR[name]
    assert srcdiff.grad(srcdiff.grad(f))(t) == pytest.approx(second_difference(f, t), rel=1e-5, abs=1e-5)


@pytest.mark.parametrize("name", ["pair", "append", "comprehension", "stack"])
def test_third_derivative(name):
    f, t = SCALAR[name]
    h = 1e-3  # the third derivative by central differences of the (checked) second difference
    expected = (second_difference(f, t + h, 1e-3) - second_difference(f, t - h, 1e-3)) / (2 * h)
    got = srcdiff.grad(srcdiff.grad(srcdiff.grad(f)))(t)
    assert got == pytest.approx(expected, rel=1e-3, abs=1e-3)


# ---- the code each order writes ----

def test_the_first_order_code_is_unchanged():
    x = np.array([0.3, 0.5, 0.9])
    assert "list(" in srcdiff.grad(stack_named).source_for(x)
    assert ".pop()" in srcdiff.grad(append_then_loop).source_for(x)
    assert "[0.0] * len(" in srcdiff.grad(small_list).source_for(x)


@pytest.mark.parametrize("f, helpers", [(stack_named, ["list_rows("]), (append_then_loop, ["list_drop(", "list_add("]),
                                        (small_list, ["zeros_list(", "list_add("]),
                                        (list_of_arrays_summed, ["list_repeat("])])
def test_the_derivable_code_updates_no_list_in_place(f, helpers):
    x = np.array([0.3, 0.5, 0.9])
    _, made = srcdiff.grad(f)._derivable((x,))
    assert all(h in made.source for h in helpers)
    assert ".pop()" not in made.source and "[0.0] * len(" not in made.source
    assert not re.search(r"(?<![\w.])list\(", made.source)
    for line in made.source.splitlines():
        assert not (line.strip().split("=")[0].strip().endswith("]")), line  # no ``xs_bar[i] = ...``


def test_list_helpers_are_linear_pairs(rng):
    # <h, helper(a)> = <partner(h), a>: each helper's rule moves its adjoint through its partner
    from srcdiff.rules import list_helpers as lh
    from srcdiff.rules import runtime

    a = rng.normal(size=(3, 2))
    h = [rng.normal(size=2) for _ in range(3)]
    paired = sum(np.sum(hi * ri) for hi, ri in zip(h, lh.list_rows(a)))
    assert paired == pytest.approx(np.sum(lh.rows_adjoint(h, a) * a))
    v = rng.normal(size=2)
    assert sum(np.sum(hi * v) for hi in h) == pytest.approx(np.sum(lh.list_total(h, v) * v))
    pieces = np.split(rng.normal(size=6), [2, 5])
    b = rng.normal(size=6)
    parts = lh.split_like(b, pieces, 0)
    assert [p.shape for p in parts] == [(2,), (3,), (1,)]
    assert np.array_equal(runtime.split_adjoint(parts, pieces, 0), b)
