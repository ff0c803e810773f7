"""Wave 35b: language, recommendation, vision, statistics and physics, written the way their users write
them: masked attention with a causal mask by np.triu and np.where, log-softmax cross-entropy read at
``logp[np.arange(n), labels]``, an HMM forward pass with scipy.special.logsumexp, a linear-chain CRF
partition function, matrix factorisation by user and item index arrays with biases, sampled softmax
over negative items, image warping by floor/int indices, separable blur by np.convolve, an XY model by
np.roll on a grid, n-body with softening by broadcasting, springs by np.linalg.norm(axis=1) over an
edge list, Student-t by math.lgamma, negative binomial by scipy.special.gammaln, a Gaussian mixture by
logsumexp over axis=1, multi-quantile pinball losses, zero-inflated Poisson by np.where, censored
Weibull survival by a boolean mask, Lennard-Jones over np.triu_indices with a cutoff, Gumbel-softmax
over fixed noise, a contrastive margin loss, a GRU cell unrolled, and a float32 LayerNorm MLP."""

from __future__ import annotations

import math

import numpy as np
import scipy.special as sc

TOKENS = np.array([0, 2, 1, 3, 2])
LABELS = np.array([1, 0, 3, 2, 1, 0])
USERS = np.array([0, 1, 2, 0, 3, 1, 2])
ITEMS = np.array([1, 0, 3, 2, 2, 4, 0])
RATINGS = np.array([4.0, 3.0, 5.0, 2.0, 3.5, 4.5, 1.0])
NEG_ITEMS = np.array([[2, 3], [4, 1], [0, 1], [3, 4]])
OBS_SEQ = [0, 1, 1, 0, 2, 1]
EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]])
REST_LEN = np.array([1.0, 1.0, 1.0, 1.0, 1.4])
COUNTS = np.array([0, 3, 1, 0, 7, 2, 0, 4])
T_OBS = np.array([2.0, 3.5, 1.2, 5.0, 4.1, 0.7])
EVENT = np.array([True, False, True, True, False, True])
GUMBEL = np.random.default_rng(3).gumbel(size=(4, 3))
TAUS = (0.1, 0.5, 0.9)


def causal_attention(x, wq, wk):
    q, k = x @ wq, x @ wk
    scores = q @ k.T / np.sqrt(q.shape[1])
    mask = np.triu(np.ones((x.shape[0], x.shape[0]), dtype=bool), k=1)
    scores = np.where(mask, -1e9, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    att = np.exp(scores)
    att /= att.sum(axis=-1, keepdims=True)
    return float(np.sum((att @ x) ** 2))


def log_softmax_xent(w, x, labels=LABELS):
    logits = x @ w
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    return -logp[np.arange(len(labels)), labels].mean()


def hmm_forward(log_emit, obs=OBS_SEQ):
    log_trans = np.log(np.array([[0.7, 0.2, 0.1], [0.3, 0.5, 0.2], [0.2, 0.3, 0.5]]))
    alpha = np.log(np.full(3, 1 / 3)) + log_emit[:, obs[0]]
    for o in obs[1:]:
        alpha = sc.logsumexp(alpha[:, None] + log_trans, axis=0) + log_emit[:, o]
    return -sc.logsumexp(alpha)


def crf_partition(unary, trans):
    alpha = unary[0]
    for t in range(1, unary.shape[0]):
        scores = alpha[:, None] + trans + unary[t][None, :]
        mx = np.max(scores, axis=0)
        alpha = mx + np.log(np.sum(np.exp(scores - mx), axis=0))
    gold = sum(unary[t, TOKENS[t] % 3] for t in range(unary.shape[0]))
    return float(np.log(np.sum(np.exp(alpha))) - gold)


def matrix_factorisation(params, lam=0.05):
    u, v, bu, bi = params["U"], params["V"], params["bu"], params["bi"]
    pred = np.sum(u[USERS] * v[ITEMS], axis=1) + bu[USERS] + bi[ITEMS] + 3.0
    err = pred - RATINGS
    return np.mean(err ** 2) + lam * (np.sum(u ** 2) + np.sum(v ** 2))


def sampled_softmax(u, v):
    pos = np.einsum("ij,ij->i", u[USERS[:4]], v[ITEMS[:4]])
    neg = np.einsum("ij,ikj->ik", u[USERS[:4]], v[NEG_ITEMS])
    logits = np.concatenate([pos[:, None], neg], axis=1)
    return np.mean(sc.logsumexp(logits, axis=1) - pos)


def image_warp(shift, img=np.arange(36.0).reshape(6, 6) ** 0.5):  # noqa: B008
    ys, xs = np.meshgrid(np.arange(1.0, 5.0), np.arange(1.0, 5.0), indexing="ij")
    sy, sx = ys + shift[0], xs + shift[1]
    y0 = np.floor(sy).astype(int)
    x0 = np.floor(sx).astype(int)
    wy, wx = sy - y0, sx - x0
    y0, x0 = np.clip(y0, 0, 4), np.clip(x0, 0, 4)
    out = (img[y0, x0] * (1 - wy) * (1 - wx) + img[y0 + 1, x0] * wy * (1 - wx)
           + img[y0, x0 + 1] * (1 - wy) * wx + img[y0 + 1, x0 + 1] * wy * wx)
    return np.sum((out - img[1:5, 1:5]) ** 2)


def separable_blur(img, kernel=np.array([0.25, 0.5, 0.25])):  # noqa: B008
    rows = np.array([np.convolve(r, kernel, mode="same") for r in img])
    both = np.array([np.convolve(c, kernel, mode="same") for c in rows.T]).T
    mu_x, mu_y = both.mean(), img.mean()
    return float(np.sum((both - img) ** 2) + (2 * mu_x * mu_y + 1e-4) / (mu_x ** 2 + mu_y ** 2 + 1e-4))


def xy_model(theta, j=1.0, h=0.3):
    e = -j * np.sum(np.cos(theta - np.roll(theta, 1, axis=0)))
    e -= j * np.sum(np.cos(theta - np.roll(theta, 1, axis=1)))
    return e - h * np.cos(theta).sum()


def nbody_softened(pos, m=np.array([1.0, 0.5, 0.8, 1.2]), eps=0.1):  # noqa: B008
    x = pos.reshape(-1, 3)
    d = x[:, None, :] - x[None, :, :]
    r = np.sqrt(np.sum(d ** 2, axis=-1) + eps ** 2)
    pot = -np.outer(m, m) / r
    np.fill_diagonal(pot, 0.0)
    return 0.5 * pot.sum()


def springs_edges(pos, k=10.0):
    p = pos.reshape(-1, 2)
    lengths = np.linalg.norm(p[EDGES[:, 0]] - p[EDGES[:, 1]], axis=1)
    return 0.5 * k * np.sum((lengths - REST_LEN) ** 2) + 9.81 * p[:, 1].sum()


def student_t_lgamma(params, x=np.array([0.3, -1.2, 2.5, 0.1, -0.4, 4.0])):  # noqa: B008
    mu, log_s, log_nu = params
    s, nu = math.exp(log_s), math.exp(log_nu)
    ll = 0.0
    for xi in x:
        z = (xi - mu) / s
        ll += (math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi) - math.log(s)
               - (nu + 1) / 2 * math.log1p(z * z / nu))
    return -ll


def negbin_gammaln(params, y=COUNTS):
    log_mu, log_r = params[0], params[1]
    mu, r = np.exp(log_mu), np.exp(log_r)
    ll = sc.gammaln(y + r) - sc.gammaln(r) - sc.gammaln(y + 1) + r * np.log(r / (r + mu)) + y * np.log(mu / (r + mu))
    return -np.sum(ll)


def gmm_logsumexp(params, x=np.array([-2.0, -1.5, 0.1, 0.3, 2.2, 2.8, 3.0])):  # noqa: B008
    logits, mu, log_sd = params["logits"], params["mu"], params["log_sd"]
    log_w = logits - sc.logsumexp(logits)
    sd = np.exp(log_sd)
    comp = log_w - 0.5 * ((x[:, None] - mu) / sd) ** 2 - log_sd - 0.5 * np.log(2 * np.pi)
    return -sc.logsumexp(comp, axis=1).sum()


def multi_pinball(q, y=np.array([1.0, 2.5, 0.3, 1.7, 3.1])):  # noqa: B008
    loss = 0.0
    for k, tau in enumerate(TAUS):
        diff = y - q[k]
        loss += np.mean(np.where(diff >= 0, tau * diff, (tau - 1) * diff))
    crossing = np.maximum(q[:-1] - q[1:], 0.0)
    return loss + np.sum(crossing ** 2)


def zero_inflated_poisson(params, y=COUNTS):
    logit_pi, log_lam = params
    pi = 1 / (1 + np.exp(-logit_pi))
    lam = np.exp(log_lam)
    ll_zero = np.log(pi + (1 - pi) * np.exp(-lam))
    ll_pos = np.log(1 - pi) - lam + y * log_lam - sc.gammaln(y + 1)
    return -np.sum(np.where(y == 0, ll_zero, ll_pos))


def weibull_censored(params, t=T_OBS, event=EVENT):
    log_k, log_lam = params
    k, lam = np.exp(log_k), np.exp(log_lam)
    z = (t / lam) ** k
    ll = -z.sum()
    ll += np.sum(log_k - log_lam + (k - 1) * np.log(t[event] / lam))
    return -ll


def lennard_jones(pos, cutoff=2.5):
    p = pos.reshape(-1, 2)
    i, j = np.triu_indices(p.shape[0], 1)
    r2 = np.sum((p[i] - p[j]) ** 2, axis=1)
    inv6 = (1.0 / r2) ** 3
    e = 4.0 * (inv6 ** 2 - inv6)
    e = e[r2 < cutoff ** 2]
    return float(e.sum())


def gumbel_softmax(logits, tau=0.7, target=np.array([0, 2, 1, 2])):  # noqa: B008
    y = (logits + GUMBEL) / tau
    y = y - y.max(axis=1, keepdims=True)
    soft = np.exp(y) / np.exp(y).sum(axis=1, keepdims=True)
    return -np.log(soft[np.arange(4), target]).sum()


def contrastive_margin(emb, pairs=((0, 1, 1), (0, 2, 0), (1, 3, 0), (2, 3, 1)), margin=1.0):
    loss = 0.0
    for a, b, same in pairs:
        d = np.linalg.norm(emb[a] - emb[b])
        if same:
            loss += d ** 2
        else:
            loss += max(0.0, margin - d) ** 2
    return loss / len(pairs)


def gru_unrolled(p, xs=np.array([[0.5, -0.2], [0.1, 0.4], [-0.3, 0.8], [0.2, 0.2]])):  # noqa: B008
    h = np.zeros(3)
    for x in xs:
        z = 1 / (1 + np.exp(-(p["Wz"] @ x + p["Uz"] @ h)))
        r = 1 / (1 + np.exp(-(p["Wr"] @ x + p["Ur"] @ h)))
        cand = np.tanh(p["Wh"] @ x + p["Uh"] @ (r * h))
        h = (1 - z) * h + z * cand
    return float(np.sum((h - 0.3) ** 2))


def layernorm_mlp32(w, x=np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)):  # noqa: B008
    h = x @ w
    mu = h.mean(axis=-1, keepdims=True)
    var = ((h - mu) ** 2).mean(axis=-1, keepdims=True)
    hn = (h - mu) / np.sqrt(var + np.float32(1e-5))
    return np.sum(np.maximum(hn, 0) ** 2) / np.float32(3.0)


def _gru_params(r):
    return {k: r.normal(0, 0.5, (3, 2) if k[0] == "W" else (3, 3)) for k in ("Wz", "Uz", "Wr", "Ur", "Wh", "Uh")}


LEARN = [
    ("nlp_causal_attention", causal_attention,
     lambda r: (r.normal(size=(4, 3)), r.normal(size=(3, 3)), r.normal(size=(3, 3))), 1),
    ("nlp_log_softmax_xent", log_softmax_xent, lambda r: (r.normal(size=(3, 4)), r.normal(size=(6, 3))), 0),
    ("nlp_hmm_logsumexp", hmm_forward, lambda r: (np.log(r.dirichlet(np.ones(3), 3)),), 0),
    ("nlp_crf_partition", crf_partition, lambda r: (r.normal(size=(5, 3)), r.normal(size=(3, 3))), 1),
    ("rec_mf_dict_index", matrix_factorisation,
     lambda r: ({"U": r.normal(0, 0.3, (4, 2)), "V": r.normal(0, 0.3, (5, 2)),
                 "bu": np.zeros(4), "bi": np.zeros(5)},), 0),
    ("rec_sampled_softmax", sampled_softmax, lambda r: (r.normal(size=(4, 3)), r.normal(size=(5, 3))), 1),
    ("vis_warp_floor", image_warp, lambda r: (np.array([0.3, 0.6]),), 0),
    ("vis_separable_blur", separable_blur, lambda r: (r.uniform(0, 1, (5, 5)),), 0),
    ("phy_xy_roll", xy_model, lambda r: (r.uniform(-1, 1, (4, 4)),), 0),
    ("phy_nbody_soft", nbody_softened, lambda r: (r.normal(size=12),), 0),
    ("phy_springs_norm_axis1", springs_edges, lambda r: (np.array([0.0, 0.0, 1.1, 0.1, 1.0, 1.05, -0.1, 0.95]),), 0),
    ("sta_student_t_lgamma", student_t_lgamma, lambda r: (np.array([0.2, 0.1, 1.0]),), 0),
    ("sta_negbin_gammaln", negbin_gammaln, lambda r: (np.array([0.7, 0.2]),), 0),
    ("sta_gmm_dict", gmm_logsumexp, lambda r: ({"logits": r.normal(size=3), "mu": np.array([-1.5, 0.0, 2.5]),
                                                "log_sd": np.zeros(3)},), 0),
    ("sta_multi_pinball", multi_pinball, lambda r: (np.array([0.5, 1.6, 2.9]),), 0),
    ("sta_zip_where", zero_inflated_poisson, lambda r: (np.array([0.1, 1.0]),), 0),
    ("sta_weibull_mask", weibull_censored, lambda r: (np.array([0.3, 1.0]),), 0),
    ("phy_lennard_jones_cut", lennard_jones, lambda r: (np.array([0.0, 0.0, 1.1, 0.0, 0.5, 1.0, 3.5, 3.0]),), 0),
    ("ml_gumbel_softmax", gumbel_softmax, lambda r: (r.normal(size=(4, 3)),), 0),
    ("ml_contrastive_if", contrastive_margin, lambda r: (r.normal(0, 0.4, (4, 3)),), 0),
    ("ml_gru_dict", gru_unrolled, lambda r: (_gru_params(r),), 0),
    ("ml_layernorm_f32", layernorm_mlp32, lambda r: (r.normal(size=(4, 5)).astype(np.float32),), 0),
]
