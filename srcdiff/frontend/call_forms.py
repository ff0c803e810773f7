"""Calls and literals written in a spelling lowering does not know, rewritten into one it does
(desugar.py runs this right after parsing; every transformation sees the plain form at the
user's lines):

- ``np.linalg.multi_dot([A, B, C])``: ``A @ B @ C`` (the same product; NumPy only picks the
  cheapest order of the chain);
- ``np.block([[A, B], [C, D]])``: ``np.concatenate`` of the rows (each joined along the last axis, its
  items raised by ``np.atleast_2d``) along the axis before; ``np.block([a, b])``: one join of 1-D items;
- ``np.sum(x, where=m)``: ``np.sum(np.where(m, x, 0.0))``; ``np.mean(x, where=m)``: that sum over
  ``np.sum(np.where(m, np.ones_like(x), 0.0))`` (the count, in x's dtype, broadcast as NumPy does);
- ``map(lambda v: e, xs)``: ``[e for v in xs]``; ``map(f, xs, ys)``: ``[f(a, b) for a, b in zip(xs, ys)]``
  (an iterator read once where it is made, as the list it yields: passed to a call, or looped over;
  ``list(map(...))`` is that list; a map kept in a name, which a second read finds empty, is left);
- ``if any(... for ...):`` (and ``all``, ``elif``): the test computed in a statement just before
  (not differentiated: it decides a branch at run time); ``while any(...):`` computes it before the
  loop and again at the end of its body; ``a and any(...)`` (``or``) computes it where `a` holds
  (does not), when `a` calls nothing;
- ``dataclasses.replace(obj, f=v)`` of an object built once in the function (``obj = C(...)``):
  ``C(f=v, g=obj.g)``, the constructor replace calls;
- ``np.cov(a, y)`` / ``np.corrcoef(a, y)``: ``np.cov(np.vstack([a, y]))`` (variable_pairs.py);
- ``vals = [0.0, 1.0]`` later written by index: ``vals = [0.0] * 2`` then ``vals[1] = 1.0``
  (a list lowering knows to be new, so its slots may be written).

A call these do not match is left as written, and lowering refuses it at its line.
"""

from __future__ import annotations

import ast
import builtins
import copy
import dataclasses

import numpy as np

from .block_rows import block_call
from .naming import FreeNames, inner_blocks
from .variable_pairs import PAIRED, stacked_variables

_REDUCTIONS = {np.sum: "sum", np.mean: "mean"}
_SPELLED = ("multi_dot", "block", "map", "any", "all", "replace", "cov", "corrcoef")
_KEYWORDS = {"axis", "keepdims", "where", "dtype"}
_COMPREHENSIONS = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def spelled(tree: ast.FunctionDef) -> bool:
    """A cheap test: whether the function has a call or literal these rewrites could apply to."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if name in _SPELLED or any(k.arg == "where" for k in node.keywords):
                return True
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.List) and _constants(node.value):
            return True
    return False


def rewrite_spellings(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Rewrite, in place, the spellings above in the function's body."""
    calls = _Calls(names, tree)
    for node in ast.walk(tree):  # a map read once where it is made: an argument, or what a loop runs over
        if isinstance(node, ast.Call):
            calls.read_once.update(id(a) for a in node.args)
        elif isinstance(node, (ast.For, ast.comprehension)):
            calls.read_once.add(id(node.iter))
    calls.visit(tree)
    _block(tree.body, names, tree)


class _Calls(ast.NodeTransformer):
    def __init__(self, names: FreeNames, tree: ast.FunctionDef):
        self.names, self.tree, self.mapped, self.read_once = names, tree, set(), set()

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        value = self.names.resolve(node.func)
        if value is np.linalg.multi_dot:
            return _multi_dot(_listed(node, self.tree))
        if value is np.block:
            return block_call(node)
        if value in PAIRED:  # np.cov(a, y): variable_pairs.py
            return stacked_variables(node)
        if value in _REDUCTIONS and any(k.arg == "where" for k in node.keywords):
            return _masked(node, _REDUCTIONS[value])
        if value is dataclasses.replace:
            return _replaced(node, self.names, self.tree)
        if value is builtins.map and id(node) in self.read_once:
            out = _mapped(node, self.names)
            self.mapped.add(id(out))
            return out
        if value is builtins.list and len(node.args) == 1 and not node.keywords and id(node.args[0]) in self.mapped:
            return node.args[0]  # the comprehension is a new list already
        return node


def _multi_dot(node: ast.Call) -> ast.expr:
    if node.keywords or len(node.args) != 1 or not isinstance(node.args[0], (ast.List, ast.Tuple)) \
            or len(node.args[0].elts) < 2 or any(isinstance(e, ast.Starred) for e in node.args[0].elts):
        return node
    product = node.args[0].elts[0]
    for factor in node.args[0].elts[1:]:
        product = ast.BinOp(product, ast.MatMult(), factor)
    return ast.copy_location(product, node)


def _listed(node: ast.Call, tree: ast.FunctionDef) -> ast.Call:
    """``multi_dot(mats)`` with ``mats = [A, B, C]`` assigned once and never changed: ``multi_dot([mats[0],
    mats[1], mats[2]])`` (the items the list holds when it is read, by position)."""
    if node.keywords or len(node.args) != 1 or not isinstance(node.args[0], ast.Name):
        return node
    name = node.args[0].id
    made = [n for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For,
                                                         ast.comprehension, ast.NamedExpr))
            and any(name in _stored(t) for t in _targets(n))]
    if name in {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)} or len(made) != 1 \
            or not isinstance(made[0], ast.Assign) or not isinstance(made[0].value, (ast.List, ast.Tuple)) \
            or any(isinstance(e, ast.Starred) for e in made[0].value.elts) or _changed(name, tree):
        return node
    items = [ast.Subscript(ast.Name(name, ast.Load()), ast.Constant(k), ast.Load())
             for k in range(len(made[0].value.elts))]
    return ast.copy_location(ast.Call(node.func, [ast.List(items, ast.Load())], []), node)


def _changed(name: str, tree: ast.FunctionDef) -> bool:
    """Whether the function may change the list `name` in place (a method call, a write by index,
    ``del``) or hand it to a call other than a read (which might change it)."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name:
            return True
        if isinstance(n, (ast.Subscript,)) and isinstance(n.value, ast.Name) and n.value.id == name \
                and not isinstance(n.ctx, ast.Load):
            return True
        if isinstance(n, (ast.Delete, ast.Global, ast.Nonlocal, ast.With)):
            return True
        if isinstance(n, ast.Call) and any(isinstance(a, ast.Name) and a.id == name for a in n.args) \
                and not (isinstance(n.func, ast.Name) and n.func.id == "len") \
                and not (isinstance(n.func, ast.Attribute) and n.func.attr == "multi_dot" and len(n.args) == 1):
            return True  # handed to a call, which might change it
    return False


def _masked(node: ast.Call, how: str) -> ast.expr:
    keywords = {k.arg: k.value for k in node.keywords}
    if len(node.args) not in (1, 2) or not set(keywords) <= _KEYWORDS or any(
            isinstance(a, ast.Starred) for a in node.args):
        return node
    x, mask = node.args[0], keywords.pop("where")
    rest = node.args[1:] + []
    others = [ast.keyword(k, v) for k, v in keywords.items()]
    module = node.func.value if isinstance(node.func, ast.Attribute) else None
    if module is None:
        return node

    def np_call(name, args, kws=()):
        return ast.Call(ast.Attribute(copy.deepcopy(module), name, ast.Load()), args, [copy.deepcopy(k) for k in kws])

    zero = ast.Constant(0.0)
    total = np_call("sum", [np_call("where", [mask, x, zero])] + rest, others)
    if how == "sum":
        return ast.copy_location(total, node)
    ones = np_call("ones_like", [copy.deepcopy(x)])
    count = np_call("sum", [np_call("where", [copy.deepcopy(mask), ones, ast.Constant(0.0)])] + copy.deepcopy(rest),
                    others)
    return ast.copy_location(ast.BinOp(total, ast.Div(), count), node)


def _mapped(node: ast.Call, names: FreeNames) -> ast.expr:
    f, iterables = (node.args[0], node.args[1:]) if node.args else (None, [])
    if node.keywords or not iterables or any(isinstance(a, ast.Starred) for a in node.args):
        return node
    if len(iterables) > 1 and names.resolve(ast.Name("zip", ast.Load())) is not builtins.zip:
        return node
    if isinstance(f, ast.Lambda):
        a = f.args
        fixed = _constant_defaults(f)
        if fixed is None or a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs \
                or len(a.args) - len(a.defaults) != len(iterables):
            return node
        params, body = [p.arg for p in a.args[:len(iterables)]], _substituted(f.body, fixed)
    else:
        params = [names.namer.fresh("item") for _ in iterables]
        body = ast.Call(f, [ast.Name(p, ast.Load()) for p in params], [])
    if len(iterables) == 1:
        target, source = ast.Name(params[0], ast.Store()), iterables[0]
    else:
        target = ast.Tuple([ast.Name(p, ast.Store()) for p in params], ast.Store())
        source = ast.Call(ast.Name("zip", ast.Load()), list(iterables), [])
    loop = ast.comprehension(target, source, [], 0)
    return ast.copy_location(ast.ListComp(body, [loop]), node)


def _constant_defaults(f: ast.Lambda) -> dict | None:
    """The lambda's parameters with a default, by name, when every default is a number (the
    map passes only the others), and its body binds no name; else None."""
    a = f.args
    given = a.args[len(a.args) - len(a.defaults):] if a.defaults else []
    if any(not (isinstance(d, ast.Constant) and isinstance(d.value, (int, float)) and not isinstance(d.value, bool))
           for d in a.defaults) or any(isinstance(n, (ast.NamedExpr, ast.Lambda, ast.comprehension))
                                       for n in ast.walk(f.body)):
        return None
    return {p.arg: d.value for p, d in zip(given, a.defaults)}


def _substituted(body: ast.expr, fixed: dict) -> ast.expr:
    """`body` with each name of `fixed` read as its number."""

    class Put(ast.NodeTransformer):
        def visit_Name(self, node):
            return ast.copy_location(ast.Constant(fixed[node.id]), node) if node.id in fixed else node

    return Put().visit(copy.deepcopy(body)) if fixed else body


def _replaced(node: ast.Call, names: FreeNames, tree: ast.FunctionDef) -> ast.expr:
    """``dataclasses.replace(obj, f=v)`` of an object built once in the function by ``C(...)``: ``C(f=v, g=obj.g)``
    (what replace does: every field of ``__init__``, the new values or the old ones)."""
    if len(node.args) != 1 or not isinstance(node.args[0], ast.Name) or any(k.arg is None for k in node.keywords):
        return node
    name = node.args[0].id
    built = [n for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For,
                                                          ast.comprehension, ast.NamedExpr))
             and any(name in _stored(t) for t in _targets(n))]
    if name in {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)} or len(built) != 1 \
            or not isinstance(built[0], ast.Assign) or not isinstance(built[0].value, ast.Call):
        return node
    cls = names.resolve(built[0].value.func)
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        return node
    fields = [f for f in dataclasses.fields(cls) if f.init]
    given = {k.arg: k.value for k in node.keywords}
    if set(given) - {f.name for f in fields} or len(dataclasses.fields(cls)) != len(cls.__dataclass_fields__):
        return node  # a name that is no field (replace raises), or an InitVar replace must be given
    keywords = [ast.keyword(f.name, given.get(f.name, ast.Attribute(ast.Name(name, ast.Load()), f.name, ast.Load())))
                for f in fields]
    return ast.copy_location(ast.Call(copy.deepcopy(built[0].value.func), [], keywords), node)


def _targets(node) -> list:
    if isinstance(node, ast.Assign):
        return node.targets
    return [node.target]


def _stored(target: ast.expr) -> set:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _block(body: list, names: FreeNames, tree: ast.FunctionDef) -> None:
    """Hoist run-time tests of ``any``/``all`` out of ``if`` tests; split constant lists written by index."""
    k = 0
    while k < len(body):
        stmt = body[k]
        for inner in inner_blocks(stmt):
            _block(inner, names, tree)
        before = _hoisted_tests(stmt, names) if isinstance(stmt, ast.If) else \
            _while_tests(stmt, names) if isinstance(stmt, ast.While) else []
        after = _split_list(stmt, tree) if isinstance(stmt, ast.Assign) else []
        body[k:k + 1] = before + [stmt] + after
        k += len(before) + 1 + len(after)


def _hoisted_tests(stmt: ast.If, names: FreeNames) -> list:
    """The statements computing an ``any``/``all`` test of `stmt` (its whole test, or one operand of an
    ``and``/``or`` whose earlier operands call nothing), the test then reading their flag."""
    negated = isinstance(stmt.test, ast.UnaryOp) and isinstance(stmt.test.op, ast.Not)
    test = stmt.test.operand if negated else stmt.test
    if isinstance(test, ast.BoolOp):
        return _hoisted_operand(test, names)
    found = _flag_loop(test, names)
    if found is None:
        return []
    name, out = found
    stmt.test = ast.UnaryOp(ast.Not(), name) if negated else name
    return out


def _hoisted_operand(test: ast.BoolOp, names: FreeNames) -> list:
    """``a and any(...)``: the flag computed where `a` holds (``or``: where it does not), as Python
    evaluates it, `a` read twice (it calls nothing, so it reads the same)."""
    def unwrapped(value):
        return value.operand if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not) else value

    j = next((k for k, value in enumerate(test.values) if _is_any_all(unwrapped(value), names)), None)
    if j is None:
        return []
    call = unwrapped(test.values[j])
    negated = call is not test.values[j]
    before = test.values[:j]
    if any(isinstance(n, (ast.Call, ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Lambda,
                          ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp))
           for v in before for n in ast.walk(v)):
        return []
    found = _flag_loop(call, names)
    if found is None:
        return []
    name, out = found
    test.values[j] = ast.UnaryOp(ast.Not(), name) if negated else name
    if before:
        earlier = copy.deepcopy(before[0]) if len(before) == 1 else ast.BoolOp(type(test.op)(), copy.deepcopy(before))
        guard = earlier if isinstance(test.op, ast.And) else ast.UnaryOp(ast.Not(), earlier)
        out = out[:1] + [ast.copy_location(ast.If(guard, out[1:], []), call)]
        for n in ast.walk(out[1]):
            ast.copy_location(n, call)
    return out


def _is_any_all(test: ast.expr, names: FreeNames) -> bool:
    return isinstance(test, ast.Call) and names.resolve(test.func) in (builtins.any, builtins.all) \
        and len(test.args) == 1 and not test.keywords and isinstance(test.args[0], (ast.GeneratorExp, ast.ListComp))


def _flag_loop(test: ast.expr, names: FreeNames):
    """(the flag's name read, [its start, the loop setting it]) for ``any(... for ...)`` / ``all``, or None."""
    if not _is_any_all(test, names):
        return None
    is_any = names.resolve(test.func) is builtins.any
    flag = names.namer.fresh("found" if is_any else "every")
    generator = _renamed(test.args[0], names)
    # a loop, not a call: what lowering takes (a Python bool decided at run time, never differentiated)
    condition = generator.elt if is_any else ast.UnaryOp(ast.Not(), generator.elt)
    inner: list = [ast.If(condition, [ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(is_any))], [])]
    for loop in reversed(generator.generators):
        if loop.is_async:
            return None
        for guard in reversed(loop.ifs):
            inner = [ast.If(guard, inner, [])]
        inner = [ast.For(loop.target, loop.iter, inner, [])]
    start = ast.Assign([ast.Name(flag, ast.Store())], ast.Constant(not is_any))
    out = [start] + inner
    for s in out:
        for n in ast.walk(s):
            ast.copy_location(n, test)
    return ast.Name(flag, ast.Load()), out


def _while_tests(stmt: ast.While, names: FreeNames) -> list:
    """``while any(... for ...):`` as the test's loop before the ``while`` and again at the end of
    its body (the flag the ``while`` tests), when the body has no ``continue`` that would skip it."""
    if any(isinstance(n, ast.Continue) for s in stmt.body for n in ast.walk(s)):
        return []
    before = _hoisted_tests(stmt, names)
    stmt.body = stmt.body + copy.deepcopy(before)
    return before


def _renamed(generator, names: FreeNames):
    """`generator` with its loop names fresh: a comprehension's names are its own, a loop's are the function's."""
    bound = {n.id for loop in generator.generators for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    fresh = {b: names.namer.fresh(b) for b in sorted(bound)}

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node):
            return ast.copy_location(ast.Name(fresh.get(node.id, node.id), node.ctx), node)

    generator = copy.deepcopy(generator)
    first = copy.deepcopy(generator.generators[0].iter)  # evaluated outside the comprehension's scope
    generator = Rename().visit(generator)
    generator.generators[0].iter = first
    return generator


def _constants(node: ast.List) -> bool:
    return len(node.elts) > 1 and all(_number(e) for e in node.elts)


def _number(e: ast.expr) -> bool:
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        e = e.operand
    # (ints too: ``count = [0, 0]`` of counters written by index, ``count[g] += 1``)
    return isinstance(e, ast.Constant) and type(e.value) in (float, int)


def _split_list(stmt: ast.Assign, tree: ast.FunctionDef) -> list:
    if not (len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.List) and _constants(stmt.value)):
        return []
    name = stmt.targets[0].id
    written = any(isinstance(n, (ast.Assign, ast.AugAssign)) and any(
        isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name
        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])) for n in ast.walk(tree))
    if not written:
        return []
    elts = stmt.value.elts
    first = elts[0]
    stmt.value = ast.copy_location(ast.BinOp(ast.List([first], ast.Load()), ast.Mult(), ast.Constant(len(elts))),
                                   stmt.value)
    return [ast.copy_location(ast.Assign([ast.Subscript(ast.Name(name, ast.Load()), ast.Constant(j), ast.Store())], e),
                              stmt)
            for j, e in enumerate(elts) if j and ast.dump(e) != ast.dump(first)]
