"""``scipy.stats.norm``'s methods under jit="numba" (backend/numba/stats_laws.py): the numba
versions agree with SciPy's values (tails, arrays, NaN where the scale is not positive), and
programs that call them (Black-Scholes, a mixture density network, probit and survival
likelihoods) go through every transformation, numba agreeing with central differences.

The first program runs by default; the others are marked slow (numba compiles for seconds).
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")
scipy_stats = pytest.importorskip("scipy.stats")
from scipy.stats import norm  # noqa: E402

from tests.transforms import corpus, matrix  # noqa: E402

METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")


@pytest.mark.parametrize("method", METHODS)
def test_numba_methods_agree_with_scipy(method):
    from numba import njit

    from srcdiff.backend.numba import stats_laws

    stub = getattr(stats_laws, f"stats_norm_{method}")
    run = njit(lambda x, loc, scale: stub(x, loc, scale))
    x = np.concatenate([np.linspace(-40.0, 40.0, 81), [-7.5, -0.3, 0.0, 1e-9, 2.5]])
    loc = np.linspace(-1.0, 1.0, x.size)
    scale = np.linspace(0.2, 3.0, x.size)
    scale_with_bad = scale.copy()
    scale_with_bad[[3, 10]] = [0.0, -1.0]
    want_kw = dict(rtol=1e-12, atol=1e-300)
    for args in ((x, 0.0, 1.0), (x, loc, scale), (x, 0.5, 2.0), (x, loc, scale_with_bad), (0.7, -0.2, 1.5)):
        want = getattr(norm, method)(*args)
        got = run(*args)
        np.testing.assert_allclose(got, want, **want_kw, equal_nan=True)
    assert np.isnan(run(0.3, 0.0, -2.0)) and np.isnan(run(0.3, 0.0, 0.0))


def black_scholes(S, K=1.0, r=0.01, T=1.0, sigma=0.2):
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return np.sum(S * norm.cdf(d1) - K * np.exp(-r * T) * norm.cdf(d2))


def black_scholes_volatility(sigma, S=np.array([0.9, 1.0, 1.2]), K=1.0, T=0.5):  # noqa: B008  read only
    d1 = (np.log(S / K) + 0.5 * sigma ** 2 * T) / (sigma * np.sqrt(T))
    return np.sum(S * scipy_stats.norm.cdf(d1) - K * scipy_stats.norm.cdf(d1 - sigma * np.sqrt(T)))


def mixture_density(W, X, y):
    h = X @ W
    mu, log_s = h[:, :2], h[:, 2:]
    comp = scipy_stats.norm.logpdf(y[:, None], loc=mu, scale=np.exp(log_s))
    return -np.sum(np.logaddexp(comp[:, 0], comp[:, 1]))


def probit_likelihood(w, X, y):
    z = X @ w
    return -np.sum(y * norm.logcdf(z) + (1.0 - y) * norm.logsf(z))


def survival_density(theta, t):
    loc, scale = theta[0], np.exp(theta[1])
    return np.sum(norm.pdf(t, loc, scale) + norm.sf(t, loc=loc, scale=scale))


PROGRAMS = [
    ("black_scholes", black_scholes, lambda r: (r.uniform(0.7, 1.3, size=4),), 0),
    ("black_scholes_volatility", black_scholes_volatility, lambda r: (0.25,), 0),
    ("mixture_density", mixture_density, lambda r: (0.3 * r.normal(size=(3, 4)), r.normal(size=(5, 3)),
                                                    r.normal(size=5)), 0),
    ("probit_likelihood", probit_likelihood, lambda r: (r.normal(size=3), r.normal(size=(6, 3)),
                                                        (r.uniform(size=6) > 0.5).astype(float)), 0),
    ("survival_density", survival_density, lambda r: (np.array([0.2, -0.3]), r.uniform(-1.0, 1.0, size=5)), 0),
]


def programs():
    return corpus.first_in_default_run(corpus.from_table(PROGRAMS, "stats_norm", "test_numba_stats_norm", 5))


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_every_transformation_numba_included(program):
    matrix.assert_numba_included(program)
