"""Wave 36l: second order at a tie between a sort's entries (wave36l_programs.py).

Census at the tie, before -> after (second order: hessian, jacobian(grad), hvp, jvp(grad) judged by
test_wave35f.judge against one-sided differences of the checked gradient, NaN where the sides disagree;
cells ok / WRONG):

    SORTS (7 rows)             at the tie    0 ok, 28 WRONG  ->  28 ok
                               beside it    28 ok            ->  28 ok
    wave 36a's sort_carry      at the tie    0 ok,  4 WRONG  ->   4 ok
    ORDERS (6 rows, open)      at the tie    0 ok, 24 WRONG  ->   0 ok, 24 WRONG

Every WRONG before was a FINITE number where no derivative exists (sort_squared's H[0, 0] 5.0,
sort_weighted's 0.0).

Found and fixed (a class, with its variants):

1. ``np.sort`` at a tie between entries that move differently, in a gradient srcdiff differentiates again
   (forward over reverse and reverse over reverse; a sort in straight-line code, in a for or while loop's
   carry, in a helper, ``axis=0`` of a matrix, ``axis=None``): the sorted value's tangent took one side's
   order (a stable argsort's), and the adjoint's permutation back, ``g[rank(i)]``, one side's ranks, so
   a gradient that jumps at the tie (g differs between the tied positions) or reads the sorted value
   again had a finite derivative where none exists.  The derivable gradient now writes the sort's value
   and its adjoint before the permutation back as ``sorted_tied(value, x, axis, own)`` (rules/sort_ties.py,
   ad/tied_values.py, np.sort's `derivable` adjoint): the value itself, whose tangent (and adjoint) is
   NaN in a group of equal sorted entries whose tangents differ (the tie parts) and whose value differs
   in the group (the sorted value itself: always).  Where nothing moves, or the tied entries move together
   (a direction along which the tie persists), nothing is added: exact as before.  float32 stays float32;
   numba has versions for a vector's sort (a sort along one axis of several, in a Hessian, is refused at
   its line).

Open (strict xfails below, ORDERS): the other reads of a value in its order at a tie, in second order:
``sorted()`` of a list (lowered to np.sort: its H[0, 0] is NaN now, but H[1, 1] is still a finite 0, and
H[0, 1], whose derivative exists because the gradient's permutation compensates the sorted value's part,
is NaN: the NaN of the sorted value's tangent is per piece, not per composition), ``np.median``,
``np.percentile``, ``np.max`` (their order weights / tie shares: the NaN of `tie` is not applied to the
order statistics' weights), ``x[np.argsort(x)]`` and ``np.take_along_axis(x, np.argsort(x))`` (an index
computed from the value: a gather has no tie).
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import corpus, table_tests
from . import wave36l_programs as w
from .test_wave35f import SECOND, census, judge

#: the cells in the default run (one per row; the others are slow)
KEPT = {("sort_weighted", "hvp"), ("sort_squared", "hessian"), ("sort_columns", "jvp(grad)"),
        ("sort_while", "hvp"), ("sort_flat", "jacobian(grad)")}


def _second(f, x, transform):
    with np.errstate(all="ignore"):
        return judge(f, x, SECOND[transform](f, x))


def _cell(name, f, x, transform) -> str:
    return census([(name, f, x)], [transform], _second)[name, transform]


def _params(rows, kept, xfail=False):
    out = []
    for name, f, at, beside in rows:
        for t in SECOND:
            marks = [] if (name, t) in kept else [pytest.mark.slow]
            if xfail:
                marks.append(pytest.mark.xfail(strict=True, reason="open (module docstring)"))
            out.append(pytest.param(name, f, at, beside, t, id=f"{name}-{t}", marks=marks))
    return out


@pytest.mark.parametrize("name, f, at, beside, transform", _params(w.SORTS, KEPT))
def test_a_sort_at_its_tie(name, f, at, beside, transform):
    """NaN where the gradient's component has no derivative along e_j, the number where it has one."""
    assert _cell(name, f, at, transform) == "ok"


@pytest.mark.parametrize("name, f, at, beside, transform", _params(w.SORTS, {("sort_squared", "hvp")}))
def test_a_sort_beside_its_tie(name, f, at, beside, transform):
    assert _cell(name, f, beside, transform) == "ok"


@pytest.mark.parametrize("name, f, at, beside, transform", _params(w.ORDERS, set(), xfail=True))
def test_other_reads_in_order_at_a_tie(name, f, at, beside, transform):
    assert _cell(name, f, at, transform) == "ok"


@pytest.mark.parametrize("direction", [np.array([0.0, 0.0, 1.0]), np.array([1.0, 1.0, 0.0])], ids=["other", "both"])
def test_no_nan_where_the_tie_persists(direction):
    """Along a line on which the tied entries move together (or stand still), the tie persists: the
    number, no NaN."""
    f, at = w.sort_squared, np.array([0.5, 0.5, 0.3])
    got = srcdiff.hvp(f, at, direction)
    eps = 1e-6
    want = (srcdiff.grad(f)(at + eps * direction) - srcdiff.grad(f)(at - eps * direction)) / (2 * eps)
    np.testing.assert_allclose(got, want, atol=1e-5)


@pytest.mark.parametrize("name", [corpus.slow_unless(n == "sort_squared", n) for n, *_ in w.SORTS])
def test_float32_second_order_at_the_tie(name):
    """hvp in float32 stays float32 and has the float64 Hessian's NaN and numbers (judged above)."""
    f, at = next((r[1], r[2]) for r in w.SORTS if r[0] == name)
    with np.errstate(all="ignore"):
        want = np.column_stack([srcdiff.hvp(f, at, e) for e in np.eye(at.size)])
        got = np.column_stack([srcdiff.hvp(f, at.astype(np.float32), e.astype(np.float32)) for e in np.eye(at.size)])
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4, equal_nan=True)


#: numba sorts the ties of a vector; a sort along one axis of several, in a Hessian, is refused at the user's
#: line, and so is ``np.sort(m, axis=None)`` (numba has no such sort: refused in every transformation, as before)
NUMBA_REFUSED = {"sort_columns", "sort_flat"}


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("name", [n for n, *_ in w.SORTS])
def test_numba_second_order_at_the_tie(name):
    f, at = next((r[1], r[2]) for r in w.SORTS if r[0] == name)
    if name in NUMBA_REFUSED:
        with pytest.raises(srcdiff.SrcDiffError, match=r"wave36l_programs\.py:\d+: hessian"):
            srcdiff.hessian(f, jit="numba")(at)
        return
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(srcdiff.hessian(f, jit="numba")(at), srcdiff.hessian(f)(at), equal_nan=True)


def programs():
    return corpus.from_table(w.PROGRAMS, "w36l", "wave36l_programs", 36)


def _name(p):
    return p.name.partition(":")[2]


TABLE = table_tests.Table(programs, numba_refused=NUMBA_REFUSED)
test_ordinary_points_every_transformation = TABLE.every_transformation(
    ("grad", "value_and_grad", "jvp", "vjp", "jacobian", "hessian", "hvp"), kept={"sort_squared"})
test_numba = TABLE.numba()
