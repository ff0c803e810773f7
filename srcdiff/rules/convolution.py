"""Convolutions and correlations: ``np.convolve``, ``np.correlate`` (and, through
`conv_rule`, SciPy's N-D ones in rules/scipy_signal.py).

Every mode is a window of the *full* convolution ``F``: ``conv(x, y, mode) = F[s : s + L]``
along each axis, with `s` the mode's start (`window_start`) and ``L`` the result's length.
The adjoint first puts ``g`` back where the window took it from, ``gf`` (``g`` convolved with
a one-hot ``delta`` at `s`: zeros around ``g``; for mode "full", ``g`` itself), then

    convolve:  x_bar = correlate(gf, y, 'valid')    y_bar = correlate(gf, x, 'valid')
    correlate: x_bar = convolve(gf, y, 'valid')     y_bar = correlate(x, gf, 'valid')

— ``gf`` is as long as the full result, so each is a plain 'valid' window, and every term is
a convolution again, with a rule: a gradient of a gradient finds these rules once more.  The
lengths are read when the code runs (a signature knows only which axes have length one).
Operands are real: a complex kernel's correlate conjugates, which these templates do not.
"""

from __future__ import annotations

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from ..ir.shapes import MANY, ONE, UNKNOWN_DIM
from .table import qualified_name, rule

MODES = ("full", "same", "valid")

#: where mode "same" starts its window, per family, from the lengths X, Y of the axis
SAME_STARTS = {
    "scipy": "({Y} - 1) // 2",                    # centred on the full result, length X
    "scipy_2d_correlate": "{Y} // 2",             # correlate2d centres the other way
    "numpy_convolve": "(np.minimum({X}, {Y}) - 1) // 2",   # length max(X, Y)
    "numpy_correlate": "(({Y} - 1) // 2 if {X} >= {Y} else {X} // 2)",
}


def window_start(mode: str, same: str, X: str, Y: str) -> str:
    """The start of `mode`'s window in the full result along one axis of lengths X, Y."""
    if mode == "valid":
        return f"np.minimum({X}, {Y}) - 1"
    return SAME_STARTS[same].format(X=X, Y=Y)


def _lengths(p: str, q: str, ndim: int, numpy: bool):
    if numpy:
        return [(f"np.size({p})", f"np.size({q})", "np.size(g)")]
    return [(f"np.shape({p})[{i}]", f"np.shape({q})[{i}]", f"np.shape(g)[{i}]") for i in range(ndim)]


def _delta(mode: str, same: str, axes) -> str:
    """The one-hot array whose full convolution with g puts g where the window took it."""
    hots = []
    for i, (X, Y, L) in enumerate(axes):
        hot = f"np.eye({X} + {Y} - {L})[{window_start(mode, same, X, Y)}]"
        tail = len(axes) - 1 - i
        hots.append(f"{hot}[:{', None' * tail}]" if tail else hot)
    return " * ".join(hots)


def _ndim(static, operand_shapes, params, name) -> int | None:
    dims = [operand_shapes[p].ndim for p in params]
    known = [d for d in dims if d is not None]
    if known and any(d != known[0] for d in known):
        raise SrcDiffError(f"{name} needs operands of one ndim", hint="reshape them to the same number of axes")
    return known[0] if known else None


def conv_templates(kind: str, conv: str, corr: str, same: str, params, name: str, keywords: str = "",
                   numpy: bool = False):
    """The adjoint templates of a convolution (`kind` "convolve") or correlation ("correlate")
    whose library spells them `conv` and `corr` (``np.convolve``), for rule `name`."""
    p, q = params

    def templates(static, operand_shapes):
        mode = static["mode"]
        if mode not in MODES:
            raise SrcDiffError(f"{name} with mode={mode!r} has no adjoint rule", hint="use 'full', 'same' or 'valid'")
        ndim = 1 if numpy else _ndim(static, operand_shapes, params, name)
        if mode == "full":
            gf = "g"
        elif ndim is None:
            raise SrcDiffError(f"{name} with mode={mode!r} needs operands of known ndim",
                               hint="pass arrays as arguments, or use mode='full' and slice the result")
        else:
            gf = f"{conv}(g, {_delta(mode, same, _lengths(p, q, ndim, numpy))}, 'full'{keywords})"
        if kind == "convolve":
            return {p: f"{corr}({gf}, {q}, 'valid'{keywords})", q: f"{corr}({gf}, {p}, 'valid'{keywords})"}
        return {p: f"{conv}({gf}, {q}, 'valid'{keywords})", q: f"{corr}({p}, {gf}, 'valid'{keywords})"}

    return templates


def conv_tangents(func: str, params, statics):
    """Bilinear: ``f(x_dot, y) + f(x, y_dot)``, with the same static arguments."""
    p, q = params
    rest = "".join(f", {k}={k}" for k in statics)
    return {p: f"{func}({p}_dot, {q}{rest})", q: f"{func}({p}, {q}_dot{rest})"}


def _dim(mode: str, numpy: bool, a: str, b: str) -> str:
    if a == ONE and b == ONE:
        return ONE
    if mode == "same" and not numpy:
        return a
    if mode == "valid" and a != ONE and b != ONE:
        return UNKNOWN_DIM  # |X - Y| + 1 may be one
    return MANY if UNKNOWN_DIM not in (a, b) or mode != "valid" else UNKNOWN_DIM


def conv_shape(numpy: bool):
    """The result's `Shape`: ONE / MANY per axis where the operands' lengths tell."""
    def shape(static, x, y):
        if not (x.known and y.known) or x.ndim != y.ndim:
            return shapes.UNKNOWN
        return shapes.Shape(tuple(_dim(static.get("mode", "full"), numpy, a, b) for a, b in zip(x.dims, y.dims)))
    return shape


def conv_rule(func, kind: str, conv: str, corr: str, same: str, params, statics: dict, *, name=None,
              keywords: str = "", numpy: bool = False, note: str = "", call: str = "", **facts):
    """The rule of one convolution or correlation function (`call`: as generated code spells
    it, for its tangent; by default `conv` or `corr`)."""
    name = name or qualified_name(func)
    call = call or (conv if kind == "convolve" else corr)
    return rule(func, params, conv_templates(kind, conv, corr, same, params, name, keywords, numpy),
                static=statics, shape=conv_shape(numpy), fresh=True, array_result=True,
                tangents=conv_tangents(call, params, statics), name=name, note=note, **facts)


RULES = [
    conv_rule(np.convolve, "convolve", "np.convolve", "np.correlate", "numpy_convolve", ("a", "v"),
              {"mode": "full"}, numpy=True, note="1-D real operands; modes full, same, valid",
              sympy="numpy.convolve"),  # NumPy's own: exact on object arrays
    conv_rule(np.correlate, "correlate", "np.convolve", "np.correlate", "numpy_correlate", ("a", "v"),
              {"mode": "valid"}, numpy=True, note="1-D real operands; modes full, same, valid",
              sympy="numpy.correlate"),
]
