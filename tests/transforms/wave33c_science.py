"""Wave 33c: thirty programs of the kind scientists write, with loops and helpers (ODE steps, physics
simulations, small networks, likelihoods), for jit="numba" against grad (test_wave33c.py runs them)."""

from __future__ import annotations

import math

import numpy as np

T_OBS = np.linspace(0.0, 2.0, 9)
Y_OBS = np.exp(-0.8 * T_OBS) * np.cos(2.0 * T_OBS)
COUNTS = np.array([2.0, 0.0, 3.0, 1.0, 4.0, 2.0])
DESIGN = np.array([[1.0, 0.2], [1.0, -0.4], [1.0, 0.9], [1.0, 0.1], [1.0, 1.3], [1.0, -0.7]])
LABELS = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 0.0])
SERIES = np.array([0.3, 0.1, -0.2, 0.4, 0.5, 0.1, -0.1, 0.2])


def _v(r, n=3):
    return 0.3 + 0.4 * r.random(n)


# ---- ODE steps ----

def _decay_rhs(y, k):
    return -k * y


def euler_decay_fit(k, steps=20, dt=0.05):
    y = 1.0
    loss = 0.0
    for i in range(steps):
        y = y + dt * _decay_rhs(y, k)
        loss += (y - math.exp(-0.5 * dt * (i + 1))) ** 2
    return loss


def _oscillator(state, p):
    x, v = state
    return np.array([v, -p[0] * x - p[1] * v])


def rk4_oscillator(p, dt=0.1, steps=12):
    s = np.array([1.0, 0.0])
    for _ in range(steps):
        k1 = _oscillator(s, p)
        k2 = _oscillator(s + 0.5 * dt * k1, p)
        k3 = _oscillator(s + 0.5 * dt * k2, p)
        k4 = _oscillator(s + dt * k3, p)
        s = s + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return s[0] ** 2 + 0.5 * s[1] ** 2


def midpoint_logistic(theta, steps=15, dt=0.1):
    r, K = theta[0], theta[1]
    n = 0.1
    path = []
    for _ in range(steps):
        half = n + 0.5 * dt * r * n * (1 - n / K)
        n = n + dt * r * half * (1 - half / K)
        path.append(n)
    return np.sum((np.array(path) - 0.5) ** 2)


def lotka_volterra(p, steps=25, dt=0.02):
    prey, pred = 1.0, 0.5
    for _ in range(steps):
        dprey = p[0] * prey - p[1] * prey * pred
        dpred = p[1] * prey * pred - p[2] * pred
        prey, pred = prey + dt * dprey, pred + dt * dpred
    return (prey - 1.2) ** 2 + (pred - 0.4) ** 2


def sir_epidemic(p, days=30):
    S, I, R = 0.99, 0.01, 0.0
    peak = 0.0
    for _ in range(days):
        new = p[0] * S * I
        rec = p[1] * I
        S, I, R = S - new, I + new - rec, R + rec
        peak = peak + I ** 2
    return peak + R


def lorenz_rk2(p, steps=10, dt=0.01):
    u = np.array([1.0, 1.0, 1.0])
    for _ in range(steps):
        f = np.array([p[0] * (u[1] - u[0]), u[0] * (p[1] - u[2]) - u[1], u[0] * u[1] - p[2] * u[2]])
        mid = u + 0.5 * dt * f
        g = np.array([p[0] * (mid[1] - mid[0]), mid[0] * (p[1] - mid[2]) - mid[1], mid[0] * mid[1] - p[2] * mid[2]])
        u = u + dt * g
    return np.sum(u ** 2)


def two_compartment_pk(k, dose=100.0, dt=0.1, steps=30):
    gut, blood = dose, 0.0
    auc = 0.0
    for _ in range(steps):
        absorbed = k[0] * gut * dt
        cleared = k[1] * blood * dt
        gut = gut - absorbed
        blood = blood + absorbed - cleared
        auc = auc + blood * dt
    return math.log(auc)


def chain_kinetics(k, dt=0.05, steps=20):
    c = np.array([1.0, 0.0, 0.0])
    for _ in range(steps):
        rates = np.array([-k[0] * c[0], k[0] * c[0] - k[1] * c[1], k[1] * c[1]])
        c = c + dt * rates
    return (c[1] - 0.2) ** 2 + c[2] ** 2


# ---- physics ----

def _accel(x, w):
    return -w * w * np.sin(x)


def verlet_pendulum(w, steps=20, dt=0.05):
    x, v = 0.5, 0.0
    a = _accel(x, w)
    for _ in range(steps):
        x = x + v * dt + 0.5 * a * dt * dt
        a_new = _accel(x, w)
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
    return x ** 2 + v ** 2


def heat_explicit(kappa, steps=10):
    u = np.sin(np.linspace(0.0, np.pi, 12))
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + kappa * lap
    return np.sum(u ** 2)


def nbody_energy(pos):
    p = pos.reshape(3, 2)
    energy = 0.0
    for i in range(3):
        for j in range(i + 1, 3):
            d = p[i] - p[j]
            energy = energy - 1.0 / np.sqrt(d @ d + 0.1)
    return energy


def spring_chain(x, k=2.0, rest=0.5):
    e = 0.0
    for i in range(len(x) - 1):
        stretch = abs(x[i + 1] - x[i]) - rest
        e += 0.5 * k * stretch ** 2
    return e + 0.1 * np.sum(x ** 2)


def projectile_drag(v0, dt=0.02, steps=30):
    pos = np.array([0.0, 0.0])
    vel = v0.copy()
    for _ in range(steps):
        speed = np.sqrt(vel @ vel)
        acc = np.array([0.0, -9.81]) - 0.1 * speed * vel
        vel = vel + dt * acc
        pos = pos + dt * vel
    return (pos[0] - 3.0) ** 2 + pos[1] ** 2


def discrete_action(path, dt=0.1):
    kinetic = 0.0
    for i in range(len(path) - 1):
        kinetic += (path[i + 1] - path[i]) ** 2 / (2 * dt)
    potential = np.sum(0.5 * path ** 2 + 0.1 * path ** 4) * dt
    return kinetic - potential


def damped_fit(p):
    model = np.exp(-p[0] * T_OBS) * np.cos(p[1] * T_OBS)
    return np.sum((model - Y_OBS) ** 2)


# ---- small networks ----

def _dense(w, b, h):
    return np.tanh(w @ h + b[:, None])


def mlp_cross_entropy(w):
    w1 = w[:6].reshape(3, 2)
    w2 = w[6:12].reshape(2, 3)
    h = _dense(w1, np.zeros(3), DESIGN.T)
    logits = w2 @ h
    m = np.max(logits, axis=0)
    logz = m + np.log(np.sum(np.exp(logits - m), axis=0))
    picked = logits[LABELS.astype(int), np.arange(6)]
    return np.mean(logz - picked)


def rnn_tanh(w, xs=SERIES):
    h = np.zeros(2)
    loss = 0.0
    for t in range(len(xs) - 1):
        h = np.tanh(w[:2] * h + w[2:4] * xs[t])
        loss += (h @ w[4:6] - xs[t + 1]) ** 2
    return loss


def conv_relu(kernel, signal=SERIES):
    out = []
    for i in range(len(signal) - len(kernel) + 1):
        out.append(np.sum(signal[i:i + len(kernel)] * kernel))
    z = np.array(out)
    return np.sum(np.maximum(z, 0.0) ** 2) + 0.01 * np.sum(kernel ** 2)


def attention_head(q):
    keys = DESIGN[:4]
    scores = keys @ q[:2]
    weights = np.exp(scores - np.max(scores))
    weights = weights / np.sum(weights)
    return np.sum((weights @ keys - q[2:]) ** 2)


def layer_norm_linear(w):
    h = DESIGN @ w[:2]
    mu = np.mean(h)
    var = np.mean((h - mu) ** 2)
    z = (h - mu) / np.sqrt(var + 1e-5)
    return np.sum((w[2] * z + w[3] - LABELS) ** 2)


def power_iteration(w, steps=8):
    A = np.array([[2.0, w[0], 0.0], [w[0], 1.0, w[1]], [0.0, w[1], 0.5]])
    v = np.ones(3) / np.sqrt(3.0)
    for _ in range(steps):
        u = A @ v
        v = u / np.sqrt(u @ u)
    return v @ A @ v


def unrolled_descent(lr, steps=5):
    theta = np.array([1.0, -1.0])
    for _ in range(steps):
        grad = DESIGN.T @ (DESIGN @ theta - LABELS) / len(LABELS)
        theta = theta - lr * grad
    return np.sum((DESIGN @ theta - LABELS) ** 2)


# ---- likelihoods ----

def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def logistic_nll(beta):
    p = _sigmoid(DESIGN @ beta)
    return -np.sum(LABELS * np.log(p) + (1 - LABELS) * np.log(1 - p)) + 0.5 * np.sum(beta ** 2)


def poisson_nll(beta):
    eta = DESIGN @ beta
    nll = 0.0
    for i in range(len(COUNTS)):
        nll += math.exp(eta[i]) - COUNTS[i] * eta[i] + math.lgamma(COUNTS[i] + 1.0)
    return nll


def mixture_loglik(theta, xs=SERIES):
    mu1, mu2, logit_w = theta
    w = 1.0 / (1.0 + math.exp(-logit_w))
    ll = 0.0
    for x in xs:
        a = math.log(w) - 0.5 * (x - mu1) ** 2
        b = math.log(1 - w) - 0.5 * (x - mu2) ** 2
        m = max(a, b)
        ll += m + math.log(math.exp(a - m) + math.exp(b - m))
    return -ll


def ar1_loglik(theta, ys=SERIES):
    phi, log_sigma = theta[0], theta[1]
    sigma2 = np.exp(2 * log_sigma)
    ll = 0.0
    for t in range(1, len(ys)):
        resid = ys[t] - phi * ys[t - 1]
        ll += -0.5 * np.log(2 * np.pi * sigma2) - 0.5 * resid ** 2 / sigma2
    return -ll


def kalman_loglik(log_qr, ys=SERIES):
    q, r = np.exp(log_qr)
    m, p = 0.0, 1.0
    ll = 0.0
    for y in ys:
        p = p + q
        s = p + r
        gain = p / s
        ll += -0.5 * (math.log(2 * math.pi * s) + (y - m) ** 2 / s)
        m = m + gain * (y - m)
        p = (1 - gain) * p
    return -ll


def weibull_censored(theta, times=np.array([0.5, 1.2, 2.0, 0.8]), observed=np.array([1.0, 1.0, 0.0, 1.0])):  # noqa: B008
    k, lam = np.exp(theta)
    z = times / lam
    log_h = np.log(k / lam) + (k - 1) * np.log(z)
    return -np.sum(observed * log_h - z ** k)


def student_t_loglik(theta, xs=SERIES):
    mu, log_s = theta
    nu = 4.0
    s = math.exp(log_s)
    ll = 0.0
    for x in xs:
        ll += -0.5 * (nu + 1) * math.log1p(((x - mu) / s) ** 2 / nu) - log_s
    return -ll


def noncentred_hierarchy(z, mu=0.2, tau=0.7):
    theta = mu + tau * z
    ll = -0.5 * np.sum(z ** 2)
    for j in range(len(z)):
        ll += -0.5 * (SERIES[j] - theta[j]) ** 2
    return -ll


SCIENCE = [
    ("euler_decay_fit", euler_decay_fit, lambda r: (0.7,), 0),
    ("rk4_oscillator", rk4_oscillator, lambda r: (np.array([2.0, 0.3]),), 0),
    ("midpoint_logistic", midpoint_logistic, lambda r: (np.array([0.9, 1.5]),), 0),
    ("lotka_volterra", lotka_volterra, lambda r: (np.array([1.1, 0.4, 0.6]),), 0),
    ("sir_epidemic", sir_epidemic, lambda r: (np.array([0.3, 0.1]),), 0),
    ("lorenz_rk2", lorenz_rk2, lambda r: (np.array([10.0, 28.0, 2.6]),), 0),
    ("two_compartment_pk", two_compartment_pk, lambda r: (np.array([0.8, 0.2]),), 0),
    ("chain_kinetics", chain_kinetics, lambda r: (np.array([0.9, 0.4]),), 0),
    ("verlet_pendulum", verlet_pendulum, lambda r: (1.3,), 0),
    ("heat_explicit", heat_explicit, lambda r: (0.2,), 0),
    ("nbody_energy", nbody_energy, lambda r: (np.array([0.0, 0.1, 1.0, 0.3, -0.4, 0.9]),), 0),
    ("spring_chain", spring_chain, lambda r: (np.array([0.0, 0.7, 1.1, 1.9]),), 0),
    ("projectile_drag", projectile_drag, lambda r: (np.array([3.0, 2.5]),), 0),
    ("discrete_action", discrete_action, lambda r: (_v(r, 6),), 0),
    ("damped_fit", damped_fit, lambda r: (np.array([0.7, 1.8]),), 0),
    ("mlp_cross_entropy", mlp_cross_entropy, lambda r: (0.5 * r.standard_normal(12),), 0),
    ("rnn_tanh", rnn_tanh, lambda r: (0.5 * r.standard_normal(6),), 0),
    ("conv_relu", conv_relu, lambda r: (np.array([0.5, -0.3, 0.8]),), 0),
    ("attention_head", attention_head, lambda r: (np.array([0.3, -0.2, 0.9, 0.1]),), 0),
    ("layer_norm_linear", layer_norm_linear, lambda r: (np.array([0.5, 1.2, 0.8, 0.1]),), 0),
    ("power_iteration", power_iteration, lambda r: (np.array([0.3, -0.2]),), 0),
    ("unrolled_descent", unrolled_descent, lambda r: (0.4,), 0),
    ("logistic_nll", logistic_nll, lambda r: (np.array([0.2, -0.5]),), 0),
    ("poisson_nll", poisson_nll, lambda r: (np.array([0.3, 0.4]),), 0),
    ("mixture_loglik", mixture_loglik, lambda r: (np.array([-0.1, 0.35, 0.2]),), 0),
    ("ar1_loglik", ar1_loglik, lambda r: (np.array([0.4, -0.8]),), 0),
    ("kalman_loglik", kalman_loglik, lambda r: (np.array([-1.0, -1.5]),), 0),
    ("weibull_censored", weibull_censored, lambda r: (np.array([0.3, 0.1]),), 0),
    ("student_t_loglik", student_t_loglik, lambda r: (np.array([0.1, -0.7]),), 0),
    ("noncentred_hierarchy", noncentred_hierarchy, lambda r: (0.5 * r.standard_normal(5),), 0),
]
