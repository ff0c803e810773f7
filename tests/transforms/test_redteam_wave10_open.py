"""What the red team's tenth wave found that was open (test_redteam_wave10_findings.py holds the
classes fixed): a second derivative that was NaN where it exists and a determinant refused at a singular
matrix (both fixed since), reasonable code refused, and numba refusing float32 loops.  Each is a strict xfail naming its
class; references are float64 central differences (of the function, or of its checked gradient)."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import redteam_wave10 as wave
from . import redteam_wave10_library as library
from . import redteam_wave10_points as points
from .corpus import Program
from .matrix import OK, REFUSED, run

HERE = "test_redteam_wave10_open.py"


def open_class(name: str, cases, failing):
    """`cases` as pytest params, the ones in `failing` a strict xfail naming the class."""
    return [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=name)) if c in failing else c for c in cases]


# ---- 1. the Hessian of a tie raised to a power that flattens it (fixed): 0 at the tie ---------------------
# ``np.maximum(x, 0) ** 3`` at 0: the gradient 3 m ** 2 * share is exact; its derivative multiplies the tie's
# jump by 3 m ** 2, which is flat where m = 0 (ad/flat_ties.py), so the Hessian is 0 there, not NaN.  A zero
# factor alone is not enough (``np.maximum(x, 0) ** 2`` has no second derivative at 0: still NaN, below).


def relu_cubed(x):
    return np.sum(np.maximum(x, 0.0) ** 3) + np.sum(x)


def clip_cubed(x):
    return np.sum(np.clip(x, 0.0, None) ** 3)


def relu_times_itself_twice(x):
    r = np.maximum(x, 0.0)
    return np.sum(r * r * r)


def relu_fourth(x):
    return np.sum(np.maximum(x, 0.0) ** 4)


def negative_part_cubed(x):
    return np.sum(np.minimum(x, 0.0) ** 3)


def where_relu_cubed(x):
    return np.sum(np.where(x > 0, x, 0.0) ** 3)


FLATTENED_TIES = [relu_cubed, clip_cubed, relu_times_itself_twice, relu_fourth, negative_part_cubed, where_relu_cubed]


@pytest.mark.parametrize("f", FLATTENED_TIES, ids=lambda f: f.__name__)
def test_hessian_of_a_tie_raised_to_a_flattening_power(f):
    x = np.array([0.0, 0.5, -0.8])
    gradient = srcdiff.grad(f)
    want = np.stack([central_difference(lambda y, k=k: gradient(y)[k], (x,), 0) for k in range(3)])
    np.testing.assert_allclose(srcdiff.hessian(f)(x), want, rtol=1e-5, atol=1e-5)  # the difference: 3 eps at 0


def relu_squared(x):
    return np.sum(np.maximum(x, 0.0) ** 2)


def relu_cubed_and_itself(x):
    r = np.maximum(x, 0.0)
    return np.sum(r ** 3) + np.sum(r)


@pytest.mark.parametrize("f", [relu_squared, relu_cubed_and_itself], ids=lambda f: f.__name__)
def test_a_tie_not_flattened_keeps_its_nan(f):
    # no second derivative at 0 (the truth jumps from 0 to 2, from 0 to a delta): NaN there, exact elsewhere
    h = srcdiff.hessian(f)(np.array([0.0, 0.5, -0.8]))
    assert np.isnan(h[0, 0]) and np.all(np.isfinite(h[1:, 1:]))


def test_the_gradient_of_a_flattened_tie_is_exact():
    x = np.array([0.0, 0.5, -0.8])
    for f in FLATTENED_TIES:
        np.testing.assert_allclose(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-6, atol=1e-9)


# ---- 2. the determinant of a singular matrix (fixed): the cofactor matrix, exact at every order --------
# np.linalg.det's adjoint is the cofactor matrix (the adjugate's transpose) computed from the SVD, and its
# derivative too (rules/decomposition_helpers.py), so a singular A has its exact gradient and Hessian.


def det_plus_ridge(A):
    return np.linalg.det(A) + 0.1 * np.sum(A ** 2)


def det_of_product(A):
    return np.linalg.det(A @ np.array([[1.0, 2.0], [0.5, 1.0]]))


def det_squared(A):
    return np.linalg.det(A) ** 2 + np.sum(A)


SINGULAR = {det_plus_ridge: np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]]),
            det_of_product: np.array([[1.0, -0.5], [0.3, 0.7]]),
            det_squared: np.array([[1.0, 2.0], [2.0, 4.0]])}


@pytest.mark.parametrize("f", list(SINGULAR), ids=lambda f: f.__name__)
def test_det_of_a_singular_matrix_is_refused_at_the_users_line(f):
    A = SINGULAR[f]
    cell = run(Program(f"w10_open:{f.__name__}", f, (A,), 0, HERE), ("grad",)).cells["grad"]
    assert cell.outcome in (OK, REFUSED) and cell.located, cell.message


@pytest.mark.parametrize("f", list(SINGULAR), ids=lambda f: f.__name__)
def test_det_of_a_singular_matrix_is_differentiated(f):
    A = SINGULAR[f]
    np.testing.assert_allclose(srcdiff.grad(f)(A), central_difference(f, (A,), 0), rtol=1e-5, atol=1e-7)
    gradient = srcdiff.grad(f)
    want = np.stack([central_difference(lambda B, k=k: gradient(B).ravel()[k], (A,), 0).ravel() for k in range(A.size)])
    np.testing.assert_allclose(srcdiff.hessian(f)(A).reshape(A.size, A.size), want, rtol=1e-5, atol=1e-6)


# ---- 3. reasonable code refused (OPEN): each at the user's line, each wanted right -----------------


def literal_list_slots(a):
    vals = [0.0, 0.0]  # `[0.0] * 2` is taken; the literal is "not known to be a new array"
    vals[0] = a * a
    vals[1] = np.sin(a) + vals[0]
    return vals[0] * vals[1]


def corrcoef_of_a_stack(w, X, y):
    return 1.0 - np.corrcoef(np.stack([X @ w, y]))[0, 1]  # refused as "not differentiable" in x


def cov_of_a_vstack(w, X, y):
    return np.sum(np.cov(np.vstack([X @ w, y])))


def list_pop_front(x):
    xs = [x, 2.0 * x, x * x]
    first = xs.pop(0)
    return first * xs[0] + xs[-1]


def _m(*shape, seed=3):
    return np.random.default_rng(seed).normal(size=shape)


REFUSED_REASONABLE = {
    "multi_dot": (wave.multi_dot_chain, (_m(3, 2), _m(2, 4), _m(4, 3), _m(3)), 1),
    "linspace_of_a_size": (wave.brachistochrone_time, (np.array([-0.5, -0.8, -0.95]),), 0),
    "corrcoef_two_arrays": (library.corrcoef_loss, (_m(3), _m(8, 3), _m(8)), 0),
    "corrcoef_of_a_stack": (corrcoef_of_a_stack, (_m(3), _m(8, 3), _m(8)), 0),
    "cov_of_a_vstack": (cov_of_a_vstack, (_m(3), _m(8, 3), _m(8)), 0),
    "quantile_of_a_list": (library.quantile_spread, (np.array([0.3, -1.1, 2.0, 0.7, -0.4, 1.6]),), 0),
    "bincount_weights": (library.bincount_segment_means, (_m(7), np.array([0, 1, 1, 2, 0, 2, 2])), 0),
    "rfft_slice_write": (library.irfft_lowpass, (_m(8),), 0),
    "enum_parameter": (library.enum_activation, (_m(3, 2), _m(4, 3)), 0),
    "dict_double_star": (library.merged_config_loss, (_m(3), _m(5, 3), _m(5)), 0),
    "dataclasses_replace": (library.dataclasses_replace, (_m(3, 2), _m(4, 3)), 0),
    "namedtuple_built_inside": (library.namedtuple_replace_step, (_m(3), _m(5, 3), _m(5)), 0),
    "nonlocal": (library.nonlocal_counter_closure, (_m(3), _m(4, 3)), 0),
    "map_lambda": (library.sum_map_rows, (_m(3), _m(4, 3)), 0),
    "zip_star": (library.zip_star_transpose, (_m(3, 2), _m(3)), 0),
    "deque_window": (library.deque_window_integrator, (_m(5),), 0),
    "sort_in_place": (points.sorted_in_place, (np.array([0.3, -1.2, 2.0, 0.8]), _m(4)), 0),
    "any_generator_condition": (points.any_condition, (_m(4),), 0),
    "mean_where": (points.mean_where_keyword, (_m(5), np.array([True, False, True, True, False])), 0),
    "literal_list_written": (literal_list_slots, (0.7,), 0),
    "list_pop": (list_pop_front, (0.7,), 0),
}


@pytest.mark.parametrize("name", list(REFUSED_REASONABLE))
def test_reasonable_code_refused_is_refused_at_the_users_line(name):
    f, args, wrt = REFUSED_REASONABLE[name]
    cell = run(Program(f"w10_open:{name}", f, args, wrt, HERE), ("grad",)).cells["grad"]
    assert cell.outcome in (OK, REFUSED) and cell.located, cell.message


#: fixed since: frontend/call_forms.py, rules/numpy_counts.py, linspace's num read at run time
#: (tests/transforms/test_reach10b_spellings.py); quantiles of several levels, np.cov/np.corrcoef of two arrays
#: and of a join, an array sorted in place (tests/transforms/test_reach11b_numpy.py)
SPELLINGS_FIXED = {"bincount_weights", "linspace_of_a_size", "multi_dot", "map_lambda", "any_generator_condition",
                   "mean_where", "literal_list_written", "dataclasses_replace",
                   # frontend/python_forms.py, enum members static (tests/transforms/test_reach11a_spellings.py)
                   "enum_parameter", "dict_double_star", "namedtuple_built_inside", "nonlocal", "zip_star", "list_pop",
                   "corrcoef_two_arrays", "corrcoef_of_a_stack", "cov_of_a_vstack", "quantile_of_a_list",
                   "sort_in_place",
                   # frontend/deque_windows.py (tests/transforms/test_reach11c_spellings.py)
                   "deque_window",
                   # frontend/complex_split.py's writes and np.fft.irfft (tests/transforms/test_rules15.py)
                   "rfft_slice_write"}


@pytest.mark.parametrize("name", open_class("reasonable code refused", list(REFUSED_REASONABLE),
                                            set(REFUSED_REASONABLE) - SPELLINGS_FIXED))
def test_reasonable_code_refused_is_differentiated(name):
    f, args, wrt = REFUSED_REASONABLE[name]
    got = srcdiff.grad(f, wrt=wrt)(*args)
    np.testing.assert_allclose(got, central_difference(f, args, wrt), rtol=1e-5, atol=1e-7)


# ---- 4. numba and float32 loops (fixed: backend/numba/float32_constants.py, runtime.py's zeros_like) ---
# A loop carrying float32 arrays through float32 scalars (``dt = np.float32(0.05)``): numba typed the
# generated loop's variables float32 in one branch and float64 in another ("Cannot unify"); Python
# floats beside float32 values and float32 adjoints' zeros are now typed as NumPy types them.

FLOAT32_LOOPS = {points.float32_leapfrog: (np.array([0.3, -1.1, 0.8], dtype=np.float32),),
                 points.float32_sinkhorn: (np.abs(_m(3, 3)).astype(np.float32),)}


@pytest.mark.slow
@pytest.mark.parametrize("f", open_class("numba: float32 loop variables", list(FLOAT32_LOOPS), set()),
                         ids=lambda f: f.__name__)
def test_numba_float32_loops(f):
    pytest.importorskip("numba")
    args = FLOAT32_LOOPS[f]
    got = srcdiff.grad(f, jit="numba")(*args)
    want = central_difference(f, tuple(a.astype(np.float64) for a in args), 0)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=1e-4)


# ---- 5. reverse over reverse in a loop through an untaken branch (OPEN): NaN, truth 0 ----------------
# In a loop, the gradient keeps arcsin(x)'s value on a stack only for its shape (``unbroadcast(g, t5)``);
# jacobian(grad) / vjp(grad) give that stack an adjoint of zeros, which arcsin's adjoint outside its
# domain turns into 0 / NaN.  The loop-free form is exact (test_redteam_wave10_findings.py, 3); hessian
# (forward over reverse) is exact here too.


def asin_rows_in_a_loop(x):
    total = 0.0
    for k in range(3):
        total = total + np.sum(np.where(np.abs(x * (k + 1)) < 1.4, np.arcsin(x * (k + 1) / 1.5), 0.0))
    return total


def _by_differences(f, x):
    gradient = srcdiff.grad(f)
    return np.stack([central_difference(lambda y, k=k: gradient(y)[k], (x,), 0) for k in range(x.size)])


def test_hessian_of_an_untaken_branch_in_a_loop():
    x = np.array([0.3, 1.7, -0.5, -2.5])
    np.testing.assert_allclose(srcdiff.hessian(asin_rows_in_a_loop)(x), _by_differences(asin_rows_in_a_loop, x),
                               rtol=1e-5, atol=1e-6)


def test_jacobian_of_grad_of_an_untaken_branch_in_a_loop():
    # was a strict xfail (a loop's shape-only stack met arcsin's slope: NaN); passes since a comparison of
    # computed operands has its shape known when lowered (lower/opaque.py, the piecewise-loss work)
    x = np.array([0.3, 1.7, -0.5, -2.5])
    got = srcdiff.jacobian(srcdiff.grad(asin_rows_in_a_loop))(x)
    np.testing.assert_allclose(got, _by_differences(asin_rows_in_a_loop, x), rtol=1e-5, atol=1e-6)

