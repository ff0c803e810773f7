"""Three more cells of the matrix, for the closure census: ``jacobian`` (of a scalar function, the
gradient's shape), ``hvp`` (a Hessian-vector product, against central differences of the already
checked gradient along a direction) and ``float32`` (the program with its float64 arrays made
float32: a gradient in float32, agreeing with float64 central differences to float32's precision).

    row = matrix.run(program, matrix.TRANSFORMS + closure_cells.EXTRA)

cell_table.py lists them in the matrix's standard cells (importing this module registers nothing).
"""

from __future__ import annotations

import copy
import dataclasses
import warnings

import numpy as np

import srcdiff

from . import leaves, reference

EXTRA = ("jacobian", "hvp", "float32")


def cell_jacobian(ref: reference.Reference):
    reference.first_order(ref, srcdiff.jacobian(ref.p.func, wrt=ref.p.wrt)(*copy.deepcopy(ref.p.args)), "jacobian")


def cell_hvp(ref: reference.Reference):
    p = ref.p
    if p.wrt != 0:  # hvp differentiates its first argument
        return reference.NA, "hvp takes the first argument"
    v = leaves.with_vector(ref.arg, ref.v)
    got = leaves.vector(srcdiff.hvp(p.func, copy.deepcopy(p.args[0]), v, *copy.deepcopy(p.args[1:])))
    gradient = srcdiff.grad(p.func, wrt=p.wrt)

    def along(eps):
        hi = leaves.vector(gradient(*ref.args_with(ref.x + eps * ref.v)))
        lo = leaves.vector(gradient(*ref.args_with(ref.x - eps * ref.v)))
        return (hi - lo) / (2 * eps)

    want = along(1e-5)
    if not leaves.agree(got, want, 1e-4, 1e-4):
        if not leaves.agree(want, along(1e-4), 1e-3, 1e-4):
            return reference.NA, "second differences unstable here"
        raise reference.Wrong(f"hvp: max error {leaves.max_error(got, want):.3g}")
    return reference.OK, "hvp"


def _narrowed(value):
    if isinstance(value, np.ndarray) and value.dtype == np.float64:
        return value.astype(np.float32)
    if isinstance(value, dict):
        return {k: _narrowed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        narrow = [_narrowed(v) for v in value]
        return type(value)(*narrow) if hasattr(value, "_fields") else type(value)(narrow)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return dataclasses.replace(value, **{f.name: _narrowed(getattr(value, f.name)) for f in fields})
    return value


def cell_float32(ref: reference.Reference, jit=None):
    p = ref.p
    args = [_narrowed(a) for a in copy.deepcopy(p.args)]
    if not any(leaf.dtype == np.float32 for leaf in leaves.float_leaves(args[p.wrt]) if isinstance(leaf, np.ndarray)):
        return reference.NA, "no float32 array to differentiate"
    narrow = reference.Program(p.name, p.func, tuple(args), p.wrt, p.origin)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            want = reference.Reference(narrow)
    except Exception:  # noqa: BLE001  no reference at the float32 point
        return reference.NA, "no reference at the float32 point"
    got = srcdiff.grad(p.func, wrt=p.wrt, jit=jit)(*copy.deepcopy(args))
    for mine, theirs in zip(leaves.float_leaves(got), leaves.float_leaves(args[p.wrt])):
        if isinstance(theirs, np.ndarray) and theirs.dtype == np.float32 and np.result_type(mine) != np.float32:
            raise reference.Wrong(f"float32: a {np.result_type(mine)} gradient of a float32 argument")
    flat = leaves.vector(got)
    scale = max(1.0, float(np.max(np.abs(want.grad))))
    if not np.all(np.abs(flat - want.grad) <= 3e-3 * scale):
        raise reference.Wrong(f"float32: max error {leaves.max_error(flat, want.grad):.3g} (scale {scale:.3g})")
    return reference.OK, "float32"

