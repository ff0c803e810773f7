"""Wave 32a: exactness and ordering of second-order and masked-use code (wave32a_programs.py).

Census (before -> after; cells ok / n/a / refused at the user's line / WRONG / BAD):

CENSUS_PLACEHOLDER

Found and fixed:

1. ORDERED (opt_black76 of wave 31a, strict xfail until now): one value under two primitives of infinite
   slope in one body (two ``np.sqrt(t)``, ``math.sqrt``, ``t ** 0.5``, np.cbrt, np.log, in a loop, a
   helper, straight-line code, float32), the first read under ``df`` and under ``strike * df``: the use
   masks of the two (ad/unused_elements.py) shared the AST of ``df != 0``, and the first root's adjoint
   computed that repeated subexpression once into ``t12_shared`` (ad/adjoints._shared) by rewriting its
   contributions in place, which rewrote the second root's statement emitted before it too: the gradient
   read ``t12_shared`` before its line (UnboundLocalError at the user's line; hvp and hessian of the
   straight-line form refused).  Now a mask is copied where a hold embeds it, and `_shared` rewrites a
   copy: no emitted statement shares an expression another pass may rewrite.
2. MASKED_DATA: ``grad(f, debug=True)`` stopped at the first NaN it met, also NaN data in the branch
   np.where does not take (select_nested_where_nan of wave 31h), where the gradient is finite.  Now the
   first non-finite value's error is kept and raised only if what the function returns is not finite
   (backend/debug.py); a NaN that reaches the result still stops at its line.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix, speed_checks
from . import wave32a_programs as w
from .test_redteam_wave27a import cell_vmap_grad

matrix.CELLS["vmap_grad"] = cell_vmap_grad
ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap_grad")


def _name(p):
    return p.name.partition(":")[2]


def _programs(table):
    return corpus.from_table(table, "w32a", "wave32a_programs", 32)


#: the ORDERED rows the default run keeps (the black76 loop and the straight line: both raised before)
KEPT = {"two_roots_loop", "roots_straight_line"}


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in _programs(w.ORDERED)],
                         ids=_name)
def test_roots_of_one_value_first_and_second_order(program):
    matrix.assert_ok_or_na(program, (*matrix.FIRST_ORDER, "hvp", "jacobian"))


@pytest.mark.slow
@pytest.mark.parametrize("program", _programs(w.ORDERED), ids=_name)
def test_roots_of_one_value_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", _programs(w.ORDERED), ids=_name)
def test_roots_of_one_value_numba(program):
    matrix.assert_ok(program, ("numba",))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in enumerate(_programs(w.MASKED_DATA))],
                         ids=_name)
def test_debug_passes_nan_data_np_where_leaves_out(program):
    speed_checks.assert_near_central_differences(program)
    speed_checks.assert_optimised_equals_debug(program, rtol=1e-11, atol=1e-13)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_debug_stops_at_nan_data_that_reaches_the_result():
    x = np.linspace(-1.0, 1.5, 6)
    assert np.isnan(srcdiff.grad(w.nan_data_reaching_the_result)(x)).any()
    with pytest.raises(srcdiff.SrcDiffError, match="non-finite input") as caught:
        srcdiff.grad(w.nan_data_reaching_the_result, debug=True)(x)
    assert caught.value.location.filename.endswith("wave32a_programs.py")
