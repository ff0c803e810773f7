"""jit="numba" through every transformation on user-style programs (numba26_programs.py): grad,
value_and_grad, hessian, jvp, vjp, jacobian, a dict-wrapped parameter and float32 arguments, each with
``jit="numba"`` and each checked against the plain NumPy transformation and float64 central
differences (numba_every.py).

What this wave fixed:

1. float32 arguments in a loop beside a float numba types float64 (``y + dt * (-k * y)`` of a float
   argument `k`, ``s + 0.1 * (s @ b)``, a float32 gradient-descent step): numba refused ("Cannot unify
   array(float32) and array(float64)").  Where the float32 spellings of float32_constants.py do not
   suffice, the gradient computes in float64 and gives its results back in NumPy's dtypes
   (numba/widening.py), the first call checked against the Python gradient as always.
2. A list given an array and a number by ``append`` (in a loop or a branch) is refused at the
   ``append``'s line with what to do, before numba's inference; a list carried through a loop whose
   items srcdiff cannot all tell (``[x, np.dot(x, x)]``) made numba's compiler run for minutes: refused
   at once (numba/mixed_lists.py).
3. An index list (``x[[2, 0]]``) in a helper whose adjoint is a function of its own was saved for
   the pullback as a list, which numba does not index by (numba/index_writes.py).
4. A name that is a number on one path and an array on another is refused naming the user's variable,
   or "a value this line computes", never a generated name (``'t1.2'``: numba/refusals.py).

numba compiles for seconds each cell: the default run takes a cheap sample of the table, the slow set
every row.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference
from transforms import corpus, matrix

import srcdiff

from . import numba_every
from .numba26_programs import PROGRAMS

pytest.importorskip("numba")

#: programs refused (at the user's line) in every cell they reach: name -> a phrase of `grad`'s reason
REFUSED = {
    "list_of_arrays_and_floats_in_loop": "keep the numbers and the arrays in two lists",
    "list_carried_with_an_untold_item": "write it as a tuple",
    "array_or_number": "`out` is a number on one path and an array",
    "return_array_or_number": "a value this line computes is an array",
}
#: (a number-and-array tuple carried through a loop, in forward mode over its gradient and in a called
#: helper's adjoint, and the untold list in a called helper's adjoint, which only the compiler's budget
#: stopped, were open here: fixed in wave 27, test_numba27.py)
#: the default run's rows (each cell compiles for seconds: the slow set runs the table)
SAMPLE: set = set()
ALL = corpus.from_table(PROGRAMS, "n26", "numba26_programs", 26)


def _short(p) -> str:
    return p.name.partition(":")[2]


@pytest.mark.parametrize(
    "program",
    [p if _short(p) in SAMPLE else pytest.param(p, marks=pytest.mark.slow) for p in ALL],
    ids=_short,
)
def test_numba_every_transformation(program):
    row = numba_every.run(program)
    for name, cell in row.items():
        if _short(program) in REFUSED and cell.outcome == matrix.REFUSED:
            assert cell.located, (name, cell.message)
            assert name != "grad" or REFUSED[_short(program)] in cell.message, (name, cell.message)
        else:
            assert cell.outcome in (matrix.OK, matrix.NA), (name, cell.outcome, cell.message)


def _program(name):
    return next(p for p in ALL if _short(p) == name)


def test_an_index_list_in_a_called_helper():
    """``x[[2, 0]]`` in a helper whose adjoint is a function of its own (the call in a tree-wrapped
    function): its index list, saved for the pullback, was a list numba does not index by."""
    row = numba_every.run(_program("fancy_in_helper"), ("grad", "tree"))
    assert all(cell.outcome == matrix.OK for cell in row.values()), row


@pytest.mark.parametrize("name", ["euler_helper", pytest.param("float32_loop_matmul", marks=pytest.mark.slow)])
def test_float32_loops_numba_cannot_keep_float32_compute_in_float64(name):
    """A float argument times a float32 array in a loop (``-k * y``), ``s + 0.1 * (s @ b)``: refused
    before; now a float32 gradient equal to NumPy's to float32's precision."""
    p = _program(name)
    small = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in p.args]
    got = srcdiff.grad(p.func, jit="numba")(*small)
    want = srcdiff.grad(p.func)(*small)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    widened = [a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in small]
    numerical = central_difference(p.func, widened, 0)
    np.testing.assert_allclose(got, numerical, rtol=2e-3, atol=2e-3 * max(1.0, float(np.max(np.abs(numerical)))))
    again = srcdiff.grad(p.func, jit="numba")(*small)  # the second call, through the compiled entry
    assert again.dtype == np.float32
    np.testing.assert_array_equal(again, got)


#: refused until wave 29: a list only read is spelled as a tuple (numba/list_tuples.py), and compiles
AS_TUPLES = {"list_carried_with_an_untold_item"}


@pytest.mark.parametrize("name", sorted(AS_TUPLES))
def test_a_list_only_read_compiles_as_a_tuple(name):
    p = _program(name)
    got = srcdiff.grad(p.func, wrt=p.wrt, jit="numba")(*p.args)
    np.testing.assert_allclose(got, central_difference(p.func, p.args, p.wrt), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(set(REFUSED) - AS_TUPLES))
def test_refused_at_the_users_line_in_seconds(name):
    """Each refusal names the user's file and line and says what to do, within seconds of CPU time
    (a list numba's inference cannot type took minutes)."""
    p = _program(name)
    srcdiff.grad(p.func, wrt=p.wrt)(*p.args)  # plain grad differentiates it
    with numba_every.within(20), pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(p.func, wrt=p.wrt, jit="numba")(*p.args)
    text = str(caught.value)
    assert "numba26_programs.py:" in text.splitlines()[0] and REFUSED[name] in text, text
    assert not any(f"'{g}." in text for g in ("t1", "t2", "out", "x_bar")), text  # no numba-internal name
