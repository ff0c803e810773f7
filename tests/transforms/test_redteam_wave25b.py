"""Red-team wave 25b: the public API as a demanding user drives it (redteam_wave25b_programs.py
says what was found).  Every answer is checked against float64 central differences."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from . import redteam_wave25b_programs as w

# ---- finding 1: 0-d array parameters under numba ---------------------------------------------------


def zero_d_programs(dtype=np.float64):
    found = corpus.from_table(w.ZERO_D, "wave25b", "test_redteam_wave25b", 25)

    def narrowed(a):
        if isinstance(a, dict):
            return {k: narrowed(v) for k, v in a.items()}
        return a.astype(dtype) if isinstance(a, np.ndarray) and a.ndim == 0 else a

    for p in found:
        p.args = tuple(narrowed(a) for a in p.args)
    return found


def _numeric(f, args):
    if isinstance(args[0], dict):
        return {
            k: central_difference(lambda v, k=k: f({**args[0], k: v}, *args[1:]), [np.array(args[0][k], float)], 0)
            for k in args[0]
        }
    return central_difference(f, [np.array(a, float) if isinstance(a, np.ndarray) else a for a in args], 0)


def _close(got, want, dtype):
    tol = 1e-6 if dtype == np.float64 else 2e-3
    if isinstance(want, dict):
        for k in want:
            _close(got[k], want[k], dtype)
        return
    assert np.asarray(got).dtype == dtype and np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=lambda d: d.__name__)
@pytest.mark.parametrize("program", zero_d_programs(), ids=lambda p: p.name)
def test_zero_d_numba_value_and_grad(program, dtype):
    """value_and_grad and vjp compile the 0-d parameter's sums with numba."""
    program = next(p for p in zero_d_programs(dtype) if p.name == program.name)
    f, args = program.func, program.args
    want = _numeric(f, args)
    value, got = srcdiff.value_and_grad(f, jit="numba")(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-6)
    _close(got, want, dtype)
    _, pullback = srcdiff.vjp(f, *args, jit="numba")
    _close(pullback(1.0), want, dtype)


@pytest.mark.parametrize("program", zero_d_programs(), ids=lambda p: p.name)
def test_zero_d_numba_hessian(program):
    f, args = program.func, program.args
    if isinstance(args[0], dict):
        pytest.skip("a tree's Hessian is checked by test_zero_d_every_transformation")
    got = srcdiff.hessian(f, jit="numba")(*args)
    want = central_difference(lambda t: _numeric(f, (t, *args[1:])), [np.array(args[0], float)], 0, eps=1e-4)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("program", zero_d_programs(), ids=lambda p: p.name)
def test_zero_d_every_transformation(program):
    matrix.assert_numba_included(program)
