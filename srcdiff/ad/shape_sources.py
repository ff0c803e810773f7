"""Where the backward sweep can read a value's shape without keeping the value.

An adjoint template such as ``np.full(np.shape(x), g)`` (the adjoint of ``np.sum``) needs
only the shape of `x`.  When `x` is computed (``t2 = x * x``, ``t2 = A @ A.T``), reading
``t2.shape`` keeps `t2` alive for its shape alone, or makes the optimizer recompute it inside
the shape read.  From the IR and the inferred shapes, each axis of many values is the axis of
a parameter (``x.shape[0]``); the shape is then read from the parameters.  Only exact
relations count: an elementwise result has an operand's shape when its dims are that
operand's with no axis of unknown length (within one broadcast, equal dims mean equal
lengths), ``a @ b`` of matrices is ``(rows of a, columns of b)``, ``x.T`` reverses.
"""

from __future__ import annotations

import ast
from collections import Counter

from ..ir import shapes
from ..ir.nodes import Branch, Function, Loop, Node, Var, all_nodes

_MATMUL = ("operator.matmul", "numpy.matmul")
_TRANSPOSE = ("ndarray.T",)
_FROM_SHAPE = ("numpy.zeros", "numpy.ones", "numpy.empty")
#: a copy of the first operand with some positions changed: its shape (generated code's scatter-add)
_FIRST_SHAPE = ("srcdiff.rules.runtime.index_add", "srcdiff.rules.runtime.copy_array")
_KEEP_FILLS = " keep fills"  # not a name: the values whose fills are left to the optimizer


def shape_sources(function: Function, shape_of: dict) -> dict[str, list[ast.expr]]:
    """``name -> [axis expression, ...]`` for the values whose shape the parameters give.

    A loop-carried value has its initial value's source when every iteration's result has
    the same one (a fixpoint: values computed from it are dropped with it otherwise)."""
    found: dict[str, list[ast.expr]] = {}
    tuples: dict[str, list[ast.expr]] = {}  # ``t = x.shape``: the axes it holds
    for p in function.params:
        shape = shape_of.get(p.name, shapes.UNKNOWN)
        if shape.known and not shape.scalar:
            found[p.name] = [_axis(p.name, i) for i in range(shape.ndim)]
    outputs = Counter(node.out.name for node in all_nodes(function))

    def block(b) -> None:
        for item in b.nodes:
            if isinstance(item, Branch):
                block(item.body)
                block(item.orelse)
            elif isinstance(item, Loop):
                loop(item)
            elif outputs[item.out.name] == 1:  # assigned on two paths: no one shape source
                _node(item, shape_of, found, tuples)

    def loop(item: Loop) -> None:
        inside = {n.out.name for n in all_nodes(item.body)}
        carried = {c.var.name: c for c in item.carried
                   if isinstance(c.init, Var) and c.init.name in found and isinstance(c.final, Var)}
        while True:
            for name in inside | {c.var.name for c in item.carried}:
                found.pop(name, None)
            found.update({name: found[c.init.name] for name, c in carried.items()})
            block(item.body)
            failed = {name for name, c in carried.items()
                      if _dump(found.get(c.final.name)) != _dump(found[c.init.name])}
            if not failed:
                return
            carried = {name: c for name, c in carried.items() if name not in failed}

    block(function.body)
    # The optimizer turns ``np.full(np.shape(t), s)`` into ``s`` itself for a top-level
    # arithmetic result `t` of values assigned once (backend/optimize/sameshape.py): those
    # fills are left to it, as are the fills of any top-level result unless a parameter's
    # shape is its own (the optimizer recognises only the ``np.shape(x)`` form).
    top = {n.out.name for n in function.body.nodes if isinstance(n, Node)}
    once = top | {p.name for p in function.params}
    found[_KEEP_FILLS] = ({n.out.name for n in function.body.nodes if isinstance(n, Node)
                           and n.rule.name.startswith("operator.")
                           and all(v.name in once for v in n.inputs if isinstance(v, Var))}, top)
    return found


def _node(node, shape_of: dict, found: dict, tuples: dict) -> None:
    """The shape source of one node's result, if the parameters give it."""
    inputs = [v.name if isinstance(v, Var) else None for v in node.inputs]
    expr = node.expr
    if node.rule.name == "nograd" and isinstance(expr, ast.Attribute) and expr.attr == "shape" \
            and len(inputs) == 1 and inputs[0] in found \
            and isinstance(expr.value, ast.Name) and expr.value.id == inputs[0]:  # (x.shape, not f(x).shape)
        tuples[node.out.name] = found[inputs[0]]
        return
    out = shape_of.get(node.out.name, shapes.UNKNOWN)
    if not out.known or out.scalar or shapes.UNKNOWN_DIM in out.dims:
        return
    axes = None
    if node.rule.elementwise:
        same = [n for n in inputs if n in found and shape_of[n].dims == out.dims and not shape_of[n].scalar]
        whole = [n for n in same if _whole(found[n], found)]  # a parameter's shape: read as np.shape(p)
        axes = found[(whole or same)[0]] if same else None
    elif node.rule.name in _MATMUL and len(inputs) == 2 and all(n in found for n in inputs):
        a, b = found[inputs[0]], found[inputs[1]]
        if len(a) == 2 and len(b) == 2:
            axes = [a[0], b[1]]
        elif len(a) == 2 and len(b) == 1:
            axes = [a[0]]
    elif node.rule.name in _FIRST_SHAPE and inputs and inputs[0] in found:
        axes = found[inputs[0]]
    elif node.rule.name in _TRANSPOSE and len(inputs) == 1 and inputs[0] in found:
        axes = found[inputs[0]][::-1]
    elif node.rule.name in _FROM_SHAPE and len(inputs) == 1 and inputs[0] in tuples \
            and isinstance(expr, ast.Call) and not expr.keywords:
        axes = tuples[inputs[0]]
    if axes is not None and len(axes) == out.ndim:
        found[node.out.name] = axes


def _dump(axes) -> str | None:
    return None if axes is None else "".join(ast.dump(a) for a in axes)


def shape_expr(axes: list[ast.expr], sources: dict) -> ast.expr:
    """``np.shape(p)`` when the axes are a parameter's, in order (the form the optimizer's
    same-shape passes know); else a tuple of them."""
    if _whole(axes, sources):
        name = axes[0].value.value.id
        return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "shape", ast.Load()),
                        [ast.Name(name, ast.Load())], [])
    return ast.Tuple([_copy(a) for a in axes], ast.Load())


def _whole(axes: list[ast.expr], sources: dict) -> bool:
    """Whether `axes` are all the axes of one parameter, in order."""
    if not axes or len({a.value.value.id for a in axes}) != 1:
        return False
    return [a.slice.value for a in axes] == list(range(len(sources[axes[0].value.value.id])))


def read_shapes_from(expr: ast.expr, sources: dict[str, list[ast.expr]], params: set[str],
                     is_number=lambda e: False) -> ast.expr:
    """`expr` with ``np.shape(t)`` and ``t.shape`` of computed values read from `sources`.

    A fill ``np.full(np.shape(t), a)`` of an array `a` (a reduction's, with keepdims) is left
    in the form the optimizer can drop when `t` is a top-level result."""

    class Rewrite(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call):
            if _is_np(node.func, "full") and node.args and _is_np(getattr(node.args[0], "func", None), "shape"):
                # ``np.full(np.shape(t), s)``: the optimizer drops the fill where `t`'s shape
                # class allows; only a parameter's own shape keeps that form
                inner = node.args[0]
                found = _source(inner.args[0]) if len(inner.args) == 1 else None
                name = getattr(inner.args[0], "id", None)
                keep, top = sources[_KEEP_FILLS]
                if found is not None and (is_number(node.args[1]) or name not in keep
                                          and (isinstance(found, ast.Call) or name not in top)):
                    node.args[0] = found
                node.args[1:] = [self.visit(a) for a in node.args[1:]]
                return node
            self.generic_visit(node)
            if _is_np(node.func, "shape") and len(node.args) == 1 and not node.keywords:
                found = _source(node.args[0])
                return found if found is not None else node
            if _is_np(node.func, "size") and len(node.args) == 1 and not node.keywords:
                found = _size(node.args[0])
                return found if found is not None else node
            return node

        def visit_Attribute(self, node: ast.Attribute):
            self.generic_visit(node)
            if node.attr in ("shape", "size") and isinstance(node.ctx, ast.Load):
                found = _source(node.value) if node.attr == "shape" else _size(node.value)
                return found if found is not None else node
            return node

    def _size(value):
        """``np.size(p)``, or the product of the axes' lengths."""
        found = _source(value)
        if isinstance(found, ast.Call):
            found.func.attr = "size"
            return found
        if found is None or not found.elts:
            return None
        product = found.elts[0]
        for axis in found.elts[1:]:
            product = ast.BinOp(product, ast.Mult(), axis)
        return product

    def _source(value):
        if isinstance(value, ast.Name) and value.id in sources and value.id not in params and value.id != _KEEP_FILLS:
            return shape_expr(sources[value.id], sources)
        return None

    return Rewrite().visit(expr)


def _is_np(func: ast.expr, attr: str) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == attr and isinstance(func.value, ast.Name) \
        and func.value.id == "np"


def _axis(name: str, i: int) -> ast.expr:
    return ast.Subscript(ast.Attribute(ast.Name(name, ast.Load()), "shape", ast.Load()), ast.Constant(i), ast.Load())


def _copy(axis: ast.expr) -> ast.expr:
    return _axis(axis.value.value.id, axis.slice.value)
