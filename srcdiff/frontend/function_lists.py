"""Functions kept in a list, tuple or dict the function builds, rewritten right after parsing:

    acts = [np.tanh, relu]                       h = np.tanh(h)
    for a in acts:                       ==>     h = relu(h)
        h = a(h)

    fs = {"a": f, "b": g}                        np.sum(f(x)) + np.sum(g(x))
    np.sum(fs["a"](x)) + np.sum(fs["b"](x))

A name bound once, to a display (``[...]``, ``(...)``, ``{key: ...}``) whose items are functions
known when the gradient is built (a module's or NumPy's, a nested ``def`` of the function, a
lambda), and read only where its items can be told apart: a ``for`` statement over it (also over
``enumerate(...)`` of a list, and a dict's keys, ``.values()`` and ``.items()``), unrolled, one copy
of the body per item with the loop's names replaced by the item (and its index or key, a constant);
a comprehension or generator over it (one generator, no condition), the list of its elements; an item
by a constant index or key; ``len(...)``.  Lowering then calls each function where it is named, as
if written out.  Anything else (the list passed on, changed, a loop with ``break``) leaves the code
as written, refused where lowering meets it.  A loop or comprehension may also run over
``reversed(fs)``, a constant slice ``fs[1:]``, or ``zip(fs, a)`` with names (function_list_zips.py); a
name bound to such displays several times at the function's top level is one list per binding.
Functions made in a loop (``fs.append(term)``) are not rewritten.
"""

from __future__ import annotations

import ast
import copy
import inspect

import numpy as np

from .function_list_zips import constant_slice, zipped_comprehension, zipped_loop, zipped_names
from .naming import FreeNames, own_nodes


def has_function_lists(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether some name is bound to a display holding a name or a lambda (or rows)."""
    return any(isinstance(n, ast.Assign) and isinstance(n.value, (ast.List, ast.Tuple, ast.Dict))
               and (any(isinstance(e, (ast.Name, ast.Attribute, ast.Lambda)) for e in _items(n.value))
                    or _rows_of_values(n.value)) for n in ast.walk(tree))


def rewrite_function_lists(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Rewrite, in place, the function lists of the module's doc."""
    defs = {s.name for s in tree.body if isinstance(s, ast.FunctionDef)}
    _rename_rebound(tree, names, defs)
    for stmt in list(tree.body):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            continue
        name, display = stmt.targets[0].id, stmt.value
        if _rows_of_values(display):
            _unroll_rows(tree, stmt, name, names)
            continue
        if not isinstance(display, (ast.List, ast.Tuple, ast.Dict)) or not _items(display) \
                or not all(_function(e, names, defs) for e in _items(display)):
            continue
        if isinstance(display, ast.Dict) and not all(isinstance(k, ast.Constant) for k in display.keys):
            continue
        entries = _entries(display)
        if _rewritable(tree, stmt, name, entries):
            defs = _named_lambdas(display, names)  # (lowering calls a nested def, not a lambda written out)
            entries = _entries(display)
            _Unroll(name, entries).generic_visit(tree)
            at = tree.body.index(stmt)
            tree.body[at:at + 1] = defs
    ast.fix_missing_locations(tree)


def _rows_of_values(display) -> bool:
    """``((np.ones(3), b0), (w, b1))``: a display of tuple (or list) displays, some item computed."""
    return isinstance(display, (ast.List, ast.Tuple)) and bool(display.elts) and all(
        isinstance(e, (ast.Tuple, ast.List)) and e.elts and not any(isinstance(v, ast.Starred) for v in e.elts)
        for e in display.elts) and not all(isinstance(v, ast.Constant) for e in display.elts for v in e.elts)


def _unroll_rows(tree: ast.FunctionDef, stmt: ast.Assign, name: str, names: FreeNames) -> None:
    """A display of rows of values read as function lists are (a loop over it unrolled, an item by a
    constant index): each value first bound to a name of its own, in Python's order, so that it is
    computed once; lowering refuses an item of a list of lists."""
    rows = [[(names.namer.fresh(f"{name}_{k}_{j}"), v) for j, v in enumerate(row.elts)]
            for k, row in enumerate(stmt.value.elts)]
    entries = [(k, ast.Tuple([ast.Name(n, ast.Load()) for n, _ in row], ast.Load())) for k, row in enumerate(rows)]
    if not _rewritable(tree, stmt, name, entries):
        return
    _Unroll(name, entries).generic_visit(tree)
    at = tree.body.index(stmt)
    tree.body[at:at + 1] = [ast.copy_location(ast.Assign([ast.Name(n, ast.Store())], v), stmt)
                            for row in rows for n, v in row]


def _rename_rebound(tree: ast.FunctionDef, names: FreeNames, defs: set) -> None:
    """A name bound to a display of functions more than once, each time by a statement of the
    function's top level and nowhere else (``fs = [np.sin, np.cos]`` then ``fs = [np.tanh]``): each
    later binding and the reads up to the next one take a name of their own, so that each list is
    bound once."""
    bindings: dict = {}
    for at, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, (ast.List, ast.Tuple)) and _items(stmt.value) \
                and all(_function(e, names, defs) for e in _items(stmt.value)):
            bindings.setdefault(stmt.targets[0].id, []).append(at)
    own = {id(n) for n in own_nodes(tree)}
    for name, ats in bindings.items():
        stores = [n for n in ast.walk(tree)
                  if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)]
        if len(ats) < 2 or len(stores) != len(ats) or any(
                isinstance(n, ast.Name) and n.id == name and id(n) not in own for n in ast.walk(tree)):
            continue  # (bound elsewhere too, or read by a nested function: left as written)
        for first, end in zip(ats[1:], [*ats[2:], len(tree.body)]):
            renamed = names.namer.fresh(name)
            for stmt in tree.body[first:end]:
                for n in ast.walk(stmt):
                    if isinstance(n, ast.Name) and n.id == name:
                        n.id = renamed


def _named_lambdas(display, names: FreeNames) -> list[ast.FunctionDef]:
    """Each lambda of `display` made a nested def of a fresh name, which the display then holds."""
    defs, items = [], display.values if isinstance(display, ast.Dict) else display.elts
    for k, item in enumerate(items):
        if isinstance(item, ast.Lambda):
            name = names.namer.fresh("function")
            made = ast.FunctionDef(name=name, args=item.args, body=[ast.Return(item.body)], decorator_list=[],
                                   returns=None)
            for n in ast.walk(made):
                ast.copy_location(n, item)
            defs.append(made)
            items[k] = ast.copy_location(ast.Name(name, ast.Load()), item)
    return defs


def _items(display) -> list:
    return list(display.values) if isinstance(display, ast.Dict) else list(display.elts)


def _entries(display) -> list[tuple]:
    """(key or index, item) of the display, in order."""
    if isinstance(display, ast.Dict):
        return [(k.value, v) for k, v in zip(display.keys, display.values)]
    return list(enumerate(display.elts))


def _function(item: ast.expr, names: FreeNames, defs: set) -> bool:
    if isinstance(item, ast.Lambda):
        return True
    if isinstance(item, ast.Name) and item.id in defs:
        return True
    found = names.resolve(item)  # (a layer object, callable by its class, is a tree: flatten_items.py)
    return inspect.isroutine(found) or isinstance(found, np.ufunc)


def _rewritable(tree: ast.FunctionDef, bound: ast.Assign, name: str, entries: list) -> bool:
    """Whether every other mention of `name` is a read `_Unroll` rewrites (and the items' own names
    are never bound again)."""
    parents = {id(c): p for p in own_nodes(tree) for c in ast.iter_child_nodes(p)}
    parents.update({id(c): tree for c in tree.body})
    stored = {n.id for n in own_nodes(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if any(isinstance(v, ast.Name) and v.id in stored for _, v in entries):
        return False
    keys = {k for k, _ in entries}
    own = {id(n) for n in own_nodes(tree)}
    if any(isinstance(n, ast.Name) and n.id == name and id(n) not in own for n in ast.walk(tree)):
        return False  # (read by a nested function: its closure)
    indexed = set()  # the reads ``name[k]`` in ``for k in range(len(name))``
    for loop in own_nodes(tree):
        if isinstance(loop, ast.For) and _over_indices(loop.iter, name) and isinstance(loop.target, ast.Name) \
                and not loop.orelse and _plain_body(loop):
            indexed |= {id(n.value) for stmt in loop.body for n in ast.walk(stmt) if isinstance(n, ast.Subscript)
                        and isinstance(n.slice, ast.Name) and n.slice.id == loop.target.id}
    for node in own_nodes(tree):
        if not (isinstance(node, ast.Name) and node.id == name) or node is bound.targets[0]:
            continue
        if not isinstance(node.ctx, ast.Load):
            return False
        if id(node) not in indexed and _read_kind(node, parents, keys) is None:
            return False
    return True


def _over_indices(it: ast.expr, name: str) -> bool:
    """Whether `it` is ``range(len(name))``."""
    return isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
        and len(it.args) == 1 and not it.keywords and isinstance(it.args[0], ast.Call) \
        and isinstance(it.args[0].func, ast.Name) and it.args[0].func.id == "len" and len(it.args[0].args) == 1 \
        and isinstance(it.args[0].args[0], ast.Name) and it.args[0].args[0].id == name


def _read_kind(node: ast.Name, parents: dict, keys: set):
    """How `node` (a read of the list) is read: "item", "len", "for", "comprehension"; None if by
    something `_Unroll` does not rewrite."""
    parent = parents.get(id(node))
    if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.slice, ast.Constant) \
            and parent.slice.value in keys and isinstance(parent.ctx, ast.Load):
        return "item"
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len" \
            and parent.args == [node]:
        return "len"
    holder = parent
    if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.slice, ast.Slice) \
            and constant_slice(parent.slice) is not None and isinstance(parent.ctx, ast.Load):
        node, holder = parent, parents.get(id(parent))  # fs[1:]: its items, in a loop or comprehension
    if isinstance(holder, ast.Call) and isinstance(holder.func, ast.Name) and holder.func.id == "reversed" \
            and holder.args == [node] and not holder.keywords:
        node, holder = holder, parents.get(id(holder))
    if isinstance(holder, ast.Call) and isinstance(holder.func, ast.Name) and holder.func.id == "zip" \
            and node in holder.args and not holder.keywords and zipped_names(holder, node) is not None:
        node, holder = holder, parents.get(id(holder))
    if isinstance(parent, ast.Attribute) and parent.attr in ("values", "items", "keys"):
        call = parents.get(id(parent))
        if not (isinstance(call, ast.Call) and call.func is parent and not call.args):
            return None
        holder = parents.get(id(call))
        node = call
    if isinstance(holder, ast.Call) and isinstance(holder.func, ast.Name) and holder.func.id == "enumerate" \
            and holder.args == [node] and not holder.keywords:
        node, holder = holder, parents.get(id(holder))
    if isinstance(holder, ast.For) and holder.iter is node and not holder.orelse and _plain_body(holder):
        return "for"
    if isinstance(holder, ast.comprehension) and holder.iter is node and not holder.ifs:
        comp = parents.get(id(holder))
        if isinstance(comp, (ast.ListComp, ast.GeneratorExp)) and len(comp.generators) == 1:
            return "comprehension"
    return None


def _plain_body(loop: ast.For) -> bool:
    """No ``break``/``continue`` of this loop, and its names not bound in the body."""
    bound = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    for stmt in loop.body:
        for n in ast.walk(stmt):
            if isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Yield)):
                return False
            if isinstance(n, ast.Name) and n.id in bound and not isinstance(n.ctx, ast.Load):
                return False
    return True


class _Unroll(ast.NodeTransformer):
    """The reads `_read_kind` accepts, rewritten: loops unrolled, comprehensions listed, items named."""

    def __init__(self, name: str, entries: list):
        self.name, self.entries = name, entries
        self.dict = entries and not isinstance(entries[0][0], int) or False

    def _of(self, node: ast.expr):
        """("keys" | "values" | "items" | "enumerate" | "items of a list", the entries iterated, the
        sequences zipped with them) if `node` iterates the list (or its reversal, a constant slice of it,
        a zip of it with names), else None."""
        if isinstance(node, ast.Name) and node.id == self.name:
            return ("keys" if self.dict else "values"), self.entries, None
        if _over_indices(node, self.name) and not self.dict:
            return "indices", self.entries, None
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Attribute) and func.attr in ("values", "items", "keys") \
                and isinstance(func.value, ast.Name) and func.value.id == self.name:
            return func.attr, self.entries, None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == self.name \
                and isinstance(node.slice, ast.Slice) and not self.dict and constant_slice(node.slice) is not None:
            return "values", self.entries[constant_slice(node.slice)], None
        called = func.id if isinstance(func, ast.Name) and not node.keywords else None
        inner = self._of(node.args[0]) if called in ("enumerate", "reversed") and len(node.args) == 1 else None
        if inner is not None and called == "enumerate" and inner[2] is None:
            return "enumerate " + inner[0], inner[1], None
        if inner is not None and inner[0] == "values" and inner[2] is None:  # reversed(fs)
            return "values", inner[1][::-1], None
        if called == "zip":
            mine = [a for a in node.args if self._of(a) is not None and self._of(a)[0] == "values"]
            others = zipped_names(node, mine[0]) if len(mine) == 1 else None
            if others is not None:
                return "zip", self._of(mine[0])[1], (node.args.index(mine[0]), others)
        return None

    def _bindings(self, found, target: ast.expr) -> list[dict] | None:
        """One {name: expression} per item, for the loop's `target` (of a zip: the list's item alone)."""
        how, entries, zipped = found
        if zipped is not None:
            if not (isinstance(target, ast.Tuple) and len(target.elts) == len(zipped[1]) + 1):
                return None
            target = target.elts[zipped[0]]
        out = []
        for index, (key, item) in enumerate(entries):
            kinds = how.split()
            value = {"keys": ast.Constant(key), "values": item, "indices": ast.Constant(index), "zip": item,
                     "items": ast.Tuple([ast.Constant(key), item], ast.Load())}[kinds[-1]]
            if kinds[0] == "enumerate":
                value = ast.Tuple([ast.Constant(index), value], ast.Load())
            bound = _bind(target, value)
            if bound is None:
                return None
            out.append(bound)
        return out

    def visit_For(self, node: ast.For):
        found = self._of(node.iter)
        if found is None or found[0] != "indices":  # (``for k in range(len(fs))``: fs[k] read once k is a constant)
            self.generic_visit(node)
        bindings = self._bindings(found, node.target) if found else None
        if bindings is None:
            return node
        body = []
        for k, bound in enumerate(bindings):
            for stmt in node.body:
                made = self.visit(_Substitute(bound).visit(copy.deepcopy(stmt)))
                body.extend(made if isinstance(made, list) else [made])
            if found[2] is not None:  # zip(fs, a): copy k runs for a[k], once if a has it (zip stops at the shorter)
                body[len(body) - len(node.body):] = [zipped_loop(node, found[2], k, body[len(body) - len(node.body):])]
        return body

    def _comprehension(self, node):
        self.generic_visit(node)
        gen = node.generators[0]
        found = self._of(gen.iter)
        bindings = self._bindings(found, gen.target) if found else None
        if bindings is None:
            return node
        elts = [_Substitute(bound).visit(copy.deepcopy(node.elt)) for bound in bindings]
        if found[2] is not None:  # [e_0 for ai in a[0:1]] + [e_1 for ai in a[1:2]] + ...: zip stops at the shorter
            parts = [zipped_comprehension(node, gen, found[2], k, e) for k, e in enumerate(elts)]
            joined = parts[0]
            for part in parts[1:]:
                joined = ast.BinOp(joined, ast.Add(), part)
            return ast.copy_location(joined, node)
        return ast.copy_location(ast.List(elts, ast.Load()), node)

    visit_ListComp = visit_GeneratorExp = _comprehension

    def visit_FunctionDef(self, node):
        return node  # (a nested scope: not read there, `_rewritable`)

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id == self.name and isinstance(node.slice, ast.Constant):
            for key, item in self.entries:
                if key == node.slice.value:
                    return ast.copy_location(copy.deepcopy(item), node)
        return node

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Name) and node.args[0].id == self.name:
            return ast.copy_location(ast.Constant(len(self.entries)), node)
        return node


def _bind(target: ast.expr, value: ast.expr) -> dict | None:
    """{name: expression} binding `target` to `value` (a tuple target to a tuple display)."""
    if isinstance(target, ast.Name):
        return {target.id: value}
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
        out = {}
        for t, v in zip(target.elts, value.elts):
            inner = _bind(t, v)
            if inner is None:
                return None
            out.update(inner)
        return out
    return None


class _Substitute(ast.NodeTransformer):
    """Reads of the loop's names replaced by their item's expression (not inside a nested scope that
    binds the same name)."""

    def __init__(self, bound: dict):
        self.bound = bound

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in self.bound:
            return ast.copy_location(copy.deepcopy(self.bound[node.id]), node)
        return node

    def visit_Lambda(self, node: ast.Lambda):
        shadowed = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        if shadowed & set(self.bound):
            return node
        self.generic_visit(node)
        return node

    visit_FunctionDef = visit_Lambda


__all__ = ["has_function_lists", "rewrite_function_lists"]
