"""Library calls whose plain spelling lowering already knows, rewritten right after parsing.

- ``math.hypot(a, b, c)`` (three or more numbers): ``math.hypot(math.hypot(a, b), c)``, the same
  value (each argument read once, in order) through the two-argument rule, whose derivative
  at 0 is the subgradient 0;
- ``sum(xs, start)`` (not a list's): ``start + sum(xs)``; ``sorted({0, 2, 1} | {2})`` of sets of numbers
  written in the code: the list of their items;
- ``itertools.pairwise(xs)``: ``zip(xs[:-1], xs[1:])`` (the same pairs for a list, a tuple, a
  range or an array's rows); `xs` other than a name, attribute or item is first kept in a
  name when the pairs are a ``for`` loop's;
- ``itertools.accumulate(xs[, f][, initial=v])`` given to ``list``, ``tuple``, ``sum``, a
  ``for`` or a comprehension consumed at once (``sum(c ** 2 for c in accumulate(x))``) in a plain
  statement: the list it yields, built by a loop just before the statement::

      gains = list(itertools.accumulate(r, lambda acc, v: v + gamma * acc))
  becomes
      running = r[0]
      accumulated = []
      accumulated.append(running)
      for k in range(1, len(r)):
          running = r[k] + gamma * running
          accumulated.append(running)
      gains = accumulated

  (``f`` as ``functools.reduce``'s, desugar_reduce.py; without it ``+``).  An accumulation
  anywhere else is left as written, and lowering refuses it at its line.
"""

from __future__ import annotations

import ast
import builtins
import copy
import itertools
import math

from .desugar_reduce import HIDDEN, SIMPLE, combined, replace_node
from .naming import rewrite_blocks

_NAMES = {"hypot", "pairwise", "accumulate", "sum", "sorted"}


def has_spellings(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether `tree` calls anything named like the calls rewritten here (``sum`` with a start,
    ``sorted`` of a set)."""
    for n in ast.walk(tree):
        name = (n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)) \
            if isinstance(n, ast.Call) else None
        if name == "sum" and len(n.args) + len(n.keywords) == 2 \
                or name == "sorted" and n.args and isinstance(n.args[0], (ast.Set, ast.BinOp)) \
                or name in _NAMES - {"sum", "sorted"}:
            return True
    return False


def rewrite_calls(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, the calls above in `tree`'s own statements."""
    rewrite_blocks(tree.body, lambda stmt: _before(stmt, names))


def _before(stmt: ast.stmt, names) -> list:
    before = _pairwise_loop(stmt, names) if isinstance(stmt, ast.For) else []
    if isinstance(stmt, SIMPLE) or isinstance(stmt, ast.For):
        before += _accumulations(stmt, names)
    _Expressions(names).visit(stmt)
    return before


def _plain(expr: ast.expr) -> bool:
    """An expression Python reads twice with the same value, with nothing to run."""
    return all(isinstance(n, (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Load, ast.Slice,
                              ast.UnaryOp, ast.USub)) for n in ast.walk(expr))


class _Expressions(ast.NodeTransformer):
    """hypot of three or more, and pairwise of a plain expression, anywhere in a statement."""

    def __init__(self, names):
        self.names = names

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        func = self.names.resolve(node.func)
        plain_args = not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)
        if func is math.hypot and plain_args and len(node.args) > 2:
            nested = node.args[0]
            for arg in node.args[1:]:
                nested = ast.copy_location(ast.Call(copy.deepcopy(node.func), [nested, arg], []), node)
            return nested
        if func is builtins.sum and len(node.args) + len(node.keywords) == 2 and not any(
                isinstance(a, ast.Starred) for a in node.args) and [k.arg for k in node.keywords] in ([], ["start"]):
            start = node.args[1] if len(node.args) == 2 else node.keywords[0].value
            if not isinstance(start, (ast.List, ast.ListComp, ast.Tuple)):  # (lists joined: list_joins.py)
                alone = ast.copy_location(ast.Call(node.func, node.args[:1], []), node)
                return ast.copy_location(ast.BinOp(start, ast.Add(), alone), node)  # start + the items' sum
        if func is builtins.sorted and plain_args and len(node.args) == 1 and _constant_set(node.args[0]):
            items = sorted(eval(compile(ast.Expression(node.args[0]), "<set>", "eval"), {"__builtins__": {}}))
            return ast.copy_location(ast.List([ast.Constant(v) for v in items], ast.Load()), node)
        if func is itertools.pairwise and plain_args and len(node.args) == 1 and _plain(node.args[0]) \
                and self.names.resolve(ast.Name("zip")) is builtins.zip:
            xs = node.args[0]
            parts = [ast.Subscript(copy.deepcopy(xs), ast.Slice(lower, upper), ast.Load())
                     for lower, upper in ((None, ast.Constant(-1)), (ast.Constant(1), None))]
            return ast.copy_location(ast.Call(ast.Name("zip", ast.Load()), parts, []), node)
        return node


def _constant_set(expr: ast.expr) -> bool:
    """Sets of numbers written in the code and their unions, intersections, differences (``{0, 2, 1} | {2}``)."""
    return isinstance(expr, (ast.Set, ast.BinOp)) and all(
        isinstance(n, (ast.Set, ast.BinOp, ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor, ast.Load))
        or isinstance(n, ast.Constant) and type(n.value) in (int, float) for n in ast.walk(expr))


def _pairwise_loop(stmt: ast.For, names) -> list:
    """``for a, b in pairwise(<call>)``: the call's value kept in a name first."""
    it = stmt.iter
    if not (names.calls(it, itertools.pairwise) and len(it.args) == 1 and not it.keywords
            and not isinstance(it.args[0], ast.Starred) and not _plain(it.args[0])):
        return []
    held = names.namer.fresh("paired")
    keep = ast.copy_location(ast.Assign([ast.Name(held, ast.Store())], it.args[0]), stmt)
    it.args = [ast.copy_location(ast.Name(held, ast.Load()), it)]
    return [keep]


def _accumulations(stmt: ast.stmt, names) -> list:
    """The loops building each accumulation `stmt` consumes whole (innermost first)."""
    out = []
    while True:
        found = _accumulation(stmt, names)
        if found is None:
            return out
        consumer, call = found
        made = _loop(call, names)
        if made is None:
            return out
        statements, result = made
        for node in (n for s in statements for n in ast.walk(s)):
            ast.copy_location(node, call)
        out += statements
        listed = ast.copy_location(ast.Name(result, ast.Load()), call)
        replace_node(stmt, consumer if consumer is not None else call, listed)


def _accumulation(stmt: ast.stmt, names):
    """(the ``list(...)`` around it or None, the call) of an accumulation `stmt` always runs and
    reads whole; None if there is none."""
    found = []

    def wanted(call) -> bool:
        return names.calls(call, itertools.accumulate) and 1 <= len(call.args) <= 2 \
            and all(k.arg == "initial" for k in call.keywords) and not any(isinstance(a, ast.Starred)
                                                                           for a in call.args)

    def visit(node, hidden):
        for child in ast.iter_child_nodes(node):
            inner = hidden or isinstance(child, HIDDEN)
            if not inner and isinstance(child, ast.Call) and len(child.args) == 1 and wanted(child.args[0]) \
                    and names.resolve(child.func) in (list, tuple, sum) and not child.keywords:
                found.append((child if names.resolve(child.func) is list else None, child.args[0]))
            elif not inner and isinstance(node, ast.For) and child is node.iter and wanted(child):
                found.append((None, child))
            elif not hidden and _eager(child, node, names) and wanted(child.generators[0].iter):
                found.append((None, child.generators[0].iter))  # (Python reads a first iterable at once)
            visit(child, inner)
    visit(stmt if not isinstance(stmt, ast.For) else ast.For(stmt.target, stmt.iter, [], []), False)
    return found[0] if found else None


def _eager(child, parent, names) -> bool:
    """A comprehension consumed whole as soon as it is made: a list, set or dict comprehension, or a
    generator given to ``sum``, ``list``, ``tuple``, ``min`` or ``max`` (not one kept for later, which
    would read its sequence lazily)."""
    if isinstance(child, (ast.ListComp, ast.SetComp, ast.DictComp)):
        return True
    return isinstance(child, ast.GeneratorExp) and isinstance(parent, ast.Call) and parent.args == [child] \
        and names.resolve(parent.func) in (sum, list, tuple, min, max)


def _loop(call: ast.Call, names):
    """The statements building `call`'s list, and its name; None if `f` cannot be named."""
    if any(names.resolve(ast.Name(n)) is not getattr(builtins, n) for n in ("len", "range")):
        return None
    seq, *given = call.args
    initial = [k.value for k in call.keywords if not (isinstance(k.value, ast.Constant) and k.value.value is None)]
    before = []
    if not isinstance(seq, ast.Name):
        held = names.namer.fresh("accumulated_items")
        before.append(ast.Assign([ast.Name(held, ast.Store())], seq))
        seq = ast.Name(held, ast.Load())
    result, running, index = (names.namer.fresh(n) for n in ("accumulated", "running", "k"))
    item = ast.Subscript(ast.Name(seq.id, ast.Load()), ast.Name(index, ast.Load()), ast.Load())
    last = ast.Name(running, ast.Load())
    if given:
        step = combined(given[0], last, item, names)
        if step is None:
            return None
    else:
        step = ast.BinOp(last, ast.Add(), item)
    first = initial[0] if initial else ast.Subscript(ast.Name(seq.id, ast.Load()), ast.Constant(0), ast.Load())
    before.append(ast.Assign([ast.Name(running, ast.Store())], first))
    # (built empty, then appended to: a gradient srcdiff differentiates again reads lists so built)
    before.append(ast.Assign([ast.Name(result, ast.Store())], ast.List([], ast.Load())))
    before.append(ast.Expr(ast.Call(ast.Attribute(ast.Name(result, ast.Load()), "append", ast.Load()),
                                    [ast.Name(running, ast.Load())], [])))
    bounds = ([] if initial else [ast.Constant(1)]) + [ast.Call(ast.Name("len", ast.Load()),
                                                                [ast.Name(seq.id, ast.Load())], [])]
    append = ast.Call(ast.Attribute(ast.Name(result, ast.Load()), "append", ast.Load()),
                      [ast.Name(running, ast.Load())], [])
    before.append(ast.For(ast.Name(index, ast.Store()), ast.Call(ast.Name("range", ast.Load()), bounds, []),
                          [ast.Assign([ast.Name(running, ast.Store())], step), ast.Expr(append)], []))
    return before, result


__all__ = ["has_spellings", "rewrite_calls"]
