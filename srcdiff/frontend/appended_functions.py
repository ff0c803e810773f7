"""Functions (or dict displays) appended to a list in a loop, as the list comprehension that builds the
same list (python_forms.py)::

    fs = []
    for r in RATES:
        fs.append(lambda t, r=r: np.exp(-r * t))
becomes
    fs = [lambda t, r=r: np.exp(-r * t) for r in RATES]

and so does a dict display appended (``comps.append({"mu": x[i], "w": 1.0 + i})`` over ``range(n)``: a
list of dicts, as ``[{...} for i in range(n)]`` makes it; not when the loop's counter is read after it),
and a nested ``def`` appended (``def term(t, k=k): return ...`` then ``terms.append(term)``),
its one ``return`` the lambda's body.  The list must be made empty (``fs = []``) just before the loop,
and the loop's body be only that append (and the ``def``): the comprehension then makes the same
functions, in the same order, with the same defaults (computed when each is made) and the same
free names (a name the loop assigns is read when a function is called, in either form: its last
value).  The comprehension of lambdas is what the tree rewrite calls (lambdas.py, partial_lists.py).
A ``def``'s name read after the loop, a ``break``, an ``else`` or anything else in the body leaves
the loop as written: lowering refuses the function held as a value at its line.
"""

from __future__ import annotations

import ast

from .naming import inner_blocks


def has_appended_functions(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether a loop of the function appends a lambda, a nested def or a dict display."""
    return any(isinstance(n, ast.For) and _appended(n) is not None for n in ast.walk(tree))


def rewrite_appended_functions(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, each such ``fs = []`` and loop (see the module's doc)."""
    _block(tree.body, tree)


def _block(body: list, tree: ast.FunctionDef) -> None:
    k = 0
    while k < len(body):
        stmt = body[k]
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for inner in inner_blocks(stmt):
                _block(inner, tree)
        made = _comprehension(body[k - 1], stmt, tree) if k > 0 and isinstance(stmt, ast.For) else None
        if made is not None:
            body[k - 1:k + 1] = [made]
            continue
        k += 1


def _appended(loop: ast.For):
    """(the list's name, the lambda) of a loop whose body only appends a function to a list; else None."""
    if loop.orelse or isinstance(loop, ast.AsyncFor) or not loop.body:
        return None
    *defs, last = loop.body
    if len(defs) > 1 or not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)):
        return None
    call = last.value
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "append"
            and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords):
        return None
    item = call.args[0]
    if not defs:
        return (call.func.value.id, item, None) if isinstance(item, (ast.Lambda, ast.Dict)) else None
    fn = defs[0]
    if not (isinstance(fn, ast.FunctionDef) and not fn.decorator_list and len(fn.body) == 1
            and isinstance(fn.body[0], ast.Return) and fn.body[0].value is not None
            and isinstance(item, ast.Name) and item.id == fn.name and fn.returns is None):
        return None
    for arg in ast.walk(fn.args):
        if isinstance(arg, ast.arg):
            arg.annotation = None  # (a lambda's parameters have none)
    return call.func.value.id, ast.copy_location(ast.Lambda(fn.args, fn.body[0].value), fn), fn.name


def _comprehension(before: ast.stmt, loop: ast.For, tree: ast.FunctionDef) -> ast.Assign | None:
    found = _appended(loop)
    if found is None:
        return None
    name, fn, defined = found
    if not (isinstance(before, ast.Assign) and len(before.targets) == 1 and isinstance(before.targets[0], ast.Name)
            and before.targets[0].id == name and isinstance(before.value, ast.List) and not before.value.elts):
        return None
    if name in {n.id for part in (loop.iter, fn) for n in ast.walk(part) if isinstance(n, ast.Name)}:
        return None  # (the loop reads the list it grows)
    if isinstance(fn, ast.Dict) and _read_after(loop, tree):
        return None  # (a comprehension's counter is its own: read after the loop, it is the last item's)
    if defined is not None and sum(isinstance(n, ast.Name) and n.id == defined for n in ast.walk(tree)) > 1:
        return None  # (the def's name read elsewhere: after the loop it is the last function)
    comp = ast.ListComp(fn, [ast.comprehension(loop.target, loop.iter, [], 0)])
    made = ast.Assign([ast.Name(name, ast.Store())], ast.copy_location(comp, loop))
    return ast.fix_missing_locations(ast.copy_location(made, loop))


def _read_after(loop: ast.For, tree: ast.FunctionDef) -> bool:
    """Whether a name the loop's target binds is used outside the loop."""
    bound = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    inside = {id(n) for n in ast.walk(loop)}
    return any(isinstance(n, ast.Name) and n.id in bound and id(n) not in inside for n in ast.walk(tree))


__all__ = ["has_appended_functions", "rewrite_appended_functions"]
