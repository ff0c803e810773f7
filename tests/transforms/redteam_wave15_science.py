"""The red team's fifteenth wave, continued: physics (a spring network over an edge list, a two-body
orbit through an RK4 helper that takes the right-hand side as an argument, explicit heat-equation
steps writing the interior, a rigid body rotated by an angle and by a quaternion, a damped pendulum
in a ``while t < T`` loop, a projectile with drag flown until it lands, a leapfrog wave equation with
np.roll, Coulomb energy over np.triu_indices, a cantilever's deflection), statistics (Poisson and
negative binomial GLMs with offsets, a Gaussian mixture with the log-sum-exp written by hand,
one Kalman filter step and a filter over a series, Tukey, Cauchy and pinball losses, Student-t
through gammaln, a beta-binomial through betaln, a zero-inflated Poisson, an AR(2) likelihood,
an HMM forward pass in log space, Weibull survival with censoring, a Tobit model through
scipy.stats.norm (also with one observation censored 40 standard deviations away), an exponential
survival model through scipy.stats.expon.logsf with a long follow-up, Holt's exponential
smoothing) and finance (Black-Scholes through ndtr and through math.erf, a binomial-tree American
put, portfolio variance with softmax weights, long-only weights by clip, a Nelson-Siegel bond
price, a Monte Carlo call with fixed normals, CVaR by sort, Kelly growth, an Asian option along
cumulative log returns).  See redteam_wave15.py.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special
import scipy.stats


def M(rng, *shape):
    return rng.normal(size=shape)


# ---- physics -------------------------------------------------------------------------------------------

EDGES = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 0)]


def spring_network(pos, rest, k=10.0):
    energy = 0.0
    for (i, j), L0 in zip(EDGES, rest):
        d = np.linalg.norm(pos[i] - pos[j])
        energy += 0.5 * k * (d - L0) ** 2
    return energy


def two_body_rhs(state, mu):
    r = state[:2]
    v = state[2:]
    a = -mu * r / np.linalg.norm(r) ** 3
    return np.concatenate([v, a])


def rk4_step(f, y, dt, *args):
    k1 = f(y, *args)
    k2 = f(y + 0.5 * dt * k1, *args)
    k3 = f(y + 0.5 * dt * k2, *args)
    k4 = f(y + dt * k3, *args)
    return y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def orbit_rk4(state0, mu=1.0, dt=0.05, steps=10):
    y = state0
    for _ in range(steps):
        y = rk4_step(two_body_rhs, y, dt, mu)
    return y[0] + 2.0 * y[1]


def orbit_rk4_mu(mu, state0):
    return orbit_rk4(state0, mu=mu)


def heat_explicit(u0, alpha=0.2, steps=6):
    u = u0.copy()
    for _ in range(steps):
        new = u.copy()
        new[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
        new[0] = 0.0
        new[-1] = 0.0
        u = new
    return np.sum(u ** 2)


def rigid_body_angle(theta, body, target):
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s], [s, c]])
    moved = body @ R.T + np.array([0.5, -0.2])
    return np.sum((moved - target) ** 2)


def quaternion_rotate(q, points):
    q = q / np.linalg.norm(q)
    w, x, y, z = q
    R = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])
    rotated = points @ R.T
    inertia = np.sum(rotated[:, 0] ** 2 + rotated[:, 1] ** 2)
    return inertia


def damped_pendulum(params, T=2.0, dt=0.05):
    theta, omega = params[0], params[1]
    damping, g_over_l = 0.3, 9.81
    t = 0.0
    while t < T:
        omega = omega - dt * (g_over_l * np.sin(theta) + damping * omega)
        theta = theta + dt * omega
        t += dt
    return theta ** 2 + 0.1 * omega ** 2


def projectile_drag(v0, drag=0.1, dt=0.02, g=9.81):
    x, y = 0.0, 0.0
    vx, vy = v0[0], v0[1]
    while y >= 0.0:
        speed = math.sqrt(vx * vx + vy * vy)
        vx = vx - dt * drag * speed * vx
        vy = vy - dt * (g + drag * speed * vy)
        x += dt * vx
        y += dt * vy
    return x


def wave_leapfrog(u0, c=0.5, steps=5):
    u_prev = u0
    u = u0
    for _ in range(steps):
        lap = np.roll(u, 1) - 2 * u + np.roll(u, -1)
        u_prev, u = u, 2 * u - u_prev + c ** 2 * lap
    return np.sum(u ** 2) + np.sum(u * u_prev)


def coulomb_energy(pos, q):
    i, j = np.triu_indices(len(q), k=1)
    r = np.linalg.norm(pos[i] - pos[j], axis=1)
    return np.sum(q[i] * q[j] / r)


def cantilever_deflection(EI, loads, positions, L=2.0):
    total = 0.0
    for P, a in zip(loads, positions):
        total += P * a ** 2 * (3 * L - a) / (6 * EI)
    return total


# ---- statistics ----------------------------------------------------------------------------------------


def poisson_glm(beta, X, y, exposure):
    eta = X @ beta + np.log(exposure)
    return -np.sum(y * eta - np.exp(eta) - scipy.special.gammaln(y + 1))


def negbin_glm(params, X, y):
    beta, log_alpha = params["beta"], params["log_alpha"]
    mu = np.exp(X @ beta)
    r = 1.0 / np.exp(log_alpha)
    ll = (scipy.special.gammaln(y + r) - scipy.special.gammaln(r) - scipy.special.gammaln(y + 1)
          + r * np.log(r / (r + mu)) + y * np.log(mu / (r + mu)))
    return -ll.sum()


def gmm_loglik(params, x):
    logits, mu, log_sigma = params["logits"], params["mu"], params["log_sigma"]
    log_w = logits - np.log(np.sum(np.exp(logits)))
    sigma = np.exp(log_sigma)
    comp = (log_w[None, :] - 0.5 * ((x[:, None] - mu[None, :]) / sigma[None, :]) ** 2
            - log_sigma[None, :] - 0.5 * np.log(2 * np.pi))
    m = comp.max(axis=1, keepdims=True)
    return -np.sum(m[:, 0] + np.log(np.sum(np.exp(comp - m), axis=1)))


def kalman_step(log_q, m, P, y, F, H, R):
    Q = np.exp(log_q) * np.eye(len(m))
    m_pred = F @ m
    P_pred = F @ P @ F.T + Q
    S = H @ P_pred @ H.T + R
    K = P_pred @ H.T @ np.linalg.inv(S)
    resid = y - H @ m_pred
    m_new = m_pred + K @ resid
    P_new = (np.eye(len(m)) - K @ H) @ P_pred
    sign, logdet = np.linalg.slogdet(S)
    nll = 0.5 * (logdet + resid @ np.linalg.solve(S, resid))
    return nll + np.sum(m_new ** 2) + np.trace(P_new)


def kalman_filter_series(params, ys):
    a, log_q, log_r = params
    q, r = math.exp(log_q), math.exp(log_r)
    m, P = 0.0, 1.0
    nll = 0.0
    for y in ys:
        m, P = a * m, a * a * P + q
        S = P + r
        nll += 0.5 * (math.log(2 * math.pi * S) + (y - m) ** 2 / S)
        K = P / S
        m, P = m + K * (y - m), (1 - K) * P
    return nll


def tukey_biweight(beta, X, y, c=1.5):
    r = y - X @ beta
    u = r / c
    inside = c ** 2 / 6 * (1 - (1 - u ** 2) ** 3)
    return np.sum(np.where(np.abs(r) <= c, inside, c ** 2 / 6))


def cauchy_loss(beta, X, y, scale=0.5):
    r = (y - X @ beta) / scale
    return np.sum(np.log1p(r ** 2))


def pinball_loss(beta, X, y, quantiles=(0.1, 0.5, 0.9)):
    total = 0.0
    for k, q in enumerate(quantiles):
        r = y - X @ beta[:, k]
        total += np.mean(np.maximum(q * r, (q - 1) * r))
    return total


def student_t_nll(params, x):
    mu, log_s, log_nu = params
    s, nu = np.exp(log_s), np.exp(log_nu)
    z = (x - mu) / s
    ll = (scipy.special.gammaln((nu + 1) / 2) - scipy.special.gammaln(nu / 2) - 0.5 * np.log(nu * np.pi)
          - np.log(s) - (nu + 1) / 2 * np.log1p(z ** 2 / nu))
    return -np.sum(ll)


def beta_binomial(ab, k, n):
    a, b = np.exp(ab)
    return -np.sum(scipy.special.betaln(k + a, n - k + b) - scipy.special.betaln(a, b)
                   + scipy.special.gammaln(n + 1) - scipy.special.gammaln(k + 1) - scipy.special.gammaln(n - k + 1))


def zero_inflated_poisson(params, y):
    logit_pi, log_lam = params
    pi = 1 / (1 + np.exp(-logit_pi))
    lam = np.exp(log_lam)
    ll_zero = np.log(pi + (1 - pi) * np.exp(-lam))
    ll_pos = np.log(1 - pi) + y * log_lam - lam - scipy.special.gammaln(y + 1)
    return -np.sum(np.where(y == 0, ll_zero, ll_pos))


def ar2_conditional(phi, x, sigma=0.5):
    nll = 0.0
    for t in range(2, len(x)):
        pred = phi[0] * x[t - 1] + phi[1] * x[t - 2]
        nll = nll + 0.5 * ((x[t] - pred) / sigma) ** 2
    return nll


def hmm_forward(log_A, log_pi, log_B, obs):
    logA = log_A - scipy.special.logsumexp(log_A, axis=1, keepdims=True)
    logp = log_pi - scipy.special.logsumexp(log_pi)
    logB = log_B - scipy.special.logsumexp(log_B, axis=1, keepdims=True)
    alpha = logp + logB[:, obs[0]]
    for o in obs[1:]:
        alpha = scipy.special.logsumexp(alpha[:, None] + logA, axis=0) + logB[:, o]
    return -scipy.special.logsumexp(alpha)


def weibull_survival(params, t, event):
    log_k, log_lam = params["log_k"], params["log_lam"]
    k, lam = np.exp(log_k), np.exp(log_lam)
    z = (t / lam) ** k
    log_h = log_k - log_lam + (k - 1) * np.log(t / lam)
    return -np.sum(event * log_h - z)


def tobit(beta, X, y, sigma=1.0, lower=0.0):
    mu = X @ beta
    censored = y <= lower
    ll_c = scipy.stats.norm.logcdf((lower - mu) / sigma)
    ll_o = scipy.stats.norm.logpdf((y - mu) / sigma) - np.log(sigma)
    return -np.sum(np.where(censored, ll_c, ll_o))


def exponential_survival(log_rate, t, event):
    scale = np.exp(-log_rate)
    ll = event * scipy.stats.expon.logpdf(t, scale=scale) + (1 - event) * scipy.stats.expon.logsf(t, scale=scale)
    return -np.sum(ll)


def holt_smoothing(ab, y):
    alpha, beta = 1 / (1 + np.exp(-ab))
    level, trend = y[0], y[1] - y[0]
    sse = 0.0
    for t in range(1, len(y)):
        forecast = level + trend
        sse += (y[t] - forecast) ** 2
        new_level = alpha * y[t] + (1 - alpha) * forecast
        trend = beta * (new_level - level) + (1 - beta) * trend
        level = new_level
    return sse


# ---- finance -------------------------------------------------------------------------------------------


def black_scholes_call(sigma, S, K, T, r):
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return np.sum(S * scipy.special.ndtr(d1) - K * np.exp(-r * T) * scipy.special.ndtr(d2))


def _norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def black_scholes_put_math(S, K=100.0, T=0.5, r=0.02, sigma=0.25):
    d1 = (math.log(S / K) + (r + sigma * sigma / 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return K * math.exp(-r * T) * _norm_cdf(-d2) - S * _norm_cdf(-d1)


def american_put_tree(S0, K=1.0, T=1.0, r=0.03, sigma=0.3, n=12):
    dt = T / n
    u = math.exp(sigma * math.sqrt(dt))
    d = 1 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    prices = S0 * u ** np.arange(n, -1, -1) * d ** np.arange(0, n + 1)
    values = np.maximum(K - prices, 0.0)
    for _ in range(n - 1, -1, -1):
        prices = prices[:-1] / u
        values = disc * (p * values[:-1] + (1 - p) * values[1:])
        values = np.maximum(values, K - prices)
    return values[0]


def portfolio_softmax(logits, cov, mu, risk_aversion=3.0):
    w = np.exp(logits) / np.sum(np.exp(logits))
    return risk_aversion * w @ cov @ w - mu @ w


def long_only_clip(raw, cov, target=0.08, mu=None):
    w = np.clip(raw, 0.0, None)
    w = w / w.sum()
    variance = w @ cov @ w
    penalty = 0.0 if mu is None else 100.0 * (mu @ w - target) ** 2
    return variance + penalty


def nelson_siegel_price(params, maturities, coupons):
    b0, b1, b2, tau = params
    m = maturities / tau
    factor = (1 - np.exp(-m)) / m
    y = b0 + b1 * factor + b2 * (factor - np.exp(-m))
    return np.sum(coupons * np.exp(-y * maturities))


def mc_call(S0, sigma, Z, K=1.0, r=0.01, T=1.0):
    ST = S0 * np.exp((r - 0.5 * sigma ** 2) * T + sigma * np.sqrt(T) * Z)
    payoff = np.maximum(ST - K, 0.0)
    return math.exp(-r * T) * payoff.mean()


def cvar_sorted(w, returns, alpha=0.8):
    losses = -(returns @ w)
    s = np.sort(losses)
    k = int(np.ceil(alpha * len(s)))
    return np.mean(s[k:])


def kelly_growth(f, outcomes, probs):
    wealth = 1.0 + outcomes @ f
    return -np.sum(probs * np.log(wealth))


def asian_call(sigma, Z, S0=1.0, K=1.0, r=0.0, dt=0.1):
    steps = (r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * Z
    paths = S0 * np.exp(np.cumsum(steps, axis=1))
    avg = paths.mean(axis=1)
    return np.mean(np.maximum(avg - K, 0.0))


def _cov(r, n):
    A = M(r, n, n)
    return A @ A.T / n + 0.1 * np.eye(n)


SCIENCE15 = [
    ("w15_spring_network", spring_network,
     lambda r: (np.array([[0.0, 0.0], [1.1, 0.1], [0.4, 0.9], [-0.6, 0.7]]), np.array([1.0, 1.0, 1.0, 0.8, 1.0])), 0),
    ("w15_orbit_rk4", orbit_rk4, lambda r: (np.array([1.0, 0.0, 0.0, 1.1]),), 0),
    ("w15_orbit_rk4_mu", orbit_rk4_mu, lambda r: (1.0, np.array([1.0, 0.0, 0.0, 1.1])), 0),
    ("w15_heat_explicit", heat_explicit, lambda r: (M(r, 8),), 0),
    ("w15_rigid_body_angle", rigid_body_angle, lambda r: (0.3, M(r, 4, 2), M(r, 4, 2)), 0),
    ("w15_quaternion_rotate", quaternion_rotate, lambda r: (M(r, 4), M(r, 5, 3)), 0),
    ("w15_damped_pendulum", damped_pendulum, lambda r: (np.array([0.8, 0.1]),), 0),
    ("w15_projectile_drag", projectile_drag, lambda r: (np.array([5.0, 6.0]),), 0),
    ("w15_wave_leapfrog", wave_leapfrog, lambda r: (M(r, 7),), 0),
    ("w15_coulomb_energy", coulomb_energy, lambda r: (M(r, 4, 3), np.array([1.0, -1.0, 2.0, -0.5])), 0),
    ("w15_cantilever_EI", cantilever_deflection, lambda r: (200.0, [1.0, 2.5], [0.5, 1.5]), 0),
    ("w15_poisson_glm", poisson_glm, lambda r: (0.3 * M(r, 3), M(r, 8, 3), r.poisson(2.0, size=8).astype(float),
                                                r.uniform(0.5, 2.0, size=8)), 0),
    ("w15_negbin_glm", negbin_glm, lambda r: ({"beta": 0.3 * M(r, 3), "log_alpha": -0.5}, M(r, 8, 3),
                                              r.poisson(2.0, size=8).astype(float)), 0),
    ("w15_gmm_loglik", gmm_loglik, lambda r: ({"logits": M(r, 3), "mu": M(r, 3), "log_sigma": 0.2 * M(r, 3)},
                                              2 * M(r, 10)), 0),
    ("w15_kalman_step", kalman_step, lambda r: (-1.0, M(r, 2), np.eye(2), M(r, 1), np.array([[1.0, 0.1], [0.0, 1.0]]),
                                                np.array([[1.0, 0.0]]), np.array([[0.5]])), 0),
    ("w15_kalman_step_m", kalman_step, lambda r: (-1.0, M(r, 2), np.eye(2), M(r, 1), np.array([[1.0, 0.1], [0.0, 1.0]]),
                                                  np.array([[1.0, 0.0]]), np.array([[0.5]])), 1),
    ("w15_kalman_filter_series", kalman_filter_series, lambda r: ([0.8, -1.0, -0.5], list(M(r, 6))), 0),
    ("w15_tukey_biweight", tukey_biweight, lambda r: (M(r, 2), M(r, 9, 2), 3 * M(r, 9)), 0),
    ("w15_cauchy_loss", cauchy_loss, lambda r: (M(r, 2), M(r, 9, 2), M(r, 9)), 0),
    ("w15_pinball_loss", pinball_loss, lambda r: (M(r, 2, 3), M(r, 8, 2), M(r, 8)), 0),
    ("w15_student_t_nll", student_t_nll, lambda r: (np.array([0.1, -0.2, 1.0]), M(r, 9)), 0),
    ("w15_beta_binomial", beta_binomial, lambda r: (np.array([0.5, 1.0]), np.array([2.0, 5.0, 0.0, 7.0]),
                                                    np.array([8.0, 8.0, 8.0, 8.0])), 0),
    ("w15_zero_inflated_poisson", zero_inflated_poisson,
     lambda r: (np.array([-0.5, 0.7]), np.array([0.0, 0.0, 1.0, 3.0, 0.0, 2.0])), 0),
    ("w15_ar2_conditional", ar2_conditional, lambda r: (np.array([0.5, -0.2]), M(r, 10)), 0),
    ("w15_hmm_forward", hmm_forward, lambda r: (M(r, 2, 2), M(r, 2), M(r, 2, 3), [0, 2, 1, 1, 0]), 0),
    ("w15_hmm_forward_emissions", hmm_forward, lambda r: (M(r, 2, 2), M(r, 2), M(r, 2, 3), [0, 2, 1, 1, 0]), 2),
    ("w15_weibull_survival", weibull_survival,
     lambda r: ({"log_k": 0.3, "log_lam": 0.1}, r.uniform(0.2, 3.0, size=7), np.array([1, 0, 1, 1, 0, 1, 1.0])), 0),
    ("w15_tobit", tobit, lambda r: (M(r, 2), M(r, 8, 2), np.maximum(M(r, 8), 0.0)), 0),
    ("w15_tobit_far_censored", tobit, lambda r: (np.array([20.0, 0.5]), np.array([[2.0, 0.1], [0.1, 1.0], [-0.5, 0.3]]),
                                                 np.array([0.0, 0.8, 0.0])), 0),
    ("w15_exponential_survival_long", exponential_survival,
     lambda r: (2.0, np.array([0.3, 1.2, 110.0]), np.array([1.0, 1.0, 0.0])), 0),
    ("w15_holt_smoothing", holt_smoothing, lambda r: (np.array([0.2, -1.0]), np.cumsum(M(r, 8)) + 5.0), 0),
    ("w15_black_scholes_vega", black_scholes_call,
     lambda r: (np.array([0.2, 0.3]), 100.0, np.array([95.0, 110.0]), 0.5, 0.01), 0),
    ("w15_black_scholes_put_math", black_scholes_put_math, lambda r: (97.0,), 0),
    ("w15_american_put_tree", american_put_tree, lambda r: (1.05,), 0),
    ("w15_portfolio_softmax", portfolio_softmax, lambda r: (M(r, 4), _cov(r, 4), 0.1 * M(r, 4)), 0),
    ("w15_long_only_clip", long_only_clip, lambda r: (np.array([0.4, 0.2, -0.3, 0.5]), _cov(r, 4), 0.08,
                                                      0.1 * np.abs(M(r, 4))), 0),
    ("w15_nelson_siegel", nelson_siegel_price,
     lambda r: (np.array([0.03, -0.01, 0.02, 1.5]), np.array([0.5, 1.0, 2.0, 5.0]),
                np.array([2.0, 2.0, 2.0, 102.0])), 0),
    ("w15_mc_call_sigma", mc_call, lambda r: (1.0, 0.25, M(r, 50)), 1),
    ("w15_cvar_sorted", cvar_sorted, lambda r: (np.array([0.3, 0.5, 0.2]), 0.05 * M(r, 10, 3)), 0),
    ("w15_kelly_growth", kelly_growth,
     lambda r: (np.array([0.1, 0.2]), np.array([[1.0, -1.0], [-1.0, 0.5], [0.5, 0.5]]), np.array([0.3, 0.4, 0.3])), 0),
    ("w15_asian_call", asian_call, lambda r: (0.3, M(r, 20, 5)), 0),
]
