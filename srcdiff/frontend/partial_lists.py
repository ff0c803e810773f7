"""Partials built in the function, alone or in lists: ``functools.partial(f, target=t)``.

A partial of a function of the user's module whose bound arguments are computed in the
function is a `Bound` entry: its arguments are variables (assigned where the partial is made,
so a later rebinding does not change them), and calling it calls `f` with them first.

A list of partials (or of lambdas, lambdas.py) made by a comprehension (``[partial(f, target=t) for t in ys]``):
- over items srcdiff knows (constants, a tree): a list tree of `Bound` entries, one per item;
- over data (an array's rows): a `PartialComp`, read only where it is iterated.  The loop or
  comprehension that iterates it iterates the comprehension's own iterable instead, the
  item's partial built from that iteration's values,

      sum(loss(pred) for loss in losses)  ->  sum(_squared_error(pred, target=t) for t in ys)

  which is only the same program when the names the comprehension reads cannot change
  between the two places: each must be a parameter never assigned, or a variable assigned
  once at the top level of the function (and never written in place); anything else is
  refused at the comprehension's line.
"""

from __future__ import annotations

import ast
import copy
import functools
import types
from dataclasses import dataclass

from .lambdas import LambdaFn
from .naming import Rename
from .tree_entries import Bad, Const, Leaf, Method, Node, Read, Static
from .trees import Ident, Struct, name_part

_MUTATORS = {"append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear", "fill", "resize",
             "update", "setdefault", "put", "itemset"}


@dataclass
class Bound:
    """A partial of user function `func` with bound entries (Leaf, Const, Read of an expression)."""
    func: types.FunctionType
    prefix: list
    keywords: dict


def passed_bound(entry):
    """A method (``m.step``) or a partial made here (`Bound`) passed to a helper of the user's: the
    `Bound` it stands for, or None.  The helper is flattened with its parameter a "bound" structure
    (the function, by identity, and the structures of what is bound), taking the bound leaves."""
    if isinstance(entry, Method):
        return Bound(entry.func, [entry.owner], {})
    return entry if isinstance(entry, Bound) else None


def bound_struct(bound: Bound, node_struct) -> Struct:
    keys = tuple(range(len(bound.prefix))) + tuple(bound.keywords)
    items = list(bound.prefix) + list(bound.keywords.values())
    return Struct("bound", keys, tuple(node_struct(e) for e in items), Ident(bound.func))


def bound_items(bound: Bound) -> list:
    return list(bound.prefix) + list(bound.keywords.values())


def bound_entry(struct: Struct, child_entry) -> Bound:
    """The `Bound` a flattened helper's "bound" parameter stands for (`child_entry(key, struct)`
    gives each bound item's entry)."""
    n = sum(1 for k in struct.keys if isinstance(k, int))
    items = {k: child_entry(k, c) for k, c in zip(struct.keys, struct.children)}
    keywords = {k: v for k, v in items.items() if not isinstance(k, int)}
    return Bound(struct.cls.obj, [items[i] for i in range(n)], keywords)


@dataclass
class PartialComp:
    """``[partial(func, ...) for t in ys]`` over data: its generators (targets renamed fresh) and
    the partial's argument expressions over them."""
    func: types.FunctionType | None
    generators: list
    args: list
    keywords: dict  # a lambda's: its defaults
    line: int
    busy: bool = False
    lam: ast.Lambda | None = None  # [lambda z, t=t: ... for t in ys] (lambdas.py)


class PartialLists:
    """A mixin of the expression rewriter (flatten_exprs.py)."""

    def local_partial(self, value):
        """``f = functools.partial(helper, 0.5, ell=0.3)`` of a function of the module with
        constant arguments: the partial object, made now (a `Static` callee)."""
        if not (isinstance(value, ast.Call) and value.args and self.static_object(value.func) is functools.partial):
            return None
        func = self.static_object(value.args[0])
        try:
            args = [ast.literal_eval(a) for a in value.args[1:]]
            keywords = {k.arg: ast.literal_eval(k.value) for k in value.keywords if k.arg is not None}
        except ValueError:
            return None
        if not isinstance(func, types.FunctionType) or len(keywords) != len(value.keywords):
            return None
        self.deps.append(self.parsed_dependency(value.args[0].id, func))
        made = functools.partial(func, *args, **keywords)
        cell = self.names.fresh(f"{func.__name__}_partial")
        self.cells[cell] = types.CellType(made)
        return Static(cell, made)

    def partial_parts(self, value):
        """``(func, args, keywords)`` of ``functools.partial(func, ...)`` of a user function, or None."""
        if not (isinstance(value, ast.Call) and value.args and self.static_object(value.func) is functools.partial):
            return None
        func = self.static_object(value.args[0])
        if not isinstance(func, types.FunctionType) or any(k.arg is None for k in value.keywords) \
                or any(isinstance(a, ast.Starred) for a in value.args):
            return None
        self.deps.append(self.parsed_dependency(value.args[0].id, func))
        return func, value.args[1:], {k.arg: k.value for k in value.keywords}

    def method_partial_parts(self, value):
        """``functools.partial(model.step, dt=0.1)`` of a method of an object tree (``self.step`` too):
        ``((func, args, keywords), [the object])``, or ``(None, [])``."""
        if not (isinstance(value, ast.Call) and value.args and self.static_object(value.func) is functools.partial) \
                or any(k.arg is None for k in value.keywords) or any(isinstance(a, ast.Starred) for a in value.args):
            return None, []
        method = self.entry(value.args[0])
        if not isinstance(method, Method):
            return None, []
        return (method.func, value.args[1:], {k.arg: k.value for k in value.keywords}), [method.owner]

    def bound_partial(self, value, where, label: str):
        """The `Bound` entry of a partial made here, its computed arguments assigned first (to
        `self.pending`), or None when `value` is not such a partial."""
        parts, owner = self.partial_parts(value), []
        if parts is None:
            parts, owner = self.method_partial_parts(value)
        if parts is None:
            return None
        func, args, keywords = parts

        def bound(expr, key):
            found = self.entry(expr)
            if isinstance(found, (Const, Node)):
                return found
            name = self.names.fresh(f"{label}_{name_part(key)}")
            self.pending.append(self.emit(name, self.expr(expr), where))
            return Leaf(name)
        return Bound(func, owner + [bound(a, f"arg{i}") for i, a in enumerate(args)],
                     {k: bound(v, k) for k, v in keywords.items()})

    def partial_list(self, value, where):
        """The entry of ``[partial(f, ...) for t in items]``: a list tree when the items are known,
        a `PartialComp` over data, or None when `value` is not such a comprehension."""
        if not isinstance(value, ast.ListComp) or any(g.is_async for g in value.generators) \
                or (self.partial_parts(value.elt) is None and not isinstance(value.elt, ast.Lambda)):
            return None
        gen = value.generators[0]
        items = self.items_of(gen.iter, force=True) if len(value.generators) == 1 and not gen.ifs else None
        if items is not None and isinstance(gen.target, (ast.Name, ast.Tuple)):
            saved, children = dict(self.env), {}
            last = {n.id: self.names.fresh(f"{n.id}_last") for n in ast.walk(gen.target) if isinstance(n, ast.Name)} \
                if _late_bound(value.elt, gen.target, {})[1] else {}
            elt, late = _late_bound(value.elt, gen.target, last)
            if late and items:  # a lambda reading the loop's name sees its last value, as Python's closures do
                self.bind_entry(Rename(last).visit(copy.deepcopy(gen.target)), items[-1], where, emit=None)
            for i, item in enumerate(items):
                self.bind_entry(gen.target, item, where, emit=None)
                label = f"{self.target_base}_{i}"
                children[i] = self.lambda_value(elt, where, label) or self.bound_partial(elt, where, label)
            self.env = saved
            return Node(Struct("list", tuple(children)), children, local=True, depth=self.depth)
        return self.lazy_partials(value, where)

    def lazy_partials(self, value: ast.ListComp, where) -> PartialComp:
        targets = {n.id for g in value.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        renamed = {t: self.names.fresh(t) for t in sorted(targets)}
        fresh = Rename(renamed).visit(copy.deepcopy(value))
        read = {n.id for n in ast.walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for name in sorted(read - targets):
            why = self.changing(name)
            if why:
                raise self.error(where, f"this list of partials is iterated later, where srcdiff builds each "
                                 f"partial again; {name} {why}, so it may hold another value there",
                                 "build them from values that do not change, or call the function in the loop")
        if isinstance(fresh.elt, ast.Lambda):
            self.lambda_value(value.elt, where, "", defaults={})  # its checks, on the names as written
            a = fresh.elt.args
            defaults = dict(zip([p.arg for p in a.args][len(a.args) - len(a.defaults):], a.defaults))
            return PartialComp(None, fresh.generators, [], defaults, where.lineno, lam=fresh.elt)
        func, args, keywords = self.partial_parts(fresh.elt)
        return PartialComp(func, fresh.generators, list(args), keywords, where.lineno)

    def changing(self, name: str) -> str:
        """Why the variable `name` may hold another value later in the function ('' if it cannot)."""
        tree = self.parsed.tree
        params = {a.arg for a in tree.args.args + tree.args.kwonlyargs + tree.args.posonlyargs}
        stores, nested = 0, False
        for stmt in tree.body:
            for node in _walk_scope(stmt):
                if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
                    stores += 1
                    nested = nested or stmt is not _top(stmt, node)
                if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) \
                        and isinstance(node.value, ast.Name) and node.value.id == name:
                    return "is written in place"
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and isinstance(node.func.value, ast.Name) and node.func.value.id == name \
                        and node.func.attr in _MUTATORS:
                    return f"is changed in place by .{node.func.attr}()"
        if stores + (name in params) > 1 or nested:
            return "is assigned more than once (or in a loop or branch)"
        return ""

    def partials_length(self, node, comp: PartialComp) -> Read:
        """``len(losses)`` of a list of partials over data: the length of its iterable."""
        gen = comp.generators[0]
        found = _length(gen.iter) if len(comp.generators) == 1 and not gen.ifs else None
        if found is None:
            raise self.error(node, f"srcdiff cannot tell the length of {ast.unparse(node.args[0])} (a list of "
                             "partials made by a comprehension with conditions, several `for`s, or an "
                             "iterable other than an array, range, enumerate or zip)", "count the items yourself")
        return Read(self.expr(ast.copy_location(found, node)))

    # ---- where a list of partials over data is iterated ----

    def iterated_partials(self, node):
        """`node` (``losses``, ``enumerate(losses)``) when it iterates a `PartialComp`:
        ``(comp, with_index)``; else None."""
        found = self.entry(node) if isinstance(node, ast.Name) else None
        if isinstance(found, PartialComp):
            return found, False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and self.static_object(node.func) \
                is enumerate and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Name):
            inner = self.entry(node.args[0])
            if isinstance(inner, PartialComp) and len(inner.generators) == 1 and not inner.generators[0].ifs:
                return inner, True
        return None

    def partial_generators(self, comp: PartialComp, target, with_index: bool, where) -> list:
        """The generators that iterate `comp`'s own iterable instead, binding `target` to each
        item's partial."""
        if comp.busy:
            raise self.error(where, "this list of partials is iterated inside its own iteration",
                             "iterate it once, or build a second list")
        if with_index:
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name)):
                raise self.error(where, "iterate enumerate() of a list of partials as `for i, f in enumerate(...)`")
            index, target = target.elts
            gen = comp.generators[0]
            pair = ast.Tuple([index, copy.deepcopy(gen.target)], ast.Store())
            call = ast.Call(ast.Name("enumerate", ast.Load()), [copy.deepcopy(gen.iter)], [])
            gens = [ast.comprehension(pair, call, [], 0)]
        else:
            gens = copy.deepcopy(comp.generators)
        if not isinstance(target, ast.Name):
            raise self.error(where, "a partial taken from a list of partials is bound to one name here",
                             "write `for f in fs:` and call f(...)")
        keywords = {k: Read(self.expr(copy.deepcopy(v))) for k, v in comp.keywords.items()}
        self.env[target.id] = LambdaFn(comp.lam, keywords) if comp.lam is not None else \
            Bound(comp.func, [Read(self.expr(copy.deepcopy(a))) for a in comp.args], keywords)
        return gens

    def comprehension_of_partials(self, node):
        """A comprehension one of whose generators iterates a list of partials over data, or None."""
        if not any(self.iterated_partials(g.iter) for g in node.generators):
            return None
        saved, gens, comps = dict(self.env), [], []
        try:
            for g in node.generators:
                found = self.iterated_partials(g.iter)
                if found is None:
                    gens.append(g)
                    continue
                comp, with_index = found
                gens += self.partial_generators(comp, g.target, with_index, node)
                comp.busy = True
                comps.append(comp)
                if g.ifs:
                    gens[-1] = ast.comprehension(gens[-1].target, gens[-1].iter, gens[-1].ifs + g.ifs, 0)
            fields = {"elt": node.elt} if not isinstance(node, ast.DictComp) else {"key": node.key, "value": node.value}
            made = type(node)(generators=gens, **fields)
            return self.visit_other(ast.copy_location(made, node))
        finally:
            self.env = saved
            for comp in comps:
                comp.busy = False

    def loop_over_partials(self, s: ast.For):
        """``for loss in losses:`` of a list of partials over data: the loop over the comprehension's
        iterable (one generator; its conditions guard the body), or None."""
        found = self.iterated_partials(s.iter)
        if found is None:
            return None
        comp, with_index = found
        if len(comp.generators) != 1:
            raise self.error(s, "a loop over a list of partials made by a comprehension of several `for`s "
                             "is not supported", "iterate it in a comprehension: sum(f(x) for f in fs)")
        gen = self.partial_generators(comp, s.target, with_index, s)[0]
        body = s.body if not gen.ifs else [ast.copy_location(ast.If(_conjunction(gen.ifs), s.body, []), s)]
        loop = ast.copy_location(ast.For(gen.target, gen.iter, body, s.orelse), s)
        comp.busy = True
        try:
            return self.for_(loop)
        finally:
            comp.busy = False
            name = s.target.elts[1].id if with_index else s.target.id
            self.env[name] = Bad(f"{name} holds a partial only inside the loop at line {s.lineno}")


def _length(iterable):
    """The expression of the number of items `iterable` gives, or None."""
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and not iterable.keywords:
        name, args = iterable.func.id, iterable.args
        if name == "zip" and args:
            lengths = [_length(a) for a in args]
            return None if None in lengths else lengths[0] if len(lengths) == 1 else \
                ast.Call(ast.Name("min", ast.Load()), lengths, [])
        if name == "enumerate" and len(args) == 1:
            return _length(args[0])
        if name != "range":
            return None
    elif not isinstance(iterable, (ast.Name, ast.Subscript, ast.Attribute)):
        return None
    return ast.Call(ast.Name("len", ast.Load()), [copy.deepcopy(iterable)], [])


def _conjunction(tests):
    return tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), list(tests))


def _walk_scope(node):
    """The nodes of `node`, not entering comprehensions, lambdas or nested functions."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda,
                                      ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                stack.append(child)


def _top(stmt, node):
    """`stmt` when `node` is a target of `stmt` itself (not of a statement nested in it)."""
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if any(node is n for t in targets for n in ast.walk(t)):
            return stmt
    return None


def _late_bound(elt, target, last: dict):
    """``lambda v: v * k`` made in ``[... for k in items]``: the lambda with ``k=k_last`` added as a
    parameter with a default (`last` names the loop's names bound to the last item: Python's
    closures read k after the list is made, when it holds the last one), and whether it was; else
    (elt, False)."""
    if not isinstance(elt, ast.Lambda):
        return elt, False
    params = {a.arg for a in elt.args.args + elt.args.kwonlyargs + elt.args.posonlyargs}
    bound = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    late = sorted({n.id for n in ast.walk(elt.body) if isinstance(n, ast.Name)} & bound - params)
    if not late or elt.args.vararg or elt.args.kwarg or elt.args.kwonlyargs or elt.args.posonlyargs \
            or any(isinstance(n, (ast.Lambda, ast.comprehension)) for n in ast.walk(elt.body)):
        return elt, False
    made = copy.deepcopy(elt)
    made.args.args += [ast.arg(n) for n in late]
    made.args.defaults += [ast.copy_location(ast.Name(last.get(n, n), ast.Load()), elt) for n in late]
    return ast.fix_missing_locations(made), True


__all__ = ["Bound", "PartialComp", "PartialLists"]
