"""The red team's third wave: programs written the way users write them (ML losses with masks
and clipping, physics with helpers and loops, statistics with log / lgamma / softplus guards;
geometry with norms / arccos / atan2 and library-style code with defaults, keyword arguments,
dataclasses, dicts, partials and closures are in redteam_wave3_library.py).

`WAVE3` holds (with redteam_wave3_library.LIBRARY3) ``(name, function, make, wrt)`` at smooth
points (the transformation matrix runs them: corpus.redteam); the special points of the same
programs (zeros, ties, one-element reductions, guarded overflow, masked branches) are in
redteam_wave3_points.py with their exact derivatives written by hand.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

# ---- machine learning: masks, clipping, guards ------------------------------------------------


def masked_mse(pred, target, mask):
    diff = (pred - target) * mask
    return np.sum(diff ** 2) / max(np.sum(mask), 1.0)


def clipped_ratio_loss(logp, old_logp, adv, eps=0.2):
    ratio = np.exp(logp - old_logp)
    clipped = np.clip(ratio, 1.0 - eps, 1.0 + eps)
    return -np.mean(np.minimum(ratio * adv, clipped * adv))


def softplus_guarded(x):
    return np.sum(np.where(x > 20.0, x, np.log1p(np.exp(np.minimum(x, 20.0)))))


def bce_with_logits(z, y):
    return np.mean(np.maximum(z, 0.0) - z * y + np.log1p(np.exp(-np.abs(z))))


def hinge_squared(w, X, y):
    margins = 1.0 - y * (X @ w)
    return np.mean(np.maximum(margins, 0.0) ** 2) + 0.01 * np.sum(w * w)


def gelu_tanh(x):
    return np.sum(0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3))))


def label_smoothing_ce(logits, onehot, smoothing=0.1):
    k = logits.shape[-1]
    target = onehot * (1.0 - smoothing) + smoothing / k
    m = np.max(logits, axis=-1, keepdims=True)
    logz = m + np.log(np.sum(np.exp(logits - m), axis=-1, keepdims=True))
    return -np.mean(np.sum(target * (logits - logz), axis=-1))


def grad_clip_norm_step(w, g, max_norm=1.0):
    n = np.sqrt(np.sum(g * g) + 1e-12)
    scale = np.minimum(1.0, max_norm / n)
    return np.sum((w - 0.1 * scale * g) ** 2)


def dropout_fixed_mask(x, W):
    mask = np.array([1.0, 0.0, 1.0, 1.0])
    h = np.tanh(x @ W) * mask / 0.75
    return np.sum(h ** 2)


def contrastive(a, b, margin=1.0):
    d = np.sqrt(np.sum((a - b) ** 2, axis=1) + 1e-9)
    same = np.array([1.0, 0.0, 1.0])
    return np.mean(same * d ** 2 + (1.0 - same) * np.maximum(margin - d, 0.0) ** 2)


def log_cosh(pred, target):
    r = pred - target
    return np.sum(np.abs(r) + np.log1p(np.exp(-2.0 * np.abs(r))) - np.log(2.0))


def smooth_l1(pred, target, beta=0.5):
    r = np.abs(pred - target)
    return np.sum(np.where(r < beta, 0.5 * r ** 2 / beta, r - 0.5 * beta))


def weight_decay_dict(params, x):
    h = np.tanh(x @ params["w"] + params["b"])
    decay = sum(np.sum(p ** 2) for p in params.values())
    return np.sum(h) + 1e-2 * decay


def adam_like_step(w, g, m, v):
    m2 = 0.9 * m + 0.1 * g
    v2 = 0.999 * v + 0.001 * g * g
    step = m2 / (np.sqrt(v2) + 1e-8)
    return np.sum((w - 0.01 * step) ** 2)


def maxout(x, W):
    z = x @ W
    return np.sum(np.max(z.reshape(z.shape[0], 2, 2), axis=2))


# ---- physics: helpers and loops ---------------------------------------------------------------


def _spring_force(x, k, rest):
    return -k * (x - rest)


def damped_oscillator(k, x0=1.0, steps=20, dt=0.05):
    x, v = x0, 0.0
    for _ in range(steps):
        a = _spring_force(x, k, 0.0) - 0.3 * v
        v = v + dt * a
        x = x + dt * v
    return x * x + v * v


def _pair_energy(r2):
    inv6 = 1.0 / r2 ** 3
    return 4.0 * (inv6 * inv6 - inv6)


def lj_cluster(pos):
    e = 0.0
    n = pos.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            e = e + _pair_energy(np.dot(d, d))
    return e


def coulomb_softened(q, pos):
    diff = pos[:, None, :] - pos[None, :, :]
    r = np.sqrt(np.sum(diff ** 2, axis=-1) + 0.01)
    mask = 1.0 - np.eye(pos.shape[0])
    return 0.5 * np.sum(mask * q[:, None] * q[None, :] / r)


def heat_explicit(u, alpha=0.1, steps=5):
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u = u + alpha * lap
    return np.sum(u ** 2)


def wave_leapfrog(c, u0):
    u_prev, u = u0, u0
    for _ in range(4):
        lap = np.roll(u, 1) - 2.0 * u + np.roll(u, -1)
        u_prev, u = u, 2.0 * u - u_prev + c * c * lap
    return np.sum(u ** 2)


def projectile_with_drag(v0, angle=0.7):
    vx, vy = v0 * math.cos(angle), v0 * math.sin(angle)
    x, y = 0.0, 0.0
    for _ in range(10):
        speed = math.sqrt(vx * vx + vy * vy)
        vx = vx - 0.01 * 0.1 * speed * vx
        vy = vy - 0.01 * (9.81 + 0.1 * speed * vy)
        x, y = x + 0.01 * vx, y + 0.01 * vy
    return x + y


def bounded_energy(x):
    e = 0.0
    for xi in x:
        if xi > 1.0:
            e = e + 0.5 * (xi - 1.0) ** 2
        elif xi < -1.0:
            e = e + 0.5 * (xi + 1.0) ** 2
    return e + 0.1 * np.sum(x ** 2)


def kepler_newton(M, e=0.3):
    E = M
    for _ in range(6):
        E = E - (E - e * np.sin(E) - M) / (1.0 - e * np.cos(E))
    return np.sum(np.sin(E))


def pendulum_energy(theta, omega, g=9.81, length=1.0):
    return np.sum(0.5 * length ** 2 * omega ** 2 + g * length * (1.0 - np.cos(theta)))


# ---- statistics: logs, lgamma, softplus guards --------------------------------------------------


def poisson_nll(log_rate, counts):
    return np.sum(np.exp(log_rate) - counts * log_rate + gammaln(counts + 1.0))


def gamma_logpdf(log_shape, x, rate=1.5):
    a = np.exp(log_shape)
    return np.sum(a * np.log(rate) + (a - 1.0) * np.log(x) - rate * x - gammaln(a))


def dirichlet_logpdf(alpha, p):
    return gammaln(np.sum(alpha)) - np.sum(gammaln(alpha)) + np.sum((alpha - 1.0) * np.log(p))


def log_sigmoid_sum(x):
    return np.sum(-np.logaddexp(0.0, -x))


def safe_entropy(p):
    return -np.sum(np.where(p > 0.0, p * np.log(np.where(p > 0.0, p, 1.0)), 0.0))


def softmax_entropy(z):
    p = np.exp(z - np.max(z))
    p = p / np.sum(p)
    return -np.sum(p * np.log(p))


def weighted_variance(x, w):
    mu = np.sum(w * x) / np.sum(w)
    return np.sum(w * (x - mu) ** 2) / np.sum(w)


def zscore_loss(x):
    return np.sum(((x - np.mean(x)) / (np.std(x) + 1e-8)) ** 3)


def truncated_normal_logpdf(mu, x, lo=-1.0, hi=2.0):
    from scipy.special import log_ndtr
    z = x - mu
    return np.sum(-0.5 * z * z) - x.shape[0] * (log_ndtr(hi - mu) + np.log1p(-np.exp(log_ndtr(lo - mu)
                                                                                     - log_ndtr(hi - mu))))


def beta_binomial_like(log_ab, k, n=10.0):
    a, b = np.exp(log_ab[0]), np.exp(log_ab[1])
    return np.sum(gammaln(k + a) + gammaln(n - k + b) - gammaln(n + a + b) - gammaln(a) - gammaln(b)
                  + gammaln(a + b))


def huberized_logistic(w, X, y):
    z = y * (X @ w)
    return np.sum(np.where(z < -30.0, -z, np.log1p(np.exp(-np.maximum(z, -30.0)))))


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


WAVE3 = [
    ("masked_mse", masked_mse, lambda r: (M(r, 6), M(r, 6), np.array([1., 0, 1, 1, 0, 1])), 0),
    ("clipped_ratio_loss", clipped_ratio_loss, lambda r: (0.1 * M(r, 5), 0.1 * M(r, 5), M(r, 5)), 0),
    ("softplus_guarded", softplus_guarded, lambda r: (3 * M(r, 5),), 0),
    ("bce_with_logits", bce_with_logits, lambda r: (M(r, 6), (M(r, 6) > 0).astype(float)), 0),
    ("hinge_squared", hinge_squared, lambda r: (M(r, 3), M(r, 7, 3), np.sign(M(r, 7))), 0),
    ("gelu_tanh", gelu_tanh, lambda r: (M(r, 5),), 0),
    ("label_smoothing_ce", label_smoothing_ce, lambda r: (M(r, 4, 3), np.eye(3)[[0, 2, 1, 1]]), 0),
    ("grad_clip_norm_step", grad_clip_norm_step, lambda r: (M(r, 4), 2.0 * M(r, 4)), 1),
    ("grad_clip_norm_step_w", grad_clip_norm_step, lambda r: (M(r, 4), 2.0 * M(r, 4)), 0),
    ("dropout_fixed_mask", dropout_fixed_mask, lambda r: (M(r, 3, 2), M(r, 2, 4)), 1),
    ("contrastive", contrastive, lambda r: (M(r, 3, 2), M(r, 3, 2)), 0),
    ("log_cosh", log_cosh, lambda r: (M(r, 5), M(r, 5)), 0),
    ("smooth_l1", smooth_l1, lambda r: (M(r, 6), M(r, 6)), 0),
    ("weight_decay_dict", weight_decay_dict, lambda r: ({"w": M(r, 3, 2), "b": M(r, 2)}, M(r, 4, 3)), 0),
    ("adam_like_step", adam_like_step, lambda r: (M(r, 4), M(r, 4), M(r, 4), P(r, 4)), 1),
    ("maxout", maxout, lambda r: (M(r, 3, 2), M(r, 2, 4)), 1),
    ("damped_oscillator", damped_oscillator, lambda r: (2.0,), 0),
    ("lj_cluster", lj_cluster, lambda r: (np.array([[0.0, 0.0], [1.1, 0.1], [0.4, 1.05]]),), 0),
    ("coulomb_softened", coulomb_softened, lambda r: (M(r, 4), M(r, 4, 2)), 1),
    ("coulomb_charges", coulomb_softened, lambda r: (M(r, 4), M(r, 4, 2)), 0),
    ("heat_explicit", heat_explicit, lambda r: (M(r, 7),), 0),
    ("wave_leapfrog", wave_leapfrog, lambda r: (0.4, M(r, 6)), 0),
    ("wave_leapfrog_state", wave_leapfrog, lambda r: (0.4, M(r, 6)), 1),
    ("projectile_with_drag", projectile_with_drag, lambda r: (12.0,), 0),
    ("bounded_energy", bounded_energy, lambda r: (np.array([1.5, 0.3, -2.0, -0.4]),), 0),
    ("kepler_newton", kepler_newton, lambda r: (np.array([0.3, 1.2, 2.5]),), 0),
    ("pendulum_energy", pendulum_energy, lambda r: (M(r, 3), M(r, 3)), 0),
    ("poisson_nll", poisson_nll, lambda r: (0.5 * M(r, 5), np.array([0., 1, 3, 2, 5])), 0),
    ("gamma_logpdf", gamma_logpdf, lambda r: (0.3, P(r, 5)), 0),
    ("dirichlet_logpdf", dirichlet_logpdf, lambda r: (1.0 + P(r, 4), np.array([0.1, 0.2, 0.3, 0.4])), 0),
    ("log_sigmoid_sum", log_sigmoid_sum, lambda r: (3 * M(r, 5),), 0),
    ("safe_entropy", safe_entropy, lambda r: (P(r, 5),), 0),
    ("softmax_entropy", softmax_entropy, lambda r: (M(r, 5),), 0),
    ("weighted_variance", weighted_variance, lambda r: (M(r, 5), P(r, 5)), 0),
    ("weighted_variance_w", weighted_variance, lambda r: (M(r, 5), P(r, 5)), 1),
    ("zscore_loss", zscore_loss, lambda r: (M(r, 6),), 0),
    ("truncated_normal_logpdf", truncated_normal_logpdf, lambda r: (0.2, M(r, 4)), 0),
    ("beta_binomial_like", beta_binomial_like, lambda r: (0.3 * M(r, 2), np.array([1., 4, 7])), 0),
    ("huberized_logistic", huberized_logistic, lambda r: (M(r, 3), M(r, 6, 3), np.sign(M(r, 6))), 0),
]


def _with_library():
    from .redteam_wave3_library import LIBRARY3
    return WAVE3 + LIBRARY3


WAVE3 = _with_library()
