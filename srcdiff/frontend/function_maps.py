"""A function of the user's mapped over an array by NumPy, rewritten right after parsing (from
idiom_calls.py) into the comprehension lowering differentiates, where the statement runs it at once:

- ``np.vectorize(f)(x)``: ``np.reshape(np.array([f(v) for v in flat]), np.shape(x))`` after
  ``flat = np.reshape(x, -1)`` -- f called on each number in C order, as NumPy does.  NumPy gives
  the result the type of f's *first* value, so an f that may return an int (``return 0``,
  ``max(0, v)``) is left alone (its gradient would be 0 where NumPy truncates);
  ``otypes=[float]`` (or ``"d"``) says the type, and is accepted whatever f returns;
- ``np.apply_along_axis(f, axis, A)`` of a 2-D ``A``: ``np.array([f(r) for r in A])`` for axis 1
  (or -1), ``np.array([f(c) for c in A.T]).T`` for axis 0 -- f's value a number or a vector, as
  NumPy stacks it.  A test before the statement raises Python's ValueError when ``A`` is not 2-D.

``f`` is a lambda written there (its body, its parameter the comprehension's target), a nested
def, or a function of the module.  Any other spelling is left as written, and lowering refuses it
at its line.
"""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap

import numpy as np

from .desugar_reduce import HIDDEN, replace_node
from .key_selections import applied, load, make_call, plain, plain_lambda, targets


def mapped_functions(stmt: ast.stmt, names, tree: ast.FunctionDef) -> list:
    """The statements each ``np.vectorize(f)(x)`` / ``np.apply_along_axis(f, axis, A)`` that `stmt`
    runs at once needs before it; the calls replaced in `stmt` (in place)."""
    out = []
    for node in [n for n in _run_now(stmt) if isinstance(n, ast.Call)]:
        made = _vectorized(node, names, tree) or _along_axis(node, names)
        if made is None:
            continue
        before, value = made
        for n in (n for m in before + [value] for n in ast.walk(m)):
            ast.copy_location(n, node)
        replace_node(stmt, node, value)
        out += before
    return out


def _run_now(stmt: ast.stmt):
    """The nodes of `stmt` outside conditional parts, lambdas and comprehensions (the last
    innermost: a call inside is replaced before the call around it)."""
    found = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, HIDDEN + (ast.FunctionDef, ast.ClassDef)):
                visit(child)
                found.append(child)
    visit(stmt.iter if isinstance(stmt, ast.For) else stmt)
    return found


def _numpy_base(func: ast.expr, names):
    base = func.value if isinstance(func, ast.Attribute) else None
    return base if base is not None and names.resolve(base) is np else None


def _kept(value: ast.expr, names, base: str, before: list) -> ast.expr:
    """`value` read more than once: itself when plain, else a fresh name assigned it first."""
    if plain(value):
        return value
    held = names.namer.fresh(base)
    before.append(ast.Assign([ast.Name(held, ast.Store())], value))
    return load(held)


def _vectorized(node: ast.Call, names, tree):
    inner = node.func
    if not (isinstance(inner, ast.Call) and names.resolve(inner.func) is np.vectorize and len(inner.args) == 1
            and len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred)):
        return None
    base, f = _numpy_base(inner.func, names), inner.args[0]
    otypes = [k.value for k in inner.keywords if k.arg == "otypes"]
    if base is None or len(inner.keywords) != len(otypes) or not (otypes and _float_types(otypes[0], names)
                                                                   or _no_int_returns(f, names, tree)):
        return None
    before = []
    x = _kept(node.args[0], names, "vectorized_input", before)
    flat = names.namer.fresh("flat")

    def np_(attr):
        return ast.Attribute(copy.deepcopy(base), attr, ast.Load())
    before.append(ast.Assign([ast.Name(flat, ast.Store())], make_call(np_("reshape"), copy.deepcopy(x),
                                                                     ast.Constant(-1))))
    (item,) = targets(f, 1, names, "number")
    listed = ast.ListComp(applied(f, [load(item)], names),
                          [ast.comprehension(ast.Name(item, ast.Store()), load(flat), [], 0)])
    value = make_call(np_("reshape"), make_call(np_("array"), listed), make_call(np_("shape"), copy.deepcopy(x)))
    return before, value


def _float_types(otypes: ast.expr, names) -> bool:
    """Whether ``otypes=`` names one floating type (``[float]``, ``"d"``, ``[np.float64]``)."""
    if isinstance(otypes, ast.Constant) and isinstance(otypes.value, str) and len(otypes.value) == 1:
        return np.dtype(otypes.value).kind == "f" if otypes.value in np.typecodes["All"] else False
    if isinstance(otypes, (ast.List, ast.Tuple)) and len(otypes.elts) == 1:
        found = names.resolve(otypes.elts[0])
        return found is float or isinstance(found, type) and issubclass(found, np.floating)
    return False


def _no_int_returns(f: ast.expr, names, tree) -> bool:
    """Whether every value `f` returns is surely not an int (None when f's source is not found:
    then not)."""
    body = _function_node(f, names, tree)
    if body is None:
        return False
    returned = [body.body] if isinstance(body, ast.Lambda) else \
        [n.value for n in ast.walk(body) if isinstance(n, ast.Return)]
    return bool(returned) and all(r is not None and not _may_be_int(r, names) for r in returned)


def _may_be_int(expr: ast.expr, names) -> bool:
    if isinstance(expr, ast.Constant):
        return not isinstance(expr.value, float)
    if isinstance(expr, ast.IfExp):
        return _may_be_int(expr.body, names) or _may_be_int(expr.orelse, names)
    if isinstance(expr, ast.BoolOp):
        return any(_may_be_int(v, names) for v in expr.values)
    if isinstance(expr, ast.Call) and names.resolve(expr.func) in (max, min, int, round, len, abs, sum):
        return any(_may_be_int(a, names) for a in expr.args) or names.resolve(expr.func) in (int, round, len)
    return isinstance(expr, ast.Compare)


def _function_node(f: ast.expr, names, tree):
    """The ``def`` or lambda `f` is: written here, nested in the function, or of the module."""
    if isinstance(f, ast.Lambda):
        return f
    if not isinstance(f, ast.Name):
        return None
    local = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == f.id and n is not tree]
    if local or f.id in names.local:  # a nested def (a name also assigned otherwise: not known here)
        rebound = any(isinstance(n, ast.Name) and n.id == f.id and isinstance(n.ctx, ast.Store) for n in ast.walk(tree))
        return local[0] if len(local) == 1 and not rebound else None
    found = names.resolve(f)
    if not inspect.isfunction(found) or found.__name__ == "<lambda>":
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(found)))
    except (OSError, TypeError, SyntaxError):
        return None
    return tree.body[0] if tree.body and isinstance(tree.body[0], ast.FunctionDef) else None


def _along_axis(node: ast.Call, names):
    if names.resolve(node.func) is not np.apply_along_axis or len(node.args) != 3 or node.keywords \
            or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    f, axis, arr = node.args
    base = _numpy_base(node.func, names)
    axis = axis.value if isinstance(axis, ast.Constant) else -axis.operand.value \
        if isinstance(axis, ast.UnaryOp) and isinstance(axis.op, ast.USub) and isinstance(axis.operand, ast.Constant) \
        else None
    if base is None or axis not in (0, 1, -1, -2) or isinstance(axis, bool) \
            or not (plain_lambda(f, 1) is not None or isinstance(f, (ast.Name, ast.Attribute))):
        return None
    before = []
    A = _kept(arr, names, "rows_of", before)
    wrong = ast.Compare(make_call(ast.Attribute(copy.deepcopy(base), "ndim", ast.Load()), copy.deepcopy(A)),
                        [ast.NotEq()], [ast.Constant(2)])
    message = ast.Constant("srcdiff reads np.apply_along_axis of a 2-D array only")
    before.append(ast.If(wrong, [ast.Raise(make_call(load("ValueError"), message), None)], []))
    (item,) = targets(f, 1, names, "line")
    along_rows = axis in (1, -1)
    lines = copy.deepcopy(A) if along_rows else ast.Attribute(copy.deepcopy(A), "T", ast.Load())
    listed = ast.ListComp(applied(f, [load(item)], names),
                          [ast.comprehension(ast.Name(item, ast.Store()), lines, [], 0)])
    value = make_call(ast.Attribute(copy.deepcopy(base), "array", ast.Load()), listed)
    return before, value if along_rows else ast.Attribute(value, "T", ast.Load())


__all__ = ["mapped_functions"]
