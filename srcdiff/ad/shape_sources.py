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
from ..ir.nodes import Function, Node, Var, all_nodes

_MATMUL = ("operator.matmul", "numpy.matmul")
_TRANSPOSE = ("ndarray.T",)
_KEEP_FILLS = " keep fills"  # not a name: the values whose fills are left to the optimizer


def shape_sources(function: Function, shape_of: dict) -> dict[str, list[ast.expr]]:
    """``name -> [axis expression, ...]`` for the values whose shape the parameters give."""
    found: dict[str, list[ast.expr]] = {}
    for p in function.params:
        shape = shape_of.get(p.name, shapes.UNKNOWN)
        if shape.known and not shape.scalar:
            found[p.name] = [_axis(p.name, i) for i in range(shape.ndim)]
    nodes = all_nodes(function)
    outputs = Counter(node.out.name for node in nodes)
    for node in nodes:
        if outputs[node.out.name] != 1:  # assigned on two paths: no one shape source
            continue
        out = shape_of.get(node.out.name, shapes.UNKNOWN)
        if not out.known or out.scalar or shapes.UNKNOWN_DIM in out.dims:
            continue
        inputs = [v.name if isinstance(v, Var) else None for v in node.inputs]
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
        elif node.rule.name in _TRANSPOSE and len(inputs) == 1 and inputs[0] in found:
            axes = found[inputs[0]][::-1]
        if axes is not None and len(axes) == out.ndim:
            found[node.out.name] = axes
    # the optimizer turns ``np.full(np.shape(t), s)`` into ``s`` itself for a top-level
    # arithmetic result `t` (backend/optimize/sameshape.py): those fills are left to it
    # (any top-level result, unless a parameter's shape is its own: the optimizer can only
    # recognise the ``np.shape(x)`` form)
    top = {n.out.name for n in function.body.nodes if isinstance(n, Node)}
    found[_KEEP_FILLS] = ({n.out.name for n in function.body.nodes if isinstance(n, Node)
                           and n.rule.name.startswith("operator.")}, top)
    return found


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


def read_shapes_from(expr: ast.expr, sources: dict[str, list[ast.expr]], params: set[str]) -> ast.expr:
    """`expr` with ``np.shape(t)`` and ``t.shape`` of computed values read from `sources`."""

    class Rewrite(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call):
            if _is_np(node.func, "full") and node.args and _is_np(getattr(node.args[0], "func", None), "shape"):
                # ``np.full(np.shape(t), s)``: the optimizer drops the fill where `t`'s shape
                # class allows; only a parameter's own shape keeps that form
                inner = node.args[0]
                found = _source(inner.args[0]) if len(inner.args) == 1 else None
                name = getattr(inner.args[0], "id", None)
                keep, top = sources[_KEEP_FILLS]
                if found is not None and name not in keep and (isinstance(found, ast.Call) or name not in top):
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
