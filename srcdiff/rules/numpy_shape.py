"""NumPy's shape manipulation: the adjoint moves ``g`` back to the operand's layout.

Static arguments (axes, shapes, repeat counts) are known when the gradient is generated, so
inverse permutations and the like are computed here and appear as literals in the output.
"""

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from .table import FORMS, LINEAR, rule, unary

BACK = {"x": "np.reshape(g, np.shape(x))"}
#: The facts of a function whose value is a new array (a copy), whatever its operands.
NEW_ARRAY = {"fresh": True, "array_result": True}


def _transpose_templates(static, operand_shapes):
    axes = static.get("axes")
    if axes is None:
        return {"x": "np.transpose(g)"}
    # axes name every axis once, so len(axes) is x's ndim: negative axes count from it
    forward = [int(a) % len(axes) for a in axes]
    return {"x": f"np.transpose(g, {tuple(int(i) for i in np.argsort(forward))})"}


def _tile_templates(static, operand_shapes):
    reps = static["reps"]
    ndim = operand_shapes["x"].ndim
    if ndim is None or reps is None:
        return {"x": "tile_adjoint(g, x, reps)"}
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    full = max(ndim, len(reps))
    reps = (1,) * (full - len(reps)) + reps
    sizes = ["1"] * (full - ndim) + [f"np.shape(x)[{i}]" for i in range(ndim)]
    interleaved = ", ".join(f"{r}, {s}" for r, s in zip(reps, sizes))
    axes = tuple(range(0, 2 * full, 2))
    return {"x": f"np.reshape(np.sum(np.reshape(g, ({interleaved})), axis={axes}), np.shape(x))"}


def _repeat_templates(static, operand_shapes):
    count, axis = static["repeats"], static["axis"]
    if isinstance(count, (tuple, list)):  # a count per element: sum each run of copies
        if min(count, default=1) < 1:
            raise SrcDiffError("numpy.repeat with a zero count has no adjoint rule",
                               hint="drop the elements you repeat zero times first")
        starts = [0] + [int(n) for n in np.cumsum(count)[:-1]]
        if axis is None:
            return {"x": f"np.reshape(np.add.reduceat(np.ravel(g), {starts}), np.shape(x))"}
        return {"x": f"np.add.reduceat(g, {starts}, axis=axis)"}
    if count == 0:  # every element repeated zero times: nothing reaches x
        return {"x": "np.zeros(np.shape(x))"}
    if axis is None:
        return {"x": f"np.reshape(np.sum(np.reshape(g, (-1, {count})), axis=1), np.shape(x))"}
    ndim = operand_shapes["x"].ndim
    if ndim:  # the copies of each element side by side on an axis of their own, summed
        at = axis % ndim
        before = "".join(f"np.shape(x)[{i}], " for i in range(at))
        after = "".join(f", np.shape(x)[{i}]" for i in range(at + 1, ndim))
        return {"x": f"np.sum(np.reshape(g, ({before}np.shape(x)[{at}], {count}{after})), axis={at + 1})"}
    return {"x": f"np.add.reduceat(g, np.arange(0, np.shape(g)[axis], {count}), axis=axis)"}


def _reduceat_templates(static, operand_shapes):
    """``np.add.reduceat(x, starts, axis)``: each sum's adjoint copied over its run (np.repeat)."""
    starts, axis = static["indices"], static["axis"]
    if starts is None:  # (the table's validation: the starts are always a constant of the call)
        return {"x": "np.repeat(g, np.diff(np.append(indices, np.shape(x)[axis])), axis=axis)"}
    if not isinstance(starts, (tuple, list)) or not starts or starts[0] != 0 \
            or any(b <= a for a, b in zip(starts, starts[1:])):
        raise SrcDiffError("numpy.add.reduceat has an adjoint rule for increasing start indices from 0 "
                           "written in the code", hint="pass the starts as a list of increasing constants: [0, 2, 5]")
    runs = ", ".join(str(b - a) for a, b in zip(starts, starts[1:]))
    last = f"np.shape(x)[{axis}] - {starts[-1]}"
    return {"x": f"np.repeat(g, [{runs}{', ' if runs else ''}{last}], axis={axis})"}


def _cuts(sizes: list[str]) -> str:
    """The split points after each operand but the last: [s0, s0 + s1, ...]."""
    return "[" + ", ".join(" + ".join(sizes[: i + 1]) for i in range(len(sizes) - 1)) + "]"


def _concatenate_templates(static, operand_shapes):
    count = len(operand_shapes)
    if static.get("axis") is None:
        cuts = _cuts([f"np.size(x{i})" for i in range(count)])
        return {f"x{i}": f"np.reshape(np.split(np.ravel(g), {cuts})[{i}], np.shape(x{i}))" for i in range(count)}
    if type(static.get("axis")) is int:  # basic slices: a view each, no list of them made
        return _derivable_concatenate(static, operand_shapes)
    cuts = _cuts([f"np.shape(x{i})[axis]" for i in range(count)])
    return {f"x{i}": f"np.split(g, {cuts}, axis=axis)[{i}]" for i in range(count)}


def _stack_templates(static, operand_shapes):
    return {f"x{i}": f"np.take(g, {i}, axis=axis)" for i in range(len(operand_shapes))}


def _hstack_ndims(operand_shapes) -> list:
    """The operands' ndims as far as np.hstack's axis goes: it joins along axis 1 when its first
    operand has two axes or more (every operand then has as many), else along axis 0 (every
    operand then one axis at most), so any one operand's ndim decides for all
    (``np.hstack([np.ones((n, 1)), x.reshape(n, 1)])``, the second's ndim unknown): where they
    disagree, np.hstack raises before any adjoint runs."""
    ndims = [s.ndim for s in operand_shapes.values()]
    known = next((n for n in ndims if n is not None), None)
    return ndims if known is None else [known] * len(ndims)


def _hstack_templates(static, operand_shapes):
    count, ndims = len(operand_shapes), _hstack_ndims(operand_shapes)
    if None not in ndims:  # basic slices: a view each, no list of them made
        return _derivable_hstack(static, operand_shapes)
    if None not in ndims and max(ndims) >= 2:
        sizes, axis = [f"np.shape(x{i})[1]" for i in range(count)], "1"
    elif None not in ndims:
        sizes, axis = [f"np.size(x{i})" for i in range(count)], "0"
    else:
        sizes = [f"np.shape(np.atleast_1d(x{i}))[np.minimum(np.ndim(x{i}), 2) - 1]" for i in range(count)]
        axis = "np.minimum(np.ndim(g), 2) - 1"
    return {f"x{i}": f"np.reshape(np.split(g, {_cuts(sizes)}, axis={axis})[{i}], np.shape(x{i}))"
            for i in range(count)}


def _vstack_templates(static, operand_shapes):
    count, ndims = len(operand_shapes), [s.ndim for s in operand_shapes.values()]
    sizes = ["1" if n is not None and n <= 1 else f"np.shape(np.atleast_2d(x{i}))[0]" for i, n in enumerate(ndims)]
    return {f"x{i}": f"np.reshape(np.split(g, {_cuts(sizes)}, axis=0)[{i}], np.shape(x{i}))" for i in range(count)}


def _along(axis: int, part: str) -> str:
    """An index taking `part` along `axis`: ``:, part`` for 1, ``..., part, :`` for -2."""
    return ", ".join([":"] * axis + [part] if axis >= 0 else ["...", part] + [":"] * (-axis - 1))


def _read_pieces(sizes: list[str], axis: int, g: str = "g") -> list[str]:
    """Each operand's piece of a join's adjoint, read from `g` by a subscript along `axis`
    between positions computed when run (np.split would need them as constants to be read
    back)."""
    starts = [""] + [" + ".join(sizes[: i + 1]) for i in range(len(sizes) - 1)]
    stops = [" + ".join(sizes[: i + 1]) for i in range(len(sizes) - 1)] + [""]
    return [f"{g}[{_along(axis, f'{a}:{b}')}]" for a, b in zip(starts, stops)]


def _derivable_concatenate(static, operand_shapes):
    count, axis = len(operand_shapes), static.get("axis")
    if axis is None:
        pieces = _read_pieces([f"np.size(x{i})" for i in range(count)], 0, "np.ravel(g)")
        return {f"x{i}": f"np.reshape({p}, np.shape(x{i}))" for i, p in enumerate(pieces)}
    pieces = _read_pieces([f"np.shape(x{i})[axis]" for i in range(count)], axis)
    return {f"x{i}": p for i, p in enumerate(pieces)}


def _derivable_stack(static, operand_shapes):
    return {f"x{i}": f"g[{_along(static['axis'], str(i))}]" for i in range(len(operand_shapes))}


def _derivable_hstack(static, operand_shapes):
    count, ndims = len(operand_shapes), _hstack_ndims(operand_shapes)
    if None in ndims:  # the axis is known only when run
        return _hstack_templates(static, operand_shapes)
    two = max(ndims) >= 2
    sizes = [f"np.shape(x{i})[1]" if two else f"np.size(x{i})" for i in range(count)]
    return {f"x{i}": f"np.reshape({p}, np.shape(x{i}))" for i, p in enumerate(_read_pieces(sizes, int(two)))}


def _derivable_vstack(static, operand_shapes):
    ndims = [s.ndim for s in operand_shapes.values()]
    sizes = ["1" if n is not None and n <= 1 else f"np.shape(np.atleast_2d(x{i}))[0]" for i, n in enumerate(ndims)]
    return {f"x{i}": f"np.reshape({p}, np.shape(x{i}))" for i, p in enumerate(_read_pieces(sizes, 0))}


def linear(func, params, templates, **options):
    """A rule of this module: every one is linear, its tangent the function of the tangent
    (``np.reshape(x_dot, shape)``)."""
    return rule(func, params, templates, tangents=LINEAR, **options)


def _reshape_shape(static, x):
    return shapes.of_literal(static["shape"]) if static.get("shape") is not None else shapes.UNKNOWN


def _transpose_shape(static, x):
    return shapes.permute(x, static.get("axes"))


def _swapaxes_shape(static, x):
    return shapes.swap(x, static["axis1"], static["axis2"])


def _broadcast_to_shape(static, x):
    return shapes.of_literal(static["shape"])


def _same(static, x):
    return shapes.array(x)


def _squeeze_shape(static, x):
    """Only the axes named (each of length one) go; with no axis, which go depends on lengths."""
    axis = static.get("axis")
    if not x.known or (axis is None and shapes.UNKNOWN_DIM in x.dims):
        return shapes.UNKNOWN
    if axis is None:
        return shapes.Shape(tuple(d for d in x.dims if d != shapes.ONE))
    gone = {a % x.ndim for a in (axis if isinstance(axis, tuple) else (axis,))}
    return shapes.Shape(tuple(d for i, d in enumerate(x.dims) if i not in gone))


def _expand_dims_shape(static, x):
    axis = static.get("axis")
    if not x.known or axis is None:
        return shapes.UNKNOWN
    axes = axis if isinstance(axis, tuple) else (axis,)
    ndim = x.ndim + len(axes)
    new = {a % ndim for a in axes}
    dims = iter(x.dims)
    return shapes.Shape(tuple(shapes.ONE if i in new else next(dims) for i in range(ndim)))


def _at_least(ndim: int):
    """``np.atleast_{ndim}d``: axes of length one added in front (or, for 3d, around a 1-d x)."""
    def shape(static, x):
        if not x.known or x.ndim >= ndim:
            return shapes.array(x)
        if ndim == 3 and x.ndim == 1:
            return shapes.Shape((shapes.ONE,) + x.dims + (shapes.ONE,))
        if ndim == 3 and x.ndim == 2:
            return shapes.Shape(x.dims + (shapes.ONE,))
        return shapes.Shape((shapes.ONE,) * (ndim - x.ndim) + x.dims)
    return shape


def _fill_templates(static, operand_shapes):
    """``np.full(shape, v)`` / ``np.full_like(a, v)``: v broadcast, so its adjoint is the sum."""
    dtype = static.get("dtype")
    if dtype is not None and np.dtype(dtype).kind != "f":
        raise SrcDiffError(f"filling an array of dtype {np.dtype(dtype)} would truncate the fill value "
                           "(and lose its gradient)", hint="leave dtype out, or use a floating dtype")
    value = operand_shapes["fill_value"]
    total = "np.sum(g)" if value.known and value.ndim == 0 else "unbroadcast(g, fill_value)"
    if "a" in operand_shapes:  # full_like takes a's dtype: an integer array truncates the value
        return {"fill_value": f"{total} if np.issubdtype(np.result_type(a), np.floating) else 0.0"}
    return {"fill_value": total}


_FULL_LIKE_TANGENT = ("np.full_like(a, fill_value_dot, dtype=np.float64) if np.issubdtype(np.result_type(a), "
                      "np.floating) else np.zeros(np.shape(a))")


def _like_shape(static, a, fill_value):
    return shapes.array(a)


def _stack_shape(static, *arrays):
    """The number of axes of ``np.stack`` of arrays of one known number of axes (one more), the
    lengths unknown but the new axis's (how many arrays); else unknown."""
    ndims = {a.ndim for a in arrays}
    if not arrays or not all(a.known for a in arrays) or len(ndims) != 1:
        return shapes.UNKNOWN
    ndim = ndims.pop() + 1
    axis = static.get("axis", 0)
    if type(axis) is not int or not -ndim <= axis < ndim:
        return shapes.UNKNOWN
    dims = [shapes.UNKNOWN_DIM] * ndim
    dims[axis % ndim] = shapes.ONE if len(arrays) == 1 else shapes.MANY
    return shapes.Shape(tuple(dims))


def _concatenate_shape(static, *arrays):
    """``np.concatenate``'s number of axes (its operands', which must agree), the other axes'
    lengths as known, the joined axis's unknown (two or more operands of length one: longer than
    one); unknown with ``axis=None`` or an operand's number of axes not known."""
    ndims = {a.ndim for a in arrays}
    axis = static.get("axis", 0)
    if not arrays or not all(a.known for a in arrays) or len(ndims) != 1 or type(axis) is not int:
        return shapes.UNKNOWN
    ndim = ndims.pop()
    if not -ndim <= axis < ndim:
        return shapes.UNKNOWN
    axis %= ndim
    dims = []
    for i in range(ndim):
        found = {a.dims[i] for a in arrays}
        if i == axis:
            ones = sum(a.dims[i] == shapes.ONE for a in arrays)
            dims.append(arrays[0].dims[i] if len(arrays) == 1 else shapes.MANY if ones >= 2 else shapes.UNKNOWN_DIM)
        else:  # every operand has the result's length there (else np.concatenate raises)
            dims.append(shapes.ONE if shapes.ONE in found else shapes.MANY if shapes.MANY in found
                        else shapes.UNKNOWN_DIM)
    return shapes.Shape(tuple(dims))


def _hstack_shape(static, *arrays):
    """``np.hstack``: a vector of pieces of at most one axis (a number, one element), longer than one
    when two or more pieces have one element; of arrays of more axes, their concatenation along
    axis 1; unknown where an operand's number of axes is not known."""
    if not arrays or not all(a.known for a in arrays):
        return shapes.UNKNOWN
    if max(a.ndim for a in arrays) >= 2:
        return _concatenate_shape({"axis": 1}, *arrays)
    ones = sum(a.ndim == 0 or a.dims[0] == shapes.ONE for a in arrays)
    if len(arrays) == 1:
        return shapes.Shape((shapes.ONE,)) if arrays[0].ndim == 0 else shapes.array(arrays[0])
    return shapes.Shape((shapes.MANY if ones >= 2 else shapes.UNKNOWN_DIM,))


def _vstack_shape(static, *arrays):
    """``np.vstack``'s number of axes (at least 2), its lengths unknown; unknown unless every
    operand's number of axes is known."""
    if not arrays or not all(a.known for a in arrays):
        return shapes.UNKNOWN
    return shapes.Shape((shapes.UNKNOWN_DIM,) * max(2, *(a.ndim for a in arrays)))


RULES = [
    # ---- same elements, new shape: views of x (not fresh) ----
    linear(np.reshape,     ("x",), BACK, static={"shape": None}, shape=_reshape_shape, batching="reshape",
           sympy="numpy.reshape"),
    linear(np.ravel,       ("x",), BACK, batching="reshape", sympy="numpy.ravel"),
    linear(np.expand_dims, ("x",), BACK, static={"axis": None}, shape=_expand_dims_shape, batching="axes",
           sympy="numpy.expand_dims"),
    linear(np.squeeze,     ("x",), BACK, static={"axis": None}, shape=_squeeze_shape, sympy="numpy.squeeze"),
    linear(np.atleast_1d,  ("x",), BACK, shape=_at_least(1), sympy="numpy.atleast_1d"),
    linear(np.atleast_2d,  ("x",), BACK, shape=_at_least(2), sympy="numpy.atleast_2d"),
    linear(np.atleast_3d,  ("x",), BACK, shape=_at_least(3), sympy="numpy.atleast_3d"),
    # ---- axes reordered ----
    linear(np.transpose,   ("x",), _transpose_templates, static={"axes": None}, shape=_transpose_shape,
           batching="axes", sympy="numpy.transpose"),
    linear(np.swapaxes,    ("x",), {"x": "np.swapaxes(g, axis1, axis2)"}, static={"axis1": None, "axis2": None},
           shape=_swapaxes_shape, batching="moved", sympy="numpy.swapaxes"),
    linear(np.moveaxis,    ("x",), {"x": "np.moveaxis(g, destination, source)"},
           static={"source": None, "destination": None}, batching="moved", sympy="numpy.moveaxis"),
    linear(np.flip,        ("x",), {"x": "np.flip(g, axis)"}, static={"axis": None}, shape=_same, batching="moved",
           sympy="numpy.flip"),
    # ---- copies: broadcast, tiled, repeated ----
    unary(np.broadcast_to, x="g", static={"shape": None}, shape=_broadcast_to_shape,
          fresh=False, tangents=LINEAR, sympy="numpy.broadcast_to"),  # a view
    linear(np.tile,        ("x",), _tile_templates,   static={"reps": None}, **NEW_ARRAY, sympy="numpy.tile"),
    linear(np.repeat,      ("x",), _repeat_templates, static={"repeats": None, "axis": None}, **NEW_ARRAY,
           sympy="numpy.repeat"),
    linear(np.add.reduceat, ("x",), _reduceat_templates, static={"indices": None, "axis": 0}, **NEW_ARRAY,
           name="numpy.add.reduceat", shape=lambda static, x: shapes.array(x),
           not_symbolic="sympy has no segment sums: checked against central differences"),
    # the fill value is copied into every element (a constant one makes a constant array)
    linear(np.full,        ("shape", "fill_value"), _fill_templates, static={"dtype": None}, shape_only=("shape",),
           note="a floating dtype (or none): an integer one would truncate the fill value", batching="full",
           **NEW_ARRAY, sympy=FORMS + "full"),
    rule(np.full_like,     ("a", "fill_value"), _fill_templates, static={"dtype": None}, shape_only=("a",),
         shape=_like_shape, tangents={"fill_value": _FULL_LIKE_TANGENT},
         note="takes a's dtype: for an integer a the value is truncated, and has no gradient", **NEW_ARRAY,
         sympy=FORMS + "full_like"),
    # ---- joined: one list of operands, copied into a new array ----
    linear(np.concatenate, ("arrays",), _concatenate_templates, static={"axis": 0}, variadic="list",
           shape=_concatenate_shape,
           derivable=_derivable_concatenate, batching="joined", **NEW_ARRAY, sympy="numpy.concatenate"),
    linear(np.stack,       ("arrays",), _stack_templates,       static={"axis": 0}, variadic="list",
           derivable=_derivable_stack, shape=_stack_shape, batching="joined", **NEW_ARRAY, sympy="numpy.stack"),
    linear(np.hstack,      ("arrays",), _hstack_templates,      variadic="list", derivable=_derivable_hstack,
           shape=_hstack_shape,
           **NEW_ARRAY, sympy="numpy.hstack"),
    linear(np.vstack,      ("arrays",), _vstack_templates,      variadic="list", derivable=_derivable_vstack,
           shape=_vstack_shape, **NEW_ARRAY, sympy="numpy.vstack"),
    # ---- split: a list of pieces (views of x) ----
    linear(np.split,       ("x",), {"x": "split_adjoint(g, ans, axis)"}, tuple_result=True,
         static={"indices_or_sections": None, "axis": 0}, note="returns a list of arrays", sympy="numpy.split"),
]


def reshape_to(x, shape):
    """``np.reshape(x, shape)`` with `shape` a value computed when the function runs
    (``c.shape + (1,) * x.ndim``): it carries no gradient, and x's adjoint is g in x's
    shape.  Not in `RULES`: lowering names it itself (lower/library_calls.py)."""
    return np.reshape(x, shape)


RESHAPE_TO = rule(reshape_to, ("x", "shape"), {"x": "np.reshape(g, np.shape(x))"},
                  name="numpy.reshape (shape computed when run)", tangents=LINEAR, batching="reshape")


def broadcast_like(x, y):
    """x broadcast against y (one of ``np.broadcast_arrays(x, y)``, as ``xp_promote(x, y,
    broadcast=True)`` gives it).  y decides only the shape: its adjoint is zero.  Not in
    `RULES`: lowering names it itself (lower/array_api.py)."""
    return np.broadcast_to(x, np.broadcast_shapes(np.shape(x), np.shape(y)))


BROADCAST_LIKE = rule(broadcast_like, ("x", "y"), {"x": "g", "y": "0.0 * g"}, elementwise=True,
                      name="numpy.broadcast_arrays (one of them)",
                      tangents={"x": "np.broadcast_to(x_dot, np.shape(ans))", "y": "np.zeros(np.shape(ans))"})
