"""Reach 28: four classes of programs srcdiff refused (or got wrong), each through grad,
value_and_grad, jvp, vjp, jacobian, a tree of arguments, float32, hessian, hvp and jit="numba",
against float64 central differences (matrix.py); the programs are in reach28_programs.py.

Found and fixed:

1. REFUSED (every transformation): ``x = x0`` then ``x += ...`` (``-=``, ``*=``, a view ``s = X[0]``
   too) of an argument's array: "x0 shares its memory with x, and NumPy would change x0 too",
   although nothing read x0 again.  An argument's array was always counted as read later (the caller
   reads it); as for the function's own ``x0 += v``, which srcdiff accepts, the update is now the new
   value ``x + v`` when no name here reads the array again (lower/assignments.py), and a helper's
   such update is refused unless its caller reads the array nowhere else: ``updates_in_place`` follows
   plain aliases of a parameter (ad/in_place_args.py).  Still refused at the line: x0 read after.
2. WRONG, silently (jacobian; every other transformation right): a function updating its argument's
   array in place (``x0 += 0.5 * np.sin(x0)``, and the aliases of 1): srcdiff.jacobian ran the
   function on the user's array to learn its value's shape, the array was changed, and the rows were
   computed at the changed point.  Fixed in api/flatcall.py (`unchanged`): that run gets copies.
3. REFUSED (every transformation): a helper returning a dict, read at once (``module_layer(p, x)["h"]``:
   "the differentiated function returns a tree", at the helper's line), and a gradient object of a
   function of a dict read at once (``dtree(p)["w"]``: "assign it first").  A call subscripted (or
   its attribute read) is now read as an assignment of it is, its fields assigned before the statement
   (frontend/returned_objects.py `returned_entry`).
4. REFUSED (every transformation): a gradient object of a function of a namedtuple or dataclass,
   called inside a differentiated function ("nloss's gradient is a NT, which srcdiff does not
   build"): the helper standing for it now builds the namedtuple or dataclass by its class
   (frontend/gradient_trees.py).

5. REFUSED (every transformation): ``zip`` of a parameter tree with an array or list (``for a, (b, c)
   in zip(xs, theta)`` differentiated in theta: "theta is a parameter tree, passed whole to zip").  The
   loop is unrolled over the tree, the other sequence's items read from ``list(xs)`` made before it
   (frontend/flatten_items.py); a name the function writes stays refused (Python reads its items
   later).  A nested ``zip(xs, zip(ys, zs))`` ("no adjoint rule for builtins.zip") is one loop over
   every sequence side by side (lower/loops.py).
6. REFUSED (every transformation, a consequence of 1): a float argument aliased and updated in place
   beside a tuple argument's items (``k, c = params; x, v = x0, 0.0; ... x += 0.04 * v``: a tuple's
   items have no shape per signature, so x "may be an array"): accepted, as no one reads x0 again
   (test_redteam_wave27a's damped_spring_while_x0).
7. WRONG, silently (every transformation): a nested function given a tree, called in a list
   comprehension srcdiff unrolls (``sum([layer(p, x * k)["h"].sum() for k in range(3)])``): the call
   was written out once, for the first item, and read for every item (the memo of written-out calls
   was keyed by the node alone; now by the node and its names' bindings: tree_entries.call_key); and
   called in a generator or comprehension it does not unroll, with the generator's name
   (``sum(layer(p, x * t) for t in ts)``), it was written out before the statement, where the name
   is another variable (an outer ``t``), or refused as "used before it is assigned".  It is no longer
   written out there (local_defs.py, `reads_scope_names`): refused at the line instead.

Checked and right before: augmented assignment on a copy of a float argument, ``x0.copy()``,
``1.0 * x0``; ``a, (b, c) = theta`` of a tuple argument, of constants and values mixed, and in a loop
over ``zip`` of pairs or rows; a nested helper returning a dict; namedtuple and dataclass arguments.

Open: an alias updated in place and read again (``x = x0; x += v; ... x0``) is refused at the update
(NumPy changed x0 too); so is a helper's such update of an array its caller reads again (the
caller's line).  A namedtuple argument is checked by its own test here (the matrix's helpers perturb
no namedtuple).
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from . import reach28_programs as r

FIRST = ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian", "float32")
SECOND = ("hessian", "hvp")
#: the rows the default run keeps (one or two of each class; `-m slow` runs them all)
KEPT = {"aug_float", "aug_alias", "aug_own_argument", "aug_alias_helper_caller", "unpack_theta", "zip_pairs",
        "module_layer_read_at_once", "gradient_read_at_once", "namedtuple_gradient_at_once",
        "dataclass_gradient"}


def _name(p):
    return p.name.partition(":")[2]


def programs(rows=r.PROGRAMS):
    return corpus.from_table(rows, "r28", "reach28_programs", 28)


def _rows(rows=r.PROGRAMS):
    return [pytest.param(p, marks=() if _name(p) in KEPT else pytest.mark.slow) for p in programs(rows)]


def _assert_right(program, transforms):
    """Every cell agrees with central differences (n/a: a cell that does not apply, such as float32
    of a float64 program or hvp of a second argument)."""
    matrix.assert_ok_or_na(program, transforms)


@pytest.mark.parametrize("program", _rows(), ids=_name)
def test_first_order(program):
    _assert_right(program, FIRST)


@pytest.mark.parametrize("program", _rows(), ids=_name)
def test_second_order(program):
    for name in SECOND:  # (one at a time: a row of several would sample the Hessian)
        _assert_right(program, (name,))


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


@pytest.mark.parametrize("program", [p for p in programs() if _name(p) in ("aug_alias", "gradient_read_at_once")],
                         ids=_name)
def test_numba(program):
    _assert_right(program, ("numba",))


@pytest.mark.parametrize("program", programs(r.REFUSED), ids=_name)
def test_still_refused_at_the_line_by_every_transformation(program):
    matrix.assert_refused_at_the_line(program, ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian"))


def test_helper_updating_an_array_its_caller_reads_again_is_refused():
    x = np.array([0.3, -0.2, 0.5])
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(_reads_again)(x)
    first = str(info.value).splitlines()[0]
    assert "test_reach28.py:" in first and "z shares its memory" in first, first


def _reads_again(y):
    z = y * 1.0
    return r.aug_alias_helper(z) + np.sum(z)


def test_jacobian_leaves_the_argument_as_given():
    """The jacobian's run of a function updating its argument in place is on a copy: the rows are
    at the point given, and the caller's array is not changed by the transformation."""
    x = np.array([0.3, -1.2, 0.7])
    kept = x.copy()
    got = srcdiff.jacobian(r.aug_own_argument)(x, 2)
    np.testing.assert_array_equal(x, kept)
    want = srcdiff.grad(r.aug_own_argument)(kept.copy(), 2)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("func", [r.object_loss, r.namedtuple_gradient, r.namedtuple_gradient_at_once],
                         ids=lambda f: f.__name__)
def test_namedtuple_argument(func):
    """A namedtuple argument (the matrix perturbs no namedtuple: its fields here, one at a time)."""
    w, b = np.array([0.3, -1.2, 0.7]), 0.7
    got = srcdiff.grad(func)(r.Pair(w, b))
    assert type(got) is r.Pair
    np.testing.assert_allclose(got.w, central_difference(lambda v: func(r.Pair(v, b)), (w,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got.b, central_difference(lambda c: func(r.Pair(w, c)), (b,), 0), rtol=1e-6, atol=1e-8)
    value, pullback = srcdiff.vjp(func, r.Pair(w, b))
    np.testing.assert_allclose(pullback(2.0).w, 2.0 * got.w, rtol=1e-12)
    _, tangent = srcdiff.jvp(func, (r.Pair(w, b),), (r.Pair(np.ones(3), 0.5),))
    np.testing.assert_allclose(tangent, np.sum(got.w) + 0.5 * got.b, rtol=1e-9)
    hessian = srcdiff.hessian(func)(r.Pair(w, b))
    g = srcdiff.grad(func)  # (its first order checked above)
    want = np.stack([central_difference(lambda v, k=k: g(r.Pair(v, b)).w[k], (w,), 0) for k in range(3)])
    np.testing.assert_allclose(hessian.w.w, want, rtol=1e-5, atol=1e-6)


def test_gradient_of_a_dataclass_is_that_dataclass():
    p = r.Params(np.array([0.3, -1.2, 0.7]), 0.7)
    assert type(srcdiff.grad(r.dataclass_gradient)(p)) is r.Params
    assert type(r.dobject(p)) is r.Params
