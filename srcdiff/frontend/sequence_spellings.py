"""Sequences made from a computed value, rewritten (desugar.py, right after parsing) into the forms
lowering knows:

- ``list(np.tanh(A))`` / ``tuple(x * 2)``: the value named just before its statement, then
  ``list(held)`` (what ``list(T)`` of a name already is: its rows); ``[*np.split(x, 2)]`` and
  ``(*parts,)`` are ``list(...)`` / ``tuple(...)`` of what they spread;
- ``xs, ys = zip(*pairs)`` (as many names as the items of each pair): ``xs, ys = [p[0] for p in
  pairs], [p[1] for p in pairs]``, the columns Python's transposition gives (lists, not tuples:
  the same items, read the same way); ``for a, b in zip(*rows)`` (as many names as rows): the loop
  over ``zip(rows[0], rows[1])``.  Each after Python's test of the count (``ValueError``).

The value is named only where Python always computes it (an assignment, ``return``, expression
statement; not in a conditional expression, ``and``/``or``, comprehension or lambda).  A spelling
left as written (``list(zip(*rows))``, whose width is not written anywhere) is refused by lowering
at its line.
"""

from __future__ import annotations

import ast
import builtins

import numpy as np

from .desugar_reduce import HIDDEN, SIMPLE
from .naming import FreeNames, rewrite_blocks

_SEQUENCES = (builtins.list, builtins.tuple)


def has_sequence_spellings(tree: ast.FunctionDef) -> bool:
    """A cheap test: a spread in a display, or ``list``/``tuple``/``zip`` called."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)) and isinstance(node.ctx, ast.Load) \
                and any(isinstance(e, ast.Starred) for e in node.elts):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple", "zip"):
            return True
    return False


def rewrite_sequence_spellings(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Rewrite, in place, the spellings above in the function's own statements."""
    _Spreads(names).generic_visit(tree)  # the body; a nested def is a scope of its own
    rewrite_blocks(tree.body, lambda stmt: _before(stmt, names))


class _Spreads(ast.NodeTransformer):
    """``[*e]`` -> ``list(e)``, ``(*e,)`` -> ``tuple(e)`` (one spread alone in the display)."""

    def __init__(self, names: FreeNames):
        self.names = names

    def visit_FunctionDef(self, node):
        return node  # a scope of its own: left as written

    visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def _display(self, node, kind):
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and len(node.elts) == 1 and isinstance(node.elts[0], ast.Starred) \
                and self.names.resolve(ast.Name(kind.__name__)) is kind:
            return ast.copy_location(ast.Call(ast.Name(kind.__name__, ast.Load()), [node.elts[0].value], []), node)
        return node

    def visit_List(self, node):
        return self._display(node, builtins.list)

    def visit_Tuple(self, node):
        return self._display(node, builtins.tuple)


def _before(stmt: ast.stmt, names: FreeNames) -> list:
    before = []
    if isinstance(stmt, ast.Assign):
        before += _columns(stmt, names)
    if isinstance(stmt, ast.For):
        before += _zipped_columns(stmt, names)
    if isinstance(stmt, SIMPLE):
        before += _held(stmt, names)
    return before


def _computed(expr: ast.expr, names: FreeNames) -> bool:
    """An array NumPy computes: a NumPy call, ``.T``, a subscript of one, arithmetic on one or with a
    float (``w * 2.0``; ``xs + ys`` of lists is left alone)."""
    if isinstance(expr, (ast.BinOp, ast.UnaryOp)):
        operands = [expr.left, expr.right] if isinstance(expr, ast.BinOp) else [expr.operand]
        return any(_computed(e, names) or isinstance(e, ast.Constant) and type(e.value) is float for e in operands)
    if isinstance(expr, ast.Attribute) and expr.attr in ("T", "real", "imag"):
        return True
    if isinstance(expr, ast.Subscript):  # (``A[::-1]`` of a parameter: its rows, an array's or a tree's)
        return _computed(expr.value, names) or isinstance(expr.value, ast.Name) \
            and isinstance(expr.slice, ast.Slice) and expr.value.id in _parameters(names)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _ARRAY_METHODS:
        return True  # ctrl.reshape(-1, 2): an array (no list has these methods)
    if isinstance(expr, ast.Call):
        func = names.resolve(expr.func)
        module = getattr(func, "__module__", None) or ""
        return isinstance(func, np.ufunc) or module.split(".")[0] == "numpy" and func not in _SIZES
    return False


#: methods only an array has, whose value is an array (``list(ctrl.reshape(-1, 2))``: its rows)
_ARRAY_METHODS = frozenset({"reshape", "ravel", "flatten", "astype", "transpose", "squeeze", "swapaxes"})


def _parameters(names: FreeNames) -> set:
    code = names.func.__code__
    return set(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])


#: NumPy calls whose value is a size, not an array of values (``tuple(np.shape(x))`` is a constant)
_SIZES = (np.shape, np.ndim, np.size)


def _held(stmt: ast.stmt, names: FreeNames) -> list:
    """``list(e)`` / ``tuple(e)`` of a computed `e` that always runs: ``held = e`` before `stmt`."""
    found = []

    def visit(node, hidden):
        for child in ast.iter_child_nodes(node):
            inner = hidden or isinstance(child, HIDDEN)
            if isinstance(child, ast.Call) and not inner and names.resolve(child.func) in _SEQUENCES \
                    and len(child.args) == 1 and not child.keywords and _computed(child.args[0], names) \
                    and not any(isinstance(n, (ast.NamedExpr, ast.Starred, *HIDDEN)) for n in ast.walk(child.args[0])):
                found.append(child)
            visit(child, inner)
    visit(stmt, False)
    out = []
    for call in found:
        held = names.namer.fresh("items")
        out.append(ast.copy_location(ast.Assign([ast.Name(held, ast.Store())], call.args[0]), call))
        call.args = [ast.copy_location(ast.Name(held, ast.Load()), call.args[0])]
    return out


def _star_zip(expr: ast.expr, names: FreeNames) -> ast.expr | None:
    """`pairs` of ``zip(*pairs)``, else None."""
    if names.calls(expr, builtins.zip) and len(expr.args) == 1 and not expr.keywords \
            and isinstance(expr.args[0], ast.Starred):
        return expr.args[0].value
    return None


def _column_lists(source: ast.expr, width: int, names: FreeNames, at: ast.AST) -> list[ast.expr]:
    item = names.namer.fresh("pair")

    def column(j):
        read = ast.Subscript(ast.Name(item, ast.Load()), ast.Constant(j), ast.Load())
        loop = ast.comprehension(ast.Name(item, ast.Store()), ast.Name(source.id, ast.Load()), [], 0)
        made = ast.ListComp(read, [loop])
        for n in ast.walk(made):
            ast.copy_location(n, at)
        return made
    return [column(j) for j in range(width)]


def _named(source: ast.expr, names: FreeNames, at: ast.stmt) -> tuple[ast.Name, list]:
    if isinstance(source, ast.Name):
        return source, []
    held = names.namer.fresh("pairs")
    if names.calls(source, builtins.zip) and source.args and not source.keywords \
            and not any(isinstance(a, ast.Starred) for a in source.args):
        # ``zip(*zip(a, b))``: the pairs Python makes first, kept as a list of tuples (one list per field);
        # each sequence computed first into a name of its own, in order, as Python does
        first = []
        for k, a in enumerate(source.args):
            if not isinstance(a, ast.Name):
                first.append(ast.copy_location(ast.Assign([ast.Name(names.namer.fresh("zipped_seq"), ast.Store())],
                                                          a), at))
                source.args[k] = ast.copy_location(ast.Name(first[-1].targets[0].id, ast.Load()), a)
        items = [names.namer.fresh("zipped") for _ in source.args]
        source = ast.ListComp(ast.Tuple([ast.Name(i, ast.Load()) for i in items], ast.Load()),
                              [ast.comprehension(ast.Tuple([ast.Name(i, ast.Store()) for i in items], ast.Store()),
                                                 source, [], 0)])
        for n in ast.walk(source):
            ast.copy_location(n, at)
        return ast.Name(held, ast.Load()), first + [ast.copy_location(ast.Assign([ast.Name(held, ast.Store())],
                                                                                 source), at)]
    return ast.Name(held, ast.Load()), [ast.copy_location(ast.Assign([ast.Name(held, ast.Store())], source), at)]


def _columns(stmt: ast.Assign, names: FreeNames) -> list:
    """``xs, ys = zip(*pairs)``: one list per column, after Python's test of the width."""
    source = _star_zip(stmt.value, names)
    target = stmt.targets[0]
    if source is None or len(stmt.targets) != 1 or not isinstance(target, (ast.Tuple, ast.List)) \
            or any(isinstance(e, ast.Starred) for e in target.elts) or not _checks(names):
        return []
    source, before = _named(source, names, stmt)
    n = len(target.elts)

    def length(expr):
        return ast.Call(ast.Name("len", ast.Load()), [expr], [])
    first = ast.Subscript(ast.Name(source.id, ast.Load()), ast.Constant(0), ast.Load())
    # the first pair's width (a shorter later pair raises IndexError in its column, as zip's ValueError)
    wrong = ast.BoolOp(ast.Or(), [ast.Compare(length(ast.Name(source.id, ast.Load())), [ast.Eq()], [ast.Constant(0)]),
                                  ast.Compare(length(first), [ast.NotEq()], [ast.Constant(n)])])
    before.append(_raises(wrong, f"expected {n} values to unpack", stmt))
    stmt.value = ast.copy_location(ast.Tuple(_column_lists(source, n, names, stmt), ast.Load()), stmt.value)
    return before


def _zipped_columns(stmt: ast.For, names: FreeNames) -> list:
    """``for a, b in zip(*rows)``: the loop over ``zip(rows[0], rows[1])`` -- each item holds one
    value of every row, so the names count the rows -- after Python's test of their number."""
    source = _star_zip(stmt.iter, names)
    if source is None or not isinstance(source, ast.Name) or not isinstance(stmt.target, ast.Tuple) \
            or any(isinstance(e, ast.Starred) for e in stmt.target.elts) or not _checks(names):
        return []
    n = len(stmt.target.elts)
    stmt.iter.args = [ast.copy_location(ast.Subscript(ast.Name(source.id, ast.Load()), ast.Constant(j), ast.Load()),
                                        stmt.iter) for j in range(n)]
    count = ast.Call(ast.Name("len", ast.Load()), [ast.Name(source.id, ast.Load())], [])
    return [_raises(ast.Compare(count, [ast.NotEq()], [ast.Constant(n)]), f"expected {n} values to unpack", stmt)]


def _checks(names: FreeNames) -> bool:
    return names.resolve(ast.Name("len")) is builtins.len and names.resolve(ast.Name("ValueError")) is ValueError


def _raises(test: ast.expr, message: str, at: ast.stmt) -> ast.If:
    """``if test: raise ValueError(message)``: Python's own error where the rewrite would go on."""
    error = ast.Raise(ast.Call(ast.Name("ValueError", ast.Load()), [ast.Constant(message)], []), None)
    made = ast.If(test, [error], [])
    for n in ast.walk(made):
        ast.copy_location(n, at)
    return made


__all__ = ["has_sequence_spellings", "rewrite_sequence_spellings"]
