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
``w16_clip_plus_overflows``, in test_matrix.KNOWN)."""

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


def cbrt_cube(x):
    return np.cbrt(x * x * x)


def cbrt_scaled_product(a):
    return np.cbrt(a * (2.0 * a) * (3.0 * a))


def cbrt_nested_product(x):
    return 2.0 * np.cbrt(x * (x * x)) + x


ZERO_FACTOR = [(cbrt_cube, 1.0), (cbrt_scaled_product, 6.0 ** (1.0 / 3.0)), (cbrt_nested_product, 3.0)]


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="zero-factor selection where every factor moves: cbrt(x*x*x) at 0 gives 0, truth 1")
@pytest.mark.parametrize("f, truth", ZERO_FACTOR, ids=lambda c: getattr(c, "__name__", ""))
def test_root_of_a_product_of_vanishing_factors(f, truth):
    assert np.isclose(float(central_difference(f, (0.0,), 0)), truth)  # f is smooth: the reference exists
    _assert_agrees(_first_order(f, (0.0,)), truth)


@pytest.mark.xfail(strict=True, raises=AssertionError, reason="zero-factor selection: float32 gives 0 too")
def test_root_of_a_product_of_vanishing_factors_float32():
    g = srcdiff.grad(cbrt_cube)(np.float32(0.0))
    assert np.isclose(g, 1.0), g


def cbrt_of_power(x):
    return np.cbrt(x ** 3)


def cbrt_of_product_reduction(t):
    return np.cbrt(np.prod(t * np.array([1.0, 2.0, 4.0])))


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="forward mode selects 0 for a zero tangent meeting an infinite slope: jvp of cbrt(x**3) is 0")
@pytest.mark.parametrize("f, truth", [(cbrt_of_power, 1.0), (cbrt_of_product_reduction, 2.0)],
                         ids=["cbrt_of_power", "cbrt_of_product_reduction"])
def test_forward_mode_root_of_a_stationary_power(f, truth):
    _, tangent = srcdiff.jvp(f, (0.0,), (1.0,))
    assert np.isclose(tangent, truth), tangent


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="srcdiff.check agrees numerically with the wrong 0: sympy's derivative is 0/0 at the point")
def test_check_finds_the_zero_factor_gradient_wrong():
    report = srcdiff.check(cbrt_scaled_product, 0.0, progress=False)
    assert report.status == "MISMATCH", str(report)


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


def sqrt_sum_of_fourth_powers(x):
    return np.sqrt(np.sum(x ** 4)) + np.sum(x)


STATIONARY_POWER = [
    (points.sqrt_sum_fourth_at_zero, (0.0, 0.0)),
    (points.root_of_even_power, (np.array([0.0, 1.0, -2.0]),)),
    (sqrt_sum_of_fourth_powers, (np.zeros(3),)),
    (cbrt_of_power, (0.0,)),
]


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="a power stationary at 0 under a root: NaN in reverse mode where the derivative exists")
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


# ---- 3. SILENT: an equality guard srcdiff does not recognise ------------------------------------------------
# docs/guarantees.md ("An equality guard") gives NaN at a point ``if x == 0.0:`` or ``np.where(x == 0, ...)``
# singles out, because the guarded branch's derivative (that of a constant) is not the continuation's.  Other
# spellings of the same guard are not recognised, and their branch's derivative comes out silently: the
# conditional expression ``1.0 if x == 0.0 else math.expm1(x) / x``, ``if not x:``, ``math.isclose(x, 0.0)``
# (an exact test: abs_tol is 0), a comparison with a name holding 0 (``x == ZERO``, a module constant), and
# ``np.all(x == 0)`` for a vector all give the gradient 0 where the truth is 1/2, in grad, value_and_grad, vjp,
# jvp and numba; the Hessian of the hand-written sinc ``1.0 if x == 0 else math.sin(x) / x`` is 0 (truth -1/3).
# Also unrecognised: ``abs(x) == 0.0``, ``float(x) == 0``, ``x == 0 or x == 5``, ``x in (0.0,)``,
# ``np.isclose(x, 0.0, atol=0.0)``, ``np.equal(x, 0.0)`` and ``np.logical_not(x)`` in np.where.  The measure
# guard of Rodrigues' rotation written as a conditional expression (``R = ... if theta > 0 else np.eye(3)``) gives
# 0 at w = 0 where the truth is the derivative of ``skew(w)``.


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
    return float(np.sum(np.expm1(x) / x))


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


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="an equality guard spelled otherwise: the constant branch's derivative 0, truth 1/2")
@pytest.mark.parametrize("f, args", GUARDS, ids=lambda c: getattr(c, "__name__", ""))
def test_equality_guard_spelled_otherwise(f, args):
    want = central_difference(f, args, 0)
    assert np.allclose(want, 0.5, atol=1e-6)  # the continuation's derivative: expm1(x)/x = 1 + x/2 + ...
    _nan_or_agrees(_first_order(f, args), want)


def sinc_ternary(x):
    return 1.0 if x == 0 else math.sin(x) / x


def one_minus_cos_ternary(x):
    return 0.5 if x == 0.0 else (1.0 - math.cos(x)) / (x * x)


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="an equality guard spelled as a conditional expression: Hessian 0, truth -1/3 (-1/12)")
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


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="a measure guard spelled as a conditional expression: Rodrigues at w = 0 gives 0")
def test_measure_guard_spelled_as_a_conditional_expression():
    """``R = ... if theta > 0 else np.eye(3)`` with ``theta = np.linalg.norm(w)``: at w = 0 the rotation's
    derivative is that of ``skew(w)`` (docs/guarantees.md, 'A measure of several values', gives NaN for the
    ``if`` statement); the conditional expression gives 0, silently."""
    p = np.array([0.3, -1.0, 2.0])
    want = central_difference(lambda w: np.sum(p + _skew(w) @ p), (np.zeros(3),), 0)  # R = I + skew(w) + O(w^2)
    _nan_or_agrees(_first_order(rodrigues_ternary, (np.zeros(3), p)), want)


def test_the_documented_guard_spelling_is_nan():
    """The spelling the docs name gives the documented NaN (the class is the spellings it misses)."""
    def guarded(x):
        if x == 0.0:
            return 1.0
        return math.expm1(x) / x
    assert np.isnan(srcdiff.grad(guarded)(0.0))


# ---- 4. SILENT under jit="numba": draws from np.random's global stream -----------------------------------
# A loss that draws from NumPy's global stream (dropout written ``np.random.rand(n) > p``) is differentiated
# by grad at the draw f makes (``np.random.seed(s)`` before the call: the same numbers).  jit="numba" compiles
# the draw, and numba's np.random is a stream of its own that ``np.random.seed`` does not reach: the compiled
# gradient belongs to other numbers.  The first call of each signature is checked against the Python gradient
# and refused when they differ (with a wrong reason: "numba's integers ... wrap around"); once a call happens
# to draw the same mask, later calls are not checked and return the gradient of another mask, silently.


def coin_loss(x):
    keep = np.random.rand() > 0.5
    return np.sum(x ** 2) if keep else np.sum(3.0 * x)


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="jit='numba' draws from numba's own np.random stream; only the first call is checked")
def test_numba_gradient_of_a_global_random_draw():
    x = np.array([1.0, 2.0])
    g = srcdiff.grad(coin_loss, jit="numba")
    wrong = []
    for seed in range(40):
        np.random.seed(seed)
        keep = np.random.rand() > 0.5
        want = 2.0 * x if keep else np.full(2, 3.0)
        np.random.seed(seed)
        try:
            got = g(x)
        except srcdiff.SrcDiffError:
            continue  # refused: never silently wrong
        if not np.allclose(got, want):
            wrong.append((seed, got, want))
    assert not wrong, wrong


# ---- 5. SILENT: jacobian and second order of a function drawing from np.random's global stream ----------------
# ``srcdiff.jacobian(f)`` of a vector function and ``srcdiff.jacobian(srcdiff.grad(f))`` run f's forward code
# more than once, so after ``np.random.seed(0)`` they return the derivative at a later draw than the one f (and
# grad, value_and_grad, jvp, vjp, hvp) makes: the Jacobian of ``np.exp(x * np.random.rand(3))`` is
# ``diag(s * exp(x * s))`` for the second draw s, not the first.  (``hessian``'s first call for a signature
# does the same; later calls agree, but take two draws where f takes one.)


def noisy_exp_map(x):
    s = np.random.rand(3)
    return np.exp(x * s)


def noisy_exp_sum(x):
    s = np.random.rand(3)
    return np.sum(np.exp(x * s))


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="jacobian / jacobian(grad) run the forward code again: the derivative of a later draw")
@pytest.mark.parametrize("which", ["jacobian", "jacobian_of_grad"])
def test_jacobian_of_a_global_random_draw(which):
    x = np.array([0.5, -1.0, 2.0])
    np.random.seed(0)
    s = np.random.rand(3)
    np.random.seed(0)
    if which == "jacobian":
        got, want = srcdiff.jacobian(noisy_exp_map)(x), np.diag(s * np.exp(x * s))
    else:
        got, want = srcdiff.jacobian(srcdiff.grad(noisy_exp_sum))(x), np.diag(s * s * np.exp(x * s))
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_first_order_of_a_global_random_draw_is_exact():
    x = np.array([0.5, -1.0, 2.0])
    np.random.seed(0)
    s = np.random.rand(3)
    np.random.seed(0)
    np.testing.assert_allclose(srcdiff.grad(noisy_exp_sum)(x), s * np.exp(x * s), rtol=1e-12)
    np.random.seed(0)
    np.testing.assert_allclose(srcdiff.hvp(noisy_exp_sum, x, np.ones(3)), s * s * np.exp(x * s), rtol=1e-12)


# ---- 6. a root at the edge of its domain whose radicand moves: 0, not the documented NaN ---------------------
# docs/guarantees.md says ``np.sqrt(s) ** 2`` "is not rewritten ... so its derivative at s = 0 is the honest NaN
# of np.sqrt at 0", and also that a zero adjoint of a root at the edge of its domain "passes nothing on"
# (exact for ``np.sqrt(np.sum(x ** 2)) ** 3``, whose radicand is stationary).  The second rule wins: grad, vjp
# and numba give 0 for ``np.sqrt(s) ** 2`` and for ``np.arccos(c) ** 2`` at c = 1, where the function's one-sided
# derivative is 1 (and -2), and jvp gives NaN: two answers for one derivative, neither the documented one.


def sqrt_then_square(s):
    return np.sqrt(s) ** 2


def arccos_squared(c):
    return np.arccos(c) ** 2


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="a root's zero adjoint at its domain's edge passes nothing on where the radicand moves: 0")
@pytest.mark.parametrize("f, x, one_sided", [(sqrt_then_square, 0.0, 1.0), (arccos_squared, 1.0, -2.0)],
                         ids=["sqrt_then_square", "arccos_squared"])
def test_root_at_the_edge_of_its_domain(f, x, one_sided):
    h = 1e-7
    side = (f(x + h) - f(x)) / h if one_sided > 0 else (f(x) - f(x - h)) / h
    assert np.isclose(side, one_sided, rtol=1e-5)
    got = {"grad": srcdiff.grad(f)(x), "vjp": srcdiff.vjp(f, x)[1](1.0),
           "numba": srcdiff.grad(f, jit="numba")(x)}
    _nan_or_agrees(got, one_sided)


# ---- 7. SILENT at second order: a tie between elements of one array is read as persistent ---------------------
# docs/guarantees.md: at a tie, the share's derivative is NaN wherever the tie holds, unless srcdiff proves the
# tie persistent (the same primitives on the same values); ties of np.max / np.min reductions share equally at
# first order.  Where the two tied operands are elements (or slices, or rows) of one array, and wherever an
# ``np.max`` reduction ties, hessian, hvp, jacobian(grad) and jvp(grad) give the finite half-share Hessian, as if
# the tie persisted: ``np.maximum(np.sin(v[0]), np.sin(v[1]))`` at v[0] == v[1] gives diag(-sin(v)/2), where
# moving v[0] alone ends the tie and the one-sided second differences are -sin(v[0]) and 0.  The same tie between
# two arguments is NaN, as documented.  It meets users at a zero initialisation: the multiclass hinge
# ``np.max(X @ W, axis=1)`` at W = 0 and ``np.max(W @ x) ** 2`` tie every class, max pooling ties equal inputs.


def max_of_two_items(v):
    return np.maximum(np.sin(v[0]), np.sin(v[1]))


def max_reduction_of_sines(v):
    return np.max(np.sin(v))


def max_pool_pairs(x):
    return np.sum(np.max(x.reshape(2, 2), axis=1) ** 2)


def hinge_max_over_classes(W, X):
    return np.sum(np.max(X @ W, axis=1) ** 2)


_X2 = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 1.0]])
ITEM_TIES = [
    (max_of_two_items, (np.array([0.3, 0.3]),)),
    (max_reduction_of_sines, (np.array([0.3, 0.3, -1.0]),)),
    (max_pool_pairs, (np.array([0.5, 0.5, -1.0, 2.0]),)),
    (hinge_max_over_classes, (np.zeros((3, 2)), _X2)),
]


def _one_sided_second(f, args, k, h=1e-4):
    """The second differences of f along coordinate k of its first argument, to the right and to the left."""
    x = np.asarray(args[0], dtype=float)
    e = np.zeros_like(x)
    e.flat[k] = h
    f0 = f(x, *args[1:])
    right = (f(x + 2 * e, *args[1:]) - 2 * f(x + e, *args[1:]) + f0) / h ** 2
    left = (f(x - 2 * e, *args[1:]) - 2 * f(x - e, *args[1:]) + f0) / h ** 2
    return right, left


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="a tie between elements of one array (or an np.max reduction) is read as persistent")
@pytest.mark.parametrize("f, args", ITEM_TIES, ids=lambda c: getattr(c, "__name__", ""))
def test_tie_between_elements_of_one_array_at_second_order(f, args):
    right, left = _one_sided_second(f, args, 0)
    assert abs(right - left) > 1e-2, (right, left)  # the tie ends along the first coordinate: no second derivative
    n = np.size(args[0])
    H = np.asarray(srcdiff.hessian(f)(*args), dtype=float).reshape(n, n)
    assert np.isnan(H[0, 0]), H


def test_the_same_tie_between_two_arguments_is_nan():
    def two_args(a, b):
        return np.maximum(np.sin(a), np.sin(b))
    assert np.isnan(srcdiff.hessian(two_args, wrt=(0, 1))(0.3, 0.3)).all()
