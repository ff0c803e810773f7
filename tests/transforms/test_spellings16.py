"""Spellings the red team's sixteenth wave and this session found refused (spellings16_programs.py): every
transformation agrees with central differences, numba included or refused at the user's line."""

import pytest

from . import corpus, matrix
from .spellings16_programs import PROGRAMS, REFUSED

#: what jit="numba" refuses at the user's line, and why
NUMBA_REFUSED: dict[str, str] = {}  # (np.diagonal compiles since: backend/numba/diagonals.py)

#: second order refused at the user's line, and why
SECOND_ORDER_REFUSED: dict[str, str] = {}


def _programs():
    return corpus.from_table(PROGRAMS, "spellings16", "spellings16_programs", 16)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", _programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "vjp", "jvp", "tree"))


@pytest.mark.parametrize("program", [p for p in _programs() if _name(p) not in SECOND_ORDER_REFUSED], ids=_name)
def test_every_second_order_transformation(program):  # a sampled family (tests/sampling.py)
    matrix.assert_ok(program, ("grad", "hessian", "check"))


@pytest.mark.parametrize("program", _programs(), ids=_name)
def test_numba_included(program):  # one in NUMBA_SAMPLE by default
    matrix.assert_numba_included(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", corpus.from_table(REFUSED, "spellings16", "spellings16_programs", 16), ids=_name)
def test_a_library_function_srcdiff_cannot_read_is_refused_at_the_users_line(program):
    row = matrix.run(program, ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree"))
    assert row.cells["grad"].outcome == matrix.REFUSED
    for name, cell in row.cells.items():
        if cell.outcome == matrix.NA:  # (second order is run on a gradient that was checked)
            continue
        assert cell.outcome == matrix.REFUSED, (name, cell.outcome, cell.message)
        assert cell.located and "spellings16_bare.py" in cell.message.splitlines()[0], (name, cell.message)
