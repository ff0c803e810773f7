"""``zip(xs, itertools.count(...))`` and ``zip(xs, itertools.cycle(seq))`` in a ``for``: the endless
iterator as the finite list the zip reads of it (loops.py lowers the loop over it)."""

from __future__ import annotations

import ast
import itertools

from .state import LoweringState
from .static_values import static_value

_ENDLESS = (itertools.count, itertools.cycle)


def _endless(state: LoweringState, arg: ast.expr) -> ast.Call | None:
    """The ``itertools.count(...)`` / ``itertools.cycle(...)`` call `arg` is, or the one a name of the
    function is assigned once (``signs = itertools.cycle([1.0, -1.0])``), else None."""
    if isinstance(arg, ast.Name):
        tree = state.parsed.tree
        names = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == arg.id]
        made = [a for a in ast.walk(tree) if isinstance(a, ast.Assign) and len(a.targets) == 1
                and isinstance(a.targets[0], ast.Name) and a.targets[0].id == arg.id]
        # one assignment, one read, run as often as each other: a second zip (or a loop around the
        # zip only) would continue the iterator where the first left it, not start it again
        if len(names) != 2 or len(made) != 1 or _loops_around(tree, made[0]) != _loops_around(tree, arg):
            return None
        arg = made[0].value
    if isinstance(arg, ast.Call) and static_value(state, arg.func) in _ENDLESS:
        return arg
    return None


def _loops_around(tree: ast.AST, target: ast.AST) -> list[int]:
    """The loops (for, while, a comprehension past its first iterable) that run `target` again."""
    def visit(node, around):
        if node is target:
            return around
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for k, child in enumerate(children):
                if not isinstance(child, ast.AST):
                    continue
                again = isinstance(node, (ast.For, ast.While)) and field in ("body", "orelse", "test") or \
                    isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) and not (
                        field == "generators" and k == 0)
                if isinstance(node, ast.comprehension) and field == "iter":
                    again = False
                found = visit(child, around + [id(node)] if again else around)
                if found is not None:
                    return found
        return None
    return visit(tree, []) or []


def count_as_range(state: LoweringState, arg: ast.expr, zipped: list[ast.expr]) -> ast.expr:
    """``zip(xs, itertools.count(start, step))``: the count as the finite list zip reads of it,
    ``[start + step * n for n in range(len(xs))]`` (whole numbers stay whole); ``itertools.cycle(seq)``
    as ``[seq[n % len(seq)] for n in range(len(xs))]``; a name assigned one of them once, the same;
    any other argument as it is."""
    call = _endless(state, arg)
    if call is None:
        if isinstance(arg, ast.Name) and any(
                isinstance(a, ast.Assign) and any(isinstance(t, ast.Name) and t.id == arg.id for t in a.targets)
                and isinstance(a.value, ast.Call) and static_value(state, a.value.func) in _ENDLESS
                for a in ast.walk(state.parsed.tree)):
            raise state.error(arg, f"zip over {arg.id}, an itertools iterator read here again (or in a loop "
                              "around this zip only), which goes on where it stopped",
                              "write the iterator in the zip (zip(xs, itertools.cycle(seq))), or index "
                              "seq[n % len(seq)] in the loop")
        return arg
    finite = [a for a in zipped if _endless(state, a) is None]
    if static_value(state, call.func) is itertools.cycle:
        if not finite or len(call.args) != 1 or call.keywords:
            raise state.error(arg, f"{ast.unparse(call)} here never ends",
                              "zip it with a sequence of finite length, or loop over range(...)")
        seq = f"({ast.unparse(call.args[0])})"
        text = f"[{seq}[n % len({seq})] for n in range(len({ast.unparse(finite[0])}))]"
    else:
        given = dict(zip(("start", "step"), call.args)) | {k.arg: k.value for k in call.keywords}
        if not finite or len(call.args) > 2 or set(given) - {"start", "step"}:
            raise state.error(arg, f"{ast.unparse(call)} here never ends",
                              "zip it with a sequence of finite length, or loop over range(...)")
        start, step = (f"({ast.unparse(given[k])})" if k in given else d for k, d in (("start", "0"), ("step", "1")))
        text = f"[{start} + {step} * n for n in range(len({ast.unparse(finite[0])}))]"
    expr = ast.parse(text, mode="eval").body
    for node in ast.walk(expr):
        ast.copy_location(node, arg)
    return expr


__all__ = ["count_as_range"]
