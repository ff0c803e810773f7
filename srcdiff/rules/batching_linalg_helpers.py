"""What batched code (ad/batching_rules.py, ad/batching_moves.py) calls for the adjoints of matrix
products of vectors and stacks, and for solves of stacks of matrices, where a row's operands are
not one matrix each.

Each operand comes with a flag saying whether it has a batch axis.  An operand without one is
given an axis of length one in front, and every operand gets axes of length one after its batch
axis up to the row's rank the product needs, so NumPy lines a row's stack axes up with the same
row's (it aligns from the right, and would otherwise pair a row's axis with the batch axis,
silently where the two have one length).
"""

from __future__ import annotations

import numpy as np


def _lift(v, rows: bool, rank: int):
    """`v` with a batch axis (of length one when `rows` is False) and `rank` axes a row."""
    v = np.asarray(v)
    if not rows:
        v = v[None]
    return v.reshape(v.shape[:1] + (1,) * (rank - v.ndim + 1) + v.shape[1:])


def _rows_of(v, rows: bool):
    return np.ndim(v) - 1 if rows else np.ndim(v)


def matmul_adjoint_rows(g, x, y, flags: tuple, wrt_y: bool, size: int):
    """``matmul_adjoint_x(g, x, y)`` (`wrt_y` False) or ``matmul_adjoint_y`` of each row, `flags`
    saying which of g, x, y have a batch axis: the rows of the adjoint before each is summed back to
    a row of x's (y's) shape."""
    gr, xr, yr = flags
    nx, ny = _rows_of(x, xr), _rows_of(y, yr)
    dtype = np.result_type(g, x, y, 1.0)
    if not wrt_y:
        if ny == 1:
            rank = max(nx - 1, 0)
            out = _lift(g, gr, rank)[..., None] * _lift(y, yr, rank + 1) if nx > 1 else \
                _lift(g, gr, 0)[:, None] * _lift(y, yr, 1)
        elif nx == 1:
            out = (_lift(y, yr, ny) @ _lift(g, gr, ny - 1)[..., None])[..., 0]
        else:
            rank = max(nx, ny)
            out = _lift(g, gr, rank) @ np.swapaxes(_lift(y, yr, rank), -1, -2)
    else:
        if nx == 1:
            out = _lift(x, xr, ny - 1)[..., None] * _lift(g, gr, ny - 1)[..., None, :] if ny > 1 else \
                _lift(g, gr, 0)[:, None] * _lift(x, xr, 1)
        elif ny == 1:
            out = np.sum(_lift(g, gr, nx - 1)[..., None] * _lift(x, xr, nx), axis=tuple(range(1, nx)))
        else:
            rank = max(nx, ny)
            out = np.swapaxes(_lift(x, xr, rank), -1, -2) @ _lift(g, gr, rank)
    # (the caller sums each row back to a row of x's or y's shape: unbroadcast_rows)
    return out.astype(dtype, copy=False) if out.shape[0] == size else \
        np.array(np.broadcast_to(out, (size,) + out.shape[1:]), dtype=dtype)


def matmul_rows(x, y, x_rows: bool, y_rows: bool):
    """``x @ y`` (``np.dot`` of vectors and matrices) of each row, either operand without a batch axis
    the same for every row: a row's vectors and stacks lined up with the same row's."""
    nx, ny = _rows_of(x, x_rows), _rows_of(y, y_rows)
    if nx == 1 and ny == 1:
        return np.sum(_lift(x, x_rows, 1) * _lift(y, y_rows, 1), axis=-1)
    if ny == 1:
        return (_lift(x, x_rows, nx) @ _lift(y, y_rows, nx - 1)[..., None])[..., 0]
    if nx == 1:
        return (_lift(x, x_rows, ny - 1)[..., None, :] @ _lift(y, y_rows, ny))[..., 0, :]
    rank = max(nx, ny)
    return _lift(x, x_rows, rank) @ _lift(y, y_rows, rank)


def solve_stack_rows(a, b, a_rows: bool, b_rows: bool, b_ndim: int, size: int):
    """``np.linalg.solve(a, b)`` of each row, a row's `a` a matrix or a stack of them and its `b` a
    vector (`b_ndim` 1: NumPy solves it against every matrix of the stack) or a matrix or stack."""
    ra = _rows_of(a, a_rows)
    if b_ndim == 1:
        out = np.linalg.solve(_lift(a, a_rows, ra), _lift(b, b_rows, ra - 1)[..., None])[..., 0]
    else:
        rank = max(ra, b_ndim)
        out = np.linalg.solve(_lift(a, a_rows, rank), _lift(b, b_rows, rank))
    return np.array(np.broadcast_to(out, (size,) + out.shape[1:]))


def solve_adjoint_y_rows(g, x, g_rows: bool, x_rows: bool, y_ndim: int, size: int):
    """``solve_adjoint_y(g, x, y)`` of each row (`y_ndim`: a row's y's axes, which y's adjoint g has)."""
    return solve_stack_rows(np.swapaxes(x, -1, -2), g, x_rows, g_rows, y_ndim, size)


def solve_adjoint_x_rows(g, x, r, flags: tuple, y_ndim: int, size: int):
    """``solve_adjoint_x(g, x, y, r)`` of each row, `r` the solution (`flags`: which of g, x, r have a
    batch axis)."""
    g_rows, x_rows, r_rows = flags
    y_bar = solve_adjoint_y_rows(g, x, g_rows, x_rows, y_ndim, size)
    if y_ndim == 1:
        return -(y_bar[:, :, None] * _lift(r, r_rows, 1)[:, None, :])
    rank = max(y_bar.ndim - 1, _rows_of(r, r_rows))
    return -(_lift(y_bar, True, rank) @ np.swapaxes(_lift(r, r_rows, rank), -1, -2))


HELPERS = {f.__name__: f for f in (matmul_adjoint_rows, matmul_rows, solve_stack_rows, solve_adjoint_y_rows,
                                   solve_adjoint_x_rows)}

__all__ = ["HELPERS", "matmul_adjoint_rows", "matmul_rows", "solve_adjoint_x_rows", "solve_adjoint_y_rows",
           "solve_stack_rows"]
