"""How the kinds of kinds.py flow through statements: what each name of a numba module's
function holds after a statement, a branch, or any iteration of a loop (`effect`)."""

from __future__ import annotations

import ast
from dataclasses import replace

from .kinds import NUMBER, Items, Kind, of


def join(a, b):
    """What a name may hold after two paths that give it `a` and `b`."""
    if a == b:
        return a
    if isinstance(a, Kind) and isinstance(b, Kind) and a.ndim == b.ndim and a.dtype == b.dtype:
        return Kind(a.ndim, a.dtype, None)
    if isinstance(a, Items) and isinstance(b, Items):
        if a.item is None or b.item is None:
            return Items(a.item or b.item)
        if len(a.item) == len(b.item):
            return Items(tuple(join(x, y) for x, y in zip(a.item, b.item)))
    return None


def join_envs(a: dict, b: dict) -> dict:
    return {name: join(a.get(name), b.get(name)) for name in set(a) | set(b)}


def bound(target: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def effect(stmt: ast.stmt, env: dict) -> dict:
    """`env` after `stmt` runs (a new dict)."""
    env = dict(env)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        _bind(stmt.targets[0], stmt.value, env)
    elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        env[stmt.target.id] = augmented(stmt, env)
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
            and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "append" \
            and isinstance(stmt.value.func.value, ast.Name) and len(stmt.value.args) == 1:
        name = stmt.value.func.value.id
        if isinstance(env.get(name), Items):
            item = of(stmt.value.args[0], env)
            item = tuple(replace(k, dims=None) if isinstance(k, Kind) else k for k in item) \
                if isinstance(item, tuple) else None
            env[name] = join(env[name], Items(item)) if item is not None else None
    elif isinstance(stmt, (ast.For, ast.While)):
        if isinstance(stmt, ast.For):
            loop = isinstance(stmt.iter, ast.Call) and isinstance(stmt.iter.func, ast.Name) \
                and stmt.iter.func.id == "range"
            for name in bound(stmt.target):
                env[name] = NUMBER["i8"] if loop and isinstance(stmt.target, ast.Name) else None
        entry = loop_entry(stmt, env)
        env = join_envs(env, block(stmt.body, entry))
        env = block(stmt.orelse, env)
    elif isinstance(stmt, ast.If):
        env = join_envs(block(stmt.body, env), block(stmt.orelse, env))
    elif not isinstance(stmt, (ast.Expr, ast.Return, ast.Raise, ast.Pass, ast.Assert)):
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                env[node.id] = None
    return env


def augmented(stmt: ast.AugAssign, env: dict):
    """The kind of ``a += b``'s result: an array keeps its dtype (numba adds in place)."""
    made = of(ast.BinOp(ast.Name(stmt.target.id, ast.Load()), stmt.op, stmt.value), env)
    before = env.get(stmt.target.id)
    if isinstance(made, Kind) and isinstance(before, Kind) and before.array:
        return replace(made, dtype=before.dtype) if made.ndim == before.ndim else None
    return made


def _bind(target: ast.AST, value: ast.AST, env: dict) -> None:
    if isinstance(target, ast.Name):
        if isinstance(value, ast.List) and not value.elts:
            env[target.id] = Items(None)
        else:
            env[target.id] = of(value, env)
    elif isinstance(target, ast.Tuple):
        made = of(value, env)
        if isinstance(made, tuple) and len(made) == len(target.elts):
            for element, kind in zip(target.elts, made):
                if isinstance(element, ast.Name):
                    env[element.id] = kind
                else:
                    for name in bound(element):
                        env[name] = None
        else:
            for name in bound(target):
                env[name] = None


def block(stmts: list, env: dict) -> dict:
    for stmt in stmts:
        env = effect(stmt, env)
    return env


def loop_entry(loop: ast.stmt, env: dict) -> dict:
    """What names hold at the start of any iteration of `loop`, `env` before the first."""
    entry = dict(env)
    for _ in range(4):
        again = join_envs(env, block(loop.body, entry))
        if again == entry:
            return entry
        entry = again
    return {name: None for name in entry}


def stack_of(value: ast.expr) -> str | None:
    """The list (a loop's stack) `value` reads an item of (``stack.pop()``, ``stack[i]``), else None."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "pop" \
            and isinstance(value.func.value, ast.Name) and not value.args:
        return value.func.value.id
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        return value.value.id
    return None
