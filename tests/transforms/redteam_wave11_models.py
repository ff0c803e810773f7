"""The red team's eleventh wave, continued: robust losses (Barron's general loss, Welsch, a
pseudo-Huber through np.hypot, a trimmed loss through np.partition), survival models (a piecewise
exponential hazard through np.searchsorted, a Weibull cure model, a discrete-time hazard with
np.cumprod), mixtures through logsumexp (von Mises, Student-t, a mixture of linear experts, a
categorical mixture with a dict of parameters), reinforcement learning (returns by a reversed loop,
GAE, PPO's clipped objective, a softmax policy gradient with fixed actions, a soft Bellman
residual), constrained physics (a pendulum by a penalty, a SHAKE-like projection, Lagrange
multipliers through a KKT solve) and sparse-ish code (CSR mat-vec from indptr, a graph Laplacian from
an edge list, a GCN layer through np.bincount, a gather/scatter embedding).  See redteam_wave11.py."""

from __future__ import annotations

import numpy as np
import scipy.special
import scipy.stats

# ---- robust losses ------------------------------------------------------------------------------


def barron_general_loss(r, alpha=1.5, c=0.7):
    b = abs(alpha - 2.0)
    return np.sum(b / alpha * (((r / c) ** 2 / b + 1.0) ** (alpha / 2.0) - 1.0))


def welsch_regression(w, X, y, c=1.0):
    res = y - X @ w
    return np.sum(c ** 2 / 2 * (1.0 - np.exp(-(res / c) ** 2)))


def pseudo_huber_hypot(w, X, y, delta=0.5):
    res = X @ w - y
    return np.sum(delta * (np.hypot(delta, res) - delta))


def trimmed_partition_loss(w, X, y, keep=5):
    sq = (X @ w - y) ** 2
    return np.sum(np.partition(sq, keep - 1)[:keep])


# ---- survival -----------------------------------------------------------------------------------


def piecewise_exponential(log_h, t, event, cuts=np.array([0.5, 1.0, 2.0])):  # noqa: B008  read only
    h = np.exp(log_h)
    edges = np.concatenate([[0.0], cuts])
    k = np.searchsorted(cuts, t)
    widths = np.diff(np.concatenate([edges, [np.inf]]))
    cum = np.concatenate([[0.0], np.cumsum(h[:-1] * widths[:-1])])
    H = cum[k] + h[k] * (t - edges[k])
    return -np.sum(event * np.log(h[k]) - H)


def weibull_cure_model(params, t, event):
    logit_pi, log_k, log_lam = params
    pi = scipy.special.expit(logit_pi)
    k, lam = np.exp(log_k), np.exp(log_lam)
    S = np.exp(-(t / lam) ** k)
    f = k / lam * (t / lam) ** (k - 1) * S
    return -np.sum(event * np.log((1 - pi) * f) + (1 - event) * np.log(pi + (1 - pi) * S))


def discrete_time_hazard(w, X, last, event):
    h = scipy.special.expit(X @ w)  # (n, T) hazard at every period
    surv = np.cumprod(1 - h, axis=1)
    prev = np.concatenate([np.ones((X.shape[0], 1)), surv[:, :-1]], axis=1)
    rows = np.arange(X.shape[0])
    lik = np.where(event, prev[rows, last] * h[rows, last], surv[rows, last])
    return -np.sum(np.log(lik))


# ---- mixtures -----------------------------------------------------------------------------------


def von_mises_mixture(params, theta):
    logits, mu, log_kappa = params["logits"], params["mu"], params["log_kappa"]
    kappa = np.exp(log_kappa)
    logpi = logits - scipy.special.logsumexp(logits)
    comp = kappa[None, :] * np.cos(theta[:, None] - mu[None, :]) - np.log(2 * np.pi * scipy.special.i0e(kappa)) - kappa
    return -np.sum(scipy.special.logsumexp(logpi + comp, axis=1))


def student_t_mixture(locs, x, df=4.0, scales=np.array([0.5, 1.0])):  # noqa: B008  read only
    lp = scipy.stats.t.logpdf(x[:, None], df, loc=locs[None, :], scale=scales[None, :])
    return -np.sum(np.logaddexp(lp[:, 0], lp[:, 1]) - np.log(2.0))


def mixture_linear_experts(W, X, y, gate):
    means = X @ W  # (n, k)
    logits = X @ gate
    log_prior = logits - scipy.special.logsumexp(logits, axis=1, keepdims=True)
    ll = -0.5 * (y[:, None] - means) ** 2
    return -np.mean(scipy.special.logsumexp(log_prior + ll, axis=1))


def categorical_mixture_dict(params, counts):
    total = 0.0
    comps = []
    for name in ("a", "b"):
        logp = params[name] - scipy.special.logsumexp(params[name])
        comps.append(counts @ logp)
    total = np.logaddexp(comps[0] + np.log(0.3), comps[1] + np.log(0.7))
    return -total


# ---- reinforcement learning ---------------------------------------------------------------------


def returns_reversed_loop(rewards_w, feats, gamma=0.9):
    rewards = feats @ rewards_w
    G = 0.0
    out = []
    for r in rewards[::-1]:
        G = r + gamma * G
        out.append(G)
    out.reverse()
    return sum(g * g for g in out) / len(out)


def gae_advantages(v_w, feats, rewards, gamma=0.95, lam=0.9):
    values = feats @ v_w
    T = len(rewards)
    adv = np.zeros(T)
    last = 0.0
    for t in reversed(range(T)):
        next_v = values[t + 1] if t + 1 < T else 0.0
        delta = rewards[t] + gamma * next_v - values[t]
        last = delta + gamma * lam * last
        adv[t] = last
    return np.sum(adv ** 2)


def ppo_clipped(theta, feats, actions, old_logp, adv, eps=0.2):
    logits = feats @ theta
    logp_all = logits - scipy.special.logsumexp(logits, axis=1, keepdims=True)
    logp = logp_all[np.arange(len(actions)), actions]
    ratio = np.exp(logp - old_logp)
    return -np.mean(np.minimum(ratio * adv, np.clip(ratio, 1 - eps, 1 + eps) * adv))


def softmax_policy_gradient(theta, feats, actions, returns):
    loss = 0.0
    for s, a, G in zip(feats, actions, returns):
        z = s @ theta
        loss -= G * (z[a] - np.log(np.sum(np.exp(z))))
    return loss / len(actions)


def soft_bellman_residual(q, rewards, nxt, gamma=0.9, tau=0.5):
    v_next = tau * scipy.special.logsumexp(q[nxt] / tau, axis=-1)
    target = rewards + gamma * v_next
    return np.sum((q - target) ** 2)


# ---- constrained physics ------------------------------------------------------------------------


def pendulum_penalty(x0, steps=10, dt=0.05, k_pen=200.0):
    x, v = x0.copy(), np.zeros(2)
    for _ in range(steps):
        r = np.linalg.norm(x)
        f = np.array([0.0, -1.0]) - k_pen * (r - 1.0) * x / r
        v = v + dt * f
        x = x + dt * v
    return x[1] + 0.5 * v @ v


def shake_projection(x, bonds, length=1.0, iters=3):
    y = x.copy()
    for _ in range(iters):
        for i, j in bonds:
            d = y[j] - y[i]
            dist = np.sqrt(d @ d)
            corr = 0.5 * (dist - length) / dist * d
            y[i] = y[i] + corr
            y[j] = y[j] - corr
    return np.sum(y[:, 1]) + 0.1 * np.sum(y ** 2)


def kkt_lagrange(Q_raw, c, A, b):
    Q = Q_raw @ Q_raw.T + np.eye(Q_raw.shape[0])
    m = A.shape[0]
    KKT = np.block([[Q, A.T], [A, np.zeros((m, m))]])
    sol = np.linalg.solve(KKT, np.concatenate([-c, b]))
    x = sol[: Q.shape[0]]
    return 0.5 * x @ Q @ x + c @ x


# ---- sparse-ish code ----------------------------------------------------------------------------


def csr_matvec(data, indptr, indices, x):
    y = np.zeros(len(indptr) - 1)
    for i in range(len(indptr) - 1):
        for k in range(indptr[i], indptr[i + 1]):
            y[i] += data[k] * x[indices[k]]
    return np.sum(np.tanh(y))


def edge_list_laplacian(w_log, edges, x):
    w = np.exp(w_log)
    n = x.shape[0]
    L = np.zeros((n, n))
    L[edges[:, 0], edges[:, 1]] -= w
    L[edges[:, 1], edges[:, 0]] -= w
    L[np.diag_indices(n)] = -L.sum(axis=1)
    return x @ L @ x + np.log(np.linalg.det(L[1:, 1:]))


def gcn_bincount(W, H, src, dst):
    n = H.shape[0]
    deg = np.bincount(dst, minlength=n).astype(float) + 1.0
    msg = H[src] @ W
    agg = np.zeros((n, W.shape[1]))
    np.add.at(agg, dst, msg)
    out = np.tanh((agg + H @ W) / deg[:, None])
    return np.sum(out ** 2)


def embedding_gather_scatter(E, ids, targets):
    vec = E[ids]  # (batch, dim), repeated ids share a row
    scores = vec @ E.T
    logp = scores - scipy.special.logsumexp(scores, axis=1, keepdims=True)
    return -np.sum(logp[np.arange(len(ids)), targets])


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]])
SRC, DST = np.array([0, 1, 2, 3, 0]), np.array([1, 2, 3, 0, 2])


def _vm(r):
    return {"logits": M(r, 2), "mu": np.array([0.5, 2.5]), "log_kappa": np.array([0.3, 1.0])}


MODELS11 = [
    ("w11_barron_general_loss", barron_general_loss, lambda r: (M(r, 6),), 0),
    ("w11_welsch_regression", welsch_regression, lambda r: (M(r, 3), M(r, 8, 3), M(r, 8)), 0),
    ("w11_pseudo_huber_hypot", pseudo_huber_hypot, lambda r: (M(r, 3), M(r, 8, 3), M(r, 8)), 0),
    ("w11_trimmed_partition_loss", trimmed_partition_loss, lambda r: (M(r, 3), M(r, 8, 3), M(r, 8)), 0),
    ("w11_piecewise_exponential", piecewise_exponential,
     lambda r: (0.3 * M(r, 4), np.array([0.2, 0.7, 1.5, 2.5, 0.9]), np.array([1.0, 0, 1, 1, 0])), 0),
    ("w11_weibull_cure_model", weibull_cure_model,
     lambda r: (np.array([-0.5, 0.2, 0.1]), P(r, 6) * 3, np.array([1.0, 0, 1, 0, 1, 1])), 0),
    ("w11_discrete_time_hazard", discrete_time_hazard,
     lambda r: (0.5 * M(r, 2), M(r, 4, 3, 2), np.array([0, 2, 1, 2]), np.array([True, False, True, False])), 0),
    ("w11_von_mises_mixture", von_mises_mixture, lambda r: (_vm(r), np.array([0.1, 0.6, 2.0, 3.0, 2.4])), 0),
    ("w11_student_t_mixture", student_t_mixture, lambda r: (np.array([-1.0, 1.0]), M(r, 6)), 0),
    ("w11_mixture_linear_experts", mixture_linear_experts,
     lambda r: (M(r, 2, 3), M(r, 6, 2), M(r, 6), M(r, 2, 3)), 0),
    ("w11_mixture_linear_experts_gate", mixture_linear_experts,
     lambda r: (M(r, 2, 3), M(r, 6, 2), M(r, 6), M(r, 2, 3)), 3),
    ("w11_categorical_mixture_dict", categorical_mixture_dict,
     lambda r: ({"a": M(r, 3), "b": M(r, 3)}, np.array([2.0, 0.0, 5.0])), 0),
    ("w11_returns_reversed_loop", returns_reversed_loop, lambda r: (M(r, 2), M(r, 5, 2)), 0),
    ("w11_gae_advantages", gae_advantages, lambda r: (M(r, 2), M(r, 5, 2), M(r, 5)), 0),
    ("w11_ppo_clipped", ppo_clipped,
     lambda r: (0.3 * M(r, 2, 3), M(r, 6, 2), np.array([0, 2, 1, 1, 0, 2]), np.full(6, -1.1), M(r, 6)), 0),
    ("w11_softmax_policy_gradient", softmax_policy_gradient,
     lambda r: (M(r, 2, 3), M(r, 4, 2), [0, 2, 1, 2], [1.0, -0.5, 2.0, 0.3]), 0),
    ("w11_soft_bellman_residual", soft_bellman_residual,
     lambda r: (M(r, 4, 2), M(r, 4, 2), np.array([[1, 2], [2, 3], [3, 0], [0, 1]])), 0),
    ("w11_pendulum_penalty", pendulum_penalty, lambda r: (np.array([0.8, -0.55]),), 0),
    ("w11_shake_projection", shake_projection,
     lambda r: (np.array([[0.0, 0.0], [1.1, 0.1], [1.9, 0.5]]) + 0.05 * M(r, 3, 2), [(0, 1), (1, 2)]), 0),
    ("w11_kkt_lagrange", kkt_lagrange, lambda r: (0.5 * M(r, 3, 3), M(r, 3), M(r, 1, 3), M(r, 1)), 1),
    ("w11_kkt_lagrange_constraint", kkt_lagrange, lambda r: (0.5 * M(r, 3, 3), M(r, 3), M(r, 1, 3), M(r, 1)), 2),
    ("w11_csr_matvec", csr_matvec,
     lambda r: (M(r, 5), np.array([0, 2, 3, 5]), np.array([0, 2, 1, 0, 2]), M(r, 3)), 0),
    ("w11_csr_matvec_x", csr_matvec,
     lambda r: (M(r, 5), np.array([0, 2, 3, 5]), np.array([0, 2, 1, 0, 2]), M(r, 3)), 3),
    ("w11_edge_list_laplacian", edge_list_laplacian, lambda r: (0.3 * M(r, 5), EDGES, M(r, 4)), 0),
    ("w11_gcn_bincount", gcn_bincount, lambda r: (0.5 * M(r, 3, 2), M(r, 4, 3), SRC, DST), 0),
    ("w11_embedding_gather_scatter", embedding_gather_scatter,
     lambda r: (0.5 * M(r, 5, 3), np.array([1, 3, 1]), np.array([0, 4, 2])), 0),
]
