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
from .table import nograd


def _like(static, x=shapes.UNKNOWN, *rest):
    return shapes.array(x)


def _elementwise(static, *operands):
    return shapes.broadcast(*operands)


def _scalar(static, *operands):
    return shapes.SCALAR


def constructor(func, shape=None, refuses_active=""):
    """A function that makes a new array from shapes and dtypes (or, with `refuses_active`,
    from values it gives no gradient: refused when they carry one)."""
    return nograd(func, ("args",), shape=shape, fresh=True, array_result=True, refuses_active=refuses_active)


def query(func, shape=None):
    """A question about its arguments, answered by a new value: a number, a tuple, a bool."""
    return nograd(func, ("args",), shape=shape, fresh=True)


def piecewise(func, params=("x",), note="", sympy=None):
    return nograd(func, params, shape=_elementwise, note=note, fresh=True, sympy=sympy, batching="elementwise")


RULES = [
    # ---- constructors ----
    constructor(np.zeros),
    constructor(np.ones),
    constructor(np.empty),
    constructor(np.eye),
    constructor(np.identity),
    constructor(np.arange, refuses_active="write start + step * np.arange(n) with a constant n"),
    nograd(np.zeros_like, ("args",), shape=_like, fresh=True, array_result=True, batching="like"),
    nograd(np.ones_like, ("args",), shape=_like, fresh=True, array_result=True, batching="like"),
    nograd(np.empty_like, ("args",), shape=_like, fresh=True, array_result=True, batching="like"),
    # ---- shape and dtype queries ----
    query(np.shape),
    query(np.ndim, shape=_scalar),
    query(np.size, shape=_scalar),
    query(np.issubdtype),
    # ---- piecewise constant: zero gradient almost everywhere ----
    piecewise(np.sign, note="sign'(x) = 0 everywhere, including x = 0", sympy="sympy.sign"),
    piecewise(np.floor),
    piecewise(np.ceil),
    piecewise(np.rint),
    piecewise(np.isnan),
    piecewise(np.isfinite),
    piecewise(np.isinf),
    piecewise(np.greater,       ("x", "y")),
    piecewise(np.greater_equal, ("x", "y")),
    piecewise(np.less,          ("x", "y")),
    piecewise(np.less_equal,    ("x", "y")),
    piecewise(np.equal,         ("x", "y")),
    piecewise(np.not_equal,     ("x", "y")),
    piecewise(np.logical_and,   ("x", "y")),
    piecewise(np.logical_or,    ("x", "y")),
    piecewise(np.logical_not),
    query(np.argmax),
    query(np.argmin),
    constructor(np.argsort),
]
