"""The red team's fifteenth wave: training steps of machine learning written as users write them in
plain NumPy (scaled dot-product attention with a softmax helper, layer norm, RMSNorm with a SwiGLU
feed-forward, an LSTM cell, InfoNCE and cosine-embedding contrastive losses, label smoothing,
multi-class focal loss gathered by integer labels, a VAE ELBO, batch norm in training mode, a
Crammer-Singer hinge, knowledge distillation with a temperature, an embedding lookup with repeated
indices, a hand-written SGD step then the loss, clipping by global norm, mixup, Q-learning with a
max over next actions, REINFORCE with returns discounted in a reversed loop, multi-head attention
by reshape and transpose, Sinkhorn iterations in log space, a Gaussian-process marginal likelihood,
soft k-means, the Dice loss, a pairwise ranking hinge, an Euler-integrated neural ODE).  Physics,
statistics and finance are in redteam_wave15_science.py; geometry and everyday Python in
redteam_wave15_everyday.py; special points and float32 in redteam_wave15_points.py; library calls (lstsq, interp,
median, eigh, np.add.at, mask writes) in redteam_wave15_numerics.py.

`WAVE15` holds all five: ``(name, function, make, wrt)`` as in redteam_programs.py, every name
``w15_…``.
"""

from __future__ import annotations

import numpy as np
import scipy.special


def M(rng, *shape):
    return rng.normal(size=shape)


# ---- attention and normalisation ---------------------------------------------------------------------


def softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def attention_loss(Wq, Wk, Wv, X):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    d = Q.shape[-1]
    A = softmax(Q @ K.T / np.sqrt(d))
    out = A @ V
    return np.mean(out ** 2)


def layer_norm_loss(gamma, beta, X, target, eps=1e-5):
    mu = X.mean(axis=-1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=-1, keepdims=True)
    h = gamma * (X - mu) / np.sqrt(var + eps) + beta
    return np.sum((h - target) ** 2)


def layer_norm_input(X, gamma, beta):
    mu = np.mean(X, axis=1, keepdims=True)
    sd = np.sqrt(np.var(X, axis=1, keepdims=True) + 1e-6)
    return np.sum(np.tanh(gamma * (X - mu) / sd + beta))


def rms_swiglu(params, X):
    rms = np.sqrt(np.mean(X ** 2, axis=-1, keepdims=True) + 1e-6)
    h = X / rms * params["g"]
    a = h @ params["W1"]
    b = h @ params["W2"]
    silu = a / (1.0 + np.exp(-a))
    return np.sum((silu * b) @ params["W3"])


def lstm_cell(p, h, c, x):
    z = np.concatenate([h, x]) @ p["W"] + p["b"]
    n = h.shape[0]
    i = 1.0 / (1.0 + np.exp(-z[:n]))
    f = 1.0 / (1.0 + np.exp(-z[n:2 * n]))
    o = 1.0 / (1.0 + np.exp(-z[2 * n:3 * n]))
    g = np.tanh(z[3 * n:])
    c_new = f * c + i * g
    h_new = o * np.tanh(c_new)
    return np.sum(h_new ** 2) + 0.1 * np.sum(c_new)


def lstm_unrolled(p, xs):
    n = p["b"].shape[0] // 4
    h = np.zeros(n)
    c = np.zeros(n)
    for x in xs:
        z = p["W"] @ np.concatenate([h, x]) + p["b"]
        i, f, o, g = np.split(z, 4)
        i, f, o = scipy.special.expit(i), scipy.special.expit(f), scipy.special.expit(o)
        c = f * c + i * np.tanh(g)
        h = o * np.tanh(c)
    return np.sum(h)


# ---- losses --------------------------------------------------------------------------------------------


def info_nce(z1, z2, temperature=0.1):
    a = z1 / np.linalg.norm(z1, axis=1, keepdims=True)
    b = z2 / np.linalg.norm(z2, axis=1, keepdims=True)
    logits = a @ b.T / temperature
    lse = scipy.special.logsumexp(logits, axis=1)
    return np.mean(lse - np.diag(logits))


def cosine_embedding_loss(x1, x2, y, margin=0.2):
    cos = np.sum(x1 * x2, axis=1) / (np.linalg.norm(x1, axis=1) * np.linalg.norm(x2, axis=1))
    pos = 1.0 - cos
    neg = np.maximum(0.0, cos - margin)
    return np.mean(np.where(y > 0, pos, neg))


def label_smoothing_ce(logits, labels, eps=0.1):
    n, k = logits.shape
    target = np.full((n, k), eps / k)
    target[np.arange(n), labels] += 1.0 - eps
    logp = logits - scipy.special.logsumexp(logits, axis=1, keepdims=True)
    return -np.sum(target * logp) / n


def focal_multiclass(logits, labels, gamma=2.0, alpha=0.25):
    p = softmax(logits)
    pt = p[np.arange(len(labels)), labels]
    return -np.mean(alpha * (1.0 - pt) ** gamma * np.log(pt))


def vae_elbo(enc, dec, x, eps):
    h = np.tanh(x @ enc["W"] + enc["b"])
    mu, logvar = h @ enc["Wmu"], h @ enc["Wlv"]
    z = mu + np.exp(0.5 * logvar) * eps
    logits = z @ dec["W"] + dec["b"]
    rec = np.sum(x * logits - np.logaddexp(0.0, logits), axis=1)
    kl = -0.5 * np.sum(1.0 + logvar - mu ** 2 - np.exp(logvar), axis=1)
    return -np.mean(rec - kl)


def batch_norm_train(gamma, beta, X, W):
    H = X @ W
    mean = H.mean(axis=0)
    var = H.var(axis=0)
    Hn = (H - mean) / np.sqrt(var + 1e-5)
    out = gamma * Hn + beta
    return np.mean(np.maximum(out, 0.0) ** 2)


def crammer_singer_hinge(W, X, y):
    S = X @ W
    n = S.shape[0]
    correct = S[np.arange(n), y]
    margins = S - correct[:, None] + 1.0
    margins[np.arange(n), y] = 0.0
    return np.mean(np.max(margins, axis=1))


def distillation(student_logits, teacher_logits, T=2.0, alpha=0.7, labels=None):
    ps = scipy.special.log_softmax(student_logits / T, axis=1)
    pt = scipy.special.softmax(teacher_logits / T, axis=1)
    kd = np.sum(pt * (np.log(pt) - ps)) / len(pt) * T * T
    if labels is None:
        return kd
    hard = -np.mean(scipy.special.log_softmax(student_logits, axis=1)[np.arange(len(labels)), labels])
    return alpha * kd + (1 - alpha) * hard


def embedding_bag(E, idx, w, y):
    pooled = E[idx].mean(axis=1)
    z = pooled @ w
    return np.mean(np.logaddexp(0.0, -y * z))


def sgd_step_then_loss(params, X, y, lr=0.1):
    W, b = params["W"], params["b"]
    r = X @ W + b - y
    gW = X.T @ r / len(y)
    gb = r.mean()
    W2 = W - lr * gW
    b2 = b - lr * gb
    return 0.5 * np.mean((X @ W2 + b2 - y) ** 2)


def clip_by_global_norm(w, X, y, max_norm=0.5, lr=0.3):
    g = X.T @ (np.tanh(X @ w) - y)
    norm = np.sqrt(np.sum(g ** 2))
    scale = min(1.0, max_norm / norm)
    w = w - lr * scale * g
    return np.sum((np.tanh(X @ w) - y) ** 2)


def mixup_loss(W, xa, xb, ya, yb, lam=0.3):
    x = lam * xa + (1 - lam) * xb
    logp = scipy.special.log_softmax(x @ W, axis=-1)
    return -(lam * logp[ya] + (1 - lam) * logp[yb])


def q_learning_loss(W, s, a, r, s_next, gamma=0.95):
    q = s @ W
    q_sa = q[np.arange(len(a)), a]
    target = r + gamma * np.max(s_next @ W, axis=1)
    return np.mean((q_sa - target) ** 2)


def reinforce(theta, states, actions, rewards, gamma=0.9):
    returns = []
    G = 0.0
    for r in reversed(rewards):
        G = r + gamma * G
        returns.insert(0, G)
    returns = np.array(returns)
    logits = states @ theta
    logp = logits - scipy.special.logsumexp(logits, axis=1, keepdims=True)
    chosen = logp[np.arange(len(actions)), actions]
    return -np.sum(chosen * (returns - returns.mean()))


def multihead_attention(Wqkv, X, heads=2):
    n, d = X.shape
    qkv = X @ Wqkv
    q, k, v = np.split(qkv, 3, axis=1)
    dh = d // heads
    q = q.reshape(n, heads, dh).transpose(1, 0, 2)
    k = k.reshape(n, heads, dh).transpose(1, 0, 2)
    v = v.reshape(n, heads, dh).transpose(1, 0, 2)
    s = np.einsum("hid,hjd->hij", q, k) / np.sqrt(dh)
    a = softmax(s, axis=-1)
    o = np.einsum("hij,hjd->hid", a, v).transpose(1, 0, 2).reshape(n, d)
    return np.sum(o * X)


def sinkhorn_cost(C, a, b, eps=0.5, iters=20):
    f = np.zeros_like(a)
    g = np.zeros_like(b)
    for _ in range(iters):
        f = -eps * scipy.special.logsumexp((g[None, :] - C) / eps + np.log(b)[None, :], axis=1)
        g = -eps * scipy.special.logsumexp((f[:, None] - C) / eps + np.log(a)[:, None], axis=0)
    P = np.exp((f[:, None] + g[None, :] - C) / eps) * a[:, None] * b[None, :]
    return np.sum(P * C)


def gp_neg_marginal_likelihood(log_params, X, y):
    ell, sf, sn = np.exp(log_params)
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf ** 2 * np.exp(-0.5 * d2 / ell ** 2) + (sn ** 2 + 1e-8) * np.eye(len(y))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(y) * np.log(2 * np.pi)


def soft_kmeans(centers, X, beta=2.0):
    d2 = ((X[:, None, :] - centers[None, :, :]) ** 2).sum(-1)
    r = softmax(-beta * d2, axis=1)
    return np.sum(r * d2) / X.shape[0]


def dice_loss(logits, mask, smooth=1.0):
    p = 1.0 / (1.0 + np.exp(-logits))
    inter = (p * mask).sum()
    return 1.0 - (2.0 * inter + smooth) / (p.sum() + mask.sum() + smooth)


def pairwise_ranking(w, X, rel, margin=1.0):
    s = X @ w
    diff = s[:, None] - s[None, :]
    better = rel[:, None] > rel[None, :]
    return np.sum(np.where(better, np.maximum(0.0, margin - diff), 0.0))


def neural_ode(W, x0, dt=0.1, steps=8):
    x = x0
    traj = [x]
    for _ in range(steps):
        x = x + dt * np.tanh(W @ x)
        traj.append(x)
    traj = np.stack(traj)
    return np.sum(traj[-1] ** 2) + 0.01 * np.sum(traj ** 2)


def weighted_softmax_regression(W, X, y, class_weight, reg=1e-2):
    logp = scipy.special.log_softmax(X @ W, axis=1)
    nll = -logp[np.arange(len(y)), y] * class_weight[y]
    return nll.sum() / class_weight[y].sum() + reg * (W ** 2).sum()


def weight_decay_dict(params, X, y, wd=1e-3):
    h = np.tanh(X @ params["W1"] + params["b1"])
    pred = h @ params["W2"]
    loss = np.mean((pred - y) ** 2)
    loss += wd * sum(np.sum(v ** 2) for k, v in params.items() if k.startswith("W"))
    return loss


def conv1d_channels(kernels, x):
    out = 0.0
    for k in kernels:
        y = np.convolve(x, k, mode="valid")
        out = out + np.sum(np.maximum(y, 0.0) ** 2)
    return out


def gelu_mlp(W1, W2, X, y):
    h = X @ W1
    g = 0.5 * h * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (h + 0.044715 * h ** 3)))
    return np.mean((g @ W2 - y) ** 2)


def _enc(r):
    return {"W": 0.5 * M(r, 4, 3), "b": M(r, 3), "Wmu": 0.5 * M(r, 3, 2), "Wlv": 0.3 * M(r, 3, 2)}


def _lstm(r, n=3, m=2):
    return {"W": 0.4 * M(r, n + m, 4 * n), "b": 0.1 * M(r, 4 * n)}


def _lstm_T(r, n=3, m=2):
    return {"W": 0.4 * M(r, 4 * n, n + m), "b": 0.1 * M(r, 4 * n)}


def _simplex(r, n):
    p = r.uniform(0.5, 1.5, size=n)
    return p / p.sum()


ML15 = [
    ("w15_attention_Wq", attention_loss, lambda r: (0.5 * M(r, 4, 4), 0.5 * M(r, 4, 4), M(r, 4, 4), M(r, 5, 4)), 0),
    ("w15_attention_X", attention_loss, lambda r: (0.5 * M(r, 4, 4), 0.5 * M(r, 4, 4), M(r, 4, 4), M(r, 5, 4)), 3),
    ("w15_layer_norm_gamma", layer_norm_loss, lambda r: (1.0 + 0.1 * M(r, 5), M(r, 5), M(r, 3, 5), M(r, 3, 5)), 0),
    ("w15_layer_norm_X", layer_norm_loss, lambda r: (1.0 + 0.1 * M(r, 5), M(r, 5), M(r, 3, 5), M(r, 3, 5)), 2),
    ("w15_layer_norm_input", layer_norm_input, lambda r: (M(r, 3, 4), M(r, 4), M(r, 4)), 0),
    ("w15_rms_swiglu", rms_swiglu,
     lambda r: ({"g": np.ones(4), "W1": 0.5 * M(r, 4, 6), "W2": 0.5 * M(r, 4, 6), "W3": 0.5 * M(r, 6, 4)},
                M(r, 3, 4)), 0),
    ("w15_lstm_cell", lstm_cell, lambda r: (_lstm(r), M(r, 3), M(r, 3), M(r, 2)), 0),
    ("w15_lstm_cell_state", lstm_cell, lambda r: (_lstm(r), M(r, 3), M(r, 3), M(r, 2)), 2),
    ("w15_lstm_unrolled", lstm_unrolled, lambda r: (_lstm_T(r), M(r, 4, 2)), 0),
    ("w15_info_nce", info_nce, lambda r: (M(r, 4, 3), M(r, 4, 3)), 0),
    ("w15_cosine_embedding", cosine_embedding_loss,
     lambda r: (M(r, 5, 3), M(r, 5, 3), np.array([1, -1, 1, -1, -1])), 0),
    ("w15_label_smoothing", label_smoothing_ce, lambda r: (M(r, 4, 3), np.array([0, 2, 1, 2])), 0),
    ("w15_focal_multiclass", focal_multiclass, lambda r: (M(r, 5, 3), np.array([0, 1, 2, 2, 0])), 0),
    ("w15_vae_elbo_enc", vae_elbo, lambda r: (_enc(r), {"W": 0.5 * M(r, 2, 4), "b": M(r, 4)},
                                              (M(r, 6, 4) > 0).astype(float), M(r, 6, 2)), 0),
    ("w15_vae_elbo_dec", vae_elbo, lambda r: (_enc(r), {"W": 0.5 * M(r, 2, 4), "b": M(r, 4)},
                                              (M(r, 6, 4) > 0).astype(float), M(r, 6, 2)), 1),
    ("w15_batch_norm_train", batch_norm_train,
     lambda r: (1.0 + 0.1 * M(r, 3), 0.5 + M(r, 3), M(r, 6, 4), M(r, 4, 3)), 3),
    ("w15_crammer_singer", crammer_singer_hinge, lambda r: (M(r, 3, 4), M(r, 6, 3), np.array([0, 1, 2, 3, 1, 0])), 0),
    ("w15_distillation", distillation, lambda r: (M(r, 4, 3), M(r, 4, 3), 2.0, 0.7, np.array([0, 1, 2, 1])), 0),
    ("w15_distillation_kd_only", distillation, lambda r: (M(r, 4, 3), M(r, 4, 3)), 0),
    ("w15_embedding_bag", embedding_bag, lambda r: (M(r, 5, 3), np.array([[0, 1, 1], [2, 4, 0], [3, 3, 3]]),
                                                    M(r, 3), np.array([1.0, -1.0, 1.0])), 0),
    ("w15_sgd_step_then_loss", sgd_step_then_loss, lambda r: ({"W": M(r, 3), "b": 0.1}, M(r, 8, 3), M(r, 8)), 0),
    ("w15_clip_by_global_norm", clip_by_global_norm, lambda r: (M(r, 3), M(r, 6, 3), np.sign(M(r, 6))), 0),
    ("w15_mixup", mixup_loss, lambda r: (M(r, 4, 3), M(r, 4), M(r, 4), 2, 0), 0),
    ("w15_q_learning", q_learning_loss, lambda r: (M(r, 3, 2), M(r, 5, 3), np.array([0, 1, 1, 0, 1]), M(r, 5),
                                                   M(r, 5, 3)), 0),
    ("w15_reinforce", reinforce, lambda r: (M(r, 3, 2), M(r, 5, 3), np.array([0, 1, 1, 0, 1]),
                                            [1.0, 0.0, -0.5, 2.0, 1.0]), 0),
    ("w15_multihead_attention", multihead_attention, lambda r: (0.4 * M(r, 4, 12), M(r, 3, 4)), 0),
    ("w15_sinkhorn_cost", sinkhorn_cost, lambda r: (np.abs(M(r, 3, 4)), _simplex(r, 3), _simplex(r, 4)), 0),
    ("w15_gp_nll", gp_neg_marginal_likelihood, lambda r: (np.array([0.2, 0.1, -1.0]), M(r, 6, 2), M(r, 6)), 0),
    ("w15_soft_kmeans", soft_kmeans, lambda r: (M(r, 3, 2), M(r, 10, 2)), 0),
    ("w15_dice_loss", dice_loss, lambda r: (M(r, 4, 4), (M(r, 4, 4) > 0).astype(float)), 0),
    ("w15_pairwise_ranking", pairwise_ranking, lambda r: (M(r, 3), M(r, 6, 3), np.array([2, 0, 1, 1, 0, 2])), 0),
    ("w15_neural_ode", neural_ode, lambda r: (0.5 * M(r, 3, 3), M(r, 3)), 0),
    ("w15_neural_ode_x0", neural_ode, lambda r: (0.5 * M(r, 3, 3), M(r, 3)), 1),
    ("w15_weighted_softmax_regression", weighted_softmax_regression,
     lambda r: (M(r, 3, 3), M(r, 7, 3), np.array([0, 1, 2, 2, 1, 0, 0]), np.array([1.0, 2.0, 0.5])), 0),
    ("w15_weight_decay_dict", weight_decay_dict,
     lambda r: ({"W1": M(r, 3, 4), "b1": M(r, 4), "W2": M(r, 4)}, M(r, 5, 3), M(r, 5)), 0),
    ("w15_conv1d_channels", conv1d_channels, lambda r: ([M(r, 3), M(r, 3)], M(r, 9)), 1),
    ("w15_gelu_mlp", gelu_mlp, lambda r: (0.5 * M(r, 3, 5), 0.5 * M(r, 5), M(r, 6, 3), M(r, 6)), 0),
]


def _all():
    from .redteam_wave15_everyday import EVERYDAY15
    from .redteam_wave15_numerics import NUMERICS15
    from .redteam_wave15_points import POINTS15
    from .redteam_wave15_science import SCIENCE15
    return ML15 + SCIENCE15 + EVERYDAY15 + POINTS15 + NUMERICS15


WAVE15 = _all()
