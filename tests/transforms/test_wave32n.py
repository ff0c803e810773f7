"""Wave 32n: the adjoint of ``sum(xs)`` of a list gave every item one shared array (wave32n_programs.py).

Found in the slow set (test_reach12a's history_then_stacked, off by up to 148): ``list_repeat(g, xs)``,
the adjoint of ``sum(xs)``, returned the same array g for each item whose shape is g's, and the
adjoint code adds into list items in place (``ys_bar[-1] += t3_bar``), so one add reached every item
and g itself: a silently wrong gradient in grad, value_and_grad and second order.  The NumPy helper,
numba's and vmap's row version now give each item its own array (rules/list_helpers.owned).

Census (7 rows x grad, value_and_grad, hessian, jvp, vjp, tree, check, jacobian, hvp, float32, numba).
Before, grad against central differences: running_total off by 51, history_sum_scaled by 96,
first_and_total by 13 (the rows that add into an item after the sum); the other rows right or refused.
After: every cell ok or n/a; two rows refused at the user's line by every transformation (REFUSED),
numba refuses one (NUMBA_REFUSED).
"""

from __future__ import annotations

import pytest

from . import closure_cells, corpus, matrix
from . import wave32n_programs as w

PROGRAMS = corpus.from_table(w.PROGRAMS, "w32n", "wave32n_programs", 32)
KEPT = {"running_total", "scalar_total"}
#: refused at the user's line by every transformation (a slice of a list, a list read and appended to in a helper)
REFUSED = {"mean_of_window", "helper_total"}
#: numba's compiler fails inside on the history stacked: refused at the user's line
NUMBA_REFUSED = {"history_sum_scaled"}


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", [p for p in PROGRAMS if _name(p) not in REFUSED], ids=_name)
def test_first_order(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "vjp"))


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in PROGRAMS
                                     if _name(p) not in REFUSED], ids=_name)
def test_every_transformation(program):
    matrix.assert_ok_or_na(program, (*matrix.EVERY, *closure_cells.EXTRA))
    matrix.assert_numba_unless_refused(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", [p for p in PROGRAMS if _name(p) in REFUSED], ids=_name)
def test_refused_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "jvp", "vjp"))
