"""Small pieces of syntax the fusion pass (fusion.py, chains.py) builds loops from."""

from __future__ import annotations

import ast
import copy
from collections import Counter

from . import kinds

#: calls of numbers a value computed before the loop (or inside it, as written) may make
PURE_CALLS = {"len", "abs", "min", "max", "float", "int", "full", "matmul_stacks"}  # (matmul_stacks: `@` in numba)


class NotFused(Exception):
    """A statement that cannot join the chain."""


def name_node(id_: str, store: bool = False) -> ast.Name:
    """A name, read or (`store`) bound."""
    return ast.Name(id_, ast.Store() if store else ast.Load())


def np_call(func: str, *args: ast.expr) -> ast.Call:
    """``np.func(*args)``."""
    return ast.Call(ast.Attribute(name_node("np"), func, ast.Load()), list(args), [])


def pure(node: ast.AST) -> bool:
    """Whether evaluating `node` changes nothing (no method call such as ``stack.pop()``)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            func = sub.func
            known = kinds.numpy_name(func) is not None or (isinstance(func, ast.Name) and func.id in PURE_CALLS) \
                or (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "math") \
                or (isinstance(func, ast.Attribute) and func.attr in kinds.REDUCTIONS)
            if not known:
                return False
        elif isinstance(sub, (ast.NamedExpr, ast.Lambda, ast.Await, ast.Yield)):
            return False
    return True


def copied(stmts: list) -> list:
    """Copies of statements; each node keeps where it comes from (`origin`, shared, not copied)."""
    made = []
    for stmt in stmts:
        saved = [(n, n.origin) for n in ast.walk(stmt) if hasattr(n, "origin")]
        for node, _ in saved:
            del node.origin
        new = copy.deepcopy(stmt)
        for node, origin in saved:
            node.origin = origin
        for old, twin in zip(ast.walk(stmt), ast.walk(new)):
            if hasattr(old, "origin"):
                twin.origin = old.origin
        made.append(new)
    return made


def loads(trees) -> Counter:
    """How often each name is read in `trees` (an augmented assignment reads its target)."""
    found = Counter()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                found[node.id] += 1
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                found[node.target.id] += 1
    return found




def parse(text: str) -> ast.stmt:
    """The one statement `text` holds."""
    return ast.parse(text).body[0]


def located(new: ast.stmt, old: ast.stmt) -> ast.stmt:
    """`new`, from where `old` comes from (its user's line)."""
    if hasattr(old, "origin"):
        new.origin = old.origin
    return new
