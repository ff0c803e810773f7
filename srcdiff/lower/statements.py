"""Lowering of statement lists: the `StatementLowerer`, ``if``, and the statements that jump.

``break``, ``continue`` and ``return`` are lowered without jumps: the statements after an
``if`` that may leave the current block are moved into the side that falls through (so a
``continue`` simply ends its side), ``break`` sets a flag the loop tests at the end of the
iteration, and ``return`` records the returned value (and, inside a loop, breaks out and
skips the rest of the function).  The flags are values in `env` (state.py says why).
``raise``, ``assert`` and a guard (``if bad: raise ...``) run in the forward sweep as the
user wrote them (effects.py).  Assignments are lowered in assignments.py, loops in loops.py.
"""

from __future__ import annotations

import ast
import warnings
from typing import Callable, Mapping

import numpy as np

from ..ir.nodes import Const
from .ast_facts import always_exits, may_exit, may_return
from .branches import lower_branch
from .effects import is_guard, lower_effect, lower_raise, split_guards
from .expressions import ExpressionHandler, ExpressionLowerer
from .opaque import condition
from .point_guards import guarded_sides
from .state import BREAK, DONE, RETURN, LoweringState
from .static_values import static_value

#: Lowers one kind of statement.
StatementHandler = Callable[["StatementLowerer", ast.stmt], None]


class StatementLowerer:
    """Lowers statements into `state.block`, each kind by its handler (function.py's table)."""

    def __init__(self, state: LoweringState, handlers: Mapping[type, StatementHandler],
                 expression_handlers: Mapping[type, ExpressionHandler]):
        self.state = state
        self.handlers = handlers
        # the two lowerers need each other: a statement's expressions are lowered by this one,
        # and a comprehension (an expression) is lowered as the `for` loop it stands for
        self.expressions = ExpressionLowerer(state, expression_handlers, lower_loop=self.statement)

    def statements(self, stmts: list[ast.stmt]) -> None:
        """Lower a statement list; an ``if`` that may leave it takes the rest into its sides."""
        state = self.state
        stmts = split_guards(without_quiet_blocks(state, stmts))
        for k, stmt in enumerate(stmts):
            if state.terminated:
                raise state.error(stmt, "this code is never run (it follows a `return`, "
                                  "`break` or `continue`)", "remove it")
            state.line = stmt.lineno
            rest = stmts[k + 1:]
            if isinstance(stmt, ast.If) and (may_exit(stmt.body) or may_exit(stmt.orelse)):
                body = stmt.body + ([] if always_exits(stmt.body) else rest)
                orelse = stmt.orelse + ([] if always_exits(stmt.orelse) else rest)
                test = condition(self.expressions, stmt.test)
                sides = guarded_sides(self.expressions, stmt.test, lambda b=body: self.statements(b),
                                      lambda o=orelse: self.statements(o), test)
                lower_branch(state, test, *sides, stmt.lineno)
                return
            self.statement(stmt)
            if isinstance(stmt, (ast.For, ast.While)) and may_return(stmt.body) \
                    and (rest or state.loops):
                self._after_returning_loop(rest, stmt.lineno)
                return

    def statement(self, stmt: ast.stmt) -> None:
        handler = self.handlers.get(type(stmt))
        if handler is None:
            raise self.state.unsupported(stmt)
        handler(self, stmt)

    def _after_returning_loop(self, rest: list[ast.stmt], line: int) -> None:
        """The rest of the block runs only if the loop did not `return`."""
        state = self.state

        def returned():
            if state.loops:
                state.env[BREAK] = Const(True)
            state.terminated = True

        lower_branch(state, state.env[DONE], returned, lambda: self.statements(rest), line)


#: Context managers that change only which warnings are shown, never a value: the block
#: they open is lowered as if written without them.
QUIET = (np.errstate, warnings.catch_warnings)


def without_quiet_blocks(state: LoweringState, stmts: list[ast.stmt]) -> list[ast.stmt]:
    """`stmts` with each ``with np.errstate(...):`` block (or ``warnings.catch_warnings()``)
    replaced by its body; any other ``with`` stays, and is refused when it is reached."""
    out: list[ast.stmt] = []
    for stmt in stmts:
        if isinstance(stmt, ast.With) and all(
                isinstance(item.context_expr, ast.Call) and item.optional_vars is None
                and static_value(state, item.context_expr.func) in QUIET for item in stmt.items):
            out += without_quiet_blocks(state, stmt.body)
        else:
            out.append(stmt)
    return out


def lower_if(lower: StatementLowerer, stmt: ast.If) -> None:
    if is_guard(stmt):  # if bad: raise ...: run as written, before what follows
        if stmt.orelse:
            lower_raise(lower.state, stmt)
        else:
            lower_effect(lower.state, stmt)
        return
    test = condition(lower.expressions, stmt.test)
    sides = guarded_sides(lower.expressions, stmt.test, lambda: lower.statements(stmt.body),
                          lambda: lower.statements(stmt.orelse), test)
    lower_branch(lower.state, test, *sides, stmt.lineno)


def lower_return(lower: StatementLowerer, stmt: ast.Return) -> None:
    state = lower.state
    if stmt.value is None:
        raise state.error(stmt, "`return` without a value", "return the scalar to differentiate")
    state.return_line = stmt.lineno
    state.env[RETURN] = lower.expressions.expr(stmt.value, target=state.parsed.name)
    if state.loops:
        state.env[DONE] = Const(True)
        state.env[BREAK] = Const(True)
    state.terminated = True


def lower_break(lower: StatementLowerer, stmt: ast.Break) -> None:
    lower.state.env[BREAK] = Const(True)
    lower.state.terminated = True


def lower_continue(lower: StatementLowerer, stmt: ast.Continue) -> None:
    lower.state.terminated = True


def lower_pass(lower: StatementLowerer, stmt: ast.Pass) -> None:
    pass


def lower_delete(lower: StatementLowerer, stmt: ast.Delete) -> None:
    """``del a, b``: the names are unbound, so reading them again is refused, as Python would
    raise.  Only plain names, and only outside branches and loops (where a name would be
    unbound on some paths only)."""
    state = lower.state
    for target in stmt.targets:
        if not isinstance(target, ast.Name):
            raise state.error(stmt, f"`del {ast.unparse(target)}` is not supported",
                              "delete plain names only; build a new list or array without the item")
        if state.loops or state.block is not state.root_block:
            raise state.error(stmt, "`del` inside a branch or loop is not supported",
                              "delete the name after the branch or loop, or just stop using it")
        if target.id not in state.env:
            raise state.error(stmt, f"name {target.id!r} is not defined here")
        del state.env[target.id]


def lower_raise_statement(lower: StatementLowerer, stmt: ast.Raise) -> None:
    lower_raise(lower.state, stmt)


def lower_assert(lower: StatementLowerer, stmt: ast.Assert) -> None:
    lower_effect(lower.state, stmt)
