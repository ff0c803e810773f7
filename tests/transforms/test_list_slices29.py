"""Slices of a list a helper returns, through every transformation (list_slices29_programs.py).

Before: grad, value_and_grad, vjp and a tree silently wrong (2 of 6 programs) or crashing in the
gradient's code (3 of 6); the Hessian's code did not parse (``list_add(xs_bar, 1:, g)``).  The
adjoint of ``xs[a:b]`` of a list is now ``list_add(xs_bar, slice(a, b, None), g)``, item by item
(rules/list_helpers.py).  Second order of a list's slice stays refused at the user's line.
"""

from __future__ import annotations

import pytest

from . import closure_cells, corpus, matrix
from . import list_slices29_programs as w

FIRST_ORDER = ("grad", "value_and_grad", "jvp", "vjp", "tree", "float32")


def programs():
    return corpus.from_table(w.PROGRAMS, "slices29", "list_slices29_programs", 29)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_first_order_agrees(program):
    matrix.assert_ok_or_na(program, FIRST_ORDER)


@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in enumerate(programs())], ids=_name)
def test_second_order_and_numba_agree_or_refuse_at_the_line(program):
    row = matrix.run(program, ("hessian", "numba", *closure_cells.EXTRA))
    for name, cell in row.cells.items():
        assert cell.outcome in (matrix.OK, matrix.NA, matrix.REFUSED), (name, cell.message)
        assert cell.outcome != matrix.REFUSED or cell.located, (name, cell.message)
