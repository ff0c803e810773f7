"""Red-team stencil loops (stencil_redteam_programs.py): every transformation, numba included,
agrees with central differences, float32 stays float32, and the optimised gradient is the
unoptimised one (debug mode runs the generated statements as generated)."""

import copy

import numpy as np
import pytest

import srcdiff

from . import corpus, leaves, matrix
from .stencil_redteam_programs import PROGRAMS


def programs():
    return corpus.from_table(PROGRAMS, "stencil_redteam", "stencil_redteam_programs", 19)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


#: whose Hessian srcdiff refuses at the user's line: the generated gradient pads an array whose
#: number of axes the second pass does not know (np.pad in a branch, or in a loop left by break), or
#: cuts a join's adjoint by shapes it cannot differentiate through
SECOND_ORDER_REFUSED = {
    "grow_or_shrink": "np.pad in a branch whose other side shrinks the array",
    "break_after": "np.pad in a loop left by break",
    "branch_two_schemes": "np.pad in a branch",
    "hstack_of_plate_rows": "the adjoint of np.hstack of matrices cuts by np.atleast_1d shapes",
    "write_variable_index": "the adjoint writes into an adjoint at an index computed in the loop",
}


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_second_order_transformation(program):  # a sampled family (tests/sampling.py)
    row = matrix.run(program, ("grad", "hessian", "check"))
    assert not row.excluded, row.excluded
    bad = matrix.not_ok(row)
    if _name(program) in SECOND_ORDER_REFUSED and "hessian" in bad:
        assert row.cells["hessian"].outcome == matrix.REFUSED and row.cells["hessian"].located, bad
        del bad["hessian"]
    assert not bad, bad


#: what jit="numba" refuses at the user's line, and why
NUMBA_REFUSED = {  # (scalar_array_start compiles since wave 30: test_numba30.py)
    "plate_pad_edge": "numba has no np.pad of a matrix in mode 'edge'",
    "int_array_carried": "numba cannot unify an integer and a float array in one loop-carried name",
    "int_array_carried_k": "numba cannot unify an integer and a float array in one loop-carried name",
    "float64_mid_in_float32": "numba cannot unify a float32 and a float64 array in one loop-carried name",
}


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_included(program):  # every transformation again, numba too (one in NUMBA_SAMPLE by default)
    row = matrix.run(program, matrix.TRANSFORMS)
    assert not row.excluded, row.excluded
    bad = matrix.not_ok(row)
    for name, refused in (("numba", NUMBA_REFUSED), ("hessian", SECOND_ORDER_REFUSED)):
        if _name(program) in refused and name in bad:
            assert row.cells[name].outcome == matrix.REFUSED and row.cells[name].located, row.cells[name].message
            del bad[name]
    assert not bad, bad


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_each_row_optimised_as_unoptimised(program):  # a sampled family (tests/sampling.py)
    with np.errstate(all="ignore"):
        got = srcdiff.grad(program.func, wrt=program.wrt)(*copy.deepcopy(program.args))
        want = srcdiff.grad(program.func, wrt=program.wrt, debug=True)(*copy.deepcopy(program.args))
    # (float32 arguments meeting float64 values, float64_mid_in_float32: computed in float64 too)
    np.testing.assert_allclose(leaves.vector(got), leaves.vector(want), rtol=1e-12, atol=1e-12)


def test_debug_mode_takes_a_list_of_states_summed_by_a_generator():
    # debug mode's graph inlined the generator's running total (``t5 = t5 + t4``) into itself
    # without end: RecursionError
    from .stencil_redteam_programs import history_list, pyramid_list
    u0 = np.sin(np.linspace(0.0, 3.0, 7))
    for f, args in ((history_list, (u0, 0.2, 3)), (pyramid_list, (u0, 3))):
        got = srcdiff.grad(f, wrt=0, debug=True)(*args)
        np.testing.assert_allclose(got, srcdiff.grad(f, wrt=0)(*args), rtol=1e-12, atol=1e-14)
