"""jit="numba" on what it refused, or stopped only by the compiler's budget, while grad differentiated it
(numba27_programs.py): each cell of every transformation (numba_every.py: grad, value_and_grad, hessian,
jvp, vjp, jacobian, a dict-wrapped parameter, float32) against the plain NumPy transformation and float64
central differences, and srcdiff.vmap with jit="numba" against a loop over the examples.

What this wave fixed:

1. A list carried through a loop in a helper whose adjoint is a function of its own (a closure, or the
   function a dict-wrapped parameter is passed to) was not refused: mixed_lists.py knew no kind of the
   helper's parameters, and numba's compiler ran until its budget (120 s).  The parameters' kinds now come
   from the call's shapes, and the numbers and float arrays the code reads from its closure or module
   count as told: refused at once at its line, and a list of arrays carried there compiles.  A list of
   float32 and float64 arrays carried through a loop (a float32 argument times a float: numba computes
   float64) also ran until the budget: it computes in float64 from the start (widening.py).
2. A tuple of a number and an array carried through a loop failed in forward mode over its gradient (a
   Hessian: ``list_add`` into a tuple) and in a helper's pullback (``state_1_bar = state_bar``, an alias
   of the tuple's adjoint): tuple_parts.py adds into a tuple and follows an alias only read.
3. An ``append`` of a number to a list of arrays (or the other way round) in a helper got numba's own
   words ("Invalid use of BoundFunction(list.append ...)"): said as "this gives a number to a list of
   arrays" with what to do (refusals.py), or refused before numba where the kinds are told.
4. ``np.tile`` / ``np.repeat`` counted from shapes (``tiles_summed`` / ``repeats_summed``, their adjoints)
   and ``sum(items)`` of a number and arrays (``sum_items``, ``list_repeat``) were refused: numba versions
   (counted_copies.py, list_sums.py, list_adjoints.py).  In a called helper's adjoint, the list display
   saved for the pullback made numba's compiler fail inside ("unhashable type: 'list'"): a display only
   summed, read at constant positions or saved whole is a tuple in numba's code (list_sums.py).
5. srcdiff.vmap with jit="numba" refused loops (``broadcast_rows``, ``sum_rows``: helpers with no numba
   version) and said "gradient" of its batched code: row_helpers.py, and the refusals name the batched
   code with vmap's way out; a call of a gradient object inside the mapped function says so.

numba compiles for seconds each cell: the default run keeps the refusals (no compile) and a few cheap
compiles; the slow set runs every cell of every row.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference
from transforms import corpus, matrix

import srcdiff

from . import numba_every
from .numba27_programs import PROGRAMS, appended_losses, loop_state

pytest.importorskip("numba")

ALL = corpus.from_table(PROGRAMS, "n27", "numba27_programs", 27)

#: programs refused (at the user's line, at once) in every cell they reach: name -> a phrase of the reason
REFUSED = {
    "carried_list_in_helper": "write it as a tuple of the same items",
    "appended_in_helper": "appends an array to a list that holds numbers",
    "appended_untold_in_helper": "this gives a number to a list of arrays",
}


#: cells still refused at the user's line (open): none
OPEN: dict = {}


def _short(p) -> str:
    return p.name.partition(":")[2]


def _program(name):
    return next(p for p in ALL if _short(p) == name)


@pytest.mark.slow
@pytest.mark.parametrize("program", ALL, ids=_short)
def test_numba_every_transformation(program):
    row = numba_every.run(program)
    for name, cell in row.items():
        refused = _short(program) in REFUSED or name in OPEN.get(_short(program), ())
        if refused and cell.outcome == matrix.REFUSED:
            assert cell.located, (name, cell.message)
            assert name != "grad" or REFUSED[_short(program)] in cell.message, (name, cell.message)
        else:
            assert cell.outcome in (matrix.OK, matrix.NA), (name, cell.outcome, cell.message)


#: refused until wave 29: a list only read is spelled as a tuple (numba/list_tuples.py), and compiles
AS_TUPLES = {"carried_list_in_helper"}


@pytest.mark.parametrize("name", sorted(AS_TUPLES))
def test_a_list_only_read_in_a_helper_compiles_as_a_tuple(name):
    p = _program(name)
    got = srcdiff.grad(p.func, wrt=p.wrt, jit="numba")(*p.args)
    np.testing.assert_allclose(got, central_difference(p.func, p.args, p.wrt), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(set(REFUSED) - AS_TUPLES))
def test_refused_at_once_at_the_users_line(name):
    """Refused at the line in the helper, in srcdiff's words, within seconds (the list in a helper's own
    adjoint ran until the compiler's budget; an append got numba's own message)."""
    p = _program(name)
    srcdiff.grad(p.func, wrt=p.wrt)(*p.args)  # plain grad differentiates it
    for f in (p.func, numba_every.trees_wrapped.wrapper(p)[0]):
        args = p.args if f is p.func else ({"x": p.args[0]},)
        with numba_every.within(30), pytest.raises(srcdiff.SrcDiffError) as caught:
            srcdiff.grad(f, jit="numba")(*args)
        text = str(caught.value)
        assert "numba27_programs.py:" in text.splitlines()[0] and REFUSED[name] in text, text
        assert "BoundFunction" not in text and "budget" not in text, text


def test_a_list_of_arrays_carried_in_a_helper_compiles():
    """The helper's closure holds the number `scale`: its kind is told, the list is of arrays only."""
    row = numba_every.run(_program("arrays_list_in_helper"), ("grad",))
    assert row["grad"].outcome == matrix.OK, row


def test_a_float32_list_of_arrays_carried_through_a_loop_compiles():
    """float32 and float64 arrays in one list carried through a loop (``[x, x * 2.5]`` of a float32 x, as
    numba computes it): its compiler ran until the budget.  It computes in float64 from the start and
    gives float32 back, checked against NumPy's float32 gradient and central differences."""
    with numba_every.within(60):
        row = numba_every.run(_program("list_of_arrays_loop"), ("float32",))
    assert row["float32"].outcome == matrix.OK, row


@pytest.mark.parametrize("name", ["tile_by_len_ratio", "summed_terms"])
def test_counted_copies_and_mixed_sums_compile(name):
    row = numba_every.run(_program(name), ("grad",))
    assert row["grad"].outcome == matrix.OK, row


# ---- srcdiff.vmap with jit="numba" ----------------------------------------------------------------------

W = np.array([0.4, -0.3, 0.8])
XS = np.array([[0.5, 1.0, -0.2], [0.1, -0.7, 0.9], [1.2, 0.3, 0.4], [-0.6, 0.2, 0.5]])


@pytest.mark.parametrize(
    "f", [loop_state, pytest.param(appended_losses, marks=pytest.mark.slow)], ids=lambda f: f.__name__
)
def test_vmap_compiles_loops_and_their_gradients(f):
    """``broadcast_rows`` (a value the same for every row, before a loop) and ``sum_rows`` had no numba
    version: refused.  Each row against f, and the gradient's against central differences."""
    values = srcdiff.vmap(f, in_axes=(None, 0), jit="numba")(W, XS)
    np.testing.assert_allclose(values, [f(W, x) for x in XS], rtol=1e-12)
    grads = srcdiff.vmap(srcdiff.grad(f), in_axes=(None, 0), jit="numba")(W, XS)
    for x, g in zip(XS, grads):
        np.testing.assert_allclose(g, central_difference(f, (W, x), 0), rtol=1e-6, atol=1e-8)


def _square_loss(w, x):
    return np.sum(np.tanh(x * w) ** 2)


_dloss = srcdiff.grad(_square_loss)


def calls_a_gradient(w, x):
    return _square_loss(w, x) + np.sum(_dloss(w, x) ** 2)


def path_kinds(w, x):
    if w[0] > 0:
        out = x * 2.0
    else:
        out = np.sum(x)
    return np.sum(out * w)


def test_vmap_refusals_name_the_batched_code_and_vmaps_way_out():
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.vmap(calls_a_gradient, in_axes=(None, 0), jit="numba")(W, XS)
    text = str(caught.value)
    assert "test_numba27.py:" in text.splitlines()[0] and "srcdiff gradient object" in text, text
    assert "module level" not in text, text
    mapped = srcdiff.vmap(calls_a_gradient, in_axes=(None, 0))  # without jit: one example at a time
    np.testing.assert_allclose(mapped(W, XS), [calls_a_gradient(W, x) for x in XS], rtol=1e-12)
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.vmap(path_kinds, in_axes=(None, 0), jit="numba")(W, XS)
    text = str(caught.value)
    assert "`out` is an array (float64, 1 axis) on one path and a number on another" in text, text
    assert "gradient" not in text and "Cannot unify" not in text, text
