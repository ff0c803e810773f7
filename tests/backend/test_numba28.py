"""jit="numba" where grad differentiated and numba refused (numba28_programs.py): each answer checked
against float64 central differences.

What this wave fixed:

1. ``srcdiff.jacobian(f, jit="numba")`` of a function whose argument is a tree (a dict, a nested dict, a
   tuple or list of arrays, a dict with a float, a string or an integer in it), called with keywords, of
   a method or a partial, was refused ("the batched rows take arrays and floats passed by position")
   with no line: the compiled rows (and forward mode's compiled columns) now take the flattened call,
   as grad, vjp, jvp and hessian with jit already did.
2. A value first assigned inside a loop (``v = None`` before it in the generated code; sinkhorn's ``v``,
   a pairwise loop's ``d`` with ``continue``) was refused ("Cannot unify float64 and array(float64, 1d,
   C) for 'v_bar'"): numba first types ``zeros_like(v)`` with v None, then as an optional array
   (numba/optionals.py: ``zeros_of_preset``), whose None gives zeros of ones' shape (Python's 0.0, only
   ever added); its tangent's ``v_dot = 0.0`` before the loop is an array of ones' shape (joins.py).
   Compiling these showed ``present(t6)`` of an optional *array* gave numba a reference it freed twice:
   a corrupted heap ("malloc(): unaligned tcache chunk detected"), now a reference of its own.
3. A gradient of a tree with a string in it, called inside the function: its ``zeros_like(p_act)`` had no
   numba version, and numba's refusal in a called gradient's code named the generated line
   (``layers_loss_grad:27``): the string's zeros are 0.0, and the line is followed back to the user's.

numba compiles for seconds each cell: the default run keeps the Jacobians (the cells this wave opened),
the slow set runs every transformation of every row.

Open (refused at the user's line): forward mode over the gradient of a value first assigned in a loop
(hessian; jvp and jacobian where the value passes through a branch, ``d`` of pairwise_with_continue),
a value first assigned in an inner loop (``np.shape`` of an optional), a called value_and_grad of a
tree, and a list
of an array and a number carried through a loop (``[x, np.dot(x, x)]``: numba types a list's items
alike; refused at the list's line, and the tuple the refusal suggests compiles).  Wave 29
(test_numba29.py) compiles the list and most of forward mode over a value first assigned in a loop.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from transforms import corpus, leaves, matrix

import srcdiff

from . import numba_every
from .numba28_programs import (
    CALLED_VALUE_AND_GRAD,
    FIRST_IN_A_LOOP,
    MIXED_LISTS,
    SCALAR,
    STRING_LEAVES,
    VECTOR,
    calls_number_or_array,
)

pytest.importorskip("numba")


def _with(args: list, wrt: int, x: np.ndarray) -> list:
    out = list(args)
    out[wrt] = leaves.with_vector(args[wrt], x)
    return out


def _jacobian_difference(f, args, wrt, eps=1e-6) -> np.ndarray:
    """d f / d (the float leaves of args[wrt], in order), an (outputs x inputs) matrix, by central differences."""
    x = leaves.vector(args[wrt])
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = eps
        cols.append((np.ravel(f(*_with(args, wrt, x + e))) - np.ravel(f(*_with(args, wrt, x - e)))) / (2 * eps))
    return np.stack(cols, axis=-1)


def _zero_data(tree):
    """A tangent shaped like `tree`: an integer or string part of it has no derivative (None)."""
    if isinstance(tree, dict):
        return {k: _zero_data(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_zero_data(v) for v in tree)
    return tree if leaves.is_float_leaf(tree) else None


def _matrix(tree, rows: int) -> np.ndarray:
    """A Jacobian given per leaf (``value.shape + leaf.shape``) as an (outputs x inputs) matrix."""
    return np.concatenate([np.reshape(leaf, (rows, -1)) for leaf in leaves.float_leaves(tree)], axis=1)


def cell_jacobian(f, args, wrt, J):
    return _matrix(srcdiff.jacobian(f, wrt, jit="numba")(*args), J.shape[0]), J


def cell_vjp(f, args, wrt, J):
    value, pullback = srcdiff.vjp(f, *args, wrt=wrt, jit="numba")
    cotangent = np.linspace(-1.0, 1.0, J.shape[0]).reshape(np.shape(value)) if np.ndim(value) else 0.7
    return leaves.vector(pullback(cotangent)), np.ravel(cotangent) @ J


def cell_jvp(f, args, wrt, J):
    v = np.linspace(-0.8, 0.6, J.shape[1])
    tangents = tuple(_zero_data(leaves.with_vector(a, v)) if i == wrt else None for i, a in enumerate(args))
    _, got = srcdiff.jvp(f, tuple(args), tangents, jit="numba")
    return np.ravel(got), J @ v


def cell_grad(f, args, wrt, J):
    return leaves.vector(srcdiff.grad(f, wrt, jit="numba")(*args)), J[0]


def cell_value_and_grad(f, args, wrt, J):
    value, got = srcdiff.value_and_grad(f, wrt, jit="numba")(*args)
    assert np.isclose(value, f(*args), rtol=1e-12)
    return leaves.vector(got), J[0]


def cell_hessian(f, args, wrt, J):
    got = leaves.square(srcdiff.hessian(f, wrt, jit="numba")(*args), args[wrt])
    plain = srcdiff.grad(f, wrt)  # (checked against central differences by the grad cell)
    return got, _jacobian_difference(lambda *a: leaves.vector(plain(*a)), args, wrt, 1e-5)


CELLS = {"jacobian": cell_jacobian, "vjp": cell_vjp, "jvp": cell_jvp, "grad": cell_grad,
         "value_and_grad": cell_value_and_grad, "hessian": cell_hessian}
_TABLE = [(row, cell) for row in VECTOR for cell in ("jacobian", "vjp", "jvp")] + [
    (row, cell) for row in SCALAR for cell in CELLS]


@pytest.mark.parametrize(
    "row,cell",
    [pytest.param(row, cell, marks=() if cell == "jacobian" and row in VECTOR else pytest.mark.slow,
                  id=f"{row[0]}-{cell}") for row, cell in _TABLE],
)
def test_trees_in_every_transformation(row, cell):
    _, f, make, wrt = row
    args = list(make(np.random.default_rng(28)))
    got, want = CELLS[cell](f, args, wrt, _jacobian_difference(f, args, wrt))
    assert leaves.agree(got, want, 1e-4, 1e-6), (leaves.max_error(got, want), got, want)


def _scaled(x, *, scale=2.0):
    return np.sin(x) * scale


def _scaled_by_position(x, scale=2.0):
    return np.sin(x) * scale


class _Layer:
    def __init__(self):
        self.w = np.array([1.0, 2.0, 3.0])

    def forward(self, x):
        return np.sin(x * self.w)


@pytest.mark.parametrize("how", ["keyword_only", "keyword", "default", "partial", "method"])
def test_jacobian_of_calls_not_by_position(how):
    """Keywords, a default left out, a partial, a method: each a flattened call, compiled."""
    x = np.array([0.1, 0.5, -0.3])
    layer = _Layer()
    f, kwargs = {
        "keyword_only": (_scaled, {"scale": 3.0}),
        "keyword": (_scaled_by_position, {"scale": 3.0}),
        "default": (_scaled_by_position, {}),
        "partial": (functools.partial(_scaled_by_position, scale=3.0), {}),
        "method": (layer.forward, {}),
    }[how]
    got = srcdiff.jacobian(f, jit="numba")(x, **kwargs)
    want = _jacobian_difference(lambda y: f(y, **kwargs), [x], 0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("row", [pytest.param(r, id=r[0]) for r in STRING_LEAVES])
@pytest.mark.parametrize("cell", ["grad", pytest.param("value_and_grad", marks=pytest.mark.slow)])
def test_a_called_gradient_of_a_tree_with_a_string(row, cell):
    """A gradient object of a tree holding a string, called: its code's ``zeros_like(p_act)`` of the
    string (0.0 in Python) had no numba version, and numba's refusal named the generated line."""
    _, f, make, wrt = row
    args = list(make(np.random.default_rng(28)))
    got, want = CELLS[cell](f, args, wrt, _jacobian_difference(f, args, wrt))
    assert leaves.agree(got, want, 1e-4, 1e-6), (leaves.max_error(got, want), got, want)


def test_numbas_refusal_in_a_called_gradient_names_the_users_line():
    """numba's refusal met in a called gradient's code names the user's line that code comes from,
    not the generated one (``number_or_array_grad:8``)."""
    x = np.array([0.1, 0.4, -0.3])
    srcdiff.grad(calls_number_or_array)(x, 1.0)  # plain grad differentiates it
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(calls_number_or_array, jit="numba")(x, 1.0)
    text = str(caught.value)
    assert "numba28_programs.py:" in text.splitlines()[0] and "`out` is a number on one path" in text, text
    assert "_grad:" not in text, text


def test_a_called_value_and_grad_of_a_tree_is_refused_at_its_line():
    """(open) A value_and_grad of a tree called inside: refused at the call's line, with what to do."""
    _, f, make, _ = CALLED_VALUE_AND_GRAD
    args = make(np.random.default_rng(28))
    srcdiff.grad(f)(*args)
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(f, jit="numba")(*args)
    text = str(caught.value)
    assert "numba28_programs.py:" in text.splitlines()[0] and "vg_layers(p, x)" in text, text


#: cells of FIRST_IN_A_LOOP still refused, at the user's line (open: forward mode over such a gradient)
FIRST_OPEN = {
    "sinkhorn_scaling": {"hessian"},
    "pairwise_with_continue": {"hessian", "jvp", "jacobian"},
    "first_in_a_while": {"hessian"},
    "first_in_an_inner_loop": set(numba_every.CELLS),
    "matrix_first_in_a_loop": {"hessian"},
}
FIRST = corpus.from_table(FIRST_IN_A_LOOP, "n28", "numba28_programs", 28)


@pytest.mark.slow  # (numba compiles for seconds each cell: minutes a row)
@pytest.mark.parametrize("program", FIRST, ids=lambda p: p.name.partition(":")[2])
def test_first_assigned_in_a_loop_every_transformation(program):
    row = numba_every.run(program)
    open_cells = FIRST_OPEN.get(program.name.partition(":")[2], set())
    for name, cell in row.items():
        if name in open_cells and cell.outcome == matrix.REFUSED:
            assert cell.located and "numba28_programs.py:" in cell.message, (name, cell.message)
        else:
            assert cell.outcome in (matrix.OK, matrix.NA), (name, cell.outcome, cell.message)


@pytest.mark.parametrize("name", ["sinkhorn_scaling", "pairwise_with_continue"])
def test_first_assigned_in_a_loop_grad(name):
    """The gradient (the cells this wave opened: refused before) against central differences."""
    _, f, make, wrt = next(r for r in FIRST_IN_A_LOOP if r[0] == name)
    args = list(make(np.random.default_rng(28)))
    got, want = cell_grad(f, args, wrt, _jacobian_difference(f, args, wrt))
    assert leaves.agree(got, want, 1e-4, 1e-6), (leaves.max_error(got, want), got, want)


@pytest.mark.parametrize("listed,tupled", [pytest.param(a, b, id=a.__name__) for a, b in MIXED_LISTS])
@pytest.mark.parametrize("cell", ["grad", pytest.param("jvp", marks=pytest.mark.slow),
                                  pytest.param("vjp", marks=pytest.mark.slow)])
def test_a_list_of_an_array_and_a_number_carried_compiles_as_its_tuple_does(listed, tupled, cell):
    """``[x, np.dot(x, x)]`` rebound in a loop (refused at the list's line until wave 29: now spelled as a
    tuple where it is only read, backend/numba/list_tuples.py) and the tuple: both agree with central
    differences."""
    x = np.array([0.3, -0.2, 0.5])
    J = _jacobian_difference(listed, [x], 0)
    for f in (listed, tupled):
        got, want = CELLS[cell](f, [x], 0, J)
        assert leaves.agree(got, want, 1e-4, 1e-6), (f.__name__, leaves.max_error(got, want), got, want)
