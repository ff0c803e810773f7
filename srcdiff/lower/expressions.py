"""Lowering of the expressions everyday Python adds to arithmetic and library calls.

Subscripts, comparisons and conditions, conditional expressions, lists and tuples as values,
comprehensions (lowered as a loop that appends), a local lambda (inlined where it is
called), a few builtins, and calls to other user functions (a `UserCall` node, whose
adjoint is generated from the callee's own source).
"""

from __future__ import annotations

import ast
import builtins
import copy
import inspect

import numpy as np

from ..frontend import depends
from ..frontend.parse import _MISSING
from ..ir.nodes import Const, Global, Operand, Specialised, UserCall, Var, operand_ast
from ..rules.structural import (
    ABS,
    COMPARE,
    FLOAT,
    GETITEM,
    LIST_AWARE,
    MAX,
    MIN,
    NOGRAD,
    STACK_LIST,
    SUM_LIST,
    SUM_ROWS,
    list_of,
    user_rule,
)

_SCOPES = (ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)
_NO_GRADIENT = (builtins.len, builtins.int, builtins.round, builtins.bool, builtins.isinstance)


class ExpressionMixin:
    """The expression half of `lower.Lowerer` beyond operators and rule-table calls."""

    # ---- values that carry no gradient ----

    def substitute(self, expr: ast.expr) -> tuple[ast.expr, tuple[Var, ...]]:
        """`expr` reading the current values of the names it mentions, and those `Var`s."""
        if any(isinstance(n, _SCOPES) for n in ast.walk(expr)):
            raise self.error(expr, "comprehensions and lambdas inside a condition or comparison "
                             "are not supported", "compute the value in a statement first")
        reads: dict[str, Var] = {}
        lowerer = self

        class Substitute(ast.NodeTransformer):
            def visit_Name(self, name: ast.Name):
                if name.id in lowerer.env:
                    operand = lowerer.env[name.id]
                    if isinstance(operand, Var):
                        reads[operand.name] = operand
                        lowerer.note_list_read(operand)
                    return ast.copy_location(operand_ast(operand), name)
                if name.id in lowerer.lambdas or name.id in lowerer.locals:
                    lowerer.expr_Name(name, None)  # refuses lambdas and unassigned locals
                elif lowerer.parsed.resolve(name.id) is _MISSING:
                    raise lowerer.error(name, f"name {name.id!r} is not defined")
                return name

        return Substitute().visit(copy.deepcopy(expr)), tuple(reads.values())

    def opaque(self, node: ast.expr, target) -> Operand:
        """A value with no gradient (a comparison, a length), computed as the user wrote it."""
        expr, reads = self.substitute(node)
        return self.emit_rule(NOGRAD, reads, {}, expr, target)

    def opaque_call(self, name: str, *operands: Operand) -> Operand:
        """``name(*operands)`` for a builtin with no gradient (len, min of lengths)."""
        for v in operands:
            self.note_list_read(v)
        expr = ast.Call(ast.Name(name, ast.Load()), [operand_ast(v) for v in operands], [])
        return self.emit_rule(NOGRAD, tuple(v for v in operands if isinstance(v, Var)), {}, expr, None)

    def expr_Compare(self, node: ast.Compare, target) -> Operand:
        if all(isinstance(e, ast.Constant) or (isinstance(e, ast.Name) and e.id in self.env)
               for e in [node.left, *node.comparators]):
            expr, reads = self.substitute(node)  # its shape is known: the operands' broadcast
            return self.emit_rule(COMPARE, reads, {}, expr, target)
        return self.opaque(node, target)

    def expr_BoolOp(self, node: ast.BoolOp, target) -> Operand:
        raise self.error(node, "`and`/`or` are supported in conditions only (their value could "
                         "be one of the operands)", "use them in an `if`/`while` test, or "
                         "use np.logical_and / a conditional expression")

    def shape_query(self, node: ast.Attribute, target) -> Operand:
        return self.opaque(node, target)

    # ---- conditional expressions ----

    def expr_IfExp(self, node: ast.IfExp, target) -> Operand:
        test = self.condition(node.test)
        key = f"<ifexp {node.lineno}:{node.col_offset}>"
        self.temp_names[key] = target or self.namer.temp()

        def side(expr):
            return lambda: self.env.__setitem__(key, self.expr(expr))

        self.branch(test, side(node.body), side(node.orelse), self.line)
        return self.env.pop(key)

    # ---- subscripts ----

    def expr_Subscript(self, node: ast.Subscript, target) -> Operand:
        inputs, kinds, parts = self.index_parts(node)
        index = parts[0] if len(parts) == 1 and not isinstance(node.slice, ast.Tuple) \
            else ast.Tuple(parts, ast.Load())
        return self.getitem(inputs, tuple(kinds), index, target)

    def index_parts(self, node: ast.Subscript):
        """The operands a subscript reads (the array first), each component's kind, and the
        components as they read those operands."""
        x = self.expr(node.value)
        comps = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        inputs, kinds, parts = [x], [], []
        for comp in comps:
            if isinstance(comp, ast.Slice):
                bounds = []
                for part in (comp.lower, comp.upper, comp.step):
                    operand = None if part is None else self.expr(part)
                    if isinstance(operand, (Var, Global)):
                        inputs.append(operand)
                    bounds.append(None if operand is None else operand_ast(operand))
                kinds.append(("slice", sum(isinstance(b, ast.Name) for b in bounds)))
                parts.append(ast.Slice(*bounds))
            elif isinstance(comp, ast.Constant) and comp.value is None:
                kinds.append(("newaxis", 0))
                parts.append(comp)
            elif isinstance(comp, ast.Constant) and comp.value is Ellipsis:
                raise self.error(node, "`...` in a subscript is not supported", "name the axes")
            else:
                operand = self.expr(comp)
                if isinstance(operand, Const):
                    if not isinstance(operand.value, int):
                        raise self.error(node, f"index {operand.value!r} is not an integer")
                    kinds.append(("int", 0))
                else:
                    inputs.append(operand)
                    kinds.append(("op", 1))
                parts.append(operand_ast(operand))
        return inputs, kinds, parts

    def subscript(self, x: Operand, index: Operand, target=None) -> Operand:
        """``x[index]`` for one integer index operand."""
        kinds = (("int", 0),) if isinstance(index, Const) else (("op", 1),)
        inputs = [x] + ([index] if isinstance(index, Var) else [])
        return self.getitem(inputs, kinds, operand_ast(index), target)

    def getitem(self, inputs, kinds, index: ast.expr, target) -> Operand:
        x = inputs[0]
        expr = ast.Subscript(operand_ast(x), index, ast.Load())
        return self.emit_rule(GETITEM, tuple(inputs), {"index": kinds}, expr, target)

    def unpack(self, value: ast.expr, count: int, names=None) -> list[Operand]:
        """``a, b = value``: one subscript per name (named after it, when given)."""
        x = self.expr(value)
        names = names or [None] * count
        return [self.subscript(x, Const(j), target=names[j]) for j in range(count)]

    # ---- lists ----

    def expr_List(self, node: ast.List, target) -> Operand:
        if node.elts and all(isinstance(e, ast.Constant) for e in node.elts):  # literal data
            return self.opaque(node, target)
        return self.new_list([self.expr(e) for e in node.elts], target)

    def expr_Tuple(self, node: ast.Tuple, target) -> Operand:
        if node.elts and all(isinstance(e, ast.Constant) for e in node.elts):
            return self.opaque(node, target)
        return self.new_list([self.expr(e) for e in node.elts], target, tuple_=True)

    def new_list(self, items: list[Operand], target, tuple_=False) -> Var:
        elts = [operand_ast(v) for v in items]
        expr = ast.Tuple(elts, ast.Load()) if tuple_ else ast.List(elts, ast.Load())
        out = self.emit_rule(list_of(len(items)), tuple(items), {}, expr, target)
        if not tuple_:
            self.lists.add(out.name)
        else:
            self.lists.add(out.name)
            self.frozen_lists.add(out.name)  # tuples never grow
        return out

    def comprehension(self, node, target) -> Var:
        """``[e for v in it if c]`` as a loop appending to a new list."""
        key = f"<comprehension {node.lineno}:{node.col_offset}>"
        self.temp_names[key] = target or self.namer.temp()
        out = self.new_list([], None)
        self.env[key] = out
        loop = ast.For(target=None, iter=None, body=[], orelse=[])
        inner: list[ast.stmt] = [ast.Expr(ast.Call(
            ast.Attribute(ast.Name(key, ast.Load()), "append", ast.Load()), [node.elt], []))]
        for gen in reversed(node.generators):
            if gen.is_async:
                raise self.unsupported(node)
            for cond in reversed(gen.ifs):
                inner = [ast.If(cond, inner, [])]
            loop = ast.For(target=gen.target, iter=gen.iter, body=inner, orelse=[])
            inner = [loop]
        stmt = ast.fix_missing_locations(ast.copy_location(loop, node))
        for n in ast.walk(stmt):
            if not hasattr(n, "lineno") or n.lineno is None:
                ast.copy_location(n, node)
        saved = {n: self.env.get(n) for n in _comprehension_names(node)}
        self.stmt_For(stmt)
        for name, value in saved.items():  # comprehension variables do not leak
            if value is None:
                self.env.pop(name, None)
            else:
                self.env[name] = value
        return self.env.pop(key)

    expr_ListComp = comprehension
    expr_GeneratorExp = comprehension

    def check_list_use(self, rule, inputs) -> None:
        for v in inputs:
            if isinstance(v, Var) and v.name in self.lists:
                if rule not in LIST_AWARE and not (rule.name == "list"):
                    raise self.error(self.line, f"the list {v.name} cannot be used here: "
                                     f"{rule.name} does not take a list",
                                     "index it, or turn it into an array with np.stack / np.array")
                if rule.name != "list.append":
                    self.note_list_read(v)

    def note_list_read(self, v: Operand) -> None:
        if isinstance(v, Var) and v.name in self.lists:
            self.frozen_lists.add(v.name)
            for info in self.loops:
                info["read"].add(v.name)

    # ---- calls: builtins, lambdas, user functions ----

    def list_consumer(self, node: ast.Call, target) -> Operand | None:
        """``np.stack(xs)`` / ``np.array(xs)`` of a list this function builds (or of a
        comprehension): the adjoint is the list of the result's rows."""
        if len(node.args) != 1 or node.keywords:
            return None
        arg = node.args[0]
        is_list = isinstance(arg, ast.Name) and isinstance(self.env.get(arg.id), Var) \
            and self.env[arg.id].name in self.lists
        if not (is_list or isinstance(arg, (ast.ListComp, ast.GeneratorExp))):
            return None
        if self.static_value(node.func) not in (np.stack, np.array, np.asarray):
            return None
        return self.emit_rule(STACK_LIST, (self.expr(arg),), {}, None, target, expr_of=node)

    def special_call(self, node: ast.Call, func, target) -> Operand | None:
        """Builtins and list consumers that lowering handles itself; None for the rest."""
        n = len(node.args)
        simple = not node.keywords and not any(isinstance(a, ast.Starred) for a in node.args)
        if func in _NO_GRADIENT:
            return self.opaque(node, target)
        if func is builtins.range:
            raise self.error(node, "range(...) is supported only as the iterable of a `for` loop")
        if func is builtins.float and simple and n == 1:
            return self.emit_rule(FLOAT, (self.expr(node.args[0]),), {}, None, target, expr_of=node)
        if func is builtins.abs and simple and n == 1:
            return self.emit_rule(ABS, (self.expr(node.args[0]),), {}, None, target, expr_of=node)
        if func in (builtins.min, builtins.max):
            if not (simple and n == 2):
                raise self.error(node, f"{func.__name__}() is supported with two values",
                                 f"use np.{func.__name__} for a sequence or an array")
            rule = MIN if func is builtins.min else MAX
            return self.emit_rule(rule, tuple(self.expr(a) for a in node.args), {}, None, target, expr_of=node)
        if func is builtins.sum:
            if not (simple and n == 1):
                raise self.error(node, "sum() is supported with one argument", "add the start value")
            x = self.expr(node.args[0])
            rule = SUM_LIST if isinstance(x, Var) and x.name in self.lists else SUM_ROWS
            return self.emit_rule(rule, (x,), {}, None, target, expr_of=node)
        if func in (builtins.list, builtins.tuple):
            raise self.error(node, f"{func.__name__}(...) is not supported",
                             "build the list with [...] and append")
        if func in (np.stack, np.array, np.asarray) and n == 1 and not node.keywords \
                and isinstance(node.args[0], (ast.Name, ast.ListComp, ast.GeneratorExp)):
            x = self.expr(node.args[0])
            if isinstance(x, Var) and x.name in self.lists:
                return self.emit_rule(STACK_LIST, (x,), {}, None, target, expr_of=node)
            return None if not isinstance(node.args[0], (ast.ListComp, ast.GeneratorExp)) else \
                self.emit_rule(STACK_LIST, (x,), {}, None, target, expr_of=node)
        return None

    def call_lambda(self, node: ast.Call, lam: ast.Lambda, target) -> Operand:
        """A local lambda, inlined: its parameters bound to the arguments' values."""
        a = lam.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs or node.keywords \
                or len(node.args) != len(a.args):
            raise self.error(node, "a local lambda is supported when called with exactly its "
                             "positional parameters", "define a function at module level")
        values = [self.expr(arg) for arg in node.args]
        saved = {p.arg: self.env.get(p.arg) for p in a.args}
        self.env.update({p.arg: v for p, v in zip(a.args, values)})
        try:
            return self.expr(lam.body, target)
        finally:
            for name, value in saved.items():
                if value is None:
                    self.env.pop(name, None)
                else:
                    self.env[name] = value

    def user_call(self, node: ast.Call, func, target) -> Operand:
        """A call to another user function: differentiated through its own transform."""
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise self.error(node, "*args and **kwargs in a call are not supported")
        sig = inspect.signature(func)
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig.parameters.values()):
            raise self.error(node, f"{func.__name__} takes *args or **kwargs, which srcdiff "
                             "cannot differentiate through", "name every parameter")
        try:
            bound = sig.bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError as exc:
            raise self.error(node, f"cannot call {func.__name__} this way: {exc}") from None
        by_node = {id(v): k for k, v in bound.arguments.items()}
        operands = [self.expr(a) for a in node.args] + [self.expr(k.value) for k in node.keywords]
        names = tuple(by_node[id(a)] for a in node.args) + tuple(k.arg for k in node.keywords)
        keywords = (None,) * len(node.args) + tuple(k.arg for k in node.keywords)
        args = [operand_ast(o) for o, k in zip(operands, keywords) if k is None]
        kws = [ast.keyword(k, operand_ast(o)) for o, k in zip(operands, keywords) if k is not None]
        expr = ast.Call(node.func, args, kws)
        # the callee's adjoint is built from its own source: what it reads statically counts too
        self.parsed.include(depends.of_function(func, self.table))
        callee = self.specialised_callee(node, func, sig, bound)
        return self.emit_rule(user_rule(func, tuple(sig.parameters)), tuple(operands), {}, expr,
                              target, kind=UserCall, callee=callee, arg_names=names, keywords=keywords)

    def specialised_callee(self, node: ast.Call, func, sig, bound):
        """`func`, or `callees.Specialised` on the values this call gives the parameters it
        uses as static arguments (a constant, or this function's own static parameter)."""

        names = depends.static_parameters(func, self.table)
        if not names:
            return func
        statics = []
        for name in names:
            given = bound.arguments.get(name)
            value = sig.parameters[name].default if given is None else self.constant(given)
            if not depends.static_ok(value):
                raise self.error(node, f"{func.__name__} uses its parameter {name} as a static "
                                 f"argument, and {name}={value!r} here is not a constant srcdiff can "
                                 "specialise on (None, a number, a bool, a string, or a tuple of them)",
                                 f"pass {name} as a Python int or tuple")
            statics.append((name, value))
        return Specialised(func, tuple(statics))


def _comprehension_names(node) -> set[str]:
    return {n.id for gen in node.generators for n in ast.walk(gen.target) if isinstance(n, ast.Name)}


__all__ = ["ExpressionMixin", "_MISSING"]
