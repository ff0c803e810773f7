"""Functions defined inside the differentiated function: ``def inner(y): ...`` and lambdas.

A nested function is inlined where it is called: its parameters are bound to the
arguments' values and its body is lowered in place, reading the enclosing function's names
as they are at the call (Python's closures read them then too).  The names its body
assigns are its own: the caller's values of them come back after the call.  A default
written as a constant (``def penalty(v, power=2)``) gives its parameter that value where the call
leaves it out; one computed from names (``def g(u, k=k)``, ``w=w``, ``lr=cfg.lr``) is computed where the
``def`` runs, as Python does; arguments may be passed by name.  A ``return`` inside an ``if`` is made one
at the end (nested_returns.py).  Recursion, ``nonlocal``, a default Python makes one shared object of (a
call, a list display), ``*args``, and a nested function used as a value are refused with what to write
instead.
"""

from __future__ import annotations

import ast
import copy

from ..frontend.local_defs import TREE_DEFAULT
from ..ir.nodes import Operand
from .expressions import ExpressionLowerer
from .nested_returns import own_returns, returns_once
from .state import RETURN

_MODULE_LEVEL = "define the function at module level (srcdiff differentiates calls of those)"


def in_branch(tree: ast.AST, stmt: ast.stmt) -> bool:
    """Is `stmt` written inside a side of an ``if`` (or ``try``) of `tree`?  A local function
    defined there may be another one on the other side: which one a later call means is not
    known until the function runs."""
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and node is not stmt:
            if any(inner is stmt for side in (node.body, node.orelse) for s in side for inner in ast.walk(s)):
                return True
    return False


def called_before_in_loop(tree: ast.AST, stmt: ast.stmt, name: str) -> bool:
    """Is `stmt` (defining `name`) inside a loop of `tree` whose body reads `name` before it?  From the
    second iteration on, that read is of the definition the iteration before made, which lowering (one
    body for every iteration) cannot tell from the one before the loop."""
    loops = [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While)) and n is not stmt
             and any(inner is stmt for inner in ast.walk(n))]
    for loop in loops:
        for s in _before(loop.body, stmt):
            if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(s)):
                return True
    return False


def _before(body: list, stmt: ast.stmt) -> list:
    """The statements (and the headers of the blocks holding `stmt`) run before `stmt` in `body`, in order."""
    out = []
    for s in body:
        if s is stmt:
            return out
        if any(inner is stmt for inner in ast.walk(s)):
            header = [getattr(s, f) for f in ("test", "iter") if getattr(s, f, None) is not None]
            out += [ast.Expr(h) for h in header]
            for block in (getattr(s, f, None) for f in ("body", "orelse", "finalbody")):
                if isinstance(block, list) and any(inner is stmt for b in block for inner in ast.walk(b)):
                    return out + _before(block, stmt)
            return out
        out.append(s)
    return out


def remember(state, stmt: ast.stmt, name: str, func: ast.Lambda | ast.FunctionDef) -> None:
    """`name` is the local function `func` from here on."""
    if in_branch(state.parsed.tree, stmt):
        raise state.error(stmt, f"the local function {name} is defined inside an `if`, so which "
                          "definition a call means is known only when the function runs",
                          f"define {name} once before the `if` (pass what differs as a parameter)")
    if called_before_in_loop(state.parsed.tree, stmt, name):
        raise state.error(stmt, f"the local function {name} is defined in a loop that calls it before this line: "
                          "from the second iteration on that call is of the function the iteration before "
                          "made, which srcdiff does not follow",
                          f"define {name} before it is called in the loop (or before the loop)")
    state.lambdas[name] = func
    state.env.pop(name, None)


def lower_nested_def(lower, stmt: ast.FunctionDef) -> None:
    """``def inner(...)``: remembered under its name, lowered at each call."""
    state = lower.state
    a = stmt.args
    if stmt.decorator_list or a.vararg or a.kwarg or a.posonlyargs \
            or not all(_written_constant(d) or _plain_default(d) for d in a.defaults) \
            or not all(d is None or _written_constant(d) for d in a.kw_defaults):  # (def f(v, *, eps=0.1))
        raise state.error(stmt, f"the nested function {stmt.name} is supported with plain positional "
                          "parameters (defaults written as constants, names or arithmetic of them) and no "
                          "decorators", _MODULE_LEVEL)
    for inner in ast.walk(stmt):
        if isinstance(inner, (ast.Nonlocal, ast.Global)):
            raise state.error(inner, f"`{'nonlocal' if isinstance(inner, ast.Nonlocal) else 'global'}` "
                              f"in the nested function {stmt.name} is not supported",
                              f"return the new value from {stmt.name} and assign it in the caller")
        if isinstance(inner, (ast.Yield, ast.YieldFrom)):
            raise state.unsupported(inner)
    func = _defaults_computed(lower, stmt)
    body = [s for s in stmt.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    early = [n for s in body[:-1] for n in own_returns(s)]
    if body and (early or not isinstance(body[-1], ast.Return)):
        func = returns_once(func, _unused(state, f"{stmt.name}_value")) or func  # (nested_returns.py)
        body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        early = [n for s in body[:-1] for n in own_returns(s)]
    if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
        raise state.error(stmt, f"the nested function {stmt.name} must end with `return <value>`", _MODULE_LEVEL)
    if early:
        raise state.error(early[0], f"a `return` inside a loop, `try` or `with` of the nested function {stmt.name} "
                          "is not supported", "compute the value in a variable and return it once, at the end")
    remember(state, stmt, stmt.name, func)


def call_nested(lower: ExpressionLowerer, node: ast.Call, func: ast.FunctionDef | ast.Lambda, target) -> Operand:
    """A call of a local lambda or nested def, inlined: its parameters bound to the arguments."""
    state = lower.state  # (state.env is read afresh after lowering: a branch replaces it)
    a = func.args
    name = getattr(func, "name", "lambda")
    arguments = _bound(func, node)
    if arguments is None:
        raise state.error(node, f"the local function {name} is supported when called with exactly its "
                          "positional parameters (by position or name; a default written as a constant "
                          "may be left out)", _MODULE_LEVEL)
    inlining = state.inlining
    if id(func) in inlining:
        raise state.error(node, f"the nested function {name} calls itself: recursion of a nested "
                          "function is not supported", _MODULE_LEVEL)
    trees = [e.value[len(TREE_DEFAULT):-1] for e in arguments if _tree_default(e)]
    if trees:
        raise state.error(node, f"this call of {name} leaves out the parameter whose default is the dict (or "
                          f"other tree) {trees[0]}, which srcdiff passes only to a helper it writes out at the call "
                          "(one whose one `return` is at its end)", f"pass {trees[0]} to {name} here")
    if any(_computed(e) and e.id not in state.env for e in arguments):
        raise state.error(node, f"the default of a parameter of {name} was computed in a loop or branch that has "
                          "ended, and srcdiff does not carry it out of there", f"pass the value to {name} here")
    order = {id(e): k for k, e in enumerate(node.args + [k.value for k in node.keywords])}
    values = {id(e): lower.expr(e) for e in sorted(arguments, key=lambda e: order.get(id(e), len(order)))}
    values = [values[id(e)] for e in arguments]  # (evaluated as Python does: as written, then the defaults)
    parameters = a.args + a.kwonlyargs  # (a keyword-only one after the positional ones, as _bound gives them)
    own = {p.arg for p in parameters}
    if isinstance(func, ast.FunctionDef):
        own |= {n.id for s in func.body for n in ast.walk(s)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        # (a function it defines is its own too: the caller's meaning of that name comes back after the call)
        own |= {n.name for s in func.body for n in ast.walk(s) if isinstance(n, ast.FunctionDef)}
    saved = {n: state.env.get(n) for n in own}
    saved_lambdas = {n: state.lambdas.get(n) for n in own}
    state.env.update({p.arg: v for p, v in zip(parameters, values)})
    for p in parameters:
        state.lambdas.pop(p.arg, None)
    inlining.add(id(func))
    try:
        if isinstance(func, ast.Lambda):
            return lower.expr(func.body, target)
        return _inline_body(lower, node, func, target)
    finally:
        inlining.discard(id(func))
        for n, value in saved.items():
            if value is None:
                state.env.pop(n, None)
            else:
                state.env[n] = value
        for n, value in saved_lambdas.items():
            if value is None:
                state.lambdas.pop(n, None)
            else:
                state.lambdas[n] = value


_DEFAULT = "<default "  # the start of the name a default's value is kept under, computed at the ``def``


def _plain_default(expr: ast.expr) -> bool:
    """A default computed from names, attributes, items and arithmetic (``k=k``, ``w=w``, ``lr=cfg.lr``):
    no call and no list, dict or set display (Python's one object shared by every call)."""
    allowed = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.BinOp, ast.UnaryOp, ast.Tuple,
               ast.Load, ast.operator, ast.unaryop)
    return all(isinstance(n, allowed) for n in ast.walk(expr))


def _computed(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Name) and expr.id.startswith(_DEFAULT)


def _tree_default(expr: ast.expr) -> bool:
    """A default that is a whole tree (frontend/local_defs.py): its calls were written out there."""
    return isinstance(expr, ast.Constant) and isinstance(expr.value, str) and expr.value.startswith(TREE_DEFAULT)


def _defaults_computed(lower, stmt: ast.FunctionDef) -> ast.FunctionDef:
    """`stmt` with each default that is not a constant computed now, as Python does when the ``def``
    runs (``def g(u, k=k)`` in a loop keeps this iteration's k), and read from a name of its own."""
    if all(_written_constant(d) or _tree_default(d) for d in stmt.args.defaults):
        return stmt
    func, state = copy.copy(stmt), lower.state
    func.args = copy.copy(stmt.args)
    func.args.defaults = []
    for d in stmt.args.defaults:
        if not (_written_constant(d) or _tree_default(d)):
            key = f"{_DEFAULT}{stmt.name} {d.lineno}:{d.col_offset}>"
            state.env[key] = lower.expressions.expr(d)
            d = ast.copy_location(ast.Name(key, ast.Load()), d)
        func.args.defaults.append(d)
    return func


def _unused(state, base: str) -> str:
    """`base` (or `base_1`, ...): a name the user's function does not write or read anywhere."""
    taken = {n.id for n in ast.walk(state.parsed.tree) if isinstance(n, ast.Name)}
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    return name


def _written_constant(expr: ast.expr) -> bool:
    """A default Python computes once, when the ``def`` runs, to the value it has at every call."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        expr = expr.operand
    return isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float, str, bool, type(None)))


def _bound(func: ast.FunctionDef | ast.Lambda, node: ast.Call) -> list | None:
    """The expression giving each parameter of `func` its value at the call `node` (an argument, or a
    default written as a constant), in the parameters' order (keyword-only ones last, given by keyword only);
    None where Python would bind otherwise (``*args``) or raise."""
    a = func.args
    if a.vararg or a.kwarg or a.posonlyargs or any(isinstance(x, ast.Starred) for x in node.args) \
            or any(k.arg is None for k in node.keywords) \
            or not all(_written_constant(d) or _computed(d) or _tree_default(d) for d in a.defaults):
        return None
    params, keyword_only = [p.arg for p in a.args], [p.arg for p in a.kwonlyargs]
    if len(node.args) > len(params):
        return None
    given = dict(zip(params, node.args))
    for k in node.keywords:
        if k.arg in given or k.arg not in params + keyword_only:
            return None  # (given twice, or no such parameter: Python's TypeError)
        given[k.arg] = k.value
    given.update({p: d for p, d in zip(params[len(params) - len(a.defaults):], a.defaults) if p not in given})
    given.update({p: d for p, d in zip(keyword_only, a.kw_defaults) if d is not None and p not in given})
    params += keyword_only
    return [given[p] for p in params] if len(given) == len(params) else None


def _inline_body(lower: ExpressionLowerer, node: ast.Call, func: ast.FunctionDef, target) -> Operand:
    state = lower.state
    statements = lower.lower_loop.__self__  # the StatementLowerer that owns this expression lowerer
    body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    line, saved_return, terminated = state.line, state.env.get(RETURN), state.terminated
    try:
        statements.statements(body[:-1])
        if state.terminated:
            raise state.error(node, f"the nested function {func.name} leaves early (break, continue or "
                              "raise)", _MODULE_LEVEL)
        state.line = body[-1].lineno
        return lower.expr(body[-1].value, target)
    finally:
        state.line, state.terminated = line, terminated
        if saved_return is not None:
            state.env[RETURN] = saved_return
