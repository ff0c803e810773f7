"""Wave 34b: machine learning, operations research and rankings, written the way their users write
them: triplet and InfoNCE losses, label smoothing by np.eye(k)[labels], focal loss with np.clip, batch
and layer normalisation by hand on a dict of parameters, a dropout mask passed as an argument,
embedding lookups by integer index arrays with negative sampling, soft and hard k-means, a center
loss by np.add.at, distillation at a temperature, a multi-class hinge, a gated linear unit, entropic
optimal transport by a while loop in the log domain, a soft shortest path over a dict of edges,
Bradley-Terry over a list of games, Elo updated in place, Plackett-Luce, a newsvendor, a softmax
portfolio and a log-barrier objective."""

from __future__ import annotations

import math

import numpy as np

MARGIN = 0.5
FOCAL_GAMMA = 2.0
N_CLASSES = 4
GAMES = [(0, 1, 3, 1), (1, 2, 2, 2), (0, 2, 4, 0), (2, 3, 1, 3), (0, 3, 2, 2)]
MATCHES = [(0, 1, 1.0), (2, 3, 0.0), (0, 2, 1.0), (1, 3, 0.5), (3, 0, 0.0), (1, 2, 1.0)]
RANKINGS = [[0, 2, 1, 3], [2, 0, 3, 1], [0, 1, 2, 3]]
GRAPH = {"s": [("a", 0), ("b", 1)], "a": [("c", 2), ("t", 3)], "b": [("c", 4), ("t", 5)], "c": [("t", 6)]}
ORDER = ["s", "a", "b", "c", "t"]


def triplet_loss(emb, anchors=np.array([0, 1, 2]), pos=np.array([3, 4, 5]), neg=np.array([4, 5, 3])):  # noqa: B008
    a, p, n = emb[anchors], emb[pos], emb[neg]
    d_ap = np.sum((a - p) ** 2, axis=1)
    d_an = np.sum((a - n) ** 2, axis=1)
    return np.mean(np.maximum(d_ap - d_an + MARGIN, 0.0))


def info_nce(z, temp=0.5):
    z = z / np.linalg.norm(z, axis=1, keepdims=True)
    half = z.shape[0] // 2
    sim = z[:half] @ z[half:].T / temp
    m = np.max(sim, axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.sum(np.exp(sim - m), axis=1))
    return np.mean(lse - np.diag(sim))


def label_smoothing(w, x, labels, eps=0.1):
    logits = x @ w
    logits = logits - logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    target = np.eye(N_CLASSES)[labels] * (1 - eps) + eps / N_CLASSES
    return -np.sum(target * logp) / x.shape[0]


def focal_loss(w, x, y):
    p = 1.0 / (1.0 + np.exp(-(x @ w)))
    p = np.clip(p, 1e-6, 1 - 1e-6)
    pt = np.where(y == 1, p, 1 - p)
    return -np.mean((1 - pt) ** FOCAL_GAMMA * np.log(pt))


def batchnorm_mlp(params, x, y):
    h = x @ params["W"]
    mu = h.mean(axis=0, keepdims=True)
    var = h.var(axis=0, keepdims=True)
    h = params["gamma"] * (h - mu) / np.sqrt(var + 1e-5) + params["beta"]
    h = np.tanh(h)
    out = h @ params["v"]
    return np.mean((out - y) ** 2)


def _layer_norm(h, g, b):
    mu = np.mean(h, axis=-1, keepdims=True)
    sd = np.sqrt(np.mean((h - mu) ** 2, axis=-1, keepdims=True) + 1e-6)
    return g * (h - mu) / sd + b


def residual_layernorm(ws, x):
    h = x
    for w, g, b in ws:
        h = h + np.tanh(_layer_norm(h, g, b) @ w)
    return float(np.sum(h ** 2)) / h.size


def dropout_net(w, x, mask, keep=0.8):
    h = np.maximum(x @ w, 0.0)
    h = h * mask / keep
    return np.sum(h.sum(axis=1) ** 2) / x.shape[0]


def _log_sigmoid(z):
    return -np.log1p(np.exp(-z))


def word2vec_neg(emb, ctx, centers=np.array([0, 1, 2, 3]), contexts=np.array([1, 2, 3, 0]),  # noqa: B008
                 negatives=np.array([[2, 3], [3, 0], [0, 1], [1, 2]])):  # noqa: B008
    u = emb[centers]
    v = ctx[contexts]
    pos = _log_sigmoid(np.sum(u * v, axis=1))
    vn = ctx[negatives]
    neg = _log_sigmoid(-np.einsum("bd,bkd->bk", u, vn)).sum(axis=1)
    return -np.mean(pos + neg)


def soft_kmeans(centers, x, beta=2.0):
    d2 = np.sum((x[:, None, :] - centers[None, :, :]) ** 2, axis=-1)
    logits = -beta * d2
    logits = logits - logits.max(axis=1, keepdims=True)
    r = np.exp(logits)
    r = r / r.sum(axis=1, keepdims=True)
    return np.sum(r * d2) / x.shape[0]


def hard_kmeans(centers, x):
    d2 = ((x[:, None, :] - centers[None]) ** 2).sum(-1)
    assign = np.argmin(d2, axis=1)
    return np.sum((x - centers[assign]) ** 2)


def center_loss(feats, labels, centers, lam=0.5):
    diff = feats - centers[labels]
    grad_c = np.zeros_like(centers)
    np.add.at(grad_c, labels, diff)
    return 0.5 * np.sum(diff ** 2) + lam * np.sum(grad_c ** 2)


def distillation(student, teacher, temp=3.0):
    def softmax(z):
        z = z / temp
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    p_t = softmax(teacher)
    p_s = softmax(student)
    return temp ** 2 * np.sum(p_t * (np.log(p_t) - np.log(p_s))) / student.shape[0]


def multiclass_hinge(w, x, labels):
    scores = x @ w
    correct = scores[np.arange(x.shape[0]), labels]
    masked = scores.copy()
    masked[np.arange(x.shape[0]), labels] = -np.inf
    worst = masked.max(axis=1)
    return np.mean(np.maximum(0.0, 1.0 + worst - correct))


def glu(w, x):
    h = x @ w
    a, b = np.split(h, 2, axis=1)
    out = a * (1.0 / (1.0 + np.exp(-b)))
    return np.sum(out ** 2)


def sinkhorn_log(cost_scale, a=np.array([0.2, 0.5, 0.3]), b=np.array([0.4, 0.4, 0.2]), eps=0.1):  # noqa: B008
    cost = cost_scale * np.abs(np.arange(3.0)[:, None] - np.arange(3.0)[None, :])
    f, g = np.zeros(3), np.zeros(3)
    it = 0
    while it < 30:
        z = (g[None, :] - cost) / eps
        zm = z.max(axis=1, keepdims=True)
        f = -eps * (zm[:, 0] + np.log(np.sum(np.exp(z - zm), axis=1))) + eps * np.log(a)
        z = (f[:, None] - cost) / eps
        zm = z.max(axis=0, keepdims=True)
        g = -eps * (zm[0] + np.log(np.sum(np.exp(z - zm), axis=0))) + eps * np.log(b)
        it += 1
    plan = np.exp((f[:, None] + g[None, :] - cost) / eps)
    return float(np.sum(plan * cost))


def soft_shortest_path(weights, gamma=0.3):
    dist = {"s": 0.0}
    for node in ORDER[:-1]:
        for nxt, e in GRAPH.get(node, []):
            cand = dist[node] + weights[e]
            if nxt in dist:
                m = min(dist[nxt], cand)
                dist[nxt] = m - gamma * math.log(math.exp(-(dist[nxt] - m) / gamma) + math.exp(-(cand - m) / gamma))
            else:
                dist[nxt] = cand
    return dist["t"]


def bradley_terry(log_strength):
    ll = 0.0
    for i, j, wins_i, wins_j in GAMES:
        diff = log_strength[i] - log_strength[j]
        p = 1.0 / (1.0 + np.exp(-diff))
        ll += wins_i * np.log(p) + wins_j * np.log(1.0 - p)
    return -ll + 0.1 * np.sum(log_strength ** 2)


def elo_inplace(ratings, k=0.2):
    r = ratings.copy()
    loss = 0.0
    for a, b, score in MATCHES:
        expected = 1.0 / (1.0 + 10.0 ** ((r[b] - r[a]) / 4.0))
        loss -= score * np.log(expected) + (1 - score) * np.log(1 - expected)
        r[a] += k * (score - expected)
        r[b] -= k * (score - expected)
    return loss


def plackett_luce(theta):
    nll = 0.0
    for ranking in RANKINGS:
        rest = list(ranking)
        for item in ranking[:-1]:
            scores = theta[rest]
            m = np.max(scores)
            nll -= theta[item] - (m + np.log(np.sum(np.exp(scores - m))))
            rest.remove(item)
    return nll


def newsvendor(q, demand=np.array([8.0, 10.0, 12.0, 9.0, 15.0]), price=5.0, cost=3.0, s=0.5):  # noqa: B008
    short = s * np.log1p(np.exp((demand - q) / s))
    sold = demand - short
    return -np.mean(price * sold - cost * q)


def softmax_portfolio(logits, mu=np.array([0.08, 0.12, 0.05, 0.1]), risk=3.0):  # noqa: B008
    cov = np.array([[0.1, 0.02, 0.0, 0.01], [0.02, 0.2, 0.01, 0.03], [0.0, 0.01, 0.05, 0.0],
                    [0.01, 0.03, 0.0, 0.15]])
    w = np.exp(logits) / np.sum(np.exp(logits))
    return -(w @ mu) + 0.5 * risk * w @ cov @ w


def log_barrier(x, c=np.array([1.0, 2.0]), a=np.array([[1.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]),  # noqa: B008
                b=np.array([4.0, 0.0, 0.0]), t=5.0):  # noqa: B008
    slack = b - a @ x
    if np.any(slack <= 0):
        return np.inf
    return t * (c @ x) - np.sum(np.log(slack))


def _rng_data(r, n=6, d=3):
    return r.normal(size=(n, d))


LEARNING = [
    ("ml_triplet", triplet_loss, lambda r: (r.normal(size=(6, 3)),), 0),
    ("ml_info_nce", info_nce, lambda r: (r.normal(size=(6, 3)),), 0),
    ("ml_label_smoothing", label_smoothing,
     lambda r: (r.normal(size=(3, N_CLASSES)), _rng_data(r), np.array([0, 1, 2, 3, 1, 0])), 0),
    ("ml_focal", focal_loss, lambda r: (r.normal(size=3), _rng_data(r), np.array([1, 0, 1, 1, 0, 0])), 0),
    ("ml_batchnorm_dict", batchnorm_mlp,
     lambda r: ({"W": r.normal(size=(3, 4)), "gamma": np.ones(4), "beta": np.zeros(4), "v": r.normal(size=4)},
                _rng_data(r), r.normal(size=6)), 0),
    ("ml_residual_layernorm", residual_layernorm,
     lambda r: ([(0.5 * r.normal(size=(3, 3)), np.ones(3), np.zeros(3)) for _ in range(2)], _rng_data(r, 4)), 0),
    ("ml_dropout_mask", dropout_net,
     lambda r: (r.normal(size=(3, 5)), _rng_data(r), (r.uniform(size=(6, 5)) < 0.8).astype(float)), 0),
    ("ml_word2vec", word2vec_neg, lambda r: (0.5 * r.normal(size=(4, 3)), 0.5 * r.normal(size=(4, 3))), 0),
    ("ml_word2vec_ctx", word2vec_neg, lambda r: (0.5 * r.normal(size=(4, 3)), 0.5 * r.normal(size=(4, 3))), 1),
    ("ml_soft_kmeans", soft_kmeans, lambda r: (r.normal(size=(3, 2)), r.normal(size=(8, 2))), 0),
    ("ml_hard_kmeans", hard_kmeans, lambda r: (r.normal(size=(3, 2)), r.normal(size=(8, 2))), 0),
    ("ml_center_loss", center_loss,
     lambda r: (r.normal(size=(6, 2)), np.array([0, 1, 2, 0, 1, 2]), r.normal(size=(3, 2))), 0),
    ("ml_center_loss_centers", center_loss,
     lambda r: (r.normal(size=(6, 2)), np.array([0, 1, 2, 0, 1, 2]), r.normal(size=(3, 2))), 2),
    ("ml_distillation", distillation, lambda r: (r.normal(size=(4, 3)), r.normal(size=(4, 3))), 0),
    ("ml_multiclass_hinge", multiclass_hinge,
     lambda r: (r.normal(size=(3, 4)), _rng_data(r), np.array([0, 1, 2, 3, 0, 1])), 0),
    ("ml_glu", glu, lambda r: (r.normal(size=(3, 4)), _rng_data(r)), 0),
    ("ml_focal_f32", focal_loss,
     lambda r: (r.normal(size=3).astype(np.float32), _rng_data(r).astype(np.float32), np.array([1, 0, 1, 1, 0, 0])), 0),
    ("or_sinkhorn_while", sinkhorn_log, lambda r: (1.0,), 0),
    ("or_soft_shortest_path", soft_shortest_path, lambda r: (r.uniform(1.0, 2.0, 7),), 0),
    ("rank_bradley_terry", bradley_terry, lambda r: (r.normal(0, 0.3, 4),), 0),
    ("rank_elo_inplace", elo_inplace, lambda r: (r.normal(0, 0.5, 4),), 0),
    ("rank_plackett_luce", plackett_luce, lambda r: (r.normal(size=4),), 0),
    ("or_newsvendor", newsvendor, lambda r: (10.5,), 0),
    ("or_softmax_portfolio", softmax_portfolio, lambda r: (r.normal(size=4),), 0),
    ("or_log_barrier", log_barrier, lambda r: (np.array([1.0, 1.5]),), 0),
]
