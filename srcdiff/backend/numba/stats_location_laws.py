"""``scipy.stats``' location-scale laws of closed forms for numba: ``laplace``, ``logistic``,
``cauchy`` and ``expon`` (stats_calls.py spells ``scipy.stats.logistic.logcdf(x, loc, scale)``
as ``stats_logistic_logcdf(x, loc, scale)``, however the method was reached).

Each method is SciPy's formula of ``z = (x - loc) / scale`` (the ``_logpdf``, ``_cdf``,
``_logcdf``... of scipy/stats/_continuous_distns.py: ``log1p``/``expm1`` where SciPy has them,
the tails split where SciPy splits them, the log of the value where SciPy has no log form),
one numba ufunc per law taking the method's number,
so numbers and arrays broadcast together as SciPy's do (the methods are njit functions of
that ufunc, one per method, made below).  A scale that is not positive gives
NaN, and a point outside the support (expon's z < 0) SciPy's 0, 1 or -inf.  Their gradients
are the rules' (rules/scipy_stats.py), plain NumPy of the value and z.
"""

from __future__ import annotations

import math

from numba import njit, vectorize

from .naming import compiled

METHODS = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf")


@njit(cache=True)
def _log_expit(z):
    """SciPy's ``log_expit``: log(1 / (1 + exp(-z))) without overflow on either side."""
    return -math.log1p(math.exp(-z)) if z >= 0.0 else z - math.log1p(math.exp(z))


@njit(cache=True)
def _laplace(z, method):
    """SciPy's laplace has ``_pdf``, ``_cdf`` and ``_sf`` only: the logs are theirs (-inf far out)."""
    if method <= 1:
        density = 0.5 * math.exp(-abs(z))
        return math.log(density) if method == 0 else density
    w = z if method <= 3 else -z  # (the survival function is the cdf at -z)
    value = 1.0 - 0.5 * math.exp(-w) if w > 0.0 else 0.5 * math.exp(w)
    return math.log(value) if method == 3 or method == 5 else value


@njit(cache=True)
def _logistic(z, method):
    if method <= 1:
        y = -abs(z)
        log_density = y - 2.0 * math.log1p(math.exp(y))
        return log_density if method == 0 else math.exp(log_density)
    if method == 2:
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0.0 else math.exp(z) / (1.0 + math.exp(z))
    if method == 3:
        return _log_expit(z)
    if method == 4:
        return 1.0 / (1.0 + math.exp(z)) if z <= 0.0 else math.exp(-z) / (1.0 + math.exp(-z))
    return _log_expit(-z)


@njit(cache=True)
def _cauchy(z, method):
    if method == 0:
        return -math.log(math.pi) - math.log1p(z * z)
    if method == 1:
        return 1.0 / (math.pi * (1.0 + z * z))
    if method == 2 or method == 3:
        value = 0.5 + math.atan(z) / math.pi
    else:
        value = 0.5 - math.atan(z) / math.pi
    return math.log(value) if method == 3 or method == 5 else value


@njit(cache=True)
def _expon(z, method):
    inside = z >= 0.0
    if method == 0:
        return -z if inside else -math.inf
    if method == 1:
        return math.exp(-z) if inside else 0.0
    if method == 2:
        return -math.expm1(-z) if inside else 0.0
    if method == 3:
        return math.log(-math.expm1(-z)) if inside else -math.inf
    if method == 4:
        return math.exp(-z) if inside else 1.0
    return -z if inside else 0.0


@njit(cache=True)
def _scaled(value, scale, method):
    """A density divided by the scale (its log less log(scale)); probabilities as they are."""
    if method == 0:
        return value - math.log(scale)
    return value / scale if method == 1 else value


@vectorize(["float64(float64, float64, float64, int64)"], cache=True)
def _laplace_law(x, loc, scale, method):
    return _scaled(_laplace((x - loc) / scale, method), scale, method) if scale > 0.0 else math.nan


@vectorize(["float64(float64, float64, float64, int64)"], cache=True)
def _logistic_law(x, loc, scale, method):
    return _scaled(_logistic((x - loc) / scale, method), scale, method) if scale > 0.0 else math.nan


@vectorize(["float64(float64, float64, float64, int64)"], cache=True)
def _cauchy_law(x, loc, scale, method):
    return _scaled(_cauchy((x - loc) / scale, method), scale, method) if scale > 0.0 else math.nan


@vectorize(["float64(float64, float64, float64, int64)"], cache=True)
def _expon_law(x, loc, scale, method):
    return _scaled(_expon((x - loc) / scale, method), scale, method) if scale > 0.0 else math.nan


def _method(law, number: int):
    """``stats_<law>_<method>(x, loc, scale)``: the law's ufunc at the method's number."""
    def method(x, loc, scale):
        return law(x, loc, scale, number)
    return compiled(method)  # (a closure: named by its code and cells, naming.py)


LAWS = ("laplace", "logistic", "cauchy", "expon")
_UFUNCS = {"laplace": _laplace_law, "logistic": _logistic_law, "cauchy": _cauchy_law, "expon": _expon_law}
for _law in LAWS:
    for _number, _name in enumerate(METHODS):
        globals()[f"stats_{_law}_{_name}"] = _method(_UFUNCS[_law], _number)

__all__ = [f"stats_{law}_{method}" for law in LAWS for method in METHODS]
