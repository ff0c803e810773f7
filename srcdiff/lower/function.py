"""Lowering one function: which handler lowers each construct, and the function as a whole.

The statement and expression lowerers dispatch on the AST node's type through the two
tables here; a construct missing from them is refused by name.  How to learn about a
called user function comes in as an argument (`CalleeFactsOf`), because learning it runs
this same lowering on the callee (callee_facts.py, lowerer.py).
"""

from __future__ import annotations

import ast

from ..frontend.memo_caches import memo_given
from ..frontend.naming import Namer
from ..frontend.parse import ParsedFunction
from ..ir.nodes import Const, Function, Var
from ..rules.rule_table import RuleTable
from . import assignments, branches, calls, lists, loops, nested, opaque, operators, statements, subscripts
from .expressions import ExpressionHandler, lower_constant
from .facts import ParamFacts
from .state import RETURN, CalleeFactsOf, LoweringState, parameter_names
from .statements import StatementHandler, StatementLowerer
from .static_dicts import lower_dict
from .static_values import StaticParameter

EXPRESSIONS: dict[type, ExpressionHandler] = {
    ast.Constant: lower_constant,
    ast.Name: opaque.lower_name_or_dtype,
    ast.BinOp: operators.lower_binop,
    ast.UnaryOp: operators.lower_unaryop,
    ast.Attribute: operators.lower_attribute,
    ast.Compare: opaque.lower_compare,
    ast.BoolOp: opaque.lower_boolop,
    ast.IfExp: branches.lower_ifexp,
    ast.Dict: lower_dict,  # a dict of constants (``cfg or {}``)
    ast.Subscript: subscripts.lower_subscript,
    ast.List: lists.lower_list,
    ast.Tuple: lists.lower_tuple,
    ast.ListComp: lists.lower_comprehension,
    ast.GeneratorExp: lists.lower_comprehension,
    ast.Call: calls.lower_call,
    ast.JoinedStr: opaque.text,  # an f-string: text, with no gradient
}

STATEMENTS: dict[type, StatementHandler] = {
    ast.Assign: assignments.lower_assign,
    ast.AnnAssign: assignments.lower_annassign,
    ast.AugAssign: assignments.lower_augassign,
    ast.Expr: assignments.lower_expression_statement,
    ast.If: statements.lower_if,
    ast.For: loops.lower_for,
    ast.While: loops.lower_while,
    ast.Return: statements.lower_return,
    ast.Break: statements.lower_break,
    ast.Continue: statements.lower_continue,
    ast.Pass: statements.lower_pass,
    ast.Delete: statements.lower_delete,
    ast.Raise: statements.lower_raise_statement,
    ast.Assert: statements.lower_assert,
    ast.FunctionDef: nested.lower_nested_def,
}


def lower_function(parsed: ParsedFunction, table: RuleTable, statics,
                   callee_facts: CalleeFactsOf, facts: ParamFacts | None = None) -> tuple[Function, Namer]:
    """`parsed` as IR, with the `Namer` holding its names (lowerer.lower, with the way to
    learn about callees given).  `facts`: what the arguments decide (facts.py)."""
    state = LoweringState.start(parsed, table, statics, callee_facts, facts)
    tree = parsed.tree
    memo_given(parsed, None)  # a memoised recursion not flattened: its memo is no tree srcdiff knows empty
    if tree.args.vararg or tree.args.kwarg:
        raise parsed.error(tree, "*args and **kwargs parameters are not supported", "name every parameter")
    state.params = [Var(state.namer.claim(name)) for name in parameter_names(tree.args)]
    state.facts.start(state.params, statics)
    # a parameter whose argument is None or a bool is that constant in this specialisation
    constants = state.facts.constants
    state.env = {p.name: Const(constants[p.name]) if p.name in constants else p for p in state.params}
    state.root_block = state.block
    StatementLowerer(state, STATEMENTS, EXPRESSIONS).statements(tree.body)
    if RETURN not in state.env:
        raise state.error(tree.body[-1], f"{parsed.name} has no `return` statement",
                          "return the scalar value to differentiate")
    if not state.terminated:
        raise state.error(tree.body[-1], f"{parsed.name} can end without a `return`",
                          "return a value on every path")
    function = Function(parsed.name, state.params, state.block, state.env[RETURN], state.return_line,
                        frozenset(state.lists))
    return function, state.namer


def lower_function_specialised(parsed: ParsedFunction, table: RuleTable, value_of,
                               callee_facts: CalleeFactsOf, facts: ParamFacts | None = None
                               ) -> tuple[Function, Namer, dict]:
    """`lower_function`, each parameter used as a static argument taking ``value_of(name,
    node)`` (lowerer.lower_specialised); also returns those parameters' values."""
    statics: dict[str, object] = {}
    while True:
        try:
            function, namer = lower_function(parsed, table, statics, callee_facts, facts)
            return function, namer, statics
        except StaticParameter as exc:
            if exc.name in statics:
                raise
            statics[exc.name] = value_of(exc.name, exc.node)
