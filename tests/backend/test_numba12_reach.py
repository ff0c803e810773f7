"""jit="numba" on the classes it refused while grad differentiated them (red team wave 11;
numba12_programs.py): gathers and scatters through index arrays of several axes, a determinant's
adjoint of a number, ``np.cumprod`` along an axis, ``np.partition``/``argpartition`` with an axis,
``math.fsum``, a float state that becomes an array in a loop, ``scipy.stats.t`` and
``multivariate_normal``, ``np.fft``'s parts (NumPy's FFT through object mode).

Every program goes through the numba cell (float64 central differences) and every other
transformation of the matrix; value_and_grad, jvp, vjp and hessian with ``jit="numba"`` agree
with central differences too.  numba compiles for seconds a program: the default run takes a
few programs, the slow set (``-m slow``) every one.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numeric import central_difference, hessian_difference
from transforms import corpus, matrix

import srcdiff

from .numba12_programs import PROGRAMS, fsum_in_a_loop, weighted_state

pytest.importorskip("numba")

#: run by default (numba compiles for seconds each): cheap programs of three classes
SAMPLE = {"add_at_pair_number", "fsum_of_array", "weighted_state"}


def programs():
    return corpus.from_table(PROGRAMS, "numba12", "numba12_programs", 12)


def _name(p):
    return p.name.partition(":")[2].partition("[")[0]


def _sampled(items):
    return [pytest.param(p, id=_name(p), marks=() if _name(p) in SAMPLE else pytest.mark.slow) for p in items]


@pytest.mark.parametrize("program", _sampled(programs()))
def test_numba_agrees_with_central_differences(program):
    cell = matrix.run(program, ("numba",)).cells["numba"]
    assert cell.outcome == matrix.OK, cell.message


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_other_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_value_and_grad_jvp_vjp_under_numba(program):
    f, args, wrt = program.func, list(program.args), program.wrt
    want = central_difference(f, args, wrt)
    close = {"rtol": 1e-5, "atol": 1e-6}
    value, grad = srcdiff.value_and_grad(f, wrt=wrt, jit="numba")(*args)
    np.testing.assert_allclose(value, f(*args), **close)
    np.testing.assert_allclose(grad, want, **close)
    v = np.linspace(-1.0, 1.0, want.size).reshape(want.shape)
    tangents = tuple(v if k == wrt else np.zeros_like(a) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                     else None for k, a in enumerate(args))
    if all(t is not None for t in tangents):
        _, tangent = srcdiff.jvp(f, tuple(args), tangents, jit="numba")
        np.testing.assert_allclose(tangent, np.sum(want * v), **close)
    _, pullback = srcdiff.vjp(f, *args, wrt=wrt, jit="numba")
    np.testing.assert_allclose(pullback(np.ones(())), want, **close)


#: the Hessians run (second order compiles for tens of seconds): programs of each class
HESSIANS = {"relative_bias", "stiffness_add_at", "laplacian_logdet", "survival_cumprod", "cumprod_with_zero",
            "trimmed_loss", "fsum_of_terms", "weighted_state", "asian_average", "student_mixture",
            "student_cdf_tails", "mvn_rows_mean", "fft_weighted_real"}
#: refused at the user's line by numba's forward mode over the gradient (docs/jit.md)
HESSIAN_REFUSES: set = set()


@pytest.mark.slow
@pytest.mark.parametrize("program", [p for p in programs() if _name(p) in HESSIANS], ids=_name)
def test_hessian_under_numba(program):
    f, args = program.func, list(program.args)
    if _name(program) in HESSIAN_REFUSES:
        with pytest.raises(srcdiff.SrcDiffError, match=r"numba12_programs\.py:\d+: hessian"):
            srcdiff.hessian(f, jit="numba")(*args)
        return
    got = srcdiff.hessian(f, jit="numba")(*args)
    np.testing.assert_allclose(got, hessian_difference(f, args), rtol=1e-4, atol=1e-5)


#: float32 arguments under numba, a program of each class: a float32 gradient equal to the float64 one
FLOAT32 = {"relative_bias", "embedding_windows", "stiffness_add_at", "survival_cumprod", "trimmed_loss",
           "fsum_of_array", "weighted_state", "asian_average", "student_mixture", "mvn_rows_mean"}


@pytest.mark.slow
@pytest.mark.parametrize("program", [p for p in programs() if _name(p) in FLOAT32], ids=_name)
def test_float32_under_numba(program):
    args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a for a in program.args]
    got = srcdiff.grad(program.func, wrt=program.wrt, jit="numba")(*args)
    want = central_difference(program.func, list(program.args), program.wrt)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=3e-3, atol=3e-3 * max(1.0, float(np.max(np.abs(want)))))


def test_fsum_is_python_s_bit_for_bit():
    """``math.fsum`` rounds once: 1e16 + x*y - 1e16 keeps x*y, which a plain sum loses."""
    x = np.array([0.3, 0.7, -1.1, 0.2])
    value, grad = srcdiff.value_and_grad(fsum_in_a_loop, jit="numba")(x)
    assert value == fsum_in_a_loop(x)
    want = np.array([x[1], x[0] + x[2], x[1] + x[3], x[2]])
    np.testing.assert_allclose(grad, want, rtol=1e-12)


def test_fsum_helper_agrees_with_math_fsum():
    from numba import njit

    from srcdiff.backend.numba.exact_sums import exact_sum

    run = njit(lambda items: exact_sum(items))
    rng = np.random.default_rng(12)
    for values in (rng.normal(size=50) * 10.0 ** rng.integers(-20, 20, size=50), np.array([1e308, 1e308, -1e308]),
                   np.array([0.1] * 10), np.array([1.0, 1e100, 1.0, -1e100]), np.array([math.inf, 1.0]),
                   np.array([math.nan, 1.0]), np.array([]), np.array([1e16, 1.0, 1e-16])):
        try:
            want = math.fsum(values)
        except (OverflowError, ValueError) as exc:
            with pytest.raises(type(exc)):
                run(values)
            continue
        got = run(values)
        assert got == want or (math.isnan(got) and math.isnan(want)), (values, got, want)


def test_float_state_becomes_the_array():
    """``s = 0.0`` then ``s = s + x[i] * v``: the gradient to v is sum(x) cos(s) (closed form)."""
    x, v = np.array([0.5, -1.0, 2.0]), np.array([0.3, -0.2, 0.1, 0.7])
    got = srcdiff.grad(weighted_state, wrt=1, jit="numba")(x, v)
    np.testing.assert_allclose(got, np.sum(x) * np.cos(np.sum(x) * v), rtol=1e-12)
