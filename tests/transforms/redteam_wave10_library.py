"""The red team's tenth wave, continued: statistics (a multinomial through gammaln, a skew-normal
through log_ndtr, a Pearson correlation loss through np.corrcoef, np.quantile, a segment sum with
np.bincount, a Gaussian log-density through a Cholesky and scipy.linalg.solve_triangular, a gamma
log-likelihood through scipy.special.xlogy, a beta-binomial through betaln), signal processing
(np.convolve mode="same", np.pad with mode="reflect", an irfft round trip, np.polyval, np.select
piecewise, a leaky integrator with a deque window) and library-style code (an abc base class whose
subclass overrides a method, an enum choosing the activation, ``{**defaults, **overrides}``,
dataclasses.replace, NamedTuple._replace, a registry dict of loss functions, a closure with
nonlocal, sum(map(...)), zip(*pairs), ``with np.errstate(...)``, isinstance branches on the
argument).  See redteam_wave10.py."""

from __future__ import annotations

import abc
import collections
import dataclasses
import enum
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.special

# ---- statistics ---------------------------------------------------------------------------------


def multinomial_gammaln(logits, counts):
    logp = logits - scipy.special.logsumexp(logits)
    n = counts.sum()
    return -(scipy.special.gammaln(n + 1) - np.sum(scipy.special.gammaln(counts + 1)) + np.sum(counts * logp))


def skew_normal_log_ndtr(params, x):
    loc, log_scale, alpha = params
    z = (x - loc) / np.exp(log_scale)
    return -np.sum(np.log(2.0) - 0.5 * z ** 2 - 0.5 * np.log(2 * np.pi) - log_scale
                   + scipy.special.log_ndtr(alpha * z))


def corrcoef_loss(w, X, y):
    pred = X @ w
    return 1.0 - np.corrcoef(pred, y)[0, 1]


def quantile_spread(x):
    q = np.quantile(x, [0.25, 0.75])
    return (q[1] - q[0]) ** 2 + np.sum(x ** 2) * 0.1


def bincount_segment_means(x, seg):
    sums = np.bincount(seg, weights=x)
    counts = np.bincount(seg)
    return np.sum((sums / counts) ** 2)


def cholesky_solve_triangular(L_raw, X):
    L = np.tril(L_raw, -1) + np.diag(np.exp(np.diag(L_raw)))
    Z = scipy.linalg.solve_triangular(L, X.T, lower=True)
    return 0.5 * np.sum(Z ** 2) + X.shape[0] * np.sum(np.diag(L_raw))


def gamma_xlogy_loglik(log_k, x, theta=1.5):
    k = np.exp(log_k)
    return -np.sum(scipy.special.xlogy(k - 1, x) - x / theta - scipy.special.gammaln(k) - k * np.log(theta))


def beta_binomial_betaln(ab, k, n):
    a, b = np.exp(ab[0]), np.exp(ab[1])
    return -np.sum(scipy.special.betaln(k + a, n - k + b) - scipy.special.betaln(a, b))


# ---- signal processing --------------------------------------------------------------------------


def convolve_same_smoother(x, kernel=np.array([0.25, 0.5, 0.25])):  # noqa: B008  read, never written
    s = np.convolve(x, kernel, mode="same")
    return np.sum((s - x) ** 2) + 0.1 * np.sum(s ** 4)


def pad_reflect_laplacian(u):
    p = np.pad(u, 1, mode="reflect")
    lap = p[:-2] - 2 * p[1:-1] + p[2:]
    return np.sum(lap ** 2)


def irfft_lowpass(x, keep=3):
    X = np.fft.rfft(x)
    X[keep:] = 0.0
    smooth = np.fft.irfft(X, n=x.size)
    return np.sum((smooth - x) ** 2) + np.sum(smooth ** 4)


def polyval_fit(coef, t, y):
    return np.mean((np.polyval(coef, t) - y) ** 2)


def select_piecewise(x):
    return np.sum(np.select([x < -1.0, x < 1.0], [-2.0 * x - 1.0, x ** 2], default=2.0 * x - 1.0) ** 2)


def deque_window_integrator(x, leak=0.8, width=3):
    window = collections.deque(maxlen=width)
    state, total = 0.0, 0.0
    for v in x:
        state = leak * state + v
        window.append(state)
        total += sum(window) ** 2 / len(window)
    return total


# ---- library style ------------------------------------------------------------------------------


class Penalty(abc.ABC):
    @abc.abstractmethod
    def term(self, w): ...

    def __call__(self, w):
        return self.weight * self.term(w)


class SmoothL1(Penalty):
    weight = 0.3

    def term(self, w):
        return np.sum(np.sqrt(w ** 2 + 0.01))


def abc_penalised_loss(w, X, y, penalty=SmoothL1()):  # noqa: B008  read, never written
    return np.mean((X @ w - y) ** 2) + penalty(w)


class Activation(enum.Enum):
    TANH = "tanh"
    SOFTPLUS = "softplus"


def enum_activation(W, X, act=Activation.SOFTPLUS):
    z = X @ W
    h = np.tanh(z) if act is Activation.TANH else np.logaddexp(0.0, z)
    return np.sum(h ** 2)


DEFAULTS = {"l2": 0.1, "scale": 1.0, "power": 2}


def merged_config_loss(w, X, y, overrides=None):
    cfg = {**DEFAULTS, **(overrides or {})}
    r = (X @ w - y) * cfg["scale"]
    return np.mean(np.abs(r) ** cfg["power"]) + cfg["l2"] * np.sum(w ** 2)


@dataclasses.dataclass(frozen=True)
class Layer:
    W: np.ndarray
    gain: float = 1.0


def dataclasses_replace(W, X):
    layer = Layer(W)
    wide = dataclasses.replace(layer, gain=2.0)
    return np.sum(np.tanh(wide.gain * X @ wide.W) ** 2) + np.sum(layer.W ** 2)


class Params(NamedTuple):
    w: np.ndarray
    b: float


def namedtuple_replace_step(w, X, y, b=0.2, lr=0.1):
    params = Params(w, b)
    r = X @ params.w + params.b - y
    params = params._replace(w=params.w - lr * X.T @ r / len(y))
    return np.mean((X @ params.w + params.b - y) ** 2)


def _mse(r):
    return np.mean(r ** 2)


def _logcosh(r):
    return np.mean(np.log(np.cosh(r)))


LOSSES = {"mse": _mse, "logcosh": _logcosh}


def registry_loss(w, X, y, name="logcosh"):
    return LOSSES[name](X @ w - y) + LOSSES["mse"](w)


def nonlocal_counter_closure(w, X):
    total = 0.0

    def add(term):
        nonlocal total
        total = total + term
    for row in X:
        add(np.tanh(row @ w) ** 2)
    add(0.1 * w @ w)
    return total


def sum_map_rows(w, X):
    return sum(map(lambda row: np.log1p(np.exp(row @ w)), X))


def zip_star_transpose(pairs_w, xs):
    a_s, b_s = zip(*pairs_w)
    return sum(a * np.sin(x) + b * x ** 2 for a, b, x in zip(a_s, b_s, xs))


def errstate_block(x, w):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.log(x ** 2 + 0.5) / (1.0 + x ** 2)
    return np.sum(w * r)


def isinstance_branch(x, w):
    if isinstance(x, float):
        x = np.array([x])
    return np.sum(w[: x.size] * np.exp(-x ** 2))


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


STATISTICS10 = [
    ("w10_multinomial_gammaln", multinomial_gammaln, lambda r: (M(r, 4), np.array([3.0, 0.0, 5.0, 1.0])), 0),
    ("w10_skew_normal_log_ndtr", skew_normal_log_ndtr, lambda r: (np.array([0.2, -0.3, 1.5]), M(r, 7)), 0),
    ("w10_corrcoef_loss", corrcoef_loss, lambda r: (M(r, 3), M(r, 8, 3), M(r, 8)), 0),
    ("w10_quantile_spread", quantile_spread, lambda r: (np.array([0.3, -1.1, 2.0, 0.7, -0.4, 1.6]),), 0),
    ("w10_bincount_segment_means", bincount_segment_means, lambda r: (M(r, 7), np.array([0, 1, 1, 2, 0, 2, 2])), 0),
    ("w10_cholesky_solve_triangular", cholesky_solve_triangular, lambda r: (0.3 * M(r, 3, 3), M(r, 5, 3)), 0),
    ("w10_gamma_xlogy_loglik", gamma_xlogy_loglik, lambda r: (0.4, P(r, 6) * 3), 0),
    ("w10_beta_binomial_betaln", beta_binomial_betaln,
     lambda r: (np.array([0.3, 0.8]), np.array([2.0, 5, 0, 7]), np.array([8.0, 8, 8, 8])), 0),
]

SIGNAL10 = [
    ("w10_convolve_same_smoother", convolve_same_smoother, lambda r: (M(r, 7),), 0),
    ("w10_pad_reflect_laplacian", pad_reflect_laplacian, lambda r: (M(r, 6),), 0),
    ("w10_irfft_lowpass", irfft_lowpass, lambda r: (M(r, 8),), 0),
    ("w10_polyval_fit", polyval_fit, lambda r: (M(r, 3), np.linspace(-1, 1, 6), M(r, 6)), 0),
    ("w10_select_piecewise", select_piecewise, lambda r: (np.array([-2.3, -0.4, 0.6, 1.8]),), 0),
    ("w10_deque_window_integrator", deque_window_integrator, lambda r: (M(r, 5),), 0),
]

LIBRARY_STYLE10 = [
    ("w10_abc_penalised_loss", abc_penalised_loss, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("w10_enum_activation", enum_activation, lambda r: (M(r, 3, 2), M(r, 4, 3)), 0),
    ("w10_merged_config_loss", merged_config_loss, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("w10_merged_config_overrides", merged_config_loss, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5), {"power": 4}), 0),
    ("w10_dataclasses_replace", dataclasses_replace, lambda r: (0.5 * M(r, 3, 2), M(r, 4, 3)), 0),
    ("w10_namedtuple_replace_step", namedtuple_replace_step, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("w10_registry_loss", registry_loss, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("w10_nonlocal_counter_closure", nonlocal_counter_closure, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("w10_sum_map_rows", sum_map_rows, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("w10_zip_star_transpose", zip_star_transpose, lambda r: (M(r, 3, 2), M(r, 3)), 0),
    ("w10_errstate_block", errstate_block, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w10_isinstance_branch", isinstance_branch, lambda r: (M(r, 3), M(r, 4)), 0),
]

LIBRARY10 = STATISTICS10 + SIGNAL10 + LIBRARY_STYLE10
