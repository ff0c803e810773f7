"""NumPy functions that move, surround or extend an array's elements: ``np.roll``,
``np.rot90``, ``np.pad`` (constant mode), ``np.append``, ``np.insert`` and ``np.delete``.

Each is linear and copies every element of x to one place, so the adjoint moves ``g`` back:
rolled the other way, rotated back, the padding cut off, the appended part cut off, the
inserted positions deleted (found by inserting into a mask the same way), the deleted
positions filled with zeros (the kept positions found by deleting from ``np.arange``).
Static arguments (axes, pad widths) are known when the gradient is generated, so the inverse
moves appear as literals in the output; ``np.roll``'s shift is an operand with no gradient (a whole
number, or a tuple of them), so it may be computed when the function runs (``np.roll(x, k)`` in a
loop over ``k``).
"""

import numpy as np

from ..errors import SrcDiffError
from ..ir import shapes
from .table import LINEAR, rule

NEW_ARRAY = {"fresh": True, "array_result": True}


def _roll_templates(static, operand_shapes):
    shift = operand_shapes.get("shift")
    if shift is not None and shift.known and shift.ndim == 0:
        return {"x": "np.roll(g, -shift, axis)"}
    return {"x": "np.roll(g, np.negative(shift), axis)"}  # (a tuple of shifts, one per axis)


def _rot90_templates(static, operand_shapes):
    return {"x": f"np.rot90(g, {-int(static['k'])}, axes)"}


def _rot90_shape(static, x):
    if not x.known:
        return shapes.UNKNOWN
    if int(static["k"]) % 2 == 0:
        return shapes.array(x)
    return shapes.swap(x, *static["axes"])


def _same(static, x):
    return shapes.array(x)


def _pad_widths(static, ndim: int) -> list[tuple[int, int]]:
    """`pad_width` as (before, after) for each axis, as NumPy reads it."""
    try:
        widths = np.broadcast_to(np.asarray(static["pad_width"]), (ndim, 2))
    except ValueError:
        raise SrcDiffError(f"np.pad: cannot read the pad width {static['pad_width']!r} for an array of "
                           f"{ndim} dimensions", hint="give one (before, after) pair per axis") from None
    if widths.dtype.kind not in "iu":
        raise SrcDiffError(f"np.pad: the pad width {static['pad_width']!r} must be whole numbers")
    return [(int(b), int(a)) for b, a in widths]


def _pad_shape(static, x):
    """Each axis padded by two or more is longer than one (by none: x's length); by one, longer
    than one when x's is one, else not known (0 becomes 1)."""
    if not x.known or static["pad_width"] is None:
        return shapes.UNKNOWN
    try:
        widths = _pad_widths(static, x.ndim)
    except SrcDiffError:
        return shapes.UNKNOWN
    dims = []
    for dim, (before, after) in zip(x.dims, widths):
        added = before + after
        dims.append(dim if added == 0 else shapes.MANY if added >= 2 or dim == shapes.ONE else shapes.UNKNOWN_DIM)
    return shapes.Shape(tuple(dims))


#: Modes whose border copies elements of x: each element of the result is one element of x,
#: found by padding x's positions (np.arange) the same way; its adjoint adds g back there.
COPYING_MODES = ("edge", "reflect", "symmetric", "wrap")
COPIED_BACK = ("np.reshape(index_add(np.zeros(np.size(x)), (np.ravel(np.pad(np.reshape(np.arange(np.size(x)), "
               "np.shape(x)), pad_width, mode)),), np.ravel(g)), np.shape(x))")


def _pad_templates(static, operand_shapes):
    if static["mode"] in COPYING_MODES and static["pad_width"] is not None:
        return {"x": COPIED_BACK}
    if static["mode"] != "constant":
        raise SrcDiffError(f"np.pad with mode={static['mode']!r} has no adjoint rule",
                           hint="pad with mode='constant' (the default), 'edge', 'reflect', 'symmetric' or "
                                "'wrap', or build the border yourself with np.concatenate of slices of the array")
    ndim = operand_shapes["x"].ndim
    if ndim is None or static["pad_width"] is None:
        return {}  # refused: the cuts need x's number of dimensions
    cuts = [f"{b}:{-a if a else ''}" for b, a in _pad_widths(static, ndim)]
    return {"x": f"g[{', '.join(cuts)}]" if cuts else "g"}


def _pad_tangents(static, operand_shapes):
    if not _pad_templates(static, operand_shapes):
        return {}
    return {"x": "np.pad(x_dot, pad_width)" if static["mode"] == "constant" else "np.pad(x_dot, pad_width, mode)"}


#: ``np.pad(x, (0, n - len(x)))``, a width computed when the function runs (a gradient is compiled
#: per number of axes, not per length): the width is an operand with no gradient, and x's elements
#: are where a pad of ones of x's shape is True (``g[1:-2]`` needs the widths as literals)
_CUT_WHEN_RUN = "np.reshape(np.ravel(g)[np.ravel(np.pad(np.ones(np.shape(x), np.bool_), pad_width))], np.shape(x))"


def _pad_when_run_templates(static, operand_shapes):
    if static["mode"] in COPYING_MODES:
        return {"x": COPIED_BACK}
    _pad_templates(dict(static, pad_width=0), {"x": shapes.UNKNOWN})  # (refuses another mode)
    return {"x": _CUT_WHEN_RUN}


def _pad_when_run_shape(static, x, pad_width):
    return shapes.Shape(tuple(shapes.UNKNOWN_DIM for _ in x.dims)) if x.known and not x.scalar else shapes.UNKNOWN


PAD_WHEN_RUN = rule(np.pad, ("x", "pad_width"), _pad_when_run_templates,
                    static={"mode": "constant", "constant_values": 0}, shape=_pad_when_run_shape,
                    tangents=lambda static, shapes_: {"x": "np.pad(x_dot, pad_width)" if static["mode"] == "constant"
                                                      else "np.pad(x_dot, pad_width, mode)"},
                    **NEW_ARRAY, sympy="numpy.pad")


def _along(axis: int, part: str) -> str:
    """An index taking `part` along `axis` (``:, part`` for 1; ``..., part`` counting from the end)."""
    if axis >= 0:
        return ", ".join([":"] * axis + [part])
    return ", ".join(["...", part] + [":"] * (-axis - 1))


def _append_templates(static, operand_shapes):
    axis = static["axis"]
    if axis is None:
        return {"x": "np.reshape(np.ravel(g)[:np.size(x)], np.shape(x))",
                "y": "np.reshape(np.ravel(g)[np.size(x):], np.shape(y))"}
    return {"x": f"g[{_along(axis, ':np.shape(x)[axis]')}]",
            "y": f"g[{_along(axis, 'np.shape(x)[axis]:')}]"}


#: ``np.insert(arr, obj, values, axis)``: arr's elements keep their order in the result, so its
#: adjoint is ``g`` where a mask of arr's positions (True, inserted False) is True.  Each
#: inserted element is found by inserting the flat indices of `values` plus one (broadcast as
#: NumPy does) among zeros: a scatter-add of ``g`` by those indices collects each value's
#: contributions (a value inserted at several positions gets their sum), arr's in slot 0.
_INSERT_TEMPLATES = {
    "arr": "np.reshape(np.ravel(g)[np.ravel(np.insert(np.ones(np.shape(arr), np.bool_), obj, False, axis))], "
           "np.shape(arr))",
    "values": "np.reshape(index_add(np.zeros(np.size(values) + 1, np.result_type(g)), (np.ravel(np.insert("
              "np.zeros(np.shape(arr), np.int_), obj, np.reshape(np.arange(1, np.size(values) + 1), np.shape(values)), "
              "axis)),), np.ravel(g))[1:], np.shape(values))",
}
_DELETE_TEMPLATE = ("np.reshape(index_add(np.zeros(np.size(arr), np.result_type(g)), (np.ravel(np.delete(np.reshape("
                    "np.arange(np.size(arr)), np.shape(arr)), obj, axis)),), np.ravel(g)), np.shape(arr))")


RULES = [
    # the shift is an operand with no gradient (a whole number): it may be computed, a loop's index
    rule(np.roll, ("x", "shift"), _roll_templates, static={"axis": None},
         shape=lambda static, x, shift: shapes.array(x), tangents=LINEAR, **NEW_ARRAY, sympy="numpy.roll",
         batching="moved",
         note="the shift carries no gradient and may be computed when the function runs (a loop's index)"),
    rule(np.rot90, ("x",), _rot90_templates, static={"k": 1, "axes": (0, 1)}, shape=_rot90_shape, tangents=LINEAR,
         sympy="numpy.rot90"),
    # the constant is not differentiated (a static argument), so the tangent pads with zeros
    rule(np.pad, ("x",), _pad_templates, static={"pad_width": None, "mode": "constant", "constant_values": 0},
         tangents=_pad_tangents, shape=_pad_shape,
         note="modes 'constant' (the default), 'edge', 'reflect', 'symmetric', 'wrap'",
         **NEW_ARRAY, sympy="numpy.pad"),
    rule(np.append, ("x", "y"), _append_templates, static={"axis": None},
         tangents={"x": "np.append(x_dot, np.zeros(np.shape(y), np.result_type(x_dot)), axis)",
                   "y": "np.append(np.zeros(np.shape(x), np.result_type(y_dot)), y_dot, axis)"}, **NEW_ARRAY,
         sympy="numpy.append"),
    # obj (the positions) is an operand with no gradient: it comes between arr and values
    rule(np.insert, ("arr", "obj", "values"), _INSERT_TEMPLATES, static={"axis": None},
         tangents={"arr": "np.insert(arr_dot, obj, 0.0, axis)",
                   "values": "np.insert(np.zeros(np.shape(arr), np.result_type(values_dot)), obj, values_dot, axis)"},
         **NEW_ARRAY, sympy="numpy.insert"),
    rule(np.delete, ("arr", "obj"), {"arr": _DELETE_TEMPLATE}, static={"axis": None},
         tangents={"arr": "np.delete(arr_dot, obj, axis)"}, **NEW_ARRAY, sympy="numpy.delete"),
]
