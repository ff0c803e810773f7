"""The helpers first-order gradients call for the matrix decompositions (``np.linalg.svd``,
``eigh``, ``qr``) and the matrix norms built on them.

Each works on one matrix or on a stack ``(..., M, N)`` (transposes swap the last two axes
only).  A tuple result's adjoint ``g`` is the list of its parts' adjoints, 0.0 for a part the
program never read.  A gradient srcdiff differentiates again does not call these: it spells
the same formulas in primitives that have rules (rules/numpy_decompositions.py, `derivable`).

The formulas are the textbook ones for real matrices with distinct eigenvalues / singular
values (and, for the thin SVD, full rank); at a degenerate spectrum the eigenvectors are not
differentiable and the results are inf or NaN, never a silent finite number.
"""

from __future__ import annotations

import numpy as np

from ..errors import SrcDiffError
from .lu_helpers import LU_HELPERS


def _mT(m):
    return np.swapaxes(m, -1, -2)


def _part(g, like):
    """A tuple result's part adjoint as an array shaped like the part (0.0: never read)."""
    return np.zeros(np.shape(like), dtype=np.result_type(like)) + g


def _unused(g) -> bool:
    """A tuple part's adjoint that is the 0.0 of a part the program never read."""
    return np.ndim(g) == 0 and g == 0


def _gaps(values, squared: bool):
    """F[..., i, j] = 1 / (v_j - v_i) off the diagonal, 0 on it (v squared for the SVD)."""
    v = values * values if squared else values
    eye = np.eye(np.shape(v)[-1], dtype=np.result_type(v))
    return 1.0 / (v[..., None, :] - v[..., :, None] + eye) - eye


def _symmetric(x, uplo):
    """The symmetric matrix NumPy's eigh reads from the `uplo` triangle of `x`."""
    if uplo == "L":
        return np.tril(x) + _mT(np.tril(x, -1))
    return np.triu(x) + _mT(np.triu(x, 1))


def _triangle_adjoint(s, uplo):
    """The adjoint of `_symmetric` (the function reads one triangle): s's diagonal, and each
    read entry below (above) it gets both s_ij and s_ji."""
    eye = np.eye(np.shape(s)[-1], dtype=np.result_type(s))
    both = s + _mT(s)
    return eye * s + (np.tril(both, -1) if uplo == "L" else np.triu(both, 1))


def check_uplo(uplo):
    if uplo not in ("L", "U"):
        raise SrcDiffError(f"numpy.linalg.eigh with UPLO={uplo!r}: NumPy reads 'L' or 'U'")


def eigh_adjoint(g, ans, UPLO="L"):
    """Adjoint of ``w, v = np.linalg.eigh(x, UPLO)`` with respect to `x` (only the `UPLO`
    triangle of `x` is read): V (diag(gw) + F * (V^T gv)) V^T folded onto that triangle."""
    w, v = ans
    gw, gv = _part(g[0], w), _part(g[1], v)
    eye = np.eye(np.shape(w)[-1], dtype=np.result_type(w))
    inner = eye * gw[..., None, :]
    if not _unused(g[1]):  # eigenvalues alone have a derivative at repeated eigenvalues too
        inner = inner + _gaps(w, False) * (_mT(v) @ gv)
    return _triangle_adjoint(v @ inner @ _mT(v), UPLO)


def eigh_tangent(x_dot, ans, UPLO="L"):
    """Tangent ``(w_dot, v_dot)`` of ``np.linalg.eigh(x, UPLO)`` along `x_dot`."""
    w, v = ans
    p = _mT(v) @ _symmetric(x_dot, UPLO) @ v
    return np.diagonal(p, axis1=-2, axis2=-1), v @ (_gaps(w, False) * p)


def eigvalsh_adjoint(g, x, UPLO="L"):
    """Adjoint of ``np.linalg.eigvalsh(x, UPLO)``: V diag(g) V^T on the read triangle."""
    w, v = np.linalg.eigh(x, UPLO)
    return eigh_adjoint([g, 0.0], (w, v), UPLO)


def eigvalsh_tangent(x_dot, x, UPLO="L"):
    """Tangent of ``np.linalg.eigvalsh(x, UPLO)`` along `x_dot`: diag(V^T dX V)."""
    return eigh_tangent(x_dot, np.linalg.eigh(x, UPLO), UPLO)[0]


def _check_thin(u, vt, full_matrices):
    if full_matrices and np.shape(u)[-1] != np.shape(vt)[-2]:
        raise SrcDiffError("the derivative of numpy.linalg.svd with full_matrices=True of a matrix that is not "
                           "square is not defined (the extra singular vectors are not unique)",
                           hint="call np.linalg.svd(x, full_matrices=False)")


def _nonzero(s, like):
    """The singular values `s`, NaN where one is 0 to rounding (NumPy's matrix_rank tolerance):
    the thin SVD's vectors divide by them, and 1/s of a rounding error's 1e-16 would give
    a finite number that is noise, not the derivative (which needs full rank)."""
    tol = np.max(s, axis=-1, keepdims=True) * max(np.shape(like)[-2:]) * np.finfo(np.result_type(s, 0.0)).eps
    return np.where(s > tol, s, np.nan)


def svd_adjoint(g, ans, full_matrices=True):
    """Adjoint of ``u, s, vt = np.linalg.svd(x, full_matrices=False)`` with respect to `x`."""
    u, s, vt = ans
    _check_thin(u, vt, full_matrices)
    gu, gs, gvt = _part(g[0], u), _part(g[1], s), _part(g[2], vt)
    eye = np.eye(np.shape(s)[-1], dtype=np.result_type(s))
    if _unused(g[0]) and _unused(g[2]):  # singular values alone: defined at repeated ones too
        return u @ (eye * gs[..., :, None]) @ vt
    f = _gaps(s, True)
    utgu, vtgv = _mT(u) @ gu, vt @ _mT(gvt)
    inner = (f * (utgu - _mT(utgu))) * s[..., None, :] + eye * gs[..., :, None] \
        + s[..., :, None] * (f * (vtgv - _mT(vtgv)))
    # the parts of gu (gvt) outside the span of u (v): zero for a square matrix
    d = _nonzero(s, gu)
    return u @ inner @ vt + ((gu - u @ utgu) / d[..., None, :]) @ vt + u @ ((gvt - _mT(vtgv) @ vt) / d[..., :, None])


def svd_tangent(x_dot, ans, full_matrices=True):
    """Tangent ``(u_dot, s_dot, vt_dot)`` of the thin ``np.linalg.svd(x)`` along `x_dot`."""
    u, s, vt = ans
    _check_thin(u, vt, full_matrices)
    v = _mT(vt)
    f = _gaps(s, True)
    p = _mT(u) @ x_dot @ v
    d = _nonzero(s, x_dot)
    u_dot = u @ (f * (p * s[..., None, :] + s[..., :, None] * _mT(p))) \
        + ((x_dot @ v - u @ p) / d[..., None, :])
    v_dot = v @ (f * (s[..., :, None] * p + _mT(p) * s[..., None, :])) \
        + ((_mT(x_dot) @ u - v @ _mT(p)) / d[..., None, :])
    return u_dot, np.diagonal(p, axis1=-2, axis2=-1), _mT(v_dot)


def singular_values_adjoint(g, x):
    """Adjoint of ``np.linalg.svd(x, compute_uv=False)``: U diag(g) V^T."""
    u, _, vt = np.linalg.svd(x, full_matrices=False)
    return (u * g[..., None, :]) @ vt


def singular_values_tangent(x_dot, x):
    """Tangent of ``np.linalg.svd(x, compute_uv=False)`` along `x_dot`: diag(U^T dX V)."""
    u, _, vt = np.linalg.svd(x, full_matrices=False)
    return np.diagonal(_mT(u) @ x_dot @ _mT(vt), axis1=-2, axis2=-1)


def qr_adjoint(g, ans):
    """Adjoint of ``q, r = np.linalg.qr(x)`` (reduced, M >= N, full rank) with respect to `x`."""
    q, r = ans
    _check_qr(q, r)
    gq, gr = _part(g[0], q), _part(g[1], r)
    m = r @ _mT(gr) - _mT(gq) @ q
    b = gq + q @ _copyltu(m)
    return _mT(np.linalg.solve(r, _mT(b)))


def qr_tangent(x_dot, ans):
    """Tangent ``(q_dot, r_dot)`` of the reduced ``np.linalg.qr(x)`` (M >= N) along `x_dot`."""
    q, r = ans
    _check_qr(q, r)
    c = _mT(np.linalg.solve(_mT(r), _mT(x_dot)))  # x_dot @ inv(r)
    qtc = _mT(q) @ c
    low = np.tril(qtc, -1)
    omega = low - _mT(low)  # q^T q_dot, antisymmetric
    r_dot = (qtc - omega) @ r
    return c - q @ qtc + q @ omega, r_dot


def _copyltu(m):
    """The lower triangle of `m` mirrored above the diagonal (symmetric)."""
    return np.tril(m, -1) + _mT(np.tril(m, -1)) + np.eye(np.shape(m)[-1], dtype=np.result_type(m)) * m


def _check_qr(q, r):
    if np.shape(q)[-1] != np.shape(r)[-2] or np.shape(r)[-2] != np.shape(r)[-1]:
        raise SrcDiffError("the derivative of numpy.linalg.qr is implemented for matrices with at least as many "
                           "rows as columns, in mode='reduced'",
                           hint="differentiate qr of the transpose, or use np.linalg.svd")


def _matrix_axes(axis):
    return (-2, -1) if axis is None else tuple(axis)


def matrix_norm_direction(y, ord):
    """d norm(y, ord) / d y over the last two axes of `y` (ties split, as np.max's)."""
    if ord in ("nuc", 2, -2):
        u, _, vt = np.linalg.svd(y, full_matrices=False)
        if ord == "nuc":
            return u @ vt
        i = 0 if ord == 2 else np.shape(vt)[-2] - 1  # singular values come largest first
        return u[..., :, i:i + 1] @ vt[..., i:i + 1, :]
    rows = ord in (np.inf, -np.inf)
    sums = np.sum(np.abs(y), axis=-1 if rows else -2, keepdims=True)
    pick = np.max if ord > 0 else np.min
    top = sums == pick(sums, axis=-2 if rows else -1, keepdims=True)
    return np.sign(y) * top / np.sum(top, axis=-2 if rows else -1, keepdims=True)


def matrix_norm_adjoint(g, x, ord, axis, keepdims):
    """Adjoint of the matrix norm ``np.linalg.norm(x, ord, axis)`` (axis None or a pair)."""
    axes = _matrix_axes(axis)
    if keepdims:
        g = np.squeeze(g, axis=axes)
    y = np.moveaxis(x, axes, (-2, -1))
    x_bar = np.asarray(g)[..., None, None] * matrix_norm_direction(y, ord)
    return np.moveaxis(x_bar.astype(np.result_type(x, np.float32), copy=False), (-2, -1), axes)


def matrix_norm_tangent(x_dot, x, ord, axis, keepdims):
    """Tangent of the matrix norm ``np.linalg.norm(x, ord, axis)`` along `x_dot`."""
    axes = _matrix_axes(axis)
    y, y_dot = np.moveaxis(x, axes, (-2, -1)), np.moveaxis(x_dot, axes, (-2, -1))
    t = np.sum(matrix_norm_direction(y, ord) * y_dot, axis=(-2, -1))
    return np.expand_dims(t, tuple(a % np.ndim(x) for a in axes)) if keepdims else t


def pinv_adjoint(h, p, x):
    """Adjoint of ``p = np.linalg.pinv(x)`` for `x` given p's adjoint `h` (constant rank)."""
    pt = _mT(p)
    inner = -p @ _mT(h) @ p + p @ pt @ h - p @ pt @ h @ x @ p + h @ pt @ p - p @ x @ h @ pt @ p
    return _mT(inner)


def pinv_tangent(x_dot, p, x):
    """Tangent of ``p = np.linalg.pinv(x)`` along `x_dot` (constant rank)."""
    pt, dt = _mT(p), _mT(x_dot)
    return -p @ x_dot @ p + p @ pt @ dt - p @ pt @ dt @ x @ p + dt @ pt @ p - p @ x @ dt @ pt @ p


def _column(b):
    return b[..., None] if np.ndim(b) == 1 else b


def lstsq_adjoint_x(g, x, y, ans):
    """Adjoint of ``sol, res, rank, s = np.linalg.lstsq(x, y)`` for the matrix `x`: through the
    solution pinv(x) @ y, the residuals sum((y - x sol)^2) and the singular values."""
    sol, res = _column(ans[0]), ans[1]
    g0 = _column(_part(g[0], ans[0]))
    x_bar = pinv_adjoint(g0 @ _mT(_column(y)), np.linalg.pinv(x), x)
    if not _unused(g[1]) and np.size(res):
        r = _column(y) - x @ sol
        x_bar = x_bar - 2.0 * (r * np.reshape(g[1], (1, -1))) @ _mT(sol)
    if not _unused(g[3]):
        x_bar = x_bar + singular_values_adjoint(_part(g[3], ans[3]), x)
    return x_bar


def lstsq_adjoint_y(g, x, y, ans):
    """Adjoint of ``np.linalg.lstsq(x, y)`` for the right-hand side `y`."""
    sol, res = _column(ans[0]), ans[1]
    y_bar = _mT(np.linalg.pinv(x)) @ _column(_part(g[0], ans[0]))
    if not _unused(g[1]) and np.size(res):
        y_bar = y_bar + 2.0 * (_column(y) - x @ sol) * np.reshape(g[1], (1, -1))
    return np.reshape(y_bar, np.shape(y))


def lstsq_tangent(x_dot, y_dot, x, y, ans):
    """The part of the tangent ``(sol_dot, res_dot, 0, s_dot)`` of ``np.linalg.lstsq(x, y)``
    that `x_dot` or `y_dot` makes (the other is 0.0), as a 1-D object array: forward mode adds
    the two operands' parts with ``+``, which adds object arrays item by item (tuples would be
    concatenated), and the sum is read by index or unpacked like the tuple."""
    parts = _lstsq_tangent(x_dot, y_dot, x, y, ans)
    out = np.empty(len(parts), dtype=object)
    for i, part in enumerate(parts):
        out[i] = part
    return out


def _lstsq_tangent(x_dot, y_dot, x, y, ans):
    sol, res = _column(ans[0]), ans[1]
    p = np.linalg.pinv(x)
    x_dot, y_dot = _part(x_dot, x), _column(_part(y_dot, y))
    sol_dot = pinv_tangent(x_dot, p, x) @ _column(y) + p @ y_dot
    res_dot = np.zeros(np.shape(res), dtype=np.result_type(res))
    if np.size(res):  # x^T r = 0 at the solution, so the solution's own motion drops out
        res_dot = res_dot + 2.0 * np.sum((_column(y) - x @ sol) * (y_dot - x_dot @ sol), axis=0)
    return np.reshape(sol_dot, np.shape(ans[0])), res_dot, 0, singular_values_tangent(x_dot, x)


def _real_root(ans):
    if np.iscomplexobj(ans):
        raise SrcDiffError("scipy.linalg.sqrtm of this matrix is complex (a negative eigenvalue), and srcdiff "
                           "differentiates real functions only", hint="take the root of a positive definite matrix")


def sqrtm_adjoint(g, ans):
    """Adjoint of ``ans = scipy.linalg.sqrtm(x)``: ans dX + dX ans = dA, so the adjoint solves
    ans^T G + G ans^T = g (a Sylvester equation)."""
    import scipy.linalg  # only a gradient of a function that called SciPy gets here

    _real_root(ans)
    return scipy.linalg.solve_sylvester(_mT(ans), _mT(ans), g)


def sqrtm_tangent(x_dot, ans):
    """Tangent of ``ans = scipy.linalg.sqrtm(x)`` along `x_dot`: ans E + E ans = x_dot."""
    import scipy.linalg

    _real_root(ans)
    return scipy.linalg.solve_sylvester(ans, ans, x_dot)


def _cofactor_parts(x):
    """``x = U diag(s) V^T`` (float64), ``det(U) det(V)`` and ``P[i, j]``, the product of the
    singular values other than the i-th and the j-th (P[i, i]: all but the i-th)."""
    u, s, vt = np.linalg.svd(np.asarray(x, dtype=np.float64))
    n = s.shape[-1]
    sign = np.linalg.det(u) * np.linalg.det(vt)
    eye = np.eye(n, dtype=bool)
    left_out = eye[:, None, :] | eye[None, :, :]  # [i, j, m]: m is i or j
    others = np.prod(np.where(left_out, 1.0, s[..., None, None, :]), axis=-1)
    return u, vt, sign, others


def cofactor(x):
    """The cofactor matrix of the square matrix (or stack) `x`, the transposed adjugate: the
    gradient of ``np.linalg.det``, ``det(x) inv(x).T`` where `x` is invertible and exact where it
    is singular too (from the SVD: ``det(U) det(V) U diag(prod of the other s) V^T``)."""
    if getattr(x, "dtype", None) is np.dtype(object):  # sympy values (srcdiff.check): the adjugate, exactly
        from .sympy_forms import cofactor as adjugate_transposed
        return adjugate_transposed(x)
    u, vt, sign, others = _cofactor_parts(x)
    diagonal = np.diagonal(others, axis1=-2, axis2=-1)
    out = sign[..., None, None] * (u * diagonal[..., None, :]) @ vt
    return out.astype(np.result_type(x, np.float32), copy=False)


def cofactor_derivative(x, h):
    """The derivative of `cofactor` at `x` along `h`, at any `x` (singular too).  With
    ``K = U^T h V`` and ``D[i, i] = sum over k != i of P[i, k] K[k, k]``, ``D[i, j] = -P[i, j] K[j, i]``
    (the cofactors of a diagonal matrix, moved), it is ``det(U) det(V) U D V^T``.  The map is its
    own adjoint (P is symmetric), so it is also the adjoint of `cofactor` applied to ``g``."""
    u, vt, sign, others = _cofactor_parts(x)
    k = np.swapaxes(u, -1, -2) @ np.asarray(h, dtype=np.float64) @ np.swapaxes(vt, -1, -2)
    n = others.shape[-1]
    eye = np.eye(n, dtype=bool)
    off = np.where(eye, 0.0, others)
    d = -off * np.swapaxes(k, -1, -2) + (off @ np.diagonal(k, axis1=-2, axis2=-1)[..., None]) * eye
    out = sign[..., None, None] * (u @ d @ vt)
    return out.astype(np.result_type(x, h, np.float32), copy=False)


DECOMPOSITION_HELPERS = {**{f.__name__: f for f in (cofactor, cofactor_derivative,
    eigh_adjoint, eigh_tangent, eigvalsh_adjoint, eigvalsh_tangent, svd_adjoint, svd_tangent,
    singular_values_adjoint, singular_values_tangent, qr_adjoint, qr_tangent, matrix_norm_adjoint,
    matrix_norm_tangent, pinv_adjoint, pinv_tangent, lstsq_adjoint_x, lstsq_adjoint_y, lstsq_tangent,
    sqrtm_adjoint, sqrtm_tangent)},
    **LU_HELPERS}  # scipy.linalg.lu, lu_factor, lu_solve (rules/lu_helpers.py)
