"""``scipy.stats.norm``'s methods for numba (stats_calls.py spells the calls as these), from
SciPy's special functions of ``z = (x - loc) / scale`` as special.py has them: the same
formulas SciPy's normal law uses (``ndtr``, ``log_ndtr``, ``ndtri``), on numbers or arrays
broadcast together.  A scale that is not positive gives NaN, as SciPy's."""

from __future__ import annotations

import numpy as np
from numba import njit, types

from .naming import overload
from .special import scipy_log_ndtr, scipy_ndtr, scipy_ndtri

LOG_SQRT_2PI = 0.9189385332046728  # log(sqrt(2 pi))


def positive(scale):
    return np.where(scale > 0.0, scale, np.nan)


@overload(positive)
def _positive(scale):
    """The scale where it is positive, else NaN: a number stays a number (numba's np.where of
    a number is a 0-d array, which a number cannot be joined with)."""
    if isinstance(scale, types.Array):
        return lambda scale: np.where(scale > 0.0, scale, np.nan)
    return lambda scale: scale if scale > 0.0 else np.nan


@njit(cache=True)
def _z(x, loc, scale):
    return (x - loc) / positive(scale)


@njit(cache=True)
def stats_norm_logpdf(x, loc, scale):
    z = _z(x, loc, scale)
    return -0.5 * z * z - LOG_SQRT_2PI - np.log(scale)


@njit(cache=True)
def stats_norm_pdf(x, loc, scale):
    z = _z(x, loc, scale)
    return np.exp(-0.5 * z * z - LOG_SQRT_2PI) / positive(scale)  # (a scale of 0: NaN, not ZeroDivisionError)


@njit(cache=True)
def stats_norm_cdf(x, loc, scale):
    return scipy_ndtr(_z(x, loc, scale))


@njit(cache=True)
def stats_norm_logcdf(x, loc, scale):
    return scipy_log_ndtr(_z(x, loc, scale))


@njit(cache=True)
def stats_norm_sf(x, loc, scale):
    return scipy_ndtr(-_z(x, loc, scale))


@njit(cache=True)
def stats_norm_logsf(x, loc, scale):
    return scipy_log_ndtr(-_z(x, loc, scale))


@njit(cache=True)
def stats_norm_ppf(q, loc, scale):
    return loc + positive(scale) * scipy_ndtri(q)
