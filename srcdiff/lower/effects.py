"""Statements run for their effect only: printing, logging, warnings, ``assert``, ``raise``.

None of them changes a value the function returns, so none is differentiated: each becomes
one `ForwardStatement`, the user's statement reading the current values of the names it
mentions, which the forward sweep runs where the user wrote it.  A guard (``if bad: raise
...``, also as one side of an ``if``/``else``) is one such statement; a ``raise`` that is
taken raises the user's exception, as the function would.

An expression statement that is none of these is refused (mutations.py says how), and so
is a statement here that hides a change in place (``print(xs.pop())``).
"""

from __future__ import annotations

import ast
import builtins
import copy
import logging
import warnings

import numpy as np

from ..frontend.depends import MISSING
from ..ir.nodes import Const, ForwardStatement, Var
from ..rules import runtime
from ..rules.guard_helpers import computed_for_errors
from ..rules.structural import NOGRAD
from .ast_facts import read_before_write
from .mutations import check_no_change_in_place
from .state import LoweringState
from .static_values import static_value

_LOG_METHODS = {"debug", "info", "warning", "warn", "error", "critical", "exception", "log"}
_SCOPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
#: What a guard (the raising side of an ``if``) may hold besides ``raise``.
_GUARD_STATEMENTS = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.If, ast.For, ast.While,
                     ast.Raise, ast.Pass, ast.Assert)


def is_effect_call(state: LoweringState, call: ast.expr) -> bool:
    """``print(...)``, ``logging.info(...)``, ``logger.debug(...)``, ``warnings.warn(...)``;
    and the check of a generated gradient's output (``ensure_scalar``), read back for a
    higher derivative."""
    if not isinstance(call, ast.Call):
        return False
    func = static_value(state, call.func, record=False)
    if func is builtins.print or func is warnings.warn or func in (runtime.ensure_scalar, computed_for_errors):
        return True
    if func is not MISSING and getattr(func, "__module__", None) == "logging" \
            and getattr(func, "__name__", None) in _LOG_METHODS:
        return True
    if isinstance(call.func, ast.Attribute) and call.func.attr in _LOG_METHODS:
        owner = call.func.value
        if isinstance(owner, ast.Call):  # logging.getLogger(name).debug(...)
            return static_value(state, owner.func, record=False) is logging.getLogger
        return isinstance(static_value(state, owner, record=False), (logging.Logger, logging.LoggerAdapter))
    return False


def is_refusal_call(state: LoweringState, call: ast.expr) -> bool:
    """``refused(...)``: a generated gradient's deferred refusal (a branch side srcdiff could not
    differentiate, lower/branches.py), read back for a higher derivative.  It raises the user's
    refusal where it is taken, so the derivative of that gradient keeps it, as a ``raise``."""
    return isinstance(call, ast.Call) and static_value(state, call.func, record=False) is runtime.refused


def always_raises(stmts: list[ast.stmt]) -> bool:
    """Does every path through `stmts` end in ``raise`` (with no ``return``, ``break`` or
    ``continue`` on the way)?"""
    if not stmts or any(isinstance(n, (ast.Return, ast.Break, ast.Continue)) for s in stmts for n in ast.walk(s)):
        return False
    last = stmts[-1]
    if isinstance(last, ast.Raise):
        return True
    return isinstance(last, ast.If) and always_raises(last.body) and always_raises(last.orelse)


def split_guards(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """``if c: <raises> else: S`` is the guard ``if c: <raises>`` followed by S (and the
    same with the sides swapped, testing ``not c``), so S is lowered as straight code."""
    out: list[ast.stmt] = []
    for stmt in stmts:
        if isinstance(stmt, ast.If) and stmt.orelse:
            body_raises, orelse_raises = always_raises(stmt.body), always_raises(stmt.orelse)
            if body_raises != orelse_raises:
                test = stmt.test if body_raises else ast.UnaryOp(ast.Not(), stmt.test)
                guard = ast.If(ast.copy_location(test, stmt.test), stmt.body if body_raises else stmt.orelse, [])
                out.append(ast.copy_location(guard, stmt))
                out += split_guards(stmt.orelse if body_raises else stmt.body)
                continue
        out.append(stmt)
    return out


def is_guard(stmt: ast.stmt) -> bool:
    """An ``if`` with no ``else`` whose body always raises (or whose both sides do)."""
    return isinstance(stmt, ast.If) and always_raises(stmt.body) and (not stmt.orelse or always_raises(stmt.orelse))


def lower_effect(state: LoweringState, stmt: ast.stmt) -> None:
    """Append `stmt` as a `ForwardStatement` reading the current values of its names."""
    for inner in ast.walk(stmt):
        if isinstance(inner, ast.stmt) and not isinstance(inner, _GUARD_STATEMENTS) \
                or isinstance(inner, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
            raise state.unsupported(inner)
        if isinstance(inner, ast.Call):
            check_no_change_in_place(state, inner)
    substituted, reads = _substitute(state, stmt)
    node = ForwardStatement(state.new_id(), NOGRAD, reads, {}, Var(state.namer.temp()), ast.Constant(None),
                            state.line, stmt=substituted)
    state.nodes.append(node)


def count_guard(state: LoweringState, x, count: int, message: str) -> None:
    """``if len(x) != count: raise ValueError(message)`` where the program reads `count` items of `x` one by
    one (``a, b, c = theta``): Python raises for an array of another length, whose items the reads alone
    would take silently (the first three of four: a gradient of a function that has no value).  A constant
    or a tuple built in the function has its items counted where they are read."""
    if not isinstance(x, Var) or x.name in state.tuple_items:
        return
    test = ast.Compare(ast.Call(ast.Name("len", ast.Load()), [ast.Name(x.name, ast.Load())], []), [ast.NotEq()],
                       [ast.Constant(count)])
    stmt = ast.If(test, [ast.Raise(ast.Call(ast.Name("ValueError", ast.Load()), [ast.Constant(message)], []), None)],
                  [])
    for n in ast.walk(stmt):
        ast.copy_location(n, ast.Pass(lineno=state.line or 1, col_offset=0))
    state.nodes.append(ForwardStatement(state.new_id(), NOGRAD, (x,), {}, Var(state.namer.temp()), ast.Constant(None),
                                        state.line, stmt=stmt))


def lower_raise(state: LoweringState, stmt: ast.Raise) -> None:
    """A ``raise`` on the path being lowered: the path ends here, and no value it leaves
    reaches the code after it (branches.py merges only the other side)."""
    lower_effect(state, stmt)
    state.terminated = True
    state.raised = True


def _substitute(state: LoweringState, stmt: ast.stmt) -> tuple[ast.stmt, tuple[Var, ...]]:
    """`stmt` reading the current value of each name it mentions; a name it assigns itself
    gets a fresh name of its own (it never reaches the code after the statement)."""
    stores = {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    stores -= _scope_names(stmt)
    for name in sorted(stores):
        if read_before_write([stmt] if not isinstance(stmt, ast.If) else stmt.body, name):
            raise state.error(stmt, f"{name} is read and then assigned in this statement run for its "
                              "effect", f"use a new name instead of {name}")
    renamed = {name: state.namer.fresh(name) for name in sorted(stores)}
    reads: dict[str, Var] = {}

    class Substitute(ast.NodeTransformer):
        def __init__(self):
            self.bound: list[set[str]] = []  # names the enclosing comprehensions and lambdas bind

        def visit_Name(self, name: ast.Name):
            if any(name.id in b for b in self.bound):
                return name
            if name.id in renamed:
                return ast.copy_location(ast.Name(renamed[name.id], name.ctx), name)
            if name.id in state.env:
                operand = state.env[name.id]
                if isinstance(operand, Var):
                    reads[operand.name] = operand
                    return ast.copy_location(ast.Name(operand.name, ast.Load()), name)
                if isinstance(operand, Const):
                    value = ast.Name("np", ast.Load()) if operand.value is np else ast.Constant(operand.value)
                    return ast.copy_location(value, name)
                return ast.copy_location(ast.Name(operand.name, ast.Load()), name)
            if name.id in state.lambdas:
                raise state.error(name, f"the local lambda {name.id!r} can only be called in a "
                                  "value srcdiff differentiates", "call it before, and print its value")
            if name.id in state.locals:
                raise state.error(name, f"{name.id!r} is used before it is assigned",
                                  f"assign {name.id} before this line on every path")
            if state.parsed.resolve(name.id) is MISSING:
                raise state.error(name, f"name {name.id!r} is not defined")
            return name

        def visit_Lambda(self, node: ast.Lambda):
            node.args.defaults = [self.visit(d) for d in node.args.defaults]
            node.args.kw_defaults = [d if d is None else self.visit(d) for d in node.args.kw_defaults]
            self.bound.append({a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)})
            node.body = self.visit(node.body)
            self.bound.pop()
            return node

        def _comprehension(self, node):
            first = node.generators[0]
            first.iter = self.visit(first.iter)  # evaluated where the comprehension is written
            self.bound.append({n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)})
            for g in node.generators:
                if g is not first:
                    g.iter = self.visit(g.iter)
                g.ifs = [self.visit(c) for c in g.ifs]
            for part in ("elt", "key", "value"):
                if hasattr(node, part):
                    setattr(node, part, self.visit(getattr(node, part)))
            self.bound.pop()
            return node

        visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    substituted = Substitute().visit(copy.deepcopy(stmt))
    return ast.fix_missing_locations(substituted), tuple(reads.values())


def _scope_names(stmt: ast.stmt) -> set[str]:
    """Names bound by the comprehensions of `stmt` (they stay the comprehensions' own)."""
    return {n.id for scope in ast.walk(stmt) if isinstance(scope, _SCOPES)
            for g in scope.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
