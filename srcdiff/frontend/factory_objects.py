"""The mixin that reads a factory's call as the object it builds (factories.py says which
functions are factories and how the call is read)."""

from __future__ import annotations

import ast
import copy
import inspect
import types

from .factories import factory_body, factory_function
from .global_objects import user_class
from .naming import Rename
from .parse import parse_function
from .tree_entries import Node


class Factories:
    """A mixin of the expression rewriter: `factory_entry(node)` is the object tree a factory
    call builds, or None."""

    def factory_entry(self, node: ast.Call):
        memo = self.__dict__.setdefault("_factory_memo", {})
        if id(node) in memo and memo[id(node)][0] is node:
            return memo[id(node)][1]
        found = self.factory_made(node)
        memo[id(node)] = (node, found)
        return found

    def factory_made(self, node: ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id not in self.env:
            cls = self.parsed.resolve(func.value.id)
            found = factory_function(cls, func.attr) if user_class(cls) else None
            if found is None:
                return None
            factory, takes_cls = found
        elif isinstance(func, ast.Name) and func.id not in self.env:
            factory, takes_cls, cls = self.parsed.resolve(func.id), False, None
            if not isinstance(factory, types.FunctionType) or factory_body(factory, False) is None:
                return None
        else:
            return None
        if self.built is None:
            return None
        assignments, call = factory_body(factory, takes_cls)
        parsed = parse_function(factory)
        params = [p.arg for p in parsed.tree.args.args][1 if takes_cls else 0:]
        made_class = cls if takes_cls else parsed.resolve(call.func.id)
        if not user_class(made_class):
            return None
        local = {n.id for s in assignments for t in s.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        free = {n.id for s in assignments + [call] for n in ast.walk(s) if isinstance(n, ast.Name)} \
            - local - set(params) - {call.func.id}
        if any(parsed.resolve(n) is not self.parsed.resolve(n) for n in free):
            return None
        try:
            bound = inspect.signature(factory).bind(*([None] if takes_cls else []), *node.args,
                                                   **{k.arg: k.value for k in node.keywords})
        except TypeError as exc:
            raise self.error(node, f"cannot call {ast.unparse(func)} this way: {exc}") from None
        bound.apply_defaults()
        label = getattr(factory, "__name__", "factory")
        renamed = {}
        for p in params:
            value = bound.arguments[p]
            if not isinstance(value, ast.AST):
                value = ast.Constant(value) if isinstance(value, (int, float, bool, str, type(None))) else None
                if value is None:
                    return None
            given = self.entry(value)
            if isinstance(given, Node):  # from_params(cls, p) given a parameter tree: p is that tree
                renamed[p] = self.names.fresh(f"{label}_{p}")
                self.env[renamed[p]] = given
                continue
            renamed[p] = self.built_leaf(self.expr(value), f"{label}_{p}", node).name
        for stmt in assignments:
            value = Rename(renamed).visit(copy.deepcopy(stmt.value))
            value = ast.copy_location(value, node)
            ast.fix_missing_locations(value)
            value = self.expr(value)  # (a tree's items read as its variables)
            names = {t.id: self.names.fresh(f"{label}_{t.id}") for t in stmt.targets}
            self.built.append(ast.copy_location(ast.Assign([ast.Name(n, ast.Store()) for n in names.values()],
                                                           value), node))
            renamed.update(names)
        made = Rename(renamed).visit(copy.deepcopy(call))
        made.func = ast.Name(call.func.id, ast.Load())
        ast.copy_location(made, node)
        ast.fix_missing_locations(made)
        for n in ast.walk(made):
            if hasattr(n, "lineno"):
                ast.copy_location(n, node)
        return self.computed_object(made, made_class)


__all__ = ["Factories"]
