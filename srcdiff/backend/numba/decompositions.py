"""numba versions of the run-time helpers first-order gradients call for ``eigh``, ``svd``,
``qr`` (their tuple results' adjoints as tuples: tuple_adjoints.py), the singular values,
``eigvalsh``, the matrix norms (rules/decomposition_helpers.py), ``np.cumprod`` and
``np.gradient`` (rules/calculus_helpers.py).

The same formulas, for one matrix (2-D; a stack of matrices is refused at the line, as
before) and, for the calculus helpers, one axis of a 1-D array: the adjoint of the singular
values ``U diag(g) V^T``; of ``eigvalsh`` ``V diag(g) V^T`` folded onto the triangle NumPy
reads; of a matrix norm its direction times g; of ``cumprod`` the reversed cumulative sum of
``g * ans`` over x where x has no zero, else the products of the others, one element at a
time; of ``np.gradient`` the stencil's weights sent back to the elements they read.  Each
computes in float64 and returns its operand's float32 where the operand is float32.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core.errors import TypingError

from ...rules import calculus_helpers, decomposition_helpers
from .naming import made, overload


def _matrix(t) -> bool:
    return isinstance(t, types.Array) and t.ndim == 2 and isinstance(t.dtype, types.Float)


def _dtype(*operands):
    arrays = [t.dtype for t in operands if isinstance(t, types.Array)]
    return np.float32 if arrays and all(d == types.float32 for d in arrays) else np.float64


def singular_values_adjoint(g, x):
    return decomposition_helpers.singular_values_adjoint(g, x)


@overload(singular_values_adjoint)
def _singular_values_adjoint(g, x):
    if not (_matrix(x) and isinstance(g, types.Array) and g.ndim == 1):
        return None
    dtype = _dtype(x)

    def impl(g, x):
        u, _, vt = np.linalg.svd(x.astype(np.float64), False)
        k = min(x.shape[0], x.shape[1])
        left = np.ascontiguousarray(u[:, :k]) * np.asarray(g).astype(np.float64).reshape((1, -1))
        return (left @ np.ascontiguousarray(vt[:k, :])).astype(dtype)
    return impl


def eigvalsh_adjoint(g, x, UPLO="L"):  # noqa: N803  NumPy's name
    return decomposition_helpers.eigvalsh_adjoint(g, x, UPLO)


@njit(cache=True)
def _fold(s, lower):
    """The adjoint of the symmetric matrix eigh reads from one triangle of x."""
    both = s + s.T
    return np.diag(np.diag(s)) + (np.tril(both, -1) if lower else np.triu(both, 1))


@overload(eigvalsh_adjoint, prefer_literal=True)
def _eigvalsh_adjoint(g, x, UPLO="L"):  # noqa: N803
    uplo = getattr(UPLO, "literal_value", "L")
    if not (_matrix(x) and isinstance(g, types.Array) and g.ndim == 1) or uplo not in ("L", "U"):
        return None
    dtype, lower = _dtype(x), uplo == "L"

    def impl(g, x, UPLO="L"):  # noqa: N803
        a = x.astype(np.float64)
        _, v = np.linalg.eigh(np.ascontiguousarray(a if lower else a.T))  # (numba's eigh reads the lower triangle)
        s = (v * np.asarray(g).astype(np.float64).reshape((1, -1))) @ v.T
        return _fold(s, lower).astype(dtype)
    return impl


def matrix_norm_adjoint(g, x, ord, axis, keepdims):  # noqa: A002  NumPy's name
    return decomposition_helpers.matrix_norm_adjoint(g, x, ord, axis, keepdims)


@njit(cache=True)
def _sum_direction(y, rows, largest):
    """d norm(y, ord) / dy for ord = +-1 (columns' sums) or +-inf (rows' sums): ties split."""
    sums = np.abs(y).sum(axis=1) if rows else np.abs(y).sum(axis=0)
    pick = sums.max() if largest else sums.min()
    top = (sums == pick).astype(np.float64)
    top = top / top.sum()
    out = np.sign(y)
    for i in range(y.shape[0]):
        for j in range(y.shape[1]):
            out[i, j] *= top[i] if rows else top[j]
    return out


@overload(matrix_norm_adjoint, prefer_literal=True)
def _matrix_norm_adjoint(g, x, ord, axis, keepdims):  # noqa: A002
    if not _matrix(x) or not isinstance(axis, (types.NoneType, types.Omitted)):
        return None
    order = getattr(ord, "literal_value", None)
    if not isinstance(ord, (types.Literal, types.Float, types.Integer)):
        return None
    dtype = _dtype(x)
    number = "g" if isinstance(g, (types.Float, types.Integer)) else "g.reshape(-1)[0]"
    if order == "nuc":
        body = ("u, _, vt = np.linalg.svd(y, False)\n    k = min(y.shape)\n"
                "    d = np.ascontiguousarray(u[:, :k]) @ np.ascontiguousarray(vt[:k, :])\n")
    elif isinstance(order, str):
        raise TypingError(f"srcdiff's numba matrix norm takes ord 'nuc', 2, -2, 1, -1, inf or -inf, not {order!r}")
    else:
        body = ("if ord == 2 or ord == -2:\n"
                "        u, _, vt = np.linalg.svd(y, False)\n"
                "        i = 0 if ord == 2 else min(y.shape) - 1\n"
                "        d = np.outer(u[:, i], vt[i, :])\n"
                "    else:\n"
                "        d = sum_direction(y, ord == np.inf or ord == -np.inf, ord > 0)\n")
    text = (f"def impl(g, x, ord, axis, keepdims):\n"
            f"    y = x.astype(np.float64)\n"
            f"    {body}"
            f"    return ({number} * d).astype(DTYPE)\n")
    return made(text, sum_direction=_sum_direction, DTYPE=dtype)


def cumprod_adjoint(g, x, axis):
    return calculus_helpers.cumprod_adjoint(g, x, axis)


@njit(cache=True)
def cumprod_adjoint_row(g, x):
    n = x.shape[0]
    out = np.zeros(n)
    if np.all(x != 0.0):
        ans = np.cumprod(x)
        total = 0.0
        for i in range(n - 1, -1, -1):
            total += g[i] * ans[i]
            out[i] = total / x[i]
        return out
    for i in range(n):  # x_bar[i] = sum over j >= i of g[j] * prod over k <= j, k != i of x[k]
        before = 1.0
        for k in range(i):
            before *= x[k]
        running, total = before, 0.0
        for j in range(i, n):
            if j > i:
                running *= x[j]
            total += g[j] * running
        out[i] = total
    return out


@overload(cumprod_adjoint)
def _cumprod_adjoint_1d(g, x, axis):
    if not (isinstance(x, types.Array) and x.ndim == 1):
        return None
    dtype = _dtype(x, g)

    def impl(g, x, axis):
        xs = x.astype(np.float64)
        gs = np.broadcast_to(np.asarray(g).astype(np.float64), xs.shape)
        return cumprod_adjoint_row(np.ascontiguousarray(gs), xs).astype(dtype)
    return impl


def gradient_adjoint(g, spacing, axis, edge_order):
    return calculus_helpers.gradient_adjoint(g, spacing, axis, edge_order)


@njit(cache=True)
def _gradient_adjoint(g, h, edge_order):
    n = g.shape[0]
    out = np.zeros(n)
    for i in range(1, n - 1):  # the interior's central differences
        out[i + 1] += g[i] / (2.0 * h)
        out[i - 1] -= g[i] / (2.0 * h)
    first, last = g[0] / h, g[n - 1] / h
    if edge_order == 1:
        out[0] -= first
        out[1] += first
        out[n - 1] += last
        out[n - 2] -= last
    else:
        for k, weight in ((0, -1.5), (1, 2.0), (2, -0.5)):
            out[k] += weight * first
            out[n - 1 - k] -= weight * last
    return out


@overload(gradient_adjoint)
def _gradient_adjoint_1d(g, spacing, axis, edge_order):
    if isinstance(g, (types.Float, types.Integer)):  # the zero adjoint of a list item nothing used
        return lambda g, spacing, axis, edge_order: g
    if not (isinstance(g, types.Array) and g.ndim == 1):
        return None
    dtype = _dtype(g)
    return lambda g, spacing, axis, edge_order: _gradient_adjoint(
        np.asarray(g).astype(np.float64), float(spacing), edge_order).astype(dtype)


# ---- the decompositions' tuple results: g a tuple of parts, each an array or the 0.0 of a part never read ----

def _unused(part):
    return np.ndim(part) == 0 and part == 0


@overload(_unused)
def _unused_impl(part):
    if isinstance(part, (types.Float, types.Integer)):
        return lambda part: part == 0
    return lambda part: False


def _part(part, like):
    return np.zeros(np.shape(like)) + part


@overload(_part)
def _part_impl(part, like):
    if isinstance(part, (types.Float, types.Integer)):
        return lambda part, like: np.full(like.shape, float(part))
    return lambda part, like: np.ascontiguousarray(part).astype(np.float64)


@njit(cache=True)
def _gaps(values):
    """F[i, j] = 1 / (v_j - v_i) off the diagonal, 0 on it."""
    n = values.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                out[i, j] = 1.0 / (values[j] - values[i])
    return out


def eigh_adjoint(g, ans, UPLO="L"):  # noqa: N803
    return decomposition_helpers.eigh_adjoint(g, ans, UPLO)


@overload(eigh_adjoint, prefer_literal=True)
def _eigh_adjoint(g, ans, UPLO="L"):  # noqa: N803
    uplo = getattr(UPLO, "literal_value", "L")
    if not (isinstance(g, types.BaseTuple) and len(g) == 2 and isinstance(ans, types.BaseTuple) and len(ans) == 2
            and _matrix(ans[1])) or uplo not in ("L", "U"):
        return None
    dtype, lower = _dtype(ans[1]), uplo == "L"

    def impl(g, ans, UPLO="L"):  # noqa: N803
        w, v = ans[0].astype(np.float64), np.ascontiguousarray(ans[1]).astype(np.float64)
        inner = np.diag(_part(g[0], w))
        if not _unused(g[1]):  # eigenvalues alone have a derivative at repeated eigenvalues too
            inner = inner + _gaps(w) * (v.T @ _part(g[1], v))
        return _fold(v @ inner @ v.T, lower).astype(dtype)
    return impl


def svd_adjoint(g, ans, full_matrices=True):
    return decomposition_helpers.svd_adjoint(g, ans, full_matrices)


@overload(svd_adjoint)
def _svd_adjoint(g, ans, full_matrices=True):
    if not (isinstance(g, types.BaseTuple) and len(g) == 3 and isinstance(ans, types.BaseTuple) and len(ans) == 3
            and _matrix(ans[0]) and _matrix(ans[2])):
        return None
    dtype = _dtype(ans[0])

    def impl(g, ans, full_matrices=True):
        u, s = np.ascontiguousarray(ans[0]).astype(np.float64), ans[1].astype(np.float64)
        vt = np.ascontiguousarray(ans[2]).astype(np.float64)
        if full_matrices and u.shape[1] != vt.shape[0]:
            raise ValueError("the derivative of numpy.linalg.svd with full_matrices=True of a matrix that is not "
                             "square is not defined")
        gs = _part(g[1], s)
        if _unused(g[0]) and _unused(g[2]):  # singular values alone: defined at repeated ones too
            return (u @ np.diag(gs) @ vt).astype(dtype)
        gu, gvt = _part(g[0], u), _part(g[2], vt)
        f = _gaps(s * s)
        utgu, vtgv = u.T @ gu, vt @ gvt.T
        inner = (f * (utgu - utgu.T)) * s.reshape((1, -1)) + np.diag(gs) \
            + s.reshape((-1, 1)) * (f * (vtgv - vtgv.T))
        out = u @ inner @ vt + ((gu - u @ utgu) / s.reshape((1, -1))) @ vt \
            + u @ ((gvt - vtgv.T @ vt) / s.reshape((-1, 1)))
        return out.astype(dtype)
    return impl


def qr_adjoint(g, ans):
    return decomposition_helpers.qr_adjoint(g, ans)


@overload(qr_adjoint)
def _qr_adjoint(g, ans):
    if not (isinstance(g, types.BaseTuple) and len(g) == 2 and isinstance(ans, types.BaseTuple) and len(ans) == 2
            and _matrix(ans[0]) and _matrix(ans[1])):
        return None
    dtype = _dtype(ans[0])

    def impl(g, ans):
        q, r = np.ascontiguousarray(ans[0]).astype(np.float64), np.ascontiguousarray(ans[1]).astype(np.float64)
        if q.shape[1] != r.shape[0] or r.shape[0] != r.shape[1]:
            raise ValueError("the derivative of numpy.linalg.qr is implemented for matrices with at least as many "
                             "rows as columns, in mode='reduced'")
        gq, gr = _part(g[0], q), _part(g[1], r)
        m = r @ gr.T - gq.T @ q
        low = np.tril(m, -1)
        b = gq + q @ (low + low.T + np.diag(np.diag(m)))
        return np.ascontiguousarray(np.linalg.solve(r, np.ascontiguousarray(b.T)).T).astype(dtype)
    return impl


HELPERS = ("eigh_adjoint", "svd_adjoint", "qr_adjoint", "singular_values_adjoint", "eigvalsh_adjoint",
           "matrix_norm_adjoint", "cumprod_adjoint", "gradient_adjoint")
