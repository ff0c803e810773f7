"""Calls of ``@srcdiff.custom_vjp`` / ``@srcdiff.custom_jvp`` functions, lowered from their rules' source.

A call ``y = f(a, b)`` of a custom_vjp function becomes, in the caller's IR:

* the statements of ``fwd`` lowered in place (like a nested function: its parameters bound
  to the arguments), giving the value ``v`` and the residuals ``r0, r1, ...``;
* one node ``y = v`` whose rule (custom_rules.py) has ``bwd``'s cotangents as its adjoint
  templates over ``g`` and the residuals: the backward sweep runs ``bwd``'s code, written
  out, and nothing flows back through ``fwd``'s own statements (``v`` and the residuals are
  the rule's `shape_only` operands).

A custom_jvp call lowers the rule's statements that do not read the tangents in place (the
primal computation); the tangent it returns becomes the node's tangent templates (forward
mode) and, where it is linear and elementwise, its transpose the adjoint templates.

The generated code is then ordinary: printed, exported, jit-compiled and differentiated
again (``bwd``'s code is Python srcdiff differentiates like any other).
"""

from __future__ import annotations

import ast
import builtins
import copy
import inspect

from ..frontend.parse import parse_function
from ..ir.nodes import Const, Operand, Var
from .custom_rules import jvp_rule, rule_parts, vjp_rule
from .emit import emit_rule
from .expressions import ExpressionLowerer


def is_custom(func) -> bool:
    """A function decorated with ``srcdiff.custom_vjp`` or ``srcdiff.custom_jvp``."""
    return hasattr(type(func), "srcdiff_function") and getattr(func, "kind", "") in ("vjp", "jvp")


def custom_call(lower: ExpressionLowerer, node: ast.Call, obj, target) -> Operand:
    """``f(args)`` for a custom_vjp / custom_jvp function `obj`: see the module docstring."""
    state = lower.state
    name = obj.fun.__qualname__
    if not obj.has_rule():
        raise state.error(node, f"{name} is a custom_{obj.kind} function without its rule",
                          f"call {obj.fun.__name__}.def{obj.kind}(...) before differentiating it")
    arguments = _arguments(lower, node, obj)
    rule_func = obj.fwd if obj.kind == "vjp" else obj.jvp
    parsed = parse_function(rule_func)
    parts = rule_parts(parsed, obj, len(arguments))
    _check_names(state, node, parsed, parts)
    if obj.kind == "vjp":
        bound = dict(zip(parts.params, arguments))
    else:
        bound = dict(zip(parts.primals, arguments))
    state.inlining.add(id(obj))
    try:
        value, residuals = _inline(lower, node, parsed, parts, bound)
    finally:
        state.inlining.discard(id(obj))
    if obj.kind == "vjp":
        rule = vjp_rule(obj, len(arguments), len(residuals), parts.residual_tuple)
    else:
        rule = jvp_rule(obj, parts, len(arguments), [r for r, _ in residuals])
        residuals = [operand for _, operand in residuals]
    expr = ast.Name(value.name, ast.Load()) if isinstance(value, Var) else ast.Constant(value.value)
    return emit_rule(state, rule, (value, *arguments, *residuals), {}, expr, target)


def _arguments(lower: ExpressionLowerer, node: ast.Call, obj) -> list[Operand]:
    """The call's operands, one per parameter of the original function (defaults filled in)."""
    state = lower.state
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        raise state.error(node, "*args and **kwargs in a call are not supported")
    sig = inspect.signature(obj.fun)
    try:
        bound = sig.bind(*node.args, **{k.arg: k.value for k in node.keywords})
    except TypeError as exc:
        raise state.error(node, f"cannot call {obj.fun.__name__} this way: {exc}") from None
    operands = []
    for p in sig.parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise state.error(node, f"{obj.fun.__qualname__}: a custom_{obj.kind} function takes plain "
                              "positional parameters", "remove *args, **kwargs and keyword-only parameters")
        if p.name in bound.arguments:
            operands.append(lower.expr(bound.arguments[p.name]))
        else:
            operands.append(Const(p.default))
    return operands


def _check_names(state, node: ast.Call, parsed, parts) -> None:
    """The rule's statements are lowered in the caller: a free name must mean the same there."""
    own = set(parts.params) | set(parts.primals) | {n.id for s in parts.statements for n in ast.walk(s)
                                                   if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for stmt in [*parts.statements, *parts.returned]:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in own \
                    and n.id not in parts.tangent_names:
                theirs = parsed.resolve(n.id)
                if theirs is not state.parsed.resolve(n.id) and theirs is not getattr(builtins, n.id, None):
                    raise parsed.error(n, f"{n.id} means something else where {parts.owner} is called "
                                       f"({state.parsed.location(node).short}): srcdiff writes this rule's code "
                                       "into the caller's gradient",
                                       "define the rule in the module of the functions that call it, or "
                                       "import the same names there")
                state.namer.claim(n.id)


def _inline(lower: ExpressionLowerer, node: ast.Call, parsed, parts, bound: dict):
    """Lower the rule's statements in place; (the value's operand, the residuals' operands).

    For a custom_jvp rule the residuals are ``(name, operand)`` of every primal name its
    tangent reads."""
    state = lower.state
    statements = lower.lower_loop.__self__  # the StatementLowerer that owns this expression lowerer
    same_file = parsed.filename == state.parsed.filename
    body = [copy.deepcopy(s) for s in parts.statements]
    returned = [copy.deepcopy(e) for e in parts.returned]
    if not same_file:  # lines of another file would name the caller's lines: name the call's
        for tree in [*body, *returned]:
            for n in ast.walk(tree):
                if hasattr(n, "lineno"):
                    n.lineno = n.end_lineno = node.lineno
    own = set(bound) | {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name)
                        and isinstance(n.ctx, ast.Store)}
    saved = {n: state.env.get(n) for n in own}
    saved_lambdas = {n: state.lambdas.get(n) for n in own}
    line, terminated = state.line, state.terminated
    state.env.update(bound)
    for n in own:
        state.lambdas.pop(n, None)
    try:
        statements.statements(body)
        state.line = returned[0].lineno
        value = lower.expr(returned[0])
        if parts.kind == "vjp":
            residuals = [lower.expr(e) for e in returned[1:]]
        else:
            residuals = [(n, state.env[n]) for n in parts.residual_names]
        return value, residuals
    finally:
        state.line, state.terminated = line, terminated
        for n, old in saved.items():
            if old is None:
                state.env.pop(n, None)
            else:
                state.env[n] = old
        for n, old in saved_lambdas.items():
            if old is not None:
                state.lambdas[n] = old


__all__ = ["custom_call", "is_custom"]
