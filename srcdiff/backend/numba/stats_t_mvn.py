"""``scipy.stats.t``'s and ``scipy.stats.multivariate_normal``'s methods for numba
(stats_calls.py spells the calls as these):

* ``t.logpdf``/``pdf``/``cdf``/``sf``/``logcdf``/``logsf`` of ``(x, df, loc, scale)``, numbers or
  arrays broadcast together: the log density from ``math.lgamma`` and ``log1p`` (SciPy's
  formula; an infinite ``df`` is the normal law, as SciPy's), the distribution function SciPy's
  own compiled ``stdtr`` (cython_special.py).  A ``df`` or a scale that is not positive gives
  NaN, as SciPy's;
* ``multivariate_normal.logpdf``/``pdf`` of a point ``(d,)`` or of rows ``(n, d)``, a mean of
  ``(d,)`` (or a number) and a covariance matrix ``(d, d)``: through its Cholesky factor
  (SciPy's eigendecomposition gives the same to rounding); a matrix that is not positive
  definite raises, as SciPy's ``LinAlgError``, and the Python gradient says so at your line.
  A covariance given as a number or a diagonal, or points of more axes, are left to numba,
  which refuses them at the user's line.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types, vectorize

from .naming import overload
from .special import scipy_stdtr
from .stats_laws import positive

LOG_SQRT_2PI = 0.9189385332046728  # log(sqrt(2 pi))
LOG_2PI = 1.8378770664093453


@njit(cache=True)
def _log_half_poch(a):
    """``log(Gamma(a + 1/2) / Gamma(a))``: two lgammas below 25; above, where they would cancel
    (each near a log a), its asymptotic series (error below 1e-15 relative there)."""
    if a < 25.0:
        return math.lgamma(a + 0.5) - math.lgamma(a)
    return 0.5 * math.log(a) - 1.0 / (8.0 * a) + 1.0 / (192.0 * a ** 3) - 1.0 / (640.0 * a ** 5) \
        + 17.0 / (14336.0 * a ** 7)


@vectorize(["float64(float64, float64)"], cache=True)
def _t_log_density(z, df):
    """The log density of the standard t law with `df` degrees of freedom at `z` (SciPy's
    ``log(poch(df / 2, 1 / 2)) - log(df pi) / 2 - (df + 1) / 2 log1p(z^2 / df)``)."""
    if not df > 0.0:
        return math.nan
    if math.isinf(df):
        return -0.5 * z * z - LOG_SQRT_2PI
    return _log_half_poch(0.5 * df) - 0.5 * math.log(df * math.pi) - 0.5 * (df + 1.0) * math.log1p(z * z / df)


@njit(cache=True)
def _z(x, loc, scale):
    return (x - loc) / positive(scale)


@njit(cache=True)
def _df(df):
    return positive(df)


@njit(cache=True)
def stats_t_logpdf(x, df, loc, scale):
    return _t_log_density(_z(x, loc, scale), df) - np.log(scale)


@njit(cache=True)
def stats_t_pdf(x, df, loc, scale):
    return np.exp(_t_log_density(_z(x, loc, scale), df)) / positive(scale)


def _distribution(upper: bool, log: bool):
    """The implementation of ``t.cdf`` (`upper`: ``sf``; `log`: their logs): SciPy's ``stdtr``
    of ``z``, typed where it is called (an overload, not a cached function of its own: the
    kernel's name is registered when it is typed, or by special.prepare before cached code
    that calls it loads: special.CALLED_INSIDE).  The logs are SciPy's: the log of the tail
    below the median, ``log1p`` of minus the other tail above it."""
    sign = -1.0 if upper else 1.0
    if log:
        def logged(x, df, loc, scale):
            w, d = sign * _z(x, loc, scale), _df(df)
            return choose(w < 0.0, np.log(scipy_stdtr(d, w)), np.log1p(-scipy_stdtr(d, -w)))
        return logged
    return lambda x, df, loc, scale: scipy_stdtr(_df(df), sign * _z(x, loc, scale))


def choose(test, a, b):
    return np.where(test, a, b)


@overload(choose)
def _choose(test, a, b):
    """``np.where`` that keeps numbers numbers (numba's gives a 0-d array)."""
    if isinstance(test, types.Array) or isinstance(a, types.Array) or isinstance(b, types.Array):
        return lambda test, a, b: np.where(test, a, b)
    return lambda test, a, b: a if test else b


def stats_t_cdf(x, df, loc, scale):
    return _law().cdf(x, df, loc, scale)


def stats_t_sf(x, df, loc, scale):
    return _law().sf(x, df, loc, scale)


def stats_t_logcdf(x, df, loc, scale):
    return _law().logcdf(x, df, loc, scale)


def stats_t_logsf(x, df, loc, scale):
    return _law().logsf(x, df, loc, scale)


def _law():
    import scipy.stats
    return scipy.stats.t


@overload(stats_t_cdf)
def _t_cdf(x, df, loc, scale):
    return _distribution(False, False)


@overload(stats_t_sf)
def _t_sf(x, df, loc, scale):
    return _distribution(True, False)


@overload(stats_t_logcdf)
def _t_logcdf(x, df, loc, scale):
    return _distribution(False, True)


@overload(stats_t_logsf)
def _t_logsf(x, df, loc, scale):
    return _distribution(True, True)


def stats_multivariate_normal_logpdf(x, mean, cov):
    import scipy.stats
    return scipy.stats.multivariate_normal.logpdf(x, mean, cov)


def stats_multivariate_normal_pdf(x, mean, cov):
    import scipy.stats
    return scipy.stats.multivariate_normal.pdf(x, mean, cov)


@njit(cache=True)
def _mvn_rows(rows, mean, cov):
    """The log densities of the rows of `rows` (n, d)."""
    d = cov.shape[0]
    if rows.shape[1] != d:
        raise ValueError("multivariate_normal: the points' last axis does not match the covariance")
    lower = np.linalg.cholesky(np.ascontiguousarray(cov).astype(np.float64))
    log_det = 0.0
    for i in range(d):
        log_det += 2.0 * math.log(lower[i, i])
    deviations = np.ascontiguousarray((rows - mean).T)
    out = np.empty(rows.shape[0])
    for k in range(rows.shape[0]):  # forward substitution: L y = x - mean, then |y|^2
        y = np.empty(d)
        total = 0.0
        for i in range(d):
            s = deviations[i, k]
            for j in range(i):
                s -= lower[i, j] * y[j]
            y[i] = s / lower[i, i]
            total += y[i] * y[i]
        out[k] = -0.5 * (d * LOG_2PI + log_det + total)
    return out


def _mvn(x, mean, cov, scaled: bool):
    if not (isinstance(x, types.Array) and x.ndim in (1, 2) and isinstance(cov, types.Array) and cov.ndim == 2
            and (isinstance(mean, types.Number) or isinstance(mean, types.Array) and mean.ndim == 1)):
        return None
    number_mean = isinstance(mean, types.Number)  # SciPy reads a number as the mean of one axis
    if x.ndim == 1:
        def point(x, mean, cov):
            if number_mean and cov.shape[0] != 1:
                raise ValueError("multivariate_normal: a number as the mean of several axes")
            if cov.shape[0] == 1 and x.shape[0] != 1:  # SciPy reads a vector as n points of one axis
                raise ValueError("multivariate_normal of one axis: a vector is n points")
            value = _mvn_rows(x.reshape((1, x.shape[0])), mean, cov)[0]
            return math.exp(value) if scaled else value
        return point

    def rows(x, mean, cov):
        if number_mean and cov.shape[0] != 1:
            raise ValueError("multivariate_normal: a number as the mean of several axes")
        values = _mvn_rows(x, mean, cov)
        return np.exp(values) if scaled else values
    return rows


@overload(stats_multivariate_normal_logpdf)
def _mvn_logpdf(x, mean, cov):
    return _mvn(x, mean, cov, False)


@overload(stats_multivariate_normal_pdf)
def _mvn_pdf(x, mean, cov):
    return _mvn(x, mean, cov, True)


def stats_multivariate_normal_covariance(cov, diagonal):
    return cov if np.ndim(cov) == 2 else np.diag(diagonal)


@overload(stats_multivariate_normal_covariance)
def _covariance(cov, diagonal):
    """The covariance matrix the gradient reads: `cov` if it is one, else the diagonal matrix of
    `diagonal` (``np.ones(d) * cov``, a number or a vector)."""
    if isinstance(cov, types.Array) and cov.ndim == 2:
        return lambda cov, diagonal: cov
    if isinstance(diagonal, types.Array) and diagonal.ndim == 1:
        return lambda cov, diagonal: np.diag(diagonal)
    return None


HELPERS = ()

__all__ = ["HELPERS", "stats_multivariate_normal_covariance", "stats_multivariate_normal_logpdf",
           "stats_multivariate_normal_pdf", "stats_t_cdf", "stats_t_logcdf", "stats_t_logpdf", "stats_t_logsf",
           "stats_t_pdf", "stats_t_sf"]
