"""jit="numba" where the NumPy code differentiates and numba refused at the user's line (numba29_programs.py),
every transformation (grad, value_and_grad, hessian, jvp, vjp, jacobian, a tree, float32) against the
plain transformation and float64 central differences (numba_every.py).

Census, jit="numba" against jit=None (a throwaway script, not in the repository):

* the constructs of the task, 11 programs (these and their variants) x grad, hessian, jvp, jacobian, vjp:
  55 cells, before: 24 ok, 31 refused at the line; after: 47 ok, 8 refused at the line, 0 wrong.
* the wave 20-28 corpora (1205 programs), grad and jvp, programs with loops first: the machine's load
  allowed 72 programs (144 cells) before: grad 69 ok / 3 refused, jvp 71 ok / 1 refused, no wrong
  answer; after: the same (the wave 23 previous-state programs stay refused at the line: ``prev = s``
  of a list read again, a list on one path and a tuple on another; a tuple's item written).
  The rest of the corpora was not run (numba compiled for minutes a cell under that load).

Fixed, each a class:

1. A list of arrays and numbers carried through a loop (``state = [x, np.dot(x, x)]``), refused with
   "write it as a tuple": where every name the list reaches is only read (a constant index, ``len``,
   its zeros, a rename, saved on the loop's stack), its displays are tuples (backend/numba/list_tuples.py,
   called from mixed_lists.py); the list's adjoint added to item by item is a tuple too
   (list_adjoints.py's list_add).
2. Forward mode (hessian, jvp, jacobian) over a value first assigned in a loop: forward mode over the
   gradient's code reads the loop's stack into a name of its own (``y_3 = stack[k]``), whose None
   numba joined with the array (optionals.py: every name a preset None reaches, through renames and
   stacks, has zeros_of_preset's zeros).
3. A value first assigned in an inner loop: its tangent's ``z_dot = 0.0`` joins the array after the
   inner loop (no kind known after the outer loop's body): the array kinds are tried (joins.py).
4. A number before a ``for`` loop made an array in it (power iteration's ``v = 1.0``, then ``v = M @
   (np.ones(3) * v)``; ``r = 0.0``, then ``r = r + np.sin(A[k])``): the promotion to an array of ones'
   shape was checked name by name, so the array after the loop counted as the promoted number; it is
   now checked in the order the statements run (taints.py), a loop over a constant range running,
   the arguments' kinds known.  A number's zero shape kept in a name (``t = np.shape(lam);
   np.zeros(t)``, forward mode over a gradient) is 0.0 (zero_adjoints.py).
5. ``rng.choice(a, size, replace, p)`` of a generator the function seeds (random_calls.py,
   random_draws.py): NumPy's draws, as the other methods.

Open (refused at the user's line, ``# OPEN``): sinkhorn_from_a_number's grad, value_and_grad, vjp and
hessian (``u = 1.0`` saved on the stack before the loop overwrites it: the promoted value's uses in the
backward sweep's last iteration cannot be told from the others'); ``np.squeeze`` without an axis (the
number of axes of its result depends on the shape's values, which numba does not type).
"""

from __future__ import annotations

import pytest
from transforms import corpus, matrix

from . import numba29_programs, numba_every

pytest.importorskip("numba")

PROGRAMS = corpus.from_table(numba29_programs.PROGRAMS, "n29", "numba29_programs", 29)
#: cells refused at the user's line still, or right (the docstring's open items; the tree's wrapper compiles)
#: (sinkhorn_from_a_number and squeezed: compiled since wave 30, tests/transforms/test_numba30.py)
OPEN: dict = {}
#: the default run's cells (numba compiles for seconds each): the rest run in the slow set
KEPT = {("list_state", "grad"), ("power_iteration", "grad")}


def _name(p):
    return p.name.partition(":")[2]


def _check(program, cells):
    row = numba_every.run(program, cells)
    for name, cell in row.items():
        if name in OPEN.get(_name(program), set()) and cell.outcome != matrix.OK:
            assert cell.outcome == matrix.REFUSED and cell.located, (name, cell.outcome, cell.message)
            assert "numba29_programs.py:" in cell.message, (name, cell.message)
        else:
            assert cell.outcome in (matrix.OK, matrix.NA), (name, cell.outcome, cell.message)


@pytest.mark.parametrize("program,cell", [pytest.param(p, c, id=f"{_name(p)}-{c}") for p in PROGRAMS
                                          for c in ("grad",) if (_name(p), c) in KEPT])
def test_kept_cells(program, cell):
    _check(program, (cell,))


@pytest.mark.slow  # (numba compiles for seconds each cell: minutes a row)
@pytest.mark.parametrize("program", PROGRAMS, ids=_name)
def test_every_transformation(program):
    _check(program, numba_every.CELLS)
