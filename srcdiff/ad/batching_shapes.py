"""Questions of shape in batched code (ad/batching.py): ``x.shape``, ``np.size(x)``, ``len(x)``,
``(a @ X).shape``, ``np.linalg.eigvalsh(a).shape`` of batched values are asked of their first row (every
row has the same shape).

Of a name the question is asked of its row (``x[0].shape``).  Of an expression kept whole it is
asked of the expression of the operands' first rows (``(a[0] @ X[0]).shape``) only where the
expression is made of operators (arithmetic, ``@``, ``.T``), indexes of numbers and slices of numbers,
NumPy's elementwise functions, ``np.interp``, ``np.convolve``, ``np.kron`` and ``np.linalg``'s: their
result's shape depends on the operands' shapes alone.  Another call or an index inside (``len(x[x > 0])``,
a mask's own count per row; ``np.atleast_2d(x)``) is not asked so, and is refused by the caller."""

from __future__ import annotations

import ast

import numpy as np

from ..ir.nodes import Loop, Node, Var, operand_ast
from .tangent_node import instantiate

QUERIES = {"shape", "size", "ndim", "dtype"}
#: NumPy's functions (not ufuncs) whose result's shape their operands' shapes decide (``np.interp(x, xp,
#: fp).shape`` is x's, a gradient's seed for it)
_SHAPED = {"interp", "convolve", "correlate", "kron", "outer"}


def _of_shapes_alone(expr: ast.expr) -> bool:
    """Whether `expr`'s result shape follows from its operands' shapes: operators, ``.T``, NumPy's
    elementwise functions and its linear algebra (``np.linalg.eigvalsh(a).shape``, which a gradient
    asks for its seed)."""
    if isinstance(expr, (ast.Name, ast.Constant)):
        return True
    if isinstance(expr, ast.BinOp):
        return _of_shapes_alone(expr.left) and _of_shapes_alone(expr.right)
    if isinstance(expr, ast.UnaryOp):
        return _of_shapes_alone(expr.operand)
    if isinstance(expr, ast.Attribute):
        return expr.attr == "T" and _of_shapes_alone(expr.value)
    if isinstance(expr, ast.Subscript):  # ``pos[:, 0]``: an index of numbers and slices of numbers
        parts = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        return _of_shapes_alone(expr.value) and all(_constant_part(p) for p in parts)
    return isinstance(expr, ast.Call) and not expr.keywords and _by_shapes(expr.func) and \
        all(_of_shapes_alone(a) for a in expr.args)


def _constant_part(part: ast.expr) -> bool:
    """A part of an index whose result's shape the indexed value's shape decides: an int, None, ``...``, a
    slice of ints."""
    if isinstance(part, ast.Slice):
        return all(e is None or _constant_part(e) for e in (part.lower, part.upper, part.step))
    if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub):
        return _constant_part(part.operand)
    return isinstance(part, ast.Constant) and (part.value is None or part.value is Ellipsis
                                               or type(part.value) is int)


def _by_shapes(func: ast.expr) -> bool:
    """``np.<ufunc>`` or ``np.linalg.<function>``: a result whose shape its operands' shapes decide."""
    if not isinstance(func, ast.Attribute):
        return False
    if isinstance(func.value, ast.Name) and func.value.id == "np":
        return isinstance(getattr(np, func.attr, None), np.ufunc) or func.attr in _SHAPED
    return isinstance(func.value, ast.Attribute) and func.value.attr == "linalg" and \
        isinstance(func.value.value, ast.Name) and func.value.value.id == "np" and \
        callable(getattr(np.linalg, func.attr, None))


def _first_rows(expr: ast.expr, node: Node, state) -> ast.expr | None:
    """`expr` with each batched operand read at its first row; None where that would not be its shape."""
    if isinstance(expr, ast.Name):
        operand = next((v for v in node.inputs if isinstance(v, Var) and v.name == expr.id), None)
        return ast.Subscript(operand_ast(operand), ast.Constant(0), ast.Load()) if operand is not None else None
    if not _of_shapes_alone(expr) or any(isinstance(v, Var) and v.name in state.containers for v in node.inputs):
        return None
    return instantiate(expr, {v.name: ast.Subscript(operand_ast(v), ast.Constant(0), ast.Load())
                              for v in node.inputs if isinstance(v, Var) and state.batched(v)})


def shape_query(node: Node, state) -> ast.expr | None:
    """``x.shape``, ``np.size(x)``, ``len(x)``, ``(a @ X).shape`` of batched values: the question asked
    of the first row (no batch axis); None for any other node."""
    expr = node.expr
    if not node.rule.nograd:
        return None
    if isinstance(expr, ast.Attribute) and expr.attr in QUERIES:
        row = _first_rows(expr.value, node, state)
        return ast.Attribute(row, expr.attr, ast.Load()) if row is not None else None
    if isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords:
        func = expr.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        row = _first_rows(expr.args[0], node, state) if name in ("shape", "size", "ndim", "len") else None
        return ast.Call(func, [row], []) if row is not None else None
    return None


def _asked(expr: ast.expr) -> set[int]:
    """The ids of the names in `expr` asked only their shape (``x.shape``, ``np.ndim(x)``, ``len(x)``)."""
    out = set()
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Attribute) and sub.attr in QUERIES and isinstance(sub.value, ast.Name):
            out.add(id(sub.value))
        elif isinstance(sub, ast.Call) and len(sub.args) == 1 and not sub.keywords \
                and isinstance(sub.args[0], ast.Name):
            func = sub.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name in ("shape", "size", "ndim", "len"):
                out.add(id(sub.args[0]))
    return out


def shapes_only(node: Node, state) -> ast.expr | None:
    """A value worked out of batched values' shapes alone (``np.ndim(s) == 1``, the test a gradient's
    code keeps where a row's shape is not known when it is made): the same for every row, asked of
    the first rows; None where a batched value is read otherwise."""
    if not node.rule.nograd or any(isinstance(v, Var) and v.name in state.containers for v in node.inputs):
        return None
    batched = {v.name for v in node.inputs if isinstance(v, Var) and state.batched(v)}
    asked = _asked(node.expr)
    return shapes_asked(node.expr, batched, asked)


def shapes_asked(expr: ast.expr, batched: set[str], asked: set[int] | None = None) -> ast.expr | None:
    """`expr` asked of the first rows of the `batched` names it reads, where it reads each only for its
    shape (``a.shape[0] >= 2``, a while loop's test on an array it halves: as many iterations for every
    row); None where it reads one otherwise, or reads none."""
    asked = _asked(expr) if asked is None else asked
    names = [n for n in ast.walk(expr) if isinstance(n, ast.Name) and n.id in batched]
    if not names or any(id(n) not in asked for n in names):
        return None
    return instantiate(expr, {name: ast.Subscript(ast.Name(name, ast.Load()), ast.Constant(0), ast.Load())
                              for name in batched})


def row_test(loop: Loop, state) -> tuple[bool, ast.expr | None]:
    """(whether the test gives every row the same count, the while loop's test as batched code asks it): as
    written where it reads no batched value, asked of the first rows where it reads batched values for their
    shapes alone (``while a.shape[0] >= 2`` of an image it halves: the same count for every row)."""
    batched = {v.name for v in loop.test_inputs if state.batched(v)}
    if not batched:
        return True, loop.test
    if loop.test is None or batched & (state.containers | state.lists):  # (a row list's first item is no row)
        return False, None
    test = shapes_asked(loop.test, batched)
    return test is not None, test


__all__ = ["QUERIES", "row_test", "shape_query", "shapes_asked", "shapes_only"]
