"""The red team's fourteenth wave: optimisation written by hand (gradient-descent inner loops whose
final loss is differentiated with respect to the start or the step, Armijo backtracking, a proximal
L1 step, Adam and RMSProp written as functions, Nesterov momentum, conjugate gradients, a
Gauss-Newton step on a Jacobian filled in a loop, mirror descent on the simplex, projected
descent in a box, the L-BFGS two-loop recursion), probabilistic programs (log densities of
constrained parameters through softplus, exp, logit, stick-breaking, ordered and interval
transforms with their log-Jacobians, a Cholesky factor with an exp diagonal filled in a loop, a
non-centred hierarchy, von Mises through i0e, a reparameterised ELBO) and small neural nets in
plain NumPy (a list of layer dicts, frozen dataclass layers, residual blocks, a GRU cell, masked
attention, naive 2-D convolution, max pooling by reshape, a NamedTuple autoencoder).  Physics,
signal processing, finance and geometry are in redteam_wave14_physics.py; special points, float32,
Python idioms, scipy and arrays made from computed shapes in redteam_wave14_points.py; broadcasts of
values whose axes are not known before the code runs in redteam_wave14_shapes.py, NumPy spellings
with a trap (an index written twice, np.cumprod through a zero, where=) in redteam_wave14_numpy.py,
arrays joined from pieces of axes not known before the code runs in redteam_wave14_joins.py, library
calls with their less common arguments (axis, keepdims, weights, prepend, initial) in
redteam_wave14_rules.py, Python idioms around a numeric core (assert, isinstance, functools.reduce,
nonlocal, np.errstate, starred unpacking) in redteam_wave14_idioms.py.

`WAVE14` holds all eight: ``(name, function, make, wrt)`` as in redteam_programs.py, every name
``w14_…``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple

import numpy as np
import scipy.special

# ---- optimisation written by hand ------------------------------------------------------------------


def gd_inner_loop(w, X, y, lr=0.05, steps=5):
    for _ in range(steps):
        r = X @ w - y
        g = X.T @ r / len(y)
        w = w - lr * g
    r = X @ w - y
    return 0.5 * np.mean(r ** 2)


def gd_learning_rate_hypergrad(lr, w0, X, y):
    w = w0.copy()
    for _ in range(4):
        g = X.T @ (X @ w - y) / X.shape[0]
        w -= lr * g
    return np.sum((X @ w - y) ** 2)


def _quadratic(x):
    return 0.5 * x[0] ** 2 + 2.0 * x[1] ** 2 + 0.3 * x[0] * x[1] + np.sin(x[0])


def _quadratic_grad(x):
    return np.array([x[0] + 0.3 * x[1] + np.cos(x[0]), 4.0 * x[1] + 0.3 * x[0]])


def armijo_backtracking(x, c=1e-4):
    g = _quadratic_grad(x)
    t = 1.0
    fx = _quadratic(x)
    while _quadratic(x - t * g) > fx - c * t * np.dot(g, g):
        t = 0.5 * t
    return _quadratic(x - t * g)


def proximal_l1_step(w, X, y, lam=0.1, lr=0.1):
    g = X.T @ (X @ w - y) / len(y)
    z = w - lr * g
    w_new = np.sign(z) * np.maximum(np.abs(z) - lr * lam, 0.0)
    return np.sum((X @ w_new - y) ** 2) + lam * np.sum(np.abs(w_new))


def adam(params, target, lr=0.05, b1=0.9, b2=0.999, eps=1e-8, steps=4):
    m = np.zeros_like(params)
    v = np.zeros_like(params)
    p = params
    for t in range(1, steps + 1):
        g = 2.0 * (p - target) + np.cos(p)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        m_hat = m / (1 - b1 ** t)
        v_hat = v / (1 - b2 ** t)
        p = p - lr * m_hat / (np.sqrt(v_hat) + eps)
    return np.sum((p - target) ** 2 + np.sin(p))


def rmsprop_dict(params, X, y, lr=0.01, rho=0.9, steps=3):
    cache = {k: np.zeros_like(v) for k, v in params.items()}
    p = dict(params)
    for _ in range(steps):
        r = X @ p["w"] + p["b"] - y
        grads = {"w": X.T @ r / len(y), "b": np.mean(r)}
        for k in p:
            cache[k] = rho * cache[k] + (1 - rho) * grads[k] ** 2
            p[k] = p[k] - lr * grads[k] / np.sqrt(cache[k] + 1e-6)
    return np.mean((X @ p["w"] + p["b"] - y) ** 2)


def nesterov_momentum(w, A, b, lr=0.1, mu=0.8, steps=5):
    v = np.zeros_like(w)
    for _ in range(steps):
        look = w + mu * v
        g = A @ look - b
        v = mu * v - lr * g
        w = w + v
    return 0.5 * w @ A @ w - b @ w


def conjugate_gradient(b, A, iters=3):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    for _ in range(iters):
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x = x + alpha * p
        r = r - alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
    return np.sum(x ** 2)


def gauss_newton_step(theta, t, y):
    n = len(t)
    J = np.zeros((n, 2))
    r = np.zeros(n)
    for i in range(n):
        e = np.exp(-theta[1] * t[i])
        r[i] = theta[0] * e - y[i]
        J[i, 0] = e
        J[i, 1] = -theta[0] * t[i] * e
    step = np.linalg.solve(J.T @ J + 1e-3 * np.eye(2), J.T @ r)
    new = theta - step
    return np.sum((new[0] * np.exp(-new[1] * t) - y) ** 2)


def mirror_descent_simplex(logits, c, lr=0.5, steps=4):
    p = np.exp(logits - logits.max())
    p = p / p.sum()
    for _ in range(steps):
        grad = c + np.log(p) + 1.0
        p = p * np.exp(-lr * grad)
        p = p / np.sum(p)
    return p @ c + np.sum(p * np.log(p))


def projected_gd_box(x, target, lo=-0.5, hi=0.5, lr=0.3, steps=4):
    for _ in range(steps):
        x = np.clip(x - lr * 2.0 * (x - target), lo, hi)
    return np.sum(x * target) + np.sum(x ** 2)


def lbfgs_two_loop(g, S, Y):
    q = g.copy()
    alphas = []
    for s, yv in zip(S[::-1], Y[::-1]):
        rho = 1.0 / (yv @ s)
        a = rho * (s @ q)
        q = q - a * yv
        alphas.append((rho, a))
    gamma = (S[-1] @ Y[-1]) / (Y[-1] @ Y[-1])
    z = gamma * q
    for (s, yv), (rho, a) in zip(zip(S, Y), reversed(alphas)):
        b = rho * (yv @ z)
        z = z + s * (a - b)
    return np.sum(z * g)


# ---- probabilistic programs ------------------------------------------------------------------------


def logit_beta_logdensity(z, a=2.0, b=3.0):
    p = scipy.special.expit(z)
    logpdf = (a - 1) * np.log(p) + (b - 1) * np.log1p(-p) - scipy.special.betaln(a, b)
    log_jac = np.log(p) + np.log1p(-p)
    return np.sum(logpdf + log_jac)


def stick_breaking_dirichlet(y, alpha):
    K = len(y) + 1
    simplex = []
    log_jac = 0.0
    remaining = 1.0
    for k in range(K - 1):
        zk = scipy.special.expit(y[k] - np.log(K - k - 1))
        piece = remaining * zk
        log_jac = log_jac + np.log(remaining) + np.log(zk) + np.log1p(-zk)
        simplex.append(piece)
        remaining = remaining - piece
    simplex.append(remaining)
    x = np.array(simplex)
    lp = np.sum((alpha - 1.0) * np.log(x)) + scipy.special.gammaln(alpha.sum()) - np.sum(scipy.special.gammaln(alpha))
    return lp + log_jac


def cholesky_mvn_logpdf(theta, X):
    d = X.shape[1]
    L = np.zeros((d, d))
    k = 0
    for i in range(d):
        for j in range(i + 1):
            L[i, j] = np.exp(theta[k]) if i == j else theta[k]
            k += 1
    Z = np.linalg.solve(L, X.T)
    log_det = 2.0 * np.sum(np.log(np.diag(L)))
    n = X.shape[0]
    return -0.5 * np.sum(Z ** 2) - 0.5 * n * log_det - 0.5 * n * d * np.log(2 * np.pi)


def softplus_scale_normal(raw, x):
    sigma = np.logaddexp(0.0, raw)
    return np.sum(-0.5 * (x / sigma) ** 2 - np.log(sigma))


def noncentered_hierarchy(params, y, s):
    tau = np.exp(params["log_tau"])
    theta = params["mu"] + tau * params["eta"]
    lp = -0.5 * np.sum(((y - theta) / s) ** 2)
    lp += -0.5 * np.sum(params["eta"] ** 2) - 0.5 * params["mu"] ** 2 / 25.0
    lp += -np.log1p(tau ** 2) + params["log_tau"]
    return lp


def ordered_cutpoints(y, x):
    c = np.concatenate([y[:1], y[0] + np.cumsum(np.exp(y[1:]))])
    logp = np.log(scipy.special.expit(c[1:, None] - x[None, :]) - scipy.special.expit(c[:-1, None] - x[None, :]))
    return np.sum(logp) + np.sum(y[1:])


def interval_transform(z, lo=-2.0, hi=3.0):
    s = scipy.special.expit(z)
    x = lo + (hi - lo) * s
    log_jac = np.log(hi - lo) + np.log(s) + np.log1p(-s)
    return np.sum(-0.5 * (x - 0.7) ** 2 / 0.4 + log_jac)


def von_mises_loglik(params, angles):
    mu, log_kappa = params
    kappa = math.exp(log_kappa)
    log_i0 = np.log(scipy.special.i0e(kappa)) + kappa
    return np.sum(kappa * np.cos(angles - mu)) - len(angles) * (np.log(2 * np.pi) + log_i0)


def gamma_exp_rate(log_rate, log_shape, x):
    rate, shape = np.exp(log_rate), np.exp(log_shape)
    ll = shape * np.log(rate) - scipy.special.gammaln(shape) + (shape - 1) * np.log(x) - rate * x
    return np.sum(ll) - rate - shape


def reparam_elbo(mu, log_sigma, eps, y):
    sigma = np.exp(log_sigma)
    z = mu + sigma * eps
    loglik = np.sum(-0.5 * (y[None, :] - z[:, :1]) ** 2, axis=1)
    logprior = -0.5 * np.sum(z ** 2, axis=1)
    entropy = np.sum(log_sigma)
    return np.mean(loglik + logprior) + entropy


def mixture_scipy_logsumexp(means, x, log_w):
    comp = -0.5 * (x[:, None] - means[None, :]) ** 2 + log_w[None, :] - scipy.special.logsumexp(log_w)
    return np.sum(scipy.special.logsumexp(comp, axis=1))


# ---- small neural nets in plain NumPy -------------------------------------------------------------


def mlp_list_of_dicts(layers, X, y):
    h = X
    for i, layer in enumerate(layers):
        h = h @ layer["W"] + layer["b"]
        if i != len(layers) - 1:
            h = np.tanh(h)
    return np.mean((h[:, 0] - y) ** 2)


@dataclasses.dataclass(frozen=True)
class Dense:
    W: np.ndarray
    b: np.ndarray


@dataclasses.dataclass(frozen=True)
class Net:
    hidden: Dense
    out: Dense


def dataclass_net(net, X, y):
    h = np.maximum(X @ net.hidden.W + net.hidden.b, 0.0)
    logits = h @ net.out.W + net.out.b
    return np.mean(np.logaddexp(0.0, -y * logits[:, 0]))


def residual_blocks(Ws, x):
    h = x
    for W in Ws:
        h = h + 0.5 * np.tanh(W @ h)
    return np.sum(h ** 2)


def gru_cell_sequence(params, xs):
    Wz, Wr, Wh = params["Wz"], params["Wr"], params["Wh"]
    h = np.zeros(Wz.shape[0])
    for x in xs:
        hx = np.concatenate([h, x])
        z = scipy.special.expit(Wz @ hx)
        r = scipy.special.expit(Wr @ hx)
        cand = np.tanh(Wh @ np.concatenate([r * h, x]))
        h = (1 - z) * h + z * cand
    return np.sum(h ** 2)


def masked_attention(Wq, X, mask):
    Q = X @ Wq
    S = Q @ X.T / math.sqrt(X.shape[1])
    S = np.where(mask, S, -1e9)
    S = S - S.max(axis=1, keepdims=True)
    P = np.exp(S)
    P = P / P.sum(axis=1, keepdims=True)
    return np.sum((P @ X) ** 2)


def conv2d_naive(K, img):
    kh, kw = K.shape
    H, W = img.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for i in range(H - kh + 1):
        for j in range(W - kw + 1):
            out[i, j] = np.sum(img[i:i + kh, j:j + kw] * K)
    return np.sum(np.tanh(out) ** 2)


def maxpool_reshape(x, w):
    h = np.tanh(x * w)
    pooled = h.reshape(-1, 2).max(axis=1)
    return np.sum(pooled ** 2)


class AE(NamedTuple):
    enc: np.ndarray
    dec: np.ndarray


def namedtuple_autoencoder(p, X):
    code = np.tanh(X @ p.enc)
    recon = code @ p.dec
    return np.mean((recon - X) ** 2) + 1e-3 * (np.sum(p.enc ** 2) + np.sum(p.dec ** 2))


ACTS = {"tanh": np.tanh, "relu": lambda z: np.maximum(z, 0.0), "softplus": lambda z: np.logaddexp(0.0, z)}


def activation_by_name(Ws, X, names=("tanh", "softplus")):
    h = X
    for W, name in zip(Ws, names):
        h = ACTS[name](h @ W)
    return np.sum(h)


def M(rng, *shape):
    return rng.normal(size=shape)


def _spd(r, n):
    A = M(r, n, n)
    return A @ A.T / n + np.eye(n)


def _lbfgs_pairs(r):
    S = 0.5 * M(r, 3, 4)
    Y = S + 0.1 * M(r, 3, 4)
    return S, Y


OPTIM14 = [
    ("w14_gd_inner_loop", gd_inner_loop, lambda r: (M(r, 3), M(r, 8, 3), M(r, 8)), 0),
    ("w14_gd_inner_loop_data", gd_inner_loop, lambda r: (M(r, 3), M(r, 8, 3), M(r, 8)), 1),
    ("w14_gd_learning_rate_hypergrad", gd_learning_rate_hypergrad, lambda r: (0.1, M(r, 3), M(r, 7, 3), M(r, 7)), 0),
    ("w14_armijo_backtracking", armijo_backtracking, lambda r: (np.array([1.3, -0.8]),), 0),
    ("w14_proximal_l1_step", proximal_l1_step, lambda r: (M(r, 4), M(r, 9, 4), M(r, 9)), 0),
    ("w14_adam", adam, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w14_rmsprop_dict", rmsprop_dict, lambda r: ({"w": M(r, 3), "b": 0.2}, M(r, 6, 3), M(r, 6)), 0),
    ("w14_nesterov_momentum", nesterov_momentum, lambda r: (M(r, 3), _spd(r, 3), M(r, 3)), 0),
    ("w14_nesterov_momentum_matrix", nesterov_momentum, lambda r: (M(r, 3), _spd(r, 3), M(r, 3)), 1),
    ("w14_conjugate_gradient", conjugate_gradient, lambda r: (M(r, 4), _spd(r, 4)), 0),
    ("w14_conjugate_gradient_matrix", conjugate_gradient, lambda r: (M(r, 4), _spd(r, 4)), 1),
    ("w14_gauss_newton_step", gauss_newton_step,
     lambda r: (np.array([2.0, 0.7]), np.linspace(0.0, 3.0, 6), 2.2 * np.exp(-0.6 * np.linspace(0, 3, 6))), 0),
    ("w14_mirror_descent_simplex", mirror_descent_simplex, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w14_projected_gd_box", projected_gd_box, lambda r: (0.2 * M(r, 5), np.array([0.9, -0.1, 0.2, -1.3, 0.05])), 0),
    ("w14_lbfgs_two_loop", lbfgs_two_loop, lambda r: (M(r, 4), *_lbfgs_pairs(r)), 0),
    ("w14_lbfgs_two_loop_pairs", lbfgs_two_loop, lambda r: (M(r, 4), *_lbfgs_pairs(r)), 1),
]

PROB14 = [
    ("w14_logit_beta_logdensity", logit_beta_logdensity, lambda r: (M(r, 5),), 0),
    ("w14_stick_breaking_dirichlet", stick_breaking_dirichlet, lambda r: (M(r, 3), np.array([2.0, 1.5, 3.0, 1.2])), 0),
    ("w14_cholesky_mvn_logpdf", cholesky_mvn_logpdf, lambda r: (0.3 * M(r, 6), M(r, 5, 3)), 0),
    ("w14_softplus_scale_normal", softplus_scale_normal, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w14_noncentered_hierarchy", noncentered_hierarchy,
     lambda r: ({"mu": 0.3, "log_tau": -0.2, "eta": M(r, 5)}, M(r, 5), np.full(5, 0.8)), 0),
    ("w14_ordered_cutpoints", ordered_cutpoints, lambda r: (np.array([-1.0, 0.1, -0.3]), 0.5 * M(r, 6)), 0),
    ("w14_interval_transform", interval_transform, lambda r: (M(r, 4),), 0),
    ("w14_von_mises_loglik", von_mises_loglik, lambda r: ((0.4, 0.7), r.uniform(-3, 3, size=7)), 0),
    ("w14_gamma_exp_rate", gamma_exp_rate, lambda r: (0.2, 0.5, r.uniform(0.2, 3.0, size=6)), 1),
    ("w14_reparam_elbo", reparam_elbo, lambda r: (M(r, 3), 0.3 * M(r, 3), M(r, 5, 3), M(r, 4)), 1),
    ("w14_mixture_scipy_logsumexp", mixture_scipy_logsumexp, lambda r: (M(r, 3), M(r, 8), M(r, 3)), 0),
    ("w14_mixture_scipy_logsumexp_w", mixture_scipy_logsumexp, lambda r: (M(r, 3), M(r, 8), M(r, 3)), 2),
]


def _layers(r):
    return [{"W": 0.5 * M(r, 3, 4), "b": M(r, 4)}, {"W": 0.5 * M(r, 4, 1), "b": M(r, 1)}]


def _net(r):
    return Net(Dense(M(r, 3, 5), M(r, 5)), Dense(M(r, 5, 1), M(r, 1)))


def _gru(r):
    return {"Wz": 0.4 * M(r, 3, 5), "Wr": 0.4 * M(r, 3, 5), "Wh": 0.4 * M(r, 3, 5)}


NETS14 = [
    ("w14_mlp_list_of_dicts", mlp_list_of_dicts, lambda r: (_layers(r), M(r, 6, 3), M(r, 6)), 0),
    ("w14_dataclass_net", dataclass_net, lambda r: (_net(r), M(r, 7, 3), np.sign(M(r, 7))), 0),
    ("w14_residual_blocks", residual_blocks, lambda r: ([0.5 * M(r, 3, 3) for _ in range(3)], M(r, 3)), 0),
    ("w14_residual_blocks_x", residual_blocks, lambda r: ([0.5 * M(r, 3, 3) for _ in range(3)], M(r, 3)), 1),
    ("w14_gru_cell_sequence", gru_cell_sequence, lambda r: (_gru(r), M(r, 4, 2)), 0),
    ("w14_masked_attention", masked_attention, lambda r: (0.5 * M(r, 3, 3), M(r, 4, 3),
                                                        np.tril(np.ones((4, 4), bool))), 0),
    ("w14_conv2d_naive", conv2d_naive, lambda r: (0.5 * M(r, 2, 2), M(r, 4, 5)), 0),
    ("w14_maxpool_reshape", maxpool_reshape, lambda r: (M(r, 8), 1.3), 0),
    ("w14_namedtuple_autoencoder", namedtuple_autoencoder, lambda r: (AE(0.5 * M(r, 4, 2), 0.5 * M(r, 2, 4)),
                                                                    M(r, 6, 4)), 0),
    ("w14_activation_by_name", activation_by_name, lambda r: ([0.5 * M(r, 3, 4), 0.5 * M(r, 4, 2)], M(r, 5, 3)), 0),
]


def _all():
    from .redteam_wave14_idioms import IDIOMS14
    from .redteam_wave14_joins import JOINS14
    from .redteam_wave14_numpy import NUMPY14
    from .redteam_wave14_physics import PHYSICS14
    from .redteam_wave14_points import POINTS14
    from .redteam_wave14_rules import RULES14
    from .redteam_wave14_shapes import SHAPES14
    return OPTIM14 + PROB14 + NETS14 + PHYSICS14 + POINTS14 + SHAPES14 + NUMPY14 + JOINS14 + RULES14 + IDIOMS14


WAVE14 = _all()
