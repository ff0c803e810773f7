"""The fuzz's random programs (tests/fuzzgen.py) through every transformation, not grad alone.

A drawn program that grad accepts at a smooth point becomes a `corpus.Program` (one
differentiated argument, drawn from the family's) and goes through the matrix's standard cells
(`CLOSURE`), each cell classified by `outcome`:

* ``ok`` / ``n/a`` (hvp of another argument than the first, float32 of a program without an
  array argument, second differences unstable at the point);
* ``closure`` -- refused with a SrcDiffError naming the user's line, although grad accepts the
  program: allowed by the promise, but a gap in the closure (counted by reason);
* ``bad error`` -- refused without naming the user's line, or reporting srcdiff's own failure
  (a TypeError in the generated code); ``crash`` -- any other exception;
* ``NaN`` -- a non-finite answer where central differences are finite; ``WRONG`` -- finite and wrong.
"""

from __future__ import annotations

import fuzzgen
from fuzzgen import draw_arrays, draw_matrix, draw_poly, draw_scalar
from hypothesis import assume
from hypothesis import strategies as st
from modules import import_source

from . import matrix
from .corpus import Program

#: the transformations a program grad accepts must go through too (`check`, sympy, is left out:
#: seconds a program); numba runs on a sample of the default run's programs (`NUMBA`)
CLOSURE = ("value_and_grad", "hessian", "hvp", "jvp", "vjp", "jacobian", "jac_grad", "float32", "tree",
           "jvp_tree", "vjp_tree", "numba")
NUMBA = ("numba",)

#: family name -> draw(data) -> (source, args, wrt), the families of tests/ad/test_fuzz.py
FAMILIES = {
    "scalar": lambda d: draw_scalar(d, fuzzgen.SCALAR),
    "scalar_long": lambda d: draw_scalar(d, fuzzgen.SCALAR_NO_HELPER),
    "scalar_zero": lambda d: draw_scalar(d, fuzzgen.SCALAR, zero=True),
    "nested_ternary": lambda d: draw_scalar(d, fuzzgen.NESTED_TERNARY),
    "scalar_guards": lambda d: draw_scalar(d, fuzzgen.SCALAR_GUARDS),
    "arrays": lambda d: draw_arrays(d, fuzzgen.ARRAYS),
    "array_guards": lambda d: draw_arrays(d, fuzzgen.ARRAY_GUARDS),
    "array_statements": lambda d: draw_arrays(d, fuzzgen.ARRAY_STATEMENTS),
    "array_helpers": lambda d: draw_arrays(d, fuzzgen.ARRAY_HELPERS),
    "matrix": lambda d: draw_matrix(d, fuzzgen.MATRIX),
    "nested_comprehensions": lambda d: draw_matrix(d, fuzzgen.NESTED_COMPREHENSIONS),
    "gather": lambda d: draw_matrix(d, fuzzgen.GATHER),
    "poly": lambda d: draw_poly(d, fuzzgen.POLY_FORMS, zero=False),
    "poly_arrays": lambda d: draw_poly(d, fuzzgen.POLY_FORMS, array_x=True, zero=False),
    "poly_zero": lambda d: draw_poly(d, fuzzgen.POLY_FORMS),
    "poly_arrays_zero": lambda d: draw_poly(d, fuzzgen.POLY_FORMS, array_x=True),
}

GOOD = ("ok", "n/a", "closure")


def outcome(cell: matrix.Cell) -> str:
    """The class of one cell (the module's docstring)."""
    if cell.outcome in (matrix.OK, matrix.NA):
        return cell.outcome
    if cell.outcome == matrix.REFUSED:  # (a refusal that reports srcdiff's own TypeError is a bad error)
        return "closure" if cell.located and not fuzzgen.INTERNAL.search(cell.message) else "bad error"
    if cell.outcome == matrix.WRONG:
        return "NaN" if "nan" in cell.detail.lower() or "inf" in cell.detail.lower() else "WRONG"
    return "crash"


def program(data, family: str, tmp) -> Program:
    """A program of `family` drawn from `data`, written to `tmp` and imported, with one of its
    family's differentiated arguments."""
    source, args, wrt = FAMILIES[family](data)
    w = data.draw(st.sampled_from(wrt), label="wrt")
    module = import_source(tmp, source, name=fuzzgen.fresh_module_name())
    return Program(f"{module.__name__}:f[{w}]", module.f, tuple(args), w, f"fuzz {family}")


def closure_row(p: Program, transforms=CLOSURE) -> dict:
    """Each transformation of `transforms` on `p`, classified: name -> (class, the cell), or {} where
    `p` has no reference at its point or grad refuses it (the fuzz of grad judges those)."""
    row = matrix.run(p, ("grad",))
    if row.excluded or row.cells["grad"].outcome != matrix.OK:
        return {}
    cells = {}
    for name in transforms:  # one at a time: a row of several would sample hessian
        cell = matrix.run(p, (name,)).cells[name]
        cells[name] = (outcome(cell), cell)
    return cells


def checked(data, family: str, tmp, transforms=CLOSURE) -> dict:
    """`closure_row` of a drawn program, which must hold no WRONG, NaN, crash or bad error; a
    program without a reference, or that grad refuses, is not counted (hypothesis.assume)."""
    p = program(data, family, tmp)
    cells = closure_row(p, transforms)
    assume(cells)
    bad = {name: (kind, cell.message or cell.detail) for name, (kind, cell) in cells.items() if kind not in GOOD}
    assert not bad, (bad, p.func.__module__, p.args, p.wrt)
    return cells
