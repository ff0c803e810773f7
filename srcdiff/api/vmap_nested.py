"""``vmap(vmap(f, in_axes=A), in_axes=B)``: the two batch axes merged into one, and one call of the inner
map's batched code over every (outer, inner) pair of examples (JAX's nested vmap: a Jacobian's rows per
example, a grid of parameters against a batch of data), its results' batch axis split back into the two.
An argument batched by one map alone is broadcast along the other's axis.  Trees, and an inner map whose
results go elsewhere than axis 0 (its out_axes), run the outer map one example at a time (api/vmap.py),
each a call of the inner map, batched."""

from __future__ import annotations

import numpy as np

from ..errors import SrcDiffError
from .vmap_examples import is_axes_tree, is_tree


def merged_arguments(outer_axes: list, inner_axes: list, args: tuple):
    """(the arguments with both batch axes merged into axis 0, their in_axes (0 or None), the two sizes),
    or None where the call is not plain arrays and ints (trees: one outer example at a time)."""
    if any(is_tree(v) or is_axes_tree(o) or is_axes_tree(i) for v, o, i in zip(args, outer_axes, inner_axes)):
        return None
    moved, outer, inner = [], set(), set()
    for value, o, i in zip(args, outer_axes, inner_axes):
        if o is None and i is None:
            moved.append(None)
            continue
        a = np.asarray(value)
        if a.dtype == object:
            return None
        if o is not None:
            a = np.moveaxis(a, o, 0)
            outer.add(a.shape[0])
            if i is not None:  # (the inner axis counts a row's axes: past the outer one)
                a = np.moveaxis(a, i + 1 if i >= 0 else i, 1)
                inner.add(a.shape[1])
            else:
                a = a[:, None]
        else:
            a = np.moveaxis(a, i, 0)[None]
            inner.add(a.shape[1])
        moved.append(a)
    if len(outer) != 1 or len(inner) != 1:
        raise SrcDiffError(f"nested vmap: the arguments batched have sizes {sorted(outer)} along the outer map's "
                           f"axes and {sorted(inner)} along the inner map's",
                           hint="batch at least one argument along each map's axis, each map's of one length")
    n, m = outer.pop(), inner.pop()
    merged = [value if a is None else np.reshape(np.broadcast_to(a, (n, m) + a.shape[2:]), (n * m,) + a.shape[2:])
              for value, a in zip(args, moved)]
    return merged, tuple(None if a is None else 0 for a in moved), n, m


def split_rows(result, n: int, m: int):
    """`result`'s leaves of n * m rows as (n, m, ...) arrays (tuples, lists and dicts part by part)."""
    if isinstance(result, dict):
        return {k: split_rows(v, n, m) for k, v in result.items()}
    if isinstance(result, (tuple, list)):
        parts = [split_rows(v, n, m) for v in result]
        return type(result)(*parts) if hasattr(result, "_fields") else type(result)(parts)
    result = np.asarray(result)
    return np.reshape(result, (n, m) + result.shape[1:])


__all__ = ["merged_arguments", "split_rows"]
