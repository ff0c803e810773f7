"""SciPy's special functions for numba: numba compiles NumPy and ``math``, not SciPy, so the
``scipy.special`` functions that gradients call (``digamma`` in the adjoint of ``gammaln``,
the user's own ``expit``...) are written here from ``math``'s ``lgamma``/``erf``/``erfc``
and series, as ufuncs numba compiles (scipy_calls.py spells the calls as these).

Each is a function numba compiles (an `overload`) that applies its kernel to a number or to
every element of arrays broadcast together, and keeps float32 as float32, as SciPy's ufuncs
do.  The values agree with SciPy's to 1e-12 relative (1e-14 absolute where the value
crosses zero), at the poles and edges too (tests/transforms/test_numba_reach3.py):

* the gamma family: gamma_kernels.py;
* ``ndtr``/``log_ndtr``/``ndtri``: ``erf``/``erfc`` the way Cephes combines them, the
  asymptotic series of log_ndtr far in the lower tail, and Acklam's inverse polished by
  Halley steps;
* the Bessel functions, ``gammainc``/``gammaincc`` and their inverses, ``erfinv``/``erfcinv``:
  SciPy's own compiled code, called through ``cython_special`` (cython_special.py).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types

from . import cython_special, gamma_kernels
from .naming import overload
from .scipy_calls import ARITY, helper_name

INF = math.inf
NAN = math.nan
SQRT1_2 = 0.7071067811865476
LOG_SQRT_2PI = 0.9189385332046728  # log(sqrt(2 pi))
SQRT_2PI = 2.5066282746310002


@njit(cache=True)
def _expit(x):
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@njit(cache=True)
def _log_expit(x):
    if x < 0.0:
        return x - math.log1p(math.exp(x))
    return -math.log1p(math.exp(-x))


@njit(cache=True)
def _logit(x):
    if 0.3 < x < 0.7:  # 2x - 1 is exact there: no cancellation near 0.5
        return 2.0 * math.atanh(2.0 * x - 1.0)
    if x < 0.0 or x > 1.0:
        return NAN
    if x == 0.0:
        return -INF
    if x == 1.0:
        return INF
    return math.log(x / (1.0 - x))


@njit(cache=True)
def _ndtr(a):
    if math.isnan(a):
        return a
    x = a * SQRT1_2
    z = abs(x)
    if z < SQRT1_2:
        return 0.5 + 0.5 * math.erf(x)
    y = 0.5 * math.erfc(z)
    return 1.0 - y if x > 0.0 else y


@njit(cache=True)
def _log_ndtr(a):
    if math.isnan(a):
        return a
    if a > -1.0:  # log(1 - ndtr(-a)), as SciPy: exact as ndtr approaches 1
        return math.log1p(-0.5 * math.erfc(a * SQRT1_2))
    if a > -20.0:
        return math.log(0.5 * math.erfc(-a * SQRT1_2))
    # far in the lower tail: log of the asymptotic series of Mills' ratio
    z = 1.0 / (a * a)
    term, total, k = 1.0, 1.0, 1.0
    while True:
        term *= -(2.0 * k - 1.0) * z
        if abs(term) < 1e-17:
            break
        total += term
        k += 1.0
    return -0.5 * a * a - math.log(-a) - LOG_SQRT_2PI + math.log(total)


@njit(cache=True)
def _acklam(p):
    """Acklam's rational approximation of the normal quantile (relative error 1.2e-9)."""
    a = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
         1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
    b = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
         6.680131188771972e+01, -1.328068155288572e+01)
    c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
         -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00)
    if p < 0.02425:
        q = math.sqrt(-2.0 * math.log(p))
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0)
    q = p - 0.5
    r = q * q
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / \
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0)


@njit(cache=True)
def _ndtri_lower(p):
    """The normal quantile of 0 < p <= 0.5: Halley's steps on ndtr(x) = p, where ndtr is exact
    relatively."""
    x = _acklam(p)
    for _ in range(2):
        e = _ndtr(x) - p
        u = e * SQRT_2PI * math.exp(0.5 * x * x)
        x = x - u / (1.0 + 0.5 * x * u)
    return x


@njit(cache=True)
def _ndtri(p):
    if math.isnan(p) or p < 0.0 or p > 1.0:
        return NAN
    if p == 0.0:
        return -INF
    if p == 1.0:
        return INF
    if p > 0.5:  # the upper half from the lower: 1 - p is exact there
        return -_ndtri_lower(1.0 - p)
    return _ndtri_lower(p)


@njit(cache=True)
def _xlogy(x, y):
    if x == 0.0 and not math.isnan(y):
        return 0.0
    if y < 0.0:
        return NAN
    if y == 0.0:
        return -INF * x if x > 0.0 else (INF if x < 0.0 else NAN)
    return x * math.log(y)


@njit(cache=True)
def _xlog1py(x, y):
    if x == 0.0 and not math.isnan(y):
        return 0.0
    if y < -1.0:
        return NAN
    if y == -1.0:
        return -INF if x > 0.0 else (INF if x < 0.0 else NAN)
    return x * math.log1p(y)


@njit(cache=True)
def _entr(x):
    if math.isnan(x):
        return x
    if x > 0.0:
        return -x * math.log(x)
    return 0.0 if x == 0.0 else -INF


@njit(cache=True)
def _rel_entr(x, y):
    if math.isnan(x) or math.isnan(y):
        return NAN
    if x > 0.0 and y > 0.0:
        return x * math.log(x / y)
    if x == 0.0 and y >= 0.0:
        return 0.0
    return INF



def _float32(*operands) -> bool:
    """SciPy's result type: float32 where the arrays (or, with no array, the numbers) are."""
    arrays = [t for t in operands if isinstance(t, types.Array)]
    kinds = [t.dtype for t in arrays] if arrays else [t for t in operands if not isinstance(t, types.Integer)]
    return bool(kinds) and all(k == types.float32 for k in kinds)


def _supported(*operands) -> bool:
    return all(isinstance(t, (types.Number, types.Boolean)) or
               isinstance(t, types.Array) and isinstance(t.dtype, (types.Number, types.Boolean)) for t in operands)


def _unary(kernel):
    """The overload of a one-argument ufunc: the kernel on a number, or on every element."""
    def typer(x):
        if not _supported(x):
            return None
        dtype = np.float32 if _float32(x) else np.float64
        if not isinstance(x, types.Array):
            return lambda x: dtype(kernel(x))

        def each(x):
            out = np.empty(x.shape, dtype)
            flat = out.reshape(-1)
            for i, v in enumerate(x.flat):
                flat[i] = kernel(v)
            return out
        return each
    return typer


def _binary(kernel):
    """The overload of a two-argument ufunc, broadcast as NumPy broadcasts."""
    def typer(x, y):
        if not _supported(x, y):
            return None
        dtype = np.float32 if _float32(x, y) else np.float64
        if not isinstance(x, types.Array) and not isinstance(y, types.Array):
            return lambda x, y: dtype(kernel(x, y))

        def left(x, y):  # an array and a number
            out = np.empty(x.shape, dtype)
            flat = out.reshape(-1)
            for i, v in enumerate(x.flat):
                flat[i] = kernel(v, y)
            return out

        def right(x, y):
            out = np.empty(y.shape, dtype)
            flat = out.reshape(-1)
            for i, v in enumerate(y.flat):
                flat[i] = kernel(x, v)
            return out

        def pair(x, y):
            a, b = np.broadcast_arrays(x.astype(np.float64), y.astype(np.float64)) if mixed else \
                np.broadcast_arrays(x, y)
            out = np.empty(a.shape, dtype)
            flat = out.reshape(-1)
            for i, (u, v) in enumerate(zip(a.flat, b.flat)):
                flat[i] = kernel(u, v)
            return out

        if not isinstance(y, types.Array):
            return left
        if not isinstance(x, types.Array):
            return right
        mixed = x.dtype != y.dtype  # numba broadcasts arrays of one dtype only
        return pair
    return typer


def _from_scipy(name: str, arity: int):
    """The overload of SciPy's compiled `name`: its kernel is made when a call is typed."""
    def made(*operands):
        kernel = cython_special.kernel(name)
        if kernel is None:  # this SciPy lacks it: numba refuses the call at its line
            return None
        return (_unary(kernel) if arity == 1 else _binary(kernel))(*operands)

    def unary(x):  # (numba reads the typer's parameters: they must be the implementation's)
        return made(x)

    def binary(x, y):
        return made(x, y)
    return unary if arity == 1 else binary


#: helpers of other modules whose compiled code calls one of SciPy's compiled functions
CALLED_INSIDE = {f"stats_t_{method}": "stdtr" for method in ("cdf", "sf", "logcdf", "logsf")}


def prepare(helpers) -> None:
    """Register SciPy's compiled functions that the named helpers (``scipy_j0``...) call,
    before numba loads code that calls them from its cache (no call is typed then)."""
    for helper in helpers:
        name = helper[len("scipy_"):]
        if helper.startswith("scipy_") and name in cython_special.EXPORTS:
            cython_special.kernel(name)
        if helper in CALLED_INSIDE:  # (a law's function that calls SciPy's code: stats_t_mvn.py)
            cython_special.kernel(CALLED_INSIDE[helper])


def _ufunc(name: str, kernel, arity: int):
    """A function of SciPy's name numba compiles as `kernel` on every element; called outside
    numba, it is SciPy's own."""
    target = "psi" if name == "digamma" else name

    def stub(*args):
        import scipy.special
        return getattr(scipy.special, target)(*args)
    stub.__name__ = stub.__qualname__ = f"scipy_{name}"
    if name in cython_special.EXPORTS:
        overload(stub)(_from_scipy(name, arity))
    elif kernel is not None:
        overload(stub)(_unary(kernel) if arity == 1 else _binary(kernel))
    return stub


@njit(cache=True)
def _erf(x):
    return math.erf(x)


@njit(cache=True)
def _erfc(x):
    return math.erfc(x)


KERNELS = {"gammaln": gamma_kernels.gammaln, "gamma": gamma_kernels.gamma, "rgamma": gamma_kernels.rgamma,
           "digamma": gamma_kernels.digamma, "polygamma": gamma_kernels.polygamma, "betaln": gamma_kernels.betaln,
           "beta": gamma_kernels.beta, "erf": _erf, "erfc": _erfc, "ndtr": _ndtr, "log_ndtr": _log_ndtr,
           "ndtri": _ndtri, "expit": _expit, "log_expit": _log_expit, "logit": _logit, "xlogy": _xlogy,
           "xlog1py": _xlog1py, "entr": _entr, "rel_entr": _rel_entr}
for _name in ARITY:  # scipy_gammaln, scipy_digamma, ...: a name this SciPy lacks is refused when typed
    if _name != "psi":
        globals()[helper_name(_name)] = _ufunc(_name, KERNELS.get(_name), ARITY[_name])
HELPERS = tuple(sorted({helper_name(name) for name in ARITY}))
