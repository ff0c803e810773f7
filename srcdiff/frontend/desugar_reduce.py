"""``functools.reduce(f, seq[, init])`` as the loop it stands for (desugar.py).

A reduction in a plain statement (an assignment, a ``return``, an expression statement) is
computed by a loop written just before that statement, and the statement reads its result::

    total = math.log(functools.reduce(lambda a, b: a * b, terms))
becomes
    reduced = terms[0]
    for k in range(1, len(terms)):
        reduced = reduced * terms[k]
    total = math.log(reduced)

``f`` is a two-parameter lambda (its body, with the two names replaced), an ``operator``
function of a binary operator (``operator.mul``: ``a * b``), or any other function named
statically (called as ``f(a, b)``).  A reduction inside a conditional expression, ``and``/
``or``, a comprehension or a lambda is left as written (it may not run): lowering refuses it.
"""

from __future__ import annotations

import ast
import copy
import functools
import operator

#: operator's functions of two operands, as the operator Python writes.
_OPERATORS = {operator.add: ast.Add, operator.sub: ast.Sub, operator.mul: ast.Mult, operator.truediv: ast.Div,
              operator.pow: ast.Pow, operator.matmul: ast.MatMult, operator.floordiv: ast.FloorDiv,
              operator.mod: ast.Mod}

SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr)
HIDDEN = (ast.IfExp, ast.BoolOp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def hoist_reductions(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, each reduction of the function's statements (nested defs excluded)."""
    _block(tree.body, names)


def _block(body: list, names) -> None:
    k = 0
    while k < len(body):
        stmt = body[k]
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                    ast.ClassDef)):
                _block(inner, names)
        for handler in getattr(stmt, "handlers", []):
            _block(handler.body, names)
        before = _hoisted(stmt, names) if isinstance(stmt, SIMPLE) else []
        body[k:k] = before
        k += len(before) + 1


def _hoisted(stmt: ast.stmt, names) -> list:
    """The loops computing `stmt`'s reductions (innermost first); `stmt` then reads their results."""
    out = []
    while True:
        call = _reduction(stmt, names)
        if call is None:
            return out
        loop = _loop(call, names, stmt)
        if loop is None:
            return out
        statements, result = loop
        out += statements
        replace_node(stmt, call, ast.copy_location(ast.Name(result, ast.Load()), call))


def _reduction(stmt: ast.stmt, names):
    """An innermost reduction call of `stmt` that always runs, or None."""
    found = []

    def visit(node, hidden):
        for child in ast.iter_child_nodes(node):
            inner = hidden or isinstance(child, HIDDEN)
            if isinstance(child, ast.Call) and names.resolve(child.func) is functools.reduce and not inner \
                    and 2 <= len(child.args) <= 3 and not child.keywords \
                    and not any(isinstance(a, ast.Starred) for a in child.args):
                if not any(names.resolve(n.func) is functools.reduce for n in ast.walk(child)
                           if isinstance(n, ast.Call) and n is not child):
                    found.append(child)
            visit(child, inner)
    visit(stmt, False)
    return found[0] if found else None


def combined(func: ast.expr, acc: ast.expr, item: ast.expr, names):
    """``f(acc, item)`` written out (`acc` an expression read once); None if `func` cannot be
    named statically."""
    if isinstance(func, ast.Lambda):
        a = func.args
        params = [p.arg for p in a.posonlyargs + a.args]
        if len(params) != 2 or a.vararg or a.kwarg or a.kwonlyargs or a.defaults:
            return None
        if any(isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.NamedExpr))
               for n in ast.walk(func.body)):
            return None
        values = {params[0]: acc, params[1]: item}

        class Put(ast.NodeTransformer):
            def visit_Name(self, node):
                return copy.deepcopy(values[node.id]) if node.id in values else node
        return Put().visit(copy.deepcopy(func.body))
    value = names.resolve(func)
    if value in _OPERATORS:
        return ast.BinOp(acc, _OPERATORS[value](), item)
    if callable(value):
        return ast.Call(copy.deepcopy(func), [acc, item], [])
    return None


def _loop(call: ast.Call, names, stmt: ast.stmt):
    """The statements that compute `call`'s value, and the name holding it; None if unsure."""
    func, seq, *init = call.args
    if names.resolve(ast.Name("len")) is not len or names.resolve(ast.Name("range")) is not range:
        return None
    acc = names.namer.fresh("reduced")
    before = []
    if not isinstance(seq, ast.Name):
        held = names.namer.fresh("reduced_items")
        before.append(ast.Assign([ast.Name(held, ast.Store())], seq))
        seq = ast.Name(held, ast.Load())
    index = names.namer.fresh("k")
    item = ast.Subscript(ast.Name(seq.id, ast.Load()), ast.Name(index, ast.Load()), ast.Load())
    step = combined(func, ast.Name(acc, ast.Load()), item, names)
    if step is None:
        return None
    if init:
        start, first = init[0], ast.Constant(0)
    else:  # reduce(f, []) raises TypeError; seq[0] raises too (IndexError)
        start, first = ast.Subscript(ast.Name(seq.id, ast.Load()), ast.Constant(0), ast.Load()), ast.Constant(1)
    before.append(ast.Assign([ast.Name(acc, ast.Store())], start))
    bounds = [first, ast.Call(ast.Name("len", ast.Load()), [ast.Name(seq.id, ast.Load())], [])]
    loop = ast.For(ast.Name(index, ast.Store()), ast.Call(ast.Name("range", ast.Load()), bounds, []),
                   [ast.Assign([ast.Name(acc, ast.Store())], step)], [])
    before.append(loop)
    for made in before:
        for node in ast.walk(made):
            ast.copy_location(node, call)
    return before, acc


def run_now(stmt: ast.stmt) -> list:
    """The expressions Python evaluates each time `stmt` runs, before any part of it that may not run: a
    plain statement's, a ``for``'s iterable, an ``if``'s test (nothing of another compound statement); inside
    them, a comprehension's first iterable, not the parts `HIDDEN` names or a nested scope."""
    todo = [stmt.iter] if isinstance(stmt, ast.For) else [stmt.test] if isinstance(stmt, ast.If) \
        else [stmt] if isinstance(stmt, SIMPLE) else []
    found = []
    while todo:
        node = todo.pop()
        found.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
                todo.append(child.generators[0].iter)
            elif not isinstance(child, HIDDEN + (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.stmt)):
                todo.append(child)
    return found


def replace_node(stmt: ast.stmt, old: ast.expr, new: ast.expr) -> None:
    class Swap(ast.NodeTransformer):
        def visit(self, node):
            return new if node is old else super().visit(node)
    Swap().visit(stmt)


__all__ = ["HIDDEN", "SIMPLE", "combined", "hoist_reductions", "replace_node", "run_now"]
