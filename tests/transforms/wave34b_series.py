"""Wave 34b: econometrics, epidemiology and signal processing, written the way their users write them:
GARCH and GJR likelihoods from a dict of parameters with the variances appended to a list, ARMA
residuals written in place, a local-level Kalman filter with its RTS smoother running backwards,
Holt-Winters with a list of seasonal terms, a Hodrick-Prescott trend by solve, a probit by math.erf,
SEIR with interventions at day indices from a dict, an age-structured SIR with a contact matrix,
a Poisson likelihood of incidences, biquad and one-pole IIR filters by loops, windowed FFT magnitude
losses, a FIR frequency response, an autocorrelation by np.correlate, a comb filter by slices and an
RMS envelope by np.convolve."""

from __future__ import annotations

import math

import numpy as np

RETURNS = np.array([0.5, -1.2, 0.3, 0.8, -0.4, -2.0, 1.1, 0.2, -0.6, 0.9, -0.1, 0.4])
SERIES = np.array([1.0, 1.4, 1.1, 0.7, 0.9, 1.5, 1.8, 1.2, 0.8, 1.0, 1.6, 1.9])
INTERVENTIONS = {8: 0.5, 15: 0.7}
CASES = np.array([3.0, 5.0, 9.0, 14.0, 20.0, 24.0, 22.0, 18.0])
CONTACT = np.array([[3.0, 1.0, 0.5], [1.0, 2.0, 0.8], [0.5, 0.8, 1.2]])
POP = np.array([0.3, 0.5, 0.2])
SIGNAL = np.sin(0.3 * np.arange(32)) + 0.5 * np.sin(1.1 * np.arange(32))
TARGET_SPEC = np.abs(np.fft.rfft(np.hanning(32) * np.sin(0.35 * np.arange(32))))


def garch11(params):
    omega, alpha, beta = params["omega"], params["alpha"], params["beta"]
    sig2 = [np.var(RETURNS)]
    nll = 0.0
    for t in range(1, len(RETURNS)):
        s = omega + alpha * RETURNS[t - 1] ** 2 + beta * sig2[-1]
        sig2.append(s)
        nll += 0.5 * (math.log(2 * math.pi) + np.log(s) + RETURNS[t] ** 2 / s)
    return nll


def gjr_garch(theta):
    omega, alpha, gamma, beta = theta
    h = np.empty(len(RETURNS))
    h[0] = np.mean(RETURNS ** 2)
    for t in range(1, len(RETURNS)):
        neg = np.where(RETURNS[t - 1] < 0, 1.0, 0.0)
        h[t] = omega + (alpha + gamma * neg) * RETURNS[t - 1] ** 2 + beta * h[t - 1]
    return np.sum(np.log(h) + RETURNS ** 2 / h) / 2


def arma11_css(theta):
    c, phi, th = theta[0], theta[1], theta[2]
    e = np.zeros_like(SERIES)
    for t in range(1, SERIES.shape[0]):
        e[t] = SERIES[t] - c - phi * SERIES[t - 1] - th * e[t - 1]
    return np.sum(e[1:] ** 2)


def kalman_smoother(logq, y=SERIES):
    q, r = np.exp(logq[0]), np.exp(logq[1])
    n = len(y)
    m, p = [0.0] * n, [0.0] * n
    mp, pp = 0.0, 10.0
    for t in range(n):
        k = pp / (pp + r)
        m[t] = mp + k * (y[t] - mp)
        p[t] = (1 - k) * pp
        mp, pp = m[t], p[t] + q
    ms = list(m)
    for t in reversed(range(n - 1)):
        g = p[t] / (p[t] + q)
        ms[t] = m[t] + g * (ms[t + 1] - m[t])
    return sum((ms[t] - y[t]) ** 2 for t in range(n)) + 0.1 * (logq[0] ** 2 + logq[1] ** 2)


def holt_winters(abg, period=4):
    alpha, beta, gamma = abg
    level, trend = SERIES[0], 0.0
    season = [0.0] * period
    sse = 0.0
    for t in range(1, len(SERIES)):
        s = season[t % period]
        pred = level + trend + s
        sse = sse + (SERIES[t] - pred) ** 2
        new_level = alpha * (SERIES[t] - s) + (1 - alpha) * (level + trend)
        trend = beta * (new_level - level) + (1 - beta) * trend
        season[t % period] = gamma * (SERIES[t] - new_level) + (1 - gamma) * s
        level = new_level
    return sse


def hp_trend(weights, lam=10.0):
    n = SERIES.shape[0]
    d = np.zeros((n - 2, n))
    for i in range(n - 2):
        d[i, i:i + 3] = [1.0, -2.0, 1.0]
    w = np.diag(weights)
    tau = np.linalg.solve(w + lam * d.T @ d, w @ SERIES)
    return np.sum((tau - np.mean(SERIES)) ** 2)


def _norm_cdf(z):
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def probit_loglik(beta, x=np.array([[1.0, 0.5], [1.0, -1.0], [1.0, 2.0], [1.0, 0.1]]),  # noqa: B008
                  y=(1, 0, 1, 0)):
    ll = 0.0
    for i in range(len(y)):
        p = _norm_cdf(float(x[i] @ beta))
        ll += y[i] * math.log(p) + (1 - y[i]) * math.log(1 - p)
    return -ll


def seir_interventions(theta, days=24):
    beta, sigma, gamma = theta[0], theta[1], theta[2]
    s, e, i, r = 0.99, 0.005, 0.005, 0.0
    infected = []
    for day in range(days):
        if day in INTERVENTIONS:
            beta = beta * INTERVENTIONS[day]
        new_e = beta * s * i
        s, e, i, r = s - new_e, e + new_e - sigma * e, i + sigma * e - gamma * i, r + gamma * i
        infected.append(i)
    return float(np.sum(np.array(infected) ** 2) * 100.0)


def sir_age(beta, steps=15, dt=0.5):
    s = POP * 0.99
    i = POP * 0.01
    for _ in range(steps):
        force = beta * (CONTACT @ (i / POP))
        new = s * force * dt
        s = s - new
        i = i + new - 0.3 * i * dt
    return float(np.sum(i))


def incidence_poisson(logbeta, gamma=0.4):
    beta = np.exp(logbeta)
    s, i = 1000.0, 2.0
    nll = 0.0
    for t in range(CASES.shape[0]):
        inc = beta * s * i / 1000.0
        inc = np.maximum(inc, 1e-9)
        nll = nll + inc - CASES[t] * np.log(inc)
        s, i = s - inc, i + inc - gamma * i
    return nll


def biquad(coefs, x=SIGNAL):
    b0, b1, b2, a1, a2 = coefs
    y = []
    x1 = x2 = y1 = y2 = 0.0
    for n in range(len(x)):
        out = b0 * x[n] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, x[n]
        y2, y1 = y1, out
        y.append(out)
    return np.mean(np.array(y) ** 2)


def one_pole(a, x=SIGNAL):
    y = np.zeros_like(x)
    y[0] = (1 - a) * x[0]
    for n in range(1, x.shape[0]):
        y[n] = a * y[n - 1] + (1 - a) * x[n]
    return float(np.sum((y - 0.5 * x) ** 2))


def spectrum_loss(x):
    win = np.hanning(x.shape[0])
    mag = np.abs(np.fft.rfft(win * x))
    return np.sum((mag - TARGET_SPEC) ** 2) / x.shape[0]


def spectral_centroid(x):
    power = np.abs(np.fft.rfft(x)) ** 2
    freqs = np.fft.rfftfreq(x.shape[0])
    centroid = np.sum(freqs * power) / np.sum(power)
    return (centroid - 0.1) ** 2


def fir_response(h, grid=np.linspace(0, np.pi, 16)):  # noqa: B008
    k = np.arange(h.shape[0])
    re = np.cos(np.outer(grid, k)) @ h
    im = -np.sin(np.outer(grid, k)) @ h
    mag = np.sqrt(re ** 2 + im ** 2 + 1e-12)
    ideal = np.where(grid < np.pi / 2, 1.0, 0.0)
    return np.mean((mag - ideal) ** 2)


def autocorr_loss(x, lags=4):
    xc = x - x.mean()
    ac = np.correlate(xc, xc, mode="full")[x.shape[0] - 1:]
    ac = ac / ac[0]
    return float(np.sum(ac[1:lags + 1] ** 2))


def comb_filter(g, x=SIGNAL, delay=5):
    y = x.copy()
    y[delay:] = x[delay:] + g * x[:-delay]
    echo = np.concatenate([np.zeros(delay), y[:-delay]])
    return np.sum((y + 0.3 * echo - x) ** 2)


def rms_envelope(x, width=5):
    kernel = np.ones(width) / width
    env = np.sqrt(np.convolve(x ** 2, kernel, mode="same") + 1e-8)
    return np.sum((env - 0.7) ** 2)


def chirp_fit(p, t=np.linspace(0, 1, 24)):  # noqa: B008
    f0, k = p
    model = np.sin(2 * math.pi * (f0 * t + 0.5 * k * t ** 2))
    obs = np.sin(2 * math.pi * (2.0 * t + 0.5 * 3.0 * t ** 2))
    return np.sum((model - obs) ** 2)


SERIES_PROGRAMS = [
    ("econ_garch_dict", garch11, lambda r: ({"omega": 0.1, "alpha": 0.1, "beta": 0.8},), 0),
    ("econ_gjr_garch", gjr_garch, lambda r: (np.array([0.1, 0.05, 0.1, 0.8]),), 0),
    ("econ_arma_css", arma11_css, lambda r: (np.array([0.3, 0.5, 0.2]),), 0),
    ("econ_kalman_smoother", kalman_smoother, lambda r: (np.array([-1.0, -0.5]),), 0),
    ("econ_holt_winters", holt_winters, lambda r: (np.array([0.5, 0.2, 0.3]),), 0),
    ("econ_hp_trend", hp_trend, lambda r: (r.uniform(0.5, 1.5, 12),), 0),
    ("econ_probit_erf", probit_loglik, lambda r: (np.array([0.1, 0.4]),), 0),
    ("epi_seir_interventions", seir_interventions, lambda r: (np.array([0.6, 0.3, 0.2]),), 0),
    ("epi_sir_age", sir_age, lambda r: (0.2,), 0),
    ("epi_incidence_poisson", incidence_poisson, lambda r: (np.log(0.8),), 0),
    ("sig_biquad", biquad, lambda r: (np.array([0.2, 0.3, 0.2, -0.5, 0.2]),), 0),
    ("sig_one_pole", one_pole, lambda r: (0.6,), 0),
    ("sig_spectrum_loss", spectrum_loss, lambda r: (r.normal(size=32),), 0),
    ("sig_spectral_centroid", spectral_centroid, lambda r: (r.normal(size=16),), 0),
    ("sig_fir_response", fir_response, lambda r: (r.normal(0.1, 0.2, 7),), 0),
    ("sig_autocorr", autocorr_loss, lambda r: (r.normal(size=12),), 0),
    ("sig_comb_filter", comb_filter, lambda r: (0.4,), 0),
    ("sig_rms_envelope", rms_envelope, lambda r: (r.normal(size=12),), 0),
    ("sig_chirp_fit", chirp_fit, lambda r: (np.array([2.2, 2.7]),), 0),
    ("sig_spectrum_f32", spectrum_loss, lambda r: (r.normal(size=32).astype(np.float32),), 0),
]
