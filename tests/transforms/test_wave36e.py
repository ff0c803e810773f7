"""Wave 36e: jit="numba" over the programs grad accepts (wave36e_programs.py: variants of each class found),
through grad, value_and_grad, jvp, vjp and a tree against float64 central differences, and jit="numba"
(matrix.py).

Found and fixed:

1. A value that is a number before a loop and an array in it (``h = 0.0``, then ``h = z * h + ...``) whose
   adjoint's contributions meet in ``add_adjoints`` (srcdiff adds with it the adjoints of values whose kind
   it cannot tell, since wave 35i): numba refused "`h` is a number on one path and an array on another"
   (wave 35d's np.hsplit cells, pinned refused).  The number is made an array of ones' shape only where
   every value computed from it keeps its values (backend/numba/taints.py), and ``add_adjoints`` was not
   one of those uses: it is now, where neither operand can be a list (a value computed from the promoted
   one, an ``unbroadcast``, a ``full``, or arithmetic of one; a list is added item by item, not by ``+``).
   Variants: gated cells of np.split's and np.hsplit's pieces, an LSTM-like pair of states, a moving average,
   an integer start, a start read from a float argument, a state read after the loop.

Open: the gradient with respect to the float argument a state starts at (argument_start_s0) stays refused at
the user's line: the argument's adjoint is the promoted state's, returned (an array where a number is due).
"""

from __future__ import annotations

import pytest

from . import corpus, matrix
from . import wave36e_programs as w


def _name(p):
    return p.name.partition(":")[2]


def programs():
    return corpus.from_table(w.PROGRAMS, "w36e", "wave36e_programs", 36)


#: refused by jit="numba" at the user's line (see Open)
NUMBA_REFUSED = {"argument_start_s0"}
#: the rows the default run keeps
KEPT = {"gated_state_one_W"}


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in programs()], ids=_name)
def test_first_order(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in programs()], ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, NUMBA_REFUSED)
