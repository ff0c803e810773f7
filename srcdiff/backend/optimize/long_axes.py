"""``unbroadcast(g, t) -> g`` where every axis of `t` is longer than one and `g` has `t`'s ndim.

An adjoint `g` has the shape of the value `t` was broadcast into (an elementwise result, or the
block ``pre[:, n:]`` a write ``pre[:, n:] = t`` filled).  Broadcasting stretches only an axis of
length one and prepends axes: where the signature the gradient is compiled for (and the guards
that keep computed lengths apart from one: ``len(range(m)[n:]) == 1`` sends that case to the
general code) says every axis of `t` is longer than one, and `g` has as many axes, the two shapes
are equal and the sum back is the identity.  sameshape.py drops the calls whose operands it proves
of one shape class; this drops those whose `g` it cannot class, a slice of an adjoint written
block by block (``unbroadcast(pre_bar[:, n:], t17)``, a bound read at run time), one call and
often a value kept on the loop's stack (`t17`, read for its shape alone) per block and step.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from ...ir.shapes import MANY
from .liveness import nodes
from .shape_calls import is_ufunc, shape_of_call
from .shape_classes import ShapeClasses

NEW_ARRAYS = ("zeros", "empty", "ones", "full")
COPIES = ("set_item", "zero_item", "copy_array", "index_add")  # (codegen's helpers: a copy of their first operand)


def drop_long_unbroadcasts(func: ast.FunctionDef, classes: ShapeClasses) -> bool:
    """Drop each ``unbroadcast(g, t)`` whose `t` has only axes longer than one and `g` as many
    (see the module)."""
    changed = False
    definitions = single_assignments(func)

    def array_dims(name: str):
        shape = classes.shape_of(name)
        return shape.dims if shape.known and not shape.scalar and not classes.is_scalar(name) else None

    class Drop(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call):
            nonlocal changed
            self.generic_visit(node)
            if not (isinstance(node.func, ast.Name) and node.func.id == "unbroadcast" and len(node.args) == 2
                    and not node.keywords and isinstance(node.args[1], ast.Name)):
                return node
            g, t = node.args
            dims = array_dims(t.id)
            if dims and all(d == MANY for d in dims) and ndim(g, array_dims, definitions) == len(dims):
                changed = True
                return g
            return node

    Drop().visit(func)
    return changed


def single_assignments(func: ast.FunctionDef) -> dict[str, ast.expr]:
    """Names bound once in `func`, by a plain ``name = value`` (a write into the array,
    ``name[:, k:] += g``, binds nothing: it keeps the array's ndim), mapped to that value."""
    bound, values = {}, {}
    for node in nodes(func):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.comprehension)) else []
        if isinstance(node, (ast.With, ast.ExceptHandler, ast.NamedExpr)):
            return {}  # (bindings this reading does not follow: trust none)
        for target in targets:
            for name in target_names(target):
                bound[name] = bound.get(name, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
    return {name: value for name, value in values.items() if bound[name] == 1}


def target_names(target: ast.expr) -> list[str]:
    """The names an assignment's target binds (a tuple's too; not a subscript's array)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for e in target.elts for name in target_names(e)]
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    return []  # (a subscript or attribute: a write into a value, no binding)


def ndim(e: ast.expr, array_dims: Callable[[str], tuple | None], definitions: dict[str, ast.expr],
         depth: int = 4) -> int | None:
    """The number of axes the array `e` certainly has, else None: a name of known shape
    (`array_dims`: its dims where it is certainly an array, else None) or
    defined once by such an expression, a slice of every axis of one (``g[:, n:]``), a new array
    of another's shape (``np.zeros(np.shape(t))``) or a copy of one written into, an elementwise
    operation of such arrays."""
    if depth < 0:
        return None
    if isinstance(e, ast.Name):
        dims = array_dims(e.id)
        if dims is not None:
            return len(dims)
        value = definitions.get(e.id)
        return ndim(value, array_dims, definitions, depth - 1) if value is not None else None
    if isinstance(e, ast.Subscript):
        parts = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        base = ndim(e.value, array_dims, definitions, depth - 1)
        # (slices keep their axis; an int, None, an array or ... index would change or hide the count)
        if base is None or len(parts) > base or not all(isinstance(p, ast.Slice) for p in parts):
            return None
        return base
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and isinstance(e.func.value, ast.Name) \
            and e.func.value.id == "np" and e.func.attr in NEW_ARRAYS and e.args and not e.keywords:
        if isinstance(e.args[0], ast.Tuple):  # np.zeros((B, m)): two axes
            return len(e.args[0].elts) if not any(isinstance(x, ast.Starred) for x in e.args[0].elts) else None
        shaped = shape_of_call(e.args[0])  # np.empty(t.shape): t's ndim
        return ndim(shaped, array_dims, definitions, depth - 1) if shaped is not None else None
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in COPIES and e.args and not e.keywords:
        return ndim(e.args[0], array_dims, definitions, depth - 1)
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)) or \
            isinstance(e, ast.Call) and is_ufunc(e) and not e.keywords:
        operands = [e.left, e.right] if isinstance(e, ast.BinOp) else e.args
        found = [0 if isinstance(o, ast.Constant) and type(o.value) in (int, float)
                 else ndim(o, array_dims, definitions, depth - 1) for o in operands]
        return None if None in found else max(found)
    return None
