"""Wave 34h: NumPy's contractions and linear algebra the way users write them (test_wave34h.py):
np.einsum with several subscripts, ellipsis, traces and repeated indices, np.tensordot, np.outer,
np.kron, np.inner, and np.linalg (det, slogdet, inv, solve, eigh, svd, norm with ord / axis,
matrix_power, cholesky, qr, pinv).

Each row is ``(name, func, make_args(rng), wrt)``.
"""

from __future__ import annotations

import numpy as np

# ---- einsum ----


def einsum_bilinear(x, A):
    return np.einsum("i,ij,j->", x, A, x)


def einsum_batch_matmul(W, X):
    Y = np.einsum("bij,bjk->bik", W, X)
    return np.sum(Y ** 2)


def einsum_trace(M):
    return np.einsum("ii", M) + 0.5 * np.einsum("ij,ji->", M, M)


def einsum_ellipsis(T, v):
    y = np.einsum("...i,i->...", T, v)
    return np.sum(np.tanh(y))


def einsum_diag_extract(M):
    d = np.einsum("ii->i", M)
    return np.sum(np.exp(0.3 * d))


def einsum_outer_implicit(a, b):
    return np.sum(np.sin(np.einsum("i,j", a, b)))


def tensordot_axes(A, B):
    C = np.tensordot(A, B, axes=([1, 2], [0, 1]))
    return np.sum(C ** 2)


def tensordot_int_axes(A, B):
    return np.sum(np.tensordot(A, B, axes=1) ** 2) + np.tensordot(A, A, axes=2)


def outer_gram(x):
    G = np.outer(x, x) + np.eye(x.size)
    return np.sum(np.log(np.diag(G))) + np.sum(G * np.outer(np.arange(x.size), np.ones(x.size)))


def kron_penalty(a, b):
    K = np.kron(a, b)
    return np.sum(K ** 2) + np.sum(np.kron(np.eye(2), a) * 0.1)


def inner_cosine(u, v):
    return np.inner(u, v) / np.sqrt(np.inner(u, u) * np.inner(v, v))


def inner_matrix(A, x):
    return np.sum(np.inner(A, x) ** 2)


# ---- np.linalg ----


def _spd(x, n):
    L = np.reshape(x, (n, n))
    return L @ L.T + n * np.eye(n)


def det_logdet(x):
    S = _spd(x, 3)
    return np.log(np.linalg.det(S))


def slogdet_gauss_nll(x, y):
    S = _spd(x, 3)
    sign, logdet = np.linalg.slogdet(S)
    return 0.5 * logdet + 0.5 * y @ np.linalg.solve(S, y)


def inv_quadratic(x, y):
    S = _spd(x, 3)
    return y @ np.linalg.inv(S) @ y + np.trace(np.linalg.inv(S))


def solve_matrix_rhs(A, B):
    M = A + 4.0 * np.eye(A.shape[0])
    X = np.linalg.solve(M, B)
    return np.sum(X ** 2)


def eigh_top(x):
    S = _spd(x, 3)
    w, V = np.linalg.eigh(S)
    return w[-1] + 0.1 * np.sum(w ** 2)


def eigvalsh_spread(x):
    w = np.linalg.eigvalsh(_spd(x, 3))
    return np.log(w.max()) - np.log(w.min())


def svd_nuclear(A):
    s = np.linalg.svd(A, compute_uv=False)
    return np.sum(s)


def svd_lowrank_error(A):
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return s[0] ** 2 / np.sum(s ** 2)


def norm_ord_axis(X):
    return np.sum(np.linalg.norm(X, axis=1)) + np.linalg.norm(X, ord="fro") + np.linalg.norm(X[0], ord=1.5)


def norm_inf_and_1(x, M):
    return np.linalg.norm(x, ord=3) + np.linalg.norm(M @ x, 2) ** 2


def norm_spectral(A):
    return np.linalg.norm(A, ord=2)


def matrix_power_chain(A):
    P = np.linalg.matrix_power(0.4 * A, 3)
    return np.sum(P ** 2) + np.trace(np.linalg.matrix_power(A, 2))


def cholesky_logdet(x, y):
    S = _spd(x, 3)
    L = np.linalg.cholesky(S)
    z = np.linalg.solve(L, y)
    return np.sum(np.log(np.diag(L))) + 0.5 * z @ z


def qr_projection(A, y):
    Q, R = np.linalg.qr(A)
    r = y - Q @ (Q.T @ y)
    return r @ r + np.sum(np.log(np.abs(np.diag(R))))


def pinv_smoother(A, y):
    return np.sum((A @ (np.linalg.pinv(A) @ y) - y) ** 2) + np.sum(np.linalg.pinv(A) ** 2)


def _spd_arg(rng, n=3):
    return rng.normal(size=n * n) * 0.6


PROGRAMS = [
    ("einsum_bilinear", einsum_bilinear, lambda r: [r.normal(size=4), r.normal(size=(4, 4))], 0),
    ("einsum_bilinear_A", einsum_bilinear, lambda r: [r.normal(size=4), r.normal(size=(4, 4))], 1),
    ("einsum_batch_matmul", einsum_batch_matmul, lambda r: [r.normal(size=(2, 3, 3)), r.normal(size=(2, 3, 2))], 0),
    ("einsum_trace", einsum_trace, lambda r: [r.normal(size=(3, 3))], 0),
    ("einsum_ellipsis", einsum_ellipsis, lambda r: [r.normal(size=(2, 3, 4)), r.normal(size=4)], 1),
    ("einsum_ellipsis_T", einsum_ellipsis, lambda r: [r.normal(size=(2, 3, 4)), r.normal(size=4)], 0),
    ("einsum_diag_extract", einsum_diag_extract, lambda r: [r.normal(size=(4, 4))], 0),
    ("einsum_outer_implicit", einsum_outer_implicit, lambda r: [r.normal(size=3), r.normal(size=4)], 0),
    ("tensordot_axes", tensordot_axes, lambda r: [r.normal(size=(2, 3, 4)), r.normal(size=(3, 4, 2))], 0),
    ("tensordot_int_axes", tensordot_int_axes, lambda r: [r.normal(size=(3, 3)), r.normal(size=(3, 2))], 0),
    ("outer_gram", outer_gram, lambda r: [r.normal(size=4)], 0),
    ("kron_penalty", kron_penalty, lambda r: [r.normal(size=(2, 2)), r.normal(size=(2, 3))], 0),
    ("inner_cosine", inner_cosine, lambda r: [r.normal(size=5), r.normal(size=5)], 0),
    ("inner_matrix", inner_matrix, lambda r: [r.normal(size=(3, 4)), r.normal(size=4)], 0),
    ("det_logdet", det_logdet, lambda r: [_spd_arg(r)], 0),
    ("slogdet_gauss_nll", slogdet_gauss_nll, lambda r: [_spd_arg(r), r.normal(size=3)], 0),
    ("inv_quadratic", inv_quadratic, lambda r: [_spd_arg(r), r.normal(size=3)], 0),
    ("solve_matrix_rhs", solve_matrix_rhs, lambda r: [r.normal(size=(3, 3)), r.normal(size=(3, 2))], 0),
    ("eigh_top", eigh_top, lambda r: [_spd_arg(r)], 0),
    ("eigvalsh_spread", eigvalsh_spread, lambda r: [_spd_arg(r)], 0),
    ("svd_nuclear", svd_nuclear, lambda r: [r.normal(size=(3, 4))], 0),
    ("svd_lowrank_error", svd_lowrank_error, lambda r: [r.normal(size=(4, 3))], 0),
    ("norm_ord_axis", norm_ord_axis, lambda r: [r.normal(size=(3, 4))], 0),
    ("norm_inf_and_1", norm_inf_and_1, lambda r: [r.normal(size=4), r.normal(size=(3, 4))], 0),
    ("norm_spectral", norm_spectral, lambda r: [r.normal(size=(3, 3))], 0),
    ("matrix_power_chain", matrix_power_chain, lambda r: [r.normal(size=(3, 3))], 0),
    ("cholesky_logdet", cholesky_logdet, lambda r: [_spd_arg(r), r.normal(size=3)], 0),
    ("qr_projection", qr_projection, lambda r: [r.normal(size=(5, 3)), r.normal(size=5)], 0),
    ("pinv_smoother", pinv_smoother, lambda r: [r.normal(size=(4, 3)), r.normal(size=4)], 0),
]
