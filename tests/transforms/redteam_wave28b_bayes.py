"""The red team's wave 28b, second half: statistics written the way statisticians write it in plain
NumPy (test_redteam_wave28b.py runs them through every transformation).

Log posteriors with Gaussian, Laplace, half-Cauchy and inverse-gamma priors on transformed
parameters (with their Jacobians); Gaussian, Student-t, Poisson, Gamma, log-normal, Weibull,
censored exponential, Beta, negative-binomial, Dirichlet-multinomial, zero-truncated Poisson, probit
and von Mises log-likelihoods (``math.lgamma`` in loops and ``scipy.special`` on arrays); a
non-centred hierarchical model; AR(1) and a one-dimensional Kalman filter by loops; optimiser
steps unrolled (SGD, momentum, Adam, RMSprop, Newton) differentiated in their initial point or a
hyperparameter; EM-like updates (a Gaussian mixture's E and M steps, soft k-means, Sinkhorn);
Monte-Carlo estimates with a generator seeded inside the function (reparameterised ELBO, IWAE,
Gumbel-softmax, random Fourier features, a bootstrap, a minibatch by ``rng.choice``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special


def M(r, *shape):
    return r.standard_normal(shape)


def P(r, *shape):
    return r.uniform(0.5, 1.5, shape)


LOG2PI = math.log(2.0 * math.pi)


def normal_logpdf(x, mu, sigma):
    return -0.5 * ((x - mu) / sigma) ** 2 - np.log(sigma) - 0.5 * LOG2PI


# ---- log posteriors -------------------------------------------------------------------------------


def blr_log_posterior(theta, X, y):
    w, log_sigma = theta[:-1], theta[-1]
    sigma = np.exp(log_sigma)
    loglik = np.sum(normal_logpdf(y, X @ w, sigma))
    logprior = np.sum(normal_logpdf(w, 0.0, 10.0)) + normal_logpdf(log_sigma, 0.0, 1.0)
    return -(loglik + logprior)


def blr_args(r):
    return np.concatenate([M(r, 3), [-0.3]]), M(r, 10, 3), M(r, 10)


def student_t_lgamma_nu(params, x):
    mu, log_s, log_nu = params
    s, nu = math.exp(log_s), math.exp(log_nu)
    total = 0.0
    for xi in x:
        z = (xi - mu) / s
        total += (math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi) - math.log(s)
                  - (nu + 1) / 2 * math.log1p(z * z / nu))
    return -total


def t_args(r):
    return (0.1, -0.2, 1.3), M(r, 6)


def student_t_gammaln_arrays(theta, X, y):
    w, log_s, log_nu = theta[:3], theta[3], theta[4]
    s, nu = np.exp(log_s), np.exp(log_nu)
    z = (y - X @ w) / s
    ll = (special.gammaln((nu + 1) / 2) - special.gammaln(nu / 2) - 0.5 * np.log(nu * np.pi) - np.log(s)
          - (nu + 1) / 2 * np.log1p(z ** 2 / nu))
    return -np.sum(ll)


def t_arr_args(r):
    return np.array([0.2, -0.1, 0.4, -0.5, 1.2]), M(r, 8, 3), M(r, 8)


def poisson_glm_prior(beta, X, y):
    eta = X @ beta
    ll = np.sum(y * eta - np.exp(eta) - special.gammaln(y + 1.0))
    return -(ll - 0.5 * np.sum(beta ** 2) / 4.0)


def pois_args(r):
    return 0.3 * M(r, 3), M(r, 10, 3), r.poisson(1.5, 10).astype(float)


def gamma_loglik(log_params, y):
    a, b = np.exp(log_params)
    return -np.sum(a * np.log(b) - special.gammaln(a) + (a - 1.0) * np.log(y) - b * y)


def gamma_args(r):
    return np.array([0.4, -0.1]), r.gamma(2.0, 1.0, 12)


def gamma_lgamma_loop(log_a, log_b, y):
    a, b = math.exp(log_a), math.exp(log_b)
    ll = 0.0
    for v in y:
        ll += a * math.log(b) - math.lgamma(a) + (a - 1) * math.log(v) - b * v
    return -ll


def gamma_loop_args(r):
    return 0.4, -0.1, list(r.gamma(2.0, 1.0, 6))


def lognormal_loglik(params, y):
    mu, log_sigma = params["mu"], params["log_sigma"]
    sigma = np.exp(log_sigma)
    ly = np.log(y)
    return -np.sum(-ly - np.log(sigma) - 0.5 * LOG2PI - (ly - mu) ** 2 / (2 * sigma ** 2))


def weibull_loglik(log_kl, t):
    k, lam = np.exp(log_kl[0]), np.exp(log_kl[1])
    z = t / lam
    return -np.sum(np.log(k) - np.log(lam) + (k - 1) * np.log(z) - z ** k)


def censored_exponential(log_rate, X, t, observed):
    rate = np.exp(X @ log_rate)
    return -np.sum(observed * np.log(rate) - rate * t)


def cens_args(r):
    return 0.3 * M(r, 2), M(r, 9, 2), r.exponential(1.0, 9), (r.random(9) > 0.3).astype(float)


def beta_regression(params, X, y):
    mu = 1.0 / (1.0 + np.exp(-(X @ params["w"])))
    phi = np.exp(params["log_phi"])
    a, b = mu * phi, (1.0 - mu) * phi
    return -np.sum((a - 1) * np.log(y) + (b - 1) * np.log1p(-y) - special.betaln(a, b))


def beta_args(r):
    return {"w": 0.3 * M(r, 3), "log_phi": np.array(1.5)}, M(r, 8, 3), r.uniform(0.1, 0.9, 8)


def negbin_gammaln(params, X, y):
    mu = np.exp(X @ params[:-1])
    alpha = np.exp(params[-1])
    r_ = 1.0 / alpha
    ll = (special.gammaln(y + r_) - special.gammaln(r_) - special.gammaln(y + 1.0)
          + r_ * np.log(r_ / (r_ + mu)) + y * np.log(mu / (r_ + mu)))
    return -np.sum(ll)


def nb_args(r):
    return np.array([0.2, -0.1, 0.3, -0.7]), M(r, 9, 3), r.poisson(2.0, 9).astype(float)


def dirichlet_multinomial(log_alpha, counts):
    alpha = np.exp(log_alpha)
    n = counts.sum(axis=1)
    a0 = alpha.sum()
    ll = (special.gammaln(a0) - special.gammaln(n + a0)
          + np.sum(special.gammaln(counts + alpha) - special.gammaln(alpha), axis=1))
    return -np.sum(ll)


def dm_args(r):
    return 0.3 * M(r, 3), r.integers(0, 5, (4, 3)).astype(float)


def zero_truncated_poisson(w, X, y):
    lam = np.exp(X @ w)
    return -np.sum(y * np.log(lam) - lam - np.log1p(-np.exp(-lam)) - special.gammaln(y + 1))


def ztp_args(r):
    return 0.3 * M(r, 2), M(r, 8, 2), (1 + r.poisson(1.0, 8)).astype(float)


def probit_log_ndtr(w, X, y):
    z = X @ w
    return -np.sum(y * special.log_ndtr(z) + (1 - y) * special.log_ndtr(-z))


def probit_args(r):
    return 0.5 * M(r, 3), M(r, 10, 3), (r.random(10) > 0.5).astype(float)


def von_mises_i0e(params, theta):
    mu, log_kappa = params[0], params[1]
    kappa = np.exp(log_kappa)
    log_i0 = np.log(special.i0e(kappa)) + kappa
    return -np.sum(kappa * np.cos(theta - mu) - math.log(2 * math.pi) - log_i0)


def vm_args(r):
    return np.array([0.3, 0.2]), r.uniform(-np.pi, np.pi, 7)


def eight_schools_noncentered(params, y, sigma):
    mu, log_tau, eta = params["mu"], params["log_tau"], params["eta"]
    tau = np.exp(log_tau)
    theta = mu + tau * eta
    lp = np.sum(-0.5 * ((y - theta) / sigma) ** 2)
    lp += np.sum(-0.5 * eta ** 2)
    lp += -0.5 * (mu / 5.0) ** 2
    lp += -np.log1p((tau / 5.0) ** 2) + log_tau  # half-Cauchy on tau, Jacobian of exp
    return -lp


def schools_args(r):
    return ({"mu": 4.0, "log_tau": 1.0, "eta": 0.5 * M(r, 8)},
            np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0]),
            np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0]))


def laplace_prior_logistic(w, X, y, b=0.5):
    z = X @ w
    ll = np.sum(y * z - np.logaddexp(0.0, z))
    return -(ll - np.sum(np.abs(w)) / b)


def lap_args(r):
    return np.array([0.4, -0.7, 1.1]), M(r, 10, 3), (r.random(10) > 0.5).astype(float)


def inverse_gamma_prior(log_s2, y, a=2.0, b=1.0):
    s2 = math.exp(log_s2)
    n = len(y)
    ss = float(np.sum((y - y.mean()) ** 2))
    ll = -0.5 * n * math.log(2 * math.pi * s2) - 0.5 * ss / s2
    lp = a * math.log(b) - math.lgamma(a) - (a + 1) * math.log(s2) - b / s2
    return -(ll + lp + log_s2)


def mixture_two_gaussians_logaddexp(params, x):
    logit_pi, mu1, mu2, ls1, ls2 = params
    log_pi = -np.logaddexp(0.0, -logit_pi)
    log_1mpi = -np.logaddexp(0.0, logit_pi)
    l1 = log_pi + normal_logpdf(x, mu1, np.exp(ls1))
    l2 = log_1mpi + normal_logpdf(x, mu2, np.exp(ls2))
    return -np.sum(np.logaddexp(l1, l2))


def mix_args(r):
    return np.array([0.2, -1.0, 1.0, -0.3, 0.1]), np.concatenate([M(r, 5) - 1.0, M(r, 5) + 1.0])


def multinomial_logit_counts(W, X, counts):
    logp = X @ W - special.logsumexp(X @ W, axis=1, keepdims=True)
    return -np.sum(counts * logp)


def mlc_args(r):
    return 0.3 * M(r, 3, 4), M(r, 5, 3), r.integers(0, 4, (5, 4)).astype(float)


def ar1_loglik(params, x):
    phi, log_s = math.tanh(params[0]), params[1]
    s2 = math.exp(2 * log_s)
    ll = -0.5 * (math.log(2 * math.pi * s2 / (1 - phi ** 2)) + x[0] ** 2 * (1 - phi ** 2) / s2)
    for t in range(1, len(x)):
        e = x[t] - phi * x[t - 1]
        ll = ll - 0.5 * (math.log(2 * math.pi * s2) + e * e / s2)
    return -ll


def ar1_args(r):
    return np.array([0.5, -0.2]), M(r, 8)


def kalman_1d(log_q_r, y):
    q, r_ = np.exp(log_q_r[0]), np.exp(log_q_r[1])
    m, P_ = 0.0, 1.0
    ll = 0.0
    for yt in y:
        P_ = P_ + q
        S = P_ + r_
        v = yt - m
        ll = ll - 0.5 * (np.log(2 * np.pi * S) + v * v / S)
        K = P_ / S
        m = m + K * v
        P_ = (1 - K) * P_
    return -ll


def kalman_args(r):
    return np.array([-1.0, -0.5]), np.cumsum(0.3 * M(r, 7)) + 0.4 * M(r, 7)


def stick_breaking_prior(v_raw, z):
    v = 1.0 / (1.0 + np.exp(-v_raw))
    remaining = np.concatenate([[1.0], np.cumprod(1.0 - v)[:-1]])
    w = v * remaining
    return -np.sum(z * np.log(w)) - np.sum(np.log(v) + np.log1p(-v))


def sb_args(r):
    return 0.3 * M(r, 4), np.array([3.0, 2.0, 1.0, 1.0])


def factor_analysis_nll(params, X):
    L, log_psi = params
    S = L @ L.T + np.diag(np.exp(log_psi))
    sign, logdet = np.linalg.slogdet(S)
    n = X.shape[0]
    C = X.T @ X / n
    return 0.5 * n * (logdet + np.trace(np.linalg.solve(S, C)))


def fa_args(r):
    return (0.5 * M(r, 3, 1), 0.1 * M(r, 3)), M(r, 10, 3)


# ---- optimisers unrolled --------------------------------------------------------------------------


def sgd_unrolled_lr(log_lr, X, y, steps=4):
    lr = np.exp(log_lr)
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        g = X.T @ (X @ w - y) / len(y)
        w = w - lr * g
    return np.mean((X @ w - y) ** 2)


def opt_args(r):
    return -1.0, M(r, 8, 3), M(r, 8)


def momentum_unrolled_init(w0, X, y, lr=0.1, beta=0.9, steps=4):
    w, v = w0, np.zeros_like(w0)
    for _ in range(steps):
        g = X.T @ (X @ w - y) / len(y)
        v = beta * v + g
        w = w - lr * v
    return np.mean((X @ w - y) ** 2)


def init_args(r):
    return M(r, 3), M(r, 8, 3), M(r, 8)


def adam_unrolled(w0, X, y, lr=0.05, b1=0.9, b2=0.999, eps=1e-8, steps=3):
    w, m, v = w0, np.zeros_like(w0), np.zeros_like(w0)
    for t in range(1, steps + 1):
        g = X.T @ np.tanh(X @ w - y) / len(y)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mhat = m / (1 - b1 ** t)
        vhat = v / (1 - b2 ** t)
        w = w - lr * mhat / (np.sqrt(vhat) + eps)
    return np.sum((X @ w - y) ** 2)


def rmsprop_unrolled(w0, X, y, lr=0.05, rho=0.9, eps=1e-6, steps=3):
    w, s = w0, np.zeros_like(w0)
    for _ in range(steps):
        g = X.T @ (X @ w - y)
        s = rho * s + (1 - rho) * g ** 2
        w = w - lr * g / np.sqrt(s + eps)
    return np.mean((X @ w - y) ** 2)


def newton_logreg_steps(w0, X, y, steps=2):
    w = w0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(X @ w)))
        g = X.T @ (p - y) + 0.1 * w
        H = X.T @ (X * (p * (1 - p))[:, None]) + 0.1 * np.eye(len(w))
        w = w - np.linalg.solve(H, g)
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z)


def newton_args(r):
    return 0.1 * M(r, 3), M(r, 12, 3), (r.random(12) > 0.5).astype(float)


def gd_quadratic_hyper(hyper, A, b, steps=5):
    lr, lam = hyper
    x = np.zeros_like(b)
    for _ in range(steps):
        x = x - lr * (A @ x - b + lam * x)
    return 0.5 * x @ A @ x - b @ x


def quad_args(r):
    Q = M(r, 3, 3)
    return np.array([0.1, 0.05]), Q @ Q.T + np.eye(3), M(r, 3)


# ---- EM-like updates ------------------------------------------------------------------------------


def gmm_em_step(X, means, log_var):
    var = np.exp(log_var)
    d2 = np.sum((X[:, None, :] - means[None, :, :]) ** 2, axis=2)
    logr = -0.5 * d2 / var - 0.5 * X.shape[1] * np.log(var)
    logr = logr - special.logsumexp(logr, axis=1, keepdims=True)
    R = np.exp(logr)
    new_means = (R.T @ X) / R.sum(axis=0)[:, None]
    d2n = np.sum((X[:, None, :] - new_means[None, :, :]) ** 2, axis=2)
    return -np.sum(special.logsumexp(-0.5 * d2n / var - 0.5 * X.shape[1] * np.log(var), axis=1))


def gmm_em_args(r):
    X = np.concatenate([M(r, 4, 2) - 1.0, M(r, 4, 2) + 1.0])
    return X, np.array([[-1.0, -1.0], [1.0, 1.0]]) + 0.2 * M(r, 2, 2), 0.1


def gmm_em_iterations(means, X, iters=3):
    for _ in range(iters):
        d2 = np.sum((X[:, None, :] - means[None, :, :]) ** 2, axis=2)
        logits = -0.5 * d2
        R = np.exp(logits - special.logsumexp(logits, axis=1, keepdims=True))
        means = (R.T @ X) / R.sum(axis=0)[:, None]
    return np.sum(means ** 2)


def soft_kmeans(C, X, beta=2.0):
    d2 = ((X[:, None, :] - C[None]) ** 2).sum(-1)
    logits = -beta * d2
    R = np.exp(logits - logits.max(axis=1, keepdims=True))
    R = R / R.sum(axis=1, keepdims=True)
    return np.sum(R * d2)


def km_args(r):
    return M(r, 3, 2), M(r, 9, 2)


def sinkhorn_ot(a_logits, C, b, eps=0.5, iters=10):
    a = np.exp(a_logits) / np.sum(np.exp(a_logits))
    K = np.exp(-C / eps)
    v = np.ones_like(b)
    for _ in range(iters):
        u = a / (K @ v)
        v = b / (K.T @ u)
    Pm = u[:, None] * K * v[None, :]
    return np.sum(Pm * C)


def sinkhorn_args(r):
    return 0.3 * M(r, 4), r.uniform(0.0, 2.0, (4, 3)), np.array([0.2, 0.5, 0.3])


def sinkhorn_cost_grad(C, a_logits, b):
    return sinkhorn_ot(a_logits, C, b)


def em_mixture_weights(logit_w, L, iters=4):
    # L: per-point component likelihoods (n, k); EM on the weights started from softmax(logit_w)
    w = np.exp(logit_w) / np.sum(np.exp(logit_w))
    for _ in range(iters):
        R = L * w
        R = R / R.sum(axis=1, keepdims=True)
        w = R.mean(axis=0)
    return -np.sum(np.log(L @ w))


def emw_args(r):
    return 0.3 * M(r, 3), r.uniform(0.05, 1.0, (8, 3))


# ---- Monte Carlo with a generator seeded inside ---------------------------------------------------


def reparam_elbo(q, X, y, S=5):
    rng = np.random.default_rng(7)
    mu, log_sd = q["mu"], q["log_sd"]
    sd = np.exp(log_sd)
    total = 0.0
    for _ in range(S):
        eps = rng.standard_normal(mu.shape)
        w = mu + sd * eps
        total = total + np.sum(-0.5 * (y - X @ w) ** 2) - 0.5 * np.sum(w ** 2)
    entropy = np.sum(log_sd)
    return -(total / S + entropy)


def elbo_args(r):
    return {"mu": 0.3 * M(r, 3), "log_sd": -1.0 + 0.1 * M(r, 3)}, M(r, 6, 3), M(r, 6)


def iwae_bound(q, x, K=6):
    rng = np.random.default_rng(3)
    mu, log_sd = q
    eps = rng.standard_normal((K, mu.shape[0]))
    z = mu + np.exp(log_sd) * eps
    log_p = -0.5 * np.sum(z ** 2, axis=1) - 0.5 * np.sum((x - np.tanh(z)) ** 2, axis=1)
    log_q = -0.5 * np.sum(eps ** 2, axis=1) - np.sum(log_sd)
    return -(special.logsumexp(log_p - log_q) - np.log(K))


def iwae_args(r):
    return (0.3 * M(r, 3), -0.5 + 0.1 * M(r, 3)), M(r, 3)


def gumbel_softmax(logits, values, tau=0.7):
    rng = np.random.default_rng(11)
    u = rng.uniform(1e-6, 1.0 - 1e-6, size=(4, logits.shape[0]))
    g = -np.log(-np.log(u))
    y = (logits + g) / tau
    y = np.exp(y - y.max(axis=1, keepdims=True))
    y = y / y.sum(axis=1, keepdims=True)
    return np.mean(y @ values)


def gs_args(r):
    return 0.5 * M(r, 4), M(r, 4)


def random_fourier_features(w, X, y, D=6, ls=1.0):
    rng = np.random.default_rng(5)
    Omega = rng.normal(0.0, 1.0 / ls, size=(X.shape[1], D))
    phase = rng.uniform(0.0, 2 * np.pi, size=D)
    Phi = np.sqrt(2.0 / D) * np.cos(X @ Omega + phase)
    return np.mean((Phi @ w - y) ** 2) + 1e-2 * np.sum(w ** 2)


def rff_args(r):
    return M(r, 6), M(r, 7, 2), M(r, 7)


def rff_wrt_inputs(X, w, y):
    return random_fourier_features(w, X, y)


def bootstrap_loss(w, X, y, B=4):
    rng = np.random.default_rng(1)
    n = len(y)
    total = 0.0
    for _ in range(B):
        idx = rng.integers(0, n, size=n)
        total = total + np.mean((X[idx] @ w - y[idx]) ** 2)
    return total / B


def minibatch_choice(w, X, y, batch=4):
    rng = np.random.default_rng(9)
    idx = rng.choice(len(y), size=batch, replace=False)
    z = X[idx] @ w
    return np.mean(np.logaddexp(0.0, z) - y[idx] * z)


def mb_args(r):
    return M(r, 3), M(r, 10, 3), (r.random(10) > 0.5).astype(float)


def mc_expectation_normal_draws(theta, n=50):
    rng = np.random.default_rng(123)
    x = rng.normal(theta[0], np.exp(theta[1]), size=n)
    return np.mean(np.sin(x) + 0.5 * x ** 2)


PROGRAMS = [
    # log posteriors and likelihoods
    ("blr_log_posterior", blr_log_posterior, blr_args, 0),
    ("student_t_lgamma_nu", student_t_lgamma_nu, t_args, 0),
    ("student_t_gammaln_arrays", student_t_gammaln_arrays, t_arr_args, 0),
    ("poisson_glm_prior", poisson_glm_prior, pois_args, 0),
    ("gamma_loglik", gamma_loglik, gamma_args, 0),
    ("gamma_lgamma_loop", gamma_lgamma_loop, gamma_loop_args, 0),
    ("lognormal_loglik", lognormal_loglik,
     lambda r: ({"mu": 0.2, "log_sigma": np.array(-0.3)}, r.lognormal(0.0, 0.5, 8)), 0),
    ("weibull_loglik", weibull_loglik, lambda r: (np.array([0.3, 0.1]), r.weibull(1.5, 9) + 0.05), 0),
    ("censored_exponential", censored_exponential, cens_args, 0),
    ("beta_regression", beta_regression, beta_args, 0),
    ("negbin_gammaln", negbin_gammaln, nb_args, 0),
    ("dirichlet_multinomial", dirichlet_multinomial, dm_args, 0),
    ("zero_truncated_poisson", zero_truncated_poisson, ztp_args, 0),
    ("probit_log_ndtr", probit_log_ndtr, probit_args, 0),
    ("von_mises_i0e", von_mises_i0e, vm_args, 0),
    ("eight_schools_noncentered", eight_schools_noncentered, schools_args, 0),
    ("laplace_prior_logistic", laplace_prior_logistic, lap_args, 0),
    ("inverse_gamma_prior", inverse_gamma_prior, lambda r: (0.1, M(r, 7)), 0),
    ("mixture_two_gaussians_logaddexp", mixture_two_gaussians_logaddexp, mix_args, 0),
    ("mixture_two_gaussians_data", mixture_two_gaussians_logaddexp, mix_args, 1),
    ("multinomial_logit_counts", multinomial_logit_counts, mlc_args, 0),
    ("ar1_loglik", ar1_loglik, ar1_args, 0),
    ("kalman_1d", kalman_1d, kalman_args, 0),
    ("kalman_1d_observations", kalman_1d, kalman_args, 1),
    ("stick_breaking_prior", stick_breaking_prior, sb_args, 0),
    ("factor_analysis_nll", factor_analysis_nll, fa_args, 0),
    # optimisers unrolled
    ("sgd_unrolled_lr", sgd_unrolled_lr, opt_args, 0),
    ("sgd_unrolled_data", sgd_unrolled_lr, opt_args, 1),
    ("momentum_unrolled_init", momentum_unrolled_init, init_args, 0),
    ("adam_unrolled", adam_unrolled, init_args, 0),
    ("rmsprop_unrolled", rmsprop_unrolled, init_args, 0),
    ("newton_logreg_steps", newton_logreg_steps, newton_args, 0),
    ("newton_logreg_data", newton_logreg_steps, newton_args, 1),
    ("gd_quadratic_hyper", gd_quadratic_hyper, quad_args, 0),
    # EM-like updates
    ("gmm_em_step", gmm_em_step, gmm_em_args, 1),
    ("gmm_em_step_data", gmm_em_step, gmm_em_args, 0),
    ("gmm_em_iterations", gmm_em_iterations, lambda r: (np.array([[-1.0, 0.0], [1.0, 0.5]]), M(r, 8, 2)), 0),
    ("soft_kmeans", soft_kmeans, km_args, 0),
    ("sinkhorn_ot", sinkhorn_ot, sinkhorn_args, 0),
    ("sinkhorn_cost", sinkhorn_cost_grad,
     lambda r: (r.uniform(0.0, 2.0, (4, 3)), 0.3 * M(r, 4), np.array([0.2, 0.5, 0.3])), 0),
    ("em_mixture_weights", em_mixture_weights, emw_args, 0),
    # Monte Carlo with a generator seeded inside
    ("reparam_elbo", reparam_elbo, elbo_args, 0),
    ("iwae_bound", iwae_bound, iwae_args, 0),
    ("gumbel_softmax", gumbel_softmax, gs_args, 0),
    ("random_fourier_features", random_fourier_features, rff_args, 0),
    ("rff_wrt_inputs", rff_wrt_inputs, lambda r: (M(r, 7, 2), M(r, 6), M(r, 7)), 0),
    ("bootstrap_loss", bootstrap_loss, init_args, 0),
    ("minibatch_choice", minibatch_choice, mb_args, 0),
    ("mc_expectation_normal_draws", mc_expectation_normal_draws, lambda r: (np.array([0.3, -0.5]),), 0),
]
