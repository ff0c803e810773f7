"""Wave 33c: jit="numba" closure: every program grad differentiates compiles under jit="numba" or is refused
at the user's line (never a silent fallback, never a wrong number).  Programs: wave33c_programs.py (the known
gaps, each a class with variants), wave33c_promoted.py (adversarial programs against numba/joins.py's
promotion of a number to an array of ones' shape) and wave33c_science.py (thirty programs of the kind
scientists write: ODE steps, physics, small networks, likelihoods), each against float64 central differences.

Census (the jit="numba" cell of each row; ok / refused at the user's line / WRONG / BAD, BAD being a crash
or a refusal naming no line of the user's; grad itself agrees on every row, before and after):

                                        before:  ok  ref  WRONG  BAD     after:  ok  ref  WRONG  BAD
    gaps (30 rows, 7 classes)                    13   17     0    0              29    1     0    0
    promotions (17 adversarial rows)             10    7     0    0              11    6     0    0
    science (30 rows)                            30    0     0    0              30    0     0    0

The promotions' rows also go through the tree column (the function called as a helper with its own pullback,
numba/pullback_joins.py's proof): ok or refused at the line, never WRONG (the slow set).  Rows of wave 32d and
32h refused before compile now (running_product_of_terms, index_of_a_repeated_list, ctl_lqr_rollout,
idi_add_at_assembly, opt_abcd_zip); their refusal sets no longer name them.

Found and fixed, each a class with variants (wave33c_programs.py):

1. A running product from a number (``prod = 1.0``, ``prod = prod * (1 + x / k)``, then ``np.log(prod)``),
   called directly: its adjoint's masks (``np.logical_and(np.equal(prod, 0.0), np.not_equal(t2, 0.0))``, the
   product's exact zero at a zero factor) were not proved to keep values, so the number stayed a number and
   numba refused.  A call of NumPy's comparisons, logical functions and elementwise functions whose other
   operand is an array of at least the promoted value's axes (itself, or an elementwise result of one) has
   that operand's shape and the number's values (numba/taints.py `_covers`), as a binary operator had;
   survival products and compound growth over a loop of ``n`` trips likewise.
2. ``x[PICK * 2]``, ``x[2 * PICK]``, ``x[PICK + ROWS]``, ``x[PICK * k]`` (k a range's counter) of module lists
   of ints: a list repeated or joined was passed as a reflected list numba cannot index with.  Where a module
   parameter holds a list of ints, the repetition / join is ``repeated_items`` / ``joined_items``
   (numba/list_repeats.py), the same items as the int64 array list_reads.py gives; PICK changed in place
   builds the gradient again (a test).
3. ``np.diag([1.0, 0.1])`` / ``np.diag((1, 2, 3), 1)`` of a list or tuple of numbers (an LQR cost's Q, a named
   list of weights): numba's np.diag takes arrays only; an overload makes the array first (numba/diagonals.py).
4. ``np.add.at(K, (rows, cols), v)`` with a tuple of index vectors (stiffness assembly, pairs, a number added):
   the gradient's ``index_add(K, [rows, cols], v)`` held its parts in a list numba has no overload for; a
   list display only used as the parts of an index is a tuple (numba/list_tuples.py), which the overloads of
   gathers.py take.  With fewer vectors than axes (rows of a 3-D array): index_adds.py's new overloads.
5. ``len(WEIGHTS)`` of a module dict: "reads the dict WEIGHTS other than at constant keys"; the length is now a
   chain of its own (numba/scope_reads.py), read on every call (a key added is seen).  ``len`` of a dict
   argument or default compiled already (kept as variants).
6. An ABCD product of optics over ``zip(curvatures, gaps)`` with ``gaps=(0.1, 0.3, 0.1)`` a default: the list
   displays in the loop (``[1.0, d]``) held an item srcdiff could not tell to be a number (a tuple
   parameter's item), refused as a list numba might not finish on.  A default tuple of floats is read as
   numbers, as a default table is (numba/mixed_lists.value_kinds).

Checked and right (kept as variants): lists and products of matrices carried through loops (transfer
matrices, powers appended), ``functools.lru_cache`` helpers in a loop and returning arrays, recursion over a
list (Horner) and by halves; the adversarial promotions: a loop skipped on every trip or broken out of on its
first, an early return inside the loop, a value reused after its stack is popped, a row written, an index read,
a second loop, loops of no trips, a (1, 1) promotion meeting a vector in a mask (refused: ``np.mean(...,
axis=0)`` would differ) and a matrix (ok).  No promotion changed a value.

Open (refused at the user's line; NUMBA_REFUSED, PROMOTED_REFUSED below):

* recursive_static_depth: a recursive helper returning ``0.0`` at its base and an array above it (numba
  joins no number and array in a recursive function's result).
* the promotions whose proof does not reach or which would change a value: loops of ``n`` trips whose value
  meets ``np.mean(..., axis=0)``, a loop skipped by ``continue`` with such a use, an early return, a number
  added in one branch.
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
NUMBA_REFUSED = {"recursive_static_depth"}
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
