"""Two cells of jit="numba" beyond `base_cells.cell_numba` (wave 35e; cell_table.py lists them):
``numba_value_and_grad`` (the value and the gradient of the compiled function) and ``numba_float32``
(the program with its float64 arrays made float32, compiled: closure_cells.cell_float32's check)."""

from __future__ import annotations

import copy

import srcdiff

from . import closure_cells, reference


def cell_numba_value_and_grad(ref: reference.Reference):
    value, got = srcdiff.value_and_grad(ref.p.func, wrt=ref.p.wrt, jit="numba")(*copy.deepcopy(ref.p.args))
    reference.check_value(ref, value)
    reference.first_order(ref, got)


def cell_numba_float32(ref: reference.Reference):
    """jit="numba" of the program with its float64 arrays made float32 (closure_cells.cell_float32's check)."""
    return closure_cells.cell_float32(ref, jit="numba")
