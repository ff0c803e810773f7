"""``scipy.stats`` spellings of reach12b_programs.py's table: the moments ``mean``/``var``/``std`` of a law
(``stats.gamma.mean(a, scale=s)``) and frozen laws (``d = stats.gamma(a, scale=2.0)``, then ``d.logpdf(x)``,
``d.mean()``; inline, rebound after, in a loop)."""

import numpy as np
import scipy.stats
from scipy import stats


def gamma_poisson(params, k):
    log_a, log_b = params
    lam = scipy.stats.gamma.mean(np.exp(log_a), scale=np.exp(-log_b))
    return -np.sum(scipy.stats.poisson.logpmf(k, lam)) - scipy.stats.gamma.logpdf(lam, 2.0)


def frozen_gamma(a):
    d = stats.gamma(a, scale=2.0)
    return d.logpdf(1.5) + d.mean() + d.var() + d.std()


def frozen_beta(x):
    d = stats.beta(2.0 + x[0] ** 2, 3.0 + x[1] ** 2, scale=1.5)
    return d.mean() + d.var() + np.sum(d.logpdf(np.array([0.2, 0.7])))


def lognorm_inline(s, x):
    return np.sum(stats.lognorm(s, scale=2.0).logpdf(x)) + stats.lognorm.mean(s, scale=2.0) + stats.lognorm(s).var()


def frozen_before_rebinding(a):
    d = stats.gamma(a)
    a = a * 2.0
    return d.logpdf(1.2) * a + d.std()


def frozen_in_a_loop(mu, x):
    total = 0.0
    for m in [mu, 2.0 * mu]:
        d = stats.norm(m, 1.5)
        total = total + np.sum(d.logpdf(x)) + d.cdf(0.3)
    return total


def several_moments(a):
    return stats.chi2.var(a) + stats.expon.mean(scale=a) + stats.laplace.std(0.0, a) + stats.poisson.var(a)



def _M(r, *shape):
    return 0.5 * r.normal(size=shape)


STATS_PROGRAMS = [
    ("gamma_poisson", gamma_poisson, lambda r: (np.array([0.5, 0.2]), np.array([0, 2, 1, 4])), 0),
    ("frozen_gamma", frozen_gamma, lambda r: (1.7,), 0),
    ("frozen_beta", frozen_beta, lambda r: (np.array([0.3, 0.7]),), 0),
    ("lognorm_inline", lognorm_inline, lambda r: (0.6, np.array([0.5, 1.7])), 0),
    ("frozen_before_rebinding", frozen_before_rebinding, lambda r: (1.7,), 0),
    ("frozen_in_a_loop", frozen_in_a_loop, lambda r: (0.4, _M(r, 2)), 0),
    ("several_moments", several_moments, lambda r: (1.3,), 0),
]
