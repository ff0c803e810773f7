"""Small helpers inlined into their caller before the reverse pass.

A call of another user function normally goes through that function's own adjoint (a
``vjp`` returning a pullback closure): a Python call, a closure and a tuple per call, and
shapes the caller cannot see through.  A *small* helper — straight-line code, no lists, no
names of its own module the caller could read differently — is instead spliced into the
caller's IR: its nodes are copied with fresh names, its parameters bound to the call's
operands, its result renamed to the call's.  The caller's gradient is then one function,
optimised as a whole, with the helper's shapes known at the call site.

Anything this cannot prove equivalent keeps the call as it is (never a refusal here).
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import re

from ..errors import SrcDiffError
from ..frontend.naming import Namer
from ..frontend.parse import parse_function
from ..ir.nodes import (
    Block,
    Branch,
    Const,
    Function,
    Global,
    Loop,
    Node,
    Specialised,
    UserCall,
    Var,
    all_nodes,
    link_users,
)

MAX_NODES = 60  # a helper larger than this keeps its own adjoint
MAX_DEPTH = 3  # helpers called by inlined helpers are inlined this deep

_TEMP = re.compile(r"t\d+$")


def inline_calls(function: Function, namer: Namer, lower_callee, caller) -> Function:
    """`function` with its calls of small helpers inlined.

    `lower_callee(func)` gives the callee's lowered `Function` (or None: keep the call);
    `caller` is the user's Python function (helpers must share its module globals)."""
    ids = [max((n.id for n in all_nodes(function)), default=0)]
    changed = [False]

    def block(b: Block, depth: int) -> Block:
        items = []
        for item in b.nodes:
            if isinstance(item, Branch):
                item = dataclasses.replace(item, body=block(item.body, depth), orelse=block(item.orelse, depth))
            elif isinstance(item, Loop):
                item = dataclasses.replace(item, body=block(item.body, depth))
            elif isinstance(item, UserCall) and depth < MAX_DEPTH:
                spliced = None if any(getattr(v, "name", None) in function.lists for v in item.inputs) \
                    else _splice(item, namer, lower_callee, caller, ids)
                if spliced is not None:
                    changed[0] = True
                    items += block(Block(spliced), depth + 1).nodes
                    continue
            items.append(item)
        return Block(items)

    body = block(function.body, 0)
    if not changed[0]:
        return function
    link_users(all_nodes(body))
    return dataclasses.replace(function, body=body)


def _splice(call: UserCall, namer: Namer, lower_callee, caller, ids: list[int]) -> list[Node] | None:
    """The callee's nodes renamed into the caller, or None when the call must stay a call."""
    func = call.callee
    if isinstance(func, Specialised) or not _same_scope(func, caller):
        return None
    callee = lower_callee(func)
    if callee is None or callee.lists or not isinstance(callee.output, Var):
        return None
    nodes = callee.body.nodes
    if len(nodes) > MAX_NODES or not all(isinstance(n, Node) for n in nodes):
        return None
    if any(isinstance(v, Global) for n in nodes for v in n.inputs):
        return None
    if not all(getattr(n.rule, "pure", False) for n in nodes):
        return None
    defined = {n.out.name for n in nodes}
    if callee.output.name not in defined:
        return None  # returns a parameter as it is: keep the call (no copy node to make)
    same_file = getattr(getattr(func, "__code__", None), "co_filename", None) \
        == getattr(getattr(caller, "__code__", None), "co_filename", "")
    binding = _bind(call, func, callee)
    if binding is None:
        return None
    # names the helper's expressions read that are not its values (np, math, builtins)
    values = defined | {p.name for p in callee.params}
    for n in nodes:
        for name in ast.walk(n.expr):
            if isinstance(name, ast.Name) and name.id not in values:
                namer.claim(name.id)
    rename = {}
    for name in dict.fromkeys(n.out.name for n in nodes):
        if name == callee.output.name:
            rename[name] = call.out
        else:
            rename[name] = Var(namer.temp() if _TEMP.match(name) else namer.fresh(name))
    operands = {**binding, **rename}
    out = []
    for n in nodes:
        ids[0] += 1
        inputs = tuple(operands.get(v.name, v) if isinstance(v, Var) else v for v in n.inputs)
        expr = _Rename(operands).visit(copy.deepcopy(n.expr))
        out.append(dataclasses.replace(n, id=ids[0], inputs=inputs, out=operands[n.out.name], expr=expr,
                                       line=n.line if same_file else call.line, users=[]))
    return out


def lower_helper(func, lower) -> Function | None:
    """`lower(parsed, refuse_static)` of a helper that is plain straight-line code, or None
    (not such a helper, or one srcdiff refuses: its own adjoint will say why)."""
    try:
        parsed = parse_function(func)
        if not is_plain_straight_line(parsed.tree):
            return None

        def refuse(name, node):
            raise parsed.error(node, f"{name} is a static argument")
        return lower(parsed, refuse)
    except SrcDiffError:
        return None


def is_plain_straight_line(tree: ast.FunctionDef) -> bool:
    """Only assignments to names and one final ``return``: nothing written in place."""
    body = tree.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # docstring
    if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        return False
    for stmt in body[:-1]:
        if not isinstance(stmt, ast.Assign):
            return False
        for target in stmt.targets:
            names = target.elts if isinstance(target, ast.Tuple) else [target]
            if not all(isinstance(n, ast.Name) for n in names):
                return False
    return not any(isinstance(n, (ast.Lambda, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await,
                                  ast.FunctionDef)) for stmt in body for n in ast.walk(stmt))


def _same_scope(func, caller) -> bool:
    """Names in the helper's code mean the same in the caller's generated code."""
    return getattr(func, "__globals__", None) is getattr(caller, "__globals__", ()) \
        and not getattr(func, "__closure__", None)


def _bind(call: UserCall, func, callee: Function) -> dict | None:
    """Callee parameter -> the operand the call gives it (a default: a constant)."""
    given = dict(zip(call.arg_names, call.inputs))
    binding = {}
    try:
        parameters = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    if len(parameters) != len(callee.params):
        return None
    for p, param in zip(parameters, callee.params):
        if p.name in given:
            binding[param.name] = given[p.name]
        elif p.default is not inspect.Parameter.empty and type(p.default) in (int, float, bool):
            binding[param.name] = Const(p.default)
        else:
            return None
    return binding


class _Rename(ast.NodeTransformer):
    def __init__(self, operands: dict):
        self.operands = operands

    def visit_Name(self, node: ast.Name) -> ast.expr:
        found = self.operands.get(node.id)
        if found is None:
            return node
        if isinstance(found, Const):
            return ast.copy_location(ast.Constant(found.value), node)
        return ast.copy_location(ast.Name(found.name, node.ctx), node)


__all__ = ["MAX_DEPTH", "MAX_NODES", "inline_calls", "is_plain_straight_line", "lower_helper"]
