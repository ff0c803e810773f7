"""numba's spellings of NumPy's array building calls (arrays.py, linalg_more.py hold the
helpers), one rule per call, used by spelling.py's rewriter:

* ``np.tile(x, reps)``, ``np.repeat(x, r, axis=k)``, ``np.add.reduceat(a, idx, axis=k)``,
  ``np.squeeze(x, axis=k)`` (``x.squeeze(axis=k)`` too): a constant list among the arguments becomes a tuple, so numba
  sees its values (a tuple of constants is typed by value);
* ``np.roll``/``np.diff`` along a constant axis (numba's own without one); ``np.cross`` with
  its axes at their defaults (numba's own, which takes none);
* ``np.atleast_1d(x)`` (``2d``, ``3d``) of one value, a number too (``np.r_[x[:2], 0.5]``);
* ``np.unique(x)`` of a list (``sorted(set(labels))``) or of ``g.tolist()``: of the array;
  ``g.tolist()`` elsewhere: ``as_list(g)`` (as_lists.py), a list of a vector's items;
* ``np.ndim(x)``; ``np.ones_like``/``zeros_like``/``empty_like``/``full_like`` with ``dtype=``;
* ``np.issubdtype(np.result_type(v), np.floating)``, ``np.issubdtype(t, np.floating)``,
  ``np.result_type(v)`` of one value;
* ``np.tensordot(a, b, axes)`` with constant axes;
* ``np.multiply.outer(a, b)`` (a binary ufunc's ``outer``: numba has no ufunc methods; the
  adjoint of a trace whose operand's axes were not known): ``ufunc_outer(a, b, "multiply")``;
* ``np.zeros([n, 1])`` (``ones``, ``empty``, ``full``): a shape written as a list becomes a
  tuple, the one numba takes (``dtype=`` passed by position).

A call whose arguments are not of these forms is left alone: numba then refuses it at the
user's line.
"""

from __future__ import annotations

import ast

#: binary ufuncs whose ``outer`` is their call on a and b with a's axes first
OUTER_UFUNCS = ("multiply", "add", "subtract", "divide", "true_divide", "power", "maximum", "minimum", "hypot",
                "arctan2", "logaddexp")
LIKE = {"ones_like": 1.0, "zeros_like": 0.0, "empty_like": 0.0}
AT_LEAST = {"atleast_1d": 1, "atleast_2d": 2, "atleast_3d": 3}
FROM_SHAPE = {"zeros": 1, "ones": 1, "empty": 1, "full": 2}  # -> the position of dtype


def _is_np(func: ast.expr, name: str) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == name and isinstance(func.value, ast.Name) \
        and func.value.id == "np"


def _keywords(node: ast.Call) -> dict:
    return {k.arg: k.value for k in node.keywords}


def _constant_tuple(node: ast.expr) -> ast.expr:
    """A list of integer constants as a tuple of them; anything else as it is."""
    if isinstance(node, ast.List) and all(isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts):
        return ast.Tuple(list(node.elts), ast.Load())
    return node


def _is_constant(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True


def _axis(node: ast.Call, position: int, default=None):
    """The call's axis argument (by position or keyword), or `default`."""
    if len(node.args) > position:
        return node.args[position]
    return _keywords(node).get("axis", default)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_default_cross(node: ast.expr) -> bool:
    """An axis argument of np.cross that says what numba's does: the last axes (-1), or None."""
    return _is_none(node) or (_is_constant(node) and ast.literal_eval(node) == -1)


def spell(node: ast.Call) -> tuple[str, list] | None:
    """(helper, arguments) the call `node` becomes, or None to keep it; a helper ``np.name``
    is numba's NumPy, called with arguments it takes."""
    func, args, keywords = node.func, node.args, _keywords(node)
    if isinstance(func, ast.Attribute) and func.attr == "outer" and isinstance(func.value, ast.Attribute) \
            and func.value.attr in OUTER_UFUNCS and _is_np(func.value, func.value.attr) and len(args) == 2 \
            and not keywords:
        return "ufunc_outer", [*args, ast.Constant(func.value.attr)]
    if _is_np(func, "tile") and len(args) == 2 and not keywords:
        return "tile_by", [args[0], _constant_tuple(args[1])]
    if _is_np(func, "repeat") and len(args) + len(keywords) == 3 and set(keywords) <= {"axis"}:
        axis = _axis(node, 2)
        if axis is not None and _is_constant(axis) and ast.literal_eval(axis) is not None:
            return "repeat_along", [args[0], _constant_tuple(args[1]), axis]
    if isinstance(func, ast.Attribute) and func.attr == "reduceat" and _is_np(func.value, "add") \
            and 2 <= len(args) + len(keywords) <= 3 and set(keywords) <= {"axis"}:
        return "add_reduceat", [args[0], _constant_tuple(args[1]), _axis(node, 2, ast.Constant(0))]
    if _is_np(func, "unique") and len(args) == 1 and not keywords:  # (of a list of labels too: numba's takes arrays)
        x = args[0]
        if isinstance(x, ast.Call) and isinstance(x.func, ast.Attribute) and x.func.attr == "tolist" and not x.args:
            x = x.func.value  # ``np.unique(g.tolist())``: the same labels, sorted, as of the array
        return "np.unique", [ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "asarray", ast.Load()), [x], [])]
    if isinstance(func, ast.Attribute) and func.attr == "tolist" and not args and not keywords \
            and not (isinstance(func.value, ast.Name) and func.value.id in ("np", "math")):
        return "as_list", [func.value]
    if _is_np(func, "squeeze") and len(args) + len(keywords) == 2 and set(keywords) <= {"axis"}:
        axis = _axis(node, 1)
        if _is_constant(axis) and ast.literal_eval(axis) is not None:
            return "squeeze_axes", [args[0], _constant_tuple(axis)]
    if isinstance(func, ast.Attribute) and func.attr == "squeeze" and not _is_np(func, "squeeze"):
        axis = args[0] if len(args) == 1 and not keywords else keywords.get("axis") if len(args) == 0 else None
        if axis is not None and set(keywords) <= {"axis"} and _is_constant(axis) and ast.literal_eval(axis) is not None:
            return "squeeze_axes", [func.value, _constant_tuple(axis)]  # the method ``y.squeeze(axis=...)``
    if _is_np(func, "roll") and 2 <= len(args) + len(keywords) <= 3 and set(keywords) <= {"axis"}:
        axis = _axis(node, 2)
        if axis is None or _is_none(axis):
            return "np.roll", args[:2]  # numba's: the flattened array
        if _is_constant(axis):
            return "roll_axis", [args[0], args[1], axis]
    if _is_np(func, "diff") and set(keywords) <= {"n", "axis"} and 1 <= len(args) <= 3:
        n = args[1] if len(args) > 1 else keywords.get("n", ast.Constant(1))
        axis = args[2] if len(args) > 2 else keywords.get("axis")
        if axis is not None and _is_constant(axis):
            return "diff_axis", [args[0], n, axis]
        if set(keywords) - {"n"} == set() and len(args) <= 2:
            return "np.diff", [args[0], n]  # numba's: along the last axis, n positional
    if _is_np(func, "cross") and len(args) >= 2 and all(_is_default_cross(a) for a in args[2:]) \
            and all(_is_default_cross(k.value) for k in node.keywords):
        return "np.cross", args[:2]  # numba's: along the last axes
    if isinstance(func, ast.Attribute) and func.attr in AT_LEAST and _is_np(func, func.attr) and len(args) == 1 \
            and not keywords:
        return "at_least", [args[0], ast.Constant(AT_LEAST[func.attr])]  # (of a number too: at_least.py)
    if _is_np(func, "ndim") and len(args) == 1 and not keywords:
        return "ndim_of", list(args)
    if isinstance(func, ast.Attribute) and func.attr in LIKE and _is_np(func, func.attr) and len(args) == 1 \
            and set(keywords) == {"dtype"}:
        return "filled_like", [args[0], ast.Constant(LIKE[func.attr]), keywords["dtype"]]
    if _is_np(func, "full_like") and len(args) == 2 and set(keywords) == {"dtype"}:
        return "filled_like", [args[0], args[1], keywords["dtype"]]
    if _is_np(func, "issubdtype") and len(args) == 2 and not keywords and _is_np(args[1], "floating"):
        kind = args[0]
        if isinstance(kind, ast.Call) and _is_np(kind.func, "result_type") and len(kind.args) == 1 \
                and not kind.keywords:
            return "floating_value", list(kind.args)
        return "is_floating", [kind]
    if _is_np(func, "result_type") and len(args) == 1 and not keywords:
        return "result_dtype", list(args)
    if isinstance(func, ast.Attribute) and func.attr in FROM_SHAPE and _is_np(func, func.attr) and args \
            and isinstance(args[0], ast.List) and set(keywords) <= {"dtype"} \
            and (len(args) == FROM_SHAPE[func.attr] if keywords else len(args) <= FROM_SHAPE[func.attr] + 1):
        shape = ast.Tuple(list(args[0].elts), ast.Load())
        return f"np.{func.attr}", [shape, *args[1:], *([keywords["dtype"]] if keywords else [])]
    if _is_np(func, "tensordot") and 2 <= len(args) + len(keywords) <= 3 and set(keywords) <= {"axes"}:
        axes = args[2] if len(args) == 3 else keywords.get("axes", ast.Constant(2))
        if _is_constant(axes):
            value = ast.literal_eval(axes)
            if isinstance(value, int):
                return "tensordot_fixed", [args[0], args[1], ast.Constant(value)]
            first, second = ([v] if isinstance(v, int) else list(v) for v in value)
            return "tensordot_pairs", [args[0], args[1], ast.Tuple([ast.Constant(v) for v in first], ast.Load()),
                                       ast.Tuple([ast.Constant(v) for v in second], ast.Load())]
    return None
