"""Wave 30's reach: constructs earlier red teams found refused or mishandled by grad or a
composition (reach30_programs.py: 54 programs, with variants of each), through grad,
value_and_grad, jvp, vjp, jacobian, a tree of the argument, float32, hessian, hvp and jit="numba",
against float64 central differences; and the compositions below.

Census of the 54 programs (ok / n/a / refused at the user's line / WRONG), before:
grad, value_and_grad, vjp, tree, jacobian 16/0/37/1 each; jvp 17/0/37/0; hessian 13/38/3/0 (n/a where
the gradient was refused); hvp 11/9/34/0; float32 16/3/34/0 and 1 crash; numba 15/0/39/0.
After: grad, value_and_grad, jvp, vjp, tree, jacobian 51/0/3/0 each; hessian 48/3/3/0; hvp 39/9/6/0;
float32 49/3/2/0; numba 44/0/10/0.  Every refusal names the user's line.
Compositions (tests below), before: all refused at the def line; after: jacobian(grad(f), wrt=other)
of a tree gradient, vjp(value_and_grad(f)) and vjp(jacobian(f)) of ``def f(*xs)`` agree with central
differences (float32 kept); vjp(hessian(f)) stays refused, now saying it needs a third derivative.

Found and fixed:

1. WRONG (a gradient of the wrong shape; float32 crashed): a tree zipped with a shorter list
   (``zip(params, scales)``) -- the gradient of a leaf the loop never reached was the list adjoint's
   0.0, a number, for an array parameter; any parameter put into a list whose item is never read too.
   A parameter's gradient read from an item of a list's adjoint is now ``zeros_like(p) + item``
   (ad/adjoints.py, ad/reverse.py).
2. ``for i, v in reversed(list(enumerate(xs)))`` and ``reversed(list(zip(xs, ys)))`` (loops,
   comprehensions, enumerate of a zip): the loop runs from the last item, the index counting down
   (lower/loops.py); ``list(enumerate(xs))`` kept as a value says to loop over it where it is made.
3. ``np.diag(v, k)`` of a vector is a new matrix a program may write into (``M[0, -1] = ...``, in a
   loop, by slices) (lower/emit.py); np.diag of a matrix stays a view.
4. ``dict(zip(NAMES, values))`` with NAMES a module-level tuple of strings: read when the gradient is
   built, a dependency (rebinding NAMES builds it again, for the rewritten function of trees too:
   frontend/dict_merges.py, frontend/flatten.py); ``grad(f).source`` before the first call of an f that
   builds a dict of computed values shows the rewritten function's gradient (api/trees.py).
5. ``while len(history) < n: history.append(f(history[-1]))`` (also ``<=``, turned round): a for loop
   over ``range(len(history), n)`` when each iteration appends one item and changes neither the list
   otherwise nor n (frontend/length_loops.py); ``len(xs)`` read in a test or a value is its length then,
   and no longer stops later appends (lower/emit.py, lower/opaque.py) -- the wave 15 program
   helper_appending_to_a_list_read_before now differentiates.
6. ``np.pad`` with a width computed when the function runs (``(0, 8 - x.shape[0])``, ``len(x) - 2``,
   per axis, in a loop; constant and copying modes): the width is an operand with no gradient, the
   adjoint picks x's elements by a pad of ones (rules/numpy_pad.py PAD_WHEN_RUN, lower/rule_calls.py).
7. Functions kept in a list: loops and comprehensions over ``reversed(fs)``, ``fs[1:]``, ``fs[::-2]``,
   enumerate of those, ``zip(fs, a, ...)`` (copy k runs for ``a[k:k + 1]``: zip stops at the shorter),
   and a list bound again at the top level, are unrolled (frontend/function_lists.py,
   function_list_zips.py); wave 29c's funcs_rebound, funcs_reversed, funcs_slice, funcs_zip_params now
   differentiate.
8. A display of rows of values (``pairs = ((np.ones(3), b), (x ** 2, c))``): each value bound to a name
   of its own, then unrolled as function lists are (was "an item of a list of lists").
9. Compositions: ``jacobian(grad(f), wrt=B)`` of a tree gradient with respect to other parameters is
   the Hessian's mixed block (api/mixed_blocks.py); ``vjp(value_and_grad(f))`` pulls (c, u) back as
   ``c * grad f + H u`` (api/vjps.py); ``vjp(jacobian(f))`` of ``def f(*xs)`` uses the Jacobian made for
   the call.

Already agreeing before (kept as rows): dict comprehensions over ``params.items()``,
``functools.partial`` built in the body and called (also in a loop), loops over a module-level tuple
of tuples of constant arrays.

Refused at the user's line (left open): second order (hessian, hvp) of a slice of a list a helper
returns (the derivable gradient slices a list it then knows is one, and a slice of a list has no
second-order adjoint yet); functions appended to a list in a loop; ``list(enumerate(x))`` bound to a
name and iterated later; vjp(hessian(f)) (a third derivative); numba alone: np.pad with a width
computed when the function runs, a stack of a list's slice, one while loop of a default argument
(numba's own compiler error).  Appending to a list after its items were read outside a loop
(while_len_length_read_after) agrees with central differences in every transformation, numba too,
since the append became the new list ``xs + [v]`` (frontend/read_appends.py): a row of the matrix.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import closure_cells, corpus, matrix
from . import reach30_programs as programs_module

ALL = (*matrix.EVERY, *closure_cells.EXTRA)
PROGRAMS = corpus.from_table(programs_module.PROGRAMS, "r30", "reach30_programs", 30)


def _name(p):
    return p.name.partition(":")[2]


#: the default run's rows (one of each fixed kind)
KEPT = {"zip_tree_shorter", "reversed_enumerate_zip", "diag_written_in_loop", "while_len_history",
        "pad_widths_per_axis", "funcs_zip_shorter_weights", "funcs_rebound_in_between",
        "rows_of_parameters"}

#: refused at the user's line by every transformation (numba too)
REFUSED = {"reversed_enumerate_items", "funcs_appended_loop"}

#: second order (hessian, hvp) refused at the user's line; first order agrees
SECOND_ORDER_REFUSED = {"slice_tail", "slice_head_stacked", "slice_stepped"}

#: refused by numba alone, at the user's line
NUMBA_REFUSED = {"slice_head_stacked", "while_len_turned_round"}  # (np.pad of computed widths: wave31j)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in PROGRAMS
                                     if _name(p) not in REFUSED], ids=_name)
def test_every_transformation(program):
    second = _name(program) in SECOND_ORDER_REFUSED
    transforms = tuple(t for t in ALL if not (second and t in ("hessian", "hvp")))
    matrix.assert_ok_or_na(program, transforms)
    if second:
        matrix.assert_refused_at_the_line(program, ("hessian", "hvp"))


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", [p for p in PROGRAMS if _name(p) not in REFUSED], ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in
                                     enumerate(p for p in PROGRAMS if _name(p) in REFUSED)], ids=_name)
def test_refused_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "jvp", "vjp", "jacobian", "hvp", "numba"))


# ---- zip of a tree with a shorter sequence; an item of a list no adjoint reached ----


def _item_unread(a, b):
    xs = [a, b]
    return np.sum(xs[0] * 2.0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gradient_of_an_unread_list_item_is_shaped_like_it(dtype):
    """A parameter put into a list whose item is never read: its gradient is zeros of its shape and
    dtype (was the list adjoint's 0.0, a number)."""
    a, b = np.ones(3, dtype), np.ones((2, 2), dtype)
    got = srcdiff.grad(_item_unread, wrt=1)(a, b)
    assert isinstance(got, np.ndarray) and got.shape == (2, 2) and got.dtype == dtype and not got.any()
    both = srcdiff.grad(_item_unread, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(both[0], 2.0)
    assert both[1].shape == (2, 2)


# ---- dict(zip(NAMES, values)) of a module-level tuple of names; .source before the first call ----


def test_dict_of_module_level_names_follows_the_names(monkeypatch):
    """``dict(zip(NAMES, x))`` reads NAMES when the gradient is built: rebinding NAMES builds it
    again (the keys swapped, the gradient follows)."""
    x = np.array([0.3, -0.8, 1.1])
    g = srcdiff.grad(programs_module.dict_zip_names_array)
    np.testing.assert_allclose(g(x), [np.exp(1.1), -1.0, 0.3 * np.exp(1.1)])
    monkeypatch.setattr(programs_module, "NAMES", ("stiff", "mass", "damp"))
    np.testing.assert_allclose(g(x), [-1.0, np.exp(1.1), -0.8 * np.exp(1.1)])


@pytest.mark.parametrize("func", [programs_module.computed_dict, programs_module.dict_zip_names_array])
def test_source_before_the_first_call_of_a_dict_built_inside(func):
    """``grad(f).source`` before any call, f building a dict of computed values (was refused: 'a dict
    holding values computed in the function is supported only as a local tree'); the same gradient
    once called."""
    for transform in (srcdiff.grad, srcdiff.value_and_grad):
        g = transform(func)
        assert "def " in g.source
        x = np.array([0.3, -0.8, 1.1])
        got = g(x)[1] if transform is srcdiff.value_and_grad else g(x)
        np.testing.assert_allclose(got, srcdiff.grad(func)(x))
        assert "def " in g.source


def test_length_read_before_an_append_every_transformation():
    """A helper appending to a list and returning its length, called twice (the red team's wave 15
    program, refused then): the length read is the length at that time, in every transformation."""
    from . import test_reach15
    program = corpus.Program("reach15:helper_appending_to_a_list_read_before",
                             test_reach15.helper_appending_to_a_list_read_before, (test_reach15.X8,), 0,
                             "test_reach15")
    matrix.assert_ok_or_na(program, ALL)


# ---- jacobian(grad(f), wrt=other) of a tree gradient: the Hessian's mixed block ----


def _mixed(p, x, s):
    return np.sum(np.sin(p["a"] * x) * p["b"] ** 2) + np.sum(p["a"] * x ** 3) * s + s ** 2 * np.sum(p["b"])


def _mixed_list(q, x):
    return np.sum(np.tanh(q[0] * x) * q[1]) + np.sum(q[1] ** 2 * x)


def _leaf_rows(func, args, wrt_tree, wrt_other, leaf):
    """d grad(func)[leaf] / d args[wrt_other] by central differences of srcdiff's first-order gradient."""
    g = srcdiff.grad(func, wrt=wrt_tree)

    def component(v, i):
        moved = list(args)
        moved[wrt_other] = v
        return np.ravel(g(*moved)[leaf])[i]

    size = np.size(g(*args)[leaf])
    rows = [central_difference(lambda v, i=i: component(v, i), (args[wrt_other],), 0) for i in range(size)]
    return np.reshape(rows, np.shape(g(*args)[leaf]) + np.shape(args[wrt_other]))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_jacobian_of_a_tree_gradient_with_respect_to_another_parameter(dtype):
    """``jacobian(grad(f), wrt=1)`` (was refused: 'its gradient with respect to p is a tree'), by name,
    a tuple of parameters, and of a list tree, against differences of the gradient; float32 stays float32."""
    p = {"a": np.array([0.3, -0.5], dtype), "b": np.array([1.2, 0.7], dtype)}
    x, s = np.array([0.4, 1.1], dtype), dtype(0.8)
    f64 = ({k: v.astype(float) for k, v in p.items()}, x.astype(float), 0.8)
    tol = dict(rtol=1e-4, atol=1e-6) if dtype is np.float64 else dict(rtol=2e-3, atol=2e-3)
    for wrt in (1, "x"):
        got = srcdiff.jacobian(srcdiff.grad(_mixed), wrt=wrt)(p, x, s)
        for leaf in ("a", "b"):
            assert got[leaf].dtype == dtype
            np.testing.assert_allclose(got[leaf], _leaf_rows(_mixed, f64, 0, 1, leaf), **tol)
    both = srcdiff.jacobian(srcdiff.grad(_mixed), wrt=(1, 2))(p, x, s)
    for leaf in ("a", "b"):
        np.testing.assert_allclose(both[leaf][0], _leaf_rows(_mixed, f64, 0, 1, leaf), **tol)
        np.testing.assert_allclose(both[leaf][1], _leaf_rows(_mixed, f64, 0, 2, leaf), **tol)
    q = [np.array([0.2, -0.4], dtype), np.array([0.9, 1.3], dtype)]
    got = srcdiff.jacobian(srcdiff.grad(_mixed_list), wrt=1)(q, x)
    q64 = [v.astype(float) for v in q]
    for leaf in (0, 1):
        np.testing.assert_allclose(got[leaf], _leaf_rows(_mixed_list, (q64, x.astype(float)), 0, 1, leaf), **tol)


# ---- vjp(value_and_grad(f)) ----


def _scalar_tree(p, x):
    return np.sum(np.sin(p["a"] * x) * p["b"] ** 2) + np.sum(x ** 2 * p["a"])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_vjp_of_value_and_grad(dtype):
    """The pullback of (c, u) through value_and_grad(f) (was refused: 'only a plain gradient can be
    differentiated again') is the gradient of c * f + <u, grad f>: of an array, a dict, and into the
    other argument, against central differences."""
    from . import leaves
    tol = dict(rtol=1e-5, atol=1e-7) if dtype is np.float64 else dict(rtol=2e-3, atol=2e-3)
    p = {"a": np.array([0.3, -0.5], dtype), "b": np.array([1.2, 0.7], dtype)}
    x, c = np.array([0.4, 1.1], dtype), 0.7
    u = {"a": np.array([1.0, 2.0], dtype), "b": np.array([-0.5, 0.3], dtype)}
    p64, x64 = {k: v.astype(float) for k, v in p.items()}, x.astype(float)
    (value, gradient), pullback = srcdiff.vjp(srcdiff.value_and_grad(_scalar_tree), p, x)
    np.testing.assert_allclose(value, _scalar_tree(p64, x64), rtol=1e-5)

    def contracted(q, y):
        g = srcdiff.grad(_scalar_tree)(q, y)
        return c * _scalar_tree(q, y) + sum(np.sum(u[k] * g[k]) for k in g)

    got = pullback((c, u))
    assert all(v.dtype == dtype for v in got.values())
    want = leaves.with_vector(p64, central_difference(lambda v: contracted(leaves.with_vector(p64, v), x64),
                                                      (leaves.vector(p64),), 0))
    for k in p:
        np.testing.assert_allclose(got[k], want[k], **tol)
    _, into_x = srcdiff.vjp(srcdiff.value_and_grad(_scalar_tree), p, x, wrt=1)
    np.testing.assert_allclose(into_x((c, u)), central_difference(lambda y: contracted(p64, y), (x64,), 0), **tol)


# ---- vjp of a Jacobian of a function of *args ----


def _varargs(*xs):
    return np.sin(xs[0]) * xs[1] ** 2 + xs[0] ** 2 * np.cos(xs[1])


@pytest.mark.parametrize("wrt", [0, 1])
def test_vjp_of_the_jacobian_of_a_varargs_function(wrt):
    """``vjp(jacobian(f), x, y)`` of ``def f(*xs)`` (was refused: 'cannot transform jacobian(f)'): U
    contracted with the derivative of the Jacobian, against central differences of it."""
    args = [np.array([0.3, -0.4, 0.9]), np.array([1.1, 0.5, -0.7])]
    u = np.random.default_rng(30).standard_normal((3, 3))
    _, pullback = srcdiff.vjp(srcdiff.jacobian(_varargs, wrt=wrt), *args, wrt=wrt)

    def contracted(z):
        moved = list(args)
        moved[wrt] = z
        rows = [central_difference(lambda w, k=k: _varargs(*(moved[:wrt] + [w] + moved[wrt + 1:]))[k], (z,), 0,
                                   eps=1e-5) for k in range(3)]
        return np.sum(np.stack(rows) * u)

    np.testing.assert_allclose(pullback(u), central_difference(contracted, (args[wrt],), 0), rtol=1e-4, atol=1e-5)


def _cubic(x):
    return np.sum(np.sin(x) ** 2 * x[0])


def test_vjp_of_a_hessian_is_refused_at_the_def_line_as_a_third_derivative():
    """vjp(hessian(f)) needs f's third derivatives: refused at f's def line, saying so."""
    with pytest.raises(srcdiff.SrcDiffError, match="third derivative") as refused:
        srcdiff.vjp(srcdiff.hessian(_cubic), np.array([0.3, -0.4, 0.9]))
    assert refused.value.location is not None and "test_reach30.py" in str(refused.value).splitlines()[0]
