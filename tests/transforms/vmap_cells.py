"""The matrix's ``vmap_grad`` cell: ``vmap(grad(f))`` over three points near the program's, each row
against float64 central differences of f at its own point (cell_table.py lists it)."""

from __future__ import annotations

import copy

import numpy as np

import srcdiff

from . import leaves, reference


def cell_vmap_grad(ref: reference.Reference):
    """``vmap(grad(f))`` over three points near the program's, each row against float64 central
    differences of f at its own point."""
    p = ref.p
    arg = np.float64(ref.arg) if isinstance(ref.arg, float) else ref.arg
    if not isinstance(arg, (np.ndarray, np.floating)) or np.result_type(arg) != np.float64:
        return reference.NA, "no float64 array to map over"
    points = [np.reshape(ref.x + 0.05 * k * ref.v, np.shape(arg)) for k in range(3)]
    args = list(copy.deepcopy(p.args))
    args[p.wrt] = np.stack(points)
    in_axes = tuple(0 if i == p.wrt else None for i in range(len(p.args)))
    got = np.asarray(srcdiff.vmap(srcdiff.grad(p.func, wrt=p.wrt), in_axes=in_axes)(*args))
    if got.shape != args[p.wrt].shape:
        raise reference.Wrong(f"vmap(grad): shaped {got.shape}, the batch {args[p.wrt].shape}")
    for k, point in enumerate(points):
        at = list(copy.deepcopy(p.args))
        at[p.wrt] = point if np.ndim(point) else float(point)
        try:
            want = reference.Reference(reference.Program(p.name, p.func, tuple(at), p.wrt, p.origin)).grad
        except ValueError:  # no reference at this point (a kink nearby): the others still judge
            continue
        if not leaves.agree(np.ravel(got[k]), want):
            raise reference.Wrong(f"vmap(grad) row {k}: max error {leaves.max_error(np.ravel(got[k]), want):.3g}")
    return reference.OK, "vmap(grad)"
