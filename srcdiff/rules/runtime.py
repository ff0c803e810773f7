"""The few helpers generated code may call, for what codegen cannot know before run time
(an operand's shape), each small enough to read in the source's stead."""

from __future__ import annotations

import numpy as np

from ..errors import Location, SrcDiffError
from .calculus_helpers import HELPERS as CALCULUS_HELPERS
from .decomposition_helpers import DECOMPOSITION_HELPERS
from .fft_helpers import FFT_HELPERS
from .guard_helpers import GUARD_HELPERS
from .join_helpers import JOIN_HELPERS
from .kinks import any_equal, held_still, kink, kink_nan, tie, tie_nan, tie_still_nan, tied
from .list_edits import LIST_EDIT_HELPERS
from .list_helpers import LIST_HELPERS, items_array, list_add, list_position
from .logistic import logistic
from .scan_helpers import SCAN_HELPERS
from .selections import SELECTION_HELPERS
from .sort_ties import SORT_TIE_HELPERS
from .symmetric import SYMMETRIC_HELPERS
from .triangular import TRIANGULAR_HELPERS, cholesky_factor_adjoint, lower_inverse, phi
from .write_helpers import WRITE_HELPERS


def unbroadcast(g, x):
    """Sum the adjoint `g` back to the shape of the operand `x` it was broadcast from."""
    # two arrays of one shape or one axis apart first (a loop's cells, a bias's adjoint in a loop: shapes codegen
    # cannot know), then a float for a number of unknown kind (an item of a list): np.shape of either costs µs
    if type(g) is np.ndarray and type(x) is np.ndarray and (g.shape == x.shape or g.ndim == x.ndim + 1 > 1):
        return g if g.shape == x.shape else g.sum(axis=0) if 1 not in x.shape else unbroadcast(g.sum(axis=0), x)
    if (type(g) is float and type(x) in (float, int, np.float64)) or np.shape(g) == (shape := np.shape(x)):
        return g
    g = np.asarray(g)
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(axis=tuple(range(lead)))
    ones = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    if ones:
        g = g.sum(axis=ones, keepdims=True)
    return g if isinstance(x, np.ndarray) else g[()]


def zeros_like(x):
    """The adjoint of an input the output does not depend on: 0.0, or zeros of x's shape.

    A tuple or list (a function's tuple result) gets a list of zeros, one per element.  A NumPy
    number (``np.linalg.det`` of one matrix) gets a 0-d array: its adjoint may be written into
    by index (``g[..., None, None] += ...``), which a Python float cannot.
    """
    if isinstance(x, np.ndarray):  # a float32 array's derivative is float32 (others: float64)
        return np.zeros(x.shape, x.dtype if x.dtype.kind == "f" else float)
    if isinstance(x, np.generic):
        return np.zeros((), x.dtype if x.dtype.kind == "f" else float)
    if isinstance(x, (tuple, list)):
        return [0.0] * len(x) if all(type(i) is float for i in x) else [zeros_like(item) for item in x]
    return 0.0


def select(condition, value):
    """`value` where `condition` holds and an exact 0.0 elsewhere (the adjoint of a branch of
    ``np.where`` that was not taken), when `condition` is one value or has `value`'s shape;
    else `value` as it is.

    Used where shapes are not known before the call (else: ``np.where(condition, value, 0.0)``)."""
    if np.ndim(condition) == 0:
        return select_whole(condition, value)
    if np.shape(condition) != np.shape(value):
        return value
    return np.where(condition, value, 0.0)


def select_whole(condition, value):
    """`value` when `condition` holds and zeros like it when not, if `condition` is one value
    (then it decides for the whole adjoint, through any operation); `value` as it is when
    `condition` is an array (it does not say which of this value's elements it covers)."""
    if np.ndim(condition) != 0 or condition:
        return value
    return np.zeros_like(value) if isinstance(value, np.ndarray) else 0.0


def copy_array(x):
    """A copy of an array (so two returned gradients never share memory); numbers as they are."""
    return x.copy() if isinstance(x, np.ndarray) else x


def ensure_scalar(value, where: str):
    """Refuse a non-scalar output: its gradient is not defined (a Jacobian is)."""
    if np.ndim(value) != 0:
        raise SrcDiffError(f"{where}: the function returns a value of shape {np.shape(value)}, but a "
                           "gradient needs a scalar output",
                           hint="reduce it to a scalar (e.g. .sum() or .mean()), or differentiate one element")
    return value


def matmul_adjoint_x(g, x, y):
    """Adjoint of ``x @ y`` with respect to `x`, for any ndim (used when ndim is unknown)."""
    x, y = np.asarray(x), np.asarray(y)  # a Python seed 1.0 in their float dtype (float32 stays float32)
    g = np.asarray(g, dtype=np.result_type(g, x, y, 1.0) if isinstance(g, (int, float)) else None)
    if y.ndim == 1:
        gx = np.multiply.outer(g, y) if x.ndim > 1 else g * y
    elif x.ndim == 1:
        gx = (y @ g[..., None])[..., 0]
    else:
        gx = g @ np.swapaxes(y, -1, -2)
    return unbroadcast(gx, x)


def matmul_adjoint_y(g, x, y):
    """Adjoint of ``x @ y`` with respect to `y`, for any ndim."""
    x, y = np.asarray(x), np.asarray(y)
    g = np.asarray(g, dtype=np.result_type(g, x, y, 1.0) if isinstance(g, (int, float)) else None)
    if x.ndim == 1:
        gy = x[:, None] * g[..., None, :] if y.ndim > 1 else g * x
    elif y.ndim == 1:  # g has x's batch and row axes: contract them all
        gy = np.tensordot(g, x, axes=(list(range(g.ndim)), list(range(x.ndim - 1))))
    else:
        gy = np.swapaxes(x, -1, -2) @ g
    return unbroadcast(gy, y)


def dot_adjoint_x(g, x, y):
    """Adjoint of ``np.dot(x, y)`` with respect to `x` when ndim is not known in advance."""
    _check_dot(x, y)
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        return np.sum(g * y) if np.ndim(x) == 0 else g * y
    return matmul_adjoint_x(g, x, y)


def dot_adjoint_y(g, x, y):
    """Adjoint of ``np.dot(x, y)`` with respect to `y` when ndim is not known in advance."""
    _check_dot(x, y)
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        return np.sum(g * x) if np.ndim(y) == 0 else g * x
    return matmul_adjoint_y(g, x, y)


def _check_dot(x, y):
    if np.ndim(x) > 2 or np.ndim(y) > 2:
        raise SrcDiffError("np.dot of arrays with more than 2 dimensions has no adjoint rule",
                           hint="use np.matmul (@) or np.tensordot, whose batching is explicit")


def trace_adjoint(g, x, offset=0):
    """Adjoint of ``np.trace(x, offset)`` where x's number of axes is known only when run: `g`
    on the `offset` diagonal of x's first two axes (a stack's `g` along the axes after them)."""
    return np.multiply.outer(np.eye(np.shape(x)[0], np.shape(x)[1], k=offset), g)


def prod_adjoint(g, x, axis, keepdims):
    """Adjoint of ``np.prod(x, axis, keepdims)``: each element gets the product of the
    others (exclusive cumulative products from both ends), exact where `x` has zeros."""
    x = np.asarray(x) if np.asarray(x).dtype.kind == "f" else np.asarray(x, dtype=float)  # float32 stays
    if x.size == 0:  # the product of no elements is 1, whatever they are
        return np.zeros(x.shape, dtype=x.dtype)
    if not keepdims:
        g = np.expand_dims(g, tuple(range(x.ndim)) if axis is None else axis)
    flat, back = _grouped(x, axis)
    return g * back(_others(flat))


def prod_pairs(w, x, axis):
    """The derivative of ``prod_adjoint(1.0, x, axis, True)`` (the products of the others)
    along `w`, which is also its adjoint for `w`: element j gets the sum over i != j of
    ``w[i]`` times the product of the elements but i and j, in each product of `axis`.
    Exact where `x` has zeros (no division); O(n²) for a product of n elements."""
    x = np.asarray(x) if np.asarray(x).dtype.kind == "f" else np.asarray(x, dtype=float)  # float32 stays
    if x.size == 0:
        return np.zeros(x.shape, dtype=x.dtype)
    flat, back = _grouped(x, axis)
    weights, _ = _grouped(np.broadcast_to(w, x.shape), axis)
    eye = np.eye(flat.shape[-1], dtype=bool)
    rows = np.where(eye, 1.0, flat[..., None, :])  # row j: x with x[j] replaced by 1
    pairs = np.where(eye, 0.0, _others(rows))  # [j, i]: the product of all but x[i] and x[j]
    return back(np.sum(pairs * weights[..., None, :], axis=-1))


def _grouped(x, axis):
    """`x` with the axes `axis` reduces moved last and flattened into one, and its way back to `x`'s shape."""
    axes = tuple(range(x.ndim)) if axis is None else tuple(a % x.ndim for a in np.atleast_1d(axis))
    ends = tuple(range(x.ndim - len(axes), x.ndim))
    moved = np.moveaxis(x, axes, ends)
    flat = moved.reshape(moved.shape[: x.ndim - len(axes)] + (-1,))
    return flat, lambda r: np.moveaxis(np.reshape(r, moved.shape), ends, axes)


def _others(flat):
    """Along the last axis, the product of the other elements (exclusive cumulative products
    from both ends: exact where there are zeros)."""
    ones = np.ones(flat.shape[:-1] + (1,), dtype=flat.dtype)
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return before * after


def cholesky_adjoint(g, L):
    """Adjoint of ``L = np.linalg.cholesky(x)`` with respect to `x`.

    NumPy reads only the lower triangle of `x`, so this is the derivative of exactly that
    function: S = L^-T Phi(L^T g) L^-1, then Phi(S + S^T), where Phi keeps the lower
    triangle and halves the diagonal (zero above the diagonal).
    """
    return cholesky_factor_adjoint(g, L)  # (rules/triangular.py: by blocks for a large factor)


def cholesky_tangent(x_dot, L):
    """Tangent of ``L = np.linalg.cholesky(x)`` along `x_dot`.

    NumPy reads only the lower triangle of `x`, so `x_dot` stands for the symmetric matrix
    of its lower triangle, S; then dL = L Phi(L^-1 S L^-T), Phi as in `cholesky_adjoint`.
    """
    s = np.tril(x_dot) + _mT(np.tril(x_dot, -1))
    inv = lower_inverse(L)
    return L @ phi(inv @ s @ _mT(inv))


def _mT(m):
    return np.swapaxes(m, -1, -2)


def cholesky_adjoint_a(h, L):
    """The adjoint of ``cholesky_adjoint(a, L)`` for `a` (it is linear in a): h's way back."""
    inv = lower_inverse(L)
    s = phi(h)
    return L @ phi(inv @ (s + _mT(s)) @ _mT(inv))


def cholesky_adjoint_l(h, a, L):
    """The adjoint of ``cholesky_adjoint(a, L)`` for `L`, given h (the adjoint of its value)."""
    inv = lower_inverse(L)
    p = phi(_mT(L) @ a)
    s = phi(h)
    s = s + _mT(s)
    inv_bar = (p + _mT(p)) @ inv @ s  # S = inv.T @ p @ inv, with s the symmetric adjoint of S
    return -_mT(inv) @ inv_bar @ _mT(inv) + a @ _mT(phi(inv @ s @ _mT(inv)))


def cholesky_adjoint_dot(L_dot, a, L):
    """The derivative of ``cholesky_adjoint(a, L)`` along `L_dot` (a held fixed)."""
    inv = lower_inverse(L)
    inv_dot = -inv @ L_dot @ inv
    p = phi(_mT(L) @ a)
    s = _mT(inv_dot) @ p @ inv + _mT(inv) @ phi(_mT(L_dot) @ a) @ inv + _mT(inv) @ p @ inv_dot
    return phi(s + _mT(s))


def solve_adjoint_y(g, x, y):
    """Adjoint of ``np.linalg.solve(x, y)`` w.r.t. `y`, for 2-D `x` (ndim not known in advance)."""
    _check_solve(x, y)
    return np.linalg.solve(np.swapaxes(x, -1, -2), g)


def solve_adjoint_x(g, x, y, ans):
    """Adjoint of ``ans = np.linalg.solve(x, y)`` with respect to `x`."""
    y_bar = solve_adjoint_y(g, x, y)
    if np.ndim(y) == 1:
        return -np.outer(y_bar, ans)
    return -y_bar @ np.swapaxes(ans, -1, -2)


def _check_solve(x, y):
    if np.ndim(y) == 1 and np.ndim(x) != 2:
        raise SrcDiffError("np.linalg.solve of a stack of matrices with a 1-D right-hand side has no "
                           "adjoint rule", hint="give the right-hand side shape (..., M, 1)")


def _repeats(shape, index) -> bool:
    """Whether ``x[index] = ...`` writes some element of an array shaped `shape` twice."""
    count = np.zeros(shape, dtype=np.intp)
    np.add.at(count, index, 1)
    return bool(np.any(count > 1))


def set_item(x, index, v):
    """``x[index] = v`` on a copy of `x`: the functional form of a write into a fresh array.

    A floating value written into an integer array would be truncated (and its gradient
    lost), so that is refused.
    """
    if isinstance(x, list):  # the adjoint of a tuple of a number and an array: a new list
        position = list_position(x, index)
        return [v if i == position else item for i, item in enumerate(x)]
    if np.asarray(x).dtype.kind not in "fc" and np.asarray(v).dtype.kind in "fc":
        raise SrcDiffError(
            f"writing a floating value into an array of dtype {np.asarray(x).dtype} would truncate it "
            "(and lose its gradient)", hint="create the array with a floating dtype, e.g. np.zeros(n)")
    parts = index if isinstance(index, tuple) else (index,)
    if any(not isinstance(p, slice) and np.ndim(p) > 0 and np.asarray(p).dtype.kind in "iu" for p in parts) \
            and _repeats(np.shape(x), index):
        raise SrcDiffError("writing through an integer index array that repeats a position is not supported: "
                           "NumPy keeps only one of the values written there (`out[idx] += v` too), "
                           "so the others would get a gradient they do not have",
                           hint="to add every value, as np.add.at does, write "
                           "`out = out + np.eye(len(out))[idx].T @ v`; for distinct indices, write "
                           "one element at a time in a loop: `for k in range(len(idx)): out[idx[k]] = v[k]`")
    y = np.array(x, copy=True)
    y[index] = v
    return y


def index_add(base, index, value):
    """A copy of `base` with `value` added at ``base[*index]``, every repeated position adding again
    (as ``np.add.at``): the functional form of a scatter-add, which srcdiff differentiates.  `index`
    is the tuple (or list) of the index's parts, so ``x[idx]`` is ``(idx,)`` whatever `idx` holds."""
    if isinstance(base, list):  # the adjoint of a tuple of a number and an array: a new list
        first = index[0] if isinstance(index, (tuple, list)) and len(index) == 1 else index  # a slice: item by item
        return list_add(base, first if type(first) is slice else list_position(base, index), value)
    out, parts = np.array(base, dtype=np.result_type(base, value, 0.0), copy=True), index_parts(index)
    if all(type(p) is slice or type(p) is int for p in (parts if type(parts) is tuple else (parts,))):
        out[parts] += value  # slices and numbers reach each position once: no repeats to add again
        return out
    np.add.at(out, parts, value)
    return out


def index_read(a, index):
    """``a[*index]``, `index` the tuple (or list) of the index's parts (`index_add`'s adjoint)."""
    return a[_item(index)] if isinstance(a, list) else a[index_parts(index)]


def _item(index) -> int:
    (position,) = index  # a tuple's item: one constant position
    return position


def index_parts(index):
    """The index NumPy reads: ``x[t]`` comes as ``(t,)``; a tuple `t` (np.nonzero, ``(r, c)``) is x[*t]."""
    index = tuple(index)
    if len(index) == 1 and type(index[0]) is tuple:
        return index[0]
    return index


def zero_item(g, index):
    """A copy of the adjoint `g` with the positions a write overwrote set to zero (in g's
    floating dtype: a float32 adjoint stays float32); a list's (``preds = [0.0] * n``), an array."""
    if isinstance(g, list):  # an array, as tidied code makes it: a list added to it adds, never concatenates
        index = list_position(g, index)
        g = items_array(g)
        if isinstance(g, list):  # items of different shapes: a list, that item zero
            return [zeros_like(item) if i == index else item for i, item in enumerate(g)]
    g = np.array(g, dtype=np.result_type(g, 0.0), copy=True)
    g[index] = 0.0
    return g


def split_adjoint(g, pieces, axis):
    """Adjoint of ``np.split``: each piece's adjoint (0.0 for one nothing used; an array as it is) in place."""
    return np.concatenate([gi if type(gi) is np.ndarray and gi.shape == np.shape(p) and gi.dtype == (
        p.dtype if type(p) is np.ndarray else np.result_type(p)) else np.zeros(np.shape(p), np.result_type(p)) + gi
        for p, gi in zip(pieces, g)], axis)


def real_part(g, x):
    """Adjoint of ``np.real(x)``: g itself for a real x (a complex x is refused)."""
    if np.iscomplexobj(x):
        raise SrcDiffError("np.real, np.imag or np.angle of a complex value that depends on the differentiated "
                           "input: srcdiff does not differentiate complex values", hint="keep the computation real")
    return g


def refused(reason: str, filename: str, line: int, code: str, hint: str = ""):
    """Raise the refusal of a branch side srcdiff could not differentiate, once it is taken."""
    raise SrcDiffError(reason, Location(filename, line, code), hint)


def stop_gradient(x):
    """`x` itself, with zero derivative and tangent (``srcdiff.stop_gradient``, JAX's ``lax.stop_gradient``):
    its rule marks the value inactive; generated code keeps the call, so higher orders stop too."""
    return x


HELPERS = {
    **{f.__name__: f for f in (
        unbroadcast, select, select_whole, kink, kink_nan, held_still, tie, tie_nan, tie_still_nan, tied, any_equal,
        zeros_like, copy_array, ensure_scalar, matmul_adjoint_x, matmul_adjoint_y, dot_adjoint_x, dot_adjoint_y,
        trace_adjoint, prod_adjoint, prod_pairs, cholesky_adjoint, cholesky_tangent, cholesky_adjoint_a,
        cholesky_adjoint_l, cholesky_adjoint_dot, solve_adjoint_x, solve_adjoint_y, set_item, zero_item, index_add,
        index_read, split_adjoint, refused, real_part, stop_gradient, logistic)},
    **DECOMPOSITION_HELPERS,  # svd, eigh, qr (rules/numpy_decompositions.py), SciPy's LU (rules/lu_helpers.py)
    **LIST_HELPERS,  # a derivable gradient's list adjoints (rules/list_helpers.py)
    **LIST_EDIT_HELPERS,  # a list of indices changed in place: its new value (rules/list_edits.py)
    **CALCULUS_HELPERS,  # np.gradient, np.cumprod, np.interp (calculus_helpers.py), np.histogram, np.unique
    **JOIN_HELPERS,  # the adjoints of joins of lists and of tiles (rules/join_helpers.py)
    **GUARD_HELPERS,  # np.where(x == 0.0, ...): the guarded point (rules/point_guards.py)
    **SCAN_HELPERS, **WRITE_HELPERS,  # running extrema (scan_helpers.py), np.fill_diagonal's positions
    **FFT_HELPERS,  # parts of the Fourier transform of a real array (rules/fft_helpers.py)
    **TRIANGULAR_HELPERS, **SYMMETRIC_HELPERS,  # a Cholesky factor's inverse, solves; solve, inv, slogdet by one
    **SELECTION_HELPERS,  # np.where(c, g, 0.0) without a branch per element (rules/selections.py)
    **SORT_TIE_HELPERS,  # a sort's tie in a gradient differentiated again (rules/sort_ties.py)
}

#: Helpers that do more than compute a value (`ensure_scalar` raises): never moved or dropped.
EFFECTS = frozenset({"ensure_scalar", "refused", "computed_for_errors"})
