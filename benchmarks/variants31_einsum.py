"""Variants written with ``np.einsum`` after wave 31's einsum work on attention_einsum (issue 26),
each with a careful hand-written gradient ``NAME_grad``: batched attention ('bqd,bkd->bqk' and
'bqk,bkv->bqv'), a pairwise score by row dots ('ij,ij->i') and a bilinear form of three operands
('bi,ij,bj->b').  The pass (backend/optimize/einsum_matmuls.py) was written reading
attention_einsum's generated code only; these were measured, not tuned on; bilinear_einsum
(three operands: no matrix product) was held out.  variants.py registers them.
"""

import math

import numpy as np


def batched_attention(Q, K, V):
    """Softmax attention over a batch of sequences, scores and outputs by einsum (wrt Q and K)."""
    S = np.einsum("bqd,bkd->bqk", Q, K) / math.sqrt(Q.shape[-1])
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    P = E / E.sum(axis=-1, keepdims=True)
    O = np.einsum("bqk,bkv->bqv", P, V)
    return 0.5 * np.sum(O * O)


def batched_attention_grad(Q, K, V):
    scale = 1.0 / math.sqrt(Q.shape[-1])
    S = (Q @ np.swapaxes(K, -1, -2)) * scale
    P = np.exp(S - S.max(axis=-1, keepdims=True))
    P /= P.sum(axis=-1, keepdims=True)
    P_bar = (P @ V) @ np.swapaxes(V, -1, -2)
    S_bar = P * (P_bar - np.sum(P_bar * P, axis=-1, keepdims=True)) * scale
    return S_bar @ K, np.swapaxes(S_bar, -1, -2) @ Q


def batched_args(b=8, n=32, d=16, seed=316):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((b, n, d)), rng.standard_normal((b, n, d)), rng.standard_normal((b, n, d)))


def row_dot_logistic(W, X, Y, t):
    """A logistic loss of row-wise scores x_i^T W y_i, the projection by einsum and the scores
    by row dots (wrt W)."""
    Z = np.einsum("ij,jk->ik", X, W)
    s = np.einsum("ik,ik->i", Z, Y)
    return np.sum(np.logaddexp(0.0, -t * s))


def row_dot_logistic_grad(W, X, Y, t):
    s = np.sum((X @ W) * Y, axis=1)
    s_bar = -t / (1.0 + np.exp(t * s))
    return X.T @ (s_bar[:, None] * Y)


def row_dot_args(n=2000, d=30, seed=317):
    rng = np.random.default_rng(seed)
    X, Y = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    return 0.1 * rng.standard_normal((d, d)), X, Y, np.sign(rng.standard_normal(n))


def bilinear_einsum(W, X, Y):
    """A squared bilinear form x_b^T W y_b in one three-operand einsum (wrt W)."""
    f = np.einsum("bi,ij,bj->b", X, W, Y)
    return 0.5 * np.sum((f - 1.0) ** 2)


def bilinear_einsum_grad(W, X, Y):
    r = np.sum((X @ W) * Y, axis=1) - 1.0
    return X.T @ (r[:, None] * Y)


def bilinear_args(n=2000, d=30, seed=318):
    rng = np.random.default_rng(seed)
    return 0.1 * rng.standard_normal((d, d)), rng.standard_normal((n, d)), rng.standard_normal((n, d))
