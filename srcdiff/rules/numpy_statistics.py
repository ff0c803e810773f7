"""NumPy's weighted means, covariances and correlation coefficients.

With the deviations ``Xc = x - mean`` (variables in rows) and ``C = Xc Xc^T / k``, the
adjoint of ``np.cov`` is ``(G + G^T) Xc / k``; ``np.corrcoef`` (``R = C / (s s^T)``, ``s``
the standard deviations) adds the chain through ``s``, ``-(a^2 (rowsum(G R) + colsum(G R)))
Xc / k`` with ``a = 1 / s``.  The normalisation k cancels in R, so any k serves there.
"""

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from . import table

rule = table.numerically_checked(table.rule)


def _spread(g: str, static, ndim) -> str:
    axis = static["axis"]
    if axis is None or static.get("keepdims") or not ndim:
        return g
    return f"np.expand_dims({g}, {axis})"


def _average_parts(static, operand_shapes):
    if static["returned"]:
        raise SrcDiffError("numpy.average with returned=True has no adjoint rule",
                           hint="compute the sum of the weights separately")
    x, w, axis = operand_shapes["x"], operand_shapes["weights"], static["axis"]
    if w.none or (w.known and x.known and w.ndim == x.ndim):
        return "weights", "np.sum(weights, axis=axis, keepdims=True)", None
    if not (x.known and w.known and w.ndim == 1 and isinstance(axis, int)):
        raise SrcDiffError("numpy.average with weights of another shape than x has no adjoint rule here",
                           hint="pass weights of x's shape, or 1-D weights with one axis")
    axis %= x.ndim
    along = tuple(-1 if a == axis else 1 for a in range(x.ndim))
    return f"np.reshape(weights, {along})", "np.sum(weights)", tuple(a for a in range(x.ndim) if a != axis)


def _average_templates(static, operand_shapes):
    x = operand_shapes["x"]
    if not x.known or not (operand_shapes["weights"].known or operand_shapes["weights"].none):
        return {}
    g = _spread("g", static, x.ndim)
    if operand_shapes["weights"].none:
        return {"x": f"np.full(np.shape(x), {g} * (np.size(ans) / np.size(x)))"}
    weights, total, others = _average_parts(static, operand_shapes)
    deviations = f"{g} * (x - {_spread('ans', static, x.ndim)}) / {total}"
    return {"x": f"{g} * {weights} / {total}",
            "weights": deviations if others is None else f"np.sum({deviations}, axis={others})"}


def _average_tangents(static, operand_shapes):
    if not _average_templates(static, operand_shapes):
        return {}
    x = operand_shapes["x"]
    if operand_shapes["weights"].none:
        return {"x": "np.mean(x_dot, axis=axis, keepdims=keepdims)"}
    weights, total, others = _average_parts(static, operand_shapes)
    over = "np.sum({}, axis=axis, keepdims=keepdims)"
    total = over.format(weights)
    w_dot = "weights_dot" if others is None else weights.replace("weights", "weights_dot", 1)
    mean = _spread("ans", static, x.ndim)
    return {"x": f"{over.format(f'x_dot * {weights}')} / {total}",
            "weights": f"{over.format(f'{w_dot} * (x - {mean})')} / {total}"}


def _average_shape(static, x, weights):
    return shapes.reduce(x, static["axis"], static["keepdims"])


# ---- covariance and correlation ----

def _check_cov(static, operand_shapes):
    unsupported = [k for k in ("y", "fweights", "aweights") if static.get(k) is not None]
    if unsupported:
        raise SrcDiffError(f"numpy.cov/corrcoef with {', '.join(unsupported)} has no adjoint rule",
                           hint="stack the variables into one array: np.cov(np.stack([x, y]))")
    x = operand_shapes["x"]
    if not x.known:  # (np.stack of a list): NumPy's own rows, 1-D or 2-D alike
        rows = _ROWS if static["rowvar"] else _columns("x")
        return rows, _deviations(rows), None
    if x.ndim not in (1, 2):
        raise SrcDiffError("numpy.cov/corrcoef of an operand that is not 1-D or 2-D has no adjoint rule")
    rows = "x" if static["rowvar"] or x.ndim == 1 else "x.T"
    return rows, _deviations(rows), x.ndim


#: the variables as rows, whatever x's number of axes, as NumPy makes them with rowvar=True
_ROWS = "np.atleast_2d(x)"


def _columns(x: str) -> str:
    """The variables as rows with rowvar=False, as NumPy 2 makes them whatever x's number of axes:
    ``np.atleast_2d(x)`` (r rows of c values) transposed, unless x is 1-D (then it is one variable).
    Written as a reshape of the transpose to (c, r), or (1, c) for a 1-D x, so no axis depends on the
    run (a gradient of it differentiates again)."""
    x2 = f"np.atleast_2d({x})"
    variables = f"(np.shape({x2})[1] - (np.shape({x2})[1] - 1) * (np.ndim({x}) == 1))"
    return f"np.reshape({x2}.T, ({variables}, -1))"


def _dot_rows(rows: str) -> str:
    """`rows` (an expression of x) read with x's tangent."""
    return _columns("x_dot") if rows == _columns("x") else rows.replace("x", "x_dot")


def _deviations(rows: str) -> str:
    """Each variable (row) less its mean."""
    return f"({rows} - np.mean({rows}, axis=-1, keepdims=True))"


def _ddof(static) -> str:
    ddof = static["ddof"]
    return str(ddof if ddof is not None else (0 if static["bias"] else 1))


def _back(rows: str, x_bar: str) -> str:
    """x's adjoint from the adjoint of its rows' form (`rows` is x, x.T or _ROWS)."""
    if rows == _ROWS:
        return f"np.reshape({x_bar}, np.shape(x))"
    if rows == _columns("x"):  # the transpose's shape, transposed back
        return f"np.reshape(np.reshape({x_bar}, np.shape(np.atleast_2d(x).T)).T, np.shape(x))"
    return x_bar if rows == "x" else f"({x_bar}).T"


def _cov_templates(static, operand_shapes):
    rows, dev, ndim = _check_cov(static, operand_shapes)
    k = f"(np.shape({rows})[-1] - {_ddof(static)})"
    if ndim == 1:
        return {"x": f"2.0 * g * {dev} / {k}"}
    m = f"np.shape({rows})[0]"
    G = f"np.reshape(g, ({m}, {m}))"
    return {"x": _back(rows, f"({G} + {G}.T) @ {dev} / {k}")}


def _cov_tangents(static, operand_shapes):
    if not _cov_templates(static, operand_shapes):
        return {}
    rows, dev, ndim = _check_cov(static, operand_shapes)
    k = f"(np.shape({rows})[-1] - {_ddof(static)})"
    dev_dot = _deviations(_dot_rows(rows))
    if ndim == 1:
        return {"x": f"2.0 * np.sum({dev_dot} * {dev}) / {k}"}
    return {"x": f"np.reshape(({dev_dot} @ {dev}.T + {dev} @ {dev_dot}.T) / {k}, np.shape(ans))"}


def _corrcoef_parts(static, operand_shapes):
    rows, dev, ndim = _check_cov(static, operand_shapes)
    m = f"np.shape({rows})[0]"
    a = f"(1.0 / np.sqrt(np.sum({dev} * {dev}, axis=1)))"  # 1 / std, up to the normalisation
    return rows, dev, ndim, m, a


def _corrcoef_templates(static, operand_shapes):
    rows, dev, ndim, m, a = _corrcoef_parts(static, operand_shapes)
    if ndim == 1:
        return {"x": "np.zeros(np.shape(x))"}  # the correlation of one variable with itself: 1
    G, R = f"np.reshape(g, ({m}, {m}))", f"np.reshape(ans, ({m}, {m}))"
    ga = f"({G} * np.reshape({a}, (-1, 1)) * np.reshape({a}, (1, -1)))"
    gr = f"({G} * {R})"
    diagonal = f"np.reshape({a} * {a} * (np.sum({gr}, axis=1) + np.sum({gr}, axis=0)), (-1, 1))"
    return {"x": _back(rows, f"(({ga} + {ga}.T) @ {dev} - {diagonal} * {dev})")}


def _corrcoef_tangents(static, operand_shapes):
    if not _corrcoef_templates(static, operand_shapes):
        return {}
    rows, dev, ndim, m, a = _corrcoef_parts(static, operand_shapes)
    if ndim == 1:
        return {"x": "0.0 * np.sum(x_dot)"}
    dev_dot = _deviations(_dot_rows(rows))
    R = f"np.reshape(ans, ({m}, {m}))"
    c_dot = f"({dev_dot} @ {dev}.T + {dev} @ {dev_dot}.T)"
    q = f"(np.sum({dev_dot} * {dev}, axis=1) * {a} * {a})"  # half of diag(C_dot) / diag(C)
    r_dot = f"{c_dot} * np.reshape({a}, (-1, 1)) * np.reshape({a}, (1, -1)) - {R} * " \
            f"(np.reshape({q}, (-1, 1)) + np.reshape({q}, (1, -1)))"
    return {"x": f"np.reshape({r_dot}, np.shape(ans))"}


def _cov_shape(static, x):
    if not x.known:
        return shapes.UNKNOWN
    return shapes.SCALAR if x.ndim == 1 else shapes.Shape((shapes.UNKNOWN_DIM,) * 2)


COV_STATIC = {"y": None, "rowvar": True, "bias": False, "ddof": None, "fweights": None, "aweights": None,
              "dtype": None}

RULES = [
    rule(np.average, ("x", "weights"), _average_templates, static={"axis": None, "returned": False, "keepdims": False},
         order=("x", "axis", "weights", "returned", "keepdims"),  # NumPy's: np.average(x, 0) is along axis 0
         defaults={"weights": None}, fresh=True, shape=_average_shape, tangents=_average_tangents,
         note="gradient to x and the weights (x's shape, or 1-D along one axis)"),
    rule(np.cov, ("x",), _cov_templates, static=COV_STATIC, fresh=True, shape=_cov_shape, tangents=_cov_tangents,
         note="one array of variables (no y, fweights or aweights)"),
    rule(np.corrcoef, ("x",), _corrcoef_templates, static={"y": None, "rowvar": True, "dtype": None}, fresh=True,
         shape=_cov_shape, tangents=_corrcoef_tangents, note="one array of variables (no y)"),
]
