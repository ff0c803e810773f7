"""Values with no gradient, computed as the user wrote them: comparisons, tests, lengths.

Such a value needs no node per operation: the user's expression is kept whole, reading the
current values of the names it mentions, as one `nograd` node.
"""

from __future__ import annotations

import ast
import builtins
import copy

import numpy as np

from ..frontend.depends import MISSING
from ..ir.nodes import Const, Operand, Var, operand_ast
from ..rules.structural import COMPARE, NOGRAD, STRING
from .emit import emit_rule, note_list_read
from .enum_members import enum_test
from .expressions import ExpressionLowerer, lower_name
from .facts import fold
from .mutations import check_no_change_in_place
from .static_dicts import as_conditional, dict_fact, simplified
from .static_values import static_value

_SCOPES = (ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)


def substitute(lower: ExpressionLowerer, expr: ast.expr) -> tuple[ast.expr, tuple[Var, ...]]:
    """`expr` reading the current values of the names it mentions, and those `Var`s."""
    state = lower.state
    if any(isinstance(n, _SCOPES) for n in ast.walk(expr)):
        raise state.error(expr, "comprehensions and lambdas inside a condition or comparison "
                          "are not supported", "compute the value in a statement first")
    for named in ast.walk(expr):  # kept whole, its assignment would be invisible to the gradient
        if isinstance(named, ast.NamedExpr):
            raise state.error(named, "`:=` expressions are not supported (here the value it assigns "
                              "would be invisible to the gradient)",
                              "assign the value in a statement before the test (for a `while`, also at "
                              "the end of the loop body)")
    for call in ast.walk(expr):
        if isinstance(call, ast.Call):
            check_no_change_in_place(state, call)
    reads: dict[str, Var] = {}
    # ``len(history)`` reads a list's length alone, which a later append does not make stale (emit.py)
    expr = copy.deepcopy(expr)
    lengths = {id(c.args[0]) for c in ast.walk(expr) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
               and c.func.id == "len" and len(c.args) == 1 and not c.keywords}

    class Substitute(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name):
            if name.id in state.env:
                operand = state.env[name.id]
                if isinstance(operand, Var):
                    reads[operand.name] = operand
                    if id(name) not in lengths:
                        note_list_read(state, operand)
                if isinstance(operand, Const) and operand.value is np:  # an array namespace (xp)
                    return ast.copy_location(ast.Name("np", ast.Load()), name)
                return ast.copy_location(operand_ast(operand), name)
            if name.id in state.lambdas or name.id in state.locals:
                lower_name(lower, name, None)  # refuses lambdas and unassigned locals
            elif state.parsed.resolve(name.id) is MISSING:
                raise state.error(name, f"name {name.id!r} is not defined")
            return name

    return Substitute().visit(expr), tuple(reads.values())


def is_dtype_object(value) -> bool:
    """``np.float64``, ``float``, ``np.dtype("f8")``: a value that names a dtype."""
    if isinstance(value, np.dtype):
        return True
    return isinstance(value, type) and (issubclass(value, np.generic) or value in (float, int, complex, bool))


def lower_name_or_dtype(lower: ExpressionLowerer, node: ast.Name, target) -> Operand:
    """A name (expressions.lower_name); a global naming a dtype (``dtype = float``) is a
    value with no gradient, read as written."""
    state = lower.state
    if node.id not in state.env and node.id not in state.lambdas and node.id not in state.locals \
            and is_dtype_object(state.parsed.resolve(node.id)):
        state.parsed.depend(node.id, state.parsed.resolve(node.id))
        return opaque(lower, node, target)
    return lower_name(lower, node, target)


def opaque(lower: ExpressionLowerer, node: ast.expr, target) -> Operand:
    """A value with no gradient (a comparison, a length), computed as the user wrote it."""
    expr, reads = substitute(lower, node)
    return emit_rule(lower.state, NOGRAD, reads, {}, expr, target)


def no_gradient(state, x: Operand) -> bool:
    """`x` is a constant or the value of a call with no gradient (``np.floor(p)``) made here."""
    made = next((n for n in reversed(state.nodes) if isinstance(x, Var) and n.out == x), None)
    return isinstance(x, Const) or (made is not None and made.rule.nograd)


def text(lower: ExpressionLowerer, node: ast.expr, target) -> Operand:
    """Text made from values (``str(x)``, an f-string): no gradient, and refused where the
    output depends on it through a differentiated value (`structural.STRING`)."""
    expr, reads = substitute(lower, node)
    return emit_rule(lower.state, STRING, reads, {}, expr, target)


def opaque_call(lower: ExpressionLowerer, name: str, *operands: Operand) -> Operand:
    """``name(*operands)`` for a builtin with no gradient (len, min of lengths)."""
    for v in operands:
        note_list_read(lower.state, v)
    expr = ast.Call(ast.Name(name, ast.Load()), [operand_ast(v) for v in operands], [])
    return emit_rule(lower.state, NOGRAD, tuple(v for v in operands if isinstance(v, Var)), {}, expr, None)


def condition(lower: ExpressionLowerer, test: ast.expr) -> Operand:
    """A branch test: carries no gradient, so the user's expression is kept whole; one the
    specialisation decides (``b is None``, ``x.ndim == 1``) is a constant."""
    decided = folded(lower, test)
    if decided is not MISSING:
        return Const(decided)
    if isinstance(test, ast.Name) and test.id in lower.state.env:
        return lower.state.env[test.id]
    if isinstance(test, ast.Constant):
        return Const(test.value)
    if isinstance(test, ast.Compare) and _calls_local(lower, test):
        return lower.expr(test)  # ``if g(mid) > 0`` of a nested def: its body inlined (lower_compare)
    return opaque(lower, test, None)


def folded(lower: ExpressionLowerer, test: ast.expr):
    """The value of `test` if the specialisation decides it (facts.py), else MISSING."""
    state = lower.state
    known = dict_fact(lower, test)  # "l2" in cfg of a dict of constants
    if known is MISSING and isinstance(test, ast.Compare):
        known = enum_test(state, test)  # ``mode is Act.RELU``: decided for this variant
    if known is not MISSING:
        return known

    def value_of(expr: ast.expr):
        if isinstance(expr, ast.Name) and expr.id in state.env:
            return state.env[expr.id]
        return MISSING
    return fold(test, value_of, state.facts)


def lower_compare(lower: ExpressionLowerer, node: ast.Compare, target) -> Operand:
    decided = folded(lower, node)
    if decided is not MISSING:
        return Const(decided)
    if all(isinstance(e, ast.Constant) or (isinstance(e, ast.Name) and e.id in lower.state.env)
           for e in [node.left, *node.comparators]):
        expr, reads = substitute(lower, node)  # its shape is known: the operands' broadcast
        return emit_rule(lower.state, COMPARE, reads, {}, expr, target)
    if _calls_local(lower, node):  # ``g(mid) > 0`` of a nested def: each side lowered (its body inlined)
        sides = [lower.expr(e) for e in [node.left, *node.comparators]]
        expr = ast.copy_location(ast.Compare(operand_ast(sides[0]), node.ops, [operand_ast(v) for v in sides[1:]]),
                                 node)
        return emit_rule(lower.state, COMPARE, tuple(v for v in sides if isinstance(v, Var)), {}, expr, target)
    if len(node.ops) == 1 and isinstance(node.ops[0], _ORDERS) \
            and all(_arithmetic(lower, e) for e in (node.left, node.comparators[0])):
        # ``np.abs(r) <= d``: the computed operands lowered first, so the comparison's shape is
        # known too (a piecewise loss's masks are then exact selections, not run-time ones)
        operands = [lower.expr(e) for e in (node.left, node.comparators[0])]
        expr = ast.Compare(operand_ast(operands[0]), node.ops, [operand_ast(operands[1])])
        return emit_rule(lower.state, COMPARE, tuple(v for v in operands if isinstance(v, Var)), {}, expr, target)
    return opaque(lower, node, target)


def _calls_local(lower: ExpressionLowerer, node: ast.expr) -> bool:
    """Whether `node` calls a local lambda or nested def (which a test kept as written could not name)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in lower.state.lambdas
               for n in ast.walk(node))


_ORDERS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
#: NumPy's functions an operand of such a comparison may call (one array in, one out)
_ELEMENTWISE = frozenset({"abs", "absolute", "exp", "log", "sqrt", "square", "sin", "cos", "tanh", "sign"})


def _arithmetic(lower: ExpressionLowerer, e: ast.expr) -> bool:
    """Arithmetic and elementwise NumPy calls on names of arrays and numbers bound here."""
    env = lower.state.env
    if isinstance(e, ast.Constant):
        return type(e.value) in (int, float)
    if isinstance(e, ast.Name):
        return e.id in env and e.id not in lower.state.lists
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        return _arithmetic(lower, e.left) and _arithmetic(lower, e.right)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return _arithmetic(lower, e.operand)
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in _ELEMENTWISE \
        and isinstance(e.func.value, ast.Name) and e.func.value.id == "np" and "np" not in env \
        and lower.state.parsed.resolve("np") is np and len(e.args) == 1 and not e.keywords \
        and _arithmetic(lower, e.args[0])


def lower_boolop(lower: ExpressionLowerer, node: ast.BoolOp, target) -> Operand:
    """``a or b`` of comparisons (as a gradient's forward code saves a loop's exit test): its
    value is a bool, which carries no gradient; of other operands it could be one of them."""
    if _is_boolean(node, lambda f: static_value(lower.state, f, record=False)):
        decided = folded(lower, node)
        return Const(decided) if decided is not MISSING else opaque(lower, node, target)
    node = simplified(lower, node)  # ``cfg or {}`` of a None argument: decided now
    if not isinstance(node, ast.BoolOp):
        return lower.expr(node, target)
    branch = as_conditional(node)  # ``eps or 1e-3`` of a number known when it runs: a conditional
    if branch is not None:
        return lower.expr(branch, target)
    raise lower.state.error(node, "`and`/`or` are supported as values when the operands before the last "
                            "are names or are decided when srcdiff builds the gradient (None, bools, "
                            "dicts of constants): here an operand is computed, and its value could be "
                            "either operand", "assign the operand to a name first, use them in an `if`/`while` "
                            "test, or write a conditional expression (a if a is not None else b) or "
                            "np.logical_and / np.logical_or")


#: builtins whose value is always a bool (``isinstance(x, np.ndarray) and tensor``, a saved test)
_BOOLEAN_CALLS = (builtins.isinstance, builtins.issubclass, builtins.callable, builtins.hasattr, builtins.bool)


def _is_boolean(expr: ast.expr, resolve) -> bool:
    """Whether `expr` is certainly a bool: comparisons, bool constants and calls of builtins
    that return one (`resolve` names the function), joined by and/or/not."""
    if isinstance(expr, ast.BoolOp):
        return all(_is_boolean(v, resolve) for v in expr.values)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return True
    if isinstance(expr, ast.Call) and not expr.keywords:
        return any(resolve(expr.func) is f for f in _BOOLEAN_CALLS)
    return isinstance(expr, ast.Compare) or isinstance(expr, ast.Constant) and isinstance(expr.value, bool)
