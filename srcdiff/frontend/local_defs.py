"""A function defined inside the differentiated one and given a parameter tree, written out where it
is called (a mixin of the tree rewriter, flatten_statements.py)::

    def grads(p):                                     p_1 = params            (the tree: its leaves)
        r = X @ p["w"] + p["b"] - y           ==>     r_1 = X @ params_w + params_b - y
        return {"w": X.T @ r, "b": np.mean(r)}        g = {"w": X.T @ r_1, "b": np.mean(r_1)}
    g = grads(params)

Lowering inlines a nested function at each call anyway (reading the enclosing names as they are
at the call, as Python's closure does); a tree has no value it could pass, so the tree rewrite
does it first, where it knows the tree: the parameters bound to the arguments (a tree by its
entry, a value by a new variable), the function's other names fresh, its body rewritten in place
just before the statement that calls it, and the call's value the value of its last ``return``.
Also where the body reads a tree of the enclosing function (``def loss(): return np.sum(params["w"]
** 2)``).  Only a plain function: positional parameters, a body ending in its one ``return``, no
``nonlocal``/``global``/``yield``/nested function; a call inside a conditional part of a statement
(or in a loop's header) is left as written (and refused, as before).
"""

from __future__ import annotations

import ast
import copy

from .naming import Rename, assigned_names
from .tree_entries import Leaf, Node

_FORBIDDEN = (ast.Return, ast.Yield, ast.YieldFrom, ast.Await, ast.Nonlocal, ast.Global, ast.FunctionDef,
              ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


class LocalDefs:
    """A mixin of the tree rewriter: `local_defs` maps a nested function's name to its ``def``."""

    def local_def_entry(self, node: ast.Call):
        """The entry of ``f(...)`` of a nested function given a tree (or reading one), its body written
        into `self.built`; None for any other call."""
        fdef = self.__dict__.setdefault("local_defs", {}).get(node.func.id) if isinstance(node.func, ast.Name) \
            and node.func.id not in self.env else None
        if fdef is None:
            return None
        made = self.__dict__.setdefault("inlined_calls", {})
        if id(node) in made:
            return made[id(node)]
        dicts = any(isinstance(v, (ast.Dict, ast.DictComp)) for v in node.args + [k.value for k in node.keywords])
        if self.built is None or not _plain(fdef) or not (dicts or self.any_tree(node) or self._reads_trees(fdef)):
            return None
        a = fdef.args
        params = [p.arg for p in a.args]
        if any(isinstance(v, ast.Starred) for v in node.args) or any(k.arg is None for k in node.keywords) \
                or len(node.args) > len(params):
            return None
        given = dict(zip(params, node.args))
        for k in node.keywords:
            if k.arg not in params or k.arg in given:
                return None
            given[k.arg] = k.value
        if set(given) != set(params):
            return None
        own = sorted(set(params) | assigned_names(ast.Module(fdef.body, [])))
        rename = {n: self.names.fresh(n) for n in own}
        saved = getattr(self, "pending", None), getattr(self, "target_base", None)
        statements = []
        for p in params:  # (a tree bound to the name, a value assigned to it)
            statements += self.stmt(_at(ast.Assign([ast.Name(rename[p], ast.Store())], given[p]), node))
        body = [Rename(rename).visit(copy.deepcopy(s)) for s in fdef.body]
        for stmt in body[:-1]:
            statements += self.stmt(_at(stmt, node) if stmt.lineno is None else stmt)
        value = body[-1].value
        entry = self.entry(value)
        if not isinstance(entry, Node):
            held = self.names.fresh(f"{fdef.name}_value")
            statements += self.stmt(_at(ast.Assign([ast.Name(held, ast.Store())], value), body[-1]))
            entry = self.env.get(held) or Leaf(held)  # (a dict it builds: a tree)
        self.pending, self.target_base = saved
        self.built.extend(statements)
        made[id(node)] = entry
        return entry

    def remember_def(self, fdef: ast.FunctionDef) -> None:
        self.__dict__.setdefault("local_defs", {})[fdef.name] = fdef

    def _reads_trees(self, fdef: ast.FunctionDef) -> bool:
        own = assigned_names(ast.Module(fdef.body, [])) | {p.arg for p in fdef.args.args}
        return any(isinstance(n, ast.Name) and n.id not in own and isinstance(self.env.get(n.id), Node)
                   for n in ast.walk(ast.Module(fdef.body, [])))


def _plain(fdef: ast.FunctionDef) -> bool:
    a = fdef.args
    body = fdef.body
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults or fdef.decorator_list or not body \
            or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        return False
    return not any(isinstance(n, _FORBIDDEN) for s in body[:-1] for n in ast.walk(s)) \
        and not any(isinstance(n, _FORBIDDEN[1:]) for n in ast.walk(body[-1].value))


def _at(stmt: ast.stmt, where: ast.AST) -> ast.stmt:
    for n in ast.walk(stmt):
        if getattr(n, "lineno", None) is None and isinstance(n, (ast.expr, ast.stmt)):
            ast.copy_location(n, where)
    return stmt


__all__ = ["LocalDefs"]
