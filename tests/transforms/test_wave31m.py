"""Wave 31m: never a silent wrong gradient across the compile cache (wave31m_programs.py).

CENSUS_PLACEHOLDER
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix
from . import wave31m_programs as w
from .test_redteam_wave27a import cell_vmap_grad  # noqa: F401  (registers the vmap_grad cell)

assert closure_cells.EXTRA  # (importing it registers the jacobian, hvp and float32 cells)
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
        "list_names_sort"}
#: the transformations the default run takes each kept row through
QUICK = ("grad", "vjp", "numba")


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
    """The same, for one row of each kind of list through grad, vjp and jit="numba" (the default run)."""
    _assert_never_the_old_one(pair, QUICK)


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
