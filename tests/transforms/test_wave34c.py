"""Wave 34c: speed of gated recurrent cells whose gates' width is computed at run time (issue 26).

PLACEHOLDER
"""

from __future__ import annotations

import pytest

from . import closure_cells, corpus, matrix
from . import wave34c_programs as w
from .test_redteam_wave27a import cell_vmap_grad

matrix.CELLS["vmap_grad"] = cell_vmap_grad
ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w34c", "wave34c_programs", 34)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps: a width of 1 broadcast (the test's other code sums it back), one
#: of more, a negative one
KEPT = {"width_one_broadcast_b", "mgu_bias_b", "negative_width_b"}


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in programs()], ids=_name)
def test_first_order(program):
    matrix.assert_ok_or_na(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, set())
