"""What batched code calls for an index of integer positions with a batch axis beside slices
(``x[idx, 1:]``, ``x[:, idx]``, ``x[i, :, j]`` with `idx` worked out of each example or mapped),
and for its adjoints (ad/batching_gathers.py).

Each row is indexed by its own positions: the batch axis becomes one more array of the index (the
row numbers), so NumPy's advanced indexing gathers every row at once.  NumPy puts the axes of
advanced indices where the first of them stands when they are next to each other, and in front when
they are not; the row numbers in front move them to the front, so where a row's own index keeps them
in place (``x[:, idx]``: after the first axis) they are moved back (`_layout`).  A mask, ``None``,
``...`` or a part that is not integer positions is refused when the code runs (vmap then runs one
example at a time).
"""

from __future__ import annotations

import numpy as np

from ..errors import SrcDiffError


def _refused():
    return SrcDiffError("an index with a batch axis beside slices that is not integer positions of each row (a mask, "
                        "None, ...) cannot be batched",
                        hint="index with integer positions and slices, or call the function once per example")


def _layout(parts, flags, size: int):
    """(the index of the whole batch, the number of axes of a row's gathered positions, the number of
    axes of a row's result before them) for a row's index `parts`; `flags` says which parts have a batch
    axis (integer arrays of `size` rows).  The batch's result has the positions' axes right after the
    batch axis."""
    advanced, shapes = [], []
    for k, (part, rows) in enumerate(zip(parts, flags)):
        if type(part) is slice:
            continue
        if part is None or part is Ellipsis or isinstance(part, (bool, np.bool_)):
            raise _refused()
        part = np.asarray(part)
        if part.dtype.kind not in "iu" or (rows and (part.ndim == 0 or part.shape[0] != size)):
            raise _refused()
        advanced.append(k)
        shapes.append(part.shape[1:] if rows else part.shape)
    depth = len(np.broadcast_shapes(*shapes))
    index = [np.arange(size).reshape((size,) + (1,) * depth)]
    for part, rows in zip(parts, flags):
        if rows:  # a row's positions lined up from the right with the others', after the batch axis
            part = np.asarray(part)
            part = part.reshape(part.shape[:1] + (1,) * (depth - part.ndim + 1) + part.shape[1:])
        index.append(part)
    together = advanced == list(range(advanced[0], advanced[0] + len(advanced)))
    return tuple(index), depth, advanced[0] if together else 0


def _moved(depth: int, before: int) -> tuple[list, list]:
    """(where the positions' axes are in the batch's result, where a row's own index puts them)."""
    return list(range(1, 1 + depth)), list(range(1 + before, 1 + before + depth))


def gather_slices_rows(x, parts, flags, x_rows: bool):
    """``x[*parts]`` of each row, some `parts` integer positions with a batch axis (`flags`), others
    slices or positions the same for every row; `x` the same for every row when not `x_rows`."""
    size = np.shape(x)[0] if x_rows else next(np.shape(p)[0] for p, rows in zip(parts, flags) if rows)
    x = np.asarray(x) if x_rows else np.broadcast_to(x, (size,) + np.shape(x))
    index, depth, before = _layout(parts, flags, size)
    return np.moveaxis(x[index], *_moved(depth, before))


def gather_slices_add_rows(base, parts, flags, value, value_rows: bool):
    """`index_add(base, parts, value)` of each row (`base` rows already): a copy of base's rows with
    each row's value added at its own positions, a repeated position adding again (``np.add.at``)."""
    out = np.array(base, dtype=np.result_type(base, value, 0.0), copy=True)
    index, depth, before = _layout(parts, flags, out.shape[0])
    target = np.broadcast_shapes(*(np.shape(p) for p in index if type(p) is not slice))
    rest = out[tuple(0 if type(p) is not slice else p for p in index)].shape  # the slices' axes
    row = target[:1] + rest[:before] + target[1:] + rest[before:]  # the batch's result as a row's is laid out
    value = np.asarray(value)
    if value_rows:  # a row's value with axes of length one after its batch axis, as many as a row's result
        value = value.reshape(value.shape[:1] + (1,) * (len(row) - value.ndim) + value.shape[1:])
    value = np.broadcast_to(value, row)
    gathered, placed = _moved(depth, before)
    np.add.at(out, index, np.moveaxis(value, placed, gathered))
    return out


def _not_masked(why: str):
    return SrcDiffError(f"a masked value cannot be batched here: {why}",
                        hint="write the masked sum with np.where, or call the function once per example")


def masked_rows(x, m, x_rows: bool, size: int):
    """``x[m]`` of each row as masked rows (ad/batching_masks.py): x's whole rows, `m` a boolean mask as
    long as a row of x (else refused when run: vmap then runs one example at a time)."""
    m, x = np.asarray(m), np.asarray(x)
    row = x.shape[1:] if x_rows else x.shape
    if m.dtype != bool or m.shape[1:] != row:
        raise _not_masked("the index is not a boolean mask shaped like each row")
    return x if x_rows else np.broadcast_to(x, (size,) + x.shape)


def _mask(index):
    """A mask given as an index (itself, or a tuple of it alone)."""
    return index[0] if type(index) is tuple and len(index) == 1 else index


def masks_agree(a, b) -> None:
    """Two masks made apart (``x[x > 0] * w[x > 0]``, a gradient's scatter's index and the mask of the
    value it scatters) are boolean and select the same positions of every row (else each example's
    selected items would pair otherwise than masked rows do: refused when run)."""
    a, b = np.asarray(_mask(a)), np.asarray(_mask(b))
    if a.dtype != bool or b.dtype != bool or not np.array_equal(a, b):
        raise _not_masked("two masks that select different positions meet")


def index_add_masked(base, m, value):
    """``index_add(base, m, value)`` of masked rows `value` of the mask `m`: `value` added where each
    row's mask holds."""
    return base + np.where(_mask(m), value, 0.0)


def set_masked_rows(x, m, v, x_rows: bool, number_rows: bool):
    """``set_item(x, m, v)`` of each row, `m` a boolean mask as long as a row of `x`: `v` where the row's
    mask holds (masked rows, each row whole; a number per row (`number_rows`); or one number), x's dtype
    kept as a write keeps it."""
    x, m, v = np.asarray(x), np.asarray(m), np.asarray(v)
    if m.dtype != bool or m.shape[1:] != (x.shape[1:] if x_rows else x.shape):
        raise _not_masked("a write through an index that is not a boolean mask of each row")
    if x.dtype.kind not in "fc" and v.dtype.kind in "fc":
        raise _not_masked("a floating value written into integers")
    if number_rows:
        v = v.reshape(v.shape + (1,) * (m.ndim - 1))
    return np.where(m, v, x).astype(x.dtype, copy=False)


def refused_when_run(reason: str):
    """A side of a branch the batching transform could not batch, reached (ad/batching.py's `_side`)."""
    raise SrcDiffError(f"batching (srcdiff.vmap) reached a side of a branch it could not batch: {reason}",
                       hint="call the function once per example")


HELPERS = {f.__name__: f for f in (gather_slices_rows, gather_slices_add_rows, masked_rows, masks_agree,
                                   index_add_masked, refused_when_run, set_masked_rows)}

__all__ = ["HELPERS", "gather_slices_add_rows", "gather_slices_rows", "index_add_masked", "masked_rows",
           "masks_agree", "refused_when_run", "set_masked_rows"]
