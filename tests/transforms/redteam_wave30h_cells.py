"""Three cells of wave 30h (cell_table.py lists them): ``vmap_examples`` (``vmap(grad(f))`` over the
program's own examples, redteam_wave30h_programs.BATCHES; elsewhere the ``vmap_grad`` cell),
``hessian_rows`` (the whole Hessian against its rows by hvp) and ``hessian_float32`` (the Hessian of the
argument made float32)."""

from __future__ import annotations

import copy

import numpy as np

import srcdiff

from . import leaves, reference
from . import redteam_wave30h_programs as w
from .vmap_cells import cell_vmap_grad


def cell_vmap_examples(ref: reference.Reference):
    """``vmap(grad(f))`` over the program's own examples (w.BATCHES: both sides of a branch, points of
    infinite slope on the side not taken), each row against float64 central differences at its point."""
    p = ref.p
    batch = w.BATCHES.get(p.name.partition(":")[2])
    if batch is None:
        return cell_vmap_grad(ref)
    args = list(copy.deepcopy(p.args))
    args[p.wrt] = batch.copy()
    in_axes = tuple(0 if i == p.wrt else None for i in range(len(p.args)))
    got = np.asarray(srcdiff.vmap(srcdiff.grad(p.func, wrt=p.wrt), in_axes=in_axes)(*args))
    for k, point in enumerate(batch):
        at = list(copy.deepcopy(p.args))
        at[p.wrt] = point.copy()
        alone = np.asarray(srcdiff.grad(p.func, wrt=p.wrt)(*copy.deepcopy(at)))
        try:
            want = reference.Reference(reference.Program(p.name, p.func, tuple(at), p.wrt, p.origin)).grad
        except ValueError:  # no reference here (infinite slope on the taken side): agree with grad alone
            if not np.array_equal(np.ravel(got[k]), np.ravel(alone), equal_nan=True):
                raise reference.Wrong(f"vmap(grad) example {k}: {got[k]}, grad alone {alone}") from None
            continue
        if not leaves.agree(np.ravel(got[k]), want):
            raise reference.Wrong(f"vmap(grad) example {k}: max error {leaves.max_error(np.ravel(got[k]), want):.3g}")
    return reference.OK, "vmap(grad)"


def cell_hessian_rows(ref: reference.Reference):
    """The whole Hessian against its rows one at a time (hvp along each unit vector: the per-row path)."""
    p = ref.p
    if p.wrt != 0 or not isinstance(ref.arg, np.ndarray):
        return reference.NA, "hvp of another argument"
    whole = np.asarray(srcdiff.hessian(p.func, wrt=p.wrt)(*copy.deepcopy(p.args))).reshape(ref.x.size, -1)
    for k in range(ref.x.size):
        e = np.zeros_like(ref.arg)
        e.flat[k] = 1.0
        row = np.ravel(srcdiff.hvp(p.func, *copy.deepcopy(p.args[:1]), e, *copy.deepcopy(p.args[1:])))
        if not leaves.agree(row, whole[:, k], 1e-8, 1e-10):
            raise reference.Wrong(f"hessian column {k} {whole[:, k]} but hvp {row}")
    return reference.OK, "rows"


def cell_hessian_float32(ref: reference.Reference):
    """The Hessian of the float32 argument: float32, and equal to the float64 Hessian to float32's precision."""
    p = ref.p
    if not isinstance(ref.arg, np.ndarray) or ref.arg.dtype != np.float64:
        return reference.NA, "no float64 array"
    want = np.asarray(srcdiff.hessian(p.func, wrt=p.wrt)(*copy.deepcopy(p.args)))
    args = list(copy.deepcopy(p.args))
    args[p.wrt] = args[p.wrt].astype(np.float32)
    got = np.asarray(srcdiff.hessian(p.func, wrt=p.wrt)(*args))
    if got.dtype != np.float32:
        raise reference.Wrong(f"float32 Hessian: {got.dtype}")
    scale = max(1.0, float(np.nanmax(np.abs(want))))
    if not np.all(np.abs(got - want) <= 3e-3 * scale):
        raise reference.Wrong(f"float32 Hessian: max error {leaves.max_error(got, want):.3g}")
    return reference.OK, "float32 hessian"
