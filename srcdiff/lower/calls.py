"""Lowering of a call: which kind of call it is, tried in a fixed order.

First the calls that need to see their arguments before a rule binds them (stacking a
list, library calls: library_calls.py), then array methods and local lambdas, then a
function named statically: a builtin lowering handles itself, a function with a rule, or
another user function.  Anything else is refused.
"""

from __future__ import annotations

import ast
import functools
import math

import numpy as np

from .. import rules
from ..frontend.depends import MISSING
from ..ir.nodes import Const, Operand
from . import library_calls
from .array_updates import lower_helper_write
from .builtin_calls import list_consumer, special_call
from .cached_calls import cached_value
from .called_gradients import gradient_call, is_gradient_object, is_maker, made_gradient, refuse_other_transformed
from .custom_calls import custom_call, is_custom
from .enum_members import enum_called
from .expressions import ExpressionLowerer
from .fft_parts import fft_call
from .generator_draws import lower_draw, unseeded
from .library_keywords import positional
from .nested import call_nested
from .opaque import opaque
from .point_guards import lower_guarded_where
from .rule_calls import lower_method_call, lower_rule_call, no_rule
from .static_dicts import lower_dict_get
from .static_values import StaticParameter, as_written, static_parameter, static_value
from .subscripts import lower_module_dict_get
from .user_calls import is_user_function, user_call


def lower_call(lower: ExpressionLowerer, node: ast.Call, target) -> Operand:
    state = lower.state
    node = positional(lower, node)  # np.median(a=x): NumPy's own name of the operand
    listed = list_consumer(lower, node, target)  # np.stack(xs) of a list built by append
    if listed is not None:
        return listed
    parts = fft_call(lower, node, target)  # np.abs(np.fft.rfft(x)): real parts of a real x's transform
    if parts is not None:
        return parts
    drawn = lower_draw(lower, node, target)  # rng.normal(size=3) of rng = np.random.default_rng(0) made here
    if drawn is not None:
        return drawn
    lowered = library_calls.lower_call(lower, node, target)  # namespaces, conversions, nograd, lists
    if lowered is not None:
        return lowered
    callee = node.func
    if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Constant) \
            and isinstance(callee.value.value, str):
        return opaque(lower, node, target)  # "{:.3f}".format(x): text, with no gradient
    got = lower_dict_get(lower, node, target) or lower_module_dict_get(lower, node, target)  # cfg.get("l2", 0.1)
    if got is not None:
        return got
    if isinstance(callee, ast.Attribute) and _method_of_a_value(state, callee):
        return lower_method_call(lower, node, target)
    if isinstance(callee, ast.Name) and callee.id in state.lambdas:
        return call_nested(lower, node, state.lambdas[callee.id], target)
    member = enum_called(state, node)  # Act("relu") of a constant: a member, static
    if member is not MISSING:
        return Const(member)
    func = static_value(state, callee)
    chosen = func is MISSING and static_parameter(state, callee) is not None  # def f(x, act=np.tanh): act(x)
    if chosen:
        func = _parameter_function(state, callee)
        if isinstance(func, functools.partial):  # loss_fn=partial(_huber, delta=0.5): _huber(r, delta=0.5)
            node, func = partial_applied(node, func), func.func
    # (getattr(np, name)(x), ACTS[Act.TANH](x), and f(x) in a loop over a tuple of functions too)
    if chosen or func is not MISSING and (isinstance(callee, (ast.Call, ast.Subscript))
                                          or isinstance(callee, ast.Name) and callee.id in state.env):
        spelled = _spelling(func)
        if spelled is not None:  # the generated code names the function, as if the user had
            node = ast.copy_location(ast.Call(ast.copy_location(spelled, callee), node.args, node.keywords), node)
            callee = node.func
    if func is not MISSING and isinstance(callee, ast.Subscript):  # ACTS[name], name a static parameter's
        # alias (a loop over a flattened tuple): the generated code spells the key as its value
        callee = ast.copy_location(ast.Subscript(callee.value, as_written(state, callee.slice), ast.Load()), callee)
    if is_maker(func):  # g = srcdiff.grad(loss) in the function: the gradient object, a constant called later
        made = made_gradient(state, node)
        if made is not MISSING:
            return Const(made)
    cached = cached_value(state, node, func)  # w = weights(4) of an lru_cache'd helper: its value, now
    if cached is not MISSING:
        return Const(cached)
    if func is MISSING and isinstance(callee, ast.Call):
        func = made_gradient(state, callee)  # srcdiff.grad(loss)(w, X, y)
    if func is MISSING:
        raise state.error(node, f"cannot tell which function {ast.unparse(callee)} is",
                          "call a function by a name defined at module level")
    if is_gradient_object(func):  # dloss(w, X, y) of dloss = srcdiff.grad(loss): its generated code, called
        return gradient_call(lower, node, func, target)
    if is_custom(func):  # @srcdiff.custom_vjp / custom_jvp: the rule's source, written in place
        if id(func) in state.inlining:  # its own rule calls it for its value: the original function
            return user_call(lower, node, func.fun, target)
        return custom_call(lower, node, func, target)
    refuse_other_transformed(state, node, func)  # jacobian(f)(x), vmap(...)(x): at this line, with what to do
    if func is np.where:  # np.where(x == 0.0, c, f(s)): the guarded point's derivative is NaN
        guarded = lower_guarded_where(lower, node, target)
        if guarded is not None:
            return guarded
    special = special_call(lower, node, func, target)
    if special is None:  # set_item / zero_item in generated code read back: index writes
        special = lower_helper_write(lower, node, func, target)
    if special is not None:
        return special
    folded = _initial_folded(node, func)  # np.max(x, initial=c): np.maximum(np.max(x), c)
    if folded is not None:
        return lower.expr(folded, target)
    rule = state.table.lookup(func)
    if rule is None:
        if is_user_function(func):
            return user_call(lower, node, func, target)
        # a call none of whose arguments carries a gradient is a constant, whatever the function
        # (``gammaln(y + 1)`` of data): refused, with no_rule's words, only if one does
        return library_calls.constant_call(lower, node, func, no_rule(lower, node, func, ast.unparse(callee)),
                                           target, draws=unseeded(func, node))
    return lower_rule_call(lower, node, func, rule, callee, target)


def partial_applied(node: ast.Call, partial: functools.partial) -> ast.Call:
    """``f(r)`` of a parameter holding ``functools.partial(g, *a, **k)`` of constants: ``g(*a, r, **k)``
    (a static argument: frontend/statics.py takes a partial only of constants)."""
    args = [ast.copy_location(ast.Constant(a), node) for a in partial.args] + list(node.args)
    given = {k.arg for k in node.keywords}
    keywords = [ast.keyword(k, ast.copy_location(ast.Constant(v), node)) for k, v in partial.keywords.items()
                if k not in given] + list(node.keywords)
    return ast.copy_location(ast.Call(node.func, args, keywords), node)


def _method_of_a_value(state, callee: ast.Attribute) -> bool:
    """Whether ``callee`` is a method of a value the function computes, or of a NumPy array it
    reads from its module (``WEIGHTS.mean()``: NumPy's method, as of a local array), rather than
    a function reached through a module or an object."""
    owner = static_value(state, callee.value, record=False)
    return owner is MISSING or isinstance(owner, np.ndarray) and callee.attr in rules.METHODS


def _parameter_function(state, callee: ast.Name):
    """The function a parameter holds (its argument, or its default), for a gradient
    specialised on it (frontend/statics.py): lowering asks for it as for ``axis=axis``.  A name
    bound to the parameter (``f = act``) stands for it."""
    parameter = static_parameter(state, callee) or callee.id
    if state.statics is None or parameter not in state.statics:
        raise StaticParameter(parameter, callee, state.error(
            callee, f"cannot tell which function {callee.id} is",
            f"differentiate through srcdiff.grad, which specialises the gradient on the function {parameter} holds"))
    func = state.statics[parameter]
    if not callable(func):  # (a helper's parameter its caller passes a value srcdiff cannot see)
        raise state.error(callee, f"cannot tell which function {callee.id} is",
                          "call a function by a name defined at module level, or pass it as an argument "
                          "of the differentiated function itself")
    return func


def _spelling(func) -> ast.expr | None:
    """``np.tanh`` or ``math.exp`` for a NumPy or math function (generated code reads them so,
    numba too), else None (a user function is called through its own adjoint)."""
    for module, name in ((np, "np"), (math, "math")):
        if getattr(module, getattr(func, "__name__", ""), None) is func:
            return ast.Attribute(ast.Name(name, ast.Load()), func.__name__, ast.Load())
    return None


#: reductions whose ``initial=`` is one more operand of the reduction's own operation
_INITIAL_OPS = ((np.max, "maximum"), (np.amax, "maximum"), (np.min, "minimum"), (np.amin, "minimum"), (np.sum, "+"))


def _initial_folded(node: ast.Call, func) -> ast.expr | None:
    """``np.max(x, axis, initial=c)`` as ``np.maximum(np.max(x, axis), c)`` and ``np.sum(x, initial=c)``
    as ``np.sum(x) + c``, the value NumPy computes for a non-empty x (a tie with `c` shares as np.maximum
    does); None for any other call, or one that also has ``where=`` (where a max's initial fills the
    elements left out: left to the rule, which refuses it)."""
    op = next((o for f, o in _INITIAL_OPS if func is f), None)
    initial = next((k.value for k in node.keywords if k.arg == "initial"), None)
    if op is None or initial is None or not isinstance(node.func, ast.Attribute) \
            or any(k.arg == "where" for k in node.keywords):
        return None
    rest = ast.copy_location(ast.Call(node.func, node.args, [k for k in node.keywords if k.arg != "initial"]), node)
    if op == "+":
        return ast.copy_location(ast.BinOp(rest, ast.Add(), initial), node)
    pair = ast.copy_location(ast.Attribute(node.func.value, op, ast.Load()), node.func)
    return ast.copy_location(ast.Call(pair, [rest, initial], []), node)
