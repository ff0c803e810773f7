"""Stage 3: from the arguments' signatures, the `Shape` of every value in the graph.

The shapes decide how each adjoint is summed back after broadcasting (or that nothing needs
summing), and let rules pick the `math` path for Python floats.  Unknown stays unknown: the
generated code then asks at run time instead of guessing.  A loop-carried value keeps its
shape only when every iteration gives it the same one (a fixpoint over the loop); a value
both sides of a branch assign keeps a shape only when they agree (`shapes.join`: a number
on one side and a 0-d value on the other is a 0-d value).
"""

from __future__ import annotations

import ast
import dataclasses
import math

import numpy as np

from . import shapes
from .nodes import Branch, Const, Function, Loop, Node, Operand, UserCall, Var, all_nodes
from .shapes import Shape


def infer_shapes(function: Function, param_shapes: dict[str, Shape], call_shape=None,
                 lengths: dict[str, str] | None = None) -> dict[str, Shape]:
    """The Shape of every `Var` in `function` (and of every `Global` whose shape is
    guarded), keyed by name.

    `call_shape(node, operand_shapes)` gives the shape a call of another user function
    returns (the driver infers it from the callee's own lowering); without it, unknown.
    `lengths`: ints computed from shapes the code is compiled as being of those lengths, and
    slices whose axes (a tuple) it is compiled as being longer than one (driver/computed_lengths.py,
    which tests them when it runs)."""
    lengths = lengths or {}
    known: dict[str, Shape] = {p.name: param_shapes.get(p.name, shapes.UNKNOWN) for p in function.params}
    items: dict[str, Shape | None] = {}  # a list built here -> what is known of all its items (None: none yet)

    def shape_of(operand: Operand) -> Shape:
        if isinstance(operand, Var):
            return known.get(operand.name, shapes.UNKNOWN)
        if isinstance(operand, Const):
            return shapes.of_constant(operand.value)
        if operand.shape is not None:  # known where the transform is guarded on it
            known[operand.name] = operand.shape
        return operand.shape or shapes.UNKNOWN

    def assign(name: str, shape: Shape, seen: set[str]) -> None:
        if name in seen:
            shape = shapes.join(known.get(name, shapes.UNKNOWN), shape)  # assigned on two paths
        seen.add(name)
        assumed = lengths.get(name)
        if isinstance(assumed, str):  # an int of that length
            shape = Shape((), scalar=True, length=assumed)
        elif assumed and shape.known:  # a slice, those axes of that length
            shape = dataclasses.replace(shape, dims=tuple(shapes.MANY if axis in assumed else dim
                                                          for axis, dim in enumerate(shape.dims)))
        known[name] = shape

    def block(b, seen: set[str]) -> None:
        for item in b.nodes:
            if isinstance(item, Branch):
                block(item.body, seen)
                block(item.orelse, seen)
            elif isinstance(item, Loop):
                loop(item, seen)
            else:
                operands = [shape_of(v) for v in item.inputs]
                try:
                    if isinstance(item, UserCall):
                        shape = call_shape(item, operands) if call_shape else shapes.UNKNOWN
                    else:
                        shape = _of_list(item, operands, items) or _of_shape_tuple(item, operands) \
                            or _computed(item, operands)
                except Exception:  # e.g. an axis out of range: the forward pass will say so itself
                    shape = shapes.UNKNOWN
                assign(item.out.name, shape, seen)

    def loop(item: Loop, seen: set[str]) -> None:
        if item.target is not None:
            known[item.target.name] = shapes.SCALAR  # range() gives Python ints
        for c in item.carried:
            known[c.var.name] = shape_of(c.init)
        # a carried shape only widens (a number to a 0-d value, an axis's length to unknown, then
        # all to unknown): this settles
        widenings = sum(2 + (known[c.var.name].ndim or 0) for c in item.carried)
        for _ in range(widenings + 2):
            block(item.body, set())
            changed = False
            for c in item.carried:
                joined = shapes.join(known[c.var.name], shape_of(c.final))
                if joined != known[c.var.name]:
                    known[c.var.name] = joined
                    changed = True
            if not changed:
                break
        else:  # not settled (it always does): nothing known about what the loop carries
            for c in item.carried:
                known[c.var.name] = shapes.UNKNOWN
            block(item.body, set())
        seen.update(c.var.name for c in item.carried)

    block(function.body, set())
    grown = [{n.inputs[0].name for n in all_nodes(function) if isinstance(n, Node) and n.rule.name == rule
              and n.inputs and isinstance(n.inputs[0], Var)} for rule in ("stack(list)", "list.append")]
    for name, each in items.items():  # a comprehension stacked: what its items are (``np.sum([...])``'s adjoint)
        if name in grown[0] & grown[1] and each is not None and each.known and known.get(name) == shapes.UNKNOWN:
            known[name] = Shape(None, items=each)
    return known


_FROM_SHAPE = ("numpy.zeros", "numpy.ones", "numpy.empty")


def _computed(item, operands: list[Shape]) -> Shape:
    """The rule's shape of `item`'s value; an axis length (`Shape.length`) is kept by a copy
    only: any other rule makes a new number (``np.imag(n)`` keeps n's shape, not its value)."""
    shape = item.rule.result_shape(item.static, operands)
    if shape.length is not None and item.rule.name != "copy":
        return dataclasses.replace(shape, length=None)
    return shape


def _of_list(item, operands: list[Shape], items: dict) -> Shape | None:
    """Lists built in the function: what their items are known to be (every item the list
    is made with or appended, joined), and so the shape of an item read back by index or of
    the sum of them.  The lists themselves stay of unknown shape (None)."""
    name = item.rule.name
    first = item.inputs[0].name if item.inputs and isinstance(item.inputs[0], Var) else None
    if item.out.name in items and name not in ("list", "list.append", "copy"):
        items[item.out.name] = shapes.UNKNOWN  # made again by something else: nothing known
    if name in SPLIT_AXES and operands and operands[0].known and operands[0].ndim:
        axis = SPLIT_AXES[name](item.static, operands[0].ndim)
        if type(axis) is int and -operands[0].ndim <= axis < operands[0].ndim:
            dims = list(operands[0].dims)
            dims[axis] = shapes.UNKNOWN_DIM  # every part has the array's other axes
            items[item.out.name] = Shape(tuple(dims))
        return None
    literal = _literal_data(item.expr) if name == "nograd" else None
    if literal is not None and literal.ndim:  # [1.0, 2.0, 3.0]: numbers (or rows) of one shape
        items[item.out.name] = shapes.of_constant(literal[0])
    elif name == "list" and isinstance(item.expr, (ast.List, ast.Tuple)):
        _join_items(items, item.out.name, operands)
    elif name == "list.append" and first in items and len(operands) == 2:
        _join_items(items, first, operands[1:])
    elif name == "copy" and first in items:
        _join_items(items, item.out.name, [] if items[first] is None else [items[first]])
    elif operands and operands[0].items is not None and name in _ITEM_READS:
        return _item_of(item, operands, operands[0].items)  # an item of a tuple or list argument (or module's)
    elif items.get(first) is not None and items[first].known:
        return _item_of(item, operands, items[first])
    return None


#: the rules reading a tuple or list's items whose shape `_item_of` knows
_ITEM_READS = ("getitem", "sum(list)", "stack(list)", "numpy.array", "numpy.asarray")


def _item_of(item, operands: list[Shape], each: Shape) -> Shape | None:
    """The shape of an item of a list whose items are all of shape `each`, read by index, or of their sum
    or stack."""
    name = item.rule.name
    index = [kind for kind, _ in item.static.get("index", ())]
    if name == "getitem" and (index == ["int"] or (index == ["op"] and operands[1:2] == [shapes.SCALAR])):
        return each
    if name == "sum(list)" and each.scalar:
        return shapes.SCALAR
    if name in ("stack(list)", "numpy.array", "numpy.asarray"):  # one axis more than its items
        return Shape((shapes.UNKNOWN_DIM, *each.dims))
    return None


#: splits, and the axis each cuts along (from its statics and the array's ndim)
SPLIT_AXES = {"numpy.split": lambda static, ndim: static.get("axis", 0),
           "numpy.array_split": lambda static, ndim: static.get("axis", 0),
           "numpy.hsplit": lambda static, ndim: 1 if ndim > 1 else 0,
           "numpy.vsplit": lambda static, ndim: 0,
           "numpy.dsplit": lambda static, ndim: 2}


def _join_items(items: dict, name: str, shapes_: list[Shape]) -> None:
    for shape in shapes_:
        before = items.get(name)
        items[name] = shape if before is None else shapes.join(before, shape)
    items.setdefault(name, None)


def _of_shape_tuple(item, operands: list[Shape]) -> Shape | None:
    """Shapes through ``x.shape``: the tuple itself, an item of it (an int), and an array
    made from it (``np.zeros(x.shape)`` has x's dims); an array made with a literal shape."""
    expr, name = item.expr, item.rule.name
    made = made_shape(name, expr, operands, item.inputs)
    if made is not None:
        return made
    if name == "numpy.arange" and isinstance(expr, ast.Call) and not expr.keywords and 1 <= len(expr.args) <= 3:
        bounds = [_literal_number(a) for a in expr.args]  # np.arange(5.0): its length, without making it
        if None not in bounds:
            start, stop, step = (0, *bounds, 1) if len(bounds) == 1 else (*bounds, 1) if len(bounds) == 2 else bounds
            if step:
                return Shape((shapes.ONE if math.ceil((stop - start) / step) == 1 else shapes.MANY,))
    if name == "nograd" and isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len":
        return shapes.SCALAR  # an int: ``loss / len(xs)`` stays a number the code knows
    if name == "nograd" and isinstance(expr, ast.Attribute) and expr.attr in ("size", "ndim") and len(operands) == 1 \
            and operands[0].known and _names(expr.value, item.inputs[0]):
        return shapes.SCALAR  # an int: np.mean's ``1.0 / x.size`` in a generated gradient
    if name == "nograd" and isinstance(expr, ast.BinOp) and _scalar_arithmetic(expr, operands, item.inputs):
        return shapes.SCALAR  # ``n - 1 - k``, reversed(list(enumerate(xs)))'s item: an int, as the counter
    if name == "nograd" and len(operands) == len(item.inputs) and _elementwise_test(expr, item.inputs):
        return shapes.broadcast(*operands)  # ``(t >= -1.0) & (t <= 1.0)``: a mask shaped like what it compares
    if name == "nograd" and isinstance(expr, ast.Attribute) and expr.attr == "shape" and len(operands) == 1 \
            and operands[0].known and not operands[0].scalar and _names(expr.value, item.inputs[0]):
        return Shape(None, shape_of=operands[0].dims)  # (x.shape, not np.linalg.eigvalsh(x).shape: another's)
    if not operands or operands[0].shape_of is None:
        return None
    if name == "getitem" and [kind for kind, _ in item.static.get("index", ())] == ["int"]:
        return _axis_length(expr, operands[0].shape_of)
    if name == "getitem" and (kept := _shape_slice(expr, operands[0].shape_of)) is not None:
        return Shape(None, shape_of=kept)  # ``x.shape[1:]``: the dims of those axes (``np.zeros(x.shape[1:])``)
    if name in _FROM_SHAPE and isinstance(expr, ast.Call) and len(expr.args) == 1 \
            and all(k.arg == "dtype" for k in expr.keywords):  # (a float32 variant's fills: dtype=np.float32)
        return Shape(operands[0].shape_of)
    if name == "numpy.full" and isinstance(expr, ast.Call) and len(expr.args) == 2 \
            and all(k.arg == "dtype" for k in expr.keywords):  # (the fill is broadcast to the shape given)
        return Shape(operands[0].shape_of)
    return None


def _scalar_arithmetic(expr: ast.BinOp, operands: list, inputs) -> bool:
    """Whether `expr` adds and subtracts its operands, each a number, and numbers written in the code alone."""
    names = {getattr(v, "name", None) for v in inputs}
    for node in ast.walk(expr):
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)) or \
                isinstance(node, ast.Name) and node.id not in names or \
                not isinstance(node, (ast.BinOp, ast.Add, ast.Sub, ast.Name, ast.Load, ast.Constant)):
            return False
    return bool(operands) and all(o.known and o.scalar for o in operands)


def _elementwise_test(expr: ast.expr, inputs) -> bool:
    """Whether `expr` compares its operands and numbers written in the code element by element and joins the
    results with ``&``, ``|``, ``^`` or ``~`` (its shape is their broadcast, as a comparison's)."""
    names = {getattr(v, "name", None) for v in inputs}
    steps = (ast.BitAnd, ast.BitOr, ast.BitXor)
    signs = (ast.Invert, ast.USub, ast.UAdd)
    for node in ast.walk(expr):
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, bool)) or \
                isinstance(node, ast.Name) and node.id not in names or \
                isinstance(node, ast.BinOp) and not isinstance(node.op, steps) or \
                isinstance(node, ast.UnaryOp) and not isinstance(node.op, signs) or \
                not isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Name, ast.Load, ast.Constant, *steps,
                                      *signs, ast.cmpop)):
            return False
    return any(isinstance(node, ast.Compare) for node in ast.walk(expr))


def _names(expr: ast.expr, operand) -> bool:
    """Whether `expr` is the name of `operand` itself (a value read, not a value computed from it)."""
    return isinstance(expr, ast.Name) and expr.id == getattr(operand, "name", None)


def _shape_slice(expr: ast.expr, dims: tuple[str, ...]) -> tuple[str, ...] | None:
    """``x.shape[j:k]`` with literal int bounds (or none) and no step: those axes' dims (a tuple slices exactly)."""
    part = expr.slice if isinstance(expr, ast.Subscript) else None
    if not isinstance(part, ast.Slice) or part.step is not None:
        return None
    bounds = [None if b is None else _literal_int(b) for b in (part.lower, part.upper)]
    if any(b is False for b in bounds):
        return None
    return dims[bounds[0]:bounds[1]]


def _literal_int(node: ast.expr) -> int | bool:
    """The int a bound is written as (``1``, ``-1``), or False."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _literal_int(node.operand)
        return False if inner is False else -inner
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else False


def _axis_length(expr: ast.expr, dims: tuple[str, ...]) -> Shape:
    """``x.shape[k]``: an int, with what the signature says of that axis (`Shape.length`)."""
    k = expr.slice.value if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) else None
    if type(k) is not int or not -len(dims) <= k < len(dims) or dims[k] == shapes.UNKNOWN_DIM:
        return shapes.SCALAR
    return Shape((), scalar=True, length=dims[k])


def made_shape(name: str, expr: ast.expr, operands: list[Shape], inputs=()) -> Shape | None:
    """The shape of ``np.zeros(shape)`` (``np.ones``, ``np.empty``, ``np.full``) as far as the
    call's text says: a literal shape; ``(n, m)`` or ``[n, 1]``, two axes of lengths not known;
    a number ``n``, one axis.  Read from the text, since a tuple's items reach the rule as a
    flat list of operands (the literal ones folded away)."""
    if name not in _FROM_SHAPE + ("numpy.full",) or not isinstance(expr, ast.Call) or not expr.args:
        return None
    size = expr.args[0]
    literal = _literal(size)  # np.zeros(3), np.zeros((2, 3))
    if literal is not None:
        return shapes.of_literal(literal)
    if isinstance(size, (ast.Tuple, ast.List)):
        if any(isinstance(e, ast.Starred) for e in size.elts):
            return None
        return Shape(tuple(shapes.of_literal(e.value).dims[0] if isinstance(e, ast.Constant) and type(e.value) is int
                           else _length_in(e, inputs, operands) for e in size.elts))
    if operands and operands[0].known and operands[0].ndim == 0:
        return Shape((shapes.length_of(operands[0]),))  # np.zeros(n): one axis, of n's length
    return None


def _length_in(e: ast.expr, inputs, operands: list[Shape]) -> str:
    """The length an item `e` of a new array's shape tuple gives its axis: that of an int
    read from a shape (`Shape.length`), named (``n``) or read in place (``t2[1]``); else unknown.
    `inputs` are the call's operands (Vars by name), `operands` their shapes."""
    by_name = {getattr(v, "name", None): s for v, s in zip(inputs, operands)}
    if isinstance(e, ast.Name) and e.id in by_name:
        return shapes.length_of(by_name[e.id])
    if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id in by_name:
        dims = by_name[e.value.id].shape_of
        if dims is not None:
            return shapes.length_of(_axis_length(e, dims))
    return shapes.UNKNOWN_DIM


def _literal_number(node: ast.expr):
    """The int or float `node` spells, or None."""
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None
    return value if type(value) in (int, float) else None


def _literal_data(node: ast.expr) -> np.ndarray | None:
    """The array a literal list (or tuple) of numbers spells, or None."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    try:
        data = np.asarray(ast.literal_eval(node))
    except (ValueError, SyntaxError, TypeError):
        return None
    return data if data.dtype.kind in "biuf" else None


def _literal(node: ast.expr):
    """The int or tuple of ints `node` spells, or None."""
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None
    if type(value) is int or (type(value) is tuple and all(type(n) is int for n in value)):
        return value
    return None
