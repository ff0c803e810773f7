"""jit="numba" on the classes it refused while grad differentiated them (a third of the red team's
corpus after its fifteenth wave; numba16_programs.py): ``np.atleast_1d`` / ``2d`` / ``3d`` of a
number (``np.r_[x[:2], 0.5, ...]``), ``scipy.linalg.lu_factor`` / ``lu_solve``, and the adjoint of a
product meeting a float32 matrix and a float64 gradient (float32 rows), and ``np.add.at`` through a
slice and an integer (a column read in a loop, ``logB[:, o]``).

Each program's numba gradient agrees with float64 central differences of the function and with
the NumPy gradient (which agrees with them too); with float32 arguments one program of each class
gives a float32 gradient equal to the float64 one to float32's precision.  What numba still
refuses of these calls is refused naming the user's line.  numba compiles for seconds a program:
the default run takes one program of each class, the slow set (``-m slow``) every one.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.linalg
from numeric import central_difference

import srcdiff

from .numba16_programs import PROGRAMS

pytest.importorskip("numba")

#: run by default (numba compiles for seconds each): one program of each class
SAMPLE = {"r_with_numbers", "lu_solve_vector", "gru_step", "columns_by_label"}
#: the float32 rows: one program of each class
FLOAT32 = ("atleast_of_numbers", "lu_solve_right_hand_side", "gru_step", "gru_step_h", "row_times_matrix",
           "columns_by_label")
ROWS = {name: (func, make, wrt) for name, func, make, wrt in PROGRAMS}


def _args(name):
    func, make, wrt = ROWS[name]
    return func, list(make(np.random.default_rng(16))), wrt


@pytest.mark.parametrize("name", [n if n in SAMPLE else pytest.param(n, marks=pytest.mark.slow) for n in ROWS])
def test_numba_gradient_agrees_with_central_differences_and_numpy(name):
    func, args, wrt = _args(name)
    want = central_difference(func, args, wrt)
    numpy_grad = srcdiff.grad(func, wrt=wrt)(*args)
    got = srcdiff.grad(func, wrt=wrt, jit="numba")(*args)
    scale = max(1.0, float(np.max(np.abs(want))))
    np.testing.assert_allclose(numpy_grad, want, rtol=1e-6, atol=1e-7 * scale)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7 * scale)
    np.testing.assert_allclose(got, numpy_grad, rtol=1e-9, atol=1e-12 * scale)
    assert got.dtype == np.float64


@pytest.mark.slow
@pytest.mark.parametrize("name", FLOAT32)
def test_float32_under_numba(name):
    func, args, wrt = _args(name)
    want = central_difference(func, args, wrt)  # of the float64 arguments the float32 ones round
    small = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args]
    got = srcdiff.grad(func, wrt=wrt, jit="numba")(*small)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3 * max(1.0, float(np.max(np.abs(want)))))
    np.testing.assert_allclose(got, srcdiff.grad(func, wrt=wrt)(*small), rtol=1e-4, atol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["lu_solve_vector", "lu_solve_vector_b", "lu_solve_transposed_matrix",
                                  "r_with_numbers"])
def test_jvp_under_numba(name):
    """Forward mode compiles too (``lu_factor_tangent``, ``lu_solve_tangent``: lu_factors.py)."""
    func, args, wrt = _args(name)
    want = central_difference(func, args, wrt)
    v = np.linspace(-1.0, 1.0, want.size).reshape(want.shape)
    tangents = tuple(v if k == wrt else np.zeros_like(a) for k, a in enumerate(args))
    _, tangent = srcdiff.jvp(func, tuple(args), tangents, jit="numba")
    np.testing.assert_allclose(tangent, np.sum(want * v), rtol=1e-6, atol=1e-8)


@pytest.mark.slow
def test_hessian_in_the_right_hand_side_under_numba():
    """The Hessian in b reads the row order (``lu_rows``); the one in A meets a tuple's adjoint in
    forward mode that numba does not compile, refused at the line of ``lu_factor``."""
    func, args, _ = _args("lu_solve_vector")
    want = srcdiff.hessian(func, wrt=1)(*args)
    np.testing.assert_allclose(srcdiff.hessian(func, wrt=1, jit="numba")(*args), want, rtol=1e-9, atol=1e-12)
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.hessian(func, wrt=0, jit="numba")(*args)
    line = func.__code__.co_firstlineno + 1  # lu, piv = scipy.linalg.lu_factor(A)
    assert f"numba16_programs.py:{line}:" in str(caught.value), str(caught.value)


def lu_factors_with_p(A):
    P, L, U = scipy.linalg.lu(A)
    return np.sum(L * U)


def test_scipy_lu_still_refused_at_the_users_line():
    """``scipy.linalg.lu`` (P, L, U) has no numba version yet: refused at the line, never a crash."""
    A = np.random.default_rng(16).normal(size=(3, 3)) + 3 * np.eye(3)
    srcdiff.grad(lu_factors_with_p)(A)  # plain grad differentiates it
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(lu_factors_with_p, jit="numba")(A)
    assert "test_numba16.py:" in str(caught.value) and "scipy.linalg.lu(A)" in str(caught.value), str(caught.value)


def test_a_singular_matrix_factors_as_scipy():
    """A zero pivot: LAPACK leaves its column unscaled, and so does the numba factorisation (the
    same packed factors and the same int32 row swaps as SciPy's, which warns)."""
    from numba import njit

    from srcdiff.backend.numba.lu_factors import lu_factor_of

    A = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    lu, piv = njit(lambda a: lu_factor_of(a))(A)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", scipy.linalg.LinAlgWarning)
        want_lu, want_piv = scipy.linalg.lu_factor(A)
    np.testing.assert_allclose(lu, want_lu, rtol=1e-14, atol=1e-14)
    np.testing.assert_array_equal(piv, want_piv)
    assert piv.dtype == want_piv.dtype


@pytest.mark.slow
def test_numba_failing_inside_its_compiler_is_said_so():
    """A recursion over nested tuples of several types (an expression tree) makes numba's compiler
    fail inside (an AttributeError of its own): refused naming the user's function, the message says
    the gradient never ran, not that the compiled code raised."""
    from transforms.redteam_wave12_idioms import expression_tree

    x = np.array([0.3, -0.2, 0.5])
    srcdiff.grad(expression_tree)(x)  # plain grad differentiates it
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(expression_tree, jit="numba")(x)
    message = str(caught.value)
    assert "redteam_wave12_idioms.py:" in message and "compiler failed inside" in message, message
