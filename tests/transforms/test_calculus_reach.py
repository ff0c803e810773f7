"""NumPy's numerical calculus, statistics, sorting and complex-of-real functions (#25) in every
transformation: grad, jvp, vjp, the three second orders, float32 and jit="numba", each
against float64 central differences (tests/numeric.py) or a closed form written by hand.

Each program is nonlinear around its rule, so its second derivatives are not all zero."""

import math

import numpy as np
import pytest
import scipy.stats as st
from numeric import SECOND_ORDER, assert_close, central_difference, hessian_difference

import srcdiff

RNG = np.random.default_rng(25)
POINTS = np.array([0.0, 1.0, 1.5, 3.0])


def diff_twice(x):
    return np.sum(np.diff(x, n=2, axis=1) ** 2 * np.cos(x[:, :3])) + np.sum(np.diff(x, axis=0) ** 3)


def diff_ends(x):
    return np.sum(np.diff(np.sin(x), prepend=x[0] ** 2, append=1.0) ** 2)


def ediff(x):
    return np.sum(np.ediff1d(x * x, to_begin=0.5) ** 3) + np.sum(np.ediff1d(np.sin(x)) ** 2)


def gradient_1d(x):
    return np.sum(np.gradient(x ** 2, 0.5) * np.cos(x))


def gradient_axes(x):
    s = np.sin(x)
    gy, gx = np.gradient(s)
    return np.sum(gy * gx) + np.sum(np.gradient(x, axis=1, edge_order=2) ** 2)


def spaced(x):
    return np.sum(np.linspace(x[0], x[1] ** 2, 7) ** 3) + np.sum(np.geomspace(np.exp(x[1]), 2.0, 4) ** 2)


def products(x):
    return np.sum(np.cumprod(x, axis=1) * np.cos(x)) + np.sum(np.cumprod(x[0]) ** 2)


def integrals(x):
    return np.trapezoid(x[0] ** 2, np.cumsum(np.exp(x[1]))) + np.sum(np.trapezoid(np.sin(x), dx=0.2, axis=0))


def polynomial(x):
    return np.sum(np.polyval(x[0], x[1]) ** 2)


def interpolated(x):
    return np.sum(np.interp(np.array([0.2, 1.2, 2.9, 3.5]), POINTS, x[0, :4] ** 3)) + \
        np.sum(np.interp(np.abs(x[1]) + 0.1, POINTS, np.array([1.0, 2.0, 0.5, 4.0])) ** 2)


def sorted_values(x):
    return np.sum(np.sort(x, axis=1) ** 2 * np.cos(x)) + np.sum(np.partition(np.ravel(x), 3)[:4] ** 3)


def statistics(x):
    weights = np.exp(x[0])
    return np.average(x[1] ** 2, weights=weights) + np.sum(np.cov(x) * np.corrcoef(x) ** 2)


def complex_of_real(x):
    return np.sum(np.conjugate(x) ** 3 + np.imag(x) * x + np.angle(x) * x ** 2 + x.real * np.real_if_close(x))


def conversions(x):
    s = np.float64(np.sum(x ** 2))
    return s * np.sum(x).item() + np.nan_to_num(np.log(x[0] ** 2)).sum() + math.pow(np.sum(x * x).tolist(), 1.5)


def norms(x):
    return np.linalg.norm(x[0], 3) ** 2 + np.linalg.norm(x[1], -np.inf) * np.linalg.norm(x[0], ord=1.5)


def poisson_cdf(mu):
    return np.sum(st.poisson.cdf(np.array([0.0, 1.0, 2.0, 4.0, 6.0]), np.exp(mu)) ** 2)


PROGRAMS = [diff_twice, diff_ends, ediff, gradient_1d, gradient_axes, spaced, products, integrals, polynomial,
            interpolated, sorted_values, statistics, complex_of_real, conversions, norms, poisson_cdf]
INPUTS = {"gradient_1d": RNG.normal(size=6), "spaced": np.array([0.3, 0.8]), "poisson_cdf": RNG.normal(size=5),
          "complex_of_real": RNG.uniform(0.2, 1.5, size=(2, 3)) * np.array([1.0, -1.0, 1.0]),
          "ediff": RNG.normal(size=4), "diff_ends": RNG.normal(size=5)}


def point(f):
    return INPUTS.get(f.__name__, RNG.uniform(0.3, 1.5, size=(2, 5)) * np.where(np.arange(5) % 2, 1.0, -1.0))


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_gradient(f, check_gradient):
    check_gradient(f, (point(f),), 0)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_jvp_and_vjp(f):
    x = point(f)
    v = RNG.normal(size=x.shape)
    expected = np.sum(central_difference(f, (x,), 0) * v)
    value, tangent = srcdiff.jvp(f, (x,), (v,))
    assert_close(value, f(x))
    assert_close(tangent, expected, rtol=1e-5, atol=1e-6)
    value, pullback = srcdiff.vjp(f, x)
    assert_close(pullback(1.0), central_difference(f, (x,), 0), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("transform", SECOND_ORDER)
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_second_order(f, transform):
    x = point(f)
    expected = hessian_difference(f, (x,))
    if transform == "hessian":
        got = srcdiff.hessian(f)(x)
    elif transform == "hvp":
        v = np.random.default_rng(3).normal(size=x.shape)
        got, expected = srcdiff.hvp(f, x, v), np.tensordot(expected, v, axes=x.ndim)
    else:
        got = srcdiff.jacobian(srcdiff.grad(f))(x)
    assert_close(got, expected, rtol=1e-4, atol=1e-5)


#: programs whose value NumPy computes in float64 from float32 operands (np.cov, np.interp,
#: np.linspace, SciPy, a float64 constant appended), so their derivatives are float64 too
FLOAT64_VALUES = {"diff_ends", "statistics", "conversions", "poisson_cdf", "spaced", "interpolated"}


@pytest.mark.parametrize("f", [f for f in PROGRAMS if f.__name__ not in FLOAT64_VALUES], ids=lambda f: f.__name__)
def test_float32_in_float32_out(f):
    x = point(f).astype(np.float32)
    assert np.result_type(f(x)) == np.float32
    g = srcdiff.grad(f)(x)
    assert g.dtype == np.float32
    assert_close(g, central_difference(f, (x.astype(np.float64),), 0), rtol=2e-3, atol=2e-3)


#: compiled by numba and equal to the Python gradient; every other program is refused at its
#: line (docs/jit.md lists the functions), never run by plain NumPy in numba's stead
NUMBA_COMPILES = {"ediff", "statistics", "norms", "gradient_1d", "sorted_values"}  # (sorts and partitions: numba12)


#: refused: a helper with no numba version, a NumPy function numba lacks, a method it lacks
#: (each compile attempt takes seconds: two stand for the rest)
NUMBA_REFUSES = {"gradient_axes", "conversions"}


#: numba compiles for seconds per program: these rows run under ``pytest -m slow``.
NUMBA_SLOW = {"statistics", "ediff", "sorted_values"}


@pytest.mark.parametrize("f", [
    pytest.param(f, id=f.__name__, marks=pytest.mark.slow if f.__name__ in NUMBA_SLOW else ())
    for f in PROGRAMS if f.__name__ in NUMBA_COMPILES | NUMBA_REFUSES])
def test_numba_compiles_or_refuses_at_the_line(f):
    pytest.importorskip("numba")
    x = point(f)
    if f.__name__ in NUMBA_COMPILES:
        assert_close(srcdiff.grad(f, jit="numba")(x), srcdiff.grad(f)(x), rtol=1e-10, atol=1e-12)
        return
    with pytest.raises(srcdiff.SrcDiffError, match="numba|jit"):
        srcdiff.grad(f, jit="numba")(x)


def split_at(x, cuts, axis):
    return np.sum(np.split(x, cuts, axis=axis)[1] ** 2)


def rows(x, picked):
    return np.sum(x[picked] ** 2)


def test_a_list_of_ints_is_a_static_argument():
    x = RNG.normal(size=(4, 5))
    for cuts, axis in (([1, 3], 0), ((2, 4), 1), ([2], 1)):
        assert_close(srcdiff.grad(split_at)(x, cuts, axis), central_difference(split_at, (x, cuts, axis), 0))
    # a list index picks rows, a tuple one element: the two are different specialisations
    assert_close(srcdiff.grad(rows)(x, [0, 1]), central_difference(rows, (x, [0, 1]), 0))
    assert_close(srcdiff.grad(rows)(x, (0, 1)), central_difference(rows, (x, (0, 1)), 0))
