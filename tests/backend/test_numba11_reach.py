"""jit="numba" on the classes it refused while grad differentiated them (numba11_programs.py):
a generator ``np.random.default_rng(seed)`` made inside the function (NumPy's draws, through
numba's object mode), ``try``/``except`` of a library error (the path decided by Python), float32
loops meeting Python floats (constants and zeros typed as NumPy types them), a list written by
index, ``np.add.at`` through an index array into a vector or a matrix, ``np.meshgrid``, and
``np.put_along_axis`` (a write through index arrays of several axes).

Every program goes through the numba cell (float64 central differences) and every other
transformation of the matrix; value_and_grad, jvp, vjp and hessian with ``jit="numba"`` agree
with central differences too.  numba compiles for seconds a program: the default run takes a
few programs, the slow set (``-m slow``) every one.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference, hessian_difference
from transforms import corpus, matrix

import srcdiff

from .numba11_programs import (
    PROGRAMS,
    SPD_OR_NOT,
    float32_decay,
    put_along_first_axis,
    scatter_scalar_add_at,
    solve_or_least_squares,
)

pytest.importorskip("numba")

#: run by default (numba compiles for seconds each): cheap programs of three classes
SAMPLE = {"draws_in_a_loop", "float32_decay", "scatter_scalar_add_at"}


def programs():
    return corpus.from_table(PROGRAMS, "numba11", "numba11_programs", 11)


def _name(p):
    return p.name.partition(":")[2].partition("[")[0]


def _sampled(items):
    return [pytest.param(p, id=_name(p), marks=() if _name(p) in SAMPLE else pytest.mark.slow) for p in items]


@pytest.mark.parametrize("program", _sampled(programs()))
def test_numba_agrees_with_central_differences(program):
    cell = matrix.run(program, ("numba",)).cells["numba"]
    assert cell.outcome == matrix.OK, cell.message


def test_put_along_axis_with_indices_of_another_number_of_axes_is_refused_at_the_line():
    """``np.put_along_axis`` of values a gradient reaches compiles (put_along_first_axis): the gradient
    is made for the number of axes of each call's arguments, so it writes ``out[rows, arange(2)]`` with
    no run-time helper.  Indices of a number of axes NumPy refuses are refused at the user's line,
    with numba as without (before anything is compiled)."""
    x = np.array([0.3, -1.7])
    for jit in (None, "numba"):
        g = srcdiff.grad(put_along_first_axis, jit=jit)
        for rows in (np.array([2, 0]), np.array([[[2, 0]]])):
            with pytest.raises(srcdiff.SrcDiffError, match=r"numba11_programs\.py:\d+: `np\.put_along_axis"):
                g(x, rows)


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_other_transformation(program):
    matrix.assert_every_transformation(program)


def _float64(args):
    return [a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype == np.float32 else a for a in args]


def _tolerance(args):
    wide = any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args)
    return {"rtol": 3e-3, "atol": 3e-3} if wide else {"rtol": 1e-5, "atol": 1e-6}


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_value_and_grad_jvp_vjp_under_numba(program):
    f, args, wrt = program.func, list(program.args), program.wrt
    want = central_difference(f, _float64(args), wrt)
    close = _tolerance(args)
    value, grad = srcdiff.value_and_grad(f, wrt=wrt, jit="numba")(*args)
    np.testing.assert_allclose(value, f(*_float64(args)), **close)
    np.testing.assert_allclose(grad, want, **close)
    v = np.linspace(-1.0, 1.0, want.size).reshape(want.shape).astype(args[wrt].dtype)
    tangents = tuple(v if k == wrt else np.zeros_like(a) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                     else None for k, a in enumerate(args))
    if all(t is not None for t in tangents):
        _, tangent = srcdiff.jvp(f, tuple(args), tangents, jit="numba")
        np.testing.assert_allclose(tangent, np.sum(want * v), **close)
    _, pullback = srcdiff.vjp(f, *args, wrt=wrt, jit="numba")
    np.testing.assert_allclose(pullback(np.ones((), args[wrt].dtype)), want, **close)


#: the Hessians run (second order compiles for tens of seconds): float64 programs of each class
HESSIANS = {"noise_sign_inside", "solve_or_least_squares", "inverse_or_damped", "list_slots_negative_index",
            "running_list_of_scalars", "scatter_vector_add_at", "meshgrid_ij_field"}
#: refused at the user's line by numba's forward mode over the gradient (docs/jit.md): the tangent of
#: np.linalg.pinv's adjoint (a number on one path, a matrix on the other) and a list carried through a
#: loop whose adjoint's tangent is a list before the loop and an array in it
HESSIAN_REFUSES = {"solve_or_least_squares", "running_list_of_scalars"}


@pytest.mark.slow
@pytest.mark.parametrize("program", [p for p in programs() if _name(p) in HESSIANS], ids=_name)
def test_hessian_under_numba(program):
    f, args = program.func, list(program.args)
    if _name(program) in HESSIAN_REFUSES:
        with pytest.raises(srcdiff.SrcDiffError, match=r"numba11_programs\.py:\d+: hessian"):
            srcdiff.hessian(f, jit="numba")(*args)
        return
    got = srcdiff.hessian(f, jit="numba")(*args)
    np.testing.assert_allclose(got, hessian_difference(f, args), rtol=1e-4, atol=1e-5)


def test_float32_loops_stay_float32_and_agree():
    x = np.array([0.3, -1.1, 0.8, 0.2], dtype=np.float32)
    got = srcdiff.grad(float32_decay, jit="numba")(x)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, central_difference(float32_decay, (x.astype(np.float64),), 0), rtol=3e-3,
                               atol=3e-3)


def test_add_at_repeats_add_again():
    x, idx = np.array([0.5, -1.0, 2.0, 0.25]), np.array([3, 0, 3, 3])
    got = srcdiff.grad(scatter_scalar_add_at, jit="numba")(x, idx)
    np.testing.assert_allclose(got, [1.0 + 2 * 0.5, -2.0, 4.0, 3.0 + 0.5])  # counts + 2 x


@pytest.mark.slow
def test_the_handler_path_is_python_s():
    """A singular matrix: ``np.linalg.solve`` raises, the handler's pinv runs, as in Python."""
    b = np.array([0.3, -0.7])
    g = srcdiff.grad(solve_or_least_squares, wrt=1, jit="numba")
    np.testing.assert_allclose(g(SPD_OR_NOT, b), 2 * np.linalg.pinv(SPD_OR_NOT).T @ np.linalg.pinv(SPD_OR_NOT) @ b,
                               rtol=1e-10)
    assert "probe_decision(" in g.source
