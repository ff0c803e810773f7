"""Lambdas made in the function and called there, alone or in lists (closures):

    fs = [lambda z, s=s: s * np.sum(z ** 2) for s in (0.5, 1.0)]
    return sum(f(x) for f in fs)           ->  sum(0.5 * np.sum(x ** 2), 1.0 * np.sum(x ** 2))

A lambda bound to a name (or held in a list, see partial_lists.py) is a `LambdaFn` entry; a
call of it is its body with the call's arguments for its parameters.  Defaults are values
taken when the lambda is made (variables assigned there, as for a partial).  The other
names the body reads are read when it is called, which is Python's rule for closures too; a
name that a comprehension of the function binds is refused, since there Python's closure
and the call's place may see different variables.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

from .tree_entries import Const, Leaf, Node


@dataclass
class LambdaFn:
    node: ast.Lambda
    defaults: dict  # parameter -> entry (Leaf, Const, Read)


class Lambdas:
    """A mixin of the expression rewriter."""

    def lambda_value(self, value, where, label: str, defaults=None):
        """The `LambdaFn` of ``lambda ...: body`` made here (its defaults assigned to
        `self.pending` unless given), or None when `value` is not a lambda srcdiff can inline."""
        if not isinstance(value, ast.Lambda):
            return None
        a = value.args
        if a.vararg or a.kwarg or a.posonlyargs or a.kwonlyargs:
            raise self.error(where, "a lambda with *args, **kwargs or keyword-only parameters is not supported",
                             "write a def, or name each parameter")
        params = [p.arg for p in a.args]
        bound_in_comprehensions = {n.id for c in ast.walk(self.parsed.tree)
                                   if isinstance(c, ast.comprehension) for n in ast.walk(c.target)
                                   if isinstance(n, ast.Name)}
        free = {n.id for n in ast.walk(value.body) if isinstance(n, ast.Name)} - set(params)
        clash = sorted(free & bound_in_comprehensions)
        if clash:
            raise self.error(where, f"this lambda reads {clash[0]}, which a comprehension of the function binds: "
                             "Python's closure and the place it is called may see different values",
                             f"pass {clash[0]} as a default: lambda z, {clash[0]}={clash[0]}: ...")
        if defaults is None:
            defaults = {}
            for p, expr in zip(params[len(params) - len(a.defaults):], a.defaults):
                found = self.entry(expr)
                if isinstance(found, (Const, Node)):
                    defaults[p] = found
                    continue
                name = self.names.fresh(f"{label}_{p}")
                self.pending.append(self.emit(name, self.expr(expr), where))
                defaults[p] = Leaf(name)
        return LambdaFn(value, defaults)

    def lambda_call(self, node: ast.Call, fn: LambdaFn):
        """``f(x)`` of a lambda: its body with the arguments for its parameters, rewritten."""
        params = [p.arg for p in fn.node.args.args]
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords) \
                or len(node.args) > len(params):
            raise self.error(node, f"cannot call the lambda {ast.unparse(node.func)} this way")
        given = dict(zip(params, node.args))
        for k in node.keywords:
            if k.arg not in params or k.arg in given:
                raise self.error(node, f"cannot call the lambda {ast.unparse(node.func)} with {k.arg}=")
            given[k.arg] = k.value
        for p in params:
            if p not in given:
                if p not in fn.defaults:
                    raise self.error(node, f"the lambda {ast.unparse(node.func)} needs its argument {p}")
                given[p] = self.as_ast(fn.defaults[p], node)
        inner = {n.id for c in ast.walk(fn.node.body) if isinstance(c, ast.comprehension)
                 for n in ast.walk(c.target) if isinstance(n, ast.Name)}
        passed = {n.id for a in given.values() for n in ast.walk(a) if isinstance(n, ast.Name)}
        if inner & passed:
            raise self.error(node, f"the lambda's body binds {sorted(inner & passed)[0]} in a comprehension, "
                             "and this call passes an expression reading that name",
                             "assign the argument to another name first")
        body = _Substitute(given).visit(copy.deepcopy(fn.node.body))
        for n in ast.walk(body):
            if isinstance(n, (ast.expr, ast.stmt)):
                ast.copy_location(n, node)
        return self.expr(body)


def lambda_as_written(fn: LambdaFn, as_ast, where) -> ast.Lambda:
    """The lambda as a value (passed to a function, not called here): as written, its defaults
    the values taken where it was made."""
    made = copy.deepcopy(fn.node)
    params = [p.arg for p in made.args.args]
    made.args.defaults = [as_ast(fn.defaults[p], where) if p in fn.defaults else d
                          for p, d in zip(params[len(params) - len(made.args.defaults):], made.args.defaults)]
    return made


class _Substitute(ast.NodeTransformer):
    def __init__(self, values: dict):
        self.values = values

    def visit_Name(self, node):
        if node.id in self.values and isinstance(node.ctx, ast.Load):
            return copy.deepcopy(self.values[node.id])
        return node

    def visit_Lambda(self, node):  # an inner lambda's own parameters shadow ours
        inner = {a.arg for a in node.args.args}
        saved = self.values
        self.values = {k: v for k, v in saved.items() if k not in inner}
        self.generic_visit(node)
        self.values = saved
        return node


__all__ = ["LambdaFn", "Lambdas", "lambda_as_written"]
