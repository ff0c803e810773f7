"""Wave 32d: jit="numba" of programs grad differentiates (wave32d_programs.py), each numba answer checked
against the NumPy gradient and float64 central differences (backend/numba_every.py).

Census (grad's jit="numba" cell; ok / refused at the user's line / WRONG / BAD; n/a where grad itself
refuses at the line: a SimpleNamespace's attributes, a tuple of an array and a list as a loop's state,
a tuple holding a list appended to, np.einsum of a 1-D list or a list as the first operand):

                        ok  refused  WRONG  BAD
    before  grad (48)       25       23      0    0
            tree (6)         2        4      0    0
    after   grad (48)       45        3      0    0
            tree (6)         6        0      0    0

(the tree rows: the two NUMBER_THEN_ARRAY rows and test_numba30's four OPEN cells.)  Rows pinned as refused
elsewhere that compile now: rob_dh_chain, arg_star_args_weights and keyed_pairs_read (test_redteam_wave31a),
chol_matrix_rhs (test_redteam_wave31h), not_products (test_wave31e), cached_kernel, loop_over_cached_nodes and
cached_weights_in_a_helper (test_reach15), and test_numba30's four tree cells; their refusal sets no longer name
them.  The first call with a warm on-disk cache is unchanged (benchmarks/numba_first_call.py --baseline, one run:
warm total after / before 0.96 scalar_loop, 1.01 rk4_helper, 1.02 mlp).

Found and fixed, each a class with variants here:

1. A module or closure list of numbers (``x[PICK]``, ``x.reshape(SHAPE)``, ``np.transpose(M, AXES)``,
   ``np.array(MIX)`` of rows, ``for row in MIX``) reached numba as a reflected list ("no implementation of
   getitem(array, reflected list)", "cannot reflect element of reflected container"): it is read again on every
   call and given as an int64 array where the code indexes with it, else as a tuple of tuples, ints made floats
   beside a float (backend/numba/list_reads.py).  A list changed in place is seen (a test).
2. A ``functools.cache`` / ``lru_cache`` helper giving an array at constant arguments stayed a Python call
   ("_smoothing is a Python function the generated code calls"): the array is an argument of the compiled
   module, the helper called again on every call for it (backend/numba/cached_calls.py `Cached`).
3. A number before a loop that becomes an array in it, in a function the gradient calls as a helper (a tree's
   wrapper calls yours so): the proof that the promotion keeps values stopped at the saved tuple the helper
   returns; it now may read the helper and its pullback as one function (backend/numba/pullback_joins.py).
4. Dicts keyed by pairs: ``PAIRS[(i, j)]`` at keys a loop computes, ``PAIRS[1, 2]``, and a dict argument read
   only at keys (``rates=PAIRS`` as a default: numba's "non-precise type pyobject") are the pair (keys, values)
   read by dict_item (backend/numba/dict_items.py, dict_args.py); a dict read whole (``len(rates)``) is still
   refused at its line.
5. A helper's ``if weights is None:`` given ``weights=(1.0, 0.05)`` was written ``(1.0, 0.05) is None`` in the
   gradient (a SyntaxWarning in every run, NumPy's too; for numba a list on one path and a tuple on the other):
   decided when the helper is copied into its caller (ad/inline_copy.py).
6. A Denavit-Hartenberg table given as a parameter's default (``table=DH``, ``for i, (a, d, alpha) in
   enumerate(table)``): its rows are numbers as a module table's are (backend/numba/mixed_lists.value_kinds).
7. ``scipy.linalg.solve_triangular`` of a strided right-hand side (``X=B[:, :2]``): numba reshapes C arrays only
   (backend/numba/triangular.py).
8. ``np.einsum`` of a list display (``np.einsum("ij,jk->ik", A, [[1.0, 2.0], [3.0, -1.0]])``): the list an
   array of tuples (backend/numba/einsum_lists.py).

Weights given as a list or a tuple of arrays (one ndim, or W and b alternating and unpacked), dicts read at a
loop's key, module tables indexed in a loop and solve_triangular of a contiguous matrix compiled before (kept as
variants).  Open then (refused at the user's line; each compiles since wave 33c, test_wave33c.py):
running_product_of_terms, ``prod = 1.0`` then ``prod = prod *
(1.0 + x / k)`` called directly (its adjoint's ``select`` of a mask computed from the number is not proved to
keep values: a 0-d mask selects the whole, a mask of ones' shape does not); dict_read_whole (``len`` of a dict
argument); index_of_a_repeated_list (``x[PICK * 2]``: a list both repeated and indexed with stays a list).
grad itself refuses (n/a): a SimpleNamespace's or namedtuple's attributes, a class's attributes,
a tuple holding a list carried by a loop, np.einsum of a 1-D list.  jit="numba" of the MLP gradient
(benchmarks/problems.py mlp): its temporaries are not what it pays for (numba fuses ``h_bar * (1.0 - h * h)``
itself: 19.8 us as written, 19.4 us as one loop written by hand); the two 256 x 784 x 256 products take 4.2
of its 5.2 ms, as they do in the hand gradient (5.07 ms): left as it is.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from backend import numba_every

import srcdiff

from . import corpus, matrix
from . import wave32d_programs as w

pytest.importorskip("numba")

PROGRAMS = corpus.from_table(w.PROGRAMS, "w32d", "wave32d_programs", 32)
#: grad itself refuses these at the user's line (n/a for numba)
#: (a SimpleNamespace's, a namedtuple's and a class's numbers, RATES.rate and Table.offsets[i], are read since
#: wave 33a: test_wave33a.py)
GRAD_REFUSED = {"tuple_state_with_history", "tuple_state_list_of_arrays", "einsum_list_vector", "einsum_list_first"}
#: jit="numba" still refuses these at the user's line (the docstring's open items: all three compile since wave 33c,
#: test_wave33c.py)
NUMBA_REFUSED: set = set()
#: the default run's numba cells (numba compiles for seconds each): the rest run in the slow set
KEPT = {"fancy_index_module_list", "cached_nodes_dot"}


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", [p for p in PROGRAMS if _name(p) in GRAD_REFUSED], ids=_name)
def test_grad_refuses_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad",))


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in PROGRAMS
                                     if _name(p) not in GRAD_REFUSED], ids=_name)
def test_numba_agrees_or_refuses_at_the_line(program):
    """numba's gradient agrees with NumPy's and with central differences; the programs NUMBA_REFUSED names
    may instead be refused at the user's line."""
    found = numba_every.run(program, ("grad",))["grad"]
    if _name(program) in NUMBA_REFUSED and found.outcome != matrix.OK:
        assert found.outcome == matrix.REFUSED and found.located, (found.outcome, found.message)
        assert "wave32d_programs.py:" in found.message, found.message
    else:
        assert found.outcome == matrix.OK, (found.outcome, found.message)


@pytest.mark.slow
@pytest.mark.parametrize("program", [p for p in PROGRAMS if _name(p) in {r[0] for r in w.NUMBER_THEN_ARRAY}],
                         ids=_name)
def test_number_then_array_as_a_tree(program):
    found = numba_every.run(program, ("tree",))["tree"]
    assert found.outcome == matrix.OK, (found.outcome, found.message)


def _fancy_index_gradient(x, pick):
    """The gradient of sum(x[pick] ** 2 * x[0]), by hand."""
    g = np.zeros_like(x)
    np.add.at(g, pick, 2 * x[pick] * x[0])
    g[0] += np.sum(x[pick] ** 2)
    return g


def test_a_module_list_changed_in_place_is_read_again():
    """A module list of numbers is given to numba as an array or a tuple read on every call: changed in
    place, the next call's gradient is of the list as it is then."""
    x = np.array([0.3, 0.5, 0.9])
    g = srcdiff.grad(w.fancy_index_module_list, jit="numba")
    np.testing.assert_allclose(g(x), _fancy_index_gradient(x, [0, 2, 2]), rtol=1e-12)
    w.PICK[0] = 1
    try:
        np.testing.assert_allclose(g(x), _fancy_index_gradient(x, [1, 2, 2]), rtol=1e-12)
    finally:
        w.PICK[0] = 0


def test_a_constant_given_for_a_tested_parameter_is_no_syntax_warning():
    """``weights is None`` of a helper given ``weights=(1.0, 0.05)``: decided when the helper is inlined,
    not written ``(1.0, 0.05) is None`` (a SyntaxWarning, and a list on one path, a tuple on the other)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyntaxWarning)
        g = srcdiff.grad(w.weights_tuple_beside_default)(np.array([0.3, 0.4, 0.5]))
    x = np.array([0.3, 0.4, 0.5])
    np.testing.assert_allclose(g, 2 * x + 0.05 * np.cos(x), rtol=1e-12)


#: rows taken through every transformation jit="numba" takes (the slow set): one of each new way of giving numba
#: a value (a list as an array and as rows, a cached array, a dict keyed by pairs, a dict argument)
EVERY = ("fancy_index_module_list", "nested_module_list", "cached_nodes_dot", "pairs_at_loop_keys",
         "pairs_default_read")


@pytest.mark.slow
@pytest.mark.parametrize("program", [p for p in PROGRAMS if _name(p) in EVERY], ids=_name)
def test_every_transformation(program):
    """value_and_grad, hessian, jvp, vjp, jacobian, a tree and float32 under jit="numba": agreeing with NumPy's
    and central differences, n/a, or refused at the user's line (a dict argument passed on by a tree's wrapper)."""
    for cell, found in numba_every.run(program).items():
        assert found.outcome in (matrix.OK, matrix.NA) or found.outcome == matrix.REFUSED and found.located, \
            (cell, found.outcome, found.message)
