"""A call bound to its rule's signature: operands lowered, static arguments evaluated.

A rule names which of its parameters are operands (differentiated values, lowered to
nodes) and which are static (``axis``, ``keepdims``: known when the function is lowered,
part of the node).  An array method (``x.sum(axis=0)``) binds the same way, with the
array as the first argument.
"""

from __future__ import annotations

import ast

import numpy as np

from .. import rules
from ..errors import SrcDiffError
from ..ir.nodes import Const, Operand, operand_ast
from ..rules.numpy_joins import JOINS
from ..rules.numpy_pad import PAD_WHEN_RUN
from ..rules.table import qualified_name
from .emit import emit, emit_rule
from .expressions import ExpressionLowerer
from .joins import rows_of
from .lists import as_array
from .mutations import numpy_equivalent
from .opaque import opaque, text
from .smooth_squares import square
from .static_values import arithmetic_of_literals, as_written, constant, read_when_run


def lower_rule_call(lower: ExpressionLowerer, node: ast.Call, func, rule, spelled: ast.expr, target) -> Operand:
    """``func(...)`` for a function with a rule, written `spelled` in the forward code."""
    if _constant_when_run(lower, node, rule):
        return opaque(lower, ast.copy_location(ast.Call(spelled, node.args, node.keywords), node), target)
    if func is np.pad:
        rule = pad_rule(lower.state, node, rule)
    operands, static, args, keywords = bind(lower, node, rule, node.args)
    if func is np.square and len(operands) == 1:
        smooth = square(lower, operands[0], target)  # np.square(norm(x)) -> np.sum(x * x): exact at every order
        if smooth is not None:
            return smooth
    if rule is PAD_WHEN_RUN:
        return emit_rule(lower.state, rule, operands, static, ast.Call(spelled, args, keywords), target)
    return emit(lower.state, func, operands, static, ast.Call(spelled, args, keywords), target)


#: Methods of lists and tuples whose value is an integer (a position, a count): no gradient,
#: whatever the items are (piecewise constant in them, as np.argmax is).
_QUERIES = frozenset({"index", "count"})

#: Methods of `str` (no NumPy array has one): a configuration string read as the user wrote it.
_TEXT_METHODS = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip", "title", "capitalize",
                           "replace", "removeprefix", "removesuffix", "startswith", "endswith", "isdigit",
                           "isalpha", "isalnum", "isspace", "split", "rsplit", "splitlines"})


def _sequence(owner: ast.expr) -> bool:
    """A sequence asked for a position or a count: a name (``names``), an attribute of one
    (``self.labels``), or a copy of one (``list(temps)``, ``tuple(keys)``, ``temps.tolist()``)."""
    while isinstance(owner, ast.Attribute):
        owner = owner.value
    if isinstance(owner, ast.Call) and not owner.keywords:
        copied = isinstance(owner.func, ast.Name) and owner.func.id in ("list", "tuple") and len(owner.args) == 1
        listed = isinstance(owner.func, ast.Attribute) and owner.func.attr == "tolist" and not owner.args
        return (copied and _sequence(owner.args[0])) or (listed and _sequence(owner.func.value))
    return isinstance(owner, ast.Name)


def lower_method_call(lower: ExpressionLowerer, node: ast.Call, target) -> Operand:
    """``x.name(...)``: the rule of the NumPy function the method stands for."""
    name = node.func.attr
    func = rules.METHODS.get(name)
    if func is None and name in _QUERIES and _sequence(node.func.value) and not node.keywords:
        return opaque(lower, node, target)  # t_obs.index(s): a position or a count, an integer with no gradient
    if func is None and name in _TEXT_METHODS:
        return text(lower, node, target)  # config.lower().strip(): text, with no gradient (refused if one reaches it)
    if func is None:
        owner = ast.unparse(node.func.value)
        raise lower.state.error(node, f"the method .{name}() of {owner} has no adjoint rule: srcdiff "
                                "differentiates the methods of NumPy arrays that have one",
                                "use the equivalent NumPy function, call a plain function (an object's "
                                "method is followed when the object is an argument), or register a rule "
                                "with srcdiff.register_adjoint")
    rule = lower.state.table.lookup(func)
    obj = node.func.value
    operands, static, args, keywords = bind(lower, node, rule, [obj] + node.args)
    expr = ast.Call(ast.Attribute(args[0], name, ast.Load()), args[1:], keywords)
    return emit(lower.state, func, operands, static, expr, target)


def _constant_when_run(lower: ExpressionLowerer, node: ast.Call, rule) -> bool:
    """Whether the call's operands are numbers written in the code and a static argument is
    known only when it runs (``np.linspace(0.0, 1.0, len(y))``): the value then carries no
    gradient, so it is computed as written instead of being refused."""
    state = lower.state
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return False
    try:
        bound = rule.signature.bind(*node.args, **{k.arg: k.value for k in node.keywords})
    except TypeError:
        return False
    if not any(read_when_run(state, bound.arguments[p]) for p in rule.static if p in bound.arguments):
        return False
    return all(_is_number(state, bound.arguments[p]) for p in rule.params if p in bound.arguments)


def _is_number(state, node: ast.expr) -> bool:
    """A number written in the code, or a name bound to one: no gradient."""
    if isinstance(node, ast.Name):
        bound = state.env.get(node.id)
        return isinstance(bound, Const) and isinstance(bound.value, (int, float))
    value = arithmetic_of_literals(node)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def pad_rule(state, node: ast.Call, rule):
    """np.pad's rule for this call: with its width an operand where the width is computed when
    the function runs (``np.pad(x, (0, n - x.shape[0]))``; numpy_pad.PAD_WHEN_RUN)."""
    try:
        width = rule.signature.bind(*node.args, **{k.arg: k.value for k in node.keywords}).arguments.get("pad_width")
    except TypeError:
        return rule
    return PAD_WHEN_RUN if width is not None and read_when_run(state, width) else rule


def bind(lower: ExpressionLowerer, node: ast.Call, rule, args: list[ast.expr]):
    """Match a call's arguments to the rule: operands get lowered, static ones evaluated.

    Returns the operands, the static values, and the call's arguments and keywords as the
    forward code writes them."""
    state = lower.state
    if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in node.keywords):
        raise state.error(node, "*args and **kwargs in a call are not supported")
    try:
        bound = rule.signature.bind(*args, **{k.arg: k.value for k in node.keywords})
    except TypeError as exc:
        raise state.error(node, f"unsupported arguments for {rule.name}: {exc}",
                          f"srcdiff's rule for {rule.name} takes ({', '.join(rule.signature.parameters)})") from None
    lowered = {p: Const(v) for p, v in rule.defaults.items()}  # optional operands left out
    for name, arg in bound.arguments.items():
        lowered[name] = _operand(lower, rule, arg, name) if name in rule.params else arg
    operands = tuple(lowered[p] for p in rule.params)
    static = dict(rule.static)
    for name in rule.static:
        if name in bound.arguments:
            static[name] = constant(state, bound.arguments[name])
    names = list(rule.signature.parameters)
    new_args = [operand_ast(lowered[names[i]]) if names[i] in rule.params else as_written(state, a)
                for i, a in enumerate(args)]
    new_kw = [ast.keyword(k.arg, operand_ast(lowered[k.arg]) if k.arg in rule.params
                          else as_written(state, k.value)) for k in node.keywords]
    return operands, static, new_args, new_kw


def _operand(lower: ExpressionLowerer, rule, arg: ast.expr, param: str) -> Operand:
    """An operand of a call; a list passed to a NumPy function is the array NumPy makes of it
    (``np.sum([... for v in x])`` sums ``np.asarray([...])``), unless only its shape is read
    (``np.full((n, n), c)``'s shape stays the tuple NumPy, and numba, take)."""
    state = lower.state
    numpy = isinstance(rule.func, np.ufunc) or (getattr(rule.func, "__module__", None) or "").startswith("numpy")
    numpy = numpy and rule.func not in JOINS  # np.column_stack(xs) takes the list itself
    if numpy and isinstance(arg, ast.ListComp):
        state.stacked_rows.add(id(arg))  # a row that is a list becomes an array as it goes
    if param in rule.shape_only and isinstance(arg, ast.List):  # np.full([n, 1], c): a shape, as a tuple
        arg = ast.copy_location(ast.Tuple(arg.elts, ast.Load()), arg)
    value = lower.expr(arg)
    if rule.func in JOINS and not state.is_list(value):  # np.column_stack(a): a's rows
        return rows_of(lower, value)
    return as_array(state, value) if numpy and state.is_list(value) and param not in rule.shape_only else value


def no_rule(lower: ExpressionLowerer, node: ast.Call, func, spelled: str) -> SrcDiffError:
    """The error for a call of a function srcdiff has no rule for."""
    name = qualified_name(func) if hasattr(func, "__name__") else spelled
    instead = numpy_equivalent(lower.state, func)
    if instead is not None:
        return lower.state.error(
            node, f"no adjoint rule for {name} (called as {spelled})",
            f"write {instead} instead, which has one and computes the same, or register a rule "
            f"with srcdiff.register_adjoint({spelled}, x='g * ...')")
    return lower.state.error(
        node, f"no adjoint rule for {name} (called as {spelled})",
        f"register one with srcdiff.register_adjoint({spelled}, x='g * ...'), "
        "or rewrite the call with supported functions (docs/supported-numpy.md)",
    )
