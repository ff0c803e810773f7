"""A list of tuples made by a comprehension, split into one list per field (tuple_lists.py)::

    pairs = [(v ** 2, v) for v in x]             pairs_0 = [v ** 2 for v in x]
                                          ==>    pairs_1 = [v for v in x]
    ranked = [pairs[int(i)] for i in order]      ranked_0 = [pairs_0[int(i)] for i in order]
                                                 ranked_1 = [pairs_1[int(i)] for i in order]

(``sorted(pairs, key=lambda p: p[1])`` is such a comprehension once key_selections.py wrote it.)
Each field's comprehension runs the same iterations and conditions, which compute no gradient;
the first iterable, which Python evaluates once, is kept in a name first unless evaluating it again
gives the same items.  A comprehension whose items make calls (``[(np.sin(v), v) for v in x]``, a
helper's tuples ``[step(v) for v in x]``, a random draw) is the loop appending each tuple's fields, its
names fresh, so that the calls run in Python's order.  Where the comprehension reads the list it makes
(``pairs = [pairs[int(i)] for i in order]``) the fields are built into new lists first.
"""

from __future__ import annotations

import ast
import copy

from .naming import Rename, assigned_names

#: calls whose value is an iterator (read once): a comprehension's first iterable made by one of
#: them is evaluated again for each field only when its arguments are (`_again`)
_ITERATORS = {"zip", "enumerate", "reversed", "map", "filter", "iter"}
#: calls evaluated again to the same value (the builtins the iterators above take arguments from)
_AGAIN = {"range", "zip", "enumerate", "reversed", "len", "min", "max", "abs", "int"}


def comprehended(value: ast.expr, name: str, known: dict, arity_of):
    """What the assignment of `value` to the list `name` tells: the length of the tuples of a
    comprehension of tuple displays (or, with `arity_of`, of a helper's tuples), True for the
    items of a list (`name` itself, or one of `known`'s) in another order; None when the list
    cannot be split (also a first iterable that is an iterator read once)."""
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) \
            and all(part is None or _number(part) for part in (value.slice.lower, value.slice.upper, value.slice.step)):
        value = value.value
    if not isinstance(value, ast.ListComp) or any(g.is_async for g in value.generators):
        return None
    first = value.generators[0].iter
    if _iterator(first) and not _again(first):
        return None
    elt = value.elt
    if isinstance(elt, ast.Tuple) and elt.elts and not any(isinstance(e, ast.Starred) for e in elt.elts):
        return len(elt.elts)
    if isinstance(elt, ast.Subscript) and isinstance(elt.value, ast.Name) and not isinstance(elt.slice, ast.Slice):
        if elt.value.id == name:
            return True
        return known.get(elt.value.id)
    if isinstance(elt, ast.Call):
        return arity_of(elt)
    return None


def _number(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int or isinstance(node, ast.UnaryOp) \
        and isinstance(node.op, ast.USub) and _number(node.operand)


def _iterator(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Call) and (isinstance(expr.func, ast.Name) and expr.func.id in _ITERATORS
                                           or isinstance(expr.func, ast.Attribute))


def _again(expr: ast.expr) -> bool:
    """Whether evaluating `expr` again gives the same items: names, constants, items, arithmetic,
    and the builtins `_AGAIN` of such."""
    if isinstance(expr, ast.Call):
        return isinstance(expr.func, ast.Name) and expr.func.id in _AGAIN and not expr.keywords \
            and all(_again(a) for a in expr.args)
    if isinstance(expr, (ast.Name, ast.Constant)):
        return True
    if isinstance(expr, (ast.Attribute, ast.Subscript, ast.Slice, ast.Tuple, ast.UnaryOp, ast.BinOp)):
        return all(_again(c) for c in ast.iter_child_nodes(expr) if isinstance(c, ast.expr))
    return False


def per_field(node: ast.Assign, split) -> list:
    """The statements standing for ``name = <comprehension>`` (`comprehended`), for `split`, the
    rewrite of the list (tuple_lists.py's ``_Split``: its `fields`, `namer`, `visit`)."""
    value, sliced = node.value, None
    if isinstance(value, ast.Subscript):
        value, sliced = value.value, value.slice
    reads_itself = any(isinstance(n, ast.Name) and n.id == split.name for n in ast.walk(value))
    apart = reads_itself or sliced is not None  # built into lists of their own, then named as the fields
    into = [split.namer.fresh(f"{f}_all" if sliced is not None else f"{f}_new") if apart else f
            for f in split.fields]
    before, made = [], []
    if any(isinstance(n, ast.Call) for n in ast.walk(value.elt)):  # (calls run in Python's order: a loop)
        made = _loop(value, into, split, node)
    else:
        first = value.generators[0]
        if not _again(first.iter):  # Python evaluates it once: once here too, into a name
            held = split.namer.fresh("comprehended")
            before.append(ast.Assign([ast.Name(held, ast.Store())], split.visit(first.iter)))
            first.iter = ast.Name(held, ast.Load())
        for j, field in enumerate(split.fields):
            elt = value.elt.elts[j] if isinstance(value.elt, ast.Tuple) else \
                ast.Subscript(ast.Name(field, ast.Load()), value.elt.slice, ast.Load())
            made.append(ast.Assign([ast.Name(into[j], ast.Store())],
                                   split.visit(ast.ListComp(copy.deepcopy(elt), copy.deepcopy(value.generators)))))
    if apart:  # (a slice of a list: list_joins.py writes it out)
        made += [ast.Assign([ast.Name(f, ast.Store())],
                            ast.Subscript(ast.Name(n, ast.Load()), copy.deepcopy(sliced), ast.Load())
                            if sliced is not None else ast.Name(n, ast.Load())) for f, n in zip(split.fields, into)]
    out = before + made
    for stmt in out:
        for child in ast.walk(stmt):
            if getattr(child, "lineno", None) is None and isinstance(child, (ast.expr, ast.stmt)):
                ast.copy_location(child, node)
    return out


def _loop(value: ast.ListComp, into: list, split, where: ast.stmt) -> list:
    """``[step(v) for v in xs if c]``: ``for v_1 in xs: if c: (fields of step(v_1) appended)``, the
    comprehension's names fresh (they are its own, not the function's)."""
    own = sorted({n for g in value.generators for n in assigned_names(g.target)})
    rename = Rename({n: split.namer.fresh(n) for n in own})
    generators = copy.deepcopy(value.generators)
    for k, gen in enumerate(generators):
        gen.target = rename.visit(gen.target)
        gen.ifs = [rename.visit(c) for c in gen.ifs]
        if k:
            gen.iter = rename.visit(gen.iter)
    items = [split.namer.fresh(f"{split.name}_item{j}") for j in range(len(into))]
    body = [ast.Assign([ast.Tuple([ast.Name(n, ast.Store()) for n in items], ast.Store())],
                       rename.visit(copy.deepcopy(value.elt)))]
    body += [ast.Expr(ast.Call(ast.Attribute(ast.Name(f, ast.Load()), "append", ast.Load()),
                               [ast.Name(n, ast.Load())], [])) for f, n in zip(into, items)]
    for gen in reversed(generators):
        for cond in reversed(gen.ifs):
            body = [ast.If(cond, body, [])]
        body = [ast.For(gen.target, gen.iter, body, [])]
    loop = split.visit(ast.Module(body, [])).body
    return [ast.Assign([ast.Name(f, ast.Store())], ast.List([], ast.Load())) for f in into] + loop


__all__ = ["comprehended", "per_field"]
