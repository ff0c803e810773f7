"""Spellings the red team's sixteenth wave found refused (reach16_programs.py): every
transformation agrees with central differences, numba included or refused at the user's line."""

import pytest

from . import corpus, matrix
from .reach16_programs import PROGRAMS

#: what jit="numba" refuses at the user's line, and why
NUMBA_REFUSED: dict[str, str] = {
    "ediff1d_ends": "np.ravel of a number (an end of np.ediff1d computed from the input): numba ravels arrays only",
    "ediff1d_end_sum": "np.ravel of a number (an end of np.ediff1d computed from the input): numba ravels arrays only",
}

#: second order refused at the user's line, and why
SECOND_ORDER_REFUSED: dict[str, str] = {
    "bubble_sort_pairs": "a swap inside an `if` of a loop: the gradient's list is a list on one side of the branch "
                         "only (refused at the user's line)",
}


def _programs():
    return corpus.from_table(PROGRAMS, "reach16", "reach16_programs", 16)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", _programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "vjp", "jvp", "tree"))


@pytest.mark.parametrize("program", [p for p in _programs() if _name(p) not in SECOND_ORDER_REFUSED], ids=_name)
def test_every_second_order_transformation(program):  # a sampled family (tests/sampling.py)
    matrix.assert_ok(program, ("grad", "hessian", "check"))


@pytest.mark.parametrize("program", [p for p in _programs() if _name(p) not in SECOND_ORDER_REFUSED], ids=_name)
def test_numba_included(program):  # one in NUMBA_SAMPLE by default
    matrix.assert_numba_included(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", [p for p in _programs() if _name(p) in SECOND_ORDER_REFUSED], ids=_name)
def test_second_order_refused_at_the_users_line(program):
    numba = matrix.run(program, ("numba",)).cells["numba"]  # (one transformation a run: never sampled out)
    assert numba.outcome == matrix.OK, numba.message
    cell = matrix.run(program, ("hessian",)).cells["hessian"]
    assert cell.outcome == matrix.REFUSED and cell.located, cell.message
