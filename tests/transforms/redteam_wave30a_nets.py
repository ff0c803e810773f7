"""The red team's wave 30a, small networks and recommenders: attention with causal masks by
np.triu and np.where, multi-head by reshape and transpose, layer and RMS norms, residual blocks,
GELU, rotary embeddings, label-smoothed cross-entropy; skip-gram with negative sampling, matrix
factorisation and BPR through index arrays, ListNet; mixtures by logsumexp; Huber, Tukey, Cauchy
and quantile losses by np.where and if (test_redteam_wave30a.py runs them through every
transformation)."""

from __future__ import annotations

import numpy as np

from .redteam_wave29a_robotics import M

D_MODEL = 4
SEQ = 5
TOKENS = np.linspace(-1.0, 1.0, SEQ * D_MODEL).reshape(SEQ, D_MODEL) ** 3 + 0.1
USERS = np.array([0, 0, 1, 2, 2, 3, 1, 3])
ITEMS = np.array([1, 2, 0, 2, 3, 1, 3, 0])
RATINGS = np.array([4.0, 3.0, 5.0, 2.0, 4.0, 1.0, 3.0, 5.0])
DATA = np.array([-2.1, -1.7, -0.4, 0.1, 0.3, 1.8, 2.2, 2.6, 8.0])


def softmax(z, axis=-1):
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def layer_norm(x, gain=1.0, bias=0.0, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return gain * (x - mu) / np.sqrt(var + eps) + bias


def causal_attention(Wq, Wk=np.eye(D_MODEL) * 0.5, Wv=np.eye(D_MODEL)):  # noqa: B008
    """Single-head attention with a causal mask written as np.where on np.triu."""
    q, k, v = TOKENS @ Wq, TOKENS @ Wk, TOKENS @ Wv
    scores = q @ k.T / np.sqrt(D_MODEL)
    mask = np.triu(np.ones((SEQ, SEQ)), k=1).astype(bool)
    scores = np.where(mask, -1e9, scores)
    out = softmax(scores) @ v
    return np.sum(out ** 2)


def multi_head(W, heads=2):
    """Q, K, V from one projection, split into heads by reshape and transpose."""
    qkv = TOKENS @ W.reshape(D_MODEL, 3 * D_MODEL)
    q, k, v = np.split(qkv, 3, axis=-1)
    dh = D_MODEL // heads
    q = q.reshape(SEQ, heads, dh).transpose(1, 0, 2)
    k = k.reshape(SEQ, heads, dh).transpose(1, 0, 2)
    v = v.reshape(SEQ, heads, dh).transpose(1, 0, 2)
    att = softmax(q @ k.transpose(0, 2, 1) / np.sqrt(dh))
    out = (att @ v).transpose(1, 0, 2).reshape(SEQ, D_MODEL)
    return np.sum(layer_norm(out + TOKENS) * TOKENS)


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def transformer_block(params):
    """A pre-norm block: attention and an MLP, each with a residual, params in a dict."""
    p = {"Wq": params[:16].reshape(4, 4), "W1": params[16:32].reshape(4, 4), "W2": params[32:48].reshape(4, 4)}
    h = layer_norm(TOKENS)
    att = softmax(h @ p["Wq"] @ h.T / 2.0)
    x = TOKENS + att @ h
    x = x + gelu(layer_norm(x) @ p["W1"]) @ p["W2"]
    return np.mean(x[-1] ** 2)


def rms_norm_stack(gains, layers=3):
    x = TOKENS
    for layer in range(layers):
        g = gains[layer * D_MODEL:(layer + 1) * D_MODEL]
        rms = np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + 1e-6)
        x = x + np.tanh(x / rms * g)
    return x.sum()


def rotary_scores(theta_scale):
    """Rotary position embeddings: pairs of features rotated by position times a frequency."""
    pos = np.arange(SEQ)[:, None]
    freqs = theta_scale * np.array([1.0, 0.1])[None, :]
    ang = pos * freqs
    cos, sin = np.cos(ang), np.sin(ang)
    x1, x2 = TOKENS[:, 0::2], TOKENS[:, 1::2]
    rot = np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
    scores = rot @ rot.T
    return np.sum(softmax(scores, axis=1) * scores)


def label_smoothed_ce(W, labels=np.array([0, 2, 1, 3, 2]), eps=0.1):  # noqa: B008
    logits = TOKENS @ W
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    n, k = logits.shape
    target = np.full((n, k), eps / k)
    target[np.arange(n), labels] += 1 - eps
    return -np.sum(target * logp) / n


def skipgram_negative(emb, centers=np.array([0, 1, 2, 3, 1]), contexts=np.array([1, 2, 3, 0, 0]),  # noqa: B008
                      negatives=np.array([[2, 3], [3, 0], [0, 1], [1, 2], [2, 3]])):  # noqa: B008
    """word2vec's objective: input and output vectors in one array, rows by index arrays."""
    W_in, W_out = emb[:4], emb[4:]
    u = W_in[centers]
    pos = np.sum(u * W_out[contexts], axis=1)
    neg = np.einsum("nd,nkd->nk", u, W_out[negatives])
    return -np.sum(np.log(1 / (1 + np.exp(-pos)))) - np.sum(np.log(1 / (1 + np.exp(neg))))


def matrix_factorisation(P_flat, rank=2, reg=0.05):
    """Users' and items' factors from one vector; predictions by fancy indexing."""
    U = P_flat[:4 * rank].reshape(4, rank)
    V = P_flat[4 * rank:].reshape(4, rank)
    pred = np.sum(U[USERS] * V[ITEMS], axis=1) + RATINGS.mean()
    return np.mean((pred - RATINGS) ** 2) + reg * (np.sum(U ** 2) + np.sum(V ** 2))


def mf_biases_loop(params):
    """With per-user and per-item biases, the loss as a loop over the ratings."""
    bu, bi = params[:4], params[4:8]
    U, V = params[8:16].reshape(4, 2), params[16:24].reshape(4, 2)
    loss = 0.0
    for u, i, r in zip(USERS, ITEMS, RATINGS):
        err = r - (3.0 + bu[u] + bi[i] + U[u] @ V[i])
        loss += err * err
    return loss / len(RATINGS)


def bpr_loss(params, triples=((0, 1, 3), (1, 0, 2), (2, 3, 0), (3, 0, 1))):
    U, V = params[:8].reshape(4, 2), params[8:].reshape(4, 2)
    loss = 0.0
    for u, pos, neg in triples:
        x = U[u] @ (V[pos] - V[neg])
        loss -= np.log(1 / (1 + np.exp(-x)))
    return loss


def listnet(scores, relevance=np.array([3.0, 1.0, 2.0, 0.0, 1.0])):  # noqa: B008
    p_true = softmax(relevance)
    logp = scores - np.log(np.sum(np.exp(scores)))
    return -np.sum(p_true * logp)


def gmm_nll(params, x=DATA, k=3):
    """A one-dimensional mixture: weights by softmax, the likelihood by logsumexp over components."""
    logits, mu, log_s = params[:k], params[k:2 * k], params[2 * k:]
    log_w = logits - np.log(np.sum(np.exp(logits)))
    z = (x[:, None] - mu[None, :]) / np.exp(log_s)[None, :]
    comp = log_w - log_s - 0.5 * z ** 2 - 0.5 * np.log(2 * np.pi)
    m = comp.max(axis=1, keepdims=True)
    return -np.sum(m[:, 0] + np.log(np.sum(np.exp(comp - m), axis=1)))


def em_responsibilities(mu, sigma=1.0, weights=(0.3, 0.4, 0.3)):
    """One EM step's expected complete log-likelihood with responsibilities held as computed."""
    logs = []
    for j, w in enumerate(weights):
        logs.append(np.log(w) - 0.5 * ((DATA - mu[j]) / sigma) ** 2)
    L = np.stack(logs, axis=1)
    resp = np.exp(L - L.max(axis=1, keepdims=True))
    resp /= resp.sum(axis=1, keepdims=True)
    return -np.sum(resp * L)


def huber(r, delta=1.0):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta))


def robust_regression(beta, loss="huber"):
    x = np.arange(len(DATA), dtype=float)
    r = DATA - (beta[0] + beta[1] * x)
    if loss == "huber":
        return np.sum(huber(r, delta=1.5))
    if loss == "cauchy":
        return np.sum(np.log1p(r ** 2))
    return np.sum(r ** 2)


def tukey_biweight(beta, c=4.685):
    x = np.arange(len(DATA), dtype=float)
    r = (DATA - beta[0] - beta[1] * x) / 1.5
    inside = np.abs(r) < c
    rho = np.where(inside, c ** 2 / 6 * (1 - (1 - (r / c) ** 2) ** 3), c ** 2 / 6)
    return rho.sum()


def huber_loop(beta, delta=1.0):
    total = 0.0
    for i, y in enumerate(DATA):
        r = y - beta[0] - beta[1] * i
        if abs(r) <= delta:
            total += 0.5 * r * r
        else:
            total += delta * (abs(r) - 0.5 * delta)
    return total


def pinball_smooth(q_params, taus=(0.1, 0.5, 0.9), temp=0.05):
    """Quantile losses for three levels, the kink smoothed by softplus."""
    total = 0.0
    for tau, q in zip(taus, q_params):
        u = DATA - q
        total += np.sum(tau * u + temp * np.logaddexp(0.0, -u / temp))
    return total


def residual_mlp(W, x=TOKENS[:, :3]):
    """Two residual layers, biases as a default tuple."""
    A, B = W[:9].reshape(3, 3), W[9:].reshape(3, 3)
    h = x
    for mat, b in ((A, 0.1), (B, -0.1)):
        h = h + np.tanh(h @ mat + b)
    return np.sum(layer_norm(h, gain=1.5) ** 3)


def contrastive_infonce(W, temp=0.5):
    z = TOKENS @ W
    z = z / np.linalg.norm(z, axis=1, keepdims=True)
    sim = z @ z[::-1].T / temp
    labels = np.arange(SEQ)
    logp = sim - np.log(np.exp(sim).sum(axis=1, keepdims=True))
    return -logp[labels, labels].mean()


NETS = [
    ("nn_causal_attention", causal_attention, lambda r: (np.eye(4) + 0.3 * M(r, 4, 4),), 0),
    ("nn_multi_head", multi_head, lambda r: (0.4 * M(r, 48),), 0),
    ("nn_transformer_block", transformer_block, lambda r: (0.3 * M(r, 48),), 0),
    ("nn_rms_norm_stack", rms_norm_stack, lambda r: (1.0 + 0.2 * M(r, 12),), 0),
    ("nn_rotary_scores", rotary_scores, lambda r: (0.7,), 0),
    ("nn_label_smoothed_ce", label_smoothed_ce, lambda r: (0.5 * M(r, 4, 4),), 0),
    ("nn_skipgram_negative", skipgram_negative, lambda r: (0.4 * M(r, 8, 3),), 0),
    ("nn_matrix_factorisation", matrix_factorisation, lambda r: (0.5 * M(r, 16),), 0),
    ("nn_mf_biases_loop", mf_biases_loop, lambda r: (0.3 * M(r, 24),), 0),
    ("nn_bpr_loss", bpr_loss, lambda r: (0.5 * M(r, 16),), 0),
    ("nn_listnet", listnet, lambda r: (M(r, 5),), 0),
    ("nn_gmm_nll", gmm_nll, lambda r: (np.array([0.0, 0.2, -0.3, -1.8, 0.2, 2.3, -0.5, -0.3, 0.0]),), 0),
    ("nn_em_responsibilities", em_responsibilities, lambda r: (np.array([-2.0, 0.0, 2.4]),), 0),
    ("nn_robust_regression", robust_regression, lambda r: (np.array([-2.0, 0.5]),), 0),
    ("nn_tukey_biweight", tukey_biweight, lambda r: (np.array([-2.0, 0.5]),), 0),
    ("nn_huber_loop", huber_loop, lambda r: (np.array([-2.0, 0.52]),), 0),
    ("nn_pinball_smooth", pinball_smooth, lambda r: (np.array([-1.5, 0.3, 2.4]),), 0),
    ("nn_residual_mlp", residual_mlp, lambda r: (0.4 * M(r, 18),), 0),
    ("nn_contrastive_infonce", contrastive_infonce, lambda r: (np.eye(4) + 0.3 * M(r, 4, 4),), 0),
]
