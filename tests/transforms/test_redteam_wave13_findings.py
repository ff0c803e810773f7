"""What the red team's thirteenth wave found and fixed, each a class with variants of its own, through
every transformation.  References are float64 central differences of the function (the matrix's
own through `matrix.run`, tests/numeric.py for values written out here)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg
from numeric import central_difference

import srcdiff

from .corpus import Program
from .matrix import assert_every_transformation, assert_numba_agrees_or_refuses, not_ok, run

HERE = "test_redteam_wave13_findings.py"


def _program(f, *args, wrt=0) -> Program:
    return Program(f"w13_findings:{f.__name__}", f, args, wrt, HERE)


# ---- 1. SILENT WRONG: ``u > 0`` of ``u = |d|`` (or ``d ** 2``, ``d * d``) is the guard ``d != 0`` -----------
# ``np.where(np.abs(x) > 0, x, 0.0)`` is x everywhere, yet its gradient at 0 was 0 (the branch taken
# there, a constant), silently: the truth is 1.  So was ``np.expm1(x) / x`` guarded by ``x ** 2 > 0``
# (0 where the truth is 1/2) and ``if abs(x) > 0: return x``.  The same program written ``x != 0``
# gives NaN there (docs/guarantees.md, "An equality guard").  FIXED: lower/zero_guards.py reads such a
# test as that equality guard, on `d` itself; ``np.sqrt(d * d) == 0`` too, whose kink rule had selected
# the guard's NaN away (0 where the truth is 1).  Measures that can be 0 on a region (a difference of
# one argument with itself, a relu) are left as written: their branch there is the function.


def abs_guard_identity(x):
    return np.sum(np.where(np.abs(x) > 0, x, 0.0))


def square_guard_expm1(x):
    safe = np.where(x ** 2 > 0, x, 1.0)
    return np.sum(np.where(x ** 2 > 0, np.expm1(safe) / safe, 1.0 + 0.5 * x))


def product_guard_mirrored(x):
    return np.sum(np.where(0 < x * x, np.sin(x), 0.0))


def sqrt_square_equality(x):
    a = np.sqrt(x * x)
    return np.sum(np.where(a == 0, 0.0, 3.0 * x))


def abs_if_return(x):
    if abs(x) > 0:
        return x * math.cos(x)
    return 0.0


def fabs_at_most_zero(x):
    if math.fabs(x) <= 0.0:
        return 0.0
    return math.sin(x)


def shifted_difference_guard(w, target):
    d = w - target
    r = np.square(d)
    return np.sum(np.where(r > 0, d * np.exp(d), 0.0))


AT_THE_POINT = [(abs_guard_identity, (np.array([0.0, 1.5, -0.7]),), 0),
                (square_guard_expm1, (np.array([0.0, 0.5, -1.0]),), 0),
                (product_guard_mirrored, (np.array([0.3, 0.0]),), 1),
                (sqrt_square_equality, (np.array([0.0, 2.0]),), 0),
                (abs_if_return, (0.0,), None),
                (fabs_at_most_zero, (0.0,), None),
                (shifted_difference_guard, (np.array([1.0, 0.5]), np.array([1.0, -0.5])), 0)]


@pytest.mark.parametrize("f, args, k", AT_THE_POINT, ids=[f.__name__ for f, _, _ in AT_THE_POINT])
def test_measure_guard_is_nan_at_its_point_in_every_transformation(f, args, k):
    """NaN exactly at the guarded element, for grad, value_and_grad, jvp and vjp; every other
    element exact (central differences)."""
    def at_point(g):
        g = np.asarray(g)
        assert np.isnan(g if k is None else g[k]), g
        if k is not None:
            rest = np.delete(np.arange(g.size), k)
            want = central_difference(f, args, 0)
            np.testing.assert_allclose(g[rest], want[rest], rtol=1e-6, atol=1e-8)
    at_point(srcdiff.grad(f)(*args))
    at_point(srcdiff.value_and_grad(f)(*args)[1])
    at_point(srcdiff.vjp(f, *args)[1](1.0))
    x = args[0]
    if k is None:
        assert np.isnan(srcdiff.jvp(f, args, (1.0,) + (None,) * (len(args) - 1))[1])
    else:
        e = np.zeros_like(x)
        e[k] = 1.0
        assert np.isnan(srcdiff.jvp(f, args, (e,) + (None,) * (len(args) - 1))[1])


@pytest.mark.parametrize("f, args, k", AT_THE_POINT, ids=[f.__name__ for f, _, _ in AT_THE_POINT])
def test_measure_guard_hessian_is_nan_at_its_point(f, args, k):  # a sampled family (tests/sampling.py)
    if k is None:
        assert np.isnan(srcdiff.grad(srcdiff.grad(f))(*args))
    else:
        assert np.isnan(srcdiff.hessian(f)(*args)[k, k])


AWAY = [(abs_guard_identity, (np.array([0.4, 1.5, -0.7]),)), (square_guard_expm1, (np.array([0.2, 0.5, -1.0]),)),
        (product_guard_mirrored, (np.array([0.3, -0.8]),)), (sqrt_square_equality, (np.array([-0.3, 2.0]),)),
        (abs_if_return, (0.4,)), (fabs_at_most_zero, (-0.6,)),
        (shifted_difference_guard, (np.array([1.2, 0.5]), np.array([1.0, -0.5])))]


@pytest.mark.parametrize("f, args", AWAY, ids=[f.__name__ for f, _ in AWAY])
def test_measure_guard_away_from_its_point_every_transformation(f, args):
    assert_every_transformation(_program(f, *args))


@pytest.mark.parametrize("f, args", AWAY[:1] + AWAY[4:5], ids=["abs_guard_identity", "abs_if_return"])
def test_measure_guard_under_numba(f, args):
    assert_numba_agrees_or_refuses(_program(f, *args))


def pairwise_abs_diagonal(x):  # the diagonal's difference is 0 for every x: its branch is the function
    d = x[:, None] - x[None, :]
    return np.sum(np.where(np.abs(d) > 0, np.abs(d) ** 1.5, 0.0))


def relu_squared_guard(y):  # 0 on a whole half-line, where the 0.0 branch is the function
    h = np.maximum(y, 0.0)
    return np.sum(np.where(h ** 2 > 0, h ** 3, 0.0))


def norm_cubed_guard(v):  # a norm is not read as a guard: its branch at 0 is exact here
    n = np.linalg.norm(v)
    return np.where(n > 0.0, n ** 3, 0.0)


@pytest.mark.parametrize("f, x, want", [
    (pairwise_abs_diagonal, np.array([0.0, 1.0, 3.0]), None),
    (relu_squared_guard, np.array([-1.0, 0.0, 0.5]), np.array([0.0, 0.0, 0.75])),
    (norm_cubed_guard, np.zeros(3), np.zeros(3))], ids=["pairwise_diagonal", "relu", "norm_cubed"])
def test_measures_zero_on_a_region_stay_exact(f, x, want):
    got = srcdiff.grad(f)(x)
    np.testing.assert_allclose(got, central_difference(f, (x,), 0) if want is None else want, rtol=1e-6, atol=1e-8)


# ---- 2. CRASH: ``total += ...`` inside a ``try`` in a loop ---------------------------------------------------
# The probe that decides the ``try``'s path (frontend/try_blocks.py) was given the names its body reads
# before writing, and an augmented assignment's target was not counted as read: the probe raised
# UnboundLocalError, reported by grad as a refusal at the line and by `srcdiff.check` as a crash.
# FIXED: ``total += v`` reads `total`.


def try_in_loop_iadd(x):
    total = 0.0
    for v in x:
        try:
            total += 1.0 / v
        except ZeroDivisionError:
            total += 0.0
    return total


def try_scalar_imul(x):
    acc = 1.0
    try:
        acc *= math.log(x)
    except ValueError:
        acc = x * x
    return acc


def try_list_isub(x, values=(0.5, 2.0, 0.0)):
    s = x * x
    for v in values:
        try:
            s -= x / v
        except ZeroDivisionError:
            s -= x
    return s


TRIES = [(try_in_loop_iadd, (np.array([0.5, 2.0, -1.5]),)), (try_scalar_imul, (2.0,)), (try_scalar_imul, (-2.0,)),
         (try_list_isub, (1.3,))]


@pytest.mark.parametrize("f, args", TRIES, ids=[f"{f.__name__}-{k}" for k, (f, _) in enumerate(TRIES)])
def test_try_with_augmented_assignment_every_transformation(f, args):
    assert_every_transformation(_program(f, *args))


@pytest.mark.parametrize("f, args", TRIES[:2], ids=["loop", "scalar"])
def test_try_with_augmented_assignment_check_does_not_crash(f, args):
    row = run(_program(f, *args), ("check",))
    assert not not_ok(row), not_ok(row)


# ---- 3. A refusal inside SciPy's own code named SciPy's line, not the user's ---------------------------------
# ``scipy.linalg.expm(A)`` (refused at run time inside SciPy's source) and ``scipy.linalg.solve(A, b)`` (SciPy
# wraps it in a decorator srcdiff cannot see through, met when its adjoint is compiled) were refused naming
# a line of site-packages.  FIXED: both name the user's call (frontend/installed.py): "file:line: inside
# <the library function> (<its line>): <why>".


def expm_entry(theta):
    A = np.array([[0.0, -theta], [theta, 0.0]])
    return scipy.linalg.expm(A)[0, 1]


def solve_pos(L, b):
    A = L @ L.T + np.eye(3)
    return scipy.linalg.solve(A, b, assume_a="pos") @ b


def _helper_solves(A, b):
    return scipy.linalg.solve(A, b)


def solve_in_helper(L, b):
    return np.sum(_helper_solves(L @ L.T + np.eye(3), b) ** 2)


LIBRARY = [(solve_pos, (np.eye(3) + 0.1, np.ones(3)), "return scipy.linalg.solve(A, b, assume_a="),
           (solve_in_helper, (np.eye(3) + 0.1, np.ones(3)), "return scipy.linalg.solve(A, b)")]


def test_expm_is_differentiated_since():
    """scipy.linalg.expm has a rule now (rules15: its Fréchet derivative): d/dtheta -sin(theta) = -cos(theta)."""
    np.testing.assert_allclose(srcdiff.grad(expm_entry)(0.4), -np.cos(0.4), rtol=1e-10)


@pytest.mark.parametrize("f, args, line", LIBRARY, ids=[f.__name__ for f, _, _ in LIBRARY])
@pytest.mark.parametrize("how", ["grad", "jvp", "vjp", "check"])
def test_refusal_inside_scipy_names_the_users_line(f, args, line, how):
    call = {"grad": lambda: srcdiff.grad(f)(*args),
            "jvp": lambda: srcdiff.jvp(f, args, (np.ones_like(np.asarray(args[0])),) + (None,) * (len(args) - 1)),
            "vjp": lambda: srcdiff.vjp(f, *args)[1](1.0),
            "check": lambda: srcdiff.check(f, *args)}[how]
    with pytest.raises(srcdiff.SrcDiffError) as info:
        call()
    assert info.value.location.filename.endswith(HERE), info.value
    assert line in info.value.location.code, info.value
    assert "inside " in str(info.value) and "site-packages" in str(info.value)


# ---- 4. SILENT WRONG: an equality guard written on arithmetic of a name (``x - 1.0 == 0``, ``v[0] == 0``) ------
# ``np.where(x - 1.0 == 0, 1.0, np.log(safe) / (safe - 1.0))`` (log(x) / (x - 1), 1 at x = 1) gave the
# constant branch's derivative, 0, at x = 1, silently (the truth -1/2); ``if v[0] == 0.0: return 1.0``
# before ``math.expm1(v[0]) / v[0]`` gave 0 where the truth is 1/2; so did the guard held in a name first
# (``at0 = x == 0.0`` then ``np.where(at0, ...)``).  Only a bare name compared in the call was read as the
# guard.  FIXED: lower/point_guards.py takes arithmetic and subscripts of names and numbers as `u`, and a
# condition that is a name holding such a test (in the user's code only: a gradient's own masks, read
# again for a second derivative, are not guards).


def log_ratio_shifted(x):
    safe = np.where(x - 1.0 == 0, 2.0, x)
    return np.sum(np.where(x - 1.0 == 0, 1.0, np.log(safe) / (safe - 1.0)))


def expm1_first_item(v):
    if v[0] == 0.0:
        return 1.0 + v[1]
    return math.expm1(v[0]) / v[0] + v[1]


def scaled_not_equal(x):
    safe = np.where(0 != 2.0 * x, x, 1.0)
    return np.sum(np.where(0 != 2.0 * x, np.sin(safe) / safe, 1.0))


def matrix_entry_guard(A):
    a = A[0, 1]
    s = np.where(A[0, 1] == 0.0, 1.0, a)
    return np.where(A[0, 1] == 0.0, 1.0, (1.0 - np.cos(s)) / s) + np.sum(A ** 2)


def held_equality_mask(x):  # the test held in a name first: the same guard
    at0 = x == 0.0
    safe = np.where(at0, 1.0, x)
    return np.sum(np.where(at0, 1.0, np.expm1(safe) / safe))


def held_measure_mask(x):
    nz = np.abs(x) > 0
    return np.sum(np.where(nz, x * np.cos(x), 0.0))


SHIFTED = [(log_ratio_shifted, (np.array([1.0, 2.0]),), 0), (expm1_first_item, (np.array([0.0, 1.0]),), 0),
           (scaled_not_equal, (np.array([0.5, 0.0]),), 1), (held_equality_mask, (np.array([0.0, 1.0]),), 0),
           (held_measure_mask, (np.array([0.7, 0.0]),), 1)]


@pytest.mark.parametrize("f, args, k", SHIFTED, ids=[f.__name__ for f, _, _ in SHIFTED])
def test_shifted_guard_is_nan_at_its_point(f, args, k):
    for g in (srcdiff.grad(f)(*args), srcdiff.value_and_grad(f)(*args)[1], srcdiff.vjp(f, *args)[1](1.0)):
        assert np.isnan(g[k]), g
        rest = np.delete(np.arange(g.size), k)
        np.testing.assert_allclose(g[rest], central_difference(f, args, 0)[rest], rtol=1e-6, atol=1e-8)
    e = np.zeros_like(args[0])
    e[k] = 1.0
    assert np.isnan(srcdiff.jvp(f, args, (e,))[1])


@pytest.mark.parametrize("f, args, k", SHIFTED, ids=[f.__name__ for f, _, _ in SHIFTED])
def test_shifted_guard_hessian_is_nan_at_its_point(f, args, k):  # a sampled family (tests/sampling.py)
    assert np.isnan(srcdiff.hessian(f)(*args)[k, k])


def test_matrix_entry_guard_is_nan_only_at_its_entry():
    A = np.array([[0.5, 0.0], [1.0, -2.0]])
    g = srcdiff.grad(matrix_entry_guard)(A)
    assert np.isnan(g[0, 1]) and np.isfinite(np.delete(g.ravel(), 1)).all(), g


SHIFTED_AWAY = [(log_ratio_shifted, (np.array([1.5, 2.0]),)), (expm1_first_item, (np.array([0.3, 1.0]),)),
                (scaled_not_equal, (np.array([0.5, -0.7]),)),
                (matrix_entry_guard, (np.array([[0.5, 0.3], [1.0, -2.0]]),)),
                (held_equality_mask, (np.array([0.4, 1.0]),)), (held_measure_mask, (np.array([0.7, -0.3]),))]


@pytest.mark.parametrize("f, args", SHIFTED_AWAY, ids=[f.__name__ for f, _ in SHIFTED_AWAY])
def test_shifted_guard_away_from_its_point_every_transformation(f, args):
    assert_every_transformation(_program(f, *args))
