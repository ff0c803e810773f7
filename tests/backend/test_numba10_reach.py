"""jit="numba" on the classes it refused while grad differentiated them (numba10_programs.py):
``np.logaddexp.reduce``, ``sum`` of a list of arrays, ``np.average`` along an axis or with
optional weights, ``np.array`` of nested lists mixing ints and floats, a float division by
zero in an untaken branch, a number's adjoint meeting ``np.where`` of numbers in a loop,
``scipy.stats.norm``'s methods, ``np.fill_diagonal``, an array's rows as a list.

Every program goes through the numba cell (float64 central differences) and every other
transformation of the matrix; float32 arguments keep float32 gradients under numba.  numba
compiles for seconds a program: the default run takes one program of each class, the slow
set (``-m slow``) every one.
"""

from __future__ import annotations

import numpy as np
import pytest
from transforms import corpus, matrix

import srcdiff

from .numba10_programs import PROGRAMS, reciprocal_where_untaken, rotation_of_int_and_float_rows

pytest.importorskip("numba")

#: one program of each class runs by default (numba compiles for seconds each)
SAMPLE = {"logaddexp_forward_pass", "sum_of_list", "average_along_rows_weights", "rotation_of_int_and_float_rows",
          "reciprocal_where_untaken", "garch_variance", "call_price", "sorted_values"}


def programs():
    return corpus.from_table(PROGRAMS, "numba10", "numba10_programs", 10)


def _name(p):
    return p.name.partition(":")[2].partition("[")[0]


def _sampled(items):
    return [pytest.param(p, id=_name(p), marks=() if _name(p) in SAMPLE else pytest.mark.slow) for p in items]


@pytest.mark.parametrize("program", _sampled(programs()))
def test_numba_agrees_with_central_differences(program):
    cell = matrix.run(program, ("numba",)).cells["numba"]
    assert cell.outcome == matrix.OK, cell.message


#: another class's open cell: the Hessian at the untaken branch's ``1.0 / x`` at x = 0 is NaN
#: (second order of a guarded division, not numba's)
OTHER_CLASS = {"reciprocal_where_untaken": "hessian: NaN from the untaken branch's 1 / x at 0 (second order)"}


@pytest.mark.slow
@pytest.mark.parametrize("program", [pytest.param(p, id=_name(p), marks=pytest.mark.xfail(
    strict=True, reason=OTHER_CLASS[_name(p)]) if _name(p) in OTHER_CLASS else ()) for p in programs()])
def test_every_other_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.slow
@pytest.mark.parametrize("program", [p for p in programs() if p.args[p.wrt].__class__ is np.ndarray], ids=_name)
def test_float32_under_numba_stays_float32_or_is_refused_at_the_line(program):
    """float32 arguments: the numba gradient agrees and stays float32, or numba refuses at the
    user's line (lists and joins of float32 and float64 values, which numba types once, are
    refused so: never a silent wrong answer)."""
    args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a for a in program.args]
    try:
        got = srcdiff.grad(program.func, wrt=program.wrt, jit="numba")(*args)
    except srcdiff.SrcDiffError as exc:
        assert exc.location is not None and exc.location.filename.endswith("numba10_programs.py"), str(exc)
        return
    want = srcdiff.grad(program.func, wrt=program.wrt)(*program.args)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)


def test_a_division_by_zero_in_an_untaken_branch_is_numpy_s_inf_not_an_error():
    v = np.array([0.0, 0.7])
    with np.errstate(all="ignore"):
        got = srcdiff.grad(reciprocal_where_untaken, jit="numba")(v)
    np.testing.assert_allclose(got, [0.7, 0.0])  # d/dx of x * v1 where x <= 0.5; d/dv1 = x = 0


def test_nested_rows_become_tuples_only_for_np_array():
    g = srcdiff.grad(rotation_of_int_and_float_rows, jit="numba")
    args = (np.array([0.3, -0.7]), np.ones((4, 3)))
    g(*args)
    assert "(1, 0, 0)" in g.source and "[1, 0, 0]" not in g.source
