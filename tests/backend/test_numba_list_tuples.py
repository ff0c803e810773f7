"""jit="numba" on lists of arrays and numbers that are only read (spelled as tuples:
backend/numba/list_tuples.py) and on lists that are not (written at an index, two lengths on two paths:
left lists), every transformation against the plain transformation and float64 central differences
(numba_every.py); a cell may be refused only at the user's line."""

from __future__ import annotations

import pytest
from transforms import corpus, matrix

from . import numba_every, numba_list_tuples_programs

pytest.importorskip("numba")

PROGRAMS = corpus.from_table(numba_list_tuples_programs.PROGRAMS, "lt", "numba_list_tuples_programs", 29)


def _name(p):
    return p.name.partition(":")[2]


def _check(program, cells):
    for name, cell in numba_every.run(program, cells).items():
        if cell.outcome == matrix.REFUSED:
            assert cell.located and "numba_list_tuples_programs.py:" in cell.message, (name, cell.message)
        else:
            assert cell.outcome in (matrix.OK, matrix.NA), (name, cell.outcome, cell.message)


@pytest.mark.parametrize("program", PROGRAMS[:2], ids=_name)
def test_grad(program):
    _check(program, ("grad",))


@pytest.mark.slow  # (numba compiles for seconds each cell: minutes a row)
@pytest.mark.parametrize("program", PROGRAMS, ids=_name)
def test_every_transformation(program):
    _check(program, numba_every.CELLS)
