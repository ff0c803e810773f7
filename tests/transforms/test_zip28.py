"""zip of a parameter tree with a sequence shorter than the tree (zip28_programs.py), through grad,
value_and_grad, jvp, vjp, jacobian, a tree of arguments, float32, hessian, hvp and jit="numba",
against float64 central differences (matrix.py).

Found and fixed: reach 28 unrolled ``for a, (b, c) in zip(xs, theta)`` over the tree's items and read
xs's by index from ``list(xs)``: an xs shorter than the tree failed with an IndexError, where Python's
zip stops at the shorter.  A ``for`` statement's unrolled iterations now each run only if zip reaches
them (``if len(zipped) > k``: frontend/flatten_items.py `zip_guards`); a comprehension's elements are
built together, so there a shorter sequence is refused, at its line, when the function runs.

Found and fixed: a zip's tuple of items taken by one name (``for a, bc in zip(xs, zip(ys, zs))`` then
``b, c = bc`` or ``bc[0]``; ``for ab in zip(xs, ys)``) was refused ("no adjoint rule for builtins.zip",
or "one name per sequence"): each item now has a name of its own, the tuple built from them first in
the body (lower/loops.py `_named_tuples`).

Open: since its iterations are guarded, a tree item of such a loop read after it (``return layer["W"]``
after ``for a, layer in zip(xs, layers)``) is refused at the line (it was accepted, and right while xs
was as long as the tree): which item is last depends on xs's length, known only when the function runs
(the refusal says to keep its arrays in names of their own in the loop: arrays_kept_in_the_loop).

Message fixed: a nested function given a tree, called in a comprehension or generator srcdiff does not
unroll with the name it binds (``sum(layer(p, x * t) for t in ts)``), was refused as "p is a parameter
tree, passed whole to layer"; it now says that the call reads the generator's name and what to write
instead (a for statement), whether or not the name shadows an outer one (passed_sequences.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix
from . import zip28_programs as z
from .test_reach28 import FIRST, SECOND, _assert_right, _name

KEPT = {"pairs_shorter", "dicts_shorter", "layers_rows_shorter_X", "layers_rows_float32", "enumerated_shorter",
        "comprehension_equal",
        "pair_named", "pair_indexed_float32", "whole_named", "generator_named_ys",
        "nested_in_a_for_statement", "module_helper_in_a_generator",
        "kept_in_the_loop"}


def programs(rows=z.SHORTER + z.SAME_LENGTH + z.NAMED + z.GENERATOR_CALLS + z.AFTER_THE_LOOP):
    return corpus.from_table(rows, "z28", "zip28_programs", 28)


def _rows():
    return [pytest.param(p, marks=() if _name(p) in KEPT else pytest.mark.slow) for p in programs()]


@pytest.mark.parametrize("program", _rows(), ids=_name)
def test_first_order(program):
    _assert_right(program, FIRST)


@pytest.mark.slow  # (a Hessian of each row)
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_second_order(program):
    for name in SECOND:
        _assert_right(program, (name,))


@pytest.mark.parametrize("program", [p for p in programs() if _name(p) in ("pairs_shorter", "dicts_shorter")],
                         ids=_name)
def test_hessian_kept(program):
    _assert_right(program, ("hessian",))


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba(program):
    _assert_right(program, ("numba",))


@pytest.mark.parametrize("program", programs(z.REFUSED), ids=_name)
def test_refused_at_its_line(program):
    """A comprehension's zip of a tree with a shorter sequence (when the function runs); a loop's item
    read after a zip loop of a tree (which item zip reached last, the sequence's length decides)."""
    matrix.assert_refused_at_the_line(program, ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian"))
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(program.func, argnums=program.wrt)(*program.args)
    first = str(info.value).splitlines()[0]
    said = "shorter sequence" in first or "the last item zip reaches" in first
    assert "zip28_programs.py:" in first and said, first


def test_a_shorter_sequence_stops_the_loop_as_zip_does():
    """The value itself is Python's (the tree's last item never read)."""
    xs, theta = np.array([0.3, -0.8]), ((0.5, 0.7), (1.1, 0.2), (np.nan, np.nan))
    value, grads = srcdiff.value_and_grad(z.pairs_shorter, argnums=1)(xs, theta)
    assert value == z.pairs_shorter(xs, theta)
    assert grads[2] == (0.0, 0.0)


@pytest.mark.parametrize("program", programs(z.NESTED_IN_GENERATORS), ids=_name)
def test_nested_call_in_a_generator_says_what_is_refused(program):
    matrix.assert_refused_at_the_line(program, ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian"))
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(program.func, argnums=program.wrt)(*program.args)
    text = str(info.value)
    assert "zip28_programs.py:" in text.splitlines()[0] and "passed whole" not in text, text
    assert "layer, a function nested in this one" in text and "for statement" in text, text
