"""Stage 2: the user's AST becomes the IR, one node per primitive call (A-normal form).

Names get SSA versions: reassigning ``x`` makes a new `Var` (``x_1``), so every value keeps
its own name for the backward sweep to read.  Control flow becomes structured regions
(branches.py, loops.py); a construct srcdiff cannot lower is refused with a `SrcDiffError`
naming it.  The work is done in function.py; here the stage's entry points give it the
way to learn about called user functions (callee_facts.py), which lowers those in turn.
"""

from __future__ import annotations

from ..frontend.naming import Namer
from ..frontend.parse import ParsedFunction
from ..ir.nodes import Function
from ..rules.rule_table import RuleTable
from .callee_facts import facts_of
from .facts import ParamFacts
from .function import lower_function, lower_function_specialised


def lower(parsed: ParsedFunction, table: RuleTable, statics=None) -> tuple[Function, Namer]:
    """Lower a parsed function into IR; returns it with the `Namer` holding its names.

    `statics` maps the parameters used as static arguments to their values for this
    variant; a parameter used so without one raises `StaticParameter`."""
    return lower_function(parsed, table, statics, facts_of)


def lower_specialised(parsed: ParsedFunction, table: RuleTable, value_of,
                      facts: ParamFacts | None = None) -> tuple[Function, Namer, dict]:
    """`lower`, each parameter used as a static argument taking ``value_of(name, node)``.

    Also returns those parameters' values.  `value_of` raises to refuse (the node is the
    parameter's first static use).  Which parameters lowering asks for does not depend on
    their values, so the result is right for any call whose values of them are equal.
    `facts`: what the arguments decide (facts.py); which parameters are None, and the
    signature if lowering used it (`facts.used_shapes`), are part of the key too."""
    return lower_function_specialised(parsed, table, value_of, facts_of, facts)
