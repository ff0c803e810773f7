"""The red team's twenty-first wave: the optimiser's newest passes attacked by programs written
the way users write them (redteam_wave21_programs.py): piecewise losses (cases.py), sigmoids
(logistic.py), gates by np.split and column blocks (splits.py, adjacent_products.py), repeated
solves and Cholesky factors (repeated_solves.py), float32 meeting float64 (ir/dtype_inference.py).
References are float64 central differences of the function (tests/numeric.py, matrix.py) or the
unoptimised gradient (debug mode), never the code under test.

Found and fixed, each class with variants here:

1. SILENT (every transformation, debug mode too): ``scipy.linalg.cho_factor(K)`` reads K's upper
   triangle (SciPy's default, ``lower=False``), but was lowered to ``np.linalg.cholesky(K)``,
   which reads the lower one: the gradient with respect to K lay in the triangle SciPy does not
   read (the transpose of the right one), and a K that is not symmetric gave another value than
   SciPy's.  Fixed in frontend/cholesky_factors.py: ``np.linalg.cholesky(K.T)`` unless
   ``lower=True``; a ``lower`` that is not a constant is left as written (refused at its line).
2. SILENT (jvp): the tangent of ``x.item()`` of a float32 x was a NumPy float32 number, which
   rounds every float64 tangent it is added to (a Python float meeting a NumPy float32 is
   float32): a relative error of 5e-8 in a tangent of float64 values.  Fixed in
   rules/numpy_complex_real.py: the tangent is ``np.sum(x_dot).item()``, a Python float as the
   value is.

Attacked without a wrong gradient (each row also against the unoptimised code, and the piecewise
ones at their ties): minimum / maximum / where / clip losses with operands rebound or written in
place after the selection, nested wheres, a condition on one value selecting another, masks kept
past a rebinding, ``&`` of conditions, reversed and array bounds, integer bounds, branches and
loops; sigmoids spelled ``e / (1 + e)``, ``1 / (exp(-x) + 1)``, rebound, nested, in a loop, at
+-40 and +-800 (never NaN where the function is finite); column blocks out of order, not
adjacent, overlapping, of two matrices, of an alias, with a moving offset, of rows, the matrix
rebound or written between them; np.split pieces written, split again after a rebinding, held in
a list; solves with two right-hand sides, a matrix rebound, a right-hand side written between,
a zero first element, 40-row systems through a shared Cholesky factor.

Known limit (docstring of backend/optimize/logistic.py, test below): ``s * (1.0 - s)`` has an
absolute error of a unit in s's last place, so a saturated sigmoid's derivative (x > 37) is 0.
Fixed since (backend/numba/result_dtypes.py): numba's jvp rounded the tangent of a float64 value
computed from float32 arguments to float32 (test below; its variants in test_closure_wave22.py).
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, leaves, matrix
from .redteam_wave21_programs import LARGE, MIXED, PROGRAMS


def programs():
    return corpus.from_table(PROGRAMS, "w21", "redteam_wave21_programs", 21)


def large_programs():
    return corpus.from_table(LARGE, "w21", "redteam_wave21_programs", 21)


def _name(p):
    return p.name.partition(":")[2]



def _quiet():
    warnings.simplefilter("ignore")
    return np.errstate(all="ignore")


def _gated(program) -> bool:
    """A recurrent cell or split gates: 10 s or more through every transformation (the slow set's)."""
    return _name(program).startswith(("blocks_", "gru_", "lstm_", "split_"))


@pytest.mark.parametrize("program", [corpus.slow_unless(not _gated(p), p) for p in programs()], ids=_name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


@pytest.mark.parametrize("program", programs() + large_programs(), ids=_name)
def test_each_row_optimised_as_unoptimised(program):  # a sampled family (tests/sampling.py)
    with warnings.catch_warnings(), _quiet():
        got = srcdiff.grad(program.func, wrt=program.wrt)(*copy.deepcopy(program.args))
        want = srcdiff.grad(program.func, wrt=program.wrt, debug=True)(*copy.deepcopy(program.args))
    np.testing.assert_allclose(leaves.vector(got), leaves.vector(want), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_hvp_against_differences_of_the_gradient(program):
    args, wrt = copy.deepcopy(list(program.args)), program.wrt
    v = np.random.default_rng(3).normal(size=np.shape(args[wrt]))
    grad = srcdiff.grad(program.func, wrt=wrt)
    eps = 1e-5

    def at(x):
        return grad(*args[:wrt], x, *args[wrt + 1:])
    want = (at(args[wrt] + eps * v) - at(args[wrt] - eps * v)) / (2 * eps)
    with warnings.catch_warnings(), _quiet():
        if wrt == 0:
            got = srcdiff.hvp(program.func, args[0], v, *args[1:])
        else:  # (hvp differentiates the first parameter): the Hessian times v
            H = srcdiff.hessian(program.func, wrt=wrt)(*args)
            got = np.reshape(np.reshape(H, (v.size, v.size)) @ v.ravel(), v.shape)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


@pytest.mark.slow  # (a 40 x 40 matrix's 1600 central differences, three ways)
@pytest.mark.parametrize("program", large_programs(), ids=_name)
def test_large_solves_against_central_differences(program):
    want = central_difference(program.func, program.args, program.wrt)
    for way in (lambda: srcdiff.grad(program.func, wrt=program.wrt)(*copy.deepcopy(program.args)),
                lambda: srcdiff.value_and_grad(program.func, wrt=program.wrt)(*copy.deepcopy(program.args))[1],
                lambda: srcdiff.vjp(program.func, *copy.deepcopy(program.args), wrt=program.wrt)[1](1.0)):
        np.testing.assert_allclose(way(), want, rtol=1e-6, atol=1e-7)


@pytest.mark.slow  # (test_every_transformation checks the gradient itself)
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_jacobian_of_a_scalar_function_is_its_gradient(program):
    got = srcdiff.jacobian(program.func, wrt=program.wrt)(*copy.deepcopy(program.args))
    want = central_difference(program.func, program.args, program.wrt)
    np.testing.assert_allclose(np.reshape(got, np.shape(want)), want, rtol=1e-5, atol=1e-7)


# ---- piecewise losses at their ties: the unoptimised gradient's convention -----------------------------

PIECEWISE = ["huber_rebound", "nested_wheres", "huber_in_a_loop", "minimum_by_branch", "maximum_by_branch",
             "operand_written_in_place", "minimum_written_in_place", "clip_array_upper_bound",
             "minimum_reused_with_its_condition", "two_conditions_joined", "mask_kept_past_rebinding",
             "where_of_where_on_one_condition", "maximum_then_minimum", "equal_condition"]


@pytest.mark.parametrize("name, jit", [corpus.slow_unless(name in ("operand_written_in_place", "equal_condition")
                                                   and jit is None, name, jit)
                                      for name in PIECEWISE for jit in (None, "numba")],
                         ids=[f"{name}-{jit or 'numpy'}" for name in PIECEWISE for jit in (None, "numba")])
def test_ties_as_unoptimised(name, jit):
    """w = 0 puts the residual exactly at the bounds (a == d, -d, 0): central differences cannot
    judge there, the convention of the unoptimised code (debug mode) decides, for w and for d."""
    program = next(p for p in programs() if _name(p) == name)
    _, X, _, d = program.args
    y = np.array([d, -d, 0.0, d, 2 * d, -3 * d, 0.5 * d, d, -d, d, 0.1, -0.2])
    args = (np.zeros(X.shape[1]), X, y, d)
    for wrt in (0, 3):
        got = srcdiff.grad(program.func, wrt=wrt, jit=jit)(*copy.deepcopy(args))
        want = srcdiff.grad(program.func, wrt=wrt, debug=True)(*copy.deepcopy(args))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


# ---- float32 arguments meeting float64 values --------------------------------------------------------

#: relative agreement with float64 central differences where the function is float64 in k (float32
#: fills for a float64 value missed by 1e-8 to 1e-7; the item tangent by 5e-8)
TIGHT = 5e-9

MIXED_WAYS = {
    "grad": lambda f, u, k: srcdiff.grad(f, wrt=1)(u, k),
    "value_and_grad": lambda f, u, k: srcdiff.value_and_grad(f, wrt=1)(u, k)[1],
    "debug": lambda f, u, k: srcdiff.grad(f, wrt=1, debug=True)(u, k),
    "jvp": lambda f, u, k: srcdiff.jvp(f, (u, k), (np.zeros_like(u), 1.0))[1],
    "vjp": lambda f, u, k: srcdiff.vjp(f, u, k, wrt=1)[1](1.0),
    "tree": lambda f, u, k: srcdiff.grad(lambda d: f(d["u"], d["k"]))({"u": u, "k": k})["k"],
}


def _k_derivative(f, u, k):
    """Fourth-order central differences in k of f (a float64 function of k: k meets float64 values
    first; the float32 array is left float32, as the function computes with it)."""
    eps = 1e-4
    return (8.0 * (f(u, k + eps) - f(u, k - eps)) - (f(u, k + 2 * eps) - f(u, k - 2 * eps))) / (12 * eps)


#: the rows of the grid the default run keeps (one a way)
MIXED_KEPT = {("f32_times_list", "grad"), ("f32_polyval_list", "value_and_grad"), ("f32_dot_list", "debug"),
              ("f32_item", "jvp"), ("f32_module_number", "vjp"), ("f32_where_float64", "tree")}


@pytest.mark.parametrize("name, f, make, wrt, how", [corpus.slow_unless((row[0], how) in MIXED_KEPT, *row, how)
                                                     for row in MIXED for how in MIXED_WAYS],
                         ids=[f"{row[0]}-{how}" for row in MIXED for how in MIXED_WAYS])
def test_float32_arguments_meeting_float64_values(name, f, make, wrt, how):
    u, k = make(np.random.default_rng(21))
    want = _k_derivative(f, u, k)
    got = MIXED_WAYS[how](f, u, k)
    assert abs(float(got) - want) <= TIGHT * abs(want), (float(got), want)


def test_the_tangent_of_item_is_a_python_float():
    """(found: ``np.sum(u_dot[0])``, a NumPy float32 that made the float64 tangents float32)"""
    from .redteam_wave21_programs import f32_item
    u = np.array([0.31, -0.52, 0.77], dtype=np.float32)
    _, tangent = srcdiff.jvp(f32_item, (u, 1.37), (np.ones_like(u), 1.0))
    want = _k_derivative(f32_item, u, 1.37) + 1.37 * 1.1 * np.cos(1.37 * float(u[0]) * 1.1)
    assert abs(float(tangent) - want) <= TIGHT * abs(want), (float(tangent), want)


# ---- Cholesky factors: the triangle SciPy reads ---------------------------------------------------------


@pytest.mark.parametrize("name", ["cho_quadratic", "cho_quadratic_lower", "gp_likelihood"])
def test_cho_factor_of_a_matrix_not_symmetric_has_scipys_value_and_gradient(name):
    """cho_factor reads one triangle (the upper by default): the other's numbers do not matter, to
    SciPy or to the gradient (found: the gradient lay in the other triangle, and the value was that
    of the other triangle's matrix)."""
    from . import redteam_wave21_programs as programs
    f = getattr(programs, name)
    rng = np.random.default_rng(5)
    K = programs.spd(rng, 4)
    r = rng.normal(size=4)
    lower = name == "cho_quadratic_lower"
    K = np.tril(K) + np.triu(np.full_like(K, 7.0), 1) if lower else np.triu(K) + np.tril(np.full_like(K, 7.0), -1)
    args, wrt = ((K, r), 0) if name == "gp_likelihood" else ((r, K), 1)
    value, got = srcdiff.value_and_grad(f, wrt=wrt)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)
    want = central_difference(f, args, wrt)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    assert not np.any(np.triu(got, 1) if lower else np.tril(got, -1))


# ---- the sigmoid's adjoint read from its value: the precision it keeps ----------------------------------


@pytest.mark.parametrize("name", [corpus.slow_unless(name == "sigmoid_one_added_last", name) for name in
                                  ("sigmoid_ratio", "sigmoid_one_added_last", "sigmoid_rebound", "sigmoid_of_sigmoid")])
def test_a_saturated_sigmoids_derivative_is_within_rounding_of_its_value(name):
    """``g * s * (1.0 - s)`` (the frameworks' form) rounds 1 - s: an absolute error of a unit in the
    last place of s times g, so where s rounds to 1 (x > 37) the derivative e^-x is 0, and at x = 20
    it has 8 digits of the unoptimised one's 16 (a known limit, docstring of logistic.py); never NaN."""
    from . import redteam_wave21_programs as programs
    f = getattr(programs, name)
    x = np.array([40.0, -40.0, 37.0, -37.0, 20.0, -20.0, 800.0, -800.0])
    w = np.linspace(0.3, 1.2, 8)
    with warnings.catch_warnings(), _quiet():
        got = srcdiff.grad(f)(x, w)
        want = srcdiff.grad(f, debug=True)(x[:6], w[:6])
    # (e / (1 + e) at e = exp(800) is inf / inf: the function's own value is NaN there)
    assert np.all(np.isfinite(got if name != "sigmoid_ratio" else np.delete(got, 6))), got
    np.testing.assert_allclose(got[:6], want, rtol=0, atol=4 * np.finfo(float).eps * np.max(np.abs(w)))


def test_numba_jvp_of_float64_values_of_float32_arguments():
    from .redteam_wave21_programs import _f32, f32_float_of
    u, k = _f32(np.random.default_rng(21))
    want = _k_derivative(f32_float_of, u, k)
    _, tangent = srcdiff.jvp(f32_float_of, (u, k), (np.zeros_like(u), 1.0), jit="numba")
    assert abs(float(tangent) - want) <= TIGHT * abs(want), (float(tangent), want)
