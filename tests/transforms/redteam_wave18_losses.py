"""The red team's eighteenth wave, continued: losses and divergences earlier waves did not write.  ArcFace and
CosFace margins (arccos of a clipped cosine), pinball / quantile, Tweedie and Poisson deviance, log-cosh,
Charbonnier, Cauchy, Geman-McClure and Tukey's biweight, smooth L1 with a beta, the 1-D Wasserstein distance
by np.sort, the energy distance, an RBF MMD, a sliced Wasserstein over fixed projections, sparsemax by sort
and cumsum, Jensen-Shannon, Hellinger and total variation distances, the Bhattacharyya distance, Barlow
Twins and VICReg, the asymmetric loss, Poly-1, generalised cross entropy ``(1 - p ** q) / q``, symmetric
cross entropy, an IWAE bound by a logsumexp over fixed samples, a beta-VAE with a KL weight, the
Lovasz-free hinge on sorted errors, a Huber written with ``if`` on a 0-d array, and a mixture NLL.  See
redteam_wave18.py.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp


def M(rng, *shape):
    return rng.normal(size=shape)


def normalise_rows(A):
    return A / np.linalg.norm(A, axis=1, keepdims=True)


def arcface(W, feats, labels, s=8.0, m=0.3):
    cos = normalise_rows(feats) @ normalise_rows(W).T
    theta = np.arccos(np.clip(cos, -1 + 1e-7, 1 - 1e-7))
    target = np.cos(theta[np.arange(len(labels)), labels] + m)
    logits = s * cos
    logits[np.arange(len(labels)), labels] = s * target
    return np.mean(logsumexp(logits, axis=1) - logits[np.arange(len(labels)), labels])


def cosface(W, feats, labels, s=8.0, m=0.2):
    cos = normalise_rows(feats) @ normalise_rows(W).T
    onehot = np.eye(W.shape[0])[labels]
    logits = s * (cos - m * onehot)
    return -np.mean(np.sum(onehot * (logits - logsumexp(logits, axis=1, keepdims=True)), axis=1))


def pinball(pred, y, qs=np.array([0.1, 0.5, 0.9])):  # noqa: B008
    err = y[:, None] - pred
    return np.mean(np.maximum(qs * err, (qs - 1) * err))


def tweedie_deviance(log_mu, y, p=1.5):
    mu = np.exp(log_mu)
    return np.sum(-y * mu ** (1 - p) / (1 - p) + mu ** (2 - p) / (2 - p))


def poisson_deviance(log_mu, y):
    mu = np.exp(log_mu)
    term = np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0) / mu), 0.0)
    return 2 * np.sum(term - (y - mu))


def robust_family(r, c=1.0):
    logcosh = np.sum(np.log(np.cosh(r)))
    charbonnier = np.sum(np.sqrt(r ** 2 + 1e-3 ** 2))
    cauchy = np.sum(c ** 2 / 2 * np.log1p((r / c) ** 2))
    geman = np.sum(2 * (r / c) ** 2 / ((r / c) ** 2 + 4))
    return logcosh + charbonnier + cauchy + geman


def tukey_biweight(r, c=1.5):
    inside = np.abs(r) <= c
    rho = np.where(inside, c ** 2 / 6 * (1 - (1 - (r / c) ** 2) ** 3), c ** 2 / 6)
    return rho.sum()


def smooth_l1(pred, target, beta=0.5):
    d = np.abs(pred - target)
    return np.where(d < beta, 0.5 * d ** 2 / beta, d - 0.5 * beta).mean()


def wasserstein_1d(x, y):
    return np.mean(np.abs(np.sort(x) - np.sort(y)))


def energy_distance(x, y):
    dxy = np.abs(x[:, None] - y[None, :]).mean()
    dxx = np.abs(x[:, None] - x[None, :]).mean()
    dyy = np.abs(y[:, None] - y[None, :]).mean()
    return 2 * dxy - dxx - dyy


def rbf_mmd(X, Y, gamma=0.5):
    def k(A, B):
        d2 = np.sum(A ** 2, 1)[:, None] + np.sum(B ** 2, 1)[None, :] - 2 * A @ B.T
        return np.exp(-gamma * d2)
    return k(X, X).mean() + k(Y, Y).mean() - 2 * k(X, Y).mean()


def sliced_wasserstein(X, Y, dirs):
    total = 0.0
    for d in dirs:
        px = np.sort(X @ d)
        py = np.sort(Y @ d)
        total += np.mean((px - py) ** 2)
    return total / len(dirs)


def sparsemax_loss(z, target=1):
    zs = np.sort(z)[::-1]
    k = np.arange(1, z.size + 1)
    cumsum = np.cumsum(zs)
    support = 1 + k * zs > cumsum
    kz = k[support][-1]
    tau = (cumsum[kz - 1] - 1) / kz
    p = np.maximum(z - tau, 0.0)
    return np.sum(p ** 2) - 2 * p[target]


def js_divergence(logits, q):
    p = np.exp(logits - logsumexp(logits))
    m = 0.5 * (p + q)
    return 0.5 * np.sum(p * np.log(p / m)) + 0.5 * np.sum(q * np.log(q / m))


def hellinger_tv(logits, q):
    p = np.exp(logits) / np.exp(logits).sum()
    hell = np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2))
    tv = 0.5 * np.abs(p - q).sum()
    bhatt = -np.log(np.sum(np.sqrt(p * q)))
    return hell + tv + bhatt


def barlow_twins(z1, z2, lam=0.05):
    z1 = (z1 - z1.mean(0)) / z1.std(0)
    z2 = (z2 - z2.mean(0)) / z2.std(0)
    c = z1.T @ z2 / z1.shape[0]
    on = np.sum((np.diagonal(c) - 1) ** 2)
    off = np.sum(c ** 2) - np.sum(np.diagonal(c) ** 2)
    return on + lam * off


def vicreg(z1, z2):
    inv = np.mean((z1 - z2) ** 2)
    std = np.sqrt(z1.var(axis=0) + 1e-4)
    var_term = np.mean(np.maximum(0, 1 - std))
    zc = z1 - z1.mean(axis=0)
    cov = zc.T @ zc / (len(z1) - 1)
    cov_term = (np.sum(cov ** 2) - np.sum(np.diag(cov) ** 2)) / z1.shape[1]
    return 25 * inv + 25 * var_term + cov_term


def asymmetric_loss(logits, y, gpos=0.0, gneg=4.0, clip=0.05):
    p = 1 / (1 + np.exp(-logits))
    pm = np.maximum(p - clip, 0.0)
    pos = y * (1 - p) ** gpos * np.log(p)
    neg = (1 - y) * pm ** gneg * np.log(1 - pm)
    return -np.sum(pos + neg)


def poly1(logits, label, eps=1.0):
    logp = logits - logsumexp(logits)
    pt = np.exp(logp[label])
    return -logp[label] + eps * (1 - pt)


def generalised_ce(logits, labels, q=0.7):
    p = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
    pt = p[np.arange(len(labels)), labels]
    return np.mean((1 - pt ** q) / q)


def symmetric_ce(logits, onehot, alpha=0.1, beta=1.0):
    p = np.exp(logits - logsumexp(logits, axis=1, keepdims=True))
    ce = -np.sum(onehot * np.log(p), axis=1)
    rce = -np.sum(p * np.log(np.clip(onehot, 1e-4, 1.0)), axis=1)
    return np.mean(alpha * ce + beta * rce)


def iwae_bound(params, x, eps):
    mu, log_sigma = params[:2], params[2:]
    z = mu + np.exp(log_sigma) * eps
    log_q = -0.5 * np.sum(eps ** 2 + 2 * log_sigma + np.log(2 * np.pi), axis=1)
    log_prior = -0.5 * np.sum(z ** 2 + np.log(2 * np.pi), axis=1)
    log_lik = -0.5 * np.sum((x - z) ** 2, axis=1)
    return -(logsumexp(log_prior + log_lik - log_q) - np.log(len(eps)))


def beta_vae(enc, x, eps, beta=4.0):
    mu = enc[0] * x
    logvar = enc[1] * np.ones_like(x)
    z = mu + np.exp(0.5 * logvar) * eps
    recon = np.sum((x - 0.9 * z) ** 2)
    kl = -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar))
    return recon + beta * kl


def sorted_hinge(scores, signs):
    errors = np.maximum(1 - scores * signs, 0.0)
    ordered = np.sort(errors)[::-1]
    weights = 1.0 / np.arange(1, len(ordered) + 1)
    return ordered @ weights


def huber_zero_d(pred, y, delta=1.0):
    total = np.array(0.0)
    for a, b in zip(pred, y):
        d = np.abs(a - b)
        if d <= delta:
            total = total + 0.5 * d ** 2
        else:
            total = total + delta * (d - 0.5 * delta)
    return total


def mixture_nll(params, x):
    logits, mus, log_s = params["logits"], params["mu"], params["log_s"]
    logw = logits - logsumexp(logits)
    z = (x[:, None] - mus) / np.exp(log_s)
    comp = logw - 0.5 * z ** 2 - log_s - 0.5 * np.log(2 * np.pi)
    return -np.sum(logsumexp(comp, axis=1))


def _labels(n, k):
    return np.arange(n) % k


LOSSES18 = [
    ("w18_arcface", arcface, lambda r: (M(r, 3, 4), M(r, 5, 4), _labels(5, 3)), 0),
    ("w18_arcface_feats", arcface, lambda r: (M(r, 3, 4), M(r, 5, 4), _labels(5, 3)), 1),
    ("w18_cosface", cosface, lambda r: (M(r, 3, 4), M(r, 5, 4), _labels(5, 3)), 0),
    ("w18_pinball", pinball, lambda r: (M(r, 6, 3), M(r, 6)), 0),
    ("w18_tweedie", tweedie_deviance, lambda r: (0.3 * M(r, 6), r.poisson(2.0, 6).astype(float)), 0),
    ("w18_poisson_deviance", poisson_deviance, lambda r: (0.3 * M(r, 6), np.array([0, 1, 3, 0, 2, 5.0])), 0),
    ("w18_robust_family", robust_family, lambda r: (M(r, 6),), 0),
    ("w18_tukey_biweight", tukey_biweight, lambda r: (2 * M(r, 6),), 0),
    ("w18_smooth_l1", smooth_l1, lambda r: (M(r, 6), M(r, 6)), 0),
    ("w18_wasserstein_1d", wasserstein_1d, lambda r: (M(r, 6), M(r, 6)), 0),
    ("w18_energy_distance", energy_distance, lambda r: (M(r, 5), 0.5 + M(r, 4)), 0),
    ("w18_rbf_mmd", rbf_mmd, lambda r: (M(r, 5, 2), 0.5 + M(r, 4, 2)), 0),
    ("w18_sliced_wasserstein", sliced_wasserstein,
     lambda r: (M(r, 5, 2), 0.5 + M(r, 5, 2), normalise_rows(M(r, 3, 2))), 0),
    ("w18_sparsemax_loss", sparsemax_loss, lambda r: (np.array([0.9, 0.6, -0.2, 0.1]),), 0),
    ("w18_js_divergence", js_divergence, lambda r: (M(r, 4), np.array([0.1, 0.2, 0.3, 0.4])), 0),
    ("w18_hellinger_tv", hellinger_tv, lambda r: (M(r, 4), np.array([0.1, 0.2, 0.3, 0.4])), 0),
    ("w18_barlow_twins", barlow_twins, lambda r: (M(r, 6, 3), M(r, 6, 3)), 0),
    ("w18_vicreg", vicreg, lambda r: (M(r, 6, 3), M(r, 6, 3)), 0),
    ("w18_asymmetric_loss", asymmetric_loss, lambda r: (M(r, 6), (M(r, 6) > 0).astype(float)), 0),
    ("w18_poly1", poly1, lambda r: (M(r, 5), 2), 0),
    ("w18_generalised_ce", generalised_ce, lambda r: (M(r, 4, 3), _labels(4, 3)), 0),
    ("w18_symmetric_ce", symmetric_ce, lambda r: (M(r, 4, 3), np.eye(3)[_labels(4, 3)]), 0),
    ("w18_iwae_bound", iwae_bound, lambda r: (0.3 * M(r, 4), M(r, 2), M(r, 5, 2)), 0),
    ("w18_beta_vae", beta_vae, lambda r: (np.array([0.8, -0.5]), M(r, 4), M(r, 4)), 0),
    ("w18_sorted_hinge", sorted_hinge, lambda r: (M(r, 6), np.sign(M(r, 6))), 0),
    ("w18_huber_zero_d", huber_zero_d, lambda r: (2 * M(r, 5), M(r, 5)), 0),
    ("w18_mixture_nll", mixture_nll,
     lambda r: ({"logits": M(r, 2), "mu": np.array([-1.0, 1.0]), "log_s": 0.2 * M(r, 2)}, M(r, 7)), 0),
]
