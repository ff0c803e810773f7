"""sympy counterparts that sympy and NumPy have no function for, named by rules' `sympy` fact.

A rule records its counterpart once, in its own entry (``sympy="sympy.sin"``,
``sympy="numpy.reshape"``, ``sympy="srcdiff.rules.sympy_forms.log1p"``).  An elementwise
rule's counterpart computes one element (numbers or sympy symbols) and is mapped over arrays;
any other rule's takes the arrays themselves: NumPy object arrays of sympy values, on which
NumPy's own code is exact wherever it only moves, copies or adds up values.  Only a consumer
that asks for a counterpart (`Rule.sympy_function`) imports this module, and sympy with it.
"""

from __future__ import annotations

import operator

import numpy as np
import sympy as sp

from .sympy_comparisons import NotSymbolic, Truth, compare_one

# ---- one element: mapped over arrays by the consumer ----


def exp2(x):
    return 2 ** x


def expm1(x):
    return sp.exp(x) - 1


def log2(x):
    return sp.log(x) / sp.log(2)


def log10(x):
    return sp.log(x) / sp.log(10)


def log1p(x):
    return sp.log(1 + x)


def logaddexp(x, y):
    return sp.log(sp.exp(x) + sp.exp(y))


def hypot(x, y):
    return sp.sqrt(x * x + y * y)


def square(x):
    return x * x


def reciprocal(x):
    return 1 / x


def degrees(x):
    return x * 180 / sp.pi


def radians(x):
    return x * sp.pi / 180


def clip(x, a_min, a_max):
    """``np.clip`` of one element; a missing bound is None (at least one is given)."""
    if a_min is None:
        return sp.Min(x, a_max)
    return sp.Min(sp.Max(x, a_min), a_max) if a_max is not None else sp.Max(x, a_min)


def isnan(value):
    """np.isnan of one element: NaN in the data (sympy's ``nan`` once it met a symbol) is;
    a symbol is not (the derivative is taken where values are finite).  A NumPy bool, so
    that ``~`` negates it."""
    return np.bool_(value is sp.nan or (isinstance(value, (float, np.floating)) and value != value))


def isinf(value):
    return np.bool_(value in (sp.oo, -sp.oo, sp.zoo) or (isinstance(value, (float, np.floating))
                                                         and abs(value) == float("inf")))


def isfinite(value):
    return ~(isnan(value) | isinf(value))


def greater(x, y):
    return compare_one(operator.gt, x, y)


def greater_equal(x, y):
    return compare_one(operator.ge, x, y)


def less(x, y):
    return compare_one(operator.lt, x, y)


def less_equal(x, y):
    return compare_one(operator.le, x, y)


def where(condition, x, y):
    """One element of np.where: a symbolic condition selects with a ``Piecewise`` (the
    adjoints of ``np.maximum`` and ``clip`` select rather than multiply by a mask)."""
    if isinstance(condition, Truth):
        return condition.select(x, y)
    return x if condition else y


# ---- whole arrays: reductions, products and linear algebra ----


def _on_arrays(func):
    """A NumPy reduction or product; a sympy scalar operand becomes a 0-d object array."""
    def apply(*args, **kwargs):
        if not any(isinstance(a, np.ndarray) for a in args):  # sum/mean of a sympy scalar
            args = tuple(np.asarray(a, dtype=object) for a in args)
        out = func(*args, **kwargs)
        return out[()] if isinstance(out, np.ndarray) and out.ndim == 0 else out

    apply.__name__ = func.__name__
    return apply


total, mean, prod, var, dot = (_on_arrays(f) for f in (np.sum, np.mean, np.prod, np.var, np.dot))


def _not_nan(x):
    """The elements as an object array, and which of them are not NaN."""
    x = np.asarray(x, dtype=object)
    return x, ~np.vectorize(isnan, otypes=[bool])(x)


def nan_total(x, axis=None, keepdims=False):
    """np.nansum: the sum of the elements that are not NaN."""
    x, kept = _not_nan(x)
    return total(np.where(kept, x, 0), axis=axis, keepdims=keepdims)


def nan_mean(x, axis=None, keepdims=False):
    """np.nanmean: their mean (a group of NaN only is NaN, as in NumPy)."""
    x, kept = _not_nan(x)
    count = np.sum(kept, axis=axis, keepdims=keepdims)
    return total(np.where(kept, x, 0), axis=axis, keepdims=keepdims) / np.where(count == 0, np.nan, count)


def _extremum(pick):
    """np.max / np.min over object arrays: sympy's Max/Min folded along the axes."""
    fold = np.frompyfunc(pick, 2, 1)

    def apply(x, axis=None, keepdims=False):
        x = np.asarray(x, dtype=object)
        if axis is None:
            out = fold.reduce(x.reshape(-1), axis=0)
            return np.full((1,) * x.ndim, out, dtype=object) if keepdims else out
        axes = axis if isinstance(axis, tuple) else (axis,)
        for a in sorted({a % x.ndim for a in axes}, reverse=True):  # highest first: indices stay valid
            x = fold.reduce(x, axis=a, keepdims=keepdims)
        return x

    return apply


amax, amin = _extremum(sp.Max), _extremum(sp.Min)


def _nan_extremum(pick, skip):
    """np.nanmax / np.nanmin: the extremum of the elements that are not NaN (a NaN made `skip`)."""
    def apply(x, axis=None, keepdims=False):
        x, kept = _not_nan(x)
        return pick(np.where(kept, x, skip), axis, keepdims)

    return apply


nan_amax, nan_amin = _nan_extremum(amax, -sp.oo), _nan_extremum(amin, sp.oo)


def nan_var(x, axis=None, keepdims=False, ddof=0):
    """np.nanvar: the variance of the elements that are not NaN."""
    x, kept = _not_nan(x)
    count = np.sum(kept, axis=axis, keepdims=True)
    deviation = np.where(kept, x - total(np.where(kept, x, 0), axis=axis, keepdims=True) / count, 0)
    kept_count = np.sum(kept, axis=axis, keepdims=keepdims)
    return total(deviation * deviation, axis=axis, keepdims=keepdims) / (kept_count - ddof)


def nan_std(x, axis=None, keepdims=False, ddof=0):
    """np.nanstd: the square root of np.nanvar."""
    return _square_root(nan_var(x, axis, keepdims, ddof))


def ptp(x, axis=None, keepdims=False):
    """np.ptp: the largest minus the smallest."""
    return amax(x, axis, keepdims) - amin(x, axis, keepdims)


def _running(pick):
    """np.maximum.accumulate / np.minimum.accumulate over object arrays: sympy's Max/Min."""
    fold = np.frompyfunc(pick, 2, 1)
    return lambda x, axis=0: fold.accumulate(np.asarray(x, dtype=object), axis=axis)


maximum_accumulate, minimum_accumulate = _running(sp.Max), _running(sp.Min)


def logaddexp_reduce(x, axis=0, keepdims=False):
    """np.logaddexp.reduce: the log of the sum of the exponentials."""
    x = np.asarray(x, dtype=object)
    return np.frompyfunc(sp.log, 1, 1)(total(np.frompyfunc(sp.exp, 1, 1)(x), axis=axis, keepdims=keepdims))


def _square_root(x):
    return np.frompyfunc(sp.sqrt, 1, 1)(x) if isinstance(x, np.ndarray) else sp.sqrt(x)


def std(x, axis=None, keepdims=False, ddof=0):
    return _square_root(var(x, axis=axis, keepdims=keepdims, ddof=ddof))


def norm(x, ord=None, axis=None, keepdims=False):
    if ord not in (None, 2, "fro") or (ord == 2 and np.ndim(x) != 1 and axis is None):
        raise NotSymbolic(f"numpy.linalg.norm with ord={ord!r} has no sympy counterpart here")
    x = np.asarray(x, dtype=object)
    return _square_root(total(x * x, axis=axis, keepdims=keepdims))


def transpose(x):
    return x.T if isinstance(x, np.ndarray) else x


def _matrix(x) -> sp.Matrix:
    if np.ndim(x) != 2:
        raise NotSymbolic("sympy's linear algebra is for 2-D matrices; this one has "
                          f"{np.ndim(x)} dimension(s)")
    return sp.Matrix(np.asarray(x, dtype=object).tolist())


def _array(m: sp.Matrix, shape) -> np.ndarray:
    return np.array(m.tolist(), dtype=object).reshape(shape)


def inv(x):
    return _array(_matrix(x).inv(), np.shape(x))


def det(x):
    return _matrix(x).det()


def cofactor(x):
    """The cofactor matrix, the transposed adjugate (rules/decomposition_helpers.py)."""
    return _array(_matrix(x).adjugate().T, np.shape(x))


def slogdet(x):
    d = _matrix(x).det()
    return sp.sign(d), sp.log(sp.Abs(d))


def solve(a, b):
    column = np.reshape(np.asarray(b, dtype=object), (np.shape(b)[0], -1))
    return _array(_matrix(a).LUsolve(sp.Matrix(column.tolist())), np.shape(b))


# ---- conversions, queries and constructors ----


def _convert(func):
    """np.asarray(x, dtype=float) and kin: symbols stay symbols (the rule allows float dtypes only)."""
    def apply(x, dtype=None, **kwargs):
        out = func(x, **kwargs)
        numbers = isinstance(out, np.ndarray) and out.dtype.kind in "iub"
        return out.astype(dtype) if dtype is not None and numbers else out

    apply.__name__ = func.__name__
    return apply


asarray, array, asanyarray, ascontiguousarray = (
    _convert(f) for f in (np.asarray, np.array, np.asanyarray, np.ascontiguousarray))


def astype(x, dtype=None, **kwargs):
    return asarray(x, dtype)


def shape(a):
    return np.shape(np.asarray(a, dtype=object))  # sympy numbers have no .shape


def ndim(a):
    return np.ndim(np.asarray(a, dtype=object))


def size(a, axis=None):
    return np.size(np.asarray(a, dtype=object), axis)


def _holding_symbols(func):
    """A NumPy constructor whose float arrays are object arrays of the same values, so that
    symbols can be written into them (``y = np.zeros(3); y[0] = x``, and the scatter-adds
    of generated gradients); other dtypes (``dtype=int``, ``dtype=bool``) are NumPy's own."""
    def apply(*args, **kwargs):
        out = func(*args, **kwargs)
        return out.astype(object) if isinstance(out, np.ndarray) and out.dtype.kind == "f" else out

    apply.__name__ = func.__name__
    return apply


zeros, ones, full, eye, identity, arange, linspace, zeros_like, ones_like, full_like = (
    _holding_symbols(f) for f in (np.zeros, np.ones, np.full, np.eye, np.identity, np.arange, np.linspace,
                                  np.zeros_like, np.ones_like, np.full_like))


def _uninitialised(func):
    """np.empty / np.empty_like: an object array of None, so reading an element before
    writing it fails loudly (NumPy's own would hold arbitrary floats)."""
    def apply(*args, **kwargs):
        out = func(*args, **kwargs)
        if isinstance(out, np.ndarray) and out.dtype.kind == "f":
            return np.full(out.shape, None, dtype=object)
        return out

    apply.__name__ = func.__name__
    return apply


empty, empty_like = _uninitialised(np.empty), _uninitialised(np.empty_like)


def real_part(a, x):
    """np.real's adjoint helper on a real x: the adjoint itself."""
    return a
