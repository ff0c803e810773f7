"""``for i, j in itertools.combinations(range(n), 2)`` and ``itertools.product(range(a),
range(b))``: the same iterations as nested ``for`` loops over ranges, which lowering knows.

``combinations(range(a, b), k)`` is k loops, each starting after the one outside it
(``for i in range(a, b): for j in range(i + 1, b): ...``); ``product(r1, r2)`` (or
``product(r, repeat=k)``) loops over each range in turn.  A ``break`` in the body would leave
only the innermost of the nested loops, so it is refused; ``continue`` means the same.
"""

from __future__ import annotations

import ast
import builtins
import copy
import itertools

from .static_values import static_value

_HINT = ("write the nested loops out, e.g. `for i in range(n):` and `for j in range(i + 1, n):`, "
         "or loop over a list of index tuples")


def nested_loops(state, stmt: ast.For, func) -> ast.For | None:
    """`stmt` (a loop over `func`'s iterations) as nested range loops, or None when `func` is
    not ``itertools.combinations`` / ``itertools.product``; what cannot be rewritten exactly is refused."""
    if func is not itertools.combinations and func is not itertools.product:
        return None
    it = stmt.iter
    name = f"itertools.{func.__name__}"
    ranges = it.args if func is itertools.product else it.args[:1]
    if not ranges or not all(_is_range(state, r) for r in ranges):
        raise state.error(stmt, f"looping over {ast.unparse(it)} is not supported: srcdiff loops over {name} of "
                          "range(...) only", _HINT)
    count = _count(state, stmt, it, func, name)
    target = stmt.target
    if not (isinstance(target, ast.Tuple) and len(target.elts) == count
            and all(isinstance(t, ast.Name) for t in target.elts)):
        raise state.error(stmt, f"unpack {name}'s tuples into {count} names: `for {', '.join('ijkl'[:count])} in ...`",
                          _HINT)
    if any(isinstance(s, ast.Break) for s in _own_statements(stmt.body)):
        raise state.error(stmt, f"`break` in a loop over {name} is not supported (it would leave only the "
                          "innermost of the nested loops srcdiff makes)", "use a flag variable, or write the loops out")
    read = {n.id for r in ranges for n in ast.walk(r) if isinstance(n, ast.Name)}
    stored = {n.id for s in stmt.body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if read & (stored | {t.id for t in target.elts}):
        raise state.error(stmt, f"this loop assigns {sorted(read & stored)[0] if read & stored else 'a name'} "
                          "that its ranges read", "use another name inside the loop")
    if func is itertools.product:
        loops = [r.args for r in ranges] * count if len(ranges) == 1 else [r.args for r in ranges]
    else:
        args = ranges[0].args
        start, stop = (ast.Constant(0), args[0]) if len(args) == 1 else (args[0], args[1])
        loops = [[start, stop]] + [[ast.BinOp(ast.Name(t.id, ast.Load()), ast.Add(), ast.Constant(1)), stop]
                                   for t in target.elts[:-1]]
    body = stmt.body
    for name_node, bounds in reversed(list(zip(target.elts, loops))):
        call = ast.Call(ast.Name("range", ast.Load()), [_copy(b) for b in bounds], [])
        body = [ast.For(ast.Name(name_node.id, ast.Store()), call, body, [], None)]
    out = body[0]
    for node in ast.walk(out):
        if not isinstance(node, (ast.expr_context, ast.operator)) and not hasattr(node, "lineno"):
            ast.copy_location(node, stmt)
    return out


def _is_range(state, node) -> bool:
    if not (isinstance(node, ast.Call) and static_value(state, node.func) is builtins.range and not node.keywords):
        return False
    return 1 <= len(node.args) <= 3


def _count(state, stmt, it: ast.Call, func, name: str) -> int:
    """The number of names each tuple has: r of combinations, ranges (times repeat) of product."""
    if func is itertools.combinations:
        r = it.args[1] if len(it.args) == 2 else next((k.value for k in it.keywords if k.arg == "r"), None)
        if len(it.args) + len(it.keywords) != 2 or not (isinstance(r, ast.Constant) and type(r.value) is int
                                                         and r.value >= 1):
            raise state.error(stmt, f"give {name} a literal tuple size: {name}(range(n), 2)", _HINT)
        if len(it.args[0].args) == 3:
            raise state.error(stmt, f"{name} of a range with a step is not supported", _HINT)
        return r.value
    if any(k.arg != "repeat" for k in it.keywords):
        raise state.error(stmt, f"{name} takes ranges and `repeat=` here", _HINT)
    repeat = next((k.value for k in it.keywords), ast.Constant(1))
    if not (isinstance(repeat, ast.Constant) and type(repeat.value) is int and repeat.value >= 1):
        raise state.error(stmt, "give `repeat=` as a literal int", _HINT)
    if repeat.value != 1 and len(it.args) != 1:
        raise state.error(stmt, f"{name} with `repeat=` takes one range here", _HINT)
    return len(it.args) * repeat.value


def _own_statements(body: list[ast.stmt]):
    """The statements of `body` that belong to its loop (not to loops or functions nested in it)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            yield from _own_statements(getattr(stmt, field, []) or [])


def _copy(node: ast.expr) -> ast.expr:
    return copy.deepcopy(node)
