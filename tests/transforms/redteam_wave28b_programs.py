"""The red team's wave 28b, first half: losses, layers, parameter trees and regularisers written the
way practitioners write them in plain NumPy (test_redteam_wave28b.py runs them through every
transformation; redteam_wave28b_bayes.py holds the statistics half).

New against wave 27b (redteam_wave27b_programs.py): the TensorFlow form of Huber (``minimum`` of
``abs`` and delta), pseudo-Huber, log-cosh, pinball, squared hinge, contrastive and triplet losses
with ``np.maximum`` margins, InfoNCE, distillation KL with a temperature, Jensen-Shannon, soft Dice
and Tversky, ordinal logits, batch norm in training mode before a layer, group norm by reshape,
attention with padding masks (``-1e9`` and ``-np.inf``), cross-attention, conv1d by loops over
positions and by ``np.pad`` with a stride, depthwise conv, bidirectional and peephole recurrences,
highway, SwiGLU, mixture-of-experts gating, dropout and noise drawn from a generator seeded inside
the function, nested dicts / namedtuples / lists of dicts of parameters, power iteration and a
max-norm penalty.
"""

from __future__ import annotations

import collections
import math

import numpy as np
from scipy import special


def M(r, *shape):
    return r.standard_normal(shape)


def P(r, *shape):
    return r.uniform(0.5, 1.5, shape)


def softmax(z, axis=-1):
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(z, axis=-1):
    m = np.max(z, axis=axis, keepdims=True)
    return z - m - np.log(np.sum(np.exp(z - m), axis=axis, keepdims=True))


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


# ---- losses ---------------------------------------------------------------------------------------


def huber_tf(w, X, y, delta=1.0):
    r = X @ w - y
    a = np.abs(r)
    quadratic = np.minimum(a, delta)
    linear = a - quadratic
    return np.mean(0.5 * quadratic ** 2 + delta * linear)


def reg_args(r):
    return M(r, 3), M(r, 8, 3), 2.0 * M(r, 8)


def pseudo_huber(w, X, y, delta=0.7):
    r = X @ w - y
    return np.sum(delta ** 2 * (np.sqrt(1.0 + (r / delta) ** 2) - 1.0))


def log_cosh_loss(w, X, y):
    r = X @ w - y
    return np.mean(r + np.log1p(np.exp(-2.0 * r)) - np.log(2.0))


def pinball_loss(w, X, y, q=0.8):
    r = y - X @ w
    return np.mean(np.maximum(q * r, (q - 1.0) * r))


def squared_hinge(w, X, y):
    margin = 1.0 - y * (X @ w)
    return np.mean(np.maximum(margin, 0.0) ** 2) + 0.01 * np.dot(w, w)


def binary_pm_args(r):
    return M(r, 4), M(r, 10, 4), np.where(r.random(10) > 0.5, 1.0, -1.0)


def hinge_l2_svm(params, X, y, C=1.0):
    w, b = params
    scores = X @ w + b
    return 0.5 * w @ w + C * np.sum(np.maximum(0.0, 1.0 - y * scores))


def svm_args(r):
    return (M(r, 4), 0.3), M(r, 10, 4), np.where(r.random(10) > 0.5, 1.0, -1.0)


def multiclass_focal(W, X, labels, gamma=2.0, alpha=0.25):
    p = softmax(X @ W)
    pt = p[np.arange(len(labels)), labels]
    return -np.mean(alpha * (1.0 - pt) ** gamma * np.log(pt))


def cls_args(r):
    return 0.5 * M(r, 4, 3), M(r, 6, 4), np.array([0, 2, 1, 1, 0, 2])


def contrastive_pairs(W, A, B, same, margin=2.0):
    d = np.sqrt(np.sum((A @ W - B @ W) ** 2, axis=1) + 1e-12)
    return np.mean(same * d ** 2 + (1.0 - same) * np.maximum(margin - d, 0.0) ** 2)


def pairs_args(r):
    return M(r, 3, 2), M(r, 6, 3), M(r, 6, 3), np.array([1.0, 0.0, 1.0, 0.0, 0.0, 1.0])


def triplet_squared(W, anchor, pos, neg, margin=0.5):
    za, zp, zn = anchor @ W, pos @ W, neg @ W
    d_ap = np.sum((za - zp) ** 2, axis=-1)
    d_an = np.sum((za - zn) ** 2, axis=-1)
    return np.mean(np.maximum(d_ap - d_an + margin, 0.0))


def triplet_args(r):
    return M(r, 4, 3), M(r, 5, 4), M(r, 5, 4), M(r, 5, 4)


def triplet_euclidean_normed(W, anchor, pos, neg, margin=0.3):
    def embed(x):
        z = x @ W
        return z / np.linalg.norm(z, axis=1, keepdims=True)

    za, zp, zn = embed(anchor), embed(pos), embed(neg)
    d_ap = np.linalg.norm(za - zp, axis=1)
    d_an = np.linalg.norm(za - zn, axis=1)
    return np.sum(np.maximum(d_ap - d_an + margin, 0.0))


def label_smoothing_logsumexp(W, X, labels, eps=0.1):
    logits = X @ W
    k = logits.shape[1]
    logp = logits - special.logsumexp(logits, axis=1, keepdims=True)
    target = np.full(logits.shape, eps / k)
    target[np.arange(len(labels)), labels] += 1.0 - eps
    return -np.sum(target * logp) / len(labels)


def distill_kl_temperature(W, X, teacher_logits, T=2.0):
    p_t = softmax(teacher_logits / T)
    logp_s = log_softmax(X @ W / T)
    return T * T * np.mean(np.sum(p_t * (np.log(p_t) - logp_s), axis=1))


def distill_args(r):
    return 0.5 * M(r, 4, 3), M(r, 6, 4), M(r, 6, 3)


def js_divergence(W, X, q):
    p = softmax(X @ W)
    m = 0.5 * (p + q)
    return 0.5 * np.sum(p * np.log(p / m)) + 0.5 * np.sum(q * np.log(q / m))


def js_args(r):
    q = r.uniform(0.1, 1.0, (5, 3))
    return 0.5 * M(r, 4, 3), M(r, 5, 4), q / q.sum(axis=1, keepdims=True)


def soft_dice(w, X, t, smooth=1.0):
    p = sigmoid(X @ w)
    inter = np.sum(p * t)
    return 1.0 - (2.0 * inter + smooth) / (np.sum(p) + np.sum(t) + smooth)


def seg_args(r):
    return M(r, 3), M(r, 12, 3), (r.random(12) > 0.5).astype(float)


def tversky(w, X, t, alpha=0.3, beta=0.7):
    p = sigmoid(X @ w)
    tp = np.sum(p * t)
    fp = np.sum(p * (1 - t))
    fn = np.sum((1 - p) * t)
    return 1.0 - tp / (tp + alpha * fp + beta * fn + 1e-6)


def bce_clipped_probs(w, X, y, eps=1e-7):
    p = np.clip(sigmoid(X @ w), eps, 1.0 - eps)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def bce_args(r):
    return 0.5 * M(r, 3), M(r, 9, 3), (r.random(9) > 0.5).astype(float)


def info_nce(W, X1, X2, tau=0.5):
    z1, z2 = X1 @ W, X2 @ W
    z1 = z1 / np.sqrt(np.sum(z1 ** 2, axis=1, keepdims=True))
    z2 = z2 / np.sqrt(np.sum(z2 ** 2, axis=1, keepdims=True))
    logits = z1 @ z2.T / tau
    return -np.mean(np.diag(log_softmax(logits, axis=1)))


def nce_args(r):
    return M(r, 4, 3), M(r, 5, 4), M(r, 5, 4)


def margin_ranking(w, X1, X2, y, margin=0.1):
    return np.mean(np.maximum(0.0, -y * (X1 @ w - X2 @ w) + margin))


def ranking_args(r):
    return M(r, 3), M(r, 7, 3), M(r, 7, 3), np.where(r.random(7) > 0.5, 1.0, -1.0)


def weighted_mse_sample_weights(w, X, y, sw):
    r = X @ w - y
    return np.sum(sw * r * r) / np.sum(sw)


def wmse_args(r):
    return M(r, 3), M(r, 8, 3), M(r, 8), r.uniform(0.1, 2.0, 8)


def ordinal_logit(params, x, k):
    w, cuts = params["w"], params["cuts"]
    eta = x @ w
    thresholds = np.concatenate([[-np.inf], np.cumsum(np.exp(cuts)) - 1.0, [np.inf]])
    upper = sigmoid(thresholds[k + 1] - eta)
    lower = sigmoid(thresholds[k] - eta)
    return -np.sum(np.log(upper - lower))


def ordinal_args(r):
    return {"w": 0.5 * M(r, 3), "cuts": 0.3 * M(r, 3)}, M(r, 6, 3), np.array([0, 1, 2, 3, 1, 2])


def poisson_nll_log_input(w, X, y):
    log_rate = X @ w
    return np.mean(np.exp(log_rate) - y * log_rate)


def cosine_embedding(W, A, B, y, margin=0.2):
    za, zb = A @ W, B @ W
    cos = np.sum(za * zb, axis=1) / (np.linalg.norm(za, axis=1) * np.linalg.norm(zb, axis=1))
    return np.mean(np.where(y > 0, 1.0 - cos, np.maximum(0.0, cos - margin)))


def cos_args(r):
    return M(r, 3, 4), M(r, 6, 3), M(r, 6, 3), np.array([1, -1, 1, -1, -1, 1])


# ---- layers ---------------------------------------------------------------------------------------


def layernorm_affine_batch(p, X, y, eps=1e-5):
    mu = X.mean(axis=-1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=-1, keepdims=True)
    h = p["gamma"] * (X - mu) / np.sqrt(var + eps) + p["beta"]
    return np.mean((h @ p["W"] - y) ** 2)


def ln_args(r):
    return {"gamma": P(r, 4), "beta": 0.1 * M(r, 4), "W": M(r, 4, 2)}, M(r, 5, 4), M(r, 5, 2)


def layernorm_wrt_input(X, p):
    mu = np.mean(X, axis=1, keepdims=True)
    sd = np.sqrt(np.var(X, axis=1, keepdims=True) + 1e-5)
    return np.sum(np.tanh(p["gamma"] * (X - mu) / sd + p["beta"]))


def batchnorm_train_then_dense(p, X, y, eps=1e-5):
    h = X @ p["W1"]
    mean = h.mean(axis=0)
    var = h.var(axis=0)
    h = (h - mean) / np.sqrt(var + eps) * p["gamma"] + p["beta"]
    h = np.maximum(h, 0.0)
    out = h @ p["W2"]
    return np.mean((out - y) ** 2)


def bn_args(r):
    return ({"W1": M(r, 3, 4), "gamma": P(r, 4), "beta": 0.5 + 0.1 * M(r, 4), "W2": M(r, 4, 1)},
            M(r, 8, 3), M(r, 8, 1))


def groupnorm_reshape(gamma, X, groups=2, eps=1e-5):
    n, c = X.shape
    g = X.reshape(n, groups, c // groups)
    mu = g.mean(axis=2, keepdims=True)
    var = g.var(axis=2, keepdims=True)
    normed = ((g - mu) / np.sqrt(var + eps)).reshape(n, c)
    return np.sum(np.sin(normed * gamma))


def gn_args(r):
    return P(r, 6), M(r, 3, 6)


def attention_padding_mask(p, X, pad):
    Q, K, V = X @ p["Wq"], X @ p["Wk"], X @ p["Wv"]
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    scores = np.where(pad[None, :], -1e9, scores)
    A = softmax(scores, axis=-1)
    return np.sum((A @ V) ** 2)


def attn_args(r):
    return ({"Wq": 0.5 * M(r, 4, 3), "Wk": 0.5 * M(r, 4, 3), "Wv": 0.5 * M(r, 4, 3)}, M(r, 5, 4),
            np.array([False, False, False, True, True]))


def attention_neg_inf_causal(p, X, y):
    T = X.shape[0]
    Q, K, V = X @ p["Wq"], X @ p["Wk"], X @ p["Wv"]
    scores = Q @ K.T / math.sqrt(Q.shape[1])
    causal = np.triu(np.ones((T, T), dtype=bool), k=1)
    scores = np.where(causal, -np.inf, scores)
    A = softmax(scores)
    out = A @ V
    return np.mean((out[-1] - y) ** 2)


def causal_args(r):
    return ({"Wq": 0.5 * M(r, 4, 3), "Wk": 0.5 * M(r, 4, 3), "Wv": 0.5 * M(r, 4, 3)}, M(r, 5, 4), M(r, 3))


def cross_attention(p, X, memory):
    Q = X @ p["Wq"]
    K = memory @ p["Wk"]
    V = memory @ p["Wv"]
    A = softmax(Q @ K.T / np.sqrt(K.shape[-1]))
    return np.sum(np.tanh(A @ V))


def cross_args(r):
    return ({"Wq": 0.5 * M(r, 3, 2), "Wk": 0.5 * M(r, 4, 2), "Wv": 0.5 * M(r, 4, 2)}, M(r, 3, 3), M(r, 6, 4))


def conv1d_loop_valid(w, x, y):
    k = w.shape[0]
    out = np.zeros(x.shape[0] - k + 1)
    for i in range(out.shape[0]):
        out[i] = np.sum(w * x[i:i + k])
    return np.sum((np.tanh(out) - y) ** 2)


def conv_args(r):
    return M(r, 3), M(r, 9), M(r, 7)


def conv1d_list_append(w, x, y):
    k = len(w)
    outs = []
    for i in range(len(x) - k + 1):
        outs.append(x[i:i + k] @ w)
    out = np.array(outs)
    return np.mean((out - y) ** 2)


def conv1d_channels_stride_pad(W, x, b):
    # W: (out_ch, in_ch, k); x: (in_ch, length); "same" padding, stride 2
    k = W.shape[2]
    xp = np.pad(x, ((0, 0), (k // 2, k // 2)))
    cols = []
    for i in range(0, x.shape[1], 2):
        cols.append(np.sum(W * xp[None, :, i:i + k], axis=(1, 2)) + b)
    h = np.stack(cols, axis=1)
    return np.sum(np.maximum(h, 0.1 * h))


def conv_ch_args(r):
    return 0.5 * M(r, 2, 3, 3), M(r, 3, 8), 0.1 * M(r, 2)


def depthwise_conv1d(w, x):
    # w: (channels, k), x: (channels, length)
    c, k = w.shape
    L = x.shape[1] - k + 1
    out = np.zeros((c, L))
    for j in range(k):
        out = out + w[:, j:j + 1] * x[:, j:j + L]
    return np.sum(out ** 2) / out.size


def dw_args(r):
    return M(r, 3, 3), M(r, 3, 7)


def gru_time_loop(p, xs, y):
    h = np.zeros(p["Uz"].shape[0])
    for x in xs:
        z = sigmoid(p["Wz"] @ x + p["Uz"] @ h)
        r = sigmoid(p["Wr"] @ x + p["Ur"] @ h)
        n = np.tanh(p["Wn"] @ x + p["Un"] @ (r * h))
        h = (1.0 - z) * n + z * h
    return np.sum((h - y) ** 2)


def gru_args(r, H=3, D=2):
    p = {k: 0.5 * M(r, H, D) for k in ("Wz", "Wr", "Wn")}
    p.update({k: 0.5 * M(r, H, H) for k in ("Uz", "Ur", "Un")})
    return p, M(r, 4, D), M(r, H)


def lstm_peephole(p, xs, y):
    H = p["b"].shape[0] // 4
    h, c = np.zeros(H), np.zeros(H)
    for t in range(xs.shape[0]):
        g = p["W"] @ np.concatenate([xs[t], h]) + p["b"]
        i = sigmoid(g[:H] + p["pi"] * c)
        f = sigmoid(g[H:2 * H] + p["pf"] * c + 1.0)
        c = f * c + i * np.tanh(g[2 * H:3 * H])
        o = sigmoid(g[3 * H:] + p["po"] * c)
        h = o * np.tanh(c)
    return np.sum((h - y) ** 2)


def lstm_args(r, H=2, D=3):
    return ({"W": 0.4 * M(r, 4 * H, D + H), "b": 0.1 * M(r, 4 * H), "pi": 0.2 * M(r, H),
             "pf": 0.2 * M(r, H), "po": 0.2 * M(r, H)}, M(r, 4, D), M(r, H))


def birnn(p, xs, y):
    T = xs.shape[0]
    hf = np.zeros(p["Wf"].shape[0])
    hb = np.zeros(p["Wb"].shape[0])
    for t in range(T):
        hf = np.tanh(p["Wf"] @ xs[t] + p["Uf"] @ hf)
    for t in reversed(range(T)):
        hb = np.tanh(p["Wb"] @ xs[t] + p["Ub"] @ hb)
    out = np.concatenate([hf, hb]) @ p["V"]
    return np.sum((out - y) ** 2)


def birnn_args(r, H=2, D=3):
    return ({"Wf": 0.5 * M(r, H, D), "Uf": 0.5 * M(r, H, H), "Wb": 0.5 * M(r, H, D), "Ub": 0.5 * M(r, H, H),
             "V": M(r, 2 * H, 2)}, M(r, 4, D), M(r, 2))


def prenorm_residual_blocks(blocks, x, y):
    h = x
    for blk in blocks:
        z = (h - h.mean()) / np.sqrt(h.var() + 1e-5)
        h = h + np.tanh(z @ blk["W1"] + blk["b1"]) @ blk["W2"]
    return np.sum((h - y) ** 2)


def blocks_args(r, d=4, n=2):
    return [{"W1": 0.5 * M(r, d, 3), "b1": 0.1 * M(r, 3), "W2": 0.5 * M(r, 3, d)} for _ in range(n)], M(r, d), M(r, d)


def highway_layer(p, x, y):
    t = sigmoid(x @ p["Wt"] + p["bt"])
    h = np.tanh(x @ p["Wh"])
    out = t * h + (1.0 - t) * x
    return np.sum((out - y) ** 2)


def highway_args(r):
    return {"Wt": M(r, 3, 3), "bt": -1.0 + 0.1 * M(r, 3), "Wh": M(r, 3, 3)}, M(r, 3), M(r, 3)


def swiglu(p, X, y):
    a = X @ p["W"]
    gate = X @ p["V"]
    h = a * gate * sigmoid(gate)
    return np.mean((h @ p["W2"] - y) ** 2)


def swiglu_args(r):
    return {"W": M(r, 3, 4), "V": M(r, 3, 4), "W2": M(r, 4, 1)}, M(r, 5, 3), M(r, 5, 1)


def moe_gating(p, x, y):
    gates = softmax(p["Wg"] @ x)
    experts = [np.tanh(E @ x) for E in p["experts"]]
    out = sum(g * e for g, e in zip(gates, experts))
    return np.sum((out - y) ** 2)


def moe_args(r):
    return {"Wg": M(r, 3, 4), "experts": [0.5 * M(r, 2, 4) for _ in range(3)]}, M(r, 4), M(r, 2)


def embedding_mean_pool(p, tokens, y):
    e = p["E"][tokens]
    pooled = e.mean(axis=0)
    logit = pooled @ p["w"]
    return np.logaddexp(0.0, -y * logit)


def emb_args(r):
    return {"E": M(r, 6, 3), "w": M(r, 3)}, np.array([1, 4, 4, 0, 5]), 1.0


def maxpool1d_reshape(w, x):
    h = np.tanh(np.outer(x, w)).reshape(-1)
    pooled = h.reshape(-1, 3).max(axis=1)
    return np.sum(pooled ** 2)


def mp_args(r):
    return M(r, 3), M(r, 4)


def sinusoidal_positions(W, X):
    T, d = X.shape
    pos = np.arange(T)[:, None]
    i = np.arange(d)[None, :]
    angle = pos / 10000.0 ** (2 * (i // 2) / d)
    pe = np.where(i % 2 == 0, np.sin(angle), np.cos(angle))
    return np.sum(np.tanh((X + pe) @ W))


def pe_args(r):
    return M(r, 4, 2), M(r, 5, 4)


def dropout_seeded_inside(p, x, y, rate=0.3):
    rng = np.random.default_rng(0)
    h = np.tanh(x @ p["W1"])
    keep = rng.random(h.shape) >= rate
    h = np.where(keep, h / (1.0 - rate), 0.0)
    return np.sum((h @ p["W2"] - y) ** 2)


def drop_args(r):
    return {"W1": M(r, 3, 6), "W2": M(r, 6, 2)}, M(r, 3), M(r, 2)


def gaussian_noise_seeded(w, X, y, sigma=0.1):
    rng = np.random.default_rng(42)
    Xn = X + sigma * rng.standard_normal(X.shape)
    return np.mean((Xn @ w - y) ** 2)


def glu_conv_stack(p, x):
    h = x
    for layer in p:
        a = np.convolve(h, layer["a"], mode="same")
        g = np.convolve(h, layer["g"], mode="same")
        h = a * sigmoid(g)
    return np.sum(h ** 2)


def glu_args(r):
    return [{"a": 0.6 * M(r, 3), "g": M(r, 3)} for _ in range(2)], M(r, 7)


# ---- parameter trees ------------------------------------------------------------------------------

Params = collections.namedtuple("Params", ["W", "b", "log_scale"])


def namedtuple_params(p, X, y):
    pred = (X @ p.W + p.b) * np.exp(p.log_scale)
    return np.mean((pred - y) ** 2)


def nt_args(r):
    return Params(M(r, 3, 2), 0.1 * M(r, 2), 0.2), M(r, 6, 3), M(r, 6, 2)


def nested_dict_autoencoder(p, X):
    z = np.tanh(X @ p["enc"]["W"] + p["enc"]["b"])
    xr = z @ p["dec"]["W"] + p["dec"]["b"]
    return np.mean((xr - X) ** 2)


def ae_args(r):
    enc = {"W": 0.5 * M(r, 4, 2), "b": 0.1 * M(r, 2)}
    return {"enc": enc, "dec": {"W": 0.5 * M(r, 2, 4), "b": 0.1 * M(r, 4)}}, M(r, 6, 4)


def tuple_of_arrays_logreg(params, X, y):
    w, b = params
    z = X @ w + b
    return np.sum(np.logaddexp(0.0, z) - y * z)


def tup_args(r):
    return (M(r, 3), np.array([0.2])), M(r, 8, 3), (r.random(8) > 0.5).astype(float)


def list_of_dicts_mlp(layers, x, y):
    h = x
    for layer in layers[:-1]:
        h = np.maximum(h @ layer["W"] + layer["b"], 0.01 * (h @ layer["W"] + layer["b"]))
    out = h @ layers[-1]["W"] + layers[-1]["b"]
    return 0.5 * np.sum((out - y) ** 2)


def lod_args(r, sizes=(3, 4, 4, 2)):
    return [{"W": 0.6 * M(r, m, n), "b": 0.1 * M(r, n) + 0.05} for m, n in zip(sizes[:-1], sizes[1:])], M(r, 3), M(r, 2)


def dict_with_float_scalars(p, x, y):
    pred = p["a"] * np.sin(p["omega"] * x + p["phase"])
    return np.sum((pred - y) ** 2) * math.exp(-2.0 * p["log_sigma"]) + len(x) * p["log_sigma"]


def dfs_args(r):
    x = np.linspace(0.0, 3.0, 7)
    return {"a": 1.2, "omega": 0.9, "phase": 0.3, "log_sigma": -0.2}, x, np.sin(x) + 0.1 * M(r, 7)


# ---- regularisers ---------------------------------------------------------------------------------


def l1_l2_over_layers(layers, x, y, l1=1e-2, l2=1e-3):
    h = x
    for W in layers:
        h = np.tanh(h @ W)
    data = np.sum((h - y) ** 2)
    return data + l1 * sum(np.sum(np.abs(W)) for W in layers) + l2 * sum(np.sum(W ** 2) for W in layers)


def l12_args(r):
    return [0.7 * M(r, 3, 3), 0.7 * M(r, 3, 2)], M(r, 3), M(r, 2)


def weight_decay_dict_items(p, X, y, lam=1e-2):
    pred = X @ p["W"] + p["b"]
    penalty = 0.0
    for name, value in p.items():
        if name.startswith("W"):
            penalty = penalty + np.sum(value ** 2)
    return np.mean((pred - y) ** 2) + lam * penalty


def wd_args(r):
    return {"W": M(r, 3, 2), "b": 0.1 * M(r, 2)}, M(r, 6, 3), M(r, 6, 2)


def spectral_power_iteration(W, X, y, steps=5):
    u = np.ones(W.shape[0]) / np.sqrt(W.shape[0])
    for _ in range(steps):
        v = W.T @ u
        v = v / np.linalg.norm(v)
        u = W @ v
        u = u / np.linalg.norm(u)
    sigma = u @ W @ v
    return np.mean((X @ (W / sigma) - y) ** 2)


def spec_args(r):
    return M(r, 3, 2), M(r, 5, 3), M(r, 5, 2)


def max_norm_penalty(W, X, y, c=1.0):
    norms = np.sqrt(np.sum(W ** 2, axis=0))
    return np.mean((X @ W - y) ** 2) + np.sum(np.maximum(norms - c, 0.0) ** 2)


def mn_args(r):
    return np.array([[1.2, 0.1], [0.3, 0.2], [-0.8, 0.4]]), M(r, 5, 3), M(r, 5, 2)


def entropy_bonus_policy(theta, S, actions, adv, beta=0.01):
    logp = log_softmax(S @ theta)
    p = np.exp(logp)
    chosen = logp[np.arange(len(actions)), actions]
    entropy = -np.sum(p * logp, axis=1)
    return -np.mean(chosen * adv + beta * entropy)


def pol_args(r):
    return 0.5 * M(r, 4, 3), M(r, 6, 4), np.array([0, 1, 2, 2, 1, 0]), M(r, 6)


def smooth_tv_1d(x, y, lam=0.5, eps=1e-3):
    d = np.diff(x)
    return 0.5 * np.sum((x - y) ** 2) + lam * np.sum(np.sqrt(d * d + eps))


def tv_args(r):
    return M(r, 6), M(r, 6)


PROGRAMS = [
    # losses
    ("huber_tf", huber_tf, reg_args, 0),
    ("pseudo_huber", pseudo_huber, reg_args, 0),
    ("log_cosh_loss", log_cosh_loss, reg_args, 0),
    ("pinball_loss", pinball_loss, reg_args, 0),
    ("squared_hinge", squared_hinge, binary_pm_args, 0),
    ("hinge_l2_svm", hinge_l2_svm, svm_args, 0),
    ("multiclass_focal", multiclass_focal, cls_args, 0),
    ("multiclass_focal_inputs", multiclass_focal, cls_args, 1),
    ("contrastive_pairs", contrastive_pairs, pairs_args, 0),
    ("triplet_squared", triplet_squared, triplet_args, 0),
    ("triplet_squared_anchor", triplet_squared, triplet_args, 1),
    ("triplet_euclidean_normed", triplet_euclidean_normed, triplet_args, 0),
    ("label_smoothing_logsumexp", label_smoothing_logsumexp, cls_args, 0),
    ("distill_kl_temperature", distill_kl_temperature, distill_args, 0),
    ("distill_kl_teacher", distill_kl_temperature, distill_args, 2),
    ("js_divergence", js_divergence, js_args, 0),
    ("soft_dice", soft_dice, seg_args, 0),
    ("tversky", tversky, seg_args, 0),
    ("bce_clipped_probs", bce_clipped_probs, bce_args, 0),
    ("info_nce", info_nce, nce_args, 0),
    ("margin_ranking", margin_ranking, ranking_args, 0),
    ("weighted_mse_sample_weights", weighted_mse_sample_weights, wmse_args, 0),
    ("weighted_mse_wrt_weights", weighted_mse_sample_weights, wmse_args, 3),
    ("ordinal_logit", ordinal_logit, ordinal_args, 0),
    ("poisson_nll_log_input", poisson_nll_log_input,
     lambda r: (0.3 * M(r, 3), M(r, 8, 3), r.poisson(2.0, 8).astype(float)), 0),
    ("cosine_embedding", cosine_embedding, cos_args, 0),
    # layers
    ("layernorm_affine_batch", layernorm_affine_batch, ln_args, 0),
    ("layernorm_wrt_input", layernorm_wrt_input, lambda r: (M(r, 3, 4), {"gamma": P(r, 4), "beta": 0.1 * M(r, 4)}), 0),
    ("batchnorm_train_then_dense", batchnorm_train_then_dense, bn_args, 0),
    ("batchnorm_train_inputs", batchnorm_train_then_dense, bn_args, 1),
    ("groupnorm_reshape", groupnorm_reshape, gn_args, 0),
    ("groupnorm_reshape_input", groupnorm_reshape, gn_args, 1),
    ("attention_padding_mask", attention_padding_mask, attn_args, 0),
    ("attention_padding_mask_x", attention_padding_mask, attn_args, 1),
    ("attention_neg_inf_causal", attention_neg_inf_causal, causal_args, 0),
    ("cross_attention", cross_attention, cross_args, 0),
    ("cross_attention_memory", cross_attention, cross_args, 2),
    ("conv1d_loop_valid", conv1d_loop_valid, conv_args, 0),
    ("conv1d_loop_valid_signal", conv1d_loop_valid, conv_args, 1),
    ("conv1d_list_append", conv1d_list_append, conv_args, 0),
    ("conv1d_channels_stride_pad", conv1d_channels_stride_pad, conv_ch_args, 0),
    ("conv1d_channels_stride_pad_x", conv1d_channels_stride_pad, conv_ch_args, 1),
    ("depthwise_conv1d", depthwise_conv1d, dw_args, 0),
    ("gru_time_loop", gru_time_loop, gru_args, 0),
    ("gru_time_loop_inputs", gru_time_loop, gru_args, 1),
    ("lstm_peephole", lstm_peephole, lstm_args, 0),
    ("birnn", birnn, birnn_args, 0),
    ("prenorm_residual_blocks", prenorm_residual_blocks, blocks_args, 0),
    ("highway_layer", highway_layer, highway_args, 0),
    ("swiglu", swiglu, swiglu_args, 0),
    ("moe_gating", moe_gating, moe_args, 0),
    ("embedding_mean_pool", embedding_mean_pool, emb_args, 0),
    ("maxpool1d_reshape", maxpool1d_reshape, mp_args, 0),
    ("sinusoidal_positions", sinusoidal_positions, pe_args, 1),
    ("dropout_seeded_inside", dropout_seeded_inside, drop_args, 0),
    ("gaussian_noise_seeded", gaussian_noise_seeded, reg_args, 0),
    ("gaussian_noise_seeded_X", gaussian_noise_seeded, reg_args, 1),
    ("glu_conv_stack", glu_conv_stack, glu_args, 0),
    # parameter trees
    ("namedtuple_params", namedtuple_params, nt_args, 0),
    ("nested_dict_autoencoder", nested_dict_autoencoder, ae_args, 0),
    ("tuple_of_arrays_logreg", tuple_of_arrays_logreg, tup_args, 0),
    ("list_of_dicts_mlp", list_of_dicts_mlp, lod_args, 0),
    ("dict_with_float_scalars", dict_with_float_scalars, dfs_args, 0),
    # regularisers
    ("l1_l2_over_layers", l1_l2_over_layers, l12_args, 0),
    ("weight_decay_dict_items", weight_decay_dict_items, wd_args, 0),
    ("spectral_power_iteration", spectral_power_iteration, spec_args, 0),
    ("max_norm_penalty", max_norm_penalty, mn_args, 0),
    ("entropy_bonus_policy", entropy_bonus_policy, pol_args, 0),
    ("smooth_tv_1d", smooth_tv_1d, tv_args, 0),
]
