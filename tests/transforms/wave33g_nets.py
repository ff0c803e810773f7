"""Wave 33g: attention with causal and padding masks, a tiny transformer block (layer norm, GELU,
residuals) with parameters in a dict, heads looped and concatenated, normalising flows (planar,
radial, an affine coupling), recommender losses (matrix factorisation over observed triples, BPR,
factorisation machines, implicit feedback with confidences, embeddings fed to an MLP), GRU and LSTM
cells returning tuples, a 1-D convolution written into a preallocated array, a mixture density
network, InfoNCE, label smoothing."""

from __future__ import annotations

import math

import numpy as np
import scipy.special

T, D = 4, 3
CAUSAL = np.tril(np.ones((T, T), dtype=bool))
X_SEQ = np.random.default_rng(11).normal(size=(T, D))
Y_SEQ = np.random.default_rng(12).normal(size=(T, D))
RATINGS = [(0, 0, 4.0), (0, 2, 1.0), (1, 1, 5.0), (2, 0, 3.0), (2, 3, 2.0), (3, 2, 4.5), (1, 3, 1.5)]
N_USERS, N_ITEMS, RANK = 4, 4, 2
TRIPLES = [(0, 1, 2), (1, 0, 3), (2, 3, 1), (3, 2, 0)]
R_IMPLICIT = np.array([[3.0, 0.0, 1.0], [0.0, 2.0, 0.0], [1.0, 0.0, 0.0]])


def _softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_attention(wq, wk=None, wv=None):
    wk = wq if wk is None else wk
    wv = np.eye(D) if wv is None else wv
    q, k, v = X_SEQ @ wq, X_SEQ @ wk, X_SEQ @ wv
    scores = q @ k.T / math.sqrt(D)
    scores = np.where(CAUSAL, scores, -1e9)
    out = _softmax(scores) @ v
    return np.sum((out - Y_SEQ) ** 2)


def padded_attention(params, lengths=(4, 2)):
    total = 0.0
    for b, n in enumerate(lengths):
        x = X_SEQ * (b + 1.0)
        keep = np.arange(T) < n
        s = (x @ params["q"]) @ (x @ params["k"]).T
        s = s + np.where(keep[None, :], 0.0, -1e9)
        total = total + np.sum(_softmax(s, axis=1) @ x)
    return total


def _layer_norm(x, gain, bias, eps=1e-5):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=True)
    return gain * (x - mu) / np.sqrt(var + eps) + bias


def _gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def tiny_transformer(p):
    h = _layer_norm(X_SEQ, p["ln1_g"], p["ln1_b"])
    att = _softmax(np.where(CAUSAL, (h @ p["wq"]) @ (h @ p["wk"]).T / np.sqrt(D), -np.inf)) @ (h @ p["wv"])
    x = X_SEQ + att
    h2 = _layer_norm(x, p["ln2_g"], p["ln2_b"])
    x = x + _gelu(h2 @ p["w1"]) @ p["w2"]
    return np.mean((x - Y_SEQ) ** 2)


def multi_head(w, heads=2):
    outs = []
    for hd in range(heads):
        wq, wk = w[hd, 0], w[hd, 1]
        s = (X_SEQ @ wq) @ (X_SEQ @ wk).T
        outs.append(_softmax(s) @ X_SEQ)
    cat = np.concatenate(outs, axis=1)
    return np.sum(cat ** 2) / cat.size


FLOW_Z = np.random.default_rng(13).normal(size=(5, 2))


def planar_flow(params):
    z = FLOW_Z
    logdet = np.zeros(z.shape[0])
    for u, w, b in params:
        a = z @ w + b
        z = z + np.outer(np.tanh(a), u)
        psi = (1.0 - np.tanh(a) ** 2)[:, None] * w[None, :]
        logdet = logdet + np.log(np.abs(1.0 + psi @ u))
    logp = -0.5 * np.sum(z ** 2, axis=1) - np.log(2 * np.pi)
    return -np.mean(logp + logdet)


def radial_flow(theta, z0=np.array([0.2, -0.1])):  # noqa: B008
    alpha = np.exp(theta[0])
    beta = -alpha + np.log1p(np.exp(theta[1]))
    r = np.linalg.norm(FLOW_Z - z0, axis=1, keepdims=True)
    h = 1.0 / (alpha + r)
    z = FLOW_Z + beta * h * (FLOW_Z - z0)
    logdet = np.log(1 + beta * h) + np.log(1 + beta * h - beta * r * h ** 2)
    return np.mean(0.5 * np.sum(z ** 2, axis=1) - logdet[:, 0])


def affine_coupling(w):
    x1, x2 = FLOW_Z[:, :1], FLOW_Z[:, 1:]
    s = np.tanh(x1 @ w[:1])
    t = x1 @ w[1:]
    y2 = x2 * np.exp(s) + t
    y = np.concatenate([x1, y2], axis=1)
    return np.mean(0.5 * np.sum(y ** 2, axis=1) - np.sum(s, axis=1))


def matrix_factorisation(theta, lam=0.05):
    u = theta[:N_USERS * RANK].reshape(N_USERS, RANK)
    v = theta[N_USERS * RANK:].reshape(N_ITEMS, RANK)
    loss = 0.0
    for i, j, r in RATINGS:
        err = r - u[i] @ v[j]
        loss += err * err
    return loss + lam * (np.sum(u ** 2) + np.sum(v ** 2))


def bpr(emb):
    users, items = emb["users"], emb["items"]
    total = 0.0
    for u, pos, neg in TRIPLES:
        x = users[u] @ (items[pos] - items[neg])
        total = total + np.logaddexp(0.0, -x)
    return total + 0.01 * (np.sum(users ** 2) + np.sum(items ** 2))


def factorisation_machine(v, x=X_SEQ, w=np.array([0.5, -0.2, 0.1])):  # noqa: B008
    linear = x @ w
    inter = 0.5 * np.sum((x @ v) ** 2 - (x ** 2) @ (v ** 2), axis=1)
    pred = linear + inter
    return np.mean((pred - np.array([1.0, 0.0, -1.0, 0.5])) ** 2)


def implicit_feedback(uv, alpha=2.0, lam=0.1):
    u, v = uv
    pref = (R_IMPLICIT > 0).astype(float)
    conf = 1.0 + alpha * R_IMPLICIT
    return np.sum(conf * (pref - u @ v.T) ** 2) + lam * (np.sum(u * u) + np.sum(v * v))


def neural_cf(p, pairs=((0, 1), (2, 0), (1, 2))):
    targets = [1.0, 0.0, 1.0]
    loss = 0.0
    for (u, i), y in zip(pairs, targets):
        h = np.concatenate([p["user"][u], p["item"][i]])
        h = np.maximum(p["w1"] @ h, 0.0)
        z = p["w2"] @ h
        loss = loss + np.logaddexp(0.0, z) - y * z
    return loss


def _gru_cell(h, x, w):
    z = scipy.special.expit(w["wz"] @ x + w["uz"] @ h)
    r = scipy.special.expit(w["wr"] @ x + w["ur"] @ h)
    n = np.tanh(w["wn"] @ x + w["un"] @ (r * h))
    return (1 - z) * n + z * h, z


def gru_sequence(w):
    h = np.zeros(2)
    gates = []
    for x in X_SEQ:
        h, z = _gru_cell(h, x, w)
        gates.append(np.mean(z))
    return np.sum(h ** 2) + 0.1 * sum(gates)


def _lstm(x, state, wx, wh):
    h, c = state
    g = wx @ x + wh @ h
    i, f, o, u = g[0:2], g[2:4], g[4:6], g[6:8]
    c = scipy.special.expit(f) * c + scipy.special.expit(i) * np.tanh(u)
    h = scipy.special.expit(o) * np.tanh(c)
    return h, c


def lstm_sequence(wx, wh):
    state = (np.zeros(2), np.zeros(2))
    for t in range(T):
        state = _lstm(X_SEQ[t], state, wx, wh)
    h, c = state
    return np.sum((h - 0.3) ** 2) + 0.01 * np.sum(c ** 2)


def conv1d_valid(kernel, signal=np.sin(np.linspace(0, 3, 12)), target=np.cos(np.linspace(0, 3, 10))):  # noqa: B008
    k = kernel.shape[0]
    out = np.empty(signal.shape[0] - k + 1)
    for i in range(out.shape[0]):
        out[i] = np.dot(signal[i:i + k], kernel)
    return np.sum((out - target) ** 2)


def mixture_density(params, y=np.array([0.1, -0.4, 1.2, 0.7])):  # noqa: B008
    logits, mu, log_s = params[0:3], params[3:6], params[6:9]
    log_pi = logits - scipy.special.logsumexp(logits)
    comp = -0.5 * ((y[:, None] - mu) / np.exp(log_s)) ** 2 - log_s - 0.5 * np.log(2 * np.pi)
    return -np.sum(scipy.special.logsumexp(log_pi + comp, axis=1))


def info_nce(z, temp=0.5):
    a, b = z[0], z[1]
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    logits = a @ b.T / temp
    logp = logits - scipy.special.logsumexp(logits, axis=1, keepdims=True)
    return -np.mean(np.diag(logp))


def label_smoothing(logits, labels=np.array([0, 2, 1]), eps=0.1):  # noqa: B008
    k = logits.shape[1]
    onehot = np.zeros_like(logits)
    onehot[np.arange(len(labels)), labels] = 1.0
    soft = onehot * (1 - eps) + eps / k
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.sum(soft * logp) / logits.shape[0]


def _tf_params(r):
    p = {"ln1_g": np.ones(D), "ln1_b": np.zeros(D), "ln2_g": 1.0 + 0.1 * r.normal(size=D),
         "ln2_b": 0.1 * r.normal(size=D)}
    for name, shape in (("wq", (D, D)), ("wk", (D, D)), ("wv", (D, D)), ("w1", (D, 5)), ("w2", (5, D))):
        p[name] = 0.5 * r.normal(size=shape)
    return p


def _gru(r):
    return {k: 0.5 * r.normal(size=(2, 3) if k[0] == "w" else (2, 2)) for k in ("wz", "uz", "wr", "ur", "wn", "un")}


NETS = [
    ("att_causal", causal_attention, lambda r: (r.normal(size=(D, D)),), 0),
    ("att_causal_three", causal_attention, lambda r: tuple(r.normal(size=(D, D)) for _ in range(3)), 2),
    ("att_padded", padded_attention, lambda r: ({"q": r.normal(size=(D, D)), "k": r.normal(size=(D, D))},), 0),
    ("att_tiny_transformer", tiny_transformer, lambda r: (_tf_params(r),), 0),
    ("att_multi_head", multi_head, lambda r: (0.5 * r.normal(size=(2, 2, D, D)),), 0),
    ("flow_planar", planar_flow,
     lambda r: ([(0.5 * r.normal(size=2), r.normal(size=2), 0.1) for _ in range(2)],), 0),
    ("flow_radial", radial_flow, lambda r: (np.array([0.1, 0.3]),), 0),
    ("flow_coupling", affine_coupling, lambda r: (0.5 * r.normal(size=(2, 1)),), 0),
    ("rec_matrix_factorisation", matrix_factorisation, lambda r: (r.normal(size=(N_USERS + N_ITEMS) * RANK),), 0),
    ("rec_bpr", bpr, lambda r: ({"users": r.normal(size=(4, 2)), "items": r.normal(size=(4, 2))},), 0),
    ("rec_factorisation_machine", factorisation_machine, lambda r: (0.5 * r.normal(size=(D, 2)),), 0),
    ("rec_implicit", implicit_feedback, lambda r: ((r.normal(size=(3, 2)), r.normal(size=(3, 2))),), 0),
    ("rec_neural_cf", neural_cf, lambda r: ({"user": r.normal(size=(3, 2)), "item": r.normal(size=(3, 2)),
                                              "w1": r.normal(size=(3, 4)), "w2": r.normal(size=3)},), 0),
    ("seq_gru", gru_sequence, lambda r: (_gru(r),), 0),
    ("seq_lstm", lstm_sequence, lambda r: (0.5 * r.normal(size=(8, D)), 0.5 * r.normal(size=(8, 2))), 0),
    ("seq_lstm_wh", lstm_sequence, lambda r: (0.5 * r.normal(size=(8, D)), 0.5 * r.normal(size=(8, 2))), 1),
    ("seq_conv1d", conv1d_valid, lambda r: (r.normal(size=3),), 0),
    ("seq_conv1d_f32", conv1d_valid, lambda r: (r.normal(size=3).astype(np.float32),), 0),
    ("mdn", mixture_density, lambda r: (0.3 * r.normal(size=9),), 0),
    ("info_nce", info_nce, lambda r: (r.normal(size=(2, 3, 4)),), 0),
    ("label_smoothing", label_smoothing, lambda r: (r.normal(size=(3, 4)),), 0),
]
