"""The red team's wave 30a, signals and queues: FIR filters as double loops and by np.convolve,
biquads and one-pole IIR filters with their state in tuples, direct-form II, windowed sinc designs,
cross-correlation by np.correlate, LMS and NLMS adaptive filters, Goertzel, envelope followers,
pre-emphasis, Welch-like averaged periodograms by matrix products; M/M/1, M/M/c (Erlang C), Kingman
and Pollaczek-Khinchine, Jackson networks, tandem queues by Lindley's recursion, Little's law
(test_redteam_wave30a.py runs them through every transformation)."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave29a_robotics import M

FS = 100.0
T_AXIS = np.arange(64) / FS
SIGNAL = np.sin(2 * np.pi * 5 * T_AXIS) + 0.4 * np.sin(2 * np.pi * 23 * T_AXIS) + 0.1 * np.cos(7 * T_AXIS)
TARGET = np.sin(2 * np.pi * 5 * T_AXIS)


def fir_loop(h, x=SIGNAL):
    """y[n] = sum_k h[k] x[n-k], written as a double loop, zero before the start."""
    y = np.zeros(len(x))
    for n in range(len(x)):
        acc = 0.0
        for k in range(len(h)):
            if n - k >= 0:
                acc += h[k] * x[n - k]
        y[n] = acc
    return np.mean((y - TARGET) ** 2)


def fir_convolve(h, mode="same"):
    y = np.convolve(SIGNAL, h, mode=mode)
    return np.sum((y - TARGET) ** 2) / len(y)


def fir_valid_windowed(h):
    """The taps tapered by a Hamming window, 'valid' convolution against the trimmed target."""
    taps = h * np.hamming(len(h))
    y = np.convolve(SIGNAL, taps, "valid")
    return np.mean((y - TARGET[len(h) - 1:]) ** 2)


def windowed_sinc(fc, numtaps=11):
    """A low-pass design from its cutoff: sinc times a Hann window, normalised to unit gain."""
    n = np.arange(numtaps) - (numtaps - 1) / 2
    h = np.sinc(2 * fc * n) * np.hanning(numtaps)
    h = h / np.sum(h)
    y = np.convolve(SIGNAL, h, mode="same")
    return np.mean((y - TARGET) ** 2)


def one_pole(alpha, x=SIGNAL):
    y = 0.0
    out = []
    for xn in x:
        y = alpha * y + (1 - alpha) * xn
        out.append(y)
    return np.sum((np.array(out) - TARGET) ** 2)


def biquad(coeffs, x=SIGNAL):
    """Direct form I with its state carried in two tuples."""
    b0, b1, b2, a1, a2 = coeffs
    xs, ys = (0.0, 0.0), (0.0, 0.0)
    err = 0.0
    for n in range(len(x)):
        yn = b0 * x[n] + b1 * xs[0] + b2 * xs[1] - a1 * ys[0] - a2 * ys[1]
        xs = (x[n], xs[0])
        ys = (yn, ys[0])
        err += (yn - TARGET[n]) ** 2
    return err


def direct_form_2(coeffs, x=SIGNAL):
    b, a = coeffs[:3], coeffs[3:]
    w = np.zeros(3)
    y = np.zeros_like(x)
    for n in range(len(x)):
        w[0] = x[n] - a[0] * w[1] - a[1] * w[2]
        y[n] = b[0] * w[0] + b[1] * w[1] + b[2] * w[2]
        w[2] = w[1]
        w[1] = w[0]
    return np.mean((y - TARGET) ** 2)


def cascade_sections(params, sections=2):
    """Second-order sections in cascade: a list of dicts of coefficients."""
    sos = [{"b": params[5 * s:5 * s + 3], "a": params[5 * s + 3:5 * s + 5]} for s in range(sections)]
    y = SIGNAL
    for sec in sos:
        out = []
        z1 = z2 = 0.0
        for v in y:
            o = sec["b"][0] * v + z1
            z1 = sec["b"][1] * v - sec["a"][0] * o + z2
            z2 = sec["b"][2] * v - sec["a"][1] * o
            out.append(o)
        y = np.array(out)
    return np.mean((y - TARGET) ** 2)


def xcorr_delay(shift, ref=TARGET):
    """A fractionally delayed copy by linear interpolation; the correlation's peak by softmax weights."""
    idx = np.arange(len(ref)) - shift
    delayed = np.interp(idx, np.arange(len(ref)), ref)
    c = np.correlate(delayed, ref, mode="full")
    w = np.exp(c - c.max())
    lags = np.arange(-len(ref) + 1, len(ref))
    return np.sum(w * lags) / np.sum(w) + 0.01 * np.sum(c ** 2) / len(c)


def lms_filter(mu, taps=4):
    """Least-mean-squares adaptation: the weights' history appended, the final error returned."""
    w = np.zeros(taps)
    errs = []
    for n in range(taps, len(SIGNAL)):
        u = SIGNAL[n - taps:n][::-1]
        e = TARGET[n] - w @ u
        w = w + mu * e * u
        errs.append(e ** 2)
    return sum(errs[-10:])


def nlms_filter(w0, mu=0.5, eps=1e-3):
    w = w0.copy()
    cost = 0.0
    for n in range(3, 40):
        u = SIGNAL[n - 3:n]
        e = TARGET[n] - np.dot(w, u)
        w += mu * e * u / (eps + u @ u)
        cost += e * e
    return cost


def goertzel_power(freq, x=SIGNAL):
    """The power at one frequency by Goertzel's recursion."""
    w = 2 * np.pi * freq / FS
    coeff = 2 * np.cos(w)
    s_prev, s_prev2 = 0.0, 0.0
    for xn in x:
        s = xn + coeff * s_prev - s_prev2
        s_prev2, s_prev = s_prev, s
    return s_prev2 ** 2 + s_prev ** 2 - coeff * s_prev * s_prev2


def envelope_follower(params, x=SIGNAL):
    """Attack and release by np.where on whether the level rises."""
    attack, release = 1 / (1 + np.exp(-params))
    env = 0.0
    total = 0.0
    for xn in np.abs(x[1:]):
        coef = np.where(xn > env, attack, release)
        env = coef * env + (1 - coef) * xn
        total += env
    return total


def pre_emphasis(alpha, x=SIGNAL):
    y = np.append(x[0], x[1:] - alpha * x[:-1])
    frames = y[:60].reshape(6, 10) * np.hanning(10)
    energy = np.log(np.sum(frames ** 2, axis=1) + 1e-3)
    return energy.mean()


def averaged_periodogram(gain, nseg=4):
    """Welch-like: segments windowed, a DFT by a cosine/sine matrix, powers averaged."""
    seg = len(SIGNAL) // nseg
    k = np.arange(seg // 2)
    n = np.arange(seg)
    C, S = np.cos(2 * np.pi * np.outer(k, n) / seg), np.sin(2 * np.pi * np.outer(k, n) / seg)
    win = np.hanning(seg)
    power = np.zeros(len(k))
    for s in range(nseg):
        xs = gain * SIGNAL[s * seg:(s + 1) * seg] * win
        power += (C @ xs) ** 2 + (S @ xs) ** 2
    return np.log(power / nseg + 1e-6).sum()


def mm1_cost(mu, lam=3.0, wait_cost=2.0, service_cost=0.5):
    rho = lam / mu
    L = rho / (1 - rho)
    return wait_cost * L + service_cost * mu ** 2


def erlang_c(mu, lam=7.0, c=3):
    """The probability of waiting in M/M/c, by the Erlang C formula with a sum over k."""
    a = lam / mu
    rho = a / c
    head = sum(a ** k / math.factorial(k) for k in range(c))
    tail = a ** c / (math.factorial(c) * (1 - rho))
    pw = tail / (head + tail)
    wq = pw / (c * mu - lam)
    return wq + 0.1 * mu


def kingman_pk(params):
    """Kingman's G/G/1 and Pollaczek-Khinchine's M/G/1 waits, summed."""
    mean_s, cv_s = params
    lam = 0.6
    rho = lam * mean_s
    kingman = rho / (1 - rho) * (1.0 + cv_s ** 2) / 2 * mean_s
    es2 = mean_s ** 2 * (1 + cv_s ** 2)
    pk = lam * es2 / (2 * (1 - rho))
    return kingman + pk


def jackson_network(rates, external=np.array([1.0, 0.5, 0.0])):  # noqa: B008
    """Open Jackson network: arrivals by a linear solve of the traffic equations."""
    routing = np.array([[0.0, 0.5, 0.3], [0.2, 0.0, 0.6], [0.1, 0.1, 0.0]])
    arrivals = np.linalg.solve(np.eye(3) - routing.T, external)
    rho = arrivals / rates
    L = rho / (1 - rho)
    return L.sum() / external.sum() + 0.05 * rates.sum()


def tandem_lindley(scale, inter=np.array([0.8, 1.1, 0.5, 1.4, 0.9, 0.7, 1.2]),  # noqa: B008
                   service=np.array([0.6, 0.9, 0.7, 0.5, 1.0, 0.8, 0.4])):  # noqa: B008
    """Waits by Lindley's recursion W = max(0, W + S - A), the max smoothed by softplus."""
    W = 0.0
    waits = []
    for a, s in zip(inter, service):
        W = 0.1 * np.logaddexp(0.0, (W + scale * s - a) / 0.1)
        waits.append(W)
    return np.mean(waits)


def littles_law_staffing(servers):
    """Staffing several stations: M/M/1 each at its own rate; the cost of wait and staff."""
    demand = {"triage": 4.0, "xray": 2.0, "lab": 3.0}
    total = 0.0
    for (_name, lam), mu in zip(demand.items(), servers):
        W = 1 / (mu - lam)
        total += lam * W + 0.3 * mu
    return total


SIGNALS = [
    ("sg_fir_loop", fir_loop, lambda r: (np.array([0.3, 0.3, 0.2, 0.1]) + 0.02 * M(r, 4),), 0),
    ("sg_fir_convolve", fir_convolve, lambda r: (np.array([0.2, 0.3, 0.3, 0.2]) + 0.02 * M(r, 4),), 0),
    ("sg_fir_valid_windowed", fir_valid_windowed, lambda r: (np.array([0.3, 0.5, 0.5, 0.3]),), 0),
    ("sg_windowed_sinc", windowed_sinc, lambda r: (0.08,), 0),
    ("sg_one_pole", one_pole, lambda r: (0.6,), 0),
    ("sg_biquad", biquad, lambda r: (np.array([0.2, 0.4, 0.2, -0.5, 0.2]),), 0),
    ("sg_direct_form_2", direct_form_2, lambda r: (np.array([0.2, 0.4, 0.2, -0.5, 0.2]),), 0),
    ("sg_cascade_sections", cascade_sections,
     lambda r: (np.array([0.4, 0.3, 0.1, -0.3, 0.1, 0.5, 0.2, 0.1, -0.2, 0.05]),), 0),
    ("sg_xcorr_delay", xcorr_delay, lambda r: (2.3,), 0),
    ("sg_lms_filter", lms_filter, lambda r: (0.05,), 0),
    ("sg_nlms_filter", nlms_filter, lambda r: (0.1 * M(r, 3),), 0),
    ("sg_goertzel_power", goertzel_power, lambda r: (5.3,), 0),
    ("sg_envelope_follower", envelope_follower, lambda r: (np.array([1.0, 2.5]),), 0),
    ("sg_pre_emphasis", pre_emphasis, lambda r: (0.95,), 0),
    ("sg_averaged_periodogram", averaged_periodogram, lambda r: (1.3,), 0),
    ("sg_mm1_cost", mm1_cost, lambda r: (4.2,), 0),
    ("sg_erlang_c", erlang_c, lambda r: (3.1,), 0),
    ("sg_kingman_pk", kingman_pk, lambda r: (np.array([1.1, 0.8]),), 0),
    ("sg_jackson_network", jackson_network, lambda r: (np.array([2.5, 2.0, 1.5]),), 0),
    ("sg_tandem_lindley", tandem_lindley, lambda r: (1.1,), 0),
    ("sg_littles_law_staffing", littles_law_staffing, lambda r: (np.array([5.0, 3.0, 4.5]),), 0),
]
