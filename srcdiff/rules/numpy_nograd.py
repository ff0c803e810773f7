"""Functions whose value carries no gradient: constructors, shape and dtype queries,
comparisons and other piecewise-constant functions.

Their arguments may depend on the differentiated inputs (``np.zeros_like(x)``, ``x > 0``);
the result is still constant with respect to them, so nothing computed from it is active.
(Array attributes ``x.shape``, ``x.dtype``... are such values too; lowering makes them.)

Every value here is fresh: a new array (always, from a constructor), or a number, a tuple or
a bool (from a query).
"""

import numpy as np

from ..ir import shapes
from .table import FORMS, nograd


def _like(static, x=shapes.UNKNOWN, *rest):
    return shapes.array(x)


def _elementwise(static, *operands):
    return shapes.broadcast(*operands)


def _scalar(static, *operands):
    return shapes.SCALAR


def _matrix(static, *operands):
    # np.eye(N, M, k) and np.identity(n) are always 2-D: their lengths are not known here, but
    # the number of axes lets the rules of what is computed from them take their static forms
    # (np.trace's adjoint, np.tensordot's axes), which a second derivative reads back
    return shapes.Shape((shapes.UNKNOWN_DIM, shapes.UNKNOWN_DIM))


def _vector(static, *operands):
    # np.arange(start, stop) is 1-D whatever its bounds: a weight vector made from a length read
    # at run time (np.arange(1.0, len(x) + 1)) keeps its number of axes for the rules that need it
    return shapes.Shape((shapes.UNKNOWN_DIM,))


def _second(static, a=shapes.UNKNOWN, v=shapes.UNKNOWN, *rest):
    # np.searchsorted(a, v): one position per element of the values v looked up
    return shapes.broadcast(v)


def _first(static, x=shapes.UNKNOWN, *rest):
    # np.digitize(x, bins): one bin per element of x
    return shapes.broadcast(x)


def constructor(func, shape=None, refuses_active="", **symbolic):
    """A function that makes a new array from shapes and dtypes (or, with `refuses_active`,
    from values it gives no gradient: refused when they carry one)."""
    return nograd(func, ("args",), shape=shape, fresh=True, array_result=True, refuses_active=refuses_active,
                  **symbolic)


def query(func, shape=None, **symbolic):
    """A question about its arguments, answered by a new value: a number, a tuple, a bool."""
    return nograd(func, ("args",), shape=shape, fresh=True, **symbolic)


def piecewise(func, params=("x",), note="", **symbolic):
    return nograd(func, params, shape=_elementwise, note=note, fresh=True, batching="elementwise", **symbolic)


LOGIC = "boolean logic on symbolic comparisons"


RULES = [
    # ---- constructors ----
    constructor(np.zeros, sympy=FORMS + "zeros"),
    constructor(np.ones, sympy=FORMS + "ones"),
    constructor(np.empty, sympy=FORMS + "empty"),
    constructor(np.eye, shape=_matrix, sympy=FORMS + "eye"),
    constructor(np.identity, shape=_matrix, sympy=FORMS + "identity"),
    constructor(np.arange, shape=_vector, refuses_active="write start + step * np.arange(n) with a constant n",
                sympy=FORMS + "arange"),
    nograd(np.zeros_like, ("args",), shape=_like, fresh=True, array_result=True, batching="like",
           sympy=FORMS + "zeros_like"),
    nograd(np.ones_like, ("args",), shape=_like, fresh=True, array_result=True, batching="like",
           sympy=FORMS + "ones_like"),
    nograd(np.empty_like, ("args",), shape=_like, fresh=True, array_result=True, batching="like",
           sympy=FORMS + "empty_like"),
    # ---- shape and dtype queries ----
    query(np.shape, sympy=FORMS + "shape"),
    query(np.ndim, shape=_scalar, sympy=FORMS + "ndim"),
    query(np.size, shape=_scalar, sympy=FORMS + "size"),
    query(np.issubdtype, sympy="numpy.issubdtype"),
    # ---- piecewise constant: zero gradient almost everywhere ----
    piecewise(np.sign, note="sign'(x) = 0 everywhere, including x = 0", sympy="sympy.sign"),
    piecewise(np.floor, not_symbolic="sympy leaves the derivative of floor unevaluated"),
    piecewise(np.ceil, not_symbolic="sympy leaves the derivative of ceiling unevaluated"),
    piecewise(np.rint, not_symbolic="sympy has no round-half-to-even"),
    # rounding to `decimals` places: constant between the rounding points, like floor
    *[nograd(f, ("x",), static={"decimals": 0}, shape=_elementwise, fresh=True, batching="elementwise",
             note="zero gradient (piecewise constant; at a rounding point the one-sided derivatives are 0 too)",
             not_symbolic="sympy has no round-half-to-even")
      for f in dict.fromkeys([np.round, np.around])],
    piecewise(np.trunc, not_symbolic="sympy leaves the derivative of truncation unevaluated"),
    piecewise(np.fix, not_symbolic="sympy leaves the derivative of truncation unevaluated"),
    piecewise(np.isnan, sympy=FORMS + "isnan"),
    piecewise(np.isfinite, sympy=FORMS + "isfinite"),
    piecewise(np.isinf, sympy=FORMS + "isinf"),
    piecewise(np.greater,       ("x", "y"), sympy=FORMS + "greater"),
    piecewise(np.greater_equal, ("x", "y"), sympy=FORMS + "greater_equal"),
    piecewise(np.less,          ("x", "y"), sympy=FORMS + "less"),
    piecewise(np.less_equal,    ("x", "y"), sympy=FORMS + "less_equal"),
    piecewise(np.equal,         ("x", "y"), not_symbolic="equality of symbols is not a number"),
    piecewise(np.not_equal,     ("x", "y"), not_symbolic="equality of symbols is not a number"),
    piecewise(np.logical_and,   ("x", "y"), not_symbolic=LOGIC),
    piecewise(np.logical_or,    ("x", "y"), not_symbolic=LOGIC),
    piecewise(np.logical_not, not_symbolic=LOGIC),
    query(np.argmax, not_symbolic="an index chosen by comparing symbols", batching="along"),
    query(np.argmin, not_symbolic="an index chosen by comparing symbols", batching="along"),
    constructor(np.argsort, not_symbolic="an order chosen by comparing symbols", batching="along"),
    # positions of values among sorted ones: constant between the sorted values (a piecewise
    # hazard's interval of each time, a histogram's bin): no gradient to the values or the edges
    query(np.searchsorted, shape=_second, not_symbolic="a position chosen by comparing symbols"),
    query(np.digitize, shape=_first, not_symbolic="a position chosen by comparing symbols"),
    # positions: np.ix_'s open mesh of index vectors (K[np.ix_(dofs, dofs)] += ke in a loop)
    nograd(np.ix_, ("args",), not_symbolic="index vectors, not values of the differentiated inputs"),
]
