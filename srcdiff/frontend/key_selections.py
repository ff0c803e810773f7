"""``min(xs, key=f)`` / ``max(xs, key=f)`` / ``sorted(xs, key=f)`` where the statement always runs,
rewritten right after parsing (idiom_calls.py calls it): the keys listed before the statement,
then ``xs[int(np.argmin(keys))]``::

    best = min(range(len(x)), key=lambda i: abs(x[i] - 0.3))
becomes
    keys = np.array([float(abs(x[i] - 0.3)) for i in range(len(x))])
    if np.isnan(np.sum(keys)): raise ValueError(...)
    best = int(np.argmin(keys))

``argmin``/``argmax`` return the first best index, as ``min``/``max`` return the first best item;
of ``range(a, b, s)`` the item is ``a + s * index``.  ``sorted`` is the list
``[xs[int(i)] for i in np.argsort(keys, kind="stable")]`` (``-keys`` for ``reverse=True``: Python's
sort is stable both ways, so equal keys keep their order).  ``float()`` raises Python's TypeError
for a key that is a tuple or an array (which argmin would flatten), and a NaN key raises a
ValueError (Python's ``<`` is then False, and its choice differs from argmin's).  Also the small
AST helpers the rewrites of idiom_calls.py share.
"""

from __future__ import annotations

import ast
import builtins
import copy

import numpy as np

from .desugar_reduce import HIDDEN, replace_node


def plain(expr: ast.expr) -> bool:
    """An expression Python reads twice with the same value, with nothing to run."""
    return all(isinstance(n, (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Load, ast.Slice,
                              ast.UnaryOp, ast.USub)) for n in ast.walk(expr))


def load(id_: str) -> ast.Name:
    return ast.Name(id_, ast.Load())


def make_call(func: ast.expr, *args) -> ast.Call:
    return ast.Call(func, list(args), [])


def builtins_are(names, *ids) -> bool:
    return all(names.resolve(ast.Name(i)) is getattr(builtins, i) for i in ids)


def numpy_name(names) -> ast.expr | None:
    """A name of the function's closure or globals bound to the numpy module (not shadowed), or
    None.  The closure holds the body's own ``import numpy as np`` (naming.FreeNames)."""
    for key in [*getattr(names, "closure", {}), *names.func.__globals__]:
        value = names.resolve(ast.Name(key))
        if value is np and key not in names.local:
            return load(key)
    return None


def plain_lambda(func: ast.expr, arity: int) -> ast.Lambda | None:
    """`func` if it is a lambda of `arity` plain parameters, else None."""
    a = func.args if isinstance(func, ast.Lambda) else None
    plain = a is not None and not (a.vararg or a.kwarg or a.posonlyargs or a.kwonlyargs or a.defaults)
    return func if plain and len(a.args) == arity else None


def applied(func: ast.expr, args: list, names) -> ast.expr:
    """``func(*args)`` written out: a lambda's body with its parameters for `args` (as the
    targets of a comprehension, so `args` are then the names it binds), else a call."""
    fn = plain_lambda(func, len(args))
    if fn is not None and all(isinstance(a, ast.Name) and a.id == p.arg for a, p in zip(args, fn.args.args)):
        return copy.deepcopy(fn.body)
    return make_call(copy.deepcopy(func), *args)


def targets(func: ast.expr, count: int, names, base: str) -> list[str]:
    """Names for a comprehension's targets: the lambda's own parameters, else fresh ones."""
    fn = plain_lambda(func, count)
    return [p.arg for p in fn.args.args] if fn is not None else [names.namer.fresh(base) for _ in range(count)]


def keyed_selections(stmt: ast.stmt, names) -> list:
    """The statements listing the keys of each ``min``/``max(xs, key=f)`` `stmt` always runs."""
    out = []
    while True:
        call = _keyed(stmt, names)
        if call is None:
            return out
        made = _selection(call, names)
        if made is None:
            return out
        statements, chosen = made
        for node in (n for s in statements + [chosen] for n in ast.walk(s)):
            ast.copy_location(node, call)
        out += statements
        replace_node(stmt, call, chosen)


def _keyed(stmt: ast.stmt, names):
    """The first ``min``/``max(xs, key=f)`` call of `stmt` outside any hidden part, or None."""
    found = []

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
                child = child.generators[0].iter  # (its first iterable runs at once, where the statement runs)
            elif isinstance(child, HIDDEN) or isinstance(child, (ast.FunctionDef, ast.ClassDef)):
                continue
            if isinstance(child, ast.Call) and names.resolve(child.func) in (builtins.min, builtins.max) \
                    and len(child.args) == 1 and not isinstance(child.args[0], ast.Starred) \
                    and [k.arg for k in child.keywords] == ["key"] or _sorted_by_key(child, names):
                found.append(child)
            visit(child)
    visit(stmt)
    return found[0] if found else None


def _sorted_by_key(call, names) -> bool:
    """``sorted(xs, key=f)`` (``reverse=`` True or False written out), ``sorted(xs, reverse=True)`` (the key
    the item itself)."""
    words = {k.arg: k.value for k in call.keywords} if isinstance(call, ast.Call) else {}
    return isinstance(call, ast.Call) and names.resolve(call.func) is builtins.sorted and len(call.args) == 1 \
        and not isinstance(call.args[0], ast.Starred) and words and set(words) <= {"key", "reverse"} \
        and all(isinstance(v, ast.Constant) and isinstance(v.value, bool) for k, v in words.items() if k != "key")


def _selection(call: ast.Call, names):
    """(statements listing the keys and the index, the chosen item), or None."""
    numpy = numpy_name(names)
    words = {k.arg: k.value for k in call.keywords}
    if "key" not in words:  # sorted(xs, reverse=True): the item is its own key
        item = names.namer.fresh("item")
        words["key"] = ast.Lambda(ast.arguments([], [ast.arg(item)], None, [], [], None, []), load(item))
    key, seq, ordered = words["key"], call.args[0], names.resolve(call.func) is builtins.sorted
    if numpy is None or isinstance(getattr(plain_lambda(key, 1), "body", None), (ast.Tuple, ast.List)) \
            or not builtins_are(names, "int", "range", "float", "ValueError"):
        return None
    ranged = names.calls(seq, builtins.range) and not seq.keywords and 1 <= len(seq.args) <= 3 \
        and not any(isinstance(a, ast.Starred) for a in seq.args)
    made_by_numpy = isinstance(seq, ast.Call) and \
        (getattr(names.resolve(seq.func), "__module__", None) or "").split(".")[0] == "numpy"
    if ordered and ranged:
        return None
    # ``list(x)``, ``tuple(x)``, ``x.tolist()``: a new list Python makes once, kept in a name below as it is
    copied = isinstance(seq, ast.Call) and (names.calls(seq, builtins.list) or names.calls(seq, builtins.tuple)) \
        and len(seq.args) == 1 and not seq.keywords or isinstance(seq, ast.Call) and not seq.args \
        and not seq.keywords and isinstance(seq.func, ast.Attribute) and seq.func.attr == "tolist"
    if not ranged and not made_by_numpy and not copied and not isinstance(
            seq, (ast.Name, ast.Attribute, ast.Subscript, ast.List, ast.Tuple, ast.BinOp, ast.UnaryOp)):
        return None  # a generator or iterator: Python reads it once, and it cannot be indexed
    before = []
    if ranged and len(seq.args) > 1:  # start and step are read again for the item: each read once, first
        for k, bound in enumerate(seq.args):
            if not plain(bound):
                held = names.namer.fresh("bound")
                before.append(ast.Assign([ast.Name(held, ast.Store())], bound))
                seq.args[k] = load(held)
    if not ranged and not plain(seq):
        held = names.namer.fresh("candidates")
        before.append(ast.Assign([ast.Name(held, ast.Store())], seq))
        seq = load(held)
    (item,) = targets(key, 1, names, "candidate")
    keys, index = names.namer.fresh("keys"), names.namer.fresh("best")
    # float(): Python's TypeError for a key that is a tuple or an array, which argmin would flatten
    listed = ast.ListComp(make_call(load("float"), applied(key, [load(item)], names)),
                          [ast.comprehension(ast.Name(item, ast.Store()), copy.deepcopy(seq), [], 0)])
    # (an array: numba's argmin takes no list)
    array = make_call(ast.Attribute(copy.deepcopy(numpy), "array", ast.Load()), listed)
    before.append(ast.Assign([ast.Name(keys, ast.Store())], array))
    pick = "argmin" if names.resolve(call.func) is builtins.min else "argmax"
    found = make_call(load("int"), make_call(ast.Attribute(numpy, pick, ast.Load()), load(keys)))
    if ordered:  # sorted is stable, and so is reverse=True of the negated keys (equal keys keep their order)
        pick, reverse = "argsort", getattr(words.get("reverse"), "value", False)
        found = ast.Call(ast.Attribute(copy.deepcopy(numpy), "argsort", ast.Load()),
                         [ast.UnaryOp(ast.USub(), load(keys)) if reverse else load(keys)],
                         [ast.keyword("kind", ast.Constant("stable"))])
    before.append(ast.Assign([ast.Name(index, ast.Store())], found))
    # argmin is min's choice for numbers, not with a NaN (Python's `<` is then False): raise
    odd = make_call(ast.Attribute(copy.deepcopy(numpy), "isnan", ast.Load()),
                make_call(ast.Attribute(copy.deepcopy(numpy), "sum", ast.Load()), load(keys)))
    what = "sorted" if ordered else pick[3:]
    message = ast.Constant(f"srcdiff reads {what}(..., key=...) as np.{pick} of the keys, which is "
                           f"{what}'s choice only when no key is NaN")
    before.insert(-1, ast.If(odd, [ast.Raise(make_call(load("ValueError"), message), None)], []))
    if ordered:  # the items in that order, a list
        at = names.namer.fresh("at")
        item = ast.Subscript(copy.deepcopy(seq), make_call(load("int"), load(at)), ast.Load())
        return before, ast.ListComp(item, [ast.comprehension(ast.Name(at, ast.Store()), load(index), [], 0)])
    if not ranged:
        return before, ast.Subscript(copy.deepcopy(seq), load(index), ast.Load())
    start = seq.args[0] if len(seq.args) > 1 else None
    step = seq.args[2] if len(seq.args) == 3 else None
    chosen = load(index)
    if step is not None:
        chosen = ast.BinOp(copy.deepcopy(step), ast.Mult(), chosen)
    if start is not None:
        chosen = ast.BinOp(copy.deepcopy(start), ast.Add(), chosen)
    return before, chosen


__all__ = ["applied", "builtins_are", "keyed_selections", "load", "make_call", "numpy_name", "plain", "plain_lambda",
           "targets"]
