"""What the red team's sixteenth wave found wrong, each class a strict xfail naming it, with variants of its own,
through the transformations that show it.  References are float64 central differences of the function
(tests/numeric.py) or the closed form, written out; never srcdiff.

The wave's programs (redteam_wave16*.py: 229 rows, textbook ports, vector maps, novice code, idioms, Python's
gotchas, trees, special points, float32, NumPy spellings) ran through grad, value_and_grad, hessian, jvp, vjp and
trees, and 40% of them through ``jit="numba"`` and ``srcdiff.check``; hand probes added jacobian / jvp / vjp of
the vector maps, vmap of grad, hvp, jacobian of grad, float32 arguments, wrong inputs, ties and kinks that
cancel, writes through views, caches after a mutation, random draws, and spellings of guards and roots at 0.
Apart from the classes below every answer agreed with central differences, was a refusal at the user's line
(test_redteam_wave16_open.py), or was a documented NaN (the Hessian of kinks that cancel,
``w16_clip_plus_overflows``, in test_matrix.KNOWN).  Classes 1-3 are here; 4-8 (random draws, a root at the
edge of its domain, ties between elements of one array at second order, the maximum spelled two ways) in
test_redteam_wave16_findings_more.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import redteam_wave16_points as points

ZERO = 0.0  # a module-level name for 0, as user code spells a tolerance or a sentinel


def _first_order(f, args, wrt=0) -> dict:
    """Each first-order transformation's derivative of scalar f in argument `wrt` (a refusal, a SrcDiffError,
    is an honest answer and is left out)."""
    tangents = tuple(np.ones_like(a) if i == wrt else None for i, a in enumerate(args))
    calls = {"grad": lambda: srcdiff.grad(f, wrt=wrt)(*args),
             "value_and_grad": lambda: srcdiff.value_and_grad(f, wrt=wrt)(*args)[1],
             "vjp": lambda: srcdiff.vjp(f, *args, wrt=wrt)[1](1.0),
             "jvp": lambda: srcdiff.jvp(f, args, tangents)[1],
             "numba": lambda: srcdiff.grad(f, wrt=wrt, jit="numba")(*args)}
    out = {}
    for name, call in calls.items():
        try:
            out[name] = call()
        except srcdiff.SrcDiffError:
            pass
    assert out, "every transformation refused"
    return out


def _assert_agrees(got: dict, want) -> None:
    """Every result agrees with `want` (jvp along the ones direction: its sum)."""
    bad = {}
    for name, g in got.items():
        w = np.sum(want) if name == "jvp" else want
        if not np.allclose(np.asarray(g, dtype=float), w, rtol=1e-6, atol=1e-9):
            bad[name] = g
    assert not bad, f"want {want}, got {bad}"


# ---- 1. SILENT: a product whose factors all move with the input, under a root with an infinite slope ---------
# ``np.cbrt(x * x * x)`` is x: its derivative at 0 is 1.  srcdiff gives 0 in grad, value_and_grad, vjp, jvp and
# jit="numba" (float32 too), silently.  The rule "a zero factor before a point of infinite slope"
# (docs/guarantees.md) selects 0 where a factor of the product is 0, reading the product as "does not depend on
# x there"; that holds for a mask or a scale that is not differentiated, not for factors that all vanish with
# x, where the root's infinite slope and the product's zero tangent meet in a finite, nonzero limit.  Forward
# mode does the same for a power: the tangent of ``x ** 3`` at 0 is 0, and ``jvp`` of ``np.cbrt(x ** 3)`` is 0
# (reverse mode gives NaN there, class 2).  ``srcdiff.check`` passes the wrong 0 of the second variant: sympy's
# own derivative is 0/0 at the user's point, so it compares at the other points only.  The Hessian is NaN.
# FIXED (ad/roots.py): a root of a power of one value is differentiated as the power it is, exact at 0 in every
# transformation; a zero factor selects 0 only where the other factor is not 0 too (tests/transforms/test_roots16.py).


def cbrt_cube(x):
    return np.cbrt(x * x * x)


def cbrt_scaled_product(a):
    return np.cbrt(a * (2.0 * a) * (3.0 * a))


def cbrt_nested_product(x):
    return 2.0 * np.cbrt(x * (x * x)) + x


ZERO_FACTOR = [(cbrt_cube, 1.0), (cbrt_scaled_product, 6.0 ** (1.0 / 3.0)), (cbrt_nested_product, 3.0)]


@pytest.mark.parametrize("f, truth", ZERO_FACTOR, ids=lambda c: getattr(c, "__name__", ""))
def test_root_of_a_product_of_vanishing_factors(f, truth):
    assert np.isclose(float(central_difference(f, (0.0,), 0)), truth)  # f is smooth: the reference exists
    _assert_agrees(_first_order(f, (0.0,)), truth)


def test_root_of_a_product_of_vanishing_factors_float32():
    g = srcdiff.grad(cbrt_cube)(np.float32(0.0))
    assert np.isclose(g, 1.0), g


def cbrt_of_power(x):
    return np.cbrt(x ** 3)


def cbrt_of_product_reduction(t):
    return np.cbrt(np.prod(t * np.array([1.0, 2.0, 4.0])))


@pytest.mark.parametrize("f, truth", [(cbrt_of_power, 1.0), (cbrt_of_product_reduction, 2.0)],
                         ids=["cbrt_of_power", "cbrt_of_product_reduction"])
def test_forward_mode_root_of_a_stationary_power(f, truth):
    _, tangent = srcdiff.jvp(f, (0.0,), (1.0,))
    assert np.isclose(tangent, truth), tangent


def test_check_agrees_with_the_exact_root_of_a_product():
    """srcdiff.check agreed with the wrong 0 (sympy's derivative is 0/0 at the point, so it compared at the
    others only); the gradient is now the exact 6 ** (1/3), and check agrees with it."""
    assert np.isclose(srcdiff.grad(cbrt_scaled_product)(0.0), 6.0 ** (1.0 / 3.0))
    report = srcdiff.check(cbrt_scaled_product, 0.0, progress=False)
    assert report.status != "MISMATCH", str(report)


def test_root_of_a_product_is_exact_away_from_zero_and_with_a_mask():
    """The class is factors that vanish together: elsewhere, and for a zero mask (not differentiated), exact."""
    _assert_agrees(_first_order(cbrt_scaled_product, (0.7,)), central_difference(cbrt_scaled_product, (0.7,), 0))

    def masked(x, m):
        return np.cbrt(x * m) + x
    _assert_agrees(_first_order(masked, (0.4, 0.0)), 1.0)


# ---- 2. NaN where the derivative is finite: a power stationary at 0 under a root -----------------------------
# ``np.sqrt(x ** 4 + y ** 4)`` (a norm of the squares), ``np.sqrt(np.sum(x ** 4))``, ``np.cbrt(x ** 3)`` and
# ``(x ** 6) ** (1/3)`` are differentiable at 0 (gradient 0, 0, 1, 0), but grad, value_and_grad, vjp and numba
# give NaN: the root's infinite adjoint at 0 times the power's zero partial.  Written as a product
# (``np.sqrt(x * x * x * x)``) the same function is exact, by the zero-factor rule; docs/guarantees.md covers
# products and a zero *adjoint* of a root of a sum of squares, not a zero partial of a power.  Not silent
# (NaN, and debug=True names the line), but the derivative exists.
# FIXED (ad/roots.py): a root of a power is that power; a root of a sum of even powers above its order selects its
# exact 0 where the sum is 0.


def sqrt_sum_of_fourth_powers(x):
    return np.sqrt(np.sum(x ** 4)) + np.sum(x)


STATIONARY_POWER = [
    (points.sqrt_sum_fourth_at_zero, (0.0, 0.0)),
    (points.root_of_even_power, (np.array([0.0, 1.0, -2.0]),)),
    (sqrt_sum_of_fourth_powers, (np.zeros(3),)),
    (cbrt_of_power, (0.0,)),
]


@pytest.mark.parametrize("f, args", STATIONARY_POWER, ids=lambda c: getattr(c, "__name__", ""))
def test_root_of_a_stationary_power_at_zero(f, args):
    want = central_difference(f, args, 0)
    got = _first_order(f, args)
    del got["jvp"]  # forward mode gives the exact 0 (or class 1's silent 0 for cbrt)
    _assert_agrees(got, want)


def test_root_of_the_same_power_written_as_a_product_is_exact():
    def product(x):
        return np.sqrt(x * x * x * x) + x
    _assert_agrees(_first_order(product, (0.0,)), 1.0)


# ---- 3. SILENT: an equality guard srcdiff does not recognise (fixed: lower/guard_spellings.py, test_guards16.py)
# docs/guarantees.md ("An equality guard") gives NaN at a point ``if x == 0.0:`` or ``np.where(x == 0, ...)``
# singles out, because the guarded branch's derivative (that of a constant) is not the continuation's.  Other
# spellings of the same guard are not recognised, and their branch's derivative comes out silently: the
# conditional expression ``1.0 if x == 0.0 else math.expm1(x) / x``, ``if not x:``, ``math.isclose(x, 0.0)``
# (an exact test: abs_tol is 0), a comparison with a name holding 0 (``x == ZERO``, a module constant), and
# ``np.all(x == 0)`` for a vector all give the gradient 0 where the truth is 1/2, in grad, value_and_grad, vjp,
# jvp and numba; the Hessian of the hand-written sinc ``1.0 if x == 0 else math.sin(x) / x`` is 0 (truth -1/3).
# Also unrecognised: ``abs(x) == 0.0``, ``float(x) == 0``, ``x == 0 or x == 5``, ``x in (0.0,)``,
# ``np.isclose(x, 0.0, atol=0.0)``, ``np.equal(x, 0.0)`` and ``np.logical_not(x)`` in np.where.  The measure
# guard of Rodrigues' rotation written as a conditional expression (``R = ... if theta > 0 else np.eye(3)``), tested
# in a helper given the norm, or on ``math.sqrt`` of a sum of three squares gives 0 at w = 0 where the truth is the
# derivative of ``skew(w)``.


def expm1_ratio_ternary(x):
    return 1.0 if x == 0.0 else math.expm1(x) / x


def expm1_ratio_not(x):
    if not x:
        return 1.0
    return math.expm1(x) / x


def expm1_ratio_isclose(x):
    if math.isclose(x, 0.0):
        return 1.0
    return math.expm1(x) / x


def expm1_ratio_named_zero(x):
    if x == ZERO:
        return 1.0
    return math.expm1(x) / x


def expm1_ratio_all_zero(x):
    if np.all(x == 0):
        return float(len(x))
    safe = np.where(x == 0.0, 1.0, x)
    return float(np.sum(np.where(x == 0.0, 1.0, np.expm1(safe) / safe)))


GUARDS = [(expm1_ratio_ternary, (0.0,)), (expm1_ratio_not, (0.0,)), (expm1_ratio_isclose, (0.0,)),
          (expm1_ratio_named_zero, (0.0,)), (expm1_ratio_all_zero, (np.zeros(2),))]


def _nan_or_agrees(got: dict, want) -> None:
    """The documented NaN of a guarded point, or the continuation's derivative; never another number."""
    bad = {}
    for name, g in got.items():
        w = np.sum(want) if name == "jvp" else want
        g = np.asarray(g, dtype=float)
        if not (np.all(np.isnan(g)) or np.allclose(g, w, rtol=1e-6, atol=1e-9)):
            bad[name] = g
    assert not bad, f"want NaN or {want}, got {bad}"


@pytest.mark.parametrize("f, args", GUARDS, ids=lambda c: getattr(c, "__name__", ""))
def test_equality_guard_spelled_otherwise(f, args):
    want = central_difference(f, args, 0)
    assert np.allclose(want, 0.5, atol=1e-6)  # the continuation's derivative: expm1(x)/x = 1 + x/2 + ...
    _nan_or_agrees(_first_order(f, args), want)


def sinc_ternary(x):
    return 1.0 if x == 0 else math.sin(x) / x


def one_minus_cos_ternary(x):
    return 0.5 if x == 0.0 else (1.0 - math.cos(x)) / (x * x)


@pytest.mark.parametrize("f, truth", [(sinc_ternary, -1.0 / 3.0), (one_minus_cos_ternary, -1.0 / 12.0)],
                         ids=["sinc_ternary", "one_minus_cos_ternary"])
def test_equality_guard_spelled_otherwise_second_order(f, truth):
    got = {"hessian": srcdiff.hessian(f)(0.0), "hvp": srcdiff.hvp(f, 0.0, 1.0),
           "grad_of_grad": srcdiff.grad(srcdiff.grad(f))(0.0)}
    _nan_or_agrees(got, truth)


def _skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def rodrigues_ternary(w, p):
    theta = np.linalg.norm(w)
    K = _skew(w / theta) if theta > 0 else np.zeros((3, 3))
    R = np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K if theta > 0 else np.eye(3)
    return np.sum(R @ p)


def _rotate(w, theta, p):
    if theta > 0:
        K = _skew(w / theta)
        R = np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K
    else:
        R = np.eye(3)
    return np.sum(R @ p)


def rodrigues_measure_in_a_helper(w, p):
    return _rotate(w, np.linalg.norm(w), p)


def rodrigues_math_sqrt(w, p):
    theta = math.sqrt(w[0] ** 2 + w[1] ** 2 + w[2] ** 2)
    if theta > 0:
        K = _skew(w / theta)
        R = np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K
    else:
        R = np.eye(3)
    return np.sum(R @ p)


MEASURE_GUARDS = [rodrigues_ternary, rodrigues_measure_in_a_helper, rodrigues_math_sqrt]


@pytest.mark.parametrize("f", MEASURE_GUARDS, ids=lambda f: f.__name__)
def test_measure_guard_spelled_otherwise(f):
    """Rodrigues' rotation at w = 0, its guard ``theta > 0`` on ``theta = np.linalg.norm(w)`` written as a
    conditional expression, tested in a helper given the norm, or on ``math.sqrt(w[0] ** 2 + w[1] ** 2 + w[2] ** 2)``:
    the derivative is that of ``skew(w)``
    (docs/guarantees.md, 'A measure of several values', gives NaN for the ``if`` statement in the function
    itself); srcdiff gives 0, silently."""
    p = np.array([0.3, -1.0, 2.0])
    want = central_difference(lambda w: np.sum(p + _skew(w) @ p), (np.zeros(3),), 0)  # R = I + skew(w) + O(w^2)
    _nan_or_agrees(_first_order(f, (np.zeros(3), p)), want)


def test_the_documented_guard_spelling_is_nan():
    """The spelling the docs name gives the documented NaN (the class is the spellings it misses)."""
    def guarded(x):
        if x == 0.0:
            return 1.0
        return math.expm1(x) / x
    assert np.isnan(srcdiff.grad(guarded)(0.0))
