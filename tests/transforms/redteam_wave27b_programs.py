"""The red team's wave 27b: machine learning and statistics written the way practitioners write
them in plain NumPy (test_redteam_wave27b.py runs them through every transformation).

MLPs with parameter dicts and lists of layers, RNN / GRU / LSTM cells, attention, layer norm,
softmax cross-entropy written several ways, masked losses, regularisers, Gaussian-process
likelihoods (Cholesky, solve, slogdet), mixtures by log-sum-exp, Poisson and negative-binomial
likelihoods (math.lgamma, scipy.special), einsum, norms, kinks (clip, maximum, abs), integer and
boolean indexing, reshape / transpose chains, keepdims reductions, (n, 1) with (1, m)
broadcasting, float32 parameters, classes and dataclasses, functools.partial, and a MAML-style
inner step calling srcdiff.grad inside the function.

Programs taking ``(params, x, y)`` with ``wrt=0`` and one example in `x` and `y` also run as
per-example gradients, ``vmap(grad(f), in_axes=(None, 0, 0))``.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
from scipy import special

import srcdiff


def M(r, *shape):
    return r.standard_normal(shape)


def P(r, *shape):
    return r.uniform(0.5, 1.5, shape)


def F(r, *shape):
    return r.standard_normal(shape).astype(np.float32)


# ---- MLPs ----------------------------------------------------------------------------------------


def relu(z):
    return np.maximum(z, 0.0)


def mlp_dict_mse(params, x, y):
    h = np.tanh(x @ params["W1"] + params["b1"])
    out = h @ params["W2"] + params["b2"]
    return 0.5 * np.sum((out - y) ** 2)


def mlp_dict_args(r, single=True):
    p = {"W1": 0.5 * M(r, 3, 4), "b1": 0.1 * M(r, 4), "W2": 0.5 * M(r, 4, 2), "b2": 0.1 * M(r, 2)}
    return (p, M(r, 3), M(r, 2)) if single else (p, M(r, 5, 3), M(r, 5, 2))


def mlp_layers_list(layers, x, y):
    h = x
    for i, (W, b) in enumerate(layers):
        h = h @ W + b
        if i < len(layers) - 1:
            h = np.tanh(h)
    return np.mean((h - y) ** 2)


def layers_args(r, sizes=(3, 5, 4, 2)):
    return [(0.5 * M(r, m, n), 0.1 * M(r, n)) for m, n in zip(sizes[:-1], sizes[1:])]


def mlp_relu_sigmoid_bce(params, x, y):
    h = relu(x @ params["W1"] + params["b1"])
    logit = h @ params["w2"] + params["b2"]
    p = 1.0 / (1.0 + np.exp(-logit))
    return -(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def mlp_bce_args(r):
    return {"W1": M(r, 3, 4), "b1": 0.1 * M(r, 4) + 0.3, "w2": M(r, 4), "b2": 0.2}, M(r, 3), 1.0


def mlp_softplus_bce(params, x, y):
    logit = np.tanh(x @ params["W1"]) @ params["w2"]
    return np.logaddexp(0.0, logit) - y * logit


def mlp_keys_loop(params, x, y):
    h = x
    n = len(params) // 2
    for k in range(n):
        h = h @ params[f"W{k}"] + params[f"b{k}"]
        if k < n - 1:
            h = np.sin(h)
    return np.sum((h - y) ** 2)


def keys_args(r):
    sizes = (3, 4, 2)
    p = {}
    for k, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
        p[f"W{k}"] = 0.5 * M(r, m, n)
        p[f"b{k}"] = 0.1 * M(r, n)
    return p, M(r, 3), M(r, 2)


def mlp_residual(params, x, y):
    h = x @ params["inp"]
    for W in params["blocks"]:
        h = h + np.tanh(h @ W)
    return np.sum((h @ params["out"] - y) ** 2)


def residual_args(r):
    return (
        {"inp": 0.5 * M(r, 3, 4), "blocks": [0.4 * M(r, 4, 4) for _ in range(3)], "out": 0.5 * M(r, 4, 2)},
        M(r, 3),
        M(r, 2),
    )


def mlp_gelu_tanh(params, x, y):
    z = x @ params["W"] + params["b"]
    g = 0.5 * z * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (z + 0.044715 * z**3)))
    return np.sum((g @ params["V"] - y) ** 2)


def gelu_args(r):
    return {"W": M(r, 3, 4), "b": 0.1 * M(r, 4), "V": 0.5 * M(r, 4, 2)}, M(r, 3), M(r, 2)


def mlp_leaky_relu(params, x, y):
    z = x @ params["W"]
    h = np.where(z > 0, z, 0.01 * z)
    return np.sum((h @ params["V"] - y) ** 2)


def mlp_elu(params, x, y):
    z = x @ params["W"]
    h = np.where(z > 0, z, np.exp(np.minimum(z, 0.0)) - 1.0)
    return np.sum((h @ params["V"] - y) ** 2)


def wv_args(r):
    return {"W": M(r, 3, 4), "V": 0.5 * M(r, 4, 2)}, M(r, 3), M(r, 2)


def mlp_swish_batch(params, X, Y):
    Z = X @ params["W"]
    H = Z * special.expit(Z)
    return np.mean(np.sum((H @ params["V"] - Y) ** 2, axis=1))


def mlp_tuple_params(params, x, y):
    W1, b1, W2 = params
    return np.sum((np.tanh(x @ W1 + b1) @ W2 - y) ** 2)


def tuple_args(r):
    return (M(r, 3, 4), 0.1 * M(r, 4), 0.5 * M(r, 4, 2)), M(r, 3), M(r, 2)


def mlp_weight_decay(params, x, y, lam=1e-2):
    out = np.tanh(x @ params["W1"]) @ params["W2"]
    data = np.sum((out - y) ** 2)
    reg = sum(np.sum(w**2) for k, w in params.items() if k.startswith("W"))
    return data + lam * reg


def mlp_batchnorm_like(params, X, Y):
    Z = X @ params["W"]
    mu = Z.mean(axis=0, keepdims=True)
    var = Z.var(axis=0, keepdims=True)
    H = params["gamma"] * (Z - mu) / np.sqrt(var + 1e-5) + params["beta"]
    return np.mean((np.tanh(H) @ params["V"] - Y) ** 2)


def bn_args(r):
    return {"W": M(r, 3, 4), "gamma": P(r, 4), "beta": 0.1 * M(r, 4), "V": M(r, 4, 2)}, M(r, 6, 3), M(r, 6, 2)


def mlp_dropout_mask_data(params, X, mask):
    H = np.tanh(X @ params["W"]) * mask / 0.8
    return np.sum(H @ params["v"])


def dropout_args(r):
    return {"W": M(r, 3, 4), "v": M(r, 4)}, M(r, 5, 3), (r.uniform(size=(5, 4)) < 0.8).astype(float)


def mlp_maxout(W, x):
    z = (x @ W).reshape(-1, 2)
    return np.sum(np.max(z, axis=1) ** 2)


# ---- RNN / GRU / LSTM / attention ---------------------------------------------------------------------


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def rnn_many_to_one(params, xs, y):
    h = np.zeros(params["Whh"].shape[0])
    for x in xs:
        h = np.tanh(params["Wxh"] @ x + params["Whh"] @ h + params["bh"])
    return 0.5 * np.sum((params["Why"] @ h - y) ** 2)


def rnn_args(r):
    p = {"Wxh": 0.5 * M(r, 4, 3), "Whh": 0.3 * M(r, 4, 4), "bh": 0.1 * M(r, 4), "Why": 0.5 * M(r, 2, 4)}
    return p, M(r, 5, 3), M(r, 2)


def rnn_hidden_list(params, xs, y):
    hs = [np.zeros(4)]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(params["Wxh"] @ xs[t] + params["Whh"] @ hs[-1] + params["bh"]))
    H = np.stack(hs[1:])
    return np.sum((H @ params["Why"].T).mean(axis=0) * y)


def gru_cell(p, h, x):
    z = sigmoid(p["Wz"] @ x + p["Uz"] @ h)
    rgate = sigmoid(p["Wr"] @ x + p["Ur"] @ h)
    hh = np.tanh(p["Wh"] @ x + p["Uh"] @ (rgate * h))
    return (1.0 - z) * h + z * hh


def gru_loss(p, xs, y):
    h = np.zeros(3)
    for x in xs:
        h = gru_cell(p, h, x)
    return np.sum((h - y) ** 2)


def gru_args(r):
    p = {k: 0.5 * M(r, 3, 2) for k in ("Wz", "Wr", "Wh")}
    p.update({k: 0.5 * M(r, 3, 3) for k in ("Uz", "Ur", "Uh")})
    return p, M(r, 4, 2), M(r, 3)


def lstm_stacked_gates(p, xs, y):
    H = p["U"].shape[1]
    h, c = np.zeros(H), np.zeros(H)
    for x in xs:
        g = p["W"] @ x + p["U"] @ h + p["b"]
        i, f, o, u = sigmoid(g[:H]), sigmoid(g[H : 2 * H]), sigmoid(g[2 * H : 3 * H]), np.tanh(g[3 * H :])
        c = f * c + i * u
        h = o * np.tanh(c)
    return np.sum(h * y)


def lstm_args(r):
    return {"W": 0.5 * M(r, 12, 2), "U": 0.5 * M(r, 12, 3), "b": 0.1 * M(r, 12)}, M(r, 4, 2), M(r, 3)


def lstm_split_gates(p, xs, y):
    H = 3
    h, c = np.zeros(H), np.zeros(H)
    for x in xs:
        i, f, o, u = np.split(p["W"] @ np.concatenate([x, h]), 4)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(u)
        h = sigmoid(o) * np.tanh(c)
    return np.sum((h - y) ** 2)


def lstm_split_args(r):
    return {"W": 0.5 * M(r, 12, 5)}, M(r, 4, 2), M(r, 3)


def softmax_rows(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attention_single_head(p, X, y):
    Q, K, V = X @ p["Wq"], X @ p["Wk"], X @ p["Wv"]
    A = softmax_rows(Q @ K.T / np.sqrt(Q.shape[-1]))
    return np.sum((A @ V).mean(axis=0) * y)


def attn_args(r):
    return {k: 0.5 * M(r, 3, 4) for k in ("Wq", "Wk", "Wv")}, M(r, 5, 3), M(r, 4)


def attention_causal_mask(p, X, y):
    T = X.shape[0]
    S = (X @ p["Wq"]) @ (X @ p["Wk"]).T / 2.0
    mask = np.triu(np.ones((T, T)), k=1).astype(bool)
    S = np.where(mask, -1e9, S)
    A = softmax_rows(S)
    return np.sum(A @ (X @ p["Wv"]) * y)


def attention_multihead_einsum(p, X, y):
    T, D = X.shape
    Hn = 2
    q = (X @ p["Wq"]).reshape(T, Hn, -1).transpose(1, 0, 2)
    k = (X @ p["Wk"]).reshape(T, Hn, -1).transpose(1, 0, 2)
    v = (X @ p["Wv"]).reshape(T, Hn, -1).transpose(1, 0, 2)
    s = np.einsum("htd,hsd->hts", q, k) / np.sqrt(q.shape[-1])
    a = softmax_rows(s)
    o = np.einsum("hts,hsd->htd", a, v).transpose(1, 0, 2).reshape(T, -1)
    return np.sum(o.mean(axis=0) * y)


def attention_scipy_softmax(p, X, y):
    S = X @ p["Wq"] @ (X @ p["Wk"]).T
    A = special.softmax(S, axis=1)
    return np.sum((A @ X).sum(axis=0) * y)


def attn_sq_args(r):
    return {"Wq": 0.5 * M(r, 3, 3), "Wk": 0.5 * M(r, 3, 3)}, M(r, 4, 3), M(r, 3)


def transformer_block(p, X, y):
    def ln(h, g, b):
        mu = h.mean(-1, keepdims=True)
        return g * (h - mu) / np.sqrt(((h - mu) ** 2).mean(-1, keepdims=True) + 1e-5) + b

    a = softmax_rows((X @ p["Wq"]) @ (X @ p["Wk"]).T / 2.0) @ (X @ p["Wv"])
    h = ln(X + a, p["g1"], p["b1"])
    h = ln(h + relu(h @ p["W1"]) @ p["W2"], p["g2"], p["b2"])
    return np.sum((h.mean(0) - y) ** 2)


def block_args(r):
    p = {k: 0.5 * M(r, 4, 4) for k in ("Wq", "Wk", "Wv")}
    p.update(W1=0.5 * M(r, 4, 6), W2=0.5 * M(r, 6, 4), g1=P(r, 4), b1=0.1 * M(r, 4), g2=P(r, 4), b2=0.1 * M(r, 4))
    return p, M(r, 3, 4), M(r, 4)


# ---- layer norm, cross-entropy, masked losses ---------------------------------------------------------


def layer_norm(p, x, y):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    h = (x - mu) / np.sqrt(var + 1e-5) * p["g"] + p["b"]
    return np.sum(h * y)


def ln_args(r):
    return {"g": P(r, 4), "b": 0.1 * M(r, 4)}, M(r, 4), M(r, 4)


def layer_norm_input(x):
    mu = x.mean(axis=1)[:, None]
    sd = x.std(axis=1)[:, None]
    return np.sum(np.sin((x - mu) / (sd + 1e-6)))


def rms_norm(g, x):
    return np.sum(x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + 1e-6) * g * np.arange(1, 5))


def ce_logsumexp_manual(W, X, labels):
    logits = X @ W
    m = logits.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    logp = logits - lse
    return -np.mean(logp[np.arange(len(labels)), labels])


def ce_args(r):
    return M(r, 3, 4), M(r, 6, 3), r.integers(0, 4, size=6)


def ce_onehot(W, X, labels):
    Y = np.eye(W.shape[1])[labels]
    p = softmax_rows(X @ W)
    return -np.sum(Y * np.log(p)) / X.shape[0]


def ce_scipy_log_softmax(W, X, labels):
    lp = special.log_softmax(X @ W, axis=1)
    return -lp[np.arange(X.shape[0]), labels].sum()


def ce_take_along_axis(W, X, labels):
    lp = X @ W - special.logsumexp(X @ W, axis=1, keepdims=True)
    return -np.mean(np.take_along_axis(lp, labels[:, None], axis=1))


def ce_loop_per_row(W, X, labels):
    total = 0.0
    for i in range(X.shape[0]):
        z = X[i] @ W
        total += special.logsumexp(z) - z[labels[i]]
    return total / X.shape[0]


def ce_label_smoothing(W, X, labels, eps=0.1):
    K = W.shape[1]
    Y = np.full((X.shape[0], K), eps / K)
    Y[np.arange(X.shape[0]), labels] += 1.0 - eps
    return -np.sum(Y * special.log_softmax(X @ W, axis=-1))


def ce_single_example(W, x, label):
    z = x @ W
    return special.logsumexp(z) - z[label]


def ce_single_args(r):
    return M(r, 3, 4), M(r, 3), 2


def ce_soft_targets_kl(W, x, q):
    logp = x @ W - special.logsumexp(x @ W)
    return np.sum(special.xlogy(q, q) - q * logp)


def kl_args(r):
    q = r.uniform(0.1, 1.0, 4)
    return M(r, 3, 4), M(r, 3), q / q.sum()


def masked_mse(pred_w, X, Y, mask):
    err = (X @ pred_w - Y) ** 2
    return np.sum(err * mask) / np.sum(mask)


def masked_args(r):
    return M(r, 3, 2), M(r, 6, 3), M(r, 6, 2), (r.uniform(size=(6, 2)) < 0.6).astype(float)


def masked_bool_index(w, X, Y, mask):
    err = (X @ w - Y) ** 2
    return np.mean(err[mask.astype(bool)])


def masked_where_nan_targets(w, X, Y):
    ok = ~np.isnan(Y)
    r = np.where(ok, X @ w - np.where(ok, Y, 0.0), 0.0)
    return np.sum(r**2) / np.sum(ok)


def nan_targets_args(r):
    Y = M(r, 6, 2)
    Y[1, 0] = np.nan
    Y[4, 1] = np.nan
    return M(r, 3, 2), M(r, 6, 3), Y


def masked_seq_ce(W, X, labels, lengths):
    T = X.shape[1]
    mask = np.arange(T)[None, :] < lengths[:, None]
    lp = special.log_softmax(X @ W, axis=-1)
    picked = np.take_along_axis(lp, labels[..., None], axis=-1)[..., 0]
    return -np.sum(picked * mask) / mask.sum()


def seq_args(r):
    return M(r, 3, 4), M(r, 2, 5, 3), r.integers(0, 4, size=(2, 5)), np.array([3, 5])


def focal_loss(w, X, y, gamma=2.0):
    p = sigmoid(X @ w)
    pt = np.where(y == 1, p, 1.0 - p)
    return -np.sum((1.0 - pt) ** gamma * np.log(pt))


def binary_args(r):
    return M(r, 3), M(r, 8, 3), (r.uniform(size=8) < 0.5).astype(int)


def hinge_multiclass(W, X, labels):
    S = X @ W
    correct = S[np.arange(len(labels)), labels][:, None]
    margins = np.maximum(0.0, S - correct + 1.0)
    margins[np.arange(len(labels)), labels] = 0.0
    return margins.sum() / len(labels)


def logistic_logaddexp(w, X, y):
    z = X @ w
    return np.sum(np.logaddexp(0.0, -(2 * y - 1) * z))


def logistic_log_expit(w, X, y):
    z = X @ w
    return -np.sum(y * special.log_expit(z) + (1 - y) * special.log_expit(-z))


# ---- regularisers and kinks -------------------------------------------------------------------------------


def elastic_net(w, X, y, l1=0.1, l2=0.05):
    return np.sum((X @ w - y) ** 2) + l1 * np.sum(np.abs(w)) + l2 * np.dot(w, w)


def reg_args(r):
    return M(r, 3), M(r, 6, 3), M(r, 6)


def group_lasso(W, X, Y):
    return np.sum((X @ W - Y) ** 2) + 0.1 * np.sum(np.linalg.norm(W, axis=1))


def nuclear_like_fro(W, X, Y):
    return np.linalg.norm(X @ W - Y) + 0.1 * np.linalg.norm(W, "fro") ** 2


def huber_clip(w, X, y, delta=1.0):
    r = X @ w - y
    a = np.abs(r)
    q = np.minimum(a, delta)
    return np.sum(0.5 * q**2 + delta * (a - q))


def smooth_l1_where(w, X, y):
    r = np.abs(X @ w - y)
    return np.mean(np.where(r < 1.0, 0.5 * r**2, r - 0.5))


def gradient_clip_norm(w, X, y, max_norm=1.0):
    r = X @ w - y
    nrm = np.linalg.norm(r)
    scale = np.minimum(1.0, max_norm / nrm)
    return np.sum((r * scale) ** 2) + np.sum(w**2)


def clipped_ppo(theta, adv, old_logp, a_feat):
    logp = a_feat @ theta
    ratio = np.exp(logp - old_logp)
    return -np.mean(np.minimum(ratio * adv, np.clip(ratio, 0.8, 1.2) * adv))


def ppo_args(r):
    return 0.3 * M(r, 3), M(r, 6), 0.3 * M(r, 6), 0.5 * M(r, 6, 3)


def l1_norm_ord(w, X, y):
    return np.linalg.norm(X @ w - y, ord=1) + np.linalg.norm(w, ord=np.inf)


def total_variation(img):
    return np.sum(np.abs(np.diff(img, axis=0))) + np.sum(np.abs(np.diff(img, axis=1)))


def spectral_like_penalty(W, X):
    return np.sum(np.tanh(X @ W) ** 2) + 0.01 * np.linalg.norm(W, 2)


def orthogonality_penalty(W):
    G = W.T @ W
    return np.sum((G - np.eye(G.shape[0])) ** 2)


def kl_diag_gaussians(params):
    mu, logvar = params["mu"], params["logvar"]
    return -0.5 * np.sum(1.0 + logvar - mu**2 - np.exp(logvar))


def vae_elbo(params, x, eps):
    h = np.tanh(params["enc"] @ x)
    mu, logvar = params["mu"] @ h, params["lv"] @ h
    z = mu + np.exp(0.5 * logvar) * eps
    xhat = sigmoid(params["dec"] @ z)
    rec = -np.sum(x * np.log(xhat) + (1 - x) * np.log(1 - xhat))
    kl = -0.5 * np.sum(1 + logvar - mu**2 - np.exp(logvar))
    return rec + kl


def vae_args(r):
    p = {"enc": 0.5 * M(r, 4, 5), "mu": 0.5 * M(r, 2, 4), "lv": 0.3 * M(r, 2, 4), "dec": 0.5 * M(r, 5, 2)}
    return p, r.uniform(0.1, 0.9, 5), M(r, 2)


# ---- Gaussian processes ----------------------------------------------------------------------------------


def gp_nll_cholesky(log_params, X, y):
    ls, sf, sn = np.exp(log_params)
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf**2 * np.exp(-0.5 * d2 / ls**2) + (sn**2 + 1e-6) * np.eye(len(y))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(y) * np.log(2 * np.pi)


def gp_args(r):
    return np.array([0.1, 0.2, -1.0]), M(r, 6, 2), M(r, 6)


def gp_nll_slogdet(log_params, X, y):
    ls, sf, sn = np.exp(log_params)
    sq = (X**2).sum(1)
    d2 = sq[:, None] + sq[None, :] - 2 * X @ X.T
    K = sf**2 * np.exp(-d2 / (2 * ls**2)) + sn**2 * np.eye(X.shape[0])
    _, logdet = np.linalg.slogdet(K)
    return 0.5 * (y @ np.linalg.solve(K, y) + logdet)


def gp_nll_inv(log_params, X, y):
    ls, sf, sn = np.exp(log_params)
    D = np.abs(X[:, 0][:, None] - X[:, 0][None, :])
    K = sf**2 * (1 + np.sqrt(3) * D / ls) * np.exp(-np.sqrt(3) * D / ls) + sn**2 * np.eye(len(y))
    return 0.5 * y @ np.linalg.inv(K) @ y + 0.5 * np.log(np.linalg.det(K))


def gp_wrt_inputs(X, log_params, y):
    return gp_nll_cholesky(log_params, X, y)


def gp_predictive_mean(log_params, X, y, Xs):
    ls, sf, sn = np.exp(log_params)
    k = lambda A, B: sf**2 * np.exp(-0.5 * np.sum((A[:, None] - B[None]) ** 2, -1) / ls**2)  # noqa: E731
    K = k(X, X) + sn**2 * np.eye(len(X))
    return np.sum(k(Xs, X) @ np.linalg.solve(K, y))


def gp_pred_args(r):
    return np.array([0.1, 0.2, -1.0]), M(r, 5, 2), M(r, 5), M(r, 3, 2)


def gp_cho_solve(log_params, X, y):
    import scipy.linalg

    ls, sf, sn = np.exp(log_params)
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf**2 * np.exp(-0.5 * d2 / ls**2) + sn**2 * np.eye(len(y))
    L = np.linalg.cholesky(K)
    alpha = scipy.linalg.cho_solve((L, True), y)
    return 0.5 * y @ alpha + np.log(np.diag(L)).sum()


def mvn_logpdf_chol(mu, X, L_raw):
    L = np.tril(L_raw, -1) + np.diag(np.exp(np.diag(L_raw)))
    Z = np.linalg.solve(L, (X - mu).T)
    return -0.5 * np.sum(Z**2) - X.shape[0] * np.sum(np.log(np.diag(L)))


def mvn_args(r):
    return M(r, 3), M(r, 5, 3), 0.3 * M(r, 3, 3)


# ---- mixtures, counts -------------------------------------------------------------------------------------


def gmm_1d_logsumexp(params, x):
    logw = params["logits"] - special.logsumexp(params["logits"])
    mu, s = params["mu"], np.exp(params["log_s"])
    comp = -0.5 * ((x[:, None] - mu[None, :]) / s) ** 2 - np.log(s) - 0.5 * np.log(2 * np.pi)
    return -np.sum(special.logsumexp(logw + comp, axis=1))


def gmm_args(r):
    return {"logits": M(r, 3), "mu": M(r, 3), "log_s": 0.3 * M(r, 3)}, M(r, 10)


def gmm_manual_lse(params, x):
    logw = np.log(special.softmax(params["logits"]))
    comp = logw - 0.5 * (x[:, None] - params["mu"]) ** 2 / np.exp(2 * params["log_s"]) - params["log_s"]
    m = comp.max(axis=1, keepdims=True)
    return -np.sum(m.squeeze(1) + np.log(np.exp(comp - m).sum(axis=1)))


def gmm_responsibilities(params, x):
    comp = params["logits"] - 0.5 * (x[:, None] - params["mu"]) ** 2
    resp = np.exp(comp - special.logsumexp(comp, axis=1, keepdims=True))
    return np.sum(resp * (x[:, None] - params["mu"]) ** 2)


def gmm_2d_diag(params, X):
    lw = special.log_softmax(params["logits"])
    diff = X[:, None, :] - params["means"][None, :, :]
    ll = -0.5 * np.sum(diff**2 / np.exp(params["logvar"])[None], axis=2) - 0.5 * params["logvar"].sum(1)
    return -special.logsumexp(ll + lw, axis=1).mean()


def gmm2_args(r):
    return {"logits": M(r, 3), "means": M(r, 3, 2), "logvar": 0.3 * M(r, 3, 2)}, M(r, 8, 2)


def poisson_lgamma(w, X, y):
    eta = X @ w
    total = 0.0
    for i in range(len(y)):
        total += y[i] * eta[i] - math.exp(eta[i]) - math.lgamma(y[i] + 1.0)
    return -total


def count_args(r):
    return 0.3 * M(r, 3), M(r, 6, 3), r.poisson(2.0, 6).astype(float)


def poisson_gammaln(w, X, y):
    eta = X @ w
    return -np.sum(y * eta - np.exp(eta) - special.gammaln(y + 1))


def negbin_gammaln(params, X, y):
    mu = np.exp(X @ params["w"])
    r_ = np.exp(params["log_r"])
    ll = (
        special.gammaln(y + r_)
        - special.gammaln(r_)
        - special.gammaln(y + 1)
        + r_ * np.log(r_ / (r_ + mu))
        + y * np.log(mu / (r_ + mu))
    )
    return -np.sum(ll)


def negbin_args(r):
    return {"w": 0.3 * M(r, 3), "log_r": 0.5}, M(r, 6, 3), r.poisson(2.0, 6).astype(float)


def negbin_math_lgamma(log_r, mu, y):
    r_ = math.exp(log_r)
    ll = 0.0
    for yi, mi in zip(y, mu):
        ll += math.lgamma(yi + r_) - math.lgamma(r_) + r_ * math.log(r_ / (r_ + mi)) + yi * math.log(mi / (r_ + mi))
    return -ll


def negbin_math_args(r):
    return 0.4, P(r, 5) * 2, r.poisson(2.0, 5).astype(float)


def zero_inflated_poisson(params, X, y):
    lam = np.exp(X @ params["w"])
    pi = sigmoid(params["z"])
    ll_zero = np.log(pi + (1 - pi) * np.exp(-lam))
    ll_pos = np.log(1 - pi) + special.xlogy(y, lam) - lam - special.gammaln(y + 1)
    return -np.sum(np.where(y == 0, ll_zero, ll_pos))


def zip_args(r):
    y = r.poisson(1.0, 8).astype(float)
    y[:2] = 0.0
    return {"w": 0.3 * M(r, 3), "z": -0.5}, M(r, 8, 3), y


def beta_binomial_betaln(ab, k, n):
    a, b = np.exp(ab)
    return -np.sum(special.betaln(k + a, n - k + b) - special.betaln(a, b))


def bb_args(r):
    return np.array([0.3, 0.5]), np.array([1.0, 3.0, 0.0, 5.0]), np.array([5.0, 6.0, 4.0, 7.0])


def gamma_glm_lgamma(params, x, y):
    shape = math.exp(params[0])
    mu = math.exp(params[1] + params[2] * x)
    rate = shape / mu
    return -(shape * math.log(rate) - math.lgamma(shape) + (shape - 1) * math.log(y) - rate * y)


def gamma_glm_args(r):
    return np.array([0.3, 0.1, 0.2]), 0.7, 1.3


def dirichlet_logpdf(log_alpha, p):
    a = np.exp(log_alpha)
    return -(special.gammaln(a.sum()) - special.gammaln(a).sum() + np.sum((a - 1) * np.log(p)))


def dir_args(r):
    p = r.uniform(0.2, 1.0, 4)
    return 0.3 * M(r, 4), p / p.sum()


def student_t_regression(params, X, y):
    nu = np.exp(params["log_nu"])
    s = np.exp(params["log_s"])
    z = (y - X @ params["w"]) / s
    ll = (
        special.gammaln((nu + 1) / 2)
        - special.gammaln(nu / 2)
        - 0.5 * np.log(nu * np.pi)
        - np.log(s)
        - (nu + 1) / 2 * np.log1p(z**2 / nu)
    )
    return -np.sum(ll)


def t_args(r):
    return {"w": 0.3 * M(r, 3), "log_nu": 1.0, "log_s": 0.1}, M(r, 6, 3), M(r, 6)


# ---- einsum, indexing, shapes ------------------------------------------------------------------------------


def einsum_bilinear(W, X, Z):
    return np.sum(np.einsum("ni,ij,nj->n", X, W, Z) ** 2)


def bil_args(r):
    return M(r, 3, 2), M(r, 4, 3), M(r, 4, 2)


def einsum_batched_matmul(A, B):
    return np.sum(np.tanh(np.einsum("bij,bjk->bik", A, B)))


def bmm_args(r):
    return M(r, 2, 3, 4), M(r, 2, 4, 2)


def einsum_trace_quadratic(S, X):
    return np.einsum("ii->", S @ S.T) + np.einsum("ni,ij,nj->", X, S, X)


def einsum_outer_implicit(u, v):
    return np.sum(np.sin(np.einsum("i,j", u, v)))


def embedding_lookup(E, ids, y):
    h = E[ids].mean(axis=0)
    return np.sum((h - y) ** 2)


def emb_args(r):
    return M(r, 6, 3), np.array([0, 2, 2, 5]), M(r, 3)


def embedding_add_at(E, ids, w):
    return np.sum(np.tanh(E[ids] @ w))


def emb2_args(r):
    return M(r, 5, 3), np.array([[0, 1], [1, 4], [3, 3]]), M(r, 3)


def boolean_rows_selected(W, X, keep):
    return np.sum((X[keep] @ W) ** 2)


def bool_args(r):
    return M(r, 3, 2), M(r, 5, 3), np.array([True, False, True, True, False])


def fancy_pairs(x, i, j):
    return np.sum((x[i] - x[j]) ** 2 * np.arange(1, len(i) + 1))


def pairs_args(r):
    return M(r, 5), np.array([0, 1, 2, 3]), np.array([4, 0, 1, 1])


def reshape_transpose_chain(W, x):
    h = (x @ W).reshape(2, 3, 2).transpose(2, 0, 1).reshape(2, -1)
    return np.sum(h[0] * h[1]) + np.sum(np.swapaxes(h.reshape(2, 2, 3), 1, 2) ** 2)


def rt_args(r):
    return M(r, 4, 12), M(r, 4)


def keepdims_normalise(X):
    Z = X / np.linalg.norm(X, axis=1, keepdims=True)
    return np.sum(Z @ Z.T)


def cosine_similarity_loss(W, X, Y):
    A = X @ W
    num = np.sum(A * Y, axis=1)
    den = np.linalg.norm(A, axis=1) * np.linalg.norm(Y, axis=1)
    return np.mean(1.0 - num / den)


def broadcast_col_row(a, b):
    return np.sum(np.exp(-((a[:, None] - b[None, :]) ** 2)) * a.reshape(-1, 1) * b.reshape(1, -1))


def broadcast_n1_1m(a_col, b_row):
    return np.sum(np.log1p((a_col - b_row) ** 2) + a_col * b_row)


def col_row_args(r):
    return M(r, 4, 1), M(r, 1, 3)


def pairwise_sqdist_expand(X):
    d2 = np.sum(X**2, 1, keepdims=True) + np.sum(X**2, 1, keepdims=True).T - 2 * X @ X.T
    return np.sum(np.exp(-d2))


def conv1d_by_stride_stack(w, x):
    k = len(w)
    windows = np.stack([x[i : i + k] for i in range(len(x) - k + 1)])
    return np.sum(np.tanh(windows @ w) ** 2)


def conv_args(r):
    return M(r, 3), M(r, 8)


def conv2d_loops(K, img):
    out = 0.0
    for i in range(img.shape[0] - 1):
        for j in range(img.shape[1] - 1):
            out = out + np.tanh(np.sum(img[i : i + 2, j : j + 2] * K)) ** 2
    return out


def conv2_args(r):
    return M(r, 2, 2), M(r, 4, 4)


def max_pool_reshape(W, x):
    h = (x @ W).reshape(3, 2).max(axis=1)
    return np.sum(h**2)


def mp_args(r):
    return M(r, 4, 6), M(r, 4)


def argmax_gather(W, x):
    z = x @ W
    k = np.argmax(z)
    return z[k] - np.log(np.sum(np.exp(z)))


def sort_topk_mean(w, X):
    s = np.sort(X @ w)
    return np.mean(s[-3:]) - np.mean(s[:2])


def topk_args(r):
    return M(r, 3), M(r, 7, 3)


def cumsum_discount(rewards_w, feats):
    r = feats @ rewards_w
    gammas = 0.9 ** np.arange(len(r))
    ret = np.cumsum((r * gammas)[::-1])[::-1] / gammas
    return np.sum(ret**2)


def cum_args(r):
    return M(r, 3), M(r, 5, 3)


# ---- float32 ----------------------------------------------------------------------------------------------


def f32_mlp(params, x, y):
    h = np.tanh(x @ params["W1"] + params["b1"])
    return np.sum((h @ params["W2"] - y) ** 2)


def f32_args(r):
    p = {"W1": 0.5 * F(r, 3, 4), "b1": 0.1 * F(r, 4), "W2": 0.5 * F(r, 4, 2)}
    return p, F(r, 3), F(r, 2)


def f32_softmax_ce(W, x, label):
    z = x @ W
    z = z - z.max()
    return np.log(np.sum(np.exp(z))) - z[label]


def f32_ce_args(r):
    return F(r, 3, 4), F(r, 3), 1


def f32_mixed_constant(w, X):
    scale = np.float32(0.5)
    return np.sum(np.exp(-scale * (X @ w) ** 2)) + 1e-3 * np.sum(w**2)


def f32_mixed_args(r):
    return F(r, 3), F(r, 5, 3)


def f32_layernorm(g, x):
    mu = x.mean(-1, keepdims=True)
    v = ((x - mu) ** 2).mean(-1, keepdims=True)
    return np.sum(g * (x - mu) / np.sqrt(v + np.float32(1e-5)) * np.arange(4, dtype=np.float32))


def f32_ln_args(r):
    return 1.0 + 0.1 * F(r, 4), F(r, 3, 4)


# ---- classes, dataclasses, partial, MAML ------------------------------------------------------------------


@dataclasses.dataclass
class LinearParams:
    W: np.ndarray
    b: np.ndarray


def dataclass_linear(p, x, y):
    return np.sum((np.tanh(x @ p.W + p.b) - y) ** 2)


def dc_args(r):
    return LinearParams(M(r, 3, 2), 0.1 * M(r, 2)), M(r, 3), M(r, 2)


@dataclasses.dataclass
class MLPParams:
    layers: list
    scale: float = 1.0


def dataclass_layer_list(p, x, y):
    h = x
    for W in p.layers:
        h = np.tanh(h @ W)
    return p.scale * np.sum((h - y) ** 2)


def dcl_args(r):
    return MLPParams([0.5 * M(r, 3, 4), 0.5 * M(r, 4, 2)], 1.5), M(r, 3), M(r, 2)


class Dense:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


def dense_objects_built(params, x, y):
    l1 = Dense(params["W1"], params["b1"])
    l2 = Dense(params["W2"], params["b2"])
    return np.sum((l2(l1(x)) - y) ** 2)


class Model:
    def __init__(self, l2=0.1):
        self.l2 = l2

    def loss(self, w, X, y):
        return np.mean((X @ w - y) ** 2) + self.l2 * self.penalty(w)

    def penalty(self, w):
        return np.sum(w**2)


MODEL = Model(0.05)


def method_of_module_object(w, X, y):
    return MODEL.loss(w, X, y)


def method_built_inside(w, X, y):
    return Model(l2=0.2).loss(w, X, y)


def _scaled_sq(w, X, y, scale):
    return scale * np.sum((X @ w - y) ** 2)


def partial_loss(w, X, y):
    loss = functools.partial(_scaled_sq, scale=0.5)
    return loss(w, X, y) + np.sum(np.abs(w) ** 3)


HALF_LOSS = functools.partial(_scaled_sq, scale=0.25)


def module_partial(w, X, y):
    return HALF_LOSS(w, X, y)


def _inner_loss(w, X, y):
    return np.mean((X @ w - y) ** 2)


def maml_one_step(w, X, y):
    g = srcdiff.grad(_inner_loss)(w, X, y)
    w_adapted = w - 0.1 * g
    return _inner_loss(w_adapted, X, y)


def maml_two_steps(w, X, y):
    dl = srcdiff.grad(_inner_loss)
    w1 = w - 0.1 * dl(w, X, y)
    w2 = w1 - 0.1 * dl(w1, X, y)
    return _inner_loss(w2, X[::-1], y[::-1])


def _mlp_inner(p, X, y):
    return np.mean((np.tanh(X @ p["W"]) @ p["v"] - y) ** 2)


def maml_dict_params(p, X, y):
    g = srcdiff.grad(_mlp_inner)(p, X, y)
    adapted = {k: p[k] - 0.05 * g[k] for k in p}
    return _mlp_inner(adapted, X, y)


def maml_dict_args(r):
    return {"W": 0.5 * M(r, 3, 4), "v": 0.5 * M(r, 4)}, M(r, 5, 3), M(r, 5)


def value_and_grad_inside(w, X, y):
    v, g = srcdiff.value_and_grad(_inner_loss)(w, X, y)
    return v + 0.5 * np.sum(g**2)


def lin_args(r):
    return M(r, 3), M(r, 6, 3), M(r, 6)


def single_lin_args(r):
    return M(r, 3), M(r, 3), 0.7


# ---- the table ---------------------------------------------------------------------------------------------


PROGRAMS = [
    # MLPs
    ("mlp_dict_mse", mlp_dict_mse, mlp_dict_args, 0),
    ("mlp_dict_mse_batch", mlp_dict_mse, lambda r: mlp_dict_args(r, single=False), 0),
    ("mlp_dict_mse_wrt_x", mlp_dict_mse, mlp_dict_args, 1),
    ("mlp_layers_list", mlp_layers_list, lambda r: (layers_args(r), M(r, 3), M(r, 2)), 0),
    ("mlp_layers_list_batch", mlp_layers_list, lambda r: (layers_args(r), M(r, 4, 3), M(r, 4, 2)), 0),
    ("mlp_relu_sigmoid_bce", mlp_relu_sigmoid_bce, mlp_bce_args, 0),
    ("mlp_softplus_bce", mlp_softplus_bce, lambda r: ({"W1": M(r, 3, 4), "w2": M(r, 4)}, M(r, 3), 1.0), 0),
    ("mlp_keys_loop", mlp_keys_loop, keys_args, 0),
    ("mlp_residual", mlp_residual, residual_args, 0),
    ("mlp_gelu_tanh", mlp_gelu_tanh, gelu_args, 0),
    ("mlp_leaky_relu", mlp_leaky_relu, wv_args, 0),
    ("mlp_elu", mlp_elu, wv_args, 0),
    ("mlp_swish_batch", mlp_swish_batch, lambda r: ({"W": M(r, 3, 4), "V": M(r, 4, 2)}, M(r, 5, 3), M(r, 5, 2)), 0),
    ("mlp_tuple_params", mlp_tuple_params, tuple_args, 0),
    ("mlp_weight_decay", mlp_weight_decay, lambda r: ({"W1": M(r, 3, 4), "W2": M(r, 4, 2)}, M(r, 3), M(r, 2)), 0),
    ("mlp_batchnorm_like", mlp_batchnorm_like, bn_args, 0),
    ("mlp_dropout_mask_data", mlp_dropout_mask_data, dropout_args, 0),
    ("mlp_maxout", mlp_maxout, lambda r: (M(r, 3, 6), M(r, 3)), 0),
    # sequence models and attention
    ("rnn_many_to_one", rnn_many_to_one, rnn_args, 0),
    ("rnn_many_to_one_inputs", rnn_many_to_one, rnn_args, 1),
    ("rnn_hidden_list", rnn_hidden_list, rnn_args, 0),
    ("gru_loss", gru_loss, gru_args, 0),
    ("lstm_stacked_gates", lstm_stacked_gates, lstm_args, 0),
    ("lstm_split_gates", lstm_split_gates, lstm_split_args, 0),
    ("attention_single_head", attention_single_head, attn_args, 0),
    ("attention_single_head_x", attention_single_head, attn_args, 1),
    ("attention_causal_mask", attention_causal_mask, attn_args, 0),
    ("attention_multihead_einsum", attention_multihead_einsum, attn_args, 0),
    ("attention_scipy_softmax", attention_scipy_softmax, attn_sq_args, 0),
    ("transformer_block", transformer_block, block_args, 0),
    # layer norm, cross-entropy, masks
    ("layer_norm", layer_norm, ln_args, 0),
    ("layer_norm_wrt_x", layer_norm, ln_args, 1),
    ("layer_norm_input", layer_norm_input, lambda r: (M(r, 3, 4),), 0),
    ("rms_norm", rms_norm, lambda r: (P(r, 4), M(r, 3, 4)), 1),
    ("ce_logsumexp_manual", ce_logsumexp_manual, ce_args, 0),
    ("ce_onehot", ce_onehot, ce_args, 0),
    ("ce_scipy_log_softmax", ce_scipy_log_softmax, ce_args, 0),
    ("ce_take_along_axis", ce_take_along_axis, ce_args, 0),
    ("ce_loop_per_row", ce_loop_per_row, ce_args, 0),
    ("ce_label_smoothing", ce_label_smoothing, ce_args, 0),
    ("ce_single_example", ce_single_example, ce_single_args, 0),
    ("ce_soft_targets_kl", ce_soft_targets_kl, kl_args, 0),
    ("masked_mse", masked_mse, masked_args, 0),
    ("masked_bool_index", masked_bool_index, masked_args, 0),
    ("masked_where_nan_targets", masked_where_nan_targets, nan_targets_args, 0),
    ("masked_seq_ce", masked_seq_ce, seq_args, 0),
    ("focal_loss", focal_loss, binary_args, 0),
    ("hinge_multiclass", hinge_multiclass, ce_args, 0),
    ("logistic_logaddexp", logistic_logaddexp, binary_args, 0),
    ("logistic_log_expit", logistic_log_expit, binary_args, 0),
    ("logistic_single", logistic_logaddexp, single_lin_args, 0),
    # regularisers, kinks, norms
    ("elastic_net", elastic_net, reg_args, 0),
    ("group_lasso", group_lasso, lambda r: (M(r, 3, 2), M(r, 6, 3), M(r, 6, 2)), 0),
    ("nuclear_like_fro", nuclear_like_fro, lambda r: (M(r, 3, 2), M(r, 6, 3), M(r, 6, 2)), 0),
    ("huber_clip", huber_clip, reg_args, 0),
    ("smooth_l1_where", smooth_l1_where, reg_args, 0),
    ("gradient_clip_norm", gradient_clip_norm, reg_args, 0),
    ("clipped_ppo", clipped_ppo, ppo_args, 0),
    ("l1_norm_ord", l1_norm_ord, reg_args, 0),
    ("total_variation", total_variation, lambda r: (M(r, 4, 4),), 0),
    ("spectral_like_penalty", spectral_like_penalty, lambda r: (M(r, 3, 3), M(r, 4, 3)), 0),
    ("orthogonality_penalty", orthogonality_penalty, lambda r: (M(r, 4, 3),), 0),
    ("kl_diag_gaussians", kl_diag_gaussians, lambda r: ({"mu": M(r, 3), "logvar": 0.3 * M(r, 3)},), 0),
    ("vae_elbo", vae_elbo, vae_args, 0),
    # Gaussian processes
    ("gp_nll_cholesky", gp_nll_cholesky, gp_args, 0),
    ("gp_nll_slogdet", gp_nll_slogdet, gp_args, 0),
    ("gp_nll_inv", gp_nll_inv, gp_args, 0),
    ("gp_wrt_inputs", gp_wrt_inputs, lambda r: (M(r, 5, 2), np.array([0.1, 0.2, -1.0]), M(r, 5)), 0),
    ("gp_predictive_mean", gp_predictive_mean, gp_pred_args, 0),
    ("gp_cho_solve", gp_cho_solve, gp_args, 0),
    ("mvn_logpdf_chol", mvn_logpdf_chol, mvn_args, 2),
    ("mvn_logpdf_mean", mvn_logpdf_chol, mvn_args, 0),
    # mixtures and counts
    ("gmm_1d_logsumexp", gmm_1d_logsumexp, gmm_args, 0),
    ("gmm_manual_lse", gmm_manual_lse, gmm_args, 0),
    ("gmm_responsibilities", gmm_responsibilities, gmm_args, 0),
    ("gmm_2d_diag", gmm_2d_diag, gmm2_args, 0),
    ("gmm_2d_diag_data", gmm_2d_diag, gmm2_args, 1),
    ("poisson_lgamma", poisson_lgamma, count_args, 0),
    ("poisson_gammaln", poisson_gammaln, count_args, 0),
    ("negbin_gammaln", negbin_gammaln, negbin_args, 0),
    ("negbin_math_lgamma", negbin_math_lgamma, negbin_math_args, 0),
    ("negbin_math_mu", negbin_math_lgamma, negbin_math_args, 1),
    ("zero_inflated_poisson", zero_inflated_poisson, zip_args, 0),
    ("beta_binomial_betaln", beta_binomial_betaln, bb_args, 0),
    ("gamma_glm_lgamma", gamma_glm_lgamma, gamma_glm_args, 0),
    ("dirichlet_logpdf", dirichlet_logpdf, dir_args, 0),
    ("student_t_regression", student_t_regression, t_args, 0),
    # einsum, indexing, shapes
    ("einsum_bilinear", einsum_bilinear, bil_args, 0),
    ("einsum_batched_matmul", einsum_batched_matmul, bmm_args, 0),
    ("einsum_trace_quadratic", einsum_trace_quadratic, lambda r: (M(r, 3, 3), M(r, 4, 3)), 0),
    ("einsum_outer_implicit", einsum_outer_implicit, lambda r: (M(r, 3), M(r, 4)), 0),
    ("embedding_lookup", embedding_lookup, emb_args, 0),
    ("embedding_add_at", embedding_add_at, emb2_args, 0),
    ("boolean_rows_selected", boolean_rows_selected, bool_args, 0),
    ("fancy_pairs", fancy_pairs, pairs_args, 0),
    ("reshape_transpose_chain", reshape_transpose_chain, rt_args, 0),
    ("keepdims_normalise", keepdims_normalise, lambda r: (M(r, 4, 3),), 0),
    ("cosine_similarity_loss", cosine_similarity_loss, lambda r: (M(r, 3, 2), M(r, 5, 3), M(r, 5, 2)), 0),
    ("broadcast_col_row", broadcast_col_row, lambda r: (M(r, 4), M(r, 3)), 0),
    ("broadcast_n1_1m", broadcast_n1_1m, col_row_args, 0),
    ("broadcast_n1_1m_row", broadcast_n1_1m, col_row_args, 1),
    ("pairwise_sqdist_expand", pairwise_sqdist_expand, lambda r: (M(r, 4, 2),), 0),
    ("conv1d_by_stride_stack", conv1d_by_stride_stack, conv_args, 0),
    ("conv2d_loops", conv2d_loops, conv2_args, 0),
    ("max_pool_reshape", max_pool_reshape, mp_args, 0),
    ("argmax_gather", argmax_gather, lambda r: (M(r, 3, 4), M(r, 3)), 0),
    ("sort_topk_mean", sort_topk_mean, topk_args, 0),
    ("cumsum_discount", cumsum_discount, cum_args, 0),
    # float32
    ("f32_mlp", f32_mlp, f32_args, 0),
    ("f32_softmax_ce", f32_softmax_ce, f32_ce_args, 0),
    ("f32_mixed_constant", f32_mixed_constant, f32_mixed_args, 0),
    ("f32_layernorm", f32_layernorm, f32_ln_args, 0),
    ("f32_layernorm_x", f32_layernorm, f32_ln_args, 1),
    # classes, dataclasses, partial, MAML
    ("dataclass_linear", dataclass_linear, dc_args, 0),
    ("dataclass_layer_list", dataclass_layer_list, dcl_args, 0),
    (
        "dense_objects_built",
        dense_objects_built,
        lambda r: ({"W1": M(r, 3, 4), "b1": M(r, 4), "W2": M(r, 4, 2), "b2": M(r, 2)}, M(r, 3), M(r, 2)),
        0,
    ),
    ("method_of_module_object", method_of_module_object, lin_args, 0),
    ("method_built_inside", method_built_inside, lin_args, 0),
    ("partial_loss", partial_loss, lin_args, 0),
    ("module_partial", module_partial, single_lin_args, 0),
    ("maml_one_step", maml_one_step, lin_args, 0),
    ("maml_two_steps", maml_two_steps, lin_args, 0),
    ("maml_dict_params", maml_dict_params, maml_dict_args, 0),
    ("value_and_grad_inside", value_and_grad_inside, lin_args, 0),
]


# ---- kinks: each at its kink, where every transformation must give one and the same subgradient ----------


def relu_sum(x):
    return np.sum(np.maximum(x, 0.0) * np.arange(1, 4))


def relu_where(x):
    return np.sum(np.where(x > 0, x, 0.0) * np.arange(1, 4))


def relu_mask_product(x):
    return np.sum(x * (x > 0) * np.arange(1, 4))


def abs_sum(x):
    return np.sum(np.abs(x) * np.arange(1, 4))


def builtin_abs(x):
    return abs(x[0]) + 2 * abs(x[1]) + x[2]


def math_fabs(x):
    return math.fabs(x[0]) + 2 * math.fabs(x[1]) + x[2]


def clip_bounds(x):
    return np.sum(np.clip(x, -1.0, 1.0) * np.arange(1, 4))


def clip_method_lower(x):
    return np.sum(x.clip(0.0) * np.arange(1, 4))


def minimum_tie(x):
    return np.sum(np.minimum(x, 0.5) * np.arange(1, 4))


def maximum_tie_pairs(x):
    return np.sum(np.maximum(x[:2], x[1:3]))


def max_reduce_tie(x):
    return np.max(x)


def norm_at_zero(x):
    return np.linalg.norm(x) + np.sum(x)


def l1_norm_at_zero(x):
    return np.linalg.norm(x, ord=1)


def inf_norm_tie(x):
    return np.linalg.norm(x, ord=np.inf)


def hinge_at_margin(x):
    return np.sum(np.maximum(0.0, 1.0 - x * np.array([1.0, -1.0, 2.0])))


def huber_at_delta(x):
    a = np.abs(x)
    q = np.minimum(a, 1.0)
    return np.sum(0.5 * q**2 + (a - q))


def leaky_relu_at_zero(x):
    return np.sum(np.where(x >= 0, x, 0.1 * x) * np.arange(1, 4))


def relu_layer_at_zero(x):
    return np.sum(np.maximum(np.array([[1.0, -1.0, 0.0], [0.5, 0.5, 1.0]]) @ x, 0.0))


def sorted_tie(x):
    return np.sum(np.sort(x) * np.arange(1, 4))


KINKS = [
    ("relu_sum", relu_sum, np.array([0.0, 1.0, -1.0])),
    ("relu_where", relu_where, np.array([0.0, 1.0, -1.0])),
    ("relu_mask_product", relu_mask_product, np.array([0.0, 1.0, -1.0])),
    ("abs_sum", abs_sum, np.array([0.0, 1.0, -1.0])),
    ("builtin_abs", builtin_abs, np.array([0.0, 0.0, 1.0])),
    ("math_fabs", math_fabs, np.array([0.0, 0.0, 1.0])),
    ("clip_bounds", clip_bounds, np.array([1.0, -1.0, 0.3])),
    ("clip_method_lower", clip_method_lower, np.array([0.0, 1.0, -1.0])),
    ("minimum_tie", minimum_tie, np.array([0.5, 0.5, 0.2])),
    ("maximum_tie_pairs", maximum_tie_pairs, np.array([0.3, 0.3, 0.3])),
    ("max_reduce_tie", max_reduce_tie, np.array([0.7, 0.7, 0.1])),
    ("norm_at_zero", norm_at_zero, np.zeros(3)),
    ("l1_norm_at_zero", l1_norm_at_zero, np.array([0.0, 1.0, -2.0])),
    ("inf_norm_tie", inf_norm_tie, np.array([1.0, -1.0, 0.5])),
    ("hinge_at_margin", hinge_at_margin, np.array([1.0, -1.0, 0.5])),
    ("huber_at_delta", huber_at_delta, np.array([1.0, -1.0, 0.0])),
    ("leaky_relu_at_zero", leaky_relu_at_zero, np.array([0.0, 1.0, -1.0])),
    ("relu_layer_at_zero", relu_layer_at_zero, np.array([1.0, 1.0, -1.0])),
    ("sorted_tie", sorted_tie, np.array([0.4, 0.4, -1.0])),
]
