"""What the red team's fifteenth wave found wrong, each class a strict xfail naming it, with variants of its own,
through the transformations that show it.  References are float64 central differences of the function
(tests/numeric.py) or the closed form, written out; never srcdiff.

The wave's 194 programs (redteam_wave15*.py) ran through grad, value_and_grad, hessian, jvp, vjp and trees,
and a third of them through ``jit="numba"``; hand probes of the same programs added jacobian, hvp, grad of
grad, jvp of grad, checkpoint=, wrt paths and has_aux.  Apart from the three classes below, every answer
agreed with central differences, was a refusal at the user's line (test_redteam_wave15_open.py), or was a
documented NaN (the Hessian of a tie that is not proved persistent, ``xlogy(p, p)`` at 0, an overflowed
sigmoid's tail, listed in the open file)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special
import scipy.stats
from numeric import central_difference

import srcdiff

from . import redteam_wave15_points as points

HERE = "test_redteam_wave15_findings.py"


def _first_by_default(cases: list, name=lambda case: case[0].__name__) -> list:
    """`cases` as pytest parameters, every one but the first marked slow."""
    return [pytest.param(*c, id=name(c), marks=() if k == 0 else pytest.mark.slow) for k, c in enumerate(cases)]


# ---- 1. (FIXED for np.clip) np.clip with equal bounds (a frozen coordinate), at the bound --------------------
# ``np.clip(w, lower, upper)`` with ``lower[i] == upper[i]`` (a parameter held fixed by equal bounds, as
# scipy's L-BFGS-B allows) is the constant ``lower[i]`` whatever ``w[i]``: its derivative in ``w[i]`` is 0 at
# every point, the bound included.  Where ``w[i]`` started at that value srcdiff gave 1/4 of the outer
# adjoint, silently (clip read as ``minimum(maximum(w, lower), upper)``, each tie sharing half).  np.clip's
# rule now gives x no share where the bounds are equal, in every transformation.  The same clip written as
# two calls (``np.minimum(np.maximum(x, lo), hi)``, builtin ``min(max(...))``) is the documented "kinks
# composed at the same point" (docs/guarantees.md): still the quarter share, kept as a strict xfail.


def clip_minmax_spelling(w, lower, upper):
    z = np.minimum(np.maximum(w, lower), upper)
    return np.sum(z ** 2 + z)


def clip_scalar_frozen(x):
    return float(np.clip(x, 1.0, 1.0)) * 3.0 + x


def builtin_min_max_frozen(x, lo=1.0, hi=1.0):
    return min(max(x, lo), hi) * 3.0 + x


_R = np.random.default_rng(15)
_X, _Y = _R.normal(size=(5, 3)), _R.normal(size=5)
_LOWER, _UPPER = np.array([-1.0, 1.0, -1.0]), np.array([1.0, 1.0, 1.0])
FROZEN = [  # np.clip itself: fixed (rules/numpy_elementwise.py gives x no share where a_min == a_max)
    (points.frozen_bounds, (np.array([0.5, 1.0, -0.3]), _X, _Y, _LOWER, _UPPER), 1),
    (clip_scalar_frozen, (1.0,), None),
]
#: the same clip written as two calls: the documented "kinks composed at the same point" (docs/guarantees.md)
COMPOSED = [
    (clip_minmax_spelling, (np.array([1.0, 0.5, 2.0]), np.array([1.0, 0.0, 2.0]), np.array([1.0, 1.0, 2.0])), (0, 2)),
    (builtin_min_max_frozen, (1.0,), None),
]


def _want(f, args, frozen):
    """Central differences of f, with the frozen coordinates' exact 0 (f does not depend on them)."""
    want = np.asarray(central_difference(f, args, 0), dtype=float)
    if frozen is None:
        return float(want)  # the frozen number: only the `+ x` term moves f
    for i in np.atleast_1d(frozen):
        assert want[i] == 0.0  # both one-sided differences are exactly 0: f is constant in that coordinate
    return want


def _assert_first_order(f, args, frozen):
    want = _want(f, args, frozen)
    got = {"grad": srcdiff.grad(f)(*args), "value_and_grad": srcdiff.value_and_grad(f)(*args)[1],
           "vjp": srcdiff.vjp(f, *args)[1](1.0), "numba": srcdiff.grad(f, jit="numba")(*args)}
    for name, g in got.items():
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-9, err_msg=name)


@pytest.mark.parametrize("f, args, frozen", FROZEN)
def test_clip_with_equal_bounds_at_the_bound(f, args, frozen):
    _assert_first_order(f, args, frozen)


@pytest.mark.slow
@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="clip written as minimum(maximum(...)): kinks composed at the same point (documented)")
@pytest.mark.parametrize("f, args, frozen", COMPOSED)
def test_clip_composed_with_equal_bounds_at_the_bound(f, args, frozen):
    _assert_first_order(f, args, frozen)


def test_clip_with_equal_bounds_second_order():
    """The Hessian in the frozen coordinate is 0 too (clip is constant there)."""
    f, args, _ = FROZEN[0]
    H = srcdiff.hessian(f)(*args)
    assert np.all(H[1] == 0.0) and np.all(H[:, 1] == 0.0), H


def test_clip_with_equal_bounds_jvp():
    args = FROZEN[0][1]
    v = np.array([0.0, 1.0, 0.0])  # along the frozen coordinate alone: f does not move
    _, tangent = srcdiff.jvp(points.frozen_bounds, args, (v, None, None, None, None))
    assert tangent == 0.0, tangent


def test_clip_with_equal_bounds_exact_elsewhere():
    """The free coordinates and a point off the bound are exact (the class is the tie at the frozen value)."""
    f, args, _ = FROZEN[0]
    want = central_difference(f, args, 0)
    np.testing.assert_allclose(srcdiff.grad(f)(*args)[[0, 2]], want[[0, 2]], rtol=1e-6)
    off = (np.array([0.5, 1.3, -0.3]), *args[1:])
    np.testing.assert_allclose(srcdiff.grad(f)(*off), central_difference(f, off, 0), rtol=1e-6, atol=1e-9)


# ---- 2. (FIXED) CRASH at second order: a helper that takes a function, called from another helper -------------
# An RK4 integrator written once and handed its right-hand side, ``rk4_step(two_body_rhs, y, dt, mu)``, inside
# a helper ``orbit_rk4(state0, mu=...)`` that the differentiated function calls: grad, jvp and vjp are exact
# (the first pass specialises the callee as ``rk4_step_with_two_body_rhs``), but differentiating that gradient
# again, ``srcdiff.jacobian(srcdiff.grad(f))`` (reverse over reverse) crashes with ``NameError: name
# 'rk4_step_with_two_body_rhs' is not defined``, and ``hessian`` (and grad of grad, jvp of grad) refuses,
# "generated code it cannot differentiate ...: cannot tell which function rk4_step_with_two_body_rhs is".
# The same helper called from the differentiated function itself, or the loop written inline, works at
# every order.  Minimal: ``step(f, y, dt)`` called by ``inner(y0, dt)`` called by ``outer(dt, y0)``; the
# function handed over may be NumPy's own (``_apply_twice(np.sin, x)`` inside a helper: '_apply_twice_with_sin').
# Fixed: a helper whose code calls a helper bound in its own closure only (ad/inline.py: `_resolves`) is no
# longer copied into its caller, so its code keeps the name, at every order.


def _step(f, y, dt):
    return y + dt * f(y)


def _cube(y):
    return -y ** 3


def _inner(y0, dt):
    return np.sum(_step(_cube, y0, dt) ** 2)


def stepped_through_helper(dt, y0):
    return _inner(y0, dt)


def _rk4(f, y, dt, *args):
    k1 = f(y, *args)
    k2 = f(y + 0.5 * dt * k1, *args)
    k3 = f(y + 0.5 * dt * k2, *args)
    k4 = f(y + dt * k3, *args)
    return y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def _decay(y, k):
    return -k * y ** 3


def _integrate(y0, k=1.0, steps=3):
    y = y0
    for _ in range(steps):
        y = _rk4(_decay, y, 0.1, k)
    return np.sum(y)


def integrate_rate(k, y0):
    return _integrate(y0, k=k)


def _apply_twice(f, x):
    return f(f(x))


def _sin_twice(x):
    return _apply_twice(np.sin, x)


def numpy_function_through_helper(x):
    return np.sum(_sin_twice(x) ** 2)


def _second_difference(f, args, h=1e-4):
    """d2 f / d args[0]^2 of a number args[0], by central second differences of f."""
    x = args[0]
    return (f(x + h, *args[1:]) - 2 * f(x, *args[1:]) + f(x - h, *args[1:])) / h ** 2


SECOND = [(stepped_through_helper, (0.7, np.array([1.0, 0.5]))),
          (integrate_rate, (0.7, np.array([1.0, 0.5]))),
          (numpy_function_through_helper, (0.6,))]


@pytest.mark.parametrize("f, args", _first_by_default(SECOND))
def test_function_argument_helper_first_order_exact(f, args):
    np.testing.assert_allclose(srcdiff.grad(f)(*args), central_difference(f, args, 0), rtol=1e-6)


@pytest.mark.parametrize("f, args", _first_by_default(SECOND))
def test_function_argument_helper_reverse_over_reverse(f, args):
    got = srcdiff.jacobian(srcdiff.grad(f))(*args)
    np.testing.assert_allclose(got, _second_difference(f, args), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("f, args", _first_by_default(SECOND))
def test_function_argument_helper_hessian(f, args):
    got = srcdiff.hessian(f)(*args)
    np.testing.assert_allclose(got, _second_difference(f, args), rtol=1e-4, atol=1e-6)


@pytest.mark.slow
def test_orbit_rk4_reverse_over_reverse():
    """The wave's own program: the two-body orbit through its RK4 helper, differentiated twice in mu."""
    from . import redteam_wave15_science as science
    args = (1.0, np.array([1.0, 0.0, 0.0, 1.1]))
    got = srcdiff.jacobian(srcdiff.grad(science.orbit_rk4_mu))(*args)
    np.testing.assert_allclose(got, _second_difference(science.orbit_rk4_mu, args), rtol=1e-4, atol=1e-5)


# ---- 3. (FIXED) NaN (or inf) where the derivative is finite: scipy.stats' log-CDF and log-SF in their tails ----
# ``scipy.stats.norm.logcdf(x)`` is finite far in the left tail (-804.6 at x = -40: SciPy computes it as
# log_ndtr), and so is its derivative, phi(x) / Phi(x) ~ -x = 40.02.  srcdiff gives inf at x = -38 and NaN
# from x = -39 on (the ratio of two underflowed numbers), in grad and jvp alike, while
# ``scipy.special.log_ndtr`` at the same points is exact; the same for ``norm.logsf`` at +40, ``norm.logcdf``
# with loc / scale, ``scipy.stats.logistic.logcdf`` at -800 (truth 1) and ``scipy.stats.expon.logsf`` at 800
# (truth -1: the log-survival of an exponential is -x).  A Tobit or survival likelihood with one observation
# far in a tail (a censoring limit 40 standard deviations away, an exponential survival time 800 scales
# long) gets a NaN gradient in every parameter.  Not silent, but not the documented "NaN where the truth is
# infinite or does not exist" either.  References are the closed forms, written with log_ndtr so they stay
# finite: d/dx log Phi(x) = exp(log phi(x) - log Phi(x)).  Fixed: rules/scipy_stats.py writes the log of a
# tail probability's derivative as that one exponential, exp(log f - ans), for every continuous family.


def norm_logcdf_tail(x):
    return np.sum(scipy.stats.norm.logcdf(x))


def norm_logsf_tail(x):
    return np.sum(scipy.stats.norm.logsf(x))


def norm_logcdf_scaled(x):
    return np.sum(scipy.stats.norm.logcdf(x, loc=1.0, scale=2.0))


def logistic_logcdf_tail(x):
    return np.sum(scipy.stats.logistic.logcdf(x))


def expon_logsf_tail(x):
    return np.sum(scipy.stats.expon.logsf(x))


def _mills(z):
    """phi(z) / Phi(z), written so that it stays finite in the left tail."""
    return np.exp(-0.5 * z * z - 0.5 * np.log(2 * np.pi) - scipy.special.log_ndtr(z))


_TAIL = np.array([-40.0, -10.0, 0.5])
TAILS = [
    (norm_logcdf_tail, _TAIL, _mills(_TAIL)),
    (norm_logsf_tail, -_TAIL, -_mills(_TAIL)),
    (norm_logcdf_scaled, np.array([-80.0, 0.3]), _mills((np.array([-80.0, 0.3]) - 1.0) / 2.0) / 2.0),
    (logistic_logcdf_tail, np.array([-800.0, 0.3]), scipy.special.expit(-np.array([-800.0, 0.3]))),
    (expon_logsf_tail, np.array([0.5, 800.0]), np.array([-1.0, -1.0])),
]


def test_tail_references_are_finite_and_the_functions_too():
    for f, x, want in TAILS:
        assert np.isfinite(f(x)) and np.all(np.isfinite(want)), f.__name__


@pytest.mark.parametrize("f, x, want", _first_by_default(TAILS))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_scipy_stats_log_cdf_in_the_tail(f, x, want):
    np.testing.assert_allclose(srcdiff.grad(f)(x), want, rtol=1e-7, err_msg="grad")
    np.testing.assert_allclose(srcdiff.jvp(f, (x,), (np.ones_like(x),))[1], np.sum(want), rtol=1e-7, err_msg="jvp")


def test_log_ndtr_in_the_tail_is_exact():
    """The special function itself is exact at the same points: the class is the scipy.stats spelling."""
    got = srcdiff.grad(log_ndtr_tail)(_TAIL)
    np.testing.assert_allclose(got, _mills(_TAIL), rtol=1e-7)


def log_ndtr_tail(x):
    return np.sum(scipy.special.log_ndtr(x))


@pytest.mark.parametrize("name", _first_by_default([("w15_tobit_far_censored",), ("w15_exponential_survival_long",)],
                                                   name=lambda case: case[0]))
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_tail_likelihoods_of_the_wave(name):
    """The wave's own programs: a Tobit fit with one observation censored 40 standard deviations away, and an
    exponential survival model with a follow-up 800 scales long (its censored term is expon.logsf)."""
    from . import corpus
    from .redteam_wave15_science import SCIENCE15
    func, make, wrt = {n: (f, m, w) for n, f, m, w in SCIENCE15}[name]
    args = tuple(make(corpus._seed(f"redteam:{name}")))
    want = central_difference(func, args, wrt)
    assert np.all(np.isfinite(want)) and np.isfinite(func(*args))
    np.testing.assert_allclose(srcdiff.grad(func, wrt=wrt)(*args), want, rtol=1e-6, atol=1e-8)
