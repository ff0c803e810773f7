"""The red team's sixteenth wave, continued: code ported from textbooks and papers, written as users port it
(a Kalman filter's log-likelihood with a predict / update helper, the HMM forward algorithm in log space,
soft-DTW, a Gibbs energy of mixing, a 1D finite-element stiffness assembly with a loop over elements,
Black-Scholes Greeks by a helper, a Lotka-Volterra fit with an RK4 helper, a spring-mass chain energy, an
Ising mean-field free energy, a Crank-Nicolson step of the heat equation, a Nelson-Siegel yield curve, an
Arrhenius rate fit, a logistic growth fit with Euler steps, a Michaelis-Menten fit, a SABR implied
volatility, a truss's strain energy, a van der Waals fit, a double-well Langevin step).  See
redteam_wave16.py.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special
import scipy.stats


def M(rng, *shape):
    return rng.normal(size=shape)


# ---- filters and sequence models -----------------------------------------------------------------------


def _kf_predict(m, P, F, Q):
    return F @ m, F @ P @ F.T + Q


def _kf_update(m, P, y, H, R):
    S = H @ P @ H.T + R
    K = P @ H.T @ np.linalg.inv(S)
    v = y - H @ m
    m = m + K @ v
    P = P - K @ S @ K.T
    ll = -0.5 * (v @ np.linalg.solve(S, v) + np.log(np.linalg.det(S)) + len(v) * np.log(2 * np.pi))
    return m, P, ll


def kalman_loglik(log_q, ys, dt=0.1):
    F = np.array([[1.0, dt], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    Q = np.exp(log_q[0]) * np.array([[dt ** 3 / 3, dt ** 2 / 2], [dt ** 2 / 2, dt]])
    R = np.exp(log_q[1]) * np.eye(1)
    m, P = np.zeros(2), np.eye(2)
    total = 0.0
    for y in ys:
        m, P = _kf_predict(m, P, F, Q)
        m, P, ll = _kf_update(m, P, y, H, R)
        total += ll
    return -total


def kalman_scalar(theta, ys):
    a, q, r = theta[0], np.exp(theta[1]), np.exp(theta[2])
    m, p = 0.0, 1.0
    nll = 0.0
    for t in range(len(ys)):
        m = a * m
        p = a * a * p + q
        s = p + r
        k = p / s
        e = ys[t] - m
        nll = nll + 0.5 * (math.log(2 * math.pi * s) + e * e / s)
        m = m + k * e
        p = (1 - k) * p
    return nll


def hmm_forward_log(log_A, log_pi, log_B, obs):
    alpha = log_pi + log_B[:, obs[0]]
    for t in range(1, len(obs)):
        alpha = scipy.special.logsumexp(alpha[:, None] + log_A, axis=0) + log_B[:, obs[t]]
    return -scipy.special.logsumexp(alpha)


def hmm_forward_softmax_params(logits_A, log_B, obs):
    log_A = logits_A - scipy.special.logsumexp(logits_A, axis=1, keepdims=True)
    n = log_A.shape[0]
    alpha = np.full(n, -np.log(n)) + log_B[:, obs[0]]
    for o in obs[1:]:
        m = alpha.max()
        alpha = np.log(np.exp(alpha - m) @ np.exp(log_A)) + m + log_B[:, o]
    return -scipy.special.logsumexp(alpha)


def soft_dtw(x, y, gamma=0.5):
    n, m = len(x), len(y)
    R = np.full((n + 1, m + 1), np.inf)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = (x[i - 1] - y[j - 1]) ** 2
            prev = np.array([R[i - 1, j - 1], R[i - 1, j], R[i, j - 1]])
            R[i, j] = cost - gamma * scipy.special.logsumexp(-prev / gamma)
    return R[n, m]


# ---- physics and chemistry -----------------------------------------------------------------------------


def gibbs_mixing(x, T=300.0, omega=2000.0):
    R = 8.314
    x = np.clip(x, 1e-12, 1 - 1e-12)
    ideal = R * T * (x * np.log(x) + (1 - x) * np.log(1 - x))
    excess = omega * x * (1 - x)
    return np.sum(ideal + excess)


def gibbs_multicomponent(n, mu0, T=298.15):
    R = 8.314
    total = np.sum(n)
    return np.sum(n * (mu0 + R * T * np.log(n / total)))


def fem_1d_stiffness(k, f, L=1.0):
    ne = len(k)
    h = L / ne
    K = np.zeros((ne + 1, ne + 1))
    for e in range(ne):
        ke = k[e] / h * np.array([[1.0, -1.0], [-1.0, 1.0]])
        K[e:e + 2, e:e + 2] += ke
    K = K[1:, 1:]
    u = np.linalg.solve(K, f[1:])
    return 0.5 * u @ K @ u - f[1:] @ u


def fem_1d_dofs(k, f):
    ne = len(k)
    K = np.zeros((ne + 1, ne + 1))
    for e in range(ne):
        dofs = [e, e + 1]
        for a in range(2):
            for b in range(2):
                K[dofs[a], dofs[b]] += k[e] * (1.0 if a == b else -1.0)
    K[0, :] = 0.0
    K[:, 0] = 0.0
    K[0, 0] = 1.0
    u = np.linalg.solve(K, f)
    return f @ u


def spring_chain_energy(x, k=2.0, rest=1.0, m=1.0, g=9.81):
    stretch = np.diff(np.concatenate([[0.0], x])) - rest
    return 0.5 * k * np.sum(stretch ** 2) - m * g * np.sum(x)


def spring_chain_2d(P, k, rest):
    d = P[1:] - P[:-1]
    length = np.sqrt(np.sum(d * d, axis=1))
    return 0.5 * np.sum(k * (length - rest) ** 2) + 9.81 * np.sum(P[:, 1])


def ising_mean_field(m, J, h, beta=1.0):
    m = np.tanh(m)
    energy = -0.5 * m @ J @ m - h @ m
    p, q = (1 + m) / 2, (1 - m) / 2
    entropy = -np.sum(p * np.log(p) + q * np.log(q))
    return energy - entropy / beta


def van_der_waals_fit(ab, V, T, P_obs, R=0.08314):
    a, b = ab
    P = R * T / (V - b) - a / V ** 2
    return np.sum((P - P_obs) ** 2)


def arrhenius_fit(params, T, k_obs):
    logA, Ea = params
    k = np.exp(logA - Ea / (8.314e-3 * T))
    return np.sum((np.log(k) - np.log(k_obs)) ** 2)


def heat_crank_nicolson(u0, alpha=0.1, steps=5):
    n = len(u0)
    L = -2 * np.eye(n) + np.eye(n, k=1) + np.eye(n, k=-1)
    A = np.eye(n) - 0.5 * alpha * L
    B = np.eye(n) + 0.5 * alpha * L
    u = u0
    for _ in range(steps):
        u = np.linalg.solve(A, B @ u)
    return np.sum(u ** 2)


def langevin_double_well(x0, noise, dt=0.01, beta=2.0):
    x = x0
    for xi in noise:
        force = -4 * x ** 3 + 4 * x
        x = x + dt * force + np.sqrt(2 * dt / beta) * xi
    return np.sum((x ** 2 - 1) ** 2)


def truss_energy(nodes, bars, EA, rest):
    d = nodes[bars[:, 1]] - nodes[bars[:, 0]]
    L = np.linalg.norm(d, axis=1)
    strain = (L - rest) / rest
    return 0.5 * np.sum(EA * rest * strain ** 2)


# ---- fits with integrators -----------------------------------------------------------------------------


def _rk4(f, y, h, p):
    k1 = f(y, p)
    k2 = f(y + 0.5 * h * k1, p)
    k3 = f(y + 0.5 * h * k2, p)
    k4 = f(y + h * k3, p)
    return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def _lotka(y, p):
    a, b, c, d = p
    return np.array([a * y[0] - b * y[0] * y[1], c * y[0] * y[1] - d * y[1]])


def lotka_volterra_fit(p, data, h=0.1):
    y = np.array([1.0, 0.5])
    loss = 0.0
    for obs in data:
        y = _rk4(_lotka, y, h, p)
        loss = loss + np.sum((y - obs) ** 2)
    return loss


def logistic_growth_euler(theta, t_obs, y_obs, dt=0.05):
    r, K = np.exp(theta)
    y = 0.1
    t = 0.0
    preds = []
    for target_t in t_obs:
        while t < target_t - 1e-9:
            y = y + dt * r * y * (1 - y / K)
            t += dt
        preds.append(y)
    return np.sum((np.array(preds) - y_obs) ** 2)


def michaelis_menten(params, S, v):
    Vmax, Km = params
    pred = Vmax * S / (Km + S)
    return np.mean((pred - v) ** 2)


# ---- finance -------------------------------------------------------------------------------------------


def _bs_d1_d2(S, K, T, r, sigma):
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    return d1, d1 - sigma * np.sqrt(T)


def bs_greeks_portfolio(sigma, S, K, T, r=0.02):
    d1, d2 = _bs_d1_d2(S, K, T, r, sigma)
    call = S * scipy.stats.norm.cdf(d1) - K * np.exp(-r * T) * scipy.stats.norm.cdf(d2)
    delta = scipy.stats.norm.cdf(d1)
    vega = S * scipy.stats.norm.pdf(d1) * np.sqrt(T)
    return np.sum(call) + 0.1 * np.sum(delta ** 2) + 0.01 * np.sum(vega)


def bs_math_call(S, K=100.0, T=0.5, r=0.01, sigma=0.2):
    d1 = (math.log(S / K) + (r + sigma * sigma / 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    N = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    return S * N(d1) - K * math.exp(-r * T) * N(d2)


def nelson_siegel(beta, tau, maturities, yields):
    m = maturities / tau
    f1 = (1 - np.exp(-m)) / m
    f2 = f1 - np.exp(-m)
    pred = beta[0] + beta[1] * f1 + beta[2] * f2
    return np.sum((pred - yields) ** 2)


def sabr_vol(alpha, F=0.03, K=0.035, T=1.0, beta=0.5, rho=-0.3, nu=0.4):
    FK = (F * K) ** ((1 - beta) / 2)
    logFK = np.log(F / K)
    z = nu / alpha * FK * logFK
    xz = np.log((np.sqrt(1 - 2 * rho * z + z * z) + z - rho) / (1 - rho))
    A = alpha / FK
    B = 1 + ((1 - beta) ** 2 / 24 * alpha ** 2 / FK ** 2 + rho * beta * nu * alpha / (4 * FK)
             + (2 - 3 * rho ** 2) / 24 * nu ** 2) * T
    return A * z / xz * B


def _simplex(r, n):
    p = r.uniform(0.5, 1.5, size=n)
    return p / p.sum()


def _log_rows(r, n, m):
    A = r.uniform(0.2, 1.0, size=(n, m))
    return np.log(A / A.sum(axis=1, keepdims=True))


TEXTBOOK16 = [
    ("w16_kalman_loglik", kalman_loglik, lambda r: (np.array([-1.0, -0.5]), M(r, 6, 1)), 0),
    ("w16_kalman_scalar", kalman_scalar, lambda r: (np.array([0.8, -1.0, -0.5]), M(r, 8)), 0),
    ("w16_hmm_forward_log_A", hmm_forward_log,
     lambda r: (_log_rows(r, 3, 3), np.log(_simplex(r, 3)), _log_rows(r, 3, 4), [0, 2, 1, 3, 3, 0]), 0),
    ("w16_hmm_forward_log_B", hmm_forward_log,
     lambda r: (_log_rows(r, 3, 3), np.log(_simplex(r, 3)), _log_rows(r, 3, 4), [0, 2, 1, 3, 3, 0]), 2),
    ("w16_hmm_softmax_params", hmm_forward_softmax_params,
     lambda r: (M(r, 3, 3), _log_rows(r, 3, 2), np.array([0, 1, 1, 0, 1])), 0),
    ("w16_soft_dtw", soft_dtw, lambda r: (M(r, 4), M(r, 3)), 0),
    ("w16_gibbs_mixing", gibbs_mixing, lambda r: (r.uniform(0.1, 0.9, size=4),), 0),
    ("w16_gibbs_multicomponent", gibbs_multicomponent, lambda r: (r.uniform(0.5, 2.0, size=4), M(r, 4)), 0),
    ("w16_fem_1d_stiffness", fem_1d_stiffness, lambda r: (r.uniform(1.0, 2.0, size=4), M(r, 5)), 0),
    ("w16_fem_1d_load", fem_1d_stiffness, lambda r: (r.uniform(1.0, 2.0, size=4), M(r, 5)), 1),
    ("w16_fem_1d_dofs", fem_1d_dofs, lambda r: (r.uniform(1.0, 2.0, size=4), M(r, 5)), 0),
    ("w16_spring_chain", spring_chain_energy, lambda r: (np.cumsum(r.uniform(0.8, 1.5, size=5)),), 0),
    ("w16_spring_chain_2d", spring_chain_2d, lambda r: (M(r, 5, 2), r.uniform(1, 2, 4), r.uniform(0.5, 1, 4)), 0),
    ("w16_ising_mean_field", ising_mean_field,
     lambda r: (0.5 * M(r, 4), (lambda A: (A + A.T) / 2)(M(r, 4, 4)), 0.1 * M(r, 4)), 0),
    ("w16_van_der_waals", van_der_waals_fit,
     lambda r: (np.array([3.6, 0.04]), r.uniform(0.5, 2.0, 5), r.uniform(280, 320, 5), r.uniform(10, 40, 5)), 0),
    ("w16_arrhenius", arrhenius_fit,
     lambda r: (np.array([10.0, 50.0]), np.linspace(300, 400, 5), np.exp(M(r, 5))), 0),
    ("w16_heat_crank_nicolson", heat_crank_nicolson, lambda r: (M(r, 5),), 0),
    ("w16_langevin_double_well", langevin_double_well, lambda r: (M(r, 3), M(r, 6, 3)), 0),
    ("w16_truss_energy", truss_energy,
     lambda r: (M(r, 4, 2), np.array([[0, 1], [1, 2], [2, 3], [0, 2]]), r.uniform(1, 2, 4), r.uniform(1, 2, 4)), 0),
    ("w16_lotka_volterra", lotka_volterra_fit,
     lambda r: (np.array([1.0, 0.4, 0.3, 0.8]), 1.0 + 0.1 * M(r, 4, 2)), 0),
    ("w16_logistic_growth", logistic_growth_euler,
     lambda r: (np.array([0.3, 0.5]), np.array([0.2, 0.5, 0.7]), np.array([0.11, 0.13, 0.15])), 0),
    ("w16_michaelis_menten", michaelis_menten,
     lambda r: (np.array([2.0, 0.5]), r.uniform(0.1, 3, 6), r.uniform(0.2, 1.5, 6)), 0),
    ("w16_bs_greeks_sigma", bs_greeks_portfolio,
     lambda r: (r.uniform(0.15, 0.4, 3), r.uniform(90, 110, 3), np.array([100.0, 95.0, 105.0]), np.ones(3)), 0),
    ("w16_bs_greeks_spot", bs_greeks_portfolio,
     lambda r: (r.uniform(0.15, 0.4, 3), r.uniform(90, 110, 3), np.array([100.0, 95.0, 105.0]), np.ones(3)), 1),
    ("w16_bs_math_call", bs_math_call, lambda r: (103.0,), 0),
    ("w16_nelson_siegel", nelson_siegel,
     lambda r: (np.array([0.04, -0.02, 0.01]), 1.5, np.array([0.5, 1, 2, 5, 10.0]), 0.03 + 0.005 * M(r, 5)), 0),
    ("w16_nelson_siegel_tau", nelson_siegel,
     lambda r: (np.array([0.04, -0.02, 0.01]), 1.5, np.array([0.5, 1, 2, 5, 10.0]), 0.03 + 0.005 * M(r, 5)), 1),
    ("w16_sabr_vol", sabr_vol, lambda r: (0.04,), 0),
]

