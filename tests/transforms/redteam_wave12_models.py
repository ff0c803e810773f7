"""The red team's twelfth wave, continued: statistical and learning models.  Robust losses (Tukey's
biweight, Geman-McClure, Cauchy, a stable log-cosh, multi-quantile pinball), survival (Cox's partial
likelihood by a reversed cumsum, Gompertz with censoring, scipy.stats.weibull_min), mixtures (a
diagonal GMM in a dict with logsumexp over an axis, one EM step differentiated through, a
Dirichlet-multinomial, a Poisson mixture by scipy.stats), reinforcement learning (TD(lambda),
V-trace's clipped ratios, n-step returns with done flags, soft Q, REINFORCE with a baseline, a DQN
target gathered by an index array), sparse code (COO products by np.add.at, a CSR loop, an embedding
bag by offsets, graph attention over an edge list), GLMs (ordinal cut points, beta and
zero-inflated Poisson regression, Student-t with a learned df through scipy.stats), linear algebra
(a matrix function through eigh, the nuclear norm, lstsq).  See redteam_wave12.py."""

from __future__ import annotations

import math

import numpy as np
import scipy.special
import scipy.stats

# ---- robust losses ------------------------------------------------------------------------------


def tukey_biweight(w, X, y, c=1.5):
    r = X @ w - y
    inside = (1.0 - (r / c) ** 2) ** 3
    return np.sum(np.where(np.abs(r) <= c, c ** 2 / 6 * (1.0 - inside), c ** 2 / 6))


def geman_mcclure_cauchy(w, X, y, s=0.7):
    r = X @ w - y
    gm = r ** 2 / (r ** 2 + s ** 2)
    cauchy = 0.5 * s ** 2 * np.log1p((r / s) ** 2)
    return np.mean(gm) + np.mean(cauchy)


def log_cosh_stable(w, X, y):
    r = X @ w - y
    return np.mean(np.logaddexp(r, -r) - math.log(2.0))


def multi_quantile_pinball(W, X, y, qs=(0.1, 0.5, 0.9)):
    q = np.asarray(qs)
    pred = X @ W  # one column per quantile
    e = y[:, None] - pred
    return np.mean(np.maximum(q * e, (q - 1) * e))


# ---- survival -----------------------------------------------------------------------------------


def cox_partial_likelihood(beta, X, times, events):
    order = np.argsort(-times)
    eta = X[order] @ beta
    risk = np.log(np.cumsum(np.exp(eta)))  # the risk set of each time: everyone later or equal
    return -np.sum((eta - risk) * events[order])


def gompertz_censored(params, t, event):
    a, b = params
    log_h = a + b * t
    H = np.exp(a) / b * (np.exp(b * t) - 1.0)
    return -np.sum(event * log_h - H)


def weibull_scipy(log_params, t, event):
    k, lam = np.exp(log_params)
    ll = event * scipy.stats.weibull_min.logpdf(t, k, scale=lam) \
        + (1 - event) * scipy.stats.weibull_min.logsf(t, k, scale=lam)
    return -np.sum(ll)


# ---- mixtures -----------------------------------------------------------------------------------


def gmm_diag(params, X):
    logits, mu, log_s = params["logits"], params["means"], params["log_scales"]
    logw = logits - scipy.special.logsumexp(logits)
    z = (X[:, None, :] - mu[None]) / np.exp(log_s)[None]
    comp = -0.5 * np.sum(z ** 2, axis=2) - np.sum(log_s, axis=1)[None] - 0.5 * X.shape[1] * math.log(2 * math.pi)
    return -np.sum(scipy.special.logsumexp(logw[None] + comp, axis=1))


def gmm_em_step(mu, X, sigma=1.0):
    logp = -0.5 * ((X[:, None] - mu[None, :]) / sigma) ** 2
    resp = np.exp(logp - scipy.special.logsumexp(logp, axis=1, keepdims=True))
    mu_new = (resp * X[:, None]).sum(0) / resp.sum(0)
    logp_new = -0.5 * ((X[:, None] - mu_new[None, :]) / sigma) ** 2
    return -np.sum(scipy.special.logsumexp(logp_new, axis=1))


def dirichlet_multinomial(log_alpha, counts):
    alpha = np.exp(log_alpha)
    A = alpha.sum()
    n = counts.sum(axis=1)
    ll = (scipy.special.gammaln(A) - scipy.special.gammaln(n + A)
          + np.sum(scipy.special.gammaln(counts + alpha) - scipy.special.gammaln(alpha), axis=1))
    return -np.sum(ll)


def poisson_mixture(params, k):
    rates, logits = np.exp(params[0]), params[1]
    logw = logits - np.logaddexp.reduce(logits)
    lp = scipy.stats.poisson.logpmf(k[:, None], rates[None, :]) + logw[None, :]
    return -np.sum(scipy.special.logsumexp(lp, axis=1))


# ---- reinforcement learning ---------------------------------------------------------------------


def td_lambda(values, rewards, gamma=0.95, lam=0.8):
    T = len(rewards)
    G = values[-1]
    returns = np.zeros(T)
    for t in reversed(range(T)):
        G = rewards[t] + gamma * ((1 - lam) * values[t + 1] + lam * G)
        returns[t] = G
    return np.sum((returns - values[:-1]) ** 2)


def vtrace(target_logits, behav_logp, actions, rewards, values, gamma=0.9):
    logp = target_logits - scipy.special.logsumexp(target_logits, axis=1, keepdims=True)
    lp = logp[np.arange(len(actions)), actions]
    rho = np.exp(lp - behav_logp)
    c = np.minimum(1.0, rho)
    clipped = np.minimum(1.0, rho)
    T = len(rewards)
    vs = np.array(values, dtype=float)
    acc = 0.0
    for t in reversed(range(T)):
        delta = clipped[t] * (rewards[t] + gamma * values[t + 1] - values[t])
        acc = delta + gamma * c[t] * acc
        vs[t] = values[t] + acc
    return np.sum(clipped * lp) + 0.1 * np.sum(vs[:T] ** 2)


def n_step_returns(q, rewards, dones, n=3, gamma=0.9):
    T = len(rewards)
    total = 0.0
    for t in range(T - n):
        G, disc = 0.0, 1.0
        for k in range(n):
            G += disc * rewards[t + k]
            disc *= gamma * (1.0 - dones[t + k])
        G += disc * q[t + n]
        total += (G - q[t]) ** 2
    return total


def soft_q_entropy(Q, alpha=0.5):
    V = alpha * scipy.special.logsumexp(Q / alpha, axis=1)
    pi = scipy.special.softmax(Q / alpha, axis=1)
    ent = -np.sum(pi * np.log(pi), axis=1)
    return np.sum(V) + 0.1 * np.sum(ent)


def reinforce_baseline(theta, feats, actions, returns):
    logits = feats @ theta
    logp = scipy.special.log_softmax(logits, axis=1)
    chosen = np.take_along_axis(logp, actions[:, None], axis=1)[:, 0]
    baseline = returns.mean()
    return -np.mean(chosen * (returns - baseline))


def dqn_huber_target(W, S, actions, rewards, S_next, gamma=0.9):
    Q = S @ W
    q = Q[np.arange(S.shape[0]), actions]
    target = rewards + gamma * np.max(S_next @ W, axis=1)
    err = q - target
    return np.mean(np.where(np.abs(err) < 1.0, 0.5 * err ** 2, np.abs(err) - 0.5))


# ---- sparse code --------------------------------------------------------------------------------


def coo_spmm(vals, rows, cols, X):
    out = np.zeros((rows.max() + 1, X.shape[1]))
    np.add.at(out, rows, vals[:, None] * X[cols])
    return np.sum(np.tanh(out))


def csr_scalar_loop(data, indptr, indices, x):
    total = 0.0
    for i in range(len(indptr) - 1):
        acc = 0.0
        for jj in range(indptr[i], indptr[i + 1]):
            acc += data[jj] * x[indices[jj]]
        total += acc ** 2
    return total


def embedding_bag_mean(E, ids, offsets):
    bounds = list(offsets) + [len(ids)]
    bags = [E[ids[bounds[b]:bounds[b + 1]]].mean(axis=0) for b in range(len(offsets))]
    H = np.stack(bags)
    return np.sum(H ** 2) + np.sum(H[0] * H[-1])


def graph_attention_edges(W, a, X, src, dst):
    H = X @ W
    e = np.tanh(H[src] @ a[:2] + H[dst] @ a[2:])
    w = np.exp(e - e.max())
    denom = np.zeros(X.shape[0])
    np.add.at(denom, dst, w)
    alpha = w / denom[dst]
    out = np.zeros_like(H)
    np.add.at(out, dst, alpha[:, None] * H[src])
    return np.sum(out ** 2)


# ---- GLMs ---------------------------------------------------------------------------------------


def ordinal_cutpoints(raw, X, w, y):
    cuts = np.cumsum(np.concatenate([raw[:1], np.exp(raw[1:])]))
    eta = X @ w
    cdf = scipy.special.expit(cuts[None, :] - eta[:, None])
    cdf = np.concatenate([np.zeros((len(y), 1)), cdf, np.ones((len(y), 1))], axis=1)
    probs = cdf[np.arange(len(y)), y + 1] - cdf[np.arange(len(y)), y]
    return -np.sum(np.log(probs))


def beta_regression(w, X, y, log_phi=1.5):
    mu = scipy.special.expit(X @ w)
    phi = np.exp(log_phi)
    a, b = mu * phi, (1 - mu) * phi
    ll = (scipy.special.gammaln(phi) - scipy.special.gammaln(a) - scipy.special.gammaln(b)
          + (a - 1) * np.log(y) + (b - 1) * np.log1p(-y))
    return -np.sum(ll)


def zero_inflated_poisson(params, x, y):
    logit_pi, b0, b1 = params
    lam = np.exp(b0 + b1 * x)
    log_pi = -np.logaddexp(0.0, -logit_pi)
    log1m_pi = -np.logaddexp(0.0, logit_pi)
    zero = np.logaddexp(log_pi, log1m_pi - lam)
    pos = log1m_pi + y * np.log(lam) - lam - scipy.special.gammaln(y + 1)
    return -np.sum(np.where(y == 0, zero, pos))


def student_t_df(params, x):
    log_df, loc, log_scale = params
    return -np.sum(scipy.stats.t.logpdf(x, np.exp(log_df), loc=loc, scale=np.exp(log_scale)))


# ---- linear algebra -----------------------------------------------------------------------------


def sym_expm_eigh(A):
    S = 0.5 * (A + A.T)
    w, V = np.linalg.eigh(S)
    E = V @ np.diag(np.exp(w)) @ V.T
    return np.sum(E * np.array([[1.0, 0.5, 0.0], [0.5, 2.0, 0.3], [0.0, 0.3, 1.0]]))


def nuclear_norm(A, B):
    return np.linalg.norm(A @ B, "nuc") + 0.1 * np.linalg.norm(A, 2)


def lstsq_ridge(lam, X, y):
    n = X.shape[1]
    Xa = np.vstack([X, math.sqrt(lam) * np.eye(n)])
    ya = np.concatenate([y, np.zeros(n)])
    w = np.linalg.lstsq(Xa, ya, rcond=None)[0]
    return np.sum((X @ w - y) ** 2)


def M(rng, *shape):
    return rng.normal(size=shape)


def _gmm(r):
    return {"logits": 0.3 * M(r, 3), "means": M(r, 3, 2), "log_scales": 0.2 * M(r, 3, 2)}


SRC = np.array([0, 1, 2, 3, 1, 2, 0])
DST = np.array([1, 2, 3, 0, 0, 1, 2])

MODELS12 = [
    ("w12_tukey_biweight", tukey_biweight, lambda r: (0.5 * M(r, 3), M(r, 8, 3), M(r, 8)), 0),
    ("w12_geman_mcclure_cauchy", geman_mcclure_cauchy, lambda r: (M(r, 3), M(r, 7, 3), M(r, 7)), 0),
    ("w12_log_cosh_stable", log_cosh_stable, lambda r: (M(r, 3), 30 * M(r, 6, 3), M(r, 6)), 0),
    ("w12_multi_quantile_pinball", multi_quantile_pinball, lambda r: (M(r, 2, 3), M(r, 6, 2), M(r, 6)), 0),
    ("w12_cox_partial_likelihood", cox_partial_likelihood,
     lambda r: (M(r, 2), M(r, 7, 2), np.array([5.0, 2.0, 7.0, 1.0, 3.0, 6.0, 4.0]),
                np.array([1.0, 0, 1, 1, 0, 1, 1])), 0),
    ("w12_gompertz_censored", gompertz_censored,
     lambda r: ((-1.0, 0.3), np.array([0.5, 1.2, 2.0, 3.1, 0.7]), np.array([1.0, 1.0, 0.0, 1.0, 0.0])), 0),
    ("w12_weibull_scipy", weibull_scipy,
     lambda r: (np.array([0.3, 0.5]), np.array([0.5, 1.2, 2.0, 3.1, 0.7]), np.array([1.0, 1, 0, 1, 0])), 0),
    ("w12_gmm_diag_dict", gmm_diag, lambda r: (_gmm(r), M(r, 8, 2)), 0),
    ("w12_gmm_em_step", gmm_em_step, lambda r: (np.array([-1.0, 0.2, 1.5]), M(r, 10)), 0),
    ("w12_dirichlet_multinomial", dirichlet_multinomial,
     lambda r: (0.3 * M(r, 4), np.array([[3.0, 0, 2, 1], [1, 1, 0, 4], [0, 2, 2, 2]])), 0),
    ("w12_poisson_mixture", poisson_mixture,
     lambda r: (np.array([[0.0, 1.5], [0.2, -0.2]]), np.array([0.0, 1, 3, 5, 2, 7])), 0),
    ("w12_td_lambda", td_lambda, lambda r: (M(r, 7), M(r, 6)), 0),
    ("w12_vtrace", vtrace,
     lambda r: (M(r, 5, 3), -1.1 + 0.3 * M(r, 5), np.array([0, 2, 1, 1, 0]), M(r, 5), M(r, 6)), 0),
    ("w12_n_step_returns", n_step_returns, lambda r: (M(r, 8), M(r, 8), np.array([0, 0, 1.0, 0, 0, 0, 1, 0])), 0),
    ("w12_soft_q_entropy", soft_q_entropy, lambda r: (M(r, 4, 3),), 0),
    ("w12_reinforce_baseline", reinforce_baseline,
     lambda r: (0.5 * M(r, 3, 4), M(r, 6, 3), np.array([0, 3, 1, 2, 2, 0]), M(r, 6)), 0),
    ("w12_dqn_huber_target", dqn_huber_target,
     lambda r: (0.5 * M(r, 3, 2), M(r, 5, 3), np.array([0, 1, 1, 0, 1]), M(r, 5), M(r, 5, 3)), 0),
    ("w12_coo_spmm", coo_spmm,
     lambda r: (M(r, 6), np.array([0, 0, 1, 2, 2, 2]), np.array([1, 2, 0, 0, 1, 2]), M(r, 3, 2)), 0),
    ("w12_coo_spmm_dense", coo_spmm,
     lambda r: (M(r, 6), np.array([0, 0, 1, 2, 2, 2]), np.array([1, 2, 0, 0, 1, 2]), M(r, 3, 2)), 3),
    ("w12_csr_scalar_loop", csr_scalar_loop,
     lambda r: (M(r, 5), np.array([0, 2, 3, 5]), np.array([0, 2, 1, 0, 2]), M(r, 3)), 3),
    ("w12_embedding_bag_mean", embedding_bag_mean,
     lambda r: (M(r, 5, 3), np.array([0, 3, 3, 1, 4, 2]), [0, 2, 5]), 0),
    ("w12_graph_attention_edges", graph_attention_edges,
     lambda r: (0.5 * M(r, 3, 2), M(r, 4), M(r, 4, 3), SRC, DST), 0),
    ("w12_ordinal_cutpoints", ordinal_cutpoints,
     lambda r: (np.array([-0.5, 0.0, 0.3]), M(r, 6, 2), M(r, 2), np.array([0, 1, 3, 2, 1, 0])), 0),
    ("w12_beta_regression", beta_regression,
     lambda r: (0.3 * M(r, 2), M(r, 6, 2), np.array([0.2, 0.5, 0.7, 0.1, 0.9, 0.4])), 0),
    ("w12_zero_inflated_poisson", zero_inflated_poisson,
     lambda r: (np.array([-0.5, 0.2, 0.4]), M(r, 8), np.array([0.0, 1, 0, 3, 0, 2, 5, 0])), 0),
    ("w12_student_t_df", student_t_df, lambda r: (np.array([1.2, 0.1, -0.3]), M(r, 7)), 0),
    ("w12_sym_expm_eigh", sym_expm_eigh, lambda r: (0.5 * M(r, 3, 3),), 0),
    ("w12_sym_expm_eigh_degenerate", sym_expm_eigh, lambda r: (np.diag([0.3, 0.3, -0.2]),), 0),
    ("w12_nuclear_norm", nuclear_norm, lambda r: (M(r, 3, 2), M(r, 2, 3)), 0),
    ("w12_lstsq_ridge", lstsq_ridge, lambda r: (0.4, M(r, 6, 3), M(r, 6)), 0),
]
