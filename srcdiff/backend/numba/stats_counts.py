"""``scipy.stats.poisson``'s ``logpmf`` and ``pmf`` for numba (stats_calls.py spells
``scipy.stats.poisson.logpmf(k, mu, loc)`` as ``stats_poisson_logpmf(k, mu, loc)``).

SciPy's formula, ``xlogy(k, mu) - gammaln(k + 1) - mu`` of ``k - loc``, with the checks its
discrete machinery makes around it: a count that is not a whole number or lies below 0 has
probability 0 (log: -inf), a negative rate gives NaN; a rate of 0 puts all the mass at 0.
One numba ufunc, so counts and rates broadcast together as SciPy's do.  The gradient (to mu,
the count has none) is the rule's (rules/scipy_stats.py), plain NumPy of the value.
"""

from __future__ import annotations

import math

from numba import njit, vectorize


@vectorize(["float64(float64, float64, float64, int64)"], cache=True)
def _poisson(k, mu, loc, log):
    if not mu >= 0.0:
        return math.nan
    k = k - loc
    if k != k:  # (a NaN count: NaN, as SciPy's)
        return math.nan
    if k < 0.0 or math.floor(k) != k:
        return -math.inf if log else 0.0
    value = (0.0 if k == 0.0 else k * math.log(mu)) - math.lgamma(k + 1.0) - mu
    return value if log else math.exp(value)


@njit(cache=True)
def stats_poisson_logpmf(k, mu, loc):
    return _poisson(k, mu, loc, 1)


@njit(cache=True)
def stats_poisson_pmf(k, mu, loc):
    return _poisson(k, mu, loc, 0)


__all__ = ["stats_poisson_logpmf", "stats_poisson_pmf"]
