"""Wave 32h: econometrics and NLP as applied people write them: GMM with a weighting matrix, probit
by scipy.special.log_ndtr, Tobit by scipy.stats.norm, inverse Mills ratios, Poisson with exposure,
GARCH(1,1) by a list of variances, exact AR(1), conditional logit over a dict, ordered probit by
cumsum(exp), CES production; masked causal attention, label smoothing by np.eye, a CTC-style
forward recursion in log space, a linear-chain CRF's partition function, layer norm with GELU,
negative sampling by integer lookups, InfoNCE, and idioms: slices updated in place with ``+=``,
validation by ``raise ValueError``, math beside np, float32 data."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import log_ndtr, ndtr
from scipy.stats import norm

RNG = np.random.default_rng(325)
X = np.column_stack([np.ones(30), RNG.normal(size=(30, 2))])
ZI = np.column_stack([X, RNG.normal(size=30)])
Y = X @ np.array([0.5, 1.0, -0.5]) + RNG.normal(size=30)
YB = (Y > 0.4).astype(float)
YC = np.maximum(Y, 0.0)


def gmm_objective(beta, x=X, z=ZI, y=Y):
    u = y - x @ beta
    g = np.mean(z * u[:, None], axis=0)
    S = (z * u[:, None]).T @ (z * u[:, None]) / len(y)
    W = np.linalg.inv(S + 0.1 * np.eye(4))
    return len(y) * g @ W @ g


def probit(beta, x=X, y=YB):
    xb = x @ beta
    return -np.sum(y * log_ndtr(xb) + (1 - y) * log_ndtr(-xb))


def tobit(theta, x=X, y=YC):
    beta, log_s = theta[:3], theta[3]
    s = np.exp(log_s)
    xb = x @ beta
    ll = np.where(y <= 0, norm.logcdf(-xb / s), norm.logpdf((y - xb) / s) - log_s)
    return -np.sum(ll)


def mills_ratio(gamma, w=X, selected=YB):
    zg = w @ gamma
    imr = norm.pdf(zg) / ndtr(zg)
    return np.sum(selected * imr ** 2) + np.sum(gamma ** 2)


COUNTS = RNG.poisson(3.0, size=30).astype(float)
EXPOSURE = RNG.uniform(0.5, 2.0, size=30)


def poisson_exposure(beta, x=X, y=COUNTS, expo=EXPOSURE):
    eta = x @ beta + np.log(expo)
    return np.sum(np.exp(eta) - y * eta)


RET = 0.01 * RNG.standard_t(5, size=40)


def garch(params, r=RET):
    omega, alpha, beta = np.exp(params)
    sig2 = [np.var(r)]
    for t in range(1, len(r)):
        sig2.append(omega + alpha * r[t - 1] ** 2 + beta * sig2[-1])
    s = np.array(sig2)
    return 0.5 * np.sum(np.log(s) + r ** 2 / s)


def ar1_exact(theta, y=np.cumsum(RNG.normal(size=20)) * 0.3):  # noqa: B008
    phi, log_s = theta
    if abs(phi) >= 1:
        raise ValueError("phi must be inside (-1, 1)")
    s2 = math.exp(2 * log_s)
    ll = -0.5 * (math.log(2 * math.pi * s2 / (1 - phi ** 2)) + y[0] ** 2 * (1 - phi ** 2) / s2)
    e = y[1:] - phi * y[:-1]
    ll += -0.5 * np.sum(np.log(2 * np.pi * s2) + e ** 2 / s2)
    return -ll


ALT = RNG.normal(size=(25, 3, 2))  # person x alternative x attribute
CHOICE = RNG.integers(0, 3, size=25)


def conditional_logit(coef, alt=ALT, choice=CHOICE):
    util = alt @ np.array([coef["price"], coef["time"]])
    util = util + np.array([0.0, coef["asc_bus"], coef["asc_rail"]])
    util -= util.max(axis=1, keepdims=True)
    logp = util - np.log(np.exp(util).sum(axis=1, keepdims=True))
    return -np.sum(logp[np.arange(len(choice)), choice])


RATING = RNG.integers(0, 4, size=30)


def ordered_probit(theta, x=X[:, 1:], y=RATING):
    beta, raw = theta[:2], theta[2:]
    cuts = np.concatenate([[-np.inf], np.cumsum(np.concatenate([[raw[0]], np.exp(raw[1:])])), [np.inf]])
    xb = x @ beta
    p = ndtr(cuts[y + 1] - xb) - ndtr(cuts[y] - xb)
    return -np.sum(np.log(p))


def ces(params, k=np.linspace(1, 5, 10), l=np.linspace(2, 3, 10), out=np.linspace(1.5, 4, 10)):  # noqa: B008, E741
    A, delta, rho = params
    q = A * (delta * k ** (-rho) + (1 - delta) * l ** (-rho)) ** (-1 / rho)
    return np.sum((np.log(q) - np.log(out)) ** 2)


EMB = RNG.normal(size=(5, 4)) * 0.5


def masked_attention(wq, x=EMB, wk=RNG.normal(size=(4, 4)) * 0.3, wv=RNG.normal(size=(4, 4)) * 0.3):  # noqa: B008
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T / math.sqrt(q.shape[-1])
    mask = np.triu(np.ones((5, 5), dtype=bool), k=1)
    scores = np.where(mask, -1e9, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    attn = np.exp(scores)
    attn /= attn.sum(axis=-1, keepdims=True)
    return np.sum((attn @ v) ** 2)


TOKENS = np.array([1, 3, 0, 2, 4, 1])


def label_smoothing(logits, targets=TOKENS, eps=0.1):
    n, k = logits.shape
    soft = np.eye(k)[targets] * (1 - eps) + eps / k
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    return -np.sum(soft * logp) / n


def ctc_forward(logits, labels=(1, 2, 1)):
    T = logits.shape[0]
    logp = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    ext = [0]
    for lab in labels:
        ext += [lab, 0]
    S = len(ext)
    alpha = np.full(S, -np.inf)
    alpha[0], alpha[1] = logp[0, ext[0]], logp[0, ext[1]]
    for t in range(1, T):
        new = np.full(S, -np.inf)
        for s in range(S):
            a = alpha[s]
            if s >= 1:
                a = np.logaddexp(a, alpha[s - 1])
            if s >= 2 and ext[s] != 0 and ext[s] != ext[s - 2]:
                a = np.logaddexp(a, alpha[s - 2])
            new[s] = a + logp[t, ext[s]]
        alpha = new
    return -np.logaddexp(alpha[-1], alpha[-2])


def ctc_log_zero(logits, labels=(1, 2, 1)):
    """The same recursion with the first items written one by one (the tuple assignment is refused)."""
    T = logits.shape[0]
    logp = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
    ext = [0]
    for lab in labels:
        ext += [lab, 0]
    S = len(ext)
    alpha = np.full(S, -np.inf)
    alpha[0] = logp[0, ext[0]]
    alpha[1] = logp[0, ext[1]]
    for t in range(1, T):
        new = np.full(S, -np.inf)
        for s in range(S):
            a = alpha[s]
            if s >= 1:
                a = np.logaddexp(a, alpha[s - 1])
            new[s] = a + logp[t, ext[s]]
        alpha = new
    return -np.logaddexp(alpha[-1], alpha[-2])


TAGS = np.array([0, 1, 1, 2, 0])


def crf_nll(trans, emissions=RNG.normal(size=(5, 3)), tags=TAGS):  # noqa: B008
    score = emissions[0, tags[0]]
    for t in range(1, len(tags)):
        score += trans[tags[t - 1], tags[t]] + emissions[t, tags[t]]
    alpha = emissions[0]
    for t in range(1, len(tags)):
        s = alpha[:, None] + trans + emissions[t][None, :]
        m = s.max(axis=0)
        alpha = m + np.log(np.exp(s - m).sum(axis=0))
    m = alpha.max()
    return m + math.log(np.sum(np.exp(alpha - m))) - score


def layernorm_gelu(params, x=EMB):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    h = (x - mu) / np.sqrt(var + 1e-5) * params["gamma"] + params["beta"]
    g = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3)))
    return np.sum((x + g) ** 2)


CENTER = np.array([0, 1, 2, 3])
CONTEXT = np.array([1, 2, 3, 4])
NEG = np.array([[2, 4], [0, 3], [4, 1], [0, 2]])


def negative_sampling(emb, out=RNG.normal(size=(5, 3)) * 0.3, center=CENTER, ctx=CONTEXT, neg=NEG):  # noqa: B008
    loss = 0.0
    for c, o, ns in zip(center, ctx, neg):
        pos = emb[c] @ out[o]
        loss += np.logaddexp(0.0, -pos)
        for n in ns:
            loss += np.logaddexp(0.0, emb[c] @ out[n])
    return loss


def info_nce(za, zb=RNG.normal(size=(4, 3)), tau=0.2):  # noqa: B008
    a = za / np.linalg.norm(za, axis=1, keepdims=True)
    b = zb / np.linalg.norm(zb, axis=1, keepdims=True)
    sim = a @ b.T / tau
    lse = np.log(np.sum(np.exp(sim - sim.max(axis=1, keepdims=True)), axis=1)) + sim.max(axis=1)
    return np.mean(lse - np.diag(sim))


def slice_updates(w):
    y = np.array(w, copy=True)
    y[1:] += 0.5 * w[:-1]
    y[:-1] -= 0.25 * w[1:] ** 2
    y[::2] *= 1.5
    return np.sum(np.sin(y)) + np.sum(y ** 2)


def validated(w, lo=-5.0, hi=5.0):
    if np.any(w < lo) or np.any(w > hi):
        raise ValueError("weights out of range")
    if len(w) != 4:
        raise ValueError("expected 4 weights")
    return math.exp(-0.5) * np.sum(np.exp(w) * np.cos(w)) + math.sqrt(2.0) * float(w[0]) ** 2


def float32_regression(w, x=X.astype(np.float32), y=Y.astype(np.float32)):  # noqa: B008
    r = x @ w - y
    return np.mean(np.log(np.cosh(r)))


def reversed_cumulative(w):
    acc = 0.0
    out = []
    for i, wi in reversed(list(enumerate(w))):
        acc = 0.9 * acc + wi * (i + 1)
        out.append(acc)
    return sum(v ** 2 for v in out)


ECON_NLP = [
    ("ect_gmm_weighting", gmm_objective, lambda rng: (np.array([0.4, 0.9, -0.4]),), 0),
    ("ect_probit_log_ndtr", probit, lambda rng: (np.array([-0.2, 0.8, -0.3]),), 0),
    ("ect_tobit_norm", tobit, lambda rng: (np.array([0.4, 0.9, -0.4, 0.1]),), 0),
    ("ect_inverse_mills", mills_ratio, lambda rng: (np.array([0.1, 0.5, -0.2]),), 0),
    ("ect_poisson_exposure", poisson_exposure, lambda rng: (np.array([1.0, 0.1, -0.1]),), 0),
    ("ect_garch_list", garch, lambda rng: (np.log(np.array([1e-5, 0.1, 0.8])),), 0),
    ("ect_ar1_raise", ar1_exact, lambda rng: (np.array([0.6, -1.0]),), 0),
    ("ect_conditional_logit_dict", conditional_logit,
     lambda rng: ({"price": -0.5, "time": -0.3, "asc_bus": 0.2, "asc_rail": -0.1},), 0),
    ("ect_ordered_probit_cumsum", ordered_probit, lambda rng: (np.array([0.3, -0.2, -0.5, 0.0, 0.2]),), 0),
    ("ect_ces", ces, lambda rng: (np.array([1.0, 0.4, 0.5]),), 0),
    ("nlp_masked_attention", masked_attention, lambda rng: (0.3 * rng.normal(size=(4, 4)),), 0),
    ("nlp_label_smoothing_eye", label_smoothing, lambda rng: (rng.normal(size=(6, 5)),), 0),
    ("nlp_ctc_logspace", ctc_forward, lambda rng: (rng.normal(size=(6, 3)),), 0),
    ("nlp_ctc_log_zero", ctc_log_zero, lambda rng: (rng.normal(size=(6, 3)),), 0),
    ("nlp_crf_forward", crf_nll, lambda rng: (0.5 * rng.normal(size=(3, 3)),), 0),
    ("nlp_layernorm_gelu_dict", layernorm_gelu,
     lambda rng: ({"gamma": 1 + 0.1 * rng.normal(size=4), "beta": 0.1 * rng.normal(size=4)},), 0),
    ("nlp_negative_sampling", negative_sampling, lambda rng: (0.3 * rng.normal(size=(5, 3)),), 0),
    ("nlp_info_nce", info_nce, lambda rng: (rng.normal(size=(4, 3)),), 0),
    ("idi_slice_augmented", slice_updates, lambda rng: (rng.normal(size=6),), 0),
    ("idi_validate_raise", validated, lambda rng: (rng.normal(size=4),), 0),
    ("idi_float32_logcosh", float32_regression, lambda rng: (np.array([0.4, 0.9, -0.4], dtype=np.float32),), 0),
    ("idi_reversed_enumerate", reversed_cumulative, lambda rng: (rng.normal(size=5),), 0),
]
