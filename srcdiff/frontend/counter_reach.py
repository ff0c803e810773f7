"""Whether a ``for`` over ``range`` of constants is unrolled for the trees its body reads.

The frontend unrolls such a loop whose body reads a tree (a dict, a list or an object of arrays),
so that ``layers[i]`` or ``p[f"W{i}"]`` reads one entry in each copy of the body.  A body that
reads its trees only at fixed entries (``p["kp"] * err``: a controller's gains in a dict, read
in a 50-step loop) needs no copies: each entry it reads is a name of its own, as in a ``while``
loop or a ``range`` of a variable, which are kept as loops.  Unrolled, the gradient's code grew
with the number of steps, and building it took minutes."""

from __future__ import annotations

import ast
import builtins

from .reading_methods import reading_calls


def reads_trees(stmts: list, env: dict, kinds: tuple, loop: ast.stmt | None = None) -> bool:
    """Whether `stmts` (a loop's body) read a name `env` binds to a tree (one of `kinds`) that the
    loop must be unrolled for (`counter_reaches_trees`)."""
    trees = {n.id for st in stmts for n in ast.walk(st) if isinstance(n, ast.Name) and isinstance(env.get(n.id), kinds)}
    return bool(trees) and counter_reaches_trees(loop, trees, reading_calls(env, trees, kinds))


def counter_reaches_trees(loop: ast.stmt | None, trees: set[str], reading: set = frozenset()) -> bool:
    """Whether the counter of `loop`, a ``for`` over ``range``, or a name its body computes from it,
    decides which entry of one of `trees` the body reads (`_keyed`), or the body binds or writes into
    one of `trees` (either way the loop is unrolled, as before); True for any other loop (None: not
    a loop), which this does not decide.  A call of a method that only reads its object (`reading`:
    (name, method) pairs, reading_methods.py) changes nothing."""
    if not over_range(loop):
        return True
    parts = [(loop.target, None)]
    for stmt in loop.body:
        parts += _parts(stmt)
    reached = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    grown = True
    while grown:  # (names computed from the counter, in any order of the body's statements)
        grown = False
        for part, stored in parts:
            if _names(part, ast.Load) & reached and stored is not None:
                new = _names(stored, (ast.Store, ast.Del)) - reached
                reached |= new
                grown = grown or bool(new)
    return any(_keyed(part, trees, reached) or stored is not None and _written(stored, reading) & trees
               for part, stored in parts)


def _keyed(node: ast.AST, trees: set[str], reached: set[str]) -> bool:
    """Whether `node` reads an entry of one of `trees` at a key that names of `reached` compute
    (``layers[i]``, ``p[f"W{i}"]``, ``p["W"][i]``), or calls a tree's method, or a function given a
    tree, with an argument they compute (``net.layer(i)``, ``step(p, i)``)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Subscript) and _root(n.value) in trees and _names(n.slice, ast.Load) & reached:
            return True
        if isinstance(n, ast.Call):
            args = [*n.args, *(k.value for k in n.keywords)]
            given = _root(n.func) in trees or any(isinstance(a, ast.Name) and a.id in trees for a in args) \
                or not _library(n.func) and any(_root(a) in trees for a in args)
            if given and any(_names(a, ast.Load) & reached for a in args):
                return True
    return False


def _library(func: ast.expr) -> bool:
    """Whether `func` is a builtin, NumPy's or math's (``max``, ``np.sum``): given an entry of a
    tree, it computes with its value, never reads another entry."""
    return isinstance(func, ast.Name) and hasattr(builtins, func.id) or _root(func) in ("np", "numpy", "math")


def _root(node: ast.AST) -> str | None:
    """The name an entry or attribute chain starts from (``p`` of ``p["W"][0]``, ``net.layers``)."""
    while isinstance(node, ast.Subscript | ast.Attribute | ast.Starred):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _parts(stmt: ast.stmt) -> list[tuple[ast.AST, ast.AST | None]]:
    """(what a statement reads, what it binds or writes) for each simple statement of `stmt`, and
    for a compound one its header (an ``if``'s test, a ``for``'s items and target)."""
    if isinstance(stmt, ast.If | ast.While):
        return [(stmt.test, None)] + [p for s in stmt.body + stmt.orelse for p in _parts(s)]
    if isinstance(stmt, ast.For):
        return [(stmt.iter, stmt.target)] + [p for s in stmt.body + stmt.orelse for p in _parts(s)]
    if isinstance(stmt, ast.With):
        return [(item, item.optional_vars) for item in stmt.items] + [p for s in stmt.body for p in _parts(s)]
    if isinstance(stmt, ast.Try):
        blocks = stmt.body + stmt.orelse + stmt.finalbody + [s for h in stmt.handlers for s in h.body]
        return [p for s in blocks for p in _parts(s)]
    return [(stmt, stmt)]


def _names(node: ast.AST | None, ctx) -> set[str]:
    return set() if node is None else {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                                       and isinstance(n.ctx, ctx)}


def _written(node: ast.AST, reading: set = frozenset()) -> set[str]:
    """The names `node` binds, and those it writes into (``p["k"] = v``, ``obj.w += v``), or whose
    methods it calls, but for those in `reading`."""
    found = _names(node, (ast.Store, ast.Del))
    for n in ast.walk(node):
        if isinstance(n, ast.Subscript | ast.Attribute) and isinstance(n.ctx, ast.Store | ast.Del):
            base = n
            while isinstance(base, ast.Subscript | ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name):
                found.add(base.id)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) \
                and (n.func.value.id, n.func.attr) not in reading:
            found.add(n.func.value.id)  # (``p.update(...)``, ``layers.append(...)``: a method may change it)
    return found


def over_range(loop: ast.stmt | None) -> bool:
    """Whether `loop` is a ``for`` over a call of ``range`` (by that name)."""
    return isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name) \
        and loop.iter.func.id == "range"
