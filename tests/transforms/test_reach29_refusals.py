"""Reach 29: constructs grad refused (wave 28's red team), made to work as classes with variants
(reach29_programs.py), each through grad, value_and_grad, jvp, vjp, jacobian, a tree of the
argument, float32, hessian, hvp and jit="numba", against float64 central differences (matrix.py).

Census of the 23 programs (ok / n/a / refused at the user's line / WRONG / bad error): before, grad
2/0/21/0/0, and so every transformation (each refusal is grad's, at the line); after, grad,
value_and_grad, jvp, vjp, a tree, jacobian, float32, hessian and srcdiff.check 23/0/0/0/0, hvp 21/2/0/0/0
(n/a: of a second argument), numba 19/0/4/0/0 (refused at the line: ``np.unique`` of a list, ``sorted``
of a gradient's values, numba's compiler failing on a list of arrays shifted each step, twice).

Fixed:

1. REFUSED (every transformation): a loop or comprehension over ``sorted(set(groups))`` ("looping
   over sorted(set(groups)) is not supported"), the labels of groups given as an int array or a list,
   then ``x[groups == g]``, ``zip(y, groups) if gi == g``, ``b[g]``.  It is now
   ``[u.item() for u in np.unique(groups)]`` (frontend/iteration_forms.py `_sorted_labels`): the same
   labels in the same order, Python's numbers as ``sorted`` gives them (so ``groups == g`` of a list
   stays Python's False, as the function computes it, not NumPy's elementwise test).  Of
   differentiated values (``sorted(set(x))``) it is ``np.unique``'s rule.  numba refuses ``np.unique``
   of a list at the line.

2. REFUSED (every transformation): functions kept in a list, tuple or dict the function builds and
   called in a loop or by key (``acts = [np.tanh, relu]; for a in acts: h = a(h)``: "np.tanh is not a
   number"; ``fs = {"a": f, "b": g}; fs["a"](x)``).  Such a display of functions known when the gradient
   is built (a module's or NumPy's, a nested def, a lambda) is now written out
   (frontend/function_lists.py): a ``for`` over it (``enumerate``, ``range(len(...))`` with ``fs[k]``, a
   dict's keys, values, items) unrolled, one copy of the body per function; a comprehension or generator
   over it the list of its elements; an item by a constant index or key that function; a lambda a nested
   def.  A list the function passes on or changes is left as written (refused at its line, as before),
   and so are functions appended in a loop (wave 28a's closure_over_loop, still refused at the line).

3. REFUSED (every transformation): a list joined with ``+`` where a part is a slice of a list (``buf =
   buf[1:] + [echoed]``, a delay line; ``hist = [h] + hist[:2]``; ``win[-2:] + [y]``; a list of arrays
   shifted each step and stacked): "operator.add does not take a list".  A slice of a list with integer
   ends written out (or left out) and no step is now a part of the join (frontend/list_joins.py), read
   item by item, ``for k in range(start, stop): joined.append(buf[k])`` with Python's clipped bounds
   (frontend/list_slices.py): never a slice of a list, whose adjoint a list cannot take back.  Found on
   the way, before that: the join's slice left as a loop over it (``for item in buf[1:]``) on a list the
   loop carries from ``[0.0] * delay`` gave a silently wrong gradient (the adjoint ``buf_bar[1:] +=
   t_bar`` of a Python list concatenates); a slice with a computed end or a step (``buf[s:]``,
   ``buf[::2]``) is therefore not taken for a list and stays refused at its line.

Open (each still refused at the user's line, in every transformation):

- ``np.pad`` with a width computed from a shape (``k // 2`` of ``W.shape[2]``, wave 28b's conv1d): a
  gradient is specialised per number of axes and which axes have length 1, not per length, so the
  width is not known when the code is built; keying on the shapes a static argument reads would also
  have to tell vmap's batched shapes from an example's.  Pass the width as an argument of its own
  (srcdiff specialises on a parameter used as a static argument).
- ``zip`` of a parameter tree with a shorter sequence in a comprehension, and a tree item of a loop
  read after such a zip (test_zip28.py): the tree's length is static, the other sequence's is not (a
  list or array argument that is not differentiated is a run-time value, not part of the key), so
  the unrolled length is not settled when the code is built.
- ``np.fft.ifft`` of complex values (no rule for complex FFTs: "no adjoint rule for numpy.fft.fft"),
  and functions appended to a list in a loop (``fs.append(term)`` of a nested def: "can only be
  called").
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix
from . import reach29_programs as r

FIRST = ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian", "float32")
SECOND = ("hessian", "hvp")

#: the rows the default run keeps (one or two of each class; `-m slow` runs them all)
KEPT = {"group_sums_squared_list", "mlp_activations_indexed", "delay_line_echo"}


def _name(p):
    return p.name.partition(":")[2]


def programs(rows=r.PROGRAMS):
    return corpus.from_table(rows, "r29", "reach29_programs", 29)


def _rows():
    return [corpus.slow_unless(_name(p) in KEPT, p) for p in programs()]


@pytest.mark.parametrize("program", _rows(), ids=_name)
def test_first_order(program):
    matrix.assert_ok_or_na(program, FIRST)


@pytest.mark.parametrize("program", _rows(), ids=_name)
def test_second_order(program):
    for name in SECOND:  # (one at a time: a row of several would sample the Hessian)
        matrix.assert_ok_or_na(program, (name,))


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


def passed_on(x):
    acts = [np.tanh, np.sin]
    return np.sum(_apply_all(acts, x))


def _apply_all(fs, x):
    return fs[0](x) + fs[1](x)


def changed(x):
    acts = [np.tanh, np.sin]
    acts.append(np.cos)
    h = x
    for a in acts:
        h = a(h)
    return np.sum(h)


def joined(x):
    acts = [np.tanh, np.sin]
    acts = acts + [np.cos]
    return sum(np.sum(a(x)) for a in acts)


def zipped_with_weights(x, ws=(1.0, 2.0)):
    acts = [np.tanh, np.sin]
    return sum(w * np.sum(a(x)) for a, w in zip(acts, ws))


def reversed_list(x):
    acts = [np.tanh, np.sin]
    return sum(np.sum(a(x)) for a in reversed(acts))


@pytest.mark.parametrize("f", [zipped_with_weights, reversed_list], ids=lambda f: f.__name__)
def test_a_function_list_zipped_or_reversed_is_unrolled(f):
    """Refused here until wave 30 (test_reach30.py): a loop over zip(acts, ws) or reversed(acts) is unrolled."""
    from numeric import central_difference
    x = np.array([0.3, -0.2])
    np.testing.assert_allclose(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [passed_on, changed, joined], ids=lambda f: f.__name__)
def test_a_function_list_passed_on_or_changed_is_refused_at_its_line(f):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(f)(np.array([0.3, -0.2]))
    assert "test_reach29_refusals.py:" in str(info.value)
    assert "is not a number" not in str(info.value)  # (it said so of np.tanh, kept in the list)


def computed_start(x, s=1):
    buf = [0.0] * 2
    out = 0.0
    for n in range(len(x)):
        echoed = x[n] + 0.4 * buf[0]
        buf = buf[s:] + [echoed]
        out += echoed ** 2
    return out


def stepped_slice(x):
    buf = [0.0] * 4
    for n in range(len(x)):
        buf = buf[::2] + [x[n], x[n] * 0.5]
    return sum(b * b for b in buf)


@pytest.mark.parametrize("f", [computed_start, stepped_slice], ids=lambda f: f.__name__)
def test_a_join_of_another_slice_of_a_list_is_refused_at_its_line(f):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(f)(np.array([0.3, -0.2, 0.5]))
    assert "test_reach29_refusals.py:" in str(info.value)
