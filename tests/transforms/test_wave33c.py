"""Wave 33c: jit="numba" closure: every program grad differentiates compiles under jit="numba" or is refused
at the user's line (never a silent fallback, never a wrong number).  Programs: wave33c_programs.py (the known
gaps, each a class with variants), wave33c_promoted.py (adversarial programs against numba/joins.py's
promotion of a number to an array of ones' shape) and wave33c_science.py (thirty programs of the kind
scientists write: ODE steps, physics, small networks, likelihoods), each against float64 central differences.

CENSUS

DETAILS
"""

from __future__ import annotations

import numpy as np
import pytest
from backend import numba_every

import srcdiff

from . import corpus, matrix
from . import wave33c_programs as w
from . import wave33c_promoted as pr
from . import wave33c_science as sc

pytest.importorskip("numba")

GAPS = [(kind, p) for kind, table in (("products", w.PRODUCTS), ("dicts", w.DICTS), ("repeats", w.REPEATS),
                                       ("diagonals", w.DIAGONALS), ("scatters", w.SCATTERS), ("matrices", w.MATRICES),
                                       ("memos", w.MEMOS))
        for p in corpus.from_table(table, "w33c", "wave33c_programs", 33)]
PROMOTED = corpus.from_table(pr.PROMOTED, "w33c", "wave33c_promoted", 33)
SCIENCE = corpus.from_table(sc.SCIENCE, "w33c", "wave33c_science", 33)


def _name(p):
    return p.name.partition(":")[2]


#: jit="numba" refuses these at the user's line (open: the docstring)
NUMBA_REFUSED = {"abcd_focal", "recursive_static_depth"}
#: the default run's numba rows (cheap compiles, one of each fixed class); `-m slow` runs every row
KEPT = {"running_product_float", "repeated_then_indexed", "diag_of_a_named_list"}

#: (program, cell) of PROMOTED that numba refuses at the user's line: the promotion would change a value, or its
#: proof does not reach (a loop whose trips are not known, ``np.mean(..., axis=0)`` of the promoted value)
PROMOTED_REFUSED = {("zero_trip_mean", "grad"), ("zero_trip_mean", "tree"), ("zero_trip_while", "grad"),
                    ("zero_trip_while", "tree"), ("skipped_every_trip", "grad"), ("skipped_every_trip", "tree"),
                    ("skipped_every_trip_sum", "tree"), ("broken_first_trip", "tree"), ("returned_early", "grad"),
                    ("returned_early", "tree"), ("loop_of_branches", "grad"), ("loop_of_branches", "tree"),
                    ("zero_trip_masked_vector", "grad"), ("zero_trip_masked_vector", "tree")}

#: SCIENCE rows numba refuses at the user's line (open: the docstring)
SCIENCE_REFUSED: set = set()


@pytest.mark.parametrize("kind,program", [corpus.slow_unless(_name(p) in KEPT, k, p) for k, p in GAPS],
                         ids=lambda v: v if isinstance(v, str) else _name(v))
def test_a_gap_under_numba(kind, program):
    """jit="numba" agrees with central differences, or (NUMBA_REFUSED) refuses at the user's line."""
    matrix.assert_numba_unless_refused(program, NUMBA_REFUSED)


@pytest.mark.slow
@pytest.mark.parametrize("kind,program", GAPS, ids=lambda v: v if isinstance(v, str) else _name(v))
def test_a_gap_first_order(kind, program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow  # (numba compiles for seconds a program, twice here: called directly and as a helper)
@pytest.mark.parametrize("program", PROMOTED, ids=_name)
def test_a_promotion_never_changes_a_value(program):
    """Called directly and as a helper with its own pullback (the tree column): numba's gradient agrees with
    NumPy's and with central differences, or is refused at the user's line; never another number."""
    for cell, found in numba_every.run(program, ("grad", "tree")).items():
        if (_name(program), cell) in PROMOTED_REFUSED and found.outcome != matrix.OK:
            assert found.outcome == matrix.REFUSED and found.located, (cell, found.outcome, found.message)
        else:
            assert found.outcome == matrix.OK, (cell, found.outcome, found.message)


@pytest.mark.slow
@pytest.mark.parametrize("program", SCIENCE, ids=_name)
def test_a_science_program_under_numba(program):
    matrix.assert_numba_unless_refused(program, SCIENCE_REFUSED)


@pytest.mark.slow
@pytest.mark.parametrize("program", SCIENCE, ids=_name)
def test_a_science_program_first_order(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow  # (numba compiles twice)
def test_a_repeated_list_changed_in_place_gives_the_new_gradient():
    """``x[PICK * 2]`` under numba, then PICK appended to: the gradient of the list as it is now."""
    x = np.array([0.3, 0.5, 0.9])
    g = srcdiff.grad(w.repeated_then_indexed, jit="numba")
    np.testing.assert_allclose(g(x), srcdiff.grad(w.repeated_then_indexed)(x))
    w.PICK.append(1)
    try:
        want = srcdiff.grad(w.repeated_then_indexed)(x)
        np.testing.assert_allclose(g(x), want)
        h = 1e-6
        numeric = [(w.repeated_then_indexed(x + h * e) - w.repeated_then_indexed(x - h * e)) / (2 * h)
                   for e in np.eye(3)]
        np.testing.assert_allclose(want, numeric, rtol=1e-6, atol=1e-8)
    finally:
        w.PICK.pop()
