"""A list of tuples, kept as one list per field (desugar.py).

A list holding tuples (``out.append(step(x, a))`` where the helper returns ``a, b``, or
``out.append((s, v))``, or ``out = [step(x), step(y)]``) is rewritten, right after parsing,
into one plain list per position of the tuples, which every later stage differentiates like
any list of arrays or numbers::

    out = []                                  out_0 = []
    for i in range(3):                        out_1 = []
        out.append(step(x, a))       ==>      for i in range(3):
    s, v = out[-1]                                out_item0, out_item1 = step(x, a)
    total = out[0][1]                             out_0.append(out_item0)
    for y, z in out: ...                          out_1.append(out_item1)
                                              s, v = (out_0[-1], out_1[-1])
                                              total = out_1[0]
                                              for y, z in zip(out_0, out_1): ...

The list is rewritten only when the length of its tuples is known statically (tuple
literals, or a helper of the user's whose every ``return`` is a tuple literal of one length)
and every use of the name is one the per-field lists mean the same for: appending, reading
an item (``out[i]``, ``out[i][j]``), looping over it (also in a comprehension, or under
``enumerate``) and ``len(out)``.  Any other use (passing it to a function, slicing it,
writing an item) leaves the function as written, for lowering to decide.
"""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap
import types

from .naming import SCOPES, own_nodes
from .tuple_comprehensions import comprehended, per_field


def has_lists(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether the function assigns a list display to a name."""
    return any(isinstance(n, ast.Assign) and isinstance(n.value, ast.List) for n in ast.walk(tree))


def split_tuple_lists(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, each local list of tuples of `tree` into one list per field."""
    for name, arity in _candidates(tree, names).items():
        _Split(tree, name, arity, names.namer).visit(tree)
    ast.fix_missing_locations(tree)


def _candidates(tree: ast.FunctionDef, names) -> dict:
    """{list name: length of its tuples} of the lists that can be split, a list made of another's
    items (``ranked = [pairs[int(i)] for i in order]``) after that one."""
    found: dict = {}
    while True:
        more = _found(tree, names, found)
        if not more:
            return found
        found.update(more)


def _found(tree: ast.FunctionDef, names, known: dict) -> dict:
    """The lists that can be split besides those `known` (which a comprehension may read)."""
    parents = {child: node for node in own_nodes(tree) for child in ast.iter_child_nodes(node)}
    helpers = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
    stores: dict = {}
    for node in own_nodes(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stores.setdefault(node.id, []).append(node)
    found = {}
    for name, targets in stores.items():
        if name in known:
            continue
        arities = set()
        for target in targets:
            stmt = parents.get(target)
            if not (isinstance(stmt, ast.Assign) and stmt.targets == [target]):
                break
            if isinstance(stmt.value, ast.List):
                arities |= {_arity(e, names, helpers) for e in stmt.value.elts}
                continue
            made = comprehended(stmt.value, name, known, lambda e: _arity(e, names, helpers))
            if made is None:
                break
            if made is not True:
                arities.add(made)
        else:
            for node in own_nodes(tree):
                if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
                    arity = _use(node, parents, names, helpers)
                    if arity is False:
                        break
                    if arity is not True:
                        arities.add(arity)
            else:
                if len(arities) == 1 and isinstance(next(iter(arities)), int) and not _nested_reads(tree, name):
                    found[name] = arities.pop()
    return found


def _nested_reads(tree: ast.FunctionDef, name: str) -> bool:
    """Whether a nested function or lambda mentions `name` (it would see the list itself)."""
    return any(isinstance(n, SCOPES) and any(isinstance(m, ast.Name) and m.id == name for m in ast.walk(n))
               for n in own_nodes(tree))


def _use(node: ast.Name, parents: dict, names, helpers):
    """What one read of the list tells: True (a use the split keeps), the arity of an appended
    value (an int, or None when unknown), or False (a use that keeps the list as written)."""
    parent = parents.get(node)
    if isinstance(parent, ast.Attribute) and parent.attr == "append":
        call = parents.get(parent)
        if isinstance(call, ast.Call) and call.func is parent and len(call.args) == 1 and not call.keywords \
                and isinstance(parents.get(call), ast.Expr):
            return _arity(call.args[0], names, helpers)
        return False
    if isinstance(parent, ast.Subscript) and parent.value is node:
        if isinstance(parent.slice, ast.Slice):  # ``for a, b in pairs[:3]``: the fields' slices zipped
            loop = parents.get(parent)
            return isinstance(loop, (ast.For, ast.comprehension)) and loop.iter is parent
        return isinstance(parent.ctx, ast.Load)
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
        return True
    if isinstance(parent, ast.Call) and parent.args == [node] and not parent.keywords:
        builtin = names.resolve(parent.func)
        if builtin is len:
            return True
        if builtin is enumerate and isinstance(parents.get(parent), (ast.For, ast.comprehension)) \
                and parents[parent].iter is parent:
            return True
        if builtin is reversed and _in_loop_header(parent, parents):  # zip(zip(S, Y), reversed(pairs))
            return True
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "zip" \
            and node in parent.args and not parent.keywords and names.resolve(parent.func) is zip \
            and _in_loop_header(node, parents):
        return True  # for (s, y), (rho, a) in zip(zip(S, Y), pairs)
    return False


def _in_loop_header(node: ast.expr, parents: dict) -> bool:
    """Whether `node` is a loop's iterable, or an argument of a ``zip`` (or ``enumerate``) that is one."""
    while True:
        parent = parents.get(node)
        if isinstance(parent, (ast.For, ast.comprehension)):
            return parent.iter is node
        if not (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)
                and parent.func.id in ("zip", "enumerate") and node in parent.args):
            return False
        node = parent


def _arity(value: ast.expr, names, helpers):
    """The length of the tuple `value` makes, when known statically; else None."""
    if isinstance(value, ast.Tuple):
        return None if any(isinstance(e, ast.Starred) for e in value.elts) else len(value.elts)
    if not isinstance(value, ast.Call):
        return None
    fdef = helpers.get(value.func.id) if isinstance(value.func, ast.Name) else None
    if fdef is None:
        fdef = _source_def(names.resolve(value.func))
    if fdef is None:
        return None
    returned = [n.value for n in own_nodes(fdef) if isinstance(n, ast.Return)]
    lengths = {_arity(r, names, {}) if isinstance(r, ast.Tuple) else None for r in returned}
    return lengths.pop() if len(lengths) == 1 else None


def _source_def(func):
    """The parsed ``def`` of a user function (None for anything else, or no source)."""
    if not isinstance(func, types.FunctionType) or (func.__module__ or "").split(".")[0] in ("numpy", "srcdiff"):
        return None
    try:
        module = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return None
    fdef = module.body[0] if module.body else None
    return fdef if isinstance(fdef, ast.FunctionDef) else None


class _Split(ast.NodeTransformer):
    """The rewrite of one list `name` into lists ``name_0``, ``name_1``..."""

    def __init__(self, root: ast.FunctionDef, name: str, arity: int, namer):
        self.root, self.name, self.arity = root, name, arity
        self.fields = [namer.fresh(f"{name}_{j}") for j in range(arity)]
        self.items = [namer.fresh(f"{name}_item{j}") for j in range(arity)]
        self.namer = namer

    def generic_visit(self, node):
        if isinstance(node, SCOPES) and node is not self.root:
            return node  # a scope of its own (its names are not the list)
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and any(isinstance(s, list) for s in value):
                setattr(node, field, [t for s in value for t in (s if isinstance(s, list) else [s])])
        return node

    def _mine(self, node) -> bool:
        return isinstance(node, ast.Name) and node.id == self.name

    def _name(self, name: str, ctx=None) -> ast.Name:
        return ast.Name(name, ctx or ast.Load())

    def visit_Assign(self, node: ast.Assign):
        if len(node.targets) == 1 and self._mine(node.targets[0]) and not isinstance(node.value, ast.List):
            return self._per_field_comprehensions(node)
        if len(node.targets) == 1 and self._mine(node.targets[0]):
            made = [ast.copy_location(ast.Assign([self._name(f, ast.Store())], ast.List([], ast.Load())), node)
                    for f in self.fields]
            for elt in node.value.elts:
                made += self._appended(self.visit(elt), node)
            return made
        return self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and self._mine(call.func.value) \
                and call.func.attr == "append":
            return self._appended(self.visit(call.args[0]), node)
        return self.generic_visit(node)

    def _per_field_comprehensions(self, node: ast.Assign) -> list:
        """``name = [(a, b) for ...]`` and the like (tuple_comprehensions.py)."""
        return per_field(node, self)

    def _appended(self, value: ast.expr, where) -> list:
        """``name.append(value)``: the value unpacked into one item per field, each appended."""
        targets = ast.Tuple([self._name(n, ast.Store()) for n in self.items], ast.Store())
        made = [ast.Assign([targets], value)]
        made += [ast.Expr(ast.Call(ast.Attribute(self._name(f), "append", ast.Load()), [self._name(n)], []))
                 for f, n in zip(self.fields, self.items)]
        return [ast.copy_location(s, where) for s in made]

    def visit_Subscript(self, node: ast.Subscript):
        if isinstance(node.value, ast.Subscript) and self._mine(node.value.value) \
                and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int \
                and -self.arity <= node.slice.value < self.arity:
            field = self.fields[node.slice.value]  # out[i][j]: the item i of the list of field j
            return ast.copy_location(ast.Subscript(self._name(field), self.visit(node.value.slice), node.ctx), node)
        if self._mine(node.value) and isinstance(node.slice, ast.Slice):  # a loop's iterable (_use)
            return ast.copy_location(ast.Call(self._name("zip"), [
                ast.Subscript(self._name(f), copy.deepcopy(node.slice), ast.Load()) for f in self.fields], []), node)
        if self._mine(node.value):
            index = self.visit(node.slice)
            return ast.copy_location(ast.Tuple([ast.Subscript(self._name(f), copy.deepcopy(index), ast.Load())
                                                for f in self.fields], ast.Load()), node)
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call):
        if len(node.args) == 1 and self._mine(node.args[0]) and isinstance(node.func, ast.Name) \
                and node.func.id == "len":
            return ast.copy_location(ast.Call(node.func, [self._name(self.fields[0])], []), node)
        if len(node.args) == 1 and self._mine(node.args[0]) and isinstance(node.func, ast.Name) \
                and node.func.id == "reversed":  # reversed(out) in a loop's header: each field's, zipped
            return ast.copy_location(ast.Call(self._name("zip"), [
                ast.Call(node.func, [self._name(f)], []) for f in self.fields], []), node)
        if len(node.args) == 1 and self._mine(node.args[0]):  # enumerate(out) of a loop
            return ast.copy_location(ast.Call(node.func, [self._zipped(node)], []), node)
        if isinstance(node.func, ast.Name) and node.func.id == "zip" and any(self._mine(a) for a in node.args):
            node.args = [self._zipped(a) if self._mine(a) else self.visit(a) for a in node.args]  # zip(S, out)
            return node
        return self.generic_visit(node)

    def _zipped(self, where) -> ast.Call:
        return ast.copy_location(ast.Call(self._name("zip"), [self._name(f) for f in self.fields], []), where)

    def visit_For(self, node: ast.For):
        self.generic_visit(node)
        if self._mine(node.iter):
            node.iter = self._zipped(node.iter)
        node.target, rename = self._target(node.target, node.iter)
        if rename and any(isinstance(n, ast.Name) and n.id in rename and not isinstance(n.ctx, ast.Load)
                          for s in node.body for n in ast.walk(s)):
            whole = [ast.Name(n, ast.Load()) for n in next(iter(rename.values()))]  # o rebound in the body
            node.body.insert(0, ast.copy_location(ast.Assign([ast.Name(next(iter(rename)), ast.Store())],
                                                             ast.Tuple(whole, ast.Load())), node.body[0]))
        elif rename:
            node.body = [_Items(rename).visit(s) for s in node.body]
        _spliced(node)
        return node

    def visit_comprehension(self, node: ast.comprehension):
        self.generic_visit(node)
        if self._mine(node.iter):
            node.iter = self._zipped(node.iter)
        return node

    def _comprehension(self, node):
        self.generic_visit(node)
        for gen in node.generators:
            gen.target, rename = self._target(gen.target, gen.iter)
            if rename:
                for field in ("elt", "key", "value"):
                    if getattr(node, field, None) is not None:
                        setattr(node, field, _Items(rename).visit(getattr(node, field)))
                gen.ifs = [_Items(rename).visit(c) for c in gen.ifs]
        return node

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension
    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = generic_visit

    def _target(self, target, iterated):
        """A loop's single name bound to a whole tuple of the split list (``for o in out``): a
        name per field instead, reads of ``o[j]`` becoming them.  ({} when nothing changes.)"""
        def fields(args):  # (fields_0, fields_1, ...) or their slices
            return [getattr(a.value if isinstance(a, ast.Subscript) else a, "id", None) for a in args] == self.fields
        zipped = isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Name) and iterated.func.id == "zip" \
            and fields(iterated.args)
        enumerated = isinstance(iterated, ast.Call) and getattr(iterated.func, "id", None) == "enumerate" \
            and iterated.args and isinstance(iterated.args[0], ast.Call) \
            and getattr(iterated.args[0].func, "id", None) == "zip" and fields(iterated.args[0].args)
        if zipped and isinstance(target, ast.Name):
            return self._per_field(target)
        if enumerated and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
                and isinstance(target.elts[1], ast.Name):
            inner, rename = self._per_field(target.elts[1])
            return ast.Tuple([target.elts[0], inner], ast.Store()), rename
        return target, {}

    def _per_field(self, target: ast.Name):
        names = [self.namer.fresh(f"{target.id}_{j}") for j in range(self.arity)]
        return ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store()), {target.id: names}


def _spliced(loop: ast.For) -> None:
    """``for (s, y), (r, a) in zip(zip(S, Y), zip(p_0, p_1))``: ``for s, y, r, a in zip(S, Y, p_0, p_1)``, the
    same items (lowering loops over a zip of sequences, not of zips)."""
    it, target = loop.iter, loop.target
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "zip" and not it.keywords
            and isinstance(target, ast.Tuple) and len(target.elts) == len(it.args)):
        return
    args, elts = [], []
    for arg, elt in zip(it.args, target.elts):
        inner = isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "zip" \
            and not arg.keywords and isinstance(elt, ast.Tuple) and len(elt.elts) == len(arg.args)
        args += arg.args if inner else [arg]
        elts += elt.elts if inner else [elt]
    it.args, target.elts = args, elts


class _Items(ast.NodeTransformer):
    """Reads of ``o[j]`` as the name of field j, and of ``o`` itself as the tuple of them."""

    def __init__(self, rename: dict):
        self.rename = rename

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in self.rename and isinstance(node.slice, ast.Constant) \
                and type(node.slice.value) is int \
                and -len(self.rename[node.value.id]) <= node.slice.value < len(self.rename[node.value.id]):
            return ast.copy_location(ast.Name(self.rename[node.value.id][node.slice.value], ast.Load()), node)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.rename:
            return ast.copy_location(ast.Tuple([ast.Name(n, ast.Load()) for n in self.rename[node.id]],
                                               ast.Load()), node)
        return node


__all__ = ["has_lists", "split_tuple_lists"]
