"""NumPy calls grad refused, or whose Hessian was NaN, after the red team's tenth wave
(reach11b_programs.py): every transformation (numba included) agrees with central differences,
float32 stays float32, and the forms still refused are refused at their line."""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix
from .reach11b_programs import PROGRAMS

HERE = "test_reach11b_numpy.py"

#: programs numba may refuse at the user's line (short name -> why)
NUMBA_REFUSED = {"nanpercentile_and_nanmedian": "numba's np.nanpercentile takes no axis",
                 "scipy_det_times_trace": "numba has no scipy.linalg"}


#: rows of several seconds each (sympy's check of a correlation, numba refusing after its attempt): the slow set
SLOW = {"corrcoef_of_a_stack", "corrcoef_of_two_vectors", "corrcoef_of_two_vectors_y", "quantile_levels_in_a_helper",
        "cov_columns", "nanpercentile_and_nanmedian"}


def programs():
    return corpus.from_table(PROGRAMS, "reach11b", "reach11b_programs", 11)


def rows():
    """The programs as pytest params, the costly ones in the slow set."""
    return [pytest.param(p, marks=pytest.mark.slow) if _name(p) in SLOW else p for p in programs()]


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", rows(), ids=_name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", rows(), ids=_name)
def test_every_transformation_numba_included(program):
    matrix.assert_numba_included(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


# ---- the Hessian at a tie a power flattens: exact (closed form), and NaN where it does not exist -----


def relu_power(x):
    return np.sum(np.maximum(x, 0.0) ** 2.5) + np.sum(np.clip(x, None, 0.0) ** 3)


def relu_squared_and_cubed(x):
    r = np.maximum(x, 0.0)
    return np.sum(r ** 3 + r ** 2)


def test_a_flattened_tie_has_its_closed_form_hessian():
    x = np.array([0.0, 0.64, -1.0])
    want = np.diag([0.0, 2.5 * 1.5 * 0.8, 6.0 * -1.0])  # d2/dx2 of x ** 2.5 (x > 0) and of x ** 3 (x < 0)
    for h in (srcdiff.hessian(relu_power)(x), srcdiff.jacobian(srcdiff.grad(relu_power))(x),
              srcdiff.hvp(relu_power, x, np.eye(3)[0])[None, :].repeat(3, 0) * np.eye(3)[0][:, None]):
        np.testing.assert_allclose(h[0], want[0], atol=1e-12)
    np.testing.assert_allclose(srcdiff.hessian(relu_power)(x), want, rtol=1e-12, atol=1e-12)


def test_a_tie_read_as_a_square_too_keeps_its_nan():
    h = srcdiff.hessian(relu_squared_and_cubed)(np.array([0.0, 0.5]))  # r ** 2 has no second derivative at 0
    assert np.isnan(h[0, 0]) and np.isfinite(h[1, 1])


# ---- the forms still refused, each at its line ----------------------------------------------------


def cov_two_arrays_columns(a, y):
    return np.sum(np.cov(a, y, rowvar=False))  # NumPy transposes each operand unless it has one row


def sort_an_argument(x):
    x.sort()
    return x @ np.arange(x.size)


def sort_a_shared_array(x):
    z = x.copy()
    alias = z
    z.sort()
    return np.sum(alias * np.arange(x.size))


def sort_flattened_in_place(X):
    Z = X * 1.0
    Z.sort(axis=None)  # NumPy's method raises: np.sort would flatten
    return np.sum(Z[0])


def quantile_levels_two_axes(X):
    return np.sum(np.quantile(X, [0.2, 0.8], axis=(0, 1)))


def while_any_with_continue(x):
    k = 0
    while any(v > 1.0 for v in x):
        x = x / 2.0
        k = k + 1
        if k > 100:
            continue
    return np.sum(x)


@pytest.mark.parametrize("func, args, words", [
    (cov_two_arrays_columns, (np.ones((4, 2)) + np.eye(4, 2), np.arange(4.0)), "cov"),
    (sort_an_argument, (np.array([0.3, -1.0, 2.0]),), "argument"),
    (sort_a_shared_array, (np.array([0.3, -1.0, 2.0]),), "shares its memory"),
    (quantile_levels_two_axes, (np.arange(6.0).reshape(2, 3),), "percentile"),
    (sort_flattened_in_place, (np.arange(6.0).reshape(2, 3),), "integer axis"),
    (while_any_with_continue, (np.array([0.5, 3.0]),), "condition"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_what_is_still_refused_names_its_line(func, args, words):
    with pytest.raises(srcdiff.SrcDiffError, match=words) as info:
        srcdiff.grad(func)(*args)
    assert HERE in str(info.value)
