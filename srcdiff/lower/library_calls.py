"""Lowering of the calls that a rule's plain signature cannot bind by itself.

Real library code is full of calls that carry no gradient or that only restate the input:
``xp = array_namespace(x)``, ``np.asarray(x, dtype=float)``, ``x.astype(np.float64)``, ``np.zeros_like(x)``,
``x.shape``.  `lower_call` handles these (and calls taking a list of operands, like ``np.concatenate([a, b])``);
every other call is left to the generic binding (it returns None).

- An *array namespace* (``xp = array_namespace(x)``, as recent SciPy writes its functions)
  is bound to NumPy: srcdiff differentiates NumPy arrays, so ``xp.sum`` is ``np.sum``, with
  its rule, and the generated code spells it ``np.sum``.
- A *conversion* passes the gradient through unchanged; to an integer or bool dtype it is
  refused where it would truncate a gradient (``x.astype(int)`` of a differentiated x).
- A *nograd* call (constructors, queries, comparisons) takes any arguments: a constant for the reverse pass.
"""

from __future__ import annotations

import ast
import dataclasses
import types

import numpy as np

from .. import rules
from ..errors import SrcDiffError
from ..frontend.depends import MISSING
from ..ir.nodes import Const, Operand, Var, all_nodes, operand_ast
from ..rules import runtime
from ..rules.draws import shared_stream
from ..rules.numpy_convert import CONVERSIONS, astype
from ..rules.numpy_joins import LIST_JOINS
from ..rules.structural import NOGRAD, TRUNCATE, gradient_inputs
from ..rules.table import qualified_name
from .array_api import alias_of, is_promoter, lower_alias, lower_promote
from .array_updates import at_parts, lower_at_set
from .computed_shapes import COUNTED, copies_computed, reshape_computed
from .effects import lower_effect
from .einsum_calls import einsum_sublists, is_text
from .emit import emit_rule
from .expressions import ExpressionLowerer
from .gradient_calls import gradient_list
from .joins import join_item, listed_join
from .lists import as_array
from .opaque import no_gradient, substitute
from .rule_calls import lower_method_call, lower_rule_call, no_rule
from .selections import lower_select
from .split_positions import AXES as SPLITS
from .split_positions import split_computed
from .static_values import constant, read_when_run, static_value

#: Functions (by name) that return the array namespace of their arguments.
NAMESPACE_GETTERS = {"array_namespace"}

#: Methods that take their shape or axes either as one tuple or as separate arguments.
PACKED_METHODS = {"reshape", "transpose"}


def lower_call(lower: ExpressionLowerer, node: ast.Call, target: str | None) -> Operand | None:
    """Lower `node` if it is one of the calls this module handles; None leaves it to the generic binding."""
    callee = node.func
    at = at_parts(node, lambda expr: resolve(lower, expr))  # at(x, index).set(v): a new array
    if at is not None:
        return lower_at_set(lower, node, *at, target)
    func = resolve(lower, callee)
    if func is MISSING:
        return _method(lower, node, target) if isinstance(callee, ast.Attribute) else None
    if func is np.gradient:  # along several axes: a list of one-axis calls
        listed = gradient_list(lower, node, target)
        if listed is not None:
            return listed
    if callable(func) and getattr(func, "__name__", None) in NAMESPACE_GETTERS:
        return Const(np)
    if is_promoter(func):  # xp_promote(x, force_floating=True, xp=xp): a conversion
        return lower_promote(lower, node, target)
    if alias_of(func):  # xpx.atleast_nd(x, ndim=1, xp=xp): np.atleast_1d(x)
        return lower_alias(lower, node, alias_of(func), target)
    if func is np.select:  # nested np.where
        return lower_select(lower, node, target)
    rule = lower.state.table.lookup(func)
    through_namespace = _uses_namespace(lower, callee)
    if rule is None:
        if through_namespace:
            raise no_rule(lower, node, func, ast.unparse(callee))
        return None
    spelled = respell(lower, callee)
    if func is runtime.stop_gradient:  # srcdiff.stop_gradient: the helper, which an export copies
        spelled = ast.Name("stop_gradient", ast.Load())
    if not rule.nograd and not rule.variadic and func not in CONVERSIONS and "dtype" not in rule.signature.parameters \
            and any(k.arg == "dtype" for k in node.keywords):
        return with_dtype(lower, node, spelled, target)
    if func is np.reshape and len(node.args) == 2 and not node.keywords:
        return reshape_computed(lower, node, node.args[0], node.args[1], spelled, target)
    if func in COUNTED and (counted := copies_computed(lower, node, func, spelled, target)) is not None:
        return counted
    if func in SPLITS and (pieces := split_computed(lower, node, func, target)) is not None:
        return pieces  # np.split(W, [n], axis=1), n computed when run: W[:, :n], W[:, n:]
    if func in CONVERSIONS:
        return _conversion(lower, node, func, node.args, spelled, target)
    if rule.nograd:
        out = _nograd(lower, node, rule, spelled, node.args, target)
        if rule.tuple_result:  # zeros_list: a list of zeros (a list: its adjoint is the list of the parts')
            lower.state.lists.add(out.name)
            lower.state.frozen_lists.add(out.name)
        return out
    if rule.variadic:
        return _variadic(lower, node, rule, spelled, target)
    tuple_valued = rule.tuple_result and not _array_valued(node)  # (rules of SciPy load lazily)
    if through_namespace or tuple_valued:
        out = lower_rule_call(lower, node, func, rule, spelled, target)
        if tuple_valued:
            lower.state.lists.add(out.name)
            lower.state.frozen_lists.add(out.name)  # never appended to
        return out
    return None


def _array_valued(node: ast.Call) -> bool:
    """``np.linalg.svd(x, compute_uv=False)``: the singular values alone, an array, not a tuple."""
    return any(k.arg == "compute_uv" and getattr(k.value, "value", None) is False for k in node.keywords)


# ---- names ----
def resolve(lower: ExpressionLowerer, expr: ast.expr, record: bool = True):
    """The object `expr` names statically (a module attribute, a builtin, ``xp.sum``)."""
    if isinstance(expr, ast.Name) and expr.id in lower.state.env:
        bound = lower.state.env[expr.id]
        return bound.value if isinstance(bound, Const) and bound.value is np else MISSING
    if isinstance(expr, ast.Attribute) and _uses_namespace(lower, expr):
        return getattr(np, expr.attr, MISSING) if isinstance(expr.value, ast.Name) else \
            getattr(resolve(lower, expr.value, record), expr.attr, MISSING)
    return static_value(lower.state, expr, record)


def _uses_namespace(lower: ExpressionLowerer, expr: ast.expr) -> bool:
    while isinstance(expr, ast.Attribute):
        expr = expr.value
    return isinstance(expr, ast.Name) and isinstance(lower.state.env.get(expr.id), Const) \
        and lower.state.env[expr.id].value is np


def respell(lower: ExpressionLowerer, expr: ast.expr) -> ast.expr:
    """`expr` with every array-namespace name (``xp``) spelled ``np``."""

    class Respell(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name):
            if isinstance(lower.state.env.get(name.id), Const) and lower.state.env[name.id].value is np:
                return ast.Name("np", ast.Load())
            return name

    return Respell().visit(_copy(expr))


def _copy(expr: ast.expr) -> ast.expr:
    return ast.parse(ast.unparse(expr), mode="eval").body


def _static_object(lower: ExpressionLowerer, expr: ast.expr, record: bool = True):
    """A literal's value or the object a name refers to; MISSING when it is computed."""
    try:
        return ast.literal_eval(expr)
    except ValueError:
        return resolve(lower, expr, record)


# ---- methods ----

def _method(lower: ExpressionLowerer, node: ast.Call, target) -> Operand | None:
    name, obj = node.func.attr, node.func.value
    func = rules.METHODS.get(name)
    if func is astype:
        return _conversion(lower, node, func, [obj] + node.args, None, target)
    rule = lower.state.table.lookup(func) if func is not None else None
    if rule is not None and rule.nograd:
        return _nograd(lower, node, rule, None, [obj] + node.args, target)
    if name == "reshape" and len(node.args) == 1 and not node.keywords:
        return reshape_computed(lower, node, obj, node.args[0], None, target)
    if func is np.repeat and (counted := copies_computed(lower, node, func, None, target, array=obj)) is not None:
        return counted
    if name in PACKED_METHODS and len(node.args) > 1:  # x.reshape(3, 4) is x.reshape((3, 4))
        packed = ast.Call(node.func, [ast.copy_location(ast.Tuple(node.args, ast.Load()), node.args[0])], node.keywords)
        if name == "reshape" and not node.keywords and any(read_when_run(lower.state, a) for a in node.args):
            return reshape_computed(lower, node, obj, packed.args[0], None, target)  # x.reshape(len(y), 2)
        return lower_method_call(lower, ast.copy_location(packed, node), target)
    return None


# ---- the three kinds of call ----

def _conversion(lower: ExpressionLowerer, node: ast.Call, func, args: list[ast.expr], spelled, target) -> Var:
    """``np.asarray(x, dtype=float)`` / ``x.astype(float)``: the gradient passes unchanged."""
    rule = lower.state.table.lookup(func)
    if not args or any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in node.keywords):
        raise lower.state.error(node, f"unsupported arguments for {rule.name}", "pass the array, then dtype=")
    dtype = args[1] if len(args) > 1 else next((k.value for k in node.keywords if k.arg == "dtype"), None)
    kind = None
    if dtype is not None:
        value = _static_object(lower, dtype)
        if value is MISSING:
            _check_dtype_when_run(lower, node, dtype)
            value = None
        try:
            kind = None if value is None else np.dtype(value).kind
        except TypeError:
            kind = "?"
    x = lower.expr(args[0])
    if dtype is not None and kind not in (None, "f"):
        if kind in "iub":  # np.floor(p).astype(int), a mask given as floats: no gradient (TRUNCATE: refused
            expr, reads = substitute(lower, node)  # where it truncates a value the differentiated input moves)
            return emit_rule(lower.state, NOGRAD if no_gradient(lower.state, x) else TRUNCATE, reads, {}, expr, target)
        raise lower.state.error(node, f"converting to dtype {ast.unparse(dtype)} would truncate the gradient",
                                "convert to a floating dtype (float, np.float64), or leave dtype out")
    if lower.state.is_list(x):  # np.array([1.0, -1.0]): the array NumPy makes of the list
        x = as_array(lower.state, x)
    rest = [_as_read(lower, a) for a in args[1:]]
    keywords = [ast.keyword(k.arg, _as_read(lower, k.value)) for k in node.keywords]
    if spelled is None:  # the method form
        expr = ast.Call(ast.Attribute(operand_ast(x), node.func.attr, ast.Load()), rest, keywords)
    else:
        expr = ast.Call(spelled, [operand_ast(x)] + rest, keywords)
    return emit_rule(lower.state, rule, (x,), {}, expr, target)


def _check_dtype_when_run(lower: ExpressionLowerer, node: ast.Call, dtype: ast.expr) -> None:
    """A dtype held by a name or an array (``dtype=x.dtype``): checked when the conversion runs,
    to be None or floating (any other would truncate the gradient), raising there if not."""
    names = [n.id for n in ast.walk(dtype) if isinstance(n, ast.Name)]
    # read off local values (``x.dtype``, ``np.result_type(x, 1.0)``): checked when it runs
    if not any(n in lower.state.env for n in names) or any(
            n not in lower.state.env and not isinstance(lower.state.parsed.resolve(n), types.ModuleType)
            for n in names):
        raise lower.state.error(node, f"cannot tell the dtype {ast.unparse(dtype)} of this conversion before "
                                "the function runs", "name a floating dtype, e.g. dtype=float")
    spelled = ast.unparse(dtype)
    location = lower.state.error(node, "").location
    location = dataclasses.replace(location, filename=location.short.rsplit(":", 1)[0])  # short lines
    where = str(SrcDiffError(f"converting to the dtype {spelled} would truncate the gradient", location,
                             "convert to a floating dtype (float, np.float64), or leave dtype out"))
    test = ast.parse(f"not ({spelled} is None or np.issubdtype(np.dtype({spelled}), np.floating))",
                     mode="eval").body
    guard = ast.If(test, [ast.Raise(ast.Call(ast.Name("TypeError", ast.Load()), [ast.Constant(where)], []))], [])
    lower_effect(lower.state, ast.fix_missing_locations(ast.copy_location(guard, node)))


def with_dtype(lower: ExpressionLowerer, node: ast.Call, spelled, target) -> Operand:
    """``np.sum(x, axis=0, dtype=d)`` (a rule without `dtype`): NumPy computes in dtype d, so
    it is ``np.sum(np.asarray(x, dtype=d), axis=0)``, a conversion first."""
    state = lower.state
    if not node.args or isinstance(node.args[0], ast.Starred):
        raise state.error(node, f"{ast.unparse(node.func)}(..., dtype=...) needs its array first",
                          "pass the array as the first argument")
    dtype = next(k.value for k in node.keywords if k.arg == "dtype")
    asarray = ast.Attribute(ast.Name("np", ast.Load()), "asarray", ast.Load())
    converting = ast.copy_location(ast.Call(asarray, [node.args[0]], [ast.keyword("dtype", dtype)]), node)
    key = f"<{ast.unparse(node.args[0])} as dtype>"  # held in env while the call is lowered
    state.env[key] = _conversion(lower, converting, np.asarray, [node.args[0]], asarray, None)
    try:
        rest = [k for k in node.keywords if k.arg != "dtype"]
        call = ast.copy_location(ast.Call(node.func, [ast.Name(key, ast.Load())] + node.args[1:], rest), node)
        return lower.expr(call, target)
    finally:
        del state.env[key]


def _as_read(lower: ExpressionLowerer, arg: ast.expr) -> ast.expr:
    """A static argument as the forward code reads it: local names as their current values."""
    if any(isinstance(n, ast.Name) and n.id in lower.state.env and not _uses_namespace(lower, n)
           for n in ast.walk(arg)):
        return substitute(lower, arg)[0]
    return respell(lower, arg)


def _nograd(lower: ExpressionLowerer, node: ast.Call, rule, spelled, args: list[ast.expr], target) -> Var:
    """A call whose value carries no gradient; its arguments may be dtypes, shapes, values."""
    operands: list[Operand] = []
    new_args = [_passive(lower, a, operands) for a in args]
    keywords = [ast.keyword(k.arg, _passive(lower, k.value, operands)) for k in node.keywords]
    if spelled is None:  # the method form: x.argmax()
        expr = ast.Call(ast.Attribute(new_args[0], node.func.attr, ast.Load()), new_args[1:], keywords)
    else:
        expr = ast.Call(spelled, new_args, keywords)
    return emit_rule(lower.state, rule, tuple(operands), {}, expr, target)


def _passive(lower: ExpressionLowerer, arg: ast.expr, operands: list[Operand]) -> ast.expr:
    """An argument of a nograd call: kept as written when static, else lowered."""
    if isinstance(arg, ast.Starred):
        raise lower.state.error(arg, "*args in a call are not supported")
    if isinstance(arg, (ast.Tuple, ast.List)):
        return type(arg)([_passive(lower, e, operands) for e in arg.elts], ast.Load())
    if _static_object(lower, arg, record=False) is not MISSING:  # kept as written: read at run time
        return respell(lower, arg)
    operand = lower.expr(arg)
    operands.append(operand)
    return operand_ast(operand)


def constant_call(lower: ExpressionLowerer, node: ast.Call, func, refusal: SrcDiffError, target,
                  owner: Var | None = None, draws: bool = False) -> Var:
    """A call of a function with no rule (``math.lgamma(nu)``, ``np.random.normal(size=3)``):
    its value is a constant as long as no argument carries a gradient; one that does is
    refused where it is differentiated, with `refusal`'s words.  Its effects (a random draw)
    are kept: the call is not pure.  With `owner`, the call is a method of that value
    (``rng.normal(size=3)`` of a generator the function made: generator_draws.py); `draws`
    marks a draw whose numbers differ from run to run (driver/lowering.py)."""
    state = lower.state
    operands: list[Operand] = [] if owner is None else [owner]
    for arg in [*node.args, *(k.value for k in node.keywords)]:
        _passive(lower, arg, operands)
    if state.block is not (state.root_block or state.block) and _from_parameters(state, operands):
        # inside a branch or loop: refused as before (a branch defers it until it runs),
        # since the reverse pass refuses the whole function for a node with no gradient
        raise refusal
    name = qualified_name(func) if hasattr(func, "__name__") else ast.unparse(node.func)
    constant_rule = rules.nograd(func, ("args",), name=name, pure=False, draws=draws or shared_stream(func),
                                 refuses_active=refusal.hint, refusal=refusal.reason)
    read = operands if owner is None else operands[1:]
    keywords = [ast.keyword(k.arg, v) for k, v in zip(node.keywords, _arguments_as_read(lower, node, read)[1])]
    spelled = node.func if owner is None else ast.Attribute(operand_ast(owner), node.func.attr, ast.Load())
    expr = ast.Call(spelled, _arguments_as_read(lower, node, read)[0], keywords)
    return emit_rule(state, constant_rule, tuple(operands), {}, expr, target)


def _arguments_as_read(lower: ExpressionLowerer, node: ast.Call, operands: list[Operand]):
    """The call's arguments and keyword values, the lowered ones as their operands."""
    found = iter(operands)

    def read(arg):
        if isinstance(arg, (ast.Tuple, ast.List)):
            return type(arg)([read(e) for e in arg.elts], ast.Load())
        if _static_object(lower, arg, record=False) is not MISSING:
            return respell(lower, arg)
        return operand_ast(next(found))
    return [read(a) for a in node.args], [read(k.value) for k in node.keywords]


def _from_parameters(state, operands: list[Operand]) -> bool:
    """Whether an operand is computed from a parameter, as far as the nodes lowered show."""
    varying = {p.name for p in state.params}
    root = state.root_block or state.block
    for item in all_nodes(root) + ([] if state.block is root else all_nodes(state.block)):
        if any(v.name in varying for v in gradient_inputs(item)):
            varying.add(item.out.name)
    return any(isinstance(o, Var) and o.name in varying for o in operands)


def _variadic(lower: ExpressionLowerer, node: ast.Call, rule, spelled, target) -> Var:
    """``np.concatenate([a, b], axis=1)`` ("list") or ``np.einsum("ij,j", a, b)`` ("args")."""
    args, keywords = list(node.args), {k.arg: k.value for k in node.keywords}
    if any(isinstance(a, ast.Starred) for a in args) or None in keywords:
        raise lower.state.error(node, "*args and **kwargs in a call are not supported")
    static_names = list(rule.static)
    if rule.variadic == "list":
        items = args.pop(0) if args else keywords.pop(rule.params[0], None)
        listed = not isinstance(items, (ast.List, ast.Tuple))  # a list made elsewhere: np.hstack(rows)
        if listed and (items is None or rule.func not in LIST_JOINS):
            raise lower.state.error(node, f"{rule.name} needs its arrays as a list written in the call",
                                    f"write {ast.unparse(node.func)}([a, b, ...], ...)")
        items = items if listed else items.elts
    else:
        if not args:
            raise lower.state.error(node, f"{rule.name} needs its {static_names[0]} first")
        if rule.func is np.einsum and not is_text(lower.state, args[0], args[1] if len(args) > 1 else None):
            node = einsum_sublists(lower.state, node, args)  # np.einsum(a, [0, 1], b, [1, 2]): subscripts first
            args = list(node.args)
        keywords[static_names[0]] = args.pop(0)
        items, args = args, []
    unknown = set(keywords) - set(static_names)
    if unknown or len(args) > len(static_names):
        raise lower.state.error(node, f"unsupported arguments for {rule.name}",
                                f"srcdiff's rule for {rule.name} takes the arrays and {', '.join(static_names)}")
    static = dict(rule.static)
    static.update({name: constant(lower.state, a) for name, a in zip(static_names, args)})
    static.update({name: constant(lower.state, a) for name, a in keywords.items()})
    if rule.variadic == "list" and listed:
        return listed_join(lower, node, rule.func, items, static, spelled, target)
    operands = tuple(lower.expr(join_item(lower, node, item, rule.variadic)) for item in items)
    if not operands:
        raise lower.state.error(node, f"{rule.name} of no arrays")
    expanded = rule.expand(len(operands))
    arrays = [operand_ast(o) for o in operands]
    if rule.variadic == "list":
        call_args = [ast.List(arrays, ast.Load())] + list(node.args[1:])
        call_keywords = [k for k in node.keywords if k.arg != rule.params[0]]
    else:
        call_args = [node.args[0]] + arrays
        call_keywords = list(node.keywords)
    return emit_rule(lower.state, expanded, operands, static, ast.Call(spelled, call_args, call_keywords), target)

