"""NumPy's reductions and scans, with ``axis`` and ``keepdims``.

The adjoint of a reduction spreads ``g`` back over the reduced axes: ``np.expand_dims(g,
axis)`` restores them (unless ``keepdims`` kept them), and broadcasting does the rest.
"""

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from .numpy_decompositions import is_matrix_norm, matrix_norm_derivable, matrix_norm_tangents, matrix_norm_templates
from .table import FORMS, LINEAR, rule

REDUCE = {"axis": None, "keepdims": False}
TIES_SPLIT = "ties share the gradient equally (k tied extrema get g / k each)"


def _reduce_shape(static, x, *rest):
    return shapes.reduce(x, static.get("axis"), static.get("keepdims", False))


def _spread(g: str, static, x: shapes.Shape = shapes.UNKNOWN) -> str:
    """`g`, reshaped so it broadcasts against the reduced operand `x` (of shape `x`)."""
    axis = static.get("axis")
    if axis is None or static.get("keepdims"):
        return g
    axes = axis if isinstance(axis, tuple) else (axis,)
    if x.known and x.ndim and all(type(a) is int and -x.ndim <= a < x.ndim for a in axes) \
            and {a % x.ndim for a in axes} == set(range(x.ndim)):
        return g  # every axis reduced: g is one number, which broadcasts as it is
    return f"np.expand_dims({g}, axis)"


def _sum_templates(static, operand_shapes):
    if operand_shapes["x"].scalar:
        return {"x": "g"}
    return {"x": f"np.full(np.shape(x), {_spread('g', static, operand_shapes['x'])})"}


def _mean_templates(static, operand_shapes):
    if operand_shapes["x"].scalar:
        return {"x": "g"}
    if static.get("axis") is None:
        return {"x": "np.full(np.shape(x), g / np.size(x))"}
    # size 0 counted as 1: an axis of length 0 has an empty gradient, not a division by zero
    spread = _spread("g", static, operand_shapes["x"])
    return {"x": f"np.full(np.shape(x), {spread} * (np.size(ans) / (np.size(x) + (np.size(x) == 0))))"}


def _prod_templates(static, operand_shapes):
    # ans / x would divide by zero where x has zeros: products of the others instead.
    return {"x": "prod_adjoint(g, x, axis, keepdims)"}


def _extremum_templates(static, operand_shapes):
    # the ties as numbers of x's dtype: the array API standard does no arithmetic on booleans
    ties = f"(x == {_spread('ans', static)})" if operand_shapes["x"].scalar \
        else f"np.asarray(x == {_spread('ans', static)}, dtype=x.dtype)"
    return {"x": f"{_spread('g', static)} * {ties} / np.sum({ties}, axis=axis, keepdims=True)"}


#: Elements per reduced group; an empty result (and so an empty x) must not divide by zero.
#: Python ints, so the count keeps a float32 adjoint float32; divided into a NumPy value (a
#: count of 0, ``ddof`` as large as the group, gives inf/NaN as NumPy does, not an exception).
COUNT = "(np.size(x) / (np.size(ans) + (np.size(ans) == 0)) - ddof)"


def _var_templates(static, operand_shapes):
    count = COUNT
    return {"x": f"{_spread('g', static)} * 2.0 * (x - np.mean(x, axis=axis, keepdims=True)) / {count}"}


def _std_templates(static, operand_shapes):
    count = COUNT
    # where std is 0 every deviation is 0: dividing by 1 there makes that 0 / 1, the subgradient 0,
    # exact where std is identically 0 (one element per group), never 0 / 0
    ans = _spread('ans', static)
    return {"x": f"{_spread('g', static)} * (x - np.mean(x, axis=axis, keepdims=True)) "
                 f"/ np.where({ans} == 0, 1.0, {count} * {ans})"}


def _derivable_std_templates(static, operand_shapes):
    # where std is 0 over more than one element it has no second derivative (|t| of the spread):
    # NaN there (`kink`); over one element std is identically 0, and so are all its derivatives
    ans = _spread('ans', static)
    first = _std_templates(static, operand_shapes)["x"]
    return {"x": f"kink(({ans} == 0) & (np.size(x) > np.size(ans)), {first}, x, 0.0, axis)"}


def _derivable_norm_templates(static, operand_shapes):
    # the 2-norm at 0 is a cone: its gradient's 0 there is a subgradient, beyond which NaN (`kink`)
    first = _norm_templates(static, operand_shapes)["x"]
    order, axis, ndim = static.get("ord"), static.get("axis"), operand_shapes["x"].ndim
    vector = isinstance(axis, int) or (axis is None and ndim == 1)
    if order in (None, "fro") or (order == 2 and vector):
        return {"x": f"kink({_spread('ans', static)} == 0, {first}, x, 0.0, axis)"}
    if is_matrix_norm(static, operand_shapes):
        return matrix_norm_derivable(static, operand_shapes)
    return {"x": first}


def _p_norm(order) -> bool:
    """A vector norm (sum |x|^p)^(1/p) other than the 1-, 2- and inf-norms (0 counts nonzeros)."""
    return isinstance(order, (int, float, np.integer, np.floating)) and not isinstance(order, bool) \
        and np.isfinite(order) and order not in (1, 2)


def _p_norm_slope(order, ans: str) -> str:
    """d ans / d x for ans = (sum |x|^p)^(1/p): sign(x) (|x| / ans)^(p - 1); 0 for p = 0 (a count)."""
    if order == 0:
        return "np.zeros(np.shape(x))"
    return f"np.sign(x) * np.abs(x) ** {float(order) - 1.0} / np.where({ans} == 0, 1.0, {ans}) ** {float(order) - 1.0}"


def _norm_templates(static, operand_shapes):
    order, axis, ndim = static.get("ord"), static.get("axis"), operand_shapes["x"].ndim
    vector = isinstance(axis, int) or (axis is None and ndim == 1)
    if order in (None, "fro") or (order == 2 and vector):
        # at x = 0, x / 1 is the subgradient 0 (exact where x is identically 0), never 0 / 0
        ans = _spread('ans', static)
        return {"x": f"{_spread('g', static)} * x / np.where({ans} == 0, 1.0, {ans})"}
    if order == 1 and vector:
        return {"x": f"{_spread('g', static)} * np.sign(x)"}
    if order in (np.inf, -np.inf) and vector:  # the largest (smallest) |x_i|: ties split
        return {
            "x": f"{_spread('g', static)} * np.sign(x) * (np.abs(x) == {_spread('ans', static)})"
                 f" / np.sum(np.abs(x) == {_spread('ans', static)}, axis=axis, keepdims=True)"}
    if order == -np.inf and vector:  # the smallest |x_i|, ties split
        return {
            "x": f"{_spread('g', static)} * np.sign(x) * (np.abs(x) == {_spread('ans', static)})"
                 f" / np.sum(np.abs(x) == {_spread('ans', static)}, axis=axis, keepdims=True)"}
    if vector and _p_norm(order):
        return {"x": f"{_spread('g', static)} * {_p_norm_slope(order, _spread('ans', static))}"}
    if is_matrix_norm(static, operand_shapes):
        return matrix_norm_templates(static, operand_shapes)
    raise SrcDiffError(f"numpy.linalg.norm with ord={order!r} on this operand has no adjoint rule",
                       hint="use ord=None (2-norm / Frobenius), any ord of a vector, or a matrix "
                            "norm ('nuc', 2, -2, 1, -1, inf, -inf) of a matrix or of a pair of axes")


def _cumsum_templates(static, operand_shapes):
    if static.get("axis") is None:
        return {"x": "np.reshape(np.cumsum(np.ravel(g)[::-1])[::-1], np.shape(x))"}
    return {"x": "np.flip(np.cumsum(np.flip(g, axis), axis), axis)"}


def _cumsum_shape(static, x):
    if static.get("axis") is None:
        return shapes.UNKNOWN if not x.known else shapes.Shape((shapes.UNKNOWN_DIM,) if x.ndim else (shapes.ONE,))
    return shapes.array(x)


def _over(terms: str) -> str:
    """`terms` (shaped like x) summed over the reduced axes: a reduction's tangent."""
    return f"np.sum({terms}, axis=axis, keepdims=keepdims)"


# ---- tangents: d ans = the sum, over the reduced axes, of d ans / d x times x_dot ----

def _prod_tangents(static, operand_shapes):
    # the derivative of the product in each element is the product of the others (exact at zeros)
    return {"x": _over("x_dot * prod_adjoint(np.ones(np.shape(ans)), x, axis, keepdims)")}


def _var_tangents(static, operand_shapes):
    return {"x": f"{_over('x_dot * (x - np.mean(x, axis=axis, keepdims=True))')} * 2.0 / {COUNT}"}


def _std_tangents(static, operand_shapes):
    deviations = _over('x_dot * (x - np.mean(x, axis=axis, keepdims=True))')
    return {"x": f"{deviations} / np.where(ans == 0, 1.0, {COUNT} * ans)"}


def _extremum_tangents(static, operand_shapes):
    # the mean of the tied extrema's tangents: the reverse rule's split, transposed
    # counted in x's dtype, as the reverse rule does: a count of booleans is int64, and a float32
    # tangent divided by it would be float64
    ties = f"(x == {_spread('ans', static)})" if operand_shapes["x"].scalar \
        else f"np.asarray(x == {_spread('ans', static)}, dtype=x.dtype)"
    return {"x": f"{_over(f'x_dot * {ties}')} / {_over(ties)}"}


def _norm_tangents(static, operand_shapes):
    _norm_templates(static, operand_shapes)  # refuses what the reverse rule refuses
    if is_matrix_norm(static, operand_shapes) and static.get("ord") not in (None, "fro"):
        return matrix_norm_tangents(static, operand_shapes)
    order, axis, ndim = static.get("ord"), static.get("axis"), operand_shapes["x"].ndim
    vector = isinstance(axis, int) or (axis is None and ndim == 1)
    if order in (None, "fro") or (order == 2 and vector):
        return {"x": f"{_over('x * x_dot')} / np.where(ans == 0, 1.0, ans)"}
    if order == 1:
        return {"x": _over("np.sign(x) * x_dot")}
    if _p_norm(order):
        return {"x": _over(f"{_p_norm_slope(order, _spread('ans', static))} * x_dot")}
    top = f"(np.abs(x) == {_spread('ans', static)})"
    return {"x": f"{_over(f'np.sign(x) * x_dot * {top}')} / {_over(top)}"}


def reduction(func, templates, note="", tangents=None, derivable=None, sympy=None, **static):
    """A reduction over `axis`: its value is a new array, or a number (fresh)."""
    return rule(func, ("x",), templates, static={**REDUCE, **static}, shape=_reduce_shape, note=note, fresh=True,
                tangents=tangents, derivable=derivable, batching="reduce", sympy=sympy)


RULES = [
    # ---- sums and means ----
    reduction(np.sum,  _sum_templates, tangents=LINEAR, sympy=FORMS + "total"),
    reduction(np.mean, _mean_templates, tangents=LINEAR, sympy=FORMS + "mean"),
    reduction(np.prod, _prod_templates, note="exact where x has zeros (products of the other factors)",
              tangents=_prod_tangents, sympy=FORMS + "prod"),
    reduction(np.var,  _var_templates, ddof=0, tangents=_var_tangents, sympy=FORMS + "var"),
    reduction(np.std,  _std_templates, ddof=0, tangents=_std_tangents, derivable=_derivable_std_templates,
              note="where std is 0 the gradient is the subgradient 0 (exact for one element per group)",
              sympy=FORMS + "std"),
    # ---- extrema ----
    # (a max or min the output provably does not depend on, a softmax's max shift, is held
    # constant before differentiation: ad/held_shifts.py says why its derivative is exactly 0)
    reduction(np.max,  _extremum_templates, note=TIES_SPLIT, tangents=_extremum_tangents, sympy=FORMS + "amax"),
    reduction(np.min,  _extremum_templates, note=TIES_SPLIT, tangents=_extremum_tangents, sympy=FORMS + "amin"),
    # np.amax and np.amin are separate functions from NumPy 2 on (aliases before)
    *[reduction(f, _extremum_templates, note=TIES_SPLIT, tangents=_extremum_tangents, sympy=FORMS + f.__name__)
      for f in (np.amax, np.amin) if f not in (np.max, np.min)],
    # ---- norms ----
    rule(np.linalg.norm, ("x",), _norm_templates, static={"ord": None, **REDUCE}, shape=_reduce_shape, fresh=True,
         tangents=_norm_tangents, derivable=_derivable_norm_templates, batching="reduce",
         note="ord None/'fro', any ord of vectors, and 'nuc', 2, -2, 1, -1, inf, -inf of matrices; "
              "at x = 0 the gradient is the subgradient 0", sympy=FORMS + "norm"),
    # ---- scans ----
    rule(np.cumsum, ("x",), _cumsum_templates, static={"axis": None}, shape=_cumsum_shape, fresh=True, tangents=LINEAR,
         array_result=True, batching="reduce", sympy="numpy.cumsum"),
]

#: for the reductions of other modules (rules/numpy_nan_reductions.py, order_statistics.py)
reduce_shape, spread = _reduce_shape, _spread
