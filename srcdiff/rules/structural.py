"""The primitives lowering itself introduces: copies, subscripts, list operations, builtins.

They are `Rule`s like the table's, but they belong to the language rather than to a library,
so they are not looked up by the function a user calls: lowering names them directly.
`GETITEM` and `APPEND` need statements rather than expressions in the backward sweep
(a scatter-add, a pop), so the reverse pass recognises them by identity.
"""

from __future__ import annotations

import ast
import builtins
import operator

from ..ir import memo, shapes
from .runtime import set_item
from .table import LINEAR, Rule, rule


def _same(static, x):
    return x


def _scalar(static, *operands):
    return shapes.SCALAR


def copy_value(x):
    """Stands for ``y = x``: the value itself, under a new name."""
    return x


COPY = rule(copy_value, ("x",), {"x": "g"}, name="copy", shape=_same, tangents=LINEAR, batching="same")

#: A value that carries no gradient (comparisons, len, .shape, conditions), computed by
#: the user's own expression: no inputs are differentiated through it.
NOGRAD = Rule(None, "nograd", (), {}, nograd=True)


#: Text made from values (``str(x)``, ``repr``, ``format``, an f-string): no gradient, but
#: a number parsed back from it (``float(str(x))``) is the value itself, so text made from
#: a differentiated value that the output depends on is refused (`refuses_active`).
STRING = Rule(None, "str", (), {}, nograd=True,
              refuses_active="text made from a differentiated value (str, repr, format, an f-string) and "
                             "parsed back into a number has no gradient: use the number itself "
                             "(format it only for messages)")


#: A conversion to an integer or bool dtype (``m.astype(bool)``, ``np.asarray(k, dtype=int)``):
#: no gradient, and fine for a value that does not depend on the differentiated input (a mask
#: given as floats); where it truncates one the output depends on, it is refused.
TRUNCATE = Rule(None, "a conversion to an integer or bool dtype", (), {}, nograd=True,
                refuses_active="compute the mask or index from values that are not differentiated, or "
                               "convert to a floating dtype (float, np.float64)",
                refusal="converting a differentiated value to an integer or bool dtype would truncate the "
                        "gradient")


def _compared_shape(static, *operands):
    return shapes.broadcast(*operands)


#: A comparison of plain names and constants (``x > 0``): no gradient, and the broadcast
#: shape of what it compares, so that ``np.where(x > 0, ...)`` has a known shape.
COMPARE = Rule(None, "compare", (), {}, nograd=True, shape=_compared_shape, batching="elementwise")


def _getitem_shape(static, x, *index):
    """Basic indexing: ints drop an axis, slices keep it (``:`` with its length, ``:n`` of a
    length `_sliced` can tell; others of a length unknown), None adds one, ``...`` keeps the
    axes the others do not name."""
    if not x.known:
        return shapes.UNKNOWN
    dims, axis, parts = [], 0, iter(index)
    bounds = iter(static.get("slices", ()))
    named = sum(kind in ("int", "op", "slice") for kind, _ in static["index"])
    for kind, count in static["index"]:
        operands = [next(parts) for _ in range(count)]
        if kind == "ellipsis":  # ``x[..., 0]``: every axis the other components leave
            spread = x.ndim - named
            if spread < 0:
                return shapes.UNKNOWN
            dims += list(x.dims[axis:axis + spread])
            axis += spread
        elif kind == "int" or (kind == "op" and operands[0].known and operands[0].ndim == 0):
            axis += 1
        elif kind == "slice":
            dims.append(_sliced(x.dims[axis] if axis < x.ndim else shapes.UNKNOWN_DIM, next(bounds, None), operands))
            axis += 1
        elif kind == "newaxis":
            dims.append(shapes.ONE)
        else:
            return shapes.UNKNOWN  # an index array: any shape
    if axis > x.ndim:
        return shapes.UNKNOWN
    dims += list(x.dims[axis:])
    return shapes.Shape(tuple(dims), scalar=not dims and x.ndim > 0)


def _sliced(dim: str, bounds, operands: list) -> str:
    """The length class of an axis of length class `dim` sliced by `bounds` (start, stop, step;
    `operands` the shapes of those that are values).  ``:`` keeps the axis.  ``:stop`` keeps
    min(stop, length), never 1 when neither is 1 and stop >= 0: a literal stop of 0 or at least
    2, or an int read from a shape (`Shape.length`), on an axis longer than 1."""
    if bounds is None:
        return shapes.UNKNOWN_DIM
    start, stop, step = bounds
    if start is None and stop is None and step in (None, 1):
        return dim
    if start is None and step in (None, 1) and dim == shapes.MANY:
        if stop == "op":
            return shapes.MANY if operands and operands[0].length == shapes.MANY else shapes.UNKNOWN_DIM
        return shapes.MANY if type(stop) is int and (stop == 0 or stop >= 2) else shapes.UNKNOWN_DIM
    return shapes.UNKNOWN_DIM


#: ``x[index]``: the reverse pass scatters the adjoint back into x's adjoint.
GETITEM = Rule(operator.getitem, "getitem", ("x",), {}, shape=_getitem_shape, tangents=LINEAR, batching="getitem")

#: ``xs.append(v)``: the list keeps its name; the backward sweep pops v's adjoint.
#: (Its tangent is appended to the list's tangent: ad/tangent.py.)
APPEND = Rule(list.append, "list.append", ("x", "v"), {"v": "g.pop()"}, pure=False)  # it changes xs

#: ``sum(xs)`` over a list, and over the rows of an array.
#: (g once per item, summed back to the item's shape: ``sum([np.sum(v), v])`` broadcasts a number and a vector)
SUM_LIST = Rule(builtins.sum, "sum(list)", ("x",), {"x": "list_repeat(g, x)"}, tangents=LINEAR,  # builtins: unvalidated
                derivable={"x": "list_repeat(g, x)"})  # a helper with a rule (rules/list_helpers.py)
SUM_ROWS = rule(builtins.sum, ("x",), {"x": "np.zeros(np.shape(x)) + g"}, name="sum", tangents=LINEAR)

#: ``np.stack(xs)`` / ``np.array(xs)`` of a list: the adjoint is the list of the rows.
def _rows_templates(static, operand_shapes):
    """The rows as Python floats where the list holds numbers (``np.sum([... for i in ...])``): its items'
    adjoints then add as floats, not NumPy scalars; else as the arrays the list holds."""
    items = getattr(operand_shapes.get("x"), "items", None)
    return {"x": "g.tolist()" if items is not None and items.scalar and items.dims == () else "list(g)"}


STACK_LIST = Rule(list, "stack(list)", ("x",), _rows_templates, tangents=LINEAR, derivable={"x": "list_rows(g)"})

for _rule, _text in ((STACK_LIST, "list(g)"), (STACK_LIST, "g.tolist()")):
    # these templates call list builtins the rule-template checker does not allow
    _rule._parsed[("x", _text)] = ast.parse(_text, mode="eval").body

FLOAT = rule(builtins.float, ("x",), {"x": "g"}, name="float", shape=_scalar, float_result=True, fresh=True,
             tangents=LINEAR)


def _abs_templates(static, operand_shapes):
    return {"x": "g * np.sign(x)"}  # np.sign(0.0) is 0: the subgradient 0 at the kink


ABS = rule(builtins.abs, ("x",), _abs_templates, name="abs", shape=_same, tangents={"x": "x_dot * np.sign(x)"},
           derivable={"x": "kink(x == 0, g * np.sign(x), x)"}, batching="elementwise")
# ties give each side half the gradient, as np.maximum's rule does (max(x, 0) + min(x, 0) = x
# has the derivative 1 at 0); the side not taken gets an exact zero (selected: `Rule.selects`),
# never 0 * inf; the derivable form's share has a NaN derivative at a tie (rules/kinks.tie)
HALVES = {"x": "0.5 * g if x == y else g", "y": "0.5 * g if x == y else g"}
HALF_TANGENTS = {"x": "0.5 * x_dot if x == y else x_dot", "y": "0.5 * y_dot if x == y else y_dot"}
TIES = {"x": "tie(x == y, g, x, y)", "y": "tie(x == y, g, x, y)"}


def _picked(static, *operands):
    """builtin max / min of numbers: one of them, a number (of arrays: not known here)."""
    return shapes.SCALAR if operands and all(o.scalar for o in operands) else shapes.UNKNOWN


MAX = rule(builtins.max, ("x", "y"), HALVES, name="max", derivable=TIES, batching="extreme", shape=_picked,
           selects={"x": ("x >= y", True), "y": ("x <= y", True)}, tangents=HALF_TANGENTS)
MIN = rule(builtins.min, ("x", "y"), HALVES, name="min", derivable=TIES, batching="extreme", shape=_picked,
           selects={"x": ("x <= y", True), "y": ("x >= y", True)}, tangents=HALF_TANGENTS)

_LISTS: dict[int, Rule] = memo.table()


def list_of(count: int) -> Rule:
    """``[x0, x1, ...]`` (and tuples used as values): element j's adjoint is ``g[j]``."""
    if count not in _LISTS:
        params = tuple(f"x{j}" for j in range(count))
        _LISTS[count] = Rule(list, "list", params, {p: f"g[{j}]" for j, p in enumerate(params)}, tangents=LINEAR)
    return _LISTS[count]


def _setitem_shape(static, x, *rest):
    return shapes.array(x)


def _setitem_templates(static, operand_shapes):
    """``ans = x with x[index] = v``: v's adjoint is g read at index (summed back to v's shape
    where v was broadcast into the slot); x's is g with those positions zeroed, on a copy."""
    index, ints = static["index"] or "()", static["ints"]  # "" is the 0-d write x[()] = v
    x, v = operand_shapes["x"], operand_shapes["v"]
    picked = f"g[{index}]"
    one = x.known and x.ndim == ints and all(
        s.known and s.ndim == 0 for p, s in operand_shapes.items() if p not in ("x", "v"))
    slot = _slot_shape(index, x, operand_shapes)
    if v.known and v.ndim == 0:  # one element written, or a number broadcast into a slice
        v_bar = picked if one else f"np.sum({picked})"
    elif v.known and slot.known and v.dims == slot.dims and shapes.UNKNOWN_DIM not in v.dims:
        v_bar = picked  # v fills the slot as it is: it broadcast into it, so their lengths agree
    else:
        v_bar = f"unbroadcast({picked}, v)"
    # one argument for zero_item: a tuple when the index has several parts (``i0, i1``)
    spelled = f"np.s_[{index}]" if ":" in index else f"({index},)" if "," in index else index
    return {"x": f"zero_item(g, {spelled})", "v": v_bar}


def _slot_shape(index: str, x: shapes.Shape, operand_shapes) -> shapes.Shape:
    """The shape of ``x[index]`` for an index of ints and whole slices (``0, :``); unknown
    for anything else (a part of an axis, an array of indices, an ellipsis)."""
    if not x.known:
        return shapes.UNKNOWN
    parts = ast.parse(f"x[{index}]", mode="eval").body.slice
    dims = list(x.dims)
    kept = []
    for part in parts.elts if isinstance(parts, ast.Tuple) else [parts]:
        if not dims:
            return shapes.UNKNOWN
        number = isinstance(part, ast.Constant) and type(part.value) is int
        named = isinstance(part, ast.Name) and operand_shapes.get(part.id, shapes.UNKNOWN).scalar
        if isinstance(part, ast.Slice) and part.lower is None and part.upper is None and part.step is None:
            kept.append(dims.pop(0))
        elif number or named:
            dims.pop(0)
        else:
            return shapes.UNKNOWN
    return shapes.Shape(tuple(kept + dims))


_SETITEMS: dict[int, Rule] = memo.table()


def setitem_rule(count: int) -> Rule:
    """``x[index] = v`` as the functional update ``ans = set_item(x, index, v)``.

    The static `index` is the subscript's text with its operands named i0, i1, ...
    (``"i0, 1:"``); `ints` counts its integer components (-1 when any is a slice).
    """
    if count not in _SETITEMS:
        params = ("x", "v") + tuple(f"i{j}" for j in range(count))
        _SETITEMS[count] = rule(set_item, params, _setitem_templates, name="setitem",
                                static={"index": ", ".join(params[2:]) or "0", "ints": count},
                                shape=_setitem_shape, fresh=True,  # set_item writes into a copy
                                tangents=LINEAR, batching="setitem")
    return _SETITEMS[count]


def is_setitem(r: Rule) -> bool:
    return r.name == "setitem" and r.func is set_item


#: ``rest.remove(item)`` of a list of indices: its new value, no gradient (rules/list_edits.py)
LIST_EDIT = Rule(None, "a list changed in place", (), {}, nograd=True,
                 refuses_active="keep the positions in a list of ints and change that (``rest.remove(k)``), "
                                "reading the numbers at them from an array (``theta[rest]``)",
                 refusal="a list whose items depend on the differentiated input, changed in place by .remove / "
                         ".pop / .insert: srcdiff follows such changes only for lists that carry no gradient "
                         "(indices)")

#: Rules that accept list operands (everything else refuses a list).
LIST_AWARE = {GETITEM, APPEND, SUM_LIST, STACK_LIST, COPY, NOGRAD, COMPARE, LIST_EDIT}

_USER: dict[object, Rule] = memo.table()


def user_rule(func, params: tuple[str, ...]) -> Rule:
    """The rule object a call to a user function's node carries (its adjoint is generated)."""
    key = (func, params)
    if key not in _USER:
        name = getattr(func, "__qualname__", getattr(func, "__name__", "function"))
        _USER[key] = Rule(func, name, params, {}, pure=False)  # srcdiff does not look inside: may have effects
    return _USER[key]


def gradient_inputs(node) -> list:
    """The operands of `node` (an IR `Node`) whose gradient reaches its result: none for a
    rule with no gradient, the array alone for a subscript."""
    if getattr(node.rule, "nograd", False):
        return []
    return node.input_vars if node.rule is not GETITEM else node.input_vars[:1]
