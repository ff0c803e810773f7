"""Elements of float64 arrays read as Python floats in loops (backend/optimize/python_floats.py):
the same numbers as the code that keeps NumPy float64s, derivatives against central
differences, and every use a Python float could change leaves the code as it was."""

import math
import warnings

import numpy as np
import pytest
from numeric import central_difference

import srcdiff
import srcdiff.driver.compile as compile_module

OBSERVED = np.cos(0.3 * np.arange(1.0, 13.0)) + 1.5
SINGLE32 = np.linspace(0.1, 1.0, 12).astype(np.float32)


def rhs(theta, omega, c, k):
    return omega, -c * omega - k * math.sin(theta)


def fit_rk2(c, k, observed, steps):
    theta, omega = 1.0, 0.0
    states = []
    for _ in range(steps):
        a1, b1 = rhs(theta, omega, c, k)
        a2, b2 = rhs(theta + 0.1 * a1, omega + 0.1 * b1, c, k)
        theta, omega = theta + 0.05 * (a1 + a2), omega + 0.05 * (b1 + b2)
        states.append(theta)
    misfit = 0.0
    for i in range(len(states)):
        misfit = misfit + (states[i] - observed[i]) ** 2
    return misfit


def fit_leapfrog(c, k, damping, observed, steps):
    x, v = 0.5, 0.0
    misfit = 0.0
    for i in range(steps):
        v = v - 0.05 * (k * math.sin(x) + damping * v * c)
        x = x + 0.1 * v
        r = x - observed[i]
        misfit += r * r * c
    return misfit


def fit_2d(a, b, table, steps):
    total = 0.0
    for i in range(steps):
        total = total + math.tanh(a * table[i, 0] - b) * table[i, 1]
    return total * total


def divides(c, observed, steps):
    total = 0.0
    for i in range(steps):
        total = total + c / (observed[i] - 1.0)
    return total


def powers(c, observed, steps):
    total = 0.0
    for i in range(steps):
        total = total + (c * observed[i]) ** 2.5
    return total


def sums_a_list(c, observed, steps):
    parts = []
    for i in range(steps):
        parts.append(c * observed[i])
    return np.sum(np.array(parts)) ** 2


def reads_float32_global(c, observed, steps):
    total = 0.0
    for i in range(steps):
        total = total + c * observed[i] * SINGLE32[i]
    return total


CASES = [
    (fit_rk2, (0.3, 4.0, OBSERVED, 12), (0, 1), True),
    (fit_leapfrog, (0.7, 3.0, 0.2, OBSERVED, 12), (0, 1, 2), True),
    (fit_2d, (0.8, 0.1, np.stack([OBSERVED, OBSERVED[::-1]], axis=1), 12), (0, 1), True),
    (divides, (0.7, OBSERVED, 12), 0, False),
    (powers, (0.7, OBSERVED, 12), 0, False),
    (sums_a_list, (0.7, OBSERVED, 12), 0, False),
    (reads_float32_global, (0.7, OBSERVED, 12), 0, False),
]


def unchanged(monkeypatch, make):
    """What `make()` computes with the conversion off (code compiled anew)."""
    srcdiff.clear_cache()
    with monkeypatch.context() as m:
        m.setattr(compile_module, "python_float_arrays", lambda found, key: None)
        found = make()
    srcdiff.clear_cache()
    return found


def numeric_gradient(f, args, wrt):
    return [central_difference(f, args, w) for w in ((wrt,) if isinstance(wrt, int) else wrt)]


@pytest.mark.parametrize("f, args, wrt, converts", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_the_same_gradient_as_numpy_numbers_and_central_differences(monkeypatch, f, args, wrt, converts):
    g = srcdiff.grad(f, wrt=wrt)
    got = g(*args)
    assert ("float(" in g.source) is converts
    before = unchanged(monkeypatch, lambda: srcdiff.grad(f, wrt=wrt)(*args))
    assert np.array_equal(np.array(got, dtype=float), np.array(before, dtype=float))  # bitwise
    np.testing.assert_allclose(np.ravel(got), np.ravel(numeric_gradient(f, args, wrt)), rtol=1e-6, atol=1e-8)


#: a Hessian compiled twice and checked by differences costs 5-20 s a case: the default run keeps one
HESSIAN_CASES = [CASES[0][:3]] + [pytest.param(*c[:3], marks=pytest.mark.slow) for c in CASES[1:3]]


@pytest.mark.parametrize("f, args, wrt", HESSIAN_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_the_same_hessian_as_numpy_numbers(monkeypatch, f, args, wrt):
    got = np.array(srcdiff.hessian(f, wrt=wrt)(*args), dtype=float)
    before = np.array(unchanged(monkeypatch, lambda: srcdiff.hessian(f, wrt=wrt)(*args)), dtype=float)
    assert np.array_equal(got, before)
    g = srcdiff.grad(f, wrt=wrt)
    for j, w in enumerate(wrt):  # a column: central differences of the gradient along parameter w
        column = central_difference(lambda *a: np.array(g(*a), dtype=float), args, w)
        np.testing.assert_allclose(got[:, j], column, rtol=1e-5, atol=1e-6)


def test_a_float32_array_keeps_numpy_numbers():
    g = srcdiff.grad(fit_rk2, wrt=(0, 1))
    g(0.3, 4.0, OBSERVED.astype(np.float32), 12)
    assert "float(" not in g.source


def test_a_division_by_zero_still_gives_numpy_s_inf():
    observed = OBSERVED.copy()
    observed[3] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = srcdiff.grad(divides)(0.7, observed, 12)
    assert not np.isfinite(got)  # NumPy's inf, not Python's ZeroDivisionError


def test_the_pendulum_fit_reads_its_observations_as_floats():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
    try:
        from problems import pendulum, pendulum_args, pendulum_grad
    finally:
        sys.path.pop(0)
    args = pendulum_args(steps=20)
    g = srcdiff.grad(pendulum, wrt=(0, 1))
    np.testing.assert_allclose(g(*args), pendulum_grad(*args), rtol=1e-10)
    assert "float(observed[i])" in g.source
    assert all(type(v) is float for v in g(*args))
