"""The helpers a gradient calls to take apart a join of arrays (``np.hstack(xs)``,
``np.column_stack(xs)``, ``np.c_[a, b]``) whose operands are a list known only when the
function runs: a list built by ``append``, a comprehension, a variable holding a list, or an
array whose rows are the operands.

Every join promotes each operand to a common rank (`promoted`) and concatenates the results
along one axis, so its adjoint cuts the adjoint of the result at the operands' lengths along
that axis and gives each piece the operand's own shape (`join_adjoint`); the adjoint of that
is the join again, of pieces shaped like the operands (`join_like`).  Both are linear, so
each is the other's adjoint (rules/numpy_joins.py), and a gradient that calls them can be
differentiated again.  ``np.tile`` joins copies of one array: its adjoint (`tile_adjoint`)
sums the tiles; `tiles_summed` and `repeats_summed` are the adjoints of ``np.tile`` and ``np.repeat``
counted when the function runs (rules/copies_when_run.py), with rules of their own; `stack_rows` is
``np.array`` of a loop's rows as a loop numba compiles.
"""

from __future__ import annotations

import numpy as np

#: The kinds of join, by the NumPy function (or index expression) that makes them.
KINDS = ("concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "r_", "c_")


def _column(shape: tuple) -> tuple:
    """A shape made at least 2-D with a 1-D array as a column (``np.column_stack``, ``np.c_``)."""
    return (1, 1) if not shape else (shape[0], 1) if len(shape) == 1 else shape


def _at_least(shape: tuple, ndim: int) -> tuple:
    """``np.atleast_{ndim}d``'s shape for `shape`."""
    if len(shape) >= ndim:
        return shape
    if ndim == 3 and len(shape) == 2:
        return shape + (1,)
    if ndim == 3 and len(shape) == 1:
        return (1,) + shape + (1,)
    return (1,) * (ndim - len(shape)) + shape


def promoted(kind: str, axis, shapes: list[tuple]) -> tuple[list[tuple], int]:
    """The shape each operand takes in the join, and the axis the join runs along."""
    if kind == "concatenate":
        if axis is None:
            return [(int(np.prod(s, dtype=int)),) for s in shapes], 0
        return list(shapes), axis % len(shapes[0])
    if kind == "stack":
        along = axis % (len(shapes[0]) + 1)
        return [s[:along] + (1,) + s[along:] for s in shapes], along
    if kind in ("hstack", "r_"):
        wide = [_at_least(s, 1) for s in shapes]
        return wide, 0 if kind == "r_" or len(wide[0]) == 1 else 1
    if kind == "vstack":
        return [_at_least(s, 2) for s in shapes], 0
    if kind == "dstack":
        return [_at_least(s, 3) for s in shapes], 2
    if kind in ("column_stack", "c_"):
        wide = [_column(s) for s in shapes]
        return wide, 1 if kind == "column_stack" else len(wide[0]) - 1
    raise ValueError(f"unknown join {kind!r}")


def join_adjoint(g, xs, kind, axis):
    """The adjoint of a join of the operands `xs` (a list, or an array whose rows they are):
    `g` cut into one piece per operand, each shaped like it (an array like `xs` for an array)."""
    shapes = [np.shape(x) for x in xs]
    wide, along = promoted(kind, axis, shapes)
    if kind == "concatenate" and axis is None:
        g = np.ravel(g)
    ends = np.cumsum([w[along] for w in wide])[:-1]
    pieces = [np.reshape(p, s) for p, s in zip(np.split(g, ends, axis=along), shapes)]
    pieces = [p[()] if not s else p for p, s in zip(pieces, shapes)]  # a number's adjoint is a number
    return np.stack(pieces) if isinstance(xs, np.ndarray) else pieces


def join_like(h, xs, kind, axis):
    """The join of the items of `h` (a list, or the rows of an array), each shaped like the
    operand of `xs` in its place (0.0 for an operand nothing reached): the adjoint of
    `join_adjoint`."""
    shapes = [np.shape(x) for x in xs]
    wide, along = promoted(kind, axis, shapes)
    dtype = np.result_type(*h, 0.0) if len(h) else np.float64
    parts = [np.reshape(np.zeros(s, dtype) + hi, w) for hi, s, w in zip(h, shapes, wide)]
    return np.concatenate(parts, axis=along)


def join_rows(xs, kind: str):
    """The join `kind` (``"hstack"``, ``"vstack"``, ``"dstack"``, ``"column_stack"``) of each row of the
    items `xs` (batched code's row list: every item has the batch axis first): each item promoted as its
    row is, then joined along the axis after the batch axis that the row's join runs along."""
    size = np.shape(xs[0])[0]
    wide, along = promoted(kind, None, [np.shape(x)[1:] for x in xs])
    return np.concatenate([np.reshape(x, (size,) + w) for x, w in zip(xs, wide)], axis=along + 1)


def join_adjoint_rows(g, xs, kind: str) -> list:
    """The adjoint of `join_rows`: the rows `g` of the join's adjoint cut at each item's length along the
    joined axis, each piece shaped like its item (rows of `join_adjoint`)."""
    shapes = [np.shape(x) for x in xs]
    wide, along = promoted(kind, None, [s[1:] for s in shapes])
    ends = np.cumsum([w[along] for w in wide])[:-1]
    return [np.reshape(p, s) for p, s in zip(np.split(g, ends, axis=along + 1), shapes)]


def column_join(xs):
    """``np.c_[a, b, ...]`` of arrays and numbers: each made at least 2-D (a 1-D array as a
    column), joined along the last axis.  Generated code spells ``np.c_[...]`` as this call."""
    parts = [np.reshape(x, _column(np.shape(x))) for x in xs]
    return np.concatenate(parts, axis=-1)


def tile_adjoint(g, x, reps):
    """Adjoint of ``np.tile(x, reps)``: the tiles of `g` summed onto one."""
    reps = (int(reps),) if np.ndim(reps) == 0 else tuple(int(r) for r in reps)  # (counts computed at run time too)
    shape = np.shape(x)
    full = max(len(shape), len(reps))
    sizes = (1,) * (full - len(shape)) + shape
    reps = (1,) * (full - len(reps)) + reps
    interleaved = [n for pair in zip(reps, sizes) for n in pair]
    return np.reshape(np.sum(np.reshape(g, interleaved), axis=tuple(range(0, 2 * full, 2))), shape)


def tiles_summed(a, x, reps):
    """Adjoint of ``np.tile(x, reps)``: the tiles of `a` summed onto x's shape."""
    return tile_adjoint(a, x, reps)


def repeats_summed(a, x, repeats, axis=None):
    """Adjoint of ``np.repeat(x, repeats, axis)``: the copies of each element of `a` summed onto it
    (a count per element, zeros too: each copy added at the position it was copied from)."""
    shape = np.shape(x)
    a = np.asarray(a)
    if axis is None:
        n = int(np.prod(shape))
        moved, length = np.ravel(a), n
    else:
        axis = axis % len(shape)
        moved, length = np.moveaxis(a, axis, 0), shape[axis]
    sources = np.repeat(np.arange(length), repeats)
    out = np.zeros((length,) + moved.shape[1:], dtype=a.dtype)
    np.add.at(out, sources, moved)
    if axis is None:
        return np.reshape(out, shape)
    return np.moveaxis(out, 0, axis)


def stack_rows(rows):
    """``np.array(rows)`` of a loop's rows (one shape) as a loop numba compiles (``jit="numba"``'s ``np.array``)."""
    first = rows[0]
    out = np.empty((len(rows),) + first.shape, first.dtype)
    for i in range(len(rows)):
        out[i] = rows[i]
    return out


JOIN_HELPERS = {f.__name__: f for f in (stack_rows, join_adjoint, join_like, column_join, tile_adjoint, tiles_summed,
                                        repeats_summed, join_rows, join_adjoint_rows)}
