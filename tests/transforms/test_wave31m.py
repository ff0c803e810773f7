"""Wave 31m: never a silent wrong gradient across the compile cache (wave31m_programs.py).

Each row of wave31m_programs.py calls a transformation once (the gradient built and cached), then
changes something the function read when it was built (a module list, tuple, dict or array, a
function, a class attribute, an enum member, a dataclass field, a default argument, a closure
cell; in place or rebound), then calls it again: checked against float64 central differences of
the function as it is now, through grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian,
jit="numba", vmap(grad) and float32.  The new derivative, or a refusal naming the user's line;
never the old one.

Census (59 rows x 10 transformations; cells ok / n/a / refused at the user's line / WRONG / BAD):

    before:  382 ok, 13 n/a, 60 refused, 65 WRONG, 0 BAD
    after:   447 ok, 13 n/a, 60 refused,  0 WRONG, 0 BAD

The 65 WRONG cells (10 rows; the old gradient, or the old value, returned silently): a list the
gradient was built from was tracked by identity only, so changing it in place kept the code built
from its old items:

1. ``for name in NAMES: ... p[name]`` over a module list (unrolled: a tree read with each name), a
   generator or dict comprehension over it, a list of 80 names, a closure's list: ``NAMES.append``,
   ``NAMES[0] = ...``, ``NAMES.sort()`` (hessian and hvp were right: their variants were built again);
2. ``for f in ACTS: f(x)`` over a module list of functions, ``ACTS[0] = np.cos``;
3. ``np.transpose(m, AXES)`` and ``x.reshape(SHAPE)`` with a module list (vmap(grad) for reshape);
4. a dataclass instance's list field (``SETUP.names.append``): each item was a dependency, its
   length was not.

Fixed by the class (srcdiff/frontend/depends.py `state_of` / `list_state`): a list a dependency
holds is compared by its items too (numbers and strings by value and type, tested in C; nested
lists likewise; anything else by identity), in the slow path's test and in the compiled fast
path's guard, only for code that read a list when built.  Per call, measured side by side
(CPU clock, best of 5): benchmarks/problems.py poly 0.20 -> 0.21 us (reads no list: its guard is
unchanged, noise); a loop over a 3-name list 15.8 -> 16.2 us; over 80 names 131 -> 130 us.

Refused at the user's line before and after (not stale, listed so): a loop over a class
attribute's list (``Cfg.names``), a tree read in a loop over a list of lists, a default list, a
tuple holding a list or a dict of lists; jit="numba" of nested module lists, fancy indexing,
reshape and transpose with a list.  Open: a list holding itself (``L.append(L)``) would recurse.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix
from . import wave31m_programs as w

TRANSFORMS = ("grad", "value_and_grad", "hessian", "hvp", "jvp", "vjp", "jacobian", "numba", "vmap_grad", "float32")


def programs():
    return [(p, change) for p, (*_, change) in
            zip(corpus.from_table([r[:4] for r in w.PROGRAMS], "w31m", "wave31m_programs", 31), w.PROGRAMS)]


def _name(p):
    return p.name.partition(":")[2]


def changed_cell(p, change, name: str) -> matrix.Cell:
    """`name` of `p` called once (its gradient built and cached), then `change` made, then called
    again: checked against central differences of the function as it is now."""
    first = matrix.run(p, (name,))
    if not first.excluded and first.cells[name].outcome == matrix.REFUSED:
        return first.cells[name]  # (refused before the change: the census counts it so)
    if first.excluded or first.cells[name].outcome != matrix.OK:
        why = f"before the change: {first.excluded or first.cells[name].message}"
        return matrix.Cell(matrix.NA, why, why)
    undo = change()
    try:
        row = matrix.run(p, (name,))
    finally:
        undo()
    return matrix.Cell(matrix.NA, row.excluded, row.excluded) if row.excluded else row.cells[name]


def census(pairs=None, transforms=TRANSFORMS) -> dict:
    """(program, transformation) -> outcome after the change ('refused' only where located)."""
    out = {}
    for p, change in pairs or programs():
        for name in transforms:
            cell = changed_cell(p, change, name)
            outcome = cell.outcome if cell.outcome != matrix.REFUSED or cell.located else "BAD"
            out[_name(p), name] = (outcome, cell.message[:200])
    return out


#: the rows the default run keeps (`-m slow` runs them all)
KEPT = {"tree_names_append", "tree_names_dict", "tree_closure_names", "dataclass_list_append", "list_functions_setitem",
        "list_names_sort", "list_transpose"}
#: the transformations the default run takes each kept row through (jit="numba" on one: NUMBA_KEPT)
QUICK = ("grad", "vjp")
NUMBA_KEPT = "tree_names_append"


def _assert_never_the_old_one(pair, transforms) -> None:
    bad = {k: v for k, v in census([pair], transforms).items() if v[0] not in (matrix.OK, matrix.NA, matrix.REFUSED)}
    assert not bad, bad


@pytest.mark.parametrize("pair", [corpus.slow_unless(False, (p, c)) for p, c in programs()],
                         ids=lambda pair: _name(pair[0]))
def test_changed_after_a_first_call_every_transformation(pair):
    """Every transformation, called once, then called again after what it read when built changed:
    the new derivative (against central differences of the function as it is now), or a refusal
    naming the user's line; never the old one."""
    _assert_never_the_old_one(pair, TRANSFORMS)


@pytest.mark.parametrize("pair", [(p, c) for p, c in programs() if _name(p) in KEPT], ids=lambda pair: _name(pair[0]))
def test_changed_after_a_first_call(pair):
    """The same, for one row of each kind of list through grad and vjp (and jit="numba") (the default run)."""
    _assert_never_the_old_one(pair, QUICK + (("numba",) if _name(pair[0]) == NUMBA_KEPT else ()))


def test_a_list_changed_back_gives_the_first_gradient_again():
    """NAMES changed, then put back: each call's gradient is of the list as it is at that call."""
    p, change = next((p, c) for p, c in programs() if _name(p) == "tree_names_setitem")
    g = srcdiff.grad(p.func)
    first = g(*copy.deepcopy(p.args))
    undo = change()
    try:
        second = g(*copy.deepcopy(p.args))
    finally:
        undo()
    again = g(*copy.deepcopy(p.args))
    assert not all(np.allclose(first[k], second[k]) for k in first)
    for k in first:
        np.testing.assert_array_equal(first[k], again[k])


SELF_LIST = [2.0, 3.0]
SELF_LIST.append(SELF_LIST)
SELF_DICT = {"a": 1.5}
SELF_DICT["self"] = SELF_DICT


def _reads_a_self_list(x):
    return SELF_LIST[0] * x ** 2 + SELF_LIST[1] * x


def _reads_a_self_dict(x):
    return SELF_DICT["a"] * x * x


def _default_self_list(x, c=SELF_LIST):
    return c[0] * x * x


@pytest.mark.parametrize("func", [_reads_a_self_list, _reads_a_self_dict], ids=lambda f: f.__name__)
@pytest.mark.parametrize("transform", [srcdiff.grad, srcdiff.hessian, srcdiff.value_and_grad],
                         ids=lambda t: t.__name__)
def test_module_data_that_holds_itself_is_refused_at_the_line(func, transform):
    """A module list or dict that holds itself is refused at the line that reads it (reading it item by
    item never ended: a RecursionError)."""
    line = func.__code__.co_firstlineno + 1
    with pytest.raises(srcdiff.SrcDiffError, match=rf"test_wave31m.py:{line}: .*holds itself"):
        transform(func)(1.5)


def test_a_default_list_that_holds_itself_is_read_and_followed():
    """A default list holding itself is compared item by item without end; changed, the gradient follows."""
    g = srcdiff.grad(_default_self_list)
    assert g(1.5) == pytest.approx(2 * 2.0 * 1.5)
    SELF_LIST[0] = 5.0
    try:
        assert g(1.5) == pytest.approx(2 * 5.0 * 1.5)
    finally:
        SELF_LIST[0] = 2.0
