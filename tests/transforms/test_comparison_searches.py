"""A result reached only through comparisons inside a loop (bisection, golden section, a search):
its own derivative is 0 wherever it exists, but the user means the root's.  Every transformation
refuses it at the loop's line (ad/searches.py, called by both sweeps); srcdiff.stop_gradient
says 0 is meant.  Results also reached differentiably, step functions without a loop, constant
functions and loops whose conditions read no differentiated value keep their gradient (checked
against float64 central differences)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import trees_wrapped
from .corpus import Program
from .matrix import assert_every_transformation, assert_numba_agrees_or_refuses, located
from .test_redteam_wave9_findings import bisection_fixed_steps, bisection_while, golden_section_argmin

HERE = "test_comparison_searches.py"
W = np.array([0.4, -0.2, 0.9])
V = np.array([1.0, -0.5, 2.0])


def array_root_search(w):
    # r with sum(tanh(w * r)) = 1, by 50 halvings: no Newton step, no derivative of r
    lo, hi = 0.0, 10.0
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        if np.sum(np.tanh(w * mid)) > 1.0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def _search_root(w):
    lo, hi = 0.0, 10.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if np.sum(w * mid) ** 2 > 2.0:
            hi = mid
        else:
            lo = mid
    return lo


def search_in_a_helper(w):
    return 2.0 * _search_root(w) + 1.0


def search_in_a_tuple(w):
    lo, hi = 0.0, 10.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if np.sum(w * mid) > 1.0:
            hi = mid
        else:
            lo = mid
    return lo, np.sum(w ** 2)


def tolerance_on_the_argument(w):
    # the step count depends on w through the tolerance only: the result is a staircase in w
    lo, hi = 1.0, 2.0
    while hi - lo > 1e-3 * (1.0 + np.sum(w ** 2)):
        mid = 0.5 * (lo + hi)
        if mid * mid > 2.0:
            hi = mid
        else:
            lo = mid
    return lo


def first_crossing(w):
    # the first t on a grid where a w-dependent curve crosses 0: found by a break
    t = 0.0
    for i in range(100):
        t = 0.05 * i
        if np.sum(np.sin(w * t)) > 0.5:
            break
    return t


def _on_vector(f):
    def call(w):
        return f(float(np.sum(w)) if f in SCALAR else w)
    return call


SCALAR = {bisection_while, bisection_fixed_steps, golden_section_argmin}
SEARCHES = [bisection_while, bisection_fixed_steps, golden_section_argmin, array_root_search, search_in_a_helper,
            tolerance_on_the_argument, first_crossing]


def _arg(f, dtype=np.float64):
    return dtype(0.3) if f in SCALAR else W.astype(dtype)


def _direction(f):
    return 1.0 if f in SCALAR else V


def _tree(f, x):
    wrapper, key = trees_wrapped.wrapper(Program(f"searches:{f.__name__}", f, (x,), 0, HERE))
    return srcdiff.grad(wrapper)({key: x})


TRANSFORMATIONS = {
    "grad": lambda f, x: srcdiff.grad(f)(x),
    "value_and_grad": lambda f, x: srcdiff.value_and_grad(f)(x),
    "vjp": lambda f, x: srcdiff.vjp(f, x)[1](1.0),
    "jvp": lambda f, x: srcdiff.jvp(f, (x,), (_direction(f),)),
    "jacobian": lambda f, x: srcdiff.jacobian(f)(x),
    "hessian": lambda f, x: srcdiff.hessian(f)(x),
    "hvp": lambda f, x: srcdiff.hvp(f, x, _direction(f)),
    "numba": lambda f, x: srcdiff.grad(f, jit="numba")(x),
    "tree": _tree,
    "float32": lambda f, x: srcdiff.grad(f)(_arg(f, np.float32)),
    "vmap": lambda f, x: srcdiff.vmap(srcdiff.grad(f))(np.stack([x, x])),
}


def _refused_here(exc: srcdiff.SrcDiffError, how: str = "") -> None:
    assert located(exc), str(exc)
    assert "only through comparisons" in str(exc), str(exc)
    assert "stop_gradient" in str(exc) and "custom_vjp" in str(exc)
    if how != "tree":  # the tree's wrapper is in a file of its own: the refusal names its call
        assert str(exc.location.filename).endswith((HERE, "test_redteam_wave9_findings.py")), str(exc)
        assert exc.location.code.lstrip().startswith(("for ", "while ")), str(exc)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("how", list(TRANSFORMATIONS))
@pytest.mark.parametrize("f", SEARCHES, ids=lambda f: f.__name__)
def test_a_search_is_refused_at_its_loop_in_every_transformation(f, how):
    with pytest.raises(srcdiff.SrcDiffError) as found:
        TRANSFORMATIONS[how](f, _arg(f))
    _refused_here(found.value, how)


@pytest.mark.parametrize("f", SEARCHES[:3] + [array_root_search], ids=lambda f: f.__name__)
def test_check_refuses_as_grad_does(f):
    with pytest.raises(srcdiff.SrcDiffError) as found:
        srcdiff.check(f, _arg(f), progress=False)
    _refused_here(found.value)


@pytest.mark.parametrize("how", ["jvp", "vjp", "jacobian"])
def test_a_search_in_a_returned_tuple_is_refused(how):
    with pytest.raises(srcdiff.SrcDiffError) as found:
        if how == "jvp":
            srcdiff.jvp(search_in_a_tuple, (W,), (V,))
        elif how == "vjp":
            srcdiff.vjp(search_in_a_tuple, W)[1]((1.0, 1.0))
        else:
            srcdiff.jacobian(search_in_a_tuple)(W)
    _refused_here(found.value)


def stopped_search(w):
    return srcdiff.stop_gradient(array_root_search(w)) + np.sum(w ** 2)


def stopped_bisection(k):
    return srcdiff.stop_gradient(bisection_while(k)) * k


@pytest.mark.parametrize("f, x", [(stopped_search, W), (stopped_bisection, 0.7)], ids=["array", "scalar"])
def test_stop_gradient_says_zero_is_meant(f, x):
    # the stopped root is a constant: d/dw of sum(w**2) is 2w; d/dk of r * k is r
    want = 2 * W if f is stopped_search else bisection_while(0.7)
    np.testing.assert_allclose(srcdiff.grad(f)(x), want, rtol=1e-9)
    np.testing.assert_allclose(srcdiff.jvp(f, (x,), (_direction(f) if f is stopped_search else 1.0,))[1],
                               np.dot(want, V) if f is stopped_search else want, rtol=1e-9)


# ---- not refused: the gradient is the true one ---------------------------------------------------


def counted_times_sum(x):
    count = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            count += 1
    return count * np.sum(x)


def relu_mean_over_positives(x):
    n_positive = 0.0
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            n_positive = n_positive + 1.0
            total = total + x[i]
    return total / n_positive


def step_without_a_loop(x):
    return (1.0 if x[0] > 0 else 0.0) + np.sum(x ** 2)


def constant_function(x):
    return 3.0 + 0.0 * np.sum(x)


def loop_reading_no_differentiated_value(x, n=5):
    scale = 1.0
    for i in range(n):
        if i % 2 == 0:
            scale = scale * 1.5
    return scale * np.sum(np.sin(x))


def while_on_a_counter(x):
    i = 0
    total = 0.0
    while i < len(x):
        total = total + x[i] ** 2
        i += 1
    return total


def counted_positives(x):
    # an integer count is a step function: its derivative 0 is the true one away from the steps
    count = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            count += 1
    return 0.5 * count


def best_index(x):
    # the index of the largest item, found by a loop: an integer, whose derivative 0 is the true one
    best, at = x[0], 0
    for i in range(1, x.shape[0]):
        if x[i] > best:
            best, at = x[i], i
    return 0.25 * at + best


ACTIVE = [counted_times_sum, relu_mean_over_positives, step_without_a_loop, loop_reading_no_differentiated_value,
          while_on_a_counter, counted_positives, best_index]
X = np.array([0.7, -1.3, 0.4])


@pytest.mark.parametrize("f", ACTIVE, ids=lambda f: f.__name__)
def test_results_also_reached_differentiably_keep_their_gradient(f):
    np.testing.assert_allclose(srcdiff.grad(f)(X), central_difference(f, (X,), 0), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("f", ACTIVE[:3], ids=lambda f: f.__name__)
def test_not_refused_through_every_transformation(f):
    p = Program(f"searches:{f.__name__}", f, (X,), 0, HERE)
    assert_every_transformation(p)


@pytest.mark.parametrize("f", ACTIVE[:2], ids=lambda f: f.__name__)
def test_not_refused_numba_agrees_or_refuses(f):
    assert_numba_agrees_or_refuses(Program(f"searches:{f.__name__}", f, (X,), 0, HERE))


def test_a_constant_function_has_gradient_zero():
    assert np.all(srcdiff.grad(constant_function)(X) == 0.0)


def test_the_search_and_its_staircase_are_what_the_refusal_says():
    # the program's own central difference at the tolerance's scale is 0; at 1e-6 it is the root's
    k = 0.7
    fine = (bisection_while(k + 1e-15) - bisection_while(k - 1e-15)) / 2e-15
    coarse = central_difference(bisection_while, (k,), 0, eps=1e-6)
    assert fine == 0.0 and abs(coarse) > 0.1
    r = bisection_while(k)
    assert math.isclose(coarse, -r / (3 * r * r + k), rel_tol=1e-4)  # the implicit function theorem


def scaled_cube_sum(w, scale=2.0):
    return scale * np.sum(w ** 3)


def test_vmap_of_a_gradient_with_a_parameter_left_to_its_default_does_not_crash():
    # lowering read the left-out parameter's argument past the end of the arguments (an IndexError)
    try:
        got = srcdiff.vmap(srcdiff.grad(scaled_cube_sum))(np.stack([W, V]))
    except srcdiff.SrcDiffError as exc:
        assert located(exc), str(exc)
        return
    np.testing.assert_allclose(got, 6.0 * np.stack([W, V]) ** 2, rtol=1e-12)
