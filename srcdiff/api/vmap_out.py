"""`out_axes` of `srcdiff.vmap`: where the batch axis of each result goes (JAX's meaning).  The batched code
and the loop over the examples both put it first; the results are then moved.  An int (or None) is for every
array of the result, a tuple, list or dict of them for the parts of a result of that structure; None says a
result is the same for every example: its first example's, checked equal to the others."""

from __future__ import annotations

import numpy as np

from ..errors import SrcDiffError


def checked_out_axes(out_axes):
    """`out_axes` if it is an int, None, or a tuple, list or dict of them; else refused."""
    if out_axes is None or type(out_axes) is int:
        return out_axes
    if isinstance(out_axes, (tuple, list)):
        return type(out_axes)(checked_out_axes(a) for a in out_axes)
    if isinstance(out_axes, dict):
        return {k: checked_out_axes(a) for k, a in out_axes.items()}
    raise SrcDiffError(f"srcdiff.vmap: out_axes must be an int, None or a tuple, list or dict of them, got "
                       f"{out_axes!r}", hint="out_axes=0 puts the batch axis first")


def placed(result, out_axes, what: str):
    """`result` (its batch axis first) with the batch axis of each array where `out_axes` says."""
    if out_axes == 0 and type(out_axes) is int:
        return result
    if isinstance(out_axes, (tuple, list, dict)):
        keys = list(out_axes) if isinstance(out_axes, dict) else range(len(out_axes))
        same = isinstance(result, dict) if isinstance(out_axes, dict) else \
            isinstance(result, (tuple, list)) and len(result) == len(out_axes)
        if not same or (isinstance(out_axes, dict) and set(result) != set(out_axes)):
            raise SrcDiffError(f"{what}: out_axes {out_axes!r} does not fit the result, a {type(result).__name__}",
                               hint="give one out_axes entry per part of the result (or one int for all)")
        parts = {k: placed(result[k], out_axes[k], what) for k in keys}
        if isinstance(result, dict):
            return parts
        values = [parts[k] for k in keys]
        return type(result)(*values) if hasattr(result, "_fields") else type(result)(values)
    if isinstance(result, dict):
        return {k: placed(v, out_axes, what) for k, v in result.items()}
    if isinstance(result, (tuple, list)):
        values = [placed(v, out_axes, what) for v in result]
        return type(result)(*values) if hasattr(result, "_fields") else type(result)(values)
    array = np.asarray(result)
    if out_axes is None:
        if array.ndim == 0 or not all(np.array_equal(array[0], row, equal_nan=True) for row in array[1:]):
            raise SrcDiffError(f"{what}: out_axes None for a result that differs between examples",
                               hint="give that result an out_axes int")
        return array[0]
    if not -array.ndim <= out_axes < array.ndim:
        raise SrcDiffError(f"{what}: out_axes {out_axes} for a result of {array.ndim} axes (the batch axis and "
                           f"{array.ndim - 1} of each example's)", hint="give an axis the result has")
    return np.moveaxis(array, 0, out_axes)


__all__ = ["checked_out_axes", "placed"]
