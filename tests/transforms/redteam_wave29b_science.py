"""Wave 29b's small physics and statistics: energies, integrators, likelihoods, written with the
math module, while/for loops with break and continue, early returns, enumerate/zip/reversed and
comprehensions; each a row of ``(name, func, make_args(rng), wrt)``."""

from __future__ import annotations

import math

import numpy as np

G = 9.81
STEPS = 5
CONFIG = {"k": 2.0, "c": 0.3}


def pendulum_energy(theta, omega=0.4, length=1.2):
    return 0.5 * length ** 2 * omega ** 2 + G * length * (1.0 - math.cos(theta))


def projectile_range(angle):
    v = 12.0
    t = 2.0 * v * math.sin(angle) / G
    drag = 1.0 - 0.01 * t
    return v * math.cos(angle) * t * drag


def spring_chain(x):
    e = 0.0
    for a, b in zip(x[:-1], x[1:]):
        e += 0.5 * CONFIG["k"] * (b - a - 1.0) ** 2
    return e + CONFIG["c"] * np.sum(x ** 4)


def lennard_jones(pos):
    e = 0.0
    n = pos.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = np.dot(d, d)
            if r2 > 9.0:
                continue
            s6 = (1.0 / r2) ** 3
            e += 4.0 * (s6 * s6 - s6)
    return e


def verlet_oscillator(k):
    x, v, dt = 1.0, 0.0, 0.1
    for _ in range(STEPS):
        a = -k * x
        x = x + v * dt + 0.5 * a * dt * dt
        v = v + 0.5 * (a - k * x) * dt
    return x * x + v


def euler_decay(rates):
    y = np.ones_like(rates)
    t = 0.0
    while t < 0.5:
        y = y - 0.1 * rates * y
        t += 0.1
    return np.sum(y ** 2)


def rk4_step(f, y, h):
    k1 = f(y)
    k2 = f(y + 0.5 * h * k1)
    k3 = f(y + 0.5 * h * k2)
    k4 = f(y + h * k3)
    return y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def _logistic_rhs(y):
    return y * (1.0 - y)


def rk4_logistic(y0):
    y = y0
    for _ in range(3):
        y = rk4_step(_logistic_rhs, y, 0.2)
    return np.sum(y)


def gravity_potential(m):
    r = np.array([1.0, 2.0, 3.5])
    return -np.sum(G * m[:, None] * m[None, :] / (1.0 + np.abs(r[:, None] - r[None, :])))


def heat_rod(u):
    for _ in range(3):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u = u + 0.2 * lap
    return np.sum(u ** 2 * np.linspace(0.5, 1.5, u.size))


def bisection_free_energy(beta):
    levels = [0.0, 0.5, 1.3, 2.0]
    z = sum(math.exp(-beta * e) for e in levels)
    return -math.log(z) / beta


def damped_oscillator_early(c):
    x, v = 1.0, 0.0
    for i in range(20):
        a = -4.0 * x - c * v
        v += 0.05 * a
        x += 0.05 * v
        if i >= 6:
            return x
    return x + v


def orbit_reversed(masses):
    acc = 0.0
    for i, m in reversed(list(enumerate(masses))):
        acc = acc * 0.5 + m / (i + 1.0)
    return acc ** 2


def gaussian_nll(mu, log_sigma, x):
    s = np.exp(log_sigma)
    return np.sum(0.5 * ((x - mu) / s) ** 2 + log_sigma + 0.5 * math.log(2.0 * math.pi))


def student_t_nll(nu, x):
    return -np.sum(math.lgamma((nu + 1.0) / 2.0) - math.lgamma(nu / 2.0) - 0.5 * math.log(nu * math.pi)
                   - (nu + 1.0) / 2.0 * np.log1p(x ** 2 / nu))


def poisson_regression(beta, X, counts):
    eta = X @ beta
    return np.sum(np.exp(eta) - counts * eta)


def logsumexp_mixture(mus, x):
    out = 0.0
    for xi in x:
        terms = [-0.5 * (xi - m) ** 2 for m in mus]
        top = max(terms)
        out -= top + math.log(sum(math.exp(t - top) for t in terms))
    return out


def ar1_likelihood(phi, x):
    r = x[1:] - phi * x[:-1]
    return 0.5 * np.sum(r ** 2) + 0.5 * (1.0 - phi ** 2) * x[0] ** 2 - 0.5 * math.log(1.0 - phi ** 2)


def beta_binomial_like(a, k=3.0, n=7.0):
    b = 2.0
    return -(math.lgamma(k + a) + math.lgamma(n - k + b) - math.lgamma(n + a + b)
             - math.lgamma(a) - math.lgamma(b) + math.lgamma(a + b))


def weighted_variance(w, x):
    wn = w / np.sum(w)
    m = np.sum(wn * x)
    return np.sum(wn * (x - m) ** 2)


def robust_cauchy(scale, r):
    return np.sum(np.log1p((r / scale) ** 2)) + r.size * math.log(scale)


def ewma_loss(alpha, x):
    s = x[0]
    total = 0.0
    for t in range(1, len(x)):
        total += (x[t] - s) ** 2
        s = alpha * x[t] + (1.0 - alpha) * s
    return total


def quantile_pinball_smooth(q, r):
    return np.sum(np.log1p(np.exp(q * r)) + np.log1p(np.exp((q - 1.0) * r)))


def kalman_1d(q, ys):
    m, p = 0.0, 1.0
    nll = 0.0
    for y in ys:
        p = p + q
        s = p + 0.5
        nll += 0.5 * (math.log(s) + (y - m) ** 2 / s)
        k = p / s
        m = m + k * (y - m)
        p = (1.0 - k) * p
    return nll


def newton_sqrt_while(a):
    x = a
    n = 0
    while True:
        x = 0.5 * (x + a / x)
        n += 1
        if n == 6:
            break
    return x * math.exp(-a)


def gamma_log_like(shape, x):
    return -np.sum((shape - 1.0) * np.log(x) - x) + len(x) * math.lgamma(shape)


SCIENCE = [
    ("pendulum_energy", pendulum_energy, lambda r: (0.7,), 0),
    ("projectile_range", projectile_range, lambda r: (0.6,), 0),
    ("spring_chain", spring_chain, lambda r: (np.arange(4.0) * 1.1 + 0.1 * r.normal(size=4),), 0),
    ("lennard_jones", lennard_jones,
     lambda r: (np.array([[0.0, 0.0], [1.1, 0.1], [0.2, 1.2]]) + 0.02 * r.normal(size=(3, 2)),), 0),
    ("verlet_oscillator", verlet_oscillator, lambda r: (1.7,), 0),
    ("euler_decay", euler_decay, lambda r: (r.uniform(0.5, 2.0, size=3),), 0),
    ("rk4_logistic", rk4_logistic, lambda r: (0.3,), 0),
    ("rk4_logistic_array", rk4_logistic, lambda r: (r.uniform(0.1, 0.9, size=3),), 0),
    ("gravity_potential", gravity_potential, lambda r: (r.uniform(0.5, 2.0, size=3),), 0),
    ("heat_rod", heat_rod, lambda r: (r.normal(size=6),), 0),
    ("bisection_free_energy", bisection_free_energy, lambda r: (0.8,), 0),
    ("damped_oscillator_early", damped_oscillator_early, lambda r: (0.5,), 0),
    ("orbit_reversed", orbit_reversed, lambda r: (r.uniform(0.5, 2.0, size=4),), 0),
    ("gaussian_nll_mu", gaussian_nll, lambda r: (0.2, -0.1, r.normal(size=5)), 0),
    ("gaussian_nll_sigma", gaussian_nll, lambda r: (0.2, -0.1, r.normal(size=5)), 1),
    ("student_t_nll", student_t_nll, lambda r: (4.5, r.normal(size=5)), 0),
    ("poisson_regression", poisson_regression,
     lambda r: (0.2 * r.normal(size=2), r.normal(size=(5, 2)), np.array([1.0, 0.0, 3.0, 2.0, 1.0])), 0),
    ("logsumexp_mixture", logsumexp_mixture, lambda r: (np.array([-1.0, 0.5, 2.0]), r.normal(size=4)), 0),
    ("ar1_likelihood", ar1_likelihood, lambda r: (0.4, r.normal(size=6)), 0),
    ("beta_binomial_like", beta_binomial_like, lambda r: (1.5,), 0),
    ("weighted_variance", weighted_variance, lambda r: (r.uniform(0.5, 1.5, size=4), r.normal(size=4)), 0),
    ("robust_cauchy", robust_cauchy, lambda r: (0.8, r.normal(size=5)), 0),
    ("ewma_loss", ewma_loss, lambda r: (0.3, r.normal(size=6)), 0),
    ("quantile_pinball_smooth", quantile_pinball_smooth, lambda r: (0.3, r.normal(size=5)), 1),
    ("kalman_1d", kalman_1d, lambda r: (0.2, list(r.normal(size=5))), 0),
    ("newton_sqrt_while", newton_sqrt_while, lambda r: (2.3,), 0),
    ("gamma_log_like", gamma_log_like, lambda r: (2.2, r.uniform(0.5, 3.0, size=5)), 0),
]
