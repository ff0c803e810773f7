"""Held-out variants written before wave 31's speed work on Cholesky likelihoods, gated cells and
softmax attention (issue 26: mvn_cho, ligru, attention_scores), each with a careful hand-written
gradient ``NAME_grad``: Gaussian likelihoods through np.linalg.cholesky and
scipy.linalg.solve_triangular / cho_solve / np.linalg.solve / slogdet, gated recurrent cells
assembling their pre-activations by concatenation or by slice writes, and softmax attention
spelled another way.  variants.py registers them; variants_programs.py re-exports them.

Wave 31's passes (backend/optimize/cholesky_pairs.py, repeated_solves.py's scales as written,
slice_joins.py) were tuned reading the generated code of mvn_tri, mvn_cho_solve and gated_writes;
mvn_scaled_solve, gru_concat and attention_einsum were held out (measured only).
"""

import math

import numpy as np
import scipy.linalg as sl


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# ---- Gaussian likelihoods through a Cholesky factor --------------------------------------------


def mvn_tri(mu, A, X):
    """A Gaussian negative log likelihood whitened by one triangular solve: |L^-1 (x - mu)|^2 summed,
    the log determinant from the factor's diagonal (wrt mu and A, covariance A A^T + 0.5 I)."""
    n, d = X.shape
    L = np.linalg.cholesky(A @ A.T + 0.5 * np.eye(d))
    Z = sl.solve_triangular(L, (X - mu).T, lower=True)
    return 0.5 * np.sum(Z ** 2) + n * np.sum(np.log(np.diag(L))) + 0.5 * n * d * math.log(2.0 * math.pi)


def mvn_tri_grad(mu, A, X):
    n, d = X.shape
    S = A @ A.T + 0.5 * np.eye(d)
    L = np.linalg.cholesky(S)
    V = sl.cho_solve((L, True), (X - mu).T)              # S^-1 (x - mu), d x n
    S_bar = 0.5 * n * sl.cho_solve((L, True), np.eye(d)) - 0.5 * V @ V.T
    return -V.sum(axis=1), 2.0 * S_bar @ A


def mvn_cho_solve(mu, A, X):
    """The same likelihood through cho_factor / cho_solve on the residuals' rows, the log
    determinant through np.linalg.slogdet of the covariance (wrt mu and A)."""
    n, d = X.shape
    S = A @ A.T + np.eye(d)
    factor = sl.cho_factor(S, lower=True)
    R = X - mu[None, :]
    sign, logdet = np.linalg.slogdet(S)
    return 0.5 * np.einsum("ij,ji->", R, sl.cho_solve(factor, R.T)) + 0.5 * n * logdet


def mvn_cho_solve_grad(mu, A, X):
    n, d = X.shape
    S = A @ A.T + np.eye(d)
    factor = sl.cho_factor(S, lower=True)
    V = sl.cho_solve(factor, (X - mu).T)
    S_bar = 0.5 * n * sl.cho_solve(factor, np.eye(d)) - 0.5 * V @ V.T
    return -V.sum(axis=1), 2.0 * S_bar @ A


def mvn_scaled_solve(log_s, A, X):
    """A Gaussian likelihood with covariance A A^T + exp(log_s) I through np.linalg.cholesky, the
    quadratic form by two solve_triangular calls spelled with trans=\"T\" (wrt log_s and A)."""
    n, d = X.shape
    L = np.linalg.cholesky(A @ A.T + np.exp(log_s) * np.eye(d))
    W = sl.solve_triangular(L.T, sl.solve_triangular(L, X.T, lower=True), lower=False)
    return 0.5 * np.sum(X.T * W) + n * np.log(np.diag(L)).sum()


def mvn_scaled_solve_grad(log_s, A, X):
    n, d = X.shape
    S = A @ A.T + math.exp(log_s) * np.eye(d)
    c = sl.cho_factor(S, lower=True)
    V = sl.cho_solve(c, X.T)
    S_bar = 0.5 * n * sl.cho_solve(c, np.eye(d)) - 0.5 * V @ V.T
    return math.exp(log_s) * np.trace(S_bar), 2.0 * S_bar @ A


def mvn_args(n=500, d=60, seed=311):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((d, d)) / math.sqrt(d)
    X = rng.standard_normal((n, d)) @ A.T + rng.standard_normal((n, d))
    return 0.1 * rng.standard_normal(d), A, X


def mvn_scaled_args(n=500, d=60, seed=312):
    return (-0.3,) + mvn_args(n, d, seed)[1:]


# ---- gated recurrent cells ---------------------------------------------------------------------


def gru_concat(W, b, xs):
    """A minimal gated cell on the concatenation [x, h]: one matmul, gates by column slices, the
    candidate a tanh; the squared states summed (wrt W and b)."""
    n = b.shape[0] // 2
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        g = np.concatenate([x, h], axis=1) @ W + b
        z = _sigmoid(g[:, :n])
        h = (1.0 - z) * h + z * np.tanh(g[:, n:])
        total = total + np.sum(h * h)
    return total


def gru_concat_grad(W, b, xs):
    n = b.shape[0] // 2
    T, B, n_in = xs.shape
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        xh = np.concatenate([xs[t], h], axis=1)
        g = xh @ W + b
        z = _sigmoid(g[:, :n])
        c = np.tanh(g[:, n:])
        saved.append((xh, h, z, c))
        h = (1.0 - z) * h + z * c
        saved[-1] = saved[-1] + (h,)
    gW, gb = np.zeros_like(W), np.zeros_like(b)
    h_bar = np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        xh, h_prev, z, c, h = saved[t]
        h_bar = h_bar + 2.0 * h
        g_bar = np.concatenate([h_bar * (c - h_prev) * z * (1.0 - z), h_bar * z * (1.0 - c * c)], axis=1)
        gW += xh.T @ g_bar
        gb += g_bar.sum(axis=0)
        h_bar = h_bar * (1.0 - z) + g_bar @ W[n_in:].T
    return gW, gb


def gated_writes(W, U, xs):
    """A gated cell whose pre-activations are written into a preallocated array, slice by slice
    (one matmul per gate), a ReLU candidate (wrt W and U)."""
    n = U.shape[0]
    B = xs.shape[1]
    h = np.zeros((B, n))
    out = 0.0
    for t in range(xs.shape[0]):
        pre = np.zeros((B, 2 * n))
        pre[:, :n] = xs[t] @ W[:, :n] + h @ U[:, :n]
        pre[:, n:] = xs[t] @ W[:, n:] + h @ U[:, n:]
        f = _sigmoid(pre[:, :n])
        h = f * h + (1.0 - f) * np.maximum(pre[:, n:], 0.0)
        out = out + np.sum(h ** 2)
    return out


def gated_writes_grad(W, U, xs):
    n = U.shape[0]
    T, B, _ = xs.shape
    h = np.zeros((B, n))
    saved = []
    for t in range(T):
        a = xs[t] @ W + h @ U
        f = _sigmoid(a[:, :n])
        cand = np.maximum(a[:, n:], 0.0)
        h_prev = h
        h = f * h + (1.0 - f) * cand
        saved.append((h_prev, f, cand, a[:, n:] > 0.0, h))
    gW, gU = np.zeros_like(W), np.zeros_like(U)
    h_bar = np.zeros((B, n))
    for t in range(T - 1, -1, -1):
        h_prev, f, cand, on, h = saved[t]
        h_bar = h_bar + 2.0 * h
        da = np.concatenate([h_bar * (h_prev - cand) * f * (1.0 - f), h_bar * (1.0 - f) * on], axis=1)
        gW += xs[t].T @ da
        gU += h_prev.T @ da
        h_bar = h_bar * f + da @ U.T
    return gW, gU


def gated_args(T=25, B=16, n_in=16, n_h=48, seed=313):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, 2 * n_h)) / math.sqrt(n_in),
            rng.standard_normal((n_h, 2 * n_h)) / math.sqrt(n_h), rng.standard_normal((T, B, n_in)))


def concat_args(T=25, B=16, n_in=16, n_h=48, seed=314):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in + n_h, 2 * n_h)) / math.sqrt(n_in + n_h), 0.1 * rng.standard_normal(2 * n_h),
            rng.standard_normal((T, B, n_in)))


# ---- softmax attention ---------------------------------------------------------------------------


def attention_einsum(Q, K, V):
    """Scores by einsum, a softmax by logsumexp's shift written out, a squared-error on the output
    (wrt Q and K)."""
    S = np.einsum("id,jd->ij", Q, K) / math.sqrt(Q.shape[1])
    m = np.max(S, axis=-1, keepdims=True)
    E = np.exp(S - m)
    P = E / np.sum(E, axis=-1, keepdims=True)
    O = P @ V
    return 0.5 * np.sum((O - 1.0) ** 2)


def attention_einsum_grad(Q, K, V):
    scale = 1.0 / math.sqrt(Q.shape[1])
    S = (Q @ K.T) * scale
    P = np.exp(S - S.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    P_bar = (P @ V - 1.0) @ V.T
    S_bar = P * (P_bar - np.sum(P_bar * P, axis=1, keepdims=True)) * scale
    return S_bar @ K, S_bar.T @ Q


def attention_args(n=64, d=32, d_v=16, seed=315):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n, d)), rng.standard_normal((n, d)), rng.standard_normal((n, d_v)))
