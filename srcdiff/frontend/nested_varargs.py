"""A nested function taking ``*terms``, bound to the number of arguments its calls give.

Every call of a nested ``def`` is inlined where it is made (lower/nested.py), with exactly
its positional parameters.  One taking ``*terms`` and called with a fixed number of
positional arguments is the same function with one parameter per extra argument and
``terms`` the tuple of them::

    def total(*terms):                      def total(terms_0, terms_1):
        return sum(terms)          ==>          terms = (terms_0, terms_1)
    total(a, 0.1 * b)                           return sum(terms)

Calls giving different numbers of arguments get one such function each (``total_2``,
``total_3``).  A nested function with ``**opts``, keyword-only parameters or defaults, one
called with ``*`` / keywords, or used other than by calling it is left as written: lowering
refuses it at its line.
"""

from __future__ import annotations

import ast
import copy

from .naming import SCOPES, Namer, inner_blocks


def has_nested_varargs(tree: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.FunctionDef) and n is not tree and n.args.vararg is not None
               for n in ast.walk(tree))


def bind_nested_varargs(tree: ast.FunctionDef, namer: Namer) -> None:
    """Rewrite, in place, each nested function of `tree`'s own body taking ``*terms`` whose
    calls all give plain positional arguments."""
    for body in _blocks(tree.body):
        k = 0
        while k < len(body):
            stmt = body[k]
            made = _bound(stmt, tree, namer) if isinstance(stmt, ast.FunctionDef) else None
            if made:
                body[k:k + 1] = made
                k += len(made)
            else:
                k += 1


def _blocks(body: list):
    yield body
    for stmt in body:
        if isinstance(stmt, SCOPES):
            continue
        for inner in inner_blocks(stmt):
            yield from _blocks(inner)


def _bound(fdef: ast.FunctionDef, tree: ast.FunctionDef, namer: Namer) -> list | None:
    a = fdef.args
    if a.vararg is None or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs or fdef.decorator_list:
        return None
    name, fixed = fdef.name, len(a.args)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name:
            call = parents.get(node)
            if not isinstance(node.ctx, ast.Load) or not (isinstance(call, ast.Call) and call.func is node) \
                    or call.keywords or any(isinstance(x, ast.Starred) for x in call.args) \
                    or len(call.args) < fixed:
                return None
            calls.append(call)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name and node is not fdef:
            return None
    counts = sorted({len(c.args) for c in calls})
    if not counts:
        return None
    names = {n: name if len(counts) == 1 else namer.fresh(f"{name}_{n - fixed}") for n in counts}
    for call in calls:
        call.func.id = names[len(call.args)]
    return [_with_parameters(fdef, names[n], n - fixed, namer) for n in counts]


def _with_parameters(fdef: ast.FunctionDef, name: str, extra: int, namer: Namer) -> ast.FunctionDef:
    made = copy.deepcopy(fdef)
    star = made.args.vararg.arg
    spread = [namer.fresh(f"{star}_{i}") for i in range(extra)]
    made.name, made.args.vararg = name, None
    made.args.args += [ast.arg(p) for p in spread]
    pack = ast.Assign([ast.Name(star, ast.Store())], ast.Tuple([ast.Name(p, ast.Load()) for p in spread], ast.Load()))
    docstring = 1 if made.body and isinstance(made.body[0], ast.Expr) and isinstance(made.body[0].value,
                                                                                       ast.Constant) else 0
    made.body.insert(docstring, ast.copy_location(pack, made.body[0]))
    for node in ast.walk(made):
        if hasattr(node, "lineno") and not hasattr(node, "end_lineno"):
            ast.copy_location(node, fdef)
    return made


__all__ = ["bind_nested_varargs", "has_nested_varargs"]
