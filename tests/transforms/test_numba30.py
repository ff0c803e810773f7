"""jit="numba" where grad differentiates and numba refused at the user's line (numba30_programs.py): every
transformation jit="numba" takes (grad, value_and_grad, hessian, jvp, vjp, jacobian, a tree, float32) against
the NumPy transformation and float64 central differences (backend/numba_every.py).

Fixed, each a class with variants here:

1. ``np.squeeze(x)`` without an axis (numba: "Use of unsupported NumPy function 'numpy.squeeze'"; the number
   of axes of its result depends on the lengths of x).  A variant is compiled for one signature, which says
   which axes of each array argument have length one, and shape inference carries that to every value:
   where it knows every axis of x, the call becomes ``np.squeeze(x, axis=(...))`` naming those of length
   one (ad/squeeze_axes.py, called from driver/compile.py for every transformation but vmap's).  The
   method ``x.squeeze(axis=...)`` is numba's squeeze too (backend/numba/array_calls.py).  Variants: a
   product's axes, the method, an argument, no axis of length one, a 0-d result, in a loop, in a helper,
   a mean with keepdims, a tree's leaf.  Still refused at the line: a squeeze of ``M[k:k + 1]``, whose
   length the signature does not say (REFUSED).
"""

from __future__ import annotations

import pytest
from backend import numba_every

from . import corpus, matrix, numba30_programs

pytest.importorskip("numba")

PROGRAMS = corpus.from_table(numba30_programs.PROGRAMS, "n30", "numba30_programs", 30)
REFUSED = corpus.from_table([row for row, _ in numba30_programs.REFUSED.values()], "n30", "numba30_programs", 30)
#: the default run's cells (numba compiles for seconds each): the rest run in the slow set
KEPT = {("squeeze_of_a_product", "grad")}


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program,cell", [corpus.slow_unless((_name(p), c) in KEPT, p, c) for p in PROGRAMS
                                          for c in numba_every.CELLS],
                         ids=[f"{_name(p)}-{c}" for p in PROGRAMS for c in numba_every.CELLS])
def test_every_transformation(program, cell):
    found = numba_every.run(program, (cell,))[cell]
    assert found.outcome in (matrix.OK, matrix.NA), (found.outcome, found.message)


@pytest.mark.slow  # (numba compiles for seconds a cell)
@pytest.mark.parametrize("program", REFUSED, ids=_name)
def test_refused_at_the_line(program):
    found = numba_every.run(program, ("grad",))["grad"]
    assert found.outcome == matrix.REFUSED and found.located, (found.outcome, found.message)
    assert "numba30_programs.py:" in found.message, found.message
