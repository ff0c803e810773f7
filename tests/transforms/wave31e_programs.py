"""Programs of test_wave31e.py: two-operand ``np.einsum`` contractions that are matrix products
(backend/optimize/einsum_matmuls.py), in every orientation, batched, beside einsums that are not
(row dots, a trace, a list operand, three operands); and Cholesky pairs spelled with the factor's
transpose (backend/optimize/transposed_factors.py)."""

import math

import numpy as np
import scipy.linalg as sl


def attention(Q, K, V):
    """Scores 'id,jd->ij', a shifted softmax, outputs by ``@`` (wrt Q)."""
    S = np.einsum("id,jd->ij", Q, K) / math.sqrt(Q.shape[1])
    E = np.exp(S - np.max(S, axis=-1, keepdims=True))
    P = E / np.sum(E, axis=-1, keepdims=True)
    return 0.5 * np.sum((P @ V - 1.0) ** 2)


def batched_attention(Q, K, V):
    """'bqd,bkd->bqk' and 'bqk,bkv->bqv' over a leading batch axis (wrt K)."""
    S = np.einsum("bqd,bkd->bqk", Q, K)
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    P = E / E.sum(axis=-1, keepdims=True)
    return np.sum(np.sin(np.einsum("bqk,bkv->bqv", P, V)))


def orientations(A, B, x):
    """'ji,jk->ki' (the output transposed), 'i,ij->j' and 'ij,j->i' (vectors), 'ij,kj->ik' (wrt A)."""
    C = np.einsum("ji,jk->ki", A, B)
    u = np.einsum("i,ij->j", x, A)
    v = np.einsum("ij,j->i", A, u)
    D = np.einsum("ij,kj->ik", C, C)
    return np.sum(np.tanh(D)) + np.sum(v * v)


def batched_orientations(A, B):
    """'bji,bjk->bki' and 'bij,bkj->bik' (wrt A)."""
    C = np.einsum("bji,bjk->bki", A, B)
    return np.sum(np.einsum("bij,bkj->bik", C, A) ** 2)


def row_dots(W, X, Y, t):
    """A projection by einsum, row dots 'ik,ik->i', a logistic loss (wrt W)."""
    s = np.einsum("ik,ik->i", np.einsum("ij,jk->ik", X, W), Y)
    return np.sum(np.logaddexp(0.0, -t * s))


def not_products(A, B, W):
    """A trace 'ij,ji->', an axis summed over one operand 'ij,jk->i' and a list operand: einsums that
    stay einsums; three operands 'i,ij,j->', taken a pair at a time (wrt A)."""
    t = np.einsum("ij,ji->", A, B)
    r = np.einsum("ij,jk->i", A, B)
    q = np.einsum("i,ij,j->", r, W, r)
    L = np.einsum("ij,jk->ik", A, [[1.0, 2.0, 0.5], [3.0, -1.0, 2.0], [0.0, 1.0, 1.0]])
    return t * q + np.sum(L ** 2)


def _factor(A):
    return np.linalg.cholesky(A @ A.T + np.eye(A.shape[0]))


def scaled_pair(log_s, A, X):
    """The pair as ``solve_triangular(L.T, solve_triangular(L, X.T, lower=True), lower=False)``,
    a log determinant (wrt A)."""
    L = np.linalg.cholesky(A @ A.T + np.exp(log_s) * np.eye(A.shape[0]))
    W = sl.solve_triangular(L.T, sl.solve_triangular(L, X.T, lower=True), lower=False)
    return 0.5 * np.sum(X.T * W) + X.shape[0] * np.log(np.diag(L)).sum()


def upper_pair(A, b):
    """An upper factor U = L.T: ``trans='T'`` then the plain solve with U (wrt A)."""
    U = _factor(A).T
    x = sl.solve_triangular(U, sl.solve_triangular(U, b, lower=False, trans="T"), lower=False)
    return b @ x + np.sum(np.log(np.diag(U)))


def transposed_squares(A, X):
    """One solve with the transpose, ``trans=1``: L^-1 X^T, its squares summed (wrt A)."""
    L = _factor(A)
    Z = sl.solve_triangular(L.T, X.T, lower=False, trans=1)
    return np.sum(Z * Z) + 2.0 * np.sum(np.log(np.diag(L)))


def transposed_unit(A, X):
    """A unit-diagonal solve with the transpose: the flag kept (wrt A)."""
    L = _factor(A)
    Z = sl.solve_triangular(L.T, X.T, lower=False, unit_diagonal=True)
    return np.sum(np.cos(Z))


def _attention(rng):
    return rng.standard_normal((5, 3)), rng.standard_normal((4, 3)), rng.standard_normal((4, 2))


def _batched(rng):
    return rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 4, 2)), rng.standard_normal((2, 4, 3))


def _rows(rng):
    return (0.3 * rng.standard_normal((3, 3)), rng.standard_normal((6, 3)), rng.standard_normal((6, 3)),
            np.sign(rng.standard_normal(6)))


def _square(rng):
    return (rng.standard_normal((3, 3)) / np.sqrt(3),)


PROGRAMS = [
    ("attention", attention, _attention, 0),
    ("batched_attention", batched_attention, _batched, 1),
    ("orientations", orientations,
     lambda rng: (0.5 * rng.standard_normal((4, 3)), 0.5 * rng.standard_normal((4, 2)), rng.standard_normal(4)), 0),
    ("batched_orientations", batched_orientations,
     lambda rng: (rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 2))), 0),
    ("row_dots", row_dots, _rows, 0),
    ("not_products", not_products,
     lambda rng: (rng.standard_normal((3, 3)), rng.standard_normal((3, 3)), rng.standard_normal((3, 3))), 0),
    ("scaled_pair", scaled_pair, lambda rng: (-0.3,) + _square(rng) + (rng.standard_normal((7, 3)),), 1),
    ("upper_pair", upper_pair, lambda rng: _square(rng) + (rng.standard_normal(3),), 0),
    ("transposed_squares", transposed_squares, lambda rng: _square(rng) + (rng.standard_normal((7, 3)),), 0),
    ("transposed_unit", transposed_unit, lambda rng: _square(rng) + (rng.standard_normal((7, 3)),), 0),
]
